//! `peakbench check`: a run against a baseline, case by case, direction-aware.
//!
//! For each case of the baseline, with `m` its median and `tol` its tolerance in the
//! case's unit, the bound a run must not cross is `m − tol` for rates (higher is
//! better) and `m + tol` for latencies. **The run's figure is the median of its raw
//! samples**, the statistic the baseline holds (issue #44 item 4: one statistic on
//! both sides, so one wild sample moves neither), with a robust 95 % interval
//! `median ± t(0.975, n−1) · 1.2533 · (MAD / 0.6745) / √n` ([`robust_interval`]: the
//! median's standard error for a normal law, `1.2533 σ / √n`, with σ estimated from
//! the median absolute deviation, which one wild sample does not move either). The
//! verdicts:
//!
//! - **regressed**: the whole interval is beyond the bound (for a rate, its upper end is
//!   below `m − tol`);
//! - **improved**: the whole interval is beyond the bound on the better side
//!   (`m + tol` for a rate): time to raise the baseline;
//! - **inconclusive**: the run was disturbed (the machine was shared while it measured:
//!   the result's `disturbed` flag or a `shared` note), it has fewer than
//!   [`MIN_SAMPLES`] samples (no interval), no raw samples at all (a summary alone), a
//!   rate above its theoretical peak by more than [`OVER_PEAK_LIMIT`] (not a believable
//!   measurement, never "improved"), or its median is beyond the bound but its
//!   interval reaches back over it (too few or too spread samples to say);
//! - **missing**: the run has no measured result for the case (absent, skipped or
//!   failed, or a gathered result without raw samples: issue #43 item 9); missing is
//!   never a pass;
//! - **pass**: otherwise.
//!
//! A gathered run (`hosts[]`) is checked host by host: each host's result of a case
//! is one row. The outcome ([`Outcome`], issue #44 item 5): **fail** (exit 1) when a
//! case regressed or is missing, or with `--strict` when one is inconclusive;
//! otherwise **inconclusive** (exit [`EXIT_INCONCLUSIVE`]) when a case is
//! inconclusive, unless `--allow-inconclusive`; else **pass** (exit 0). So a cron job
//! or CI step never reads "no evidence" (a shared machine, a run with one sample) as a
//! pass.

use super::baseline::{BaseCase, Baseline, Direction, Tolerance};
use crate::report::compare::CaseKey;
use crate::report::model::{BenchResult, Report, Status};
use crate::util::units::format_si;
use serde::Serialize;
use std::collections::BTreeMap;

/// Fewest samples with which a case gets a confidence interval and so a verdict.
pub(crate) const MIN_SAMPLES: usize = 2;

/// The exit status of a check whose outcome is inconclusive: no case failed, but some
/// could not be judged (disturbed, too few samples, …).
pub(crate) const EXIT_INCONCLUSIVE: u8 = 3;

/// How far above its theoretical peak a rate may be and still be judged: 1.5 ×, the
/// margin the linear-algebra benchmark refuses a figure beyond (a clock reading or a
/// unit count off by a little explains less; a broken timer or an edited file more).
pub(crate) const OVER_PEAK_LIMIT: f64 = 1.5;

/// `σ ≈ MAD / 0.6745` for a normal law.
const K_MAD: f64 = 0.6745;

/// The standard error of a median is `1.2533 σ / √n` for a normal law (`√(π/2)`).
const MEDIAN_SE: f64 = 1.2533;

/// A run's figure of a case: its median, its number of samples and its robust 95 %
/// interval (`None` below [`MIN_SAMPLES`]).
pub(crate) type Figure = (f64, usize, Option<(f64, f64)>);

/// The run's figure of a case from `samples` ([`Figure`]); `None` without a finite
/// sample.
pub(crate) fn robust_interval(samples: &[f64]) -> Option<Figure> {
    if samples.is_empty() || samples.iter().any(|x| !x.is_finite()) {
        return None;
    }
    let mut v = samples.to_vec();
    v.sort_by(f64::total_cmp);
    let med = |v: &[f64]| {
        let n = v.len();
        if n.is_multiple_of(2) {
            (v[n / 2 - 1] + v[n / 2]) / 2.0
        } else {
            v[n / 2]
        }
    };
    let m = med(&v);
    let n = v.len();
    if n < MIN_SAMPLES {
        return Some((m, n, None));
    }
    let mut dev: Vec<f64> = v.iter().map(|x| (x - m).abs()).collect();
    dev.sort_by(f64::total_cmp);
    let sigma = med(&dev) / K_MAD;
    let half = crate::measure::stats::t_975(n - 1) * MEDIAN_SE * sigma / (n as f64).sqrt();
    Some((m, n, Some((m - half, m + half))))
}

/// What to do with inconclusive cases (issue #44 item 5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Policy {
    /// The default: an inconclusive case makes the outcome inconclusive (exit 3).
    Distinct,
    /// `--strict`: an inconclusive case fails the gate (exit 1).
    Strict,
    /// `--allow-inconclusive`: an inconclusive case passes (exit 0).
    Allow,
}

/// The outcome of a whole check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Outcome {
    /// Every case passed (or improved), or inconclusive ones are allowed: exit 0.
    Pass,
    /// A case regressed or is missing (or, with `--strict`, inconclusive): exit 1.
    Fail,
    /// No case failed, some could not be judged: exit [`EXIT_INCONCLUSIVE`].
    Inconclusive,
}

impl Outcome {
    /// The process exit status.
    pub(crate) fn code(self) -> u8 {
        match self {
            Outcome::Pass => 0,
            Outcome::Fail => 1,
            Outcome::Inconclusive => EXIT_INCONCLUSIVE,
        }
    }

    /// `PASS`, `FAIL`, `INCONCLUSIVE`: the summary's first word.
    pub(crate) fn word(self) -> &'static str {
        match self {
            Outcome::Pass => "PASS",
            Outcome::Fail => "FAIL",
            Outcome::Inconclusive => "INCONCLUSIVE",
        }
    }
}

/// The verdicts in the order the summary counts them.
const ORDER: [Verdict; 5] = [
    Verdict::Pass,
    Verdict::Improved,
    Verdict::Regressed,
    Verdict::Inconclusive,
    Verdict::Missing,
];

/// The verdict of one case.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Verdict {
    /// Within the tolerance, or not shown to be beyond it.
    Pass,
    /// Beyond the tolerance on the worse side, by the whole 95 % interval.
    Regressed,
    /// Beyond the tolerance on the better side, by the whole 95 % interval.
    Improved,
    /// No verdict: disturbed, too few samples, or an interval across the bound.
    Inconclusive,
    /// Not measured in the run.
    Missing,
}

impl Verdict {
    /// As printed: `pass`, `regressed`, …
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::Regressed => "regressed",
            Verdict::Improved => "improved",
            Verdict::Inconclusive => "inconclusive",
            Verdict::Missing => "missing",
        }
    }
}

/// One checked case (on one host).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct CaseCheck {
    /// The case, as `compare` labels it.
    pub(crate) case: CaseKey,
    /// The host whose result it is (the run's host, or a gathered run's host tag).
    pub(crate) host: String,
    /// The verdict.
    pub(crate) verdict: Verdict,
    /// Why, in words.
    pub(crate) why: String,
    /// The baseline's median.
    pub(crate) baseline: f64,
    /// The tolerance as written (`5%`, or the absolute figure).
    pub(crate) tolerance: String,
    /// The bound the run must not cross (`m − tol` for rates, `m + tol` for latencies).
    pub(crate) bound: f64,
    /// Which way is better.
    pub(crate) direction: Direction,
    /// The run's median of its samples (absent when missing).
    pub(crate) measured: Option<f64>,
    /// Its robust 95 % interval (absent with fewer than [`MIN_SAMPLES`] samples).
    pub(crate) ci95: Option<(f64, f64)>,
    /// Its number of samples.
    pub(crate) n: Option<usize>,
    /// `(measured − baseline) / baseline`.
    pub(crate) change: Option<f64>,
}

impl CaseCheck {
    /// The figures of a row in one line: measured (with its interval), baseline,
    /// tolerance, bound; what a JUnit failure says.
    pub(crate) fn figures(&self) -> String {
        let u = self.case.unit.as_str();
        let measured = match (self.measured, self.ci95) {
            (Some(m), Some((lo, hi))) => format!(
                "measured median {} (95 % CI {} to {}, n={})",
                format_si(m, u),
                format_si(lo, u),
                format_si(hi, u),
                self.n.unwrap_or(0)
            ),
            (Some(m), None) => format!(
                "measured median {} (n={})",
                format_si(m, u),
                self.n.unwrap_or(0)
            ),
            _ => "not measured".to_string(),
        };
        let change = self
            .change
            .map(|c| format!(" ({})", crate::report::compare::pct(c)))
            .unwrap_or_default();
        format!(
            "{measured}{change}, baseline {}, tolerance {}, bound {} ({} is better)",
            format_si(self.baseline, u),
            self.tolerance,
            format_si(self.bound, u),
            match self.direction {
                Direction::Higher => "higher",
                Direction::Lower => "lower",
            }
        )
    }
}

/// The whole check.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Check {
    /// Always `peakbench-check/1`.
    pub(crate) schema: String,
    /// The baseline file.
    pub(crate) baseline: String,
    /// The results file.
    pub(crate) results: String,
    /// The run's host(s).
    pub(crate) hosts: Vec<String>,
    /// How the verdicts are reached.
    pub(crate) method: String,
    /// One row per baseline case (and host), in the baseline's order.
    pub(crate) cases: Vec<CaseCheck>,
    /// Count per verdict.
    pub(crate) counts: BTreeMap<&'static str, usize>,
    /// Cases of the run that the baseline does not hold (not checked).
    pub(crate) not_in_baseline: usize,
    /// What the reader must know (another host than the baseline's, …).
    pub(crate) notes: Vec<String>,
    /// `--strict`: inconclusive cases fail too.
    pub(crate) strict: bool,
    /// What inconclusive cases do to the outcome.
    pub(crate) policy: Policy,
    /// The outcome: pass, fail or inconclusive.
    pub(crate) outcome: Outcome,
    /// Whether the gate passed (the outcome is `pass`).
    pub(crate) passed: bool,
    /// The summary line.
    pub(crate) summary: String,
}

/// Judges one result against one baseline case.
pub(crate) fn judge(
    case: &BaseCase,
    tol: Tolerance,
    host: &str,
    r: Option<&BenchResult>,
) -> CaseCheck {
    let d = case.direction;
    let t = tol.abs(case.median);
    let (bound, better_bound) = match d {
        Direction::Higher => (case.median - t, case.median + t),
        Direction::Lower => (case.median + t, case.median - t),
    };
    let mut c = CaseCheck {
        case: case.key(),
        host: host.to_string(),
        verdict: Verdict::Missing,
        why: String::new(),
        baseline: case.median,
        tolerance: tol.show(case.unit),
        bound,
        direction: d,
        measured: None,
        ci95: None,
        n: None,
        change: None,
    };
    let Some(r) = r else {
        c.why = "not in the run".into();
        return c;
    };
    match &r.status {
        Status::Ok => {}
        Status::Skipped { reason } => {
            c.why = format!("skipped in the run: {reason}");
            return c;
        }
        Status::Failed { error } => {
            c.why = format!("failed in the run: {error}");
            return c;
        }
    }
    if r.samples.is_empty() && r.host.is_some() {
        c.why = "a gathered result without raw samples: its summary alone is not trusted".into();
        return c;
    }
    let Some((m, n, ci)) = robust_interval(&r.samples) else {
        c.verdict = Verdict::Inconclusive;
        c.why = if r.samples.is_empty() {
            "no raw samples in the run (a summary alone cannot be judged)".into()
        } else {
            "a sample is not a finite number".into()
        };
        return c;
    };
    c.measured = Some(m);
    c.n = Some(n);
    c.change = Some((m - case.median) / case.median);
    c.ci95 = ci;
    let worse = |x: f64| match d {
        Direction::Higher => x < bound,
        Direction::Lower => x > bound,
    };
    let better = |x: f64| match d {
        Direction::Higher => x > better_bound,
        Direction::Lower => x < better_bound,
    };
    // A rate beyond its theoretical peak by more than the margin a clock reading
    // explains is no measurement of the machine (a broken timer, an edited file).
    let over = r
        .peak
        .as_ref()
        .and_then(|p| p.value)
        .filter(|p| *p > 0.0 && d == Direction::Higher && m > OVER_PEAK_LIMIT * p);
    let (verdict, why) = if let Some(w) = super::take::shared(r) {
        (
            Verdict::Inconclusive,
            format!("disturbed, the machine was shared: {w}"),
        )
    } else if let Some(p) = over {
        (
            Verdict::Inconclusive,
            format!(
                "not a believable measurement: {:.1} x its theoretical peak ({}), beyond the {OVER_PEAK_LIMIT} x a clock reading can explain",
                m / p,
                format_si(p, case.unit.as_str())
            ),
        )
    } else if let Some((lo, hi)) = ci {
        if worse(lo) && worse(hi) {
            (
                Verdict::Regressed,
                "beyond the tolerance by the whole 95 % interval".to_string(),
            )
        } else if better(lo) && better(hi) {
            (
                Verdict::Improved,
                "better than the baseline beyond the tolerance; consider a new baseline"
                    .to_string(),
            )
        } else if worse(m) {
            (
                Verdict::Inconclusive,
                "the median is beyond the bound but its 95 % interval reaches back over it: too few or too spread samples; rerun with more --repeat".to_string(),
            )
        } else {
            (Verdict::Pass, "within the tolerance".to_string())
        }
    } else {
        (
            Verdict::Inconclusive,
            format!(
                "{n} sample{}: no confidence interval; run with --repeat 3 or more",
                if n == 1 { "" } else { "s" }
            ),
        )
    };
    c.verdict = verdict;
    c.why = why;
    c
}

/// Checks `run` (file label `results`) against `baseline` (file label `base_name`).
pub(crate) fn check(
    baseline: &Baseline,
    base_name: &str,
    run: &Report,
    results: &str,
    policy: Policy,
) -> Check {
    let strict = policy == Policy::Strict;
    // The run's hosts: a gathered run's, else its one host.
    let hosts: Vec<String> = if run.hosts.is_empty() {
        vec![run.host.hostname.clone()]
    } else {
        run.hosts.iter().map(|h| h.name.clone()).collect()
    };
    let host_of = |r: &BenchResult| r.host.clone().unwrap_or_else(|| run.host.hostname.clone());
    // (case, host) → the first result; an ok result wins over a skipped or failed one.
    let mut by: BTreeMap<(CaseKey, String), &BenchResult> = BTreeMap::new();
    for r in &run.results {
        let k = (CaseKey::of(r), host_of(r));
        match by.get(&k) {
            Some(prev) if prev.is_ok() || !r.is_ok() => {}
            _ => {
                by.insert(k, r);
            }
        }
    }
    let mut cases = Vec::new();
    let mut keys = std::collections::BTreeSet::new();
    for bc in &baseline.cases {
        let key = bc.key();
        keys.insert(key.clone());
        let tol = baseline.tolerance_of(bc);
        for h in &hosts {
            let r = by.get(&(key.clone(), h.clone())).copied();
            cases.push(judge(bc, tol, h, r));
        }
    }
    let not_in_baseline = by
        .keys()
        .map(|(k, _)| k)
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .filter(|k| !keys.contains(k))
        .count();
    let mut counts: BTreeMap<&'static str, usize> = BTreeMap::new();
    for v in ORDER {
        counts.insert(v.as_str(), cases.iter().filter(|c| c.verdict == v).count());
    }
    let failing = |v: Verdict| {
        v == Verdict::Regressed || v == Verdict::Missing || (strict && v == Verdict::Inconclusive)
    };
    // No case to judge at all (a reference from the history whose every earlier result
    // was disturbed): no evidence, never a pass.
    let none = cases.is_empty();
    let outcome = if cases.iter().any(|c| failing(c.verdict)) || (strict && none) {
        Outcome::Fail
    } else if policy == Policy::Distinct
        && (none || cases.iter().any(|c| c.verdict == Verdict::Inconclusive))
    {
        Outcome::Inconclusive
    } else {
        Outcome::Pass
    };
    let passed = outcome == Outcome::Pass;
    let mut notes = Vec::new();
    if none {
        notes.push(
            "no case of the run has a reference: every earlier result of its cases was disturbed, failed or held out (the machine was shared?)".into(),
        );
    }
    if !baseline.hosts.is_empty() {
        let others: Vec<&String> = hosts
            .iter()
            .filter(|h| !baseline.hosts.contains(h))
            .collect();
        if !others.is_empty() {
            notes.push(format!(
                "the run's host {} is not among the baseline's ({}): figures of another machine",
                others
                    .iter()
                    .map(|h| h.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
                baseline.hosts.join(", ")
            ));
        }
    }
    if baseline.shared {
        notes.push(
            "the baseline was taken on a shared machine (disturbed results in it): its figures say less".into(),
        );
    }
    if !baseline.tool_version.is_empty() && baseline.tool_version != run.tool_version {
        notes.push(format!(
            "the baseline was taken with peakbench {}, the run with {}",
            baseline.tool_version, run.tool_version
        ));
    }
    if not_in_baseline > 0 {
        notes.push(format!(
            "{not_in_baseline} case{} of the run {} not in the baseline (not checked)",
            if not_in_baseline == 1 { "" } else { "s" },
            if not_in_baseline == 1 { "is" } else { "are" }
        ));
    }
    let n = cases.len();
    let parts: Vec<String> = ORDER
        .iter()
        .map(|v| (v.as_str(), counts[v.as_str()]))
        .filter(|(_, k)| *k > 0)
        .map(|(v, k)| format!("{k} {v}"))
        .collect();
    let summary = format!(
        "{}: {n} case{} checked against {base_name}: {}{}",
        outcome.word(),
        if n == 1 { "" } else { "s" },
        parts.join(", "),
        match (policy, outcome) {
            (Policy::Strict, _) => " (--strict: inconclusive fails)",
            (_, Outcome::Inconclusive) =>
                " (exit 3: nothing regressed, but not every case could be judged; --allow-inconclusive passes them, --strict fails them)",
            (Policy::Allow, _) => " (--allow-inconclusive: inconclusive passes)",
            _ => "",
        }
    );
    Check {
        schema: "peakbench-check/1".into(),
        baseline: base_name.to_string(),
        results: results.to_string(),
        hosts,
        method: "per case: the median of the run's raw samples with its robust 95 % interval (median ± t · 1.2533 · MAD/0.6745 / √n); regressed when the whole interval is beyond the baseline's median minus the tolerance (plus, for latencies), improved when beyond it on the better side; disturbed cases, fewer than 2 samples and rates beyond 1.5 x their peak are inconclusive; cases not measured are missing".into(),
        cases,
        counts,
        not_in_baseline,
        notes,
        strict,
        policy,
        outcome,
        passed,
        summary,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::model::{Metric, ResourceName, Unit};

    fn case(metric: Metric, unit: Unit, median: f64) -> BaseCase {
        BaseCase {
            resource: ResourceName::Cpu,
            workload: "w".into(),
            params: String::new(),
            metric,
            unit,
            direction: Direction::of(metric, unit),
            median,
            tolerance: None,
            n: None,
            mad: None,
        }
    }

    fn result(metric: Metric, unit: Unit, samples: &[f64]) -> BenchResult {
        BenchResult::new(ResourceName::Cpu, "w", metric, unit).with_samples(samples.to_vec())
    }

    const T: Tolerance = Tolerance::Relative(0.05);

    #[test]
    fn verdicts_by_direction_and_interval() {
        let ops = case(Metric::Ops, Unit::FlopPerSec, 100.0);
        let j = |s: &[f64]| {
            judge(
                &ops,
                T,
                "h",
                Some(&result(Metric::Ops, Unit::FlopPerSec, s)),
            )
        };
        assert_eq!(j(&[99.0, 100.0, 101.0]).verdict, Verdict::Pass);
        let r = j(&[90.0, 90.5, 91.0]);
        assert_eq!(r.verdict, Verdict::Regressed, "{r:?}");
        assert_eq!(r.bound, 95.0);
        assert!(r.figures().contains("bound 95"), "{}", r.figures());
        assert_eq!(j(&[110.0, 110.5, 111.0]).verdict, Verdict::Improved);
        // One slow sample among good ones: the median does not move.
        let noisy = j(&[100.0, 100.0, 80.0]);
        assert_eq!(noisy.verdict, Verdict::Pass, "{noisy:?}");
        // Spread samples whose median is below the bound: the interval reaches over it.
        let spread = j(&[80.0, 94.0, 110.0]);
        assert_eq!(spread.verdict, Verdict::Inconclusive, "{spread:?}");
        assert_eq!(j(&[90.0]).verdict, Verdict::Inconclusive);
        // Latency: lower is better, the same figures the other way round.
        let lat = case(Metric::Latency, Unit::Second, 100.0);
        let jl = |s: &[f64]| {
            judge(
                &lat,
                T,
                "h",
                Some(&result(Metric::Latency, Unit::Second, s)),
            )
        };
        assert_eq!(jl(&[110.0, 110.5, 111.0]).verdict, Verdict::Regressed);
        assert_eq!(jl(&[90.0, 90.5, 91.0]).verdict, Verdict::Improved);
        assert_eq!(jl(&[99.0, 100.0, 101.0]).verdict, Verdict::Pass);
        // Absolute tolerance.
        let r = judge(
            &ops,
            Tolerance::Absolute(20.0),
            "h",
            Some(&result(Metric::Ops, Unit::FlopPerSec, &[90.0, 90.5, 91.0])),
        );
        assert_eq!((r.verdict, r.bound), (Verdict::Pass, 80.0));
    }

    #[test]
    fn disturbed_is_inconclusive_never_regressed_and_missing_is_no_pass() {
        let ops = case(Metric::Ops, Unit::FlopPerSec, 100.0);
        let mut r = result(Metric::Ops, Unit::FlopPerSec, &[50.0, 50.0, 50.5]);
        r.disturbed = true;
        let c = judge(&ops, T, "h", Some(&r));
        assert_eq!(c.verdict, Verdict::Inconclusive);
        assert!(c.why.starts_with("disturbed"), "{}", c.why);
        assert_eq!(judge(&ops, T, "h", None).verdict, Verdict::Missing);
        let failed = result(Metric::Ops, Unit::FlopPerSec, &[]).failed("boom");
        let c = judge(&ops, T, "h", Some(&failed));
        assert_eq!(c.verdict, Verdict::Missing);
        assert!(c.why.contains("boom"));
    }

    #[test]
    fn a_run_checks_against_its_own_baseline() {
        let run = crate::report::samples::compare_a();
        let (b, _) = super::super::take::take(
            &["a.json".into()],
            std::slice::from_ref(&run),
            &Default::default(),
        )
        .unwrap();
        // The one-sample case is inconclusive: the outcome says so (exit 3) unless
        // allowed, and --strict fails it.
        let c = check(&b, "base.toml", &run, "a.json", Policy::Distinct);
        assert_eq!(c.outcome, Outcome::Inconclusive, "{c:#?}");
        assert!(!c.passed);
        assert!(c.summary.starts_with("INCONCLUSIVE"), "{}", c.summary);
        assert_eq!(c.outcome.code(), EXIT_INCONCLUSIVE);
        assert_eq!(
            check(&b, "b", &run, "a", Policy::Strict).outcome,
            Outcome::Fail
        );
        let c = check(&b, "base.toml", &run, "a.json", Policy::Allow);
        assert!(c.passed, "{c:#?}");
        assert!(c.summary.starts_with("PASS"), "{}", c.summary);
        assert_eq!(c.counts["regressed"] + c.counts["missing"], 0);
        // The baseline raised by 20 % for every case: each measured one regresses.
        let mut raised = b.clone();
        for bc in &mut raised.cases {
            bc.median *= match bc.direction {
                Direction::Higher => 1.3,
                Direction::Lower => 0.7,
            };
        }
        let c = check(&raised, "base.toml", &run, "a.json", Policy::Allow);
        assert!(!c.passed);
        assert!(c.counts["regressed"] > 0, "{c:#?}");
        assert!(c.summary.starts_with("FAIL"), "{}", c.summary);
        // A case the run does not hold is missing, and fails the gate.
        let mut extra = b.clone();
        let mut x = extra.cases[0].clone();
        x.workload = "nothere".into();
        extra.cases.push(x);
        let c = check(&extra, "b", &run, "a", Policy::Allow);
        assert!(!c.passed);
        assert_eq!(c.counts["missing"], 1);
    }

    /// Issue #44 item 4: one wild fast sample does not hide a 30 % regression, and a
    /// figure far above its peak is no improvement.
    #[test]
    fn a_wild_sample_and_an_impossible_figure() {
        let ops = case(Metric::Ops, Unit::FlopPerSec, 100e9);
        let r = result(Metric::Ops, Unit::FlopPerSec, &[70e9, 70e9, 1000e9]);
        let c = judge(&ops, T, "h", Some(&r));
        assert_eq!(c.verdict, Verdict::Regressed, "{c:?}");
        assert_eq!(c.measured, Some(70e9));
        let mut r = result(Metric::Ops, Unit::FlopPerSec, &[1000e9, 1001e9, 1002e9]);
        r.peak = Some(crate::hw::peak::Peak {
            value: Some(100e9),
            source: "test".into(),
        });
        let c = judge(&ops, T, "h", Some(&r));
        assert_eq!(c.verdict, Verdict::Inconclusive, "{c:?}");
        assert!(
            c.why.starts_with("not a believable measurement"),
            "{}",
            c.why
        );
        // Slightly over the peak (a clock reading off a little) is still a figure.
        let mut r = result(Metric::Ops, Unit::FlopPerSec, &[110e9, 110.5e9, 111e9]);
        r.peak = Some(crate::hw::peak::Peak {
            value: Some(100e9),
            source: "test".into(),
        });
        assert_eq!(judge(&ops, T, "h", Some(&r)).verdict, Verdict::Improved);
    }

    /// A reference with no case (every earlier result disturbed): no evidence, so the
    /// outcome is inconclusive, never a pass; --strict fails it.
    #[test]
    fn no_case_to_judge_is_never_a_pass() {
        let run = crate::report::samples::compare_a();
        let (mut b, _) = super::super::take::take(
            &["a.json".into()],
            std::slice::from_ref(&run),
            &Default::default(),
        )
        .unwrap();
        b.cases.clear();
        let c = check(&b, "h", &run, "r", Policy::Distinct);
        assert_eq!(c.outcome, Outcome::Inconclusive, "{c:#?}");
        assert!(
            c.notes[0].starts_with("no case of the run has a reference"),
            "{:?}",
            c.notes
        );
        assert_eq!(
            check(&b, "h", &run, "r", Policy::Strict).outcome,
            Outcome::Fail
        );
        assert_eq!(
            check(&b, "h", &run, "r", Policy::Allow).outcome,
            Outcome::Pass
        );
    }

    /// Issue #43 item 9: a gathered result with a summary and no samples is missing.
    #[test]
    fn a_gathered_summary_without_samples_is_not_trusted() {
        let ops = case(Metric::Ops, Unit::FlopPerSec, 100.0);
        let mut r = result(Metric::Ops, Unit::FlopPerSec, &[100.0, 100.0, 100.0]);
        r.summary = crate::measure::stats::Summary::of(&r.samples).ok();
        r.samples.clear();
        r.host = Some("n1".into());
        let c = judge(&ops, T, "n1", Some(&r));
        assert_eq!(c.verdict, Verdict::Missing, "{c:?}");
        assert!(c.why.contains("not trusted"), "{}", c.why);
        r.host = None;
        assert_eq!(judge(&ops, T, "h", Some(&r)).verdict, Verdict::Inconclusive);
    }

    #[test]
    fn the_robust_interval() {
        assert_eq!(robust_interval(&[]), None);
        assert_eq!(robust_interval(&[5.0]), Some((5.0, 1, None)));
        let (m, n, ci) = robust_interval(&[1.0, 2.0, 3.0, 4.0, 100.0]).unwrap();
        assert_eq!((m, n), (3.0, 5));
        let (lo, hi) = ci.unwrap();
        // MAD 1 → σ 1.4826; half-width 2.776 · 1.2533 · 1.4826 / √5 = 2.307.
        assert!((hi - lo - 2.0 * 2.3068).abs() < 1e-3, "{lo} {hi}");
    }
}
