//! Table of known GPUs with their datasheet figures, and the theoretical GPU peaks
//! built from them (units × clock × ops/clock, each with its source).
//!
//! The GPU benchmark runs WGSL compute shaders through wgpu/Vulkan, so every rate here
//! is for the *vector* (non-tensor, non-matrix) path a shader compiler emits: FP32 FMA,
//! FP16 FMA (packed half2 where the hardware has it), FP64 FMA, 32- and 64-bit integer
//! multiply-add (`a*b+c`, 2 operations) and the packed int8 dot product
//! `dot4I8Packed` + accumulate (8 operations: 4 multiplies, 4 adds; DP4A on NVIDIA).
//!
//! A peak is `FP32 lanes × clock × operations per instruction × rate`, where the rate is
//! instructions per FP32 lane per clock relative to one FP32 FMA (see [`Rates`]). The
//! clock is the datasheet boost clock unless a measured or reported one is passed in.
//!
//! Sources: PCI ids from the pci.ids database (pciutils); lanes, clocks, bandwidths and
//! TFLOPS from the vendors' whitepapers and datasheets named in each row; per-precision
//! rates from the CUDA C++ Programming Guide "Arithmetic Instructions" throughput table
//! (results per clock per SM by compute capability) and the whitepapers' non-tensor
//! figures. A rate that no vendor document gives is 0 (no peak) and `rate_source` says
//! why; a figure that is uncertain says so in `source`.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::time::Duration;

/// PCI vendor id of NVIDIA.
pub(crate) const VENDOR_NVIDIA: u32 = 0x10de;
/// PCI vendor id of AMD.
pub(crate) const VENDOR_AMD: u32 = 0x1002;
/// PCI vendor id of Intel.
pub(crate) const VENDOR_INTEL: u32 = 0x8086;

/// Precisions the GPU compute kernels measure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GpuPrecision {
    /// 32-bit float FMA.
    Fp32,
    /// 16-bit float FMA (packed half2 where available).
    Fp16,
    /// 64-bit float FMA.
    Fp64,
    /// 32-bit integer multiply-add.
    Int32,
    /// Packed 4 × int8 dot product with 32-bit accumulate (`dot4I8Packed`, DP4A).
    Int8,
    /// 64-bit integer multiply-add.
    Int64,
}

impl GpuPrecision {
    /// Every precision, in the order reports list them.
    pub(crate) const ALL: [GpuPrecision; 6] = [
        GpuPrecision::Fp32,
        GpuPrecision::Fp16,
        GpuPrecision::Fp64,
        GpuPrecision::Int32,
        GpuPrecision::Int8,
        GpuPrecision::Int64,
    ];

    /// "fp32", "fp16", "fp64", "int32", "int8", "int64"
    pub(crate) fn name(self) -> &'static str {
        match self {
            GpuPrecision::Fp32 => "fp32",
            GpuPrecision::Fp16 => "fp16",
            GpuPrecision::Fp64 => "fp64",
            GpuPrecision::Int32 => "int32",
            GpuPrecision::Int8 => "int8",
            GpuPrecision::Int64 => "int64",
        }
    }

    /// Parses the name (also the aliases `sp`, `hp`, `dp`), case-insensitive.
    pub(crate) fn parse(s: &str) -> Option<GpuPrecision> {
        let s = s.trim().to_ascii_lowercase();
        match s.as_str() {
            "sp" => return Some(GpuPrecision::Fp32),
            "hp" => return Some(GpuPrecision::Fp16),
            "dp" => return Some(GpuPrecision::Fp64),
            _ => {}
        }
        GpuPrecision::ALL.into_iter().find(|p| p.name() == s)
    }

    /// Operations one instruction of this precision counts for: 2 for a multiply-add
    /// (FMA, IMAD), 8 for a packed int8 dot product with accumulate (4 mul + 4 add).
    pub(crate) fn ops_per_instruction(self) -> f64 {
        match self {
            GpuPrecision::Int8 => 8.0,
            _ => 2.0,
        }
    }

    /// Short name of the instruction, for provenance strings.
    fn instruction(self) -> &'static str {
        match self {
            GpuPrecision::Int8 => "dp4a",
            GpuPrecision::Int32 | GpuPrecision::Int64 => "mad",
            _ => "FMA",
        }
    }
}

impl fmt::Display for GpuPrecision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Instructions per clock per FP32 lane for each precision, relative to one FP32 FMA per
/// lane per clock (so `fp32` is always 1.0).
///
/// - `fp16`: scalar FP16 FMAs (a packed half2 FMA counts 2) per lane per clock;
///   2 operations each. H100: 256 FP16 results/SM/clk over 128 FP32 lanes = 2.0.
/// - `fp64`: FP64 FMAs per lane per clock; H100: 64 / 128 = 0.5.
/// - `int32`: 32-bit integer multiply-adds (IMAD) per lane per clock, 2 operations each;
///   H100: 64 IMAD/SM/clk over 128 FFMA lanes = 0.5.
/// - `int8`: packed int8 dot-product instructions (DP4A, `v_dot4_i32_i8`) per lane per
///   clock, 8 operations each, so an int8 rate of 1.0 is 4× the FP32 FLOP rate.
/// - `int64`: native 64-bit integer multiply-adds per lane per clock, 2 operations each.
///
/// 0.0 means not supported or not published for the vector path: no peak is derived.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Rates {
    /// FP32 FMA (always 1.0: the reference).
    pub(crate) fp32: f64,
    /// FP16 FMA.
    pub(crate) fp16: f64,
    /// FP64 FMA.
    pub(crate) fp64: f64,
    /// 32-bit integer multiply-add.
    pub(crate) int32: f64,
    /// Packed int8 dot product + accumulate.
    pub(crate) int8: f64,
    /// 64-bit integer multiply-add.
    pub(crate) int64: f64,
}

impl Rates {
    /// The rate for `p`.
    pub(crate) fn get(&self, p: GpuPrecision) -> f64 {
        match p {
            GpuPrecision::Fp32 => self.fp32,
            GpuPrecision::Fp16 => self.fp16,
            GpuPrecision::Fp64 => self.fp64,
            GpuPrecision::Int32 => self.int32,
            GpuPrecision::Int8 => self.int8,
            GpuPrecision::Int64 => self.int64,
        }
    }
}

/// One GPU model with its datasheet figures.
#[derive(Debug, Clone, Copy)]
pub(crate) struct KnownGpu {
    /// Marketing name, e.g. "NVIDIA H100 SXM5 80GB".
    pub(crate) name: &'static str,
    /// PCI vendor id (0x10de NVIDIA, 0x1002 AMD, 0x8086 Intel).
    pub(crate) vendor_id: u32,
    /// PCI device ids of this model (as Vulkan reports deviceID). May be empty when the
    /// id is shared with other models (then only the name identifies it).
    pub(crate) device_ids: &'static [u32],
    /// Lower-case words that identify it in the adapter name when the id is not listed;
    /// all must occur, each as whole words (e.g. `&["h100", "80gb", "hbm3"]`). Empty:
    /// never matched by name.
    pub(crate) name_match: &'static [&'static str],
    /// Streaming multiprocessors / compute units / Xe cores.
    #[cfg_attr(not(test), allow(dead_code))] // read by the tests
    pub(crate) units: u32,
    /// FP32 lanes (CUDA cores / stream processors) in total.
    pub(crate) fp32_lanes: u32,
    /// Boost clock in MHz used for the datasheet figures.
    pub(crate) boost_mhz: u32,
    /// Per-precision rates relative to an FP32 FMA lane (see [`Rates`]).
    pub(crate) rate: Rates,
    /// Device memory bandwidth in bytes/s (datasheet).
    pub(crate) mem_bytes_per_s: f64,
    /// Where the lanes, clock and bandwidth come from (whitepaper / datasheet), with the
    /// datasheet FP32 figure they reproduce and any uncertainty.
    pub(crate) source: &'static str,
    /// Where the per-precision rates come from (CUDA Programming Guide throughput table
    /// row, whitepaper non-tensor figure, ISA), and why a rate is 0.
    pub(crate) rate_source: &'static str,
}

impl KnownGpu {
    /// Compute peak in operations per second for `p` at `clock_mhz` (the boost clock
    /// unless a measured/reported clock is given), and a provenance string that lets a
    /// reader redo the arithmetic. `None` when the rate is 0 or the clock is not a
    /// positive number (then the string says why).
    pub(crate) fn peak(&self, p: GpuPrecision, clock_mhz: Option<f64>) -> (Option<f64>, String) {
        let rate = self.rate.get(p);
        if rate <= 0.0 || !rate.is_finite() {
            return (
                None,
                format!(
                    "unknown: no {} rate for {} in the GPU table; {}",
                    p, self.name, self.rate_source
                ),
            );
        }
        let (mhz, what) = match clock_mhz {
            Some(m) => (m, "given clock"),
            None => (f64::from(self.boost_mhz), "datasheet boost"),
        };
        if !mhz.is_finite() || mhz <= 0.0 {
            return (
                None,
                format!("unknown: clock {mhz} MHz for {} is not usable", self.name),
            );
        }
        let ops = p.ops_per_instruction();
        let value = f64::from(self.fp32_lanes) * mhz * 1e6 * ops * rate;
        let source = format!(
            "{}: {} FP32 lanes x {:.3} GHz ({}) x {} op/{} x {} ({} rate); {}; rates: {}",
            self.name,
            self.fp32_lanes,
            mhz / 1e3,
            what,
            trim_float(ops),
            p.instruction(),
            trim_float(rate),
            p,
            self.source,
            self.rate_source
        );
        (Some(value), source)
    }

    /// Memory bandwidth peak in bytes/s and its provenance.
    pub(crate) fn mem_peak(&self) -> (f64, String) {
        (
            self.mem_bytes_per_s,
            format!(
                "{}: {:.3} TB/s datasheet memory bandwidth; {}",
                self.name,
                self.mem_bytes_per_s / 1e12,
                self.source
            ),
        )
    }

    /// Does the (lower-cased, tokenised) adapter name identify this model? Returns the
    /// number of words matched (the specificity), or `None`.
    fn name_score(&self, words: &[&str]) -> Option<usize> {
        if self.name_match.is_empty() {
            return None;
        }
        let mut pattern_words: Vec<&str> = Vec::new();
        for pat in self.name_match {
            let pw = tokens(pat);
            if pw.is_empty() || !contains_seq(words, &pw) {
                return None;
            }
            pattern_words.extend(pw);
        }
        // A variant word in the adapter name ("Ti", "SUPER", "Laptop", "NVL", ...) that
        // the row does not name means a different model with different figures.
        if words
            .iter()
            .any(|w| VARIANT_WORDS.contains(w) && !pattern_words.contains(w))
        {
            return None;
        }
        Some(pattern_words.len())
    }
}

/// Words that name a different SKU of the same chip; a row matches an adapter name that
/// contains one only if its own `name_match` contains it too.
const VARIANT_WORDS: &[&str] = &[
    "ti", "super", "laptop", "mobile", "max", "q", "d", "nvl", "pcie", "xt", "xtx", "gre",
];

fn tokens(s: &str) -> Vec<&str> {
    s.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect()
}

fn contains_seq(words: &[&str], seq: &[&str]) -> bool {
    !seq.is_empty() && words.windows(seq.len()).any(|w| w == seq)
}

fn trim_float(x: f64) -> String {
    if x.fract() == 0.0 {
        format!("{}", x as i64)
    } else {
        let s = format!("{x:.6}");
        s.trim_end_matches('0').to_string()
    }
}

/// Finds the model: by (vendor_id, device_id) first, then by `name_match` on the
/// lower-cased adapter name (the most specific row wins; rows of another vendor are
/// skipped when `vendor_id` is non-zero). `None` when unknown.
pub(crate) fn lookup(
    vendor_id: u32,
    device_id: u32,
    adapter_name: &str,
) -> Option<&'static KnownGpu> {
    if let Some(g) = KNOWN_GPUS
        .iter()
        .find(|g| g.vendor_id == vendor_id && g.device_ids.contains(&device_id))
    {
        return Some(g);
    }
    let lower = adapter_name.to_ascii_lowercase();
    let words = tokens(&lower);
    let mut best: Option<(usize, &'static KnownGpu)> = None;
    for g in KNOWN_GPUS {
        if vendor_id != 0 && g.vendor_id != vendor_id {
            continue;
        }
        if let Some(score) = g.name_score(&words) {
            if best.is_none_or(|(s, _)| score > s) {
                best = Some((score, g));
            }
        }
    }
    best.map(|(_, g)| g)
}

// ---------------------------------------------------------------------------------------
// Per-architecture rates and their provenance.

macro_rules! nv_no_dp4a_int64 {
    () => {
        "int8: NVIDIA publishes no DP4A throughput for compute capability 7.0 and later \
         (no dp4a row in the CUDA Programming Guide throughput table; the whitepapers' \
         INT8 figures are Tensor Core), so no int8 peak; int64: a 64-bit integer \
         multiply-add is emulated with several 32-bit IMADs ('multiple instructions' in \
         the guide), so no int64 peak"
    };
}

const VOLTA: Rates = Rates {
    fp32: 1.0,
    fp16: 2.0,
    fp64: 0.5,
    int32: 1.0,
    int8: 0.0,
    int64: 0.0,
};
const VOLTA_SRC: &str = concat!(
    "CUDA C++ Programming Guide throughput table, cc 7.0 (results/clock/SM): 32-bit fp \
     fma 64, 64-bit fp fma 32 (0.5), 16-bit half2 fma 128 (2.0), 32-bit integer \
     multiply-add 64 (1.0; V100 whitepaper INT32 15.7 TOPS); ",
    nv_no_dp4a_int64!()
);

const TURING: Rates = Rates {
    fp32: 1.0,
    fp16: 2.0,
    fp64: 1.0 / 32.0,
    int32: 1.0,
    int8: 0.0,
    int64: 0.0,
};
const TURING_SRC: &str = concat!(
    "CUDA C++ Programming Guide throughput table, cc 7.5 (results/clock/SM): 32-bit fp \
     fma 64, 64-bit fp fma 2 (1/32), 16-bit half2 fma 128 (2.0; Turing whitepaper \
     non-tensor FP16 = 2x FP32), 32-bit integer multiply-add 64 (1.0); ",
    nv_no_dp4a_int64!()
);

const GA100: Rates = Rates {
    fp32: 1.0,
    fp16: 4.0,
    fp64: 0.5,
    int32: 1.0,
    int8: 0.0,
    int64: 0.0,
};
const GA100_SRC: &str = concat!(
    "CUDA C++ Programming Guide throughput table, cc 8.0 (results/clock/SM): 32-bit fp \
     fma 64, 64-bit fp fma 32 (0.5), 16-bit half2 fma 256 (4.0), 32-bit integer \
     multiply-add 64 (1.0); NVIDIA A100 whitepaper non-tensor peaks: FP64 9.7, FP32 \
     19.5, FP16 78 TFLOPS, INT32 19.5 TOPS; ",
    nv_no_dp4a_int64!()
);

const GA10X: Rates = Rates {
    fp32: 1.0,
    fp16: 1.0,
    fp64: 1.0 / 64.0,
    int32: 0.5,
    int8: 0.0,
    int64: 0.0,
};
const GA10X_SRC: &str = concat!(
    "NVIDIA Ampere GA102 whitepaper (cc 8.6) non-tensor peaks: FP16 = FP32 (1.0; RTX \
     3090 35.6 TFLOPS each), FP64 = FP32/64, INT32 = FP32/2 (RTX 3090 17.8 TOPS: 64 \
     IMAD/SM/clk over 128 FP32 lanes); CUDA C++ Programming Guide throughput table cc \
     8.6: 32-bit fp fma 128, 64-bit fp fma 2, 32-bit integer multiply-add 64; ",
    nv_no_dp4a_int64!()
);

const ADA: Rates = Rates {
    fp32: 1.0,
    fp16: 1.0,
    fp64: 1.0 / 64.0,
    int32: 0.5,
    int8: 0.0,
    int64: 0.0,
};
const ADA_SRC: &str = concat!(
    "NVIDIA Ada Lovelace (AD102) whitepaper (cc 8.9) non-tensor peaks: FP16 = FP32 (1.0; \
     RTX 4090 82.6 TFLOPS each), FP64 = FP32/64, INT32 = FP32/2 (RTX 4090 41.3 TOPS); \
     CUDA C++ Programming Guide throughput table cc 8.9: 32-bit fp fma 128, 64-bit fp fma \
     2, 32-bit integer multiply-add 64; ",
    nv_no_dp4a_int64!()
);

const HOPPER: Rates = Rates {
    fp32: 1.0,
    fp16: 2.0,
    fp64: 0.5,
    int32: 0.5,
    int8: 0.0,
    int64: 0.0,
};
const HOPPER_SRC: &str = concat!(
    "CUDA C++ Programming Guide throughput table, cc 9.0 (results/clock/SM): 32-bit fp \
     fma 128, 64-bit fp fma 64 (0.5), 16-bit half2 fma 256 (2.0), 32-bit integer \
     multiply-add 64 (0.5); NVIDIA H100 whitepaper non-tensor peaks (SXM5): FP64 33.5, \
     FP32 66.9, FP16 133.8 TFLOPS, INT32 33.5 TOPS; ",
    nv_no_dp4a_int64!()
);

macro_rules! amd_no_int {
    () => {
        "int32/int8/int64: AMD publishes no vector (VALU) integer multiply-add or \
         v_dot4 throughput for this part (datasheet INT8 figures are matrix-core), so no \
         integer peaks"
    };
}

const CDNA: Rates = Rates {
    fp32: 1.0,
    fp16: 2.0,
    fp64: 1.0,
    int32: 0.0,
    int8: 0.0,
    int64: 0.0,
};
const CDNA2_SRC: &str = concat!(
    "AMD Instinct MI200 datasheets: FP64 vector = FP32 vector (1.0); the datasheet's \
     doubled 'packed FP32' figure needs v_pk_fma_f32, which a scalar shader FMA does not \
     use, so fp32 counts one FMA per lane; fp16 2.0 is the packed-math rate \
     (v_pk_fma_f16, two FP16 FMAs per lane per clock) - UNCERTAIN, the datasheets give \
     only matrix FP16; ",
    amd_no_int!()
);
const CDNA3_SRC: &str = concat!(
    "AMD Instinct MI300X datasheet: FP64 vector 81.7 TFLOPS = 1 FMA per lane (1.0); its \
     'FP32 vector' 163.4 TFLOPS counts packed FP32 (v_pk_fma_f32), which a scalar shader \
     FMA does not use, so fp32 counts one FMA per lane; fp16 2.0 is the packed-math rate \
     (v_pk_fma_f16) - UNCERTAIN, the datasheet gives only matrix FP16; ",
    amd_no_int!()
);

const RDNA3: Rates = Rates {
    fp32: 1.0,
    fp16: 2.0,
    fp64: 1.0 / 32.0,
    int32: 0.0,
    int8: 0.0,
    int64: 0.0,
};
const RDNA3_SRC: &str = concat!(
    "AMD Radeon RX 7900 XTX specifications: FP16 122.8 TFLOPS = 2x FP32 (2.0); fp64 1/32 \
     of the dual-issue FP32 rate (1.9 TFLOPS) is from the TechPowerUp GPU database, not \
     an AMD document - UNCERTAIN; ",
    amd_no_int!()
);

const XE_HPG: Rates = Rates {
    fp32: 1.0,
    fp16: 2.0,
    fp64: 0.0,
    int32: 0.0,
    int8: 0.0,
    int64: 0.0,
};
const XE_HPG_SRC: &str = "Intel Xe-HPG (Alchemist): each 256-bit vector engine does 8 FP32 or \
     16 FP16 lanes, so fp16 2.0 - UNCERTAIN (TechPowerUp GPU database lists 2:1; not on \
     Intel ARK); fp64: no native FP64 hardware (emulated), so no peak; int32/int8/int64: \
     Intel publishes no vector integer multiply-add or DP4A rate, so no peaks";

const XE_HPC: Rates = Rates {
    fp32: 1.0,
    fp16: 0.0,
    fp64: 1.0,
    int32: 0.0,
    int8: 0.0,
    int64: 0.0,
};
const XE_HPC_SRC: &str = "Intel Data Center GPU Max 1550 product brief: FP64 vector 52 TFLOPS = \
     FP32 vector 52 TFLOPS (1.0); fp16: no vector (non-XMX) FP16 figure found, so no \
     peak; int32/int8/int64: Intel publishes no vector integer multiply-add or DP4A \
     rate, so no peaks";

// ---------------------------------------------------------------------------------------
// The table. Clock × lanes × 2 reproduces the datasheet FP32 TFLOPS quoted in `source`.

/// Every known GPU model.
pub(crate) const KNOWN_GPUS: &[KnownGpu] = &[
    // ----- NVIDIA Volta (cc 7.0)
    KnownGpu {
        name: "NVIDIA Tesla V100 SXM2",
        vendor_id: VENDOR_NVIDIA,
        device_ids: &[0x1db1, 0x1db5, 0x1df5],
        name_match: &["v100", "sxm2"],
        units: 80,
        fp32_lanes: 5120,
        boost_mhz: 1530,
        rate: VOLTA,
        mem_bytes_per_s: 900e9,
        source: "NVIDIA Tesla V100 datasheet and Volta (GV100) whitepaper: 80 SMs, 5120 \
                 FP32 cores, 1530 MHz boost, FP32 15.7 / FP64 7.8 TFLOPS, 900 GB/s HBM2 \
                 (16 and 32 GB)",
        rate_source: VOLTA_SRC,
    },
    KnownGpu {
        name: "NVIDIA Tesla V100 PCIe",
        vendor_id: VENDOR_NVIDIA,
        device_ids: &[0x1db4, 0x1db6],
        name_match: &["v100", "pcie"],
        units: 80,
        fp32_lanes: 5120,
        boost_mhz: 1380,
        rate: VOLTA,
        mem_bytes_per_s: 900e9,
        source: "NVIDIA Tesla V100 datasheet: 80 SMs, 5120 FP32 cores, 1380 MHz boost, \
                 FP32 14 / FP64 7 TFLOPS, 900 GB/s HBM2 (16 and 32 GB)",
        rate_source: VOLTA_SRC,
    },
    // ----- NVIDIA Turing (cc 7.5)
    KnownGpu {
        name: "NVIDIA Tesla T4",
        vendor_id: VENDOR_NVIDIA,
        device_ids: &[0x1eb8],
        name_match: &["t4"],
        units: 40,
        fp32_lanes: 2560,
        boost_mhz: 1590,
        rate: TURING,
        mem_bytes_per_s: 320e9,
        source: "NVIDIA T4 datasheet and Turing whitepaper: 40 SMs, 2560 FP32 cores, 1590 \
                 MHz boost, FP32 8.1 TFLOPS, 320 GB/s GDDR6",
        rate_source: TURING_SRC,
    },
    // ----- NVIDIA Ampere GA100 (cc 8.0)
    KnownGpu {
        name: "NVIDIA A100 SXM4 40GB",
        vendor_id: VENDOR_NVIDIA,
        device_ids: &[0x20b0],
        name_match: &["a100", "sxm4", "40gb"],
        units: 108,
        fp32_lanes: 6912,
        boost_mhz: 1410,
        rate: GA100,
        mem_bytes_per_s: 1555e9,
        source: "NVIDIA A100 datasheet and whitepaper: 108 SMs, 6912 FP32 cores, 1410 MHz \
                 boost, FP32 19.5 / FP64 9.7 TFLOPS, 1555 GB/s HBM2",
        rate_source: GA100_SRC,
    },
    KnownGpu {
        name: "NVIDIA A100 SXM4 80GB",
        vendor_id: VENDOR_NVIDIA,
        device_ids: &[0x20b2],
        name_match: &["a100", "sxm4", "80gb"],
        units: 108,
        fp32_lanes: 6912,
        boost_mhz: 1410,
        rate: GA100,
        mem_bytes_per_s: 2039e9,
        source: "NVIDIA A100 80GB datasheet: 108 SMs, 6912 FP32 cores, 1410 MHz boost, \
                 FP32 19.5 / FP64 9.7 TFLOPS, 2039 GB/s HBM2e",
        rate_source: GA100_SRC,
    },
    KnownGpu {
        name: "NVIDIA A100 PCIe 40GB",
        vendor_id: VENDOR_NVIDIA,
        device_ids: &[0x20b1, 0x20f1],
        name_match: &["a100", "pcie", "40gb"],
        units: 108,
        fp32_lanes: 6912,
        boost_mhz: 1410,
        rate: GA100,
        mem_bytes_per_s: 1555e9,
        source: "NVIDIA A100 PCIe datasheet: 108 SMs, 6912 FP32 cores, 1410 MHz boost, \
                 FP32 19.5 / FP64 9.7 TFLOPS, 1555 GB/s HBM2",
        rate_source: GA100_SRC,
    },
    KnownGpu {
        name: "NVIDIA A100 PCIe 80GB",
        vendor_id: VENDOR_NVIDIA,
        device_ids: &[0x20b5],
        name_match: &["a100", "pcie", "80gb"],
        units: 108,
        fp32_lanes: 6912,
        boost_mhz: 1410,
        rate: GA100,
        mem_bytes_per_s: 1935e9,
        source: "NVIDIA A100 80GB datasheet (PCIe): 108 SMs, 6912 FP32 cores, 1410 MHz \
                 boost, FP32 19.5 / FP64 9.7 TFLOPS, 1935 GB/s HBM2e",
        rate_source: GA100_SRC,
    },
    // ----- NVIDIA Hopper (cc 9.0)
    KnownGpu {
        name: "NVIDIA H100 SXM5 80GB",
        vendor_id: VENDOR_NVIDIA,
        device_ids: &[0x2330],
        name_match: &["h100", "80gb", "hbm3"],
        units: 132,
        fp32_lanes: 16896,
        boost_mhz: 1980,
        rate: HOPPER,
        mem_bytes_per_s: 3.35e12,
        source: "NVIDIA H100 whitepaper and datasheet (SXM5): 132 SMs, 16896 FP32 cores, \
                 1980 MHz boost, FP32 66.9 / FP64 33.5 TFLOPS, 3.35 TB/s HBM3",
        rate_source: HOPPER_SRC,
    },
    KnownGpu {
        name: "NVIDIA H100 PCIe",
        vendor_id: VENDOR_NVIDIA,
        device_ids: &[0x2331],
        name_match: &["h100", "pcie"],
        units: 114,
        fp32_lanes: 14592,
        boost_mhz: 1755,
        rate: HOPPER,
        mem_bytes_per_s: 2.0e12,
        source: "NVIDIA H100 whitepaper and datasheet (PCIe): 114 SMs, 14592 FP32 cores, \
                 1755 MHz boost, FP32 51.2 / FP64 25.6 TFLOPS, 2.0 TB/s HBM2e",
        rate_source: HOPPER_SRC,
    },
    KnownGpu {
        name: "NVIDIA H100 NVL",
        vendor_id: VENDOR_NVIDIA,
        device_ids: &[0x2321],
        name_match: &["h100", "nvl"],
        units: 132,
        fp32_lanes: 16896,
        boost_mhz: 1785,
        rate: HOPPER,
        mem_bytes_per_s: 3.9e12,
        source: "NVIDIA H100 NVL datasheet: FP32 60 / FP64 30 TFLOPS, 94 GB HBM3 at 3.9 \
                 TB/s; 132 SMs / 16896 cores and the 1785 MHz boost are from third-party \
                 databases (consistent with 60 TFLOPS) - UNCERTAIN; pci.ids names 0x2321 \
                 'H100L 94GB'",
        rate_source: HOPPER_SRC,
    },
    KnownGpu {
        name: "NVIDIA H200 SXM 141GB",
        vendor_id: VENDOR_NVIDIA,
        device_ids: &[0x2335],
        name_match: &["h200"],
        units: 132,
        fp32_lanes: 16896,
        boost_mhz: 1980,
        rate: HOPPER,
        mem_bytes_per_s: 4.8e12,
        source: "NVIDIA H200 datasheet (SXM): same GH100 compute as H100 SXM5 (132 SMs, \
                 16896 FP32 cores, 1980 MHz, FP32 67 / FP64 34 TFLOPS), 141 GB HBM3e at \
                 4.8 TB/s",
        rate_source: HOPPER_SRC,
    },
    KnownGpu {
        name: "NVIDIA H200 NVL",
        vendor_id: VENDOR_NVIDIA,
        device_ids: &[0x233b],
        name_match: &["h200", "nvl"],
        units: 132,
        fp32_lanes: 16896,
        boost_mhz: 1785,
        rate: HOPPER,
        mem_bytes_per_s: 4.8e12,
        source: "NVIDIA H200 datasheet (NVL): FP32 60 / FP64 30 TFLOPS, 141 GB HBM3e at \
                 4.8 TB/s; the 1785 MHz boost is inferred from 60 TFLOPS over 16896 cores \
                 (as H100 NVL) - UNCERTAIN",
        rate_source: HOPPER_SRC,
    },
    // ----- NVIDIA Ampere GA10x (cc 8.6)
    KnownGpu {
        name: "NVIDIA A10",
        vendor_id: VENDOR_NVIDIA,
        device_ids: &[0x2236],
        name_match: &["a10"],
        units: 72,
        fp32_lanes: 9216,
        boost_mhz: 1695,
        rate: GA10X,
        mem_bytes_per_s: 600e9,
        source: "NVIDIA A10 datasheet: 72 SMs, 9216 FP32 cores, 1695 MHz boost, FP32 31.2 \
                 TFLOPS, 600 GB/s GDDR6",
        rate_source: GA10X_SRC,
    },
    KnownGpu {
        name: "NVIDIA GeForce RTX 3060",
        vendor_id: VENDOR_NVIDIA,
        device_ids: &[0x2503, 0x2504, 0x2509],
        name_match: &["rtx 3060"],
        units: 28,
        fp32_lanes: 3584,
        boost_mhz: 1777,
        rate: GA10X,
        mem_bytes_per_s: 360e9,
        source: "NVIDIA RTX 3060 specifications (12 GB, GA106): 28 SMs, 3584 CUDA cores, \
                 1777 MHz boost, FP32 12.7 TFLOPS, 192-bit 15 Gbps GDDR6 = 360 GB/s (the \
                 8 GB model has 240 GB/s)",
        rate_source: GA10X_SRC,
    },
    KnownGpu {
        name: "NVIDIA GeForce RTX 3060 Ti",
        vendor_id: VENDOR_NVIDIA,
        device_ids: &[0x2486, 0x2489],
        name_match: &["rtx 3060 ti"],
        units: 38,
        fp32_lanes: 4864,
        boost_mhz: 1665,
        rate: GA10X,
        mem_bytes_per_s: 448e9,
        source: "NVIDIA RTX 3060 Ti specifications (GA104): 38 SMs, 4864 CUDA cores, 1665 \
                 MHz boost, FP32 16.2 TFLOPS, 256-bit 14 Gbps GDDR6 = 448 GB/s (the GDDR6X \
                 model has 608 GB/s)",
        rate_source: GA10X_SRC,
    },
    KnownGpu {
        name: "NVIDIA GeForce RTX 3070",
        vendor_id: VENDOR_NVIDIA,
        device_ids: &[0x2484, 0x2488],
        name_match: &["rtx 3070"],
        units: 46,
        fp32_lanes: 5888,
        boost_mhz: 1725,
        rate: GA10X,
        mem_bytes_per_s: 448e9,
        source: "NVIDIA GA102 whitepaper / RTX 3070 specifications (GA104): 46 SMs, 5888 \
                 CUDA cores, 1725 MHz boost, FP32 20.3 TFLOPS, 256-bit 14 Gbps GDDR6 = 448 \
                 GB/s",
        rate_source: GA10X_SRC,
    },
    KnownGpu {
        name: "NVIDIA GeForce RTX 3070 Ti",
        vendor_id: VENDOR_NVIDIA,
        device_ids: &[0x2482],
        name_match: &["rtx 3070 ti"],
        units: 48,
        fp32_lanes: 6144,
        boost_mhz: 1770,
        rate: GA10X,
        mem_bytes_per_s: 608e9,
        source: "NVIDIA RTX 3070 Ti specifications (GA104): 48 SMs, 6144 CUDA cores, 1770 \
                 MHz boost, FP32 21.7 TFLOPS, 256-bit 19 Gbps GDDR6X = 608 GB/s",
        rate_source: GA10X_SRC,
    },
    KnownGpu {
        name: "NVIDIA GeForce RTX 3080",
        vendor_id: VENDOR_NVIDIA,
        device_ids: &[0x2206, 0x2216],
        name_match: &["rtx 3080"],
        units: 68,
        fp32_lanes: 8704,
        boost_mhz: 1710,
        rate: GA10X,
        mem_bytes_per_s: 760e9,
        source: "NVIDIA GA102 whitepaper (RTX 3080 10 GB): 68 SMs, 8704 CUDA cores, 1710 \
                 MHz boost, FP32 29.8 TFLOPS, 320-bit 19 Gbps GDDR6X = 760 GB/s",
        rate_source: GA10X_SRC,
    },
    KnownGpu {
        name: "NVIDIA GeForce RTX 3080 12GB",
        vendor_id: VENDOR_NVIDIA,
        device_ids: &[0x220a],
        name_match: &["rtx 3080", "12gb"],
        units: 70,
        fp32_lanes: 8960,
        boost_mhz: 1710,
        rate: GA10X,
        mem_bytes_per_s: 912e9,
        source: "NVIDIA RTX 3080 12 GB specifications (GA102): 70 SMs, 8960 CUDA cores, \
                 1710 MHz boost, FP32 30.6 TFLOPS, 384-bit 19 Gbps GDDR6X = 912 GB/s",
        rate_source: GA10X_SRC,
    },
    KnownGpu {
        name: "NVIDIA GeForce RTX 3080 Ti",
        vendor_id: VENDOR_NVIDIA,
        device_ids: &[0x2208],
        name_match: &["rtx 3080 ti"],
        units: 80,
        fp32_lanes: 10240,
        boost_mhz: 1665,
        rate: GA10X,
        mem_bytes_per_s: 912e9,
        source: "NVIDIA RTX 3080 Ti specifications (GA102): 80 SMs, 10240 CUDA cores, 1665 \
                 MHz boost, FP32 34.1 TFLOPS, 384-bit 19 Gbps GDDR6X = 912 GB/s",
        rate_source: GA10X_SRC,
    },
    KnownGpu {
        name: "NVIDIA GeForce RTX 3090",
        vendor_id: VENDOR_NVIDIA,
        device_ids: &[0x2204],
        name_match: &["rtx 3090"],
        units: 82,
        fp32_lanes: 10496,
        boost_mhz: 1695,
        rate: GA10X,
        mem_bytes_per_s: 936e9,
        source: "NVIDIA GA102 whitepaper (RTX 3090): 82 SMs, 10496 CUDA cores, 1695 MHz \
                 boost, FP32 35.6 TFLOPS, 384-bit 19.5 Gbps GDDR6X = 936 GB/s",
        rate_source: GA10X_SRC,
    },
    KnownGpu {
        name: "NVIDIA GeForce RTX 3090 Ti",
        vendor_id: VENDOR_NVIDIA,
        device_ids: &[0x2203],
        name_match: &["rtx 3090 ti"],
        units: 84,
        fp32_lanes: 10752,
        boost_mhz: 1860,
        rate: GA10X,
        mem_bytes_per_s: 1008e9,
        source: "NVIDIA RTX 3090 Ti specifications (GA102): 84 SMs, 10752 CUDA cores, 1860 \
                 MHz boost, FP32 40.0 TFLOPS, 384-bit 21 Gbps GDDR6X = 1008 GB/s",
        rate_source: GA10X_SRC,
    },
    // ----- NVIDIA Ada Lovelace (cc 8.9)
    KnownGpu {
        name: "NVIDIA L4",
        vendor_id: VENDOR_NVIDIA,
        device_ids: &[0x27b8],
        name_match: &["l4"],
        units: 58,
        fp32_lanes: 7424,
        boost_mhz: 2040,
        rate: ADA,
        mem_bytes_per_s: 300e9,
        source: "NVIDIA L4 datasheet: FP32 30.3 TFLOPS, 300 GB/s GDDR6; 58 SMs / 7424 CUDA \
                 cores at 2040 MHz boost (AD104) reproduce it",
        rate_source: ADA_SRC,
    },
    KnownGpu {
        name: "NVIDIA L40S",
        vendor_id: VENDOR_NVIDIA,
        device_ids: &[0x26b9],
        name_match: &["l40s"],
        units: 142,
        fp32_lanes: 18176,
        boost_mhz: 2520,
        rate: ADA,
        mem_bytes_per_s: 864e9,
        source: "NVIDIA L40S datasheet: 18176 CUDA cores (142 SMs, AD102), FP32 91.6 \
                 TFLOPS at 2520 MHz boost, 864 GB/s GDDR6",
        rate_source: ADA_SRC,
    },
    KnownGpu {
        name: "NVIDIA L40",
        vendor_id: VENDOR_NVIDIA,
        device_ids: &[0x26b5],
        name_match: &["l40"],
        units: 142,
        fp32_lanes: 18176,
        boost_mhz: 2490,
        rate: ADA,
        mem_bytes_per_s: 864e9,
        source: "NVIDIA L40 datasheet: 18176 CUDA cores (142 SMs, AD102), FP32 90.5 TFLOPS \
                 at 2490 MHz boost, 864 GB/s GDDR6",
        rate_source: ADA_SRC,
    },
    KnownGpu {
        name: "NVIDIA GeForce RTX 4060",
        vendor_id: VENDOR_NVIDIA,
        device_ids: &[0x2882],
        name_match: &["rtx 4060"],
        units: 24,
        fp32_lanes: 3072,
        boost_mhz: 2460,
        rate: ADA,
        mem_bytes_per_s: 272e9,
        source: "NVIDIA RTX 4060 specifications (AD107): 24 SMs, 3072 CUDA cores, 2460 MHz \
                 boost, FP32 15.1 TFLOPS, 128-bit 17 Gbps GDDR6 = 272 GB/s",
        rate_source: ADA_SRC,
    },
    KnownGpu {
        name: "NVIDIA GeForce RTX 4060 Ti",
        vendor_id: VENDOR_NVIDIA,
        device_ids: &[0x2803, 0x2805],
        name_match: &["rtx 4060 ti"],
        units: 34,
        fp32_lanes: 4352,
        boost_mhz: 2535,
        rate: ADA,
        mem_bytes_per_s: 288e9,
        source: "NVIDIA RTX 4060 Ti specifications (AD106, 8 and 16 GB): 34 SMs, 4352 CUDA \
                 cores, 2535 MHz boost, FP32 22.1 TFLOPS, 128-bit 18 Gbps GDDR6 = 288 GB/s",
        rate_source: ADA_SRC,
    },
    KnownGpu {
        name: "NVIDIA GeForce RTX 4070",
        vendor_id: VENDOR_NVIDIA,
        device_ids: &[0x2786],
        name_match: &["rtx 4070"],
        units: 46,
        fp32_lanes: 5888,
        boost_mhz: 2475,
        rate: ADA,
        mem_bytes_per_s: 504e9,
        source: "NVIDIA RTX 4070 specifications (AD104): 46 SMs, 5888 CUDA cores, 2475 MHz \
                 boost, FP32 29.1 TFLOPS, 192-bit 21 Gbps GDDR6X = 504 GB/s (the later \
                 GDDR6 model has 480 GB/s)",
        rate_source: ADA_SRC,
    },
    KnownGpu {
        name: "NVIDIA GeForce RTX 4070 SUPER",
        vendor_id: VENDOR_NVIDIA,
        device_ids: &[0x2783],
        name_match: &["rtx 4070 super"],
        units: 56,
        fp32_lanes: 7168,
        boost_mhz: 2475,
        rate: ADA,
        mem_bytes_per_s: 504e9,
        source: "NVIDIA RTX 4070 SUPER specifications (AD104): 56 SMs, 7168 CUDA cores, \
                 2475 MHz boost, FP32 35.5 TFLOPS, 192-bit 21 Gbps GDDR6X = 504 GB/s",
        rate_source: ADA_SRC,
    },
    KnownGpu {
        name: "NVIDIA GeForce RTX 4070 Ti",
        vendor_id: VENDOR_NVIDIA,
        device_ids: &[0x2782],
        name_match: &["rtx 4070 ti"],
        units: 60,
        fp32_lanes: 7680,
        boost_mhz: 2610,
        rate: ADA,
        mem_bytes_per_s: 504e9,
        source: "NVIDIA RTX 4070 Ti specifications (AD104): 60 SMs, 7680 CUDA cores, 2610 \
                 MHz boost, FP32 40.1 TFLOPS, 192-bit 21 Gbps GDDR6X = 504 GB/s",
        rate_source: ADA_SRC,
    },
    KnownGpu {
        name: "NVIDIA GeForce RTX 4070 Ti SUPER",
        vendor_id: VENDOR_NVIDIA,
        device_ids: &[0x2705],
        name_match: &["rtx 4070 ti super"],
        units: 66,
        fp32_lanes: 8448,
        boost_mhz: 2610,
        rate: ADA,
        mem_bytes_per_s: 672e9,
        source: "NVIDIA RTX 4070 Ti SUPER specifications (AD103): 66 SMs, 8448 CUDA cores, \
                 2610 MHz boost, FP32 44.1 TFLOPS, 256-bit 21 Gbps GDDR6X = 672 GB/s",
        rate_source: ADA_SRC,
    },
    KnownGpu {
        name: "NVIDIA GeForce RTX 4080",
        vendor_id: VENDOR_NVIDIA,
        device_ids: &[0x2704],
        name_match: &["rtx 4080"],
        units: 76,
        fp32_lanes: 9728,
        boost_mhz: 2505,
        rate: ADA,
        mem_bytes_per_s: 716.8e9,
        source: "NVIDIA Ada whitepaper (RTX 4080 16 GB, AD103): 76 SMs, 9728 CUDA cores, \
                 2505 MHz boost, FP32 48.7 TFLOPS, 256-bit 22.4 Gbps GDDR6X = 716.8 GB/s",
        rate_source: ADA_SRC,
    },
    KnownGpu {
        name: "NVIDIA GeForce RTX 4080 SUPER",
        vendor_id: VENDOR_NVIDIA,
        device_ids: &[0x2702],
        name_match: &["rtx 4080 super"],
        units: 80,
        fp32_lanes: 10240,
        boost_mhz: 2550,
        rate: ADA,
        mem_bytes_per_s: 736e9,
        source: "NVIDIA RTX 4080 SUPER specifications (AD103): 80 SMs, 10240 CUDA cores, \
                 2550 MHz boost, FP32 52.2 TFLOPS, 256-bit 23 Gbps GDDR6X = 736 GB/s",
        rate_source: ADA_SRC,
    },
    KnownGpu {
        name: "NVIDIA GeForce RTX 4090",
        vendor_id: VENDOR_NVIDIA,
        device_ids: &[0x2684],
        name_match: &["rtx 4090"],
        units: 128,
        fp32_lanes: 16384,
        boost_mhz: 2520,
        rate: ADA,
        mem_bytes_per_s: 1008e9,
        source: "NVIDIA Ada (AD102) whitepaper (RTX 4090): 128 SMs, 16384 CUDA cores, 2520 \
                 MHz boost, FP32 82.6 TFLOPS, 384-bit 21 Gbps GDDR6X = 1008 GB/s",
        rate_source: ADA_SRC,
    },
    // ----- AMD CDNA 2 / CDNA 3 / RDNA 3
    KnownGpu {
        name: "AMD Instinct MI210",
        vendor_id: VENDOR_AMD,
        device_ids: &[0x740f],
        name_match: &["mi210"],
        units: 104,
        fp32_lanes: 6656,
        boost_mhz: 1700,
        rate: CDNA,
        mem_bytes_per_s: 1.6384e12,
        source: "AMD Instinct MI210 datasheet: 104 CUs, 6656 stream processors, 1700 MHz \
                 peak engine clock, FP32 / FP64 vector 22.6 TFLOPS, 64 GB HBM2e at 1.6 \
                 TB/s (1638.4 GB/s)",
        rate_source: CDNA2_SRC,
    },
    KnownGpu {
        name: "AMD Instinct MI250X (one GCD)",
        vendor_id: VENDOR_AMD,
        device_ids: &[0x7408],
        name_match: &["mi250x"],
        units: 110,
        fp32_lanes: 7040,
        boost_mhz: 1700,
        rate: CDNA,
        mem_bytes_per_s: 1.6384e12,
        source: "AMD Instinct MI250X datasheet: 220 CUs, 14080 stream processors, 1700 MHz, \
                 FP32 / FP64 vector 47.9 TFLOPS, 3.2 TB/s (3276.8 GB/s) for the two \
                 graphics compute dies; each GCD is its own device, so this row is half: \
                 110 CUs and 1638.4 GB/s (0x740c, shared with MI250, matches by name only)",
        rate_source: CDNA2_SRC,
    },
    KnownGpu {
        name: "AMD Instinct MI300X",
        vendor_id: VENDOR_AMD,
        device_ids: &[0x74a1, 0x74b5],
        name_match: &["mi300x"],
        units: 304,
        fp32_lanes: 19456,
        boost_mhz: 2100,
        rate: CDNA,
        mem_bytes_per_s: 5.3e12,
        source: "AMD Instinct MI300X datasheet: 304 CUs, 19456 stream processors, 2100 MHz \
                 peak engine clock, FP64 vector 81.7 TFLOPS, 192 GB HBM3 at 5.3 TB/s \
                 (0x74b5 is its SR-IOV virtual function)",
        rate_source: CDNA3_SRC,
    },
    KnownGpu {
        name: "AMD Radeon RX 7900 XTX",
        vendor_id: VENDOR_AMD,
        device_ids: &[],
        name_match: &["7900 xtx"],
        units: 96,
        fp32_lanes: 12288,
        boost_mhz: 2500,
        rate: RDNA3,
        mem_bytes_per_s: 960e9,
        source: "AMD Radeon RX 7900 XTX specifications: 96 CUs, 6144 stream processors, \
                 2500 MHz boost, FP32 61.4 TFLOPS, 384-bit 20 Gbps GDDR6 = 960 GB/s; the \
                 61.4 counts RDNA 3 dual issue, so lanes are 6144 x 2 = 12288 (single \
                 issue reaches half); PCI id 0x744c is shared with 7900 XT/GRE, so name \
                 only",
        rate_source: RDNA3_SRC,
    },
    // ----- Intel Xe-HPG / Xe-HPC
    KnownGpu {
        name: "Intel Arc A770",
        vendor_id: VENDOR_INTEL,
        device_ids: &[0x56a0],
        name_match: &["arc", "a770"],
        units: 32,
        fp32_lanes: 4096,
        boost_mhz: 2100,
        rate: XE_HPG,
        mem_bytes_per_s: 560e9,
        source: "Intel ARK, Arc A770 16GB: 32 Xe-cores (512 vector engines x 8 FP32 \
                 lanes = 4096), 2100 MHz graphics clock (cards often run to 2400 MHz: pass \
                 the measured clock), 256-bit 17.5 Gbps GDDR6 = 560 GB/s; the 8 GB model \
                 (same PCI id) has 512 GB/s",
        rate_source: XE_HPG_SRC,
    },
    KnownGpu {
        name: "Intel Data Center GPU Max 1550",
        vendor_id: VENDOR_INTEL,
        device_ids: &[0x0bd5, 0x0bd6],
        name_match: &["max 1550"],
        units: 128,
        fp32_lanes: 16384,
        boost_mhz: 1600,
        rate: XE_HPC,
        mem_bytes_per_s: 3.2768e12,
        source: "Intel Data Center GPU Max 1550 product brief: 128 Xe-cores (1024 vector \
                 engines x 16 FP32 lanes = 16384), 1600 MHz max clock, FP32 / FP64 vector \
                 52 TFLOPS, 128 GB HBM2e at 3.2 TB/s (3276.8 GB/s); both stacks counted as \
                 one device",
        rate_source: XE_HPC_SRC,
    },
];

// ---------------------------------------------------------------------------------------
// nvidia-smi clocks.

/// Reported clocks of one GPU from `nvidia-smi`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SmiClock {
    /// Product name as nvidia-smi prints it, e.g. "NVIDIA H100 80GB HBM3".
    pub(crate) name: String,
    /// PCI device id (the upper 16 bits of nvidia-smi's `pci.device_id`), when given.
    pub(crate) device_id: Option<u32>,
    /// Maximum SM clock in MHz (`clocks.max.sm`), when reported.
    pub(crate) max_sm_mhz: Option<f64>,
    /// Current SM clock in MHz (`clocks.sm`), when reported.
    pub(crate) current_sm_mhz: Option<f64>,
}

/// Reported clocks from `nvidia-smi` when it is installed (NVIDIA only): runs
/// `nvidia-smi --query-gpu=name,pci.device_id,clocks.max.sm,clocks.sm
/// --format=csv,noheader,nounits` with a 5 s limit. One entry per GPU; empty when the
/// tool is missing or fails. Never panics.
pub(crate) fn nvidia_smi_clocks() -> Vec<SmiClock> {
    let argv: Vec<String> = [
        "nvidia-smi",
        "--query-gpu=name,pci.device_id,clocks.max.sm,clocks.sm",
        "--format=csv,noheader,nounits",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    match crate::util::process::capture(&argv, Duration::from_secs(5)) {
        Ok((out, _)) => parse_nvidia_smi(&out),
        Err(_) => Vec::new(),
    }
}

/// Parses the CSV of [`nvidia_smi_clocks`]: one line per GPU, `name, pci.device_id,
/// clocks.max.sm, clocks.sm`. `[N/A]` (or a value that is not a number) gives `None`;
/// lines with fewer than four fields are skipped. Pure.
pub(crate) fn parse_nvidia_smi(text: &str) -> Vec<SmiClock> {
    text.lines()
        .filter_map(|line| {
            let fields: Vec<&str> = line.split(',').map(str::trim).collect();
            if fields.len() < 4 {
                return None;
            }
            // The last three fields are numbers; a name with a comma keeps the rest.
            let n = fields.len();
            let name = fields[..n - 3].join(", ");
            if name.is_empty() {
                return None;
            }
            Some(SmiClock {
                name,
                device_id: parse_smi_device_id(fields[n - 3]),
                max_sm_mhz: parse_smi_mhz(fields[n - 2]),
                current_sm_mhz: parse_smi_mhz(fields[n - 1]),
            })
        })
        .collect()
}

/// `0x233010DE` (device id in the upper 16 bits, vendor in the lower) → `0x2330`.
fn parse_smi_device_id(s: &str) -> Option<u32> {
    let hex = s
        .strip_prefix("0x")
        .or_else(|| s.strip_prefix("0X"))
        .unwrap_or(s);
    let v = u32::from_str_radix(hex, 16).ok()?;
    Some(v >> 16)
}

/// `1980` or `1980 MHz` → 1980.0; `[N/A]`, `N/A`, empty → None.
fn parse_smi_mhz(s: &str) -> Option<f64> {
    let s = s.trim_end_matches("MHz").trim();
    s.parse::<f64>().ok().filter(|v| v.is_finite() && *v > 0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(name: &str) -> &'static KnownGpu {
        KNOWN_GPUS
            .iter()
            .find(|g| g.name == name)
            .unwrap_or_else(|| panic!("no row {name}"))
    }

    fn close(a: f64, b: f64, tol: f64) -> bool {
        ((a - b) / b).abs() <= tol
    }

    /// `g`'s peak for `p` at the datasheet clock is `want` within `tol` (relative).
    fn assert_peak(g: &KnownGpu, p: GpuPrecision, want: f64, tol: f64) {
        let v = g.peak(p, None).0.unwrap();
        assert!(close(v, want, tol), "{} {p}: {v:e} vs {want:e}", g.name);
    }

    #[test]
    fn lookup_by_id() {
        #[rustfmt::skip]
        let cases = [
            (VENDOR_NVIDIA, 0x2330, "NVIDIA H100 SXM5 80GB"),
            (VENDOR_NVIDIA, 0x2335, "NVIDIA H200 SXM 141GB"),
            (VENDOR_NVIDIA, 0x20b2, "NVIDIA A100 SXM4 80GB"),
            (VENDOR_NVIDIA, 0x27b8, "NVIDIA L4"),
            (VENDOR_AMD, 0x74a1, "AMD Instinct MI300X"),
            (VENDOR_INTEL, 0x56a0, "Intel Arc A770"),
        ];
        for (vendor, id, name) in cases {
            assert_eq!(
                lookup(vendor, id, "").map(|g| g.name),
                Some(name),
                "{id:#x}"
            );
        }
        // The id wins over a misleading name.
        assert_eq!(
            lookup(VENDOR_NVIDIA, 0x2331, "NVIDIA H100 80GB HBM3")
                .unwrap()
                .name,
            "NVIDIA H100 PCIe"
        );
        // Same device id under another vendor is not a match.
        assert!(lookup(VENDOR_AMD, 0x2330, "").is_none());
    }

    #[test]
    fn lookup_by_name() {
        let by_name = |n: &str| lookup(VENDOR_NVIDIA, 0xffff, n).map(|g| g.name);
        // (what the driver reports, the row it must find)
        #[rustfmt::skip]
        let cases = [
            ("NVIDIA H100 80GB HBM3", "NVIDIA H100 SXM5 80GB"),
            ("NVIDIA H100 PCIe", "NVIDIA H100 PCIe"),
            ("NVIDIA H100 NVL", "NVIDIA H100 NVL"),
            ("NVIDIA H200", "NVIDIA H200 SXM 141GB"),
            ("NVIDIA H200 NVL", "NVIDIA H200 NVL"),
            ("NVIDIA A100-SXM4-40GB", "NVIDIA A100 SXM4 40GB"),
            ("NVIDIA A100 80GB PCIe", "NVIDIA A100 PCIe 80GB"),
            ("Tesla V100-SXM2-32GB", "NVIDIA Tesla V100 SXM2"),
            ("Tesla V100-PCIE-16GB", "NVIDIA Tesla V100 PCIe"),
            ("Tesla T4", "NVIDIA Tesla T4"),
            ("NVIDIA L40S", "NVIDIA L40S"),
            ("NVIDIA L40", "NVIDIA L40"),
            ("NVIDIA A10", "NVIDIA A10"),
            ("NVIDIA GeForce RTX 4070 Ti SUPER", "NVIDIA GeForce RTX 4070 Ti SUPER"),
            ("NVIDIA GeForce RTX 3060 Ti", "NVIDIA GeForce RTX 3060 Ti"),
            ("NVIDIA GeForce RTX 3060", "NVIDIA GeForce RTX 3060"),
            ("NVIDIA GeForce RTX 4090", "NVIDIA GeForce RTX 4090"),
        ];
        for (reported, row) in cases {
            assert_eq!(by_name(reported), Some(row), "{reported}");
        }
        // Laptop parts, the China-only 4090 D, the A10G and GH200 are other models.
        assert_eq!(by_name("NVIDIA GeForce RTX 3060 Laptop GPU"), None);
        assert_eq!(by_name("NVIDIA GeForce RTX 4090 D"), None);
        assert_eq!(by_name("NVIDIA A10G"), None);
        assert_eq!(by_name("NVIDIA GH200 480GB"), None);
        assert_eq!(
            lookup(VENDOR_AMD, 0x744c, "AMD Radeon RX 7900 XTX (RADV NAVI31)").map(|g| g.name),
            Some("AMD Radeon RX 7900 XTX")
        );
        assert!(lookup(VENDOR_AMD, 0x744c, "AMD Radeon RX 7900 XT (RADV NAVI31)").is_none());
        assert_eq!(
            lookup(0, 0, "Intel(R) Data Center GPU Max 1550").map(|g| g.name),
            Some("Intel Data Center GPU Max 1550")
        );
        // A name of another vendor's row is ignored when the vendor id is known.
        assert!(lookup(VENDOR_AMD, 0xffff, "NVIDIA H200").is_none());
    }

    #[test]
    fn unknown_is_none() {
        assert!(lookup(VENDOR_NVIDIA, 0x0001, "Some Future GPU").is_none());
        assert!(lookup(0x1234, 0x5678, "").is_none());
        assert!(lookup(0, 0, "llvmpipe (LLVM 17.0.6, 256 bits)").is_none());
    }

    #[test]
    fn each_rows_own_words_find_it() {
        for g in KNOWN_GPUS {
            let name = g.name_match.join(" ");
            let found = lookup(g.vendor_id, 0xffff_ffff, &name).map(|f| f.name);
            assert_eq!(found, Some(g.name), "name '{name}'");
        }
    }

    #[test]
    fn h100_sxm5_peaks() {
        let g = row("NVIDIA H100 SXM5 80GB");
        let (fp32, src) = g.peak(GpuPrecision::Fp32, None);
        assert!(close(fp32.unwrap(), 66.9e12, 0.005), "{fp32:?}");
        assert!(
            src.contains("16896 FP32 lanes x 1.980 GHz (datasheet boost)"),
            "{src}"
        );
        assert!(src.contains("x 2 op/FMA x 1 (fp32 rate)"), "{src}");
        assert_peak(g, GpuPrecision::Fp64, 33.5e12, 0.005);
        assert_peak(g, GpuPrecision::Fp16, 133.8e12, 0.005);
        assert_peak(g, GpuPrecision::Int32, 33.5e12, 0.005);
        assert!(close(g.mem_peak().0, 3.35e12, 1e-9));
    }

    #[test]
    fn a100_peaks() {
        let g = row("NVIDIA A100 SXM4 40GB");
        assert_peak(g, GpuPrecision::Fp64, 9.7e12, 0.005);
        assert_peak(g, GpuPrecision::Fp32, 19.5e12, 0.005);
        assert_peak(g, GpuPrecision::Fp16, 78e12, 0.005);
        assert!(close(
            row("NVIDIA A100 SXM4 80GB").mem_peak().0,
            2.039e12,
            1e-9
        ));
    }

    #[test]
    fn fp32_matches_datasheets() {
        // (row, datasheet TFLOPS of the same precision, precision)
        let cases = [
            ("NVIDIA Tesla V100 SXM2", 15.7, GpuPrecision::Fp32),
            ("NVIDIA Tesla V100 PCIe", 14.0, GpuPrecision::Fp32),
            ("NVIDIA Tesla T4", 8.1, GpuPrecision::Fp32),
            ("NVIDIA H100 PCIe", 51.2, GpuPrecision::Fp32),
            ("NVIDIA H100 NVL", 60.0, GpuPrecision::Fp32),
            ("NVIDIA L4", 30.3, GpuPrecision::Fp32),
            ("NVIDIA L40S", 91.6, GpuPrecision::Fp32),
            ("NVIDIA A10", 31.2, GpuPrecision::Fp32),
            ("NVIDIA GeForce RTX 3090", 35.6, GpuPrecision::Fp32),
            ("NVIDIA GeForce RTX 3090", 35.6, GpuPrecision::Fp16),
            ("NVIDIA GeForce RTX 3090", 17.8, GpuPrecision::Int32),
            ("NVIDIA GeForce RTX 4090", 82.6, GpuPrecision::Fp32),
            ("NVIDIA GeForce RTX 4090", 41.3, GpuPrecision::Int32),
            ("AMD Instinct MI210", 22.6, GpuPrecision::Fp64),
            ("AMD Instinct MI300X", 81.7, GpuPrecision::Fp64),
            ("AMD Radeon RX 7900 XTX", 61.4, GpuPrecision::Fp32),
            ("AMD Radeon RX 7900 XTX", 122.8, GpuPrecision::Fp16),
            ("Intel Data Center GPU Max 1550", 52.0, GpuPrecision::Fp64),
        ];
        for (name, tflops, p) in cases {
            assert_peak(row(name), p, tflops * 1e12, 0.01);
        }
        // MI250X row is one of the two dies: twice it is the card's 47.9 TFLOPS.
        let gcd = row("AMD Instinct MI250X (one GCD)");
        assert!(close(
            2.0 * gcd.peak(GpuPrecision::Fp64, None).0.unwrap(),
            47.9e12,
            0.01
        ));
    }

    #[test]
    fn peak_scales_linearly_with_clock() {
        let g = row("NVIDIA H100 SXM5 80GB");
        let full = g.peak(GpuPrecision::Fp32, Some(1980.0)).0.unwrap();
        let (half, src) = g.peak(GpuPrecision::Fp32, Some(990.0));
        assert!(close(half.unwrap() * 2.0, full, 1e-12));
        assert!(src.contains("0.990 GHz (given clock)"), "{src}");
        assert_eq!(g.peak(GpuPrecision::Fp32, None).0, Some(full));
        assert!(g.peak(GpuPrecision::Fp32, Some(0.0)).0.is_none());
        assert!(g.peak(GpuPrecision::Fp32, Some(f64::NAN)).0.is_none());
    }

    #[test]
    fn int8_counts_eight_ops_and_zero_rates_say_why() {
        let g = row("NVIDIA H100 SXM5 80GB");
        let (v, why) = g.peak(GpuPrecision::Int8, None);
        assert!(v.is_none());
        assert!(why.starts_with("unknown: no int8 rate"), "{why}");
        assert!(why.contains("DP4A"), "{why}");
        let (v, why) = g.peak(GpuPrecision::Int64, None);
        assert!(v.is_none());
        assert!(why.contains("emulated"), "{why}");
        // The formula for a row with an int8 rate: 8 ops per instruction.
        let mut custom = *g;
        custom.rate.int8 = 0.5;
        let (v, src) = custom.peak(GpuPrecision::Int8, None);
        assert!(close(v.unwrap(), 16896.0 * 1.98e9 * 8.0 * 0.5, 1e-12));
        assert!(src.contains("x 8 op/dp4a x 0.5 (int8 rate)"), "{src}");
    }

    #[test]
    fn table_rows_are_sane() {
        for g in KNOWN_GPUS {
            assert!(!g.source.trim().is_empty(), "{}", g.name);
            assert!(!g.rate_source.trim().is_empty(), "{}", g.name);
            assert!(!g.name_match.is_empty(), "{}", g.name);
            assert!(
                g.name_match
                    .iter()
                    .all(|m| !m.is_empty() && *m == m.to_ascii_lowercase()),
                "{}",
                g.name
            );
            assert_eq!(g.rate.fp32, 1.0, "{}", g.name);
            for p in GpuPrecision::ALL {
                let r = g.rate.get(p);
                assert!(r.is_finite() && r >= 0.0, "{} {p}", g.name);
            }
            assert!(g.mem_bytes_per_s > 0.0, "{}", g.name);
            assert!(
                g.units > 0 && g.fp32_lanes > 0 && g.boost_mhz > 0,
                "{}",
                g.name
            );
            assert_eq!(g.fp32_lanes % g.units, 0, "{}: lanes per unit", g.name);
            assert!(
                [VENDOR_NVIDIA, VENDOR_AMD, VENDOR_INTEL].contains(&g.vendor_id),
                "{}",
                g.name
            );
            let (bw, src) = g.mem_peak();
            assert_eq!(bw, g.mem_bytes_per_s);
            assert!(src.contains("TB/s"), "{src}");
        }
    }

    #[test]
    fn no_duplicate_device_ids_or_names() {
        let mut seen = std::collections::HashSet::new();
        let mut names = std::collections::HashSet::new();
        for g in KNOWN_GPUS {
            assert!(names.insert(g.name), "duplicate row {}", g.name);
            for id in g.device_ids {
                assert!(
                    seen.insert((g.vendor_id, *id)),
                    "duplicate id {:#06x} ({})",
                    id,
                    g.name
                );
            }
        }
    }

    #[test]
    fn precision_names_round_trip() {
        for p in GpuPrecision::ALL {
            assert_eq!(GpuPrecision::parse(p.name()), Some(p));
            assert_eq!(GpuPrecision::parse(&p.name().to_uppercase()), Some(p));
            let json = serde_json::to_string(&p).unwrap();
            assert_eq!(json, format!("\"{}\"", p.name()));
            assert_eq!(serde_json::from_str::<GpuPrecision>(&json).unwrap(), p);
            assert_eq!(p.to_string(), p.name());
        }
        assert_eq!(GpuPrecision::parse("SP"), Some(GpuPrecision::Fp32));
        assert_eq!(GpuPrecision::parse(" hp "), Some(GpuPrecision::Fp16));
        assert_eq!(GpuPrecision::parse("dp"), Some(GpuPrecision::Fp64));
        assert_eq!(GpuPrecision::parse("bf16"), None);
        assert_eq!(GpuPrecision::parse(""), None);
    }

    #[test]
    fn parses_nvidia_smi_output() {
        let text = "NVIDIA H100 80GB HBM3, 0x233010DE, 1980, 1755\n\
                    NVIDIA A100-SXM4-40GB, 0x20B010DE, 1410, [N/A]\n\
                    Tesla T4, [N/A], [N/A], 300 MHz\n\
                    \n\
                    garbage line\n";
        let v = parse_nvidia_smi(text);
        assert_eq!(v.len(), 3);
        assert_eq!(
            v[0],
            SmiClock {
                name: "NVIDIA H100 80GB HBM3".to_string(),
                device_id: Some(0x2330),
                max_sm_mhz: Some(1980.0),
                current_sm_mhz: Some(1755.0),
            }
        );
        assert_eq!(v[1].device_id, Some(0x20b0));
        assert_eq!(v[1].max_sm_mhz, Some(1410.0));
        assert_eq!(v[1].current_sm_mhz, None);
        assert_eq!(v[2].name, "Tesla T4");
        assert_eq!(v[2].device_id, None);
        assert_eq!(v[2].max_sm_mhz, None);
        assert_eq!(v[2].current_sm_mhz, Some(300.0));
        // The parsed id finds the table row.
        let g = lookup(VENDOR_NVIDIA, v[0].device_id.unwrap(), &v[0].name).unwrap();
        assert_eq!(g.name, "NVIDIA H100 SXM5 80GB");
        assert!(parse_nvidia_smi("").is_empty());
    }

    #[test]
    fn smi_without_the_tool_is_empty_not_a_panic() {
        // On machines without nvidia-smi this is empty; with it, every entry has a name.
        for c in nvidia_smi_clocks() {
            assert!(!c.name.is_empty());
        }
    }
}
