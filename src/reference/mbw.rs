//! mbw (Debian `mbw`): memcpy bandwidth. mbw counts the bytes copied once (MiB/s of
//! the array size), while peakbench's `copy` counts read + write bytes as STREAM does,
//! so mbw's figure is about half of ours for the same copy; it is shown as mbw prints it.

use super::{Context, Invocation, Row, Tool, VersionFrom};
use crate::report::model::{BenchResult, Metric, ResourceName, Unit};
use std::time::Duration;

/// The mbw adapter.
pub(crate) struct Mbw;

/// B/s from the `AVG ... Method: MEMCPY ... Copy: 1664.564 MiB/s` line.
pub fn parse_memcpy(text: &str) -> Result<f64, String> {
    text.lines()
        .find(|l| l.starts_with("AVG") && l.contains("MEMCPY"))
        .and_then(|l| super::number_after(l, "Copy:"))
        .map(|v| v * 1048576.0)
        .ok_or_else(|| "no AVG MEMCPY line in mbw output".into())
}

/// mbw: who it is, what it checks, how its version is read (its line in [`super::TOOLS`]).
pub(crate) static ROW: Row = Row {
    name: "mbw",
    binary: "mbw",
    package: "mbw",
    covers: "memory copy bandwidth, one thread (memcpy; counts bytes copied once)",
    // mbw has no version flag.
    version: VersionFrom::Package,
    tool: &Mbw,
};

impl Tool for Mbw {
    fn invocation(&self, r: &BenchResult, _ctx: &Context) -> Option<Invocation> {
        if r.resource != ResourceName::Memory
            || r.metric != Metric::Throughput
            || r.param_str("kernel") != Some("copy")
            || r.param_str("pattern").is_some_and(|p| p != "seq")
            || r.param_u64("threads").unwrap_or(1) != 1
        {
            return None;
        }
        // mbw allocates two arrays of the given size.
        let mib = (r.param_u64("size")? / 2 / 1048576).max(1);
        Some(Invocation {
            argv: vec![
                "mbw".into(),
                "-n".into(),
                "5".into(),
                "-t0".into(),
                mib.to_string(),
            ],
            timeout: Duration::from_secs(60),
            parse: parse_memcpy,
            unit: Unit::BytePerSec,
            server: None,
        })
    }
}
