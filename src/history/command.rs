//! `peakbench history`: the recorded runs (`list`, the default), one case's figures
//! over time with their change points (`show`), recording existing results files
//! (`import`), and changing what is recorded (`tag`, `export`, `delete`, `prune`,
//! `compare`: `history::actions`). Output through the one exporter (`--format`,
//! `--html FILE`).

use super::actions;
pub(crate) use super::error::usage;
use super::{open_existing, Filter, History};
use crate::report::{export, export_fit, Format, Grid};
use crate::util::units::ParseError;
use crate::util::usage::UsageError;
use clap::{Args, Subcommand};
use serde::Serialize;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// `peakbench history`: its flags and its action, all read by clap (each value checked
/// where clap reads it); the action ([`HistoryOptions::action`]) and the filter
/// ([`HistoryOptions::filter`]) are views of them, not fields filled in afterwards.
#[derive(Debug, Clone, Default, Args, Serialize)]
pub(crate) struct HistoryOptions {
    /// What to do; none lists the runs (the report's `config` shows it as `action`).
    #[command(subcommand)]
    #[serde(rename = "action", serialize_with = "action_shown")]
    pub(crate) cmd: Option<HistoryCmd>,
    /// Only runs of this host (its hostname; of a gathered run, that host's cases)
    #[arg(long, global = true, value_name = "HOST", allow_hyphen_values = true, value_parser = text)]
    #[serde(skip)]
    pub(crate) host: Option<String>,
    /// Only runs of this command: quick, cpu, memory, disk, net, gpu, linalg
    #[arg(
        long = "command",
        global = true,
        value_name = "COMMAND",
        allow_hyphen_values = true,
        value_parser = text
    )]
    #[serde(skip)]
    pub(crate) run_command: Option<String>,
    /// Only runs started at or after this time: 2026-11-26, an RFC 3339 time, or an age like 7d
    #[arg(long, global = true, value_name = "WHEN", allow_hyphen_values = true, value_parser = when)]
    #[serde(skip)]
    pub(crate) since: Option<i64>,
    /// Only runs started before this time (same forms as --since)
    #[arg(long, global = true, value_name = "WHEN", allow_hyphen_values = true, value_parser = when)]
    #[serde(skip)]
    pub(crate) until: Option<i64>,
    /// Only runs (or cases) whose case contains this text, e.g. 'memory triad'
    #[arg(long, global = true, value_name = "TEXT", allow_hyphen_values = true, value_parser = text)]
    #[serde(skip)]
    pub(crate) case: Option<String>,
}

/// The actions of `peakbench history`.
#[derive(Debug, Clone, Subcommand)]
pub(crate) enum HistoryCmd {
    /// List the recorded runs, oldest first (the default)
    List,
    /// One case's figures over time with their change points (every case without CASE)
    Show {
        /// Part of the case's name, e.g. 'memory triad' or 'cpu fma_f64_avx2 [threads=1]'
        #[arg(value_name = "CASE", value_parser = text)]
        case: Option<String>,
    },
    /// Record existing results files; a file already recorded is not recorded again, a bad one is skipped with its reason
    Import {
        /// Results files written by peakbench runs
        #[arg(value_name = "FILE.json", required = true, num_args = 1..)]
        files: Vec<String>,
    },
    /// Put notes on a run: key=value (an empty value removes that key), e.g. note='after BIOS update'
    Tag {
        /// The run's id (`peakbench history` lists them)
        #[arg(value_name = "RUN", value_parser = run_id)]
        run: i64,
        /// key=value, the key letters, digits, '_', '-' or '.'
        #[arg(value_name = "KEY=VALUE", required = true, num_args = 1.., value_parser = tag)]
        tags: Vec<(String, String)>,
    },
    /// Write a recorded run back as its results file, which compare, check and report read
    Export {
        /// The run's id
        #[arg(value_name = "RUN", value_parser = run_id)]
        run: i64,
        /// The file to write (atomically); - writes to stdout
        #[arg(short = 'o', value_name = "FILE", required = true, allow_hyphen_values = true, value_parser = file)]
        o: PathBuf,
    },
    /// Remove runs from the history (all or none: an id that is not there removes nothing)
    Delete {
        /// The runs' ids
        #[arg(value_name = "RUN", required = true, num_args = 1.., value_parser = run_id)]
        runs: Vec<i64>,
    },
    /// Remove old runs: all but the newest N of each host and command, or those started before an age
    Prune {
        /// Keep the newest N runs of each host and command
        #[arg(long, value_name = "N", value_parser = keep)]
        keep: Option<usize>,
        /// Remove runs started more than this long ago: 90d, 12w, 1y
        #[arg(long = "older-than", value_name = "AGE", value_parser = age)]
        older_than: Option<i64>,
    },
    /// Compare the runs of two periods, case by case, as `compare` compares files: FROM..TO FROM..TO (dates or ages; an end may be left out)
    Compare {
        /// The reference period, e.g. 2026-11-01..2026-11-15 or 30d..14d
        #[arg(value_name = "PERIOD", value_parser = period)]
        before: (Option<i64>, Option<i64>),
        /// The period compared with it, e.g. 2026-11-15.. or 14d..
        #[arg(value_name = "PERIOD", value_parser = period)]
        after: (Option<i64>, Option<i64>),
    },
}

/// What `history` does.
#[derive(Debug, Clone, Default, Serialize)]
pub(crate) enum Action {
    /// List the runs.
    #[default]
    List,
    /// Show the cases matching this text (all when `None`).
    Show(Option<String>),
    /// Import these files.
    Import(Vec<PathBuf>),
    /// Tag a run.
    Tag(i64, Vec<(String, String)>),
    /// Export a run to a file (`-`: stdout).
    Export(i64, PathBuf),
    /// Delete runs.
    Delete(Vec<i64>),
    /// Prune runs.
    Prune(super::manage::Prune),
    /// Compare two periods (`[from, to)` each, Unix seconds).
    Compare((Option<i64>, Option<i64>), (Option<i64>, Option<i64>)),
}

/// RUN: a run's id, a whole number from 1.
fn run_id(t: &str) -> Result<i64, ParseError> {
    t.trim()
        .parse::<i64>()
        .ok()
        .filter(|n| *n >= 1)
        .ok_or_else(|| {
            ParseError(format!(
                "'{}' is not a run id; give the number `peakbench history` lists, like 12",
                crate::util::sanitize::line_max(t, 40)
            ))
        })
}

/// KEY=VALUE of `history tag` (`util::tag`'s rule; an empty value removes the tag).
fn tag(t: &str) -> Result<(String, String), ParseError> {
    crate::util::tag::parse(t, true)
}

/// `-o FILE`: not empty.
fn file(t: &str) -> Result<PathBuf, ParseError> {
    if t.is_empty() {
        return Err(ParseError(
            "empty; give a file like run-12.json, or - for stdout".into(),
        ));
    }
    Ok(PathBuf::from(t))
}

/// `--keep N`: a whole number from 1 (keeping none is `history delete`).
fn keep(t: &str) -> Result<usize, ParseError> {
    t.trim()
        .parse::<usize>()
        .ok()
        .filter(|n| *n >= 1)
        .ok_or_else(|| {
            ParseError(format!(
                "'{}' is not a count of runs to keep; give a whole number from 1, like 30",
                crate::util::sanitize::line_max(t, 40)
            ))
        })
}

/// `--older-than AGE` → the Unix time that age before now.
fn age(t: &str) -> Result<i64, ParseError> {
    let d = humantime::parse_duration(t.trim())
        .ok()
        .filter(|d| d.as_secs() > 0 && d.as_secs() < 200 * 365 * 86_400)
        .ok_or_else(|| {
            ParseError(format!(
                "'{}' is not an age; give one like 90d, 12w or 1y",
                crate::util::sanitize::line_max(t, 40)
            ))
        })?;
    Ok(super::record::now_unix() - d.as_secs() as i64)
}

/// PERIOD `FROM..TO`: each end a time as `--since` takes it, or empty (open).
fn period(t: &str) -> Result<(Option<i64>, Option<i64>), ParseError> {
    let form = "give FROM..TO, each a date like 2026-11-26, an RFC 3339 time or an age like 7d, either end left out for open";
    let (a, b) = t.trim().split_once("..").ok_or_else(|| {
        ParseError(format!(
            "'{}' is not a period; {form}",
            crate::util::sanitize::line_max(t, 60)
        ))
    })?;
    let end = |x: &str| -> Result<Option<i64>, ParseError> {
        if x.trim().is_empty() {
            Ok(None)
        } else {
            when(x).map(Some)
        }
    };
    let (from, to) = (end(a)?, end(b)?);
    if let (Some(f), Some(u)) = (from, to) {
        if f >= u {
            return Err(ParseError(format!(
                "'{}' ends before it starts; {form}",
                crate::util::sanitize::line_max(t, 60)
            )));
        }
    }
    Ok((from, to))
}

/// A text flag's value (`--host`, `--command`, `--case`, CASE), trimmed: not empty.
fn text(t: &str) -> Result<String, ParseError> {
    match t.trim() {
        "" => Err(ParseError("empty; give a value or drop the flag".into())),
        t => Ok(t.to_string()),
    }
}

/// `--since`/`--until WHEN`: `2026-11-26`, an RFC 3339 time, or an age (`7d`, `12h`)
/// before now → Unix seconds.
fn when(t: &str) -> Result<i64, ParseError> {
    let t = t.trim();
    let form = "give a date like 2026-11-26, an RFC 3339 time like 2026-11-26T14:00:00Z, or an age like 7d or 12h";
    if let Ok(age) = humantime::parse_duration(t) {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as i64);
        return Ok(now - age.as_secs() as i64);
    }
    let full = if t.len() == 10 {
        format!("{t}T00:00:00Z")
    } else {
        t.to_string()
    };
    humantime::parse_rfc3339_weak(&full)
        .ok()
        .and_then(|s| s.duration_since(std::time::UNIX_EPOCH).ok())
        .map(|d| d.as_secs() as i64)
        .ok_or_else(|| ParseError(format!("'{t}' is not a time; {form}")))
}

impl HistoryOptions {
    /// Which runs: the filter flags (every value was checked where clap read it; no
    /// check spans them).
    pub(crate) fn filter(&self) -> Filter {
        Filter {
            host: self.host.clone(),
            command: self.run_command.clone(),
            since: self.since,
            until: self.until,
            case: self.case.clone(),
        }
    }

    /// What to do: the subcommand (none: list the runs).
    pub(crate) fn action(&self) -> Action {
        action_of(self.cmd.as_ref())
    }
}

/// The action of the subcommand `cmd` (none: list the runs).
fn action_of(cmd: Option<&HistoryCmd>) -> Action {
    match cmd {
        None | Some(HistoryCmd::List) => Action::List,
        Some(HistoryCmd::Show { case }) => Action::Show(case.clone()),
        Some(HistoryCmd::Import { files }) => {
            Action::Import(files.iter().map(PathBuf::from).collect())
        }
        Some(HistoryCmd::Tag { run, tags }) => Action::Tag(*run, tags.clone()),
        Some(HistoryCmd::Export { run, o }) => Action::Export(*run, o.clone()),
        Some(HistoryCmd::Delete { runs }) => Action::Delete(runs.clone()),
        Some(HistoryCmd::Prune { keep, older_than }) => Action::Prune(super::manage::Prune {
            keep: *keep,
            before: *older_than,
        }),
        Some(HistoryCmd::Compare { before, after }) => Action::Compare(*before, *after),
    }
}

/// The subcommand as the report's `config` shows it: its [`Action`] (`"List"` when
/// none was given).
fn action_shown<S: serde::Serializer>(cmd: &Option<HistoryCmd>, s: S) -> Result<S::Ok, S::Error> {
    action_of(cmd.as_ref()).serialize(s)
}

/// Runs `peakbench history` on the database at `db` (`None`: the default place).
pub(crate) fn run(
    o: &HistoryOptions,
    db: Option<&Path>,
    format: Format,
    width: Option<usize>,
    html: Option<&Path>,
    out: &mut dyn Write,
) -> anyhow::Result<ExitCode> {
    let path = match db {
        Some(p) => p.to_path_buf(),
        None => super::default_path().ok_or_else(|| {
            UsageError::new(
                "--history",
                "no default database: neither XDG_DATA_HOME nor HOME is set; give --history PATH",
            )
        })?,
    };
    let action = o.action();
    let filter = o.filter();
    let reads = matches!(action, Action::List | Action::Show(_) | Action::Compare(..));
    if html.is_some() && !reads {
        return Err(UsageError::new(
            "--html",
            "applies to `history list`, `history show` and `history compare`; drop it",
        )
        .into());
    }
    match &action {
        Action::Import(files) => actions::import(&path, db.is_none(), files, out),
        Action::Tag(id, kv) => actions::tag(&path, *id, kv, out).map(|()| ExitCode::SUCCESS),
        Action::Export(id, file) => {
            actions::export(&path, *id, file, out).map(|()| ExitCode::SUCCESS)
        }
        Action::Delete(ids) => actions::delete(&path, ids, out).map(|()| ExitCode::SUCCESS),
        Action::Prune(p) => actions::prune(&path, &filter, *p, out).map(|()| ExitCode::SUCCESS),
        Action::Compare(a, b) => {
            let h = open_existing(&path).map_err(usage)?;
            let c = actions::compare_periods(&h, &filter, *a, *b)?;
            write_html(html, &c)?;
            export_fit(&c, format, width, out)?;
            Ok(ExitCode::SUCCESS)
        }
        Action::List => {
            let h = open_existing(&path).map_err(usage)?;
            let runs = h.runs(&filter).map_err(usage)?;
            let future = runs.iter().filter(|r| r.future).count();
            let mut footer = format!("{} runs in {}\n", runs.len(), path.display());
            if future > 0 {
                footer.push_str(&format!(
                    "{future} marked 'future': dated more than 10 minutes after they were recorded (a clock set wrong, or an edited file); never taken as the latest run\n"
                ));
            }
            let g = Grid {
                title: "peakbench runs",
                headers: &[
                    "run",
                    "started (UTC)",
                    "host",
                    "command",
                    "cases",
                    "disturbed",
                    "version",
                    "tags",
                    "results file",
                ],
                rows: runs
                    .iter()
                    .map(|r| {
                        vec![
                            r.id.to_string(),
                            if r.future {
                                format!("{} (future)", r.started_at)
                            } else {
                                r.started_at.clone()
                            },
                            r.host.clone(),
                            r.command.clone(),
                            r.cases.to_string(),
                            r.disturbed.to_string(),
                            r.tool_version.clone(),
                            r.tags
                                .iter()
                                .map(|(k, v)| format!("{k}={v}"))
                                .collect::<Vec<_>>()
                                .join(", "),
                            r.source.clone().unwrap_or_default(),
                        ]
                    })
                    .collect(),
                json: serde_json::to_value(&runs)?,
                footer: Some(&footer),
            };
            write_html(html, &g)?;
            export_fit(&g, format, width, out)?;
            Ok(ExitCode::SUCCESS)
        }
        Action::Show(case) => {
            let h = open_existing(&path).map_err(usage)?;
            let doc = show(&h, &filter, case.as_deref())?;
            write_html(html, &doc)?;
            export_fit(&doc, format, width, out)?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// The series of `history show`: refused when nothing matches.
fn show(
    h: &History,
    f: &Filter,
    case: Option<&str>,
) -> anyhow::Result<crate::report::series::Series> {
    // `--case` and CASE both narrow the cases; CASE wins when both are given.
    let pattern = case.or(f.case.as_deref());
    let mut title = String::from("peakbench history");
    if let Some(hh) = &f.host {
        title.push_str(&format!(" of {hh}"));
    }
    if let Some(c) = pattern {
        title.push_str(&format!(": {c}"));
    }
    let doc = h.series(f, pattern, title).map_err(usage)?;
    if doc.cases.is_empty() {
        return Err(UsageError::new(
            "CASE",
            format!(
                "{} matches no recorded case{}; `peakbench history show` with no CASE lists every case",
                pattern.map_or("the filter".to_string(), |p| format!("'{p}'")),
                if f.host.is_some() || f.command.is_some() || f.since.is_some() || f.until.is_some() {
                    " under the filters"
                } else {
                    ""
                }
            ),
        )
        .into());
    }
    Ok(doc)
}

/// `--html FILE`: the page of the document.
pub(crate) fn write_html<'a>(
    html: Option<&Path>,
    doc: impl Into<crate::report::Doc<'a>>,
) -> anyhow::Result<()> {
    let Some(p) = html else { return Ok(()) };
    let mut buf = Vec::new();
    export(doc, crate::report::view::html::FORMAT, &mut buf)?;
    crate::util::atomic::write_atomic(p, |w| w.write_all(&buf)).map_err(|e| {
        UsageError::new(
            "--html",
            format!(
                "cannot write {} ({e}); give a file in an existing, writable directory",
                p.display()
            ),
        )
    })?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::FromArgMatches;

    /// `peakbench history ARGS` read by clap (a bad value: the line `cmdline` prints).
    fn opts(args: &[&str]) -> Result<HistoryOptions, UsageError> {
        let cmd = HistoryOptions::augment_args(clap::Command::new("history"));
        let m = cmd
            .try_get_matches_from(std::iter::once("history").chain(args.iter().copied()))
            .map_err(|e| UsageError::from_clap(&e).unwrap_or_else(|| panic!("{e}")))?;
        Ok(HistoryOptions::from_arg_matches(&m).unwrap())
    }

    /// Issue #34 item 2: each value is checked where clap reads it (before or after the
    /// action), with the line its hand-written check gave.
    #[test]
    fn each_value_keeps_its_line() {
        let time = "is not a time; give a date like 2026-11-26, an RFC 3339 time like 2026-11-26T14:00:00Z, or an age like 7d or 12h";
        let empty = "empty; give a value or drop the flag";
        for (a, line) in [
            (&["--since", "soon"][..], format!("--since: 'soon' {time}")),
            (
                &["show", "--until", " 2026-13-01 "],
                format!("--until: '2026-13-01' {time}"),
            ),
            (&["--host", " "], format!("--host: {empty}")),
            (&["list", "--command", ""], format!("--command: {empty}")),
            (&["--case", "  ", "show", "x"], format!("--case: {empty}")),
            (&["show", " "], format!("CASE: {empty}")),
        ] {
            assert_eq!(opts(a).unwrap_err().0, line, "{a:?}");
        }
    }

    #[test]
    fn the_filter_and_the_action() {
        let o = opts(&[
            "show",
            " memory triad ",
            "--host",
            " n1 ",
            "--command",
            "cpu",
            "--since",
            "2026-11-26",
            "--until",
            "2026-11-26T14:00:00Z",
        ])
        .unwrap();
        assert!(matches!(&o.action(), Action::Show(Some(c)) if c == "memory triad"));
        let f = &o.filter();
        assert_eq!(f.host.as_deref(), Some("n1"));
        assert_eq!(f.command.as_deref(), Some("cpu"));
        assert_eq!(f.since, Some(1_795_651_200));
        assert_eq!(f.until, Some(1_795_651_200 + 14 * 3600));
        let f = opts(&["--case", " triad "]).unwrap().filter();
        assert_eq!(f.case.as_deref(), Some("triad"));
        // An age is counted back from now.
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs() as i64;
        let since = opts(&["--since", "7d"]).unwrap().filter().since.unwrap();
        assert!((now - 7 * 86_400 - since).abs() <= 60, "{since} {now}");
        assert!(matches!(opts(&[]).unwrap().action(), Action::List));
        assert!(matches!(
            opts(&["import", "a.json", "b.json"]).unwrap().action(),
            Action::Import(f) if f.len() == 2
        ));
    }
}
