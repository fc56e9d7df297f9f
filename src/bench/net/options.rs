//! Validated options of `peakbench net` and `peakbench serve`: each bad value becomes
//! one [`UsageError`] line naming the flag and the accepted form (exit code 2).

use super::proto::{Proto, TestKind, DEFAULT_PORT, MAX_STREAMS, MAX_TCP_MSG, MAX_UDP_MSG};
use crate::util::units::{parse_duration, parse_list, parse_size, ParseError};
use crate::util::usage::UsageError;
use clap::Args;
use serde::{Serialize, Serializer};
use std::net::{SocketAddr, ToSocketAddrs};
use std::time::Duration;

/// `peakbench net` flags.
#[derive(Debug, Args, Default)]
pub struct NetArgs {
    /// Server running `peakbench serve`, as HOST or HOST:PORT [default: an in-process server on 127.0.0.1; port 5211]
    #[arg(long, value_name = "HOST[:PORT]")]
    pub(crate) server: Option<String>,
    /// Transports: tcp,udp [default: tcp,udp]
    #[arg(long, value_name = "LIST")]
    pub(crate) proto: Option<String>,
    /// Tests: throughput,latency [default: throughput,latency]
    #[arg(long, value_name = "LIST")]
    pub(crate) test: Option<String>,
    /// Message/datagram sizes, e.g. 1B,1KiB,64KiB [default: TCP 128KiB, UDP 1460B, latency 64B]
    #[arg(long, value_name = "LIST")]
    pub(crate) msg: Option<String>,
    /// Parallel streams, one pinned thread each on both ends [default: 1]
    #[arg(long, value_name = "LIST")]
    pub(crate) streams: Option<String>,
    /// Timed part of each case, split into --repeat samples, after a 0.5 s warm-up [default: 3s]
    #[arg(long, value_name = "DUR")]
    pub(crate) time: Option<String>,
    /// The server sends (throughput)
    #[arg(long)]
    pub(crate) reverse: bool,
    /// Both ends send at once, each on its own streams (throughput)
    #[arg(long)]
    pub(crate) bidir: bool,
    /// UDP pacing per stream in bit/s, e.g. 500M or 2.5G [default: unpaced]
    #[arg(long, value_name = "RATE")]
    pub(crate) rate: Option<String>,
    /// TCP sends with MSG_ZEROCOPY where the OS offers it
    #[arg(long)]
    pub(crate) zerocopy: bool,
    /// Pre-shared token (proven by HMAC, never sent); or set $PEAKBENCH_TOKEN
    #[arg(long, value_name = "SECRET")]
    pub(crate) token: Option<String>,
    /// All pairs of hosts of a cluster launch (mpirun/srun; see README): a host x host matrix of TCP throughput and latency
    #[arg(long)]
    pub(crate) matrix: bool,
}

/// `peakbench serve` flags.
#[derive(Debug, Args, Default)]
pub struct ServeArgs {
    /// Address and port to listen on [default: 127.0.0.1:5211; other addresses only when asked]
    #[arg(long, value_name = "ADDR:PORT")]
    pub(crate) bind: Option<String>,
    /// Require clients to prove this pre-shared token; or set $PEAKBENCH_TOKEN
    #[arg(long, value_name = "SECRET")]
    pub(crate) token: Option<String>,
    /// Exit after the first test session
    #[arg(long)]
    pub(crate) once: bool,
    /// Most stream-buffer memory the tests may hold, per test and in all [default: a quarter of MemAvailable, 64 MiB to 1 GiB]
    #[arg(long, value_name = "SIZE")]
    pub(crate) max_memory: Option<String>,
}

/// Environment variable read when `--token` is absent (keeps the secret out of `ps`).
pub(crate) const TOKEN_ENV: &str = "PEAKBENCH_TOKEN";

fn redact<S: Serializer>(t: &Option<String>, s: S) -> Result<S::Ok, S::Error> {
    // The report records that a token was used, never the token.
    s.serialize_bool(t.is_some())
}

/// `peakbench net` options.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct NetOptions {
    /// `--server HOST[:PORT]` as given; `None` = an in-process server on loopback.
    pub(crate) server: Option<String>,
    /// `--proto`.
    pub(crate) protos: Vec<Proto>,
    /// `--test`.
    pub(crate) tests: Vec<TestKind>,
    /// `--msg`; `None` = per transport and test defaults (see [`default_msg`]).
    pub(crate) msgs: Option<Vec<u32>>,
    /// `--streams`.
    pub(crate) streams: Vec<u32>,
    /// `--time`: timed part of each case, split into `--repeat` samples.
    #[serde(serialize_with = "crate::bench::common::secs", rename = "time_s")]
    pub(crate) time: Duration,
    /// `--reverse`: the server sends.
    pub(crate) reverse: bool,
    /// `--bidir`: both ends send.
    pub(crate) bidir: bool,
    /// `--rate`: UDP pacing per stream, bit/s.
    pub(crate) rate_bps: Option<u64>,
    /// `--zerocopy`.
    pub(crate) zerocopy: bool,
    /// `--token` (or $PEAKBENCH_TOKEN); serialised only as "was given".
    #[serde(serialize_with = "redact", rename = "token_given")]
    pub(crate) token: Option<String>,
    /// `--matrix`: every ordered pair of hosts of a cluster launch (TCP only).
    pub(crate) matrix: bool,
}

impl Default for NetOptions {
    fn default() -> Self {
        NetOptions {
            server: None,
            protos: vec![Proto::Tcp, Proto::Udp],
            tests: vec![TestKind::Throughput, TestKind::Latency],
            msgs: None,
            streams: vec![1],
            time: Duration::from_secs(3),
            reverse: false,
            bidir: false,
            rate_bps: None,
            zerocopy: false,
            token: None,
            matrix: false,
        }
    }
}

/// `peakbench serve` options.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct ServeOptions {
    /// `--bind ADDR:PORT` [default 127.0.0.1:5211].
    pub(crate) bind: SocketAddr,
    /// `--token` (or $PEAKBENCH_TOKEN); serialised only as "was given".
    #[serde(serialize_with = "redact", rename = "token_given")]
    pub(crate) token: Option<String>,
    /// `--once`: exit after the first test session.
    pub(crate) once: bool,
    /// `--max-memory`; `None` = [`super::server::default_memory`].
    pub(crate) max_memory: Option<u64>,
}

/// Message size used when `--msg` is not given: iperf3's defaults for throughput
/// (128 KiB TCP writes, 1460-byte UDP datagrams) and 64-byte ping-pong messages.
pub(crate) fn default_msg(proto: Proto, test: TestKind) -> u32 {
    match (proto, test) {
        (Proto::Tcp, TestKind::Throughput) => 128 * 1024,
        (Proto::Udp, TestKind::Throughput) => 1460,
        (_, TestKind::Latency) => 64,
    }
}

fn token(given: &Option<String>) -> Result<Option<String>, UsageError> {
    let t = given
        .clone()
        .or_else(|| std::env::var(TOKEN_ENV).ok().filter(|s| !s.is_empty()));
    if let Some(t) = &t {
        if t.is_empty() || t.len() > 1024 {
            return Err(UsageError::new(
                "--token",
                "a token is 1 to 1024 bytes (or set $PEAKBENCH_TOKEN)",
            ));
        }
    }
    Ok(t)
}

/// Parses a bit rate: `500M`, `2.5G`, `1Gbit/s`, `100000` (bit/s).
pub(crate) fn parse_rate(text: &str) -> Result<u64, ParseError> {
    let t = text.trim();
    let bad = || {
        ParseError(format!(
            "'{text}' is not a bit rate; use a number with k, M or G (bit/s), e.g. 500M or 2.5G"
        ))
    };
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let x: f64 = num.parse().map_err(|_| bad())?;
    let unit = unit.trim();
    let unit = unit
        .strip_suffix("bit/s")
        .or_else(|| unit.strip_suffix("bps"))
        .unwrap_or(unit);
    let mult = match unit {
        "" => 1.0,
        "k" | "K" => 1e3,
        "M" | "m" => 1e6,
        "G" | "g" => 1e9,
        "T" | "t" => 1e12,
        _ => return Err(bad()),
    };
    let v = x * mult;
    if !v.is_finite() || !(1.0..=1e15).contains(&v) {
        return Err(ParseError(format!(
            "'{text}' is out of range; rates go from 1 bit/s to 1000T"
        )));
    }
    Ok(v as u64)
}

/// Splits `HOST[:PORT]` (IPv6 as `[::1]:PORT` or bare `::1`) and resolves it.
pub(crate) fn resolve(text: &str, default_port: u16) -> Result<SocketAddr, String> {
    let t = text.trim();
    if t.is_empty() {
        return Err("empty address; use HOST[:PORT], e.g. 127.0.0.1:5211".into());
    }
    let candidate = if t.parse::<std::net::IpAddr>().is_ok() {
        // A bare IPv4 or IPv6 address.
        SocketAddr::new(t.parse().map_err(|_| "bad address")?, default_port).to_string()
    } else if t.starts_with('[') && t.ends_with(']') {
        format!("{t}:{default_port}")
    } else if t
        .rsplit_once(':')
        .is_some_and(|(_, p)| p.parse::<u16>().is_ok())
    {
        t.to_string()
    } else if t.contains(':') && !t.starts_with('[') {
        return Err(format!(
            "'{t}' is not HOST[:PORT]; the port must be 1..65535, IPv6 as [::1]:PORT"
        ));
    } else {
        format!("{t}:{default_port}")
    };
    let addr = candidate
        .to_socket_addrs()
        .map_err(|e| format!("cannot resolve '{t}': {e}"))?
        .next()
        .ok_or_else(|| format!("'{t}' resolves to no address"))?;
    Ok(addr)
}

/// Validates `peakbench net` flags.
pub(crate) fn parse_net(a: &NetArgs) -> Result<NetOptions, UsageError> {
    let d = NetOptions::default();
    let protos = match &a.proto {
        None => d.protos,
        Some(t) => parse_list(t, |s| match s.to_ascii_lowercase().as_str() {
            "tcp" => Ok(Proto::Tcp),
            "udp" => Ok(Proto::Udp),
            _ => Err(ParseError(format!(
                "unknown protocol '{s}'; accepted: tcp,udp"
            ))),
        })
        .map_err(|e| UsageError::new("--proto", e))?,
    };
    let tests = match &a.test {
        None => d.tests,
        Some(t) => parse_list(t, |s| match s.to_ascii_lowercase().as_str() {
            "throughput" => Ok(TestKind::Throughput),
            "latency" => Ok(TestKind::Latency),
            _ => Err(ParseError(format!(
                "unknown test '{s}'; accepted: throughput,latency"
            ))),
        })
        .map_err(|e| UsageError::new("--test", e))?,
    };
    let msgs = a
        .msg
        .as_deref()
        .map(|t| {
            parse_list(t, |s| {
                let n = parse_size(s)?;
                if n > u64::from(MAX_TCP_MSG) {
                    return Err(ParseError(format!(
                        "'{s}' is too large; messages go up to 16MiB (UDP datagrams up to {MAX_UDP_MSG}B)"
                    )));
                }
                Ok(n as u32)
            })
        })
        .transpose()
        .map_err(|e| UsageError::new("--msg", e))?;
    if let Some(ms) = &msgs {
        if protos.contains(&Proto::Udp) {
            if let Some(m) = ms.iter().find(|m| **m > MAX_UDP_MSG) {
                return Err(UsageError::new(
                    "--msg",
                    format!("{m} B does not fit a UDP datagram; use at most {MAX_UDP_MSG}B with --proto udp"),
                ));
            }
            // UDP throughput below 16 B is not refused here: those cases are `skipped`
            // with the reason (net::cases), and the rest of the run goes on.
        }
    }
    let streams = match &a.streams {
        None => d.streams,
        Some(t) => parse_list(t, |s| match s.parse::<u32>() {
            Ok(n) if (1..=MAX_STREAMS).contains(&n) => Ok(n),
            _ => Err(ParseError(format!(
                "'{s}' is not a stream count; use whole numbers from 1 to {MAX_STREAMS}"
            ))),
        })
        .map_err(|e| UsageError::new("--streams", e))?,
    };
    let time = match &a.time {
        None => d.time,
        Some(t) => {
            let v = parse_duration(t).map_err(|e| UsageError::new("--time", e))?;
            if v < Duration::from_millis(10) || v > Duration::from_secs(3000) {
                return Err(UsageError::new(
                    "--time",
                    format!("'{t}' is out of range; use 10ms to 50m"),
                ));
            }
            v
        }
    };
    if a.reverse && a.bidir {
        return Err(UsageError::new(
            "--bidir",
            "cannot be combined with --reverse; use one of them",
        ));
    }
    let rate_bps = a
        .rate
        .as_deref()
        .map(parse_rate)
        .transpose()
        .map_err(|e| UsageError::new("--rate", e))?;
    if rate_bps.is_some() && !protos.contains(&Proto::Udp) {
        return Err(UsageError::new("--rate", "paces UDP only; add --proto udp"));
    }
    if a.zerocopy && !protos.contains(&Proto::Tcp) {
        return Err(UsageError::new(
            "--zerocopy",
            "applies to TCP only; add --proto tcp",
        ));
    }
    if let Some(s) = &a.server {
        resolve(s, DEFAULT_PORT).map_err(|e| UsageError::new("--server", e))?;
    }
    Ok(NetOptions {
        server: a.server.clone(),
        protos,
        tests,
        msgs,
        streams,
        time,
        reverse: a.reverse,
        bidir: a.bidir,
        rate_bps,
        zerocopy: a.zerocopy,
        token: token(&a.token)?,
        matrix: a.matrix,
    })
}

/// Validates `peakbench serve` flags.
pub(crate) fn parse_serve(a: &ServeArgs) -> Result<ServeOptions, UsageError> {
    let bind = match &a.bind {
        None => SocketAddr::from(([127, 0, 0, 1], DEFAULT_PORT)),
        Some(t) => resolve(t, DEFAULT_PORT).map_err(|e| UsageError::new("--bind", e))?,
    };
    Ok(ServeOptions {
        bind,
        token: token(&a.token)?,
        once: a.once,
        max_memory: a
            .max_memory
            .as_deref()
            .map(|t| {
                crate::util::units::parse_size(t)
                    .map_err(|e| UsageError::new("--max-memory", e.to_string()))
            })
            .transpose()?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates() {
        assert_eq!(parse_rate("500M").unwrap(), 500_000_000);
        assert_eq!(parse_rate("2.5G").unwrap(), 2_500_000_000);
        assert_eq!(parse_rate("1Gbit/s").unwrap(), 1_000_000_000);
        assert_eq!(parse_rate("1000").unwrap(), 1000);
        assert!(parse_rate("fast").is_err());
        assert!(parse_rate("0").is_err());
        assert!(parse_rate("5X").is_err());
    }

    #[test]
    fn addresses() {
        assert_eq!(
            resolve("127.0.0.1", 5211).unwrap(),
            "127.0.0.1:5211".parse().unwrap()
        );
        assert_eq!(
            resolve("127.0.0.1:9", 5211).unwrap(),
            "127.0.0.1:9".parse().unwrap()
        );
        assert_eq!(resolve("::1", 5211).unwrap(), "[::1]:5211".parse().unwrap());
        assert_eq!(resolve("[::1]", 7).unwrap(), "[::1]:7".parse().unwrap());
        assert_eq!(resolve("[::1]:8", 7).unwrap(), "[::1]:8".parse().unwrap());
        assert!(resolve("127.0.0.1:99999", 1).is_err());
        assert!(resolve("", 1).is_err());
    }
}
