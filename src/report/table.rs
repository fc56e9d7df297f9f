//! The terminal table (comfy-table), followed by the notes (warnings, over-peak flags).

use super::model::Report;
use super::view;
use comfy_table::{presets::UTF8_FULL_CONDENSED, ContentArrangement, Table};
use std::io::Write;

/// Writes the host line, the results table and the notes.
pub fn export(report: &Report, out: &mut dyn Write) -> std::io::Result<()> {
    writeln!(out, "{}", view::host_line(&report.host))?;
    let mut t = Table::new();
    t.load_preset(UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Disabled)
        .set_header(view::HEADERS);
    for r in &report.results {
        t.add_row(view::row(r));
    }
    writeln!(out, "{t}")?;
    let notes = view::notes(report);
    for n in notes {
        writeln!(out, "note: {n}")?;
    }
    for r in &report.results {
        for l in view::reference_lines(r) {
            writeln!(out, "reference: {l}")?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_has_rows_and_flags() {
        let mut buf = Vec::new();
        export(&crate::report::fixtures::report(), &mut buf).unwrap();
        let s = String::from_utf8(buf).unwrap();
        assert!(s.contains("fma_f64_avx512"));
        assert!(s.contains("152.0 GFLOP/s"));
        assert!(s.contains("95.0 %"));
        assert!(s.contains("110.0 % OVER PEAK"));
        assert!(s.contains("skipped: CPU lacks amx-bf16"));
        assert!(s.contains("note: cpu add_i32_avx2 precision=int32 threads=1: OVER PEAK"));
    }
}
