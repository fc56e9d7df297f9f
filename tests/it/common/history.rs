//! Helpers of the run-history tests (`tests/it/history.rs`): `peakbench history …` on
//! one database, and results files made from a recorded quick suite with a start time
//! and any change a test needs (an impossible figure, a date in 2099).

use super::{fixture_json, pb, write_json};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Output;

/// `peakbench history ARGS… --history DB`.
pub fn hist(db: &Path, args: &[&str]) -> Output {
    pb().arg("history")
        .args(args)
        .arg("--history")
        .arg(db)
        .output()
        .unwrap()
}

/// A results file `dir/NAME`: the quick suite of `quick_zen3_a.json` started at
/// `started` (RFC 3339), every measured sample scaled by `scale`, then `edit` applied.
pub fn results_file(
    dir: &Path,
    name: &str,
    started: &str,
    scale: f64,
    edit: impl FnOnce(&mut Value),
) -> PathBuf {
    let mut v = fixture_json("quick_zen3_a.json");
    v["started_at"] = started.into();
    v["finished_at"] = started.into();
    for r in v["results"].as_array_mut().unwrap() {
        if let Some(s) = r["samples"].as_array_mut() {
            for x in s.iter_mut() {
                *x = (x.as_f64().unwrap() * scale).into();
            }
        }
        if let Some(s) = r["summary"].as_object_mut() {
            for k in [
                "mean",
                "median",
                "min",
                "max",
                "sd",
                "ci95_low",
                "ci95_high",
            ] {
                if let Some(x) = s.get(k).and_then(Value::as_f64) {
                    s.insert(k.into(), (x * scale).into());
                }
            }
        }
    }
    edit(&mut v);
    write_json(dir, name, &v)
}

/// The first measured (`ok`) result of a results file's JSON.
pub fn first_ok(v: &mut Value) -> &mut Value {
    v["results"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|r| r["status"] == "ok")
        .unwrap()
}
