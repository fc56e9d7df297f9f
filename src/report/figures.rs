//! Which charts a report gets, built from the model's conventions (DESIGN.md §2, §5):
//! results are grouped by resource + metric + unit; the x axis is the parameter that
//! varies (`threads`, `size`, `block`, `msg`, `depth`, `jobs`, `streams`); every other
//! parameter and the workload name tell the series apart. Also latency percentiles,
//! time series of sustained runs, and the roofline.
//!
//! Only selection and placement happen here: every plotted value is a model field
//! (means, percentiles, peaks). The roofline's lines are `min(P, I × B)` drawn from the
//! measured ceilings P (best `FLOP/s` mean per precision) and B (best memory `B/s` mean),
//! and from the theoretical peaks of the same results where known (S. Williams,
//! A. Waterman, D. Patterson, "Roofline: an insightful visual performance model for
//! multicore architectures", CACM 52(4), 2009).

use super::charts::{Axis, Chart, Marker, Scale, Series, Style, Ticks};
use super::model::{is_size_param, BenchResult, Metric, Param, Report, ResourceName, Unit};
use super::view::cells;
use crate::util::units::{format_si, format_size};
use std::collections::BTreeMap;

/// Most series drawn in one chart; the caption says how many were left out.
pub(crate) const MAX_SERIES: usize = 10;

/// A chart and the sentence under it.
#[derive(Debug, Clone)]
pub(crate) struct Figure {
    /// The chart.
    pub(crate) chart: Chart,
    /// Caption (plain text; escaped when written).
    pub(crate) caption: String,
}

/// Parameters that can be an x axis (sizes among them: see
/// [`super::model::SIZE_PARAMS`]).
const X_PARAMS: [&str; 7] = [
    "threads", "size", "block", "msg", "depth", "jobs", "streams",
];

/// A numeric parameter value, positive and finite (sizes are numbers of bytes).
fn param_num(v: &Param) -> Option<f64> {
    let x = match v {
        Param::Int(n) => *n as f64,
        Param::Float(x) => *x,
        Param::Bool(_) | Param::Text(_) => return None,
    };
    (x.is_finite() && x > 0.0).then_some(x)
}

fn mean(r: &BenchResult) -> Option<f64> {
    r.summary.as_ref().map(|s| s.mean).filter(|m| m.is_finite())
}

/// Results of `resource` that are ok and have a mean.
fn measured(report: &Report, resource: ResourceName) -> Vec<&BenchResult> {
    report
        .results
        .iter()
        .filter(|r| r.resource == resource && r.is_ok() && mean(r).is_some())
        .collect()
}

/// Parameters that split a resource's results into separate charts (one chart per
/// precision, kernel, pattern or protocol keeps each chart to a few series).
const FACETS: [&str; 4] = ["precision", "kernel", "pattern", "proto"];

/// `fp64`, `triad seq`: the facet values of a result.
fn facet(r: &BenchResult) -> String {
    FACETS
        .iter()
        .filter_map(|k| r.params.get(*k))
        .map(Param::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The label of a result without the x parameter and the facets.
fn series_name(r: &BenchResult, without: &str) -> String {
    let rest: Vec<String> = r
        .params
        .iter()
        .filter(|(k, _)| k.as_str() != without && !FACETS.contains(&k.as_str()))
        .map(|(k, v)| format!("{k}={}", cells::param_value(k, v)))
        .collect();
    if rest.is_empty() {
        r.workload.clone()
    } else {
        format!("{} {}", r.workload, rest.join(" "))
    }
}

fn y_scale(values: &[f64]) -> Scale {
    let pos: Vec<f64> = values.iter().copied().filter(|v| *v > 0.0).collect();
    let (lo, hi) = pos
        .iter()
        .fold((f64::INFINITY, 0.0f64), |a, v| (a.0.min(*v), a.1.max(*v)));
    if pos.len() == values.len() && !pos.is_empty() && hi / lo > 50.0 {
        Scale::Log10
    } else {
        Scale::Linear
    }
}

fn left_out(n: usize) -> String {
    if n > MAX_SERIES {
        format!(" {} more series not drawn (see the table).", n - MAX_SERIES)
    } else {
        String::new()
    }
}

/// Cache levels as vertical markers (data and unified caches, one per level and kind).
pub(crate) fn cache_marks(report: &Report) -> Vec<Marker> {
    let mut v: Vec<Marker> = report
        .host
        .cpu
        .caches
        .iter()
        .filter(|c| c.kind != "Instruction" && c.size_bytes > 0)
        .map(|c| Marker {
            at: c.size_bytes as f64,
            label: format!(
                "L{}{} {}",
                c.level,
                if c.kind == "Data" { "d" } else { "" },
                format_size(c.size_bytes)
            ),
        })
        .collect();
    v.dedup_by(|a, b| a.label == b.label);
    v
}

/// Scaling and sweep charts of one resource: one per (metric, unit, x parameter) where
/// at least one series has two or more points.
pub(crate) fn sweeps(report: &Report, resource: ResourceName) -> Vec<Figure> {
    let rs = measured(report, resource);
    let mut groups: BTreeMap<(Metric, Unit, String), Vec<&BenchResult>> = BTreeMap::new();
    for r in rs {
        groups
            .entry((r.metric, r.unit, facet(r)))
            .or_default()
            .push(r);
    }
    let mut out = Vec::new();
    for ((metric, unit, facet), rs) in groups {
        let what = if facet.is_empty() {
            format!("{resource} {metric}")
        } else {
            format!("{resource} {facet} {metric}")
        };
        for p in X_PARAMS {
            let bytes = is_size_param(p);
            let mut series: BTreeMap<String, Vec<(f64, f64)>> = BTreeMap::new();
            // Per series, each point's theoretical peak where known.
            let mut peaks: BTreeMap<String, Vec<(f64, Option<f64>)>> = BTreeMap::new();
            for r in &rs {
                if let (Some(x), Some(y)) = (r.params.get(p).and_then(param_num), mean(r)) {
                    series.entry(series_name(r, p)).or_default().push((x, y));
                    let peak = r.peak.as_ref().and_then(|k| k.value).filter(|v| *v > 0.0);
                    peaks.entry(series_name(r, p)).or_default().push((x, peak));
                }
            }
            series.retain(|_, pts| {
                pts.sort_by(|a, b| a.0.total_cmp(&b.0));
                pts.dedup_by(|a, b| a.0 == b.0);
                pts.len() >= 2
            });
            if series.is_empty() {
                continue;
            }
            let n = series.len();
            let ys: Vec<f64> = series.values().flatten().map(|p| p.1).collect();
            let xs: Vec<f64> = series.values().flatten().map(|p| p.0).collect();
            let (xlo, xhi) = xs
                .iter()
                .fold((f64::INFINITY, 0.0f64), |a, v| (a.0.min(*v), a.1.max(*v)));
            let x_scale = if bytes || xhi / xlo >= 16.0 {
                Scale::Log2
            } else {
                Scale::Linear
            };
            let vmarks = if bytes && resource.facts().chart.cache_marks {
                cache_marks(report)
            } else {
                Vec::new()
            };
            let title = if p == "threads" {
                format!("{what} scaling with threads ({unit})")
            } else {
                format!("{what} by {p} ({unit})")
            };
            let mut lines: Vec<Series> = series
                .iter()
                .take(MAX_SERIES)
                .enumerate()
                .map(|(i, (name, points))| Series {
                    name: name.clone(),
                    points: points.clone(),
                    style: Style::Line,
                    color: i,
                })
                .collect();
            let scaling = if p == "threads" && !metric.lower_is_better() {
                scaling_lines(&lines, &peaks)
            } else {
                Vec::new()
            };
            let scaling_note = match (
                scaling.iter().any(|s| s.name.ends_with(" peak")),
                scaling.iter().any(|s| s.name.ends_with(" ideal")),
            ) {
                (true, true) => " Dashed: the theoretical peak at each thread count, or where it is unknown the ideal (the fewest threads' figure times the thread ratio).",
                (true, false) => " Dashed: the theoretical peak at each thread count.",
                (false, true) => " Dashed: ideal linear scaling (the fewest threads' figure times the thread ratio).",
                (false, false) => "",
            };
            lines.extend(scaling);
            let caption = format!(
                "Mean of each case; x = {p}{}.{}{scaling_note}{}",
                if x_scale == Scale::Log2 {
                    " (log scale)"
                } else {
                    ""
                },
                if vmarks.is_empty() {
                    String::new()
                } else {
                    " Dashed red lines: cache sizes per instance reported by the OS.".into()
                },
                left_out(n)
            );
            out.push(Figure {
                chart: Chart {
                    title,
                    x: Axis {
                        label: p.to_string(),
                        scale: x_scale,
                        ticks: if bytes { Ticks::Bytes } else { Ticks::Plain },
                    },
                    y: Axis {
                        label: format!("{metric} ({unit})"),
                        scale: y_scale(&ys),
                        ticks: Ticks::Si(unit.to_string()),
                    },
                    series: lines,
                    vmarks,
                    hmarks: Vec::new(),
                },
                caption,
            });
        }
    }
    out
}

/// The reference line of each series of a thread-scaling chart (issue #32 H), in its
/// colour, dashed: the theoretical peak at each of its thread counts when every one is
/// known, else the ideal linear scaling from its fewest threads (`y₀ · x / x₀`). For the
/// first [`MAX_SERIES`]` / 2` series, so that a chart keeps a readable legend.
fn scaling_lines(
    series: &[Series],
    peaks: &BTreeMap<String, Vec<(f64, Option<f64>)>>,
) -> Vec<Series> {
    series
        .iter()
        .take(MAX_SERIES / 2)
        .filter_map(|s| {
            let &(x0, y0) = s.points.first()?;
            let known: Option<Vec<(f64, f64)>> = peaks.get(&s.name).and_then(|v| {
                let mut v: Vec<(f64, Option<f64>)> = v.clone();
                v.sort_by(|a, b| a.0.total_cmp(&b.0));
                v.dedup_by(|a, b| a.0 == b.0);
                v.into_iter().map(|(x, p)| p.map(|p| (x, p))).collect()
            });
            match known {
                Some(points) if points.len() >= 2 => Some(Series {
                    name: format!("{} peak", s.name),
                    points,
                    style: Style::Dashed,
                    color: s.color,
                }),
                _ if x0 > 0.0 && y0 > 0.0 => Some(Series {
                    name: format!("{} ideal", s.name),
                    points: s.points.iter().map(|&(x, _)| (x, y0 * x / x0)).collect(),
                    style: Style::Dashed,
                    color: s.color,
                }),
                _ => None,
            }
        })
        .collect()
}

/// Latency percentile chart of one resource (p50 … max, log y), if any result has them.
pub(crate) fn latency(report: &Report, resource: ResourceName) -> Option<Figure> {
    let rs: Vec<&BenchResult> = report
        .results
        .iter()
        .filter(|r| r.resource == resource && r.is_ok() && r.percentiles.is_some())
        .collect();
    if rs.is_empty() {
        return None;
    }
    let unit = rs[0].unit;
    let series: Vec<Series> = rs
        .iter()
        .filter(|r| r.unit == unit)
        .take(MAX_SERIES)
        .enumerate()
        .filter_map(|(i, r)| {
            let p = r.percentiles.as_ref()?;
            Some(Series {
                name: format!("{} {}", r.workload, cells::params(r)),
                points: [p.p50, p.p90, p.p99, p.p99_9, p.max]
                    .iter()
                    .enumerate()
                    .map(|(k, v)| (k as f64, *v))
                    .collect(),
                style: Style::Line,
                color: i,
            })
        })
        .collect();
    Some(Figure {
        chart: Chart {
            title: format!("{resource} latency percentiles ({unit})"),
            x: Axis {
                label: "percentile".into(),
                scale: Scale::Linear,
                ticks: Ticks::Categories(
                    ["p50", "p90", "p99", "p99.9", "max"]
                        .iter()
                        .map(|s| s.to_string())
                        .collect(),
                ),
            },
            y: Axis {
                label: format!("latency ({unit}, log scale)"),
                scale: Scale::Log10,
                ticks: Ticks::Si(unit.to_string()),
            },
            series,
            vmarks: Vec::new(),
            hmarks: Vec::new(),
        },
        caption: format!(
            "Tail latency per case: a steep rise right of p99 means rare slow operations.{}",
            left_out(rs.len())
        ),
    })
}

/// Time series of sustained runs, one chart per (metric, unit) of the resource.
pub(crate) fn timeseries(report: &Report, resource: ResourceName) -> Vec<Figure> {
    let mut groups: BTreeMap<(Metric, Unit), Vec<&BenchResult>> = BTreeMap::new();
    for r in report
        .results
        .iter()
        .filter(|r| r.resource == resource && r.timeseries.as_ref().is_some_and(|t| !t.is_empty()))
    {
        groups.entry((r.metric, r.unit)).or_default().push(r);
    }
    groups
        .into_iter()
        .map(|((metric, unit), rs)| {
            let hmarks = if rs.len() == 1 {
                rs[0]
                    .peak
                    .as_ref()
                    .and_then(|p| p.value)
                    .map(|v| Marker {
                        at: v,
                        label: format!("theoretical peak {}", format_si(v, unit.as_str())),
                    })
                    .into_iter()
                    .collect()
            } else {
                Vec::new()
            };
            Figure {
                chart: Chart {
                    title: format!("{resource} {metric} over time ({unit})"),
                    x: Axis {
                        label: "seconds since start".into(),
                        scale: Scale::Linear,
                        ticks: Ticks::Plain,
                    },
                    y: Axis {
                        label: format!("{metric} ({unit})"),
                        scale: Scale::Linear,
                        ticks: Ticks::Si(unit.to_string()),
                    },
                    series: rs
                        .iter()
                        .take(MAX_SERIES)
                        .enumerate()
                        .map(|(i, r)| Series {
                            name: format!("{} {}", r.workload, cells::params(r)),
                            points: r.timeseries.clone().unwrap_or_default(),
                            style: Style::Line,
                            color: i,
                        })
                        .collect(),
                    vmarks: Vec::new(),
                    hmarks,
                },
                caption: format!(
                    "Sustained runs: one point per interval; a downward drift means throttling.{}",
                    left_out(rs.len())
                ),
            }
        })
        .collect()
}

/// A ceiling: the best measured mean and the largest theoretical peak of a group.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Ceiling {
    /// e.g. `cpu fp64` or `memory`.
    pub(crate) name: String,
    /// Best measured mean.
    pub(crate) measured: f64,
    /// Largest theoretical peak among the same results, when known.
    pub(crate) theoretical: Option<f64>,
}

fn ceilings(
    report: &Report,
    pick: impl Fn(&BenchResult) -> Option<String>,
    higher: bool,
) -> Vec<Ceiling> {
    let mut m: BTreeMap<String, Ceiling> = BTreeMap::new();
    for r in &report.results {
        let (Some(name), Some(v)) = (pick(r), mean(r)) else {
            continue;
        };
        if !r.is_ok() || v <= 0.0 {
            continue;
        }
        let peak = r
            .peak
            .as_ref()
            .and_then(|p| p.value)
            .filter(|p| *p > 0.0 && p.is_finite());
        let c = m.entry(name.clone()).or_insert(Ceiling {
            name,
            measured: v,
            theoretical: None,
        });
        if (higher && v > c.measured) || (!higher && v < c.measured) {
            c.measured = v;
        }
        c.theoretical = match (c.theoretical, peak) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
    }
    m.into_values().collect()
}

/// Compute ceilings: `FLOP/s` results grouped by resource and precision.
pub(crate) fn compute_ceilings(report: &Report) -> Vec<Ceiling> {
    ceilings(
        report,
        |r| {
            // Linalg results are points on the roofline (`measured_roofline`), not ceilings.
            (r.metric == Metric::Ops
                && r.unit == Unit::FlopPerSec
                && r.resource.facts().chart.compute_ceiling)
                .then(|| {
                    let p = r.param_str("precision").unwrap_or(&r.workload);
                    format!("{} {p}", r.resource)
                })
        },
        true,
    )
}

/// Bandwidth ceilings: memory (and GPU) `B/s` throughput results, per resource.
pub(crate) fn bandwidth_ceilings(report: &Report) -> Vec<Ceiling> {
    ceilings(
        report,
        |r| {
            (r.metric == Metric::Throughput
                && r.unit == Unit::BytePerSec
                && r.resource.facts().chart.bandwidth_ceiling)
                .then(|| r.resource.to_string())
        },
        true,
    )
}

/// The memory ceiling that goes with a compute device: GPU with GPU, CPU with memory.
fn partner<'a>(compute: &str, bws: &'a [Ceiling]) -> Option<&'a Ceiling> {
    let want = if compute.starts_with("gpu") {
        "gpu"
    } else {
        "memory"
    };
    bws.iter().find(|b| b.name == want)
}

fn roof(p: f64, b: Option<f64>, xlo: f64, xhi: f64) -> Vec<(f64, f64)> {
    match b {
        Some(b) if b > 0.0 => {
            let ridge = p / b;
            if ridge <= xlo {
                vec![(xlo, p), (xhi, p)]
            } else if ridge >= xhi {
                vec![(xlo, xlo * b), (xhi, xhi * b)]
            } else {
                vec![(xlo, xlo * b), (ridge, p), (xhi, p)]
            }
        }
        _ => vec![(xlo, p), (xhi, p)],
    }
}

/// The roofline, when the report has at least one `FLOP/s` result.
pub(crate) fn roofline(report: &Report) -> Option<Figure> {
    let mut cs = compute_ceilings(report);
    // The FMA peak the linalg results were compared with, where no CPU result gave
    // a ceiling of that precision (dashed only: nothing measured it as a ceiling).
    for (p, v) in super::measured_roofline::linalg_peaks(report) {
        let name = format!("cpu {p}");
        if !cs.iter().any(|c| c.name == name) {
            cs.push(Ceiling {
                name: format!("FMA peak {p}"),
                measured: f64::NAN,
                theoretical: Some(v),
            });
        }
    }
    let extra = super::measured_roofline::extra(report, cs.len().min(MAX_SERIES / 2));
    if cs.is_empty() && extra.series.is_empty() {
        return None;
    }
    let bws = bandwidth_ceilings(report);
    // Intensity range: 1/16 .. 64 FLOP/B, widened to show every ridge point and every
    // linalg point.
    let (mut xlo, mut xhi) = (1.0f64 / 16.0, 64.0f64);
    if let Some((a, b)) = extra.x {
        xlo = xlo.min(2f64.powf(a.log2().floor()));
        xhi = xhi.max(2f64.powf(b.log2().ceil()));
    }
    for c in &cs {
        if let Some(b) = partner(&c.name, &bws) {
            let ridge = c.measured / b.measured;
            if ridge.is_finite() && ridge > 0.0 {
                xlo = xlo.min(2f64.powf((ridge / 4.0).log2().floor()));
                xhi = xhi.max(2f64.powf((ridge * 4.0).log2().ceil()));
            }
        }
    }
    let mut series = Vec::new();
    let mut notes = Vec::new();
    for (i, c) in cs.iter().take(MAX_SERIES / 2).enumerate() {
        let b = partner(&c.name, &bws);
        if c.measured.is_nan() {
            if let Some(pt) = c.theoretical {
                series.push(Series {
                    name: format!("{} {}", c.name, format_si(pt, "FLOP/s")),
                    points: roof(pt, b.and_then(|b| b.theoretical), xlo, xhi),
                    style: Style::Dashed,
                    color: i,
                });
            }
            continue;
        }
        let bw_name = b.map_or(String::new(), |b| {
            format!(" × {} {}", b.name, format_si(b.measured, "B/s"))
        });
        series.push(Series {
            name: format!(
                "{} measured {}{bw_name}",
                c.name,
                format_si(c.measured, "FLOP/s")
            ),
            points: roof(c.measured, b.map(|b| b.measured), xlo, xhi),
            style: Style::Solid,
            color: i,
        });
        if let Some(b) = b {
            notes.push(format!(
                "{} ridge at {:.2} FLOP/B",
                c.name,
                c.measured / b.measured
            ));
        }
        if let Some(pt) = c.theoretical {
            let bt = b.and_then(|b| b.theoretical);
            series.push(Series {
                name: format!(
                    "{} theoretical {}{}",
                    c.name,
                    format_si(pt, "FLOP/s"),
                    bt.map_or(String::new(), |v| format!(" × {}", format_si(v, "B/s")))
                ),
                points: roof(pt, bt, xlo, xhi),
                style: Style::Dashed,
                color: i,
            });
        }
    }
    series.extend(extra.series);
    notes.extend(extra.notes);
    let caption = if bws.is_empty() && !notes.is_empty() {
        format!(
            "Solid: best measured means; dashed: theoretical peaks where known; points: the measured intensity sweep per memory level and what GEMM, LU and the triad reach. {}.",
            notes.join("; ")
        )
    } else if bws.is_empty() {
        "Compute ceilings only: no memory bandwidth was measured (run `peakbench memory`). Solid: best measured mean; dashed: theoretical peak.".to_string()
    } else {
        format!(
            "Attainable FLOP/s = min(compute ceiling, intensity × bandwidth). Solid: best measured means; dashed: theoretical peaks where known; where lines run along one another (one bandwidth's slope under several ceilings) the one first in the legend is drawn widest, beneath. {}.",
            notes.join("; ")
        )
    };
    Some(Figure {
        chart: Chart {
            title: "Roofline (measured and theoretical ceilings)".into(),
            x: Axis {
                label: "arithmetic intensity (FLOP/byte, log scale)".into(),
                scale: Scale::Log2,
                ticks: Ticks::Plain,
            },
            y: Axis {
                label: "attainable FLOP/s (log scale)".into(),
                scale: Scale::Log10,
                ticks: Ticks::Si("FLOP/s".into()),
            },
            series,
            vmarks: Vec::new(),
            hmarks: Vec::new(),
        },
        caption,
    })
}
