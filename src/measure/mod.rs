//! The measurement core every resource uses: a monotonic clock, the runner (warm-up,
//! calibrated repeats, thread barrier and pinning) and the statistics of the samples.
//!
//! This layer knows nothing of reports or peaks: it returns samples and a [`Summary`];
//! `app.rs` turns them into `report::model` results.

pub(crate) mod canary;
pub(crate) mod cgroup;
pub mod clock;
pub(crate) mod energy;
pub(crate) mod energy_perf;
pub(crate) mod isolation;
pub(crate) mod nvml;
pub(crate) mod others;
pub(crate) mod proc_stat;
pub(crate) mod runner;
pub(crate) mod sample;
pub(crate) mod share;
pub(crate) mod stable;
pub(crate) mod stats;

pub(crate) use runner::{RunConfig, Runner, Sample, Scaling, Stable};
pub(crate) use share::SampleShare;
pub(crate) use stats::{CiCaveat, Percentiles, Summary};
