//! Every reader of a user-named or directory-listed file, given a FIFO and a file over
//! its cap (issue #43 item 5): a FIFO named `*.json` in `results/` hung the run after
//! measuring (the folder's index read every file whole, blocking on the FIFO), a huge
//! one was read whole, and a FIFO at `--prom-file` hung a run with a failed case. Each
//! reader now goes through one capped, non-blocking reader: a FIFO is refused at once,
//! a file over the cap by its size before anything is read (the files here are sparse:
//! no disk is used). Named inputs are refused in one line naming the file (exit 2);
//! files the results folder lists are left out of its index. Nothing here checks speed.

use crate::common;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// A sparse file of `len` bytes at `p` (no block is written).
fn sparse(p: &Path, len: u64) {
    std::fs::File::create(p).unwrap().set_len(len).unwrap();
}

/// Runs `args` (with `a` and `b` where `@A`/`@B` stand) and asserts a one-line refusal
/// (exit 2) holding `needles`, within the time limit (a blocked read is a hang).
fn refused(args: &[&str], a: &Path, needles: &[&str]) {
    let t0 = Instant::now();
    let argv: Vec<std::ffi::OsString> = args
        .iter()
        .map(|x| match *x {
            "@A" => a.as_os_str().to_os_string(),
            x => x.into(),
        })
        .collect();
    let o = common::pb_bounded().args(&argv).output().unwrap();
    common::assert_refused(&o, &args, needles);
    assert!(t0.elapsed() < Duration::from_secs(50), "{args:?}");
}

#[test]
fn named_inputs_refuse_fifos_and_files_over_their_cap() {
    let d = common::scratch_dir();
    let fifo_json = d.path().join("fifo.json");
    common::mkfifo(&fifo_json);
    let huge_json = d.path().join("huge.json");
    sparse(&huge_json, 1 << 40);
    let fifo_toml = d.path().join("fifo.toml");
    common::mkfifo(&fifo_toml);
    let huge_toml = d.path().join("huge.toml");
    sparse(&huge_toml, 1 << 40);
    let fix = fixture("report_compare_a.json");
    let fix = fix.to_str().unwrap();
    let db = d.path().join("h.db");
    let db = db.to_str().unwrap();
    let fifo = "is a named pipe (FIFO), not a regular file";
    let big = "larger than 256 MiB";
    let never = d.path().join("never.toml");
    let baseline_args: &[&str] = &["baseline", "--from", "@A", "-o", never.to_str().unwrap()];
    for (file, why) in [(&fifo_json, fifo), (&huge_json, big)] {
        let name = file.to_str().unwrap();
        refused(&["report", "@A"], file, &[name, why]);
        refused(&["compare", fix, "@A"], file, &[name, why]);
        refused(&["fleet", fix, "@A"], file, &[name, why]);
        refused(baseline_args, file, &[name, why]);
        // The lenient import (#44 item 9): one line per refused file, then the
        // summary line; exit 2 when no file was recorded, no database created.
        let t0 = Instant::now();
        let o = common::pb_bounded()
            .args(["history", "import", "--history", db])
            .arg(file)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(err.contains(name) && err.contains(why), "{err}");
        assert!(err.contains("no file recorded"), "{err}");
        assert!(!err.contains("panicked"), "{err}");
        assert!(!Path::new(db).exists(), "{err}");
        assert!(t0.elapsed() < Duration::from_secs(50));
    }
    // check: the baseline (16 MiB cap) and the results file.
    let base = d.path().join("base.toml");
    let o = common::pb_bounded()
        .args(["baseline", "--from", fix, "-o"])
        .arg(&base)
        .output()
        .unwrap();
    common::assert_success(&o, "baseline");
    for (file, why) in [(&fifo_toml, fifo), (&huge_toml, "larger than 16 MiB")] {
        let name = file.to_str().unwrap();
        refused(
            &["check", "--baseline", "@A", fix],
            file,
            &["--baseline: ", name, why],
        );
    }
    let base = base.to_str().unwrap();
    for (file, why) in [(&fifo_json, fifo), (&huge_json, big)] {
        let name = file.to_str().unwrap();
        refused(&["check", "--baseline", base, "@A"], file, &[name, why]);
    }
    // Nothing was written: no baseline, no history from the refused imports.
    assert!(!never.exists() && !Path::new(db).exists());
}

/// The results folder's index lists every run and leaves out a FIFO and a huge file
/// named `*.json` (before: the run hung after measuring, or read the file whole).
#[test]
fn the_results_index_skips_fifos_and_huge_files() {
    let d = common::scratch_dir();
    let res = d.path().join("results");
    std::fs::create_dir(&res).unwrap();
    common::mkfifo(&res.join("jam.json"));
    sparse(&res.join("huge.json"), 1 << 40);
    let t0 = Instant::now();
    let o = common::pb_bounded()
        .current_dir(d.path())
        .args([
            "null",
            "--min-time",
            "2ms",
            "--no-history",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    common::assert_success(&o, "null in a folder with a FIFO and a huge file");
    assert!(t0.elapsed() < Duration::from_secs(50));
    let index = std::fs::read_to_string(res.join("index.md")).unwrap();
    let rows: Vec<&str> = index.lines().filter(|l| l.starts_with("| 2")).collect();
    assert_eq!(rows.len(), 1, "{index}");
    assert!(
        !index.contains("jam.json") && !index.contains("huge.json"),
        "{index}"
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("latest: "), "{err}");
}

/// The case: a run with a failed case (here `net` against a closed loopback
/// port) looked for the last success in the previous `--prom-file`, opening a FIFO there
/// for reading, which waited for a writer for ever. Now the FIFO is not read; nobody
/// reads it either, so writing the metrics is refused at once, the results file kept.
#[test]
fn a_fifo_at_the_prom_file_after_a_failed_case_is_not_waited_on() {
    let d = common::scratch_dir();
    let prom = d.path().join("m.prom");
    common::mkfifo(&prom);
    let res = d.path().join("results");
    let t0 = Instant::now();
    let o = common::pb_bounded()
        .args([
            "net",
            "--server",
            "127.0.0.1:1",
            "--time",
            "200ms",
            "--repeat",
            "1",
        ])
        .args(["--no-history", "--quiet", "--format", "json", "--output"])
        .arg(&res)
        .arg("--prom-file")
        .arg(&prom)
        .output()
        .unwrap();
    assert!(t0.elapsed() < Duration::from_secs(50));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("cannot write the metrics file")
            && err.contains("no reader on FIFO ")
            && err.contains("the results file was written"),
        "{err}"
    );
    // The results file was written before the metrics, with the failed case.
    let f = std::fs::read_dir(&res)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(f).unwrap()).unwrap();
    let rs = v["results"].as_array().unwrap();
    assert!(rs.iter().any(|r| r["status"]["failed"].is_object()), "{v}");
}
