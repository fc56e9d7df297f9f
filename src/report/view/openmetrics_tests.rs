//! Tests of the OpenMetrics view (`openmetrics.rs`).

use super::*;

fn text(r: &Report) -> String {
    let mut buf = Vec::new();
    render(r, None, &mut buf).unwrap();
    String::from_utf8(buf).unwrap()
}

/// Every name a family or label may have: the Prometheus data model's rule.
fn valid_name(s: &str) -> bool {
    let mut c = s.chars();
    c.next()
        .is_some_and(|f| f.is_ascii_alphabetic() || f == '_' || f == ':')
        && c.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':')
}

#[test]
fn names_follow_the_conventions() {
    for u in Unit::ALL {
        let (stem, unit, _) = figure(*u);
        let name = format!("peakbench_{stem}");
        assert!(valid_name(&name), "{name}");
        // A `# UNIT` is the name's suffix, and the names end in base units.
        if let Some(unit) = unit {
            assert!(name.ends_with(&format!("_{unit}")), "{name} {unit}");
        }
        assert!(
            name.ends_with("_per_second") || name.ends_with("_seconds"),
            "{name}"
        );
        for bad in [
            "_ms", "milli", "kilo", "giga", "_bits", "_percent", "_total",
        ] {
            assert!(!name.contains(bad), "{name}");
        }
    }
    let s = text(&crate::report::fixtures::report());
    for l in s.lines().filter(|l| !l.starts_with('#')) {
        let name = l.split(['{', ' ']).next().unwrap();
        assert!(name.starts_with("peakbench_") && valid_name(name), "{l}");
    }
    for l in s.lines().filter(|l| l.starts_with("# UNIT ")) {
        let mut w = l.split(' ').skip(2);
        let (name, unit) = (w.next().unwrap(), w.next().unwrap());
        assert!(name.ends_with(&format!("_{unit}")), "{l}");
    }
}

#[test]
fn label_names_are_made_valid() {
    assert_eq!(label_name("threads"), "threads");
    assert_eq!(label_name("file_size"), "file_size");
    assert_eq!(label_name("io-depth"), "io_depth");
    assert_eq!(label_name("2x"), "_2x");
    assert_eq!(label_name("__name__"), "param__name__");
    assert_eq!(label_name(""), "param");
    for k in ["a.b", "ü", "x y", "9", "__"] {
        assert!(valid_name(&label_name(k)), "{k}");
    }
}

#[test]
fn label_values_are_escaped() {
    assert_eq!(escape_value("plain"), "plain");
    assert_eq!(escape_value(r"a\b"), r"a\\b");
    assert_eq!(escape_value("say \"x\""), r#"say \"x\""#);
    assert_eq!(escape_value("two\nlines"), r"two\nlines");
    assert_eq!(escape_value("bell\x07"), r"bell\\x07");
    assert_eq!(escape_value("\u{1b}[2J"), r"\\x1b[2J");
    assert_eq!(escape_value("über"), "über");
    let long = "x".repeat(2000);
    assert_eq!(escape_value(&long).chars().count(), 1001);
    let mut r = crate::report::fixtures::report();
    r.host.hostname = "evil\"}\nfake_metric 1".into();
    r.results[0].workload = "w\\\"".into();
    let s = text(&r);
    assert!(s.contains(r#"host="evil\"}\nfake_metric 1""#), "{s}");
    assert!(s.contains(r#"workload="w\\\"""#), "{s}");
    assert!(!s.lines().any(|l| l.starts_with("fake_metric")), "{s}");
}

#[test]
fn numbers_read_back() {
    for (x, s) in [
        (0.0, "0"),
        (1.0, "1"),
        (0.95, "0.95"),
        (152e9, "152000000000"),
        (1.5e-9, "1.5e-9"),
        (3.2e15, "3.2e15"),
        (-2.5, "-2.5"),
        (f64::INFINITY, "+Inf"),
    ] {
        assert_eq!(number(x), s);
        if x.is_finite() {
            assert_eq!(s.parse::<f64>().unwrap(), x);
        }
    }
}

#[test]
fn a_report_as_gauges_with_units_and_eof() {
    let s = text(&crate::report::fixtures::report());
    assert!(s.ends_with("# EOF\n"), "{s}");
    assert_eq!(s.matches("# EOF").count(), 1);
    assert!(s.contains(
        "# TYPE peakbench_floating_point_operations_per_second gauge\n# HELP peakbench_floating_point_operations_per_second Mean"
    ), "{s}");
    assert!(s.contains(
        "peakbench_floating_point_operations_per_second{command=\"\",resource=\"cpu\",workload=\"fma_f64_avx512\",metric=\"ops\",isa=\"avx512\",precision=\"fp64\",threads=\"2\"} 152000000000\n"
    ), "{s}");
    assert!(s.contains("peakbench_peak_floating_point_operations_per_second{command=\"\",resource=\"cpu\",workload=\"fma_f64_avx512\",metric=\"ops\",isa=\"avx512\",precision=\"fp64\",threads=\"2\"} 160000000000\n"), "{s}");
    assert!(
        s.contains(
            "# TYPE peakbench_efficiency_ratio gauge\n# UNIT peakbench_efficiency_ratio ratio\n"
        ),
        "{s}"
    );
    assert!(s.contains("peakbench_efficiency_ratio{command=\"\",resource=\"cpu\",workload=\"fma_f64_avx512\",metric=\"ops\",isa=\"avx512\",precision=\"fp64\",threads=\"2\"} 0.95\n"), "{s}");
    // Over the peak: the ratio is above 1, never clamped.
    assert!(
        s.contains(
            "workload=\"add_i32_avx2\",metric=\"ops\",precision=\"int32\",threads=\"1\"} 1.1\n"
        ),
        "{s}"
    );
    assert!(
        s.contains("peakbench_run_info{version=\"0.1.0\",host=\"testhost\",command=\"\"} 1\n"),
        "{s}"
    );
    // 2026-11-21T21:00:05Z.
    assert!(s.contains("# UNIT peakbench_last_success_timestamp_seconds seconds\n"));
    assert!(
        s.contains("\npeakbench_last_success_timestamp_seconds{command=\"\"} 1795294805\n"),
        "{s}"
    );
    assert!(
        s.contains("peakbench_run_cases{command=\"\",status=\"skipped\"} 1\n"),
        "{s}"
    );
    // The skipped case has no figure.
    assert!(!s.contains("tdpbf16ps_amx"), "{s}");
    // Every family's samples are together, each family once, no timestamps.
    let mut names: Vec<&str> = Vec::new();
    for l in s.lines().filter(|l| !l.starts_with('#')) {
        let name = l.split(['{', ' ']).next().unwrap();
        if names.last() != Some(&name) {
            assert!(!names.contains(&name), "{name} split: {s}");
            names.push(name);
        }
        let value = l.rsplit(' ').next().unwrap();
        assert!(value.parse::<f64>().is_ok(), "{l}");
        // `name{labels} value`: no timestamp after the value.
        let (series, _) = l.rsplit_once(' ').unwrap();
        assert!(series.ends_with('}') || !series.contains(' '), "{l}");
    }
}

#[test]
fn a_failed_case_drops_the_success_and_the_file_carries_the_last_one() {
    let mut r = crate::report::fixtures::report();
    r.results[1] = r.results[1].clone().failed("boom");
    let s = text(&r);
    assert!(!s.contains(LAST_SUCCESS), "{s}");
    assert!(
        s.contains("peakbench_case_failed{command=\"\",resource=\"cpu\",workload=\"add_i32_avx2\""),
        "{s}"
    );
    assert!(s.contains("peakbench_run_finished_timestamp_seconds{command=\"\"} 1795294805\n"));
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("pb.prom");
    save(&crate::report::fixtures::report(), Some(&p)).unwrap();
    save(&r, Some(&p)).unwrap();
    let s = std::fs::read_to_string(&p).unwrap();
    assert!(
        s.contains("\npeakbench_last_success_timestamp_seconds{command=\"\"} 1795294805\n"),
        "{s}"
    );
    assert!(
        s.contains("peakbench_run_cases{command=\"\",status=\"failed\"} 1\n"),
        "{s}"
    );
    // Written atomically: the file and nothing else.
    assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 1);
    save(&r, None).unwrap();
}

#[test]
fn repeated_cases_stay_distinct_series() {
    let mut r = crate::report::fixtures::report();
    let first = r.results[0].clone();
    r.results.push(first);
    let s = text(&r);
    assert!(s.contains(",seq=\"3\"} 152000000000\n"), "{s}");
}

#[test]
fn only_reports_have_metrics() {
    let names = vec!["a".to_string(), "b".to_string()];
    let reports = [
        crate::report::samples::compare_a(),
        crate::report::samples::compare_b(),
    ];
    let cmp = crate::report::compare::compare(&names, &reports);
    let e = write(Doc::Comparison(&cmp), None, &mut Vec::new()).unwrap_err();
    assert!(e
        .to_string()
        .contains("openmetrics renders the figures of a run"));
    let mut buf = Vec::new();
    write(Doc::Matrix(&reports[0]), None, &mut buf).unwrap();
    assert!(String::from_utf8(buf).unwrap().ends_with("# EOF\n"));
}

/// Issue #44 item 1: every series names its command, so several commands' files in
/// one textfile directory never hold the same series.
#[test]
fn every_series_carries_the_command() {
    let mut r = crate::report::fixtures::report();
    r.config = serde_json::json!({"command": {"command": "cpu"}});
    let s = text(&r);
    for l in s.lines().filter(|l| !l.starts_with('#')) {
        assert!(l.contains("command=\"cpu\""), "{l}");
    }
    // The last success of a labelled file is carried over.
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("pb.prom");
    save(&r, Some(&p)).unwrap();
    assert_eq!(previous_success(&p), Some(1795294805.0));
}

/// Issue #43 item 7: parameter keys that sanitise alike, or that take a fixed label's
/// name or another's rename, get distinct label names.
#[test]
fn label_names_are_unique_by_construction() {
    assert_eq!(
        param_names(["io-depth", "io.depth", "io_depth"]),
        ["param_io_depth", "param_io_depth_2", "io_depth"]
    );
    assert_eq!(
        param_names(["host", "param_host", "command", "threads"]),
        ["param_host_2", "param_host", "param_command", "threads"]
    );
    let mut r = crate::report::fixtures::report();
    for k in [
        "host",
        "param_host",
        "a-b",
        "a.b",
        "a_b",
        "seq",
        "__x",
        "param__x",
    ] {
        r.results[0] = r.results[0].clone().param(k, 1);
    }
    r.results[0].host = Some("n1".into());
    let s = text(&r);
    for l in s.lines().filter(|l| !l.starts_with('#') && l.contains('{')) {
        let inner = &l[l.find('{').unwrap() + 1..l.rfind('}').unwrap()];
        let mut names: Vec<&str> = inner
            .split("\",")
            .map(|kv| kv.split('=').next().unwrap())
            .collect();
        let n = names.len();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), n, "duplicate label names: {l}");
        for name in names {
            assert!(valid_name(name), "{name}: {l}");
        }
    }
}

/// Issue #44 item 1: a latency case's percentiles are exported.
#[test]
fn latency_percentiles_are_exported() {
    let mut r = crate::report::fixtures::report();
    let lat = crate::report::model::BenchResult::new(
        crate::report::model::ResourceName::Disk,
        "rand-read",
        crate::report::model::Metric::Latency,
        Unit::Second,
    )
    .param("block", 4096)
    .with_samples(vec![1e-4, 1.1e-4, 1.2e-4]);
    let mut lat = lat;
    lat.percentiles = crate::measure::stats::percentiles(&[1e-4, 2e-4, 3e-4, 9e-4]);
    r.results.push(lat);
    let s = text(&r);
    assert!(
        s.contains("# TYPE peakbench_latency_percentile_seconds gauge\n# UNIT peakbench_latency_percentile_seconds seconds\n"),
        "{s}"
    );
    for p in ["p50", "p90", "p99", "p99.9", "max"] {
        assert!(
            s.contains(&format!(
                "peakbench_latency_percentile_seconds{{command=\"\",resource=\"disk\",workload=\"rand-read\",metric=\"latency\",block=\"4096\",percentile=\"{p}\"}} "
            )),
            "{p}: {s}"
        );
    }
}

/// Issue #43 items 1 and 5: a FIFO at `--prom-file` after a failed case is never
/// opened for reading (that blocked for ever); with nobody reading it the write is
/// refused at once, and with a reader the metrics go through it, in place.
#[test]
fn a_fifo_at_the_prom_file_is_never_waited_on() {
    use std::io::Read;
    use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
    let mut r = crate::report::fixtures::report();
    r.results[1] = r.results[1].clone().failed("boom");
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("pb.prom");
    let c = std::ffi::CString::new(p.to_str().unwrap()).unwrap();
    // SAFETY: a valid C string.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let e = save(&r, Some(&p)).unwrap_err().to_string();
    assert!(e.contains("no reader on FIFO "), "{e}");
    let mut reader = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(&p)
        .unwrap();
    save(&r, Some(&p)).unwrap();
    let mut got = String::new();
    reader.read_to_string(&mut got).unwrap();
    assert!(got.contains("status=\"failed\"} 1\n"), "{got}");
    assert!(std::fs::symlink_metadata(&p).unwrap().file_type().is_fifo());
    assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 1);
}
