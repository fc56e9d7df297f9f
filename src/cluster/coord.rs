//! The coordinator, run by rank 0 beside its own rank: it waits for every rank's hello
//! (the barrier, bounded by the join deadline), picks one runner per host (the lowest
//! rank of each host name), releases everyone at once, then gathers the suite's results
//! or drives the matrix round by round. Every step has a deadline; a rank that misses
//! one, or whose connection closes, is marked failed with the reason, its pending links
//! become failed results naming it, and the run goes on: a partial report, never a hang.

use super::auth::{self, Secret};
use super::wire::{self, Conn, Msg};
use crate::bench::net::proto::TestSpec;
use crate::bench::net::rounds;
use crate::report::model::{BenchResult, HostRun, Status};
use std::net::{SocketAddr, TcpListener};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

/// What the ranks do after the barrier.
#[derive(Debug, Clone)]
pub(crate) enum Work {
    /// Each host's runner runs the suite; results within `deadline`.
    Suite {
        /// Longest wait for a host's results after the barrier.
        deadline: Duration,
    },
    /// All ordered pairs of hosts, in rounds.
    Matrix {
        /// The tests of each link.
        specs: Vec<TestSpec>,
    },
}

/// Deadline of one short step (a hello, serving, stopping).
const STEP: Duration = Duration::from_secs(15);
/// Deadline for a new connection to answer the challenge: short, since such a peer has
/// proven nothing yet.
pub(crate) const PREAUTH: Duration = Duration::from_secs(5);
/// Most handshakes in progress at once; connections beyond are closed at once (and
/// logged), so a flood cannot exhaust threads or memory (each holds at most
/// [`wire::MAX_PREAUTH`] bytes of frame).
pub(crate) const MAX_PENDING: usize = 64;
/// Refused connections logged one by one; the rest are counted in one closing line.
const LOG_REFUSED: usize = 20;

/// One rank as the coordinator sees it.
struct Rank {
    rank: usize,
    host: String,
    info: Option<crate::hw::HostInfo>,
    stream: Option<Conn>,
    /// Why it was lost, once it was.
    lost: Option<String>,
}

impl Rank {
    fn fail(&mut self, what: &str, e: &std::io::Error, t: Duration) {
        if self.lost.is_none() {
            self.lost = Some(format!(
                "rank {} ({}): {what}: {}",
                self.rank,
                self.host,
                wire::why(e, t)
            ));
        }
        self.stream = None;
    }

    fn send(&mut self, m: &Msg, what: &str) -> bool {
        let Some(s) = self.stream.as_mut() else {
            return false;
        };
        match s.send(m, STEP) {
            Ok(()) => true,
            Err(e) => {
                self.fail(what, &e, STEP);
                false
            }
        }
    }

    fn recv(&mut self, t: Duration, what: &str) -> Option<Msg> {
        let s = self.stream.as_mut()?;
        match s.recv(t) {
            Ok(m) => Some(m),
            Err(e) => {
                self.fail(what, &e, t);
                None
            }
        }
    }
}

/// The gathered outcome: one entry per host (and one per rank that never joined), and
/// every result.
pub(crate) struct Gathered {
    /// The hosts, in order of their first rank.
    pub(crate) hosts: Vec<HostRun>,
    /// The results, each tagged with its host.
    pub(crate) results: Vec<BenchResult>,
    /// Why the launch was refused as a whole (every rank names one host): a usage
    /// error, no report.
    pub(crate) refused: Option<String>,
}

/// Log of refused connections: sanitised, the first [`LOG_REFUSED`] in full.
#[derive(Default)]
struct RefusedLog {
    shown: usize,
    more: usize,
}

impl RefusedLog {
    fn line(&mut self, peer: SocketAddr, why: &str) {
        if self.shown < LOG_REFUSED {
            self.shown += 1;
            eprintln!(
                "peakbench cluster: refused a connection from {peer}: {}",
                crate::util::sanitize::line_max(why, 200)
            );
        } else {
            self.more += 1;
        }
    }
}

impl Drop for RefusedLog {
    fn drop(&mut self) {
        if self.more > 0 {
            eprintln!(
                "peakbench cluster: {} more refused connections not shown",
                self.more
            );
        }
    }
}

/// A handshake's outcome, sent back from its thread.
type Handshake = (
    SocketAddr,
    Conn,
    Result<(usize, String, crate::hw::HostInfo), String>,
);

/// Accepts ranks until `size` of them proved the secret and said hello, or `join`
/// passed. Each connection's handshake runs on its own thread (at most
/// [`MAX_PENDING`] at once) under the [`PREAUTH`] deadline, so a silent or slow peer
/// delays nobody; a refused peer takes no rank's place.
fn join(listener: &TcpListener, size: usize, join: Duration, secret: &Secret) -> Vec<Rank> {
    let end = Instant::now() + join;
    let _ = listener.set_nonblocking(true);
    let mut ranks: Vec<Rank> = Vec::new();
    let mut log = RefusedLog::default();
    let pending = Arc::new(AtomicUsize::new(0));
    let (tx, rx) = mpsc::channel::<Handshake>();
    while ranks.len() < size && Instant::now() < end {
        let mut idle = true;
        if let Ok((s, peer)) = listener.accept() {
            idle = false;
            if pending.load(Ordering::Acquire) >= MAX_PENDING {
                log.line(
                    peer,
                    &format!("{MAX_PENDING} handshakes already in progress"),
                );
            } else {
                let _ = s.set_nonblocking(false);
                pending.fetch_add(1, Ordering::AcqRel);
                let (tx, secret, pending) = (tx.clone(), secret.clone(), pending.clone());
                std::thread::spawn(move || {
                    let mut c = Conn::new(s);
                    let r = auth::accept(&mut c, &secret, size, PREAUTH, STEP);
                    pending.fetch_sub(1, Ordering::AcqRel);
                    let _ = tx.send((peer, c, r));
                });
            }
        }
        while let Ok((peer, mut c, r)) = rx.try_recv() {
            idle = false;
            match r {
                Err(why) => log.line(peer, &why),
                Ok((rank, _, _)) if ranks.iter().any(|x| x.rank == rank) => {
                    let why = format!("rank {rank} has already joined");
                    let _ = c.send(
                        &Msg::Refused {
                            reason: why.clone(),
                        },
                        STEP,
                    );
                    log.line(peer, &why);
                }
                Ok((rank, host, info)) => ranks.push(Rank {
                    rank,
                    // Trimmed here too, whatever the rank sent: `a` and `a ` are
                    // one host (one runner), never two.
                    host: crate::util::sanitize::line_max(host.trim(), 64),
                    info: Some(info),
                    stream: Some(c),
                    lost: None,
                }),
            }
        }
        if idle {
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    for r in 0..size {
        if !ranks.iter().any(|x| x.rank == r) {
            ranks.push(Rank {
                rank: r,
                host: format!("rank{r}"),
                info: None,
                stream: None,
                lost: Some(format!(
                    "rank {r} did not join within {:.0} s (dead, its host unreachable, or refused: see the lines above)",
                    join.as_secs_f64()
                )),
            });
        }
    }
    ranks.sort_by_key(|r| r.rank);
    ranks
}

/// A result from `host`'s rank: tagged with that host whatever it says, and refused
/// (a failed result with the reason, no figure) when a value is outside physics.
fn admit(mut r: BenchResult, host: &str) -> BenchResult {
    r.host = Some(host.to_string());
    match crate::report::physics::check_result(&r) {
        Ok(()) => r,
        Err(e) => {
            let why = format!("refused from host {host}: {e}");
            eprintln!(
                "peakbench cluster: {}",
                crate::util::sanitize::line_max(&why, 300)
            );
            crate::report::physics::refused(&r, &why)
        }
    }
}

/// Why a launch whose joined ranks name fewer than two hosts is refused, if it is.
fn one_host(ranks: &[Rank], matrix: bool) -> Option<String> {
    if ranks.iter().any(|r| r.info.is_none()) {
        // A rank that did not join is a failure of its own, reported as such.
        return None;
    }
    let first = &ranks.first()?.host;
    if ranks.iter().any(|r| &r.host != first) || (ranks.len() < 2 && !matrix) {
        return None;
    }
    let n = ranks.len();
    Some(if matrix && n < 2 {
        "net --matrix needs at least 2 hosts, and this launch has 1 rank; launch one rank per host"
            .to_string()
    } else {
        format!(
            "all {n} ranks of this launch name one host ('{first}'), so there is nothing to gather{}: launch one rank per host, or on one machine give each rank its own $PEAKBENCH_HOST_ID (e.g. PEAKBENCH_HOST_ID=h$OMPI_COMM_WORLD_RANK) and $PEAKBENCH_BIND",
            if matrix { " and no pair of hosts to measure" } else { " across hosts" }
        )
    })
}

/// Runs the coordinator on `listener` for `size` ranks.
pub(crate) fn run(
    listener: TcpListener,
    size: usize,
    join_deadline: Duration,
    secret: &Secret,
    work: &Work,
) -> Gathered {
    let mut ranks = join(&listener, size, join_deadline, secret);
    drop(listener);
    if let Some(why) = one_host(&ranks, matches!(work, Work::Matrix { .. })) {
        for r in ranks.iter_mut() {
            r.send(
                &Msg::Refused {
                    reason: why.clone(),
                },
                "refusing",
            );
        }
        return Gathered {
            hosts: Vec::new(),
            results: Vec::new(),
            refused: Some(why),
        };
    }
    // One runner per host: the lowest rank that joined under each name.
    let mut hosts: Vec<(String, Vec<usize>)> = Vec::new();
    for r in &ranks {
        if r.info.is_none() {
            continue;
        }
        match hosts.iter_mut().find(|h| h.0 == r.host) {
            Some(h) => h.1.push(r.rank),
            None => hosts.push((r.host.clone(), vec![r.rank])),
        }
    }
    // The barrier's release: every rank that joined is told at once.
    for r in ranks.iter_mut() {
        let runner = hosts.iter().any(|h| h.1[0] == r.rank);
        r.send(&Msg::Go { runner }, "go");
    }
    let runners: Vec<usize> = hosts.iter().map(|h| h.1[0]).collect();
    let mut results = Vec::new();
    match work {
        Work::Suite { deadline } => {
            let end = Instant::now() + *deadline;
            for r in ranks.iter_mut() {
                let left = end.saturating_duration_since(Instant::now());
                match r.recv(left, "waiting for its results") {
                    Some(Msg::Results { results: rs }) if !rs.is_empty() && !runners.contains(&r.rank) => {
                        r.lost = Some(format!(
                            "rank {}: sent {} results although it is not its host's runner (refused)",
                            r.rank,
                            rs.len()
                        ))
                    }
                    Some(Msg::Results { results: rs }) => {
                        results.extend(rs.into_iter().map(|x| admit(x, &r.host)))
                    }
                    Some(other) => {
                        r.lost = Some(format!("rank {}: unexpected {}", r.rank, other.kind()))
                    }
                    None => {}
                }
            }
        }
        Work::Matrix { specs } => {
            results = matrix(&mut ranks, &runners, specs);
        }
    }
    for r in ranks.iter_mut() {
        r.send(&Msg::Bye {}, "bye");
    }
    let mut out: Vec<HostRun> = hosts
        .iter()
        .map(|(name, rs)| {
            let runner = &ranks[rs[0]];
            HostRun {
                name: name.clone(),
                ranks: rs.clone(),
                info: runner.info.clone(),
                status: match &runner.lost {
                    None => Status::Ok,
                    Some(e) => Status::Failed { error: e.clone() },
                },
            }
        })
        .collect();
    // Ranks that never joined have no host name: each is listed as its own entry.
    for r in ranks.iter().filter(|r| r.info.is_none()) {
        out.push(HostRun {
            name: r.host.clone(),
            ranks: vec![r.rank],
            info: None,
            status: Status::Failed {
                error: r.lost.clone().unwrap_or_default(),
            },
        });
    }
    Gathered {
        hosts: out,
        results,
        refused: None,
    }
}

/// Failed results for a link that could not be measured.
fn not_measured(specs: &[TestSpec], from: &str, to: &str, why: &str) -> Vec<BenchResult> {
    specs
        .iter()
        .map(|s| crate::bench::net::matrix::failed(s, from, to, why))
        .collect()
}

/// Drives every ordered pair of `runners` in round-robin rounds.
fn matrix(ranks: &mut [Rank], runners: &[usize], specs: &[TestSpec]) -> Vec<BenchResult> {
    let deadline = crate::bench::net::matrix::link_deadline(specs);
    let mut out = Vec::new();
    for round in rounds::rounds(runners.len()) {
        // Links of the round: (sender rank, receiver rank), served first, then measured
        // at once, then collected, then the servers stopped.
        let links: Vec<(usize, usize)> = round
            .iter()
            .map(|&(a, b)| (runners[a], runners[b]))
            .collect();
        let mut served: Vec<Option<(String, String)>> = Vec::new();
        for &(_, to) in &links {
            let r = &mut ranks[to];
            let ok = r.send(&Msg::Serve {}, "serve");
            served.push(
                match ok.then(|| r.recv(STEP, "starting its server")).flatten() {
                    Some(Msg::Serving { addr, token }) => Some((addr, token)),
                    _ => None,
                },
            );
        }
        let mut asked = Vec::new();
        for (&(from, to), s) in links.iter().zip(&served) {
            let (fh, th) = (ranks[from].host.clone(), ranks[to].host.clone());
            let sent = match s {
                Some((addr, token)) => ranks[from].send(
                    &Msg::Measure {
                        addr: addr.clone(),
                        token: token.clone(),
                        from: fh.clone(),
                        to: th.clone(),
                    },
                    "measure",
                ),
                None => false,
            };
            asked.push(sent);
        }
        for (&(from, to), sent) in links.iter().zip(asked) {
            let (fh, th) = (ranks[from].host.clone(), ranks[to].host.clone());
            let got = if sent {
                ranks[from].recv(deadline, "measuring a link")
            } else {
                None
            };
            match got {
                Some(Msg::Pair { results }) if results.len() <= specs.len() => {
                    out.extend(results.into_iter().map(|mut x| {
                        // The link is the one the coordinator asked for, whatever it says.
                        x.params.insert("from".into(), fh.as_str().into());
                        x.params.insert("to".into(), th.as_str().into());
                        admit(x, &fh)
                    }))
                }
                _ => {
                    let why = ranks[from]
                        .lost
                        .clone()
                        .or_else(|| ranks[to].lost.clone())
                        .unwrap_or_else(|| "not measured".into());
                    out.extend(not_measured(
                        specs,
                        &fh,
                        &th,
                        &format!("not measured: {why}"),
                    ));
                }
            }
        }
        for &(_, to) in &links {
            let r = &mut ranks[to];
            if r.send(&Msg::Stop {}, "stop") {
                let _ = r.recv(STEP, "stopping its server");
            }
        }
    }
    out
}
