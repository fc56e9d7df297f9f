//! The CPU benchmark's peaks: the `--peak` keys of a kernel ([`peak_key`]), the
//! theoretical peak of a kernel on some cores at a clock ([`peak_for`]: the user's
//! override, else the table's (and probe's) rate of its pipe, summed over the kinds of
//! core of a big.LITTLE machine), its operations per cycle where there is no clock
//! ([`per_cycle_for`]), and the table's peak again when a case outran the probe's
//! ([`outrun_probe_peak`]). Below the cases (`case.rs`) and the resource (`mod.rs`).

use super::kernels::{self, Isa, Kernel, Precision};
use crate::bench::peaks::{PeakKey, PeakOverrides};
use crate::hw::clock::ClockKind;
use crate::hw::peak::{cpu_peak, emulated_peak, CpuPeakInput, Peak};
use crate::hw::uarch::{Pipe, Width};
use crate::hw::HostInfo;

/// The clock chain matching a kernel's frequency licence: the AVX-512 chain for 512-bit
/// and tile kernels; the 256-bit FMA chain for 256-bit kernels of FP arithmetic and
/// integer multiplies (Intel's AVX2 "heavy" licence: on Cascade Lake `vmulps` and
/// `vpmulld` run at its 2.68 GHz, `vpaddd` at the adds' 3.05 GHz); the add chain for
/// the rest (256-bit integer adds and logic are "light", SSE and scalar code).
pub(crate) fn clock_kind(k: &Kernel) -> ClockKind {
    match (k.width, k.pipe) {
        (Width::V512 | Width::Tile, _) => ClockKind::Avx512,
        (Width::V256, Some(p)) if p != Pipe::Alu && !k.vla => ClockKind::Avx2,
        _ => ClockKind::Scalar,
    }
}

/// The `--peak` key `cpu` (`None`), `cpu.PRECISION` or `cpu.PRECISION.ISA`: the one
/// spelling of the keys this resource looks up and accepts.
pub(crate) fn peak_key(sel: Option<(Precision, Option<Isa>)>) -> PeakKey {
    PeakKey::new(match sel {
        None => "cpu".to_string(),
        Some((p, None)) => format!("cpu.{}", p.name()),
        Some((p, Some(i))) => format!("cpu.{}.{}", p.name(), i.name()),
    })
}

/// The theoretical peak of kernel `k` on `cores` cores at `clock_hz`, or the user's
/// override (`--peak cpu.<precision>.<isa>`, `cpu.<precision>` or `cpu`, each given for
/// all cores of the machine and scaled to the cores in use).
pub(crate) fn peak_for(
    k: &Kernel,
    host: &HostInfo,
    cores: usize,
    clock_hz: Option<f64>,
    overrides: &PeakOverrides,
) -> Peak {
    peak_for_clock(k, host, cores, clock_hz, None, overrides)
}

/// [`peak_for`] at a clock `--clock` chose (issue #48): `clock_what` says which clock it
/// is and where it was read, in place of the measuring chain (`None`: measured).
pub(crate) fn peak_for_clock(
    k: &Kernel,
    host: &HostInfo,
    cores: usize,
    clock_hz: Option<f64>,
    clock_what: Option<&str>,
    overrides: &PeakOverrides,
) -> Peak {
    let keys = [
        peak_key(Some((k.precision, Some(k.isa)))),
        peak_key(Some((k.precision, None))),
        peak_key(None),
    ];
    if let Some((key, v)) = overrides.find(&keys) {
        let all = host.cpu.cores.max(1);
        return Peak {
            value: Some(v * cores as f64 / all as f64),
            source: format!("user (--peak {key}=…, given for {all} cores, scaled to {cores})"),
        };
    }
    let Some(pipe) = k.pipe else {
        return Peak::unknown(
            "unknown: generic kernel, the compiler chooses the instructions (use --peak)",
        );
    };
    if host.cpu.emulated.is_none() {
        if let Some(p) = mixed_cores_peak(k, host, pipe, cores) {
            return p;
        }
    }
    let rates = host.cpu.rates();
    let rate = mixed_cores_rate(host, pipe, k.vector_width(), cores)
        .unwrap_or_else(|| rates.rate(pipe, k.vector_width()));
    if pipe == Pipe::F16c && rate.per_cycle <= 0.0 {
        // The row has no figure for the F16C loop: say why, and what bounds it.
        return Peak::unknown(format!(
            "unknown: {} (row '{}'); {}",
            f16c_source(host),
            host.cpu.identified().row,
            kernels::F16C_NO_PEAK
        ));
    }
    peak_at_rate(k, host, cores, (clock_hz, clock_what), &rate)
}

/// Where the identified row's F16C loop rate comes from (or why it has none).
fn f16c_source(host: &HostInfo) -> String {
    crate::hw::uarch_f16c::source(&host.cpu.identified().row)
}

/// The peak of kernel `k` at a given (reconciled) rate of its pipe; an emulated CPU's
/// is its per-cycle peak only (`hw::peak::emulated_peak`).
fn peak_at_rate(
    k: &Kernel,
    host: &HostInfo,
    cores: usize,
    (clock_hz, chosen): (Option<f64>, Option<&str>),
    rate: &crate::hw::rates::Rate,
) -> Peak {
    let Some(pipe) = k.pipe else {
        return Peak::unknown("unknown: generic kernel (use --peak)");
    };
    let rates = host.cpu.rates();
    let f16c_note = if pipe == Pipe::F16c {
        f16c_source(host)
    } else {
        String::new()
    };
    let input = CpuPeakInput {
        rate,
        identified: &rates.identified,
        // The F16C loop's rate is no unit count of the row: its note is where the
        // rate comes from (ports, sources, llvm-mca), not the row's FMA caveats.
        note: if pipe == Pipe::F16c {
            &f16c_note
        } else {
            rates.uarch.note
        },
        pipe,
        width: k.vector_width(),
        ops_per_instr: k.instr_ops() as f64,
        cores,
        clock_hz,
        // `--clock` (#48) names the clock it chose; else the chain that measured it.
        clock_what: chosen.unwrap_or(match (k.clock.is_some(), clock_kind(k)) {
            (true, _) => "measured with this kernel's instruction",
            (false, ClockKind::Avx512) => "measured, AVX-512 chain",
            (false, ClockKind::Avx2) => "measured, AVX2 chain",
            (false, ClockKind::Scalar) => "measured, add chain",
        }),
    };
    match &host.cpu.emulated {
        Some(_) => emulated_peak(&input, crate::hw::arm::EMULATED),
        None => cpu_peak(&input),
    }
}

/// On a machine with several kinds of core (Arm big.LITTLE, `description.parts`): the
/// mean rate per core over the first `cores` CPUs of the pinning order (the ones a run
/// of that many threads uses), each core at its own row's rate, so the peak is the sum
/// over the cores; `None` on a machine with one kind of core.
fn mixed_cores_rate(
    host: &HostInfo,
    pipe: crate::hw::uarch::Pipe,
    width: Width,
    cores: usize,
) -> Option<crate::hw::rates::Rate> {
    let d = &host.cpu.description;
    if d.parts.len() < 2 {
        return None;
    }
    let used: Vec<usize> = host.cpu.pin_order.iter().take(cores).copied().collect();
    let ids = crate::hw::uarch::identify_parts(d, host.cpu.threads);
    let mut sum = 0.0;
    let mut terms = Vec::new();
    for (p, (id, _)) in d.parts.iter().zip(&ids) {
        let n = used.iter().filter(|c| p.cpus.contains(c)).count();
        if n == 0 {
            continue;
        }
        let r = id.uarch().rate(pipe, width);
        sum += n as f64 * r;
        terms.push(format!(
            "{n} x {} ({})",
            crate::hw::rates::trim_float(r),
            id.row
        ));
    }
    Some(crate::hw::rates::Rate {
        per_cycle: sum / cores.max(1) as f64,
        provenance: format!(
            "table, mean over mixed cores: ({}) / {cores}; one clock for all of them",
            terms.join(" + ")
        ),
        table: sum / cores.max(1) as f64,
        ..Default::default()
    })
}

/// On a machine with several kinds of core whose clocks were measured one kind at a
/// time (`hw::clock_kinds`): the sum over the first `cores` CPUs of the pinning order of
/// each core's rate (its kind's row) × its kind's clock × the kernel's operations per
/// instruction. `None` on a machine with one kind of core, or when a kind in use has no
/// clock reading (then the one-clock mean of [`mixed_cores_rate`] applies).
fn mixed_cores_peak(
    k: &Kernel,
    host: &HostInfo,
    pipe: crate::hw::uarch::Pipe,
    cores: usize,
) -> Option<Peak> {
    let d = &host.cpu.description;
    let kinds = &host.clock.kinds;
    if d.parts.len() < 2 || kinds.is_empty() {
        return None;
    }
    let used: Vec<usize> = host.cpu.pin_order.iter().take(cores).copied().collect();
    let ids = crate::hw::uarch::identify_parts(d, host.cpu.threads);
    let ops = k.instr_ops() as f64;
    let (mut value, mut terms) = (0.0, Vec::new());
    for (p, (id, _)) in d.parts.iter().zip(&ids) {
        let n = used.iter().filter(|c| p.cpus.contains(c)).count();
        if n == 0 {
            continue;
        }
        let hz = crate::hw::clock_kinds::of_cpu(kinds, p.cpus[0])?;
        let r = id.uarch().rate(pipe, k.vector_width());
        value += n as f64 * hz * r * ops;
        terms.push(format!(
            "{n} x {:.3} GHz x {} instr/cycle ({})",
            hz / 1e9,
            crate::hw::rates::trim_float(r),
            id.row
        ));
    }
    (value > 0.0).then(|| Peak {
        value: Some(value),
        source: format!(
            "{cores} core{} of {} kinds, each kind at its own clock (measured, add chain, on one core of the kind): ({}) x {} op/instr ({pipe:?} {:?}: table, each kind's row)",
            if cores == 1 { "" } else { "s" },
            terms.len(),
            terms.join(" + "),
            crate::hw::rates::trim_float(ops),
            k.vector_width()
        ),
    })
}

/// Operations per cycle of kernel `k` on `cores` cores from the table (and probe), when
/// known: shown for an emulated CPU, whose peak has no clock.
pub(crate) fn per_cycle_for(k: &Kernel, host: &HostInfo, cores: usize) -> Option<f64> {
    let (pipe, width) = (k.pipe?, k.vector_width());
    let rate = mixed_cores_rate(host, pipe, width, cores)
        .unwrap_or_else(|| host.cpu.rates().rate(pipe, width));
    (rate.per_cycle > 0.0).then(|| cores as f64 * rate.per_cycle * k.instr_ops() as f64)
}

/// When a case ran above a peak the probe had lowered from the table's (efficiency
/// `eff` > 1), the probe was wrong (a disturbed reading it could not tell apart): the
/// peak at the table's rate, whose provenance says so. `None` otherwise (the peak was
/// the table's, a user's `--peak`, or the probe raised it).
pub(crate) fn outrun_probe_peak(
    k: &Kernel,
    host: &HostInfo,
    cores: usize,
    (clock_hz, clock_what): (Option<f64>, Option<&str>),
    overrides: &PeakOverrides,
    eff: f64,
) -> Option<Peak> {
    let keys = [
        peak_key(Some((k.precision, Some(k.isa)))),
        peak_key(Some((k.precision, None))),
        peak_key(None),
    ];
    if eff <= 1.0 || overrides.find(&keys).is_some() {
        return None;
    }
    let rate = host.cpu.rates().rate(k.pipe?, k.vector_width());
    if !rate.lowered_by_probe() {
        return None;
    }
    let back = rate.back_to_table(&format!(
        "this case ran at {:.1} % of the peak its {} per cycle allowed",
        eff * 100.0,
        crate::hw::rates::trim_float(rate.per_cycle)
    ));
    Some(peak_at_rate(k, host, cores, (clock_hz, clock_what), &back))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(target_arch = "x86_64")]
    fn each_kernel_reads_the_clock_of_its_frequency_licence() {
        let kind = |name: &str| {
            let all = kernels::all();
            let k = all.iter().find(|k| k.name == name).expect(name);
            clock_kind(k)
        };
        // 256-bit FP and integer multiplies: Intel's AVX2 heavy licence (issue #49).
        for name in [
            "fma_f32_avx2",
            "fma_f64_avx2",
            "muladd_f32_avx",
            "mul_i32_avx2",
            "fma_f16_f16c",
        ] {
            assert_eq!(kind(name), ClockKind::Avx2, "{name}");
        }
        // 256-bit integer adds are light; SSE and scalar code have no licence.
        for name in [
            "add_i32_avx2",
            "add_i64_avx2",
            "muladd_f64_sse2",
            "muladd_f64_scalar",
        ] {
            assert_eq!(kind(name), ClockKind::Scalar, "{name}");
        }
        for name in ["fma_f64_avx512", "add_i32_avx512"] {
            assert_eq!(kind(name), ClockKind::Avx512, "{name}");
        }
    }

    /// A 128-bit fp64 FMA row (4 FLOP per instruction) on any architecture.
    fn fmla_f64_like() -> Kernel {
        Kernel {
            pipe: Some(crate::hw::uarch::Pipe::Fma),
            width: Width::V128,
            ops_per_instr: 4,
            ..kernels::GENERIC[5]
        }
    }

    fn arm_host(part: u32) -> HostInfo {
        let mut host = crate::report::samples::host();
        host.cpu.description = crate::hw::cpudesc::CpuDescription {
            arch: "aarch64".into(),
            vendor: "ARM".into(),
            model: part,
            flags: vec!["fp".into(), "asimd".into()],
            ..Default::default()
        };
        host.cpu.identification = Default::default();
        host.cpu.probed.clear();
        host
    }

    #[test]
    fn an_emulated_cpu_has_a_per_cycle_peak_and_no_rate() {
        let mut host = arm_host(0xd0c);
        host.cpu.emulated = Some("the kernel is x86_64".into());
        let k = fmla_f64_like();
        let p = peak_for(&k, &host, 1, None, &PeakOverrides::default());
        assert_eq!(p.value, None);
        assert!(
            p.source.starts_with("emulated CPU: figures are the emulator's, no clock, no efficiency; per cycle: 8 op/cycle on 1 core = 2 instr/cycle"),
            "{}",
            p.source
        );
        assert!(p.source.contains("row 'Neoverse N1'"), "{}", p.source);
        assert_eq!(per_cycle_for(&k, &host, 2), Some(16.0));
        // Not emulated: the same CPU with a clock has a rate.
        host.cpu.emulated = None;
        let p = peak_for(&k, &host, 1, Some(2e9), &PeakOverrides::default());
        assert_eq!(p.value, Some(2e9 * 8.0));
    }

    #[test]
    fn a_big_little_peak_is_the_sum_over_its_cores() {
        // 4 x Cortex-A55 (1 FMLA/cycle) + 4 x Cortex-A76 (2 FMLA/cycle).
        let mut host = arm_host(0xd05);
        host.cpu.description.parts = vec![
            crate::hw::arm::CorePart {
                vendor: "ARM".into(),
                model: 0xd05,
                stepping: 2,
                cpus: vec![0, 1, 2, 3],
            },
            crate::hw::arm::CorePart {
                vendor: "ARM".into(),
                model: 0xd0b,
                stepping: 1,
                cpus: vec![4, 5, 6, 7],
            },
        ];
        host.cpu.pin_order = (0..8).collect();
        host.cpu.cores = 8;
        host.cpu.threads = 8;
        let k = fmla_f64_like();
        let p = peak_for(&k, &host, 8, Some(2e9), &PeakOverrides::default());
        // (4 x 1 + 4 x 2) FMLA/cycle x 4 FLOP x 2 GHz.
        assert_eq!(p.value, Some(12.0 * 4.0 * 2e9));
        assert!(
            p.source
                .contains("(4 x 1 (Cortex-A55) + 4 x 2 (Cortex-A76)) / 8"),
            "{}",
            p.source
        );
        // Two threads run on the first two (little) cores.
        let p = peak_for(&k, &host, 2, Some(2e9), &PeakOverrides::default());
        assert_eq!(p.value, Some(2.0 * 4.0 * 2e9));
    }

    /// Issue #49: the F16C loop's peak on every x86 core row that runs it (256-bit
    /// FMA), and on every recorded x86 CPU that runs the kernel: 0.5 step per cycle x
    /// 16 FLOP where the row has a figure, its source naming the bounding port and the
    /// llvm-mca figure of the row's cores; otherwise no value and the reason.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn the_f16c_peak_of_every_x86_row_and_recorded_cpu() {
        use crate::hw::uarch::{identify, Identification, UARCHES};
        // Row → the llvm-mca CPU its source cites (None: no figure, and why).
        let expected: &[(&str, Option<&str>)] = &[
            ("Granite Rapids", Some("graniterapids")),
            ("Sapphire Rapids/Emerald Rapids", Some("sapphirerapids")),
            ("Ice Lake-SP", Some("icelake-server")),
            (
                "Skylake-SP/Cascade Lake (one 512-bit FMA unit)",
                Some("cascadelake"),
            ),
            (
                "Skylake-SP/Cascade Lake/Cooper Lake",
                Some("skylake-avx512"),
            ),
            ("Alder Lake P-core with AVX-512 enabled", Some("alderlake")),
            ("Arrow Lake/Lunar Lake (Lion Cove P-core)", None),
            (
                "Alder Lake/Raptor Lake/Meteor Lake (P-core)",
                Some("raptorlake"),
            ),
            (
                "Ice Lake/Tiger Lake/Rocket Lake (client)",
                Some("tigerlake"),
            ),
            (
                "Skylake/Kaby Lake/Coffee Lake/Comet Lake (client)",
                Some("skylake"),
            ),
            ("Haswell/Broadwell", Some("haswell/broadwell: 25.0")),
            // No figure since a Zen 4 run outran the pipe model (hw::uarch_f16c).
            ("Zen 5 (mobile, 256-bit datapath)", None),
            ("Zen 5", None),
            ("Zen 4", None),
            ("Zen 3", None),
            ("Zen 2", None),
            ("Zen/Zen+", None),
        ];
        let k = kernels::all()
            .into_iter()
            .find(|k| k.name == "fma_f16_f16c")
            .unwrap();
        let check = |host: &HostInfo, what: &str| {
            let row = host.cpu.identified().row;
            let (_, mca) = expected.iter().find(|(r, _)| *r == row).unwrap_or_else(|| {
                panic!("{what}: row '{row}' runs the F16C loop but has no expectation")
            });
            let p = peak_for(k, host, 2, Some(3e9), &PeakOverrides::default());
            match mca {
                Some(cpu) => {
                    assert_eq!(
                        p.value,
                        Some(2.0 * 3e9 * 0.5 * 16.0),
                        "{what}: {}",
                        p.source
                    );
                    for part in [
                        "x 0.5000 instr/cycle (F16c V256: table; row '",
                        "x 16 op/instr; F16C step = vcvtph2ps ymm",
                        "so 1 step per 2 cycles",
                        cpu,
                    ] {
                        assert!(p.source.contains(part), "{what}: {part}: {}", p.source);
                    }
                }
                None => {
                    assert_eq!(p.value, None, "{what}");
                    assert!(
                        p.source
                            .starts_with("unknown: no F16C figure for this core: ")
                            && p.source.contains(&format!("(row '{row}')"))
                            && p.source.contains("--peak cpu.fp16.f16c="),
                        "{what}: {}",
                        p.source
                    );
                }
            }
        };
        // Every row of the table that runs the loop, by name.
        let mut rows = 0;
        for u in UARCHES.iter().filter(|u| u.fma[1] > 0.0) {
            let mut host = crate::report::samples::host();
            host.cpu.identification = Identification {
                row: u.name.into(),
                by: "model".into(),
                evidence: "(test)".into(),
                model_overruled: None,
            };
            host.cpu.probed.clear();
            check(&host, u.name);
            rows += 1;
        }
        assert_eq!(rows, expected.len());
        // Every recorded x86 CPU that runs the kernel, identified as peakbench does.
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/cpus");
        let mut recorded = 0;
        for e in std::fs::read_dir(dir).unwrap() {
            let path = e.unwrap().path();
            if path.extension().is_none_or(|x| x != "json") {
                continue;
            }
            let v: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            let d: crate::hw::cpudesc::CpuDescription =
                serde_json::from_value(v["cpu"].clone()).unwrap();
            if d.arch != "x86_64" || !k.supported_by(&d.peakbench_features()) {
                continue;
            }
            let mut host = crate::report::samples::host();
            host.cpu.identification = identify(&d);
            host.cpu.features = d.peakbench_features();
            host.cpu.description = d;
            host.cpu.probed.clear();
            check(&host, &path.display().to_string());
            recorded += 1;
        }
        assert!(
            recorded >= 30,
            "{recorded} recorded x86 CPUs run the F16C kernel"
        );
    }

    /// Issue #42 item 5: on the recorded big.LITTLE machine each kind of core counts at
    /// its own clock (readings injected as `ClockInfo::measure` would assign them).
    #[test]
    fn a_big_little_peak_takes_each_kinds_own_clock() {
        let d = crate::hw::clock_kinds::tests::hetero();
        let mut host = arm_host(d.model);
        host.cpu.threads = d.parts.iter().map(|p| p.cpus.len()).sum();
        host.cpu.cores = host.cpu.threads;
        host.cpu.pin_order = (0..host.cpu.threads).collect();
        host.cpu.description = d.clone();
        let plan = crate::hw::clock_kinds::plan(&d.parts, &host.cpu.pin_order);
        let hz = [1.8e9, 2.4e9, 2.6e9, 3.2e9];
        let readings: Vec<Option<f64>> = hz.iter().map(|h| Some(*h)).collect();
        host.clock.kinds = crate::hw::clock_kinds::assign(&d, host.cpu.threads, &plan, &readings);
        let k = fmla_f64_like();
        let all = host.cpu.cores;
        let p = peak_for(&k, &host, all, Some(1e9), &PeakOverrides::default());
        // Each kind: its cores x its clock x its row's FMLA rate x 4 FLOP.
        let ids = crate::hw::uarch::identify_parts(&d, all);
        let want: f64 = d
            .parts
            .iter()
            .zip(&ids)
            .zip(hz)
            .map(|((p, (id, _)), h)| {
                p.cpus.len() as f64
                    * h
                    * id.uarch().rate(crate::hw::uarch::Pipe::Fma, Width::V128)
                    * 4.0
            })
            .sum();
        assert_eq!(p.value, Some(want), "{}", p.source);
        assert!(
            p.source.contains("each kind at its own clock"),
            "{}",
            p.source
        );
        assert!(p.source.contains(" x 3.200 GHz x "), "{}", p.source);
        // One thread runs on the first (LITTLE) core, at the LITTLE clock.
        let p = peak_for(&k, &host, 1, Some(1e9), &PeakOverrides::default());
        let little = ids[0]
            .0
            .uarch()
            .rate(crate::hw::uarch::Pipe::Fma, Width::V128);
        assert_eq!(p.value, Some(1.8e9 * little * 4.0), "{}", p.source);
        // A kind without a reading: the one-clock mean, as before.
        host.clock.kinds[3].hz = None;
        let p = peak_for(&k, &host, all, Some(2e9), &PeakOverrides::default());
        assert!(
            p.source.contains("one clock for all of them"),
            "{}",
            p.source
        );
        // Under an emulator there is no clock at all.
        host.clock.kinds[3].hz = Some(3.2e9);
        host.cpu.emulated = Some("test".into());
        assert_eq!(
            peak_for(&k, &host, all, None, &PeakOverrides::default()).value,
            None
        );
    }
}
