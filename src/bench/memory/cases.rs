//! The memory benchmark's cases: a bandwidth case ([`BwCase`]: whole `f64` elements or
//! byte blocks, with a latency row beside a small block's throughput row) and a
//! latency case ([`ChaseCase`]: the pointer chase), each measured on pinned threads and
//! turned into its result (failures, verification errors, the pages granted, the
//! level's peak). `mod.rs` plans them.

use super::bandwidth::{self, BwWork, Geometry, PassSetup};
use super::bytes;
use super::chase::{self, ChaseWork};
use super::kernels::{Kernel, Op};
use super::level::Level;
use super::options::Pattern;
use super::placement::Placement;
use super::region::{self, Pages};
use super::sizes::{latency_peak, level_of, level_peak, peak_key, per_thread, size_param, total};
use crate::bench::common::run_config;
use crate::bench::resource::{Case, Context};
use crate::hw::peak::Peak;
use crate::measure::{RunConfig, Runner, Sample};
use crate::report::model::{BenchResult, Metric, NoteKind, ResourceName, Unit};
use std::sync::Mutex;

/// One bandwidth case.
pub(crate) struct BwCase {
    pub(super) kernel: &'static Kernel,
    pub(super) nt_note: Option<String>,
    pub(super) pattern: Pattern,
    pub(super) block: Option<u64>,
    pub(super) size: u64,
    pub(super) threads: usize,
    pub(super) count_wa: bool,
    /// Where the threads and the memory go (`--cpu-node`, `--mem-node`, `--matrix`).
    pub(super) place: Placement,
}

impl Case for BwCase {
    fn label(&self) -> String {
        format!(
            "memory {} {} size={} threads={}{}",
            self.kernel.name,
            self.pattern.name(),
            size_param(self.size),
            self.threads,
            self.place.label()
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
        ResourceName::Memory,
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
            ResourceName::Memory,
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
        .param("level", level.name());
        let r = self.place.params(r).param(
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
        let cfg = placed_config(ctx, self.threads, &self.place, &mut r.notes);
        let errors = Mutex::new(Vec::new());
        let setup = PassSetup::new(self.pattern, self.count_wa, Pages::Huge, &errors);
        measure_passes(r, ctx, &cfg, level, &errors, &self.place, || {
            BwWork::new(k, geo, setup)
        })
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
        let cfg = placed_config(ctx, self.threads, &self.place, &mut r.notes);
        let errors = Mutex::new(Vec::new());
        let setup = PassSetup::new(self.pattern, self.count_wa, Pages::Huge, &errors);
        measure_passes(r, ctx, &cfg, level, &errors, &self.place, || {
            bytes::ByteWork::new(op, geo, setup)
        })
    }
}

/// The run configuration of a case ([`run_config`]) with its threads pinned to the
/// CPU node's CPUs when it has one.
fn placed_config(
    ctx: &Context,
    threads: usize,
    place: &Placement,
    notes: &mut Vec<crate::report::model::Note>,
) -> RunConfig {
    let mut cfg = run_config(ctx, threads, notes);
    if let Some(cpus) = place.cpus_for(threads) {
        cfg.cpus = cpus;
    }
    cfg
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
    place: &Placement,
    new: impl Fn() -> Result<W, String> + Sync,
) -> BenchResult {
    let pages_seen = Mutex::new(None);
    let nodes_seen = Mutex::new(None);
    let make = |t: crate::measure::runner::ThreadCtx| {
        place.apply()?;
        let mut w = new()?;
        let region = &w.run_state().region;
        place.placed(t.index, region.as_ptr(), region.len(), &nodes_seen);
        if t.index == 0 {
            *pages_seen.lock().unwrap() = Some((region.huge_bytes(), region.len() as u64));
        }
        Ok(w)
    };
    let samples = Runner::run(cfg, make, &|_, _| {});
    let stable = cfg.stable.is_some();
    let mut r = r;
    place.note(&mut r, &nodes_seen);
    // DRAM on one node (--mem-node, the matrix's columns): that node's share of the
    // DIMMs where known, unless --peak names the memory peak (#47).
    let peak = if level == Level::Dram
        && ctx
            .opts
            .peaks
            .peak(&[peak_key(Some(level)), peak_key(None)])
            .is_none()
    {
        place.node_peak(ctx.host)
    } else {
        None
    };
    finish(r, samples, stable, errors, &pages_seen, |s| s.rate())
        .with_peak_opt(peak.or_else(|| level_peak(level, ctx.host, &ctx.opts.peaks)))
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
    pub(super) size: u64,
    pub(super) threads: usize,
    /// Where the threads and the memory go (`--cpu-node`, `--mem-node`, `--matrix`).
    pub(super) place: Placement,
}

impl Case for ChaseCase {
    fn label(&self) -> String {
        format!(
            "memory chase size={} threads={}{}",
            size_param(self.size),
            self.threads,
            self.place.label()
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
        let r = BenchResult::new(ResourceName::Memory, "chase", Metric::Latency, Unit::Second)
            .param("kernel", "chase")
            .param("pattern", "rand")
            .size("block", chase::NODE as u64)
            .size("size", self.size)
            .param("threads", self.threads)
            .param("level", level.name());
        let mut r = self.place.params(r);
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
        let cfg = placed_config(ctx, self.threads, &self.place, &mut r.notes);
        let errors = Mutex::new(Vec::new());
        let pages_seen = Mutex::new(None);
        let nodes_seen = Mutex::new(None);
        let make = |t: crate::measure::runner::ThreadCtx| {
            self.place.apply()?;
            let w = ChaseWork::new(per, Pages::Huge, 0x5eed + t.index as u64)?;
            let region = w.region();
            self.place
                .placed(t.index, region.as_ptr(), region.len(), &nodes_seen);
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
        self.place.note(&mut r, &nodes_seen);
        finish(
            r,
            samples,
            cfg.stable.is_some(),
            &errors,
            &pages_seen,
            |s| s.secs * threads / s.work,
        )
        .with_peak_opt(Some(latency_peak(
            level,
            per,
            self.threads,
            ctx.host,
            &ctx.opts.peaks,
        )))
    }
}
