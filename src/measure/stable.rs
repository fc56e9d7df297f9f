//! `--until-stable`: when to stop repeating a case, and which samples to keep. The
//! runner takes samples until [`stable_enough`] says the clean ones are precise enough
//! or the budget is spent; [`split_kept`] then leaves out the disturbed ones.

use super::sample::Sample;
use std::time::Duration;

/// When to stop repeating a case under `--until-stable`: at least `repeat` kept
/// samples (and 3), and the 95 % confidence interval's half-width within `target` of
/// the mean, or `budget` spent. Samples in which a thread lost its core
/// ([`super::share::SampleShare::disturbed`]) are not kept: they are reported as dropped.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub(crate) struct Stable {
    /// Largest accepted CI half-width ÷ mean, e.g. 0.01.
    pub(crate) target: f64,
    /// Most time spent on the timed samples of one case.
    #[serde(serialize_with = "secs_f64")]
    pub(crate) budget: Duration,
}

fn secs_f64<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(d.as_secs_f64())
}

/// Most samples `--until-stable` takes of one case, whatever its budget.
pub(crate) const STABLE_MAX_SAMPLES: usize = 1000;

/// Whether `--until-stable` may stop: at least `repeat` (and 3) undisturbed samples
/// whose 95 % CI half-width is within `target` of their mean.
pub(crate) fn stable_enough(samples: &[Sample], repeat: usize, target: f64) -> bool {
    let kept: Vec<f64> = samples
        .iter()
        .filter(|s| !s.share.disturbed())
        .map(Sample::rate)
        .collect();
    if kept.len() < repeat.max(3) {
        return false;
    }
    match super::stats::Summary::of(&kept) {
        Ok(s) if s.mean != 0.0 => (s.ci95_high - s.mean) / s.mean.abs() <= target,
        _ => false,
    }
}

/// The samples `--until-stable` keeps and those it drops (a thread lost its core or
/// the window saw steal), each dropped one with why. Without `--until-stable`, or when
/// no sample was clean, every sample is kept, disturbed or not (the result says so).
pub(crate) fn split_kept(
    samples: Vec<Sample>,
    stable: bool,
) -> (Vec<Sample>, Vec<(Sample, String)>) {
    if !stable || samples.iter().all(|s| s.share.disturbed()) {
        return (samples, Vec::new());
    }
    let mut kept = Vec::new();
    let mut dropped = Vec::new();
    for s in samples {
        match s.share.why() {
            Some(why) => dropped.push((s, why)),
            None => kept.push(s),
        }
    }
    (kept, dropped)
}

#[cfg(test)]
mod tests {
    use super::super::share::SampleShare;
    use super::*;

    #[test]
    fn split_kept_drops_the_disturbed_and_says_why() {
        let sample = |share: f64| Sample {
            work: 1.0,
            secs: 1.0,
            iters: 1,
            at: 0.0,
            share: SampleShare {
                threads: vec![crate::measure::share::ThreadShare {
                    thread: 2,
                    cpu: Some(1),
                    share,
                    cpu_secs: share,
                    wall_secs: 1.0,
                    nivcsw: 3,
                }],
                ..SampleShare::default()
            },
        };
        let (kept, dropped) = split_kept(vec![sample(1.0), sample(0.5), sample(0.99)], true);
        assert_eq!(kept.len(), 2);
        assert_eq!(dropped.len(), 1);
        assert_eq!(dropped[0].1, "thread 2 (cpu 1) ran 50 % of its window");
        // None clean: nothing is dropped (the result says it could not get a clean set).
        let (kept, dropped) = split_kept(vec![sample(0.5), sample(0.4)], true);
        assert_eq!((kept.len(), dropped.len()), (2, 0));
        // Stability counts the clean samples only.
        let mut v: Vec<Sample> = (0..5).map(|_| sample(1.0)).collect();
        assert!(stable_enough(&v, 3, 0.01));
        assert!(!stable_enough(&v, 6, 0.01));
        v.truncate(2);
        v.push(sample(0.5));
        assert!(!stable_enough(&v, 3, 0.01));
    }
}
