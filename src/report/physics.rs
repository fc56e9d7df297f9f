//! Values no machine could measure: a figure that is not finite, negative (every unit
//! peakbench writes — rates and seconds — is a magnitude), or beyond [`MAX_VALUE`] of
//! its unit (an exa-anything per second from one host, or 30 000 years). Such a figure
//! comes from a forged rank, a corrupted or hand-edited file, or a bug, never from a
//! measurement: it is refused with the reason, before it reaches a merge or an average.
//! Called where results arrive from elsewhere: the coordinator on each rank's results,
//! and `fleet` on each file it loads.

use super::model::{BenchResult, Report};

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
    use crate::report::model::{Metric, Resource, Unit};

    fn result(samples: Vec<f64>) -> BenchResult {
        BenchResult::new(
            Resource::Net,
            "tcp_throughput",
            Metric::Throughput,
            Unit::BytePerSec,
        )
        .with_samples(samples)
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
