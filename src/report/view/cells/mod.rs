//! Formatting shared by the views: turns model fields into cells. Formatting only;
//! every number comes from the model. A report may come from any file, so every cell,
//! note and reference line goes through the one sanitiser ([`crate::util::sanitize`])
//! here, before the table, Markdown or CSV sees it. The cells of a comparison and of a
//! fleet are in [`compare`] and [`fleet`].

pub(crate) mod compare;
pub(crate) mod fleet;
pub(crate) mod series;

use crate::measure::CiCaveat;
use crate::report::model::{is_size_param, BenchResult, Param, ResourceName, Status};
use crate::util::sanitize;
use crate::util::units::{format_si, format_size_exact};

/// One parameter's value as the views print it: a byte size (see
/// [`crate::report::model::SIZE_PARAMS`]) without a space in the units that state it exactly
/// (`8KiB`, `8KB`: [`format_size_exact`]), anything else as it is.
pub(crate) fn param_value(key: &str, v: &Param) -> String {
    match v {
        Param::Int(b) if is_size_param(key) => format_size_exact(*b).replace(' ', ""),
        other => other.to_string(),
    }
}

/// `threads=2 isa=avx512 precision=fp64`, keys in sorted order; sizes as
/// [`param_value`] prints them (`block=1MiB`, `block=8KB`).
pub(crate) fn params(r: &BenchResult) -> String {
    r.params
        .iter()
        .map(|(k, v)| format!("{k}={}", param_value(k, v)))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The headline figure with its unit: the mean, or `… p50` (the median) for a latency
/// with percentiles; an empty cell without a summary.
pub(crate) fn mean(r: &BenchResult) -> String {
    // A latency with percentiles is headlined by its median, as fio and sockperf do: a
    // few millisecond preemptions pull the mean of a shared machine far above most
    // round trips (issue #45 item 4: 44.22 µs beside a p99 of 36.22 µs). The JSON keeps
    // the mean.
    if let (Some(p), Some(_)) = (&r.percentiles, &r.summary) {
        return format!("{} p50", format_si(p.p50, r.unit.as_str()));
    }
    r.summary
        .as_ref()
        .map_or(String::new(), |s| format_si(s.mean, r.unit.as_str()))
}

/// Coefficient of variation in percent; `n=1` for one sample, whose spread is not
/// known (its CV of 0 is no measurement).
pub(crate) fn cv(r: &BenchResult) -> String {
    r.summary.as_ref().map_or(String::new(), |s| {
        if s.caveat() == Some(CiCaveat::OneSample) {
            format!("n={}", s.n)
        } else {
            format!("{:.1} %", s.cv * 100.0)
        }
    })
}

/// `min .. max`; `—` for one sample (no range was measured).
pub(crate) fn range(r: &BenchResult) -> String {
    r.summary.as_ref().map_or(String::new(), |s| {
        if s.caveat() == Some(CiCaveat::OneSample) {
            return "—".to_string();
        }
        format!(
            "{} .. {}",
            format_si(s.min, r.unit.as_str()),
            format_si(s.max, r.unit.as_str())
        )
    })
}

/// The 95 % confidence interval of the mean as the views say it: `95 % CI a .. b;
/// n = 3`; for one sample that no spread is known; for an interval reaching below 0
/// (which no rate or duration can be) that it is not meaningful, with the CV and the
/// interval clipped at 0 for reading. The JSON keeps the interval as computed.
pub(crate) fn ci(r: &BenchResult) -> String {
    let Some(s) = r.summary.as_ref() else {
        return String::new();
    };
    let u = r.unit.as_str();
    match s.caveat() {
        Some(CiCaveat::OneSample) => {
            format!("95 % CI: not known, one sample (n = {}): no spread was measured", s.n)
        }
        Some(CiCaveat::BelowZero) => format!(
            "95 % CI not meaningful (CV {:.0} %, n = {}): its lower end, {}, is below 0, which no {} can be; clipped: 0 .. {}",
            s.cv * 100.0,
            s.n,
            format_si(s.ci95_low, u),
            r.metric,
            format_si(s.ci95_high, u)
        ),
        None => format!(
            "95 % CI {} .. {}; n = {}",
            format_si(s.ci95_low, u),
            format_si(s.ci95_high, u),
            s.n
        ),
    }
}

/// The per-row tail figure, as fio and iperf3 print it per job and per test: the p99
/// of a row with latency percentiles (`64.95 ms`), the UDP loss of a UDP row
/// (`25.09 % lost`); else empty.
pub(crate) fn tail(r: &BenchResult) -> String {
    if let Some(p) = &r.percentiles {
        return format_si(p.p99, r.unit.as_str());
    }
    match r.udp_loss() {
        Some(l) => format!("{:.2} % lost", l.fraction() * 100.0),
        None => String::new(),
    }
}

/// For a row whose peak is shown as `unknown`: `unknown: why; set it with --peak
/// KEY=…` (the reason from the peak's source; the `--peak` hint unless the reason
/// already gives one).
pub(crate) fn peak_unknown(r: &BenchResult) -> Option<String> {
    let p = r.peak.as_ref().filter(|p| p.value.is_none())?;
    let why = p.source.trim();
    let why = why.strip_prefix("unknown:").map_or(why, str::trim);
    if why.contains("--peak") {
        return Some(format!("unknown: {why}"));
    }
    // The resource's fact: the key its rows of this metric read.
    let Some(key) = r.resource.peak_key(r.metric, r.param_str("precision")) else {
        return Some(format!("unknown: {why}"));
    };
    let why = if why.is_empty() {
        "no source given"
    } else {
        why
    };
    Some(format!("unknown: {why}; set it with --peak {key}=…"))
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
/// `95.0 %`, `~49.6 %` when the row was disturbed (the machine was shared while it
/// measured), `110.0 % OVER PEAK`; `~` alone for a disturbed row without a peak.
pub(crate) fn efficiency(r: &BenchResult) -> String {
    let mark = if r.disturbed { "~" } else { "" };
    match r.efficiency {
        Some(e) if r.over_peak => format!("{mark}{:.1} % OVER PEAK", e * 100.0),
        Some(e) => format!("{mark}{:.1} %", e * 100.0),
        // A disturbed row without a peak (memory, disk, loopback) is marked too, or it
        // would look clean (issue #45 item 4).
        None => mark.to_string(),
    }
}

/// The host line of the text views: `name | model (uarch) | N cores / M threads | kernel`,
/// sanitised; the row is left out where the model already names it (Arm).
pub(crate) fn host_line(h: &crate::hw::HostInfo) -> String {
    sanitize::line(&format!(
        "{} | {} | {} cores / {} threads | {}",
        h.hostname,
        h.cpu.name_with_row(),
        h.cpu.cores,
        h.cpu.threads,
        h.kernel
    ))
}

/// The line under the host line: what the run was given (`given: governor performance
/// (intel_pstate), boost on, …`, #47 item 5), sanitised; `None` for a report written
/// before it was recorded.
pub(crate) fn tuning_line(h: &crate::hw::HostInfo) -> Option<String> {
    h.tuning
        .as_ref()
        .map(|t| sanitize::line(&format!("given: {}", t.line())))
}

/// The energy counters line under the host line (`energy: package-0 (…)`, or "no
/// energy counters readable here (…)": said once, not per row); `None` for a report
/// written before it was recorded.
pub(crate) fn energy_line(h: &crate::hw::HostInfo) -> Option<String> {
    h.energy
        .as_ref()
        .map(|e| sanitize::line(&format!("energy: {}", e.line())))
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
pub(crate) fn notes(report: &crate::report::model::Report) -> Vec<String> {
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

/// The reference cells of a row: each tool's figure (`likwid-bench 77.00 GFLOP/s`),
/// its efficiency against the row's peak, and peakbench's mean over the tool's (one
/// line per tool, joined with `; `); empty without reference figures.
pub(crate) fn reference_cells(r: &BenchResult) -> [String; 3] {
    let mean = r.summary.as_ref().map(|s| s.mean);
    let peak = r.peak.as_ref().and_then(|p| p.value);
    let mut cells: [Vec<String>; 3] = Default::default();
    for x in r.reference.iter().flatten() {
        cells[0].push(format!(
            "{} {}",
            x.tool,
            format_si(x.value, x.unit.as_str())
        ));
        cells[1].push(
            peak.and_then(|p| crate::report::model::efficiency(r.metric, x.value, p))
                .map_or(String::new(), |e| format!("{:.1} %", 100.0 * e)),
        );
        cells[2].push(match mean {
            Some(m) if x.value != 0.0 => format!("{:.2}x", m / x.value),
            _ => String::new(),
        });
    }
    cells.map(|c| sanitize::line(&c.join("; ")))
}

/// [`reference_lines`] without the row's label (the table names the row by number),
/// with both efficiencies and the ratio: `peakbench 76.00 GFLOP/s (95.0 %),
/// likwid-bench 5.2.2 77.00 GFLOP/s (96.2 %): 0.99x (likwid-bench -t …)`.
pub(crate) fn reference_lines_short(r: &BenchResult) -> Vec<String> {
    let eff = |v: f64| match r.peak.as_ref().and_then(|p| p.value) {
        Some(p) => crate::report::model::efficiency(r.metric, v, p)
            .map_or(String::new(), |e| format!(" ({:.1} %)", 100.0 * e)),
        None => String::new(),
    };
    let mean = r.summary.as_ref().map(|s| s.mean);
    r.reference
        .iter()
        .flatten()
        .map(|x| {
            let ratio = match mean {
                Some(m) if x.value != 0.0 => format!(": {:.2}x", m / x.value),
                _ => String::new(),
            };
            sanitize::line(&format!(
                "peakbench {}{}, {} {} {}{}{ratio} ({})",
                self::mean(r),
                mean.map_or(String::new(), eff),
                x.tool,
                x.version,
                format_si(x.value, x.unit.as_str()),
                eff(x.value),
                x.command
            ))
        })
        .collect()
}

/// The params as the terminal table and the HTML show them: per row, what tells the
/// row apart (a param that only repeats the workload's name is left out, a switch that
/// is on is its name, one that is off is left out); per resource, what all its rows
/// share, said once. The JSON and CSV keep every param.
pub(crate) struct Params {
    /// Per result, in order: `block=4KiB depth=32`.
    pub(crate) rows: Vec<String>,
    /// Per resource with two results or more: the `k=v` all its results share.
    pub(crate) common: Vec<(ResourceName, String)>,
}

impl Params {
    /// The short params of `results` (see [`Params`]).
    pub(crate) fn of(results: &[&BenchResult]) -> Params {
        let mut common: Vec<(ResourceName, Vec<(String, String)>)> = Vec::new();
        // The resources present, in their rows' order (built-in first, as registered).
        let mut present: Vec<ResourceName> = results.iter().map(|r| r.resource).collect();
        present.sort();
        present.dedup();
        for res in &present {
            let of: Vec<&BenchResult> = results
                .iter()
                .copied()
                .filter(|r| r.resource == *res)
                .collect();
            if of.len() < 2 {
                continue;
            }
            let shared: Vec<(String, String)> = of[0]
                .params
                .iter()
                .filter(|(k, v)| of.iter().all(|r| r.params.get(*k) == Some(v)))
                .map(|(k, v)| (k.clone(), param_value(k, v)))
                .collect();
            if !shared.is_empty() {
                common.push((*res, shared));
            }
        }
        let rows = results
            .iter()
            .map(|r| {
                let shared = common.iter().find(|(res, _)| *res == r.resource);
                let tokens: Vec<&str> = r.workload.split('_').collect();
                r.params
                    .iter()
                    .filter(|(k, p)| {
                        let v = param_value(k, p);
                        let is_shared =
                            shared.is_some_and(|(_, s)| s.iter().any(|(sk, _)| sk == *k));
                        !is_shared
                            && v != r.workload
                            && !tokens.contains(&v.as_str())
                            && **p != Param::Bool(false)
                    })
                    // A switch that is on is its name (`nt`); one that is off is left out.
                    .map(|(k, p)| match p {
                        Param::Bool(true) => k.clone(),
                        _ => format!("{k}={}", param_value(k, p)),
                    })
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect();
        let common = common
            .into_iter()
            .map(|(res, kv)| {
                let text = kv
                    .iter()
                    .map(|(k, v)| format!("{k}={v}"))
                    .collect::<Vec<_>>()
                    .join(" ");
                (res, text)
            })
            .collect();
        Params { rows, common }
    }
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
