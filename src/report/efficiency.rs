//! Efficiency against a peak, in both directions (issue #48): a rate's is mean / peak,
//! a lower-is-better figure's (a latency against its floor) is floor / mean, so that
//! 100 % is the limit either way and a figure above 100 % is over it (flagged, never
//! clamped). Every reader that computes an efficiency (the model's `with_peak`, a
//! result received from another host, the history's merged rows, the reference
//! columns of the views) goes through [`efficiency`]. Also [`PeakClock`], the clock a
//! CPU peak was computed at when `--clock` chose it.

use super::kinds::{Metric, Unit};
use crate::util::units::format_si;
use serde::{Deserialize, Serialize};

/// The clock a CPU peak was computed at when `--clock` chose it (issue #48); absent
/// without the flag (the peak is then at the measured clock, as ever).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct PeakClock {
    /// `measured`, `nominal` or `all-core`.
    pub clock: String,
    /// The clock, Hz.
    pub hz: f64,
    /// Where it was read (the chain, the model name, cpufreq's base frequency).
    pub from: String,
}

/// The efficiency of a figure `value` of `metric` against its `peak`: `value / peak` for
/// a rate, `peak / value` for a lower-is-better metric (a latency against its floor).
/// `None` when the peak is not positive, or a lower-is-better value is not.
pub(crate) fn efficiency(metric: Metric, value: f64, peak: f64) -> Option<f64> {
    if peak <= 0.0 {
        return None;
    }
    if !metric.lower_is_better() {
        Some(value / peak)
    } else if value > 0.0 {
        Some(peak / value)
    } else {
        None
    }
}

/// The over-peak note of a row of `metric` in `unit` whose `(mean, peak)` give an
/// efficiency above 100 %, naming the peak's `source`.
pub(crate) fn over_peak_text(
    metric: Metric,
    unit: Unit,
    (mean, peak): (f64, f64),
    source: &str,
) -> String {
    let e = efficiency(metric, mean, peak).unwrap_or(0.0) * 100.0;
    if metric.lower_is_better() {
        format!(
            "OVER PEAK: {e:.1} % latency efficiency, the mean {} is below the floor {}; check the floor's inputs ({source})",
            format_si(mean, unit.as_str()),
            format_si(peak, unit.as_str()),
        )
    } else {
        format!("OVER PEAK: {e:.1} % of the theoretical peak; check the peak's inputs ({source})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rate_divides_by_its_peak_and_a_latency_divides_its_floor() {
        assert_eq!(efficiency(Metric::Throughput, 50.0, 100.0), Some(0.5));
        assert_eq!(efficiency(Metric::Throughput, 50.0, 0.0), None);
        assert_eq!(efficiency(Metric::Latency, 20.0, 5.0), Some(0.25));
        assert_eq!(efficiency(Metric::Latency, 0.0, 1.0), None);
        let t = over_peak_text(Metric::Latency, Unit::Second, (4e-6, 5e-6), "floor");
        assert!(
            t.starts_with("OVER PEAK: 125.0 % latency efficiency, the mean 4.000 µs is below the floor 5.000 µs"),
            "{t}"
        );
        assert!(t.ends_with("(floor)"), "{t}");
    }
}
