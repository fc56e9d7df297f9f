//! The page of a history series (`peakbench history show … --html FILE`): the host's
//! cases over time, one time-series chart per case — the measured figure as a line,
//! the theoretical peak dashed, disturbed runs circled, change points as vertical
//! marks — and the table of every run under it.

use super::page::head;
use crate::report::charts::{
    esc, render, Axis, Chart, Marker, Scale, Series as Line, Style, Ticks,
};
use crate::report::series::{CaseSeries, Series};
use crate::report::view::cells;
use std::fmt::Write as _;

/// `2026-11-26T14:05:09Z` → `11-26 14:05`.
fn short(t: &str) -> String {
    match (t.get(5..10), t.get(11..16)) {
        (Some(d), Some(h)) => format!("{d} {h}"),
        _ => t.to_string(),
    }
}

/// Most time labels under one chart: an `11-26 14:05` label is about 70 px wide, and
/// more than this many overlap on the chart's width (issue #44 item 9).
const MAX_LABELS: usize = 10;

/// Every `k`-th label kept (the others blank) so that at most [`MAX_LABELS`] show,
/// the first always among them.
fn thinned(labels: Vec<String>) -> Vec<String> {
    let k = labels.len().div_ceil(MAX_LABELS).max(1);
    labels
        .into_iter()
        .enumerate()
        .map(|(i, l)| if i % k == 0 { l } else { String::new() })
        .collect()
}

/// The chart of one case.
pub(crate) fn chart(s: &CaseSeries) -> Chart {
    let at = |i: usize| i as f64;
    let unit = s.unit.to_string();
    let figure: Vec<(f64, f64)> = s
        .points
        .iter()
        .enumerate()
        .filter_map(|(i, p)| p.value.map(|v| (at(i), v)))
        .collect();
    let disturbed: Vec<(f64, f64)> = s
        .points
        .iter()
        .enumerate()
        .filter(|(_, p)| p.disturbed)
        .filter_map(|(i, p)| p.value.map(|v| (at(i), v)))
        .collect();
    let peak: Vec<(f64, f64)> = s
        .points
        .iter()
        .enumerate()
        .filter_map(|(i, p)| p.peak.map(|v| (at(i), v)))
        .collect();
    let mut series = vec![Line {
        name: format!("measured ({})", s.metric),
        points: figure,
        style: Style::Line,
        color: 0,
    }];
    if !peak.is_empty() {
        series.push(Line {
            name: "theoretical peak".into(),
            points: peak,
            style: Style::Dashed,
            color: 3,
        });
    }
    if !disturbed.is_empty() {
        series.push(Line {
            name: "disturbed run (the machine was shared)".into(),
            points: disturbed,
            style: Style::Points,
            color: 1,
        });
    }
    let host = s.points.first().map(|p| p.host.as_str()).unwrap_or("");
    Chart {
        title: if s.settings.is_empty() {
            format!("{} on {host}", s.case)
        } else {
            format!("{} on {host} ({})", s.case, s.settings)
        },
        x: Axis {
            label: "run (UTC start)".into(),
            scale: Scale::Linear,
            ticks: Ticks::Categories(thinned(
                s.points.iter().map(|p| short(&p.started_at)).collect(),
            )),
        },
        y: Axis {
            label: unit.clone(),
            scale: Scale::Linear,
            ticks: Ticks::Si(unit),
        },
        series,
        vmarks: s
            .change_points
            .iter()
            .map(|c| Marker {
                at: c.index as f64 - 0.5,
                label: match c.rel {
                    Some(r) => format!("change {:+.1} %", r * 100.0),
                    None => "change".into(),
                },
            })
            .collect(),
        hmarks: Vec::new(),
    }
}

/// The whole page.
pub(crate) fn page(doc: &Series) -> String {
    let mut out = String::with_capacity(16 * 1024);
    head(&mut out, &doc.title);
    // Runs, not points: a run of 200 cases is one run (issue #44 item 9).
    let runs = doc
        .cases
        .iter()
        .flat_map(|c| c.points.iter().map(|p| p.run))
        .collect::<std::collections::BTreeSet<i64>>()
        .len();
    let _ = write!(
        out,
        "<header><h1>{}</h1><div class=\"meta\">{} cases · {runs} runs · change points: {}</div></header>",
        esc(&doc.title),
        doc.cases.len(),
        esc(doc.method)
    );
    out.push_str("<h2>Over time</h2><div class=\"grid\">");
    for s in &doc.cases {
        let cps = s.change_points.len();
        let _ = write!(
            out,
            "<figure class=\"timeseries\">{}<figcaption>{} runs, {} change point{}; circled: disturbed runs (left out of the change-point search)</figcaption></figure>",
            render(&chart(s)),
            s.points.len(),
            cps,
            if cps == 1 { "" } else { "s" }
        );
    }
    out.push_str("</div><h2>Runs</h2><div class=\"tw\"><table><tr>");
    for h in cells::series::TEXT_HEADERS {
        let _ = write!(out, "<th>{}</th>", esc(h));
    }
    out.push_str("</tr>");
    for r in cells::series::rows(doc, false) {
        out.push_str("<tr>");
        for c in r {
            let _ = write!(out, "<td>{}</td>", esc(&c));
        }
        out.push_str("</tr>");
    }
    out.push_str("</table></div>\n<footer>Generated by peakbench from its run history. Every number is a field of a recorded report; the page only formats and plots them.</footer>\n</body></html>\n");
    out
}
