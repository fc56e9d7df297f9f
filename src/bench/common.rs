//! The options common to every command: `--repeat`, `--min-time`,
//! `--format`, `--output`, `--quiet`, `--weak`, `--peak`, `--html`, `--reference` — their
//! clap definitions, their validation and the validated [`CommonOptions`] every case
//! reads through [`Context`]. Also the helpers the resources' options share (thread
//! lists, durations in seconds).
//!
//! They live here, below the top of the crate, so that the resources never import
//! upward (`bench` ↛ `options`/`cli`/`app`): `cli` flattens [`CommonArgs`] into the
//! command line and `options` calls [`parse`]. Not in `measure/`, because `--format`
//! names a `report` view and `measure` stays below `report`.
//!
//! Also what the resources' cases share when they run: the pinning and runner
//! configuration of a case ([`run_config`]), the clock check written into a result
//! ([`record_clock`]) and the free-RAM check of a plan ([`ram_refuses`]).

use super::flags::{Choices, List};
use super::peaks::PeakOverrides;
use crate::hw::clock::CaseClock;
use crate::hw::HostInfo;
use crate::measure::{RunConfig, Scaling, Stable};
use crate::report::model::{BenchResult, Note};
use crate::report::Format;
use crate::util::units::{parse_duration, ParseError};
use crate::util::usage::UsageError;
use clap::Args;
use serde::{Serialize, Serializer};
use std::path::PathBuf;
use std::time::Duration;

/// What every case gets: the detected host and the validated common options (each
/// resource's own options reach it through `resource::Plan::plan`).
pub(crate) struct Context<'a> {
    /// The machine, detected once per run.
    pub(crate) host: &'a HostInfo,
    /// The validated options common to every command (`--repeat`, `--min-time`, …).
    pub(crate) opts: &'a CommonOptions,
}

/// The common options: output options (how results are shown and where they go) and
/// measurement options (how a run measures). The top level (the quick suite) offers
/// them all; each subcommand offers those it reads (`cli::reads`). Each value is typed
/// where clap reads it (its `value_parser` below gives the one line a bad value gets);
/// [`parse`] fills in the defaults and checks what spans flags. A new one is a field
/// here, a line in `cli::COMMON` and, if the report or a case reads it, a field of
/// [`CommonOptions`].
#[derive(Debug, Args, Default)]
pub struct CommonArgs {
    /// Timed runs per case after the warm-up [default: 3]
    #[arg(long, value_name = "N", allow_hyphen_values = true, value_parser = repeat)]
    pub(crate) repeat: Option<u32>,
    /// Minimum duration of each timed run, e.g. 500ms [default: 500ms; quick suite 200ms]
    #[arg(long, value_name = "DUR", allow_hyphen_values = true, value_parser = parse_duration)]
    pub(crate) min_time: Option<Duration>,
    /// What goes to stdout (openmetrics: Prometheus's text format) [default: table]
    #[arg(
        long,
        value_name = "FORMAT",
        allow_hyphen_values = true,
        value_parser = Choices::new(format, format_names)
    )]
    pub(crate) format: Option<Format>,
    /// Directory where HOST-UTCTIME.json is kept [default: results]
    #[arg(long, value_name = "DIR", allow_hyphen_values = true, value_parser = output)]
    pub(crate) output: Option<PathBuf>,
    /// No progress bar
    #[arg(long)]
    pub(crate) quiet: bool,
    /// Weak scaling: every thread gets the full problem instead of a share
    #[arg(long)]
    pub(crate) weak: bool,
    /// Override a theoretical peak, e.g. cpu.fp64=3.2TFLOP/s or memory=68GB/s (repeatable)
    #[arg(long, value_name = "KEY=VALUE", allow_hyphen_values = true, value_parser = super::peaks::unassembled_peak)]
    pub(crate) peak: Vec<super::peaks::PeakSetting>,
    /// Also write the HTML report to this file (quick suite: next to the JSON by default)
    #[arg(long, value_name = "FILE", allow_hyphen_values = true, value_parser = html)]
    pub(crate) html: Option<PathBuf>,
    /// Run the installed reference tools on matching cases and record their figures
    #[arg(long)]
    pub(crate) reference: bool,
    /// Width of the terminal table in columns [default: COLUMNS, else the terminal's]
    #[arg(long, value_name = "COLS", allow_hyphen_values = true, value_parser = width)]
    pub(crate) width: Option<usize>,
    /// Repeat each case until the 95 % CI half-width is within PCT of the mean (e.g. 1%),
    /// dropping samples whose threads lost their cores (cpu, memory, linalg roofline)
    #[arg(long, value_name = "PCT", allow_hyphen_values = true, value_parser = until_stable)]
    pub(crate) until_stable: Option<f64>,
    /// Most time --until-stable spends on one case's samples [default: 30s]
    #[arg(long, value_name = "DUR", allow_hyphen_values = true, value_parser = stable_budget)]
    pub(crate) stable_budget: Option<Duration>,
    /// Logical CPUs to run on, e.g. 0,2-3 (cpu, memory, linalg, gpu): threads are pinned to these only [default: every CPU this process may use]
    #[arg(long, value_name = "LIST", allow_hyphen_values = true, value_parser = cpus)]
    pub(crate) cpus: Option<List<usize>>,
    /// Print the planned cases and their estimated length, then exit without measuring
    #[arg(long)]
    pub(crate) dry_run: bool,
    /// The run history database [default: $XDG_DATA_HOME/peakbench/history.db, else ~/.local/share/peakbench/history.db]
    #[arg(long, value_name = "PATH", allow_hyphen_values = true, value_parser = history)]
    pub(crate) history: Option<PathBuf>,
    /// Do not record this run in the history database
    #[arg(long)]
    pub(crate) no_history: bool,
    /// Measure a disturbed case again, at most N more times (0 to 10), keeping the first undisturbed attempt [default: 0]
    #[arg(long, value_name = "N", allow_hyphen_values = true, value_parser = retries)]
    pub(crate) retries: Option<u32>,
    /// Tag the run, e.g. note='after BIOS update' (repeatable): kept in its results file and the history; check --against tag:KEY=VALUE names it
    #[arg(long = "tag", value_name = "KEY=VALUE", allow_hyphen_values = true, value_parser = tag)]
    pub(crate) tag: Vec<(String, String)>,
    /// Also write the results as OpenMetrics to this *.prom file, atomically (node_exporter's textfile collector directory)
    #[arg(long, value_name = "FILE", allow_hyphen_values = true, value_parser = prom_file)]
    pub(crate) prom_file: Option<PathBuf>,
}

/// `--repeat`: a run count from 1 to 10000.
fn repeat(t: &str) -> Result<u32, ParseError> {
    match t.trim().parse::<u32>() {
        Ok(n) if (1..=10_000).contains(&n) => Ok(n),
        _ => Err(ParseError(format!(
            "'{t}' is not a run count; use a whole number from 1 to 10000"
        ))),
    }
}

/// `--format`: the formats that suit stdout, from the registry (`report::view`).
fn format(t: &str) -> Result<Format, ParseError> {
    Format::parse(t.trim()).ok_or_else(|| {
        ParseError(format!(
            "unknown format '{t}'; accepted: {}",
            format_names().join(",")
        ))
    })
}

/// The names `--format` accepts, in the registry's order.
fn format_names() -> Vec<&'static str> {
    Format::all()
        .iter()
        .filter(|f| f.stdout)
        .map(|f| f.name())
        .collect()
}

/// A path flag's value: not empty, else `empty path; {form}`.
fn path(t: &str, form: &str) -> Result<PathBuf, ParseError> {
    if t.trim().is_empty() {
        return Err(ParseError(format!("empty path; {form}")));
    }
    Ok(PathBuf::from(t))
}

/// `--output DIR`.
fn output(t: &str) -> Result<PathBuf, ParseError> {
    path(t, "give a directory")
}

/// `--html FILE`.
fn html(t: &str) -> Result<PathBuf, ParseError> {
    path(t, "give a file name like report.html")
}

/// `--history PATH`.
fn history(t: &str) -> Result<PathBuf, ParseError> {
    path(t, "give a database file like ~/peakbench-history.db")
}

/// Most retries `--retries` takes: each one measures the whole case again.
pub(crate) const MAX_RETRIES: u32 = 10;

/// `--retries N`: 0 to [`MAX_RETRIES`].
fn retries(t: &str) -> Result<u32, ParseError> {
    match t.trim().parse::<u32>() {
        Ok(n) if n <= MAX_RETRIES => Ok(n),
        _ => Err(ParseError(format!(
            "'{t}' is not a number of retries; use a whole number from 0 to {MAX_RETRIES}, e.g. 2"
        ))),
    }
}

/// Whether `--retries` is 0 (then left out of the report's `config`, as before).
fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// `--tag KEY=VALUE`: `util::tag`'s rule, the value not empty.
fn tag(t: &str) -> Result<(String, String), ParseError> {
    crate::util::tag::parse(t, false)
}

/// `--width`: columns from `util::term::MIN_WIDTH` to 10000.
fn width(t: &str) -> Result<usize, ParseError> {
    let min = crate::util::term::MIN_WIDTH;
    match t.trim().parse::<usize>() {
        Ok(n) if (min..=10_000).contains(&n) => Ok(n),
        _ => Err(ParseError(format!(
            "'{t}' is not a width; use a number of columns from {min} to 10000"
        ))),
    }
}

/// `--until-stable PCT`: a percentage above 0 and at most 50 (the number, in percent).
fn until_stable(t: &str) -> Result<f64, ParseError> {
    t.trim()
        .strip_suffix('%')
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|v| v.is_finite() && *v > 0.0 && *v <= 50.0)
        .ok_or_else(|| {
            ParseError(format!(
                "'{t}' is not a precision; give a percentage above 0 and at most 50, e.g. 1%"
            ))
        })
}

/// `--stable-budget DUR`: a duration above 0.
fn stable_budget(t: &str) -> Result<Duration, ParseError> {
    match parse_duration(t)? {
        d if d.is_zero() => Err(ParseError(format!(
            "'{t}' is no time; give a duration above 0, e.g. 30s"
        ))),
        d => Ok(d),
    }
}

/// `--cpus LIST`: [`cpus_among`] the the CPUs this process may use.
fn cpus(t: &str) -> Result<List<usize>, ParseError> {
    cpus_among(t, &crate::hw::cpu::allowed_cpus())
}

/// Serialises a duration as seconds (`f64`), for `*_s` option fields in the report.
pub(crate) fn secs<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(d.as_secs_f64())
}
/// Serialises an optional duration as seconds or `null`.
pub(crate) fn secs_opt<S: Serializer>(d: &Option<Duration>, s: S) -> Result<S::Ok, S::Error> {
    match d {
        Some(d) => s.serialize_some(&d.as_secs_f64()),
        None => s.serialize_none(),
    }
}

/// The validated common options of one invocation (serialised flat into the report's
/// `config`, next to `command`).
#[derive(Debug, Clone, Serialize)]
pub struct CommonOptions {
    /// `--repeat`.
    pub(crate) repeat: u32,
    /// `--min-time`.
    #[serde(serialize_with = "secs", rename = "min_time_s")]
    pub(crate) min_time: Duration,
    /// `--format`.
    pub(crate) format: Format,
    /// `--output`.
    pub(crate) output: PathBuf,
    /// `--quiet`.
    pub(crate) quiet: bool,
    /// `--weak` (weak) or default (strong).
    pub(crate) scaling: Scaling,
    /// `--peak`.
    pub(crate) peaks: PeakOverrides,
    /// `--html`: where to write the HTML report.
    pub(crate) html: Option<PathBuf>,
    /// `--reference`: run matching reference tools after each case.
    pub(crate) reference: bool,
    /// `--until-stable` and `--stable-budget`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) until_stable: Option<Stable>,
    /// `--width`, else `COLUMNS`, else the terminal's: the width of the terminal table
    /// (`None`: no limit). How it is shown, not what was measured: not in the report.
    #[serde(skip)]
    pub(crate) width: Option<usize>,
    /// `--cpus`: the logical CPUs the run is confined to (ascending), `None` = all the
    /// process may use. Recorded in the report's `config`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) cpus: Option<Vec<usize>>,
    /// `--dry-run`: print the plan, measure nothing (a dry run writes no report).
    #[serde(skip)]
    pub(crate) dry_run: bool,
    /// `--history PATH`: the history database (`None`: the default place). Where the
    /// run is recorded, not what it measured: not in the report.
    #[serde(skip)]
    pub(crate) history: Option<PathBuf>,
    /// `--no-history`: the run is not recorded.
    #[serde(skip)]
    pub(crate) no_history: bool,
    /// `--tag KEY=VALUE`: the operator's notes on the run (#44 item 9), in the report's
    /// `config` (so that `history import` of its file keeps them) and the history's
    /// tags; never a setting that changes a figure (`report::settings`).
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub(crate) tags: std::collections::BTreeMap<String, String>,
    /// `--retries N`: a disturbed case is measured again, at most N more times (#44
    /// item 5, `retries`); in the report's `config` when given, never a setting that
    /// changes a figure.
    #[serde(skip_serializing_if = "is_zero")]
    pub(crate) retries: u32,
    /// `--prom-file`: where a measuring run also writes its OpenMetrics (a `*.prom`
    /// file; `options` checks its directory once the command is known).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) prom_file: Option<PathBuf>,
}

/// The common options with their defaults filled in and the checks that span flags
/// (each value was checked where clap read it); `quick` (no subcommand) shortens the
/// default `--min-time`. `--html` is left `None`: whether it applies depends on the
/// command, so `options` sets it after the subcommand's own flags. `--peak` is left
/// empty too: clap yields its typed settings (the value parser `cli.rs` assembles with
/// the registry's keys), and `options` puts them in.
pub(crate) fn parse(c: &CommonArgs, quick: bool) -> Result<CommonOptions, UsageError> {
    let min_time = match c.min_time {
        None if quick => Duration::from_millis(200),
        None => Duration::from_millis(500),
        Some(d) => d,
    };
    if c.history.is_some() && c.no_history {
        return Err(UsageError::new(
            "--no-history",
            "--history PATH says where to record the run; give one of the two",
        ));
    }
    let mut tags = std::collections::BTreeMap::new();
    for (k, v) in &c.tag {
        if tags.insert(k.clone(), v.clone()).is_some() {
            return Err(UsageError::new(
                "--tag",
                format!("key '{k}' given twice; give each key once (--tag {k}=VALUE)"),
            ));
        }
    }
    if tags.len() > crate::util::tag::MAX_TAGS {
        return Err(UsageError::new(
            "--tag",
            format!(
                "{} tags; a run carries at most {}",
                tags.len(),
                crate::util::tag::MAX_TAGS
            ),
        ));
    }
    Ok(CommonOptions {
        repeat: c.repeat.unwrap_or(3),
        min_time,
        format: c.format.unwrap_or(crate::report::view::table::FORMAT),
        output: c.output.clone().unwrap_or_else(|| PathBuf::from("results")),
        quiet: c.quiet,
        scaling: if c.weak {
            Scaling::Weak
        } else {
            Scaling::Strong
        },
        peaks: PeakOverrides::default(),
        html: None,
        reference: c.reference,
        until_stable: stable(c)?,
        width: c.width.or_else(crate::util::term::stdout_width),
        cpus: c.cpus.clone(),
        dry_run: c.dry_run,
        history: c.history.clone(),
        no_history: c.no_history,
        tags,
        retries: c.retries.unwrap_or(0),
        prom_file: c.prom_file.clone(),
    })
}

/// `--prom-file`: a path ending in `.prom`, the only files node_exporter's textfile
/// collector reads.
fn prom_file(t: &str) -> Result<PathBuf, ParseError> {
    let form = "give a *.prom file, e.g. /var/lib/node_exporter/textfile_collector/peakbench.prom";
    let p = path(t, form)?;
    let name = p.file_name().map(|n| n.to_string_lossy().into_owned());
    match name {
        Some(n) if n.len() > ".prom".len() && n.ends_with(".prom") => Ok(p),
        _ => Err(ParseError(format!(
            "'{t}' does not end in .prom, and node_exporter's textfile collector reads only *.prom files; {form}"
        ))),
    }
}

/// `--cpus`: `0,2-3` → the CPUs listed, ascending. Single numbers and inclusive ranges,
/// comma-separated; each CPU once; every one among `allowed` (the CPUs this process may
/// run on, `sched_getaffinity`). Errors are one line naming what is wrong.
fn cpus_among(text: &str, allowed: &[usize]) -> Result<Vec<usize>, ParseError> {
    let err = ParseError;
    let form = "give logical CPU numbers and ranges like 0,2-3";
    let num = |s: &str| -> Result<usize, ParseError> {
        s.trim()
            .parse::<usize>()
            .map_err(|_| err(format!("'{}' is not a CPU number; {form}", s.trim())))
    };
    let mut cpus = Vec::new();
    for part in text.split(',') {
        let part = part.trim();
        if part.is_empty() {
            return Err(err(format!("empty entry in '{}'; {form}", text.trim())));
        }
        let (lo, hi) = match part.split_once('-') {
            Some((a, b)) => (num(a)?, num(b)?),
            None => (num(part)?, num(part)?),
        };
        if lo > hi {
            return Err(err(format!("range '{part}' runs backwards; {form}")));
        }
        for c in lo..=hi {
            if cpus.contains(&c) {
                return Err(err(format!(
                    "CPU {c} is listed twice in '{}'; list each CPU once",
                    text.trim()
                )));
            }
            if !allowed.contains(&c) {
                return Err(err(format!(
                    "CPU {c} is not one this process may run on ({}); choose among those",
                    cpu_list(allowed)
                )));
            }
            cpus.push(c);
        }
    }
    cpus.sort_unstable();
    Ok(cpus)
}

/// `[0, 1, 2, 5]` → `0-2,5`: the one formatter, in `hw` (the clock's kinds use it too).
pub(crate) use crate::hw::clock_kinds::cpu_list;

/// Confines this process to `cpus` (`--cpus`) before the host is detected, as
/// `taskset -c` would: every thread started after it (workers, BLAS pools, GPU driver
/// threads, reference tools) inherits the mask, so the host's topology, its measured
/// clock, the default thread counts, the pinning and the peaks (cores in use) all follow
/// the chosen CPUs.
pub(crate) fn confine_to(cpus: &[usize]) -> Result<(), String> {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: cpu_set_t is plain data; CPU_SET only writes inside it for numbers
        // below CPU_SETSIZE, which cpus_among guarantees (they were in the affinity mask).
        unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            for &c in cpus {
                libc::CPU_SET(c, &mut set);
            }
            if libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) != 0 {
                return Err(format!(
                    "--cpus {}: sched_setaffinity failed: {}",
                    cpu_list(cpus),
                    std::io::Error::last_os_error()
                ));
            }
        }
        Ok(())
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = cpus;
        Err("--cpus needs Linux (sched_setaffinity)".into())
    }
}

/// `--until-stable PCT` and `--stable-budget DUR` (only with it; 30 s by default).
///
/// The relation is checked here, not by clap's `requires`: the common options are read
/// at the top and again in each subcommand and merged after clap (`cli::overlay`), so
/// `--until-stable 1% cpu --stable-budget 5s` would fail a `requires` in the `cpu`
/// subcommand; and the line names the form to add (`e.g. --until-stable 1%`), where
/// clap's would be `cmdline`'s generic `add it or drop --stable-budget`.
fn stable(c: &CommonArgs) -> Result<Option<Stable>, UsageError> {
    let Some(pct) = c.until_stable else {
        if c.stable_budget.is_some() {
            return Err(UsageError::new(
                "--stable-budget",
                "only applies with --until-stable PCT; add it, e.g. --until-stable 1%",
            ));
        }
        return Ok(None);
    };
    Ok(Some(Stable {
        target: pct / 100.0,
        budget: c.stable_budget.unwrap_or(Duration::from_secs(30)),
    }))
}

/// Default thread counts: 1, 2, 4, … up to the core count, plus the core count.
pub(crate) fn default_threads(cores: usize) -> Vec<usize> {
    let mut v = Vec::new();
    let mut t = 1;
    while t < cores {
        v.push(t);
        t *= 2;
    }
    v.push(cores.max(1));
    v
}

/// The logical CPUs to pin `threads` threads to: the first of the host's pin order, or
/// none, with a warning in `notes`, when there are more threads than logical CPUs.
pub(crate) fn pin_cpus(host: &HostInfo, threads: usize, notes: &mut Vec<Note>) -> Vec<usize> {
    let logical = host.cpu.pin_order.len();
    if threads <= logical {
        host.cpu.pin_order[..threads].to_vec()
    } else {
        notes.push(Note::warning(format!(
            "oversubscribed: {threads} threads on {logical} logical CPUs, not pinned"
        )));
        Vec::new()
    }
}

/// Threads, pinning ([`pin_cpus`]) and the runner configuration for a case, from the
/// common options (`--repeat`, `--min-time`, `--weak`, `--until-stable`).
pub(crate) fn run_config(ctx: &Context, threads: usize, notes: &mut Vec<Note>) -> RunConfig {
    let cpus = pin_cpus(ctx.host, threads, notes);
    RunConfig {
        repeat: ctx.opts.repeat,
        min_time: ctx.opts.min_time,
        threads,
        cpus,
        stable: ctx.opts.until_stable,
    }
}

/// Writes a case's clock check (`hw::clock::case_clock`) into `r`: its notes, in order,
/// each worded by `text` (the identity, or a rewording naming the chain), then the
/// clock measured (`clock_hz`) and the sustained clock (`sustained_hz`), which it
/// returns: the clock the peak uses.
pub(crate) fn record_clock(
    r: &mut BenchResult,
    seen: CaseClock,
    text: impl Fn(String) -> String,
) -> Option<f64> {
    for (warn, t) in seen.notes {
        let t = text(t);
        r.notes.push(if warn {
            Note::warning(t)
        } else {
            Note::info(t)
        });
    }
    r.clock_hz = seen.measured;
    r.sustained_hz = seen.sustained;
    seen.sustained
}

/// Share of MemAvailable a run may use (memory working sets, linalg matrices, the
/// buffers of a software GPU adapter); beyond it the run is refused before it starts
/// (an OOM kill measures nothing).
pub(crate) const RAM_FRACTION: f64 = 0.85;

/// Whether `need` bytes exceed [`RAM_FRACTION`] of `available` (MemAvailable; 0 when
/// unknown: never).
pub(crate) fn ram_refuses(need: u64, available: u64) -> bool {
    available > 0 && need as f64 > available as f64 * RAM_FRACTION
}

/// The bytes a run may use out of `available` (MemAvailable): [`RAM_FRACTION`] of it,
/// for messages.
pub(crate) fn ram_room(available: u64) -> u64 {
    (available as f64 * RAM_FRACTION) as u64
}

/// Parses `argv` (flags only, no program name) as the clap arguments `A`, for tests of a
/// resource's options and plan without the whole command line.
#[cfg(test)]
pub(crate) fn args_from<A: clap::Args + clap::FromArgMatches>(argv: &[&str]) -> A {
    let cmd = A::augment_args(clap::Command::new("test"));
    let m = cmd
        .try_get_matches_from(std::iter::once("test").chain(argv.iter().copied()))
        .unwrap();
    A::from_arg_matches(&m).unwrap()
}

#[cfg(test)]
mod cpus_tests {
    use super::*;

    #[test]
    fn cpu_lists_parse_ranges_and_refuse_what_is_not_allowed() {
        let allowed = [0, 1, 2, 3, 6];
        assert_eq!(cpus_among("0,2-3", &allowed).unwrap(), [0, 2, 3]);
        assert_eq!(cpus_among(" 6 , 1 ", &allowed).unwrap(), [1, 6]);
        for (bad, why) in [
            ("4", "CPU 4 is not one this process may run on (0-3,6)"),
            ("3-1", "runs backwards"),
            ("1,0-2", "CPU 1 is listed twice"),
            ("a", "'a' is not a CPU number"),
            ("", "empty entry"),
            ("0,,1", "empty entry"),
        ] {
            let e = cpus_among(bad, &allowed).unwrap_err().0;
            assert!(e.contains(why), "{bad}: {e}");
        }
        assert_eq!(cpu_list(&[5, 0, 1, 2, 7, 8]), "0-2,5,7-8");
        // Where clap reads it, the one line naming the flag.
        let e = crate::bench::flags::try_args::<CommonArgs>(&["--cpus", "a"]).unwrap_err();
        assert!(e.0.starts_with("--cpus: 'a' is not a CPU number"), "{e}");
    }
}
