//! The NUMA node × node matrix of `peakbench memory --matrix` (issue #47), rebuilt from
//! a report's results: every result with a numeric `cpu_node` and `mem_node` param is
//! one cell, rows the node the threads ran on, columns the node the memory was on; one
//! grid per workload and metric (read bandwidth, chase latency). Each cell is also
//! given against its row's local cell (same node), the figure MLC's matrices make one
//! read: how much a remote node costs. The HTML view draws it as a heat map
//! (`view/html/numa.rs`).

use super::model::{BenchResult, Report};

/// One workload's node × node grid.
pub(crate) struct NodeGrid<'a> {
    /// `read_avx512`, `chase`, ….
    pub(crate) workload: String,
    /// The CPU nodes (rows), ascending.
    pub(crate) cpu_nodes: Vec<u64>,
    /// The memory nodes (columns), ascending.
    pub(crate) mem_nodes: Vec<u64>,
    /// `cells[row][column]`: the result, if one was run.
    pub(crate) cells: Vec<Vec<Option<&'a BenchResult>>>,
    /// Whether a smaller figure is better (latency).
    pub(crate) lower_is_better: bool,
}

/// A cell's figure: the mean of an ok result.
pub(crate) fn mean(r: &BenchResult) -> Option<f64> {
    r.summary.as_ref().map(|s| s.mean).filter(|_| r.is_ok())
}

impl NodeGrid<'_> {
    /// The figure of the cell (`row`, `col`) against its row's local cell (the memory
    /// node equal to the CPU node), better-is-higher (1 = as good as local); `None`
    /// when either is missing.
    pub(crate) fn vs_local(&self, row: usize, col: usize) -> Option<f64> {
        let cpu = self.cpu_nodes[row];
        let local = self.mem_nodes.iter().position(|&m| m == cpu)?;
        let l = mean(self.cells[row][local]?)?;
        let v = mean(self.cells[row][col]?)?;
        if l <= 0.0 || v <= 0.0 {
            return None;
        }
        Some(if self.lower_is_better { l / v } else { v / l })
    }

    /// The best and worst figure of the grid, (best, worst) in its own sense.
    pub(crate) fn range(&self) -> Option<(f64, f64)> {
        let vals: Vec<f64> = self
            .cells
            .iter()
            .flatten()
            .flatten()
            .filter_map(|r| mean(r))
            .collect();
        let lo = vals.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = vals.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        (!vals.is_empty()).then_some(if self.lower_is_better {
            (lo, hi)
        } else {
            (hi, lo)
        })
    }
}

/// The grids of `rep`, one per (workload, metric) with node-placed results, in the
/// order of their first result. Where a cell has more than one result (a
/// `--cpu-node` run over several thread counts) the one with the most threads is kept.
pub(crate) fn grids(rep: &Report) -> Vec<NodeGrid<'_>> {
    let placed: Vec<(&BenchResult, u64, u64)> = rep
        .results
        .iter()
        .filter_map(|r| Some((r, r.param_u64("cpu_node")?, r.param_u64("mem_node")?)))
        .collect();
    let mut keys: Vec<(String, String)> = Vec::new();
    for (r, _, _) in &placed {
        let k = (r.workload.clone(), r.metric.as_str().to_string());
        if !keys.contains(&k) {
            keys.push(k);
        }
    }
    keys.into_iter()
        .map(|(w, m)| {
            let mine: Vec<&(&BenchResult, u64, u64)> = placed
                .iter()
                .filter(|(r, _, _)| r.workload == w && r.metric.as_str() == m)
                .collect();
            let mut cpu_nodes: Vec<u64> = mine.iter().map(|x| x.1).collect();
            let mut mem_nodes: Vec<u64> = mine.iter().map(|x| x.2).collect();
            for v in [&mut cpu_nodes, &mut mem_nodes] {
                v.sort_unstable();
                v.dedup();
            }
            let mut cells = vec![vec![None; mem_nodes.len()]; cpu_nodes.len()];
            let mut lower = false;
            for (r, c, mn) in mine {
                let (i, j) = (
                    cpu_nodes.iter().position(|x| x == c).unwrap_or(0),
                    mem_nodes.iter().position(|x| x == mn).unwrap_or(0),
                );
                let threads = |x: &BenchResult| x.param_u64("threads").unwrap_or(0);
                let cell: &mut Option<&BenchResult> = &mut cells[i][j];
                if cell.is_none_or(|old| threads(r) > threads(old)) {
                    *cell = Some(r);
                }
                lower = r.metric.lower_is_better();
            }
            NodeGrid {
                workload: w,
                cpu_nodes,
                mem_nodes,
                cells,
                lower_is_better: lower,
            }
        })
        .collect()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::report::model::{Metric, ResourceName, Unit};

    /// A 2 x 2 matrix: read bandwidth 20 GB/s local, 12 GB/s remote; latency 90 ns
    /// local, 150 ns remote; one unplaced row that stays out.
    pub(crate) fn two_nodes() -> Report {
        let mut rep = crate::report::fixtures::matrix();
        rep.results.clear();
        for c in 0..2u64 {
            for m in 0..2u64 {
                let local = c == m;
                let bw = BenchResult::new(
                    ResourceName::Memory,
                    "read",
                    Metric::Throughput,
                    Unit::BytePerSec,
                )
                .param("threads", 4u64)
                .param("cpu_node", c)
                .param("mem_node", m)
                .with_samples(vec![if local { 20e9 } else { 12e9 }; 3]);
                let lat =
                    BenchResult::new(ResourceName::Memory, "chase", Metric::Latency, Unit::Second)
                        .param("threads", 1u64)
                        .param("cpu_node", c)
                        .param("mem_node", m)
                        .with_samples(vec![if local { 90e-9 } else { 150e-9 }; 3]);
                rep.results.extend([bw, lat]);
            }
        }
        rep.results.push(
            BenchResult::new(
                ResourceName::Memory,
                "read",
                Metric::Throughput,
                Unit::BytePerSec,
            )
            .param("threads", 1u64)
            .param("mem_node", "interleave")
            .with_samples(vec![1e9; 3]),
        );
        rep
    }

    #[test]
    fn every_placed_result_is_one_cell_against_its_local_one() {
        let rep = two_nodes();
        let gs = grids(&rep);
        assert_eq!(gs.len(), 2);
        let (bw, lat) = (&gs[0], &gs[1]);
        assert_eq!(
            (bw.workload.as_str(), lat.workload.as_str()),
            ("read", "chase")
        );
        assert_eq!(
            (bw.cpu_nodes.clone(), bw.mem_nodes.clone()),
            (vec![0, 1], vec![0, 1])
        );
        assert_eq!(bw.cells.iter().flatten().flatten().count(), 4);
        assert_eq!(bw.vs_local(0, 1), Some(0.6));
        assert_eq!(bw.vs_local(1, 1), Some(1.0));
        assert!(lat.lower_is_better);
        assert_eq!(lat.vs_local(1, 0), Some(0.6));
        assert_eq!(bw.range(), Some((20e9, 12e9)));
        assert_eq!(lat.range(), Some((90e-9, 150e-9)));
    }
}
