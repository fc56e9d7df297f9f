//! The comparison page: one row per change with its interval drawn on a common scale,
//! the warnings (different settings, shifts of whole resources) above it and the
//! cases not compared below.

use super::page::head;
use crate::report::charts::esc;
use crate::report::compare::Comparison;
use crate::report::view::cells::compare::change_cell;
use crate::util::units::format_si;
use std::fmt::Write as _;

/// The comparison page: one row per change with its interval drawn on a common scale.
pub(super) fn page(c: &Comparison) -> String {
    let mut out = String::with_capacity(16 * 1024);
    head(&mut out, "peakbench compare");
    let _ = write!(
        out,
        "<header><h1>peakbench compare</h1><div class=\"meta\">baseline: {} · compared: {}</div></header>",
        esc(c.files.first().map_or("", |s| s)),
        esc(&c.files.iter().skip(1).cloned().collect::<Vec<_>>().join(", "))
    );
    comparison_warnings(&mut out, c);
    // Common scale of the interval bars: the widest relative bound, at least 5 %.
    let range = c
        .changes
        .iter()
        .filter_map(|ch| ch.rel_ci95)
        .flat_map(|(a, b)| [a.abs(), b.abs()])
        .filter(|v| v.is_finite())
        .fold(0.05f64, f64::max);
    let pos = |v: f64| (50.0 + 50.0 * v / range).clamp(0.0, 100.0);
    // The interval column's axis: the common scale's ends and 0, under its header.
    let axis = format!(
        "<span class=\"ci axis\"><span class=\"t l\" style=\"left:0\">−{0:.0} %</span><span class=\"t\" style=\"left:50%\">0</span><span class=\"t r\" style=\"left:100%\">+{0:.0} %</span></span>",
        range * 100.0
    );
    let _ = write!(
        out,
        "<h2>Changes (95 % confidence intervals)</h2><table><tr><th>case</th><th>vs</th><th>baseline mean</th><th>mean</th><th>change [95 % CI]</th><th>interval<br>{axis}</th><th>n</th><th>verdict</th></tr>"
    );
    for ch in &c.changes {
        let bar = match ch.rel_ci95 {
            Some((lo, hi)) if lo.is_finite() && hi.is_finite() => format!(
                "<span class=\"ci{}\" title=\"±{:.0} % full scale\"><span class=\"z\" style=\"left:50%\"></span><span class=\"r\" style=\"left:{:.1}%;width:{:.1}%\"></span></span>",
                if ch.significant == Some(true) { "" } else { " ns" },
                range * 100.0,
                pos(lo),
                (pos(hi) - pos(lo)).max(0.8)
            ),
            _ => String::new(),
        };
        let cls = match ch.verdict.as_str() {
            "worse" => " class=\"flag\"",
            _ => "",
        };
        let _ = write!(
            out,
            "<tr><td>{}</td><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td>{bar}</td><td class=\"n\">{}/{}</td><td{cls}>{}</td></tr>",
            esc(&ch.case.label()),
            esc(&ch.against),
            esc(&format_si(ch.a.mean, ch.case.unit.as_str())),
            esc(&format_si(ch.b.mean, ch.case.unit.as_str())),
            esc(&change_cell(ch)),
            ch.a.n,
            ch.b.n,
            esc(&ch.verdict)
        );
    }
    out.push_str("</table>");
    if !c.unmatched.is_empty() {
        out.push_str("<h2>Not compared</h2><table><tr><th>case</th><th>reason</th></tr>");
        for u in &c.unmatched {
            let _ = write!(
                out,
                "<tr><td>{}</td><td>{}</td></tr>",
                esc(&u.case.label()),
                esc(&u.reason)
            );
        }
        out.push_str("</table>");
    }
    let _ = write!(
        out,
        "<footer>Method: {}. Interval bars: the change's 95 % interval on the scale under the column's header (0 = no change). Grey bars: not significant.</footer></body></html>",
        esc(&c.method)
    );
    out
}

/// The warnings the terminal and JSON give, above the table so they are read first:
/// settings that differ between the files, and resources whose cases all moved the
/// same way (the machine's state, not the code, is the likelier cause).
fn comparison_warnings(out: &mut String, c: &Comparison) {
    if c.settings.is_empty() && c.shifts.is_empty() {
        return;
    }
    out.push_str("<section class=\"warn\"><h2>Warnings</h2><ul>");
    if !c.settings.is_empty() {
        out.push_str("<li>The files were measured with different settings; figures may differ for that reason alone:<ul>");
        for x in &c.settings {
            let _ = write!(out, "<li>{}</li>", esc(x));
        }
        out.push_str("</ul></li>");
    }
    for x in &c.shifts {
        let _ = write!(out, "<li>{}</li>", esc(x));
    }
    out.push_str("</ul></section>");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::model::ResourceName;
    use crate::report::samples;

    #[test]
    fn comparison_page() {
        let names = vec!["a.json".to_string(), "b.json".to_string()];
        let c =
            crate::report::compare::compare(&names, &[samples::compare_a(), samples::compare_b()]);
        let h = page(&c);
        assert!(h.contains("better") && h.contains("worse"));
        assert!(h.contains("no significant change"));
        assert!(h.contains("Not compared"));
        assert!(!h.contains("http"));
        // Issue #32 H: the interval column has an axis: both ends of its scale and 0.
        let head = &h[h.find("<th>interval").unwrap()..];
        let head = &head[..head.find("</th>").unwrap()];
        assert!(head.contains("class=\"ci axis\""), "{head}");
        assert!(head.contains(">0</span>"), "{head}");
        assert!(
            head.contains("−") && head.contains("+") && head.contains(" %</span>"),
            "{head}"
        );
        // The same files, no settings differ: no warning section.
        assert!(!h.contains("class=\"warn\""), "{h}");
    }

    /// The page says what the terminal and JSON say: settings that differ and shifts
    /// of whole resources, escaped.
    #[test]
    fn comparison_page_warns_like_the_terminal() {
        let a = samples::compare_a();
        let mut b = a.clone();
        b.config = serde_json::json!({"repeat": 10});
        b.host.kernel = "6.9.0 <b>&".into();
        // Every cpu case 30 % slower: a shift of the whole resource.
        for r in b
            .results
            .iter_mut()
            .filter(|r| r.resource == ResourceName::Cpu)
        {
            for x in &mut r.samples {
                *x *= 0.7;
            }
        }
        let names = vec!["a.json".to_string(), "b.json".to_string()];
        let c = crate::report::compare::compare(&names, &[a, b]);
        assert!(!c.settings.is_empty() && !c.shifts.is_empty(), "{c:?}");
        let h = page(&c);
        let at = h.find("<section class=\"warn\">").expect("warning section");
        let sec = &h[at..at + h[at..].find("</section>").unwrap()];
        assert!(sec.contains("measured with different settings"), "{sec}");
        assert!(
            sec.contains("b.json: kernel 6.9.0 &lt;b&gt;&amp; (baseline"),
            "{sec}"
        );
        assert!(sec.contains("b.json: repeat 10 (baseline"), "{sec}");
        for x in c.settings.iter().chain(&c.shifts) {
            assert!(sec.contains(&esc(x)), "{x} missing from {sec}");
        }
        assert!(sec.contains("moved the same way (worse"), "{sec}");
        assert!(!h.contains("<b>&"));
    }
}
