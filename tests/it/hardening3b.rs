//! Issue #33, "Hardening, third round", the items checked from outside the binary here
//! (3, 6, 9, 14, 15; the others have unit tests beside their code): signals at many
//! points of a disk run's life and of `report`/`compare`/`fleet` writing their
//! outputs leave nothing behind, no reader waits on a FIFO, a BLAS that calls `exit(0)`
//! is reported with exit status 1, and a secret file open to others is warned about.
//! Every file a test needs is made here, in temporary directories removed afterwards;
//! the C libraries are compiled by the test (it skips, saying so, without `cc`).

use crate::common;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

fn bin() -> Command {
    common::pb_std()
}

/// Waits for `child` at most `limit` (then kills it and fails: nothing here may hang).
fn finish(mut child: Child, limit: Duration, what: &str) -> Output {
    let t = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if t.elapsed() > limit {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!(
                "{what}: still running after {limit:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    child.wait_with_output().unwrap()
}

fn signal(child: &Child, sig: i32) {
    // SAFETY: signalling our own child process.
    unsafe { libc::kill(child.id() as i32, sig) };
}

/// Every path under `dir`, recursively.
fn everything(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                todo.push(p.clone());
            }
            out.push(p);
        }
    }
    out
}

fn mkfifo(p: &Path) {
    let c = std::ffi::CString::new(p.to_str().unwrap()).unwrap();
    // SAFETY: a valid C string.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
}

mod disk {
    //! Item 3: SIGINT/SIGTERM while the test files are made, filled or measured, or
    //! between cases, leaves `--dir` as it was. Before, the fill stopped, its case
    //! failed at once, the next case created `job0.dat` again while the cleanup ran,
    //! and the directory stayed ("cannot remove …: Directory not empty").

    use super::*;

    /// When to send the signal: once the run directory appears, or once the first
    /// job file appears, then after `after`.
    #[derive(Debug, Clone, Copy)]
    enum At {
        Dir(u64),
        File(u64),
    }

    fn interrupt(sig: i32, at: At) {
        let dir = common::scratch_dir();
        let out = common::scratch_dir();
        // Four 32 MiB files, filled one after the other, then two patterns: the run
        // lives long enough to be hit at every stage, on a fast or a slow disk.
        let child = bin()
            .args(["disk", "--quiet", "--buffered", "--dir"])
            .arg(dir.path())
            .arg("--output")
            .arg(out.path())
            .args([
                "--file-size",
                "32MiB",
                "--jobs",
                "1,4",
                "--pattern",
                "seq-read,seq-write",
                "--block",
                "1MiB",
                "--depth",
                "1",
                "--runtime",
                "300ms",
                "--repeat",
                "1",
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let t = Instant::now();
        let (want_file, after) = match at {
            At::Dir(ms) => (false, ms),
            At::File(ms) => (true, ms),
        };
        let reached = || {
            everything(dir.path()).iter().any(|p| {
                if want_file {
                    p.file_name().is_some_and(|n| n == "job0.dat")
                } else {
                    p.is_dir()
                }
            })
        };
        let mut seen = false;
        while t.elapsed() < Duration::from_secs(60) {
            if reached() {
                seen = true;
                break;
            }
            std::thread::sleep(Duration::from_micros(500));
        }
        assert!(seen, "{at:?}: the run never reached that point");
        std::thread::sleep(Duration::from_millis(after));
        signal(&child, sig);
        let o = finish(child, Duration::from_secs(30), "disk");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            o.status.code() == Some(128 + sig) || o.status.success(),
            "{at:?}: {:?} {err}",
            o.status
        );
        assert!(!err.contains("cannot remove"), "{at:?}: {err}");
        let left = everything(dir.path());
        assert!(left.is_empty(), "{at:?} left {left:?}; stderr: {err}");
    }

    #[test]
    fn issue_33_a_signal_at_any_point_of_a_disk_run_leaves_nothing() {
        let points = [
            At::Dir(0),
            At::File(0),
            At::File(1),
            At::File(5),
            At::File(20),
            At::File(80),
            At::File(250),
            At::File(700),
        ];
        for (i, at) in points.into_iter().enumerate() {
            let sig = if i % 2 == 0 {
                libc::SIGINT
            } else {
                libc::SIGTERM
            };
            interrupt(sig, at);
        }
    }
}

mod outputs {
    //! Item 9: an interrupted `report`/`compare`/`fleet` writing `--html`, `--csv` or
    //! `--markdown` left `.NAME.PID-N.tmp` files (8 of 10 runs).

    use super::*;

    /// A results file of `copies` × the mixed fixture's results.
    fn big_report(dir: &Path, name: &str, host: &str, copies: usize) -> PathBuf {
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/report_mixed.json"
        ))
        .unwrap();
        let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
        let one = v["results"].as_array().unwrap().clone();
        let mut all = Vec::new();
        for i in 0..copies {
            for r in &one {
                let mut r = r.clone();
                r["workload"] = format!("{}_{i}", r["workload"].as_str().unwrap()).into();
                all.push(r);
            }
        }
        v["results"] = all.into();
        v["host"]["hostname"] = host.into();
        let p = dir.join(name);
        std::fs::write(&p, serde_json::to_vec(&v).unwrap()).unwrap();
        p
    }

    fn temporaries(dir: &Path) -> Vec<PathBuf> {
        everything(dir)
            .into_iter()
            .filter(|p| p.to_string_lossy().ends_with(".tmp"))
            .collect()
    }

    #[test]
    fn issue_33_an_interrupted_export_leaves_no_temporary_file() {
        let inputs = tempfile::tempdir().unwrap();
        let a = big_report(inputs.path(), "a.json", "ha", 200);
        let b = big_report(inputs.path(), "b.json", "hb", 200);
        let c = big_report(inputs.path(), "c.json", "hc", 200);
        let (a, b, c) = (
            a.to_str().unwrap(),
            b.to_str().unwrap(),
            c.to_str().unwrap(),
        );
        let mut hit = 0;
        for round in 0..12 {
            let out = tempfile::tempdir().unwrap();
            let o = |f: &str| out.path().join(f).to_str().unwrap().to_string();
            let args: Vec<String> = match round % 3 {
                0 => vec![
                    "report".into(),
                    a.into(),
                    "--html".into(),
                    o("r.html"),
                    "--csv".into(),
                    o("r.csv"),
                    "--markdown".into(),
                    o("r.md"),
                ],
                1 => ["compare", a, b, "--html"]
                    .map(String::from)
                    .into_iter()
                    .chain([o("c.html")])
                    .collect(),
                _ => ["fleet", a, b, c, "--html"]
                    .map(String::from)
                    .into_iter()
                    .chain([o("f.html")])
                    .collect(),
            };
            let mut child = bin()
                .args(&args)
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            // Signal as soon as a temporary file exists (a few rounds a little later).
            let t = Instant::now();
            let mut seen = false;
            while t.elapsed() < Duration::from_secs(30) {
                if !temporaries(out.path()).is_empty() {
                    seen = true;
                    break;
                }
                if child.try_wait().unwrap().is_some() {
                    break;
                }
                std::thread::sleep(Duration::from_micros(200));
            }
            if round >= 6 {
                std::thread::sleep(Duration::from_millis(2 * (round as u64 - 5)));
            }
            signal(
                &child,
                if round % 2 == 0 {
                    libc::SIGINT
                } else {
                    libc::SIGTERM
                },
            );
            let res = finish(child, Duration::from_secs(30), &args[0]);
            let err = String::from_utf8_lossy(&res.stderr);
            if seen {
                hit += 1;
            }
            assert!(
                res.status.success() || matches!(res.status.code(), Some(130 | 143)),
                "{args:?}: {:?} {err}",
                res.status
            );
            let left = temporaries(out.path());
            assert!(left.is_empty(), "{args:?} left {left:?}: {err}");
            // What is in place is whole: a page ends with its closing tag.
            for p in everything(out.path()) {
                if p.extension().is_some_and(|e| e == "html") {
                    let s = std::fs::read_to_string(&p).unwrap();
                    assert!(s.trim_end().ends_with("</html>"), "{p:?} is cut");
                }
            }
        }
        assert!(hit > 0, "no round caught a temporary file to interrupt");
    }
}

mod fifo {
    //! Item 6: `$PEAKBENCH_TOKEN_FILE` and `--blas PATH` named a FIFO and waited on it
    //! for ever; both are refused at once with one line, exit 2.

    use super::*;

    #[test]
    fn issue_33_a_fifo_as_token_file_or_blas_is_refused_at_once() {
        let d = tempfile::tempdir().unwrap();
        let fifo = d.path().join("fifo");
        mkfifo(&fifo);
        let child = bin()
            .args(["null", "--quiet", "--output"])
            .arg(d.path())
            .env("PEAKBENCH_RANK", "1")
            .env("PEAKBENCH_SIZE", "2")
            .env("PEAKBENCH_COORD", "127.0.0.1:9")
            .env("PEAKBENCH_BIND", "127.0.0.1")
            .env_remove("PEAKBENCH_TOKEN")
            .env("PEAKBENCH_TOKEN_FILE", &fifo)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let o = finish(child, Duration::from_secs(20), "PEAKBENCH_TOKEN_FILE=FIFO");
        common::assert_refused(
            &o,
            &"token file",
            &["$PEAKBENCH_TOKEN_FILE", "named pipe (FIFO)"],
        );

        let lib = d.path().join("libblas.so");
        mkfifo(&lib);
        let child = bin()
            .args(["linalg", "--quiet", "--n", "64", "--blas"])
            .arg(&lib)
            .arg("--output")
            .arg(d.path())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let o = finish(child, Duration::from_secs(60), "--blas FIFO");
        common::assert_refused(&o, &"--blas", &["--blas: ", "named pipe (FIFO)"]);
    }

    /// Item 15: a secret file others may read is used, with a warning as ssh gives.
    #[test]
    fn issue_33_a_token_file_open_to_others_is_warned_about() {
        use std::os::unix::fs::PermissionsExt;
        let d = tempfile::tempdir().unwrap();
        let tok = d.path().join("token");
        std::fs::write(&tok, "s3cret\n").unwrap();
        let run = |mode: u32| {
            std::fs::set_permissions(&tok, std::fs::Permissions::from_mode(mode)).unwrap();
            // A rank whose coordinator never answers: it gives up after the 1 s join
            // deadline, having read the secret first.
            let child = bin()
                .args(["null", "--quiet", "--output"])
                .arg(d.path())
                .env("PEAKBENCH_RANK", "1")
                .env("PEAKBENCH_SIZE", "2")
                .env("PEAKBENCH_COORD", "127.0.0.1:9")
                .env("PEAKBENCH_BIND", "127.0.0.1")
                .env("PEAKBENCH_JOIN_TIMEOUT", "1")
                .env_remove("PEAKBENCH_TOKEN")
                .env("PEAKBENCH_TOKEN_FILE", &tok)
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            let o = finish(child, Duration::from_secs(30), "token file");
            String::from_utf8_lossy(&o.stderr).to_string()
        };
        let err = run(0o644);
        assert!(
            err.contains("warning: $PEAKBENCH_TOKEN_FILE")
                && err.contains("is open to other users (mode 0644)")
                && err.contains("chmod 600"),
            "{err}"
        );
        let err = run(0o600);
        assert!(!err.contains("warning"), "{err}");
    }
}

mod blas_exit {
    //! Item 14: a BLAS whose `dgemm_` calls `exit(0)` made peakbench exit 0 with no
    //! message and no results.

    use super::*;

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
        let mut child = bin()
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
        let mut o = finish(child, Duration::from_secs(120), "linalg");
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
