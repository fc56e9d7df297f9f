//! The terminal table of a [`Fleet`]: the workloads (median, spread, outliers), then
//! the hosts, worst first.

use crate::report::fleet::Fleet;
use crate::report::view::cells::fleet::{h_row, hosts_sorted, w_row, H_HEADERS, W_HEADERS};
use crate::util::sanitize;
use std::io::{self, Write};

/// The workloads, then the hosts (worst first), the warnings and the method; within
/// `width` columns when given: the tables' cells and the lines below wrap.
pub(super) fn export(f: &Fleet, width: Option<usize>, out: &mut dyn Write) -> io::Result<()> {
    use crate::util::term;
    let width = width.map(|w| w.max(term::MIN_WIDTH));
    writeln!(
        out,
        "fleet: {} hosts from {} files",
        f.hosts.len(),
        f.files.len()
    )?;
    let rows = f.workloads.iter().map(|w| w_row(w).to_vec()).collect();
    writeln!(
        out,
        "{}",
        term::table_text(&text_table(&W_HEADERS, rows, width))
    )?;
    let rows = hosts_sorted(f)
        .into_iter()
        .map(|h| h_row(h).to_vec())
        .collect();
    writeln!(
        out,
        "{}",
        term::table_text(&text_table(&H_HEADERS, rows, width))
    )?;
    for w in &f.warnings {
        for l in term::wrap("warning: ", &sanitize::line(w), 4, width) {
            writeln!(out, "{l}")?;
        }
    }
    for l in term::wrap("method: ", &f.method, 4, width) {
        writeln!(out, "{l}")?;
    }
    Ok(())
}

/// A table of sanitised cells; within `width` columns when given (cells wrap).
fn text_table(
    headers: &[&str],
    rows: Vec<Vec<String>>,
    width: Option<usize>,
) -> comfy_table::Table {
    use comfy_table::{ContentArrangement, Table};
    let mut t = Table::new();
    t.load_preset(crate::util::term::PRESET).set_header(headers);
    if let Some(w) = width {
        t.set_content_arrangement(ContentArrangement::Dynamic)
            .set_width(u16::try_from(w).unwrap_or(u16::MAX));
    }
    for r in rows {
        t.add_row(r.iter().map(|c| sanitize::line(c)));
    }
    t
}
