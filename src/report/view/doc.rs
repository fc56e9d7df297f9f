//! The documents the views render ([`Doc`]) and what a format is ([`Format`]): below
//! both `view/mod.rs` (the registry and the dispatch) and the formats' files, so that
//! neither imports the other's file back.

use crate::report::compare::Comparison;
use crate::report::fleet::Fleet;
use crate::report::model::Report;
use crate::report::series::Series;
use std::fmt;
use std::io::{self, Write};

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

/// `Doc::from(&x)` for each document type: the variant of the same name.
macro_rules! doc_from {
    ($($ty:ident),+) => {$(
        impl<'a> From<&'a $ty> for Doc<'a> {
            fn from(d: &'a $ty) -> Doc<'a> {
                Doc::$ty(d)
            }
        }
    )+};
}
doc_from!(Report, Comparison, Fleet, Series);

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

/// One output format: an entry of the registry ([`FORMATS`](super::FORMATS)), declared by its module
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
