//! What `peakbench linalg` adds to the roofline (issue #13): the measured roofline per
//! memory level (the intensity sweep's points, `linalg roofline` results), the points
//! that real code reaches (GEMM and LU at their compulsory-traffic intensity, the
//! `intensity` parameter each result carries; the memory triad at STREAM's 2 FLOP per
//! 24 bytes), and the FMA peak the linalg results were compared with, as a dashed
//! ceiling when no CPU result gave one.
//!
//! Only placement happens here: every y value is a result's mean (the triad's B/s
//! times its fixed 2/24 FLOP per byte), every x value a parameter of the result.

use super::charts::{Series, Style};
use super::model::{BenchResult, Param, Report, ResourceName};
use crate::util::units::format_si;
use std::collections::BTreeMap;

/// STREAM triad's intensity: 2 FLOP (a multiply and an add) per 24 bytes moved.
pub(crate) const TRIAD_INTENSITY: f64 = 2.0 / 24.0;

/// What the linalg results add: series, caption sentences, and the x range they need.
#[derive(Debug, Default)]
pub(crate) struct Extra {
    /// Series to draw (after the ceilings).
    pub(crate) series: Vec<Series>,
    /// Sentences for the caption.
    pub(crate) notes: Vec<String>,
    /// Smallest and largest intensity drawn.
    pub(crate) x: Option<(f64, f64)>,
}

fn num(r: &BenchResult, key: &str) -> Option<f64> {
    match r.params.get(key)? {
        Param::Int(n) => Some(*n as f64),
        Param::Float(x) => Some(*x),
        _ => None,
    }
    .filter(|x| x.is_finite() && *x > 0.0)
}

fn mean(r: &BenchResult) -> Option<f64> {
    r.summary
        .as_ref()
        .map(|s| s.mean)
        .filter(|m| m.is_finite() && *m > 0.0)
}

fn ok(report: &Report) -> impl Iterator<Item = &BenchResult> {
    report.results.iter().filter(|r| r.is_ok())
}

/// The linalg series, with palette indices from `color`.
pub(crate) fn extra(report: &Report, color: usize) -> Extra {
    let mut e = Extra::default();
    let mut color = color;
    let mut widen = |x: f64| {
        e.x = Some(match e.x {
            None => (x, x),
            Some((a, b)) => (a.min(x), b.max(x)),
        })
    };
    // The measured roofline: one line per memory level, points sorted by intensity.
    let mut levels: BTreeMap<String, Vec<(f64, f64)>> = BTreeMap::new();
    for r in ok(report).filter(|r| r.resource == ResourceName::Linalg && r.workload == "roofline") {
        if let (Some(x), Some(y), Some(l)) = (num(r, "intensity"), mean(r), r.param_str("level")) {
            levels.entry(l.to_string()).or_default().push((x, y));
        }
    }
    let mut series = Vec::new();
    let mut notes = Vec::new();
    // Innermost first: L1, L2, L3, DRAM (alphabetical would put DRAM first).
    let order = |l: &str| ["L1", "L2", "L3", "DRAM"].iter().position(|x| *x == l);
    let mut names: Vec<&String> = levels.keys().collect();
    names.sort_by_key(|l| order(l).unwrap_or(9));
    for l in names {
        let mut pts = levels[l].clone();
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        let bw = pts.iter().map(|(x, y)| y / x).fold(0.0, f64::max);
        let top = pts.iter().map(|p| p.1).fold(0.0, f64::max);
        pts.iter().for_each(|p| widen(p.0));
        notes.push(format!(
            "measured {l}: {} (best FLOP/s ÷ intensity), {}, ridge {:.2} FLOP/B",
            format_si(bw, "B/s"),
            format_si(top, "FLOP/s"),
            top / bw
        ));
        series.push(Series {
            name: format!("measured sweep {l}"),
            points: pts,
            style: Style::Line,
            color,
        });
        color += 1;
    }
    // GEMM and LU: the best mean per routine, precision and library (`blas`; faer's
    // rows have none), at its intensity: one point per library measured.
    let mut best: BTreeMap<String, (f64, f64, u64)> = BTreeMap::new();
    for r in ok(report).filter(|r| r.resource == ResourceName::Linalg && r.workload != "roofline") {
        let (Some(x), Some(y)) = (num(r, "intensity"), mean(r)) else {
            continue;
        };
        let key = format!(
            "{} {}{}",
            r.workload,
            r.param_str("precision").unwrap_or("-"),
            r.param_str("blas")
                .map_or(String::new(), |b| format!(" {b}"))
        );
        let n = r.param_u64("n").unwrap_or(0);
        let e = best.entry(key).or_insert((x, y, n));
        if y > e.1 {
            *e = (x, y, n);
        }
    }
    for (k, (x, y, n)) in best {
        widen(x);
        series.push(Series {
            name: format!("{k} n={n}: {}", format_si(y, "FLOP/s")),
            points: vec![(x, y)],
            style: Style::Line,
            color,
        });
        color += 1;
    }
    // The triad: the best memory triad, as FLOP/s at 2/24 FLOP/B.
    let triad = ok(report)
        .filter(|r| r.resource == ResourceName::Memory && r.param_str("kernel") == Some("triad"))
        .filter_map(mean)
        .fold(None, |m: Option<f64>, v| Some(m.map_or(v, |m| m.max(v))));
    if let Some(bw) = triad {
        let y = bw * TRIAD_INTENSITY;
        widen(TRIAD_INTENSITY);
        series.push(Series {
            name: format!(
                "triad {} = {}",
                format_si(bw, "B/s"),
                format_si(y, "FLOP/s")
            ),
            points: vec![(TRIAD_INTENSITY, y)],
            style: Style::Line,
            color,
        });
    }
    e.series = series;
    e.notes = notes;
    e
}

/// The FMA peak per linalg precision (largest among the results), for a dashed
/// ceiling when the report has no CPU result of that precision.
pub(crate) fn linalg_peaks(report: &Report) -> BTreeMap<String, f64> {
    let mut m = BTreeMap::new();
    for r in ok(report).filter(|r| r.resource == ResourceName::Linalg) {
        if let (Some(p), Some(prec)) = (
            r.peak.as_ref().and_then(|p| p.value).filter(|v| *v > 0.0),
            r.param_str("precision"),
        ) {
            let e = m.entry(prec.to_string()).or_insert(p);
            *e = f64::max(*e, p);
        }
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::model::{Metric, Unit};

    fn lin(workload: &str, params: &[(&str, Param)], mean: f64) -> BenchResult {
        let mut r = BenchResult::new(
            ResourceName::Linalg,
            workload,
            Metric::Ops,
            Unit::FlopPerSec,
        )
        .param("precision", "fp64");
        for (k, v) in params {
            r = r.param(k, v.clone());
        }
        r.with_samples(vec![mean, mean])
    }

    #[test]
    fn sweeps_points_and_the_triad_are_placed_from_the_results() {
        let mut rep = crate::report::samples::mixed();
        rep.results.clear();
        for (k, x, y) in [(0, 0.125, 2e9), (4, 1.125, 18e9), (64, 16.125, 50e9)] {
            rep.results.push(lin(
                "roofline",
                &[
                    ("level", Param::Text("DRAM".into())),
                    ("k", Param::Int(k)),
                    ("intensity", Param::Float(x)),
                ],
                y,
            ));
        }
        rep.results.push(lin(
            "gemm",
            &[("n", Param::Int(1200)), ("intensity", Param::Float(100.0))],
            60e9,
        ));
        rep.results.push(
            crate::report::samples::mem_seq("triad", 1 << 28, 2).with_samples(vec![24e9, 24e9]),
        );
        let e = extra(&rep, 3);
        assert_eq!(e.series.len(), 3, "{:?}", e.series);
        let sweep = &e.series[0];
        assert_eq!(sweep.name, "measured sweep DRAM");
        assert_eq!(
            sweep.points,
            vec![(0.125, 2e9), (1.125, 18e9), (16.125, 50e9)]
        );
        assert_eq!(sweep.color, 3);
        // DRAM bandwidth: the best FLOP/s ÷ intensity, 16 GB/s at 1/8.
        assert!(
            e.notes[0].starts_with("measured DRAM: 16"),
            "{}",
            e.notes[0]
        );
        assert_eq!(e.series[1].points, vec![(100.0, 60e9)]);
        assert_eq!(e.series[2].points, vec![(TRIAD_INTENSITY, 2e9)]);
        assert_eq!(e.x, Some((TRIAD_INTENSITY, 100.0)));
    }

    #[test]
    fn every_library_gets_its_own_gemm_point() {
        let mut rep = crate::report::samples::mixed();
        rep.results.clear();
        let gemm = |blas: Option<&str>, y: f64| {
            let mut p = vec![("n", Param::Int(1024)), ("intensity", Param::Float(85.0))];
            if let Some(b) = blas {
                p.push(("blas", Param::Text(b.into())));
            }
            lin("gemm", &p, y)
        };
        rep.results.push(gemm(None, 60e9));
        rep.results.push(gemm(Some("openblas"), 70e9));
        rep.results.push(gemm(Some("openblas"), 65e9));
        rep.results.push(gemm(Some("blis"), 20e9));
        let e = extra(&rep, 0);
        let names: Vec<&str> = e.series.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names.len(), 3, "{names:?}");
        assert!(names[0].starts_with("gemm fp64 n=1024: 60"), "{names:?}");
        assert!(
            names[1].starts_with("gemm fp64 blis n=1024: 20"),
            "{names:?}"
        );
        assert!(
            names[2].starts_with("gemm fp64 openblas n=1024: 70"),
            "{names:?}"
        );
    }
}
