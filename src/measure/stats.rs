//! Summary statistics of repeated measurements.
//!
//! - mean, sample standard deviation (n − 1), min, max, median;
//! - coefficient of variation CV = sd / mean;
//! - a 95 % confidence interval of the mean, mean ± t(0.975, n − 1) · sd / √n, with
//!   Student's t quantiles from the standard table (e.g. NIST/SEMATECH e-Handbook of
//!   Statistical Methods, §1.3.6.7.2);
//! - outliers by the modified z-score |0.6745 (x − median) / MAD| > 3.5
//!   (Iglewicz & Hoaglin, "How to Detect and Handle Outliers", 1993), as hyperfine does;
//! - percentiles by linear interpolation between closest ranks (NIST method, type 7 in
//!   Hyndman & Fan 1996).
//!
//! Every function here is O(n log n) at most (one sort).

use serde::{Deserialize, Serialize};

/// Summary of a set of samples. Every field is finite for non-empty finite input.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Number of samples.
    pub(crate) n: usize,
    /// Arithmetic mean.
    pub(crate) mean: f64,
    /// Sample standard deviation (n − 1 in the denominator; 0 for one sample).
    pub(crate) sd: f64,
    /// Smallest sample.
    pub(crate) min: f64,
    /// Largest sample.
    pub(crate) max: f64,
    /// Median (mean of the two middle samples when n is even).
    pub(crate) median: f64,
    /// Coefficient of variation, sd / mean (0 when the mean is 0).
    pub(crate) cv: f64,
    /// Lower bound of the 95 % confidence interval of the mean.
    pub(crate) ci95_low: f64,
    /// Upper bound of the 95 % confidence interval of the mean.
    pub(crate) ci95_high: f64,
    /// Samples whose modified z-score exceeds 3.5.
    pub(crate) outliers: usize,
    /// Why the 95 % interval states nothing certain, when it does not; absent
    /// otherwise (and from files written before it: [`Summary::caveat`] reads those).
    /// The figures above are kept as computed either way.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) ci95_caveat: Option<CiCaveat>,
}

/// Why a 95 % interval is no statement about the mean.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum CiCaveat {
    /// One sample: no spread is known; `sd` and `cv` are 0 and the interval is the
    /// mean only because nothing else can be written there.
    OneSample,
    /// The samples are all at or above 0 but the interval reaches below 0, which no
    /// rate or duration can be: too few samples for their spread (a normal
    /// approximation at a high CV).
    BelowZero,
}

/// Why a summary could not be computed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum StatsError {
    /// No samples at all.
    #[error("no samples")]
    Empty,
    /// A NaN or infinite sample: a measurement bug, never averaged away.
    #[error("non-finite sample")]
    NonFinite,
}

/// Two-sided 95 % Student's t quantile t(0.975, df).
pub(crate) fn t_975(df: usize) -> f64 {
    const TABLE: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
        2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
        2.052, 2.048, 2.045, 2.042,
    ];
    match df {
        0 => f64::INFINITY,
        1..=30 => TABLE[df - 1],
        31..=40 => 2.021,
        41..=60 => 2.000,
        61..=120 => 1.980,
        _ => 1.960,
    }
}

fn sorted(samples: &[f64]) -> Vec<f64> {
    let mut v = samples.to_vec();
    v.sort_by(|a, b| a.total_cmp(b));
    v
}

/// Quantile `q` in [0, 1] of already sorted data, linear interpolation (type 7).
fn quantile_sorted(sorted: &[f64], q: f64) -> f64 {
    let n = sorted.len();
    if n == 1 {
        return sorted[0];
    }
    let h = (n - 1) as f64 * q.clamp(0.0, 1.0);
    let lo = h.floor() as usize;
    let hi = h.ceil() as usize;
    sorted[lo] + (h - lo as f64) * (sorted[hi] - sorted[lo])
}

impl Summary {
    /// Summarises `samples`. Fails on empty input or on a non-finite sample.
    pub(crate) fn of(samples: &[f64]) -> Result<Summary, StatsError> {
        if samples.is_empty() {
            return Err(StatsError::Empty);
        }
        if samples.iter().any(|x| !x.is_finite()) {
            return Err(StatsError::NonFinite);
        }
        let n = samples.len();
        let mean = samples.iter().sum::<f64>() / n as f64;
        let sd = if n > 1 {
            (samples.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt()
        } else {
            0.0
        };
        let s = sorted(samples);
        let median = quantile_sorted(&s, 0.5);
        let half = if n > 1 {
            t_975(n - 1) * sd / (n as f64).sqrt()
        } else {
            0.0
        };
        let mut dev: Vec<f64> = samples.iter().map(|x| (x - median).abs()).collect();
        dev.sort_by(|a, b| a.total_cmp(b));
        let mad = quantile_sorted(&dev, 0.5);
        let outliers = if mad > 0.0 {
            samples
                .iter()
                .filter(|x| (0.6745 * (*x - median) / mad).abs() > 3.5)
                .count()
        } else {
            0
        };
        Ok(Summary {
            n,
            mean,
            sd,
            min: s[0],
            max: s[n - 1],
            median,
            cv: if mean != 0.0 { sd / mean.abs() } else { 0.0 },
            ci95_low: mean - half,
            ci95_high: mean + half,
            outliers,
            ci95_caveat: caveat(n, s[0], mean - half),
        })
    }

    /// [`Summary::ci95_caveat`], or for a summary read from a file written before that
    /// field, the same rule applied to its figures.
    pub(crate) fn caveat(&self) -> Option<CiCaveat> {
        self.ci95_caveat
            .or_else(|| caveat(self.n, self.min, self.ci95_low))
    }
}

/// The caveat of an interval over `n` samples whose smallest is `min`.
fn caveat(n: usize, min: f64, ci95_low: f64) -> Option<CiCaveat> {
    if n < 2 {
        Some(CiCaveat::OneSample)
    } else if min >= 0.0 && ci95_low < 0.0 {
        Some(CiCaveat::BelowZero)
    } else {
        None
    }
}

/// Latency percentiles.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Percentiles {
    /// Median.
    pub(crate) p50: f64,
    /// 90th percentile.
    pub(crate) p90: f64,
    /// 99th percentile.
    pub(crate) p99: f64,
    /// 99.9th percentile.
    #[serde(rename = "p99.9")]
    pub(crate) p99_9: f64,
    /// Largest value.
    pub(crate) max: f64,
}

/// Percentiles of raw values (type-7 interpolation); `None` for empty input.
pub(crate) fn percentiles(values: &[f64]) -> Option<Percentiles> {
    if values.is_empty() || values.iter().any(|x| !x.is_finite()) {
        return None;
    }
    let s = sorted(values);
    Some(Percentiles {
        p50: quantile_sorted(&s, 0.50),
        p90: quantile_sorted(&s, 0.90),
        p99: quantile_sorted(&s, 0.99),
        p99_9: quantile_sorted(&s, 0.999),
        max: s[s.len() - 1],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * b.abs().max(1.0)
    }

    #[test]
    fn hand_computed() {
        // 2, 4, 4, 4, 5, 5, 7, 9: mean 5, sample sd = sqrt(32/7) = 2.138089935...
        let s = Summary::of(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]).unwrap();
        assert_eq!(s.n, 8);
        assert!(close(s.mean, 5.0));
        assert!(close(s.sd, (32.0f64 / 7.0).sqrt()));
        assert!(close(s.median, 4.5));
        assert_eq!((s.min, s.max), (2.0, 9.0));
        assert!(close(s.cv, (32.0f64 / 7.0).sqrt() / 5.0));
        // t(0.975, 7) = 2.365; half width = 2.365 * 2.13809 / sqrt(8) = 1.78777...
        let half = 2.365 * (32.0f64 / 7.0).sqrt() / 8.0f64.sqrt();
        assert!(close(s.ci95_low, 5.0 - half));
        assert!(close(s.ci95_high, 5.0 + half));
        // median 4.5, MAD 0.5: 9 has z = 0.6745 * 4.5 / 0.5 = 6.07 > 3.5, 2 has 3.37.
        assert_eq!(s.outliers, 1);
    }

    #[test]
    fn single_sample_and_errors() {
        let s = Summary::of(&[3.0]).unwrap();
        assert_eq!((s.mean, s.sd, s.median, s.cv), (3.0, 0.0, 3.0, 0.0));
        assert_eq!(Summary::of(&[]), Err(StatsError::Empty));
        assert_eq!(Summary::of(&[1.0, f64::NAN]), Err(StatsError::NonFinite));
    }

    /// Issue #32 item 3: one sample is no certainty, and an interval below zero over
    /// figures that cannot be is said to be one; the figures stay as computed.
    #[test]
    fn caveats_of_one_sample_and_of_an_interval_below_zero() {
        let one = Summary::of(&[13.93]).unwrap();
        assert_eq!(one.ci95_caveat, Some(CiCaveat::OneSample));
        assert_eq!((one.ci95_low, one.ci95_high), (13.93, 13.93));
        // CV 62 % over three samples: mean 10, the interval reaches below 0.
        let noisy = Summary::of(&[3.0, 10.0, 17.0]).unwrap();
        assert!(noisy.ci95_low < 0.0, "{noisy:?}");
        assert_eq!(noisy.ci95_caveat, Some(CiCaveat::BelowZero));
        let calm = Summary::of(&[9.9, 10.0, 10.1]).unwrap();
        assert_eq!(calm.ci95_caveat, None);
        // JSON: absent when there is none; old files (without it) get it from the rule.
        let v = serde_json::to_value(&calm).unwrap();
        assert!(v.get("ci95_caveat").is_none(), "{v}");
        let mut v = serde_json::to_value(&one).unwrap();
        assert_eq!(v["ci95_caveat"], "one_sample");
        v.as_object_mut().unwrap().remove("ci95_caveat");
        let old: Summary = serde_json::from_value(v).unwrap();
        assert_eq!(old.ci95_caveat, None);
        assert_eq!(old.caveat(), Some(CiCaveat::OneSample));
    }

    #[test]
    fn outlier_detected() {
        let s = Summary::of(&[10.0, 10.1, 9.9, 10.0, 10.05, 30.0]).unwrap();
        assert_eq!(s.outliers, 1);
    }

    #[test]
    fn percentile_values() {
        let v: Vec<f64> = (1..=1000).map(f64::from).collect();
        let p = percentiles(&v).unwrap();
        assert!(close(p.p50, 500.5));
        assert!(close(p.p90, 900.1));
        assert!(close(p.p99, 990.01));
        assert!(close(p.p99_9, 999.001));
        assert_eq!(p.max, 1000.0);
        assert!(percentiles(&[]).is_none());
    }

    #[test]
    fn t_table() {
        assert_eq!(t_975(1), 12.706);
        assert_eq!(t_975(2), 4.303);
        assert_eq!(t_975(1000), 1.960);
    }
}
