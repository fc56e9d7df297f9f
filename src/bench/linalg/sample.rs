//! One sample of a linalg case's calls and the loop that takes a case's samples,
//! shared by faer's cases (`mod.rs`) and a loaded library's (`backend.rs`): [`Sample`]
//! (the seconds of the calls and their worst check), [`GemmSet`] (one thread's
//! matrices under `--weak`) and [`samples`] (the warm-up call, then `--repeat`
//! samples).

use super::dense::{self, Real};
use crate::bench::resource::Context;
use crate::measure::clock::Tick;
use faer::Mat;
use std::sync::Mutex;

/// A case's sample times, calls per sample and worst check ([`samples`]).
pub(crate) type Run = (Vec<f64>, usize, f64);

/// One thread's matrices under `--weak`: `C = A·B`, all its own.
pub(crate) struct GemmSet<T: Real> {
    /// A.
    pub(crate) a: Mat<T>,
    /// B.
    pub(crate) b: Mat<T>,
    /// The product.
    pub(crate) c: Mat<T>,
}

impl<T: Real> GemmSet<T> {
    /// The worst Freivalds check over every thread's product (NaN counts as a failure:
    /// `f64::max` would drop it).
    pub(crate) fn worst_check(sets: &[Mutex<GemmSet<T>>]) -> f64 {
        let mut worst = 0.0f64;
        for s in sets {
            let g = s.lock().unwrap_or_else(|e| e.into_inner());
            let w = dense::gemm_check(g.a.as_ref(), g.b.as_ref(), g.c.as_ref(), 3);
            if w.is_nan() || w > worst {
                worst = w;
            }
        }
        worst
    }
}

/// What one sample's calls took and the worst check among them.
pub(crate) struct Sample {
    /// Seconds the calls took.
    pub(crate) secs: f64,
    /// The worst check among them (0 when none was checked; NaN or above
    /// `dense::THRESHOLD`: a wrong result).
    pub(crate) worst: f64,
}

impl Sample {
    /// The sample of calls started at `t0` that have just returned: the seconds since,
    /// then (outside the timed part, and only when `check`) the worst error `worst`
    /// finds, else 0 (GEMM, faer's and a library's).
    pub(crate) fn checked(t0: Tick, check: bool, worst: impl FnOnce() -> f64) -> Sample {
        let secs = Tick::now().secs_since(t0);
        let worst = if check { worst() } else { 0.0 };
        Sample { secs, worst }
    }
}

/// The warm-up call, then `--repeat` samples of `calls` calls each, reading the
/// clock before the samples and after each. Returns the seconds of each sample, the
/// calls per sample and the worst check seen.
pub(crate) fn samples(
    ctx: &Context,
    call: &mut dyn FnMut(bool) -> Sample,
    read: &mut dyn FnMut(),
) -> Run {
    let o = ctx.opts;
    let warm = call(true);
    let mut worst = warm.worst;
    let min = o.min_time.as_secs_f64();
    let calls = if warm.secs > 0.0 {
        ((min / warm.secs).ceil() as usize).clamp(1, 1 << 20)
    } else {
        1
    };
    read();
    let mut times = Vec::new();
    for _ in 0..o.repeat {
        let mut secs = 0.0;
        for i in 0..calls {
            let s = call(i + 1 == calls);
            secs += s.secs;
            // NaN counts as a failure: `f64::max` would drop it.
            if s.worst.is_nan() || s.worst > worst {
                worst = s.worst;
            }
        }
        times.push(secs);
        read();
    }
    (times, calls, worst)
}
