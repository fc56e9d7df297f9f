//! The exporter seam: every document peakbench writes (a [`Report`], a
//! [`Comparison`], a plain [`Grid`] such as the reference-tool list) is an
//! [`Exportable`] with one method per [`Format`], and [`export`] is the one dispatch
//! over the formats. HTML is a format like the others; `--format` offers the four that
//! suit a terminal, `--html FILE` the fifth.
//!
//! Exporters are pure: they format what the document holds and never compute numbers
//! of their own. CSV goes through the one [`CsvWriter`] (sanitising and RFC 4180
//! quoting written once).
//!
//! Adding a format: one [`Format`] variant, one method on [`Exportable`], one arm in
//! [`export`]; adding a document: one `impl Exportable`.

use super::compare::Comparison;
use super::csv::CsvWriter;
use super::model::Report;
use super::{compare, csv, html, json, markdown, table};
use std::io::{self, Write};

/// Output formats. `--format` takes the first four (stdout); HTML is written to a file
/// with `--html`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// Terminal table.
    Table,
    /// The document as JSON.
    Json,
    /// One row per result.
    Csv,
    /// A GitHub-flavoured Markdown table.
    Markdown,
    /// A self-contained HTML page (inline CSS and SVG).
    Html,
}

impl Format {
    /// Parses a `--format` value (`table`, `json`, `csv`, `markdown`/`md`; HTML goes to
    /// a file with `--html`, not to stdout).
    pub fn parse(s: &str) -> Option<Format> {
        match s {
            "table" => Some(Format::Table),
            "json" => Some(Format::Json),
            "csv" => Some(Format::Csv),
            "markdown" | "md" => Some(Format::Markdown),
            _ => None,
        }
    }
}

/// A document that can be written in every [`Format`].
pub trait Exportable {
    /// The terminal view.
    fn table(&self, out: &mut dyn Write) -> io::Result<()>;
    /// The terminal view within `width` columns (`None`: no limit); documents whose
    /// table does not adapt print [`Exportable::table`].
    fn table_fit(&self, out: &mut dyn Write, width: Option<usize>) -> io::Result<()> {
        let _ = width;
        self.table(out)
    }
    /// The JSON form (for a report, the source of truth).
    fn json(&self, out: &mut dyn Write) -> io::Result<()>;
    /// Rows of raw numbers for spreadsheets and scripts.
    fn csv(&self, out: &mut CsvWriter) -> io::Result<()>;
    /// A Markdown table.
    fn markdown(&self, out: &mut dyn Write) -> io::Result<()>;
    /// A self-contained HTML page.
    fn html(&self, out: &mut dyn Write) -> io::Result<()>;
}

/// Writes `doc` in `format`: the one dispatch over the formats (a table with no width
/// limit).
pub fn export(doc: &dyn Exportable, format: Format, out: &mut dyn Write) -> io::Result<()> {
    export_fit(doc, format, None, out)
}

/// [`export`], the terminal table laid out within `width` columns (`--width`,
/// `COLUMNS` or the terminal's; `None`: no limit).
pub fn export_fit(
    doc: &dyn Exportable,
    format: Format,
    width: Option<usize>,
    out: &mut dyn Write,
) -> io::Result<()> {
    match format {
        Format::Table => doc.table_fit(out, width),
        Format::Json => doc.json(out),
        Format::Csv => doc.csv(&mut CsvWriter::new(out)),
        Format::Markdown => doc.markdown(out),
        Format::Html => doc.html(out),
    }
}

/// A plain table of text (headers and rows) for documents that are just that, such as
/// the reference-tool list; its JSON form is given (it is the document's own shape,
/// not the grid's), and a line may follow the terminal table.
pub struct Grid<'a> {
    /// Page title (HTML) and heading (Markdown).
    pub title: &'a str,
    /// Column headers.
    pub headers: &'a [&'a str],
    /// Rows of cells, one per header.
    pub rows: Vec<Vec<String>>,
    /// The JSON form.
    pub json: serde_json::Value,
    /// A line printed under the terminal table, if any.
    pub footer: Option<&'a str>,
}

impl Exportable for Grid<'_> {
    fn table(&self, out: &mut dyn Write) -> io::Result<()> {
        self.table_fit(out, None)
    }

    fn table_fit(&self, out: &mut dyn Write, width: Option<usize>) -> io::Result<()> {
        use comfy_table::{presets::UTF8_FULL_CONDENSED, Table};
        let mut t = Table::new();
        t.load_preset(UTF8_FULL_CONDENSED).set_header(self.headers);
        crate::util::term::fit_table(&mut t, width);
        for r in &self.rows {
            t.add_row(r.iter().map(|c| crate::util::sanitize::line(c)));
        }
        writeln!(out, "{t}")?;
        if let Some(f) = self.footer {
            write!(out, "{}", crate::util::term::fit_text(f, width))?;
        }
        Ok(())
    }

    fn json(&self, out: &mut dyn Write) -> io::Result<()> {
        json::write(&self.json, out)
    }

    fn csv(&self, out: &mut CsvWriter) -> io::Result<()> {
        out.record(self.headers)?;
        for r in &self.rows {
            out.record(r)?;
        }
        Ok(())
    }

    fn markdown(&self, out: &mut dyn Write) -> io::Result<()> {
        markdown::grid(self.headers, &self.rows, out)
    }

    fn html(&self, out: &mut dyn Write) -> io::Result<()> {
        out.write_all(html::render_grid(self.title, self.headers, &self.rows).as_bytes())
    }
}

/// A document that is its terminal text in every format but JSON (`sysinfo`,
/// `gpu --list`): its JSON form is `value` itself, its text what `text` prints within
/// a width (`None`: no limit). They have no rows for CSV or Markdown and no page of
/// their own.
pub struct TextDoc<'a, T> {
    /// What the JSON form holds.
    pub value: &'a T,
    /// Prints the terminal text within the width.
    pub text: fn(&T, Option<usize>, &mut dyn Write) -> io::Result<()>,
}

impl<T: serde::Serialize> Exportable for TextDoc<'_, T> {
    fn table(&self, out: &mut dyn Write) -> io::Result<()> {
        (self.text)(self.value, None, out)
    }
    fn table_fit(&self, out: &mut dyn Write, width: Option<usize>) -> io::Result<()> {
        (self.text)(self.value, width, out)
    }
    fn json(&self, out: &mut dyn Write) -> io::Result<()> {
        json::write(self.value, out)
    }
    fn csv(&self, out: &mut CsvWriter) -> io::Result<()> {
        self.table(out.text())
    }
    fn markdown(&self, out: &mut dyn Write) -> io::Result<()> {
        self.table(out)
    }
    fn html(&self, out: &mut dyn Write) -> io::Result<()> {
        self.table(out)
    }
}

impl Exportable for Report {
    fn table(&self, out: &mut dyn Write) -> io::Result<()> {
        table::export(self, None, out)
    }
    fn table_fit(&self, out: &mut dyn Write, width: Option<usize>) -> io::Result<()> {
        table::export(self, width, out)
    }
    fn json(&self, out: &mut dyn Write) -> io::Result<()> {
        json::write(self, out)
    }
    fn csv(&self, out: &mut CsvWriter) -> io::Result<()> {
        csv::export(self, out)
    }
    fn markdown(&self, out: &mut dyn Write) -> io::Result<()> {
        markdown::export(self, out)
    }
    fn html(&self, out: &mut dyn Write) -> io::Result<()> {
        out.write_all(html::render_report(self).as_bytes())
    }
}

impl Exportable for Comparison {
    fn table(&self, out: &mut dyn Write) -> io::Result<()> {
        compare::export_table(self, None, out)
    }
    fn table_fit(&self, out: &mut dyn Write, width: Option<usize>) -> io::Result<()> {
        compare::export_table(self, width, out)
    }
    fn json(&self, out: &mut dyn Write) -> io::Result<()> {
        json::write(self, out)
    }
    fn csv(&self, out: &mut CsvWriter) -> io::Result<()> {
        compare::export_csv(self, out)
    }
    fn markdown(&self, out: &mut dyn Write) -> io::Result<()> {
        compare::export_markdown(self, out)
    }
    fn html(&self, out: &mut dyn Write) -> io::Result<()> {
        out.write_all(html::render_comparison(self).as_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: [Format; 5] = [
        Format::Table,
        Format::Json,
        Format::Csv,
        Format::Markdown,
        Format::Html,
    ];

    fn render(doc: &dyn Exportable, f: Format) -> String {
        let mut buf = Vec::new();
        export(doc, f, &mut buf).unwrap();
        String::from_utf8(buf).unwrap()
    }

    #[test]
    fn every_document_in_every_format() {
        let rep = crate::report::fixtures::report();
        let names = vec!["a".to_string(), "b".to_string()];
        let cmp = compare::compare(
            &names,
            &[
                crate::report::samples::compare_a(),
                crate::report::samples::compare_b(),
            ],
        );
        let grid = Grid {
            title: "tools",
            headers: &["tool", "status"],
            rows: vec![vec!["fio".into(), "installed, \"3.33\"".into()]],
            json: serde_json::json!({"tools": []}),
            footer: Some("end"),
        };
        let docs: [(&dyn Exportable, &str); 3] = [
            (&rep, "fma_f64_avx512"),
            (&cmp, "fma_f64_avx512"),
            (&grid, "fio"),
        ];
        for (doc, needle) in docs {
            for f in ALL {
                let s = render(doc, f);
                if f != Format::Json || needle != "fio" {
                    assert!(s.contains(needle), "{f:?}: {s}");
                }
                if f == Format::Html {
                    assert!(s.starts_with("<!DOCTYPE html>") && s.contains("</html>"));
                }
            }
        }
        assert_eq!(
            render(&grid, Format::Csv),
            "tool,status\nfio,\"installed, \"\"3.33\"\"\"\n"
        );
        assert!(render(&grid, Format::Table).ends_with("end\n"));
    }

    #[test]
    fn html_is_not_a_stdout_format() {
        assert_eq!(Format::parse("markdown"), Some(Format::Markdown));
        assert_eq!(Format::parse("md"), Some(Format::Markdown));
        assert_eq!(Format::parse("html"), None);
    }
}
