//! CLI tests of the reporting side: `peakbench report` (every exporter against golden
//! files built from the fixture reports), `peakbench compare` on two fixture files with
//! a known significant and a known insignificant change, bad input files (one line,
//! exit 2), `--html` on a run, `peakbench reference`, the reference tools' parsers on
//! captured outputs, and the HTML rendered by headless Chromium when it is installed.
//! Nothing here checks speed.
//!
//! Golden files: `PEAKBENCH_BLESS=1 cargo test --release --test it report::` rewrites them.

use crate::common;

use assert_cmd::Command;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn pb() -> Command {
    common::pb()
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn stdout(args: &[&str]) -> String {
    let out = pb().args(args).output().unwrap();
    common::assert_success(&out, &format!("{args:?}"));
    String::from_utf8(out.stdout).unwrap()
}

/// Compares with a golden file, or rewrites it under PEAKBENCH_BLESS.
fn golden(name: &str, got: &str) {
    let path = fixture("golden").join(name);
    if std::env::var_os("PEAKBENCH_BLESS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, got).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        want == got,
        "{name} differs from its golden file; if the change is intended, rewrite with PEAKBENCH_BLESS=1 cargo test --release --test it report::\n--- got:\n{got}"
    );
}

#[test]
fn every_exporter_matches_its_golden_file() {
    let f = fixture("report_mixed.json");
    let f = f.to_str().unwrap();
    golden("report_mixed.table.txt", &stdout(&["report", f]));
    golden(
        "report_mixed.csv",
        &stdout(&["report", f, "--format", "csv"]),
    );
    golden(
        "report_mixed.md",
        &stdout(&["report", f, "--format", "markdown"]),
    );
    // JSON is the source of truth: the same report comes back out.
    let json: Value = serde_json::from_str(&stdout(&["report", f, "--format", "json"])).unwrap();
    let original: Value = serde_json::from_slice(&std::fs::read(f).unwrap()).unwrap();
    assert_eq!(json, original);
}

#[test]
fn report_writes_html_csv_and_markdown_files() {
    let dir = tempfile::tempdir().unwrap();
    let html = dir.path().join("r.html");
    let csv = dir.path().join("r.csv");
    let md = dir.path().join("r.md");
    let out = pb()
        .arg("report")
        .arg(fixture("report_mixed.json"))
        .arg("--html")
        .arg(&html)
        .arg("--csv")
        .arg(&csv)
        .arg("--markdown")
        .arg(&md)
        .output()
        .unwrap();
    assert!(out.status.success());
    // Files asked for and no --format: nothing on stdout.
    assert!(out.stdout.is_empty());
    let h = std::fs::read_to_string(&html).unwrap();
    assert_eq!(h.matches("<svg").count(), 14);
    for bad in [
        "http://", "https://", "<script", "<img", "<link", "@import", "url(",
    ] {
        assert!(!h.contains(bad), "{bad}");
    }
    let csv = std::fs::read_to_string(&csv).unwrap();
    assert_eq!(
        csv,
        std::fs::read_to_string(fixture("golden/report_mixed.csv")).unwrap()
    );
    assert!(std::fs::read_to_string(&md)
        .unwrap()
        .starts_with("### peakbench on"));
    // No temporary files are left behind.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 3);
}

/// Exit code 2, one line on stderr containing `needle`, nothing on stdout.
fn bad(args: &[&str], needle: &str) {
    let out = pb().args(args).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
    assert!(err.contains(needle), "{args:?}: {err}");
    assert!(out.stdout.is_empty());
}

#[test]
fn bad_files_are_one_line_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let p = |name: &str, body: &str| {
        let f = dir.path().join(name);
        std::fs::write(&f, body).unwrap();
        f.to_str().unwrap().to_string()
    };
    let garbage = p(
        "garbage.json",
        "{\"schema\": \"peakbench/1\", \"results\": [",
    );
    let other = p(
        "other.json",
        "{\"schema\": \"hyperfine/2\", \"results\": []}",
    );
    let shape = p(
        "shape.json",
        "{\"schema\": \"peakbench/1\", \"results\": 7}",
    );
    let d = dir.path().to_str().unwrap();
    bad(
        &["report", &garbage],
        "garbage.json: not a peakbench results file: invalid JSON",
    );
    bad(
        &["report", &other],
        "other.json: schema 'hyperfine/2' is not supported; expected 'peakbench/2' or 'peakbench/1'",
    );
    bad(
        &["report", &shape],
        "shape.json: not a peakbench results file",
    );
    bad(
        &["report", "/nonexistent/x.json"],
        "/nonexistent/x.json: cannot read",
    );
    bad(&["report", d], "is a directory");
    let good = fixture("report_compare_a.json");
    bad(
        &["compare", good.to_str().unwrap(), &garbage],
        "garbage.json",
    );
    bad(&["compare", good.to_str().unwrap()], "2 values required");
    bad(&["report"], "FILE.json");
    bad(&["sysinfo", "--html", "x.html"], "--html: only applies to");
    bad(
        &["report", good.to_str().unwrap(), "--csv", ""],
        "--csv: empty path",
    );
    // Nothing was written next to the bad files.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 3);
}

#[test]
fn compare_finds_the_known_changes() {
    let a = fixture("report_compare_a.json");
    let b = fixture("report_compare_b.json");
    let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
    let v: Value = serde_json::from_str(&stdout(&["compare", a, b, "--format", "json"])).unwrap();
    assert_eq!(v["schema"], "peakbench-compare/1");
    assert_eq!(v["files"][0], "report_compare_a.json");
    let changes = v["changes"].as_array().unwrap();
    let find = |needle: &str| {
        changes
            .iter()
            .find(|c| {
                c["case"]["params"].as_str().unwrap().contains(needle)
                    || c["case"]["workload"].as_str().unwrap().contains(needle)
            })
            .unwrap_or_else(|| panic!("{needle}"))
    };
    // +10 % with tight samples: significant.
    let t1 = find("threads=1");
    assert_eq!(t1["significant"], true);
    assert_eq!(t1["verdict"], "better");
    let ci = t1["rel_ci95"].as_array().unwrap();
    assert!(ci[0].as_f64().unwrap() > 0.0);
    // +0.5 % inside ±5 % noise: not significant.
    let t2 = find("threads=2");
    assert_eq!(t2["significant"], false);
    assert_eq!(t2["verdict"], "no significant change");
    let ci = t2["rel_ci95"].as_array().unwrap();
    assert!(ci[0].as_f64().unwrap() < 0.0 && ci[1].as_f64().unwrap() > 0.0);
    // Latency up: worse.
    assert_eq!(find("chase")["verdict"], "worse");
    // One sample: no interval, said so.
    assert!(find("threads=4")["verdict"]
        .as_str()
        .unwrap()
        .starts_with("no interval: n < 2"));
    let unmatched = v["unmatched"].as_array().unwrap();
    assert_eq!(unmatched.len(), 2);

    let table = stdout(&["compare", a, b]);
    assert!(table.contains("+10.0 % ["), "{table}");
    assert!(table.contains("no significant change"));
    assert!(table.contains("unmatched: cpu dot_i8_avx512vnni"));
    assert!(table.contains("Welch"));
    let csv = stdout(&["compare", a, b, "--format", "csv"]);
    assert!(csv.starts_with("resource,workload,params,metric,unit,baseline,against,"));
    assert_eq!(csv.lines().count(), 5);
    let md = stdout(&["compare", a, b, "--format", "markdown"]);
    assert!(md.contains("| case | vs |"));

    let dir = tempfile::tempdir().unwrap();
    let html = dir.path().join("c.html");
    // Issue #45: with only --html asked for, stdout stays empty (as `report`'s);
    // --format brings the table back.
    let only = pb()
        .args(["compare", a, b, "--quiet", "--html"])
        .arg(&html)
        .assert()
        .success();
    assert!(
        only.get_output().stdout.is_empty(),
        "compare --html printed the table"
    );
    let both = pb()
        .args(["compare", a, b, "--quiet", "--format", "table", "--html"])
        .arg(&html)
        .assert()
        .success();
    assert!(String::from_utf8_lossy(&both.get_output().stdout).contains("Welch"));
    let h = std::fs::read_to_string(&html).unwrap();
    assert!(h.contains("no significant change") && h.contains("worse"));
    assert!(!h.contains("http"));
}

#[test]
fn html_flag_on_a_run_writes_the_report() {
    let dir = tempfile::tempdir().unwrap();
    let html = dir.path().join("run.html");
    pb().args([
        "null",
        "--threads",
        "1,2",
        "--min-time",
        "2ms",
        "--repeat",
        "2",
        "--quiet",
    ])
    .arg("--output")
    .arg(dir.path())
    .arg("--html")
    .arg(&html)
    .assert()
    .success();
    let h = std::fs::read_to_string(&html).unwrap();
    assert!(h.contains("<h2 id=\"r-null\">null</h2>"));
    // Thread scaling of the null benchmark: one chart.
    assert_eq!(h.matches("<svg").count(), 1);
}

#[test]
fn reference_lists_every_tool_with_its_package() {
    let v: Value = serde_json::from_str(&stdout(&["reference", "--format", "json"])).unwrap();
    let tools = v["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["tool"].as_str().unwrap()).collect();
    for want in [
        "likwid-bench",
        "sysbench",
        "fio",
        "iperf3",
        "sockperf",
        "mbw",
        "hpcc",
        "clpeak",
    ] {
        assert!(names.contains(&want), "{want}");
    }
    for t in tools {
        assert!(t["package"].is_string());
        if t["installed"] == true {
            assert!(t["path"].is_string());
        }
    }
    let table = stdout(&["reference"]);
    assert!(table.contains("likwid-bench"));
    if tools.iter().any(|t| t["installed"] == false) {
        assert!(table.contains("not installed (apt-get"));
    }
}

fn tool_fixture(name: &str) -> String {
    std::fs::read_to_string(fixture("tools").join(name)).unwrap()
}

#[test]
fn reference_parsers_read_captured_outputs() {
    use peakbench::reference::*;
    let v = likwid::parse_flops(&tool_fixture("likwid-bench_peakflops_avx512_fma.txt")).unwrap();
    assert_eq!(v, 23669.26e6);
    let v = likwid::parse_bytes(&tool_fixture("likwid-bench_peakflops_avx512_fma.txt")).unwrap();
    assert_eq!(v, 6311.80e6);
    assert_eq!(
        sysbench::parse_memory(&tool_fixture("sysbench_memory.txt")).unwrap(),
        5423.13 * 1048576.0
    );
    assert_eq!(
        sysbench::parse_cpu(&tool_fixture("sysbench_cpu.txt")).unwrap(),
        330.10
    );
    // fio prints a note before its JSON.
    let fio_text = tool_fixture("fio_randread.json");
    assert!(fio_text.starts_with("note:"));
    assert_eq!(fio::parse_bw(&fio_text).unwrap(), 77828091.0);
    assert_eq!(fio::parse_iops(&fio_text).unwrap(), 19000.999001);
    let lat = fio::parse_clat(&fio_text).unwrap();
    assert!(lat > 1e-6 && lat < 1e-2, "{lat}");
    let bps = iperf3::parse_json(&tool_fixture("iperf3_tcp.json")).unwrap();
    assert!((bps - 30655543032.207035 / 8.0).abs() < 1.0, "{bps}");
    let lat = sockperf::parse_pingpong(&tool_fixture("sockperf_pingpong.txt")).unwrap();
    // sockperf prints half the round trip; the figure beside peakbench's round trip is
    // the round trip (issue #45 item 7).
    assert!((lat - 2.0 * 13.140e-6).abs() < 1e-15, "{lat}");
    assert_eq!(
        mbw::parse_memcpy(&tool_fixture("mbw_memcpy.txt")).unwrap(),
        1664.564 * 1048576.0
    );
    // Garbage gives errors, never panics.
    for text in [
        "",
        "{",
        "MFlops/s: nan",
        "{\"jobs\": 3}",
        "\u{1b}[",
        "{\"end\": {}}",
    ] {
        assert!(likwid::parse_flops(text).is_err());
        assert!(sysbench::parse_memory(text).is_err());
        assert!(fio::parse_bw(text).is_err());
        assert!(iperf3::parse_json(text).is_err());
        assert!(sockperf::parse_pingpong(text).is_err());
        assert!(mbw::parse_memcpy(text).is_err());
    }
    assert_eq!(
        likwid::peakflops_test("fp64", "avx512"),
        Some("peakflops_avx512_fma")
    );
    assert_eq!(
        likwid::peakflops_test("fp32", "avx2"),
        Some("peakflops_sp_avx_fma")
    );
    assert_eq!(likwid::peakflops_test("int8", "avx512"), None);
    assert_eq!(
        fio::rw("rw-mix:70").as_deref(),
        Some("randrw --rwmixread=70")
    );
}

/// Renders the fixture report in headless Chromium: the DOM must hold every chart and
/// the screenshot must not be blank. Skips, saying why, when `chromium` is not on PATH.
#[test]
fn chromium_renders_the_charts() {
    let Some(chromium) = peakbench::reference::which("chromium")
        .or_else(|| peakbench::reference::which("chromium-browser"))
    else {
        eprintln!("skipped: chromium is not installed (apt-get install -y --no-install-recommends chromium)");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let html = dir.path().join("r.html");
    pb().arg("report")
        .arg(fixture("report_mixed.json"))
        .arg("--html")
        .arg(&html)
        .arg("--quiet")
        .assert()
        .success();
    let url = format!("file://{}", html.display());
    let profile = dir.path().join("profile");
    let base = |extra: &[String]| {
        let mut c = std::process::Command::new(&chromium);
        c.args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(extra)
        .arg(&url);
        c
    };
    // The DOM after parsing: every chart is an <svg> element with its lines.
    let dom = base(&["--dump-dom".into()]).output().unwrap();
    common::assert_success(&dom, "dom");
    let dom = String::from_utf8_lossy(&dom.stdout);
    assert_eq!(dom.matches("<svg").count(), 14, "{dom}");
    assert!(dom.matches("<polyline").count() >= 13);
    // The screenshot: decodes, has the window size, and is not blank.
    let png = dir.path().join("shot.png");
    let out = base(&[
        format!("--screenshot={}", png.display()),
        "--window-size=1280,2000".into(),
    ])
    .output()
    .unwrap();
    common::assert_success(&out, "out");
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&png).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!((info.width, info.height), (1280, 2000));
    let px = &buf[..info.buffer_size()];
    let step = info.color_type.samples() * (info.bit_depth as usize / 8).max(1);
    let mut colours = std::collections::HashSet::new();
    let mut non_white = 0usize;
    for p in px.chunks(step) {
        colours.insert(p[..3.min(p.len())].to_vec());
        if p.iter().take(3).any(|c| *c < 200) {
            non_white += 1;
        }
    }
    // Text, bars and coloured chart lines: many colours, and a real share of ink.
    assert!(colours.len() > 50, "{} colours", colours.len());
    assert!(non_white > px.len() / step / 100, "{non_white} dark pixels");
}

/// `peakbench/1` files, as the previous version wrote them (`tests/fixtures/v1/`: the
/// fixture reports before the schema change, and a real `peakbench memory --block
/// 8B,8KB,8MB` run), load, render and compare: converted on load, they give the same
/// views as their `peakbench/2` twins.
#[test]
fn peakbench1_files_load_render_and_compare() {
    let v1 = |name: &str| fixture("v1").join(name).to_str().unwrap().to_string();
    let mixed = v1("report_mixed.json");
    assert!(std::fs::read_to_string(&mixed)
        .unwrap()
        .contains("\"schema\": \"peakbench/1\""));
    // Same table, CSV and Markdown as the peakbench/2 file.
    golden("report_mixed.table.txt", &stdout(&["report", &mixed]));
    golden(
        "report_mixed.csv",
        &stdout(&["report", &mixed, "--format", "csv"]),
    );
    golden(
        "report_mixed.md",
        &stdout(&["report", &mixed, "--format", "markdown"]),
    );
    // `--format json` writes it converted: exactly the peakbench/2 fixture.
    let json: Value =
        serde_json::from_str(&stdout(&["report", &mixed, "--format", "json"])).unwrap();
    let v2: Value =
        serde_json::from_slice(&std::fs::read(fixture("report_mixed.json")).unwrap()).unwrap();
    assert_eq!(json, v2);
    // A peakbench/1 baseline compares with a peakbench/2 file as two /2 files do.
    let a1 = v1("report_compare_a.json");
    let a2 = fixture("report_compare_a.json");
    let b2 = fixture("report_compare_b.json");
    let (a2, b2) = (a2.to_str().unwrap(), b2.to_str().unwrap());
    let across = stdout(&["compare", &a1, b2, "--format", "csv"]);
    let same = stdout(&["compare", a2, b2, "--format", "csv"]);
    assert_eq!(across.lines().count(), 5);
    // Only the file names differ (v1/report_compare_a.json is named the same).
    assert_eq!(across, same);

    // The recorded run: memory sizes were text ("7.81KiB"); now numbers of bytes.
    let run = v1("memory_blocks_8B_8KB_8MB.json");
    let json: Value = serde_json::from_str(&stdout(&["report", &run, "--format", "json"])).unwrap();
    assert_eq!(json["schema"], "peakbench/2");
    let rs = json["results"].as_array().unwrap();
    let blocks: Vec<u64> = rs
        .iter()
        .filter(|r| r["params"]["kernel"] == "read")
        .map(|r| r["params"]["block"].as_u64().unwrap())
        .collect();
    // 8 B exactly; "7.81KiB" and "7.63MiB" to the nearest byte of what they say.
    assert_eq!(blocks, [8, 7997, 8000635]);
    assert!(rs.iter().all(|r| r["params"]["size"] == 16 << 20));
    assert_eq!(rs[0]["params"]["bytes"], "stream");
    // Bare-text notes got a kind: the CV warnings are high_cv, the rest info.
    let notes: Vec<&Value> = rs
        .iter()
        .flat_map(|r| r["notes"].as_array().unwrap())
        .collect();
    for n in &notes {
        let text = n["text"].as_str().unwrap();
        let want = if text.starts_with("CV ") {
            "high_cv"
        } else {
            "info"
        };
        assert_eq!(n["kind"], want, "{text}");
    }
    assert!(notes.iter().any(|n| n["kind"] == "high_cv"));
    // The table names the blocks by the bytes read back: "7.81KiB" is 7997 B, which a
    // binary unit would round, so it shows as bytes (issue #26); 7.63 MiB as before.
    let table = stdout(&["report", &run]);
    assert!(table.contains("block=7997B"), "{table}");
    assert!(table.contains("block=7.63MiB"), "{table}");
    // And the HTML has the block-size chart the peakbench/1 reader dropped.
    let dir = tempfile::tempdir().unwrap();
    let html = dir.path().join("v1.html");
    pb().args(["report", &run, "--quiet", "--html"])
        .arg(&html)
        .assert()
        .success();
    let h = std::fs::read_to_string(&html).unwrap();
    assert!(
        h.contains("memory read seq throughput by block (B/s)"),
        "{h}"
    );
    // It compares with itself: every ok case, no change.
    let c: Value =
        serde_json::from_str(&stdout(&["compare", &run, &run, "--format", "json"])).unwrap();
    assert_eq!(c["changes"].as_array().unwrap().len(), 4);
    assert!(c["unmatched"].as_array().unwrap().is_empty());
}
