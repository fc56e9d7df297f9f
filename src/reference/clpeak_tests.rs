//! Tests of the clpeak adapter: parsing a real clpeak 1.1.2 run and a hand-written
//! multi-platform output in its format, device matching by name, flag choice, and the
//! whole case path with the memo filled as clpeak would have (no clpeak, no GPU needed).

use super::*;

const POCL: &str = include_str!("../../tests/fixtures/tools/clpeak_1.1.2_pocl.txt");
const POCL_LIST: &str =
    include_str!("../../tests/fixtures/tools/clpeak_1.1.2_kernel_latency_pocl.txt");
const MULTI: &str = include_str!("../../tests/fixtures/tools/clpeak_multi.txt");

fn close(a: Option<f64>, b: f64) -> bool {
    a.is_some_and(|a| (a - b).abs() <= 1e-9 * b.abs())
}

#[test]
fn parses_a_real_clpeak_1_1_2_run() {
    let d = parse(POCL);
    assert_eq!(d.len(), 1);
    let d = &d[0];
    assert_eq!((d.platform_index, d.index), (0, 0));
    assert_eq!(d.platform, "Portable Computing Language");
    assert!(d
        .name
        .starts_with("pthread-skylake-avx512-Intel(R) Xeon(R)"));
    let f = d.figures;
    // Best widths: float8 bandwidth, float16 / double16 / int16 compute.
    assert!(close(f.global_bandwidth, 7.52e9), "{f:?}");
    assert!(close(f.single, 8.17e9));
    assert!(close(f.double, 6.15e9));
    assert!(close(f.integer, 4.72e9));
    // "No half precision support! Skipped".
    assert_eq!(f.half, None);
}

#[test]
fn parses_a_listing_run() {
    let d = parse(POCL_LIST);
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].figures, Figures::default());
}

#[test]
fn parses_several_platforms_and_devices() {
    let d = parse(MULTI);
    let ids: Vec<(usize, usize, &str)> = d
        .iter()
        .map(|x| (x.platform_index, x.index, x.name.as_str()))
        .collect();
    assert_eq!(
        ids,
        [
            (0, 0, "NVIDIA GeForce RTX 3080"),
            (0, 1, "NVIDIA GeForce RTX 3080 Ti"),
            (1, 0, "Intel(R) UHD Graphics 630 [0x3e92]"),
            (
                2,
                0,
                "pthread-haswell-Intel(R) Core(TM) i7-8700 CPU @ 3.20GHz"
            ),
        ]
    );
    let nv = d[0].figures;
    assert!(close(nv.global_bandwidth, 702.77e9));
    assert!(close(nv.single, 30112.08e9));
    assert!(close(nv.half, 30006.47e9));
    assert!(close(nv.double, 470.51e9));
    assert!(close(nv.integer, 15120.66e9));
    // The Ti's figures stay with the Ti; it ran no half/double/integer test.
    let ti = d[1].figures;
    assert!(close(ti.single, 34950.25e9));
    assert_eq!((ti.half, ti.double, ti.integer), (None, None, None));
    // Intel: float16 failed (error text, not a number), no fp64, and neither the
    // 24-bit integer test nor the transfer rows leak into the figures.
    let intel = d[2].figures;
    assert!(close(intel.single, 452.10e9));
    assert!(close(intel.half, 901.37e9));
    assert_eq!(intel.double, None);
    assert!(close(intel.integer, 150.06e9));
    assert!(close(intel.global_bandwidth, 21.34e9));
    assert!(close(d[3].figures.global_bandwidth, 19.61e9));
    assert_eq!(d[3].figures.single, None);
}

#[test]
fn parses_indexed_lines_units_and_other_backends() {
    let text = "Backend: CUDA\n  Device 0: NVIDIA H100\n\n    Single-precision compute (GFLOPS)\n      float : 1.0\n\
                Backend: OpenCL\n  Platform 1: NVIDIA CUDA\n    Device 2: NVIDIA H100\n\
                \t\tGlobal memory bandwidth [vec] (GB/s)\n\t\tfloat4 : 3000.5\n\
                \t\tSingle-precision compute (TFLOPS)\n\t\tfloat  : 51.2\n";
    let d = parse(text);
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!((d[0].platform_index, d[0].index), (1, 2));
    assert!(close(d[0].figures.global_bandwidth, 3000.5e9));
    assert!(close(d[0].figures.single, 51.2e12));
}

#[test]
fn odd_input_gives_nothing_and_no_panic() {
    for text in [
        "",
        "no platforms found",
        "clGetPlatformIDs (-1001)\nno platforms found\n",
        "    float : 1.0\n",
        "Device:\n  Single-precision compute (µFLOPS)\n  float : 9\n",
        "Device: x\n  Single-precision compute (GFLOPS\n  float : 9\n",
        "Device: x\n  Integer compute (GFLOPS)\n  int : 9\n",
        "Device: x\n  Single-precision compute (GFLOPS)\n  float : nan\n  float2 : -3\n  floatx : 4\n  l2float4 : 5\n",
        "Platform 99999999999999999999999: x\nDevice: y\n",
        "Platform:\u{1b}[1m p\u{1b}[0m\n",
    ] {
        for d in parse(text) {
            assert_eq!(d.figures, Figures::default(), "{text:?}");
        }
    }
}

#[test]
fn names_match_across_apis_but_not_across_models() {
    let yes = [
        ("NVIDIA H100 80GB HBM3", "NVIDIA H100 80GB HBM3"),
        ("NVIDIA GeForce GTX 1080", "GeForce GTX 1080"),
        (
            "Intel(R) UHD Graphics 630 (CFL GT2)",
            "Intel(R) UHD Graphics 630 [0x3e92]",
        ),
        (
            "Intel(R) Arc(tm) A770 Graphics (DG2)",
            "Intel(R) Arc(TM) A770 Graphics",
        ),
        (
            "AMD Radeon RX 6800 XT (RADV NAVI21)",
            "AMD Radeon RX 6800 XT",
        ),
        ("Apple M1", "Apple M1"),
    ];
    for (a, b) in yes {
        assert!(same_model(a, b), "{a} / {b}");
        assert!(same_model(b, a), "{b} / {a}");
    }
    let no = [
        ("NVIDIA GeForce RTX 3080", "NVIDIA GeForce RTX 3080 Ti"),
        ("AMD Radeon RX 6800 XT (RADV NAVI21)", "gfx1030"),
        (
            "llvmpipe (LLVM 15.0.6, 256 bits)",
            "pthread-skylake-avx512-Intel(R) Xeon(R) Processor @ 2.50GHz",
        ),
        ("NVIDIA", "AMD"),
        ("", ""),
        ("(unknown)", "(unknown)"),
    ];
    for (a, b) in no {
        assert!(!same_model(a, b), "{a} / {b}");
    }
}

#[test]
fn picks_the_device_by_name_and_builds_its_command() {
    let d = parse(MULTI);
    let m = matching(&d, "Intel(R) UHD Graphics 630 (CFL GT2)");
    assert_eq!(m.len(), 1);
    let flags = test_flags("").unwrap();
    assert_eq!(
        run_argv(&flags, m[0]).join(" "),
        "clpeak -p 1 -d 0 --global-bandwidth --compute-sp --compute-dp --compute-integer"
    );
    let m = matching(&d, "NVIDIA GeForce RTX 3080 Ti");
    assert_eq!((m.len(), m[0].platform_index, m[0].index), (1, 0, 1));
    assert!(matching(&d, "NVIDIA H100 80GB HBM3").is_empty());
}

#[test]
fn flags_follow_the_help_text() {
    // clpeak 1.1.2 (Debian 12): no --compute-hp; half precision runs with --compute-dp.
    let old = "  --global-bandwidth  x\n  --compute-sp  x\n  --compute-dp  x\n  --compute-integer  x\n  --compute-intfast  x\n";
    assert_eq!(
        test_flags(old).unwrap(),
        [
            "--global-bandwidth",
            "--compute-sp",
            "--compute-dp",
            "--compute-integer"
        ]
    );
    let new = format!("{old}  --compute-hp  x\n");
    assert_eq!(test_flags(&new).unwrap(), TEST_FLAGS);
    assert!(test_flags("  --single-precision-compute\n").is_err());
}

#[test]
fn cases_map_to_tests() {
    let gpu = |w: &str, p: Option<&str>, metric: &str, unit: &str| {
        let r = BenchResult::new(
            ResourceName::Gpu,
            w,
            Metric::parse(metric).unwrap(),
            Unit::parse(unit).unwrap(),
        );
        match p {
            Some(p) => r.param("precision", p),
            None => r,
        }
    };
    let cases = [
        (
            gpu("fma", Some("fp32"), "ops", "FLOP/s"),
            Some(Test::Single),
        ),
        (gpu("fma", Some("fp16"), "ops", "FLOP/s"), Some(Test::Half)),
        (
            gpu("fma", Some("fp64"), "ops", "FLOP/s"),
            Some(Test::Double),
        ),
        (
            gpu("muladd", Some("int32"), "ops", "OP/s"),
            Some(Test::Integer),
        ),
        (
            gpu("read", None, "throughput", "B/s"),
            Some(Test::GlobalBandwidth),
        ),
        (gpu("muladd", Some("int64"), "ops", "OP/s"), None),
        (gpu("dot4", Some("int8"), "ops", "OP/s"), None),
        (gpu("write", None, "throughput", "B/s"), None),
        (gpu("copy", None, "throughput", "B/s"), None),
        (gpu("h2d", None, "throughput", "B/s"), None),
        (gpu("dispatch", None, "latency", "s"), None),
        (gpu("fma", Some("fp32"), "ops", "OP/s"), None),
    ];
    for (r, want) in cases {
        assert_eq!(Test::of(&r), want, "{} {:?}", r.workload, r.params);
    }
    let mem = BenchResult::new(
        ResourceName::Memory,
        "read",
        Metric::Throughput,
        Unit::BytePerSec,
    );
    assert_eq!(Test::of(&mem), None);
}

fn adapter(index: usize, name: &str) -> GpuInfo {
    GpuInfo {
        index,
        name: name.into(),
        vendor: String::new(),
        vendor_id: 0,
        device_id: 0,
        device_type: "discrete".into(),
        software: false,
        driver: String::new(),
        driver_info: String::new(),
        backend: "vulkan".into(),
        features: Vec::new(),
        limits: Default::default(),
        model: None,
        peaks: Vec::new(),
    }
}

#[test]
fn unmatched_adapter_notes_what_clpeak_saw() {
    let a = adapter(0, "NVIDIA H100 80GB HBM3");
    let n = no_match_note(&a, &parse(POCL_LIST));
    assert!(n.contains("adapter 0 (NVIDIA H100 80GB HBM3)"), "{n}");
    assert!(n.contains("-p 0 -d 0 \"pthread-skylake"), "{n}");
    assert!(n.contains("(Portable Computing Language)"), "{n}");
    assert!(no_match_note(&a, &[]).contains("no OpenCL device"));
}

/// The whole path with the memo filled as clpeak would have: a matched device gets
/// the figure and the note, the listing and the run are made once.
#[test]
fn compare_uses_the_memo_and_attaches_in_peakbench_units() {
    let memo = crate::reference::Memo::default();
    let devices = parse(MULTI);
    let flags = test_flags("").unwrap();
    let listing: Result<Listing, String> = Ok(Listing {
        flags,
        devices: devices.clone(),
    });
    let _ = memo.get_or_insert_with("clpeak list", || listing.clone());
    let measured: Result<Vec<ClDevice>, String> = Ok(devices);
    let _ = memo.get_or_insert_with("clpeak run 1 0", || measured.clone());
    let host = crate::hw::HostInfo {
        hostname: String::new(),
        os: String::new(),
        kernel: String::new(),
        arch: String::new(),
        virtualization: String::new(),
        cpu: Default::default(),
        memory: Default::default(),
        clock: Default::default(),
        disks: Vec::new(),
        gpus: crate::hw::gpu::GpuDetection {
            adapters: vec![
                adapter(0, "Intel(R) UHD Graphics 630 (CFL GT2)"),
                adapter(1, "llvmpipe (LLVM 15.0.6, 256 bits)"),
            ],
            note: None,
        },
        cgroup: None,
        topology: None,
        tuning: None,
        energy: None,
    };
    let ctx = Context::new(&host, &memo);
    let case = |w: &str, p: &str, unit: &str, dev: u64| {
        BenchResult::new(
            ResourceName::Gpu,
            w,
            Metric::Ops,
            Unit::parse(unit).unwrap(),
        )
        .param("precision", p)
        .param("device", dev)
    };
    let f = Clpeak
        .shared(&case("muladd", "int32", "OP/s", 0), &ctx, "1.1.2")
        .unwrap()
        .unwrap();
    let x = f.reference.unwrap();
    assert_eq!(
        x.command,
        "clpeak -p 1 -d 0 --global-bandwidth --compute-sp --compute-dp --compute-integer"
    );
    assert!((x.value - 150.06e9).abs() < 1.0);
    assert_eq!((x.unit.as_str(), x.version.as_str()), ("OP/s", "1.1.2"));
    assert!(f.notes[0].contains("as 1 op"), "{:?}", f.notes);
    // No fp64 on that device: a note, no figure.
    let f = Clpeak
        .shared(&case("fma", "fp64", "FLOP/s", 0), &ctx, "1.1.2")
        .unwrap()
        .unwrap();
    assert!(f.reference.is_none());
    assert!(f.notes[0].contains("double-precision"), "{:?}", f.notes);
    // The software adapter matches no OpenCL device: a note naming what was seen.
    let f = Clpeak
        .shared(&case("fma", "fp32", "FLOP/s", 1), &ctx, "1.1.2")
        .unwrap()
        .unwrap();
    assert!(f.reference.is_none());
    assert!(f.notes[0].contains("clpeak saw -p 0 -d 0"), "{:?}", f.notes);
    // Unknown adapter index and non-GPU cases: nothing to do.
    assert!(Clpeak
        .shared(&case("fma", "fp32", "FLOP/s", 9), &ctx, "1.1.2")
        .is_none());
    let mem = BenchResult::new(
        ResourceName::Memory,
        "read",
        Metric::Throughput,
        Unit::BytePerSec,
    );
    assert!(Clpeak.shared(&mem, &ctx, "1.1.2").is_none());
}

/// Runs the installed clpeak on its first OpenCL device, posing as a peakbench
/// adapter of that name (pocl on a CPU takes minutes):
/// `cargo test --release -- --ignored clpeak_runs`.
#[test]
#[ignore = "needs: clpeak and an OpenCL device; runs clpeak (minutes on a CPU device)"]
fn installed_clpeak_runs_and_parses() {
    let listing = list().expect("clpeak lists its devices");
    let first = listing.devices.first().expect("an OpenCL device");
    let memo = crate::reference::Memo::default();
    let mut host = crate::hw::HostInfo::detect(false);
    host.gpus.adapters = vec![adapter(0, &first.name)];
    let ctx = Context::new(&host, &memo);
    let r = BenchResult::new(ResourceName::Gpu, "fma", Metric::Ops, Unit::FlopPerSec)
        .param("precision", "fp32")
        .param("device", 0u64);
    let f = Clpeak.shared(&r, &ctx, "test").unwrap().unwrap();
    eprintln!("{f:?}");
    let x = f.reference.expect("a single-precision figure");
    assert!(x.value > 0.0 && x.value.is_finite());
    // The second case reads the memo: no second run.
    let r = BenchResult::new(
        ResourceName::Gpu,
        "read",
        Metric::Throughput,
        Unit::BytePerSec,
    )
    .param("device", 0u64);
    let t = std::time::Instant::now();
    let f = Clpeak.shared(&r, &ctx, "test").unwrap().unwrap();
    assert!(t.elapsed() < Duration::from_secs(1));
    assert!(f.reference.is_some_and(|x| x.value > 0.0));
}
