//! What the two hidden test resources (`null`, `tally`) share: a `--threads LIST` flag,
//! one case per thread count, and a case's one row, the rate of a workload on that many
//! threads under the common options with the `--peak` given for the resource's key. A
//! test resource differs in its workload and its row's name, metric and unit only.

use super::flags::{threads, List};
use super::peaks::PeakKey;
use super::resource::{Case, Context};
use crate::measure::runner::{MakeWorkload, Workload};
use crate::measure::{RunConfig, Runner};
use crate::report::model::BenchResult;
use serde::Serialize;

/// A test resource's one flag, typed and defaulted where clap reads it: nothing is
/// derived, so the clap struct is the options (issue #46 item 3).
#[derive(Debug, Clone, clap::Args, Serialize)]
pub(crate) struct ThreadsOptions {
    /// Thread counts
    #[arg(long = "threads", value_name = "LIST", allow_hyphen_values = true, value_parser = threads, default_value = "1")]
    pub(crate) threads: List<usize>,
}

impl ThreadsOptions {
    /// The options, as clap read them (the resource's `parse`).
    pub(crate) fn parse(a: &ThreadsOptions) -> Result<ThreadsOptions, super::resource::UsageError> {
        Ok(a.clone())
    }

    /// One case per thread count, in the order given, each made by `case`.
    pub(crate) fn cases(&self, case: impl Fn(usize) -> Box<dyn Case>) -> Vec<Box<dyn Case>> {
        self.threads.iter().map(|&t| case(t)).collect()
    }
}

/// `row` (the resource's name, metric and unit) with a `threads` parameter and the
/// rate of `make`'s workload on `threads` threads, or the failure; with the `--peak`
/// given for `key`.
pub(crate) fn rate_row<W: Workload>(
    ctx: &Context,
    threads: usize,
    row: BenchResult,
    key: PeakKey,
    make: impl MakeWorkload<W>,
) -> BenchResult {
    let o = ctx.opts;
    let cfg = RunConfig {
        repeat: o.repeat,
        min_time: o.min_time,
        threads,
        cpus: ctx.host.cpu.pin_order.clone(),
        stable: o.until_stable,
    };
    let r = row.param("threads", threads);
    match Runner::run(&cfg, make, &|_, _| {}) {
        Ok(samples) => {
            let r = r.with_runner_samples(samples, o.until_stable.is_some(), |s| s.rate());
            match o.peaks.peak(&[key]) {
                Some(p) => r.with_peak(p),
                None => r,
            }
        }
        Err(e) => r.failed(e.to_string()),
    }
}
