//! The application: plan → run each case → write the results file after every case →
//! print the requested format. `main.rs` maps errors to exit codes.

use crate::bench::common::CommonOptions;
use crate::bench::{self, Context};
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
    if !command.measures() {
        return None;
    }
    Some(match command {
        Command::Resource(r) => Box::new(move |ctx: &Context| r.plan(ctx)),
        _ => Box::new(|ctx: &Context| Ok(bench::quick(ctx))),
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
        // SIGINT/SIGTERM end a measuring run from here on, before the host is detected
        // (clock chains, execution probe: a second or more on a loaded machine): until
        // now a signal in that time got the disposition peakbench was started with,
        // which killed it without a word or, started in the background by a script
        // (SIGINT ignored there), was lost while the run went on to its end. The note
        // first: the watcher may exit the moment the handler is in.
        crate::util::atomic::on_interrupt_say(
            "no case had started: nothing was measured, no results were kept".into(),
        );
        crate::util::atomic::catch_signals();
        if let Some(l) = crate::cluster::launch()? {
            return crate::cluster::run(&opts, l, plan);
        }
        let net = opts
            .command
            .options_of::<crate::bench::net::options::NetOptions>();
        if net.is_some_and(|n| n.matrix) {
            return Err(UsageError::new(
                "--matrix",
                "needs a cluster launch: mpirun or srun with a build with --features mpi, or $PEAKBENCH_RANK, $PEAKBENCH_SIZE and $PEAKBENCH_COORD (see docs/fleet.md)",
            )
            .into());
        }
        return measure(&opts, plan);
    }
    if common.dry_run {
        return Err(UsageError::new(
            "--dry-run",
            format!(
                "only a measuring command ({}) has a plan to print",
                bench::measuring_commands()
            ),
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
        Command::Compare { files, to_stdout } => {
            let (mut out, mut sink) = (stdout.lock(), std::io::sink());
            let out: &mut dyn Write = if *to_stdout { &mut out } else { &mut sink };
            crate::reporting::run_compare(common, files, out)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Fleet(f) => {
            crate::reporting::run_fleet(common, f, &mut stdout.lock())?;
            Ok(ExitCode::SUCCESS)
        }
        Command::History(h) => {
            let (db, html) = (common.history.as_deref(), common.html.as_deref());
            let mut out = stdout.lock();
            crate::history::command::run(h, db, common.format, common.width, html, &mut out)
        }
        Command::Baseline(b) => {
            crate::gate::run_baseline(&gate_output(common), b, &mut stdout.lock())?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Check(c) => crate::gate::run_check(&gate_output(common), c, &mut stdout.lock()),
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
            command: Command::Resource(Box::new(crate::bench::resource::Planned {
                resource: &crate::bench::cpu::CpuBench,
                options: crate::reporting::reference_cpu(r),
            })),
        }),
        // A resource's subcommand that measures nothing (`gpu --list`): its action.
        Command::Resource(r) if r.action().is_some() => {
            if let Some(act) = r.action() {
                act(common, &mut stdout.lock())?;
            }
            Ok(ExitCode::SUCCESS)
        }
        // Every other command is in the planner's table (a test holds it to that).
        other => anyhow::bail!("internal error: no runner for {other:?}"),
    }
}

/// What `baseline` and `check` take of the common options.
fn gate_output(common: &CommonOptions) -> crate::gate::Output {
    crate::gate::Output {
        format: common.format,
        width: common.width,
        quiet: common.quiet,
        dir: common.output.clone(),
        history: common.history.clone(),
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
    // Wrapped to the width like every view (issue #45: the plan lines were not).
    let mut lines = crate::report::progress::plan_lines(&planned(&cases, &options.common), true);
    lines.extend(quick_notice(options));
    let text = lines.join("\n");
    write!(
        out,
        "{}",
        crate::util::term::fit_text(&text, options.common.width)
    )?;
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
    // Other peakbench runs on this machine: named now, and during each case (#45).
    let command: Vec<String> = std::iter::once("peakbench".to_string())
        .chain(std::env::args().skip(1))
        .collect();
    let others = crate::measure::others::Registry::enter(&command.join(" "));
    if let Some(o) = &others {
        let now = o.active();
        if !now.is_empty() {
            eprintln!(
                "peakbench: {}",
                crate::measure::others::warning(&o.unsaid(&now))
            );
        }
    }
    let host = HostInfo::detect(true);
    let (report, path, html) = run_cases(
        options,
        &host,
        &host.hostname,
        html,
        plan,
        |_| {},
        others.as_ref(),
    )?;
    crate::history::after_run(opts.history.as_deref(), opts.no_history, &report, &path);
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
        &["history"],
        &["baseline", "--from", "a.json"],
        &["check", "--baseline", "b.toml"],
        &["gpu", "--list"],
    ];

    /// Issue #34: a resource is one folder and one line of `bench::RESOURCES`; every
    /// place that lists the resources is built from the registry, so each registered
    /// resource is reachable from each: its subcommand (hidden as it says), its parse
    /// into a run of its own name, the planner, the quick suite, its `--peak` keys and
    /// its refusals of the common flags.
    #[test]
    fn every_resource_is_reachable_from_every_list() {
        use crate::bench::resource::CommonFlag;
        let cli = Cli::command();
        let parse = |args: &[&str]| {
            let argv = std::iter::once("peakbench").chain(args.iter().copied());
            Options::from_cli(Cli::try_parse_from(argv).unwrap())
        };
        let quick: Vec<&str> = bench::quick_suite().map(|r| r.name()).collect();
        for r in bench::RESOURCES {
            let name = r.name();
            let sub = cli
                .find_subcommand(name)
                .unwrap_or_else(|| panic!("{name}: no subcommand"));
            assert_eq!(sub.is_hide_set(), r.hidden(), "{name}");
            assert_eq!(
                sub.get_about().map(|a| a.to_string()).as_deref(),
                Some(r.about())
            );
            let o = parse(&[name]).unwrap();
            let Command::Resource(run) = &o.command else {
                panic!("{name}: {:?}", o.command)
            };
            assert_eq!(run.name(), name);
            assert!(planner(&o.command).is_some(), "{name}: no planner");
            let config = serde_json::to_value(&o).unwrap();
            assert_eq!(config["command"]["command"], name);
            assert_eq!(quick.contains(&name), !r.hidden(), "{name}: quick suite");
            // Its keys are listed in the registry's message and parse through it.
            if !r.peak_keys().is_empty() {
                // A hidden resource's keys parse but are not offered in messages.
                let e = bench::parse_peak("nonesuch=1").unwrap_err().0;
                assert_eq!(e.contains(r.peak_keys()), !r.hidden(), "{name}: {e}");
                let plain = r
                    .peak_keys()
                    .split(", ")
                    .find(|k| k.chars().all(|c| c.is_ascii_lowercase() || c == '.'))
                    .unwrap_or_else(|| panic!("{name}: no plain key"));
                let (k, _) = bench::parse_peak(&format!("{plain}=1")).unwrap();
                assert_eq!(k.to_string(), plain);
            }
            // Each common flag it refuses is refused with its reason, the others taken;
            // one it refuses whatever its options is left out of its help (issue #45).
            for flag in CommonFlag::ALL {
                let arg = sub
                    .get_arguments()
                    .find(|a| a.get_id().as_str() == flag.id())
                    .unwrap_or_else(|| panic!("{name}: {} not parsed", flag.flag()));
                let never = r.never_takes().contains(&flag);
                assert_eq!(arg.is_hide_set(), never, "{name} {}", flag.flag());
                if never {
                    assert!(run.refuses(flag).is_some(), "{name}: {}", flag.flag());
                }
                let mut args = vec![name, flag.flag()];
                match flag {
                    CommonFlag::Weak => {}
                    CommonFlag::UntilStable => args.push("2%"),
                    CommonFlag::Cpus => args.push("0"),
                }
                match crate::options::refusal(&o.command, flag) {
                    Some(why) => assert_eq!(
                        parse(&args).unwrap_err().0,
                        format!("{}: {why}", flag.flag())
                    ),
                    None if flag == CommonFlag::Cpus
                        && !crate::hw::cpu::allowed_cpus().contains(&0) => {}
                    None => assert!(parse(&args).is_ok(), "{args:?}"),
                }
            }
        }
        assert!(bench::parse_peak("null=1").is_ok());
    }

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
