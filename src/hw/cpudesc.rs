//! A recorded CPU description: everything the microarchitecture identification looks
//! at (`uarch::identify`), in a serde format any machine can dump (`peakbench sysinfo
//! --format json` → `host.cpu.description`) and any test can replay
//! (tests/fixtures/cpus/*.json).
//!
//! Feature flags use the names Linux prints in /proc/cpuinfo (`avx512_fp16`, `amx_tile`,
//! `avx_vnni`…), because that is what users can copy from any machine, cloud or not.
//! They describe what the CPU (or the hypervisor) *exposes*; whether this process may
//! use a feature (OS register state, AMX permission) is `CpuInfo::features`' business; `CpuInfo` (cpu.rs) builds descriptions, this file
//! knows nothing of it.

use serde::{Deserialize, Serialize};

/// One cache level as the OS reports it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub(crate) struct Cache {
    /// 1, 2, 3…
    pub(crate) level: u8,
    /// `Data`, `Instruction` or `Unified`.
    pub(crate) kind: String,
    /// Size in bytes of one instance.
    pub(crate) size_bytes: u64,
    /// How many logical CPUs share one instance.
    pub(crate) shared_by: usize,
}

/// What identification knows about a CPU.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct CpuDescription {
    /// `x86_64` or `aarch64`.
    pub arch: String,
    /// CPUID vendor (`GenuineIntel`, `AuthenticAMD`), or the implementer on aarch64
    /// (`ARM`, `Ampere`, `Apple`…).
    pub vendor: String,
    /// CPUID display family (x86); 0 on aarch64.
    pub(crate) family: u32,
    /// CPUID display model (x86); the MIDR part number on aarch64 (0xd0c = Neoverse N1).
    pub model: u32,
    /// CPUID stepping (x86); the variant/revision on aarch64.
    pub(crate) stepping: u32,
    /// Brand string (`model name`), which hypervisors often mask ("AMD EPYC").
    pub(crate) brand: String,
    /// Feature flags, Linux /proc/cpuinfo names (`flags` on x86, `Features` on aarch64).
    pub flags: Vec<String>,
    /// Caches, one entry per level and kind, sizes of one instance.
    #[serde(default)]
    pub(crate) caches: Vec<Cache>,
    /// Hypervisor vendor when running under one (`kvm`, `hyper-v`…).
    #[serde(default)]
    pub(crate) hypervisor: Option<String>,
    /// aarch64: every kind of core with its logical CPUs, from each CPU's MIDR, when
    /// the machine has more than one (big.LITTLE); empty otherwise and on x86.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) parts: Vec<super::arm::CorePart>,
}

impl CpuDescription {
    /// Whether a flag (Linux name) is present.
    pub(crate) fn has(&self, flag: &str) -> bool {
        self.flags.iter().any(|f| f == flag)
    }

    /// Size in bytes of one instance of the data/unified cache at `level`, when known.
    pub(crate) fn cache_bytes(&self, level: u8) -> Option<u64> {
        self.caches
            .iter()
            .find(|c| c.level == level && c.kind != "Instruction")
            .map(|c| c.size_bytes)
    }

    /// The peakbench feature names (as `CpuInfo::features` and kernel `requires` use
    /// them) this description's flags stand for.
    pub fn peakbench_features(&self) -> Vec<String> {
        if self.arch == "aarch64" {
            return super::arm::features_of(&self.flags);
        }
        PEAKBENCH_TO_LINUX
            .iter()
            .filter(|(_, linux)| self.has(linux))
            .map(|(pb, _)| pb.to_string())
            .chain(self.has("asimd").then(|| "neon".to_string()))
            .collect()
    }
}

/// peakbench feature name → Linux /proc/cpuinfo flag.
const PEAKBENCH_TO_LINUX: &[(&str, &str)] = &[
    ("sse2", "sse2"),
    ("avx", "avx"),
    ("fma", "fma"),
    ("avx2", "avx2"),
    ("f16c", "f16c"),
    ("avx512f", "avx512f"),
    ("avx512dq", "avx512dq"),
    ("avx512bw", "avx512bw"),
    ("avx512vl", "avx512vl"),
    ("avx512vnni", "avx512_vnni"),
    ("avx512bf16", "avx512_bf16"),
    ("avx512fp16", "avx512_fp16"),
    ("avxvnni", "avx_vnni"),
    ("amx-tile", "amx_tile"),
    ("amx-bf16", "amx_bf16"),
    ("amx-int8", "amx_int8"),
    ("sve", "sve"),
    ("dotprod", "asimddp"),
];

/// The Linux flag name of a peakbench feature name (unknown names pass through).
pub(crate) fn linux_flag(peakbench: &str) -> String {
    PEAKBENCH_TO_LINUX
        .iter()
        .chain(super::arm::FEATURES)
        .find(|(pb, _)| *pb == peakbench)
        .map_or(peakbench, |(_, l)| l)
        .to_string()
}

pub(crate) fn cpuinfo_field(text: &str, name: &str) -> Option<String> {
    text.lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        (k.trim() == name).then(|| v.trim().to_string())
    })
}

/// Brand strings compared without the marks vendors sprinkle in: `(R)`, `(TM)`, `CPU`,
/// `Processor`, the `@ 2.10GHz` suffix and repeated spaces.
pub(crate) fn normalize_brand(brand: &str) -> String {
    let b = brand.split('@').next().unwrap_or("");
    b.replace("(R)", " ")
        .replace("(r)", " ")
        .replace("(TM)", " ")
        .replace("(tm)", " ")
        .split_whitespace()
        .filter(|w| *w != "CPU" && *w != "Processor")
        .collect::<Vec<_>>()
        .join(" ")
}

/// Glob match of a normalized brand: `*` any run, `?` one character, case-insensitive.
pub(crate) fn glob(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.to_lowercase().chars().collect();
    let t: Vec<char> = text.to_lowercase().chars().collect();
    // Iterative matcher with one backtrack point (the last `*`).
    let (mut pi, mut ti) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some((pi, ti));
            pi += 1;
        } else if let Some((sp, st)) = star {
            pi = sp + 1;
            ti = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|c| *c == '*')
}

/// Whether a brand matches a list of patterns: at least one plain pattern matches and
/// no `!`-prefixed (exception) pattern does. An empty list matches every brand.
pub(crate) fn brand_matches(patterns: &[&str], brand: &str) -> bool {
    if patterns.is_empty() {
        return true;
    }
    let b = normalize_brand(brand);
    let excluded = patterns
        .iter()
        .filter_map(|p| p.strip_prefix('!'))
        .any(|p| glob(p, &b));
    !excluded
        && patterns
            .iter()
            .filter(|p| !p.starts_with('!'))
            .any(|p| glob(p, &b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn brands_normalize_and_match() {
        assert_eq!(
            normalize_brand("Intel(R) Xeon(R) Gold 5218 CPU @ 2.30GHz"),
            "Intel Xeon Gold 5218"
        );
        assert!(glob("*Xeon Gold 52??*", "Intel Xeon Gold 5218"));
        assert!(glob("*xeon silver *", "Intel Xeon Silver 4214R"));
        assert!(!glob("*Xeon Gold 52??*", "Intel Xeon Gold 6248"));
        assert!(glob("a*b*c", "aXXbYYc"));
        assert!(!glob("a*b*c", "aXXbYY"));
        let one_fma = ["*Xeon Gold 52??*", "!*Gold 5222*"];
        assert!(brand_matches(
            &one_fma,
            "Intel(R) Xeon(R) Gold 5218 CPU @ 2.30GHz"
        ));
        assert!(!brand_matches(
            &one_fma,
            "Intel(R) Xeon(R) Gold 5222 CPU @ 3.80GHz"
        ));
        assert!(brand_matches(&[], "anything"));
    }

    #[test]
    fn feature_names_map_both_ways() {
        assert_eq!(linux_flag("amx-tile"), "amx_tile");
        assert_eq!(linux_flag("avxvnni"), "avx_vnni");
        assert_eq!(linux_flag("unknown-thing"), "unknown-thing");
        let d = CpuDescription {
            flags: ["sse2", "avx", "avx2", "fma", "avx512_fp16", "amx_tile"]
                .map(String::from)
                .to_vec(),
            ..CpuDescription::default()
        };
        let f = d.peakbench_features();
        assert!(f.contains(&"avx512fp16".to_string()) && f.contains(&"amx-tile".to_string()));
        assert!(!f.contains(&"avx512f".to_string()));
    }
}
