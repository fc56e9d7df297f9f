//! Regression tests for issue #26 ("loose ends a user hits"): each reproduces one thing
//! a new user or an attacker met through the binary and asserts the fixed behaviour
//! with its exact message.

use crate::common;

use assert_cmd::Command;
use std::time::Duration;

fn pb() -> Command {
    let mut c = common::pb();
    // Nothing here may hang: a hang is a failure, not a stuck CI.
    c.timeout(Duration::from_secs(60));
    c
}

/// Item 1: `report FIFO` blocked forever on the open; anything that is not a regular
/// file is refused at once, in one line, exit 2, and no writer is ever needed.
#[test]
fn report_refuses_a_named_pipe_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("results.json");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let f = fifo.to_str().unwrap();
    for args in [vec!["report", f], vec!["compare", f, f], vec!["fleet", f]] {
        let out = pb().args(&args).output().unwrap();
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

fn widest(s: &str) -> usize {
    s.lines().map(|l| l.chars().count()).max().unwrap_or(0)
}

/// Item 3: `sysinfo` printed a table 476 columns wide at a 120-column terminal. Every
/// subcommand that prints a table fits 120 columns, whether the width comes from
/// `--width` or from `COLUMNS`.
#[test]
fn every_table_printing_subcommand_fits_120_columns() {
    let b = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/quick_zen3_b.json"
    );
    let cases: [&[&str]; 5] = [
        &["sysinfo"],
        &["reference"],
        &["gpu", "--list"],
        &["report", QUICK],
        &["compare", QUICK, b],
    ];
    for args in cases {
        for how in ["--width", "COLUMNS"] {
            let mut c = pb();
            c.env_remove("COLUMNS").args(args);
            if how == "--width" {
                c.args(["--width", "120"]);
            } else {
                c.env("COLUMNS", "120");
            }
            let out = c.output().unwrap();
            assert!(
                out.status.success(),
                "{args:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            let s = String::from_utf8(out.stdout).unwrap();
            assert!(
                widest(&s) <= 120,
                "{args:?} ({how}): a line of {} columns:\n{s}",
                widest(&s)
            );
        }
    }
}

/// Item 5: `--block 8KB` showed as `block=7.81KiB` in the table and the CSV while the
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
    let out = pb()
        .args(["report", "--width", "200"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let table = String::from_utf8(out.stdout).unwrap();
    let csv = dir.path().join("r.csv");
    let out = pb()
        .arg("report")
        .arg(&file)
        .arg("--csv")
        .arg(&csv)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let csv = std::fs::read_to_string(&csv).unwrap();
    for (what, text) in [("table", &table), ("csv", &csv)] {
        assert!(text.contains("block=8KB"), "{what}:\n{text}");
        assert!(text.contains("file_size=256MB"), "{what}:\n{text}");
        assert!(!text.contains("7.81KiB"), "{what}:\n{text}");
    }
    // The CSV's raw column keeps the bytes, as the JSON does.
    assert!(csv.contains(",8000,"), "{csv}");
}

/// Item 11: the HTML "peak source" was 6–9 lines per row and repeated the same
/// "unknown: SMBIOS unreadable …" for every memory row: one short source per row, the
/// whole derivation one click away, each reason once.
#[test]
fn html_peak_sources_are_short_and_reasons_said_once() {
    let dir = tempfile::tempdir().unwrap();
    let html = dir.path().join("r.html");
    let out = pb()
        .args(["report", QUICK, "--html"])
        .arg(&html)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
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

/// Item 2: a disk run killed with SIGKILL left `peakbench-disk-PID-…` in `--dir`, and
/// the next run neither reclaimed nor mentioned it. The next run now removes it (its
/// process is gone, nobody holds its lock, it holds only a run's files) and says so.
#[test]
fn a_killed_disk_runs_directory_is_reclaimed_by_the_next_run() {
    let dir = common::scratch_dir();
    let out = tempfile::tempdir().unwrap();
    let disk = |runtime: &str| {
        let mut c = common::pb_std();
        c.args(["disk", "--quiet", "--dir"])
            .arg(dir.path())
            .arg("--output")
            .arg(out.path())
            .args([
                "--file-size",
                "4MiB",
                "--pattern",
                "seq-write",
                "--block",
                "1MiB",
                "--depth",
                "1",
                "--runtime",
                runtime,
                "--ramp",
                "0",
                "--repeat",
                "1",
            ]);
        c
    };
    let mut child = disk("30s")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let t = std::time::Instant::now();
    let run_dir = loop {
        let found = std::fs::read_dir(dir.path())
            .unwrap()
            .flatten()
            .find(|e| e.path().join("job0.dat").exists());
        if let Some(e) = found {
            break e.path();
        }
        assert!(
            t.elapsed() < Duration::from_secs(30),
            "no job file appeared"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    // SAFETY: signalling our own child process.
    unsafe { libc::kill(child.id() as i32, libc::SIGKILL) };
    child.wait().unwrap();
    assert!(
        run_dir.join("job0.dat").exists(),
        "SIGKILL leaves the files"
    );
    let next = disk("200ms").output().unwrap();
    let err = String::from_utf8_lossy(&next.stderr);
    assert!(next.status.success(), "{err}");
    let line = format!("peakbench: removed {} (", run_dir.display());
    assert!(err.contains(&line), "{err}");
    assert!(
        err.contains(&format!(
            "), left by a killed run (PID {} is gone)",
            child.id()
        )),
        "{err}"
    );
    assert!(!run_dir.exists());
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}
