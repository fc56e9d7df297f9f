//! A fixed transfer (`net --bytes`, iperf3 `-n`): the budget the sending streams of
//! one end share, and the one sample that times it. Kept apart from `engine.rs`, which
//! runs the streams, as the only code that ends a test by bytes instead of by time.

use crate::measure::clock::Tick;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Takes up to `msg` bytes from a fixed transfer's `budget` (0 once it is spent), so
/// that the streams of an end together send exactly the budget.
pub(crate) fn take(budget: &AtomicU64, msg: u64) -> u64 {
    let mut left = budget.load(Ordering::Relaxed);
    loop {
        let t = left.min(msg);
        if t == 0 {
            return 0;
        }
        match budget.compare_exchange_weak(left, left - t, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => return t,
            Err(now) => left = now,
        }
    }
}

/// (received, sent) bytes of the one sample, each as (seconds, bytes); the engine's
/// `Intervals` (this file imports nothing of the engine, which calls it).
type Sample = (Vec<(f64, u64)>, Vec<(f64, u64)>);

/// The one sample of a transfer of `bytes`: from `t0` (the first byte at a receiving
/// end, the release at a sending one) until this end's counters (`counts`: received,
/// sent) reach `bytes` where it receives (`ends.0`) and where it sends (`ends.1`),
/// polled every millisecond; or until `cap_s` seconds, a stop (`stopped`), or the
/// peer's loss (`gone`, asked every `tick`: `None`, the caller stops the streams).
#[allow(clippy::too_many_arguments)]
pub(crate) fn sample(
    t0: Tick,
    cap_s: f64,
    bytes: u64,
    ends: (bool, bool),
    counts: &dyn Fn() -> (u64, u64),
    stopped: &dyn Fn() -> bool,
    tick: Duration,
    gone: &dyn Fn() -> bool,
) -> Option<Sample> {
    let mut watched = Instant::now();
    loop {
        let (r, s) = counts();
        let now = Tick::now();
        let dt = now.secs_since(t0);
        let done = (!ends.0 || r >= bytes) && (!ends.1 || s >= bytes);
        if done || stopped() || dt >= cap_s {
            if dt <= 0.0 {
                return Some(Sample::default());
            }
            return Some((vec![(dt, r)], vec![(dt, s)]));
        }
        if watched.elapsed() >= tick {
            watched = Instant::now();
            if gone() {
                return None;
            }
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Streams taking from one budget get exactly the budget, the last take short.
    #[test]
    fn takes_add_up_to_the_budget() {
        let b = AtomicU64::new(1000);
        let got: Vec<u64> = std::iter::from_fn(|| Some(take(&b, 300)).filter(|&t| t > 0)).collect();
        assert_eq!(got, [300, 300, 300, 100]);
        assert_eq!(take(&b, 300), 0);
    }
}
