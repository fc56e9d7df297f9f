//! Isolation between cases: the threads one case leaves behind (GPU driver threads,
//! rayon pools, io_uring workers, a loopback server) must be quiet before the next case
//! starts, or the next case shares its cores with the previous one without anybody
//! knowing.
//!
//! Before a case, every other thread of this process is sampled twice, [`PROBE`] apart,
//! from `/proc/self/task/*/schedstat` (the first field: nanoseconds on a CPU, kept by
//! the scheduler to the nanosecond). A thread that ran more than [`BUSY_SHARE`] of the
//! interval is busy. The caller waits, probing again, up to [`SETTLE`] for them to go
//! quiet; the case then starts, and if some are still busy its results say which.

use std::time::{Duration, Instant};

/// Interval of one probe.
pub(crate) const PROBE: Duration = Duration::from_millis(20);

/// Share of a probe above which another thread is busy (a progress bar's ticker, a
/// parked pool or an idle driver thread use well under 1 %).
pub(crate) const BUSY_SHARE: f64 = 0.2;

/// How long to wait for busy threads to go quiet before the case starts anyway.
pub(crate) const SETTLE: Duration = Duration::from_secs(1);

/// Another thread of this process that was busy.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct BusyThread {
    /// Its kernel thread id.
    pub(crate) tid: u64,
    /// Its name (`comm`), e.g. `linalg-0`.
    pub(crate) name: String,
    /// The share of a core it used during the last probe.
    pub(crate) share: f64,
}

/// The first field of a `schedstat` file: nanoseconds on a CPU.
pub(crate) fn parse_schedstat(text: &str) -> Option<u64> {
    text.split_ascii_whitespace().next()?.parse().ok()
}

/// CPU nanoseconds of every thread of this process but the calling one, by tid, with
/// its name (Linux; empty elsewhere or when `/proc` is unreadable).
fn task_times() -> Vec<(u64, String, u64)> {
    let me = current_tid();
    let Ok(dir) = std::fs::read_dir("/proc/self/task") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for e in dir.flatten() {
        let Some(tid) = e.file_name().to_str().and_then(|s| s.parse::<u64>().ok()) else {
            continue;
        };
        if Some(tid) == me {
            continue;
        }
        let p = e.path();
        let Some(ns) = std::fs::read_to_string(p.join("schedstat"))
            .ok()
            .and_then(|t| parse_schedstat(&t))
        else {
            continue;
        };
        let name = std::fs::read_to_string(p.join("comm"))
            .map(|s| s.trim().to_string())
            .unwrap_or_default();
        out.push((tid, name, ns));
    }
    out
}

fn current_tid() -> Option<u64> {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: gettid has no arguments and cannot fail.
        Some(unsafe { libc::gettid() } as u64)
    }
    #[cfg(not(target_os = "linux"))]
    {
        None
    }
}

/// The threads busier than [`BUSY_SHARE`] between two samplings `secs` apart.
pub(crate) fn busy_between(
    before: &[(u64, String, u64)],
    after: &[(u64, String, u64)],
    secs: f64,
) -> Vec<BusyThread> {
    if secs <= 0.0 {
        return Vec::new();
    }
    after
        .iter()
        .filter_map(|(tid, name, ns)| {
            let (_, _, was) = before.iter().find(|(t, _, _)| t == tid)?;
            let share = ns.saturating_sub(*was) as f64 * 1e-9 / secs;
            (share > BUSY_SHARE).then(|| BusyThread {
                tid: *tid,
                name: name.clone(),
                share,
            })
        })
        .collect()
}

/// The other threads of this process that are busy now (one [`PROBE`]).
pub(crate) fn busy_threads() -> Vec<BusyThread> {
    let a = task_times();
    if a.is_empty() {
        return Vec::new();
    }
    let t0 = Instant::now();
    std::thread::sleep(PROBE);
    let b = task_times();
    busy_between(&a, &b, t0.elapsed().as_secs_f64())
}

/// Waits up to [`SETTLE`] for the other threads of this process to go quiet; returns
/// those still busy at the end (empty: the case starts on a quiet process).
pub(crate) fn settle() -> Vec<BusyThread> {
    let end = Instant::now() + SETTLE;
    loop {
        let busy = busy_threads();
        if busy.is_empty() || Instant::now() >= end {
            return busy;
        }
    }
}

/// The warning for a case that started with busy threads of its own process.
pub(crate) fn warning(busy: &[BusyThread]) -> Option<String> {
    if busy.is_empty() {
        return None;
    }
    let list: Vec<String> = busy
        .iter()
        .map(|b| format!("{} ({:.0} % of a core)", b.name, b.share * 100.0))
        .collect();
    Some(format!(
        "not isolated: {} other thread{} of peakbench {} still busy when the case started, {:.1} s after the previous one: {}",
        busy.len(),
        if busy.len() == 1 { "" } else { "s" },
        if busy.len() == 1 { "was" } else { "were" },
        SETTLE.as_secs_f64(),
        list.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_recorded_schedstat() {
        // /proc/self/task/N/schedstat: run ns, wait ns, timeslices.
        assert_eq!(parse_schedstat("123456789 2345678 42\n"), Some(123456789));
        assert_eq!(parse_schedstat(""), None);
        assert_eq!(parse_schedstat("x 1 2"), None);
    }

    #[test]
    fn busy_is_more_than_a_fifth_of_the_probe() {
        let a = vec![(10, "linalg-0".to_string(), 0), (11, "idle".to_string(), 0)];
        let b = vec![
            (10, "linalg-0".to_string(), 18_000_000),
            (11, "idle".to_string(), 100_000),
            // A thread born during the probe has no "before": not counted.
            (12, "new".to_string(), 20_000_000),
        ];
        let busy = busy_between(&a, &b, 0.02);
        assert_eq!(busy.len(), 1);
        assert_eq!(busy[0].name, "linalg-0");
        assert!((busy[0].share - 0.9).abs() < 1e-9);
        assert_eq!(
            warning(&busy).unwrap(),
            "not isolated: 1 other thread of peakbench was still busy when the case started, 1.0 s after the previous one: linalg-0 (90 % of a core)"
        );
        assert_eq!(warning(&[]), None);
    }

    #[test]
    fn a_spinning_thread_of_ours_is_seen_and_a_sleeping_one_is_not() {
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let flag = stop.clone();
        let h = std::thread::Builder::new()
            .name("pb-test-spin".into())
            .spawn(move || {
                let end = Instant::now() + Duration::from_secs(10);
                while !flag.load(std::sync::atomic::Ordering::Relaxed) && Instant::now() < end {
                    std::hint::spin_loop();
                }
            })
            .unwrap();
        std::thread::sleep(Duration::from_millis(5));
        let busy = busy_threads();
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        h.join().unwrap();
        if std::path::Path::new("/proc/self/task").exists() {
            // On a loaded machine the spinner may get less than a fifth of a core; it
            // is then not busy enough to matter, and only a present name is checked.
            for b in &busy {
                assert!(b.share > BUSY_SHARE);
            }
            let after = busy_threads();
            assert!(after.iter().all(|b| b.name != "pb-test-spin"), "{after:?}");
        }
    }
}
