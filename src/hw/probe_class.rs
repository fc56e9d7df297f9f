//! The execution probe's tests (`probe.rs`): the instruction classes it times ([`Test`],
//! an instruction at a width), the lists of them a report holds ([`TESTS`], aarch64's
//! [`ARM_TESTS`]), what each needs of the CPU, and the unit counts a reading of each may
//! snap to, with their tolerances. Below the rest of the probe: the loops
//! (`probe_x86.rs`, `probe_arm.rs`), the decision rule (`probe_settle.rs`) and the
//! report (`probe_report.rs`) all name these.

#[cfg(any(target_arch = "x86_64", test))]
use super::uarch::Pipe;
use super::uarch::Width;

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
    /// The F16C fp16 step at 256 bits: `vcvtph2ps ymm, xmm`, `vfmadd132ps ymm`,
    /// `vcvtps2ph xmm, ymm` on one accumulator, as `fma_f16_f16c` runs it (one step is
    /// one counted instruction, as the kernel counts it).
    F16c,
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
    /// aarch64: SVE `fmla z.d` at the core's vector length (tells two 256-bit SVE pipes,
    /// Neoverse V1, from four 128-bit ones).
    SveFmla,
    /// aarch64: NEON `smmla v.4s` (I8MM).
    Smmla,
    /// aarch64: NEON `bfmmla v.4s` (BF16).
    Bfmmla,
}

/// Allowed FMA and mul+add instructions per cycle.
pub(crate) const FMA_UNITS: &[f64] = &[0.5, 1.0, 2.0, 3.0, 4.0];
/// Allowed integer multiplies per cycle (vpmullq is 3 µops: 1/3 or 2/3 on Intel).
pub(crate) const MUL_UNITS: &[f64] = &[0.25, 1.0 / 3.0, 0.5, 2.0 / 3.0, 1.0, 2.0];
/// Allowed dot-product instructions per cycle.
pub(crate) const DOT_UNITS: &[f64] = &[0.5, 1.0, 2.0, 3.0, 4.0];
/// Allowed F16C steps per cycle: two conversions of 1-2 µops each on one or two ports.
pub(crate) const F16C_STEPS: &[f64] = &[0.25, 1.0 / 3.0, 0.5, 2.0 / 3.0, 1.0];
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
    Test::F16c,
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

/// The tests of an aarch64 core, in report order (`probe_arm.rs`): FMLA, SVE FMLA, SDOT,
/// SMMLA, BFMMLA.
pub(crate) const ARM_TESTS: &[Test] = &[
    Test::Fmla,
    Test::SveFmla,
    Test::Sdot,
    Test::Smmla,
    Test::Bfmmla,
];

/// The width SVE instructions run at on this machine (`arm::sve_vector_bytes`; 128 bits
/// without SVE, lengths above 512 bits at 512).
pub(crate) fn sve_width() -> Width {
    match super::arm::sve_vector_bytes().unwrap_or(16) {
        0..=16 => Width::V128,
        17..=32 => Width::V256,
        _ => Width::V512,
    }
}

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
            Test::F16c => "vcvtph2ps+vfmadd132ps+vcvtps2ph ymm".into(),
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
            Test::SveFmla => "fmla z.d (SVE)".into(),
            Test::Smmla => "smmla v.4s".into(),
            Test::Bfmmla => "bfmmla v.4s".into(),
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
            Test::F16c => (Pipe::F16c, Width::V256),
            Test::Vpmulld(w) => (Pipe::Mul32, w),
            Test::Vpmullq => (Pipe::Mul64, Width::V512),
            Test::Vpmaddwd(w) | Test::Vpdpbusd(w) | Test::Vpdpwssd(w) => (Pipe::Dot, w),
            Test::Vdpbf16ps => (Pipe::DotBf16, Width::V512),
            Test::Fp16Fma => (Pipe::Fp16, Width::V512),
            Test::AmxBf16 | Test::AmxInt8 => (Pipe::Amx, Width::Tile),
            Test::Fmla => (Pipe::Fma, Width::V128),
            Test::Sdot => (Pipe::Dot, Width::V128),
            Test::SveFmla => (Pipe::Fma, sve_width()),
            Test::Smmla => (Pipe::Mmla, Width::V128),
            Test::Bfmmla => (Pipe::MmlaBf16, Width::V128),
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
            Test::F16c => &["avx", "fma", "f16c"],
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
            Test::SveFmla => &["sve"],
            Test::Smmla => &["neon", "i8mm"],
            Test::Bfmmla => &["neon", "bf16"],
        }
    }

    /// The unit counts a measurement may snap to.
    pub(crate) fn candidates(self) -> &'static [f64] {
        match self {
            Test::Fma(_) | Test::MulAdd(_) | Test::Fmla | Test::SveFmla => FMA_UNITS,
            #[cfg(target_arch = "x86_64")]
            Test::FmaShuffleMix => MIX_UNITS,
            Test::F16c => F16C_STEPS,
            Test::Vpmulld(_) | Test::Vpmullq => MUL_UNITS,
            Test::Vpmaddwd(_)
            | Test::Vpdpbusd(_)
            | Test::Vpdpwssd(_)
            | Test::Vdpbf16ps
            | Test::Sdot
            | Test::Smmla
            | Test::Bfmmla => DOT_UNITS,
            Test::Fp16Fma => FP16_UNITS,
            Test::AmxBf16 | Test::AmxInt8 => AMX_UNITS,
        }
    }

    /// Relative tolerance of [`decide_within`] for this test's candidates.
    ///
    /// [`decide_within`]: super::probe_settle::decide_within
    pub(crate) fn tolerance(self) -> f64 {
        match self {
            Test::AmxBf16 | Test::AmxInt8 => WIDE_TOLERANCE,
            #[cfg(target_arch = "x86_64")]
            Test::FmaShuffleMix => WIDE_TOLERANCE,
            _ => TOLERANCE,
        }
    }

    /// What one counted instruction is called in evidence.
    pub(super) fn unit_word(self) -> &'static str {
        match self {
            Test::Fma(_) => "FMA",
            #[cfg(target_arch = "x86_64")]
            Test::FmaShuffleMix => "FMA",
            Test::MulAdd(_) => "mul/add",
            Test::F16c => "F16C step",
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
            Test::SveFmla => "SVE FMLA",
            Test::Smmla => "SMMLA",
            Test::Bfmmla => "BFMMLA",
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
            "fma_f16_f16c" => Test::F16c,
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
            "fma_f64_sve" | "fma_f32_sve" | "fma_f16_sve" => Test::SveFmla,
            "smmla_i8_neon" | "ummla_i8_neon" | "smmla_i8_sve" => Test::Smmla,
            "bfmmla_bf16_neon" | "bfmmla_bf16_sve" => Test::Bfmmla,
            _ => return None,
        })
    }
}
