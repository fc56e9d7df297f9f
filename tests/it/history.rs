//! The run history end to end through the binary: two quick runs are two runs in the
//! database; `history` lists them, `history show` gives a case's series and its page
//! the time-series chart; `history import` of their files adds nothing; bad databases
//! and paths are one line and exit 2; a run whose database cannot be written keeps its
//! results file and says so.

use crate::common::{assert_refused, pb, scratch_dir};
use std::path::Path;

/// A quick `null` run recorded in `db`, its results in `out`.
fn null_run(db: &Path, out: &Path) -> std::process::Output {
    pb().args(["null", "--min-time", "2ms", "--quiet", "--format", "json"])
        .arg("--output")
        .arg(out)
        .arg("--history")
        .arg(db)
        .output()
        .unwrap()
}

#[test]
fn two_runs_are_listed_shown_charted_and_imported_once() {
    let d = scratch_dir();
    let db = d.path().join("h.db");
    let res = d.path().join("results");
    for _ in 0..2 {
        let o = null_run(&db, &res);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!err.contains("history"), "{err}");
    }
    let list = pb()
        .args(["history", "--format", "json", "--history"])
        .arg(&db)
        .output()
        .unwrap();
    assert!(
        list.status.success(),
        "{}",
        String::from_utf8_lossy(&list.stderr)
    );
    let runs: serde_json::Value = serde_json::from_slice(&list.stdout).unwrap();
    assert_eq!(runs.as_array().unwrap().len(), 2, "{runs}");
    assert_eq!(runs[0]["command"], "null");
    // The series of the null case, as JSON and as the page with its chart.
    let page = d.path().join("h.html");
    let show = pb()
        .args(["history", "show", "null", "--format", "json", "--history"])
        .arg(&db)
        .arg("--html")
        .arg(&page)
        .output()
        .unwrap();
    assert!(
        show.status.success(),
        "{}",
        String::from_utf8_lossy(&show.stderr)
    );
    let s: serde_json::Value = serde_json::from_slice(&show.stdout).unwrap();
    let pts = s["cases"][0]["points"].as_array().unwrap();
    assert_eq!(pts.len(), 2, "{s}");
    assert!(pts[0]["samples"].as_array().is_some_and(|a| !a.is_empty()));
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(
        html.contains("<figure class=\"timeseries\"><svg"),
        "no chart"
    );
    assert!(html.contains("<polyline"), "no line");
    // Importing the runs' own files records nothing new.
    let files: Vec<_> = std::fs::read_dir(&res)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    assert_eq!(files.len(), 2);
    let imp = pb()
        .args(["history", "import", "--history"])
        .arg(&db)
        .args(&files)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&imp.stdout);
    assert!(
        imp.status.success(),
        "{}",
        String::from_utf8_lossy(&imp.stderr)
    );
    assert!(text.contains("0 recorded, 2 already there"), "{text}");
}

#[test]
fn bad_databases_and_paths_are_one_line_and_exit_2() {
    let d = scratch_dir();
    let junk = d.path().join("junk.db");
    std::fs::write(&junk, b"not sqlite\n".repeat(500)).unwrap();
    // (Another program's SQLite database and a newer schema: src/history/tests.rs.)
    for (db, needle) in [
        (&junk, "not a SQLite database"),
        (&d.path().join("none.db"), "no history database"),
    ] {
        let o = pb()
            .args(["history", "--history"])
            .arg(db)
            .output()
            .unwrap();
        assert_refused(&o, &db, &[needle]);
        let o = pb()
            .args(["history", "show", "x", "--history"])
            .arg(db)
            .output()
            .unwrap();
        assert_refused(&o, &db, &[needle]);
    }
    assert!(!d.path().join("none.db").exists());
    // An explicit --history that cannot be created: refused before anything runs.
    let res = d.path().join("results");
    let o = null_run(&d.path().join("no/such/dir/h.db"), &res);
    assert_refused(
        &o,
        &"--history in a missing dir",
        &["--history", "cannot create"],
    );
    assert!(!res.exists(), "the refused run wrote results");
    let o = null_run(&junk, &res);
    assert_refused(&o, &"--history junk", &["--history"]);
    assert!(!res.exists());
}

#[test]
fn a_run_whose_default_database_cannot_be_written_keeps_its_results() {
    let d = scratch_dir();
    // XDG_DATA_HOME/peakbench is a file: the default database cannot be created.
    let data = d.path().join("data");
    std::fs::create_dir_all(&data).unwrap();
    std::fs::write(data.join("peakbench"), b"in the way").unwrap();
    let res = d.path().join("results");
    let o = pb()
        .args([
            "null",
            "--min-time",
            "2ms",
            "--quiet",
            "--format",
            "json",
            "--output",
        ])
        .arg(&res)
        .env("XDG_DATA_HOME", &data)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    // One line says so (a busy machine may add the run's own warnings).
    let said: Vec<&str> = err.lines().filter(|l| l.contains("history")).collect();
    assert_eq!(said.len(), 1, "{err}");
    assert!(
        said[0].starts_with("history: this run is not recorded"),
        "{err}"
    );
    assert_eq!(std::fs::read_dir(&res).unwrap().count(), 1);
    // --no-history: nothing said, nothing recorded.
    let o = pb()
        .args([
            "null",
            "--min-time",
            "2ms",
            "--quiet",
            "--format",
            "json",
            "--no-history",
            "--output",
        ])
        .arg(&res)
        .env("XDG_DATA_HOME", &data)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success() && !err.contains("history"), "{err}");
}
