//! Block-device facts from sysfs: which device backs a path, its model, transport,
//! scheduler, block sizes, a solid-state/rotating classification *with its evidence*,
//! and the interface's theoretical bandwidth where the link can be read (NVMe PCIe link,
//! SATA link), else `unknown` with the reason.
//!
//! The backing device of a path is found the way `lsblk`/`findmnt` do: `stat(2)` gives
//! `st_dev`, `/sys/dev/block/MAJ:MIN` links to the device (or partition) in sysfs, and a
//! partition's parent directory is its whole disk. Device-mapper and md devices are
//! reported as themselves (their `slaves/` are named in the evidence).

use super::peak::Peak;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// One block device.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub(crate) struct DiskInfo {
    /// Kernel name, e.g. `nvme0n1`, `sda`, `vda`.
    pub(crate) name: String,
    /// Model string (`device/model`), empty when sysfs has none (virtio).
    pub(crate) model: String,
    /// Transport: `nvme`, `sata/ata`, `scsi`, `virtio`, `mmc`, `device-mapper`, … or `unknown`.
    pub(crate) transport: String,
    /// Capacity in bytes.
    pub(crate) size_bytes: u64,
    /// `queue/logical_block_size`: the O_DIRECT alignment unit.
    pub(crate) logical_block: u64,
    /// `queue/physical_block_size`.
    pub(crate) physical_block: u64,
    /// `queue/rotational` as the kernel reports it.
    pub(crate) rotational: Option<bool>,
    /// Active I/O scheduler (the bracketed entry of `queue/scheduler`).
    pub(crate) scheduler: String,
    /// `ssd`, `hdd` or `unknown`.
    pub(crate) class: String,
    /// Why `class` was chosen (the sysfs facts used, and their reliability).
    pub(crate) class_evidence: String,
    /// PCIe link of an NVMe controller, e.g. `8.0 GT/s PCIe x4`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) pcie_link: Option<String>,
    /// Interface bandwidth limit, B/s, with its provenance.
    pub(crate) peak: Peak,
}

fn read(p: &Path) -> Option<String> {
    std::fs::read_to_string(p)
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
}

fn read_u64(p: &Path) -> Option<u64> {
    read(p).and_then(|s| s.parse().ok())
}

/// The sysfs directory of the whole disk that holds `path` (a partition resolves to its
/// parent disk), or `None` when the path is not on a block device (tmpfs, overlay, NFS).
pub(crate) fn backing_sysfs(path: &Path) -> Option<PathBuf> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::metadata(path).ok()?;
    use std::os::unix::fs::FileTypeExt;
    // A block device names itself in st_rdev; a file names its filesystem's in st_dev.
    let dev = if meta.file_type().is_block_device() {
        meta.rdev()
    } else {
        meta.dev()
    };
    let (maj, min) = (libc::major(dev), libc::minor(dev));
    let link = PathBuf::from(format!("/sys/dev/block/{maj}:{min}"));
    let real = std::fs::canonicalize(link).ok()?;
    if real.join("partition").exists() {
        real.parent().map(Path::to_path_buf)
    } else {
        Some(real)
    }
}

/// Facts about the disk backing `path`, or `None` when there is no block device.
pub(crate) fn backing(path: &Path) -> Option<DiskInfo> {
    backing_sysfs(path).map(|d| describe(&d))
}

/// Every whole disk in `/sys/block` except loop, ram and zram devices.
pub(crate) fn detect_all() -> Vec<DiskInfo> {
    let Ok(rd) = std::fs::read_dir("/sys/block") else {
        return Vec::new();
    };
    let mut v: Vec<DiskInfo> = rd
        .flatten()
        .filter(|e| {
            let n = e.file_name().to_string_lossy().to_string();
            !(n.starts_with("loop") || n.starts_with("ram") || n.starts_with("zram"))
        })
        .filter_map(|e| std::fs::canonicalize(e.path()).ok())
        .map(|p| describe(&p))
        .collect();
    v.sort_by(|a, b| a.name.cmp(&b.name));
    v
}

fn transport(dev: &Path, name: &str) -> String {
    if name.starts_with("nvme") {
        return "nvme".into();
    }
    if name.starts_with("dm-") {
        return "device-mapper".into();
    }
    if name.starts_with("md") {
        return "md-raid".into();
    }
    let driver = std::fs::read_link(dev.join("device/driver"))
        .ok()
        .and_then(|p| p.file_name().map(|f| f.to_string_lossy().to_string()))
        .unwrap_or_default();
    let path = dev.to_string_lossy();
    if driver.starts_with("virtio") {
        "virtio".into()
    } else if path.contains("/ata") {
        "sata/ata".into()
    } else if path.contains("/usb") {
        "usb".into()
    } else if name.starts_with("mmcblk") {
        "mmc".into()
    } else if driver == "sd" || path.contains("/host") {
        "scsi".into()
    } else {
        "unknown".into()
    }
}

/// `8.0 GT/s PCIe` → 8.0; line codes: 8b/10b up to 5 GT/s, 128b/130b from 8 GT/s.
fn pcie_bytes_per_sec(speed: &str, width: u32) -> Option<f64> {
    let gt: f64 = speed.split_whitespace().next()?.parse().ok()?;
    let eff = if gt <= 5.0 { 8.0 / 10.0 } else { 128.0 / 130.0 };
    Some(gt * 1e9 * eff * width as f64 / 8.0)
}

/// The SATA link speed (`6.0 Gbps`) of the ATA port a disk hangs off.
fn sata_speed(dev: &Path) -> Option<(String, f64)> {
    let s = dev.to_string_lossy();
    let port = s.split('/').find(|c| {
        c.strip_prefix("ata")
            .is_some_and(|n| !n.is_empty() && n.chars().all(|ch| ch.is_ascii_digit()))
    })?;
    let n = &port[3..];
    let spd = read(Path::new(&format!("/sys/class/ata_link/link{n}/sata_spd")))?;
    let gbps: f64 = spd.split_whitespace().next()?.parse().ok()?;
    // SATA uses 8b/10b line coding.
    Some((spd, gbps * 1e9 * 0.8 / 8.0))
}

/// Describes one whole-disk sysfs directory.
pub(crate) fn describe(dev: &Path) -> DiskInfo {
    let name = dev
        .file_name()
        .map(|f| f.to_string_lossy().to_string())
        .unwrap_or_default();
    let q = dev.join("queue");
    let rotational = read(&q.join("rotational")).map(|s| s == "1");
    let scheduler = read(&q.join("scheduler"))
        .map(|s| {
            s.split_whitespace()
                .find(|w| w.starts_with('['))
                .map(|w| w.trim_matches(|c| c == '[' || c == ']').to_string())
                .unwrap_or(s)
        })
        .unwrap_or_default();
    let transport = transport(dev, &name);
    let model = read(&dev.join("device/model"))
        .or_else(|| read(&dev.join("device/device/model")))
        .unwrap_or_default();
    // NVMe: block/nvme0n1/device is the controller, whose `device` is the PCI function.
    let (pcie_link, pcie_peak) = if transport == "nvme" {
        let pci = dev.join("device/device");
        let speed = read(&pci.join("current_link_speed"));
        let width = read_u64(&pci.join("current_link_width"));
        match (speed, width) {
            (Some(s), Some(w)) => {
                let link = format!("{s} x{w}");
                let peak = pcie_bytes_per_sec(&s, w as u32).map(|v| Peak {
                    value: Some(v),
                    source: format!(
                        "PCIe link {link} (sysfs current_link_speed/width), after line coding"
                    ),
                });
                (Some(link), peak)
            }
            _ => (None, None),
        }
    } else {
        (None, None)
    };
    let (class, class_evidence) = classify(&transport, rotational, &dev.join("slaves"));
    let peak = if let Some(p) = pcie_peak {
        p
    } else if let Some((spd, v)) = (transport == "sata/ata").then(|| sata_speed(dev)).flatten() {
        Peak {
            value: Some(v),
            source: format!("SATA link {spd} (sysfs ata_link sata_spd), after 8b/10b coding"),
        }
    } else {
        Peak::unknown(format!(
            "unknown: no readable link speed for a {transport} device (use --peak disk=…)"
        ))
    };
    DiskInfo {
        size_bytes: read_u64(&dev.join("size")).unwrap_or(0) * 512,
        logical_block: read_u64(&q.join("logical_block_size")).unwrap_or(512),
        physical_block: read_u64(&q.join("physical_block_size")).unwrap_or(512),
        name,
        model,
        transport,
        rotational,
        scheduler,
        class,
        class_evidence,
        pcie_link,
        peak,
    }
}

/// One line for `sysinfo`: transport, model, size, blocks, scheduler, class and peak.
pub(crate) fn summary(d: &DiskInfo) -> String {
    use crate::util::units::{format_si, format_size};
    let mut s = d.transport.clone();
    if !d.model.is_empty() {
        s.push_str(&format!(" {}", d.model));
    }
    s.push_str(&format!(
        ", {}, logical/physical block {}/{} B, scheduler {}",
        format_size(d.size_bytes),
        d.logical_block,
        d.physical_block,
        if d.scheduler.is_empty() {
            "?"
        } else {
            &d.scheduler
        }
    ));
    if let Some(l) = &d.pcie_link {
        s.push_str(&format!(", PCIe {l}"));
    }
    s.push_str(&format!("; class {} ({})", d.class, d.class_evidence));
    match d.peak.value {
        Some(v) => s.push_str(&format!(
            "; interface peak {} ({})",
            format_si(v, "B/s"),
            d.peak.source
        )),
        None => s.push_str(&format!("; peak {}", d.peak.source)),
    }
    s
}

fn classify(transport: &str, rotational: Option<bool>, slaves: &Path) -> (String, String) {
    match (transport, rotational) {
        ("nvme", _) => ("ssd".into(), "NVMe device (NVMe is solid-state)".into()),
        ("virtio", r) => (
            "unknown".into(),
            format!(
                "virtio disk: queue/rotational={} is a virtio default and says nothing about the host's storage",
                r.map_or("?".into(), |b| (b as u8).to_string())
            ),
        ),
        ("device-mapper" | "md-raid", _) => {
            let parts: Vec<String> = std::fs::read_dir(slaves)
                .map(|rd| {
                    rd.flatten()
                        .map(|e| e.file_name().to_string_lossy().to_string())
                        .collect()
                })
                .unwrap_or_default();
            (
                "unknown".into(),
                format!(
                    "virtual device over [{}]; classify those instead",
                    parts.join(", ")
                ),
            )
        }
        (_, Some(false)) => ("ssd".into(), "queue/rotational=0".into()),
        (_, Some(true)) => ("hdd".into(), "queue/rotational=1".into()),
        (_, None) => ("unknown".into(), "queue/rotational unreadable".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pcie_line_coding() {
        // PCIe 3.0 x4: 8 GT/s x 4 lanes x 128/130 / 8 bits = 3.938 GB/s.
        let v = pcie_bytes_per_sec("8.0 GT/s PCIe", 4).unwrap();
        assert!((v - 3.938_461_5e9).abs() < 1e3, "{v}");
        // PCIe 2.0 x1: 5 GT/s x 8/10 / 8 = 500 MB/s.
        assert_eq!(pcie_bytes_per_sec("5.0 GT/s PCIe", 1), Some(5e8));
        assert_eq!(pcie_bytes_per_sec("Unknown", 4), None);
    }

    #[test]
    fn classification_states_evidence() {
        let (c, e) = classify("virtio", Some(true), Path::new("/nonexistent"));
        assert_eq!(c, "unknown");
        assert!(e.contains("virtio default"));
        assert_eq!(classify("sata/ata", Some(false), Path::new("/x")).0, "ssd");
        assert_eq!(classify("sata/ata", Some(true), Path::new("/x")).0, "hdd");
        assert_eq!(classify("nvme", Some(true), Path::new("/x")).0, "ssd");
    }

    #[test]
    fn backing_of_a_path_does_not_panic() {
        // Whatever the machine, detection returns a value or None; never panics.
        let _ = backing(Path::new("."));
        let _ = detect_all();
        assert!(backing(Path::new("/nonexistent/path")).is_none());
    }
}
