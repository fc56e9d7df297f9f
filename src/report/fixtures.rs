//! A hand-made report shared by the exporter tests.

use super::model::*;
use crate::hw::peak::Peak;
use crate::hw::HostInfo;

pub(crate) fn report() -> Report {
    let ok = super::samples::fma(2, vec![150e9, 152e9, 154e9]).with_peak(Peak {
        value: Some(160e9),
        source: "2 cores x 2.5 GHz".into(),
    });
    let over = BenchResult::new(
        ResourceName::Cpu,
        "add_i32_avx2",
        Metric::Ops,
        Unit::OpPerSec,
    )
    .param("precision", "int32")
    .param("threads", 1)
    .with_samples(vec![11.0, 11.0])
    .with_peak(Peak {
        value: Some(10.0),
        source: "table".into(),
    });
    let skipped = super::samples::cpu_ops("tdpbf16ps_amx", Unit::FlopPerSec)
        .param("precision", "bf16")
        .skipped("CPU lacks amx-bf16");
    Report {
        schema: SCHEMA.into(),
        tool_version: "0.1.0".into(),
        started_at: "2026-11-21T21:00:00Z".into(),
        finished_at: Some("2026-11-21T21:00:05Z".into()),
        // The sample host without its CPU, memory and clock.
        host: HostInfo {
            hostname: "testhost".into(),
            kernel: "6.1.0".into(),
            cpu: Default::default(),
            memory: Default::default(),
            clock: Default::default(),
            ..super::samples::host()
        },
        config: serde_json::json!({"repeat": 3}),
        results: vec![ok, over, skipped],
        hosts: Vec::new(),
        run_quality: None,
    }
}

/// A gathered `net --matrix` report of hosts a, b, c: one weak link (c → a, 4 of
/// 10 GB/s) and one failed (c → b); for the matrix's grid and its views.
pub(crate) fn matrix() -> Report {
    let link = |from: &str, to: &str, v: Option<f64>| {
        let r = super::samples::throughput(ResourceName::Net, "tcp_throughput")
            .param("from", from)
            .param("to", to);
        match v {
            Some(v) => r.with_samples(vec![v, v]),
            None => r.failed("not measured: rank 2 (c): connection closed"),
        }
    };
    let mut rep = report();
    rep.hosts = super::samples::host_runs(&["a", "b", "c"]);
    rep.results = vec![
        link("a", "b", Some(10e9)),
        link("b", "a", Some(10e9)),
        link("a", "c", Some(10e9)),
        link("c", "a", Some(4e9)),
        link("b", "c", Some(10e9)),
        link("c", "b", None),
    ];
    rep
}
