//! The references `peakbench check` takes from the run history (issue #44 item 2):
//! `--against history` (the last runs that did not fail the gate, `gate::reference`),
//! `--against run:ID,…` (fixed runs), `--against tag:KEY[=VALUE]` (the runs a person
//! tagged: a named reference), and `--accept`, which moves the reference of
//! `--against history` to the checked run.

use super::baseline::Baseline;
use super::take::{now, one_command};
use super::{history, options, reference, take};
use crate::util::usage::UsageError;
use std::path::Path;

/// The checked run's key in the history: its host, command and figure settings.
pub(super) fn run_key(run: &crate::report::model::Report) -> (String, String, String) {
    (
        run.host.hostname.clone(),
        crate::history::record::command(run),
        crate::report::settings::key_text(&crate::report::settings::figure_settings(run)),
    )
}

/// `--against history`: the reference of `gate::reference` from the host's runs of
/// the checked run's command and settings (the run itself and later runs left out,
/// none before the run last accepted for them). With its label, what was left out,
/// and the cases that hold runs out.
pub(super) fn against_history(
    db: Option<&Path>,
    run: &crate::report::model::Report,
    run_id: Option<i64>,
    n: usize,
) -> Result<(Baseline, String, Vec<String>, Vec<String>), UsageError> {
    let flag = "--against";
    let h = history::open(db, flag)?;
    let run_id = match run_id {
        Some(id) => Some(id),
        None => h.find(run).map_err(|e| history::usage(flag, e))?,
    };
    let (host, command, key) = run_key(run);
    let want = crate::report::settings::figure_settings(run);
    let before = Some(crate::history::record::unix(&run.started_at)).filter(|t| *t > 0);
    let db = history::db_path(db).unwrap_or_default();
    let accepted = history::read_accepted(&db, flag)?;
    let marker =
        history::accepted_for(&accepted, &host, &command, &key).filter(|a| Some(a.run) != run_id);
    let q = history::Query {
        host: &host,
        command: &command,
        settings: Some(&want),
        exclude: run_id,
        before,
        since: marker.map(|a| crate::history::record::unix(&a.started_at)),
        n: reference::REPLAY_RUNS.max(n),
        only: None,
    };
    let p = history::pick(&h, &q, flag)?;
    let need = if marker.is_some() {
        1
    } else {
        n.min(reference::MIN_RUNS)
    };
    if p.runs.len() < need {
        return Err(UsageError::new(
            flag,
            format!(
                "history {} holds {} earlier {command} run{} of {host} with this run's settings{}; the reference needs at least {need} (--runs {n}): record more runs, or give --baseline FILE",
                h.shown,
                p.runs.len(),
                if p.runs.len() == 1 { "" } else { "s" },
                if marker.is_some() { " since the accepted run" } else { "" },
            ),
        ));
    }
    let cands: Vec<reference::Candidate> = p
        .runs
        .into_iter()
        .rev()
        .map(|r| reference::Candidate {
            id: r.id,
            label: r.label,
            report: r.report,
        })
        .collect();
    let how = take::How {
        created: now(),
        command: Some(command.clone()),
        ..Default::default()
    };
    let made = reference::make(run, &cands, n, marker.is_some(), &how)
        .map_err(|e| UsageError::new(flag, e))?;
    let ids: Vec<String> = made.ids.iter().map(i64::to_string).collect();
    let k = made.ids.len();
    let shown = format!(
        "history {}: the last {k} {command} run{} of {host} that did not fail the gate{} (runs {})",
        h.shown,
        if k == 1 { "" } else { "s" },
        marker
            .map(|a| format!(", since run {} (accepted {})", a.run, a.accepted_at))
            .unwrap_or_default(),
        ids.join(", ")
    );
    let mut left = p.passed_over;
    left.extend(made.left_out);
    Ok((made.baseline, shown, left, made.held))
}

/// `--against run:ID,…`: a baseline taken from those runs of the history, as
/// `baseline --from` takes files.
pub(super) fn against_runs(
    db: Option<&Path>,
    ids: &[i64],
) -> Result<(Baseline, String, Vec<String>), UsageError> {
    let flag = "--against";
    let h = history::open(db, flag)?;
    let runs = history::runs_by_id(&h, ids, flag)?;
    let names: Vec<String> = runs.iter().map(|r| r.label.clone()).collect();
    let reports: Vec<crate::report::model::Report> = runs.into_iter().map(|r| r.report).collect();
    let how = take::How {
        created: now(),
        command: one_command(&reports),
        ..Default::default()
    };
    let (b, t) = take::take(&names, &reports, &how).map_err(|e| UsageError::new(flag, e))?;
    let shown = format!(
        "history {}: fixed run{} {}",
        h.shown,
        if ids.len() == 1 { "" } else { "s" },
        ids.iter()
            .map(i64::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    );
    let mut left = t.left_out;
    left.extend(t.capped);
    Ok((b, shown, left))
}

/// `--against tag:KEY[=VALUE]`: a baseline taken, as `baseline --from` takes files,
/// from the runs carrying the tag that are runs of the checked run's host and command
/// with its settings (the newest `n`, else all up to `MAX_FIXED_RUNS`), the checked
/// run itself left out. A named reference: it moves only when a person tags runs.
pub(super) fn against_tag(
    db: Option<&Path>,
    run: &crate::report::model::Report,
    run_id: Option<i64>,
    tag: &options::TagRef,
    n: Option<usize>,
) -> Result<(Baseline, String, Vec<String>), UsageError> {
    let flag = "--against";
    let h = history::open(db, flag)?;
    let run_id = match run_id {
        Some(id) => Some(id),
        None => h.find(run).map_err(|e| history::usage(flag, e))?,
    };
    let tagged: std::collections::BTreeSet<i64> = h
        .tags()
        .map_err(|e| history::usage(flag, e))?
        .into_iter()
        .filter(|(_, t)| tag.matches(t))
        .map(|(id, _)| id)
        .collect();
    if tagged.is_empty() {
        return Err(UsageError::new(
            flag,
            format!(
                "history {} holds no run tagged {tag}; tag the reference runs with `peakbench history tag RUN {}` (or measure them with --tag {})",
                h.shown,
                if tag.value.is_some() { tag.to_string() } else { format!("{tag}=VALUE") },
                if tag.value.is_some() { tag.to_string() } else { format!("{tag}=VALUE") },
            ),
        ));
    }
    let (host, command, _) = run_key(run);
    let want = crate::report::settings::figure_settings(run);
    let q = history::Query {
        host: &host,
        command: &command,
        settings: Some(&want),
        exclude: run_id,
        before: None,
        since: None,
        n: n.unwrap_or(options::MAX_FIXED_RUNS),
        only: Some(&tagged),
    };
    let p = history::pick(&h, &q, flag)?;
    if p.runs.is_empty() {
        let others = tagged.iter().filter(|id| Some(**id) != run_id).count();
        return Err(UsageError::new(
            flag,
            format!(
                "history {} holds {others} other run{} tagged {tag}, none a {command} run of {host} with this run's settings{}; tag such a run, or check against another reference",
                h.shown,
                if others == 1 { "" } else { "s" },
                p.passed_over
                    .first()
                    .map(|l| format!(" ({l})"))
                    .unwrap_or_default(),
            ),
        ));
    }
    let ids: Vec<String> = p.runs.iter().rev().map(|r| r.id.to_string()).collect();
    let (names, reports): (Vec<String>, Vec<crate::report::model::Report>) = p
        .runs
        .into_iter()
        .rev()
        .map(|r| (r.label, r.report))
        .unzip();
    let how = take::How {
        created: now(),
        command: Some(command.clone()),
        ..Default::default()
    };
    let (b, t) = take::take(&names, &reports, &how).map_err(|e| UsageError::new(flag, e))?;
    let shown = format!(
        "history {}: the {} {command} run{} of {host} tagged {tag} (run{} {})",
        h.shown,
        ids.len(),
        if ids.len() == 1 { "" } else { "s" },
        if ids.len() == 1 { "" } else { "s" },
        ids.join(", ")
    );
    let mut left = p.passed_over;
    left.extend(t.left_out);
    left.extend(t.capped);
    Ok((b, shown, left))
}

/// `check --against history --accept`: records the checked run as the start of its
/// reference, beside the database.
pub(super) fn accept(
    db: Option<&Path>,
    run: &crate::report::model::Report,
    run_label: &str,
    run_id: Option<i64>,
) -> Result<String, UsageError> {
    let flag = "--accept";
    let h = history::open(db, flag)?;
    let id = match run_id {
        Some(id) => id,
        None => h.find(run).map_err(|e| history::usage(flag, e))?.ok_or_else(|| {
            UsageError::new(
                flag,
                format!(
                    "{run_label} is not in history {}; only a recorded run can be accepted (`peakbench history import FILE` records it)",
                    h.shown
                ),
            )
        })?,
    };
    let (host, command, settings) = run_key(run);
    let db = history::db_path(db).unwrap_or_default();
    history::record_accepted(
        &db,
        history::Accepted {
            host: host.clone(),
            command: command.clone(),
            settings,
            run: id,
            started_at: run.started_at.clone(),
            accepted_at: now(),
        },
        flag,
    )?;
    Ok(format!(
        "accepted: {command} run {id} of {host} ({}) starts the reference of `check --against history` for its settings; recorded in {}",
        run.started_at,
        history::accepted_path(&db).display()
    ))
}
