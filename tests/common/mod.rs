//! Helpers shared by the integration tests (each test file has `mod common;`): the
//! binary under test, the check that bad input is refused cleanly, and the check of a
//! JSON report whose every result ran. Not every file uses every helper.
#![allow(dead_code)]

use assert_cmd::Command;
use serde_json::Value;
use std::process::Output;

/// The `peakbench` binary built for these tests.
pub fn pb() -> Command {
    Command::cargo_bin("peakbench").unwrap()
}

/// Asserts a refusal of bad input: exit code 2 and exactly one line on stderr, holding
/// every needle and no panic. `what` names the case in failure messages. Returns stderr.
pub fn assert_refused(out: &Output, what: &dyn std::fmt::Debug, needles: &[&str]) -> String {
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(2), "{what:?}: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{what:?}: {err}");
    for n in needles {
        assert!(err.contains(n), "{what:?}: missing {n:?} in {err}");
    }
    assert!(!err.contains("panicked"), "{what:?}: {err}");
    err
}

/// Runs `cmd` with `args` and `--output` an empty directory, asserts the refusal
/// ([`assert_refused`]) and that no file was written; returns the output.
pub fn refused(cmd: &mut Command, args: &[&str], needles: &[&str]) -> Output {
    let dir = tempfile::tempdir().unwrap();
    let out = cmd
        .args(args)
        .arg("--output")
        .arg(dir.path())
        .output()
        .unwrap();
    assert_refused(&out, &args, needles);
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        0,
        "{args:?} wrote files"
    );
    out
}

/// The results of the JSON report in `stdout`: asserts there are `n` of them (`what`
/// says why, e.g. "3 patterns × 2 blocks × 3 metrics") and that every one ran.
pub fn ok_results(stdout: &[u8], n: usize, what: &str) -> Vec<Value> {
    let report: Value = serde_json::from_slice(stdout).unwrap();
    let results = report["results"].as_array().unwrap().clone();
    assert_eq!(results.len(), n, "{what}");
    for r in &results {
        assert_eq!(r["status"], "ok", "{r}");
    }
    results
}

/// The JSON a successful run printed: asserts the exit status is success (naming
/// `what` and stderr otherwise) and parses stdout.
pub fn success_json(out: &Output, what: &str) -> Value {
    assert!(
        out.status.success(),
        "{what}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Runs `ip ARGS…` (iproute2) for the tests that build network namespaces; the error
/// names the command and its stderr.
pub fn ip(args: &[&str]) -> Result<(), String> {
    let out = std::process::Command::new("ip")
        .args(args)
        .output()
        .map_err(|e| format!("cannot run ip: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "ip {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}
