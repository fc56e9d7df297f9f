//! The matrix grids of a cluster run as text: one framed grid per workload, rows the
//! sending host, columns the receiving one, weak links marked `WEAK`.

use crate::report::matrix::{grids, mean, WEAK};
use crate::report::model::Report;
use crate::util::units::format_si;
use std::io::{self, Write};

/// The grids as text, for the terminal after the results table.
pub(super) fn export(rep: &Report, out: &mut dyn Write) -> io::Result<()> {
    use comfy_table::Table;
    for g in grids(rep) {
        let mut t = Table::new();
        let mut head = vec![format!("{} (from \\ to)", g.workload)];
        head.extend(g.hosts.iter().cloned());
        t.load_preset(crate::util::term::PRESET).set_header(head);
        for (i, row) in g.cells.iter().enumerate() {
            let mut cells = vec![g.hosts[i].clone()];
            for (j, c) in row.iter().enumerate() {
                cells.push(match c {
                    _ if i == j => "-".into(),
                    None => "?".into(),
                    Some(r) => match mean(r) {
                        Some(v) => {
                            let weak = g.score(v).is_some_and(|s| s < WEAK);
                            let unit = r.unit.as_str();
                            format!("{}{}", format_si(v, unit), if weak { " WEAK" } else { "" })
                        }
                        None => "failed".into(),
                    },
                });
            }
            t.add_row(cells.iter().map(|c| crate::util::sanitize::line(c)));
        }
        writeln!(out, "{}", crate::util::term::table_text(&t))?;
    }
    Ok(())
}
