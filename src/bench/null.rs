//! The null benchmark: does (almost) no work and drives the whole pipeline — options,
//! runner, threads, results model, peaks, exporters, files — so tests can check the
//! pipeline without depending on real hardware speed. Hidden subcommand `null`.

use super::flags::{threads, List};
use super::peaks::{PeakKey, PeakKind};
use super::resource::{self, Case, Context, Plan, Run, UsageError};
use crate::measure::runner::Workload;
use crate::measure::{RunConfig, Runner};
use crate::report::model::{BenchResult, Metric, ResourceName, Unit};
use serde::Serialize;

/// The null resource.
pub(crate) struct NullBench;

/// `peakbench null`: its flag, typed and defaulted where clap reads it: nothing is
/// derived, so the clap struct is the options (issue #46 item 3).
#[derive(Debug, Clone, clap::Args, Serialize)]
pub(crate) struct NullOptions {
    /// Thread counts
    #[arg(long = "threads", value_name = "LIST", allow_hyphen_values = true, value_parser = threads, default_value = "1")]
    threads: List<usize>,
}

/// `null`'s options: clap's, as they are.
fn parse(a: &NullOptions) -> Result<NullOptions, UsageError> {
    Ok(a.clone())
}

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
        vec![self.result(ctx)]
    }
}

impl NullCase {
    /// The case's one result.
    fn result(&self, ctx: &Context) -> BenchResult {
        let o = ctx.opts;
        let cfg = RunConfig {
            repeat: o.repeat,
            min_time: o.min_time,
            threads: self.threads,
            cpus: ctx.host.cpu.pin_order.clone(),
            stable: o.until_stable,
        };
        let r = BenchResult::new(ResourceName::Null, "spin", Metric::Ops, Unit::OpPerSec)
            .param("threads", self.threads);
        match Runner::run(&cfg, |_| Ok(Spin), &|_, _| {}) {
            Ok(samples) => {
                let r = r.with_runner_samples(samples, o.until_stable.is_some(), |s| s.rate());
                match o.peaks.peak(&[peak_key()]) {
                    Some(p) => r.with_peak(p),
                    None => r,
                }
            }
            Err(e) => r.failed(e.to_string()),
        }
    }
}

impl Plan for NullBench {
    type Options = NullOptions;

    fn plan(&self, o: &NullOptions, _ctx: &Context) -> Result<Vec<Box<dyn Case>>, UsageError> {
        Ok(o.threads
            .iter()
            .map(|&t| Box::new(NullCase { threads: t }) as Box<dyn Case>)
            .collect())
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
        resource::subcommand::<NullOptions>(self)
    }

    fn parse(&self, m: &clap::ArgMatches) -> Result<Box<dyn Run>, UsageError> {
        resource::parse_with(&NullBench, m, parse)
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
        let read = |args: &[&str]| -> Result<NullOptions, String> {
            let m = NullOptions::augment_args(clap::Command::new("null"))
                .try_get_matches_from(std::iter::once("null").chain(args.iter().copied()))
                .map_err(|e| UsageError::from_clap(&e).unwrap().0)?;
            Ok(parse(&NullOptions::from_arg_matches(&m).unwrap()).unwrap())
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
