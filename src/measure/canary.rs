//! The canary's rule (issue #31): contention the guest cannot see in CPU time.
//!
//! A sibling hyperthread of the host, another tenant's vCPU on the same core, or the
//! host itself takes *issue slots*, not CPU time: the worker threads keep 100 % of
//! their vCPUs, no steal is reported, no other task is runnable, and the figure still
//! falls. Only a throughput can see it. Around every sample (before the first and
//! after each, while the workers wait), on every worker CPU, a short burst of a loop
//! the execution probe knows (`hw::canary`) measures instructions per cycle; a sample's
//! canary on a CPU is the higher of the bursts before and after it (a disturbance only
//! lowers a throughput, so a sample is marked only when the contention lasted across
//! it), compared with the best rate the run has seen on that CPU ([`Best`]). A sample
//! whose canary fell more than [`CANARY_DROP`] below is marked like a disturbed
//! sample (`SampleShare::disturbed`), with its own words (`host contention: …`).
//!
//! Limits: the first reference is the first burst of the run, so contention present
//! for the whole run, probe included, lowers the best itself and is not seen; a
//! neighbour that comes and goes within one sample, between the bursts, is not seen
//! either. The probe's rule (`hw::probe_settle::settle`) guards the peaks against the
//! first.

use serde::{Deserialize, Serialize};

/// Fraction of its best rate a canary may fall before its sample is marked. A quiet
/// core's bursts repeat within about 1 % (0.5 ms clock and loop readings); a neighbour
/// on the core's issue slots takes 10-50 %.
pub(crate) const CANARY_DROP: f64 = 0.05;

/// A sample's canary on one worker CPU.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct CanaryShare {
    /// The worker CPU.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) cpu: Option<usize>,
    /// Instructions per cycle of the canary loop: the higher of the bursts around the
    /// sample.
    pub(crate) per_cycle: f64,
    /// The best the run had seen on this CPU when the sample was judged.
    pub(crate) best: f64,
}

impl CanaryShare {
    /// `per_cycle ÷ best` (1 when there is no best yet).
    pub(crate) fn ratio(&self) -> f64 {
        if self.best > 0.0 && self.per_cycle.is_finite() {
            (self.per_cycle / self.best).min(1.0)
        } else {
            1.0
        }
    }

    /// Whether the canary fell more than [`CANARY_DROP`] below the best.
    pub(crate) fn fell(&self) -> bool {
        self.ratio() < 1.0 - CANARY_DROP
    }
}

/// One canary burst: the CPU and its instructions per cycle, `None` when the burst's
/// thread lost its core (that is the in-guest check's business) or there is no canary.
pub(crate) type Burst = (Option<usize>, Option<f64>);

/// Two bursts within this (relative) of each other corroborate each other: a quiet
/// core's bursts repeat within about 1 %.
pub(crate) const CONSISTENT: f64 = 0.01;

/// Bursts kept per CPU (the highest): a run's worth (a `cpu` run on two CPUs reads
/// about 500), so the best stands on the bulk of them.
const KEEP: usize = 1024;

/// The best canary rate the run has seen per CPU (`None`: the unpinned thread): the
/// highest burst that a quarter of the kept bursts (at least two) lie within
/// [`CONSISTENT`] of. A burst spoilt upwards (a clock reading cut short by an
/// interrupt reads a lower clock, so more per cycle) is rare and scattered: a few of
/// them agreeing with each other once set the bar 3-6 % above the rate every other
/// burst of a quiet run reached, and marked most rows of it (issue #31, seen on an
/// Emerald Rapids guest: bursts at 2.000 per cycle, a best of 2.06-2.13).
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Best {
    per_cpu: Vec<(Option<usize>, Vec<f64>)>,
}

impl Best {
    /// No burst seen yet.
    pub(crate) const fn new() -> Best {
        Best {
            per_cpu: Vec::new(),
        }
    }

    /// Takes a burst into the best.
    pub(crate) fn update(&mut self, (cpu, v): Burst) {
        let Some(v) = v.filter(|v| v.is_finite() && *v > 0.0) else {
            return;
        };
        let list = match self.per_cpu.iter_mut().position(|(c, _)| *c == cpu) {
            Some(i) => &mut self.per_cpu[i].1,
            None => {
                self.per_cpu.push((cpu, Vec::new()));
                &mut self.per_cpu.last_mut().expect("just pushed").1
            }
        };
        list.push(v);
        list.sort_by(|a, b| b.total_cmp(a));
        list.truncate(KEEP);
    }

    /// The best of a CPU so far: its highest burst that a quarter of the kept bursts
    /// (at least two, itself included) lie within [`CONSISTENT`] of; `None` before
    /// any does.
    pub(crate) fn of(&self, cpu: Option<usize>) -> Option<f64> {
        // Highest first (`update` keeps it sorted).
        let list = &self.per_cpu.iter().find(|(c, _)| *c == cpu)?.1;
        let need = (list.len() / 4).max(2);
        list.iter().copied().find(|&v| {
            let from = list.partition_point(|&x| x > v * (1.0 + CONSISTENT));
            let to = list.partition_point(|&x| x >= v * (1.0 - CONSISTENT));
            to - from >= need
        })
    }

    /// Judges the samples of one case from its bursts: `rounds[0]` before the first
    /// sample, `rounds[i + 1]` after sample `i`. Every burst first goes into the best;
    /// then sample `i` gets, per CPU, the higher of its two bursts against the best.
    /// Returns one list per sample (empty for a sample without bursts around it).
    pub(crate) fn judge(&mut self, rounds: &[Vec<Burst>], samples: usize) -> Vec<Vec<CanaryShare>> {
        for b in rounds.iter().flatten() {
            self.update(*b);
        }
        (0..samples)
            .map(|i| {
                let (Some(a), Some(b)) = (rounds.get(i), rounds.get(i + 1)) else {
                    return Vec::new();
                };
                let mut cpus: Vec<Option<usize>> = a.iter().chain(b).map(|(c, _)| *c).collect();
                cpus.dedup();
                cpus.sort();
                cpus.dedup();
                cpus.into_iter()
                    .filter_map(|cpu| {
                        let around = a
                            .iter()
                            .chain(b)
                            .filter(|(c, _)| *c == cpu)
                            .filter_map(|(_, v)| *v)
                            .filter(|v| v.is_finite() && *v > 0.0)
                            .fold(None, |m: Option<f64>, v| Some(m.map_or(v, |m| m.max(v))))?;
                        Some(CanaryShare {
                            cpu,
                            per_cycle: around,
                            best: self.of(cpu)?,
                        })
                    })
                    .collect()
            })
            .collect()
    }
}

/// The CPUs whose canary fell over a result's samples: per CPU the mean ratio over the
/// samples that have one, when below `1 − CANARY_DROP`, with that mean. One sample in
/// five at 80 % (a neighbour for a moment) is 96 %: not a disturbed result.
pub(crate) fn contended(per_sample: &[&[CanaryShare]]) -> Vec<(Option<usize>, f64)> {
    let mut per: Vec<(Option<usize>, f64, usize)> = Vec::new();
    for c in per_sample.iter().copied().flatten() {
        match per.iter_mut().find(|(cpu, _, _)| *cpu == c.cpu) {
            Some((_, s, n)) => {
                *s += c.ratio();
                *n += 1;
            }
            None => per.push((c.cpu, c.ratio(), 1)),
        }
    }
    per.into_iter()
        .map(|(cpu, s, n)| (cpu, s / n as f64))
        .filter(|(_, m)| *m < 1.0 - CANARY_DROP)
        .collect()
}

/// `cpu 1`, or `the unpinned thread`.
pub(crate) fn cpu_name(cpu: Option<usize>) -> String {
    cpu.map_or("the unpinned thread".into(), |c| format!("cpu {c}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round(v: &[f64]) -> Vec<Burst> {
        v.iter()
            .enumerate()
            .map(|(c, x)| (Some(c), Some(*x)))
            .collect()
    }

    #[test]
    fn a_quiet_run_marks_nothing() {
        // Bursts within 1-2 % of each other: noise of 0.5 ms readings.
        let mut b = Best::default();
        let rounds = [
            round(&[1.98, 1.97]),
            round(&[1.99, 1.96]),
            round(&[1.97, 1.98]),
            round(&[1.96, 1.99]),
        ];
        let j = b.judge(&rounds, 3);
        assert_eq!(j.len(), 3);
        assert!(j.iter().flatten().all(|c| !c.fell()), "{j:?}");
        let refs: Vec<&[CanaryShare]> = j.iter().map(|v| v.as_slice()).collect();
        assert!(contended(&refs).is_empty());
        assert_eq!(b.of(Some(0)), Some(1.99));
    }

    #[test]
    fn one_burst_spoilt_upwards_does_not_raise_the_best() {
        let mut b = Best::default();
        b.update((Some(0), Some(2.4)));
        assert_eq!(b.of(Some(0)), None, "one burst is no best");
        for v in [1.98, 1.97, 1.99] {
            b.update((Some(0), Some(v)));
        }
        assert_eq!(b.of(Some(0)), Some(1.99));
        assert_eq!(b.of(Some(1)), None);
    }

    #[test]
    fn a_few_bursts_spoilt_upwards_do_not_set_the_bar() {
        // Recorded on an Emerald Rapids guest: the 256-bit FMA loop at 2.000 per cycle
        // (two FMA ports), and a few bursts whose clock reading was cut short, which
        // agree with each other within 3 %. The bar is the bulk's, so a quiet burst is
        // no fall.
        let mut b = Best::default();
        for v in [2.0617, 2.0890, 2.1288, 2.0611] {
            b.update((Some(0), Some(v)));
        }
        for i in 0..40 {
            b.update((Some(0), Some(1.9990 + 0.00005 * f64::from(i))));
        }
        let best = b.of(Some(0)).unwrap();
        assert!((1.999..=2.001).contains(&best), "{best}");
        let quiet = CanaryShare {
            cpu: Some(0),
            per_cycle: 1.9996,
            best,
        };
        assert!(!quiet.fell());
        // A neighbour taking 7 % of the issue slots still is one.
        let busy = CanaryShare {
            per_cycle: 1.86,
            ..quiet
        };
        assert!(busy.fell());
    }

    #[test]
    fn a_canary_below_its_best_marks_the_sample_and_the_best_is_the_runs() {
        let mut b = Best::default();
        // An earlier case saw cpu 1 at 2.0, twice.
        b.update((Some(1), Some(2.0)));
        b.update((Some(1), Some(1.99)));
        // This case: cpu 1 at 1.56 (78 %) before and after sample 0 and 1, back after.
        let rounds = [
            round(&[1.99, 1.56]),
            round(&[1.98, 1.55]),
            round(&[1.99, 1.56]),
            round(&[1.99, 1.99]),
        ];
        let j = b.judge(&rounds, 3);
        let cpu1: Vec<f64> = j.iter().map(|s| s[1].ratio()).collect();
        assert!((cpu1[0] - 0.78).abs() < 1e-9, "{cpu1:?}");
        assert!(j[0][1].fell() && j[1][1].fell());
        // Sample 2 had the canary back after it: the higher burst counts.
        assert!(!j[2][1].fell());
        assert!(j.iter().all(|s| !s[0].fell()));
        let refs: Vec<&[CanaryShare]> = j.iter().map(|v| v.as_slice()).collect();
        let c = contended(&refs);
        assert_eq!(c.len(), 1);
        assert_eq!(c[0].0, Some(1));
        assert!((c[0].1 - (0.78 + 0.78 + 0.995) / 3.0).abs() < 1e-9, "{c:?}");
    }

    #[test]
    fn the_threshold_and_missing_bursts() {
        let at = |r: f64| CanaryShare {
            cpu: Some(0),
            per_cycle: r,
            best: 1.0,
        };
        assert!(!at(1.0 - CANARY_DROP).fell());
        assert!(at(1.0 - CANARY_DROP - 0.001).fell());
        assert!(!at(f64::NAN).fell());
        // A burst whose thread lost its core (None) is no figure; a sample with no
        // burst after it has no canary.
        let mut b = Best::default();
        b.update((Some(0), Some(2.01)));
        let j = b.judge(&[vec![(Some(0), None)], vec![(Some(0), Some(2.0))]], 2);
        assert_eq!(j[0].len(), 1);
        assert!(!j[0][0].fell());
        assert!(j[1].is_empty());
        // One sample in five at 80 % is not a contended result.
        let five: Vec<Vec<CanaryShare>> = [0.8, 1.0, 1.0, 0.99, 1.0]
            .iter()
            .map(|r| vec![at(*r)])
            .collect();
        let refs: Vec<&[CanaryShare]> = five.iter().map(|v| v.as_slice()).collect();
        assert!(contended(&refs).is_empty());
    }
}
