//! The one results model, the documents computed from it (a comparison, a fleet, the
//! matrix of a cluster run), their views, and the live progress channel.
//!
//! A view is pure: it formats a document into a writer and never computes statistics.
//! The views are on one axis ([`view`]): every document is a [`Doc`], every format is
//! one module that renders every document, and [`export()`] is the one dispatch.
//! Adding a format is one file and one registry line ([`view`]'s `FORMATS`); adding a
//! document is one [`Doc`] variant and one arm in each format.

pub mod charts;
pub mod compare;
mod condense;
pub(crate) mod disturbance;
pub(crate) mod figures;
pub mod fleet;
pub mod load;
pub(crate) mod matrix;
pub(crate) mod measured_roofline;
pub mod model;
pub(crate) mod physics;
pub(crate) mod progress;
mod provenance;
pub mod quality;
pub(crate) mod results_index;
#[cfg(test)]
pub(crate) mod samples;
pub mod series;
pub(crate) mod view;

pub use view::{export, export_fit, Doc, Format, Grid, Text, TextDoc};

#[cfg(test)]
pub(crate) mod fixtures {
    //! A hand-made report shared by the exporter tests.
    use super::model::*;
    use crate::hw::peak::Peak;
    use crate::hw::HostInfo;

    pub(crate) fn report() -> Report {
        let ok = super::samples::fma(2, vec![150e9, 152e9, 154e9]).with_peak(Peak {
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
        let skipped = super::samples::cpu_ops("tdpbf16ps_amx", Unit::FlopPerSec)
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
            hosts: Vec::new(),
            run_quality: None,
        }
    }
}
