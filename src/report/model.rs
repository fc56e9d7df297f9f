//! The one results model (DESIGN.md §2, schema `peakbench/1`). Every exporter reads only
//! this; the JSON form of [`Report`] is the source of truth, and the table, CSV and
//! Markdown are views of it that never compute numbers of their own.
//!
//! Conventions:
//! - `metric` is one of `ops`, `throughput`, `iops`, `latency`; `unit` is explicit
//!   (`OP/s`, `FLOP/s`, `B/s`, `IO/s`, `s`).
//! - `params` uses the command-line flag names (`threads`, `precision`, `isa`, …).
//! - `efficiency` = `summary.mean / peak.value`; a figure above its peak keeps its value
//!   and sets `over_peak` (it is a configuration or table error to investigate, never
//!   clamped).
//! - Non-finite numbers never reach the model: a case that cannot produce a finite
//!   figure is `failed` with the error.

use crate::hw::peak::Peak;
use crate::hw::HostInfo;
use crate::measure::{Percentiles, Summary};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The schema identifier written into every report.
pub const SCHEMA: &str = "peakbench/1";

/// A whole run.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Report {
    /// Always [`SCHEMA`].
    pub schema: String,
    /// peakbench version that wrote the report.
    pub tool_version: String,
    /// UTC start time, RFC 3339.
    pub started_at: String,
    /// UTC finish time, RFC 3339 (`None` while the run is in progress).
    pub finished_at: Option<String>,
    /// The machine.
    pub host: HostInfo,
    /// The effective options of the run.
    pub config: serde_json::Value,
    /// One entry per measured case, in run order.
    pub results: Vec<BenchResult>,
}

/// Outcome of a case.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Measured.
    Ok,
    /// Not run, e.g. the CPU lacks the instructions or the OS refused them.
    Skipped {
        /// Why.
        reason: String,
    },
    /// Tried and failed.
    Failed {
        /// What went wrong.
        error: String,
    },
}

/// A figure from a reference tool, next to ours.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Reference {
    /// Tool name, e.g. `likwid-bench`.
    pub tool: String,
    /// Tool version.
    pub version: String,
    /// The exact command that was run.
    pub command: String,
    /// Its figure, converted to `unit`.
    pub value: f64,
    /// Unit of `value`.
    pub unit: String,
}

/// One measured case.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct BenchResult {
    /// `cpu`, `memory`, `disk`, `net`, `gpu` (or `null` in tests).
    pub resource: String,
    /// The kernel or workload name, e.g. `fma_f64_avx512`.
    pub workload: String,
    /// Case parameters under their flag names.
    pub params: BTreeMap<String, serde_json::Value>,
    /// `ops`, `throughput`, `iops` or `latency`.
    pub metric: String,
    /// Unit of the samples and summary.
    pub unit: String,
    /// Every timed sample (warm-up excluded).
    pub samples: Vec<f64>,
    /// Statistics of `samples`; `None` unless the status is `ok`.
    pub summary: Option<Summary>,
    /// Latency percentiles, for latency metrics.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub percentiles: Option<Percentiles>,
    /// `(seconds since start, value)` for sustained runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeseries: Option<Vec<(f64, f64)>>,
    /// Theoretical peak with provenance.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peak: Option<Peak>,
    /// `summary.mean / peak.value`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub efficiency: Option<f64>,
    /// True when the mean exceeds the theoretical peak.
    #[serde(default)]
    pub over_peak: bool,
    /// Core clock measured around the run (CPU cases), Hz.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock_hz: Option<f64>,
    /// Reference tools' figures for the same case.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference: Option<Vec<Reference>>,
    /// Warnings and conventions worth reading next to the figure (e.g. high CV).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// ok, skipped or failed.
    pub status: Status,
    /// Both ends of a client/server case (network): `local` and `remote`, each with
    /// its role and raw counts; `remote` also carries the peer's HostInfo as it sent it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ends: Option<serde_json::Value>,
}

/// Coefficient of variation above which a result carries a warning (DESIGN.md §3).
pub const CV_WARN: f64 = 0.05;

impl BenchResult {
    /// A new result with no samples yet (status ok until told otherwise).
    pub fn new(resource: &str, workload: &str, metric: &str, unit: &str) -> BenchResult {
        BenchResult {
            resource: resource.into(),
            workload: workload.into(),
            params: BTreeMap::new(),
            metric: metric.into(),
            unit: unit.into(),
            samples: Vec::new(),
            summary: None,
            percentiles: None,
            timeseries: None,
            peak: None,
            efficiency: None,
            over_peak: false,
            clock_hz: None,
            reference: None,
            notes: Vec::new(),
            status: Status::Ok,
            ends: None,
        }
    }

    /// Adds a parameter under its flag name.
    pub fn param(mut self, name: &str, value: impl Into<serde_json::Value>) -> BenchResult {
        self.params.insert(name.into(), value.into());
        self
    }

    /// Marks the result skipped.
    pub fn skipped(mut self, reason: impl Into<String>) -> BenchResult {
        self.status = Status::Skipped {
            reason: reason.into(),
        };
        self
    }

    /// Marks the result failed.
    pub fn failed(mut self, error: impl Into<String>) -> BenchResult {
        self.status = Status::Failed {
            error: error.into(),
        };
        self
    }

    /// Sets the samples, computing the summary and the CV warning; a non-finite or empty
    /// sample set turns the result into `failed`.
    pub fn with_samples(mut self, samples: Vec<f64>) -> BenchResult {
        match Summary::of(&samples) {
            Ok(s) => {
                if s.cv > CV_WARN {
                    self.notes.push(format!(
                        "CV {:.1} % > {:.0} %: the machine was noisy or the case too short; consider --repeat or --min-time",
                        s.cv * 100.0,
                        CV_WARN * 100.0
                    ));
                }
                self.summary = Some(s);
                self.samples = samples;
            }
            Err(e) => {
                self.status = Status::Failed {
                    error: format!("no usable samples: {e}"),
                };
            }
        }
        self
    }

    /// Sets the peak and derives efficiency and the over-peak flag from the mean.
    pub fn with_peak(mut self, peak: Peak) -> BenchResult {
        if let (Some(s), Some(p)) = (&self.summary, peak.value) {
            if p > 0.0 {
                let e = s.mean / p;
                self.efficiency = Some(e);
                self.over_peak = e > 1.0;
                if self.over_peak {
                    self.notes.push(format!(
                        "OVER PEAK: {:.1} % of the theoretical peak; check the peak's inputs ({})",
                        e * 100.0,
                        peak.source
                    ));
                }
            }
        }
        self.peak = Some(peak);
        self
    }

    /// Whether the status is `ok`.
    pub fn is_ok(&self) -> bool {
        self.status == Status::Ok
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn efficiency_and_over_peak_are_not_clamped() {
        let r = BenchResult::new("cpu", "k", "ops", "FLOP/s")
            .with_samples(vec![110.0, 110.0, 110.0])
            .with_peak(Peak {
                value: Some(100.0),
                source: "test".into(),
            });
        assert_eq!(r.efficiency, Some(1.1));
        assert!(r.over_peak);
        assert!(r.notes.iter().any(|n| n.starts_with("OVER PEAK")));
    }

    #[test]
    fn non_finite_fails() {
        let r = BenchResult::new("cpu", "k", "ops", "FLOP/s").with_samples(vec![f64::INFINITY]);
        assert!(matches!(r.status, Status::Failed { .. }));
        assert!(r.summary.is_none());
    }

    #[test]
    fn status_json_shape() {
        let ok = serde_json::to_string(&Status::Ok).unwrap();
        assert_eq!(ok, "\"ok\"");
        let s = serde_json::to_string(&Status::Skipped { reason: "x".into() }).unwrap();
        assert_eq!(s, r#"{"skipped":{"reason":"x"}}"#);
    }

    #[test]
    fn cv_warning() {
        let r = BenchResult::new("cpu", "k", "ops", "FLOP/s").with_samples(vec![1.0, 2.0, 3.0]);
        assert!(r.notes.iter().any(|n| n.starts_with("CV")));
    }
}
