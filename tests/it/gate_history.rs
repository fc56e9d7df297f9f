//! CLI tests of the gate against the run history (`check --against history`,
//! `baseline --from-history`): the reference is the host's last runs imported with
//! `peakbench history import`; a further run passes, fails when the history is raised,
//! and bad databases, too few runs and conflicting flags are one line with exit code 2.
//! The fixtures and helpers are [`super::gate`]'s. Nothing here checks speed.

use super::gate::{check, pb, run_file, verdict, xml_parses, T1};
use crate::common;

use serde_json::Value;
use std::path::{Path, PathBuf};

/// The fixture run, every figure (samples and summary) scaled by `f`, started at
/// `started`, written into `dir` as `name`: a run of the history to import.
pub fn scaled_run(dir: &Path, name: &str, f: f64, started: &str) -> PathBuf {
    run_file(dir, name, |v| {
        v["started_at"] = started.into();
        for r in v["results"].as_array_mut().unwrap() {
            for s in r["samples"].as_array_mut().unwrap() {
                *s = (s.as_f64().unwrap() * f).into();
            }
            if let Some(sm) = r["summary"].as_object_mut() {
                for k in [
                    "mean",
                    "sd",
                    "min",
                    "max",
                    "median",
                    "ci95_low",
                    "ci95_high",
                ] {
                    if let Some(x) = sm.get(k).and_then(Value::as_f64) {
                        sm.insert(k.into(), (x * f).into());
                    }
                }
            }
        }
    })
}

/// `peakbench history import FILES --history DB`, asserting success.
pub fn import(db: &Path, files: &[&Path]) {
    import_output(db, files);
}

/// Imports one file and returns what `history import` printed.
fn import_says(db: &Path, file: &Path) -> String {
    String::from_utf8_lossy(&import_output(db, &[file]).stdout).into_owned()
}

fn import_output(db: &Path, files: &[&Path]) -> std::process::Output {
    let o = pb()
        .args(["history", "import"])
        .args(files)
        .arg("--history")
        .arg(db)
        .output()
        .unwrap();
    common::assert_success(&o, "history import");
    o
}

/// `check --against history`: the reference is the host's last runs in the history,
/// taken as `baseline --from` takes its files; a further run passes, fails (exit 1,
/// a JUnit failure naming the case and the figures) when the history's runs are
/// raised beyond the tolerance, and a disturbed case is inconclusive.
#[test]
fn against_history_passes_the_next_run_and_fails_when_the_history_is_raised() {
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("h.db");
    let a1 = scaled_run(d.path(), "a1.json", 1.0, "2026-11-20T10:00:00Z");
    let a2 = scaled_run(d.path(), "a2.json", 1.01, "2026-11-21T10:00:00Z");
    import(&db, &[&a1, &a2]);
    let next = scaled_run(d.path(), "next.json", 0.99, "2026-11-22T10:00:00Z");
    let junit = d.path().join("check.xml");
    let hist = ["--allow-inconclusive", "--against", "history", "--history"];
    let args = |extra: &[&std::ffi::OsStr]| -> Vec<std::ffi::OsString> {
        let mut v: Vec<std::ffi::OsString> = hist.iter().map(Into::into).collect();
        v.push(db.clone().into());
        v.extend(extra.iter().map(|s| s.to_os_string()));
        v
    };
    let run = |extra: &[&std::ffi::OsStr]| {
        let a = args(extra);
        let refs: Vec<&std::ffi::OsStr> = a.iter().map(|s| s.as_os_str()).collect();
        check(&refs)
    };
    let (code, v, err) = run(&[next.as_os_str(), "--junit".as_ref(), junit.as_os_str()]);
    assert_eq!(code, 0, "{v}\n{err}");
    assert_eq!(v["passed"], true);
    assert_eq!(verdict(&v, "fma_f64_avx512", T1), "pass");
    assert_eq!(verdict(&v, "chase", "kernel=chase size=256MiB"), "pass");
    let base = v["baseline"].as_str().unwrap();
    assert!(
        base.contains(
            "the last 2 quick runs of fixture-host that did not fail the gate (runs 1, 2)"
        ),
        "{base}"
    );
    // The median of the two runs' means: 100.5 GFLOP/s; the tolerance the cpu's 5 %.
    let t1 = v["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["case"]["params"] == T1)
        .unwrap();
    assert_eq!(t1["baseline"].as_f64().unwrap(), 100.5e9);
    assert_eq!(t1["tolerance"], "5%");
    assert!(!std::fs::read_to_string(&junit)
        .unwrap()
        .contains("<failure"));

    // Two runs of the history made 30 % faster (started before the checked run): the
    // last two are the reference, and the run is beyond their tolerance.
    let r1 = scaled_run(d.path(), "r1.json", 1.3, "2026-11-21T12:00:00Z");
    let r2 = scaled_run(d.path(), "r2.json", 1.31, "2026-11-21T13:00:00Z");
    import(&db, &[&r1, &r2]);
    let (code, v, err) = run(&[
        next.as_os_str(),
        "--runs".as_ref(),
        "2".as_ref(),
        "--junit".as_ref(),
        junit.as_os_str(),
    ]);
    assert_eq!(code, 1, "{v}\n{err}");
    assert_eq!(v["passed"], false);
    assert_eq!(verdict(&v, "fma_f64_avx512", T1), "regressed");
    // Direction-aware: the latency 30 % higher in runs 3 and 4 was a regression of
    // theirs, held out of the reference: the run is checked against runs 1 and 2.
    assert_eq!(verdict(&v, "chase", "kernel=chase size=256MiB"), "pass");
    assert!(
        err.contains("FAIL: 5 cases") && err.contains("(runs 1, 2, 3, 4)"),
        "{err}"
    );
    assert!(
        err.contains("note: memory chase [kernel=chase size=256MiB] latency: 2 runs from 2026-11-21T12:00:00Z on (run 3) held out of the reference"),
        "{err}"
    );
    let xml = std::fs::read_to_string(&junit).unwrap();
    let fail = xml
        .lines()
        .find(|l| l.contains("<failure") && l.contains(T1))
        .unwrap_or_else(|| panic!("{xml}"));
    for needle in [
        "type=\"regressed\"",
        "cpu fma_f64_avx512 [isa=avx512 precision=fp64 threads=1] ops",
        "measured median 99.00 GFLOP/s",
        "baseline 130.5 GFLOP/s",
        "tolerance 5%",
    ] {
        assert!(fail.contains(needle), "{needle:?} not in {fail}");
    }
    xml_parses(&junit);

    // A disturbed case of the checked run is inconclusive, never regressed.
    let disturbed = run_file(d.path(), "disturbed.json", |v| {
        v["started_at"] = "2026-11-22T11:00:00Z".into();
        let r = &mut v["results"][0];
        r["disturbed"] = true.into();
        r["notes"] = serde_json::json!([{"kind": "shared", "text": "shared machine: cpu 0 had 60 % of its core"}]);
    });
    let (_, v, err) = run(&[disturbed.as_os_str(), "--runs".as_ref(), "2".as_ref()]);
    assert_eq!(verdict(&v, "fma_f64_avx512", T1), "inconclusive", "{err}");

    // A disturbed case of a reference run is left out of the reference samples.
    let dist_ref = run_file(d.path(), "dref.json", |v| {
        v["started_at"] = "2026-11-21T14:00:00Z".into();
        v["results"][0]["disturbed"] = true.into();
    });
    import(&db, &[&dist_ref]);
    let (_, v, err) = run(&[next.as_os_str(), "--runs".as_ref(), "3".as_ref()]);
    assert!(
        err.contains("left out of the reference") && err.contains("disturbed"),
        "{err}"
    );
    let t1 = v["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["case"]["params"] == T1)
        .unwrap();
    // Of runs 3, 4, 6 the threads=1 case counts in runs 3 and 4 only.
    assert_eq!(t1["baseline"].as_f64().unwrap(), 130.5e9, "{v}");
}

/// `baseline --from-history`: the host's last runs as a baseline file, one host or a
/// fleet of them, written as `--from FILES` writes one.
#[test]
fn a_baseline_from_the_history() {
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("h.db");
    let a1 = scaled_run(d.path(), "a1.json", 1.0, "2026-11-20T10:00:00Z");
    let a2 = scaled_run(d.path(), "a2.json", 1.02, "2026-11-21T10:00:00Z");
    let other = run_file(d.path(), "other.json", |v| {
        v["host"]["hostname"] = "other-host".into();
    });
    import(&db, &[&a1, &a2, &other]);
    let out = d.path().join("b.toml");
    let o = pb()
        .args([
            "baseline",
            "--from-history",
            "--host",
            "fixture-host",
            "--history",
        ])
        .arg(&db)
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    common::assert_success(&o, "baseline --from-history");
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(text.contains("method = \"2 sources"), "{text}");
    assert!(text.contains("hosts = [\"fixture-host\"]"), "{text}");
    assert!(text.contains("median = 101000000000.0"), "{text}");
    // The file it wrote is a baseline `check` reads.
    let (code, v, err) = check(&[
        "--baseline".as_ref(),
        out.as_os_str(),
        a1.as_os_str(),
        "--allow-inconclusive".as_ref(),
    ]);
    assert_eq!(code, 0, "{v}\n{err}");
    assert!(text.contains("command = \"quick\""), "{text}");
    // A fleet: the latest run of each host.
    let o = pb()
        .args([
            "baseline",
            "--from-history",
            "--runs",
            "1",
            "--host",
            "fixture-host,other-host",
            "--history",
        ])
        .arg(&db)
        .output()
        .unwrap();
    let text = common::success_text(&o, "fleet baseline --from-history");
    assert!(
        text.contains("hosts = [\"fixture-host\", \"other-host\"]"),
        "{text}"
    );
    assert!(text.contains("method = \"2 sources"), "{text}");
}

/// The history's bad inputs and conflicting flags: one line, exit 2, nothing written.
#[test]
fn against_history_refuses_bad_databases_too_few_runs_and_conflicting_flags() {
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("h.db");
    let a1 = scaled_run(d.path(), "a1.json", 1.0, "2026-11-20T10:00:00Z");
    import(&db, &[&a1]);
    let next = scaled_run(d.path(), "next.json", 0.99, "2026-11-22T10:00:00Z");
    let corrupt = d.path().join("corrupt.db");
    std::fs::write(&corrupt, vec![b'x'; 4096]).unwrap();
    let junit = d.path().join("never.xml");
    let out = d.path().join("never.toml");
    let absent = d.path().join("absent.db");
    let p = |x: &Path| x.to_str().unwrap().to_string();
    let cases: Vec<(Vec<String>, Vec<&str>)> = vec![
        (
            vec![
                "check".into(),
                "--against".into(),
                "history".into(),
                "--history".into(),
                p(&absent),
                p(&next),
            ],
            vec!["--against: ", "no history database at"],
        ),
        (
            vec![
                "check".into(),
                "--against".into(),
                "history".into(),
                "--history".into(),
                p(&corrupt),
                p(&next),
            ],
            vec!["--against: ", "not a usable peakbench history"],
        ),
        (
            vec![
                "check".into(),
                "--against".into(),
                "history".into(),
                "--history".into(),
                p(&db),
                p(&next),
            ],
            vec![
                "--against: ",
                "holds 1 earlier quick run of fixture-host",
                "at least 2",
                "--baseline FILE",
            ],
        ),
        (
            vec![
                "check".into(),
                "--against".into(),
                "history".into(),
                "--baseline".into(),
                p(&a1),
                p(&next),
            ],
            vec!["--against: given with --baseline", "--against history"],
        ),
        (
            vec![
                "check".into(),
                "--baseline".into(),
                p(&a1),
                "--against".into(),
                "hist".into(),
                p(&next),
            ],
            vec!["--against: 'hist' is not a reference", "--against history"],
        ),
        (
            vec![
                "check".into(),
                "--against".into(),
                "history".into(),
                "--runs".into(),
                "0".into(),
                p(&next),
            ],
            vec!["--runs: '0' is not a number of runs", "1 to"],
        ),
        (
            vec!["check".into(), p(&next)],
            vec!["--baseline: missing", "--against history"],
        ),
        (
            vec![
                "baseline".into(),
                "--from".into(),
                p(&a1),
                "--from-history".into(),
                "-o".into(),
                p(&out),
            ],
            vec!["--from-history: given with --from"],
        ),
        (
            vec!["baseline".into(), "-o".into(), p(&out)],
            vec!["--from: missing", "--from-history"],
        ),
        (
            vec![
                "baseline".into(),
                "--from".into(),
                p(&a1),
                "--runs".into(),
                "3".into(),
                "-o".into(),
                p(&out),
            ],
            vec!["--runs: only applies with --from-history"],
        ),
        (
            vec![
                "baseline".into(),
                "--from-history".into(),
                "--history".into(),
                p(&corrupt),
                "-o".into(),
                p(&out),
            ],
            vec!["--from-history: ", "not a usable peakbench history"],
        ),
        (
            vec![
                "baseline".into(),
                "--from-history".into(),
                "--host".into(),
                "nohost".into(),
                "--history".into(),
                p(&db),
                "-o".into(),
                p(&out),
            ],
            vec!["--from-history: ", "no run of host nohost"],
        ),
    ];
    for (args, needles) in cases {
        let mut c = pb();
        c.args(&args);
        if args[0] == "check" {
            c.arg("--junit").arg(&junit);
        }
        let o = c.output().unwrap();
        common::assert_refused(&o, &args, &needles);
        assert!(o.stdout.is_empty(), "{args:?}");
        assert!(!junit.exists() && !out.exists(), "{args:?} wrote a file");
    }
    // Neither refusal touched the corrupt file nor created the absent one.
    assert!(!absent.exists());
    assert_eq!(std::fs::read(&corrupt).unwrap(), vec![b'x'; 4096]);
}

/// The whole pipeline on the history: two `null` runs recorded by the runs
/// themselves, clean copies of them imported, a further run; `check --against
/// history` with no results file checks this host's latest run in the history against
/// the runs before it (a busy machine may disturb a run or move its figure: the
/// verdicts are checked with the fixtures above; here the wiring).
#[test]
fn end_to_end_on_the_history_with_null_runs() {
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("h.db");
    let run = || {
        let o = pb()
            .current_dir(d.path())
            .args([
                "null",
                "--threads",
                "1",
                "--repeat",
                "3",
                "--min-time",
                "20ms",
                "--quiet",
            ])
            .args(["--format", "json", "--history"])
            .arg(&db)
            .output()
            .unwrap();
        common::assert_success(&o, "null run");
    };
    run();
    run();
    let files: Vec<PathBuf> = std::fs::read_dir(d.path().join("results"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let s = p.to_string_lossy();
            s.ends_with(".json") && !s.ends_with("-latest.json")
        })
        .collect();
    assert_eq!(files.len(), 2, "{files:?}");
    let mut imported = 0;
    for (i, f) in files.iter().enumerate() {
        let mut v: Value = serde_json::from_slice(&std::fs::read(f).unwrap()).unwrap();
        for r in v["results"].as_array_mut().unwrap() {
            r["disturbed"] = false.into();
            r["notes"] = serde_json::json!([]);
        }
        let clean = d.path().join(format!("clean{i}.json"));
        std::fs::write(&clean, serde_json::to_vec(&v).unwrap()).unwrap();
        // A run that was clean already is the same report: recorded once.
        if !import_says(&db, &clean).contains("already recorded") {
            imported += 1;
        }
    }
    run();
    let runs = 2 + imported;
    let o = pb()
        .current_dir(d.path())
        .args([
            "check",
            "--against",
            "history",
            "--runs",
            "4",
            "--format",
            "json",
            "--history",
        ])
        .arg(&db)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(matches!(o.status.code(), Some(0 | 1 | 3)), "{err}");
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let this_run = format!(" run {} (", runs + 1);
    assert!(v["results"].as_str().unwrap().contains(&this_run), "{v}");
    // A busy machine may hold a run out of the reference (it measured the spin loop
    // far slower): the runs named are some of the earlier ones.
    let last = "null runs of ";
    assert!(v["baseline"].as_str().unwrap().contains(last), "{v}");
    assert_eq!(v["cases"][0]["case"]["resource"], "null", "{v}");
    // The same run given as its results file is left out of its own reference.
    let latest: Vec<PathBuf> = std::fs::read_dir(d.path().join("results"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with("-latest.json"))
        .collect();
    let o = pb()
        .current_dir(d.path())
        .args([
            "check",
            "--against",
            "history",
            "--runs",
            "4",
            "--format",
            "json",
            "--history",
        ])
        .arg(&db)
        .arg(&latest[0])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(matches!(o.status.code(), Some(0 | 1 | 3)), "{err}");
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let b = v["baseline"].as_str().unwrap();
    let ids = &b[b.rfind("(runs ").unwrap_or_else(|| panic!("{v}"))..];
    let this_id = (runs + 1).to_string();
    assert!(b.contains(last) && !ids.contains(&this_id), "{v}");
}
