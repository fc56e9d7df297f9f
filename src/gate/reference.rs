//! The reference of `check --against history` (issue #44 item 2): per case, the last
//! N runs that **did not fail the gate**, so that a regression stays failed until a
//! person accepts it (`check --against history --accept`), instead of being absorbed
//! by a rolling window after N nights.
//!
//! The candidate runs (oldest first) are the host's runs of the checked run's command
//! and settings, started before it and not before the run last accepted for them
//! (`gate::history`). For each case of the checked run:
//!
//! 1. **Change points.** The case's series over the candidates goes through the run
//!    history's own change-point search (`report::series::change_points`, the method
//!    `history show` marks changes by). A change to a worse level by more than the
//!    case's tolerance holds every run from it up to the next change out of the
//!    reference: those runs measured the regression.
//! 2. **Replay.** The remaining runs are judged in time order, each against the
//!    reference of its own time (its last N good runs, taken as `baseline --from` takes
//!    runs), exactly as `check` would have judged it that night: a run whose median was
//!    beyond the bound (regressed, or inconclusive beyond it) is held out, so it never
//!    becomes part of a later reference. The first runs, with too few before them for a
//!    reference ([`MIN_RUNS`], or the accepted run alone), start it.
//! 3. The case's reference is its last N good runs, taken with `gate::take` (median of
//!    the runs' medians, tolerance widened by their spread, bounded).
//!
//! A case that holds runs out says so in a note (how many, since when), so the reader
//! of a failing check sees why the reference did not move.

use super::baseline::{BaseCase, Baseline, Direction};
use super::check::{judge, Verdict};
use super::take::{shared, take, How, Taken};
use crate::report::compare::CaseKey;
use crate::report::model::Report;
use crate::report::series::{change_points, Point};
use std::collections::{BTreeMap, BTreeSet};

/// Fewest runs of a reference (unless `--runs` asks for fewer, or it starts at an
/// accepted run): one run says nothing about how much its figures move.
pub(crate) const MIN_RUNS: usize = 2;

/// Most candidate runs read back for the replay: a season of nightly runs.
pub(crate) const REPLAY_RUNS: usize = 120;

/// One candidate run.
pub(crate) struct Candidate {
    /// Its id in the history.
    pub(crate) id: i64,
    /// How messages name it.
    pub(crate) label: String,
    /// Its report.
    pub(crate) report: Report,
}

/// The reference made, with what the reader must know.
pub(crate) struct Made {
    /// The baseline, one case per case of the checked run that has a reference.
    pub(crate) baseline: Baseline,
    /// The run ids the reference holds (over all cases), oldest first.
    pub(crate) ids: Vec<i64>,
    /// Results left out of the reference (disturbed, failed), one line each.
    pub(crate) left_out: Vec<String>,
    /// Cases that hold runs out (regressions not accepted), one line each.
    pub(crate) held: Vec<String>,
}

/// The case's tolerance as a fraction of `median` under `how`'s defaults.
fn rel_tolerance(b: &BaseCase, how: &How) -> f64 {
    let t = b
        .tolerance
        .or_else(|| how.defaults.get(b.resource.as_str()).copied())
        .unwrap_or_else(|| super::tolerance::default_tolerance(b.resource));
    t.abs(b.median) / b.median
}

/// A report with only the result of `key` (the first one ok, else the first).
fn only(rep: &Report, key: &CaseKey) -> Report {
    let mut r = rep.clone();
    let mut kept = false;
    r.results.retain(|x| {
        if !kept && CaseKey::of(x) == *key && x.is_ok() {
            kept = true;
            return true;
        }
        false
    });
    r
}

/// A baseline case from `refs` (single-case reports), or `None` when none holds a
/// usable result.
fn reference_of(refs: &[&Report], names: &[String], how: &How) -> Option<(BaseCase, Taken)> {
    let reports: Vec<Report> = refs.iter().map(|r| (*r).clone()).collect();
    let (mut b, t) = take(names, &reports, how).ok()?;
    let c = b.cases.pop()?;
    let tol = b.tolerance_of(&c);
    Some((
        BaseCase {
            tolerance: Some(tol),
            ..c
        },
        t,
    ))
}

/// The reference for `run` from `cands` (oldest first): see the module doc. `n` is
/// `--runs`; `from_accepted` says the first candidate is an accepted run (then one
/// run is a reference).
pub(crate) fn make(
    run: &Report,
    cands: &[Candidate],
    n: usize,
    from_accepted: bool,
    how: &How,
) -> Result<Made, String> {
    let need = if from_accepted { 1 } else { n.min(MIN_RUNS) };
    let keys: BTreeSet<CaseKey> = run.results.iter().map(CaseKey::of).collect();
    let mut cases = Vec::new();
    let mut used: BTreeSet<i64> = BTreeSet::new();
    let mut left_out = Vec::new();
    let mut held = Vec::new();
    let mut tolerance = BTreeMap::new();
    for key in &keys {
        // The candidates holding a measured result of the case.
        let series: Vec<(usize, Report)> = cands
            .iter()
            .enumerate()
            .map(|(i, c)| (i, only(&c.report, key)))
            .filter(|(_, r)| !r.results.is_empty())
            .collect();
        if series.is_empty() {
            continue;
        }
        // The reference of the last `n` of the runs `good`, with them (`None`: fewer
        // than `need`, or no reference).
        let of_last = |good: &[usize]| {
            let last: Vec<usize> = good.iter().rev().take(n).rev().copied().collect();
            if last.len() < need {
                return None;
            }
            let refs: Vec<&Report> = last.iter().map(|&g| &series[g].1).collect();
            let names: Vec<String> = last
                .iter()
                .map(|&g| cands[series[g].0].label.clone())
                .collect();
            reference_of(&refs, &names, how).map(|(bc, t)| (last, bc, t))
        };
        let mut bad = vec![false; series.len()];
        // 1. Change points to a worse level beyond the tolerance.
        let points: Vec<Point> = series
            .iter()
            .map(|(i, r)| {
                let x = &r.results[0];
                Point {
                    run: cands[*i].id,
                    started_at: r.started_at.clone(),
                    host: r.host.hostname.clone(),
                    value: super::check::robust_interval(&x.samples).map(|v| v.0),
                    status: "ok".into(),
                    peak: None,
                    efficiency: None,
                    disturbed: shared(x).is_some(),
                    samples: x.samples.clone(),
                }
            })
            .collect();
        let cps = change_points(&points);
        let direction = Direction::of(key.metric, key.unit);
        let probe = BaseCase {
            resource: key.resource,
            workload: key.workload.clone(),
            params: key.params.clone(),
            metric: key.metric,
            unit: key.unit,
            direction,
            median: 1.0,
            tolerance: None,
            n: None,
            mad: None,
        };
        let tol = rel_tolerance(&probe, how);
        for (j, cp) in cps.iter().enumerate() {
            let Some(rel) = cp.rel else { continue };
            let worse = match direction {
                Direction::Higher => rel < -tol,
                Direction::Lower => rel > tol,
            };
            if worse {
                let end = cps.get(j + 1).map_or(points.len(), |c| c.index);
                bad[cp.index..end].fill(true);
            }
        }
        // 2. Replay: each run against the reference of its own time.
        let mut good: Vec<usize> = Vec::new();
        for (s, (_, r)) in series.iter().enumerate() {
            if bad[s] {
                continue;
            }
            let Some((_, bc, _)) = of_last(&good) else {
                good.push(s);
                continue;
            };
            let tol = bc.tolerance.expect("set by reference_of");
            let c = judge(&bc, tol, &r.host.hostname, r.results.first());
            let median_beyond = c.measured.is_some_and(|m| match direction {
                Direction::Higher => m < c.bound,
                Direction::Lower => m > c.bound,
            });
            let beyond = c.verdict == Verdict::Regressed
                || (median_beyond
                    && c.verdict == Verdict::Inconclusive
                    && !c.why.starts_with("disturbed"));
            if beyond {
                bad[s] = true;
            } else {
                good.push(s);
            }
        }
        let n_bad = bad.iter().filter(|b| **b).count();
        if n_bad > 0 {
            let first = bad.iter().position(|b| *b).unwrap_or(0);
            held.push(format!(
                "{}: {n_bad} run{} from {} on (run {}) held out of the reference: {} beyond its tolerance and not accepted (`peakbench check --against history --accept` accepts the new level)",
                key.label(),
                if n_bad == 1 { "" } else { "s" },
                series[first].1.started_at,
                cands[series[first].0].id,
                if n_bad == 1 { "it was" } else { "they were" },
            ));
        }
        // 3. The last n good runs.
        let Some((last, mut bc, t)) = of_last(&good) else {
            continue;
        };
        left_out.extend(t.left_out);
        left_out.extend(t.capped);
        // The tolerance the case was taken with, kept only when it is its own.
        let own = bc.tolerance;
        let default = how
            .defaults
            .get(bc.resource.as_str())
            .copied()
            .unwrap_or_else(|| super::tolerance::default_tolerance(bc.resource));
        if own == Some(default) {
            bc.tolerance = None;
        }
        tolerance.insert(bc.resource.as_str().to_string(), default);
        used.extend(last.iter().map(|&g| cands[series[g].0].id));
        cases.push(bc);
    }
    // No case with a reference (every earlier result disturbed, failed or held out):
    // an empty baseline, which `check` calls inconclusive, never a pass.
    let baseline = Baseline {
        schema: super::baseline::SCHEMA.into(),
        created: how.created.clone(),
        tool_version: env!("CARGO_PKG_VERSION").into(),
        method: format!(
            "per case the last {n} runs that did not fail the gate (held out: runs after a change to a worse level, and runs beyond the reference of their time, until accepted); the median of their medians, tolerance per resource widened by their spread"
        ),
        command: how.command.clone(),
        shared: false,
        sources: Vec::new(),
        hosts: vec![run.host.hostname.clone()],
        tolerance,
        cases,
    };
    if !baseline.cases.is_empty() {
        baseline.validate()?;
    }
    Ok(Made {
        baseline,
        ids: used.into_iter().collect(),
        left_out,
        held,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::samples;

    /// A run of the fixture's first case (100 GFLOP/s), its samples scaled by `f`.
    fn run(i: i64, f: f64) -> Candidate {
        let mut r = samples::compare_a();
        r.results.truncate(1);
        r.started_at = format!("2026-10-{:02}T00:00:00Z", i + 1);
        for x in &mut r.results {
            x.samples.iter_mut().for_each(|s| *s *= f);
            x.summary = crate::measure::stats::Summary::of(&x.samples).ok();
        }
        Candidate {
            id: i,
            label: format!("run {i}"),
            report: r,
        }
    }

    fn verdict(made: &Made, checked: &Candidate) -> Verdict {
        let c = super::super::check::check(
            &made.baseline,
            "ref",
            &checked.report,
            "run",
            super::super::check::Policy::Allow,
        );
        c.cases[0].verdict
    }

    /// The drop that stays failed: after eight runs at 100 %, every run at 50 % is
    /// regressed, night after night, however many of them the history holds; once a
    /// person accepts one, the next passes against it.
    #[test]
    fn a_regression_stays_failed_until_accepted() {
        let how = How::default();
        let mut cands: Vec<Candidate> = (0..8)
            .map(|i| run(i, 1.0 + 0.002 * (i % 3) as f64))
            .collect();
        for night in 0..10 {
            let checked = run(8 + night, 0.5);
            let made = make(&checked.report, &cands, 5, false, &how).unwrap();
            assert_eq!(
                verdict(&made, &checked),
                Verdict::Regressed,
                "night {night}"
            );
            assert!(
                made.ids.iter().all(|id| *id < 8),
                "night {night}: {:?}",
                made.ids
            );
            if night >= 1 {
                assert!(
                    made.held[0].contains("held out of the reference"),
                    "{:?}",
                    made.held
                );
            }
            cands.push(checked);
        }
        // Accepted at the last run: the reference starts there, one run is enough.
        let from: Vec<Candidate> = cands.drain(17..).collect();
        let checked = run(18, 0.5);
        let made = make(&checked.report, &from, 5, true, &how).unwrap();
        assert_eq!(verdict(&made, &checked), Verdict::Pass);
    }

    /// Noise and a small drift within the tolerance move the reference as before.
    #[test]
    fn noise_within_the_tolerance_rolls_on() {
        let how = How::default();
        let cands: Vec<Candidate> = (0..12).map(|i| run(i, 1.0 - 0.003 * i as f64)).collect();
        let checked = run(12, 0.96);
        let made = make(&checked.report, &cands, 5, false, &how).unwrap();
        assert!(made.held.is_empty(), "{:?}", made.held);
        assert_eq!(made.ids, vec![7, 8, 9, 10, 11]);
        assert_eq!(verdict(&made, &checked), Verdict::Pass);
    }

    /// A case the checked run does not have is no part of the reference (a `--threads
    /// 1` run against a `--threads 1,2` history).
    #[test]
    fn only_the_checked_runs_cases() {
        let how = How::default();
        let cands: Vec<Candidate> = (0..4)
            .map(|i| {
                let mut c = run(i, 1.0);
                c.report = samples::compare_a();
                c
            })
            .collect();
        let checked = run(5, 1.0);
        let made = make(&checked.report, &cands, 5, false, &how).unwrap();
        assert_eq!(made.baseline.cases.len(), 1);
    }
}
