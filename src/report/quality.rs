//! One verdict per run (issue #31): how much of the run was the machine's own. Rows
//! disturbed inside the guest (a thread lost its core, steal, the window's CPU pressure
//! with other tasks runnable), rows touched by host contention (their canary fell), and
//! probe figures kept from the table (the probe read less than the table but its
//! readings could not lower it) or given back to it (a case ran faster than the probe
//! allowed). Computed once at the end of a run into [`Report::run_quality`], which a
//! script tests (`jq -e '.run_quality.verdict == "own"'`); the table's footer and the
//! HTML print its `text`. The exit status does not change: a run that measured what it
//! was asked is no failure, and a script that wants a quiet machine reads the field.

use super::model::{BenchResult, NoteKind, Report, RunQuality};

/// Whether a note says host contention (`measure::share::contention_warning`).
fn contention_note(text: &str) -> bool {
    text.starts_with("host contention:")
}

/// Whether a result was touched by host contention.
fn contended(r: &BenchResult) -> bool {
    r.notes
        .iter()
        .any(|n| n.kind == NoteKind::Shared && contention_note(&n.text))
}

/// Whether a result was disturbed inside the guest.
fn in_guest(r: &BenchResult) -> bool {
    r.disturbed
        && r.notes
            .iter()
            .any(|n| n.kind == NoteKind::Shared && !contention_note(&n.text))
}

/// The verdict of a report's results and its host's probe figures.
pub(crate) fn of(report: &Report) -> RunQuality {
    let ok: Vec<&BenchResult> = report.results.iter().filter(|r| r.is_ok()).collect();
    let guest = ok.iter().filter(|r| in_guest(r)).count();
    let host = ok.iter().filter(|r| contended(r)).count();
    let rates = report.host.cpu.rates();
    let kept = report
        .host
        .cpu
        .probed
        .iter()
        .filter(|p| rates.rate(p.pipe, p.width).kept_table)
        .count()
        + ok.iter()
            .filter(|r| {
                r.notes
                    .iter()
                    .any(|n| n.text.starts_with("probe was wrong"))
            })
            .count();
    let shared = guest + host > 0;
    let mut text = if shared {
        let mut parts = Vec::new();
        if guest > 0 {
            parts.push(format!(
                "{guest} of {} rows disturbed inside the guest",
                ok.len()
            ));
        }
        if host > 0 {
            parts.push(format!(
                "{host} of {} rows touched by host contention",
                ok.len()
            ));
        }
        format!(
            "run quality: shared: {} (marked ~; compare and fleet treat them as weaker evidence)",
            parts.join(", ")
        )
    } else {
        format!(
            "run quality: the machine's own ({} rows, none disturbed inside the guest or by host contention)",
            ok.len()
        )
    };
    if kept > 0 {
        text.push_str(&format!(
            "; {kept} probe figure{} kept from the table (see the peaks' sources)",
            if kept == 1 { "" } else { "s" }
        ));
    }
    RunQuality {
        verdict: if shared { "shared" } else { "own" }.into(),
        rows: ok.len(),
        disturbed_in_guest: guest,
        host_contention: host,
        probe_kept_table: kept,
        text,
    }
}

/// The footer lines a view prints under a report: the verdict when the report has one
/// (files from before it have none). Its own function so layout changes merge easily.
pub(crate) fn footer_lines(report: &Report) -> Vec<String> {
    report
        .run_quality
        .as_ref()
        .map(|q| vec![q.text.clone()])
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::model::Note;

    /// A report of several ok rows, none marked.
    fn sample() -> Report {
        let mut r = crate::report::samples::mixed();
        for x in &mut r.results {
            x.disturbed = false;
            x.notes.retain(|n| n.kind != NoteKind::Shared);
        }
        r
    }

    #[test]
    fn a_quiet_run_is_the_machines_own() {
        let r = sample();
        let q = of(&r);
        assert_eq!(q.verdict, "own");
        assert_eq!((q.disturbed_in_guest, q.host_contention), (0, 0));
        assert!(
            q.text.starts_with("run quality: the machine's own"),
            "{}",
            q.text
        );
        let v = serde_json::to_value(&q).unwrap();
        assert_eq!(v["verdict"], "own");
    }

    #[test]
    fn disturbed_and_contended_rows_are_counted_apart() {
        let mut r = sample();
        let n = r.results.iter().filter(|x| x.is_ok()).count();
        assert!(n >= 2, "the sample report has {n} ok rows");
        let mut ok = r.results.iter_mut().filter(|x| x.is_ok());
        let a = ok.next().unwrap();
        a.disturbed = true;
        a.notes.push(Note::new(
            NoteKind::Shared,
            "shared machine: 1 of 3 samples disturbed; thread 2 (cpu 1) ran 50 % of the window",
        ));
        let b = ok.next().unwrap();
        b.disturbed = true;
        b.notes.push(Note::new(
            NoteKind::Shared,
            "host contention: 3 of 3 samples: cpu 1 issued 78 % of its best rate: another tenant on the core or the host was busy; the figure is not the machine's own",
        ));
        let q = of(&r);
        assert_eq!(q.verdict, "shared");
        assert_eq!((q.disturbed_in_guest, q.host_contention), (1, 1));
        assert!(
            q.text
                .contains(&format!("1 of {n} rows disturbed inside the guest")),
            "{}",
            q.text
        );
        assert!(
            q.text
                .contains(&format!("1 of {n} rows touched by host contention")),
            "{}",
            q.text
        );
        r.run_quality = Some(q.clone());
        assert_eq!(footer_lines(&r), [q.text]);
        // Older files have no verdict and print none.
        r.run_quality = None;
        assert!(footer_lines(&r).is_empty());
    }
}
