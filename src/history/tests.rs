//! The history database: schema and migrations, recording (idempotent), concurrent
//! writers, refusals of foreign and newer databases, and the queries.

use super::record::Recorded;
use super::*;
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

#[test]
fn a_new_database_is_migrated_from_version_0_to_current() {
    let d = scratch_dir();
    let p = d.path().join("h.db");
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
        let n: i64 = h
            .conn
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE name = ?1",
                [t],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(n, 1, "{t}");
    }
    drop(h);
    // Opening again changes nothing.
    let h = open(&p).unwrap();
    assert_eq!(schema::version(&h.conn).unwrap(), schema::CURRENT);
}

#[test]
fn a_report_is_recorded_once_and_reads_back_whole() {
    let d = scratch_dir();
    let p = d.path().join("h.db");
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
    let d = scratch_dir();
    let mut h = open(&d.path().join("h.db")).unwrap();
    for day in 1..=10u32 {
        let level = if day <= 5 { 100.0 } else { 70.0 };
        let r = report(&format!("2026-11-{day:02}T10:00:00Z"), level, day == 3);
        h.record_file(&r, None).unwrap();
    }
    let all = h.runs(&Filter::default()).unwrap();
    assert_eq!(all.len(), 10);
    let since = Filter {
        since: Some(record::unix("2026-11-06T00:00:00Z")),
        ..Filter::default()
    };
    assert_eq!(h.runs(&since).unwrap().len(), 5);
    let none = Filter {
        command: Some("no-such-command".into()),
        ..Filter::default()
    };
    assert!(h.runs(&none).unwrap().is_empty());
    let keys = h.case_keys(&Filter::default(), None).unwrap();
    assert!(!keys.is_empty());
    let s = h.case_series(&Filter::default(), &keys[0]).unwrap();
    assert_eq!(s.len(), 1);
    assert_eq!(s[0].points.len(), 10);
    assert!(s[0].points[2].disturbed);
    let at: Vec<usize> = s[0].change_points.iter().map(|c| c.index).collect();
    assert_eq!(
        at,
        vec![5],
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
    let d = scratch_dir();
    let p = d.path().join("h.db");
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
    assert_eq!(h.runs(&Filter::default()).unwrap().len(), 20);
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
