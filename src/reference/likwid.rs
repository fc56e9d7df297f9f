//! likwid-bench (Debian `likwid`): `peakflops*` kernels for CPU FLOP/s and the
//! `load`/`store`/`copy`/`stream` kernels for memory bandwidth. Its MFlops/s and
//! MByte/s lines are converted to FLOP/s and B/s (decimal, ×10⁶).
//!
//! Matching: fp64/fp32 × scalar/sse2/avx/avx2/avx512 at the case's thread count, on an
//! L1-resident 32 kB working set (likwid's peakflops kernels load one operand per
//! update, so the set must stay in L1). likwid pins its threads itself.
//!
//! Memory cases are matched kernel for kernel ([`memory_test`]): the same operation,
//! vector width and store kind (a non-temporal case runs likwid's `_mem` kernel, whose
//! stores bypass the cache too) and the same byte count (likwid counts the streamed
//! bytes, not the write-allocate reads). A case without such a twin gets a one-line
//! reason instead of a figure of unlike work, and so does a case that moves blocks
//! smaller than its whole per-thread arrays: likwid streams whole arrays.
//!
//! Runs: once per configuration (the likwid-bench command), as many times as the case
//! has samples, kept in the run's memo: rows of one configuration share those runs,
//! and the figure beside them is their mean, the runs listed in a note (issue #45 item
//! 7: one command gave 21.85, 32.71 and 32.64 GB/s beside three rows of one
//! configuration, one run each).

use super::{capture, number_after, Context, Found, Row, SharedFound, Tool, VersionFrom};
use crate::report::model::{BenchResult, Metric, Reference, ResourceName, Unit};
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

/// The likwid-bench test that does the same work as a sequential memory bandwidth case:
/// `None` when the case is not of likwid's kind at all (another resource, a random
/// pattern, an operation likwid has no kernel for), `Err` with the reason when likwid
/// has the operation but no kernel doing the same work: a `_mem` (non-temporal store)
/// kernel for `nt=true`, the plain one otherwise, at the case's vector width, and only
/// when the case counts the streamed bytes as likwid does.
pub(crate) fn memory_test(r: &BenchResult) -> Option<Result<String, String>> {
    if r.resource != ResourceName::Memory
        || r.metric != Metric::Throughput
        || r.unit != Unit::BytePerSec
        || r.param_str("pattern").is_some_and(|p| p != "seq")
    {
        return None;
    }
    let op = match r.param_str("kernel")? {
        "read" => "load",
        "write" => "store",
        "copy" => "copy",
        "triad" => "stream",
        _ => return None,
    };
    let wide = match r.param_str("isa") {
        Some("avx512") => "avx512",
        Some("avx2") => "avx",
        other => {
            return Some(Err(format!(
                "likwid-bench has no {op} kernel of the same instructions as this {} one",
                other.unwrap_or("unnamed")
            )))
        }
    };
    if r.param_str("bytes")
        .is_some_and(|b| b.contains("write-allocate"))
    {
        return Some(Err(
            "this case counts write-allocate reads (--count-write-allocate); likwid-bench counts only the streamed bytes".into(),
        ));
    }
    let nt = r.param_bool("nt").unwrap_or(false);
    Some(match (nt, op) {
        (true, "load") => Err("likwid-bench has no non-temporal load kernel".into()),
        (true, _) => Ok(format!("{op}_mem_{wide}")),
        (false, _) => Ok(format!("{op}_{wide}")),
    })
}

/// How many arrays a memory kernel streams per thread (STREAM's layout).
fn arrays(kernel: &str) -> u64 {
    match kernel {
        "read" | "write" => 1,
        "copy" | "scale" => 2,
        _ => 3,
    }
}

/// Why a memory case is not likwid's whole-array streaming: its blocks are smaller than
/// the per-thread arrays (a block-size row), or `None`.
fn partial_blocks(r: &BenchResult) -> Option<String> {
    let block = r.param_u64("block")?;
    let size = r.param_u64("size")?;
    let threads = r.param_u64("threads").unwrap_or(1).max(1);
    let n = arrays(r.param_str("kernel").unwrap_or("triad"));
    // 1 % slack: the per-thread arrays are rounded to whole elements.
    if (block * threads * n) as f64 >= 0.99 * size as f64 {
        return None;
    }
    Some(format!(
        "likwid-bench streams whole arrays; this case moves blocks of {} B out of {} B per thread and array",
        block,
        size / (threads * n)
    ))
}

/// The likwid-bench command for `r`, how to read it and its unit; `None` when likwid
/// has nothing for it.
/// How a likwid-bench output is read: its figure in the case's unit.
type Parse = fn(&str) -> Result<f64, String>;

fn command(r: &BenchResult) -> Option<(Vec<String>, Parse, Unit)> {
    let threads = r.param_u64("threads").unwrap_or(1).max(1);
    if r.resource == ResourceName::Cpu && r.metric == Metric::Ops && r.unit == Unit::FlopPerSec {
        let test = peakflops_test(r.param_str("precision")?, r.param_str("isa")?)?;
        let argv = vec![
            "likwid-bench".into(),
            "-t".into(),
            test.into(),
            "-W".into(),
            format!("N:32kB:{threads}"),
        ];
        return Some((argv, parse_flops, Unit::FlopPerSec));
    }
    if let Some(Ok(test)) = memory_test(r) {
        if partial_blocks(r).is_some() {
            return None;
        }
        let size = r.param_u64("size")?;
        let argv = vec![
            "likwid-bench".into(),
            "-t".into(),
            test,
            "-W".into(),
            format!("N:{}kB:{threads}", size.div_ceil(1000).max(1)),
        ];
        return Some((argv, parse_bytes, Unit::BytePerSec));
    }
    None
}

/// How many times likwid runs for `r`: as many as the case's samples (1..=10).
fn repeats(r: &BenchResult) -> usize {
    r.summary
        .as_ref()
        .map_or(r.samples.len(), |s| s.n)
        .clamp(1, 10)
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

/// likwid-bench: who it is, what it checks, how its version is read (its line in [`super::TOOLS`]).
pub(crate) static ROW: Row = Row {
    name: "likwid-bench",
    binary: "likwid-bench",
    package: "likwid",
    covers: "cpu fp64/fp32 peakflops (FMA kernels), memory load/store/copy/triad bandwidth",
    // `likwid-bench -h` starts with "... Version  5.2"; the Debian package is finer.
    version: VersionFrom::PackageThenCommand {
        argv: &["likwid-bench", "-h"],
        pick: |l| l.split("Version").nth(1).map(|v| v.trim().to_string()),
    },
    tool: &Likwid,
};

impl Tool for Likwid {
    fn cannot_match(&self, r: &BenchResult, _ctx: &Context) -> Option<String> {
        memory_test(r)?.err().or_else(|| partial_blocks(r))
    }
    fn shared(&self, r: &BenchResult, ctx: &Context, version: &str) -> SharedFound {
        let (argv, parse, unit) = command(r)?;
        let n = repeats(r);
        let key = format!("{} x{n}", argv.join(" "));
        let timeout = if unit == Unit::FlopPerSec {
            Duration::from_secs(60)
        } else {
            Duration::from_secs(120)
        };
        let runs: Result<Vec<f64>, String> = ctx.memo.get_or_insert_with(&key, || {
            (0..n)
                .map(|_| capture(&argv, timeout).and_then(|(out, _)| parse(&out)))
                .collect()
        });
        let runs = match runs {
            Ok(v) if !v.is_empty() => v,
            Ok(_) => return Some(Err("likwid-bench gave no figure".into())),
            Err(e) => return Some(Err(e)),
        };
        let mean = runs.iter().sum::<f64>() / runs.len() as f64;
        let notes = if runs.len() > 1 {
            let each: Vec<String> = runs
                .iter()
                .map(|v| crate::util::units::format_si(*v, unit.as_str()))
                .collect();
            vec![format!(
                "{} runs of `{}` for this configuration, as many as the case's samples: {}; their mean stands beside every row of it",
                runs.len(),
                argv.join(" "),
                each.join(", ")
            )]
        } else {
            Vec::new()
        };
        Some(Ok(Found {
            reference: Some(Reference {
                tool: ROW.name.to_string(),
                version: version.to_string(),
                command: argv.join(" "),
                value: mean,
                unit,
            }),
            notes,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mem(kernel: &str, isa: &str, nt: bool, bytes: &str) -> BenchResult {
        BenchResult::new(
            ResourceName::Memory,
            &format!("{kernel}_{isa}{}", if nt { "_nt" } else { "" }),
            Metric::Throughput,
            Unit::BytePerSec,
        )
        .param("kernel", kernel)
        .param("pattern", "seq")
        .size("size", 256 << 20)
        .param("threads", 1)
        .param("isa", isa)
        .param("nt", nt)
        .param("bytes", bytes)
    }

    /// Issue #26: copy_avx512_nt and triad_avx512_nt were compared with likwid's cached
    /// copy_avx512 and stream_avx512 ("2.32×"); each case now runs likwid's kernel of
    /// the same work, or gets a reason and no figure.
    #[test]
    fn memory_cases_run_likwids_kernel_of_the_same_work() {
        for (kernel, isa, nt, want) in [
            ("copy", "avx512", true, "copy_mem_avx512"),
            ("triad", "avx512", true, "stream_mem_avx512"),
            ("write", "avx2", true, "store_mem_avx"),
            ("copy", "avx512", false, "copy_avx512"),
            ("triad", "avx2", false, "stream_avx"),
            ("read", "avx512", false, "load_avx512"),
        ] {
            let r = mem(kernel, isa, nt, "stream");
            assert_eq!(
                memory_test(&r),
                Some(Ok(want.to_string())),
                "{}",
                r.workload
            );
            let host = crate::report::samples::host();
            let memo = crate::reference::Memo::default();
            let ctx = Context::new(&host, &memo);
            assert!(Likwid.cannot_match(&r, &ctx).is_none());
            let (argv, _, _) = command(&r).unwrap();
            assert_eq!(argv[2], want);
            assert_eq!(argv[4], "N:268436kB:1");
        }
        for (r, why) in [
            (
                mem("copy", "avx512", false, "stream+write-allocate"),
                "this case counts write-allocate reads (--count-write-allocate); likwid-bench counts only the streamed bytes",
            ),
            (
                mem("read", "avx512", true, "stream"),
                "likwid-bench has no non-temporal load kernel",
            ),
            (
                mem("copy", "generic", false, "stream"),
                "likwid-bench has no copy kernel of the same instructions as this generic one",
            ),
        ] {
            assert_eq!(memory_test(&r), Some(Err(why.to_string())), "{}", r.workload);
        }
        // Issue #45 item 7: a block-size row (blocks smaller than the whole per-thread
        // arrays) is not likwid's whole-array streaming; the whole-array row is.
        let blocks = mem("copy", "avx512", false, "stream").size("block", 4096);
        let host = crate::report::samples::host();
        let memo = crate::reference::Memo::default();
        let ctx = Context::new(&host, &memo);
        let why = Likwid.cannot_match(&blocks, &ctx).unwrap();
        assert!(why.starts_with("likwid-bench streams whole arrays; this case moves blocks of 4096 B out of 134217728 B"), "{why}");
        assert!(command(&blocks).is_none());
        let whole = mem("copy", "avx512", false, "stream").size("block", 128 << 20);
        assert!(Likwid.cannot_match(&whole, &ctx).is_none());
        assert!(command(&whole).is_some());
        // Not likwid's kind of case: nothing, not even a reason.
        let mut rand = mem("copy", "avx512", false, "stream");
        rand.params.insert("pattern".into(), "rand".into());
        assert_eq!(memory_test(&rand), None);
        assert_eq!(memory_test(&mem("scale", "avx512", false, "stream")), None);
    }
}
