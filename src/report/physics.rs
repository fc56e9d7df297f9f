//! Values no machine could measure: a figure that is not finite, negative (every unit
//! peakbench writes — rates and seconds — is a magnitude), or beyond [`MAX_VALUE`] of
//! its unit (an exa-anything per second from one host, or 30 000 years). Such a figure
//! comes from a forged rank, a corrupted or hand-edited file, or a bug, never from a
//! measurement: it is refused with the reason, before it reaches a merge or an average.
//! Called where results arrive from elsewhere: the coordinator on each rank's results,
//! and `fleet` on each file it loads.
//!
//! What a rank sends is also made consistent before it is checked ([`on_receipt`]): the
//! summary is recomputed from the samples and the efficiency from the summary and the
//! peak, so a summary that disagrees with its samples (samples [1, 1, 1], mean 9e17) or
//! an efficiency of 5e17 with `over_peak` false never reaches the report; a unit that is
//! not its metric's, and a count parameter that is not a whole number, are refused.

use super::model::{BenchResult, Metric, Note, NoteKind, Param, Report, Unit};
use crate::measure::stats::Summary;

/// The largest figure accepted in any unit (1e18 B/s, FLOP/s, OP/s, IO/s or s).
pub(crate) const MAX_VALUE: f64 = 1e18;

/// Why `x` (named `what`) cannot be a measured figure, if it cannot.
fn bad(what: &str, x: f64, signed: bool) -> Option<String> {
    if !x.is_finite() {
        return Some(format!("{what} is {x}, not a finite number"));
    }
    if !signed && x < 0.0 {
        return Some(format!("{what} is negative ({x:.3e})"));
    }
    if x.abs() > MAX_VALUE {
        return Some(format!("{what} is {x:.3e}, beyond {MAX_VALUE:.0e}"));
    }
    None
}

/// Checks every figure of one result; the error names the first impossible one with
/// its workload and unit.
pub(crate) fn check_result(r: &BenchResult) -> Result<(), String> {
    let unit = r.unit.as_str();
    let mut checks: Vec<(String, f64, bool)> = Vec::new();
    for (i, x) in r.samples.iter().enumerate() {
        checks.push((format!("sample {i}"), *x, false));
    }
    if let Some(s) = &r.summary {
        for (n, x) in [
            ("mean", s.mean),
            ("sd", s.sd),
            ("min", s.min),
            ("max", s.max),
            ("median", s.median),
            ("cv", s.cv),
            ("ci95_high", s.ci95_high),
        ] {
            checks.push((n.to_string(), x, false));
        }
        // The interval's lower bound falls below zero for a noisy few samples.
        checks.push(("ci95_low".into(), s.ci95_low, true));
    }
    if let Some(p) = &r.percentiles {
        for (n, x) in [
            ("p50", p.p50),
            ("p90", p.p90),
            ("p99", p.p99),
            ("p99.9", p.p99_9),
            ("max", p.max),
        ] {
            checks.push((format!("percentile {n}"), x, false));
        }
    }
    for (t, x) in r.timeseries.iter().flatten() {
        checks.push(("timeseries time".into(), *t, false));
        checks.push(("timeseries value".into(), *x, false));
    }
    if let Some(v) = r.peak.as_ref().and_then(|p| p.value) {
        checks.push(("peak".into(), v, false));
    }
    if let Some(e) = r.efficiency {
        checks.push(("efficiency".into(), e, false));
    }
    if let Some(c) = r.clock_hz {
        checks.push(("clock".into(), c, false));
    }
    for f in r.reference.iter().flatten() {
        checks.push((format!("{} figure", f.tool), f.value, false));
    }
    for (what, x, signed) in checks {
        if let Some(why) = bad(&what, x, signed) {
            return Err(format!("{} ({unit}): {why}", r.workload));
        }
    }
    Ok(())
}

/// Checks every result of a report (a file for `fleet`); the error names the result.
pub(crate) fn check_report(report: &Report) -> Result<(), String> {
    for (i, r) in report.results.iter().enumerate() {
        check_result(r).map_err(|e| format!("result {}: {e}", i + 1))?;
    }
    Ok(())
}

/// Parameters that count something (threads, streams, jobs, queue depth, matrix order,
/// repeats): whole numbers, never negative.
const COUNT_PARAMS: [&str; 7] = ["threads", "streams", "jobs", "depth", "n", "repeat", "cpus"];

/// Whether `unit` is a unit of `metric` (the unit's row says which metric it measures).
pub(crate) fn unit_of(metric: Metric, unit: Unit) -> bool {
    unit.measures(metric)
}

/// A result received from another host (a rank's results, a matrix link), made
/// consistent and checked: the unit must be its metric's, count and size parameters
/// whole numbers; the summary is recomputed from the samples (a summary without
/// samples is dropped), the efficiency and `over_peak` from that summary and the peak
/// (an over-peak note added where the sender left it out), the percentiles must be in
/// order; then every figure goes through [`check_result`]. `Err` names what is wrong.
pub(crate) fn on_receipt(mut r: BenchResult) -> Result<BenchResult, String> {
    let w = r.workload.clone();
    if !unit_of(r.metric, r.unit) {
        return Err(format!(
            "{w}: a {} figure in {}, not a unit of its metric",
            r.metric, r.unit
        ));
    }
    for (k, v) in &r.params {
        let counted = COUNT_PARAMS.contains(&k.as_str()) || super::model::is_size_param(k);
        match v {
            Param::Float(x) if counted => {
                return Err(format!(
                    "{w}: parameter {k} is {x}, not a whole number of at least 0"
                ))
            }
            Param::Bool(_) if counted => return Err(format!("{w}: parameter {k} is not a number")),
            _ => {}
        }
    }
    r.summary = if r.samples.is_empty() {
        None
    } else {
        Some(Summary::of(&r.samples).map_err(|e| format!("{w}: samples: {e}"))?)
    };
    let peak = r.peak.as_ref().and_then(|p| p.value).filter(|p| *p > 0.0);
    match (&r.summary, peak) {
        (Some(s), Some(p)) => {
            let e = super::model::efficiency(r.metric, s.mean, p);
            r.efficiency = e;
            r.over_peak = e.is_some_and(|e| e > 1.0);
        }
        _ => {
            r.efficiency = None;
            r.over_peak = false;
        }
    }
    if r.over_peak && !r.notes.iter().any(|n| n.kind == NoteKind::OverPeak) {
        r.notes.push(Note::new(
            NoteKind::OverPeak,
            format!(
                "OVER PEAK: {:.1} % of the theoretical peak (recomputed on receipt)",
                r.efficiency.unwrap_or(0.0) * 100.0
            ),
        ));
    }
    if !r.over_peak {
        r.notes.retain(|n| n.kind != NoteKind::OverPeak);
    }
    if let Some(p) = &r.percentiles {
        let q = [p.p50, p.p90, p.p99, p.p99_9, p.max];
        if q.windows(2).any(|w| w[0] > w[1]) {
            return Err(format!(
                "{w}: percentiles out of order (p50 {:.3e}, p90 {:.3e}, p99 {:.3e}, p99.9 {:.3e}, max {:.3e})",
                p.p50, p.p90, p.p99, p.p99_9, p.max
            ));
        }
    }
    check_result(&r)?;
    Ok(r)
}

/// `r` refused: a failed result keeping only what identifies the case, no figure of it.
pub(crate) fn refused(r: &BenchResult, why: &str) -> BenchResult {
    let mut out = BenchResult::new(r.resource, &r.workload, r.metric, r.unit);
    out.params = r.params.clone();
    out.host = r.host.clone();
    out.failed(why)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::model::{Metric, ResourceName, Unit};

    fn result(samples: Vec<f64>) -> BenchResult {
        BenchResult::new(
            ResourceName::Net,
            "tcp_throughput",
            Metric::Throughput,
            Unit::BytePerSec,
        )
        .with_samples(samples)
    }

    /// #48: a latency's efficiency is its floor over the time measured, flagged when
    /// the time is below the floor; recomputed so on receipt.
    #[test]
    fn a_latency_s_efficiency_is_the_floor_over_the_measured_time() {
        let lat = || {
            BenchResult::new(
                ResourceName::Net,
                "tcp_latency",
                Metric::Latency,
                Unit::Second,
            )
        };
        let peak = |v: f64| crate::hw::peak::Peak {
            value: Some(v),
            source: "floor".into(),
        };
        let r = lat().with_samples(vec![20e-6; 3]).with_peak(peak(5e-6));
        assert!((r.efficiency.unwrap() - 0.25).abs() < 1e-12);
        assert!(!r.over_peak);
        let r = lat().with_samples(vec![4e-6; 3]).with_peak(peak(5e-6));
        assert!((r.efficiency.unwrap() - 1.25).abs() < 1e-12);
        assert!(r.over_peak);
        let n = r
            .notes
            .iter()
            .find(|n| n.kind == NoteKind::OverPeak)
            .unwrap();
        assert!(n.text.contains("below the floor 5.000 µs"), "{}", n.text);
        let got = on_receipt(r).unwrap();
        assert!((got.efficiency.unwrap() - 1.25).abs() < 1e-12);
        assert!(got.over_peak);
    }

    /// #33 item 10: what an authenticated rank sends is recomputed and checked.
    #[test]
    fn figures_are_recomputed_and_units_and_counts_checked_on_receipt() {
        use crate::hw::peak::Peak;
        let peak = |v: f64| Peak {
            value: Some(v),
            source: "test".into(),
        };
        // Samples [1, 1, 1] with a summary of 9e17 and an efficiency of 5e17 that does
        // not say over peak: the summary and the efficiency are the samples'.
        let mut r = result(vec![1.0, 1.0, 1.0]).with_peak(peak(2.0));
        let s = r.summary.as_mut().unwrap();
        (s.mean, s.max, s.median) = (9e17, 9e17, 9e17);
        r.efficiency = Some(5e17);
        r.over_peak = false;
        let got = on_receipt(r).unwrap();
        assert_eq!(got.summary.as_ref().unwrap().mean, 1.0);
        assert_eq!(got.efficiency, Some(0.5));
        assert!(!got.over_peak);
        // Over its peak: flagged, with the note, whatever the sender said.
        let mut r = result(vec![4.0, 4.0]).with_peak(peak(2.0));
        r.over_peak = false;
        r.notes.clear();
        let got = on_receipt(r).unwrap();
        assert!(got.over_peak && got.efficiency == Some(2.0));
        assert!(got.notes.iter().any(|n| n.kind == NoteKind::OverPeak));
        // A summary without samples is not a figure.
        let mut r = result(vec![1.0]);
        r.samples.clear();
        assert!(on_receipt(r).unwrap().summary.is_none());
        // A throughput in seconds, threads −7, percentiles out of order.
        let mut r = result(vec![1.0]);
        r.unit = Unit::Second;
        let e = on_receipt(r).unwrap_err();
        assert!(e.contains("a throughput figure in s"), "{e}");
        let mut r = result(vec![1.0]);
        r.params.insert("threads".into(), Param::Float(-7.0));
        let e = on_receipt(r).unwrap_err();
        assert!(e.contains("parameter threads is -7"), "{e}");
        let mut r = result(vec![1.0]);
        r.percentiles = Some(crate::measure::stats::Percentiles {
            p50: 2.0,
            p90: 1.0,
            p99: 3.0,
            p99_9: 4.0,
            max: 5.0,
        });
        assert!(on_receipt(r).unwrap_err().contains("out of order"));
        // An honest result goes through unchanged.
        let r = result(vec![1e9, 1.1e9]).with_peak(peak(1e10));
        assert_eq!(on_receipt(r.clone()).unwrap(), r);
    }

    #[test]
    fn impossible_figures_are_refused_with_the_reason() {
        assert!(check_result(&result(vec![1e9, 1.1e9])).is_ok());
        let e = check_result(&result(vec![1e300, 1e300])).unwrap_err();
        assert!(
            e.contains("tcp_throughput (B/s): sample 0 is 1.000e300"),
            "{e}"
        );
        let e = check_result(&result(vec![-5.0, 1.0])).unwrap_err();
        assert!(e.contains("negative"), "{e}");
        // with_samples refuses NaN itself; a file can still carry one in a summary.
        let mut r = result(vec![1.0, 2.0]);
        r.summary.as_mut().unwrap().mean = f64::NAN;
        assert!(check_result(&r).unwrap_err().contains("mean is NaN"));
        let mut r = result(vec![1.0, 1.0]);
        r.host = Some("h1".into());
        let f = refused(&r, "no");
        assert!(f.samples.is_empty() && f.summary.is_none() && !f.is_ok());
        assert_eq!(f.host.as_deref(), Some("h1"));
    }
}
