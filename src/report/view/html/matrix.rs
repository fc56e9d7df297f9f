//! The heat-map page of a matrix run: per workload, the host × host grid coloured by
//! each link's figure against the median link, weak links outlined.

use crate::report::charts::esc;
use crate::report::matrix::{grids, mean, WEAK};
use crate::report::model::{Report, Status};
use crate::util::units::format_si;
use std::fmt::Write as _;

/// The heat-map page of a matrix run.
pub(super) fn page(rep: &Report) -> String {
    let mut out = String::with_capacity(16 * 1024);
    let gs = grids(rep);
    let title = format!(
        "peakbench net --matrix: {} hosts",
        gs.first().map_or(rep.hosts.len(), |g| g.hosts.len())
    );
    super::page::head(&mut out, &title);
    let _ = write!(
        out,
        "<header><h1>{}</h1><div class=\"meta\">{} · rows send, columns receive · links worse than {:.0} % of the median link are marked WEAK</div></header>",
        esc(&title),
        esc(&rep.started_at),
        WEAK * 100.0
    );
    let failed: Vec<String> = rep
        .hosts
        .iter()
        .filter_map(|h| match &h.status {
            Status::Failed { error } => Some(format!("{}: {error}", h.name)),
            _ => None,
        })
        .collect();
    if !failed.is_empty() {
        out.push_str("<h2>Hosts lost (partial report)</h2><ul>");
        for f in failed {
            let _ = write!(out, "<li class=\"flag\">{}</li>", esc(&f));
        }
        out.push_str("</ul>");
    }
    for g in &gs {
        let _ = write!(
            out,
            "<h2>{}</h2><div class=\"meta\">median link: {}</div><div class=\"tw\"><table><tr><th>from \\ to</th>",
            esc(&g.workload),
            g.median.map_or("n/a".into(), |m| esc(&format_si(m, g.cells.iter().flatten().flatten().next().map_or("", |r| r.unit.as_str()))))
        );
        for h in &g.hosts {
            let _ = write!(out, "<th>{}</th>", esc(h));
        }
        out.push_str("</tr>");
        for (i, row) in g.cells.iter().enumerate() {
            let _ = write!(out, "<tr><th>{}</th>", esc(&g.hosts[i]));
            for (j, c) in row.iter().enumerate() {
                let cell = match c {
                    _ if i == j => {
                        "<td class=\"n\" style=\"background:#f6f8fa\">–</td>".to_string()
                    }
                    None => "<td class=\"n\">?</td>".to_string(),
                    Some(r) => match (mean(r), &r.status) {
                        (Some(v), _) => {
                            let s = g.score(v).unwrap_or(1.0);
                            // Heat: green at or above the median, to red at half of it.
                            let t = ((1.0 - s) / 0.5).clamp(0.0, 1.0);
                            let hue = 120.0 * (1.0 - t);
                            let weak = s < WEAK;
                            format!(
                                "<td class=\"n{}\" style=\"background:hsl({hue:.0},70%,85%){}\" title=\"{:.0} % of the median link\">{}{}</td>",
                                if weak { " flag" } else { "" },
                                if weak { ";outline:2px solid var(--bad)" } else { "" },
                                s * 100.0,
                                esc(&format_si(v, r.unit.as_str())),
                                if weak { " WEAK" } else { "" }
                            )
                        }
                        (None, Status::Failed { error }) => {
                            format!("<td class=\"flag\" title=\"{}\">failed</td>", esc(error))
                        }
                        (None, _) => "<td>not measured</td>".to_string(),
                    },
                };
                out.push_str(&cell);
            }
            out.push_str("</tr>");
        }
        out.push_str("</table></div>");
    }
    out.push_str("<footer>Every figure is a result of the gathered JSON (params from, to); the page only formats them.</footer></body></html>\n");
    out
}
