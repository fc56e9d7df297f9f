//! `peakbench cpu --c2c` through the binary (issue #47 item 3): every ordered pair of the
//! CPUs this process may use gets one row with its relation and a plausible round trip,
//! the summary names the relations, the JSON has the documented shape, and the flags the
//! ping-pong does not take are refused. Nothing here checks speed: the bound below
//! (100 µs for the best sample) only catches a ping-pong that measured something else
//! (a scheduler time slice, a unit error).

use crate::common;

use serde_json::Value;

/// The CPUs this test process may use, as peakbench's own detection lists them.
fn allowed() -> Vec<u64> {
    let out = common::pb()
        .args(["sysinfo", "--format", "json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let n = v["host"]["cpu"]["threads"].as_u64().unwrap_or(1);
    (0..n).collect()
}

#[test]
fn every_ordered_pair_has_a_row_with_a_plausible_round_trip() {
    let cpus = allowed();
    if cpus.len() < 2 {
        println!("skipped: one CPU here, no pair to bounce a line between");
        return;
    }
    // The first two CPUs: one pair, both directions, on any machine.
    let dir = tempfile::tempdir().unwrap();
    let out = common::pb_bounded()
        .args(["--quiet", "--format", "json", "--cpus", "0-1", "--output"])
        .arg(dir.path())
        .args(["cpu", "--c2c"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let rep: Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows: Vec<&Value> = rep["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["workload"] == "c2c")
        .collect();
    assert_eq!(rows.len(), 2, "{rows:?}");
    let pairs: Vec<(u64, u64)> = rows
        .iter()
        .map(|r| {
            (
                r["params"]["from"].as_u64().unwrap(),
                r["params"]["to"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(pairs, [(0, 1), (1, 0)]);
    for r in &rows {
        assert_eq!(r["status"], "ok", "{r}");
        assert_eq!(
            (r["resource"].as_str(), r["metric"].as_str()),
            (Some("cpu"), Some("latency"))
        );
        assert_eq!(r["unit"], "s");
        let rel = r["params"]["relation"].as_str().unwrap();
        assert!(
            [
                "smt-sibling",
                "same-l3",
                "same-socket",
                "other-socket",
                "unknown"
            ]
            .contains(&rel),
            "{rel}"
        );
        let min = r["summary"]["min"].as_f64().unwrap();
        let p50 = r["percentiles"]["p50"].as_f64().unwrap();
        assert!(min > 0.0 && min < 100e-6, "best round trip {min} s");
        assert!(p50 >= min, "{p50} < {min}");
        // 50 samples, fewer where the pair's time budget ran out on a busy machine.
        let n = r["samples"].as_array().unwrap().len();
        assert!((1..=50).contains(&n), "{n} samples");
    }
    // The summary, once, on the last row.
    let notes = rows[1]["notes"].to_string();
    assert!(
        notes.contains("core-to-core round trip by relation"),
        "{notes}"
    );
    assert!(!rows[0]["notes"].to_string().contains("by relation"));
}

#[test]
fn kernel_flags_are_refused_with_c2c() {
    let out = common::pb()
        .args(["cpu", "--c2c", "--precision", "fp64"])
        .output()
        .unwrap();
    common::assert_refused(
        &out,
        &"cpu --c2c --precision fp64",
        &["--precision: does not apply with --c2c"],
    );
}
