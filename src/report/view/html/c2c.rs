//! The core-to-core heat map of a report (`cpu --c2c`, issue #47 item 3): the CPU × CPU
//! grid of the pairs' median round trips, from the rows' `params.from`/`params.to`,
//! coloured from the fastest pair (green) to the slowest (red), with each pair's
//! relation (SMT sibling, same L3, …) in its tooltip.

use crate::report::charts::esc;
use crate::report::model::{BenchResult, Param};
use crate::util::units::format_si;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// A c2c row's CPUs and median round trip (its p50, else its mean).
fn cell(r: &BenchResult) -> Option<(u64, u64, f64)> {
    if r.workload != "c2c" || !r.is_ok() {
        return None;
    }
    let int = |k: &str| match r.params.get(k) {
        Some(Param::Int(i)) => Some(*i),
        _ => None,
    };
    let v = r
        .percentiles
        .as_ref()
        .map(|p| p.p50)
        .or_else(|| r.summary.as_ref().map(|s| s.mean))?;
    Some((int("from")?, int("to")?, v))
}

/// Writes the heat map of the c2c rows among `rs` (nothing when there are none).
pub(super) fn heat_map(out: &mut String, rs: &[&BenchResult]) {
    let cells: Vec<(u64, u64, f64, &BenchResult)> = rs
        .iter()
        .filter_map(|r| cell(r).map(|(a, b, v)| (a, b, v, *r)))
        .collect();
    if cells.is_empty() {
        return;
    }
    let mut cpus: Vec<u64> = cells.iter().flat_map(|c| [c.0, c.1]).collect();
    cpus.sort_unstable();
    cpus.dedup();
    let lo = cells.iter().map(|c| c.2).fold(f64::INFINITY, f64::min);
    let hi = cells.iter().map(|c| c.2).fold(0.0, f64::max);
    let at: BTreeMap<(u64, u64), (f64, &BenchResult)> =
        cells.iter().map(|c| ((c.0, c.1), (c.2, c.3))).collect();
    let _ = write!(
        out,
        "<h3 id=\"c2c\">Core-to-core round trip (median per pair)</h3><div class=\"meta\">rows: the CPU that starts each round trip; columns: the other; {} fastest (green) to {} slowest (red)</div><div class=\"tw\"><table><tr><th>from \\ to</th>",
        esc(&format_si(lo, "s")),
        esc(&format_si(hi, "s"))
    );
    for c in &cpus {
        let _ = write!(out, "<th>{c}</th>");
    }
    out.push_str("</tr>");
    for a in &cpus {
        let _ = write!(out, "<tr><th>{a}</th>");
        for b in &cpus {
            match at.get(&(*a, *b)) {
                _ if a == b => out.push_str("<td class=\"n\" style=\"background:#f6f8fa\">–</td>"),
                None => out.push_str("<td class=\"n\">?</td>"),
                Some((v, r)) => {
                    let t = if hi > lo { (v - lo) / (hi - lo) } else { 0.0 };
                    let hue = 120.0 * (1.0 - t.clamp(0.0, 1.0));
                    let rel = r
                        .params
                        .get("relation")
                        .map(|p| p.to_string())
                        .unwrap_or_default();
                    let _ = write!(
                        out,
                        "<td class=\"n\" style=\"background:hsl({hue:.0},70%,85%)\" title=\"{}\">{}</td>",
                        esc(&rel),
                        esc(&format_si(*v, "s"))
                    );
                }
            }
        }
        out.push_str("</tr>");
    }
    out.push_str("</table></div>");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::model::{Metric, ResourceName, Unit};

    fn pair(a: usize, b: usize, ns: f64) -> BenchResult {
        BenchResult::new(ResourceName::Cpu, "c2c", Metric::Latency, Unit::Second)
            .param("from", a)
            .param("to", b)
            .param("relation", "smt-sibling")
            .with_samples(vec![ns * 1e-9, ns * 1e-9])
    }

    #[test]
    fn a_two_cpu_heat_map_has_both_directions() {
        let rs = [pair(0, 1, 100.0), pair(1, 0, 200.0)];
        let refs: Vec<&BenchResult> = rs.iter().collect();
        let mut out = String::new();
        heat_map(&mut out, &refs);
        assert!(out.contains("<th>0</th><th>1</th>"), "{out}");
        assert!(
            out.contains("100.0 ns") && out.contains("200.0 ns"),
            "{out}"
        );
        // The fastest pair green, the slowest red.
        assert!(out.contains("hsl(120,") && out.contains("hsl(0,"), "{out}");
        assert!(out.contains("title=\"smt-sibling\""), "{out}");
        let mut none = String::new();
        heat_map(&mut none, &[]);
        assert!(none.is_empty());
    }
}
