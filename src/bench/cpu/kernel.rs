//! What a CPU kernel is: its data type, instruction set, register layout, operand
//! values and the `Kernel` row type of the KERNELS table (kernels.rs). The per-ISA kernel
//! files (x86.rs, amx.rs, generic.rs) take `Operands` from here, and the table file takes
//! them, so the types live apart from the table and no file imports its importer.
//!
//! Operation counting: an FMA is 2 operations per lane; a mul+add pair is
//! 2 instructions of 1 operation per lane; a vpdpbusd i32 lane is 4 multiplies + 4 adds
//! = 8 operations; vpdpwssd and vdpbf16ps lanes are 2 + 2 = 4; an AMX tile multiply is
//! M·N·K multiply-adds = 2·M·N·K operations.

use crate::hw::clock::ChainFn;
use crate::hw::uarch::{Pipe, Width};
use crate::report::model::Unit;

/// Largest `out` buffer any kernel needs (24 SVE accumulators of 2048 bits: 6 KiB).
pub(crate) const OUT_BYTES: usize = 8192;

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

    /// Parses a flag value, including the course aliases qp/hp/sp/dp (the one table
    /// `gpu --precision` uses too: `hw::precision`).
    pub(crate) fn parse(s: &str) -> Option<Precision> {
        let s = crate::hw::precision::canonical(s);
        Precision::ALL.iter().copied().find(|p| p.name() == s)
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
    /// fp16 through F16C conversions (`vcvtph2ps`/`vcvtps2ph`) around fp32 FMA3: the
    /// arithmetic is fp32, each result rounded back to fp16. A stand-in where the CPU has
    /// no native fp16 arithmetic (see `kernels::superseded`).
    F16c,
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
    /// Arm NEON (ASIMD), 128-bit.
    Neon,
    /// NEON half-precision arithmetic (FEAT_FP16).
    NeonFp16,
    /// NEON SDOT/UDOT (FEAT_DotProd).
    NeonDotprod,
    /// NEON BFDOT/BFMMLA (FEAT_BF16).
    NeonBf16,
    /// NEON SMMLA/UMMLA (FEAT_I8MM).
    NeonI8mm,
    /// SVE at the core's vector length.
    Sve,
    /// SVE BFDOT/BFMMLA (FEAT_BF16 with SVE).
    SveBf16,
    /// SVE SMMLA (FEAT_I8MM with SVE).
    SveI8mm,
    /// SVE2.
    Sve2,
}

impl Isa {
    /// Every ISA, weakest first.
    pub(crate) const ALL: [Isa; 21] = [
        Isa::Generic,
        Isa::Scalar,
        Isa::Sse2,
        Isa::Avx,
        Isa::Avx2,
        Isa::F16c,
        Isa::AvxVnni,
        Isa::Avx512,
        Isa::Avx512Vnni,
        Isa::Avx512Bf16,
        Isa::Avx512Fp16,
        Isa::Amx,
        Isa::Neon,
        Isa::NeonFp16,
        Isa::NeonDotprod,
        Isa::NeonBf16,
        Isa::NeonI8mm,
        Isa::Sve,
        Isa::SveBf16,
        Isa::SveI8mm,
        Isa::Sve2,
    ];

    /// The flag value.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Isa::Generic => "generic",
            Isa::Scalar => "scalar",
            Isa::Sse2 => "sse2",
            Isa::Avx => "avx",
            Isa::Avx2 => "avx2",
            Isa::F16c => "f16c",
            Isa::AvxVnni => "avx-vnni",
            Isa::Avx512 => "avx512",
            Isa::Avx512Vnni => "avx512-vnni",
            Isa::Avx512Bf16 => "avx512-bf16",
            Isa::Avx512Fp16 => "avx512-fp16",
            Isa::Amx => "amx",
            Isa::Neon => "neon",
            Isa::NeonFp16 => "neon-fp16",
            Isa::NeonDotprod => "neon-dotprod",
            Isa::NeonBf16 => "neon-bf16",
            Isa::NeonI8mm => "neon-i8mm",
            Isa::Sve => "sve",
            Isa::SveBf16 => "sve-bf16",
            Isa::SveI8mm => "sve-i8mm",
            Isa::Sve2 => "sve2",
        }
    }

    /// Parses a flag value (case-insensitive, `_` accepted for `-`).
    pub(crate) fn parse(s: &str) -> Option<Isa> {
        let s = s.to_ascii_lowercase().replace('_', "-");
        Isa::ALL.iter().copied().find(|i| i.name() == s)
    }
}

/// Element type of the accumulators, for decoding `out`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Elem {
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
pub(crate) struct Layout {
    /// Accumulator registers (or tiles).
    // Read only by the kernels' tests (`Kernel::lanes`), like `reg_bytes` and `lanes`.
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) regs: usize,
    /// Bytes stored per register.
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) reg_bytes: usize,
    /// Meaningful elements per register.
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) lanes: usize,
    /// Element type.
    pub(crate) elem: Elem,
}

/// Operand memory handed to a kernel: two vectors, the initial accumulator, and AMX
/// tiles. Aligned to a cache line.
#[repr(C, align(64))]
pub(crate) struct Operands {
    /// First operand vector (64 bytes; narrower kernels use the low part).
    pub(crate) a: [u8; 64],
    /// Second operand vector.
    pub(crate) b: [u8; 64],
    /// Initial value of every accumulator.
    pub(crate) init: [u8; 64],
    /// AMX: A0, A1, B0, B1 tiles of 1 KiB.
    pub(crate) tiles: [u8; 4096],
}

/// Which operand values a kernel runs on (chosen so results stay finite and normal).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Values {
    /// a = 1 − 2⁻¹⁰, b = 2⁻¹⁰, acc₀ = 0: acc·a + b converges to 1.
    Converge,
    /// bf16 pairs a = 1.0, b = 2⁻¹⁰ into f32 accumulators from 0.
    Bf16Dot,
    /// u8 a = 3, s8 b = −2 into i32 accumulators from 0.
    I8Dot,
    /// s16 a = 3, s16 b = −2 into i32 accumulators from 0.
    #[cfg(target_arch = "x86_64")]
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
    pub(crate) isa: Isa,
    /// Data type.
    pub(crate) precision: Precision,
    /// peakbench feature names the CPU must have (see `hw::cpu`).
    pub(crate) requires: &'static [&'static str],
    /// Execution resource, `None` for generic kernels (no peak claimed).
    pub pipe: Option<Pipe>,
    /// Vector width.
    pub width: Width,
    /// Counted instructions per loop iteration.
    pub(crate) instrs_per_iter: u64,
    /// Operations per counted instruction.
    pub(crate) ops_per_instr: u64,
    /// Accumulator layout in `out`.
    pub(crate) layout: Layout,
    /// Operand values.
    pub(crate) values: Values,
    /// The kernel.
    pub(crate) run: KernelFn,
    /// The clock chain with this kernel's instruction interleaved (see `x86.rs`), so
    /// the clock is read at the kernel's own frequency licence; `None` = the generic
    /// chain for its width.
    pub(crate) clock: Option<ChainFn>,
    /// Value of one accumulator lane after `iters` iterations, computed in scalar code.
    // Read only by the kernels' tests.
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) reference: fn(u64) -> f64,
    /// Vector-length agnostic (SVE): `width`, `ops_per_instr` and `layout` are stated
    /// for 128 bits and scaled by the vector length read at run time.
    pub(crate) vla: bool,
}

impl Kernel {
    /// Operations per loop iteration.
    pub(crate) fn ops_per_iter(&self) -> u64 {
        self.instrs_per_iter * self.instr_ops()
    }

    /// 128-bit blocks per vector: the SVE vector length ÷ 128 for vector-length
    /// agnostic kernels, 1 for every other.
    pub(crate) fn vector_scale(&self) -> u64 {
        if self.vla {
            crate::hw::arm::sve_vector_bytes().map_or(1, |b| (b / 16).max(1) as u64)
        } else {
            1
        }
    }

    /// Operations per counted instruction at this machine's vector length.
    pub(crate) fn instr_ops(&self) -> u64 {
        self.ops_per_instr * self.vector_scale()
    }

    /// The vector width the kernel runs at here (SVE: from the vector length; lengths
    /// above 512 bits take the 512-bit rates).
    pub(crate) fn vector_width(&self) -> Width {
        match (self.vla, self.vector_scale()) {
            (false, _) => self.width,
            (true, 1) => Width::V128,
            (true, 2) => Width::V256,
            (true, _) => Width::V512,
        }
    }

    /// The accumulator layout at this machine's vector length.
    #[cfg(test)]
    pub(crate) fn layout_now(&self) -> Layout {
        let s = self.vector_scale() as usize;
        Layout {
            reg_bytes: self.layout.reg_bytes * s,
            lanes: self.layout.lanes * s,
            ..self.layout
        }
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
            #[cfg(target_arch = "x86_64")]
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
        let l = self.layout_now();
        l.regs * l.reg_bytes
    }

    /// Decodes every meaningful accumulator lane from `out`.
    #[cfg(test)]
    pub(crate) fn lanes(&self, out: &[u8]) -> Vec<f64> {
        let l = self.layout_now();
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

    /// Its `--precision` value (the integration tests choose, through detection, a
    /// precision or ISA the CPU under them cannot run).
    pub fn precision_name(&self) -> &'static str {
        self.precision.name()
    }

    /// Its `--isa` value.
    pub fn isa_name(&self) -> &'static str {
        self.isa.name()
    }
}

/// The increment of the converging recurrence, 2⁻¹⁰ (exact in every float format).
pub(crate) const CONVERGE_B: f64 = 1.0 / 1024.0;
