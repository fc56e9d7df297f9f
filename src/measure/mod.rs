//! The measurement core every resource uses: a monotonic clock, the runner (warm-up,
//! calibrated repeats, thread barrier and pinning) and the statistics of the samples.
//!
//! This layer knows nothing of reports or peaks: it returns samples and a [`Summary`];
//! `app.rs` turns them into `report::model` results.

pub mod clock;
pub mod runner;
pub mod stats;

pub use runner::{RunConfig, Runner, Sample, Scaling};
pub use stats::{percentiles, Percentiles, Summary};
