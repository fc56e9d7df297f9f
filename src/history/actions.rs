//! The actions of `peakbench history` that change the database or read runs back as
//! files (issue #44 item 9, #43 items 3 and 4): a lenient `import` (each bad file
//! skipped with its reason, a summary, exit 1 when some were refused), `tag`, `export`,
//! `delete`, `prune`, and `compare` of two periods.

use super::error::usage;
use super::manage::Prune;
use super::record::{ahead, now_unix, Recorded};
use super::{open, open_to_change, Filter, History, HistoryError};
use crate::report::compare::{compare, CaseKey, Comparison};
use crate::report::model::{Report, Status};
use crate::util::sanitize::line_max;
use crate::util::usage::UsageError;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// `FILE: dated in the future …`: the line of a future-dated run (issue #43 item 4).
fn future_line(r: &Report, secs: i64) -> String {
    format!(
        "dated in the future (starts {}, {} after now: a clock set wrong, or an edited file); recorded, marked 'future' in `history list`, never taken as the latest run",
        line_max(&r.started_at, 40),
        if secs >= 86_400 {
            format!("{} days", secs / 86_400)
        } else {
            format!("{} min", secs / 60)
        }
    )
}

/// `history import`: each file loaded and checked (a file that does not load or holds
/// a figure no machine could measure is skipped with one line on stderr), then the
/// good ones recorded; one line per file and a summary. Nothing loads: exit 2 and
/// no database is created; some refused: exit 1. `default_place`: the database is the
/// default one, whose directory is created (a fresh account has none).
pub(crate) fn import(
    db: &Path,
    default_place: bool,
    files: &[PathBuf],
    out: &mut dyn Write,
) -> anyhow::Result<ExitCode> {
    let mut good: Vec<(&PathBuf, Report)> = Vec::new();
    let mut refused = 0usize;
    for f in files {
        let checked = crate::report::load::load(f)
            .map_err(|e| e.to_string())
            .and_then(|r| {
                crate::report::physics::check_report(&r)
                    .map(|()| r)
                    .map_err(|e| {
                        format!(
                            "{}: {e}; such a figure is not a measurement (a corrupted or edited file)",
                            f.display()
                        )
                    })
            });
        match checked {
            Ok(r) => good.push((f, r)),
            Err(e) => {
                refused += 1;
                eprintln!("history import: refused: {}", line_max(&e, 400));
            }
        }
    }
    if good.is_empty() {
        return Err(UsageError(format!(
            "history import: no file recorded ({refused} refused, see above); give results files written by peakbench runs"
        ))
        .into());
    }
    if default_place {
        if let Some(dir) = db.parent() {
            std::fs::create_dir_all(dir)
                .map_err(|e| usage(HistoryError::Open(dir.display().to_string(), e.to_string())))?;
        }
    }
    let mut h = open(db).map_err(usage)?;
    let (mut new, mut old) = (0, 0);
    let now = now_unix();
    for (f, r) in good {
        let abs = std::fs::canonicalize(f).unwrap_or_else(|_| f.clone());
        match h.record_file(&r, Some(&abs)) {
            Ok(Recorded::New(id)) => {
                new += 1;
                writeln!(out, "{}: recorded as run {id}", f.display())?;
                if let Some(secs) = ahead(&r, now) {
                    eprintln!("history import: {}: {}", f.display(), future_line(&r, secs));
                }
            }
            Ok(Recorded::Already(id)) => {
                old += 1;
                writeln!(out, "{}: already recorded (run {id})", f.display())?;
            }
            Err(HistoryError::Refused(why)) => {
                refused += 1;
                eprintln!("history import: refused: {}: {why}", f.display());
            }
            Err(e) => return Err(usage(e)),
        }
    }
    writeln!(
        out,
        "{new} recorded, {old} already there, {refused} refused, in {}",
        db.display()
    )?;
    Ok(if refused > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// `history tag RUN KEY=VALUE…`.
pub(crate) fn tag(
    db: &Path,
    id: i64,
    kv: &[(String, String)],
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    let mut h = open_to_change(db).map_err(usage)?;
    h.tag(id, kv).map_err(usage)?;
    let tags = h.tags().map_err(usage)?.remove(&id).unwrap_or_default();
    let shown: Vec<String> = tags.iter().map(|(k, v)| format!("{k}={v}")).collect();
    writeln!(
        out,
        "run {id}: {}",
        if shown.is_empty() {
            "no tags".to_string()
        } else {
            shown.join(", ")
        }
    )?;
    Ok(())
}

/// `history export RUN -o FILE`: the run's report exactly as recorded (`-`: stdout).
pub(crate) fn export(db: &Path, id: i64, file: &Path, out: &mut dyn Write) -> anyhow::Result<()> {
    let h = super::open_existing(db).map_err(usage)?;
    let json = h.report_json(id).map_err(usage)?;
    if file == Path::new("-") {
        out.write_all(json.as_bytes())?;
        out.write_all(b"\n")?;
        return Ok(());
    }
    crate::util::atomic::write_atomic(file, |w| {
        w.write_all(json.as_bytes())?;
        w.write_all(b"\n")
    })
    .map_err(|e| {
        UsageError::new(
            "-o",
            format!(
                "cannot write {} ({e}); give a file in an existing, writable directory",
                file.display()
            ),
        )
    })?;
    eprintln!("run {id} written to {}", file.display());
    Ok(())
}

/// `history delete RUN…`.
pub(crate) fn delete(db: &Path, ids: &[i64], out: &mut dyn Write) -> anyhow::Result<()> {
    let mut h = open_to_change(db).map_err(usage)?;
    let n = h.delete(ids).map_err(usage)?;
    writeln!(out, "{n} runs removed from {}", db.display())?;
    Ok(())
}

/// `history prune --keep N | --older-than AGE` (under the filters).
pub(crate) fn prune(db: &Path, f: &Filter, p: Prune, out: &mut dyn Write) -> anyhow::Result<()> {
    if p.keep.is_none() && p.before.is_none() {
        return Err(UsageError::new(
            "prune",
            "says nothing to remove; give --keep N (the newest N runs of each host and command stay) or --older-than AGE (like 90d), or both",
        )
        .into());
    }
    let mut h = open_to_change(db).map_err(usage)?;
    let ids = h.prune_pick(f, p).map_err(usage)?;
    let n = h.delete(&ids).map_err(usage)?;
    writeln!(out, "{n} runs removed from {}", db.display())?;
    Ok(())
}

/// The runs of one period pooled into one report: per case (and host), one sample per
/// run, its mean (so run-to-run noise is the spread `compare` sees); disturbed and
/// failed cases left out. `None` when the period holds no run.
fn pooled(
    h: &History,
    f: &Filter,
    (from, to): (Option<i64>, Option<i64>),
) -> anyhow::Result<Option<(String, Report)>> {
    let f = Filter {
        since: match (f.since, from) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        },
        until: match (f.until, to) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        },
        ..f.clone()
    };
    let rows = h.runs(&f).map_err(usage)?;
    let Some(last) = rows.last() else {
        return Ok(None);
    };
    let hosts: std::collections::BTreeSet<&str> = rows.iter().map(|r| r.host.as_str()).collect();
    if hosts.len() > 1 && f.host.is_none() {
        return Err(UsageError::new(
            "PERIOD",
            format!(
                "holds runs of {} hosts ({}); give --host HOST",
                hosts.len(),
                line_max(&hosts.into_iter().collect::<Vec<_>>().join(", "), 200)
            ),
        )
        .into());
    }
    let mut template = h.report(last.id).map_err(usage)?;
    let mut cases: BTreeMap<
        (CaseKey, Option<String>),
        (crate::report::model::BenchResult, Vec<f64>),
    > = BTreeMap::new();
    for row in &rows {
        let r = h.report(row.id).map_err(usage)?;
        for res in &r.results {
            if res.status != Status::Ok || res.disturbed {
                continue;
            }
            if f.host
                .as_ref()
                .is_some_and(|hh| res.host.as_ref().is_some_and(|x| x != hh))
            {
                continue;
            }
            let Some(s) = &res.summary else { continue };
            let e = cases
                .entry((CaseKey::of(res), res.host.clone()))
                .or_insert_with(|| (res.clone(), Vec::new()));
            e.0 = res.clone();
            e.1.push(s.mean);
        }
    }
    template.results = cases
        .into_values()
        .filter_map(|(mut res, means)| {
            let s = crate::measure::stats::Summary::of(&means).ok()?;
            res.efficiency = res
                .peak
                .as_ref()
                .and_then(|p| p.value)
                .and_then(|p| crate::report::model::efficiency(res.metric, s.mean, p));
            res.summary = Some(s);
            res.samples = means;
            res.percentiles = None;
            res.timeseries = None;
            res.notes.clear();
            res.share.clear();
            res.window = None;
            res.dropped.clear();
            Some(res)
        })
        .collect();
    template.started_at = rows[0].started_at.clone();
    template.finished_at = last.finished_at.clone();
    let first = &rows[0].started_at;
    let name = format!(
        "{} runs {}..{} ({} to {})",
        rows.len(),
        rows[0].id,
        last.id,
        first.get(..10).unwrap_or(first),
        last.started_at.get(..10).unwrap_or(&last.started_at)
    );
    Ok(Some((name, template)))
}

/// `history compare PERIOD PERIOD`: the runs of each period pooled (one sample per
/// run), then `compare`'s verdicts, the first period as the reference.
pub(crate) fn compare_periods(
    h: &History,
    f: &Filter,
    a: (Option<i64>, Option<i64>),
    b: (Option<i64>, Option<i64>),
) -> anyhow::Result<Comparison> {
    let mut names = Vec::new();
    let mut reports = Vec::new();
    for (which, p) in [("first", a), ("second", b)] {
        let Some((n, r)) = pooled(h, f, p)? else {
            return Err(UsageError::new(
                "PERIOD",
                format!("the {which} period holds no recorded run under the filters; `peakbench history` lists the runs"),
            )
            .into());
        };
        names.push(n);
        reports.push(r);
    }
    let c = compare(&names, &reports);
    if c.changes.is_empty() {
        return Err(UsageError::new(
            "PERIOD",
            "the two periods share no case measured undisturbed in both; narrow them with --command or --case",
        )
        .into());
    }
    Ok(c)
}
