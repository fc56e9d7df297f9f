//! The run history: every measuring run recorded in a SQLite database
//! (docs/history.md), and the `peakbench history` command that reads it.
//!
//! - Where: `--history PATH`, else `$XDG_DATA_HOME/peakbench/history.db`, else
//!   `$HOME/.local/share/peakbench/history.db` ([`default_path`]); `--no-history` skips
//!   it. SQLite is built into the binary (rusqlite's `bundled`), so nothing is needed on
//!   the machine.
//! - What: per run the host's fingerprint (CPU identity, microcode, kernel, OS, memory
//!   configuration, peakbench version), the settings that matter, the whole report JSON
//!   (any past run can be rendered again) and one row per case with its raw samples and
//!   verdicts (disturbed, over peak, high CV) ([`record`]).
//! - Safety: the schema is versioned (`PRAGMA user_version`, [`schema`]); WAL and a busy
//!   timeout let concurrent runs share one database; a run whose database cannot be
//!   written keeps its results file and says so in one line ([`after_run`]).
//!
//! The API other commands read the history through (the gate's `--against history`):
//! [`open`] / [`open_existing`], then [`History::latest_runs`] (the last runs of a host,
//! as reports), [`History::runs`] (rows, filtered) and [`History::report`] (one run).

mod actions;
pub(crate) mod command;
mod error;
pub(crate) mod limits;
pub(crate) mod manage;
pub(crate) mod record;
pub(crate) mod schema;
pub(crate) mod series;

#[cfg(test)]
mod tests;

pub(crate) use error::why;
pub use error::HistoryError;

use crate::report::model::Report;
use rusqlite::Connection;
use std::path::{Path, PathBuf};

/// The default database: `$XDG_DATA_HOME/peakbench/history.db` when `XDG_DATA_HOME`
/// is an absolute path (the XDG Base Directory rule), else
/// `$HOME/.local/share/peakbench/history.db`; `None` when neither is set.
pub fn default_path() -> Option<PathBuf> {
    let abs = |k: &str| {
        std::env::var_os(k)
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
    };
    let data = abs("XDG_DATA_HOME").or_else(|| abs("HOME").map(|h| h.join(".local/share")))?;
    Some(data.join("peakbench").join("history.db"))
}

/// An open history database.
pub struct History {
    pub(crate) conn: Connection,
    /// The path as shown in messages.
    pub(crate) shown: String,
    /// What one run may add ([`limits::Limits`]).
    pub(crate) limits: limits::Limits,
}

/// Opens the history at `path`, creating it (not its directory) when missing, and
/// migrates it to the current schema.
pub fn open(path: &Path) -> Result<History, HistoryError> {
    Ok(History {
        conn: schema::open(path, schema::Mode::Create)?,
        shown: path.display().to_string(),
        limits: limits::Limits::default(),
    })
}

/// Opens an existing history to read it: read-only (`SQLITE_OPEN_READ_ONLY`), so it
/// reads a database it cannot write and never waits behind a writer; the reading
/// commands never create, migrate or switch one.
pub fn open_existing(path: &Path) -> Result<History, HistoryError> {
    existing(path, schema::Mode::Read)
}

/// Opens an existing history to change it (`history delete`, `tag`, `prune`):
/// migrated like a measuring run's, never created.
pub(crate) fn open_to_change(path: &Path) -> Result<History, HistoryError> {
    existing(path, schema::Mode::Write)
}

fn existing(path: &Path, mode: schema::Mode) -> Result<History, HistoryError> {
    if !path.exists() {
        return Err(HistoryError::Missing(path.display().to_string()));
    }
    if !path.is_file() {
        return Err(HistoryError::Open(
            path.display().to_string(),
            "not a regular file".into(),
        ));
    }
    Ok(History {
        conn: schema::open(path, mode)?,
        shown: path.display().to_string(),
        limits: limits::Limits::default(),
    })
}

/// Whether an explicit `--history PATH` can be used by a measuring run, checked before
/// anything is measured: an existing file must open as a peakbench history (it is
/// opened, checked and closed); a missing one must be creatable (its directory
/// exists and is writable: a probe file is created and removed). Nothing is left
/// behind either way.
pub(crate) fn check_target(path: &Path) -> Result<(), String> {
    let shown = path.display();
    if path.as_os_str().is_empty() {
        return Err("empty path; give a file like ~/peakbench-history.db".into());
    }
    if path.is_dir() {
        return Err(format!(
            "{shown} is a directory; give a file in it, like {shown}/history.db"
        ));
    }
    if path.exists() {
        return open(path).map(drop).map_err(|e| e.to_string());
    }
    crate::util::atomic::check_writable(path).map_err(|e| {
        format!("cannot create {shown} ({e}); give a file in an existing, writable directory")
    })
}

/// The recording hook of a measuring run, called once its results file is written:
/// records `report` (saved at `file`) in the history that `explicit`/`off` choose.
/// Failing to record never fails the run: the results file is there, and one line on
/// stderr says the run is not in the history and why.
pub fn after_run(explicit: Option<&Path>, off: bool, report: &Report, file: &Path) {
    if off {
        return;
    }
    let path = match explicit {
        Some(p) => p.to_path_buf(),
        None => match default_path() {
            Some(p) => p,
            None => {
                eprintln!("history: this run is not recorded: neither XDG_DATA_HOME nor HOME is set (give --history PATH); its results are in {}", file.display());
                return;
            }
        },
    };
    let recorded = (|| {
        if explicit.is_none() {
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir)
                    .map_err(|e| HistoryError::Open(dir.display().to_string(), e.to_string()))?;
            }
        }
        let mut h = open(&path)?;
        h.record_live(report, Some(file))
    })();
    if let Err(e) = recorded {
        eprintln!(
            "history: this run is not recorded ({}); its results are in {}",
            crate::util::sanitize::line_max(&e.to_string(), 400),
            file.display()
        );
    }
}

/// One recorded run, as listed.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct RunRow {
    /// The run's id in this database.
    pub id: i64,
    /// The host (hostname of the machine that wrote the report; rank 0 of a gathered run).
    pub host: String,
    /// The command (`quick`, `cpu`, `memory`, …).
    pub command: String,
    /// UTC start, RFC 3339.
    pub started_at: String,
    /// UTC finish (`None`: an interrupted run).
    pub finished_at: Option<String>,
    /// The peakbench version that measured it.
    pub tool_version: String,
    /// Its cases (results).
    pub cases: i64,
    /// Of those, how many were disturbed.
    pub disturbed: i64,
    /// Whether it was a cluster's gathered report (`hosts[]`).
    pub gathered: bool,
    /// The results file it was recorded from, when known.
    pub source: Option<String>,
    /// When it was recorded (UTC, RFC 3339).
    pub recorded_at: String,
    /// Dated in the future: it starts more than 10 minutes after it was recorded (a
    /// clock set wrong, or an edited file); never taken as the latest run.
    pub future: bool,
    /// The operator's notes on it (`history tag`), by key.
    pub tags: std::collections::BTreeMap<String, String>,
}

/// Which runs a query reads: every field `None` reads them all.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    /// Runs of this host (exact hostname; for a gathered run, cases of this host).
    pub host: Option<String>,
    /// Runs of this command (`quick`, `cpu`, …).
    pub command: Option<String>,
    /// Runs started at or after this Unix time.
    pub since: Option<i64>,
    /// Runs started before this Unix time.
    pub until: Option<i64>,
    /// Runs with a case whose key contains this text.
    pub case: Option<String>,
}

impl History {
    /// Runs matching `f`, oldest first (by start time).
    pub fn runs(&self, f: &Filter) -> Result<Vec<RunRow>, HistoryError> {
        self.query_runs(f, "r.started_unix, r.id", None)
    }

    /// The newest recorded run matching `f` (the last one written, not the one dated
    /// last: a run dated in the future never stays "the latest"; issue #43 item 4).
    pub fn latest_row(&self, f: &Filter) -> Result<Option<RunRow>, HistoryError> {
        Ok(self.query_runs(f, "r.id DESC", Some(1))?.pop())
    }

    fn query_runs(
        &self,
        f: &Filter,
        order: &str,
        limit: Option<i64>,
    ) -> Result<Vec<RunRow>, HistoryError> {
        let err = |e: rusqlite::Error| HistoryError::Sqlite(self.shown.clone(), why(&e));
        let mut st = self
            .conn
            .prepare(&format!(
                "SELECT r.id, r.hostname, r.command, r.started_at, r.finished_at, r.tool_version,
                        (SELECT count(*) FROM case_rows c WHERE c.run_id = r.id),
                        (SELECT count(*) FROM case_rows c WHERE c.run_id = r.id AND c.disturbed),
                        r.gathered, r.source, r.recorded_at,
                        r.started_unix > CAST(strftime('%s', r.recorded_at) AS INTEGER) + {slack}
                 FROM runs r
                 WHERE (?1 IS NULL OR r.hostname = ?1
                        OR EXISTS (SELECT 1 FROM case_rows c JOIN texts t ON t.id = c.host_t
                                   WHERE c.run_id = r.id AND t.text = ?1))
                   AND (?2 IS NULL OR r.command = ?2)
                   AND (?3 IS NULL OR r.started_unix >= ?3)
                   AND (?4 IS NULL OR r.started_unix < ?4)
                   AND (?5 IS NULL OR EXISTS (SELECT 1 FROM case_rows c JOIN texts t ON t.id = c.key_t
                                               WHERE c.run_id = r.id AND instr(t.text, ?5) > 0))
                 ORDER BY {order} LIMIT ?6",
                slack = limits::FUTURE_SLACK_S
            ))
            .map_err(err)?;
        let rows = st
            .query_map(
                rusqlite::params![
                    f.host,
                    f.command,
                    f.since,
                    f.until,
                    f.case,
                    limit.unwrap_or(-1)
                ],
                |r| {
                    Ok(RunRow {
                        id: r.get(0)?,
                        host: r.get(1)?,
                        command: r.get(2)?,
                        started_at: r.get(3)?,
                        finished_at: r.get(4)?,
                        tool_version: r.get(5)?,
                        cases: r.get(6)?,
                        disturbed: r.get(7)?,
                        gathered: r.get(8)?,
                        source: r.get(9)?,
                        recorded_at: r.get(10)?,
                        future: r.get(11)?,
                        tags: Default::default(),
                    })
                },
            )
            .map_err(err)?;
        let mut rows = rows.collect::<Result<Vec<_>, _>>().map_err(err)?;
        let tags = self.tags()?;
        for r in &mut rows {
            if let Some(t) = tags.get(&r.id) {
                r.tags = t.clone();
            }
        }
        Ok(rows)
    }

    /// The report of run `id`, as it was recorded (read back through
    /// `report::load`, so older schemas are converted as a file's would be).
    pub fn report(&self, id: i64) -> Result<Report, HistoryError> {
        let json = self.report_json(id)?;
        crate::report::load::parse(&format!("run {id}"), json.as_bytes())
            .map_err(|e| HistoryError::Stored(self.shown.clone(), id, e.to_string()))
    }

    /// The last `n` runs of `host` (newest first), whole reports: what a baseline or a
    /// gate reads. `command` limits them to one command (`quick`, `cpu`, …).
    pub fn latest_runs(
        &self,
        host: &str,
        command: Option<&str>,
        n: usize,
    ) -> Result<Vec<Report>, HistoryError> {
        let f = Filter {
            host: Some(host.to_string()),
            command: command.map(str::to_string),
            ..Filter::default()
        };
        let rows = self.runs(&f)?;
        rows.iter()
            .filter(|r| !r.future)
            .rev()
            .take(n)
            .map(|r| self.report(r.id))
            .collect()
    }
}
