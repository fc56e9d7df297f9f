//! The gate as an operator leaves it running (issue #44 items 2-6, #43 item 9), on
//! synthetic series: real results files (the fixture run) with their samples scaled,
//! imported into a history of the test's own. A regression that stays failed night
//! after night until a person accepts it, a fixed reference by run id, tolerances that
//! cannot be made to pass everything, the disturbed-evidence exit code, a baseline
//! taken on a shared machine, references keyed by the settings that change a figure,
//! and `check` without a results file taking the baseline's command.

use super::gate::{check, fixture, run_file, verdict, T1};
use super::gate_history::{import, scaled_run};
use crate::common;
use serde_json::Value;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// `check --format json --history DB ARGS…`: exit code, JSON, stderr.
fn check_db(db: &Path, args: &[&OsStr]) -> (i32, Value, String) {
    let mut a: Vec<&OsStr> = vec!["--history".as_ref(), db.as_os_str()];
    a.extend_from_slice(args);
    check(&a)
}

/// Night `i` of November (`2026-11-DDT02:00:00Z`).
fn night(i: usize) -> String {
    format!("2026-11-{:02}T02:00:00Z", i + 1)
}

/// The drop that stays failed: six good nights, then every night at half the speed.
/// Each such night fails (exit 1), however many of them the history holds, where a
/// rolling window of five would pass from the fourth on; `--accept` moves the
/// reference, and the next night passes; a fixed reference (`--against run:…`) still
/// sees the drop.
#[test]
fn a_drop_stays_failed_until_a_person_accepts_it() {
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("h.db");
    let good: Vec<PathBuf> = (0..6)
        .map(|i| {
            let f = 1.0 + 0.003 * (i % 3) as f64;
            scaled_run(d.path(), &format!("g{i}.json"), f, &night(i))
        })
        .collect();
    let refs: Vec<&Path> = good.iter().map(PathBuf::as_path).collect();
    import(&db, &refs);
    let mut last = PathBuf::new();
    for i in 6..14 {
        let run = scaled_run(d.path(), &format!("n{i}.json"), 0.5, &night(i));
        let (code, v, err) = check_db(
            &db,
            &[
                "--against".as_ref(),
                "history".as_ref(),
                "--allow-inconclusive".as_ref(),
                run.as_os_str(),
            ],
        );
        assert_eq!(code, 1, "night {i}: {v}\n{err}");
        assert_eq!(verdict(&v, "fma_f64_avx512", T1), "regressed", "night {i}");
        if i > 6 {
            assert!(
                err.contains("held out of the reference"),
                "night {i}: {err}"
            );
        }
        import(&db, &[&run]);
        last = run;
    }
    // A person accepts the new level: the last night starts the reference.
    let o = common::pb()
        .args(["check", "--against", "history", "--accept", "--history"])
        .arg(&db)
        .arg(&last)
        .output()
        .unwrap();
    let said = common::success_text(&o, "check --accept");
    assert!(
        said.starts_with("accepted: quick run 14 of fixture-host"),
        "{said}"
    );
    assert!(d.path().join("h.accepted.toml").is_file());
    let next = scaled_run(d.path(), "n14.json", 0.5, &night(14));
    let (code, v, err) = check_db(
        &db,
        &[
            "--against".as_ref(),
            "history".as_ref(),
            "--allow-inconclusive".as_ref(),
            next.as_os_str(),
        ],
    );
    assert_eq!(code, 0, "{v}\n{err}");
    assert!(
        v["baseline"].as_str().unwrap().contains("since run 14"),
        "{v}"
    );
    // The fixed reference before the drop never moves.
    let (code, v, err) = check_db(
        &db,
        &["--against".as_ref(), "run:1,2,3".as_ref(), next.as_os_str()],
    );
    assert_eq!(code, 1, "{v}\n{err}");
    assert!(
        v["baseline"]
            .as_str()
            .unwrap()
            .contains("fixed runs 1, 2, 3"),
        "{v}"
    );
    // Refusals: an absent run, --accept of a file the history does not hold.
    let o = common::pb()
        .args(["check", "--against", "run:99", "--history"])
        .arg(&db)
        .arg(&next)
        .output()
        .unwrap();
    common::assert_refused(&o, &"run:99", &["--against: ", "holds no run 99"]);
    let o = common::pb()
        .args(["check", "--against", "history", "--accept", "--history"])
        .arg(&db)
        .arg(&next)
        .output()
        .unwrap();
    common::assert_refused(
        &o,
        &"accept unrecorded",
        &["--accept: ", "only a recorded run can be accepted"],
    );
}

/// Bounded tolerances: three hosts at 10, 100 and 1000 make a baseline whose bound is
/// half the median, never negative, which `check` reads (never exit 2 every night);
/// a run at a thousandth of the median regresses.
#[test]
fn a_spread_fleet_baseline_is_bounded_and_checkable() {
    let d = tempfile::tempdir().unwrap();
    let hosts: Vec<PathBuf> = [("n1", 0.1), ("n2", 1.0), ("n3", 10.0)]
        .iter()
        .map(|(h, f)| {
            let p = scaled_run(d.path(), &format!("{h}.json"), *f, "2026-11-20T10:00:00Z");
            let mut v: Value = serde_json::from_slice(&std::fs::read(&p).unwrap()).unwrap();
            v["host"]["hostname"] = (*h).into();
            std::fs::write(&p, serde_json::to_vec(&v).unwrap()).unwrap();
            p
        })
        .collect();
    let b = d.path().join("b.toml");
    let o = common::pb()
        .arg("baseline")
        .arg("--from")
        .args(&hosts)
        .arg("-o")
        .arg(&b)
        .output()
        .unwrap();
    common::assert_success(&o, "baseline from spread hosts");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("capped: ") && err.contains("capped at 50 %"),
        "{err}"
    );
    let text = std::fs::read_to_string(&b).unwrap();
    assert!(text.contains("tolerance = \"50%\""), "{text}");
    let slow = scaled_run(d.path(), "slow.json", 0.001, "2026-11-21T10:00:00Z");
    let (code, v, err) = check(&["--baseline".as_ref(), b.as_os_str(), slow.as_os_str()]);
    assert_eq!(code, 1, "{v}\n{err}");
    assert_eq!(verdict(&v, "fma_f64_avx512", T1), "regressed");
}

/// Disturbed evidence: every case disturbed, the figures halved: exit 3, never 0;
/// and a baseline on a shared machine is refused unless asked for, then says so.
#[test]
fn disturbed_evidence_is_a_distinct_exit_and_a_shared_baseline_says_so() {
    let d = tempfile::tempdir().unwrap();
    let disturbed = |name: &str, f: f64| {
        run_file(d.path(), name, |v| {
            for r in v["results"].as_array_mut().unwrap() {
                for s in r["samples"].as_array_mut().unwrap() {
                    *s = (s.as_f64().unwrap() * f).into();
                }
                r["disturbed"] = true.into();
            }
        })
    };
    let shared = disturbed("shared.json", 1.0);
    let out = d.path().join("b.toml");
    let o = common::pb()
        .args(["baseline", "--from"])
        .arg(&shared)
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    common::assert_refused(&o, &"shared", &["--from: ", "--allow-disturbed"]);
    assert!(!out.exists());
    let o = common::pb()
        .args(["baseline", "--allow-disturbed", "--from"])
        .arg(&shared)
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    common::assert_success(&o, "baseline --allow-disturbed");
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(
        text.contains("shared = true") && text.contains("SHARED MACHINE"),
        "{text}"
    );
    let b = super::gate::baseline_of(d.path(), &fixture());
    let halved = disturbed("halved.json", 0.5);
    let (code, v, err) = check(&["--baseline".as_ref(), b.as_os_str(), halved.as_os_str()]);
    assert_eq!(code, 3, "{v}\n{err}");
    assert_eq!(v["outcome"], "inconclusive");
    assert!(err.starts_with("INCONCLUSIVE: 5 cases"), "{err}");
    let (code, _, _) = check(&[
        "--baseline".as_ref(),
        b.as_os_str(),
        halved.as_os_str(),
        "--strict".as_ref(),
    ]);
    assert_eq!(code, 1);
    let (code, v, _) = check(&[
        "--baseline".as_ref(),
        out.as_os_str(),
        fixture().as_os_str(),
    ]);
    assert!(
        v["notes"].to_string().contains("taken on a shared machine"),
        "{code} {v}"
    );
}

/// References keyed by the settings that change a figure: a run that only added
/// `--prom-file` and `--quiet` is part of the reference, and a run of fewer threads is
/// checked against those cases of the history, none missing.
#[test]
fn references_are_keyed_by_the_settings_that_change_a_figure() {
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("h.db");
    let a1 = scaled_run(d.path(), "a1.json", 1.0, "2026-11-20T10:00:00Z");
    let a2 = run_file(d.path(), "a2.json", |v| {
        v["started_at"] = "2026-11-21T10:00:00Z".into();
        v["config"]["prom_file"] = "/var/lib/node_exporter/textfile_collector/pb.prom".into();
        v["config"]["quiet"] = true.into();
        v["config"]["format"] = "json".into();
    });
    import(&db, &[&a1, &a2]);
    let one = run_file(d.path(), "one.json", |v| {
        v["started_at"] = "2026-11-22T10:00:00Z".into();
        v["results"]
            .as_array_mut()
            .unwrap()
            .retain(|r| r["params"]["threads"] == 1);
    });
    let (code, v, err) = check_db(
        &db,
        &["--against".as_ref(), "history".as_ref(), one.as_os_str()],
    );
    assert_eq!(code, 0, "{v}\n{err}");
    assert!(!err.contains("other settings"), "{err}");
    assert!(
        v["baseline"].as_str().unwrap().contains("(runs 1, 2)"),
        "{v}"
    );
    assert_eq!(v["counts"]["missing"], 0, "{v}");
    assert_eq!(v["cases"].as_array().unwrap().len(), 2, "{v}");
}

/// `check --baseline B` without a results file takes this host's latest run of the
/// baseline's command, not a later run of another command.
#[test]
fn without_a_results_file_the_latest_run_of_the_baselines_command() {
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("h.db");
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|s| s.trim().to_string())
        .unwrap_or_default();
    if host.is_empty() {
        eprintln!("skipping: no /proc/sys/kernel/hostname");
        return;
    }
    let mine = |name: &str, command: &str, f: f64, started: &str| {
        let p = scaled_run(d.path(), name, f, started);
        let mut v: Value = serde_json::from_slice(&std::fs::read(&p).unwrap()).unwrap();
        v["host"]["hostname"] = host.clone().into();
        v["config"]["command"]["command"] = command.into();
        std::fs::write(&p, serde_json::to_vec(&v).unwrap()).unwrap();
        p
    };
    let quick = mine("q.json", "quick", 1.0, "2026-11-20T10:00:00Z");
    let cpu = mine("c.json", "cpu", 0.3, "2026-11-21T10:00:00Z");
    import(&db, &[&quick, &cpu]);
    let b = super::gate::baseline_of(d.path(), &quick);
    assert!(std::fs::read_to_string(&b)
        .unwrap()
        .contains("command = \"quick\""));
    let (code, v, err) = check_db(
        &db,
        &[
            "--baseline".as_ref(),
            b.as_os_str(),
            "--allow-inconclusive".as_ref(),
        ],
    );
    assert_eq!(code, 0, "{v}\n{err}");
    assert!(v["results"].as_str().unwrap().contains("run 1 ("), "{v}");
}
