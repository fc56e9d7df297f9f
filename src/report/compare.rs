//! `peakbench compare`: matches cases across result files and gives, per case, the
//! change of the mean with a 95 % confidence interval computed from the raw samples.
//!
//! Method: Welch's t-interval for the difference of two means with unequal variances,
//! `d = m_b − m_a`, `se = sqrt(s_a²/n_a + s_b²/n_b)`, `d ± t(0.975, ν) · se`, with the
//! Welch–Satterthwaite degrees of freedom
//! `ν = se⁴ / ((s_a²/n_a)²/(n_a−1) + (s_b²/n_b)²/(n_b−1))`
//! (B. L. Welch, "The generalization of Student's problem when several different
//! population variances are involved", Biometrika 34, 1947; F. E. Satterthwaite,
//! Biometrics Bulletin 2, 1946; NIST/SEMATECH e-Handbook §1.3.5.3). ν is rounded down
//! before the t table lookup, which widens the interval slightly (conservative).
//! The relative change and its interval divide by the baseline mean, treated as fixed.
//! Cases with fewer than two samples on either side get no interval, and say so.
//!
//! The interval only knows the spread *within* each run; two runs of the same suite
//! minutes apart differ by more (another process, the clock, a neighbour on the host,
//! the virtual disk's cache), and with dozens of cases a 95 % interval alone excludes
//! 0 somewhere by chance. So a change is **significant** only when, besides its
//! interval excluding 0, it exceeds the run-to-run noise: the two sets of samples do
//! not overlap (every sample of one run beyond every sample of the other), and the
//! relative change is larger than both three times the larger CV of the two runs and
//! a floor per resource ([`noise_floor`]: what repeated quick suites on one shared
//! machine moved by). A change whose interval excludes 0 but that stays inside the
//! noise is reported as `within run-to-run noise`. The comparison also says when the
//! files were measured with different settings, and when most cases of a resource
//! moved the same way (the machine's state changed between the runs).
//!
//! The first file is the baseline; every later file is compared with it. A case is
//! identified by resource, workload, metric, unit and params.
//!
//! This file computes the [`Comparison`]; its views (table, CSV, Markdown, HTML) are in
//! [`super::view`], one module per format.

use super::model::{BenchResult, Metric, Report, ResourceName, Status, Unit};
use crate::measure::stats::{t_975, Summary};
use serde::Serialize;
use std::collections::BTreeMap;

mod key;
mod quick;

pub(crate) use key::CaseKey;

/// What is known of one side of a comparison.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Side {
    /// Number of samples.
    pub(crate) n: usize,
    /// Mean of the samples.
    pub(crate) mean: f64,
    /// Sample standard deviation.
    pub(crate) sd: f64,
    /// Smallest sample.
    pub(crate) min: f64,
    /// Largest sample.
    pub(crate) max: f64,
    /// Whether the run was disturbed (the machine was shared while it measured): a
    /// change on it is weaker evidence, and its verdict says "disturbed".
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub(crate) disturbed: bool,
}

impl Side {
    /// Coefficient of variation (`sd / |mean|`; 0 when the mean is 0).
    fn cv(&self) -> f64 {
        if self.mean == 0.0 {
            0.0
        } else {
            self.sd / self.mean.abs()
        }
    }
}

/// The smallest relative change taken as more than run-to-run noise, per resource:
/// repeated quick suites on one shared 2-vCPU guest moved CPU and memory figures by up
/// to 5-10 %, the virtual disk and loopback network by 20 % and more, between runs
/// minutes apart, with small CVs within each run.
/// The floor is the resource's fact (`ResourceDef::noise_floor_pct`).
pub(crate) fn noise_floor(resource: ResourceName) -> f64 {
    resource.noise_floor()
}

/// How many CVs a change must exceed to be more than noise.
const CV_FACTOR: f64 = 3.0;

/// The change of one case between the baseline and another file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Change {
    /// The case.
    pub(crate) case: CaseKey,
    /// Label of the file compared with the baseline.
    pub(crate) against: String,
    /// The baseline.
    pub(crate) a: Side,
    /// The other file.
    pub(crate) b: Side,
    /// `b.mean − a.mean`.
    pub(crate) diff: f64,
    /// `diff / a.mean` (`None` when the baseline mean is 0).
    pub(crate) rel: Option<f64>,
    /// 95 % interval of `diff` (absent when n < 2 on a side).
    pub(crate) ci95: Option<(f64, f64)>,
    /// 95 % interval of `rel`.
    pub(crate) rel_ci95: Option<(f64, f64)>,
    /// Welch–Satterthwaite degrees of freedom.
    pub(crate) df: Option<f64>,
    /// The relative change below which this case is taken as noise: the larger of
    /// [`noise_floor`] and three times the larger CV.
    pub(crate) noise: f64,
    /// Whether the samples of the two runs do not overlap at all.
    pub(crate) separated: bool,
    /// Whether the change is more than noise: the interval excludes 0, the samples do
    /// not overlap, and the change exceeds `noise`; `None` when there is no interval.
    pub(crate) significant: Option<bool>,
    /// `better`, `worse`, `no significant change`, or why there is no verdict.
    pub(crate) verdict: String,
}

/// A case that could not be compared.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Unmatched {
    /// The case.
    pub(crate) case: CaseKey,
    /// Labels of the files that have it as an ok result.
    pub(crate) present_in: Vec<String>,
    /// Why it is not compared (only in some files, or not ok somewhere).
    pub(crate) reason: String,
}

/// The whole comparison.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparison {
    /// Always `peakbench-compare/1`.
    pub(crate) schema: String,
    /// File labels, baseline first.
    pub(crate) files: Vec<String>,
    /// Hostnames, in the order of `files`.
    pub(crate) hosts: Vec<String>,
    /// How the intervals are computed.
    pub(crate) method: String,
    /// Changes, by case then file.
    pub(crate) changes: Vec<Change>,
    /// Cases not in every file, or not ok in one.
    pub(crate) unmatched: Vec<Unmatched>,
    /// How the files' settings differ from the baseline's (`repeat`, `min_time_s`,
    /// tool version, kernel, CPU, …): figures measured differently may differ for that
    /// reason alone.
    pub(crate) settings: Vec<String>,
    /// Resources most of whose cases moved the same way beyond the noise floor: the
    /// machine's state changed between the runs, or something common to them did.
    pub(crate) shifts: Vec<String>,
}

/// Welch interval for `b − a`; `None` when a side has fewer than two samples.
pub(crate) fn welch(a: &Side, b: &Side) -> Option<(f64, f64, f64)> {
    if a.n < 2 || b.n < 2 {
        return None;
    }
    let va = a.sd * a.sd / a.n as f64;
    let vb = b.sd * b.sd / b.n as f64;
    let se2 = va + vb;
    let diff = b.mean - a.mean;
    if se2 <= 0.0 || !se2.is_finite() {
        // No spread at all: the interval is the point itself.
        let df = (a.n + b.n - 2) as f64;
        return Some((diff, diff, df));
    }
    let denom = va * va / (a.n - 1) as f64 + vb * vb / (b.n - 1) as f64;
    let df = if denom > 0.0 {
        se2 * se2 / denom
    } else {
        (a.n + b.n - 2) as f64
    };
    let t = t_975(df.floor().max(1.0) as usize);
    let half = t * se2.sqrt();
    Some((diff - half, diff + half, df))
}

fn side(r: &BenchResult) -> Option<Side> {
    // From the raw samples when present; a file without samples falls back to its summary.
    let s = Summary::of(&r.samples).ok().or_else(|| r.summary.clone())?;
    Some(Side {
        n: s.n,
        mean: s.mean,
        sd: s.sd,
        min: s.min,
        max: s.max,
        disturbed: r.disturbed,
    })
}

/// Lower is better for latencies, higher for rates.
fn lower_is_better(metric: Metric, unit: Unit) -> bool {
    metric.lower_is_better() || unit.lower_is_better()
}

fn change(case: &CaseKey, against: &str, a: Side, b: Side) -> Change {
    let diff = b.mean - a.mean;
    let rel = (a.mean != 0.0).then(|| diff / a.mean.abs());
    let w = welch(&a, &b);
    let ci95 = w.map(|(lo, hi, _)| (lo, hi));
    let rel_ci95 = match (ci95, a.mean != 0.0) {
        (Some((lo, hi)), true) => Some((lo / a.mean.abs(), hi / a.mean.abs())),
        _ => None,
    };
    let excludes_0 = ci95.map(|(lo, hi)| lo > 0.0 || hi < 0.0);
    let noise = noise_floor(case.resource).max(CV_FACTOR * a.cv().max(b.cv()));
    let separated = b.min > a.max || b.max < a.min;
    let beyond_noise = separated && rel.is_some_and(|r| r.abs() > noise);
    let significant = excludes_0.map(|x| x && beyond_noise);
    let verdict = match (excludes_0, significant) {
        (None, _) => format!("no interval: n < 2 (baseline n={}, other n={})", a.n, b.n),
        (Some(true), Some(false)) => "within run-to-run noise".to_string(),
        (_, Some(false) | None) => "no significant change".to_string(),
        // A change measured while the machine was shared is no evidence about the
        // machine: never "worse" (nor "better"), but "disturbed", naming the run.
        (_, Some(true)) if a.disturbed || b.disturbed => format!(
            "disturbed ({}: the machine was shared)",
            match (a.disturbed, b.disturbed) {
                (true, true) => "both runs",
                (true, false) => "the baseline",
                _ => "this run",
            }
        ),
        (_, Some(true)) => {
            let up = diff > 0.0;
            if up != lower_is_better(case.metric, case.unit) {
                "better".to_string()
            } else {
                "worse".to_string()
            }
        }
    };
    Change {
        case: case.clone(),
        against: against.to_string(),
        a,
        b,
        diff,
        rel,
        ci95,
        rel_ci95,
        df: w.map(|(_, _, df)| df),
        noise,
        separated,
        significant,
        verdict,
    }
}

/// Compares `reports` (labels in `names`), the first being the baseline.
pub fn compare(names: &[String], reports: &[Report]) -> Comparison {
    // For every file: case → first result with that key.
    let maps: Vec<BTreeMap<CaseKey, &BenchResult>> = reports
        .iter()
        .map(|rep| {
            let mut m = BTreeMap::new();
            for r in &rep.results {
                m.entry(CaseKey::of(r)).or_insert(r);
            }
            m
        })
        .collect();
    // Every case once, in first-seen order (a set beside the list: a linear search per
    // result made this quadratic in the number of cases, issue #27 item 5).
    let mut keys: Vec<CaseKey> = Vec::new();
    let mut seen: std::collections::BTreeSet<CaseKey> = std::collections::BTreeSet::new();
    for rep in reports {
        for r in &rep.results {
            let k = CaseKey::of(r);
            if seen.insert(k.clone()) {
                keys.push(k);
            }
        }
    }
    let (alias, kernel_notes) = quick::kernel_aliases(names, reports, &maps);
    let mut changes = Vec::new();
    let mut unmatched = Vec::new();
    for key in keys {
        // A case another file's row was matched to by precision and threads is
        // compared under the baseline's key, not again on its own.
        let consumed = |i: usize| alias[i].values().any(|k| *k == key);
        let holders: Vec<usize> = (0..maps.len())
            .filter(|&i| maps[i].contains_key(&key))
            .collect();
        if !holders.is_empty() && holders.iter().all(|&i| consumed(i)) {
            continue;
        }
        let sides: Vec<Option<Side>> = maps
            .iter()
            .zip(&alias)
            .map(|(m, a)| {
                m.get(a.get(&key).unwrap_or(&key))
                    .filter(|r| r.is_ok())
                    .and_then(|r| side(r))
            })
            .collect();
        let present_in: Vec<String> = names
            .iter()
            .zip(&sides)
            .filter(|(_, s)| s.is_some())
            .map(|(n, _)| n.clone())
            .collect();
        let base = sides.first().cloned().flatten();
        let mut compared = false;
        if let Some(a) = &base {
            for (i, s) in sides.iter().enumerate().skip(1) {
                if let Some(b) = s {
                    changes.push(change(&key, &names[i], a.clone(), b.clone()));
                    compared = true;
                }
            }
        }
        if present_in.len() < names.len() {
            let not_ok: Vec<String> = maps
                .iter()
                .zip(names)
                .filter_map(|(m, n)| {
                    m.get(&key).and_then(|r| match &r.status {
                        Status::Ok => None,
                        Status::Skipped { reason } => Some(format!("{n}: skipped ({reason})")),
                        Status::Failed { error } => Some(format!("{n}: failed ({error})")),
                    })
                })
                .collect();
            let reason = if not_ok.is_empty() {
                let missing: Vec<&str> = names
                    .iter()
                    .filter(|n| !present_in.contains(n))
                    .map(String::as_str)
                    .collect();
                format!("not in {}", missing.join(", "))
            } else {
                not_ok.join("; ")
            };
            let reason = if compared {
                format!("compared where present; {reason}")
            } else {
                reason
            };
            unmatched.push(Unmatched {
                case: key,
                present_in,
                reason,
            });
        }
    }
    let shifts = shifts(&changes);
    Comparison {
        schema: "peakbench-compare/1".into(),
        files: names.to_vec(),
        hosts: reports.iter().map(|r| r.host.hostname.clone()).collect(),
        method: "Welch's t-interval for the difference of means, Welch-Satterthwaite df, 95 %, from the raw samples; significant when the interval excludes 0, the samples of the two runs do not overlap, and the change exceeds the run-to-run noise (3 x the larger CV, at least 5 % for CPU, 10 % for memory and GPU, 20 % for disk and network)".into(),
        settings: settings(names, reports)
            .into_iter()
            .chain(tuning_differences(names, reports))
            .chain(kernel_notes)
            .collect(),
        shifts,
        changes,
        unmatched,
    }
}

/// The settings a measurement depends on, as `name: value` pairs: the run's common
/// options (`repeat`, `min_time_s`, `weak`, …) and what the host was.
fn setting_values(rep: &Report) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = Vec::new();
    if let Some(cfg) = rep.config.as_object() {
        for (k, x) in cfg {
            // Where the results went and how they were shown do not change a figure.
            if ["output", "html", "format", "quiet"].contains(&k.as_str()) {
                continue;
            }
            v.push((k.clone(), x.to_string()));
        }
    }
    v.push(("tool_version".into(), rep.tool_version.clone()));
    v.push(("kernel".into(), rep.host.kernel.clone()));
    v.push(("cpu".into(), rep.host.cpu.model_name.clone()));
    v.push(("cores".into(), rep.host.cpu.cores.to_string()));
    v
}

/// What each run was given (governor, boost, p-state mode, SMT, isolation; #47 item
/// 5), where both it and the baseline recorded it (a report written before it was
/// recorded differs in nothing measurable), one line per file and setting.
fn tuning_differences(names: &[String], reports: &[Report]) -> Vec<String> {
    let Some(base) = reports.first().and_then(|r| r.host.tuning.as_ref()) else {
        return Vec::new();
    };
    let base = base.pairs();
    let mut out = Vec::new();
    for (name, rep) in names.iter().zip(reports).skip(1) {
        let Some(t) = &rep.host.tuning else { continue };
        for ((k, a), (_, b)) in base.iter().zip(t.pairs()) {
            if *a != b {
                out.push(format!("{name}: {k} {b} (baseline {a})"));
            }
        }
    }
    out
}

/// How each file's settings differ from the baseline's, one line per file and setting.
fn settings(names: &[String], reports: &[Report]) -> Vec<String> {
    let Some(base) = reports.first().map(setting_values) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (name, rep) in names.iter().zip(reports).skip(1) {
        let other = setting_values(rep);
        for (k, a) in &base {
            let b = other
                .iter()
                .find(|(kb, _)| kb == k)
                .map(|(_, b)| b.as_str());
            if b != Some(a.as_str()) {
                out.push(format!(
                    "{name}: {k} {} (baseline {a})",
                    b.unwrap_or("absent")
                ));
            }
        }
        for (k, b) in &other {
            if !base.iter().any(|(ka, _)| ka == k) {
                out.push(format!("{name}: {k} {b} (baseline absent)"));
            }
        }
    }
    out
}

/// Resources (per compared file) with at least 3 cases of which three quarters or
/// more moved the same way beyond the resource's noise floor.
fn shifts(changes: &[Change]) -> Vec<String> {
    let mut groups: Vec<((String, ResourceName), Vec<f64>)> = Vec::new();
    for c in changes {
        let Some(r) = c.rel else { continue };
        // A disturbed run's figures say nothing about the machine's state.
        if c.a.disturbed || c.b.disturbed {
            continue;
        }
        let key = (c.against.clone(), c.case.resource);
        // Rates and times move opposite ways: count in "better is up" terms.
        let r = if lower_is_better(c.case.metric, c.case.unit) {
            -r
        } else {
            r
        };
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, v)) => v.push(r),
            None => groups.push((key, vec![r])),
        }
    }
    let mut out = Vec::new();
    for ((against, res), rels) in groups {
        let floor = noise_floor(res);
        let n = rels.len();
        let up = rels.iter().filter(|&&r| r > floor).count();
        let down = rels.iter().filter(|&&r| r < -floor).count();
        let (k, way) = if up >= down {
            (up, "better")
        } else {
            (down, "worse")
        };
        if n >= 3 && 4 * k >= 3 * n {
            let mut sorted = rels.clone();
            sorted.sort_by(f64::total_cmp);
            let median = sorted[n / 2];
            out.push(format!(
                "{against}: {k} of {n} {res} cases moved the same way ({way}, median {}): \
                 the machine's state differed between the runs (other load, clock, a \
                 neighbour on the host) or something common to them changed; rerun both \
                 before reading single cases",
                pct(median)
            ));
        }
    }
    out
}

/// A relative change in percent with its sign: `+5.2 %`.
pub(crate) fn pct(x: f64) -> String {
    format!("{:+.1} %", x * 100.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(n: usize, mean: f64, sd: f64) -> Side {
        Side {
            n,
            mean,
            sd,
            min: mean - sd,
            max: mean + sd,
            disturbed: false,
        }
    }

    #[test]
    fn welch_hand_computed() {
        // a: n=3, mean 10, sd 1; b: n=3, mean 12, sd 1 → se = sqrt(2/3) = 0.8165,
        // df = (2/3)² / (2 · (1/3)² / 2) = 4, t(0.975, 4) = 2.776, half = 2.2666.
        let (lo, hi, df) = welch(&s(3, 10.0, 1.0), &s(3, 12.0, 1.0)).unwrap();
        assert!((df - 4.0).abs() < 1e-9);
        let half = 2.776 * (2.0f64 / 3.0).sqrt();
        assert!((lo - (2.0 - half)).abs() < 1e-9);
        assert!((hi - (2.0 + half)).abs() < 1e-9);
        // Unequal variances and sizes: df strictly between min(n)−1 and n_a+n_b−2.
        let (_, _, df) = welch(&s(4, 10.0, 3.0), &s(10, 11.0, 0.5)).unwrap();
        assert!(df > 3.0 && df < 12.0, "{df}");
    }

    #[test]
    fn welch_edge_cases() {
        assert!(welch(&s(1, 10.0, 0.0), &s(3, 12.0, 1.0)).is_none());
        let (lo, hi, _) = welch(&s(2, 5.0, 0.0), &s(2, 6.0, 0.0)).unwrap();
        assert_eq!((lo, hi), (1.0, 1.0));
    }

    #[test]
    fn fixture_files_compare_as_designed() {
        use crate::report::samples;
        let names = vec!["a".to_string(), "b".to_string()];
        let c = compare(&names, &[samples::compare_a(), samples::compare_b()]);
        let by = |w: &str| {
            c.changes
                .iter()
                .find(|ch| ch.case.label().contains(w))
                .unwrap_or_else(|| panic!("{w}"))
        };
        let t1 = by("threads=1");
        assert_eq!(t1.significant, Some(true));
        assert_eq!(t1.verdict, "better");
        assert!((t1.rel.unwrap() - 0.10).abs() < 1e-9);
        let (lo, hi) = t1.rel_ci95.unwrap();
        assert!(lo > 0.08 && hi < 0.12, "{lo} {hi}");
        let t2 = by("threads=2");
        assert_eq!(t2.significant, Some(false));
        assert_eq!(t2.verdict, "no significant change");
        assert_eq!(by("chase").verdict, "worse");
        assert!(by("threads=4").verdict.starts_with("no interval"));
        assert_eq!(c.changes.len(), 4);
        assert_eq!(c.unmatched.len(), 2);
        assert!(c.unmatched.iter().any(|u| u.reason == "not in b"));
        assert!(c.unmatched.iter().any(|u| u.reason == "not in a"));
        // Its views: `view`'s `every_document_in_every_format`.
    }

    /// Two runs of the same suite: each case's samples moved by less than its noise
    /// (floor or 3 CVs), as between runs minutes apart: nothing is significant, though
    /// the within-run interval alone excludes 0 for every case; moved by twice the
    /// noise: every case is.
    #[test]
    fn run_to_run_noise_is_not_significant() {
        let base = crate::report::samples::compare_a();
        let shifted = |factor: f64| {
            let mut rep = base.clone();
            for r in &mut rep.results {
                let floor = noise_floor(r.resource);
                let Some(a) = side(r) else { continue };
                let noise = floor.max(CV_FACTOR * a.cv());
                let samples: Vec<f64> = r
                    .samples
                    .iter()
                    .map(|x| x * (1.0 + factor * noise))
                    .collect();
                // `side` reads the raw samples.
                r.samples = samples;
            }
            rep
        };
        let names = vec!["a".to_string(), "b".to_string()];
        let near = compare(&names, &[base.clone(), shifted(0.9)]);
        assert!(!near.changes.is_empty());
        for ch in &near.changes {
            if ch.ci95.is_some() {
                assert_eq!(ch.significant, Some(false), "{ch:?}");
            }
        }
        assert!(near
            .changes
            .iter()
            .any(|ch| ch.verdict == "within run-to-run noise"));
        let far = compare(&names, &[base.clone(), shifted(2.0)]);
        for ch in far.changes.iter().filter(|ch| ch.ci95.is_some()) {
            assert_eq!(ch.significant, Some(true), "{ch:?}");
        }
        // Same settings: nothing said about them.
        assert!(near.settings.is_empty(), "{:?}", near.settings);
    }

    #[test]
    fn different_settings_are_named() {
        let a = crate::report::samples::compare_a();
        let mut b = a.clone();
        b.config = serde_json::json!({"repeat": 10});
        b.host.kernel = "6.9.0".into();
        let c = compare(&["a".into(), "b".into()], &[a, b]);
        assert!(c
            .settings
            .iter()
            .any(|x| x.starts_with("b: kernel 6.9.0 (baseline")));
        assert!(c
            .settings
            .iter()
            .any(|x| x.starts_with("b: repeat 10 (baseline")));
        // How the views show them: `view`'s `different_settings_show_in_table_and_markdown`.
    }

    #[test]
    fn a_different_governor_or_boost_is_named() {
        let mut a = crate::report::samples::compare_a();
        let mut b = a.clone();
        let mut t = crate::hw::tuning::Tuning {
            governor: Some("performance".into()),
            boost: Some(true),
            ..Default::default()
        };
        a.host.tuning = Some(t.clone());
        t.governor = Some("powersave".into());
        t.boost = Some(false);
        b.host.tuning = Some(t);
        let c = compare(&["a".into(), "b".into()], &[a.clone(), b.clone()]);
        assert!(c
            .settings
            .contains(&"b: governor powersave (baseline performance)".to_string()));
        assert!(c
            .settings
            .contains(&"b: boost off (baseline on)".to_string()));
        // A report written before the settings were recorded differs in none of them.
        b.host.tuning = None;
        let c = compare(&["a".into(), "b".into()], &[a, b]);
        assert!(!c.settings.iter().any(|s| s.contains("governor")));
    }

    #[test]
    fn verdicts() {
        let k = |metric: Metric, unit: Unit| CaseKey {
            resource: ResourceName::Null,
            workload: "w".into(),
            metric,
            unit,
            params: String::new(),
        };
        let ops = k(Metric::Ops, Unit::OpPerSec);
        let up = change(&ops, "b", s(5, 100.0, 1.0), s(5, 110.0, 1.0));
        assert_eq!(up.verdict, "better");
        assert!((up.rel.unwrap() - 0.1).abs() < 1e-12);
        let lat = change(
            &k(Metric::Latency, Unit::Second),
            "b",
            s(5, 100.0, 1.0),
            s(5, 110.0, 1.0),
        );
        assert_eq!(lat.verdict, "worse");
        let same = change(&ops, "b", s(3, 100.0, 10.0), s(3, 101.0, 10.0));
        assert_eq!(same.significant, Some(false));
        assert_eq!(same.verdict, "no significant change");
        let one = change(&ops, "b", s(1, 100.0, 0.0), s(3, 101.0, 10.0));
        assert!(one.verdict.starts_with("no interval: n < 2"));
        assert!(one.ci95.is_none());
    }

    #[test]
    fn a_change_on_a_disturbed_run_is_disturbed_never_worse() {
        let ops = CaseKey {
            resource: ResourceName::Cpu,
            workload: "dp_bf16_avx512bf16".into(),
            metric: Metric::Ops,
            unit: Unit::FlopPerSec,
            params: "threads=2".into(),
        };
        // The row: 465.9 GFLOP/s quiet, 234.5 with a busy neighbour on cpu 1.
        let quiet = s(3, 465.9e9, 0.2e9);
        let busy = Side {
            disturbed: true,
            ..s(3, 234.5e9, 0.1e9)
        };
        let c = change(&ops, "b", quiet.clone(), busy.clone());
        assert_eq!(c.significant, Some(true));
        assert!(
            c.verdict.starts_with("disturbed (this run:"),
            "{}",
            c.verdict
        );
        let c = change(&ops, "b", busy.clone(), quiet);
        assert!(
            c.verdict.starts_with("disturbed (the baseline:"),
            "{}",
            c.verdict
        );
        // Noise stays noise, disturbed or not.
        let c = change(&ops, "b", busy.clone(), busy);
        assert_eq!(c.verdict, "no significant change");
        // The disturbed side is in the JSON; a clean one does not carry the field.
        let v = serde_json::to_value(&c).unwrap();
        assert_eq!(v["a"]["disturbed"], true);
        assert!(serde_json::to_value(s(3, 1.0, 0.0))
            .unwrap()
            .get("disturbed")
            .is_none());
    }

    fn quick(kernel: &str, isa: &str, scale: f64) -> Report {
        let mut rep = crate::report::samples::compare_a();
        rep.config = serde_json::json!({"command": {"command": "quick"}, "repeat": 3});
        for r in &mut rep.results {
            if r.resource == ResourceName::Cpu && r.workload == "fma_f64_avx512" {
                *r = crate::report::samples::cpu_ops(kernel, Unit::FlopPerSec)
                    .param("precision", "fp64")
                    .param("isa", isa)
                    .param("threads", r.param_u64("threads").unwrap())
                    .with_samples(r.samples.iter().map(|x| x * scale).collect());
            }
        }
        rep
    }

    /// Issue #26: two quick suites that chose muladd_f64_avx and fma_f64_avx2 for fp64
    /// left every fp64 row unmatched; they are compared by precision and threads, and
    /// the comparison says which kernels it compared.
    #[test]
    fn quick_rows_of_different_kernels_are_matched_and_named() {
        let a = quick("muladd_f64_avx", "avx", 1.0);
        let b = quick("fma_f64_avx2", "avx2", 1.0);
        let c = compare(&["a.json".into(), "b.json".into()], &[a.clone(), b.clone()]);
        let fp64: Vec<_> = c
            .changes
            .iter()
            .filter(|ch| ch.case.workload == "muladd_f64_avx")
            .collect();
        assert_eq!(fp64.len(), 3, "{c:#?}");
        assert!(
            !c.unmatched.iter().any(|u| u.case.workload.contains("f64")),
            "{:#?}",
            c.unmatched
        );
        assert!(
            c.settings.contains(&"b.json: cpu [precision=fp64 threads=1] ops ran kernel fma_f64_avx2 (baseline muladd_f64_avx): the quick suites chose different kernels; compared by precision and threads".to_string()),
            "{:#?}",
            c.settings
        );
        // Files that are not quick suites keep their kernels apart.
        let mut b2 = b;
        b2.config = serde_json::json!({"command": {"command": "cpu"}, "repeat": 3});
        let c = compare(&["a.json".into(), "b.json".into()], &[a, b2]);
        assert!(!c
            .changes
            .iter()
            .any(|ch| ch.case.workload == "muladd_f64_avx"));
        assert_eq!(
            c.unmatched
                .iter()
                .filter(|u| u.case.workload.contains("f64"))
                .count(),
            6
        );
    }
}
