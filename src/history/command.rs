//! `peakbench history`: the recorded runs (`list`, the default), one case's figures
//! over time with their change points (`show`), and recording existing results files
//! (`import`). Output through the one exporter (`--format`, `--html FILE`).

use super::{open, open_existing, Filter, History, HistoryError};
use crate::report::{export, export_fit, Format, Grid};
use crate::util::units::ParseError;
use crate::util::usage::UsageError;
use clap::{Args, Subcommand};
use serde::Serialize;
use std::io::Write;
use std::path::{Path, PathBuf};

/// `peakbench history`: its flags (clap, each value checked where clap reads it) and
/// the options they give ([`parse`] fills in `action` and `filter`).
#[derive(Debug, Clone, Default, Args, Serialize)]
pub(crate) struct HistoryOptions {
    /// What to do; none lists the runs.
    #[command(subcommand)]
    #[serde(skip)]
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
    /// What to do ([`parse`]).
    #[arg(skip)]
    pub(crate) action: Action,
    /// Which runs ([`parse`]).
    #[arg(skip)]
    #[serde(skip)]
    pub(crate) filter: Filter,
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
    /// Record existing results files; a file already recorded is not recorded again
    Import {
        /// Results files written by peakbench runs
        #[arg(value_name = "FILE.json", required = true, num_args = 1..)]
        files: Vec<String>,
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

/// `peakbench history`'s options once the flags are read: the action and the filter
/// (every value was checked where clap read it; no check spans its flags).
pub(crate) fn parse(a: &HistoryOptions) -> HistoryOptions {
    let filter = Filter {
        host: a.host.clone(),
        command: a.run_command.clone(),
        since: a.since,
        until: a.until,
        case: a.case.clone(),
    };
    let action = match &a.cmd {
        None | Some(HistoryCmd::List) => Action::List,
        Some(HistoryCmd::Show { case }) => Action::Show(case.clone()),
        Some(HistoryCmd::Import { files }) => {
            Action::Import(files.iter().map(PathBuf::from).collect())
        }
    };
    HistoryOptions {
        action,
        filter,
        ..a.clone()
    }
}

/// A history error as a refusal (exit 2): a missing, foreign or corrupt database, a
/// case that matches nothing, a file that does not load.
fn usage(e: HistoryError) -> anyhow::Error {
    UsageError(e.to_string()).into()
}

/// Runs `peakbench history` on the database at `db` (`None`: the default place).
pub(crate) fn run(
    o: &HistoryOptions,
    db: Option<&Path>,
    format: Format,
    width: Option<usize>,
    html: Option<&Path>,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    let path = match db {
        Some(p) => p.to_path_buf(),
        None => super::default_path().ok_or_else(|| {
            UsageError::new(
                "--history",
                "no default database: neither XDG_DATA_HOME nor HOME is set; give --history PATH",
            )
        })?,
    };
    match &o.action {
        Action::Import(files) => {
            if html.is_some() {
                return Err(UsageError::new(
                    "--html",
                    "applies to `history list` and `history show`; drop it",
                )
                .into());
            }
            import(&path, files, out)
        }
        Action::List => {
            let h = open_existing(&path).map_err(usage)?;
            let runs = h.runs(&o.filter).map_err(usage)?;
            let footer = format!("{} runs in {}\n", runs.len(), path.display());
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
                    "results file",
                ],
                rows: runs
                    .iter()
                    .map(|r| {
                        vec![
                            r.id.to_string(),
                            r.started_at.clone(),
                            r.host.clone(),
                            r.command.clone(),
                            r.cases.to_string(),
                            r.disturbed.to_string(),
                            r.tool_version.clone(),
                            r.source.clone().unwrap_or_default(),
                        ]
                    })
                    .collect(),
                json: serde_json::to_value(&runs)?,
                footer: Some(&footer),
            };
            write_html(html, &g)?;
            export_fit(&g, format, width, out)?;
            Ok(())
        }
        Action::Show(case) => {
            let h = open_existing(&path).map_err(usage)?;
            let doc = show(&h, &o.filter, case.as_deref())?;
            write_html(html, &doc)?;
            export_fit(&doc, format, width, out)?;
            Ok(())
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
fn write_html<'a>(
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

/// `history import`: every file loaded first (a bad one is refused before anything is
/// recorded), then recorded; one line per file.
fn import(db: &Path, files: &[PathBuf], out: &mut dyn Write) -> anyhow::Result<()> {
    let load = |f: &Path| crate::report::load::load(f).map_err(|e| UsageError(e.to_string()));
    for f in files {
        load(f)?;
    }
    let mut h = open(db).map_err(usage)?;
    let (mut new, mut old) = (0, 0);
    for f in files {
        let r = load(f)?;
        let abs = std::fs::canonicalize(f).unwrap_or_else(|_| f.clone());
        match h.record_file(&r, Some(&abs))? {
            super::record::Recorded::New(id) => {
                new += 1;
                writeln!(out, "{}: recorded as run {id}", f.display())?;
            }
            super::record::Recorded::Already(id) => {
                old += 1;
                writeln!(out, "{}: already recorded (run {id})", f.display())?;
            }
        }
    }
    writeln!(
        out,
        "{new} recorded, {old} already there, in {}",
        db.display()
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::FromArgMatches;

    /// `peakbench history ARGS` read by clap and [`parse`] (a bad value: the line
    /// `cmdline` prints).
    fn opts(args: &[&str]) -> Result<HistoryOptions, UsageError> {
        let cmd = HistoryOptions::augment_args(clap::Command::new("history"));
        let m = cmd
            .try_get_matches_from(std::iter::once("history").chain(args.iter().copied()))
            .map_err(|e| UsageError::from_clap(&e).unwrap_or_else(|| panic!("{e}")))?;
        Ok(parse(&HistoryOptions::from_arg_matches(&m).unwrap()))
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
        assert!(matches!(&o.action, Action::Show(Some(c)) if c == "memory triad"));
        let f = &o.filter;
        assert_eq!(f.host.as_deref(), Some("n1"));
        assert_eq!(f.command.as_deref(), Some("cpu"));
        assert_eq!(f.since, Some(1_795_651_200));
        assert_eq!(f.until, Some(1_795_651_200 + 14 * 3600));
        let f = opts(&["--case", " triad "]).unwrap().filter;
        assert_eq!(f.case.as_deref(), Some("triad"));
        // An age is counted back from now.
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs() as i64;
        let since = opts(&["--since", "7d"]).unwrap().filter.since.unwrap();
        assert!((now - 7 * 86_400 - since).abs() <= 60, "{since} {now}");
        assert!(matches!(opts(&[]).unwrap().action, Action::List));
        assert!(matches!(
            opts(&["import", "a.json", "b.json"]).unwrap().action,
            Action::Import(f) if f.len() == 2
        ));
    }
}
