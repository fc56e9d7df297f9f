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
use crate::report::model::Unit;

/// Data type of a kernel (`--precision`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Precision {
    /// 8-bit integers.
    Int8,
    /// 16-bit integers.
    Int16,
    /// 32-bit integers.
    Int32,
    /// 64-bit integers.
    Int64,
    /// IEEE half precision.
    Fp16,
    /// bfloat16.
    Bf16,
    /// IEEE single precision.
    Fp32,
    /// IEEE double precision.
    Fp64,
}

impl Precision {
    /// Every precision, in listing order.
    pub(crate) const ALL: [Precision; 8] = [
        Precision::Int8,
        Precision::Int16,
        Precision::Int32,
        Precision::Int64,
        Precision::Fp16,
        Precision::Bf16,
        Precision::Fp32,
        Precision::Fp64,
    ];

    /// The flag value.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Precision::Int8 => "int8",
            Precision::Int16 => "int16",
            Precision::Int32 => "int32",
            Precision::Int64 => "int64",
            Precision::Fp16 => "fp16",
            Precision::Bf16 => "bf16",
            Precision::Fp32 => "fp32",
            Precision::Fp64 => "fp64",
        }
    }

    /// Parses a flag value, including the course aliases qp/hp/sp/dp.
    pub fn parse(s: &str) -> Option<Precision> {
        let s = s.to_ascii_lowercase();
        Precision::ALL
            .iter()
            .copied()
            .find(|p| p.name() == s)
            .or(match s.as_str() {
                "qp" => Some(Precision::Int8),
                "hp" => Some(Precision::Fp16),
                "sp" => Some(Precision::Fp32),
                "dp" => Some(Precision::Fp64),
                _ => None,
            })
    }

    /// `FLOP/s` for floating point, `OP/s` for integers.
    pub(crate) fn unit(self) -> Unit {
        match self {
            Precision::Fp16 | Precision::Bf16 | Precision::Fp32 | Precision::Fp64 => {
                Unit::FlopPerSec
            }
            _ => Unit::OpPerSec,
        }
    }
}

/// Instruction set of a kernel (`--isa`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Isa {
    /// Plain Rust, compiler-chosen instructions.
    Generic,
    /// Scalar SSE2 (one element per instruction).
    Scalar,
    /// 128-bit SSE2.
    Sse2,
    /// 256-bit AVX (no FMA).
    Avx,
    /// 256-bit AVX2 and FMA3.
    Avx2,
    /// 256-bit AVX-VNNI.
    AvxVnni,
    /// 512-bit AVX-512 (F, DQ).
    Avx512,
    /// AVX512-VNNI.
    Avx512Vnni,
    /// AVX512-BF16.
    Avx512Bf16,
    /// AVX512-FP16.
    Avx512Fp16,
    /// AMX tiles.
    Amx,
}

impl Isa {
    /// Every ISA, weakest first.
    pub(crate) const ALL: [Isa; 11] = [
        Isa::Generic,
        Isa::Scalar,
        Isa::Sse2,
        Isa::Avx,
        Isa::Avx2,
        Isa::AvxVnni,
        Isa::Avx512,
        Isa::Avx512Vnni,
        Isa::Avx512Bf16,
        Isa::Avx512Fp16,
        Isa::Amx,
    ];

    /// The flag value.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Isa::Generic => "generic",
            Isa::Scalar => "scalar",
            Isa::Sse2 => "sse2",
            Isa::Avx => "avx",
            Isa::Avx2 => "avx2",
            Isa::AvxVnni => "avx-vnni",
            Isa::Avx512 => "avx512",
            Isa::Avx512Vnni => "avx512-vnni",
            Isa::Avx512Bf16 => "avx512-bf16",
            Isa::Avx512Fp16 => "avx512-fp16",
            Isa::Amx => "amx",
        }
    }

    /// Parses a flag value (case-insensitive, `_` accepted for `-`).
    pub fn parse(s: &str) -> Option<Isa> {
        let s = s.to_ascii_lowercase().replace('_', "-");
        Isa::ALL.iter().copied().find(|i| i.name() == s)
    }
}

/// Element type of the accumulators, for decoding `out`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Elem {
    /// f64
    F64,
    /// f32
    F32,
    /// IEEE half
    F16,
    /// i8
    I8,
    /// i16
    I16,
    /// i32
    I32,
    /// i64
    I64,
}

impl Elem {
    /// Bytes per element.
    #[cfg(test)]
    pub(crate) fn size(self) -> usize {
        match self {
            Elem::I8 => 1,
            Elem::F16 | Elem::I16 => 2,
            Elem::F32 | Elem::I32 => 4,
            Elem::F64 | Elem::I64 => 8,
        }
    }

    #[cfg(test)]
    fn read(self, b: &[u8]) -> f64 {
        match self {
            Elem::F64 => f64::from_le_bytes(b[..8].try_into().unwrap()),
            Elem::F32 => f64::from(f32::from_le_bytes(b[..4].try_into().unwrap())),
            Elem::F16 => half::f16::from_le_bytes(b[..2].try_into().unwrap()).to_f64(),
            Elem::I8 => f64::from(b[0] as i8),
            Elem::I16 => f64::from(i16::from_le_bytes(b[..2].try_into().unwrap())),
            Elem::I32 => f64::from(i32::from_le_bytes(b[..4].try_into().unwrap())),
            Elem::I64 => i64::from_le_bytes(b[..8].try_into().unwrap()) as f64,
        }
    }
}

/// Where accumulators land in `out`: `regs` registers of `reg_bytes`, the first
/// `lanes` elements of each meaningful.
#[derive(Debug, Clone, Copy)]
pub struct Layout {
    /// Accumulator registers (or tiles).
    pub regs: usize,
    /// Bytes stored per register.
    pub reg_bytes: usize,
    /// Meaningful elements per register.
    pub lanes: usize,
    /// Element type.
    pub elem: Elem,
}

/// Operand memory handed to a kernel: two vectors, the initial accumulator, and AMX
/// tiles. Aligned to a cache line.
#[repr(C, align(64))]
pub struct Operands {
    /// First operand vector (64 bytes; narrower kernels use the low part).
    pub a: [u8; 64],
    /// Second operand vector.
    pub b: [u8; 64],
    /// Initial value of every accumulator.
    pub init: [u8; 64],
    /// AMX: A0, A1, B0, B1 tiles of 1 KiB.
    pub tiles: [u8; 4096],
}

/// Which operand values a kernel runs on (chosen so results stay finite and normal).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Values {
    /// a = 1 − 2⁻¹⁰, b = 2⁻¹⁰, acc₀ = 0: acc·a + b converges to 1.
    Converge,
    /// bf16 pairs a = 1.0, b = 2⁻¹⁰ into f32 accumulators from 0.
    Bf16Dot,
    /// u8 a = 3, s8 b = −2 into i32 accumulators from 0.
    I8Dot,
    /// s16 a = 3, s16 b = −2 into i32 accumulators from 0.
    I16Dot,
    /// acc += 7 from 0.
    IntAdd,
    /// acc *= 3 from 1.
    IntMul,
    /// acc = acc · 3 + 7 from 0 (generic integer kernels).
    Lcg,
}

/// Kernel signature: run `iters` ≥ 1 iterations, store accumulators to `out`.
pub(crate) type KernelFn = unsafe fn(u64, &Operands, *mut u8);

/// One row of the KERNELS table.
#[derive(Clone, Copy)]
pub struct Kernel {
    /// `<op>_<dtype>_<isa>`, e.g. `fma_f64_avx512`.
    pub name: &'static str,
    /// Instruction set.
    pub isa: Isa,
    /// Data type.
    pub precision: Precision,
    /// peakbench feature names the CPU must have (see `hw::cpu`).
    pub requires: &'static [&'static str],
    /// Execution resource, `None` for generic kernels (no peak claimed).
    pub pipe: Option<Pipe>,
    /// Vector width.
    pub width: Width,
    /// Counted instructions per loop iteration.
    pub instrs_per_iter: u64,
    /// Operations per counted instruction.
    pub ops_per_instr: u64,
    /// Accumulator layout in `out`.
    pub layout: Layout,
    /// Operand values.
    pub values: Values,
    /// The kernel.
    pub run: KernelFn,
    /// The clock chain with this kernel's instruction interleaved (see `x86.rs`), so
    /// the clock is read at the kernel's own frequency licence; `None` = the generic
    /// chain for its width.
    pub clock: Option<ChainFn>,
    /// Value of one accumulator lane after `iters` iterations, computed in scalar code.
    pub reference: fn(u64) -> f64,
}

impl Kernel {
    /// Operations per loop iteration.
    pub(crate) fn ops_per_iter(&self) -> u64 {
        self.instrs_per_iter * self.ops_per_instr
    }

    /// The operands this kernel runs on.
    pub(crate) fn operands(&self) -> Box<Operands> {
        let mut o = Box::new(Operands {
            a: [0; 64],
            b: [0; 64],
            init: [0; 64],
            tiles: [0; 4096],
        });
        let e = self.layout.elem;
        let fill = |dst: &mut [u8], pat: &[u8]| {
            for (i, x) in dst.iter_mut().enumerate() {
                *x = pat[i % pat.len()];
            }
        };
        let scalar = |v: f64| -> Vec<u8> {
            match e {
                Elem::F64 => v.to_le_bytes().to_vec(),
                Elem::F32 => (v as f32).to_le_bytes().to_vec(),
                Elem::F16 => half::f16::from_f64(v).to_le_bytes().to_vec(),
                Elem::I8 => vec![v as i8 as u8],
                Elem::I16 => (v as i16).to_le_bytes().to_vec(),
                Elem::I32 => (v as i32).to_le_bytes().to_vec(),
                Elem::I64 => (v as i64).to_le_bytes().to_vec(),
            }
        };
        let bf16_one = 0x3F80u16.to_le_bytes(); // 1.0
        let bf16_small = 0x3A80u16.to_le_bytes(); // 2^-10
        match self.values {
            Values::Converge => {
                fill(&mut o.a, &scalar(1.0 - CONVERGE_B));
                fill(&mut o.b, &scalar(CONVERGE_B));
                fill(&mut o.init, &scalar(0.0));
            }
            Values::Bf16Dot => {
                fill(&mut o.a, &bf16_one);
                fill(&mut o.b, &bf16_small);
                let (a, b) = o.tiles.split_at_mut(2048);
                fill(a, &bf16_one);
                fill(b, &bf16_small);
            }
            Values::I8Dot => {
                fill(&mut o.a, &[3]);
                fill(&mut o.b, &[(-2i8) as u8]);
                let (a, b) = o.tiles.split_at_mut(2048);
                fill(a, &[3]);
                fill(b, &[(-2i8) as u8]);
            }
            Values::I16Dot => {
                fill(&mut o.a, &3i16.to_le_bytes());
                fill(&mut o.b, &(-2i16).to_le_bytes());
            }
            Values::IntAdd => fill(&mut o.a, &scalar(7.0)),
            Values::IntMul => {
                fill(&mut o.a, &scalar(3.0));
                fill(&mut o.init, &scalar(1.0));
            }
            Values::Lcg => {
                fill(&mut o.a, &scalar(3.0));
                fill(&mut o.b, &scalar(7.0));
            }
        }
        o
    }

    /// Bytes of `out` the kernel writes.
    #[cfg(test)]
    pub(crate) fn out_bytes(&self) -> usize {
        self.layout.regs * self.layout.reg_bytes
    }

    /// Decodes every meaningful accumulator lane from `out`.
    #[cfg(test)]
    pub(crate) fn lanes(&self, out: &[u8]) -> Vec<f64> {
        let l = self.layout;
        let mut v = Vec::with_capacity(l.regs * l.lanes);
        for r in 0..l.regs {
            for i in 0..l.lanes {
                let at = r * l.reg_bytes + i * l.elem.size();
                v.push(l.elem.read(&out[at..at + l.elem.size()]));
            }
        }
        v
    }

    /// Whether the CPU described by `features` can run this kernel.
    pub fn supported_by(&self, features: &[String]) -> bool {
        self.requires
            .iter()
            .all(|r| features.iter().any(|f| f == r))
    }
}

/// The increment of the converging recurrence, 2⁻¹⁰ (exact in every float format).
pub(crate) const CONVERGE_B: f64 = 1.0 / 1024.0;

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

/// Every kernel this build has: the generic ones, then the architecture's own.
pub fn all() -> Vec<&'static Kernel> {
    let mut v: Vec<&'static Kernel> = GENERIC.iter().collect();
    #[cfg(target_arch = "x86_64")]
    v.extend(X86.iter());
    v
}

/// Largest `out` buffer any kernel needs.
pub(crate) const OUT_BYTES: usize = 4096;

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
                (other, _) => panic!("unexpected kernel family {other}"),
            };
            assert_eq!(k.ops_per_instr, expect, "{}", k.name);
        }
    }

    #[test]
    fn precision_and_isa_parsing() {
        assert_eq!(Precision::parse("dp"), Some(Precision::Fp64));
        assert_eq!(Precision::parse("QP"), Some(Precision::Int8));
        assert_eq!(Precision::parse("hp"), Some(Precision::Fp16));
        assert_eq!(Precision::parse("sp"), Some(Precision::Fp32));
        assert_eq!(Precision::parse("fp8"), None);
        assert_eq!(Isa::parse("avx512_vnni"), Some(Isa::Avx512Vnni));
        assert_eq!(Isa::parse("neon"), None);
    }
}
