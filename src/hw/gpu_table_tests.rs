//! Tests of the known-GPU table (`gpu_table.rs`, `gpus.json`): the file parses into
//! valid rows, rows keep the values they were written with, lookups by PCI id and by
//! name, the peaks built from a row, and the nvidia-smi parser.

use super::*;

fn row(name: &str) -> &'static KnownGpu {
    KNOWN_GPUS
        .iter()
        .find(|g| g.name == name)
        .unwrap_or_else(|| panic!("no row {name}"))
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    ((a - b) / b).abs() <= tol
}

/// `g`'s peak for `p` at the datasheet clock is `want` within `tol` (relative).
fn assert_peak(g: &KnownGpu, p: GpuPrecision, want: f64, tol: f64) {
    let v = g.peak(p, None).0.unwrap();
    assert!(close(v, want, tol), "{} {p}: {v:e} vs {want:e}", g.name);
}

/// `g`'s memory bandwidth is `want` bytes per second.
fn assert_mem(g: &KnownGpu, want: f64) {
    let v = g.mem_peak().0;
    assert!(close(v, want, 1e-9), "{}: {v:e} vs {want:e}", g.name);
}

#[test]
fn lookup_by_id() {
    #[rustfmt::skip]
    let cases = [
        (VENDOR_NVIDIA, 0x2330, "NVIDIA H100 SXM5 80GB"),
        (VENDOR_NVIDIA, 0x2335, "NVIDIA H200 SXM 141GB"),
        (VENDOR_NVIDIA, 0x20b2, "NVIDIA A100 SXM4 80GB"),
        (VENDOR_NVIDIA, 0x27b8, "NVIDIA L4"),
        (VENDOR_AMD, 0x74a1, "AMD Instinct MI300X"),
        (VENDOR_INTEL, 0x56a0, "Intel Arc A770"),
    ];
    for (vendor, id, name) in cases {
        assert_eq!(
            lookup(vendor, id, "").map(|g| g.name.as_str()),
            Some(name),
            "{id:#x}"
        );
    }
    // The id wins over a misleading name.
    assert_eq!(
        lookup(VENDOR_NVIDIA, 0x2331, "NVIDIA H100 80GB HBM3")
            .unwrap()
            .name,
        "NVIDIA H100 PCIe"
    );
    // Same device id under another vendor is not a match.
    assert!(lookup(VENDOR_AMD, 0x2330, "").is_none());
}

#[test]
fn lookup_by_name() {
    let by_name = |n: &str| lookup(VENDOR_NVIDIA, 0xffff, n).map(|g| g.name.as_str());
    // (what the driver reports, the row it must find)
    #[rustfmt::skip]
    let cases = [
        ("NVIDIA H100 80GB HBM3", "NVIDIA H100 SXM5 80GB"),
        ("NVIDIA H100 PCIe", "NVIDIA H100 PCIe"),
        ("NVIDIA H100 NVL", "NVIDIA H100 NVL"),
        ("NVIDIA H200", "NVIDIA H200 SXM 141GB"),
        ("NVIDIA H200 NVL", "NVIDIA H200 NVL"),
        ("NVIDIA A100-SXM4-40GB", "NVIDIA A100 SXM4 40GB"),
        ("NVIDIA A100 80GB PCIe", "NVIDIA A100 PCIe 80GB"),
        ("Tesla V100-SXM2-32GB", "NVIDIA Tesla V100 SXM2"),
        ("Tesla V100-PCIE-16GB", "NVIDIA Tesla V100 PCIe"),
        ("Tesla T4", "NVIDIA Tesla T4"),
        ("NVIDIA L40S", "NVIDIA L40S"),
        ("NVIDIA L40", "NVIDIA L40"),
        ("NVIDIA A10", "NVIDIA A10"),
        ("NVIDIA GeForce RTX 4070 Ti SUPER", "NVIDIA GeForce RTX 4070 Ti SUPER"),
        ("NVIDIA GeForce RTX 3060 Ti", "NVIDIA GeForce RTX 3060 Ti"),
        ("NVIDIA GeForce RTX 3060", "NVIDIA GeForce RTX 3060"),
        ("NVIDIA GeForce RTX 4090", "NVIDIA GeForce RTX 4090"),
    ];
    for (reported, row) in cases {
        assert_eq!(by_name(reported), Some(row), "{reported}");
    }
    // Laptop parts, the China-only 4090 D, the A10G and GH200 are other models.
    assert_eq!(by_name("NVIDIA GeForce RTX 3060 Laptop GPU"), None);
    assert_eq!(by_name("NVIDIA GeForce RTX 4090 D"), None);
    assert_eq!(by_name("NVIDIA A10G"), None);
    assert_eq!(by_name("NVIDIA GH200 480GB"), None);
    assert_eq!(
        lookup(VENDOR_AMD, 0x744c, "AMD Radeon RX 7900 XTX (RADV NAVI31)").map(|g| g.name.as_str()),
        Some("AMD Radeon RX 7900 XTX")
    );
    assert!(lookup(VENDOR_AMD, 0x744c, "AMD Radeon RX 7900 XT (RADV NAVI31)").is_none());
    assert_eq!(
        lookup(0, 0, "Intel(R) Data Center GPU Max 1550").map(|g| g.name.as_str()),
        Some("Intel Data Center GPU Max 1550")
    );
    // A name of another vendor's row is ignored when the vendor id is known.
    assert!(lookup(VENDOR_AMD, 0xffff, "NVIDIA H200").is_none());
}

#[test]
fn unknown_is_none() {
    assert!(lookup(VENDOR_NVIDIA, 0x0001, "Some Future GPU").is_none());
    assert!(lookup(0x1234, 0x5678, "").is_none());
    assert!(lookup(0, 0, "llvmpipe (LLVM 17.0.6, 256 bits)").is_none());
}

#[test]
fn each_rows_own_words_find_it() {
    for g in KNOWN_GPUS.iter() {
        let name = g.name_match.join(" ");
        let found = lookup(g.vendor_id, 0xffff_ffff, &name).map(|f| f.name.as_str());
        assert_eq!(found, Some(g.name.as_str()), "name '{name}'");
    }
}

#[test]
fn h100_sxm5_peaks() {
    let g = row("NVIDIA H100 SXM5 80GB");
    let (fp32, src) = g.peak(GpuPrecision::Fp32, None);
    assert!(close(fp32.unwrap(), 66.9e12, 0.005), "{fp32:?}");
    assert!(
        src.contains("16896 FP32 lanes x 1.980 GHz (datasheet boost)"),
        "{src}"
    );
    assert!(src.contains("x 2 op/FMA x 1 (fp32 rate)"), "{src}");
    assert_peak(g, GpuPrecision::Fp64, 33.5e12, 0.005);
    assert_peak(g, GpuPrecision::Fp16, 133.8e12, 0.005);
    assert_peak(g, GpuPrecision::Int32, 33.5e12, 0.005);
    assert_mem(g, 3.35e12);
}

#[test]
fn a100_peaks() {
    let g = row("NVIDIA A100 SXM4 40GB");
    assert_peak(g, GpuPrecision::Fp64, 9.7e12, 0.005);
    assert_peak(g, GpuPrecision::Fp32, 19.5e12, 0.005);
    assert_peak(g, GpuPrecision::Fp16, 78e12, 0.005);
    assert_mem(row("NVIDIA A100 SXM4 80GB"), 2.039e12);
}

#[test]
fn fp32_matches_datasheets() {
    // (row, datasheet TFLOPS of the same precision, precision)
    let cases = [
        ("NVIDIA Tesla V100 SXM2", 15.7, GpuPrecision::Fp32),
        ("NVIDIA Tesla V100 PCIe", 14.0, GpuPrecision::Fp32),
        ("NVIDIA Tesla T4", 8.1, GpuPrecision::Fp32),
        ("NVIDIA H100 PCIe", 51.2, GpuPrecision::Fp32),
        ("NVIDIA H100 NVL", 60.0, GpuPrecision::Fp32),
        ("NVIDIA L4", 30.3, GpuPrecision::Fp32),
        ("NVIDIA L40S", 91.6, GpuPrecision::Fp32),
        ("NVIDIA A10", 31.2, GpuPrecision::Fp32),
        ("NVIDIA GeForce RTX 3090", 35.6, GpuPrecision::Fp32),
        ("NVIDIA GeForce RTX 3090", 35.6, GpuPrecision::Fp16),
        ("NVIDIA GeForce RTX 3090", 17.8, GpuPrecision::Int32),
        ("NVIDIA GeForce RTX 4090", 82.6, GpuPrecision::Fp32),
        ("NVIDIA GeForce RTX 4090", 41.3, GpuPrecision::Int32),
        ("AMD Instinct MI210", 22.6, GpuPrecision::Fp64),
        ("AMD Instinct MI300X", 81.7, GpuPrecision::Fp64),
        ("AMD Radeon RX 7900 XTX", 61.4, GpuPrecision::Fp32),
        ("AMD Radeon RX 7900 XTX", 122.8, GpuPrecision::Fp16),
        ("Intel Data Center GPU Max 1550", 52.0, GpuPrecision::Fp64),
    ];
    for (name, tflops, p) in cases {
        assert_peak(row(name), p, tflops * 1e12, 0.01);
    }
    // MI250X row is one of the two dies: twice it is the card's 47.9 TFLOPS.
    let gcd = row("AMD Instinct MI250X (one GCD)");
    assert!(close(
        2.0 * gcd.peak(GpuPrecision::Fp64, None).0.unwrap(),
        47.9e12,
        0.01
    ));
}

#[test]
fn peak_scales_linearly_with_clock() {
    let g = row("NVIDIA H100 SXM5 80GB");
    let full = g.peak(GpuPrecision::Fp32, Some(1980.0)).0.unwrap();
    let (half, src) = g.peak(GpuPrecision::Fp32, Some(990.0));
    assert!(close(half.unwrap() * 2.0, full, 1e-12));
    assert!(src.contains("0.990 GHz (given clock)"), "{src}");
    assert_eq!(g.peak(GpuPrecision::Fp32, None).0, Some(full));
    assert!(g.peak(GpuPrecision::Fp32, Some(0.0)).0.is_none());
    assert!(g.peak(GpuPrecision::Fp32, Some(f64::NAN)).0.is_none());
}

#[test]
fn int8_counts_eight_ops_and_zero_rates_say_why() {
    let g = row("NVIDIA H100 SXM5 80GB");
    let (v, why) = g.peak(GpuPrecision::Int8, None);
    assert!(v.is_none());
    assert!(why.starts_with("unknown: no int8 rate"), "{why}");
    assert!(why.contains("DP4A"), "{why}");
    let (v, why) = g.peak(GpuPrecision::Int64, None);
    assert!(v.is_none());
    assert!(why.contains("emulated"), "{why}");
    // The formula for a row with an int8 rate: 8 ops per instruction.
    let mut custom = g.clone();
    custom.rate.int8 = 0.5;
    let (v, src) = custom.peak(GpuPrecision::Int8, None);
    assert!(close(v.unwrap(), 16896.0 * 1.98e9 * 8.0 * 0.5, 1e-12));
    assert!(src.contains("x 8 op/dp4a x 0.5 (int8 rate)"), "{src}");
}

#[test]
fn table_file_parses_and_rows_are_valid() {
    let rows = parse_table(include_str!("gpus.json")).unwrap();
    assert_eq!(rows.len(), 45);
    assert_eq!(rows.len(), KNOWN_GPUS.len());
    for g in &rows {
        assert!(!g.name.trim().is_empty(), "{g:?}");
        assert!(!g.family.trim().is_empty(), "{}", g.name);
        assert!(
            g.device_ids.iter().all(|&d| d != 0 && d <= 0xffff),
            "{}",
            g.name
        );
    }
    // A row with no listed id is found by name only.
    assert!(rows.iter().any(|g| g.device_ids.is_empty()));
    // Errors name what is wrong.
    let family = |vendor: &str, id: &str| {
        format!(
            r#"[{{"family": "F", "vendor": "{vendor}", "rate_source": "s",
              "rates": {{"fp32": 1, "fp16": 0, "fp64": 0, "int32": 0, "int8": 0, "int64": 0}},
              "gpus": [{{"name": "G", "device_ids": ["{id}"], "name_match": ["g"],
                         "units": 1, "fp32_lanes": 64, "boost_mhz": 1000,
                         "mem_bytes_per_s": 1e9, "source": "s"}}]}}]"#
        )
    };
    assert_eq!(
        parse_table(&family("amd", "0x1")).unwrap()[0].device_ids,
        [1]
    );
    assert!(parse_table(&family("acme", "0x1"))
        .unwrap_err()
        .contains("acme"));
    assert!(parse_table(&family("amd", "12"))
        .unwrap_err()
        .contains("\"12\""));
    assert!(parse_table("[{\"family\": \"F\"}]").is_err());
}

/// Rows as they were written in the Rust table before it moved to `gpus.json`.
#[test]
fn rows_keep_their_figures() {
    const NV: u32 = VENDOR_NVIDIA;
    // Each row: (name, family, vendor, device ids, name match), then (units, lanes,
    // MHz, B/s, rates fp32/fp16/fp64/int32/int8/int64, source and rate source openings).
    type OldRow = (
        &'static str,
        &'static str,
        u32,
        &'static [u32],
        &'static [&'static str],
    );
    type Figures = (u32, u32, u32, f64, [f64; 6], &'static str, &'static str);
    #[rustfmt::skip]
    let rows: [(OldRow, Figures); 7] = [
        (("NVIDIA H100 SXM5 80GB", "NVIDIA Hopper (cc 9.0)", NV, &[0x2330], &["h100", "80gb", "hbm3"]),
         (132, 16896, 1980, 3.35e12, [1.0, 2.0, 0.5, 0.5, 0.0, 0.0],
          "NVIDIA H100 whitepaper and datasheet (SXM5): 132 SMs",
          "CUDA C++ Programming Guide throughput table, cc 9.0")),
        (("NVIDIA Tesla V100 SXM2", "NVIDIA Volta (cc 7.0)", NV, &[0x1db1, 0x1db5, 0x1df5], &["v100", "sxm2"]),
         (80, 5120, 1530, 900e9, [1.0, 2.0, 0.5, 1.0, 0.0, 0.0],
          "NVIDIA Tesla V100 datasheet and Volta (GV100) whitepaper",
          "CUDA C++ Programming Guide throughput table, cc 7.0")),
        (("NVIDIA Tesla T4", "NVIDIA Turing (cc 7.5)", NV, &[0x1eb8], &["t4"]),
         (40, 2560, 1590, 320e9, [1.0, 2.0, 1.0 / 32.0, 1.0, 0.0, 0.0],
          "NVIDIA T4 datasheet and Turing whitepaper",
          "CUDA C++ Programming Guide throughput table, cc 7.5")),
        (("NVIDIA GeForce RTX 4090", "NVIDIA Ada Lovelace (cc 8.9)", NV, &[0x2684], &["rtx 4090"]),
         (128, 16384, 2520, 1008e9, [1.0, 1.0, 1.0 / 64.0, 0.5, 0.0, 0.0],
          "NVIDIA Ada (AD102) whitepaper (RTX 4090)",
          "NVIDIA Ada Lovelace (AD102) whitepaper (cc 8.9)")),
        (("AMD Instinct MI250X (one GCD)", "AMD CDNA 2", VENDOR_AMD, &[0x7408], &["mi250x"]),
         (110, 7040, 1700, 1.6384e12, [1.0, 2.0, 1.0, 0.0, 0.0, 0.0],
          "AMD Instinct MI250X datasheet", "AMD Instinct MI200 datasheets")),
        (("AMD Radeon RX 7900 XTX", "AMD RDNA 3", VENDOR_AMD, &[], &["7900 xtx"]),
         (96, 12288, 2500, 960e9, [1.0, 2.0, 1.0 / 32.0, 0.0, 0.0, 0.0],
          "AMD Radeon RX 7900 XTX specifications", "AMD Radeon RX 7900 XTX specifications")),
        (("Intel Data Center GPU Max 1550", "Intel Xe-HPC", VENDOR_INTEL, &[0x0bd5, 0x0bd6], &["max 1550"]),
         (128, 16384, 1600, 3.2768e12, [1.0, 0.0, 1.0, 0.0, 0.0, 0.0],
          "Intel Data Center GPU Max 1550 product brief",
          "Intel Data Center GPU Max 1550 product brief")),
    ];
    for ((name, family, vendor, ids, words), (units, lanes, mhz, bw, rates, src, rsrc)) in rows {
        let g = row(name);
        assert_eq!(g.family, family, "{name}");
        assert_eq!(g.vendor_id, vendor, "{name}");
        assert_eq!(g.device_ids, ids, "{name}");
        assert_eq!(g.name_match, words, "{name}");
        assert_eq!(
            (g.units, g.fp32_lanes, g.boost_mhz),
            (units, lanes, mhz),
            "{name}"
        );
        assert_eq!(g.mem_bytes_per_s, bw, "{name}");
        assert_eq!(GpuPrecision::ALL.map(|p| g.rate.get(p)), rates, "{name}");
        assert!(g.source.starts_with(src), "{name}: {}", g.source);
        assert!(g.rate_source.starts_with(rsrc), "{name}: {}", g.rate_source);
    }
    // Whole strings, joined from the old table's continued lines.
    let v100 = row("NVIDIA Tesla V100 SXM2");
    assert_eq!(
        v100.source,
        "NVIDIA Tesla V100 datasheet and Volta (GV100) whitepaper: 80 SMs, 5120 FP32 \
         cores, 1530 MHz boost, FP32 15.7 / FP64 7.8 TFLOPS, 900 GB/s HBM2 (16 and 32 GB)"
    );
    assert!(v100.rate_source.ends_with(
        "emulated with several 32-bit IMADs ('multiple instructions' in the guide), so no \
         int64 peak"
    ));
    // The MI300X shares the CDNA rates, not their source.
    let mi300 = row("AMD Instinct MI300X");
    assert_eq!(mi300.rate, row("AMD Instinct MI250X (one GCD)").rate);
    assert!(mi300
        .rate_source
        .starts_with("AMD Instinct MI300X datasheet"));
    // Lookup order is the file's: the first row and the last.
    assert_eq!(KNOWN_GPUS[0].name, "NVIDIA Tesla V100 SXM2");
    assert_eq!(KNOWN_GPUS[39].name, "Intel Data Center GPU Max 1550");
    assert_eq!(KNOWN_GPUS[44].name, "NVIDIA Tesla P100 PCIe 12GB");
}

/// Issue #32 item 12: the GPUs of the course reports (Tesla K80, M40, P100) have rows,
/// found by PCI id and by the names their drivers report, whose peaks reproduce the
/// datasheets' figures, and whose missing rates say why.
#[test]
fn the_course_gpus_k80_m40_p100_have_rows() {
    for (id, reported, name) in [
        (0x102d, "Tesla K80", "NVIDIA Tesla K80 (one GK210)"),
        (0x17fd, "Tesla M40 24GB", "NVIDIA Tesla M40"),
        (0x15f9, "Tesla P100-SXM2-16GB", "NVIDIA Tesla P100 SXM2"),
        (
            0x15f8,
            "Tesla P100-PCIE-16GB",
            "NVIDIA Tesla P100 PCIe 16GB",
        ),
        (
            0x15f7,
            "Tesla P100-PCIE-12GB",
            "NVIDIA Tesla P100 PCIe 12GB",
        ),
    ] {
        assert_eq!(
            lookup(VENDOR_NVIDIA, id, "").map(|g| g.name.as_str()),
            Some(name)
        );
        assert_eq!(
            lookup(VENDOR_NVIDIA, 0xffff, reported).map(|g| g.name.as_str()),
            Some(name),
            "{reported}"
        );
    }
    // K80: a board is two GK210 GPUs, each its own device; the datasheet's figures
    // (with boost) are for the board: FP32 8.73, FP64 2.91 TFLOPS, 480 GB/s.
    let k80 = row("NVIDIA Tesla K80 (one GK210)");
    let board = |p| 2.0 * k80.peak(p, None).0.unwrap();
    assert!(close(board(GpuPrecision::Fp32), 8.73e12, 0.005));
    assert!(close(board(GpuPrecision::Fp64), 2.91e12, 0.005));
    assert!(close(2.0 * k80.mem_peak().0, 480e9, 1e-9));
    // M40: 3072 x 2 x 1.114 GHz = 6.84 TFLOPS (the datasheet rounds it to 7), FP64 0.2.
    let m40 = row("NVIDIA Tesla M40");
    assert_peak(m40, GpuPrecision::Fp32, 6.84e12, 0.005);
    assert_peak(m40, GpuPrecision::Fp32, 7.0e12, 0.03);
    assert_peak(m40, GpuPrecision::Fp64, 0.2e12, 0.08);
    assert_mem(m40, 288e9);
    // P100: FP64 / FP32 / FP16 TFLOPS of the SXM2 and PCIe datasheets.
    let sxm2 = row("NVIDIA Tesla P100 SXM2");
    assert_peak(sxm2, GpuPrecision::Fp64, 5.3e12, 0.005);
    assert_peak(sxm2, GpuPrecision::Fp32, 10.6e12, 0.005);
    assert_peak(sxm2, GpuPrecision::Fp16, 21.2e12, 0.005);
    assert_mem(sxm2, 732e9);
    for name in ["NVIDIA Tesla P100 PCIe 16GB", "NVIDIA Tesla P100 PCIe 12GB"] {
        let g = row(name);
        assert_peak(g, GpuPrecision::Fp64, 4.7e12, 0.01);
        assert_peak(g, GpuPrecision::Fp32, 9.3e12, 0.005);
        assert_peak(g, GpuPrecision::Fp16, 18.7e12, 0.005);
    }
    assert_mem(row("NVIDIA Tesla P100 PCIe 12GB"), 549e9);
    // No vendor figure, no peak, and the reason is said.
    for (g, p, why) in [
        (
            k80,
            GpuPrecision::Fp16,
            "no 16-bit floating-point arithmetic",
        ),
        (
            m40,
            GpuPrecision::Fp16,
            "no 16-bit floating-point arithmetic",
        ),
        (m40, GpuPrecision::Int32, "multiple instructions"),
        (sxm2, GpuPrecision::Int32, "multiple instructions"),
        (sxm2, GpuPrecision::Int8, "no DP4A instruction on cc 6.0"),
    ] {
        let (v, src) = g.peak(p, None);
        assert!(v.is_none(), "{} {p}", g.name);
        assert!(src.contains(why), "{} {p}: {src}", g.name);
    }
    // Every figure names its source: the datasheets and the CUDA guide's table.
    for g in [k80, m40, sxm2] {
        assert!(g.source.contains("datasheet"), "{}", g.source);
        assert!(g
            .rate_source
            .starts_with("CUDA C++ Programming Guide throughput table"));
    }
}

#[test]
fn table_rows_are_sane() {
    for g in KNOWN_GPUS.iter() {
        assert!(!g.source.trim().is_empty(), "{}", g.name);
        assert!(!g.rate_source.trim().is_empty(), "{}", g.name);
        assert!(!g.name_match.is_empty(), "{}", g.name);
        assert!(
            g.name_match
                .iter()
                .all(|m| !m.is_empty() && *m == m.to_ascii_lowercase()),
            "{}",
            g.name
        );
        assert_eq!(g.rate.fp32, 1.0, "{}", g.name);
        for p in GpuPrecision::ALL {
            let r = g.rate.get(p);
            assert!(r.is_finite() && r >= 0.0, "{} {p}", g.name);
        }
        assert!(g.mem_bytes_per_s > 0.0, "{}", g.name);
        assert!(
            g.units > 0 && g.fp32_lanes > 0 && g.boost_mhz > 0,
            "{}",
            g.name
        );
        assert_eq!(g.fp32_lanes % g.units, 0, "{}: lanes per unit", g.name);
        assert!(
            [VENDOR_NVIDIA, VENDOR_AMD, VENDOR_INTEL].contains(&g.vendor_id),
            "{}",
            g.name
        );
        let (bw, src) = g.mem_peak();
        assert_eq!(bw, g.mem_bytes_per_s);
        assert!(src.contains("TB/s"), "{src}");
    }
}

#[test]
fn no_duplicate_device_ids_or_names() {
    let mut seen = std::collections::HashSet::new();
    let mut names = std::collections::HashSet::new();
    for g in KNOWN_GPUS.iter() {
        assert!(names.insert(&g.name), "duplicate row {}", g.name);
        for id in &g.device_ids {
            assert!(
                seen.insert((g.vendor_id, *id)),
                "duplicate id {:#06x} ({})",
                id,
                g.name
            );
        }
    }
}

#[test]
fn precision_names_round_trip() {
    for p in GpuPrecision::ALL {
        assert_eq!(GpuPrecision::parse(p.name()), Some(p));
        assert_eq!(GpuPrecision::parse(&p.name().to_uppercase()), Some(p));
        let json = serde_json::to_string(&p).unwrap();
        assert_eq!(json, format!("\"{}\"", p.name()));
        assert_eq!(serde_json::from_str::<GpuPrecision>(&json).unwrap(), p);
        assert_eq!(p.to_string(), p.name());
    }
    assert_eq!(GpuPrecision::parse("SP"), Some(GpuPrecision::Fp32));
    assert_eq!(GpuPrecision::parse(" hp "), Some(GpuPrecision::Fp16));
    assert_eq!(GpuPrecision::parse("dp"), Some(GpuPrecision::Fp64));
    assert_eq!(GpuPrecision::parse("bf16"), None);
    assert_eq!(GpuPrecision::parse(""), None);
}

#[test]
fn parses_nvidia_smi_output() {
    let text = "NVIDIA H100 80GB HBM3, 0x233010DE, 1980, 1755\n\
                NVIDIA A100-SXM4-40GB, 0x20B010DE, 1410, [N/A]\n\
                Tesla T4, [N/A], [N/A], 300 MHz\n\
                \n\
                garbage line\n";
    let v = parse_nvidia_smi(text);
    assert_eq!(v.len(), 3);
    assert_eq!(
        v[0],
        SmiClock {
            name: "NVIDIA H100 80GB HBM3".to_string(),
            device_id: Some(0x2330),
            max_sm_mhz: Some(1980.0),
            current_sm_mhz: Some(1755.0),
        }
    );
    assert_eq!(v[1].device_id, Some(0x20b0));
    assert_eq!(v[1].max_sm_mhz, Some(1410.0));
    assert_eq!(v[1].current_sm_mhz, None);
    assert_eq!(v[2].name, "Tesla T4");
    assert_eq!(v[2].device_id, None);
    assert_eq!(v[2].max_sm_mhz, None);
    assert_eq!(v[2].current_sm_mhz, Some(300.0));
    // The parsed id finds the table row.
    let g = lookup(VENDOR_NVIDIA, v[0].device_id.unwrap(), &v[0].name).unwrap();
    assert_eq!(g.name, "NVIDIA H100 SXM5 80GB");
    assert!(parse_nvidia_smi("").is_empty());
}

#[test]
fn smi_without_the_tool_is_empty_not_a_panic() {
    // On machines without nvidia-smi this is empty; with it, every entry has a name.
    for c in nvidia_smi_clocks() {
        assert!(!c.name.is_empty());
    }
}
