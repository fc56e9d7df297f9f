//! Matching quick-suite CPU rows across kernels: the quick suite picks one kernel per
//! precision on the machine it runs on, so two quick suites (of two machines, or of one
//! before the choice was made deterministic) may hold `muladd_f32_avx` in one file and
//! `fma_f32_avx512` in the other for the same precision and threads. Such rows are
//! compared, and the comparison says so (tested through `compare` in `compare.rs`'s
//! tests).

use super::key::CaseKey;
use crate::report::model::{BenchResult, Report, ResourceName};
use std::collections::BTreeMap;

/// Whether a report is a quick suite (`peakbench quick`), whose CPU kernel per precision
/// is chosen on the machine.
fn is_quick(rep: &Report) -> bool {
    rep.config
        .pointer("/command/command")
        .and_then(|c| c.as_str())
        == Some("quick")
}

/// A CPU case's params without `isa`: what identifies a quick-suite row across kernels
/// (precision and threads).
fn without_isa(params: &str) -> String {
    params
        .split(' ')
        .filter(|p| !p.starts_with("isa="))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Per file, the baseline CPU cases matched to another kernel of that file: two quick
/// suites (of different machines, or of one before issue #26 made the choice fixed) may
/// pick different kernels for a precision, so a CPU row only in the baseline is matched
/// to the one row only in the other file with the same precision, threads, metric and
/// unit. Returns baseline key → that file's key (empty for the baseline itself and for
/// files that are not quick suites) and one line per match saying so.
#[allow(clippy::type_complexity)]
pub(super) fn kernel_aliases(
    names: &[String],
    reports: &[Report],
    maps: &[BTreeMap<CaseKey, &BenchResult>],
) -> (Vec<BTreeMap<CaseKey, CaseKey>>, Vec<String>) {
    let mut alias = vec![BTreeMap::new(); maps.len()];
    let mut notes = Vec::new();
    let Some(base) = maps.first() else {
        return (alias, notes);
    };
    if !reports.first().is_some_and(is_quick) {
        return (alias, notes);
    }
    let same = |a: &CaseKey, b: &CaseKey| {
        a.resource == b.resource
            && a.metric == b.metric
            && a.unit == b.unit
            && without_isa(&a.params) == without_isa(&b.params)
    };
    for (i, m) in maps.iter().enumerate().skip(1) {
        if !is_quick(&reports[i]) {
            continue;
        }
        let only_base: Vec<&CaseKey> = base
            .keys()
            .filter(|k| k.resource == ResourceName::Cpu && !m.contains_key(*k))
            .collect();
        let only_here: Vec<&CaseKey> = m
            .keys()
            .filter(|k| k.resource == ResourceName::Cpu && !base.contains_key(*k))
            .collect();
        for a in &only_base {
            let mut found = only_here.iter().filter(|b| same(a, b));
            let (Some(b), None) = (found.next(), found.next()) else {
                continue;
            };
            // Only one baseline row may claim it.
            if only_base.iter().filter(|x| same(x, b)).count() != 1 {
                continue;
            }
            notes.push(format!(
                "{}: cpu [{}] {} ran kernel {} (baseline {}): the quick suites chose different kernels; compared by precision and threads",
                names[i],
                without_isa(&a.params),
                a.metric,
                b.workload,
                a.workload
            ));
            alias[i].insert((*a).clone(), (*b).clone());
        }
    }
    (alias, notes)
}
