//! `peakbench memory --loaded-latency` (issue #47): the load-to-use latency of the pointer
//! chase on one CPU while other CPUs stream at rising rates, Intel MLC's
//! `--loaded_latency`. The chase runs alone first (the idle point), then beside
//! `--threads` loaders (default: every other usable CPU) for every injected delay of the
//! list, largest (lightest load) first. Each loaded point gives two rows with the same
//! params: the chase's latency and the loaders' total bandwidth, measured over the
//! chase's samples (the bytes the loaders counted between two samples over the time
//! between them). `report::loaded_latency` rebuilds the curve from those rows.

use super::chase::{self, ChaseWork};
use super::kernels::Kernel;
use super::load::{Loader, BLOCK_ELEMS};
use super::options::{Kind, MemoryOptions};
use super::placement::{self, Placement};
use super::region::{pages_note, Pages};
use super::sizes::{choose, default_size, level_of, level_peak, size_param};
use crate::bench::common::{cpu_list, ram_refuses, ram_room, run_config};
use crate::bench::resource::{Case, Context, UsageError};
use crate::measure::clock::Tick;
use crate::measure::runner::{pin_current_thread, Runner, Sample};
use crate::report::model::{BenchResult, Metric, ResourceName, Unit};
use crate::util::units::format_size;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Barrier, Mutex};

/// The workload of both rows of a point.
pub(crate) const WORKLOAD: &str = "loaded_latency";

/// Blocks a loader runs between two looks at the stop flag (fewer at long delays, so
/// a point ends promptly).
const GROUP: usize = 64;

/// One point of the curve.
pub(crate) struct LoadedCase {
    kernel: &'static Kernel,
    nt_note: Option<String>,
    /// The chase's working set, and each loader's per array.
    size: u64,
    /// Streaming threads (0: the idle point).
    loaders: usize,
    /// Injected delay per block (`None` at the idle point).
    delay: Option<u64>,
    /// The chase's CPU, then the loaders' (the idle point: every usable CPU).
    cpus: Vec<usize>,
    place: Placement,
}

/// The cases of `--loaded-latency DELAYS`: the idle point, then per loader count every
/// delay. Refuses up front what cannot run (too few CPUs, too little memory).
pub(super) fn plan(
    o: &MemoryOptions,
    delays: &[u64],
    ctx: &Context,
) -> Result<Vec<Box<dyn Case>>, UsageError> {
    let host = ctx.host;
    let place = placement::plan(o, host, &host.cpu.pin_order)?
        .into_iter()
        .next()
        .unwrap_or_default();
    let cpus = if place.cpu_node.is_some() {
        place.cpus.clone()
    } else {
        host.cpu.pin_order.clone()
    };
    let spare = cpus.len().saturating_sub(1);
    let counts: Vec<usize> = match &o.threads {
        Some(t) => t.clone(),
        None if spare > 0 => vec![spare],
        None => Vec::new(),
    };
    if let Some(&t) = counts.iter().find(|&&t| t > spare) {
        return Err(UsageError::new(
            "--threads",
            format!(
                "{t} loaders need {} CPUs (one runs the chase) but {} {} usable here ({}); use --threads up to {spare}",
                t + 1,
                cpus.len(),
                if cpus.len() == 1 { "is" } else { "are" },
                cpu_list(&cpus)
            ),
        ));
    }
    let op = match o.kernels.as_deref() {
        Some([Kind::Bw(op)]) => *op,
        _ => super::kernels::Op::Read,
    };
    let size = o.size.unwrap_or_else(|| default_size(host, 0, 1, 1));
    if size > chase::MAX_BYTES {
        return Err(UsageError::new(
            "--size",
            format!(
                "the chase links at most {}; use a smaller --size",
                format_size(chase::MAX_BYTES)
            ),
        ));
    }
    let most = counts.iter().copied().max().unwrap_or(0) as u64;
    let need = size.saturating_mul(1 + most * op.arrays() as u64);
    if ram_refuses(need, host.memory.available_bytes) {
        return Err(UsageError::new(
            "--size",
            format!(
                "the chase and {most} loaders need {} but only {} is available; use a smaller --size or fewer --threads",
                format_size(need),
                format_size(ram_room(host.memory.available_bytes))
            ),
        ));
    }
    let (kernel, nt_note) = choose(op, o.nt, size, host);
    let case = |loaders: usize, delay: Option<u64>| -> Box<dyn Case> {
        Box::new(LoadedCase {
            kernel,
            nt_note: nt_note.clone(),
            size,
            loaders,
            delay,
            // The idle point keeps every CPU, to tell a one-CPU run from the others.
            cpus: cpus[..=if loaders == 0 { spare } else { loaders }].to_vec(),
            place: place.clone(),
        })
    };
    let mut cases = vec![case(0, None)];
    for &t in &counts {
        for &d in delays {
            cases.push(case(t, Some(d)));
        }
    }
    Ok(cases)
}

impl Case for LoadedCase {
    fn label(&self) -> String {
        let load = match self.delay {
            Some(d) => format!(
                " load={} loaders={} delay={d}",
                self.kernel.op.name(),
                self.loaders
            ),
            None => " idle".into(),
        };
        format!(
            "memory loaded-latency{load} size={}{}",
            size_param(self.size),
            self.place.label()
        )
    }

    fn run(&self, ctx: &Context) -> Vec<BenchResult> {
        let (lat, load) = self.rows(ctx);
        let (lat, load) = self.measure(ctx, lat, load);
        std::iter::once(lat).chain(load).collect()
    }
}

/// What one point measured: the chase's samples, the loaders' bandwidth per sample and
/// the bytes they counted over those samples, the chase's pages.
struct Measured {
    samples: Vec<Sample>,
    bandwidth: Vec<f64>,
    bytes: u64,
    pages: Option<(Option<u64>, u64)>,
}

/// Sets the stop flag when dropped, so loaders end whatever happens to the chase.
struct StopOnDrop<'a>(&'a AtomicBool);

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

impl LoadedCase {
    /// The point's two rows before they are measured (the throughput row only with
    /// loaders): the same params, the notes that say what ran where.
    fn rows(&self, ctx: &Context) -> (BenchResult, Option<BenchResult>) {
        let k = self.kernel;
        let common = |r: BenchResult| {
            let mut r = r
                .param("load_kernel", k.op.name())
                .param("loaders", self.loaders as u64)
                .size("size", self.size)
                .param("level", level_of(ctx.host, self.size, 1).name());
            if let Some(d) = self.delay {
                r = r.param("delay", d);
            }
            self.place.params(r)
        };
        let mut lat = common(
            BenchResult::new(
                ResourceName::Memory,
                WORKLOAD,
                Metric::Latency,
                Unit::Second,
            )
            .param("kernel", "chase"),
        );
        lat.info(format!(
            "loaded latency: dependent loads over one random cycle of {} cache lines of {} B on CPU {}, {}",
            self.size / chase::NODE as u64,
            chase::NODE,
            self.cpus[0],
            match self.delay {
                None => "alone (the idle point)".to_string(),
                Some(d) => format!(
                    "while {} loader{} on CPU {} stream{} {} with {d} delay-loop iterations after every block of {} B per array",
                    self.loaders,
                    if self.loaders == 1 { "" } else { "s" },
                    cpu_list(&self.cpus[1..]),
                    if self.loaders == 1 { "s" } else { "" },
                    k.name,
                    BLOCK_ELEMS * 8
                ),
            }
        ));
        if self.delay.is_none() && self.cpus.len() < 2 {
            lat.warn("only the idle point: the loaders need a second CPU and this run has one");
        }
        let load = (self.loaders > 0).then(|| {
            let mut r = common(
                BenchResult::new(
                    ResourceName::Memory,
                    WORKLOAD,
                    Metric::Throughput,
                    Unit::BytePerSec,
                )
                .param("kernel", k.op.name())
                .param("isa", k.isa.name())
                .param("nt", k.nt)
                .param("bytes", "stream"),
            );
            r.info(format!(
                "the loaders' total bandwidth: bytes counted as STREAM does ({} B per 8-byte element, write-allocate not counted) between two of the chase's samples, over the time between them",
                k.bytes_per_elem(false)
            ));
            if let Some(n) = &self.nt_note {
                r.info(n.clone());
            }
            r
        });
        (lat, load)
    }

    /// Runs the point and fills its rows.
    fn measure(
        &self,
        ctx: &Context,
        mut lat: BenchResult,
        load: Option<BenchResult>,
    ) -> (BenchResult, Option<BenchResult>) {
        let mut cfg = run_config(ctx, 1, &mut lat.notes);
        cfg.cpus = vec![self.cpus[0]];
        let m = match self.run_point(&cfg) {
            Ok(m) => m,
            Err(e) => {
                let load = load.map(|r| r.failed(e.clone()));
                return (lat.failed(e), load);
            }
        };
        if let Some((huge, len)) = m.pages {
            lat.info(pages_note(Pages::Huge, huge, len));
        }
        let lat = lat.with_runner_samples(m.samples, cfg.stable.is_some(), |s| s.secs / s.work);
        let load = load.map(|r| {
            let level = level_of(ctx.host, self.size * self.loaders as u64, self.loaders);
            let r = r.param("load_bytes", m.bytes).with_samples(m.bandwidth);
            match level_peak(level, ctx.host, &ctx.opts.peaks) {
                Some(p) if r.is_ok() => r.with_peak(p),
                _ => r,
            }
        });
        (lat, load)
    }

    /// The chase on `cfg` (one thread on the first CPU) while the loaders stream on the
    /// others; every loader is built and checked before the chase starts.
    fn run_point(&self, cfg: &crate::measure::RunConfig) -> Result<Measured, String> {
        let n = self.loaders;
        let delay = self.delay.unwrap_or(0);
        let group = if delay > 10_000 { 1 } else { GROUP };
        let stop = AtomicBool::new(false);
        let counted: Vec<AtomicU64> = (0..n).map(|_| AtomicU64::new(0)).collect();
        let ready = Barrier::new(n + 1);
        let errors = Mutex::new(Vec::<String>::new());
        std::thread::scope(|s| {
            for (i, &cpu) in self.cpus[1..=n].iter().enumerate() {
                let (stop, counted, ready, errors) = (&stop, &counted, &ready, &errors);
                s.spawn(move || {
                    pin_current_thread(cpu);
                    let built = self.place.apply().and_then(|_| {
                        let mut l = Loader::new(self.kernel, self.size, Pages::Huge)?;
                        if self.place.mem_node.is_some() {
                            crate::hw::mempolicy::reset_thread_policy();
                        }
                        l.checked_pass()?;
                        Ok(l)
                    });
                    let mut l = match built {
                        Ok(l) => Some(l),
                        Err(e) => {
                            errors.lock().unwrap().push(e);
                            None
                        }
                    };
                    ready.wait();
                    if let Some(l) = l.as_mut() {
                        while !stop.load(Ordering::Relaxed) {
                            let (bytes, _) = l.run(group, delay);
                            counted[i].fetch_add(bytes, Ordering::Relaxed);
                        }
                    }
                });
            }
            let _stop = StopOnDrop(&stop);
            ready.wait();
            if let Some(e) = errors.lock().unwrap().first() {
                return Err(format!("wrong result: {e}"));
            }
            let total = || {
                counted
                    .iter()
                    .map(|c| c.load(Ordering::Relaxed))
                    .sum::<u64>()
            };
            let t0 = Tick::now();
            let marks = Mutex::new(vec![(0.0, total())]);
            let pages = Mutex::new(None);
            let nodes = Mutex::new(None);
            let make = |t: crate::measure::runner::ThreadCtx| {
                self.place.apply()?;
                let w = ChaseWork::new(self.size, Pages::Huge, 0x5eed)?;
                let region = w.region();
                self.place
                    .placed(t.index, region.as_ptr(), region.len(), &nodes);
                *pages.lock().unwrap() = Some((region.huge_bytes(), region.len() as u64));
                Ok(w)
            };
            let samples = Runner::run(cfg, make, &|_, _| {
                marks
                    .lock()
                    .unwrap()
                    .push((Tick::now().secs_since(t0), total()))
            })
            .map_err(|e| e.to_string())?;
            let marks = marks.into_inner().unwrap();
            let (bandwidth, bytes) = bandwidth_of(&marks);
            Ok(Measured {
                samples,
                bandwidth: if n > 0 { bandwidth } else { Vec::new() },
                bytes,
                pages: pages.into_inner().unwrap(),
            })
        })
    }
}

/// The loaders' bandwidth between consecutive marks `(seconds, bytes so far)`, one
/// figure per window, and the bytes counted over all the windows.
pub(crate) fn bandwidth_of(marks: &[(f64, u64)]) -> (Vec<f64>, u64) {
    let bw = marks
        .windows(2)
        .map(|w| (w[1].1 - w[0].1) as f64 / (w[1].0 - w[0].0).max(1e-9))
        .collect();
    let bytes = match (marks.first(), marks.last()) {
        (Some(a), Some(b)) => b.1 - a.1,
        _ => 0,
    };
    (bw, bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bandwidth_is_bytes_per_window() {
        let (bw, bytes) = bandwidth_of(&[(0.0, 0), (0.5, 1000), (1.5, 3000), (2.0, 3000)]);
        assert_eq!(bw, vec![2000.0, 2000.0, 0.0]);
        assert_eq!(bytes, 3000);
        assert_eq!(bandwidth_of(&[(0.0, 7)]), (vec![], 0));
    }
}
