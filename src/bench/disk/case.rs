//! One measured disk configuration → three results: `throughput` (B/s), `iops` (IO/s)
//! and `latency` (s, with p50/p90/p99/p99.9/max from the HDR histogram).
//!
//! The three results come from the same I/O run: one [`DiskCase`] per configuration
//! runs the jobs once and returns all three.
//!
//! Samples are the measured windows (`--repeat` windows of `--runtime` after one
//! `--ramp`, or 1 s windows with `--sustain`); the throughput result also carries the
//! per-second time series.

use super::data::Gens;
use super::engine::{Buffers, Caps};
use super::job::{self, JobSpec, JobStats, Verify, Window};
use super::options::Pattern;
use super::plan::RunPlan;
use crate::bench::peaks::PeakKey;
use crate::bench::resource::{Case, Context};
use crate::hw::peak::Peak;
use crate::measure::Percentiles;
use crate::report::model::{BenchResult, Metric, Note, NoteKind, ResourceName, Unit};
use crate::util::units::{format_si, format_size_exact};
use std::os::fd::AsRawFd;
use std::sync::{Arc, Barrier};

/// The two disk peaks a `disk.…` key names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DiskPeak {
    /// `disk.throughput`.
    Throughput,
    /// `disk.iops`.
    Iops,
}

/// The `--peak` key `disk` (`None`), `disk.throughput` or `disk.iops`: the one spelling
/// of the keys this resource looks up and accepts.
pub(crate) fn peak_key(which: Option<DiskPeak>) -> PeakKey {
    PeakKey::new(match which {
        None => "disk",
        Some(DiskPeak::Throughput) => "disk.throughput",
        Some(DiskPeak::Iops) => "disk.iops",
    })
}

/// One configuration of the run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Config {
    /// Access pattern.
    pub pattern: Pattern,
    /// Bytes per I/O.
    pub block: u64,
    /// I/Os in flight per job.
    pub depth: u32,
    /// Jobs.
    pub jobs: u32,
}

/// A case that only reports why the resource could not run (quick suite).
pub(crate) struct Skipped(pub String);

impl Case for Skipped {
    fn label(&self) -> String {
        "disk".into()
    }
    fn run(&self, _ctx: &Context) -> Vec<BenchResult> {
        vec![BenchResult::new(
            ResourceName::Disk,
            "all",
            Metric::Throughput,
            Unit::BytePerSec,
        )
        .skipped(self.0.clone())]
    }

    fn estimate(&self, _opts: &crate::bench::common::CommonOptions) -> std::time::Duration {
        std::time::Duration::ZERO
    }
}

/// One configuration: one I/O run, three results.
pub(crate) struct DiskCase {
    /// The run's plan (workspace, engine, verify generations), shared by its cases.
    plan: Arc<RunPlan>,
    cfg: Config,
}

/// One case per configuration, every one on the same plan.
pub(crate) fn cases(plan: &Arc<RunPlan>, cfgs: &[Config]) -> Vec<Box<dyn Case>> {
    cfgs.iter()
        .map(|&cfg| {
            Box::new(DiskCase {
                plan: plan.clone(),
                cfg,
            }) as Box<dyn Case>
        })
        .collect()
}

const METRICS: [(Metric, Unit); 3] = [
    (Metric::Throughput, Unit::BytePerSec),
    (Metric::Iops, Unit::IoPerSec),
    (Metric::Latency, Unit::Second),
];

impl Case for DiskCase {
    fn label(&self) -> String {
        let c = &self.cfg;
        format!(
            "disk {} bs={} depth={} jobs={}",
            c.pattern.name(),
            format_size_exact(c.block),
            c.depth,
            c.jobs,
        )
    }

    fn run(&self, ctx: &Context) -> Vec<BenchResult> {
        measure(&self.plan, self.cfg, ctx)
    }

    /// The ramp and the measured windows (filling the files is not counted).
    fn estimate(&self, _opts: &crate::bench::common::CommonOptions) -> std::time::Duration {
        self.plan.ramp + self.plan.window * self.plan.windows as u32
    }
}

/// A result with the configuration's params.
fn base(plan: &RunPlan, c: Config, part: usize) -> BenchResult {
    let (metric, unit) = METRICS[part];
    let mut r = BenchResult::new(ResourceName::Disk, &c.pattern.name(), metric, unit)
        .param("pattern", c.pattern.name())
        .size("block", c.block)
        .param("depth", c.depth)
        .param("jobs", c.jobs)
        .param("engine", plan.engine.name())
        .param("direct", !plan.opts.buffered)
        .size("file_size", plan.ws.file_size);
    // Only shared-file rows carry it, so the others match earlier files.
    if plan.opts.shared_file {
        r = r.param("shared_file", true);
    }
    if let Some(d) = &plan.device {
        r = r.param("device", d.name.clone());
    }
    if let Some(t) = plan
        .opts
        .distribution
        .zipf_theta
        .filter(|_| c.pattern.random())
    {
        r = r.param("distribution", format!("zipf:{t}"));
    }
    // `--ss` (with --sustain): what fio's --ss, --ss_dur, --ss_ramp and --runtime get.
    let st = &plan.opts.steady;
    if let (Some(crit), Some(sustain)) = (st.ss, plan.opts.sustain) {
        r = r
            .param("ss", crit.text())
            .param("ss_dur", st.dur())
            .param("ss_ramp", st.ramp())
            .param("sustain", sustain.as_secs());
    }
    if let Some(n) = plan.opts.rate.rate_iops {
        r = r.param("rate_iops", u64::from(n));
    }
    // Durability, on the rows that write (only when set, so the others keep their params).
    if c.pattern.writes() {
        for (k, v) in plan.opts.durability.durability().params() {
            r = r.param(k, v);
        }
    }
    r
}

fn all_three(
    plan: &RunPlan,
    c: Config,
    f: impl Fn(BenchResult) -> BenchResult,
) -> Vec<BenchResult> {
    (0..3).map(|p| f(base(plan, c, p))).collect()
}

/// Runs the jobs of one configuration and builds its three results.
fn measure(plan: &RunPlan, c: Config, ctx: &Context) -> Vec<BenchResult> {
    let caps = plan.engine.caps();
    if c.depth > 1 && caps.has(Caps::SYNC) {
        let why = format!(
            "the {} engine keeps one I/O in flight; depth {} needs io_uring",
            plan.engine.name(),
            c.depth
        );
        return all_three(plan, c, |r| r.skipped(why.clone()));
    }
    let direct = !plan.opts.buffered;
    let jobs = c.jobs as usize;
    let files = if plan.opts.shared_file { 1 } else { jobs };
    if let Err(e) = plan.ws.ensure_files(files, direct, plan.seed) {
        let msg = format!("preparing the test files: {e}");
        return all_three(plan, c, |r| r.failed(msg.clone()));
    }
    let regions = match regions(plan, c) {
        Ok(r) => r,
        Err(why) => return all_three(plan, c, |r| r.skipped(why.clone())),
    };
    // --verify: take this case's generation and the files' expected generations.
    let mut gens: Option<Vec<Gens>> = None;
    let mut gen = 0u16;
    if let Some(v) = &plan.verify {
        let mut g = v.lock().unwrap_or_else(|e| e.into_inner());
        while g.0.len() < jobs {
            g.0.push(Gens::new(plan.ws.file_size, plan.unit));
        }
        if c.pattern.writes() {
            g.1 = g.1.wrapping_add(1).max(1);
        }
        gen = g.1;
        gens = Some(g.0[..jobs].to_vec());
    }
    let barrier = Barrier::new(jobs);
    // `--ss`: the stop rule the jobs share (only with --sustain, checked by parse).
    let steady = super::steady::Steady::new(&plan.opts.steady, jobs, plan.windows, plan.window);
    let stop = &plan.ws.shared.stop;
    let outcomes: Vec<(std::io::Result<JobStats>, Option<Gens>)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..jobs)
            .map(|j| {
                let barrier = &barrier;
                let steady = &steady;
                let mut g = gens.as_ref().map(|v| v[j].clone());
                let (path, base, size) = regions[j].clone();
                s.spawn(move || {
                    let _busy = plan.ws.shared.busy();
                    let spec = JobSpec {
                        engine: plan.engine,
                        path: &path,
                        base,
                        size,
                        file_id: j as u32,
                        pattern: c.pattern,
                        block: c.block,
                        depth: c.depth as usize,
                        direct,
                        ramp: plan.ramp,
                        window: plan.window,
                        windows: plan.windows,
                        io_limit: plan.io_limit,
                        seed: plan.seed,
                        rng_seed: plan.seed.rotate_left(j as u32 * 7 + 1) ^ (j as u64 + 1),
                        stop,
                        durability: plan.opts.durability.durability(),
                        rate_iops: plan.opts.rate.rate_iops,
                        zipf_theta: plan.opts.distribution.zipf_theta,
                        steady: steady.as_ref().map(|s| (s, j)),
                    };
                    let verify = g.as_mut().map(|gens| Verify {
                        gens,
                        gen,
                        check_reads: !c.pattern.writes(),
                    });
                    // A job that fails before the barrier must still release the others.
                    let released = std::cell::Cell::new(false);
                    let ready = || {
                        released.set(true);
                        barrier.wait();
                    };
                    let r = job::run(&spec, verify, &ready);
                    if !released.get() {
                        barrier.wait();
                    }
                    (r, g)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| (Err(std::io::Error::other("job thread panicked")), None))
            })
            .collect()
    });
    let mut stats = Vec::with_capacity(jobs);
    let mut new_gens = Vec::with_capacity(jobs);
    for (r, g) in outcomes {
        match r {
            Ok(s) => stats.push(s),
            Err(e) => {
                let msg = format!("I/O error: {e}");
                return all_three(plan, c, |r| r.failed(msg.clone()));
            }
        }
        new_gens.push(g);
    }
    if stats.iter().any(|s| s.interrupted) {
        return all_three(plan, c, |r| r.failed("interrupted"));
    }
    // --verify: reads must have returned what was written; writes are read back.
    if let Some(v) = &plan.verify {
        if let Some(off) = stats.iter().find_map(|s| s.bad_read) {
            let msg =
                format!("verify: a read at byte {off} returned data that was never written there");
            return all_three(plan, c, |r| r.failed(msg.clone()));
        }
        let mut g = v.lock().unwrap_or_else(|e| e.into_inner());
        for (j, ng) in new_gens.into_iter().enumerate() {
            if let Some(ng) = ng {
                g.0[j] = ng;
            }
        }
        if c.pattern.writes() {
            for j in 0..jobs {
                if let Err(e) = read_back(plan, j, &g.0[j], direct) {
                    let msg = format!("verify: {e}");
                    return all_three(plan, c, |r| r.failed(msg.clone()));
                }
            }
        }
    }
    let outcome = steady.as_ref().map(|s| s.outcome());
    results(plan, c, ctx, &stats, outcome)
}

/// Where each job of configuration `c` does its I/O: (file, first byte, bytes). One
/// file per job, whole; with `--shared-file`, one file shared by every job, each an
/// equal contiguous part of it rounded down to whole blocks (fio's shared `filename`
/// with `offset_increment`), so 1..N jobs split the same bytes (strong scaling).
/// `Err`: the file is too small to give every job a block (two for `copy`).
pub(crate) fn regions(
    plan: &RunPlan,
    c: Config,
) -> Result<Vec<(std::path::PathBuf, u64, u64)>, String> {
    let jobs = u64::from(c.jobs.max(1));
    if !plan.opts.shared_file {
        return Ok((0..c.jobs as usize)
            .map(|j| {
                let (path, base) = plan.ws.target(j);
                (path, base, plan.ws.file_size)
            })
            .collect());
    }
    let part = plan.ws.file_size / jobs;
    let part = part - part % c.block;
    let least = if c.pattern == Pattern::Copy { 2 } else { 1 } * c.block;
    if part < least {
        return Err(format!(
            "--shared-file: {} split among {jobs} jobs leaves less than {} of {} blocks per job; use a larger --file-size or fewer --jobs",
            format_size_exact(plan.ws.file_size),
            least / c.block,
            format_size_exact(c.block)
        ));
    }
    let (path, base) = plan.ws.target(0);
    Ok((0..jobs)
        .map(|j| (path.clone(), base + j * part, part))
        .collect())
}

/// Reads job `j`'s whole region back and compares it with the expected generations.
pub(crate) fn read_back(plan: &RunPlan, j: usize, gens: &Gens, direct: bool) -> Result<(), String> {
    let (path, base) = plan.ws.target(j);
    let fd = super::workspace::open(&path, direct, false).map_err(|e| e.to_string())?;
    let chunk = (1u64 << 20).min(plan.ws.file_size);
    // The chunk is a multiple of the verify unit: file size and 1 MiB both are.
    let chunk = (chunk / gens.unit).max(1) * gens.unit;
    let mut buf = Buffers::new(chunk as usize, 1).map_err(|e| e.to_string())?;
    let mut off = 0u64;
    while off < plan.ws.file_size {
        let len = chunk.min(plan.ws.file_size - off) as usize;
        // SAFETY: `len` ≤ the aligned buffer's size.
        let n = unsafe {
            libc::pread(
                fd.as_raw_fd(),
                buf.ptr(0) as *mut _,
                len,
                (base + off) as libc::off_t,
            )
        };
        if n as usize != len {
            return Err(format!("short read-back at byte {}", base + off));
        }
        if let Some(bad) = gens.first_bad(&buf.slot_mut(0)[..len], plan.seed, j as u32, off) {
            return Err(format!(
                "{} holds wrong data at byte {} (a write was lost or misplaced)",
                path.display(),
                base + bad
            ));
        }
        off += len as u64;
    }
    Ok(())
}

/// Sums the jobs' windows.
pub(crate) fn merge_windows(stats: &[JobStats]) -> Vec<Window> {
    let n = stats.iter().map(|s| s.windows.len()).max().unwrap_or(0);
    (0..n)
        .map(|i| {
            stats.iter().fold(Window::default(), |mut a, s| {
                if let Some(w) = s.windows.get(i) {
                    a.bytes += w.bytes;
                    a.ios += w.ios;
                    a.reads += w.reads;
                    a.lat_ns += w.lat_ns;
                }
                a
            })
        })
        .collect()
}

fn results(
    plan: &RunPlan,
    c: Config,
    ctx: &Context,
    stats: &[JobStats],
    steady: Option<super::steady::Outcome>,
) -> Vec<BenchResult> {
    let win_s = plan.window.as_secs_f64();
    let mut wins = merge_windows(stats);
    // `--ss` stopped the jobs: the windows after the kept ones were cut short.
    let kept = steady.as_ref().map_or(usize::MAX, |o| o.kept);
    wins.truncate(kept);
    let kept_secs = steady
        .as_ref()
        .map_or(usize::MAX, |o| (o.kept as f64 * win_s).ceil() as usize);
    let mut hist = job::histogram();
    for s in stats {
        // Same bounds on both sides, so adding cannot fail.
        let _ = hist.add(&s.hist);
    }
    let secs = stats
        .iter()
        .map(|s| s.per_sec.len())
        .max()
        .unwrap_or(0)
        .min(kept_secs);
    let per_sec: Vec<(f64, f64)> = (0..secs)
        .map(|i| {
            let b: u64 = stats
                .iter()
                .map(|s| s.per_sec.get(i).copied().unwrap_or(0))
                .sum();
            (i as f64 + 1.0, b as f64)
        })
        .collect();
    // One line of context on the throughput result (the iops and latency results of
    // the same run share it); warnings stay on each result.
    let mut info = vec![
        stats.first().map_or(String::new(), |s| s.queue.clone()),
        if plan.opts.buffered {
            "BUFFERED: through the page cache, reads may come from memory".into()
        } else {
            "O_DIRECT".into()
        },
        "counts completed I/O like fio (MB/s = 10^6 B/s)".into(),
    ];
    if let Some(n) = &plan.engine_note {
        info.push(n.clone());
    }
    if plan.opts.shared_file {
        info.push(format!(
            "--shared-file: {} job(s) share one {} file, each a contiguous part of it",
            c.jobs,
            format_size_exact(plan.ws.file_size)
        ));
    }
    info.extend(plan.opts.notes.iter().cloned());
    if let Some(d) = &plan.device {
        info.push(format!(
            "device {} ({}{}), class {}: {}",
            d.name,
            d.transport,
            if d.model.is_empty() {
                String::new()
            } else {
                format!(", {}", d.model)
            },
            d.class,
            d.class_evidence
        ));
    }
    if plan.device.is_none() {
        info.push(
            "not on a block device (tmpfs, overlay or network filesystem): this measures the filesystem, for tmpfs memory".into(),
        );
    }
    if plan.ws.is_device() {
        info.push(
            "raw block device (--allow-destructive): the job regions were overwritten with test data".into(),
        );
    }
    let mut notes: Vec<Note> = Vec::new();
    let total_ios: u64 = wins.iter().map(|w| w.ios).sum();
    if let Pattern::RwMix(_) = c.pattern {
        let reads: u64 = wins.iter().map(|w| w.reads).sum();
        if total_ios > 0 {
            notes.push(Note::info(format!(
                "reads {:.1} % of completed I/O",
                reads as f64 * 100.0 / total_ios as f64
            )));
        }
    }
    if wins.iter().any(|w| w.ios == 0) {
        let msg = format!(
            "a {:.1} s window completed no I/O; use a longer --runtime",
            win_s
        );
        return all_three(plan, c, |r| r.failed(msg.clone()));
    }
    let thr: Vec<f64> = wins.iter().map(|w| w.bytes as f64 / win_s).collect();
    let iops: Vec<f64> = wins.iter().map(|w| w.ios as f64 / win_s).collect();
    let lat: Vec<f64> = wins
        .iter()
        .map(|w| w.lat_ns as f64 * 1e-9 / w.ios as f64)
        .collect();
    let q = |p: f64| hist.value_at_quantile(p) as f64 * 1e-9;
    let pct = Percentiles {
        p50: q(0.50),
        p90: q(0.90),
        p99: q(0.99),
        p99_9: q(0.999),
        max: hist.max() as f64 * 1e-9,
    };
    if plan.opts.sustain.is_some() {
        notes.push(Note::info(steady_state(&thr)));
    }
    if let Some(o) = &steady {
        notes.push(Note::info(o.note()));
    }
    let peaks = &ctx.opts.peaks;
    let thr_peak = match peaks.peak(&[peak_key(Some(DiskPeak::Throughput)), peak_key(None)]) {
        Some(p) => p,
        None => plan.device.as_ref().map_or_else(
            || Peak::unknown("unknown: the target is not on a block device (tmpfs, overlay or network filesystem)"),
            |d| d.peak.clone(),
        ),
    };
    let iops_peak = match peaks.peak(&[peak_key(Some(DiskPeak::Iops))]) {
        Some(p) => p,
        None => Peak::unknown("unknown: an interface gives no IOPS limit (use --peak disk.iops=…)"),
    };
    let with_notes = |mut r: BenchResult| {
        r.notes.splice(0..0, notes.iter().cloned());
        r
    };
    let mut t = base(plan, c, 0).with_samples(thr).with_peak(thr_peak);
    t.notes.insert(0, Note::info(info.join("; ")));
    t.timeseries = Some(per_sec);
    let mut i = base(plan, c, 1).with_samples(iops).with_peak(iops_peak);
    // Same windows as throughput (bytes = IOs × block), so the same CV: warn once.
    i.notes.retain(|n| n.kind != NoteKind::HighCv);
    let mut l = base(plan, c, 2).with_samples(lat);
    // `--peak disk.latency` (#48): no device tells the kernel a latency, so only the user's.
    if let Some(p) = peaks.peak(&crate::bench::peaks::latency_keys("disk", None)) {
        l = l.with_peak(p);
    }
    // The table shows the mean; the percentiles are the figure users compare with
    // fio's clat, so they also go into a note (the JSON has them in `percentiles`).
    l.notes.insert(
        0,
        Note::info(format!(
            "clat p50 {} p90 {} p99 {} p99.9 {} max {} ({} I/Os)",
            format_si(pct.p50, "s"),
            format_si(pct.p90, "s"),
            format_si(pct.p99, "s"),
            format_si(pct.p99_9, "s"),
            format_si(pct.max, "s"),
            hist.len()
        )),
    );
    l.percentiles = Some(pct);
    vec![with_notes(t), with_notes(i), with_notes(l)]
}

/// Steady state (SNIA-style, simplified): the last third of the per-second throughput
/// within 10 % of its own mean and of the middle third's mean.
fn steady_state(per_sec: &[f64]) -> String {
    let n = per_sec.len();
    if n < 6 {
        return "steady state: too few seconds to judge".into();
    }
    let mean = |s: &[f64]| s.iter().sum::<f64>() / s.len() as f64;
    let (mid, last) = (&per_sec[n / 3..2 * n / 3], &per_sec[2 * n / 3..]);
    let (m, l) = (mean(mid), mean(last));
    let spread = last.iter().map(|x| (x - l).abs()).fold(0.0, f64::max) / l.max(1e-9);
    let drift = (l - m).abs() / m.max(1e-9);
    if spread <= 0.10 && drift <= 0.10 {
        format!(
            "steady state reached: last third within {:.1} % of its mean, {:.1} % from the middle third",
            spread * 100.0,
            drift * 100.0
        )
    } else {
        format!(
            "NOT steady: last third varies {:.1} % and moved {:.1} % from the middle third (write cliff or throttling?); run longer",
            spread * 100.0,
            drift * 100.0
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steady_state_judgement() {
        let flat = vec![100.0; 12];
        assert!(steady_state(&flat).starts_with("steady state reached"));
        let mut cliff = vec![100.0; 8];
        cliff.extend(vec![40.0; 4]);
        assert!(steady_state(&cliff).starts_with("NOT steady"));
        assert!(steady_state(&[1.0]).contains("too few"));
    }
}
