//! Baselines and a pass/fail gate (issue #36 item 3): `peakbench baseline --from
//! FILE…` takes a baseline (per case the reference figure and a tolerance) from
//! known-good runs, and `peakbench check --baseline FILE [RESULTS.json]` compares a run
//! with it case by case and exits 1 when a case regressed, so that CI and nightly
//! acceptance runs can act on it.
//!
//! - [`baseline`]: the baseline file (TOML, docs/baseline.md); [`tolerance`]: its
//!   tolerances and their bounds; [`take`]: taking one from runs;
//! - [`check`]: the verdicts (pass, regressed, improved, inconclusive, missing) with
//!   the statistical test on the raw samples, and the outcome (exit 0, 1 or 3);
//! - [`history`]: the reference runs of `check --against history` and `baseline
//!   --from-history`, the run `check` reads by default, and the accepted runs;
//!   [`reference`](mod@reference): the reference of `check --against history`, which keeps a
//!   regression failed until it is accepted;
//! - [`against`]: the references `check` takes from the history (`--against
//!   history`, `run:ID,…`, `tag:KEY[=VALUE]`) and `--accept`;
//! - [`junit`]: `--junit FILE`, the check as JUnit XML;
//! - [`options`]: the two commands' flags.
//!
//! The check is a document of the one exporter (a [`Grid`]: the table, CSV and Markdown
//! show its rows, JSON the whole check), so `--format` works as everywhere else.
//! Every bad input (a flag, a baseline, a results file) is one [`UsageError`] line and
//! exit code 2, and nothing is written.

pub(crate) mod against;
pub(crate) mod baseline;
pub(crate) mod check;
pub(crate) mod history;
pub(crate) mod junit;
pub(crate) mod options;
pub(crate) mod reference;
pub(crate) mod take;
pub(crate) mod tolerance;

pub(crate) use options::{BaselineOptions, CheckOptions};

use crate::report::{load, Format, Grid};
use crate::util::usage::UsageError;
use baseline::Baseline;
use check::Check;
use options::{HistoryPick, Reference, Source};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use take::{now, one_command};

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
    /// this host's latest run when the history has none.
    pub(crate) dir: PathBuf,
    /// `--history PATH`: the history database (`None`: the default place).
    pub(crate) history: Option<PathBuf>,
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
    let history::Sources {
        names,
        reports,
        passed_over,
    } = match &o.from {
        Source::Files(files) => {
            let reports = load::load_all(files).map_err(|e| UsageError(e.to_string()))?;
            for (p, r) in files.iter().zip(&reports) {
                crate::report::physics::check_report(r).map_err(|e| {
                    UsageError(format!(
                        "{}: {e}; such a figure is not a measurement (a corrupted or edited file): remove the file or the result",
                        p.display()
                    ))
                })?;
            }
            history::Sources {
                names: files.iter().map(|p| label(p)).collect(),
                reports,
                passed_over: Vec::new(),
            }
        }
        Source::History(pick) => from_history(common, pick)?,
    };
    if let Some(out) = &o.out {
        crate::util::atomic::check_writable(out).map_err(|e| {
            UsageError::new(
                "--output",
                format!(
                    "cannot write {} ({e}); give a file in an existing, writable directory",
                    out.display()
                ),
            )
        })?;
    }
    let mut defaults = std::collections::BTreeMap::new();
    if let Some(all) = o.all {
        for r in crate::report::model::ResourceName::ALL {
            defaults.insert(r.as_str().to_string(), all);
        }
    }
    defaults.extend(o.per_resource.clone());
    let how = take::How {
        defaults,
        created: now(),
        allow_disturbed: o.allow_disturbed,
        command: one_command(&reports),
    };
    let (mut b, taken) =
        take::take(&names, &reports, &how).map_err(|e| UsageError::new("--from", e))?;
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
        for l in passed_over.iter().chain(&taken.left_out) {
            eprintln!("left out: {l}");
        }
        for l in &taken.capped {
            eprintln!("capped: {l}");
        }
    }
    Ok(())
}

/// `baseline --from-history`: per host (`--host`, default this one) its last `--runs`
/// runs of one command (`--command`, default that of the newest run of the first
/// host) with the settings of the newest of them: the sources' labels, their reports
/// and the runs passed over.
fn from_history(common: &Output, pick: &HistoryPick) -> Result<history::Sources, UsageError> {
    let flag = "--from-history";
    let h = history::open(common.history.as_deref(), flag)?;
    let hosts = if pick.hosts.is_empty() {
        vec![crate::hw::hostname()]
    } else {
        pick.hosts.clone()
    };
    let command = match &pick.command {
        Some(c) => c.clone(),
        None => history::latest_command(&h, &hosts[0], flag)?.ok_or_else(|| {
            UsageError::new(
                flag,
                format!(
                    "{} holds no run of host {}; `peakbench history list` shows the hosts (choose with --host)",
                    h.shown, hosts[0]
                ),
            )
        })?,
    };
    let mut out = history::Sources::default();
    let mut want = None;
    for host in &hosts {
        let q = history::Query {
            host,
            command: &command,
            settings: want.as_ref(),
            exclude: None,
            before: None,
            since: None,
            n: pick.runs,
            only: None,
        };
        let p = history::pick(&h, &q, flag)?;
        if p.runs.is_empty() {
            return Err(UsageError::new(
                flag,
                format!(
                    "{} holds no {command} run of host {host}{}; `peakbench history list --host {host}` shows its runs",
                    h.shown,
                    if want.is_some() { " with the first host's settings" } else { "" }
                ),
            ));
        }
        let p = after_change(&h, &q, p, pick.across_changes, common.quiet)?;
        if want.is_none() {
            want = Some(crate::report::settings::figure_settings(&p.runs[0].report));
        }
        out.passed_over.extend(p.passed_over);
        for r in p.runs.into_iter().rev() {
            out.names.push(r.label);
            out.reports.push(r.report);
        }
    }
    Ok(out)
}

/// `baseline --from-history`'s runs of one host (`p`, picked by `q`) when they span
/// change points (issue #44 item 7: a reference mixing two levels is no reference):
/// the runs since the latest of them, saying so; with `across` (`--across-changes`)
/// all of them, naming the change points.
fn after_change(
    h: &crate::history::History,
    q: &history::Query<'_>,
    p: history::Picked,
    across: bool,
    quiet: bool,
) -> Result<history::Picked, UsageError> {
    let flag = "--from-history";
    let (Some(newest), Some(oldest)) = (p.runs.first(), p.runs.last()) else {
        return Ok(p);
    };
    let since = crate::history::record::unix(&oldest.report.started_at);
    let until = crate::history::record::unix(&newest.report.started_at);
    // The series of the runs' own settings (those of the newest, which `pick` keeps).
    let set = crate::report::settings::config_settings(&newest.report.config);
    let mut changes = h
        .change_points_after(q.host, q.command, Some(&set), since)
        .map_err(|e| history::usage(flag, e))?;
    changes.retain(|c| c.started_unix <= until);
    if changes.is_empty() {
        return Ok(p);
    }
    changes.sort_by_key(|c| (c.started_unix, c.run));
    let n = p.runs.len();
    let say = |lines: &[crate::history::series::Change]| {
        const SHOWN: usize = 10;
        for c in lines.iter().take(SHOWN) {
            eprintln!("  {}", c.line);
        }
        if lines.len() > SHOWN {
            eprintln!("  and {} more change points", lines.len() - SHOWN);
        }
    };
    if across {
        if !quiet {
            eprintln!(
                "baseline: the {n} runs taken of host {} span change points, taken across them (--across-changes):",
                q.host
            );
            say(&changes);
        }
        return Ok(p);
    }
    let latest = changes.last().expect("not empty").clone();
    let after = history::Query {
        since: Some(latest.started_unix),
        ..*q
    };
    let kept = history::pick(h, &after, flag)?;
    if kept.runs.is_empty() {
        return Ok(p);
    }
    if !quiet {
        let m = kept.runs.len();
        eprintln!(
            "baseline: the last {n} runs of host {} span change points; the baseline is taken from the {m} run{} since the latest, at run {} ({}); --across-changes takes all {n}:",
            q.host,
            if m == 1 { "" } else { "s" },
            latest.run,
            humantime::format_rfc3339_seconds(
                std::time::UNIX_EPOCH
                    + std::time::Duration::from_secs(latest.started_unix.max(0) as u64)
            ),
        );
        say(&changes);
    }
    Ok(kept)
}

/// Reads a baseline file: bounded, regular files only, every failure one line.
pub(crate) fn read_baseline(path: &Path) -> Result<Baseline, UsageError> {
    let name = path.display();
    let bad = |msg: String| UsageError(format!("--baseline: {name}: {msg}"));
    // The one capped reader (issue #43 item 5): a FIFO is refused, never waited on.
    let bytes = crate::util::regular::read_capped(path, MAX_BASELINE_BYTES).map_err(|e| {
        use crate::util::regular::ReadError;
        match e {
            ReadError::NotRegular(what) => bad(format!(
                "{what}; give a baseline file written by `peakbench baseline`"
            )),
            ReadError::TooBig(_) => bad(format!("{e}: not a baseline")),
            ReadError::Io(_) => bad(e.to_string()),
        }
    })?;
    let text = String::from_utf8(bytes)
        .map_err(|_| bad("not UTF-8 text: not a baseline (format: docs/baseline.md)".into()))?;
    Baseline::parse(&text).map_err(bad)
}

/// The run to check: the results file given; else this host's latest run of the
/// baseline's command (any command when the baseline names none) in the history
/// (`--history PATH` or the default database, when it holds one); else this host's
/// latest run in the results folder (`--output DIR`, default `results/`), refused when
/// it is another command's. With its label and, when it is in the history, its run id.
fn results_run(
    common: &Output,
    o: &CheckOptions,
    command: Option<&str>,
) -> Result<(crate::report::model::Report, String, Option<i64>), UsageError> {
    let path = match &o.results {
        Some(p) => p.clone(),
        None => {
            let host = crate::hw::hostname();
            let db = history::db_path(common.history.as_deref());
            let read = common.history.is_some()
                || !matches!(o.reference, Reference::Baseline(_))
                || db.as_ref().is_some_and(|p| p.exists());
            if read {
                let flag = if common.history.is_some() {
                    "--history"
                } else {
                    "RESULTS.json"
                };
                let h = history::open(common.history.as_deref(), flag)?;
                if let Some(r) = history::latest(&h, &host, command, flag)? {
                    return Ok((r.report, r.label, Some(r.id)));
                }
            }
            let file = crate::report::results_index::file_host(&host);
            let p = common
                .dir
                .join(crate::report::results_index::latest_name(&file));
            if !p.exists() {
                return Err(UsageError::new(
                    "RESULTS.json",
                    format!(
                        "none given, the history holds no {}run of {host} and {} (this host's latest run) does not exist; give a results file, or run peakbench first (it records the run and keeps results/HOST-latest.json)",
                        command.map(|c| format!("{c} ")).unwrap_or_default(),
                        p.display()
                    ),
                ));
            }
            p
        }
    };
    let run = load::load(&path).map_err(|e| UsageError(e.to_string()))?;
    crate::report::physics::check_report(&run).map_err(|e| {
        UsageError(format!(
            "{}: {e}; such a figure is not a measurement (a corrupted or edited file)",
            path.display()
        ))
    })?;
    if let (None, Some(want)) = (&o.results, command) {
        let got = crate::history::record::command(&run);
        if got != want {
            return Err(UsageError::new(
                "RESULTS.json",
                format!(
                    "none given, and {} (this host's latest run) is a {got} run while the baseline holds {want} cases; give the results file of a {want} run",
                    path.display()
                ),
            ));
        }
    }
    Ok((run, label(&path), None))
}

/// The check as a [`Grid`] for the one exporter: the rows for table, CSV and Markdown,
/// the whole [`Check`] as its JSON, the summary under the table.
fn grid<'a>(c: &Check, footer: &'a str) -> Grid<'a> {
    // The columns of a check across hosts; one host's check has no `host` column.
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
    const HEAD: [&str; 8] = {
        let mut h = [""; 8];
        h[0] = HEAD_HOSTS[0];
        let mut i = 2;
        while i < HEAD_HOSTS.len() {
            h[i - 1] = HEAD_HOSTS[i];
            i += 1;
        }
        h
    };
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
/// code 0 when the gate passes, 1 when it fails, 3 when it is inconclusive
/// ([`check::Outcome`]).
pub(crate) fn run_check(
    common: &Output,
    o: &CheckOptions,
    out: &mut dyn Write,
) -> anyhow::Result<ExitCode> {
    crate::util::atomic::discard_on_signal();
    // A baseline file is read first: a bad one is refused before anything else.
    let file_base = match &o.reference {
        Reference::Baseline(p) => Some((read_baseline(p)?, label(p), Vec::new())),
        Reference::History(_) | Reference::Runs(_) | Reference::Tag(..) => None,
    };
    let command = file_base.as_ref().and_then(|b| b.0.command.clone());
    let (run, run_label, run_id) = results_run(common, o, command.as_deref())?;
    if o.accept {
        let line = against::accept(common.history.as_deref(), &run, &run_label, run_id)?;
        writeln!(out, "{line}")?;
        out.flush()?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut held = Vec::new();
    let (base, base_name, left_out) = match (file_base, &o.reference) {
        (Some(b), _) => b,
        (None, Reference::Runs(ids)) => against::against_runs(common.history.as_deref(), ids)?,
        (None, Reference::Tag(t, n)) => {
            against::against_tag(common.history.as_deref(), &run, run_id, t, *n)?
        }
        (None, _) => {
            let (b, s, l, h) = against::against_history(
                common.history.as_deref(),
                &run,
                run_id,
                o.reference.runs(),
            )?;
            held = h;
            (b, s, l)
        }
    };
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
    let policy = if o.strict {
        check::Policy::Strict
    } else if o.allow_inconclusive {
        check::Policy::Allow
    } else {
        check::Policy::Distinct
    };
    let mut c = check::check(&base, &base_name, &run, &run_label, policy);
    c.notes.extend(held);
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
        for l in &left_out {
            eprintln!("left out of the reference: {l}");
        }
        if let Some(j) = &o.junit {
            eprintln!("junit: {}", j.display());
        }
    }
    Ok(ExitCode::from(c.outcome.code()))
}
