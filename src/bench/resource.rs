//! What a resource is to the rest of the crate: the object-safe [`Resource`] (its name,
//! its subcommand, its quick-suite cases, its `--peak` keys), the planned run a
//! subcommand parses into ([`Run`], built from a resource's typed [`Plan`] by
//! [`Planned`]), the [`Case`]s a run measures and the [`Context`] they get.
//!
//! The resources import this file; it imports none of them (the registry, which names
//! every resource, is `bench/mod.rs`), so no file of a resource and the shared part of
//! `bench` import each other.

use super::common::CommonOptions;
/// What every case gets: the host and the common options (in `common`, which the
/// helpers taking it live beside).
pub(crate) use super::common::Context;
use super::peaks::{PeakKey, PeakKind};
use crate::report::model::BenchResult;
use serde::Serialize;
use std::any::Any;
use std::fmt::Debug;

/// The usage error (`util::usage`), re-exported for the resources' `plan` and options.
pub(crate) use crate::util::usage::UsageError;

/// One measurable case: one measurement, one step of the progress display.
pub(crate) trait Case: Send {
    /// Short description for progress output.
    fn label(&self) -> String;
    /// Runs the measurement to its complete results (each ok, skipped or failed), in
    /// the order they are reported; never empty.
    fn run(&self, ctx: &Context) -> Vec<BenchResult>;
    /// About how long the case runs, for the plan a long run prints first, `--dry-run`
    /// and the progress bar's estimate before any case has finished: by default
    /// [`default_estimate`]. Cases that run for durations of their own (`--time`,
    /// `--runtime`, `--sustain`) say so; cases that only report a reason say zero.
    fn estimate(&self, opts: &CommonOptions) -> std::time::Duration {
        default_estimate(opts)
    }
}

/// A warm-up and `--repeat` timed runs of at least `--min-time` each; with
/// `--until-stable`, its budget and the warm-up.
pub(crate) fn default_estimate(opts: &CommonOptions) -> std::time::Duration {
    match &opts.until_stable {
        Some(s) => s.budget + opts.min_time,
        None => opts.min_time * (opts.repeat + 1),
    }
}

/// One resource, as the registry (`bench::RESOURCES`) lists it: everything the top of
/// the crate asks of it. Object-safe; each resource is a unit struct implementing it
/// and [`Plan`].
pub(crate) trait Resource: Sync {
    /// The resource's name: its subcommand, its `--peak` keys' first part, `resource`
    /// in the results.
    fn name(&self) -> &'static str;
    /// One line for listings: the subcommand's about.
    fn about(&self) -> &'static str;
    /// Hidden from help and the quick suite (the `null` test resource).
    fn hidden(&self) -> bool {
        false
    }
    /// The subcommand: [`subcommand`] with the resource's clap `Args`.
    fn command(&self) -> clap::Command;
    /// Parses the subcommand's matches into a planned run: [`parse_with`] with the
    /// resource's one `options::parse` call.
    fn parse(&self, m: &clap::ArgMatches) -> Result<Box<dyn Run>, UsageError>;
    /// Cases for the quick suite (`peakbench` with no subcommand). Keep the resource's
    /// share of the suite's time budget.
    fn quick(&self, ctx: &Context) -> Vec<Box<dyn Case>>;
    /// The resource's `--peak` keys, for messages (`cpu, cpu.PRECISION, …`); empty when
    /// it reads none.
    fn peak_keys(&self) -> &'static str {
        ""
    }
    /// Reads a `--peak` key naming this resource (`key`, lower-case; `rest`: its parts
    /// after the resource's name, empty for the bare name): the key and what it
    /// measures, `Ok(None)` for a key it does not know, or why the key is wrong.
    fn peak_key(&self, key: &str, rest: &[&str]) -> Result<Option<(PeakKey, PeakKind)>, String> {
        let _ = (key, rest);
        Ok(None)
    }
    /// The common flags it refuses whatever its options ([`Plan::refuses`] says why):
    /// left out of its `--help` (issue #45: `disk --help` listed three it refuses).
    fn never_takes(&self) -> &'static [CommonFlag] {
        &[]
    }
    /// Other resources' names for its flags, for the refusal of an unknown flag
    /// (`disk --threads`: disk calls it `--jobs`).
    fn aliases(&self) -> &'static [Alias] {
        &[]
    }
    /// What the quick suite must say before it starts because of this resource's
    /// cases (disk: the file it writes into the current directory).
    fn quick_notice(&self) -> Option<String> {
        None
    }
}

/// Another resource's name for one of a resource's flags.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Alias {
    /// The flag as given (`--threads`).
    pub(crate) given: &'static str,
    /// The resource's own flag for it (`--jobs`).
    pub(crate) ours: &'static str,
    /// What it is there (`parallel jobs, each with its own file`).
    pub(crate) what: &'static str,
}

/// Another resource's name `given` for the flag `ours`, which is `what`.
pub(crate) const fn alias(given: &'static str, ours: &'static str, what: &'static str) -> Alias {
    Alias { given, ours, what }
}

/// The aliases of a resource whose workers are `--threads` (cpu, memory, linalg):
/// disk's `--jobs` and net's `--streams` name them there.
pub(crate) const THREADS_ALIASES: [Alias; 2] = [
    alias("--jobs", "--threads", "threads"),
    alias("--streams", "--threads", "threads"),
];

/// The alias of a resource whose timed runs last `--min-time` (cpu, memory): disk's
/// `--time` names it there.
pub(crate) const MIN_TIME_ALIAS: Alias = alias(
    "--time",
    "--min-time",
    "how long each timed run lasts at least",
);

/// What the reference tools need of a run's options beyond each typed result.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Hints<'a> {
    /// The directory the run measures, as given (disk `--dir`).
    pub(crate) dir: Option<&'a std::path::Path>,
    /// Whether the run measures against a remote peer (net `--server`).
    pub(crate) remote: bool,
}

/// What a subcommand that measures nothing does instead (`gpu --list`): it prints its
/// document in the common options' format and width to the writer.
pub(crate) type Action =
    Box<dyn FnOnce(&CommonOptions, &mut dyn std::io::Write) -> anyhow::Result<()> + Send>;

/// The common flags a resource may refuse (with its reason) rather than ignore.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CommonFlag {
    /// `--weak`.
    Weak,
    /// `--until-stable`.
    UntilStable,
    /// `--cpus`.
    Cpus,
}

impl CommonFlag {
    /// Every flag, for tests.
    #[cfg(test)]
    pub(crate) const ALL: [CommonFlag; 3] =
        [CommonFlag::Weak, CommonFlag::UntilStable, CommonFlag::Cpus];

    /// The flag's clap id (`CommonArgs`' field).
    pub(crate) fn id(self) -> &'static str {
        match self {
            CommonFlag::Weak => "weak",
            CommonFlag::UntilStable => "until_stable",
            CommonFlag::Cpus => "cpus",
        }
    }

    /// The flag as typed.
    pub(crate) fn flag(self) -> &'static str {
        match self {
            CommonFlag::Weak => "--weak",
            CommonFlag::UntilStable => "--until-stable",
            CommonFlag::Cpus => "--cpus",
        }
    }
}

/// Why `--cpus` is refused by a command that does not pin its threads. A resource
/// cannot see the registry (`bench/mod.rs` imports it), so this is a stand-in that the
/// top (`options::refusal`) writes out with the registry's list (`bench::cpus_only`).
pub(crate) const CPUS_ONLY: &str = "applies only to the commands that pin their threads";

/// A resource's subcommand, typed: its validated options in, its cases out, and which
/// common flags its options refuse.
pub(crate) trait Plan: Resource + 'static {
    /// The validated options of the subcommand (`bench::<resource>::options`),
    /// serialised into the report's `config` next to `"command": NAME`.
    type Options: Serialize + Debug + Clone + Send + Sync + 'static;
    /// Cases for the resource's own subcommand: called once before anything runs;
    /// returns the cases, or a [`UsageError`] naming the flag when the request cannot
    /// be satisfied on this host. Nothing has run yet, so refusing has no side effects.
    fn plan(&self, o: &Self::Options, ctx: &Context) -> Result<Vec<Box<dyn Case>>, UsageError>;
    /// Why `flag` would do nothing with these options (`None`: it applies). By default
    /// `--weak` and `--until-stable` apply and `--cpus` is refused ([`CPUS_ONLY`]).
    fn refuses(&self, o: &Self::Options, flag: CommonFlag) -> Option<&'static str> {
        let _ = o;
        (flag == CommonFlag::Cpus).then_some(CPUS_ONLY)
    }
    /// The thread counts asked for (`--threads`), checked against `--cpus`.
    fn threads<'a>(&self, o: &'a Self::Options) -> Option<&'a [usize]> {
        let _ = o;
        None
    }
    /// What these options do instead of measuring (`gpu --list`), run by the top;
    /// `None` (the default): they measure.
    fn action(&self, o: &Self::Options) -> Option<Action> {
        let _ = o;
        None
    }
    /// What the reference tools need of these options ([`Hints`]; none by default).
    fn hints<'a>(&self, o: &'a Self::Options) -> Hints<'a> {
        let _ = o;
        Hints::default()
    }
}

/// A resource's subcommand, parsed and validated: the object-safe face of
/// [`Planned`], which `options::Command` holds.
pub(crate) trait Run: Debug + Send + Sync {
    /// The resource's name.
    fn name(&self) -> &'static str;
    /// [`Plan::plan`].
    fn plan(&self, ctx: &Context) -> Result<Vec<Box<dyn Case>>, UsageError>;
    /// The options as the report's `config` holds them (without `command`).
    fn config(&self) -> serde_json::Result<serde_json::Value>;
    /// The typed options, for the one place that reads one resource's options
    /// (`Command::options_of`): `net --matrix`, which a cluster launch runs round by
    /// round instead of as cases (the documented exception; everything else asks a
    /// hook of [`Resource`] or [`Plan`]).
    fn options(&self) -> &dyn Any;
    /// [`Plan::refuses`].
    fn refuses(&self, flag: CommonFlag) -> Option<&'static str>;
    /// [`Plan::threads`].
    fn threads(&self) -> Option<&[usize]>;
    /// [`Plan::action`].
    fn action(&self) -> Option<Action>;
    /// Whether it measures: it has no [`Plan::action`].
    fn measures(&self) -> bool {
        self.action().is_none()
    }
    /// [`Plan::hints`].
    fn hints(&self) -> Hints<'_>;
    /// A copy.
    fn clone_run(&self) -> Box<dyn Run>;
}

/// A resource with its validated options: the one [`Run`] implementation.
pub(crate) struct Planned<P: Plan> {
    /// The resource.
    pub(crate) resource: &'static P,
    /// Its options.
    pub(crate) options: P::Options,
}

impl<P: Plan> Debug for Planned<P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Planned")
            .field("resource", &self.resource.name())
            .field("options", &self.options)
            .finish()
    }
}

impl<P: Plan> Run for Planned<P> {
    fn name(&self) -> &'static str {
        self.resource.name()
    }
    fn plan(&self, ctx: &Context) -> Result<Vec<Box<dyn Case>>, UsageError> {
        self.resource.plan(&self.options, ctx)
    }
    fn config(&self) -> serde_json::Result<serde_json::Value> {
        serde_json::to_value(&self.options)
    }
    fn options(&self) -> &dyn Any {
        &self.options
    }
    fn refuses(&self, flag: CommonFlag) -> Option<&'static str> {
        self.resource.refuses(&self.options, flag)
    }
    fn threads(&self) -> Option<&[usize]> {
        self.resource.threads(&self.options)
    }
    fn action(&self) -> Option<Action> {
        self.resource.action(&self.options)
    }
    fn hints(&self) -> Hints<'_> {
        self.resource.hints(&self.options)
    }
    fn clone_run(&self) -> Box<dyn Run> {
        Box::new(Planned {
            resource: self.resource,
            options: self.options.clone(),
        })
    }
}

/// A resource's subcommand from its clap arguments `A`: its name, about line and
/// visibility from the resource.
pub(crate) fn subcommand<A: clap::Args>(r: &dyn Resource) -> clap::Command {
    A::augment_args(clap::Command::new(r.name()))
        .about(r.about())
        .long_about(None)
        .hide(r.hidden())
}

/// Parses a resource's subcommand matches as its clap arguments `A`, validates them
/// with its `parse` into its options, and pairs them with the resource.
pub(crate) fn parse_with<A: clap::FromArgMatches, P: Plan>(
    resource: &'static P,
    m: &clap::ArgMatches,
    parse: impl FnOnce(&A) -> Result<P::Options, UsageError>,
) -> Result<Box<dyn Run>, UsageError> {
    let args = A::from_arg_matches(m)
        .map_err(|e| UsageError::new(resource.name(), e.to_string().trim().to_string()))?;
    Ok(Box::new(Planned {
        resource,
        options: parse(&args)?,
    }))
}
