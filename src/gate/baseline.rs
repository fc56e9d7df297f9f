//! A baseline: per case, the reference figure and how far a run may fall from it.
//! Written by `peakbench baseline`, read by `peakbench check`; the format is TOML
//! (docs/baseline.md), chosen because people edit baselines by hand (raise a figure
//! after an upgrade, widen one case's tolerance) and TOML has comments, no quoting of
//! keys and no trailing-comma traps, and `toml` is the well-kept reader Cargo itself
//! uses.
//!
//! - A case is identified as `compare` and `fleet` identify it
//!   ([`CaseKey`](crate::report::compare::CaseKey)): resource, workload, metric, unit
//!   and the parameters as `key=value` text.
//! - `direction` follows from the metric (latency: lower is better, rates: higher);
//!   it is written for the reader and checked on reading.
//! - `median`: from one run, the median of the case's samples; from several (a fleet
//!   of hosts, or several runs of one), the median of their means, as `peakbench
//!   fleet` computes it.
//! - Tolerance: per case (`tolerance = "5%"` relative, or a number, absolute in the
//!   case's unit), else the `[tolerance]` table's entry for the case's resource (a
//!   percentage), else [`default_tolerance`]. From several sources a case's tolerance
//!   is widened to [`MAD_K`] robust standard deviations of the sources' figures
//!   (`MAD_K · MAD / 0.6745`) when that is wider.

use crate::report::compare::{noise_floor, CaseKey};
use crate::report::model::{BenchResult, Metric, Report, Resource, Unit};
use crate::util::units::format_si;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// The schema written into every baseline and required on reading.
pub(crate) const SCHEMA: &str = "peakbench-baseline/1";

/// How many robust standard deviations a host may fall from a fleet's median before it
/// fails: 3.5, the threshold `peakbench fleet` marks outliers by (Iglewicz and
/// Hoaglin's modified z-score), so a host passes the gate when fleet would not call it
/// a slow outlier.
pub(crate) const MAD_K: f64 = 3.5;

/// `0.6745`: `MAD / 0.6745` estimates σ for a normal law.
const K_MAD: f64 = 0.6745;

/// The default tolerance of a resource: the run-to-run noise `compare` takes as no
/// change ([`noise_floor`]), what repeated quick suites on one shared guest moved by
/// between runs minutes apart: 5 % for CPU and linear algebra, 10 % for memory and
/// GPU, 20 % for disk and network.
pub(crate) fn default_tolerance(resource: Resource) -> Tolerance {
    Tolerance::Relative(noise_floor(resource))
}

/// How far a figure may fall from the baseline's.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Tolerance {
    /// A fraction of the median (`"5%"` is 0.05), 0 to 1 exclusive.
    Relative(f64),
    /// A figure in the case's unit.
    Absolute(f64),
}

impl Tolerance {
    /// The allowed distance from `median`, in the case's unit.
    pub(crate) fn abs(self, median: f64) -> f64 {
        match self {
            Tolerance::Relative(r) => r * median.abs(),
            Tolerance::Absolute(a) => a,
        }
    }

    /// As written in the file and the views: `5%`, or the absolute figure with `unit`.
    pub(crate) fn show(self, unit: Unit) -> String {
        match self {
            Tolerance::Relative(r) => format!("{}%", trim_float(r * 100.0)),
            Tolerance::Absolute(a) => format_si(a, unit.as_str()),
        }
    }
}

impl Serialize for Tolerance {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Tolerance::Relative(r) => s.serialize_str(&format!("{}%", trim_float(r * 100.0))),
            Tolerance::Absolute(a) => s.serialize_f64(*a),
        }
    }
}

impl<'de> Deserialize<'de> for Tolerance {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Tolerance, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = Tolerance;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a tolerance: a percentage like \"5%\", or a non-negative number in the case's unit")
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Tolerance, E> {
                parse_tolerance(s).map_err(E::custom)
            }
            fn visit_f64<E: serde::de::Error>(self, x: f64) -> Result<Tolerance, E> {
                absolute(x).map_err(E::custom)
            }
            fn visit_i64<E: serde::de::Error>(self, x: i64) -> Result<Tolerance, E> {
                absolute(x as f64).map_err(E::custom)
            }
            fn visit_u64<E: serde::de::Error>(self, x: u64) -> Result<Tolerance, E> {
                absolute(x as f64).map_err(E::custom)
            }
        }
        d.deserialize_any(V)
    }
}

fn absolute(x: f64) -> Result<Tolerance, String> {
    if x.is_finite() && x >= 0.0 {
        Ok(Tolerance::Absolute(x))
    } else {
        Err(format!(
            "tolerance {x} is out of range; an absolute tolerance is a number from 0 up, in the case's unit"
        ))
    }
}

/// Parses `5%` (relative) or a plain number (absolute).
pub(crate) fn parse_tolerance(s: &str) -> Result<Tolerance, String> {
    let t = s.trim();
    if let Some(p) = t.strip_suffix('%') {
        return match p.trim().parse::<f64>() {
            Ok(x) if x.is_finite() && (0.0..100.0).contains(&x) => Ok(Tolerance::Relative(x / 100.0)),
            Ok(_) => Err(format!(
                "tolerance '{t}' is out of range; a relative tolerance is from 0 to 100 % (exclusive), like \"5%\""
            )),
            Err(_) => Err(format!(
                "'{t}' is not a tolerance; use a percentage like \"5%\" or a number in the case's unit"
            )),
        };
    }
    match t.parse::<f64>() {
        Ok(x) => absolute(x),
        Err(_) => Err(format!(
            "'{t}' is not a tolerance; use a percentage like \"5%\" or a number in the case's unit"
        )),
    }
}

/// A float as short as it reads back (`5`, `12.5`).
fn trim_float(x: f64) -> String {
    let s = format!("{:.6}", x);
    let s = s.trim_end_matches('0').trim_end_matches('.');
    s.to_string()
}

/// `cpu, memory, …`: the resource names.
pub(crate) fn resource_names() -> String {
    Resource::ALL
        .iter()
        .map(|r| r.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Which way is better.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Direction {
    /// Rates: throughput, operations, IOPS.
    Higher,
    /// Latencies.
    Lower,
}

impl Direction {
    /// The direction of a case's metric and unit.
    pub(crate) fn of(metric: Metric, unit: Unit) -> Direction {
        if metric.lower_is_better() || unit == Unit::Second {
            Direction::Lower
        } else {
            Direction::Higher
        }
    }
}

/// One case of a baseline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct BaseCase {
    /// Resource (`cpu`, …).
    pub(crate) resource: Resource,
    /// Workload (`fma_f64_avx512`).
    pub(crate) workload: String,
    /// Parameters as `key=value` text, sorted by key, as the views print them.
    #[serde(default)]
    pub(crate) params: String,
    /// Metric (`ops`, `throughput`, `iops`, `latency`).
    pub(crate) metric: Metric,
    /// Unit of `median` (`FLOP/s`, `B/s`, …).
    pub(crate) unit: Unit,
    /// Which way is better (follows from the metric).
    pub(crate) direction: Direction,
    /// The reference figure.
    pub(crate) median: f64,
    /// This case's tolerance (over the resource's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) tolerance: Option<Tolerance>,
    /// Samples (one run) or sources (several) the median was taken over.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) n: Option<u64>,
    /// Median absolute deviation of the sources' figures (several sources).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) mad: Option<f64>,
}

impl BaseCase {
    /// The case's identity, as `compare` matches cases.
    pub(crate) fn key(&self) -> CaseKey {
        CaseKey {
            resource: self.resource,
            workload: self.workload.clone(),
            metric: self.metric,
            unit: self.unit,
            params: self.params.clone(),
        }
    }
}

/// A whole baseline file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Baseline {
    /// Always [`SCHEMA`].
    pub(crate) schema: String,
    /// When it was written (RFC 3339).
    #[serde(default)]
    pub(crate) created: String,
    /// The peakbench version that wrote it.
    #[serde(default)]
    pub(crate) tool_version: String,
    /// How the medians and tolerances were taken.
    #[serde(default)]
    pub(crate) method: String,
    /// The results files it was taken from.
    #[serde(default)]
    pub(crate) sources: Vec<String>,
    /// The hosts of those files.
    #[serde(default)]
    pub(crate) hosts: Vec<String>,
    /// Tolerance per resource name (a percentage).
    #[serde(default)]
    pub(crate) tolerance: BTreeMap<String, Tolerance>,
    /// The cases.
    #[serde(default, rename = "case")]
    pub(crate) cases: Vec<BaseCase>,
}

impl Baseline {
    /// The tolerance of `case`: its own, else its resource's, else the default.
    pub(crate) fn tolerance_of(&self, case: &BaseCase) -> Tolerance {
        case.tolerance
            .or_else(|| self.tolerance.get(case.resource.as_str()).copied())
            .unwrap_or_else(|| default_tolerance(case.resource))
    }

    /// Parses and checks a baseline's text; `Err` is one line (without the file name)
    /// naming what is wrong and the accepted form.
    pub(crate) fn parse(text: &str) -> Result<Baseline, String> {
        let head = text.trim_start();
        if head.starts_with('{') || head.starts_with('[') && head.contains("\"schema\"") {
            let what = if head.contains("\"peakbench/") {
                "a peakbench results file"
            } else {
                "JSON"
            };
            return Err(format!(
                "is {what}, not a baseline; write one with `peakbench baseline --from RESULTS.json -o FILE` (format: docs/baseline.md)"
            ));
        }
        let table: toml::Table = toml::from_str(text).map_err(|e| toml_error(text, &e))?;
        match table.get("schema").and_then(|s| s.as_str()) {
            Some(SCHEMA) => {}
            Some(other) => {
                return Err(format!(
                    "schema '{}' is not a baseline this peakbench reads; expected schema = \"{SCHEMA}\" (docs/baseline.md)",
                    crate::util::sanitize::line_max(other, 80)
                ))
            }
            None => {
                return Err(format!(
                    "no schema = \"{SCHEMA}\" line: not a peakbench baseline (docs/baseline.md)"
                ))
            }
        }
        let b: Baseline = toml::from_str(text).map_err(|e| toml_error(text, &e))?;
        b.validate()?;
        Ok(b)
    }

    /// The checks serde cannot make: resource names of `[tolerance]`, relative
    /// tolerances there, units that fit their metric, directions that fit, medians,
    /// duplicate cases.
    fn validate(&self) -> Result<(), String> {
        for (res, t) in &self.tolerance {
            if Resource::parse(res).is_none() {
                return Err(format!(
                    "[tolerance]: unknown resource '{}'; one of {}",
                    crate::util::sanitize::line_max(res, 40),
                    resource_names()
                ));
            }
            if let Tolerance::Absolute(_) = t {
                return Err(format!(
                    "[tolerance]: {res} = {}: a resource's tolerance is a percentage like \"5%\" (its cases have different units; absolute tolerances go on a case)",
                    trim_float(t.abs(1.0))
                ));
            }
        }
        if self.cases.is_empty() {
            return Err(
                "no [[case]]: the baseline holds no case to check; write one with `peakbench baseline --from RESULTS.json`"
                    .into(),
            );
        }
        let mut seen = std::collections::BTreeSet::new();
        for (i, c) in self.cases.iter().enumerate() {
            let at = format!("case {} ({})", i + 1, c.key().label());
            if !crate::report::physics::unit_of(c.metric, c.unit) {
                return Err(format!(
                    "{at}: unit '{}' is not a unit of metric '{}'; ops takes OP/s or FLOP/s, throughput B/s, iops IO/s, latency s",
                    c.unit, c.metric
                ));
            }
            let d = Direction::of(c.metric, c.unit);
            if c.direction != d {
                return Err(format!(
                    "{at}: direction '{}' does not fit metric '{}'; write direction = \"{}\"",
                    serde_plain(c.direction),
                    c.metric,
                    serde_plain(d)
                ));
            }
            if !(c.median.is_finite() && c.median > 0.0) {
                return Err(format!(
                    "{at}: median {} is out of range; give the reference figure, a positive number in {}",
                    c.median, c.unit
                ));
            }
            if let Some(Tolerance::Absolute(a)) = c.tolerance {
                if d == Direction::Higher && a >= c.median {
                    return Err(format!(
                        "{at}: tolerance {} is out of range: at or above the median {} it can never fail; give less than the median, or a percentage like \"5%\"",
                        trim_float(a),
                        trim_float(c.median)
                    ));
                }
            }
            if !seen.insert(c.key()) {
                return Err(format!("{at}: the same case twice; keep one"));
            }
        }
        Ok(())
    }

    /// The baseline as commented TOML (docs/baseline.md).
    pub(crate) fn to_toml(&self) -> String {
        let q = |s: &str| toml::Value::String(s.to_string()).to_string();
        let f = |x: f64| toml::Value::Float(x).to_string();
        let mut s = String::new();
        let _ = writeln!(
            s,
            "# peakbench baseline: `peakbench check --baseline THIS_FILE [RESULTS.json]` compares a run\n\
             # with it case by case. Edit freely (docs/baseline.md): a case's `median` is the reference\n\
             # figure in its `unit`; `tolerance` is \"5%\" (relative) or a number (absolute, in the unit);\n\
             # a case without one takes its resource's from [tolerance]. Remove a case to stop checking it."
        );
        let _ = writeln!(s, "schema = {}", q(&self.schema));
        let _ = writeln!(s, "created = {}", q(&self.created));
        let _ = writeln!(s, "tool_version = {}", q(&self.tool_version));
        let _ = writeln!(s, "method = {}", q(&self.method));
        let list = |v: &[String]| v.iter().map(|x| q(x)).collect::<Vec<_>>().join(", ");
        let _ = writeln!(s, "sources = [{}]", list(&self.sources));
        let _ = writeln!(s, "hosts = [{}]", list(&self.hosts));
        let _ = writeln!(
            s,
            "\n# Per resource, for the cases without a tolerance of their own.\n[tolerance]"
        );
        for (res, t) in &self.tolerance {
            let _ = writeln!(s, "{res} = {}", q(&t.show(Unit::Second)));
        }
        for c in &self.cases {
            let _ = writeln!(s);
            let mut what = format!("# {}", format_si(c.median, c.unit.as_str()));
            if let Some(n) = c.n {
                let _ = write!(what, ", over {n}");
            }
            if let Some(m) = c.mad {
                let _ = write!(what, ", MAD {}", format_si(m, c.unit.as_str()));
            }
            let _ = writeln!(s, "{what}\n[[case]]");
            let _ = writeln!(s, "resource = {}", q(c.resource.as_str()));
            let _ = writeln!(s, "workload = {}", q(&c.workload));
            let _ = writeln!(s, "params = {}", q(&c.params));
            let _ = writeln!(s, "metric = {}", q(c.metric.as_str()));
            let _ = writeln!(s, "unit = {}", q(c.unit.as_str()));
            let _ = writeln!(s, "direction = {}", q(serde_plain(c.direction)));
            let _ = writeln!(s, "median = {}", f(c.median));
            match c.tolerance {
                Some(Tolerance::Relative(_)) => {
                    let _ = writeln!(s, "tolerance = {}", q(&c.tolerance.unwrap().show(c.unit)));
                }
                Some(Tolerance::Absolute(a)) => {
                    let _ = writeln!(s, "tolerance = {}", f(a));
                }
                None => {}
            }
            if let Some(n) = c.n {
                let _ = writeln!(s, "n = {n}");
            }
            if let Some(m) = c.mad {
                let _ = writeln!(s, "mad = {}", f(m));
            }
        }
        s
    }
}

/// `higher` / `lower`.
fn serde_plain(d: Direction) -> &'static str {
    match d {
        Direction::Higher => "higher",
        Direction::Lower => "lower",
    }
}

/// One line for a TOML error: `line N: message`.
fn toml_error(text: &str, e: &toml::de::Error) -> String {
    let line = e
        .span()
        .map(|r| text[..r.start.min(text.len())].matches('\n').count() + 1);
    let msg = e.message().split_whitespace().collect::<Vec<_>>().join(" ");
    let msg = crate::util::sanitize::line_max(&msg, 300);
    match line {
        Some(l) => format!("line {l}: {msg} (format: docs/baseline.md)"),
        None => format!("{msg} (format: docs/baseline.md)"),
    }
}

/// What `baseline` made of its inputs, besides the baseline.
#[derive(Debug, Default)]
pub(crate) struct Taken {
    /// Results left out and why (disturbed, not ok), one line each.
    pub(crate) left_out: Vec<String>,
}

/// The results a baseline may be taken from: measured (`ok`) and not disturbed.
fn usable(r: &BenchResult) -> Result<(), &'static str> {
    if !r.is_ok() {
        Err("not measured (skipped or failed)")
    } else if super::shared(r).is_some() {
        Err("disturbed (the machine was shared while it measured)")
    } else if r.samples.is_empty() && r.summary.is_none() {
        Err("no samples")
    } else {
        Ok(())
    }
}

/// Takes a baseline from known-good runs (`names`: their file labels). One report of
/// one host: per case the median of its samples and the resource's tolerance. Several
/// sources (files, or hosts of a gathered file): per case the fleet median of their
/// means, the tolerance widened to [`MAD_K`] robust sd when wider. `defaults` holds
/// the `[tolerance]` table (resource name → tolerance).
pub(crate) fn take(
    names: &[String],
    reports: &[Report],
    defaults: BTreeMap<String, Tolerance>,
    created: String,
) -> Result<(Baseline, Taken), String> {
    let mut taken = Taken::default();
    // Only the results a baseline may hold, so that the fleet sees known-good figures.
    let mut clean: Vec<Report> = reports.to_vec();
    for (name, rep) in names.iter().zip(clean.iter_mut()) {
        rep.results.retain(|r| match usable(r) {
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
    }
    let sources: usize = clean
        .iter()
        .map(|r| if r.hosts.is_empty() { 1 } else { r.hosts.len() })
        .sum();
    let tol_of = |res: Resource| {
        defaults
            .get(res.as_str())
            .copied()
            .unwrap_or_else(|| default_tolerance(res))
    };
    let mut cases = Vec::new();
    let method;
    if sources <= 1 {
        method = "one run: per case the median of its samples; tolerance per resource".to_string();
        let mut seen = std::collections::BTreeSet::new();
        for r in clean.iter().flat_map(|rep| &rep.results) {
            let key = CaseKey::of(r);
            if !seen.insert(key.clone()) {
                continue;
            }
            let (median, n) = match crate::measure::stats::Summary::of(&r.samples) {
                Ok(s) => (s.median, s.n),
                Err(_) => match &r.summary {
                    Some(s) => (s.median, s.n),
                    None => continue,
                },
            };
            cases.push(base_case(key, median, None, Some(n as u64), None));
        }
    } else {
        method = format!(
            "{sources} sources: per case the median of their means (as peakbench fleet); tolerance per resource, widened to {MAD_K} x MAD / 0.6745 where that is wider"
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
            let base = tol_of(w.case.resource).abs(w.median);
            let robust = MAD_K * w.mad / K_MAD;
            let tol = (robust > base && w.median != 0.0).then(|| {
                // Rounded up to 0.1 % so the file reads well and never tightens it.
                let pct = (robust / w.median.abs() * 1000.0).ceil() / 1000.0;
                if pct < 1.0 {
                    Tolerance::Relative(pct)
                } else {
                    Tolerance::Absolute(robust)
                }
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
            "no case to take a baseline from: {} holds no measured, undisturbed case; give results files of a known-good run",
            names.join(", ")
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
    Ok((
        Baseline {
            schema: SCHEMA.into(),
            created,
            tool_version: env!("CARGO_PKG_VERSION").into(),
            method,
            sources: names.to_vec(),
            hosts,
            tolerance,
            cases,
        },
        taken,
    ))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::samples;

    fn one() -> Baseline {
        take(
            &["a.json".into()],
            &[samples::compare_a()],
            BTreeMap::new(),
            "2026-11-26T00:00:00Z".into(),
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
    fn hand_edits_read() {
        let text = r#"
schema = "peakbench-baseline/1"
[tolerance]
cpu = "7.5%"
[[case]]
resource = "cpu"
workload = "fma"
params = "threads=1"
metric = "ops"
unit = "FLOP/s"
direction = "higher"
median = 150
[[case]]
resource = "memory"
workload = "chase"
metric = "latency"
unit = "s"
direction = "lower"
median = 1e-7
tolerance = 2e-8
"#;
        let b = Baseline::parse(text).unwrap();
        assert_eq!(b.cases[0].median, 150.0);
        assert_eq!(b.tolerance_of(&b.cases[0]), Tolerance::Relative(0.075));
        assert_eq!(b.tolerance_of(&b.cases[1]), Tolerance::Absolute(2e-8));
        assert_eq!(b.cases[1].params, "");
    }

    #[test]
    fn bad_baselines_get_one_line_naming_the_problem() {
        let case = |extra: &str| {
            format!(
                "schema = \"peakbench-baseline/1\"\n[[case]]\nresource = \"cpu\"\nworkload = \"w\"\nmetric = \"ops\"\nunit = \"FLOP/s\"\ndirection = \"higher\"\nmedian = 10.0\n{extra}"
            )
        };
        let cases = [
            (
                "{\"schema\": \"peakbench/2\"}".to_string(),
                "is a peakbench results file",
            ),
            (
                "schema = \"x/1\"\n".into(),
                "schema 'x/1' is not a baseline",
            ),
            ("a = 1\n".into(), "no schema = \"peakbench-baseline/1\""),
            ("schema = \n".into(), "line 1:"),
            (case("tolerance = \"150%\""), "out of range"),
            (case("tolerance = \"-1%\""), "out of range"),
            (case("tolerance = -3"), "out of range"),
            (case("tolerance = 10"), "can never fail"),
            (case("tolerance = \"fast\""), "not a tolerance"),
            (case("speed = 1"), "unknown field `speed`"),
            (
                case("").replace("FLOP/s", "GFLOPS"),
                "unknown variant `GFLOPS`",
            ),
            (
                case("").replace("FLOP/s", "s"),
                "unit 's' is not a unit of metric 'ops'",
            ),
            (
                case("").replace("\"cpu\"", "\"tpu\""),
                "unknown variant `tpu`",
            ),
            (
                case("").replace("higher", "lower"),
                "direction 'lower' does not fit",
            ),
            (
                case("").replace("10.0", "-1.0"),
                "median -1 is out of range",
            ),
            ("schema = \"peakbench-baseline/1\"\n".into(), "no [[case]]"),
            (
                format!("{}\n[tolerance]\ntpu = \"5%\"\n", case("")),
                "unknown resource 'tpu'",
            ),
            (
                format!("{}\n[tolerance]\ncpu = 5\n", case("")),
                "a resource's tolerance is a percentage",
            ),
            (
                format!(
                    "{}\n{}",
                    case(""),
                    case("").replace("schema = \"peakbench-baseline/1\"\n", "")
                ),
                "the same case twice",
            ),
        ];
        for (text, needle) in cases {
            let e = Baseline::parse(&text).unwrap_err();
            assert!(e.contains(needle), "{needle:?} not in {e:?}\n{text}");
            assert!(!e.contains('\n'), "{e:?}");
        }
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
        let (b, _) = take(&names, &reports, BTreeMap::new(), String::new()).unwrap();
        assert_eq!(b.hosts.len(), 5);
        let c = b
            .cases
            .iter()
            .find(|c| c.resource == Resource::Cpu)
            .unwrap();
        assert_eq!(c.n, Some(5));
        let mean1 = crate::measure::stats::Summary::of(
            &base
                .results
                .iter()
                .find(|r| CaseKey::of(r) == c.key())
                .unwrap()
                .samples,
        )
        .unwrap()
        .mean;
        assert!((c.median - mean1).abs() < 1e-6 * mean1);
        // MAD = 0.1 x median → 3.5 x 0.1 / 0.6745 = 51.9 %, rounded up to 0.1 %.
        match b.tolerance_of(c) {
            Tolerance::Relative(t) => assert!((t - 0.519).abs() < 1e-9, "{t}"),
            t => panic!("{t:?}"),
        }
        // Identical hosts: the resource default stays.
        let same = vec![host("h1", 1.0), host("h2", 1.0), host("h3", 1.0)];
        let (b, _) = take(&names[..3], &same, BTreeMap::new(), String::new()).unwrap();
        assert!(b.cases.iter().all(|c| c.tolerance.is_none()));
    }

    #[test]
    fn disturbed_and_failed_results_are_left_out() {
        let mut rep = samples::compare_a();
        rep.results[0].disturbed = true;
        let n = rep.results.len();
        let (b, t) = take(&["a".into()], &[rep], BTreeMap::new(), String::new()).unwrap();
        assert!(b.cases.len() < n);
        assert!(
            t.left_out.iter().any(|l| l.contains("disturbed")),
            "{:?}",
            t.left_out
        );
    }
}
