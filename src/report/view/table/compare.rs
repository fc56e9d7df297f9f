//! The terminal table of a [`Comparison`]: one row per change with a short case label
//! (what every case of a resource shares is said once under the table), then the
//! different settings, the shifts of whole resources, the unmatched cases and the
//! method.

use crate::report::compare::{Change, Comparison};
use crate::report::model::ResourceName;
use crate::report::view::cells::compare::change_cell;
use crate::util::sanitize;
use crate::util::units::format_si;
use std::io::Write;

/// The terminal table (within `width` columns when given: the numbers never wrap,
/// the case and the verdict do), then the different settings, the shifts of whole
/// resources and the unmatched cases.
pub(super) fn export(
    c: &Comparison,
    width: Option<usize>,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    use crate::util::term;
    use comfy_table::{ColumnConstraint, ContentArrangement, Table, Width};
    writeln!(
        out,
        "baseline: {}",
        sanitize::line(c.files.first().map_or("", |s| s))
    )?;
    let width = width.map(|w| w.max(term::MIN_WIDTH));
    let two = c.files.len() <= 2;
    let headers = [
        "case",
        "vs",
        "baseline",
        "mean",
        "change [95 % CI]",
        "noise",
        "verdict",
    ];
    let (labels, shared) = short_labels(&c.changes);
    let rows: Vec<[String; 7]> = c
        .changes
        .iter()
        .zip(&labels)
        .map(|(ch, label)| {
            [
                label.clone(),
                ch.against.clone(),
                format_si(ch.a.mean, ch.case.unit.as_str()),
                format_si(ch.b.mean, ch.case.unit.as_str()),
                change_cell(ch),
                format!("±{:.0} %", ch.noise * 100.0),
                ch.verdict.clone(),
            ]
            .map(|x| sanitize::line(&x))
        })
        .collect();
    let mut t = Table::new();
    t.load_preset(term::PRESET)
        .set_header(headers)
        .set_content_arrangement(ContentArrangement::Disabled);
    for r in &rows {
        t.add_row(r.clone());
    }
    let natural = |i: usize| {
        rows.iter()
            .map(|r| term::len(&r[i]))
            .chain([term::len(headers[i])])
            .max()
            .unwrap_or(0)
    };
    let mut shown: Vec<usize> = (0..headers.len()).filter(|&i| !(two && i == 1)).collect();
    if let Some(w) = width {
        // The numbers at their width; the case and the verdict share the rest (case
        // at least 16, verdict at least 12), dropping the baseline mean if needed.
        let fixed = |shown: &[usize]| -> usize {
            shown
                .iter()
                .filter(|&&i| i != 0 && i != 6)
                .map(|&i| natural(i))
                .sum::<usize>()
                + 3 * shown.len()
                - 1
        };
        // Narrow: the baseline mean, the noise, then the mean make way (the change
        // says how they relate).
        for drop in [2, 5, 3] {
            if fixed(&shown) + 16 + 12 > w {
                shown.retain(|&i| i != drop);
            }
        }
        let rest = w.saturating_sub(fixed(&shown));
        // The verdict whole when there is room for a case of 20, else 12 wide.
        let want = natural(6).min(23);
        let v = if rest >= want + 20 { want } else { 12 };
        let case = natural(0).min(rest.saturating_sub(v)).max(16);
        let verdict = rest.saturating_sub(case).max(12);
        t.set_content_arrangement(ContentArrangement::Dynamic)
            .set_width(u16::try_from(w).unwrap_or(u16::MAX));
        for (i, col) in t.column_iter_mut().enumerate() {
            col.set_constraint(if !shown.contains(&i) {
                ColumnConstraint::Hidden
            } else if i == 0 {
                ColumnConstraint::Absolute(Width::Fixed((case + 2) as u16))
            } else if i == 6 {
                ColumnConstraint::Absolute(Width::Fixed((verdict + 2) as u16))
            } else {
                ColumnConstraint::ContentWidth
            });
        }
    } else {
        for (i, col) in t.column_iter_mut().enumerate() {
            if !shown.contains(&i) {
                col.set_constraint(ColumnConstraint::Hidden);
            }
        }
    }
    for l in t.lines() {
        writeln!(out, "{}", l.trim_end())?;
    }
    let mut say = |prefix: &str, text: &str| -> std::io::Result<()> {
        for l in term::wrap("", &sanitize::line(&format!("{prefix}{text}")), 4, width) {
            writeln!(out, "{l}")?;
        }
        Ok(())
    };
    for (res, p) in &shared {
        say("params ", &format!("all {res} cases: {p}"))?;
    }
    if !c.settings.is_empty() {
        say(
            "warning: ",
            "the files were measured with different settings; figures may differ for that reason alone:",
        )?;
        for x in &c.settings {
            say("  ", x)?;
        }
    }
    for x in &c.shifts {
        say("warning: ", x)?;
    }
    for u in &c.unmatched {
        say("unmatched: ", &format!("{}: {}", u.case.label(), u.reason))?;
    }
    say("method: ", &c.method)
}

/// Short case labels for the terminal (`cpu add_i32_avx2 precision=int32 threads=2
/// ops`): params every compared case of a resource shares are returned once per
/// resource instead, a param that repeats the workload's name is left out, a switch
/// that is on is its name and one that is off is left out.
fn short_labels(changes: &[Change]) -> (Vec<String>, Vec<(ResourceName, String)>) {
    let pairs = |c: &Change| -> Vec<String> {
        c.case
            .params
            .split(' ')
            .filter(|p| !p.is_empty())
            .map(str::to_string)
            .collect()
    };
    let mut shared: Vec<(ResourceName, Vec<String>)> = Vec::new();
    // The resources present, in their rows' order (built-in first, as registered).
    let mut present: Vec<ResourceName> = changes.iter().map(|c| c.case.resource).collect();
    present.sort();
    present.dedup();
    for res in &present {
        let of: Vec<&Change> = changes.iter().filter(|c| c.case.resource == *res).collect();
        if of.len() < 2 {
            continue;
        }
        let common: Vec<String> = pairs(of[0])
            .into_iter()
            .filter(|p| of.iter().all(|c| pairs(c).contains(p)))
            .collect();
        if !common.is_empty() {
            shared.push((*res, common));
        }
    }
    let labels = changes
        .iter()
        .map(|c| {
            let common = shared
                .iter()
                .find(|(r, _)| *r == c.case.resource)
                .map(|(_, p)| p.as_slice())
                .unwrap_or(&[]);
            let tokens: Vec<&str> = c.case.workload.split('_').collect();
            let mut parts = vec![c.case.resource.to_string(), c.case.workload.clone()];
            for p in pairs(c) {
                let (k, v) = p.split_once('=').unwrap_or((p.as_str(), ""));
                if common.contains(&p)
                    || v == "false"
                    || v == c.case.workload
                    || tokens.contains(&v)
                {
                    continue;
                }
                parts.push(if v == "true" {
                    k.to_string()
                } else {
                    p.clone()
                });
            }
            parts.push(c.case.metric.to_string());
            parts.join(" ")
        })
        .collect();
    let shared = shared.into_iter().map(|(r, p)| (r, p.join(" "))).collect();
    (labels, shared)
}
