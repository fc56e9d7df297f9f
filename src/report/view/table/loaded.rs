//! The loaded-latency curves of a report as text (`memory --loaded-latency`, issue #47):
//! one framed table per curve after the results table, a row per point: the injected
//! delay, the loaders' total bandwidth, the chase's latency and that latency against
//! the idle point's.

use crate::report::loaded_latency::curves;
use crate::report::model::Report;
use crate::util::units::format_si;
use std::io::{self, Write};

/// The curves as text (nothing when the report has none).
pub(super) fn export(rep: &Report, out: &mut dyn Write) -> io::Result<()> {
    use comfy_table::Table;
    for c in curves(rep) {
        let mut t = Table::new();
        t.load_preset(crate::util::term::PRESET).set_header(vec![
            "delay".to_string(),
            format!(
                "{} loader{} ({})",
                c.loaders,
                if c.loaders == 1 { "" } else { "s" },
                c.load_kernel
            ),
            "latency".to_string(),
            "vs idle".to_string(),
        ]);
        for p in &c.points {
            let or = |v: Option<String>| v.unwrap_or_else(|| "-".into());
            t.add_row(vec![
                p.delay.map_or("idle".into(), |d| d.to_string()),
                match p.delay {
                    None => "none".into(),
                    Some(_) => or(p.bandwidth().map(|b| format_si(b, "B/s"))),
                },
                or(p.latency().map(|l| format_si(l, "s"))),
                or(c.vs_idle(p).map(|x| format!("{x:.2}x"))),
            ]);
        }
        writeln!(
            out,
            "loaded latency{}: the chase while the loaders stream, lightest load first",
            crate::util::sanitize::line(&c.place)
        )?;
        writeln!(out, "{}", crate::util::term::table_text(&t))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_point_is_a_row_with_its_bandwidth_and_latency() {
        let rep = crate::report::loaded_latency::tests::one_loader();
        let mut out = Vec::new();
        super::export(&rep, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        for want in [
            "1 loader (read)",
            "idle  │ none",
            "1000",
            "20.00 GB/s",
            "180.0 ns",
            "2.00x",
        ] {
            assert!(text.contains(want), "{want} in\n{text}");
        }
        let mut none = Vec::new();
        super::export(&crate::report::fixtures::matrix(), &mut none).unwrap();
        assert!(none.is_empty());
    }
}
