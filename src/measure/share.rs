//! Whether the machine was the benchmark's own while it measured: how much of its core
//! each worker thread really had during a timed window, and what the host saw over the
//! window (time stolen by the hypervisor, CPU pressure, other runnable tasks).
//!
//! Two kinds of sharing, two signals:
//! - another task on the same core (a neighbour process in the same guest, a browser,
//!   a build) takes CPU time from the worker: the thread's CPU time
//!   (`CLOCK_THREAD_CPUTIME_ID`) falls below the wall time of its own window, and the
//!   thread sees involuntary context switches (`getrusage(RUSAGE_THREAD).ru_nivcsw`);
//! - a noisy *host* deschedules the whole vCPU: the guest sees it as steal time in
//!   `/proc/stat` when the hypervisor reports it (often 0), and with paravirtual steal
//!   accounting as lost thread CPU time as well.
//!
//! The window of a thread is its own: from the moment it starts its timed run to the
//! moment it finishes (not the sample's first-start-to-last-finish interval, in which a
//! thread that finished early would look descheduled while it waited at the barrier).
//!
//! The host figures are read around the sample by the driving thread, outside the timed
//! window: steal from the `cpuN` lines of the CPUs in use (all CPUs when unpinned),
//! pressure from `/proc/pressure/cpu` (`some … total=` µs, Linux ≥ 4.20 with PSI on),
//! and the runnable tasks from `procs_running` in `/proc/stat`, read just before the
//! workers are released and just after they finish, minus this process's own runnable
//! threads (a worker that has not yet gone back to sleep, the reader), the smaller of
//! the two, so a task that is runnable for a moment does not count.
//!
//! A sample is *disturbed* when a thread had less than [`MIN_SHARE`] of its window or
//! the CPUs in use lost more than [`MAX_STEAL`] of it to steal. On a quiet machine
//! timer interrupts and page faults cost well under 1 % of a window; the 2-vCPU guest
//! this was written on reads 99.6–100 % per thread on a quiet quick suite.
//!
//! Parsers of `/proc` text are pure functions ([`parse_stat`], [`parse_pressure`], in
//! [`super::proc_stat`]), tested on recorded text.

use super::canary::{cpu_name, CanaryShare};
use super::proc_stat::{own_running, parse_pressure, parse_stat, steal_between, ProcStat};
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;

/// Share of its own window below which a thread is said to have lost its core.
pub(crate) const MIN_SHARE: f64 = 0.97;

/// Fraction of a window stolen by the hypervisor above which a sample is disturbed.
pub(crate) const MAX_STEAL: f64 = 0.01;

/// CPU time of the calling thread, nanoseconds (`CLOCK_THREAD_CPUTIME_ID`).
pub(crate) fn thread_cpu_ns() -> u64 {
    #[cfg(unix)]
    {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `ts` is a valid, writable timespec; the clock exists on every Linux
        // since 2.6.12 and on the BSDs and macOS.
        if unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) } != 0 {
            return 0;
        }
        ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
    }
    #[cfg(not(unix))]
    {
        0
    }
}

/// Involuntary context switches of the calling thread so far (Linux; 0 elsewhere).
pub(crate) fn thread_nivcsw() -> u64 {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: rusage is plain data, written by the kernel.
        unsafe {
            let mut ru: libc::rusage = std::mem::zeroed();
            if libc::getrusage(libc::RUSAGE_THREAD, &mut ru) == 0 {
                return ru.ru_nivcsw.max(0) as u64;
            }
        }
        0
    }
    #[cfg(not(target_os = "linux"))]
    {
        0
    }
}

/// The logical CPU the calling thread runs on now, where the OS says.
pub(crate) fn current_cpu() -> Option<usize> {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: no arguments; returns -1 on error.
        let c = unsafe { libc::sched_getcpu() };
        usize::try_from(c).ok()
    }
    #[cfg(not(target_os = "linux"))]
    {
        None
    }
}

/// A thread's CPU time and switch count at one moment, taken on that thread.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct ThreadMark {
    cpu_ns: u64,
    nivcsw: u64,
}

impl ThreadMark {
    /// The calling thread's figures now.
    pub(crate) fn now() -> ThreadMark {
        ThreadMark {
            cpu_ns: thread_cpu_ns(),
            nivcsw: thread_nivcsw(),
        }
    }

    /// What the thread had between `start` and `self` over a wall window of `wall_secs`.
    /// `thread` is 1-based, as the warnings name it.
    pub(crate) fn since(
        self,
        start: ThreadMark,
        wall_secs: f64,
        thread: usize,
        cpu: Option<usize>,
    ) -> ThreadShare {
        let cpu_secs = self.cpu_ns.saturating_sub(start.cpu_ns) as f64 * 1e-9;
        ThreadShare {
            thread,
            cpu,
            share: if wall_secs > 0.0 {
                cpu_secs / wall_secs
            } else {
                1.0
            },
            cpu_secs,
            wall_secs,
            nivcsw: self.nivcsw.saturating_sub(start.nivcsw),
        }
    }
}

/// What one worker thread had of its core during one timed window.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct ThreadShare {
    /// The worker, 1-based (as the warnings name it).
    pub(crate) thread: usize,
    /// The logical CPU it was pinned to (or ran on at the end, when unpinned).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) cpu: Option<usize>,
    /// `cpu_secs / wall_secs`: 1.0 when it had its core the whole window.
    pub(crate) share: f64,
    /// CPU time of the thread during its window (user + system), seconds.
    pub(crate) cpu_secs: f64,
    /// Wall time of the thread's own window, seconds.
    pub(crate) wall_secs: f64,
    /// Involuntary context switches during the window.
    pub(crate) nivcsw: u64,
}

/// Host figures of one timed window, and what each worker thread had of its core.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct SampleShare {
    /// One entry per worker thread (empty where the resource has no worker threads of
    /// its own to measure).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) threads: Vec<ThreadShare>,
    /// Fraction of the CPUs' time in the window stolen by the hypervisor (the CPUs in
    /// use; all CPUs when unpinned); `None` where `/proc/stat` is not readable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) steal: Option<f64>,
    /// Fraction of the window in which some task waited for a CPU
    /// (`/proc/pressure/cpu` "some"); `None` where PSI is absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) pressure: Option<f64>,
    /// Other runnable tasks around the window (`procs_running` minus the reader, the
    /// smaller of the readings before and after).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) runnable: Option<u32>,
    /// The canary on each worker CPU around the sample (`measure::canary`): what it
    /// issued per cycle against the best the run had seen. Empty where no canary ran.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) canary: Vec<CanaryShare>,
    /// The container's CPU quota over the window (`measure::cgroup`): periods and the
    /// throttled ones; `None` where no quota is set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) throttle: Option<super::cgroup::Throttle>,
    /// The energy each domain used over the window (`measure::energy`: RAPL, hwmon,
    /// NVML); empty where no counter is readable.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) energy: Vec<super::energy::Energy>,
}

impl SampleShare {
    /// The threads that had less than [`MIN_SHARE`] of their window.
    pub(crate) fn short_threads(&self) -> impl Iterator<Item = &ThreadShare> {
        self.threads.iter().filter(|t| t.share < MIN_SHARE)
    }

    /// Whether a thread lost its core or the window saw steal above [`MAX_STEAL`]
    /// (disturbed inside the guest).
    pub(crate) fn guest_disturbed(&self) -> bool {
        self.short_threads().next().is_some()
            || self.steal.is_some_and(|s| s > MAX_STEAL)
            || self.throttled()
    }

    /// Whether the container's CPU quota throttled the window (issue #47).
    pub(crate) fn throttled(&self) -> bool {
        self.throttle.is_some_and(|t| t.throttled > 0)
    }

    /// Whether a worker CPU's canary fell below the run's best (contention the guest
    /// cannot see: an SMT sibling, another tenant, the host).
    pub(crate) fn contended(&self) -> bool {
        self.host_canaries().any(CanaryShare::fell)
    }

    /// The canaries that can speak for contention the guest cannot see: those on CPUs
    /// whose worker kept its core. A worker that lost its core to another task of the
    /// guest shared the CPU with its canary too, and the in-guest check already names
    /// that; its canary's fall is no second, host-side cause.
    pub(crate) fn host_canaries(&self) -> impl Iterator<Item = &CanaryShare> {
        self.canary
            .iter()
            .filter(move |c| !self.short_threads().any(|t| t.cpu == c.cpu))
    }

    /// Whether the sample was disturbed, inside the guest or by host contention: such
    /// a sample is treated alike everywhere (`~`, compare, fleet, `--until-stable`).
    pub(crate) fn disturbed(&self) -> bool {
        self.guest_disturbed() || self.contended()
    }

    /// Why the sample is disturbed, in one phrase (`None` when it is not).
    pub(crate) fn why(&self) -> Option<String> {
        if !self.guest_disturbed() {
            return self.contended().then(|| self.contention_words());
        }
        let mut parts: Vec<String> = self
            .short_threads()
            .map(|t| {
                format!(
                    "{} ran {:.0} % of its window",
                    thread_name(t.thread, t.cpu),
                    t.share * 100.0
                )
            })
            .collect();
        if let Some(s) = self.steal.filter(|s| *s > MAX_STEAL) {
            parts.push(format!("{:.1} % stolen by the hypervisor", s * 100.0));
        }
        if let Some(t) = self.throttle.filter(|t| t.throttled > 0) {
            parts.push(super::cgroup::throttle_words(&t));
        }
        if self.contended() {
            parts.push(self.contention_words());
        }
        Some(parts.join(", "))
    }

    /// `host contention: cpu 1 issued 78 % of its best rate`.
    fn contention_words(&self) -> String {
        let cpus: Vec<String> = self
            .host_canaries()
            .filter(|c| c.fell())
            .map(|c| {
                format!(
                    "{} issued {:.0} % of its best rate",
                    cpu_name(c.cpu),
                    c.ratio() * 100.0
                )
            })
            .collect();
        format!("host contention: {}", cpus.join(", "))
    }

    /// Combines consecutive windows that make one sample (a sustained series' chunks):
    /// per thread the CPU and wall times add up, the host fractions are weighted by
    /// `secs` (the windows' lengths), the runnable count is the smallest.
    pub(crate) fn merge(parts: &[(SampleShare, f64)]) -> SampleShare {
        let mut out = SampleShare::default();
        let total: f64 = parts.iter().map(|(_, s)| s).sum();
        for (p, _) in parts {
            for t in &p.threads {
                match out.threads.iter_mut().find(|o| o.thread == t.thread) {
                    Some(o) => {
                        o.cpu_secs += t.cpu_secs;
                        o.wall_secs += t.wall_secs;
                        o.nivcsw += t.nivcsw;
                        o.share = if o.wall_secs > 0.0 {
                            o.cpu_secs / o.wall_secs
                        } else {
                            1.0
                        };
                    }
                    None => out.threads.push(t.clone()),
                }
            }
        }
        let weighted = |f: fn(&SampleShare) -> Option<f64>| -> Option<f64> {
            let mut any = false;
            let mut sum = 0.0;
            for (p, s) in parts {
                if let Some(v) = f(p) {
                    any = true;
                    sum += v * s;
                }
            }
            (any && total > 0.0).then(|| sum / total)
        };
        out.steal = weighted(|p| p.steal);
        out.pressure = weighted(|p| p.pressure);
        out.runnable = parts.iter().filter_map(|(p, _)| p.runnable).min();
        for (p, _) in parts {
            if let Some(t) = &p.throttle {
                out.throttle.get_or_insert_with(Default::default).add(t);
            }
        }
        // Energy adds up per domain over the windows, and so do their lengths.
        for (p, _) in parts {
            for e in &p.energy {
                match out.energy.iter_mut().find(|o| o.domain == e.domain) {
                    Some(o) => {
                        o.joules += e.joules;
                        o.secs += e.secs;
                    }
                    None => out.energy.push(e.clone()),
                }
            }
        }
        // Per CPU the lowest canary of the windows: the merged sample is as disturbed
        // as its worst window.
        for (p, _) in parts {
            for c in &p.canary {
                match out.canary.iter_mut().find(|o| o.cpu == c.cpu) {
                    Some(o) if c.ratio() < o.ratio() => *o = c.clone(),
                    Some(_) => {}
                    None => out.canary.push(c.clone()),
                }
            }
        }
        out
    }
}

/// Whether a result, all its samples together, was disturbed: a thread had less than
/// [`MIN_SHARE`] of its core over the samples (its CPU time summed over its wall time
/// summed), or more than [`MAX_STEAL`] of the windows was stolen on average. One sample
/// that lost a few percent (a daemon woke up once) does not make the result disturbed;
/// one sample that lost a third of its core in five does.
#[cfg(test)]
pub(crate) fn result_disturbed(shares: &[SampleShare]) -> bool {
    guest_disturbed(shares) || !result_contended(shares).is_empty()
}

/// The worker CPUs whose canary fell over a result's samples, with the mean share of
/// its best rate each issued (`measure::canary::contended`).
pub(crate) fn result_contended(shares: &[SampleShare]) -> Vec<(Option<usize>, f64)> {
    let host: Vec<Vec<CanaryShare>> = shares
        .iter()
        .map(|s| s.host_canaries().cloned().collect())
        .collect();
    let per: Vec<&[CanaryShare]> = host.iter().map(Vec::as_slice).collect();
    super::canary::contended(&per)
}

/// `result_disturbed` inside the guest only: a thread lost its core, or steal.
fn guest_disturbed(shares: &[SampleShare]) -> bool {
    let mut per: Vec<(usize, f64, f64)> = Vec::new();
    for s in shares {
        for t in &s.threads {
            match per.iter_mut().find(|(n, _, _)| *n == t.thread) {
                Some((_, c, w)) => {
                    *c += t.cpu_secs;
                    *w += t.wall_secs;
                }
                None => per.push((t.thread, t.cpu_secs, t.wall_secs)),
            }
        }
    }
    let short = per.iter().any(|(_, c, w)| *w > 0.0 && c / w < MIN_SHARE);
    let steal: Vec<f64> = shares.iter().filter_map(|s| s.steal).collect();
    let stolen = !steal.is_empty() && steal.iter().sum::<f64>() / steal.len() as f64 > MAX_STEAL;
    short || stolen || shares.iter().any(SampleShare::throttled)
}

/// `thread 2 (cpu 1)`, or `thread 2` when its CPU is unknown.
pub(crate) fn thread_name(thread: usize, cpu: Option<usize>) -> String {
    match cpu {
        Some(c) => format!("thread {thread} (cpu {c})"),
        None => format!("thread {thread}"),
    }
}

/// The warning a result carries when some of its samples were disturbed, `None` when
/// none was: per thread that lost its core, the mean share it ran over the disturbed
/// samples, and the causes seen (other runnable tasks, CPU pressure, steal).
/// Example: `shared machine: 3 of 3 samples disturbed: thread 2 (cpu 1) ran 50 % of
/// the window: 1 other task runnable, CPU pressure 49 %`.
pub(crate) fn warning(shares: &[SampleShare]) -> Option<String> {
    if !guest_disturbed(shares) {
        return None;
    }
    let bad: Vec<&SampleShare> = shares.iter().filter(|s| s.guest_disturbed()).collect();
    // Threads in order of first appearance, each with its shares over the bad samples.
    let mut per: Vec<(usize, Option<usize>, Vec<f64>)> = Vec::new();
    for s in &bad {
        for t in s.short_threads() {
            match per.iter_mut().find(|(n, _, _)| *n == t.thread) {
                Some((_, _, v)) => v.push(t.share),
                None => per.push((t.thread, t.cpu, vec![t.share])),
            }
        }
    }
    per.sort_by_key(|(n, _, _)| *n);
    if let Some(t) = super::cgroup::throttled_over(bad.iter().map(|s| s.throttle)) {
        let threads: Vec<String> = per
            .iter()
            .map(|(n, cpu, v)| {
                let mean = v.iter().sum::<f64>() / v.len().max(1) as f64;
                format!(
                    "{} ran {:.0} % of the window",
                    thread_name(*n, *cpu),
                    mean * 100.0
                )
            })
            .collect();
        return Some(super::cgroup::quota_warning(
            &t,
            bad.len(),
            shares.len(),
            &threads,
        ));
    }
    let mut causes = Vec::new();
    if let Some(r) = bad
        .iter()
        .filter_map(|s| s.runnable)
        .max()
        .filter(|r| *r > 0)
    {
        causes.push(format!(
            "{r} other task{} runnable",
            if r == 1 { "" } else { "s" }
        ));
    }
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
    let pressure: Vec<f64> = bad.iter().filter_map(|s| s.pressure).collect();
    if !pressure.is_empty() && mean(&pressure) >= 0.01 {
        causes.push(format!("CPU pressure {:.0} %", mean(&pressure) * 100.0));
    }
    let steal: Vec<f64> = bad.iter().filter_map(|s| s.steal).collect();
    if !steal.is_empty() && steal.iter().any(|s| *s > MAX_STEAL) {
        causes.push(format!(
            "{:.1} % of the window stolen by the hypervisor",
            mean(&steal) * 100.0
        ));
    }
    let mut text = format!(
        "shared machine: {} of {} samples disturbed",
        bad.len(),
        shares.len()
    );
    for (n, cpu, v) in &per {
        let _ = write!(
            text,
            "; {} ran {:.0} % of the window",
            thread_name(*n, *cpu),
            mean(v) * 100.0
        );
    }
    if !causes.is_empty() {
        let _ = write!(text, ": {}", causes.join(", "));
    }
    text.push_str("; the figure is not the machine's own");
    Some(text)
}

/// The warning a result carries when its canary fell on a worker CPU (contention the
/// guest cannot see), `None` otherwise. Example: `host contention: 3 of 3 samples:
/// cpu 1 issued 78 % of its best rate: another tenant on the core or the host was
/// busy; the figure is not the machine's own`.
pub(crate) fn contention_warning(shares: &[SampleShare]) -> Option<String> {
    let cpus = result_contended(shares);
    if cpus.is_empty() {
        return None;
    }
    let bad = shares.iter().filter(|s| s.contended()).count();
    let each: Vec<String> = cpus
        .iter()
        .map(|(c, m)| {
            format!(
                "{} issued {:.0} % of its best rate",
                cpu_name(*c),
                m * 100.0
            )
        })
        .collect();
    Some(format!(
        "host contention: {bad} of {} samples: {}: another tenant on the core or the host was busy; the figure is not the machine's own",
        shares.len(),
        each.join(", ")
    ))
}

/// The host's figures at one moment, read by the driving thread.
#[derive(Debug, Clone, Default)]
pub(crate) struct HostMark {
    stat: Option<ProcStat>,
    /// Threads of this process runnable now, the reader included (they are in
    /// `procs_running` but are no other task).
    own_running: u32,
    pressure_us: Option<u64>,
    /// The container's CPU quota's counts (`None`: no quota).
    throttle: Option<super::cgroup::Throttle>,
    /// The energy counters (empty where none is readable).
    energy: super::energy::EnergyMark,
    at: Option<super::clock::Tick>,
}

impl HostMark {
    /// Reads `/proc/stat` and `/proc/pressure/cpu` now (each `None` where unreadable).
    pub(crate) fn now() -> HostMark {
        let stat = std::fs::read_to_string("/proc/stat")
            .ok()
            .map(|t| parse_stat(&t));
        let own_running = own_running();
        let pressure_us = std::fs::read_to_string("/proc/pressure/cpu")
            .ok()
            .and_then(|t| parse_pressure(&t));
        HostMark {
            stat,
            own_running,
            pressure_us,
            throttle: super::cgroup::throttle_now(),
            energy: super::energy::EnergyMark::now(),
            at: Some(super::clock::Tick::now()),
        }
    }

    /// The host figures from `start` to `self` for the CPUs `cpus` (all when empty),
    /// with `threads` as the per-thread part.
    pub(crate) fn since(
        &self,
        start: &HostMark,
        cpus: &[usize],
        threads: Vec<ThreadShare>,
    ) -> SampleShare {
        let wall = match (self.at, start.at) {
            (Some(b), Some(a)) => b.secs_since(a),
            _ => 0.0,
        };
        let (steal, runnable) = match (&self.stat, &start.stat) {
            (Some(b), Some(a)) => (
                steal_between(a, b, cpus),
                match (a.procs_running, b.procs_running) {
                    (Some(x), Some(y)) => Some(
                        x.saturating_sub(start.own_running.max(1))
                            .min(y.saturating_sub(self.own_running.max(1))),
                    ),
                    _ => None,
                },
            ),
            _ => (None, None),
        };
        let pressure = match (self.pressure_us, start.pressure_us) {
            (Some(b), Some(a)) if wall > 0.0 => {
                Some((b.saturating_sub(a) as f64 * 1e-6 / wall).min(1.0))
            }
            _ => None,
        };
        SampleShare {
            threads,
            steal,
            pressure,
            runnable,
            canary: Vec::new(),
            throttle: match (self.throttle, start.throttle) {
                (Some(b), Some(a)) => Some(b.since(&a)),
                _ => None,
            },
            energy: self.energy.since(&start.energy),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn thread(n: usize, cpu: usize, share: f64) -> ThreadShare {
        ThreadShare {
            thread: n,
            cpu: Some(cpu),
            share,
            cpu_secs: share * 0.2,
            wall_secs: 0.2,
            nivcsw: 0,
        }
    }

    fn sample(shares: &[f64]) -> SampleShare {
        SampleShare {
            threads: shares
                .iter()
                .enumerate()
                .map(|(i, s)| thread(i + 1, i, *s))
                .collect(),
            steal: Some(0.0),
            pressure: Some(0.0),
            runnable: Some(0),
            canary: Vec::new(),
            throttle: None,
            energy: Vec::new(),
        }
    }

    #[test]
    fn a_canary_on_a_cpu_shared_inside_the_guest_is_no_host_contention() {
        use crate::measure::canary::CanaryShare;
        let canary = |cpu, per_cycle| CanaryShare {
            cpu: Some(cpu),
            per_cycle,
            best: 2.0,
        };
        // A busy task of the guest on cpu 1: its worker ran half its window, and the
        // canary there fell with it. That is the in-guest note's, not the host's.
        let mut s = sample(&[1.0, 0.5]);
        s.canary = vec![canary(0, 2.0), canary(1, 1.6)];
        assert!(s.guest_disturbed());
        assert!(!s.contended());
        assert_eq!(s.why().unwrap(), "thread 2 (cpu 1) ran 50 % of its window");
        assert!(result_contended(&[s.clone(), s.clone()]).is_empty());
        // A canary that fell on a CPU whose worker kept its core is.
        s.canary[0].per_cycle = 1.6;
        assert!(s.contended());
        assert_eq!(result_contended(&[s.clone(), s]), vec![(Some(0), 0.8)]);
    }

    #[test]
    fn a_quiet_sample_is_not_disturbed() {
        // Timer ticks and page faults: a few tenths of a percent at most.
        let s = sample(&[0.999, 0.996]);
        assert!(!s.disturbed());
        assert_eq!(s.why(), None);
        assert_eq!(warning(&[s.clone(), s.clone(), s]), None);
        assert_eq!(warning(&[]), None);
        // Exactly at the threshold is still the thread's own core.
        assert!(!sample(&[MIN_SHARE]).disturbed());
    }

    #[test]
    fn a_thread_sharing_its_core_is_named_with_its_share_and_the_cause() {
        let mut s = sample(&[0.998, 0.50]);
        s.runnable = Some(1);
        s.pressure = Some(0.49);
        assert!(s.disturbed());
        assert_eq!(s.why().unwrap(), "thread 2 (cpu 1) ran 50 % of its window");
        let mut t = s.clone();
        t.threads[1].share = 0.52;
        let w = warning(&[s, t, sample(&[1.0, 0.999])]).unwrap();
        assert_eq!(
            w,
            "shared machine: 2 of 3 samples disturbed; thread 2 (cpu 1) ran 51 % of the window: 1 other task runnable, CPU pressure 49 %; the figure is not the machine's own"
        );
    }

    #[test]
    fn one_slightly_short_sample_does_not_make_a_disturbed_result() {
        // A daemon woke once: 96 % in one sample of five is 99 % over the result.
        let v = vec![
            sample(&[1.0, 0.96]),
            sample(&[1.0, 1.0]),
            sample(&[0.999, 1.0]),
            sample(&[1.0, 1.0]),
            sample(&[1.0, 0.998]),
        ];
        assert!(v[0].disturbed());
        assert!(!result_disturbed(&v));
        assert_eq!(warning(&v), None);
        // One sample at two thirds of the core in five is 93 %: it is.
        let mut w = v.clone();
        w[0].threads[1].share = 0.66;
        w[0].threads[1].cpu_secs = 0.66 * 0.2;
        assert!(result_disturbed(&w));
        assert!(warning(&w).unwrap().starts_with(
            "shared machine: 1 of 5 samples disturbed; thread 2 (cpu 1) ran 66 % of the window"
        ));
    }

    #[test]
    fn steal_alone_disturbs_a_sample() {
        let mut s = sample(&[1.0]);
        s.steal = Some(0.05);
        assert!(s.disturbed());
        assert_eq!(s.why().unwrap(), "5.0 % stolen by the hypervisor");
        let w = warning(&[s]).unwrap();
        assert!(
            w.contains("5.0 % of the window stolen by the hypervisor"),
            "{w}"
        );
        // Steal at or below the bound (one jiffy in a long window) is not.
        let mut q = sample(&[1.0]);
        q.steal = Some(MAX_STEAL);
        assert!(!q.disturbed());
    }

    #[test]
    fn merged_windows_add_their_times() {
        let a = (sample(&[1.0, 0.5]), 0.2);
        let mut b = sample(&[1.0, 1.0]);
        b.runnable = Some(2);
        b.steal = Some(0.1);
        let m = SampleShare::merge(&[a, (b, 0.2)]);
        assert_eq!(m.threads.len(), 2);
        assert!((m.threads[1].share - 0.75).abs() < 1e-12);
        assert!((m.threads[1].wall_secs - 0.4).abs() < 1e-12);
        assert!((m.steal.unwrap() - 0.05).abs() < 1e-12);
        assert_eq!(m.runnable, Some(0));
    }

    #[test]
    fn the_probes_read_this_thread() {
        let m0 = ThreadMark::now();
        let w0 = std::time::Instant::now();
        // Spin ~20 ms: the thread's CPU time grows with its wall time.
        let mut x = 0u64;
        while w0.elapsed().as_millis() < 20 {
            x = std::hint::black_box(x.wrapping_add(1));
        }
        let wall = w0.elapsed().as_secs_f64();
        let s = ThreadMark::now().since(m0, wall, 1, current_cpu());
        assert!(s.cpu_secs > 0.0 && s.cpu_secs <= wall * 1.01, "{s:?}");
        // A sleep costs no CPU time: the share falls far below the threshold.
        let m1 = ThreadMark::now();
        std::thread::sleep(std::time::Duration::from_millis(20));
        let s = ThreadMark::now().since(m1, 0.02, 1, None);
        assert!(s.share < 0.5, "{s:?}");
        let h = HostMark::now();
        let share = HostMark::now().since(&h, &[], Vec::new());
        assert!(share.steal.is_none_or(|s| (0.0..=1.0).contains(&s)));
    }
}
