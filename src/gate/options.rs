//! The flags of `peakbench baseline` and `peakbench check` (clap) and their validation
//! into [`BaselineOptions`] and [`CheckOptions`]; `cli.rs` puts them under their
//! subcommands, `options.rs` calls [`parse_baseline`] and [`parse_check`]. Every bad
//! value is one [`UsageError`] line naming the flag and the accepted form.

use super::baseline::{parse_tolerance, resource_names, Tolerance};
use crate::report::model::Resource;
use crate::util::usage::UsageError;
use clap::Args;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// `peakbench baseline` arguments.
#[derive(Debug, Args, Default)]
pub(crate) struct BaselineArgs {
    /// Results files of known-good runs: one run, or one per host of a fleet (median ± 3.5 robust sd)
    #[arg(long, value_name = "FILE.json", required = true, num_args = 1..)]
    pub(crate) from: Vec<String>,
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
    #[arg(long, value_name = "FILE", required = true, allow_hyphen_values = true)]
    pub(crate) baseline: String,
    /// The results file to check [default: this host's latest run, results/HOST-latest.json, in --output DIR]
    #[arg(value_name = "RESULTS.json")]
    pub(crate) results: Option<String>,
    /// Also write a JUnit XML report (one testcase per case) to this file
    #[arg(long, value_name = "FILE", allow_hyphen_values = true)]
    pub(crate) junit: Option<String>,
    /// Fail (exit 1) on inconclusive cases too, not only on regressed and missing ones
    #[arg(long)]
    pub(crate) strict: bool,
}

/// Validated `peakbench baseline` options.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct BaselineOptions {
    /// `--from`: the known-good results files.
    pub(crate) from: Vec<PathBuf>,
    /// Where the baseline goes (`None`: stdout).
    pub(crate) out: Option<PathBuf>,
    /// `--tolerance PCT`: every resource's tolerance.
    pub(crate) all: Option<Tolerance>,
    /// `--tolerance RESOURCE=PCT`: per resource (over `all`).
    pub(crate) per_resource: BTreeMap<String, Tolerance>,
}

/// Validated `peakbench check` options.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct CheckOptions {
    /// `--baseline`.
    pub(crate) baseline: PathBuf,
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
    let from = a
        .from
        .iter()
        .map(|f| path("--from", f))
        .collect::<Result<Vec<_>, _>>()?;
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
    Ok(CheckOptions {
        baseline: path("--baseline", &a.baseline)?,
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
}
