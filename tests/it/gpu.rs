//! CLI tests of `peakbench gpu` through the binary. CI installs Mesa's software Vulkan
//! device (lavapipe), so the kernels really run there; on a machine without any Vulkan
//! adapter the tests that need one print why and return. Nothing checks speed: the
//! tests check that every kernel ran and was verified, what it counted, that a machine
//! without an adapter gets `skipped` results (exit 0), and that bad input is refused.

use crate::common;

use assert_cmd::Command;
use serde_json::Value;
use std::path::Path;

fn peakbench(out: &Path) -> Command {
    let mut c = common::pb();
    c.args(["--quiet", "--min-time", "20ms", "--repeat", "2", "--output"])
        .arg(out);
    c
}

fn results(out: &Path) -> Vec<Value> {
    let files: Vec<_> = std::fs::read_dir(out)
        .unwrap()
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
        .collect();
    assert_eq!(files.len(), 1, "expected one report in {}", out.display());
    let v: Value =
        serde_json::from_str(&std::fs::read_to_string(files[0].path()).unwrap()).unwrap();
    v["results"].as_array().unwrap().clone()
}

/// The adapters `gpu --list --format json` reports.
fn adapters() -> Vec<Value> {
    let out = common::pb()
        .args(["gpu", "--list", "--format", "json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    v["adapters"].as_array().cloned().unwrap_or_default()
}

/// A command that sees no Vulkan driver at all.
fn without_adapters(c: &mut Command) -> &mut Command {
    c.env("VK_ICD_FILENAMES", "/nonexistent/peakbench-icd.json")
        .env("VK_DRIVER_FILES", "/nonexistent/peakbench-icd.json")
        .env("WGPU_BACKEND", "vulkan")
}

#[test]
fn every_kernel_runs_is_checked_and_counts_its_work() {
    let list = adapters();
    if list.is_empty() {
        eprintln!("skipped: no GPU adapter (CI installs mesa-vulkan-drivers for lavapipe)");
        return;
    }
    let a = &list[0];
    assert!(a["name"].as_str().is_some_and(|n| !n.is_empty()));
    assert!(
        a["limits"]["max_storage_buffer_binding_size"]
            .as_u64()
            .unwrap()
            > 0
    );
    let dir = tempfile::tempdir().unwrap();
    peakbench(dir.path())
        .args([
            "gpu",
            "--precision",
            "all",
            "--kernel",
            "all",
            "--size",
            "12MiB",
        ])
        .assert()
        .success();
    let rs = results(dir.path());
    assert_eq!(rs.len(), 12, "6 precisions + 6 memory kernels");
    let features: Vec<&str> = a["features"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f.as_str())
        .collect();
    for r in &rs {
        assert_eq!(r["resource"], "gpu");
        assert_eq!(r["params"]["device"], 0);
        let w = r["workload"].as_str().unwrap();
        let precision = r["params"]["precision"].as_str().unwrap_or("");
        let needs = match precision {
            "fp16" => Some("f16"),
            "fp64" => Some("f64"),
            "int64" => Some("int64"),
            _ => None,
        };
        if needs.is_some_and(|f| !features.contains(&f)) {
            assert!(r["status"]["skipped"]["reason"].is_string(), "{r}");
            continue;
        }
        assert_eq!(r["status"], "ok", "{r}");
        assert_eq!(r["samples"].as_array().unwrap().len(), 2);
        assert!(r["summary"]["mean"].as_f64().unwrap() > 0.0);
        let notes = r["notes"].to_string();
        match w {
            "fma" | "muladd" | "dot4" => {
                assert_eq!(r["metric"], "ops");
                let unit = if w == "fma" { "FLOP/s" } else { "OP/s" };
                assert_eq!(r["unit"], unit);
                assert!(notes.contains("invocations x"), "{notes}");
                assert!(notes.contains("checked against the CPU"), "{notes}");
            }
            "read" | "write" | "copy" | "h2d" | "d2h" => {
                assert_eq!(r["metric"], "throughput");
                assert_eq!(r["unit"], "B/s");
                let size = r["params"]["size"].as_u64().unwrap();
                assert!(size > 0 && size <= 12 << 20, "{r}");
                let bytes = r["params"]["bytes"].as_u64().unwrap();
                let factor = if w == "copy" { 2 } else { 1 };
                assert_eq!(bytes, factor * size, "{w} counts {factor} x the buffer");
            }
            "dispatch" => {
                assert_eq!(r["metric"], "latency");
                assert_eq!(r["unit"], "s");
                let p = &r["percentiles"];
                assert!(p["p50"].as_f64().unwrap() > 0.0);
                assert!(p["p99"].as_f64().unwrap() >= p["p50"].as_f64().unwrap());
                let n: u64 = notes
                    .split(" round trips")
                    .next()
                    .and_then(|t| t.rsplit(' ').next())
                    .and_then(|t| t.parse().ok())
                    .unwrap_or_else(|| panic!("{notes}"));
                assert!(n >= 200, "two samples of at least 100 round trips: {n}");
            }
            other => panic!("unexpected workload {other}"),
        }
        if a["software"] == true {
            assert_eq!(r["params"]["software"], true);
            assert!(notes.contains("software adapter"), "{notes}");
        }
    }
}

#[test]
fn no_adapter_gives_skipped_results_and_exit_0() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = peakbench(dir.path());
    without_adapters(&mut c)
        .args(["gpu", "--precision", "fp32", "--kernel", "copy"])
        .assert()
        .success();
    let rs = results(dir.path());
    assert_eq!(rs.len(), 2);
    for r in &rs {
        let reason = r["status"]["skipped"]["reason"]
            .as_str()
            .unwrap_or_else(|| panic!("{r}"));
        assert!(reason.contains("no GPU adapter"), "{reason}");
    }
    // The adapter list says the same, and sysinfo goes on.
    let out = without_adapters(&mut common::pb())
        .args(["gpu", "--list"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("no GPU adapter"));
}

#[test]
fn bad_input_is_one_line_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    for (args, flag) in [
        (vec!["gpu", "--device", "99"], "--device"),
        (vec!["gpu", "--device", "x"], "--device"),
        (vec!["gpu", "--precision", "fp8"], "--precision"),
        (vec!["gpu", "--kernel", "triad"], "--kernel"),
        (vec!["gpu", "--size", "12"], "--size"),
    ] {
        let out = peakbench(dir.path()).args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.trim().lines().count(), 1, "{err}");
        assert!(err.contains(flag), "{args:?}: {err}");
    }
    // Nothing was run, so no results file.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

// ---- Regressions of the hardening rounds and the loose ends (#16, #26, #27, #33). ----

/// #27 item 8: `gpu --size` past any GPU's memory is refused before anything runs.
#[test]
fn gpu_sizes_past_any_memory_are_refused() {
    for size in ["9223372036854775808", "2TiB"] {
        let out = common::pb()
            .args(["gpu", "--kernel", "read", "--size", size])
            .timeout(std::time::Duration::from_secs(60))
            .output()
            .unwrap();
        common::assert_refused(&out, &size, &["--size:", "1TiB"]);
    }
}
