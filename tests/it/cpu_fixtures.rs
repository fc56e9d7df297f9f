//! Replays the corpus of recorded CPU descriptions (tests/fixtures/cpus/*.json, the
//! format `peakbench sysinfo --format json` writes under `host.cpu.description`):
//! each must identify as its expected microarchitecture row, on the expected evidence,
//! with the expected FMA, mul+add, AMX and FP16 rates, and every kernel it can run must
//! get a rate (so a peak) unless no row fits the CPU at all.

use peakbench::hw::cpudesc::CpuDescription;
use peakbench::hw::uarch::{identify, Pipe, Width};
use serde::Deserialize;
use std::path::PathBuf;

#[derive(Deserialize)]
struct Fixture {
    name: String,
    source: String,
    cpu: CpuDescription,
    expect: Expect,
}

#[derive(Deserialize)]
struct Expect {
    row: String,
    by: String,
    model_overruled: bool,
    fma_per_cycle: [f64; 3],
    muladd_per_cycle_256: f64,
    amx_per_cycle: f64,
    fp16_per_cycle: f64,
    /// aarch64 big.LITTLE: the row of each kind of core (`cpu.parts`), in order.
    #[serde(default)]
    parts: Vec<String>,
    /// aarch64 big.LITTLE: 128-bit FMA instructions per cycle of the whole machine,
    /// the sum over its cores.
    #[serde(default)]
    machine_fma_per_cycle_128: Option<f64>,
}

fn fixtures() -> Vec<(PathBuf, Fixture)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/cpus");
    let mut v: Vec<(PathBuf, Fixture)> = std::fs::read_dir(&dir)
        .expect("tests/fixtures/cpus")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            let f: Fixture =
                serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            (p, f)
        })
        .collect();
    v.sort_by(|a, b| a.0.cmp(&b.0));
    v
}

#[test]
fn the_corpus_is_large_and_varied() {
    let f = fixtures();
    assert!(f.len() >= 30, "{} fixtures", f.len());
    let count = |pred: &dyn Fn(&Fixture) -> bool| f.iter().filter(|(_, x)| pred(x)).count();
    assert!(count(&|x| x.cpu.vendor == "GenuineIntel") >= 15);
    assert!(count(&|x| x.cpu.vendor == "AuthenticAMD") >= 8);
    assert!(count(&|x| x.cpu.arch == "aarch64") >= 3);
    assert!(count(&|x| x.expect.model_overruled) >= 3);
    assert!(count(&|x| x.source.starts_with("recorded")) >= 2);
    for (p, x) in &f {
        assert!(
            !x.name.is_empty() && !x.cpu.flags.is_empty(),
            "{}",
            p.display()
        );
    }
}

#[test]
fn every_recorded_cpu_identifies_as_expected() {
    let mut failures = Vec::new();
    for (path, f) in fixtures() {
        let id = identify(&f.cpu);
        let u = id.uarch();
        let e = &f.expect;
        let file = path.file_name().unwrap().to_string_lossy().to_string();
        let mut check = |what: &str, ok: bool, got: String| {
            if !ok {
                failures.push(format!("{file} ({}): {what}: got {got}", f.name));
            }
        };
        check(
            "row",
            id.row == e.row,
            format!("'{}' ({})", id.row, id.summary()),
        );
        check("by", id.by == e.by, id.by.clone());
        check(
            "model overruled",
            id.model_overruled.is_some() == e.model_overruled,
            format!("{:?}", id.model_overruled),
        );
        let fma = [
            u.rate(Pipe::Fma, Width::V128),
            u.rate(Pipe::Fma, Width::V256),
            u.rate(Pipe::Fma, Width::V512),
        ];
        check("FMA per cycle", fma == e.fma_per_cycle, format!("{fma:?}"));
        let ma = u.rate(Pipe::MulAdd, Width::V256);
        check("mul+add 256", ma == e.muladd_per_cycle_256, format!("{ma}"));
        let amx = u.rate(Pipe::Amx, Width::Tile);
        check("AMX", amx == e.amx_per_cycle, format!("{amx}"));
        let fp16 = u.rate(Pipe::Fp16, Width::V512);
        check("FP16", fp16 == e.fp16_per_cycle, format!("{fp16}"));
        let cpus: usize = 1;
        let parts = peakbench::hw::uarch::identify_parts(&f.cpu, cpus);
        if !e.parts.is_empty() {
            let rows: Vec<String> = parts.iter().map(|(id, _)| id.row.clone()).collect();
            check("parts", rows == e.parts, format!("{rows:?}"));
        }
        if let Some(want) = e.machine_fma_per_cycle_128 {
            let sum: f64 = parts
                .iter()
                .map(|(id, n)| *n as f64 * id.uarch().rate(Pipe::Fma, Width::V128))
                .sum();
            check("machine FMA per cycle", sum == want, format!("{sum}"));
        }
        // The evidence is always said, and an overruled model is named in it.
        check("evidence", !id.evidence.is_empty(), id.evidence.clone());
        if let Some(o) = &id.model_overruled {
            check(
                "overruled names the model",
                o.contains(&format!("model {}", f.cpu.model)),
                o.clone(),
            );
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[cfg(target_arch = "x86_64")]
#[test]
fn every_kernel_a_recorded_cpu_can_run_gets_a_rate() {
    use peakbench::bench::cpu::kernels;
    let mut failures = Vec::new();
    for (path, f) in fixtures() {
        let id = identify(&f.cpu);
        if id.row == "unknown" || f.cpu.arch != "x86_64" {
            continue;
        }
        let features = f.cpu.peakbench_features();
        for k in kernels::all() {
            let Some(pipe) = k.pipe else { continue };
            // The F16C loop's rate is per row with a reason where there is none
            // (Zen 1/2, Lion Cove): `bench::cpu::peak`'s unit test replays this corpus.
            if !k.supported_by(&features) || pipe == Pipe::F16c {
                continue;
            }
            if id.uarch().rate(pipe, k.width) <= 0.0 {
                failures.push(format!(
                    "{}: {} ({pipe:?} {:?}) has no rate in row '{}'",
                    path.file_name().unwrap().to_string_lossy(),
                    k.name,
                    k.width,
                    id.row
                ));
            }
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

/// Issue #32 item 11: a CPU without AVX512-FP16 but with F16C (Zen 3) gets an fp16 row
/// through F16C; one with AVX512-FP16 keeps its native kernel and no F16C row.
#[cfg(target_arch = "x86_64")]
#[test]
fn fp16_runs_through_f16c_only_without_avx512_fp16() {
    use peakbench::bench::cpu::kernels;
    let fp16 = |file: &str| -> Vec<&'static str> {
        let (_, f) = fixtures()
            .into_iter()
            .find(|(p, _)| p.ends_with(file))
            .unwrap_or_else(|| panic!("{file}"));
        kernels::default_kernels(&f.cpu.peakbench_features())
            .into_iter()
            .map(|k| k.name)
            .filter(|n| n.contains("_f16_"))
            .collect()
    };
    assert_eq!(fp16("amd-zen3-epyc-7763.json"), ["fma_f16_f16c"]);
    assert_eq!(fp16("intel-haswell-i7-4770.json"), ["fma_f16_f16c"]);
    assert_eq!(
        fp16("intel-sapphirerapids-platinum-8480.json"),
        ["fma_f16_avx512fp16"]
    );
}

#[test]
fn the_live_machine_dumps_a_replayable_description() {
    let info = peakbench::hw::cpu::CpuInfo::detect();
    let json = serde_json::to_string(&info.description).unwrap();
    let back: CpuDescription = serde_json::from_str(&json).unwrap();
    assert_eq!(back, info.description);
    assert_eq!(identify(&back), info.identification);
}
