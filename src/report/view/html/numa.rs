//! The heat map of `peakbench memory --matrix` (issue #47) on a report's page: per
//! workload, the CPU node × memory node grid of `report::numa_matrix`, each cell
//! coloured from the grid's worst (red) to its best figure (green) and given against
//! its row's local cell. Drawn under the memory results whenever a report has
//! node-placed results; a single-node machine gets its 1 x 1 grid.

use super::esc;
use crate::report::model::{Report, Status};
use crate::report::numa_matrix::{grids, mean};
use crate::util::units::format_si;
use std::fmt::Write as _;

/// Writes the section (nothing when the report has no node-placed results).
pub(super) fn section(out: &mut String, rep: &Report) {
    let gs = grids(rep);
    if gs.is_empty() {
        return;
    }
    out.push_str("<h3 id=\"numa-matrix\">NUMA node x node matrix</h3><div class=\"meta\">rows: the node the threads ran on (--cpu-node); columns: the node the memory was on (--mem-node); each cell against its row's local cell</div>");
    for g in &gs {
        let range = g.range();
        let _ = write!(
            out,
            "<h4>{} ({})</h4><div class=\"tw\"><table><tr><th>cpu \\ mem</th>",
            esc(&g.workload),
            if g.lower_is_better {
                "latency, lower is better"
            } else {
                "bandwidth, higher is better"
            }
        );
        for m in &g.mem_nodes {
            let _ = write!(out, "<th>node {m}</th>");
        }
        out.push_str("</tr>");
        for (i, row) in g.cells.iter().enumerate() {
            let _ = write!(out, "<tr><th>node {}</th>", g.cpu_nodes[i]);
            for (j, c) in row.iter().enumerate() {
                let cell = match c {
                    None => "<td class=\"n\">not run</td>".to_string(),
                    Some(r) => match (mean(r), &r.status) {
                        (Some(v), _) => {
                            // Heat: green at the grid's best figure, red at its worst.
                            let t = match range {
                                Some((best, worst)) if best != worst => {
                                    ((v - worst) / (best - worst)).clamp(0.0, 1.0)
                                }
                                _ => 1.0,
                            };
                            let vs = g.vs_local(i, j).map_or(String::new(), |s| {
                                format!("<br><small>{:.0} % of local</small>", s * 100.0)
                            });
                            format!(
                                "<td class=\"n\" style=\"background:hsl({},70%,85%)\" title=\"threads {}\">{}{vs}</td>",
                                (120.0 * t).round() as u32,
                                r.param_u64("threads").unwrap_or(0),
                                esc(&format_si(v, r.unit.as_str()))
                            )
                        }
                        (None, Status::Failed { error }) => {
                            format!("<td class=\"flag\" title=\"{}\">failed</td>", esc(error))
                        }
                        (None, Status::Skipped { reason }) => {
                            format!("<td title=\"{}\">skipped</td>", esc(reason))
                        }
                        (None, _) => "<td>no figure</td>".to_string(),
                    },
                };
                out.push_str(&cell);
            }
            out.push_str("</tr>");
        }
        out.push_str("</table></div>");
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_heat_map_has_a_cell_per_pair_and_says_what_remote_costs() {
        let rep = crate::report::numa_matrix::tests::two_nodes();
        let mut out = String::new();
        super::section(&mut out, &rep);
        assert_eq!(out.matches("<h4>").count(), 2, "{out}");
        assert_eq!(out.matches("<td class=\"n\"").count(), 8);
        assert!(
            out.contains("12.00 GB/s<br><small>60 % of local</small>"),
            "{out}"
        );
        assert!(out.contains("hsl(120,70%,85%)") && out.contains("hsl(0,70%,85%)"));
        let mut none = crate::report::fixtures::matrix();
        none.results.retain(|r| r.param_u64("cpu_node").is_some());
        let mut out = String::new();
        super::section(&mut out, &none);
        assert!(out.is_empty());
    }
}
