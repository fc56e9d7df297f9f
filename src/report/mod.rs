//! Exporters over the one results model, and the live progress channel.
//!
//! An exporter is pure: it formats a [`model::Report`] into a writer and never computes
//! statistics. Adding a format is one file and one [`Format`] variant.

pub mod charts;
pub mod compare;
pub mod csv;
pub mod figures;
pub mod html;
pub mod json;
pub mod load;
pub mod markdown;
pub mod model;
pub mod progress;
#[cfg(test)]
pub(crate) mod samples;
pub mod table;
mod view;

use std::io::Write;

/// Output formats for stdout (`--format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// Terminal table.
    Table,
    /// The Report as JSON.
    Json,
    /// One row per result.
    Csv,
    /// A GitHub-flavoured Markdown table.
    Markdown,
}

impl Format {
    /// Parses a `--format` value.
    pub fn parse(s: &str) -> Option<Format> {
        match s {
            "table" => Some(Format::Table),
            "json" => Some(Format::Json),
            "csv" => Some(Format::Csv),
            "markdown" | "md" => Some(Format::Markdown),
            _ => None,
        }
    }
}

/// Writes `report` in `format`.
pub fn export(report: &model::Report, format: Format, out: &mut dyn Write) -> std::io::Result<()> {
    match format {
        Format::Table => table::export(report, out),
        Format::Json => json::export(report, out),
        Format::Csv => csv::export(report, out),
        Format::Markdown => markdown::export(report, out),
    }
}

#[cfg(test)]
pub(crate) mod fixtures {
    //! A hand-made report shared by the exporter tests.
    use super::model::*;
    use crate::hw::peak::Peak;
    use crate::hw::HostInfo;

    pub fn report() -> Report {
        let ok = BenchResult::new(
            Resource::Cpu,
            "fma_f64_avx512",
            Metric::Ops,
            Unit::FlopPerSec,
        )
        .param("precision", "fp64")
        .param("isa", "avx512")
        .param("threads", 2)
        .with_samples(vec![150e9, 152e9, 154e9])
        .with_peak(Peak {
            value: Some(160e9),
            source: "2 cores x 2.5 GHz".into(),
        });
        let over = BenchResult::new(Resource::Cpu, "add_i32_avx2", Metric::Ops, Unit::OpPerSec)
            .param("precision", "int32")
            .param("threads", 1)
            .with_samples(vec![11.0, 11.0])
            .with_peak(Peak {
                value: Some(10.0),
                source: "table".into(),
            });
        let skipped = BenchResult::new(
            Resource::Cpu,
            "tdpbf16ps_amx",
            Metric::Ops,
            Unit::FlopPerSec,
        )
        .param("precision", "bf16")
        .skipped("CPU lacks amx-bf16");
        Report {
            schema: SCHEMA.into(),
            tool_version: "0.1.0".into(),
            started_at: "2026-11-21T21:00:00Z".into(),
            finished_at: Some("2026-11-21T21:00:05Z".into()),
            host: HostInfo {
                hostname: "testhost".into(),
                os: "Debian GNU/Linux 12 (bookworm)".into(),
                kernel: "6.1.0".into(),
                arch: "x86_64".into(),
                virtualization: "kvm".into(),
                cpu: Default::default(),
                memory: Default::default(),
                clock: Default::default(),
                disks: Vec::new(),
                gpus: Default::default(),
            },
            config: serde_json::json!({"repeat": 3}),
            results: vec![ok, over, skipped],
        }
    }
}
