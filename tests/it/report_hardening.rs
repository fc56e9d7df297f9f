//! CLI tests of the reporting side's hardening rounds and loose ends (#16, #26, #27,
//! #33): text from a results file is sanitised, reads and sizes are bounded, exports
//! interrupted half-way leave no partial file, extreme values render in bounded time,
//! and the HTML's peak sources stay short. Nothing here checks speed.

use crate::common;

/// #16 item 4: a crafted results file with ESC, BEL, newlines, a bidi override and a 250 KB
/// string: no control character reaches the terminal, Markdown or CSV, no forged line,
/// and every field is capped.
#[test]
fn report_text_from_a_file_is_sanitised() {
    let src = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/report_compare_a.json"
    );
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(src).unwrap()).unwrap();
    let evil = format!(
        "x\x1b]0;pwned\x07\x1b[2J\nnote: forged line\r\u{202e}{}",
        "A".repeat(250 * 1024)
    );
    v["host"]["hostname"] = evil.clone().into();
    let r = &mut v["results"][0];
    r["workload"] = evil.clone().into();
    r["notes"] = serde_json::json!([evil.clone()]);
    r["params"]["evil"] = evil.clone().into();
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("evil.json");
    std::fs::write(&f, serde_json::to_vec(&v).unwrap()).unwrap();
    for format in ["table", "markdown", "csv"] {
        let out = common::pb_bounded()
            .args(["report", f.to_str().unwrap(), "--format", format])
            .output()
            .unwrap();
        common::assert_success(&out, format);
        let s = String::from_utf8(out.stdout).unwrap();
        assert!(
            !s.chars()
                .any(|c| c.is_control() && c != '\n' || c == '\u{202e}'),
            "{format}: control character in the output"
        );
        // Markdown escapes the backslashes and brackets of the shown escape once more
        // (#33 item 7), so it renders as the same text.
        let shown = if format == "markdown" {
            "\\\\x1b\\]0;pwned\\\\x07"
        } else {
            "\\x1b]0;pwned\\x07"
        };
        assert!(s.contains(shown), "{format}: escape not shown");
        assert!(
            !s.lines().any(|l| l.starts_with("note: forged")),
            "{format}: forged line"
        );
        // Four copies of the string, each capped at 1000 characters (+ escapes).
        assert!(s.len() < 100_000, "{format}: {} bytes", s.len());
    }
}

/// #16 item 5: `report` never trusts the size a file reports: a device is refused at once,
/// and an endless pipe is cut at the cap (one line, exit 2).
#[test]
fn report_reads_are_bounded() {
    let t = std::time::Instant::now();
    let out = common::pb_bounded()
        .args(["report", "/dev/zero"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.contains("/dev/zero"), "{err}");
    assert!(t.elapsed() < std::time::Duration::from_secs(30));
}

/// #16 item 11: an unwritable --html is refused before anything is measured.
#[test]
fn html_path_is_checked_before_the_run() {
    common::refused_bounded(
        &["null", "--html", "/nonexistent-dir/x.html"],
        &["--html:", "/nonexistent-dir/x.html"],
    );
}

/// #16 item 11: `compare` of files with nothing to compare (no case in common, or the
/// common cases not measured in both) is refused with one line, exit 2, and writes no
/// `--html`; it used to print an empty comparison and exit 0.
#[test]
fn compare_with_nothing_in_common_is_refused() {
    let src = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/report_compare_a.json"
    );
    let a: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(src).unwrap()).unwrap();
    let mut other = a.clone();
    for r in other["results"].as_array_mut().unwrap() {
        r["resource"] = "disk".into();
    }
    let mut failed = a.clone();
    for r in failed["results"].as_array_mut().unwrap() {
        r["status"] = serde_json::json!({"failed": {"error": "boom"}});
    }
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, v: &serde_json::Value| {
        let p = dir.path().join(name);
        std::fs::write(&p, serde_json::to_vec(v).unwrap()).unwrap();
        p.to_str().unwrap().to_string()
    };
    let (a, other, failed) = (
        write("a.json", &a),
        write("other.json", &other),
        write("failed.json", &failed),
    );
    let html = dir.path().join("c.html");
    for (b, needle) in [
        (&other, "no case in common"),
        (&failed, "measured (status ok)"),
    ] {
        let out = common::pb_bounded()
            .args(["compare", &a, b, "--html"])
            .arg(&html)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(
            err.contains("nothing to compare") && err.contains(needle),
            "{err}"
        );
        assert!(err.contains("a.json: 5 cases (cpu, memory)"), "{err}");
        assert!(out.stdout.is_empty());
        assert!(!html.exists());
    }
}

/// #27 item 3: a file whose `config` is a huge array is refused by the value count,
/// one whose huge content has no schema by the schema check; both in one line, exit 2,
/// and quickly (the reader no longer builds a tree of them first).
#[test]
fn huge_files_are_refused_before_they_are_built() {
    let dir = tempfile::tempdir().unwrap();
    let mut v = common::fixture_json("report_mixed.json");
    v.as_object_mut().unwrap().remove("config");
    let mut head = serde_json::to_string(&v).unwrap();
    head.pop();
    let mut big = head.into_bytes();
    big.extend_from_slice(b",\"config\":[");
    big.extend(std::iter::repeat_n(&b"0,"[..], 5_000_000).flatten());
    big.extend_from_slice(b"0]}");
    let p = dir.path().join("config.json");
    std::fs::write(&p, &big).unwrap();
    let out = common::pb().arg("report").arg(&p).output().unwrap();
    common::assert_refused(&out, &"huge array", &["config.json", "4000000 JSON values"]);
    let mut none = b"{\"x\":[".to_vec();
    none.extend(std::iter::repeat_n(&b"{},"[..], 2_000_000).flatten());
    none.extend_from_slice(b"{}]}");
    let p = dir.path().join("none.json");
    std::fs::write(&p, &none).unwrap();
    let out = common::pb().arg("report").arg(&p).output().unwrap();
    common::assert_refused(&out, &"no schema", &["none.json", "no \"schema\""]);
}

/// #27 items 4 and 7: means and peaks of 1e308 give an HTML report (charts with a few
/// ticks) in bounded time, and print as mantissa and exponent, not 309 digits.
#[test]
fn extreme_values_render_in_bounded_time() {
    let dir = tempfile::tempdir().unwrap();
    let mut v = common::fixture_json("report_mixed.json");
    for r in v["results"].as_array_mut().unwrap() {
        if r["summary"].is_object() {
            r["summary"]["mean"] = 1e308.into();
        }
        if r["peak"].is_object() {
            r["peak"]["value"] = 1e308.into();
        }
    }
    let p = common::write_json(dir.path(), "extreme.json", &v);
    let html = dir.path().join("extreme.html");
    let out = common::pb()
        .arg("report")
        .arg(&p)
        .arg("--html")
        .arg(&html)
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .unwrap();
    common::assert_success(&out, "out");
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("<svg") && !page.contains("NaN"));
    let out = common::pb()
        .arg("report")
        .arg(&p)
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .unwrap();
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(table.contains("e308"), "{table}");
    assert!(!table.contains(&"0".repeat(40)), "{table}");
}

mod interrupted_exports {
    //! #33 item 9: an interrupted `report`/`compare`/`fleet` writing `--html`, `--csv` or
    //! `--markdown` left `.NAME.PID-N.tmp` files (8 of 10 runs).

    use crate::common;
    use std::path::{Path, PathBuf};
    use std::process::Stdio;
    use std::time::{Duration, Instant};

    /// A results file of `copies` × the mixed fixture's results.
    fn big_report(dir: &Path, name: &str, host: &str, copies: usize) -> PathBuf {
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/report_mixed.json"
        ))
        .unwrap();
        let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
        let one = v["results"].as_array().unwrap().clone();
        let mut all = Vec::new();
        for i in 0..copies {
            for r in &one {
                let mut r = r.clone();
                r["workload"] = format!("{}_{i}", r["workload"].as_str().unwrap()).into();
                all.push(r);
            }
        }
        v["results"] = all.into();
        v["host"]["hostname"] = host.into();
        let p = dir.join(name);
        std::fs::write(&p, serde_json::to_vec(&v).unwrap()).unwrap();
        p
    }

    fn temporaries(dir: &Path) -> Vec<PathBuf> {
        common::everything(dir)
            .into_iter()
            .filter(|p| p.to_string_lossy().ends_with(".tmp"))
            .collect()
    }

    #[test]
    fn issue_33_an_interrupted_export_leaves_no_temporary_file() {
        let inputs = tempfile::tempdir().unwrap();
        let a = big_report(inputs.path(), "a.json", "ha", 200);
        let b = big_report(inputs.path(), "b.json", "hb", 200);
        let c = big_report(inputs.path(), "c.json", "hc", 200);
        let (a, b, c) = (
            a.to_str().unwrap(),
            b.to_str().unwrap(),
            c.to_str().unwrap(),
        );
        let mut hit = 0;
        for round in 0..12 {
            let out = tempfile::tempdir().unwrap();
            let o = |f: &str| out.path().join(f).to_str().unwrap().to_string();
            let args: Vec<String> = match round % 3 {
                0 => vec![
                    "report".into(),
                    a.into(),
                    "--html".into(),
                    o("r.html"),
                    "--csv".into(),
                    o("r.csv"),
                    "--markdown".into(),
                    o("r.md"),
                ],
                1 => ["compare", a, b, "--html"]
                    .map(String::from)
                    .into_iter()
                    .chain([o("c.html")])
                    .collect(),
                _ => ["fleet", a, b, c, "--html"]
                    .map(String::from)
                    .into_iter()
                    .chain([o("f.html")])
                    .collect(),
            };
            let mut child = common::pb_std()
                .args(&args)
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            // Signal as soon as a temporary file exists (a few rounds a little later).
            let t = Instant::now();
            let mut seen = false;
            while t.elapsed() < Duration::from_secs(30) {
                if !temporaries(out.path()).is_empty() {
                    seen = true;
                    break;
                }
                if child.try_wait().unwrap().is_some() {
                    break;
                }
                std::thread::sleep(Duration::from_micros(200));
            }
            if round >= 6 {
                std::thread::sleep(Duration::from_millis(2 * (round as u64 - 5)));
            }
            common::signal(
                &child,
                if round % 2 == 0 {
                    libc::SIGINT
                } else {
                    libc::SIGTERM
                },
            );
            let res = common::finish(child, Duration::from_secs(30), &args[0]);
            let err = String::from_utf8_lossy(&res.stderr);
            if seen {
                hit += 1;
            }
            assert!(
                res.status.success() || matches!(res.status.code(), Some(130 | 143)),
                "{args:?}: {:?} {err}",
                res.status
            );
            let left = temporaries(out.path());
            assert!(left.is_empty(), "{args:?} left {left:?}: {err}");
            // What is in place is whole: a page ends with its closing tag.
            for p in common::everything(out.path()) {
                if p.extension().is_some_and(|e| e == "html") {
                    let s = std::fs::read_to_string(&p).unwrap();
                    assert!(s.trim_end().ends_with("</html>"), "{p:?} is cut");
                }
            }
        }
        assert!(hit > 0, "no round caught a temporary file to interrupt");
    }
}

/// #26 item 1: `report FIFO` blocked forever on the open; anything that is not a regular
/// file is refused at once, in one line, exit 2, and no writer is ever needed.
#[test]
fn report_refuses_a_named_pipe_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("results.json");
    common::mkfifo(&fifo);
    let f = fifo.to_str().unwrap();
    for args in [vec!["report", f], vec!["compare", f, f], vec!["fleet", f]] {
        let out = common::pb_bounded().args(&args).output().unwrap();
        let err = common::assert_refused(&out, &args, &[]);
        assert_eq!(
            err.trim_end(),
            format!(
                "error: {}: not a peakbench results file: is a named pipe (FIFO), not a regular file; give a .json file",
                fifo.display()
            )
        );
    }
}

/// A quick suite recorded on a 2-vCPU AMD EPYC (Zen 3) guest.
const QUICK: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/quick_zen3_a.json"
);

/// #26 item 5: `--block 8KB` showed as `block=7.81KiB` in the table and the CSV while the
/// JSON kept 8000: a size is shown in the units that state it exactly.
#[test]
fn decimal_sizes_show_in_decimal_units() {
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(QUICK).unwrap()).unwrap();
    let mut n = 0;
    for r in v["results"].as_array_mut().unwrap() {
        if r["resource"] == "disk" {
            r["params"]["block"] = 8000.into();
            r["params"]["file_size"] = 256_000_000u64.into();
            n += 1;
        }
    }
    assert!(n > 0);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("r.json");
    std::fs::write(&file, serde_json::to_vec(&v).unwrap()).unwrap();
    let out = common::pb_bounded()
        .args(["report", "--width", "200"])
        .arg(&file)
        .output()
        .unwrap();
    common::assert_success(&out, "out");
    let table = String::from_utf8(out.stdout).unwrap();
    let csv = dir.path().join("r.csv");
    let out = common::pb_bounded()
        .arg("report")
        .arg(&file)
        .arg("--csv")
        .arg(&csv)
        .output()
        .unwrap();
    common::assert_success(&out, "out");
    let csv = std::fs::read_to_string(&csv).unwrap();
    for (what, text) in [("table", &table), ("csv", &csv)] {
        assert!(text.contains("block=8KB"), "{what}:\n{text}");
        assert!(text.contains("file_size=256MB"), "{what}:\n{text}");
        assert!(!text.contains("7.81KiB"), "{what}:\n{text}");
    }
    // The CSV's raw column keeps the bytes, as the JSON does.
    assert!(csv.contains(",8000,"), "{csv}");
}

/// #26 item 11: the HTML "peak source" was 6–9 lines per row and repeated the same
/// "unknown: SMBIOS unreadable …" for every memory row: one short source per row, the
/// whole derivation one click away, each reason once.
#[test]
fn html_peak_sources_are_short_and_reasons_said_once() {
    let dir = tempfile::tempdir().unwrap();
    let html = dir.path().join("r.html");
    let out = common::pb_bounded()
        .args(["report", QUICK, "--html"])
        .arg(&html)
        .output()
        .unwrap();
    common::assert_success(&out, "out");
    let page = std::fs::read_to_string(&html).unwrap();
    let peaks = &page[page.find("id=\"peaks\"").unwrap()..];
    let peaks = &peaks[..peaks.find("</ol>").unwrap()];
    assert_eq!(peaks.matches("SMBIOS unreadable").count(), 1, "{peaks}");
    assert!(peaks.contains("<details><summary>Zen 3 · 3."), "{peaks}");
    assert!(
        peaks.contains("unknown <a href=\"#peak-why-1\">[1]</a>"),
        "{peaks}"
    );
    // Every source cell is one short line when closed.
    for cell in peaks.split("<td class=\"src\">").skip(1) {
        let cell = &cell[..cell.find("</td>").unwrap()];
        let shown = match cell.find("<summary>") {
            Some(i) => &cell[i + 9..cell.find("</summary>").unwrap()],
            None => cell,
        };
        assert!(shown.chars().count() <= 80, "{shown}");
    }
}
