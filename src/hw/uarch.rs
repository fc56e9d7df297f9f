//! Microarchitecture table: how many vector instructions of each class one core can
//! start per cycle, by vector width, and the identification of a CPU's row from a
//! recorded description (`cpudesc::CpuDescription`) — by what the CPU has, not only by
//! its model number, which hypervisors mask. Theoretical CPU peaks are built from these
//! rows (`rates.rs`, `peak.rs`): cores × measured clock × instructions/cycle ×
//! operations/instruction.
//!
//! Sources: Intel 64 and IA-32 Architectures Optimization Reference Manual (port
//! layouts, AMX TMUL 16 cycles per tile op), AMD Software Optimization Guides for
//! families 17h/19h/1Ah, Agner Fog's instruction tables and uops.info throughput
//! measurements; rates marked "measured" in a row's note come from peakbench runs on
//! the CPUs recorded in tests/fixtures/cpus/recorded-*.json.
//!
//! Identification ([`identify`]), in order:
//! 1. a row whose vendor, family and model match and whose feature constraints (`needs`,
//!    `lacks`) and brand patterns hold wins;
//! 2. a model match whose features contradict the row (a Rocket Lake model number with
//!    AMX, say) is *overruled*, and said so;
//! 3. otherwise the row is inferred from the feature set ([`infer`]): AMX-TILE ⇒ a
//!    Sapphire-Rapids-class server core, AVX-512 without BF16/VBMI ⇒ Skylake-SP class,
//!    AMD by family and AVX-512, aarch64 by part number or the generic row.

use super::cpudesc::{brand_matches, CpuDescription};
pub use super::uarch_row::{Identification, Pipe, Uarch, Width};

const INTEL: &str = "GenuineIntel";
const AMD: &str = "AuthenticAMD";
const Z: [f64; 3] = [0.0; 3];

/// Flags that appeared after the Skylake-SP/Cascade Lake generation.
const NEWER_THAN_SKX: &[&str] = &[
    "avx512vbmi",
    "avx512_vbmi2",
    "avx512_fp16",
    "amx_tile",
    "avx_vnni",
];
/// Flags that appeared after the Ice Lake/Tiger Lake/Rocket Lake generation.
const NEWER_THAN_ICL: &[&str] = &["avx512_bf16", "avx512_fp16", "amx_tile", "avx_vnni"];
/// Xeon Scalable 1st/2nd generation SKUs with one 512-bit FMA unit (Intel ARK "# of
/// AVX-512 FMA Units: 1"): Bronze, Silver and Gold 51xx/52xx, except Gold 5122/5222.
const ONE_FMA_XEONS: &[&str] = &[
    "*Xeon Bronze *",
    "*Xeon Silver *",
    "*Xeon Gold 51??*",
    "*Xeon Gold 52??*",
    "!*Gold 5122*",
    "!*Gold 5222*",
];

/// Golden Cove and later server cores: mul+add pairs at 3/cycle (FMA units on ports 0
/// and 1, fast adders on 1 and 5) at 128/256 bit, 2 at 512 bit (fused 0+1 and 5);
/// `vdpbf16ps` zmm measured at 0.5/cycle on a Sapphire-Rapids-class guest.
const GLC_SERVER_NOTE: &str =
    "mul+add: FMA units on ports 0/1 plus adders on 1/5; vdpbf16ps measured at 1 per 2 cycles";

/// The table, newest first within each vendor; SKU variants (rows with brand patterns)
/// before the general row of the same models.
#[rustfmt::skip]
pub(crate) static UARCHES: &[Uarch] = &[
    Uarch { name: "Granite Rapids", vendor: INTEL, family: 6, models: &[(173, 174)],
        needs: &["avx512f"], lacks: &[], brands: &[],
        fma: [2.0, 2.0, 2.0], muladd: [3.0, 3.0, 2.0], alu: [3.0, 3.0, 2.0], mul32: [1.0, 1.0, 1.0], mul64: [0.0, 0.0, 2.0 / 3.0],
        dot: [2.0, 2.0, 2.0], dot_bf16: [0.0, 0.0, 0.5], mmla: Z, mmla_bf16: Z, fp16: 2.0, amx: 1.0 / 16.0, note: GLC_SERVER_NOTE },
    Uarch { name: "Sapphire Rapids/Emerald Rapids", vendor: INTEL, family: 6, models: &[(143, 143), (207, 207)],
        needs: &["avx512f"], lacks: &["amx_fp16"], brands: &[],
        fma: [2.0, 2.0, 2.0], muladd: [3.0, 3.0, 2.0], alu: [3.0, 3.0, 2.0], mul32: [1.0, 1.0, 1.0], mul64: [0.0, 0.0, 2.0 / 3.0],
        dot: [2.0, 2.0, 2.0], dot_bf16: [0.0, 0.0, 0.5], mmla: Z, mmla_bf16: Z, fp16: 2.0, amx: 1.0 / 16.0, note: GLC_SERVER_NOTE },
    Uarch { name: "Ice Lake-SP", vendor: INTEL, family: 6, models: &[(106, 106), (108, 108)],
        needs: &["avx512f"], lacks: NEWER_THAN_ICL, brands: &[],
        fma: [2.0, 2.0, 2.0], muladd: [2.0, 2.0, 2.0], alu: [3.0, 3.0, 2.0], mul32: [1.0, 1.0, 1.0], mul64: [0.0, 0.0, 2.0 / 3.0],
        dot: [2.0, 2.0, 2.0], dot_bf16: Z, mmla: Z, mmla_bf16: Z, fp16: 0.0, amx: 0.0, note: "two 512-bit FMA units on every Xeon Scalable 3rd-generation SKU" },
    Uarch { name: "Skylake-SP/Cascade Lake (one 512-bit FMA unit)", vendor: INTEL, family: 6, models: &[(85, 85)],
        needs: &["avx512f"], lacks: NEWER_THAN_SKX, brands: ONE_FMA_XEONS,
        fma: [2.0, 2.0, 1.0], muladd: [2.0, 2.0, 1.0], alu: [3.0, 3.0, 2.0], mul32: [1.0, 1.0, 0.5], mul64: [0.0, 0.0, 1.0 / 3.0],
        dot: [2.0, 2.0, 1.0], dot_bf16: Z, mmla: Z, mmla_bf16: Z, fp16: 0.0, amx: 0.0, note: "Bronze/Silver/Gold 51xx-52xx SKU: port 5 has no 512-bit FMA unit" },
    Uarch { name: "Skylake-SP/Cascade Lake/Cooper Lake", vendor: INTEL, family: 6, models: &[(85, 85)],
        needs: &["avx512f"], lacks: NEWER_THAN_SKX, brands: &[],
        fma: [2.0, 2.0, 2.0], muladd: [2.0, 2.0, 2.0], alu: [3.0, 3.0, 2.0], mul32: [1.0, 1.0, 1.0], mul64: [0.0, 0.0, 2.0 / 3.0],
        dot: [2.0, 2.0, 2.0], dot_bf16: [0.0, 0.0, 0.5], mmla: Z, mmla_bf16: Z, fp16: 0.0, amx: 0.0,
        note: "two 512-bit FMA units (Gold 5122/5222, 6xxx, Platinum); brand strings of one-unit SKUs select the row above; Cooper Lake vdpbf16ps assumed as on Sapphire Rapids" },
    Uarch { name: "Alder Lake P-core with AVX-512 enabled", vendor: INTEL, family: 6, models: &[(151, 151), (154, 154)],
        needs: &["avx512f"], lacks: &["amx_tile"], brands: &[],
        fma: [2.0, 2.0, 1.0], muladd: [3.0, 3.0, 1.0], alu: [3.0, 3.0, 2.0], mul32: [1.0, 1.0, 0.5], mul64: [0.0, 0.0, 1.0 / 3.0],
        dot: [2.0, 2.0, 1.0], dot_bf16: [0.0, 0.0, 0.25], mmla: Z, mmla_bf16: Z, fp16: 1.0, amx: 0.0,
        note: "early firmware with E-cores off: one 512-bit FMA unit (client cores lack the port-5 FMA); 512-bit dot/FP16 rates assumed half of Sapphire Rapids'" },
    Uarch { name: "Arrow Lake/Lunar Lake (Lion Cove P-core)", vendor: INTEL, family: 6, models: &[(189, 189), (197, 198)],
        needs: &[], lacks: &["avx512f"], brands: &[],
        fma: [2.0, 2.0, 0.0], muladd: [4.0, 4.0, 0.0], alu: [3.0, 3.0, 0.0], mul32: [1.0, 1.0, 0.0], mul64: Z,
        dot: [2.0, 2.0, 0.0], dot_bf16: Z, mmla: Z, mmla_bf16: Z, fp16: 0.0, amx: 0.0, note: "P-core figures (two FMA and two FADD pipes); E-cores have 4 x 128-bit FP pipes" },
    Uarch { name: "Alder Lake/Raptor Lake/Meteor Lake (P-core)", vendor: INTEL, family: 6,
        models: &[(151, 151), (154, 154), (170, 170), (172, 172), (183, 183), (186, 186), (191, 191)],
        needs: &[], lacks: &["avx512f"], brands: &[],
        fma: [2.0, 2.0, 0.0], muladd: [3.0, 3.0, 0.0], alu: [3.0, 3.0, 0.0], mul32: [1.0, 1.0, 0.0], mul64: Z,
        dot: [2.0, 2.0, 0.0], dot_bf16: Z, mmla: Z, mmla_bf16: Z, fp16: 0.0, amx: 0.0, note: "P-core figures; E-cores have 2 x 128-bit FMA units" },
    Uarch { name: "Ice Lake/Tiger Lake/Rocket Lake (client)", vendor: INTEL, family: 6, models: &[(125, 126), (140, 141), (167, 167)],
        needs: &["avx512f"], lacks: NEWER_THAN_ICL, brands: &[],
        fma: [2.0, 2.0, 1.0], muladd: [2.0, 2.0, 1.0], alu: [3.0, 3.0, 2.0], mul32: [1.0, 1.0, 0.5], mul64: [0.0, 0.0, 1.0 / 3.0],
        dot: [2.0, 2.0, 1.0], dot_bf16: Z, mmla: Z, mmla_bf16: Z, fp16: 0.0, amx: 0.0, note: "one 512-bit FMA unit (ports 0+1 fused)" },
    Uarch { name: "Skylake/Kaby Lake/Coffee Lake/Comet Lake (client)", vendor: INTEL, family: 6,
        models: &[(78, 78), (94, 94), (142, 142), (158, 158), (165, 166)],
        needs: &[], lacks: &["avx512f", "avx_vnni"], brands: &[],
        fma: [2.0, 2.0, 0.0], muladd: [2.0, 2.0, 0.0], alu: [3.0, 3.0, 0.0], mul32: [1.0, 1.0, 0.0], mul64: Z,
        dot: Z, dot_bf16: Z, mmla: Z, mmla_bf16: Z, fp16: 0.0, amx: 0.0, note: "" },
    Uarch { name: "Haswell/Broadwell", vendor: INTEL, family: 6, models: &[(60, 61), (63, 63), (69, 71), (79, 79), (86, 86)],
        needs: &[], lacks: &["avx512f", "clflushopt", "avx_vnni"], brands: &[],
        fma: [2.0, 2.0, 0.0], muladd: [2.0, 2.0, 0.0], alu: [2.0, 2.0, 0.0], mul32: [0.5, 0.5, 0.0], mul64: Z,
        dot: Z, dot_bf16: Z, mmla: Z, mmla_bf16: Z, fp16: 0.0, amx: 0.0, note: "multiplies on ports 0/1, adds on port 1 only" },
    Uarch { name: "Sandy Bridge/Ivy Bridge", vendor: INTEL, family: 6, models: &[(42, 42), (45, 45), (58, 58), (62, 62)],
        needs: &[], lacks: &["avx2", "fma"], brands: &[],
        fma: Z, muladd: [2.0, 2.0, 0.0], alu: [2.0, 0.0, 0.0], mul32: [1.0, 0.0, 0.0], mul64: Z,
        dot: Z, dot_bf16: Z, mmla: Z, mmla_bf16: Z, fp16: 0.0, amx: 0.0, note: "no FMA: one multiply (port 0) and one add (port 1) per cycle" },
    Uarch { name: "Zen 5 (mobile, 256-bit datapath)", vendor: AMD, family: 0x1a, models: &[(0x00, 0xff)],
        needs: &[], lacks: &[], brands: &["*Ryzen AI*"],
        fma: [2.0, 2.0, 1.0], muladd: [4.0, 4.0, 2.0], alu: [4.0, 4.0, 2.0], mul32: [2.0, 2.0, 1.0], mul64: [0.0, 0.0, 1.0],
        dot: [2.0, 2.0, 1.0], dot_bf16: [0.0, 0.0, 1.0], mmla: Z, mmla_bf16: Z, fp16: 0.0, amx: 0.0, note: "mobile Zen 5 runs 512-bit instructions as two 256-bit halves; vpmullq zmm one per cycle as measured on Zen 4" },
    Uarch { name: "Zen 5", vendor: AMD, family: 0x1a, models: &[(0x00, 0xff)],
        needs: &[], lacks: &[], brands: &[],
        fma: [2.0, 2.0, 2.0], muladd: [4.0, 4.0, 4.0], alu: [4.0, 4.0, 4.0], mul32: [2.0, 2.0, 2.0], mul64: [0.0, 0.0, 1.0],
        dot: [2.0, 2.0, 2.0], dot_bf16: [0.0, 0.0, 2.0], mmla: Z, mmla_bf16: Z, fp16: 0.0, amx: 0.0,
        note: "full 512-bit datapath (desktop/server): two FMA and two FADD pipes; vdpbf16ps assumed at the VNNI rate" },
    Uarch { name: "Zen 4", vendor: AMD, family: 0x19, models: &[(0x10, 0x1f), (0x60, 0x7f), (0xa0, 0xaf)],
        needs: &["avx512f"], lacks: &["avx_vnni"], brands: &[],
        fma: [2.0, 2.0, 1.0], muladd: [4.0, 4.0, 2.0], alu: [4.0, 4.0, 2.0], mul32: [2.0, 2.0, 1.0], mul64: [0.0, 0.0, 1.0],
        dot: [2.0, 2.0, 1.0], dot_bf16: [0.0, 0.0, 1.0], mmla: Z, mmla_bf16: Z, fp16: 0.0, amx: 0.0,
        note: "512-bit instructions issue as two 256-bit halves; two FMA and two FADD pipes; vpmullq zmm one per cycle (measured by the probe on the recorded Zen 4 guest; AMD's Zen 4 model in LLVM agrees)" },
    Uarch { name: "Zen 3", vendor: AMD, family: 0x19, models: &[(0x00, 0x0f), (0x20, 0x5f)],
        needs: &[], lacks: &["avx512f"], brands: &[],
        fma: [2.0, 2.0, 0.0], muladd: [4.0, 4.0, 0.0], alu: [4.0, 4.0, 0.0], mul32: [2.0, 2.0, 0.0], mul64: Z,
        dot: Z, dot_bf16: Z, mmla: Z, mmla_bf16: Z, fp16: 0.0, amx: 0.0, note: "two 256-bit FMA pipes plus two FADD pipes" },
    Uarch { name: "Zen 2", vendor: AMD, family: 0x17, models: &[(0x30, 0xff)],
        needs: &[], lacks: &["avx512f", "vaes"], brands: &[],
        fma: [2.0, 2.0, 0.0], muladd: [4.0, 4.0, 0.0], alu: [3.0, 3.0, 0.0], mul32: [0.5, 0.5, 0.0], mul64: Z,
        dot: Z, dot_bf16: Z, mmla: Z, mmla_bf16: Z, fp16: 0.0, amx: 0.0, note: "two 256-bit FMA pipes plus two FADD pipes; vpmulld one per two cycles (AMD's Zen 2 model in LLVM)" },
    Uarch { name: "Zen/Zen+", vendor: AMD, family: 0x17, models: &[(0x00, 0x2f)],
        needs: &[], lacks: &["avx512f", "vaes", "clwb"], brands: &[],
        fma: [2.0, 1.0, 0.0], muladd: [4.0, 2.0, 0.0], alu: [3.0, 1.5, 0.0], mul32: [0.5, 0.25, 0.0], mul64: Z,
        dot: Z, dot_bf16: Z, mmla: Z, mmla_bf16: Z, fp16: 0.0, amx: 0.0, note: "128-bit pipes: 256-bit instructions issue as two halves; vpmulld one per two cycles at 128 bits (AMD's Zen model in LLVM)" },
];

/// The distinct rates the table holds for a (pipe, width) on the rows of one vendor,
/// ascending (0, "absent", left out): the counts a probe may lower a table value to
/// (`rates::reconcile_with`), as a one-FMA-unit SKU of a two-unit model.
pub(crate) fn possible_rates(vendor: &str, pipe: Pipe, width: Width) -> Vec<f64> {
    // The Arm rows live in their own table (`uarch_arm`), all of vendor `aarch64`.
    let arm = super::uarch_arm::ARM_CORES.iter().map(|c| &c.uarch);
    let mut v: Vec<f64> = UARCHES
        .iter()
        .chain(arm)
        .filter(|u| u.vendor == vendor)
        .map(|u| u.rate(pipe, width))
        .filter(|r| *r > 0.0)
        .collect();
    v.sort_by(f64::total_cmp);
    v.dedup();
    v
}

/// Row used when nothing matches: every rate unknown, so peaks say `unknown`.
pub(crate) static UNKNOWN: Uarch = Uarch {
    name: "unknown",
    note: "microarchitecture not in the table; give peaks with --peak",
    ..Uarch::NONE
};

impl Identification {
    /// The row this identification chose ([`UNKNOWN`] when none).
    pub fn uarch(&self) -> &'static Uarch {
        by_name(&self.row).unwrap_or(&UNKNOWN)
    }
}

/// The row with this exact name.
pub(crate) fn by_name(name: &str) -> Option<&'static Uarch> {
    UARCHES
        .iter()
        .find(|u| u.name == name)
        .or_else(|| super::uarch_arm::by_name(name).map(|c| &c.uarch))
}

fn flag_list(flags: &[&str]) -> String {
    flags.join(", ")
}

/// Every kind of core of a description with its row and its number of logical CPUs:
/// one entry per `parts` entry (aarch64 big.LITTLE), else the description's own row
/// for `cpus` CPUs.
pub fn identify_parts(d: &CpuDescription, cpus: usize) -> Vec<(Identification, usize)> {
    if d.parts.len() < 2 {
        return vec![(identify(d), cpus)];
    }
    d.parts
        .iter()
        .map(|p| (super::uarch_arm::identify(&p.vendor, p.model), p.cpus.len()))
        .collect()
}

/// Identifies the microarchitecture row of a recorded CPU (see the module docs).
pub fn identify(d: &CpuDescription) -> Identification {
    if d.arch == "aarch64" {
        // By implementer and part (MIDR): the Arm table (`uarch_arm`).
        return super::uarch_arm::identify(&d.vendor, d.model);
    }
    let model_rows: Vec<&'static Uarch> = UARCHES.iter().filter(|u| u.model_matches(d)).collect();
    let id_words = if d.arch == "aarch64" {
        format!("part 0x{:03x}", d.model)
    } else {
        format!("family {} model {}", d.family, d.model)
    };
    if let Some(u) = model_rows.iter().find(|u| u.fits(d)) {
        let mut evidence = format!("chosen by {id_words}");
        let mut agree: Vec<String> = u.needs.iter().map(|f| format!("has {f}")).collect();
        agree.extend(u.lacks.iter().take(3).map(|f| format!("no {f}")));
        if !agree.is_empty() {
            evidence.push_str(&format!(", features agree ({})", agree.join(", ")));
        }
        if !u.brands.is_empty() {
            evidence.push_str(&format!(", brand '{}' names this SKU", d.brand));
        }
        return Identification {
            row: u.name.to_string(),
            by: "model".into(),
            evidence,
            model_overruled: None,
        };
    }
    // The model named a row (ignoring brand-only variants) whose features the CPU
    // contradicts: say so, then decide by the features.
    let model_overruled = model_rows
        .iter()
        .find(|u| u.brands.is_empty() || brand_matches(u.brands, &d.brand))
        .map(|u| {
            let extra = u.contradictions(d);
            let missing = u.missing(d);
            let why = if !extra.is_empty() {
                format!("the CPU has {}, which that row cannot have", flag_list(&extra))
            } else {
                format!("the CPU lacks {}, which that row always has", flag_list(&missing))
            };
            format!(
                "{id_words} names '{}' but {why}: the model number is overruled (hypervisors mask it)",
                u.name
            )
        });
    match infer(d) {
        Some((u, reason)) => Identification {
            row: u.name.to_string(),
            by: "inferred".into(),
            evidence: format!("inferred from the features: {reason}"),
            model_overruled,
        },
        None => Identification {
            row: UNKNOWN.name.to_string(),
            by: "none".into(),
            evidence: format!(
                "no row fits {} {id_words} with these features (give peaks with --peak)",
                d.vendor
            ),
            model_overruled,
        },
    }
}

/// Infers the row from the feature set (and, where features cannot tell server from
/// client cores, from the L2 size and the brand), with the reason.
pub(crate) fn infer(d: &CpuDescription) -> Option<(&'static Uarch, String)> {
    let row = |name: &str, why: String| by_name(name).map(|u| (u, why));
    let has = |f: &str| d.has(f);
    let l2 = d.cache_bytes(2).unwrap_or(0);
    if d.arch == "aarch64" {
        return row(
            super::uarch_arm::GENERIC,
            format!("aarch64 part 0x{:03x} is not in the table", d.model),
        );
    }
    match d.vendor.as_str() {
        AMD | "HygonGenuine" => {
            let zen5_brand = brand_matches(&["*Ryzen AI*"], &d.brand);
            match d.family {
                0x1a if zen5_brand => row(
                    "Zen 5 (mobile, 256-bit datapath)",
                    "AMD family 26 (Zen 5) with a Ryzen AI brand".into(),
                ),
                0x1a => row("Zen 5", "AMD family 26 is Zen 5".into()),
                0x19 if has("avx512f") => row(
                    "Zen 4",
                    "AMD family 25 with avx512f is Zen 4 (Zen 3 has no AVX-512)".into(),
                ),
                0x19 => row("Zen 3", "AMD family 25 without avx512f is Zen 3".into()),
                0x17 | 0x18 if has("clwb") => row(
                    "Zen 2",
                    "AMD family 23 with clwb is Zen 2 (Zen/Zen+ lack it)".into(),
                ),
                0x17 | 0x18 => row("Zen/Zen+", "AMD family 23 without clwb is Zen/Zen+".into()),
                f if f > 0x1a && has("avx512f") => row(
                    "Zen 5",
                    format!("AMD family {f} is newer than the table; assumed at least Zen 5"),
                ),
                _ => None,
            }
        }
        _ => infer_intel_like(d, l2),
    }
}

fn infer_intel_like(d: &CpuDescription, l2: u64) -> Option<(&'static Uarch, String)> {
    let row = |name: &str, why: &str| by_name(name).map(|u| (u, why.to_string()));
    let has = |f: &str| d.has(f);
    const MIB: u64 = 1 << 20;
    if has("amx_tile") && has("amx_fp16") {
        return row(
            "Granite Rapids",
            "amx_tile with amx_fp16 ⇒ Granite-Rapids-class server core",
        );
    }
    if has("amx_tile") {
        return row(
            "Sapphire Rapids/Emerald Rapids",
            "amx_tile ⇒ Sapphire-Rapids-class server core (Golden Cove, two 512-bit FMA units)",
        );
    }
    if has("avx512_fp16") {
        return if l2 >= 2 * MIB || d.hypervisor.is_some() {
            row(
                "Sapphire Rapids/Emerald Rapids",
                "avx512_fp16 without AMX, with a 2 MiB L2 or under a hypervisor ⇒ Sapphire-Rapids-class server core whose AMX is not exposed",
            )
        } else {
            row(
                "Alder Lake P-core with AVX-512 enabled",
                "avx512_fp16 without AMX on bare metal with a small L2 ⇒ Golden Cove client core",
            )
        };
    }
    if has("avx512f") {
        if has("avx512_vp2intersect") {
            return row(
                "Ice Lake/Tiger Lake/Rocket Lake (client)",
                "avx512_vp2intersect ⇒ Tiger Lake client core (one 512-bit FMA unit)",
            );
        }
        if has("avx512_vbmi2") {
            return if l2 >= MIB || d.hypervisor.is_some() {
                row(
                    "Ice Lake-SP",
                    "avx512_vbmi2 without BF16, with a ≥ 1 MiB L2 or under a hypervisor ⇒ Ice-Lake-SP-class server core",
                )
            } else {
                row(
                    "Ice Lake/Tiger Lake/Rocket Lake (client)",
                    "avx512_vbmi2 without BF16 on bare metal with a 512 KiB L2 ⇒ Ice Lake/Rocket Lake client core",
                )
            };
        }
        if brand_matches(ONE_FMA_XEONS, &d.brand) {
            return row(
                "Skylake-SP/Cascade Lake (one 512-bit FMA unit)",
                "AVX-512 without VBMI ⇒ Skylake-SP class, and the brand names a one-FMA-unit SKU",
            );
        }
        return row(
            "Skylake-SP/Cascade Lake/Cooper Lake",
            "AVX-512 without VBMI/FP16 ⇒ Skylake-SP-class server core (assumed two 512-bit FMA units)",
        );
    }
    if has("avx_vnni") {
        return row(
            "Alder Lake/Raptor Lake/Meteor Lake (P-core)",
            "avx_vnni without AVX-512 ⇒ Golden-Cove-class client core",
        );
    }
    if has("avx2") && has("fma") && has("clflushopt") {
        return row(
            "Skylake/Kaby Lake/Coffee Lake/Comet Lake (client)",
            "AVX2+FMA with clflushopt, no AVX-512 ⇒ Skylake-class core",
        );
    }
    if has("avx2") && has("fma") {
        return row(
            "Haswell/Broadwell",
            "AVX2+FMA without clflushopt ⇒ Haswell-class core",
        );
    }
    if has("avx") {
        return row(
            "Sandy Bridge/Ivy Bridge",
            "AVX without AVX2/FMA ⇒ Sandy-Bridge-class core",
        );
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn desc(vendor: &str, family: u32, model: u32, flags: &str) -> CpuDescription {
        CpuDescription {
            arch: "x86_64".into(),
            vendor: vendor.into(),
            family,
            model,
            flags: flags.split_whitespace().map(String::from).collect(),
            ..CpuDescription::default()
        }
    }

    #[test]
    fn model_and_features_agree() {
        let id = identify(&desc(AMD, 25, 1, "sse2 avx avx2 fma vaes"));
        assert_eq!(id.row, "Zen 3");
        assert_eq!(id.by, "model");
        assert!(id.evidence.contains("family 25 model 1"), "{}", id.evidence);
        assert_eq!(id.model_overruled, None);
        assert_eq!(
            identify(&desc(INTEL, 6, 207, "avx512f amx_tile")).row,
            "Sapphire Rapids/Emerald Rapids"
        );
    }

    #[test]
    fn a_contradicted_model_loses() {
        let id = identify(&desc(
            INTEL,
            6,
            167,
            "avx2 fma avx512f avx512_bf16 avx512_fp16 amx_tile",
        ));
        assert_eq!(id.row, "Sapphire Rapids/Emerald Rapids");
        assert_eq!(id.by, "inferred");
        let o = id.model_overruled.unwrap();
        assert!(
            o.contains("model 167 names 'Ice Lake/Tiger Lake/Rocket Lake (client)'"),
            "{o}"
        );
        assert!(o.contains("avx512_bf16, avx512_fp16, amx_tile"), "{o}");
        // AMD family 25 model 1 (a Zen 3 number) with AVX-512: Zen 4.
        let z = identify(&desc(AMD, 25, 1, "avx2 fma avx512f"));
        assert_eq!(z.row, "Zen 4");
        assert!(z.model_overruled.is_some());
    }

    #[test]
    fn unknown_models_are_inferred_or_unknown() {
        assert_eq!(
            identify(&desc(INTEL, 6, 250, "avx512f amx_tile amx_fp16")).row,
            "Granite Rapids"
        );
        assert_eq!(identify(&desc(INTEL, 6, 1, "sse2")).row, "unknown");
        assert_eq!(identify(&desc(INTEL, 6, 1, "sse2")).by, "none");
        let mut arm = desc("ARM", 0, 0xd0c, "fp asimd");
        arm.arch = "aarch64".into();
        assert_eq!(identify(&arm).row, "Neoverse N1");
        arm.model = 0xfff;
        assert_eq!(identify(&arm).row, "generic aarch64 (2 x 128-bit FMA)");
    }

    #[test]
    fn brand_selects_the_one_fma_sku() {
        let mut d = desc(INTEL, 6, 85, "avx2 fma avx512f avx512_vnni");
        d.brand = "Intel(R) Xeon(R) Gold 5218 CPU @ 2.30GHz".into();
        assert_eq!(identify(&d).uarch().fma_units_512(), 1.0);
        d.brand = "Intel(R) Xeon(R) Gold 5222 CPU @ 3.80GHz".into();
        assert_eq!(identify(&d).uarch().fma_units_512(), 2.0);
    }

    #[test]
    fn rates() {
        let spr = by_name("Sapphire Rapids/Emerald Rapids").unwrap();
        assert_eq!(spr.rate(Pipe::Fma, Width::V512), 2.0);
        assert_eq!(spr.rate(Pipe::MulAdd, Width::V256), 3.0);
        assert_eq!(spr.rate(Pipe::Amx, Width::Tile), 1.0 / 16.0);
        assert_eq!(spr.rate(Pipe::Alu, Width::V256), 3.0);
        assert_eq!(UNKNOWN.rate(Pipe::Fma, Width::Scalar), 0.0);
        let zen3 = by_name("Zen 3").unwrap();
        assert!(zen3.rate(Pipe::MulAdd, Width::V256) > zen3.rate(Pipe::Fma, Width::V256));
    }

    #[test]
    fn every_named_inference_target_exists() {
        // infer() looks rows up by name: a renamed row must not silently become None.
        for (v, fam, flags) in [
            (INTEL, 6, "amx_tile amx_fp16"),
            (INTEL, 6, "amx_tile"),
            (INTEL, 6, "avx512_fp16"),
            (INTEL, 6, "avx512f avx512_vp2intersect"),
            (INTEL, 6, "avx512f avx512_vbmi2"),
            (INTEL, 6, "avx512f"),
            (INTEL, 6, "avx_vnni"),
            (INTEL, 6, "avx2 fma clflushopt"),
            (INTEL, 6, "avx2 fma"),
            (INTEL, 6, "avx"),
            (AMD, 0x1a, ""),
            (AMD, 0x19, "avx512f"),
            (AMD, 0x19, ""),
            (AMD, 0x17, "clwb"),
            (AMD, 0x17, ""),
        ] {
            assert!(
                infer(&desc(v, fam, 0xfff, flags)).is_some(),
                "{v} {fam} {flags}"
            );
        }
    }

    /// Issue #49: every x86 row that runs the F16C loop (256-bit FMA) has an entry in
    /// `uarch_f16c.rs`, a figure or the reason there is none, and every entry names a
    /// row of this table; the rate is the row's `Pipe::F16c` at 256 bits only.
    #[test]
    fn every_row_running_the_f16c_loop_has_its_figure_or_a_reason() {
        use super::super::uarch_f16c;
        for u in UARCHES {
            let runs = u.rate(Pipe::Fma, Width::V256) > 0.0;
            assert_eq!(uarch_f16c::listed(u.name), runs, "{}", u.name);
        }
        for r in uarch_f16c::rows() {
            assert!(UARCHES.iter().any(|u| u.name == r), "{r}");
        }
        let skx = by_name("Skylake-SP/Cascade Lake/Cooper Lake").unwrap();
        assert_eq!(skx.rate(Pipe::F16c, Width::V256), 0.5);
        assert_eq!(skx.rate(Pipe::F16c, Width::V512), 0.0);
        assert_eq!(by_name("Zen 2").unwrap().rate(Pipe::F16c, Width::V256), 0.0);
    }
}
