//! The 64-bit Arm core table: FP/SIMD instructions started per cycle per core by
//! implementer and part number (MIDR), at vector widths [128, 256, 512] bits, each row
//! with the document its figures come from. NEON instructions are 128-bit; SVE ones run
//! at the core's vector length (A64FX 512, Neoverse V1 256, N2/V2 128), so an SVE
//! kernel's width is read at run time and its rate taken at that width.
//!
//! Pipe classes as in `uarch_row::Pipe`: FMLA (`Fma`; FP16 FMLA runs on the same pipes at
//! the same rate), FMUL+FADD (`MulAdd`), integer ADD (`Alu`), MUL .4S (`Mul32`), SVE MUL
//! .D (`Mul64`), SDOT/UDOT (`Dot`; SMMLA/UMMLA are taken at the same rate, see each
//! note), BFDOT (`DotBf16`; BFMMLA likewise).
//!
//! Identification by implementer and part comes first; a part that is not here gets
//! the generic row (2 × 128-bit FMA), saying so.

use super::uarch_row::{Identification, Uarch};

const ARM: &str = "aarch64";
const Z: [f64; 3] = [0.0; 3];

/// One core of the table: the implementer code, the rates, and where they come from.
pub(crate) struct ArmCore {
    /// MIDR implementer (0x41 Arm, 0x46 Fujitsu, 0xc0 Ampere).
    pub(crate) implementer: u32,
    /// The row (its `models` are the part numbers).
    pub(crate) uarch: Uarch,
    /// The document the rates come from.
    pub(crate) source: &'static str,
}

#[allow(clippy::too_many_arguments)]
const fn core(
    implementer: u32,
    name: &'static str,
    parts: &'static [(u32, u32)],
    fma: [f64; 3],
    alu: [f64; 3],
    mul32: [f64; 3],
    mul64: [f64; 3],
    dot: [f64; 3],
    dot_bf16: [f64; 3],
    note: &'static str,
    source: &'static str,
) -> ArmCore {
    ArmCore {
        implementer,
        uarch: Uarch {
            name,
            vendor: ARM,
            family: 0,
            models: parts,
            needs: &[],
            lacks: &[],
            brands: &[],
            fma,
            // FMUL and FADD issue on the same FP pipes as FMLA on every core here.
            muladd: fma,
            alu,
            mul32,
            mul64,
            dot,
            dot_bf16,
            fp16: 0.0,
            amx: 0.0,
            note,
        },
        source,
    }
}

const A: u32 = 0x41;

/// The Arm cores, by implementer and part.
#[rustfmt::skip]
pub(crate) static ARM_CORES: &[ArmCore] = &[
    core(A, "Cortex-A53", &[(0xd03, 0xd03)], [1.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.5, 0.0, 0.0], Z, Z, Z,
        "in-order; one 128-bit FMLA per cycle (64-bit datapaths paired); fp64 Q-form FMLA may issue at half that",
        "Arm publishes no optimization guide for the A53: Cortex-A53 TRM (NEON/FP pipeline) and public kernel notes (ncnn, XNNPACK)"),
    core(A, "Cortex-A55", &[(0xd05, 0xd05)], [1.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.5, 0.0, 0.0], Z, [1.0, 0.0, 0.0], Z,
        "in-order; Q-form (128-bit) ASIMD instructions use both 64-bit pipes: one per cycle",
        "Arm Cortex-A55 Software Optimization Guide (ASIMD FP and integer instruction tables)"),
    core(A, "Cortex-A72", &[(0xd08, 0xd08)], [2.0, 0.0, 0.0], [2.0, 0.0, 0.0], [0.5, 0.0, 0.0], Z, Z, Z,
        "two 128-bit FP/ASIMD pipes F0/F1; integer multiply on F0 only; no dot product (Armv8.0)",
        "Arm Cortex-A72 Software Optimization Guide"),
    core(A, "Cortex-A76", &[(0xd0b, 0xd0b)], [2.0, 0.0, 0.0], [2.0, 0.0, 0.0], [1.0, 0.0, 0.0], Z, [2.0, 0.0, 0.0], Z,
        "two 128-bit FP/ASIMD pipes V0/V1; integer multiply on V0",
        "Arm Cortex-A76 Software Optimization Guide"),
    core(A, "Cortex-A78", &[(0xd41, 0xd41)], [2.0, 0.0, 0.0], [2.0, 0.0, 0.0], [1.0, 0.0, 0.0], Z, [2.0, 0.0, 0.0], Z,
        "two 128-bit FP/ASIMD pipes V0/V1; integer multiply on V0",
        "Arm Cortex-A78 Software Optimization Guide"),
    core(A, "Cortex-X1", &[(0xd44, 0xd44)], [4.0, 0.0, 0.0], [4.0, 0.0, 0.0], [2.0, 0.0, 0.0], Z, [4.0, 0.0, 0.0], Z,
        "four 128-bit FP/ASIMD pipes V0-V3; integer multiply on V0/V2",
        "Arm Cortex-X1 Software Optimization Guide"),
    core(A, "Cortex-A710/A715", &[(0xd47, 0xd47), (0xd4d, 0xd4d)], [2.0, 0.0, 0.0], [2.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.5, 0.0, 0.0], [2.0, 0.0, 0.0], [2.0, 0.0, 0.0],
        "two 128-bit pipes, SVE2 at 128 bits; SMMLA/BFMMLA assumed at the SDOT/BFDOT instruction rate",
        "Arm Cortex-A710 and Cortex-A715 Software Optimization Guides"),
    core(A, "Cortex-X2/X3", &[(0xd48, 0xd48), (0xd4e, 0xd4e)], [4.0, 0.0, 0.0], [4.0, 0.0, 0.0], [2.0, 0.0, 0.0], [1.0, 0.0, 0.0], [4.0, 0.0, 0.0], [4.0, 0.0, 0.0],
        "four 128-bit pipes, SVE2 at 128 bits; SMMLA/BFMMLA assumed at the SDOT/BFDOT instruction rate",
        "Arm Cortex-X2 and Cortex-X3 Software Optimization Guides"),
    core(A, "Neoverse N1", &[(0xd0c, 0xd0c)], [2.0, 0.0, 0.0], [2.0, 0.0, 0.0], [1.0, 0.0, 0.0], Z, [2.0, 0.0, 0.0], Z,
        "two 128-bit FP/ASIMD pipes V0/V1 (Graviton2, Ampere Altra); integer multiply on V0",
        "Arm Neoverse N1 Software Optimization Guide"),
    core(A, "Neoverse N2", &[(0xd49, 0xd49)], [2.0, 0.0, 0.0], [2.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.5, 0.0, 0.0], [2.0, 0.0, 0.0], [2.0, 0.0, 0.0],
        "two 128-bit pipes V0/V1, SVE2 at 128 bits; SMMLA/BFMMLA assumed at the SDOT/BFDOT instruction rate",
        "Arm Neoverse N2 Software Optimization Guide"),
    core(A, "Neoverse V1", &[(0xd40, 0xd40)], [4.0, 2.0, 0.0], [4.0, 2.0, 0.0], [2.0, 1.0, 0.0], [0.0, 0.5, 0.0], [4.0, 2.0, 0.0], [4.0, 2.0, 0.0],
        "four 128-bit NEON pipes that pair into two 256-bit SVE pipes (Graviton3); SMMLA/BFMMLA assumed at the SDOT/BFDOT instruction rate",
        "Arm Neoverse V1 Software Optimization Guide"),
    core(A, "Neoverse V2", &[(0xd4f, 0xd4f)], [4.0, 0.0, 0.0], [4.0, 0.0, 0.0], [2.0, 0.0, 0.0], [1.0, 0.0, 0.0], [4.0, 0.0, 0.0], [4.0, 0.0, 0.0],
        "four 128-bit pipes, SVE2 at 128 bits (Graviton4, NVIDIA Grace); SMMLA/BFMMLA assumed at the SDOT/BFDOT instruction rate",
        "Arm Neoverse V2 Software Optimization Guide"),
    core(0x46, "A64FX", &[(0x001, 0x001)], [2.0, 0.0, 2.0], [2.0, 0.0, 2.0], [1.0, 0.0, 1.0], [0.0, 0.0, 1.0], [2.0, 0.0, 2.0], Z,
        "two 512-bit SVE pipes FLA/FLB (NEON on the same two pipes); integer multiply on FLA only",
        "Fujitsu A64FX Microarchitecture Manual"),
    core(0xc0, "AmpereOne", &[(0xac3, 0xac5)], [2.0, 0.0, 0.0], [2.0, 0.0, 0.0], [1.0, 0.0, 0.0], Z, [2.0, 0.0, 0.0], [2.0, 0.0, 0.0],
        "Ampere's own core (AmpereOne, 1A, 1B): two 128-bit vector units with FP16, BF16, INT8; no SVE; multiply and dot rates assumed as on Neoverse N1",
        "Ampere AmpereOne product brief (two 128-bit vector units per core)"),
    core(0, "generic aarch64 (2 x 128-bit FMA)", &[], [2.0, 0.0, 0.0], [2.0, 0.0, 0.0], [1.0, 0.0, 0.0], Z, [2.0, 0.0, 0.0], Z,
        "typical of Neoverse N1/N2 and Cortex-A7x; wider cores (V1/V2, X1-X3, Apple) have more",
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
}
