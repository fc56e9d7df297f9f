//! `peakbench linalg`: what dense linear algebra reaches next to the FMA peak — GEMM
//! (2n³ FLOP) and an HPL-style solve (LU with partial pivoting and two triangular
//! solves, 2/3 n³ + 2n² FLOP, HPL's scaled residual checked), through the `faer`
//! library (why faer: see [`dense`]).
//!
//! Per case (routine × precision × n × threads): a rayon pool of `threads` workers,
//! each pinned to its own core like the CPU cases, runs the library with its
//! parallelism set to the same count. The matrices are made once (untimed); one call
//! is the warm-up and sets how many calls make a sample of at least `--min-time`; then
//! `--repeat` samples, each `calls × flops / time of the calls` (LU: the copy of A into
//! the workspace before each call is not timed, as HPL times only the solve). Every
//! call is checked (LU: the residual of every solve; GEMM: Freivalds' test on the
//! last product of each sample): a failed check fails the case, with the figure.
//!
//! The efficiency is against the FMA peak of the widest FMA instruction set the CPU
//! has in that precision (the CPU benchmark's own kernel row and peak, `cpu::peak_for`),
//! at the same cores and the clock read on them with that kernel's chain before the
//! samples and after each one.

pub(crate) mod backend;
pub(crate) mod blas;
pub(crate) mod blas_known;
pub(crate) mod case;
pub(crate) mod choice;
pub(crate) mod dense;
pub mod options;
mod quick;
pub(crate) mod roofline;
pub(crate) mod sample;

use super::common::{pin_cpus, ram_refuses, ram_room, record_clock, run_config, RAM_FRACTION};
use super::resource::{self, Case, CommonFlag, Context, Plan, Run, UsageError};
use crate::bench::cpu::kernels::{self, Kernel, Precision};
use crate::hw::clock::{self as clock, measure_on};
use crate::hw::uarch::Pipe;
use crate::hw::HostInfo;
use crate::measure::clock::Tick;
use crate::measure::{Runner, Scaling};
use crate::report::model::{BenchResult, Metric, NoteKind, ResourceName, Unit};
use crate::util::units::format_size;
use backend::{Backend, BlasChoice};
use case::LinalgCase;
use dense::{LuSolver, Real, THRESHOLD};
use faer::{Mat, Par};
use options::{LinalgOptions, Routine};
use sample::{GemmSet, Sample};
use std::sync::{Arc, Mutex};

/// The linalg resource.
pub(crate) struct LinalgBench;

/// Seconds one call should take at the FMA peak when `--n` is not given: GEMM runs
/// several calls per sample, LU (where a larger n reaches a higher share of the peak,
/// as HPL's) about one.
const DEFAULT_SECS: [(Routine, f64); 2] = [(Routine::Gemm, 0.25), (Routine::Lu, 0.5)];

/// Matrix order of the quick suite's one GEMM row: modest (about 2 GFLOP a call), so the
/// row takes well under 2 s on a small machine.
const QUICK_N: usize = 1024;

/// The FMA kernel row whose peak a precision is compared with: the widest FMA the CPU
/// has in that precision (`None` for bf16/fp16, which have no FMA row, or a CPU
/// without FMA).
pub(crate) fn fma_kernel(p: Precision, host: &HostInfo) -> Option<&'static Kernel> {
    kernels::all()
        .into_iter()
        .filter(|k| {
            k.precision == p
                && k.pipe == Some(Pipe::Fma)
                && crate::bench::cpu::unavailable(k, host).is_none()
        })
        .max_by_key(|k| k.width)
}

/// Bytes a case of `routine` at order `n` keeps in memory (GEMM: A, B, C; LU: A, its
/// factorised copy, b and x, and the library's scratch).
pub(crate) fn bytes_needed(routine: Routine, n: usize, elem: usize) -> Option<u64> {
    let n2 = (n as u64).checked_mul(n as u64)?;
    let mats: u64 = match routine {
        Routine::Gemm => 3,
        _ => 2,
    };
    n2.checked_mul(mats)?
        .checked_add(4 * n as u64)?
        .checked_mul(elem as u64)
}

/// The default order: one call takes about `secs` at `flops_per_s`, rounded down to a
/// multiple of 128 (blocking-friendly), from 256 to 16384.
pub(crate) fn default_n(routine: Routine, flops_per_s: f64, secs: f64) -> usize {
    let coeff = match routine {
        Routine::Gemm => 2.0,
        _ => 2.0 / 3.0,
    };
    let n = (secs * flops_per_s / coeff).cbrt();
    let n = if n.is_finite() { n as usize } else { 0 };
    (n / 128 * 128).clamp(256, 16384)
}

/// Why a precision cannot run here, or `None`.
fn unsupported(p: Precision, host: &HostInfo) -> Option<String> {
    match p {
        Precision::Fp64 | Precision::Fp32 => None,
        Precision::Bf16 | Precision::Fp16 => {
            let need = if p == Precision::Bf16 {
                "avx512bf16"
            } else {
                "avx512fp16"
            };
            Some(if host.cpu.has(need) {
                format!(
                    "{} GEMM is not measured: faer has no {} kernels using {need}",
                    p.name(),
                    p.name()
                )
            } else {
                format!("CPU lacks {need}: no {} GEMM here", p.name())
            })
        }
        _ => Some(format!("{} is not a linalg precision", p.name())),
    }
}

impl Case for LinalgCase {
    fn label(&self) -> String {
        format!(
            "linalg {} {} n={} threads={}{}",
            self.routine.name(),
            self.precision.name(),
            self.n,
            self.threads,
            if self.backend.is_faer() {
                String::new()
            } else {
                format!(" blas={}", self.backend.name())
            }
        )
    }

    fn run(&self, ctx: &Context) -> Vec<BenchResult> {
        let elem = if self.precision == Precision::Fp32 {
            4
        } else {
            8
        };
        let r = BenchResult::new(
            ResourceName::Linalg,
            self.routine.name(),
            Metric::Ops,
            Unit::FlopPerSec,
        )
        .param("routine", self.routine.name())
        .param("precision", self.precision.name())
        .param("n", self.n)
        .param("threads", self.threads)
        .param("intensity", round3(self.routine.intensity(self.n, elem)));
        // Only weak cases carry the parameter, so strong ones match earlier files.
        let r = if self.weak {
            r.param("scaling", "weak")
        } else {
            r
        };
        // Only library rows carry `blas`, so faer's match earlier files.
        let mut r = if self.backend.is_faer() {
            r
        } else {
            r.param("blas", self.backend.name())
        };
        if let Some(a) = &self.auto {
            r.info(a.to_string());
        }
        if let Some(why) = unsupported(self.precision, ctx.host) {
            return vec![r.skipped(why)];
        }
        if self.weak && self.routine == Routine::Lu {
            return vec![r.skipped(
                "--weak: HPL's LU solves one system with all the threads (strong scaling only); --weak applies to gemm and roofline",
            )];
        }
        let why = match self.precision {
            Precision::Fp32 => backend::unavailable::<f32>(&self.backend, self.routine),
            _ => backend::unavailable::<f64>(&self.backend, self.routine),
        };
        if let Some(why) = why {
            return vec![r.skipped(why)];
        }
        vec![match self.precision {
            Precision::Fp32 => self.measure::<f32>(ctx, r),
            _ => self.measure::<f64>(ctx, r),
        }]
    }
}

impl LinalgCase {
    /// Measures the case in precision `T` and completes `r`.
    fn measure<T: blas::Elem>(&self, ctx: &Context, mut r: BenchResult) -> BenchResult {
        let host = ctx.host;
        let o = ctx.opts;
        let (n, t) = (self.n, self.threads);
        let cpus = pin_cpus(host, t, &mut r.notes);
        let pin = cpus.clone();
        let pool = match rayon::ThreadPoolBuilder::new()
            .num_threads(t)
            .thread_name(|i| format!("linalg-{i}"))
            .start_handler(move |i| {
                if let Some(&c) = pin.get(i) {
                    crate::measure::runner::pin_current_thread(c);
                }
            })
            .build()
        {
            Ok(p) => p,
            Err(e) => return r.failed(format!("cannot start {t} threads: {e}")),
        };
        let par = if t == 1 { Par::Seq } else { Par::rayon(t) };
        backend::prepare(&self.backend, t, self.weak, &cpus, &mut r);
        let lib = match &self.backend {
            Backend::Lib { lib, .. } => Some(lib.clone()),
            _ => None,
        };
        // A library's strong case is called from this thread, restricted to the case's
        // CPUs meanwhile (faer's runs on the pinned pool).
        let _affinity = lib
            .as_ref()
            .filter(|_| !self.weak)
            .map(|_| blas::Affinity::restrict(&cpus));
        let fma = fma_kernel(self.precision, host);
        let chain = fma.and_then(|k| k.clock);
        let mut readings = Vec::new();
        // The canary on the case's CPUs around every sample (issue #31).
        let watch = crate::hw::canary::Watch::new(&cpus);
        let mut read = || {
            // SAFETY: the chain is the FMA kernel's own, which `fma_kernel` only returns
            // when the CPU has its instructions.
            if let Some(hz) = chain.and_then(|c| unsafe { measure_on(&cpus, c, 0.002) }) {
                readings.push(hz);
            }
            watch.read();
        };
        // Weak scaling: every thread multiplies its own n×n matrices at once (a weak LU
        // never gets here: `run` skips it).
        let weak = self.weak;
        let copies = if weak { t } else { 1 };
        let flops = self.routine.flops(n) * copies as f64;
        let run = match self.routine {
            Routine::Roofline => return r.failed("the roofline is not a matrix routine"),
            _ if lib.is_some() => {
                let lib = lib.as_deref().expect("checked");
                match backend::lib_samples::<T>(self.routine, n, weak, ctx, lib, &pool, &mut read) {
                    Ok(x) => x,
                    Err(e) => return r.failed(e),
                }
            }
            Routine::Gemm if weak => {
                // Each worker makes its own matrices (first touch on its core) and
                // multiplies them alone, all workers at once: hpcc's StarDGEMM shape.
                let sets: Vec<Mutex<GemmSet<T>>> = pool.broadcast(|c| {
                    let seed = 2 * c.index() as u64;
                    Mutex::new(GemmSet {
                        a: random::<T>(n, n, seed + 1),
                        b: random::<T>(n, n, seed + 2),
                        c: Mat::<T>::zeros(n, n),
                    })
                });
                let mut call = |check: bool| -> Sample {
                    let t0 = Tick::now();
                    pool.broadcast(|c| {
                        let mut g = sets[c.index()].lock().unwrap_or_else(|e| e.into_inner());
                        let GemmSet { a, b, c } = &mut *g;
                        dense::gemm(c.as_mut(), a.as_ref(), b.as_ref(), Par::Seq);
                    });
                    Sample::checked(t0, check, || GemmSet::worst_check(&sets))
                };
                sample::samples(ctx, &mut call, &mut read)
            }
            Routine::Gemm => {
                let a = random::<T>(n, n, 1);
                let b = random::<T>(n, n, 2);
                let mut c = Mat::<T>::zeros(n, n);
                let mut call = |check: bool| -> Sample {
                    let t0 = Tick::now();
                    pool.install(|| dense::gemm(c.as_mut(), a.as_ref(), b.as_ref(), par));
                    Sample::checked(t0, check, || {
                        dense::gemm_check(a.as_ref(), b.as_ref(), c.as_ref(), 3)
                    })
                };
                sample::samples(ctx, &mut call, &mut read)
            }
            Routine::Lu => {
                let a = random::<T>(n, n, 1);
                let b = random::<T>(n, 1, 2);
                let mut s = LuSolver::<T>::new(n, par);
                let mut call = |_check: bool| -> Sample {
                    s.load(a.as_ref(), b.as_ref());
                    let t0 = Tick::now();
                    pool.install(|| s.solve(par));
                    let secs = Tick::now().secs_since(t0);
                    // Every solve is checked: O(n²), outside the timed part.
                    let worst = dense::lu_residual(a.as_ref(), s.x.as_ref(), b.as_ref());
                    Sample { secs, worst }
                };
                sample::samples(ctx, &mut call, &mut read)
            }
        };
        let (times, calls, worst) = run;
        let check = match self.routine {
            Routine::Gemm => "Freivalds check ‖C·v − A·(B·v)‖∞ / (n·ε·‖A‖∞‖B‖∞‖v‖∞)",
            _ => "HPL scaled residual ‖Ax−b‖∞ / (ε·(‖A‖∞‖x‖∞ + ‖b‖∞)·n)",
        };
        if worst.is_nan() {
            return r.failed(format!(
                "{check}: the result holds NaN or ±Inf: the result is wrong, no figure is reported"
            ));
        }
        if worst >= THRESHOLD {
            return r.failed(format!(
                "{check} = {worst:.3e} ≥ {THRESHOLD}: the result is wrong, no figure is reported"
            ));
        }
        r.info(format!(
            "{calls} call{} per sample{}; {check} = {worst:.2e} (< {THRESHOLD}, worst of the checked calls); {} in memory",
            if calls == 1 { "" } else { "s" },
            if weak {
                format!(" (--weak: each of the {t} threads multiplies its own n×n matrices, all at once)")
            } else {
                String::new()
            },
            format_size(bytes_needed(self.routine, n, T::BYTES).unwrap_or(0).saturating_mul(copies as u64))
        ));
        let clock = clock_note(&mut r, fma, host, t, &readings);
        let samples: Vec<f64> = times.iter().map(|s| calls as f64 * flops / s).collect();
        let canary = watch.judge(samples.len());
        let mut r = r.with_samples(samples);
        if canary.iter().any(|c| !c.is_empty()) {
            // Only the canary per sample: the library's threads are not the runner's;
            // the case's window (app) still gives steal, pressure and runnable tasks.
            r = r.with_shares(
                canary
                    .into_iter()
                    .map(|canary| crate::measure::SampleShare {
                        canary,
                        ..Default::default()
                    })
                    .collect(),
            );
        }
        let peak = fma_peak(self.precision, host, t, clock, &o.peaks);
        beyond_peak(r.with_peak(peak))
    }
}

/// How far above its peak a linear-algebra figure may be and still be a figure: a
/// routine at more than 1.5 × the FMA peak did not do the work it claims (a library
/// that skips calls, or returns before its threads finish), since every FLOP counted is
/// an FMA half and the peak is the measured clock × the probed FMA units; between 1 and
/// 1.5 × the row stays a figure flagged OVER PEAK (a clock reading or a unit count off
/// by a little), from 1.5 × on it is a failed check (#33).
pub(crate) const OVER_PEAK_LIMIT: f64 = 1.5;

/// `r` failed when its efficiency passes [`OVER_PEAK_LIMIT`], else `r` unchanged.
/// The samples, summary and efficiency go: a failed check is never a number.
fn beyond_peak(mut r: BenchResult) -> BenchResult {
    match (r.efficiency, r.summary.as_ref(), r.peak.as_ref()) {
        (Some(e), Some(s), Some(p)) if e > OVER_PEAK_LIMIT || e.is_nan() => {
            let text = format!(
                "{:.4e} FLOP/s is {:.1} × the peak of {:.4e} FLOP/s ({}), over the {OVER_PEAK_LIMIT} × a correct library can reach: the calls did not do the work they claim, no figure is reported",
                s.mean,
                e,
                p.value.unwrap_or(f64::NAN),
                p.source
            );
            r.samples.clear();
            r.summary = None;
            r.efficiency = None;
            r.over_peak = false;
            r.notes.retain(|n| n.kind != NoteKind::OverPeak);
            r.failed(text)
        }
        _ => r,
    }
}

/// `x` to three decimals (an intensity as a parameter: enough to place the point,
/// short enough to read in the table).
fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// The clock used for the peak: the sustained clock (`hw::clock::case_clock`, the
/// host's all-core reading for the FMA kernel's width or the highest reading of the
/// case), noted with every reading and what is wrong with them; sets `clock_hz` (the
/// clock measured) and `sustained_hz`.
fn clock_note(
    r: &mut BenchResult,
    fma: Option<&Kernel>,
    host: &HostInfo,
    threads: usize,
    readings: &[clock::Reading],
) -> Option<f64> {
    let cores = threads.min(host.cpu.cores).max(1);
    let kind = fma.map_or(clock::ClockKind::Scalar, crate::bench::cpu::clock_kind);
    let seen = clock::case_clock(readings, host.clock.for_peak(kind, cores));
    record_clock(r, seen, |text| {
        text.replacen(
            "clock readings before",
            &format!(
                "clock readings with the {} chain before",
                fma.map_or("-", |k| k.name)
            ),
            1,
        )
    })
}

/// The FMA peak of precision `p` on `threads` threads (capped at the cores) at `clock`.
fn fma_peak(
    p: Precision,
    host: &HostInfo,
    threads: usize,
    clock: Option<f64>,
    overrides: &crate::bench::peaks::PeakOverrides,
) -> crate::hw::peak::Peak {
    let cores = threads.min(host.cpu.cores).max(1);
    match fma_kernel(p, host) {
        Some(k) => {
            let mut peak = crate::bench::quota::quota_peak(
                crate::bench::cpu::peak_for(k, host, cores, clock, overrides),
                host,
                cores,
            );
            peak.source = format!("FMA peak of {}: {}", k.name, peak.source);
            peak
        }
        None => crate::hw::peak::Peak::unknown(format!(
            "unknown: no {} FMA instruction on this CPU",
            p.name()
        )),
    }
}

/// One point of the measured roofline: the sweep kernel at `k` FMAs per element on
/// `bytes` per thread (sized for `level`).
struct RooflineCase {
    level: &'static str,
    bytes: u64,
    k: u32,
    threads: usize,
}

impl Case for RooflineCase {
    fn label(&self) -> String {
        format!(
            "linalg roofline {} k={} threads={}",
            self.level, self.k, self.threads
        )
    }

    fn run(&self, ctx: &Context) -> Vec<BenchResult> {
        let host = ctx.host;
        let o = ctx.opts;
        let t = self.threads;
        let mut r = BenchResult::new(
            ResourceName::Linalg,
            "roofline",
            Metric::Ops,
            Unit::FlopPerSec,
        )
        .param("routine", "roofline")
        .param("precision", "fp64")
        .param("level", self.level)
        .size("size", self.bytes * t as u64)
        .param("k", self.k as u64)
        .param("intensity", round3(roofline::intensity(self.k)))
        .param("threads", t);
        // The roofline's arrays are per thread (each thread sweeps its own `bytes`),
        // whatever --weak says.
        let cfg = run_config(ctx, t, &mut r.notes);
        let cpus = cfg.cpus.clone();
        let fma = fma_kernel(Precision::Fp64, host);
        let chain = fma.and_then(|k| k.clock);
        let readings = std::sync::Mutex::new(Vec::new());
        let watch = crate::hw::canary::Watch::new(&cpus);
        let read = || {
            // SAFETY: the chain is the FMA kernel's own, which `fma_kernel` only returns
            // when the CPU has its instructions.
            if let Some(hz) = chain.and_then(|c| unsafe { measure_on(&cpus, c, 0.002) }) {
                readings.lock().unwrap().push(hz);
            }
            watch.read();
        };
        read();
        let (bytes, k) = (self.bytes, self.k);
        let samples = Runner::run(
            &cfg,
            |c: crate::measure::runner::ThreadCtx| {
                Ok(roofline::Sweep::new(bytes, k, c.index as u64 + 1))
            },
            &|_, _| read(),
        );
        let mut samples = match samples {
            Ok(s) => s,
            Err(e) => return vec![r.failed(e.to_string())],
        };
        watch.attach(&mut samples);
        let readings = readings.into_inner().unwrap();
        let clock = clock_note(&mut r, fma, host, t, &readings);
        r.info(format!(
            "{} FLOP per 8-byte element ({k} FMA{} + 1 add): {:.3} FLOP/B; {} per thread",
            roofline::flops_per_elem(k),
            if k == 1 { "" } else { "s" },
            roofline::intensity(k),
            format_size(bytes)
        ));
        let r = r.with_runner_samples(samples, o.until_stable.is_some(), |s| s.rate());
        let peak = fma_peak(Precision::Fp64, host, t, clock, &o.peaks);
        vec![r.with_peak(peak)]
    }
}

/// A random matrix (re-exported for the roofline points and tests).
fn random<T: Real>(rows: usize, cols: usize, seed: u64) -> Mat<T> {
    dense::random::<T>(rows, cols, seed)
}

/// Default thread counts: the CPU benchmark's (1, 2, 4, … cores).
fn default_threads(host: &HostInfo) -> Vec<usize> {
    crate::bench::common::default_threads(crate::bench::quota::thread_cores(host))
}

/// The FMA peak per second of precision `p` on `cores` cores at the clock detected at
/// start-up (for sizing only; the cases read the clock themselves).
fn sizing_peak(p: Precision, host: &HostInfo, cores: usize) -> Option<f64> {
    let k = fma_kernel(p, host)?;
    let hz = host.clock.scalar_all_hz.or(host.clock.scalar_hz)?;
    crate::bench::cpu::peak_for(k, host, cores, Some(hz), &Default::default()).value
}

impl Plan for LinalgBench {
    type Options = LinalgOptions;

    fn refuses(&self, o: &LinalgOptions, flag: CommonFlag) -> Option<&'static str> {
        match flag {
            CommonFlag::UntilStable if !o.routines.contains(&Routine::Roofline) => Some(
                "applies to the linalg roofline only, not to gemm or lu; drop --until-stable or add --routine roofline",
            ),
            _ => None,
        }
    }

    fn threads<'a>(&self, o: &'a LinalgOptions) -> Option<&'a [usize]> {
        o.threads.as_deref()
    }

    fn plan(&self, o: &LinalgOptions, ctx: &Context) -> Result<Vec<Box<dyn Case>>, UsageError> {
        let host = ctx.host;
        let threads = o.threads.clone().unwrap_or_else(|| default_threads(host));
        let max_t = *threads.iter().max().unwrap_or(&1);
        let backends = backend::resolve(&o.blas, host)?;
        let auto: Option<Arc<str>> = o
            .blas
            .contains(&BlasChoice::Auto)
            .then(|| backend::auto_summary(host).into());
        let mut cases: Vec<Box<dyn Case>> = Vec::new();
        let avail = host.memory.available_bytes;
        if o.routines.contains(&Routine::Roofline) {
            for (level, bytes) in roofline::levels(host, max_t) {
                let need = bytes.saturating_mul(max_t as u64);
                if ram_refuses(need, avail) {
                    return Err(UsageError::new(
                        "--routine",
                        format!(
                            "the roofline's DRAM arrays need {} but only {} is available; leave out roofline",
                            format_size(need),
                            format_size(ram_room(avail))
                        ),
                    ));
                }
                for k in roofline::KS {
                    cases.push(Box::new(RooflineCase {
                        level,
                        bytes,
                        k,
                        threads: max_t,
                    }));
                }
            }
        }
        for &p in &o.precisions {
            let elem = if p == Precision::Fp32 { 4 } else { 8 };
            for &routine in o.routines.iter().filter(|r| **r != Routine::Roofline) {
                // bf16/fp16 are GEMM only; an LU in them is refused by name.
                if matches!(p, Precision::Bf16 | Precision::Fp16) && routine == Routine::Lu {
                    if o.routines.iter().any(|r| *r != Routine::Lu) {
                        continue;
                    }
                    return Err(UsageError::new(
                        "--precision",
                        format!(
                            "{} is GEMM only; use --routine gemm or --precision fp64,fp32",
                            p.name()
                        ),
                    ));
                }
                let ns = match &o.n {
                    Some(ns) => ns.clone(),
                    None => {
                        let secs = DEFAULT_SECS
                            .iter()
                            .find(|(r, _)| *r == routine)
                            .map_or(0.25, |x| x.1);
                        let peak = sizing_peak(p, host, max_t.min(host.cpu.cores).max(1));
                        // Without a peak: 50 GFLOP/s per core, a modest guess.
                        let rate = peak.unwrap_or(50e9 * max_t as f64);
                        vec![default_n(routine, rate, secs)]
                    }
                };
                let weak = ctx.opts.scaling == Scaling::Weak;
                if weak && routine == Routine::Lu && o.routines.iter().all(|r| *r == Routine::Lu) {
                    return Err(UsageError::new(
                        "--weak",
                        "HPL's LU solves one system with all the threads (strong scaling only); use --routine gemm for weak scaling or drop --weak",
                    ));
                }
                for &n in &ns {
                    // Under --weak every GEMM thread keeps its own matrices.
                    let copies = if weak && routine == Routine::Gemm {
                        max_t as u64
                    } else {
                        1
                    };
                    let need = bytes_needed(routine, n, elem).and_then(|b| b.checked_mul(copies));
                    if need.is_none_or(|b| ram_refuses(b, avail)) {
                        return Err(UsageError::new(
                            "--n",
                            format!(
                                "n={n} needs {} for {} {} but only {} is available ({:.0} % of MemAvailable {}); use a smaller --n",
                                need.map_or("more than 16 EiB".into(), format_size),
                                routine.name(),
                                p.name(),
                                format_size(ram_room(avail)),
                                RAM_FRACTION * 100.0,
                                format_size(avail)
                            ),
                        ));
                    }
                    for b in &backends {
                        for &t in &threads {
                            cases.push(Box::new(LinalgCase {
                                routine,
                                precision: p,
                                n,
                                threads: t,
                                weak,
                                backend: b.clone(),
                                auto: auto.clone(),
                            }));
                        }
                    }
                }
            }
        }
        Ok(cases)
    }
}

impl resource::Resource for LinalgBench {
    fn name(&self) -> &'static str {
        "linalg"
    }

    fn about(&self) -> &'static str {
        "Dense linear algebra next to the FMA peak: GEMM and an HPL-style LU solve (faer)"
    }

    fn aliases(&self) -> &'static [resource::Alias] {
        use resource::alias;
        const ALIASES: &[resource::Alias] = &[
            resource::THREADS_ALIASES[0],
            resource::THREADS_ALIASES[1],
            alias("--size", "--n", "the matrix order"),
            alias("--kernel", "--routine", "gemm, lu"),
        ];
        ALIASES
    }

    fn command(&self) -> clap::Command {
        resource::subcommand::<options::LinalgOptions>(self)
    }

    fn parse(&self, m: &clap::ArgMatches) -> Result<Box<dyn Run>, UsageError> {
        resource::parse_with(&LinalgBench, m, options::parse)
    }

    fn quick(&self, ctx: &Context) -> Vec<Box<dyn Case>> {
        // faer and every library found (`auto` cannot be refused).
        let backends = backend::resolve(&[BlasChoice::Auto], ctx.host).unwrap_or_default();
        let cases = backends
            .into_iter()
            .map(|backend| LinalgCase {
                routine: Routine::Gemm,
                precision: Precision::Fp64,
                n: QUICK_N,
                threads: ctx.host.cpu.cores.max(1),
                weak: ctx.opts.scaling == Scaling::Weak,
                backend,
                auto: None,
            })
            .collect();
        vec![Box::new(quick::BestOf(cases))]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::resource::Resource;

    #[test]
    fn memory_needed_and_default_orders() {
        assert_eq!(
            bytes_needed(Routine::Gemm, 1000, 8),
            Some((3_000_000 + 4000) * 8)
        );
        assert_eq!(
            bytes_needed(Routine::Lu, 1000, 4),
            Some((2_000_000 + 4000) * 4)
        );
        assert_eq!(bytes_needed(Routine::Gemm, usize::MAX, 8), None);
        // 100 GFLOP/s, a quarter second: 2n³ = 25e9 → n ≈ 2320 → 2304.
        assert_eq!(default_n(Routine::Gemm, 100e9, 0.25), 2304);
        // LU: 2/3 n³ = 50e9 → n ≈ 4217 → 4096.
        assert_eq!(default_n(Routine::Lu, 100e9, 0.5), 4096);
        assert_eq!(default_n(Routine::Gemm, 1.0, 0.25), 256);
        assert_eq!(default_n(Routine::Gemm, f64::INFINITY, 0.25), 256);
        assert_eq!(default_n(Routine::Lu, 1e18, 1.0), 16384);
    }

    #[test]
    fn bf16_and_fp16_are_skipped_with_a_reason() {
        let host = HostInfo::detect(false);
        for p in [Precision::Bf16, Precision::Fp16] {
            let why = unsupported(p, &host).unwrap();
            assert!(why.contains(p.name()), "{why}");
        }
        assert!(unsupported(Precision::Fp64, &host).is_none());
    }

    #[test]
    fn the_quick_gemm_is_one_row_the_best_library_s_naming_the_others() {
        if !backend::in_own_process(
            "bench::linalg::tests::the_quick_gemm_is_one_row_the_best_library_s_naming_the_others",
        ) {
            return;
        }
        use crate::bench::common::{self, CommonArgs};
        let host = HostInfo::detect(false);
        let mut opts = common::parse(&CommonArgs::default(), false).unwrap();
        opts.repeat = 1;
        opts.min_time = std::time::Duration::from_millis(1);
        let ctx = Context {
            host: &host,
            opts: &opts,
        };
        let cases = LinalgBench.quick(&ctx);
        assert_eq!(cases.len(), 1);
        assert!(
            cases[0].label().contains("best of faer"),
            "{}",
            cases[0].label()
        );
        let rows = cases[0].run(&ctx);
        assert_eq!(rows.len(), 1);
        let r = &rows[0];
        assert!(r.is_ok(), "{r:?}");
        let text = format!("{:?}", r.notes);
        assert!(text.contains("library: "), "{text}");
        // With a library found (CI installs two), the note names every figure and the
        // row's `blas` is the winner's (none for faer).
        if backend::resolve(&[BlasChoice::Auto], &host).unwrap().len() > 1 {
            assert!(
                text.contains("best of the libraries found (faer "),
                "{text}"
            );
            let winner = r.param_str("blas").unwrap_or("faer");
            assert!(text.contains(&format!("): {winner}")), "{text}");
        }
    }
}
