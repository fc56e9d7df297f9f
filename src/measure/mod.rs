//! The measurement core every resource uses: a monotonic clock, the runner (warm-up,
//! calibrated repeats, thread barrier and pinning) and the statistics of the samples.
//!
//! This layer knows nothing of reports or peaks: it returns samples and a [`Summary`];
//! `app.rs` turns them into `report::model` results.

pub mod clock;
pub mod isolation;
pub mod runner;
pub mod sample;
pub mod share;
pub mod stable;
pub mod stats;

pub use runner::{RunConfig, Runner, Sample, Scaling, Stable};
pub use share::SampleShare;
pub use stats::{percentiles, Percentiles, Summary};
