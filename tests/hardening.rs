//! Regression tests for the attacks of issue #16: each reproduces one attack through the
//! binary (or on loopback) and asserts the clean outcome: exit code, one clear line, no
//! crash, no hang, and a server that keeps serving legitimate clients.

use assert_cmd::Command;
use std::time::Duration;

fn pb() -> Command {
    let mut c = Command::cargo_bin("peakbench").unwrap();
    // Nothing here may hang: a hang is a failure, not a stuck CI.
    c.timeout(Duration::from_secs(60));
    c
}

/// Exit code 2, one line on stderr containing every needle, no output files.
fn refused(args: &[&str], needles: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    let out = pb()
        .args(args)
        .arg("--output")
        .arg(dir.path())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
    for n in needles {
        assert!(err.contains(n), "{args:?}: missing {n:?} in {err}");
    }
    assert!(!err.contains("panicked"), "{args:?}: {err}");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

/// Item 1: sizes whose products wrap around 2^64 (a segfault, a worker panic and a hang
/// before the fix) are refused up front, naming --size and the limit.
#[test]
fn memory_sizes_that_overflow_are_refused() {
    let max = "18446744073709551615B";
    refused(
        &[
            "memory",
            "--size",
            max,
            "--kernel",
            "read",
            "--threads",
            "1",
        ],
        &["--size:", "limit of 256 TiB"],
    );
    refused(
        &[
            "memory",
            "--size",
            max,
            "--kernel",
            "chase",
            "--threads",
            "1",
        ],
        &["--size:", "limit of 256 TiB"],
    );
    refused(
        &[
            "memory",
            "--weak",
            "--threads",
            "2",
            "--size",
            "9223372036854775808B",
        ],
        &["--size:", "limit of 256 TiB"],
    );
    // Below the per-value limit, but the weak product is above it.
    refused(
        &["memory", "--weak", "--threads", "2", "--size", "200TiB"],
        &["--size:", "limit of 256 TiB"],
    );
    // The chase's u32 node indices: refused, never a worker panic.
    refused(
        &[
            "memory",
            "--size",
            "200TiB",
            "--kernel",
            "chase",
            "--threads",
            "1",
        ],
        &["--size:", "chase kernel links at most"],
    );
    refused(
        &[
            "memory",
            "--block",
            "100TiB",
            "--threads",
            "4",
            "--kernel",
            "copy",
        ],
        &["--block:", "limit of 256 TiB"],
    );
}

/// Item 11: a negative size reaches the flag's own parser (not clap's "unexpected
/// argument"), and a virtual filesystem is blamed on --dir, not on --file-size.
#[test]
fn disk_flags_are_blamed_correctly() {
    refused(
        &["disk", "--file-size", "-1GiB"],
        &["--file-size:", "-1GiB"],
    );
    refused(
        &["disk", "--file-size", "18446744073709551615B"],
        &["--file-size:", "limit of 256 TiB"],
    );
    if std::path::Path::new("/proc/self").exists() {
        refused(&["disk", "--dir", "/proc"], &["--dir:", "no storage"]);
    }
}
