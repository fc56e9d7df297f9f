//! The CPU KERNELS table: one row per kernel with what it computes, which instructions
//! and execution pipes it uses, and how many operations one loop iteration performs.
//! The runner derives OP/s from `ops_per_iter`; `peak.rs` derives the theoretical peak
//! from `pipe`, `width` and `ops_per_instr`. Adding a kernel is one function and one row.
//!
//! Operation counting: an FMA is 2 operations per lane; a mul+add pair is
//! 2 instructions of 1 operation per lane; a vpdpbusd i32 lane is 4 multiplies + 4 adds
//! = 8 operations; vpdpwssd and vdpbf16ps lanes are 2 + 2 = 4; an AMX tile multiply is
//! M·N·K multiply-adds = 2·M·N·K operations.
//!
//! Every row has a scalar `reference` giving the value one accumulator lane must hold
//! after `iters` iterations; the tests compare every lane of every accumulator with it.

use crate::hw::clock::ChainFn;
use crate::hw::uarch::{Pipe, Width};

pub(crate) use super::kernel::{Elem, Layout, Operands, Values};
pub use super::kernel::{Isa, Kernel, Precision};
pub(crate) use super::kernel::{KernelFn, CONVERGE_B};

// ---- scalar references: one accumulator lane after n iterations ----

fn ref_fma_f64(n: u64) -> f64 {
    let (a, b) = (1.0 - CONVERGE_B, CONVERGE_B);
    (0..n).fold(0.0f64, |acc, _| acc.mul_add(a, b))
}
fn ref_muladd_f64(n: u64) -> f64 {
    let (a, b) = (1.0 - CONVERGE_B, CONVERGE_B);
    (0..n).fold(0.0f64, |acc, _| acc * a + b)
}
fn ref_fma_f32(n: u64) -> f64 {
    let (a, b) = ((1.0 - CONVERGE_B) as f32, CONVERGE_B as f32);
    f64::from((0..n).fold(0.0f32, |acc, _| acc.mul_add(a, b)))
}
fn ref_muladd_f32(n: u64) -> f64 {
    let (a, b) = ((1.0 - CONVERGE_B) as f32, CONVERGE_B as f32);
    f64::from((0..n).fold(0.0f32, |acc, _| acc * a + b))
}
fn ref_fma_f16(n: u64) -> f64 {
    // f16 × f16 is exact in f64 and so is the sum with 2⁻¹⁰ at these magnitudes, so
    // one rounding of the f64 result to f16 is exactly what a fused f16 FMA does.
    let (a, b) = (1.0 - CONVERGE_B, CONVERGE_B);
    (0..n)
        .fold(half::f16::ZERO, |acc, _| {
            half::f16::from_f64(acc.to_f64() * a + b)
        })
        .to_f64()
}
fn ref_fma_f16_f16c(n: u64) -> f64 {
    // The F16C kernel's step: widen the fp16 accumulator to f32, one fused f32 FMA, round
    // to fp16 (nearest even), as `half` does.
    let (a, b) = ((1.0 - CONVERGE_B) as f32, CONVERGE_B as f32);
    (0..n)
        .fold(half::f16::ZERO, |acc, _| {
            half::f16::from_f32(acc.to_f32().mul_add(a, b))
        })
        .to_f64()
}
fn ref_dot_bf16(n: u64) -> f64 {
    // Two products of 1.0 × 2⁻¹⁰ per lane per step, added in f32.
    let p = CONVERGE_B as f32;
    f64::from((0..n).fold(0.0f32, |acc, _| acc + p + p))
}
fn ref_dot_i8(n: u64) -> f64 {
    f64::from((0..n).fold(0i32, |acc, _| acc.wrapping_add(4 * (3 * -2))))
}
fn ref_dot_i16(n: u64) -> f64 {
    f64::from((0..n).fold(0i32, |acc, _| acc.wrapping_add(2 * (3 * -2))))
}
fn ref_add_i32(n: u64) -> f64 {
    f64::from((0..n).fold(0i32, |acc, _| acc.wrapping_add(7)))
}
fn ref_mul_i32(n: u64) -> f64 {
    f64::from((0..n).fold(1i32, |acc, _| acc.wrapping_mul(3)))
}
fn ref_add_i64(n: u64) -> f64 {
    (0..n).fold(0i64, |acc, _| acc.wrapping_add(7)) as f64
}
fn ref_mul_i64(n: u64) -> f64 {
    (0..n).fold(1i64, |acc, _| acc.wrapping_mul(3)) as f64
}
fn ref_amx_bf16(n: u64) -> f64 {
    // K = 32 products of 1.0 × 2⁻¹⁰ per element per tile multiply.
    let p = CONVERGE_B as f32;
    f64::from((0..n).fold(0.0f32, |acc, _| acc + 32.0 * p))
}
fn ref_amx_i8(n: u64) -> f64 {
    f64::from((0..n).fold(0i32, |acc, _| acc.wrapping_add(64 * (3 * -2))))
}
fn ref_lcg_i8(n: u64) -> f64 {
    f64::from((0..n).fold(0i8, |acc, _| acc.wrapping_mul(3).wrapping_add(7)))
}
fn ref_lcg_i16(n: u64) -> f64 {
    f64::from((0..n).fold(0i16, |acc, _| acc.wrapping_mul(3).wrapping_add(7)))
}
fn ref_lcg_i32(n: u64) -> f64 {
    f64::from((0..n).fold(0i32, |acc, _| acc.wrapping_mul(3).wrapping_add(7)))
}
fn ref_lcg_i64(n: u64) -> f64 {
    (0..n).fold(0i64, |acc, _| acc.wrapping_mul(3).wrapping_add(7)) as f64
}

// Arm: FMLA accumulates a × b (exact in every format) with one rounding per step.
#[cfg(target_arch = "aarch64")]
fn ref_fmla_f64(n: u64) -> f64 {
    let (a, b) = (1.0 - CONVERGE_B, CONVERGE_B);
    (0..n).fold(0.0f64, |acc, _| a.mul_add(b, acc))
}
#[cfg(target_arch = "aarch64")]
fn ref_fmla_f32(n: u64) -> f64 {
    let (a, b) = ((1.0 - CONVERGE_B) as f32, CONVERGE_B as f32);
    f64::from((0..n).fold(0.0f32, |acc, _| a.mul_add(b, acc)))
}
#[cfg(target_arch = "aarch64")]
fn ref_fmla_f16(n: u64) -> f64 {
    let p = (1.0 - CONVERGE_B) * CONVERGE_B;
    (0..n)
        .fold(half::f16::ZERO, |acc, _| {
            half::f16::from_f64(acc.to_f64() + p)
        })
        .to_f64()
}
#[cfg(target_arch = "aarch64")]
fn ref_mmla_bf16(n: u64) -> f64 {
    // Four products of 1.0 × 2⁻¹⁰ per lane per BFMMLA.
    let p = CONVERGE_B as f32;
    f64::from((0..n).fold(0.0f32, |acc, _| acc + 4.0 * p))
}
#[cfg(target_arch = "aarch64")]
fn ref_udot_i8(n: u64) -> f64 {
    // UDOT reads b = −2 as the byte 254.
    f64::from((0..n).fold(0i32, |acc, _| acc.wrapping_add(4 * 3 * 254)))
}
#[cfg(target_arch = "aarch64")]
fn ref_smmla_i8(n: u64) -> f64 {
    f64::from((0..n).fold(0i32, |acc, _| acc.wrapping_add(8 * (3 * -2))))
}
#[cfg(target_arch = "aarch64")]
fn ref_ummla_i8(n: u64) -> f64 {
    f64::from((0..n).fold(0i32, |acc, _| acc.wrapping_add(8 * 3 * 254)))
}
#[cfg(target_arch = "aarch64")]
fn ref_add_i8(n: u64) -> f64 {
    f64::from((0..n).fold(0i8, |acc, _| acc.wrapping_add(7)))
}
#[cfg(target_arch = "aarch64")]
fn ref_add_i16(n: u64) -> f64 {
    f64::from((0..n).fold(0i16, |acc, _| acc.wrapping_add(7)))
}
#[cfg(target_arch = "aarch64")]
fn ref_mul_i8(n: u64) -> f64 {
    f64::from((0..n).fold(1i8, |acc, _| acc.wrapping_mul(3)))
}
#[cfg(target_arch = "aarch64")]
fn ref_mul_i16(n: u64) -> f64 {
    f64::from((0..n).fold(1i16, |acc, _| acc.wrapping_mul(3)))
}

const fn lay(regs: usize, reg_bytes: usize, lanes: usize, elem: Elem) -> Layout {
    Layout {
        regs,
        reg_bytes,
        lanes,
        elem,
    }
}

#[allow(clippy::too_many_arguments)]
const fn row(
    name: &'static str,
    isa: Isa,
    precision: Precision,
    requires: &'static [&'static str],
    pipe: Option<Pipe>,
    width: Width,
    instrs_per_iter: u64,
    ops_per_instr: u64,
    layout: Layout,
    values: Values,
    run: KernelFn,
    clock: Option<ChainFn>,
    reference: fn(u64) -> f64,
) -> Kernel {
    Kernel {
        name,
        isa,
        precision,
        requires,
        pipe,
        width,
        instrs_per_iter,
        ops_per_instr,
        layout,
        values,
        run,
        clock,
        reference,
        vla: false,
    }
}

/// An Arm row (no kernel-specific clock chain: the add chain counts cycles there).
#[allow(clippy::too_many_arguments)]
#[cfg(target_arch = "aarch64")]
const fn arm(
    name: &'static str,
    isa: Isa,
    precision: Precision,
    requires: &'static [&'static str],
    pipe: Pipe,
    instrs_per_iter: u64,
    ops_per_instr: u64,
    layout: Layout,
    values: Values,
    run: KernelFn,
    reference: fn(u64) -> f64,
) -> Kernel {
    let vla = matches!(isa, Isa::Sve | Isa::SveBf16 | Isa::SveI8mm | Isa::Sve2);
    Kernel {
        vla,
        ..row(
            name,
            isa,
            precision,
            requires,
            Some(pipe),
            Width::V128,
            instrs_per_iter,
            ops_per_instr,
            layout,
            values,
            run,
            None,
            reference,
        )
    }
}

use super::generic as g;
use Elem::*;
use Isa as I;
use Pipe::*;
use Precision as P;
use Values as V;
use Width::*;

const GEN: Layout = lay(g::ACCS, 8, 1, F64);

/// Generic kernels (every architecture).
#[rustfmt::skip]
pub(crate) static GENERIC: &[Kernel] = &[
    row("muladd_i8_generic", I::Generic, P::Int8, &[], None, Scalar, 16, 2, lay(16, 1, 1, I8), V::Lcg, g::muladd_i8_generic, None, ref_lcg_i8),
    row("muladd_i16_generic", I::Generic, P::Int16, &[], None, Scalar, 16, 2, lay(16, 2, 1, I16), V::Lcg, g::muladd_i16_generic, None, ref_lcg_i16),
    row("muladd_i32_generic", I::Generic, P::Int32, &[], None, Scalar, 16, 2, lay(16, 4, 1, I32), V::Lcg, g::muladd_i32_generic, None, ref_lcg_i32),
    row("muladd_i64_generic", I::Generic, P::Int64, &[], None, Scalar, 16, 2, lay(16, 8, 1, I64), V::Lcg, g::muladd_i64_generic, None, ref_lcg_i64),
    row("muladd_f32_generic", I::Generic, P::Fp32, &[], None, Scalar, 16, 2, lay(16, 4, 1, F32), V::Converge, g::muladd_f32_generic, None, ref_muladd_f32),
    row("muladd_f64_generic", I::Generic, P::Fp64, &[], None, Scalar, 16, 2, GEN, V::Converge, g::muladd_f64_generic, None, ref_muladd_f64),
];

#[cfg(target_arch = "x86_64")]
use super::{amx as a, x86 as x};

/// x86-64 kernels, weakest first within each precision.
#[cfg(target_arch = "x86_64")]
#[rustfmt::skip]
pub(crate) static X86: &[Kernel] = &[
    // int8
    row("dp_i8_avxvnni", I::AvxVnni, P::Int8, &["avx2", "avxvnni"], Some(Dot), V256, 12, 64, lay(12, 32, 8, I32), V::I8Dot, x::dp_i8_avxvnni, Some(x::dp_i8_avxvnni_clock), ref_dot_i8),
    row("dp_i8_avx512vnni", I::Avx512Vnni, P::Int8, &["avx512f", "avx512vnni"], Some(Dot), V512, 24, 128, lay(24, 64, 16, I32), V::I8Dot, x::dp_i8_avx512vnni, Some(x::dp_i8_avx512vnni_clock), ref_dot_i8),
    row("tdp_i8_amx", I::Amx, P::Int8, &["amx-tile", "amx-int8"], Some(Amx), Tile, 4, 32768, lay(4, 1024, 256, I32), V::I8Dot, a::tdp_i8_amx, None, ref_amx_i8),
    // int16
    row("dp_i16_avxvnni", I::AvxVnni, P::Int16, &["avx2", "avxvnni"], Some(Dot), V256, 12, 32, lay(12, 32, 8, I32), V::I16Dot, x::dp_i16_avxvnni, Some(x::dp_i16_avxvnni_clock), ref_dot_i16),
    row("dp_i16_avx512vnni", I::Avx512Vnni, P::Int16, &["avx512f", "avx512vnni"], Some(Dot), V512, 24, 64, lay(24, 64, 16, I32), V::I16Dot, x::dp_i16_avx512vnni, Some(x::dp_i16_avx512vnni_clock), ref_dot_i16),
    // int32
    row("add_i32_sse2", I::Sse2, P::Int32, &["sse2"], Some(Alu), V128, 12, 4, lay(12, 16, 4, I32), V::IntAdd, x::add_i32_sse2, Some(x::add_i32_sse2_clock), ref_add_i32),
    row("add_i32_avx2", I::Avx2, P::Int32, &["avx2"], Some(Alu), V256, 12, 8, lay(12, 32, 8, I32), V::IntAdd, x::add_i32_avx2, Some(x::add_i32_avx2_clock), ref_add_i32),
    row("mul_i32_avx2", I::Avx2, P::Int32, &["avx2"], Some(Mul32), V256, 12, 8, lay(12, 32, 8, I32), V::IntMul, x::mul_i32_avx2, Some(x::mul_i32_avx2_clock), ref_mul_i32),
    row("add_i32_avx512", I::Avx512, P::Int32, &["avx512f"], Some(Alu), V512, 24, 16, lay(24, 64, 16, I32), V::IntAdd, x::add_i32_avx512, Some(x::add_i32_avx512_clock), ref_add_i32),
    row("mul_i32_avx512", I::Avx512, P::Int32, &["avx512f"], Some(Mul32), V512, 24, 16, lay(24, 64, 16, I32), V::IntMul, x::mul_i32_avx512, Some(x::mul_i32_avx512_clock), ref_mul_i32),
    // int64
    row("add_i64_sse2", I::Sse2, P::Int64, &["sse2"], Some(Alu), V128, 12, 2, lay(12, 16, 2, I64), V::IntAdd, x::add_i64_sse2, Some(x::add_i64_sse2_clock), ref_add_i64),
    row("add_i64_avx2", I::Avx2, P::Int64, &["avx2"], Some(Alu), V256, 12, 4, lay(12, 32, 4, I64), V::IntAdd, x::add_i64_avx2, Some(x::add_i64_avx2_clock), ref_add_i64),
    row("add_i64_avx512", I::Avx512, P::Int64, &["avx512f"], Some(Alu), V512, 24, 8, lay(24, 64, 8, I64), V::IntAdd, x::add_i64_avx512, Some(x::add_i64_avx512_clock), ref_add_i64),
    row("mul_i64_avx512", I::Avx512, P::Int64, &["avx512f", "avx512dq"], Some(Mul64), V512, 24, 8, lay(24, 64, 8, I64), V::IntMul, x::mul_i64_avx512dq, Some(x::mul_i64_avx512dq_clock), ref_mul_i64),
    // fp16
    // No pipe: the rate is bounded by the conversions around an fp32 FMA, and no fp16
    // peak is claimed (see `F16C_PEAK`).
    row("fma_f16_f16c", I::F16c, P::Fp16, &["avx", "fma", "f16c"], None, V256, 12, 16, lay(12, 32, 8, F16), V::Converge, x::fma_f16_f16c, None, ref_fma_f16_f16c),
    row("fma_f16_avx512fp16", I::Avx512Fp16, P::Fp16, &["avx512f", "avx512fp16"], Some(Fp16), V512, 24, 64, lay(24, 64, 32, F16), V::Converge, x::fma_f16_avx512fp16, Some(x::fma_f16_avx512fp16_clock), ref_fma_f16),
    // bf16
    row("dp_bf16_avx512bf16", I::Avx512Bf16, P::Bf16, &["avx512f", "avx512bf16"], Some(DotBf16), V512, 24, 64, lay(24, 64, 16, F32), V::Bf16Dot, x::dp_bf16_avx512bf16, Some(x::dp_bf16_avx512bf16_clock), ref_dot_bf16),
    row("tdp_bf16_amx", I::Amx, P::Bf16, &["amx-tile", "amx-bf16"], Some(Amx), Tile, 4, 16384, lay(4, 1024, 256, F32), V::Bf16Dot, a::tdp_bf16_amx, None, ref_amx_bf16),
    // fp32
    row("muladd_f32_scalar", I::Scalar, P::Fp32, &["sse2"], Some(MulAdd), Scalar, 24, 1, lay(12, 16, 1, F32), V::Converge, x::muladd_f32_scalar, Some(x::muladd_f32_scalar_clock), ref_muladd_f32),
    row("muladd_f32_sse2", I::Sse2, P::Fp32, &["sse2"], Some(MulAdd), V128, 24, 4, lay(12, 16, 4, F32), V::Converge, x::muladd_f32_sse2, Some(x::muladd_f32_sse2_clock), ref_muladd_f32),
    row("muladd_f32_avx", I::Avx, P::Fp32, &["avx"], Some(MulAdd), V256, 24, 8, lay(12, 32, 8, F32), V::Converge, x::muladd_f32_avx, Some(x::muladd_f32_avx_clock), ref_muladd_f32),
    row("fma_f32_avx2", I::Avx2, P::Fp32, &["avx", "fma"], Some(Fma), V256, 12, 16, lay(12, 32, 8, F32), V::Converge, x::fma_f32_avx2, Some(x::fma_f32_avx2_clock), ref_fma_f32),
    row("fma_f32_avx512", I::Avx512, P::Fp32, &["avx512f"], Some(Fma), V512, 24, 32, lay(24, 64, 16, F32), V::Converge, x::fma_f32_avx512, Some(x::fma_f32_avx512_clock), ref_fma_f32),
    // fp64
    row("muladd_f64_scalar", I::Scalar, P::Fp64, &["sse2"], Some(MulAdd), Scalar, 24, 1, lay(12, 16, 1, F64), V::Converge, x::muladd_f64_scalar, Some(x::muladd_f64_scalar_clock), ref_muladd_f64),
    row("muladd_f64_sse2", I::Sse2, P::Fp64, &["sse2"], Some(MulAdd), V128, 24, 2, lay(12, 16, 2, F64), V::Converge, x::muladd_f64_sse2, Some(x::muladd_f64_sse2_clock), ref_muladd_f64),
    row("muladd_f64_avx", I::Avx, P::Fp64, &["avx"], Some(MulAdd), V256, 24, 4, lay(12, 32, 4, F64), V::Converge, x::muladd_f64_avx, Some(x::muladd_f64_avx_clock), ref_muladd_f64),
    row("fma_f64_avx2", I::Avx2, P::Fp64, &["avx", "fma"], Some(Fma), V256, 12, 8, lay(12, 32, 4, F64), V::Converge, x::fma_f64_avx2, Some(x::fma_f64_avx2_clock), ref_fma_f64),
    row("fma_f64_avx512", I::Avx512, P::Fp64, &["avx512f"], Some(Fma), V512, 24, 16, lay(24, 64, 8, F64), V::Converge, x::fma_f64_avx512, Some(x::fma_f64_avx512_clock), ref_fma_f64),
];

#[cfg(target_arch = "aarch64")]
use super::arm as r;

/// Arm kernels, weakest first within each precision. Layouts and operation counts are
/// per 128 bits; SVE rows scale them by the vector length (`Kernel::vector_scale`).
/// SMMLA/UMMLA and BFMMLA are taken on the dot-product pipes (see `hw::uarch_arm`).
#[cfg(target_arch = "aarch64")]
#[rustfmt::skip]
pub(crate) static ARM: &[Kernel] = &[
    // int8
    arm("add_i8_neon", I::Neon, P::Int8, &["neon"], Alu, 24, 16, lay(24, 16, 16, I8), V::IntAdd, r::add_i8_neon, ref_add_i8),
    arm("mul_i8_neon", I::Neon, P::Int8, &["neon"], Mul32, 24, 16, lay(24, 16, 16, I8), V::IntMul, r::mul_i8_neon, ref_mul_i8),
    arm("sdot_i8_neon", I::NeonDotprod, P::Int8, &["neon", "dotprod"], Dot, 24, 32, lay(24, 16, 4, I32), V::I8Dot, r::sdot_i8_neon, ref_dot_i8),
    arm("udot_i8_neon", I::NeonDotprod, P::Int8, &["neon", "dotprod"], Dot, 24, 32, lay(24, 16, 4, I32), V::I8Dot, r::udot_i8_neon, ref_udot_i8),
    arm("smmla_i8_neon", I::NeonI8mm, P::Int8, &["neon", "i8mm"], Dot, 24, 64, lay(24, 16, 4, I32), V::I8Dot, r::smmla_i8_neon, ref_smmla_i8),
    arm("ummla_i8_neon", I::NeonI8mm, P::Int8, &["neon", "i8mm"], Dot, 24, 64, lay(24, 16, 4, I32), V::I8Dot, r::ummla_i8_neon, ref_ummla_i8),
    arm("sdot_i8_sve", I::Sve, P::Int8, &["sve"], Dot, 24, 32, lay(24, 16, 4, I32), V::I8Dot, r::sdot_i8_sve, ref_dot_i8),
    arm("udot_i8_sve", I::Sve, P::Int8, &["sve"], Dot, 24, 32, lay(24, 16, 4, I32), V::I8Dot, r::udot_i8_sve, ref_udot_i8),
    arm("smmla_i8_sve", I::SveI8mm, P::Int8, &["sve", "sve-i8mm"], Dot, 24, 64, lay(24, 16, 4, I32), V::I8Dot, r::smmla_i8_sve, ref_smmla_i8),
    // int16
    arm("add_i16_neon", I::Neon, P::Int16, &["neon"], Alu, 24, 8, lay(24, 16, 8, I16), V::IntAdd, r::add_i16_neon, ref_add_i16),
    arm("mul_i16_neon", I::Neon, P::Int16, &["neon"], Mul32, 24, 8, lay(24, 16, 8, I16), V::IntMul, r::mul_i16_neon, ref_mul_i16),
    // int32
    arm("add_i32_neon", I::Neon, P::Int32, &["neon"], Alu, 24, 4, lay(24, 16, 4, I32), V::IntAdd, r::add_i32_neon, ref_add_i32),
    arm("mul_i32_neon", I::Neon, P::Int32, &["neon"], Mul32, 24, 4, lay(24, 16, 4, I32), V::IntMul, r::mul_i32_neon, ref_mul_i32),
    arm("add_i32_sve", I::Sve, P::Int32, &["sve"], Alu, 24, 4, lay(24, 16, 4, I32), V::IntAdd, r::add_i32_sve, ref_add_i32),
    arm("mul_i32_sve", I::Sve, P::Int32, &["sve"], Mul32, 24, 4, lay(24, 16, 4, I32), V::IntMul, r::mul_i32_sve, ref_mul_i32),
    // int64
    arm("add_i64_neon", I::Neon, P::Int64, &["neon"], Alu, 24, 2, lay(24, 16, 2, I64), V::IntAdd, r::add_i64_neon, ref_add_i64),
    arm("add_i64_sve", I::Sve, P::Int64, &["sve"], Alu, 24, 2, lay(24, 16, 2, I64), V::IntAdd, r::add_i64_sve, ref_add_i64),
    arm("mul_i64_sve", I::Sve, P::Int64, &["sve"], Mul64, 24, 2, lay(24, 16, 2, I64), V::IntMul, r::mul_i64_sve, ref_mul_i64),
    arm("mul_i64_sve2", I::Sve2, P::Int64, &["sve", "sve2"], Mul64, 24, 2, lay(24, 16, 2, I64), V::IntMul, r::mul_i64_sve2, ref_mul_i64),
    // fp16 (FP16 FMLA runs on the FMA pipes)
    arm("fma_f16_neon", I::NeonFp16, P::Fp16, &["neon", "fp16"], Fma, 24, 16, lay(24, 16, 8, F16), V::Converge, r::fma_f16_neon, ref_fmla_f16),
    arm("fma_f16_sve", I::Sve, P::Fp16, &["sve"], Fma, 24, 16, lay(24, 16, 8, F16), V::Converge, r::fma_f16_sve, ref_fmla_f16),
    // bf16
    arm("bfdot_bf16_neon", I::NeonBf16, P::Bf16, &["neon", "bf16"], DotBf16, 24, 16, lay(24, 16, 4, F32), V::Bf16Dot, r::bfdot_bf16_neon, ref_dot_bf16),
    arm("bfmmla_bf16_neon", I::NeonBf16, P::Bf16, &["neon", "bf16"], DotBf16, 24, 32, lay(24, 16, 4, F32), V::Bf16Dot, r::bfmmla_bf16_neon, ref_mmla_bf16),
    arm("bfdot_bf16_sve", I::SveBf16, P::Bf16, &["sve", "sve-bf16"], DotBf16, 24, 16, lay(24, 16, 4, F32), V::Bf16Dot, r::bfdot_bf16_sve, ref_dot_bf16),
    arm("bfmmla_bf16_sve", I::SveBf16, P::Bf16, &["sve", "sve-bf16"], DotBf16, 24, 32, lay(24, 16, 4, F32), V::Bf16Dot, r::bfmmla_bf16_sve, ref_mmla_bf16),
    // fp32
    arm("muladd_f32_neon", I::Neon, P::Fp32, &["neon"], MulAdd, 48, 4, lay(24, 16, 4, F32), V::Converge, r::muladd_f32_neon, ref_muladd_f32),
    arm("fma_f32_neon", I::Neon, P::Fp32, &["neon"], Fma, 24, 8, lay(24, 16, 4, F32), V::Converge, r::fma_f32_neon, ref_fmla_f32),
    arm("muladd_f32_sve", I::Sve, P::Fp32, &["sve"], MulAdd, 48, 4, lay(24, 16, 4, F32), V::Converge, r::muladd_f32_sve, ref_muladd_f32),
    arm("fma_f32_sve", I::Sve, P::Fp32, &["sve"], Fma, 24, 8, lay(24, 16, 4, F32), V::Converge, r::fma_f32_sve, ref_fmla_f32),
    // fp64
    arm("muladd_f64_neon", I::Neon, P::Fp64, &["neon"], MulAdd, 48, 2, lay(24, 16, 2, F64), V::Converge, r::muladd_f64_neon, ref_muladd_f64),
    arm("fma_f64_neon", I::Neon, P::Fp64, &["neon"], Fma, 24, 4, lay(24, 16, 2, F64), V::Converge, r::fma_f64_neon, ref_fmla_f64),
    arm("muladd_f64_sve", I::Sve, P::Fp64, &["sve"], MulAdd, 48, 2, lay(24, 16, 2, F64), V::Converge, r::muladd_f64_sve, ref_muladd_f64),
    arm("fma_f64_sve", I::Sve, P::Fp64, &["sve"], Fma, 24, 4, lay(24, 16, 2, F64), V::Converge, r::fma_f64_sve, ref_fmla_f64),
];

/// Every kernel this build has: the generic ones, then the architecture's own.
pub fn all() -> Vec<&'static Kernel> {
    let mut v: Vec<&'static Kernel> = GENERIC.iter().collect();
    #[cfg(target_arch = "x86_64")]
    v.extend(X86.iter());
    #[cfg(target_arch = "aarch64")]
    v.extend(ARM.iter());
    v
}

/// Whether kernel `k` is a stand-in that a CPU with `features` does not need: the F16C
/// fp16 kernel (fp32 arithmetic between conversions) when a kernel with native fp16
/// arithmetic runs there. A superseded kernel is planned only when `--isa` names it, so
/// the rows of a CPU with AVX512-FP16 stay what they were.
pub(crate) fn superseded(k: &Kernel, features: &[String]) -> bool {
    k.isa == Isa::F16c
        && all()
            .iter()
            .any(|o| o.precision == k.precision && o.isa != Isa::F16c && o.supported_by(features))
}

/// The kernels a `cpu` run without `--isa` plans on a CPU with `features` (peakbench
/// feature names, see `hw::cpudesc::CpuDescription::peakbench_features`): every kernel
/// the CPU can run but the superseded stand-ins.
pub fn default_kernels(features: &[String]) -> Vec<&'static Kernel> {
    all()
        .into_iter()
        .filter(|k| k.supported_by(features) && !superseded(k, features))
        .collect()
}

/// The peak provenance of the F16C fp16 kernel: none is claimed.
pub(crate) const F16C_PEAK: &str = "unknown: fp16 through F16C conversion, the arithmetic is fp32 FMA (vcvtph2ps, vfmadd132ps, vcvtps2ph); no fp16 peak is claimed, the fp32 FMA peak (fma_f32_avx2) bounds it from above (use --peak)";

/// The note on every F16C fp16 row.
pub(crate) const F16C_NOTE: &str = "fp16 through F16C: each step widens the fp16 values to fp32 (vcvtph2ps), does one fp32 FMA and rounds the result back to fp16 (vcvtps2ph), so the values are fp16 but the arithmetic is fp32 after conversion; the CPU has no native fp16 arithmetic, and the fp32 FMA rate is the bound";

/// Largest `out` buffer any kernel needs (24 SVE accumulators of 2048 bits: 6 KiB).
pub(crate) const OUT_BYTES: usize = 8192;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_follow_the_convention() {
        let all = all();
        let mut names: Vec<&str> = all.iter().map(|k| k.name).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), all.len());
        for k in &all {
            assert!(k.out_bytes() <= OUT_BYTES, "{}", k.name);
            assert!(k.ops_per_iter() > 0);
            let dtype = match k.precision {
                Precision::Int8 => "i8",
                Precision::Int16 => "i16",
                Precision::Int32 => "i32",
                Precision::Int64 => "i64",
                Precision::Fp16 => "f16",
                Precision::Bf16 => "bf16",
                Precision::Fp32 => "f32",
                Precision::Fp64 => "f64",
            };
            assert!(k.name.contains(&format!("_{dtype}_")), "{}", k.name);
        }
    }

    #[test]
    fn op_counts_follow_the_conventions() {
        for k in all() {
            let lanes = k.layout.lanes as u64;
            let expect = match (k.name.split('_').next().unwrap(), k.precision) {
                // FMA: 2 ops per lane.
                ("fma", _) => 2 * lanes,
                // mul + add: one op per lane per instruction.
                ("muladd", _) if k.isa != Isa::Generic => lanes,
                ("muladd", _) => 2,
                ("add" | "mul", _) => lanes,
                // vpdpbusd: 4 products + 4 adds per i32 lane.
                ("dp", Precision::Int8) => 8 * lanes,
                // vpdpwssd / vdpbf16ps: 2 products + 2 adds per 32-bit lane.
                ("dp", _) => 4 * lanes,
                // AMX: 2·M·N·K with M = N = 16 and K = 64 bytes / element size.
                ("tdp", Precision::Int8) => 2 * 16 * 16 * 64,
                ("tdp", _) => 2 * 16 * 16 * 32,
                // Arm SDOT/UDOT: 4 products + 4 adds per i32 lane; BFDOT 2 + 2.
                ("sdot" | "udot", _) => 8 * lanes,
                ("bfdot", _) => 4 * lanes,
                // SMMLA/UMMLA: 8 products + 8 adds per i32 lane; BFMMLA 4 + 4.
                ("smmla" | "ummla", _) => 16 * lanes,
                ("bfmmla", _) => 8 * lanes,
                (other, _) => panic!("unexpected kernel family {other}"),
            };
            assert_eq!(k.ops_per_instr, expect, "{}", k.name);
        }
    }

    fn features(names: &[&str]) -> Vec<String> {
        names.iter().map(|s| s.to_string()).collect()
    }

    /// Issue #32 item 11: fp16 through F16C, its checksum against the `half` model of
    /// widen → fused f32 FMA → round to fp16. (An x86 kernel: the aarch64 build has
    /// neither it nor `is_x86_feature_detected!`.)
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn the_f16c_fp16_kernel_matches_its_half_model() {
        let k = all()
            .into_iter()
            .find(|k| k.name == "fma_f16_f16c")
            .unwrap();
        assert_eq!(
            (k.isa, k.precision, k.pipe),
            (Isa::F16c, Precision::Fp16, None)
        );
        // The model rises from 2⁻¹⁰ by fp16 steps (and stalls where the step rounds
        // away, as fp16 does): every value an fp16 number in (0, 1].
        assert_eq!(ref_fma_f16_f16c(1), CONVERGE_B);
        let (a, b) = (ref_fma_f16_f16c(250), ref_fma_f16_f16c(5000));
        assert!(a > CONVERGE_B && b >= a && b <= 1.0, "{a} {b}");
        assert_eq!(half::f16::from_f64(b).to_f64(), b);
        if !std::arch::is_x86_feature_detected!("f16c")
            || !std::arch::is_x86_feature_detected!("fma")
        {
            eprintln!("skipped: this CPU lacks F16C or FMA");
            return;
        }
        for iters in [1u64, 3, 250, 5000] {
            let lanes = super::super::run_once(k, iters);
            assert_eq!(lanes.len(), 12 * 8);
            let checksum: f64 = lanes.iter().sum();
            let model = ref_fma_f16_f16c(iters);
            assert_eq!(checksum, 96.0 * model, "after {iters} iterations");
            assert!(
                lanes.iter().all(|&l| l == model),
                "after {iters} iterations"
            );
        }
    }

    /// The F16C stand-in is planned only where no native fp16 kernel runs (x86 kernels).
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn f16c_stands_in_only_without_native_fp16() {
        let k = all()
            .into_iter()
            .find(|k| k.name == "fma_f16_f16c")
            .unwrap();
        let zen3 = features(&["sse2", "avx", "fma", "avx2", "f16c"]);
        let spr = features(&[
            "sse2",
            "avx",
            "fma",
            "avx2",
            "f16c",
            "avx512f",
            "avx512fp16",
        ]);
        assert!(!superseded(k, &zen3));
        assert!(superseded(k, &spr));
        let names = |f: &[String]| -> Vec<&str> {
            default_kernels(f)
                .into_iter()
                .filter(|k| k.precision == Precision::Fp16)
                .map(|k| k.name)
                .collect()
        };
        assert_eq!(names(&zen3), ["fma_f16_f16c"]);
        assert_eq!(names(&spr), ["fma_f16_avx512fp16"]);
        assert!(names(&features(&["sse2", "avx", "fma", "avx2"])).is_empty());
    }

    #[test]
    fn precision_and_isa_parsing() {
        assert_eq!(Precision::parse("dp"), Some(Precision::Fp64));
        assert_eq!(Precision::parse("QP"), Some(Precision::Int8));
        assert_eq!(Precision::parse("hp"), Some(Precision::Fp16));
        assert_eq!(Precision::parse("sp"), Some(Precision::Fp32));
        assert_eq!(Precision::parse("fp8"), None);
        assert_eq!(Isa::parse("avx512_vnni"), Some(Isa::Avx512Vnni));
        assert_eq!(Isa::parse("neon"), Some(Isa::Neon));
        assert_eq!(Isa::parse("SVE_BF16"), Some(Isa::SveBf16));
        assert_eq!(Isa::parse("altivec"), None);
        assert_eq!(Isa::parse("F16C"), Some(Isa::F16c));
    }
}
