//! Fixed references and where they come from (issue #44 items 2, 7, 9): runs tagged
//! by a person (`history tag`) or at measuring time (`--tag key=value`) as a named
//! reference (`check --against tag:KEY[=VALUE]`), and `baseline --from-history` that
//! takes its runs after the latest change point they span, on synthetic series (the
//! fixture run with its samples scaled, imported into a history of the test's own).

use super::gate::{check, fixture, run_file, verdict, T1};
use super::gate_history::{import, scaled_run};
use crate::common;
use serde_json::Value;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// Night `i` of November (`2026-11-DDT02:00:00Z`).
fn night(i: usize) -> String {
    format!("2026-11-{:02}T02:00:00Z", i + 1)
}

/// `peakbench history tag RUN KV… --history DB`, asserting success.
fn tag(db: &Path, run: &str, kv: &[&str]) {
    let o = common::pb()
        .args(["history", "tag", run])
        .args(kv)
        .arg("--history")
        .arg(db)
        .output()
        .unwrap();
    common::assert_success(&o, "history tag");
}

/// `check --format json --history DB --against AGAINST RUN`: exit code, JSON, stderr.
fn against(db: &Path, reference: &str, run: &Path) -> (i32, Value, String) {
    check(&[
        "--history".as_ref(),
        db.as_os_str(),
        "--against".as_ref(),
        reference.as_ref(),
        "--allow-inconclusive".as_ref(),
        run.as_os_str(),
    ])
}

/// A named reference: three good nights, two of them tagged `ref=bios-2.1`, then six
/// nights at half the speed. The drop fails against the tag however many nights
/// follow (it never moves), by `tag:ref=bios-2.1` and by `tag:ref` (any value); a tag
/// no run carries, a run of another host and a malformed tag are one line, exit 2.
#[test]
fn a_tagged_run_is_a_named_reference_that_never_moves() {
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("h.db");
    let mut files: Vec<PathBuf> = (0..3)
        .map(|i| {
            scaled_run(
                d.path(),
                &format!("g{i}.json"),
                1.0 + 0.002 * i as f64,
                &night(i),
            )
        })
        .collect();
    files.extend((3..9).map(|i| scaled_run(d.path(), &format!("n{i}.json"), 0.5, &night(i))));
    let refs: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    import(&db, &refs);
    tag(&db, "2", &["ref=bios-2.1"]);
    tag(&db, "3", &["ref=bios-2.1", "note=after BIOS update"]);
    let next = scaled_run(d.path(), "next.json", 0.5, &night(9));
    for reference in ["tag:ref=bios-2.1", "tag:ref"] {
        let (code, v, err) = against(&db, reference, &next);
        assert_eq!(code, 1, "{reference}: {v}\n{err}");
        assert_eq!(verdict(&v, "fma_f64_avx512", T1), "regressed");
        let base = v["baseline"].as_str().unwrap();
        assert!(
            base.contains("the 2 quick runs of fixture-host tagged")
                && base.ends_with("(runs 2, 3)"),
            "{base}"
        );
    }
    // The good level passes against it.
    let good = scaled_run(d.path(), "good.json", 1.0, &night(10));
    let (code, v, err) = against(&db, "tag:ref=bios-2.1", &good);
    assert_eq!(code, 0, "{v}\n{err}");
    // `history` lists the tags.
    let o = common::pb()
        .args(["history", "--format", "json", "--history"])
        .arg(&db)
        .output()
        .unwrap();
    let runs = common::success_json(&o, "history");
    assert_eq!(runs[2]["tags"]["note"], "after BIOS update", "{runs}");
    // Refusals, one line each.
    let refused = |reference: &str, run: &Path, needles: &[&str]| {
        let o = common::pb()
            .args(["check", "--against", reference, "--history"])
            .arg(&db)
            .arg(run)
            .output()
            .unwrap();
        common::assert_refused(&o, &reference, needles);
    };
    refused(
        "tag:ref=bios-9",
        &next,
        &[
            "--against: ",
            "holds no run tagged ref=bios-9",
            "history tag RUN ref=bios-9",
        ],
    );
    // A malformed value: exit 2, named (beside the missing reference it leaves).
    for bad in ["tag:a b", "tag:"] {
        let o = common::pb()
            .args(["check", "--against", bad])
            .arg(&next)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{bad}: {err}");
        assert!(
            err.contains(&format!(
                "--against: '{bad}' does not name a tag; use tag:KEY or tag:KEY=VALUE"
            )),
            "{bad}: {err}"
        );
    }
    let other = run_file(d.path(), "other.json", |v| {
        v["host"]["hostname"] = "other-host".into();
    });
    refused(
        "tag:ref",
        &other,
        &[
            "--against: ",
            "2 other runs tagged ref",
            "none a quick run of other-host",
        ],
    );
    let o = common::pb()
        .args(["check", "--against", "tag:ref", "--accept", "--history"])
        .arg(&db)
        .arg(&next)
        .output()
        .unwrap();
    common::assert_refused(
        &o,
        &"--accept with tag",
        &["--accept: applies to --against history"],
    );
}

/// A measuring run tagged with `--tag`: its results file carries the tags in its
/// `config`, the history records them (and an import of the file into another history
/// too), and `check --against tag:…` takes the tagged run as its reference. Bad tags
/// are refused before anything runs.
#[test]
fn a_measuring_run_is_recorded_with_its_tags() {
    let d = common::scratch_dir();
    let db = d.path().join("h.db");
    let res = d.path().join("results");
    let run = |extra: &[&str]| {
        let o = common::pb()
            .args(["null", "--min-time", "2ms", "--quiet", "--format", "json"])
            .args(extra)
            .arg("--output")
            .arg(&res)
            .arg("--history")
            .arg(&db)
            .output()
            .unwrap();
        common::success_json(&o, "null --tag")
    };
    let v = run(&["--tag", "note=after BIOS update", "--tag", "bios=2.1"]);
    assert_eq!(
        v["config"]["tags"]["note"], "after BIOS update",
        "{}",
        v["config"]
    );
    assert_eq!(v["config"]["tags"]["bios"], "2.1");
    // A run without --tag has no `tags` in its config (the JSON as before).
    let plain = run(&[]);
    assert!(plain["config"].get("tags").is_none(), "{}", plain["config"]);
    let o = common::pb()
        .args(["history", "--format", "json", "--history"])
        .arg(&db)
        .output()
        .unwrap();
    let runs = common::success_json(&o, "history");
    assert_eq!(runs[0]["tags"]["note"], "after BIOS update", "{runs}");
    assert_eq!(runs[0]["tags"]["bios"], "2.1", "{runs}");
    assert!(runs[1]["tags"].as_object().unwrap().is_empty(), "{runs}");
    // The tagged run is the reference of the later one (the latest run of this host).
    // On a busy machine the tagged run's one case may be disturbed: then no reference
    // can be taken from it, which `check` says naming that run (exit 2).
    let o = common::pb()
        .args([
            "check",
            "--format",
            "json",
            "--allow-inconclusive",
            "--against",
            "tag:bios=2.1",
            "--history",
        ])
        .arg(&db)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    match o.status.code() {
        Some(0 | 1) => {
            let v: Value = serde_json::from_slice(&o.stdout).unwrap();
            assert!(
                v["baseline"]
                    .as_str()
                    .unwrap()
                    .ends_with("tagged bios=2.1 (run 1)"),
                "{v}"
            );
        }
        _ => assert!(
            o.status.code() == Some(2)
                && err.contains("h.db run 1 ")
                && err.contains("no measured, undisturbed case"),
            "{err}"
        ),
    }
    // Importing the tagged file into another history keeps its tags.
    let files: Vec<PathBuf> = std::fs::read_dir(&res)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.extension() == Some(OsStr::new("json"))
                && std::fs::read_to_string(p)
                    .unwrap()
                    .contains("after BIOS update")
        })
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    let db2 = d.path().join("h2.db");
    import(&db2, &[&files[0]]);
    let o = common::pb()
        .args(["history", "--format", "json", "--history"])
        .arg(&db2)
        .output()
        .unwrap();
    let runs = common::success_json(&o, "history");
    assert_eq!(runs[0]["tags"]["bios"], "2.1", "{runs}");
    // Refusals before anything runs.
    for (args, needle) in [
        (&["--tag", "novalue"][..], "--tag: 'novalue' has no '='"),
        (&["--tag", "k="][..], "--tag: 'k=' has an empty value"),
        (
            &["--tag", "k=1", "--tag", "k=2"][..],
            "--tag: key 'k' given twice",
        ),
        (&["--tag", "a b=1"][..], "--tag: 'a b=1' is not a tag"),
    ] {
        let o = common::pb()
            .args(["null", "--min-time", "2ms", "--quiet", "--history"])
            .arg(&db)
            .args(args)
            .output()
            .unwrap();
        common::assert_refused(&o, &args, &[needle]);
    }
}

/// The median of case T1 (`fma_f64_avx512`) in the baseline file `b`.
fn t1_median(b: &Path) -> f64 {
    let v: toml::Value = toml::from_str(&std::fs::read_to_string(b).unwrap()).unwrap();
    v["case"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| {
            c["workload"].as_str() == Some("fma_f64_avx512") && c["params"].as_str() == Some(T1)
        })
        .unwrap_or_else(|| panic!("no T1 case in {v}"))["median"]
        .as_float()
        .unwrap()
}

/// `baseline --from-history` across a change point (issue #44 item 7): twelve nights
/// at 100 GFLOP/s then seven at 70 (a step needs about six runs each side to be
/// found); the last sixteen runs span the change, so the baseline is taken from the
/// seven since it (median 70), saying so; `--across-changes` takes all sixteen (nine
/// at the old level: their median is the old level) and names the change.
#[test]
fn baseline_from_history_takes_the_runs_since_the_latest_change() {
    let d = tempfile::tempdir().unwrap();
    let db = d.path().join("h.db");
    let files: Vec<PathBuf> = (0..19)
        .map(|i| {
            let level = if i < 12 {
                1.0 + 0.002 * (i % 3) as f64
            } else {
                0.7
            };
            scaled_run(d.path(), &format!("r{i}.json"), level, &night(i))
        })
        .collect();
    let refs: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    import(&db, &refs);
    let take = |runs: &str, extra: &[&str], name: &str| {
        let out = d.path().join(name);
        let o = common::pb()
            .args([
                "baseline",
                "--from-history",
                "--host",
                "fixture-host",
                "--runs",
                runs,
            ])
            .args(extra)
            .arg("--history")
            .arg(&db)
            .arg("-o")
            .arg(&out)
            .output()
            .unwrap();
        common::assert_success(&o, "baseline --from-history");
        (out, String::from_utf8_lossy(&o.stderr).into_owned())
    };
    let (b, err) = take("16", &[], "after.toml");
    assert!(
        err.contains("the last 16 runs of host fixture-host span change points; the baseline is taken from the 7 runs since the latest, at run 13")
            && err.contains("--across-changes takes all 16"),
        "{err}"
    );
    assert!(
        err.contains("fma_f64_avx512") && err.contains("-30."),
        "{err}"
    );
    let m = t1_median(&b);
    assert!((m / 70e9 - 1.0).abs() < 1e-9, "{m}");
    let text = std::fs::read_to_string(&b).unwrap();
    assert!(text.contains("method = \"7 sources"), "{text}");
    // The baseline after the change passes a run at the new level.
    let run = scaled_run(d.path(), "next.json", 0.7, &night(19));
    let (code, v, e) = check(&[
        "--baseline".as_ref(),
        b.as_os_str(),
        run.as_os_str(),
        "--allow-inconclusive".as_ref(),
    ]);
    assert_eq!(code, 0, "{v}\n{e}");
    // Across the change, on request: the eight runs, the change named.
    let (b, err) = take("16", &["--across-changes"], "across.toml");
    assert!(
        err.contains("the 16 runs taken of host fixture-host span change points, taken across them (--across-changes)"),
        "{err}"
    );
    let m = t1_median(&b);
    assert!(m > 99e9 && m < 101e9, "{m}");
    // Runs that span no change: nothing said, all taken.
    let (b, err) = take("3", &[], "recent.toml");
    assert!(!err.contains("change point"), "{err}");
    assert!((t1_median(&b) / 70e9 - 1.0).abs() < 1e-9);
    // The flag is --from-history's.
    let o = common::pb()
        .args(["baseline", "--from"])
        .arg(fixture())
        .arg("--across-changes")
        .output()
        .unwrap();
    common::assert_refused(
        &o,
        &"--across-changes with --from",
        &["--across-changes: only applies with --from-history"],
    );
}
