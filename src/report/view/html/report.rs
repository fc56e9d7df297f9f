//! The page of a report: one self-contained file (inline CSS and SVG; no scripts, no network,
//! no external assets) with the host summary, the best result per workload against its
//! peak, the roofline, per resource the charts and the results table with efficiency
//! bars, and the cases that did not run with their reasons. Readable on a laptop screen
//! and printable (`@media print`).
//!
//! Every piece of text from the report goes through [`esc`]: the JSON may come from
//! anywhere. Numbers are model fields, formatted only.

use super::page::head;
use crate::measure::CiCaveat;
use crate::report::charts::{esc, render};
use crate::report::figures::{self, Figure};
use crate::report::model::{BenchResult, Metric, NoteKind, Report, ResourceName, Status};
use crate::report::view::cells;
use crate::util::units::{format_si, format_size};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// Parameters as `key=value`, byte sizes in binary units (`size=16KiB`): the text
/// views' formatting ([`cells::params`]).
fn params(r: &BenchResult) -> String {
    cells::params(r)
}

fn efficiency_cell(r: &BenchResult) -> String {
    match r.efficiency {
        Some(e) if (e * 100.0).is_finite() => {
            let w = (e * 100.0).clamp(0.0, 100.0);
            let (cls, flag) = if r.over_peak {
                (" class=\"over\"", " OVER PEAK")
            } else {
                ("", "")
            };
            // `~`: the machine was shared while it measured (the row's note says how);
            // its bar is drawn in another colour than a clean row's.
            let (mark, bar) = if r.disturbed {
                (
                    "<span class=\"flag\" title=\"disturbed: the machine was shared\">~</span>",
                    "bar dist",
                )
            } else {
                ("", "bar")
            };
            format!(
                "<span{cls}><span class=\"{bar}\"><span style=\"width:{w:.1}%\"></span></span>{mark}{:.1} %{flag}</span>",
                e * 100.0
            )
        }
        // A disturbed row without an efficiency is marked all the same (issue #45).
        _ if r.disturbed => {
            "<span class=\"flag\" title=\"disturbed: the machine was shared\">~</span> no peak"
                .to_string()
        }
        _ => String::new(),
    }
}

/// The visible key of the marks a table uses (issue #32 H): `~` for a disturbed row,
/// `*` for a high CV; empty when the table has neither.
fn legend(rs: &[&BenchResult]) -> String {
    let mut keys = Vec::new();
    if rs.iter().any(|r| r.disturbed) {
        keys.push(
            "<span class=\"flag\">~</span> and an orange bar: the machine was shared while the row measured (disturbed: weaker evidence; its note says which thread lost how much)"
                .to_string(),
        );
    }
    if rs
        .iter()
        .any(|r| r.notes.iter().any(|n| n.kind == NoteKind::HighCv))
    {
        keys.push(format!(
            "<span class=\"flag\">*</span> after the CV: above {:.0} %, the samples spread (the cell's tooltip has the advice)",
            crate::report::model::CV_WARN * 100.0
        ));
    }
    let caveat = |c: CiCaveat| {
        rs.iter()
            .any(|r| r.summary.as_ref().is_some_and(|s| s.caveat() == Some(c)))
    };
    if caveat(CiCaveat::OneSample) {
        keys.push("n=1 in the CV: one sample, so no spread is known".to_string());
    }
    if caveat(CiCaveat::BelowZero) {
        keys.push("a mean's tooltip gives its 95 % interval, and says where it is not meaningful (its lower end below 0 at a high CV)".to_string());
    }
    if keys.is_empty() {
        return String::new();
    }
    format!("<p class=\"legend\">{}</p>", keys.join(" · "))
}

fn host_section(out: &mut String, rep: &Report) {
    let h = &rep.host;
    let c = &h.cpu;
    let caches: Vec<String> = c
        .caches
        .iter()
        .map(|k| {
            format!(
                "L{} {} {} (shared by {})",
                k.level,
                k.kind,
                format_size(k.size_bytes),
                k.shared_by
            )
        })
        .collect();
    let clock = [
        (h.clock.scalar_hz, "add chain"),
        (h.clock.avx2_hz, "AVX2 chain"),
        (h.clock.avx512_hz, "AVX-512 chain"),
        (h.clock.label_hz, "label"),
    ]
    .into_iter()
    .filter_map(|(hz, what)| hz.map(|v| format!("{} ({what})", format_si(v, "Hz"))))
    .collect::<Vec<_>>()
    .join(", ");
    let gpus = if h.gpus.adapters.is_empty() {
        h.gpus
            .note
            .clone()
            .unwrap_or_else(|| "none detected".to_string())
    } else {
        h.gpus
            .adapters
            .iter()
            .map(|g| format!("{}: {}", g.index, g.label()))
            .collect::<Vec<_>>()
            .join("; ")
    };
    let rows: [(&str, String); 11] = [
        ("CPU", format!("{} ({})", c.model_name, c.vendor)),
        ("Microarchitecture", c.microarch.clone()),
        (
            "Topology",
            format!(
                "{} socket(s), {} cores, {} logical CPUs",
                c.sockets, c.cores, c.threads
            ),
        ),
        ("Caches", caches.join("; ")),
        ("Measured clock", clock),
        (
            "Memory",
            format!(
                "{} total, THP {}",
                format_size(h.memory.total_bytes),
                h.memory.thp.as_deref().unwrap_or("unknown")
            ),
        ),
        ("Instruction sets", c.features.join(" ")),
        ("GPU", gpus),
        (
            "System",
            format!(
                "{}, kernel {}, {}, virtualization: {}",
                h.os, h.kernel, h.arch, h.virtualization
            ),
        ),
        (
            "Run",
            format!(
                "{} → {}",
                rep.started_at,
                rep.finished_at.as_deref().unwrap_or("(unfinished)")
            ),
        ),
        (
            "Tool",
            format!("peakbench {} (schema {})", rep.tool_version, rep.schema),
        ),
    ];
    out.push_str("<h2 id=\"host\">Host</h2><table class=\"kv\">");
    // What the run was given (#47 item 5), where the report records it.
    let given = h.tuning.as_ref().map(|t| ("Given", t.line()));
    let energy = h.energy.as_ref().map(|e| ("Energy counters", e.line()));
    for (k, v) in rows.into_iter().chain(given).chain(energy) {
        let _ = write!(out, "<tr><td>{}</td><td>{}</td></tr>", esc(k), esc(&v));
    }
    out.push_str("</table>\n");
}

/// For each (resource, workload, metric): the ok result with the best mean (highest
/// rate, lowest latency): what the machine reached.
fn best_rows(rep: &Report) -> Vec<&BenchResult> {
    let mut best: BTreeMap<(ResourceName, String, Metric), &BenchResult> = BTreeMap::new();
    for r in rep.results.iter().filter(|r| r.is_ok()) {
        let Some(m) = r.summary.as_ref().map(|s| s.mean) else {
            continue;
        };
        let key = (r.resource, r.workload.clone(), r.metric);
        let lower = r.metric.lower_is_better();
        let better = |old: &BenchResult| -> bool {
            let om = old.summary.as_ref().map_or(f64::NAN, |s| s.mean);
            if lower {
                m < om
            } else {
                m > om
            }
        };
        match best.get(&key) {
            Some(old) if !better(old) => {}
            _ => {
                best.insert(key, r);
            }
        }
    }
    best.into_values().collect()
}

fn peaks_section(out: &mut String, rep: &Report) {
    let rows = best_rows(rep);
    if rows.is_empty() {
        return;
    }
    let key = legend(&rows);
    out.push_str("<h2 id=\"peaks\">Best result per workload against its theoretical peak</h2><table><tr><th>resource</th><th>workload</th><th>metric</th><th>params</th><th>mean</th><th>theoretical peak</th><th>efficiency</th><th>peak source</th></tr>");
    // One short source per row, the whole derivation one click away; each reason for
    // an unknown peak once, under the table.
    let mut reasons: Vec<String> = Vec::new();
    for r in rows {
        let full = r.peak.as_ref().map_or("", |p| p.source.as_str());
        let src = match crate::report::provenance::short(full) {
            _ if full.is_empty() => String::new(),
            crate::report::provenance::Short::Known(s) => format!(
                "<details><summary>{}</summary>{}</details>",
                esc(&s),
                esc(full)
            ),
            crate::report::provenance::Short::Unknown(why) => {
                let n = match reasons.iter().position(|x| *x == why) {
                    Some(i) => i + 1,
                    None => {
                        reasons.push(why);
                        reasons.len()
                    }
                };
                format!("unknown <a href=\"#peak-why-{n}\">[{n}]</a>")
            }
        };
        let _ = write!(
            out,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"eff\">{}</td><td class=\"src\">{src}</td></tr>",
            esc(r.resource.as_str()),
            esc(&r.workload),
            esc(r.metric.as_str()),
            esc(&params(r)),
            esc(&cells::mean(r)),
            esc(&cells::peak(r)),
            efficiency_cell(r),
        );
    }
    out.push_str("</table>\n");
    out.push_str(&key);
    if !reasons.is_empty() {
        out.push_str("<ol class=\"why\">");
        for (i, why) in reasons.iter().enumerate() {
            let _ = write!(
                out,
                "<li id=\"peak-why-{}\">peak unknown: {}</li>",
                i + 1,
                esc(why)
            );
        }
        out.push_str("</ol>\n");
    }
}

fn figure(out: &mut String, f: &Figure) {
    let _ = write!(
        out,
        "<figure>{}<figcaption>{}</figcaption></figure>",
        render(&f.chart),
        esc(&f.caption)
    );
}

fn references(r: &BenchResult) -> String {
    r.reference
        .as_ref()
        .map(|refs| {
            refs.iter()
                .map(|x| {
                    format!(
                        "<span title=\"{}\">{} {}: {}</span>",
                        esc(&x.command),
                        esc(&x.tool),
                        esc(&x.version),
                        esc(&format_si(x.value, x.unit.as_str()))
                    )
                })
                .collect::<Vec<_>>()
                .join("<br>")
        })
        .unwrap_or_default()
}

/// peakbench beside each reference tool, per workload (issue 15 item 5): one bar per
/// figure on the row's own scale (the largest figure of the row is the full bar), each
/// figure's efficiency against the row's peak, and peakbench's mean over the tool's.
/// The bar only draws the number beside it; nothing is hidden when a figure is above
/// the peak.
fn reference_bars(out: &mut String, rs: &[&BenchResult]) {
    let rows: Vec<&BenchResult> = rs
        .iter()
        .copied()
        .filter(|r| r.summary.is_some() && r.reference.as_ref().is_some_and(|v| !v.is_empty()))
        .collect();
    if rows.is_empty() {
        return;
    }
    out.push_str("<h3>Against the reference tools</h3><div class=\"tw\"><table class=\"refs\"><tr><th>workload</th><th>tool</th><th>figure</th><th>efficiency</th><th>peakbench / tool</th></tr>");
    for r in rows {
        let mean = r.summary.as_ref().map_or(0.0, |s| s.mean);
        let peak = r.peak.as_ref().and_then(|p| p.value).filter(|p| *p > 0.0);
        let refs = r.reference.as_deref().unwrap_or(&[]);
        let max = refs.iter().map(|x| x.value).fold(mean, f64::max);
        let bar = |v: f64, cls: &str| {
            let w = if max > 0.0 && v.is_finite() && v > 0.0 {
                v / max * 100.0
            } else {
                0.0
            };
            format!("<span class=\"hbar {cls}\"><span style=\"width:{w:.1}%\"></span></span>")
        };
        let eff = |v: f64| {
            peak.and_then(|p| crate::report::model::efficiency(r.metric, v, p))
                .map_or(String::new(), |e| format!("{:.1} %", 100.0 * e))
        };
        let _ = write!(
            out,
            "<tr><td rowspan=\"{}\">{} <span class=\"notes\">{}</span></td><td>peakbench</td><td class=\"n\">{}{}</td><td class=\"n\">{}</td><td></td></tr>",
            refs.len() + 1,
            esc(&r.workload),
            esc(&params(r)),
            bar(mean, "pb"),
            esc(&format_si(mean, r.unit.as_str())),
            eff(mean)
        );
        for x in refs {
            let ratio = if x.value != 0.0 {
                format!("{:.2}x", mean / x.value)
            } else {
                String::new()
            };
            let _ = write!(
                out,
                "<tr><td title=\"{}\">{} {}</td><td class=\"n\">{}{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td></tr>",
                esc(&x.command),
                esc(&x.tool),
                esc(&x.version),
                bar(x.value, "rf"),
                esc(&format_si(x.value, x.unit.as_str())),
                eff(x.value),
                ratio
            );
        }
    }
    out.push_str("</table></div>");
}

/// A resource's results: short params (what every row shares is said once above
/// the table, as on the terminal), the 95 % interval and n in the mean's tooltip, a
/// note shared by every row said once above the table, the rest folded in each row
/// (first line shown), so that the table fits 1280 px with the efficiency and the
/// notes in view.
fn results_table(out: &mut String, rs: &[&BenchResult]) {
    let short = cells::Params::of(rs);
    for (_, p) in &short.common {
        let _ = write!(out, "<p class=\"common\">Every row: {}</p>", esc(p));
    }
    // Notes every row carries (two rows or more), said once.
    let shared: Vec<&str> = match rs.first() {
        Some(first) if rs.len() > 1 => first
            .notes
            .iter()
            .filter(|n| rs.iter().all(|r| r.notes.iter().any(|m| m.text == n.text)))
            .map(|n| n.text.as_str())
            .collect(),
        _ => Vec::new(),
    };
    for n in &shared {
        let _ = write!(out, "<p class=\"common\">Every row: {}</p>", esc(n));
    }
    out.push_str("<div class=\"tw\"><table class=\"res\"><tr><th>workload</th><th>params</th><th>metric</th><th>mean</th><th>CV</th><th>min .. max</th><th>peak</th><th>efficiency</th><th>reference tools</th><th>notes</th></tr>");
    for (r, p) in rs.iter().zip(&short.rows) {
        let tip = cells::ci(r);
        let high_cv = r.notes.iter().find(|n| n.kind == NoteKind::HighCv);
        let notes: Vec<String> = r
            .notes
            .iter()
            // The CV cell flags a high CV (its note is the cell's tooltip).
            .filter(|n| !shared.contains(&n.text.as_str()) && n.kind != NoteKind::HighCv)
            .map(|n| {
                if matches!(n.kind, NoteKind::OverPeak | NoteKind::Shared) {
                    format!("<span class=\"flag\">{}</span>", esc(&n.text))
                } else {
                    esc(&n.text)
                }
            })
            .collect();
        let notes = match notes.len() {
            0 => String::new(),
            1 if notes[0].len() <= 90 => notes[0].clone(),
            k => format!(
                "<details><summary>{}{}</summary>{}</details>",
                if k > 1 {
                    format!("{k} notes: ")
                } else {
                    String::new()
                },
                esc(&first_words(
                    r.notes
                        .iter()
                        .find(|n| {
                            !shared.contains(&n.text.as_str()) && n.kind != NoteKind::HighCv
                        })
                        .map_or("", |n| n.text.as_str()),
                    60
                )),
                notes.join("<br>")
            ),
        };
        let _ = write!(
            out,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td class=\"n\" title=\"{}\">{}</td><td class=\"n{}\" title=\"{}\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"eff\">{}</td><td>{}</td><td class=\"notes\">{}</td></tr>",
            esc(&r.workload),
            esc(p),
            esc(r.metric.as_str()),
            esc(&tip),
            esc(&cells::mean(r)),
            if high_cv.is_some() { " hcv" } else { "" },
            esc(high_cv.map_or("", |n| n.text.as_str())),
            esc(&cells::cv(r)),
            esc(&cells::range(r)),
            esc(&cells::peak(r)),
            efficiency_cell(r),
            references(r),
            notes
        );
    }
    out.push_str("</table></div>\n");
    out.push_str(&legend(rs));
}

/// The first `n` characters of `s` (on a word boundary when there is one), with `…`
/// when cut.
fn first_words(s: &str, n: usize) -> String {
    // `s` is raw text: escaped by the caller.
    if s.chars().count() <= n {
        return s.to_string();
    }
    let cut: String = s.chars().take(n).collect();
    let cut = cut.rsplit_once(' ').map_or(cut.as_str(), |(a, _)| a);
    format!("{cut} …")
}

/// Resources in first-seen order.
fn resources(rep: &Report) -> Vec<ResourceName> {
    let mut v: Vec<ResourceName> = Vec::new();
    for r in &rep.results {
        if !v.contains(&r.resource) {
            v.push(r.resource);
        }
    }
    v
}

fn not_run_section(out: &mut String, rep: &Report) {
    let rs: Vec<&BenchResult> = rep.results.iter().filter(|r| !r.is_ok()).collect();
    if rs.is_empty() {
        return;
    }
    out.push_str("<h2 id=\"not-run\">Skipped and failed cases</h2><table><tr><th>resource</th><th>workload</th><th>params</th><th>status</th><th>reason</th></tr>");
    for r in rs {
        let (st, why) = match &r.status {
            Status::Skipped { reason } => ("skipped", reason.as_str()),
            Status::Failed { error } => ("failed", error.as_str()),
            Status::Ok => ("ok", ""),
        };
        let _ = write!(
            out,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td{}>{st}</td><td>{}</td></tr>",
            esc(r.resource.as_str()),
            esc(&r.workload),
            esc(&params(r)),
            if st == "failed" {
                " class=\"flag\""
            } else {
                ""
            },
            esc(why)
        );
    }
    out.push_str("</table>\n");
}

/// The whole page as a string.
/// The run's verdict (`report::quality`) under the header, when the report has one.
fn verdict(out: &mut String, rep: &Report) {
    for l in crate::report::quality::footer_lines(rep) {
        let _ = write!(out, "<p class=\"verdict\">{}</p>", esc(&l));
    }
}

pub(super) fn page(rep: &Report) -> String {
    let mut out = String::with_capacity(64 * 1024);
    let title = format!("peakbench report: {}", rep.host.hostname);
    head(&mut out, &title);
    let ok = rep.results.iter().filter(|r| r.is_ok()).count();
    let over = rep.results.iter().filter(|r| r.over_peak).count();
    let _ = write!(
        out,
        "<header><h1>{}</h1><div class=\"meta\">{} · {} results ({} ok, {} not run){}</div></header>",
        esc(&title),
        esc(&rep.started_at),
        rep.results.len(),
        ok,
        rep.results.len() - ok,
        if over > 0 {
            format!(" · <span class=\"flag\">{over} OVER PEAK: check the peaks' inputs</span>")
        } else {
            String::new()
        }
    );
    verdict(&mut out, rep);
    out.push_str("<div class=\"top\"><div>");
    host_section(&mut out, rep);
    out.push_str("</div>");
    if let Some(f) = figures::roofline(rep) {
        out.push_str("<div><h2 id=\"roofline\">Roofline</h2>");
        figure(&mut out, &f);
        out.push_str("</div>");
    }
    out.push_str("</div>\n");
    peaks_section(&mut out, rep);
    for res in resources(rep) {
        let rs: Vec<&BenchResult> = rep.results.iter().filter(|r| r.resource == res).collect();
        let _ = write!(out, "<h2 id=\"r-{0}\">{0}</h2>", res);
        let mut figs = figures::sweeps(rep, res);
        figs.extend(figures::latency(rep, res));
        figs.extend(figures::timeseries(rep, res));
        if !figs.is_empty() {
            out.push_str("<div class=\"grid\">");
            for f in &figs {
                figure(&mut out, f);
            }
            out.push_str("</div>");
        }
        reference_bars(&mut out, &rs);
        if res == crate::report::model::ResourceName::Memory {
            super::numa::section(&mut out, rep);
            super::loaded::section(&mut out, rep);
        }
        super::c2c::heat_map(&mut out, &rs);
        let _ = write!(out, "<h3>{res} results</h3>");
        results_table(&mut out, &rs);
    }
    not_run_section(&mut out, rep);
    let _ = write!(
        out,
        "<footer>Generated by peakbench {} from a {} report. Every number is a field of the JSON results file (the source of truth); the page only formats and plots them. Efficiency = mean ÷ theoretical peak; above 100 % is flagged, never clamped.</footer>\n</body></html>\n",
        esc(env!("CARGO_PKG_VERSION")),
        esc(&rep.schema)
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::samples;

    #[test]
    fn mixed_report_has_every_chart_and_escapes_text() {
        let h = page(&samples::mixed());
        // roofline 1; cpu 3 scaling (fp32, fp64, int32) + 1 time series; memory threads, size, latency-by-size
        // + percentiles; disk depth, block + percentiles; net msg + percentiles.
        assert_eq!(h.matches("<svg").count(), 14, "{h}");
        assert!(!h.contains("http://") && !h.contains("https://"));
        assert!(!h.contains("<script") && !h.contains("<img"));
        assert!(h.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"));
        assert!(h.contains("reason with &lt;b&gt;markup&lt;/b&gt; &amp; &quot;quotes&quot;"));
        assert!(h.contains("O_DIRECT is not supported"));
        assert!(h.contains("OVER PEAK"));
        assert!(h.contains("L1d 48 KiB") && h.contains("L2 2 MiB"));
        assert!(h.contains("likwid-bench 5.2.2: 77.00 GFLOP/s"));
        assert!(h.contains("Roofline"));
        assert!(h.contains("@media print"));
        assert!(!h.contains("NaN") && !h.contains("inf\""));
        assert!(h.ends_with("</html>\n"));
    }

    /// Issue 15 item 5: peakbench and each reference tool as bars per workload, with
    /// both efficiencies and the ratio.
    #[test]
    fn reference_tools_are_drawn_beside_peakbench() {
        let h = page(&samples::mixed());
        assert_eq!(h.matches("Against the reference tools").count(), 1, "{h}");
        let at = h.find("Against the reference tools").unwrap();
        let section = &h[at..at + h[at..].find("</table>").unwrap()];
        // peakbench 76 GFLOP/s, likwid-bench 77 GFLOP/s, peak 80 GFLOP/s.
        assert!(
            section.contains("hbar pb") && section.contains("hbar rf"),
            "{section}"
        );
        assert!(
            section.contains("95.0 %") && section.contains("96.2 %"),
            "{section}"
        );
        assert!(section.contains("0.99x"), "{section}");
        assert!(section.contains("width:100.0%"), "{section}");
        // A report without reference figures has no such section.
        let h = page(&crate::report::fixtures::report());
        assert!(!h.contains("Against the reference tools"));
    }

    #[test]
    fn cpu_only_report_has_a_compute_only_roofline() {
        let h = page(&crate::report::fixtures::report());
        assert!(h.contains("Compute ceilings only"));
        assert!(h.contains("CPU lacks amx-bf16"));
    }

    /// Issue 15 item 7: the rows stay short: shared params said once, the CV flagged
    /// in its cell, long notes folded.
    #[test]
    fn results_tables_keep_rows_short() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/quick_zen3_a.json"
        );
        let rep = crate::report::load::load(std::path::Path::new(path)).unwrap();
        let h = page(&rep);
        assert!(
            h.contains("Every row: device=vda direct=true engine=uring file_size=256MiB jobs=1")
        );
        let disk = &h[h.find("<h3>disk results</h3>").unwrap()..];
        let disk = &disk[disk.find("<table").unwrap()..disk.find("</table>").unwrap()];
        assert!(
            !disk.contains("file_size=256MiB"),
            "shared params in the rows"
        );
        assert!(disk.contains("<td class=\"n hcv\" title=\"CV 11.2 %"));
        assert!(!disk.contains("<br>CV "), "CV notes in the notes cell");
        assert!(disk.contains("<details><summary>io_uring, registered buffers"));
    }

    #[test]
    fn empty_and_unfinished_reports_page() {
        let mut r = samples::compare_a();
        r.results.clear();
        r.finished_at = None;
        let h = page(&r);
        assert_eq!(h.matches("<svg").count(), 0);
        assert!(h.contains("(unfinished)"));
    }

    /// Issue #32 H: the `~` and `*` marks have a visible key (not a tooltip only), a
    /// disturbed row's bar is another colour, and the best results name their metric.
    #[test]
    fn marks_have_a_key_and_disturbed_bars_their_colour() {
        let mut rep = crate::report::fixtures::report();
        let h = page(&rep);
        assert!(!h.contains("class=\"legend\""), "no marks, no key");
        assert!(!h.contains("bar dist"));
        rep.results[0].disturbed = true;
        rep.results[0].notes.push(crate::report::model::Note::new(
            NoteKind::HighCv,
            "CV 9.0 % > 5 %: consider --repeat",
        ));
        let h = page(&rep);
        assert!(h.contains("<span class=\"bar dist\">"), "{h}");
        assert!(h.contains(".bar.dist>span{background:#e69f00}"));
        let key = &h[h.find("<p class=\"legend\">").expect("a key")..];
        let key = &key[..key.find("</p>").unwrap()];
        assert!(
            key.contains("~</span> and an orange bar: the machine was shared"),
            "{key}"
        );
        assert!(key.contains("*</span> after the CV: above 5 %"), "{key}");
        // Issue #45: a disturbed row without a peak (memory, disk) is marked as well.
        let mut rep = samples::mixed();
        let i = rep
            .results
            .iter()
            .position(|r| r.efficiency.is_none() && r.is_ok())
            .unwrap();
        rep.results[i].disturbed = true;
        let h = page(&rep);
        assert!(h.contains("disturbed: the machine was shared\">~</span> no peak"));
        assert!(h.contains("<p class=\"legend\">"));
        // The best-result table has a metric column (disk rows of one workload differ
        // only in it).
        let h = page(&samples::mixed());
        let best = &h[h.find("id=\"peaks\"").unwrap()..];
        let best = &best[..best.find("</table>").unwrap()];
        assert!(best.contains("<th>metric</th>"), "{best}");
        assert!(best.contains("<td>rand-read</td><td>iops</td>"), "{best}");
        assert!(
            best.contains("<td>rand-read</td><td>latency</td>"),
            "{best}"
        );
    }

    /// Issue #32 H: a thread-scaling chart of two points draws the peak at each thread
    /// count (or, with no peak, the ideal linear scaling) beside the measured line.
    #[test]
    fn thread_scaling_charts_have_their_peak_or_ideal_line() {
        let h = page(&samples::mixed());
        let at = h
            .find("cpu fp64 ops scaling with threads")
            .expect("fp64 chart");
        let fig = &h[at..at + h[at..].find("</figure>").unwrap()];
        assert!(fig.contains("fma_f64_avx512 isa=avx512 peak"), "{fig}");
        assert!(fig.contains("stroke-dasharray"), "{fig}");
        assert!(fig.contains("Dashed: the theoretical peak at each thread count"));
        // Without peaks: the ideal line from the fewest threads.
        let mut rep = samples::mixed();
        for r in &mut rep.results {
            r.peak = None;
        }
        let h = page(&rep);
        let at = h.find("cpu fp64 ops scaling with threads").unwrap();
        let fig = &h[at..at + h[at..].find("</figure>").unwrap()];
        assert!(fig.contains("fma_f64_avx512 isa=avx512 ideal"), "{fig}");
        assert!(fig.contains("ideal linear scaling"), "{fig}");
    }

    /// Issue #32 item 3: one sample is shown as n=1 with no interval, an interval below
    /// zero as not meaningful, never as a figure no machine produces.
    #[test]
    fn one_sample_and_a_negative_interval_are_not_shown_as_certain() {
        let mut rep = crate::report::fixtures::report();
        rep.results[0] = samples::fma(1, vec![13.93e9]);
        rep.results[1] = samples::fma(2, vec![3e9, 10e9, 17e9]);
        let h = page(&rep);
        assert!(!h.contains("95 % CI 13.93 GFLOP/s .. 13.93 GFLOP/s"), "{h}");
        assert!(h.contains("95 % CI: not known, one sample (n = 1)"), "{h}");
        assert!(h.contains(">n=1</td>"), "{h}");
        assert!(!h.contains(">0.0 %</td>"), "{h}");
        assert!(h.contains("95 % CI not meaningful (CV 70 %, n = 3)"), "{h}");
        assert!(h.contains("clipped: 0 .. 27.39 GFLOP/s"), "{h}");
        assert!(h.contains("n=1 in the CV: one sample"), "{h}");
        // The JSON keeps the interval as computed.
        let s = rep.results[1].summary.as_ref().unwrap();
        assert!(s.ci95_low < 0.0);
    }
}
