//! The views, on one axis: every document peakbench writes is a [`Doc`] (a
//! [`Report`], a [`Comparison`], a [`Fleet`], the host × host matrix of a cluster run,
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
pub(crate) mod html;
pub(crate) mod json;
pub(crate) mod markdown;
pub(crate) mod openmetrics;
pub(crate) mod table;

use super::compare::Comparison;
use super::fleet::Fleet;
use super::model::Report;
use super::series::Series;
use std::fmt;
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

/// A document to be written in a [`Format`].
#[derive(Clone, Copy)]
pub enum Doc<'a> {
    /// A results file.
    Report(&'a Report),
    /// `peakbench compare`.
    Comparison(&'a Comparison),
    /// `peakbench fleet`.
    Fleet(&'a Fleet),
    /// A gathered `net --matrix` report: the report, and its host × host grids (the
    /// terminal adds them under the table, the page is a heat map of them).
    Matrix(&'a Report),
    /// `peakbench history show`: cases over time with their change points.
    Series(&'a Series),
    /// A plain table of text (the reference-tool list).
    Grid(&'a Grid<'a>),
    /// A document that is its terminal text in every format but JSON (`sysinfo`, `gpu
    /// --list`).
    Text(&'a dyn Text),
}

impl<'a> From<&'a Report> for Doc<'a> {
    fn from(r: &'a Report) -> Doc<'a> {
        Doc::Report(r)
    }
}

impl<'a> From<&'a Comparison> for Doc<'a> {
    fn from(c: &'a Comparison) -> Doc<'a> {
        Doc::Comparison(c)
    }
}

impl<'a> From<&'a Fleet> for Doc<'a> {
    fn from(f: &'a Fleet) -> Doc<'a> {
        Doc::Fleet(f)
    }
}

impl<'a> From<&'a Series> for Doc<'a> {
    fn from(s: &'a Series) -> Doc<'a> {
        Doc::Series(s)
    }
}

impl<'a> From<&'a Grid<'a>> for Doc<'a> {
    fn from(g: &'a Grid<'a>) -> Doc<'a> {
        Doc::Grid(g)
    }
}

impl<'a, T: serde::Serialize> From<&'a TextDoc<'a, T>> for Doc<'a> {
    fn from(t: &'a TextDoc<'a, T>) -> Doc<'a> {
        Doc::Text(t)
    }
}

/// One output format: an entry of the registry ([`FORMATS`]), declared by its module
/// as `FORMAT`. Serialised as its name (`"table"`), as the report's `config` records
/// `--format`.
#[derive(Clone, Copy)]
pub struct Format {
    /// What `--format` takes (`table`), and the name in the report's `config`.
    pub(crate) name: &'static str,
    /// Other names `--format` takes (`md`).
    pub(crate) aliases: &'static [&'static str],
    /// Whether `--format` offers it (HTML is written to a file with `--html`).
    pub(crate) stdout: bool,
    /// Writes a document within a width (`None`: no limit; only the table adapts).
    pub(crate) write: fn(Doc<'_>, Option<usize>, &mut dyn Write) -> io::Result<()>,
}

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

impl PartialEq for Format {
    fn eq(&self, other: &Format) -> bool {
        self.name == other.name
    }
}

impl Eq for Format {}

impl fmt::Debug for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)
    }
}

impl serde::Serialize for Format {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name)
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

/// A plain table of text (headers and rows) for documents that are just that, such as
/// the reference-tool list; its JSON form is given (it is the document's own shape,
/// not the grid's), and a line may follow the terminal table.
pub struct Grid<'a> {
    /// Page title (HTML) and heading (Markdown).
    pub(crate) title: &'a str,
    /// Column headers.
    pub(crate) headers: &'a [&'a str],
    /// Rows of cells, one per header.
    pub(crate) rows: Vec<Vec<String>>,
    /// The JSON form.
    pub(crate) json: serde_json::Value,
    /// A line printed under the terminal table, if any.
    pub(crate) footer: Option<&'a str>,
}

/// A document that is its terminal text in every format but JSON (`sysinfo`,
/// `gpu --list`): its JSON form is `value` itself, its text what `text` prints within
/// a width (`None`: no limit). They have no rows for CSV or Markdown and no page of
/// their own.
pub struct TextDoc<'a, T> {
    /// What the JSON form holds.
    pub(crate) value: &'a T,
    /// Prints the terminal text within the width.
    pub(crate) text: fn(&T, Option<usize>, &mut dyn Write) -> io::Result<()>,
}

/// What [`Doc::Text`] holds: a [`TextDoc`] of any serialisable value.
pub trait Text {
    /// The JSON form.
    fn json(&self, out: &mut dyn Write) -> io::Result<()>;
    /// The terminal text within `width` columns (`None`: no limit).
    fn text(&self, width: Option<usize>, out: &mut dyn Write) -> io::Result<()>;
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
