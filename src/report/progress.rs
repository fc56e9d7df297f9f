//! Live progress on stderr (indicatif): a bar with the elapsed time, an estimate of
//! the time left, the case running and the count of warnings so far. Shown only when
//! stderr is a terminal and not `--quiet`. It never carries results nor the warnings'
//! text: those are printed once, with the results.

use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;

/// A progress bar over the cases of a run, or nothing.
pub(crate) struct Progress {
    bar: Option<ProgressBar>,
    warnings: std::cell::Cell<usize>,
}

/// The bar's layout: `[####------] 12/46 00:14 ~00:38 left  disk rand-read (2 warnings)`.
const TEMPLATE: &str = "{bar:30} {pos}/{len} {elapsed_precise} ~{eta} left  {wide_msg}";

impl Progress {
    /// A bar over `cases` cases; hidden when `quiet` or stderr is not a terminal.
    pub(crate) fn new(cases: usize, quiet: bool) -> Progress {
        let show = !quiet && std::io::stderr().is_terminal();
        let bar = show.then(|| {
            let b = ProgressBar::new(cases as u64);
            b.set_style(
                ProgressStyle::with_template(TEMPLATE)
                    .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            b
        });
        Progress {
            bar,
            warnings: std::cell::Cell::new(0),
        }
    }

    /// Names the case starting now.
    pub(crate) fn start(&self, what: &str) {
        if let Some(b) = &self.bar {
            b.set_message(self.message(what));
        }
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
        if let Some(b) = &self.bar {
            b.inc(1);
        }
    }

    /// Removes the bar.
    pub(crate) fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn template_parses_and_counts_warnings() {
        assert!(ProgressStyle::with_template(TEMPLATE).is_ok());
        let p = Progress::new(3, true);
        assert!(p.bar.is_none());
        p.warnings(2);
        assert_eq!(p.message("disk"), "disk (2 warnings, listed at the end)");
    }
}
