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

use crate::hw::uarch::{Pipe, Width};

pub(crate) use super::kernel::{Elem, Layout, Values};
pub use super::kernel::{Isa, Kernel, Precision};
pub(crate) use super::kernel::{CONVERGE_B, OUT_BYTES};

// ---- scalar references: one accumulator lane after n iterations ----

#[cfg(target_arch = "x86_64")]
fn ref_fma_f64(n: u64) -> f64 {
    let (a, b) = (1.0 - CONVERGE_B, CONVERGE_B);
    (0..n).fold(0.0f64, |acc, _| acc.mul_add(a, b))
}
fn ref_muladd_f64(n: u64) -> f64 {
    let (a, b) = (1.0 - CONVERGE_B, CONVERGE_B);
    (0..n).fold(0.0f64, |acc, _| acc * a + b)
}
#[cfg(target_arch = "x86_64")]
fn ref_fma_f32(n: u64) -> f64 {
    let (a, b) = ((1.0 - CONVERGE_B) as f32, CONVERGE_B as f32);
    f64::from((0..n).fold(0.0f32, |acc, _| acc.mul_add(a, b)))
}
fn ref_muladd_f32(n: u64) -> f64 {
    let (a, b) = ((1.0 - CONVERGE_B) as f32, CONVERGE_B as f32);
    f64::from((0..n).fold(0.0f32, |acc, _| acc * a + b))
}
#[cfg(target_arch = "x86_64")]
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
#[cfg(target_arch = "x86_64")]
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
#[cfg(target_arch = "x86_64")]
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
#[cfg(target_arch = "x86_64")]
fn ref_amx_bf16(n: u64) -> f64 {
    // K = 32 products of 1.0 × 2⁻¹⁰ per element per tile multiply.
    let p = CONVERGE_B as f32;
    f64::from((0..n).fold(0.0f32, |acc, _| acc + 32.0 * p))
}
#[cfg(target_arch = "x86_64")]
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

use super::generic as g;
use Elem::*;
use Isa as I;
use Pipe::*;
use Precision as P;
use Values as V;
use Width::*;

const GEN: Layout = lay(g::ACCS, 8, 1, F64);

// Each row is a `Kernel` literal, every field named (a swapped count cannot compile
// unnoticed); `vla` is true exactly on the SVE rows.

/// Generic kernels (every architecture).
#[rustfmt::skip]
pub(crate) static GENERIC: &[Kernel] = &[
    Kernel { name: "muladd_i8_generic", isa: I::Generic, precision: P::Int8, requires: &[], pipe: None, width: Scalar, instrs_per_iter: 16, ops_per_instr: 2, layout: lay(16, 1, 1, I8), values: V::Lcg, run: g::muladd_i8_generic, clock: None, reference: ref_lcg_i8, vla: false },
    Kernel { name: "muladd_i16_generic", isa: I::Generic, precision: P::Int16, requires: &[], pipe: None, width: Scalar, instrs_per_iter: 16, ops_per_instr: 2, layout: lay(16, 2, 1, I16), values: V::Lcg, run: g::muladd_i16_generic, clock: None, reference: ref_lcg_i16, vla: false },
    Kernel { name: "muladd_i32_generic", isa: I::Generic, precision: P::Int32, requires: &[], pipe: None, width: Scalar, instrs_per_iter: 16, ops_per_instr: 2, layout: lay(16, 4, 1, I32), values: V::Lcg, run: g::muladd_i32_generic, clock: None, reference: ref_lcg_i32, vla: false },
    Kernel { name: "muladd_i64_generic", isa: I::Generic, precision: P::Int64, requires: &[], pipe: None, width: Scalar, instrs_per_iter: 16, ops_per_instr: 2, layout: lay(16, 8, 1, I64), values: V::Lcg, run: g::muladd_i64_generic, clock: None, reference: ref_lcg_i64, vla: false },
    Kernel { name: "muladd_f32_generic", isa: I::Generic, precision: P::Fp32, requires: &[], pipe: None, width: Scalar, instrs_per_iter: 16, ops_per_instr: 2, layout: lay(16, 4, 1, F32), values: V::Converge, run: g::muladd_f32_generic, clock: None, reference: ref_muladd_f32, vla: false },
    Kernel { name: "muladd_f64_generic", isa: I::Generic, precision: P::Fp64, requires: &[], pipe: None, width: Scalar, instrs_per_iter: 16, ops_per_instr: 2, layout: GEN, values: V::Converge, run: g::muladd_f64_generic, clock: None, reference: ref_muladd_f64, vla: false },
];

#[cfg(target_arch = "x86_64")]
use super::{amx as a, x86 as x};

/// x86-64 kernels, weakest first within each precision.
#[cfg(target_arch = "x86_64")]
#[rustfmt::skip]
pub(crate) static X86: &[Kernel] = &[
    // int8
    Kernel { name: "dp_i8_avxvnni", isa: I::AvxVnni, precision: P::Int8, requires: &["avx2", "avxvnni"], pipe: Some(Dot), width: V256, instrs_per_iter: 12, ops_per_instr: 64, layout: lay(12, 32, 8, I32), values: V::I8Dot, run: x::dp_i8_avxvnni, clock: Some(x::dp_i8_avxvnni_clock), reference: ref_dot_i8, vla: false },
    Kernel { name: "dp_i8_avx512vnni", isa: I::Avx512Vnni, precision: P::Int8, requires: &["avx512f", "avx512vnni"], pipe: Some(Dot), width: V512, instrs_per_iter: 24, ops_per_instr: 128, layout: lay(24, 64, 16, I32), values: V::I8Dot, run: x::dp_i8_avx512vnni, clock: Some(x::dp_i8_avx512vnni_clock), reference: ref_dot_i8, vla: false },
    Kernel { name: "tdp_i8_amx", isa: I::Amx, precision: P::Int8, requires: &["amx-tile", "amx-int8"], pipe: Some(Amx), width: Tile, instrs_per_iter: 4, ops_per_instr: 32768, layout: lay(4, 1024, 256, I32), values: V::I8Dot, run: a::tdp_i8_amx, clock: None, reference: ref_amx_i8, vla: false },
    // int16
    Kernel { name: "dp_i16_avxvnni", isa: I::AvxVnni, precision: P::Int16, requires: &["avx2", "avxvnni"], pipe: Some(Dot), width: V256, instrs_per_iter: 12, ops_per_instr: 32, layout: lay(12, 32, 8, I32), values: V::I16Dot, run: x::dp_i16_avxvnni, clock: Some(x::dp_i16_avxvnni_clock), reference: ref_dot_i16, vla: false },
    Kernel { name: "dp_i16_avx512vnni", isa: I::Avx512Vnni, precision: P::Int16, requires: &["avx512f", "avx512vnni"], pipe: Some(Dot), width: V512, instrs_per_iter: 24, ops_per_instr: 64, layout: lay(24, 64, 16, I32), values: V::I16Dot, run: x::dp_i16_avx512vnni, clock: Some(x::dp_i16_avx512vnni_clock), reference: ref_dot_i16, vla: false },
    // int32
    Kernel { name: "add_i32_sse2", isa: I::Sse2, precision: P::Int32, requires: &["sse2"], pipe: Some(Alu), width: V128, instrs_per_iter: 12, ops_per_instr: 4, layout: lay(12, 16, 4, I32), values: V::IntAdd, run: x::add_i32_sse2, clock: Some(x::add_i32_sse2_clock), reference: ref_add_i32, vla: false },
    Kernel { name: "add_i32_avx2", isa: I::Avx2, precision: P::Int32, requires: &["avx2"], pipe: Some(Alu), width: V256, instrs_per_iter: 12, ops_per_instr: 8, layout: lay(12, 32, 8, I32), values: V::IntAdd, run: x::add_i32_avx2, clock: Some(x::add_i32_avx2_clock), reference: ref_add_i32, vla: false },
    Kernel { name: "mul_i32_avx2", isa: I::Avx2, precision: P::Int32, requires: &["avx2"], pipe: Some(Mul32), width: V256, instrs_per_iter: 12, ops_per_instr: 8, layout: lay(12, 32, 8, I32), values: V::IntMul, run: x::mul_i32_avx2, clock: Some(x::mul_i32_avx2_clock), reference: ref_mul_i32, vla: false },
    Kernel { name: "add_i32_avx512", isa: I::Avx512, precision: P::Int32, requires: &["avx512f"], pipe: Some(Alu), width: V512, instrs_per_iter: 24, ops_per_instr: 16, layout: lay(24, 64, 16, I32), values: V::IntAdd, run: x::add_i32_avx512, clock: Some(x::add_i32_avx512_clock), reference: ref_add_i32, vla: false },
    Kernel { name: "mul_i32_avx512", isa: I::Avx512, precision: P::Int32, requires: &["avx512f"], pipe: Some(Mul32), width: V512, instrs_per_iter: 24, ops_per_instr: 16, layout: lay(24, 64, 16, I32), values: V::IntMul, run: x::mul_i32_avx512, clock: Some(x::mul_i32_avx512_clock), reference: ref_mul_i32, vla: false },
    // int64
    Kernel { name: "add_i64_sse2", isa: I::Sse2, precision: P::Int64, requires: &["sse2"], pipe: Some(Alu), width: V128, instrs_per_iter: 12, ops_per_instr: 2, layout: lay(12, 16, 2, I64), values: V::IntAdd, run: x::add_i64_sse2, clock: Some(x::add_i64_sse2_clock), reference: ref_add_i64, vla: false },
    Kernel { name: "add_i64_avx2", isa: I::Avx2, precision: P::Int64, requires: &["avx2"], pipe: Some(Alu), width: V256, instrs_per_iter: 12, ops_per_instr: 4, layout: lay(12, 32, 4, I64), values: V::IntAdd, run: x::add_i64_avx2, clock: Some(x::add_i64_avx2_clock), reference: ref_add_i64, vla: false },
    Kernel { name: "add_i64_avx512", isa: I::Avx512, precision: P::Int64, requires: &["avx512f"], pipe: Some(Alu), width: V512, instrs_per_iter: 24, ops_per_instr: 8, layout: lay(24, 64, 8, I64), values: V::IntAdd, run: x::add_i64_avx512, clock: Some(x::add_i64_avx512_clock), reference: ref_add_i64, vla: false },
    Kernel { name: "mul_i64_avx512", isa: I::Avx512, precision: P::Int64, requires: &["avx512f", "avx512dq"], pipe: Some(Mul64), width: V512, instrs_per_iter: 24, ops_per_instr: 8, layout: lay(24, 64, 8, I64), values: V::IntMul, run: x::mul_i64_avx512, clock: Some(x::mul_i64_avx512_clock), reference: ref_mul_i64, vla: false },
    // fp16
    // Pipe F16c: one step (convert, FMA, convert) per instruction counted; its rate
    // per core row is `hw::uarch_f16c`'s.
    // The F16C loop's clock is the fp32 AVX2 FMA's chain (its FMA once every two adds):
    // at its peak (0.5 step per cycle) the loop issues one 256-bit FMA every two cycles
    // among its conversions, so it runs in the licence of dense 256-bit FP code; on
    // Cascade Lake that chain reads 2.68 GHz against the adds' 3.05, and the loop's 12
    // steps take 26 cycles at it (30 at the adds' clock) (issue #49).
    Kernel { name: "fma_f16_f16c", isa: I::F16c, precision: P::Fp16, requires: &["avx", "fma", "f16c"], pipe: Some(F16c), width: V256, instrs_per_iter: 12, ops_per_instr: 16, layout: lay(12, 32, 8, F16), values: V::Converge, run: x::fma_f16_f16c, clock: Some(x::fma_f32_avx2_clock), reference: ref_fma_f16_f16c, vla: false },
    Kernel { name: "fma_f16_avx512fp16", isa: I::Avx512Fp16, precision: P::Fp16, requires: &["avx512f", "avx512fp16"], pipe: Some(Fp16), width: V512, instrs_per_iter: 24, ops_per_instr: 64, layout: lay(24, 64, 32, F16), values: V::Converge, run: x::fma_f16_avx512fp16, clock: Some(x::fma_f16_avx512fp16_clock), reference: ref_fma_f16, vla: false },
    // bf16
    Kernel { name: "dp_bf16_avx512bf16", isa: I::Avx512Bf16, precision: P::Bf16, requires: &["avx512f", "avx512bf16"], pipe: Some(DotBf16), width: V512, instrs_per_iter: 24, ops_per_instr: 64, layout: lay(24, 64, 16, F32), values: V::Bf16Dot, run: x::dp_bf16_avx512bf16, clock: Some(x::dp_bf16_avx512bf16_clock), reference: ref_dot_bf16, vla: false },
    Kernel { name: "tdp_bf16_amx", isa: I::Amx, precision: P::Bf16, requires: &["amx-tile", "amx-bf16"], pipe: Some(Amx), width: Tile, instrs_per_iter: 4, ops_per_instr: 16384, layout: lay(4, 1024, 256, F32), values: V::Bf16Dot, run: a::tdp_bf16_amx, clock: None, reference: ref_amx_bf16, vla: false },
    // fp32
    Kernel { name: "muladd_f32_scalar", isa: I::Scalar, precision: P::Fp32, requires: &["sse2"], pipe: Some(MulAdd), width: Scalar, instrs_per_iter: 24, ops_per_instr: 1, layout: lay(12, 16, 1, F32), values: V::Converge, run: x::muladd_f32_scalar, clock: Some(x::muladd_f32_scalar_clock), reference: ref_muladd_f32, vla: false },
    Kernel { name: "muladd_f32_sse2", isa: I::Sse2, precision: P::Fp32, requires: &["sse2"], pipe: Some(MulAdd), width: V128, instrs_per_iter: 24, ops_per_instr: 4, layout: lay(12, 16, 4, F32), values: V::Converge, run: x::muladd_f32_sse2, clock: Some(x::muladd_f32_sse2_clock), reference: ref_muladd_f32, vla: false },
    Kernel { name: "muladd_f32_avx", isa: I::Avx, precision: P::Fp32, requires: &["avx"], pipe: Some(MulAdd), width: V256, instrs_per_iter: 24, ops_per_instr: 8, layout: lay(12, 32, 8, F32), values: V::Converge, run: x::muladd_f32_avx, clock: Some(x::muladd_f32_avx_clock), reference: ref_muladd_f32, vla: false },
    Kernel { name: "fma_f32_avx2", isa: I::Avx2, precision: P::Fp32, requires: &["avx", "fma"], pipe: Some(Fma), width: V256, instrs_per_iter: 12, ops_per_instr: 16, layout: lay(12, 32, 8, F32), values: V::Converge, run: x::fma_f32_avx2, clock: Some(x::fma_f32_avx2_clock), reference: ref_fma_f32, vla: false },
    Kernel { name: "fma_f32_avx512", isa: I::Avx512, precision: P::Fp32, requires: &["avx512f"], pipe: Some(Fma), width: V512, instrs_per_iter: 24, ops_per_instr: 32, layout: lay(24, 64, 16, F32), values: V::Converge, run: x::fma_f32_avx512, clock: Some(x::fma_f32_avx512_clock), reference: ref_fma_f32, vla: false },
    // fp64
    Kernel { name: "muladd_f64_scalar", isa: I::Scalar, precision: P::Fp64, requires: &["sse2"], pipe: Some(MulAdd), width: Scalar, instrs_per_iter: 24, ops_per_instr: 1, layout: lay(12, 16, 1, F64), values: V::Converge, run: x::muladd_f64_scalar, clock: Some(x::muladd_f64_scalar_clock), reference: ref_muladd_f64, vla: false },
    Kernel { name: "muladd_f64_sse2", isa: I::Sse2, precision: P::Fp64, requires: &["sse2"], pipe: Some(MulAdd), width: V128, instrs_per_iter: 24, ops_per_instr: 2, layout: lay(12, 16, 2, F64), values: V::Converge, run: x::muladd_f64_sse2, clock: Some(x::muladd_f64_sse2_clock), reference: ref_muladd_f64, vla: false },
    Kernel { name: "muladd_f64_avx", isa: I::Avx, precision: P::Fp64, requires: &["avx"], pipe: Some(MulAdd), width: V256, instrs_per_iter: 24, ops_per_instr: 4, layout: lay(12, 32, 4, F64), values: V::Converge, run: x::muladd_f64_avx, clock: Some(x::muladd_f64_avx_clock), reference: ref_muladd_f64, vla: false },
    Kernel { name: "fma_f64_avx2", isa: I::Avx2, precision: P::Fp64, requires: &["avx", "fma"], pipe: Some(Fma), width: V256, instrs_per_iter: 12, ops_per_instr: 8, layout: lay(12, 32, 4, F64), values: V::Converge, run: x::fma_f64_avx2, clock: Some(x::fma_f64_avx2_clock), reference: ref_fma_f64, vla: false },
    Kernel { name: "fma_f64_avx512", isa: I::Avx512, precision: P::Fp64, requires: &["avx512f"], pipe: Some(Fma), width: V512, instrs_per_iter: 24, ops_per_instr: 16, layout: lay(24, 64, 8, F64), values: V::Converge, run: x::fma_f64_avx512, clock: Some(x::fma_f64_avx512_clock), reference: ref_fma_f64, vla: false },
];

#[cfg(target_arch = "aarch64")]
use super::arm as r;

/// Arm kernels, weakest first within each precision. Layouts and operation counts are
/// per 128 bits; SVE rows scale them by the vector length (`Kernel::vector_scale`). No
/// row has a kernel-specific clock chain: the add chain counts cycles there.
/// SMMLA/UMMLA and BFMMLA have their own rates (`Mmla`, `MmlaBf16`: see `hw::uarch_arm`).
#[cfg(target_arch = "aarch64")]
#[rustfmt::skip]
pub(crate) static ARM: &[Kernel] = &[
    // int8
    Kernel { name: "add_i8_neon", isa: I::Neon, precision: P::Int8, requires: &["neon"], pipe: Some(Alu), width: V128, instrs_per_iter: 24, ops_per_instr: 16, layout: lay(24, 16, 16, I8), values: V::IntAdd, run: r::add_i8_neon, clock: None, reference: ref_add_i8, vla: false },
    Kernel { name: "mul_i8_neon", isa: I::Neon, precision: P::Int8, requires: &["neon"], pipe: Some(Mul32), width: V128, instrs_per_iter: 24, ops_per_instr: 16, layout: lay(24, 16, 16, I8), values: V::IntMul, run: r::mul_i8_neon, clock: None, reference: ref_mul_i8, vla: false },
    Kernel { name: "sdot_i8_neon", isa: I::NeonDotprod, precision: P::Int8, requires: &["neon", "dotprod"], pipe: Some(Dot), width: V128, instrs_per_iter: 24, ops_per_instr: 32, layout: lay(24, 16, 4, I32), values: V::I8Dot, run: r::sdot_i8_neon, clock: None, reference: ref_dot_i8, vla: false },
    Kernel { name: "udot_i8_neon", isa: I::NeonDotprod, precision: P::Int8, requires: &["neon", "dotprod"], pipe: Some(Dot), width: V128, instrs_per_iter: 24, ops_per_instr: 32, layout: lay(24, 16, 4, I32), values: V::I8Dot, run: r::udot_i8_neon, clock: None, reference: ref_udot_i8, vla: false },
    Kernel { name: "smmla_i8_neon", isa: I::NeonI8mm, precision: P::Int8, requires: &["neon", "i8mm"], pipe: Some(Mmla), width: V128, instrs_per_iter: 24, ops_per_instr: 64, layout: lay(24, 16, 4, I32), values: V::I8Dot, run: r::smmla_i8_neon, clock: None, reference: ref_smmla_i8, vla: false },
    Kernel { name: "ummla_i8_neon", isa: I::NeonI8mm, precision: P::Int8, requires: &["neon", "i8mm"], pipe: Some(Mmla), width: V128, instrs_per_iter: 24, ops_per_instr: 64, layout: lay(24, 16, 4, I32), values: V::I8Dot, run: r::ummla_i8_neon, clock: None, reference: ref_ummla_i8, vla: false },
    Kernel { name: "sdot_i8_sve", isa: I::Sve, precision: P::Int8, requires: &["sve"], pipe: Some(Dot), width: V128, instrs_per_iter: 24, ops_per_instr: 32, layout: lay(24, 16, 4, I32), values: V::I8Dot, run: r::sdot_i8_sve, clock: None, reference: ref_dot_i8, vla: true },
    Kernel { name: "udot_i8_sve", isa: I::Sve, precision: P::Int8, requires: &["sve"], pipe: Some(Dot), width: V128, instrs_per_iter: 24, ops_per_instr: 32, layout: lay(24, 16, 4, I32), values: V::I8Dot, run: r::udot_i8_sve, clock: None, reference: ref_udot_i8, vla: true },
    Kernel { name: "smmla_i8_sve", isa: I::SveI8mm, precision: P::Int8, requires: &["sve", "sve-i8mm"], pipe: Some(Mmla), width: V128, instrs_per_iter: 24, ops_per_instr: 64, layout: lay(24, 16, 4, I32), values: V::I8Dot, run: r::smmla_i8_sve, clock: None, reference: ref_smmla_i8, vla: true },
    // int16
    Kernel { name: "add_i16_neon", isa: I::Neon, precision: P::Int16, requires: &["neon"], pipe: Some(Alu), width: V128, instrs_per_iter: 24, ops_per_instr: 8, layout: lay(24, 16, 8, I16), values: V::IntAdd, run: r::add_i16_neon, clock: None, reference: ref_add_i16, vla: false },
    Kernel { name: "mul_i16_neon", isa: I::Neon, precision: P::Int16, requires: &["neon"], pipe: Some(Mul32), width: V128, instrs_per_iter: 24, ops_per_instr: 8, layout: lay(24, 16, 8, I16), values: V::IntMul, run: r::mul_i16_neon, clock: None, reference: ref_mul_i16, vla: false },
    // int32
    Kernel { name: "add_i32_neon", isa: I::Neon, precision: P::Int32, requires: &["neon"], pipe: Some(Alu), width: V128, instrs_per_iter: 24, ops_per_instr: 4, layout: lay(24, 16, 4, I32), values: V::IntAdd, run: r::add_i32_neon, clock: None, reference: ref_add_i32, vla: false },
    Kernel { name: "mul_i32_neon", isa: I::Neon, precision: P::Int32, requires: &["neon"], pipe: Some(Mul32), width: V128, instrs_per_iter: 24, ops_per_instr: 4, layout: lay(24, 16, 4, I32), values: V::IntMul, run: r::mul_i32_neon, clock: None, reference: ref_mul_i32, vla: false },
    Kernel { name: "add_i32_sve", isa: I::Sve, precision: P::Int32, requires: &["sve"], pipe: Some(Alu), width: V128, instrs_per_iter: 24, ops_per_instr: 4, layout: lay(24, 16, 4, I32), values: V::IntAdd, run: r::add_i32_sve, clock: None, reference: ref_add_i32, vla: true },
    Kernel { name: "mul_i32_sve", isa: I::Sve, precision: P::Int32, requires: &["sve"], pipe: Some(Mul32), width: V128, instrs_per_iter: 24, ops_per_instr: 4, layout: lay(24, 16, 4, I32), values: V::IntMul, run: r::mul_i32_sve, clock: None, reference: ref_mul_i32, vla: true },
    // int64
    Kernel { name: "add_i64_neon", isa: I::Neon, precision: P::Int64, requires: &["neon"], pipe: Some(Alu), width: V128, instrs_per_iter: 24, ops_per_instr: 2, layout: lay(24, 16, 2, I64), values: V::IntAdd, run: r::add_i64_neon, clock: None, reference: ref_add_i64, vla: false },
    Kernel { name: "add_i64_sve", isa: I::Sve, precision: P::Int64, requires: &["sve"], pipe: Some(Alu), width: V128, instrs_per_iter: 24, ops_per_instr: 2, layout: lay(24, 16, 2, I64), values: V::IntAdd, run: r::add_i64_sve, clock: None, reference: ref_add_i64, vla: true },
    Kernel { name: "mul_i64_sve", isa: I::Sve, precision: P::Int64, requires: &["sve"], pipe: Some(Mul64), width: V128, instrs_per_iter: 24, ops_per_instr: 2, layout: lay(24, 16, 2, I64), values: V::IntMul, run: r::mul_i64_sve, clock: None, reference: ref_mul_i64, vla: true },
    Kernel { name: "mul_i64_sve2", isa: I::Sve2, precision: P::Int64, requires: &["sve", "sve2"], pipe: Some(Mul64), width: V128, instrs_per_iter: 24, ops_per_instr: 2, layout: lay(24, 16, 2, I64), values: V::IntMul, run: r::mul_i64_sve2, clock: None, reference: ref_mul_i64, vla: true },
    // fp16 (FP16 FMLA runs on the FMA pipes)
    Kernel { name: "fma_f16_neon", isa: I::NeonFp16, precision: P::Fp16, requires: &["neon", "fp16"], pipe: Some(Fma), width: V128, instrs_per_iter: 24, ops_per_instr: 16, layout: lay(24, 16, 8, F16), values: V::Converge, run: r::fma_f16_neon, clock: None, reference: ref_fmla_f16, vla: false },
    Kernel { name: "fma_f16_sve", isa: I::Sve, precision: P::Fp16, requires: &["sve"], pipe: Some(Fma), width: V128, instrs_per_iter: 24, ops_per_instr: 16, layout: lay(24, 16, 8, F16), values: V::Converge, run: r::fma_f16_sve, clock: None, reference: ref_fmla_f16, vla: true },
    // bf16
    Kernel { name: "bfdot_bf16_neon", isa: I::NeonBf16, precision: P::Bf16, requires: &["neon", "bf16"], pipe: Some(DotBf16), width: V128, instrs_per_iter: 24, ops_per_instr: 16, layout: lay(24, 16, 4, F32), values: V::Bf16Dot, run: r::bfdot_bf16_neon, clock: None, reference: ref_dot_bf16, vla: false },
    Kernel { name: "bfmmla_bf16_neon", isa: I::NeonBf16, precision: P::Bf16, requires: &["neon", "bf16"], pipe: Some(MmlaBf16), width: V128, instrs_per_iter: 24, ops_per_instr: 32, layout: lay(24, 16, 4, F32), values: V::Bf16Dot, run: r::bfmmla_bf16_neon, clock: None, reference: ref_mmla_bf16, vla: false },
    Kernel { name: "bfdot_bf16_sve", isa: I::SveBf16, precision: P::Bf16, requires: &["sve", "sve-bf16"], pipe: Some(DotBf16), width: V128, instrs_per_iter: 24, ops_per_instr: 16, layout: lay(24, 16, 4, F32), values: V::Bf16Dot, run: r::bfdot_bf16_sve, clock: None, reference: ref_dot_bf16, vla: true },
    Kernel { name: "bfmmla_bf16_sve", isa: I::SveBf16, precision: P::Bf16, requires: &["sve", "sve-bf16"], pipe: Some(MmlaBf16), width: V128, instrs_per_iter: 24, ops_per_instr: 32, layout: lay(24, 16, 4, F32), values: V::Bf16Dot, run: r::bfmmla_bf16_sve, clock: None, reference: ref_mmla_bf16, vla: true },
    // fp32
    Kernel { name: "muladd_f32_neon", isa: I::Neon, precision: P::Fp32, requires: &["neon"], pipe: Some(MulAdd), width: V128, instrs_per_iter: 48, ops_per_instr: 4, layout: lay(24, 16, 4, F32), values: V::Converge, run: r::muladd_f32_neon, clock: None, reference: ref_muladd_f32, vla: false },
    Kernel { name: "fma_f32_neon", isa: I::Neon, precision: P::Fp32, requires: &["neon"], pipe: Some(Fma), width: V128, instrs_per_iter: 24, ops_per_instr: 8, layout: lay(24, 16, 4, F32), values: V::Converge, run: r::fma_f32_neon, clock: None, reference: ref_fmla_f32, vla: false },
    Kernel { name: "muladd_f32_sve", isa: I::Sve, precision: P::Fp32, requires: &["sve"], pipe: Some(MulAdd), width: V128, instrs_per_iter: 48, ops_per_instr: 4, layout: lay(24, 16, 4, F32), values: V::Converge, run: r::muladd_f32_sve, clock: None, reference: ref_muladd_f32, vla: true },
    Kernel { name: "fma_f32_sve", isa: I::Sve, precision: P::Fp32, requires: &["sve"], pipe: Some(Fma), width: V128, instrs_per_iter: 24, ops_per_instr: 8, layout: lay(24, 16, 4, F32), values: V::Converge, run: r::fma_f32_sve, clock: None, reference: ref_fmla_f32, vla: true },
    // fp64
    Kernel { name: "muladd_f64_neon", isa: I::Neon, precision: P::Fp64, requires: &["neon"], pipe: Some(MulAdd), width: V128, instrs_per_iter: 48, ops_per_instr: 2, layout: lay(24, 16, 2, F64), values: V::Converge, run: r::muladd_f64_neon, clock: None, reference: ref_muladd_f64, vla: false },
    Kernel { name: "fma_f64_neon", isa: I::Neon, precision: P::Fp64, requires: &["neon"], pipe: Some(Fma), width: V128, instrs_per_iter: 24, ops_per_instr: 4, layout: lay(24, 16, 2, F64), values: V::Converge, run: r::fma_f64_neon, clock: None, reference: ref_fmla_f64, vla: false },
    Kernel { name: "muladd_f64_sve", isa: I::Sve, precision: P::Fp64, requires: &["sve"], pipe: Some(MulAdd), width: V128, instrs_per_iter: 48, ops_per_instr: 2, layout: lay(24, 16, 2, F64), values: V::Converge, run: r::muladd_f64_sve, clock: None, reference: ref_muladd_f64, vla: true },
    Kernel { name: "fma_f64_sve", isa: I::Sve, precision: P::Fp64, requires: &["sve"], pipe: Some(Fma), width: V128, instrs_per_iter: 24, ops_per_instr: 4, layout: lay(24, 16, 2, F64), values: V::Converge, run: r::fma_f64_sve, clock: None, reference: ref_fmla_f64, vla: true },
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

/// What a peak of the F16C fp16 kernel says when its core row has no figure for the
/// loop (`hw::uarch_f16c`): what bounds it, and how to give it.
pub(crate) const F16C_NO_PEAK: &str = "fp16 through F16C conversion, the arithmetic is fp32 FMA (vcvtph2ps, vfmadd132ps, vcvtps2ph); the fp32 FMA peak (fma_f32_avx2) bounds it from above (use --peak cpu.fp16.f16c=VALUE)";

/// The note on every F16C fp16 row.
pub(crate) const F16C_NOTE: &str = "fp16 through F16C: each step widens the fp16 values to fp32 (vcvtph2ps), does one fp32 FMA and rounds the result back to fp16 (vcvtps2ph), so the values are fp16 but the arithmetic is fp32 after conversion; the CPU has no native fp16 arithmetic, and the conversions' ports bound the rate (the peak counts the FMA's 16 FLOP per step)";

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

    /// Issue #34 item 4: the rows are named-field literals; a few rows' fields as they
    /// were when `row()` took them by position, and `vla` on exactly the SVE rows.
    #[test]
    fn rows_keep_their_fields() {
        let by = |name: &str| *all().iter().find(|k| k.name == name).unwrap();
        let g = by("muladd_i32_generic");
        assert_eq!(
            (g.isa, g.precision, g.pipe, g.width),
            (Isa::Generic, Precision::Int32, None, Width::Scalar)
        );
        assert_eq!((g.instrs_per_iter, g.ops_per_instr), (16, 2));
        assert_eq!(
            (g.layout.regs, g.layout.reg_bytes, g.layout.lanes),
            (16, 4, 1)
        );
        assert!(g.requires.is_empty() && g.clock.is_none() && !g.vla);
        #[cfg(target_arch = "x86_64")]
        {
            let k = by("fma_f64_avx512");
            assert_eq!(
                (k.isa, k.precision, k.pipe, k.width),
                (Isa::Avx512, Precision::Fp64, Some(Pipe::Fma), Width::V512)
            );
            assert_eq!((k.instrs_per_iter, k.ops_per_instr), (24, 16));
            assert_eq!(
                (k.layout.regs, k.layout.reg_bytes, k.layout.lanes),
                (24, 64, 8)
            );
            assert_eq!(k.requires, ["avx512f"]);
            assert!(k.clock.is_some() && !k.vla);
            assert_eq!((k.reference)(3), ref_fma_f64(3));
            let k = by("tdp_i8_amx");
            assert_eq!((k.instrs_per_iter, k.ops_per_instr), (4, 32768));
            assert_eq!(
                (k.layout.regs, k.layout.reg_bytes, k.layout.lanes),
                (4, 1024, 256)
            );
            assert_eq!(k.requires, ["amx-tile", "amx-int8"]);
            assert!(k.clock.is_none());
            let k = by("muladd_f32_scalar");
            assert_eq!(
                (k.instrs_per_iter, k.ops_per_instr, k.pipe),
                (24, 1, Some(Pipe::MulAdd))
            );
        }
        #[cfg(target_arch = "aarch64")]
        {
            let k = by("muladd_f64_sve");
            assert_eq!(
                (k.isa, k.pipe, k.width),
                (Isa::Sve, Some(Pipe::MulAdd), Width::V128)
            );
            assert_eq!((k.instrs_per_iter, k.ops_per_instr), (48, 2));
            assert!(k.clock.is_none() && k.vla);
        }
        for k in all() {
            let sve = matches!(k.isa, Isa::Sve | Isa::SveBf16 | Isa::SveI8mm | Isa::Sve2);
            assert_eq!(k.vla, sve, "{}", k.name);
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

    #[cfg(target_arch = "x86_64")]
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
            (Isa::F16c, Precision::Fp16, Some(Pipe::F16c))
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
            let lanes = super::super::work::run_once(k, iters);
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
        let spr = [zen3.clone(), features(&["avx512f", "avx512fp16"])].concat();
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
