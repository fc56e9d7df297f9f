//! CLI tests through the binary: exit codes and one-line errors, the null benchmark
//! driving the whole pipeline, every output format, `sysinfo --format json`, and a
//! short real CPU run. Nothing here checks speed.

use crate::common;

use common::pb;
use predicates::prelude::*;
use serde_json::Value;

fn tmp() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

/// Runs and returns stdout parsed as JSON.
fn json(args: &[&str]) -> Value {
    let out = pb()
        .args(args)
        .arg("--format")
        .arg("json")
        .arg("--quiet")
        .output()
        .unwrap();
    common::success_json(&out, &format!("{args:?}"))
}

/// A usage error: exit code 2, exactly one line on stderr containing `needle`, nothing
/// on stdout and no results file.
fn usage_error(args: &[&str], needle: &str) {
    let out = common::refused(&mut pb(), args, &[needle]);
    assert!(out.stdout.is_empty());
}

#[test]
fn bad_input_is_one_line_and_exit_2() {
    usage_error(&["cpu", "--precision", "fp8"], "--precision: unknown precision 'fp8'; accepted: int8,int16,int32,int64,fp16,bf16,fp32,fp64");
    usage_error(
        &["cpu", "--isa", "mmx9"],
        "--isa: unknown instruction set 'mmx9'",
    );
    usage_error(&["cpu", "--threads", "0"], "--threads: '0' is out of range");
    usage_error(&["cpu", "--threads", "1,,2"], "--threads:");
    usage_error(&["cpu", "--threads", "99999"], "--threads:");
    usage_error(
        &["cpu", "--sustain", "ten minutes"],
        "--sustain: 'ten minutes' is not a duration",
    );
    usage_error(&["--min-time", "-1s"], "--min-time:");
    usage_error(&["--repeat", "many"], "--repeat:");
    usage_error(
        &["--format", "xml"],
        "--format: unknown format 'xml'; accepted: table,json,csv,markdown,openmetrics",
    );
    usage_error(&["--peak", "cpu.fp64"], "--peak:");
    usage_error(
        &["cpu", "--no-such-flag"],
        "unexpected argument '--no-such-flag'",
    );
    usage_error(&["frobnicate"], "unrecognized subcommand 'frobnicate'");
}

/// The peakbench feature names detection gives this CPU (`sysinfo --format json`).
fn detected_features() -> Vec<String> {
    let info = json(&["sysinfo"]);
    info["host"]["cpu"]["features"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap().to_string())
        .collect()
}

/// An ISA the CPU under the test cannot run, chosen through detection: the first of the
/// kernel table's ISAs with no kernel these features run, else one of the other
/// architecture (an Arm ISA on x86 and the other way round: certainly absent).
fn an_isa_this_cpu_lacks(features: &[String]) -> &'static str {
    let all = peakbench::bench::cpu::kernels::all();
    all.iter()
        .map(|k| k.isa_name())
        .find(|isa| {
            !all.iter()
                .any(|k| k.isa_name() == *isa && k.supported_by(features))
        })
        .unwrap_or(if cfg!(target_arch = "aarch64") {
            "avx2"
        } else {
            "neon"
        })
}

#[test]
fn missing_isa_is_a_usage_error() {
    let isa = an_isa_this_cpu_lacks(&detected_features());
    usage_error(
        &["cpu", "--isa", isa],
        &format!("--isa: this CPU lacks '{isa}'"),
    );
}

#[test]
fn help_and_version_exit_0() {
    pb().arg("--help")
        .assert()
        .success()
        .stdout(predicate::str::contains("sysinfo"));
    pb().arg("cpu")
        .arg("--help")
        .assert()
        .success()
        .stdout(predicate::str::contains("--precision"));
    pb().arg("--version")
        .assert()
        .success()
        .stdout(predicate::str::contains("peakbench"));
}

#[test]
fn null_benchmark_drives_the_pipeline() {
    let dir = tmp();
    let d = dir.path().to_str().unwrap();
    let v = json(&[
        "null",
        "--threads",
        "1,2",
        "--min-time",
        "5ms",
        "--repeat",
        "4",
        "--peak",
        "null=1",
        "--output",
        d,
    ]);
    assert_eq!(v["schema"], "peakbench/2");
    assert!(v["finished_at"].is_string());
    let results = v["results"].as_array().unwrap();
    assert_eq!(results.len(), 2);
    for (r, threads) in results.iter().zip([1, 2]) {
        assert_eq!(r["resource"], "null");
        assert_eq!(r["params"]["threads"], threads);
        assert_eq!(r["status"], "ok");
        assert_eq!(r["samples"].as_array().unwrap().len(), 4);
        let s = &r["summary"];
        assert_eq!(s["n"], 4);
        assert!(s["min"].as_f64().unwrap() <= s["mean"].as_f64().unwrap());
        assert!(s["mean"].as_f64().unwrap() <= s["max"].as_f64().unwrap());
        // A 1 OP/s peak is exceeded: flagged, never clamped.
        assert_eq!(r["over_peak"], true);
        assert!(r["efficiency"].as_f64().unwrap() > 1.0);
        assert_eq!(r["peak"]["source"], "user (--peak null=…)");
    }
    // The results file holds the same report.
    let files: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(files.len(), 1);
    let path = files[0].as_ref().unwrap().path();
    assert!(path.extension().unwrap() == "json");
    let saved: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    assert_eq!(saved["results"], v["results"]);
}

#[test]
fn every_format_renders() {
    let dir = tmp();
    let d = dir.path().to_str().unwrap();
    let base = [
        "null",
        "--min-time",
        "2ms",
        "--repeat",
        "2",
        "--quiet",
        "--output",
        d,
    ];
    pb().args(base)
        .args(["--format", "table"])
        .assert()
        .success()
        .stdout(predicate::str::contains("│ null"));
    pb().args(base)
        .args(["--format", "csv"])
        .assert()
        .success()
        .stdout(predicate::str::starts_with(
            "resource,workload,params,metric,unit,n,mean",
        ));
    pb().args(base)
        .args(["--format", "markdown"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "| null | spin | ops | threads=1 |",
        ));
}

#[test]
fn unwritable_output_fails_before_measuring() {
    let dir = tmp();
    let file = dir.path().join("not-a-dir");
    std::fs::write(&file, b"x").unwrap();
    pb().args(["null", "--min-time", "2ms", "--quiet", "--output"])
        .arg(&file)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("--output"));
}

#[test]
fn sysinfo_json_has_the_fields() {
    let v = json(&["sysinfo"]);
    let cpu = &v["host"]["cpu"];
    for f in [
        "vendor",
        "model_name",
        "family",
        "model",
        "stepping",
        "microarch",
        "sockets",
        "cores",
        "threads",
        "caches",
        "features",
    ] {
        assert!(!cpu[f].is_null(), "missing cpu.{f}");
    }
    for f in ["os", "kernel", "virtualization", "hostname", "arch"] {
        assert!(v["host"][f].is_string(), "missing host.{f}");
    }
    assert!(v["host"]["memory"]["total_bytes"].as_u64().unwrap() > 0);
    assert!(v["host"]["clock"]["method"].is_string());
    if !cpu["emulated"].is_null() {
        // Under user-mode emulation (detection says so): no clock, and the reason.
        assert!(
            v["host"]["clock"]["scalar_hz"].is_null(),
            "{}",
            v["host"]["clock"]
        );
        let method = v["host"]["clock"]["method"].as_str().unwrap();
        assert!(method.contains("emulated CPU"), "{method}");
    } else if cfg!(target_arch = "x86_64") {
        let hz = v["host"]["clock"]["scalar_hz"].as_f64().unwrap();
        assert!(hz > 3e8 && hz < 7e9);
    }
    let peaks = v["cpu_peaks"].as_array().unwrap();
    assert!(!peaks.is_empty());
    for p in peaks {
        assert!(p["all_cores"]["source"].is_string());
    }
}

#[test]
fn peak_override_says_user() {
    let v = json(&["sysinfo", "--peak", "cpu.fp64=1TFLOP/s"]);
    let fp64: Vec<&Value> = v["cpu_peaks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["precision"] == "fp64")
        .collect();
    assert!(!fp64.is_empty());
    for p in fp64 {
        assert_eq!(p["all_cores"]["value"].as_f64().unwrap(), 1e12);
        assert!(p["all_cores"]["source"]
            .as_str()
            .unwrap()
            .starts_with("user"));
    }
}

#[test]
fn short_cpu_run_reports_ops_peak_and_clock() {
    let dir = tmp();
    let d = dir.path().to_str().unwrap();
    let v = json(&[
        "cpu",
        "--precision",
        "dp,int32",
        "--threads",
        "1",
        "--min-time",
        "20ms",
        "--repeat",
        "2",
        "--output",
        d,
    ]);
    let results = v["results"].as_array().unwrap();
    assert!(results.len() >= 2);
    // Detection says whether the CPU is emulated (qemu-user): then no clock, no peak value.
    let emulated = !v["host"]["cpu"]["emulated"].is_null();
    for r in results {
        assert_eq!(r["resource"], "cpu");
        assert_eq!(r["metric"], "ops");
        let unit = r["unit"].as_str().unwrap();
        match r["params"]["precision"].as_str().unwrap() {
            "fp64" => assert_eq!(unit, "FLOP/s"),
            "int32" => assert_eq!(unit, "OP/s"),
            other => panic!("unexpected precision {other}"),
        }
        if r["status"] == "ok" {
            assert!(r["summary"]["mean"].as_f64().unwrap() > 0.0);
            assert!(r["peak"]["source"].is_string());
            assert!(r["over_peak"].is_boolean());
            if emulated {
                assert!(r["clock_hz"].is_null() && r["efficiency"].is_null(), "{r}");
            } else if r["params"]["isa"] != "generic" && cfg!(target_arch = "x86_64") {
                assert!(r["peak"]["value"].as_f64().unwrap() > 0.0);
                assert!(r["clock_hz"].as_f64().unwrap() > 3e8);
                assert!(r["efficiency"].as_f64().unwrap() > 0.0);
            }
        }
    }
}

#[test]
fn sustained_mode_makes_a_time_series() {
    let dir = tmp();
    let d = dir.path().to_str().unwrap();
    let v = json(&[
        "cpu",
        "--precision",
        "fp64",
        "--isa",
        "generic",
        "--threads",
        "1",
        "--sustain",
        "300ms",
        "--interval",
        "50ms",
        "--output",
        d,
    ]);
    let r = &v["results"][0];
    let ts = r["timeseries"].as_array().unwrap();
    // Time-boxed samples: exactly ceil(300 ms / 50 ms) points, however busy the machine.
    assert_eq!(ts.len(), 6, "{ts:?}");
    assert_eq!(ts.len(), r["samples"].as_array().unwrap().len());
    let t: Vec<f64> = ts.iter().map(|p| p[0].as_f64().unwrap()).collect();
    assert!(t.windows(2).all(|w| w[1] >= w[0]));
}

#[test]
fn a_precision_the_cpu_cannot_run_is_skipped_with_the_reason() {
    // Which precision no kernel here runs, asked of detection and the kernel table (no
    // CPU assumed: fp16 runs through F16C on most x86 CPUs, bf16 needs AVX512-BF16/AMX).
    let features = detected_features();
    let all = peakbench::bench::cpu::kernels::all();
    let absent = all.iter().map(|k| k.precision_name()).find(|p| {
        !all.iter()
            .any(|k| k.precision_name() == *p && k.supported_by(&features))
    });
    let Some(p) = absent else {
        // This CPU runs every precision: an ISA it lacks is refused with its reason
        // instead (missing_isa_is_a_usage_error), the one absence left to show.
        println!("skipped: this CPU runs every precision (features: {features:?})");
        let isa = an_isa_this_cpu_lacks(&features);
        usage_error(
            &["cpu", "--isa", isa],
            &format!("--isa: this CPU lacks '{isa}'"),
        );
        return;
    };
    println!("precision no kernel runs here: {p}");
    let dir = tmp();
    let d = dir.path().to_str().unwrap();
    let v = json(&[
        "cpu",
        "--precision",
        p,
        "--threads",
        "1",
        "--min-time",
        "5ms",
        "--output",
        d,
    ]);
    let results = v["results"].as_array().unwrap();
    assert_eq!(results.len(), 1, "{results:?}");
    let r = &results[0];
    assert_eq!(r["params"]["precision"], p);
    let reason = r["status"]["skipped"]["reason"].as_str().unwrap();
    assert!(
        reason.starts_with(&format!("no {p} kernel runs on this CPU (needs one of: ")),
        "{reason}"
    );
    // Each alternative the reason names needs a feature detection did not find.
    let needs = reason
        .split("needs one of: ")
        .nth(1)
        .and_then(|s| s.split(')').next())
        .unwrap();
    for alt in needs.split(", ") {
        assert!(
            alt.split('+').any(|f| !features.iter().any(|x| x == f)),
            "{alt} is all detected ({features:?}), yet {p} was skipped: {reason}"
        );
    }
}

/// Issue #45: `--precision dp,sp,hp,qp --isa avx512` ran dp and sp and dropped hp and
/// qp without a word. A precision no kernel of the asked --isa computes is a skipped
/// row saying which sets do. The generic kernels exist on every CPU; fp16 has none.
#[test]
fn a_precision_the_asked_isa_lacks_is_a_skipped_row() {
    let dir = tmp();
    let d = dir.path().to_str().unwrap();
    let v = json(&[
        "cpu",
        "--precision",
        "fp64,fp16",
        "--isa",
        "generic",
        "--threads",
        "1",
        "--repeat",
        "1",
        "--min-time",
        "5ms",
        "--output",
        d,
    ]);
    let results = v["results"].as_array().unwrap();
    let fp16: Vec<_> = results
        .iter()
        .filter(|r| r["params"]["precision"] == "fp16")
        .collect();
    assert_eq!(fp16.len(), 1, "{results:?}");
    let reason = fp16[0]["status"]["skipped"]["reason"].as_str().unwrap();
    assert!(
        reason.starts_with("no fp16 kernel for --isa generic: fp16 runs on "),
        "{reason}"
    );
    assert!(results
        .iter()
        .any(|r| r["params"]["precision"] == "fp64" && r["status"] == "ok"));
}

// ---- Regressions of the hardening rounds and the loose ends (#16, #26, #27, #33). ----

/// #16 item 7: `--peak` values are read with their prefix whatever its case
/// (`100gflop/s` was read as 100 FLOP/s), and an unknown unit or key, a lower-case `m`
/// (milli) or a unit that does not fit the key is refused before anything runs.
#[test]
fn peak_overrides_are_unit_checked() {
    let out = common::pb_bounded()
        .args([
            "sysinfo",
            "--format",
            "json",
            "--peak",
            "cpu.fp64=100gflop/s",
        ])
        .output()
        .unwrap();
    let v: serde_json::Value = common::success_json(&out, "sysinfo");
    let fp64: Vec<&serde_json::Value> = v["cpu_peaks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["precision"] == "fp64")
        .collect();
    assert!(!fp64.is_empty());
    for p in fp64 {
        assert_eq!(p["all_cores"]["value"].as_f64(), Some(100e9));
    }
    common::refused_bounded(
        &["null", "--peak", "cpu.fp64=100Xyz"],
        &["--peak:", "unknown unit 'Xyz'", "FLOP/s"],
    );
    common::refused_bounded(
        &["null", "--peak", "cpu.fp46=1TFLOP/s"],
        &["--peak:", "precision 'fp46'", "fp64"],
    );
    common::refused_bounded(
        &["null", "--peak", "gpu.fp128=1T"],
        &["--peak:", "unknown key 'gpu.fp128'", "gpu.PRECISION"],
    );
    common::refused_bounded(
        &["null", "--peak", "memory=100mB/s"],
        &["--peak:", "milli", "M for mega"],
    );
    common::refused_bounded(
        &["null", "--peak", "memory=1TFLOP/s"],
        &["--peak:", "bandwidth", "memory=68GB/s"],
    );
    common::refused_bounded(
        &["null", "--peak", "memory=10gb/s"],
        &["--peak:", "ambiguous", "bit/s"],
    );
}

/// #27 item 8: whatever flag refuses a value, an ESC in it reaches stderr escaped.
#[test]
fn refusals_never_echo_escapes() {
    let t = std::time::Instant::now();
    for args in [
        &["cpu", "--threads", "\x1b[2J"][..],
        &["memory", "--size", "\x1b]0;x\x07"],
        &["net", "--proto", "\x1b[31mtcp"],
        &["--format", "\x1b[2J"],
        &["report", "--width", "\x1b[2J", "x.json"],
    ] {
        let out = pb()
            .args(args)
            .timeout(std::time::Duration::from_secs(30))
            .output()
            .unwrap();
        let err = common::assert_refused(&out, &args, &[]);
        assert!(
            !err.contains('\x1b') && !err.contains('\x07'),
            "{args:?}: {err:?}"
        );
        assert!(err.contains("\\x1b"), "{args:?}: {err:?}");
    }
    assert!(t.elapsed() < std::time::Duration::from_secs(120));
}

/// #33 item 6: `$PEAKBENCH_TOKEN_FILE` and `--blas PATH` named a FIFO and waited on it
/// for ever; both are refused at once with one line, exit 2.
#[test]
fn issue_33_a_fifo_as_token_file_or_blas_is_refused_at_once() {
    let d = tempfile::tempdir().unwrap();
    let fifo = d.path().join("fifo");
    common::mkfifo(&fifo);
    let child = common::pb_std()
        .args(["null", "--quiet", "--output"])
        .arg(d.path())
        .env("PEAKBENCH_RANK", "1")
        .env("PEAKBENCH_SIZE", "2")
        .env("PEAKBENCH_COORD", "127.0.0.1:9")
        .env("PEAKBENCH_BIND", "127.0.0.1")
        .env_remove("PEAKBENCH_TOKEN")
        .env("PEAKBENCH_TOKEN_FILE", &fifo)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let o = common::finish(
        child,
        std::time::Duration::from_secs(20),
        "PEAKBENCH_TOKEN_FILE=FIFO",
    );
    common::assert_refused(
        &o,
        &"token file",
        &["$PEAKBENCH_TOKEN_FILE", "named pipe (FIFO)"],
    );

    let lib = d.path().join("libblas.so");
    common::mkfifo(&lib);
    let child = common::pb_std()
        .args(["linalg", "--quiet", "--n", "64", "--blas"])
        .arg(&lib)
        .arg("--output")
        .arg(d.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let o = common::finish(child, std::time::Duration::from_secs(60), "--blas FIFO");
    common::assert_refused(&o, &"--blas", &["--blas: ", "named pipe (FIFO)"]);
}
