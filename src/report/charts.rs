//! Hand-drawn inline SVG charts for the HTML report: line charts on linear or
//! logarithmic axes, with vertical markers (cache levels) and horizontal markers (peaks).
//!
//! Hand-written rather than a plotting crate: the charts needed are few and simple, the
//! output stays small and self-contained (no fonts, no scripts), and every piece of text
//! goes through [`esc`]. Points outside what an axis can show (non-finite values, or
//! values ≤ 0 on a log axis) are left out, never drawn at a wrong place.

use super::chart_axis::{tick_label, usable, Map};
pub(crate) use super::chart_axis::{Scale, Ticks};
use std::fmt::Write as _;

/// Escapes text for HTML and SVG content and attribute values. Control characters
/// (newline and tab aside) and the invisible ones that reorder or hide text (bidi
/// overrides, zero-width marks) are written as visible escapes, as the sanitiser
/// writes them for the terminal (`\u{202e}`).
pub(crate) fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            '\n' | '\t' => o.push(c),
            c if crate::util::sanitize::needs_escape(c) => {
                o.push_str(&crate::util::sanitize::line(&c.to_string()))
            }
            c => o.push(c),
        }
    }
    o
}

/// One axis.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Axis {
    /// Axis title.
    pub(crate) label: String,
    /// Mapping.
    pub(crate) scale: Scale,
    /// Tick labels.
    pub(crate) ticks: Ticks,
}

/// Line style of a series.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Style {
    /// Solid line with point markers.
    Line,
    /// Dashed line, no markers (theoretical ceilings).
    Dashed,
    /// Solid line, no markers (measured ceilings).
    Solid,
    /// Hollow markers, no line (runs marked on a time series: disturbed ones).
    Points,
}

/// One named line.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Series {
    /// Legend text.
    pub(crate) name: String,
    /// `(x, y)` in axis units.
    pub(crate) points: Vec<(f64, f64)>,
    /// Solid or dashed.
    pub(crate) style: Style,
    /// Palette index (series with the same index share a colour).
    pub(crate) color: usize,
}

/// A labelled vertical (x) or horizontal (y) line across the plot.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Marker {
    /// Where, in axis units.
    pub(crate) at: f64,
    /// Label drawn next to the line.
    pub(crate) label: String,
}

/// A whole chart.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Chart {
    /// Title above the plot.
    pub(crate) title: String,
    /// Horizontal axis.
    pub(crate) x: Axis,
    /// Vertical axis.
    pub(crate) y: Axis,
    /// Lines.
    pub(crate) series: Vec<Series>,
    /// Vertical markers (e.g. cache sizes).
    pub(crate) vmarks: Vec<Marker>,
    /// Horizontal markers (e.g. a theoretical peak).
    pub(crate) hmarks: Vec<Marker>,
}

/// Colour-blind-friendly palette (Okabe & Ito, 2008), then a few extra.
pub(crate) const PALETTE: [&str; 10] = [
    "#0072b2", "#e69f00", "#009e73", "#d55e00", "#cc79a7", "#56b4e9", "#f0e442", "#000000",
    "#8c564b", "#7f7f7f",
];

const W: f64 = 640.0;
const H: f64 = 330.0;
const ML: f64 = 92.0;
const MR: f64 = 16.0;
const MT: f64 = 30.0;
const MB: f64 = 46.0;

/// Renders the chart as one `<svg>` element.
pub(crate) fn render(c: &Chart) -> String {
    let cats = |a: &Axis| match &a.ticks {
        Ticks::Categories(v) => Some(v.len()),
        _ => None,
    };
    let mut xs: Vec<f64> = c
        .series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.0))
        .collect();
    let mut ys: Vec<f64> = c
        .series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.1))
        .collect();
    ys.extend(c.hmarks.iter().map(|m| m.at));
    if xs.is_empty() {
        xs.extend(c.vmarks.iter().map(|m| m.at));
    }
    let xm = Map::new(c.x.scale, &xs, cats(&c.x), false);
    let ym = Map::new(c.y.scale, &ys, cats(&c.y), true);
    let pw = W - ML - MR;
    let ph = H - MT - MB;
    let px = |v: f64| ML + xm.f(v) * pw;
    let py = |v: f64| MT + (1.0 - ym.f(v)) * ph;
    let in_x = |v: f64| usable(xm.scale, v) && (xm.lo..=xm.hi).contains(&v);
    let in_y = |v: f64| usable(ym.scale, v) && (ym.lo..=ym.hi).contains(&v);

    let long = c.series.iter().any(|s| s.name.chars().count() > 42);
    let cols = if long { 1 } else { 2 };
    let legend_rows = c.series.len().div_ceil(cols);
    let total_h = H + legend_rows as f64 * 16.0 + 4.0;
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg class="chart" viewBox="0 0 {W} {total_h}" role="img" aria-label="{t}"><title>{t}</title>"#,
        t = esc(&c.title)
    );
    let _ = write!(
        s,
        r#"<text x="{}" y="18" class="ct">{}</text>"#,
        W / 2.0,
        esc(&c.title)
    );
    let _ = write!(
        s,
        r##"<rect x="{ML}" y="{MT}" width="{pw}" height="{ph}" fill="#fff" stroke="#999"/>"##
    );
    // Grid and tick labels.
    for t in xm.ticks_for(&c.x.ticks) {
        let x = px(t);
        let _ = write!(
            s,
            r##"<line x1="{x:.1}" y1="{MT}" x2="{x:.1}" y2="{:.1}" stroke="#e4e4e4"/><text x="{x:.1}" y="{:.1}" class="tx">{}</text>"##,
            MT + ph,
            MT + ph + 14.0,
            esc(&tick_label(&c.x.ticks, t))
        );
    }
    for t in ym.ticks_for(&c.y.ticks) {
        let y = py(t);
        let _ = write!(
            s,
            r##"<line x1="{ML}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="#e4e4e4"/><text x="{:.1}" y="{:.1}" class="ty">{}</text>"##,
            ML + pw,
            ML - 4.0,
            y + 4.0,
            esc(&tick_label(&c.y.ticks, t))
        );
    }
    let _ = write!(
        s,
        r#"<text x="{:.1}" y="{:.1}" class="ax">{}</text><text transform="translate(14 {:.1}) rotate(-90)" class="ax">{}</text>"#,
        ML + pw / 2.0,
        H - 8.0,
        esc(&c.x.label),
        MT + ph / 2.0,
        esc(&c.y.label)
    );
    for m in &c.vmarks {
        if in_x(m.at) {
            let x = px(m.at);
            let _ = write!(
                s,
                r##"<line x1="{x:.1}" y1="{MT}" x2="{x:.1}" y2="{:.1}" stroke="#b00" stroke-dasharray="3 3"/><text x="{:.1}" y="{:.1}" class="mk">{}</text>"##,
                MT + ph,
                x + 3.0,
                MT + 12.0,
                esc(&m.label)
            );
        }
    }
    for m in &c.hmarks {
        if in_y(m.at) {
            let y = py(m.at);
            let _ = write!(
                s,
                r##"<line x1="{ML}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="#b00" stroke-dasharray="6 3"/><text x="{:.1}" y="{:.1}" class="mk" text-anchor="end">{}</text>"##,
                ML + pw,
                ML + pw - 4.0,
                y - 4.0,
                esc(&m.label)
            );
        }
    }
    // Each series' points inside the axes, and in pixels.
    let drawn: Vec<Vec<(f64, f64)>> = c
        .series
        .iter()
        .map(|sr| {
            sr.points
                .iter()
                .copied()
                .filter(|(x, y)| in_x(*x) && in_y(*y))
                .collect()
        })
        .collect();
    let pixels: Vec<Vec<(f64, f64)>> = drawn
        .iter()
        .map(|pts| pts.iter().map(|(x, y)| (px(*x), py(*y))).collect())
        .collect();
    // Lines that run along one another (the roofline's slopes over one bandwidth)
    // would hide all but the last drawn: each is drawn wider by the number of later
    // lines on top of it, so every one shows as a band of its own colour.
    let widths: Vec<f64> = (0..pixels.len())
        .map(|i| {
            let under = (i + 1..pixels.len())
                .filter(|&j| overlap(&pixels[i], &pixels[j]))
                .count();
            2.0 + 2.5 * under as f64
        })
        .collect();
    for (k, sr) in c.series.iter().enumerate() {
        let color = PALETTE[sr.color % PALETTE.len()];
        let pts = &drawn[k];
        let sw = widths[k];
        if pts.is_empty() {
            continue;
        }
        let path: Vec<String> = pixels[k]
            .iter()
            .map(|(x, y)| format!("{x:.1},{y:.1}"))
            .collect();
        let dash = if sr.style == Style::Dashed {
            r#" stroke-dasharray="7 4""#
        } else {
            ""
        };
        if sr.style == Style::Points {
            for (x, y) in pts {
                let _ = write!(
                    s,
                    r#"<circle cx="{:.1}" cy="{:.1}" r="6" fill="none" stroke="{color}" stroke-width="2"><title>{}: {}, {}</title></circle>"#,
                    px(*x),
                    py(*y),
                    esc(&sr.name),
                    esc(&tick_label(&c.x.ticks, *x)),
                    esc(&tick_label(&c.y.ticks, *y))
                );
            }
            continue;
        }
        let _ = write!(
            s,
            r#"<polyline points="{}" fill="none" stroke="{color}" stroke-width="{sw}"{dash}/>"#,
            path.join(" ")
        );
        if sr.style == Style::Line {
            for (x, y) in pts {
                let _ = write!(
                    s,
                    r#"<circle cx="{:.1}" cy="{:.1}" r="3" fill="{color}"><title>{}: {}, {}</title></circle>"#,
                    px(*x),
                    py(*y),
                    esc(&sr.name),
                    esc(&tick_label(&c.x.ticks, *x)),
                    esc(&tick_label(&c.y.ticks, *y))
                );
            }
        }
    }
    for (i, sr) in c.series.iter().enumerate() {
        let color = PALETTE[sr.color % PALETTE.len()];
        let x = if i % cols == 0 { ML } else { ML + pw / 2.0 };
        let y = H + (i / cols) as f64 * 16.0 + 2.0;
        let dash = if sr.style == Style::Dashed {
            r#" stroke-dasharray="5 3""#
        } else {
            ""
        };
        if sr.style == Style::Points {
            let _ = write!(
                s,
                r#"<circle cx="{:.1}" cy="{y:.1}" r="5" fill="none" stroke="{color}" stroke-width="2"/><text x="{:.1}" y="{:.1}" class="lg">{}</text>"#,
                x + 9.0,
                x + 22.0,
                y + 4.0,
                esc(&truncate(&sr.name, if long { 92 } else { 44 }))
            );
            continue;
        }
        let _ = write!(
            s,
            r#"<line x1="{x:.1}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="{color}" stroke-width="{}"{dash}/><text x="{:.1}" y="{:.1}" class="lg">{}</text>"#,
            x + 18.0,
            widths[i].min(6.0),
            x + 22.0,
            y + 4.0,
            esc(&truncate(&sr.name, if long { 92 } else { 44 }))
        );
    }
    s.push_str("</svg>");
    s
}

/// Whether two polylines (in pixels) run along one another: some segment of each on
/// the same line (within a pixel) as one of the other, over more than 2 pixels.
fn overlap(a: &[(f64, f64)], b: &[(f64, f64)]) -> bool {
    let segs = |p: &[(f64, f64)]| -> Vec<((f64, f64), (f64, f64))> {
        p.windows(2).map(|w| (w[0], w[1])).collect()
    };
    segs(a).iter().any(|&(a1, a2)| {
        let (dx, dy) = (a2.0 - a1.0, a2.1 - a1.1);
        let len = (dx * dx + dy * dy).sqrt();
        if len < 1e-9 {
            return false;
        }
        // Distance of a point from a's line, and its position along a.
        let off = |p: (f64, f64)| ((p.0 - a1.0) * dy - (p.1 - a1.1) * dx).abs() / len;
        let at = |p: (f64, f64)| ((p.0 - a1.0) * dx + (p.1 - a1.1) * dy) / len;
        segs(b).iter().any(|&(b1, b2)| {
            if off(b1) > 1.0 || off(b2) > 1.0 {
                return false;
            }
            let (lo, hi) = (at(b1).min(at(b2)), at(b1).max(at(b2)));
            hi.min(len) - lo.max(0.0) > 2.0
        })
    })
}

/// The ticks of an axis of `scale` over `values` (the y axis when `zero`), each with
/// its position in the plot (0 to 1) and its label: what [`render`] draws. Public for
/// the `chart_ticks` fuzz target, which checks that any values give a bounded number
/// of finite ticks inside the axis, in bounded time.
#[doc(hidden)]
pub fn ticks_of(scale: u8, values: &[f64], zero: bool) -> Vec<(f64, f64, String)> {
    let (scale, ticks) = match scale % 3 {
        0 => (Scale::Linear, Ticks::Si("B/s".into())),
        1 => (Scale::Log10, Ticks::Plain),
        _ => (Scale::Log2, Ticks::Bytes),
    };
    let m = Map::new(scale, values, None, zero);
    m.ticks()
        .into_iter()
        .map(|t| (t, m.f(t), tick_label(&ticks, t)))
        .collect()
}

fn truncate(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(n - 1).collect();
        t.push('…');
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chart(scale: Scale, pts: Vec<(f64, f64)>) -> Chart {
        Chart {
            title: "t <b>".into(),
            x: Axis {
                label: "x".into(),
                scale,
                ticks: Ticks::Bytes,
            },
            y: Axis {
                label: "y".into(),
                scale: Scale::Linear,
                ticks: Ticks::Si("B/s".into()),
            },
            series: vec![Series {
                name: "s\"1".into(),
                points: pts,
                style: Style::Line,
                color: 0,
            }],
            vmarks: vec![Marker {
                at: 32768.0,
                label: "L1d".into(),
            }],
            hmarks: vec![],
        }
    }

    /// Fuzzed inputs (chart_ticks): linear axes whose span is a few ulps of the values
    /// (2.4e64, −1.2e52 and 7.04e-9): every tick inside the axis, none at NaN.
    #[test]
    fn fuzzed_linear_axis_gives_bounded_ticks() {
        let bytes: [u8; 28] = [
            65, 77, 77, 77, 77, 77, 77, 77, 77, 77, 77, 77, 77, 77, 77, 77, 77, 77, 77, 77, 77, 77,
            77, 77, 191, 159, 159, 159,
        ];
        let values: Vec<f64> = bytes
            .chunks_exact(8)
            .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
            .collect();
        let mut ticks = ticks_of(3 % 3, &values, false);
        // Three values one ulp apart near -1.2e52.
        let bytes = [202u8; 24];
        let mut close: Vec<f64> = bytes
            .chunks_exact(8)
            .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
            .collect();
        close[2] = f64::from_bits(close[2].to_bits() + 1);
        ticks.extend(ticks_of(0, &close, false));
        // 7.0415287e-9 and 7.0415291e-9 (CI's fuzz run, 2026-11-26): a span of 4e-16,
        // where a tick's place was off by rounding by 1.4e-9 of the span.
        let bytes: [u8; 29] = [
            87, 62, 62, 62, 30, 62, 62, 62, 62, 62, 62, 62, 62, 62, 62, 62, 62, 62, 62, 62, 62, 62,
            62, 62, 62, 62, 62, 62, 62,
        ];
        let tiny: Vec<f64> = bytes[1..]
            .chunks_exact(8)
            .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
            .collect();
        let before = ticks.len();
        ticks.extend(ticks_of(bytes[0] % 3, &tiny, false));
        assert!(ticks.len() > before, "the tiny span keeps ticks");
        assert!(ticks.len() <= 51, "{} ticks", ticks.len());
        for (t, at, label) in &ticks {
            assert!(t.is_finite(), "tick {t}");
            assert!((-1e-9..=1.0 + 1e-9).contains(at), "tick {t} at {at}");
            assert!(label.chars().count() <= 24, "label {label}");
        }
    }

    /// Issue #27 item 4: extreme values give a chart with a few finite ticks (the tick
    /// loop ran over 2^63 exponents for 1e308 on a log axis).
    #[test]
    fn extreme_values_give_bounded_ticks() {
        let cases: [&[f64]; 8] = [
            &[1e308],
            &[1e308, 1e308],
            &[f64::MAX, f64::MIN_POSITIVE],
            &[5e-324],
            &[-1e308, 1e308],
            &[1e300, 1e300 + 1e285],
            &[f64::NAN, f64::INFINITY, f64::NEG_INFINITY],
            &[],
        ];
        for v in cases {
            for scale in 0..3 {
                for zero in [false, true] {
                    let t = ticks_of(scale, v, zero);
                    assert!(t.len() <= 51, "{v:?} {scale}: {} ticks", t.len());
                    for (x, at, label) in &t {
                        assert!(x.is_finite(), "{v:?} {scale}: {t:?}");
                        assert!((-1e-9..=1.0 + 1e-9).contains(at), "{v:?} {scale}: {t:?}");
                        assert!(label.chars().count() <= 24, "{v:?} {scale}: {label}");
                    }
                }
            }
            let svg = render(&chart(Scale::Log2, v.iter().map(|x| (*x, *x)).collect()));
            assert!(svg.ends_with("</svg>") && !svg.contains("NaN"), "{v:?}");
        }
    }

    /// The `chart_ticks` fuzz target's check over random bit patterns (NaNs,
    /// infinities, subnormals and extremes included), for machines without cargo-fuzz.
    #[test]
    fn random_values_give_bounded_ticks() {
        let mut rng = crate::util::rng::XorShift::seeded(27);
        for round in 0..3000 {
            let n = rng.below_usize(6);
            let v: Vec<f64> = (0..n).map(|_| f64::from_bits(rng.next_u64())).collect();
            let t = ticks_of((round % 3) as u8, &v, round % 2 == 0);
            assert!(t.len() <= 51, "{v:?}");
            for (x, at, label) in &t {
                assert!(
                    x.is_finite() && (-1e-9..=1.0 + 1e-9).contains(at),
                    "{v:?}: {t:?}"
                );
                assert!(label.chars().count() <= 24, "{v:?}: {label}");
            }
        }
    }

    /// Issue #27 item 6: what hides or reorders text is written visibly in HTML too.
    #[test]
    fn hidden_characters_are_visible_in_html() {
        let e = esc("a\u{202e}b\u{200b}c\u{feff}d\x1b[2J<i>\n");
        assert_eq!(e, "a\\u{202e}b\\u{200b}c\\u{feff}d\\x1b[2J&lt;i&gt;\n");
    }

    #[test]
    fn escapes_and_draws() {
        let svg = render(&chart(Scale::Log2, vec![(4096.0, 1e9), (1048576.0, 2e9)]));
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>"));
        assert!(svg.contains("t &lt;b&gt;"));
        assert!(svg.contains("s&quot;1"));
        assert!(!svg.contains("NaN") && !svg.contains("inf"));
        assert!(svg.contains("L1d"));
        assert!(svg.contains("4 KiB") && svg.contains("1 MiB"));
        assert_eq!(svg.matches("<circle").count(), 2);
    }

    #[test]
    fn hostile_values_are_left_out() {
        let svg = render(&chart(
            Scale::Log2,
            vec![
                (0.0, 1.0),
                (-5.0, 1.0),
                (f64::NAN, 1.0),
                (f64::INFINITY, 2.0),
                (1e300, f64::MAX),
            ],
        ));
        assert!(!svg.contains("NaN") && !svg.contains("inf"), "{svg}");
        let svg = render(&chart(Scale::Linear, vec![]));
        assert!(svg.starts_with("<svg"));
        // Extremes of f64 on log and linear axes: finite output, bounded ticks.
        for scale in [Scale::Log2, Scale::Log10, Scale::Linear] {
            let mut c = chart(
                scale,
                vec![(f64::MIN_POSITIVE, f64::MAX), (f64::MAX, 5e-324)],
            );
            c.y.scale = scale;
            c.hmarks.push(Marker {
                at: -f64::MAX,
                label: "m".into(),
            });
            let svg = render(&c);
            assert!(!svg.contains("NaN") && !svg.contains("inf"), "{scale:?}");
            assert!(svg.len() < 100_000);
        }
    }

    /// Issue #32 H: two lines along one another are both visible: the one drawn first
    /// is wider, so it shows as a band around the one on top.
    #[test]
    fn overlapping_lines_stay_visible() {
        let mut c = chart(Scale::Linear, vec![(0.0, 0.0), (1.0, 1.0), (2.0, 1.0)]);
        c.series.push(Series {
            name: "second".into(),
            points: vec![(0.0, 0.0), (1.5, 1.5), (2.0, 1.5)],
            style: Style::Solid,
            color: 1,
        });
        let s = render(&c);
        let widths: Vec<&str> = s
            .split("<polyline")
            .skip(1)
            .map(|p| {
                let at = p.find("stroke-width=\"").unwrap() + 14;
                &p[at..at + p[at..].find('"').unwrap()]
            })
            .collect();
        assert_eq!(widths, ["4.5", "2"], "{s}");
        assert!(overlap(
            &[(0.0, 0.0), (10.0, 10.0)],
            &[(5.0, 5.0), (20.0, 20.0)]
        ));
        assert!(!overlap(
            &[(0.0, 0.0), (10.0, 10.0)],
            &[(0.0, 5.0), (10.0, 15.0)]
        ));
        // Touching at one point is no overlap.
        assert!(!overlap(
            &[(0.0, 0.0), (10.0, 0.0)],
            &[(10.0, 0.0), (10.0, 10.0)]
        ));
    }
}
