//! Tests of the results table at every width (issue #32 C, F, 3, 5): every fixture
//! report laid out from 40 to 200 columns, cells wrapped only at separators, the
//! columns that carry meaning kept, the per-row tail figures in the table, and the
//! lines under the table true to what the table shows.

use super::*;
use crate::hw::peak::Peak;
use crate::report::model::{Metric, Note, ResourceName, Unit};

fn render(report: &Report, width: Option<usize>) -> String {
    let mut buf = Vec::new();
    export(report, width, &mut buf).unwrap();
    String::from_utf8(buf).unwrap()
}

/// Every report under tests/fixtures (the `peakbench/1` ones too).
fn fixtures() -> Vec<(String, Report)> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut out = Vec::new();
    for dir in [root.clone(), root.join("v1")] {
        let mut paths: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
            .collect();
        paths.sort();
        for p in paths {
            let rep = crate::report::load::load(&p).unwrap();
            out.push((p.display().to_string(), rep));
        }
    }
    assert!(out.len() >= 8, "{} fixtures", out.len());
    out
}

/// The table's lines split into cells: the header's column names, then per row
/// (a line whose `#` cell is set starts one) the lines of each column.
fn parse(s: &str) -> (Vec<String>, Vec<Vec<Vec<String>>>) {
    let lines: Vec<&str> = s.lines().collect();
    let rule = lines
        .iter()
        .position(|l| l.starts_with('─'))
        .expect("a header rule");
    let first = lines[..rule]
        .iter()
        .rposition(|l| !l.contains('│'))
        .map_or(0, |i| i + 1);
    let split = |l: &str| -> Vec<String> { l.split('│').map(|c| c.trim().to_string()).collect() };
    let mut headers: Vec<String> = Vec::new();
    for l in &lines[first..rule] {
        for (i, c) in split(l).into_iter().enumerate() {
            if i == headers.len() {
                headers.push(c);
            } else if !c.is_empty() {
                headers[i] = format!("{} {c}", headers[i]).trim().to_string();
            }
        }
    }
    let mut rows: Vec<Vec<Vec<String>>> = Vec::new();
    for l in lines[rule + 1..].iter().take_while(|l| l.contains('│')) {
        let cells = split(l);
        if !cells[0].is_empty() || rows.is_empty() {
            rows.push(vec![Vec::new(); headers.len()]);
        }
        let row = rows.last_mut().unwrap();
        for (i, c) in cells.into_iter().enumerate() {
            if !c.is_empty() {
                row[i].push(c);
            }
        }
    }
    (headers, rows)
}

const SEPARATORS: [char; 6] = ['=', ',', '_', '-', '/', ';'];

/// Issue #32 C: at every width from 40 to 200, for every fixture: no line is wider;
/// every cell's lines, put together, are the cell; a cell breaks only at a space or
/// after a separator unless one of its pieces is wider than its column; the resource
/// column stays while rows of several resources share the table, the cv column while
/// a warning points at its `*`; no column is empty in every row.
#[test]
fn every_fixture_fits_every_width_and_wraps_at_separators() {
    for (name, rep) in fixtures() {
        let params = cells::Params::of(&rep.results.iter().collect::<Vec<_>>());
        let want: Vec<[String; 12]> = rep
            .results
            .iter()
            .enumerate()
            .map(|(i, r)| super::cells(i + 1, r, &params.rows[i]).map(|c| sanitize::line(&c)))
            .collect();
        let several = rep
            .results
            .iter()
            .any(|r| r.resource != rep.results[0].resource);
        for w in 40..=200 {
            let s = render(&rep, Some(w));
            for l in s.lines() {
                assert!(term::len(l) <= w, "{name} at {w}: {l}");
            }
            if rep.results.is_empty() {
                continue;
            }
            // A stacked table (issue #45 item 3: params on lines of their own under
            // each row, `layout::stacked_lines`) is not a grid: its lines fit (above),
            // and `terminal::quick_suite_rows_take_at_most_two_lines` checks its rows.
            if s.lines().any(|l| l.trim_end().ends_with("│   params")) {
                continue;
            }
            let (headers, rows) = parse(&s);
            assert_eq!(rows.len(), rep.results.len(), "{name} at {w}:\n{s}");
            let col = |h: &str| headers.iter().position(|x| x == h);
            // Below 60 columns only the row number, the workload and the mean are
            // sure to fit, below 80 not the cv beside the efficiency.
            if several && w >= 60 {
                assert!(col("resource").is_some(), "{name} at {w}: {headers:?}");
            }
            if s.contains("(marked * in the cv column)")
                || (w >= 80 && want.iter().any(|c| c[CV].ends_with('*')))
            {
                assert!(col("cv").is_some(), "{name} at {w}: {headers:?}");
            }
            if s.contains("marked ~ in the efficiency column") {
                assert!(col("efficiency").is_some(), "{name} at {w}");
            }
            for (k, h) in headers.iter().enumerate() {
                let c = COLS
                    .iter()
                    .position(|c| c.header == h || (c.header == "mean" && h == "mean / p50"))
                    .unwrap_or_else(|| panic!("{name} at {w}: header {h:?}"));
                assert!(
                    rows.iter().any(|r| !r[k].is_empty()),
                    "{name} at {w}: column {h} is empty in every row"
                );
                let width = rows
                    .iter()
                    .flat_map(|r| r[k].iter().map(|l| term::len(l)))
                    .max()
                    .unwrap_or(0);
                for (i, r) in rows.iter().enumerate() {
                    let cell = &want[i][c];
                    let lines = &r[k];
                    let squeeze = |x: &str| x.split_whitespace().collect::<String>();
                    assert_eq!(
                        squeeze(&lines.concat()),
                        squeeze(cell),
                        "{name} at {w}: row {} column {h}:\n{s}",
                        i + 1
                    );
                    if layout::narrowest(cell) > width {
                        continue; // a piece wider than the column: cut, as it must be
                    }
                    for pair in lines.windows(2) {
                        let (a, b) = (&pair[0], &pair[1]);
                        let joined = format!("{a}{b}");
                        let spaced = format!("{a} {b}");
                        let at_separator = a.ends_with(SEPARATORS);
                        assert!(
                            at_separator || !cell.contains(&joined) || cell.contains(&spaced),
                            "{name} at {w}: row {} column {h} broken inside a token: {a:?} / {b:?}\n{s}",
                            i + 1
                        );
                    }
                }
            }
        }
    }
}

/// Issue #32 C: at 80 columns the quick suite keeps resource and cv (a warning points
/// at its `*`) and wraps `precision=fp16` whole or at its `=`, never as `fp1` / `6`.
#[test]
fn eighty_columns_keep_what_carries_meaning() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/quick_zen3_a.json"
    );
    let rep = crate::report::load::load(std::path::Path::new(path)).unwrap();
    let s = render(&rep, Some(80));
    let header = s.lines().nth(1).unwrap();
    assert!(header.contains(" resource "), "{s}");
    assert!(header.contains(" cv "), "{s}");
    assert!(s.contains("(marked * in the cv column)"), "{s}");
    assert!(!s.contains("│ fp1 ") && !s.contains("│ 6 "), "{s}");
    // The gpu rows say they are gpu rows.
    assert!(
        s.lines().any(|l| l.contains("│ gpu ") && l.contains("fma")),
        "{s}"
    );
}

/// Issue #32 C: a column empty in every row is left out (here: no row has a peak, so
/// neither peak nor efficiency).
#[test]
fn columns_empty_in_every_row_are_left_out() {
    let mut rep = crate::report::fixtures::report();
    for r in &mut rep.results {
        r.peak = None;
        r.efficiency = None;
        r.over_peak = false;
        r.notes.retain(|n| n.kind != NoteKind::OverPeak);
    }
    for w in [None, Some(80), Some(200)] {
        let s = render(&rep, w);
        let header = s.lines().nth(1).unwrap();
        assert!(!header.contains("efficiency"), "{w:?}: {s}");
        assert!(!header.contains("peak"), "{w:?}: {s}");
        assert!(header.contains("mean"), "{w:?}: {s}");
    }
}

/// A UDP throughput row with its loss and a latency row with percentiles.
fn net_rows(rep: &mut Report) {
    use crate::measure::Percentiles;
    let mut udp = BenchResult::new(
        ResourceName::Net,
        "udp_throughput",
        Metric::Throughput,
        Unit::BytePerSec,
    )
    .param("proto", "udp")
    .param("streams", 1)
    .with_samples(vec![2.0e8, 2.1e8, 2.05e8]);
    udp.loss = Some(crate::report::model::Loss {
        lost: 15009,
        sent: 59822,
    });
    udp.info("UDP: 15009 of 59822 datagrams lost (25.09 %), 0 reordered, jitter 10.17 µs");
    let mut udp2 = udp.clone();
    udp2.loss = Some(crate::report::model::Loss {
        lost: 177804,
        sent: 243833,
    });
    udp2.notes.clear();
    udp2.info("UDP: 177804 of 243833 datagrams lost (72.92 %), 0 reordered, jitter 10.17 µs");
    let mut lat = BenchResult::new(
        ResourceName::Net,
        "tcp_latency",
        Metric::Latency,
        Unit::Second,
    )
    .param("proto", "tcp")
    .with_samples(vec![57e-6, 58e-6, 56e-6]);
    lat.percentiles = Some(Percentiles {
        p50: 14.4e-6,
        p90: 18.6e-6,
        p99: 50.69e-6,
        p99_9: 9.96e-3,
        max: 16.1e-3,
    });
    rep.results.extend([udp, udp2, lat]);
}

/// Issue #32 F: the UDP loss and the p99 of each row are in the table, and notes
/// whose figures disagree are not merged into a range.
#[test]
fn loss_and_p99_are_per_row_and_ranges_only_where_rows_agree() {
    let mut rep = crate::report::fixtures::report();
    net_rows(&mut rep);
    for w in [Some(100), Some(120), None] {
        let s = render(&rep, w);
        assert!(s.contains("p99 /"), "{w:?}: {s}");
        assert!(s.contains("│ 25.09 %"), "{w:?}: {s}");
        assert!(s.contains("│ 72.92 %"), "{w:?}: {s}");
        if w != Some(100) {
            assert!(s.contains("25.09 % lost"), "{w:?}: {s}");
        }
        assert!(s.contains("50.69 µs"), "{w:?}: {s}");
        assert!(!s.contains("25.09–72.92"), "{w:?}: {s}");
        assert!(s.contains("note #4: UDP: 15009 of 59822"), "{w:?}: {s}");
    }
    // Old files: the loss from the note.
    rep.results[3].loss = None;
    assert!(render(&rep, None).contains("25.09 % lost"));
}

/// Issue #32 item 3: one sample shows `n=1` and no range, not a CV of 0.
#[test]
fn one_sample_is_shown_as_such() {
    let mut rep = crate::report::fixtures::report();
    rep.results[0] = crate::report::samples::fma(1, vec![13.93e9]);
    let s = render(&rep, Some(200));
    let row = s.lines().find(|l| l.starts_with(" 1 ")).unwrap();
    assert!(row.contains("│ n=1 "), "{s}");
    assert!(!row.contains("0.0 %"), "{s}");
    assert!(row.contains("│ — "), "{s}");
}

/// Issue #32 item 5: `marked ~ in the efficiency column` only for rows that show an
/// efficiency; a bare `unknown` peak is explained once under the table, with the
/// `--peak` that sets it.
#[test]
fn disturbed_marks_and_unknown_peaks_are_said_truly() {
    let mut rep = crate::report::fixtures::report();
    let mut mem = BenchResult::new(
        ResourceName::Memory,
        "triad",
        Metric::Throughput,
        Unit::BytePerSec,
    )
    .param("threads", 1)
    .with_samples(vec![2.0e10, 2.1e10, 2.05e10])
    .with_peak(Peak::unknown("SMBIOS unreadable"));
    mem.disturbed = true;
    mem.notes.push(Note::new(
        NoteKind::Shared,
        "shared machine: thread 0 had 80 % of cpu1",
    ));
    let mem2 = mem.clone();
    rep.results.push(mem);
    rep.results.push(mem2);
    let s = render(&rep, Some(200));
    // Issue #45 item 4: disturbed rows without a peak carry `~` too, and say so.
    assert!(
        s.contains("warning all memory rows: shared machine: thread 0 had 80 % of cpu1 (marked ~ in the efficiency column)\n"),
        "{s}"
    );
    assert!(
        s.lines()
            .filter(|l| l.contains("│ memory"))
            .all(|l| l.split('│').any(|c| c.trim() == "~")),
        "{s}"
    );
    assert!(
        s.contains("peak all memory rows: unknown: SMBIOS unreadable; set it with --peak memory=…"),
        "{s}"
    );
    assert_eq!(s.matches("SMBIOS unreadable").count(), 1, "{s}");
    // A disturbed row that shows its efficiency is said to be marked.
    rep.results[0].disturbed = true;
    rep.results[0].notes.push(Note::new(
        NoteKind::Shared,
        "shared machine: thread 0 had 80 % of cpu1",
    ));
    let s = render(&rep, Some(200));
    assert!(
        s.contains("shared machine: thread 0 had 80 % of cpu1 (marked ~ in the efficiency column)"),
        "{s}"
    );
    // Where the efficiency column is not shown, no mark is promised.
    let s = render(&rep, Some(40));
    if !s.lines().nth(1).unwrap().contains("efficiency") {
        assert!(!s.contains("marked ~"), "{s}");
    }
}
