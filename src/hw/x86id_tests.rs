//! Tests of the x86 CPUID decoding and of the emulation evidence, on recorded machines
//! (tests/fixtures/x86-cpuid: `cpuid -r -1` dumps and /proc/cpuinfo files of KVM guests,
//! and the CPUID that `qemu-x86_64 -cpu MODEL` shows a process on the Cascade Lake guest)
//! and on the recorded descriptions of tests/fixtures/cpus.

use super::*;
use crate::hw::uarch;

fn fixture(name: &str) -> String {
    let path = format!(
        "{}/tests/fixtures/x86-cpuid/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn cpuid(name: &str) -> Cpuid {
    let c = Cpuid::parse_raw(&fixture(&format!("{name}.cpuid")));
    assert!(!c.is_empty(), "{name}");
    c
}

/// The /proc/cpuinfo of the Cascade Lake KVM guest the qemu-user dumps were taken on.
const HOST: &str = "kvm-cascadelake-model85";

#[test]
fn recorded_cpuid_dumps_decode() {
    let h = cpuid("qemu-user-Haswell");
    assert_eq!(h.vendor(), "GenuineIntel");
    assert_eq!(h.family_model_stepping(), (6, 60, 4));
    assert_eq!(h.brand().as_deref(), Some("Intel Core Processor (Haswell)"));
    let f = h.flags();
    let has = |f: &[String], x: &str| f.iter().any(|y| y == x);
    for want in ["sse4_2", "avx", "avx2", "fma", "f16c", "bmi2"] {
        assert!(has(&f, want), "{want}: {f:?}");
    }
    assert!(!has(&f, "avx512f"), "{f:?}");
    let n = cpuid("qemu-user-Nehalem").flags();
    assert!(has(&n, "sse4_2") && !has(&n, "avx"), "{n:?}");
    let s = cpuid("qemu-user-SandyBridge").flags();
    assert!(
        has(&s, "avx") && !has(&s, "fma") && !has(&s, "avx2"),
        "{s:?}"
    );
    let r = cpuid("qemu-user-EPYC-Rome");
    assert_eq!(r.vendor(), "AuthenticAMD");
    assert_eq!(r.family_model_stepping(), (23, 49, 0));
    assert_eq!(r.brand().as_deref(), Some("AMD EPYC-Rome Processor"));
    assert!(has(&r.flags(), "avx2") && !has(&r.flags(), "avx512f"));
    // Extended family and model (family 25 = 0xf + 0xa) on the Zen 4 guest.
    let z = cpuid("kvm-zen4-family25-model17");
    assert_eq!(z.family_model_stepping(), (25, 17, 1));
    assert!(has(&z.flags(), "avx512_bf16") && has(&z.flags(), "avx512f"));
    let spr = cpuid("kvm-model167-spr-class").flags();
    assert!(has(&spr, "amx_tile") && has(&spr, "avx512_fp16"), "{spr:?}");
}

/// Each recorded guest's CPUID agrees with its own /proc/cpuinfo: a real machine or a
/// system VM is never taken for an emulator.
#[test]
fn cpuid_and_cpuinfo_of_one_machine_agree() {
    for m in [
        "kvm-cascadelake-model85",
        "kvm-model167-spr-class",
        "kvm-zen4-family25-model17",
    ] {
        let info = fixture(&format!("{m}.cpuinfo"));
        assert_eq!(
            emulation_evidence(&cpuid(m), Some("x86_64\n"), &info),
            None,
            "{m}"
        );
        assert_eq!(emulation_evidence(&cpuid(m), None, &info), None, "{m}");
    }
}

/// `qemu-x86_64 -cpu MODEL` on the Cascade Lake guest: the emulated CPUID against the
/// host's /proc/cpuinfo is told apart, each by what differs.
#[test]
fn emulated_cpuid_against_the_hosts_cpuinfo_is_emulation() {
    let host = fixture(&format!("{HOST}.cpuinfo"));
    for (model, says) in [
        ("Haswell", "family 6 model 60 but"),
        ("Nehalem", "family 6 model 26 but"),
        ("SandyBridge", "family 6 model 42 but"),
        ("EPYC-Rome", "CPUID says AuthenticAMD but"),
    ] {
        let why = emulation_evidence(&cpuid(&format!("qemu-user-{model}")), Some("x86_64"), &host)
            .unwrap_or_else(|| panic!("{model}: not taken for emulation"));
        assert!(
            why.contains(says) && why.contains("user-mode emulation"),
            "{model}: {why}"
        );
    }
}

/// A kernel hides features (boot parameters, errata): CPUID with more than /proc/cpuinfo
/// is a real machine. /proc/cpuinfo with an instruction set CPUID lacks is not: no kernel
/// lists what the CPU does not have. A brand string differs only under emulation.
#[test]
fn hidden_features_are_not_emulation_invented_ones_are() {
    let c = cpuid(HOST);
    let host = fixture(&format!("{HOST}.cpuinfo"));
    let hidden = host.replace(" avx512f ", " ").replace(" avx512_vnni ", " ");
    assert_eq!(emulation_evidence(&c, Some("x86_64"), &hidden), None);
    let invented = host.replace(" avx2 ", " avx2 avx512_fp16 amx_tile ");
    let why = emulation_evidence(&c, Some("x86_64"), &invented).unwrap();
    assert!(
        why.contains("lists avx512_fp16, amx_tile that CPUID lacks"),
        "{why}"
    );
    // A flag a late microcode load may withdraw (TSX) or the hypervisor bit proves nothing.
    let tsx = host.replace(" avx2 ", " avx2 rtm hle ");
    assert_eq!(emulation_evidence(&c, Some("x86_64"), &tsx), None);
    let renamed = host.replace(
        "Intel(R) Xeon(R) Processor @ 2.50GHz",
        "Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz",
    );
    let why = emulation_evidence(&c, Some("x86_64"), &renamed).unwrap();
    assert!(why.contains("names the CPU"), "{why}");
    // Spacing is the kernel's, not a difference.
    let spaced = host.replace("Intel(R) Xeon(R) Processor", "Intel(R)  Xeon(R) Processor ");
    assert_eq!(emulation_evidence(&c, Some("x86_64"), &spaced), None);
}

/// An x86 binary on an Arm host (qemu-x86_64 there): the kernel or /proc/cpuinfo says so.
#[test]
fn an_x86_process_on_an_arm_host_is_emulated() {
    let c = cpuid("qemu-user-Haswell");
    let arm = "processor\t: 0\nBogoMIPS\t: 50.00\nCPU implementer\t: 0x41\nCPU part\t: 0xd0c\n";
    let why = emulation_evidence(&c, Some("aarch64\n"), arm).unwrap();
    assert!(why.contains("the kernel is aarch64"), "{why}");
    let why = emulation_evidence(&c, None, arm).unwrap();
    assert!(why.contains("describes no x86 CPU"), "{why}");
    // Nothing to compare: no evidence either way.
    assert_eq!(emulation_evidence(&c, None, ""), None);
    assert_eq!(emulation_evidence(&Cpuid::default(), None, arm), None);
}

/// The core under `qemu-x86_64 -cpu MODEL` is named from CPUID alone; mixing in the
/// host's /proc/cpuinfo flags (what identification did before) named the Haswell model
/// after the host's AVX-512 generation.
#[test]
fn emulated_cores_are_named_from_cpuid() {
    for (model, row) in [
        ("Haswell", "Haswell/Broadwell"),
        ("SandyBridge", "Sandy Bridge/Ivy Bridge"),
        ("EPYC-Rome", "Zen 2"),
    ] {
        let d = cpuid(&format!("qemu-user-{model}")).description();
        let id = uarch::identify(&d);
        assert_eq!((id.row.as_str(), id.by.as_str()), (row, "model"), "{model}");
    }
    let mut mixed = cpuid("qemu-user-Haswell").description();
    mixed.flags = cpuid(HOST).flags();
    assert_ne!(uarch::identify(&mixed).row, "Haswell/Broadwell");
}

/// Every recorded x86 description of tests/fixtures/cpus, system-VM guests under QEMU's
/// CPU models (`masked-qemu-*`) included, written as the CPUID and /proc/cpuinfo of one
/// machine, decodes back to itself and is not taken for an emulator.
#[test]
fn recorded_machines_and_system_vms_are_not_emulated() {
    let dir = format!("{}/tests/fixtures/cpus", env!("CARGO_MANIFEST_DIR"));
    let mut seen = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let path = e.unwrap().path();
        if path.extension().is_none_or(|x| x != "json") {
            continue;
        }
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let d: CpuDescription = serde_json::from_value(v["cpu"].clone()).unwrap();
        if d.arch != "x86_64" {
            continue;
        }
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let c = encode(&d);
        assert_eq!(c.vendor(), d.vendor, "{name}");
        assert_eq!(
            c.family_model_stepping(),
            (d.family, d.model, d.stepping),
            "{name}"
        );
        let decoded = c.flags();
        for f in FLAG_BITS.iter().map(|b| b.0) {
            assert_eq!(decoded.iter().any(|x| x == f), d.has(f), "{name}: {f}");
        }
        let info = format!(
            "processor\t: 0\nvendor_id\t: {}\ncpu family\t: {}\nmodel\t\t: {}\nmodel name\t: {}\nflags\t\t: {}\n\n",
            d.vendor,
            d.family,
            d.model,
            d.brand,
            d.flags.join(" ")
        );
        assert_eq!(
            emulation_evidence(&c, Some("x86_64"), &info),
            None,
            "{name}"
        );
        seen += 1;
    }
    assert!(seen >= 40, "{seen} x86 fixtures");
}

/// The CPUID leaves a description stands for (what a CPU showing it would answer).
fn encode(d: &CpuDescription) -> Cpuid {
    let word = |b: &[u8]| u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
    let mut v = d.vendor.clone().into_bytes();
    v.resize(12, 0);
    let mut leaves = vec![
        ((0, 0), [7, word(&v[0..4]), word(&v[8..12]), word(&v[4..8])]),
        ((0x8000_0000, 0), [0x8000_0004, 0, 0, 0]),
    ];
    let (base, ext) = if d.family >= 0xf {
        (0xf, d.family - 0xf)
    } else {
        (d.family, 0)
    };
    let eax =
        (ext << 20) | ((d.model >> 4) << 16) | (base << 8) | ((d.model & 0xf) << 4) | d.stepping;
    fn regs(leaves: &mut Vec<((u32, u32), [u32; 4])>, leaf: u32, sub: u32) -> &mut [u32; 4] {
        if !leaves.iter().any(|(k, _)| *k == (leaf, sub)) {
            leaves.push(((leaf, sub), [0; 4]));
        }
        &mut leaves
            .iter_mut()
            .find(|(k, _)| *k == (leaf, sub))
            .unwrap()
            .1
    }
    regs(&mut leaves, 1, 0)[EAX] = eax;
    for &(name, leaf, sub, r, bit) in FLAG_BITS {
        if d.has(name) {
            regs(&mut leaves, leaf, sub)[r] |= 1 << bit;
        }
    }
    let mut b = d.brand.clone().into_bytes();
    b.resize(48, 0);
    for (i, leaf) in (0x8000_0002..=0x8000_0004).enumerate() {
        let c = &b[i * 16..i * 16 + 16];
        *regs(&mut leaves, leaf, 0) = [
            word(&c[0..4]),
            word(&c[4..8]),
            word(&c[8..12]),
            word(&c[12..16]),
        ];
    }
    Cpuid { leaves }
}
