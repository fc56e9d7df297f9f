//! CPU detection: identity (CPUID), topology and caches (sysfs), instruction-set
//! features (runtime detection, including OS support of the register state), and the
//! order in which threads are pinned.

pub(crate) use super::cpudesc::Cache;
use super::cpudesc::{cpuinfo_field, linux_flag, CpuDescription};
use super::rates::{ProbedRate, Rates};
use super::uarch::{self, Identification};
use serde::{Deserialize, Serialize};

/// The detected CPU.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct CpuInfo {
    /// `GenuineIntel`, `AuthenticAMD`, or the implementer on aarch64.
    pub(crate) vendor: String,
    /// Brand string.
    pub(crate) model_name: String,
    /// CPUID display family (x86), 0 elsewhere.
    pub(crate) family: u32,
    /// CPUID display model (x86), 0 elsewhere.
    pub(crate) model: u32,
    /// CPUID stepping (x86), 0 elsewhere.
    pub(crate) stepping: u32,
    /// Microarchitecture from the table in `uarch.rs`, or `unknown`.
    pub(crate) microarch: String,
    /// What identification looked at, in the replayable fixture format
    /// (tests/fixtures/cpus/*.json); empty in reports written before it existed.
    #[serde(default, skip_serializing_if = "no_description")]
    pub description: CpuDescription,
    /// Which microarchitecture row was chosen and on what evidence.
    #[serde(default, skip_serializing_if = "no_identification")]
    pub identification: Identification,
    /// Execution-resource probe results per (pipe, width), reconciled with the table
    /// in every peak (`hw::rates`); empty when no probe ran.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) probed: Vec<ProbedRate>,
    /// Sockets (physical packages) among the CPUs we may run on.
    pub(crate) sockets: usize,
    /// Physical cores among the CPUs we may run on.
    pub(crate) cores: usize,
    /// Logical CPUs we may run on (the affinity mask).
    pub(crate) threads: usize,
    /// Caches, one entry per level and kind.
    pub(crate) caches: Vec<Cache>,
    /// Instruction-set features peakbench uses, usable by this process (CPU and OS).
    pub(crate) features: Vec<String>,
    /// Hypervisor vendor from CPUID, when running under one.
    pub(crate) hypervisor: Option<String>,
    /// Logical CPUs in pinning order: one per physical core first, then SMT siblings.
    pub(crate) pin_order: Vec<usize>,
    /// Under an emulator (qemu-user, aarch64 or x86-64): why it is taken for one. Its
    /// timings are the emulator's, so no clock is measured and no peak or efficiency is
    /// claimed; the core is identified from the emulated ID registers or CPUID alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) emulated: Option<String>,
    /// aarch64 with SVE: the vector length in bits (128–2048), read at run time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) sve_vector_bits: Option<u32>,
    /// aarch64: the SoC, where the firmware names it (`arm_soc.rs`); never read under
    /// an emulator, whose /sys is the host's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) soc: Option<super::arm_soc::Soc>,
}

/// Reports written before identification existed carry no description; they are
/// written back without one (`report --format json` returns the file it read).
fn no_description(d: &CpuDescription) -> bool {
    d.vendor.is_empty() && d.flags.is_empty()
}

fn no_identification(i: &Identification) -> bool {
    i.row.is_empty()
}

impl CpuInfo {
    /// Detects the CPU the process runs on.
    pub fn detect() -> CpuInfo {
        let mut info = CpuInfo {
            vendor: "unknown".into(),
            model_name: proc_cpuinfo_field("model name")
                .or_else(|| proc_cpuinfo_field("Model"))
                .unwrap_or_else(|| "unknown".into()),
            ..CpuInfo::default()
        };
        identify(&mut info);
        let (sockets, cores, pin_order) = topology();
        info.sockets = sockets;
        info.cores = cores;
        info.threads = pin_order.len();
        info.pin_order = pin_order;
        info.caches = caches();
        info.features = detect_features();
        #[cfg(target_arch = "aarch64")]
        identify_arm(&mut info);
        info.description = info.live_description();
        info.identification = uarch::identify(&info.description);
        info.microarch = info.identification.row.clone();
        if info.description.arch == "aarch64" {
            info.sve_vector_bits = super::arm::sve_vector_bytes().map(|b| b as u32 * 8);
            if info.emulated.is_none() {
                info.soc = super::arm_soc::detect(std::path::Path::new("/"));
            }
            info.model_name = arm_model_name(&info.description, info.threads);
            if let Some(soc) = &info.soc {
                info.model_name = format!("{} ({})", soc.name, info.model_name);
            }
        }
        info
    }

    /// The CPU's name with its table row when the name does not already say it:
    /// `Intel(R) Xeon(R) Gold 6248 (Skylake-SP/Cascade Lake/Cooper Lake)`, but
    /// `Neoverse N1` and `AWS Graviton2 (Neoverse N1)` once, never
    /// `Neoverse N1 (Neoverse N1)`.
    pub(crate) fn name_with_row(&self) -> String {
        if self.microarch.is_empty() || self.model_name.contains(&self.microarch) {
            self.model_name.clone()
        } else {
            format!("{} ({})", self.model_name, self.microarch)
        }
    }

    /// The description of the live machine: identity from these fields (CPUID on x86),
    /// flags from /proc/cpuinfo (the kernel's view of what the CPU exposes) or, where that
    /// is unreadable, the detected features under their Linux names.
    pub(crate) fn live_description(&self) -> CpuDescription {
        if cfg!(target_arch = "aarch64") {
            // Flags from HWCAP/HWCAP2 and every CPU's MIDR (hw::arm), never the
            // /proc/cpuinfo of an emulator's host.
            let mut cpus = self.pin_order.clone();
            cpus.sort_unstable();
            let live = super::arm::live(&cpus);
            let mut d = self.description_of_fields();
            d.flags = live.flags;
            if live.parts.len() > 1 {
                d.parts = live.parts;
            }
            return d;
        }
        if self.emulated.is_some() {
            // Under user-mode emulation /proc/cpuinfo is the host's: identity and flags
            // from the executable CPUID alone (the host's flags named qemu's Haswell
            // model after the host's AVX-512 generation).
            let mut d = self.description_of_fields();
            d.flags = super::x86id::Cpuid::live().description().flags;
            return d;
        }
        let key = "flags";
        let flags = std::fs::read_to_string("/proc/cpuinfo")
            .ok()
            .and_then(|t| cpuinfo_field(&t, key))
            .map(|v| v.split_whitespace().map(str::to_string).collect::<Vec<_>>())
            .filter(|v| !v.is_empty());
        let mut d = self.description_of_fields();
        if let Some(f) = flags {
            d.flags = f;
        }
        d
    }

    /// A description from these detected fields alone (reports written before
    /// descriptions existed): peakbench feature names are mapped to Linux names.
    pub(crate) fn description_of_fields(&self) -> CpuDescription {
        CpuDescription {
            arch: std::env::consts::ARCH.to_string(),
            vendor: self.vendor.clone(),
            family: self.family,
            model: self.model,
            stepping: self.stepping,
            brand: self.model_name.clone(),
            flags: self.features.iter().map(|f| linux_flag(f)).collect(),
            caches: self.caches.clone(),
            hypervisor: self.hypervisor.clone(),
            parts: Vec::new(),
        }
    }

    /// How the row was identified: the stored identification, or (reports and tests
    /// that build a `CpuInfo` by hand) one made from the description or the fields.
    pub(crate) fn identified(&self) -> Identification {
        if !self.identification.row.is_empty() {
            return self.identification.clone();
        }
        if !self.description.vendor.is_empty() {
            return uarch::identify(&self.description);
        }
        uarch::identify(&self.description_of_fields())
    }

    /// The per-(pipe, width) rates peaks use: the identified row with any probe results.
    pub(crate) fn rates(&self) -> Rates<'_> {
        Rates::new(&self.identified(), &self.probed)
    }

    /// Whether the CPU (and OS) supports a feature by its peakbench name.
    pub(crate) fn has(&self, feature: &str) -> bool {
        self.features.iter().any(|f| f == feature)
    }

    /// Size of the last-level cache instance, when known.
    pub(crate) fn llc_bytes(&self) -> Option<u64> {
        self.caches
            .iter()
            .filter(|c| c.kind != "Instruction")
            .max_by_key(|c| c.level)
            .map(|c| c.size_bytes)
    }
}

fn proc_cpuinfo_field(name: &str) -> Option<String> {
    let text = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    text.lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        (k.trim() == name).then(|| v.trim().to_string())
    })
}

#[cfg(target_arch = "x86_64")]
fn identify(info: &mut CpuInfo) {
    let id = raw_cpuid::CpuId::new();
    if let Some(v) = id.get_vendor_info() {
        info.vendor = v.as_str().to_string();
    }
    if let Some(f) = id.get_feature_info() {
        info.family = u32::from(f.family_id());
        info.model = u32::from(f.model_id());
        info.stepping = u32::from(f.stepping_id());
    }
    if let Some(b) = id.get_processor_brand_string() {
        let b = b.as_str().trim();
        if !b.is_empty() {
            info.model_name = b.to_string();
        }
    }
    info.emulated = super::x86id::emulated();
    if let Some(h) = id.get_hypervisor_info() {
        use raw_cpuid::Hypervisor as H;
        info.hypervisor = Some(
            match h.identify() {
                H::KVM => "kvm",
                H::VMware => "vmware",
                H::HyperV => "hyper-v",
                H::Xen => "xen",
                H::QEMU => "qemu",
                H::Bhyve => "bhyve",
                _ => "hypervisor (unknown vendor)",
            }
            .to_string(),
        );
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn identify(_info: &mut CpuInfo) {}

/// aarch64: implementer, part and variant of the first CPU's MIDR (every kind of core
/// goes into the description), HWCAP features, and whether the CPU is emulated.
#[cfg(target_arch = "aarch64")]
fn identify_arm(info: &mut CpuInfo) {
    let mut cpus = info.pin_order.clone();
    cpus.sort_unstable();
    let live = super::arm::live(&cpus);
    if let Some(p) = live.parts.first() {
        info.vendor = p.vendor.clone();
        info.model = p.model;
        info.stepping = p.stepping;
    }
    info.features = super::arm::features_of(&live.flags);
    info.emulated = live.emulated;
}

/// The aarch64 model name: the identified core(s), e.g. `Neoverse N1`, `4 x Cortex-A55
/// + 4 x Cortex-A76`, or the implementer and part when the table lacks it.
fn arm_model_name(d: &CpuDescription, cpus: usize) -> String {
    let parts = uarch::identify_parts(d, cpus);
    let name = |id: &Identification, vendor: &str, part: u32| {
        if id.by == "model" {
            id.row.clone()
        } else {
            format!("{vendor} part 0x{part:03x}")
        }
    };
    if d.parts.len() < 2 {
        return name(&parts[0].0, &d.vendor, d.model);
    }
    parts
        .iter()
        .zip(&d.parts)
        .map(|((id, n), p)| format!("{n} x {}", name(id, &p.vendor, p.model)))
        .collect::<Vec<_>>()
        .join(" + ")
}

/// (sockets, cores, pin order) over the CPUs in our affinity mask.
fn topology() -> (usize, usize, Vec<usize>) {
    let allowed = allowed_cpus();
    let read = |cpu: usize, what: &str| -> Option<i64> {
        std::fs::read_to_string(format!("/sys/devices/system/cpu/cpu{cpu}/topology/{what}"))
            .ok()?
            .trim()
            .parse()
            .ok()
    };
    let mut keyed: Vec<(i64, i64, usize)> = allowed
        .iter()
        .map(|&c| {
            (
                read(c, "physical_package_id").unwrap_or(0),
                read(c, "core_id").unwrap_or(c as i64),
                c,
            )
        })
        .collect();
    keyed.sort();
    let mut sockets: Vec<i64> = keyed.iter().map(|k| k.0).collect();
    sockets.dedup();
    let mut first = Vec::new();
    let mut rest = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for (pkg, core, cpu) in &keyed {
        if seen.insert((*pkg, *core)) {
            first.push(*cpu);
        } else {
            rest.push(*cpu);
        }
    }
    let cores = first.len();
    first.extend(rest);
    (sockets.len().max(1), cores.max(1), first)
}

/// Logical CPUs this process may run on.
pub(crate) fn allowed_cpus() -> Vec<usize> {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: cpu_set_t is plain data, filled by the kernel.
        unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) == 0 {
                let v: Vec<usize> = (0..libc::CPU_SETSIZE as usize)
                    .filter(|&c| libc::CPU_ISSET(c, &set))
                    .collect();
                if !v.is_empty() {
                    return v;
                }
            }
        }
    }
    (0..std::thread::available_parallelism().map_or(1, |n| n.get())).collect()
}

fn caches() -> Vec<Cache> {
    let mut out = Vec::new();
    for index in 0..16 {
        let dir = format!("/sys/devices/system/cpu/cpu0/cache/index{index}");
        let read = |f: &str| std::fs::read_to_string(format!("{dir}/{f}")).ok();
        let Some(level) = read("level").and_then(|s| s.trim().parse::<u8>().ok()) else {
            break;
        };
        let kind = read("type").map_or("Unified".into(), |s| s.trim().to_string());
        let size_bytes = read("size").map_or(0, |s| parse_sysfs_size(s.trim()));
        let shared_by = read("shared_cpu_list").map_or(1, |s| count_cpu_list(s.trim()));
        out.push(Cache {
            level,
            kind,
            size_bytes,
            shared_by,
        });
    }
    out
}

/// Sysfs cache sizes look like `48K`, `2048K`, `300M`.
fn parse_sysfs_size(s: &str) -> u64 {
    let (num, mult) = match s.chars().last() {
        Some('K') => (&s[..s.len() - 1], 1024),
        Some('M') => (&s[..s.len() - 1], 1024 * 1024),
        Some('G') => (&s[..s.len() - 1], 1024 * 1024 * 1024),
        _ => (s, 1),
    };
    num.parse::<u64>().unwrap_or(0) * mult
}

/// Counts the CPUs in a list like `0-3,8,10-11`.
fn count_cpu_list(s: &str) -> usize {
    s.split(',')
        .filter(|p| !p.is_empty())
        .map(|p| match p.split_once('-') {
            Some((a, b)) => {
                b.parse::<usize>()
                    .unwrap_or(0)
                    .saturating_sub(a.parse().unwrap_or(0))
                    + 1
            }
            None => 1,
        })
        .sum()
}

/// XCR0 bit `bit` set: the OS saves and restores that register state.
#[cfg(target_arch = "x86_64")]
fn xcr0_has(bits: &[u32]) -> bool {
    let id = raw_cpuid::CpuId::new();
    let osxsave = id.get_feature_info().is_some_and(|f| f.has_oxsave());
    if !osxsave {
        return false;
    }
    // SAFETY: XGETBV with ECX=0 is valid whenever OSXSAVE is set (checked above).
    let xcr0: u64 = unsafe {
        let lo: u32;
        let hi: u32;
        std::arch::asm!("xgetbv", in("ecx") 0u32, out("eax") lo, out("edx") hi,
            options(nomem, nostack, preserves_flags));
        (u64::from(hi) << 32) | u64::from(lo)
    };
    bits.iter().all(|b| xcr0 & (1u64 << b) != 0)
}

#[cfg(target_arch = "x86_64")]
fn detect_features() -> Vec<String> {
    let mut f = Vec::new();
    macro_rules! std_feature {
        ($($name:tt),*) => {$(
            if std::is_x86_feature_detected!($name) { f.push($name.to_string()); }
        )*};
    }
    std_feature!(
        "sse2",
        "avx",
        "fma",
        "avx2",
        "f16c",
        "avx512f",
        "avx512dq",
        "avx512bw",
        "avx512vl",
        "avx512vnni",
        "avx512bf16",
        "avx512fp16",
        "avxvnni"
    );
    // AMX: CPUID.(7,0):EDX bits 24 (tile), 22 (bf16), 25 (int8), and the OS must
    // manage the tile state (XCR0 bits 17 TILECFG and 18 TILEDATA). Whether Linux lets
    // *this* process use the tile data is a separate request (see bench::cpu::amx).
    // CPUID leaf 7 returns zeros on CPUs too old to have it.
    // SAFETY: CPUID exists on every x86-64 CPU. The intrinsic is safe from Rust 1.94 on;
    // the block keeps the crate building on 1.90, its `rust-version`.
    #[allow(unused_unsafe)]
    let edx = unsafe { std::arch::x86_64::__cpuid_count(7, 0) }.edx;
    if edx & (1 << 24) != 0 && xcr0_has(&[17, 18]) {
        f.push("amx-tile".to_string());
        if edx & (1 << 22) != 0 {
            f.push("amx-bf16".to_string());
        }
        if edx & (1 << 25) != 0 {
            f.push("amx-int8".to_string());
        }
    }
    f
}

/// aarch64: from HWCAP/HWCAP2, in `identify_arm`.
#[cfg(target_arch = "aarch64")]
fn detect_features() -> Vec<String> {
    Vec::new()
}

#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
fn detect_features() -> Vec<String> {
    Vec::new()
}

#[cfg(target_arch = "x86_64")]
const ARCH_REQ_XCOMP_PERM: libc::c_long = 0x1023;
#[cfg(target_arch = "x86_64")]
const XFEATURE_XTILEDATA: libc::c_long = 18;

/// Asks Linux for the AMX tile-data permission once; `Err` carries the reason.
pub(crate) fn request_amx_permission() -> Result<(), String> {
    static RESULT: std::sync::OnceLock<Result<(), String>> = std::sync::OnceLock::new();
    RESULT
        .get_or_init(|| {
            #[cfg(all(target_os = "linux", target_arch = "x86_64"))]
            {
                // SAFETY: arch_prctl with ARCH_REQ_XCOMP_PERM only changes this process's
                // permitted xstate features; it takes no pointers.
                let rc = unsafe {
                    libc::syscall(libc::SYS_arch_prctl, ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA)
                };
                if rc == 0 {
                    Ok(())
                } else {
                    Err(format!(
                        "Linux refused the AMX tile-data permission (arch_prctl ARCH_REQ_XCOMP_PERM: {})",
                        std::io::Error::last_os_error()
                    ))
                }
            }
            #[cfg(not(all(target_os = "linux", target_arch = "x86_64")))]
            {
                Err("AMX needs Linux's ARCH_REQ_XCOMP_PERM on x86-64".to_string())
            }
        })
        .clone()
}

/// The `OPENBLAS_CORETYPE` (the kernel set Debian's dynamic OpenBLAS loads) for a CPU with these features and vendor, when the
/// environment does not set one (`None`: leave OpenBLAS's own detection). The hpcc adapter
/// and the linalg library backends both set it.
pub(crate) fn openblas_coretype(features: &[String], vendor: &str) -> Option<&'static str> {
    let has = |f: &str| features.iter().any(|x| x == f);
    if has("avx512f") {
        Some("SkylakeX")
    } else if has("avx2") && has("fma") {
        Some(if vendor.contains("AMD") {
            "Zen"
        } else {
            "Haswell"
        })
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sysfs_parsing() {
        assert_eq!(parse_sysfs_size("48K"), 48 * 1024);
        assert_eq!(parse_sysfs_size("300M"), 300 << 20);
        assert_eq!(count_cpu_list("0-3,8,10-11"), 7);
        assert_eq!(count_cpu_list("5"), 1);
    }

    #[test]
    fn detects_something_consistent() {
        let c = CpuInfo::detect();
        assert!(c.threads >= 1);
        assert!(c.cores >= 1 && c.cores <= c.threads);
        assert_eq!(c.pin_order.len(), c.threads);
        #[cfg(target_arch = "x86_64")]
        assert!(c.has("sse2"));
    }

    #[test]
    fn the_live_description_has_the_identity_and_flags() {
        let info = CpuInfo::detect();
        let d = info.live_description();
        assert_eq!(d.vendor, info.vendor);
        assert_eq!(d.family, info.family);
        if cfg!(target_arch = "x86_64") {
            assert!(d.has("sse2"), "{:?}", d.flags);
        }
    }
}
