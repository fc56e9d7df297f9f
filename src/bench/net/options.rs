//! Options of `peakbench net` and `peakbench serve`: one struct each, its flags typed
//! where clap reads them (a bad value is one line naming the flag and the accepted
//! form, exit code 2), and the checks that span flags ([`parse_net`], [`parse_serve`]).

use super::proto::{Proto, TestKind, DEFAULT_PORT, MAX_STREAMS, MAX_TCP_MSG, MAX_UDP_MSG};
use crate::bench::flags::{Choices, List};
use crate::util::units::{parse_duration, parse_list, parse_size, ParseError};
use crate::util::usage::UsageError;
use clap::Args;
use serde::{Serialize, Serializer};
use std::net::{SocketAddr, ToSocketAddrs};
use std::time::Duration;

/// Environment variable read when `--token` is absent (keeps the secret out of `ps`).
pub(crate) const TOKEN_ENV: &str = "PEAKBENCH_TOKEN";

fn redact<S: Serializer>(t: &Option<String>, s: S) -> Result<S::Ok, S::Error> {
    // The report records that a token was used, never the token.
    s.serialize_bool(t.is_some())
}

/// `peakbench net`: its flags, typed where clap reads them, and the validated options
/// (serialised into the report's `config`): one struct. [`parse_net`] checks what
/// spans flags and reads the token.
#[derive(Debug, Clone, Args, Serialize)]
pub(crate) struct NetOptions {
    /// Server running `peakbench serve`, as HOST or HOST:PORT [default: an in-process server on 127.0.0.1; port 5211]
    #[arg(long, value_name = "HOST[:PORT]", value_parser = server)]
    pub(crate) server: Option<String>,
    /// Transports [default: tcp,udp]
    #[arg(
        long = "proto",
        value_name = "LIST",
        default_value = "tcp,udp",
        hide_default_value = true,
        value_parser = Choices::new(protos, || vec!["tcp", "udp"])
    )]
    pub(crate) protos: List<Proto>,
    /// Tests [default: throughput,latency]
    #[arg(
        long = "test",
        value_name = "LIST",
        default_value = "throughput,latency",
        hide_default_value = true,
        value_parser = Choices::new(tests, || vec!["throughput", "latency"])
    )]
    pub(crate) tests: List<TestKind>,
    /// Message/datagram sizes, e.g. 1B,1KiB,64KiB [default: TCP 128KiB, UDP 1460B, latency 64B]
    #[arg(long = "msg", value_name = "LIST", value_parser = msgs)]
    pub(crate) msgs: Option<List<u32>>,
    /// Parallel streams, one pinned thread each on both ends [default: 1]
    #[arg(
        long,
        value_name = "LIST",
        default_value = "1",
        hide_default_value = true,
        value_parser = streams
    )]
    pub(crate) streams: List<u32>,
    /// Timed part of each case, split into --repeat samples, after a 0.5 s warm-up [default: 3s]
    #[arg(
        long,
        value_name = "DUR",
        default_value = "3s",
        hide_default_value = true,
        value_parser = time
    )]
    #[serde(serialize_with = "crate::bench::common::secs", rename = "time_s")]
    pub(crate) time: Duration,
    /// The server sends (throughput)
    #[arg(long)]
    pub(crate) reverse: bool,
    /// Both ends send at once, each on its own streams (throughput)
    #[arg(long, conflicts_with = "reverse")]
    pub(crate) bidir: bool,
    /// UDP pacing per stream in bit/s, e.g. 500M or 2.5G [default: unpaced]
    #[arg(long = "rate", value_name = "RATE", value_parser = parse_rate)]
    pub(crate) rate_bps: Option<u64>,
    /// TCP sends with MSG_ZEROCOPY where the OS offers it
    #[arg(long)]
    pub(crate) zerocopy: bool,
    /// Pre-shared token (proven by HMAC, never sent); or set $PEAKBENCH_TOKEN
    #[arg(long, value_name = "SECRET")]
    #[serde(serialize_with = "redact", rename = "token_given")]
    pub(crate) token: Option<String>,
    /// Socket buffer (SO_SNDBUF and SO_RCVBUF) of every data socket at both ends, as iperf3 -w [default: the kernel's; UDP: as large as allowed]
    #[arg(long, value_name = "SIZE", value_parser = window)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) window: Option<u32>,
    /// TCP congestion control at both ends, one the kernel offers (its tcp_available_congestion_control), as iperf3 -C [default: the kernel's]
    #[arg(long, value_name = "NAME", value_parser = congestion)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) congestion: Option<String>,
    /// TCP maximum segment size, bytes, as iperf3 -M [default: from the path MTU]
    #[arg(long, value_name = "BYTES", value_parser = mss)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) mss: Option<u32>,
    /// Warm-up at the start of each test, not counted, as iperf3 -O [default: 500ms]
    #[arg(long, value_name = "DUR", value_parser = omit)]
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "omit_secs",
        rename = "omit_s"
    )]
    pub(crate) omit: Option<Duration>,
    /// A fixed transfer instead of a time, as iperf3 -n: each TCP throughput case stops once its streams sent SIZE in all (per direction), its figure SIZE over the transfer's time; replaces --time and --omit
    #[arg(long, value_name = "SIZE", value_parser = bytes, conflicts_with_all = ["time", "omit", "matrix"])]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) bytes: Option<u64>,
    /// A fixed number of messages instead of a time, as iperf3 -k: each TCP throughput case stops once its streams sent N messages of --msg in all (per direction), N x --msg bytes; replaces --time and --omit
    #[arg(long, value_name = "N", value_parser = blocks, conflicts_with_all = ["time", "omit", "bytes", "matrix"])]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) blocks: Option<u64>,
    /// Path length to the server for the latency rows' floor: twice the distance at the
    /// speed of light in fibre (c / 1.468) is added to the link's serialisation (#48)
    #[arg(long, value_name = "LENGTH", value_parser = super::latency::distance)]
    #[serde(skip_serializing_if = "Option::is_none", rename = "distance_m")]
    pub(crate) distance: Option<f64>,
    /// All pairs of hosts of a cluster launch (mpirun/srun; see docs/fleet.md): a host x host matrix of TCP throughput and latency
    #[arg(long)]
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
            window: None,
            congestion: None,
            mss: None,
            omit: None,
            bytes: None,
            blocks: None,
            distance: None,
            matrix: false,
        }
    }
}

/// `peakbench serve`: its flags, typed where clap reads them, and the validated options
/// (serialised into the report's `config`): one struct. [`parse_serve`] reads the
/// token.
#[derive(Debug, Clone, Args, Serialize)]
pub(crate) struct ServeOptions {
    /// Address and port to listen on [default: 127.0.0.1:5211; other addresses only when asked]
    #[arg(
        long,
        value_name = "ADDR:PORT",
        default_value_t = SocketAddr::from(([127, 0, 0, 1], DEFAULT_PORT)),
        hide_default_value = true,
        value_parser = bind
    )]
    pub(crate) bind: SocketAddr,
    /// Require clients to prove this pre-shared token; or set $PEAKBENCH_TOKEN
    #[arg(long, value_name = "SECRET")]
    #[serde(serialize_with = "redact", rename = "token_given")]
    pub(crate) token: Option<String>,
    /// Exit after the first test session
    #[arg(long)]
    pub(crate) once: bool,
    /// Most stream-buffer memory the tests may hold, per test and in all [default: a quarter of MemAvailable, 64 MiB to 1 GiB]
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
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

/// `--server HOST[:PORT]`: kept as given once it resolves.
fn server(text: &str) -> Result<String, ParseError> {
    resolve(text, DEFAULT_PORT).map_err(ParseError)?;
    Ok(text.to_string())
}

/// `--bind ADDR:PORT`.
fn bind(text: &str) -> Result<SocketAddr, ParseError> {
    resolve(text, DEFAULT_PORT).map_err(ParseError)
}

/// `--proto`: tcp, udp.
fn protos(text: &str) -> Result<List<Proto>, ParseError> {
    parse_list(text, |s| match s.to_ascii_lowercase().as_str() {
        "tcp" => Ok(Proto::Tcp),
        "udp" => Ok(Proto::Udp),
        _ => Err(ParseError(format!(
            "unknown protocol '{s}'; accepted: tcp,udp"
        ))),
    })
}

/// `--test`: throughput, latency.
fn tests(text: &str) -> Result<List<TestKind>, ParseError> {
    parse_list(text, |s| match s.to_ascii_lowercase().as_str() {
        "throughput" => Ok(TestKind::Throughput),
        "latency" => Ok(TestKind::Latency),
        _ => Err(ParseError(format!(
            "unknown test '{s}'; accepted: throughput,latency"
        ))),
    })
}

/// `--msg`: sizes up to 16 MiB (UDP's limit is checked with `--proto` by `parse_net`).
fn msgs(text: &str) -> Result<List<u32>, ParseError> {
    parse_list(text, |s| {
        let n = parse_size(s)?;
        if n > u64::from(MAX_TCP_MSG) {
            return Err(ParseError(format!(
                "'{s}' is too large; messages go up to 16MiB (UDP datagrams up to {MAX_UDP_MSG}B)"
            )));
        }
        Ok(n as u32)
    })
}

/// `--streams`: 1 to [`MAX_STREAMS`].
fn streams(text: &str) -> Result<List<u32>, ParseError> {
    parse_list(text, |s| match s.parse::<u32>() {
        Ok(n) if (1..=MAX_STREAMS).contains(&n) => Ok(n),
        _ => Err(ParseError(format!(
            "'{s}' is not a stream count; use whole numbers from 1 to {MAX_STREAMS}"
        ))),
    })
}

/// `--time`: 10 ms to 50 min.
fn time(text: &str) -> Result<Duration, ParseError> {
    let v = parse_duration(text)?;
    if v < Duration::from_millis(10) || v > Duration::from_secs(3000) {
        return Err(ParseError(format!(
            "'{text}' is out of range; use 10ms to 50m"
        )));
    }
    Ok(v)
}

fn omit_secs<S: Serializer>(d: &Option<Duration>, s: S) -> Result<S::Ok, S::Error> {
    match d {
        Some(d) => s.serialize_f64(d.as_secs_f64()),
        None => s.serialize_none(),
    }
}

/// `--window`: a size from 4 KiB to 1 GiB.
fn window(text: &str) -> Result<u32, ParseError> {
    use super::proto::{MAX_WINDOW, MIN_WINDOW};
    let n = parse_size(text)?;
    if !(u64::from(MIN_WINDOW)..=u64::from(MAX_WINDOW)).contains(&n) {
        return Err(ParseError(format!(
            "'{text}' is out of range; socket buffers go from 4KiB to 1GiB"
        )));
    }
    Ok(n as u32)
}

/// `--congestion`: one of the congestion controls this host lists.
fn congestion(text: &str) -> Result<String, ParseError> {
    use super::sockopt::{available_congestion, CONGESTION_LIST};
    let Some(list) = available_congestion() else {
        return Err(ParseError(format!(
            "cannot read {CONGESTION_LIST}: this host offers no choice of TCP congestion control; drop --congestion"
        )));
    };
    if list.iter().any(|c| c == text) {
        Ok(text.to_string())
    } else {
        Err(ParseError(format!(
            "'{}' is not available here; accepted: {} (from {CONGESTION_LIST})",
            super::proto::clean(text),
            list.join(",")
        )))
    }
}

/// `--mss`: 88 to 9216 bytes.
fn mss(text: &str) -> Result<u32, ParseError> {
    use super::proto::{MAX_MSS, MIN_MSS};
    match text.trim().parse::<u32>() {
        Ok(n) if (MIN_MSS..=MAX_MSS).contains(&n) => Ok(n),
        _ => Err(ParseError(format!(
            "'{text}' is not an MSS; use whole bytes from {MIN_MSS} to {MAX_MSS}"
        ))),
    }
}

/// `--bytes`: 1 B to 1 TiB.
fn bytes(text: &str) -> Result<u64, ParseError> {
    let n = parse_size(text)?;
    if !(1..=MAX_TRANSFER).contains(&n) {
        return Err(ParseError(format!(
            "'{text}' is out of range; a transfer is 1B to 1TiB, e.g. 4GiB"
        )));
    }
    Ok(n)
}

/// The largest fixed transfer (`--bytes`, and `--blocks` times `--msg`): 1 TiB.
const MAX_TRANSFER: u64 = 1 << 40;

/// `--blocks`: a whole number of messages, 1 to 2^30 (the transfer they make with
/// `--msg` is checked by [`parse_net`]).
fn blocks(text: &str) -> Result<u64, ParseError> {
    match text.trim().parse::<u64>() {
        Ok(n) if (1..=MAX_BLOCKS).contains(&n) => Ok(n),
        _ => Err(ParseError(format!(
            "'{text}' is not a message count; use a whole number from 1 to {MAX_BLOCKS}, e.g. 65536"
        ))),
    }
}

/// The most messages `--blocks` takes: 2^30 (1 TiB of 1 KiB messages).
const MAX_BLOCKS: u64 = 1 << 30;

/// `--omit`: 0 to 60 s.
fn omit(text: &str) -> Result<Duration, ParseError> {
    // No warm-up at all is iperf3's -O 0.
    let v = crate::util::units::parse_duration_or_zero(text)?;
    if v > Duration::from_secs(60) {
        return Err(ParseError(format!(
            "'{text}' is out of range; use 0s to 60s"
        )));
    }
    Ok(v)
}

/// The checks that span `peakbench net` flags, and the token (`--token` or
/// $PEAKBENCH_TOKEN).
pub(crate) fn parse_net(a: &NetOptions) -> Result<NetOptions, UsageError> {
    if let Some(ms) = &a.msgs {
        if a.protos.contains(&Proto::Udp) {
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
    // `--bidir` with `--reverse` is refused by clap (`conflicts_with`).
    if a.rate_bps.is_some() && !a.protos.contains(&Proto::Udp) {
        return Err(UsageError::new("--rate", "paces UDP only; add --proto udp"));
    }
    if a.zerocopy && !a.protos.contains(&Proto::Tcp) {
        return Err(UsageError::new(
            "--zerocopy",
            "applies to TCP only; add --proto tcp",
        ));
    }
    for (given, flag) in [
        (a.congestion.is_some(), "--congestion"),
        (a.mss.is_some(), "--mss"),
    ] {
        if given && !a.protos.contains(&Proto::Tcp) {
            return Err(UsageError::new(
                flag,
                "applies to TCP only; add --proto tcp",
            ));
        }
    }
    for (given, flag) in [
        (a.bytes.is_some(), "--bytes"),
        (a.blocks.is_some(), "--blocks"),
    ] {
        // A fixed amount of data has no meaning for ping-pong, and UDP loses datagrams,
        // so the bytes moved would not be the bytes asked for.
        if given && a.protos.contains(&Proto::Udp) {
            return Err(UsageError::new(
                flag,
                "applies to TCP throughput only; add --proto tcp --test throughput",
            ));
        }
        if given && a.tests.contains(&TestKind::Latency) {
            return Err(UsageError::new(
                flag,
                "applies to throughput only, not latency; add --test throughput",
            ));
        }
    }
    if let Some(n) = a.blocks {
        // The transfer each message size makes: within --bytes' range.
        let msgs = a
            .msgs
            .clone()
            .unwrap_or_else(|| vec![default_msg(Proto::Tcp, TestKind::Throughput)]);
        if let Some(m) = msgs
            .iter()
            .find(|&&m| n.saturating_mul(u64::from(m)) > MAX_TRANSFER)
        {
            return Err(UsageError::new(
                "--blocks",
                format!(
                    "{n} messages of {m} B are more than 1TiB; use at most {} with this --msg",
                    MAX_TRANSFER / u64::from(*m)
                ),
            ));
        }
    }
    Ok(NetOptions {
        token: token(&a.token)?,
        ..a.clone()
    })
}

/// `peakbench serve`'s token (`--token` or $PEAKBENCH_TOKEN).
pub(crate) fn parse_serve(a: &ServeOptions) -> Result<ServeOptions, UsageError> {
    Ok(ServeOptions {
        token: token(&a.token)?,
        ..a.clone()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `--congestion` takes what the host lists, and names the list otherwise.
    #[test]
    fn congestion_controls_come_from_the_host() {
        let Some(list) = super::super::sockopt::available_congestion() else {
            return;
        };
        assert_eq!(congestion(&list[0]).unwrap(), list[0]);
        let e = congestion("nosuchcc").unwrap_err().0;
        assert_eq!(
            e,
            format!(
                "'nosuchcc' is not available here; accepted: {} (from /proc/sys/net/ipv4/tcp_available_congestion_control)",
                list.join(",")
            )
        );
    }

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

    /// Every flag's bad value is the one line it gave before the flags were typed.
    #[test]
    fn bad_values_give_their_line() {
        use crate::bench::flags::try_args;
        let net = |argv: &[&str]| parse_net(&try_args::<NetOptions>(argv)?);
        for (argv, line) in [
            (&["--server", "127.0.0.1:99999"][..], "--server: '127.0.0.1:99999' is not HOST[:PORT]; the port must be 1..65535, IPv6 as [::1]:PORT"),
            (&["--server", " "], "--server: empty address; use HOST[:PORT], e.g. 127.0.0.1:5211"),
            (&["--proto", "sctp"], "--proto: unknown protocol 'sctp'; accepted: tcp,udp"),
            (&["--test", "jitter"], "--test: unknown test 'jitter'; accepted: throughput,latency"),
            (&["--msg", "32MiB"], "--msg: '32MiB' is too large; messages go up to 16MiB (UDP datagrams up to 65507B)"),
            (&["--msg", "64KiB"], "--msg: 65536 B does not fit a UDP datagram; use at most 65507B with --proto udp"),
            (&["--streams", "0"], "--streams: '0' is not a stream count; use whole numbers from 1 to 128"),
            (&["--time", "1h"], "--time: '1h' is out of range; use 10ms to 50m"),
            (&["--time", "3"], "--time: '3' has no unit; give one of us, ms, s, m or h, e.g. 3ms or 3s"),
            (&["--rate", "fast"], "--rate: 'fast' is not a bit rate; use a number with k, M or G (bit/s), e.g. 500M or 2.5G"),
            (&["--rate", "1G", "--proto", "tcp"], "--rate: paces UDP only; add --proto udp"),
            (&["--zerocopy", "--proto", "udp"], "--zerocopy: applies to TCP only; add --proto tcp"),
            (&["--token", ""], "--token: a token is 1 to 1024 bytes (or set $PEAKBENCH_TOKEN)"),
            (&["--window", "1KiB"], "--window: '1KiB' is out of range; socket buffers go from 4KiB to 1GiB"),
            (&["--mss", "20"], "--mss: '20' is not an MSS; use whole bytes from 88 to 9216"),
            (&["--mss", "1000", "--proto", "udp"], "--mss: applies to TCP only; add --proto tcp"),
            (&["--congestion", "reno", "--proto", "udp"], "--congestion: applies to TCP only; add --proto tcp"),
            (&["--omit", "2m"], "--omit: '2m' is out of range; use 0s to 60s"),
            (&["--bytes", "0"], "--bytes: '0' is not a whole, non-zero number of bytes"),
            (&["--bytes", "2TiB"], "--bytes: '2TiB' is out of range; a transfer is 1B to 1TiB, e.g. 4GiB"),
            (&["--bytes", "lots"], "--bytes: 'lots' is not a size; use a number with B, KiB, MiB, GiB, TiB (or KB, MB, GB), e.g. 8KiB"),
            (&["--bytes", "8MiB", "--proto", "udp", "--test", "throughput"], "--bytes: applies to TCP throughput only; add --proto tcp --test throughput"),
            (&["--bytes", "8MiB", "--proto", "tcp"], "--bytes: applies to throughput only, not latency; add --test throughput"),
            (&["--bytes", "8MiB", "--proto", "tcp", "--test", "latency"], "--bytes: applies to throughput only, not latency; add --test throughput"),
            (&["--blocks", "0"], "--blocks: '0' is not a message count; use a whole number from 1 to 1073741824, e.g. 65536"),
            (&["--blocks", "64K"], "--blocks: '64K' is not a message count; use a whole number from 1 to 1073741824, e.g. 65536"),
            (&["--blocks", "64", "--proto", "udp", "--test", "throughput"], "--blocks: applies to TCP throughput only; add --proto tcp --test throughput"),
            (&["--blocks", "64", "--proto", "tcp"], "--blocks: applies to throughput only, not latency; add --test throughput"),
            (&["--blocks", "16777216", "--proto", "tcp", "--test", "throughput"], "--blocks: 16777216 messages of 131072 B are more than 1TiB; use at most 8388608 with this --msg"),
            (&["--blocks", "65537", "--msg", "1KiB,16MiB", "--proto", "tcp", "--test", "throughput"], "--blocks: 65537 messages of 16777216 B are more than 1TiB; use at most 65536 with this --msg"),
        ] {
            assert_eq!(net(argv).unwrap_err().0, line, "{argv:?}");
        }
        // No warm-up at all is a valid --omit (iperf3's -O 0); a zero without a unit is not.
        assert_eq!(net(&["--omit", "0s"]).unwrap().omit, Some(Duration::ZERO));
        assert_eq!(net(&["--omit", "0ms"]).unwrap().omit, Some(Duration::ZERO));
        assert!(net(&["--omit", "0"]).unwrap_err().0.contains("has no unit"));
        let serve = |argv: &[&str]| parse_serve(&try_args::<ServeOptions>(argv)?);
        for (argv, line) in [
            (&["--bind", "localhost:0x"][..], "--bind: 'localhost:0x' is not HOST[:PORT]; the port must be 1..65535, IPv6 as [::1]:PORT"),
            (&["--max-memory", "lots"], "--max-memory: 'lots' is not a size; use a number with B, KiB, MiB, GiB, TiB (or KB, MB, GB), e.g. 8KiB"),
        ] {
            assert_eq!(serve(argv).unwrap_err().0, line, "{argv:?}");
        }
    }
}
