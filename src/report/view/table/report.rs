//! The terminal table of a report (comfy-table), laid out for the terminal's width,
//! followed by the notes, grouped.
//!
//! Fitting a width: the numbers never wrap; columns are dropped from the least needed
//! (`min .. max`, `metric`, `peak`, …) until the rest fits at their narrowest, then the
//! columns of words (workload, params, efficiency flag, status) share what is left and
//! wrap. Params are short: what every row of a resource shares is printed once under
//! the table, and a param that only repeats the workload's name (`isa=avx2` for
//! `add_i32_avx2`) is left out; the JSON keeps them all.
//!
//! Notes: a text shared by several rows is printed once with the rows it belongs to,
//! notes that differ only in their numbers are one line with ranges ([`condense`]);
//! the CV warnings become one line listing their rows (marked `*` in the cv column);
//! each line is wrapped to the width.

use super::layout::{self, Col};
use crate::report::condense;
use crate::report::model::{BenchResult, NoteKind, Report, Status};
use crate::report::view::cells;
use crate::util::sanitize;
use crate::util::term::{self, MIN_WIDTH};
use comfy_table::{ColumnConstraint, ContentArrangement, Table};
use std::collections::BTreeMap;
use std::io::Write;

/// Header line, vertical lines between columns, no outer border: the lightest frame
/// that keeps columns apart (3 characters between columns). Every table of the tool
/// uses it ([`term::PRESET`]).
const PRESET: &str = term::PRESET;

/// The columns, in order; how much each is wanted is raised per report (see
/// [`export`]): the resource when rows of several resources share the table, the cv
/// when a warning points at its `*`.
const COLS: [Col; 12] = [
    Col {
        header: "#",
        keep: 96,
        comfy: None,
    },
    Col {
        header: "resource",
        keep: 45,
        comfy: None,
    },
    Col {
        header: "workload",
        keep: 95,
        comfy: Some(24),
    },
    Col {
        header: "metric",
        keep: 30,
        comfy: None,
    },
    Col {
        header: "params",
        keep: 85,
        comfy: Some(32),
    },
    Col {
        header: "mean",
        keep: 100,
        comfy: None,
    },
    Col {
        header: "cv",
        keep: 50,
        comfy: None,
    },
    Col {
        header: "p99 / loss",
        keep: 84,
        comfy: Some(13),
    },
    Col {
        header: "min .. max",
        keep: 20,
        comfy: None,
    },
    Col {
        header: "peak",
        keep: 40,
        comfy: None,
    },
    Col {
        header: "efficiency",
        keep: 90,
        comfy: Some(17),
    },
    Col {
        header: "status",
        keep: 80,
        comfy: None,
    },
];

/// The index of the column headed `header` in [`COLS`], so that an index follows its
/// column; a header that is not there fails the build.
const fn col(header: &str) -> usize {
    let want = header.as_bytes();
    let mut i = 0;
    while i < COLS.len() {
        let have = COLS[i].header.as_bytes();
        let mut j = 0;
        while j < have.len() && j < want.len() && have[j] == want[j] {
            j += 1;
        }
        if j == have.len() && j == want.len() {
            return i;
        }
        i += 1;
    }
    panic!("no column of that header");
}
const RESOURCE: usize = col("resource");
const PARAMS: usize = col("params");
const MEAN: usize = col("mean");
const CV: usize = col("cv");
const TAIL: usize = col("p99 / loss");
const EFFICIENCY: usize = col("efficiency");
/// The order in which spare width goes to the columns that wrap.
const GROW: [usize; 4] = [EFFICIENCY, TAIL, col("workload"), PARAMS];

/// Which marks the table shows, so that a warning points only at a mark one can see.
#[derive(Debug, Clone, Copy)]
struct Shown {
    /// The cv column, with its `*`.
    cv: bool,
    /// The efficiency column, with its `~`.
    efficiency: bool,
}

/// Writes the host line, the results table and the notes, within `width` columns when
/// given (no limit otherwise).
pub(super) fn export(
    report: &Report,
    width: Option<usize>,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    let width = width.map(|w| w.max(MIN_WIDTH));
    for l in term::wrap("", &cells::host_line(&report.host), 2, width) {
        writeln!(out, "{l}")?;
    }
    for l in cells::tuning_line(&report.host)
        .iter()
        .chain(&cells::energy_line(&report.host))
        .flat_map(|t| term::wrap("", t, 2, width))
    {
        writeln!(out, "{l}")?;
    }
    if report.finished_at.is_none() {
        let text = format!(
            "UNFINISHED: the run started at {} was interrupted (or is still running); \
             {} results were kept",
            sanitize::line(&report.started_at),
            report.results.len()
        );
        for l in term::wrap("", &text, 2, width) {
            writeln!(out, "{l}")?;
        }
    }
    let params = cells::Params::of(&report.results.iter().collect::<Vec<_>>());
    let rows: Vec<[String; 12]> = report
        .results
        .iter()
        .enumerate()
        .map(|(i, r)| cells(i + 1, r, &params.rows[i]).map(|c| sanitize::line(&c)))
        .collect();
    let mut cols = COLS;
    // Latency rows with percentiles show their median (`… p50`, [`cells::mean`]).
    if report.results.iter().any(|r| r.percentiles.is_some()) {
        cols[MEAN].header = "mean / p50";
    }
    let mut resources: Vec<_> = report.results.iter().map(|r| r.resource).collect();
    resources.dedup();
    if resources.iter().any(|r| *r != resources[0]) {
        cols[RESOURCE].keep = 93;
    }
    if rows.iter().any(|r| r[CV].ends_with('*')) {
        cols[CV].keep = 88;
    }
    // A mostly empty efficiency column (most rows have no peak: memory, disk, net)
    // makes way before the p99 / loss column in a narrow terminal (issue #45: at 80
    // columns the quick suite dropped the p99s and kept the mostly empty efficiency).
    // A column carrying `~` marks stays, since they say which figures to trust.
    let filled = |c: usize| rows.iter().filter(|r| !r[c].is_empty()).count();
    let marks = report.results.iter().any(|r| r.disturbed);
    if !marks && 2 * filled(EFFICIENCY) < rows.len() && filled(TAIL) > 0 {
        cols[EFFICIENCY].keep = cols[TAIL].keep - 1;
    }
    // A column empty in every row says nothing.
    let visible: Vec<bool> = (0..cols.len())
        .map(|c| c == 0 || rows.iter().any(|r| !r[c].is_empty()))
        .collect();
    let cell_widths = |f: fn(&str) -> usize, c: usize| {
        rows.iter()
            .map(|r| f(&r[c]))
            .chain(std::iter::once(f(cols[c].header)))
            .max()
            .unwrap_or(0)
    };
    let natural: Vec<usize> = (0..cols.len())
        .map(|c| cell_widths(layout::widest, c))
        .collect();
    let least: Vec<usize> = (0..cols.len())
        .map(|c| match cols[c].comfy {
            Some(_) => cell_widths(layout::narrowest, c),
            None => natural[c],
        })
        .collect();
    let wrapped = |c: usize, w: usize| {
        rows.iter()
            .map(|r| layout::widest(&layout::wrap(&r[c], w)))
            .chain(std::iter::once(layout::widest(&layout::wrap(
                cols[c].header,
                w,
            ))))
            .max()
            .unwrap_or(0)
    };
    // Issue #45 item 3: a row at most two lines. Where the grid would wrap a row to
    // more (a memory row's four params, a kernel's name at 80 columns), the params go
    // on a line of their own under the row (`layout::stack`) and no other cell wraps.
    let mut stacked = false;
    let widths: Vec<Option<usize>> = match width {
        Some(w) => {
            let mut shown = visible.clone();
            let grid = layout::fit(&cols, w, &natural, &least, &mut shown, &GROW, &wrapped);
            let height = |r: &[String; 12]| {
                (0..cols.len())
                    .map(|c| match grid[c] {
                        Some(cw) if cols[c].comfy.is_some() => {
                            layout::wrap(&r[c], cw).lines().count()
                        }
                        _ => 1,
                    })
                    .max()
                    .unwrap_or(1)
            };
            let tall = rows.iter().any(|r| height(r) > 2);
            match tall
                .then(|| layout::stack(&cols, PARAMS, w, &natural, &visible))
                .flatten()
            {
                Some(s) => {
                    stacked = true;
                    s
                }
                None => grid,
            }
        }
        None => (0..cols.len())
            .map(|c| visible[c].then_some(natural[c]))
            .collect(),
    };
    let fitted = |c: usize, text: &str| match widths[c] {
        Some(w) if width.is_some() && !stacked && cols[c].comfy.is_some() => layout::wrap(text, w),
        _ => text.to_string(),
    };
    let mut t = Table::new();
    t.load_preset(PRESET)
        .set_header((0..cols.len()).map(|c| fitted(c, cols[c].header)))
        .set_content_arrangement(ContentArrangement::Disabled);
    for r in &rows {
        t.add_row((0..cols.len()).map(|c| fitted(c, &r[c])));
    }
    for (c, col) in t.column_iter_mut().enumerate() {
        if widths[c].is_none() {
            col.set_constraint(ColumnConstraint::Hidden);
        }
    }
    let lines: Vec<String> = t.lines().map(|l| l.trim_end().to_string()).collect();
    if stacked {
        let heights: Vec<usize> = rows
            .iter()
            .map(|r| {
                (0..cols.len())
                    .filter(|&c| widths[c].is_some())
                    .map(|c| fitted(c, &r[c]).lines().count().max(1))
                    .max()
                    .unwrap_or(1)
            })
            .collect();
        let params: Vec<&str> = rows.iter().map(|r| r[PARAMS].as_str()).collect();
        for l in layout::stacked_lines(lines, &heights, &params, width.unwrap_or(usize::MAX)) {
            writeln!(out, "{l}")?;
        }
    } else {
        for l in lines {
            writeln!(out, "{l}")?;
        }
    }
    let shown = Shown {
        cv: widths[CV].is_some(),
        efficiency: widths[EFFICIENCY].is_some(),
    };
    for (_, l) in notes(report, &params, width, Some(shown)) {
        writeln!(out, "{l}")?;
    }
    verdict(report, width, out)
}

/// The run's verdict under the notes (`report::quality`), wrapped to the width.
fn verdict(report: &Report, width: Option<usize>, out: &mut dyn Write) -> std::io::Result<()> {
    for line in crate::report::quality::footer_lines(report) {
        for l in term::wrap("", &sanitize::line(&line), 2, width) {
            writeln!(out, "{l}")?;
        }
    }
    Ok(())
}

/// One row of cells in [`COLS`] order (before sanitising).
fn cells(n: usize, r: &BenchResult, params: &str) -> [String; 12] {
    let high_cv = r.notes.iter().any(|n| n.kind == NoteKind::HighCv);
    // The reason is under the table, with the notes.
    let status = match r.status {
        Status::Ok => String::new(),
        Status::Skipped { .. } => "skipped".into(),
        Status::Failed { .. } => "failed".into(),
    };
    [
        n.to_string(),
        r.resource.to_string(),
        r.workload.clone(),
        r.metric.to_string(),
        params.to_string(),
        cells::mean(r),
        format!("{}{}", cells::cv(r), if high_cv { "*" } else { "" }),
        cells::tail(r),
        cells::range(r),
        cells::peak(r),
        cells::efficiency(r),
        status,
    ]
}

/// `#3`, `#5-#8`: row numbers (1-based, ascending) with runs joined.
fn row_refs(rows: &[usize]) -> String {
    let mut parts = Vec::new();
    let mut i = 0;
    while i < rows.len() {
        let mut j = i;
        while j + 1 < rows.len() && rows[j + 1] == rows[j] + 1 {
            j += 1;
        }
        parts.push(if j > i + 1 {
            format!("#{}-#{}", rows[i], rows[j])
        } else if j == i + 1 {
            format!("#{}, #{}", rows[i], rows[j])
        } else {
            format!("#{}", rows[i])
        });
        i = j + 1;
    }
    parts.join(", ")
}

/// Whom a grouped note is about: `all disk rows` when it is every row of one resource
/// (more than one), else the row numbers.
fn whom(results: &[BenchResult], rows: &[usize]) -> String {
    let res = results[rows[0] - 1].resource;
    let all: Vec<usize> = (1..=results.len())
        .filter(|&n| results[n - 1].resource == res)
        .collect();
    if rows.len() > 1 && all == rows {
        format!("all {res} rows")
    } else {
        row_refs(rows)
    }
}

/// Which group of the lines under the table a line belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Section {
    /// The params shared by all rows of a resource.
    Params,
    /// The notes, each text once with its rows.
    Note,
    /// The warnings: skipped and failed rows, warnings, over-peak figures, a shared
    /// machine, high CVs.
    Warning,
    /// The reference tools' figures.
    Reference,
}

/// How far apart the numbers of notes may be and still be merged into one line with
/// ranges: rows whose figures differ more keep a line each (issue #32 F), so that no
/// row's own figure hides inside a range spanning the others.
const AGREE: f64 = 0.10;

/// The lines under the table, each with its section: the params shared by all rows of a
/// resource, the unknown peaks (each reason once, with the `--peak` that sets it), the
/// notes (each text once, with its rows), the warnings, then the reference figures. A
/// warning points at a mark (`*`, `~`) only where `shown` says the table shows it
/// (`None`: no table).
fn notes(
    report: &Report,
    params: &cells::Params,
    width: Option<usize>,
    shown: Option<Shown>,
) -> Vec<(Section, String)> {
    let results = &report.results;
    // Text → (kind, rows), in order of first appearance.
    let mut order: Vec<(NoteKind, String)> = Vec::new();
    let mut rows_of: BTreeMap<(u8, String), Vec<usize>> = BTreeMap::new();
    let mut cv_rows: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    // `shared machine: …` notes, by text in order of first appearance: merged into one
    // line with ranges where they differ only in their numbers.
    let mut shared: Vec<(String, Vec<usize>)> = Vec::new();
    for (i, r) in results.iter().enumerate() {
        let status = match &r.status {
            Status::Ok => None,
            Status::Skipped { reason } => Some((NoteKind::Warning, format!("skipped: {reason}"))),
            Status::Failed { error } => Some((NoteKind::Warning, format!("failed: {error}"))),
        };
        for (kind, text) in status.into_iter() {
            let key = (kind as u8, sanitize::line(&text));
            if !rows_of.contains_key(&key) {
                order.push((kind, key.1.clone()));
            }
            push_row(rows_of.entry(key).or_default(), i + 1);
        }
        for n in &r.notes {
            let text = sanitize::line(&n.text);
            if n.kind == NoteKind::Shared {
                match shared.iter_mut().find(|(t, _)| *t == text) {
                    Some((_, rows)) => push_row(rows, i + 1),
                    None => shared.push((text, vec![i + 1])),
                }
                continue;
            }
            if n.kind == NoteKind::HighCv {
                // `CV 8.9 % > 5 %: advice`: the figure is in the table; the advice is
                // the same for every row.
                let advice = text.split_once(": ").map_or("", |(_, a)| a).to_string();
                push_row(cv_rows.entry(advice).or_default(), i + 1);
                continue;
            }
            let key = (n.kind as u8, text.clone());
            if !rows_of.contains_key(&key) {
                order.push((n.kind, text));
            }
            push_row(rows_of.entry(key).or_default(), i + 1);
        }
    }
    let mut lines = Vec::new();
    let mut emit = |section: Section, prefix: &str, who: &str, text: &str| {
        let wrapped = term::wrap("", &format!("{prefix}{who}: {text}"), 4, width);
        lines.extend(wrapped.into_iter().map(|l| (section, l)));
    };
    for (res, text) in &params.common {
        emit(Section::Params, "params ", &format!("all {res} rows"), text);
    }
    // A bare `unknown` in the peak column: why, and how to give it, once per reason.
    let mut unknown: Vec<(String, Vec<usize>)> = Vec::new();
    for (i, r) in results.iter().enumerate() {
        if let Some(text) = cells::peak_unknown(r) {
            let text = sanitize::line(&text);
            match unknown.iter_mut().find(|(t, _)| *t == text) {
                Some((_, rows)) => push_row(rows, i + 1),
                None => unknown.push((text, vec![i + 1])),
            }
        }
    }
    for (text, rows) in &unknown {
        emit(Section::Note, "peak ", &whom(results, rows), text);
    }
    let sections = [
        (Section::Note, "note ", &[NoteKind::Info][..]),
        (
            Section::Warning,
            "warning ",
            &[NoteKind::Warning, NoteKind::OverPeak][..],
        ),
        (Section::Reference, "reference ", &[NoteKind::Reference][..]),
    ];
    for (section, prefix, kinds) in sections {
        if section == Section::Note {
            // Notes that differ only in their numbers, and only a little: one line with
            // ranges.
            let info: Vec<(String, Vec<usize>)> = order
                .iter()
                .filter(|(k, _)| kinds.contains(k))
                .map(|(k, t)| (t.clone(), rows_of[&(*k as u8, t.clone())].clone()))
                .collect();
            // The clock notes (one per CPU row, 16 in a quick suite) are one line per
            // shape with the range of readings, however far apart: each row's own
            // readings stay in the JSON (issue #45 item 3).
            let (clock, info): (Vec<_>, Vec<_>) = info
                .into_iter()
                .partition(|(t, _)| t.starts_with("clock readings"));
            let mut condensed = condense::condense_within(&info, AGREE);
            condensed.extend(condense::condense_within(&clock, f64::INFINITY));
            for c in &condensed {
                emit(section, prefix, &whom(results, &c.rows), &c.text);
            }
            if condensed.iter().any(|c| c.merged) {
                emit(
                    section,
                    "note",
                    "",
                    "a–b is the range over the rows named; the JSON keeps each row's own note",
                );
            }
            continue;
        }
        for (kind, text) in order.iter().filter(|(k, _)| kinds.contains(k)) {
            let rows = &rows_of[&(*kind as u8, text.clone())];
            emit(section, prefix, &whom(results, rows), text);
        }
        if section == Section::Warning {
            for c in condense::condense(&shared) {
                // `~` stands in the efficiency cells of the disturbed rows (alone
                // where there is no figure), and only when the column is shown.
                let marked: Vec<usize> = c
                    .rows
                    .iter()
                    .copied()
                    .filter(|&n| results[n - 1].efficiency.is_some() || results[n - 1].disturbed)
                    .collect();
                let text = match shown {
                    Some(s) if s.efficiency && marked == c.rows => {
                        format!("{} (marked ~ in the efficiency column)", c.text)
                    }
                    Some(s) if s.efficiency && !marked.is_empty() => format!(
                        "{} (marked ~ in the efficiency column of {})",
                        c.text,
                        row_refs(&marked)
                    ),
                    _ => c.text.clone(),
                };
                emit(section, prefix, &whom(results, &c.rows), &text);
            }
            for (advice, rows) in &cv_rows {
                let mark = if shown.is_some_and(|s| s.cv) {
                    " (marked * in the cv column)"
                } else {
                    ""
                };
                let text = format!(
                    "CV above {:.0} %{mark}: {advice}",
                    crate::report::model::CV_WARN * 100.0
                );
                emit(section, prefix, &whom(results, rows), &text);
            }
        }
    }
    for (i, r) in results.iter().enumerate() {
        for l in cells::reference_lines_short(r) {
            emit(Section::Reference, "reference ", &format!("#{}", i + 1), &l);
        }
    }
    lines
}

fn push_row(rows: &mut Vec<usize>, n: usize) {
    if rows.last() != Some(&n) {
        rows.push(n);
    }
}

/// The warnings of a report, each once (grouped as under the table), for stderr when
/// the table is not what went to stdout.
pub(crate) fn warnings(report: &Report, width: Option<usize>) -> Vec<String> {
    let params = cells::Params::of(&report.results.iter().collect::<Vec<_>>());
    notes(report, &params, width.map(|w| w.max(MIN_WIDTH)), None)
        .into_iter()
        .filter(|(section, _)| *section == Section::Warning)
        .map(|(_, l)| l)
        .collect()
}

#[cfg(test)]
mod widths;

#[cfg(test)]
mod tests {
    use super::*;

    fn render(report: &Report, width: Option<usize>) -> String {
        let mut buf = Vec::new();
        export(report, width, &mut buf).unwrap();
        String::from_utf8(buf).unwrap()
    }

    #[test]
    fn the_header_says_what_the_run_was_given_when_recorded() {
        let mut rep = crate::report::fixtures::report();
        assert!(!render(&rep, None).contains("given:"));
        rep.host.tuning = Some(crate::hw::tuning::Tuning {
            governor: Some("performance".into()),
            boost: Some(false),
            ..Default::default()
        });
        let s = render(&rep, None);
        let l = s.lines().nth(1).unwrap();
        assert!(
            l.starts_with("given: governor performance, boost off"),
            "{s}"
        );
    }

    #[test]
    fn table_has_rows_and_flags() {
        let s = render(&crate::report::fixtures::report(), None);
        assert!(s.contains("fma_f64_avx512"));
        assert!(s.contains("152.0 GFLOP/s"));
        assert!(s.contains("95.0 %"));
        assert!(s.contains("110.0 % OVER PEAK"));
        assert!(s.contains("skipped: CPU lacks amx-bf16"), "{s}");
        assert!(s.contains(": OVER PEAK"), "{s}");
    }

    /// A disk-like report: `cases` configurations of three results each, every
    /// configuration with the same engine note and a noisy CV, plus a CPU row.
    fn disk_report(cases: usize) -> Report {
        use crate::report::model::{Metric, ResourceName, Unit};
        let mut rep = crate::report::fixtures::report();
        for c in 0..cases {
            for (m, u) in [
                (Metric::Throughput, Unit::BytePerSec),
                (Metric::Iops, Unit::IoPerSec),
                (Metric::Latency, Unit::Second),
            ] {
                let mut r = BenchResult::new(ResourceName::Disk, "rand-read", m, u)
                    .size("block", 4096)
                    .param("depth", 1 + c as u64)
                    .param("engine", "uring")
                    .param("direct", true)
                    .param("pattern", "rand-read")
                    .with_samples(vec![1.0, 1.3, 0.8]);
                if m == Metric::Throughput {
                    r.info("io_uring, registered buffers; O_DIRECT; counts completed I/O like fio");
                }
                rep.results.push(r);
            }
        }
        rep
    }

    #[test]
    fn no_line_is_wider_than_the_width() {
        let rep = disk_report(8);
        for w in [40, 80, 120, 200] {
            let s = render(&rep, Some(w));
            for l in s.lines() {
                assert!(term::len(l) <= w, "{w}: {} > {w}: {l}", term::len(l));
            }
            // The numbers never wrap: every mean is whole on one line.
            assert!(s.contains("152.0 GFLOP/s"), "{w}:\n{s}");
            assert!(s.contains("skipped"), "{w}:\n{s}");
        }
        // Wide enough, every column shows; narrow, the optional ones go first.
        let wide = render(&rep, Some(200));
        assert!(
            wide.contains("min .. max") && wide.contains("metric"),
            "{wide}"
        );
        let narrow = render(&rep, Some(80));
        assert!(!narrow.contains("min .. max") && narrow.contains("efficiency"));
    }

    #[test]
    fn shared_notes_and_cv_warnings_are_printed_once() {
        let rep = disk_report(8);
        let s = render(&rep, Some(120));
        assert_eq!(s.matches("registered buffers").count(), 1, "{s}");
        // Every disk row is noisy (CV 24 %): one warning line for all of them.
        assert_eq!(s.matches("CV above 5 %").count(), 1, "{s}");
        assert!(s.contains("warning all disk rows: CV above 5 %"), "{s}");
        assert!(s.contains("note #4, #7, #10"), "{s}");
        // What every disk row shares is said once, not in every row.
        assert_eq!(s.matches("engine=uring").count(), 1, "{s}");
        assert!(s.contains("params all disk rows: block=4KiB direct=true engine=uring"));
        assert_eq!(s.matches("pattern=rand-read").count(), 1, "{s}");
        // Skip reasons are listed under the table, each once.
        assert_eq!(s.matches("CPU lacks amx-bf16").count(), 1, "{s}");
    }

    /// Issue 15: a real quick suite's notes that differ only in their numbers are one
    /// line each on the terminal where the rows agree (the clock readings of 12 CPU
    /// rows), while the JSON keeps every row's own note. Issue #32 F: where the rows'
    /// figures disagree (the latency percentiles of 8 disk rows, from 26 µs to 19 ms)
    /// each row keeps its own line, and its p99 is in the table.
    #[test]
    fn notes_differing_only_in_numbers_are_merged_on_the_terminal() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/quick_zen3_a.json"
        );
        let rep = crate::report::load::load(std::path::Path::new(path)).unwrap();
        let s = render(&rep, Some(120));
        let notes: Vec<&str> = s.lines().filter(|l| l.starts_with("note")).collect();
        assert!(notes.len() < 40, "{} notes:\n{s}", notes.len());
        assert_eq!(s.matches("clock readings").count(), 1, "{s}");
        assert!(
            s.contains("note #3-#14: clock readings before the samples and after each: 3.14–3.22 GHz; 3.196–3.220 GHz used"),
            "{s}"
        );
        assert_eq!(s.matches("clat p50").count(), 8, "{s}");
        assert!(!s.contains("(954–91718 I/Os)"), "{s}");
        assert!(
            s.contains("note #45: clat p50 26.56 µs p90 37.44 µs p99 121.0 µs"),
            "{s}"
        );
        assert!(s.contains("│ 121.0 µs"), "{s}");
        assert!(s.contains("the JSON keeps each row's own note"), "{s}");
        // Nothing else is lost: a note with no sibling is printed whole.
        assert!(s.contains("note #48: round trip (sockperf prints RTT/2): 52476 round trips"));
        // The report itself is untouched: every row keeps its own clock note.
        let clock: Vec<&str> = rep
            .results
            .iter()
            .flat_map(|r| &r.notes)
            .filter(|n| n.text.starts_with("clock readings"))
            .map(|n| n.text.as_str())
            .collect();
        assert_eq!(clock.len(), 12);
        assert!(clock
            .iter()
            .any(|t| t.contains("3.21, 3.22, 3.15, 3.14 GHz; 3.196 GHz used")));
        let mut json = Vec::new();
        crate::report::view::json::write(&rep, &mut json).unwrap();
        let json = String::from_utf8(json).unwrap();
        assert_eq!(json.matches("clock readings").count(), 12);
    }

    #[test]
    fn warnings_for_stderr_are_the_warning_lines() {
        let w = warnings(&disk_report(2), Some(80));
        assert!(w[0].starts_with("warning "), "{w:?}");
        assert!(w.iter().any(|l| l.contains("OVER PEAK")), "{w:?}");
        assert!(!w.iter().any(|l| l.starts_with("note ")), "{w:?}");
        assert!(w.iter().all(|l| term::len(l) <= 80), "{w:?}");
    }

    #[test]
    fn row_refs_join_runs() {
        assert_eq!(row_refs(&[1, 2, 3, 5, 7, 8]), "#1-#3, #5, #7, #8");
        assert_eq!(row_refs(&[4]), "#4");
    }
}
