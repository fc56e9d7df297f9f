//! The 64-bit Arm core table: FP/SIMD instructions started per cycle per core by
//! implementer and part number (MIDR), at vector widths [128, 256, 512] bits, each row
//! with the document its figures come from. NEON instructions are 128-bit; SVE ones run
//! at the core's vector length (A64FX 512, Neoverse V1 256, N2/V2 128), so an SVE
//! kernel's width is read at run time and its rate taken at that width.
//!
//! Pipe classes as in `uarch_row::Pipe`: FMLA (`Fma`; FP16 FMLA runs on the same pipes at
//! the same rate), FMUL+FADD (`MulAdd`), integer ADD (`Alu`), MUL .4S (`Mul32`), SVE MUL
//! .D (`Mul64`), SDOT/UDOT (`Dot`), BFDOT (`DotBf16`), SMMLA/UMMLA (`Mmla`) and BFMMLA
//! (`MmlaBf16`): the matrix instructions have their own rates (AmpereOne runs one
//! SMMLA per cycle beside two SDOTs).
//!
//! Each row names its source: the vendor's optimization guide where one is published,
//! else the vendor's scheduling model in LLVM or a published measurement, and says when
//! a figure is an assumption. `scripts/peaks-vs-llvm.py` compares every row with LLVM's
//! scheduling models (`docs/peaks-vs-llvm.md`); the execution probe (`probe_arm.rs`)
//! measures FMLA, SVE FMLA, SDOT, SMMLA and BFMMLA on the core itself.
//!
//! Identification by implementer and part comes first; a part that is not here gets
//! the generic row (2 × 128-bit FMA), saying so.

use super::uarch_row::{Identification, Uarch};

const ARM: &str = "aarch64";

/// One core of the table: the implementer code, the rates, and where they come from.
pub(crate) struct ArmCore {
    /// MIDR implementer (0x41 Arm, 0x46 Fujitsu, 0xc0 Ampere, ...: `arm::IMPLEMENTERS`).
    pub(crate) implementer: u32,
    /// The row (its `models` are the part numbers).
    pub(crate) uarch: Uarch,
    /// The document the rates come from.
    pub(crate) source: &'static str,
}

/// Every class absent: a row's rates (named fields, so a row cannot swap two classes
/// unnoticed) name the classes it has, each at widths [128, 256, 512] bits, and take
/// the rest from here.
const NONE: Uarch = Uarch::NONE;

/// A 128-bit-only rate (NEON, or SVE at 128 bits).
const fn q(x: f64) -> [f64; 3] {
    [x, 0.0, 0.0]
}

/// Two 128-bit FP/ASIMD pipes, integer multiply on one (Cortex-A76/A77/A78, N1).
const TWO_PIPES_V8_2: Uarch = Uarch {
    fma: q(2.0),
    alu: q(2.0),
    mul32: q(1.0),
    dot: q(2.0),
    ..NONE
};

/// Two 128-bit pipes with SVE2 at 128 bits, BF16 and I8MM (Cortex-A710 to A725, N2, N3).
const TWO_PIPES_V9: Uarch = Uarch {
    fma: q(2.0),
    alu: q(2.0),
    mul32: q(1.0),
    mul64: q(0.5),
    dot: q(2.0),
    dot_bf16: q(2.0),
    mmla: q(2.0),
    mmla_bf16: q(2.0),
    ..NONE
};

/// Four 128-bit pipes with SVE2 at 128 bits (Cortex-X2 to X925, Neoverse V2/V3).
const FOUR_PIPES_V9: Uarch = Uarch {
    fma: q(4.0),
    alu: q(4.0),
    mul32: q(2.0),
    mul64: q(1.0),
    dot: q(4.0),
    dot_bf16: q(4.0),
    mmla: q(4.0),
    mmla_bf16: q(4.0),
    ..NONE
};

/// In-order cores whose NEON unit starts one 128-bit instruction per cycle (A35, A53).
const IN_ORDER_V8_0: Uarch = Uarch {
    fma: q(1.0),
    alu: q(1.0),
    mul32: q(0.5),
    ..NONE
};

/// Row `name` of `implementer`'s `parts`, with the rates of `r`.
const fn core(
    implementer: u32,
    name: &'static str,
    parts: &'static [(u32, u32)],
    r: Uarch,
    note: &'static str,
    source: &'static str,
) -> ArmCore {
    ArmCore {
        implementer,
        uarch: Uarch {
            name,
            vendor: ARM,
            models: parts,
            // FMUL and FADD issue on the same FP pipes as FMLA on every core here.
            muladd: r.fma,
            note,
            ..r
        },
        source,
    }
}

const A: u32 = 0x41;
/// Apple (Asahi Linux reports implementer 0x61).
const APPLE: u32 = 0x61;
/// NVIDIA's own cores (Grace reports Arm's Neoverse V2, implementer 0x41).
const NVIDIA: u32 = 0x4e;

/// The Arm cores, by implementer and part (part numbers as Linux's
/// `arch/arm64/include/asm/cputype.h` lists them).
#[rustfmt::skip]
pub(crate) static ARM_CORES: &[ArmCore] = &[
    core(A, "Cortex-A35", &[(0xd04, 0xd04)], IN_ORDER_V8_0,
        "in-order; NEON as on the Cortex-A53 (one 128-bit FMLA per cycle)",
        "assumption: as the Cortex-A53 (Arm publishes no A35 optimization guide; LLVM models the A35 with its A53 model)"),
    core(A, "Cortex-A53", &[(0xd03, 0xd03)], IN_ORDER_V8_0,
        "in-order; one 128-bit FMLA per cycle (64-bit datapaths paired); fp64 Q-form FMLA may issue at half that",
        "Arm publishes no optimization guide for the A53: Cortex-A53 TRM (NEON/FP pipeline) and public kernel notes (ncnn, XNNPACK)"),
    core(A, "Cortex-A55", &[(0xd05, 0xd05)], Uarch { dot: q(1.0), ..IN_ORDER_V8_0 },
        "in-order; Q-form (128-bit) ASIMD instructions use both 64-bit pipes: one per cycle",
        "Arm Cortex-A55 Software Optimization Guide (ASIMD FP and integer instruction tables)"),
    core(A, "Cortex-A510", &[(0xd46, 0xd46)], Uarch { fma: q(2.0), alu: q(2.0), mul32: q(2.0), mul64: q(2.0), dot: q(2.0), dot_bf16: q(1.0), mmla: q(2.0), mmla_bf16: q(1.0), ..NONE },
        "in-order; a pair of cores shares one vector unit (two 128-bit pipes in the larger configuration): these are one core's rates with the unit to itself, both cores of a pair busy get half each; BF16 (SVE BFDOT/BFMMLA) at half rate",
        "Arm Cortex-A510 Software Optimization Guide (as LLVM's Cortex-A510 scheduling model gives it)"),
    core(A, "Cortex-A520", &[(0xd80, 0xd80)], Uarch { fma: q(2.0), alu: q(2.0), mul32: q(2.0), mul64: q(2.0), dot: q(2.0), dot_bf16: q(1.0), mmla: q(2.0), mmla_bf16: q(1.0), ..NONE },
        "in-order, the A510's successor with the same shared vector unit (rates of one core with the unit to itself)",
        "Arm Cortex-A520 Software Optimization Guide (LLVM schedules the A520 with its Cortex-A510 model)"),
    core(A, "Cortex-A57", &[(0xd07, 0xd07)], Uarch { fma: q(1.0), alu: q(2.0), mul32: q(0.5), ..NONE },
        "two FP/ASIMD pipes F0/F1; a Q-form (128-bit) FP multiply or FMLA takes both: one per cycle; integer multiply on F0 at half rate",
        "Arm Cortex-A57 Software Optimization Guide (ASIMD FP multiply-accumulate Q-form; LLVM's Cortex-A57 model gives the same)"),
    core(A, "Cortex-A72", &[(0xd08, 0xd08)], Uarch { fma: q(2.0), alu: q(2.0), mul32: q(0.5), ..NONE },
        "two 128-bit FP/ASIMD pipes F0/F1; integer multiply on F0 only; no dot product (Armv8.0)",
        "Arm Cortex-A72 Software Optimization Guide"),
    core(A, "Cortex-A76", &[(0xd0b, 0xd0b)], TWO_PIPES_V8_2,
        "two 128-bit FP/ASIMD pipes V0/V1; integer multiply on V0",
        "Arm Cortex-A76 Software Optimization Guide"),
    core(A, "Cortex-A77", &[(0xd0d, 0xd0d)], TWO_PIPES_V8_2,
        "two 128-bit FP/ASIMD pipes V0/V1 as on the A76; integer multiply on V0",
        "Arm Cortex-A77 Software Optimization Guide"),
    core(A, "Cortex-A78", &[(0xd41, 0xd41)], TWO_PIPES_V8_2,
        "two 128-bit FP/ASIMD pipes V0/V1; integer multiply on V0",
        "Arm Cortex-A78 Software Optimization Guide"),
    core(A, "Cortex-A78C", &[(0xd4b, 0xd4b)], TWO_PIPES_V8_2,
        "the A78's pipes (two 128-bit V0/V1) in larger clusters",
        "Arm Cortex-A78C Software Optimization Guide"),
    core(A, "Cortex-X1", &[(0xd44, 0xd44)], Uarch { fma: q(4.0), alu: q(4.0), mul32: q(2.0), dot: q(4.0), ..NONE },
        "four 128-bit FP/ASIMD pipes V0-V3; integer multiply on V0/V2",
        "Arm Cortex-X1 Software Optimization Guide"),
    core(A, "Cortex-A710/A715", &[(0xd47, 0xd47), (0xd4d, 0xd4d)], TWO_PIPES_V9,
        "two 128-bit pipes, SVE2 at 128 bits; SMMLA/BFMMLA on both pipes",
        "Arm Cortex-A710 and Cortex-A715 Software Optimization Guides"),
    core(A, "Cortex-A720/A725", &[(0xd81, 0xd81), (0xd87, 0xd87)], TWO_PIPES_V9,
        "two 128-bit pipes V0/V1 as on the A710/A715, SVE2 at 128 bits",
        "Arm Cortex-A720 and Cortex-A725 Software Optimization Guides"),
    core(A, "Cortex-X2/X3", &[(0xd48, 0xd48), (0xd4e, 0xd4e)], FOUR_PIPES_V9,
        "four 128-bit pipes, SVE2 at 128 bits; integer multiply on V0/V2",
        "Arm Cortex-X2 and Cortex-X3 Software Optimization Guides"),
    core(A, "Cortex-X4", &[(0xd82, 0xd82)], FOUR_PIPES_V9,
        "four 128-bit pipes V0-V3 as on the X3, SVE2 at 128 bits",
        "Arm Cortex-X4 Software Optimization Guide"),
    core(A, "Cortex-X925", &[(0xd85, 0xd85)], FOUR_PIPES_V9,
        "six 128-bit vector pipes; FMLA and the dot and matrix instructions counted on four of them as on the X4 (the probe's FMLA test measures the count on a real core)",
        "Arm Cortex-X925 Software Optimization Guide; LLVM models the X925 with its Neoverse V2 model (four pipes)"),
    core(A, "Neoverse N1", &[(0xd0c, 0xd0c)], TWO_PIPES_V8_2,
        "two 128-bit FP/ASIMD pipes V0/V1 (Graviton2, Ampere Altra); integer multiply on V0",
        "Arm Neoverse N1 Software Optimization Guide"),
    core(A, "Neoverse N2", &[(0xd49, 0xd49)], TWO_PIPES_V9,
        "two 128-bit pipes V0/V1, SVE2 at 128 bits",
        "Arm Neoverse N2 Software Optimization Guide"),
    core(A, "Neoverse N3", &[(0xd8e, 0xd8e)], TWO_PIPES_V9,
        "two 128-bit pipes V0/V1 as on the N2, SVE2 at 128 bits",
        "Arm Neoverse N3 Software Optimization Guide"),
    core(A, "Neoverse V1", &[(0xd40, 0xd40)], Uarch { fma: [4.0, 2.0, 0.0], alu: [4.0, 2.0, 0.0], mul32: [2.0, 1.0, 0.0], mul64: [0.0, 0.5, 0.0], dot: [4.0, 2.0, 0.0], dot_bf16: [4.0, 2.0, 0.0], mmla: [4.0, 2.0, 0.0], mmla_bf16: [4.0, 2.0, 0.0], ..NONE },
        "four 128-bit NEON pipes that pair into two 256-bit SVE pipes (Graviton3); a published Graviton3 run measured half these rates for FMLA, SDOT, SMMLA and BF16 at 128 bits: the probe measures FMLA, SVE FMLA, SDOT, SMMLA and BFMMLA",
        "Arm Neoverse V1 Software Optimization Guide"),
    core(A, "Neoverse V2", &[(0xd4f, 0xd4f)], FOUR_PIPES_V9,
        "four 128-bit pipes, SVE2 at 128 bits (Graviton4, NVIDIA Grace)",
        "Arm Neoverse V2 Software Optimization Guide"),
    core(A, "Neoverse V3/V3AE", &[(0xd83, 0xd84)], FOUR_PIPES_V9,
        "four 128-bit pipes V0-V3 as on the V2, SVE2 at 128 bits",
        "Arm Neoverse V3 and V3AE Software Optimization Guides"),
    core(0x46, "A64FX", &[(0x001, 0x001)], Uarch { fma: [2.0, 0.0, 2.0], alu: [2.0, 0.0, 2.0], mul32: [2.0, 0.0, 2.0], mul64: [0.0, 0.0, 2.0], dot: [2.0, 0.0, 2.0], ..NONE },
        "two 512-bit SVE pipes FLA/FLB (NEON on the same two pipes); integer multiply on both (settled on Fujitsu's model of the core in LLVM; the earlier figure of one, FLA only, had no section to cite)",
        "Fujitsu A64FX Microarchitecture Manual; integer multiply from Fujitsu's A64FX scheduling model in LLVM"),
    core(0xc0, "AmpereOne", &[(0xac3, 0xac4)], Uarch { fma: q(2.0), alu: q(2.0), mul32: q(2.0), dot: q(2.0), dot_bf16: q(2.0), mmla: q(1.0), mmla_bf16: q(1.0), ..NONE },
        "Ampere's own core (AmpereOne, AmpereOne A): two 128-bit vector units with FP16, BF16, INT8; no SVE; integer multiply on both units, SMMLA/BFMMLA one per cycle",
        "Ampere's AmpereOne (ampere1, ampere1a) scheduling models in LLVM, contributed by Ampere"),
    core(0xc0, "AmpereOne B", &[(0xac5, 0xac5)], Uarch { fma: q(2.0), alu: q(2.0), mul32: q(2.0), dot: q(2.0), dot_bf16: q(2.0), mmla: q(2.0), mmla_bf16: q(2.0), ..NONE },
        "AmpereOne B (AmpereOne M): two 128-bit vector units; SMMLA/BFMMLA on both",
        "Ampere's AmpereOne B (ampere1b) scheduling model in LLVM, contributed by Ampere"),
    core(0x51, "Qualcomm Oryon", &[(0x001, 0x001)], Uarch { fma: q(4.0), alu: q(4.0), mul32: q(4.0), dot: q(4.0), dot_bf16: q(4.0), mmla: q(2.0), mmla_bf16: q(2.0), ..NONE },
        "four 128-bit FP/ASIMD pipes (Snapdragon X Elite); no SVE; SMMLA/BFMMLA on two",
        "Qualcomm's Oryon (oryon-1) scheduling model in LLVM, contributed by Qualcomm; four 128-bit FMA pipes as published measurements of the X Elite show"),
    core(APPLE, "Apple Firestorm/Avalanche (M1/M2 P-core)", &[(0x023, 0x023), (0x025, 0x025), (0x029, 0x029), (0x033, 0x033), (0x035, 0x035), (0x039, 0x039)],
        Uarch { fma: q(4.0), alu: q(4.0), mul32: q(4.0), dot: q(4.0), ..NONE },
        "four 128-bit FP/ASIMD pipes; BF16/I8MM rates (M2) not published: their kernels get no table peak",
        "published measurements of the M1's Firestorm core (Dougall Johnson's instruction tables: FMLA, MUL, SDOT on four pipes); Apple publishes no optimization guide"),
    core(APPLE, "Apple Icestorm/Blizzard (M1/M2 E-core)", &[(0x022, 0x022), (0x024, 0x024), (0x028, 0x028), (0x032, 0x032), (0x034, 0x034), (0x038, 0x038)],
        Uarch { fma: q(2.0), alu: q(2.0), mul32: q(1.0), dot: q(2.0), ..NONE },
        "two 128-bit FP/ASIMD pipes; integer multiply assumed on one",
        "published measurements of the M1's Icestorm core (Dougall Johnson's instruction tables: two FP/ASIMD pipes); integer multiply an assumption"),
    core(NVIDIA, "NVIDIA Denver/Carmel", &[(0x000, 0x000), (0x003, 0x004)], Uarch { fma: q(2.0), alu: q(2.0), mul32: q(1.0), dot: q(2.0), ..NONE },
        "NVIDIA's own cores (Denver, Denver 2: Tegra X2; Carmel: Xavier); two 128-bit FP/ASIMD pipes assumed (Grace is Arm's Neoverse V2, its own row)",
        "assumption: no per-pipe figures are published and LLVM has no scheduling model of these cores; the probe's FMLA and SDOT tests measure them"),
    core(0x48, "HiSilicon TSV110 (Kunpeng 920)", &[(0xd01, 0xd01)], Uarch { fma: q(2.0), alu: q(1.0), mul32: q(0.5), dot: q(2.0), ..NONE },
        "two 128-bit FP/ASIMD pipes (FSU1/FSU2); integer add and multiply on one",
        "HiSilicon's TSV110 scheduling model in LLVM, contributed by HiSilicon"),
    core(0x43, "Marvell ThunderX2", &[(0x0af, 0x0af)], Uarch { fma: q(2.0), alu: q(2.0), mul32: q(1.0), ..NONE },
        "Cavium/Marvell ThunderX2 (Vulcan): two 128-bit FP/ASIMD pipes, 8 fp64 FLOP per cycle per core; Armv8.1, no dot product",
        "Marvell ThunderX2 CN99xx product brief (8 double-precision FLOP per cycle per core: two 128-bit FMA pipes)"),
    core(0x42, "Broadcom Vulcan (ThunderX2)", &[(0x516, 0x516)], Uarch { fma: q(2.0), alu: q(2.0), mul32: q(1.0), ..NONE },
        "Broadcom's Vulcan, the core of ThunderX2 (early parts report Broadcom's implementer)",
        "Marvell ThunderX2 CN99xx product brief (8 double-precision FLOP per cycle per core)"),
    core(0, "generic aarch64 (2 x 128-bit FMA)", &[], Uarch { fma: q(2.0), alu: q(2.0), mul32: q(1.0), dot: q(2.0), ..NONE },
        "typical of Neoverse N1/N2 and Cortex-A7x; wider cores (V1/V2, X1-X925, Apple, Oryon) have more",
        "assumption: the most common Arm server and big-core layout"),
];

/// The generic row's name.
pub(crate) const GENERIC: &str = "generic aarch64 (2 x 128-bit FMA)";

/// The Arm row with this name.
pub(crate) fn by_name(name: &str) -> Option<&'static ArmCore> {
    ARM_CORES.iter().find(|c| c.uarch.name == name)
}

/// The row of an implementer (name as `arm::IMPLEMENTERS` spells it) and part.
pub(crate) fn lookup(vendor: &str, part: u32) -> Option<&'static ArmCore> {
    let code = super::arm::implementer_code(vendor)?;
    ARM_CORES.iter().find(|c| {
        c.implementer == code
            && !c.uarch.models.is_empty()
            && c.uarch
                .models
                .iter()
                .any(|(lo, hi)| (*lo..=*hi).contains(&part))
    })
}

/// Identifies one Arm core by implementer and part.
pub(crate) fn identify(vendor: &str, part: u32) -> Identification {
    let code = super::arm::implementer_code(vendor).unwrap_or(u32::MAX);
    let id_words = format!("implementer 0x{code:02x} ({vendor}) part 0x{part:03x}");
    match lookup(vendor, part) {
        Some(c) => Identification {
            row: c.uarch.name.to_string(),
            by: "model".into(),
            evidence: format!("chosen by {id_words} (rates: {})", c.source),
            model_overruled: None,
        },
        None => Identification {
            row: GENERIC.to_string(),
            by: "inferred".into(),
            evidence: format!(
                "inferred: {id_words} is not in the Arm table; assumed 2 x 128-bit FMA (give peaks with --peak)"
            ),
            model_overruled: None,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hw::uarch_row::{Pipe, Width};

    #[test]
    fn the_emulated_cores_and_the_named_ones_are_in_the_table() {
        assert_eq!(identify("ARM", 0xd0c).row, "Neoverse N1");
        assert_eq!(identify("Fujitsu", 0x001).row, "A64FX");
        // Fujitsu's part 0x001 is not Arm's.
        assert_eq!(identify("ARM", 0x001).row, GENERIC);
        assert_eq!(identify("software (QEMU max)", 0x051).by, "inferred");
        for (v, p) in [
            ("ARM", 0xd49),
            ("ARM", 0xd40),
            ("ARM", 0xd4f),
            ("ARM", 0xd03),
            ("ARM", 0xd05),
            ("ARM", 0xd08),
            ("ARM", 0xd0b),
            ("ARM", 0xd41),
            ("ARM", 0xd44),
            ("Ampere", 0xac3),
            ("Ampere", 0xac5),
        ] {
            let id = identify(v, p);
            assert_eq!(id.by, "model", "{v} {p:x}");
            assert!(id.evidence.contains("rates: "), "{}", id.evidence);
        }
        let fx = by_name("A64FX").unwrap().uarch;
        assert_eq!(fx.rate(Pipe::Fma, Width::V512), 2.0);
        let v1 = by_name("Neoverse V1").unwrap().uarch;
        assert_eq!(
            (
                v1.rate(Pipe::Fma, Width::V128),
                v1.rate(Pipe::Fma, Width::V256)
            ),
            (4.0, 2.0)
        );
    }

    #[test]
    fn every_row_names_its_source_and_has_fma() {
        for c in ARM_CORES {
            assert!(!c.source.is_empty(), "{}", c.uarch.name);
            assert!(
                c.uarch.rate(Pipe::Fma, Width::V128) > 0.0,
                "{}",
                c.uarch.name
            );
        }
    }

    /// Issue #42 item 4: the rows corrected against their sources. AmpereOne and
    /// AmpereOne A multiply on both vector units and run one SMMLA/BFMMLA per cycle
    /// (two SDOT/BFDOT); AmpereOne B runs two of each; A64FX multiplies on FLA and FLB.
    #[test]
    fn corrected_rows_follow_their_sources() {
        let rate = |v: &str, part: u32, pipe: Pipe, w: Width| {
            lookup(v, part)
                .unwrap_or_else(|| panic!("{v} {part:#x}"))
                .uarch
                .rate(pipe, w)
        };
        use Pipe::*;
        use Width::*;
        for part in [0xac3, 0xac4] {
            assert_eq!(rate("Ampere", part, Mul32, V128), 2.0);
            assert_eq!(rate("Ampere", part, Dot, V128), 2.0);
            assert_eq!(rate("Ampere", part, DotBf16, V128), 2.0);
            assert_eq!(rate("Ampere", part, Mmla, V128), 1.0);
            assert_eq!(rate("Ampere", part, MmlaBf16, V128), 1.0);
        }
        assert_eq!(rate("Ampere", 0xac5, Mmla, V128), 2.0);
        assert_eq!(rate("Ampere", 0xac5, MmlaBf16, V128), 2.0);
        assert_eq!(rate("Ampere", 0xac5, Mul32, V128), 2.0);
        assert_eq!(rate("Fujitsu", 0x001, Mul32, V512), 2.0);
        assert_eq!(rate("Fujitsu", 0x001, Mul64, V512), 2.0);
        assert_eq!(rate("Fujitsu", 0x001, Mul32, V128), 2.0);
        // No SVE and no SVE widths on AmpereOne.
        assert_eq!(rate("Ampere", 0xac3, Fma, V256), 0.0);
    }

    /// Issue #42 item 4: the new rows, each found by the implementer and part its cores
    /// report (Linux's cputype.h), with its 128-bit FMLA rate.
    #[test]
    fn new_rows_identify_by_midr() {
        for (vendor, part, row, fma) in [
            ("ARM", 0xd84, "Neoverse V3/V3AE", 4.0),
            ("ARM", 0xd83, "Neoverse V3/V3AE", 4.0),
            ("ARM", 0xd8e, "Neoverse N3", 2.0),
            ("ARM", 0xd82, "Cortex-X4", 4.0),
            ("ARM", 0xd85, "Cortex-X925", 4.0),
            ("ARM", 0xd87, "Cortex-A720/A725", 2.0),
            ("ARM", 0xd81, "Cortex-A720/A725", 2.0),
            ("ARM", 0xd80, "Cortex-A520", 2.0),
            ("ARM", 0xd46, "Cortex-A510", 2.0),
            ("ARM", 0xd4b, "Cortex-A78C", 2.0),
            ("ARM", 0xd0d, "Cortex-A77", 2.0),
            ("ARM", 0xd07, "Cortex-A57", 1.0),
            ("ARM", 0xd04, "Cortex-A35", 1.0),
            ("Qualcomm", 0x001, "Qualcomm Oryon", 4.0),
            (
                "Apple",
                0x023,
                "Apple Firestorm/Avalanche (M1/M2 P-core)",
                4.0,
            ),
            (
                "Apple",
                0x039,
                "Apple Firestorm/Avalanche (M1/M2 P-core)",
                4.0,
            ),
            (
                "Apple",
                0x022,
                "Apple Icestorm/Blizzard (M1/M2 E-core)",
                2.0,
            ),
            (
                "Apple",
                0x034,
                "Apple Icestorm/Blizzard (M1/M2 E-core)",
                2.0,
            ),
            ("NVIDIA", 0x004, "NVIDIA Denver/Carmel", 2.0),
            ("NVIDIA", 0x003, "NVIDIA Denver/Carmel", 2.0),
            ("HiSilicon", 0xd01, "HiSilicon TSV110 (Kunpeng 920)", 2.0),
            ("Cavium", 0x0af, "Marvell ThunderX2", 2.0),
            ("Broadcom", 0x516, "Broadcom Vulcan (ThunderX2)", 2.0),
            ("Ampere", 0xac5, "AmpereOne B", 2.0),
        ] {
            let id = identify(vendor, part);
            assert_eq!(
                (id.row.as_str(), id.by.as_str()),
                (row, "model"),
                "{vendor} {part:#x}"
            );
            let u = by_name(row).unwrap().uarch;
            assert_eq!(u.rate(Pipe::Fma, Width::V128), fma, "{row}");
        }
        // NVIDIA's Grace reports Arm's Neoverse V2; Apple's part numbers are Apple's.
        assert_eq!(identify("ARM", 0xd4f).row, "Neoverse V2");
        assert_eq!(identify("ARM", 0x023).row, GENERIC);
    }

    /// No two rows claim the same implementer and part, and every row but the generic
    /// one has parts.
    #[test]
    fn parts_are_unique() {
        let mut seen = std::collections::HashSet::new();
        for c in ARM_CORES {
            if c.uarch.name == GENERIC {
                assert!(c.uarch.models.is_empty());
                continue;
            }
            assert!(!c.uarch.models.is_empty(), "{}", c.uarch.name);
            for &(lo, hi) in c.uarch.models {
                for part in lo..=hi {
                    assert!(
                        seen.insert((c.implementer, part)),
                        "{} repeats {:#x}/{part:#x}",
                        c.uarch.name,
                        c.implementer
                    );
                }
            }
        }
    }
}
