//! Main memory: size from /proc/meminfo; DIMM speed and channels from SMBIOS type 17
//! when readable (root, bare metal), which the memory peak needs.

use serde::{Deserialize, Serialize};

/// Detected memory.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct MemoryInfo {
    /// Total RAM in bytes.
    pub total_bytes: u64,
    /// Available RAM in bytes at detection time.
    pub available_bytes: u64,
    /// Transparent huge pages mode (`always`, `madvise`, `never`), when known.
    pub thp: Option<String>,
}

impl MemoryInfo {
    /// Reads /proc/meminfo and the THP setting.
    pub fn detect() -> MemoryInfo {
        let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
        let field = |name: &str| -> u64 {
            meminfo
                .lines()
                .find_map(|l| l.strip_prefix(name))
                .and_then(|rest| {
                    rest.trim()
                        .trim_end_matches("kB")
                        .trim()
                        .parse::<u64>()
                        .ok()
                })
                .map_or(0, |kib| kib * 1024)
        };
        let thp = std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled")
            .ok()
            .and_then(|s| {
                s.split_whitespace()
                    .find(|w| w.starts_with('['))
                    .map(|w| w.trim_matches(|c| c == '[' || c == ']').to_string())
            });
        MemoryInfo {
            total_bytes: field("MemTotal:"),
            available_bytes: field("MemAvailable:"),
            thp,
        }
    }
}
