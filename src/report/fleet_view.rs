//! The views of a [`Fleet`]: the terminal table, JSON, CSV (one row per workload and
//! host, raw numbers), Markdown and a self-contained HTML page (hosts first, worst
//! first; then per workload a strip of every host's figure around the fleet median,
//! outliers in red). Like every view they format what the fleet holds and compute
//! nothing of their own.

use super::charts::esc;
use super::csv::{opt_num as num, CsvWriter};
use super::export::Exportable;
use super::fleet::{Fleet, HostSummary, HostValue, Workload};
use super::{html, json, markdown};
use crate::util::sanitize;
use crate::util::units::format_si;
use std::fmt::Write as _;
use std::io::{self, Write};

fn pct(x: Option<f64>) -> String {
    x.map_or(String::new(), |v| format!("{:+.1} %", v * 100.0))
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
const W_HEADERS: [&str; 7] = [
    "workload",
    "hosts",
    "median",
    "MAD (rel)",
    "IQR",
    "min .. max",
    "outliers",
];

fn w_row(w: &Workload) -> [String; 7] {
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
            if w.n < super::fleet::MIN_HOSTS {
                format!("n/a (< {} hosts)", super::fleet::MIN_HOSTS)
            } else {
                "none".into()
            }
        } else {
            outliers.join("; ")
        },
    ]
}

const H_HEADERS: [&str; 6] = [
    "host",
    "file",
    "workloads",
    "slow",
    "fast",
    "worst shortfall",
];

fn h_row(h: &HostSummary) -> [String; 6] {
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
fn hosts_sorted(f: &Fleet) -> Vec<&HostSummary> {
    let mut v: Vec<&HostSummary> = f.hosts.iter().collect();
    v.sort_by(|a, b| b.slow.cmp(&a.slow).then_with(|| a.host.cmp(&b.host)));
    v
}

/// A table of sanitised cells; within `width` columns when given (cells wrap).
fn text_table(
    headers: &[&str],
    rows: Vec<Vec<String>>,
    width: Option<usize>,
) -> comfy_table::Table {
    use comfy_table::{presets::UTF8_FULL_CONDENSED, ContentArrangement, Table};
    let mut t = Table::new();
    t.load_preset(UTF8_FULL_CONDENSED).set_header(headers);
    if let Some(w) = width {
        t.set_content_arrangement(ContentArrangement::Dynamic)
            .set_width(u16::try_from(w).unwrap_or(u16::MAX));
    }
    for r in rows {
        t.add_row(r.iter().map(|c| sanitize::line(c)));
    }
    t
}

/// CSV header: one row per workload and host.
pub(crate) const CSV_HEADER: &str = "resource,workload,params,metric,unit,settings,host,value,median,mad,iqr,z,below_median,outlier,side";

impl Exportable for Fleet {
    fn table(&self, out: &mut dyn Write) -> io::Result<()> {
        self.table_fit(out, None)
    }

    /// Within `width` columns when given: the tables' cells and the lines below wrap.
    fn table_fit(&self, out: &mut dyn Write, width: Option<usize>) -> io::Result<()> {
        use crate::util::term;
        let width = width.map(|w| w.max(term::MIN_WIDTH));
        writeln!(
            out,
            "fleet: {} hosts from {} files",
            self.hosts.len(),
            self.files.len()
        )?;
        let rows = self.workloads.iter().map(|w| w_row(w).to_vec()).collect();
        writeln!(out, "{}", text_table(&W_HEADERS, rows, width))?;
        let rows = hosts_sorted(self)
            .into_iter()
            .map(|h| h_row(h).to_vec())
            .collect();
        writeln!(out, "{}", text_table(&H_HEADERS, rows, width))?;
        for w in &self.warnings {
            for l in term::wrap("warning: ", &sanitize::line(w), 4, width) {
                writeln!(out, "{l}")?;
            }
        }
        for l in term::wrap("method: ", &self.method, 4, width) {
            writeln!(out, "{l}")?;
        }
        Ok(())
    }

    fn json(&self, out: &mut dyn Write) -> io::Result<()> {
        json::write(self, out)
    }

    fn csv(&self, out: &mut CsvWriter) -> io::Result<()> {
        out.record(&CSV_HEADER.split(',').collect::<Vec<_>>())?;
        for w in &self.workloads {
            let k = &w.case;
            for h in &w.hosts {
                out.record(&[
                    k.resource.to_string(),
                    k.workload.clone(),
                    k.params.clone(),
                    k.metric.to_string(),
                    k.unit.to_string(),
                    w.settings.clone().unwrap_or_default(),
                    h.host.clone(),
                    format!("{}", h.value),
                    format!("{}", w.median),
                    format!("{}", w.mad),
                    format!("{}", w.iqr),
                    num(h.z),
                    num(h.below_median),
                    h.outlier.to_string(),
                    h.side.unwrap_or("").to_string(),
                ])?;
            }
        }
        Ok(())
    }

    fn markdown(&self, out: &mut dyn Write) -> io::Result<()> {
        writeln!(out, "### peakbench fleet ({} hosts)\n", self.hosts.len())?;
        let rows: Vec<Vec<String>> = self.workloads.iter().map(|w| w_row(w).to_vec()).collect();
        markdown::grid(&W_HEADERS, &rows, out)?;
        writeln!(out)?;
        let rows: Vec<Vec<String>> = hosts_sorted(self)
            .into_iter()
            .map(|h| h_row(h).to_vec())
            .collect();
        markdown::grid(&H_HEADERS, &rows, out)?;
        for w in &self.warnings {
            writeln!(out, "\n- warning: {}", markdown::cell(w))?;
        }
        writeln!(out, "\n{}", markdown::cell(&self.method))
    }

    fn html(&self, out: &mut dyn Write) -> io::Result<()> {
        out.write_all(render(self).as_bytes())
    }
}

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
pub(crate) fn render(f: &Fleet) -> String {
    let mut out = String::with_capacity(32 * 1024);
    let title = format!("peakbench fleet: {} hosts", f.hosts.len());
    html::head(&mut out, &title);
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
