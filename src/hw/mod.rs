//! Hardware detection, done once per run and embedded in every report (`HostInfo`).
//!
//! One detector per resource (`cpu.rs`, `memory.rs`, …) and `peak.rs` for the
//! theoretical peaks with their provenance; `gpu_table.rs` holds the known GPUs'
//! datasheet figures the GPU peaks are built from.

pub(crate) mod arm;
pub(crate) mod arm_soc;
pub(crate) mod asm;
pub(crate) mod canary;
pub(crate) mod clock;
pub(crate) mod clock_choice;
pub(crate) mod clock_kinds;
pub mod cpu;
pub mod cpudesc;
pub(crate) mod disk;
pub(crate) mod emulation;
pub(crate) mod gpu;
pub(crate) mod gpu_table;
pub(crate) mod latency;
pub(crate) mod memory;
pub(crate) mod mempolicy;
pub(crate) mod net;
pub(crate) mod node_peak;
pub mod peak;
pub(crate) mod precision;
pub(crate) mod probe;
pub(crate) mod probe_arm;
mod probe_class;
mod probe_report;
mod probe_settle;
#[cfg(target_arch = "x86_64")]
mod probe_x86;
pub(crate) mod rates;
pub(crate) mod topology;
pub(crate) mod tuning;
pub mod uarch;
pub(crate) mod uarch_arm;
pub(crate) mod uarch_f16c;
pub(crate) mod uarch_row;
pub(crate) mod x86id;

use serde::{Deserialize, Serialize};

/// Everything detected about the machine, as stored in the report.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct HostInfo {
    /// Host name.
    pub(crate) hostname: String,
    /// Operating system name and version (`PRETTY_NAME` of /etc/os-release).
    pub(crate) os: String,
    /// Kernel release (`uname -r`).
    pub(crate) kernel: String,
    /// CPU architecture (`x86_64`, `aarch64`).
    pub(crate) arch: String,
    /// Hypervisor or container, when detected; `none` on bare metal.
    pub(crate) virtualization: String,
    /// The CPU.
    pub(crate) cpu: cpu::CpuInfo,
    /// Main memory.
    pub(crate) memory: memory::MemoryInfo,
    /// Measured core clocks.
    pub(crate) clock: clock::ClockInfo,
    /// Block devices (loop, ram and zram excluded).
    #[serde(default)]
    pub(crate) disks: Vec<disk::DiskInfo>,
    /// GPU adapters (wgpu), or why there are none.
    #[serde(default)]
    pub(crate) gpus: gpu::GpuDetection,
    /// The limits of the container (cgroup) this run was in, when any is set (#47);
    /// absent in older reports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) cgroup: Option<crate::measure::cgroup::CgroupLimits>,
    /// NUMA nodes, sockets, L3 domains and SMT siblings from sysfs (#47); absent in
    /// older reports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) topology: Option<topology::Topology>,
    /// What the run was given: governor, boost, p-state mode, SMT, isolated CPUs (#47
    /// item 5); absent in older reports and in fixtures written before it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) tuning: Option<tuning::Tuning>,
    /// The energy counters the run could read, or why none (#47 item 4); absent in
    /// older reports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) energy: Option<crate::measure::energy::EnergyInfo>,
}

impl HostInfo {
    /// Detects the host. `measure_clock` runs the clock chains (≈ 0.3 s); without it the
    /// clock fields are empty (used by tests that need speed, not the clock).
    pub fn detect(measure_clock: bool) -> HostInfo {
        let mut cpu = cpu::CpuInfo::detect();
        if measure_clock {
            // Measured runs reconcile the table's rates with what this core retires.
            cpu.probed = probe::probe(&cpu).rates();
        }
        let clock = if measure_clock {
            clock::ClockInfo::measure(&cpu)
        } else {
            clock::ClockInfo::default()
        };
        let cgroup = crate::measure::cgroup::limits();
        let mut memory = memory::MemoryInfo::detect();
        // A container's memory limit is the machine's memory: sizes fit what it leaves.
        if let Some(room) = cgroup.as_ref().and_then(|c| c.memory_room()) {
            memory.available_bytes = match memory.available_bytes {
                0 => room,
                a => a.min(room),
            };
        }
        HostInfo {
            hostname: hostname(),
            os: os_name(),
            kernel: uname_release(),
            arch: std::env::consts::ARCH.to_string(),
            virtualization: virtualization(&cpu),
            memory,
            cpu,
            clock,
            disks: disk::detect_all(),
            gpus: gpu::detect(),
            cgroup,
            topology: topology::detect(),
            tuning: Some(tuning::Tuning::detect()),
            energy: Some(crate::measure::energy::machine().info()),
        }
    }
}

/// This machine's hostname (the kernel's, else `$HOSTNAME`, else `localhost`).
pub(crate) fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|s| s.trim().to_string())
        .ok()
        .filter(|s| !s.is_empty())
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_else(|| "localhost".to_string())
}

fn os_name() -> String {
    std::fs::read_to_string("/etc/os-release")
        .ok()
        .and_then(|t| {
            t.lines()
                .find_map(|l| l.strip_prefix("PRETTY_NAME="))
                .map(|v| v.trim_matches('"').to_string())
        })
        .unwrap_or_else(|| std::env::consts::OS.to_string())
}

fn uname_release() -> String {
    std::fs::read_to_string("/proc/sys/kernel/osrelease")
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|_| "unknown".to_string())
}

/// Hypervisor from CPUID (the hypervisor bit and vendor leaf) or DMI, container from
/// the usual marker files.
fn virtualization(cpu: &cpu::CpuInfo) -> String {
    // Emulation first: qemu-user's CPUID sets the hypervisor bit of the model it shows.
    if cpu.emulated.is_some() {
        return "emulated CPU (user-mode emulation, e.g. qemu-user)".to_string();
    }
    if let Some(h) = &cpu.hypervisor {
        return h.clone();
    }
    if std::path::Path::new("/.dockerenv").exists() {
        return "container (docker)".to_string();
    }
    if let Ok(v) = std::fs::read_to_string("/run/systemd/container") {
        return format!("container ({})", v.trim());
    }
    "none".to_string()
}
