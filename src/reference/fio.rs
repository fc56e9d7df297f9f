//! fio (Debian `fio`): disk bandwidth, IOPS and completion latency. The JSON output
//! (`--output-format=json`) is parsed; fio may print notes before it, so parsing starts
//! at the first line that opens the JSON object. Read and write sides are summed (a
//! mixed workload), bandwidth in B/s (`bw_bytes`), latency as the mean completion
//! latency (`clat_ns.mean`) in seconds.
//!
//! Matching: a `disk` case with `pattern`, `block`, `depth` and `jobs` runs fio in the
//! run's `--dir`, with the engine the case actually used (its `engine` param: `uring`
//! → io_uring, `sync` → psync; under `--engine auto` that is the engine auto chose),
//! O_DIRECT unless the case was buffered (its `direct` param), for 3 s after a 1 s
//! ramp, on a 256 MiB file that fio removes afterwards.

use super::{version_line, Context, Invocation, Tool};
use crate::report::model::{BenchResult, Metric, Resource, Unit};
use std::path::Path;
use std::time::Duration;

/// The fio adapter.
pub(crate) struct Fio;

type Parser = fn(&str) -> Result<f64, String>;

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
        _ => None,
    }
}

impl Tool for Fio {
    fn name(&self) -> &'static str {
        "fio"
    }
    fn binary(&self) -> &'static str {
        "fio"
    }
    fn package(&self) -> &'static str {
        "fio"
    }
    fn covers(&self) -> &'static str {
        "disk bandwidth, IOPS and latency (pattern, block, depth, jobs; O_DIRECT)"
    }
    fn version(&self, _path: &Path) -> Option<String> {
        version_line(&["fio", "--version"], |l| {
            l.trim().strip_prefix("fio-").map(str::to_string)
        })
    }
    fn invocation(&self, r: &BenchResult, ctx: &Context) -> Option<Invocation> {
        if r.resource != Resource::Disk {
            return None;
        }
        let (parse, unit): (Parser, Unit) = match r.metric {
            Metric::Throughput => (parse_bw, Unit::BytePerSec),
            Metric::Iops => (parse_iops, Unit::IoPerSec),
            Metric::Latency => (parse_clat, Unit::Second),
            Metric::Ops => return None,
        };
        let dir = ctx.disk_dir?.to_str()?;
        let rw = rw(r.param_str("pattern")?)?;
        let engine = ioengine(r.param_str("engine")?)?;
        let direct = r.param_bool("direct").unwrap_or(true);
        let mut argv = vec![
            "fio".to_string(),
            "--name=peakbench-ref".into(),
            format!("--directory={dir}"),
            "--size=256M".into(),
        ];
        let mut parts = rw.split(' ');
        argv.push(format!("--rw={}", parts.next()?));
        argv.extend(parts.map(str::to_string));
        argv.extend([
            format!("--bs={}", r.param_u64("block").unwrap_or(4096)),
            format!("--iodepth={}", r.param_u64("depth").unwrap_or(1)),
            format!("--numjobs={}", r.param_u64("jobs").unwrap_or(1)),
            format!("--ioengine={engine}"),
            format!("--direct={}", u8::from(direct)),
            "--ramp_time=1".into(),
            "--runtime=3".into(),
            "--time_based".into(),
            "--group_reporting".into(),
            "--unlink=1".into(),
            "--output-format=json".into(),
        ]);
        Some(Invocation {
            argv,
            timeout: Duration::from_secs(60),
            parse,
            unit,
            server: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reference::Memo;

    fn case(engine: &str, direct: bool) -> BenchResult {
        BenchResult::new(Resource::Disk, "rand-read", Metric::Iops, Unit::IoPerSec)
            .param("pattern", "rand-read")
            .size("block", 4096)
            .param("depth", 8u32)
            .param("jobs", 2u32)
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
        Fio.invocation(r, &ctx).map(|i| i.argv)
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
        // No --dir given, or an engine fio does not know: not run.
        assert!(argv(&case("uring", true), None).is_none());
        assert!(argv(&case("spdk", true), Some(dir)).is_none());
    }
}
