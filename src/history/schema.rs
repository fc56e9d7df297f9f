//! The history database's schema and its migrations (docs/history.md, "Schema").
//!
//! The schema's version is SQLite's `PRAGMA user_version`; `PRAGMA application_id`
//! marks the file as peakbench's. [`MIGRATIONS`]`[i]` takes a database from version `i`
//! to `i + 1`; a new database (version 0, no tables) gets them all. Each migration runs
//! in one `BEGIN IMMEDIATE` transaction that reads the version again first, so two
//! processes opening a new database at once migrate it once. A file that is not
//! SQLite, a SQLite database of another program (another `application_id`, or version 0
//! with tables of its own) and one written by a newer peakbench (a version above
//! [`CURRENT`]) are refused with one line, never changed.
//!
//! The reading commands open the database read-only ([`Mode::Read`]): no WAL switch,
//! no migration, no lock taken, so they read a database they cannot write (another
//! user's, a read-only mount) and never wait behind a writer (issue #43 item 6).

use super::HistoryError;
use rusqlite::{Connection, OpenFlags};
use std::path::Path;
use std::time::Duration;

/// `PRAGMA application_id` of a peakbench history: `pbnh` in ASCII.
pub(crate) const APPLICATION_ID: i32 = 0x7062_6e68;

/// How long a writer waits for another one's lock before giving up (concurrent runs
/// on one database take turns; each holds the lock for one small transaction).
pub(crate) const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

/// The figure columns of a case row and its key, the same in version 1's `cases` and
/// version 2's `case_rows` (one text, so the two tables cannot drift apart).
macro_rules! case_figures {
    () => {
        "    value      REAL,
    median     REAL,
    sd         REAL,
    n          INTEGER NOT NULL,
    peak       REAL,
    efficiency REAL,
    over_peak  INTEGER NOT NULL,
    disturbed  INTEGER NOT NULL,
    high_cv    INTEGER NOT NULL,
    samples    TEXT NOT NULL,
    PRIMARY KEY (run_id, idx)
);
"
    };
}

/// Version 1: hosts (fingerprints), runs (the whole report JSON and its settings) and
/// cases (one row per result, with its raw samples and verdicts).
const V1: &str = concat!(
    "
CREATE TABLE hosts (
    id          INTEGER PRIMARY KEY,
    fingerprint TEXT NOT NULL UNIQUE,
    hostname    TEXT NOT NULL,
    identity    TEXT NOT NULL
);
CREATE TABLE runs (
    id           INTEGER PRIMARY KEY,
    digest       TEXT NOT NULL UNIQUE,
    host_id      INTEGER NOT NULL REFERENCES hosts(id),
    hostname     TEXT NOT NULL,
    command      TEXT NOT NULL,
    started_at   TEXT NOT NULL,
    started_unix INTEGER NOT NULL,
    finished_at  TEXT,
    tool_version TEXT NOT NULL,
    settings     TEXT NOT NULL,
    gathered     INTEGER NOT NULL,
    source       TEXT,
    recorded_at  TEXT NOT NULL,
    report       TEXT NOT NULL
);
CREATE INDEX runs_by_host_time ON runs(hostname, started_unix);
CREATE TABLE cases (
    run_id     INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    idx        INTEGER NOT NULL,
    host       TEXT NOT NULL,
    key        TEXT NOT NULL,
    resource   TEXT NOT NULL,
    workload   TEXT NOT NULL,
    metric     TEXT NOT NULL,
    unit       TEXT NOT NULL,
    params     TEXT NOT NULL,
    status     TEXT NOT NULL,
",
    case_figures!(),
    "CREATE INDEX cases_by_key ON cases(key, host);
"
);

/// Version 2 (issue #43 item 2, #44 item 9): each distinct text of the cases (host,
/// key, resource, workload, metric, unit, params, status) is stored once in `texts`
/// and the cases refer to it (`case_rows`); the view `cases` shows them with the
/// columns of version 1, so queries written for it (and `sqlite3` one-liners) still
/// read. `tags` holds the operator's `key=value` notes on runs.
const V2: &str = concat!(
    "
CREATE TABLE texts (
    id   INTEGER PRIMARY KEY,
    text TEXT NOT NULL UNIQUE
);
INSERT OR IGNORE INTO texts (text)
    SELECT host FROM cases UNION SELECT key FROM cases UNION SELECT resource FROM cases
    UNION SELECT workload FROM cases UNION SELECT metric FROM cases
    UNION SELECT unit FROM cases UNION SELECT params FROM cases UNION SELECT status FROM cases;
CREATE TABLE case_rows (
    run_id     INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    idx        INTEGER NOT NULL,
    host_t     INTEGER NOT NULL,
    key_t      INTEGER NOT NULL,
    resource_t INTEGER NOT NULL,
    workload_t INTEGER NOT NULL,
    metric_t   INTEGER NOT NULL,
    unit_t     INTEGER NOT NULL,
    params_t   INTEGER NOT NULL,
    status_t   INTEGER NOT NULL,
",
    case_figures!(),
    "INSERT INTO case_rows
    SELECT c.run_id, c.idx,
           (SELECT id FROM texts WHERE text = c.host), (SELECT id FROM texts WHERE text = c.key),
           (SELECT id FROM texts WHERE text = c.resource),
           (SELECT id FROM texts WHERE text = c.workload),
           (SELECT id FROM texts WHERE text = c.metric), (SELECT id FROM texts WHERE text = c.unit),
           (SELECT id FROM texts WHERE text = c.params),
           (SELECT id FROM texts WHERE text = c.status),
           c.value, c.median, c.sd, c.n, c.peak, c.efficiency, c.over_peak, c.disturbed,
           c.high_cv, c.samples
    FROM cases c;
DROP INDEX cases_by_key;
DROP TABLE cases;
CREATE INDEX case_rows_by_key ON case_rows(key_t, host_t);
CREATE INDEX case_rows_by_host ON case_rows(host_t);
CREATE VIEW cases AS
    SELECT c.run_id, c.idx, h.text AS host, k.text AS key, re.text AS resource,
           w.text AS workload, m.text AS metric, u.text AS unit, pa.text AS params,
           st.text AS status, c.value, c.median, c.sd, c.n, c.peak, c.efficiency,
           c.over_peak, c.disturbed, c.high_cv, c.samples
    FROM case_rows c
    JOIN texts h ON h.id = c.host_t JOIN texts k ON k.id = c.key_t
    JOIN texts re ON re.id = c.resource_t JOIN texts w ON w.id = c.workload_t
    JOIN texts m ON m.id = c.metric_t JOIN texts u ON u.id = c.unit_t
    JOIN texts pa ON pa.id = c.params_t JOIN texts st ON st.id = c.status_t;
CREATE TABLE tags (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    key    TEXT NOT NULL,
    value  TEXT NOT NULL,
    PRIMARY KEY (run_id, key)
);
"
);

/// The migrations, in order: entry `i` takes version `i` to `i + 1`.
pub(crate) const MIGRATIONS: &[&str] = &[V1, V2];

/// The tables (and views) a history of [`CURRENT`] has.
const TABLES: &[&str] = &["hosts", "runs", "texts", "case_rows", "cases", "tags"];

/// How a command opens the history.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// A writer: created when missing (not its directory), migrated, WAL.
    Create,
    /// A writer of an existing database: migrated, WAL.
    Write,
    /// A reader: `SQLITE_OPEN_READ_ONLY`, nothing switched or migrated, no lock.
    Read,
}

/// The schema version this peakbench writes and reads.
pub(crate) const CURRENT: i32 = MIGRATIONS.len() as i32;

/// Opens `path` as `mode` says, checks that it is a peakbench history (or, for a
/// writer, a new, empty database); a writer migrates it to [`CURRENT`] and sets WAL
/// and the busy timeout. A reader of a database of an older schema is refused with one
/// line (a writer upgrades it).
pub(crate) fn open(path: &Path, mode: Mode) -> Result<Connection, HistoryError> {
    if mode == Mode::Read {
        return open_read(path);
    }
    let shown = path.display().to_string();
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
        | OpenFlags::SQLITE_OPEN_NO_MUTEX
        | if mode == Mode::Create {
            OpenFlags::SQLITE_OPEN_CREATE
        } else {
            OpenFlags::empty()
        };
    let conn = Connection::open_with_flags(path, flags)
        .map_err(|e| HistoryError::Open(shown.clone(), super::why(&e)))?;
    conn.busy_timeout(BUSY_TIMEOUT)
        .map_err(|e| HistoryError::Open(shown.clone(), super::why(&e)))?;
    // One read transaction: the version, id and tables from one snapshot, not from
    // before and after another run's first migration.
    conn.execute_batch("BEGIN")
        .map_err(|e| foreign_or(&shown, e))?;
    let checked = check(&conn, &shown);
    let _ = conn.execute_batch("COMMIT");
    checked?;
    // WAL: readers never wait for the writer, and a writer's commit is one append.
    // Switching needs the database alone, and SQLite does not wait for that itself:
    // retried while another run holds it, up to the busy timeout.
    let deadline = std::time::Instant::now() + BUSY_TIMEOUT;
    loop {
        match conn.pragma_update(None, "journal_mode", "WAL") {
            Ok(()) => break,
            Err(e)
                if matches!(
                    e.sqlite_error_code(),
                    Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
                ) && std::time::Instant::now() < deadline =>
            {
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            Err(e) => return Err(foreign_or(&shown, e)),
        }
    }
    conn.pragma_update(None, "foreign_keys", "ON")
        .map_err(|e| foreign_or(&shown, e))?;
    migrate(&conn, &shown)?;
    Ok(conn)
}

/// `path` as an SQLite URI (`file:` and the path, percent-encoded) with `query`.
fn uri(path: &Path, query: &str) -> String {
    use std::os::unix::ffi::OsStrExt;
    let mut u = String::from("file:");
    for &b in path.as_os_str().as_bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~".contains(&b) {
            u.push(b as char);
        } else {
            u.push_str(&format!("%{b:02X}"));
        }
    }
    u.push('?');
    u.push_str(query);
    u
}

/// A reader's connection: `SQLITE_OPEN_READ_ONLY`. A WAL database whose `-shm` file
/// neither exists nor can be created (a read-only directory: another user's, a
/// read-only mount) cannot be opened that way; it is opened again as `immutable=1`,
/// which reads the file as it is (its last checkpoint: every finished run, since a
/// writer's last close checkpoints the log).
fn open_read(path: &Path) -> Result<Connection, HistoryError> {
    let shown = path.display().to_string();
    let attempt = |flags: OpenFlags, name: &str| -> Result<Connection, HistoryError> {
        let conn = Connection::open_with_flags(name, flags)
            .map_err(|e| HistoryError::Open(shown.clone(), super::why(&e)))?;
        conn.busy_timeout(BUSY_TIMEOUT)
            .map_err(|e| HistoryError::Open(shown.clone(), super::why(&e)))?;
        conn.execute_batch("BEGIN")
            .map_err(|e| foreign_or(&shown, e))?;
        let checked = check(&conn, &shown).and_then(|()| current(&conn, &shown));
        let _ = conn.execute_batch("COMMIT");
        checked.map(|()| conn)
    };
    let ro = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    match attempt(ro, &path.to_string_lossy()) {
        Ok(c) => Ok(c),
        Err(e @ (HistoryError::Foreign(..) | HistoryError::Old(..))) => Err(e),
        Err(first) => {
            attempt(ro | OpenFlags::SQLITE_OPEN_URI, &uri(path, "immutable=1")).map_err(|_| first)
        }
    }
}

/// A reader's check that the database has the current schema (it does not migrate).
fn current(conn: &Connection, shown: &str) -> Result<(), HistoryError> {
    let version: i32 = conn
        .pragma_query_value(None, "user_version", |r| r.get(0))
        .map_err(|e| foreign_or(shown, e))?;
    if version == 0 {
        return Err(HistoryError::Foreign(
            shown.to_string(),
            "an empty database: no run recorded yet".into(),
        ));
    }
    if version < CURRENT {
        return Err(HistoryError::Old(shown.to_string(), version, CURRENT));
    }
    Ok(())
}

/// A SQLite error on a file that turned out not to be a database, or another one.
fn foreign_or(shown: &str, e: rusqlite::Error) -> HistoryError {
    match e.sqlite_error_code() {
        Some(rusqlite::ErrorCode::NotADatabase) => HistoryError::Foreign(
            shown.to_string(),
            "not a SQLite database (or a corrupt one)".into(),
        ),
        _ => HistoryError::Sqlite(shown.to_string(), super::why(&e)),
    }
}

/// The version and application id of an open database, refusing what is not a
/// peakbench history this version can read.
fn check(conn: &Connection, shown: &str) -> Result<(), HistoryError> {
    let version: i32 = conn
        .pragma_query_value(None, "user_version", |r| r.get(0))
        .map_err(|e| foreign_or(shown, e))?;
    let app: i32 = conn
        .pragma_query_value(None, "application_id", |r| r.get(0))
        .map_err(|e| foreign_or(shown, e))?;
    let tables: i64 = conn
        .query_row(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table'",
            [],
            |r| r.get(0),
        )
        .map_err(|e| foreign_or(shown, e))?;
    let foreign = |why: String| Err(HistoryError::Foreign(shown.to_string(), why));
    if app != APPLICATION_ID && (app != 0 || tables > 0) {
        return foreign(format!(
            "a SQLite database of another program (application_id {app:#x}, {tables} tables), not a peakbench history"
        ));
    }
    if version > CURRENT {
        return foreign(format!(
            "written by a newer peakbench (schema version {version}; this one reads up to {CURRENT}); use that version or another --history file"
        ));
    }
    if app == APPLICATION_ID && version >= 1 {
        let want: &[&str] = if version >= CURRENT {
            TABLES
        } else {
            &["hosts", "runs", "cases"]
        };
        for t in want {
            let n: i64 = conn
                .query_row(
                    "SELECT count(*) FROM sqlite_master WHERE type IN ('table', 'view') AND name = ?1",
                    [t],
                    |r| r.get(0),
                )
                .map_err(|e| foreign_or(shown, e))?;
            if n == 0 {
                return foreign(format!(
                    "a damaged peakbench history (schema version {version} without its table '{t}')"
                ));
            }
        }
    }
    Ok(())
}

/// Applies the migrations the database lacks, one transaction each.
fn migrate(conn: &Connection, shown: &str) -> Result<(), HistoryError> {
    let err = |e: rusqlite::Error| HistoryError::Sqlite(shown.to_string(), super::why(&e));
    loop {
        conn.execute_batch("BEGIN IMMEDIATE").map_err(err)?;
        let step = (|| {
            let version: i32 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
            let Some(sql) = usize::try_from(version)
                .ok()
                .and_then(|v| MIGRATIONS.get(v))
            else {
                return Ok(false);
            };
            conn.execute_batch(sql)?;
            conn.pragma_update(None, "application_id", APPLICATION_ID)?;
            conn.pragma_update(None, "user_version", version + 1)?;
            Ok(true)
        })();
        match step {
            Ok(more) => {
                conn.execute_batch("COMMIT").map_err(err)?;
                if !more {
                    return Ok(());
                }
            }
            Err(e) => {
                let _ = conn.execute_batch("ROLLBACK");
                return Err(err(e));
            }
        }
    }
}

/// The schema version of an open database.
#[cfg(test)]
pub(crate) fn version(conn: &Connection) -> rusqlite::Result<i32> {
    conn.pragma_query_value(None, "user_version", |r| r.get(0))
}
