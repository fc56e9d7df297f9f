//! `cpu --c2c`: core-to-core latency (issue #47 item 3). One cache line is bounced
//! between two pinned threads by compare-and-swap: the first thread swaps the line's
//! counter from 2k to 2k+1 and waits for 2k+2, the second waits for 2k+1 and swaps it to
//! 2k+2. Each round trip moves the line to the other core and back, so its time is the
//! cost of two transfers of a modified line between the two CPUs: what a lock or a
//! queue handed between them costs. Every ordered pair of the CPUs this process may use
//! is measured (the line starts in the first CPU's cache, so a→b and b→a can differ).
//!
//! Per pair: a warm-up, then [`SAMPLES`] samples of [`ROUNDS`] round trips each; a
//! sample's figure is its time over its round trips (seconds per round trip), and the
//! row's `min` and `p50` are the pair's best and typical figure. Tools that print a
//! one-way latency (core-to-core-latency and its 24-29 ns figures inside an EPYC CCX)
//! show half the round trip. The summary groups the pairs by what the two CPUs share
//! (`hw::topology`: SMT siblings, one L3, one socket, two sockets).

use crate::bench::resource::{Case, Context};
use crate::hw::topology::{self, Relation};
use crate::measure::runner::pin_current_thread;
use crate::report::model::{BenchResult, Metric, ResourceName, Unit};
use std::hint::spin_loop;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Barrier;
use std::time::Instant;

/// Samples per pair (after one warm-up sample).
pub(crate) const SAMPLES: usize = 50;
/// Round trips per sample.
pub(crate) const ROUNDS: u64 = 200;

/// The bounced line, alone in its 128 bytes (two 64-byte lines: the adjacent-line
/// prefetcher of Intel cores pulls pairs), so no other data shares its traffic.
#[repr(align(128))]
struct Line(AtomicU64);

/// What one ping-pong between two threads did.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PingPong {
    /// Seconds per round trip, one per timed sample.
    pub(crate) round_trip_s: Vec<f64>,
    /// Successful swaps by the first thread and by the second.
    pub(crate) swaps: (u64, u64),
    /// Swaps that found another value than the protocol expects (0 unless broken).
    pub(crate) failed: u64,
    /// The counter's value at the end (2 × all round trips, warm-up included).
    pub(crate) last: u64,
    /// Whether both threads were pinned where asked.
    pub(crate) pinned: bool,
    /// Whether the pair stopped at its time budget before all its samples.
    pub(crate) cut: bool,
}

/// Seconds after which a pair stops at the end of its current sample: on a machine
/// busier than its CPUs (the other thread not running), a round trip costs a time
/// slice, and the pair keeps the samples it has.
pub(crate) const PAIR_BUDGET_S: f64 = 2.0;

/// The value the first thread writes instead of the next turn to end the ping-pong.
const STOP: u64 = u64::MAX;

/// Spins until the line holds `want` (or [`STOP`]), yielding the CPU now and then so
/// that on an oversubscribed machine the other thread gets to run; returns the value.
#[inline(always)]
fn wait_for(line: &AtomicU64, want: u64) -> u64 {
    let mut spins = 0u32;
    loop {
        let v = line.load(Ordering::Acquire);
        if v == want || v == STOP {
            return v;
        }
        spins += 1;
        if spins.is_multiple_of(1 << 16) {
            std::thread::yield_now();
        } else {
            spin_loop();
        }
    }
}

/// Waits for the line to hold `want`, then swaps it to `want + 1`: `Some(true)` when
/// the swap succeeded, `Some(false)` when it found something else (the protocol broke:
/// no other writer may exist), `None` when the other thread ended the ping-pong.
#[inline(always)]
fn take_turn(line: &AtomicU64, want: u64) -> Option<bool> {
    if wait_for(line, want) == STOP {
        return None;
    }
    Some(
        line.compare_exchange(want, want + 1, Ordering::AcqRel, Ordering::Acquire)
            .is_ok(),
    )
}

/// Bounces one line between a thread on CPU `a` and one on CPU `b` (each `None`:
/// unpinned, for tests): one warm-up and `samples` timed samples of `rounds` round
/// trips, timed by the first thread, ending after the sample that passes `budget_s`.
pub(crate) fn ping_pong(
    a: Option<usize>,
    b: Option<usize>,
    samples: usize,
    rounds: u64,
    budget_s: f64,
) -> PingPong {
    let line = Line(AtomicU64::new(0));
    let line = &line.0;
    let total = (samples as u64 + 1) * rounds;
    let go = Barrier::new(2);
    let go = &go;
    let (first, second) = std::thread::scope(|s| {
        let second = s.spawn(move || {
            let pinned = b.is_none_or(pin_current_thread);
            go.wait();
            let (mut ok, mut bad) = (0u64, 0u64);
            for k in 0..total {
                match take_turn(line, 2 * k + 1) {
                    Some(true) => ok += 1,
                    Some(false) => bad += 1,
                    None => break,
                }
            }
            (ok, bad, pinned)
        });
        let first = s.spawn(move || {
            let pinned = a.is_none_or(pin_current_thread);
            go.wait();
            let (mut ok, mut bad) = (0u64, 0u64);
            let mut times = Vec::with_capacity(samples);
            let mut k = 0u64;
            let start = Instant::now();
            for sample in 0..=samples {
                let t0 = Instant::now();
                for _ in 0..rounds {
                    if take_turn(line, 2 * k) == Some(true) {
                        ok += 1;
                    } else {
                        bad += 1;
                    }
                    // The round trip ends when the other thread's swap is seen.
                    wait_for(line, 2 * k + 2);
                    k += 1;
                }
                let dt = t0.elapsed().as_secs_f64();
                // Sample 0 is the warm-up: both threads awake, the line in play.
                if sample > 0 {
                    times.push(dt / rounds as f64);
                }
                if k < total && start.elapsed().as_secs_f64() > budget_s {
                    // The other thread waits for 2k+1: tell it to stop instead.
                    line.store(STOP, Ordering::Release);
                    break;
                }
            }
            (times, ok, bad, pinned, k)
        });
        (
            first.join().expect("ping thread"),
            second.join().expect("pong thread"),
        )
    });
    let (times, ok_a, bad_a, pin_a, k) = first;
    let (ok_b, bad_b, pin_b) = second;
    let last = line.load(Ordering::Acquire);
    PingPong {
        round_trip_s: times,
        swaps: (ok_a, ok_b),
        failed: bad_a + bad_b,
        // Stopped early: the count the line held before the stop.
        last: if last == STOP { 2 * k } else { last },
        pinned: pin_a && pin_b,
        cut: k < total,
    }
}

/// The median of `v` (`NaN` for none).
fn median(v: &[f64]) -> f64 {
    let mut s: Vec<f64> = v.iter().copied().filter(|x| x.is_finite()).collect();
    if s.is_empty() {
        return f64::NAN;
    }
    s.sort_by(f64::total_cmp);
    let m = s.len() / 2;
    if s.len() % 2 == 1 {
        s[m]
    } else {
        (s[m - 1] + s[m]) / 2.0
    }
}

/// One pair's figures for the summary: its relation, best and median round trip.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct PairFigure {
    /// What the two CPUs share.
    pub(crate) relation: Relation,
    /// The pair's best sample, seconds per round trip.
    pub(crate) min: f64,
    /// The pair's median sample.
    pub(crate) median: f64,
}

/// The summary: per relation present, the pairs, the best pair's minimum and the
/// median of the pairs' medians (`smt-sibling: 8 pairs, min 41.0 ns, median 44.2 ns`).
pub(crate) fn summary(pairs: &[PairFigure]) -> String {
    let ns = |s: f64| crate::util::units::format_si(s, "s");
    let mut parts = Vec::new();
    for rel in Relation::ALL {
        let of: Vec<&PairFigure> = pairs.iter().filter(|p| p.relation == rel).collect();
        if of.is_empty() {
            continue;
        }
        let min = of.iter().map(|p| p.min).fold(f64::INFINITY, f64::min);
        let med = median(&of.iter().map(|p| p.median).collect::<Vec<_>>());
        parts.push(format!(
            "{}: {} pair{}, min {}, median {}",
            rel.name(),
            of.len(),
            if of.len() == 1 { "" } else { "s" },
            ns(min),
            ns(med)
        ));
    }
    format!("core-to-core round trip by relation: {}", parts.join("; "))
}

/// The c2c case: every ordered pair of `cpus`.
pub(crate) struct C2cCase {
    /// The CPUs this process may run on (`--cpus` confines them).
    pub(crate) cpus: Vec<usize>,
}

impl C2cCase {
    /// The ordered pairs, in row order.
    fn pairs(&self) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        for &a in &self.cpus {
            for &b in &self.cpus {
                if a != b {
                    out.push((a, b));
                }
            }
        }
        out
    }
}

/// The row of one pair from its ping-pong.
fn row(a: usize, b: usize, rel: Relation, pp: &PingPong) -> BenchResult {
    let mut r = BenchResult::new(ResourceName::Cpu, "c2c", Metric::Latency, Unit::Second)
        .param("from", a)
        .param("to", b)
        .param("relation", rel.name());
    if pp.failed > 0 {
        return r.failed(format!(
            "{} compare-and-swap of the ping-pong found an unexpected value",
            pp.failed
        ));
    }
    if !pp.pinned {
        r.warn(format!(
            "the OS refused to pin the threads to CPUs {a} and {b}: the pair is whatever CPUs they ran on"
        ));
    }
    if pp.cut {
        r.warn(format!(
            "{} of {SAMPLES} samples within the pair's {PAIR_BUDGET_S} s: the machine was busier than its CPUs (a round trip waited for the other thread to be scheduled)",
            pp.round_trip_s.len()
        ));
    }
    let mut r = r.with_samples(pp.round_trip_s.clone());
    r.percentiles = crate::measure::stats::percentiles(&pp.round_trip_s);
    r
}

impl Case for C2cCase {
    fn label(&self) -> String {
        format!(
            "cpu c2c ({} CPUs, {} ordered pairs)",
            self.cpus.len(),
            self.pairs().len()
        )
    }

    fn run(&self, _ctx: &Context) -> Vec<BenchResult> {
        if self.cpus.len() < 2 {
            return vec![
                BenchResult::new(ResourceName::Cpu, "c2c", Metric::Latency, Unit::Second).skipped(
                    format!(
                        "core-to-core latency needs two CPUs; this process may use {}",
                        self.cpus.len()
                    ),
                ),
            ];
        }
        let topo = topology::detect();
        let mut rows = Vec::new();
        let mut figures = Vec::new();
        for (a, b) in self.pairs() {
            let rel = topology::relation(topo.as_ref(), a, b);
            let pp = ping_pong(Some(a), Some(b), SAMPLES, ROUNDS, PAIR_BUDGET_S);
            let r = row(a, b, rel, &pp);
            if let Some(s) = &r.summary {
                figures.push(PairFigure {
                    relation: rel,
                    min: s.min,
                    median: s.median,
                });
            }
            rows.push(r);
        }
        if let Some(last) = rows.last_mut() {
            last.info(format!(
                "{} ({SAMPLES} samples of {ROUNDS} round trips per pair; one-way latency is half)",
                summary(&figures)
            ));
        }
        rows
    }

    fn estimate(&self, _opts: &crate::bench::common::CommonOptions) -> std::time::Duration {
        // About 1 µs per round trip on a slow machine, plus the threads' start.
        let per_pair = (SAMPLES as u64 + 1) * ROUNDS;
        std::time::Duration::from_micros(self.pairs().len() as u64 * (per_pair + 200))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ping_pong_takes_turns_and_counts_every_round_trip() {
        // Unpinned: correct on any machine, one CPU included (slow, but it ends).
        let pp = ping_pong(None, None, 5, 100, 1e9);
        let rounds = 6 * 100;
        assert_eq!(pp.failed, 0);
        assert_eq!(pp.swaps, (rounds, rounds));
        assert_eq!(pp.last, 2 * rounds);
        assert_eq!(pp.round_trip_s.len(), 5);
        assert!(!pp.cut);
        assert!(pp.round_trip_s.iter().all(|t| *t > 0.0 && t.is_finite()));
    }

    #[test]
    fn a_spent_budget_stops_both_threads_after_whole_samples() {
        // A budget of 0: the warm-up only, then the stop.
        let pp = ping_pong(None, None, 5, 100, 0.0);
        assert_eq!(pp.failed, 0);
        assert!(pp.cut);
        assert_eq!(pp.round_trip_s.len(), 0);
        // The warm-up's 100 round trips, each thread's swaps counted.
        assert_eq!(pp.swaps, (100, 100));
        assert_eq!(pp.last, 200);
    }

    #[test]
    fn the_summary_groups_by_relation_nearest_first() {
        let f = |relation, min: f64, median: f64| PairFigure {
            relation,
            min: min * 1e-9,
            median: median * 1e-9,
        };
        let s = summary(&[
            f(Relation::OtherSocket, 200.0, 220.0),
            f(Relation::SmtSibling, 20.0, 25.0),
            f(Relation::SmtSibling, 22.0, 27.0),
            f(Relation::SameL3, 60.0, 70.0),
        ]);
        assert_eq!(
            s,
            "core-to-core round trip by relation: smt-sibling: 2 pairs, min 20.00 ns, median 26.00 ns; \
             same-l3: 1 pair, min 60.00 ns, median 70.00 ns; other-socket: 1 pair, min 200.0 ns, median 220.0 ns"
        );
    }

    #[test]
    fn one_cpu_is_a_skipped_row_and_pairs_are_ordered() {
        let c = C2cCase {
            cpus: vec![0, 1, 3],
        };
        assert_eq!(
            c.pairs(),
            vec![(0, 1), (0, 3), (1, 0), (1, 3), (3, 0), (3, 1)]
        );
        let one = C2cCase { cpus: vec![0] };
        assert_eq!(one.pairs(), Vec::new());
    }

    #[test]
    fn a_broken_protocol_fails_the_row() {
        let pp = PingPong {
            round_trip_s: vec![1e-7],
            swaps: (1, 0),
            failed: 1,
            last: 1,
            pinned: true,
            cut: false,
        };
        let r = row(0, 1, Relation::SameL3, &pp);
        assert!(!r.is_ok());
    }
}
