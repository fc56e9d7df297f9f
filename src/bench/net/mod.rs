//! `peakbench net` and `peakbench serve`: TCP and UDP throughput and round-trip
//! latency, on loopback (an in-process server) or against `peakbench serve` elsewhere.
//!
//! Layout: `proto.rs` (control protocol, frames, authentication), `server.rs` and
//! `client.rs` (the two ends of the control conversation), `attach.rs` (the server's
//! attaching of data streams), `engine.rs` (the data side,
//! identical at both ends, with the `Transport` seam), `tcp.rs` / `udp.rs` (per-stream
//! loops and their `Transport` impls), `options.rs`.
//!
//! Measurement:
//! - one test per case, continuous: a 0.5 s warm-up that is not counted (TCP slow
//!   start, caches, frequency), then `--repeat` intervals of `--time / --repeat`; each
//!   interval is one sample;
//! - throughput is counted at the receiver (payload bytes, as iperf3); the sender's
//!   view is kept next to it; TCP byte totals of both ends must agree exactly;
//! - latency is the round trip of an N-byte ping-pong (RTT, not RTT/2 as sockperf
//!   prints); each sample is the mean RTT of one interval, percentiles come from an
//!   HDR histogram of every round trip after the warm-up;
//! - one thread per stream, pinned, on both ends; CPU time per stream thread.

pub(crate) mod attach;
mod budget;
pub mod client;
pub mod engine;
pub(crate) mod latency;
pub(crate) mod matrix;
pub mod options;
pub mod proto;
pub(crate) mod results;
pub(crate) mod rounds;
pub mod server;
pub(crate) mod sockopt;
pub(crate) mod tcp;
pub(crate) mod transfer;
pub mod udp;

use super::peaks::{PeakKey, PeakKind};
use super::resource::{self, Case, CommonFlag, Context, Plan, Resource, Run, UsageError};
use crate::report::model::BenchResult;
use options::{default_msg, NetOptions};
use proto::{Direction, Proto, TestKind, TestSpec, DEFAULT_PORT};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The longest a fixed transfer (`--bytes`, `--blocks`) may take: the longest `--time`.
const BYTES_CAP: Duration = Duration::from_secs(3000);

/// Warm-up at the start of every test, not counted.
pub(crate) const OMIT: Duration = proto::DEFAULT_OMIT;

/// The network resource.
pub(crate) struct NetBench;

/// Where the server is.
#[derive(Debug, Clone)]
enum Target {
    /// Started in-process on loopback for each case.
    InProcess,
    /// `--server`.
    Remote(SocketAddr),
}

/// The plan of one `net` run, shared by its cases: where the server is, and the
/// session state that outlives a case.
struct Session {
    target: Target,
    token: Option<String>,
    /// Set by the first case that cannot reach or authenticate with the server, so
    /// the others are skipped instead of failing the same way one by one.
    fatal: Mutex<Option<String>>,
    /// The run's control connection to `--server` (unused in-process).
    conn: Mutex<Option<Conn>>,
    /// `--distance`, metres: the latency rows' floor adds its propagation (#48).
    distance_m: Option<f64>,
}

/// One test (protocol, kind, message size, streams, direction): one result.
struct NetCase {
    spec: TestSpec,
    session: Arc<Session>,
    /// `--blocks`: the messages of `spec.msg` bytes that make its fixed transfer
    /// (`spec.bytes`; the server sees only those bytes), recorded on the row.
    blocks: Option<u64>,
    /// Why this case cannot run (it is reported `skipped`, the others still run).
    unsupported: Option<String>,
}

/// Why a test cannot run at all, or `None`: UDP throughput datagrams carry a 16-byte
/// sequence and time header, from which loss and jitter are counted.
fn unsupported(proto: Proto, test: TestKind, msg: u32) -> Option<String> {
    (proto == Proto::Udp && test == TestKind::Throughput && msg < proto::MIN_UDP_MSG).then(|| {
        format!(
            "UDP throughput datagrams carry a {}-byte sequence and time header (loss and jitter are counted from it), so {msg} B datagrams cannot be measured; use --msg 16B or more, or --test latency (any size from 1 B)",
            proto::MIN_UDP_MSG
        )
    })
}

fn size_label(b: u32) -> String {
    crate::util::units::format_size_exact(u64::from(b)).replace(' ', "")
}

impl Case for NetCase {
    fn label(&self) -> String {
        let s = &self.spec;
        let dir = match (s.test, s.direction) {
            (TestKind::Latency, _) => "",
            (_, Direction::Up) => " up",
            (_, Direction::Down) => " reverse",
            (_, Direction::Bidir) => " bidir",
        };
        format!(
            "net {} {} msg={} streams={}{dir}",
            s.proto.name(),
            s.test.name(),
            size_label(s.msg),
            s.streams
        )
    }

    fn run(&self, ctx: &Context) -> Vec<BenchResult> {
        let r = match &self.unsupported {
            Some(why) => results::base(&self.spec).skipped(why.clone()),
            None => self.session.run(&self.spec, ctx),
        };
        vec![match self.blocks {
            Some(n) => r.param("blocks", n),
            None => r,
        }]
    }

    /// The test's warm-up and timed intervals.
    fn estimate(&self, _opts: &crate::bench::common::CommonOptions) -> std::time::Duration {
        match self.unsupported {
            Some(_) => std::time::Duration::ZERO,
            None => self.spec.total(),
        }
    }
}

impl Session {
    /// Runs one test of the session to its result, once more if a window stalled.
    fn run(&self, spec: &TestSpec, ctx: &Context) -> BenchResult {
        results::with_one_retry(|| self.run_once(spec, ctx))
    }

    /// One try of [`Session::run`].
    fn run_once(&self, spec: &TestSpec, ctx: &Context) -> BenchResult {
        let mut base = results::base(spec);
        // `--cpus`: stream i on cpus[i % n] at this end (and at the in-process server's).
        if let Some(c) = &ctx.opts.cpus {
            let list: Vec<String> = c.iter().map(usize::to_string).collect();
            base = base.param("cpus", list.join(","));
        }
        if let Some(why) = self.fatal.lock().ok().and_then(|f| f.clone()) {
            return base.skipped(format!("not run: {why}"));
        }
        let cpus = ctx
            .opts
            .cpus
            .clone()
            .unwrap_or_else(|| ctx.host.cpu.pin_order.clone());
        let timeouts = client::Timeouts::default();
        let outcome = match &self.target {
            Target::Remote(addr) => self
                .remote(*addr, spec, &cpus, timeouts)
                .map(|o| (o, addr.to_string())),
            Target::InProcess => in_process(ctx, spec, &cpus, timeouts)
                .map(|o| (o, "in-process on 127.0.0.1".to_string())),
        };
        match outcome {
            Ok((o, server)) => {
                let local = o.local_addr.ip();
                let r = results::build(base.param("server", server), spec, o, ctx);
                latency::attach(r, spec, local, self.distance_m, &ctx.opts.peaks)
            }
            Err(e) => {
                if e.fatal {
                    if let Ok(mut f) = self.fatal.lock() {
                        *f = Some(e.message.clone());
                    }
                }
                base.failed(e.message)
            }
        }
    }

    /// Runs the test on the run's control connection to `--server`, opening it first
    /// if needed: every case of one `peakbench net` run is one session on the server
    /// (so `serve --once` serves a whole run). After a failed test the connection is
    /// dropped, and the next case opens a new one.
    fn remote(
        &self,
        addr: SocketAddr,
        spec: &TestSpec,
        cpus: &[usize],
        t: client::Timeouts,
    ) -> Result<client::Outcome, client::ClientError> {
        let mut slot = self.conn.lock().unwrap_or_else(|p| p.into_inner());
        let (mut ctrl, host, local_addr) = match slot.take() {
            Some(c) => c,
            None => {
                let (ctrl, host) =
                    client::connect(addr, self.token.as_deref().map(str::as_bytes), t)?;
                let local = ctrl
                    .get_ref()
                    .local_addr()
                    .map_err(|e| client::ClientError {
                        message: e.to_string(),
                        fatal: true,
                    })?;
                (ctrl, host, local)
            }
        };
        let (local, remote) = client::run_test(&mut ctrl, addr, spec, cpus, t)?;
        *slot = Some((ctrl, host.clone(), local_addr));
        Ok(client::Outcome {
            local,
            remote,
            remote_host: host,
            local_addr,
        })
    }
}

/// The run's open control connection to `--server`, with the server's HostInfo and
/// the connection's local address.
type Conn = (
    proto::Control<std::net::TcpStream>,
    serde_json::Value,
    SocketAddr,
);

/// Runs one test against a server started for it on 127.0.0.1 (a random token, so no
/// other local process can take the session).
fn in_process(
    ctx: &Context,
    spec: &TestSpec,
    cpus: &[usize],
    t: client::Timeouts,
) -> Result<client::Outcome, client::ClientError> {
    let err = |m: String| client::ClientError {
        message: m,
        fatal: true,
    };
    let token = proto::random_bytes(32).map_err(|e| err(e.to_string()))?;
    let mut cfg = server::ServerConfig::new(
        serde_json::to_value(ctx.host).unwrap_or(serde_json::Value::Null),
        cpus.to_vec(),
    );
    cfg.token = Some(token.clone());
    cfg.once = true;
    cfg.log = false;
    let srv = server::Server::bind(SocketAddr::from(([127, 0, 0, 1], 0)), cfg)
        .map_err(|e| err(format!("cannot start the in-process server: {e}")))?;
    let addr = srv
        .local_addr()
        .map_err(|e| err(format!("in-process server: {e}")))?;
    let stop = srv.stopper();
    let handle = std::thread::Builder::new()
        .name("net-server".into())
        .spawn(move || srv.serve())
        .map_err(|e| err(format!("cannot start the in-process server: {e}")))?;
    let r = client::run(addr, Some(&token), spec, cpus, t);
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let server_result = handle.join().unwrap_or(Ok(()));
    match (r, server_result) {
        (Ok(o), _) => Ok(o),
        // The server's side of the story is usually the more precise one.
        (Err(e), Err(s)) => Err(client::ClientError {
            message: format!("{}; server: {s}", e.message),
            fatal: e.fatal,
        }),
        (Err(e), Ok(())) => Err(e),
    }
}

fn target(o: &NetOptions) -> Result<Target, UsageError> {
    match &o.server {
        None => Ok(Target::InProcess),
        Some(s) => options::resolve(s, DEFAULT_PORT)
            .map(Target::Remote)
            .map_err(|e| UsageError::new("--server", e)),
    }
}

/// The cases of a `net` invocation: every protocol × test × message size × streams.
fn cases(o: &NetOptions, repeat: u32) -> Result<Vec<Box<dyn Case>>, UsageError> {
    let session = Arc::new(Session {
        target: target(o)?,
        token: o.token.clone(),
        fatal: Mutex::new(None),
        conn: Mutex::new(None),
        distance_m: o.distance,
    });
    let mut out: Vec<Box<dyn Case>> = Vec::new();
    for spec in specs(o, repeat) {
        let unsupported = unsupported(spec.proto, spec.test, spec.msg);
        if unsupported.is_none() {
            spec.validate()
                .map_err(|e| UsageError::new("--msg/--streams/--time", e))?;
        }
        out.push(Box::new(NetCase {
            spec,
            session: session.clone(),
            blocks: o.blocks,
            unsupported,
        }));
    }
    Ok(out)
}

/// The test of each case of [`cases`], in its order.
fn specs(o: &NetOptions, repeat: u32) -> Vec<TestSpec> {
    let direction = if o.bidir {
        Direction::Bidir
    } else if o.reverse {
        Direction::Down
    } else {
        Direction::Up
    };
    // A fixed transfer (`--bytes`, `--blocks`) is one sample from the first byte to the
    // last, with no warm-up, under a cap of --time's longest (50 min) should it never
    // finish.
    let (intervals, interval_ms, omit_ms) = if o.bytes.is_some() || o.blocks.is_some() {
        (1, BYTES_CAP.as_millis() as u64, 0)
    } else {
        let intervals = repeat.max(1);
        let interval_ms = (o.time.as_millis() as u64 / u64::from(intervals)).max(1);
        (
            intervals,
            interval_ms,
            o.omit.unwrap_or(OMIT).as_millis() as u64,
        )
    };
    let mut out = Vec::new();
    for &proto in &o.protos {
        for &test in &o.tests {
            let msgs = o
                .msgs
                .clone()
                .unwrap_or_else(|| vec![default_msg(proto, test)]);
            for &msg in &msgs {
                for &streams in &o.streams {
                    out.push(TestSpec {
                        proto,
                        test,
                        msg,
                        streams,
                        direction: if test == TestKind::Latency {
                            Direction::Up
                        } else {
                            direction
                        },
                        omit_ms,
                        interval_ms,
                        intervals,
                        rate_bps: if proto == Proto::Udp {
                            o.rate_bps
                        } else {
                            None
                        },
                        zerocopy: o.zerocopy && proto == Proto::Tcp && test == TestKind::Throughput,
                        window: o.window,
                        congestion: o.congestion.clone().filter(|_| proto == Proto::Tcp),
                        mss: o.mss.filter(|_| proto == Proto::Tcp),
                        // `--blocks` N: N messages of `msg` bytes, as iperf3 -k with -l.
                        bytes: o.bytes.or_else(|| o.blocks.map(|n| n * u64::from(msg))),
                    });
                }
            }
        }
    }
    out
}

impl Plan for NetBench {
    type Options = NetOptions;

    fn refuses(&self, _o: &NetOptions, flag: CommonFlag) -> Option<&'static str> {
        match flag {
            CommonFlag::Weak => Some("net streams each send for --time with no shared problem to divide; drop --weak and set --streams"),
            CommonFlag::UntilStable => Some("net tests run for --time, with no per-sample check of the threads; drop --until-stable and set --repeat"),
            // Stream i runs on cpus[i % n] at both ends (at this end against --server).
            CommonFlag::Cpus => None,
        }
    }

    fn hints<'a>(&self, o: &'a NetOptions) -> resource::Hints<'a> {
        resource::Hints {
            remote: o.server.is_some(),
            ..Default::default()
        }
    }

    fn plan(&self, o: &NetOptions, ctx: &Context) -> Result<Vec<Box<dyn Case>>, UsageError> {
        cases(o, ctx.opts.repeat)
    }
}

impl Resource for NetBench {
    fn name(&self) -> &'static str {
        "net"
    }

    fn about(&self) -> &'static str {
        "TCP/UDP throughput and ping-pong latency (loopback, or against `peakbench serve`)"
    }

    fn never_takes(&self) -> &'static [CommonFlag] {
        &[CommonFlag::Weak, CommonFlag::UntilStable]
    }

    fn aliases(&self) -> &'static [resource::Alias] {
        use resource::alias;
        const MSG: &str = "the size of each message";
        const ALIASES: &[resource::Alias] = &[
            alias("--threads", "--streams", "parallel connections"),
            alias("--jobs", "--streams", "parallel connections"),
            alias("--block", "--msg", MSG),
            alias("--size", "--msg", MSG),
            alias("--runtime", "--time", "how long each case sends"),
        ];
        ALIASES
    }

    fn command(&self) -> clap::Command {
        resource::subcommand::<options::NetOptions>(self)
    }

    fn parse(&self, m: &clap::ArgMatches) -> Result<Box<dyn Run>, UsageError> {
        resource::parse_with(&NetBench, m, options::parse_net)
    }

    fn peak_keys(&self) -> &'static str {
        "net"
    }

    fn peak_key(&self, _key: &str, rest: &[&str]) -> Result<Option<(PeakKey, PeakKind)>, String> {
        Ok(rest
            .is_empty()
            .then(|| (results::peak_key(), PeakKind::Link)))
    }

    fn quick(&self, ctx: &Context) -> Vec<Box<dyn Case>> {
        // TCP and UDP throughput and TCP latency on loopback, 3 s each after the
        // warm-up: about 11 s.
        let mut all = Vec::new();
        for (proto, test) in [
            (Proto::Tcp, TestKind::Throughput),
            (Proto::Udp, TestKind::Throughput),
            (Proto::Tcp, TestKind::Latency),
        ] {
            let o = NetOptions {
                protos: vec![proto],
                tests: vec![test],
                ..NetOptions::default()
            };
            if let Ok(c) = cases(&o, ctx.opts.repeat.min(3)) {
                all.extend(c);
            }
        }
        all
    }
}

#[cfg(test)]
mod stall_tests;
#[cfg(test)]
pub(crate) mod test_support;

#[cfg(test)]
mod tests {
    use super::*;

    /// `--blocks N` makes each case a fixed transfer of N messages of its size (what
    /// the server is told: bytes), one sample with no warm-up; without it, timed cases.
    #[test]
    fn blocks_are_a_fixed_transfer_of_their_messages() {
        let o = NetOptions {
            protos: vec![Proto::Tcp],
            tests: vec![TestKind::Throughput],
            msgs: Some(vec![1024, 128 * 1024]),
            streams: vec![1, 3],
            blocks: Some(7),
            ..NetOptions::default()
        };
        let got: Vec<(u32, u32, Option<u64>, u32, u64)> = specs(&o, 5)
            .iter()
            .map(|s| (s.msg, s.streams, s.bytes, s.intervals, s.omit_ms))
            .collect();
        assert_eq!(
            got,
            [
                (1024, 1, Some(7 * 1024), 1, 0),
                (1024, 3, Some(7 * 1024), 1, 0),
                (128 << 10, 1, Some(7 << 17), 1, 0),
                (128 << 10, 3, Some(7 << 17), 1, 0),
            ]
        );
        assert!(specs(&o, 5).iter().all(|s| s.validate().is_ok()));
        assert_eq!(cases(&o, 5).unwrap().len(), 4);
        let timed = specs(&NetOptions { blocks: None, ..o }, 5);
        assert!(timed.iter().all(|s| s.bytes.is_none() && s.intervals == 5));
    }
}
