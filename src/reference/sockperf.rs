//! sockperf (Debian `sockperf`): ping-pong latency. sockperf reports one-way latency as
//! half the round trip, in µs (`avg-latency=13.140`); peakbench's latency rows are the
//! round trip, so the figure put beside them is twice that, in seconds: the same
//! quantity on both sides (issue #45 item 7: `82.70 µs vs 11.75 µs: 7.04x` divided a
//! round trip by a one-way figure). Its output carries ANSI colours, removed before
//! parsing.
//!
//! Matching: a `net` latency case on loopback gets a sockperf server on a free port and
//! a 3 s ping-pong with the case's protocol and message size. sockperf runs one stream
//! and takes messages of [`MIN_MSG`] to [`MAX_MSG`] bytes: a case outside that gets a
//! one-line reason instead of a figure of another message size or stream count.

use super::{free_port, Context, Invocation, Row, Server, Tool, VersionFrom};
use crate::report::model::{BenchResult, Metric, ResourceName, Unit};
use std::time::Duration;

/// The smallest message sockperf sends (`-m`), in bytes.
pub(crate) const MIN_MSG: u64 = 14;
/// The largest message sockperf takes (`-m`), in bytes.
pub(crate) const MAX_MSG: u64 = 65_500;

/// Whether `r` is a latency case sockperf covers (loopback, TCP or UDP).
fn covered(r: &BenchResult, ctx: &Context) -> bool {
    r.resource == ResourceName::Net
        && r.metric == Metric::Latency
        && !ctx.remote
        && matches!(r.param_str("proto").unwrap_or("udp"), "tcp" | "udp")
}

/// The sockperf adapter.
pub(crate) struct Sockperf;

/// Mean round trip in seconds: twice the one-way `avg-latency=13.140 (std-dev=…)` (µs),
/// which sockperf computes as half of each round trip.
pub fn parse_pingpong(text: &str) -> Result<f64, String> {
    super::number_after(text, "avg-latency")
        .map(|us| 2.0 * us / 1e6)
        .ok_or_else(|| "no avg-latency in sockperf output".into())
}

/// sockperf: who it is, what it checks, how its version is read (its line in [`super::TOOLS`]).
pub(crate) static ROW: Row = Row {
    name: "sockperf",
    binary: "sockperf",
    package: "sockperf",
    covers: "net TCP/UDP ping-pong latency on loopback (round trip: its one-way RTT/2 doubled)",
    version: VersionFrom::Command {
        argv: &["sockperf", "--version"],
        pick: |l| {
            l.split("version").nth(1).map(|v| {
                v.trim_matches(|c: char| c == '#' || c == '=' || c.is_whitespace())
                    .to_string()
            })
        },
    },
    tool: &Sockperf,
};

impl Tool for Sockperf {
    fn cannot_match(&self, r: &BenchResult, ctx: &Context) -> Option<String> {
        if !covered(r, ctx) {
            return None;
        }
        let streams = r.param_u64("streams").unwrap_or(1);
        let msg = r.param_u64("msg").unwrap_or(64);
        if streams != 1 {
            Some(format!(
                "sockperf ping-pong runs one stream; this case ran {streams}"
            ))
        } else if msg > MAX_MSG {
            Some(format!(
                "sockperf takes messages up to {MAX_MSG} B; this case's are {msg} B"
            ))
        } else if msg < MIN_MSG {
            Some(format!(
                "sockperf sends messages of at least {MIN_MSG} B; this case's are {msg} B"
            ))
        } else {
            None
        }
    }
    fn invocation(&self, r: &BenchResult, ctx: &Context) -> Option<Invocation> {
        if !covered(r, ctx) || self.cannot_match(r, ctx).is_some() {
            return None;
        }
        let tcp = r.param_str("proto") == Some("tcp");
        let port_n = free_port()?;
        let port = port_n.to_string();
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
            r.param_u64("msg").unwrap_or(64).to_string(),
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
            server: Some(Server {
                argv: server,
                port: port_n,
            }),
        })
    }
}
