//! Command-line definitions (clap), assembled here at the top: the options common to
//! every command (`bench::common::CommonArgs`) and one subcommand per registered
//! resource (`bench::RESOURCES`: each resource builds its own from its flags,
//! `bench/<resource>/options.rs`). The commands that measure nothing (sysinfo, serve,
//! report, compare, reference, fleet) are [`Cmd`], defined here.
//! Every flag is defined once, with its help, and typed where clap reads it: its
//! `value_parser` gives a bad value one clear line naming the flag and the accepted form
//! (`cmdline` prints it); `options.rs` checks what spans flags.

use crate::bench::common::CommonArgs;
use crate::bench::net::options::ServeOptions;
use crate::bench::peaks::PeakSetting;
use crate::bench::Resource;
use crate::util::units::ParseError;
use clap::parser::ValueSource;
use clap::{ArgMatches, Args, CommandFactory, FromArgMatches, Subcommand};
use std::path::PathBuf;

/// The top-level about line.
const ABOUT: &str =
    "How close does this machine come to its physical limit? Run with no subcommand for the quick suite.";
/// The top-level after-help.
const AFTER_HELP: &str = "Lists are comma-separated (--threads 1,2,4). Sizes take B/KiB/MiB/GiB or KB/MB/GB, durations ms/s/m/h.";

/// peakbench: how close does this machine come to its physical limit? The common
/// options, and one subcommand per registered resource (`bench::RESOURCES`) beside the
/// commands of [`Cmd`]; implements `clap::Parser` by hand, since the resources'
/// subcommands come from the registry.
#[derive(Debug)]
pub struct Cli {
    /// The common options, given at the top level or after the subcommand.
    pub(crate) common: CommonArgs,
    /// The subcommand's name, if one was given.
    pub(crate) name: Option<String>,
    /// What to run; none runs the quick suite.
    pub(crate) command: Option<Sub>,
}

/// The subcommand given.
// One value per process, read once: the size of its largest variant costs nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub(crate) enum Sub {
    /// A registered resource's subcommand, with its matches (the resource parses them).
    Resource(Chosen),
    /// A command that measures nothing.
    Cmd(Cmd),
}

/// A resource's subcommand and its matches.
pub(crate) struct Chosen {
    /// The resource.
    pub(crate) resource: &'static dyn Resource,
    /// Its subcommand's matches.
    pub(crate) matches: ArgMatches,
}

impl std::fmt::Debug for Chosen {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Chosen")
            .field("resource", &self.resource.name())
            .field("matches", &self.matches)
            .finish()
    }
}

/// `c` with the common options: `CommonArgs`' and `--peak`'s check, which reads the
/// registry's keys (`bench::parse_peak`, above `bench::common`).
fn common_args(c: clap::Command) -> clap::Command {
    CommonArgs::augment_args(c).mut_arg("peak", |a| a.value_parser(peak))
}

/// `--peak KEY=VALUE`, parsed where clap reads it, once: the typed key and value
/// (`options` puts them in the overrides as they are).
fn peak(t: &str) -> Result<PeakSetting, ParseError> {
    match crate::bench::parse_peak(t) {
        Ok((key, value)) => Ok(PeakSetting { key, value }),
        Err(e) => Err(ParseError(
            e.0.strip_prefix("--peak: ").unwrap_or(&e.0).to_string(),
        )),
    }
}

/// The order of the subcommands in help: sysinfo, the resources, then the others.
fn order() -> Vec<&'static str> {
    let mut v = vec!["sysinfo"];
    v.extend(crate::bench::RESOURCES.iter().map(|r| r.name()));
    v.extend([
        "serve",
        "report",
        "compare",
        "reference",
        "fleet",
        "baseline",
        "check",
        "history",
    ]);
    v
}

impl CommandFactory for Cli {
    fn command() -> clap::Command {
        let mut c = clap::Command::new("peakbench").version(env!("CARGO_PKG_VERSION"));
        c = common_args(c);
        for r in crate::bench::RESOURCES {
            c = c.subcommand(r.command());
        }
        // After the derived parts, which would set their own about.
        c = Cmd::augment_subcommands(c)
            .about(ABOUT)
            .long_about(None)
            .after_help(AFTER_HELP);
        // Commands added the derive way after the list keep their order behind it.
        for (i, name) in order().into_iter().enumerate() {
            c = c.mut_subcommand(name, |s| s.display_order(i));
        }
        // Each subcommand offers the common options it reads; the others are parsed
        // hidden, so that `options` refuses them naming why, not clap as unknown.
        let common = common_args(clap::Command::new("common"));
        let names: Vec<String> = c
            .get_subcommands()
            .map(|s| s.get_name().to_string())
            .collect();
        for name in names {
            let reads = reads(&name);
            let never = crate::bench::find(&name).map_or(&[][..], |r| r.never_takes());
            c = c.mut_subcommand(&name, |mut s| {
                for a in common.get_arguments() {
                    let id = a.get_id().as_str();
                    let offered = reads.contains(&id) && !never.iter().any(|f| f.id() == id);
                    // `history`'s own subcommands (show, import) take them too.
                    let global = offered && name == "history";
                    s = s.arg(a.clone().hide(!offered).global(global));
                }
                s
            });
        }
        c.subcommand_required(false)
    }

    fn command_for_update() -> clap::Command {
        Self::command()
    }
}

impl FromArgMatches for Cli {
    fn from_arg_matches(m: &ArgMatches) -> Result<Self, clap::Error> {
        let mut common = CommonArgs::from_arg_matches(m)?;
        if let Some((_, sub)) = m.subcommand() {
            overlay(&mut common, sub);
        }
        let name = m.subcommand_name().map(str::to_string);
        let command = match m.subcommand() {
            None => None,
            Some((name, sub)) => Some(match crate::bench::find(name) {
                Some(resource) => Sub::Resource(Chosen {
                    resource,
                    matches: sub.clone(),
                }),
                None => Sub::Cmd(Cmd::from_arg_matches(m)?),
            }),
        };
        Ok(Cli {
            common,
            name,
            command,
        })
    }

    fn update_from_arg_matches(&mut self, m: &ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(m)?;
        Ok(())
    }
}

impl clap::Parser for Cli {}

/// What a common option is about: how the results are shown and where they go, or how
/// a run measures. The quick suite (the top level) and the measuring subcommands offer
/// both; a command that measures nothing, what it reads ([`reads`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Group {
    /// How the results are shown and where they go.
    Output,
    /// How a run measures.
    Measure,
}

/// Defines [`COMMON`] and what reads `CommonArgs` field by field ([`overlay`],
/// [`given`]) from one list of `id: Group` (the id is the field's name, clap's id).
macro_rules! common_options {
    ($($id:ident: $group:ident,)*) => {
        /// Every common option (`CommonArgs`' ids, its fields) and its group, in help
        /// order: the one list a new common option is added to.
        pub(crate) const COMMON: &[(&str, Group)] = &[$((stringify!($id), Group::$group),)*];

        /// The common options given after the subcommand (`peakbench cpu --repeat 2`),
        /// over those given before it (`peakbench --repeat 2 cpu`); `--peak` keeps both.
        fn overlay(c: &mut CommonArgs, m: &ArgMatches) {
            $(if on_command_line(m, stringify!($id)) {
                Slot::overlay(&mut c.$id, m, stringify!($id));
            })*
        }

        /// The common options given (`CommonArgs`' ids), in [`COMMON`]'s order.
        pub(crate) fn given(c: &CommonArgs) -> Vec<&'static str> {
            let mut v = Vec::new();
            $(if Slot::is_given(&c.$id) {
                v.push(stringify!($id));
            })*
            v
        }
    };
}

common_options! {
    format: Output,
    output: Output,
    quiet: Output,
    html: Output,
    width: Output,
    prom_file: Output,
    repeat: Measure,
    min_time: Measure,
    weak: Measure,
    peak: Measure,
    reference: Measure,
    until_stable: Measure,
    stable_budget: Measure,
    cpus: Measure,
    dry_run: Measure,
    history: Measure,
    no_history: Measure,
    tag: Measure,
    retries: Measure,
}

/// The ids of the common options of `group`, in [`COMMON`]'s order.
pub(crate) fn ids(group: Group) -> Vec<&'static str> {
    COMMON
        .iter()
        .filter(|(_, g)| *g == group)
        .map(|(id, _)| *id)
        .collect()
}

/// The group of the common option `id`, if it is one.
pub(crate) fn group(id: &str) -> Option<Group> {
    COMMON.iter().find(|(i, _)| *i == id).map(|(_, g)| *g)
}

/// Whether `id` was given on the command line in `m`.
fn on_command_line(m: &ArgMatches, id: &str) -> bool {
    m.try_contains_id(id).unwrap_or(false) && m.value_source(id) == Some(ValueSource::CommandLine)
}

/// A `CommonArgs` field as [`overlay`] and [`given`] read it, by its type: a value
/// (`Option`) is replaced, a switch (`bool`) set, a repeatable flag (`Vec`) extended.
trait Slot {
    /// Takes the value of `id` given in `m`.
    fn overlay(&mut self, m: &ArgMatches, id: &str);
    /// Whether the option was given.
    fn is_given(&self) -> bool;
}

impl<T: Clone + Send + Sync + 'static> Slot for Option<T> {
    fn overlay(&mut self, m: &ArgMatches, id: &str) {
        if let Some(v) = m.get_one::<T>(id) {
            *self = Some(v.clone());
        }
    }
    fn is_given(&self) -> bool {
        self.is_some()
    }
}

impl Slot for bool {
    fn overlay(&mut self, _: &ArgMatches, _: &str) {
        *self = true;
    }
    fn is_given(&self) -> bool {
        *self
    }
}

impl<T: Clone + Send + Sync + 'static> Slot for Vec<T> {
    fn overlay(&mut self, m: &ArgMatches, id: &str) {
        self.extend(m.get_many::<T>(id).into_iter().flatten().cloned());
    }
    fn is_given(&self) -> bool {
        !self.is_empty()
    }
}

/// The common options subcommand `name` reads, which its help offers: every one for a
/// resource; for a command that measures nothing, what it reads (a new one reads the
/// output options until listed here). The others, given, are refused (`options`).
pub(crate) fn reads(name: &str) -> Vec<&'static str> {
    match name {
        "sysinfo" => vec!["format", "peak", "width", "quiet"],
        "serve" => vec![],
        "report" | "compare" | "fleet" => vec!["format", "html", "width", "quiet"],
        "history" => vec!["format", "html", "width", "quiet", "history"],
        // `check` and `baseline` read the history too (`--against history`, `--from-history`).
        "check" | "baseline" => vec![
            "format",
            "output",
            "quiet",
            "html",
            "width",
            "prom_file",
            "history",
        ],
        // `reference --run` is a CPU run with the reference tools: what that reads.
        "reference" => vec![
            "format",
            "output",
            "quiet",
            "width",
            "prom_file",
            "repeat",
            "min_time",
            "weak",
            "peak",
            "history",
            "no_history",
            "tag",
            "retries",
        ],
        _ if crate::bench::find(name).is_some() => COMMON.iter().map(|(id, _)| *id).collect(),
        _ => ids(Group::Output),
    }
}

/// The subcommands that are not resources.
#[derive(Debug, Subcommand)]
pub(crate) enum Cmd {
    /// Detected hardware, measured clocks and theoretical peaks
    #[command(
        after_help = "sysinfo measures no case: of the options above it takes --format, --peak, --width and --quiet; the others are refused (exit 2)."
    )]
    Sysinfo,
    /// Serve network tests to `peakbench net --server` clients
    Serve(ServeOptions),
    /// Render a results file: the table on stdout, or --html/--csv/--markdown files
    Report(crate::reporting::ReportArgs),
    /// Compare results files case by case: change of the mean with a 95 % CI (Welch)
    Compare(CompareArgs),
    /// Installed reference tools and their versions; --run compares CPU peaks with likwid-bench
    Reference(crate::reporting::ReferenceOptions),
    /// Merge many hosts' results files: per workload the fleet median, spread and outlier hosts
    Fleet(crate::reporting::FleetOptions),
    /// Write a baseline (per case the median and a tolerance) from known-good results files
    Baseline(crate::gate::options::BaselineArgs),
    /// Check a run against a baseline: pass, regressed, improved, inconclusive or missing per case; exit 1 on a regression
    Check(crate::gate::options::CheckArgs),
    /// The recorded runs: list them, show a case over time with its change points, import results files
    History(crate::history::command::HistoryOptions),
}

/// `peakbench compare` arguments.
#[derive(Debug, Args, Default)]
pub(crate) struct CompareArgs {
    /// Results files; the first is the baseline
    #[arg(value_name = "FILE.json", required = true, num_args = 2..)]
    pub(crate) files: Vec<PathBuf>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`COMMON`] lists every `CommonArgs` option once (so [`overlay`], [`given`] and
    /// [`reads`] see each), in the order of the fields.
    #[test]
    fn the_common_list_is_common_args() {
        let c = CommonArgs::augment_args(clap::Command::new("t"));
        let args: Vec<&str> = c.get_arguments().map(|a| a.get_id().as_str()).collect();
        let listed: Vec<&str> = COMMON.iter().map(|(id, _)| *id).collect();
        let mut a = args.clone();
        let mut l = listed.clone();
        a.sort_unstable();
        l.sort_unstable();
        assert_eq!(a, l);
        assert_eq!(
            ids(Group::Output).len() + ids(Group::Measure).len(),
            args.len()
        );
        assert_eq!(group("repeat"), Some(Group::Measure));
        assert_eq!(group("width"), Some(Group::Output));
        assert_eq!(group("threads"), None);
    }
}
