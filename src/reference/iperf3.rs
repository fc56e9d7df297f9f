//! iperf3 (Debian `iperf3`): TCP/UDP throughput. The JSON output (`-J`) is parsed; the
//! receiver's count is the truth (`end.sum_received`, else `end.sum` for UDP), bits/s
//! converted to B/s (÷ 8, payload bytes as peakbench counts them).
//!
//! Matching: a `net` throughput case run on loopback (no `--server`) gets
//! a one-shot iperf3 server on a free port and a 3 s client with the case's streams and
//! message size.

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

impl Tool for Iperf3 {
    fn invocation(&self, r: &BenchResult, ctx: &Context) -> Option<Invocation> {
        if r.resource != ResourceName::Net || r.metric != Metric::Throughput {
            return None;
        }
        if ctx.remote {
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
            "-t".into(),
            "3".into(),
            "-P".into(),
            r.param_u64("streams").unwrap_or(1).to_string(),
            "-J".into(),
        ];
        if let Some(m) = r.param_u64("msg") {
            argv.extend(["-l".into(), m.to_string()]);
        }
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
