//! The machine shared while peakbench measures (issue #22): the test spawns a busy
//! thread of its own, pinned to the second CPU a 2-thread case runs on, and checks what
//! the run says — the warning names that CPU and the share its worker lost, the row is
//! marked `~`, the peak stays at the sustained clock, and `--until-stable` either
//! recovers a clean set or says that it could not. The spinner stops when the test
//! ends and after two minutes at most. Nothing here checks speed.
//!
//! The machine may be shared with other work while the tests run, so the shares are
//! checked with tolerance: ±10 points around one half when nothing but the spinner was
//! runnable, only "at most 60 %" when more was (the warning then names how many). The "no warning on an idle
//! core" check end to end would false-alarm whenever something else runs on the machine;
//! it is `#[ignore]`d (run it by hand on a quiet machine), and the detection logic it
//! relies on is tested on synthetic figures in `measure::share`.

use crate::common;

use common::pb;
use serde_json::Value;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A thread spinning on one CPU until dropped (or two minutes have passed).
struct Spinner {
    stop: Arc<AtomicBool>,
    handle: Option<std::thread::JoinHandle<()>>,
}

impl Spinner {
    /// Starts spinning on `cpu`; `None` when the OS refuses to pin there.
    fn on(cpu: usize) -> Option<Spinner> {
        let stop = Arc::new(AtomicBool::new(false));
        let (tx, rx) = std::sync::mpsc::channel();
        let flag = stop.clone();
        let handle = std::thread::spawn(move || {
            // SAFETY: cpu_set_t is plain data; CPU_SET is bounds-checked by the size test.
            let pinned = unsafe {
                let mut set: libc::cpu_set_t = std::mem::zeroed();
                cpu < 8 * std::mem::size_of::<libc::cpu_set_t>() && {
                    libc::CPU_SET(cpu, &mut set);
                    libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) == 0
                }
            };
            let _ = tx.send(pinned);
            if !pinned {
                return;
            }
            let end = Instant::now() + Duration::from_secs(120);
            let mut x = 0u64;
            while !flag.load(Ordering::Relaxed) && Instant::now() < end {
                for _ in 0..10_000 {
                    x = std::hint::black_box(x.wrapping_add(1));
                }
            }
        });
        let pinned = rx.recv().unwrap_or(false);
        let s = Spinner {
            stop,
            handle: Some(handle),
        };
        pinned.then_some(s)
    }
}

impl Drop for Spinner {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

/// The logical CPUs in peakbench's pinning order (from `sysinfo --format json`), or
/// `None` with fewer than two.
fn pin_order() -> Option<Vec<usize>> {
    if std::thread::available_parallelism().map_or(1, |n| n.get()) < 2 {
        return None;
    }
    let out = pb()
        .args(["sysinfo", "--format", "json", "--quiet"])
        .output()
        .unwrap();
    let v = common::success_json(&out, "sysinfo");
    let order: Vec<usize> = v["host"]["cpu"]["pin_order"]
        .as_array()
        .or_else(|| v["cpu"]["pin_order"].as_array())?
        .iter()
        .filter_map(|c| c.as_u64().map(|c| c as usize))
        .collect();
    (order.len() >= 2).then_some(order)
}

/// A 2-thread fp64 CPU case (the best kernel the CPU has), as JSON; `extra` flags added.
fn cpu_two_threads(dir: &std::path::Path, extra: &[&str]) -> Value {
    let out = pb()
        .args([
            "cpu",
            "--precision",
            "fp64",
            "--threads",
            "2",
            "--min-time",
            "100ms",
            "--repeat",
            "3",
            "--format",
            "json",
            "--quiet",
            "--output",
        ])
        .arg(dir)
        .args(extra)
        .output()
        .unwrap();
    common::success_json(&out, "cpu --threads 2")
}

/// The results of `v` that ran (one per fp64 kernel).
fn ok_rows(v: &Value) -> Vec<Value> {
    let rows: Vec<Value> = v["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["status"] == "ok")
        .cloned()
        .collect();
    assert!(!rows.is_empty(), "{v}");
    rows
}

/// The shared-machine notes of a result.
fn shared_notes(r: &Value) -> Vec<String> {
    r["notes"]
        .as_array()
        .map(|n| {
            n.iter()
                .filter(|n| n["kind"] == "shared")
                .map(|n| n["text"].as_str().unwrap().to_string())
                .collect()
        })
        .unwrap_or_default()
}

/// Mean share of worker `thread` (1-based) over the samples of `r` in which it lost
/// its core (as the warning takes it).
fn mean_share(r: &Value, thread: u64) -> f64 {
    let v: Vec<f64> = r["share"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| s["threads"].as_array().unwrap().iter())
        .filter(|t| t["thread"] == thread)
        .map(|t| t["share"].as_f64().unwrap())
        .filter(|s| *s < 0.97)
        .collect();
    assert!(!v.is_empty(), "{r}");
    v.iter().sum::<f64>() / v.len() as f64
}

#[test]
fn a_busy_neighbour_on_the_second_cpu_is_named_with_the_share_it_took() {
    let Some(order) = pin_order() else {
        eprintln!("skipped: fewer than 2 logical CPUs, no second CPU to share");
        return;
    };
    let second = order[1];
    let dir = tempfile::tempdir().unwrap();
    let v = {
        let Some(_spin) = Spinner::on(second) else {
            eprintln!("skipped: the OS refused to pin a thread to cpu {second}");
            return;
        };
        cpu_two_threads(dir.path(), &[])
    };
    for r in ok_rows(&v) {
        assert_eq!(r["disturbed"], true, "{r}");
        // One note names the neighbour; a host-contention note (the canary) may stand
        // beside it when the other tests of this binary load the machine too.
        let notes: Vec<String> = shared_notes(&r)
            .into_iter()
            .filter(|n| !n.starts_with("host contention: "))
            .collect();
        assert_eq!(notes.len(), 1, "{r}");
        let note = &notes[0];
        assert!(
            note.contains(&format!("thread 2 (cpu {second}) ran ")),
            "{note}"
        );
        // Two tasks on one core: the worker had about half of it; more room when
        // something else was runnable too (another build on a shared machine).
        let share = mean_share(&r, 2);
        let others = r["share"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|s| s["runnable"].as_u64())
            .max()
            .unwrap_or(0);
        // With more tasks runnable than the spinner (other work on a busy machine,
        // e.g. the other tests of this run) the core is split more ways: only the
        // upper bound holds then.
        let (lo, hi) = if others <= 1 {
            (0.40, 0.60)
        } else {
            (0.0, 0.60)
        };
        assert!(
            (lo..=hi).contains(&share),
            "thread 2 had {share:.2} of cpu {second} ({others} other tasks runnable): {note}"
        );
        // The note's percentage is that share.
        assert!(
            note.contains(&format!("ran {:.0} % of the window", share * 100.0)),
            "{note} vs {share}"
        );
        // The peak is at the sustained clock: the readings on the shared core were
        // not taken as a slower clock.
        let sustained = r["sustained_hz"].as_f64().unwrap();
        let measured = r["clock_hz"].as_f64().unwrap();
        assert!(sustained >= measured * 0.999, "{r}");
        assert!(measured > 0.8 * sustained, "{measured} vs {sustained}: {r}");
        // The generic kernel has no peak (the compiler chooses its instructions).
        if let Some(peak) = r["peak"]["value"].as_f64() {
            let mean = r["summary"]["mean"].as_f64().unwrap();
            let eff = r["efficiency"].as_f64().unwrap();
            assert!((eff - mean / peak).abs() < 1e-9, "{r}");
        }
    }
    // The table marks the row and says why once.
    let file = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "json"))
        .unwrap();
    let out = pb()
        .args(["report", "--width", "200"])
        .arg(&file)
        .output()
        .unwrap();
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{table}");
    assert!(table.contains('~'), "{table}");
    // Marked in the efficiency column where the row has one (issue #32 item 5: the
    // generic kernel has no peak, so no efficiency to mark).
    assert!(
        table.contains("(marked ~ in the efficiency column"),
        "{table}"
    );
}

#[test]
fn until_stable_recovers_a_clean_set_or_says_it_could_not() {
    let Some(order) = pin_order() else {
        eprintln!("skipped: fewer than 2 logical CPUs, no second CPU to share");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let v = {
        let Some(_spin) = Spinner::on(order[1]) else {
            eprintln!(
                "skipped: the OS refused to pin a thread to cpu {}",
                order[1]
            );
            return;
        };
        cpu_two_threads(
            dir.path(),
            &["--until-stable", "2%", "--stable-budget", "2s"],
        )
    };
    for r in ok_rows(&v) {
        let notes: Vec<&str> = r["notes"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|n| n["text"].as_str())
            .filter(|t| t.starts_with("--until-stable: "))
            .collect();
        assert_eq!(notes.len(), 1, "{r}");
        let dropped = r["dropped"].as_array().map_or(0, |d| d.len());
        if notes[0].contains("none of") {
            // The neighbour held the core throughout: every sample is kept, disturbed.
            assert_eq!(r["disturbed"], true, "{r}");
            assert_eq!(dropped, 0, "{r}");
        } else {
            // Clean samples were found: the dropped ones are listed with why.
            let n = r["samples"].as_array().unwrap().len();
            assert!(n >= 3, "{r}");
            assert!(
                notes[0].contains(&format!("{n} of {} samples kept", n + dropped)),
                "{r}"
            );
            for d in r["dropped"].as_array().into_iter().flatten() {
                assert!(d["why"].as_str().unwrap().contains("ran "), "{d}");
            }
        }
    }
}

#[test]
#[ignore = "needs a quiet machine: any other busy task on the run's CPUs is a real disturbance"]
fn an_idle_machine_gives_no_shared_warning() {
    let dir = tempfile::tempdir().unwrap();
    let v = cpu_two_threads(dir.path(), &[]);
    for r in ok_rows(&v) {
        assert!(shared_notes(&r).is_empty(), "{r}");
        assert!(r.get("disturbed").is_none(), "{r}");
    }
}

#[test]
fn until_stable_flags_refuse_bad_values_in_one_line() {
    for (args, needle) in [
        (
            &["null", "--until-stable", "1"][..],
            "--until-stable: '1' is not a precision",
        ),
        (
            &["null", "--until-stable", "0%"][..],
            "give a percentage above 0 and at most 50",
        ),
        (&["null", "--until-stable", "60%"][..], "--until-stable"),
        (
            &["null", "--stable-budget", "5s"][..],
            "--stable-budget: only applies with --until-stable",
        ),
        (
            &["null", "--until-stable", "1%", "--stable-budget", "0s"][..],
            "--stable-budget: '0s'",
        ),
        (
            &["null", "--until-stable", "1%", "--stable-budget", "soon"][..],
            "--stable-budget",
        ),
    ] {
        common::refused(&mut pb(), args, &[needle]);
    }
}

#[test]
fn until_stable_runs_the_pipeline_and_records_its_settings() {
    let dir = tempfile::tempdir().unwrap();
    let out = pb()
        .args([
            "null",
            "--threads",
            "1",
            "--min-time",
            "5ms",
            "--repeat",
            "3",
            "--until-stable",
            "50%",
            "--stable-budget",
            "2s",
            "--format",
            "json",
            "--quiet",
            "--output",
        ])
        .arg(dir.path())
        .output()
        .unwrap();
    let v = common::success_json(&out, "null --until-stable");
    assert_eq!(v["config"]["until_stable"]["target"], 0.5);
    assert_eq!(v["config"]["until_stable"]["budget"], 2.0);
    let r = &v["results"][0];
    assert!(r["samples"].as_array().unwrap().len() >= 3, "{r}");
    assert!(
        r["notes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n["text"].as_str().unwrap().starts_with("--until-stable: ")),
        "{r}"
    );
    // Every sample carries its thread's share.
    assert_eq!(
        r["share"].as_array().unwrap().len(),
        r["samples"].as_array().unwrap().len()
    );
}

/// Issue #45 item 5: two runs started at once were both pinned to cpu 0 and neither
/// said so. A run that starts while another measures names it on stderr, and the cases
/// of both during which the other ran are marked disturbed with a note naming it. The
/// two runs share one registry of running runs (each test run has its own otherwise).
#[test]
fn two_runs_at_once_name_each_other() {
    let runs = common::scratch_dir();
    let out = common::scratch_dir();
    let mut first = common::pb_std();
    first
        .env("PEAKBENCH_RUNS_DIR", runs.path())
        .args([
            "null",
            "--threads",
            "1,2",
            "--min-time",
            "2s",
            "--repeat",
            "3",
            "--quiet",
            "--no-history",
            "--format",
            "json",
            "--output",
        ])
        .arg(out.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let first = first.spawn().unwrap();
    let pid = first.id();
    // Once the first run measures its cases (not while it still detects the host:
    // under load the second could start and end inside that), the second starts; the
    // first's cases (2 x 3 x 2 s) outlast the second's own detection under load.
    let measuring = || {
        std::fs::read_dir(runs.path()).is_ok_and(|d| {
            d.flatten().any(|e| {
                std::fs::read_to_string(e.path()).is_ok_and(|t| t.contains("\"measuring\""))
            })
        })
    };
    let t = std::time::Instant::now();
    while !measuring() {
        assert!(t.elapsed() < std::time::Duration::from_secs(60));
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let second = pb()
        .env("PEAKBENCH_RUNS_DIR", runs.path())
        .args([
            "null",
            "--threads",
            "1",
            "--min-time",
            "50ms",
            "--repeat",
            "2",
            "--quiet",
            "--no-history",
            "--format",
            "json",
            "--output",
        ])
        .arg(out.path())
        .timeout(std::time::Duration::from_secs(120))
        .output()
        .unwrap();
    let first = common::finish(first, std::time::Duration::from_secs(120), "first run");
    let err = String::from_utf8_lossy(&second.stderr);
    let v = common::success_json(&second, "second run");
    assert!(
        err.contains(&format!(
            "another peakbench run is measuring on this machine (pid {pid}, `peakbench null --threads 1,2"
        )),
        "{err}"
    );
    for r in ok_rows(&v) {
        assert_eq!(r["disturbed"], true, "{r}");
        assert!(
            shared_notes(&r)
                .iter()
                .any(|n| n.contains("another peakbench run was measuring during the case")),
            "{r}"
        );
    }
    // The first saw the second too, in the case it ran beside.
    let v = common::success_json(&first, "first run");
    assert!(
        ok_rows(&v).iter().any(|r| shared_notes(r)
            .iter()
            .any(|n| n.contains("`peakbench null --threads 1 --min-time 50ms"))),
        "{v}"
    );
}
