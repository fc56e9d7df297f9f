//! The rate of the F16C fp16 loop (`bench::cpu::x86::fma_f16_f16c`) per x86 core row:
//! how many of its steps — `vcvtph2ps ymm, xmm` (fp16 → fp32), `vfmadd132ps ymm`,
//! `vcvtps2ph xmm, ymm` (fp32 → fp16) on one of 12 independent accumulators — a core
//! finishes per cycle, counted as the step's one FMA (`uarch_row::Pipe::F16c`). The
//! step is three instructions on shared ports, so its rate is not one unit count of the
//! table: it follows from which ports each instruction's µops take, and each row below
//! says which port bounds it, where the µop counts come from, and what `llvm-mca`
//! (LLVM 19) gives for the kernel's exact inner loop (36 instructions + `dec`/`jnz`,
//! 12 steps per iteration) on that core. A row the loop has no figure for says why.
//!
//! The dependent chain of a step (conversion, FMA, conversion: 12–18 cycles on these
//! cores) is spread over 12 accumulators, so no core here is latency-bound below
//! 0.67 step per cycle; the port bound (0.5) is the rate.
//!
//! The peak is at the clock of the licence the loop runs in: its own chain and the
//! host's sustained reading are those of 256-bit FP code (`hw::clock::ClockKind::Avx2`).
//! At the add chain's clock the row read 80 % on Cascade Lake; at the AVX2 licence's
//! (2.68 against 3.05 GHz there) it reads about 92 %: the loop's 12 steps take 26
//! cycles against the ports' 24.
//!
//! The execution probe (`hw::probe`, `Test::F16c`) times the same loop at every measured
//! start and meets this table as every probed class does: it confirms a row's figure,
//! overrules a lower one, and gives a row without a figure (the Zen and Lion Cove rows
//! below) the count it settles on, so those rows get a peak on the machine itself.
//!
//! Kept beside the table rather than in `Uarch` so the Arm rows (which never run the
//! loop) need no field for it. BENCHMARKS.md ("fp16 through F16C") has the loop as
//! `llvm-mca` input and the command that gives these figures.

/// The figure of one group of rows: a rate with its source, or why there is none.
struct Entry {
    /// Row names (`Uarch::name`) this entry answers for.
    rows: &'static [&'static str],
    /// Steps per cycle per core (0: no figure).
    per_cycle: f64,
    /// Which µops go to which ports and what bounds the step, with the sources; or,
    /// with no figure, why there is none.
    ports: &'static str,
    /// `llvm-mca`'s cycles for one iteration (12 steps) on the cores of the rows.
    mca: &'static str,
}

/// Intel cores from Skylake to Golden Cove/Redwood Cove: both conversions are 2 µops,
/// one on port 0 or 1 and one on port 5; the FMA is one µop on port 0 or 1.
const INTEL_P5: &str = "F16C step = vcvtph2ps ymm (2 uops: p0/p1 + p5) + vfmadd132ps ymm (p0/p1) + vcvtps2ph ymm (2 uops: p0/p1 + p5): port 5 takes 2 uops per step, so 1 step per 2 cycles (p0+p1 take 3 per step: 1.5 cycles) [Intel optimization manual port tables, Agner Fog's instruction tables, uops.info]";

static ENTRIES: &[Entry] = &[
    Entry {
        rows: &[
            "Skylake/Kaby Lake/Coffee Lake/Comet Lake (client)",
            "Skylake-SP/Cascade Lake (one 512-bit FMA unit)",
            "Skylake-SP/Cascade Lake/Cooper Lake",
            "Ice Lake-SP",
            "Ice Lake/Tiger Lake/Rocket Lake (client)",
        ],
        per_cycle: 0.5,
        ports: INTEL_P5,
        mca: "llvm-mca -mcpu=skylake/skylake-avx512/cascadelake/icelake-server/icelake-client/tigerlake/rocketlake: 24.0 cycles per 12 steps",
    },
    Entry {
        rows: &[
            "Granite Rapids",
            "Sapphire Rapids/Emerald Rapids",
            "Alder Lake P-core with AVX-512 enabled",
            "Alder Lake/Raptor Lake/Meteor Lake (P-core)",
        ],
        per_cycle: 0.5,
        ports: INTEL_P5,
        mca: "llvm-mca -mcpu=alderlake/raptorlake/meteorlake/sapphirerapids/emeraldrapids/graniterapids: 24.0 cycles per 12 steps",
    },
    Entry {
        rows: &["Haswell/Broadwell"],
        per_cycle: 0.5,
        ports: "F16C step = vcvtph2ps ymm (2 uops: p0 + p5) + vfmadd132ps ymm (p0/p1) + vcvtps2ph ymm (2 uops: p1 + p5): port 5 takes 2 uops per step, so 1 step per 2 cycles [Agner Fog's instruction tables, uops.info]",
        mca: "llvm-mca -mcpu=haswell/broadwell: 25.0 cycles per 12 steps (its scheduler loses a cycle per iteration; the port bound is 24)",
    },
    // Zen 3/4/5: the pipe model below (both conversions 2 µops on FP2/FP3, 0.5 step per
    // cycle) and llvm-mca's 24.0 cycles per 12 steps agree with each other, but the one
    // measurement on these cores contradicts them: 61.7 GFLOP/s at 2 threads on the Zen 4
    // guest (issue #49) is 0.52 step per cycle at its 3.69 GHz, so the loop runs faster
    // than the model allows and the row would read 104.5 %. Until a Zen run shows which
    // pipes the conversions really take, the table holds no figure for these rows: the
    // probe's settled count is their rate, or they say why they have no peak.
    Entry {
        rows: &["Zen 3", "Zen 4", "Zen 5", "Zen 5 (mobile, 256-bit datapath)"],
        per_cycle: 0.0,
        ports: "no F16C figure for this core: the pipe model (both conversions 2 uops on FP2/FP3: 4 uops on 2 pipes, 0.5 step per cycle) and llvm-mca -mcpu=znver3/znver4/znver5 (24.0 cycles per 12 steps) are contradicted by a measured 0.52 step per cycle on Zen 4 (61.7 GFLOP/s at 2 threads, 3.69 GHz): which pipes the conversions take on Zen 3/4/5 is not known well enough for a peak",
        mca: "",
    },
    Entry {
        rows: &["Zen/Zen+", "Zen 2"],
        per_cycle: 0.0,
        ports: "no F16C figure for this core: LLVM 19's znver1/znver2 models give the F16C conversions a placeholder (100-cycle latency: 205 cycles per 12 steps in llvm-mca), and this table holds no vendor per-pipe figure for them",
        mca: "",
    },
    Entry {
        rows: &["Arrow Lake/Lunar Lake (Lion Cove P-core)"],
        per_cycle: 0.0,
        ports: "no F16C figure for this core: Lion Cove's vector ports differ from Golden Cove's, LLVM 19 models it with Golden Cove's (-mcpu=arrowlake/lunarlake: 24.0 cycles per 12 steps, no evidence for Lion Cove), and this table holds no per-port figure for its F16C conversions",
        mca: "",
    },
];

/// The F16C loop's steps per cycle per core on row `row` (0 when the row has no figure).
pub(crate) fn per_cycle(row: &str) -> f64 {
    entry(row).map_or(0.0, |e| e.per_cycle)
}

/// Where row `row`'s F16C rate comes from; when it has none, why (every row: a row this
/// module does not list — Arm, a core without FMA, the unknown row — gets a sentence
/// naming it).
pub(crate) fn source(row: &str) -> String {
    match entry(row) {
        Some(e) if e.mca.is_empty() => e.ports.to_string(),
        Some(e) => format!("{}; {}", e.ports, e.mca),
        None => format!(
            "no F16C figure for row '{row}': the loop's rate is given per x86 core row that runs it"
        ),
    }
}

fn entry(row: &str) -> Option<&'static Entry> {
    ENTRIES.iter().find(|e| e.rows.contains(&row))
}

/// Every row name the entries answer for (with a figure or a reason).
#[cfg(test)]
pub(crate) fn rows() -> impl Iterator<Item = &'static str> {
    ENTRIES.iter().flat_map(|e| e.rows.iter().copied())
}

/// Whether row `row` has an entry (with a figure or a reason).
#[cfg(test)]
pub(crate) fn listed(row: &str) -> bool {
    entry(row).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An entry with a figure names its ports and llvm-mca's cycles; one without says
    /// why. (That every x86 row running the loop has an entry: `uarch.rs`'s tests.)
    #[test]
    fn every_entry_has_its_sources_or_its_reason() {
        for e in ENTRIES {
            if e.per_cycle > 0.0 {
                assert!(e.mca.starts_with("llvm-mca -mcpu="), "{}", e.mca);
                assert!(e.ports.starts_with("F16C step = "), "{}", e.ports);
                assert!(source(e.rows[0]).contains("; llvm-mca -mcpu="));
            } else {
                assert!(e.ports.starts_with("no F16C figure") && e.mca.is_empty());
                assert_eq!(per_cycle(e.rows[0]), 0.0);
            }
        }
        assert_eq!(per_cycle("Zen 4"), 0.0);
        assert!(source("Zen 4").contains("0.52 step per cycle"));
        assert_eq!(per_cycle("Skylake-SP/Cascade Lake/Cooper Lake"), 0.5);
        assert!(source("Zen 2").contains("placeholder"));
        assert!(source("Neoverse N1").starts_with("no F16C figure for row 'Neoverse N1'"));
    }
}
