//! What a row of the microarchitecture tables (`uarch.rs`, `uarch_arm.rs`) is: the pipe
//! classes and vector widths a rate is given for (`Pipe`, `Width`), one row (`Uarch`)
//! with its rate lookup and its match against a recorded CPU, and how a description was
//! matched to a row (`Identification`). Below both tables, which build rows from it.

use super::cpudesc::{brand_matches, CpuDescription};
use serde::{Deserialize, Serialize};

/// The vendor of every Arm row (`uarch_arm.rs`): rows match by architecture, not CPUID
/// vendor.
const ARM: &str = "aarch64";

/// A class of execution resource a kernel's instructions compete for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Pipe {
    /// FP FMA instructions.
    Fma,
    /// Independent FP multiplies and adds (mul+add kernels): cores with adders beside
    /// their FMA units (Zen, Golden Cove) start more of these than FMAs.
    MulAdd,
    /// Vector integer add/logic.
    Alu,
    /// 32-bit lane integer multiply (`vpmulld`).
    Mul32,
    /// 64-bit lane integer multiply (`vpmullq`).
    Mul64,
    /// Integer dot products (`vpdpbusd`, `vpdpwssd`).
    Dot,
    /// BF16 dot products (`vdpbf16ps`), slower than the integer ones on Intel cores.
    DotBf16,
    /// Arm int8 matrix multiply-accumulate (`smmla`/`ummla`, I8MM): on some cores a
    /// different rate from the dot products (AmpereOne: one per cycle, SDOT two).
    Mmla,
    /// Arm BF16 matrix multiply-accumulate (`bfmmla`).
    MmlaBf16,
    /// AVX512-FP16 FMA (`vfmadd231ph`).
    Fp16,
    /// AMX tile multiply (`tdpbf16ps`, `tdpbssd`).
    Amx,
    /// The F16C fp16 step (`vcvtph2ps`, fp32 FMA, `vcvtps2ph`), counted as its FMA: its
    /// rate follows from the ports the three instructions share (`uarch_f16c.rs`), not
    /// from a field of the row.
    F16c,
}

impl Pipe {
    /// The pipes a row's own rate columns hold, in declaration order: all but `F16c`,
    /// whose rate is per row in `uarch_f16c.rs`.
    pub(crate) const TABLED: [Pipe; 11] = [
        Pipe::Fma,
        Pipe::MulAdd,
        Pipe::Alu,
        Pipe::Mul32,
        Pipe::Mul64,
        Pipe::Dot,
        Pipe::DotBf16,
        Pipe::Mmla,
        Pipe::MmlaBf16,
        Pipe::Fp16,
        Pipe::Amx,
    ];
}

/// Vector width of a kernel's instructions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Width {
    /// One element (scalar SSE/AVX or general-purpose registers); uses the 128-bit pipes.
    Scalar,
    /// 128-bit (SSE, NEON).
    V128,
    /// 256-bit (AVX, AVX2).
    V256,
    /// 512-bit (AVX-512).
    V512,
    /// AMX tile.
    Tile,
}

impl Width {
    fn index(self) -> usize {
        match self {
            Width::Scalar | Width::V128 => 0,
            Width::V256 => 1,
            Width::V512 | Width::Tile => 2,
        }
    }
}

/// One microarchitecture row. Throughputs are instructions started per cycle per core
/// at widths [128, 256, 512]; 0 means the class is absent at that width.
#[derive(Debug, Clone, Copy)]
pub struct Uarch {
    /// Name printed in sysinfo and in every peak's provenance.
    pub(crate) name: &'static str,
    /// CPUID vendor string, or `aarch64` for every Arm implementer.
    pub(crate) vendor: &'static str,
    /// CPUID display family (0 on aarch64).
    pub(crate) family: u32,
    /// Inclusive CPUID display-model ranges (MIDR part numbers on aarch64).
    pub(crate) models: &'static [(u32, u32)],
    /// Linux flags the row's cores always expose (unless a hypervisor hides them).
    pub(crate) needs: &'static [&'static str],
    /// Linux flags the row's cores cannot have: a model number with one of these is
    /// overruled (hypervisors mask models, they never add instructions).
    pub(crate) lacks: &'static [&'static str],
    /// Brand patterns (`cpudesc::brand_matches`: `*`/`?` globs, `!` exceptions); a row
    /// with patterns applies only to matching brands (SKU variants of one model).
    pub(crate) brands: &'static [&'static str],
    /// FP FMA pipes.
    pub(crate) fma: [f64; 3],
    /// Independent FP multiplies + adds per cycle.
    pub(crate) muladd: [f64; 3],
    /// Vector integer ALUs.
    pub(crate) alu: [f64; 3],
    /// `vpmulld` per cycle.
    pub(crate) mul32: [f64; 3],
    /// `vpmullq` per cycle.
    pub(crate) mul64: [f64; 3],
    /// Integer dot-product instructions per cycle.
    pub(crate) dot: [f64; 3],
    /// `vdpbf16ps` per cycle.
    pub(crate) dot_bf16: [f64; 3],
    /// Arm SMMLA/UMMLA per cycle (0 on every x86 row).
    pub(crate) mmla: [f64; 3],
    /// Arm BFMMLA per cycle (0 on every x86 row).
    pub(crate) mmla_bf16: [f64; 3],
    /// AVX512-FP16 FMAs per cycle (512-bit).
    pub(crate) fp16: f64,
    /// AMX tile multiplies per cycle (1/16 on Sapphire Rapids and later).
    pub(crate) amx: f64,
    /// Caveats about the row.
    pub(crate) note: &'static str,
}

impl Uarch {
    /// A row with no name, no match criteria and every rate absent (0): rows name what
    /// they have and take the rest from here.
    pub(crate) const NONE: Uarch = Uarch {
        name: "",
        vendor: "",
        family: 0,
        models: &[],
        needs: &[],
        lacks: &[],
        brands: &[],
        fma: [0.0; 3],
        muladd: [0.0; 3],
        alu: [0.0; 3],
        mul32: [0.0; 3],
        mul64: [0.0; 3],
        dot: [0.0; 3],
        dot_bf16: [0.0; 3],
        mmla: [0.0; 3],
        mmla_bf16: [0.0; 3],
        fp16: 0.0,
        amx: 0.0,
        note: "",
    };

    /// Instructions per cycle per core for a pipe class and width (0 = absent/unknown).
    pub fn rate(&self, pipe: Pipe, width: Width) -> f64 {
        let i = width.index();
        match pipe {
            Pipe::Fma => self.fma[i],
            Pipe::MulAdd => self.muladd[i],
            Pipe::Alu => self.alu[i],
            Pipe::Mul32 => self.mul32[i],
            Pipe::Mul64 => self.mul64[i],
            Pipe::Dot => self.dot[i],
            Pipe::DotBf16 => self.dot_bf16[i],
            Pipe::Mmla => self.mmla[i],
            Pipe::MmlaBf16 => self.mmla_bf16[i],
            Pipe::Fp16 => self.fp16,
            Pipe::Amx => self.amx,
            Pipe::F16c if width == Width::V256 => super::uarch_f16c::per_cycle(self.name),
            Pipe::F16c => 0.0,
        }
    }

    /// FMA units at 512 bits (what "one or two FMA units" means on Intel server parts).
    #[cfg(test)]
    pub(crate) fn fma_units_512(&self) -> f64 {
        self.fma[2]
    }

    pub(super) fn model_matches(&self, d: &CpuDescription) -> bool {
        self.vendor_matches(d)
            && (self.vendor == ARM || self.family == d.family)
            && self
                .models
                .iter()
                .any(|(lo, hi)| (*lo..=*hi).contains(&d.model))
    }

    fn vendor_matches(&self, d: &CpuDescription) -> bool {
        if self.vendor == ARM {
            d.arch == "aarch64"
        } else {
            d.arch != "aarch64" && self.vendor == d.vendor
        }
    }

    /// The `lacks` flags the CPU has (non-empty: the row contradicts the CPU).
    pub(super) fn contradictions(&self, d: &CpuDescription) -> Vec<&'static str> {
        self.lacks.iter().copied().filter(|f| d.has(f)).collect()
    }

    pub(super) fn missing(&self, d: &CpuDescription) -> Vec<&'static str> {
        self.needs.iter().copied().filter(|f| !d.has(f)).collect()
    }

    pub(super) fn fits(&self, d: &CpuDescription) -> bool {
        self.contradictions(d).is_empty()
            && self.missing(d).is_empty()
            && brand_matches(self.brands, &d.brand)
    }
}

/// How a description was matched to a row, in words fit for sysinfo and provenance.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct Identification {
    /// The chosen row's name (`unknown` when none fits).
    pub row: String,
    /// `model`, `inferred` or `none`: what chose the row.
    pub by: String,
    /// The evidence that chose the row.
    pub evidence: String,
    /// When the CPUID model named another row whose features the CPU contradicts: why
    /// the model number lost.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_overruled: Option<String>,
}

impl Identification {
    /// One line for a peak's provenance: row, what chose it, and any overruled model.
    pub fn summary(&self) -> String {
        let mut s = format!("row '{}' {}", self.row, self.evidence);
        if let Some(o) = &self.model_overruled {
            s.push_str("; ");
            s.push_str(o);
        }
        s
    }
}
