//! The gate on the run history (issue #36 item 3): the reference runs that
//! `peakbench check --against history` and `peakbench baseline --from-history` take
//! from the database, and the run `check` reads when no results file is given.
//!
//! A host's reference is its last N runs of one command with the same settings
//! (`report::fleet::settings`: peakbench version, common options, the command's
//! options), newest first, the checked run itself and any run started after it left
//! out. Those reports then go through `baseline::take` exactly as `baseline --from`
//! files do: disturbed and failed cases are left out of the reference, several runs
//! give the median of their means with the tolerance widened to 3.5 robust sd.

use crate::history::{History, HistoryError};
use crate::report::fleet::settings;
use crate::report::model::Report;
use crate::util::usage::UsageError;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Fewest reference runs `check --against history` compares with (unless `--runs` asks
/// for fewer): one run says nothing about how much its figures move from run to run.
pub(crate) const MIN_RUNS: usize = 2;

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

/// This host's latest run in the history: the newest recorded (`None`: the database
/// holds none). A run dated in the future never stays the latest (issue #43 item 4).
pub(crate) fn latest(h: &History, host: &str, flag: &str) -> Result<Option<Run>, UsageError> {
    let f = crate::history::Filter {
        host: Some(host.to_string()),
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
    /// How many runs at most.
    pub(crate) n: usize,
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
        if Some(row.id) == exclude {
            continue;
        }
        if let Some(b) = before {
            if crate::history::record::unix(&row.started_at) > b {
                continue;
            }
        }
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
