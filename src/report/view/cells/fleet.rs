//! The cells of a [`Fleet`] the text views share: a workload's row (median, spread,
//! outliers) and a host's row, hosts worst first.

use crate::report::fleet::{Fleet, HostSummary, HostValue, Workload, MIN_HOSTS};
use crate::util::units::format_si;

/// A signed percentage (`-39.7 %`, as a comparison prints its changes), or empty.
fn pct(x: Option<f64>) -> String {
    x.map_or(String::new(), crate::report::compare::pct)
}

/// `host (z -17.8, 39.7 % below)`.
fn outlier_cell(h: &HostValue) -> String {
    format!(
        "{} {} (z {}, {} vs median)",
        h.host,
        h.side.unwrap_or(""),
        h.z.map_or("n/a".into(), |z| format!("{z:+.1}")),
        pct(h.below_median.map(|b| -b))
    )
}

/// Column headers of the workload rows.
pub(crate) const W_HEADERS: [&str; 7] = [
    "workload",
    "hosts",
    "median",
    "MAD (rel)",
    "IQR",
    "min .. max",
    "outliers",
];

/// One workload's row in [`W_HEADERS`] order (before sanitising).
pub(crate) fn w_row(w: &Workload) -> [String; 7] {
    let u = w.case.unit.as_str();
    let outliers: Vec<String> = w.outliers().map(outlier_cell).collect();
    [
        w.label(),
        w.n.to_string(),
        format_si(w.median, u),
        format!(
            "{} ({})",
            format_si(w.mad, u),
            w.rel_mad
                .map_or(String::new(), |r| format!("{:.1} %", r * 100.0))
        ),
        format_si(w.iqr, u),
        format!("{} .. {}", format_si(w.min, u), format_si(w.max, u)),
        if outliers.is_empty() {
            if w.n < MIN_HOSTS {
                format!("n/a (< {} hosts)", MIN_HOSTS)
            } else {
                "none".into()
            }
        } else {
            outliers.join("; ")
        },
    ]
}

/// Column headers of the host rows.
pub(crate) const H_HEADERS: [&str; 6] = [
    "host",
    "file",
    "workloads",
    "slow",
    "fast",
    "worst shortfall",
];

/// One host's row in [`H_HEADERS`] order (before sanitising).
pub(crate) fn h_row(h: &HostSummary) -> [String; 6] {
    [
        h.host.clone(),
        h.file.clone(),
        h.workloads.to_string(),
        h.slow.to_string(),
        h.fast.to_string(),
        match (h.worst, &h.worst_case) {
            (Some(w), Some(c)) => format!("{:.1} % ({c})", w * 100.0),
            _ => String::new(),
        },
    ]
}

/// Hosts with the most slow outliers first, then by name.
pub(crate) fn hosts_sorted(f: &Fleet) -> Vec<&HostSummary> {
    let mut v: Vec<&HostSummary> = f.hosts.iter().collect();
    v.sort_by(|a, b| b.slow.cmp(&a.slow).then_with(|| a.host.cmp(&b.host)));
    v
}
