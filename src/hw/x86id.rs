//! x86-64 identification from the executable CPUID, and whether the CPU is emulated.
//!
//! CPUID, executed by this process, is the authority for what can run here: it is what
//! the kernels' runtime checks read. /proc/cpuinfo is the kernel's view of the same CPU
//! on a real machine or a system VM (the guest kernel reads the guest's CPUID), but under
//! user-mode emulation (`qemu-x86_64 -cpu Haswell`) it is the *host's* file while CPUID
//! is the emulated model's. So when the two disagree in a way no kernel produces, the
//! CPU is emulated: its timings are the emulator's (no clock, no efficiency, per-cycle
//! peaks only) and the core is named from CPUID alone.
//!
//! What counts as a disagreement ([`emulation_evidence`]), each something a kernel
//! cannot cause:
//! - the kernel is not x86 (`/proc/sys/kernel/arch`) or /proc/cpuinfo describes no x86
//!   CPU (an x86 binary on an Arm host);
//! - CPUID's vendor, family/model or brand string is on no CPU /proc/cpuinfo lists (the
//!   kernel prints those from the same CPUID);
//! - /proc/cpuinfo lists an instruction-set flag ([`KERNEL_CANNOT_INVENT`]) that CPUID
//!   lacks. The other way round (CPUID has a flag /proc/cpuinfo lacks) is NOT evidence:
//!   kernels hide features (boot parameters, errata, unsupported register state).
//!
//! The decoding (this file's portable part) is tested on every architecture with
//! recorded `cpuid -r` dumps and /proc/cpuinfo files (tests/fixtures/x86-cpuid/).
// The live reading is x86-64 only; other builds test the decoding.
#![cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]

use super::cpudesc::{cpuinfo_field, CpuDescription};

/// CPUID leaves as read: (leaf, subleaf) → [eax, ebx, ecx, edx].
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Cpuid {
    leaves: Vec<((u32, u32), [u32; 4])>,
}

/// The (leaf, subleaf) pairs identification and the flags below read.
const LEAVES: &[(u32, u32)] = &[
    (0, 0),
    (1, 0),
    (7, 0),
    (7, 1),
    (0x8000_0000, 0),
    (0x8000_0001, 0),
    (0x8000_0002, 0),
    (0x8000_0003, 0),
    (0x8000_0004, 0),
];

const EAX: usize = 0;
const EBX: usize = 1;
const ECX: usize = 2;
const EDX: usize = 3;

/// Linux's /proc/cpuinfo name of a CPUID bit: (name, leaf, subleaf, register, bit), as
/// arch/x86/include/asm/cpufeatures.h names them.
#[rustfmt::skip]
const FLAG_BITS: &[(&str, u32, u32, usize, u32)] = &[
    ("sse", 1, 0, EDX, 25), ("sse2", 1, 0, EDX, 26),
    ("pni", 1, 0, ECX, 0), ("pclmulqdq", 1, 0, ECX, 1), ("ssse3", 1, 0, ECX, 9),
    ("fma", 1, 0, ECX, 12), ("cx16", 1, 0, ECX, 13), ("sse4_1", 1, 0, ECX, 19),
    ("sse4_2", 1, 0, ECX, 20), ("movbe", 1, 0, ECX, 22), ("popcnt", 1, 0, ECX, 23),
    ("aes", 1, 0, ECX, 25), ("xsave", 1, 0, ECX, 26), ("avx", 1, 0, ECX, 28),
    ("f16c", 1, 0, ECX, 29), ("rdrand", 1, 0, ECX, 30), ("hypervisor", 1, 0, ECX, 31),
    ("fsgsbase", 7, 0, EBX, 0), ("bmi1", 7, 0, EBX, 3), ("avx2", 7, 0, EBX, 5),
    ("bmi2", 7, 0, EBX, 8), ("erms", 7, 0, EBX, 9), ("avx512f", 7, 0, EBX, 16),
    ("avx512dq", 7, 0, EBX, 17), ("rdseed", 7, 0, EBX, 18), ("adx", 7, 0, EBX, 19),
    ("avx512ifma", 7, 0, EBX, 21), ("clflushopt", 7, 0, EBX, 23), ("clwb", 7, 0, EBX, 24),
    ("avx512cd", 7, 0, EBX, 28), ("sha_ni", 7, 0, EBX, 29), ("avx512bw", 7, 0, EBX, 30),
    ("avx512vl", 7, 0, EBX, 31),
    ("avx512vbmi", 7, 0, ECX, 1), ("avx512_vbmi2", 7, 0, ECX, 6), ("gfni", 7, 0, ECX, 8),
    ("vaes", 7, 0, ECX, 9), ("vpclmulqdq", 7, 0, ECX, 10), ("avx512_vnni", 7, 0, ECX, 11),
    ("avx512_bitalg", 7, 0, ECX, 12), ("avx512_vpopcntdq", 7, 0, ECX, 14),
    ("amx_bf16", 7, 0, EDX, 22), ("avx512_fp16", 7, 0, EDX, 23), ("amx_tile", 7, 0, EDX, 24),
    ("amx_int8", 7, 0, EDX, 25),
    ("avx_vnni", 7, 1, EAX, 4), ("avx512_bf16", 7, 1, EAX, 5), ("amx_fp16", 7, 1, EAX, 21),
    ("lahf_lm", 0x8000_0001, 0, ECX, 0), ("abm", 0x8000_0001, 0, ECX, 5),
    ("sse4a", 0x8000_0001, 0, ECX, 6), ("lm", 0x8000_0001, 0, EDX, 29),
];

/// Instruction-set flags a kernel prints only when CPUID has them: listed in
/// /proc/cpuinfo but absent from this process's CPUID means the file is another CPU's.
/// (Not `hypervisor`, nor flags a late microcode load may withdraw, such as `rtm`.)
pub(crate) const KERNEL_CANNOT_INVENT: &[&str] = &[
    "ssse3",
    "sse4_1",
    "sse4_2",
    "aes",
    "pclmulqdq",
    "avx",
    "f16c",
    "fma",
    "bmi1",
    "bmi2",
    "avx2",
    "sha_ni",
    "avx512f",
    "avx512dq",
    "avx512cd",
    "avx512bw",
    "avx512vl",
    "avx512_vnni",
    "avx512_bf16",
    "avx512_fp16",
    "amx_tile",
    "avx_vnni",
];

impl Cpuid {
    /// The leaves of the CPU this process runs on (x86-64; elsewhere empty).
    pub(crate) fn live() -> Cpuid {
        #[cfg(target_arch = "x86_64")]
        {
            // The intrinsic is safe from Rust 1.94 on; the block keeps the crate building
            // on 1.90, its `rust-version`.
            #[allow(unused_unsafe)]
            let read = |l: u32, s: u32| {
                // SAFETY: CPUID exists on every x86-64 CPU; a leaf above the maximum
                // returns some other leaf's data, which `get` avoids by checking the
                // maximum first.
                let r = unsafe { std::arch::x86_64::__cpuid_count(l, s) };
                ((l, s), [r.eax, r.ebx, r.ecx, r.edx])
            };
            Cpuid {
                leaves: LEAVES.iter().map(|&(l, s)| read(l, s)).collect(),
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            Cpuid::default()
        }
    }

    /// The first CPU of a `cpuid -r` dump (lines `0x00000007 0x00: eax=… ebx=… ecx=…
    /// edx=…`), as tests/fixtures/x86-cpuid holds them.
    #[cfg(test)]
    pub(crate) fn parse_raw(text: &str) -> Cpuid {
        let mut leaves = Vec::new();
        for (n, line) in text.lines().enumerate() {
            let t = line.trim();
            if t.starts_with("CPU ") && n > 0 {
                break; // the second CPU: the first is enough
            }
            let hex = |s: &str| u32::from_str_radix(s.trim_start_matches("0x"), 16).ok();
            let mut w = t.split_whitespace();
            let (Some(l), Some(s)) = (w.next().and_then(hex), w.next()) else {
                continue;
            };
            let Some(s) = hex(s.trim_end_matches(':')) else {
                continue;
            };
            let mut regs = [0u32; 4];
            let mut got = 0;
            for kv in w {
                let Some((k, v)) = kv.split_once('=') else {
                    continue;
                };
                let i = ["eax", "ebx", "ecx", "edx"].iter().position(|r| *r == k);
                if let (Some(i), Some(v)) = (i, hex(v)) {
                    regs[i] = v;
                    got += 1;
                }
            }
            if got == 4 {
                leaves.push(((l, s), regs));
            }
        }
        Cpuid { leaves }
    }

    /// A leaf's registers; zeros for a leaf above the CPU's maximum or not recorded.
    fn get(&self, leaf: u32, sub: u32) -> [u32; 4] {
        let max = if leaf >= 0x8000_0000 {
            self.raw(0x8000_0000, 0)[EAX]
        } else {
            self.raw(0, 0)[EAX]
        };
        if leaf > max {
            return [0; 4];
        }
        self.raw(leaf, sub)
    }

    fn raw(&self, leaf: u32, sub: u32) -> [u32; 4] {
        self.leaves
            .iter()
            .find(|(k, _)| *k == (leaf, sub))
            .map_or([0; 4], |(_, r)| *r)
    }

    /// Whether anything was read.
    pub(crate) fn is_empty(&self) -> bool {
        self.leaves.is_empty()
    }

    /// The vendor string (`GenuineIntel`, `AuthenticAMD`, …).
    pub(crate) fn vendor(&self) -> String {
        let r = self.raw(0, 0);
        let bytes: Vec<u8> = [r[EBX], r[EDX], r[ECX]]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        String::from_utf8_lossy(&bytes)
            .trim_end_matches('\0')
            .to_string()
    }

    /// Display family, model and stepping, as Linux computes them.
    pub(crate) fn family_model_stepping(&self) -> (u32, u32, u32) {
        let a = self.get(1, 0)[EAX];
        let base_family = (a >> 8) & 0xf;
        let family = if base_family == 0xf {
            base_family + ((a >> 20) & 0xff)
        } else {
            base_family
        };
        let mut model = (a >> 4) & 0xf;
        if base_family >= 6 {
            model |= ((a >> 16) & 0xf) << 4;
        }
        (family, model, a & 0xf)
    }

    /// The brand string, trimmed; `None` when the CPU has none.
    pub(crate) fn brand(&self) -> Option<String> {
        let bytes: Vec<u8> = (0x8000_0002..=0x8000_0004)
            .flat_map(|l| self.get(l, 0))
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let s = String::from_utf8_lossy(&bytes);
        let s = s.split('\0').next().unwrap_or("").trim().to_string();
        (!s.is_empty()).then_some(s)
    }

    /// The flags of [`FLAG_BITS`] this CPUID has, under Linux's names.
    pub(crate) fn flags(&self) -> Vec<String> {
        FLAG_BITS
            .iter()
            .filter(|&&(_, l, s, r, b)| self.get(l, s)[r] & (1 << b) != 0)
            .map(|(n, ..)| n.to_string())
            .collect()
    }

    /// The description identification reads, from CPUID alone (an emulated CPU's:
    /// /proc/cpuinfo there is the host's); caches and the hypervisor are left empty.
    pub(crate) fn description(&self) -> CpuDescription {
        let (family, model, stepping) = self.family_model_stepping();
        CpuDescription {
            arch: "x86_64".into(),
            vendor: self.vendor(),
            family,
            model,
            stepping,
            brand: self.brand().unwrap_or_default(),
            flags: self.flags(),
            ..CpuDescription::default()
        }
    }
}

/// Why this x86 process runs under an emulator, from its CPUID, the kernel's
/// architecture (`/proc/sys/kernel/arch`, when readable) and /proc/cpuinfo's text;
/// `None` when they agree (a real machine or a system VM) or there is nothing to compare.
pub(crate) fn emulation_evidence(
    cpuid: &Cpuid,
    kernel_arch: Option<&str>,
    cpuinfo: &str,
) -> Option<String> {
    if let Some(a) = kernel_arch.map(str::trim).filter(|a| !a.is_empty()) {
        if a != "x86_64" && a != "i686" && a != "i386" {
            return Some(format!(
                "CPUID answers but the kernel is {a} (/proc/sys/kernel/arch): user-mode emulation"
            ));
        }
    }
    if cpuid.is_empty() || cpuinfo.trim().is_empty() {
        return None;
    }
    let vendor = cpuid.vendor();
    let (family, model, _) = cpuid.family_model_stepping();
    let host = HOST_CPUINFO;
    let cpus = processors(cpuinfo);
    if cpus.iter().all(|p| cpuinfo_field(p, "vendor_id").is_none()) {
        return Some(format!(
            "CPUID says {vendor} but {host} describes no x86 CPU: user-mode emulation"
        ));
    }
    let same = |p: &&str, key: &str, want: &str| cpuinfo_field(p, key).as_deref() == Some(want);
    if !cpus.iter().any(|p| same(p, "vendor_id", &vendor)) {
        let theirs = cpuinfo_field(cpus[0], "vendor_id").unwrap_or_default();
        return Some(format!(
            "CPUID says {vendor} but {host} says {theirs}: user-mode emulation"
        ));
    }
    let (f, m) = (family.to_string(), model.to_string());
    if !cpus
        .iter()
        .any(|p| same(p, "cpu family", &f) && same(p, "model", &m))
    {
        let theirs = |k: &str| cpuinfo_field(cpus[0], k).unwrap_or_default();
        return Some(format!(
            "CPUID says family {family} model {model} but {host} says family {} model {}: user-mode emulation",
            theirs("cpu family"),
            theirs("model")
        ));
    }
    if let Some(b) = cpuid.brand() {
        let norm = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
        let names: Vec<String> = cpus
            .iter()
            .filter_map(|p| cpuinfo_field(p, "model name"))
            .collect();
        if !names.is_empty() && !names.iter().any(|n| norm(n) == norm(&b)) {
            return Some(format!(
                "CPUID names the CPU '{b}' but {host} names it '{}': user-mode emulation",
                names[0]
            ));
        }
    }
    let have = cpuid.flags();
    let listed = cpuinfo_field(cpus[0], "flags").unwrap_or_default();
    let invented: Vec<&str> = listed
        .split_whitespace()
        .filter(|f| KERNEL_CANNOT_INVENT.contains(f) && !have.iter().any(|h| h == f))
        .collect();
    if !invented.is_empty() {
        return Some(format!(
            "{host} lists {} that CPUID lacks: user-mode emulation",
            invented.join(", ")
        ));
    }
    None
}

/// How the messages name /proc/cpuinfo.
const HOST_CPUINFO: &str = "/proc/cpuinfo (the host's under user-mode emulation)";

/// /proc/cpuinfo split into its processors' blocks.
fn processors(cpuinfo: &str) -> Vec<&str> {
    let v: Vec<&str> = cpuinfo
        .split("\n\n")
        .filter(|b| !b.trim().is_empty())
        .collect();
    if v.is_empty() {
        vec![cpuinfo]
    } else {
        v
    }
}

/// Why this process's x86 CPU is emulated (read once), or `None` on a real machine or a
/// system VM, and on every other architecture.
pub(crate) fn emulated() -> Option<String> {
    #[cfg(target_arch = "x86_64")]
    {
        static WHY: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
        WHY.get_or_init(|| {
            let arch = std::fs::read_to_string("/proc/sys/kernel/arch").ok();
            let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
            emulation_evidence(&Cpuid::live(), arch.as_deref(), &cpuinfo)
        })
        .clone()
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        None
    }
}

#[cfg(test)]
#[path = "x86id_tests.rs"]
mod tests;
