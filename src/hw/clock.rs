//! The real core clock, measured: a long chain of dependent `add reg, reg` runs one add
//! per cycle on every x86 core since the P6, so adds ÷ seconds = cycles/s. Chains of
//! *immediate* adds must not be used: recent cores fuse or eliminate them and read
//! 5–15 GHz. A second chain interleaves 512-bit FMAs with the adds, because wide vectors
//! can lower the clock (AVX-512 frequency licences).
//!
//! Estimator: the *largest* of several short readings. A reading can only be lowered by
//! things that steal time from the chain (preemption by other tasks, a hypervisor
//! descheduling the vCPU, interrupts); nothing makes a dependent chain run faster than
//! the clock. On a shared machine the median of readings drifts low with the load, and
//! peaks computed from it make efficiencies read above 100 %. A case reads the clock
//! before its samples and after each one, so every sample lies between two readings;
//! its clock is taken as the larger of the two, and the peak uses the mean of these
//! per-sample clocks ([`used_hz`]): the clock really moves on a shared host (turbo
//! budget, neighbours), and the largest reading of the whole case would understate
//! the efficiency of samples that ran at a lower clock. A wide [`spread`] says the
//! clock moved during the case.
//!
//! /proc/cpuinfo's "cpu MHz" is recorded too, but in VMs it is the TSC rate, not the
//! core clock, so peaks never use it.

use super::cpu::CpuInfo;
use crate::measure::clock::Tick;
use crate::measure::runner::pin_current_thread;
use serde::{Deserialize, Serialize};

/// Measured clocks, in Hz.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct ClockInfo {
    /// One core running the scalar add chain.
    pub scalar_hz: Option<f64>,
    /// One core running the add chain interleaved with 512-bit FMAs (AVX-512 CPUs only).
    pub avx512_hz: Option<f64>,
    /// Every physical core (one thread each) running the add chain at once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scalar_all_hz: Option<f64>,
    /// Every physical core running the AVX-512 chain at once (AVX-512 CPUs only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub avx512_all_hz: Option<f64>,
    /// "cpu MHz" from /proc/cpuinfo (the TSC rate in most VMs), for reference.
    pub label_hz: Option<f64>,
    /// How the clock was measured.
    pub method: String,
}

/// Which clock chain to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ClockKind {
    /// Dependent integer adds only.
    Scalar,
    /// Dependent adds with independent 512-bit FMAs interleaved (one per two adds).
    Avx512,
}

impl ClockInfo {
    /// Measures the clocks the way a benchmark case does (see [`measure_warm`]): on the
    /// first core of the pinning order, then on one thread per physical core at once
    /// (≈ 0.5 s in all).
    pub(crate) fn measure(cpu: &CpuInfo) -> ClockInfo {
        let label_hz = std::fs::read_to_string("/proc/cpuinfo").ok().and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("cpu MHz"))
                .and_then(|l| l.split(':').nth(1))
                .and_then(|v| v.trim().parse::<f64>().ok())
                .map(|mhz| mhz * 1e6)
        });
        let kinds_ok = chain_available(ClockKind::Scalar);
        let one: Vec<usize> = cpu.pin_order.iter().take(1).copied().collect();
        let all: Vec<usize> = cpu
            .pin_order
            .iter()
            .take(cpu.cores.max(1))
            .copied()
            .collect();
        // SAFETY: chain_fn only returns chains this CPU supports.
        let read = |k, cpus: &[usize]| {
            chain_fn(k).and_then(|f| unsafe { measure_warm(cpus, f, WARMUP_SECS) })
        };
        let avx512 = cpu.has("avx512f");
        let scalar_hz = read(ClockKind::Scalar, &one);
        let avx512_hz = if avx512 {
            read(ClockKind::Avx512, &one)
        } else {
            None
        };
        let (scalar_all_hz, avx512_all_hz) = if all.len() > 1 {
            (
                read(ClockKind::Scalar, &all),
                if avx512 {
                    read(ClockKind::Avx512, &all)
                } else {
                    None
                },
            )
        } else {
            (scalar_hz, avx512_hz)
        };
        ClockInfo {
            scalar_hz,
            avx512_hz,
            scalar_all_hz,
            avx512_all_hz,
            label_hz,
            method: if kinds_ok {
                format!(
                    "dependent add reg,reg chain (1 add/cycle), pinned, after a {:.0} ms warm-up: largest of {READINGS} readings of {:.0} ms per core, as in every benchmark case",
                    WARMUP_SECS * 1e3,
                    READING_SECS * 1e3
                )
            } else {
                "not measured on this architecture".into()
            },
        }
    }

    /// The clock a peak of `width` on `cores` cores uses in sysinfo: the all-core
    /// reading for more than one core, the AVX-512 chain for 512-bit and tile kernels.
    pub(crate) fn for_peak(&self, wide: bool, cores: usize) -> Option<f64> {
        let (one, all) = if wide {
            (
                self.avx512_hz.or(self.scalar_hz),
                self.avx512_all_hz.or(self.scalar_all_hz),
            )
        } else {
            (self.scalar_hz, self.scalar_all_hz)
        };
        if cores > 1 {
            all.or(one)
        } else {
            one
        }
    }
}

/// Seconds of one clock reading, in sysinfo and in every benchmark case.
pub(crate) const READING_SECS: f64 = 0.002;
/// Readings per measurement; the largest is kept (see the module documentation).
pub(crate) const READINGS: usize = 10;
/// How long sysinfo runs the chain before reading: a benchmark case's clock readings
/// follow its warm-up, so sysinfo's must follow one too, or an idle core still ramping
/// up reads low (sysinfo printed 3.58 GHz where the runs measured 4.06-4.09).
pub(crate) const WARMUP_SECS: f64 = 0.1;

/// Warms the listed cores up with the chain for `warm_secs`, then measures them as a
/// benchmark case does ([`measure_on`]).
///
/// # Safety
/// The CPU must support the instructions `chain` uses.
pub(crate) unsafe fn measure_warm(cpus: &[usize], chain: ChainFn, warm_secs: f64) -> Option<f64> {
    on_cpus(cpus, &|| {
        // SAFETY: forwarded from the caller's contract.
        unsafe {
            chain_hz(chain, warm_secs);
            max_hz(chain, READINGS, READING_SECS)
        }
    })
}

/// A clock chain: runs `loops` iterations and returns how many dependent adds it made.
/// Unsafe because chains may use instructions the caller must have checked for.
pub(crate) type ChainFn = unsafe fn(u64) -> u64;

/// The built-in chain of a kind, when this build and CPU have it.
pub(crate) fn chain_fn(kind: ClockKind) -> Option<ChainFn> {
    if !chain_available(kind) {
        return None;
    }
    Some(match kind {
        ClockKind::Scalar => scalar_chain as ChainFn,
        ClockKind::Avx512 => avx512_chain_adds as ChainFn,
    })
}

/// Whether the chain exists for this build and CPU.
pub(crate) fn chain_available(kind: ClockKind) -> bool {
    match kind {
        ClockKind::Scalar => cfg!(target_arch = "x86_64"),
        ClockKind::Avx512 => {
            #[cfg(target_arch = "x86_64")]
            {
                std::is_x86_feature_detected!("avx512f")
            }
            #[cfg(not(target_arch = "x86_64"))]
            {
                false
            }
        }
    }
}

/// Largest of `n` clock readings of about `secs` each on the current thread (see the
/// module documentation for why the maximum).
///
/// # Safety
/// The CPU must support the instructions `chain` uses.
pub(crate) unsafe fn max_hz(chain: ChainFn, n: usize, secs: f64) -> f64 {
    (0..n).map(|_| chain_hz(chain, secs)).fold(0.0, f64::max)
}

/// Measures the clock on every listed CPU at once (each thread pinned to its CPU) and
/// returns the mean: the all-core clock under that load. Empty `cpus` → current thread.
///
/// # Safety
/// The CPU must support the instructions `chain` uses.
pub(crate) unsafe fn measure_on(cpus: &[usize], chain: ChainFn, secs: f64) -> Option<f64> {
    // SAFETY: forwarded from the caller's contract.
    on_cpus(cpus, &|| unsafe { max_hz(chain, READINGS, secs) })
}

/// Runs `read` on every listed CPU at once (each thread pinned) and returns the mean
/// of the readings; empty `cpus` → once on the current thread.
fn on_cpus(cpus: &[usize], read: &(dyn Fn() -> f64 + Sync)) -> Option<f64> {
    if cpus.is_empty() {
        return Some(read());
    }
    let barrier = std::sync::Barrier::new(cpus.len());
    let readings: Vec<f64> = std::thread::scope(|s| {
        let handles: Vec<_> = cpus
            .iter()
            .map(|&c| {
                let barrier = &barrier;
                s.spawn(move || {
                    pin_current_thread(c);
                    barrier.wait();
                    read()
                })
            })
            .collect();
        handles.into_iter().filter_map(|h| h.join().ok()).collect()
    });
    (!readings.is_empty()).then(|| readings.iter().sum::<f64>() / readings.len() as f64)
}

/// Largest ÷ smallest clock reading of one case above which the clock is said to have
/// moved during the case (throttling or host contention): its efficiency is less certain.
pub(crate) const SPREAD_WARN: f64 = 1.05;

/// The clock a peak uses from the readings of one case, taken before the first sample
/// and after each one: for each sample the larger of the two readings around it (stolen
/// time only ever lowers a reading), averaged over the samples. A single reading is
/// used as it is. Readings that are not finite and positive are ignored; `None` when
/// none is left.
pub(crate) fn used_hz(readings: &[f64]) -> Option<f64> {
    let r: Vec<f64> = usable(readings).collect();
    match r.len() {
        0 => None,
        1 => Some(r[0]),
        n => Some(r.windows(2).map(|w| w[0].max(w[1])).sum::<f64>() / (n - 1) as f64),
    }
}

/// The largest usable reading.
pub(crate) fn max_reading(readings: &[f64]) -> Option<f64> {
    usable(readings).reduce(f64::max)
}

/// Largest ÷ smallest of the usable readings (1.0 for a single one); `None` without any.
/// Compare with [`SPREAD_WARN`].
pub(crate) fn spread(readings: &[f64]) -> Option<f64> {
    let min = usable(readings).reduce(f64::min)?;
    max_reading(readings).map(|max| max / min)
}

fn usable(readings: &[f64]) -> impl Iterator<Item = f64> + '_ {
    readings
        .iter()
        .copied()
        .filter(|r| r.is_finite() && *r > 0.0)
}

/// One clock reading: runs the chain for about `secs` and returns adds per second.
///
/// # Safety
/// The CPU must support the instructions `chain` uses.
pub(crate) unsafe fn chain_hz(chain: ChainFn, secs: f64) -> f64 {
    let mut loops: u64 = 1000;
    loop {
        let t0 = Tick::now();
        let adds = chain(loops);
        let dt = Tick::now().secs_since(t0);
        if dt >= secs || loops > (1 << 40) {
            return adds as f64 / dt;
        }
        loops = if dt < secs / 50.0 {
            loops * 20
        } else {
            ((loops as f64) * secs / dt * 1.05) as u64 + 1
        };
    }
}

/// The asm of a clock chain, the one template of every chain that counts cycles (here
/// and in `bench::cpu::x86`): `$setup`, then a loop of `$loops` iterations over `$body`,
/// which holds the dependent `add {a}, {b}`s (one per cycle) and whatever runs beside
/// them, then `$tail`. `$clobber` lists the registers the setup and body overwrite,
/// each followed by a comma.
#[cfg(target_arch = "x86_64")]
macro_rules! add_chain {
    ($loops:expr, [$($setup:literal),*], [$($body:literal),+], [$($tail:literal),*], $($clobber:tt)*) => {
        std::arch::asm!(
            $($setup,)*
            "2:",
            $($body,)+
            "dec {n}",
            "jnz 2b",
            $($tail,)*
            n = inout(reg) $loops => _,
            a = inout(reg) 1u64 => _,
            b = in(reg) std::hint::black_box(3u64),
            $($clobber)*
            options(nomem, nostack),
        )
    };
}
#[cfg(target_arch = "x86_64")]
pub(crate) use add_chain;

/// 192 dependent adds per loop iteration; dec/jnz run on other ports in parallel.
#[cfg(target_arch = "x86_64")]
unsafe fn scalar_chain(loops: u64) -> u64 {
    add_chain!(loops, [], [".rept 192", "add {a}, {b}", ".endr"], [],);
    loops * 192
}

#[cfg(not(target_arch = "x86_64"))]
unsafe fn scalar_chain(loops: u64) -> u64 {
    loops
}

#[cfg(target_arch = "x86_64")]
unsafe fn avx512_chain_adds(loops: u64) -> u64 {
    avx512_chain(loops);
    loops * 192
}

#[cfg(not(target_arch = "x86_64"))]
unsafe fn avx512_chain_adds(loops: u64) -> u64 {
    loops
}

/// 192 dependent adds with 96 independent 512-bit FMAs (8 accumulators) interleaved:
/// the FMAs keep the core in its AVX-512 frequency licence, the adds count cycles.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn avx512_chain(loops: u64) {
    add_chain!(
        loops,
        ["vpxord zmm8, zmm8, zmm8", "vpxord zmm9, zmm9, zmm9"],
        [
            ".rept 12",
            ".irp r,0,1,2,3,4,5,6,7",
            "add {a}, {b}",
            "add {a}, {b}",
            "vfmadd231pd zmm\\r, zmm8, zmm9",
            ".endr",
            ".endr"
        ],
        // Leave the upper register state clean: legacy-SSE code run later (by this
        // thread or threads cloned from it, which inherit the state) would otherwise
        // pay the SSE/AVX transition penalty.
        ["vzeroupper"],
        out("zmm0") _, out("zmm1") _, out("zmm2") _, out("zmm3") _,
        out("zmm4") _, out("zmm5") _, out("zmm6") _, out("zmm7") _,
        out("zmm8") _, out("zmm9") _,
    );
}

/// Clears the upper halves of the vector registers (`vzeroupper`) when the CPU has AVX,
/// so legacy-SSE kernels on this thread do not pay the SSE/AVX transition penalty for
/// state left dirty by earlier code (threads inherit it from their parent).
pub(crate) fn clean_vector_state() {
    #[cfg(target_arch = "x86_64")]
    {
        #[target_feature(enable = "avx")]
        unsafe fn vzeroupper() {
            std::arch::asm!("vzeroupper", options(nomem, nostack));
        }
        if std::is_x86_feature_detected!("avx") {
            // SAFETY: AVX checked just above.
            unsafe { vzeroupper() };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_sample_takes_the_larger_reading_around_it() {
        // Samples between (2.34, 2.40), (2.40, 2.23), (2.23, 2.38): 2.40, 2.40, 2.38.
        let hz = used_hz(&[2.34e9, 2.40e9, 2.23e9, 2.38e9]).unwrap();
        assert!((hz - 7.18e9 / 3.0).abs() < 1.0, "{hz}");
        assert_eq!(max_reading(&[2.34e9, 2.40e9, 2.23e9, 2.38e9]), Some(2.40e9));
        assert_eq!(used_hz(&[2.3e9, 2.3e9]), Some(2.3e9));
        assert_eq!(used_hz(&[2.1e9]), Some(2.1e9));
        assert_eq!(used_hz(&[]), None);
        // A failed or broken reading never becomes the clock.
        assert_eq!(used_hz(&[f64::NAN, 0.0, -1.0, f64::INFINITY]), None);
        assert_eq!(used_hz(&[f64::NAN, 2.2e9, f64::INFINITY]), Some(2.2e9));
    }

    #[test]
    fn peaks_use_the_clock_of_their_width_and_core_count() {
        let c = ClockInfo {
            scalar_hz: Some(4.0e9),
            avx512_hz: Some(3.6e9),
            scalar_all_hz: Some(3.9e9),
            avx512_all_hz: Some(3.5e9),
            ..ClockInfo::default()
        };
        assert_eq!(c.for_peak(false, 1), Some(4.0e9));
        assert_eq!(c.for_peak(false, 2), Some(3.9e9));
        assert_eq!(c.for_peak(true, 1), Some(3.6e9));
        assert_eq!(c.for_peak(true, 8), Some(3.5e9));
        // No AVX-512 chain (AMD Zen 3, say): wide kernels fall back to the add chain.
        let z = ClockInfo {
            scalar_hz: Some(3.2e9),
            scalar_all_hz: Some(3.1e9),
            ..ClockInfo::default()
        };
        assert_eq!(z.for_peak(true, 2), Some(3.1e9));
        // Reports from before the all-core readings: the one-core clock.
        let old = ClockInfo {
            scalar_hz: Some(3.2e9),
            ..ClockInfo::default()
        };
        assert_eq!(old.for_peak(false, 4), Some(3.2e9));
    }

    #[test]
    fn spread_is_largest_over_smallest() {
        assert_eq!(spread(&[]), None);
        assert_eq!(spread(&[2.3e9]), Some(1.0));
        assert_eq!(spread(&[2.0e9, 2.2e9, 2.1e9]), Some(1.1));
        assert_eq!(spread(&[0.0, 2.0e9, f64::NAN, 2.1e9]), Some(1.05));
        // The reading that made fma_f64_avx512 read 103 % of peak in a quick suite.
        assert!(spread(&[2.23e9, 2.34e9, 2.40e9]).unwrap() > SPREAD_WARN);
        assert!(spread(&[2.34e9, 2.38e9, 2.36e9, 2.39e9]).unwrap() <= SPREAD_WARN);
    }

    #[test]
    fn clock_is_plausible() {
        if !chain_available(ClockKind::Scalar) {
            eprintln!("skipped: no clock chain on this architecture");
            return;
        }
        let hz = unsafe { max_hz(chain_fn(ClockKind::Scalar).unwrap(), 3, 0.01) };
        // Any real core runs between 0.3 and 7 GHz; a collapsed chain would read more.
        assert!(hz > 3e8 && hz < 7e9, "measured {hz} Hz");
        if chain_available(ClockKind::Avx512) {
            let v = unsafe { max_hz(chain_fn(ClockKind::Avx512).unwrap(), 3, 0.01) };
            assert!(v > 3e8 && v < 7e9, "measured {v} Hz under AVX-512");
        }
    }
}
