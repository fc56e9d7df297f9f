//! Table of known GPUs with their datasheet figures, and the theoretical GPU peaks
//! built from them (units × clock × ops/clock, each with its source). The rows live in
//! `gpus.json` next to this file (one entry per architecture family: its vendor, rates
//! and their source, then its GPU rows in lookup order), parsed once on first use; this
//! file holds the types, the lookup and the peak arithmetic.
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
use std::sync::LazyLock;
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

    /// Parses the name, case-insensitive, or an alias of the one table every command
    /// shares (`qp`, `hp`, `sp`, `dp`: [`super::precision`]).
    pub(crate) fn parse(s: &str) -> Option<GpuPrecision> {
        let s = super::precision::canonical(s);
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
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
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

/// One GPU model with its datasheet figures (a row of `gpus.json` with its family's
/// vendor and rates).
#[derive(Debug, Clone)]
pub(crate) struct KnownGpu {
    /// Marketing name, e.g. "NVIDIA H100 SXM5 80GB".
    pub(crate) name: String,
    /// Architecture the rates belong to, e.g. "NVIDIA Ada Lovelace (cc 8.9)".
    #[cfg_attr(not(test), allow(dead_code))] // read by the tests
    pub(crate) family: String,
    /// PCI vendor id (0x10de NVIDIA, 0x1002 AMD, 0x8086 Intel).
    pub(crate) vendor_id: u32,
    /// PCI device ids of this model (as Vulkan reports deviceID). May be empty when the
    /// id is shared with other models (then only the name identifies it).
    pub(crate) device_ids: Vec<u32>,
    /// Lower-case words that identify it in the adapter name when the id is not listed;
    /// all must occur, each as whole words (e.g. `["h100", "80gb", "hbm3"]`). Empty:
    /// never matched by name.
    pub(crate) name_match: Vec<String>,
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
    pub(crate) source: String,
    /// Where the per-precision rates come from (CUDA Programming Guide throughput table
    /// row, whitepaper non-tensor figure, ISA), and why a rate is 0.
    pub(crate) rate_source: String,
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
        for pat in &self.name_match {
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
    for g in KNOWN_GPUS.iter() {
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
// The table, read from `gpus.json` next to this file: a list of families (one rate table
// and its provenance each), each with its GPU rows, in lookup order. Clock × lanes × 2
// reproduces the datasheet FP32 TFLOPS quoted in a row's `source`.

/// One family of `gpus.json`: the rates its rows share and their GPU rows.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Family {
    /// Architecture, e.g. "NVIDIA Ada Lovelace (cc 8.9)".
    family: String,
    /// "nvidia", "amd" or "intel".
    vendor: String,
    /// Per-precision rates of every row (see [`Rates`]).
    rates: Rates,
    /// Where the rates come from, and why a rate is 0.
    rate_source: String,
    /// The GPU models, in lookup order.
    gpus: Vec<Row>,
}

/// One GPU row of `gpus.json` (the fields of [`KnownGpu`] that are not the family's).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Row {
    name: String,
    /// Hexadecimal PCI device ids, e.g. "0x2330".
    device_ids: Vec<String>,
    name_match: Vec<String>,
    units: u32,
    fp32_lanes: u32,
    boost_mhz: u32,
    mem_bytes_per_s: f64,
    source: String,
}

/// Builds the rows of a table file: a family's vendor, rates and rate source go to
/// each of its rows. Errors name the row and what is wrong with it.
fn parse_table(json: &str) -> Result<Vec<KnownGpu>, String> {
    let families: Vec<Family> = serde_json::from_str(json).map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    for f in families {
        let vendor_id = match f.vendor.as_str() {
            "nvidia" => VENDOR_NVIDIA,
            "amd" => VENDOR_AMD,
            "intel" => VENDOR_INTEL,
            v => return Err(format!("{}: unknown vendor {v:?}", f.family)),
        };
        for r in f.gpus {
            let device_ids = r
                .device_ids
                .iter()
                .map(|d| {
                    d.strip_prefix("0x")
                        .and_then(|h| u32::from_str_radix(h, 16).ok())
                        .ok_or_else(|| format!("{}: device id {d:?} is not 0x<hex>", r.name))
                })
                .collect::<Result<Vec<u32>, String>>()?;
            out.push(KnownGpu {
                name: r.name,
                family: f.family.clone(),
                vendor_id,
                device_ids,
                name_match: r.name_match,
                units: r.units,
                fp32_lanes: r.fp32_lanes,
                boost_mhz: r.boost_mhz,
                rate: f.rates,
                mem_bytes_per_s: r.mem_bytes_per_s,
                source: r.source,
                rate_source: f.rate_source.clone(),
            });
        }
    }
    Ok(out)
}

/// Every known GPU model, parsed once from `gpus.json` (the tests check that it parses).
pub(crate) static KNOWN_GPUS: LazyLock<Vec<KnownGpu>> = LazyLock::new(|| {
    parse_table(include_str!("gpus.json")).unwrap_or_else(|e| panic!("hw/gpus.json: {e}"))
});

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
#[path = "gpu_table_tests.rs"]
mod tests;
