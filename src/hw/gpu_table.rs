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
                lookup(vendor, id, "").map(|g| g.name.as_str()),
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
        let by_name = |n: &str| lookup(VENDOR_NVIDIA, 0xffff, n).map(|g| g.name.as_str());
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
            lookup(VENDOR_AMD, 0x744c, "AMD Radeon RX 7900 XTX (RADV NAVI31)")
                .map(|g| g.name.as_str()),
            Some("AMD Radeon RX 7900 XTX")
        );
        assert!(lookup(VENDOR_AMD, 0x744c, "AMD Radeon RX 7900 XT (RADV NAVI31)").is_none());
        assert_eq!(
            lookup(0, 0, "Intel(R) Data Center GPU Max 1550").map(|g| g.name.as_str()),
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
        for g in KNOWN_GPUS.iter() {
            let name = g.name_match.join(" ");
            let found = lookup(g.vendor_id, 0xffff_ffff, &name).map(|f| f.name.as_str());
            assert_eq!(found, Some(g.name.as_str()), "name '{name}'");
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
        let mut custom = g.clone();
        custom.rate.int8 = 0.5;
        let (v, src) = custom.peak(GpuPrecision::Int8, None);
        assert!(close(v.unwrap(), 16896.0 * 1.98e9 * 8.0 * 0.5, 1e-12));
        assert!(src.contains("x 8 op/dp4a x 0.5 (int8 rate)"), "{src}");
    }

    #[test]
    fn table_file_parses_and_rows_are_valid() {
        let rows = parse_table(include_str!("gpus.json")).unwrap();
        assert_eq!(rows.len(), 40);
        assert_eq!(rows.len(), KNOWN_GPUS.len());
        for g in &rows {
            assert!(!g.name.trim().is_empty(), "{g:?}");
            assert!(!g.family.trim().is_empty(), "{}", g.name);
            assert!(
                g.device_ids.iter().all(|&d| d != 0 && d <= 0xffff),
                "{}",
                g.name
            );
        }
        // A row with no listed id is found by name only.
        assert!(rows.iter().any(|g| g.device_ids.is_empty()));
        // Errors name what is wrong.
        let family = |vendor: &str, id: &str| {
            format!(
                r#"[{{"family": "F", "vendor": "{vendor}", "rate_source": "s",
                  "rates": {{"fp32": 1, "fp16": 0, "fp64": 0, "int32": 0, "int8": 0, "int64": 0}},
                  "gpus": [{{"name": "G", "device_ids": ["{id}"], "name_match": ["g"],
                             "units": 1, "fp32_lanes": 64, "boost_mhz": 1000,
                             "mem_bytes_per_s": 1e9, "source": "s"}}]}}]"#
            )
        };
        assert_eq!(
            parse_table(&family("amd", "0x1")).unwrap()[0].device_ids,
            [1]
        );
        assert!(parse_table(&family("acme", "0x1"))
            .unwrap_err()
            .contains("acme"));
        assert!(parse_table(&family("amd", "12"))
            .unwrap_err()
            .contains("\"12\""));
        assert!(parse_table("[{\"family\": \"F\"}]").is_err());
    }

    /// Rows as they were written in the Rust table before it moved to `gpus.json`.
    #[test]
    fn rows_keep_their_figures() {
        const NV: u32 = VENDOR_NVIDIA;
        // Each row: (name, family, vendor, device ids, name match), then (units, lanes,
        // MHz, B/s, rates fp32/fp16/fp64/int32/int8/int64, source and rate source openings).
        type OldRow = (
            &'static str,
            &'static str,
            u32,
            &'static [u32],
            &'static [&'static str],
        );
        type Figures = (u32, u32, u32, f64, [f64; 6], &'static str, &'static str);
        #[rustfmt::skip]
        let rows: [(OldRow, Figures); 7] = [
            (("NVIDIA H100 SXM5 80GB", "NVIDIA Hopper (cc 9.0)", NV, &[0x2330], &["h100", "80gb", "hbm3"]),
             (132, 16896, 1980, 3.35e12, [1.0, 2.0, 0.5, 0.5, 0.0, 0.0],
              "NVIDIA H100 whitepaper and datasheet (SXM5): 132 SMs",
              "CUDA C++ Programming Guide throughput table, cc 9.0")),
            (("NVIDIA Tesla V100 SXM2", "NVIDIA Volta (cc 7.0)", NV, &[0x1db1, 0x1db5, 0x1df5], &["v100", "sxm2"]),
             (80, 5120, 1530, 900e9, [1.0, 2.0, 0.5, 1.0, 0.0, 0.0],
              "NVIDIA Tesla V100 datasheet and Volta (GV100) whitepaper",
              "CUDA C++ Programming Guide throughput table, cc 7.0")),
            (("NVIDIA Tesla T4", "NVIDIA Turing (cc 7.5)", NV, &[0x1eb8], &["t4"]),
             (40, 2560, 1590, 320e9, [1.0, 2.0, 1.0 / 32.0, 1.0, 0.0, 0.0],
              "NVIDIA T4 datasheet and Turing whitepaper",
              "CUDA C++ Programming Guide throughput table, cc 7.5")),
            (("NVIDIA GeForce RTX 4090", "NVIDIA Ada Lovelace (cc 8.9)", NV, &[0x2684], &["rtx 4090"]),
             (128, 16384, 2520, 1008e9, [1.0, 1.0, 1.0 / 64.0, 0.5, 0.0, 0.0],
              "NVIDIA Ada (AD102) whitepaper (RTX 4090)",
              "NVIDIA Ada Lovelace (AD102) whitepaper (cc 8.9)")),
            (("AMD Instinct MI250X (one GCD)", "AMD CDNA 2", VENDOR_AMD, &[0x7408], &["mi250x"]),
             (110, 7040, 1700, 1.6384e12, [1.0, 2.0, 1.0, 0.0, 0.0, 0.0],
              "AMD Instinct MI250X datasheet", "AMD Instinct MI200 datasheets")),
            (("AMD Radeon RX 7900 XTX", "AMD RDNA 3", VENDOR_AMD, &[], &["7900 xtx"]),
             (96, 12288, 2500, 960e9, [1.0, 2.0, 1.0 / 32.0, 0.0, 0.0, 0.0],
              "AMD Radeon RX 7900 XTX specifications", "AMD Radeon RX 7900 XTX specifications")),
            (("Intel Data Center GPU Max 1550", "Intel Xe-HPC", VENDOR_INTEL, &[0x0bd5, 0x0bd6], &["max 1550"]),
             (128, 16384, 1600, 3.2768e12, [1.0, 0.0, 1.0, 0.0, 0.0, 0.0],
              "Intel Data Center GPU Max 1550 product brief",
              "Intel Data Center GPU Max 1550 product brief")),
        ];
        for ((name, family, vendor, ids, words), (units, lanes, mhz, bw, rates, src, rsrc)) in rows
        {
            let g = row(name);
            assert_eq!(g.family, family, "{name}");
            assert_eq!(g.vendor_id, vendor, "{name}");
            assert_eq!(g.device_ids, ids, "{name}");
            assert_eq!(g.name_match, words, "{name}");
            assert_eq!(
                (g.units, g.fp32_lanes, g.boost_mhz),
                (units, lanes, mhz),
                "{name}"
            );
            assert_eq!(g.mem_bytes_per_s, bw, "{name}");
            assert_eq!(GpuPrecision::ALL.map(|p| g.rate.get(p)), rates, "{name}");
            assert!(g.source.starts_with(src), "{name}: {}", g.source);
            assert!(g.rate_source.starts_with(rsrc), "{name}: {}", g.rate_source);
        }
        // Whole strings, joined from the old table's continued lines.
        let v100 = row("NVIDIA Tesla V100 SXM2");
        assert_eq!(
            v100.source,
            "NVIDIA Tesla V100 datasheet and Volta (GV100) whitepaper: 80 SMs, 5120 FP32 \
             cores, 1530 MHz boost, FP32 15.7 / FP64 7.8 TFLOPS, 900 GB/s HBM2 (16 and 32 GB)"
        );
        assert!(v100.rate_source.ends_with(
            "emulated with several 32-bit IMADs ('multiple instructions' in the guide), so no \
             int64 peak"
        ));
        // The MI300X shares the CDNA rates, not their source.
        let mi300 = row("AMD Instinct MI300X");
        assert_eq!(mi300.rate, row("AMD Instinct MI250X (one GCD)").rate);
        assert!(mi300
            .rate_source
            .starts_with("AMD Instinct MI300X datasheet"));
        // Lookup order is the file's: the first row and the last.
        assert_eq!(KNOWN_GPUS[0].name, "NVIDIA Tesla V100 SXM2");
        assert_eq!(KNOWN_GPUS[39].name, "Intel Data Center GPU Max 1550");
    }

    #[test]
    fn table_rows_are_sane() {
        for g in KNOWN_GPUS.iter() {
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
        for g in KNOWN_GPUS.iter() {
            assert!(names.insert(&g.name), "duplicate row {}", g.name);
            for id in &g.device_ids {
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
