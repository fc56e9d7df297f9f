//! 64-bit Arm identification: the Main ID Register (MIDR_EL1) of every core, the
//! feature bits the kernel hands every process (HWCAP/HWCAP2 in the auxiliary vector),
//! and whether the CPU is emulated.
//!
//! - MIDR: `/sys/devices/system/cpu/cpuN/regs/identification/midr_el1` per CPU (so a
//!   big.LITTLE machine names each kind of core), else `mrs midr_el1`, which Linux
//!   emulates for user space (and qemu-user too: `-cpu neoverse-n1` reads 0x414fd0c1).
//! - Features: HWCAP/HWCAP2 (`getauxval`), under the names Linux prints in
//!   /proc/cpuinfo's `Features` line. Not /proc/cpuinfo itself: under user-mode
//!   emulation that file is the host's.
//! - Emulation: an aarch64 process whose kernel is not aarch64 (`/proc/sys/kernel/arch`)
//!   or whose /proc/cpuinfo has no `CPU implementer` line runs under an emulator
//!   (qemu-user, binfmt_misc): its timings are the emulator's, so no clock is measured
//!   and no efficiency is claimed, while the emulated core is still identified.
//!
//! The decoding (this file's portable part) is tested on every architecture; reading
//! the live machine is aarch64-only.
// The decoding is used on aarch64 only; other builds test it.
#![cfg_attr(not(target_arch = "aarch64"), allow(dead_code))]

use serde::{Deserialize, Serialize};

/// The fields of a MIDR_EL1 value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Midr {
    /// Implementer code (0x41 Arm, 0x46 Fujitsu, 0xc0 Ampere, …).
    pub(crate) implementer: u32,
    /// Major revision (the `r` of `rNpM`).
    pub(crate) variant: u32,
    /// Primary part number (0xd0c = Neoverse N1).
    pub(crate) part: u32,
    /// Minor revision (the `p` of `rNpM`).
    pub(crate) revision: u32,
}

impl Midr {
    /// Decodes a MIDR_EL1 value.
    pub(crate) fn decode(v: u64) -> Midr {
        Midr {
            implementer: ((v >> 24) & 0xff) as u32,
            variant: ((v >> 20) & 0xf) as u32,
            part: ((v >> 4) & 0xfff) as u32,
            revision: (v & 0xf) as u32,
        }
    }
}

/// Implementer codes and the names descriptions use for them (`CpuDescription::vendor`
/// on aarch64), as Linux's and lscpu's tables name them.
pub(crate) const IMPLEMENTERS: &[(u32, &str)] = &[
    (0x00, "software (QEMU max)"),
    (0x41, "ARM"),
    (0x42, "Broadcom"),
    (0x43, "Cavium"),
    (0x46, "Fujitsu"),
    (0x48, "HiSilicon"),
    (0x4e, "NVIDIA"),
    (0x51, "Qualcomm"),
    (0x61, "Apple"),
    (0x6d, "Microsoft"),
    (0xc0, "Ampere"),
];

/// The name of an implementer code (`0x..` when unknown).
pub(crate) fn implementer_name(code: u32) -> String {
    IMPLEMENTERS
        .iter()
        .find(|(c, _)| *c == code)
        .map_or_else(|| format!("0x{code:02x}"), |(_, n)| n.to_string())
}

/// The implementer code of a name (`implementer_name`'s inverse; `0x..` accepted).
pub(crate) fn implementer_code(name: &str) -> Option<u32> {
    IMPLEMENTERS
        .iter()
        .find(|(_, n)| n.eq_ignore_ascii_case(name))
        .map(|(c, _)| *c)
        .or_else(|| u32::from_str_radix(name.strip_prefix("0x")?, 16).ok())
}

/// Linux's names of the AT_HWCAP bits (arch/arm64/include/uapi/asm/hwcap.h), bit 0 first.
const HWCAP_NAMES: &[&str] = &[
    "fp", "asimd", "evtstrm", "aes", "pmull", "sha1", "sha2", "crc32", "atomics", "fphp",
    "asimdhp", "cpuid", "asimdrdm", "jscvt", "fcma", "lrcpc", "dcpop", "sha3", "sm3", "sm4",
    "asimddp", "sha512", "sve", "asimdfhm", "dit", "uscat", "ilrcpc", "flagm", "ssbs", "sb",
    "paca", "pacg",
];

/// Linux's names of the AT_HWCAP2 bits, bit 0 first.
const HWCAP2_NAMES: &[&str] = &[
    "dcpodp",
    "sve2",
    "sveaes",
    "svepmull",
    "svebitperm",
    "svesha3",
    "svesm4",
    "flagm2",
    "frint",
    "svei8mm",
    "svef32mm",
    "svef64mm",
    "svebf16",
    "i8mm",
    "bf16",
    "dgh",
    "rng",
    "bti",
    "mte",
    "ecv",
    "afp",
    "rpres",
    "mte3",
    "sme",
];

/// The Linux flag names of HWCAP and HWCAP2 bits, in /proc/cpuinfo's order.
pub(crate) fn hwcap_flags(hwcap: u64, hwcap2: u64) -> Vec<String> {
    let names = |bits: u64, table: &[&str]| -> Vec<String> {
        table
            .iter()
            .enumerate()
            .filter(|(i, _)| bits & (1u64 << i) != 0)
            .map(|(_, n)| n.to_string())
            .collect()
    };
    let mut v = names(hwcap, HWCAP_NAMES);
    v.extend(names(hwcap2, HWCAP2_NAMES));
    v
}

/// peakbench feature names (kernel `requires`) of Linux flags on aarch64.
pub(crate) const FEATURES: &[(&str, &str)] = &[
    ("neon", "asimd"),
    ("fp16", "asimdhp"),
    ("dotprod", "asimddp"),
    ("bf16", "bf16"),
    ("i8mm", "i8mm"),
    ("sve", "sve"),
    ("sve2", "sve2"),
    ("sve-bf16", "svebf16"),
    ("sve-i8mm", "svei8mm"),
];

/// The peakbench feature names these Linux flags stand for.
pub(crate) fn features_of(flags: &[String]) -> Vec<String> {
    FEATURES
        .iter()
        .filter(|(_, l)| flags.iter().any(|f| f == l))
        .map(|(pb, _)| pb.to_string())
        .collect()
}

/// One kind of core in a machine: its MIDR fields and the logical CPUs that have it.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub(crate) struct CorePart {
    /// Implementer name (`ARM`, `Fujitsu`, …; see [`IMPLEMENTERS`]).
    pub(crate) vendor: String,
    /// Part number.
    pub(crate) model: u32,
    /// Variant (major revision).
    pub(crate) stepping: u32,
    /// Logical CPUs with this part.
    pub(crate) cpus: Vec<usize>,
}

/// Groups per-CPU MIDR values (CPU number, MIDR) into kinds of core, in order of
/// first appearance.
pub(crate) fn group_parts(midrs: &[(usize, u64)]) -> Vec<CorePart> {
    let mut parts: Vec<CorePart> = Vec::new();
    for &(cpu, v) in midrs {
        let m = Midr::decode(v);
        let vendor = implementer_name(m.implementer);
        match parts
            .iter_mut()
            .find(|p| p.vendor == vendor && p.model == m.part && p.stepping == m.variant)
        {
            Some(p) => p.cpus.push(cpu),
            None => parts.push(CorePart {
                vendor,
                model: m.part,
                stepping: m.variant,
                cpus: vec![cpu],
            }),
        }
    }
    parts
}

/// Why this aarch64 process runs under an emulator, from the kernel's architecture
/// (`/proc/sys/kernel/arch`, when readable) and /proc/cpuinfo's text; `None` when both
/// look native.
pub(crate) fn emulation_evidence(kernel_arch: Option<&str>, cpuinfo: &str) -> Option<String> {
    if let Some(a) = kernel_arch.map(str::trim).filter(|a| !a.is_empty()) {
        if a != "aarch64" && a != "arm64" {
            return Some(format!(
                "the MIDR is Arm but the kernel is {a} (/proc/sys/kernel/arch): user-mode emulation"
            ));
        }
    }
    if !cpuinfo.is_empty() && !cpuinfo.contains("CPU implementer") {
        let what = if cpuinfo.contains("vendor_id") {
            "an x86 CPU"
        } else {
            "no Arm CPU"
        };
        return Some(format!(
            "the MIDR is Arm but /proc/cpuinfo describes {what}: user-mode emulation"
        ));
    }
    None
}

/// What a live aarch64 machine says about its cores.
#[derive(Debug, Clone, Default)]
pub(crate) struct Live {
    /// Every CPU's kind of core (one entry per part).
    pub(crate) parts: Vec<CorePart>,
    /// Flags from HWCAP/HWCAP2, Linux names.
    pub(crate) flags: Vec<String>,
    /// Why the CPU is emulated, when it is.
    pub(crate) emulated: Option<String>,
}

/// Reads the live machine (aarch64 only; elsewhere empty).
pub(crate) fn live(cpus: &[usize]) -> Live {
    #[cfg(target_arch = "aarch64")]
    {
        let sysfs = |c: usize| -> Option<u64> {
            let t = std::fs::read_to_string(format!(
                "/sys/devices/system/cpu/cpu{c}/regs/identification/midr_el1"
            ))
            .ok()?;
            u64::from_str_radix(t.trim().trim_start_matches("0x"), 16).ok()
        };
        let mut midrs: Vec<(usize, u64)> = cpus
            .iter()
            .filter_map(|&c| sysfs(c).map(|v| (c, v)))
            .collect();
        if midrs.len() != cpus.len() {
            // No sysfs registers (containers, emulators): the core this thread runs on,
            // for all of them.
            let v: u64;
            // SAFETY: Linux traps and emulates EL0 reads of MIDR_EL1 (HWCAP_CPUID);
            // qemu-user emulates it too. It reads a register and touches no memory.
            unsafe {
                std::arch::asm!("mrs {v}, midr_el1", v = out(reg) v, options(nomem, nostack));
            }
            midrs = cpus.iter().map(|&c| (c, v)).collect();
        }
        // SAFETY: getauxval only reads the process's auxiliary vector.
        let (h1, h2) = unsafe {
            (
                libc::getauxval(libc::AT_HWCAP),
                libc::getauxval(libc::AT_HWCAP2),
            )
        };
        Live {
            parts: group_parts(&midrs),
            flags: hwcap_flags(h1, h2),
            emulated: emulated(),
        }
    }
    #[cfg(not(target_arch = "aarch64"))]
    {
        let _ = cpus;
        Live::default()
    }
}

/// Why this process's CPU is emulated (read once), or `None` on a native aarch64 core
/// and on every other architecture.
pub(crate) fn emulated() -> Option<String> {
    #[cfg(target_arch = "aarch64")]
    {
        static WHY: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
        WHY.get_or_init(|| {
            let arch = std::fs::read_to_string("/proc/sys/kernel/arch").ok();
            let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
            emulation_evidence(arch.as_deref(), &cpuinfo)
        })
        .clone()
    }
    #[cfg(not(target_arch = "aarch64"))]
    {
        None
    }
}

/// What an emulated CPU's figures are worth, said wherever a peak or clock is missing.
pub(crate) const EMULATED: &str =
    "emulated CPU: figures are the emulator's, no clock, no efficiency";

/// The SVE vector length in bytes (16–256), read at run time; `None` without SVE.
pub(crate) fn sve_vector_bytes() -> Option<usize> {
    #[cfg(target_arch = "aarch64")]
    {
        static VL: std::sync::OnceLock<Option<usize>> = std::sync::OnceLock::new();
        *VL.get_or_init(|| {
            #[target_feature(enable = "sve")]
            unsafe fn cntb() -> u64 {
                let v: u64;
                std::arch::asm!("cntb {v}", v = out(reg) v, options(nomem, nostack));
                v
            }
            // SAFETY: SVE checked first; cntb only reads the vector length.
            std::arch::is_aarch64_feature_detected!("sve").then(|| unsafe { cntb() } as usize)
        })
    }
    #[cfg(not(target_arch = "aarch64"))]
    {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn midr_values_of_the_emulated_cores_decode() {
        // What qemu-aarch64 -cpu neoverse-n1 / a64fx / max / cortex-a53 read.
        let n1 = Midr::decode(0x414fd0c1);
        assert_eq!(
            (n1.implementer, n1.part, n1.variant, n1.revision),
            (0x41, 0xd0c, 4, 1)
        );
        let fx = Midr::decode(0x461f0010);
        assert_eq!((fx.implementer, fx.part), (0x46, 0x001));
        assert_eq!(implementer_name(fx.implementer), "Fujitsu");
        assert_eq!(Midr::decode(0x000f0510).implementer, 0);
        assert_eq!(Midr::decode(0x410fd034).part, 0xd03);
        assert_eq!(implementer_code("ARM"), Some(0x41));
        assert_eq!(implementer_code("0x4e"), Some(0x4e));
        assert_eq!(implementer_name(0x99), "0x99");
    }

    #[test]
    fn hwcaps_get_linux_names() {
        // qemu-aarch64 -cpu neoverse-n1 and -cpu a64fx.
        let n1 = hwcap_flags(0x119ffb, 0);
        for f in ["fp", "asimd", "asimdhp", "asimddp", "lrcpc", "dcpop"] {
            assert!(n1.contains(&f.to_string()), "{f}: {n1:?}");
        }
        assert!(!n1.contains(&"sve".to_string()));
        let fx = hwcap_flags(0x415ffb, 0);
        assert!(fx.contains(&"sve".to_string()) && !fx.contains(&"asimddp".to_string()));
        // -cpu max: SVE2, BF16, I8MM and their SVE forms.
        let max = hwcap_flags(0xecfffffb, 0x7f877fff);
        let f = features_of(&max);
        for want in [
            "neon", "fp16", "dotprod", "bf16", "i8mm", "sve", "sve2", "sve-bf16", "sve-i8mm",
        ] {
            assert!(f.contains(&want.to_string()), "{want}: {f:?}");
        }
    }

    #[test]
    fn heterogeneous_cpus_group_by_part() {
        let p = group_parts(&[
            (0, 0x411fd461),
            (1, 0x411fd461),
            (2, 0x412fd470),
            (3, 0x411fd4e0),
        ]);
        assert_eq!(p.len(), 3);
        assert_eq!(p[0].cpus, vec![0, 1]);
        assert_eq!(p[1].model, 0xd47);
        assert_eq!(p[2].cpus, vec![3]);
    }

    #[test]
    fn emulation_is_told_by_the_kernel_or_cpuinfo() {
        assert!(emulation_evidence(Some("x86_64\n"), "")
            .unwrap()
            .contains("x86_64"));
        let host = "processor\t: 0\nvendor_id\t: GenuineIntel\n";
        assert!(emulation_evidence(None, host)
            .unwrap()
            .contains("an x86 CPU"));
        let arm = "processor\t: 0\nCPU implementer\t: 0x41\nCPU part\t: 0xd0c\n";
        assert_eq!(emulation_evidence(Some("aarch64"), arm), None);
        assert_eq!(emulation_evidence(None, ""), None);
    }
}
