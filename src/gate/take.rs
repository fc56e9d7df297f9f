//! Taking a baseline from known-good runs (`peakbench baseline --from`, `--from-history`,
//! and the reference `check --against history` takes in memory): per case the reference
//! figure and its tolerance.
//!
//! - **One statistic** (issue #44 item 4): a source's figure for a case is the
//!   **median** of its samples, the statistic `check` judges a run by, so one wild
//!   sample moves neither side. One source: the case's median is that median. Several
//!   sources (files, hosts of a gathered file, runs of the history): the median of the
//!   sources' medians, as `peakbench fleet` takes the median of its hosts' figures.
//! - **Widening, bounded** (issue #44 item 3): from at least [`MIN_SPREAD_SOURCES`]
//!   sources a case's tolerance is widened to [`MAD_K`] robust standard deviations of
//!   the sources' figures (`MAD_K · MAD / 0.6745`) where that is wider than the
//!   resource's, and never beyond [`MAX_RELATIVE`] of the median: two sources have no
//!   robust spread (their MAD is half their difference: two runs at 100 and 80 would
//!   widen a 5 % tolerance to 57.7 %), and a bound below half the median (or below zero,
//!   from sources at 10, 100 and 1000) is no gate. A capped case says so on stderr.
//! - Results that are no evidence about the machine are left out, each named: not
//!   measured, a gathered result without raw samples (a summary alone is what a forged
//!   rank sends, issue #43 item 9), and disturbed ones unless `--allow-disturbed`
//!   (issue #44 item 5: a baseline on a shared machine, which then says so in the file).

use super::baseline::{BaseCase, Baseline, Direction, SCHEMA};
use super::tolerance::{default_tolerance, max_shown, Tolerance, MAX_RELATIVE};
use crate::report::compare::CaseKey;
use crate::report::model::{BenchResult, Report, ResourceName};
use std::collections::BTreeMap;

/// How many robust standard deviations a host may fall from a fleet's median before it
/// fails: 3.5, the threshold `peakbench fleet` marks outliers by (Iglewicz and
/// Hoaglin's modified z-score), so a host passes the gate when fleet would not call it
/// a slow outlier.
pub(crate) const MAD_K: f64 = 3.5;

/// `0.6745`: `MAD / 0.6745` estimates σ for a normal law.
const K_MAD: f64 = 0.6745;

/// Fewest sources whose spread widens a tolerance: with two, the MAD is half their
/// difference, no estimate of a spread.
pub(crate) const MIN_SPREAD_SOURCES: usize = 3;

/// What `baseline` made of its inputs, besides the baseline.
#[derive(Debug, Default)]
pub(crate) struct Taken {
    /// Results left out and why (disturbed, not ok), one line each.
    pub(crate) left_out: Vec<String>,
    /// Cases whose widened tolerance was capped at [`MAX_RELATIVE`], one line each.
    pub(crate) capped: Vec<String>,
}

/// How a baseline is taken besides its sources.
#[derive(Debug, Clone, Default)]
pub(crate) struct How {
    /// The `[tolerance]` table: resource name → tolerance.
    pub(crate) defaults: BTreeMap<String, Tolerance>,
    /// When it is written (RFC 3339).
    pub(crate) created: String,
    /// `--allow-disturbed`: disturbed results are taken too (a shared machine).
    pub(crate) allow_disturbed: bool,
    /// The command of the runs (`quick`, `cpu`, …), when one.
    pub(crate) command: Option<String>,
}

/// The results a baseline may be taken from: measured (`ok`), with samples (a gathered
/// result: raw samples, never a summary alone), and not disturbed unless
/// `allow_disturbed`.
fn usable(r: &BenchResult, allow_disturbed: bool) -> Result<(), &'static str> {
    if !r.is_ok() {
        Err("not measured (skipped or failed)")
    } else if !allow_disturbed && shared(r).is_some() {
        Err("disturbed (the machine was shared while it measured; --allow-disturbed takes it, saying so in the file)")
    } else if r.samples.is_empty() && r.host.is_some() {
        Err("a gathered result without raw samples (a summary alone is not a measurement)")
    } else if r.samples.is_empty() && r.summary.is_none() {
        Err("no samples")
    } else {
        Ok(())
    }
}

/// A source's figure of a case: the median of its samples, else (a file written
/// without samples) its summary's median.
fn figure(r: &BenchResult) -> Option<(f64, usize)> {
    match crate::measure::stats::Summary::of(&r.samples) {
        Ok(s) => Some((s.median, s.n)),
        Err(_) => r.summary.as_ref().map(|s| (s.median, s.n)),
    }
}

/// Takes a baseline from known-good runs (`names`: their labels), see the module
/// doc: one source gives per case the median of its samples and the resource's
/// tolerance; several give the median of their medians, the tolerance widened by their
/// spread (from [`MIN_SPREAD_SOURCES`] on) and capped at [`MAX_RELATIVE`].
pub(crate) fn take(
    names: &[String],
    reports: &[Report],
    how: &How,
) -> Result<(Baseline, Taken), String> {
    let mut taken = Taken::default();
    let mut disturbed_taken = 0usize;
    // Only the results a baseline may hold, so that the fleet sees known-good figures.
    let mut clean: Vec<Report> = reports.to_vec();
    for (name, rep) in names.iter().zip(clean.iter_mut()) {
        rep.results
            .retain(|r| match usable(r, how.allow_disturbed) {
                Ok(()) => true,
                Err(why) => {
                    let host = r
                        .host
                        .as_deref()
                        .map(|h| format!(" on {h}"))
                        .unwrap_or_default();
                    taken
                        .left_out
                        .push(format!("{name}: {}{host}: {why}", CaseKey::of(r).label()));
                    false
                }
            });
        for r in &mut rep.results {
            if shared(r).is_some() {
                // Taken on purpose (--allow-disturbed): the fleet must not drop it.
                disturbed_taken += 1;
                r.disturbed = false;
                r.notes
                    .retain(|n| n.kind != crate::report::model::NoteKind::Shared);
            }
            // One statistic on both sides: a source's figure is its median.
            if let Some((median, _)) = figure(r) {
                if let Some(s) = r.summary.as_mut() {
                    s.mean = median;
                } else {
                    r.summary = crate::measure::stats::Summary::of(&r.samples).ok();
                    if let Some(s) = r.summary.as_mut() {
                        s.mean = median;
                    }
                }
            }
        }
    }
    let sources: usize = clean
        .iter()
        .map(|r| if r.hosts.is_empty() { 1 } else { r.hosts.len() })
        .sum();
    let tol_of = |res: ResourceName| {
        how.defaults
            .get(res.as_str())
            .copied()
            .unwrap_or_else(|| default_tolerance(res))
    };
    let mut cases = Vec::new();
    let mut method;
    if sources <= 1 {
        method = "one run: per case the median of its samples; tolerance per resource".to_string();
        let mut seen = std::collections::BTreeSet::new();
        for r in clean.iter().flat_map(|rep| &rep.results) {
            let key = CaseKey::of(r);
            if !seen.insert(key.clone()) {
                continue;
            }
            let Some((median, n)) = figure(r) else {
                continue;
            };
            cases.push(base_case(key, median, None, Some(n as u64), None));
        }
    } else {
        method = format!(
            "{sources} sources: per case the median of their medians (as peakbench fleet); tolerance per resource, widened to {MAD_K} x MAD / 0.6745 where that is wider (from {MIN_SPREAD_SOURCES} sources on), at most {}",
            max_shown()
        );
        let fleet = crate::report::fleet::fleet(names, &clean, Default::default());
        if let Some(w) = fleet.workloads.iter().find(|w| w.settings.is_some()) {
            return Err(format!(
                "{} was run with differing settings across the files ({}); take a baseline from runs with the same settings",
                w.case.label(),
                w.settings.as_deref().unwrap_or_default()
            ));
        }
        for w in &fleet.workloads {
            if !(w.median.is_finite() && w.median > 0.0) {
                continue;
            }
            let base = tol_of(w.case.resource).abs(w.median);
            let robust = MAD_K * w.mad / K_MAD;
            let tol = (w.n >= MIN_SPREAD_SOURCES && robust > base).then(|| {
                // Rounded up to 0.1 % so the file reads well and never tightens it.
                let pct = (robust / w.median * 1000.0).ceil() / 1000.0;
                if pct > MAX_RELATIVE {
                    taken.capped.push(format!(
                        "{}: the sources spread {:.1} % (3.5 robust sd); the tolerance is capped at {}",
                        w.case.label(),
                        robust / w.median * 100.0,
                        max_shown()
                    ));
                }
                Tolerance::Relative(pct.min(MAX_RELATIVE))
            });
            cases.push(base_case(
                w.case.clone(),
                w.median,
                tol,
                Some(w.n as u64),
                Some(w.mad),
            ));
        }
    }
    if cases.is_empty() {
        return Err(format!(
            "no case to take a baseline from: {} holds no measured, undisturbed case; give results files of a known-good run{}",
            names.join(", "),
            if how.allow_disturbed { "" } else { " (on a shared machine: --allow-disturbed)" }
        ));
    }
    if disturbed_taken > 0 {
        method.push_str(&format!(
            "; SHARED MACHINE: {disturbed_taken} disturbed result{} taken (--allow-disturbed)",
            if disturbed_taken == 1 { "" } else { "s" }
        ));
    }
    let mut hosts: Vec<String> = Vec::new();
    for rep in reports {
        let hs: Vec<String> = if rep.hosts.is_empty() {
            vec![rep.host.hostname.clone()]
        } else {
            rep.hosts.iter().map(|h| h.name.clone()).collect()
        };
        for h in hs {
            if !hosts.contains(&h) {
                hosts.push(h);
            }
        }
    }
    // Every resource of the baseline gets its line in [tolerance], to be edited.
    let mut tolerance = BTreeMap::new();
    for c in &cases {
        tolerance.insert(c.resource.as_str().to_string(), tol_of(c.resource));
    }
    let b = Baseline {
        schema: SCHEMA.into(),
        created: how.created.clone(),
        tool_version: env!("CARGO_PKG_VERSION").into(),
        method,
        command: how.command.clone(),
        shared: disturbed_taken > 0,
        sources: names.to_vec(),
        hosts,
        tolerance,
        cases,
    };
    // Every baseline made, in memory or for a file, holds to what a file must.
    b.validate()?;
    Ok((b, taken))
}

fn base_case(
    key: CaseKey,
    median: f64,
    tolerance: Option<Tolerance>,
    n: Option<u64>,
    mad: Option<f64>,
) -> BaseCase {
    BaseCase {
        direction: Direction::of(key.metric, key.unit),
        resource: key.resource,
        workload: key.workload,
        params: key.params,
        metric: key.metric,
        unit: key.unit,
        median,
        tolerance,
        n,
        mad,
    }
}

/// Why a result's figure is no evidence about the machine, if it is not: it was
/// disturbed (`disturbed`), or a `shared` note says the machine was shared (host
/// contention included).
pub(crate) fn shared(r: &BenchResult) -> Option<String> {
    let note = r
        .notes
        .iter()
        .find(|n| n.kind == crate::report::model::NoteKind::Shared)
        .map(|n| n.text.clone());
    match (r.disturbed, note) {
        (_, Some(n)) => Some(n),
        (true, None) => Some("the result is marked disturbed".into()),
        (false, None) => None,
    }
}

/// Now, as RFC 3339 seconds: when a baseline or an acceptance is made.
pub(crate) fn now() -> String {
    humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string()
}

/// The command of `reports` when they are all of one (`quick`, `cpu`, …).
pub(crate) fn one_command(reports: &[Report]) -> Option<String> {
    let mut cmds = reports.iter().map(crate::history::record::command);
    let first = cmds.next()?;
    (first != "unknown" && cmds.all(|c| c == first)).then_some(first)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::tolerance::default_tolerance;
    use crate::report::samples;

    fn one() -> Baseline {
        take(
            &["a.json".into()],
            &[samples::compare_a()],
            &How {
                created: "2026-11-26T00:00:00Z".into(),
                command: Some("quick".into()),
                ..Default::default()
            },
        )
        .unwrap()
        .0
    }

    #[test]
    fn a_baseline_reads_back_as_written() {
        let b = one();
        assert!(!b.cases.is_empty());
        let text = b.to_toml();
        assert!(text.starts_with("# peakbench baseline"), "{text}");
        let back = Baseline::parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(back, b);
        // One run: the median of the samples, the resource's default tolerance.
        let c = &b.cases[0];
        assert_eq!(b.tolerance_of(c), default_tolerance(c.resource));
        assert!(b.tolerance.contains_key(c.resource.as_str()));
    }

    #[test]
    fn a_fleet_baseline_is_the_median_with_a_robust_tolerance() {
        let base = samples::compare_a();
        let host = |name: &str, f: f64| {
            let mut r = base.clone();
            r.host.hostname = name.into();
            for x in &mut r.results {
                x.samples.iter_mut().for_each(|s| *s *= f);
                x.summary = crate::measure::stats::Summary::of(&x.samples).ok();
            }
            r
        };
        let names: Vec<String> = (1..=5).map(|i| format!("h{i}.json")).collect();
        // A spread of ±20 %: 3.5 robust sd is far beyond the 5 % default.
        let reports = vec![
            host("h1", 1.0),
            host("h2", 1.2),
            host("h3", 0.8),
            host("h4", 1.1),
            host("h5", 0.9),
        ];
        let (b, _) = take(&names, &reports, &How::default()).unwrap();
        assert_eq!(b.hosts.len(), 5);
        let c = b
            .cases
            .iter()
            .find(|c| c.resource == ResourceName::Cpu)
            .unwrap();
        assert_eq!(c.n, Some(5));
        let median1 = crate::measure::stats::Summary::of(
            &base
                .results
                .iter()
                .find(|r| CaseKey::of(r) == c.key())
                .unwrap()
                .samples,
        )
        .unwrap()
        .median;
        assert!((c.median - median1).abs() < 1e-6 * median1);
        // MAD = 0.1 x median → 3.5 x 0.1 / 0.6745 = 51.9 %: capped at 50 %, said so.
        assert_eq!(b.tolerance_of(c), Tolerance::Relative(0.5));
        let (_, taken) = take(&names, &reports, &How::default()).unwrap();
        assert!(
            taken.capped.iter().any(|l| l.contains("51.9 %")),
            "{:?}",
            taken.capped
        );
        // Identical hosts: the resource default stays.
        let same = vec![host("h1", 1.0), host("h2", 1.0), host("h3", 1.0)];
        let (b, _) = take(&names[..3], &same, &How::default()).unwrap();
        assert!(b.cases.iter().all(|c| c.tolerance.is_none()));
    }

    #[test]
    fn disturbed_and_failed_results_are_left_out() {
        let mut rep = samples::compare_a();
        rep.results[0].disturbed = true;
        let n = rep.results.len();
        let (b, t) = take(&["a".into()], &[rep], &How::default()).unwrap();
        assert!(b.cases.len() < n);
        assert!(
            t.left_out.iter().any(|l| l.contains("disturbed")),
            "{:?}",
            t.left_out
        );
    }

    /// The cpu case (threads=1) of the fixture in `n` runs, its samples scaled by each
    /// factor.
    fn runs(factors: &[f64]) -> (Vec<String>, Vec<Report>) {
        let base = samples::compare_a();
        let reports = factors
            .iter()
            .map(|f| {
                let mut r = base.clone();
                r.results.truncate(1);
                for x in &mut r.results {
                    x.samples.iter_mut().for_each(|s| *s *= f);
                    x.summary = crate::measure::stats::Summary::of(&x.samples).ok();
                }
                r
            })
            .collect();
        let names = (0..factors.len()).map(|i| format!("run {i}")).collect();
        (names, reports)
    }

    /// Issue #44 item 3: two runs have no spread to widen by; sources at 10, 100 and
    /// 1000 widen to the cap, never to a bound at or below zero; every baseline taken
    /// holds to what a file must.
    #[test]
    fn widening_is_bounded() {
        let (names, reports) = runs(&[1.0, 0.8]);
        let (b, _) = take(&names, &reports, &How::default()).unwrap();
        assert_eq!(b.cases[0].tolerance, None, "{b:?}");
        assert_eq!(b.tolerance_of(&b.cases[0]), Tolerance::Relative(0.05));
        let (names, reports) = runs(&[0.1, 1.0, 10.0]);
        let (b, t) = take(&names, &reports, &How::default()).unwrap();
        let c = &b.cases[0];
        assert_eq!(c.tolerance, Some(Tolerance::Relative(0.5)));
        assert!(c.median - b.tolerance_of(c).abs(c.median) > 0.0);
        assert_eq!(t.capped.len(), 1, "{:?}", t.capped);
        assert!(b.validate().is_ok());
    }

    /// Issue #44 item 5: a baseline on a shared machine, taken on purpose, says so.
    #[test]
    fn a_shared_machine_baseline_says_so() {
        let mut rep = samples::compare_a();
        for r in &mut rep.results {
            r.disturbed = true;
        }
        let e = take(&["a".into()], std::slice::from_ref(&rep), &How::default()).unwrap_err();
        assert!(e.contains("--allow-disturbed"), "{e}");
        let how = How {
            allow_disturbed: true,
            ..Default::default()
        };
        let (b, _) = take(&["a".into()], &[rep], &how).unwrap();
        assert!(b.shared && b.method.contains("SHARED MACHINE"), "{b:?}");
        let text = b.to_toml();
        assert!(text.contains("shared = true"), "{text}");
        assert_eq!(Baseline::parse(&text).unwrap(), b);
    }

    /// Issue #43 item 9: a gathered result with a summary and no samples is no source.
    #[test]
    fn a_gathered_summary_without_samples_is_left_out() {
        let mut rep = samples::compare_a();
        rep.results[0].host = Some("n1".into());
        rep.results[0].samples.clear();
        let (_, t) = take(&["a".into()], &[rep], &How::default()).unwrap();
        assert!(
            t.left_out.iter().any(|l| l.contains("without raw samples")),
            "{:?}",
            t.left_out
        );
    }
}
