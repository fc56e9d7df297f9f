//! OpenMetrics, the Prometheus text exposition format (`--format openmetrics`, and the
//! file `--prom-file` writes for node_exporter's textfile collector): a report's
//! figures as gauges, named and labelled by the Prometheus conventions
//! (docs/openmetrics.md lists every family).
//!
//! - Every name starts with `peakbench_` and ends in its base unit: `_bytes_per_second`,
//!   `_seconds`, `_ratio` (0 to 1, where 1 is the peak), `_per_second` for rates of
//!   counted operations. A family whose unit is a base unit (seconds, bytes per second,
//!   a ratio) has a `# UNIT` line; every family has `# TYPE` (always `gauge`: a run's
//!   figures are values, not counters) and `# HELP`.
//! - One family per kind of figure (the result's unit: `peakbench_bytes_per_second`,
//!   `peakbench_floating_point_operations_per_second`, …) holding each case's mean,
//!   and one per peak (`peakbench_peak_…`, same labels), the efficiency
//!   (`peakbench_efficiency_ratio`), the spread (`peakbench_cv_ratio`), whether the case
//!   was disturbed or failed, a latency's percentiles
//!   (`peakbench_latency_percentile_seconds`), and the run's own: `peakbench_run_info`
//!   (version, host, command), `peakbench_run_cases` (per status) and
//!   `peakbench_last_success_timestamp_seconds` (when a run finished with no failed
//!   case).
//! - **Every series carries `command`** (issue #44 item 1), so the files of several
//!   commands (cpu, memory, disk, net nightly) in one textfile directory never hold the
//!   same series: node_exporter would otherwise keep one file's value and log the
//!   others away on every scrape while answering 200.
//! - A case's labels: `command`, `resource`, `workload`, `metric`, then one label per
//!   parameter under its flag name (`threads`, `precision`, `isa`, `block`, …; sizes in
//!   bytes), and `host` in a gathered run. **Label names are unique by construction**
//!   (issue #43 item 7, [`param_names`]): a parameter whose name is a fixed label's, or
//!   sanitises to a name already taken, is renamed until it is free. Label values are
//!   escaped (`\\`, `\"`, `\n`), any other control character written visibly
//!   (`\x1b`), at most 1000 characters.
//! - No sample timestamps (node_exporter refuses them in textfiles), `# EOF` at the
//!   end, nothing else (OpenMetrics has no free comments).
//!
//! Only a report (and a gathered matrix run, which is one) has figures: a comparison,
//! a fleet, a grid or a text document is refused (`options` refuses the flag before
//! anything runs; [`write()`] says the same if it is ever reached).

use super::{Doc, Format};
use crate::report::model::{BenchResult, Param, Report, Status, Unit};
use std::collections::HashSet;
use std::io::{self, Write};
use std::path::Path;

/// `--format openmetrics` (also `prometheus`).
pub(crate) const FORMAT: Format = Format {
    name: "openmetrics",
    aliases: &["prometheus"],
    stdout: true,
    write,
};

/// Why a document other than a report has no OpenMetrics form (`--format`'s refusal).
pub(crate) const ONLY_REPORTS: &str = "openmetrics renders the figures of a run (a measuring command, or report FILE.json); this command has none to export; use json, csv or table";

/// The family every run carries: when it last finished with no failed case.
pub(crate) const LAST_SUCCESS: &str = "peakbench_last_success_timestamp_seconds";

/// Writes `doc` in the OpenMetrics text format.
fn write(doc: Doc<'_>, _width: Option<usize>, out: &mut dyn Write) -> io::Result<()> {
    match doc {
        Doc::Report(r) | Doc::Matrix(r) => render(r, None, out),
        Doc::Comparison(_) | Doc::Fleet(_) | Doc::Grid(_) | Doc::Series(_) | Doc::Text(_) => {
            Err(io::Error::new(io::ErrorKind::Unsupported, ONLY_REPORTS))
        }
    }
}

/// `--prom-file`: writes `report` to `path` atomically (a temporary file beside it,
/// renamed over it: the textfile collector never reads half a file). When the run had
/// a failed case (no success to report), the previous file's
/// [`LAST_SUCCESS`] is carried over, so the gauge keeps saying when the last good run
/// was. Nothing to do without a path.
pub(crate) fn save(report: &Report, path: Option<&Path>) -> io::Result<()> {
    let Some(path) = path else { return Ok(()) };
    let carried = if success_time(report).is_none() {
        previous_success(path)
    } else {
        None
    };
    crate::util::atomic::write_atomic(path, |w| render(report, carried, w)).map_err(|e| {
        io::Error::new(
            e.kind(),
            format!(
                "cannot write the metrics file {} ({e}); the results file was written",
                path.display()
            ),
        )
    })
}

/// The [`LAST_SUCCESS`] value of the file at `path`, if it is a regular file of at most
/// 16 MiB that holds one. Through the one capped reader (issue #43 item 5): a FIFO or a
/// device at the path is not read (opening a FIFO blocked the run until a writer came).
fn previous_success(path: &Path) -> Option<f64> {
    let bytes = crate::util::regular::read_capped(path, 16 << 20).ok()?;
    let text = String::from_utf8(bytes).ok()?;
    text.lines().find_map(|l| {
        let rest = l.strip_prefix(LAST_SUCCESS)?;
        // `NAME VALUE`, or `NAME{command="…"} VALUE` (written since #44).
        let v = match rest.strip_prefix(' ') {
            Some(v) => v,
            None => rest.strip_prefix('{')?.rsplit_once("} ")?.1,
        };
        v.trim().parse::<f64>().ok().filter(|v| v.is_finite())
    })
}

/// The run's end as Unix seconds when it finished with no failed case.
fn success_time(report: &Report) -> Option<f64> {
    let failed = report
        .results
        .iter()
        .any(|r| matches!(r.status, Status::Failed { .. }));
    if failed {
        return None;
    }
    unix_seconds(report.finished_at.as_deref()?)
}

/// An RFC 3339 time as seconds since the Unix epoch.
fn unix_seconds(t: &str) -> Option<f64> {
    let t = humantime::parse_rfc3339_weak(t).ok()?;
    Some(t.duration_since(std::time::UNIX_EPOCH).ok()?.as_secs_f64())
}

/// One family: its name, what `# UNIT` says (`None`: no line), its help, and its
/// samples (the label text inside `{}`, the value), in order.
struct Family {
    name: String,
    unit: Option<&'static str>,
    help: String,
    samples: Vec<(String, f64)>,
    /// The label sets already in `samples` (each series once).
    seen: HashSet<String>,
}

impl Family {
    fn new(name: impl Into<String>, unit: Option<&'static str>, help: impl Into<String>) -> Family {
        Family {
            name: name.into(),
            unit,
            help: help.into(),
            samples: Vec::new(),
            seen: HashSet::new(),
        }
    }

    /// Adds a sample; a label set already present (two results a report cannot tell
    /// apart) gets a `seq` label with the result's position, so no series repeats.
    fn push(&mut self, labels: &str, seq: usize, value: f64) {
        let labels = if self.seen.contains(labels) {
            join(labels, &format!("seq=\"{seq}\""))
        } else {
            labels.to_string()
        };
        self.seen.insert(labels.clone());
        self.samples.push((labels, value));
    }

    fn write(&self, out: &mut dyn Write) -> io::Result<()> {
        if self.samples.is_empty() {
            return Ok(());
        }
        writeln!(out, "# TYPE {} gauge", self.name)?;
        if let Some(u) = self.unit {
            writeln!(out, "# UNIT {} {u}", self.name)?;
        }
        writeln!(out, "# HELP {} {}", self.name, escape_help(&self.help))?;
        for (labels, v) in &self.samples {
            if labels.is_empty() {
                writeln!(out, "{} {}", self.name, number(*v))?;
            } else {
                writeln!(out, "{}{{{labels}}} {}", self.name, number(*v))?;
            }
        }
        Ok(())
    }
}

/// `a,b` of two label lists, either possibly empty.
fn join(a: &str, b: &str) -> String {
    match (a.is_empty(), b.is_empty()) {
        (true, _) => b.to_string(),
        (_, true) => a.to_string(),
        _ => format!("{a},{b}"),
    }
}

/// What a result's figure is called, from its unit's row: the name after `peakbench_`,
/// the `# UNIT` (where the suffix is a base unit) and what one sample counts.
pub(crate) fn figure(unit: Unit) -> (&'static str, Option<&'static str>, &'static str) {
    let d = unit.def();
    (d.openmetrics, d.openmetrics_unit, d.what)
}

/// Writes `report`'s families; `carried` is the last success to repeat when this run
/// has none (see [`save`]).
fn render(report: &Report, carried: Option<f64>, out: &mut dyn Write) -> io::Result<()> {
    let mut run_info = Family::new(
        "peakbench_run_info",
        None,
        "The run these metrics come from: peakbench version, host and command (always 1)",
    );
    // `config.command` is the command's options, tagged with its name (`{"command":
    // "cpu", …}`).
    let command = report
        .config
        .get("command")
        .and_then(|c| c.get("command").or(Some(c)))
        .and_then(|c| c.as_str())
        .unwrap_or("");
    let cmd = label("command", command);
    run_info.push(
        &[
            label("version", &report.tool_version),
            label("host", &report.host.hostname),
            label("command", command),
        ]
        .join(","),
        0,
        1.0,
    );
    let mut last = Family::new(
        LAST_SUCCESS,
        Some("seconds"),
        "When the last run with no failed case finished, Unix time",
    );
    if let Some(t) = success_time(report).or(carried) {
        last.push(&cmd, 0, t);
    }
    let mut finished = Family::new(
        "peakbench_run_finished_timestamp_seconds",
        Some("seconds"),
        "When this run finished (failed cases or not), Unix time",
    );
    if let Some(t) = report.finished_at.as_deref().and_then(unix_seconds) {
        finished.push(&cmd, 0, t);
    }
    let mut cases = Family::new(
        "peakbench_run_cases",
        None,
        "Results of this run by status: ok, skipped or failed",
    );
    for status in ["ok", "skipped", "failed"] {
        let n = report
            .results
            .iter()
            .filter(|r| status_name(&r.status) == status)
            .count();
        cases.push(&join(&cmd, &label("status", status)), 0, n as f64);
    }
    let mut values: Vec<Family> = Vec::new();
    let mut peaks: Vec<Family> = Vec::new();
    let mut efficiency = Family::new(
        "peakbench_efficiency_ratio",
        Some("ratio"),
        "A case's mean over its theoretical peak (1 is the peak; above 1 is flagged over_peak in the report, never clamped)",
    );
    let mut cv = Family::new(
        "peakbench_cv_ratio",
        Some("ratio"),
        "Coefficient of variation of a case's timed samples (standard deviation over mean)",
    );
    let mut disturbed = Family::new(
        "peakbench_case_disturbed",
        None,
        "1 when a case's samples were disturbed (its threads lost their cores or the host stole time), else 0",
    );
    let mut failed = Family::new(
        "peakbench_case_failed",
        None,
        "1 when a case failed (the report says why), 0 when it was measured",
    );
    let mut pct = Family::new(
        "peakbench_latency_percentile_seconds",
        Some("seconds"),
        "Percentiles of a latency case's individual operations (percentile: p50, p90, p99, p99.9, max), seconds",
    );
    for (i, r) in report.results.iter().enumerate() {
        let labels = join(&cmd, &case_labels(r));
        match &r.status {
            Status::Skipped { .. } => continue,
            Status::Failed { .. } => {
                failed.push(&labels, i, 1.0);
                continue;
            }
            Status::Ok => failed.push(&labels, i, 0.0),
        }
        let (stem, unit, what) = figure(r.unit);
        if let Some(s) = &r.summary {
            family(&mut values, format!("peakbench_{stem}"), unit, || {
                format!("Mean of a case's timed samples, {what}")
            })
            .push(&labels, i, s.mean);
            cv.push(&labels, i, s.cv);
        }
        if let Some(p) = r.peak.as_ref().and_then(|p| p.value) {
            family(&mut peaks, format!("peakbench_peak_{stem}"), unit, || {
                format!("A case's theoretical peak, {what} (its provenance is in the JSON report)")
            })
            .push(&labels, i, p);
        }
        if let Some(e) = r.efficiency {
            efficiency.push(&labels, i, e);
        }
        if let (Some(p), Unit::Second) = (&r.percentiles, r.unit) {
            for (name, v) in [
                ("p50", p.p50),
                ("p90", p.p90),
                ("p99", p.p99),
                ("p99.9", p.p99_9),
                ("max", p.max),
            ] {
                pct.push(&join(&labels, &label(PERCENTILE, name)), i, v);
            }
        }
        disturbed.push(&labels, i, if r.disturbed { 1.0 } else { 0.0 });
    }
    for f in [&run_info, &last, &finished, &cases] {
        f.write(out)?;
    }
    for f in values.iter().chain(&peaks) {
        f.write(out)?;
    }
    for f in [&efficiency, &cv, &disturbed, &failed, &pct] {
        f.write(out)?;
    }
    writeln!(out, "# EOF")
}

/// The family named `name` in `list`, added (with the help `help` gives) when new.
fn family<'a>(
    list: &'a mut Vec<Family>,
    name: String,
    unit: Option<&'static str>,
    help: impl FnOnce() -> String,
) -> &'a mut Family {
    match list.iter().position(|f| f.name == name) {
        Some(i) => &mut list[i],
        None => {
            list.push(Family::new(name, unit, help()));
            list.last_mut().expect("just pushed")
        }
    }
}

fn status_name(s: &Status) -> &'static str {
    match s {
        Status::Ok => "ok",
        Status::Skipped { .. } => "skipped",
        Status::Failed { .. } => "failed",
    }
}

/// The label a percentile is under (`peakbench_latency_percentile_seconds`).
const PERCENTILE: &str = "percentile";

/// Label names a case's own labels use: no parameter may take one.
const FIXED: [&str; 7] = [
    "command", "resource", "workload", "metric", "host", "seq", PERCENTILE,
];

/// The label names of parameters `keys` (in order), unique by construction: each is
/// [`label_name`] of its key; one that is a fixed label's or already taken becomes
/// `param_<name>`, then `param_<name>_2`, `_3`, … until free. Two keys that sanitise
/// alike (`io-depth`, `io.depth`) or a key that is another's rename (`host` and
/// `param_host`) never give one label name twice, which Prometheus refuses ("duplicate
/// label names") and node_exporter drops the whole file for.
pub(crate) fn param_names<'a>(keys: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let mut taken: std::collections::HashSet<String> =
        FIXED.iter().map(|s| s.to_string()).collect();
    let keys: Vec<&str> = keys.into_iter().collect();
    // The names the keys ask for as they are, so a later key's own name is not taken
    // by an earlier key's rename.
    let wanted: Vec<String> = keys.iter().map(|k| label_name(k)).collect();
    let mut out = Vec::with_capacity(keys.len());
    for (i, name) in wanted.iter().enumerate() {
        let clash_later = wanted[i + 1..].contains(name);
        let mut n = name.clone();
        if taken.contains(&n) || clash_later {
            n = format!("param_{name}");
            let mut k = 2;
            while taken.contains(&n) || wanted[i + 1..].contains(&n) {
                n = format!("param_{name}_{k}");
                k += 1;
            }
        }
        taken.insert(n.clone());
        out.push(n);
    }
    out
}

/// The labels of a case (see the module doc) but `command`: `resource`, `workload`,
/// `metric`, each parameter, and `host` in a gathered run.
fn case_labels(r: &BenchResult) -> String {
    let mut v = vec![
        label("resource", r.resource.as_str()),
        label("workload", &r.workload),
        label("metric", r.metric.as_str()),
    ];
    let names = param_names(r.params.keys().map(|k| k.as_str()));
    for ((_, p), name) in r.params.iter().zip(names) {
        let value = match p {
            Param::Text(s) => s.clone(),
            other => other.to_string(),
        };
        v.push(label(&name, &value));
    }
    if let Some(h) = &r.host {
        v.push(label("host", h));
    }
    v.join(",")
}

/// `name="value"`, the value escaped.
fn label(name: &str, value: &str) -> String {
    format!("{name}=\"{}\"", escape_value(value))
}

/// A parameter's flag name as a label name: `[a-zA-Z_][a-zA-Z0-9_]*`, other characters
/// `_`; a leading digit gets `_` in front and the reserved leading `__` becomes
/// `param__`.
pub(crate) fn label_name(key: &str) -> String {
    let mut s: String = key
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() {
        s = "param".into();
    } else if s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert(0, '_');
    }
    if s.starts_with("__") {
        s.insert_str(0, "param");
    }
    s
}

/// A label value as the format writes it: `\` → `\\`, `"` → `\"`, newline → `\n`;
/// any other control or format character written visibly as the sanitiser does
/// (`\x1b`, its backslash escaped); at most 1000 characters (then `…`).
pub(crate) fn escape_value(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for (i, c) in s.chars().enumerate() {
        if i == crate::util::sanitize::MAX_CHARS {
            out.push('…');
            break;
        }
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            c if crate::util::sanitize::needs_escape(c) || c.is_control() => {
                out.push_str(&crate::util::sanitize::line(&c.to_string()).replace('\\', "\\\\"))
            }
            c => out.push(c),
        }
    }
    out
}

/// Help text: `\` → `\\`, newline → `\n` (both formats' rule).
fn escape_help(s: &str) -> String {
    s.replace('\\', "\\\\").replace('\n', "\\n")
}

/// A value as both formats read it: shortest round-trip form, exponent notation for
/// very large and very small magnitudes; `NaN`, `+Inf`, `-Inf` (never in a report).
pub(crate) fn number(x: f64) -> String {
    if x.is_nan() {
        "NaN".into()
    } else if x.is_infinite() {
        if x > 0.0 { "+Inf" } else { "-Inf" }.into()
    } else if x != 0.0 && (x.abs() >= 1e15 || x.abs() < 1e-4) {
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}

#[cfg(test)]
#[path = "openmetrics_tests.rs"]
mod tests;
