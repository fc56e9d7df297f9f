//! The fleet page: hosts first, worst first; then per workload a strip of every
//! host's figure around the fleet median, outliers in red. Like every view it formats
//! what the fleet holds and computes nothing of its own.

use super::page::head;
use crate::report::charts::esc;
use crate::report::fleet::{Fleet, Workload};
use crate::report::view::cells::fleet::{h_row, hosts_sorted, w_row, H_HEADERS, W_HEADERS};
use crate::util::units::format_si;
use std::fmt::Write as _;

/// Every host of `w` as a dot on a strip around the median (centre); the half-width is
/// the farthest host, at least twice the rule's gap, so rows are comparable at a glance
/// only within a row (the scale is in the title).
fn strip(w: &Workload, min_gap: f64) -> String {
    let range = w
        .hosts
        .iter()
        .filter_map(|h| h.below_median)
        .map(f64::abs)
        .filter(|v| v.is_finite())
        .fold(2.0 * min_gap, f64::max);
    let mut s = format!(
        "<span class=\"ci\" style=\"width:220px\" title=\"centre: median; ends: ±{:.1} %\"><span class=\"z\" style=\"left:50%\"></span>",
        range * 100.0
    );
    for h in &w.hosts {
        let Some(b) = h.below_median else { continue };
        let pos = (50.0 - 50.0 * b / range).clamp(0.0, 100.0);
        let color = if h.outlier {
            "var(--bad)"
        } else {
            "var(--acc)"
        };
        let _ = write!(
            s,
            "<span style=\"position:absolute;top:2px;left:calc({pos:.1}% - 4px);width:8px;height:8px;border-radius:4px;background:{color};opacity:.8\" title=\"{}: {}\"></span>",
            esc(&h.host),
            esc(&format_si(h.value, w.case.unit.as_str()))
        );
    }
    s.push_str("</span>");
    s
}

/// The fleet page.
pub(super) fn page(f: &Fleet) -> String {
    let mut out = String::with_capacity(32 * 1024);
    let title = format!("peakbench fleet: {} hosts", f.hosts.len());
    head(&mut out, &title);
    let outliers: usize = f.workloads.iter().map(|w| w.outliers().count()).sum();
    let _ = write!(
        out,
        "<header><h1>{}</h1><div class=\"meta\">{} files · {} workloads · {} outlier figures</div></header>",
        esc(&title),
        f.files.len(),
        f.workloads.len(),
        outliers
    );
    if !f.warnings.is_empty() {
        out.push_str("<h2>Warnings</h2><ul>");
        for w in &f.warnings {
            let _ = write!(out, "<li class=\"flag\">{}</li>", esc(w));
        }
        out.push_str("</ul>");
    }
    out.push_str("<h2>Hosts</h2><div class=\"tw\"><table><tr>");
    for h in H_HEADERS {
        let _ = write!(out, "<th>{h}</th>");
    }
    out.push_str("</tr>");
    for h in hosts_sorted(f) {
        let cells = h_row(h);
        let cls = if h.slow > 0 { " class=\"flag\"" } else { "" };
        let _ = write!(out, "<tr><td{cls}>{}</td>", esc(&cells[0]));
        for (i, c) in cells.iter().enumerate().skip(1) {
            let n = if (2..5).contains(&i) {
                " class=\"n\""
            } else {
                ""
            };
            let _ = write!(out, "<td{n}>{}</td>", esc(c));
        }
        out.push_str("</tr>");
    }
    out.push_str("</table></div><h2>Workloads</h2><div class=\"tw\"><table><tr>");
    for h in W_HEADERS.iter().take(6) {
        let _ = write!(out, "<th>{h}</th>");
    }
    out.push_str("<th>hosts around the median</th><th>outliers</th></tr>");
    for w in &f.workloads {
        let cells = w_row(w);
        let _ = write!(out, "<tr><td>{}</td>", esc(&cells[0]));
        for c in &cells[1..6] {
            let _ = write!(out, "<td class=\"n\">{}</td>", esc(c));
        }
        let cls = if w.outliers().next().is_some() {
            " class=\"flag\""
        } else {
            ""
        };
        let _ = write!(
            out,
            "<td>{}</td><td{cls}>{}</td></tr>",
            strip(w, f.rule.min_gap),
            esc(&cells[6])
        );
        if !w.not_ok.is_empty() {
            let list: Vec<String> = w
                .not_ok
                .iter()
                .map(|n| format!("{}: {}", n.host, n.reason))
                .collect();
            let _ = write!(
                out,
                "<tr><td></td><td colspan=\"7\" class=\"notes\">not measured on {}</td></tr>",
                esc(&list.join("; "))
            );
        }
    }
    let _ = writeln!(
        out,
        "</table></div><footer>Files: {}. Method: {}. Every number is a field of the fleet JSON (peakbench fleet --format json).</footer></body></html>",
        esc(&f.files.join(", ")),
        esc(&f.method)
    );
    out
}
