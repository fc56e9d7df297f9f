//! `--rate-iops N` (fio `rate_iops=N`): each job issues at most N I/Os per second,
//! evenly spaced (fio's default `rate_process=linear`), for latency at a given load
//! rather than at saturation. I/O k of a job is due `k / N` seconds after the job's
//! start; a job ahead of its schedule takes a completion if it has I/Os in flight, or
//! sleeps until the next one is due. Latency is still counted from each I/O's issue.

use clap::Args;
use serde::Serialize;
use std::time::Duration;

/// Largest `--rate-iops` accepted.
const MAX_RATE: u32 = 100_000_000;
/// Longest sleep at once, so a signal or the end of the run is seen soon.
const MAX_NAP: Duration = Duration::from_millis(50);

/// The rate flag of `peakbench disk` (flattened into its options).
#[derive(Debug, Clone, Default, Args, Serialize, PartialEq)]
pub(crate) struct RateFlags {
    /// Most I/Os per second per job, evenly spaced, as fio --rate_iops=N (latency at a given load) [default: as fast as the device goes]
    #[arg(long, value_name = "N", value_parser = rate)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) rate_iops: Option<u32>,
}

/// `--rate-iops`: 1 to 100,000,000.
fn rate(text: &str) -> Result<u32, crate::util::units::ParseError> {
    match text.trim().parse::<u32>() {
        Ok(n) if (1..=MAX_RATE).contains(&n) => Ok(n),
        _ => Err(crate::util::units::ParseError(format!(
            "'{text}' is not an I/O rate; use a whole number of I/Os per second per job from 1 to {MAX_RATE}"
        ))),
    }
}

/// How long before I/O number `issued` (from 0) is due, at `t` seconds after the job's
/// start, with at most `rate` I/Os per second; zero when it is due (or no rate is set).
pub(crate) fn wait_before(rate: Option<u32>, issued: u64, t: f64) -> Duration {
    let Some(r) = rate else {
        return Duration::ZERO;
    };
    let due = issued as f64 / f64::from(r);
    if due <= t {
        Duration::ZERO
    } else {
        Duration::from_secs_f64(due - t)
    }
}

/// Sleeps up to `d`, at most [`MAX_NAP`] at once.
pub(crate) fn nap(d: Duration) {
    std::thread::sleep(d.min(MAX_NAP));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ios_are_due_evenly_spaced() {
        assert_eq!(wait_before(None, 1000, 0.0), Duration::ZERO);
        // 100 IOPS: I/O 0 at once, I/O 5 at 50 ms.
        assert_eq!(wait_before(Some(100), 0, 0.0), Duration::ZERO);
        let w = wait_before(Some(100), 5, 0.02);
        assert!((w.as_secs_f64() - 0.03).abs() < 1e-9, "{w:?}");
        assert_eq!(wait_before(Some(100), 5, 0.06), Duration::ZERO);
    }

    #[test]
    fn bad_values_give_their_line() {
        use crate::bench::flags::try_args;
        let e = try_args::<RateFlags>(&["--rate-iops", "0"]).unwrap_err().0;
        assert_eq!(e, "--rate-iops: '0' is not an I/O rate; use a whole number of I/Os per second per job from 1 to 100000000");
        let ok = try_args::<RateFlags>(&["--rate-iops", "500"]).unwrap();
        assert_eq!(ok.rate_iops, Some(500));
    }
}
