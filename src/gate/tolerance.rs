//! A baseline case's tolerance: how far a figure may fall from the reference before the
//! gate fails, relative (`"5%"`) or absolute (a number in the case's unit), and the
//! bounds every tolerance keeps wherever a baseline is made (a file written by
//! `peakbench baseline`, a hand-edited one, or the reference `check --against history`
//! takes in memory): issue #44 item 3.
//!
//! **Bounded**: a tolerance is at most [`MAX_RELATIVE`] of the case's median, relative
//! or absolute, for rates and latencies alike. Why: a tolerance that lets a rate halve
//! (or a latency grow by half) is a gate that passes a broken machine, and one at or
//! beyond the median can never fail a rate at all (its bound is zero or negative);
//! widths like `1e300` s or `"99.9999999%"` are typing accidents, refused with one line
//! rather than written into a gate that then passes everything.

use crate::report::compare::noise_floor;
use crate::report::model::{ResourceName, Unit};
use crate::util::units::format_si;
use serde::{Deserialize, Serialize};

/// The widest tolerance, as a fraction of the median: 50 %.
pub(crate) const MAX_RELATIVE: f64 = 0.5;

/// `50 %`: [`MAX_RELATIVE`] as the messages write it.
pub(crate) fn max_shown() -> String {
    format!("{} %", trim_float(MAX_RELATIVE * 100.0))
}

/// The default tolerance of a resource: the run-to-run noise `compare` takes as no
/// change ([`noise_floor`]), what repeated quick suites on one shared guest moved by
/// between runs minutes apart: 5 % for CPU and linear algebra, 10 % for memory and
/// GPU, 20 % for disk and network.
pub(crate) fn default_tolerance(resource: ResourceName) -> Tolerance {
    Tolerance::Relative(noise_floor(resource))
}

/// How far a figure may fall from the baseline's.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Tolerance {
    /// A fraction of the median (`"5%"` is 0.05), 0 to [`MAX_RELATIVE`].
    Relative(f64),
    /// A figure in the case's unit, 0 to [`MAX_RELATIVE`] × the median.
    Absolute(f64),
}

impl Tolerance {
    /// The allowed distance from `median`, in the case's unit.
    pub(crate) fn abs(self, median: f64) -> f64 {
        match self {
            Tolerance::Relative(r) => r * median.abs(),
            Tolerance::Absolute(a) => a,
        }
    }

    /// As written in the file and the views: `5%`, or the absolute figure with `unit`.
    pub(crate) fn show(self, unit: Unit) -> String {
        match self {
            Tolerance::Relative(r) => format!("{}%", trim_float(r * 100.0)),
            Tolerance::Absolute(a) => format_si(a, unit.as_str()),
        }
    }

    /// Checks this tolerance against the case's `median` (in `unit`): `Err` is one line
    /// naming it and the accepted range.
    pub(crate) fn within(self, median: f64, unit: Unit) -> Result<(), String> {
        let ok = self.abs(median) <= MAX_RELATIVE * median.abs() * (1.0 + 1e-12);
        if ok {
            return Ok(());
        }
        Err(match self {
            Tolerance::Relative(_) => format!(
                "tolerance {} is out of range; a tolerance is at most {} of the median (a wider one passes a machine that lost half its speed)",
                self.show(unit),
                max_shown()
            ),
            Tolerance::Absolute(a) => format!(
                "tolerance {} is out of range: more than {} of the median {} ({}), a gate that passes a machine that lost half its speed; give at most {}, or a percentage like \"5%\"",
                num(a),
                max_shown(),
                num(median),
                format_si(median, unit.as_str()),
                num(MAX_RELATIVE * median)
            ),
        })
    }
}

impl Serialize for Tolerance {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Tolerance::Relative(r) => s.serialize_str(&format!("{}%", trim_float(r * 100.0))),
            Tolerance::Absolute(a) => s.serialize_f64(*a),
        }
    }
}

impl<'de> Deserialize<'de> for Tolerance {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Tolerance, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = Tolerance;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a tolerance: a percentage like \"5%\", or a non-negative number in the case's unit")
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Tolerance, E> {
                parse_tolerance(s).map_err(E::custom)
            }
            fn visit_f64<E: serde::de::Error>(self, x: f64) -> Result<Tolerance, E> {
                absolute(x).map_err(E::custom)
            }
            fn visit_i64<E: serde::de::Error>(self, x: i64) -> Result<Tolerance, E> {
                absolute(x as f64).map_err(E::custom)
            }
            fn visit_u64<E: serde::de::Error>(self, x: u64) -> Result<Tolerance, E> {
                absolute(x as f64).map_err(E::custom)
            }
        }
        d.deserialize_any(V)
    }
}

/// An absolute tolerance: finite and not negative (its bound against the median is
/// checked with the case, [`Tolerance::within`]).
fn absolute(x: f64) -> Result<Tolerance, String> {
    if x.is_finite() && x >= 0.0 {
        Ok(Tolerance::Absolute(x))
    } else {
        Err(format!(
            "tolerance {x} is out of range; an absolute tolerance is a number from 0 up, in the case's unit"
        ))
    }
}

/// Parses `5%` (relative, 0 to [`MAX_RELATIVE`]) or a plain number (absolute).
pub(crate) fn parse_tolerance(s: &str) -> Result<Tolerance, String> {
    let t = s.trim();
    if let Some(p) = t.strip_suffix('%') {
        let max = MAX_RELATIVE * 100.0;
        return match p.trim().parse::<f64>() {
            Ok(x) if x.is_finite() && (0.0..=max).contains(&x) => Ok(Tolerance::Relative(x / 100.0)),
            Ok(_) => Err(format!(
                "tolerance '{t}' is out of range; a relative tolerance is from 0 to {} (a wider one passes a machine that lost half its speed), like \"5%\"",
                max_shown()
            )),
            Err(_) => Err(format!(
                "'{t}' is not a tolerance; use a percentage like \"5%\" or a number in the case's unit"
            )),
        };
    }
    match t.parse::<f64>() {
        Ok(x) => absolute(x),
        Err(_) => Err(format!(
            "'{t}' is not a tolerance; use a percentage like \"5%\" or a number in the case's unit"
        )),
    }
}

/// A number short at any magnitude (`5e-8`, `1e300`, `150`), as it reads back.
pub(crate) fn num(x: f64) -> String {
    if x != 0.0 && x.is_finite() && (x.abs() >= 1e15 || x.abs() < 1e-4) {
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}

/// A float as short as it reads back (`5`, `12.5`).
pub(crate) fn trim_float(x: f64) -> String {
    let s = format!("{:.6}", x);
    let s = s.trim_end_matches('0').trim_end_matches('.');
    s.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tolerances_are_bounded_whatever_their_form() {
        for bad in ["99.9999999%", "50.1%", "150%", "-1%", "NaN%", "inf%"] {
            let e = parse_tolerance(bad).unwrap_err();
            assert!(
                e.contains("out of range") || e.contains("not a tolerance"),
                "{bad}: {e}"
            );
        }
        assert_eq!(parse_tolerance("50%"), Ok(Tolerance::Relative(0.5)));
        assert_eq!(parse_tolerance(" 0% "), Ok(Tolerance::Relative(0.0)));
        for bad in ["-3", "inf", "nan"] {
            assert!(parse_tolerance(bad).is_err(), "{bad}");
        }
        // An absolute tolerance against its median: a latency of 1e300 s, a rate's
        // tolerance at its median (a bound of 0), are refused; half the median is not.
        let e = Tolerance::Absolute(1e300)
            .within(1e-7, Unit::Second)
            .unwrap_err();
        assert!(
            e.contains("out of range") && e.contains("at most 5e-8"),
            "{e}"
        );
        assert!(Tolerance::Absolute(10.0)
            .within(10.0, Unit::FlopPerSec)
            .is_err());
        assert!(Tolerance::Absolute(5.0)
            .within(10.0, Unit::FlopPerSec)
            .is_ok());
        assert!(Tolerance::Relative(0.5).within(10.0, Unit::Second).is_ok());
        assert!(Tolerance::Relative(0.9).within(10.0, Unit::Second).is_err());
    }
}
