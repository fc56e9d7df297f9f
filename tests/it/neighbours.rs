//! Neighbours the guest cannot see (issue #31), end to end: a real `peakbench cpu`
//! run and what its JSON says about the probe, the canary and the run's verdict.
//! Nothing here checks speed, and nothing depends on how busy the machine is: a
//! verdict may be `own` or `shared`, a canary may fall or not; what is checked is that
//! the figures are there, agree with each other, and that no row is over its peak
//! because the probe lowered a table value.

use crate::common;

use common::pb;
use serde_json::Value;

/// `peakbench cpu --precision fp64 --threads 1,2` (short samples) as JSON.
fn cpu_run(dir: &std::path::Path) -> Value {
    let out = pb()
        .args([
            "cpu",
            "--precision",
            "fp64",
            "--threads",
            "1,2",
            "--min-time",
            "20ms",
            "--repeat",
            "2",
            "--format",
            "json",
            "--quiet",
            "--output",
        ])
        .arg(dir)
        .output()
        .unwrap();
    common::success_json(&out, "cpu --threads 1,2")
}

#[test]
fn a_cpu_run_records_the_probe_readings_the_canary_and_one_verdict() {
    let dir = tempfile::tempdir().unwrap();
    let v = cpu_run(dir.path());
    // The probe's figures carry their readings and spread, or say why there are none.
    for p in v["host"]["cpu"]["probed"].as_array().unwrap() {
        let p = &p["probed"];
        let per_cycle = p["per_cycle"].as_f64().unwrap();
        if per_cycle > 0.0 {
            let readings = p["readings"].as_array().unwrap();
            assert!(readings.len() >= 3, "{p}");
            assert!(p["spread"].as_f64().unwrap() >= 0.0, "{p}");
            assert!(
                p["evidence"]
                    .as_str()
                    .unwrap()
                    .contains("highest consistent reading"),
                "{p}"
            );
        } else {
            assert!(!p["evidence"].as_str().unwrap().is_empty(), "{p}");
        }
    }
    let rows: Vec<&Value> = v["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["status"] == "ok")
        .collect();
    assert!(!rows.is_empty(), "{v}");
    let mut contended = 0;
    let mut in_guest = 0;
    for r in &rows {
        let source = r["peak"]["source"].as_str().unwrap_or("");
        let eff = r["efficiency"].as_f64().unwrap_or(0.0);
        // Never over the peak because the probe lowered the table: such a row goes
        // back to the table's rate.
        if eff > 1.02 {
            assert!(!source.contains("probe overrules table"), "{r}");
        }
        // Every sample's canary (on x86-64): per worker CPU, a figure against the best.
        if cfg!(target_arch = "x86_64") {
            for s in r["share"].as_array().unwrap() {
                for c in s["canary"].as_array().into_iter().flatten() {
                    let (x, best) = (
                        c["per_cycle"].as_f64().unwrap(),
                        c["best"].as_f64().unwrap(),
                    );
                    // The best is the highest burst another one corroborates (a
                    // lone high burst is not it), so a sample's own may lie above.
                    assert!(x > 0.0 && best > 0.0, "{c}");
                }
            }
        }
        let notes: Vec<&str> = r["notes"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|n| n["kind"] == "shared")
            .map(|n| n["text"].as_str().unwrap())
            .collect();
        let host = notes.iter().any(|n| n.starts_with("host contention:"));
        let guest = notes.iter().any(|n| !n.starts_with("host contention:"));
        // A note marks the row, and a marked row has a note.
        assert_eq!(r["disturbed"] == true, host || guest, "{r}");
        contended += usize::from(host);
        in_guest += usize::from(guest);
    }
    let q = &v["run_quality"];
    assert_eq!(q["rows"], rows.len(), "{q}");
    assert_eq!(q["host_contention"], contended, "{q}");
    assert_eq!(q["disturbed_in_guest"], in_guest, "{q}");
    let verdict = if contended + in_guest == 0 {
        "own"
    } else {
        "shared"
    };
    assert_eq!(q["verdict"], verdict, "{q}");
    assert!(
        q["text"].as_str().unwrap().starts_with("run quality: "),
        "{q}"
    );
}

#[test]
fn the_canary_can_be_turned_off_and_the_table_prints_the_verdict() {
    let dir = tempfile::tempdir().unwrap();
    let out = pb()
        .env("PEAKBENCH_CANARY", "off")
        .args([
            "cpu",
            "--precision",
            "fp64",
            "--threads",
            "1",
            "--min-time",
            "20ms",
            "--repeat",
            "2",
            "--quiet",
            "--output",
        ])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("run quality: "), "{text}");
    // The results file has no canary anywhere.
    let file = std::fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "json"))
        .unwrap();
    let v: Value = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
    for r in v["results"].as_array().unwrap() {
        for s in r["share"].as_array().into_iter().flatten() {
            assert!(s.get("canary").is_none(), "{s}");
        }
    }
    assert!(v["run_quality"]["verdict"].is_string());
}
