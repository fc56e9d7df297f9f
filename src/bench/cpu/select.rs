//! Choosing the quick suite's kernel per precision, and the over-peak hint.
//!
//! The quick suite runs one kernel per precision, and the choice must not change from
//! one run to the next on the same machine (two quick suites are compared row by row).
//! So the theoretical peak per cycle decides, ties go to the widest instruction set,
//! and a measurement is consulted only for a candidate whose peak is unknown: it wins
//! only when it measured clearly faster ([`CLEAR_MARGIN`]), so bf16 and int8 still show
//! AMX where the CPU has it even when its peak were unknown, and noise never flips a tie.

use super::kernels::{self, Kernel, Precision, OUT_BYTES};
use super::work::unavailable;
use crate::hw::HostInfo;
use crate::measure::clock::Tick;

/// How much faster than the peak-ranked choice a candidate of unknown peak must measure
/// to replace it: far above the run-to-run noise of a 10 ms run on a busy machine
/// (AMX against AVX512-VNNI measures several times faster).
pub(crate) const CLEAR_MARGIN: f64 = 1.5;

/// How many short runs of each kernel [`pick`] compares by their fastest.
pub(crate) const MEASURE_ROUNDS: usize = 3;

/// One candidate kernel of a precision.
#[derive(Clone, Copy)]
pub(crate) struct Candidate {
    /// The kernel.
    pub kernel: &'static Kernel,
    /// Theoretical operations per cycle per core; 0 when unknown.
    pub peak_per_cycle: f64,
}

/// The best candidate: the highest peak per cycle, ties to the widest instruction set
/// (then the later entry of the kernels table). A candidate of unknown peak replaces it
/// only when `measure` (a short single-thread rate, the fastest of
/// [`MEASURE_ROUNDS`]) finds it more than [`CLEAR_MARGIN`] times faster; `measure` is called only when such a candidate exists.
pub(crate) fn pick(
    cands: &[Candidate],
    measure: &dyn Fn(&'static Kernel) -> Option<f64>,
) -> Option<&'static Kernel> {
    let key = |c: &Candidate| (c.peak_per_cycle, c.kernel.isa);
    let best = cands
        .iter()
        .fold(None::<&Candidate>, |best, c| match best {
            Some(b) if key(b) > key(c) => Some(b),
            _ => Some(c),
        })?;
    let unknown: Vec<&Candidate> = cands
        .iter()
        .filter(|c| c.peak_per_cycle <= 0.0 && !std::ptr::eq(c.kernel, best.kernel))
        .collect();
    if unknown.is_empty() {
        return Some(best.kernel);
    }
    // The best of MEASURE_ROUNDS short runs, taken in turn: a run the scheduler
    // preempted reads several times slower (the quick suite under a busy neighbour once
    // chose the generic fp64 kernel over AVX-512 that way), and the fastest of a few is
    // the one the kernel ran undisturbed.
    let fastest = |k: &'static Kernel| {
        (0..MEASURE_ROUNDS)
            .filter_map(|_| measure(k))
            .fold(None::<f64>, |top, r| Some(top.map_or(r, |t| t.max(r))))
    };
    let bar = fastest(best.kernel).unwrap_or(0.0) * CLEAR_MARGIN;
    let challenger = unknown
        .into_iter()
        .filter_map(|c| fastest(c.kernel).map(|r| (r, c.kernel)))
        .filter(|&(r, _)| r > bar)
        .fold(None::<(f64, &'static Kernel)>, |top, (r, k)| match top {
            Some((t, _)) if t >= r => top,
            _ => Some((r, k)),
        });
    Some(challenger.map_or(best.kernel, |(_, k)| k))
}

/// Operations per second of CPU time of kernel `k` on the current thread, over about
/// `secs` of wall time.
pub(crate) fn quick_rate(k: &'static Kernel, secs: f64) -> Option<f64> {
    crate::hw::clock::clean_vector_state();
    let operands = k.operands();
    let mut out = vec![0u8; OUT_BYTES];
    let mut iters: u64 = 16;
    loop {
        let c0 = crate::measure::share::thread_cpu_ns();
        let t0 = Tick::now();
        // SAFETY: callers pass only kernels `unavailable` cleared for this host; `out`
        // holds OUT_BYTES ≥ the kernel's out_bytes.
        unsafe { (k.run)(iters, &operands, out.as_mut_ptr()) };
        let dt = Tick::now().secs_since(t0);
        let cpu = crate::measure::share::thread_cpu_ns().saturating_sub(c0) as f64 * 1e-9;
        std::hint::black_box(&out);
        if dt >= secs || iters > 1 << 40 {
            // Per second the thread ran, not of the wall clock: time the scheduler gave
            // another task does not count against the kernel (this rate only ranks
            // kernels; it is never a result).
            let ran = if cpu > 0.0 { cpu.min(dt) } else { dt };
            let rate = (iters * k.ops_per_iter()) as f64 / ran;
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
/// here, chosen by [`pick`]; `measure` gives a short measured rate (or `None`).
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
                .filter(|k| {
                    k.precision == *p
                        && unavailable(k, host).is_none()
                        && !kernels::superseded(k, &host.cpu.features)
                })
                .map(|k| Candidate {
                    kernel: k,
                    peak_per_cycle: k.pipe.map_or(0.0, |pipe| {
                        rates.rate(pipe, k.vector_width()).per_cycle * k.instr_ops() as f64
                    }),
                })
                .collect();
            pick(&cands, measure)
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

    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    fn cand(name: &str, peak_per_cycle: f64) -> Candidate {
        Candidate {
            kernel: k(name),
            peak_per_cycle,
        }
    }

    /// Issue #26: equal peaks went to whichever measured faster in a 10 ms run, so two
    /// quick suites picked different kernels; now the widest ISA wins, unmeasured.
    // x86 kernels and ISAs by name (aarch64 builds have other ones).
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn equal_peaks_go_to_the_widest_isa_without_measuring() {
        let never = |k: &'static Kernel| -> Option<f64> { panic!("measured {}", k.name) };
        for (a, b) in [
            ("add_i32_avx2", "add_i32_avx512"),
            ("muladd_f32_avx", "fma_f32_avx512"),
            ("muladd_f64_avx", "fma_f64_avx2"),
        ] {
            for order in [[a, b], [b, a]] {
                let c = [cand(order[0], 32.0), cand(order[1], 32.0)];
                assert_eq!(pick(&c, &never).unwrap().name, b, "{order:?}");
            }
        }
        // A higher peak wins over a wider ISA.
        let c = [cand("fma_f64_avx512", 16.0), cand("fma_f64_avx2", 32.0)];
        assert_eq!(pick(&c, &never).unwrap().name, "fma_f64_avx2");
        assert!(pick(&[], &never).is_none());
    }

    // x86 kernels and ISAs by name (aarch64 builds have other ones).
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn an_unknown_peak_wins_only_by_a_clear_margin() {
        let rates = |amx: f64| {
            move |k: &'static Kernel| -> Option<f64> {
                Some(if k.name == "tdp_i8_amx" { amx } else { 1.8e12 })
            }
        };
        let c = [cand("dp_i8_avx512vnni", 256.0), cand("tdp_i8_amx", 0.0)];
        // An unknown AMX peak does not hide AMX: it measured far faster.
        assert_eq!(pick(&c, &rates(13.4e12)).unwrap().name, "tdp_i8_amx");
        // Within the noise of a short run, the known peak stays.
        assert_eq!(pick(&c, &rates(2.5e12)).unwrap().name, "dp_i8_avx512vnni");
        // With its peak known, AMX wins on the peak alone.
        let c = [cand("tdp_i8_amx", 2048.0), cand("dp_i8_avx512vnni", 256.0)];
        assert_eq!(pick(&c, &|_| None).unwrap().name, "tdp_i8_amx");
        // Nothing known: the widest ISA.
        let c = [cand("dp_i8_avx512vnni", 0.0), cand("tdp_i8_amx", 0.0)];
        assert_eq!(pick(&c, &|_| None).unwrap().name, "tdp_i8_amx");
    }

    /// A short run of the peak-ranked kernel that the scheduler preempted (a tenth of its
    /// rate) does not hand the row to a kernel of unknown peak: the fastest of
    /// MEASURE_ROUNDS runs counts.
    // x86 kernels and ISAs by name (aarch64 builds have other ones).
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn one_preempted_run_does_not_flip_the_choice() {
        let calls = std::cell::Cell::new(0);
        let measure = |k: &'static Kernel| -> Option<f64> {
            if k.name == "fma_f64_avx512" {
                calls.set(calls.get() + 1);
                // The first run was preempted; the others ran.
                Some(if calls.get() == 1 { 3e9 } else { 30e9 })
            } else {
                Some(8e9)
            }
        };
        let c = [
            cand("fma_f64_avx512", 32.0),
            cand("muladd_f64_generic", 0.0),
        ];
        assert_eq!(pick(&c, &measure).unwrap().name, "fma_f64_avx512");
        assert_eq!(calls.get(), MEASURE_ROUNDS);
    }

    // x86 kernels and ISAs by name (aarch64 builds have other ones).
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn the_over_peak_hint_names_row_clock_and_override() {
        let mut host = crate::report::samples::host();
        // The masked guest of tests/fixtures/cpus/recorded-kvm-model167-spr-class.json: a
        // Rocket Lake model number with AMX.
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
