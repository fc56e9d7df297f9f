//! The gate on the run history (issue #36 item 3): the reference runs that
//! `peakbench check --against history` and `peakbench baseline --from-history` take
//! from the database, and the run `check` reads when no results file is given.
//!
//! A host's reference runs are its runs of one command with the same settings
//! (`report::settings::figure_settings`: the settings that change a figure, not where
//! the output goes), newest first, the checked run itself and any run started after it
//! left out; `gate::reference` makes the reference of each case from them.
//!
//! **Accepted runs** (issue #44 item 2): `check --against history --accept` records the
//! checked run as the start of its host's, command's and settings' reference in a small
//! TOML file beside the database ([`accepted_path`]: `history.db` →
//! `history.accepted.toml`), so that a regression stays failed until a person accepts
//! the new level. The file is the gate's own (the database is the run history's); it is
//! read bounded, regular files only, and written atomically.

use crate::history::{History, HistoryError};
use crate::report::model::Report;
use crate::report::settings::figure_settings as settings;
use crate::util::usage::UsageError;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A history error as a refusal (exit 2), naming the flag that led to the database.
pub(crate) fn usage(flag: &str, e: HistoryError) -> UsageError {
    UsageError::new(flag, e)
}

/// The database `--history PATH` names, else the default one (`None`: neither given
/// nor a default place, as without `XDG_DATA_HOME` and `HOME`).
pub(crate) fn db_path(explicit: Option<&Path>) -> Option<PathBuf> {
    explicit
        .map(Path::to_path_buf)
        .or_else(crate::history::default_path)
}

/// Opens the history a command must read: `--history PATH` or the default place; a
/// missing, foreign or corrupt database is one line naming it.
pub(crate) fn open(explicit: Option<&Path>, flag: &str) -> Result<History, UsageError> {
    let p = db_path(explicit).ok_or_else(|| {
        UsageError::new(
            flag,
            "no history database: neither XDG_DATA_HOME nor HOME is set; give --history PATH",
        )
    })?;
    crate::history::open_existing(&p).map_err(|e| usage(flag, e))
}

/// A run read from the history: its id, label and report.
pub(crate) struct Run {
    /// Its id in the database.
    pub(crate) id: i64,
    /// `run ID (STARTED, FILE)`: how messages name it.
    pub(crate) label: String,
    /// The report.
    pub(crate) report: Report,
}

fn run_label(h: &History, row: &crate::history::RunRow) -> String {
    let mut l = format!(
        "{} run {} ({} {}",
        h.shown, row.id, row.host, row.started_at
    );
    if let Some(s) = &row.source {
        l.push_str(", ");
        l.push_str(s);
    }
    l.push(')');
    l
}

/// This host's latest run in the history, of `command` when given: the newest recorded
/// (`None`: the database holds none). A run dated in the future never stays the latest
/// (issue #43 item 4).
pub(crate) fn latest(
    h: &History,
    host: &str,
    command: Option<&str>,
    flag: &str,
) -> Result<Option<Run>, UsageError> {
    let f = crate::history::Filter {
        host: Some(host.to_string()),
        command: command.map(str::to_string),
        ..Default::default()
    };
    let Some(row) = h.latest_row(&f).map_err(|e| usage(flag, e))? else {
        return Ok(None);
    };
    let row = &row;
    Ok(Some(Run {
        id: row.id,
        label: run_label(h, row),
        report: h.report(row.id).map_err(|e| usage(flag, e))?,
    }))
}

/// What a baseline is taken from: the sources' labels, their reports, and the runs
/// passed over with why.
#[derive(Default)]
pub(crate) struct Sources {
    /// One label per report.
    pub(crate) names: Vec<String>,
    /// The reports, oldest first.
    pub(crate) reports: Vec<Report>,
    /// `run …: why`, one line each.
    pub(crate) passed_over: Vec<String>,
}

/// The reference runs taken, and the runs passed over with why.
pub(crate) struct Picked {
    /// Newest first.
    pub(crate) runs: Vec<Run>,
    /// `run ID: why`, one line each.
    pub(crate) passed_over: Vec<String>,
}

/// Which runs [`pick`] takes.
pub(crate) struct Query<'a> {
    /// The host (hostname).
    pub(crate) host: &'a str,
    /// The command (`quick`, `cpu`, …).
    pub(crate) command: &'a str,
    /// The settings the runs must have (`None`: those of the newest such run).
    pub(crate) settings: Option<&'a BTreeMap<String, String>>,
    /// A run not to take (the checked one).
    pub(crate) exclude: Option<i64>,
    /// Runs started after this Unix time are not taken.
    pub(crate) before: Option<i64>,
    /// Runs started before this Unix time are not taken (an accepted run's start).
    pub(crate) since: Option<i64>,
    /// How many runs at most.
    pub(crate) n: usize,
    /// Only these runs (`None`: any): the runs carrying a tag (`--against tag:…`).
    pub(crate) only: Option<&'a std::collections::BTreeSet<i64>>,
}

/// The last `q.n` runs of `q.host` and `q.command` with the settings `q.settings`,
/// newest first; `q.exclude` (the checked run) and runs started after `q.before` are
/// not taken.
pub(crate) fn pick(h: &History, q: &Query<'_>, flag: &str) -> Result<Picked, UsageError> {
    let (n, exclude, before) = (q.n, q.exclude, q.before);
    let f = crate::history::Filter {
        host: Some(q.host.to_string()),
        command: Some(q.command.to_string()),
        ..Default::default()
    };
    let rows = h.runs(&f).map_err(|e| usage(flag, e))?;
    let mut want = q.settings.cloned();
    let mut out = Picked {
        runs: Vec::new(),
        passed_over: Vec::new(),
    };
    for row in rows.iter().rev() {
        if out.runs.len() == n {
            break;
        }
        if Some(row.id) == exclude || q.only.is_some_and(|o| !o.contains(&row.id)) {
            continue;
        }
        let started = crate::history::record::unix(&row.started_at);
        if before.is_some_and(|b| started > b) {
            continue;
        }
        if q.since.is_some_and(|s| started < s) {
            continue;
        }
        let report = checked_report(h, row, flag)?;
        let set = settings(&report);
        match &want {
            None => want = Some(set),
            Some(w) if *w != set => {
                out.passed_over.push(format!(
                    "{}: run with other settings ({})",
                    run_label(h, row),
                    differing(w, &set)
                ));
                continue;
            }
            Some(_) => {}
        }
        out.runs.push(Run {
            id: row.id,
            label: run_label(h, row),
            report,
        });
    }
    Ok(out)
}

/// Run `row`'s report, refused (one line naming the run) when a figure in it breaks
/// the physics checks.
fn checked_report(
    h: &History,
    row: &crate::history::RunRow,
    flag: &str,
) -> Result<Report, UsageError> {
    let report = h.report(row.id).map_err(|e| usage(flag, e))?;
    crate::report::physics::check_report(&report).map_err(|e| {
        UsageError::new(
            flag,
            format!(
                "{}: {e}; such a figure is not a measurement (a corrupted or edited run)",
                run_label(h, row)
            ),
        )
    })?;
    Ok(report)
}

/// The runs `ids` of the history (`check --against run:ID,…`, a fixed reference),
/// oldest first; an id the database does not hold is one line.
pub(crate) fn runs_by_id(h: &History, ids: &[i64], flag: &str) -> Result<Vec<Run>, UsageError> {
    let rows = h
        .runs(&crate::history::Filter::default())
        .map_err(|e| usage(flag, e))?;
    let mut out = Vec::new();
    for id in ids {
        let Some(row) = rows.iter().find(|r| r.id == *id) else {
            return Err(UsageError::new(
                flag,
                format!(
                    "{} holds no run {id}; `peakbench history` lists the runs with their ids",
                    h.shown
                ),
            ));
        };
        let report = checked_report(h, row, flag)?;
        out.push(Run {
            id: row.id,
            label: run_label(h, row),
            report,
        });
    }
    out.sort_by_key(|r| (crate::history::record::unix(&r.report.started_at), r.id));
    Ok(out)
}

/// The schema of the accepted-runs file.
pub(crate) const ACCEPTED_SCHEMA: &str = "peakbench-accepted/1";

/// Largest accepted-runs file read (a line per acceptance: years of them fit).
const MAX_ACCEPTED_BYTES: u64 = 4 << 20;

/// One acceptance: from this run on, the reference of its host, command and settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Accepted {
    /// The host (hostname).
    pub(crate) host: String,
    /// The command (`quick`, `cpu`, …).
    pub(crate) command: String,
    /// The settings that change a figure, as `report::settings::key_text` writes them.
    pub(crate) settings: String,
    /// The accepted run's id in the database.
    pub(crate) run: i64,
    /// Its start (RFC 3339): the reference starts there.
    pub(crate) started_at: String,
    /// When it was accepted (RFC 3339).
    pub(crate) accepted_at: String,
}

/// The accepted-runs file.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct AcceptedFile {
    schema: String,
    #[serde(default)]
    accepted: Vec<Accepted>,
}

/// Where the accepted runs of the database `db` are kept: beside it, its name's
/// extension replaced (`history.db` → `history.accepted.toml`).
pub(crate) fn accepted_path(db: &Path) -> PathBuf {
    db.with_extension("accepted.toml")
}

/// The acceptances recorded for the database `db`, oldest first (none: no file).
pub(crate) fn read_accepted(db: &Path, flag: &str) -> Result<Vec<Accepted>, UsageError> {
    let p = accepted_path(db);
    let bad = |m: String| UsageError::new(flag, format!("{}: {m}", p.display()));
    // Through the one capped, non-blocking reader (issue #43 item 5).
    let bytes = match crate::util::regular::read_capped(&p, MAX_ACCEPTED_BYTES) {
        Ok(b) => b,
        Err(crate::util::regular::ReadError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(Vec::new())
        }
        Err(crate::util::regular::ReadError::TooBig(_)) => {
            return Err(bad(format!(
                "larger than {} MiB: not peakbench's accepted runs; move it away",
                MAX_ACCEPTED_BYTES >> 20
            )))
        }
        Err(e) => return Err(bad(e.to_string())),
    };
    let text = String::from_utf8(bytes)
        .map_err(|_| bad("not UTF-8 text: not peakbench's accepted runs".into()))?;
    let file: AcceptedFile = toml::from_str(&text).map_err(|e| {
        bad(format!(
            "not peakbench's accepted runs ({}); move it away (docs/baseline.md)",
            crate::util::sanitize::line_max(&e.message().replace('\n', " "), 200)
        ))
    })?;
    if file.schema != ACCEPTED_SCHEMA {
        return Err(bad(format!(
            "schema '{}' is not {ACCEPTED_SCHEMA}; move it away (docs/baseline.md)",
            crate::util::sanitize::line_max(&file.schema, 80)
        )));
    }
    Ok(file.accepted)
}

/// Appends `a` to the accepted runs of the database `db` (atomically: the old file or
/// the new one, never half of one).
pub(crate) fn record_accepted(db: &Path, a: Accepted, flag: &str) -> Result<(), UsageError> {
    let mut all = read_accepted(db, flag)?;
    all.push(a);
    let file = AcceptedFile {
        schema: ACCEPTED_SCHEMA.into(),
        accepted: all,
    };
    let body = toml::to_string(&file)
        .map_err(|e| UsageError::new(flag, format!("cannot write the accepted runs: {e}")))?;
    let text = format!(
        "# peakbench: runs a person accepted as the start of `check --against history`'s\n\
         # reference for their host, command and settings (docs/baseline.md). The latest entry\n\
         # of a host, command and settings wins; remove entries to go back.\n{body}"
    );
    let p = accepted_path(db);
    crate::util::atomic::write_atomic(&p, |w| std::io::Write::write_all(w, text.as_bytes()))
        .map_err(|e| {
            UsageError::new(
                flag,
                format!(
                    "cannot write {} ({e}); the run is not accepted",
                    p.display()
                ),
            )
        })
}

/// The latest acceptance for `host`, `command` and `settings` (key text), if any.
pub(crate) fn accepted_for<'a>(
    all: &'a [Accepted],
    host: &str,
    command: &str,
    settings: &str,
) -> Option<&'a Accepted> {
    all.iter()
        .rev()
        .find(|a| a.host == host && a.command == command && a.settings == settings)
}

/// The settings of `other` that differ from `want`, as `key=value`.
fn differing(want: &BTreeMap<String, String>, other: &BTreeMap<String, String>) -> String {
    let mut keys: Vec<&String> = want.keys().chain(other.keys()).collect();
    keys.sort();
    keys.dedup();
    keys.into_iter()
        .filter(|k| want.get(*k) != other.get(*k))
        .map(|k| format!("{k}={}", other.get(k).map_or("(unset)", String::as_str)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The command of the newest recorded run of `host` (`None`: no run of it).
pub(crate) fn latest_command(
    h: &History,
    host: &str,
    flag: &str,
) -> Result<Option<String>, UsageError> {
    let f = crate::history::Filter {
        host: Some(host.to_string()),
        ..Default::default()
    };
    let row = h.latest_row(&f).map_err(|e| usage(flag, e))?;
    Ok(row.map(|r| r.command))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepted_runs_round_trip_beside_the_database() {
        let d = tempfile::tempdir().unwrap();
        let db = d.path().join("history.db");
        assert_eq!(accepted_path(&db), d.path().join("history.accepted.toml"));
        assert!(read_accepted(&db, "--accept").unwrap().is_empty());
        let a = |run: i64, settings: &str| Accepted {
            host: "n1".into(),
            command: "cpu".into(),
            settings: settings.into(),
            run,
            started_at: "2026-11-20T10:00:00Z".into(),
            accepted_at: "2026-11-21T10:00:00Z".into(),
        };
        record_accepted(&db, a(3, "repeat=3"), "--accept").unwrap();
        record_accepted(&db, a(7, "repeat=3"), "--accept").unwrap();
        record_accepted(&db, a(9, "repeat=5"), "--accept").unwrap();
        let all = read_accepted(&db, "--accept").unwrap();
        assert_eq!(all.len(), 3);
        assert_eq!(accepted_for(&all, "n1", "cpu", "repeat=3").unwrap().run, 7);
        assert!(accepted_for(&all, "n2", "cpu", "repeat=3").is_none());
        std::fs::write(accepted_path(&db), "schema = 1\n").unwrap();
        let e = read_accepted(&db, "--accept").unwrap_err();
        assert!(
            e.0.starts_with("--accept: ") && e.0.contains("move it away"),
            "{e}"
        );
    }

    #[test]
    fn differing_names_the_other_runs_settings() {
        let a: BTreeMap<String, String> = [("repeat", "3"), ("tool_version", "1")]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let mut b = a.clone();
        b.insert("repeat".into(), "5".into());
        b.insert("min_time".into(), "20ms".into());
        assert_eq!(differing(&a, &b), "min_time=20ms, repeat=5");
        assert_eq!(differing(&a, &a), "");
    }
}
