//! fio (Debian `fio`): disk bandwidth, IOPS and completion latency. The JSON output
//! (`--output-format=json`) is parsed; fio may print notes before it, so parsing starts
//! at the first line that opens the JSON object. Read and write sides are summed (a
//! mixed workload), bandwidth in B/s (`bw_bytes`), latency as the mean completion
//! latency (`clat_ns.mean`) in seconds.
//!
//! Matching: a `disk` case with `pattern`, `block`, `depth` and `jobs` runs fio in the
//! run's `--dir`, with the engine the case actually used (its `engine` param: `uring`
//! → io_uring, `sync` → psync, `libaio` and `mmap` as they are; under `--engine auto` that is the engine auto chose),
//! O_DIRECT unless the case was buffered (its `direct` param), for 3 s after a 1 s
//! ramp, on files of the case's `--file-size` (one per job, as peakbench's) that fio
//! removes afterwards. fio runs once per configuration: the throughput, IOPS and
//! latency rows of a configuration come from one peakbench I/O run, and their fio
//! figures from one fio run, kept in the run's memo. Durability goes as fio's own
//! options: `--fsync=N`, `--fdatasync=N`, `--sync=1` (the case's `fsync`, `fdatasync`
//! and `sync` params), and so do `--rate_iops=N` and `--random_distribution=zipf:θ`.
//! Writing patterns add `--overwrite=1`: fio then writes over a laid-out file, as
//! peakbench does (its write jobs otherwise write into a fresh fallocated file). A
//! `--ss` row runs fio with `--ss`, `--ss_dur`, `--ss_ramp` and `--runtime` of its
//! `--sustain`.

use super::{capture, Context, Found, Row, SharedFound, Tool, VersionFrom};
use crate::report::model::{BenchResult, Metric, Reference, ResourceName, Unit};
use std::time::Duration;

/// The fio adapter.
pub(crate) struct Fio;

/// The per-direction fields fio reports that peakbench uses.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub(crate) struct FioSide {
    /// Bytes per second.
    pub(crate) bw_bytes: f64,
    /// I/O operations per second.
    pub(crate) iops: f64,
    /// Mean completion latency, nanoseconds.
    pub(crate) clat_mean_ns: f64,
    /// Completed I/Os (weights the latency mean of a mixed workload).
    pub(crate) total_ios: f64,
}

/// Read and write sides of the first job (the group with `--group_reporting`).
pub(crate) fn parse_json(text: &str) -> Result<(FioSide, FioSide), String> {
    let start = text
        .find("\n{")
        .map(|i| i + 1)
        .or_else(|| text.starts_with('{').then_some(0))
        .ok_or("no JSON object in fio output")?;
    let v: serde_json::Value =
        serde_json::from_str(&text[start..]).map_err(|e| format!("fio JSON: {e}"))?;
    let job = v
        .get("jobs")
        .and_then(|j| j.get(0))
        .ok_or("fio JSON has no jobs")?;
    let side = |name: &str| -> FioSide {
        let s = &job[name];
        let f = |v: &serde_json::Value| v.as_f64().filter(|x| x.is_finite()).unwrap_or(0.0);
        FioSide {
            bw_bytes: f(&s["bw_bytes"]),
            iops: f(&s["iops"]),
            clat_mean_ns: f(&s["clat_ns"]["mean"]),
            total_ios: f(&s["total_ios"]),
        }
    };
    Ok((side("read"), side("write")))
}

/// B/s, read + write.
pub fn parse_bw(text: &str) -> Result<f64, String> {
    let (r, w) = parse_json(text)?;
    Ok(r.bw_bytes + w.bw_bytes)
}

/// IO/s, read + write.
pub fn parse_iops(text: &str) -> Result<f64, String> {
    let (r, w) = parse_json(text)?;
    Ok(r.iops + w.iops)
}

/// Mean completion latency in seconds, weighted by each side's completed I/Os.
pub fn parse_clat(text: &str) -> Result<f64, String> {
    let (r, w) = parse_json(text)?;
    let n = r.total_ios + w.total_ios;
    if n <= 0.0 {
        return Err("fio completed no I/O".into());
    }
    Ok((r.clat_mean_ns * r.total_ios + w.clat_mean_ns * w.total_ios) / n / 1e9)
}

/// fio's `--rw` for a peakbench `--pattern`.
pub fn rw(pattern: &str) -> Option<String> {
    Some(match pattern {
        "seq-read" => "read".into(),
        "seq-write" => "write".into(),
        "rand-read" => "randread".into(),
        "rand-write" => "randwrite".into(),
        p if p.starts_with("rw-mix") => {
            let pct = p.strip_prefix("rw-mix:").unwrap_or("70");
            let pct: u32 = pct.parse().ok().filter(|v| *v <= 100)?;
            format!("randrw --rwmixread={pct}")
        }
        _ => return None,
    })
}

/// fio's `--ioengine` for the engine a peakbench case ran with (its `engine` param).
pub(crate) fn ioengine(engine: &str) -> Option<&'static str> {
    match engine {
        "sync" => Some("psync"),
        "uring" => Some("io_uring"),
        "libaio" => Some("libaio"),
        "mmap" => Some("mmap"),
        _ => None,
    }
}

/// fio: who it is, what it checks, how its version is read (its line in [`super::TOOLS`]).
pub(crate) static ROW: Row = Row {
    name: "fio",
    binary: "fio",
    package: "fio",
    covers: "disk bandwidth, IOPS and latency (pattern, block, depth, jobs; O_DIRECT)",
    version: VersionFrom::Command {
        argv: &["fio", "--version"],
        pick: |l| l.trim().strip_prefix("fio-").map(str::to_string),
    },
    tool: &Fio,
};

impl Tool for Fio {
    fn shared(&self, r: &BenchResult, ctx: &Context, version: &str) -> SharedFound {
        let (argv, timeout) = config_argv(r, ctx)?;
        // One fio run per configuration, kept in the run's memo under its command:
        // the throughput, IOPS and latency rows of one configuration (one I/O run of
        // peakbench) share its figures (issue #32 item 2).
        let key = format!("fio {}", argv.join(" "));
        let run: Result<(FioSide, FioSide), String> = ctx.memo.get_or_insert_with(&key, || {
            let (out, _) = capture(&argv, timeout)?;
            parse_json(&out)
        });
        let (rd, wr) = match run {
            Ok(x) => x,
            Err(e) => return Some(Err(e)),
        };
        let (value, unit) = match r.metric {
            Metric::Throughput => (rd.bw_bytes + wr.bw_bytes, Unit::BytePerSec),
            Metric::Iops => (rd.iops + wr.iops, Unit::IoPerSec),
            Metric::Latency => {
                let n = rd.total_ios + wr.total_ios;
                if n <= 0.0 {
                    return Some(Err("fio completed no I/O".into()));
                }
                (
                    (rd.clat_mean_ns * rd.total_ios + wr.clat_mean_ns * wr.total_ios) / n / 1e9,
                    Unit::Second,
                )
            }
            // fio has no figure for any other metric (operations, a resource's own).
            _ => return None,
        };
        Some(Ok(Found {
            reference: Some(Reference {
                tool: ROW.name.to_string(),
                version: version.to_string(),
                command: argv.join(" "),
                value,
                unit,
            }),
            notes: Vec::new(),
        }))
    }
}

/// The fio command matching a disk configuration (pattern, block, depth, jobs, engine,
/// O_DIRECT, file size) and its time limit; `None` for a row fio does not run.
pub(crate) fn config_argv(r: &BenchResult, ctx: &Context) -> Option<(Vec<String>, Duration)> {
    if r.resource != ResourceName::Disk || r.metric == Metric::Ops {
        return None;
    }
    let dir = ctx.disk_dir?.to_str()?;
    let rw = rw(r.param_str("pattern")?)?;
    let engine = ioengine(r.param_str("engine")?)?;
    let direct = r.param_bool("direct").unwrap_or(true);
    let jobs = r.param_u64("jobs").unwrap_or(1).max(1);
    // The case's own file size (per job, as peakbench's files); 256 MiB for results
    // written before the size was recorded.
    let size = r.param_u64("file_size").unwrap_or(256 << 20);
    let block = r.param_u64("block").unwrap_or(4096).max(1);
    let mut argv = vec![
        "fio".to_string(),
        "--name=peakbench-ref".into(),
        format!("--directory={dir}"),
    ];
    if r.param_bool("shared_file") == Some(true) {
        // `--shared-file`: one file, each job an equal contiguous part of it, as
        // peakbench splits it (whole blocks).
        let part = size / jobs - (size / jobs) % block;
        argv.extend([
            "--filename=peakbench-ref.shared".to_string(),
            format!("--size={part}"),
            format!("--offset_increment={part}"),
        ]);
    } else {
        argv.push(format!("--size={size}"));
    }
    let mut parts = rw.split(' ');
    argv.push(format!("--rw={}", parts.next()?));
    argv.extend(parts.map(str::to_string));
    argv.extend([
        format!("--bs={block}"),
        format!("--iodepth={}", r.param_u64("depth").unwrap_or(1)),
        format!("--numjobs={jobs}"),
        format!("--ioengine={engine}"),
        format!("--direct={}", u8::from(direct)),
    ]);
    // Durability (`--fsync N`, `--fdatasync N`, `--sync`): fio's own options.
    for key in ["fsync", "fdatasync", "sync", "rate_iops"] {
        if let Some(n) = r.param_u64(key) {
            argv.push(format!("--{key}={n}"));
        }
    }
    if let Some(d) = r.param_str("distribution") {
        argv.push(format!("--random_distribution={d}"));
    }
    // peakbench writes over files it laid out (and filled) before the run; fio's write
    // jobs do that only with overwrite=1 (else they write into a fresh file's
    // fallocated, unwritten extents, and each first write converts one: a journal
    // commit per flush that peakbench's row never paid; see BENCHMARKS, fsync=1).
    if rw.starts_with("write") || rw.starts_with("randwrite") {
        argv.push("--overwrite=1".into());
    }
    // `--ss` (with --sustain): fio's steady-state stop, up to the same longest time.
    let mut runtime = 3;
    if let Some(ss) = r.param_str("ss") {
        argv.extend([
            format!("--ss={ss}"),
            format!("--ss_dur={}", r.param_u64("ss_dur").unwrap_or(10)),
            format!("--ss_ramp={}", r.param_u64("ss_ramp").unwrap_or(0)),
        ]);
        runtime = r.param_u64("sustain").unwrap_or(runtime);
    }
    argv.extend([
        "--ramp_time=1".into(),
        format!("--runtime={runtime}"),
        "--time_based".into(),
        "--group_reporting".into(),
        "--unlink=1".into(),
        "--output-format=json".into(),
    ]);
    let laid_out = if r.param_bool("shared_file") == Some(true) {
        size
    } else {
        size.saturating_mul(jobs)
    };
    Some((
        argv,
        timeout_for(laid_out) + Duration::from_secs(runtime.saturating_sub(3)),
    ))
}

/// fio's time limit: 60 s for the run itself plus laying out `bytes` of files at a
/// pessimistic 25 MB/s (a loaded virtual disk), so a large `--file-size` is not cut
/// off by the limit of a 256 MiB file.
fn timeout_for(bytes: u64) -> Duration {
    Duration::from_secs(60 + bytes / 25_000_000)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reference::Memo;
    use std::path::Path;

    fn case(engine: &str, direct: bool) -> BenchResult {
        crate::report::samples::disk("rand-read", Metric::Iops, Unit::IoPerSec, 4096, 8, 2)
            .param("engine", engine)
            .param("direct", direct)
    }

    fn argv(r: &BenchResult, dir: Option<&Path>) -> Option<Vec<String>> {
        let host = crate::report::samples::host();
        let memo = Memo::default();
        let ctx = Context {
            disk_dir: dir,
            ..Context::new(&host, &memo)
        };
        config_argv(r, &ctx).map(|x| x.0)
    }

    #[test]
    fn fio_runs_with_the_engine_the_case_used() {
        let dir = Path::new("/tmp");
        // `--engine auto` that fell back to sync records `engine: sync`: fio gets psync.
        let a = argv(&case("sync", true), Some(dir)).unwrap();
        assert!(a.contains(&"--ioengine=psync".to_string()), "{a:?}");
        assert!(a.contains(&"--direct=1".to_string()), "{a:?}");
        let a = argv(&case("uring", false), Some(dir)).unwrap();
        assert!(a.contains(&"--ioengine=io_uring".to_string()), "{a:?}");
        assert!(a.contains(&"--direct=0".to_string()), "{a:?}");
        for want in ["--rw=randread", "--bs=4096", "--iodepth=8", "--numjobs=2"] {
            assert!(a.contains(&want.to_string()), "{want}: {a:?}");
        }
        assert!(a.contains(&"--directory=/tmp".to_string()), "{a:?}");
        for k in ["--fsync", "--fdatasync", "--sync"] {
            assert!(!a.iter().any(|x| x.starts_with(k)), "{k} in {a:?}");
        }
        // Durability reaches fio as its own options.
        let a = argv(&case("sync", true).param("fsync", 1u64), Some(dir)).unwrap();
        assert!(a.contains(&"--fsync=1".to_string()), "{a:?}");
        let a = argv(
            &case("sync", true)
                .param("fdatasync", 8u64)
                .param("sync", 1u64),
            Some(dir),
        )
        .unwrap();
        assert!(a.contains(&"--fdatasync=8".to_string()), "{a:?}");
        assert!(a.contains(&"--sync=1".to_string()), "{a:?}");
        let a = argv(&case("uring", true).param("rate_iops", 500u64), Some(dir)).unwrap();
        assert!(a.contains(&"--rate_iops=500".to_string()), "{a:?}");
        let a = argv(
            &case("uring", true).param("distribution", "zipf:1.2"),
            Some(dir),
        )
        .unwrap();
        assert!(
            a.contains(&"--random_distribution=zipf:1.2".to_string()),
            "{a:?}"
        );
        // mmap runs buffered (peakbench refuses O_DIRECT with it): fio's mmap, direct=0.
        let a = argv(&case("mmap", false), Some(dir)).unwrap();
        assert!(a.contains(&"--ioengine=mmap".to_string()), "{a:?}");
        assert!(a.contains(&"--direct=0".to_string()), "{a:?}");
        // No --dir given, or an engine fio does not know: not run.
        assert!(argv(&case("uring", true), None).is_none());
        assert!(argv(&case("spdk", true), Some(dir)).is_none());
    }

    /// Writing patterns get overwrite=1 (fio writes over a laid-out file, as peakbench
    /// does); `--ss` reaches fio as its ss, ss_dur, ss_ramp and the --sustain runtime.
    #[test]
    fn fio_overwrites_and_stops_when_steady() {
        let dir = Path::new("/tmp");
        let write = |p: &str| {
            BenchResult::new(ResourceName::Disk, p, Metric::Iops, Unit::IoPerSec)
                .param("pattern", p)
                .size("block", 4096)
                .param("depth", 1u32)
                .param("jobs", 1u32)
                .param("engine", "sync")
                .param("direct", true)
        };
        for p in ["seq-write", "rand-write"] {
            let a = argv(&write(p), Some(dir)).unwrap();
            assert!(a.contains(&"--overwrite=1".to_string()), "{a:?}");
            assert!(a.contains(&"--runtime=3".to_string()), "{a:?}");
        }
        for p in ["seq-read", "rand-read", "rw-mix:70"] {
            let a = argv(&write(p), Some(dir)).unwrap();
            assert!(!a.iter().any(|x| x.starts_with("--overwrite")), "{a:?}");
        }
        let r = write("rand-write")
            .param("ss", "iops_slope:0.1%")
            .param("ss_dur", 30u64)
            .param("ss_ramp", 5u64)
            .param("sustain", 600u64);
        let host = crate::report::samples::host();
        let memo = Memo::default();
        let ctx = Context {
            disk_dir: Some(dir),
            ..Context::new(&host, &memo)
        };
        let (a, timeout) = config_argv(&r, &ctx).unwrap();
        for want in [
            "--ss=iops_slope:0.1%",
            "--ss_dur=30",
            "--ss_ramp=5",
            "--runtime=600",
            "--time_based",
        ] {
            assert!(a.contains(&want.to_string()), "{want}: {a:?}");
        }
        assert!(timeout >= Duration::from_secs(600), "{timeout:?}");
    }

    #[test]
    fn fio_gets_the_cases_file_size_and_time_for_it() {
        let dir = Path::new("/tmp");
        let a = argv(&case("sync", true).size("file_size", 1 << 30), Some(dir)).unwrap();
        assert!(a.contains(&"--size=1073741824".to_string()), "{a:?}");
        assert!(!a.iter().any(|x| x == "--size=256M"), "{a:?}");
        assert!(timeout_for(8 << 30) > timeout_for(256 << 20));
        assert_eq!(timeout_for(0), Duration::from_secs(60));
    }

    /// Issue #32 item 10: a shared-file case gets fio's shared filename, each job the
    /// same contiguous part peakbench gave it.
    #[test]
    fn a_shared_file_case_gets_fios_shared_filename() {
        let r = case("uring", true)
            .size("file_size", 3 << 20)
            .param("shared_file", true)
            .param("jobs", 2u32);
        let a = argv(&r, Some(Path::new("/tmp"))).unwrap();
        let part = (3u64 << 20) / 2;
        for want in [
            "--filename=peakbench-ref.shared".to_string(),
            format!("--size={part}"),
            format!("--offset_increment={part}"),
            "--numjobs=2".into(),
        ] {
            assert!(a.contains(&want), "{want}: {a:?}");
        }
    }
}
