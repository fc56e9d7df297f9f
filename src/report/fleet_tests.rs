//! Tests of the fleet merge and its outlier rule (`fleet.rs`) and of its views.

use super::*;
use crate::report::model::ResourceName;
use crate::report::samples;
use crate::report::{export, Format};

/// A one-host report of `name`: fma on 1 thread at `fma` FLOP/s, the chase latency at
/// `chase` s, an AMX case skipped, with `--repeat repeat`.
fn host(name: &str, fma: f64, chase: f64, repeat: u32) -> Report {
    let mut r = crate::report::fixtures::report();
    r.host.hostname = name.into();
    r.config = serde_json::json!({
        "repeat": repeat, "min_time_s": 0.5, "format": "json", "output": name,
        "quiet": true, "scaling": "strong", "peaks": {},
        "command": {"command": "cpu", "threads": [1], "sustain_s": null}
    });
    r.results = vec![
        samples::fma(1, vec![fma * 0.99, fma, fma * 1.01]),
        BenchResult::new(ResourceName::Memory, "chase", Metric::Latency, Unit::Second)
            .param("kernel", "chase")
            .with_samples(vec![chase, chase, chase]),
        samples::cpu_ops("tdpbf16ps_amx", Unit::FlopPerSec)
            .param("precision", "bf16")
            .skipped("CPU lacks amx-bf16"),
    ];
    r
}

fn names(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("h{i}.json")).collect()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * b.abs().max(1.0)
}

#[test]
fn robust_z_hand_computed() {
    // median 99.5; |x − m| = .5 1.5 .5 2.5 1.5 39.5 → MAD 1.5.
    let xs = [100.0, 101.0, 99.0, 102.0, 98.0, 60.0];
    let (m, mad) = median_mad(&xs);
    assert_eq!((m, mad), (99.5, 1.5));
    let (z, scale) = robust_z(&xs);
    assert_eq!(scale, "MAD");
    assert!(close(z[5].unwrap(), 0.6745 * -39.5 / 1.5));
    assert!(close(z[3].unwrap(), 0.6745 * 2.5 / 1.5));
    let rule = Rule::default();
    assert!(is_outlier(z[5], Some(39.5 / 99.5), &rule));
    assert!(!is_outlier(z[3], Some(2.5 / 99.5), &rule));
}

#[test]
fn mad_zero_falls_back_to_mean_ad_and_all_equal_has_no_outlier() {
    // Four equal values: MAD 0; MeanAD = 5/5 = 1 → z = −5 / 1.253314.
    let (z, scale) = robust_z(&[10.0, 10.0, 10.0, 10.0, 5.0]);
    assert!(scale.starts_with("MeanAD"));
    assert!(close(z[4].unwrap(), -5.0 / 1.253314));
    assert!(z[4].unwrap().abs() > DEFAULT_Z);
    let (z, scale) = robust_z(&[7.0; 4]);
    assert_eq!(scale, "all equal");
    assert!(z.iter().all(|z| *z == Some(0.0)));
}

#[test]
fn fewer_than_three_hosts_have_no_scores() {
    let (z, scale) = robust_z(&[1.0, 100.0]);
    assert_eq!(z, [None, None]);
    assert!(scale.contains("fewer than 3"));
    assert!(!is_outlier(None, Some(0.9), &Rule::default()));
}

#[test]
fn the_gap_rule_keeps_tiny_differences_out() {
    // A tight fleet: 99 is far in z (MAD 0.05) but only 1 % from the median.
    let xs = [100.0, 100.05, 99.95, 100.1, 99.9, 99.0];
    let (m, _) = median_mad(&xs);
    let (z, _) = robust_z(&xs);
    assert!(z[5].unwrap().abs() > DEFAULT_Z);
    assert!(!is_outlier(z[5], Some((m - 99.0) / m), &Rule::default()));
    let loose = Rule {
        threshold: DEFAULT_Z,
        min_gap: 0.0,
    };
    assert!(is_outlier(z[5], Some((m - 99.0) / m), &loose));
}

#[test]
fn quartiles_are_type_7() {
    let v = [1.0, 2.0, 3.0, 4.0];
    assert_eq!(quantile_sorted(&v, 0.25), 1.75);
    assert_eq!(quantile_sorted(&v, 0.75), 3.25);
    assert_eq!(quantile_sorted(&[5.0], 0.25), 5.0);
}

/// Four hosts within 1 % of each other in compute and memory latency.
fn healthy() -> Vec<Report> {
    vec![
        host("a", 100e9, 100e-9, 3),
        host("b", 101e9, 101e-9, 3),
        host("c", 99e9, 99e-9, 3),
        host("d", 100.5e9, 100.5e-9, 3),
    ]
}

#[test]
fn merge_finds_the_slow_host_in_both_directions() {
    let mut reps = healthy();
    // Slow in compute (low FLOP/s) and slow in memory (high latency).
    reps.push(host("e", 60e9, 150e-9, 3));
    let f = fleet(&names(5), &reps, Rule::default());
    assert_eq!(f.schema, "peakbench-fleet/1");
    assert_eq!(f.hosts.len(), 5);
    assert_eq!(f.workloads.len(), 2, "{:?}", f.workloads);
    let fma = &f.workloads[0];
    assert_eq!(fma.case.workload, "fma_f64_avx512");
    assert_eq!(fma.n, 5);
    assert!(fma.settings.is_none());
    assert!(close(fma.median, 100e9));
    assert!(close(fma.mad, 1e9));
    let out: Vec<&HostValue> = fma.outliers().collect();
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].host, "e");
    assert_eq!(out[0].side, Some("slow"));
    assert!(close(out[0].below_median.unwrap(), 0.4));
    assert!(close(out[0].z.unwrap(), 0.6745 * -40.0));
    let chase = &f.workloads[1];
    let e = chase.hosts.iter().find(|h| h.host == "e").unwrap();
    assert!(e.outlier);
    assert_eq!(e.side, Some("slow"), "a higher latency is slower");
    assert!(e.below_median.unwrap() < 0.0);
    // The skipped AMX case has no row; it is a warning naming every host.
    assert!(f
        .warnings
        .iter()
        .any(|w| w.contains("tdpbf16ps_amx") && w.contains("e: skipped")));
    let he = f.hosts.iter().find(|h| h.host == "e").unwrap();
    assert_eq!((he.workloads, he.slow, he.fast), (2, 2, 0));
    assert!(close(he.worst.unwrap(), (150.0 - 100.5) / 100.5));
    assert!(he.worst_case.as_deref().unwrap().contains("chase"));
    let ha = f.hosts.iter().find(|h| h.host == "a").unwrap();
    assert_eq!(ha.slow, 0);
}

#[test]
fn a_disturbed_host_is_weaker_evidence_never_slow() {
    let mut e = host("e", 60e9, 100e-9, 3);
    // Its fma row ran while another process shared a core.
    e.results[0].disturbed = true;
    let mut reps = healthy();
    reps.push(e);
    let f = fleet(&names(5), &reps, Rule::default());
    let v = f.workloads[0].hosts.iter().find(|h| h.host == "e").unwrap();
    assert!(v.outlier && v.disturbed);
    assert_eq!(v.side, Some("disturbed"));
    let h = f.hosts.iter().find(|h| h.host == "e").unwrap();
    assert_eq!((h.slow, h.fast), (0, 0));
    assert_eq!(h.worst_case, None);
}

#[test]
fn differing_settings_are_labelled_never_mixed() {
    let mut reps: Vec<Report> = (0..3)
        .map(|i| host(&format!("r3-{i}"), 100e9, 1e-7, 3))
        .collect();
    reps.extend((0..2).map(|i| host(&format!("r5-{i}"), 50e9, 1e-7, 5)));
    let f = fleet(&names(5), &reps, Rule::default());
    let fma: Vec<&Workload> = f
        .workloads
        .iter()
        .filter(|w| w.case.workload == "fma_f64_avx512")
        .collect();
    assert_eq!(fma.len(), 2);
    assert_eq!(fma[0].settings.as_deref(), Some("repeat=3"));
    assert_eq!(fma[0].n, 3);
    assert!(close(fma[0].median, 100e9));
    assert_eq!(fma[1].settings.as_deref(), Some("repeat=5"));
    assert_eq!(fma[1].n, 2);
    assert!(close(fma[1].median, 50e9));
    assert!(fma.iter().all(|w| w.outliers().next().is_none()));
    assert!(fma[1].label().ends_with("{repeat=5}"));
    assert!(f
        .warnings
        .iter()
        .any(|w| w.contains("differing settings") && w.contains("repeat=5")));
    // Presentation options (format, output) differ between every file above and
    // never split a case; a version does.
    reps[0].tool_version = "9.9.9".into();
    let f = fleet(&names(5), &reps, Rule::default());
    assert!(f
        .workloads
        .iter()
        .any(|w| w.settings.as_deref() == Some("repeat=3, tool_version=9.9.9")));
}

#[test]
fn a_host_named_twice_is_told_apart_by_its_file() {
    let reps = vec![host("same", 1e9, 1e-7, 3), host("same", 2e9, 1e-7, 3)];
    let f = fleet(&names(2), &reps, Rule::default());
    let hs: Vec<&str> = f.hosts.iter().map(|h| h.host.as_str()).collect();
    assert_eq!(hs, ["same (h0.json)", "same (h1.json)"]);
    assert_eq!(f.workloads[0].n, 2);
    assert!(f.warnings.iter().any(|w| w.contains("more than one file")));
}

/// Issue #45: `fleet results/*.json` read `HOST-latest.json`, a copy of the newest run,
/// beside that run's own file, and counted the host twice. The same run is counted once.
#[test]
fn the_same_run_in_two_files_counts_once() {
    let reps = vec![
        host("a", 1e9, 1e-7, 3),
        host("b", 1.1e9, 1e-7, 3),
        host("a", 1e9, 1e-7, 3),
    ];
    let f = fleet(&names(3), &reps, Rule::default());
    let hs: Vec<&str> = f.hosts.iter().map(|h| h.host.as_str()).collect();
    assert_eq!(hs, ["a", "b"]);
    assert_eq!(f.workloads[0].n, 2);
    assert!(
        f.warnings
            .iter()
            .any(|w| w == "h2.json is the same run as h0.json: counted once"),
        "{:?}",
        f.warnings
    );
}

/// Issue #33 item 15: `a` and `a ` are one host named twice, not two hosts.
#[test]
fn issue_33_host_names_differing_in_white_space_are_one_host() {
    let reps = vec![host("a", 1e9, 1e-7, 3), host("a ", 2e9, 1e-7, 3)];
    let f = fleet(&names(2), &reps, Rule::default());
    let hs: Vec<&str> = f.hosts.iter().map(|h| h.host.as_str()).collect();
    assert_eq!(hs, ["a (h0.json)", "a (h1.json)"]);
    assert!(f
        .warnings
        .iter()
        .any(|w| w.contains("host a appears in more than one file")));
}

#[test]
fn a_gathered_file_is_split_into_its_hosts() {
    let mut g = host("rank0", 1e9, 1e-7, 3);
    let mut results = Vec::new();
    for (name, v) in [("n1", 100e9), ("n2", 101e9), ("n3", 99e9), ("n4", 50e9)] {
        let mut r = samples::fma(1, vec![v, v, v]);
        r.host = Some(name.into());
        results.push(r);
    }
    g.results = results;
    g.hosts = samples::host_runs(&["n1", "n2", "n3", "n4", "n5"]);
    g.hosts[4].status = Status::Failed {
        error: "rank 4 did not answer within 30 s".into(),
    };
    // It round-trips through the loader (the schema stays peakbench/2).
    let bytes = serde_json::to_vec(&g).unwrap();
    let back = crate::report::load::parse("g.json", &bytes).unwrap();
    assert_eq!(back, g);
    let f = fleet(&["g.json".to_string()], &[back], Rule::default());
    assert_eq!(f.hosts.len(), 4);
    assert_eq!(f.workloads[0].n, 4);
    assert_eq!(
        f.workloads[0]
            .outliers()
            .map(|h| h.host.as_str())
            .collect::<Vec<_>>(),
        ["n4"]
    );
    assert!(f
        .warnings
        .iter()
        .any(|w| w.contains("host n5 has no results") && w.contains("rank 4")));
}

#[test]
fn every_format_renders_and_escapes() {
    let mut reps = vec![
        host("a", 100e9, 1e-7, 3),
        host("b", 101e9, 1e-7, 3),
        host("c", 99e9, 1e-7, 3),
        host("<script>x</script>", 10e9, 1e-7, 3),
    ];
    reps.push(host("r5", 1e9, 1e-7, 5));
    let f = fleet(&names(5), &reps, Rule::default());
    // OpenMetrics refuses a fleet (it has no run's figures).
    for &fmt in Format::all().iter().filter(|f| f.name() != "openmetrics") {
        let mut buf = Vec::new();
        export(&f, fmt, &mut buf).unwrap();
        let s = String::from_utf8(buf).unwrap();
        assert!(s.contains("fma_f64_avx512"), "{fmt:?}");
        if fmt.name() == "html" {
            assert!(s.starts_with("<!DOCTYPE html>") && s.ends_with("</html>\n"));
            assert!(!s.contains("<script>"));
            assert!(s.contains("&lt;script&gt;"));
            assert!(!s.contains("NaN"));
        }
        if fmt.name() == "csv" {
            assert!(s.starts_with(crate::report::view::csv::FLEET_HEADER));
            // One row per (workload, host): fma (4 + 1 rows) and chase (4 + 1).
            assert_eq!(s.lines().count(), 1 + 10, "{s}");
        }
    }
    let v = serde_json::to_value(&f).unwrap();
    assert_eq!(v["rule"]["threshold"], 3.5);
    assert_eq!(v["workloads"][0]["hosts"][0]["host"], "<script>x</script>");
}
