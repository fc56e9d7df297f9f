//! Validated options: the only place that reads the raw command line. It assembles what
//! each part validates itself — the common options (`bench::common::parse`), each
//! resource's flags (`bench::<resource>::options::parse`), the commands that measure
//! nothing (`reporting`) — into one [`Options`]. Each bad value becomes one
//! [`UsageError`] line naming the flag and the accepted form; nothing runs.

use crate::bench::common::CommonOptions;
use crate::bench::resource::{CommonFlag, Run};
use crate::cli::{Cli, Cmd, Sub};
use crate::reporting::{ReferenceOptions, ReportOptions};
use crate::util::usage::UsageError;
use serde::{Serialize, Serializer};
use std::path::PathBuf;

/// What to run.
#[derive(Debug)]
pub(crate) enum Command {
    /// No subcommand: the quick suite.
    Quick,
    /// `peakbench sysinfo`.
    Sysinfo,
    /// A registered resource's subcommand (`bench::RESOURCES`), validated: `peakbench
    /// cpu`, `memory`, `disk`, `net`, `gpu`, `linalg` and the hidden `null`.
    Resource(Box<dyn Run>),
    /// `peakbench serve` (measures nothing itself; dispatched by `app::run`).
    Serve(crate::bench::net::options::ServeOptions),
    /// `peakbench report FILE.json` (measures nothing).
    Report(ReportOptions),
    /// `peakbench compare A.json B.json …` (measures nothing).
    Compare {
        /// The files, baseline first.
        files: Vec<PathBuf>,
        /// Whether stdout gets the `--format` view: not when only `--html` was asked
        /// for (as `report`; issue #45).
        to_stdout: bool,
    },
    /// `peakbench reference`.
    Reference(ReferenceOptions),
    /// `peakbench fleet FILE…` (measures nothing).
    Fleet(crate::reporting::FleetOptions),
    /// `peakbench history` (measures nothing).
    History(crate::history::command::HistoryOptions),
    /// `peakbench baseline --from FILE…` (measures nothing).
    Baseline(crate::gate::options::BaselineOptions),
    /// `peakbench check --baseline FILE [RESULTS.json]` (measures nothing).
    Check(crate::gate::options::CheckOptions),
}

impl Clone for Command {
    fn clone(&self) -> Command {
        match self {
            Command::Quick => Command::Quick,
            Command::Sysinfo => Command::Sysinfo,
            Command::Resource(r) => Command::Resource(r.clone_run()),
            Command::Serve(s) => Command::Serve(s.clone()),
            Command::Report(r) => Command::Report(r.clone()),
            Command::Compare { files, to_stdout } => Command::Compare {
                files: files.clone(),
                to_stdout: *to_stdout,
            },
            Command::Reference(r) => Command::Reference(r.clone()),
            Command::Fleet(f) => Command::Fleet(f.clone()),
            Command::History(h) => Command::History(h.clone()),
            Command::Baseline(b) => Command::Baseline(b.clone()),
            Command::Check(c) => Command::Check(c.clone()),
        }
    }
}

/// How the commands that are not resources stand in the report's `config`: the
/// command's name under `command` and its options beside it.
#[derive(Serialize)]
#[serde(rename_all = "lowercase", tag = "command")]
enum Shown<'a> {
    Quick,
    Sysinfo,
    Serve(&'a crate::bench::net::options::ServeOptions),
    Report(&'a ReportOptions),
    Compare { files: &'a [PathBuf] },
    Reference(&'a ReferenceOptions),
    Fleet(&'a crate::reporting::FleetOptions),
    History(&'a crate::history::command::HistoryOptions),
    Baseline(&'a crate::gate::options::BaselineOptions),
    Check(&'a crate::gate::options::CheckOptions),
}

/// As in the report's `config`: `{"command": NAME, …options}`.
impl Serialize for Command {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{Error, SerializeMap};
        let shown = match self {
            Command::Resource(r) => {
                let config = r.config().map_err(S::Error::custom)?;
                let serde_json::Value::Object(fields) = config else {
                    return Err(S::Error::custom(format!(
                        "{}: options are not a map",
                        r.name()
                    )));
                };
                let mut m = s.serialize_map(Some(fields.len() + 1))?;
                m.serialize_entry("command", r.name())?;
                for (k, v) in &fields {
                    m.serialize_entry(k, v)?;
                }
                return m.end();
            }
            Command::Quick => Shown::Quick,
            Command::Sysinfo => Shown::Sysinfo,
            Command::Serve(o) => Shown::Serve(o),
            Command::Report(o) => Shown::Report(o),
            Command::Compare { files, .. } => Shown::Compare { files },
            Command::Reference(o) => Shown::Reference(o),
            Command::Fleet(o) => Shown::Fleet(o),
            Command::History(o) => Shown::History(o),
            Command::Baseline(o) => Shown::Baseline(o),
            Command::Check(o) => Shown::Check(o),
        };
        shown.serialize(s)
    }
}

impl Command {
    /// Whether the command measures: the quick suite and a measuring resource's run
    /// (what `app::planner` plans, and a cluster launch gathers).
    pub(crate) fn measures(&self) -> bool {
        match self {
            Command::Quick => true,
            Command::Resource(r) => r.measures(),
            _ => false,
        }
    }

    /// The options of the resource run, when this is one whose options are a `T`.
    /// Only `net --matrix` is read this way (a cluster launch runs it round by round,
    /// not as cases: the one documented exception); everything else the top needs of
    /// a resource's options is a hook (`Plan::hints`, `Plan::action`, …).
    pub(crate) fn options_of<T: 'static>(&self) -> Option<&T> {
        match self {
            Command::Resource(r) => r.options().downcast_ref::<T>(),
            _ => None,
        }
    }
}

/// All validated options of one invocation.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Options {
    /// The options common to every command (flattened: the report's `config` keeps
    /// them at the top level).
    #[serde(flatten)]
    pub(crate) common: CommonOptions,
    /// The subcommand and its options.
    pub(crate) command: Command,
}

impl Options {
    /// Validates the parsed command line.
    pub(crate) fn from_cli(cli: Cli) -> Result<Options, UsageError> {
        let c = &cli.common;
        let quick = cli.command.is_none();
        let mut common = crate::bench::common::parse(c, quick)?;
        for p in &c.peak {
            common.peaks.insert(p.key.clone(), p.value);
        }
        let command = match &cli.command {
            None => Command::Quick,
            Some(Sub::Resource(r)) => Command::Resource(r.resource.parse(&r.matches)?),
            Some(Sub::Cmd(Cmd::Sysinfo)) => Command::Sysinfo,
            Some(Sub::Cmd(Cmd::Serve(a))) => {
                Command::Serve(crate::bench::net::options::parse_serve(a)?)
            }
            Some(Sub::Cmd(Cmd::Report(a))) => Command::Report(crate::reporting::parse_report(a, c)),
            Some(Sub::Cmd(Cmd::Compare(a))) => Command::Compare {
                files: a.files.clone(),
                to_stdout: c.format.is_some() || c.html.is_none(),
            },
            Some(Sub::Cmd(Cmd::Reference(a))) => Command::Reference(a.clone()),
            Some(Sub::Cmd(Cmd::Fleet(a))) => Command::Fleet(a.clone()),
            Some(Sub::Cmd(Cmd::History(a))) => Command::History(a.clone()),
            Some(Sub::Cmd(Cmd::Baseline(a))) => Command::Baseline(
                crate::gate::options::parse_baseline(a, c.output.as_deref())?,
            ),
            Some(Sub::Cmd(Cmd::Check(a))) => Command::Check(crate::gate::options::parse_check(a)?),
        };
        refuse_unused(c, &command)?;
        check_history(&common, &command)?;
        // OpenMetrics is a run's figures; these commands have none.
        let no_figures = match &command {
            Command::Sysinfo
            | Command::Compare { .. }
            | Command::Fleet(_)
            | Command::History(_)
            | Command::Baseline(_)
            | Command::Check(_) => true,
            Command::Reference(r) => !r.run,
            Command::Resource(r) => !r.measures(),
            _ => false,
        };
        if no_figures && common.format == crate::report::view::openmetrics::FORMAT {
            return Err(UsageError::new(
                "--format",
                crate::report::view::openmetrics::ONLY_REPORTS,
            ));
        }
        check_cpus(common.cpus.as_deref(), &command)?;
        common.html = match &c.html {
            Some(_)
                if matches!(
                    command,
                    Command::Sysinfo
                        | Command::Reference(_)
                        | Command::Baseline(_)
                        | Command::Check(_)
                ) =>
            {
                return Err(UsageError::new(
                    "--html",
                    "only applies to measuring runs, report and compare",
                ))
            }
            html => html.clone(),
        };
        if let Some(p) = &common.prom_file {
            check_prom_file(p, &command)?;
        }
        if let Some(name) = &cli.name {
            refuse_unread(c, name)?;
        }
        Ok(Options { common, command })
    }
}

/// Why a common flag would do nothing for this command: the resource's own reason
/// (`resource::Plan::refuses`), or for the commands that measure nothing, theirs.
/// The lists of resources in these reasons come from the registry.
pub(crate) fn refusal(command: &Command, flag: CommonFlag) -> Option<String> {
    let why = match (command, flag) {
        (Command::Resource(r), _) => r.refuses(flag).map(str::to_string),
        (_, CommonFlag::Cpus) => Some(crate::bench::resource::CPUS_ONLY.to_string()),
        (Command::Quick, _) => None,
        (Command::Reference(_) | Command::Fleet(_), CommonFlag::Weak) => None,
        (_, CommonFlag::Weak) => Some(format!(
            "applies only to the {} measurements (and the quick suite); drop --weak",
            crate::bench::taking(flag)
        )),
        // A resource may take it for some of its options only (linalg: its roofline);
        // its own refusal says so.
        (_, CommonFlag::UntilStable) => Some(format!(
            "applies only to the {} measurements (and the quick suite); drop --until-stable",
            crate::bench::taking(flag)
        )),
    }?;
    Some(if why == crate::bench::resource::CPUS_ONLY {
        crate::bench::cpus_only()
    } else {
        why
    })
}

/// Refuses the common flags that would do nothing for this command, rather than accept
/// and ignore them: `--weak` and `--until-stable` where the resource says so
/// ([`refusal`]), and on `sysinfo` every flag but `--format`, `--peak` and `--quiet`
/// (it measures no case; `--quiet` stays accepted, as true of it and harmless in
/// scripts that pass it to all).
fn refuse_unused(
    c: &crate::bench::common::CommonArgs,
    command: &Command,
) -> Result<(), UsageError> {
    for (given, flag) in [
        (c.weak, CommonFlag::Weak),
        (c.until_stable.is_some(), CommonFlag::UntilStable),
    ] {
        if let Some(why) = refusal(command, flag).filter(|_| given) {
            return Err(UsageError::new(flag.flag(), why));
        }
    }
    if matches!(command, Command::Sysinfo) {
        let given = [
            ("--repeat", c.repeat.is_some()),
            ("--min-time", c.min_time.is_some()),
            ("--output", c.output.is_some()),
            ("--reference", c.reference),
        ];
        if let Some((flag, _)) = given.iter().find(|(_, g)| *g) {
            return Err(UsageError::new(
                flag,
                "sysinfo measures no case and writes no results file; it takes only --format and --peak",
            ));
        }
    }
    Ok(())
}

/// `--history PATH` given to a measuring run must be usable before anything is
/// measured (an existing peakbench history, or a file its directory lets us create);
/// `history` reads the database, so `--no-history` makes no sense there.
fn check_history(common: &CommonOptions, command: &Command) -> Result<(), UsageError> {
    match (command, &common.history) {
        (Command::History(_), _) if common.no_history => Err(UsageError::new(
            "--no-history",
            "history reads the database; drop --no-history (or give --history PATH)",
        )),
        // The reading commands open it themselves, and never create one.
        (Command::History(_) | Command::Baseline(_) | Command::Check(_), _) | (_, None) => Ok(()),
        (_, Some(p)) if !common.no_history && !common.dry_run => {
            crate::history::check_target(p).map_err(|e| UsageError::new("--history", e))
        }
        _ => Ok(()),
    }
}

/// Refuses a common option the subcommand does not read (`cli::reads`; its help does
/// not offer it), after the reasons above: `--quiet` stays accepted everywhere, as
/// harmless in scripts that pass it to all, and `--dry-run` is refused by `app` for
/// every command with no plan.
fn refuse_unread(c: &crate::bench::common::CommonArgs, name: &str) -> Result<(), UsageError> {
    let reads = crate::cli::reads(name);
    for id in crate::cli::given(c) {
        if matches!(id, "quiet" | "dry_run") || reads.contains(&id) {
            continue;
        }
        let flag = format!("--{}", id.replace('_', "-"));
        let why = if crate::cli::group(id) == Some(crate::cli::Group::Measure) {
            format!("{name} measures nothing; drop {flag}")
        } else {
            format!("{name} does not use it; drop {flag}")
        };
        return Err(UsageError::new(&flag, why));
    }
    Ok(())
}

/// `--prom-file` applies to a measuring run (the file is written when it ends), and
/// its directory must exist and take a new file now, before anything is measured (a
/// temporary file is created and removed; the path itself is not touched).
fn check_prom_file(path: &std::path::Path, command: &Command) -> Result<(), UsageError> {
    let measures = match command {
        Command::Reference(r) => r.run,
        c => c.measures(),
    };
    if !measures {
        return Err(UsageError::new(
            "--prom-file",
            format!(
                "applies only to a measuring run ({}); for a results file use report FILE.json --format openmetrics",
                crate::bench::measuring_commands()
            ),
        ));
    }
    crate::util::atomic::check_writable(path).map_err(|e| {
        UsageError::new(
            "--prom-file",
            format!(
                "cannot write {} ({e}); give a *.prom file in an existing, writable directory",
                path.display()
            ),
        )
    })
}

/// `--cpus` applies where the resource pins its threads (cpu, memory, linalg, and
/// gpu's host side); elsewhere it is refused. A thread list longer than the CPUs listed
/// is refused too: those threads could not each have a CPU of the list.
fn check_cpus(cpus: Option<&[usize]>, command: &Command) -> Result<(), UsageError> {
    let Some(cpus) = cpus else { return Ok(()) };
    if let Some(why) = refusal(command, CommonFlag::Cpus) {
        return Err(UsageError::new("--cpus", why));
    }
    let threads = match command {
        Command::Resource(r) => r.threads(),
        _ => None,
    };
    if let Some(&t) = threads.and_then(|t| t.iter().max()) {
        if t > cpus.len() {
            return Err(UsageError::new(
                "--threads",
                format!(
                    "{t} threads but --cpus lists {} CPU{} ({}); use at most {} threads or list more CPUs",
                    cpus.len(),
                    if cpus.len() == 1 { "" } else { "s" },
                    crate::bench::common::cpu_list(cpus),
                    cpus.len()
                ),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::cpu::kernels::{Isa, Precision};
    use clap::Parser;
    use std::time::Duration;

    fn opts(args: &[&str]) -> Result<Options, UsageError> {
        let mut v = vec!["peakbench"];
        v.extend_from_slice(args);
        // A typed flag's bad value is refused by clap, with the line cmdline prints.
        let cli = Cli::try_parse_from(v)
            .map_err(|e| UsageError::from_clap(&e).unwrap_or_else(|| panic!("{e}")))?;
        Options::from_cli(cli)
    }

    /// The command lines of the golden test of the report's `config`.
    const GOLDEN_LINES: &[&[&str]] = &[
        &[],
        &["--repeat", "2", "--min-time", "300ms", "--weak", "--quiet"],
        &[
            "--peak",
            "cpu.fp64=1T",
            "--peak",
            "memory.l1=8Tbit/s",
            "--until-stable",
            "2%",
        ],
        &[
            "cpu",
            "--precision",
            "dp,sp",
            "--threads",
            "1,2",
            "--format",
            "json",
        ],
        &[
            "cpu",
            "--sustain",
            "2s",
            "--interval",
            "500ms",
            "--repeat",
            "5",
        ],
        // #47 item 3: `c2c` appears only when set, so older lines are unchanged.
        &["cpu", "--c2c"],
        &["memory", "--threads", "1", "--weak", "--html", "m.html"],
        &[
            "disk",
            "--jobs",
            "2",
            "--file-size",
            "64MiB",
            "--dir",
            "/tmp",
            "--peak",
            "disk.iops=500k",
        ],
        &["net", "--streams", "2", "--time", "1s", "--peak", "net=10G"],
        &["gpu", "--list"],
        &["gpu", "--peak", "gpu.fp32=60TFLOP/s", "--output", "out"],
        &[
            "linalg",
            "--routine",
            "gemm,roofline",
            "--until-stable",
            "1%",
            "--stable-budget",
            "5s",
        ],
        &["null", "--threads", "1,2", "--peak", "null=1G"],
        &["sysinfo", "--format", "json"],
        &["serve"],
        &["report", "a.json", "--csv", "a.csv"],
        &["compare", "a.json", "b.json", "--html", "c.html"],
        &["fleet", "a.json", "b.json", "--threshold", "3", "--strict"],
        &["reference", "--run", "--threads", "1"],
        &[
            "baseline",
            "--from",
            "a.json",
            "b.json",
            "-o",
            "b.toml",
            "--tolerance",
            "7%",
            "--tolerance",
            "disk=25%,net=20%",
        ],
        &[
            "baseline",
            "--from-history",
            "--host",
            "n1, n2,n1",
            "--runs",
            "9",
            "--command",
            " cpu ",
            "--output",
            "x.toml",
        ],
        &[
            "check",
            "--baseline",
            "b.toml",
            "r.json",
            "--junit",
            "j.xml",
            "--strict",
        ],
        &["check", "--against", "history", "--runs", "7"],
        &["history"],
        &["history", "show", " memory triad ", "--host", "n1"],
        &["history", "--since", "7d", "list"],
        &["history", "import", "a.json", "b.json"],
    ];

    /// The report's `config` (the serialised [`Options`]) of each [`GOLDEN_LINES`] line,
    /// as it was before the resources moved into one registry (issue #34): it must not
    /// change. `PEAKBENCH_GOLDEN=print` prints the current lines.
    const GOLDEN: &str = include_str!("options_golden.txt");

    #[test]
    fn the_reports_config_is_unchanged() {
        let got: Vec<String> = GOLDEN_LINES
            .iter()
            .map(|a| {
                let o = opts(a).unwrap_or_else(|e| panic!("{a:?}: {e}"));
                format!("{}\t{}", a.join(" "), serde_json::to_value(&o).unwrap())
            })
            .collect();
        if std::env::var("PEAKBENCH_GOLDEN").as_deref() == Ok("print") {
            println!("{}", got.join("\n"));
        }
        let want: Vec<&str> = GOLDEN.lines().collect();
        assert_eq!(got.len(), want.len());
        for (g, w) in got.iter().zip(want) {
            assert_eq!(g, w);
        }
    }

    /// Issue #34 item 2: each subcommand offers the common options it reads; output
    /// options everywhere they are read, measurement options at the top (the quick
    /// suite) and on the measuring subcommands; both places work for those.
    #[test]
    fn each_subcommand_offers_the_common_options_it_reads() {
        use clap::CommandFactory;
        let cli = Cli::command();
        let offered = |name: &str| -> Vec<String> {
            let sub = cli.find_subcommand(name).unwrap();
            sub.get_arguments()
                .filter(|a| !a.is_hide_set())
                .filter_map(|a| a.get_long().map(str::to_string))
                .collect()
        };
        let sysinfo = offered("sysinfo");
        for f in ["format", "peak", "width", "quiet"] {
            assert!(sysinfo.iter().any(|o| o == f), "sysinfo: {f}");
        }
        for f in [
            "weak",
            "reference",
            "repeat",
            "until-stable",
            "output",
            "cpus",
        ] {
            assert!(!sysinfo.iter().any(|o| o == f), "sysinfo: {f}");
        }
        assert!(!offered("serve").iter().any(|o| o == "format"));
        for r in crate::bench::RESOURCES {
            let o = offered(r.name());
            for (id, _) in crate::cli::COMMON {
                let long = id.replace('_', "-");
                // What it refuses whatever its options is not offered (issue #45).
                let never = r.never_takes().iter().any(|f| f.id() == *id);
                assert_eq!(o.contains(&long), !never, "{}: {long}", r.name());
            }
        }
        // The top level offers every common option, for the quick suite.
        let top: Vec<&str> = cli.get_arguments().filter_map(|a| a.get_long()).collect();
        assert_eq!(top.len(), crate::cli::COMMON.len());
        // Before or after the subcommand alike.
        for a in [&["--repeat", "2", "cpu"][..], &["cpu", "--repeat", "2"]] {
            assert_eq!(opts(a).unwrap().common.repeat, 2, "{a:?}");
        }
        let o = opts(&["--peak", "cpu=1", "memory", "--peak", "memory=2"]).unwrap();
        assert_eq!(
            serde_json::to_value(&o.common.peaks)
                .unwrap()
                .as_object()
                .unwrap()
                .len(),
            2
        );
        // Given where it is not read: refused, naming the command.
        let e = opts(&["serve", "--repeat", "2"]).unwrap_err().0;
        assert_eq!(e, "--repeat: serve measures nothing; drop --repeat");
        let e = opts(&["--format", "json", "serve"]).unwrap_err().0;
        assert_eq!(e, "--format: serve does not use it; drop --format");
        assert!(opts(&["serve", "--quiet"]).is_ok());
        assert!(opts(&["report", "a.json", "--width", "100"]).is_ok());
    }

    /// Issue #34 item 2: the common options are typed where clap reads them; each bad
    /// value keeps the one line its hand-written check gave, and the checks that span
    /// flags stay.
    #[test]
    fn common_flags_keep_their_lines() {
        for (a, line) in [
            (&["--repeat", "0"][..], "--repeat: '0' is not a run count; use a whole number from 1 to 10000"),
            (&["cpu", "--repeat", "x"], "--repeat: 'x' is not a run count; use a whole number from 1 to 10000"),
            (&["--format", "xml"], "--format: unknown format 'xml'; accepted: table,json,csv,markdown,openmetrics"),
            (&["--output", " "], "--output: empty path; give a directory"),
            (&["--html", ""], "--html: empty path; give a file name like report.html"),
            (&["--history", ""], "--history: empty path; give a database file like ~/peakbench-history.db"),
            (&["--width", "3"], "--width: '3' is not a width; use a number of columns from 40 to 10000"),
            (&["--until-stable", "1"], "--until-stable: '1' is not a precision; give a percentage above 0 and at most 50, e.g. 1%"),
            (&["--until-stable", "1%", "--stable-budget", "0s"], "--stable-budget: '0s' is out of range; durations must be at least 1us and at most 7 days"),
            (&["--stable-budget", "5s"], "--stable-budget: only applies with --until-stable PCT; add it, e.g. --until-stable 1%"),
            (&["--history", "h.db", "--no-history"], "--no-history: --history PATH says where to record the run; give one of the two"),
            (&["fleet", "a.json", "--threshold", "0"], "--threshold: '0' is not a z-score threshold; use a positive number like 3.5"),
            (&["fleet", "a.json", "--min-gap", "x"], "--min-gap: 'x' is not a percentage; use a number from 0 to 100 like 5%"),
            (&["reference", "--threads", "0"], "--threads: '0' is out of range; thread counts go from 1 to 4096"),
            (&["report", "a.json", "--csv", ""], "--csv: empty path; give a file name"),
            (&["--prom-file", "x.txt"], "--prom-file: 'x.txt' does not end in .prom, and node_exporter's textfile collector reads only *.prom files; give a *.prom file, e.g. /var/lib/node_exporter/textfile_collector/peakbench.prom"),
        ] {
            assert_eq!(opts(a).unwrap_err().0, line, "{a:?}");
        }
        let e = opts(&["--peak", "cpu.fp99=1T"]).unwrap_err().0;
        assert!(
            e.starts_with("--peak: ") && !e[2..].contains("--peak"),
            "{e}"
        );
        let o = opts(&["--width", "120", "--until-stable", "2%", "--format", "md"]).unwrap();
        assert_eq!(o.common.width, Some(120));
        assert_eq!(o.common.format, crate::report::view::markdown::FORMAT);
        assert_eq!(
            o.common.until_stable.unwrap().budget,
            Duration::from_secs(30)
        );
    }

    /// Issue #46 item 3: no struct is read by clap and filled in afterwards; what is
    /// derived from several flags is a struct of its own, built after clap.
    #[test]
    fn no_clap_struct_is_filled_in_afterwards() {
        fn walk(dir: &std::path::Path, found: &mut Vec<String>) {
            for e in std::fs::read_dir(dir).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    walk(&p, found);
                } else if p.extension().is_some_and(|x| x == "rs") {
                    let text = std::fs::read_to_string(&p).unwrap();
                    let needle = concat!("#[arg(", "skip");
                    for (i, line) in text.lines().enumerate() {
                        if line.contains(needle) {
                            found.push(format!("{}:{}", p.display(), i + 1));
                        }
                    }
                }
            }
        }
        let mut found = Vec::new();
        walk(
            &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
            &mut found,
        );
        assert!(found.is_empty(), "{found:?}");
    }

    #[test]
    fn defaults() {
        let o = opts(&[]).unwrap();
        assert_eq!(o.common.repeat, 3);
        assert_eq!(o.common.min_time, Duration::from_millis(200));
        assert!(matches!(o.command, Command::Quick));
        let o = opts(&["cpu"]).unwrap();
        assert_eq!(o.common.min_time, Duration::from_millis(500));
    }

    #[test]
    fn cpu_flags() {
        let o = opts(&[
            "cpu",
            "--precision",
            "dp,sp,int8",
            "--isa",
            "avx512",
            "--threads",
            "1,2",
        ])
        .unwrap();
        let c: &crate::bench::cpu::options::CpuOptions = o.command.options_of().unwrap();
        assert_eq!(
            c.precisions,
            Some(vec![Precision::Fp64, Precision::Fp32, Precision::Int8])
        );
        assert_eq!(c.isas, Some(vec![Isa::Avx512]));
        assert_eq!(c.threads, Some(vec![1, 2]));
    }

    #[test]
    fn errors_name_the_flag() {
        let e = opts(&["cpu", "--precision", "fp8"]).unwrap_err().0;
        assert!(e.starts_with("--precision: unknown precision 'fp8'"), "{e}");
        assert!(e.contains("int8,int16"));
        let e = opts(&["cpu", "--isa", "mmx9"]).unwrap_err().0;
        assert!(
            e.starts_with("--isa: unknown instruction set 'mmx9'"),
            "{e}"
        );
        let e = opts(&["cpu", "--threads", "0"]).unwrap_err().0;
        assert!(e.starts_with("--threads:"), "{e}");
        assert!(opts(&["cpu", "--threads", "100000"]).is_err());
        assert!(opts(&["cpu", "--threads", "two"]).is_err());
        let e = opts(&["--repeat", "0"]).unwrap_err().0;
        assert!(e.starts_with("--repeat:"), "{e}");
        let e = opts(&["--min-time", "soon"]).unwrap_err().0;
        assert!(e.starts_with("--min-time:"), "{e}");
        let e = opts(&["--format", "xml"]).unwrap_err().0;
        assert!(e.contains("table,json,csv,markdown"), "{e}");
        let e = opts(&["cpu", "--sustain", "1s", "--interval", "2s"])
            .unwrap_err()
            .0;
        assert!(e.starts_with("--interval:"), "{e}");
        // `--interval` without `--sustain` is clap's `requires`: cmdline's line
        // (cmdline::tests::relations_are_one_line_naming_the_flag).
        let e = opts(&["--peak", "cpu"]).unwrap_err().0;
        assert!(e.starts_with("--peak:"), "{e}");
    }

    #[test]
    fn flags_that_would_do_nothing_are_refused() {
        for cmd in ["disk", "net", "gpu", "sysinfo"] {
            let e = opts(&[cmd, "--weak"]).unwrap_err().0;
            assert!(e.starts_with("--weak: "), "{cmd}: {e}");
        }
        let e = opts(&["disk", "--weak"]).unwrap_err().0;
        assert!(e.contains("own --file-size file"), "{e}");
        // Issue #33 item 13: --until-stable did nothing on these, silently.
        for a in [
            &["disk"][..],
            &["net"],
            &["gpu"],
            &["sysinfo"],
            &["serve"],
            &["report", "x.json"],
            &["compare", "a.json", "b.json"],
            &["fleet", "a.json"],
            &["reference"],
            &["cpu", "--sustain", "2s"],
            &["linalg", "--routine", "gemm,lu"],
            &["linalg"],
        ] {
            let mut v = a.to_vec();
            v.extend(["--until-stable", "2%"]);
            let e = opts(&v).unwrap_err().0;
            assert!(e.starts_with("--until-stable: "), "{a:?}: {e}");
            assert!(!e.contains('\n'), "{e}");
        }
        for ok in [
            &[][..],
            &["cpu"],
            &["memory"],
            &["linalg", "--routine", "roofline"],
            &["linalg", "--routine", "gemm,roofline"],
        ] {
            let mut v = ok.to_vec();
            v.extend(["--until-stable", "2%"]);
            assert!(opts(&v).is_ok(), "{ok:?}: {:?}", opts(&v).err());
        }
        for ok in [&["--weak"][..], &["cpu", "--weak"], &["memory", "--weak"]] {
            assert!(opts(ok).is_ok(), "{ok:?}");
        }
        for flag in [
            &["--repeat", "2"][..],
            &["--min-time", "1s"],
            &["--reference"],
            &["--output", "x"],
        ] {
            let mut a = vec!["sysinfo"];
            a.extend_from_slice(flag);
            let e = opts(&a).unwrap_err().0;
            assert!(
                e.starts_with(flag[0]) && e.contains("only --format and --peak"),
                "{e}"
            );
        }
        assert!(opts(&[
            "sysinfo",
            "--format",
            "json",
            "--quiet",
            "--peak",
            "memory=10GB/s"
        ])
        .is_ok());
    }
}
