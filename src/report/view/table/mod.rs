//! The terminal table: every document as text for a terminal, laid out within the
//! width when one is given (`--width`, `COLUMNS` or the terminal's). A report's table
//! is in [`report`], a comparison's in [`compare`], a fleet's in [`fleet`], the matrix
//! grids of a cluster run in [`matrix`], the loaded-latency curves in [`loaded`]; a
//! plain grid and a text document are here.

mod compare;
mod fleet;
mod layout;
mod loaded;
mod matrix;
mod report;

pub(crate) use report::warnings;

use super::{Doc, Format, Grid};
use std::io::{self, Write};

/// `--format table` (the default).
pub(crate) const FORMAT: Format = Format {
    name: "table",
    aliases: &[],
    stdout: true,
    write: export,
};

/// Writes `doc` as the terminal table within `width` columns (`None`: no limit).
fn export(doc: Doc<'_>, width: Option<usize>, out: &mut dyn Write) -> io::Result<()> {
    match doc {
        // The results table, then any loaded-latency curve (#47).
        Doc::Report(r) => {
            report::export(r, width, out)?;
            loaded::export(r, out)
        }
        Doc::Comparison(c) => compare::export(c, width, out),
        Doc::Fleet(f) => fleet::export(f, width, out),
        // The results table, then one grid per workload.
        Doc::Matrix(r) => {
            report::export(r, width, out)?;
            matrix::export(r, out)
        }
        Doc::Grid(g) => grid(g, width, out),
        Doc::Series(s) => {
            let footer = super::cells::series::footer(s);
            let g = Grid {
                title: &s.title,
                headers: &super::cells::series::TEXT_HEADERS,
                rows: super::cells::series::rows(s, false),
                json: serde_json::Value::Null,
                footer: Some(&footer),
            };
            grid(&g, width, out)
        }
        Doc::Text(t) => t.text(width, out),
    }
}

/// A plain grid in the frame of every table ([`crate::util::term::PRESET`]), the
/// footer under it.
fn grid(g: &Grid<'_>, width: Option<usize>, out: &mut dyn Write) -> io::Result<()> {
    use comfy_table::Table;
    let mut t = Table::new();
    t.load_preset(crate::util::term::PRESET)
        .set_header(g.headers);
    crate::util::term::fit_table(&mut t, width);
    for r in &g.rows {
        t.add_row(r.iter().map(|c| crate::util::sanitize::line(c)));
    }
    writeln!(out, "{}", crate::util::term::table_text(&t))?;
    if let Some(f) = g.footer {
        write!(out, "{}", crate::util::term::fit_text(f, width))?;
    }
    Ok(())
}
