//! The CPU benchmark's cases: one kernel on some threads ([`CpuCase`]: the clock read
//! on the same cores around the samples, the peak at the clock the case saw, the
//! over-peak checks), and the row of a precision no kernel runs here
//! ([`SkippedCase`], with the reason and, for a 16-bit float, what measures instead).
//! `mod.rs` plans them.

use super::kernels::{self, Isa, Kernel, Precision};
#[cfg(all(test, target_arch = "x86_64"))]
use super::peak::peak_for;
use super::peak::{clock_kind, outrun_probe_peak, peak_for_clock};
use super::select;
use super::work::{unavailable, KernelWork};
use crate::bench::common::{record_clock, run_config};
use crate::bench::quota::quota_peak;
use crate::bench::resource::{self, Case, Context};
use crate::hw::clock::{self as clock, chain_fn, measure_on, ClockKind};
use crate::hw::clock_choice::{self, ClockChoice};
use crate::hw::HostInfo;
use crate::measure::Runner;
use crate::report::model::{BenchResult, Metric, ResourceName};
use std::sync::Mutex;
use std::time::Duration;

pub(super) struct CpuCase {
    pub(super) kernel: &'static Kernel,
    pub(super) threads: usize,
    pub(super) sustain: Option<(Duration, Duration)>,
    /// `--clock` (issue #48): the clock the peak is at; `None`: measured, unsaid.
    pub(super) clock: Option<ClockChoice>,
}

impl Case for CpuCase {
    fn label(&self) -> String {
        format!("cpu {} threads={}", self.kernel.name, self.threads)
    }

    fn run(&self, ctx: &Context) -> Vec<BenchResult> {
        vec![self.result(ctx)]
    }

    fn estimate(&self, opts: &crate::bench::common::CommonOptions) -> std::time::Duration {
        match self.sustain {
            // The warm-up, then the series of --sustain.
            Some((_, total)) => total + opts.min_time,
            None => resource::default_estimate(opts),
        }
    }
}

impl CpuCase {
    /// The case's one result.
    fn result(&self, ctx: &Context) -> BenchResult {
        let k = self.kernel;
        let host = ctx.host;
        let o = ctx.opts;
        let mut r = BenchResult::new(ResourceName::Cpu, k.name, Metric::Ops, k.precision.unit())
            .param("precision", k.precision.name())
            .param("isa", k.isa.name())
            .param("threads", self.threads);
        if let Some(why) = unavailable(k, host) {
            return r.skipped(why);
        }
        if k.isa == Isa::F16c {
            r.info(kernels::F16C_NOTE);
        }
        if let Some(why) = &host.cpu.emulated {
            r.warn(format!("{} ({why})", crate::hw::arm::EMULATED));
        }
        let cfg = run_config(ctx, self.threads, &mut r.notes);
        let cpus = cfg.cpus.clone();
        let make = |_| {
            clock::clean_vector_state();
            Ok(KernelWork::new(k))
        };
        // The clock is read on the same cores before the samples and after each one
        // (while the workers wait), with the chain matching the kernel.
        // None under emulation: a chain would time the emulator, not the core.
        let chain = k
            .clock
            .or_else(|| chain_fn(clock_kind(k)))
            // A CPU without the licence's chain (AVX without FMA): the adds alone.
            .or_else(|| chain_fn(ClockKind::Scalar))
            .filter(|_| host.cpu.emulated.is_none());
        // The runner's per-sample hook is `Fn + Sync`, hence the Mutex.
        let readings = Mutex::new(Vec::new());
        // The canary on the same cores around every sample (not in a sustained
        // series, which has no pauses): contention the guest cannot see.
        let watch = crate::hw::canary::Watch::new(&cpus);
        let read = || {
            // SAFETY: the kernel's own chain uses the kernel's instructions (checked
            // above by `unavailable`); chain_fn only returns chains the CPU has.
            if let Some(hz) = chain.and_then(|c| unsafe { measure_on(&cpus, c, 0.002) }) {
                readings.lock().unwrap().push(hz);
            }
            if self.sustain.is_none() {
                watch.read();
            }
        };
        read();
        let samples = match self.sustain {
            None => Runner::run(&cfg, make, &|_, _| read()),
            // A sustained series stays free of gaps: one reading after it instead.
            Some((interval, total)) => {
                let s = Runner::sustain(&cfg, make, interval, total, &|_, _| {});
                read();
                s
            }
        };
        let mut samples = match samples {
            Ok(s) => s,
            Err(e) => return r.failed(e.to_string()),
        };
        watch.attach(&mut samples);
        let readings = readings.into_inner().unwrap();
        let cores = self.threads.min(host.cpu.cores).max(1);
        let seen = clock::case_clock(&readings, host.clock.for_peak(clock_kind(k), cores));
        // The readings first (info), then the warnings about them.
        let clock = record_clock(&mut r, seen, |t| t);
        // `--clock` (#48): the peak at the chosen clock, saying which (JSON: peak_clock).
        r.peak_clock = self
            .clock
            .and_then(|c| chosen_clock(c, clock, host, clock_kind(k)));
        let (clock, what) = match &r.peak_clock {
            Some(p) if p.clock != ClockChoice::Measured.name() => {
                (Some(p.hz), Some(p.from.clone()))
            }
            _ => (clock, None),
        };
        let what = what.as_deref();
        if self.sustain.is_some() {
            r.timeseries = Some(samples.iter().map(|s| (s.at, s.rate())).collect());
        }
        let peak = quota_peak(
            peak_for_clock(k, host, cores, clock, what, &o.peaks),
            host,
            cores,
        );
        let stable = o.until_stable.is_some() && self.sustain.is_none();
        let mut r = r
            .with_runner_samples(samples, stable, |s| s.rate())
            .with_peak(peak);
        // Faster than the probe allowed: the probe was wrong, the table's rate stands.
        if let Some(p) = r
            .efficiency
            .and_then(|e| outrun_probe_peak(k, host, cores, (clock, what), &o.peaks, e))
            .map(|p| quota_peak(p, host, cores))
        {
            let over = crate::report::model::NoteKind::OverPeak;
            r.notes.retain(|n| n.kind != over);
            r.over_peak = false;
            r = r.with_peak(p);
            r.warn(
                "probe was wrong: this case ran faster per cycle than the probe's figure allowed; the peak uses the table's rate (see the peak's source)",
            );
        }
        if r.over_peak {
            let hint = select::over_peak_hint(k, host, clock);
            let over = crate::report::model::NoteKind::OverPeak;
            if let Some(n) = r.notes.iter_mut().find(|n| n.kind == over) {
                n.text.push_str("; ");
                n.text.push_str(&hint);
            }
        }
        r
    }
}

/// The skipped row for a precision no kernel can run here, with the reason: the OS's
/// refusal when a kernel exists but is refused (AMX), else the features needed; for a
/// 16-bit float precision also the 16-bit kernels of this run (`ran`) that measure
/// instead, or those the CPU has when the run has none.
pub(super) fn skipped_precision(
    p: Precision,
    host: &HostInfo,
    ran: &[&'static Kernel],
) -> SkippedCase {
    let all = kernels::all();
    let refused = all
        .iter()
        .filter(|k| k.precision == p && k.supported_by(&host.cpu.features))
        .find_map(|k| unavailable(k, host));
    let reason = refused.unwrap_or_else(|| {
        let needs: Vec<String> = all
            .iter()
            .filter(|k| k.precision == p)
            .map(|k| k.requires.join("+"))
            .collect();
        format!(
            "no {} kernel runs on this CPU (needs one of: {})",
            p.name(),
            needs.join(", ")
        )
    });
    let reason = match p {
        Precision::Fp16 | Precision::Bf16 => {
            format!("{reason}; {}", sixteen_bit_instead(p, host, ran))
        }
        _ => reason,
    };
    SkippedCase {
        precision: p,
        reason,
    }
}

/// The row of a precision asked for that no kernel of the `--isa` asked for computes
/// (issue #45: `--precision dp,sp,hp,qp --isa avx512` dropped hp and qp without a word):
/// which instruction sets do, and which of them this CPU has.
pub(super) fn skipped_for_isa(p: Precision, isas: &[Isa], host: &HostInfo) -> SkippedCase {
    let all = kernels::all();
    let mut with: Vec<&str> = Vec::new();
    let mut here: Vec<&str> = Vec::new();
    for k in all.iter().filter(|k| k.precision == p) {
        if !with.contains(&k.isa.name()) {
            with.push(k.isa.name());
        }
        if k.supported_by(&host.cpu.features) && !here.contains(&k.isa.name()) {
            here.push(k.isa.name());
        }
    }
    let asked: Vec<&str> = isas.iter().map(|i| i.name()).collect();
    let here = if here.is_empty() {
        "none on this CPU".to_string()
    } else {
        format!("this CPU has {}", here.join(","))
    };
    SkippedCase {
        precision: p,
        reason: format!(
            "no {} kernel for --isa {}: {} runs on {} ({here}); add one of those to --isa",
            p.name(),
            asked.join(","),
            p.name(),
            with.join(","),
        ),
    }
}

/// Which 16-bit kernels stand in for the 16-bit float precision `p` no kernel here runs:
/// those of this run (`ran`), else those the CPU has and how to ask for them.
fn sixteen_bit_instead(p: Precision, host: &HostInfo, ran: &[&'static Kernel]) -> String {
    let sixteen = |k: &&'static Kernel| {
        k.precision != p
            && matches!(
                k.precision,
                Precision::Fp16 | Precision::Bf16 | Precision::Int16
            )
    };
    let list = |ks: Vec<&'static Kernel>| {
        ks.iter()
            .map(|k| format!("{} ({})", k.name, k.precision.name()))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let in_run: Vec<&'static Kernel> = ran.iter().copied().filter(sixteen).collect();
    if !in_run.is_empty() {
        return format!("16-bit kernels measured instead: {}", list(in_run));
    }
    let here: Vec<&'static Kernel> = kernels::default_kernels(&host.cpu.features)
        .into_iter()
        .filter(|k| sixteen(k) && unavailable(k, host).is_none())
        .collect();
    if here.is_empty() {
        "no other 16-bit kernel runs here either".to_string()
    } else {
        let mut ps: Vec<&str> = Vec::new();
        for p in here.iter().map(|k| k.precision.name()) {
            if !ps.contains(&p) {
                ps.push(p);
            }
        }
        format!(
            "16-bit kernels this CPU runs: {} (--precision {})",
            list(here),
            ps.join(",")
        )
    }
}

/// A precision no kernel can run here: reported, not measured.
pub(super) struct SkippedCase {
    precision: Precision,
    reason: String,
}

impl Case for SkippedCase {
    fn label(&self) -> String {
        format!("cpu {} (skipped)", self.precision.name())
    }

    fn run(&self, ctx: &Context) -> Vec<BenchResult> {
        vec![self.result(ctx)]
    }

    fn estimate(&self, _opts: &crate::bench::common::CommonOptions) -> std::time::Duration {
        std::time::Duration::ZERO
    }
}

impl SkippedCase {
    /// The case's one result.
    fn result(&self, _ctx: &Context) -> BenchResult {
        BenchResult::new(ResourceName::Cpu, "-", Metric::Ops, self.precision.unit())
            .param("precision", self.precision.name())
            .skipped(self.reason.clone())
    }
}

/// The skipped rows' reasons name x86 kernels and features.
#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;
    use crate::bench::peaks::PeakOverrides;

    #[cfg(target_arch = "x86_64")]
    fn host_with(features: &[&str]) -> HostInfo {
        let mut host = crate::report::samples::host();
        host.cpu.features = features.iter().map(|s| s.to_string()).collect();
        host
    }

    /// Issue #32 item 11: with no fp16 kernel, the skipped row names the 16-bit kernels
    /// that measure instead (of the run, else of the CPU). x86 kernels and features.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn a_skipped_fp16_row_names_the_16_bit_kernels_instead() {
        let host = host_with(&[
            "sse2",
            "avx",
            "fma",
            "avx2",
            "avx512f",
            "avx512vnni",
            "avx512bf16",
        ]);
        let k = |n: &str| kernels::all().into_iter().find(|k| k.name == n).unwrap();
        let ran = [
            k("dp_bf16_avx512bf16"),
            k("dp_i16_avx512vnni"),
            k("fma_f64_avx512"),
        ];
        let r = skipped_precision(Precision::Fp16, &host, &ran).reason;
        assert!(
            r.contains(
                "no fp16 kernel runs on this CPU (needs one of: avx+fma+f16c, avx512f+avx512fp16)"
            ),
            "{r}"
        );
        assert!(r.contains("16-bit kernels measured instead: dp_bf16_avx512bf16 (bf16), dp_i16_avx512vnni (int16)"), "{r}");
        // `--precision fp16` alone: what the CPU has, and how to ask for it.
        let r = skipped_precision(Precision::Fp16, &host, &[]).reason;
        assert!(r.contains("16-bit kernels this CPU runs: "), "{r}");
        assert!(
            r.contains("dp_bf16_avx512bf16 (bf16)") && r.contains("muladd_i16_generic (int16)"),
            "{r}"
        );
        assert!(r.contains("--precision "), "{r}");
        // The F16C kernel's peak (issue #49): 0.5 step per cycle on the fixture host's
        // row (Emerald Rapids), its source the ports and llvm-mca's figure.
        let host = host_with(&["sse2", "avx", "fma", "avx2", "f16c"]);
        let p = peak_for(
            k("fma_f16_f16c"),
            &host,
            1,
            Some(3e9),
            &PeakOverrides::default(),
        );
        assert_eq!(p.value, Some(3e9 * 0.5 * 16.0), "{}", p.source);
        assert!(
            p.source.contains("port 5 takes 2 uops per step")
                && p.source.contains("llvm-mca -mcpu="),
            "{}",
            p.source
        );
    }
}

/// The clock `choice` gives a peak of chain `kind` on `host`, with the clock the case
/// measured (`measured`, the sustained one), as the result records it; `None` when the
/// machine does not tell it (the plan refused that already).
fn chosen_clock(
    choice: ClockChoice,
    measured: Option<f64>,
    host: &HostInfo,
    kind: ClockKind,
) -> Option<crate::report::model::PeakClock> {
    let (hz, from) = match choice {
        ClockChoice::Measured => (
            measured?,
            "measured, the sustained clock of the case".to_string(),
        ),
        ClockChoice::Nominal => clock_choice::nominal(
            &host.cpu.model_name,
            clock_choice::base_frequency_here().as_deref(),
        )?,
        ClockChoice::AllCore => clock_choice::all_core(&host.clock, kind)?,
    };
    Some(crate::report::model::PeakClock {
        clock: choice.name().to_string(),
        hz,
        from,
    })
}
