//! `peakbench fleet`: many hosts' results merged into one fleet report. Per workload
//! (a case, identified as `compare` identifies it: resource, workload, metric, unit and
//! parameters) it gives the fleet median, the spread (MAD, IQR, range) and the outlier
//! hosts; per host, how many of its workloads are outliers and its worst shortfall.
//!
//! The figure of a host is the mean of its result (`summary.mean`, the figure every
//! other view prints). Only `ok` results count; a host whose case was skipped or failed
//! is listed with the reason, never counted as a zero.
//!
//! Outlier rule: the modified z-score of Iglewicz and Hoaglin, `z = 0.6745 · (x − m) /
//! MAD` with `m` the fleet median and MAD the median absolute deviation from it
//! (B. Iglewicz, D. C. Hoaglin, "How to Detect and Handle Outliers", ASQC Quality Press,
//! 1993, who recommend |z| > 3.5). When more than half of the hosts have the same value
//! the MAD is 0 and `z = (x − m) / (1.253314 · MeanAD)` with the mean absolute deviation
//! instead (the same score's usual fallback; 1.253314 = √(π/2) makes it estimate σ for a
//! normal law). A host is an outlier when |z| exceeds the threshold (default 3.5) *and*
//! its figure is at least `min_gap` (default 5 %) away from the median: a fleet of nearly
//! identical hosts has a tiny MAD, and a 1 % difference is then "significant" but not
//! worth a look. At least 3 hosts are needed. `slow` means worse than the median (below
//! it for rates, above it for latencies), `fast` better.
//!
//! Settings: the same case run with different settings (another `--repeat`,
//! `--min-time`, `--peak`, peakbench version, or another scalar option of the command)
//! is never mixed: each group of files with the same settings is its own row, labelled
//! with the settings that differ, and the fleet carries a warning naming them
//! (`--strict` refuses such files instead).
//!
//! A file may hold one host (any run) or many (a gathered MPI run with `hosts[]`, each
//! result tagged with its host); both are split into hosts here.
//!
//! This file computes the [`Fleet`]; its views are in [`super::view`], one module per
//! format.

use super::compare::CaseKey;
use super::model::{BenchResult, Metric, Report, Status, Unit};
use crate::util::units::ParseError;
use serde::Serialize;
use std::collections::BTreeMap;

/// Iglewicz and Hoaglin's recommended threshold for the modified z-score.
pub(crate) const DEFAULT_Z: f64 = 3.5;

/// Smallest distance from the median, relative to it, that can make an outlier.
pub(crate) const DEFAULT_MIN_GAP: f64 = 0.05;

/// Fewest hosts with a figure for the outlier rule to apply.
pub(crate) const MIN_HOSTS: usize = 3;

/// `0.6745`: the 0.75 quantile of the standard normal law, so that `MAD / 0.6745`
/// estimates σ.
const K_MAD: f64 = 0.6745;

/// `√(π/2)`: `MeanAD · 1.253314` estimates σ for a normal law.
const K_MEANAD: f64 = 1.253314;

/// The outlier rule's settings: `peakbench fleet`'s flags `--threshold` and
/// `--min-gap` (the field docs are their help), defaults from clap.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, clap::Args)]
pub(crate) struct Rule {
    /// Outlier when the modified z-score |0.6745*(x-median)/MAD| exceeds this [default: 3.5]
    #[arg(long, value_name = "Z", allow_hyphen_values = true, value_parser = threshold, default_value_t = DEFAULT_Z, hide_default_value = true)]
    pub(crate) threshold: f64,
    /// ... and the figure is at least this far from the median, e.g. 5% [default: 5%]
    #[arg(long, value_name = "PCT", allow_hyphen_values = true, value_parser = min_gap, default_value = "5%", hide_default_value = true)]
    pub(crate) min_gap: f64,
}

/// `--threshold`: a positive z-score.
fn threshold(t: &str) -> Result<f64, ParseError> {
    match t.trim().parse::<f64>() {
        Ok(z) if z.is_finite() && z > 0.0 => Ok(z),
        _ => Err(ParseError(format!(
            "'{t}' is not a z-score threshold; use a positive number like 3.5"
        ))),
    }
}

/// `--min-gap`: a percentage from 0 to 100 (as a fraction).
fn min_gap(g: &str) -> Result<f64, ParseError> {
    let v = g.trim().trim_end_matches('%').trim();
    match v.parse::<f64>() {
        Ok(p) if p.is_finite() && (0.0..100.0).contains(&p) => Ok(p / 100.0),
        _ => Err(ParseError(format!(
            "'{g}' is not a percentage; use a number from 0 to 100 like 5%"
        ))),
    }
}

impl Default for Rule {
    fn default() -> Rule {
        Rule {
            threshold: DEFAULT_Z,
            min_gap: DEFAULT_MIN_GAP,
        }
    }
}

/// One host's figure for a workload.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct HostValue {
    /// The host.
    pub(crate) host: String,
    /// Its figure (the result's mean), in the workload's unit.
    pub(crate) value: f64,
    /// Modified z-score; `None` with fewer than [`MIN_HOSTS`] hosts.
    pub(crate) z: Option<f64>,
    /// `(median − value) / median`: how far below the fleet median (negative: above).
    pub(crate) below_median: Option<f64>,
    /// Whether the rule makes it an outlier.
    pub(crate) outlier: bool,
    /// `slow` or `fast` for an outlier (by the metric's direction), `disturbed` for
    /// an outlier whose run was disturbed (the machine was shared while it measured:
    /// weaker evidence, never counted as slow), else `None`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) side: Option<&'static str>,
    /// Whether the host's result was disturbed ([`BenchResult::disturbed`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub(crate) disturbed: bool,
}

/// A host whose result for the workload was not `ok`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct NotOk {
    /// The host.
    pub(crate) host: String,
    /// `skipped: …` or `failed: …`.
    pub(crate) reason: String,
}

/// The fleet view of one case.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Workload {
    /// The case.
    pub(crate) case: CaseKey,
    /// The settings that set this row apart from other rows of the same case
    /// (`repeat=5`), when the case was run with differing settings.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) settings: Option<String>,
    /// Hosts with a figure.
    pub(crate) n: usize,
    /// Fleet median.
    pub(crate) median: f64,
    /// Median absolute deviation from the median (unscaled).
    pub(crate) mad: f64,
    /// First quartile (linear interpolation between order statistics).
    pub(crate) q1: f64,
    /// Third quartile.
    pub(crate) q3: f64,
    /// `q3 − q1`.
    pub(crate) iqr: f64,
    /// Smallest figure.
    pub(crate) min: f64,
    /// Largest figure.
    pub(crate) max: f64,
    /// `mad / |median|` (a relative spread; `None` when the median is 0).
    pub(crate) rel_mad: Option<f64>,
    /// What scaled the z-scores: `MAD`, `MeanAD` (MAD was 0), or why there are none.
    pub(crate) scale: String,
    /// Every host's figure, by host name.
    pub(crate) hosts: Vec<HostValue>,
    /// Hosts where the case was not `ok`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) not_ok: Vec<NotOk>,
}

impl Workload {
    /// The case label, with the settings when they set the row apart.
    pub(crate) fn label(&self) -> String {
        match &self.settings {
            Some(s) => format!("{} {{{s}}}", self.case.label()),
            None => self.case.label(),
        }
    }

    /// The outlier hosts.
    pub(crate) fn outliers(&self) -> impl Iterator<Item = &HostValue> {
        self.hosts.iter().filter(|h| h.outlier)
    }
}

/// One host across the fleet.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct HostSummary {
    /// The host.
    pub(crate) host: String,
    /// The file it came from.
    pub(crate) file: String,
    /// Workloads with a figure from this host.
    pub(crate) workloads: usize,
    /// Of those, where the host is a slow outlier.
    pub(crate) slow: usize,
    /// Where it is a fast outlier.
    pub(crate) fast: usize,
    /// Its largest `below_median` among rate workloads, or above-median among latencies
    /// (the worst shortfall, as a fraction), if any.
    pub(crate) worst: Option<f64>,
    /// The workload of `worst`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) worst_case: Option<String>,
}

/// The fleet report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Fleet {
    /// Always `peakbench-fleet/1`.
    pub(crate) schema: String,
    /// The files merged, in the order given.
    pub(crate) files: Vec<String>,
    /// The outlier rule used.
    pub(crate) rule: Rule,
    /// How the statistics and outliers are computed.
    pub(crate) method: String,
    /// Per host.
    pub(crate) hosts: Vec<HostSummary>,
    /// Per workload (case and settings), in first-seen order.
    pub(crate) workloads: Vec<Workload>,
    /// What the reader must know: settings that differ, hosts named twice, hosts a
    /// gathered file lists as failed.
    pub(crate) warnings: Vec<String>,
}

/// Median of sorted values (non-empty).
fn median_sorted(v: &[f64]) -> f64 {
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// The `p` quantile of sorted values (non-empty), linear interpolation between order
/// statistics (Hyndman and Fan's type 7, R's and NumPy's default).
pub(crate) fn quantile_sorted(v: &[f64], p: f64) -> f64 {
    let h = (v.len() - 1) as f64 * p.clamp(0.0, 1.0);
    let lo = h.floor() as usize;
    let hi = h.ceil() as usize;
    v[lo] + (h - lo as f64) * (v[hi] - v[lo])
}

/// Median and MAD of `values` (finite, non-empty).
pub(crate) fn median_mad(values: &[f64]) -> (f64, f64) {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let m = median_sorted(&v);
    let mut d: Vec<f64> = v.iter().map(|x| (x - m).abs()).collect();
    d.sort_by(f64::total_cmp);
    (m, median_sorted(&d))
}

/// Modified z-scores of `values` and what scaled them (see the module docs); `None`
/// scores with fewer than [`MIN_HOSTS`] values.
pub(crate) fn robust_z(values: &[f64]) -> (Vec<Option<f64>>, String) {
    if values.len() < MIN_HOSTS {
        return (
            vec![None; values.len()],
            format!("none: fewer than {MIN_HOSTS} hosts"),
        );
    }
    let (m, mad) = median_mad(values);
    if mad > 0.0 {
        let z = values.iter().map(|x| Some(K_MAD * (x - m) / mad)).collect();
        return (z, "MAD".into());
    }
    let mean_ad = values.iter().map(|x| (x - m).abs()).sum::<f64>() / values.len() as f64;
    if mean_ad > 0.0 {
        let z = values
            .iter()
            .map(|x| Some((x - m) / (K_MEANAD * mean_ad)))
            .collect();
        (z, "MeanAD (MAD is 0)".into())
    } else {
        (vec![Some(0.0); values.len()], "all equal".into())
    }
}

/// Whether a figure with score `z`, `gap` = |x − m| / |m| away from the median, is an
/// outlier under `rule`.
pub(crate) fn is_outlier(z: Option<f64>, gap: Option<f64>, rule: &Rule) -> bool {
    match (z, gap) {
        (Some(z), Some(g)) => z.abs() > rule.threshold && g >= rule.min_gap,
        // A zero median: only the score can tell.
        (Some(z), None) => z.abs() > rule.threshold,
        _ => false,
    }
}

fn lower_is_better(metric: Metric, unit: Unit) -> bool {
    metric.lower_is_better() || unit.lower_is_better()
}

/// The statistics of one workload from its hosts' figures (`values`: host, figure,
/// whether it was disturbed).
pub(crate) fn workload(
    case: CaseKey,
    settings: Option<String>,
    mut values: Vec<(String, f64, bool)>,
    not_ok: Vec<NotOk>,
    rule: &Rule,
) -> Option<Workload> {
    if values.is_empty() {
        return None;
    }
    values.sort_by(|a, b| a.0.cmp(&b.0));
    let xs: Vec<f64> = values.iter().map(|v| v.1).collect();
    let mut sorted = xs.clone();
    sorted.sort_by(f64::total_cmp);
    let (median, mad) = median_mad(&xs);
    let (q1, q3) = (
        quantile_sorted(&sorted, 0.25),
        quantile_sorted(&sorted, 0.75),
    );
    let (zs, scale) = robust_z(&xs);
    let lower = lower_is_better(case.metric, case.unit);
    let hosts = values
        .into_iter()
        .zip(zs)
        .map(|((host, value, disturbed), z)| {
            let below = (median != 0.0).then(|| (median - value) / median.abs());
            let outlier = is_outlier(z, below.map(f64::abs), rule);
            let worse = if lower {
                value > median
            } else {
                value < median
            };
            HostValue {
                host,
                value,
                z,
                below_median: below,
                outlier,
                side: outlier.then_some(if disturbed {
                    "disturbed"
                } else if worse {
                    "slow"
                } else {
                    "fast"
                }),
                disturbed,
            }
        })
        .collect();
    Some(Workload {
        case,
        settings,
        n: xs.len(),
        median,
        mad,
        q1,
        q3,
        iqr: q3 - q1,
        min: sorted[0],
        max: sorted[sorted.len() - 1],
        rel_mad: (median != 0.0).then(|| mad / median.abs()),
        scale,
        hosts,
        not_ok,
    })
}

/// One host's results, from one file.
struct Source<'a> {
    host: String,
    file: String,
    settings: BTreeMap<String, String>,
    results: Vec<&'a BenchResult>,
}

/// The settings of a run that can change a case's figure without showing in its
/// parameters: [`super::settings::figure_settings`], the one rule the gate and the
/// history key their series by.
pub(crate) fn settings(rep: &Report) -> BTreeMap<String, String> {
    super::settings::figure_settings(rep)
}

/// Splits the files into hosts: a gathered file (`hosts[]`) by each result's host tag,
/// any other file as its one host.
fn sources<'a>(
    names: &[String],
    reports: &'a [Report],
    warnings: &mut Vec<String>,
) -> Vec<Source<'a>> {
    let mut out: Vec<Source<'a>> = Vec::new();
    for (i, (file, rep)) in names.iter().zip(reports).enumerate() {
        // The same run in two files (`HOST-latest.json` is a copy of the newest
        // `HOST-TIME.json`, so `results/*.json` names it twice) counts once (issue #45:
        // one host was counted as two).
        if let Some(j) = reports[..i].iter().position(|r| r == rep) {
            warnings.push(format!(
                "{file} is the same run as {}: counted once",
                names[j]
            ));
            continue;
        }
        let set = settings(rep);
        if rep.hosts.is_empty() {
            out.push(Source {
                host: rep.host.hostname.trim().to_string(),
                file: file.clone(),
                settings: set,
                results: rep.results.iter().collect(),
            });
            continue;
        }
        for h in &rep.hosts {
            if let Status::Failed { error } = &h.status {
                warnings.push(format!("{file}: host {} has no results: {error}", h.name));
            }
            let results: Vec<&BenchResult> = rep
                .results
                .iter()
                .filter(|r| r.host.as_deref() == Some(h.name.as_str()))
                .collect();
            if !results.is_empty() {
                out.push(Source {
                    host: h.name.trim().to_string(),
                    file: file.clone(),
                    settings: set.clone(),
                    results,
                });
            }
        }
    }
    // A host named twice (the same machine run twice, or two machines with one name)
    // is told apart by its file, never merged. Names are compared without the white
    // space around them (trimmed above): `a` and `a ` are one name (issue #33 item 15).
    let mut count: BTreeMap<String, usize> = BTreeMap::new();
    for s in &out {
        *count.entry(s.host.clone()).or_default() += 1;
    }
    for s in &mut out {
        if count[&s.host] > 1 {
            let twice = format!("{} ({})", s.host, s.file);
            warnings.push(format!(
                "host {} appears in more than one file; named {twice}",
                s.host
            ));
            s.host = twice;
        }
    }
    warnings.dedup();
    out
}

/// The settings that differ between `groups`, as `key=value` for `this` group.
fn settings_label(this: &BTreeMap<String, String>, groups: &[&BTreeMap<String, String>]) -> String {
    let mut keys: Vec<&String> = groups.iter().flat_map(|g| g.keys()).collect();
    keys.sort();
    keys.dedup();
    keys.into_iter()
        .filter(|k| groups.iter().any(|g| g.get(*k) != this.get(*k)))
        .map(|k| format!("{k}={}", this.get(k).map_or("(unset)", String::as_str)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Merges `reports` (labels in `names`) into the fleet report.
pub(crate) fn fleet(names: &[String], reports: &[Report], rule: Rule) -> Fleet {
    let mut warnings = Vec::new();
    let srcs = sources(names, reports, &mut warnings);
    // Cases in first-seen order, and for each the distinct settings seen with it.
    let mut cases: Vec<CaseKey> = Vec::new();
    let mut groups: BTreeMap<CaseKey, Vec<&BTreeMap<String, String>>> = BTreeMap::new();
    for s in &srcs {
        for r in &s.results {
            let k = CaseKey::of(r);
            let g = groups.entry(k.clone()).or_default();
            if g.is_empty() {
                cases.push(k);
            }
            if !g.contains(&&s.settings) {
                g.push(&s.settings);
            }
        }
    }
    // Per host: case → its first result, as `compare` takes it (a search of the host's
    // results per case made this quadratic in the number of cases, issue #27 item 5).
    let firsts: Vec<BTreeMap<CaseKey, &BenchResult>> = srcs
        .iter()
        .map(|s| {
            let mut m = BTreeMap::new();
            for r in &s.results {
                m.entry(CaseKey::of(r)).or_insert(*r);
            }
            m
        })
        .collect();
    let mut workloads = Vec::new();
    for case in cases {
        let gs = &groups[&case];
        for set in gs {
            let label = (gs.len() > 1).then(|| settings_label(set, gs));
            let mut values = Vec::new();
            let mut not_ok = Vec::new();
            for (s, first) in srcs
                .iter()
                .zip(&firsts)
                .filter(|(s, _)| &&s.settings == set)
            {
                let Some(&r) = first.get(&case) else {
                    continue;
                };
                match (&r.status, &r.summary) {
                    (Status::Ok, Some(sum)) if sum.mean.is_finite() => {
                        values.push((s.host.clone(), sum.mean, r.disturbed))
                    }
                    (Status::Skipped { reason }, _) => not_ok.push(NotOk {
                        host: s.host.clone(),
                        reason: format!("skipped: {reason}"),
                    }),
                    (Status::Failed { error }, _) => not_ok.push(NotOk {
                        host: s.host.clone(),
                        reason: format!("failed: {error}"),
                    }),
                    _ => not_ok.push(NotOk {
                        host: s.host.clone(),
                        reason: "no summary".into(),
                    }),
                }
            }
            if let Some(l) = &label {
                warnings.push(format!(
                    "{}: run with differing settings; not mixed: {l} is its own row",
                    case.label()
                ));
            }
            if let Some(w) = workload(case.clone(), label, values, not_ok.clone(), &rule) {
                workloads.push(w);
            } else if !not_ok.is_empty() {
                warnings.push(format!(
                    "{}: no host measured it ({})",
                    case.label(),
                    not_ok
                        .iter()
                        .map(|n| format!("{}: {}", n.host, n.reason))
                        .collect::<Vec<_>>()
                        .join("; ")
                ));
            }
        }
    }
    let hosts = srcs
        .iter()
        .map(|s| host_summary(&s.host, &s.file, &workloads))
        .collect();
    Fleet {
        schema: "peakbench-fleet/1".into(),
        files: names.to_vec(),
        rule,
        method: format!(
            "per workload: each host's mean; fleet median, MAD (median absolute deviation), IQR (type-7 quartiles); outlier: modified z-score 0.6745*(x-median)/MAD (1.253314*MeanAD when MAD is 0) beyond ±{} and at least {:.1} % from the median, with {} hosts or more (Iglewicz & Hoaglin 1993)",
            rule.threshold,
            rule.min_gap * 100.0,
            MIN_HOSTS
        ),
        hosts,
        workloads,
        warnings,
    }
}

fn host_summary(host: &str, file: &str, workloads: &[Workload]) -> HostSummary {
    let mut h = HostSummary {
        host: host.to_string(),
        file: file.to_string(),
        workloads: 0,
        slow: 0,
        fast: 0,
        worst: None,
        worst_case: None,
    };
    for w in workloads {
        let Some(v) = w.hosts.iter().find(|v| v.host == host) else {
            continue;
        };
        h.workloads += 1;
        match v.side {
            Some("slow") => h.slow += 1,
            Some("fast") => h.fast += 1,
            _ => {}
        }
        // A disturbed figure is no shortfall of the host's.
        if v.disturbed {
            continue;
        }
        let shortfall = v.below_median.map(|b| {
            if lower_is_better(w.case.metric, w.case.unit) {
                -b
            } else {
                b
            }
        });
        if let Some(s) = shortfall.filter(|s| *s > 0.0) {
            if h.worst.is_none_or(|w0| s > w0) {
                h.worst = Some(s);
                h.worst_case = Some(w.label());
            }
        }
    }
    h
}

#[cfg(test)]
#[path = "fleet_tests.rs"]
mod tests;
