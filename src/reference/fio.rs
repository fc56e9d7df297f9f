//! fio (Debian `fio`): disk bandwidth, IOPS and completion latency. The JSON output
//! (`--output-format=json`) is parsed; fio may print notes before it, so parsing starts
//! at the first line that opens the JSON object. Read and write sides are summed (a
//! mixed workload), bandwidth in B/s (`bw_bytes`), latency as the mean completion
//! latency (`clat_ns.mean`) in seconds.
//!
//! Matching: a `disk` case with `pattern`, `block`, `depth` and `jobs` runs fio in the
//! run's `--dir` (from the report's config), O_DIRECT unless the run was buffered, for
//! 3 s after a 1 s ramp, on a 256 MiB file that fio removes afterwards.

use super::{param_str, param_u64, version_line, Context, Invocation, Tool};
use crate::report::model::BenchResult;
use std::path::Path;
use std::time::Duration;

/// The fio adapter.
pub struct Fio;

type Parser = fn(&str) -> Result<f64, String>;

/// The per-direction fields fio reports that peakbench uses.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct FioSide {
    /// Bytes per second.
    pub bw_bytes: f64,
    /// I/O operations per second.
    pub iops: f64,
    /// Mean completion latency, nanoseconds.
    pub clat_mean_ns: f64,
    /// Completed I/Os (weights the latency mean of a mixed workload).
    pub total_ios: f64,
}

/// Read and write sides of the first job (the group with `--group_reporting`).
pub fn parse_json(text: &str) -> Result<(FioSide, FioSide), String> {
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

fn config_str<'a>(c: &'a serde_json::Value, key: &str) -> Option<&'a str> {
    c.get(key)
        .or_else(|| c.get("command").and_then(|x| x.get(key)))
        .and_then(|v| v.as_str())
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
        if r.resource != "disk" {
            return None;
        }
        let (parse, unit): (Parser, &str) = match r.metric.as_str() {
            "throughput" => (parse_bw, "B/s"),
            "iops" => (parse_iops, "IO/s"),
            "latency" => (parse_clat, "s"),
            _ => return None,
        };
        let dir = config_str(ctx.config, "dir")?;
        let rw = rw(param_str(r, "pattern")?)?;
        let engine = match config_str(ctx.config, "engine") {
            Some("sync") => "psync",
            _ => "io_uring",
        };
        let buffered = ctx
            .config
            .get("command")
            .and_then(|c| c.get("buffered"))
            .and_then(|v| v.as_bool())
            .unwrap_or(false);
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
            format!("--bs={}", param_u64(r, "block").unwrap_or(4096)),
            format!("--iodepth={}", param_u64(r, "depth").unwrap_or(1)),
            format!("--numjobs={}", param_u64(r, "jobs").unwrap_or(1)),
            format!("--ioengine={engine}"),
            format!("--direct={}", u8::from(!buffered)),
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
            unit: unit.into(),
            server: None,
        })
    }
}
