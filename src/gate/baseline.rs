//! A baseline: per case, the reference figure and how far a run may fall from it.
//! Written by `peakbench baseline`, read by `peakbench check`; the format is TOML
//! (docs/baseline.md), chosen because people edit baselines by hand (raise a figure
//! after an upgrade, widen one case's tolerance) and TOML has comments, no quoting of
//! keys and no trailing-comma traps, and `toml` is the well-kept reader Cargo itself
//! uses.
//!
//! - A case is identified as `compare` and `fleet` identify it
//!   ([`CaseKey`]): resource, workload, metric, unit
//!   and the parameters as `key=value` text.
//! - `direction` follows from the metric (latency: lower is better, rates: higher);
//!   it is written for the reader and checked on reading.
//! - `median`: how it is taken is `gate::take`'s (the median of the samples, or of
//!   several sources' medians).
//! - Tolerance ([`Tolerance`], `gate::tolerance`): per case (`tolerance = "5%"`
//!   relative, or a number, absolute in the case's unit), else the `[tolerance]`
//!   table's entry for the case's resource (a percentage), else [`default_tolerance`];
//!   at most 50 % of the median whatever its form, checked on reading and wherever a
//!   baseline is taken.
//! - `command` (the runs' command, so that `check` without a results file takes the
//!   latest run of it) and `shared` (taken on a shared machine, disturbed results
//!   included) are optional: files written before them read as before.

use super::tolerance::num;
pub(crate) use super::tolerance::{default_tolerance, parse_tolerance, Tolerance};
use crate::report::compare::CaseKey;
use crate::report::model::{Metric, ResourceName, Unit};
use crate::util::units::format_si;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// The schema written into every baseline and required on reading.
pub(crate) const SCHEMA: &str = "peakbench-baseline/1";

/// `cpu, memory, …`: the resource names.
pub(crate) fn resource_names() -> String {
    ResourceName::ALL
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
        if metric.lower_is_better() || unit.lower_is_better() {
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
    #[serde(deserialize_with = "crate::report::kinds::built_in")]
    pub(crate) resource: ResourceName,
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
    /// The command of the runs it was taken from (`quick`, `cpu`, …): what `check`
    /// without a results file takes the latest run of.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) command: Option<String>,
    /// Taken on a shared machine: disturbed results are in it (`--allow-disturbed`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub(crate) shared: bool,
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
    pub(crate) fn validate(&self) -> Result<(), String> {
        for (res, t) in &self.tolerance {
            if ResourceName::parse(res).is_none() {
                return Err(format!(
                    "[tolerance]: unknown resource '{}'; one of {}",
                    crate::util::sanitize::line_max(res, 40),
                    resource_names()
                ));
            }
            if let Tolerance::Absolute(_) = t {
                return Err(format!(
                    "[tolerance]: {res} = {}: a resource's tolerance is a percentage like \"5%\" (its cases have different units; absolute tolerances go on a case)",
                    num(t.abs(1.0))
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
                        num(a),
                        num(c.median)
                    ));
                }
            }
            // The tolerance the case is checked with, wherever it comes from.
            self.tolerance_of(c)
                .within(c.median, c.unit)
                .map_err(|e| format!("{at}: {e}"))?;
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
        if let Some(c) = &self.command {
            let _ = writeln!(s, "command = {}", q(c));
        }
        if self.shared {
            let _ = writeln!(
                s,
                "# Taken on a shared machine: disturbed results are in it; its figures say less.\nshared = true"
            );
        }
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

#[cfg(test)]
mod tests {
    use super::*;

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
            (case("tolerance = 6"), "more than 50 % of the median"),
            (case("tolerance = \"99.9999999%\""), "out of range"),
            (case("tolerance = \"50.5%\""), "from 0 to 50 %"),
            (
                case("tolerance = 1e300")
                    .replace("\"ops\"", "\"latency\"")
                    .replace("FLOP/s", "s")
                    .replace("higher", "lower"),
                "more than 50 % of the median",
            ),
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
}
