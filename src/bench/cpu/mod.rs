//! `peakbench cpu`: operations per second per precision and instruction set, 1..N
//! pinned threads, against the theoretical peak at the clock measured during the run.
//!
//! Per case: the runner calibrates and warms up (which also settles the core into the
//! kernel's frequency licence) and takes `--repeat` samples. The core clock is read on
//! the same cores with the kernel's own chain (or the one matching its width: AVX-512
//! for 512-bit and AMX kernels) before the samples and after each one, `repeat + 1`
//! readings, each the largest of several 2 ms chains taken while the chain's thread had
//! its core (`hw::clock::Reading`: a reading lowered by descheduling is not a slower
//! clock and says so). The peak is at the *sustained* clock, the host's all-core
//! reading or the highest of the case (`hw::clock::case_clock`); the clock the case
//! measured is `clock_hz`, and a case that ran at a lower clock says so in a warning.
//! Every reading is kept in a note, and a spread above `hw::clock::SPREAD_WARN` adds a
//! warning: the clock moved during the case. Sustained series (`--sustain`) read only before and after, so the
//! series has no gaps.

pub(crate) mod amx;
#[cfg(target_arch = "aarch64")]
pub(crate) mod arm;
pub(crate) mod generic;
pub(crate) mod kernel;
pub mod kernels;
pub mod options;
pub(crate) mod select;
pub(crate) mod work;
#[cfg(target_arch = "x86_64")]
pub(crate) mod x86;

use super::common::{default_threads, record_clock, run_config};
use super::peaks::{PeakKey, PeakKind, PeakOverrides};
use super::resource::{self, Case, CommonFlag, Context, Plan, Run, UsageError};
use crate::hw::clock::{self as clock, chain_fn, measure_on, ClockKind};
use crate::hw::peak::{cpu_peak, emulated_peak, CpuPeakInput, Peak};
use crate::hw::uarch::Width;
use crate::hw::HostInfo;
use crate::measure::Runner;
use crate::report::model::{BenchResult, Metric, Resource};
use kernels::{Isa, Kernel, Precision};
use options::CpuOptions;
use std::sync::Mutex;
use std::time::Duration;
pub(crate) use work::unavailable;
use work::KernelWork;

/// The CPU resource.
pub(crate) struct CpuBench;

/// The clock chain matching a kernel's width.
fn clock_kind(k: &Kernel) -> ClockKind {
    match k.width {
        Width::V512 | Width::Tile => ClockKind::Avx512,
        _ => ClockKind::Scalar,
    }
}

/// The `--peak` key `cpu` (`None`), `cpu.PRECISION` or `cpu.PRECISION.ISA`: the one
/// spelling of the keys this resource looks up and accepts.
pub(crate) fn peak_key(sel: Option<(Precision, Option<Isa>)>) -> PeakKey {
    PeakKey::new(match sel {
        None => "cpu".to_string(),
        Some((p, None)) => format!("cpu.{}", p.name()),
        Some((p, Some(i))) => format!("cpu.{}.{}", p.name(), i.name()),
    })
}

/// The theoretical peak of kernel `k` on `cores` cores at `clock_hz`, or the user's
/// override (`--peak cpu.<precision>.<isa>`, `cpu.<precision>` or `cpu`, each given for
/// all cores of the machine and scaled to the cores in use).
pub(crate) fn peak_for(
    k: &Kernel,
    host: &HostInfo,
    cores: usize,
    clock_hz: Option<f64>,
    overrides: &PeakOverrides,
) -> Peak {
    let keys = [
        peak_key(Some((k.precision, Some(k.isa)))),
        peak_key(Some((k.precision, None))),
        peak_key(None),
    ];
    if let Some((key, v)) = overrides.find(&keys) {
        let all = host.cpu.cores.max(1);
        return Peak {
            value: Some(v * cores as f64 / all as f64),
            source: format!("user (--peak {key}=…, given for {all} cores, scaled to {cores})"),
        };
    }
    if k.isa == Isa::F16c {
        return Peak::unknown(kernels::F16C_PEAK);
    }
    let Some(pipe) = k.pipe else {
        return Peak::unknown(
            "unknown: generic kernel, the compiler chooses the instructions (use --peak)",
        );
    };
    let rates = host.cpu.rates();
    let rate = mixed_cores_rate(host, pipe, k.vector_width(), cores)
        .unwrap_or_else(|| rates.rate(pipe, k.vector_width()));
    peak_at_rate(k, host, cores, clock_hz, &rate)
}

/// The peak of kernel `k` at a given (reconciled) rate of its pipe; an emulated CPU's
/// is its per-cycle peak only (`hw::peak::emulated_peak`).
fn peak_at_rate(
    k: &Kernel,
    host: &HostInfo,
    cores: usize,
    clock_hz: Option<f64>,
    rate: &crate::hw::rates::Rate,
) -> Peak {
    let Some(pipe) = k.pipe else {
        return Peak::unknown("unknown: generic kernel (use --peak)");
    };
    let rates = host.cpu.rates();
    let input = CpuPeakInput {
        rate,
        identified: &rates.identified,
        note: rates.uarch.note,
        pipe,
        width: k.vector_width(),
        ops_per_instr: k.instr_ops() as f64,
        cores,
        clock_hz,
        clock_what: match (k.clock.is_some(), clock_kind(k)) {
            (true, _) => "measured with this kernel's instruction",
            (false, ClockKind::Avx512) => "measured, AVX-512 chain",
            (false, ClockKind::Scalar) => "measured, add chain",
        },
    };
    match &host.cpu.emulated {
        Some(_) => emulated_peak(&input, crate::hw::arm::EMULATED),
        None => cpu_peak(&input),
    }
}

/// On a machine with several kinds of core (Arm big.LITTLE, `description.parts`): the
/// mean rate per core over the first `cores` CPUs of the pinning order (the ones a run
/// of that many threads uses), each core at its own row's rate, so the peak is the sum
/// over the cores; `None` on a machine with one kind of core.
fn mixed_cores_rate(
    host: &HostInfo,
    pipe: crate::hw::uarch::Pipe,
    width: Width,
    cores: usize,
) -> Option<crate::hw::rates::Rate> {
    let d = &host.cpu.description;
    if d.parts.len() < 2 {
        return None;
    }
    let used: Vec<usize> = host.cpu.pin_order.iter().take(cores).copied().collect();
    let ids = crate::hw::uarch::identify_parts(d, host.cpu.threads);
    let mut sum = 0.0;
    let mut terms = Vec::new();
    for (p, (id, _)) in d.parts.iter().zip(&ids) {
        let n = used.iter().filter(|c| p.cpus.contains(c)).count();
        if n == 0 {
            continue;
        }
        let r = id.uarch().rate(pipe, width);
        sum += n as f64 * r;
        terms.push(format!(
            "{n} x {} ({})",
            crate::hw::rates::trim_float(r),
            id.row
        ));
    }
    Some(crate::hw::rates::Rate {
        per_cycle: sum / cores.max(1) as f64,
        provenance: format!(
            "table, mean over mixed cores: ({}) / {cores}; one clock for all of them",
            terms.join(" + ")
        ),
        table: sum / cores.max(1) as f64,
        ..Default::default()
    })
}

/// Operations per cycle of kernel `k` on `cores` cores from the table (and probe), when
/// known: shown for an emulated CPU, whose peak has no clock.
pub(crate) fn per_cycle_for(k: &Kernel, host: &HostInfo, cores: usize) -> Option<f64> {
    let (pipe, width) = (k.pipe?, k.vector_width());
    let rate = mixed_cores_rate(host, pipe, width, cores)
        .unwrap_or_else(|| host.cpu.rates().rate(pipe, width));
    (rate.per_cycle > 0.0).then(|| cores as f64 * rate.per_cycle * k.instr_ops() as f64)
}

/// When a case ran above a peak the probe had lowered from the table's (efficiency
/// `eff` > 1), the probe was wrong (a disturbed reading it could not tell apart): the
/// peak at the table's rate, whose provenance says so. `None` otherwise (the peak was
/// the table's, a user's `--peak`, or the probe raised it).
pub(crate) fn outrun_probe_peak(
    k: &Kernel,
    host: &HostInfo,
    cores: usize,
    clock_hz: Option<f64>,
    overrides: &PeakOverrides,
    eff: f64,
) -> Option<Peak> {
    let keys = [
        peak_key(Some((k.precision, Some(k.isa)))),
        peak_key(Some((k.precision, None))),
        peak_key(None),
    ];
    if eff <= 1.0 || overrides.find(&keys).is_some() {
        return None;
    }
    let rate = host.cpu.rates().rate(k.pipe?, k.vector_width());
    if !rate.lowered_by_probe() {
        return None;
    }
    let back = rate.back_to_table(&format!(
        "this case ran at {:.1} % of the peak its {} per cycle allowed",
        eff * 100.0,
        crate::hw::rates::trim_float(rate.per_cycle)
    ));
    Some(peak_at_rate(k, host, cores, clock_hz, &back))
}

struct CpuCase {
    kernel: &'static Kernel,
    threads: usize,
    sustain: Option<(Duration, Duration)>,
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
        let mut r = BenchResult::new(Resource::Cpu, k.name, Metric::Ops, k.precision.unit())
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
        let chain = k.clock.or_else(|| chain_fn(clock_kind(k)));
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
        let wide = clock_kind(k) == ClockKind::Avx512;
        let seen = clock::case_clock(&readings, host.clock.for_peak(wide, cores));
        // The readings first (info), then the warnings about them.
        let clock = record_clock(&mut r, seen, |t| t);
        if self.sustain.is_some() {
            r.timeseries = Some(samples.iter().map(|s| (s.at, s.rate())).collect());
        }
        let peak = peak_for(k, host, cores, clock, &o.peaks);
        let stable = o.until_stable.is_some() && self.sustain.is_none();
        let mut r = r
            .with_runner_samples(samples, stable, |s| s.rate())
            .with_peak(peak);
        // Faster than the probe allowed: the probe was wrong, the table's rate stands.
        if let Some(p) = r
            .efficiency
            .and_then(|e| outrun_probe_peak(k, host, cores, clock, &o.peaks, e))
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
fn skipped_precision(p: Precision, host: &HostInfo, ran: &[&'static Kernel]) -> SkippedCase {
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
        let mut ps: Vec<&str> = here.iter().map(|k| k.precision.name()).collect();
        ps.dedup();
        format!(
            "16-bit kernels this CPU runs: {} (--precision {})",
            list(here),
            ps.join(",")
        )
    }
}

/// A precision no kernel can run here: reported, not measured.
struct SkippedCase {
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
        BenchResult::new(Resource::Cpu, "-", Metric::Ops, self.precision.unit())
            .param("precision", self.precision.name())
            .skipped(self.reason.clone())
    }
}

impl Plan for CpuBench {
    type Options = CpuOptions;

    fn refuses(&self, c: &CpuOptions, flag: CommonFlag) -> Option<&'static str> {
        match flag {
            CommonFlag::UntilStable if c.sustain.is_some() => {
                Some("--sustain keeps every interval's sample (a time series); drop one of the two")
            }
            _ => None,
        }
    }

    fn threads<'a>(&self, c: &'a CpuOptions) -> Option<&'a [usize]> {
        c.threads.as_deref()
    }

    fn plan(&self, c: &CpuOptions, ctx: &Context) -> Result<Vec<Box<dyn Case>>, UsageError> {
        let host = ctx.host;
        let all = kernels::all();
        if let Some(isas) = &c.isas {
            for isa in isas {
                let any = all.iter().any(|k| k.isa == *isa);
                let usable = all
                    .iter()
                    .any(|k| k.isa == *isa && k.supported_by(&host.cpu.features));
                if !any || !usable {
                    let have: Vec<&str> = Isa::ALL
                        .iter()
                        .filter(|i| {
                            all.iter()
                                .any(|k| k.isa == **i && k.supported_by(&host.cpu.features))
                        })
                        .map(|i| i.name())
                        .collect();
                    return Err(UsageError::new(
                        "--isa",
                        format!(
                            "this CPU lacks '{}'; available here: {}",
                            isa.name(),
                            have.join(",")
                        ),
                    ));
                }
            }
        }
        let threads = c
            .threads
            .clone()
            .unwrap_or_else(|| default_threads(host.cpu.cores));
        let chosen: Vec<&'static Kernel> = all
            .into_iter()
            .filter(|k| {
                c.precisions
                    .as_ref()
                    .is_none_or(|ps| ps.contains(&k.precision))
            })
            .filter(|k| match &c.isas {
                Some(isas) => isas.contains(&k.isa),
                // By default every kernel the CPU has but the stand-ins it does not
                // need (F16C beside AVX512-FP16); AMX refused by the OS still shows up,
                // as skipped with the reason.
                None => {
                    k.supported_by(&host.cpu.features)
                        && !kernels::superseded(k, &host.cpu.features)
                }
            })
            .collect();
        let sustain = c.sustain.map(|d| (c.interval, d));
        let mut cases: Vec<Box<dyn Case>> = Vec::new();
        // A precision asked for without --isa that no kernel here can run becomes one
        // skipped row naming what is missing (the question has an answer: "not here").
        if c.isas.is_none() {
            for p in c.precisions.iter().flatten() {
                if !chosen.iter().any(|k| k.precision == *p) {
                    cases.push(Box::new(skipped_precision(*p, host, &chosen)));
                }
            }
        }
        if chosen.is_empty() && cases.is_empty() {
            return Err(UsageError::new(
                "--precision/--isa",
                "no kernel matches that combination on this CPU; see `peakbench sysinfo` for what is available",
            ));
        }
        for k in chosen {
            for &t in &threads {
                cases.push(Box::new(CpuCase {
                    kernel: k,
                    threads: t,
                    sustain,
                }));
            }
        }
        Ok(cases)
    }
}

impl resource::Resource for CpuBench {
    fn name(&self) -> &'static str {
        "cpu"
    }

    fn about(&self) -> &'static str {
        "Operations per second per precision and instruction set, 1..N pinned threads"
    }

    fn command(&self) -> clap::Command {
        resource::subcommand::<options::CpuOptions>(self)
    }

    fn parse(&self, m: &clap::ArgMatches) -> Result<Box<dyn Run>, UsageError> {
        resource::parse_with(&CpuBench, m, options::parse)
    }

    fn peak_keys(&self) -> &'static str {
        "cpu, cpu.PRECISION, cpu.PRECISION.ISA"
    }

    /// `cpu`, `cpu.PRECISION`, or `cpu.PRECISION.ISA` with an ISA that has a kernel
    /// of that precision.
    fn peak_key(&self, key: &str, rest: &[&str]) -> Result<Option<(PeakKey, PeakKind)>, String> {
        let [p, rest @ ..] = rest else {
            return Ok(Some((peak_key(None), PeakKind::Ops)));
        };
        let Some(prec) = Precision::ALL.into_iter().find(|x| x.name() == *p) else {
            let names: Vec<&str> = Precision::ALL.iter().map(|x| x.name()).collect();
            return Err(format!(
                "unknown CPU precision '{p}' in '{key}'; accepted: {}",
                names.join(", ")
            ));
        };
        let sel = match rest {
            [] => (prec, None),
            [isa] => {
                let mut isas: Vec<Isa> = Vec::new();
                for k in kernels::all().into_iter().filter(|k| k.precision == prec) {
                    if !isas.contains(&k.isa) {
                        isas.push(k.isa);
                    }
                }
                match isas.iter().find(|i| i.name() == *isa) {
                    Some(&i) => (prec, Some(i)),
                    None => {
                        return Err(format!(
                            "no {p} kernel for ISA '{isa}' in '{key}'; accepted: {}",
                            isas.iter()
                                .map(|i| format!("cpu.{p}.{}", i.name()))
                                .collect::<Vec<_>>()
                                .join(", ")
                        ))
                    }
                }
            }
            _ => return Ok(None),
        };
        Ok(Some((peak_key(Some(sel)), PeakKind::Ops)))
    }

    fn quick(&self, ctx: &Context) -> Vec<Box<dyn Case>> {
        let cores = ctx.host.cpu.cores.max(1);
        let mut threads = vec![1];
        if cores > 1 {
            threads.push(cores);
        }
        let mut cases: Vec<Box<dyn Case>> = Vec::new();
        // The peak decides; a short single-thread run (≈ 10 ms) is consulted only for a
        // candidate of unknown peak (see `select::pick`).
        let best = select::best_kernels(ctx.host, &|k| select::quick_rate(k, 0.01));
        for p in Precision::ALL {
            if !best.iter().any(|k| k.precision == p) {
                cases.push(Box::new(skipped_precision(p, ctx.host, &best)));
            }
        }
        for k in best {
            for &t in &threads {
                cases.push(Box::new(CpuCase {
                    kernel: k,
                    threads: t,
                    sustain: None,
                }));
            }
        }
        cases
    }
}

#[cfg(test)]
mod tests {
    use super::work::run_once;
    use super::*;

    #[test]
    fn probe_every_pipe_kernel_maps_to_a_test_of_its_pipe_and_width() {
        for k in kernels::all() {
            let Some(pipe) = k.pipe else { continue };
            // The probe's tests are x86 instructions; Arm kernels have none yet.
            if k.isa >= Isa::Neon {
                continue;
            }
            if pipe == crate::hw::uarch::Pipe::Alu {
                assert!(
                    crate::hw::probe::Test::for_kernel(k.name).is_none(),
                    "{}",
                    k.name
                );
                continue;
            }
            let t = crate::hw::probe::Test::for_kernel(k.name)
                .unwrap_or_else(|| panic!("{} unmapped", k.name));
            let want = match k.width {
                Width::Scalar => Width::V128,
                w => w,
            };
            assert_eq!(t.pipe_width(), (pipe, want), "{}", k.name);
            // The test runs only where the kernel could.
            for r in t.requires() {
                assert!(
                    k.requires.contains(r) || ["avx", "fma", "sse2"].contains(r),
                    "{} needs {r}",
                    k.name
                );
            }
        }
        assert!(crate::hw::probe::Test::for_kernel("add_i32_avx2").is_none());
        assert!(crate::hw::probe::Test::for_kernel("muladd_f64_generic").is_none());
    }

    #[test]
    fn every_runnable_kernel_matches_its_scalar_reference() {
        let host = HostInfo::detect(false);
        for k in kernels::all() {
            if let Some(why) = unavailable(k, &host) {
                eprintln!("skipped {}: {why}", k.name);
                continue;
            }
            for iters in [1u64, 7, 1000] {
                let lanes = run_once(k, iters);
                let want = (k.reference)(iters);
                assert_eq!(lanes.len(), k.layout_now().regs * k.layout_now().lanes);
                for (i, got) in lanes.iter().enumerate() {
                    assert_eq!(*got, want, "{} lane {i} after {iters} iterations", k.name);
                }
            }
        }
    }

    #[test]
    fn every_kernel_clock_chain_reads_a_plausible_clock() {
        let host = HostInfo::detect(false);
        for k in kernels::all() {
            let (Some(chain), None) = (k.clock, unavailable(k, &host)) else {
                continue;
            };
            // SAFETY: the kernel's instructions are available (checked just above).
            let hz = unsafe { crate::hw::clock::max_hz(chain, 3, 0.002) };
            // One add per cycle: any real core reads 0.3–7 GHz; a chain whose adds were
            // not dependent would read far more.
            assert!(hz > 3e8 && hz < 7e9, "{}: {hz} Hz", k.name);
        }
    }

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
        // The F16C kernel's peak is not claimed, and says what bounds it.
        let host = host_with(&["sse2", "avx", "fma", "avx2", "f16c"]);
        let p = peak_for(
            k("fma_f16_f16c"),
            &host,
            1,
            Some(3e9),
            &PeakOverrides::default(),
        );
        assert!(
            p.value.is_none() && p.source.contains("fp32 FMA peak"),
            "{}",
            p.source
        );
    }

    /// A 128-bit fp64 FMA row (4 FLOP per instruction) on any architecture.
    fn fmla_f64_like() -> Kernel {
        Kernel {
            pipe: Some(crate::hw::uarch::Pipe::Fma),
            width: Width::V128,
            ops_per_instr: 4,
            ..kernels::GENERIC[5]
        }
    }

    fn arm_host(part: u32) -> HostInfo {
        let mut host = crate::report::samples::host();
        host.cpu.description = crate::hw::cpudesc::CpuDescription {
            arch: "aarch64".into(),
            vendor: "ARM".into(),
            model: part,
            flags: vec!["fp".into(), "asimd".into()],
            ..Default::default()
        };
        host.cpu.identification = Default::default();
        host.cpu.probed.clear();
        host
    }

    #[test]
    fn an_emulated_cpu_has_a_per_cycle_peak_and_no_rate() {
        let mut host = arm_host(0xd0c);
        host.cpu.emulated = Some("the kernel is x86_64".into());
        let k = fmla_f64_like();
        let p = peak_for(&k, &host, 1, None, &PeakOverrides::default());
        assert_eq!(p.value, None);
        assert!(
            p.source.starts_with("emulated CPU: figures are the emulator's, no clock, no efficiency; per cycle: 8 op/cycle on 1 core = 2 instr/cycle"),
            "{}",
            p.source
        );
        assert!(p.source.contains("row 'Neoverse N1'"), "{}", p.source);
        assert_eq!(per_cycle_for(&k, &host, 2), Some(16.0));
        // Not emulated: the same CPU with a clock has a rate.
        host.cpu.emulated = None;
        let p = peak_for(&k, &host, 1, Some(2e9), &PeakOverrides::default());
        assert_eq!(p.value, Some(2e9 * 8.0));
    }

    #[test]
    fn a_big_little_peak_is_the_sum_over_its_cores() {
        // 4 x Cortex-A55 (1 FMLA/cycle) + 4 x Cortex-A76 (2 FMLA/cycle).
        let mut host = arm_host(0xd05);
        host.cpu.description.parts = vec![
            crate::hw::arm::CorePart {
                vendor: "ARM".into(),
                model: 0xd05,
                stepping: 2,
                cpus: vec![0, 1, 2, 3],
            },
            crate::hw::arm::CorePart {
                vendor: "ARM".into(),
                model: 0xd0b,
                stepping: 1,
                cpus: vec![4, 5, 6, 7],
            },
        ];
        host.cpu.pin_order = (0..8).collect();
        host.cpu.cores = 8;
        host.cpu.threads = 8;
        let k = fmla_f64_like();
        let p = peak_for(&k, &host, 8, Some(2e9), &PeakOverrides::default());
        // (4 x 1 + 4 x 2) FMLA/cycle x 4 FLOP x 2 GHz.
        assert_eq!(p.value, Some(12.0 * 4.0 * 2e9));
        assert!(
            p.source
                .contains("(4 x 1 (Cortex-A55) + 4 x 2 (Cortex-A76)) / 8"),
            "{}",
            p.source
        );
        // Two threads run on the first two (little) cores.
        let p = peak_for(&k, &host, 2, Some(2e9), &PeakOverrides::default());
        assert_eq!(p.value, Some(2.0 * 4.0 * 2e9));
    }

    #[test]
    fn default_thread_lists() {
        assert_eq!(default_threads(1), vec![1]);
        assert_eq!(default_threads(2), vec![1, 2]);
        assert_eq!(default_threads(6), vec![1, 2, 4, 6]);
        assert_eq!(default_threads(8), vec![1, 2, 4, 8]);
    }

    #[test]
    fn quick_covers_every_precision_the_cpu_has() {
        let host = HostInfo::detect(false);
        let best = select::best_kernels(&host, &|_| None);
        // Generic kernels guarantee fp32, fp64 and the four integer types everywhere.
        for p in [
            Precision::Int8,
            Precision::Int16,
            Precision::Int32,
            Precision::Int64,
            Precision::Fp32,
            Precision::Fp64,
        ] {
            assert!(best.iter().any(|k| k.precision == p), "{p:?}");
        }
    }
}
