//! sysbench (Debian `sysbench`): `sysbench memory` for memory read/write bandwidth
//! (its MiB/sec converted to B/s, ×2²⁰). `sysbench cpu` counts prime-number events,
//! which matches no peakbench case; its parser is here for the version table and tests.

use super::{Context, Invocation, Row, Tool, VersionFrom};
use crate::report::model::{BenchResult, Metric, ResourceName, Unit};
use std::time::Duration;

/// The sysbench adapter.
pub(crate) struct Sysbench;

/// B/s from `2048.00 MiB transferred (5423.13 MiB/sec)`.
pub fn parse_memory(text: &str) -> Result<f64, String> {
    text.lines()
        .find(|l| l.contains("MiB/sec"))
        .and_then(|l| {
            let inner = l.split('(').nth(1)?;
            inner.split_whitespace().next()?.parse::<f64>().ok()
        })
        .filter(|v| v.is_finite())
        .map(|v| v * 1048576.0)
        .ok_or_else(|| "no 'MiB/sec' figure in sysbench output".into())
}

/// Events per second from `sysbench cpu`.
pub fn parse_cpu(text: &str) -> Result<f64, String> {
    super::number_after(text, "events per second")
        .ok_or_else(|| "no 'events per second' in sysbench output".into())
}

/// sysbench: who it is, what it checks, how its version is read (its line in [`super::TOOLS`]).
pub(crate) static ROW: Row = Row {
    name: "sysbench",
    binary: "sysbench",
    package: "sysbench",
    covers:
        "memory read/write bandwidth (seq/rand, threads, block); cpu events/s (no peakbench match)",
    version: VersionFrom::Command {
        argv: &["sysbench", "--version"],
        pick: |l| {
            l.strip_prefix("sysbench ")
                .map(|v| v.split_whitespace().next().unwrap_or(v).to_string())
        },
    },
    tool: &Sysbench,
};

impl Tool for Sysbench {
    fn invocation(&self, r: &BenchResult, _ctx: &Context) -> Option<Invocation> {
        if r.resource != ResourceName::Memory
            || r.metric != Metric::Throughput
            || r.unit != Unit::BytePerSec
        {
            return None;
        }
        let oper = match r.param_str("kernel")? {
            k @ ("read" | "write") => k,
            _ => return None,
        };
        let mode = match r.param_str("pattern").unwrap_or("seq") {
            "seq" => "seq",
            "rand" => "rnd",
            _ => return None,
        };
        let threads = r.param_u64("threads").unwrap_or(1).max(1);
        let block = r.param_u64("block").unwrap_or(1 << 20).max(1);
        Some(Invocation {
            argv: vec![
                "sysbench".into(),
                "memory".into(),
                format!("--memory-block-size={}K", block.div_ceil(1024)),
                "--memory-total-size=1000G".into(),
                format!("--memory-oper={oper}"),
                format!("--memory-access-mode={mode}"),
                format!("--threads={threads}"),
                "--time=3".into(),
                "run".into(),
            ],
            timeout: Duration::from_secs(30),
            parse: parse_memory,
            unit: Unit::BytePerSec,
            server: None,
        })
    }
}
