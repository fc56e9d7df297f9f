//! `peakbench memory`: bandwidth (read, write, copy, scale, add, triad; sequential or
//! random blocks) and latency (pointer chase) from L1 to DRAM, 1..N pinned threads.
//!
//! Measurement rules (STREAM, likwid-bench, pmbw, MLC):
//! - working set ≥ 4× the last-level cache by default, heap (mmap) memory, 2 MiB
//!   aligned, transparent huge pages requested (and the grant reported);
//! - strong scaling: the working set is divided among the threads, each thread maps and
//!   first-touches its own region after being pinned;
//! - bytes counted as STREAM does (copy = 16 B per element, no write-allocate) and the
//!   convention is written on every result (`bytes` param and a note);
//! - non-temporal stores (`--nt auto`) when the working set exceeds the LLC;
//! - the first pass of every thread is checked against the scalar reference before the
//!   timed samples (the runner's calibration run), a wrong result fails the case;
//! - the DRAM peak comes from SMBIOS type 17 (`hw::memory`), or `--peak memory=…`.

pub(crate) mod bandwidth;
pub(crate) mod bytes;
pub(crate) mod chase;
pub(crate) mod kernels;
pub(crate) mod level;
pub mod options;
pub(crate) mod region;
#[cfg(target_arch = "x86_64")]
pub(crate) mod x86;

use super::common::{ram_refuses, ram_room, run_config, RAM_FRACTION};
use super::peaks::{PeakKey, PeakKind, PeakOverrides};
use super::resource::{self, Case, CommonFlag, Context, Plan, Run, UsageError};
use crate::hw::peak::Peak;
use crate::hw::HostInfo;
use crate::measure::{RunConfig, Runner, Sample, Scaling};
use crate::report::model::{BenchResult, Metric, NoteKind, Resource, Unit};
use crate::util::units::format_size;
use bandwidth::{BwWork, Geometry, PassSetup};
use chase::ChaseWork;
use kernels::{Kernel, Op};
pub use level::Level;
use options::{Kind, MemoryOptions, Nt, Pattern};
use region::Pages;
use std::sync::Mutex;

/// The memory resource.
pub(crate) struct MemoryBench;

/// Fallback last-level cache size when the OS does not report one.
const LLC_FALLBACK: u64 = 32 << 20;
/// Default block for the random pattern: one 4 KiB page.
pub(crate) const RAND_BLOCK: u64 = 4096;

fn cache_size(host: &HostInfo, level: u8) -> Option<u64> {
    host.cpu
        .caches
        .iter()
        .find(|c| c.level == level && c.kind != "Instruction")
        .map(|c| c.size_bytes)
}

/// Where a working set of `total` bytes shared by `threads` threads lives. Private
/// levels (L1, L2) compare with the per-thread share, the shared L3 with the total.
pub(crate) fn level_of(host: &HostInfo, total: u64, threads: usize) -> Level {
    let per = total / threads.max(1) as u64;
    match (
        cache_size(host, 1),
        cache_size(host, 2),
        cache_size(host, 3),
    ) {
        (Some(l1), _, _) if per <= l1 => Level::L1,
        (_, Some(l2), _) if per <= l2 => Level::L2,
        (_, _, Some(l3)) if total <= l3 => Level::L3,
        _ => Level::Dram,
    }
}

fn llc(host: &HostInfo) -> u64 {
    host.cpu
        .llc_bytes()
        .filter(|&b| b > 0)
        .unwrap_or(LLC_FALLBACK)
}

/// Default working set: 4× the LLC rounded up to a power of two, grown to fit the
/// largest block in every array of every thread.
pub(crate) fn default_size(
    host: &HostInfo,
    max_block: u64,
    max_arrays: usize,
    max_threads: usize,
) -> u64 {
    let base = llc(host).saturating_mul(4).next_power_of_two();
    // Saturating: `plan` refuses anything above `MAX_SIZE`, so a huge product is refused
    // there instead of wrapping here.
    let fit = max_block
        .saturating_mul(max_arrays as u64)
        .saturating_mul(max_threads as u64);
    base.max(fit.div_ceil(1 << 20).saturating_mul(1 << 20))
}

/// Working sets of `--sweep`: powers of two from 4 KiB to the first ≥ 4× LLC.
pub(crate) fn sweep_sizes(host: &HostInfo) -> Vec<u64> {
    let top = llc(host).saturating_mul(4).min(options::MAX_SIZE);
    let mut v = vec![4096u64];
    while *v.last().unwrap() < top {
        v.push(v.last().unwrap() * 2);
    }
    v
}

/// `--sweep quick`: one working set per cache level, the middle of that level's run of
/// [`sweep_sizes`] (as one thread sees it), so the staircase keeps its steps in a
/// fraction of the cases.
pub(crate) fn quick_sweep_sizes(host: &HostInfo) -> Vec<u64> {
    let all = sweep_sizes(host);
    let mut out = Vec::new();
    let mut i = 0;
    while i < all.len() {
        let level = level_of(host, all[i], 1);
        let run = all[i..]
            .iter()
            .take_while(|&&s| level_of(host, s, 1) == level)
            .count();
        out.push(all[i + run / 2]);
        i += run;
    }
    // DRAM: the largest size (4x LLC), the one the quick suite measures.
    if let (Some(last), Some(big)) = (out.last_mut(), all.last()) {
        if level_of(host, *big, 1) == Level::Dram {
            *last = *big;
        }
    }
    out
}

/// The `--peak` key `memory` (`None`) or `memory.l1|l2|l3|dram`: the one spelling of
/// the keys this resource looks up and accepts.
pub(crate) fn peak_key(level: Option<Level>) -> PeakKey {
    PeakKey::new(match level {
        None => "memory".to_string(),
        Some(l) => format!("memory.{}", l.name().to_ascii_lowercase()),
    })
}

/// The DRAM bandwidth peak: `--peak memory.dram=…`/`memory=…`, else SMBIOS type 17
/// (Σ populated DIMMs × MT/s × bus bytes), else unknown with the reason.
pub(crate) fn dram_peak(host: &HostInfo, overrides: &PeakOverrides) -> Peak {
    let keys = [peak_key(Some(Level::Dram)), peak_key(None)];
    if let Some(p) = overrides.peak(&keys) {
        return p;
    }
    let d = &host.memory.dimms;
    if d.is_empty() {
        return Peak::unknown(format!(
            "unknown: {}; supply it with --peak memory=…GB/s",
            host.memory.smbios
        ));
    }
    let value: f64 = d
        .iter()
        .map(|x| x.speed_mts as f64 * 1e6 * x.data_width_bits as f64 / 8.0)
        .sum();
    let mut speeds: Vec<u32> = d.iter().map(|x| x.speed_mts).collect();
    speeds.dedup();
    Peak {
        value: Some(value),
        source: format!(
            "{} DIMM{} x {} MT/s x {} B (SMBIOS type 17, configured speed; assumes one DIMM per channel)",
            d.len(),
            if d.len() == 1 { "" } else { "s" },
            speeds.iter().map(|s| s.to_string()).collect::<Vec<_>>().join("/"),
            d[0].data_width_bits / 8
        ),
    }
}

/// Peak for a level: DRAM from [`dram_peak`]; caches only from `--peak memory.l1=…`
/// (no table of cache bandwidths yet), otherwise none.
fn level_peak(level: Level, host: &HostInfo, overrides: &PeakOverrides) -> Option<Peak> {
    if level == Level::Dram {
        return Some(dram_peak(host, overrides));
    }
    overrides.peak(&[peak_key(Some(level))])
}

/// `256MiB`, `4KiB`, `8B`: a size `--size`/`--block` accept back, for case labels (the
/// results hold sizes as numbers of bytes).
pub(crate) fn size_param(bytes: u64) -> String {
    format_size(bytes).replace(' ', "")
}

/// Bytes each thread works on for a case of `total` bytes.
fn per_thread(total: u64, threads: usize, scaling: Scaling) -> u64 {
    match scaling {
        Scaling::Strong => total / threads as u64,
        Scaling::Weak => total,
    }
}

/// Bytes all threads together work on: `--size`, or `--size` per thread with `--weak`.
fn total(size: u64, threads: usize, scaling: Scaling) -> u64 {
    per_thread(size, threads, scaling).saturating_mul(threads as u64)
}

/// Bytes a plan maps at most: the biggest working set (times the threads with `--weak`)
/// plus 2 MiB of alignment per array and thread; `None` when that overflows 64 bits.
fn mapped_bytes(biggest: u64, threads: usize, arrays: usize, scaling: Scaling) -> Option<u64> {
    let sets = match scaling {
        Scaling::Strong => biggest,
        Scaling::Weak => biggest.checked_mul(threads as u64)?,
    };
    let pad = (2u64 << 20)
        .checked_mul(threads as u64)?
        .checked_mul(arrays as u64)?;
    sets.checked_add(pad)
}

/// One bandwidth case.
pub(crate) struct BwCase {
    kernel: &'static Kernel,
    nt_note: Option<String>,
    pattern: Pattern,
    block: Option<u64>,
    size: u64,
    threads: usize,
    count_wa: bool,
}

impl Case for BwCase {
    fn label(&self) -> String {
        format!(
            "memory {} {} size={} threads={}",
            self.kernel.name,
            self.pattern.name(),
            size_param(self.size),
            self.threads
        )
    }

    fn run(&self, ctx: &Context) -> Vec<BenchResult> {
        let r = self.result(ctx);
        match self.block.filter(|&b| b <= LATENCY_BLOCK_MAX) {
            Some(b) if r.is_ok() => {
                let lat = latency_row(&r, self.threads, self.bytes_per_block_op(b));
                vec![r, lat]
            }
            _ => vec![r],
        }
    }
}

/// Largest block whose case gets a latency row beside its throughput row: the
/// course's small accesses (1 B to one cache line).
pub(crate) const LATENCY_BLOCK_MAX: u64 = 64;

/// The latency row of a small-block bandwidth case, derived from the same samples as
/// its throughput row `tp`: the time one thread spends per block operation (a block
/// read, written, or read and written), `threads × bytes counted per block operation /
/// throughput`. Each sample maps to one latency sample, so the spread, the shares and
/// the disturbance are the throughput row's. Params are the throughput row's; the
/// metric is `latency` in `s`.
pub(crate) fn latency_row(tp: &BenchResult, threads: usize, bytes_per_op: f64) -> BenchResult {
    let per = |rate: f64| threads as f64 * bytes_per_op / rate;
    let mut r = BenchResult::new(
        Resource::Memory,
        &tp.workload,
        Metric::Latency,
        Unit::Second,
    );
    r.params = tp.params.clone();
    r.info(format!(
        "latency per access: time per {} block operation per thread = threads ({threads}) × bytes counted per block operation ({bytes_per_op} B) / throughput, from the throughput row's samples; accesses overlap, so this is the issue rate of one thread, not a load-to-use latency (the chase kernel measures that)",
        size_param(tp.param_u64("block").unwrap_or(0))
    ));
    for n in &tp.notes {
        if matches!(n.kind, NoteKind::Shared | NoteKind::Warning) {
            r.notes.push(n.clone());
        }
    }
    let mut r = r.with_samples(tp.samples.iter().map(|&v| per(v)).collect());
    r.share = tp.share.clone();
    r.disturbed = tp.disturbed;
    r.window = tp.window.clone();
    r.dropped = tp
        .dropped
        .iter()
        .map(|d| crate::report::model::Dropped {
            value: per(d.value),
            why: d.why.clone(),
        })
        .collect();
    r
}

impl BwCase {
    /// Bytes the throughput row counts for one block operation of `block` bytes: the
    /// kernel's bytes per element times the elements of a block, or for byte blocks
    /// one (read, write) or two (copy) bytes per byte, each with the write-allocate
    /// read when `--count-write-allocate` counts it.
    fn bytes_per_block_op(&self, block: u64) -> f64 {
        let op = self.kernel.op;
        if !block.is_multiple_of(8) {
            let per = match op {
                Op::Read | Op::Write => 1,
                _ => 2,
            } + u64::from(self.count_wa && op.stores());
            (block * per) as f64
        } else {
            (block / 8 * self.kernel.bytes_per_elem(self.count_wa)) as f64
        }
    }

    /// The result before it is measured, as the element and byte paths both start it:
    /// `workload`, the case's params with the kernel's `isa` and `nt` (non-temporal
    /// stores), and whether the bytes count the write-allocate read (`wa_counted`); and
    /// the level of the memory hierarchy the working set lands in.
    fn new_result(
        &self,
        ctx: &Context,
        workload: &str,
        isa: &str,
        nt: bool,
        wa_counted: bool,
    ) -> (BenchResult, Level) {
        let level = level_of(
            ctx.host,
            total(self.size, self.threads, ctx.opts.scaling),
            self.threads,
        );
        let r = BenchResult::new(
            Resource::Memory,
            workload,
            Metric::Throughput,
            Unit::BytePerSec,
        )
        .param("kernel", self.kernel.op.name())
        .param("pattern", self.pattern.name())
        .size("size", self.size)
        .param("threads", self.threads)
        .param("isa", isa)
        .param("nt", nt)
        .param("level", level.name())
        .param(
            "bytes",
            if wa_counted {
                "stream+write-allocate"
            } else {
                "stream"
            },
        );
        (r, level)
    }

    /// The case's one result.
    fn result(&self, ctx: &Context) -> BenchResult {
        if let Some(b) = self.block.filter(|b| b % 8 != 0) {
            return self.byte_result(ctx, b);
        }
        let k = self.kernel;
        let (mut r, level) =
            self.new_result(ctx, k.name, k.isa.name(), k.nt, self.count_wa && !k.nt);
        let per = per_thread(self.size, self.threads, ctx.opts.scaling);
        let geo = match Geometry::new(per, k.op.arrays(), self.block) {
            Ok(g) => g,
            Err(e) => {
                // No block was given (whole arrays): there is no block size to record.
                if let Some(b) = self.block {
                    r = r.size("block", b);
                }
                return r.skipped(e);
            }
        };
        r = r.size("block", geo.block_elems as u64 * 8);
        r.info(byte_note(k, self.count_wa));
        if let Some(n) = &self.nt_note {
            r.info(n.clone());
        }
        let cfg = run_config(ctx, self.threads, &mut r.notes);
        let errors = Mutex::new(Vec::new());
        let setup = PassSetup::new(self.pattern, self.count_wa, Pages::Huge, &errors);
        measure_passes(r, ctx, &cfg, level, &errors, || BwWork::new(k, geo, setup))
    }

    /// The result of a bandwidth case whose block is not a multiple of 8 B: measured
    /// with [`bytes::ByteWork`] for read, write and copy, `skipped` with the reason for
    /// the others.
    fn byte_result(&self, ctx: &Context, block: u64) -> BenchResult {
        let op = self.kernel.op;
        let (r, level) = self.new_result(
            ctx,
            &format!("{}_bytes", op.name()),
            "generic",
            false,
            self.count_wa && op.stores(),
        );
        let mut r = r.size("block", block);
        if let Err(why) = bytes::supported(op) {
            return r.skipped(why);
        }
        let per = per_thread(self.size, self.threads, ctx.opts.scaling);
        let geo = match bytes::ByteGeometry::new(per, op.arrays(), block) {
            Ok(g) => g,
            Err(e) => return r.skipped(e),
        };
        r.info(bytes::note(op, block, &geo, self.count_wa));
        let cfg = run_config(ctx, self.threads, &mut r.notes);
        let errors = Mutex::new(Vec::new());
        let setup = PassSetup::new(self.pattern, self.count_wa, Pages::Huge, &errors);
        measure_passes(r, ctx, &cfg, level, &errors, || {
            bytes::ByteWork::new(op, geo, setup)
        })
    }
}

/// Runs a bandwidth case of whole passes (the element kernels and the byte blocks):
/// `new` makes a thread's workload on that thread (reporting failed checks to
/// `errors`), thread 0's pages are noted, and `r` gets the samples' rates and the
/// level's peak.
fn measure_passes<'a, W: bandwidth::Passes<'a> + crate::measure::runner::Workload>(
    r: BenchResult,
    ctx: &Context,
    cfg: &RunConfig,
    level: Level,
    errors: &'a Mutex<Vec<String>>,
    new: impl Fn() -> Result<W, String> + Sync,
) -> BenchResult {
    let pages_seen = Mutex::new(None);
    let make = |t: crate::measure::runner::ThreadCtx| {
        let mut w = new()?;
        if t.index == 0 {
            let region = &w.run_state().region;
            *pages_seen.lock().unwrap() = Some((region.huge_bytes(), region.len() as u64));
        }
        Ok(w)
    };
    let samples = Runner::run(cfg, make, &|_, _| {});
    let stable = cfg.stable.is_some();
    finish(r, samples, stable, errors, &pages_seen, |s| s.rate()).with_peak_opt(level_peak(
        level,
        ctx.host,
        &ctx.opts.peaks,
    ))
}

fn byte_note(k: &Kernel, count_wa: bool) -> String {
    let per = k.bytes_per_elem(count_wa);
    let what = if k.nt {
        "non-temporal stores, so no write-allocate traffic occurs"
    } else if count_wa {
        "plus the write-allocate read of each stored line (--count-write-allocate)"
    } else {
        "write-allocate traffic not counted (STREAM convention)"
    };
    format!(
        "bytes: {per} B per 8-byte element ({} read + {} written), {what}",
        k.read_bytes, k.write_bytes
    )
}

/// Turns runner output into the result: failures, verification errors, page note.
fn finish(
    mut r: BenchResult,
    samples: Result<Vec<Sample>, crate::measure::runner::RunError>,
    stable: bool,
    errors: &Mutex<Vec<String>>,
    pages_seen: &Mutex<Option<(Option<u64>, u64)>>,
    value: impl Fn(&Sample) -> f64,
) -> BenchResult {
    let samples = match samples {
        Ok(s) => s,
        Err(e) => return r.failed(e.to_string()),
    };
    if let Some(e) = errors.lock().unwrap().first() {
        return r.failed(format!("wrong result: {e}"));
    }
    if let Some((huge, len)) = *pages_seen.lock().unwrap() {
        r.info(region::pages_note(Pages::Huge, huge, len));
    }
    r.with_runner_samples(samples, stable, value)
}

trait WithPeakOpt {
    fn with_peak_opt(self, p: Option<Peak>) -> Self;
}

impl WithPeakOpt for BenchResult {
    fn with_peak_opt(self, p: Option<Peak>) -> Self {
        match p {
            Some(p) if self.is_ok() => self.with_peak(p),
            _ => self,
        }
    }
}

/// One latency case: every thread chases its own cycle; the figure is seconds per load
/// as each thread sees it.
pub(crate) struct ChaseCase {
    size: u64,
    threads: usize,
}

impl Case for ChaseCase {
    fn label(&self) -> String {
        format!(
            "memory chase size={} threads={}",
            size_param(self.size),
            self.threads
        )
    }

    fn run(&self, ctx: &Context) -> Vec<BenchResult> {
        vec![self.result(ctx)]
    }
}

impl ChaseCase {
    /// The case's one result.
    fn result(&self, ctx: &Context) -> BenchResult {
        let level = level_of(
            ctx.host,
            total(self.size, self.threads, ctx.opts.scaling),
            self.threads,
        );
        let mut r = BenchResult::new(Resource::Memory, "chase", Metric::Latency, Unit::Second)
            .param("kernel", "chase")
            .param("pattern", "rand")
            .size("block", chase::NODE as u64)
            .size("size", self.size)
            .param("threads", self.threads)
            .param("level", level.name());
        let per = per_thread(self.size, self.threads, ctx.opts.scaling);
        if per < 2 * chase::NODE as u64 {
            return r.skipped(format!(
                "working set too small: {per} B per thread, a chase needs at least 2 lines"
            ));
        }
        r.info(format!(
            "latency: dependent loads over one random cycle (Sattolo) of {} cache lines of {} B per thread; hardware prefetchers stay enabled but cannot predict the order",
            per / chase::NODE as u64,
            chase::NODE
        ));
        let cfg = run_config(ctx, self.threads, &mut r.notes);
        let errors = Mutex::new(Vec::new());
        let pages_seen = Mutex::new(None);
        let make = |t: crate::measure::runner::ThreadCtx| {
            let w = ChaseWork::new(per, Pages::Huge, 0x5eed + t.index as u64)?;
            if t.index == 0 {
                *pages_seen.lock().unwrap() =
                    Some((w.region().huge_bytes(), w.region().len() as u64));
            }
            Ok(w)
        };
        // The canary on the workers' CPUs around every sample (issue #31).
        let watch = crate::hw::canary::Watch::new(&cfg.cpus);
        watch.read();
        let samples = Runner::run(&cfg, make, &|_, _| watch.read()).map(|mut s| {
            watch.attach(&mut s);
            s
        });
        let threads = self.threads as f64;
        finish(
            r,
            samples,
            cfg.stable.is_some(),
            &errors,
            &pages_seen,
            |s| s.secs * threads / s.work,
        )
    }
}

/// The kernel for `op` under `--nt` at working set `size`, with a note when the wish
/// for non-temporal stores could not be met.
fn choose(op: Op, nt: Nt, size: u64, host: &HostInfo) -> (&'static Kernel, Option<String>) {
    let want = match nt {
        Nt::On => true,
        Nt::Off => false,
        Nt::Auto => size > llc(host),
    };
    let (k, met) = kernels::best(op, want, &host.cpu.features)
        .expect("generic kernels exist for every operation");
    let note = (!met).then(|| {
        format!(
            "non-temporal stores requested but no {} kernel has them; ordinary stores used",
            k.isa.name()
        )
    });
    (k, note)
}

impl Plan for MemoryBench {
    type Options = MemoryOptions;

    fn refuses(&self, _o: &MemoryOptions, _flag: CommonFlag) -> Option<&'static str> {
        None
    }

    fn threads<'a>(&self, o: &'a MemoryOptions) -> Option<&'a [usize]> {
        o.threads.as_deref()
    }

    fn plan(&self, o: &MemoryOptions, ctx: &Context) -> Result<Vec<Box<dyn Case>>, UsageError> {
        let host = ctx.host;
        let kinds = o.kernels.clone().unwrap_or_else(Kind::all);
        let threads = o
            .threads
            .clone()
            .unwrap_or_else(|| crate::bench::common::default_threads(host.cpu.cores));
        let max_threads = *threads.iter().max().unwrap_or(&1);
        let max_arrays = kinds
            .iter()
            .map(|k| match k {
                Kind::Bw(op) => op.arrays(),
                Kind::Chase => 1,
            })
            .max()
            .unwrap_or(1);
        let max_block = o.blocks.as_ref().and_then(|b| b.iter().max().copied());
        let sizes = if o.sweep_quick {
            quick_sweep_sizes(host)
        } else if o.sweep {
            sweep_sizes(host)
        } else {
            vec![o.size.unwrap_or_else(|| {
                default_size(host, max_block.unwrap_or(0), max_arrays, max_threads)
            })]
        };
        // Refuse up front what would not fit in memory (an OOM kill measures nothing).
        let biggest = *sizes.iter().max().unwrap_or(&0);
        let need = mapped_bytes(biggest, max_threads, max_arrays, ctx.opts.scaling)
            .filter(|&n| n <= options::MAX_SIZE)
            .ok_or_else(|| {
                // Without --size the default grew to fit --block, so name that flag.
                let flag = if o.size.is_none() && o.blocks.is_some() { "--block" } else { "--size" };
                UsageError::new(flag, format!(
                    "a working set of {} with {max_threads} thread{}{} needs more than the limit of {} (all threads and arrays together); use a smaller {flag}{}",
                    format_size(biggest),
                    if max_threads == 1 { "" } else { "s" },
                    if ctx.opts.scaling == Scaling::Weak { " (--weak: per thread)" } else { "" },
                    format_size(options::MAX_SIZE),
                    if max_threads == 1 { "" } else { " or fewer --threads" }
                ))
            })?;
        // The RAM check first: it names the real limit of a machine (the chase's own
        // limit lies far above any RAM this check accepts).
        let avail = host.memory.available_bytes;
        if ram_refuses(need, avail) {
            return Err(UsageError::new(
                "--size",
                format!(
                    "the working set needs {} but only {} is available ({} of MemAvailable {}); use a smaller --size",
                    format_size(need),
                    format_size(ram_room(avail)),
                    (RAM_FRACTION * 100.0).round(),
                    format_size(avail)
                ),
            ));
        }
        if kinds.contains(&Kind::Chase) {
            let per = sizes
                .iter()
                .flat_map(|&s| threads.iter().map(move |&t| (s, t)))
                .map(|(s, t)| per_thread(s, t, ctx.opts.scaling))
                .max()
                .unwrap_or(0);
            if per > chase::MAX_BYTES {
                return Err(UsageError::new("--size", format!(
                    "the chase kernel links at most {} per thread ({} nodes of {} B) but this run gives a thread {}; use a smaller --size or more --threads",
                    format_size(chase::MAX_BYTES),
                    u32::MAX,
                    chase::NODE,
                    format_size(per)
                )));
            }
        }
        let mut cases: Vec<Box<dyn Case>> = Vec::new();
        for kind in &kinds {
            for &size in &sizes {
                for &t in &threads {
                    match *kind {
                        Kind::Chase => cases.push(Box::new(ChaseCase { size, threads: t })),
                        Kind::Bw(op) => {
                            let ws = total(size, t, ctx.opts.scaling);
                            let (kernel, nt_note) = choose(op, o.nt, ws, host);
                            for &pattern in &o.patterns {
                                let blocks: Vec<Option<u64>> = match (&o.blocks, pattern) {
                                    (Some(b), _) => b.iter().map(|&b| Some(b)).collect(),
                                    (None, Pattern::Seq) => vec![None],
                                    (None, Pattern::Rand) => vec![Some(RAND_BLOCK)],
                                };
                                for block in blocks {
                                    let per = per_thread(size, t, ctx.opts.scaling);
                                    let fits = match block {
                                        Some(b) if b % 8 != 0 => {
                                            bytes::ByteGeometry::new(per, op.arrays(), b)
                                                .map(|_| ())
                                        }
                                        _ => Geometry::new(per, op.arrays(), block).map(|_| ()),
                                    };
                                    if !o.sweep {
                                        if let Err(e) = fits {
                                            return Err(UsageError::new(
                                                "--block",
                                                format!(
                                                    "{e} with --size {} and {t} thread{}; lower --block or raise --size",
                                                    format_size(size),
                                                    if t == 1 { "" } else { "s" }
                                                ),
                                            ));
                                        }
                                    }
                                    cases.push(Box::new(BwCase {
                                        kernel,
                                        nt_note: nt_note.clone(),
                                        pattern,
                                        block,
                                        size,
                                        threads: t,
                                        count_wa: o.count_write_allocate,
                                    }));
                                }
                            }
                        }
                    }
                }
            }
        }
        Ok(cases)
    }
}

impl resource::Resource for MemoryBench {
    fn name(&self) -> &'static str {
        "memory"
    }

    fn about(&self) -> &'static str {
        "Memory bandwidth (read, write, copy, scale, add, triad) and latency, L1 to DRAM"
    }

    fn command(&self) -> clap::Command {
        resource::subcommand::<options::MemoryOptions>(self)
    }

    fn parse(&self, m: &clap::ArgMatches) -> Result<Box<dyn Run>, UsageError> {
        resource::parse_with(&MemoryBench, m, options::parse)
    }

    fn peak_keys(&self) -> &'static str {
        "memory, memory.l1|l2|l3|dram"
    }

    fn peak_key(&self, _key: &str, rest: &[&str]) -> Result<Option<(PeakKey, PeakKind)>, String> {
        Ok(match rest {
            [] => Some((peak_key(None), PeakKind::Bytes)),
            [l] => Level::ALL
                .into_iter()
                .find(|x| x.name().eq_ignore_ascii_case(l))
                .map(|x| (peak_key(Some(x)), PeakKind::Bytes)),
            _ => None,
        })
    }

    fn quick(&self, ctx: &Context) -> Vec<Box<dyn Case>> {
        let host = ctx.host;
        let size = default_size(host, 0, 3, 1);
        let cores = host.cpu.cores.max(1);
        let mut threads = vec![1];
        if cores > 1 {
            threads.push(cores);
        }
        let mut cases: Vec<Box<dyn Case>> = Vec::new();
        for op in [Op::Read, Op::Copy, Op::Triad] {
            let (kernel, nt_note) = choose(op, Nt::Auto, size, host);
            for &t in &threads {
                cases.push(Box::new(BwCase {
                    kernel,
                    nt_note: nt_note.clone(),
                    pattern: Pattern::Seq,
                    block: None,
                    size,
                    threads: t,
                    count_wa: false,
                }));
            }
        }
        cases.push(Box::new(ChaseCase { size, threads: 1 }));
        cases
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hw::cpu::Cache;

    fn host() -> HostInfo {
        let mut h = HostInfo::detect(false);
        h.cpu.caches = vec![
            Cache {
                level: 1,
                kind: "Data".into(),
                size_bytes: 32 << 10,
                shared_by: 1,
            },
            Cache {
                level: 2,
                kind: "Unified".into(),
                size_bytes: 1 << 20,
                shared_by: 1,
            },
            Cache {
                level: 3,
                kind: "Unified".into(),
                size_bytes: 35 << 20,
                shared_by: 2,
            },
        ];
        h
    }

    #[test]
    fn levels_and_sizes_follow_the_caches() {
        let h = host();
        assert_eq!(level_of(&h, 16 << 10, 1), Level::L1);
        assert_eq!(level_of(&h, 64 << 10, 2), Level::L1);
        assert_eq!(level_of(&h, 64 << 10, 1), Level::L2);
        assert_eq!(level_of(&h, 8 << 20, 1), Level::L3);
        assert_eq!(level_of(&h, 256 << 20, 2), Level::Dram);
        assert_eq!(default_size(&h, 0, 3, 2), 256 << 20);
        assert_eq!(default_size(&h, 80 << 20, 3, 2), 480 << 20);
        let s = sweep_sizes(&h);
        assert_eq!(s.first(), Some(&4096));
        assert_eq!(s.last(), Some(&(256 << 20)));
        assert_eq!(size_param(256 << 20), "256MiB");
        // --sweep quick: one size inside each level, DRAM at 4x LLC.
        assert_eq!(
            quick_sweep_sizes(&h),
            [16 << 10, 256 << 10, 8 << 20, 256 << 20]
        );
    }

    #[test]
    fn dram_peak_sources() {
        let mut h = host();
        h.memory.dimms.clear();
        h.memory.smbios = "SMBIOS unreadable (test)".into();
        let p = dram_peak(&h, &PeakOverrides::default());
        assert_eq!(p.value, None);
        assert!(p.source.starts_with("unknown: SMBIOS unreadable (test)"));
        assert!(p.source.contains("--peak memory="));
        let mut o = PeakOverrides::default();
        o.insert(peak_key(None), 68e9);
        let p = dram_peak(&h, &o);
        assert_eq!(p.value, Some(68e9));
        assert!(p.source.starts_with("user"));
        h.memory.dimms = vec![
            crate::hw::memory::Dimm {
                locator: "A1".into(),
                size_bytes: 16 << 30,
                speed_mts: 2933,
                data_width_bits: 64,
            };
            6
        ];
        let p = dram_peak(&h, &PeakOverrides::default());
        // 6 channels x 2933 MT/s x 8 B = 140.784 GB/s
        assert_eq!(p.value, Some(6.0 * 2933e6 * 8.0));
        assert!(
            p.source.contains("6 DIMMs x 2933 MT/s x 8 B"),
            "{}",
            p.source
        );
    }

    #[test]
    fn nt_auto_follows_the_llc() {
        let h = host();
        let (small, _) = choose(Op::Copy, Nt::Auto, 1 << 20, &h);
        assert!(!small.nt);
        let (big, note) = choose(Op::Copy, Nt::Auto, 1 << 30, &h);
        assert_eq!(big.nt, note.is_none());
        let (read, note) = choose(Op::Read, Nt::On, 1 << 30, &h);
        assert!(
            !read.nt && note.is_none(),
            "read has no stores: nothing to regret"
        );
    }
}
