//! The loaded-latency curve of `peakbench memory --loaded-latency` (issue #47), rebuilt
//! from a report's rows: workload `loaded_latency`, a latency row per point and, for
//! the loaded points, a throughput row with the same params (the loaders' bandwidth).
//! One curve per loader count and placement, starting at the idle point (no loader,
//! bandwidth 0) and going on in the order the points ran (largest delay first). The
//! terminal (`view/table/loaded.rs`) and HTML (`view/html/loaded.rs`) views draw it;
//! the CSV view has its rows as every report's.

use super::model::{BenchResult, Metric, Report};
use super::numa_matrix::mean;

/// The rows' workload (`bench::memory::loaded::WORKLOAD`).
pub(crate) const WORKLOAD: &str = "loaded_latency";

/// The params that tell the points of a curve apart from other curves' (the delay
/// tells points apart within one).
const CURVE_KEYS: [&str; 4] = ["load_kernel", "size", "cpu_node", "mem_node"];

/// One point of a curve.
pub(crate) struct Point<'a> {
    /// The injected delay (`None`: the idle point).
    pub(crate) delay: Option<u64>,
    /// The chase's row.
    pub(crate) latency: &'a BenchResult,
    /// The loaders' row (`None` at the idle point, or when it is missing).
    pub(crate) load: Option<&'a BenchResult>,
}

impl Point<'_> {
    /// The loaders' mean bandwidth in B/s: 0 at the idle point.
    pub(crate) fn bandwidth(&self) -> Option<f64> {
        match (self.delay, self.load) {
            (None, _) => Some(0.0),
            (Some(_), Some(r)) => mean(r),
            (Some(_), None) => None,
        }
    }

    /// The chase's mean latency in seconds.
    pub(crate) fn latency(&self) -> Option<f64> {
        mean(self.latency)
    }
}

/// One curve: a loader count, the idle point and the loaded points.
pub(crate) struct Curve<'a> {
    /// Streaming threads.
    pub(crate) loaders: u64,
    /// Their kernel (`read`, `copy`, …).
    pub(crate) load_kernel: String,
    /// ` cpu_node=…`/` mem_node=…` when placed (empty otherwise).
    pub(crate) place: String,
    /// Idle first, then in run order.
    pub(crate) points: Vec<Point<'a>>,
}

impl Curve<'_> {
    /// Latency at `p` against the idle point's (1 = unloaded).
    pub(crate) fn vs_idle(&self, p: &Point) -> Option<f64> {
        let idle = self
            .points
            .first()
            .filter(|q| q.delay.is_none())?
            .latency()?;
        Some(p.latency()? / idle).filter(|_| idle > 0.0)
    }
}

fn key(r: &BenchResult) -> Vec<String> {
    CURVE_KEYS
        .iter()
        .map(|k| r.params.get(*k).map_or(String::new(), |v| v.to_string()))
        .collect()
}

/// The curves of `rep`, in the order of their first loaded point.
pub(crate) fn curves(rep: &Report) -> Vec<Curve<'_>> {
    let rows: Vec<&BenchResult> = rep
        .results
        .iter()
        .filter(|r| r.workload == WORKLOAD)
        .collect();
    let lat = |r: &&BenchResult| r.metric == Metric::Latency;
    let mut out: Vec<Curve> = Vec::new();
    for r in rows.iter().copied().filter(lat) {
        let loaders = r.param_u64("loaders").unwrap_or(0);
        let Some(delay) = r.param_u64("delay").filter(|_| loaders > 0) else {
            continue;
        };
        let load = rows.iter().copied().find(|x| {
            x.metric == Metric::Throughput
                && key(x) == key(r)
                && x.param_u64("loaders") == Some(loaders)
                && x.param_u64("delay") == Some(delay)
        });
        let point = Point {
            delay: Some(delay),
            latency: r,
            load,
        };
        let place = ["cpu_node", "mem_node"]
            .iter()
            .filter_map(|k| Some(format!(" {k}={}", r.params.get(*k)?)))
            .collect::<String>();
        let kernel = r.param_str("load_kernel").unwrap_or("?").to_string();
        match out.iter_mut().find(|c| {
            c.loaders == loaders && c.points.last().is_some_and(|q| key(q.latency) == key(r))
        }) {
            Some(c) => c.points.push(point),
            None => {
                let idle = rows
                    .iter()
                    .copied()
                    .filter(lat)
                    .find(|x| x.param_u64("loaders") == Some(0) && key(x) == key(r));
                let mut points: Vec<Point> = idle
                    .map(|i| Point {
                        delay: None,
                        latency: i,
                        load: None,
                    })
                    .into_iter()
                    .collect();
                points.push(point);
                out.push(Curve {
                    loaders,
                    load_kernel: kernel,
                    place,
                    points,
                });
            }
        }
    }
    // A run with the idle point only (one CPU): a curve of one point.
    if out.is_empty() {
        if let Some(i) = rows.iter().copied().find(|r| lat(r)) {
            out.push(Curve {
                loaders: 0,
                load_kernel: i.param_str("load_kernel").unwrap_or("?").to_string(),
                place: String::new(),
                points: vec![Point {
                    delay: None,
                    latency: i,
                    load: None,
                }],
            });
        }
    }
    out
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::report::model::{ResourceName, Unit};

    fn row(metric: Metric, loaders: u64, delay: Option<u64>, v: f64) -> BenchResult {
        let (m, u) = match metric {
            Metric::Latency => (Metric::Latency, Unit::Second),
            _ => (Metric::Throughput, Unit::BytePerSec),
        };
        let mut r = BenchResult::new(ResourceName::Memory, WORKLOAD, m, u)
            .param("load_kernel", "read")
            .param("loaders", loaders)
            .size("size", 1 << 28);
        if let Some(d) = delay {
            r = r.param("delay", d);
        }
        r.with_samples(vec![v; 3])
    }

    /// An idle point (90 ns) and three delays with one loader: 5, 12, 20 GB/s at 95,
    /// 110, 180 ns.
    pub(crate) fn one_loader() -> Report {
        let mut rep = crate::report::fixtures::matrix();
        rep.results.clear();
        rep.results.push(row(Metric::Latency, 0, None, 90e-9));
        for (d, bw, ns) in [(1000, 5e9, 95.0), (100, 12e9, 110.0), (0, 20e9, 180.0)] {
            rep.results
                .push(row(Metric::Latency, 1, Some(d), ns * 1e-9));
            rep.results.push(row(Metric::Throughput, 1, Some(d), bw));
        }
        rep
    }

    #[test]
    fn the_curve_starts_idle_and_pairs_each_delay_with_its_bandwidth() {
        let rep = one_loader();
        let cs = curves(&rep);
        assert_eq!(cs.len(), 1);
        let c = &cs[0];
        assert_eq!(
            (c.loaders, c.load_kernel.as_str(), c.place.as_str()),
            (1, "read", "")
        );
        let delays: Vec<Option<u64>> = c.points.iter().map(|p| p.delay).collect();
        assert_eq!(delays, vec![None, Some(1000), Some(100), Some(0)]);
        let bw: Vec<f64> = c.points.iter().map(|p| p.bandwidth().unwrap()).collect();
        assert_eq!(bw, vec![0.0, 5e9, 12e9, 20e9]);
        assert!((c.vs_idle(&c.points[3]).unwrap() - 2.0).abs() < 1e-12);
        // A point whose bandwidth row is missing keeps its latency and no bandwidth.
        let mut rep = one_loader();
        rep.results.pop();
        let cs = curves(&rep);
        assert_eq!(cs[0].points[3].bandwidth(), None);
        assert!(cs[0].points[3].latency().is_some());
    }

    #[test]
    fn two_loader_counts_are_two_curves_and_an_idle_run_is_one_point() {
        let mut rep = one_loader();
        rep.results.push(row(Metric::Latency, 2, Some(0), 250e-9));
        rep.results.push(row(Metric::Throughput, 2, Some(0), 30e9));
        let cs = curves(&rep);
        assert_eq!(cs.len(), 2);
        assert_eq!((cs[1].loaders, cs[1].points.len()), (2, 2));
        rep.results.truncate(1);
        let cs = curves(&rep);
        assert_eq!((cs.len(), cs[0].points.len()), (1, 1));
        assert!(curves(&crate::report::fixtures::matrix()).is_empty());
    }
}
