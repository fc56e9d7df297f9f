//! Probe of one core's execution resources, independent of the microarchitecture
//! table: how many instructions of each class (FMA, mul+add, the F16C step, vpmulld,
//! vpmullq, dot products, AVX512-FP16 FMA, AMX tile multiplies) the core retires per
//! cycle, as a whole number of units (or a known fraction: 1/16 for AMX, 2/3 for
//! vpmullq, 1/2 for the F16C step on Intel's port 5), never as a fraction of a measured
//! rate. A peak built from it stays a peak.
//!
//! Method (issue #31: a figure that a disturbed moment can never lower):
//! - The loop (`probe_x86.rs`; on aarch64 `probe_arm.rs`: NEON FMLA and SDOT, each
//!   kind of core of a big.LITTLE machine apart, nothing under emulation) runs one
//!   instruction class on enough independent accumulators that only the number of units
//!   bounds it.
//! - One *reading* = a warm-up run of the loop (it settles the frequency licence), a
//!   clock reading with the clock chain of `hw::clock` (dependent `add reg, reg`, one
//!   per cycle, so adds ÷ seconds = Hz) about 0.6 ms long — the plain chain for
//!   128-bit tests, and for 256/512-bit and AMX tests the same chain with one FMA of
//!   that width after every add, so the clock is read in the licence dense vector code
//!   of that width runs in (see `hw::clock`) — and the loop timed for about 0.6 ms:
//!   instructions per second ÷ Hz. The reading *kept its core* when the thread's CPU
//!   time covered its wall time (`measure::share::MIN_SHARE`, the samples' own check).
//! - Readings are taken in [`ROUNDS`] rounds spread over at least [`SPREAD_SECS`], each
//!   round one reading of every test on each of the first [`PROBE_CPUS`] CPUs a run
//!   pins to, so a moment of contention spoils a few readings, never all.
//! - [`settle`], the decision rule, the same on every architecture: a disturbance (a
//!   task on the core, an SMT sibling or the host, which the guest cannot see) only
//!   ever lowers a throughput, so readings that lost their core are left out and the
//!   figure is the *highest consistent* reading (corroborated by another within
//!   [`CONSISTENT`]), snapped to an allowed count; whether every reading snapped to it
//!   is recorded (`consistent`). A probe figure below the table lowers it only when
//!   its readings agree and the table holds that count for the class on another row
//!   (`hw::rates::reconcile_with`); otherwise the table stands and says why.
//! - Where the instruction order changes how close a core comes to its pipes (mul+add
//!   on Zen 3), two orders are timed in the same rounds and the faster counts.
//! - 512-bit FMA units: on Intel the second 512-bit FMA unit sits on port 5, the only
//!   port for 512-bit shuffles. The FMA loop is timed again with one independent
//!   shuffle per FMA: with two units it takes twice as long (port 5 now shuffles), with
//!   one it takes the same time (the shuffles run beside the single unit). That ratio
//!   needs no clock at all; [`decide_fma512`] requires it to agree with the pure loop
//!   on Intel, and only reports it elsewhere (AMD's pipes are laid out differently).
//!
//! A test runs only when the CPU (and OS) has its instructions; AMX also needs
//! Linux's tile-data permission (`hw::cpu::request_amx_permission`). One round takes
//! about 2 ms per test and CPU; with the spreading the probe takes 0.5–0.6 s on an
//! AVX2 guest with two CPUs, about 1.5 s with every test on four.
//! The result is measured once per process ([`probe`]).
//!
//! The parts: this file runs the probe (pins a thread, takes the readings, settles each
//! test); `probe_class.rs` holds the tests and their unit counts, `probe_settle.rs` the
//! decision rule, `probe_report.rs` the report, `probe_x86.rs` and `probe_arm.rs` the
//! loops, `probe_tests.rs` the unit tests.
//!
//! [`settle`]: super::probe_settle::settle
//! [`CONSISTENT`]: super::probe_settle::CONSISTENT
//! [`decide_fma512`]: super::probe_settle::decide_fma512

use super::cpu::CpuInfo;
pub(crate) use super::probe_class::{tests_here, Test};
pub(crate) use super::probe_report::{KindProbe, ProbeEntry, ProbeError, ProbeReport};
pub(crate) use super::probe_settle::{settle_fma512, settle_test, Reading};
use super::uarch::Width;
use std::sync::OnceLock;

/// A unit count the probe settled on: instructions per cycle per core (a whole number
/// or a known fraction) and what was measured, e.g. `probe: 2 FMA/cycle at ymm
/// (measured 1.97, 1.99)`. The same type the peaks' rates take (`hw::rates`).
pub(crate) use super::rates::Probed;

/// Runs the probe once per process (first caller's CPU) and returns it.
pub(crate) fn probe(cpu: &CpuInfo) -> &'static ProbeReport {
    static REPORT: OnceLock<ProbeReport> = OnceLock::new();
    REPORT.get_or_init(|| run_probe(cpu))
}

/// Most CPUs the probe takes readings on: the first of `CpuInfo::pin_order`, the CPUs a
/// run's threads are pinned to first.
pub(crate) const PROBE_CPUS: usize = 4;

/// Runs every test the CPU has, on a thread pinned in turn to each of the first
/// [`PROBE_CPUS`] CPUs of `cpu.pin_order` (not cached; see [`probe`]).
pub(crate) fn run_probe(cpu: &CpuInfo) -> ProbeReport {
    let t0 = std::time::Instant::now();
    if cfg!(target_arch = "aarch64") {
        return super::probe_arm::run_probe(cpu, t0);
    }
    let want: Vec<usize> = cpu.pin_order.iter().copied().take(PROBE_CPUS).collect();
    let cpu_ref = cpu;
    let (entries, pinned) = std::thread::scope(|s| {
        s.spawn(move || {
            // The CPUs the OS lets this thread run on; unpinned when none.
            let pinned: Vec<usize> = want
                .iter()
                .copied()
                .filter(|&c| crate::measure::runner::pin_current_thread(c))
                .collect();
            (run_tests(cpu_ref, &pinned), pinned)
        })
        .join()
        .unwrap_or_else(|_| (Vec::new(), Vec::new()))
    });
    ProbeReport {
        entries,
        other_kinds: Vec::new(),
        cpu: pinned.first().copied(),
        cpus: pinned,
        seconds: t0.elapsed().as_secs_f64(),
    }
}

/// Why a test cannot run on this CPU, or `None`.
fn unavailable(test: Test, cpu: &CpuInfo) -> Option<ProbeError> {
    if let Some(why) = super::emulation::emulated() {
        // No clock under an emulator: a rate per cycle would be the emulator's.
        return Some(
            format!(
                "probe: {}, no rates per cycle ({why})",
                super::arm::EMULATED
            )
            .into(),
        );
    }
    if !cfg!(target_arch = "x86_64") && !cfg!(target_arch = "aarch64") {
        return Some("probe: only x86-64 and aarch64 have probe loops".into());
    }
    let missing: Vec<String> = test
        .requires()
        .iter()
        .filter(|r| !cpu.has(r))
        .map(|r| r.to_string())
        .collect();
    if !missing.is_empty() {
        return Some(ProbeError::Lacks(missing));
    }
    if matches!(test, Test::AmxBf16 | Test::AmxInt8) {
        if let Err(e) = super::cpu::request_amx_permission() {
            return Some(format!("probe: {e}").into());
        }
    }
    None
}

/// Runs the tests the CPU has, their readings interleaved in rounds spread over time
/// on every CPU of `cpus` (see [`measure_readings`]), and settles each.
pub(crate) fn run_tests(cpu: &CpuInfo, cpus: &[usize]) -> Vec<ProbeEntry> {
    super::clock::clean_vector_state();
    let intel = cpu.vendor == "GenuineIntel";
    let runnable: Vec<Test> = tests_here()
        .iter()
        .copied()
        .filter(|t| unavailable(*t, cpu).is_none())
        .collect();
    let mut readings = readings_of(&runnable, cpus);
    tests_here()
        .iter()
        .map(|&test| {
            let result = match unavailable(test, cpu) {
                Some(why) => Err(why),
                None => {
                    let r = readings
                        .iter_mut()
                        .find(|(t, _)| *t == test)
                        .map(|(_, r)| std::mem::take(r))
                        .unwrap_or_default();
                    decide_readings(test, &r, intel)
                        .map_err(|e| ProbeError::from(format!("probe: {e}")))
                }
            };
            ProbeEntry { test, result }
        })
        .collect()
}

/// A test's count from its readings per loop (the test's loop first, then its
/// alternative order or, for 512-bit FMA, the shuffle mix).
fn decide_readings(test: Test, loops: &[Vec<Reading>], intel: bool) -> Result<Probed, String> {
    let Some(first) = loops.first() else {
        return Err("no readings".into());
    };
    if test == Test::Fma(Width::V512) {
        return settle_fma512(first, loops.get(1).map_or(&[][..], |v| v), intel);
    }
    // The faster order per reading (both were timed in the same rounds).
    let best: Vec<Reading> = (0..first.len())
        .map(|i| {
            let mut r = first[i];
            for l in &loops[1..] {
                if let Some(o) = l.get(i) {
                    r.per_cycle = r.per_cycle.max(o.per_cycle);
                }
            }
            r
        })
        .collect();
    settle_test(test, &best)
}

#[cfg(target_arch = "x86_64")]
fn readings_of(tests: &[Test], cpus: &[usize]) -> Vec<(Test, Vec<Vec<Reading>>)> {
    use super::probe_x86 as x;
    let jobs: Vec<Job> = tests
        .iter()
        .filter_map(|&test| {
            let (_, width) = test.pipe_width();
            let chain: super::clock::ChainFn = match width {
                Width::V512 | Width::Tile if std::is_x86_feature_detected!("avx512f") => {
                    x::zmm_clock_chain
                }
                Width::V256 if std::is_x86_feature_detected!("fma") => x::ymm_clock_chain,
                _ => super::clock::chain_fn(super::clock::ClockKind::Scalar)?,
            };
            let mut loops = vec![x::loop_for(test)];
            if test == Test::Fma(Width::V512) {
                loops.push(x::loop_for(Test::FmaShuffleMix));
            } else {
                loops.extend(x::alternative_for(test));
            }
            Some(Job { test, loops, chain })
        })
        .collect();
    // SAFETY: `run_tests` passes only tests whose instructions the CPU has (and AMX
    // permission); the zmm and ymm chains are chosen only with AVX-512F and FMA.
    let out = unsafe { measure_readings(&jobs, cpus) };
    jobs.iter().map(|j| j.test).zip(out).collect()
}

#[cfg(target_arch = "aarch64")]
fn readings_of(tests: &[Test], cpus: &[usize]) -> Vec<(Test, Vec<Vec<Reading>>)> {
    // The plain add chain: exists only on a native core (`clock::chain_available`).
    let Some(chain) = super::clock::chain_fn(super::clock::ClockKind::Scalar) else {
        return Vec::new();
    };
    let jobs: Vec<Job> = tests
        .iter()
        .filter_map(|&test| {
            Some(Job {
                test,
                loops: vec![super::probe_arm::loop_for(test)?],
                chain,
            })
        })
        .collect();
    // SAFETY: `run_tests` passes only tests whose instructions the CPU has; the add
    // chain is plain A64.
    let out = unsafe { measure_readings(&jobs, cpus) };
    jobs.iter().map(|j| j.test).zip(out).collect()
}

#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
fn readings_of(_tests: &[Test], _cpus: &[usize]) -> Vec<(Test, Vec<Vec<Reading>>)> {
    Vec::new()
}

/// A probe loop: runs `loops` iterations (`probe_x86.rs`, `probe_arm.rs`).
pub(crate) type LoopFn = unsafe fn(u64);

/// One test's loops (each with its instructions per iteration) and its clock chain.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
struct Job {
    test: Test,
    loops: Vec<(LoopFn, u64)>,
    chain: super::clock::ChainFn,
}

/// Rounds per CPU: each round takes one reading of every test's loops on each CPU.
pub(crate) const ROUNDS: usize = 6;
/// Length of one clock reading and of one timed loop run, seconds.
const SLICE: f64 = 0.0006;
/// The rounds are spread over at least this long, so that a moment of contention
/// spoils a few readings, not all of them.
pub(crate) const SPREAD_SECS: f64 = 0.5;

/// Takes [`ROUNDS`] rounds of readings, spread over [`SPREAD_SECS`]: in each round, on
/// each CPU of `cpus` in turn (the calling thread is pinned there; unpinned when
/// empty), for each job a warm-up run of its first loop, a clock reading with its
/// chain, then each loop timed once; the reading is that loop's instructions per
/// second ÷ the clock, and it kept its core when the thread's CPU time covered the
/// chain and the loops. Returns per job, per loop, the readings in order.
///
/// # Safety
/// The CPU must have the instructions of every job's loops and chain.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
unsafe fn measure_readings(jobs: &[Job], cpus: &[usize]) -> Vec<Vec<Vec<Reading>>> {
    use crate::measure::clock::Tick;
    use crate::measure::share::{ThreadMark, MIN_SHARE};
    let time = |f: LoopFn, n: u64| {
        let t0 = Tick::now();
        f(n);
        Tick::now().secs_since(t0)
    };
    let on: Vec<Option<usize>> = if cpus.is_empty() {
        vec![None]
    } else {
        cpus.iter().copied().map(Some).collect()
    };
    if let Some(Some(c)) = on.first() {
        crate::measure::runner::pin_current_thread(*c);
    }
    // Iterations for about SLICE seconds each, grown from a short first run.
    let counts: Vec<Vec<u64>> = jobs
        .iter()
        .map(|j| {
            j.loops
                .iter()
                .map(|&(f, _)| {
                    let mut n = 64u64;
                    loop {
                        let dt = time(f, n);
                        if dt >= SLICE / 8.0 || n > 1 << 34 {
                            return ((n as f64 * SLICE / dt.max(1e-9)) as u64).max(1);
                        }
                        n *= 8;
                    }
                })
                .collect()
        })
        .collect();
    let mut out: Vec<Vec<Vec<Reading>>> = jobs
        .iter()
        .map(|j| vec![Vec::new(); j.loops.len()])
        .collect();
    let t0 = Tick::now();
    for round in 0..ROUNDS {
        for &c in &on {
            if let Some(c) = c {
                crate::measure::runner::pin_current_thread(c);
            }
            for ((j, n), o) in jobs.iter().zip(&counts).zip(out.iter_mut()) {
                // Warm-up: settles the frequency licence and the caches.
                time(j.loops[0].0, 2 * n[0]);
                let m0 = ThreadMark::now();
                let w0 = Tick::now();
                let hz = super::clock::chain_hz(j.chain, SLICE);
                let rates: Vec<f64> = j
                    .loops
                    .iter()
                    .zip(n)
                    .map(|(&(f, per_loop), &k)| (k * per_loop) as f64 / time(f, k).max(1e-9))
                    .collect();
                let wall = Tick::now().secs_since(w0);
                let kept = ThreadMark::now().since(m0, wall, 1, c).share >= MIN_SHARE;
                for (i, rate) in rates.into_iter().enumerate() {
                    o[i].push(Reading {
                        cpu: c,
                        per_cycle: rate / hz,
                        kept_core: kept,
                    });
                }
            }
        }
        // Spread the rounds in time: sleep until this round's share of SPREAD_SECS.
        let due = SPREAD_SECS * (round + 1) as f64 / (ROUNDS - 1) as f64;
        let left = due - Tick::now().secs_since(t0);
        if left > 0.0 && round + 1 < ROUNDS {
            std::thread::sleep(std::time::Duration::from_secs_f64(left));
        }
    }
    out
}

#[cfg(test)]
#[path = "probe_tests.rs"]
mod tests;
