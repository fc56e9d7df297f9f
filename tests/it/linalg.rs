//! `peakbench linalg` through the binary: a short real GEMM and LU run whose checks
//! pass and whose FLOP counts are the reference tools', the skipped precisions, and the
//! refusals (exit code 2, one line naming the flag, nothing written). Nothing here
//! checks speed.

use crate::common;

use common::pb;
use serde_json::Value;

/// A usage error: exit code 2, one line on stderr containing every needle, nothing on
/// stdout and no results file.
fn usage_error(args: &[&str], needles: &[&str]) {
    let out = common::refused(pb().arg("linalg"), args, needles);
    assert!(out.stdout.is_empty());
}

#[test]
fn an_order_too_large_for_memory_is_refused_naming_n_and_the_memory() {
    // 3 × 200000² × 8 B ≈ 894 GiB for the GEMM: beyond any test machine.
    usage_error(
        &["--n", "200000", "--routine", "gemm"],
        &[
            "--n: n=200000 needs",
            "GiB for gemm fp64",
            "use a smaller --n",
        ],
    );
    usage_error(&["--n", "0"], &["--n: '0' is not a matrix order"]);
    usage_error(&["--routine", "qr"], &["--routine: unknown routine 'qr'"]);
    usage_error(
        &["--precision", "bf16", "--routine", "lu"],
        &["--precision: bf16 is GEMM only"],
    );
}

#[test]
fn a_short_run_checks_every_result_and_counts_like_hpl() {
    let dir = tempfile::tempdir().unwrap();
    let out = pb()
        .args([
            "linalg",
            "--n",
            "96,200",
            "--threads",
            "1,2",
            "--precision",
            "fp64,fp32,bf16",
            "--repeat",
            "2",
            "--min-time",
            "1ms",
            "--format",
            "json",
            "--quiet",
            "--output",
        ])
        .arg(dir.path())
        .output()
        .unwrap();
    let v: Value = common::success_json(&out, "linalg");
    let results = v["results"].as_array().unwrap();
    // fp64 and fp32: 2 routines × 2 orders × 2 thread counts; bf16: GEMM only.
    assert_eq!(results.len(), 2 * 8 + 4, "{results:#?}");
    for r in results {
        assert_eq!(r["resource"], "linalg");
        assert_eq!(r["unit"], "FLOP/s");
        if r["params"]["precision"] == "bf16" {
            assert!(r["status"]["skipped"]["reason"].as_str().is_some(), "{r}");
            continue;
        }
        assert_eq!(r["status"], "ok", "{r}");
        let notes = r["notes"].to_string();
        assert!(notes.contains("< 16"), "the check is reported: {notes}");
        let mean = r["summary"]["mean"].as_f64().unwrap();
        assert!(mean > 0.0 && mean.is_finite());
        assert_eq!(r["samples"].as_array().unwrap().len(), 2);
    }
}

#[test]
fn weak_gemm_gives_every_thread_its_own_product_and_lu_is_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let out = pb()
        .args([
            "linalg",
            "--weak",
            "--routine",
            "gemm,lu",
            "--n",
            "64",
            "--threads",
            "2",
            "--repeat",
            "2",
            "--min-time",
            "1ms",
            "--format",
            "json",
            "--quiet",
            "--output",
        ])
        .arg(dir.path())
        .output()
        .unwrap();
    let v: Value = common::success_json(&out, "linalg --weak");
    let results = v["results"].as_array().unwrap();
    let gemm = results.iter().find(|r| r["workload"] == "gemm").unwrap();
    assert_eq!(gemm["status"], "ok", "{gemm}");
    assert_eq!(gemm["params"]["scaling"], "weak");
    let notes = gemm["notes"].to_string();
    assert!(
        notes.contains("each of the 2 threads multiplies its own"),
        "{notes}"
    );
    let lu = results.iter().find(|r| r["workload"] == "lu").unwrap();
    assert!(lu["status"]["skipped"]["reason"].as_str().is_some(), "{lu}");
    assert!(lu.to_string().contains("strong scaling only"), "{lu}");
    // LU alone under --weak does nothing: refused.
    usage_error(&["--weak", "--routine", "lu"], &["--weak: HPL's LU"]);
}

/// `linalg --blas LIST` as JSON results (short GEMM/LU runs).
fn blas_run(blas: &str, routine: &str, precision: &str) -> Vec<Value> {
    let dir = tempfile::tempdir().unwrap();
    let out = pb()
        .args([
            "linalg",
            "--blas",
            blas,
            "--routine",
            routine,
            "--precision",
            precision,
            "--n",
            "96",
            "--threads",
            "1,2",
            "--repeat",
            "2",
            "--min-time",
            "1ms",
            "--format",
            "json",
            "--quiet",
            "--output",
        ])
        .arg(dir.path())
        .output()
        .unwrap();
    let v: Value = common::success_json(&out, "linalg --blas");
    v["results"].as_array().unwrap().clone()
}

#[test]
fn every_installed_library_runs_checked_rows_that_name_it() {
    let results = blas_run("openblas,blis", "gemm,lu", "fp64,fp32");
    // 2 routines × 2 precisions × 2 libraries × 2 thread counts.
    assert_eq!(results.len(), 16, "{results:#?}");
    for r in &results {
        let blas = r["params"]["blas"].as_str().unwrap();
        let text = r.to_string();
        if let Some(why) = r["status"]["skipped"]["reason"].as_str() {
            if why.contains("not found") {
                eprintln!("skipped: {why}");
            } else {
                // BLIS has no LAPACK: its LU is skipped, saying so.
                assert_eq!((blas, r["workload"].as_str()), ("blis", Some("lu")), "{r}");
                assert!(why.starts_with("no LAPACK in /"), "{why}");
            }
            continue;
        }
        assert_eq!(r["status"], "ok", "{r}");
        assert!(text.contains("< 16"), "the check is reported: {text}");
        assert!(text.contains("library: "), "the library is named: {text}");
        let lib = if blas == "openblas" {
            "OpenBLAS"
        } else {
            "BLIS"
        };
        assert!(text.contains(lib), "{text}");
        assert!(text.contains("threads: "), "{text}");
    }
}

#[test]
fn a_missing_library_is_a_skipped_row_and_faer_still_runs() {
    let results = blas_run("faer,/nonexistent/libopenblas.so.0", "gemm", "fp64");
    assert_eq!(results.len(), 4, "{results:#?}");
    let faer: Vec<&Value> = results
        .iter()
        .filter(|r| r["params"]["blas"].is_null())
        .collect();
    assert_eq!(faer.len(), 2);
    assert!(faer.iter().all(|r| r["status"] == "ok"), "{faer:?}");
    assert!(faer[0].to_string().contains("library: faer"));
    for r in results.iter().filter(|r| !r["params"]["blas"].is_null()) {
        assert_eq!(r["params"]["blas"], "libopenblas.so.0");
        let why = r["status"]["skipped"]["reason"].as_str().unwrap();
        assert!(why.contains("no such file"), "{why}");
    }
}

#[test]
fn a_library_that_is_not_a_blas_is_refused_with_one_line() {
    usage_error(
        &["--blas", "libm.so.6", "--n", "64"],
        &["--blas: libm.so.6: not a BLAS"],
    );
    usage_error(&["--blas", "eigen"], &["--blas: unknown BLAS 'eigen'"]);
}
