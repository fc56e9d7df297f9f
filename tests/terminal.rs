//! What a new user sees on the terminal (issue 15): the results table fits the width
//! (`--width`, else `COLUMNS`), notes shared by several rows and the CV warnings are
//! printed once, and an interrupted run says what it kept. Nothing here checks speed.

use assert_cmd::Command;

fn pb() -> Command {
    let mut c = Command::cargo_bin("peakbench").unwrap();
    c.env_remove("COLUMNS");
    c
}

/// A quick suite recorded on the 2-vCPU AMD EPYC (Zen 3) guest: 50 results, notes,
/// skipped rows and CV warnings.
const QUICK: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/quick_zen3_a.json"
);

fn report(args: &[&str], env: Option<(&str, &str)>) -> String {
    let mut c = pb();
    c.args(["report", QUICK]).args(args);
    if let Some((k, v)) = env {
        c.env(k, v);
    }
    let out = c.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn widest(s: &str) -> usize {
    s.lines().map(|l| l.chars().count()).max().unwrap_or(0)
}

#[test]
fn the_quick_suite_table_fits_80_120_and_200_columns() {
    for w in [80, 120, 200] {
        let s = report(&["--width", &w.to_string()], None);
        assert!(
            widest(&s) <= w,
            "{w}: a line of {} columns:\n{s}",
            widest(&s)
        );
        // Every result has its row and its mean, whole on one line.
        assert!(s.contains("\n 50 │"), "{w}:\n{s}");
        for mean in ["49.48 GOP/s", "61.15 kIO/s", "57.26 µs", "631.4 MB/s"] {
            assert!(s.contains(mean), "{w}: {mean} missing:\n{s}");
        }
        assert!(s.contains("efficiency"), "{w}");
    }
    // COLUMNS (what shells and tmux set) works like --width; --width wins.
    let s = report(&[], Some(("COLUMNS", "100")));
    assert!(widest(&s) <= 100 && widest(&s) > 90, "{}", widest(&s));
    let s = report(&["--width", "80"], Some(("COLUMNS", "200")));
    assert!(widest(&s) <= 80);
}

#[test]
fn notes_and_warnings_are_printed_once() {
    let s = report(&["--width", "120"], None);
    // The engine note is on all 8 disk configurations: one line (wrapped), not 8.
    assert_eq!(s.matches("registered buffers").count(), 1, "{s}");
    // 24 CV warnings: one line naming their rows.
    assert_eq!(s.matches("CV above 5 %").count(), 1, "{s}");
    assert_eq!(s.matches("consider --repeat").count(), 1, "{s}");
    // What all disk rows share is said once.
    assert_eq!(s.matches("file_size=256MiB").count(), 1, "{s}");
    // Each skip reason once, under the table.
    assert_eq!(
        s.matches("no fp16 kernel runs on this CPU").count(),
        1,
        "{s}"
    );
    let notes = s.lines().filter(|l| l.starts_with("note ")).count();
    assert!(notes < 45, "{notes} note lines:\n{s}");
}

#[test]
fn bad_width_is_refused() {
    let out = pb()
        .args(["report", QUICK, "--width", "ten"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--width: 'ten' is not a width"), "{err}");
}
