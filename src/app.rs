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

/// Reserves `HOST-TIME.json` in `dir` with an exclusive create (`HOST-TIME-2.json`, …
/// when another run took it in the same second).
fn results_path(dir: &Path, host: &str, started: &str) -> anyhow::Result<PathBuf> {
    let safe_host: String = host
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect();
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

/// The one dispatch over the commands: those that measure nothing run here; a
/// measuring command hands its resource's `plan` to [`measure`].
fn dispatch(opts: Options) -> anyhow::Result<ExitCode> {
    let stdout = std::io::stdout();
    let common = &opts.common;
    // Under a cluster launch every measuring command runs on every host (`cluster`).
    let measuring = matches!(
        opts.command,
        Command::Quick
            | Command::Cpu(_)
            | Command::Memory(_)
            | Command::Disk(_)
            | Command::Net(_)
            | Command::Gpu(_)
            | Command::Null { .. }
    ) && !matches!(&opts.command, Command::Gpu(g) if g.list);
    if measuring {
        if let Some(l) = crate::cluster::launch()? {
            let command = opts.command.clone();
            return crate::cluster::run(&opts, l, |ctx| {
                cases_of(&command, ctx).unwrap_or_else(|| Ok(Vec::new()))
            });
        }
        if matches!(&opts.command, Command::Net(n) if n.matrix) {
            return Err(UsageError::new(
                "--matrix",
                "needs a cluster launch: mpirun or srun with a build with --features mpi, or $PEAKBENCH_RANK, $PEAKBENCH_SIZE and $PEAKBENCH_COORD (see README)",
            )
            .into());
        }
    }
    match &opts.command {
        Command::Sysinfo => {
            crate::sysinfo::run(common, &mut stdout.lock())?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Gpu(g) if g.list => {
            let det = crate::hw::gpu::detect();
            let doc = crate::report::TextDoc {
                value: &det,
                text: crate::sysinfo::print_gpus,
            };
            crate::report::export_fit(&doc, common.format, common.width, &mut stdout.lock())?;
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
        Command::Quick => measure(&opts, |ctx| {
            Ok(bench::BENCHMARKS
                .iter()
                .flat_map(|b| b.quick(ctx))
                .collect())
        }),
        Command::Cpu(o) => measure(&opts, |ctx| bench::cpu::CpuBench.plan(o, ctx)),
        Command::Memory(o) => measure(&opts, |ctx| bench::memory::MemoryBench.plan(o, ctx)),
        Command::Disk(o) => measure(&opts, |ctx| bench::disk::DiskBench.plan(o, ctx)),
        Command::Net(o) => measure(&opts, |ctx| bench::net::NetBench.plan(o, ctx)),
        Command::Gpu(o) => measure(&opts, |ctx| bench::gpu::GpuBench.plan(o, ctx)),
        Command::Linalg(o) => measure(&opts, |ctx| bench::linalg::LinalgBench.plan(o, ctx)),
        Command::Null { threads } => {
            measure(&opts, |ctx| bench::null::NullBench.plan(threads, ctx))
        }
    }
}

/// The cases of a measuring command (`None` for the commands that measure nothing).
fn cases_of(command: &Command, ctx: &Context) -> Option<Result<Vec<Box<dyn Case>>, UsageError>> {
    Some(match command {
        Command::Quick => Ok(bench::BENCHMARKS
            .iter()
            .flat_map(|b| b.quick(ctx))
            .collect()),
        Command::Cpu(o) => bench::cpu::CpuBench.plan(o, ctx),
        Command::Memory(o) => bench::memory::MemoryBench.plan(o, ctx),
        Command::Disk(o) => bench::disk::DiskBench.plan(o, ctx),
        Command::Net(o) => bench::net::NetBench.plan(o, ctx),
        Command::Gpu(o) => bench::gpu::GpuBench.plan(o, ctx),
        Command::Null { threads } => bench::null::NullBench.plan(threads, ctx),
        _ => return None,
    })
}

/// A measuring run: detect the host, plan the cases, run each one, write the results
/// file after every case, then the requested views.
fn measure(
    options: &Options,
    plan: impl FnOnce(&Context) -> Result<Vec<Box<dyn Case>>, UsageError>,
) -> anyhow::Result<ExitCode> {
    let opts = &options.common;
    let stdout = std::io::stdout();
    // From here on, SIGINT/SIGTERM end the run between saves, never inside one (the
    // disk benchmark's own handler, installed while planning, chains back to this one).
    crate::util::atomic::catch_signals();
    let host = HostInfo::detect(true);
    let ctx = Context { host: &host, opts };
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
    let path = results_path(&opts.output, &host.hostname, &started)?;
    save(&report, &path)?;
    // The HTML report: where --html says, and next to the JSON for the quick suite;
    // rewritten after every case too, so that an interrupted run leaves both.
    let html = opts
        .html
        .clone()
        .or_else(|| matches!(options.command, Command::Quick).then(|| path.with_extension("html")));
    let progress = Progress::new(cases.len(), opts.quiet);
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
        host: &host,
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
            if r.share.is_empty() && r.is_ok() {
                r = r.with_window(window.clone());
            }
            if opts.reference {
                crate::reference::attach(&mut r, &rctx, &tools);
            }
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
    save(&report, &path)?;
    progress.finish();
    if let Some(h) = &html {
        crate::reporting::write_html(&report, h)?;
    }
    let mut out = stdout.lock();
    crate::report::export_fit(&report, opts.format, opts.width, &mut out)?;
    out.flush()?;
    // The table carries the warnings; with another format on stdout, say them once here.
    if opts.format != crate::report::Format::Table {
        for l in crate::report::table::warnings(&report, crate::util::term::stderr_width()) {
            eprintln!("{l}");
        }
    }
    if !opts.quiet {
        eprintln!("results: {}", path.display());
        if let Some(h) = &html {
            eprintln!("html: {}", h.display());
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
