//! The views, on one axis: every document peakbench writes is a [`Doc`] (a
//! [`Report`](crate::report::model::Report), a [`Comparison`](crate::report::compare::Comparison), a [`Fleet`](crate::report::fleet::Fleet), the host × host matrix of a cluster run,
//! a plain [`Grid`] such as the reference-tool list, or a [`TextDoc`] such as
//! `sysinfo`), and every format is one module that renders every document with one
//! match over [`Doc`]: [`table`], [`json`], [`csv`], [`markdown`], [`openmetrics`]
//! (a run's figures: it refuses the documents that have none), [`html`]. The registry
//! ([`FORMATS`]) lists the formats; [`export`] is the one dispatch.
//! `--format` offers the formats that suit a terminal (read from the registry), `--html
//! FILE` the page.
//!
//! Views are pure: they format what the document holds and never compute numbers of
//! their own. The cells the text views share (a result's mean, a change's interval, a
//! fleet workload's spread) are formatted once, in [`cells`]. CSV goes through the one
//! [`CsvWriter`](csv::CsvWriter) (sanitising and RFC 4180 quoting written once).
//!
//! Adding a format: one module here whose `FORMAT` names it and whose `write` matches
//! over [`Doc`], and one line in [`FORMATS`]. Adding a document: one [`Doc`] variant
//! (and a `From` for its type) and one arm in each format's `write`.

pub(crate) mod cells;
pub(crate) mod csv;
mod doc;
pub(crate) mod html;
pub(crate) mod json;
pub(crate) mod markdown;
pub(crate) mod openmetrics;
pub(crate) mod table;

pub use doc::{Doc, Format, Grid, Text, TextDoc};
use std::io::{self, Write};

/// The registry of formats, one line each; `--format` takes those marked `stdout`, in
/// this order.
const FORMATS: &[Format] = &[
    table::FORMAT,
    json::FORMAT,
    csv::FORMAT,
    markdown::FORMAT,
    openmetrics::FORMAT,
    html::FORMAT,
];

impl Format {
    /// Parses a `--format` value (`table`, `json`, `csv`, `markdown`/`md`; HTML goes to
    /// a file with `--html`, not to stdout).
    pub fn parse(s: &str) -> Option<Format> {
        FORMATS
            .iter()
            .find(|f| f.stdout && (f.name == s || f.aliases.contains(&s)))
            .copied()
    }

    /// Every format, in the registry's order.
    pub fn all() -> &'static [Format] {
        FORMATS
    }

    /// The format's name (`table`, `json`, `csv`, `markdown`, `html`).
    pub fn name(&self) -> &'static str {
        self.name
    }
}

/// Writes `doc` in `format`: the one dispatch over the formats (a table with no width
/// limit).
pub fn export<'a>(doc: impl Into<Doc<'a>>, format: Format, out: &mut dyn Write) -> io::Result<()> {
    export_fit(doc, format, None, out)
}

/// [`export`], the terminal table laid out within `width` columns (`--width`,
/// `COLUMNS` or the terminal's; `None`: no limit).
pub fn export_fit<'a>(
    doc: impl Into<Doc<'a>>,
    format: Format,
    width: Option<usize>,
    out: &mut dyn Write,
) -> io::Result<()> {
    (format.write)(doc.into(), width, out)
}

impl<T: serde::Serialize> Text for TextDoc<'_, T> {
    fn json(&self, out: &mut dyn Write) -> io::Result<()> {
        json::write(self.value, out)
    }
    fn text(&self, width: Option<usize>, out: &mut dyn Write) -> io::Result<()> {
        (self.text)(self.value, width, out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render<'a>(doc: impl Into<Doc<'a>>, f: Format) -> String {
        let mut buf = Vec::new();
        export(doc, f, &mut buf).unwrap();
        String::from_utf8(buf).unwrap()
    }

    #[test]
    fn every_document_in_every_format() {
        let rep = crate::report::fixtures::report();
        let names = vec!["a".to_string(), "b".to_string()];
        let reports = [
            crate::report::samples::compare_a(),
            crate::report::samples::compare_b(),
        ];
        let cmp = crate::report::compare::compare(&names, &reports);
        let fleet = crate::report::fleet::fleet(&names, &reports, Default::default());
        let grid = Grid {
            title: "tools",
            headers: &["tool", "status"],
            rows: vec![vec!["fio".into(), "installed, \"3.33\"".into()]],
            json: serde_json::json!({"tools": []}),
            footer: Some("end"),
        };
        let docs: [(Doc, &str); 5] = [
            (Doc::Report(&rep), "fma_f64_avx512"),
            (Doc::Comparison(&cmp), "fma_f64_avx512"),
            (Doc::Fleet(&fleet), "fma_f64_avx512"),
            (Doc::Matrix(&rep), "fma_f64_avx512"),
            (Doc::Grid(&grid), "fio"),
        ];
        for (doc, needle) in docs {
            for &f in FORMATS {
                // Only a run's figures are metrics: the others are refused.
                if f == openmetrics::FORMAT && !matches!(doc, Doc::Report(_) | Doc::Matrix(_)) {
                    assert!(export(doc, f, &mut Vec::new()).is_err());
                    continue;
                }
                let s = render(doc, f);
                let matrix_page = matches!(doc, Doc::Matrix(_)) && f == html::FORMAT;
                if (f != json::FORMAT || needle != "fio") && !matrix_page {
                    assert!(s.contains(needle), "{f:?}: {s}");
                }
                if f == html::FORMAT {
                    assert!(s.starts_with("<!DOCTYPE html>") && s.contains("</html>"));
                }
            }
        }
        assert_eq!(
            render(&grid, csv::FORMAT),
            "tool,status\nfio,\"installed, \"\"3.33\"\"\"\n"
        );
        assert!(render(&grid, table::FORMAT).ends_with("end\n"));
    }

    /// A comparison of files measured with different settings says so, in the table
    /// (within its width) and in Markdown (`compare`'s `different_settings_are_named`
    /// finds them).
    #[test]
    fn different_settings_show_in_table_and_markdown() {
        let a = crate::report::samples::compare_a();
        let mut b = a.clone();
        b.config = serde_json::json!({"repeat": 10});
        b.host.kernel = "6.9.0".into();
        let c = crate::report::compare::compare(&["a".into(), "b".into()], &[a, b]);
        let mut buf = Vec::new();
        export_fit(&c, table::FORMAT, Some(80), &mut buf).unwrap();
        let s = String::from_utf8(buf).unwrap();
        assert!(s.contains("measured with different settings"), "{s}");
        assert!(s.lines().all(|l| l.chars().count() <= 80), "{s}");
        let mut buf = Vec::new();
        export_fit(&c, markdown::FORMAT, None, &mut buf).unwrap();
        let s = String::from_utf8(buf).unwrap();
        assert!(s.contains("measured with different settings"), "{s}");
        assert!(s.contains("- b: kernel 6.9.0 (baseline"), "{s}");
    }

    /// The matrix of a cluster run: the HTML heat map and the table mark the one weak
    /// link and the failed one (`matrix`'s `grid_marks_weak_links_and_failed_ones`
    /// computes them).
    #[test]
    fn a_matrix_marks_weak_and_failed_links() {
        let rep = crate::report::fixtures::matrix();
        let h = render(Doc::Matrix(&rep), html::FORMAT);
        assert_eq!(h.matches(" WEAK</td>").count(), 1, "{h}");
        assert!(h.contains(">failed</td>") && h.contains("connection closed"));
        let t = render(Doc::Matrix(&rep), table::FORMAT);
        assert!(t.contains("WEAK") && t.contains("failed"), "{t}");
    }

    #[test]
    fn html_is_not_a_stdout_format() {
        assert_eq!(Format::parse("markdown"), Some(markdown::FORMAT));
        assert_eq!(Format::parse("md"), Some(markdown::FORMAT));
        assert_eq!(Format::parse("table"), Some(table::FORMAT));
        assert_eq!(Format::parse("html"), None);
        let names: Vec<&str> = FORMATS.iter().map(|f| f.name).collect();
        assert_eq!(
            names,
            ["table", "json", "csv", "markdown", "openmetrics", "html"]
        );
        assert_eq!(Format::parse("prometheus"), Some(openmetrics::FORMAT));
        assert_eq!(
            serde_json::to_value(csv::FORMAT).unwrap(),
            serde_json::json!("csv")
        );
    }
}
