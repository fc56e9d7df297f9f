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
pub(crate) struct ClockInfo {
    /// One core running the scalar add chain.
    pub(crate) scalar_hz: Option<f64>,
    /// One core running the add chain interleaved with 512-bit FMAs (AVX-512 CPUs only).
    pub(crate) avx512_hz: Option<f64>,
    /// Every physical core (one thread each) running the add chain at once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) scalar_all_hz: Option<f64>,
    /// Every physical core running the AVX-512 chain at once (AVX-512 CPUs only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) avx512_all_hz: Option<f64>,
    /// "cpu MHz" from /proc/cpuinfo (the TSC rate in most VMs), for reference.
    pub(crate) label_hz: Option<f64>,
    /// How the clock was measured.
    pub(crate) method: String,
    /// On a machine with several kinds of core (big.LITTLE): each kind's clock, read on
    /// one of its cores (`clock_kinds.rs`); empty otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) kinds: Vec<super::clock_kinds::KindClock>,
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
        // Under emulation /proc/cpuinfo is the host's: its "cpu MHz" is not this CPU's.
        let cpuinfo = std::fs::read_to_string("/proc/cpuinfo")
            .ok()
            .filter(|_| cpu.emulated.is_none());
        let label_hz = cpuinfo.and_then(|t| {
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
        let read = |k, cpus: &[usize]| {
            // SAFETY: chain_fn only returns chains this CPU supports.
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
        // big.LITTLE: one reading per kind of core, each on one of its cores.
        let plan = super::clock_kinds::plan(&cpu.description.parts, &cpu.pin_order);
        let kinds = if plan.is_empty() || !kinds_ok {
            Vec::new()
        } else {
            let readings: Vec<Option<f64>> = plan
                .iter()
                .map(|&c| read(ClockKind::Scalar, &[c]))
                .collect();
            super::clock_kinds::assign(&cpu.description, cpu.threads, &plan, &readings)
        };
        ClockInfo {
            kinds,
            scalar_hz,
            avx512_hz,
            scalar_all_hz,
            avx512_all_hz,
            label_hz,
            method: if let Some(why) = &cpu.emulated {
                format!("{} ({why})", super::arm::EMULATED)
            } else if kinds_ok {
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
        // aarch64: `add x, x, y` runs one per cycle on every Arm core too; under an
        // emulator a chain counts the emulator's speed, not cycles.
        ClockKind::Scalar => {
            (cfg!(target_arch = "x86_64") || cfg!(target_arch = "aarch64"))
                && super::emulation::emulated().is_none()
        }
        ClockKind::Avx512 => {
            #[cfg(target_arch = "x86_64")]
            {
                std::is_x86_feature_detected!("avx512f") && super::emulation::emulated().is_none()
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
    // SAFETY: forwarded from the caller's contract.
    best_reading((0..n).map(|_| unsafe { chain_reading(chain, secs) })).clock()
}

/// Measures the clock on every listed CPU at once (each thread pinned to its CPU) and
/// returns the mean: the all-core clock under that load. Empty `cpus` → current thread.
/// Each CPU's figure is its largest reading taken while its thread had its core
/// ([`best_reading`]); see [`Reading`] for a CPU on which every reading lost time.
///
/// # Safety
/// The CPU must support the instructions `chain` uses.
pub(crate) unsafe fn measure_on(cpus: &[usize], chain: ChainFn, secs: f64) -> Option<Reading> {
    // SAFETY: forwarded from the caller's contract.
    let per = on_cpus_with(cpus, &|| unsafe {
        best_reading((0..READINGS).map(|_| chain_reading(chain, secs)))
    })?;
    let n = per.len() as f64;
    Some(Reading {
        hz: per.iter().map(|r| r.hz).sum::<f64>() / n,
        running_hz: per.iter().map(|r| r.running_hz).sum::<f64>() / n,
        share: per.iter().map(|r| r.share).fold(1.0, f64::min),
    })
}

/// One clock measurement: adds per wall second, and what the chain's thread had of its
/// core meanwhile.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Reading {
    /// Dependent adds per wall-clock second: the clock, when the thread had its core.
    pub(crate) hz: f64,
    /// Dependent adds per second of the thread's CPU time: the clock while it ran. The
    /// same as `hz` when it had its core; when another task shared the core, `hz` falls
    /// with the share and this does not.
    pub(crate) running_hz: f64,
    /// The thread's CPU time ÷ wall time during the reading (the smallest over CPUs).
    pub(crate) share: f64,
}

impl Reading {
    /// Whether the chain's thread lost its core during the reading: `hz` is then lowered
    /// by descheduling, not by a slower clock, and is not used to lower a peak.
    pub(crate) fn descheduled(&self) -> bool {
        self.share < crate::measure::share::MIN_SHARE
    }

    /// The clock the reading stands for: `hz`, or `running_hz` when descheduled.
    pub(crate) fn clock(&self) -> f64 {
        if self.descheduled() {
            self.running_hz
        } else {
            self.hz
        }
    }
}

/// The reading kept out of several on one CPU: the largest `hz` among those taken while
/// the thread had its core; when none was, the one with the largest share (its `hz` is
/// low by the lost time, its `running_hz` is the clock while it ran).
pub(crate) fn best_reading(readings: impl Iterator<Item = Reading>) -> Reading {
    let all: Vec<Reading> = readings.collect();
    let clean = all
        .iter()
        .filter(|r| !r.descheduled())
        .max_by(|a, b| a.hz.total_cmp(&b.hz));
    let best = clean.or_else(|| all.iter().max_by(|a, b| a.share.total_cmp(&b.share)));
    best.copied().unwrap_or(Reading {
        hz: 0.0,
        running_hz: 0.0,
        share: 0.0,
    })
}

/// One clock reading with the share of the core the thread had (see [`Reading`]).
///
/// # Safety
/// The CPU must support the instructions `chain` uses.
pub(crate) unsafe fn chain_reading(chain: ChainFn, secs: f64) -> Reading {
    // SAFETY: forwarded from the caller's contract.
    let (adds, wall, cpu) = unsafe { chain_adds(chain, secs) };
    let share = if wall > 0.0 { cpu / wall } else { 1.0 };
    Reading {
        hz: adds / wall.max(1e-12),
        running_hz: if cpu > 0.0 {
            adds / cpu
        } else {
            adds / wall.max(1e-12)
        },
        share,
    }
}

/// Runs `read` on every listed CPU at once (each thread pinned) and returns the mean
/// of the readings; empty `cpus` → once on the current thread.
fn on_cpus(cpus: &[usize], read: &(dyn Fn() -> f64 + Sync)) -> Option<f64> {
    let r = on_cpus_with(cpus, read)?;
    Some(r.iter().sum::<f64>() / r.len() as f64)
}

/// Runs `read` on every listed CPU at once (each thread pinned) and returns every
/// CPU's result (`None` when none came back); empty `cpus` → once on this thread.
pub(crate) fn on_cpus_with<T: Send>(
    cpus: &[usize],
    read: &(dyn Fn() -> T + Sync),
) -> Option<Vec<T>> {
    if cpus.is_empty() {
        return Some(vec![read()]);
    }
    let barrier = std::sync::Barrier::new(cpus.len());
    let readings: Vec<T> = std::thread::scope(|s| {
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
    (!readings.is_empty()).then_some(readings)
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

/// What a case's clock readings say against the host's sustained clock.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct CaseClock {
    /// The clock the case ran at ([`used_hz`] of the readings, each descheduled one
    /// taken at its running clock so that lost time does not lower it).
    pub(crate) measured: Option<f64>,
    /// The clock the peak uses: the host's sustained clock (sysinfo's reading for the
    /// width and cores) or the highest reading of the case, whichever is higher.
    pub(crate) sustained: Option<f64>,
    /// `(warning?, text)`: every reading, then what is wrong with them.
    pub(crate) notes: Vec<(bool, String)>,
}

/// Checks a case's readings (taken before the samples and after each) against the
/// host's sustained clock `host_hz` (see [`CaseClock`]). A reading lowered because the
/// chain's thread was descheduled says so and does not lower anything; a clean
/// reading lower than the sustained clock by more than [`SPREAD_WARN`] says the case ran
/// at a lower clock.
pub(crate) fn case_clock(readings: &[Reading], host_hz: Option<f64>) -> CaseClock {
    let clocks: Vec<f64> = readings.iter().map(Reading::clock).collect();
    let measured = used_hz(&clocks);
    let highest = max_reading(&clocks);
    let sustained = match (host_hz.filter(|h| h.is_finite() && *h > 0.0), highest) {
        (Some(h), Some(m)) => Some(h.max(m)),
        (h, m) => h.or(m),
    };
    let mut notes = Vec::new();
    let (Some(used), Some(sus)) = (measured, sustained) else {
        return CaseClock {
            measured,
            sustained,
            notes,
        };
    };
    let ghz = |v: &mut dyn Iterator<Item = f64>| -> String {
        v.map(|r| format!("{:.2}", r / 1e9))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let from = if host_hz.is_some_and(|h| h >= sus) {
        "the host's all-core reading"
    } else {
        "the highest reading of the case"
    };
    notes.push((
        false,
        format!(
            "clock readings before the samples and after each: {} GHz; {:.3} GHz measured (mean over the samples of the larger reading around each); peak at the sustained {:.3} GHz ({from})",
            ghz(&mut readings.iter().map(|r| r.hz)),
            used / 1e9,
            sus / 1e9
        ),
    ));
    let lost: Vec<&Reading> = readings.iter().filter(|r| r.descheduled()).collect();
    if !lost.is_empty() {
        let share = lost.iter().map(|r| r.share).sum::<f64>() / lost.len() as f64;
        notes.push((
            true,
            format!(
                "clock reading{} {} GHz taken while the chain's thread had {:.0} % of its core (descheduled, not a slower clock): not used to lower the peak; while running it read {} GHz",
                if lost.len() == 1 { "" } else { "s" },
                ghz(&mut lost.iter().map(|r| r.hz)),
                share * 100.0,
                ghz(&mut lost.iter().map(|r| r.running_hz)),
            ),
        ));
    }
    if let (Some(max), Some(spread)) = (max_reading(&clocks), spread(&clocks)) {
        if spread > SPREAD_WARN {
            notes.push((
                true,
                format!(
                    "clock moved during the run: {:.2}–{:.2} GHz (max/min spread {:.1} % > {:.0} %), throttling or host contention; the efficiency is less certain",
                    max / spread / 1e9,
                    max / 1e9,
                    (spread - 1.0) * 100.0,
                    (SPREAD_WARN - 1.0) * 100.0
                ),
            ));
        }
    }
    if sus / used > SPREAD_WARN {
        notes.push((
            true,
            format!(
                "taken at a lower clock: {:.2} GHz measured, {:.0} % below the sustained {:.2} GHz (throttling, a frequency licence or a busy host); the efficiency is against the sustained clock",
                used / 1e9,
                (1.0 - used / sus) * 100.0,
                sus / 1e9
            ),
        ));
    }
    CaseClock {
        measured,
        sustained,
        notes,
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
    // SAFETY: forwarded from the caller's contract.
    let (adds, dt, _) = unsafe { chain_adds(chain, secs) };
    adds / dt
}

/// Runs the chain until one pass lasts at least `secs` and returns that pass's adds,
/// wall seconds and the thread's CPU seconds.
///
/// # Safety
/// The CPU must support the instructions `chain` uses.
unsafe fn chain_adds(chain: ChainFn, secs: f64) -> (f64, f64, f64) {
    let mut loops: u64 = 1000;
    loop {
        let c0 = crate::measure::share::thread_cpu_ns();
        let t0 = Tick::now();
        let adds = chain(loops);
        let dt = Tick::now().secs_since(t0);
        let cpu = crate::measure::share::thread_cpu_ns().saturating_sub(c0) as f64 * 1e-9;
        if dt >= secs || loops > (1 << 40) {
            return (adds as f64, dt, cpu);
        }
        loops = if dt < secs / 50.0 {
            loops * 20
        } else {
            ((loops as f64) * secs / dt * 1.05) as u64 + 1
        };
    }
}

/// The asm of a clock chain, the one template of every chain that counts cycles (here
/// and in `bench::cpu::x86`), on both architectures: `$setup`, then a loop of `$loops`
/// iterations over `$body`, which holds the dependent adds (`add {a}, {b}` on x86-64,
/// `add {a}, {a}, {b}` on aarch64: one per cycle) and whatever runs beside them, closed
/// by the architecture's count-down ([`crate::hw::asm`]'s `loop_end`, which runs on
/// other ports beside the adds), then `$tail`. `$clobber` lists the registers the
/// setup and body overwrite, each followed by a comma.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
macro_rules! add_chain {
    ($loops:expr, [$($setup:literal),*], [$($body:literal),+], [$($tail:literal),*], $($clobber:tt)*) => {
        std::arch::asm!(
            $($setup,)*
            "2:",
            $($body,)+
            $crate::hw::asm::loop_end!(),
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

/// aarch64: 192 dependent `add x, x, y` per loop iteration (one per cycle on every
/// Arm core: single-cycle integer ALUs); subs/b.ne run beside them.
#[cfg(target_arch = "aarch64")]
unsafe fn scalar_chain(loops: u64) -> u64 {
    add_chain!(loops, [], [".rept 192", "add {a}, {a}, {b}", ".endr"], [],);
    loops * 192
}

#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
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

    fn r(hz: f64, share: f64) -> Reading {
        Reading {
            hz,
            running_hz: hz / share,
            share,
        }
    }

    #[test]
    fn a_descheduled_reading_does_not_lower_the_clock() {
        // The best of several readings is the largest clean one.
        let b = best_reading([r(3.6e9, 1.0), r(1.9e9, 0.5), r(3.68e9, 0.99)].into_iter());
        assert_eq!(b.hz, 3.68e9);
        // None clean: the one with most of its core, at its running clock.
        let b = best_reading([r(1.8e9, 0.49), r(1.9e9, 0.515)].into_iter());
        assert!(b.descheduled());
        assert!((b.clock() - 1.9e9 / 0.515).abs() < 1.0);
        // The linalg case of the issue: 1.88/1.86 GHz readings at half a core among
        // 3.69 GHz ones; the peak stays at the sustained clock and the note says why.
        let c = case_clock(
            &[
                r(1.88e9, 0.51),
                r(1.86e9, 0.505),
                r(3.69e9, 1.0),
                r(3.69e9, 1.0),
            ],
            Some(3.69e9),
        );
        assert_eq!(c.sustained, Some(3.69e9));
        assert!(c.measured.unwrap() > 3.6e9, "{c:?}");
        assert!(
            c.notes[0].1.starts_with(
                "clock readings before the samples and after each: 1.88, 1.86, 3.69, 3.69 GHz;"
            ),
            "{c:?}"
        );
        assert!(c.notes[1].0);
        assert!(c.notes[1].1.starts_with("clock readings 1.88, 1.86 GHz taken while the chain's thread had 51 % of its core (descheduled, not a slower clock)"), "{}", c.notes[1].1);
        assert_eq!(c.notes.len(), 2, "{c:?}");
    }

    #[test]
    fn a_slower_clean_clock_is_said_and_the_peak_stays_sustained() {
        let c = case_clock(&[r(3.2e9, 1.0), r(3.2e9, 1.0)], Some(3.69e9));
        assert_eq!(c.sustained, Some(3.69e9));
        assert_eq!(c.measured, Some(3.2e9));
        assert!(
            c.notes[0]
                .1
                .ends_with("peak at the sustained 3.690 GHz (the host's all-core reading)"),
            "{c:?}"
        );
        assert!(
            c.notes
                .iter()
                .any(|(w, t)| *w && t.starts_with(
                    "taken at a lower clock: 3.20 GHz measured, 13 % below the sustained 3.69 GHz"
                )),
            "{c:?}"
        );
        // No host reading, or a lower one: the highest reading of the case.
        let c = case_clock(&[r(3.7e9, 1.0), r(3.65e9, 1.0)], Some(3.5e9));
        assert_eq!(c.sustained, Some(3.7e9));
        assert!(c.notes[0].1.ends_with("(the highest reading of the case)"));
        assert_eq!(c.notes.len(), 1);
        assert_eq!(case_clock(&[], None).sustained, None);
        assert_eq!(case_clock(&[], Some(3e9)).measured, None);
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
            // Another architecture, or an emulated CPU (its chain would time the emulator).
            eprintln!(
                "skipped: no clock chain here ({})",
                crate::hw::emulation::emulated()
                    .unwrap_or_else(|| std::env::consts::ARCH.to_string())
            );
            return;
        }
        // SAFETY: the scalar chain is plain integer adds, on every CPU that has a chain.
        let hz = unsafe { max_hz(chain_fn(ClockKind::Scalar).unwrap(), 3, 0.01) };
        // Any real core runs between 0.3 and 7 GHz; a collapsed chain would read more.
        assert!(hz > 3e8 && hz < 7e9, "measured {hz} Hz");
        if chain_available(ClockKind::Avx512) {
            // SAFETY: `chain_available` checked the CPU has AVX-512.
            let v = unsafe { max_hz(chain_fn(ClockKind::Avx512).unwrap(), 3, 0.01) };
            assert!(v > 3e8 && v < 7e9, "measured {v} Hz under AVX-512");
        }
    }
}
