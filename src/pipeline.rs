//! The run pipeline, for a plain run (`app`) and for each host's runner under a cluster
//! launch (`cluster`) alike: plan the cases, run each one with the progress bar and the
//! reference tools beside it, save the results file (and the HTML page) after every
//! case, end between saves on a signal saying what finished. It sits below both `app`
//! and `cluster`, so neither imports the other's internals to run a plan.

use crate::bench::common::CommonOptions;
use crate::bench::{Case, Context};
use crate::hw::HostInfo;
use crate::options::{Command, Options};
use crate::report::model::{Report, SCHEMA};
use crate::report::progress::Progress;
use crate::util::usage::UsageError;
use anyhow::Context as _;
use std::path::{Path, PathBuf};

/// How a measuring command plans its cases, once the host is known.
pub(crate) type Planner<'a> =
    Box<dyn FnOnce(&Context) -> Result<Vec<Box<dyn Case>>, UsageError> + 'a>;

fn now_rfc3339() -> String {
    humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string()
}

/// Writes the report with the one atomic write ([`crate::util::atomic`]): a crash or a
/// signal mid-write never leaves a truncated JSON or a temporary file.
fn save(report: &Report, path: &Path) -> anyhow::Result<()> {
    crate::util::atomic::write_atomic(path, |w| {
        serde_json::to_writer_pretty(&mut *w, report)?;
        w.write_all(b"\n")
    })
    .with_context(|| format!("cannot write {} (choose another --output)", path.display()))
}

/// `host` as it stands in file names: one rule for the results files and their index.
pub(crate) use crate::report::results_index::file_host;

/// Reserves `HOST-TIME.json` in `dir` with an exclusive create (`HOST-TIME-2.json`, …
/// when another run took it in the same second).
fn results_path(dir: &Path, host: &str, started: &str) -> anyhow::Result<PathBuf> {
    let safe_host = file_host(host);
    let stem = format!("{safe_host}-{}", started.replace(':', "-"));
    crate::util::atomic::create_unique(dir, &stem, "json").with_context(|| {
        format!(
            "cannot create a results file in {} (choose another --output)",
            dir.display()
        )
    })
}

/// Each case's label and estimated length.
pub(crate) fn planned(
    cases: &[Box<dyn Case>],
    opts: &CommonOptions,
) -> Vec<(String, std::time::Duration)> {
    cases
        .iter()
        .map(|c| (c.label(), c.estimate(opts)))
        .collect()
}

/// What the quick suite says before it starts: each resource's notice
/// (`Resource::quick_notice`; disk: where its cases write).
pub(crate) fn quick_notice(options: &Options) -> Option<String> {
    let notices: Vec<String> = match options.command {
        Command::Quick => crate::bench::quick_suite()
            .filter_map(|r| r.quick_notice())
            .collect(),
        _ => Vec::new(),
    };
    (!notices.is_empty()).then(|| notices.join("\n"))
}

/// The one run pipeline, for a plain run and for each host's runner under a cluster
/// launch alike: plan the cases, run each one with the progress bar and (`--reference`)
/// the reference tools beside it, `tag` each result, save the results file
/// (`FILEHOST-TIME.json` in `--output`) and the HTML page (where `html` says, given the
/// JSON's path) after every case, and end between saves on SIGINT/SIGTERM saying what
/// finished. Returns the report, its file and its page.
pub(crate) fn run_cases(
    options: &Options,
    host: &HostInfo,
    file_host: &str,
    html: impl FnOnce(&Path) -> Option<PathBuf>,
    plan: Planner<'_>,
    tag: impl Fn(&mut crate::report::model::BenchResult),
    others: Option<&crate::measure::others::Registry>,
) -> anyhow::Result<(Report, PathBuf, Option<PathBuf>)> {
    let opts = &options.common;
    // From here on, SIGINT/SIGTERM end the run between saves, never inside one (the
    // disk benchmark's own handler, installed while planning, chains back to this one).
    crate::util::atomic::catch_signals();
    let ctx = Context { host, opts };
    let cases = plan(&ctx)?;
    let started = now_rfc3339();
    let mut report = Report {
        schema: SCHEMA.into(),
        tool_version: env!("CARGO_PKG_VERSION").into(),
        started_at: started.clone(),
        finished_at: None,
        host: host.clone(),
        config: serde_json::to_value(options)?,
        results: Vec::new(),
        hosts: Vec::new(),
        run_quality: None,
    };
    // Fail before measuring anything if the HTML page cannot be written.
    if let Some(h) = &opts.html {
        crate::util::atomic::check_writable(h).map_err(|e| {
            UsageError::new(
                "--html",
                format!(
                    "cannot write {} ({e}); give a file in an existing, writable directory",
                    h.display()
                ),
            )
        })?;
    }
    std::fs::create_dir_all(&opts.output).with_context(|| {
        format!(
            "cannot create the results directory {} (choose another --output)",
            opts.output.display()
        )
    })?;
    // Fail before measuring anything if the results cannot be written.
    let path = results_path(&opts.output, file_host, &started)?;
    save(&report, &path)?;
    crate::util::atomic::on_interrupt_say(format!(
        "no case had started: nothing was measured; {} holds no results",
        path.display()
    ));
    // Rewritten after every case too, so that an interrupted run leaves both.
    let html = html(&path);
    // A long run (or the quick suite, which writes a disk file) says what it will do
    // before it starts (issue #32 D, G).
    let planned = planned(&cases, opts);
    if !opts.quiet {
        let total: std::time::Duration = planned.iter().map(|(_, d)| *d).sum();
        let mut lines = Vec::new();
        if total > crate::report::progress::LONG_RUN || quick_notice(options).is_some() {
            lines = crate::report::progress::plan_lines(&planned, false);
        }
        lines.extend(quick_notice(options));
        if !lines.is_empty() {
            // Wrapped to stderr's width (issue #45: the plan lines were not).
            let w = crate::util::term::stderr_width();
            eprint!("{}", crate::util::term::fit_text(&lines.join("\n"), w));
        }
    }
    let progress = Progress::new(planned.into_iter().map(|(_, d)| d).collect(), opts.quiet);
    let tools = if opts.reference {
        crate::reference::detect()
    } else {
        Vec::new()
    };
    // Outputs of tools that measure every case in one run (clpeak), kept for the run.
    let memo = crate::reference::Memo::default();
    // What the reference tools need beyond each typed result: the disk --dir as given
    // and whether the network run was against a --server.
    let hints = match &options.command {
        Command::Resource(r) => r.hints(),
        _ => Default::default(),
    };
    let rctx = crate::reference::Context {
        host,
        disk_dir: hints.dir,
        remote: hints.remote,
        memo: &memo,
    };
    // One step of progress and one save per case: a case's results come from one
    // measurement, so they are written together.
    for (i, case) in cases.iter().enumerate() {
        crate::util::atomic::on_interrupt_say(interrupt_note(
            &report,
            i,
            cases.len(),
            &case.label(),
            &path,
            html.as_deref(),
        ));
        // The previous case's threads (pools, drivers, servers) go quiet first; the
        // case says so when some did not.
        let busy = crate::measure::isolation::settle();
        if let Some(o) = others {
            o.measuring();
        }
        progress.start(&case.label());
        let before = crate::measure::share::HostMark::now();
        let case_start = std::time::SystemTime::now();
        // A disturbed case measured again, at most --retries times (#44 item 5).
        let results =
            crate::retries::run_case(case.as_ref(), &ctx, opts.retries, &|m| progress.say(m));
        let window = crate::measure::share::HostMark::now().since(&before, &[], Vec::new());
        // Another peakbench run on this machine during the case (issue #45 item 5).
        let beside = others.map(|o| o.during(case_start)).unwrap_or_default();
        if let Some(o) = others {
            let new = o.unsaid(&beside);
            if !new.is_empty() {
                progress.say(&format!(
                    "peakbench: {}",
                    crate::measure::others::warning(&new)
                ));
            }
        }
        for mut r in results {
            if !beside.is_empty() && r.is_ok() {
                r.notes.push(crate::report::model::Note::new(
                    crate::report::model::NoteKind::Shared,
                    crate::measure::others::note(&beside),
                ));
                r.disturbed = true;
            }
            if let Some(w) = crate::measure::isolation::warning(&busy) {
                r.notes.push(crate::report::model::Note::new(
                    crate::report::model::NoteKind::Shared,
                    w,
                ));
                r.disturbed = true;
            }
            // Resources without per-sample figures (disk, net, GPU, linalg's GEMM and
            // LU) get the host's figures over the whole case.
            if r.share.iter().all(|s| s.threads.is_empty()) && r.is_ok() {
                r = r.with_window(window.clone());
            }
            if opts.reference {
                crate::reference::attach(&mut r, &rctx, &tools);
            }
            tag(&mut r);
            // Counted on the bar, printed once with the results (not live as well).
            progress.warnings(r.notes.iter().filter(|n| n.is_live_warning()).count());
            report.results.push(r);
        }
        save(&report, &path)?;
        // Standard output, a device or a FIFO gets the page once, at the end (#43).
        if let Some(h) = html
            .as_deref()
            .filter(|h| !crate::util::outpath::is_stream(h))
        {
            crate::reporting::write_html(&report, h)?;
        }
        progress.done();
    }
    crate::util::atomic::on_interrupt_say(interrupt_note(
        &report,
        cases.len(),
        cases.len(),
        "",
        &path,
        html.as_deref(),
    ));
    report.finished_at = Some(now_rfc3339());
    report.run_quality = Some(crate::report::quality::of(&report));
    save(&report, &path)?;
    progress.finish();
    if let Some(h) = &html {
        crate::reporting::write_html(&report, h)?;
    }
    Ok((report, path, html))
}

/// What an interrupted run says after `interrupted by SIG…`, set before case `done`
/// (0-based) of `total` starts: what finished, what was cut short, where the results
/// so far are.
fn interrupt_note(
    report: &Report,
    done: usize,
    total: usize,
    running: &str,
    json: &Path,
    html: Option<&Path>,
) -> String {
    let mut per: Vec<(String, usize)> = Vec::new();
    for r in &report.results {
        let name = r.resource.to_string();
        match per.iter_mut().find(|(n, _)| *n == name) {
            Some((_, k)) => *k += 1,
            None => per.push((name, 1)),
        }
    }
    let finished = if per.is_empty() {
        "no results".to_string()
    } else {
        let by: Vec<String> = per.iter().map(|(n, k)| format!("{n} {k}")).collect();
        format!("{} results: {}", report.results.len(), by.join(", "))
    };
    let cut = if done < total {
        format!(
            "; case {} ({running}) was cut short and is not kept",
            done + 1
        )
    } else {
        String::new()
    };
    let files = match html {
        Some(h) => format!("{} and {}", json.display(), h.display()),
        None => json.display().to_string(),
    };
    format!(
        "finished {done} of {total} cases ({finished}){cut}\nthe results so far (marked \
         unfinished) are in {files}; `peakbench report {}` shows them",
        json.display()
    )
}
