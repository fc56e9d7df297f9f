//! The coordinator, run by rank 0 beside its own rank: it waits for every rank's hello
//! (the barrier, bounded by the join deadline), picks one runner per host (the lowest
//! rank of each host name), releases everyone at once, then gathers the suite's results
//! or drives the matrix round by round. Every step has a deadline; a rank that misses
//! one, or whose connection closes, is marked failed with the reason, its pending links
//! become failed results naming it, and the run goes on: a partial report, never a hang.

use super::wire::{self, Msg};
use crate::bench::net::proto::TestSpec;
use crate::bench::net::rounds;
use crate::report::model::{BenchResult, HostRun, Status};
use std::net::{TcpListener, TcpStream};
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

/// One rank as the coordinator sees it.
struct Rank {
    rank: usize,
    host: String,
    info: Option<crate::hw::HostInfo>,
    stream: Option<TcpStream>,
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
        match wire::send(s, m, STEP) {
            Ok(()) => true,
            Err(e) => {
                self.fail(what, &e, STEP);
                false
            }
        }
    }

    fn recv(&mut self, t: Duration, what: &str) -> Option<Msg> {
        let s = self.stream.as_mut()?;
        match wire::recv(s, t) {
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
    pub hosts: Vec<HostRun>,
    /// The results, each tagged with its host.
    pub results: Vec<BenchResult>,
}

/// Accepts hellos until `size` ranks joined or `join` passed.
fn join(listener: &TcpListener, size: usize, join: Duration) -> Vec<Rank> {
    let end = Instant::now() + join;
    let _ = listener.set_nonblocking(true);
    let mut ranks: Vec<Rank> = Vec::new();
    while ranks.len() < size && Instant::now() < end {
        match listener.accept() {
            Ok((mut s, _)) => {
                let _ = s.set_nonblocking(false);
                let _ = s.set_nodelay(true);
                if let Ok(Msg::Hello { rank, host, info }) = wire::recv(&mut s, STEP) {
                    if rank < size && !ranks.iter().any(|r| r.rank == rank) {
                        ranks.push(Rank {
                            rank,
                            host,
                            info: Some(*info),
                            stream: Some(s),
                            lost: None,
                        });
                    }
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                std::thread::sleep(Duration::from_millis(20))
            }
            Err(_) => std::thread::sleep(Duration::from_millis(20)),
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
                    "rank {r} did not join within {:.0} s (dead, or its host unreachable)",
                    join.as_secs_f64()
                )),
            });
        }
    }
    ranks.sort_by_key(|r| r.rank);
    ranks
}

/// Runs the coordinator on `listener` for `size` ranks.
pub(crate) fn run(
    listener: TcpListener,
    size: usize,
    join_deadline: Duration,
    work: &Work,
) -> Gathered {
    let mut ranks = join(&listener, size, join_deadline);
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
                    Some(Msg::Results { results: rs }) => results.extend(rs),
                    Some(other) => r.lost = Some(format!("rank {}: unexpected {other:?}", r.rank)),
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
                Some(Msg::Pair { results }) => out.extend(results),
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
