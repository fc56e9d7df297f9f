//! iperf3 (Debian `iperf3`): TCP/UDP throughput. The JSON output (`-J`) is parsed; the
//! receiver's count is the truth (`end.sum_received`, else `end.sum` for UDP), bits/s
//! converted to B/s (÷ 8, payload bytes as peakbench counts them).
//!
//! Matching: a `net` throughput case run on loopback (no `--server`) gets
//! a one-shot iperf3 server on a free port and a 3 s client with the case's streams,
//! message size and direction (`-R`, `--bidir`), and the knobs the case set: `-w`
//! (`--window`), `-C` (`--congestion`), `-M` (`--mss`), `-O` (`--omit`, whole
//! seconds: iperf3 reads it with `atoi`) and `-A` (`--cpus`: iperf3 pins each end to
//! one CPU, so one CPU, or one stream, is matched). A fixed
//! transfer (`--bytes`, the row's `bytes`) is `-n BYTES` in place of `-t 3` (iperf3
//! takes one end condition); one of `--blocks` (the row's `blocks`, its `bytes` being
//! blocks x msg) is `-k BLOCKS`, which iperf3 counts, as peakbench, over all streams.

use super::{free_port, Context, Invocation, Row, Server, Tool, VersionFrom};
use crate::report::model::{BenchResult, Metric, ResourceName, Unit};
use std::time::Duration;

/// The iperf3 adapter.
pub(crate) struct Iperf3;

/// Receiver throughput in B/s from iperf3's JSON.
pub fn parse_json(text: &str) -> Result<f64, String> {
    let v: serde_json::Value =
        serde_json::from_str(text.trim()).map_err(|e| format!("iperf3 JSON: {e}"))?;
    if let Some(e) = v.get("error").and_then(|e| e.as_str()) {
        return Err(format!("iperf3: {e}"));
    }
    let end = v.get("end").ok_or("iperf3 JSON has no 'end'")?;
    end.get("sum_received")
        .or_else(|| end.get("sum"))
        .and_then(|s| s.get("bits_per_second"))
        .and_then(|b| b.as_f64())
        .filter(|b| b.is_finite())
        .map(|b| b / 8.0)
        .ok_or_else(|| "iperf3 JSON has no receiver bits_per_second".into())
}

/// iperf3: who it is, what it checks, how its version is read (its line in [`super::TOOLS`]).
pub(crate) static ROW: Row = Row {
    name: "iperf3",
    binary: "iperf3",
    package: "iperf3",
    covers: "net TCP/UDP throughput on loopback (streams, message size)",
    version: VersionFrom::Command {
        argv: &["iperf3", "--version"],
        pick: |l| {
            l.strip_prefix("iperf ")
                .map(|v| v.split_whitespace().next().unwrap_or(v).to_string())
        },
    },
    tool: &Iperf3,
};

/// The CPUs of `--cpus`, in the order given.
fn cpus(r: &BenchResult) -> Option<Vec<&str>> {
    r.param_str("cpus").map(|c| c.split(',').collect())
}

/// iperf3's arguments for the case's direction and knobs (after `-P` and `-l`).
fn knobs(r: &BenchResult) -> Vec<String> {
    let mut a: Vec<String> = Vec::new();
    match r.param_str("direction") {
        Some("reverse") => a.push("-R".into()),
        Some("bidir") => a.push("--bidir".into()),
        _ => {}
    }
    if let Some(w) = r.param_u64("window") {
        a.extend(["-w".into(), w.to_string()]);
    }
    if let Some(c) = r.param_str("congestion") {
        a.extend(["-C".into(), c.to_string()]);
    }
    if let Some(m) = r.param_u64("mss") {
        a.extend(["-M".into(), m.to_string()]);
    }
    if let Some(ms) = r.param_u64("omit_ms") {
        a.extend(["-O".into(), (ms / 1000).to_string()]);
    }
    if let Some(c) = cpus(r) {
        // Client and server on the case's first CPU: with one CPU or one stream, the
        // placement peakbench gives stream 0 at both ends.
        a.extend(["-A".into(), format!("{},{}", c[0], c[0])]);
    }
    a
}

impl Tool for Iperf3 {
    fn cannot_match(&self, r: &BenchResult, ctx: &Context) -> Option<String> {
        if r.resource != ResourceName::Net || r.metric != Metric::Throughput || ctx.remote {
            return None;
        }
        if let Some(ms) = r.param_u64("omit_ms") {
            if !ms.is_multiple_of(1000) {
                return Some(format!(
                    "iperf3 -O takes whole seconds (it reads the value with atoi), and this case omitted {ms} ms; use --omit with whole seconds to compare"
                ));
            }
        }
        if let Some(c) = cpus(r) {
            if c.len() > 1 && r.param_u64("streams").unwrap_or(1) > 1 {
                return Some(format!(
                    "iperf3 -A pins each end to one CPU, while this case ran stream i on CPU i mod {} of --cpus {} at both ends; give --cpus one CPU (or --streams 1) to compare",
                    c.len(),
                    c.join(",")
                ));
            }
        }
        None
    }

    fn invocation(&self, r: &BenchResult, ctx: &Context) -> Option<Invocation> {
        if r.resource != ResourceName::Net || r.metric != Metric::Throughput {
            return None;
        }
        if ctx.remote {
            return None;
        }
        if self.cannot_match(r, ctx).is_some() {
            return None;
        }
        let proto = r.param_str("proto").unwrap_or("tcp");
        let port_n = free_port()?;
        let port = port_n.to_string();
        let mut argv: Vec<String> = vec![
            "iperf3".into(),
            "-c".into(),
            "127.0.0.1".into(),
            "-p".into(),
            port.clone(),
        ];
        // One end condition: the case's fixed count of messages or of bytes, else
        // iperf3's 3 s.
        match (r.param_u64("blocks"), r.param_u64("bytes")) {
            (Some(k), _) => argv.extend(["-k".into(), k.to_string()]),
            (None, Some(b)) => argv.extend(["-n".into(), b.to_string()]),
            (None, None) => argv.extend(["-t".into(), "3".into()]),
        }
        argv.extend([
            "-P".into(),
            r.param_u64("streams").unwrap_or(1).to_string(),
            "-J".into(),
        ]);
        if let Some(m) = r.param_u64("msg") {
            argv.extend(["-l".into(), m.to_string()]);
        }
        argv.extend(knobs(r));
        match proto {
            "tcp" => {}
            "udp" => argv.extend(["-u".into(), "-b".into(), "0".into()]),
            _ => return None,
        }
        Some(Invocation {
            argv,
            timeout: Duration::from_secs(30),
            parse: parse_json,
            unit: Unit::BytePerSec,
            server: Some(Server {
                argv: vec!["iperf3".into(), "-s".into(), "-1".into(), "-p".into(), port],
                port: port_n,
            }),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hw::HostInfo;
    use crate::reference::Memo;

    fn case() -> BenchResult {
        BenchResult::new(
            ResourceName::Net,
            "tcp_throughput",
            Metric::Throughput,
            Unit::BytePerSec,
        )
        .param("proto", "tcp")
        .size("msg", 131072)
        .param("streams", 1)
        .param("direction", "up")
    }

    fn argv(r: &BenchResult) -> Vec<String> {
        let host = HostInfo::detect(false);
        let memo = Memo::default();
        let ctx = Context::new(&host, &memo);
        Iperf3.invocation(r, &ctx).expect("an iperf3 run").argv
    }

    fn after<'a>(argv: &'a [String], flag: &str) -> Option<&'a str> {
        argv.iter()
            .position(|a| a == flag)
            .and_then(|i| argv.get(i + 1))
            .map(String::as_str)
    }

    /// The knobs a case ran with reach iperf3 as its own flags; none without them.
    #[test]
    fn the_knobs_reach_iperf3() {
        let plain = argv(&case());
        for f in ["-w", "-C", "-M", "-O", "-A", "-R", "--bidir"] {
            assert!(!plain.iter().any(|a| a == f), "{f} in {plain:?}");
        }
        let r = case()
            .param("window", 65536u64)
            .param("congestion", "reno")
            .param("mss", 1000u64)
            .param("omit_ms", 2000u64)
            .param("cpus", "1");
        let a = argv(&r);
        assert_eq!(after(&a, "-w"), Some("65536"), "{a:?}");
        assert_eq!(after(&a, "-C"), Some("reno"), "{a:?}");
        assert_eq!(after(&a, "-M"), Some("1000"), "{a:?}");
        assert_eq!(after(&a, "-O"), Some("2"), "{a:?}");
        assert_eq!(after(&a, "-A"), Some("1,1"), "{a:?}");
        assert_eq!(after(&a, "-P"), Some("1"), "{a:?}");
        assert_eq!(after(&a, "-l"), Some("131072"), "{a:?}");
        assert_eq!(after(&plain, "-t"), Some("3"), "{plain:?}");
        assert!(!plain.iter().any(|a| a == "-n"), "{plain:?}");
        let rev = argv(&case().param("direction", "reverse"));
        assert!(rev.iter().any(|a| a == "-R"), "{rev:?}");
    }

    /// A fixed transfer reaches iperf3 as `-n BYTES`, in place of its `-t`.
    #[test]
    fn a_fixed_transfer_is_dash_n() {
        let a = argv(&case().param("bytes", 8u64 << 20));
        assert_eq!(after(&a, "-n"), Some("8388608"), "{a:?}");
        assert!(!a.iter().any(|x| x == "-t"), "{a:?}");
    }

    /// A fixed count of messages reaches iperf3 as `-k BLOCKS` beside `-l`, in place of
    /// its `-t` and of the `-n` the same bytes would be.
    #[test]
    fn a_fixed_count_of_messages_is_dash_k() {
        let a = argv(&case().param("blocks", 64u64).param("bytes", 64u64 << 17));
        assert_eq!(after(&a, "-k"), Some("64"), "{a:?}");
        assert_eq!(after(&a, "-l"), Some("131072"), "{a:?}");
        for f in ["-t", "-n"] {
            assert!(!a.iter().any(|x| x == f), "{f} in {a:?}");
        }
        assert!(!argv(&case()).iter().any(|x| x == "-k"));
    }

    /// What iperf3 cannot do alike is a one-line note, and no run.
    #[test]
    fn unlike_knobs_are_explained_not_run() {
        let host = HostInfo::detect(false);
        let memo = Memo::default();
        let ctx = Context::new(&host, &memo);
        let half = case().param("omit_ms", 1500u64);
        assert!(Iperf3
            .cannot_match(&half, &ctx)
            .unwrap()
            .contains("whole seconds"));
        assert!(Iperf3.invocation(&half, &ctx).is_none());
        let spread = case().param("streams", 2).param("cpus", "0,1");
        let why = Iperf3.cannot_match(&spread, &ctx).unwrap();
        assert!(why.contains("--cpus 0,1"), "{why}");
        assert!(Iperf3
            .cannot_match(&case().param("cpus", "0,1"), &ctx)
            .is_none());
    }
}
