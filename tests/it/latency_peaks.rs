//! Issue #48 through the binary: the latency rows' floors and their efficiency (floor /
//! measured), and `cpu --clock`. Tiny cases (a 16 KiB chase, one short ping-pong on
//! loopback, one kernel set at 5 ms); nothing here assumes the CPU under it: every
//! check holds whatever the machine's caches, clocks and label say.

use crate::common;
use serde_json::Value;

/// `args` run with JSON on stdout, tiny and quiet: the report.
fn run(args: &[&str]) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let out = common::pb()
        .args([
            "--quiet",
            "--min-time",
            "5ms",
            "--repeat",
            "2",
            "--format",
            "json",
        ])
        .args(args)
        .arg("--output")
        .arg(dir.path())
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .unwrap();
    common::success_json(&out, &format!("{args:?}"))
}

/// A latency row's efficiency is its peak over its mean, and flagged above 100 %.
fn assert_latency_efficiency(r: &Value) {
    let mean = r["summary"]["mean"].as_f64().unwrap();
    match r["peak"]["value"].as_f64() {
        Some(p) => {
            let e = r["efficiency"].as_f64().unwrap();
            assert!((e - p / mean).abs() <= 1e-9 * e, "{r}");
            assert_eq!(r["over_peak"].as_bool(), Some(e > 1.0), "{r}");
        }
        None => assert!(r.get("efficiency").is_none(), "{r}"),
    }
}

#[test]
fn a_chase_has_a_floor_or_says_why_and_takes_the_user_s() {
    for (peak, source) in [
        (None, None),
        (
            Some("memory.latency=1ns"),
            Some("user (--peak memory.latency=…)"),
        ),
    ] {
        let mut args = vec![
            "memory",
            "--kernel",
            "chase",
            "--size",
            "16KiB",
            "--threads",
            "1",
        ];
        if let Some(p) = peak {
            args.extend(["--peak", p]);
        }
        let rep = run(&args);
        let r = &rep["results"][0];
        assert_eq!(r["metric"], "latency", "{r}");
        assert_eq!(r["status"], "ok", "{r}");
        let s = r["peak"]["source"].as_str().unwrap();
        match source {
            Some(want) => {
                assert_eq!(s, want);
                assert_eq!(r["peak"]["value"].as_f64(), Some(1e-9));
            }
            // The caches' floor where the table has this CPU, else no figure and why.
            None => assert!(
                (s.starts_with("load-to-use floor") && r["peak"]["value"].is_f64())
                    || (s.starts_with("unknown: no figure") && r["peak"]["value"].is_null()),
                "{s}"
            ),
        }
        assert_latency_efficiency(r);
    }
}

#[test]
fn a_loopback_round_trip_has_no_link_floor_and_distance_needs_a_unit() {
    let rep = run(&[
        "net",
        "--proto",
        "tcp",
        "--test",
        "latency",
        "--time",
        "200ms",
        "--repeat",
        "1",
        "--omit",
        "0s",
        "--distance",
        "1000km",
    ]);
    let r = &rep["results"][0];
    assert_eq!(r["status"], "ok", "{r}");
    let s = r["peak"]["source"].as_str().unwrap();
    assert!(s.contains("loopback has no link"), "{s}");
    assert!(s.contains("--distance 1000 km is for a link"), "{s}");
    assert_eq!(rep["config"]["command"]["distance_m"].as_f64(), Some(1e6));
    common::refused(
        &mut common::pb(),
        &["net", "--distance", "1000"],
        &["--distance: '1000' has no unit (m or km)"],
    );
    common::refused(
        &mut common::pb(),
        &["net", "--peak", "net.latency=10Gbit/s"],
        &["--peak", "is a latency (s, ms, us or ns"],
    );
}

#[test]
fn cpu_clock_names_its_clock_or_is_refused() {
    common::refused(
        &mut common::pb(),
        &["cpu", "--clock", "turbo"],
        &["--clock: unknown clock 'turbo'; accepted: measured, nominal, all-core"],
    );
    let base = ["cpu", "--precision", "fp64", "--threads", "1"];
    let rep = run(&[&base[..], &["--clock", "all-core"]].concat());
    assert_eq!(rep["config"]["command"]["clock"], "all-core");
    for r in rep["results"].as_array().unwrap() {
        if r["status"] != "ok" {
            continue;
        }
        assert_eq!(r["peak_clock"]["clock"], "all-core", "{r}");
        let hz = r["peak_clock"]["hz"].as_f64().unwrap();
        assert!(hz > 0.0, "{r}");
        if r["peak"]["value"].is_f64() && !r["peak"]["source"].as_str().unwrap().starts_with("user")
        {
            let s = r["peak"]["source"].as_str().unwrap();
            assert!(
                s.contains(&format!("{:.3} GHz (all-core,", hz / 1e9)),
                "{s}"
            );
        }
    }
    // The nominal clock: used and named where the label tells it, else one line, exit 2.
    let dir = tempfile::tempdir().unwrap();
    let out = common::pb()
        .args([
            "--quiet",
            "--min-time",
            "5ms",
            "--repeat",
            "2",
            "--format",
            "json",
        ])
        .args(base)
        .args(["--clock", "nominal", "--output"])
        .arg(dir.path())
        .output()
        .unwrap();
    if out.status.code() == Some(2) {
        common::assert_refused(
            &out,
            &"--clock nominal",
            &["--clock: the nominal clock is unknown on this machine"],
        );
    } else {
        let rep = common::success_json(&out, "--clock nominal");
        let r = &rep["results"][0];
        assert_eq!(r["peak_clock"]["clock"], "nominal", "{r}");
        assert!(
            r["peak_clock"]["from"]
                .as_str()
                .unwrap()
                .starts_with("nominal, "),
            "{r}"
        );
    }
}
