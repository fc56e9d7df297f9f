//! Live progress on stderr (indicatif): a bar with the elapsed time, an estimate of
//! the time left, the case running and the count of warnings so far. Shown only when
//! stderr is a terminal and not `--quiet`. It never carries results nor the warnings'
//! text: those are printed once, with the results.
//!
//! Also the plan of a run as text (issue #32 D): what a long run prints before it
//! starts, and all that `--dry-run` prints.

use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::time::{Duration, Instant};

/// A progress bar over the cases of a run, or nothing.
pub(crate) struct Progress {
    bar: Option<ProgressBar>,
    warnings: std::cell::Cell<usize>,
    /// Each case's planned length, in run order.
    estimates: Vec<Duration>,
    /// Cases finished.
    done: std::cell::Cell<usize>,
    started: Instant,
}

/// The bar's layout: `[####------] 12/46 00:14 ~38s left  disk rand-read (2 warnings)`.
/// The time left is peakbench's own ([`time_left`]), not indicatif's rate, which
/// reads "~0s left" until a case has finished.
const TEMPLATE: &str = "{bar:30} {pos}/{len} {elapsed_precise} ~{prefix} left  {wide_msg}";

impl Progress {
    /// A bar over cases of the planned lengths `estimates`; hidden when `quiet` or
    /// stderr is not a terminal.
    pub(crate) fn new(estimates: Vec<Duration>, quiet: bool) -> Progress {
        let show = !quiet && std::io::stderr().is_terminal();
        let bar = show.then(|| {
            let b = ProgressBar::new(estimates.len() as u64);
            b.set_style(
                ProgressStyle::with_template(TEMPLATE)
                    .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            b
        });
        Progress {
            bar,
            warnings: std::cell::Cell::new(0),
            estimates,
            done: std::cell::Cell::new(0),
            started: Instant::now(),
        }
    }

    /// Names the case starting now.
    pub(crate) fn start(&self, what: &str) {
        if let Some(b) = &self.bar {
            b.set_prefix(self.left());
            b.set_message(self.message(what));
        }
    }

    /// The time left as the bar shows it.
    fn left(&self) -> String {
        duration_text(time_left(
            &self.estimates,
            self.done.get(),
            self.started.elapsed(),
        ))
    }

    fn message(&self, what: &str) -> String {
        match self.warnings.get() {
            0 => what.to_string(),
            1 => format!("{what} (1 warning, listed at the end)"),
            n => format!("{what} ({n} warnings, listed at the end)"),
        }
    }

    /// Counts `n` more warnings (their text is printed with the results).
    pub(crate) fn warnings(&self, n: usize) {
        self.warnings.set(self.warnings.get() + n);
    }

    /// One case done.
    pub(crate) fn done(&self) {
        self.done.set(self.done.get() + 1);
        if let Some(b) = &self.bar {
            b.inc(1);
            b.set_prefix(self.left());
        }
    }

    /// Prints `line` on stderr above the bar (a line that cannot wait for the end).
    pub(crate) fn say(&self, line: &str) {
        match &self.bar {
            Some(b) => b.println(line),
            None => eprintln!("{line}"),
        }
    }

    /// Removes the bar.
    pub(crate) fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}

/// The time left after `done` of the cases planned at `estimates` took `elapsed`: the
/// plan of the cases left, scaled by how the finished ones compared with their plan
/// (the plan alone before any has finished, never "0 s" while cases are left).
pub(crate) fn time_left(estimates: &[Duration], done: usize, elapsed: Duration) -> Duration {
    let done = done.min(estimates.len());
    let planned_done: Duration = estimates[..done].iter().sum();
    let rest: Duration = estimates[done..].iter().sum();
    if done == 0 || planned_done.is_zero() {
        return rest;
    }
    rest.mul_f64(elapsed.as_secs_f64() / planned_done.as_secs_f64())
}

/// A length for people: `0.4s`, `12s`, `3m 20s`, `1h 05m`.
pub(crate) fn duration_text(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s < 10.0 && d.subsec_millis() != 0 {
        format!("{s:.1}s")
    } else if s < 60.0 {
        format!("{}s", s.round() as u64)
    } else if s < 3600.0 {
        let s = s.round() as u64;
        format!("{}m {:02}s", s / 60, s % 60)
    } else {
        let m = (s / 60.0).round() as u64;
        format!("{}h {:02}m", m / 60, m % 60)
    }
}

/// How long a run must be planned to last before it prints its plan first.
pub(crate) const LONG_RUN: Duration = Duration::from_secs(60);

/// The plan of cases `(label, estimate)`: a head line with the count and the length,
/// then (when `every`) one line per case. Without `every`, the count per resource (the
/// first word of the labels) instead.
pub(crate) fn plan_lines(cases: &[(String, Duration)], every: bool) -> Vec<String> {
    let total: Duration = cases.iter().map(|(_, d)| *d).sum();
    let mut out = vec![format!(
        "plan: {} case{}, about {} (estimated from --repeat, --min-time and each case's own durations)",
        cases.len(),
        if cases.len() == 1 { "" } else { "s" },
        duration_text(total)
    )];
    if every {
        let w = cases
            .iter()
            .map(|(l, _)| l.chars().count())
            .max()
            .unwrap_or(0);
        for (i, (l, d)) in cases.iter().enumerate() {
            out.push(format!("{:>4}  {l:<w$}  {}", i + 1, duration_text(*d)));
        }
    } else {
        let mut per: Vec<(String, usize)> = Vec::new();
        for (l, _) in cases {
            let name = l.split_whitespace().next().unwrap_or("").to_string();
            match per.iter_mut().find(|(n, _)| *n == name) {
                Some((_, k)) => *k += 1,
                None => per.push((name, 1)),
            }
        }
        let by: Vec<String> = per.iter().map(|(n, k)| format!("{n} {k}")).collect();
        out.push(format!(
            "  {}; --dry-run lists them without measuring, Ctrl-C stops keeping what finished",
            by.join(", ")
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn template_parses_and_counts_warnings() {
        assert!(ProgressStyle::with_template(TEMPLATE).is_ok());
        let p = Progress::new(vec![Duration::from_secs(1); 3], true);
        assert!(p.bar.is_none());
        p.warnings(2);
        assert_eq!(p.message("disk"), "disk (2 warnings, listed at the end)");
    }

    /// Issue #32 D: the bar's estimate started at "~0s left" (indicatif's rate before
    /// any step); before a case finishes it is the plan's.
    #[test]
    fn the_estimate_starts_from_the_plan_then_follows_the_run() {
        let est = vec![Duration::from_secs(4); 5];
        let p = Progress::new(est.clone(), true);
        assert_eq!(p.left(), "20s");
        assert_eq!(time_left(&est, 0, Duration::ZERO), Duration::from_secs(20));
        // Two cases done in twice their plan: the three left take twice theirs too.
        assert_eq!(
            time_left(&est, 2, Duration::from_secs(16)),
            Duration::from_secs(24)
        );
        assert_eq!(time_left(&est, 5, Duration::from_secs(30)), Duration::ZERO);
        // Skipped cases (zero plan) finished first: the plan still stands.
        let est = [Duration::ZERO, Duration::from_secs(3)];
        assert_eq!(
            time_left(&est, 1, Duration::from_millis(5)),
            Duration::from_secs(3)
        );
    }

    #[test]
    fn lengths_and_plans_read_as_text() {
        assert_eq!(duration_text(Duration::from_millis(400)), "0.4s");
        assert_eq!(duration_text(Duration::from_secs(12)), "12s");
        assert_eq!(duration_text(Duration::from_secs(200)), "3m 20s");
        assert_eq!(duration_text(Duration::from_secs(3900)), "1h 05m");
        let cases = vec![
            ("cpu a threads=1".to_string(), Duration::from_secs(2)),
            ("cpu b threads=1".to_string(), Duration::from_secs(2)),
            ("memory copy".to_string(), Duration::from_secs(2)),
        ];
        let l = plan_lines(&cases, false);
        assert!(l[0].starts_with("plan: 3 cases, about 6s"), "{l:?}");
        assert!(l[1].contains("cpu 2, memory 1"), "{l:?}");
        let l = plan_lines(&cases, true);
        assert_eq!(l.len(), 4);
        assert!(
            l[3].contains("memory copy") && l[3].ends_with("2s"),
            "{l:?}"
        );
    }
}
