//! Fixture reports for the exporter, HTML and compare tests, built from the model so
//! they stay valid as it evolves. The same reports are written to
//! `tests/fixtures/report_*.json` for the CLI tests; `fixtures_on_disk_match_the_model`
//! (in `load.rs`'s tests, which read them back) fails when the files drift, and `PEAKBENCH_BLESS=1 cargo test --release fixtures_on`
//! rewrites them.
//!
//! `host()` is a fixed Skylake-SP host (also used by plan tests). `mixed()` follows the conventions of every resource (cpu, memory, disk, net): thread
//! scaling, size/block/depth/msg sweeps, latency percentiles, a sustained time series,
//! reference figures, over-peak, skipped and failed cases, and hostile text.

use super::model::*;
use crate::hw::cpu::{Cache, CpuInfo};
use crate::hw::peak::Peak;
use crate::hw::HostInfo;
use crate::measure::Percentiles;

pub(crate) fn host() -> HostInfo {
    let cache = |level, kind: &str, kib: u64, shared_by| Cache {
        level,
        kind: kind.into(),
        size_bytes: kib * 1024,
        shared_by,
    };
    HostInfo {
        hostname: "fixture-host".into(),
        os: "Debian GNU/Linux 12 (bookworm)".into(),
        kernel: "6.1.0-test".into(),
        arch: "x86_64".into(),
        virtualization: "kvm".into(),
        cpu: CpuInfo {
            vendor: "GenuineIntel".into(),
            model_name: "Intel(R) Xeon(R) Fixture CPU @ 2.10GHz".into(),
            family: 6,
            model: 207,
            stepping: 2,
            microarch: "Emerald Rapids".into(),
            sockets: 1,
            cores: 2,
            threads: 2,
            caches: vec![
                cache(1, "Data", 48, 1),
                cache(1, "Instruction", 32, 1),
                cache(2, "Unified", 2048, 1),
                cache(3, "Unified", 307200, 2),
            ],
            features: vec!["avx2".into(), "fma".into(), "avx512f".into()],
            hypervisor: Some("kvm".into()),
            pin_order: vec![0, 1],
            ..CpuInfo::default()
        },
        memory: crate::hw::memory::MemoryInfo {
            total_bytes: 24 << 30,
            available_bytes: 20 << 30,
            thp: Some("madvise".into()),
            ..Default::default()
        },
        clock: crate::hw::clock::ClockInfo {
            scalar_hz: Some(2.6e9),
            avx512_hz: Some(2.5e9),
            label_hz: Some(2.1e9),
            method: "largest of 20 dependent add chains".into(),
            ..Default::default()
        },
        disks: Vec::new(),
        gpus: Default::default(),
        cgroup: None,
        topology: None,
        tuning: None,
        energy: None,
    }
}

fn report(results: Vec<BenchResult>, started: &str) -> Report {
    Report {
        schema: SCHEMA.into(),
        tool_version: "0.1.0".into(),
        started_at: started.into(),
        finished_at: Some(started.replace(":00Z", ":42Z")),
        host: host(),
        config: serde_json::json!({"repeat": 3, "command": {"command": "quick"}}),
        results,
        hosts: Vec::new(),
        run_quality: None,
    }
}

fn peak(v: f64, source: &str) -> Peak {
    Peak {
        value: Some(v),
        source: source.into(),
    }
}

/// Samples around `mean` with a fixed relative spread pattern (deterministic).
fn around(mean: f64, rel: f64, n: usize) -> Vec<f64> {
    const P: [f64; 6] = [0.0, 1.0, -1.0, 0.5, -0.5, 0.2];
    (0..n).map(|i| mean * (1.0 + rel * P[i % 6])).collect()
}

fn cpu(
    workload: &str,
    precision: &str,
    isa: &str,
    unit: Unit,
    t: u32,
    m: f64,
    p: f64,
) -> BenchResult {
    BenchResult::new(ResourceName::Cpu, workload, Metric::Ops, unit)
        .param("precision", precision)
        .param("isa", isa)
        .param("threads", t)
        .with_samples(around(m, 0.01, 3))
        .with_peak(peak(
            p,
            &format!("{t} cores x 2.5 GHz x 2 instr/cycle x 16 op/instr"),
        ))
}

/// A CPU result of `name` counting operations in `unit`.
pub(crate) fn cpu_ops(name: &str, unit: Unit) -> BenchResult {
    BenchResult::new(ResourceName::Cpu, name, Metric::Ops, unit)
}

/// A bandwidth (bytes per second) result of `resource`'s `name`.
pub(crate) fn throughput(resource: ResourceName, name: &str) -> BenchResult {
    BenchResult::new(resource, name, Metric::Throughput, Unit::BytePerSec)
}

/// A sequential memory-bandwidth result of `kernel` over `size` bytes on `threads`.
pub(crate) fn mem_seq(kernel: &str, size: u64, threads: u32) -> BenchResult {
    throughput(ResourceName::Memory, kernel)
        .param("kernel", kernel)
        .param("pattern", "seq")
        .param("size", size)
        .param("threads", threads)
}

/// A disk result of `pattern` in `metric` and `unit`: `block`-byte I/Os `depth` deep
/// on `jobs` jobs.
pub(crate) fn disk(
    pattern: &str,
    metric: Metric,
    unit: Unit,
    block: u64,
    depth: u32,
    jobs: u32,
) -> BenchResult {
    BenchResult::new(ResourceName::Disk, pattern, metric, unit)
        .param("pattern", pattern)
        .size("block", block)
        .param("depth", depth)
        .param("jobs", jobs)
}

fn pcts(base: f64) -> Percentiles {
    Percentiles {
        p50: base,
        p90: base * 1.4,
        p99: base * 3.5,
        p99_9: base * 9.0,
        max: base * 40.0,
    }
}

/// Every resource's conventions in one report (see the module doc).
pub(crate) fn mixed() -> Report {
    // (workload, precision, isa, unit, threads, measured, peak)
    #[rustfmt::skip]
    let mut rs = vec![
        cpu("fma_f64_avx512", "fp64", "avx512", Unit::FlopPerSec, 1, 76e9, 80e9),
        cpu("fma_f64_avx512", "fp64", "avx512", Unit::FlopPerSec, 2, 150e9, 160e9),
        cpu("fma_f32_avx512", "fp32", "avx512", Unit::FlopPerSec, 1, 155e9, 160e9),
        cpu("fma_f32_avx512", "fp32", "avx512", Unit::FlopPerSec, 2, 300e9, 320e9),
        cpu("add_i32_avx2", "int32", "avx2", Unit::OpPerSec, 1, 88e9, 83.2e9),
        cpu("add_i32_avx2", "int32", "avx2", Unit::OpPerSec, 2, 160e9, 166.4e9),
        cpu_ops("tdpbf16ps_amx", Unit::FlopPerSec)
            .param("precision", "bf16")
            .param("isa", "amx")
            .param("threads", 1)
            .skipped("the OS refused the AMX tile-data permission"),
    ];
    let mut sustained = cpu(
        "fma_f64_avx512",
        "fp64",
        "avx512",
        Unit::FlopPerSec,
        2,
        149e9,
        160e9,
    )
    .param("sustain_s", 10);
    sustained.timeseries = Some(
        (0..10)
            .map(|i| (i as f64 + 1.0, 150e9 - 1e9 * (i as f64 / 3.0).floor()))
            .collect(),
    );
    rs[0].reference = Some(vec![Reference {
        tool: "likwid-bench".into(),
        version: "5.2.2".into(),
        command: "likwid-bench -t peakflops_avx512_fma -W N:32kB:1".into(),
        value: 77e9,
        unit: Unit::FlopPerSec,
    }]);
    rs.push(sustained);
    // Memory: a triad working-set sweep, copy thread scaling, a latency chase by size.
    for (kib, gbs) in [
        (16u64, 180.0),
        (256, 120.0),
        (1024, 95.0),
        (8192, 40.0),
        (65536, 22.0),
        (262144, 21.0),
    ] {
        rs.push(
            mem_seq("triad", kib * 1024, 1)
                .with_samples(around(gbs * 1e9, 0.02, 3))
                .with_peak(if kib >= 65536 {
                    peak(38.4e9, "2 channels x 2400 MT/s x 8 B (SMBIOS)")
                } else {
                    Peak::unknown("cache-resident working set: no DRAM peak applies")
                }),
        );
    }
    for (t, gbs) in [(1, 18.0), (2, 34.0)] {
        rs.push(mem_seq("copy", 268435456, t).with_samples(around(gbs * 1e9, 0.03, 3)));
    }
    for (kib, ns) in [(32u64, 1.2), (1024, 4.5), (16384, 30.0), (262144, 95.0)] {
        let mut r = BenchResult::new(ResourceName::Memory, "chase", Metric::Latency, Unit::Second)
            .param("kernel", "chase")
            .param("pattern", "rand")
            .param("size", kib * 1024)
            .param("threads", 1)
            .with_samples(around(ns * 1e-9, 0.01, 3));
        r.percentiles = Some(pcts(ns * 1e-9));
        rs.push(r);
    }
    // Disk: IOPS by queue depth, bandwidth by block size, latency percentiles.
    for (d, k) in [(1u32, 20.0), (4, 55.0), (16, 75.0), (32, 78.0)] {
        rs.push(
            disk("rand-read", Metric::Iops, Unit::IoPerSec, 4096, d, 1).with_samples(around(
                k * 1e3,
                0.04,
                3,
            )),
        );
    }
    for (b, mbs) in [(4096u64, 300.0), (65536, 900.0), (1048576, 1200.0)] {
        rs.push(
            disk("seq-read", Metric::Throughput, Unit::BytePerSec, b, 32, 1).with_samples(around(
                mbs * 1e6,
                0.05,
                3,
            )),
        );
    }
    let mut lat = disk("rand-read", Metric::Latency, Unit::Second, 4096, 1, 1)
        .with_samples(around(30e-6, 0.02, 3));
    lat.percentiles = Some(pcts(27.5e-6));
    rs.push(lat);
    rs.push(
        disk("rand-write", Metric::Iops, Unit::IoPerSec, 4096, 32, 1)
            .failed("O_DIRECT is not supported by this file system; try --buffered"),
    );
    // Net: TCP throughput by message size, UDP latency percentiles.
    for (m, gbs) in [(1024u64, 1.5), (8192, 3.2), (65536, 3.9)] {
        rs.push(
            throughput(ResourceName::Net, "tcp")
                .param("proto", "tcp")
                .param("test", "throughput")
                .param("msg", m)
                .param("streams", 1)
                .with_samples(around(gbs * 1e9, 0.05, 3)),
        );
    }
    let mut nl = BenchResult::new(ResourceName::Net, "udp", Metric::Latency, Unit::Second)
        .param("proto", "udp")
        .param("test", "latency")
        .param("msg", 64)
        .param("streams", 1)
        .with_samples(around(9e-6, 0.02, 3));
    nl.percentiles = Some(pcts(8.8e-6));
    rs.push(nl);
    // GPU: compute per precision against a datasheet peak, device copy, dispatch latency.
    for (p, tf, peak) in [("fp32", 61.2, 66.9), ("fp64", 31.0, 33.5)] {
        rs.push(
            BenchResult::new(ResourceName::Gpu, "fma", Metric::Ops, Unit::FlopPerSec)
                .param("precision", p)
                .param("device", 0)
                .with_samples(around(tf * 1e12, 0.01, 3))
                .with_peak(Peak {
                    value: Some(peak * 1e12),
                    source: "NVIDIA H100 SXM5 80GB: 16896 FP32 lanes x 1.980 GHz (datasheet boost)"
                        .into(),
                }),
        );
    }
    rs.push(
        BenchResult::new(
            ResourceName::Gpu,
            "copy",
            Metric::Throughput,
            Unit::BytePerSec,
        )
        .param("device", 0)
        .param("size", 1u64 << 30)
        .param("bytes", 2u64 << 30)
        .with_samples(around(2.9e12, 0.01, 3))
        .with_peak(Peak {
            value: Some(3.35e12),
            source: "NVIDIA H100 SXM5 80GB: 3.350 TB/s datasheet memory bandwidth".into(),
        }),
    );
    rs.push(
        BenchResult::new(ResourceName::Gpu, "fma", Metric::Ops, Unit::FlopPerSec)
            .param("precision", "fp16")
            .skipped(
                "adapter 0 (Test GPU) does not offer fp16 in shaders (wgpu feature SHADER_F16)",
            ),
    );
    // Text from anywhere: must come out escaped.
    rs.push(
        BenchResult::new(
            ResourceName::Net,
            "<script>alert('x')</script>",
            Metric::Throughput,
            Unit::BytePerSec,
        )
        .param("proto", "\"><img src=x onerror=alert(1)>")
        .skipped("reason with <b>markup</b> & \"quotes\""),
    );
    report(rs, "2026-11-21T21:00:00Z")
}

/// The fp64 AVX-512 FMA result on `t` threads with `samples`.
pub(crate) fn fma(t: u32, samples: Vec<f64>) -> BenchResult {
    cpu_ops("fma_f64_avx512", Unit::FlopPerSec)
        .param("precision", "fp64")
        .param("isa", "avx512")
        .param("threads", t)
        .with_samples(samples)
}

fn chase(samples: Vec<f64>) -> BenchResult {
    BenchResult::new(ResourceName::Memory, "chase", Metric::Latency, Unit::Second)
        .param("kernel", "chase")
        .param("size", 268435456u64)
        .with_samples(samples)
}

/// A compare fixture: fma on 1, 2 and 4 threads, the chase latency, and one CPU case
/// of its own (`(name, unit, samples)`, on 1 thread), started at `started`.
fn compare(
    fma1: [f64; 5],
    fma2: [f64; 3],
    chase_s: [f64; 3],
    fma4: f64,
    (only, unit, only_s): (&str, Unit, [f64; 2]),
    started: &str,
) -> Report {
    let results = vec![
        fma(1, fma1.to_vec()),
        fma(2, fma2.to_vec()),
        chase(chase_s.to_vec()),
        fma(4, vec![fma4]),
        cpu_ops(only, unit)
            .param("threads", 1)
            .with_samples(only_s.to_vec()),
    ];
    report(results, started)
}

/// Baseline of the compare fixtures.
#[rustfmt::skip]
/// The hosts of a gathered report, one rank each, every one ok.
pub(crate) fn host_runs(names: &[&str]) -> Vec<HostRun> {
    names
        .iter()
        .enumerate()
        .map(|(i, n)| HostRun {
            name: n.to_string(),
            ranks: vec![i],
            info: None,
            status: Status::Ok,
        })
        .collect()
}

pub(crate) fn compare_a() -> Report {
    compare(
        [100e9, 101e9, 99e9, 100e9, 100e9],
        [200e9, 190e9, 210e9],
        [100e-9, 101e-9, 99e-9],
        380e9,
        ("dot_i8_avx512vnni", Unit::OpPerSec, [1e12, 1.01e12]),
        "2026-11-20T10:00:00Z",
    )
}

/// The compared file: fma threads=1 +10 % (significant), threads=2 unchanged within
/// noise, chase latency +20 % (significant, worse), threads=4 with one sample, one case
/// dropped and one new.
#[rustfmt::skip]
pub(crate) fn compare_b() -> Report {
    compare([110e9, 111e9, 109e9, 110e9, 110e9], [201e9, 189e9, 212e9], [120e-9, 121e-9, 119e-9],
        390e9, ("tdpbf16ps_amx", Unit::FlopPerSec, [2e12, 2.02e12]), "2026-11-21T10:00:00Z")
}

/// The fixture files and the reports they must hold.
pub(crate) fn files() -> Vec<(&'static str, Report)> {
    vec![
        ("report_mixed.json", mixed()),
        ("report_compare_a.json", compare_a()),
        ("report_compare_b.json", compare_b()),
    ]
}
