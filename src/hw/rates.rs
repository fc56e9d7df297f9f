//! Instructions per cycle per core for one (pipe, width), with provenance: the
//! identified table row, an execution-resource probe (`hw::probe`, which measures how
//! many instructions a core retires per cycle), or both reconciled.
//!
//! Provenance strings, as issue #11 specifies them:
//! - `table` — only the row has a rate;
//! - `probe` — only the probe does (unknown CPU, or a class the row lacks);
//! - `table, confirmed by probe` — both, within [`AGREE`];
//! - `probe overrules table (…)` — both, and they differ: the probe measured this
//!   core (a one-FMA-unit Xeon the brand did not reveal, a masked model), the table
//!   only guessed it;
//! - `table kept (…)` — the probe read less than the table but may not lower it
//!   (issue #31): a disturbance (another tenant on the core, the host) only ever lowers
//!   a throughput, so the probe lowers a table value only when its readings agree with
//!   each other ([`Probed::consistent`]) and the lower count is one the table holds for
//!   this class on another row of the same vendor (a one-FMA-unit SKU of a two-unit
//!   model, say; [`super::uarch::possible_rates`]). A probe that read *more* than the
//!   table is believed: contention never raises a reading.
//! - `table (probe unsettled: …)` — the probe ran but settled on no count.

use super::uarch::{Identification, Pipe, Uarch, Width};
use serde::{Deserialize, Serialize};

/// A probe's answer for one (pipe, width): whole units per cycle (or the tile rate),
/// and how it was measured.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub(crate) struct Probed {
    /// Instructions per cycle per core the probe settled on; 0 when it settled on
    /// none (`evidence` then says why).
    pub(crate) per_cycle: f64,
    /// How it was measured, in a few words (shown in the provenance).
    pub(crate) evidence: String,
    /// The readings (instructions per cycle) taken while their thread kept its core,
    /// in the order taken, over every CPU probed (empty in files from before #31).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) readings: Vec<f64>,
    /// (largest − smallest) ÷ largest of `readings`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) spread: Option<f64>,
    /// Readings left out because their thread lost its core while it was measured.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub(crate) dropped: usize,
    /// Whether every reading snapped to the same count: only then may the probe lower
    /// a table value.
    #[serde(default)]
    pub(crate) consistent: bool,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// A probe result for one (pipe, width), as `CpuInfo::probed` stores them.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub(crate) struct ProbedRate {
    /// Execution resource.
    pub(crate) pipe: Pipe,
    /// Vector width.
    pub(crate) width: Width,
    /// The result.
    pub(crate) probed: Probed,
}

/// Relative difference under which the probe confirms the table.
pub(crate) const AGREE: f64 = 0.10;

/// Instructions per cycle per core and where the figure came from.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Rate {
    /// Instructions per cycle per core; 0 when unknown.
    pub(crate) per_cycle: f64,
    /// `table`, `probe`, `table, confirmed by probe`, `probe overrules table (…)`,
    /// `table kept (…)`, or `unknown: …`.
    pub(crate) provenance: String,
    /// The table's rate (0 when the row has none): what a case falls back to when it
    /// ran faster than a probe that lowered the table allowed.
    pub(crate) table: f64,
    /// The probe read a different count but the table's stands (the run's verdict
    /// counts these).
    pub(crate) kept_table: bool,
}

impl Rate {
    /// Whether the probe lowered the table's value.
    pub(crate) fn lowered_by_probe(&self) -> bool {
        self.table > 0.0 && self.per_cycle > 0.0 && self.per_cycle < self.table
    }

    /// The table's rate instead of a probe's that a case outran: the probe was wrong.
    /// `why` says what the case measured.
    pub(crate) fn back_to_table(&self, why: &str) -> Rate {
        Rate {
            per_cycle: self.table,
            provenance: format!(
                "table, the probe's lower figure was wrong ({why}; {})",
                self.provenance
            ),
            table: self.table,
            kept_table: true,
        }
    }
}

/// Reconciles the table's rate (`table` ≤ 0: the row has none) with an optional probe,
/// with no other table value possible for the class (a probe never lowers it).
#[cfg(test)]
pub(crate) fn reconcile(table: f64, probe: Option<&Probed>) -> Rate {
    reconcile_with(table, &[], probe)
}

/// Reconciles the table's rate (`table` ≤ 0: the row has none) with an optional probe;
/// `possible` are the counts the table holds for this class on rows of the same vendor
/// (see the module documentation for when the probe may lower the table).
pub(crate) fn reconcile_with(table: f64, possible: &[f64], probe: Option<&Probed>) -> Rate {
    let rate = |per_cycle: f64, provenance: String| Rate {
        per_cycle,
        provenance,
        table: table.max(0.0),
        kept_table: false,
    };
    let unsettled = probe.filter(|p| !(p.per_cycle.is_finite() && p.per_cycle > 0.0));
    let probe = probe.filter(|p| p.per_cycle.is_finite() && p.per_cycle > 0.0);
    match (table > 0.0, probe) {
        (true, None) => match unsettled.filter(|p| !p.evidence.is_empty()) {
            Some(u) => Rate {
                kept_table: true,
                ..rate(table, format!("table (probe unsettled: {})", u.evidence))
            },
            None => rate(table, "table".into()),
        },
        (false, Some(p)) => rate(p.per_cycle, format!("probe ({})", p.evidence)),
        (true, Some(p)) if ((p.per_cycle - table) / table).abs() <= AGREE => {
            rate(table, format!("table, confirmed by probe ({})", p.evidence))
        }
        (true, Some(p))
            if p.per_cycle > table
                || (p.consistent && possible.iter().any(|v| (v - p.per_cycle).abs() < 1e-9)) =>
        {
            rate(
                p.per_cycle,
                format!(
                    "probe overrules table (table {}, probe {}: {})",
                    trim_float(table),
                    trim_float(p.per_cycle),
                    p.evidence
                ),
            )
        }
        (true, Some(p)) => {
            let why = if !p.consistent {
                format!(
                    "its readings disagree{}",
                    p.spread
                        .map(|s| format!(" (spread {:.0} %)", s * 100.0))
                        .unwrap_or_default()
                )
            } else {
                format!(
                    "{} is not a count the table holds for this class (it holds {})",
                    trim_float(p.per_cycle),
                    if possible.is_empty() {
                        trim_float(table)
                    } else {
                        possible
                            .iter()
                            .map(|v| trim_float(*v))
                            .collect::<Vec<_>>()
                            .join(", ")
                    }
                )
            };
            Rate {
                kept_table: true,
                ..rate(
                    table,
                    format!(
                        "table kept (table {}, probe {} not used: {why}; a disturbance only lowers a reading: {})",
                        trim_float(table),
                        trim_float(p.per_cycle),
                        p.evidence
                    ),
                )
            }
        }
        (false, None) => rate(
            0.0,
            match unsettled.filter(|p| !p.evidence.is_empty()) {
                Some(u) => format!(
                    "unknown: the table has no rate and the probe settled on none ({})",
                    u.evidence
                ),
                None => "unknown: neither the table nor a probe has this rate".into(),
            },
        ),
    }
}

/// The rates of one CPU: its identified row and any probe results.
#[derive(Debug, Clone)]
pub(crate) struct Rates<'a> {
    /// The row.
    pub(crate) uarch: &'static Uarch,
    /// How the row was chosen (`Identification::summary`).
    pub(crate) identified: String,
    /// Probe results (empty when no probe ran).
    pub(crate) probed: &'a [ProbedRate],
}

impl<'a> Rates<'a> {
    /// The rates of an identified CPU with its probe results.
    pub(crate) fn new(id: &Identification, probed: &'a [ProbedRate]) -> Rates<'a> {
        Rates {
            uarch: id.uarch(),
            identified: id.summary(),
            probed,
        }
    }

    /// The reconciled rate of a (pipe, width).
    pub(crate) fn rate(&self, pipe: Pipe, width: Width) -> Rate {
        let probe = self
            .probed
            .iter()
            .find(|p| p.pipe == pipe && same_width(p.width, width))
            .map(|p| &p.probed);
        let possible = super::uarch::possible_rates(self.uarch.vendor, pipe, width);
        reconcile_with(self.uarch.rate(pipe, width), &possible, probe)
    }
}

/// Scalar instructions run on the 128-bit pipes, so a V128 probe answers for them.
fn same_width(a: Width, b: Width) -> bool {
    let norm = |w| match w {
        Width::Scalar => Width::V128,
        w => w,
    };
    norm(a) == norm(b)
}

/// `2`, `0.5000`, `0.0625`.
pub(crate) fn trim_float(x: f64) -> String {
    if x.fract() == 0.0 {
        format!("{}", x as i64)
    } else {
        format!("{x:.4}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn probed(x: f64) -> Probed {
        Probed {
            per_cycle: x,
            evidence: "FMA vs FMA+shuffle loops".into(),
            consistent: true,
            ..Probed::default()
        }
    }

    #[test]
    fn the_four_provenances() {
        assert_eq!(
            reconcile(2.0, None),
            Rate {
                per_cycle: 2.0,
                provenance: "table".into(),
                table: 2.0,
                kept_table: false,
            }
        );
        let p = reconcile(0.0, Some(&probed(1.0)));
        assert_eq!(p.per_cycle, 1.0);
        assert_eq!(p.provenance, "probe (FMA vs FMA+shuffle loops)");
        let c = reconcile(2.0, Some(&probed(1.95)));
        assert_eq!(
            c.per_cycle, 2.0,
            "a confirmed table keeps the table's exact figure"
        );
        assert_eq!(
            c.provenance,
            "table, confirmed by probe (FMA vs FMA+shuffle loops)"
        );
        let o = reconcile_with(2.0, &[1.0, 2.0], Some(&probed(1.0)));
        assert_eq!(o.per_cycle, 1.0);
        assert_eq!(
            o.provenance,
            "probe overrules table (table 2, probe 1: FMA vs FMA+shuffle loops)"
        );
        let u = reconcile(0.0, None);
        assert_eq!(u.per_cycle, 0.0);
        assert!(u.provenance.starts_with("unknown"));
    }

    #[test]
    fn a_broken_probe_is_ignored() {
        assert_eq!(
            reconcile(2.0, Some(&probed(f64::NAN))).provenance,
            "table (probe unsettled: FMA vs FMA+shuffle loops)"
        );
        let none = Probed::default();
        assert_eq!(reconcile(2.0, Some(&none)).provenance, "table");
        assert_eq!(reconcile(0.0, Some(&probed(-1.0))).per_cycle, 0.0);
    }

    #[test]
    fn rates_pick_the_probe_of_the_same_pipe_and_width() {
        let id = Identification {
            row: "Skylake-SP/Cascade Lake/Cooper Lake".into(),
            ..Identification::default()
        };
        let probes = vec![ProbedRate {
            pipe: Pipe::Fma,
            width: Width::V512,
            probed: probed(1.0),
        }];
        let r = Rates::new(&id, &probes);
        assert!(r
            .rate(Pipe::Fma, Width::V512)
            .provenance
            .starts_with("probe overrules"));
        assert_eq!(r.rate(Pipe::Fma, Width::V256).provenance, "table");
        assert_eq!(r.rate(Pipe::Alu, Width::V512).provenance, "table");
    }

    #[test]
    fn a_probe_lowers_the_table_only_on_agreeing_readings_and_a_count_the_table_holds() {
        // Zen 4, mul+add xmm: the table says 4 on every AMD row; a disturbed probe read
        // 3.02-3.30 (issue #31) and rounded to 3. 3 is no AMD row's count: the table
        // stands, and says why.
        let amd = crate::hw::uarch::possible_rates("AuthenticAMD", Pipe::MulAdd, Width::V128);
        assert_eq!(amd, [4.0]);
        let low = Probed {
            per_cycle: 3.0,
            evidence: "readings 3.02, 3.30".into(),
            readings: vec![3.02, 3.30],
            spread: Some(0.085),
            dropped: 0,
            consistent: true,
        };
        let r = reconcile_with(4.0, &amd, Some(&low));
        assert_eq!(r.per_cycle, 4.0);
        assert!(r.kept_table);
        assert!(
            r.provenance.starts_with(
                "table kept (table 4, probe 3 not used: 3 is not a count the table holds for this class (it holds 4)"
            ),
            "{}",
            r.provenance
        );
        assert!(
            r.provenance.contains("readings 3.02, 3.30"),
            "{}",
            r.provenance
        );
        // Readings that disagree never lower the table, even to a count it holds.
        let noisy = Probed {
            consistent: false,
            per_cycle: 1.0,
            spread: Some(0.4),
            ..low.clone()
        };
        let r = reconcile_with(2.0, &[1.0, 2.0], Some(&noisy));
        assert_eq!(r.per_cycle, 2.0);
        assert!(
            r.provenance.contains("its readings disagree (spread 40 %)"),
            "{}",
            r.provenance
        );
        // Agreeing readings at a count the table holds (a one-FMA-unit Xeon the brand
        // did not reveal) do lower it, and the provenance keeps the readings.
        let one = Probed {
            per_cycle: 1.0,
            consistent: true,
            ..noisy.clone()
        };
        let r = reconcile_with(2.0, &[1.0, 2.0], Some(&one));
        assert_eq!(r.per_cycle, 1.0);
        assert!(r.lowered_by_probe() && !r.kept_table);
        // ... and a case that outruns it goes back to the table, saying so.
        let b = r.back_to_table("this case ran 1.9 per cycle");
        assert_eq!(b.per_cycle, 2.0);
        assert!(b.provenance.starts_with(
            "table, the probe's lower figure was wrong (this case ran 1.9 per cycle; probe overrules table"
        ));
        // A probe above the table is believed whatever its readings: contention never
        // raises one.
        let high = Probed {
            per_cycle: 4.0,
            consistent: false,
            ..low
        };
        assert_eq!(reconcile_with(2.0, &[2.0], Some(&high)).per_cycle, 4.0);
    }
}
