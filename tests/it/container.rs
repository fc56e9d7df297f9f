//! peakbench inside a real cgroup CPU quota (issue #47): the test makes a cgroup of its
//! own with a quota of 0.5 CPU (50000 µs per 100000 µs; v1 `cpu.cfs_quota_us`, else v2
//! `cpu.max`), starts `peakbench cpu --precision fp64 --threads 1` in it (a shell
//! writes its pid into `cgroup.procs`, then execs the binary), and checks that the
//! report records the quota, that every peak is half a core's with the quota named in
//! its source, and that a row the quota throttled names the quota as its cause, not
//! other tasks (a busy machine may give the thread under half a CPU anyway, so that no
//! period is throttled: then no row may name it). The
//! cgroup is removed afterwards, also when the test fails. It needs root and a
//! writable cgroup file system; elsewhere it prints why and passes. Nothing here
//! checks speed.

use crate::common;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// A cgroup made by the test, removed when dropped.
struct TestCgroup {
    dir: PathBuf,
}

impl Drop for TestCgroup {
    fn drop(&mut self) {
        // The child has exited; its cgroup may take a moment to empty.
        for _ in 0..50 {
            if std::fs::remove_dir(&self.dir).is_ok() || !self.dir.exists() {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        eprintln!("could not remove {}", self.dir.display());
    }
}

/// A new cgroup with a quota of 0.5 CPU, or why none can be made here.
fn half_cpu_cgroup() -> Result<TestCgroup, String> {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return Err("not root: cannot create a cgroup".into());
    }
    let name = format!("peakbench-test-{}", std::process::id());
    let v1 = Path::new("/sys/fs/cgroup/cpu");
    let v2 = Path::new("/sys/fs/cgroup");
    let (dir, files): (PathBuf, Vec<(&str, &str)>) = if v1.join("cpu.cfs_quota_us").exists() {
        (
            v1.join(&name),
            vec![
                ("cpu.cfs_period_us", "100000"),
                ("cpu.cfs_quota_us", "50000"),
            ],
        )
    } else if std::fs::read_to_string(v2.join("cgroup.subtree_control"))
        .is_ok_and(|s| s.split_whitespace().any(|c| c == "cpu"))
    {
        (v2.join(&name), vec![("cpu.max", "50000 100000")])
    } else {
        return Err("no cgroup file system with the cpu controller (v1 /sys/fs/cgroup/cpu, or v2 with +cpu in cgroup.subtree_control)".into());
    };
    std::fs::create_dir(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let g = TestCgroup { dir };
    for (f, v) in files {
        std::fs::write(g.dir.join(f), v)
            .map_err(|e| format!("cannot write {v} to {}/{f}: {e}", g.dir.display()))?;
    }
    Ok(g)
}

#[test]
fn a_half_cpu_quota_is_half_a_core_and_its_throttling_is_named() {
    let g = match half_cpu_cgroup() {
        Ok(g) => g,
        Err(why) => {
            println!("skipped: {why}");
            return;
        }
    };
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().to_path_buf();
    let mut c = std::process::Command::new("sh");
    common::clean_env(&mut c);
    c.arg("-c")
        .arg(format!(
            "echo $$ > {}/cgroup.procs && exec \"$0\" \"$@\"",
            g.dir.display()
        ))
        .arg(common::bin())
        .args([
            "--quiet",
            "--min-time",
            "300ms",
            "--repeat",
            "2",
            "--output",
        ])
        .arg(&out)
        .args(["cpu", "--precision", "fp64", "--threads", "1"]);
    let child = c
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let done = common::finish(child, Duration::from_secs(240), "peakbench cpu in a cgroup");
    common::assert_success(&done, "peakbench cpu in a cgroup");
    let file = std::fs::read_dir(&out)
        .unwrap()
        .flatten()
        .find(|e| e.path().extension().is_some_and(|x| x == "json"))
        .expect("a report");
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(file.path()).unwrap()).unwrap();
    let quota = &report["host"]["cgroup"]["cpu_quota"];
    assert_eq!(quota["quota_us"], 50000, "{}", report["host"]["cgroup"]);
    assert_eq!(quota["period_us"], 100000);
    let rows = report["results"].as_array().unwrap();
    let mut measured = 0;
    let mut throttled_rows = 0;
    for r in rows.iter().filter(|r| r["peak"]["value"].is_number()) {
        measured += 1;
        let source = r["peak"]["source"].as_str().unwrap();
        assert!(
            source.contains("× 0.5/1 core: cgroup CPU quota 50000/100000 µs = 0.5 CPU"),
            "{}: {source}",
            r["workload"]
        );
        let notes: Vec<&str> = r["notes"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|n| n["text"].as_str())
            .collect();
        let named = notes
            .iter()
            .find(|n| n.contains("throttled by the container's CPU quota"));
        // Throttled only when the quota bit: on a busy machine the thread may get less
        // than half a CPU anyway, and then no period is throttled.
        let throttled: u64 = r["share"].as_array().map_or(0, |s| {
            s.iter()
                .map(|x| x["throttle"]["throttled"].as_u64().unwrap_or(0))
                .sum()
        });
        if throttled > 0 {
            throttled_rows += 1;
            let named = named.unwrap_or_else(|| panic!("{}: {notes:?}", r["workload"]));
            assert!(
                !named.contains("other task"),
                "the quota, not other tasks: {notes:?}"
            );
            assert_eq!(r["disturbed"], true);
        } else {
            assert!(
                named.is_none(),
                "named without a throttled period: {notes:?}"
            );
        }
    }
    assert!(measured > 0, "no row with a peak: {rows:?}");
    let stat = std::fs::read_to_string(g.dir.join("cpu.stat")).unwrap_or_default();
    println!(
        "{throttled_rows} of {measured} rows throttled by the quota; the cgroup's cpu.stat: {}",
        stat.split_whitespace().collect::<Vec<_>>().join(" ")
    );
}
