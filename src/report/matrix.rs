//! The host × host matrix of `peakbench net --matrix`, rebuilt from a gathered report's
//! results (each link's results carry `from` and `to`): one grid per workload (TCP
//! throughput, TCP latency), rows the sending host, columns the receiving one. The HTML
//! draws each grid as a heat map and marks the links worse than [`WEAK`] of the median
//! link (below it for throughput; latency above median ÷ [`WEAK`]). A link that was
//! not measured shows why.

use super::charts::esc;
use super::model::{BenchResult, Report, Status};
use crate::util::units::format_si;
use std::fmt::Write as _;
use std::io::{self, Write};

/// A link below this fraction of the median link (in the better-is-higher sense) is
/// marked weak.
pub(crate) const WEAK: f64 = 0.8;

/// One workload's grid.
pub(crate) struct Grid<'a> {
    /// `tcp_throughput`, `tcp_latency`, ….
    pub workload: String,
    /// Host names, in the report's order.
    pub hosts: Vec<String>,
    /// `cells[from][to]`: the link's result, if any.
    pub cells: Vec<Vec<Option<&'a BenchResult>>>,
    /// Median of the measured links.
    pub median: Option<f64>,
    /// Whether a smaller figure is better.
    pub lower_is_better: bool,
}

impl Grid<'_> {
    /// The link's figure relative to the median, better-is-higher (1 = median).
    pub(crate) fn score(&self, v: f64) -> Option<f64> {
        let m = self.median?;
        if m <= 0.0 || v <= 0.0 {
            return None;
        }
        Some(if self.lower_is_better { m / v } else { v / m })
    }
}

fn mean(r: &BenchResult) -> Option<f64> {
    r.summary.as_ref().map(|s| s.mean).filter(|_| r.is_ok())
}

/// The grids of `rep`: one per workload with `from`/`to` results.
pub(crate) fn grids(rep: &Report) -> Vec<Grid<'_>> {
    let mut hosts: Vec<String> = rep.hosts.iter().map(|h| h.name.clone()).collect();
    let links: Vec<&BenchResult> = rep
        .results
        .iter()
        .filter(|r| r.param_str("from").is_some() && r.param_str("to").is_some())
        .collect();
    for r in &links {
        for h in [r.param_str("from"), r.param_str("to")]
            .into_iter()
            .flatten()
        {
            if !hosts.iter().any(|x| x == h) {
                hosts.push(h.to_string());
            }
        }
    }
    let mut workloads: Vec<String> = Vec::new();
    for r in &links {
        if !workloads.contains(&r.workload) {
            workloads.push(r.workload.clone());
        }
    }
    let idx = |h: &str| hosts.iter().position(|x| x == h);
    workloads
        .into_iter()
        .map(|w| {
            let mut cells = vec![vec![None; hosts.len()]; hosts.len()];
            let mut vals = Vec::new();
            let mut lower = false;
            for r in links.iter().filter(|r| r.workload == w) {
                let (Some(a), Some(b)) = (
                    r.param_str("from").and_then(idx),
                    r.param_str("to").and_then(idx),
                ) else {
                    continue;
                };
                cells[a][b] = Some(*r);
                lower = r.metric.lower_is_better();
                vals.extend(mean(r));
            }
            let median = (!vals.is_empty()).then(|| super::fleet::median_mad(&vals).0);
            Grid {
                workload: w,
                hosts: hosts.clone(),
                cells,
                median,
                lower_is_better: lower,
            }
        })
        .collect()
}

/// The grids as text, for the terminal after the results table.
pub(crate) fn text(rep: &Report, out: &mut dyn Write) -> io::Result<()> {
    use comfy_table::{presets::UTF8_FULL_CONDENSED, Table};
    for g in grids(rep) {
        let mut t = Table::new();
        let mut head = vec![format!("{} (from \\ to)", g.workload)];
        head.extend(g.hosts.iter().cloned());
        t.load_preset(UTF8_FULL_CONDENSED).set_header(head);
        for (i, row) in g.cells.iter().enumerate() {
            let mut cells = vec![g.hosts[i].clone()];
            for (j, c) in row.iter().enumerate() {
                cells.push(match c {
                    _ if i == j => "-".into(),
                    None => "?".into(),
                    Some(r) => match mean(r) {
                        Some(v) => {
                            let weak = g.score(v).is_some_and(|s| s < WEAK);
                            let unit = r.unit.as_str();
                            format!("{}{}", format_si(v, unit), if weak { " WEAK" } else { "" })
                        }
                        None => "failed".into(),
                    },
                });
            }
            t.add_row(cells.iter().map(|c| crate::util::sanitize::line(c)));
        }
        writeln!(out, "{t}")?;
    }
    Ok(())
}

/// The heat-map page of a matrix run.
pub(crate) fn render(rep: &Report) -> String {
    let mut out = String::with_capacity(16 * 1024);
    let gs = grids(rep);
    let title = format!(
        "peakbench net --matrix: {} hosts",
        gs.first().map_or(rep.hosts.len(), |g| g.hosts.len())
    );
    super::html::head(&mut out, &title);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::model::{HostRun, Metric, Resource, Unit};

    fn link(from: &str, to: &str, v: Option<f64>) -> BenchResult {
        let r = BenchResult::new(
            Resource::Net,
            "tcp_throughput",
            Metric::Throughput,
            Unit::BytePerSec,
        )
        .param("from", from)
        .param("to", to);
        match v {
            Some(v) => r.with_samples(vec![v, v]),
            None => r.failed("not measured: rank 2 (c): connection closed"),
        }
    }

    #[test]
    fn grid_marks_weak_links_and_failed_ones() {
        let mut rep = crate::report::fixtures::report();
        rep.hosts = ["a", "b", "c"]
            .iter()
            .enumerate()
            .map(|(i, n)| HostRun {
                name: n.to_string(),
                ranks: vec![i],
                info: None,
                status: Status::Ok,
            })
            .collect();
        rep.results = vec![
            link("a", "b", Some(10e9)),
            link("b", "a", Some(10e9)),
            link("a", "c", Some(10e9)),
            link("c", "a", Some(4e9)),
            link("b", "c", Some(10e9)),
            link("c", "b", None),
        ];
        let gs = grids(&rep);
        assert_eq!(gs.len(), 1);
        let g = &gs[0];
        assert_eq!(g.hosts, ["a", "b", "c"]);
        assert_eq!(g.cells.iter().flatten().flatten().count(), 6);
        assert_eq!(g.median, Some(10e9));
        assert!(g.score(4e9).unwrap() < WEAK);
        let h = render(&rep);
        assert_eq!(h.matches(" WEAK</td>").count(), 1, "{h}");
        assert!(h.contains(">failed</td>") && h.contains("connection closed"));
        let mut t = Vec::new();
        text(&rep, &mut t).unwrap();
        let t = String::from_utf8(t).unwrap();
        assert!(t.contains("WEAK") && t.contains("failed"), "{t}");
    }
}
