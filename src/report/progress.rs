//! Live progress on stderr (indicatif): shown only when stderr is a terminal and not
//! `--quiet`. It never carries results; those go through the exporters.

use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;

/// A progress bar over the cases of a run, or nothing.
pub(crate) struct Progress {
    bar: Option<ProgressBar>,
}

impl Progress {
    /// A bar over `cases` cases; hidden when `quiet` or stderr is not a terminal.
    pub fn new(cases: usize, quiet: bool) -> Progress {
        let show = !quiet && std::io::stderr().is_terminal();
        let bar = show.then(|| {
            let b = ProgressBar::new(cases as u64);
            b.set_style(
                ProgressStyle::with_template("{bar:30} {pos}/{len} {elapsed} {msg}")
                    .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            b
        });
        Progress { bar }
    }

    /// Names the case starting now.
    pub(crate) fn start(&self, what: &str) {
        if let Some(b) = &self.bar {
            b.set_message(what.to_string());
        }
    }

    /// One case done.
    pub(crate) fn done(&self) {
        if let Some(b) = &self.bar {
            b.inc(1);
        }
    }

    /// A warning printed above the bar (or plainly on stderr).
    pub(crate) fn warn(&self, msg: &str) {
        match &self.bar {
            Some(b) => b.println(format!("warning: {msg}")),
            None => eprintln!("warning: {msg}"),
        }
    }

    /// Removes the bar.
    pub(crate) fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}
