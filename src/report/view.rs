//! Formatting shared by the text exporters: turns model fields into cells. Formatting
//! only; every number comes from the model. A report may come from any file, so every
//! cell, note and reference line goes through the one sanitiser
//! ([`crate::util::sanitize`]) here, before the table, Markdown or CSV sees it.

use super::model::{is_size_param, BenchResult, Param, Status};
use crate::util::sanitize;
use crate::util::units::{format_si, format_size};

/// One parameter's value as the views print it: a byte size (see
/// [`super::model::SIZE_PARAMS`]) in binary units without a space (`8KiB`), anything
/// else as it is.
pub(crate) fn param_value(key: &str, v: &Param) -> String {
    match v {
        Param::Int(b) if is_size_param(key) => format_size(*b).replace(' ', ""),
        other => other.to_string(),
    }
}

/// `threads=2 isa=avx512 precision=fp64`, keys in sorted order; sizes in binary units
/// (`block=1MiB`).
pub(crate) fn params(r: &BenchResult) -> String {
    r.params
        .iter()
        .map(|(k, v)| format!("{k}={}", param_value(k, v)))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The mean with its unit, or an empty cell.
pub(crate) fn mean(r: &BenchResult) -> String {
    r.summary
        .as_ref()
        .map_or(String::new(), |s| format_si(s.mean, r.unit.as_str()))
}

/// Coefficient of variation in percent.
pub(crate) fn cv(r: &BenchResult) -> String {
    r.summary
        .as_ref()
        .map_or(String::new(), |s| format!("{:.1} %", s.cv * 100.0))
}

/// `min .. max`.
pub(crate) fn range(r: &BenchResult) -> String {
    r.summary.as_ref().map_or(String::new(), |s| {
        format!(
            "{} .. {}",
            format_si(s.min, r.unit.as_str()),
            format_si(s.max, r.unit.as_str())
        )
    })
}

/// The peak value, `unknown`, or empty.
pub(crate) fn peak(r: &BenchResult) -> String {
    match &r.peak {
        Some(p) => p
            .value
            .map_or("unknown".to_string(), |v| format_si(v, r.unit.as_str())),
        None => String::new(),
    }
}

/// Efficiency in percent, with a visible flag above 100 %.
pub(crate) fn efficiency(r: &BenchResult) -> String {
    match r.efficiency {
        Some(e) if r.over_peak => format!("{:.1} % OVER PEAK", e * 100.0),
        Some(e) => format!("{:.1} %", e * 100.0),
        None => String::new(),
    }
}

/// The host line of the text views: `name | model (uarch) | N cores / M threads | kernel`,
/// sanitised.
pub(crate) fn host_line(h: &crate::hw::HostInfo) -> String {
    sanitize::line(&format!(
        "{} | {} ({}) | {} cores / {} threads | {}",
        h.hostname, h.cpu.model_name, h.cpu.microarch, h.cpu.cores, h.cpu.threads, h.kernel
    ))
}

/// `ok`, `skipped: reason`, `failed: error`.
pub(crate) fn status(r: &BenchResult) -> String {
    match &r.status {
        Status::Ok => "ok".into(),
        Status::Skipped { reason } => format!("skipped: {reason}"),
        Status::Failed { error } => format!("failed: {error}"),
    }
}

/// The column headers shared by the table and Markdown views.
pub(crate) const HEADERS: [&str; 10] = [
    "resource",
    "workload",
    "metric",
    "params",
    "mean",
    "cv",
    "min .. max",
    "peak",
    "efficiency",
    "status",
];

/// One row of cells in [`HEADERS`] order, sanitised.
pub(crate) fn row(r: &BenchResult) -> [String; 10] {
    raw_row(r).map(|c| sanitize::line(&c))
}

fn raw_row(r: &BenchResult) -> [String; 10] {
    [
        r.resource.to_string(),
        r.workload.clone(),
        r.metric.to_string(),
        params(r),
        mean(r),
        cv(r),
        range(r),
        peak(r),
        efficiency(r),
        status(r),
    ]
}

/// Every note of every result as `resource workload: note`, in result order.
pub(crate) fn notes(report: &super::model::Report) -> Vec<String> {
    report
        .results
        .iter()
        .flat_map(|r| {
            let label = note_label(r);
            r.notes
                .iter()
                .map(move |n| sanitize::line(&format!("{label}: {n}")))
        })
        .collect()
}

/// `resource workload` plus the params that tell cases of one workload apart
/// (`threads=2`, `precision=fp32`, …), so a note names its row.
fn note_label(r: &BenchResult) -> String {
    const KEYS: [&str; 9] = [
        "precision",
        "threads",
        "pattern",
        "block",
        "depth",
        "jobs",
        "msg",
        "streams",
        "device",
    ];
    let mut label = format!("{} {}", r.resource, r.workload);
    for (k, v) in &r.params {
        if KEYS.contains(&k.as_str()) {
            // Only the block is shown as a size here (`msg=1024` stays a count of bytes,
            // as the notes have always named it).
            let v = if k == "block" {
                param_value(k, v)
            } else {
                v.to_string()
            };
            label.push_str(&format!(" {k}={v}"));
        }
    }
    label
}

/// One line per reference figure: `cpu fma_f64_avx512 threads=1: peakbench 76.1 GFLOP/s,
/// likwid-bench 5.2.2 77.0 GFLOP/s (likwid-bench -t …)`.
pub(crate) fn reference_lines(r: &BenchResult) -> Vec<String> {
    r.reference
        .iter()
        .flatten()
        .map(|x| {
            sanitize::line(&format!(
                "{} {} {}: peakbench {}, {} {} {} ({})",
                r.resource,
                r.workload,
                params(r),
                mean(r),
                x.tool,
                x.version,
                format_si(x.value, x.unit.as_str()),
                x.command
            ))
        })
        .collect()
}

/// [`reference_lines`] without the row's label (the table names the row by number):
/// `peakbench 76.1 GFLOP/s, likwid-bench 5.2.2 77.0 GFLOP/s (likwid-bench -t …)`.
pub(crate) fn reference_lines_short(r: &BenchResult) -> Vec<String> {
    r.reference
        .iter()
        .flatten()
        .map(|x| {
            sanitize::line(&format!(
                "peakbench {}, {} {} {} ({})",
                mean(r),
                x.tool,
                x.version,
                format_si(x.value, x.unit.as_str()),
                x.command
            ))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_row_has_one_cell_per_header() {
        for r in &crate::report::fixtures::report().results {
            assert_eq!(row(r).len(), HEADERS.len());
        }
        assert_eq!(HEADERS[2], "metric");
    }
}
