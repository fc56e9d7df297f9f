//! Theoretical peaks, each with its provenance.
//!
//! CPU: cores × measured clock × instructions/cycle (microarchitecture table) ×
//! operations/instruction (lanes × 2 for an FMA). Every peak carries a `source` string
//! naming each input, so a reader can redo the arithmetic; a peak that cannot be derived
//! has no value and says why. `--peak KEY=VALUE` replaces a derived peak and then says
//! "user".

use super::rates::{trim_float, Rate};
use super::uarch::{Pipe, Width};
use crate::util::units::ParseError;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A theoretical peak and where it came from.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Peak {
    /// The peak in the result's unit; `None` when unknown (then `source` says why).
    pub value: Option<f64>,
    /// How it was obtained: the formula with its inputs, `user`, or the reason it is unknown.
    pub source: String,
}

impl Peak {
    /// An unknown peak with the reason.
    pub fn unknown(reason: impl Into<String>) -> Peak {
        Peak {
            value: None,
            source: reason.into(),
        }
    }
}

/// What one CPU kernel needs to know to get its peak.
#[derive(Debug, Clone, Copy)]
pub struct CpuPeakInput<'a> {
    /// Instructions per cycle per core for the kernel's (pipe, width), with provenance
    /// (`rates::Rates::rate`).
    pub rate: &'a Rate,
    /// Which row the rate's table part came from and why (`Identification::summary`).
    pub identified: &'a str,
    /// Row caveats (`Uarch::note`), appended to the provenance when non-empty.
    pub note: &'a str,
    /// Execution resource the kernel's instructions use.
    pub pipe: Pipe,
    /// Vector width.
    pub width: Width,
    /// Operations one instruction performs (e.g. 8 lanes × 2 for a 512-bit fp64 FMA).
    pub ops_per_instr: f64,
    /// Cores in use (threads, capped at physical cores).
    pub cores: usize,
    /// Measured clock during the run, Hz.
    pub clock_hz: Option<f64>,
    /// Which clock chain gave `clock_hz`.
    pub clock_what: &'a str,
}

/// Derives a CPU peak in operations per second.
pub fn cpu_peak(i: &CpuPeakInput) -> Peak {
    let Some(hz) = i.clock_hz else {
        return Peak::unknown("unknown: the clock could not be measured on this CPU");
    };
    if i.rate.per_cycle <= 0.0 {
        return Peak::unknown(format!(
            "unknown: no {:?} {:?} throughput ({}; {})",
            i.pipe, i.width, i.rate.provenance, i.identified
        ));
    }
    let value = i.cores as f64 * hz * i.rate.per_cycle * i.ops_per_instr;
    let mut source = format!(
        "{} core{} x {:.3} GHz ({}) x {} instr/cycle ({:?} {:?}: {}; {}) x {} op/instr",
        i.cores,
        if i.cores == 1 { "" } else { "s" },
        hz / 1e9,
        i.clock_what,
        trim_float(i.rate.per_cycle),
        i.pipe,
        i.width,
        i.rate.provenance,
        i.identified,
        trim_float(i.ops_per_instr)
    );
    if !i.note.is_empty() {
        source.push_str("; ");
        source.push_str(i.note);
    }
    Peak {
        value: Some(value),
        source,
    }
}

/// User-supplied peaks (`--peak KEY=VALUE`), e.g. `cpu.fp64=3.2TFLOP/s`, `memory=68GB/s`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PeakOverrides(pub BTreeMap<String, f64>);

impl PeakOverrides {
    /// The most specific override among `keys` (most specific first).
    pub fn find(&self, keys: &[String]) -> Option<(String, f64)> {
        keys.iter()
            .find_map(|k| self.0.get(k).map(|v| (k.clone(), *v)))
    }
}

/// Parses `KEY=VALUE` where VALUE is a number with an optional SI prefix and unit:
/// `3.2T`, `3.2TFLOP/s`, `68GB/s`, `68e9`.
pub fn parse_override(text: &str) -> Result<(String, f64), ParseError> {
    let bad = || {
        ParseError(format!(
            "'{text}' is not KEY=VALUE; use e.g. cpu.fp64=3.2TFLOP/s or memory=68GB/s"
        ))
    };
    let (key, value) = text.split_once('=').ok_or_else(bad)?;
    let key = key.trim();
    if key.is_empty()
        || !key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '_' || c == '-')
    {
        return Err(bad());
    }
    let v = value.trim();
    let split = v
        .find(|c: char| {
            !(c.is_ascii_digit() || c == '.' || c == 'e' || c == 'E' || c == '-' || c == '+')
        })
        .unwrap_or(v.len());
    // A unit starting with 'E' (exa) is not supported, so 'e' always belongs to the number.
    let (num, unit) = v.split_at(split);
    let x: f64 = num.parse().map_err(|_| bad())?;
    let mult = match unit.chars().next() {
        Some('k') | Some('K') => 1e3,
        Some('M') => 1e6,
        Some('G') => 1e9,
        Some('T') => 1e12,
        Some('P') => 1e15,
        _ => 1.0,
    };
    let value = x * mult;
    if !value.is_finite() || value <= 0.0 {
        return Err(ParseError(format!(
            "'{text}': a peak must be a positive number"
        )));
    }
    Ok((key.to_ascii_lowercase(), value))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hw::rates::{reconcile, Probed};

    #[test]
    fn avx512_fp64_peak_formula() {
        let rate = reconcile(2.0, None);
        let p = cpu_peak(&CpuPeakInput {
            rate: &rate,
            identified: "row 'Skylake-SP/Cascade Lake/Cooper Lake' chosen by family 6 model 85",
            note: "",
            pipe: Pipe::Fma,
            width: Width::V512,
            ops_per_instr: 16.0,
            cores: 2,
            clock_hz: Some(2.5e9),
            clock_what: "AVX-512 chain",
        });
        // 2 cores x 2.5 GHz x 2 FMA/cycle x 8 lanes x 2 = 160 GFLOP/s
        assert_eq!(p.value, Some(160e9));
        assert!(p.source.contains("2.500 GHz"));
        assert!(
            p.source.contains("Fma V512: table; row 'Skylake-SP"),
            "{}",
            p.source
        );
    }

    #[test]
    fn a_probe_shows_in_the_provenance() {
        let rate = reconcile(
            2.0,
            Some(&Probed {
                per_cycle: 1.0,
                evidence: "probe evidence".into(),
            }),
        );
        let p = cpu_peak(&CpuPeakInput {
            rate: &rate,
            identified: "row 'x'",
            note: "",
            pipe: Pipe::Fma,
            width: Width::V512,
            ops_per_instr: 16.0,
            cores: 1,
            clock_hz: Some(2e9),
            clock_what: "AVX-512 chain",
        });
        assert_eq!(p.value, Some(32e9));
        assert!(p
            .source
            .contains("probe overrules table (table 2, probe 1: probe evidence)"));
    }

    #[test]
    fn unknowns_say_why() {
        let rate = reconcile(0.0, None);
        let p = cpu_peak(&CpuPeakInput {
            rate: &rate,
            identified: "row 'unknown'",
            note: "",
            pipe: Pipe::Fma,
            width: Width::V256,
            ops_per_instr: 8.0,
            cores: 1,
            clock_hz: Some(3e9),
            clock_what: "scalar chain",
        });
        assert_eq!(p.value, None);
        assert!(p.source.starts_with("unknown"));
    }

    #[test]
    fn overrides() {
        assert_eq!(
            parse_override("cpu.fp64=3.2TFLOP/s").unwrap(),
            ("cpu.fp64".to_string(), 3.2e12)
        );
        assert_eq!(parse_override("memory=68GB/s").unwrap().1, 68e9);
        assert_eq!(parse_override("cpu=1e9").unwrap().1, 1e9);
        assert!(parse_override("cpu.fp64").is_err());
        assert!(parse_override("=5").is_err());
        assert!(parse_override("cpu=-5").is_err());
        assert!(parse_override("cpu=fast").is_err());
        let mut o = PeakOverrides::default();
        o.0.insert("cpu.fp64".into(), 1.0);
        assert_eq!(
            o.find(&["cpu.fp64.avx512".into(), "cpu.fp64".into(), "cpu".into()]),
            Some(("cpu.fp64".into(), 1.0))
        );
    }
}
