//! sockperf (Debian `sockperf`): ping-pong latency. sockperf reports one-way latency as
//! half the round trip, in µs (`avg-latency=13.140`), converted here to seconds. Its
//! output carries ANSI colours, removed before parsing.
//!
//! Matching: a `net` latency case on loopback gets a sockperf server on a free port and
//! a 3 s ping-pong with the case's protocol and message size. sockperf runs one stream
//! and takes messages of [`MIN_MSG`] to [`MAX_MSG`] bytes: a case outside that gets a
//! one-line reason instead of a figure of another message size or stream count.

use super::{free_port, Context, Invocation, Row, Tool, VersionFrom};
use crate::report::model::{BenchResult, Metric, Resource, Unit};
use std::time::Duration;

/// The smallest message sockperf sends (`-m`), in bytes.
pub(crate) const MIN_MSG: u64 = 14;
/// The largest message sockperf takes (`-m`), in bytes.
pub(crate) const MAX_MSG: u64 = 65_500;

/// Whether `r` is a latency case sockperf covers (loopback, TCP or UDP).
fn covered(r: &BenchResult, ctx: &Context) -> bool {
    r.resource == Resource::Net
        && r.metric == Metric::Latency
        && !ctx.remote
        && matches!(r.param_str("proto").unwrap_or("udp"), "tcp" | "udp")
}

/// The sockperf adapter.
pub(crate) struct Sockperf;

/// Mean one-way latency in seconds from `avg-latency=13.140 (std-dev=…)` (µs).
pub fn parse_pingpong(text: &str) -> Result<f64, String> {
    super::number_after(text, "avg-latency")
        .map(|us| us / 1e6)
        .ok_or_else(|| "no avg-latency in sockperf output".into())
}

/// sockperf: who it is, what it checks, how its version is read (its line in [`super::TOOLS`]).
pub(crate) static ROW: Row = Row {
    name: "sockperf",
    binary: "sockperf",
    package: "sockperf",
    covers: "net TCP/UDP ping-pong latency on loopback (one-way = RTT/2)",
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
            server: Some(server),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reference::{attach, Detected, Memo, TOOLS};

    fn latency(proto: &str, msg: u64, streams: u32) -> BenchResult {
        BenchResult::new(
            Resource::Net,
            &format!("{proto}_latency"),
            Metric::Latency,
            Unit::Second,
        )
        .param("proto", proto)
        .param("test", "latency")
        .size("msg", msg)
        .param("streams", streams)
        .with_samples(vec![1e-5, 1e-5])
    }

    /// Issue #26: `--msg 128KiB,64B --streams 1,2` ran sockperf with 128 KiB (which it
    /// refuses, reported as a parse error) and matched 2 streams with a 1-stream run.
    /// Only a case sockperf can run alike gets a run; the others get one reason.
    #[test]
    fn only_cases_sockperf_can_run_alike_are_matched() {
        let host = crate::report::samples::host();
        let memo = Memo::default();
        let ctx = Context::new(&host, &memo);
        // Only sockperf "installed", at a path that does not exist: nothing may run.
        let found: Vec<Detected> = TOOLS
            .iter()
            .map(|t| Detected {
                tool: t.name,
                installed: t.name == "sockperf",
                path: Some("/nonexistent/sockperf".into()),
                version: Some("3.7".into()),
                package: t.package,
                covers: t.covers,
            })
            .collect();
        for (proto, msg, streams, want) in [
            ("udp", 131072, 1, "reference sockperf: not run: sockperf takes messages up to 65500 B; this case's are 131072 B"),
            ("tcp", 64, 2, "reference sockperf: not run: sockperf ping-pong runs one stream; this case ran 2"),
            ("udp", 8, 1, "reference sockperf: not run: sockperf sends messages of at least 14 B; this case's are 8 B"),
        ] {
            let mut r = latency(proto, msg, streams);
            assert!(Sockperf.invocation(&r, &ctx).is_none());
            attach(&mut r, &ctx, &found);
            let notes: Vec<&str> = r.notes.iter().map(|n| n.text.as_str()).collect();
            assert_eq!(notes, [want]);
            assert!(r.reference.is_none());
        }
        // A case it can run: the same size and protocol, nothing else changed.
        let r = latency("tcp", 65500, 1);
        assert!(Sockperf.cannot_match(&r, &ctx).is_none());
        let inv = Sockperf.invocation(&r, &ctx).unwrap();
        let m = inv.argv.iter().position(|a| a == "-m").unwrap();
        assert_eq!(inv.argv[m + 1], "65500");
        assert!(inv.argv.contains(&"--tcp".to_string()));
        // A remote run or a throughput case is not sockperf's: no reason, no run.
        let remote = Context {
            remote: true,
            ..Context::new(&host, &memo)
        };
        assert!(Sockperf
            .cannot_match(&latency("udp", 1 << 20, 4), &remote)
            .is_none());
    }
}
