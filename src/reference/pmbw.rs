//! pmbw (Parallel Memory Bandwidth benchmark, the course's memory tool; not in Debian:
//! users build it from <https://github.com/bingmann/pmbw>, and it is found on `PATH` or
//! by `$PEAKBENCH_PMBW`). pmbw scans arrays of sizes from its own list (1 KiB … 1 TiB)
//! with hand-written assembler loops, and prints one line per function, thread count
//! and array size: `RESULT\tdatetime=…\tfuncname=ScanRead256PtrUnrollLoop\tnthreads=1\t
//! areasize=1048576\t…\tbandwidth=1.27e10\t…`. Its `bandwidth` (bytes read or written
//! per second, all threads together) goes beside peakbench's memory row of the same
//! operation, order, array size and threads.
//!
//! Matching: a `memory` `read` or `write` row in sequential order, whole arrays (the
//! default block), no non-temporal stores and no write-allocate bytes (pmbw's writes
//! are ordinary stores and it counts the bytes stored), no NUMA placement (pmbw places
//! neither threads nor memory), whose working set is one of pmbw's array sizes. pmbw
//! splits its array (`areasize`) among the threads as `--size` does; with `--weak`
//! each thread's `--size` is its own, so the array is `--size` × threads. The function
//! is the scan of the row's vector width: `ScanRead128PtrUnrollLoop` (SSE) beside
//! `generic` (what the compiler emits on x86-64), the 256-bit AVX one beside `avx2`
//! and, as pmbw has no 512-bit scan, beside `avx512` too (a note says so); on other
//! CPUs its 64-bit scan. pmbw runs one function, thread count and size per run
//! (`-f FUNC -p T -P T -s AREA -S AREA`), with `-M` just large enough for its spaced
//! per-thread areas (without it pmbw allocates and fills half the RAM), in a directory
//! of its own (it writes `stats.txt` there), removed afterwards; one run per command,
//! kept in the run's memo.

use super::{capture_in, Context, Found, Row, SharedFound, Tool, VersionFrom};
use crate::report::model::{BenchResult, Metric, Reference, ResourceName, Unit};
use crate::util::units::format_size;
use std::time::Duration;

/// The pmbw adapter.
pub(crate) struct Pmbw;

/// The variable that may name the pmbw binary.
pub(crate) const ENV: &str = "PEAKBENCH_PMBW";

/// pmbw's array sizes (its `areasize_list`, pmbw.cc), in bytes: 1 KiB to 1 TiB.
pub(crate) const AREA_SIZES: &[u64] = &{
    const K: u64 = 1024;
    const M: u64 = 1024 * K;
    const G: u64 = 1024 * M;
    [
        K,
        2 * K,
        3 * K,
        4 * K,
        6 * K,
        8 * K,
        12 * K,
        16 * K,
        20 * K,
        24 * K,
        28 * K,
        32 * K,
        40 * K,
        48 * K,
        64 * K,
        96 * K,
        128 * K,
        192 * K,
        256 * K,
        384 * K,
        512 * K,
        768 * K,
        M,
        M + 256 * K,
        M + 512 * K,
        M + 768 * K,
        2 * M,
        2 * M + 256 * K,
        2 * M + 512 * K,
        2 * M + 768 * K,
        3 * M,
        4 * M,
        5 * M,
        6 * M,
        7 * M,
        8 * M,
        9 * M,
        10 * M,
        12 * M,
        14 * M,
        16 * M,
        20 * M,
        24 * M,
        28 * M,
        32 * M,
        40 * M,
        48 * M,
        56 * M,
        64 * M,
        128 * M,
        256 * M,
        512 * M,
        G,
        2 * G,
        4 * G,
        8 * G,
        16 * G,
        32 * G,
        64 * G,
        128 * G,
        256 * G,
        512 * G,
        1024 * G,
    ]
};

/// pmbw spaces each thread's area at least this far apart (`4 MiB + 16 KiB`, against
/// cache thrashing between neighbours), so its memory must hold threads × this.
const THREAD_SPACING: u64 = (4 << 20) + (16 << 10);

/// One `RESULT` line of pmbw's output.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Line {
    /// The function (`ScanRead256PtrUnrollLoop`).
    pub(crate) funcname: String,
    /// Threads.
    pub(crate) nthreads: u64,
    /// The array size, all threads together, bytes.
    pub(crate) areasize: u64,
    /// Bytes read or written per second, all threads together.
    pub(crate) bandwidth: f64,
    /// pmbw's version, when the line says.
    pub(crate) version: Option<String>,
}

/// Every `RESULT` line of pmbw's output (its progress goes to stderr). A `RESULT` line
/// without a function, threads, size or a finite positive bandwidth is an error.
pub(crate) fn parse_results(text: &str) -> Result<Vec<Line>, String> {
    text.lines()
        .filter(|l| l.starts_with("RESULT\t"))
        .map(|l| {
            let field = |k: &str| {
                l.split('\t')
                    .find_map(|f| f.strip_prefix(k)?.strip_prefix('='))
                    .map(str::trim)
            };
            let num = |k: &str| -> Result<f64, String> {
                let v = field(k).ok_or_else(|| format!("pmbw RESULT line without {k}: {l}"))?;
                v.parse::<f64>()
                    .ok()
                    .filter(|x| x.is_finite() && *x >= 0.0)
                    .ok_or_else(|| format!("pmbw's {k}={v} is not a number"))
            };
            let bandwidth = num("bandwidth")?;
            if bandwidth <= 0.0 {
                return Err(format!("pmbw reports no bandwidth: {l}"));
            }
            Ok(Line {
                funcname: field("funcname")
                    .ok_or_else(|| format!("pmbw RESULT line without funcname: {l}"))?
                    .to_string(),
                nthreads: num("nthreads")? as u64,
                areasize: num("areasize")? as u64,
                bandwidth,
                version: field("version").map(str::to_string),
            })
        })
        .collect()
}

/// pmbw: who it is, what it checks, how its version is read (its line in [`super::TOOLS`]).
pub(crate) static ROW: Row = Row {
    name: "pmbw",
    binary: "pmbw",
    // Not packaged by Debian: built from source (see `install_hint`).
    package: "",
    covers: "memory sequential read/write bandwidth at pmbw's array sizes (1 KiB … 1 TiB), threads; built from source",
    // pmbw prints its version only on its RESULT lines, which the adapter reads.
    version: VersionFrom::Package,
    tool: &Pmbw,
};

/// How to run pmbw for one memory row.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Match {
    /// The pmbw function.
    pub(crate) func: &'static str,
    /// Threads.
    pub(crate) threads: u64,
    /// pmbw's array size, all threads together.
    pub(crate) area: u64,
    /// A note on the function, when it is not the row's own width.
    pub(crate) note: Option<String>,
}

impl Match {
    /// The command (`argv[0]` is the program).
    pub(crate) fn argv(&self, program: &str) -> Vec<String> {
        // `-M`: pmbw allocates round_up_pow2(M) / 2 bytes and fills them; its threads'
        // areas are spaced THREAD_SPACING apart at least.
        let need = (self.area / self.threads)
            .max(THREAD_SPACING)
            .saturating_mul(self.threads);
        let limit = need
            .checked_next_power_of_two()
            .unwrap_or(need)
            .saturating_mul(2);
        let (t, a) = (self.threads.to_string(), self.area.to_string());
        [
            program, "-f", self.func, "-p", &t, "-P", &t, "-s", &a, "-S", &a, "-M",
        ]
        .iter()
        .map(|s| s.to_string())
        .chain([limit.to_string()])
        .collect()
    }
}

/// pmbw's scan function for operation `op` (`read`, `write`) beside a row of vector
/// width `isa`, and a note when it is not that width.
fn function(op: &str, isa: &str) -> Option<(&'static str, Option<String>)> {
    let read = match op {
        "read" => true,
        "write" => false,
        _ => return None,
    };
    let pick = |r: &'static str, w: &'static str| if read { r } else { w };
    if !cfg!(target_arch = "x86_64") {
        return Some((
            pick("ScanRead64PtrUnrollLoop", "ScanWrite64PtrUnrollLoop"),
            Some("pmbw scans with 64-bit loads and stores on this CPU".into()),
        ));
    }
    Some(match isa {
        "avx2" => (
            pick("ScanRead256PtrUnrollLoop", "ScanWrite256PtrUnrollLoop"),
            None,
        ),
        "avx512" => (
            pick("ScanRead256PtrUnrollLoop", "ScanWrite256PtrUnrollLoop"),
            Some("pmbw has no 512-bit scan: its widest, 256-bit AVX, ran".into()),
        ),
        _ => (
            pick("ScanRead128PtrUnrollLoop", "ScanWrite128PtrUnrollLoop"),
            None,
        ),
    })
}

/// Whether pmbw runs the same work as memory row `r`: `None` when the row is not a
/// read or write scan at all, `Some(Err)` with the one-line reason when it is but runs
/// differently, else how to run pmbw for it.
pub(crate) fn matching(r: &BenchResult) -> Option<Result<Match, String>> {
    if r.resource != ResourceName::Memory
        || r.metric != Metric::Throughput
        || r.unit != Unit::BytePerSec
    {
        return None;
    }
    let op = r.param_str("kernel")?;
    let (func, note) = function(op, r.param_str("isa").unwrap_or("generic"))?;
    // A random order is no scan: the row's one line comes from `reference::uncovered`.
    if r.param_str("pattern").is_some_and(|p| p != "seq") {
        return None;
    }
    let fail = |why: String| Some(Err(why));
    if r.param_bool("nt") == Some(true) {
        return fail(
            "pmbw's ScanWrite stores through the caches; this case's stores are non-temporal"
                .into(),
        );
    }
    if r.param_str("bytes")
        .is_some_and(|b| b.contains("write-allocate"))
    {
        return fail("this case counts write-allocate reads (--count-write-allocate); pmbw counts only the bytes it stores".into());
    }
    if let Some((key, v)) = ["cpu_node", "mem_node"]
        .iter()
        .find_map(|k| r.params.get(*k).map(|v| (*k, v)))
    {
        return fail(format!(
            "pmbw places neither threads nor memory on NUMA nodes; this case ran with {key} {v}"
        ));
    }
    let threads = r.param_u64("threads")?.max(1);
    let size = r.param_u64("size")?;
    let block = r.param_u64("block")?;
    let whole = |per_thread: u64| per_thread / 8 * 8;
    // The default block is each thread's whole array: `--size` shared by the threads
    // (pmbw's areasize), or with `--weak` each thread's own (areasize = size × threads).
    let area = if block == whole(size / threads) {
        size
    } else if block == whole(size) {
        size.saturating_mul(threads)
    } else {
        return fail(format!(
            "pmbw scans each thread's whole array; this case moves blocks of {}",
            format_size(block)
        ));
    };
    if !AREA_SIZES.contains(&area) {
        let below = AREA_SIZES.iter().rev().find(|&&s| s < area);
        let above = AREA_SIZES.iter().find(|&&s| s > area);
        // In bytes too: 1 MiB + 4 KiB would read as "1.00 MiB", like its neighbour.
        let both = |s: u64| format!("{s} B ({})", format_size(s));
        let near: Vec<String> = below.into_iter().chain(above).map(|&s| both(s)).collect();
        return fail(format!(
            "pmbw measures only the array sizes of its own list; this case's array is {} (nearest: {})",
            both(area),
            near.join(", ")
        ));
    }
    Some(Ok(Match {
        func,
        threads,
        area,
        note,
    }))
}

/// Runs `argv` in a directory of its own (pmbw writes `stats.txt` into its working
/// directory), removed afterwards whatever happened, and returns its stdout.
fn run_in_own_dir(argv: &[String]) -> Result<String, String> {
    use std::sync::atomic::{AtomicU64, Ordering};
    static RUNS: AtomicU64 = AtomicU64::new(0);
    let dir = std::env::temp_dir().join(format!(
        "peakbench-pmbw-{}-{}",
        std::process::id(),
        RUNS.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    // pmbw's `-M` fill and each size's ≥ 1 s measurement (repeated when shorter).
    let res = capture_in(argv, Some(&dir), &[], Duration::from_secs(120));
    let _ = std::fs::remove_dir_all(&dir);
    res.map(|(out, _)| out)
}

/// The figure and notes for `r` from pmbw's output `text` of `m`'s run.
pub(crate) fn found(
    m: &Match,
    text: &str,
    argv: &[String],
    version: &str,
) -> Result<Found, String> {
    let lines = parse_results(text)?;
    let line = lines
        .iter()
        .find(|l| l.funcname == m.func && l.nthreads == m.threads && l.areasize == m.area)
        .ok_or_else(|| {
            format!(
                "pmbw printed no RESULT for {} with {} threads at {} B (CPU without the function's instructions?)",
                m.func, m.threads, m.area
            )
        })?;
    let mut notes = vec![format!(
        "pmbw {}: {} thread{} scanning {} in all, for at least 1 s",
        m.func,
        m.threads,
        if m.threads == 1 { "" } else { "s" },
        format_size(m.area)
    )];
    notes.extend(m.note.clone());
    Ok(Found {
        reference: Some(Reference {
            tool: ROW.name.into(),
            version: line.version.clone().unwrap_or_else(|| version.to_string()),
            command: argv.join(" "),
            value: line.bandwidth,
            unit: Unit::BytePerSec,
        }),
        notes,
    })
}

impl Tool for Pmbw {
    fn cannot_match(&self, r: &BenchResult, _ctx: &Context) -> Option<String> {
        matching(r)?.err()
    }

    fn shared(&self, r: &BenchResult, ctx: &Context, version: &str) -> SharedFound {
        let m = matching(r)?.ok()?;
        let argv = m.argv(&ROW.program());
        let key = format!("pmbw {}", argv.join(" "));
        let out: Result<String, String> =
            ctx.memo.get_or_insert_with(&key, || run_in_own_dir(&argv));
        Some(out.and_then(|text| found(&m, &text, &argv, version)))
    }

    fn env_path(&self) -> Option<&'static str> {
        Some(ENV)
    }

    fn install_hint(&self) -> Option<&'static str> {
        Some("build it from github.com/bingmann/pmbw; put it on PATH or set $PEAKBENCH_PMBW")
    }
}

#[cfg(test)]
#[path = "pmbw_tests.rs"]
mod tests;
