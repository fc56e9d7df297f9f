//! What the execution probe (`probe.rs`) found: one entry per test ([`ProbeEntry`], a
//! count or why there is none), each further kind of core of an aarch64 machine
//! ([`KindProbe`]), the whole [`ProbeReport`] with its lookups, the rates the peaks take
//! from it ([`ProbeReport::rates`], by the test that answers for each table pipe and
//! width) and the text `sysinfo` prints.

use super::probe_class::Test;
use super::rates::{Probed, ProbedRate};
use super::uarch::{Pipe, Width};
use std::fmt;

/// Why a probe test has no count.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub(crate) enum ProbeError {
    /// The CPU lacks the instructions the test needs (peakbench feature names): the
    /// test is not run, nor retried, and the report lists it apart.
    #[error("probe: CPU lacks {}", .0.join(", "))]
    Lacks(Vec<String>),
    /// Anything else: no probe loops on this architecture, ambiguous or noisy
    /// readings, AMX permission refused.
    #[error("{0}")]
    Other(String),
}

impl From<String> for ProbeError {
    fn from(s: String) -> Self {
        ProbeError::Other(s)
    }
}

impl From<&str> for ProbeError {
    fn from(s: &str) -> Self {
        ProbeError::Other(s.to_string())
    }
}

/// One test's outcome: the unit count, or why there is none.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ProbeEntry {
    /// The test.
    pub(crate) test: Test,
    /// The settled count, or the reason (CPU lacks the instructions, ambiguous or
    /// noisy measurement, AMX permission refused).
    pub(crate) result: Result<Probed, ProbeError>,
}

/// The probe of one further kind of core of an aarch64 machine.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct KindProbe {
    /// The kind: implementer and part, e.g. `ARM part 0xd05`.
    pub(crate) kind: String,
    /// The CPUs its readings were taken on.
    pub(crate) cpus: Vec<usize>,
    /// One entry per test of [`ARM_TESTS`].
    ///
    /// [`ARM_TESTS`]: super::probe_class::ARM_TESTS
    pub(crate) entries: Vec<ProbeEntry>,
}

/// Everything the probe found on one core.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct ProbeReport {
    /// One entry per test of [`tests_here`], in that order (on aarch64 those of the
    /// first kind of core, the one the CPU is identified by).
    ///
    /// [`tests_here`]: super::probe_class::tests_here
    pub(crate) entries: Vec<ProbeEntry>,
    /// aarch64 machines with several kinds of core (big.LITTLE): each further kind's
    /// entries, probed on its own CPUs (`hw::arm::CorePart`).
    pub(crate) other_kinds: Vec<KindProbe>,
    /// The first CPU the probe ran on, when it could be pinned.
    pub(crate) cpu: Option<usize>,
    /// Every CPU it took readings on (empty when it could not pin).
    pub(crate) cpus: Vec<usize>,
    /// Wall time the probe took, seconds.
    pub(crate) seconds: f64,
}

impl ProbeReport {
    /// The entry of a test.
    pub(crate) fn get(&self, test: Test) -> Option<&ProbeEntry> {
        self.entries.iter().find(|e| e.test == test)
    }

    /// The settled count of a test, or why there is none.
    #[cfg(test)]
    pub(crate) fn result(&self, test: Test) -> Result<Probed, String> {
        match self.get(test) {
            Some(e) => e.result.clone().map_err(|e| e.to_string()),
            None => Err(format!("probe: {} not probed", test.name())),
        }
    }

    /// Instructions per cycle for a table pipe and width: FMA (not mul+add; see
    /// `ProbeReport::for_kernel`, test builds), vpmulld, vpmullq, vpdpbusd for `Dot`, FP16 FMA,
    /// tdpbf16ps for `Amx`. `Scalar` uses the 128-bit test. `None` when the probe did not
    /// settle it; [`ProbeReport::result`] gives the reason.
    #[cfg(test)]
    pub(crate) fn per_cycle(&self, pipe: Pipe, width: Width) -> Option<Probed> {
        self.result(canonical_test(pipe, width)?).ok()
    }

    /// The settled count for a kernel of `bench::cpu::kernels` by name (the exact
    /// instruction it runs: mul+add kernels get the mul+add test, bf16 dot products
    /// vdpbf16ps, …), or why there is none.
    #[cfg(test)]
    pub(crate) fn for_kernel(&self, kernel: &str) -> Result<Probed, String> {
        match Test::for_kernel(kernel) {
            Some(t) => self.result(t),
            None => Err(format!("probe: kernel {kernel} is not probed")),
        }
    }
}

/// The test that answers for a table (pipe, width): the instruction the kernels of that
/// class run at that width (scalar kernels use the 128-bit pipes). Classes the probe
/// measures at one width only (vpmullq, vdpbf16ps, AVX512-FP16 at 512 bits, AMX tiles,
/// the F16C step at 256 bits) answer for that width only.
fn canonical_test(pipe: Pipe, width: Width) -> Option<Test> {
    use Width::*;
    let w = match width {
        Scalar => V128,
        w => w,
    };
    if cfg!(target_arch = "aarch64") {
        return arm_canonical_test(pipe, w, super::probe_class::sve_width());
    }
    Some(match (pipe, w) {
        (Pipe::Amx, Tile) => Test::AmxBf16,
        (_, Tile) | (Pipe::Alu, _) => return None,
        (Pipe::Fma, w) => Test::Fma(w),
        (Pipe::MulAdd, w) => Test::MulAdd(w),
        (Pipe::Mul32, w) => Test::Vpmulld(w),
        (Pipe::Mul64, V512) => Test::Vpmullq,
        (Pipe::Dot, V256 | V512) => Test::Vpdpbusd(w),
        (Pipe::DotBf16, V512) => Test::Vdpbf16ps,
        (Pipe::Fp16, V512) => Test::Fp16Fma,
        (Pipe::F16c, V256) => Test::F16c,
        _ => return None,
    })
}

/// aarch64's [`canonical_test`]: the 128-bit FMA, dot-product and matrix pipes (NEON
/// FMLA, SDOT, SMMLA, BFMMLA) and FMA at the machine's SVE vector length `sve` when it
/// is wider (SVE FMLA); the other classes are not probed.
pub(super) fn arm_canonical_test(pipe: Pipe, width: Width, sve: Width) -> Option<Test> {
    match (pipe, width) {
        (Pipe::Fma, Width::V128) => Some(Test::Fmla),
        (Pipe::Fma, w) if w == sve => Some(Test::SveFmla),
        (Pipe::Dot, Width::V128) => Some(Test::Sdot),
        (Pipe::Mmla, Width::V128) => Some(Test::Smmla),
        (Pipe::MmlaBf16, Width::V128) => Some(Test::Bfmmla),
        _ => None,
    }
}

impl ProbeReport {
    /// The settled counts as the peaks' rates take them (`CpuInfo::probed`): one entry
    /// per (pipe, width) whose canonical test settled, evidence without its `probe:`
    /// prefix (the provenance says "probe" already).
    pub(crate) fn rates(&self) -> Vec<ProbedRate> {
        use Width::*;
        let mut out = Vec::new();
        // The ALUs have no probe test (their rate is the table's); the F16C step has
        // one, though its table rate is not a column of the row.
        let pipes = Pipe::TABLED.into_iter().chain([Pipe::F16c]);
        for pipe in pipes.filter(|&p| p != Pipe::Alu) {
            for width in [V128, V256, V512, Tile] {
                let Some(test) = canonical_test(pipe, width) else {
                    continue;
                };
                let probed = match self.get(test).map(|e| &e.result) {
                    Some(Ok(p)) => Probed {
                        evidence: p.evidence.trim_start_matches("probe: ").to_string(),
                        ..p.clone()
                    },
                    // Ran but settled on nothing: the table stands and says why.
                    Some(Err(ProbeError::Other(why))) => Probed {
                        evidence: why.trim_start_matches("probe: ").to_string(),
                        ..Probed::default()
                    },
                    _ => continue,
                };
                out.push(ProbedRate {
                    pipe,
                    width,
                    probed,
                });
            }
        }
        out
    }
}

impl fmt::Display for ProbeReport {
    /// One line per test that ran, then one line naming those the CPU lacks.
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let on = match self.cpus.as_slice() {
            [] => self.cpu.map_or("unpinned".into(), |c| format!("cpu {c}")),
            [c] => format!("cpu {c}"),
            cs => format!(
                "cpus {}",
                cs.iter()
                    .map(|c| c.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        writeln!(
            f,
            "execution probe ({on}, {:.2} s; instructions per core cycle):",
            self.seconds
        )?;
        write_entries(f, &self.entries, "  ")?;
        for k in &self.other_kinds {
            writeln!(
                f,
                "  {} (cpus {}):",
                k.kind,
                k.cpus
                    .iter()
                    .map(|c| c.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            )?;
            write_entries(f, &k.entries, "    ")?;
        }
        Ok(())
    }
}

/// One line per entry that ran, then one naming those the CPU lacks.
fn write_entries(f: &mut fmt::Formatter, entries: &[ProbeEntry], indent: &str) -> fmt::Result {
    let mut lacking = Vec::new();
    for e in entries {
        match &e.result {
            Ok(p) => writeln!(f, "{indent}{}", p.evidence.trim_start_matches("probe: "))?,
            Err(ProbeError::Lacks(_)) => lacking.push(e.test.name()),
            Err(r) => writeln!(
                f,
                "{indent}{}: none, {}",
                e.test.name(),
                r.to_string().trim_start_matches("probe: ")
            )?,
        }
    }
    if !lacking.is_empty() {
        writeln!(
            f,
            "{indent}not run (CPU lacks them): {}",
            lacking.join(", ")
        )?;
    }
    Ok(())
}
