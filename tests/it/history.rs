//! The run history end to end through the binary: two quick runs are two runs in the
//! database; `history` lists them, `history show` gives a case's series and its page
//! the time-series chart; `history import` of their files adds nothing; bad databases
//! and paths are one line and exit 2; a run whose database cannot be written keeps its
//! results file and says so.

use crate::common::history::{first_ok, hist, results_file};
use crate::common::{
    assert_refused, assert_success, finish, pb, pb_std, scratch_dir, success_json, success_text,
};
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

/// Issue #43 items 3 and 4, #44 item 9: an import skips what it cannot record (a file
/// that does not load, impossible figures), one line each, records the rest, says
/// which run is dated in the future, and exits 1; nothing recordable: exit 2, no
/// database created.
#[test]
fn import_skips_bad_files_refuses_impossible_figures_and_flags_the_future() {
    let d = scratch_dir();
    let dir = d.path();
    let db = dir.join("h.db");
    let good = results_file(dir, "good.json", "2026-11-20T10:00:00Z", 1.0, |_| {});
    let neg = results_file(dir, "neg.json", "2026-11-21T10:00:00Z", 1.0, |v| {
        first_ok(v)["samples"][0] = (-5.0).into();
    });
    let huge = results_file(dir, "huge.json", "2026-11-22T10:00:00Z", 1.0, |v| {
        first_ok(v)["samples"][0] = 1e30.into();
    });
    let future = results_file(dir, "future.json", "2099-01-01T00:00:00Z", 1.0, |_| {});
    let junk = dir.join("junk.json");
    std::fs::write(&junk, b"{ not json").unwrap();
    // Nothing recordable: one line, exit 2, no database.
    let o = hist(
        &db,
        &["import", neg.to_str().unwrap(), junk.to_str().unwrap()],
    );
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.lines().count(), 3, "{err}");
    assert!(err.contains("no file recorded (2 refused"), "{err}");
    assert!(!db.exists());
    let files = [&good, &neg, &huge, &future, &junk];
    let o = pb()
        .args(["history", "import", "--history"])
        .arg(&db)
        .args(files)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    let out = String::from_utf8_lossy(&o.stdout);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        out.contains("2 recorded, 0 already there, 3 refused"),
        "{out}"
    );
    for name in ["neg.json", "huge.json", "junk.json"] {
        let l: Vec<&str> = err.lines().filter(|l| l.contains(name)).collect();
        assert_eq!(l.len(), 1, "{name}: {err}");
        assert!(l[0].starts_with("history import: refused"), "{err}");
    }
    assert!(err.contains("not a measurement"), "{err}");
    let l: Vec<&str> = err.lines().filter(|l| l.contains("future.json")).collect();
    assert_eq!(l.len(), 1, "{err}");
    assert!(l[0].contains("dated in the future"), "{err}");
    // `history list` marks it; the newest recorded is not it but the run after it.
    let newer = results_file(dir, "newer.json", "2026-11-23T10:00:00Z", 0.5, |_| {});
    assert_success(&hist(&db, &["import", newer.to_str().unwrap()]), "import");
    let list = success_text(&hist(&db, &["--width", "300"]), "list");
    assert!(list.contains("2099-01-01T00:00:00Z (future)"), "{list}");
    let runs = success_json(&hist(&db, &["--format", "json"]), "list json");
    let flags: Vec<bool> = runs
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["future"].as_bool().unwrap())
        .collect();
    assert_eq!(flags, [false, false, true]);
}

/// Issue #44 item 9: on a fresh account (no data directory yet) `history import`
/// creates the default database's directories.
#[test]
fn import_on_a_fresh_account_creates_the_directories() {
    let d = scratch_dir();
    let data = d.path().join("fresh/data");
    let f = results_file(d.path(), "a.json", "2026-11-20T10:00:00Z", 1.0, |_| {});
    let o = pb()
        .args(["history", "import"])
        .arg(&f)
        .env("XDG_DATA_HOME", &data)
        .output()
        .unwrap();
    assert_success(&o, "import on a fresh account");
    assert!(data.join("peakbench/history.db").is_file());
}

/// Issue #44 item 9: tag, export (read back by `compare`), delete, prune, compare
/// two periods; each bad value one line and exit 2.
#[test]
fn tag_export_delete_prune_and_compare_periods() {
    let d = scratch_dir();
    let dir = d.path();
    let db = dir.join("h.db");
    let mut files = Vec::new();
    for day in 1..=8u32 {
        let scale = if day <= 4 { 1.0 } else { 0.7 };
        let name = format!("r{day}.json");
        let started = format!("2026-11-{day:02}T10:00:00Z");
        files.push(results_file(dir, &name, &started, scale, |_| {}));
    }
    let o = pb()
        .args(["history", "import", "--history"])
        .arg(&db)
        .args(&files)
        .output()
        .unwrap();
    assert_success(&o, "import");
    let t = success_text(&hist(&db, &["tag", "5", "note=after BIOS update"]), "tag");
    assert_eq!(t.trim(), "run 5: note=after BIOS update");
    let runs = success_json(&hist(&db, &["--format", "json"]), "list");
    assert_eq!(runs[4]["tags"]["note"], "after BIOS update");
    // Export: the very file that was imported, which `compare` reads.
    let back = dir.join("back.json");
    assert_success(
        &hist(&db, &["export", "1", "-o", back.to_str().unwrap()]),
        "export",
    );
    let a: serde_json::Value = serde_json::from_slice(&std::fs::read(&back).unwrap()).unwrap();
    let b: serde_json::Value = serde_json::from_slice(&std::fs::read(&files[0]).unwrap()).unwrap();
    assert_eq!(a["results"], b["results"]);
    let c = pb()
        .arg("compare")
        .arg(&back)
        .arg(&files[4])
        .output()
        .unwrap();
    assert_success(&c, "compare of an exported run");
    // Two periods: the second 30 % below.
    let cmp = success_json(
        &hist(
            &db,
            &[
                "compare",
                "2026-11-01..2026-11-05",
                "2026-11-05..",
                "--format",
                "json",
            ],
        ),
        "history compare",
    );
    let ch = cmp["changes"].as_array().unwrap();
    assert!(!ch.is_empty(), "{cmp}");
    assert!(
        ch.iter()
            .any(|c| c["rel"].as_f64().is_some_and(|r| (r + 0.3).abs() < 0.01)),
        "{cmp}"
    );
    // Delete all or none; prune.
    let o = hist(&db, &["delete", "2", "99"]);
    assert_refused(&o, &"delete 99", &["no run 99"]);
    assert_success(&hist(&db, &["delete", "2"]), "delete");
    let out = success_text(&hist(&db, &["prune", "--keep", "3"]), "prune");
    assert!(out.contains("4 runs removed"), "{out}");
    let runs = success_json(&hist(&db, &["--format", "json"]), "list");
    let ids: Vec<i64> = runs
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_i64().unwrap())
        .collect();
    assert_eq!(ids, [6, 7, 8]);
    for (args, needle) in [
        (&["tag", "x", "a=b"][..], "not a run id"),
        (&["tag", "1", "=b"], "not a tag"),
        (&["tag", "1", "ab"], "has no '='"),
        (&["tag", "99", "a=b"], "no run 99"),
        (&["export", "99", "-o", "x.json"], "no run 99"),
        (&["delete", "0"], "not a run id"),
        (&["prune"], "says nothing to remove"),
        (&["prune", "--keep", "0"], "not a count"),
        (&["prune", "--older-than", "soon"], "not an age"),
        (&["compare", "2026-11-05", "2026-11-01.."], "not a period"),
        (
            &["compare", "2026-11-05..2026-11-01", "2026-11-01.."],
            "ends before",
        ),
        (
            &["compare", "2027-01-01..", "2026-11-01.."],
            "holds no recorded run",
        ),
    ] {
        assert_refused(&hist(&db, args), &args, &[needle]);
    }
}

/// Makes `paths` unwritable even for root while alive (`chattr +i`; as another user
/// `chmod` does it), and writable again when dropped.
struct ReadOnly(Vec<std::path::PathBuf>, bool);

impl ReadOnly {
    /// `Err`: why it cannot be done here (the test is then skipped, saying so).
    fn new(paths: &[&Path]) -> Result<ReadOnly, String> {
        let root = unsafe_uid_is_root();
        let mut done = ReadOnly(Vec::new(), root);
        for p in paths {
            let ok = if root {
                std::process::Command::new("chattr")
                    .arg("+i")
                    .arg(p)
                    .output()
                    .map_err(|e| format!("chattr: {e}"))?
                    .status
                    .success()
            } else {
                use std::os::unix::fs::PermissionsExt;
                let mode = if p.is_dir() { 0o555 } else { 0o444 };
                std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).is_ok()
            };
            if !ok {
                return Err(format!(
                    "cannot make {} read-only here (chattr +i refused: a file system without it)",
                    p.display()
                ));
            }
            done.0.push(p.to_path_buf());
        }
        Ok(done)
    }
}

impl Drop for ReadOnly {
    fn drop(&mut self) {
        for p in self.0.iter().rev() {
            if self.1 {
                let _ = std::process::Command::new("chattr")
                    .arg("-i")
                    .arg(p)
                    .output();
            } else {
                use std::os::unix::fs::PermissionsExt;
                let _ = std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o755));
            }
        }
    }
}

/// Whether this process runs as root (root passes over file modes).
fn unsafe_uid_is_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("Uid:"))
                .and_then(|l| l.split_whitespace().nth(2).map(|u| u == "0"))
        })
        .unwrap_or(false)
}

/// Issue #43 item 6: a database in a directory nobody may write (a root cron's, a
/// read-only mount) is read by `history`, `history show` and `history export`; a
/// writer is refused in one line.
#[test]
fn a_read_only_database_and_directory_are_read() {
    let d = scratch_dir();
    let dir = d.path().join("ro");
    std::fs::create_dir(&dir).unwrap();
    let db = dir.join("h.db");
    let mut files = Vec::new();
    for day in 1..=3u32 {
        let started = format!("2026-11-{day:02}T10:00:00Z");
        files.push(results_file(
            d.path(),
            &format!("r{day}.json"),
            &started,
            1.0,
            |_| {},
        ));
    }
    let o = pb()
        .args(["history", "import", "--history"])
        .arg(&db)
        .args(&files)
        .output()
        .unwrap();
    assert_success(&o, "import");
    let lock = match ReadOnly::new(&[&db, &dir]) {
        Ok(l) => l,
        Err(why) => {
            eprintln!("skipped: {why}");
            return;
        }
    };
    // Really read-only: a write fails.
    assert!(
        std::fs::write(dir.join("probe"), b"x").is_err(),
        "the directory is writable"
    );
    let runs = success_json(&hist(&db, &["--format", "json"]), "list read-only");
    assert_eq!(runs.as_array().unwrap().len(), 3);
    let s = success_json(&hist(&db, &["show", "--format", "json"]), "show read-only");
    assert!(!s["cases"].as_array().unwrap().is_empty());
    let out = d.path().join("back.json");
    assert_success(
        &hist(&db, &["export", "1", "-o", out.to_str().unwrap()]),
        "export read-only",
    );
    let o = hist(&db, &["tag", "1", "a=b"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(String::from_utf8_lossy(&o.stderr).lines().count(), 1);
    drop(lock);
    assert_eq!(
        std::fs::read_dir(&dir).unwrap().count(),
        1,
        "the readers left files"
    );
}

/// Issue #43 item 6: `history` reads while another process holds the write lock
/// (BEGIN IMMEDIATE), without waiting the 30 s busy timeout.
#[test]
fn a_reader_does_not_wait_behind_a_writer() {
    let d = scratch_dir();
    let db = d.path().join("h.db");
    let f = results_file(d.path(), "a.json", "2026-11-20T10:00:00Z", 1.0, |_| {});
    assert_success(&hist(&db, &["import", f.to_str().unwrap()]), "import");
    let w = rusqlite::Connection::open(&db).unwrap();
    w.execute_batch("BEGIN IMMEDIATE; DELETE FROM tags;")
        .unwrap();
    let child = pb_std()
        .args(["history", "--format", "json", "--history"])
        .arg(&db)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // `finish` fails the test if the reader is not back in 20 s.
    let o = finish(
        child,
        std::time::Duration::from_secs(20),
        "history behind a writer",
    );
    w.execute_batch("ROLLBACK").unwrap();
    let runs = success_json(&o, "list behind a writer");
    assert_eq!(runs.as_array().unwrap().len(), 1);
}

/// Issue #44 item 9: the page's header counts runs, not cases × runs, and its time
/// axis shows at most 10 labels.
#[test]
fn the_history_page_counts_runs_and_thins_its_labels() {
    let d = scratch_dir();
    let db = d.path().join("h.db");
    let mut files = Vec::new();
    for i in 0..21u32 {
        let started = format!("2026-11-{:02}T10:00:00Z", i + 1);
        files.push(results_file(
            d.path(),
            &format!("r{i}.json"),
            &started,
            1.0,
            |_| {},
        ));
    }
    let o = pb()
        .args(["history", "import", "--history"])
        .arg(&db)
        .args(&files)
        .output()
        .unwrap();
    assert_success(&o, "import");
    let page = d.path().join("h.html");
    let o = hist(&db, &["show", "--html", page.to_str().unwrap()]);
    assert_success(&o, "show --html");
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains(" · 21 runs · "), "header");
    // The first chart's axis: labels like 11-01 10:00.
    let chart = html.split("</svg>").next().unwrap();
    let labels = chart.matches(" 10:00</text>").count();
    assert!((1..=10).contains(&labels), "{labels} labels");
}
