//! The axes of the report's charts ([`super::charts`]): how an axis maps values
//! (linear, powers of ten or two) onto the plot, where its ticks go and how their labels
//! are written. Bounds and tick loops stay finite and bounded whatever values a results
//! file holds (the `chart_ticks` fuzz target drives this through `charts::ticks_of`).

use crate::util::units::{format_si, format_size};

/// How an axis maps values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scale {
    /// Linear, starting at 0 when every value is positive.
    Linear,
    /// Powers of ten.
    Log10,
    /// Powers of two (byte sizes).
    Log2,
}

/// How tick labels are written.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Ticks {
    /// SI prefix and this unit (`76.9 GFLOP/s`).
    Si(String),
    /// Binary byte sizes (`32 KiB`).
    Bytes,
    /// Plain numbers.
    Plain,
    /// Categories at 0, 1, 2, …
    Categories(Vec<String>),
}

pub(crate) fn usable(scale: Scale, v: f64) -> bool {
    v.is_finite() && (scale == Scale::Linear || v > 0.0)
}

/// Data range of an axis and its mapping to [0, 1].
pub(crate) struct Map {
    pub(crate) scale: Scale,
    pub(crate) lo: f64,
    pub(crate) hi: f64,
    /// Whole-number data (thread counts): no fractional ticks.
    integers: bool,
}

impl Map {
    pub(crate) fn new(scale: Scale, values: &[f64], categories: Option<usize>, zero: bool) -> Map {
        if let Some(n) = categories {
            return Map {
                scale: Scale::Linear,
                lo: -0.5,
                hi: n.max(1) as f64 - 0.5,
                integers: true,
            };
        }
        let vals: Vec<f64> = values
            .iter()
            .copied()
            .filter(|v| usable(scale, *v))
            .collect();
        let (mut lo, mut hi) = vals
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |a, v| {
                (a.0.min(*v), a.1.max(*v))
            });
        if vals.is_empty() {
            (lo, hi) = if scale == Scale::Linear {
                (0.0, 1.0)
            } else {
                (1.0, 10.0)
            };
        }
        match scale {
            Scale::Linear => {
                lo = lo.clamp(-1e300, 1e300);
                hi = hi.clamp(-1e300, 1e300);
                if zero && lo > 0.0 {
                    lo = 0.0;
                }
                if zero && hi < 0.0 {
                    hi = 0.0;
                }
                if hi - lo <= lo.abs().max(hi.abs()) * 1e-12 {
                    // Relative to the value: near 1e300 an absolute 1.0 is lost in
                    // rounding, and a zero-width axis (or one a few ulps wide, where the
                    // margin and the ticks round away) would map every point to NaN.
                    hi = lo + (lo.abs() * 1e-6).max(1.0);
                }
                if !zero {
                    // A margin so end points do not sit on the frame.
                    let pad = 0.05 * (hi - lo);
                    lo -= pad;
                    hi += pad;
                }
                let step = nice_step((hi - lo) / 5.0);
                lo = (lo / step).floor() * step;
                hi = (hi / step).ceil() * step;
            }
            // Bounds stay well inside the finite range, so logarithms and tick loops
            // stay finite whatever the input file holds.
            // Both ends are clamped, the low one below the top too: values of 1e308
            // once gave lo = 1e308, hi = lo × 10 = inf and a tick loop over 2^63
            // exponents (issue #27 item 4).
            Scale::Log10 => {
                let le = lo.log10().floor().clamp(-300.0, 299.0);
                let he = hi.log10().ceil().clamp(le + 1.0, 300.0);
                lo = 10f64.powf(le);
                hi = 10f64.powf(he);
            }
            Scale::Log2 => {
                let le = lo.log2().floor().clamp(-990.0, 989.0);
                let he = hi.log2().ceil().clamp(le + 1.0, 990.0);
                lo = 2f64.powf(le);
                hi = 2f64.powf(he);
            }
        }
        let integers = !vals.is_empty() && vals.iter().all(|v| v.fract() == 0.0);
        Map {
            scale,
            lo,
            hi,
            integers,
        }
    }

    pub(crate) fn f(&self, v: f64) -> f64 {
        match self.scale {
            Scale::Linear => (v - self.lo) / (self.hi - self.lo),
            Scale::Log10 | Scale::Log2 => (v.ln() - self.lo.ln()) / (self.hi.ln() - self.lo.ln()),
        }
    }

    pub(crate) fn ticks(&self) -> Vec<f64> {
        match self.scale {
            Scale::Linear => {
                let mut step = nice_step((self.hi - self.lo) / 5.0);
                if self.integers && step < 1.0 {
                    step = 1.0;
                }
                let first = (self.lo / step).ceil() * step;
                let n = ((self.hi - first) / step + 1e-9).floor() as i64;
                // Where the span is a few ulps of the values (1e64 ± 1e49, or 7.0415287e-9
                // ± 4e-16), `first` can round to below `lo`, and a tick's place on the
                // axis is off by rounding by more than a fixed share of the span: only
                // ticks whose place, as drawn, is inside the axis are kept.
                (0..=n.clamp(0, 50))
                    .map(|i| first + i as f64 * step)
                    .filter(|t| t.is_finite() && (-1e-9..=1.0 + 1e-9).contains(&self.f(*t)))
                    .collect()
            }
            Scale::Log10 | Scale::Log2 => {
                let base: f64 = if self.scale == Scale::Log10 {
                    10.0
                } else {
                    2.0
                };
                // Exponents of finite doubles lie within ±1100; at most 9 ticks are
                // made, stepping by the stride, whatever the bounds.
                let exp = |v: f64| v.log(base).round().clamp(-1100.0, 1100.0) as i64;
                let (a, b) = (exp(self.lo), exp(self.hi));
                let span = (b - a).max(1);
                let stride = (span + 7) / 8;
                (0..=span / stride)
                    .map(|k| a + k * stride)
                    .filter(|&e| e <= b)
                    .map(|e| base.powi(e as i32))
                    .filter(|t| t.is_finite() && *t > 0.0)
                    .collect()
            }
        }
    }
}

pub(crate) fn nice_step(raw: f64) -> f64 {
    if !(raw.is_finite() && raw > 0.0) {
        return 1.0;
    }
    let mag = 10f64.powf(raw.log10().floor());
    let r = raw / mag;
    let m = if r <= 1.0 {
        1.0
    } else if r <= 2.0 {
        2.0
    } else if r <= 5.0 {
        5.0
    } else {
        10.0
    };
    m * mag
}

/// `format_si` without trailing zeros: `100 GFLOP/s`, `2.5 GB/s`.
fn compact_si(v: f64, unit: &str) -> String {
    let s = format_si(v, unit);
    match s.split_once(' ') {
        Some((num, rest)) if num.contains('.') => {
            format!("{} {rest}", num.trim_end_matches('0').trim_end_matches('.'))
        }
        _ => s,
    }
}

/// The label of the tick at `v`.
pub(crate) fn tick_label(t: &Ticks, v: f64) -> String {
    match t {
        Ticks::Si(unit) => {
            if v == 0.0 {
                "0".to_string()
            } else {
                compact_si(v, unit)
            }
        }
        Ticks::Bytes => {
            if (1.0..1.8e19).contains(&v) {
                format_size(v.round() as u64)
            } else {
                format!("{v:.3e}")
            }
        }
        Ticks::Plain => {
            let inv = 1.0 / v;
            if v > 0.0 && v < 1.0 && inv.fract() == 0.0 && inv < 1e6 {
                return format!("1/{inv}");
            }
            if v.abs() >= 1e4 || (v != 0.0 && v.abs() < 1e-2) {
                format!("{v:.0e}")
            } else {
                let s = format!("{v:.3}");
                s.trim_end_matches('0').trim_end_matches('.').to_string()
            }
        }
        Ticks::Categories(c) => {
            let i = v.round();
            if i >= 0.0 && (i as usize) < c.len() {
                c[i as usize].clone()
            } else {
                String::new()
            }
        }
    }
}

impl Map {
    /// Ticks, or one per category.
    pub(crate) fn ticks_for(&self, ticks: &Ticks) -> Vec<f64> {
        match ticks {
            Ticks::Categories(c) => (0..c.len()).map(|i| i as f64).collect(),
            _ => self.ticks(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nice_steps() {
        assert_eq!(nice_step(0.3), 0.5);
        assert_eq!(nice_step(17.0), 20.0);
        assert_eq!(nice_step(f64::NAN), 1.0);
    }
}
