//! The runner: warm-up, iteration calibration to `--min-time`, `--repeat` samples, and
//! threads released together by a barrier, each pinned to its own core.
//!
//! How one case is measured:
//! 1. `threads` workers start; each pins itself to `cpus[i]` *before* it builds its
//!    workload, so memory is first-touched on the core that will use it.
//! 2. Calibration: the iteration count per thread doubles (or is extrapolated) until one
//!    run lasts at least `min_time`; these runs are the warm-up and are discarded.
//! 3. `repeat` timed runs with that count. Every run: all workers wait on a barrier, the
//!    main thread releases them together, each notes its start and finish on the raw
//!    monotonic clock, and the interval is *first start to last finish* — the slowest
//!    thread sets the pace, as in STREAM and likwid-bench.
//!
//! Between samples the workers wait, idle, at the barrier: the per-sample callback
//! (`on_sample`) runs on the calling thread then, outside every timed interval, so it
//! may report progress or take a measurement on the same cores (the CPU benchmark reads
//! the core clock there).
//!
//! A workload reports the work it did (operations, bytes, loads…) in whatever unit its
//! benchmark declares; the runner only sums it across threads and divides by time.

use super::clock::Tick;
use super::share::{HostMark, SampleShare, ThreadMark};
use super::stable::stable_enough;
pub(crate) use super::stable::{split_kept, Stable, STABLE_MAX_SAMPLES};
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Barrier, Mutex};
use std::time::Duration;

/// The work a thread does, built on that thread after it is pinned.
pub(crate) trait Workload: Send {
    /// Runs `iters` iterations and returns the work done, in the benchmark's unit.
    /// It must consume its results (e.g. `std::hint::black_box` of a checksum) so the
    /// work cannot be optimised away.
    fn run(&mut self, iters: u64) -> f64;
}

/// How work relates to the number of threads (`--weak`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Scaling {
    /// The problem (e.g. a memory working set) is fixed and divided among threads.
    Strong,
    /// Every thread gets the full problem.
    Weak,
}

/// What a workload factory learns about the thread it runs on.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ThreadCtx {
    /// 0-based index of this worker.
    pub(crate) index: usize,
}

/// How to run one case.
#[derive(Debug, Clone)]
pub(crate) struct RunConfig {
    /// Timed samples after the warm-up (`--repeat`).
    pub(crate) repeat: u32,
    /// Minimum duration of every sample (`--min-time`).
    pub(crate) min_time: Duration,
    /// Worker threads.
    pub(crate) threads: usize,
    /// Logical CPUs to pin worker i to `cpus[i]`; pinning is skipped when shorter than
    /// `threads` (oversubscribed) or empty.
    pub(crate) cpus: Vec<usize>,
    /// `--until-stable`: take samples past `repeat` until the kept ones are precise
    /// enough or the budget ends (see [`Stable`]).
    pub(crate) stable: Option<Stable>,
}

pub(crate) use super::sample::Sample;

/// Why a case could not run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum RunError {
    /// A workload could not be set up (e.g. an allocation or a permission failed).
    #[error("setup failed: {0}")]
    Setup(String),
    /// The configuration is unusable.
    #[error("invalid run configuration: {0}")]
    Config(String),
    /// A worker thread panicked; the case was abandoned and the other workers released.
    #[error("a worker thread panicked: {0}")]
    Panicked(String),
}

/// The message of a caught panic.
fn panic_text(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "(no message)".into())
}

/// Pins the calling thread to one logical CPU. Returns false when the OS refuses.
pub(crate) fn pin_current_thread(cpu: usize) -> bool {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: cpu_set_t is plain data; CPU_SET bounds-checks against its size below.
        unsafe {
            if cpu >= 8 * std::mem::size_of::<libc::cpu_set_t>() {
                return false;
            }
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            libc::CPU_SET(cpu, &mut set);
            libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) == 0
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = cpu;
        false
    }
}

/// How a sample series is driven.
enum Plan {
    /// `repeat` samples of calibrated length.
    Repeat,
    /// Back-to-back samples of about `interval` each for `total`.
    Sustain { interval: Duration, total: Duration },
}

/// Makes the workload of one thread (called on that thread, after pinning); an `Err`
/// aborts the case with that text.
pub(crate) trait MakeWorkload<W>: Fn(ThreadCtx) -> Result<W, String> + Sync {}
impl<W, F: Fn(ThreadCtx) -> Result<W, String> + Sync> MakeWorkload<W> for F {}

/// The progress callback: `(samples done, samples in all)`, see [`Runner::run`].
pub(crate) type OnSample<'a> = &'a (dyn Fn(usize, usize) + Sync);

/// Runs cases. Stateless; see the module documentation for the procedure.
pub(crate) struct Runner;

/// What the driving thread shares with the workers during the measurement.
#[derive(Clone, Copy)]
struct Gates<'a> {
    iters: &'a AtomicU64,
    start: &'a Barrier,
    done: &'a Barrier,
    slots: &'a [Mutex<Slot>],
    panics: &'a Mutex<Vec<String>>,
    /// Whether every worker can have a core of its own: oversubscribed threads share
    /// cores with each other by design, so their shares are not recorded (the case
    /// already says it is oversubscribed).
    own_cores: bool,
}

struct Slot {
    start: Tick,
    end: Tick,
    work: f64,
    /// The thread's CPU time and switches at its start and finish.
    marks: (ThreadMark, ThreadMark),
    /// The CPU it was pinned to, or ran on at its finish.
    cpu: Option<usize>,
}

impl Runner {
    /// Measures one case: warm-up and calibration, then `cfg.repeat` samples.
    /// `on_sample(done, total)` is called after every timed sample, the last included,
    /// while no worker runs; its time counts in no sample's `secs` (see the module doc).
    pub(crate) fn run<W: Workload, F: MakeWorkload<W>>(
        cfg: &RunConfig,
        make: F,
        on_sample: OnSample,
    ) -> Result<Vec<Sample>, RunError> {
        Self::drive(cfg, make, Plan::Repeat, on_sample)
    }

    /// Measures a time series: samples of about `interval` back to back for `total`
    /// (after the usual warm-up), e.g. 10 minutes at 1 s to see throttling.
    /// `on_sample` as in [`Runner::run`]; its time does count in the gaps between the
    /// samples' `at`.
    pub(crate) fn sustain<W: Workload, F: MakeWorkload<W>>(
        cfg: &RunConfig,
        make: F,
        interval: Duration,
        total: Duration,
        on_sample: OnSample,
    ) -> Result<Vec<Sample>, RunError> {
        Self::drive(cfg, make, Plan::Sustain { interval, total }, on_sample)
    }

    fn drive<W: Workload, F: MakeWorkload<W>>(
        cfg: &RunConfig,
        make: F,
        plan: Plan,
        on_sample: OnSample,
    ) -> Result<Vec<Sample>, RunError> {
        if cfg.threads == 0 {
            return Err(RunError::Config("threads must be at least 1".into()));
        }
        if cfg.repeat == 0 {
            return Err(RunError::Config("repeat must be at least 1".into()));
        }
        let n = cfg.threads;
        let pinned = cfg.cpus.len() >= n;
        // iters == 0 tells the workers to stop.
        let iters = AtomicU64::new(0);
        let start_gate = Barrier::new(n + 1);
        let done_gate = Barrier::new(n + 1);
        let slots: Vec<Mutex<Slot>> = (0..n)
            .map(|_| {
                Mutex::new(Slot {
                    start: Tick::now(),
                    end: Tick::now(),
                    work: 0.0,
                    marks: Default::default(),
                    cpu: None,
                })
            })
            .collect();
        let setup_errors: Mutex<Vec<String>> = Mutex::new(Vec::new());
        // A panicking worker must not leave the others (and this thread) waiting at a
        // barrier forever: workers catch their own panics, record them here and keep
        // taking part in the barriers without working; the driver stops at the next one.
        let panics: Mutex<Vec<String>> = Mutex::new(Vec::new());

        std::thread::scope(|scope| {
            for index in 0..n {
                let (iters, start_gate, done_gate, slots, make, setup_errors, panics) = (
                    &iters,
                    &start_gate,
                    &done_gate,
                    &slots,
                    &make,
                    &setup_errors,
                    &panics,
                );
                let cpu = pinned.then(|| cfg.cpus[index]);
                scope.spawn(move || {
                    if let Some(c) = cpu {
                        pin_current_thread(c);
                    }
                    let ctx = ThreadCtx { index };
                    let built = std::panic::catch_unwind(AssertUnwindSafe(|| make(ctx)));
                    let mut work = match built {
                        Ok(Ok(w)) => Some(w),
                        Ok(Err(e)) => {
                            lock(setup_errors).push(e);
                            None
                        }
                        Err(p) => {
                            lock(panics).push(panic_text(&*p));
                            None
                        }
                    };
                    // Setup gate: everybody is built (or failed) before the first run.
                    start_gate.wait();
                    done_gate.wait();
                    loop {
                        start_gate.wait();
                        let k = iters.load(Ordering::Acquire);
                        if k == 0 {
                            break;
                        }
                        let m0 = ThreadMark::now();
                        let t0 = Tick::now();
                        let w = match work.as_mut() {
                            None => 0.0,
                            Some(w) => {
                                match std::panic::catch_unwind(AssertUnwindSafe(|| w.run(k))) {
                                    Ok(v) => v,
                                    Err(p) => {
                                        lock(panics).push(panic_text(&*p));
                                        work = None;
                                        0.0
                                    }
                                }
                            }
                        };
                        let t1 = Tick::now();
                        let m1 = ThreadMark::now();
                        *lock(&slots[index]) = Slot {
                            start: t0,
                            end: t1,
                            work: w,
                            marks: (m0, m1),
                            cpu: cpu.or_else(super::share::current_cpu),
                        };
                        done_gate.wait();
                    }
                });
            }

            // Setup round.
            start_gate.wait();
            done_gate.wait();
            let failed = lock(&setup_errors).clone();
            let first_panic = lock(&panics).first().cloned();
            let outcome = if let Some(e) = first_panic {
                Ok(Err(RunError::Panicked(e)))
            } else if let Some(e) = failed.first() {
                Ok(Err(RunError::Setup(e.clone())))
            } else {
                // A panic here (in `on_sample`) happens while every worker waits at the
                // start gate: release them before passing it on, or the scope never ends.
                std::panic::catch_unwind(AssertUnwindSafe(|| {
                    let gates = Gates {
                        iters: &iters,
                        start: &start_gate,
                        done: &done_gate,
                        slots: &slots,
                        panics: &panics,
                        own_cores: pinned
                            || std::thread::available_parallelism().map_or(1, |p| p.get()) >= n,
                    };
                    Self::measure(cfg, &plan, &gates, on_sample)
                }))
            };
            // Release the workers for good.
            iters.store(0, Ordering::Release);
            start_gate.wait();
            match outcome {
                Ok(r) => r,
                Err(p) => std::panic::resume_unwind(p),
            }
        })
    }

    /// One run of `k` iterations on every worker: the summed work and the seconds from
    /// the first start to the last finish, and with `probe` what the threads had of
    /// their cores and the host's figures around it (read while no worker runs).
    fn once(
        k: u64,
        g: &Gates,
        probe: Option<&[usize]>,
    ) -> Result<(f64, f64, SampleShare), RunError> {
        let Gates {
            iters,
            start: start_gate,
            done: done_gate,
            slots,
            panics,
            own_cores,
        } = *g;
        let before = probe.map(|_| HostMark::now());
        iters.store(k, Ordering::Release);
        start_gate.wait();
        done_gate.wait();
        let after = probe.map(|_| HostMark::now());
        if let Some(e) = lock(panics).first() {
            return Err(RunError::Panicked(e.clone()));
        }
        let mut first = None::<Tick>;
        let mut last = None::<Tick>;
        let mut work = 0.0;
        let mut threads = Vec::new();
        for (i, s) in slots.iter().enumerate() {
            let s = lock(s);
            first = Some(first.map_or(s.start, |f| f.min(s.start)));
            last = Some(last.map_or(s.end, |l| l.max(s.end)));
            work += s.work;
            if probe.is_some() && own_cores {
                let (m0, m1) = s.marks;
                threads.push(m1.since(m0, s.end.secs_since(s.start), i + 1, s.cpu));
            }
        }
        let secs = match (first, last) {
            (Some(f), Some(l)) => l.secs_since(f),
            _ => 0.0,
        };
        let share = match (before, after, probe) {
            (Some(b), Some(a), Some(cpus)) => a.since(&b, cpus, threads),
            _ => SampleShare::default(),
        };
        Ok((work, secs, share))
    }

    fn measure(
        cfg: &RunConfig,
        plan: &Plan,
        g: &Gates,
        on_sample: OnSample,
    ) -> Result<Vec<Sample>, RunError> {
        let target = match plan {
            Plan::Repeat => cfg.min_time,
            Plan::Sustain { interval, .. } => *interval,
        }
        .as_secs_f64();
        // Calibration doubles as warm-up: grow k until one run reaches the target.
        let mut k: u64 = 1;
        loop {
            let (_, secs, _) = Self::once(k, g, None)?;
            if secs >= target {
                break;
            }
            let grow = if secs < target / 100.0 {
                10.0
            } else {
                (target / secs.max(1e-9) * 1.05).clamp(1.05, 10.0)
            };
            k = ((k as f64 * grow).ceil() as u64).max(k + 1);
        }
        let mut out = Vec::new();
        let t0 = Tick::now();
        // Steal is read on the CPUs in use; all of them when unpinned.
        let cpus: &[usize] = if cfg.cpus.len() >= cfg.threads {
            &cfg.cpus[..cfg.threads]
        } else {
            &[]
        };
        // One run of k iterations on the CPUs in use, stamped with its time since t0.
        let sample = || -> Result<Sample, RunError> {
            let (work, secs, share) = Self::once(k, g, Some(cpus))?;
            Ok(Sample {
                work,
                secs,
                iters: k,
                at: Tick::now().secs_since(t0),
                share,
            })
        };
        match plan {
            Plan::Repeat if cfg.stable.is_some() => {
                let stable = cfg.stable.expect("checked by the guard");
                let n = cfg.repeat as usize;
                let mut i = 0;
                loop {
                    out.push(sample()?);
                    i += 1;
                    // `--repeat` is the floor: the budget only limits repeating past it.
                    let done = stable_enough(&out, n, stable.target)
                        || (out.len() >= n
                            && Tick::now().secs_since(t0) >= stable.budget.as_secs_f64())
                        || out.len() >= STABLE_MAX_SAMPLES;
                    // The total is unknown until it stops: the progress shows the floor.
                    on_sample(i, if done { i } else { n.max(i + 1) });
                    if done {
                        break;
                    }
                }
            }
            Plan::Repeat => {
                let n = cfg.repeat as usize;
                for i in 0..n {
                    out.push(sample()?);
                    on_sample(i + 1, n);
                }
            }
            Plan::Sustain { interval, total } => {
                // Time-boxed samples: chunks of k iterations (k calibrated to a tenth of
                // the interval) until the interval has passed, so the series has exactly
                // ceil(total / interval) points however fast or throttled the machine is.
                let n = (total.as_secs_f64() / interval.as_secs_f64())
                    .ceil()
                    .max(1.0) as usize;
                let chunk = (k / 10).max(1);
                for i in 0..n {
                    let (mut work, mut secs, mut iters) = (0.0, 0.0, 0);
                    let mut parts = Vec::new();
                    while secs < target {
                        let (w, s, share) = Self::once(chunk, g, Some(cpus))?;
                        work += w;
                        secs += s;
                        iters += chunk;
                        parts.push((share, s));
                    }
                    out.push(Sample {
                        work,
                        secs,
                        iters,
                        at: Tick::now().secs_since(t0),
                        share: SampleShare::merge(&parts),
                    });
                    on_sample(i + 1, n);
                }
            }
        }
        Ok(out)
    }
}

/// Locks a mutex even when a panicking thread poisoned it: the data (samples, error
/// lists) stays meaningful, and a poisoned lock must not turn into a second panic.
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Counts to `iters` (kept from being optimised away); one unit of work per iteration.
    struct Count;

    impl Workload for Count {
        fn run(&mut self, iters: u64) -> f64 {
            let mut x = 0u64;
            for i in 0..iters {
                x = std::hint::black_box(x.wrapping_add(i));
            }
            std::hint::black_box(x);
            iters as f64
        }
    }

    /// 3 samples of at least 5 ms on `threads` unpinned threads.
    fn cfg(threads: usize) -> RunConfig {
        RunConfig {
            repeat: 3,
            min_time: Duration::from_millis(5),
            threads,
            cpus: vec![],
            stable: None,
        }
    }

    /// [`Count`] sustained on one thread for `total`, in 5 ms time-boxed samples.
    fn sustained(total: Duration) -> Vec<Sample> {
        Runner::sustain(
            &cfg(1),
            |_| Ok(Count),
            Duration::from_millis(5),
            total,
            &|_, _| {},
        )
        .unwrap()
    }

    #[test]
    fn samples_and_work_add_up() {
        for threads in [1, 2, 3] {
            let s = Runner::run(&cfg(threads), |_| Ok(Count), &|_, _| {}).unwrap();
            assert_eq!(s.len(), 3);
            for x in &s {
                assert_eq!(x.work, (x.iters * threads as u64) as f64);
                assert!(x.secs >= 0.0);
            }
            // Every timed sample runs the one calibrated iteration count.
            assert!(s[0].iters >= 1);
            assert!(s.iter().all(|x| x.iters == s[0].iters));
        }
    }

    /// Marks itself busy while it runs, so a test can see who runs when.
    struct Busy {
        running: std::sync::Arc<AtomicU64>,
    }
    impl Workload for Busy {
        fn run(&mut self, iters: u64) -> f64 {
            self.running.fetch_add(1, Ordering::SeqCst);
            let w = Count.run(iters);
            self.running.fetch_sub(1, Ordering::SeqCst);
            w
        }
    }

    #[test]
    fn on_sample_runs_after_every_sample_while_no_worker_runs() {
        let running = std::sync::Arc::new(AtomicU64::new(0));
        let calls = Mutex::new(Vec::new());
        let s = Runner::run(
            &cfg(2),
            |_| {
                Ok(Busy {
                    running: running.clone(),
                })
            },
            &|done, total| {
                calls
                    .lock()
                    .unwrap()
                    .push((done, total, running.load(Ordering::SeqCst)));
            },
        )
        .unwrap();
        assert_eq!(s.len(), 3);
        // One call per sample, the last one included, each with every worker idle.
        assert_eq!(
            *calls.lock().unwrap(),
            vec![(1, 3, 0), (2, 3, 0), (3, 3, 0)]
        );
    }

    #[test]
    fn setup_failure_is_reported() {
        let r = Runner::run(
            &cfg(2),
            |ctx| {
                if ctx.index == 1 {
                    Err("no memory".to_string())
                } else {
                    Ok(Count)
                }
            },
            &|_, _| {},
        );
        assert_eq!(r, Err(RunError::Setup("no memory".into())));
    }

    impl Workload for Box<dyn Workload> {
        fn run(&mut self, iters: u64) -> f64 {
            (**self).run(iters)
        }
    }

    /// Panics in `run`.
    struct Bomb;
    impl Workload for Bomb {
        fn run(&mut self, _: u64) -> f64 {
            panic!("boom in run");
        }
    }

    #[test]
    fn a_worker_panic_fails_the_case_instead_of_hanging() {
        let r = Runner::run(
            &cfg(3),
            |ctx| -> Result<Box<dyn Workload>, String> {
                if ctx.index == 1 {
                    panic!("boom in make");
                }
                Ok(Box::new(Count))
            },
            &|_, _| {},
        );
        assert_eq!(r, Err(RunError::Panicked("boom in make".into())));
        let r = Runner::run(
            &cfg(2),
            |ctx| -> Result<Box<dyn Workload>, String> {
                if ctx.index == 1 {
                    Ok(Box::new(Bomb))
                } else {
                    Ok(Box::new(Count))
                }
            },
            &|_, _| {},
        );
        assert_eq!(r, Err(RunError::Panicked("boom in run".into())));
        // A panic in the sample callback propagates, after the workers were released.
        let r =
            std::panic::catch_unwind(|| Runner::run(&cfg(2), |_| Ok(Count), &|_, _| panic!("cb")));
        assert!(r.is_err());
    }

    /// `--until-stable` with a precision no run reaches: the runner takes samples while
    /// its budget lasts and stops at the first check after it is spent. Checked on the
    /// samples' own time stamps, so a slow or busy machine (fewer, longer samples)
    /// passes as well as a fast one.
    #[test]
    fn until_stable_stops_within_its_budget_and_keeps_only_clean_samples() {
        let budget = Duration::from_millis(60);
        let mut c = cfg(1);
        c.stable = Some(Stable {
            target: 1e-12,
            budget,
        });
        let t0 = Tick::now();
        let s = Runner::run(&c, |_| Ok(Count), &|_, _| {}).unwrap();
        let elapsed = Tick::now().secs_since(t0);
        let (last, before) = s.split_last().expect("at least one sample");
        assert!(s.len() < STABLE_MAX_SAMPLES, "{}", s.len());
        // It went on while the budget lasted: every sample past the `--repeat` floor but
        // the last was taken (and stamped) before the budget was spent, so the check
        // after it said go on. (The floor's samples are taken whatever the budget: on a
        // slow or emulated CPU they alone outlast it.)
        assert!(
            before
                .iter()
                .skip(c.repeat.saturating_sub(1) as usize)
                .all(|x| x.at < budget.as_secs_f64()),
            "{:?}",
            s.iter().map(|x| x.at).collect::<Vec<_>>()
        );
        // And it stopped for the budget (the precision is out of reach, the sample cap
        // was not hit): the budget, counted on the runner's clock from after
        // calibration, had passed.
        assert!(elapsed >= budget.as_secs_f64(), "{elapsed} s");
        assert!(s.windows(2).all(|w| w[1].at >= w[0].at) && last.at >= 0.0);
        let (kept, dropped) = split_kept(s.clone(), true);
        assert_eq!(kept.len() + dropped.len(), s.len());
        assert!(
            kept.iter().all(|k| !k.share.disturbed())
                || (dropped.is_empty() && kept.iter().all(|k| k.share.disturbed()))
        );
        // Without --until-stable nothing is dropped.
        assert_eq!(split_kept(s.clone(), false).0.len(), s.len());
    }

    /// `--until-stable` with its budget spent before `--repeat` samples: the runner
    /// still takes `--repeat` of them (the budget only limits repeating past it), and
    /// stops there (the precision is out of reach). Checked on the samples' own time
    /// stamps: the budget had passed before the last ones were taken.
    #[test]
    fn until_stable_takes_at_least_repeat_samples_whatever_the_budget() {
        let budget = Duration::from_millis(1);
        let mut c = cfg(1);
        c.repeat = 6;
        c.stable = Some(Stable {
            target: 1e-12,
            budget,
        });
        let s = Runner::run(&c, |_| Ok(Count), &|_, _| {}).unwrap();
        assert_eq!(
            s.len(),
            6,
            "{:?}",
            s.iter().map(|x| x.at).collect::<Vec<_>>()
        );
        // Samples of 5 ms each: the budget was spent before the last one.
        assert!(s[5].at >= budget.as_secs_f64(), "{}", s[5].at);
    }

    #[test]
    fn rejects_zero_threads() {
        assert!(Runner::run(&cfg(0), |_| Ok(Count), &|_, _| {}).is_err());
    }

    #[test]
    fn sustain_makes_a_series() {
        let s = sustained(Duration::from_millis(30));
        // Exactly ceil(30 ms / 5 ms) time-boxed samples, each at least the interval long.
        assert_eq!(s.len(), 6);
        assert!(s.iter().all(|x| x.secs >= 0.005));
        assert!(s.windows(2).all(|w| w[1].at >= w[0].at));
    }

    #[test]
    fn every_sample_says_what_each_thread_had_of_its_core() {
        let s = Runner::run(&cfg(2), |_| Ok(Count), &|_, _| {}).unwrap();
        for x in &s {
            let t = &x.share.threads;
            assert_eq!(t.iter().map(|t| t.thread).collect::<Vec<_>>(), [1, 2]);
            for t in t {
                // CPU time never exceeds the thread's own wall window (a little slack
                // for the two clocks' granularity).
                assert!(t.share > 0.0 && t.share <= 1.05, "{t:?}");
                assert!(
                    t.wall_secs > 0.0 && t.wall_secs <= x.secs * 1.0001,
                    "{t:?} {x:?}"
                );
            }
        }
        // Calibration runs are not probed; sustained chunks are merged per thread.
        let s = sustained(Duration::from_millis(10));
        assert!(s.iter().all(|x| x.share.threads.len() == 1));
    }

    #[test]
    fn pinning_to_cpu_zero_works() {
        // CPU 0 may be outside the allowed set in a container; only check it doesn't crash.
        let _ = pin_current_thread(0);
        assert!(!pin_current_thread(1 << 20));
    }
}
