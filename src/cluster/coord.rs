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
use std::net::{IpAddr, Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
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
/// Most handshakes of peers that have not proven the secret yet, at once; a newcomer
/// beyond closes the oldest of them (logged), so a flood cannot exhaust threads or
/// memory (each holds at most [`wire::MAX_PREAUTH`] bytes of frame) nor lock a rank
/// out: the newest connection always gets its round trip, and a rank whose connection
/// was closed tries again until the join deadline.
pub(crate) const MAX_PENDING: usize = 64;
/// Most such handshakes from one address; a newcomer beyond closes the oldest of its
/// own address, so a flood from one address leaves the other 56 slots to the rest.
pub(crate) const MAX_PENDING_PER_ADDR: usize = 8;
/// The pre-auth deadline under pressure (more than half of [`MAX_PENDING`] in use):
/// a peer that has not proven the secret within this is closed (a rank needs one
/// round trip).
pub(crate) const PREAUTH_PRESSED: Duration = Duration::from_secs(1);
/// Refused connections logged one by one; the rest are counted in one closing line.
const LOG_REFUSED: usize = 20;

/// One rank as the coordinator sees it.
struct Rank {
    rank: usize,
    host: String,
    info: Option<crate::hw::HostInfo>,
    /// The address its connection came from: its host, as the network says.
    peer: Option<SocketAddr>,
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
        self.say(&format!("refused a connection from {peer}"), why);
    }

    /// A connection rank 0 closed before the peer proved the secret.
    fn closed(&mut self, peer: SocketAddr, why: &str) {
        self.say(
            &format!("rank 0 closed the connection from {peer} before it proved the secret"),
            why,
        );
    }

    fn say(&mut self, what: &str, why: &str) {
        if self.shown < LOG_REFUSED {
            self.shown += 1;
            eprintln!(
                "peakbench cluster: {what}: {}",
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

/// A handshake's outcome, sent back from its thread with its id.
type Handshake = (
    u64,
    SocketAddr,
    Conn,
    Result<(usize, String, crate::hw::HostInfo), String>,
);

/// A handshake in progress, as the accepting loop sees it.
struct Pending {
    id: u64,
    peer: SocketAddr,
    since: Instant,
    /// The same socket as the handshake thread's, to close it from here.
    sock: TcpStream,
    /// Set by the thread once the peer proved the secret: never closed from here then.
    proven: Arc<AtomicBool>,
}

impl Pending {
    fn unproven(&self) -> bool {
        !self.proven.load(Ordering::Acquire)
    }
}

/// Closes the oldest unproven handshake among those `pick` selects, logging why.
fn close_oldest(
    pending: &mut Vec<Pending>,
    log: &mut RefusedLog,
    pick: impl Fn(&Pending) -> bool,
    why: &str,
) {
    let oldest = pending
        .iter()
        .enumerate()
        .filter(|(_, p)| p.unproven() && pick(p))
        .min_by_key(|(_, p)| p.since)
        .map(|(i, _)| i);
    if let Some(i) = oldest {
        let p = pending.swap_remove(i);
        let _ = p.sock.shutdown(Shutdown::Both);
        log.closed(p.peer, why);
    }
}

/// Makes room for a new connection from `ip` (see [`MAX_PENDING_PER_ADDR`],
/// [`MAX_PENDING`], [`PREAUTH_PRESSED`]).
fn make_room(pending: &mut Vec<Pending>, ip: Option<IpAddr>, log: &mut RefusedLog) {
    let now = Instant::now();
    let unproven = pending.iter().filter(|p| p.unproven()).count();
    if unproven > MAX_PENDING / 2 {
        let stale: Vec<u64> = pending
            .iter()
            .filter(|p| p.unproven() && now.duration_since(p.since) > PREAUTH_PRESSED)
            .map(|p| p.id)
            .collect();
        for id in stale {
            close_oldest(
                pending,
                log,
                |p| p.id == id,
                &format!(
                    "no proof within {:.0} s while more than {} handshakes were in progress",
                    PREAUTH_PRESSED.as_secs_f64(),
                    MAX_PENDING / 2
                ),
            );
        }
    }
    let Some(ip) = ip else {
        return;
    };
    let same = pending
        .iter()
        .filter(|p| p.unproven() && p.peer.ip() == ip)
        .count();
    if same >= MAX_PENDING_PER_ADDR {
        close_oldest(
            pending,
            log,
            |p| p.peer.ip() == ip,
            &format!("{MAX_PENDING_PER_ADDR} handshakes from {ip} in progress: its oldest makes room for its newest"),
        );
    } else if pending.iter().filter(|p| p.unproven()).count() >= MAX_PENDING {
        close_oldest(
            pending,
            log,
            |_| true,
            &format!("{MAX_PENDING} handshakes in progress: the oldest makes room for the newest"),
        );
    }
}

/// Accepts ranks until `size` of them proved the secret and said hello, or `join`
/// passed. Each connection's handshake runs on its own thread under the [`PREAUTH`]
/// deadline, so a silent or slow peer delays nobody; at most [`MAX_PENDING`] peers that
/// have not proven the secret are kept ([`MAX_PENDING_PER_ADDR`] per address), the
/// oldest closed to make room for a newcomer, so a burst of silent connections cannot
/// lock a rank out (it retries until the join deadline); a refused peer takes no
/// rank's place. Everything the ranks send after their handshakes draws from `budget`.
fn join(
    listener: &TcpListener,
    size: usize,
    join: Duration,
    secret: &Secret,
    budget: &wire::Budget,
) -> Vec<Rank> {
    let end = Instant::now() + join;
    let _ = listener.set_nonblocking(true);
    let mut ranks: Vec<Rank> = Vec::new();
    let mut log = RefusedLog::default();
    let mut pending: Vec<Pending> = Vec::new();
    let mut next = 0u64;
    let (tx, rx) = mpsc::channel::<Handshake>();
    while ranks.len() < size && Instant::now() < end {
        let mut idle = true;
        if let Ok((s, peer)) = listener.accept() {
            idle = false;
            make_room(&mut pending, Some(peer.ip()), &mut log);
            let _ = s.set_nonblocking(false);
            match s.try_clone() {
                Ok(sock) => {
                    let proven = Arc::new(AtomicBool::new(false));
                    next += 1;
                    pending.push(Pending {
                        id: next,
                        peer,
                        since: Instant::now(),
                        sock,
                        proven: proven.clone(),
                    });
                    let (tx, secret, budget, id) =
                        (tx.clone(), secret.clone(), budget.clone(), next);
                    std::thread::spawn(move || {
                        let mut c = Conn::new(s);
                        c.share(&budget);
                        let r = auth::accept(&mut c, &secret, size, PREAUTH, STEP, &proven);
                        let _ = tx.send((id, peer, c, r));
                    });
                }
                Err(e) => log.line(peer, &format!("cannot keep the connection: {e}")),
            }
        } else {
            make_room(&mut pending, None, &mut log);
        }
        while let Ok((id, peer, mut c, r)) = rx.try_recv() {
            idle = false;
            let known = match pending.iter().position(|p| p.id == id) {
                Some(i) => {
                    pending.swap_remove(i);
                    true
                }
                // Closed from here (and logged then).
                None => false,
            };
            match r {
                Err(_) if !known => {}
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
                    peer: Some(peer),
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
                peer: None,
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
    // Kept to identify the case if it is refused.
    let id = crate::report::physics::refused(&r, "");
    match crate::report::physics::on_receipt(r) {
        Ok(r) => r,
        Err(e) => {
            let why = format!("refused from host {host}: {e}");
            eprintln!(
                "peakbench cluster: {}",
                crate::util::sanitize::line_max(&why, 300)
            );
            crate::report::physics::refused(&id, &why)
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
    let budget = wire::Budget::default();
    let mut ranks = join(&listener, size, join_deadline, secret, &budget);
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

/// The serving address `addr` a rank sent, if the coordinator may hand it to another
/// rank: a literal `ip:port` on the address the rank's own connection came from
/// (`peer`), so an authenticated rank cannot send the others to any other host (#33
/// item 11). `Err` names the rank and what it sent.
fn relayable(
    addr: &str,
    peer: Option<SocketAddr>,
    rank: usize,
    host: &str,
) -> Result<String, String> {
    let shown = crate::util::sanitize::line_max(addr, 80);
    let a: SocketAddr = addr.parse().map_err(|_| {
        format!(
            "rank {rank} ({host}) named a serving address '{shown}' that is not ip:port (refused)"
        )
    })?;
    match peer {
        Some(p) if p.ip() == a.ip() && a.port() != 0 => Ok(a.to_string()),
        Some(p) => Err(format!(
            "rank {rank} ({host}) named the serving address {a}, not on the address {} it connected from (refused: the coordinator relays only a rank's own host)",
            p.ip()
        )),
        None => Err(format!("rank {rank} ({host}) has no connection")),
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
        // Each link is named by a fresh nonce; both ends derive its token from it and
        // the run's secret. A serving address is relayed only when it is on the host
        // the serving rank connected from.
        let mut served: Vec<Result<(String, String), String>> = Vec::new();
        for &(_, to) in &links {
            let link = match crate::util::proof::random_bytes(32) {
                Ok(b) => crate::util::proof::hex(&b),
                Err(e) => {
                    served.push(Err(format!("no random source: {e}")));
                    continue;
                }
            };
            let r = &mut ranks[to];
            let ok = r.send(&Msg::Serve { link: link.clone() }, "serve");
            served.push(
                match ok.then(|| r.recv(STEP, "starting its server")).flatten() {
                    Some(Msg::Serving { addr }) => {
                        relayable(&addr, r.peer, r.rank, &r.host).map(|a| (a, link))
                    }
                    Some(other) => Err(format!(
                        "rank {} ({}): expected serving, got {}",
                        r.rank,
                        r.host,
                        other.kind()
                    )),
                    None => Err(String::new()),
                },
            );
        }
        let mut asked = Vec::new();
        for (&(from, to), s) in links.iter().zip(&served) {
            let (fh, th) = (ranks[from].host.clone(), ranks[to].host.clone());
            let sent = match s {
                Ok((addr, link)) => ranks[from].send(
                    &Msg::Measure {
                        addr: addr.clone(),
                        link: link.clone(),
                        from: fh.clone(),
                        to: th.clone(),
                    },
                    "measure",
                ),
                Err(why) => {
                    if !why.is_empty() {
                        eprintln!(
                            "peakbench cluster: {}",
                            crate::util::sanitize::line_max(why, 300)
                        );
                    }
                    false
                }
            };
            asked.push(sent);
        }
        for ((&(from, to), sent), s) in links.iter().zip(asked).zip(&served) {
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
                        .or_else(|| s.as_ref().err().filter(|w| !w.is_empty()).cloned())
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_an_address_on_the_serving_ranks_own_host_is_relayed() {
        let peer: SocketAddr = "10.0.0.5:41000".parse().unwrap();
        assert_eq!(
            relayable("10.0.0.5:5300", Some(peer), 1, "h1"),
            Ok("10.0.0.5:5300".into())
        );
        for (addr, want) in [
            ("10.0.0.6:5300", "not on the address 10.0.0.5"),
            ("127.0.0.1:22", "not on the address 10.0.0.5"),
            ("10.0.0.5:0", "not on the address"),
            ("example.org:80", "not ip:port"),
            ("10.0.0.5", "not ip:port"),
        ] {
            let e = relayable(addr, Some(peer), 1, "h1").unwrap_err();
            assert!(
                e.contains(want) && e.starts_with("rank 1 (h1)"),
                "{addr}: {e}"
            );
        }
    }

    /// #33 item 2: a burst of silent connections from one address cannot hold more
    /// than its share of the slots, and the newest connection always gets one.
    #[test]
    fn silent_connections_make_room_oldest_first() {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let a = l.local_addr().unwrap();
        let mut keep = Vec::new();
        let mut pending = Vec::new();
        let mut log = RefusedLog::default();
        for i in 0..(MAX_PENDING_PER_ADDR + 3) {
            keep.push(TcpStream::connect(a).unwrap());
            let (s, peer) = l.accept().unwrap();
            make_room(&mut pending, Some(peer.ip()), &mut log);
            pending.push(Pending {
                id: i as u64,
                peer,
                since: Instant::now(),
                sock: s,
                proven: Arc::new(AtomicBool::new(false)),
            });
        }
        // Per address: the three oldest were closed, the newest kept.
        assert_eq!(pending.len(), MAX_PENDING_PER_ADDR);
        let mut ids: Vec<u64> = pending.iter().map(|p| p.id).collect();
        ids.sort_unstable();
        assert_eq!(
            ids,
            (3..(MAX_PENDING_PER_ADDR as u64 + 3)).collect::<Vec<_>>()
        );
        // A closed one reads end-of-file at once.
        use std::io::Read;
        keep[0]
            .set_read_timeout(Some(Duration::from_secs(5)))
            .unwrap();
        assert_eq!(keep[0].read(&mut [0u8; 8]).unwrap(), 0);
        // A proven handshake is never closed.
        for p in &pending {
            p.proven.store(true, Ordering::Release);
        }
        let ip = pending[0].peer.ip();
        make_room(&mut pending, Some(ip), &mut log);
        assert_eq!(pending.len(), MAX_PENDING_PER_ADDR);
        assert_eq!(log.shown, 3);
    }
}
