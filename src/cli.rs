//! Command-line definitions (clap), assembled here at the top: the options common to
//! every command (`bench::common::CommonArgs`) and one subcommand per registered
//! resource (`bench::RESOURCES`: each resource builds its own from its flags,
//! `bench/<resource>/options.rs`). The commands that measure nothing (sysinfo, serve,
//! report, compare, reference, fleet) are [`Cmd`], defined here.
//! Every flag is defined once, with its help. Values are taken as text and validated
//! (through `options.rs`), which gives each bad value one clear line naming the flag and
//! the accepted form.

use crate::bench::common::CommonArgs;
use crate::bench::net::options::ServeArgs;
use crate::bench::Resource;
use clap::{ArgMatches, Args, CommandFactory, FromArgMatches, Subcommand};

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
    /// Options common to every measuring command.
    pub(crate) common: CommonArgs,
    /// What to run; none runs the quick suite.
    pub(crate) command: Option<Sub>,
}

/// The subcommand given.
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

/// The order of the subcommands in help: sysinfo, the resources, then the others.
fn order() -> Vec<&'static str> {
    let mut v = vec!["sysinfo"];
    v.extend(crate::bench::RESOURCES.iter().map(|r| r.name()));
    v.extend(["serve", "report", "compare", "reference", "fleet"]);
    v
}

impl CommandFactory for Cli {
    fn command() -> clap::Command {
        let mut c = clap::Command::new("peakbench").version(env!("CARGO_PKG_VERSION"));
        c = CommonArgs::augment_args(c);
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
        c.subcommand_required(false)
    }

    fn command_for_update() -> clap::Command {
        Self::command()
    }
}

impl FromArgMatches for Cli {
    fn from_arg_matches(m: &ArgMatches) -> Result<Self, clap::Error> {
        let common = CommonArgs::from_arg_matches(m)?;
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
        Ok(Cli { common, command })
    }

    fn update_from_arg_matches(&mut self, m: &ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(m)?;
        Ok(())
    }
}

impl clap::Parser for Cli {}

/// The subcommands that are not resources.
#[derive(Debug, Subcommand)]
pub(crate) enum Cmd {
    /// Detected hardware, measured clocks and theoretical peaks
    #[command(
        after_help = "sysinfo measures no case: of the options above it takes --format, --peak, --width and --quiet; the others are refused (exit 2)."
    )]
    Sysinfo,
    /// Serve network tests to `peakbench net --server` clients
    Serve(ServeArgs),
    /// Render a results file: the table on stdout, or --html/--csv/--markdown files
    Report(ReportArgs),
    /// Compare results files case by case: change of the mean with a 95 % CI (Welch)
    Compare(CompareArgs),
    /// Installed reference tools and their versions; --run compares CPU peaks with likwid-bench
    Reference(ReferenceArgs),
    /// Merge many hosts' results files: per workload the fleet median, spread and outlier hosts
    Fleet(FleetArgs),
}

/// `peakbench report` arguments.
#[derive(Debug, Args, Default)]
pub(crate) struct ReportArgs {
    /// A results file written by a run (results/HOST-TIME.json)
    #[arg(value_name = "FILE.json")]
    pub(crate) file: String,
    /// Write the results as CSV to this file
    #[arg(long, value_name = "FILE", allow_hyphen_values = true)]
    pub(crate) csv: Option<String>,
    /// Write the results as a Markdown table to this file
    #[arg(long, value_name = "FILE", allow_hyphen_values = true)]
    pub(crate) markdown: Option<String>,
}

/// `peakbench compare` arguments.
#[derive(Debug, Args, Default)]
pub(crate) struct CompareArgs {
    /// Results files; the first is the baseline
    #[arg(value_name = "FILE.json", required = true, num_args = 2..)]
    pub(crate) files: Vec<String>,
}

/// `peakbench reference` arguments.
#[derive(Debug, Args, Default)]
pub(crate) struct ReferenceArgs {
    /// Run likwid-bench peakflops next to peakbench's matching CPU kernels and print both
    #[arg(long)]
    pub(crate) run: bool,
    /// Thread counts for --run [default: 1 and the core count]
    #[arg(long, value_name = "LIST", allow_hyphen_values = true)]
    pub(crate) threads: Option<String>,
}

/// `peakbench fleet` arguments.
#[derive(Debug, Args, Default)]
pub(crate) struct FleetArgs {
    /// Results files, one per host (or gathered MPI runs with hosts[])
    #[arg(value_name = "FILE.json", required = true, num_args = 1..)]
    pub(crate) files: Vec<String>,
    /// Outlier when the modified z-score |0.6745*(x-median)/MAD| exceeds this [default: 3.5]
    #[arg(long, value_name = "Z", allow_hyphen_values = true)]
    pub(crate) threshold: Option<String>,
    /// ... and the figure is at least this far from the median, e.g. 5% [default: 5%]
    #[arg(long, value_name = "PCT", allow_hyphen_values = true)]
    pub(crate) min_gap: Option<String>,
    /// Refuse files that ran the same case with differing settings (default: label them)
    #[arg(long)]
    pub(crate) strict: bool,
}
