//! The commands that measure nothing and work on results files — `peakbench report`,
//! `peakbench compare` — plus `peakbench reference` (the installed reference tools) and
//! the HTML written after a measuring run. Dispatched from `app::run` like `sysinfo`.
//!
//! A results file that cannot be read, is not JSON or has another schema is bad input:
//! one line naming the file, exit code 2.

use crate::bench::common::{CommonArgs, CommonOptions};
use crate::bench::cpu::options::CpuOptions;
use crate::bench::flags::List;
use crate::report::compare;
use crate::report::model::Report;
use crate::report::view::{csv, html, markdown};
use crate::report::{export, load, Doc, Format, Grid};
use crate::util::units::ParseError;
use crate::util::usage::UsageError;
use anyhow::Context as _;
use clap::Args;
use serde::Serialize;
use std::io::Write;
use std::path::{Path, PathBuf};

/// `peakbench report`: its flags, each value checked where clap reads it
/// ([`parse_report`] adds what depends on the common options: [`ReportOptions`]).
#[derive(Debug, Clone, Default, Args)]
pub(crate) struct ReportArgs {
    /// A results file written by a run (results/HOST-TIME.json)
    #[arg(value_name = "FILE.json")]
    pub(crate) file: PathBuf,
    /// Write the results as CSV to this file
    #[arg(long, value_name = "FILE", allow_hyphen_values = true, value_parser = file_path)]
    pub(crate) csv: Option<PathBuf>,
    /// Write the results as a Markdown table to this file
    #[arg(long, value_name = "FILE", allow_hyphen_values = true, value_parser = file_path)]
    pub(crate) markdown: Option<PathBuf>,
}

/// `peakbench report`'s options: its flags and where its view goes, which depends on
/// the common `--format` and `--html` ([`parse_report`]).
#[derive(Debug, Clone, Default, Serialize)]
pub(crate) struct ReportOptions {
    /// The results file.
    pub(crate) file: PathBuf,
    /// `--csv FILE`.
    pub(crate) csv: Option<PathBuf>,
    /// `--markdown FILE`.
    pub(crate) markdown: Option<PathBuf>,
    /// Whether stdout gets the `--format` view: always unless an output file was asked
    /// for and `--format` was not given.
    pub(crate) to_stdout: bool,
}

/// `peakbench reference`: its flags and options.
#[derive(Debug, Clone, Default, Args, Serialize)]
pub(crate) struct ReferenceOptions {
    /// Run likwid-bench peakflops next to peakbench's matching CPU kernels and print both
    #[arg(long)]
    pub(crate) run: bool,
    /// Thread counts for --run [default: 1 and the core count]
    #[arg(long, value_name = "LIST", allow_hyphen_values = true, value_parser = crate::bench::flags::threads)]
    pub(crate) threads: Option<List<usize>>,
}

/// An output file flag's value: not empty.
fn file_path(t: &str) -> Result<PathBuf, ParseError> {
    if t.trim().is_empty() {
        return Err(ParseError("empty path; give a file name".into()));
    }
    Ok(PathBuf::from(t))
}

/// `peakbench report`'s options once the common ones are known: stdout gets the view
/// unless only files were asked for.
pub(crate) fn parse_report(a: &ReportArgs, common: &CommonArgs) -> ReportOptions {
    let any_file = a.csv.is_some() || a.markdown.is_some() || common.html.is_some();
    ReportOptions {
        file: a.file.clone(),
        csv: a.csv.clone(),
        markdown: a.markdown.clone(),
        to_stdout: common.format.is_some() || !any_file,
    }
}

/// Loads a results file; a bad file is a usage error (exit code 2).
pub(crate) fn load_report(path: &Path) -> anyhow::Result<Report> {
    load::load(path).map_err(|e| UsageError(e.to_string()).into())
}

/// Writes `doc` in `format` into `path` with the one atomic write
/// ([`crate::util::atomic`]), so a failed write never leaves a half page behind.
fn write_file(path: &Path, flag: &str, doc: Doc<'_>, format: Format) -> anyhow::Result<()> {
    crate::util::atomic::write_atomic(path, |w| export(doc, format, w))
        .with_context(|| format!("cannot write {} (choose another {flag})", path.display()))
}

/// Writes the HTML report of `report` to `path`.
pub(crate) fn write_html(report: &Report, path: &Path) -> anyhow::Result<()> {
    write_file(path, "--html", Doc::Report(report), html::FORMAT)
}

/// `peakbench report FILE.json [--html OUT] [--csv OUT] [--markdown OUT]`.
pub(crate) fn run_report(
    opts: &CommonOptions,
    r: &ReportOptions,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    // An interrupt leaves no temporary file of an output behind (issue #33 item 9).
    crate::util::atomic::discard_on_signal();
    let rep = load_report(&r.file)?;
    let mut wrote = Vec::new();
    if let Some(p) = &opts.html {
        write_html(&rep, p)?;
        wrote.push(p.clone());
    }
    if let Some(p) = &r.csv {
        write_file(p, "--csv", Doc::Report(&rep), csv::FORMAT)?;
        wrote.push(p.clone());
    }
    if let Some(p) = &r.markdown {
        write_file(p, "--markdown", Doc::Report(&rep), markdown::FORMAT)?;
        wrote.push(p.clone());
    }
    if r.to_stdout {
        crate::report::export_fit(&rep, opts.format, opts.width, out)?;
        out.flush()?;
    }
    if !opts.quiet {
        for p in wrote {
            eprintln!("wrote {}", p.display());
        }
    }
    Ok(())
}

/// `peakbench compare A.json B.json [...]`.
pub(crate) fn run_compare(
    opts: &CommonOptions,
    files: &[PathBuf],
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    // An interrupt leaves no temporary file of an output behind (issue #33 item 9).
    crate::util::atomic::discard_on_signal();
    let reports = load::load_all(files).map_err(|e| UsageError(e.to_string()))?;
    let names = labels(files);
    let c = compare::compare(&names, &reports);
    if c.changes.is_empty() {
        return Err(UsageError(nothing_compared(&names, &reports)).into());
    }
    if let Some(p) = &opts.html {
        write_file(p, "--html", Doc::Comparison(&c), html::FORMAT)?;
        if !opts.quiet {
            eprintln!("wrote {}", p.display());
        }
    }
    crate::report::export_fit(&c, opts.format, opts.width, out)?;
    out.flush()?;
    Ok(())
}

/// Why `compare` found nothing to compare (one line): the files share no case, or no
/// shared case was measured (`ok`) in the baseline and another file. Comparing nothing
/// is bad input (exit code 2), never an empty table with exit code 0.
fn nothing_compared(names: &[String], reports: &[Report]) -> String {
    let keys = |r: &Report| -> std::collections::BTreeSet<compare::CaseKey> {
        r.results.iter().map(compare::CaseKey::of).collect()
    };
    let base = keys(&reports[0]);
    let shared = reports[1..]
        .iter()
        .map(|r| keys(r).intersection(&base).count())
        .sum::<usize>();
    let summary: Vec<String> = names
        .iter()
        .zip(reports)
        .map(|(n, r)| {
            let mut res: Vec<&str> = r.results.iter().map(|x| x.resource.as_str()).collect();
            res.sort_unstable();
            res.dedup();
            let res = crate::util::sanitize::line_max(&res.join(", "), 200);
            match r.results.len() {
                0 => format!("{n}: no results"),
                k => format!("{n}: {k} case{} ({res})", if k == 1 { "" } else { "s" }),
            }
        })
        .collect();
    let what = if shared == 0 {
        "the files have no case in common (same resource, workload, metric, unit and parameters)"
    } else {
        "no case the files have in common was measured (status ok) in the baseline and another file"
    };
    format!(
        "nothing to compare: {what}; {}; compare results of the same cases",
        summary.join("; ")
    )
}

/// Short labels for files: the file names, or the whole paths when names repeat.
fn labels(files: &[PathBuf]) -> Vec<String> {
    let names: Vec<String> = files
        .iter()
        .map(|f| {
            f.file_name()
                .map_or_else(|| f.display().to_string(), |n| n.to_string_lossy().into())
        })
        .collect();
    let unique = names
        .iter()
        .enumerate()
        .all(|(i, n)| !names[..i].contains(n));
    if unique {
        names
    } else {
        files
            .iter()
            .enumerate()
            .map(|(i, f)| format!("#{} {}", i + 1, f.display()))
            .collect()
    }
}

/// `peakbench reference`: the tool table in `--format`.
pub(crate) fn run_reference(opts: &CommonOptions, out: &mut dyn Write) -> anyhow::Result<()> {
    let found = crate::reference::detect();
    let cell = |d: &crate::reference::Detected| -> [String; 6] {
        [
            d.tool.to_string(),
            if d.installed {
                "installed".into()
            } else {
                format!("not installed ({})", d.install)
            },
            d.version.clone().unwrap_or_default(),
            d.path
                .as_ref()
                .map_or(String::new(), |p| p.display().to_string()),
            d.package.to_string(),
            d.covers.to_string(),
        ]
    };
    const HEAD: [&str; 6] = [
        "tool",
        "status",
        "version",
        "path",
        "debian package",
        "checks",
    ];
    let grid = Grid {
        title: "peakbench reference tools",
        headers: &HEAD,
        rows: found.iter().map(|d| cell(d).to_vec()).collect(),
        json: serde_json::json!({ "tools": found }),
        footer: Some(
            "`peakbench reference --run` compares CPU peaks with likwid-bench; `--reference` on a run adds every matching tool's figure to the results.",
        ),
    };
    crate::report::export_fit(&grid, opts.format, opts.width, out)?;
    out.flush()?;
    Ok(())
}

/// `peakbench reference --run`: the options of a CPU run of the fp64 and fp32 FMA
/// kernels of the widest vector ISA here, at 1 and all cores (or `--threads`); `app`
/// runs it with the reference tools run after each case.
pub(crate) fn reference_cpu(r: &ReferenceOptions) -> CpuOptions {
    use crate::bench::cpu::kernels::{Isa, Precision};
    let cpu = crate::hw::cpu::CpuInfo::detect();
    let isa = if cpu.has("avx512f") {
        Isa::Avx512
    } else if cpu.has("avx2") && cpu.has("fma") {
        Isa::Avx2
    } else {
        Isa::Sse2
    };
    let cores = cpu.cores.max(1);
    let threads = r.threads.clone().unwrap_or_else(|| {
        let mut t = vec![1];
        if cores > 1 {
            t.push(cores);
        }
        t
    });
    CpuOptions {
        precisions: Some(vec![Precision::Fp64, Precision::Fp32]),
        isas: Some(vec![isa]),
        threads: Some(threads),
        ..Default::default()
    }
}

/// `peakbench fleet`: its flags (clap, each value checked where clap reads it, the
/// outlier rule's with their defaults): read as clap gives them.
#[derive(Debug, Clone, Args, Serialize)]
pub(crate) struct FleetOptions {
    /// Results files, one per host (or gathered MPI runs with hosts[])
    #[arg(value_name = "FILE.json", required = true, num_args = 1..)]
    pub(crate) files: Vec<PathBuf>,
    /// `--threshold` and `--min-gap`: the outlier rule, as clap reads it.
    #[command(flatten)]
    pub(crate) rule: crate::report::fleet::Rule,
    /// Refuse files that ran the same case with differing settings (default: label them)
    #[arg(long)]
    pub(crate) strict: bool,
}

/// `peakbench fleet FILE.json…`: the fleet report in `--format`, and `--html`.
pub(crate) fn run_fleet(
    opts: &CommonOptions,
    f: &FleetOptions,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    // An interrupt leaves no temporary file of an output behind (issue #33 item 9).
    crate::util::atomic::discard_on_signal();
    let reports = load::load_all(&f.files).map_err(|e| UsageError(e.to_string()))?;
    for (p, r) in f.files.iter().zip(&reports) {
        // A figure no machine could measure is refused, never averaged into the fleet.
        crate::report::physics::check_report(r).map_err(|e| {
            UsageError(format!(
                "{}: {e}; such a figure is not a measurement (a corrupted or edited file): remove the file or the result",
                p.display()
            ))
        })?;
    }
    let names = labels(&f.files);
    let fleet = crate::report::fleet::fleet(&names, &reports, f.rule);
    if fleet.workloads.is_empty() {
        return Err(UsageError(format!(
            "nothing to merge: no case was measured (status ok) in {}; give results files with measured cases",
            names.join(", ")
        ))
        .into());
    }
    if f.strict {
        if let Some(w) = fleet.workloads.iter().find(|w| w.settings.is_some()) {
            let sets: Vec<&str> = fleet
                .workloads
                .iter()
                .filter(|o| o.case == w.case)
                .filter_map(|o| o.settings.as_deref())
                .collect();
            return Err(UsageError::new(
                "--strict",
                format!(
                    "{} was run with differing settings ({}); merge files run with the same settings, or drop --strict to get one row per settings",
                    w.case.label(),
                    sets.join(" | ")
                ),
            )
            .into());
        }
    }
    if let Some(p) = &opts.html {
        write_file(p, "--html", Doc::Fleet(&fleet), html::FORMAT)?;
        if !opts.quiet {
            eprintln!("wrote {}", p.display());
        }
    }
    crate::report::export_fit(&fleet, opts.format, opts.width, out)?;
    out.flush()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_unique() {
        let l = labels(&[PathBuf::from("a/x.json"), PathBuf::from("b/y.json")]);
        assert_eq!(l, ["x.json", "y.json"]);
        let l = labels(&[PathBuf::from("a/x.json"), PathBuf::from("b/x.json")]);
        assert_eq!(l, ["#1 a/x.json", "#2 b/x.json"]);
    }
}
