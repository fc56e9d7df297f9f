//! `peakbench linalg --blas PATH` against libraries built here with `cc` that lie: NaN
//! in every element, one NaN, an infinity, wrong values, and one that computes once and
//! then returns at once (its figure far above the peak). Each must be a failed row with
//! no figure; an honest library built the same way passes (#33 item 1). Skips with a
//! printed reason when no C compiler is installed. Nothing here checks speed.

use crate::common;

use common::pb;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A Fortran-interface BLAS/LAPACK subset (dgemm_, dgetrf_, dgetrs_) in plain C: the
/// honest triple loop and Gaussian elimination with partial pivoting, then `MODE` spoils
/// the result.
const SOURCE: &str = r#"
#include <math.h>
#include <stddef.h>
enum { OK, NAN_ALL, ONE_NAN, INF, WRONG, LAZY };
static int done = 0;
static void spoil(double *x, size_t len) {
    switch (MODE) {
    case NAN_ALL: for (size_t i = 0; i < len; i++) x[i] = NAN; break;
    case ONE_NAN: x[len / 2] = NAN; break;
    case INF: x[len - 1] = INFINITY; break;
    case WRONG: x[len / 3] += 1e-3; break;
    default: break;
    }
}
void dgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k,
            const double *alpha, const double *a, const int *lda, const double *b,
            const int *ldb, const double *beta, double *c, const int *ldc, size_t l1,
            size_t l2) {
    (void)ta; (void)tb; (void)l1; (void)l2;
    if (MODE == LAZY && done) return;
    done = 1;
    for (int j = 0; j < *n; j++)
        for (int i = 0; i < *m; i++) {
            double s = 0;
            for (int p = 0; p < *k; p++) s += a[i + p * *lda] * b[p + j * *ldb];
            c[i + j * *ldc] = *alpha * s + (*beta == 0 ? 0 : *beta * c[i + j * *ldc]);
        }
    /* Columns may be padded (ldc > m): spoil element (m/2, n/2), or every element. */
    if (MODE == NAN_ALL)
        for (int j = 0; j < *n; j++) spoil(c + (size_t)j * *ldc, (size_t)*m);
    else
        spoil(c + (size_t)(*n / 2) * *ldc, (size_t)*m);
}
void dgetrf_(const int *m, const int *n, double *a, const int *lda, int *ipiv, int *info) {
    int N = *m < *n ? *m : *n, L = *lda;
    *info = 0;
    for (int k = 0; k < N; k++) {
        int p = k;
        for (int i = k + 1; i < *m; i++) if (fabs(a[i + k * L]) > fabs(a[p + k * L])) p = i;
        ipiv[k] = p + 1;
        if (a[p + k * L] == 0) { *info = k + 1; return; }
        if (p != k) for (int j = 0; j < *n; j++) {
            double t = a[k + j * L]; a[k + j * L] = a[p + j * L]; a[p + j * L] = t;
        }
        for (int i = k + 1; i < *m; i++) {
            a[i + k * L] /= a[k + k * L];
            for (int j = k + 1; j < *n; j++) a[i + j * L] -= a[i + k * L] * a[k + j * L];
        }
    }
}
void dgetrs_(const char *tr, const int *n, const int *nrhs, const double *a, const int *lda,
             const int *ipiv, double *b, const int *ldb, int *info, size_t l) {
    (void)tr; (void)l;
    int N = *n, L = *lda;
    *info = 0;
    for (int r = 0; r < *nrhs; r++) {
        double *x = b + (size_t)r * *ldb;
        for (int k = 0; k < N; k++) {
            int p = ipiv[k] - 1;
            if (p != k) { double t = x[k]; x[k] = x[p]; x[p] = t; }
        }
        for (int i = 0; i < N; i++) for (int j = 0; j < i; j++) x[i] -= a[i + j * L] * x[j];
        for (int i = N - 1; i >= 0; i--) {
            for (int j = i + 1; j < N; j++) x[i] -= a[i + j * L] * x[j];
            x[i] /= a[i + i * L];
        }
        spoil(x, (size_t)N);
    }
}
"#;

/// Builds the library of `mode` in `dir`; `None` (with the reason printed) without `cc`.
fn build(dir: &Path, mode: &str) -> Option<PathBuf> {
    let src = dir.join("fakeblas.c");
    std::fs::write(&src, SOURCE).unwrap();
    let lib = dir.join(format!("libfake_{}.so", mode.to_lowercase()));
    let out = match Command::new("cc")
        .args(["-O1", "-shared", "-fPIC", &format!("-DMODE={mode}"), "-o"])
        .arg(&lib)
        .arg(&src)
        .arg("-lm")
        .output()
    {
        Ok(o) => o,
        Err(e) => {
            eprintln!("skipped: no C compiler (cc: {e})");
            return None;
        }
    };
    common::assert_success(&out, "cc");
    Some(lib)
}

/// The results of `linalg --blas LIB` for gemm and lu at n = 128, one thread, fp64,
/// with the FMA peak given as 20 GFLOP/s for the machine (so the test does not depend
/// on the host's detected peak: a naive C loop runs far below it).
fn run(lib: &Path, out: &Path) -> Vec<Value> {
    let o = pb()
        .args([
            "linalg",
            "--routine",
            "gemm,lu",
            "--n",
            "128",
            "--threads",
            "1",
            "--precision",
            "fp64",
            "--repeat",
            "2",
            "--min-time",
            "1ms",
            "--peak",
            "cpu.fp64=20GFLOP/s",
            "--format",
            "json",
            "--quiet",
            "--blas",
        ])
        .arg(lib)
        .arg("--output")
        .arg(out)
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}\n{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        )
    });
    let rs = v["results"].as_array().unwrap().clone();
    assert_eq!(rs.len(), 2, "{rs:#?}");
    rs
}

fn routine(r: &Value) -> String {
    r["workload"].as_str().unwrap_or_default().to_string() + &r["params"].to_string()
}

#[test]
fn a_library_that_lies_gets_a_failed_row_and_an_honest_one_passes() {
    let dir = tempfile::tempdir().unwrap();
    let Some(ok) = build(dir.path(), "OK") else {
        return;
    };
    for r in run(&ok, dir.path()) {
        assert_eq!(r["status"], "ok", "the honest library: {r:#}");
        assert!(r["summary"]["mean"].as_f64().unwrap() > 0.0);
    }
    for (mode, needle) in [
        ("NAN_ALL", "NaN or ±Inf"),
        ("ONE_NAN", "NaN or ±Inf"),
        ("INF", "NaN or ±Inf"),
        ("WRONG", "≥ 16"),
    ] {
        let lib = build(dir.path(), mode).unwrap();
        for r in run(&lib, dir.path()) {
            let err = r["status"]["failed"]["error"].as_str().unwrap_or_else(|| {
                panic!("{mode}, {}: not failed: {r:#}", routine(&r));
            });
            assert!(err.contains(needle), "{mode}: {err}");
            assert!(r["summary"].is_null(), "{mode}: a figure: {r:#}");
            assert!(r["samples"].as_array().is_none_or(|s| s.is_empty()));
        }
    }
    // Computes the product once, then returns at once: the product stays right, the
    // figure is far beyond the peak, and that is a failed check, not a figure.
    let lazy = build(dir.path(), "LAZY").unwrap();
    let rs = run(&lazy, dir.path());
    let gemm = rs
        .iter()
        .find(|r| r["params"]["routine"] == "gemm" || r["workload"] == "gemm")
        .unwrap_or_else(|| panic!("no gemm row: {rs:#?}"));
    let err = gemm["status"]["failed"]["error"]
        .as_str()
        .unwrap_or_else(|| panic!("the lazy library: not failed: {gemm:#}"));
    assert!(err.contains("× the peak"), "{err}");
    assert!(gemm["summary"].is_null() && gemm["efficiency"].is_null());
}

// ---- Regressions of the hardening rounds and the loose ends (#16, #26, #27, #33). ----

mod exit_in_the_library {
    //! #33 item 14: a BLAS whose `dgemm_` calls `exit(0)` made peakbench exit 0 with no
    //! message and no results.

    use crate::common;
    use std::io::Read;
    use std::path::{Path, PathBuf};
    use std::process::{Command, Output, Stdio};
    use std::time::Duration;

    /// Compiles `source` into `dir/NAME.so`, or `None` (with the reason printed) when
    /// there is no C compiler.
    fn library(dir: &Path, name: &str, source: &str) -> Option<PathBuf> {
        let c = dir.join(format!("{name}.c"));
        std::fs::write(&c, source).unwrap();
        let so = dir.join(format!("{name}.so"));
        match Command::new("cc")
            .args(["-shared", "-fPIC", "-O1", "-o"])
            .arg(&so)
            .arg(&c)
            .output()
        {
            Ok(o) if o.status.success() => Some(so),
            Ok(o) => panic!("cc failed: {}", String::from_utf8_lossy(&o.stderr)),
            Err(e) => {
                println!("skipped: no C compiler (cc: {e})");
                None
            }
        }
    }

    fn linalg(lib: &Path, out: &Path) -> Output {
        let mut child = common::pb_std()
            .args([
                "linalg",
                "--quiet",
                "--routine",
                "gemm",
                "--precision",
                "fp64",
                "--n",
                "64",
                "--threads",
                "1",
                "--repeat",
                "1",
                "--min-time",
                "1ms",
                "--format",
                "json",
                "--blas",
            ])
            .arg(lib)
            .arg("--output")
            .arg(out)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut so = String::new();
        let _ = child.stdout.take().unwrap().read_to_string(&mut so);
        let mut o = common::finish(child, Duration::from_secs(120), "linalg");
        o.stdout = so.into_bytes();
        o
    }

    #[test]
    fn issue_33_a_library_that_calls_exit_is_reported_and_fails_the_run() {
        let d = tempfile::tempdir().unwrap();
        let Some(in_gemm) = library(
            d.path(),
            "libexitgemm",
            "#include <stdlib.h>\n\
             void dgemm_(void) { exit(0); }\n",
        ) else {
            return;
        };
        let o = linalg(&in_gemm, d.path());
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{err}");
        assert!(
            err.contains("ended by a call to exit() during dgemm_ of ")
                && err.contains("libexitgemm.so"),
            "{err}"
        );
        assert_eq!(err.matches("exit()").count(), 1, "one line: {err}");

        let Some(at_load) = library(
            d.path(),
            "libexitload",
            "#include <stdlib.h>\n\
             __attribute__((constructor)) static void init(void) { exit(0); }\n\
             void dgemm_(void) {}\n",
        ) else {
            return;
        };
        let o = linalg(&at_load, d.path());
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{err}");
        assert!(
            err.contains("during its initialisers (dlopen) of ") && err.contains("libexitload.so"),
            "{err}"
        );
    }
}
