//! One timed run of a case: the work all threads did, the interval, and what each
//! thread had of its core ([`SampleShare`]). Its own file so that the runner and the
//! `--until-stable` rule (stable.rs), which the runner consults, both take it from here.

use super::share::SampleShare;

/// One timed run: the summed work of all threads and the interval it took.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Sample {
    /// Work done by all threads together, in the workload's unit.
    pub(crate) work: f64,
    /// Seconds from the first thread's start to the last thread's finish.
    pub(crate) secs: f64,
    /// Iterations each thread ran.
    pub(crate) iters: u64,
    /// Seconds since the first timed sample started (for time series).
    pub(crate) at: f64,
    /// What each thread had of its core during the run, and the host's figures over
    /// it (see [`super::share`]).
    pub(crate) share: SampleShare,
}

impl Sample {
    /// Work per second.
    pub(crate) fn rate(&self) -> f64 {
        self.work / self.secs
    }
}
