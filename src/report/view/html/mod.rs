//! HTML: every document as one self-contained page (inline CSS and SVG; no scripts, no
//! network, no external assets), written to a file with `--html`, never to stdout. A
//! report's page is in [`report`], a comparison's in [`compare`], a fleet's in
//! [`fleet`], a matrix run's heat map in [`matrix`], a report's core-to-core heat map in [`c2c`], a case's history in [`series`]; a
//! grid's page is here; the one stylesheet and page head every page starts with are in
//! [`page`]. A text document has no page of its own: it is
//! its terminal text.
//!
//! Every piece of text from a document goes through [`esc`]: the JSON may come from
//! anywhere. Numbers are model fields, formatted only.

mod c2c;
mod compare;
mod fleet;
mod loaded;
mod matrix;
mod numa;
mod page;
mod report;
mod series;

use super::{Doc, Format};
use crate::report::charts::esc;
use page::head;
use std::fmt::Write as _;
use std::io;

/// `--html FILE` (not a `--format`).
pub(crate) const FORMAT: Format = Format {
    name: "html",
    aliases: &[],
    stdout: false,
    write,
};

/// Writes `doc`'s page.
fn write(doc: Doc<'_>, _width: Option<usize>, out: &mut dyn io::Write) -> io::Result<()> {
    let page = match doc {
        Doc::Report(r) => report::page(r),
        Doc::Comparison(c) => compare::page(c),
        Doc::Fleet(f) => fleet::page(f),
        Doc::Matrix(r) => matrix::page(r),
        Doc::Series(s) => series::page(s),
        Doc::Grid(g) => grid(g.title, g.headers, &g.rows),
        Doc::Text(t) => return t.text(None, out),
    };
    out.write_all(page.as_bytes())
}

/// A page with one plain table (`headers`, `rows`) under `title`, every cell escaped.
fn grid(title: &str, headers: &[&str], rows: &[Vec<String>]) -> String {
    let mut out = String::with_capacity(4 * 1024);
    head(&mut out, title);
    let _ = write!(out, "<header><h1>{}</h1></header><table><tr>", esc(title));
    for h in headers {
        let _ = write!(out, "<th>{}</th>", esc(h));
    }
    out.push_str("</tr>");
    for r in rows {
        out.push_str("<tr>");
        for c in r {
            let _ = write!(out, "<td>{}</td>", esc(c));
        }
        out.push_str("</tr>");
    }
    out.push_str("</table></body></html>\n");
    out
}
