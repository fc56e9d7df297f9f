//! The history database: schema and migrations, recording (idempotent), concurrent
//! writers, refusals of foreign and newer databases, and the queries.

use super::record::Recorded;
use super::*;
#[allow(unused_imports)]
use super::{manage, record};
use crate::report::model::Status;
use crate::util::scratch::scratch_dir;

/// The sample report of mixed cases at `started`, each measured case's samples around `level`.
fn report(started: &str, level: f64, disturbed: bool) -> Report {
    let mut r = crate::report::samples::mixed();
    r.started_at = started.to_string();
    r.finished_at = Some(started.to_string());
    for res in &mut r.results {
        if res.status == Status::Ok {
            res.samples = vec![level, level * 1.01, level * 0.99];
            if let Some(s) = res.summary.as_mut() {
                s.mean = level;
            }
            res.disturbed = disturbed;
        }
    }
    r
}

/// A scratch directory and the path of a database `h.db` in it (not created yet).
fn scratch_db() -> (tempfile::TempDir, std::path::PathBuf) {
    let d = scratch_dir();
    let p = d.path().join("h.db");
    (d, p)
}

/// How many runs `h` holds.
fn run_count(h: &History) -> usize {
    h.runs(&Filter::default()).unwrap().len()
}

/// Every case's host, key and value, in run and case order.
fn case_rows(c: &rusqlite::Connection) -> Vec<(String, String, Option<f64>)> {
    c.prepare("SELECT host, key, value FROM cases ORDER BY run_id, idx")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

/// The count `sql` (a `SELECT count(*)`) reads with its parameters `p`.
fn count(h: &History, sql: &str, p: impl rusqlite::Params) -> i64 {
    h.conn.query_row(sql, p, |r| r.get(0)).unwrap()
}

#[test]
fn a_new_database_is_migrated_from_version_0_to_current() {
    let (_d, p) = scratch_db();
    // Version 0: an empty SQLite database, as `sqlite3 h.db 'VACUUM'` leaves it.
    rusqlite::Connection::open(&p)
        .unwrap()
        .execute_batch("VACUUM")
        .unwrap();
    let h = open(&p).unwrap();
    assert_eq!(schema::version(&h.conn).unwrap(), schema::CURRENT);
    let app: i32 = h
        .conn
        .pragma_query_value(None, "application_id", |r| r.get(0))
        .unwrap();
    assert_eq!(app, schema::APPLICATION_ID);
    let mode: String = h
        .conn
        .pragma_query_value(None, "journal_mode", |r| r.get(0))
        .unwrap();
    assert_eq!(mode, "wal");
    for t in ["hosts", "runs", "cases"] {
        let n = count(
            &h,
            "SELECT count(*) FROM sqlite_master WHERE name = ?1",
            [t],
        );
        assert_eq!(n, 1, "{t}");
    }
    drop(h);
    // Opening again changes nothing.
    let h = open(&p).unwrap();
    assert_eq!(schema::version(&h.conn).unwrap(), schema::CURRENT);
}

#[test]
fn a_report_is_recorded_once_and_reads_back_whole() {
    let (_d, p) = scratch_db();
    let mut h = open(&p).unwrap();
    let r = report("2026-11-20T10:00:00Z", 100.0, false);
    let id = match h.record_live(&r, None).unwrap() {
        Recorded::New(id) => id,
        other => panic!("{other:?}"),
    };
    assert_eq!(h.record_file(&r, None).unwrap(), Recorded::Already(id));
    let runs = h.runs(&Filter::default()).unwrap();
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0].cases as usize, r.results.len());
    assert_eq!(h.report(id).unwrap(), r);
    let host = r.host.hostname.clone();
    assert_eq!(h.latest_runs(&host, None, 5).unwrap(), vec![r.clone()]);
    assert!(h.latest_runs("no-such-host", None, 5).unwrap().is_empty());
    // Samples and verdicts are stored per case.
    let (samples, disturbed): (String, bool) = h
        .conn
        .query_row(
            "SELECT samples, disturbed FROM cases WHERE run_id = ?1 AND status = 'ok' LIMIT 1",
            [id],
            |q| Ok((q.get(0)?, q.get(1)?)),
        )
        .unwrap();
    assert_eq!(samples, "[100.0,101.0,99.0]");
    assert!(!disturbed);
}

#[test]
fn filters_and_series_with_a_change_point() {
    let (_d, p) = scratch_db();
    let mut h = open(&p).unwrap();
    // Seven runs each side (one disturbed): a few runs fewer cannot reach p < 0.01 by
    // shuffling whole runs.
    for day in 1..=14u32 {
        let level = if day <= 7 { 100.0 } else { 70.0 };
        let r = report(&format!("2026-11-{day:02}T10:00:00Z"), level, day == 3);
        h.record_file(&r, None).unwrap();
    }
    let all = h.runs(&Filter::default()).unwrap();
    assert_eq!(all.len(), 14);
    let since = Filter {
        since: Some(record::unix("2026-11-06T00:00:00Z")),
        ..Filter::default()
    };
    assert_eq!(h.runs(&since).unwrap().len(), 9);
    let none = Filter {
        command: Some("no-such-command".into()),
        ..Filter::default()
    };
    assert!(h.runs(&none).unwrap().is_empty());
    let keys = h.case_keys(&Filter::default(), None).unwrap();
    assert!(!keys.is_empty());
    let s = h.case_series(&Filter::default(), &keys[0]).unwrap();
    assert_eq!(s.len(), 1);
    assert_eq!(s[0].points.len(), 14);
    assert!(s[0].points[2].disturbed);
    let at: Vec<usize> = s[0].change_points.iter().map(|c| c.index).collect();
    assert_eq!(
        at,
        vec![7],
        "{:?} {:?}",
        s[0].change_points,
        s[0].points
            .iter()
            .map(|p| (p.value, p.disturbed, p.samples.clone()))
            .collect::<Vec<_>>()
    );
}

#[test]
fn foreign_corrupt_and_newer_databases_are_refused_unchanged() {
    let d = scratch_dir();
    // Not SQLite at all.
    let junk = d.path().join("junk.db");
    std::fs::write(&junk, b"this is not a database, just text\n".repeat(200)).unwrap();
    let e = open(&junk).map(drop).unwrap_err().to_string();
    assert!(e.contains("not a SQLite database"), "{e}");
    assert_eq!(
        std::fs::read(&junk).unwrap(),
        b"this is not a database, just text\n".repeat(200)
    );
    // Another program's SQLite database.
    let other = d.path().join("other.db");
    rusqlite::Connection::open(&other)
        .unwrap()
        .execute_batch("CREATE TABLE t(x); INSERT INTO t VALUES (1);")
        .unwrap();
    let e = open(&other).map(drop).unwrap_err().to_string();
    assert!(e.contains("another program"), "{e}");
    // A newer peakbench's.
    let newer = d.path().join("newer.db");
    drop(open(&newer).unwrap());
    rusqlite::Connection::open(&newer)
        .unwrap()
        .pragma_update(None, "user_version", schema::CURRENT + 1)
        .unwrap();
    let e = open(&newer).map(drop).unwrap_err().to_string();
    assert!(e.contains("newer peakbench"), "{e}");
    // Missing, for the reading commands.
    let e = open_existing(&d.path().join("none.db"))
        .map(drop)
        .unwrap_err();
    assert!(matches!(e, HistoryError::Missing(_)), "{e}");
    assert!(!d.path().join("none.db").exists());
}

#[test]
fn concurrent_writers_on_one_database_all_land() {
    let (_d, p) = scratch_db();
    let threads: Vec<_> = (0..4)
        .map(|t| {
            let p = p.clone();
            std::thread::spawn(move || {
                for i in 0..5 {
                    // Each thread opens its own connection, as separate runs do.
                    let mut h = open(&p).unwrap();
                    let r = report(
                        &format!("2026-11-{:02}T10:{t:02}:{i:02}Z", i + 1),
                        50.0 + t as f64,
                        false,
                    );
                    assert!(matches!(h.record_live(&r, None).unwrap(), Recorded::New(_)));
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let h = open(&p).unwrap();
    assert_eq!(run_count(&h), 20);
}

#[test]
fn an_explicit_path_is_checked_without_leaving_anything() {
    let d = scratch_dir();
    let fresh = d.path().join("new.db");
    check_target(&fresh).unwrap();
    assert!(!fresh.exists());
    assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 0);
    let e = check_target(&d.path().join("no-dir/h.db")).unwrap_err();
    assert!(e.contains("cannot create"), "{e}");
    let e = check_target(d.path()).unwrap_err();
    assert!(e.contains("is a directory"), "{e}");
    let junk = d.path().join("junk.db");
    std::fs::write(&junk, b"x".repeat(4096)).unwrap();
    assert!(check_target(&junk).is_err());
}

#[test]
fn the_default_path_follows_xdg_then_home() {
    // Read only: the process environment is not changed (tests run in parallel).
    if let Some(p) = default_path() {
        assert!(p.ends_with("peakbench/history.db"), "{}", p.display());
    }
}

/// The schema of version 1 (main before issue #43) with `r` recorded the way it was
/// then: texts in every case row.
fn v1_database(p: &std::path::Path, runs: &[Report]) {
    let c = rusqlite::Connection::open(p).unwrap();
    c.execute_batch(schema::MIGRATIONS[0]).unwrap();
    c.pragma_update(None, "application_id", schema::APPLICATION_ID)
        .unwrap();
    c.pragma_update(None, "user_version", 1).unwrap();
    c.execute(
        "INSERT INTO hosts (id, fingerprint, hostname, identity) VALUES (1, 'f', ?1, '{}')",
        [&runs[0].host.hostname],
    )
    .unwrap();
    for (n, r) in runs.iter().enumerate() {
        let json = serde_json::to_string(r).unwrap();
        c.execute(
            "INSERT INTO runs (digest, host_id, hostname, command, started_at, started_unix,
                               finished_at, tool_version, settings, gathered, source,
                               recorded_at, report)
             VALUES (?1, 1, ?2, 'quick', ?3, ?4, ?3, ?5, ?6, 0, NULL, '2026-11-27T00:00:00Z', ?7)",
            rusqlite::params![
                record::digest(r).unwrap(),
                r.host.hostname,
                r.started_at,
                record::unix(&r.started_at),
                r.tool_version,
                record::settings(r).to_string(),
                json
            ],
        )
        .unwrap();
        for (i, res) in r.results.iter().enumerate() {
            c.execute(
                "INSERT INTO cases VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, '{}', ?9, ?10, ?10,
                                           0, ?11, NULL, NULL, 0, ?12, 0, ?13)",
                rusqlite::params![
                    n as i64 + 1,
                    i as i64,
                    r.host.hostname,
                    crate::report::compare::CaseKey::of(res).label(),
                    res.resource.to_string(),
                    res.workload,
                    res.metric.to_string(),
                    res.unit.to_string(),
                    if res.status == Status::Ok {
                        "ok"
                    } else {
                        "skipped"
                    },
                    res.summary.as_ref().map(|s| s.mean),
                    res.samples.len() as i64,
                    res.disturbed,
                    serde_json::to_string(&res.samples).unwrap(),
                ],
            )
            .unwrap();
        }
    }
}

/// Issue #43 item 2: a database of the schema before (version 1) is migrated by the
/// first writer; its runs and cases read as before; a reader meanwhile says in one
/// line that the schema is older, and changes nothing.
#[test]
fn a_version_1_database_migrates_and_reads_the_same() {
    let (_d, p) = scratch_db();
    let runs: Vec<Report> = (1..=12u32)
        .map(|day| {
            let level = if day <= 6 { 100.0 } else { 70.0 };
            report(&format!("2026-11-{day:02}T10:00:00Z"), level, false)
        })
        .collect();
    v1_database(&p, &runs);
    let e = open_existing(&p).map(drop).unwrap_err().to_string();
    assert!(e.contains("schema version 1, older"), "{e}");
    let c = rusqlite::Connection::open(&p).unwrap();
    assert_eq!(schema::version(&c).unwrap(), 1);
    let before = case_rows(&c);
    drop(c);
    let h = open(&p).unwrap();
    assert_eq!(schema::version(&h.conn).unwrap(), schema::CURRENT);
    let after = case_rows(&h.conn);
    assert_eq!(before, after);
    assert_eq!(run_count(&h), 12);
    assert_eq!(h.report(1).unwrap(), runs[0]);
    let key = &h.case_keys(&Filter::default(), None).unwrap()[0];
    let s = h.case_series(&Filter::default(), key).unwrap();
    assert_eq!(s[0].points.len(), 12);
    assert_eq!(s[0].change_points.len(), 1, "{:?}", s[0].change_points);
    drop(h);
    // Now a reader opens it.
    let r = open_existing(&p).unwrap();
    assert_eq!(run_count(&r), 12);
}

/// Issue #43 item 2: a 1 MiB host name over 500 cases is stored once, not per case;
/// the database stays within a few times the file; one run past the limits is
/// refused in one line and adds nothing.
#[test]
fn an_amplifying_report_is_bounded() {
    let (d, p) = scratch_db();
    let mut r = report("2026-11-20T10:00:00Z", 100.0, false);
    r.host.hostname = "h".repeat(1 << 20);
    let first = r.results[0].clone();
    r.results = (0..500)
        .map(|i| {
            let mut x = first.clone();
            x.workload = format!("w{i}");
            x
        })
        .collect();
    let file_size = serde_json::to_string(&r).unwrap().len() as u64;
    let mut h = open(&p).unwrap();
    h.record_file(&r, None).unwrap();
    drop(h);
    let size: u64 = ["h.db", "h.db-wal"]
        .iter()
        .filter_map(|f| std::fs::metadata(d.path().join(f)).ok())
        .map(|m| m.len())
        .sum();
    assert!(
        size < 10 * file_size,
        "a {file_size}-byte report made a {size}-byte database"
    );
    let mut h = open(&p).unwrap();
    let texts = count(
        &h,
        "SELECT count(*) FROM texts WHERE length(text) >= 1048576",
        [],
    );
    assert_eq!(texts, 1);
    h.limits = record::Limits {
        bytes: 1 << 20,
        cases: 100,
    };
    r.started_at = "2026-11-21T10:00:00Z".into();
    let e = h.record_file(&r, None).unwrap_err().to_string();
    assert!(e.contains("500 cases; one run adds at most 100"), "{e}");
    r.results.truncate(50);
    let e = h.record_file(&r, None).unwrap_err().to_string();
    assert!(e.contains("one run adds at most 1 MiB"), "{e}");
    assert!(!e.contains('\n'));
    assert_eq!(run_count(&h), 1);
}

/// Issue #43 item 3: figures no machine could measure are refused, nothing recorded.
#[test]
fn impossible_figures_are_not_recorded() {
    let (_d, p) = scratch_db();
    let mut h = open(&p).unwrap();
    for x in [-5.0, 1e30] {
        let mut r = report("2026-11-20T10:00:00Z", 100.0, false);
        let ok = r
            .results
            .iter_mut()
            .find(|x| x.status == Status::Ok)
            .unwrap();
        ok.samples[0] = x;
        let e = h.record_file(&r, None).unwrap_err().to_string();
        assert!(e.contains("not a measurement"), "{e}");
    }
    assert!(h.runs(&Filter::default()).unwrap().is_empty());
}

/// Issue #43 item 4: a run dated 2099 is marked and never the latest; the newest
/// recorded is.
#[test]
fn a_future_dated_run_is_marked_and_never_the_latest() {
    let (_d, p) = scratch_db();
    let mut h = open(&p).unwrap();
    let future = report("2099-01-01T00:00:00Z", 100.0, false);
    assert!(record::ahead(&future, record::now_unix()).is_some());
    let f = h.record_file(&future, None).unwrap().id();
    let now = report("2026-11-20T10:00:00Z", 90.0, false);
    assert_eq!(record::ahead(&now, record::now_unix()), None);
    let n = h.record_file(&now, None).unwrap().id();
    let rows = h.runs(&Filter::default()).unwrap();
    assert_eq!(
        rows.iter().map(|r| (r.id, r.future)).collect::<Vec<_>>(),
        [(n, false), (f, true)]
    );
    assert_eq!(h.latest_row(&Filter::default()).unwrap().unwrap().id, n);
    let host = now.host.hostname.clone();
    assert_eq!(h.latest_runs(&host, None, 1).unwrap(), vec![now]);
}

/// Issue #43 item 6: a reader opens read-only (no WAL switch, no migration) and
/// reads while another connection holds the write lock, without waiting for it.
#[test]
fn a_reader_reads_behind_a_held_write_lock() {
    let (_d, p) = scratch_db();
    let mut h = open(&p).unwrap();
    h.record_file(&report("2026-11-20T10:00:00Z", 100.0, false), None)
        .unwrap();
    h.conn
        .execute_batch("BEGIN IMMEDIATE; DELETE FROM tags;")
        .unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let q = p.clone();
    std::thread::spawn(move || {
        let r = open_existing(&q).and_then(|h| h.runs(&Filter::default()));
        let _ = tx.send(r.map(|v| v.len()).map_err(|e| e.to_string()));
    });
    // The busy timeout is 30 s: a reader that waited for the lock would not be back.
    let got = rx.recv_timeout(std::time::Duration::from_secs(20));
    h.conn.execute_batch("ROLLBACK").unwrap();
    assert_eq!(got.expect("the reader waited for the writer"), Ok(1));
    // The reader's connection cannot write.
    let r = open_existing(&p).unwrap();
    assert!(r.conn.execute_batch("DELETE FROM tags").is_err());
}

/// Issue #44 item 9: tags, delete (all or none) and prune.
#[test]
fn tag_delete_and_prune() {
    let (_d, p) = scratch_db();
    let mut h = open(&p).unwrap();
    for day in 1..=6u32 {
        h.record_file(
            &report(&format!("2026-11-{day:02}T10:00:00Z"), 100.0, false),
            None,
        )
        .unwrap();
    }
    h.tag(
        2,
        &[
            ("note".into(), "after BIOS update".into()),
            ("x".into(), "1".into()),
        ],
    )
    .unwrap();
    h.tag(2, &[("x".into(), String::new())]).unwrap();
    let rows = h.runs(&Filter::default()).unwrap();
    assert_eq!(
        rows[1].tags.get("note").map(String::as_str),
        Some("after BIOS update")
    );
    assert_eq!(rows[1].tags.len(), 1);
    assert!(matches!(h.tag(99, &[]), Err(HistoryError::NoRun(_, 99))));
    // One missing id: nothing removed.
    assert!(matches!(
        h.delete(&[1, 99]),
        Err(HistoryError::NoRun(_, 99))
    ));
    assert_eq!(run_count(&h), 6);
    assert_eq!(h.delete(&[2]).unwrap(), 1);
    assert!(h.tags().unwrap().is_empty());
    // Keep the newest 2 (runs 5 and 6), of those left: 1, 3, 4 go.
    let keep = manage::Prune {
        keep: Some(2),
        before: None,
    };
    assert_eq!(
        h.prune_pick(&Filter::default(), keep).unwrap(),
        vec![1, 3, 4]
    );
    let old = manage::Prune {
        keep: Some(1),
        before: Some(record::unix("2026-11-04T00:00:00Z")),
    };
    assert_eq!(h.prune_pick(&Filter::default(), old).unwrap(), vec![1, 3]);
    let ids = h.prune_pick(&Filter::default(), keep).unwrap();
    assert_eq!(h.delete(&ids).unwrap(), 3);
    let left: Vec<i64> = h
        .runs(&Filter::default())
        .unwrap()
        .iter()
        .map(|r| r.id)
        .collect();
    assert_eq!(left, vec![5, 6]);
    // The texts of the cases are still those the runs left refer to.
    let orphans = count(
        &h,
        "SELECT count(*) FROM case_rows c LEFT JOIN texts t ON t.id = c.key_t WHERE t.id IS NULL",
        [],
    );
    assert_eq!(orphans, 0);
}

/// Issue #44 item 6: runs whose settings change the figure (`--repeat 5` beside
/// `--repeat 3`) are two series, each named by what sets it apart.
#[test]
fn runs_of_other_figure_settings_are_other_series() {
    let (_d, p) = scratch_db();
    let mut h = open(&p).unwrap();
    for day in 1..=4u32 {
        let mut r = report(&format!("2026-11-{day:02}T10:00:00Z"), 100.0, false);
        let repeat = if day % 2 == 0 { 5 } else { 3 };
        r.config = serde_json::json!({"repeat": repeat, "format": format!("f{day}"),
                                      "command": {"command": "quick"}});
        h.record_file(&r, None).unwrap();
    }
    let key = &h.case_keys(&Filter::default(), None).unwrap()[0];
    let s = h.case_series(&Filter::default(), key).unwrap();
    let got: Vec<(String, usize)> = s
        .iter()
        .map(|c| (c.settings.clone(), c.points.len()))
        .collect();
    assert_eq!(
        got,
        [("repeat=3".to_string(), 2), ("repeat=5".to_string(), 2)]
    );
}

/// Issue #44 item 7: the change points inside a stretch of runs are named, so that
/// `baseline --from-history` never spans one silently.
#[test]
fn changes_after_names_the_change_points_inside_the_runs_taken() {
    let (_d, p) = scratch_db();
    let mut h = open(&p).unwrap();
    let mut r0 = None;
    for day in 1..=20u32 {
        let level = if day <= 13 { 100.0 } else { 70.0 };
        let r = report(&format!("2026-11-{day:02}T10:00:00Z"), level, false);
        r0.get_or_insert_with(|| r.clone());
        h.record_file(&r, None).unwrap();
    }
    let r0 = r0.unwrap();
    let host = &r0.host.hostname;
    let cmd = record::command(&r0);
    // Runs from day 13 on span the change at day 14.
    let since = record::unix("2026-11-13T10:00:00Z");
    let lines = h.changes_after(host, &cmd, since, 100).unwrap();
    assert!(!lines.is_empty());
    assert!(
        lines.iter().all(|l| l.contains("-30.0 % at run 14")),
        "{lines:?}"
    );
    // Runs from day 14 on do not.
    let since = record::unix("2026-11-14T10:00:00Z");
    assert!(h.changes_after(host, &cmd, since, 100).unwrap().is_empty());
    let capped = h.changes_after(host, &cmd, 0, 1).unwrap();
    assert!(capped.len() <= 2);
}
