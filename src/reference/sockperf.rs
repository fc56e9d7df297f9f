//! sockperf (Debian `sockperf`): ping-pong latency. sockperf reports one-way latency as
//! half the round trip, in µs (`avg-latency=13.140`), converted here to seconds. Its
//! output carries ANSI colours, removed before parsing.
//!
//! Matching: a `net` latency case on loopback gets a sockperf server on a free port and
//! a 3 s ping-pong with the case's protocol and message size.

use super::{free_port, version_line, Context, Invocation, Tool};
use crate::report::model::{BenchResult, Metric, Resource, Unit};
use std::path::Path;
use std::time::Duration;

/// The sockperf adapter.
pub(crate) struct Sockperf;

/// Mean one-way latency in seconds from `avg-latency=13.140 (std-dev=…)` (µs).
pub fn parse_pingpong(text: &str) -> Result<f64, String> {
    super::number_after(text, "avg-latency")
        .map(|us| us / 1e6)
        .ok_or_else(|| "no avg-latency in sockperf output".into())
}

impl Tool for Sockperf {
    fn name(&self) -> &'static str {
        "sockperf"
    }
    fn binary(&self) -> &'static str {
        "sockperf"
    }
    fn package(&self) -> &'static str {
        "sockperf"
    }
    fn covers(&self) -> &'static str {
        "net TCP/UDP ping-pong latency on loopback (one-way = RTT/2)"
    }
    fn version(&self, _path: &Path) -> Option<String> {
        version_line(&["sockperf", "--version"], |l| {
            l.split("version").nth(1).map(|v| {
                v.trim_matches(|c: char| c == '#' || c == '=' || c.is_whitespace())
                    .to_string()
            })
        })
    }
    fn invocation(&self, r: &BenchResult, ctx: &Context) -> Option<Invocation> {
        if r.resource != Resource::Net || r.metric != Metric::Latency {
            return None;
        }
        if ctx.remote {
            return None;
        }
        let tcp = match r.param_str("proto").unwrap_or("udp") {
            "tcp" => true,
            "udp" => false,
            _ => return None,
        };
        let port = free_port()?.to_string();
        let mut server: Vec<String> = vec![
            "sockperf".into(),
            "server".into(),
            "-p".into(),
            port.clone(),
        ];
        let mut argv: Vec<String> = vec![
            "sockperf".into(),
            "ping-pong".into(),
            "-i".into(),
            "127.0.0.1".into(),
            "-p".into(),
            port,
            "-t".into(),
            "3".into(),
            "-m".into(),
            r.param_u64("msg").unwrap_or(64).max(14).to_string(),
        ];
        if tcp {
            server.push("--tcp".into());
            argv.push("--tcp".into());
        }
        Some(Invocation {
            argv,
            timeout: Duration::from_secs(30),
            parse: parse_pingpong,
            unit: Unit::Second,
            server: Some(server),
        })
    }
}
