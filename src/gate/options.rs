//! The flags of `peakbench baseline` and `peakbench check` (clap) and their validation
//! into [`BaselineOptions`] and [`CheckOptions`]; `cli.rs` puts them under their
//! subcommands, `options.rs` calls [`parse_baseline`] and [`parse_check`]. Every bad
//! value is one [`UsageError`] line naming the flag and the accepted form.

use super::baseline::{parse_tolerance, resource_names, Tolerance};
use crate::report::model::Resource;
use crate::util::units::ParseError;
use crate::util::usage::UsageError;
use clap::Args;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// `peakbench baseline` arguments.
#[derive(Debug, Args, Default)]
pub(crate) struct BaselineArgs {
    /// Results files of known-good runs: one run, or one per host of a fleet (median ± 3.5 robust sd)
    #[arg(long, value_name = "FILE.json", num_args = 1..)]
    pub(crate) from: Vec<String>,
    /// Take it from the history instead: the last --runs runs of --host (median ± 3.5 robust sd)
    #[arg(long)]
    pub(crate) from_history: bool,
    /// With --from-history: how many of each host's latest runs [default: 5]
    #[arg(long, value_name = "N", value_parser = runs)]
    pub(crate) runs: Option<usize>,
    /// With --from-history: the hosts (hostnames), e.g. node1,node2; several make a fleet baseline [default: this host]
    #[arg(long, value_name = "HOST", value_delimiter = ',')]
    pub(crate) host: Vec<String>,
    /// With --from-history: the command whose runs to take (quick, cpu, memory, …) [default: that of the latest run]
    #[arg(long = "command", value_name = "COMMAND", allow_hyphen_values = true)]
    pub(crate) run_command: Option<String>,
    /// Write the baseline to this file (atomically) [default: stdout]; --output FILE also does
    #[arg(short = 'o', value_name = "FILE", allow_hyphen_values = true)]
    pub(crate) out: Option<String>,
    /// Tolerance for every case, or per resource: 5%, or disk=20%,net=20% [default: cpu, linalg 5%; memory, gpu 10%; disk, net 20%]
    #[arg(long, value_name = "[RESOURCE=]PCT", allow_hyphen_values = true)]
    pub(crate) tolerance: Vec<String>,
}

/// `peakbench check` arguments.
#[derive(Debug, Args, Default)]
pub(crate) struct CheckArgs {
    /// The baseline file (written by `peakbench baseline`, see docs/baseline.md)
    #[arg(long, value_name = "FILE", allow_hyphen_values = true)]
    pub(crate) baseline: Option<String>,
    /// Compare with the history instead of a baseline file: the last --runs clean runs of the host (only: history)
    #[arg(long, value_name = "SOURCE", value_parser = against)]
    pub(crate) against: Option<Against>,
    /// With --against history: how many of the host's latest runs make the reference [default: 5]
    #[arg(long, value_name = "N", value_parser = runs)]
    pub(crate) runs: Option<usize>,
    /// The results file to check [default: this host's latest run in the history, else results/HOST-latest.json in --output DIR]
    #[arg(value_name = "RESULTS.json")]
    pub(crate) results: Option<String>,
    /// Also write a JUnit XML report (one testcase per case) to this file
    #[arg(long, value_name = "FILE", allow_hyphen_values = true)]
    pub(crate) junit: Option<String>,
    /// Fail (exit 1) on inconclusive cases too, not only on regressed and missing ones
    #[arg(long)]
    pub(crate) strict: bool,
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Against {
    /// The history database's last runs of the host.
    History,
}

/// `--against SOURCE`: only `history`.
fn against(s: &str) -> Result<Against, ParseError> {
    match s.trim() {
        "history" => Ok(Against::History),
        _ => Err(ParseError(format!(
            "'{s}' is not a reference to check against; use --against history (or --baseline FILE)"
        ))),
    }
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
}

/// Validated `peakbench baseline` options.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct BaselineOptions {
    /// `--from` or `--from-history`: the known-good runs.
    pub(crate) from: Source,
    /// Where the baseline goes (`None`: stdout).
    pub(crate) out: Option<PathBuf>,
    /// `--tolerance PCT`: every resource's tolerance.
    pub(crate) all: Option<Tolerance>,
    /// `--tolerance RESOURCE=PCT`: per resource (over `all`).
    pub(crate) per_resource: BTreeMap<String, Tolerance>,
}

/// What `check` compares the run with.
#[derive(Debug, Clone, Serialize)]
pub(crate) enum Reference {
    /// `--baseline FILE`.
    Baseline(PathBuf),
    /// `--against history --runs N`: the host's last N clean runs in the history.
    History(usize),
}

impl Reference {
    /// How many runs of the history the reference takes (`--runs`).
    pub(crate) fn runs(&self) -> usize {
        match self {
            Reference::History(n) => *n,
            Reference::Baseline(_) => DEFAULT_RUNS,
        }
    }
}

/// Validated `peakbench check` options.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct CheckOptions {
    /// `--baseline FILE`, or `--against history` (its `--runs`).
    pub(crate) reference: Reference,
    /// The results file; `None`: this host's latest in the results folder.
    pub(crate) results: Option<PathBuf>,
    /// `--junit`.
    pub(crate) junit: Option<PathBuf>,
    /// `--strict`.
    pub(crate) strict: bool,
}

fn path(flag: &str, v: &str) -> Result<PathBuf, UsageError> {
    if v.trim().is_empty() {
        return Err(UsageError::new(flag, "empty path; give a file name"));
    }
    Ok(PathBuf::from(v))
}

/// Validates `peakbench baseline` arguments; `output` is the common `--output` (which
/// for this command names the baseline file, like `-o`).
pub(crate) fn parse_baseline(
    a: &BaselineArgs,
    output: Option<&str>,
) -> Result<BaselineOptions, UsageError> {
    let out = match (a.out.as_deref(), output) {
        (Some(_), Some(_)) => {
            return Err(UsageError::new(
                "-o",
                "given with --output; name the baseline file once (-o FILE or --output FILE)",
            ))
        }
        (Some(o), None) => Some(path("-o", o)?),
        (None, Some(o)) => Some(path("--output", o)?),
        (None, None) => None,
    };
    let from = match (a.from.is_empty(), a.from_history) {
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
        (false, false) => {
            for (flag, given) in [
                ("--runs", a.runs.is_some()),
                ("--host", !a.host.is_empty()),
                ("--command", a.run_command.is_some()),
            ] {
                if given {
                    return Err(UsageError::new(
                        flag,
                        "applies to --from-history; drop it, or take the baseline with --from-history",
                    ));
                }
            }
            Source::Files(
                a.from
                    .iter()
                    .map(|f| path("--from", f))
                    .collect::<Result<Vec<_>, _>>()?,
            )
        }
        (true, true) => {
            let mut hosts = Vec::new();
            for h in &a.host {
                let h = h.trim();
                if h.is_empty() {
                    return Err(UsageError::new(
                        "--host",
                        "empty host name; give hostnames like node1,node2",
                    ));
                }
                if !hosts.iter().any(|x: &String| x == h) {
                    hosts.push(h.to_string());
                }
            }
            let command = match a.run_command.as_deref().map(str::trim) {
                Some("") => {
                    return Err(UsageError::new(
                        "--command",
                        "empty; give a command like quick or cpu, or drop the flag",
                    ))
                }
                c => c.map(str::to_string),
            };
            Source::History(HistoryPick {
                runs: a.runs.unwrap_or(DEFAULT_RUNS),
                hosts,
                command,
            })
        }
    };
    let mut all = None;
    let mut per_resource = BTreeMap::new();
    for item in a.tolerance.iter().flat_map(|t| t.split(',')) {
        let item = item.trim();
        let bad = |msg: String| UsageError::new("--tolerance", msg);
        match item.split_once('=') {
            Some((res, pct)) => {
                let res = res.trim();
                if Resource::parse(res).is_none() {
                    return Err(bad(format!(
                        "unknown resource '{res}'; one of {} (e.g. disk=20%)",
                        resource_names()
                    )));
                }
                let t = tolerance_pct(pct.trim()).map_err(bad)?;
                per_resource.insert(res.to_string(), t);
            }
            None => all = Some(tolerance_pct(item).map_err(bad)?),
        }
    }
    Ok(BaselineOptions {
        from,
        out,
        all,
        per_resource,
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

/// Validates `peakbench check` arguments.
pub(crate) fn parse_check(a: &CheckArgs) -> Result<CheckOptions, UsageError> {
    let reference = match (&a.baseline, a.against) {
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
            Reference::Baseline(path("--baseline", b)?)
        }
        (None, Some(Against::History)) => Reference::History(a.runs.unwrap_or(DEFAULT_RUNS)),
    };
    Ok(CheckOptions {
        reference,
        results: a
            .results
            .as_deref()
            .map(|r| path("RESULTS.json", r))
            .transpose()?,
        junit: a.junit.as_deref().map(|j| path("--junit", j)).transpose()?,
        strict: a.strict,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(from: &[&str], out: Option<&str>, tol: &[&str]) -> BaselineArgs {
        BaselineArgs {
            from: from.iter().map(|s| s.to_string()).collect(),
            out: out.map(String::from),
            tolerance: tol.iter().map(|s| s.to_string()).collect(),
            ..BaselineArgs::default()
        }
    }

    #[test]
    fn tolerances_and_output() {
        let o = parse_baseline(
            &args(&["a.json"], Some("b.toml"), &["7%", "disk=25%"]),
            None,
        )
        .unwrap();
        assert_eq!(o.out, Some(PathBuf::from("b.toml")));
        assert_eq!(o.all, Some(Tolerance::Relative(0.07)));
        assert_eq!(o.per_resource["disk"], Tolerance::Relative(0.25));
        let o = parse_baseline(&args(&["a.json"], None, &[]), Some("x.toml")).unwrap();
        assert_eq!(o.out, Some(PathBuf::from("x.toml")));
        let e = parse_baseline(&args(&["a.json"], Some("a"), &[]), Some("b")).unwrap_err();
        assert!(e.0.starts_with("-o: given with --output"), "{e}");
        for (bad, needle) in [
            ("cpux=5%", "unknown resource 'cpux'"),
            ("150%", "from 0 to 100 %"),
            ("-5%", "from 0 to 100 %"),
            ("5", "not a percentage"),
            ("disk=abc%", "not a tolerance"),
        ] {
            let e = parse_baseline(&args(&["a.json"], None, &[bad]), None).unwrap_err();
            assert!(e.0.starts_with("--tolerance: "), "{bad}: {e}");
            assert!(e.0.contains(needle), "{bad}: {e}");
        }
    }

    #[test]
    fn history_flags_and_their_conflicts() {
        let o = parse_check(&CheckArgs {
            against: Some(Against::History),
            ..CheckArgs::default()
        })
        .unwrap();
        assert!(matches!(o.reference, Reference::History(DEFAULT_RUNS)));
        let o = parse_check(&CheckArgs {
            against: Some(Against::History),
            runs: Some(9),
            ..CheckArgs::default()
        })
        .unwrap();
        assert_eq!(o.reference.runs(), 9);
        for (a, needle) in [
            (
                CheckArgs {
                    against: Some(Against::History),
                    baseline: Some("b.toml".into()),
                    ..CheckArgs::default()
                },
                "--against: given with --baseline",
            ),
            (CheckArgs::default(), "--baseline: missing"),
            (
                CheckArgs {
                    baseline: Some("b.toml".into()),
                    runs: Some(3),
                    ..CheckArgs::default()
                },
                "--runs: applies to --against history",
            ),
        ] {
            let e = parse_check(&a).unwrap_err();
            assert!(e.0.starts_with(needle), "{e}");
        }
        let b = parse_baseline(
            &BaselineArgs {
                from_history: true,
                host: vec!["n1".into(), "n2".into(), "n1".into()],
                ..BaselineArgs::default()
            },
            None,
        )
        .unwrap();
        match b.from {
            Source::History(p) => {
                assert_eq!((p.runs, p.hosts.len()), (DEFAULT_RUNS, 2));
            }
            other => panic!("{other:?}"),
        }
        let e = parse_baseline(
            &BaselineArgs {
                from_history: true,
                ..args(&["a.json"], None, &[])
            },
            None,
        )
        .unwrap_err();
        assert!(e.0.starts_with("--from-history: given with --from"), "{e}");
        assert!(runs("0").unwrap_err().0.contains("from 1 to 1000"));
        assert_eq!(runs("7").unwrap(), 7);
        assert!(against("past").unwrap_err().0.contains("--against history"));
    }
}
