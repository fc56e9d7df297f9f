//! Why the history could not be used, as one line naming the file.

/// Why the history could not be used; every variant is one line naming the file.
#[derive(Debug, thiserror::Error)]
pub enum HistoryError {
    /// The file could not be opened or created.
    #[error("cannot open the history database {0}: {1}")]
    Open(String, String),
    /// Not a peakbench history this version can read (not SQLite, another program's
    /// database, a newer schema).
    #[error("{0} is not a usable peakbench history: {1}")]
    Foreign(String, String),
    /// A statement failed on a database that opened.
    #[error("history database {0}: {1}")]
    Sqlite(String, String),
    /// No database at the path (reading commands do not create one).
    #[error("no history database at {0}; a measuring run creates it (or give --history PATH, or `peakbench history import FILE.json`)")]
    Missing(String),
    /// A reader on a database of an older schema (a writer upgrades it).
    #[error("{0} has the history schema version {1}, older than this peakbench's {2}; the next measuring run or `peakbench history import` by a user who can write it upgrades it")]
    Old(String, i32, i32),
    /// A run that is not recorded: an impossible figure, or more than one run may add.
    #[error("{0}")]
    Refused(String),
    /// No run with this id.
    #[error("history database {0} has no run {1}; `peakbench history` lists the runs")]
    NoRun(String, i64),
    /// A stored report that does not read back.
    #[error("history database {0}: run {1} does not read back: {2}")]
    Stored(String, i64, String),
}

/// One line from a SQLite error (its message, without the chain).
pub(crate) fn why(e: &rusqlite::Error) -> String {
    crate::util::sanitize::line_max(&e.to_string(), 300)
}

/// A transaction on `conn` (the database shown as `shown`) that takes the write lock
/// at once, so that what it reads still holds when it writes.
pub(crate) fn write_tx<'c>(
    conn: &'c mut rusqlite::Connection,
    shown: &str,
) -> Result<rusqlite::Transaction<'c>, HistoryError> {
    conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
        .map_err(|e| HistoryError::Sqlite(shown.to_string(), why(&e)))
}

/// A history error as a refusal (exit 2): a missing, foreign or corrupt database, a
/// case that matches nothing, a file that does not load.
pub(crate) fn usage(e: HistoryError) -> anyhow::Error {
    crate::util::usage::UsageError(e.to_string()).into()
}
