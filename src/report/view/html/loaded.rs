//! The loaded-latency chart of a report's page (`memory --loaded-latency`, issue #47):
//! latency (y) against the loaders' total bandwidth (x), one line per curve from the
//! idle point at 0 B/s, as Intel MLC's loaded-latency plots are read; under it a table
//! of the points with their injected delays.

use crate::report::charts::{esc, render, Axis, Chart, Scale, Series, Style, Ticks};
use crate::report::loaded_latency::curves;
use crate::report::model::Report;
use crate::util::units::format_si;
use std::fmt::Write as _;

/// Writes the section (nothing when the report has no loaded-latency rows).
pub(super) fn section(out: &mut String, rep: &Report) {
    let cs = curves(rep);
    if cs.is_empty() {
        return;
    }
    let name = |c: &crate::report::loaded_latency::Curve| {
        format!(
            "{} loader{} ({}){}",
            c.loaders,
            if c.loaders == 1 { "" } else { "s" },
            c.load_kernel,
            c.place
        )
    };
    let chart = Chart {
        title: "Loaded latency".into(),
        x: Axis {
            label: "loaders' total bandwidth".into(),
            scale: Scale::Linear,
            ticks: Ticks::Si("B/s".into()),
        },
        y: Axis {
            label: "chase latency".into(),
            scale: Scale::Linear,
            ticks: Ticks::Si("s".into()),
        },
        series: cs
            .iter()
            .enumerate()
            .map(|(i, c)| Series {
                name: name(c),
                points: c
                    .points
                    .iter()
                    .filter_map(|p| Some((p.bandwidth()?, p.latency()?)))
                    .collect(),
                style: Style::Line,
                color: i,
            })
            .collect(),
        vmarks: Vec::new(),
        hmarks: Vec::new(),
    };
    out.push_str("<h3 id=\"loaded-latency\">Loaded latency</h3><div class=\"meta\">the chase's load-to-use latency while the loaders stream at rising rates (largest injected delay first); the first point is the chase alone</div>");
    let _ = write!(out, "<figure>{}</figure>", render(&chart));
    out.push_str("<div class=\"tw\"><table><tr><th>curve</th><th>delay</th><th>bandwidth</th><th>latency</th><th>vs idle</th></tr>");
    for c in &cs {
        for p in &c.points {
            let or = |v: Option<String>| esc(&v.unwrap_or_else(|| "-".into()));
            let _ = write!(
                out,
                "<tr><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td></tr>",
                esc(&name(c)),
                p.delay.map_or("idle".into(), |d| d.to_string()),
                match p.delay {
                    None => "none".into(),
                    Some(_) => or(p.bandwidth().map(|b| format_si(b, "B/s"))),
                },
                or(p.latency().map(|l| format_si(l, "s"))),
                or(c.vs_idle(p).map(|x| format!("{x:.2}x")))
            );
        }
    }
    out.push_str("</table></div>");
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_chart_has_a_line_from_idle_and_a_row_per_point() {
        let rep = crate::report::loaded_latency::tests::one_loader();
        let mut out = String::new();
        super::section(&mut out, &rep);
        assert!(out.contains("id=\"loaded-latency\""), "{out}");
        assert!(out.contains("<svg"), "{out}");
        assert!(out.contains("1 loader (read)"), "{out}");
        assert_eq!(out.matches("<tr><td>").count(), 4, "{out}");
        assert!(out.contains("180 ns") && out.contains("2.00x"), "{out}");
        let mut none = String::new();
        super::section(&mut none, &crate::report::fixtures::matrix());
        assert!(none.is_empty());
    }
}
