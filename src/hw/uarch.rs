//! Microarchitecture table: how many vector instructions of each class one core can
//! start per cycle, by vector width. Theoretical CPU peaks are built from these rows
//! (`peak.rs`): cores × measured clock × instructions/cycle × operations/instruction.
//!
//! Sources: Intel 64 and IA-32 Architectures Optimization Reference Manual (port
//! layouts, AMX TMUL 16 cycles per tile op), AMD Software Optimization Guides for
//! families 17h/19h/1Ah, Agner Fog's instruction tables and uops.info throughput
//! measurements. Where a product line differs inside one CPUID model (e.g. Xeon
//! Silver/Bronze and some Gold 5xxx with one 512-bit FMA unit instead of two) the row
//! assumes the common high-end part and says so in `note`; `--peak` overrides.

use super::cpu::CpuInfo;

/// A class of execution resource a kernel's instructions compete for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pipe {
    /// FP FMA / multiply / add pipes (also used by FP mul+add kernels).
    Fma,
    /// Vector integer add/logic.
    Alu,
    /// 32-bit lane integer multiply (`vpmulld`).
    Mul32,
    /// 64-bit lane integer multiply (`vpmullq`).
    Mul64,
    /// Integer and BF16 dot products (`vpdpbusd`, `vpdpwssd`, `vpmaddwd`, `vdpbf16ps`).
    Dot,
    /// AVX512-FP16 FMA (`vfmadd231ph`).
    Fp16,
    /// AMX tile multiply (`tdpbf16ps`, `tdpbssd`).
    Amx,
}

/// Vector width of a kernel's instructions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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
    pub name: &'static str,
    /// CPUID vendor string, or `aarch64`.
    pub vendor: &'static str,
    /// CPUID display family (ignored for aarch64).
    pub family: u32,
    /// Inclusive CPUID display-model ranges.
    pub models: &'static [(u32, u32)],
    /// FP FMA pipes.
    pub fma: [f64; 3],
    /// Vector integer ALUs.
    pub alu: [f64; 3],
    /// `vpmulld` per cycle.
    pub mul32: [f64; 3],
    /// `vpmullq` per cycle.
    pub mul64: [f64; 3],
    /// Dot-product instructions per cycle.
    pub dot: [f64; 3],
    /// AVX512-FP16 FMAs per cycle (512-bit).
    pub fp16: f64,
    /// AMX tile multiplies per cycle (1/16 on Sapphire Rapids and later).
    pub amx: f64,
    /// Caveats about the row.
    pub note: &'static str,
}

impl Uarch {
    /// Instructions per cycle per core for a pipe class and width (0 = absent/unknown).
    pub fn rate(&self, pipe: Pipe, width: Width) -> f64 {
        let i = width.index();
        match pipe {
            Pipe::Fma => self.fma[i],
            Pipe::Alu => self.alu[i],
            Pipe::Mul32 => self.mul32[i],
            Pipe::Mul64 => self.mul64[i],
            Pipe::Dot => self.dot[i],
            Pipe::Fp16 => self.fp16,
            Pipe::Amx => self.amx,
        }
    }
}

const INTEL: &str = "GenuineIntel";
const AMD: &str = "AuthenticAMD";
const TWO_FMA_NOTE: &str = "assumes two 512-bit FMA units per core (Gold 6xxx/Platinum); Bronze, Silver and some Gold 5xxx parts have one";

/// The table, newest first within each vendor.
pub static UARCHES: &[Uarch] = &[
    Uarch {
        name: "Granite Rapids",
        vendor: INTEL,
        family: 6,
        models: &[(173, 174)],
        fma: [2.0, 2.0, 2.0],
        alu: [3.0, 3.0, 2.0],
        mul32: [1.0, 1.0, 1.0],
        mul64: [0.0, 0.0, 2.0 / 3.0],
        dot: [2.0, 2.0, 2.0],
        fp16: 2.0,
        amx: 1.0 / 16.0,
        note: "",
    },
    Uarch {
        name: "Emerald Rapids",
        vendor: INTEL,
        family: 6,
        models: &[(207, 207)],
        fma: [2.0, 2.0, 2.0],
        alu: [3.0, 3.0, 2.0],
        mul32: [1.0, 1.0, 1.0],
        mul64: [0.0, 0.0, 2.0 / 3.0],
        dot: [2.0, 2.0, 2.0],
        fp16: 2.0,
        amx: 1.0 / 16.0,
        note: "",
    },
    Uarch {
        name: "Sapphire Rapids",
        vendor: INTEL,
        family: 6,
        models: &[(143, 143)],
        fma: [2.0, 2.0, 2.0],
        alu: [3.0, 3.0, 2.0],
        mul32: [1.0, 1.0, 1.0],
        mul64: [0.0, 0.0, 2.0 / 3.0],
        dot: [2.0, 2.0, 2.0],
        fp16: 2.0,
        amx: 1.0 / 16.0,
        note: TWO_FMA_NOTE,
    },
    Uarch {
        name: "Ice Lake-SP",
        vendor: INTEL,
        family: 6,
        models: &[(106, 106), (108, 108)],
        fma: [2.0, 2.0, 2.0],
        alu: [3.0, 3.0, 2.0],
        mul32: [1.0, 1.0, 1.0],
        mul64: [0.0, 0.0, 2.0 / 3.0],
        dot: [2.0, 2.0, 2.0],
        fp16: 0.0,
        amx: 0.0,
        note: TWO_FMA_NOTE,
    },
    Uarch {
        name: "Skylake-SP/Cascade Lake/Cooper Lake",
        vendor: INTEL,
        family: 6,
        models: &[(85, 85)],
        fma: [2.0, 2.0, 2.0],
        alu: [3.0, 3.0, 2.0],
        mul32: [1.0, 1.0, 1.0],
        mul64: [0.0, 0.0, 2.0 / 3.0],
        dot: [2.0, 2.0, 2.0],
        fp16: 0.0,
        amx: 0.0,
        note: TWO_FMA_NOTE,
    },
    Uarch {
        name: "Alder Lake/Raptor Lake/Meteor Lake/Arrow Lake/Lunar Lake (P-core)",
        vendor: INTEL,
        family: 6,
        models: &[
            (151, 151),
            (154, 154),
            (170, 170),
            (172, 172),
            (183, 183),
            (186, 186),
            (189, 189),
            (191, 191),
            (197, 198),
        ],
        fma: [2.0, 2.0, 0.0],
        alu: [3.0, 3.0, 0.0],
        mul32: [1.0, 1.0, 0.0],
        mul64: [0.0, 0.0, 0.0],
        dot: [2.0, 2.0, 0.0],
        fp16: 0.0,
        amx: 0.0,
        note: "P-core figures; E-cores have 2 x 128-bit FMA units",
    },
    Uarch {
        name: "Ice Lake/Tiger Lake/Rocket Lake (client)",
        vendor: INTEL,
        family: 6,
        models: &[(125, 126), (140, 141), (167, 167)],
        fma: [2.0, 2.0, 1.0],
        alu: [3.0, 3.0, 2.0],
        mul32: [1.0, 1.0, 0.5],
        mul64: [0.0, 0.0, 1.0 / 3.0],
        dot: [2.0, 2.0, 1.0],
        fp16: 0.0,
        amx: 0.0,
        note: "one 512-bit FMA unit (ports 0+1 fused)",
    },
    Uarch {
        name: "Skylake/Kaby Lake/Coffee Lake/Comet Lake (client)",
        vendor: INTEL,
        family: 6,
        models: &[(78, 78), (94, 94), (142, 142), (158, 158), (165, 166)],
        fma: [2.0, 2.0, 0.0],
        alu: [3.0, 3.0, 0.0],
        mul32: [1.0, 1.0, 0.0],
        mul64: [0.0, 0.0, 0.0],
        dot: [2.0, 2.0, 0.0],
        fp16: 0.0,
        amx: 0.0,
        note: "",
    },
    Uarch {
        name: "Haswell/Broadwell",
        vendor: INTEL,
        family: 6,
        models: &[(60, 60), (63, 63), (69, 71), (61, 61), (79, 79), (86, 86)],
        fma: [2.0, 2.0, 0.0],
        alu: [3.0, 3.0, 0.0],
        mul32: [0.5, 0.5, 0.0],
        mul64: [0.0, 0.0, 0.0],
        dot: [1.0, 1.0, 0.0],
        fp16: 0.0,
        amx: 0.0,
        note: "",
    },
    Uarch {
        name: "Zen 5",
        vendor: AMD,
        family: 0x1a,
        models: &[(0x00, 0xff)],
        fma: [2.0, 2.0, 2.0],
        alu: [4.0, 4.0, 4.0],
        mul32: [2.0, 2.0, 2.0],
        mul64: [0.0, 0.0, 1.0],
        dot: [2.0, 2.0, 2.0],
        fp16: 0.0,
        amx: 0.0,
        note: "full 512-bit datapath (desktop/server); mobile Zen 5 runs 512-bit ops at half rate",
    },
    Uarch {
        name: "Zen 4",
        vendor: AMD,
        family: 0x19,
        models: &[(0x10, 0x1f), (0x60, 0x7f), (0xa0, 0xaf)],
        fma: [2.0, 2.0, 1.0],
        alu: [4.0, 4.0, 2.0],
        mul32: [2.0, 2.0, 1.0],
        mul64: [0.0, 0.0, 0.5],
        dot: [2.0, 2.0, 1.0],
        fp16: 0.0,
        amx: 0.0,
        note: "512-bit instructions issue as two 256-bit halves",
    },
    Uarch {
        name: "Zen 3",
        vendor: AMD,
        family: 0x19,
        models: &[(0x00, 0x0f), (0x20, 0x5f)],
        fma: [2.0, 2.0, 0.0],
        alu: [4.0, 4.0, 0.0],
        mul32: [2.0, 2.0, 0.0],
        mul64: [0.0, 0.0, 0.0],
        dot: [2.0, 2.0, 0.0],
        fp16: 0.0,
        amx: 0.0,
        note: "",
    },
    Uarch {
        name: "Zen 2",
        vendor: AMD,
        family: 0x17,
        models: &[(0x30, 0xff)],
        fma: [2.0, 2.0, 0.0],
        alu: [3.0, 3.0, 0.0],
        mul32: [1.0, 1.0, 0.0],
        mul64: [0.0, 0.0, 0.0],
        dot: [1.0, 1.0, 0.0],
        fp16: 0.0,
        amx: 0.0,
        note: "",
    },
    Uarch {
        name: "Zen/Zen+",
        vendor: AMD,
        family: 0x17,
        models: &[(0x00, 0x2f)],
        fma: [2.0, 1.0, 0.0],
        alu: [3.0, 1.5, 0.0],
        mul32: [1.0, 0.5, 0.0],
        mul64: [0.0, 0.0, 0.0],
        dot: [1.0, 0.5, 0.0],
        fp16: 0.0,
        amx: 0.0,
        note: "256-bit instructions issue as two 128-bit halves",
    },
    Uarch {
        name: "generic aarch64 (2 x 128-bit FMA)",
        vendor: "aarch64",
        family: 0,
        models: &[],
        fma: [2.0, 0.0, 0.0],
        alu: [2.0, 0.0, 0.0],
        mul32: [1.0, 0.0, 0.0],
        mul64: [0.0, 0.0, 0.0],
        dot: [2.0, 0.0, 0.0],
        fp16: 0.0,
        amx: 0.0,
        note: "typical of Neoverse N1/N2 and Cortex-A7x; wider cores (V1/V2, Apple) have more",
    },
];

/// Row used when nothing matches: every rate unknown, so peaks say `unknown`.
pub static UNKNOWN: Uarch = Uarch {
    name: "unknown",
    vendor: "",
    family: 0,
    models: &[],
    fma: [0.0; 3],
    alu: [0.0; 3],
    mul32: [0.0; 3],
    mul64: [0.0; 3],
    dot: [0.0; 3],
    fp16: 0.0,
    amx: 0.0,
    note: "microarchitecture not in the table; give peaks with --peak",
};

/// Finds the row for a CPU: by vendor, family and model on x86, the generic row on aarch64.
pub fn lookup(cpu: &CpuInfo) -> &'static Uarch {
    if cfg!(target_arch = "aarch64") {
        return UARCHES
            .iter()
            .find(|u| u.vendor == "aarch64")
            .unwrap_or(&UNKNOWN);
    }
    UARCHES
        .iter()
        .find(|u| {
            u.vendor == cpu.vendor
                && u.family == cpu.family
                && u.models
                    .iter()
                    .any(|(lo, hi)| (*lo..=*hi).contains(&cpu.model))
        })
        .unwrap_or(&UNKNOWN)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cpu(vendor: &str, family: u32, model: u32) -> CpuInfo {
        CpuInfo {
            vendor: vendor.into(),
            family,
            model,
            ..CpuInfo::default()
        }
    }

    #[test]
    fn rows_are_found() {
        if cfg!(target_arch = "x86_64") {
            assert_eq!(lookup(&cpu(INTEL, 6, 207)).name, "Emerald Rapids");
            assert_eq!(lookup(&cpu(INTEL, 6, 85)).fma, [2.0, 2.0, 2.0]);
            assert_eq!(lookup(&cpu(AMD, 0x19, 0x61)).name, "Zen 4");
            assert_eq!(lookup(&cpu(AMD, 0x19, 0x21)).name, "Zen 3");
            assert_eq!(lookup(&cpu(AMD, 0x17, 0x31)).name, "Zen 2");
            assert_eq!(lookup(&cpu(AMD, 0x1a, 0x44)).name, "Zen 5");
            assert_eq!(lookup(&cpu(INTEL, 6, 1)).name, "unknown");
        }
    }

    #[test]
    fn rates() {
        let spr = lookup(&cpu(INTEL, 6, 143));
        assert_eq!(spr.rate(Pipe::Fma, Width::V512), 2.0);
        assert_eq!(spr.rate(Pipe::Amx, Width::Tile), 1.0 / 16.0);
        assert_eq!(spr.rate(Pipe::Alu, Width::V256), 3.0);
        assert_eq!(UNKNOWN.rate(Pipe::Fma, Width::Scalar), 0.0);
    }
}
