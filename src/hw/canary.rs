//! The canary burst (issue #31; the rule is `measure::canary`): about a millisecond,
//! on every worker CPU at once while the workers wait between samples, of a loop the
//! execution probe knows — the 256-bit FMA loop against its FMA clock chain where the
//! CPU has FMA, else the 128-bit mul+add loop against the plain chain — as
//! instructions per cycle: a warm-up run of the loop, then twice a 0.12 ms loop
//! between two 0.12 ms clock readings (see [`burst`]): about 1 ms in all. A neighbour on the core's issue slots (an SMT sibling,
//! another tenant, the host) lowers it; a lower clock does not (it is per cycle). A
//! burst whose thread lost its core is no figure (the in-guest check names that).
//!
//! The best rate per CPU is the run's (this process's, as the probe's report is):
//! every case's bursts go into it. `PEAKBENCH_CANARY=off` turns the canary off (to
//! measure what it costs; see BENCHMARKS.md).

use crate::measure::canary::{Best, Burst};
use crate::measure::Sample;
use std::sync::Mutex;
#[cfg(target_arch = "x86_64")]
use std::sync::OnceLock;

/// Length of each clock reading and timed loop of a burst, seconds.
#[cfg(target_arch = "x86_64")]
const HALF: f64 = 0.00012;

/// The run's best canary rate per CPU.
static BEST: Mutex<Best> = Mutex::new(Best::new());

/// Whether the canary runs: an x86-64 build (the probe's loops), a CPU that is not
/// emulated (its clock chain would time the emulator) and not turned off with
/// `PEAKBENCH_CANARY=off`.
pub(crate) fn enabled() -> bool {
    cfg!(target_arch = "x86_64")
        && std::env::var("PEAKBENCH_CANARY").map_or(true, |v| v.trim() != "off")
        && super::emulation::emulated().is_none()
}

/// The canary's loop (function, instructions per iteration), its clock chain and its
/// iterations for about [`HALF`] seconds, chosen and calibrated once per process.
#[cfg(target_arch = "x86_64")]
fn setup() -> &'static (super::probe_x86::LoopFn, u64, super::clock::ChainFn, u64) {
    use super::probe::Test;
    use super::uarch::Width;
    static SETUP: OnceLock<(super::probe_x86::LoopFn, u64, super::clock::ChainFn, u64)> =
        OnceLock::new();
    SETUP.get_or_init(|| {
        let (test, chain): (Test, super::clock::ChainFn) =
            if std::is_x86_feature_detected!("fma") && std::is_x86_feature_detected!("avx") {
                (Test::Fma(Width::V256), super::probe_x86::ymm_clock_chain)
            } else {
                (
                    Test::MulAdd(Width::V128),
                    super::clock::chain_fn(super::clock::ClockKind::Scalar)
                        .expect("x86-64 has the scalar chain"),
                )
            };
        let (f, per) = super::probe_x86::loop_for(test);
        let mut n = 64u64;
        let n = loop {
            let t0 = crate::measure::clock::Tick::now();
            // SAFETY: the loop's features were checked just above (SSE2 is x86-64's).
            unsafe { f(n) };
            let dt = crate::measure::clock::Tick::now().secs_since(t0);
            if dt >= HALF / 8.0 || n > 1 << 34 {
                break ((n as f64 * HALF / dt.max(1e-9)) as u64).max(1);
            }
            n *= 8;
        };
        (f, per, chain, n)
    })
}

/// Sandwiches per burst: clock, loop, clock, twice.
#[cfg(target_arch = "x86_64")]
const SANDWICHES: usize = 2;

/// One burst on the calling thread: instructions per cycle, or `None` when its thread
/// lost its core meanwhile (or there is no canary on this architecture). Each of
/// [`SANDWICHES`] times the loop runs between two clock readings and counts against
/// the higher (a clock reading is only ever lowered: a frequency step, a preemption);
/// the burst is the higher of the sandwiches (a contended loop is only ever slower).
fn burst() -> Option<f64> {
    #[cfg(target_arch = "x86_64")]
    {
        use crate::measure::clock::Tick;
        use crate::measure::share::{ThreadMark, MIN_SHARE};
        let &(f, per, chain, n) = setup();
        super::clock::clean_vector_state();
        // SAFETY: `setup` chose a loop and chain this CPU has.
        unsafe {
            f(n);
            let m0 = ThreadMark::now();
            let w0 = Tick::now();
            let mut best = 0.0f64;
            for _ in 0..SANDWICHES {
                let hz1 = super::clock::chain_hz(chain, HALF);
                let t0 = Tick::now();
                f(n);
                let dt = Tick::now().secs_since(t0);
                let hz2 = super::clock::chain_hz(chain, HALF);
                best = best.max((n * per) as f64 / dt.max(1e-9) / hz1.max(hz2));
            }
            let wall = Tick::now().secs_since(w0);
            let kept = ThreadMark::now().since(m0, wall, 1, None).share >= MIN_SHARE;
            (kept && best.is_finite() && best > 0.0).then_some(best)
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        None
    }
}

/// One burst on every CPU of `cpus` at once (each thread pinned there; the calling
/// thread, unpinned, when empty).
pub(crate) fn read(cpus: &[usize]) -> Vec<Burst> {
    if cpus.is_empty() {
        return vec![(None, burst())];
    }
    super::clock::on_cpus_with(cpus, &|| (crate::measure::share::current_cpu(), burst()))
        .unwrap_or_default()
}

/// The canary of one case: a burst round before the first sample and one after each
/// ([`Watch::read`], from the runner's per-sample hook, while the workers wait), then
/// judged against the run's best and attached to the samples ([`Watch::attach`]).
pub(crate) struct Watch {
    cpus: Vec<usize>,
    on: bool,
    rounds: Mutex<Vec<Vec<Burst>>>,
}

impl Watch {
    /// A watch over the worker CPUs `cpus` (empty: unpinned workers, read on the
    /// calling thread).
    pub(crate) fn new(cpus: &[usize]) -> Watch {
        Watch {
            cpus: cpus.to_vec(),
            on: enabled(),
            rounds: Mutex::new(Vec::new()),
        }
    }

    /// One round of bursts (before the first sample, then after each).
    pub(crate) fn read(&self) {
        if self.on {
            let r = read(&self.cpus);
            self.rounds
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(r);
        }
    }

    /// The canary of each of `samples` samples, judged against the run's best: one
    /// list per sample, empty when the canary is off.
    pub(crate) fn judge(self, samples: usize) -> Vec<Vec<crate::measure::canary::CanaryShare>> {
        let rounds = self.rounds.into_inner().unwrap_or_else(|e| e.into_inner());
        if rounds.is_empty() {
            return vec![Vec::new(); samples];
        }
        BEST.lock()
            .unwrap_or_else(|e| e.into_inner())
            .judge(&rounds, samples)
    }

    /// Judges the rounds and sets each sample's canary.
    pub(crate) fn attach(self, samples: &mut [Sample]) {
        let judged = self.judge(samples.len());
        for (s, c) in samples.iter_mut().zip(judged) {
            s.share.canary = c;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_burst_is_a_per_cycle_figure_or_nothing() {
        if !enabled() {
            eprintln!("skipped: no canary on this build");
            return;
        }
        // Correctness only, never speed: a figure is finite and positive when there is one.
        let r = read(&[]);
        assert_eq!(r.len(), 1);
        assert!(r[0].1.is_none_or(|v| v.is_finite() && v > 0.0), "{r:?}");
        let w = Watch::new(&[]);
        for _ in 0..3 {
            w.read();
        }
        let j = w.judge(2);
        assert_eq!(j.len(), 2);
        assert!(j.iter().all(|s| s.len() <= 1));
    }
}
