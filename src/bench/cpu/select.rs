//! Choosing the quick suite's kernel per precision, and the over-peak hint.
//!
//! The quick suite runs one kernel per precision: the one that comes closest to the
//! machine's real capability. The theoretical peak per cycle ranks the candidates, and
//! a short single-thread run of each settles it (the measured rate wins: a peak can be
//! unknown or wrong, a measured rate is what the machine did), so bf16 and int8 show
//! AMX where the CPU has it even when its peak were unknown.

use super::kernels::{self, Kernel, Precision, OUT_BYTES};
use super::unavailable;
use crate::hw::HostInfo;
use crate::measure::clock::Tick;

/// One candidate kernel of a precision.
#[derive(Clone, Copy)]
pub(crate) struct Candidate {
    /// The kernel.
    pub kernel: &'static Kernel,
    /// Theoretical operations per cycle per core; 0 when unknown.
    pub peak_per_cycle: f64,
    /// Operations per second of a short single-thread run, when measured.
    pub measured: Option<f64>,
}

/// The best candidate: the highest measured rate when any was measured (a candidate
/// without a measurement then loses), else the highest peak per cycle; ties go to the
/// later candidate (the kernels table lists the stronger instruction sets last).
pub(crate) fn pick(cands: &[Candidate]) -> Option<&'static Kernel> {
    let any_measured = cands.iter().any(|c| c.measured.is_some());
    let key = |c: &Candidate| {
        if any_measured {
            (c.measured.unwrap_or(-1.0), c.peak_per_cycle)
        } else {
            (c.peak_per_cycle, 0.0)
        }
    };
    cands
        .iter()
        .fold(None::<&Candidate>, |best, c| match best {
            Some(b) if key(b) > key(c) => Some(b),
            _ => Some(c),
        })
        .map(|c| c.kernel)
}

/// Operations per second of kernel `k` on the current thread over about `secs`.
pub(crate) fn quick_rate(k: &'static Kernel, secs: f64) -> Option<f64> {
    crate::hw::clock::clean_vector_state();
    let operands = k.operands();
    let mut out = vec![0u8; OUT_BYTES];
    let mut iters: u64 = 16;
    loop {
        let t0 = Tick::now();
        // SAFETY: callers pass only kernels `unavailable` cleared for this host; `out`
        // holds OUT_BYTES ≥ the kernel's out_bytes.
        unsafe { (k.run)(iters, &operands, out.as_mut_ptr()) };
        let dt = Tick::now().secs_since(t0);
        std::hint::black_box(&out);
        if dt >= secs || iters > 1 << 40 {
            let rate = (iters * k.ops_per_iter()) as f64 / dt;
            return (rate.is_finite() && rate > 0.0).then_some(rate);
        }
        iters = if dt < secs / 20.0 {
            iters * 10
        } else {
            ((iters as f64) * secs / dt * 1.1) as u64 + 1
        };
    }
}

/// The kernel per precision the quick suite runs: candidates are the kernels usable
/// here, ranked by [`pick`]; `measure` gives a short measured rate (or `None`).
pub(crate) fn best_kernels(
    host: &HostInfo,
    measure: &dyn Fn(&'static Kernel) -> Option<f64>,
) -> Vec<&'static Kernel> {
    let all = kernels::all();
    let rates = host.cpu.rates();
    Precision::ALL
        .iter()
        .filter_map(|p| {
            let cands: Vec<Candidate> = all
                .iter()
                .filter(|k| k.precision == *p && unavailable(k, host).is_none())
                .map(|k| Candidate {
                    kernel: k,
                    peak_per_cycle: k.pipe.map_or(0.0, |pipe| {
                        rates.rate(pipe, k.width).per_cycle * k.ops_per_instr as f64
                    }),
                    measured: measure(k),
                })
                .collect();
            pick(&cands)
        })
        .collect()
}

/// What to add to an over-peak warning: the inputs most likely wrong and the override.
pub(crate) fn over_peak_hint(k: &Kernel, host: &HostInfo, clock_hz: Option<f64>) -> String {
    let id = host.cpu.identified();
    let clock = clock_hz.map_or("not measured".into(), |c| format!("{:.3} GHz", c / 1e9));
    format!(
        "likely wrong input: the microarchitecture row '{}' ({}{}) or the measured clock ({clock}); \
         if you know this machine's peak, give it with --peak cpu.{}.{}=VALUE (all cores)",
        id.row,
        id.evidence,
        id.model_overruled
            .as_deref()
            .map_or(String::new(), |o| format!("; {o}")),
        k.precision.name(),
        k.isa.name()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn k(name: &str) -> &'static Kernel {
        kernels::all().into_iter().find(|k| k.name == name).unwrap()
    }

    #[test]
    fn the_measured_rate_decides_and_the_peak_ranks_without_one() {
        let dot = k("dp_i8_avx512vnni");
        let amx = k("tdp_i8_amx");
        // An unknown AMX peak no longer hides AMX: it measured far faster.
        let c = [
            Candidate {
                kernel: dot,
                peak_per_cycle: 256.0,
                measured: Some(1.8e12),
            },
            Candidate {
                kernel: amx,
                peak_per_cycle: 0.0,
                measured: Some(13.4e12),
            },
        ];
        assert_eq!(pick(&c).unwrap().name, "tdp_i8_amx");
        // Without measurements, the peak per cycle.
        let c = [
            Candidate {
                kernel: amx,
                peak_per_cycle: 2048.0,
                measured: None,
            },
            Candidate {
                kernel: dot,
                peak_per_cycle: 256.0,
                measured: None,
            },
        ];
        assert_eq!(pick(&c).unwrap().name, "tdp_i8_amx");
        // Ties go to the later (stronger ISA) candidate; nothing to pick from: None.
        let c = [
            Candidate {
                kernel: dot,
                peak_per_cycle: 0.0,
                measured: None,
            },
            Candidate {
                kernel: amx,
                peak_per_cycle: 0.0,
                measured: None,
            },
        ];
        assert_eq!(pick(&c).unwrap().name, "tdp_i8_amx");
        assert!(pick(&[]).is_none());
    }

    #[test]
    fn the_over_peak_hint_names_row_clock_and_override() {
        let mut host = crate::report::samples::host();
        // The masked guest of ../shared/machines/: a Rocket Lake model number with AMX.
        host.cpu.description = crate::hw::cpudesc::CpuDescription {
            arch: "x86_64".into(),
            vendor: "GenuineIntel".into(),
            family: 6,
            model: 167,
            flags: ["avx2", "fma", "avx512f", "avx512_fp16", "amx_tile"]
                .map(String::from)
                .to_vec(),
            ..Default::default()
        };
        host.cpu.identification = Default::default();
        let h = over_peak_hint(k("fma_f64_avx512"), &host, Some(3.79e9));
        assert!(h.contains("row 'Sapphire Rapids/Emerald Rapids'"), "{h}");
        assert!(h.contains("model 167 names"), "{h}");
        assert!(h.contains("measured clock (3.790 GHz)"), "{h}");
        assert!(h.contains("--peak cpu.fp64.avx512="), "{h}");
    }

    #[test]
    fn a_quick_rate_is_positive() {
        let g = k("muladd_f64_generic");
        assert!(quick_rate(g, 0.001).unwrap() > 0.0);
    }
}
