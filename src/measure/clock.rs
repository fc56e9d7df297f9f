//! The monotonic clock used for every timed interval, and its overhead.
//!
//! `CLOCK_MONOTONIC_RAW` on Linux (not slewed by NTP, as likwid and cpufp use);
//! `std::time::Instant` elsewhere. Reading it costs tens of nanoseconds (measured by
//! `overhead` in the tests); it is never subtracted from samples, which last at least
//! `--min-time` (≥ 10⁵ times the overhead).

#[cfg(any(test, not(target_os = "linux")))]
use std::time::Instant;

/// A point in time from the raw monotonic clock, in nanoseconds since an arbitrary epoch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Tick(u64);

impl Tick {
    /// Reads the clock now.
    #[inline]
    pub fn now() -> Tick {
        #[cfg(target_os = "linux")]
        {
            let mut ts = libc::timespec {
                tv_sec: 0,
                tv_nsec: 0,
            };
            // SAFETY: `ts` is a valid, writable timespec; CLOCK_MONOTONIC_RAW exists on
            // every Linux since 2.6.28.
            unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC_RAW, &mut ts) };
            Tick(ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64)
        }
        #[cfg(not(target_os = "linux"))]
        {
            use std::sync::OnceLock;
            static START: OnceLock<Instant> = OnceLock::new();
            let start = START.get_or_init(Instant::now);
            Tick(start.elapsed().as_nanos() as u64)
        }
    }

    /// Seconds from `earlier` to `self` (0 if `earlier` is later).
    #[inline]
    pub(crate) fn secs_since(self, earlier: Tick) -> f64 {
        self.0.saturating_sub(earlier.0) as f64 * 1e-9
    }
}

/// Mean cost of one clock read in seconds, from 10⁵ back-to-back reads.
#[cfg(test)]
pub(crate) fn overhead() -> f64 {
    const N: u32 = 100_000;
    let wall = Instant::now();
    let mut last = Tick::now();
    for _ in 0..N {
        last = std::hint::black_box(Tick::now());
    }
    let _ = last;
    wall.elapsed().as_secs_f64() / f64::from(N)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn monotonic_and_cheap() {
        let a = Tick::now();
        std::thread::sleep(std::time::Duration::from_millis(5));
        let b = Tick::now();
        assert!(b > a);
        assert!(b.secs_since(a) >= 0.004);
        assert_eq!(a.secs_since(b), 0.0);
        let o = overhead();
        assert!(o > 0.0 && o < 1e-3, "clock read costs {o} s");
    }
}
