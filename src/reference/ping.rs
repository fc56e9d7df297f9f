//! ping (Debian `iputils-ping`): the ICMP echo round trip, the course's latency tool
//! (`ping -s 64000 -c 15` on loopback and across the network). Its summary line
//! `rtt min/avg/max/mdev = 0.031/0.046/0.067/0.011 ms` is parsed: the mean round trip
//! goes beside peakbench's `tcp_latency`/`udp_latency` row of the same message size
//! (`-s` bytes of ICMP payload each way, as the row's message), in seconds, and the
//! four figures go in a note. The kernel answers an echo itself (no process wakes up
//! at the far end), so ping is a floor for a ping-pong between two programs.
//!
//! Matching: a `net` latency case with one stream and a message of at most
//! [`MAX_PAYLOAD`] bytes: on loopback ping 127.0.0.1; against `--server`, the server's
//! host (from the case's `server` param). 15 echoes 0.2 s apart (3 s, the interval an
//! unprivileged user may use).

use super::{capture, Context, Found, Row, SharedFound, Tool, VersionFrom};
use crate::report::model::{BenchResult, Metric, Reference, ResourceName, Unit};
use std::net::SocketAddr;
use std::time::Duration;

/// The largest ICMP payload over IPv4 (65535 − 20 − 8).
pub(crate) const MAX_PAYLOAD: u64 = 65_507;
/// Echoes per run.
const COUNT: u32 = 15;

/// The ping adapter.
pub(crate) struct Ping;

/// ping's round-trip summary, in seconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Rtt {
    /// Fastest echo.
    pub(crate) min: f64,
    /// Mean.
    pub(crate) avg: f64,
    /// Slowest.
    pub(crate) max: f64,
    /// Mean deviation.
    pub(crate) mdev: f64,
}

/// The `rtt min/avg/max/mdev = a/b/c/d ms` line (iputils; `round-trip` in BusyBox).
pub(crate) fn parse_summary(text: &str) -> Result<Rtt, String> {
    let line = text
        .lines()
        .find(|l| l.contains("min/avg/max"))
        .ok_or("no min/avg/max line in ping output (no echo answered?)")?;
    let (_, values) = line
        .split_once('=')
        .ok_or("ping's min/avg/max line has no '='")?;
    let mut parts = values.split_whitespace();
    let nums = parts
        .next()
        .ok_or("ping's min/avg/max line has no figures")?;
    let scale = match parts.next() {
        Some("ms") => 1e-3,
        Some("us") | Some("µs") => 1e-6,
        Some("s") => 1.0,
        other => return Err(format!("ping's round trips in an unknown unit {other:?}")),
    };
    let v: Vec<f64> = nums
        .split('/')
        .map(|x| {
            x.parse::<f64>()
                .map_err(|_| format!("'{x}' in ping's summary is not a number"))
        })
        .collect::<Result<_, _>>()?;
    let &[min, avg, max, ..] = v.as_slice() else {
        return Err("ping's summary has fewer than three figures".into());
    };
    let rtt = Rtt {
        min: min * scale,
        avg: avg * scale,
        max: max * scale,
        mdev: v.get(3).copied().unwrap_or(0.0) * scale,
    };
    let ok = [rtt.min, rtt.avg, rtt.max, rtt.mdev]
        .iter()
        .all(|x| x.is_finite() && *x >= 0.0);
    if !ok || rtt.min > rtt.avg || rtt.avg > rtt.max {
        return Err(format!("ping's summary is not min ≤ avg ≤ max: {nums}"));
    }
    Ok(rtt)
}

/// ping: who it is, what it checks, how its version is read (its line in [`super::TOOLS`]).
pub(crate) static ROW: Row = Row {
    name: "ping",
    binary: "ping",
    package: "iputils-ping",
    covers:
        "net round-trip latency, ICMP echo of the message size (loopback, or the --server host)",
    version: VersionFrom::Command {
        argv: &["ping", "-V"],
        pick: |l| {
            l.strip_prefix("ping from iputils ")
                .or_else(|| l.strip_prefix("ping utility, iputils-"))
                .map(|v| v.trim().to_string())
        },
    },
    tool: &Ping,
};

/// Whether `r` is a latency case ping can be put beside.
fn covered(r: &BenchResult) -> bool {
    r.resource == ResourceName::Net && r.metric == Metric::Latency
}

/// The host ping sends to: 127.0.0.1 on loopback, else the `--server` host.
fn target(r: &BenchResult, ctx: &Context) -> Option<String> {
    if !ctx.remote {
        return Some("127.0.0.1".into());
    }
    let server = r.param_str("server")?;
    Some(server.parse::<SocketAddr>().ok()?.ip().to_string())
}

/// The ping command for `r`.
pub(crate) fn argv(r: &BenchResult, ctx: &Context) -> Option<Vec<String>> {
    let host = target(r, ctx)?;
    let v6 = host.contains(':');
    let mut a: Vec<String> = vec!["ping".into()];
    if v6 {
        a.push("-6".into());
    }
    a.extend([
        "-n".into(),
        "-q".into(),
        "-c".into(),
        COUNT.to_string(),
        "-i".into(),
        "0.2".into(),
        "-s".into(),
        r.param_u64("msg").unwrap_or(64).to_string(),
        host,
    ]);
    Some(a)
}

impl Tool for Ping {
    fn cannot_match(&self, r: &BenchResult, _ctx: &Context) -> Option<String> {
        if !covered(r) {
            return None;
        }
        let streams = r.param_u64("streams").unwrap_or(1);
        let msg = r.param_u64("msg").unwrap_or(64);
        if streams != 1 {
            Some(format!(
                "ping sends one echo at a time; this case ran {streams} streams"
            ))
        } else if msg > MAX_PAYLOAD {
            Some(format!(
                "an ICMP echo carries at most {MAX_PAYLOAD} B; this case's messages are {msg} B"
            ))
        } else {
            None
        }
    }

    fn shared(&self, r: &BenchResult, ctx: &Context, version: &str) -> SharedFound {
        if !covered(r) || self.cannot_match(r, ctx).is_some() {
            return None;
        }
        let argv = argv(r, ctx)?;
        // One run per host and size, shared by the TCP and UDP rows of that size.
        let key = format!("ping {}", argv.join(" "));
        let out = ctx.memo.get_or_insert_with(&key, || {
            capture(&argv, Duration::from_secs(30)).map(|(o, _)| o)
        });
        Some(out.and_then(|text| {
            let rtt = parse_summary(&text)?;
            let us = |s: f64| format!("{:.1} µs", s * 1e6);
            Ok(Found {
                reference: Some(Reference {
                    tool: ROW.name.into(),
                    version: version.into(),
                    command: argv.join(" "),
                    value: rtt.avg,
                    unit: Unit::Second,
                }),
                notes: vec![format!(
                    "ICMP echo round trip (answered by the kernel, no process at the far end): min {} / avg {} / max {} / mdev {} over {COUNT} echoes",
                    us(rtt.min),
                    us(rtt.avg),
                    us(rtt.max),
                    us(rtt.mdev)
                )],
            })
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hw::HostInfo;
    use crate::reference::Memo;

    fn fixture() -> String {
        std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/fixtures/tools/ping_loopback_64000.txt"),
        )
        .unwrap()
    }

    #[test]
    fn the_recorded_summary_is_read() {
        let r = parse_summary(&fixture()).unwrap();
        let close = |a: f64, b: f64| (a - b).abs() < 1e-12;
        assert!(close(r.min, 0.054e-3) && close(r.avg, 0.070e-3), "{r:?}");
        assert!(close(r.max, 0.135e-3) && close(r.mdev, 0.019e-3), "{r:?}");
        assert!(parse_summary("PING 127.0.0.1\n15 packets transmitted, 0 received").is_err());
        assert!(parse_summary("rtt min/avg/max/mdev = 3/2/1/0 ms").is_err());
    }

    fn case(msg: u64) -> BenchResult {
        BenchResult::new(
            ResourceName::Net,
            "tcp_latency",
            Metric::Latency,
            Unit::Second,
        )
        .param("proto", "tcp")
        .size("msg", msg)
        .param("streams", 1)
    }

    /// Loopback pings 127.0.0.1; against `--server`, the server's host; the size is
    /// the case's message.
    #[test]
    fn the_command_follows_the_case() {
        let host = HostInfo::detect(false);
        let memo = Memo::default();
        let mut ctx = Context::new(&host, &memo);
        let a = argv(&case(64000), &ctx).unwrap();
        assert_eq!(a.join(" "), "ping -n -q -c 15 -i 0.2 -s 64000 127.0.0.1");
        ctx.remote = true;
        let remote = case(64).param("server", "192.0.2.7:5211");
        assert_eq!(
            argv(&remote, &ctx).unwrap().join(" "),
            "ping -n -q -c 15 -i 0.2 -s 64 192.0.2.7"
        );
        let v6 = case(64).param("server", "[2001:db8::1]:5211");
        assert_eq!(
            argv(&v6, &ctx).unwrap().join(" "),
            "ping -6 -n -q -c 15 -i 0.2 -s 64 2001:db8::1"
        );
        assert!(Ping
            .cannot_match(&case(70000), &ctx)
            .unwrap()
            .contains("65507"));
        let two = case(64).param("streams", 2);
        assert!(Ping.cannot_match(&two, &ctx).unwrap().contains("2 streams"));
    }
}
