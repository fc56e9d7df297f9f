//! The application: plan → run each case → write the results file after every case →
//! print the requested format. `main.rs` maps errors to exit codes.

use crate::bench::common::CommonOptions;
use crate::bench::{self, Case, Context, Plan};
use crate::cli::Cli;
use crate::hw::HostInfo;
use crate::options::{Command, Options};
use crate::report::model::{Report, Status, SCHEMA};
use crate::report::progress::Progress;
use crate::util::usage::UsageError;
use anyhow::Context as _;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

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

/// `host` as it stands in file names: letters, digits, `-` and `.`, others `_`.
fn file_host(host: &str) -> String {
    host.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

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

/// Runs one invocation; `Err` carrying a [`UsageError`] means exit code 2.
pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    dispatch(Options::from_cli(cli)?)
}

/// How a measuring command plans its cases, once the host is known.
pub(crate) type Planner<'a> =
    Box<dyn FnOnce(&Context) -> Result<Vec<Box<dyn Case>>, UsageError> + 'a>;

/// The one table of measuring commands: each one's planner; `None` for the commands
/// that measure nothing. Whether a command measures, what a cluster launch gathers on
/// every host and what a local run runs all come from here, so a new measuring command
/// cannot be left out of one of them.
pub(crate) fn planner(command: &Command) -> Option<Planner<'_>> {
    Some(match command {
        Command::Quick => Box::new(|ctx: &Context| {
            Ok(bench::BENCHMARKS
                .iter()
                .flat_map(|b| b.quick(ctx))
                .collect())
        }),
        Command::Cpu(o) => Box::new(move |ctx: &Context| bench::cpu::CpuBench.plan(o, ctx)),
        Command::Memory(o) => {
            Box::new(move |ctx: &Context| bench::memory::MemoryBench.plan(o, ctx))
        }
        Command::Disk(o) => Box::new(move |ctx: &Context| bench::disk::DiskBench.plan(o, ctx)),
        Command::Net(o) => Box::new(move |ctx: &Context| bench::net::NetBench.plan(o, ctx)),
        Command::Gpu(o) if !o.list => {
            Box::new(move |ctx: &Context| bench::gpu::GpuBench.plan(o, ctx))
        }
        Command::Linalg(o) => {
            Box::new(move |ctx: &Context| bench::linalg::LinalgBench.plan(o, ctx))
        }
        Command::Null { threads } => {
            Box::new(move |ctx: &Context| bench::null::NullBench.plan(threads, ctx))
        }
        Command::Gpu(_)
        | Command::Sysinfo
        | Command::Serve(_)
        | Command::Report(_)
        | Command::Compare { .. }
        | Command::Reference(_)
        | Command::Fleet(_)
        | Command::History(_) => return None,
    })
}

/// The one dispatch over the commands: a measuring command ([`planner`]) runs on every
/// host of a cluster launch, or here; the others run here.
fn dispatch(opts: Options) -> anyhow::Result<ExitCode> {
    let stdout = std::io::stdout();
    let common = &opts.common;
    if let Some(plan) = planner(&opts.command) {
        if common.dry_run {
            return dry_run(&opts, plan);
        }
        if let Some(l) = crate::cluster::launch()? {
            return crate::cluster::run(&opts, l, plan);
        }
        if matches!(&opts.command, Command::Net(n) if n.matrix) {
            return Err(UsageError::new(
                "--matrix",
                "needs a cluster launch: mpirun or srun with a build with --features mpi, or $PEAKBENCH_RANK, $PEAKBENCH_SIZE and $PEAKBENCH_COORD (see README)",
            )
            .into());
        }
        return measure(&opts, plan);
    }
    if common.dry_run {
        return Err(UsageError::new(
            "--dry-run",
            "only a measuring command (cpu, memory, disk, net, gpu, linalg, the quick suite) has a plan to print",
        )
        .into());
    }
    match &opts.command {
        Command::Sysinfo => {
            crate::sysinfo::run(common, &mut stdout.lock())?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Serve(s) => crate::bench::net::server::run_cli(s),
        Command::Report(r) => {
            crate::reporting::run_report(common, r, &mut stdout.lock())?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Compare { files } => {
            crate::reporting::run_compare(common, files, &mut stdout.lock())?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Fleet(f) => {
            crate::reporting::run_fleet(common, f, &mut stdout.lock())?;
            Ok(ExitCode::SUCCESS)
        }
        Command::History(h) => {
            let (db, html) = (common.history.as_deref(), common.html.as_deref());
            let mut out = stdout.lock();
            crate::history::command::run(h, db, common.format, common.width, html, &mut out)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Reference(r) if !r.run => {
            crate::reporting::run_reference(common, &mut stdout.lock())?;
            Ok(ExitCode::SUCCESS)
        }
        // `reference --run` is a CPU run with the reference tools beside it.
        Command::Reference(r) => dispatch(Options {
            common: CommonOptions {
                reference: true,
                ..common.clone()
            },
            command: Command::Cpu(crate::reporting::reference_cpu(r)),
        }),
        Command::Gpu(_) => {
            let det = crate::hw::gpu::detect();
            let doc = crate::report::TextDoc {
                value: &det,
                text: crate::sysinfo::print_gpus,
            };
            crate::report::export_fit(&doc, common.format, common.width, &mut stdout.lock())?;
            Ok(ExitCode::SUCCESS)
        }
        // Every other command is in the planner's table (a test holds it to that).
        other => anyhow::bail!("internal error: no runner for {other:?}"),
    }
}

/// `--dry-run`: the plan of the run on this host, every case with its estimated
/// length, on stdout; nothing is measured and no file is written (issue #32 D).
fn dry_run(options: &Options, plan: Planner<'_>) -> anyhow::Result<ExitCode> {
    let host = HostInfo::detect(false);
    let ctx = Context {
        host: &host,
        opts: &options.common,
    };
    let cases = plan(&ctx)?;
    let mut out = std::io::stdout().lock();
    for l in crate::report::progress::plan_lines(&planned(&cases, &options.common), true) {
        writeln!(out, "{l}")?;
    }
    if let Some(n) = quick_notice(options) {
        writeln!(out, "{n}")?;
    }
    writeln!(out, "dry run: nothing was measured")?;
    Ok(ExitCode::SUCCESS)
}

/// Each case's label and estimated length.
fn planned(cases: &[Box<dyn Case>], opts: &CommonOptions) -> Vec<(String, std::time::Duration)> {
    cases
        .iter()
        .map(|c| (c.label(), c.estimate(opts)))
        .collect()
}

/// What the quick suite says before it starts: where its disk cases write.
fn quick_notice(options: &Options) -> Option<String> {
    matches!(options.command, Command::Quick).then(|| {
        let here = std::env::current_dir()
            .map(|d| d.display().to_string())
            .unwrap_or_else(|_| ".".into());
        format!(
            "the disk cases write a {} file into the current directory, {here} (in a peakbench-disk-* directory, removed at the end); cd to another disk to measure it",
            crate::util::units::format_size(crate::bench::disk::QUICK_FILE_SIZE)
        )
    })
}

/// A measuring run on this host alone: [`run_cases`], then the requested views.
fn measure(options: &Options, plan: Planner<'_>) -> anyhow::Result<ExitCode> {
    let opts = &options.common;
    // The HTML report: where --html says, and next to the JSON for the quick suite.
    let html = |path: &Path| {
        opts.html.clone().or_else(|| {
            matches!(options.command, Command::Quick).then(|| path.with_extension("html"))
        })
    };
    // --cpus: the process is confined first, so the host it detects is the chosen CPUs.
    if let Some(cpus) = &opts.cpus {
        crate::bench::common::confine_to(cpus).map_err(anyhow::Error::msg)?;
    }
    let host = HostInfo::detect(true);
    let (report, path, html) = run_cases(options, &host, &host.hostname, html, plan, |_| {})?;
    crate::history::after_run(opts.history.as_deref(), opts.no_history, &report, &path);
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    crate::report::export_fit(&report, opts.format, opts.width, &mut out)?;
    out.flush()?;
    // The table carries the warnings; with another format on stdout, say them once here.
    if opts.format != crate::report::view::table::FORMAT {
        for l in crate::report::view::table::warnings(&report, crate::util::term::stderr_width()) {
            eprintln!("{l}");
        }
    }
    // The default folder keeps an index of its runs and each host's latest (#32 G).
    let latest = (opts.output == Path::new("results"))
        .then(|| {
            crate::report::results_index::update(&opts.output, &file_host(&host.hostname), &path)
        })
        .and_then(Result::ok);
    if !opts.quiet {
        eprintln!("results: {}", path.display());
        if let Some(h) = &html {
            eprintln!("html: {}", h.display());
        }
        if let Some(l) = latest {
            eprintln!(
                "latest: {} (index of the runs: {})",
                l.display(),
                opts.output
                    .join(crate::report::results_index::INDEX)
                    .display()
            );
        }
    }
    let failed = report
        .results
        .iter()
        .any(|r| matches!(r.status, Status::Failed { .. }));
    Ok(if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
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
    // Rewritten after every case too, so that an interrupted run leaves both.
    let html = html(&path);
    // A long run (or the quick suite, which writes a disk file) says what it will do
    // before it starts (issue #32 D, G).
    let planned = planned(&cases, opts);
    if !opts.quiet {
        let total: std::time::Duration = planned.iter().map(|(_, d)| *d).sum();
        if total > crate::report::progress::LONG_RUN || quick_notice(options).is_some() {
            for l in crate::report::progress::plan_lines(&planned, false) {
                eprintln!("{l}");
            }
        }
        if let Some(n) = quick_notice(options) {
            eprintln!("{n}");
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
    let rctx = crate::reference::Context {
        host,
        disk_dir: match &options.command {
            Command::Disk(d) => d.dir.as_deref(),
            _ => None,
        },
        remote: matches!(&options.command, Command::Net(n) if n.server.is_some()),
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
        progress.start(&case.label());
        let before = crate::measure::share::HostMark::now();
        let results = case.run(&ctx);
        let window = crate::measure::share::HostMark::now().since(&before, &[], Vec::new());
        for mut r in results {
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
        if let Some(h) = &html {
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

/// Whether an error means bad usage (exit code 2).
pub fn is_usage(e: &anyhow::Error) -> bool {
    e.downcast_ref::<UsageError>().is_some()
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::{CommandFactory, Parser};

    /// The commands that measure nothing, with the arguments they need to parse.
    const NOT_MEASURING: &[&[&str]] = &[
        &["sysinfo"],
        &["serve"],
        &["report", "a.json"],
        &["compare", "a.json", "b.json"],
        &["reference"],
        &["fleet", "a.json"],
        &["history"],
        &["gpu", "--list"],
    ];

    /// Issue #24: `linalg` was missing from the hand list of measuring commands, so a
    /// cluster launch ran it on every rank alone. Every subcommand that is not known to
    /// measure nothing must have a planner, which is what a launch gathers.
    #[test]
    fn every_measuring_command_is_gathered_under_a_launch() {
        let opts = |args: &[&str]| {
            let argv = std::iter::once("peakbench").chain(args.iter().copied());
            Options::from_cli(Cli::parse_from(argv)).unwrap()
        };
        let mut names: Vec<String> = Cli::command()
            .get_subcommands()
            .map(|c| c.get_name().to_string())
            .filter(|n| n != "help")
            .collect();
        names.push(String::new()); // no subcommand: the quick suite
        for name in names {
            // The bare command, or the form of it that parses (report needs a file).
            let args: Vec<&str> = match NOT_MEASURING.iter().find(|a| a[0] == name) {
                Some(a) if a.len() > 1 && a[1] != "--list" => a.to_vec(),
                _ if name.is_empty() => vec![],
                _ => vec![&name],
            };
            let known = NOT_MEASURING.iter().any(|a| a == &args.as_slice());
            let o = opts(&args);
            assert_eq!(
                planner(&o.command).is_some(),
                !known,
                "'{name}': a measuring command needs its planner in app::planner (it is what a cluster launch gathers)"
            );
        }
        for args in NOT_MEASURING {
            assert!(planner(&opts(args).command).is_none(), "{args:?}");
        }
        assert!(planner(&opts(&["linalg"]).command).is_some());
    }
}
