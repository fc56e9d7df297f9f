//! `--retries N` (issue #44 item 5): the bounded retry of disturbed evidence. A case
//! whose measured results came back disturbed (other tasks took the cores it ran on,
//! the host stole time: `BenchResult::disturbed`, which `measure::share` sets) is
//! measured again, at most `N` more times; the first undisturbed attempt is kept, else
//! the last one, and a note on its results says how many attempts were disturbed.
//!
//! `check` never measures: it reads a results file or the history, and judges a case
//! that is still disturbed `inconclusive` (exit 3, distinct from a pass and a
//! regression; docs/baseline.md). So the retry happens where the measuring does, in
//! the run before `check`; without `--retries` (0) a run measures each case once, as
//! before.

use crate::bench::{Case, Context};
use crate::report::model::{BenchResult, Note, NoteKind};

/// Whether `results` hold a disturbed measurement.
fn disturbed(results: &[BenchResult]) -> bool {
    results.iter().any(|r| r.is_ok() && r.disturbed)
}

/// The note on a case's results after `n` retries (of at most `retries`).
fn note(n: u32, retries: u32, still: bool) -> String {
    if still {
        format!(
            "measured {} times (--retries {retries}): every attempt was disturbed; these are the last attempt's figures",
            n + 1
        )
    } else {
        format!(
            "measured again after {n} disturbed attempt{} (--retries {retries}); these figures are undisturbed",
            if n == 1 { "" } else { "s" }
        )
    }
}

/// Runs the case `label` through `measure`, and again while its results are disturbed, at most
/// `retries` more times; `say` tells the progress line about each retry.
pub(crate) fn run(
    label: &str,
    retries: u32,
    measure: &dyn Fn() -> Vec<BenchResult>,
    say: &dyn Fn(&str),
) -> Vec<BenchResult> {
    let mut results = measure();
    let mut n = 0;
    while n < retries && disturbed(&results) {
        n += 1;
        say(&format!(
            "{label}: disturbed; measuring it again ({n} of --retries {retries})"
        ));
        results = measure();
    }
    if n > 0 {
        let text = note(n, retries, disturbed(&results));
        for r in results.iter_mut().filter(|r| r.is_ok()) {
            r.notes.push(Note::new(NoteKind::Info, text.clone()));
        }
    }
    results
}

/// [`run`] of a case with its context.
pub(crate) fn run_case(
    case: &dyn Case,
    ctx: &Context,
    retries: u32,
    say: &dyn Fn(&str),
) -> Vec<BenchResult> {
    run(&case.label(), retries, &|| case.run(ctx), say)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    /// The case measured with its first `bad` attempts disturbed, at most `retries`
    /// times again: its results, how often it was measured, what was said.
    fn attempts(bad: u32, retries: u32) -> (Vec<BenchResult>, u32, Vec<String>) {
        let calls = Cell::new(0u32);
        let said = std::cell::RefCell::new(Vec::new());
        let measure = || {
            calls.set(calls.get() + 1);
            let mut r = crate::report::samples::compare_a().results.remove(0);
            r.disturbed = calls.get() <= bad;
            vec![r]
        };
        let out = run("flaky", retries, &measure, &|m| {
            said.borrow_mut().push(m.to_string())
        });
        (out, calls.get(), said.into_inner())
    }

    #[test]
    fn disturbed_cases_are_measured_again_a_bounded_number_of_times() {
        // Undisturbed: measured once, no note.
        let (r, calls, said) = attempts(0, 2);
        assert_eq!((calls, said.len()), (1, 0));
        assert!(r[0].notes.iter().all(|n| !n.text.contains("--retries")));
        // Disturbed once: measured twice, the second kept, said so.
        let (r, calls, said) = attempts(1, 2);
        assert_eq!(calls, 2);
        assert!(!r[0].disturbed);
        assert_eq!(
            said,
            ["flaky: disturbed; measuring it again (1 of --retries 2)"]
        );
        assert!(r[0]
            .notes
            .iter()
            .any(|n| n.text.contains("after 1 disturbed attempt (--retries 2)")));
        // Always disturbed: 1 + 2 attempts, then the last one, still disturbed.
        let (r, calls, _) = attempts(9, 2);
        assert_eq!(calls, 3);
        assert!(r[0].disturbed);
        assert!(r[0].notes.iter().any(|n| n
            .text
            .contains("measured 3 times (--retries 2): every attempt was disturbed")));
        // --retries 0 (the default): once, as before.
        let (r, calls, _) = attempts(9, 0);
        assert_eq!(calls, 1);
        assert!(r[0].disturbed);
    }
}
