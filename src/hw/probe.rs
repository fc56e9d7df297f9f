//! Probe of one core's execution resources, independent of the microarchitecture
//! table: how many instructions of each class (FMA, mul+add, vpmulld, vpmullq, dot
//! products, AVX512-FP16 FMA, AMX tile multiplies) the core retires per cycle, as a
//! whole number of units (or a known fraction: 1/16 for AMX, 2/3 for vpmullq), never
//! as a fraction of a measured rate. A peak built from it stays a peak.
//!
//! Method (issue #31: a figure that a disturbed moment can never lower):
//! - The loop (`probe_x86.rs`; on aarch64 `probe_arm.rs`: NEON FMLA and SDOT, each
//!   kind of core of a big.LITTLE machine apart, nothing under emulation) runs one
//!   instruction class on enough independent accumulators that only the number of units
//!   bounds it.
//! - One *reading* = a warm-up run of the loop (it settles the frequency licence), a
//!   clock reading with the clock chain of `hw::clock` (dependent `add reg, reg`, one
//!   per cycle, so adds ÷ seconds = Hz) about 0.6 ms long — the plain chain for
//!   128-bit tests, and for 256/512-bit and AMX tests the same chain with one FMA of
//!   that width after every add, so the clock is read in the licence dense vector code
//!   of that width runs in (see `hw::clock`) — and the loop timed for about 0.6 ms:
//!   instructions per second ÷ Hz. The reading *kept its core* when the thread's CPU
//!   time covered its wall time (`measure::share::MIN_SHARE`, the samples' own check).
//! - Readings are taken in [`ROUNDS`] rounds spread over at least [`SPREAD_SECS`], each
//!   round one reading of every test on each of the first [`PROBE_CPUS`] CPUs a run
//!   pins to, so a moment of contention spoils a few readings, never all.
//! - [`settle`], the decision rule, the same on every architecture: a disturbance (a
//!   task on the core, an SMT sibling or the host, which the guest cannot see) only
//!   ever lowers a throughput, so readings that lost their core are left out and the
//!   figure is the *highest consistent* reading (corroborated by another within
//!   [`CONSISTENT`]), snapped to an allowed count; whether every reading snapped to it
//!   is recorded (`consistent`). A probe figure below the table lowers it only when
//!   its readings agree and the table holds that count for the class on another row
//!   (`hw::rates::reconcile_with`); otherwise the table stands and says why.
//! - Where the instruction order changes how close a core comes to its pipes (mul+add
//!   on Zen 3), two orders are timed in the same rounds and the faster counts.
//! - 512-bit FMA units: on Intel the second 512-bit FMA unit sits on port 5, the only
//!   port for 512-bit shuffles. The FMA loop is timed again with one independent
//!   shuffle per FMA: with two units it takes twice as long (port 5 now shuffles), with
//!   one it takes the same time (the shuffles run beside the single unit). That ratio
//!   needs no clock at all; [`decide_fma512`] requires it to agree with the pure loop
//!   on Intel, and only reports it elsewhere (AMD's pipes are laid out differently).
//!
//! A test runs only when the CPU (and OS) has its instructions; AMX also needs
//! Linux's tile-data permission (`hw::cpu::request_amx_permission`). One round takes
//! about 2 ms per test and CPU; with the spreading the probe takes 0.5–0.6 s on an
//! AVX2 guest with two CPUs, about 1.5 s with every test on four.
//! The result is measured once per process ([`probe`]).

use super::cpu::CpuInfo;
use super::rates::ProbedRate;
use super::uarch::{Pipe, Width};
use std::fmt;
use std::sync::OnceLock;

/// Largest relative distance between a measured rate and the unit count it is
/// snapped to. Allowed counts are at least 1/3 apart (relative), so no measurement is
/// within this distance of two of them.
pub(crate) const TOLERANCE: f64 = 0.12;

/// The tolerance for counts a factor of 2 apart (AMX, the shuffle-mix slowdown): AMX
/// runs in its own power licence, which the FMA clock chain may not match exactly.
pub(crate) const WIDE_TOLERANCE: f64 = 0.25;

/// One probe test: an instruction class at a width.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Test {
    /// `vfmadd231pd` at 128, 256 or 512 bits.
    Fma(Width),
    /// 512-bit FMAs mixed 1:1 with `vshufps` (evidence for [`Test::Fma`] at 512 bits;
    /// never a report entry of its own; only the x86-64 probe runs it).
    #[cfg(target_arch = "x86_64")]
    FmaShuffleMix,
    /// Independent multiplies and adds in equal numbers (`mulpd`/`addpd`, VEX/EVEX
    /// `vmulpd`/`vaddpd`); counts both, as the mul+add kernels do.
    MulAdd(Width),
    /// `vpmulld` at 128, 256 or 512 bits.
    Vpmulld(Width),
    /// 512-bit `vpmullq`.
    Vpmullq,
    /// `vpmaddwd` at 128, 256 or 512 bits.
    Vpmaddwd(Width),
    /// `vpdpbusd` (AVX-VNNI at 256, AVX512-VNNI at 512 bits).
    Vpdpbusd(Width),
    /// `vpdpwssd` (AVX-VNNI at 256, AVX512-VNNI at 512 bits).
    Vpdpwssd(Width),
    /// 512-bit `vdpbf16ps`.
    Vdpbf16ps,
    /// 512-bit `vfmadd231ph` (AVX512-FP16).
    Fp16Fma,
    /// AMX `tdpbf16ps`.
    AmxBf16,
    /// AMX `tdpbssd`.
    AmxInt8,
    /// aarch64: 128-bit NEON `fmla v.2d` (`probe_arm.rs`).
    Fmla,
    /// aarch64: 128-bit NEON `sdot v.4s` (DotProd).
    Sdot,
}

/// Allowed FMA and mul+add instructions per cycle.
pub(crate) const FMA_UNITS: &[f64] = &[0.5, 1.0, 2.0, 3.0, 4.0];
/// Allowed integer multiplies per cycle (vpmullq is 3 µops: 1/3 or 2/3 on Intel).
pub(crate) const MUL_UNITS: &[f64] = &[0.25, 1.0 / 3.0, 0.5, 2.0 / 3.0, 1.0, 2.0];
/// Allowed dot-product instructions per cycle.
pub(crate) const DOT_UNITS: &[f64] = &[0.5, 1.0, 2.0, 3.0, 4.0];
/// Allowed AVX512-FP16 FMAs per cycle.
pub(crate) const FP16_UNITS: &[f64] = &[0.5, 1.0, 2.0];
/// Allowed AMX tile multiplies per cycle (one per 16 cycles on Sapphire Rapids).
pub(crate) const AMX_UNITS: &[f64] = &[1.0 / 32.0, 1.0 / 16.0, 1.0 / 8.0, 1.0 / 4.0];
/// Allowed slowdowns of the 512-bit FMA loop by the shuffle mix (= 512-bit FMA units).
pub(crate) const MIX_UNITS: &[f64] = &[1.0, 2.0];

/// Every test a report may hold, in report order.
pub(crate) const TESTS: &[Test] = &[
    Test::Fma(Width::V128),
    Test::Fma(Width::V256),
    Test::Fma(Width::V512),
    Test::MulAdd(Width::V128),
    Test::MulAdd(Width::V256),
    Test::MulAdd(Width::V512),
    Test::Vpmulld(Width::V128),
    Test::Vpmulld(Width::V256),
    Test::Vpmulld(Width::V512),
    Test::Vpmullq,
    Test::Vpmaddwd(Width::V128),
    Test::Vpmaddwd(Width::V256),
    Test::Vpmaddwd(Width::V512),
    Test::Vpdpbusd(Width::V256),
    Test::Vpdpbusd(Width::V512),
    Test::Vpdpwssd(Width::V256),
    Test::Vpdpwssd(Width::V512),
    Test::Vdpbf16ps,
    Test::Fp16Fma,
    Test::AmxBf16,
    Test::AmxInt8,
];

/// The tests of an aarch64 core, in report order (`probe_arm.rs`): FMLA, SDOT.
pub(crate) const ARM_TESTS: &[Test] = &[Test::Fmla, Test::Sdot];

/// The tests this build has loops for: [`ARM_TESTS`] on aarch64, [`TESTS`] elsewhere.
pub(crate) fn tests_here() -> &'static [Test] {
    if cfg!(target_arch = "aarch64") {
        ARM_TESTS
    } else {
        TESTS
    }
}

fn reg(w: Width) -> &'static str {
    match w {
        Width::V512 => "zmm",
        Width::V256 => "ymm",
        _ => "xmm",
    }
}

impl Test {
    /// Instruction and register, e.g. `vfmadd231pd ymm`.
    pub(crate) fn name(self) -> String {
        match self {
            Test::Fma(w) => format!("vfmadd231pd {}", reg(w)),
            #[cfg(target_arch = "x86_64")]
            Test::FmaShuffleMix => "vfmadd231pd+vshufps zmm".into(),
            Test::MulAdd(Width::V512) => "vmulpd+vaddpd zmm".into(),
            Test::MulAdd(Width::V256) => "vmulpd+vaddpd ymm".into(),
            Test::MulAdd(_) => "mulpd+addpd xmm".into(),
            Test::Vpmulld(w) => format!("vpmulld {}", reg(w)),
            Test::Vpmullq => "vpmullq zmm".into(),
            Test::Vpmaddwd(w) => format!("vpmaddwd {}", reg(w)),
            Test::Vpdpbusd(w) => format!("vpdpbusd {}", reg(w)),
            Test::Vpdpwssd(w) => format!("vpdpwssd {}", reg(w)),
            Test::Vdpbf16ps => "vdpbf16ps zmm".into(),
            Test::Fp16Fma => "vfmadd231ph zmm".into(),
            Test::AmxBf16 => "tdpbf16ps".into(),
            Test::AmxInt8 => "tdpbssd".into(),
            Test::Fmla => "fmla v.2d".into(),
            Test::Sdot => "sdot v.4s".into(),
        }
    }

    /// The table's pipe class and width this test settles.
    #[cfg(any(target_arch = "x86_64", test))]
    pub(crate) fn pipe_width(self) -> (Pipe, Width) {
        match self {
            Test::Fma(w) => (Pipe::Fma, w),
            Test::MulAdd(w) => (Pipe::MulAdd, w),
            #[cfg(target_arch = "x86_64")]
            Test::FmaShuffleMix => (Pipe::Fma, Width::V512),
            Test::Vpmulld(w) => (Pipe::Mul32, w),
            Test::Vpmullq => (Pipe::Mul64, Width::V512),
            Test::Vpmaddwd(w) | Test::Vpdpbusd(w) | Test::Vpdpwssd(w) => (Pipe::Dot, w),
            Test::Vdpbf16ps => (Pipe::DotBf16, Width::V512),
            Test::Fp16Fma => (Pipe::Fp16, Width::V512),
            Test::AmxBf16 | Test::AmxInt8 => (Pipe::Amx, Width::Tile),
            Test::Fmla => (Pipe::Fma, Width::V128),
            Test::Sdot => (Pipe::Dot, Width::V128),
        }
    }

    /// Feature names (as in `CpuInfo::features`) the CPU must have.
    pub(crate) fn requires(self) -> &'static [&'static str] {
        match self {
            Test::Fma(Width::V512) | Test::MulAdd(Width::V512) => &["avx512f"],
            #[cfg(target_arch = "x86_64")]
            Test::FmaShuffleMix => &["avx512f"],
            Test::Fma(_) => &["avx", "fma"],
            Test::MulAdd(Width::V256) => &["avx"],
            Test::MulAdd(_) => &["sse2"],
            Test::Vpmulld(Width::V512) => &["avx512f"],
            Test::Vpmulld(Width::V256) => &["avx2"],
            Test::Vpmulld(_) => &["avx"],
            Test::Vpmullq => &["avx512f", "avx512dq"],
            Test::Vpmaddwd(Width::V512) => &["avx512f", "avx512bw"],
            Test::Vpmaddwd(Width::V256) => &["avx2"],
            Test::Vpmaddwd(_) => &["avx"],
            Test::Vpdpbusd(Width::V512) | Test::Vpdpwssd(Width::V512) => &["avx512f", "avx512vnni"],
            Test::Vpdpbusd(_) | Test::Vpdpwssd(_) => &["avx2", "avxvnni"],
            Test::Vdpbf16ps => &["avx512f", "avx512bf16"],
            Test::Fp16Fma => &["avx512f", "avx512fp16"],
            Test::AmxBf16 => &["amx-tile", "amx-bf16"],
            Test::AmxInt8 => &["amx-tile", "amx-int8"],
            Test::Fmla => &["neon"],
            Test::Sdot => &["neon", "dotprod"],
        }
    }

    /// The unit counts a measurement may snap to.
    pub(crate) fn candidates(self) -> &'static [f64] {
        match self {
            Test::Fma(_) | Test::MulAdd(_) | Test::Fmla => FMA_UNITS,
            #[cfg(target_arch = "x86_64")]
            Test::FmaShuffleMix => MIX_UNITS,
            Test::Vpmulld(_) | Test::Vpmullq => MUL_UNITS,
            Test::Vpmaddwd(_)
            | Test::Vpdpbusd(_)
            | Test::Vpdpwssd(_)
            | Test::Vdpbf16ps
            | Test::Sdot => DOT_UNITS,
            Test::Fp16Fma => FP16_UNITS,
            Test::AmxBf16 | Test::AmxInt8 => AMX_UNITS,
        }
    }

    /// Relative tolerance of [`decide_within`] for this test's candidates.
    pub(crate) fn tolerance(self) -> f64 {
        match self {
            Test::AmxBf16 | Test::AmxInt8 => WIDE_TOLERANCE,
            #[cfg(target_arch = "x86_64")]
            Test::FmaShuffleMix => WIDE_TOLERANCE,
            _ => TOLERANCE,
        }
    }

    /// What one counted instruction is called in evidence.
    fn unit_word(self) -> &'static str {
        match self {
            Test::Fma(_) => "FMA",
            #[cfg(target_arch = "x86_64")]
            Test::FmaShuffleMix => "FMA",
            Test::MulAdd(_) => "mul/add",
            Test::Vpmulld(_) => "vpmulld",
            Test::Vpmullq => "vpmullq",
            Test::Vpmaddwd(_) => "vpmaddwd",
            Test::Vpdpbusd(_) => "vpdpbusd",
            Test::Vpdpwssd(_) => "vpdpwssd",
            Test::Vdpbf16ps => "vdpbf16ps",
            Test::Fp16Fma => "FP16 FMA",
            Test::AmxBf16 => "tdpbf16ps",
            Test::AmxInt8 => "tdpbssd",
            Test::Fmla => "FMLA",
            Test::Sdot => "SDOT",
        }
    }

    /// The test that settles a kernel's peak (kernel names of `bench::cpu::kernels`);
    /// `None` for kernels the probe does not cover (integer adds, generic kernels).
    #[cfg(test)]
    pub(crate) fn for_kernel(kernel: &str) -> Option<Test> {
        use Width::*;
        Some(match kernel {
            "fma_f64_avx2" | "fma_f32_avx2" => Test::Fma(V256),
            "fma_f64_avx512" | "fma_f32_avx512" => Test::Fma(V512),
            "muladd_f64_scalar" | "muladd_f32_scalar" | "muladd_f64_sse2" | "muladd_f32_sse2" => {
                Test::MulAdd(V128)
            }
            "muladd_f64_avx" | "muladd_f32_avx" => Test::MulAdd(V256),
            "mul_i32_avx2" => Test::Vpmulld(V256),
            "mul_i32_avx512" => Test::Vpmulld(V512),
            "mul_i64_avx512" => Test::Vpmullq,
            "dp_i8_avxvnni" => Test::Vpdpbusd(V256),
            "dp_i8_avx512vnni" => Test::Vpdpbusd(V512),
            "dp_i16_avxvnni" => Test::Vpdpwssd(V256),
            "dp_i16_avx512vnni" => Test::Vpdpwssd(V512),
            "dp_bf16_avx512bf16" => Test::Vdpbf16ps,
            "fma_f16_avx512fp16" => Test::Fp16Fma,
            "tdp_bf16_amx" => Test::AmxBf16,
            "tdp_i8_amx" => Test::AmxInt8,
            "fma_f64_neon" | "fma_f32_neon" => Test::Fmla,
            "sdot_i8_neon" | "udot_i8_neon" => Test::Sdot,
            _ => return None,
        })
    }
}

/// A unit count the probe settled on: instructions per cycle per core (a whole number
/// or a known fraction) and what was measured, e.g. `probe: 2 FMA/cycle at ymm
/// (measured 1.97, 1.99)`. The same type the peaks' rates take (`hw::rates`).
pub(crate) use super::rates::Probed;

/// Why a probe test has no count.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub(crate) enum ProbeError {
    /// The CPU lacks the instructions the test needs (peakbench feature names): the
    /// test is not run, nor retried, and the report lists it apart.
    #[error("probe: CPU lacks {}", .0.join(", "))]
    Lacks(Vec<String>),
    /// Anything else: no probe loops on this architecture, ambiguous or noisy
    /// readings, AMX permission refused.
    #[error("{0}")]
    Other(String),
}

impl From<String> for ProbeError {
    fn from(s: String) -> Self {
        ProbeError::Other(s)
    }
}

impl From<&str> for ProbeError {
    fn from(s: &str) -> Self {
        ProbeError::Other(s.to_string())
    }
}

/// One test's outcome: the unit count, or why there is none.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ProbeEntry {
    /// The test.
    pub(crate) test: Test,
    /// The settled count, or the reason (CPU lacks the instructions, ambiguous or
    /// noisy measurement, AMX permission refused).
    pub(crate) result: Result<Probed, ProbeError>,
}

/// The probe of one further kind of core of an aarch64 machine.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct KindProbe {
    /// The kind: implementer and part, e.g. `ARM part 0xd05`.
    pub(crate) kind: String,
    /// The CPUs its readings were taken on.
    pub(crate) cpus: Vec<usize>,
    /// One entry per test of [`ARM_TESTS`].
    pub(crate) entries: Vec<ProbeEntry>,
}

/// Everything the probe found on one core.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct ProbeReport {
    /// One entry per test of [`tests_here`], in that order (on aarch64 those of the
    /// first kind of core, the one the CPU is identified by).
    pub(crate) entries: Vec<ProbeEntry>,
    /// aarch64 machines with several kinds of core (big.LITTLE): each further kind's
    /// entries, probed on its own CPUs (`hw::arm::CorePart`).
    pub(crate) other_kinds: Vec<KindProbe>,
    /// The first CPU the probe ran on, when it could be pinned.
    pub(crate) cpu: Option<usize>,
    /// Every CPU it took readings on (empty when it could not pin).
    pub(crate) cpus: Vec<usize>,
    /// Wall time the probe took, seconds.
    pub(crate) seconds: f64,
}

impl ProbeReport {
    /// The entry of a test.
    pub(crate) fn get(&self, test: Test) -> Option<&ProbeEntry> {
        self.entries.iter().find(|e| e.test == test)
    }

    /// The settled count of a test, or why there is none.
    #[cfg(test)]
    pub(crate) fn result(&self, test: Test) -> Result<Probed, String> {
        match self.get(test) {
            Some(e) => e.result.clone().map_err(|e| e.to_string()),
            None => Err(format!("probe: {} not probed", test.name())),
        }
    }

    /// Instructions per cycle for a table pipe and width: FMA (not mul+add; see
    /// `ProbeReport::for_kernel`, test builds), vpmulld, vpmullq, vpdpbusd for `Dot`, FP16 FMA,
    /// tdpbf16ps for `Amx`. `Scalar` uses the 128-bit test. `None` when the probe did not
    /// settle it; [`ProbeReport::result`] gives the reason.
    #[cfg(test)]
    pub(crate) fn per_cycle(&self, pipe: Pipe, width: Width) -> Option<Probed> {
        self.result(canonical_test(pipe, width)?).ok()
    }

    /// The settled count for a kernel of `bench::cpu::kernels` by name (the exact
    /// instruction it runs: mul+add kernels get the mul+add test, bf16 dot products
    /// vdpbf16ps, …), or why there is none.
    #[cfg(test)]
    pub(crate) fn for_kernel(&self, kernel: &str) -> Result<Probed, String> {
        match Test::for_kernel(kernel) {
            Some(t) => self.result(t),
            None => Err(format!("probe: kernel {kernel} is not probed")),
        }
    }
}

/// The test that answers for a table (pipe, width): the instruction the kernels of that
/// class run at that width (scalar kernels use the 128-bit pipes). Classes the probe
/// measures at one width only (vpmullq, vdpbf16ps, AVX512-FP16 at 512 bits, AMX tiles)
/// answer for that width only.
fn canonical_test(pipe: Pipe, width: Width) -> Option<Test> {
    use Width::*;
    let w = match width {
        Scalar => V128,
        w => w,
    };
    if cfg!(target_arch = "aarch64") {
        return arm_canonical_test(pipe, w);
    }
    Some(match (pipe, w) {
        (Pipe::Amx, Tile) => Test::AmxBf16,
        (_, Tile) | (Pipe::Alu, _) => return None,
        (Pipe::Fma, w) => Test::Fma(w),
        (Pipe::MulAdd, w) => Test::MulAdd(w),
        (Pipe::Mul32, w) => Test::Vpmulld(w),
        (Pipe::Mul64, V512) => Test::Vpmullq,
        (Pipe::Dot, V256 | V512) => Test::Vpdpbusd(w),
        (Pipe::DotBf16, V512) => Test::Vdpbf16ps,
        (Pipe::Fp16, V512) => Test::Fp16Fma,
        _ => return None,
    })
}

/// aarch64's [`canonical_test`]: the 128-bit FMA and dot-product pipes (NEON FMLA,
/// SDOT); SVE widths and the other classes are not probed.
fn arm_canonical_test(pipe: Pipe, width: Width) -> Option<Test> {
    match (pipe, width) {
        (Pipe::Fma, Width::V128) => Some(Test::Fmla),
        (Pipe::Dot, Width::V128) => Some(Test::Sdot),
        _ => None,
    }
}

impl ProbeReport {
    /// The settled counts as the peaks' rates take them (`CpuInfo::probed`): one entry
    /// per (pipe, width) whose canonical test settled, evidence without its `probe:`
    /// prefix (the provenance says "probe" already).
    pub(crate) fn rates(&self) -> Vec<ProbedRate> {
        use Width::*;
        let pipes = [
            Pipe::Fma,
            Pipe::MulAdd,
            Pipe::Mul32,
            Pipe::Mul64,
            Pipe::Dot,
            Pipe::DotBf16,
            Pipe::Fp16,
            Pipe::Amx,
        ];
        let mut out = Vec::new();
        for pipe in pipes {
            for width in [V128, V256, V512, Tile] {
                let Some(test) = canonical_test(pipe, width) else {
                    continue;
                };
                let probed = match self.get(test).map(|e| &e.result) {
                    Some(Ok(p)) => Probed {
                        evidence: p.evidence.trim_start_matches("probe: ").to_string(),
                        ..p.clone()
                    },
                    // Ran but settled on nothing: the table stands and says why.
                    Some(Err(ProbeError::Other(why))) => Probed {
                        evidence: why.trim_start_matches("probe: ").to_string(),
                        ..Probed::default()
                    },
                    _ => continue,
                };
                out.push(ProbedRate {
                    pipe,
                    width,
                    probed,
                });
            }
        }
        out
    }
}

impl fmt::Display for ProbeReport {
    /// One line per test that ran, then one line naming those the CPU lacks.
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let on = match self.cpus.as_slice() {
            [] => self.cpu.map_or("unpinned".into(), |c| format!("cpu {c}")),
            [c] => format!("cpu {c}"),
            cs => format!(
                "cpus {}",
                cs.iter()
                    .map(|c| c.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        writeln!(
            f,
            "execution probe ({on}, {:.2} s; instructions per core cycle):",
            self.seconds
        )?;
        write_entries(f, &self.entries, "  ")?;
        for k in &self.other_kinds {
            writeln!(
                f,
                "  {} (cpus {}):",
                k.kind,
                k.cpus
                    .iter()
                    .map(|c| c.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            )?;
            write_entries(f, &k.entries, "    ")?;
        }
        Ok(())
    }
}

/// One line per entry that ran, then one naming those the CPU lacks.
fn write_entries(f: &mut fmt::Formatter, entries: &[ProbeEntry], indent: &str) -> fmt::Result {
    let mut lacking = Vec::new();
    for e in entries {
        match &e.result {
            Ok(p) => writeln!(f, "{indent}{}", p.evidence.trim_start_matches("probe: "))?,
            Err(ProbeError::Lacks(_)) => lacking.push(e.test.name()),
            Err(r) => writeln!(
                f,
                "{indent}{}: none, {}",
                e.test.name(),
                r.to_string().trim_start_matches("probe: ")
            )?,
        }
    }
    if !lacking.is_empty() {
        writeln!(
            f,
            "{indent}not run (CPU lacks them): {}",
            lacking.join(", ")
        )?;
    }
    Ok(())
}

/// Formats a unit count: `2`, `2/3`, `1/16`.
pub(crate) fn fmt_units(x: f64) -> String {
    for d in 1..=32u32 {
        let n = x * f64::from(d);
        if (n - n.round()).abs() < 1e-9 && n.round() >= 1.0 {
            return if d == 1 {
                format!("{}", n.round())
            } else {
                format!("{}/{d}", n.round())
            };
        }
    }
    format!("{x:.3}")
}

fn fmt_measured(m: &[f64]) -> String {
    m.iter()
        .map(|x| {
            if *x < 0.2 {
                format!("{x:.4}")
            } else {
                format!("{x:.2}")
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Snaps independent estimates of one rate to an allowed unit count: `Ok((count,
/// "count (measured …)"))` when every estimate lies within [`TOLERANCE`] (relative) of
/// the same candidate, `Err(reason)` when there is none, one is not finite and
/// positive, one lies between candidates (ambiguous), or they snap to different
/// candidates (noisy).
pub(crate) fn decide(estimates: &[f64], candidates: &[f64]) -> Result<(f64, String), String> {
    decide_within(estimates, candidates, TOLERANCE)
}

/// [`decide`] with a given relative tolerance.
pub(crate) fn decide_within(
    estimates: &[f64],
    candidates: &[f64],
    tolerance: f64,
) -> Result<(f64, String), String> {
    if estimates.is_empty() {
        return Err("no measurement".into());
    }
    if let Some(bad) = estimates.iter().find(|x| !(x.is_finite() && **x > 0.0)) {
        return Err(format!("unusable measurement {bad}"));
    }
    let allowed = || {
        candidates
            .iter()
            .map(|c| fmt_units(*c))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut chosen: Option<f64> = None;
    for &m in estimates {
        // Nearest on a log scale, i.e. by ratio, as the tolerance is relative.
        let near = candidates
            .iter()
            .copied()
            .min_by(|a, b| (m / a).ln().abs().total_cmp(&(m / b).ln().abs()));
        let Some(c) = near.filter(|c| ((m - c) / c).abs() <= tolerance) else {
            return Err(format!(
                "measured {} per cycle, not within {:.0} % of any of {} (ambiguous)",
                fmt_measured(estimates),
                tolerance * 100.0,
                allowed()
            ));
        };
        match chosen {
            Some(prev) if prev != c => {
                return Err(format!(
                    "repeated measurements disagree ({} per cycle: {} vs {}), too noisy",
                    fmt_measured(estimates),
                    fmt_units(prev),
                    fmt_units(c)
                ))
            }
            _ => chosen = Some(c),
        }
    }
    let c = chosen.expect("estimates is not empty");
    Ok((
        c,
        format!("{} (measured {})", fmt_units(c), fmt_measured(estimates)),
    ))
}

/// Evidence for a settled test, e.g. `probe: 2 FMA/cycle, vfmadd231pd ymm (measured 1.97, 1.99)`.
fn evidence(test: Test, c: f64, estimates: &[f64]) -> String {
    format!(
        "probe: {} {}/cycle, {} (measured {})",
        fmt_units(c),
        test.unit_word(),
        test.name(),
        fmt_measured(estimates)
    )
}

/// One reading of a probe loop: instructions per cycle over one short timing (a clock
/// reading and the loop, back to back) on one CPU, and whether the timing thread kept
/// its core meanwhile (its CPU time at least `measure::share::MIN_SHARE` of the wall
/// time). This is the interface an architecture's loops feed the decision rule
/// ([`settle`]) with: x86 in [`measure_readings`], other architectures in their own
/// files.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Reading {
    /// The CPU it was taken on, when pinned.
    pub(crate) cpu: Option<usize>,
    /// Instructions per cycle.
    pub(crate) per_cycle: f64,
    /// Whether the thread kept its core during the reading.
    pub(crate) kept_core: bool,
}

/// Fewest readings taken while their thread kept its core that settle a count.
pub(crate) const MIN_READINGS: usize = 3;

/// Two readings within this (relative) of each other corroborate each other.
pub(crate) const CONSISTENT: f64 = 0.03;

/// What a test's readings say, before the table is consulted.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Settled {
    /// The allowed count the highest consistent reading snaps to.
    pub(crate) count: f64,
    /// The highest reading another reading corroborates (within [`CONSISTENT`]).
    pub(crate) best: f64,
    /// The readings taken while their thread kept its core, in order.
    pub(crate) readings: Vec<f64>,
    /// Readings left out: their thread lost its core, or they were not finite.
    pub(crate) dropped: usize,
    /// (largest − smallest) ÷ largest of `readings`.
    pub(crate) spread: f64,
    /// Whether every kept reading snaps to `count`: only then may it lower a table.
    pub(crate) consistent: bool,
    /// The CPUs the readings were taken on.
    pub(crate) cpus: Vec<usize>,
}

/// The nearest candidate by ratio, when within `tolerance` (relative).
fn snap(m: f64, candidates: &[f64], tolerance: f64) -> Option<f64> {
    candidates
        .iter()
        .copied()
        .min_by(|a, b| (m / a).ln().abs().total_cmp(&(m / b).ln().abs()))
        .filter(|c| ((m - c) / c).abs() <= tolerance)
}

/// The decision rule of the probe, the same on every architecture. A disturbance (a
/// task or another tenant on the core, the host) only ever lowers a throughput, so:
/// readings whose thread lost its core are left out; the figure is the *highest
/// consistent* reading (the highest one another reading lies within [`CONSISTENT`]
/// of, so that one reading spoilt upwards, by a clock reading cut short, counts for
/// nothing), snapped to an allowed count within `tolerance`. `consistent` says whether
/// every reading snaps to that same count. `Err` with the readings when fewer than
/// [`MIN_READINGS`] kept their core (disturbed), when no two agree (inconsistent), or
/// when the highest consistent one lies between counts (ambiguous).
pub(crate) fn settle(
    readings: &[Reading],
    candidates: &[f64],
    tolerance: f64,
) -> Result<Settled, String> {
    let kept: Vec<f64> = readings
        .iter()
        .filter(|r| r.kept_core && r.per_cycle.is_finite() && r.per_cycle > 0.0)
        .map(|r| r.per_cycle)
        .collect();
    let dropped = readings.len() - kept.len();
    let mut cpus: Vec<usize> = readings.iter().filter_map(|r| r.cpu).collect();
    cpus.sort_unstable();
    cpus.dedup();
    if kept.len() < MIN_READINGS {
        return Err(format!(
            "disturbed: only {} of {} readings kept their core{}",
            kept.len(),
            readings.len(),
            if kept.is_empty() {
                String::new()
            } else {
                format!(" ({})", fmt_measured(&kept))
            }
        ));
    }
    let (lo, hi) = kept
        .iter()
        .fold((f64::INFINITY, 0.0f64), |(l, h), x| (l.min(*x), h.max(*x)));
    let spread = (hi - lo) / hi;
    let mut sorted = kept.clone();
    sorted.sort_by(|a, b| b.total_cmp(a));
    let best = sorted.iter().enumerate().find_map(|(i, x)| {
        sorted
            .iter()
            .enumerate()
            .any(|(j, y)| i != j && (x - y).abs() <= CONSISTENT * x)
            .then_some(*x)
    });
    let Some(best) = best else {
        return Err(format!(
            "inconsistent: no two of {} readings within {:.0} % of each other ({}; spread {:.0} %)",
            kept.len(),
            CONSISTENT * 100.0,
            fmt_measured(&kept),
            spread * 100.0
        ));
    };
    let Some(count) = snap(best, candidates, tolerance) else {
        return Err(format!(
            "ambiguous: highest consistent reading {} per cycle is not within {:.0} % of any of {} (readings {}; spread {:.0} %)",
            fmt_measured(&[best]),
            tolerance * 100.0,
            candidates
                .iter()
                .map(|c| fmt_units(*c))
                .collect::<Vec<_>>()
                .join(", "),
            fmt_measured(&kept),
            spread * 100.0
        ));
    };
    let consistent = kept
        .iter()
        .all(|x| snap(*x, candidates, tolerance) == Some(count));
    Ok(Settled {
        count,
        best,
        readings: kept,
        dropped,
        spread,
        consistent,
        cpus,
    })
}

impl Settled {
    /// `highest consistent reading 1.99 of 12 on cpus 0, 1 (1.95-1.99, spread 2 %)`,
    /// with the readings left out and whether they disagree.
    fn words(&self) -> String {
        let (lo, hi) = self
            .readings
            .iter()
            .fold((f64::INFINITY, 0.0f64), |(l, h), x| (l.min(*x), h.max(*x)));
        let mut s = format!(
            "highest consistent reading {} of {}{} ({}-{}, spread {:.0} %)",
            fmt_measured(&[self.best]),
            self.readings.len(),
            match self.cpus.as_slice() {
                [] => String::new(),
                [c] => format!(" on cpu {c}"),
                cs => format!(
                    " on cpus {}",
                    cs.iter()
                        .map(|c| c.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            },
            fmt_measured(&[lo]),
            fmt_measured(&[hi]),
            self.spread * 100.0
        );
        if self.dropped > 0 {
            s.push_str(&format!(
                ", {} left out (thread lost its core)",
                self.dropped
            ));
        }
        if !self.consistent {
            s.push_str(", readings disagree");
        }
        s
    }

    /// The probe's answer from these readings, with `evidence`.
    fn probed(&self, per_cycle: f64, evidence: String) -> Probed {
        Probed {
            per_cycle,
            evidence,
            readings: self
                .readings
                .iter()
                .map(|x| (x * 1e4).round() / 1e4)
                .collect(),
            spread: Some((self.spread * 1e4).round() / 1e4),
            dropped: self.dropped,
            consistent: self.consistent,
        }
    }
}

/// Settles an ordinary test from its readings ([`settle`]).
pub(crate) fn settle_test(test: Test, readings: &[Reading]) -> Result<Probed, String> {
    let s = settle(readings, test.candidates(), test.tolerance())?;
    Ok(s.probed(
        s.count,
        format!(
            "probe: {} {}/cycle, {} ({})",
            fmt_units(s.count),
            test.unit_word(),
            test.name(),
            s.words()
        ),
    ))
}

/// Settles the 512-bit FMA count from the pure loop's and the shuffle mix's readings:
/// each settled on its own ([`settle`]), then [`decide_fma512`] on their highest
/// consistent readings.
pub(crate) fn settle_fma512(
    pure: &[Reading],
    mix: &[Reading],
    shuffle_shares_port5: bool,
) -> Result<Probed, String> {
    let p = settle(pure, FMA_UNITS, TOLERANCE)?;
    let m = settle(mix, FMA_UNITS, WIDE_TOLERANCE)
        .map_err(|e| format!("pure FMA loop settled, shuffle mix did not: {e}"))?;
    let d = decide_fma512(&[p.best], &[m.best], shuffle_shares_port5)?;
    Ok(p.probed(
        d.per_cycle,
        format!("{}; pure loop: {}", d.evidence, p.words()),
    ))
}

/// Settles the 512-bit FMA count from the pure loop's estimates (FMA/cycle) and the
/// shuffle mix's (FMA/cycle with one shuffle per FMA). The slowdown pure ÷ mix is 2
/// with two 512-bit FMA units on Intel (the second shares port 5 with the shuffles)
/// and 1 with one. With `shuffle_shares_port5` (Intel) the two must agree; elsewhere
/// the slowdown is only reported.
pub(crate) fn decide_fma512(
    pure: &[f64],
    mix: &[f64],
    shuffle_shares_port5: bool,
) -> Result<Probed, String> {
    let test = Test::Fma(Width::V512);
    let (c, _) = decide(pure, FMA_UNITS)?;
    let slowdown: Vec<f64> = pure.iter().zip(mix).map(|(p, m)| p / m).collect();
    let mixed = decide_within(&slowdown, MIX_UNITS, WIDE_TOLERANCE);
    let mut ev = evidence(test, c, pure);
    if !shuffle_shares_port5 {
        ev.push_str(&format!(
            "; shuffle mix slows it x{} (not used: shuffles need not share an FMA port on this vendor)",
            fmt_measured(&slowdown)
        ));
        return Ok(Probed {
            per_cycle: c,
            evidence: ev,
            ..Probed::default()
        });
    }
    match mixed {
        Ok((units, _)) if units == c => {
            ev.push_str(&format!(
                "; shuffle mix slows it x{}: {} unit{} (port 5 {})",
                fmt_measured(&slowdown),
                fmt_units(units),
                if units == 1.0 { "" } else { "s" },
                if units == 1.0 {
                    "free for shuffles"
                } else {
                    "shared with shuffles"
                }
            ));
            Ok(Probed {
                per_cycle: c,
                evidence: ev,
                ..Probed::default()
            })
        }
        Ok((units, _)) => Err(format!(
            "pure FMA loop gives {} per cycle (measured {}) but the shuffle mix slows it x{}, which says {} unit{}: inconsistent",
            fmt_units(c),
            fmt_measured(pure),
            fmt_measured(&slowdown),
            fmt_units(units),
            if units == 1.0 { "" } else { "s" }
        )),
        Err(e) => Err(format!(
            "pure FMA loop gives {} per cycle (measured {}) but the shuffle mix is unclear: {e}",
            fmt_units(c),
            fmt_measured(pure)
        )),
    }
}

/// Runs the probe once per process (first caller's CPU) and returns it.
pub(crate) fn probe(cpu: &CpuInfo) -> &'static ProbeReport {
    static REPORT: OnceLock<ProbeReport> = OnceLock::new();
    REPORT.get_or_init(|| run_probe(cpu))
}

/// Most CPUs the probe takes readings on: the first of `CpuInfo::pin_order`, the CPUs a
/// run's threads are pinned to first.
pub(crate) const PROBE_CPUS: usize = 4;

/// Runs every test the CPU has, on a thread pinned in turn to each of the first
/// [`PROBE_CPUS`] CPUs of `cpu.pin_order` (not cached; see [`probe`]).
pub(crate) fn run_probe(cpu: &CpuInfo) -> ProbeReport {
    let t0 = std::time::Instant::now();
    if cfg!(target_arch = "aarch64") {
        return super::probe_arm::run_probe(cpu, t0);
    }
    let want: Vec<usize> = cpu.pin_order.iter().copied().take(PROBE_CPUS).collect();
    let cpu_ref = cpu;
    let (entries, pinned) = std::thread::scope(|s| {
        s.spawn(move || {
            // The CPUs the OS lets this thread run on; unpinned when none.
            let pinned: Vec<usize> = want
                .iter()
                .copied()
                .filter(|&c| crate::measure::runner::pin_current_thread(c))
                .collect();
            (run_tests(cpu_ref, &pinned), pinned)
        })
        .join()
        .unwrap_or_else(|_| (Vec::new(), Vec::new()))
    });
    ProbeReport {
        entries,
        other_kinds: Vec::new(),
        cpu: pinned.first().copied(),
        cpus: pinned,
        seconds: t0.elapsed().as_secs_f64(),
    }
}

/// Why a test cannot run on this CPU, or `None`.
fn unavailable(test: Test, cpu: &CpuInfo) -> Option<ProbeError> {
    if cfg!(target_arch = "aarch64") {
        if let Some(why) = super::arm::emulated() {
            // No clock under an emulator: a rate per cycle would be the emulator's.
            return Some(
                format!(
                    "probe: {}, no rates per cycle ({why})",
                    super::arm::EMULATED
                )
                .into(),
            );
        }
    } else if !cfg!(target_arch = "x86_64") {
        return Some("probe: only x86-64 and aarch64 have probe loops".into());
    }
    let missing: Vec<String> = test
        .requires()
        .iter()
        .filter(|r| !cpu.has(r))
        .map(|r| r.to_string())
        .collect();
    if !missing.is_empty() {
        return Some(ProbeError::Lacks(missing));
    }
    if matches!(test, Test::AmxBf16 | Test::AmxInt8) {
        if let Err(e) = super::cpu::request_amx_permission() {
            return Some(format!("probe: {e}").into());
        }
    }
    None
}

/// Runs the tests the CPU has, their readings interleaved in rounds spread over time
/// on every CPU of `cpus` (see [`measure_readings`]), and settles each.
pub(crate) fn run_tests(cpu: &CpuInfo, cpus: &[usize]) -> Vec<ProbeEntry> {
    super::clock::clean_vector_state();
    let intel = cpu.vendor == "GenuineIntel";
    let runnable: Vec<Test> = tests_here()
        .iter()
        .copied()
        .filter(|t| unavailable(*t, cpu).is_none())
        .collect();
    let mut readings = readings_of(&runnable, cpus);
    tests_here()
        .iter()
        .map(|&test| {
            let result = match unavailable(test, cpu) {
                Some(why) => Err(why),
                None => {
                    let r = readings
                        .iter_mut()
                        .find(|(t, _)| *t == test)
                        .map(|(_, r)| std::mem::take(r))
                        .unwrap_or_default();
                    decide_readings(test, &r, intel)
                        .map_err(|e| ProbeError::from(format!("probe: {e}")))
                }
            };
            ProbeEntry { test, result }
        })
        .collect()
}

/// A test's count from its readings per loop (the test's loop first, then its
/// alternative order or, for 512-bit FMA, the shuffle mix).
fn decide_readings(test: Test, loops: &[Vec<Reading>], intel: bool) -> Result<Probed, String> {
    let Some(first) = loops.first() else {
        return Err("no readings".into());
    };
    if test == Test::Fma(Width::V512) {
        return settle_fma512(first, loops.get(1).map_or(&[][..], |v| v), intel);
    }
    // The faster order per reading (both were timed in the same rounds).
    let best: Vec<Reading> = (0..first.len())
        .map(|i| {
            let mut r = first[i];
            for l in &loops[1..] {
                if let Some(o) = l.get(i) {
                    r.per_cycle = r.per_cycle.max(o.per_cycle);
                }
            }
            r
        })
        .collect();
    settle_test(test, &best)
}

#[cfg(target_arch = "x86_64")]
fn readings_of(tests: &[Test], cpus: &[usize]) -> Vec<(Test, Vec<Vec<Reading>>)> {
    use super::probe_x86 as x;
    let jobs: Vec<Job> = tests
        .iter()
        .filter_map(|&test| {
            let (_, width) = test.pipe_width();
            let chain: super::clock::ChainFn = match width {
                Width::V512 | Width::Tile if std::is_x86_feature_detected!("avx512f") => {
                    x::zmm_clock_chain
                }
                Width::V256 if std::is_x86_feature_detected!("fma") => x::ymm_clock_chain,
                _ => super::clock::chain_fn(super::clock::ClockKind::Scalar)?,
            };
            let mut loops = vec![x::loop_for(test)];
            if test == Test::Fma(Width::V512) {
                loops.push(x::loop_for(Test::FmaShuffleMix));
            } else {
                loops.extend(x::alternative_for(test));
            }
            Some(Job { test, loops, chain })
        })
        .collect();
    // SAFETY: `run_tests` passes only tests whose instructions the CPU has (and AMX
    // permission); the zmm and ymm chains are chosen only with AVX-512F and FMA.
    let out = unsafe { measure_readings(&jobs, cpus) };
    jobs.iter().map(|j| j.test).zip(out).collect()
}

#[cfg(target_arch = "aarch64")]
fn readings_of(tests: &[Test], cpus: &[usize]) -> Vec<(Test, Vec<Vec<Reading>>)> {
    // The plain add chain: exists only on a native core (`clock::chain_available`).
    let Some(chain) = super::clock::chain_fn(super::clock::ClockKind::Scalar) else {
        return Vec::new();
    };
    let jobs: Vec<Job> = tests
        .iter()
        .filter_map(|&test| {
            Some(Job {
                test,
                loops: vec![super::probe_arm::loop_for(test)?],
                chain,
            })
        })
        .collect();
    // SAFETY: `run_tests` passes only tests whose instructions the CPU has; the add
    // chain is plain A64.
    let out = unsafe { measure_readings(&jobs, cpus) };
    jobs.iter().map(|j| j.test).zip(out).collect()
}

#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
fn readings_of(_tests: &[Test], _cpus: &[usize]) -> Vec<(Test, Vec<Vec<Reading>>)> {
    Vec::new()
}

/// A probe loop: runs `loops` iterations (`probe_x86.rs`, `probe_arm.rs`).
pub(crate) type LoopFn = unsafe fn(u64);

/// One test's loops (each with its instructions per iteration) and its clock chain.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
struct Job {
    test: Test,
    loops: Vec<(LoopFn, u64)>,
    chain: super::clock::ChainFn,
}

/// Rounds per CPU: each round takes one reading of every test's loops on each CPU.
pub(crate) const ROUNDS: usize = 6;
/// Length of one clock reading and of one timed loop run, seconds.
const SLICE: f64 = 0.0006;
/// The rounds are spread over at least this long, so that a moment of contention
/// spoils a few readings, not all of them.
pub(crate) const SPREAD_SECS: f64 = 0.5;

/// Takes [`ROUNDS`] rounds of readings, spread over [`SPREAD_SECS`]: in each round, on
/// each CPU of `cpus` in turn (the calling thread is pinned there; unpinned when
/// empty), for each job a warm-up run of its first loop, a clock reading with its
/// chain, then each loop timed once; the reading is that loop's instructions per
/// second ÷ the clock, and it kept its core when the thread's CPU time covered the
/// chain and the loops. Returns per job, per loop, the readings in order.
///
/// # Safety
/// The CPU must have the instructions of every job's loops and chain.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
unsafe fn measure_readings(jobs: &[Job], cpus: &[usize]) -> Vec<Vec<Vec<Reading>>> {
    use crate::measure::clock::Tick;
    use crate::measure::share::{ThreadMark, MIN_SHARE};
    let time = |f: LoopFn, n: u64| {
        let t0 = Tick::now();
        f(n);
        Tick::now().secs_since(t0)
    };
    let on: Vec<Option<usize>> = if cpus.is_empty() {
        vec![None]
    } else {
        cpus.iter().copied().map(Some).collect()
    };
    if let Some(Some(c)) = on.first() {
        crate::measure::runner::pin_current_thread(*c);
    }
    // Iterations for about SLICE seconds each, grown from a short first run.
    let counts: Vec<Vec<u64>> = jobs
        .iter()
        .map(|j| {
            j.loops
                .iter()
                .map(|&(f, _)| {
                    let mut n = 64u64;
                    loop {
                        let dt = time(f, n);
                        if dt >= SLICE / 8.0 || n > 1 << 34 {
                            return ((n as f64 * SLICE / dt.max(1e-9)) as u64).max(1);
                        }
                        n *= 8;
                    }
                })
                .collect()
        })
        .collect();
    let mut out: Vec<Vec<Vec<Reading>>> = jobs
        .iter()
        .map(|j| vec![Vec::new(); j.loops.len()])
        .collect();
    let t0 = Tick::now();
    for round in 0..ROUNDS {
        for &c in &on {
            if let Some(c) = c {
                crate::measure::runner::pin_current_thread(c);
            }
            for ((j, n), o) in jobs.iter().zip(&counts).zip(out.iter_mut()) {
                // Warm-up: settles the frequency licence and the caches.
                time(j.loops[0].0, 2 * n[0]);
                let m0 = ThreadMark::now();
                let w0 = Tick::now();
                let hz = super::clock::chain_hz(j.chain, SLICE);
                let rates: Vec<f64> = j
                    .loops
                    .iter()
                    .zip(n)
                    .map(|(&(f, per_loop), &k)| (k * per_loop) as f64 / time(f, k).max(1e-9))
                    .collect();
                let wall = Tick::now().secs_since(w0);
                let kept = ThreadMark::now().since(m0, wall, 1, c).share >= MIN_SHARE;
                for (i, rate) in rates.into_iter().enumerate() {
                    o[i].push(Reading {
                        cpu: c,
                        per_cycle: rate / hz,
                        kept_core: kept,
                    });
                }
            }
        }
        // Spread the rounds in time: sleep until this round's share of SPREAD_SECS.
        let due = SPREAD_SECS * (round + 1) as f64 / (ROUNDS - 1) as f64;
        let left = due - Tick::now().secs_since(t0);
        if left > 0.0 && round + 1 < ROUNDS {
            std::thread::sleep(std::time::Duration::from_secs_f64(left));
        }
    }
    out
}

#[cfg(test)]
#[path = "probe_tests.rs"]
mod tests;
