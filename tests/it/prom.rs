//! Prometheus (issue #36 item 4): `--format openmetrics` and `--prom-file` on a real
//! run (the hidden `null` command drives the whole pipeline fast), checked by
//! `promtool check metrics` (Debian package `prometheus`) and served by a real
//! `prometheus-node-exporter` from its textfile directory on a loopback port. A test
//! whose program is missing says so and skips, as `.ci/run` installs both.

use crate::common::{self, assert_refused, pb, refused};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A null run of two cases with a peak (so every family appears), writing its JSON
/// under `dir`; `extra` are more flags. Returns stdout.
fn null_run(dir: &Path, extra: &[&std::ffi::OsStr]) -> String {
    let out = pb()
        .args([
            "null",
            "--threads",
            "1,2",
            "--min-time",
            "2ms",
            "--repeat",
            "2",
            "--quiet",
            "--peak",
            "null=1e12OP/s",
            "--format",
            "openmetrics",
        ])
        .arg("--output")
        .arg(dir.join("results"))
        .args(extra)
        .output()
        .unwrap();
    common::success_text(&out, "null --format openmetrics")
}

/// The program `name` on PATH, or `None` after saying the test skips.
fn program(name: &str, package: &str, test: &str) -> Option<PathBuf> {
    let found = std::env::var_os("PATH").and_then(|p| {
        std::env::split_paths(&p)
            .map(|d| d.join(name))
            .find(|f| f.is_file())
    });
    if found.is_none() {
        eprintln!("skipping {test}: {name} not installed (apt-get install {package})");
    }
    found
}

/// The families of an exposition: every sample line's metric name.
fn sample_names(text: &str) -> Vec<&str> {
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(|l| l.split(['{', ' ']).next().unwrap())
        .collect()
}

#[test]
fn a_run_in_openmetrics_on_stdout_and_in_the_prom_file() {
    let dir = tempfile::tempdir().unwrap();
    let prom = dir.path().join("peakbench.prom");
    let stdout = null_run(dir.path(), &["--prom-file".as_ref(), prom.as_os_str()]);
    let file = std::fs::read_to_string(&prom).unwrap();
    assert_eq!(stdout, file);
    assert!(file.ends_with("# EOF\n"), "{file}");
    let names = sample_names(&file);
    for family in [
        "peakbench_run_info",
        "peakbench_last_success_timestamp_seconds",
        "peakbench_operations_per_second",
        "peakbench_peak_operations_per_second",
        "peakbench_efficiency_ratio",
        "peakbench_case_failed",
    ] {
        assert!(names.contains(&family), "{family} missing: {file}");
    }
    assert!(file.contains(
        "peakbench_operations_per_second{command=\"null\",resource=\"null\",workload=\"spin\",metric=\"ops\",threads=\"2\"} "
    ));
    assert!(file.contains(
        "peakbench_peak_operations_per_second{command=\"null\",resource=\"null\",workload=\"spin\",metric=\"ops\",threads=\"1\"} 1000000000000\n"
    ));
    assert!(file.contains("command=\"null\"} 1\n"), "{file}");
    // The atomic write leaves the file alone beside the results folder.
    let mut left: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(left, ["peakbench.prom", "results"]);
    // The report records where the metrics went.
    let json = std::fs::read_dir(dir.path().join("results"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "json"))
        .unwrap();
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(json).unwrap()).unwrap();
    assert_eq!(report["config"]["format"], "openmetrics");
    assert_eq!(report["config"]["prom_file"], prom.to_str().unwrap());
}

#[test]
fn promtool_checks_the_metrics() {
    let Some(promtool) = program("promtool", "prometheus", "promtool_checks_the_metrics") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let text = null_run(dir.path(), &[]);
    // A results file as well, through `report`: the bigger, mixed one of the fixtures.
    let mixed = pb()
        .args([
            "report",
            "tests/fixtures/quick_zen3_a.json",
            "--format",
            "openmetrics",
        ])
        .output()
        .unwrap();
    let mixed = common::success_text(&mixed, "report --format openmetrics");
    for (what, text) in [("null run", text), ("quick_zen3_a.json", mixed)] {
        let mut child = Command::new(&promtool)
            .args(["check", "metrics"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(text.as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success() && out.stdout.is_empty() && out.stderr.is_empty(),
            "promtool on the {what}: {}{}\n{text}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// The exporter, killed when dropped (a failing assertion never leaves it running).
struct Exporter(Child);

impl Drop for Exporter {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `GET /metrics` on `port` over plain HTTP/1.0; `None` while nothing listens.
fn scrape(port: u16) -> Option<String> {
    let mut s =
        TcpStream::connect_timeout(&([127, 0, 0, 1], port).into(), Duration::from_secs(2)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(10))).ok()?;
    s.set_write_timeout(Some(Duration::from_secs(10))).ok()?;
    s.write_all(b"GET /metrics HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
        .ok()?;
    let mut body = String::new();
    s.read_to_string(&mut body).ok()?;
    Some(body)
}

/// Starts node_exporter on a free loopback port with only the textfile collector on
/// `textfiles`, scrapes it once, and returns the HTTP answer and what the exporter
/// logged (where it reports series collected twice).
fn serve(exporter: &Path, textfiles: &Path) -> (String, String) {
    let log_dir = tempfile::tempdir().unwrap();
    // A free loopback port (another process may take it before the exporter: then the
    // exporter exits and the next port is tried).
    let mut served = None;
    for _ in 0..3 {
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let mut ex = Exporter(
            Command::new(exporter)
                .arg("--collector.disable-defaults")
                .arg("--collector.textfile")
                .arg(format!(
                    "--collector.textfile.directory={}",
                    textfiles.display()
                ))
                .arg(format!("--web.listen-address=127.0.0.1:{port}"))
                .arg("--web.disable-exporter-metrics")
                .stdout(Stdio::null())
                .stderr(std::fs::File::create(log_dir.path().join("log")).unwrap())
                .spawn()
                .unwrap(),
        );
        let deadline = Instant::now() + Duration::from_secs(30);
        while Instant::now() < deadline {
            if let Some(body) = scrape(port) {
                served = Some(body);
                break;
            }
            if ex.0.try_wait().unwrap().is_some() {
                break;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        drop(ex);
        if served.is_some() {
            break;
        }
    }
    let log = std::fs::read_to_string(log_dir.path().join("log")).unwrap_or_default();
    (
        served.expect("the exporter never answered on its loopback port"),
        log,
    )
}

#[test]
fn node_exporter_serves_the_prom_file() {
    let Some(exporter) = program(
        "prometheus-node-exporter",
        "prometheus-node-exporter",
        "node_exporter_serves_the_prom_file",
    ) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let textfiles = dir.path().join("textfile_collector");
    std::fs::create_dir(&textfiles).unwrap();
    let prom = textfiles.join("peakbench.prom");
    null_run(dir.path(), &["--prom-file".as_ref(), prom.as_os_str()]);
    let (body, _) = serve(&exporter, &textfiles);
    let (head, metrics) = body.split_once("\r\n\r\n").unwrap();
    assert!(
        head.starts_with("HTTP/1.") && head.contains(" 200 "),
        "{head}"
    );
    // The textfile collector read the file without error, and serves its families.
    assert!(
        metrics.contains("\nnode_textfile_scrape_error 0\n"),
        "{metrics}"
    );
    let names = sample_names(metrics);
    for family in [
        "peakbench_run_info",
        "peakbench_last_success_timestamp_seconds",
        "peakbench_operations_per_second",
        "peakbench_efficiency_ratio",
    ] {
        assert!(names.contains(&family), "{family} not served: {metrics}");
    }
    // node_exporter sorts the labels of each series.
    assert!(
        metrics.lines().any(|l| l.starts_with(
            "peakbench_operations_per_second{command=\"null\",metric=\"ops\",resource=\"null\",threads=\"2\",workload=\"spin\"} "
        )),
        "{metrics}"
    );
}

/// Issue #44 item 1: four commands' files in one textfile directory (cpu, memory,
/// disk, net nightly, here the same fixture run under each command) and a null run:
/// node_exporter serves every command's series, logs no series collected twice, and
/// each command keeps its own last success.
#[test]
fn node_exporter_serves_several_commands_files_without_collisions() {
    let Some(exporter) = program(
        "prometheus-node-exporter",
        "prometheus-node-exporter",
        "node_exporter_serves_several_commands_files_without_collisions",
    ) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let textfiles = dir.path().join("textfile_collector");
    std::fs::create_dir(&textfiles).unwrap();
    let commands = ["cpu", "memory", "disk", "net"];
    for c in commands {
        let mut v = common::fixture_json("report_compare_a.json");
        v["config"]["command"] = serde_json::json!({ "command": c });
        let json = common::write_json(dir.path(), &format!("{c}.json"), &v);
        let o = pb()
            .arg("report")
            .arg(&json)
            .args(["--format", "openmetrics"])
            .output()
            .unwrap();
        let text = common::success_text(&o, "report --format openmetrics");
        std::fs::write(textfiles.join(format!("peakbench-{c}.prom")), text).unwrap();
    }
    let prom = textfiles.join("peakbench-null.prom");
    null_run(dir.path(), &["--prom-file".as_ref(), prom.as_os_str()]);
    let (body, log) = serve(&exporter, &textfiles);
    let (head, metrics) = body.split_once("\r\n\r\n").unwrap();
    assert!(head.contains(" 200 "), "{head}");
    assert!(
        metrics.contains("\nnode_textfile_scrape_error 0\n"),
        "{metrics}"
    );
    assert!(
        !log.contains("collected before") && !log.to_lowercase().contains("level=error"),
        "node_exporter logged: {log}"
    );
    for c in commands.iter().chain(&["null"]) {
        let success = format!("peakbench_last_success_timestamp_seconds{{command=\"{c}\"}} ");
        assert!(
            metrics.contains(&success),
            "{success} not served: {metrics}"
        );
        // A case series of each fixture command (node_exporter sorts the labels).
        if *c != "null" {
            let case = format!(
                "peakbench_floating_point_operations_per_second{{command=\"{c}\",isa=\"avx512\",metric=\"ops\",precision=\"fp64\",resource=\"cpu\",threads=\"1\",workload=\"fma_f64_avx512\"}} 1e+11"
            );
            assert!(metrics.contains(&case), "{case} not served: {metrics}");
        }
    }
}

#[test]
fn bad_prom_files_are_refused_before_measuring() {
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("a-file");
    std::fs::write(&plain, "x").unwrap();
    let missing = dir.path().join("no/such/dir/pb.prom");
    let under_file = plain.join("pb.prom");
    let cases: [(&str, &[&str]); 5] = [
        ("pb.txt", &["does not end in .prom", "*.prom"]),
        ("", &["--prom-file: empty path"]),
        (".prom", &["does not end in .prom"]),
        (
            missing.to_str().unwrap(),
            &["--prom-file: cannot write", "existing, writable directory"],
        ),
        (under_file.to_str().unwrap(), &["--prom-file: cannot write"]),
    ];
    for (path, needles) in cases {
        refused(
            &mut pb(),
            &["null", "--min-time", "2ms", "--prom-file", path],
            needles,
        );
    }
    // Nothing was created beside them.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    // Commands that measure nothing have no run to export.
    let out = pb()
        .args(["sysinfo", "--prom-file"])
        .arg(dir.path().join("x.prom"))
        .output()
        .unwrap();
    assert_refused(
        &out,
        &"sysinfo --prom-file",
        &["--prom-file: applies only to a measuring run"],
    );
    let out = pb()
        .args(["report", "tests/fixtures/report_mixed.json", "--prom-file"])
        .arg(dir.path().join("x.prom"))
        .output()
        .unwrap();
    assert_refused(
        &out,
        &"report --prom-file",
        &["report FILE.json --format openmetrics"],
    );
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[test]
fn documents_without_figures_refuse_openmetrics() {
    for args in [
        &[
            "compare",
            "tests/fixtures/report_compare_a.json",
            "tests/fixtures/report_compare_b.json",
        ][..],
        &[
            "fleet",
            "tests/fixtures/quick_zen3_a.json",
            "tests/fixtures/quick_zen3_b.json",
        ],
        &["sysinfo"],
        &["reference"],
    ] {
        let out = pb()
            .args(args)
            .args(["--format", "openmetrics"])
            .output()
            .unwrap();
        assert_refused(
            &out,
            &args,
            &["--format: openmetrics renders the figures of a run"],
        );
    }
    // A results file is a run's figures: `report` renders it.
    let out = pb()
        .args([
            "report",
            "tests/fixtures/report_mixed.json",
            "--format",
            "prometheus",
        ])
        .output()
        .unwrap();
    let text = common::success_text(&out, "report --format prometheus");
    assert!(
        text.starts_with("# TYPE peakbench_run_info gauge\n"),
        "{text}"
    );
    assert!(text.ends_with("# EOF\n"));
}
