//! The documents of the run history (`peakbench history`): one case's figures over
//! time ([`Series`], one [`CaseSeries`] per case) with their change points, and the
//! method that finds them ([`change_points`]). The history database fills them; the
//! views (`report::view`) render them like every document.
//!
//! **Change points: binary segmentation with a CUSUM statistic on the raw samples and
//! a permutation test over whole runs.** The clean runs' samples, in time order, are
//! one sequence x₁…x_N; a change may only fall between two runs. For a stretch of
//! runs the statistic is `T = max_k |S_k| / √(k (N − k) / N)`, `S_k = Σ_{j≤k} (x_j −
//! x̄)`, over the positions `k` that end a run (Page's CUSUM, E. S. Page, Biometrika 41,
//! 1954, standardised as a change-point statistic, e.g. Hinkley 1971); the split is
//! where it peaks (the weight puts it at a step where `S_k` is flat between two). A stretch
//! that drops and comes back within one searched stretch can hide from this
//! statistic (its two halves cancel); a lasting step, and a staircase, do not. Its significance comes from a
//! permutation test that shuffles whole runs, keeping each run's samples together
//! ([`PERMUTATIONS`] orders from a fixed seed, `p = (1 + #{T_perm ≥ T}) / (1 +
//! PERMUTATIONS)`): the null hypothesis is "the runs came in any order", so the
//! run-to-run noise (another tenant, the clock, the cache of a virtual disk) is in the
//! null and only a shift that lasts several runs is a change. With `p <` [`ALPHA`]
//! the best boundary splits the stretch, and each side is searched again (binary
//! segmentation, Scott & Knott 1974) while it has at least [`MIN_RUNS`] runs.
//! Disturbed runs (the machine was shared: weaker evidence, see
//! `BenchResult::disturbed`) are shown but left out of the search.

use super::model::{Metric, Unit};
use crate::util::rng::XorShift;
use serde::Serialize;

/// Significance level of a change point.
pub(crate) const ALPHA: f64 = 0.05;
/// Permutations per test.
pub(crate) const PERMUTATIONS: usize = 999;
/// Fewest runs in a stretch that is searched for a change (fewer cannot reach
/// `p < ALPHA` by shuffling runs).
pub(crate) const MIN_RUNS: usize = 4;

/// The method, as the views name it.
pub(crate) const METHOD: &str = "binary segmentation, standardised CUSUM of the raw samples at run boundaries, permutation test over whole runs (999, p < 0.05); disturbed runs left out";

/// One run's figure of a case.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Point {
    /// The run's id in the history.
    pub run: i64,
    /// UTC start of the run, RFC 3339.
    pub started_at: String,
    /// The host that measured it.
    pub host: String,
    /// The mean of its samples (`None` when the case did not run: `status` says why).
    pub value: Option<f64>,
    /// `ok`, `skipped` or `failed`.
    pub status: String,
    /// The theoretical peak, when known.
    pub peak: Option<f64>,
    /// value / peak.
    pub efficiency: Option<f64>,
    /// The machine was shared while it measured.
    pub disturbed: bool,
    /// The raw samples.
    pub samples: Vec<f64>,
}

/// A change between two runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChangePoint {
    /// Index in `points` of the first run after the change.
    pub index: usize,
    /// That run's start.
    pub started_at: String,
    /// Mean of the clean samples of the stretch before.
    pub before: f64,
    /// Mean of the clean samples of the stretch after.
    pub after: f64,
    /// `after / before − 1` (`None` when `before` is 0).
    pub rel: Option<f64>,
    /// The permutation test's p-value.
    pub p: f64,
}

/// One case over time.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CaseSeries {
    /// The case (`resource workload [params] metric`).
    pub case: String,
    /// Its metric.
    pub metric: Metric,
    /// Its unit.
    pub unit: Unit,
    /// Oldest first.
    pub points: Vec<Point>,
    /// The changes found, in time order.
    pub change_points: Vec<ChangePoint>,
}

/// `peakbench history show`: cases over time.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Series {
    /// What was selected (host, command, dates), for the title.
    pub title: String,
    /// The method of the change points.
    pub method: &'static str,
    /// One per case.
    pub cases: Vec<CaseSeries>,
}

/// The CUSUM statistic of `runs` (each run's samples) in the given order, and the
/// run after which it peaks: `(T, k)`, `T = max |S_k|`, the change between run `k`
/// and `k + 1`.
fn cusum(runs: &[&[f64]], order: &[usize]) -> (f64, usize) {
    let n: usize = runs.iter().map(|r| r.len()).sum();
    let mean = runs.iter().flat_map(|r| r.iter()).sum::<f64>() / n.max(1) as f64;
    let (mut s, mut m, mut best, mut at) = (0.0f64, 0usize, -1.0f64, 0usize);
    for (k, &i) in order.iter().enumerate().take(order.len().saturating_sub(1)) {
        s += runs[i].iter().map(|x| x - mean).sum::<f64>();
        m += runs[i].len();
        // Standardised: between two steps S_k is flat, and the weight puts its peak
        // at a step, not in the middle of the plateau.
        let w = (m * (n - m)) as f64 / n as f64;
        let t = if w > 0.0 { s.abs() / w.sqrt() } else { 0.0 };
        if t > best {
            best = t;
            at = k;
        }
    }
    (best.max(0.0), at)
}

/// The best split of `runs` and its p-value: `Some((k, p))`, the change after run `k`.
fn test(runs: &[&[f64]], rng: &mut XorShift) -> Option<(usize, f64)> {
    if runs.len() < MIN_RUNS {
        return None;
    }
    let mut order: Vec<usize> = (0..runs.len()).collect();
    let (t, k) = cusum(runs, &order);
    if t <= 0.0 {
        return None;
    }
    let mut as_big = 0usize;
    for _ in 0..PERMUTATIONS {
        // Fisher–Yates over whole runs.
        for i in (1..order.len()).rev() {
            order.swap(i, rng.below(i as u64 + 1) as usize);
        }
        // A tolerance for ties: equal sums in another order differ in the last bits.
        if cusum(runs, &order).0 >= t * (1.0 - 1e-12) {
            as_big += 1;
        }
    }
    Some((k, (1 + as_big) as f64 / (1 + PERMUTATIONS) as f64))
}

/// The change points of `points` (oldest first) by the module's method.
pub(crate) fn change_points(points: &[Point]) -> Vec<ChangePoint> {
    // The clean runs with samples, by their index in `points`.
    let clean: Vec<usize> = (0..points.len())
        .filter(|&i| {
            let p = &points[i];
            !p.disturbed
                && p.value.is_some()
                && p.samples.iter().all(|x| x.is_finite())
                && !p.samples.is_empty()
        })
        .collect();
    let mut rng = XorShift::seeded(0x5eed);
    let mut found = Vec::new();
    // Stretches of `clean` to search: [lo, hi).
    let mut todo = vec![(0usize, clean.len())];
    while let Some((lo, hi)) = todo.pop() {
        let runs: Vec<&[f64]> = clean[lo..hi]
            .iter()
            .map(|&i| points[i].samples.as_slice())
            .collect();
        let Some((k, p)) = test(&runs, &mut rng) else {
            continue;
        };
        if p >= ALPHA {
            continue;
        }
        let split = lo + k + 1;
        let mean = |r: &[&[f64]]| {
            let n: usize = r.iter().map(|s| s.len()).sum();
            r.iter().flat_map(|s| s.iter()).sum::<f64>() / n.max(1) as f64
        };
        let (before, after) = (mean(&runs[..k + 1]), mean(&runs[k + 1..]));
        let index = clean[split];
        found.push(ChangePoint {
            index,
            started_at: points[index].started_at.clone(),
            before,
            after,
            rel: (before != 0.0).then(|| after / before - 1.0),
            p,
        });
        todo.push((lo, split));
        todo.push((split, hi));
    }
    found.sort_by_key(|c| c.index);
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(i: usize, samples: &[f64], disturbed: bool) -> Point {
        let mean = samples.iter().sum::<f64>() / samples.len() as f64;
        Point {
            run: i as i64,
            started_at: format!("2026-11-{:02}T00:00:00Z", i + 1),
            host: "h".into(),
            value: Some(mean),
            status: "ok".into(),
            peak: None,
            efficiency: None,
            disturbed,
            samples: samples.to_vec(),
        }
    }

    /// Run-to-run noise around one level: wiggles of ±1 % with a few samples each.
    fn noisy(level: f64, i: usize) -> Vec<f64> {
        let w = [0.0, 0.01, -0.008, 0.004, -0.01, 0.006, -0.003, 0.009][i % 8];
        (0..3)
            .map(|j| level * (1.0 + w + j as f64 * 0.001))
            .collect()
    }

    #[test]
    fn a_lasting_step_is_one_change_point_at_its_run() {
        let pts: Vec<Point> = (0..12)
            .map(|i| point(i, &noisy(if i < 7 { 100.0 } else { 80.0 }, i), false))
            .collect();
        let cps = change_points(&pts);
        assert_eq!(cps.len(), 1, "{cps:?}");
        assert_eq!(cps[0].index, 7);
        assert!(cps[0].p < ALPHA);
        assert!((cps[0].rel.unwrap() + 0.2).abs() < 0.02, "{:?}", cps[0].rel);
    }

    #[test]
    fn noise_alone_has_no_change_point() {
        let pts: Vec<Point> = (0..12).map(|i| point(i, &noisy(100.0, i), false)).collect();
        assert!(change_points(&pts).is_empty());
    }

    #[test]
    fn two_steps_are_two_change_points() {
        let level = |i: usize| match i {
            0..=5 => 100.0,
            6..=11 => 85.0,
            _ => 70.0,
        };
        let pts: Vec<Point> = (0..18)
            .map(|i| point(i, &noisy(level(i), i), false))
            .collect();
        let at: Vec<usize> = change_points(&pts).iter().map(|c| c.index).collect();
        assert_eq!(at, vec![6, 12]);
    }

    #[test]
    fn disturbed_runs_and_short_series_make_no_change() {
        // One disturbed run far below the others is not a change.
        let mut pts: Vec<Point> = (0..8).map(|i| point(i, &noisy(100.0, i), false)).collect();
        pts[4] = point(4, &[40.0, 41.0, 42.0], true);
        assert!(change_points(&pts).is_empty());
        // Three runs cannot show a change by shuffling runs.
        let pts: Vec<Point> = (0..3)
            .map(|i| point(i, &[10.0 * (i + 1) as f64], false))
            .collect();
        assert!(change_points(&pts).is_empty());
    }
}
