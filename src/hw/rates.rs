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
//!   only guessed it.

use super::uarch::{Identification, Pipe, Uarch, Width};
use serde::{Deserialize, Serialize};

/// A probe's answer for one (pipe, width): whole units per cycle (or the tile rate),
/// and how it was measured.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub(crate) struct Probed {
    /// Instructions per cycle per core the probe settled on.
    pub(crate) per_cycle: f64,
    /// How it was measured, in a few words (shown in the provenance).
    pub(crate) evidence: String,
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
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Rate {
    /// Instructions per cycle per core; 0 when unknown.
    pub(crate) per_cycle: f64,
    /// `table`, `probe`, `table, confirmed by probe`, `probe overrules table (…)`,
    /// or `unknown: …`.
    pub(crate) provenance: String,
}

/// Reconciles the table's rate (`table` ≤ 0: the row has none) with an optional probe.
pub(crate) fn reconcile(table: f64, probe: Option<&Probed>) -> Rate {
    let probe = probe.filter(|p| p.per_cycle.is_finite() && p.per_cycle > 0.0);
    match (table > 0.0, probe) {
        (true, None) => Rate {
            per_cycle: table,
            provenance: "table".into(),
        },
        (false, Some(p)) => Rate {
            per_cycle: p.per_cycle,
            provenance: format!("probe ({})", p.evidence),
        },
        (true, Some(p)) if ((p.per_cycle - table) / table).abs() <= AGREE => Rate {
            per_cycle: table,
            provenance: format!("table, confirmed by probe ({})", p.evidence),
        },
        (true, Some(p)) => Rate {
            per_cycle: p.per_cycle,
            provenance: format!(
                "probe overrules table (table {}, probe {}: {})",
                trim_float(table),
                trim_float(p.per_cycle),
                p.evidence
            ),
        },
        (false, None) => Rate {
            per_cycle: 0.0,
            provenance: "unknown: neither the table nor a probe has this rate".into(),
        },
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
        reconcile(self.uarch.rate(pipe, width), probe)
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
        }
    }

    #[test]
    fn the_four_provenances() {
        assert_eq!(
            reconcile(2.0, None),
            Rate {
                per_cycle: 2.0,
                provenance: "table".into()
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
        let o = reconcile(2.0, Some(&probed(1.0)));
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
        assert_eq!(reconcile(2.0, Some(&probed(f64::NAN))).provenance, "table");
        assert_eq!(reconcile(2.0, Some(&probed(0.0))).provenance, "table");
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
}
