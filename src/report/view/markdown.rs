//! Markdown: a heading and a GitHub-flavoured table per document (a report with the
//! same columns as the terminal table; a comparison's changes; a fleet's workloads and
//! hosts), then its notes and warnings as a list. A matrix run is its report; a text
//! document is its terminal text.

use super::cells::{self, compare as compare_cells, fleet as fleet_cells};
use super::{Doc, Format};
use crate::report::compare::Comparison;
use crate::report::fleet::Fleet;
use crate::report::model::Report;
use std::io::{self, Write};

/// `--format markdown` (or `md`).
pub(crate) const FORMAT: Format = Format {
    name: "markdown",
    aliases: &["md"],
    stdout: true,
    write,
};

/// Writes `doc` as Markdown.
fn write(doc: Doc<'_>, _width: Option<usize>, out: &mut dyn Write) -> io::Result<()> {
    match doc {
        Doc::Report(r) | Doc::Matrix(r) => export(r, out),
        Doc::Comparison(c) => comparison(c, out),
        Doc::Fleet(f) => fleet(f, out),
        Doc::Grid(g) => grid(g.headers, &g.rows, out),
        Doc::Series(s) => {
            writeln!(out, "## {}\n", cell(&s.title))?;
            grid(
                &cells::series::TEXT_HEADERS,
                &cells::series::rows(s, false),
                out,
            )?;
            writeln!(out)?;
            for l in cells::series::footer(s).lines() {
                writeln!(out, "- {}", cell(l))?;
            }
            Ok(())
        }
        Doc::Text(t) => t.text(None, out),
    }
}

/// Sanitised (see [`crate::util::sanitize`]), with `|` escaped for the table,
/// `&`, `<`, `>` as entities (Markdown renderers pass inline HTML through, so a
/// `<script>` from a results file must not arrive as a tag), and `[`, `]` and `\\`
/// escaped with a backslash: a host name or note of `![x](http://…)` would otherwise
/// be an image the reader's viewer fetches, and `[click](javascript:…)` a link (issue
/// #33 item 7). Every other character, `_` and `*` included, is written as it is.
pub(crate) fn cell(s: &str) -> String {
    let s = crate::util::sanitize::line(s);
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '|' => o.push_str("\\|"),
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '[' | ']' | '\\' => {
                o.push('\\');
                o.push(c);
            }
            c => o.push(c),
        }
    }
    o
}

/// The CPU in the heading: `model, row`, or the model alone where it names the row
/// (Arm: `Neoverse N1`, never `Neoverse N1, Neoverse N1`).
fn markdown_cpu(c: &crate::hw::cpu::CpuInfo) -> String {
    if c.microarch.is_empty() || c.model_name.contains(&c.microarch) {
        c.model_name.clone()
    } else {
        format!("{}, {}", c.model_name, c.microarch)
    }
}

/// Writes a heading with the host, the table, and the notes as a list.
fn export(report: &Report, out: &mut dyn Write) -> std::io::Result<()> {
    let h = &report.host;
    writeln!(
        out,
        "### peakbench on {} ({}, {} cores)\n",
        cell(&h.hostname),
        cell(&markdown_cpu(&h.cpu)),
        h.cpu.cores
    )?;
    for t in cells::tuning_line(h).iter().chain(&cells::energy_line(h)) {
        writeln!(out, "{}\n", cell(t))?;
    }
    // With reference figures: the tool's figure, its efficiency against the same
    // peak, and peakbench's mean over it, beside peakbench's own.
    let refs = report.results.iter().any(|r| r.reference.is_some());
    let mut headers = cells::HEADERS.to_vec();
    if refs {
        headers.extend(["reference", "ref. efficiency", "peakbench / ref."]);
    }
    let rows: Vec<Vec<String>> = report
        .results
        .iter()
        .map(|r| {
            let mut row = cells::row(r).to_vec();
            if refs {
                row.extend(cells::reference_cells(r));
            }
            row
        })
        .collect();
    grid(&headers, &rows, out)?;
    let notes: Vec<String> = cells::notes(report)
        .iter()
        .map(|n| format!("- {}", cell(n)))
        .collect();
    if !notes.is_empty() {
        writeln!(out)?;
        for n in notes {
            writeln!(out, "{n}")?;
        }
    }
    let refs: Vec<String> = report
        .results
        .iter()
        .flat_map(cells::reference_lines)
        .collect();
    if !refs.is_empty() {
        writeln!(out)?;
        for l in refs {
            writeln!(out, "- reference: {}", cell(&l))?;
        }
    }
    Ok(())
}

/// A plain table of `headers` and `rows`, cells sanitised and `|` escaped.
fn grid(headers: &[&str], rows: &[Vec<String>], out: &mut dyn Write) -> std::io::Result<()> {
    let headers: Vec<String> = headers.iter().map(|h| cell(h)).collect();
    writeln!(out, "| {} |", headers.join(" | "))?;
    writeln!(out, "|{}", "---|".repeat(headers.len()))?;
    for r in rows {
        let cells: Vec<String> = r.iter().map(|c| cell(c)).collect();
        writeln!(out, "| {} |", cells.join(" | "))?;
    }
    Ok(())
}

/// A Markdown table, then the unmatched cases as a list.
fn comparison(c: &Comparison, out: &mut dyn Write) -> std::io::Result<()> {
    writeln!(
        out,
        "### peakbench compare (baseline {})\n",
        cell(c.files.first().map_or("", |s| s))
    )?;
    let rows: Vec<Vec<String>> = c
        .changes
        .iter()
        .map(|ch| compare_cells::row(ch).to_vec())
        .collect();
    grid(&compare_cells::HEADERS, &rows, out)?;
    if !c.settings.is_empty() {
        writeln!(
            out,
            "\n**warning:** the files were measured with different settings; figures may differ for that reason alone:\n"
        )?;
        for x in &c.settings {
            writeln!(out, "- {}", cell(x))?;
        }
    }
    for x in &c.shifts {
        writeln!(out, "\n**warning:** {}", cell(x))?;
    }
    if !c.unmatched.is_empty() {
        writeln!(out)?;
        for u in &c.unmatched {
            writeln!(
                out,
                "- unmatched: {}: {}",
                cell(&u.case.label()),
                cell(&u.reason)
            )?;
        }
    }
    writeln!(out, "\n{}", cell(&c.method))
}

/// The workloads, then the hosts (worst first), the warnings and the method.
fn fleet(f: &Fleet, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "### peakbench fleet ({} hosts)\n", f.hosts.len())?;
    let rows: Vec<Vec<String>> = f
        .workloads
        .iter()
        .map(|w| fleet_cells::w_row(w).to_vec())
        .collect();
    grid(&fleet_cells::W_HEADERS, &rows, out)?;
    writeln!(out)?;
    let rows: Vec<Vec<String>> = fleet_cells::hosts_sorted(f)
        .into_iter()
        .map(|h| fleet_cells::h_row(h).to_vec())
        .collect();
    grid(&fleet_cells::H_HEADERS, &rows, out)?;
    for w in &f.warnings {
        writeln!(out, "\n- warning: {}", cell(w))?;
    }
    writeln!(out, "\n{}", cell(&f.method))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_table() {
        let mut buf = Vec::new();
        export(&crate::report::fixtures::report(), &mut buf).unwrap();
        let s = String::from_utf8(buf).unwrap();
        assert!(s.contains("| resource | workload | metric | params |"));
        assert!(s.contains(
            "| cpu | fma_f64_avx512 | ops | isa=avx512 precision=fp64 threads=2 | 152.0 GFLOP/s |"
        ));
        assert!(s.contains("110.0 % OVER PEAK"));
        assert_eq!(s.lines().filter(|l| l.starts_with("| cpu")).count(), 3);
    }

    /// Issue #27 item 6: a result's strings cannot become inline HTML.
    #[test]
    fn html_in_a_result_is_written_as_text() {
        let mut r = crate::report::fixtures::report();
        r.host.hostname = "<script>alert(1)</script>".into();
        r.results[0].workload = "<img src=x onerror=alert(1)>|&".into();
        let mut buf = Vec::new();
        export(&r, &mut buf).unwrap();
        let s = String::from_utf8(buf).unwrap();
        assert!(!s.contains('<') && !s.contains('>'), "{s}");
        assert!(s.contains("&lt;script&gt;alert(1)&lt;/script&gt;"), "{s}");
        assert!(
            s.contains("&lt;img src=x onerror=alert(1)&gt;\\|&amp;"),
            "{s}"
        );
    }

    /// Issue #33 item 7: link and image syntax from a results file is text.
    #[test]
    fn issue_33_links_and_images_in_a_result_are_written_as_text() {
        let mut r = crate::report::fixtures::report();
        r.host.hostname = "![x](http://example.invalid/pixel.png)".into();
        r.results[0].workload = "[click](javascript:alert(1))".into();
        r.results[0]
            .notes
            .push(crate::report::model::Note::info("see [here][1]\\"));
        let mut buf = Vec::new();
        export(&r, &mut buf).unwrap();
        let s = String::from_utf8(buf).unwrap();
        assert!(
            s.contains("### peakbench on !\\[x\\](http://example.invalid/pixel.png)"),
            "{s}"
        );
        assert!(s.contains("| \\[click\\](javascript:alert(1)) |"), "{s}");
        assert!(s.contains("see \\[here\\]\\[1\\]\\\\"), "{s}");
        // No bracket is left unescaped: nothing can open a link or an image.
        let b = s.as_bytes();
        for (i, &c) in b.iter().enumerate() {
            if c == b'[' || c == b']' {
                let slashes = b[..i].iter().rev().take_while(|&&x| x == b'\\').count();
                assert!(slashes % 2 == 1, "unescaped bracket at {i} in {s}");
            }
        }
    }
}
