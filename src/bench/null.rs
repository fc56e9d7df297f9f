//! The null benchmark: does (almost) no work and drives the whole pipeline — options,
//! runner, threads, results model, peaks, exporters, files — so tests can check the
//! pipeline without depending on real hardware speed. Hidden subcommand `null`.

use super::peaks::{PeakKey, PeakKind};
use super::rate_case::{rate_row, ThreadsOptions};
use super::resource::{self, Case, Context, Plan, Run, UsageError};
use crate::measure::runner::Workload;
use crate::report::model::{BenchResult, Metric, ResourceName, Unit};

/// The null resource.
pub(crate) struct NullBench;

/// The `--peak` key `null`.
fn peak_key() -> PeakKey {
    PeakKey::new("null")
}

struct Spin;

impl Workload for Spin {
    fn run(&mut self, iters: u64) -> f64 {
        let mut x = 0u64;
        for i in 0..iters {
            x = std::hint::black_box(x ^ i);
        }
        std::hint::black_box(x);
        iters as f64
    }
}

struct NullCase {
    threads: usize,
}

impl Case for NullCase {
    fn label(&self) -> String {
        format!("null threads={}", self.threads)
    }

    fn run(&self, ctx: &Context) -> Vec<BenchResult> {
        let row = BenchResult::new(ResourceName::Null, "spin", Metric::Ops, Unit::OpPerSec);
        vec![rate_row(ctx, self.threads, row, peak_key(), |_| Ok(Spin))]
    }
}

impl Plan for NullBench {
    type Options = ThreadsOptions;

    fn plan(&self, o: &ThreadsOptions, _ctx: &Context) -> Result<Vec<Box<dyn Case>>, UsageError> {
        Ok(o.cases(|t| Box::new(NullCase { threads: t })))
    }
}

impl resource::Resource for NullBench {
    fn name(&self) -> &'static str {
        "null"
    }

    fn about(&self) -> &'static str {
        "Does nothing; drives the whole pipeline in tests"
    }

    fn hidden(&self) -> bool {
        true
    }

    fn command(&self) -> clap::Command {
        resource::subcommand::<ThreadsOptions>(self)
    }

    fn parse(&self, m: &clap::ArgMatches) -> Result<Box<dyn Run>, UsageError> {
        resource::parse_with(&NullBench, m, ThreadsOptions::parse)
    }

    fn peak_key(&self, _key: &str, rest: &[&str]) -> Result<Option<(PeakKey, PeakKind)>, String> {
        Ok(rest.is_empty().then(|| (peak_key(), PeakKind::Ops)))
    }

    fn quick(&self, _ctx: &Context) -> Vec<Box<dyn Case>> {
        vec![Box::new(NullCase { threads: 1 })]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::{Args, FromArgMatches};

    /// `--threads` is typed where clap reads it, with the lines of the other resources'
    /// `--threads`; none given is one thread.
    #[test]
    fn threads_are_typed() {
        let read = |args: &[&str]| -> Result<ThreadsOptions, String> {
            let m = ThreadsOptions::augment_args(clap::Command::new("null"))
                .try_get_matches_from(std::iter::once("null").chain(args.iter().copied()))
                .map_err(|e| UsageError::from_clap(&e).unwrap().0)?;
            Ok(ThreadsOptions::parse(&ThreadsOptions::from_arg_matches(&m).unwrap()).unwrap())
        };
        assert_eq!(read(&[]).unwrap().threads, [1]);
        assert_eq!(read(&["--threads", "2,1"]).unwrap().threads, [2, 1]);
        assert_eq!(
            read(&["--threads", "0"]).unwrap_err(),
            "--threads: '0' is out of range; thread counts go from 1 to 4096"
        );
        assert_eq!(
            read(&["--threads", "two"]).unwrap_err(),
            "--threads: 'two' is not a thread count; use whole numbers like 1,2,4,8"
        );
    }
}
