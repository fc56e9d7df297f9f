//! Main memory: size from /proc/meminfo; DIMM speed and channels from SMBIOS type 17
//! when readable (root, bare metal), which the memory peak needs.

use serde::{Deserialize, Serialize};

/// Detected memory.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub(crate) struct MemoryInfo {
    /// Total RAM in bytes.
    pub(crate) total_bytes: u64,
    /// Available RAM in bytes at detection time.
    pub(crate) available_bytes: u64,
    /// Transparent huge pages mode (`always`, `madvise`, `never`), when known.
    pub(crate) thp: Option<String>,
    /// Populated DIMMs from SMBIOS type 17 (empty when unreadable, see `smbios`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) dimms: Vec<Dimm>,
    /// Where `dimms` came from, or why SMBIOS could not be read.
    #[serde(default)]
    pub(crate) smbios: String,
}

/// One populated memory device (SMBIOS type 17).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub(crate) struct Dimm {
    /// Device locator string, e.g. `DIMM_A1`.
    pub(crate) locator: String,
    /// Size in bytes.
    pub(crate) size_bytes: u64,
    /// Configured speed in MT/s (the rated speed when the configured one is absent).
    pub(crate) speed_mts: u32,
    /// Data width in bits (64 for a DDR4 DIMM without ECC bits).
    pub(crate) data_width_bits: u32,
}

/// Where the kernel exposes the raw SMBIOS type 17 entries.
pub(crate) const SMBIOS_DIR: &str = "/sys/firmware/dmi/entries";

/// Reads every populated type 17 entry, or says why it could not.
pub(crate) fn read_dimms() -> Result<Vec<Dimm>, String> {
    let dir = std::fs::read_dir(SMBIOS_DIR).map_err(|e| {
        format!("SMBIOS unreadable ({SMBIOS_DIR}: {e}; virtual machines usually hide it)")
    })?;
    let mut out = Vec::new();
    let mut seen = 0;
    for entry in dir.flatten() {
        let name = entry.file_name().to_string_lossy().to_string();
        if !name.starts_with("17-") {
            continue;
        }
        seen += 1;
        let path = entry.path().join("raw");
        let raw = std::fs::read(&path).map_err(|e| {
            format!(
                "SMBIOS type 17 unreadable ({}: {e}; needs root)",
                path.display()
            )
        })?;
        if let Some(d) = parse_type17(&raw) {
            out.push(d);
        }
    }
    if seen == 0 {
        return Err("SMBIOS has no type 17 (memory device) entries".into());
    }
    if out.is_empty() {
        return Err(
            "SMBIOS type 17 lists no populated DIMM with a known speed (typical of VMs)".into(),
        );
    }
    out.sort_by(|a, b| a.locator.cmp(&b.locator));
    Ok(out)
}

/// Parses one raw type 17 structure (formatted area + string set, SMBIOS 3.x layout).
/// `None` for an empty slot or an unknown speed.
pub(crate) fn parse_type17(raw: &[u8]) -> Option<Dimm> {
    let len = *raw.get(1)? as usize;
    if *raw.first()? != 17 || raw.len() < len || len < 0x17 {
        return None;
    }
    let word = |o: usize| -> Option<u32> {
        (o + 2 <= len).then(|| u32::from(u16::from_le_bytes([raw[o], raw[o + 1]])))
    };
    let dword = |o: usize| -> Option<u32> {
        (o + 4 <= len).then(|| u32::from_le_bytes([raw[o], raw[o + 1], raw[o + 2], raw[o + 3]]))
    };
    let size_field = word(0x0C)?;
    let size_bytes = match size_field {
        0 | 0xFFFF => return None,
        0x7FFF => u64::from(dword(0x1C)? & 0x7FFF_FFFF) << 20,
        s if s & 0x8000 != 0 => u64::from(s & 0x7FFF) << 10,
        s => u64::from(s) << 20,
    };
    let speed = |o: usize, ext: usize| -> Option<u32> {
        match word(o)? {
            0 => None,
            0xFFFF => dword(ext).filter(|&v| v != 0),
            v => Some(v),
        }
    };
    let speed_mts = speed(0x20, 0x58).or_else(|| speed(0x15, 0x54))?;
    let data_width_bits = match word(0x0A)? {
        0 | 0xFFFF => 64,
        w => w,
    };
    // Strings follow the formatted area, NUL-terminated, numbered from 1.
    let strings: Vec<String> = raw[len..]
        .split(|&b| b == 0)
        .take_while(|s| !s.is_empty())
        .map(|s| String::from_utf8_lossy(s).into_owned())
        .collect();
    let locator = raw
        .get(0x10)
        .and_then(|&i| (i as usize).checked_sub(1))
        .and_then(|i| strings.get(i).cloned())
        .unwrap_or_default();
    Some(Dimm {
        locator,
        size_bytes,
        speed_mts,
        data_width_bits,
    })
}

/// Runs `dmidecode -t 17` (where sysfs's raw entries are unreadable but the tool works,
/// e.g. with a setuid or capability-granted dmidecode) and parses its text.
fn run_dmidecode() -> Result<Vec<Dimm>, String> {
    // Through util::process like every external program: no shell, stdin closed, and a
    // time limit, so a hung SMBIOS read cannot stall detection.
    let argv = ["dmidecode", "-t", "17"].map(String::from);
    let (out, _) = crate::util::process::capture(&argv, std::time::Duration::from_secs(10))
        .map_err(|e| format!("dmidecode -t 17 not run or failed ({e})"))?;
    let d = parse_dmidecode(&out);
    if d.is_empty() {
        return Err("dmidecode lists no populated DIMM with a known speed".into());
    }
    Ok(d)
}

/// Parses `dmidecode -t 17` text: one [`Dimm`] per populated memory device with a
/// known speed (configured speed first, else the rated one; MT/s or, in old
/// dmidecode versions, MHz), sorted by locator.
pub(crate) fn parse_dmidecode(text: &str) -> Vec<Dimm> {
    let mut out = Vec::new();
    for block in text
        .split("\nHandle ")
        .filter(|b| b.contains("Memory Device"))
    {
        let field = |name: &str| {
            block.lines().find_map(|l| {
                let (k, v) = l.trim().split_once(':')?;
                (k.trim() == name).then(|| v.trim().to_string())
            })
        };
        let number = |v: &str| v.split_whitespace().next()?.parse::<u64>().ok();
        let size_bytes = field("Size").and_then(|v| {
            let n = number(&v)?;
            let unit = v.split_whitespace().nth(1)?;
            let mult: u64 = match unit {
                "kB" | "KB" => 1 << 10,
                "MB" => 1 << 20,
                "GB" => 1 << 30,
                "TB" => 1 << 40,
                _ => return None,
            };
            Some(n * mult)
        });
        let speed = ["Configured Memory Speed", "Configured Clock Speed", "Speed"]
            .iter()
            .find_map(|k| field(k).and_then(|v| number(&v)))
            .filter(|&s| s > 0);
        let (Some(size_bytes), Some(speed)) = (size_bytes, speed) else {
            continue;
        };
        let data_width_bits = field("Data Width")
            .and_then(|v| number(&v))
            .filter(|&w| w > 0)
            .unwrap_or(64) as u32;
        out.push(Dimm {
            locator: field("Locator").unwrap_or_default(),
            size_bytes,
            speed_mts: speed as u32,
            data_width_bits,
        });
    }
    out.sort_by(|a, b| a.locator.cmp(&b.locator));
    out
}

impl MemoryInfo {
    /// Reads /proc/meminfo and the THP setting.
    pub(crate) fn detect() -> MemoryInfo {
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
        let (dimms, smbios) = match read_dimms() {
            Ok(d) => (d, format!("SMBIOS type 17 ({SMBIOS_DIR})")),
            Err(e) => match run_dmidecode() {
                Ok(d) => (d, "SMBIOS type 17 (dmidecode -t 17)".to_string()),
                Err(e2) => (Vec::new(), format!("{e}; {e2}")),
            },
        };
        MemoryInfo {
            total_bytes: field("MemTotal:"),
            available_bytes: field("MemAvailable:"),
            thp,
            dimms,
            smbios,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A DDR4-2933 16 GiB DIMM as dmidecode's raw dump shows it (SMBIOS 3.2, 0x54 long).
    fn ddr4() -> Vec<u8> {
        let mut raw = vec![0u8; 0x54];
        raw[0] = 17;
        raw[1] = 0x54;
        raw[0x08..0x0A].copy_from_slice(&72u16.to_le_bytes()); // total width incl. ECC
        raw[0x0A..0x0C].copy_from_slice(&64u16.to_le_bytes()); // data width
        raw[0x0C..0x0E].copy_from_slice(&16384u16.to_le_bytes()); // MiB
        raw[0x10] = 1; // device locator = string 1
        raw[0x15..0x17].copy_from_slice(&3200u16.to_le_bytes());
        raw[0x20..0x22].copy_from_slice(&2933u16.to_le_bytes());
        raw.extend_from_slice(b"DIMM_A1\0Bank 0\0\0");
        raw
    }

    #[test]
    fn parses_a_populated_dimm() {
        let d = parse_type17(&ddr4()).unwrap();
        assert_eq!(d.locator, "DIMM_A1");
        assert_eq!(d.size_bytes, 16 << 30);
        assert_eq!(d.speed_mts, 2933, "configured speed wins over rated");
        assert_eq!(d.data_width_bits, 64);
    }

    #[test]
    fn empty_slots_and_unknown_speeds_are_skipped() {
        let mut empty = ddr4();
        empty[0x0C] = 0;
        empty[0x0D] = 0;
        assert_eq!(parse_type17(&empty), None);
        let mut nospeed = ddr4();
        nospeed[0x15..0x17].copy_from_slice(&0u16.to_le_bytes());
        nospeed[0x20..0x22].copy_from_slice(&0u16.to_le_bytes());
        assert_eq!(parse_type17(&nospeed), None);
        assert_eq!(parse_type17(&[16, 4, 0, 0]), None);
        assert_eq!(parse_type17(&[]), None);
    }

    #[test]
    fn parses_dmidecode_text() {
        let text = include_str!("../../tests/fixtures/dmidecode-t17-2s-ddr4.txt");
        let d = parse_dmidecode(text);
        // 4 populated DIMMs of 8 slots; the empty ones say "No Module Installed".
        assert_eq!(d.len(), 4);
        assert_eq!(d[0].locator, "CPU1_DIMM_A1");
        assert_eq!(d[0].size_bytes, 32 << 30);
        assert_eq!(
            d[0].speed_mts, 2933,
            "configured speed wins over the rated 3200"
        );
        assert_eq!(
            d[0].data_width_bits, 64,
            "data width, not the 72-bit total with ECC"
        );
        // An old dmidecode prints MHz and "Configured Clock Speed".
        let old = "Handle 0x1100, DMI type 17, 40 bytes\nMemory Device\n\tData Width: 64 bits\n\tSize: 16384 MB\n\tLocator: DIMM0\n\tSpeed: 2400 MHz\n\tConfigured Clock Speed: 2133 MHz\n";
        let o = parse_dmidecode(old);
        assert_eq!(o.len(), 1);
        assert_eq!((o[0].size_bytes, o[0].speed_mts), (16 << 30, 2133));
        // A VM's devices with unknown speed give nothing (the peak is then unknown).
        let vm = "Handle 0x1100, DMI type 17, 40 bytes\nMemory Device\n\tSize: 8 GB\n\tLocator: DIMM 0\n\tSpeed: Unknown\n\tConfigured Memory Speed: Unknown\n";
        assert!(parse_dmidecode(vm).is_empty());
    }

    #[test]
    fn detect_says_where_dimms_came_from() {
        let m = MemoryInfo::detect();
        assert!(!m.smbios.is_empty());
        assert!(m.total_bytes > 0);
    }
}
