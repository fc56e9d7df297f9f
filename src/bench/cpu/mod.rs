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
//!
//! This file plans the cases (`plan`, the quick suite) and is the resource; the cases are
//! `case.rs`, the peaks (`--peak` keys, a kernel's theoretical peak) `peak.rs`.

pub(crate) mod amx;
#[cfg(target_arch = "aarch64")]
pub(crate) mod arm;
pub(crate) mod c2c;
pub(crate) mod case;
pub(crate) mod generic;
pub(crate) mod kernel;
#[cfg(test)]
mod kernel_features;
pub mod kernels;
#[cfg(test)]
mod mca;
pub mod options;
pub(crate) mod peak;
pub(crate) mod select;
pub(crate) mod work;
#[cfg(target_arch = "x86_64")]
pub(crate) mod x86;

use super::common::default_threads;
use super::peaks::{PeakKey, PeakKind};
use super::resource::{self, Case, CommonFlag, Context, Plan, Run, UsageError};
use case::{skipped_for_isa, skipped_precision, CpuCase};
use kernels::{Isa, Kernel, Precision};
use options::CpuOptions;
pub(crate) use peak::{clock_kind, peak_for, peak_key, per_cycle_for};
pub(crate) use work::unavailable;

/// The CPU resource.
pub(crate) struct CpuBench;

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
        if c.c2c {
            return Ok(vec![Box::new(c2c::C2cCase {
                cpus: crate::hw::cpu::allowed_cpus(),
            })]);
        }
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
        if let Some(why) = c.clock.and_then(|ch| clock_refusal(ch, host)) {
            return Err(UsageError::new("--clock", why));
        }
        let threads = c
            .threads
            .clone()
            .unwrap_or_else(|| default_threads(crate::bench::quota::thread_cores(host)));
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
        // With --isa, a precision none of those sets computes is a skipped row too.
        for p in c.precisions.iter().flatten() {
            if !chosen.iter().any(|k| k.precision == *p) {
                cases.push(Box::new(match &c.isas {
                    None => skipped_precision(*p, host, &chosen),
                    Some(isas) => skipped_for_isa(*p, isas, host),
                }));
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
                    clock: c.clock,
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

    fn aliases(&self) -> &'static [resource::Alias] {
        use resource::alias;
        const ALIASES: &[resource::Alias] = &[
            resource::THREADS_ALIASES[0],
            resource::THREADS_ALIASES[1],
            alias(
                "--kernel",
                "--precision",
                "the kernels are chosen by --precision and --isa",
            ),
            resource::MIN_TIME_ALIAS,
        ];
        ALIASES
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
                    clock: None,
                }));
            }
        }
        cases
    }
}

/// Why `--clock CHOICE` cannot be used on `host` (issue #48), or `None`: the clock
/// must be one this machine tells (`hw::clock_choice::unknown`); a machine with several
/// kinds of core keeps each kind's measured clock.
fn clock_refusal(
    choice: crate::hw::clock_choice::ClockChoice,
    host: &crate::hw::HostInfo,
) -> Option<String> {
    use crate::hw::clock_choice::{base_frequency_here, unknown, ClockChoice};
    if choice != ClockChoice::Measured && !host.clock.kinds.is_empty() {
        return Some(format!(
            "the {} clock is not used on a machine with several kinds of core (each kind's peak is at its own measured clock); drop --clock",
            choice.name()
        ));
    }
    unknown(
        choice,
        &host.cpu.model_name,
        base_frequency_here().as_deref(),
        &host.clock,
        host.cpu.emulated.is_some(),
    )
}

#[cfg(test)]
mod tests {
    use super::work::run_once;
    use super::*;
    use crate::hw::uarch::Width;
    use crate::hw::HostInfo;

    #[test]
    fn probe_every_pipe_kernel_maps_to_a_test_of_its_pipe_and_width() {
        for k in kernels::all() {
            let Some(pipe) = k.pipe else { continue };
            // The probe's tests are x86 instructions; Arm kernels have none yet.
            if k.isa >= Isa::Neon {
                continue;
            }
            // Integer adds have no probe test (the F16C loop has one since #49).
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
        if let Some(why) = &host.cpu.emulated {
            // A chain under an emulator times the emulator, not a clock.
            println!("skipped: emulated CPU ({why})");
            return;
        }
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
