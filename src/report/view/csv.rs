//! CSV: rows of raw numbers in the model's units (no SI prefixes), so spreadsheets and
//! scripts get full precision, through the one CSV writer ([`CsvWriter`]).
//!
//! A report (and a matrix run): one row per result. After the fixed columns come one
//! column per parameter (`param_<key>`, raw: sizes in bytes) and, per reference tool
//! in the report, its figure, its efficiency against the same peak and peakbench's
//! mean over it (`ref_<tool>`, `ref_<tool>_efficiency`, `ratio_<tool>`). A comparison:
//! one row per change (unmatched cases are not rows). A fleet: one row per workload
//! and host. A grid: its headers and rows. A text document: its terminal text.

use super::{cells, Doc, Format, Grid};
use crate::report::compare::Comparison;
use crate::report::fleet::Fleet;
use crate::report::model::{BenchResult, Report, Status};
use std::io::{self, Write};

/// `--format csv`.
pub(crate) const FORMAT: Format = Format {
    name: "csv",
    aliases: &[],
    stdout: true,
    write,
};

/// Writes `doc` as CSV.
fn write(doc: Doc<'_>, _width: Option<usize>, out: &mut dyn Write) -> io::Result<()> {
    let mut out = CsvWriter::new(out);
    match doc {
        Doc::Report(r) | Doc::Matrix(r) => export(r, &mut out),
        Doc::Comparison(c) => comparison(c, &mut out),
        Doc::Fleet(f) => fleet(f, &mut out),
        Doc::Grid(g) => grid(g, &mut out),
        Doc::Series(s) => {
            out.record(&cells::series::HEADERS)?;
            for r in cells::series::rows(s, true) {
                out.record(&r)?;
            }
            Ok(())
        }
        Doc::Text(t) => t.text(None, out.text()),
    }
}

/// The one CSV writer: every field is sanitised ([`crate::util::sanitize`]: a file's
/// text may carry control characters) and quoted when it holds a comma or a quote
/// (RFC 4180). Numbers and booleans pass unchanged.
pub(crate) struct CsvWriter<'a> {
    out: &'a mut dyn Write,
}

impl<'a> CsvWriter<'a> {
    /// A writer into `out`.
    pub(crate) fn new(out: &'a mut dyn Write) -> CsvWriter<'a> {
        CsvWriter { out }
    }

    /// The writer underneath, unsanitised: only for documents with no rows of their
    /// own ([`TextDoc`](super::TextDoc)), which print their terminal text in every format but JSON.
    fn text(&mut self) -> &mut dyn Write {
        self.out
    }

    /// One record (a header or a row), ended by a newline.
    pub(crate) fn record<S: AsRef<str>>(&mut self, fields: &[S]) -> io::Result<()> {
        let line: Vec<String> = fields.iter().map(|f| field(f.as_ref())).collect();
        writeln!(self.out, "{}", line.join(","))
    }
}

/// An optional number as a CSV field: full precision, empty when absent.
pub(crate) fn opt_num(x: Option<f64>) -> String {
    x.map_or(String::new(), |v| format!("{v}"))
}

/// One CSV field: sanitised, defused when a spreadsheet would take it for a formula,
/// then quoted when it holds a comma or quote.
fn field(s: &str) -> String {
    let s = defuse(crate::util::sanitize::line(s));
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s
    }
}

/// A text cell that starts with `=`, `+`, `-` or `@` gets a `'` in front (the OWASP
/// rule against CSV injection, issue #33 item 7): a spreadsheet would otherwise run a
/// host name or note of `=HYPERLINK(…)` as a formula. Numbers (`-1.5`, `+3e-9`) stay
/// numbers. Tab and carriage return, the rule's other two starters, never reach here:
/// the sanitiser writes them as `\t` and `\r`.
fn defuse(s: String) -> String {
    let numeric = |s: &str| {
        s.bytes()
            .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-'))
            && s.parse::<f64>().is_ok()
    };
    if s.starts_with(['=', '+', '-', '@']) && !numeric(&s) {
        format!("'{s}")
    } else {
        s
    }
}

const HEADER: &str = "resource,workload,params,metric,unit,n,mean,sd,min,max,median,cv,ci95_low,ci95_high,peak,peak_source,efficiency,over_peak,clock_hz,status,reason";

/// Every parameter key and every reference tool of the report, each once, sorted.
fn extra_keys(report: &Report) -> (Vec<String>, Vec<String>) {
    let mut params: Vec<String> = Vec::new();
    let mut tools: Vec<String> = Vec::new();
    for r in &report.results {
        for k in r.params.keys() {
            if !params.contains(k) {
                params.push(k.clone());
            }
        }
        for x in r.reference.iter().flatten() {
            if !tools.contains(&x.tool) {
                tools.push(x.tool.clone());
            }
        }
    }
    params.sort();
    tools.sort();
    (params, tools)
}

/// The per-parameter and per-tool cells of one result (see the module doc).
fn extra_cells(r: &BenchResult, params: &[String], tools: &[String]) -> Vec<String> {
    let mut cells: Vec<String> = params
        .iter()
        .map(|k| r.params.get(k).map_or(String::new(), |v| v.to_string()))
        .collect();
    let mean = r.summary.as_ref().map(|s| s.mean);
    let peak = r.peak.as_ref().and_then(|p| p.value);
    for t in tools {
        let x = r.reference.iter().flatten().find(|x| &x.tool == t);
        let v = x.map(|x| x.value);
        cells.push(opt_num(v));
        cells.push(opt_num(v.zip(peak).and_then(|(v, p)| {
            crate::report::model::efficiency(r.metric, v, p)
        })));
        cells.push(opt_num(
            mean.zip(v).filter(|(_, v)| *v != 0.0).map(|(m, v)| m / v),
        ));
    }
    cells
}

/// Writes the header and one line per result.
fn export(report: &Report, out: &mut CsvWriter) -> std::io::Result<()> {
    let (params, tools) = extra_keys(report);
    let mut header: Vec<String> = HEADER.split(',').map(str::to_string).collect();
    header.extend(params.iter().map(|k| format!("param_{k}")));
    for t in &tools {
        header.push(format!("ref_{t}"));
        header.push(format!("ref_{t}_efficiency"));
        header.push(format!("ratio_{t}"));
    }
    out.record(&header)?;
    for r in &report.results {
        let s = r.summary.as_ref();
        // One sample has no spread: sd, cv and the interval stay empty rather than a
        // 0 a spreadsheet would plot as a zero-width error bar (issue #45).
        let spread = s.filter(|s| s.n > 1);
        let (status, reason) = match &r.status {
            Status::Ok => ("ok", String::new()),
            Status::Skipped { reason } => ("skipped", reason.clone()),
            Status::Failed { error } => ("failed", error.clone()),
        };
        let cells = [
            r.resource.to_string(),
            r.workload.clone(),
            cells::params(r),
            r.metric.to_string(),
            r.unit.to_string(),
            s.map_or(String::new(), |s| s.n.to_string()),
            opt_num(s.map(|s| s.mean)),
            opt_num(spread.map(|s| s.sd)),
            opt_num(s.map(|s| s.min)),
            opt_num(s.map(|s| s.max)),
            opt_num(s.map(|s| s.median)),
            opt_num(spread.map(|s| s.cv)),
            opt_num(spread.map(|s| s.ci95_low)),
            opt_num(spread.map(|s| s.ci95_high)),
            opt_num(r.peak.as_ref().and_then(|p| p.value)),
            r.peak.as_ref().map_or(String::new(), |p| p.source.clone()),
            opt_num(r.efficiency),
            r.over_peak.to_string(),
            opt_num(r.clock_hz),
            status.to_string(),
            reason,
        ];
        let mut cells = cells.to_vec();
        cells.extend(extra_cells(r, &params, &tools));
        out.record(&cells)?;
    }
    Ok(())
}

/// CSV header of [`comparison`].
const COMPARE_HEADER: &str = "resource,workload,params,metric,unit,baseline,against,n_a,mean_a,sd_a,n_b,mean_b,sd_b,diff,ci95_low,ci95_high,rel,rel_ci95_low,rel_ci95_high,df,significant,verdict";

/// One CSV line per change, raw numbers; unmatched cases are not rows.
fn comparison(c: &Comparison, out: &mut CsvWriter) -> std::io::Result<()> {
    out.record(&COMPARE_HEADER.split(',').collect::<Vec<_>>())?;
    let base = c.files.first().map_or("", |s| s);
    for ch in &c.changes {
        let k = &ch.case;
        let cells = [
            k.resource.to_string(),
            k.workload.clone(),
            k.params.clone(),
            k.metric.to_string(),
            k.unit.to_string(),
            base.to_string(),
            ch.against.clone(),
            ch.a.n.to_string(),
            format!("{}", ch.a.mean),
            format!("{}", ch.a.sd),
            ch.b.n.to_string(),
            format!("{}", ch.b.mean),
            format!("{}", ch.b.sd),
            format!("{}", ch.diff),
            opt_num(ch.ci95.map(|c| c.0)),
            opt_num(ch.ci95.map(|c| c.1)),
            opt_num(ch.rel),
            opt_num(ch.rel_ci95.map(|c| c.0)),
            opt_num(ch.rel_ci95.map(|c| c.1)),
            opt_num(ch.df),
            ch.significant.map_or(String::new(), |s| s.to_string()),
            ch.verdict.clone(),
        ];
        out.record(&cells)?;
    }
    Ok(())
}

/// CSV header: one row per workload and host.
pub(crate) const FLEET_HEADER: &str = "resource,workload,params,metric,unit,settings,host,value,median,mad,iqr,z,below_median,outlier,side";

/// One line per workload and host.
fn fleet(f: &Fleet, out: &mut CsvWriter) -> io::Result<()> {
    out.record(&FLEET_HEADER.split(',').collect::<Vec<_>>())?;
    for w in &f.workloads {
        let k = &w.case;
        for h in &w.hosts {
            out.record(&[
                k.resource.to_string(),
                k.workload.clone(),
                k.params.clone(),
                k.metric.to_string(),
                k.unit.to_string(),
                w.settings.clone().unwrap_or_default(),
                h.host.clone(),
                format!("{}", h.value),
                format!("{}", w.median),
                format!("{}", w.mad),
                format!("{}", w.iqr),
                opt_num(h.z),
                opt_num(h.below_median),
                h.outlier.to_string(),
                h.side.unwrap_or("").to_string(),
            ])?;
        }
    }
    Ok(())
}

/// The grid's headers, then its rows.
fn grid(g: &Grid<'_>, out: &mut CsvWriter) -> io::Result<()> {
    out.record(g.headers)?;
    for r in &g.rows {
        out.record(r)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_rows() {
        let mut buf = Vec::new();
        export(
            &crate::report::fixtures::report(),
            &mut CsvWriter::new(&mut buf),
        )
        .unwrap();
        let s = String::from_utf8(buf).unwrap();
        let lines: Vec<&str> = s.lines().collect();
        assert_eq!(lines.len(), 4);
        assert!(lines[0].starts_with(HEADER));
        // One column per parameter.
        assert!(
            lines[0].ends_with(",reason,param_isa,param_precision,param_threads"),
            "{}",
            lines[0]
        );
        let cols = lines[0].split(',').count();
        assert!(lines[1].starts_with(
            "cpu,fma_f64_avx512,isa=avx512 precision=fp64 threads=2,ops,FLOP/s,3,152000000000,"
        ));
        assert!(lines[2].contains(",true,"));
        assert!(
            lines[3].contains(",skipped,CPU lacks amx-bf16,"),
            "{}",
            lines[3]
        );
        for l in &lines[1..] {
            assert_eq!(l.split(',').count(), cols, "{l}");
        }
    }

    /// Issue #45: at n = 1 the CSV wrote sd 0, cv 0 and a zero-width interval, which a
    /// plot draws as an error bar of nothing; those cells are empty now, the rest kept.
    #[test]
    fn one_sample_leaves_sd_cv_and_the_interval_empty() {
        let mut rep = crate::report::fixtures::report();
        let s = rep.results[0].summary.as_mut().unwrap();
        s.n = 1;
        s.sd = 0.0;
        s.cv = 0.0;
        s.ci95_low = s.mean;
        s.ci95_high = s.mean;
        let mut buf = Vec::new();
        export(&rep, &mut CsvWriter::new(&mut buf)).unwrap();
        let s = String::from_utf8(buf).unwrap();
        let head: Vec<&str> = s.lines().next().unwrap().split(',').collect();
        let row: Vec<&str> = s.lines().nth(1).unwrap().split(',').collect();
        let cell = |k: &str| row[head.iter().position(|h| *h == k).unwrap()];
        assert_eq!(cell("n"), "1");
        for k in ["sd", "cv", "ci95_low", "ci95_high"] {
            assert_eq!(cell(k), "", "{k} at n = 1: {s}");
        }
        assert_eq!(cell("mean"), "152000000000");
        // More samples keep every cell.
        let row: Vec<&str> = s.lines().nth(2).unwrap().split(',').collect();
        assert!(!row[head.iter().position(|h| *h == "sd").unwrap()].is_empty());
    }

    #[test]
    fn reference_columns_carry_figure_efficiency_and_ratio() {
        let rep = crate::report::samples::mixed();
        let mut buf = Vec::new();
        export(&rep, &mut CsvWriter::new(&mut buf)).unwrap();
        let s = String::from_utf8(buf).unwrap();
        let mut lines = s.lines();
        let header: Vec<&str> = lines.next().unwrap().split(',').collect();
        let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
        let row: Vec<&str> = lines.next().unwrap().split(',').collect();
        // peakbench 76 GFLOP/s, likwid-bench 77 GFLOP/s, peak 80 GFLOP/s.
        assert_eq!(row[col("ref_likwid-bench")], "77000000000");
        assert_eq!(row[col("ref_likwid-bench_efficiency")], "0.9625");
        let ratio: f64 = row[col("ratio_likwid-bench")].parse().unwrap();
        assert!((ratio - 76.0 / 77.0).abs() < 1e-12);
        assert_eq!(row[col("param_threads")], "1");
        assert_eq!(row[col("param_precision")], "fp64");
    }

    #[test]
    fn csv_fields_are_sanitised_and_quoted() {
        assert_eq!(field("plain"), "plain");
        assert_eq!(field("1.5e-9"), "1.5e-9");
        assert_eq!(field("a,b"), "\"a,b\"");
        assert_eq!(field("say \"x\""), "\"say \"\"x\"\"\"");
        assert_eq!(field("two\nlines"), "two\\nlines");
        let mut buf = Vec::new();
        CsvWriter::new(&mut buf).record(&["a", "b,c", ""]).unwrap();
        assert_eq!(buf, b"a,\"b,c\",\n");
    }

    /// Issue #33 item 7: a cell a spreadsheet would run as a formula is text.
    #[test]
    fn issue_33_formula_cells_are_defused_and_numbers_stay_numbers() {
        assert_eq!(
            field("=HYPERLINK(\"http://x\",\"y\")"),
            "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\""
        );
        assert_eq!(field("@SUM(A1)"), "'@SUM(A1)");
        assert_eq!(field("+cmd|' /C calc'!A0"), "'+cmd|' /C calc'!A0");
        assert_eq!(field("-2+3"), "'-2+3");
        assert_eq!(field("-"), "'-");
        assert_eq!(field("-inf"), "'-inf");
        for n in ["-1.5", "+3e-9", "-0", "-1E+300", "12", "0.25"] {
            assert_eq!(field(n), n);
        }
        // Only the start counts: a formula sign inside a cell is plain text.
        assert_eq!(field("a=b"), "a=b");
        let mut r = crate::report::fixtures::report();
        r.host.hostname = "=1+1".into();
        r.results[0].workload = "=HYPERLINK(\"http://x\")".into();
        let mut buf = Vec::new();
        export(&r, &mut CsvWriter::new(&mut buf)).unwrap();
        let s = String::from_utf8(buf).unwrap();
        let row = s.lines().nth(1).unwrap();
        assert!(row.starts_with("cpu,\"'=HYPERLINK("), "{row}");
        assert!(
            s.lines().all(|l| l
                .split(',')
                .all(|c| !c.starts_with('=') && !c.starts_with("\"="))),
            "{s}"
        );
    }
}
