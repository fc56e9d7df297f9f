//! likwid-bench (Debian `likwid`): `peakflops*` kernels for CPU FLOP/s and the
//! `load`/`store`/`copy`/`stream` kernels for memory bandwidth. Its MFlops/s and
//! MByte/s lines are converted to FLOP/s and B/s (decimal, ×10⁶).
//!
//! Matching: fp64/fp32 × scalar/sse2/avx/avx2/avx512 at the case's thread count, on an
//! L1-resident 32 kB working set (likwid's peakflops kernels load one operand per
//! update, so the set must stay in L1). likwid pins its threads itself.

use super::{number_after, version_line, Context, Invocation, Tool};
use crate::report::model::{BenchResult, Metric, Resource, Unit};
use std::path::Path;
use std::time::Duration;

/// The likwid-bench adapter.
pub(crate) struct Likwid;

/// likwid-bench test for a peakbench CPU case: `(precision, isa)` → test name.
pub fn peakflops_test(precision: &str, isa: &str) -> Option<&'static str> {
    Some(match (precision, isa) {
        ("fp64", "avx512") => "peakflops_avx512_fma",
        ("fp32", "avx512") => "peakflops_sp_avx512_fma",
        ("fp64", "avx2") => "peakflops_avx_fma",
        ("fp32", "avx2") => "peakflops_sp_avx_fma",
        ("fp64", "avx") => "peakflops_avx",
        ("fp32", "avx") => "peakflops_sp_avx",
        ("fp64", "sse2") => "peakflops_sse",
        ("fp32", "sse2") => "peakflops_sp_sse",
        ("fp64", "scalar") => "peakflops",
        ("fp32", "scalar") => "peakflops_sp",
        _ => return None,
    })
}

/// FLOP/s from likwid-bench's `MFlops/s:` line.
pub fn parse_flops(text: &str) -> Result<f64, String> {
    number_after(text, "MFlops/s")
        .map(|v| v * 1e6)
        .ok_or_else(|| "no MFlops/s line in likwid-bench output".into())
}

/// B/s from likwid-bench's `MByte/s:` line.
pub fn parse_bytes(text: &str) -> Result<f64, String> {
    number_after(text, "MByte/s")
        .map(|v| v * 1e6)
        .ok_or_else(|| "no MByte/s line in likwid-bench output".into())
}

impl Tool for Likwid {
    fn name(&self) -> &'static str {
        "likwid-bench"
    }
    fn binary(&self) -> &'static str {
        "likwid-bench"
    }
    fn package(&self) -> &'static str {
        "likwid"
    }
    fn covers(&self) -> &'static str {
        "cpu fp64/fp32 peakflops (FMA kernels), memory load/store/copy/triad bandwidth"
    }
    fn version(&self, _path: &Path) -> Option<String> {
        // `likwid-bench -h` starts with "... Version  5.2"; the Debian package is finer.
        super::dpkg_version("likwid").or_else(|| {
            version_line(&["likwid-bench", "-h"], |l| {
                l.split("Version").nth(1).map(|v| v.trim().to_string())
            })
        })
    }
    fn invocation(&self, r: &BenchResult, ctx: &Context) -> Option<Invocation> {
        let threads = r.param_u64("threads").unwrap_or(1).max(1);
        if r.resource == Resource::Cpu && r.metric == Metric::Ops && r.unit == Unit::FlopPerSec {
            let test = peakflops_test(r.param_str("precision")?, r.param_str("isa")?)?;
            return Some(Invocation {
                argv: vec![
                    "likwid-bench".into(),
                    "-t".into(),
                    test.into(),
                    "-W".into(),
                    format!("N:32kB:{threads}"),
                ],
                timeout: Duration::from_secs(60),
                parse: parse_flops,
                unit: Unit::FlopPerSec,
                server: None,
            });
        }
        if r.resource == Resource::Memory
            && r.metric == Metric::Throughput
            && r.unit == Unit::BytePerSec
        {
            if r.param_str("pattern").is_some_and(|p| p != "seq") {
                return None;
            }
            let wide = if ctx.host.cpu.has("avx512f") {
                "avx512"
            } else {
                "avx"
            };
            let kernel = match r.param_str("kernel")? {
                "read" => "load",
                "write" => "store",
                "copy" => "copy",
                "triad" => "stream",
                _ => return None,
            };
            let size = r.param_u64("size")?;
            return Some(Invocation {
                argv: vec![
                    "likwid-bench".into(),
                    "-t".into(),
                    format!("{kernel}_{wide}"),
                    "-W".into(),
                    format!("N:{}kB:{threads}", size.div_ceil(1000).max(1)),
                ],
                timeout: Duration::from_secs(120),
                parse: parse_bytes,
                unit: Unit::BytePerSec,
                server: None,
            });
        }
        None
    }
}
