//! The null benchmark: does (almost) no work and drives the whole pipeline — options,
//! runner, threads, results model, peaks, exporters, files — so tests can check the
//! pipeline without depending on real hardware speed. Hidden subcommand `null`.

use super::{Benchmark, Case, Context, Plan, UsageError};
use crate::measure::runner::Workload;
use crate::measure::{RunConfig, Runner};
use crate::report::model::{BenchResult, Metric, Resource, Unit};

/// The null resource.
pub(crate) struct NullBench;

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
        let r = BenchResult::new(Resource::Null, "spin", Metric::Ops, Unit::OpPerSec)
            .param("threads", self.threads);
        match Runner::run(&cfg, |_| Ok(Spin), &|_, _| {}) {
            Ok(samples) => {
                let r = r.with_runner_samples(samples, o.until_stable.is_some(), |s| s.rate());
                match o.peaks.peak(&[crate::bench::peaks::PeakKey::Null]) {
                    Some(p) => r.with_peak(p),
                    None => r,
                }
            }
            Err(e) => r.failed(e.to_string()),
        }
    }
}

impl Plan for NullBench {
    type Options = Vec<usize>;

    fn plan(&self, threads: &Vec<usize>, _ctx: &Context) -> Result<Vec<Box<dyn Case>>, UsageError> {
        Ok(threads
            .iter()
            .map(|&t| Box::new(NullCase { threads: t }) as Box<dyn Case>)
            .collect())
    }
}

impl Benchmark for NullBench {
    fn quick(&self, _ctx: &Context) -> Vec<Box<dyn Case>> {
        vec![Box::new(NullCase { threads: 1 })]
    }
}
