//! The application: plan → run each case → write the results file after every case →
//! print the requested format. `main.rs` maps errors to exit codes.

use crate::bench::common::CommonOptions;
use crate::bench::{self, Context, Plan};
use crate::cli::Cli;
use crate::hw::HostInfo;
use crate::options::{Command, Options};
use crate::pipeline::{file_host, planned, quick_notice, run_cases, Planner};
use crate::report::model::Status;
use crate::util::usage::UsageError;
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

/// Runs one invocation; `Err` carrying a [`UsageError`] means exit code 2.
pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    dispatch(Options::from_cli(cli)?)
}

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
        | Command::Fleet(_) => return None,
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
    crate::report::view::openmetrics::save(&report, opts.prom_file.as_deref())?;
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
