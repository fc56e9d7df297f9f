//! The real core clock, measured: a long chain of dependent `add reg, reg` runs one add
//! per cycle on every x86 core since the P6, so adds ÷ seconds = cycles/s. Chains of
//! *immediate* adds must not be used: recent cores fuse or eliminate them and read
//! 5–15 GHz. Two more chains interleave 256-bit and 512-bit FMAs with the adds, because
//! dense vector arithmetic can lower the clock (Intel's AVX2 and AVX-512 frequency
//! licences).
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
    /// One core running the add chain interleaved with 256-bit FMAs (x86 with FMA): the
    /// clock of Intel's AVX2 "heavy" licence, which 256-bit FP and integer-multiply
    /// kernels run in (issue #49: on Cascade Lake 2.68 GHz against 3.05 for the adds).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) avx2_hz: Option<f64>,
    /// Every physical core running the 256-bit FMA chain at once (x86 with FMA only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) avx2_all_hz: Option<f64>,
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
    /// Dependent adds with independent 256-bit FMAs interleaved (one per two adds): the
    /// licence of 256-bit FP and integer-multiply code on Intel cores.
    Avx2,
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
        let fma = cpu.has("fma");
        let when = |on: bool, k, cpus: &[usize]| if on { read(k, cpus) } else { None };
        let scalar_hz = read(ClockKind::Scalar, &one);
        let avx2_hz = when(fma, ClockKind::Avx2, &one);
        let avx512_hz = when(avx512, ClockKind::Avx512, &one);
        let (scalar_all_hz, avx2_all_hz, avx512_all_hz) = if all.len() > 1 {
            (
                read(ClockKind::Scalar, &all),
                when(fma, ClockKind::Avx2, &all),
                when(avx512, ClockKind::Avx512, &all),
            )
        } else {
            (scalar_hz, avx2_hz, avx512_hz)
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
            avx2_hz,
            avx2_all_hz,
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

    /// The clock a peak of a kernel whose chain is `kind` on `cores` cores uses: the
    /// all-core reading for more than one core; the AVX2 or AVX-512 chain for the kernels
    /// that run in those licences, the add chain where that chain was not measured.
    pub(crate) fn for_peak(&self, kind: ClockKind, cores: usize) -> Option<f64> {
        let (one, all) = match kind {
            ClockKind::Scalar => (self.scalar_hz, self.scalar_all_hz),
            ClockKind::Avx2 => (
                self.avx2_hz.or(self.scalar_hz),
                self.avx2_all_hz.or(self.scalar_all_hz),
            ),
            ClockKind::Avx512 => (
                self.avx512_hz.or(self.scalar_hz),
                self.avx512_all_hz.or(self.scalar_all_hz),
            ),
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
        ClockKind::Avx2 => avx2_chain_adds as ChainFn,
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
        ClockKind::Avx2 => {
            #[cfg(target_arch = "x86_64")]
            {
                std::is_x86_feature_detected!("avx")
                    && std::is_x86_feature_detected!("fma")
                    && super::emulation::emulated().is_none()
            }
            #[cfg(not(target_arch = "x86_64"))]
            {
                false
            }
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
unsafe fn avx2_chain_adds(loops: u64) -> u64 {
    avx2_chain(loops);
    loops * 192
}

#[cfg(not(target_arch = "x86_64"))]
unsafe fn avx2_chain_adds(loops: u64) -> u64 {
    loops
}

/// 192 dependent adds with 96 independent 256-bit FMAs (8 accumulators) interleaved:
/// the FMAs keep the core in the licence of dense 256-bit FP code (Intel's AVX2
/// "heavy" licence; AMD cores have none and read the add chain's clock), the adds
/// count cycles. One FMA every two adds is the density of the 256-bit kernels' own
/// chains (`bench::cpu::x86`), under which 12 independent 256-bit FMAs run their 6
/// cycles on Cascade Lake (issue #49).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx,fma")]
unsafe fn avx2_chain(loops: u64) {
    add_chain!(
        loops,
        ["vpxor ymm8, ymm8, ymm8", "vpxor ymm9, ymm9, ymm9"],
        [
            ".rept 12",
            ".irp r,0,1,2,3,4,5,6,7",
            "add {a}, {b}",
            "add {a}, {b}",
            "vfmadd231ps ymm\\r, ymm8, ymm9",
            ".endr",
            ".endr"
        ],
        ["vzeroupper"],
        out("ymm0") _, out("ymm1") _, out("ymm2") _, out("ymm3") _,
        out("ymm4") _, out("ymm5") _, out("ymm6") _, out("ymm7") _,
        out("ymm8") _, out("ymm9") _,
    );
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
#[path = "clock_tests.rs"]
mod tests;
