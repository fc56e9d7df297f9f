//! Benchmarks: one resource = one module implementing [`Benchmark`], registered in
//! [`BENCHMARKS`].
//!
//! # How to add a resource
//!
//! 1. Create `bench/<resource>/options.rs`: the clap flags (`<Resource>Args`, derived
//!    `clap::Args`), the validated `<Resource>Options` (serialised into the report's
//!    `config`) and `parse(&Args) -> Result<Options, UsageError>`. Options shared by
//!    every command come from [`common`]; nothing here imports `cli`, `options` or `app`.
//! 2. Create `bench/<resource>/mod.rs` with a unit struct implementing [`Benchmark`]:
//!    - `id` (required): the resource name used in results and on the command line.
//!    - `about` (required): one line for listings.
//!    - `quick` (required): the cases of the quick suite (`peakbench` with no
//!      subcommand). Keep the resource's share of the suite's time budget.
//!
//!    and [`Plan`], with `type Options = <Resource>Options`:
//!    - `plan` (required): called once before anything runs, with the validated
//!      options; returns the cases to run, or a [`UsageError`] naming the flag when the
//!      request cannot be satisfied on this host (e.g. `--isa amx` on a CPU without
//!      AMX). Nothing has run yet, so refusing here has no side effects.
//! 3. Each case implements [`Case`]: `label` for progress, `run` returns every
//!    complete [`BenchResult`] (samples, summary, peak, status) of one measurement —
//!    one for most cases, several when one run yields several metrics (disk:
//!    throughput, IOPS and latency of the same I/O). State that outlives a case (a
//!    disk workspace, a network control connection) lives in the resource's plan
//!    object, which its cases share; cases never hand results to one another. Use
//!    `measure::Runner` for iteration-calibrated work, configured and pinned by
//!    [`common::run_config`] (which warns when oversubscribed), and check a plan's
//!    memory with [`common::ram_refuses`]; never print from a case.
//! 4. At the top: one line in [`BENCHMARKS`], a `Cmd` variant holding the `Args` in
//!    `cli.rs`, a `Command` variant and its `parse` call in `options.rs`, and one arm in
//!    `app.rs`'s dispatch calling `plan`.
//!
//! A resource that reads a `--peak` key (`ctx.opts.peaks.find`) adds the key (a
//! [`peaks::PeakKey`] variant, its text and the kind of rate it is) to [`peaks`], which
//! refuses every other key.
//!
//! Cases that cannot run on this host return a `skipped` result with the reason; cases
//! that fail return `failed`. Neither stops the run.

pub mod common;
pub mod cpu;
pub mod disk;
pub(crate) mod flags;
pub mod gpu;
pub mod linalg;
pub mod memory;
pub mod net;
pub(crate) mod null;
#[cfg(test)]
mod options_golden;
pub mod peaks;

use crate::hw::HostInfo;
use crate::report::model::BenchResult;
use common::CommonOptions;

/// What every case gets: the detected host and the validated common options (each
/// resource's own options reach it through [`Plan::plan`]).
pub(crate) struct Context<'a> {
    /// The machine, detected once per run.
    pub(crate) host: &'a HostInfo,
    /// The validated options common to every command (`--repeat`, `--min-time`, …).
    pub(crate) opts: &'a CommonOptions,
}

/// The usage error (`util::usage`), re-exported for the resources' `plan` and options.
pub(crate) use crate::util::usage::UsageError;

/// One measurable case: one measurement, one step of the progress display.
pub(crate) trait Case: Send {
    /// Short description for progress output.
    fn label(&self) -> String;
    /// Runs the measurement to its complete results (each ok, skipped or failed), in
    /// the order they are reported; never empty.
    fn run(&self, ctx: &Context) -> Vec<BenchResult>;
    /// About how long the case runs, for the plan a long run prints first, `--dry-run`
    /// and the progress bar's estimate before any case has finished: by default
    /// [`default_estimate`]. Cases that run for durations of their own (`--time`,
    /// `--runtime`, `--sustain`) say so; cases that only report a reason say zero.
    fn estimate(&self, opts: &CommonOptions) -> std::time::Duration {
        default_estimate(opts)
    }
}

/// A warm-up and `--repeat` timed runs of at least `--min-time` each; with
/// `--until-stable`, its budget and the warm-up.
pub(crate) fn default_estimate(opts: &CommonOptions) -> std::time::Duration {
    match &opts.until_stable {
        Some(s) => s.budget + opts.min_time,
        None => opts.min_time * (opts.repeat + 1),
    }
}

/// One resource.
pub(crate) trait Benchmark: Sync {
    /// Cases for the quick suite.
    fn quick(&self, ctx: &Context) -> Vec<Box<dyn Case>>;
}

/// A resource's own subcommand: its validated options in, its cases out. Separate from
/// [`Benchmark`] because the options' type differs per resource (`app` calls it in one
/// match over the commands).
pub(crate) trait Plan: Benchmark {
    /// The validated options of the subcommand (`bench::<resource>::options`).
    type Options;
    /// Cases for the resource's own subcommand.
    fn plan(&self, o: &Self::Options, ctx: &Context) -> Result<Vec<Box<dyn Case>>, UsageError>;
}

/// Every resource, in quick-suite order. `null` is not listed: it is for tests.
pub(crate) static BENCHMARKS: &[&dyn Benchmark] = &[
    &cpu::CpuBench,
    &memory::MemoryBench,
    &disk::DiskBench,
    &net::NetBench,
    &gpu::GpuBench,
    &linalg::LinalgBench,
];
