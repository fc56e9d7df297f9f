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
use crate::hw::uarch::Width;
use crate::hw::HostInfo;

/// The clock chain matching a kernel's width.
pub(super) fn clock_kind(k: &Kernel) -> ClockKind {
    match k.width {
        Width::V512 | Width::Tile => ClockKind::Avx512,
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
    if k.isa == Isa::F16c {
        return Peak::unknown(kernels::F16C_PEAK);
    }
    let Some(pipe) = k.pipe else {
        return Peak::unknown(
            "unknown: generic kernel, the compiler chooses the instructions (use --peak)",
        );
    };
    let rates = host.cpu.rates();
    let rate = mixed_cores_rate(host, pipe, k.vector_width(), cores)
        .unwrap_or_else(|| rates.rate(pipe, k.vector_width()));
    peak_at_rate(k, host, cores, clock_hz, &rate)
}

/// The peak of kernel `k` at a given (reconciled) rate of its pipe; an emulated CPU's
/// is its per-cycle peak only (`hw::peak::emulated_peak`).
fn peak_at_rate(
    k: &Kernel,
    host: &HostInfo,
    cores: usize,
    clock_hz: Option<f64>,
    rate: &crate::hw::rates::Rate,
) -> Peak {
    let Some(pipe) = k.pipe else {
        return Peak::unknown("unknown: generic kernel (use --peak)");
    };
    let rates = host.cpu.rates();
    let input = CpuPeakInput {
        rate,
        identified: &rates.identified,
        note: rates.uarch.note,
        pipe,
        width: k.vector_width(),
        ops_per_instr: k.instr_ops() as f64,
        cores,
        clock_hz,
        clock_what: match (k.clock.is_some(), clock_kind(k)) {
            (true, _) => "measured with this kernel's instruction",
            (false, ClockKind::Avx512) => "measured, AVX-512 chain",
            (false, ClockKind::Scalar) => "measured, add chain",
        },
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
    clock_hz: Option<f64>,
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
    Some(peak_at_rate(k, host, cores, clock_hz, &back))
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
