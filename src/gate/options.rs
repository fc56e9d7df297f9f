//! `peakbench baseline` and `peakbench check`: the flags clap reads ([`BaselineArgs`],
//! [`CheckArgs`]; `cli.rs` puts them under their subcommands) and the options they give
//! ([`BaselineOptions`], [`CheckOptions`]). Each value is checked where clap reads it:
//! its `value_parser` below gives a bad one the line `--flag: what is wrong; the
//! accepted form`, and `--runs`, `--host`, `--command`, `--across-changes` require
//! `--from-history` in clap. What is derived from several flags (the source of the
//! runs, the baseline file, the tolerances by resource, the reference a run is checked
//! against) is built by [`parse_baseline`] and [`parse_check`], with the checks across
//! flags whose one line names the accepted forms: clap's `conflicts_with`/`requires`
//! would give `cmdline`'s generic relation line instead (`--x: cannot be combined with
//! --y; use one of them`), and cannot see a flag's value (`--runs` with `--against
//! run:…`) nor the common `--output`.

use super::baseline::{parse_tolerance, resource_names, Tolerance};
use crate::report::model::ResourceName;
use crate::util::units::ParseError;
use crate::util::usage::UsageError;
use clap::Args;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// `peakbench baseline`: its flags, each value checked where clap reads it
/// ([`parse_baseline`] turns them into [`BaselineOptions`]).
#[derive(Debug, Clone, Args)]
pub(crate) struct BaselineArgs {
    /// Results files of known-good runs: one run, or one per host of a fleet (median ± 3.5 robust sd)
    #[arg(long = "from", value_name = "FILE.json", num_args = 1.., value_parser = file)]
    pub(crate) from_files: Vec<PathBuf>,
    /// Take it from the history instead: the last --runs runs of --host (median ± 3.5 robust sd)
    #[arg(long)]
    pub(crate) from_history: bool,
    /// With --from-history: how many of each host's latest runs [default: 5]
    #[arg(long, value_name = "N", value_parser = runs, requires = "from_history")]
    pub(crate) runs: Option<usize>,
    /// With --from-history: the hosts (hostnames), e.g. node1,node2; several make a fleet baseline [default: this host]
    #[arg(long, value_name = "HOST", value_delimiter = ',', value_parser = host, requires = "from_history")]
    pub(crate) host: Vec<String>,
    /// With --from-history: the command whose runs to take (quick, cpu, memory, …) [default: that of the latest run]
    #[arg(long = "command", value_name = "COMMAND", allow_hyphen_values = true, value_parser = run_command, requires = "from_history")]
    pub(crate) run_command: Option<String>,
    /// With --from-history: take the runs across change points too [default: only the runs since the latest change point the runs span]
    #[arg(long, requires = "from_history")]
    pub(crate) across_changes: bool,
    /// Take disturbed results too (a shared machine); the baseline then says so (shared = true)
    #[arg(long)]
    pub(crate) allow_disturbed: bool,
    /// Write the baseline to this file (atomically) [default: stdout]; --output FILE also does
    #[arg(short = 'o', value_name = "FILE", allow_hyphen_values = true, value_parser = file)]
    pub(crate) o: Option<PathBuf>,
    /// Tolerance for every case, or per resource: 5%, or disk=20%,net=20% [default: cpu, linalg 5%; memory, gpu 10%; disk, net 20%]
    #[arg(long, value_name = "[RESOURCE=]PCT", allow_hyphen_values = true, value_parser = tolerances)]
    pub(crate) tolerance: Vec<Tolerances>,
}

/// `peakbench baseline`'s options, derived from its flags by [`parse_baseline`] (as
/// the report's `config` shows them).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct BaselineOptions {
    /// `--from` or `--from-history`: the known-good runs.
    pub(crate) from: Source,
    /// Where the baseline goes, `-o` or `--output` (`None`: stdout).
    pub(crate) out: Option<PathBuf>,
    /// `--tolerance PCT`: every resource's tolerance.
    pub(crate) all: Option<Tolerance>,
    /// `--tolerance RESOURCE=PCT`: per resource (over `all`).
    pub(crate) per_resource: BTreeMap<String, Tolerance>,
    /// `--allow-disturbed`: take disturbed results too.
    #[serde(skip)]
    pub(crate) allow_disturbed: bool,
}

/// `peakbench check`: its flags, each value checked where clap reads it
/// ([`parse_check`] turns them into [`CheckOptions`]).
#[derive(Debug, Clone, Args)]
pub(crate) struct CheckArgs {
    /// The baseline file (written by `peakbench baseline`, see docs/baseline.md)
    #[arg(long, value_name = "FILE", allow_hyphen_values = true, value_parser = file)]
    pub(crate) baseline: Option<PathBuf>,
    /// Compare with the history instead of a baseline file: history (the last --runs runs that did not fail the gate), run:ID,… (fixed runs), or tag:KEY[=VALUE] (the runs tagged so)
    #[arg(long, value_name = "SOURCE", value_parser = against)]
    pub(crate) against: Option<Against>,
    /// With --against history: how many of the host's latest runs make the reference [default: 5]; with --against tag:…, the newest N tagged runs [default: all, at most 100]
    #[arg(long, value_name = "N", value_parser = runs)]
    pub(crate) runs: Option<usize>,
    /// The results file to check [default: this host's latest run in the history, else results/HOST-latest.json in --output DIR]
    #[arg(value_name = "RESULTS.json", value_parser = file)]
    pub(crate) results: Option<PathBuf>,
    /// Also write a JUnit XML report (one testcase per case) to this file
    #[arg(long, value_name = "FILE", allow_hyphen_values = true, value_parser = file)]
    pub(crate) junit: Option<PathBuf>,
    /// Fail (exit 1) on inconclusive cases too, not only on regressed and missing ones [default: exit 3 when a case is inconclusive]
    #[arg(long)]
    pub(crate) strict: bool,
    /// Pass (exit 0) with inconclusive cases (disturbed, too few samples) [default: exit 3]
    #[arg(long)]
    pub(crate) allow_inconclusive: bool,
    /// With --against history: accept the checked run as the start of the reference (a regression stays failed until accepted)
    #[arg(long)]
    pub(crate) accept: bool,
}

/// `peakbench check`'s options, derived from its flags by [`parse_check`] (as the
/// report's `config` shows them).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct CheckOptions {
    /// `--baseline FILE`, or `--against …` (with its `--runs`).
    pub(crate) reference: Reference,
    /// RESULTS.json: the results file to check (`None`: the host's latest run).
    pub(crate) results: Option<PathBuf>,
    /// `--junit FILE`.
    pub(crate) junit: Option<PathBuf>,
    /// `--strict`: inconclusive cases fail.
    pub(crate) strict: bool,
    /// `--allow-inconclusive`: inconclusive cases pass.
    pub(crate) allow_inconclusive: bool,
    /// `--accept`: accept the checked run as the start of the reference.
    pub(crate) accept: bool,
}

/// How many runs of a host `--runs` takes when not given.
pub(crate) const DEFAULT_RUNS: usize = 5;

/// Most runs `--runs` takes (a reference of a year of nightly runs).
const MAX_RUNS: usize = 1000;

/// `--runs N`: a count of runs, 1 to [`MAX_RUNS`].
fn runs(s: &str) -> Result<usize, ParseError> {
    match s.trim().parse::<usize>() {
        Ok(n) if (1..=MAX_RUNS).contains(&n) => Ok(n),
        _ => Err(ParseError(format!(
            "'{s}' is not a number of runs; use a whole number from 1 to {MAX_RUNS}, e.g. 5"
        ))),
    }
}

/// What `check --against` compares with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Against {
    /// The history database's last runs of the host that did not fail the gate.
    History,
    /// Fixed runs of the history, by id (`run:12,13`): a reference that never moves.
    Runs(Vec<i64>),
    /// The runs of the history carrying a tag (`tag:KEY`, any value, or
    /// `tag:KEY=VALUE`): a named reference that moves only when a person tags runs.
    Tag(TagRef),
}

/// A named reference, `--against tag:KEY[=VALUE]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct TagRef {
    /// The tag's key.
    pub(crate) key: String,
    /// Its value (`None`: any value).
    pub(crate) value: Option<String>,
}

impl TagRef {
    /// Whether a run's tags carry this one.
    pub(crate) fn matches(&self, tags: &BTreeMap<String, String>) -> bool {
        tags.get(&self.key)
            .is_some_and(|v| self.value.as_ref().is_none_or(|want| want == v))
    }
}

impl std::fmt::Display for TagRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.value {
            Some(v) => write!(f, "{}={v}", self.key),
            None => f.write_str(&self.key),
        }
    }
}

/// Most runs `--against run:…` names.
pub(crate) const MAX_FIXED_RUNS: usize = 100;

/// `--against SOURCE`: `history`, `run:ID[,ID…]` or `tag:KEY[=VALUE]`.
fn against(s: &str) -> Result<Against, ParseError> {
    let t = s.trim();
    if t == "history" {
        return Ok(Against::History);
    }
    if let Some(tag) = t.strip_prefix("tag:") {
        let form = "use tag:KEY or tag:KEY=VALUE, as `peakbench history tag` or a run's --tag set it (e.g. tag:ref=bios-2.1)";
        let shown = crate::util::sanitize::line_max(s, 60);
        return match tag.split_once('=') {
            Some(_) => crate::util::tag::parse(tag, false)
                .map(|(key, value)| {
                    Against::Tag(TagRef {
                        key,
                        value: Some(value),
                    })
                })
                .map_err(|_| ParseError(format!("'{shown}' does not name a tag; {form}"))),
            None if crate::util::tag::key_ok(tag.trim()) => Ok(Against::Tag(TagRef {
                key: tag.trim().to_string(),
                value: None,
            })),
            None => Err(ParseError(format!("'{shown}' does not name a tag; {form}"))),
        };
    }
    if let Some(list) = t.strip_prefix("run:") {
        let ids: Result<Vec<i64>, _> = list.split(',').map(|x| x.trim().parse::<i64>()).collect();
        return match ids {
            Ok(ids) if !ids.is_empty() && ids.len() <= MAX_FIXED_RUNS && ids.iter().all(|i| *i > 0) => {
                let mut v = ids;
                v.sort_unstable();
                v.dedup();
                Ok(Against::Runs(v))
            }
            _ => Err(ParseError(format!(
                "'{s}' does not name runs of the history; use run:ID or run:ID,ID,… (1 to {MAX_FIXED_RUNS} ids, as `peakbench history` lists them)"
            ))),
        };
    }
    Err(ParseError(format!(
        "'{s}' is not a reference to check against; use --against history, --against run:ID,…, --against tag:KEY[=VALUE] (or --baseline FILE)"
    )))
}

/// A file flag's value (`--from`, `-o`, `--baseline`, `--junit`, RESULTS.json): not
/// empty.
fn file(s: &str) -> Result<PathBuf, ParseError> {
    if s.trim().is_empty() {
        return Err(ParseError("empty path; give a file name".into()));
    }
    Ok(PathBuf::from(s))
}

/// One `--host` name (of a comma-separated list), trimmed: not empty.
fn host(s: &str) -> Result<String, ParseError> {
    match s.trim() {
        "" => Err(ParseError(
            "empty host name; give hostnames like node1,node2".into(),
        )),
        h => Ok(h.to_string()),
    }
}

/// `--command COMMAND`, trimmed: not empty.
fn run_command(s: &str) -> Result<String, ParseError> {
    match s.trim() {
        "" => Err(ParseError(
            "empty; give a command like quick or cpu, or drop the flag".into(),
        )),
        c => Ok(c.to_string()),
    }
}

/// One `--tolerance` value: its comma-separated items, each `PCT` (every resource) or
/// `RESOURCE=PCT`, in the order given.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Tolerances(pub(crate) Vec<(Option<String>, Tolerance)>);

/// `--tolerance [RESOURCE=]PCT,…`: the resources from the registry of report
/// resources, each tolerance a percentage ([`tolerance_pct`]).
fn tolerances(s: &str) -> Result<Tolerances, ParseError> {
    let mut v = Vec::new();
    for item in s.split(',').map(str::trim) {
        match item.split_once('=') {
            Some((res, pct)) => {
                let res = res.trim();
                if ResourceName::parse(res).is_none() {
                    return Err(ParseError(format!(
                        "unknown resource '{res}'; one of {} (e.g. disk=20%)",
                        resource_names()
                    )));
                }
                let t = tolerance_pct(pct.trim()).map_err(ParseError)?;
                v.push((Some(res.to_string()), t));
            }
            None => v.push((None, tolerance_pct(item).map_err(ParseError)?)),
        }
    }
    Ok(Tolerances(v))
}

/// Where `peakbench baseline` takes its runs from.
#[derive(Debug, Clone, Serialize)]
pub(crate) enum Source {
    /// `--from FILE…`: results files.
    Files(Vec<PathBuf>),
    /// `--from-history`: the history's latest runs.
    History(HistoryPick),
}

/// Which runs of the history `--from-history` takes.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct HistoryPick {
    /// `--runs`: the latest N runs of each host.
    pub(crate) runs: usize,
    /// `--host`: the hosts (empty: this host).
    pub(crate) hosts: Vec<String>,
    /// `--command`: the command (`None`: that of the latest run).
    pub(crate) command: Option<String>,
    /// `--across-changes`: keep the runs before the latest change point they span.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub(crate) across_changes: bool,
}

/// What `check` compares the run with.
#[derive(Debug, Clone, Serialize)]
pub(crate) enum Reference {
    /// `--baseline FILE`.
    Baseline(PathBuf),
    /// `--against history --runs N`: the host's last N runs in the history that did
    /// not fail the gate.
    History(usize),
    /// `--against run:ID,…`: fixed runs of the history.
    Runs(Vec<i64>),
    /// `--against tag:KEY[=VALUE] [--runs N]`: the host's runs carrying the tag (the
    /// newest N, else all up to [`MAX_FIXED_RUNS`]).
    Tag(TagRef, Option<usize>),
}

impl Reference {
    /// How many runs of the history the reference takes (`--runs`).
    pub(crate) fn runs(&self) -> usize {
        match self {
            Reference::History(n) => *n,
            Reference::Runs(ids) => ids.len(),
            Reference::Tag(_, n) => n.unwrap_or(MAX_FIXED_RUNS),
            Reference::Baseline(_) => DEFAULT_RUNS,
        }
    }
}

/// `peakbench baseline`'s options once the flags are read: the checks that span flags
/// and what they give. `output` is the common `--output` (which for this command names
/// the baseline file, like `-o`).
pub(crate) fn parse_baseline(
    a: &BaselineArgs,
    output: Option<&Path>,
) -> Result<BaselineOptions, UsageError> {
    let out = match (&a.o, output) {
        (Some(_), Some(_)) => {
            return Err(UsageError::new(
                "-o",
                "given with --output; name the baseline file once (-o FILE or --output FILE)",
            ))
        }
        (o, output) => o.clone().or_else(|| output.map(Path::to_path_buf)),
    };
    let from = match (a.from_files.is_empty(), a.from_history) {
        (false, true) => {
            return Err(UsageError::new(
                "--from-history",
                "given with --from; take the baseline from one: --from FILE.json… or --from-history",
            ))
        }
        (true, false) => {
            return Err(UsageError::new(
                "--from",
                "missing; give --from FILE.json… (results files) or --from-history (the history's latest runs)",
            ))
        }
        // `--runs`, `--host`, `--command` and `--across-changes` require
        // `--from-history` (clap checks it where it reads them).
        (false, false) => Source::Files(a.from_files.clone()),
        (true, true) => {
            let mut hosts: Vec<String> = Vec::new();
            for h in &a.host {
                if !hosts.contains(h) {
                    hosts.push(h.clone());
                }
            }
            Source::History(HistoryPick {
                runs: a.runs.unwrap_or(DEFAULT_RUNS),
                hosts,
                command: a.run_command.clone(),
                across_changes: a.across_changes,
            })
        }
    };
    let mut all = None;
    let mut per_resource = BTreeMap::new();
    for (res, t) in a.tolerance.iter().flat_map(|t| &t.0) {
        match res {
            Some(r) => {
                per_resource.insert(r.clone(), *t);
            }
            None => all = Some(*t),
        }
    }
    Ok(BaselineOptions {
        from,
        out,
        all,
        per_resource,
        allow_disturbed: a.allow_disturbed,
    })
}

/// A `--tolerance` value: a relative one (the flag sets defaults per resource, whose
/// cases have different units, so an absolute figure would fit none of them).
fn tolerance_pct(s: &str) -> Result<Tolerance, String> {
    if !s.ends_with('%') {
        return Err(format!(
            "'{s}' is not a percentage; use a relative tolerance like 5% (absolute ones go per case in the baseline file)"
        ));
    }
    parse_tolerance(s)
}

/// `peakbench check`'s options once the flags are read: `--baseline` or `--against`
/// (and `--runs` only with `--against history` or `tag:…`).
///
/// These relations stay here, not in clap: `--runs` with `--against run:…` depends on
/// `--against`'s value, which clap's relations cannot test, and each line says what to
/// do instead (`use --against history instead of --baseline`), where clap's would be
/// `cmdline`'s generic relation line (`--runs: only applies with --against SOURCE; add
/// it or drop --runs`). The golden lines hold these words.
pub(crate) fn parse_check(a: &CheckArgs) -> Result<CheckOptions, UsageError> {
    if a.strict && a.allow_inconclusive {
        return Err(UsageError::new(
            "--allow-inconclusive",
            "given with --strict; choose what an inconclusive case does: --strict fails it, --allow-inconclusive passes it (default: exit 3)",
        ));
    }
    if a.accept && a.against != Some(Against::History) {
        return Err(UsageError::new(
            "--accept",
            "applies to --against history (a baseline file is accepted by writing a new one: peakbench baseline --from …)",
        ));
    }
    if a.accept && a.junit.is_some() {
        return Err(UsageError::new(
            "--accept",
            "accepts a run and checks nothing; drop --junit",
        ));
    }
    let reference = match (&a.baseline, a.against.clone()) {
        (Some(_), Some(_)) => {
            return Err(UsageError::new(
                "--against",
                "given with --baseline; compare with one: --baseline FILE or --against history",
            ))
        }
        (None, None) => return Err(UsageError::new(
            "--baseline",
            "missing; give --baseline FILE (written by `peakbench baseline`) or --against history",
        )),
        (Some(b), None) => {
            if a.runs.is_some() {
                return Err(UsageError::new(
                    "--runs",
                    "applies to --against history; drop it, or use --against history instead of --baseline",
                ));
            }
            Reference::Baseline(b.clone())
        }
        (None, Some(Against::History)) => Reference::History(a.runs.unwrap_or(DEFAULT_RUNS)),
        (None, Some(Against::Runs(ids))) => {
            if a.runs.is_some() {
                return Err(UsageError::new(
                    "--runs",
                    "applies to --against history; --against run:ID,… names its runs",
                ));
            }
            Reference::Runs(ids)
        }
        (None, Some(Against::Tag(t))) => Reference::Tag(t, a.runs),
    };
    Ok(CheckOptions {
        reference,
        results: a.results.clone(),
        junit: a.junit.clone(),
        strict: a.strict,
        allow_inconclusive: a.allow_inconclusive,
        accept: a.accept,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::FromArgMatches;

    /// `args` read by clap as `T`'s flags (a bad value: the line `cmdline` prints).
    fn read<T: Args + FromArgMatches>(args: &[&str]) -> Result<T, UsageError> {
        let cmd = T::augment_args(clap::Command::new("t"));
        let m = cmd
            .try_get_matches_from(std::iter::once("t").chain(args.iter().copied()))
            .map_err(|e| UsageError::from_clap(&e).unwrap_or_else(|| panic!("{e}")))?;
        Ok(T::from_arg_matches(&m).unwrap())
    }

    fn baseline(args: &[&str], output: Option<&str>) -> Result<BaselineOptions, UsageError> {
        parse_baseline(&read::<BaselineArgs>(args)?, output.map(Path::new))
    }

    fn check(args: &[&str]) -> Result<CheckOptions, UsageError> {
        parse_check(&read::<CheckArgs>(args)?)
    }

    #[test]
    fn tolerances_and_output() {
        let o = baseline(
            &[
                "--from",
                "a.json",
                "-o",
                "b.toml",
                "--tolerance",
                "7%",
                "--tolerance",
                "disk=25%",
            ],
            None,
        )
        .unwrap();
        assert_eq!(o.out, Some(PathBuf::from("b.toml")));
        assert_eq!(o.all, Some(Tolerance::Relative(0.07)));
        assert_eq!(o.per_resource["disk"], Tolerance::Relative(0.25));
        let o = baseline(
            &["--from", "a.json", "--tolerance", "5%, net=20% ,cpu=1%"],
            None,
        )
        .unwrap();
        assert_eq!(o.all, Some(Tolerance::Relative(0.05)));
        assert_eq!(o.per_resource.len(), 2);
        let o = baseline(&["--from", "a.json"], Some("x.toml")).unwrap();
        assert_eq!(o.out, Some(PathBuf::from("x.toml")));
        let e = baseline(&["--from", "a.json", "-o", "a"], Some("b")).unwrap_err();
        assert!(e.0.starts_with("-o: given with --output"), "{e}");
        for (bad, needle) in [
            ("cpux=5%", "unknown resource 'cpux'; one of cpu, "),
            ("150%", "from 0 to 50 %"),
            ("-5%", "from 0 to 50 %"),
            ("99.9999999%", "from 0 to 50 %"),
            (
                "5",
                "'5' is not a percentage; use a relative tolerance like 5%",
            ),
            ("disk=abc%", "not a tolerance"),
            ("5%,,", "'' is not a percentage"),
        ] {
            let e = baseline(&["--from", "a.json", "--tolerance", bad], None).unwrap_err();
            assert!(e.0.starts_with("--tolerance: "), "{bad}: {e}");
            assert!(e.0.contains(needle), "{bad}: {e}");
        }
    }

    /// Issue #34 item 2: each value is checked where clap reads it, with the line its
    /// hand-written check gave.
    #[test]
    fn each_value_keeps_its_line() {
        for (a, line) in [
            (&["--from", " "][..], "--from: empty path; give a file name"),
            (&["--from", "a.json", "-o", ""], "-o: empty path; give a file name"),
            (&["--from-history", "--host", "n1,,n2"], "--host: empty host name; give hostnames like node1,node2"),
            (&["--from-history", "--command", " "], "--command: empty; give a command like quick or cpu, or drop the flag"),
            (&["--from-history", "--runs", "0"], "--runs: '0' is not a number of runs; use a whole number from 1 to 1000, e.g. 5"),
            (&["--from", "a.json", "--tolerance", "5"], "--tolerance: '5' is not a percentage; use a relative tolerance like 5% (absolute ones go per case in the baseline file)"),
        ] {
            assert_eq!(baseline(a, None).unwrap_err().0, line, "{a:?}");
        }
        for (a, line) in [
            (&["--baseline", ""][..], "--baseline: empty path; give a file name"),
            (&["--baseline", "b.toml", "--junit", " "], "--junit: empty path; give a file name"),
            (&["--baseline", "b.toml", ""], "RESULTS.json: empty path; give a file name"),
            (&["--against", "past"], "--against: 'past' is not a reference to check against; use --against history, --against run:ID,…, --against tag:KEY[=VALUE] (or --baseline FILE)"),
            (&["--against", "tag:a b"], "--against: 'tag:a b' does not name a tag; use tag:KEY or tag:KEY=VALUE, as `peakbench history tag` or a run's --tag set it (e.g. tag:ref=bios-2.1)"),
            (&["--against", "run:1,x"], "--against: 'run:1,x' does not name runs of the history; use run:ID or run:ID,ID,… (1 to 100 ids, as `peakbench history` lists them)"),
            (&["--baseline", "b.toml", "--strict", "--allow-inconclusive"], "--allow-inconclusive: given with --strict; choose what an inconclusive case does: --strict fails it, --allow-inconclusive passes it (default: exit 3)"),
            (&["--baseline", "b.toml", "--accept"], "--accept: applies to --against history (a baseline file is accepted by writing a new one: peakbench baseline --from …)"),
            (&["--against", "history", "--runs", "1001"], "--runs: '1001' is not a number of runs; use a whole number from 1 to 1000, e.g. 5"),
        ] {
            assert_eq!(check(a).unwrap_err().0, line, "{a:?}");
        }
        let o = check(&[
            "--baseline",
            "b.toml",
            "r.json",
            "--junit",
            "j.xml",
            "--strict",
        ])
        .unwrap();
        assert!(matches!(&o.reference, Reference::Baseline(b) if b == Path::new("b.toml")));
        assert_eq!(o.results, Some(PathBuf::from("r.json")));
        assert_eq!(o.junit, Some(PathBuf::from("j.xml")));
        assert!(o.strict);
    }

    #[test]
    fn history_flags_and_their_conflicts() {
        let o = check(&["--against", "history"]).unwrap();
        assert!(matches!(o.reference, Reference::History(DEFAULT_RUNS)));
        let o = check(&["--against", "history", "--runs", "9"]).unwrap();
        assert_eq!(o.reference.runs(), 9);
        let o = check(&["--against", "run:7, 3,7"]).unwrap();
        assert!(
            matches!(&o.reference, Reference::Runs(v) if v == &[3, 7]),
            "{o:?}"
        );
        assert!(check(&["--against", "history", "--accept"]).unwrap().accept);
        for (a, needle) in [
            (
                &["--against", "history", "--baseline", "b.toml"][..],
                "--against: given with --baseline",
            ),
            (&[], "--baseline: missing"),
            (
                &["--baseline", "b.toml", "--runs", "3"],
                "--runs: applies to --against history",
            ),
        ] {
            let e = check(a).unwrap_err();
            assert!(e.0.starts_with(needle), "{e}");
        }
        let b = baseline(
            &["--from-history", "--host", " n1,n2", "--host", "n1 "],
            None,
        )
        .unwrap();
        match b.from {
            Source::History(p) => {
                assert_eq!(
                    (p.runs, p.hosts),
                    (DEFAULT_RUNS, vec!["n1".into(), "n2".into()])
                );
            }
            other => panic!("{other:?}"),
        }
        for (a, needle) in [
            (
                &["--from", "a.json", "--from-history"][..],
                "--from-history: given with --from",
            ),
            (&[], "--from: missing"),
        ] {
            let e = baseline(a, None).unwrap_err();
            assert!(e.0.starts_with(needle), "{e}");
        }
        assert!(runs("0").unwrap_err().0.contains("from 1 to 1000"));
        assert_eq!(runs("7").unwrap(), 7);
    }
}
