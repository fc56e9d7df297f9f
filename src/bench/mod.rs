//! Benchmarks: one resource = one module implementing [`Benchmark`], registered in
//! [`BENCHMARKS`].
//!
//! # How to add a resource
//!
//! 1. Create `bench/<resource>/mod.rs` with a unit struct implementing [`Benchmark`]:
//!    - `id` (required): the resource name used in results and on the command line.
//!    - `about` (required): one line for listings.
//!    - `plan` (required): called once before anything runs, with the validated
//!      options; returns the cases to run, or a [`UsageError`] naming the flag when the
//!      request cannot be satisfied on this host (e.g. `--isa amx` on a CPU without
//!      AMX). Nothing has run yet, so refusing here has no side effects.
//!    - `quick` (required): the cases of the quick suite (`peakbench` with no
//!      subcommand). Keep the resource's share of the suite's time budget.
//! 2. Each case implements [`Case`]: `label` for progress, `run` returns a complete
//!    [`BenchResult`] (samples, summary, peak, status). Use `measure::Runner` for
//!    iteration-calibrated work; never print from a case.
//! 3. Add one line to [`BENCHMARKS`], a subcommand in `cli.rs`, a `Command` variant
//!    and its validation in `options.rs` (with its arm in `Command::resource`).
//!
//! Cases that cannot run on this host return a `skipped` result with the reason; cases
//! that fail return `failed`. Neither stops the run.

pub mod cpu;
pub mod disk;
pub mod gpu;
pub mod memory;
pub mod net;
pub mod null;

use crate::hw::HostInfo;
use crate::options::Options;
use crate::report::model::BenchResult;

/// What every case gets: the detected host and the validated options.
pub struct Context<'a> {
    /// The machine, detected once per run.
    pub host: &'a HostInfo,
    /// The validated options.
    pub opts: &'a Options,
}

/// The usage error (`util::usage`), re-exported for the resources' `plan` and options.
pub use crate::util::usage::UsageError;

/// One measurable case.
pub trait Case: Send {
    /// Short description for progress output.
    fn label(&self) -> String;
    /// Runs the case to a complete result (ok, skipped or failed).
    fn run(&self, ctx: &Context) -> BenchResult;
}

/// One resource.
pub trait Benchmark: Sync {
    /// Resource name, e.g. `cpu`.
    fn id(&self) -> &'static str;
    /// One line describing it.
    fn about(&self) -> &'static str;
    /// Cases for the resource's own subcommand.
    fn plan(&self, ctx: &Context) -> Result<Vec<Box<dyn Case>>, UsageError>;
    /// Cases for the quick suite.
    fn quick(&self, ctx: &Context) -> Vec<Box<dyn Case>>;
}

/// Every resource, in quick-suite order. `null` is not listed: it is for tests.
pub static BENCHMARKS: &[&dyn Benchmark] = &[
    &cpu::CpuBench,
    &memory::MemoryBench,
    &disk::DiskBench,
    &net::NetBench,
    &gpu::GpuBench,
];

/// The benchmark with this id (including the hidden `null`).
pub fn find(id: &str) -> Option<&'static dyn Benchmark> {
    if id == "null" {
        return Some(&null::NullBench);
    }
    BENCHMARKS.iter().copied().find(|b| b.id() == id)
}
