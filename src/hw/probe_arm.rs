//! aarch64 loops of the execution-resource probe (`probe.rs`), in inline assembly,
//! and the probe's run on each kind of core of the machine.
//!
//! Each loop runs one instruction class on 24 independent accumulators (v0–v23; z0–z23
//! for SVE FMLA, at the core's vector length, so its rate tells two 256-bit SVE pipes
//! from four 128-bit ones; SMMLA and BFMMLA so the matrix rates, which a published
//! Graviton3 run found at half the table's, do not rest on the table alone), which
//! covers latency × pipes of every core in `hw::uarch_arm` (FMLA 4 cycles × 4 pipes on
//! Neoverse V1/V2 = 16; SDOT 3 × 4 = 12), so its rate is bound by the number of pipes,
//! never by a dependency. All registers start at zero: every value stays zero, finite
//! and normal. The clock is the plain dependent-add chain of `hw::clock` (one `add` per
//! cycle on every Arm core); NEON has no frequency licence to match.
//!
//! The readings go to the architecture-neutral rule, `probe_settle::settle`, exactly as
//! the x86 loops' do. On a machine with several kinds of core (big.LITTLE: several MIDR
//! parts, `hw::arm::CorePart`) each kind is probed on its own CPUs. Under user-mode
//! emulation there is no clock (the add chain would time the emulator), so every test
//! says so instead of giving a rate.

use super::cpu::CpuInfo;
use super::probe::{LoopFn, ProbeReport, Test};

/// A probe loop over 24 accumulators (v0–v23, or the z registers over them) and the
/// operands v30/v31 (z30/z31): `$setup`, every register zeroed (`$zero` per
/// accumulator, `\\r` its number), then `$instr` over every accumulator per iteration.
/// `$clobber` lists the registers beyond those, each followed by a comma.
#[cfg(target_arch = "aarch64")]
macro_rules! arm_probe_loop {
    ($name:ident, $features:literal, [$($setup:literal),*], $zero:literal, $zero_a:literal,
     $zero_b:literal, $instr:literal, $($clobber:tt)*) => {
        #[target_feature(enable = $features)]
        unsafe fn $name(loops: u64) {
            std::arch::asm!(
                $($setup,)*
                super::asm::irp24!(), $zero, ".endr",
                $zero_a,
                $zero_b,
                ".p2align 5",
                "2:",
                super::asm::irp24!(), $instr, ".endr",
                super::asm::loop_end!(),
                n = inout(reg) loops => _,
                out("v0") _, out("v1") _, out("v2") _, out("v3") _, out("v4") _, out("v5") _,
                out("v6") _, out("v7") _, out("v8") _, out("v9") _, out("v10") _, out("v11") _,
                out("v12") _, out("v13") _, out("v14") _, out("v15") _, out("v16") _, out("v17") _,
                out("v18") _, out("v19") _, out("v20") _, out("v21") _, out("v22") _, out("v23") _,
                out("v30") _, out("v31") _, $($clobber)*
                options(nomem, nostack),
            );
        }
    };
}

/// A NEON test loop: 24 accumulators v0–v23, operands v30/v31, all zero.
#[cfg(target_arch = "aarch64")]
macro_rules! neon_probe_loop {
    ($name:ident, $features:literal, $instr:literal) => {
        arm_probe_loop!(
            $name,
            $features,
            [],
            "movi v\\r\\().16b, #0",
            "movi v30.16b, #0",
            "movi v31.16b, #0",
            $instr,
        );
    };
}

#[cfg(target_arch = "aarch64")]
neon_probe_loop!(fmla_v2d, "neon", "fmla v\\r\\().2d, v30.2d, v31.2d");
#[cfg(target_arch = "aarch64")]
neon_probe_loop!(
    sdot_v4s,
    "neon,dotprod",
    "sdot v\\r\\().4s, v30.16b, v31.16b"
);
#[cfg(target_arch = "aarch64")]
neon_probe_loop!(
    smmla_v4s,
    "neon,i8mm",
    "smmla v\\r\\().4s, v30.16b, v31.16b"
);
#[cfg(target_arch = "aarch64")]
neon_probe_loop!(
    bfmmla_v4s,
    "neon,bf16",
    "bfmmla v\\r\\().4s, v30.8h, v31.8h"
);

// The SVE FMLA loop: 24 accumulators z0–z23 at the core's vector length, operands
// z30/z31, every lane active (p0), all zero.
#[cfg(target_arch = "aarch64")]
arm_probe_loop!(
    fmla_zd,
    "sve",
    ["ptrue p0.d"],
    "mov z\\r\\().d, #0",
    "mov z30.d, #0",
    "mov z31.d, #0",
    "fmla z\\r\\().d, p0/m, z30.d, z31.d",
    out("p0") _,
);

/// The loop of an aarch64 test and the counted instructions one iteration retires;
/// `None` for the x86 tests (and on other architectures, where only tests call it).
#[cfg_attr(not(target_arch = "aarch64"), allow(dead_code))]
pub(crate) fn loop_for(test: Test) -> Option<(LoopFn, u64)> {
    #[cfg(target_arch = "aarch64")]
    {
        match test {
            Test::Fmla => Some((fmla_v2d as LoopFn, 24)),
            Test::Sdot => Some((sdot_v4s as LoopFn, 24)),
            Test::SveFmla => Some((fmla_zd as LoopFn, 24)),
            Test::Smmla => Some((smmla_v4s as LoopFn, 24)),
            Test::Bfmmla => Some((bfmmla_v4s as LoopFn, 24)),
            _ => None,
        }
    }
    #[cfg(not(target_arch = "aarch64"))]
    {
        let _ = test;
        None
    }
}

/// The CPUs of each kind of core (first kind first, as `hw::arm::live` groups them),
/// with its name, at most [`super::probe::PROBE_CPUS`] of each.
fn kinds(cpu: &CpuInfo) -> Vec<(String, Vec<usize>)> {
    let mut cpus = cpu.pin_order.clone();
    cpus.sort_unstable();
    let parts = super::arm::live(&cpus).parts;
    if parts.len() < 2 {
        // One kind: the CPUs a run pins to first.
        return vec![(
            String::new(),
            cpu.pin_order
                .iter()
                .copied()
                .take(super::probe::PROBE_CPUS)
                .collect(),
        )];
    }
    parts
        .into_iter()
        .map(|p| {
            (
                format!("{} part 0x{:03x}", p.vendor, p.model),
                p.cpus.into_iter().take(super::probe::PROBE_CPUS).collect(),
            )
        })
        .collect()
}

/// Probes every kind of core, each on a thread pinned in turn to its CPUs; the first
/// kind's entries are the report's (the CPU is identified by it), the others go to
/// `other_kinds`.
pub(crate) fn run_probe(cpu: &CpuInfo, t0: std::time::Instant) -> ProbeReport {
    let mut report = ProbeReport::default();
    for (i, (kind, want)) in kinds(cpu).into_iter().enumerate() {
        let (entries, pinned) = std::thread::scope(|s| {
            s.spawn(|| {
                let pinned: Vec<usize> = want
                    .iter()
                    .copied()
                    .filter(|&c| crate::measure::runner::pin_current_thread(c))
                    .collect();
                (super::probe::run_tests(cpu, &pinned), pinned)
            })
            .join()
            .unwrap_or_else(|_| (Vec::new(), Vec::new()))
        });
        if i == 0 {
            report.entries = entries;
            report.cpu = pinned.first().copied();
            report.cpus = pinned;
        } else {
            report.other_kinds.push(super::probe::KindProbe {
                kind,
                cpus: pinned,
                entries,
            });
        }
    }
    report.seconds = t0.elapsed().as_secs_f64();
    report
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hw::probe::{settle_test, Reading};
    use crate::hw::probe_class::ARM_TESTS;
    use crate::hw::uarch::{Pipe, Width};

    fn readings(xs: &[f64]) -> Vec<Reading> {
        xs.iter()
            .map(|&x| Reading {
                cpu: Some(0),
                per_cycle: x,
                kept_core: true,
            })
            .collect()
    }

    /// The Arm tests feed the same rule as x86's: FMLA readings of a four-pipe core
    /// (Neoverse V1) settle on 4, SDOT readings of a two-pipe core (N1) on 2, and the
    /// evidence names the instruction.
    #[test]
    fn arm_readings_settle_on_whole_pipe_counts() {
        let p = settle_test(Test::Fmla, &readings(&[3.97, 3.99, 3.98, 3.2])).unwrap();
        assert_eq!(p.per_cycle, 4.0);
        assert!(
            p.evidence.contains("4 FMLA/cycle, fmla v.2d"),
            "{}",
            p.evidence
        );
        assert!(!p.consistent, "3.2 snaps to 3: readings disagree");
        let p = settle_test(Test::Sdot, &readings(&[1.99, 2.0, 1.98])).unwrap();
        assert_eq!(p.per_cycle, 2.0);
        assert!(
            p.evidence.contains("2 SDOT/cycle, sdot v.4s"),
            "{}",
            p.evidence
        );
        // Between 2 and 3: no count.
        assert!(settle_test(Test::Fmla, &readings(&[2.5, 2.5, 2.5])).is_err());
        assert_eq!(Test::Fmla.pipe_width(), (Pipe::Fma, Width::V128));
        assert_eq!(Test::Sdot.pipe_width(), (Pipe::Dot, Width::V128));
        assert_eq!(Test::for_kernel("fma_f64_neon"), Some(Test::Fmla));
        assert_eq!(Test::for_kernel("udot_i8_neon"), Some(Test::Sdot));
        assert_eq!(Test::Sdot.requires(), &["neon", "dotprod"]);
    }

    /// Issue #42 item 4: SVE FMLA, SMMLA and BFMMLA readings settle as FMLA's do. SVE
    /// FMLA answers for the machine's vector length only (two per cycle on Neoverse V1's
    /// 256-bit SVE, where NEON FMLA reads four), and a consistent reading below the
    /// table (a Graviton3 run measured SMMLA and BF16 at half the table's rate) lowers it,
    /// since the Arm rows hold that count too.
    #[test]
    fn sve_and_matrix_readings_settle() {
        use crate::hw::probe_report::arm_canonical_test;
        use crate::hw::rates::reconcile_with;
        use crate::hw::uarch::possible_rates;
        let p = settle_test(Test::SveFmla, &readings(&[1.99, 2.0, 1.98])).unwrap();
        assert_eq!(p.per_cycle, 2.0);
        assert!(
            p.evidence.contains("2 SVE FMLA/cycle, fmla z.d"),
            "{}",
            p.evidence
        );
        let sve256 = Width::V256;
        assert_eq!(
            arm_canonical_test(Pipe::Fma, Width::V256, sve256),
            Some(Test::SveFmla)
        );
        assert_eq!(arm_canonical_test(Pipe::Fma, Width::V512, sve256), None);
        assert_eq!(
            arm_canonical_test(Pipe::Fma, Width::V128, sve256),
            Some(Test::Fmla)
        );
        assert_eq!(
            arm_canonical_test(Pipe::Mmla, Width::V128, Width::V128),
            Some(Test::Smmla)
        );
        assert_eq!(
            arm_canonical_test(Pipe::MmlaBf16, Width::V128, Width::V128),
            Some(Test::Bfmmla)
        );
        assert_eq!(Test::Smmla.pipe_width(), (Pipe::Mmla, Width::V128));
        assert_eq!(Test::Bfmmla.requires(), &["neon", "bf16"]);
        assert_eq!(Test::for_kernel("fma_f32_sve"), Some(Test::SveFmla));
        assert_eq!(Test::for_kernel("bfmmla_bf16_sve"), Some(Test::Bfmmla));
        // Half the table's SMMLA and BFMMLA rates on a Neoverse V1 row (4 per cycle).
        for (test, pipe) in [(Test::Smmla, Pipe::Mmla), (Test::Bfmmla, Pipe::MmlaBf16)] {
            let p = settle_test(test, &readings(&[2.01, 1.98, 2.0])).unwrap();
            assert_eq!(p.per_cycle, 2.0);
            let possible = possible_rates("aarch64", pipe, Width::V128);
            let r = reconcile_with(4.0, &possible, Some(&p));
            assert_eq!(r.per_cycle, 2.0, "{}", r.provenance);
            assert!(
                r.provenance.contains("probe overrules table"),
                "{}",
                r.provenance
            );
        }
        // SVE FMLA at 256 bits: no Arm row holds one per cycle there, so such a reading
        // keeps the V1 row's 2 and says why; a reading above the table always wins.
        let p = settle_test(Test::SveFmla, &readings(&[1.0, 0.99, 1.01])).unwrap();
        let possible = possible_rates("aarch64", Pipe::Fma, Width::V256);
        let r = reconcile_with(2.0, &possible, Some(&p));
        assert_eq!(r.per_cycle, 2.0);
        assert!(
            r.provenance.contains("not a count the table holds"),
            "{}",
            r.provenance
        );
        let p = settle_test(Test::SveFmla, &readings(&[3.0, 2.99, 3.01])).unwrap();
        assert_eq!(reconcile_with(2.0, &possible, Some(&p)).per_cycle, 3.0);
    }

    /// Only aarch64 has these loops; x86 has none of them.
    #[test]
    fn loops_exist_only_on_aarch64() {
        for &t in ARM_TESTS {
            assert_eq!(loop_for(t).is_some(), cfg!(target_arch = "aarch64"));
        }
        assert!(loop_for(Test::Fma(Width::V128)).is_none());
    }

    /// The loops run (a few iterations) on every CPU that has their instructions,
    /// emulated or not: under qemu `-cpu max` and `neoverse-n1` both, under `a64fx`
    /// (no DotProd) FMLA only.
    #[cfg(target_arch = "aarch64")]
    #[test]
    fn arm_loops_run() {
        let cpu = CpuInfo::detect();
        for &t in ARM_TESTS {
            if t.requires().iter().all(|r| cpu.has(r)) {
                let (f, per) = loop_for(t).unwrap();
                assert_eq!(per, 24);
                // SAFETY: the CPU has the test's instructions (checked above).
                unsafe { f(1000) };
            } else {
                println!("{}: skipped, CPU lacks {:?}", t.name(), t.requires());
            }
        }
    }

    /// Under user-mode emulation the probe gives no rate: every test says the CPU is
    /// emulated, and the peaks' rates get no count from it (the table stands). On a
    /// native Arm core the same test checks that the report has the Arm tests.
    #[cfg(target_arch = "aarch64")]
    #[test]
    fn arm_probe_under_emulation_says_so() {
        let cpu = CpuInfo::detect();
        let r = crate::hw::probe::run_probe(&cpu);
        let tests: Vec<Test> = r.entries.iter().map(|e| e.test).collect();
        assert_eq!(tests, ARM_TESTS);
        if crate::hw::arm::emulated().is_none() {
            println!("native aarch64 core: probe report\n{r}");
            return;
        }
        let text = r.to_string();
        for e in &r.entries {
            let Err(why) = &e.result else {
                panic!("emulated, yet {} gave a rate: {text}", e.test.name());
            };
            assert!(why.to_string().contains("emulated CPU"), "{why}");
        }
        assert!(text.contains("emulated CPU"), "{text}");
        assert!(r.rates().iter().all(|p| p.probed.per_cycle == 0.0));
        // The lookups by pipe and by kernel reach the Arm tests.
        assert!(r.per_cycle(Pipe::Fma, Width::V128).is_none());
        assert!(r.per_cycle(Pipe::Fma, Width::V256).is_none());
        assert!(r.result(Test::Fmla).unwrap_err().contains("emulated CPU"));
        let why = r.for_kernel("fma_f64_neon").unwrap_err();
        assert!(why.contains("emulated CPU"), "{why}");
    }
}
