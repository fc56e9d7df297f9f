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
//! A change is significant when its interval excludes 0. Cases with fewer than two
//! samples on either side get no interval, and say so.
//!
//! The first file is the baseline; every later file is compared with it. A case is
//! identified by resource, workload, metric, unit and params.

use super::export::opt_num as num;
use super::model::{BenchResult, Metric, Report, Resource, Status, Unit};
use super::view;
use crate::measure::stats::{t_975, Summary};
use crate::util::sanitize;
use crate::util::units::format_si;
use serde::Serialize;
use std::collections::BTreeMap;
use std::io::Write;

/// The identity of a case across files.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct CaseKey {
    /// Resource, e.g. `cpu`.
    pub resource: Resource,
    /// Workload, e.g. `fma_f64_avx512`.
    pub workload: String,
    /// Metric, e.g. `ops`.
    pub metric: Metric,
    /// Unit of the means.
    pub unit: Unit,
    /// Parameters as `key=value` text, sorted by key.
    pub params: String,
}

impl CaseKey {
    /// The key of a result.
    pub(crate) fn of(r: &BenchResult) -> CaseKey {
        CaseKey {
            resource: r.resource,
            workload: r.workload.clone(),
            metric: r.metric,
            unit: r.unit,
            params: view::params(r),
        }
    }

    /// `cpu fma_f64_avx512 [threads=2] ops`.
    pub(crate) fn label(&self) -> String {
        format!(
            "{} {} [{}] {}",
            self.resource, self.workload, self.params, self.metric
        )
    }
}

/// What is known of one side of a comparison.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Side {
    /// Number of samples.
    pub n: usize,
    /// Mean of the samples.
    pub mean: f64,
    /// Sample standard deviation.
    pub sd: f64,
}

/// The change of one case between the baseline and another file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Change {
    /// The case.
    pub case: CaseKey,
    /// Label of the file compared with the baseline.
    pub against: String,
    /// The baseline.
    pub a: Side,
    /// The other file.
    pub b: Side,
    /// `b.mean − a.mean`.
    pub diff: f64,
    /// `diff / a.mean` (`None` when the baseline mean is 0).
    pub rel: Option<f64>,
    /// 95 % interval of `diff` (absent when n < 2 on a side).
    pub ci95: Option<(f64, f64)>,
    /// 95 % interval of `rel`.
    pub rel_ci95: Option<(f64, f64)>,
    /// Welch–Satterthwaite degrees of freedom.
    pub df: Option<f64>,
    /// Whether the interval excludes 0; `None` when there is no interval.
    pub significant: Option<bool>,
    /// `better`, `worse`, `no significant change`, or why there is no verdict.
    pub verdict: String,
}

/// A case that could not be compared.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Unmatched {
    /// The case.
    pub case: CaseKey,
    /// Labels of the files that have it as an ok result.
    pub present_in: Vec<String>,
    /// Why it is not compared (only in some files, or not ok somewhere).
    pub reason: String,
}

/// The whole comparison.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparison {
    /// Always `peakbench-compare/1`.
    pub schema: String,
    /// File labels, baseline first.
    pub files: Vec<String>,
    /// Hostnames, in the order of `files`.
    pub hosts: Vec<String>,
    /// How the intervals are computed.
    pub method: String,
    /// Changes, by case then file.
    pub changes: Vec<Change>,
    /// Cases not in every file, or not ok in one.
    pub unmatched: Vec<Unmatched>,
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
    })
}

/// Lower is better for latencies, higher for rates.
fn lower_is_better(metric: Metric, unit: Unit) -> bool {
    metric.lower_is_better() || unit == Unit::Second
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
    let significant = ci95.map(|(lo, hi)| lo > 0.0 || hi < 0.0);
    let verdict = match significant {
        None => format!("no interval: n < 2 (baseline n={}, other n={})", a.n, b.n),
        Some(false) => "no significant change".to_string(),
        Some(true) => {
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
    let mut keys: Vec<CaseKey> = Vec::new();
    for rep in reports {
        for r in &rep.results {
            let k = CaseKey::of(r);
            if !keys.contains(&k) {
                keys.push(k);
            }
        }
    }
    let mut changes = Vec::new();
    let mut unmatched = Vec::new();
    for key in keys {
        let sides: Vec<Option<Side>> = maps
            .iter()
            .map(|m| m.get(&key).filter(|r| r.is_ok()).and_then(|r| side(r)))
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
    Comparison {
        schema: "peakbench-compare/1".into(),
        files: names.to_vec(),
        hosts: reports.iter().map(|r| r.host.hostname.clone()).collect(),
        method: "Welch's t-interval for the difference of means, Welch-Satterthwaite df, 95 %, from the raw samples; significant when the interval excludes 0".into(),
        changes,
        unmatched,
    }
}

fn pct(x: f64) -> String {
    format!("{:+.1} %", x * 100.0)
}

/// The change cell: `+5.2 % [+3.1 %, +7.3 %]`.
pub(crate) fn change_cell(c: &Change) -> String {
    match (c.rel, c.rel_ci95) {
        (Some(r), Some((lo, hi))) => format!("{} [{}, {}]", pct(r), pct(lo), pct(hi)),
        (Some(r), None) => pct(r),
        (None, _) => format_si(c.diff, c.case.unit.as_str()),
    }
}

/// Column headers of the text views.
pub(crate) const HEADERS: [&str; 8] = [
    "case",
    "vs",
    "baseline mean",
    "mean",
    "change [95 % CI]",
    "n",
    "significant",
    "verdict",
];

/// One row of cells in [`HEADERS`] order.
pub(crate) fn row(c: &Change) -> [String; 8] {
    [
        c.case.label(),
        c.against.clone(),
        format_si(c.a.mean, c.case.unit.as_str()),
        format_si(c.b.mean, c.case.unit.as_str()),
        change_cell(c),
        format!("{}/{}", c.a.n, c.b.n),
        match c.significant {
            Some(true) => "yes".into(),
            Some(false) => "no".into(),
            None => "n/a".into(),
        },
        c.verdict.clone(),
    ]
}

/// The terminal table, then the unmatched cases.
pub(crate) fn export_table(c: &Comparison, out: &mut dyn Write) -> std::io::Result<()> {
    use comfy_table::{presets::UTF8_FULL_CONDENSED, ContentArrangement, Table};
    writeln!(
        out,
        "baseline: {}",
        sanitize::line(c.files.first().map_or("", |s| s))
    )?;
    let mut t = Table::new();
    t.load_preset(UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Disabled)
        .set_header(HEADERS);
    for ch in &c.changes {
        t.add_row(row(ch).map(|s| sanitize::line(&s)));
    }
    writeln!(out, "{t}")?;
    for u in &c.unmatched {
        writeln!(
            out,
            "{}",
            sanitize::line(&format!("unmatched: {}: {}", u.case.label(), u.reason))
        )?;
    }
    writeln!(out, "method: {}", c.method)
}

/// A Markdown table, then the unmatched cases as a list.
pub(crate) fn export_markdown(c: &Comparison, out: &mut dyn Write) -> std::io::Result<()> {
    use super::markdown::cell as md;
    writeln!(
        out,
        "### peakbench compare (baseline {})\n",
        md(c.files.first().map_or("", |s| s))
    )?;
    let rows: Vec<Vec<String>> = c.changes.iter().map(|ch| row(ch).to_vec()).collect();
    super::markdown::grid(&HEADERS, &rows, out)?;
    if !c.unmatched.is_empty() {
        writeln!(out)?;
        for u in &c.unmatched {
            writeln!(
                out,
                "- unmatched: {}: {}",
                md(&u.case.label()),
                md(&u.reason)
            )?;
        }
    }
    writeln!(out, "\n{}", md(&c.method))
}

/// CSV header of [`export_csv`].
pub(crate) const CSV_HEADER: &str = "resource,workload,params,metric,unit,baseline,against,n_a,mean_a,sd_a,n_b,mean_b,sd_b,diff,ci95_low,ci95_high,rel,rel_ci95_low,rel_ci95_high,df,significant,verdict";

/// One CSV line per change, raw numbers; unmatched cases are not rows.
pub(crate) fn export_csv(c: &Comparison, out: &mut super::CsvWriter) -> std::io::Result<()> {
    out.record(&CSV_HEADER.split(',').collect::<Vec<_>>())?;
    let base = c.files.first().map_or("", |s| s);
    for ch in &c.changes {
        let k = &ch.case;
        let cells = [
            k.resource.to_string(),
            k.workload.clone(),
            k.params.clone(),
            k.metric.to_string(),
            k.unit.to_string(),
            base.to_string(),
            ch.against.clone(),
            ch.a.n.to_string(),
            format!("{}", ch.a.mean),
            format!("{}", ch.a.sd),
            ch.b.n.to_string(),
            format!("{}", ch.b.mean),
            format!("{}", ch.b.sd),
            format!("{}", ch.diff),
            num(ch.ci95.map(|c| c.0)),
            num(ch.ci95.map(|c| c.1)),
            num(ch.rel),
            num(ch.rel_ci95.map(|c| c.0)),
            num(ch.rel_ci95.map(|c| c.1)),
            num(ch.df),
            ch.significant.map_or(String::new(), |s| s.to_string()),
            ch.verdict.clone(),
        ];
        out.record(&cells)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(n: usize, mean: f64, sd: f64) -> Side {
        Side { n, mean, sd }
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
        use crate::report::{export, Format};
        for f in [
            Format::Table,
            Format::Csv,
            Format::Markdown,
            Format::Json,
            Format::Html,
        ] {
            let mut buf = Vec::new();
            export(&c, f, &mut buf).unwrap();
            let s = String::from_utf8(buf).unwrap();
            assert!(s.contains("fma_f64_avx512"), "{f:?}");
        }
    }

    #[test]
    fn verdicts() {
        let k = |metric: Metric, unit: Unit| CaseKey {
            resource: Resource::Null,
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
}
