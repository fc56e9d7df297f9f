//! One link of `peakbench net --matrix`: the receiving host serves with peakbench's own
//! server, in-process, on its address (port 0, a fresh random token), and the sending
//! host runs TCP throughput (it sends) and TCP latency (ping-pong) against it with the
//! same client and engine as `peakbench net --server`. The results carry `from` and
//! `to` (host names) so that the matrix is rebuilt from them (`report::matrix`). The
//! cluster module (`crate::cluster`) schedules the links in rounds
//! ([`super::rounds`]) and carries addresses and tokens between the hosts.

use super::options::{default_msg, NetOptions};
use super::proto::{Direction, Proto, TestKind, TestSpec};
use super::{client, results, server, OMIT};
use crate::bench::resource::Context;
use crate::report::model::BenchResult;
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

/// The receiving end of a link, serving until [`Serving::stop`].
pub(crate) struct Serving {
    /// Where it listens.
    pub(crate) addr: SocketAddr,
    stop: Arc<AtomicBool>,
    handle: Option<JoinHandle<Result<(), String>>>,
}

impl Serving {
    /// Starts a server on `ip` (port 0) for the links of one round, requiring `token`
    /// (derived from the run's secret, never sent: `cluster::auth::link_token`).
    pub(crate) fn start(ip: IpAddr, ctx: &Context, token: Vec<u8>) -> Result<Serving, String> {
        let mut cfg = server::ServerConfig::new(
            serde_json::to_value(ctx.host).unwrap_or(serde_json::Value::Null),
            ctx.host.cpu.pin_order.clone(),
        );
        cfg.token = Some(token);
        cfg.log = false;
        let srv = server::Server::bind(SocketAddr::new(ip, 0), cfg)
            .map_err(|e| format!("cannot serve on {ip}: {e}"))?;
        let addr = srv.local_addr().map_err(|e| e.to_string())?;
        let stop = srv.stopper();
        let handle = std::thread::Builder::new()
            .name("matrix-server".into())
            .spawn(move || srv.serve())
            .map_err(|e| e.to_string())?;
        Ok(Serving {
            addr,
            stop,
            handle: Some(handle),
        })
    }

    /// Stops the server (within 100 ms) and waits for it.
    pub(crate) fn stop(mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

/// The two tests of a link: TCP throughput (the client sends) and TCP latency, each
/// `--time` long split into `--repeat` samples after the warm-up.
pub(crate) fn specs(o: &NetOptions, repeat: u32) -> Vec<TestSpec> {
    let intervals = repeat.max(1);
    let interval_ms = (o.time.as_millis() as u64 / u64::from(intervals)).max(1);
    [TestKind::Throughput, TestKind::Latency]
        .into_iter()
        .filter(|t| o.tests.contains(t))
        .map(|test| TestSpec {
            proto: Proto::Tcp,
            test,
            msg: default_msg(Proto::Tcp, test),
            streams: 1,
            direction: Direction::Up,
            omit_ms: OMIT.as_millis() as u64,
            interval_ms,
            intervals,
            rate_bps: None,
            zerocopy: false,
            window: None,
            congestion: None,
            mss: None,
            bytes: None,
        })
        .collect()
}

/// Runs the link `from` → `to` against `addr` (whose server must prove `token`), one
/// result per spec, each tagged with `from` and `to`; a test that fails is a failed
/// result naming the link.
pub(crate) fn measure(
    addr: SocketAddr,
    token: &[u8],
    from: &str,
    to: &str,
    specs: &[TestSpec],
    ctx: &Context,
) -> Vec<BenchResult> {
    let cpus = ctx.host.cpu.pin_order.clone();
    specs
        .iter()
        .map(|spec| {
            let base = results::base(spec)
                .param("from", from)
                .param("to", to)
                .param("server", addr.to_string());
            let r = results::with_one_retry(|| {
                match client::run(addr, Some(token), spec, &cpus, client::Timeouts::default()) {
                    Ok(o) => results::build(base.clone(), spec, o, ctx),
                    Err(e) => base
                        .clone()
                        .failed(format!("link {from} -> {to}: {}", e.message)),
                }
            });
            let mut r = r;
            r.host = Some(from.to_string());
            r
        })
        .collect()
}

/// The longest one link may take: both tests, their warm-ups, and the client's own
/// deadlines (handshake, idle) with room to spare.
pub(crate) fn link_deadline(specs: &[TestSpec]) -> std::time::Duration {
    let t: std::time::Duration = specs.iter().map(|s| s.total()).sum();
    t * 2 + std::time::Duration::from_secs(30)
}

/// The failed result of a link that could not be measured (`why` names the host lost).
pub(crate) fn failed(spec: &TestSpec, from: &str, to: &str, why: &str) -> BenchResult {
    let mut r = results::base(spec)
        .param("from", from)
        .param("to", to)
        .failed(why);
    r.host = Some(from.to_string());
    r
}
