//! The execution probe's decision rule (`probe.rs`), the same on every architecture:
//! from an architecture's readings ([`Reading`]) to an allowed unit count ([`settle`],
//! [`settle_test`]), the 512-bit FMA count from the pure loop and the shuffle mix
//! ([`settle_fma512`], [`decide_fma512`]), snapping estimates to counts ([`decide`]),
//! and the words of the evidence (`2/3`, `measured 1.97, 1.99`).

use super::probe_class::{Test, FMA_UNITS, MIX_UNITS, TOLERANCE, WIDE_TOLERANCE};
use super::rates::Probed;
use super::uarch::Width;

/// Formats a unit count: `2`, `2/3`, `1/16`.
pub(crate) fn fmt_units(x: f64) -> String {
    for d in 1..=32u32 {
        let n = x * f64::from(d);
        if (n - n.round()).abs() < 1e-9 && n.round() >= 1.0 {
            return if d == 1 {
                format!("{}", n.round())
            } else {
                format!("{}/{d}", n.round())
            };
        }
    }
    format!("{x:.3}")
}

fn fmt_measured(m: &[f64]) -> String {
    m.iter()
        .map(|x| {
            if *x < 0.2 {
                format!("{x:.4}")
            } else {
                format!("{x:.2}")
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Snaps independent estimates of one rate to an allowed unit count: `Ok((count,
/// "count (measured …)"))` when every estimate lies within [`TOLERANCE`] (relative) of
/// the same candidate, `Err(reason)` when there is none, one is not finite and
/// positive, one lies between candidates (ambiguous), or they snap to different
/// candidates (noisy).
pub(crate) fn decide(estimates: &[f64], candidates: &[f64]) -> Result<(f64, String), String> {
    decide_within(estimates, candidates, TOLERANCE)
}

/// [`decide`] with a given relative tolerance.
pub(crate) fn decide_within(
    estimates: &[f64],
    candidates: &[f64],
    tolerance: f64,
) -> Result<(f64, String), String> {
    if estimates.is_empty() {
        return Err("no measurement".into());
    }
    if let Some(bad) = estimates.iter().find(|x| !(x.is_finite() && **x > 0.0)) {
        return Err(format!("unusable measurement {bad}"));
    }
    let allowed = || {
        candidates
            .iter()
            .map(|c| fmt_units(*c))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut chosen: Option<f64> = None;
    for &m in estimates {
        // Nearest on a log scale, i.e. by ratio, as the tolerance is relative.
        let near = candidates
            .iter()
            .copied()
            .min_by(|a, b| (m / a).ln().abs().total_cmp(&(m / b).ln().abs()));
        let Some(c) = near.filter(|c| ((m - c) / c).abs() <= tolerance) else {
            return Err(format!(
                "measured {} per cycle, not within {:.0} % of any of {} (ambiguous)",
                fmt_measured(estimates),
                tolerance * 100.0,
                allowed()
            ));
        };
        match chosen {
            Some(prev) if prev != c => {
                return Err(format!(
                    "repeated measurements disagree ({} per cycle: {} vs {}), too noisy",
                    fmt_measured(estimates),
                    fmt_units(prev),
                    fmt_units(c)
                ))
            }
            _ => chosen = Some(c),
        }
    }
    let c = chosen.expect("estimates is not empty");
    Ok((
        c,
        format!("{} (measured {})", fmt_units(c), fmt_measured(estimates)),
    ))
}

/// Evidence for a settled test, e.g. `probe: 2 FMA/cycle, vfmadd231pd ymm (measured 1.97, 1.99)`.
fn evidence(test: Test, c: f64, estimates: &[f64]) -> String {
    format!(
        "probe: {} {}/cycle, {} (measured {})",
        fmt_units(c),
        test.unit_word(),
        test.name(),
        fmt_measured(estimates)
    )
}

/// One reading of a probe loop: instructions per cycle over one short timing (a clock
/// reading and the loop, back to back) on one CPU, and whether the timing thread kept
/// its core meanwhile (its CPU time at least `measure::share::MIN_SHARE` of the wall
/// time). This is the interface an architecture's loops feed the decision rule
/// ([`settle`]) with: `probe::measure_readings` takes them on x86 and Arm alike, each
/// architecture's loops in its own file (`probe_x86.rs`, `probe_arm.rs`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Reading {
    /// The CPU it was taken on, when pinned.
    pub(crate) cpu: Option<usize>,
    /// Instructions per cycle.
    pub(crate) per_cycle: f64,
    /// Whether the thread kept its core during the reading.
    pub(crate) kept_core: bool,
}

/// Fewest readings taken while their thread kept its core that settle a count.
pub(crate) const MIN_READINGS: usize = 3;

/// Two readings within this (relative) of each other corroborate each other.
pub(crate) const CONSISTENT: f64 = 0.03;

/// What a test's readings say, before the table is consulted.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Settled {
    /// The allowed count the highest consistent reading snaps to.
    pub(crate) count: f64,
    /// The highest reading another reading corroborates (within [`CONSISTENT`]).
    pub(crate) best: f64,
    /// The readings taken while their thread kept its core, in order.
    pub(crate) readings: Vec<f64>,
    /// Readings left out: their thread lost its core, or they were not finite.
    pub(crate) dropped: usize,
    /// (largest − smallest) ÷ largest of `readings`.
    pub(crate) spread: f64,
    /// Whether every kept reading snaps to `count`: only then may it lower a table.
    pub(crate) consistent: bool,
    /// The CPUs the readings were taken on.
    pub(crate) cpus: Vec<usize>,
}

/// The nearest candidate by ratio, when within `tolerance` (relative).
fn snap(m: f64, candidates: &[f64], tolerance: f64) -> Option<f64> {
    candidates
        .iter()
        .copied()
        .min_by(|a, b| (m / a).ln().abs().total_cmp(&(m / b).ln().abs()))
        .filter(|c| ((m - c) / c).abs() <= tolerance)
}

/// The decision rule of the probe, the same on every architecture. A disturbance (a
/// task or another tenant on the core, the host) only ever lowers a throughput, so:
/// readings whose thread lost its core are left out; the figure is the *highest
/// consistent* reading (the highest one another reading lies within [`CONSISTENT`]
/// of, so that one reading spoilt upwards, by a clock reading cut short, counts for
/// nothing), snapped to an allowed count within `tolerance`. `consistent` says whether
/// every reading snaps to that same count. `Err` with the readings when fewer than
/// [`MIN_READINGS`] kept their core (disturbed), when no two agree (inconsistent), or
/// when the highest consistent one lies between counts (ambiguous).
pub(crate) fn settle(
    readings: &[Reading],
    candidates: &[f64],
    tolerance: f64,
) -> Result<Settled, String> {
    let kept: Vec<f64> = readings
        .iter()
        .filter(|r| r.kept_core && r.per_cycle.is_finite() && r.per_cycle > 0.0)
        .map(|r| r.per_cycle)
        .collect();
    let dropped = readings.len() - kept.len();
    let mut cpus: Vec<usize> = readings.iter().filter_map(|r| r.cpu).collect();
    cpus.sort_unstable();
    cpus.dedup();
    if kept.len() < MIN_READINGS {
        return Err(format!(
            "disturbed: only {} of {} readings kept their core{}",
            kept.len(),
            readings.len(),
            if kept.is_empty() {
                String::new()
            } else {
                format!(" ({})", fmt_measured(&kept))
            }
        ));
    }
    let (lo, hi) = kept
        .iter()
        .fold((f64::INFINITY, 0.0f64), |(l, h), x| (l.min(*x), h.max(*x)));
    let spread = (hi - lo) / hi;
    let mut sorted = kept.clone();
    sorted.sort_by(|a, b| b.total_cmp(a));
    let best = sorted.iter().enumerate().find_map(|(i, x)| {
        sorted
            .iter()
            .enumerate()
            .any(|(j, y)| i != j && (x - y).abs() <= CONSISTENT * x)
            .then_some(*x)
    });
    let Some(best) = best else {
        return Err(format!(
            "inconsistent: no two of {} readings within {:.0} % of each other ({}; spread {:.0} %)",
            kept.len(),
            CONSISTENT * 100.0,
            fmt_measured(&kept),
            spread * 100.0
        ));
    };
    let Some(count) = snap(best, candidates, tolerance) else {
        return Err(format!(
            "ambiguous: highest consistent reading {} per cycle is not within {:.0} % of any of {} (readings {}; spread {:.0} %)",
            fmt_measured(&[best]),
            tolerance * 100.0,
            candidates
                .iter()
                .map(|c| fmt_units(*c))
                .collect::<Vec<_>>()
                .join(", "),
            fmt_measured(&kept),
            spread * 100.0
        ));
    };
    let consistent = kept
        .iter()
        .all(|x| snap(*x, candidates, tolerance) == Some(count));
    Ok(Settled {
        count,
        best,
        readings: kept,
        dropped,
        spread,
        consistent,
        cpus,
    })
}

impl Settled {
    /// `highest consistent reading 1.99 of 12 on cpus 0, 1 (1.95-1.99, spread 2 %)`,
    /// with the readings left out and whether they disagree.
    fn words(&self) -> String {
        let (lo, hi) = self
            .readings
            .iter()
            .fold((f64::INFINITY, 0.0f64), |(l, h), x| (l.min(*x), h.max(*x)));
        let mut s = format!(
            "highest consistent reading {} of {}{} ({}-{}, spread {:.0} %)",
            fmt_measured(&[self.best]),
            self.readings.len(),
            match self.cpus.as_slice() {
                [] => String::new(),
                [c] => format!(" on cpu {c}"),
                cs => format!(
                    " on cpus {}",
                    cs.iter()
                        .map(|c| c.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            },
            fmt_measured(&[lo]),
            fmt_measured(&[hi]),
            self.spread * 100.0
        );
        if self.dropped > 0 {
            s.push_str(&format!(
                ", {} left out (thread lost its core)",
                self.dropped
            ));
        }
        if !self.consistent {
            s.push_str(", readings disagree");
        }
        s
    }

    /// The probe's answer from these readings, with `evidence`.
    fn probed(&self, per_cycle: f64, evidence: String) -> Probed {
        Probed {
            per_cycle,
            evidence,
            readings: self
                .readings
                .iter()
                .map(|x| (x * 1e4).round() / 1e4)
                .collect(),
            spread: Some((self.spread * 1e4).round() / 1e4),
            dropped: self.dropped,
            consistent: self.consistent,
        }
    }
}

/// Settles an ordinary test from its readings ([`settle`]).
pub(crate) fn settle_test(test: Test, readings: &[Reading]) -> Result<Probed, String> {
    let s = settle(readings, test.candidates(), test.tolerance())?;
    Ok(s.probed(
        s.count,
        format!(
            "probe: {} {}/cycle, {} ({})",
            fmt_units(s.count),
            test.unit_word(),
            test.name(),
            s.words()
        ),
    ))
}

/// Settles the 512-bit FMA count from the pure loop's and the shuffle mix's readings:
/// each settled on its own ([`settle`]), then [`decide_fma512`] on their highest
/// consistent readings.
pub(crate) fn settle_fma512(
    pure: &[Reading],
    mix: &[Reading],
    shuffle_shares_port5: bool,
) -> Result<Probed, String> {
    let p = settle(pure, FMA_UNITS, TOLERANCE)?;
    let m = settle(mix, FMA_UNITS, WIDE_TOLERANCE)
        .map_err(|e| format!("pure FMA loop settled, shuffle mix did not: {e}"))?;
    let d = decide_fma512(&[p.best], &[m.best], shuffle_shares_port5)?;
    Ok(p.probed(
        d.per_cycle,
        format!("{}; pure loop: {}", d.evidence, p.words()),
    ))
}

/// Settles the 512-bit FMA count from the pure loop's estimates (FMA/cycle) and the
/// shuffle mix's (FMA/cycle with one shuffle per FMA). The slowdown pure ÷ mix is 2
/// with two 512-bit FMA units on Intel (the second shares port 5 with the shuffles)
/// and 1 with one. With `shuffle_shares_port5` (Intel) the two must agree; elsewhere
/// the slowdown is only reported.
pub(crate) fn decide_fma512(
    pure: &[f64],
    mix: &[f64],
    shuffle_shares_port5: bool,
) -> Result<Probed, String> {
    let test = Test::Fma(Width::V512);
    let (c, _) = decide(pure, FMA_UNITS)?;
    let slowdown: Vec<f64> = pure.iter().zip(mix).map(|(p, m)| p / m).collect();
    let mixed = decide_within(&slowdown, MIX_UNITS, WIDE_TOLERANCE);
    let mut ev = evidence(test, c, pure);
    if !shuffle_shares_port5 {
        ev.push_str(&format!(
            "; shuffle mix slows it x{} (not used: shuffles need not share an FMA port on this vendor)",
            fmt_measured(&slowdown)
        ));
        return Ok(Probed {
            per_cycle: c,
            evidence: ev,
            ..Probed::default()
        });
    }
    match mixed {
        Ok((units, _)) if units == c => {
            ev.push_str(&format!(
                "; shuffle mix slows it x{}: {} unit{} (port 5 {})",
                fmt_measured(&slowdown),
                fmt_units(units),
                if units == 1.0 { "" } else { "s" },
                if units == 1.0 {
                    "free for shuffles"
                } else {
                    "shared with shuffles"
                }
            ));
            Ok(Probed {
                per_cycle: c,
                evidence: ev,
                ..Probed::default()
            })
        }
        Ok((units, _)) => Err(format!(
            "pure FMA loop gives {} per cycle (measured {}) but the shuffle mix slows it x{}, which says {} unit{}: inconsistent",
            fmt_units(c),
            fmt_measured(pure),
            fmt_measured(&slowdown),
            fmt_units(units),
            if units == 1.0 { "" } else { "s" }
        )),
        Err(e) => Err(format!(
            "pure FMA loop gives {} per cycle (measured {}) but the shuffle mix is unclear: {e}",
            fmt_units(c),
            fmt_measured(pure)
        )),
    }
}
