//! The host × host matrix of `peakbench net --matrix`, rebuilt from a gathered report's
//! results (each link's results carry `from` and `to`): one grid per workload (TCP
//! throughput, TCP latency), rows the sending host, columns the receiving one. The
//! views ([`Doc::Matrix`](super::view::Doc::Matrix)) print each grid under the results
//! table, and the HTML draws it as a heat map; both mark the links worse than [`WEAK`]
//! of the median link (below it for throughput; latency above median ÷ [`WEAK`]). A
//! link that was not measured shows why.

use super::model::{BenchResult, Report};

/// A link below this fraction of the median link (in the better-is-higher sense) is
/// marked weak.
pub(crate) const WEAK: f64 = 0.8;

/// One workload's grid.
pub(crate) struct Grid<'a> {
    /// `tcp_throughput`, `tcp_latency`, ….
    pub(crate) workload: String,
    /// Host names, in the report's order.
    pub(crate) hosts: Vec<String>,
    /// `cells[from][to]`: the link's result, if any.
    pub(crate) cells: Vec<Vec<Option<&'a BenchResult>>>,
    /// Median of the measured links.
    pub(crate) median: Option<f64>,
    /// Whether a smaller figure is better.
    pub(crate) lower_is_better: bool,
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

/// A link's figure: the mean of an ok result.
pub(crate) fn mean(r: &BenchResult) -> Option<f64> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grid_marks_weak_links_and_failed_ones() {
        let rep = crate::report::fixtures::matrix();
        let gs = grids(&rep);
        assert_eq!(gs.len(), 1);
        let g = &gs[0];
        assert_eq!(g.hosts, ["a", "b", "c"]);
        assert_eq!(g.cells.iter().flatten().flatten().count(), 6);
        assert_eq!(g.median, Some(10e9));
        assert!(g.score(4e9).unwrap() < WEAK);
        // How the views mark them: `view`'s `a_matrix_marks_weak_and_failed_links`.
    }
}
