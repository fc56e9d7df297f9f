//! What one run may add to the history (issue #43 item 2), and when a run counts as
//! dated in the future (item 4): below both `mod.rs` and `record.rs`.

/// Most bytes one run may add (its report, samples, settings, host identity and the
/// texts of its cases): a whole quick suite with its samples is well under 2 MiB.
pub(crate) const MAX_RUN_BYTES: usize = 64 << 20;
/// Most cases one run may add (a quick suite has about 200).
pub(crate) const MAX_RUN_CASES: usize = 100_000;
/// A run starting more than this many seconds after it was recorded is dated in the
/// future (a clock set wrong, or a file dated 2099): flagged, never "the latest".
pub(crate) const FUTURE_SLACK_S: i64 = 600;

/// What one run may add to the database.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Limits {
    /// Bytes (report JSON, samples, settings, identity, the texts of its cases).
    pub(crate) bytes: usize,
    /// Cases.
    pub(crate) cases: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            bytes: MAX_RUN_BYTES,
            cases: MAX_RUN_CASES,
        }
    }
}
