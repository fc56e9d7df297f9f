//! Baselines and a pass/fail gate (issue #36 item 3): `peakbench baseline --from
//! FILE…` takes a baseline (per case the reference figure and a tolerance) from
//! known-good runs, and `peakbench check --baseline FILE [RESULTS.json]` compares a run
//! with it case by case and exits 1 when a case regressed, so that CI and nightly
//! acceptance runs can act on it.
//!
//! - [`baseline`]: the baseline file (TOML, docs/baseline.md), taking one from runs;
//! - [`check`]: the verdicts (pass, regressed, improved, inconclusive, missing) with
//!   the statistical test on the raw samples;
//! - [`junit`]: `--junit FILE`, the check as JUnit XML;
//! - [`options`]: the two commands' flags.
//!
//! The check is a document of the one exporter (a [`Grid`]: the table, CSV and Markdown
//! show its rows, JSON the whole check), so `--format` works as everywhere else.
//! Every bad input (a flag, a baseline, a results file) is one [`UsageError`] line and
//! exit code 2, and nothing is written.

pub(crate) mod baseline;
pub(crate) mod check;
pub(crate) mod junit;
pub(crate) mod options;

pub(crate) use options::{BaselineArgs, CheckArgs};

use crate::report::model::{BenchResult, NoteKind};
use crate::report::{load, Format, Grid};
use crate::util::usage::UsageError;
use baseline::Baseline;
use check::Check;
use options::{BaselineOptions, CheckOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Largest baseline file read (a baseline of every case of a large run is a few
/// hundred KiB).
const MAX_BASELINE_BYTES: u64 = 16 << 20;

/// What the two commands take of the common options (handed over by `app`, so that
/// this module does not depend on how the command line is assembled).
#[derive(Debug, Clone)]
pub(crate) struct Output {
    /// `--format`: what goes to stdout.
    pub(crate) format: Format,
    /// `--width`: the table's width.
    pub(crate) width: Option<usize>,
    /// `--quiet`: nothing on stderr but errors.
    pub(crate) quiet: bool,
    /// The results folder (`--output DIR`, default `results/`): where `check` finds
    /// this host's latest run.
    pub(crate) dir: PathBuf,
}

/// Why a result's figure is no evidence about the machine, if it is not: it was
/// disturbed (`disturbed`), or a `shared` note says the machine was shared (host
/// contention included).
pub(crate) fn shared(r: &BenchResult) -> Option<String> {
    let note = r
        .notes
        .iter()
        .find(|n| n.kind == NoteKind::Shared)
        .map(|n| n.text.clone());
    match (r.disturbed, note) {
        (_, Some(n)) => Some(n),
        (true, None) => Some("the result is marked disturbed".into()),
        (false, None) => None,
    }
}

fn now() -> String {
    humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string()
}

fn label(p: &Path) -> String {
    p.display().to_string()
}

/// `peakbench baseline --from FILE… [-o FILE] [--tolerance …]`.
pub(crate) fn run_baseline(
    common: &Output,
    o: &BaselineOptions,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    crate::util::atomic::discard_on_signal();
    let reports = load::load_all(&o.from).map_err(|e| UsageError(e.to_string()))?;
    for (p, r) in o.from.iter().zip(&reports) {
        crate::report::physics::check_report(r).map_err(|e| {
            UsageError(format!(
                "{}: {e}; such a figure is not a measurement (a corrupted or edited file): remove the file or the result",
                p.display()
            ))
        })?;
    }
    let names: Vec<String> = o.from.iter().map(|p| label(p)).collect();
    let mut defaults = std::collections::BTreeMap::new();
    if let Some(all) = o.all {
        for r in crate::report::model::Resource::ALL {
            defaults.insert(r.as_str().to_string(), all);
        }
    }
    defaults.extend(o.per_resource.clone());
    let (mut b, taken) = baseline::take(&names, &reports, defaults, now())
        .map_err(|e| UsageError::new("--from", e))?;
    // Only the resources the baseline holds keep a [tolerance] line.
    let held: std::collections::BTreeSet<&str> =
        b.cases.iter().map(|c| c.resource.as_str()).collect();
    b.tolerance.retain(|k, _| held.contains(k.as_str()));
    let text = b.to_toml();
    match &o.out {
        Some(p) => {
            crate::util::atomic::write_atomic(p, |w| w.write_all(text.as_bytes())).map_err(
                |e| {
                    UsageError::new(
                        "--output",
                        format!(
                            "cannot write {} ({e}); give a file in an existing, writable directory",
                            p.display()
                        ),
                    )
                },
            )?;
            if !common.quiet {
                eprintln!(
                    "wrote {}: {} case{} from {}",
                    p.display(),
                    b.cases.len(),
                    if b.cases.len() == 1 { "" } else { "s" },
                    names.join(", ")
                );
            }
        }
        None => {
            out.write_all(text.as_bytes())?;
            out.flush()?;
        }
    }
    if !common.quiet {
        for l in &taken.left_out {
            eprintln!("left out: {l}");
        }
    }
    Ok(())
}

/// Reads a baseline file: bounded, regular files only, every failure one line.
pub(crate) fn read_baseline(path: &Path) -> Result<Baseline, UsageError> {
    let name = path.display();
    let bad = |msg: String| UsageError(format!("--baseline: {name}: {msg}"));
    let meta = std::fs::metadata(path).map_err(|e| bad(format!("cannot read: {e}")))?;
    if !meta.is_file() {
        return Err(bad(
            "not a regular file; give a baseline file written by `peakbench baseline`".into(),
        ));
    }
    let f = std::fs::File::open(path).map_err(|e| bad(format!("cannot read: {e}")))?;
    let bytes =
        load::read_capped(f, MAX_BASELINE_BYTES).map_err(|e| bad(format!("cannot read: {e}")))?;
    if bytes.len() as u64 > MAX_BASELINE_BYTES {
        return Err(bad(format!(
            "larger than {} MiB: not a baseline",
            MAX_BASELINE_BYTES >> 20
        )));
    }
    let text = String::from_utf8(bytes)
        .map_err(|_| bad("not UTF-8 text: not a baseline (format: docs/baseline.md)".into()))?;
    Baseline::parse(&text).map_err(bad)
}

/// The results file to check: the one given, else this host's latest run in the
/// results folder (`--output DIR`, default `results/`).
fn results_path(common: &Output, o: &CheckOptions) -> Result<PathBuf, UsageError> {
    if let Some(p) = &o.results {
        return Ok(p.clone());
    }
    let host = crate::report::results_index::file_host(&crate::hw::hostname());
    let p = common
        .dir
        .join(crate::report::results_index::latest_name(&host));
    if !p.exists() {
        return Err(UsageError::new(
            "RESULTS.json",
            format!(
                "none given and {} (this host's latest run) does not exist; give a results file, or run peakbench first (it keeps results/HOST-latest.json)",
                p.display()
            ),
        ));
    }
    Ok(p)
}

/// The check as a [`Grid`] for the one exporter: the rows for table, CSV and Markdown,
/// the whole [`Check`] as its JSON, the summary under the table.
fn grid<'a>(c: &Check, footer: &'a str) -> Grid<'a> {
    const HEAD: [&str; 8] = [
        "case",
        "verdict",
        "measured",
        "95 % CI",
        "baseline",
        "tolerance",
        "bound",
        "why",
    ];
    const HEAD_HOSTS: [&str; 9] = [
        "case",
        "host",
        "verdict",
        "measured",
        "95 % CI",
        "baseline",
        "tolerance",
        "bound",
        "why",
    ];
    let many = c.hosts.len() > 1;
    let rows = c
        .cases
        .iter()
        .map(|x| {
            let u = x.case.unit.as_str();
            let si = |v: f64| crate::util::units::format_si(v, u);
            let mut row = vec![x.case.label()];
            if many {
                row.push(x.host.clone());
            }
            let measured = match (x.measured, x.change) {
                (Some(m), Some(ch)) => format!("{} ({})", si(m), crate::report::compare::pct(ch)),
                (Some(m), None) => si(m),
                _ => String::new(),
            };
            row.extend([
                x.verdict.as_str().to_string(),
                measured,
                x.ci95
                    .map(|(lo, hi)| format!("{} to {}", si(lo), si(hi)))
                    .unwrap_or_default(),
                si(x.baseline),
                x.tolerance.clone(),
                si(x.bound),
                x.why.clone(),
            ]);
            row
        })
        .collect();
    Grid {
        title: "peakbench check",
        headers: if many { &HEAD_HOSTS } else { &HEAD },
        rows,
        json: serde_json::to_value(c).unwrap_or_default(),
        footer: Some(footer),
    }
}

/// `peakbench check --baseline FILE [RESULTS.json] [--junit FILE] [--strict]`: exit
/// code 0 when the gate passes, 1 when it fails.
pub(crate) fn run_check(
    common: &Output,
    o: &CheckOptions,
    out: &mut dyn Write,
) -> anyhow::Result<ExitCode> {
    crate::util::atomic::discard_on_signal();
    let base = read_baseline(&o.baseline)?;
    let path = results_path(common, o)?;
    let run = load::load(&path).map_err(|e| UsageError(e.to_string()))?;
    crate::report::physics::check_report(&run).map_err(|e| {
        UsageError(format!(
            "{}: {e}; such a figure is not a measurement (a corrupted or edited file)",
            path.display()
        ))
    })?;
    if let Some(j) = &o.junit {
        crate::util::atomic::check_writable(j).map_err(|e| {
            UsageError::new(
                "--junit",
                format!(
                    "cannot write {} ({e}); give a file in an existing, writable directory",
                    j.display()
                ),
            )
        })?;
    }
    let c = check::check(&base, &label(&o.baseline), &run, &label(&path), o.strict);
    let mut footer = c.summary.clone();
    for n in &c.notes {
        footer.push_str("\nnote: ");
        footer.push_str(n);
    }
    if let Some(j) = &o.junit {
        let xml = junit::render(&c, &now());
        crate::util::atomic::write_atomic(j, |w| w.write_all(xml.as_bytes())).map_err(|e| {
            anyhow::anyhow!("cannot write {} ({e}); choose another --junit", j.display())
        })?;
    }
    crate::report::export_fit(&grid(&c, &footer), common.format, common.width, out)?;
    out.flush()?;
    // The table ends with the summary; with another format on stdout, stderr has it.
    if common.format != crate::report::view::table::FORMAT && !common.quiet {
        eprintln!("{footer}");
    }
    if !common.quiet {
        if let Some(j) = &o.junit {
            eprintln!("junit: {}", j.display());
        }
    }
    Ok(if c.passed {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
