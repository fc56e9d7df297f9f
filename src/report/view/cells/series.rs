//! The cells of a history series (`peakbench history show`): one row per run of each
//! case, the text views' (table, Markdown) with SI prefixes, CSV's raw numbers.

use crate::report::series::{CaseSeries, Series};
use crate::util::sanitize;
use crate::util::units::format_si;

/// The columns of a series' raw rows (CSV).
pub(crate) const HEADERS: [&str; 9] = [
    "case",
    "host",
    "started (UTC)",
    "run",
    "value",
    "unit",
    "efficiency",
    "disturbed",
    "change",
];

/// The columns of the text views (table, Markdown, HTML): the value carries its unit
/// (`37.48 GFLOP/s`; issue #45: a unit column parted `37.48 G` from `FLOP/s`).
pub(crate) const TEXT_HEADERS: [&str; 8] = [
    "case",
    "host",
    "started (UTC)",
    "run",
    "value",
    "efficiency",
    "disturbed",
    "change",
];

/// What the change column says at point `i` of `s` (empty when no change starts there).
fn change(s: &CaseSeries, i: usize) -> String {
    s.change_points
        .iter()
        .find(|c| c.index == i)
        .map(|c| match c.rel {
            Some(r) => format!("{:+.1} % (p={:.3})", r * 100.0, c.p),
            None => format!("change (p={:.3})", c.p),
        })
        .unwrap_or_default()
}

/// Every run of every case as a row; `raw`: numbers as they are and a unit column
/// ([`HEADERS`], CSV), else values with their SI prefix and unit and efficiency in
/// percent ([`TEXT_HEADERS`]).
pub(crate) fn rows(doc: &Series, raw: bool) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for s in &doc.cases {
        for (i, p) in s.points.iter().enumerate() {
            let value = match p.value {
                Some(v) if raw => v.to_string(),
                Some(v) => format_si(v, s.unit.as_str()),
                None => p.status.clone(),
            };
            let eff = match p.efficiency {
                Some(e) if raw => e.to_string(),
                Some(e) => format!("{:.1} %", e * 100.0),
                None => String::new(),
            };
            let disturbed = if p.disturbed {
                if raw {
                    "true"
                } else {
                    "~"
                }
            } else if raw {
                "false"
            } else {
                ""
            };
            let mut row = vec![
                sanitize::line(&s.case),
                sanitize::line(&p.host),
                sanitize::line(&p.started_at),
                p.run.to_string(),
                value.trim().to_string(),
                eff,
                disturbed.to_string(),
                change(s, i),
            ];
            if raw {
                row.insert(5, s.unit.to_string());
            }
            out.push(row);
        }
    }
    out
}

/// The lines under the table: the change points found (or none) and the method.
pub(crate) fn footer(doc: &Series) -> String {
    let n: usize = doc.cases.iter().map(|c| c.change_points.len()).sum();
    let mut f = if doc.cases.is_empty() {
        "no case matches\n".to_string()
    } else {
        format!(
            "{} case series, {} runs, {n} change point{}; ~ = disturbed (the machine was shared; left out of the search)\n",
            doc.cases.len(),
            doc.cases.iter().map(|c| c.points.len()).sum::<usize>(),
            if n == 1 { "" } else { "s" }
        )
    };
    f.push_str(&format!("change points: {}\n", doc.method));
    f
}
