//! Theoretical peaks, each with its provenance.
//!
//! CPU: cores × measured clock × instructions/cycle (microarchitecture table) ×
//! operations/instruction (lanes × 2 for an FMA). Every peak carries a `source` string
//! naming each input, so a reader can redo the arithmetic; a peak that cannot be derived
//! has no value and says why. `--peak KEY=VALUE` replaces a derived peak and then says
//! "user": its value is read here ([`parse_override`]), its key in `bench::peaks`.

use super::rates::{trim_float, Rate};
use super::uarch::{Pipe, Width};
use crate::util::units::ParseError;
use serde::{Deserialize, Serialize};

/// A theoretical peak and where it came from.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Peak {
    /// The peak in the result's unit; `None` when unknown (then `source` says why).
    pub(crate) value: Option<f64>,
    /// How it was obtained: the formula with its inputs, `user`, or the reason it is unknown.
    pub(crate) source: String,
}

impl Peak {
    /// An unknown peak with the reason.
    pub(crate) fn unknown(reason: impl Into<String>) -> Peak {
        Peak {
            value: None,
            source: reason.into(),
        }
    }
}

/// What one CPU kernel needs to know to get its peak.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CpuPeakInput<'a> {
    /// Instructions per cycle per core for the kernel's (pipe, width), with provenance
    /// (`rates::Rates::rate`).
    pub(crate) rate: &'a Rate,
    /// Which row the rate's table part came from and why (`Identification::summary`).
    pub(crate) identified: &'a str,
    /// Row caveats (`Uarch::note`), appended to the provenance when non-empty.
    pub(crate) note: &'a str,
    /// Execution resource the kernel's instructions use.
    pub(crate) pipe: Pipe,
    /// Vector width.
    pub(crate) width: Width,
    /// Operations one instruction performs (e.g. 8 lanes × 2 for a 512-bit fp64 FMA).
    pub(crate) ops_per_instr: f64,
    /// Cores in use (threads, capped at physical cores).
    pub(crate) cores: usize,
    /// Measured clock during the run, Hz.
    pub(crate) clock_hz: Option<f64>,
    /// Which clock chain gave `clock_hz`.
    pub(crate) clock_what: &'a str,
}

/// Operations per cycle on `i.cores` cores (`None` when the rate is unknown): what an
/// emulated CPU still has, with no clock to turn it into a rate.
pub(crate) fn per_cycle(i: &CpuPeakInput) -> Option<f64> {
    (i.rate.per_cycle > 0.0).then_some(i.cores as f64 * i.rate.per_cycle * i.ops_per_instr)
}

impl CpuPeakInput<'_> {
    /// `1 core`, `4 cores`.
    fn cores_text(&self) -> String {
        format!(
            "{} core{}",
            self.cores,
            if self.cores == 1 { "" } else { "s" }
        )
    }

    /// The factors of a core's peak after its clock, as a source states them:
    /// `2 instr/cycle (Fma V512: table; row 'x') x 16 op/instr`.
    fn per_core_factors(&self) -> String {
        format!(
            "{} instr/cycle ({:?} {:?}: {}; {}) x {} op/instr",
            trim_float(self.rate.per_cycle),
            self.pipe,
            self.width,
            self.rate.provenance,
            self.identified,
            trim_float(self.ops_per_instr)
        )
    }
}

/// The peak of an emulated CPU: no value (the emulator has no clock worth the name),
/// the reason, and the per-cycle peak of the emulated core with its inputs.
pub(crate) fn emulated_peak(i: &CpuPeakInput, why: &str) -> Peak {
    let per = match per_cycle(i) {
        Some(v) => format!(
            "{} op/cycle on {} = {}",
            trim_float(v),
            i.cores_text(),
            i.per_core_factors()
        ),
        None => format!(
            "no {:?} {:?} rate ({}; {})",
            i.pipe, i.width, i.rate.provenance, i.identified
        ),
    };
    Peak::unknown(format!("{why}; per cycle: {per}"))
}

/// Derives a CPU peak in operations per second.
pub(crate) fn cpu_peak(i: &CpuPeakInput) -> Peak {
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
        "{} x {:.3} GHz ({}) x {}",
        i.cores_text(),
        hz / 1e9,
        i.clock_what,
        i.per_core_factors()
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

/// The unit written after a `--peak` value (and its prefix).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PeakUnit {
    /// No unit: the number is in the key's own unit.
    None,
    /// `FLOP/s` or `FLOPS`.
    Flop,
    /// `OP/s` or `OPS`.
    Op,
    /// `IOP/s` or `IOPS`.
    Iop,
    /// `B/s`, `byte/s` or `bytes/s`.
    Byte,
    /// `bit/s`, `bits/s` or `bps`.
    Bit,
    /// A time, for latency keys: `s`, `ms`, `us` (`µs`) or `ns`, already scaled to
    /// seconds (issue #48).
    Second,
}

/// A `--peak KEY=VALUE` split and read, before the key is checked (the keys are the
/// resources' names, known to `bench`, which checks them and the unit's fit).
#[derive(Debug, Clone, PartialEq)]
pub struct PeakText {
    /// The key, lower-cased.
    pub(crate) key: String,
    /// The number times its prefix, in `unit`.
    pub value: f64,
    /// The unit written after the prefix.
    pub(crate) unit: PeakUnit,
    /// The unit as written (for messages).
    pub(crate) unit_text: String,
}

/// The units a `--peak` value may carry, for messages.
const UNITS: &str = "a number with an optional prefix k, M, G, T, P (Ki…Pi before B/s) and a unit FLOP/s, OP/s, IOP/s, B/s or bit/s, or a time in s, ms, us or ns for a latency";

/// A time unit of a latency peak and how many of it make a second (a divisor, so that
/// `20us` reads as exactly the `2e-5` it means): the prefixes below one (milli, micro,
/// nano) only go before `s`, where a lower-case `m` cannot mean mega.
fn time_unit(s: &str) -> Option<f64> {
    Some(match s {
        "s" => 1.0,
        "ms" => 1e3,
        "us" | "µs" | "μs" => 1e6,
        "ns" => 1e9,
        _ => return None,
    })
}

/// A unit (without prefix): operation units are case-insensitive; bytes must be a
/// capital `B` because a lower-case `b` commonly means bits.
fn unit_of(s: &str) -> Result<PeakUnit, String> {
    let l = s.to_ascii_lowercase();
    Ok(match l.as_str() {
        "" => PeakUnit::None,
        "flop/s" | "flops" => PeakUnit::Flop,
        "op/s" | "ops" => PeakUnit::Op,
        "iop/s" | "iops" => PeakUnit::Iop,
        "byte/s" | "bytes/s" => PeakUnit::Byte,
        "bit/s" | "bits/s" => PeakUnit::Bit,
        "b/s" if s == "B/s" => PeakUnit::Byte,
        "b/s" => return Err("'b/s' is ambiguous: write B/s for bytes or bit/s for bits".into()),
        "bps" if s == "bps" => PeakUnit::Bit,
        _ => {
            return Err(format!(
                "unknown unit '{}'; use {UNITS}",
                crate::util::sanitize::line_max(s, 40)
            ))
        }
    })
}

/// Splits an SI prefix off `s` (case-insensitive where unambiguous: `k`/`K`, `M`, `g`/`G`,
/// `t`/`T`, `p`/`P`; a lower-case `m` would be milli and is refused), then reads the unit.
/// Returns the multiplier and the unit.
fn prefix_and_unit(s: &str) -> Result<(f64, PeakUnit), String> {
    if let Some(per_second) = time_unit(s) {
        return Ok((1.0 / per_second, PeakUnit::Second));
    }
    if let Ok(u) = unit_of(s) {
        return Ok((1.0, u));
    }
    let mut chars = s.chars();
    let exp = match chars.next() {
        Some('k' | 'K') => 1,
        Some('M') => 2,
        Some('g' | 'G') => 3,
        Some('t' | 'T') => 4,
        Some('p' | 'P') => 5,
        Some('m') => {
            return Err("a lower-case 'm' would mean milli, which only goes before s (e.g. memory.latency=0.1ms); write M for mega (e.g. 500MB/s)".into())
        }
        _ => return Err(unit_of(s).unwrap_err()),
    };
    let rest = chars.as_str();
    match unit_of(rest) {
        Ok(u) => Ok((1000f64.powi(exp), u)),
        Err(e) => match rest.strip_prefix('i').map(unit_of) {
            Some(Ok(PeakUnit::Byte)) => Ok((1024f64.powi(exp), PeakUnit::Byte)),
            Some(Ok(_)) => Err(format!(
                "a binary prefix ('{}i') only goes before B/s; use {UNITS}",
                &s[..1]
            )),
            _ => Err(e),
        },
    }
}

/// Parses `KEY=VALUE` where VALUE is a number with an optional SI prefix and unit:
/// `3.2T`, `3.2TFLOP/s`, `68GB/s`, `64GiB/s`, `10Gbit/s`, `68e9`, or a time for a
/// latency key: `80ns`, `1.5us`, `2ms`, `1e-7s` (in seconds). The key is only
/// checked for its characters here; `bench::peaks` checks it names a peak and that the
/// unit fits it.
pub fn parse_override(text: &str) -> Result<PeakText, ParseError> {
    // The value is echoed in messages: one line, whatever the user pasted.
    let shown = crate::util::sanitize::line_max(text, 200);
    let bad = || {
        ParseError(format!(
            "'{shown}' is not KEY=VALUE; use e.g. cpu.fp64=3.2TFLOP/s or memory=68GB/s"
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
    // No prefix or unit starts with 'e' or 'E' (exa is not supported), so they always
    // belong to the number.
    let (num, unit) = v.split_at(split);
    let x: f64 = num.parse().map_err(|_| {
        let what = if num.is_empty() {
            "the value does not start with a number".to_string()
        } else {
            format!("'{num}' is not a number")
        };
        ParseError(format!(
            "'{shown}': {what}; use {UNITS}, e.g. cpu.fp64=3.2TFLOP/s"
        ))
    })?;
    let unit = unit.trim_start();
    let (mult, u) = prefix_and_unit(unit).map_err(|e| ParseError(format!("'{shown}': {e}")))?;
    let value = match time_unit(unit) {
        Some(per_second) => x / per_second,
        None => x * mult,
    };
    if !value.is_finite() || value <= 0.0 {
        return Err(ParseError(format!(
            "'{shown}': a peak must be a positive number"
        )));
    }
    Ok(PeakText {
        key: key.to_ascii_lowercase(),
        value,
        unit: u,
        unit_text: unit.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hw::rates::{reconcile, Probed};

    /// The FMA pipe's peak input: `rate` of the row `identified`, at `width` with `ops`
    /// per instruction, on `cores` at the clock `(Hz, what read it)`.
    fn fma_input<'a>(
        rate: &'a Rate,
        identified: &'a str,
        width: Width,
        ops: f64,
        cores: usize,
        (clock, what): (f64, &'a str),
    ) -> CpuPeakInput<'a> {
        CpuPeakInput {
            rate,
            identified,
            note: "",
            pipe: Pipe::Fma,
            width,
            ops_per_instr: ops,
            cores,
            clock_hz: Some(clock),
            clock_what: what,
        }
    }

    #[test]
    fn avx512_fp64_peak_formula() {
        let rate = reconcile(2.0, None);
        let row = "row 'Skylake-SP/Cascade Lake/Cooper Lake' chosen by family 6 model 85";
        let p = cpu_peak(&fma_input(
            &rate,
            row,
            Width::V512,
            16.0,
            2,
            (2.5e9, "AVX-512 chain"),
        ));
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
        let rate = crate::hw::rates::reconcile_with(
            2.0,
            &[1.0, 2.0],
            Some(&Probed {
                per_cycle: 1.0,
                evidence: "probe evidence".into(),
                consistent: true,
                ..Probed::default()
            }),
        );
        let p = cpu_peak(&fma_input(
            &rate,
            "row 'x'",
            Width::V512,
            16.0,
            1,
            (2e9, "AVX-512 chain"),
        ));
        assert_eq!(p.value, Some(32e9));
        assert!(p
            .source
            .contains("probe overrules table (table 2, probe 1: probe evidence)"));
    }

    #[test]
    fn unknowns_say_why() {
        let rate = reconcile(0.0, None);
        let p = cpu_peak(&fma_input(
            &rate,
            "row 'unknown'",
            Width::V256,
            8.0,
            1,
            (3e9, "scalar chain"),
        ));
        assert_eq!(p.value, None);
        assert!(p.source.starts_with("unknown"));
    }

    fn value(t: &str) -> Result<(f64, PeakUnit), String> {
        parse_override(t)
            .map(|p| (p.value, p.unit))
            .map_err(|e| e.0)
    }

    #[test]
    fn overrides() {
        let p = parse_override("CPU.fp64=3.2TFLOP/s").unwrap();
        assert_eq!(p.key, "cpu.fp64");
        assert_eq!((p.value, p.unit), (3.2e12, PeakUnit::Flop));
        assert_eq!(value("memory=68GB/s"), Ok((68e9, PeakUnit::Byte)));
        assert_eq!(value("cpu=1e9"), Ok((1e9, PeakUnit::None)));
        assert!(parse_override("cpu.fp64").is_err());
        assert!(parse_override("=5").is_err());
        assert!(parse_override("cpu=-5").is_err());
        assert!(parse_override("cpu=fast").is_err());
    }

    #[test]
    fn prefixes_are_read_whatever_their_case_where_unambiguous() {
        // Issue #16 item 7: `100gflop/s` used to be read as 100 FLOP/s.
        assert_eq!(value("cpu=100gflop/s"), Ok((100e9, PeakUnit::Flop)));
        assert_eq!(value("cpu=100GFLOPS"), Ok((100e9, PeakUnit::Flop)));
        assert_eq!(value("cpu=2k"), Ok((2e3, PeakUnit::None)));
        assert_eq!(value("cpu=2K"), Ok((2e3, PeakUnit::None)));
        assert_eq!(value("cpu=2M"), Ok((2e6, PeakUnit::None)));
        assert_eq!(value("cpu=2t"), Ok((2e12, PeakUnit::None)));
        assert_eq!(value("cpu=2 POP/s"), Ok((2e15, PeakUnit::Op)));
        assert_eq!(value("disk.iops=500kiops"), Ok((500e3, PeakUnit::Iop)));
        assert_eq!(value("disk.iops=1.5MIOP/s"), Ok((1.5e6, PeakUnit::Iop)));
        assert_eq!(
            value("memory=64GiB/s"),
            Ok((64.0 * (1u64 << 30) as f64, PeakUnit::Byte))
        );
        assert_eq!(value("memory=1KiB/s"), Ok((1024.0, PeakUnit::Byte)));
        assert_eq!(value("net=10Gbit/s"), Ok((10e9, PeakUnit::Bit)));
        assert_eq!(value("net=10gbps"), Ok((10e9, PeakUnit::Bit)));
        assert_eq!(value("memory=5B/s"), Ok((5.0, PeakUnit::Byte)));
        assert_eq!(value("memory=5 bytes/s"), Ok((5.0, PeakUnit::Byte)));
        assert_eq!(value("cpu=1e3k"), Ok((1e6, PeakUnit::None)));
    }

    #[test]
    fn latency_values_are_times_in_seconds() {
        assert_eq!(value("memory.latency=80ns"), Ok((80e-9, PeakUnit::Second)));
        assert_eq!(value("net.latency=1.5us"), Ok((1.5e-6, PeakUnit::Second)));
        assert_eq!(value("net.latency=20µs"), Ok((20e-6, PeakUnit::Second)));
        assert_eq!(value("disk.latency=2ms"), Ok((2e-3, PeakUnit::Second)));
        assert_eq!(value("disk.latency=1e-4s"), Ok((1e-4, PeakUnit::Second)));
        // A bare number is the key's own unit (seconds for a latency key).
        assert_eq!(value("disk.latency=1e-4"), Ok((1e-4, PeakUnit::None)));
        for bad in [
            "net.latency=5 minutes",
            "net.latency=5Ms",
            "net.latency=5ks",
            "net.latency=5mss",
        ] {
            assert!(parse_override(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn unknown_or_ambiguous_units_are_refused() {
        let e = value("cpu.fp64=100Xyz").unwrap_err();
        assert!(
            e.contains("unknown unit 'Xyz'") && e.contains("FLOP/s"),
            "{e}"
        );
        let e = value("memory=100mB/s").unwrap_err();
        assert!(e.contains("milli") && e.contains("M for mega"), "{e}");
        let e = value("memory=100gb/s").unwrap_err();
        assert!(e.contains("ambiguous") && e.contains("bit/s"), "{e}");
        let e = value("cpu=3TiFLOP/s").unwrap_err();
        assert!(e.contains("binary prefix ('Ti')"), "{e}");
        for bad in [
            "cpu=3Ti",
            "cpu=3GB",
            "cpu=3 G FLOP/s",
            "cpu=3Bps",
            "cpu=3E",
            "cpu=inf",
            "cpu=nan",
            "cpu=1e999",
            "cpu=0",
            "cpu=.",
            "cpu=3kk",
        ] {
            assert!(parse_override(bad).is_err(), "{bad}");
        }
    }
}
