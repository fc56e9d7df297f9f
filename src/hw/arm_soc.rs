//! The SoC of an Arm machine, where the firmware names it: NVIDIA Grace, AWS Graviton,
//! Google Axion, Microsoft Cobalt and the others are all "Neoverse Vn/Nn" to the MIDR,
//! but the firmware says which chip it is. Read, in order, from a sysfs root (`/` on the
//! live machine, a recorded tree in tests):
//!
//! 1. SMBIOS processor information (type 4, `sys/firmware/dmi/entries/4-0/raw`, readable
//!    by root): its *Processor Version* string, e.g. "AWS Graviton3", the one lscpu shows
//!    as "BIOS Model name";
//! 2. the SoC bus (`sys/devices/soc0/{machine,family,soc_id}`): device-tree SoCs name
//!    themselves in `machine`; firmware with the SMCCC SOC_ID call gives a JEP106
//!    manufacturer and SoC ID (`jep106:036b:0241`), shown as it is;
//! 3. SMBIOS system strings everyone may read (`sys/class/dmi/id/{sys_vendor,product_name}`):
//!    an EC2 instance type names its Graviton generation (`c6g` → Graviton2, `c7g` →
//!    Graviton3, `c8g` → Graviton4; AWS's instance-type naming).
//!
//! Nothing here is guessed from the core alone: a Neoverse V2 may be a Grace, a
//! Graviton4 or an Axion, and only the firmware can tell.

use serde::{Deserialize, Serialize};
use std::path::Path;

/// An Arm SoC as the firmware names it.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub(crate) struct Soc {
    /// The name, as the firmware gives it (or the generation an EC2 instance type names).
    pub(crate) name: String,
    /// Where the name was read.
    pub(crate) evidence: String,
}

/// The SoC named under sysfs root `root` (`/` on the live machine), or `None`.
pub(crate) fn detect(root: &Path) -> Option<Soc> {
    let read = |p: &str| {
        std::fs::read_to_string(root.join(p))
            .ok()
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
    };
    if let Some(v) = std::fs::read(root.join("sys/firmware/dmi/entries/4-0/raw"))
        .ok()
        .and_then(|raw| smbios_processor_version(&raw))
    {
        return Some(Soc {
            name: v,
            evidence: "SMBIOS processor version (/sys/firmware/dmi/entries/4-0)".into(),
        });
    }
    if let Some(m) = read("sys/devices/soc0/machine") {
        return Some(Soc {
            name: m,
            evidence: "/sys/devices/soc0/machine".into(),
        });
    }
    let ec2 = match (
        read("sys/class/dmi/id/sys_vendor"),
        read("sys/class/dmi/id/product_name"),
    ) {
        (Some(v), Some(p)) if v.starts_with("Amazon") => graviton_of_instance(&p).map(|g| Soc {
            name: g.to_string(),
            evidence: format!("EC2 instance type {p} (/sys/class/dmi/id/product_name)"),
        }),
        _ => None,
    };
    if ec2.is_some() {
        return ec2;
    }
    let id = read("sys/devices/soc0/soc_id")?;
    let family = read("sys/devices/soc0/family").unwrap_or_default();
    Some(Soc {
        name: match jep106_name(&id) {
            Some(vendor) => format!("{vendor} SoC {id}"),
            None => format!("SoC {id}"),
        },
        evidence: format!("/sys/devices/soc0/soc_id (family {family})").replace(" (family )", ""),
    })
}

/// The *Processor Version* string of an SMBIOS type-4 structure (its string number at
/// offset 0x10; strings follow the formatted area, NUL-terminated), when it names a
/// processor (not blank, not a placeholder).
pub(crate) fn smbios_processor_version(raw: &[u8]) -> Option<String> {
    if raw.len() < 0x11 || raw[0] != 4 {
        return None;
    }
    let formatted = usize::from(raw[1]);
    let index = usize::from(raw[0x10]);
    if index == 0 || formatted > raw.len() {
        return None;
    }
    let s = raw[formatted..]
        .split(|b| *b == 0)
        .nth(index - 1)
        .map(|b| String::from_utf8_lossy(b).trim().to_string())?;
    let placeholder = ["", "Not Specified", "Unknown", "To Be Filled By O.E.M."];
    (!placeholder.iter().any(|p| s.eq_ignore_ascii_case(p))).then_some(s)
}

/// The Graviton generation of an EC2 instance type (`c7g.xlarge`, `m6gd.metal`,
/// `r8g.large`, `a1.medium`): AWS names its Graviton families with a `g` after the
/// generation digit.
pub(crate) fn graviton_of_instance(instance: &str) -> Option<&'static str> {
    let family = instance.split('.').next()?;
    if family == "a1" {
        return Some("AWS Graviton");
    }
    let digit = family.find(|c: char| c.is_ascii_digit())?;
    let generation = family[digit..].chars().next()?;
    if !family[digit + 1..].starts_with('g') {
        return None;
    }
    match generation {
        '6' => Some("AWS Graviton2"),
        '7' => Some("AWS Graviton3"),
        '8' => Some("AWS Graviton4"),
        _ => None,
    }
}

/// The manufacturer of an SMCCC SoC ID (`jep106:BBMM:SSSS`, bank and JEP106 code) that
/// peakbench's Arm implementers name: the few Arm server vendors.
fn jep106_name(id: &str) -> Option<&'static str> {
    let code = id.strip_prefix("jep106:")?.get(..4)?;
    Some(match code.to_ascii_lowercase().as_str() {
        "036b" => "NVIDIA",
        "0a16" => "Ampere",
        "043b" => "Arm",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An SMBIOS type-4 structure whose version string (number 2) is `version`.
    fn type4(version: &str) -> Vec<u8> {
        let mut raw = vec![0u8; 0x30];
        raw[0] = 4;
        raw[1] = 0x30;
        raw[0x04] = 1; // socket designation: string 1
        raw[0x10] = 2; // processor version: string 2
        raw.extend_from_slice(b"CPU 0\0");
        raw.extend_from_slice(version.as_bytes());
        raw.extend_from_slice(b"\0\0");
        raw
    }

    fn tree(files: &[(&str, &[u8])]) -> tempfile::TempDir {
        let dir = tempfile::tempdir_in(crate::util::scratch::scratch_root()).unwrap();
        for (path, body) in files {
            let p = dir.path().join(path);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, body).unwrap();
        }
        dir
    }

    #[test]
    fn the_smbios_processor_version_names_the_soc() {
        assert_eq!(
            smbios_processor_version(&type4("AWS Graviton3")).as_deref(),
            Some("AWS Graviton3")
        );
        assert_eq!(smbios_processor_version(&type4("Not Specified")), None);
        assert_eq!(smbios_processor_version(&[4, 2]), None);
        let t = tree(&[
            (
                "sys/firmware/dmi/entries/4-0/raw",
                &type4("NVIDIA Grace A02"),
            ),
            ("sys/devices/soc0/soc_id", b"jep106:036b:0241\n"),
        ]);
        let s = detect(t.path()).unwrap();
        assert_eq!(s.name, "NVIDIA Grace A02");
        assert!(s.evidence.contains("SMBIOS processor version"));
    }

    #[test]
    fn an_ec2_instance_type_names_its_graviton() {
        assert_eq!(graviton_of_instance("c6g.large"), Some("AWS Graviton2"));
        assert_eq!(graviton_of_instance("m7gd.metal"), Some("AWS Graviton3"));
        assert_eq!(graviton_of_instance("c7gn.16xlarge"), Some("AWS Graviton3"));
        assert_eq!(graviton_of_instance("r8g.xlarge"), Some("AWS Graviton4"));
        assert_eq!(graviton_of_instance("a1.medium"), Some("AWS Graviton"));
        assert_eq!(graviton_of_instance("c6i.large"), None);
        assert_eq!(graviton_of_instance("c7a.large"), None);
        let t = tree(&[
            ("sys/class/dmi/id/sys_vendor", b"Amazon EC2\n"),
            ("sys/class/dmi/id/product_name", b"c7g.xlarge\n"),
        ]);
        let s = detect(t.path()).unwrap();
        assert_eq!(s.name, "AWS Graviton3");
        assert!(s.evidence.contains("c7g.xlarge"), "{}", s.evidence);
        // Another cloud's DMI names no SoC.
        let t = tree(&[
            ("sys/class/dmi/id/sys_vendor", b"Google\n"),
            ("sys/class/dmi/id/product_name", b"Google Compute Engine\n"),
        ]);
        assert_eq!(detect(t.path()), None);
    }

    #[test]
    fn the_soc_bus_names_device_tree_socs_and_firmware_ids() {
        let t = tree(&[
            ("sys/devices/soc0/machine", b"SM8550\n"),
            ("sys/devices/soc0/family", b"Snapdragon\n"),
        ]);
        assert_eq!(detect(t.path()).unwrap().name, "SM8550");
        let t = tree(&[
            ("sys/devices/soc0/family", b"jep106:036b\n"),
            ("sys/devices/soc0/soc_id", b"jep106:036b:0241\n"),
        ]);
        let s = detect(t.path()).unwrap();
        assert_eq!(s.name, "NVIDIA SoC jep106:036b:0241");
        assert_eq!(s.evidence, "/sys/devices/soc0/soc_id (family jep106:036b)");
        // An empty tree names nothing.
        let t = tree(&[]);
        assert_eq!(detect(t.path()), None);
    }
}
