//! The container's CPU quota as the machine (issue #47): a cgroup quota of 0.5 CPU
//! gives 0.5 core's peak and one thread by default, whatever the cores under it. The
//! one multiplication of a peak by the quota's fraction lives here ([`quota_peak`]),
//! with its own provenance text, so the CPU tables and formulas stay as they are.

use crate::hw::peak::Peak;
use crate::hw::HostInfo;
use crate::measure::cgroup::fmt_cpus;

/// The cores the default thread counts go up to: the host's cores, no more than the
/// CPU quota rounded up (a 0.5-CPU container runs one thread, a 1.5-CPU one two).
pub(crate) fn thread_cores(host: &HostInfo) -> usize {
    let cores = host.cpu.cores.max(1);
    match host.cgroup.as_ref().and_then(|c| c.cpu_quota.as_ref()) {
        Some(q) => cores.min(q.cpus().ceil().max(1.0) as usize),
        None => cores,
    }
}

/// `peak` on `cores` cores, limited by the container's CPU quota when the quota is
/// worth fewer CPUs than `cores`: the peak times quota / cores, the quota named in
/// its source. Unchanged without a quota, or when the peak is unknown.
pub(crate) fn quota_peak(peak: Peak, host: &HostInfo, cores: usize) -> Peak {
    let Some(q) = host.cgroup.as_ref().and_then(|c| c.cpu_quota.as_ref()) else {
        return peak;
    };
    let cores = cores.max(1);
    let cpus = q.cpus();
    match peak.value {
        Some(v) if cpus < cores as f64 => Peak {
            value: Some(v * cpus / cores as f64),
            source: format!(
                "{} × {}/{cores} core{}: {}",
                peak.source,
                fmt_cpus(cpus),
                if cores == 1 { "" } else { "s" },
                q.source()
            ),
        },
        _ => peak,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::cgroup::{CgroupLimits, CpuQuota};

    fn host(cores: usize, quota: Option<(u64, u64)>) -> HostInfo {
        let mut h = crate::report::samples::host();
        h.cpu.cores = cores;
        h.cgroup = quota.map(|(q, p)| CgroupLimits {
            version: 1,
            path: "/peakbench-test".into(),
            cpu_quota: Some(CpuQuota {
                quota_us: q,
                period_us: p,
                file: "/sys/fs/cgroup/cpu/peakbench-test/cpu.cfs_quota_us".into(),
            }),
            ..Default::default()
        });
        h
    }

    fn peak(v: f64) -> Peak {
        Peak {
            value: Some(v),
            source: "formula".into(),
        }
    }

    #[test]
    fn half_a_cpu_is_half_a_core_and_one_thread() {
        let h = host(2, Some((50_000, 100_000)));
        assert_eq!(thread_cores(&h), 1);
        let p = quota_peak(peak(32e9), &h, 1);
        assert_eq!(p.value, Some(16e9));
        assert_eq!(
            p.source,
            "formula × 0.5/1 core: cgroup CPU quota 50000/100000 µs = 0.5 CPU (/sys/fs/cgroup/cpu/peakbench-test/cpu.cfs_quota_us)"
        );
        // Two threads share the same half CPU.
        assert_eq!(quota_peak(peak(64e9), &h, 2).value, Some(16e9));
    }

    #[test]
    fn a_quota_above_the_cores_in_use_changes_nothing() {
        let h = host(8, Some((150_000, 100_000)));
        assert_eq!(thread_cores(&h), 2);
        assert_eq!(quota_peak(peak(32e9), &h, 1), peak(32e9));
        assert_eq!(quota_peak(peak(64e9), &h, 2).value, Some(48e9));
        let none = host(8, None);
        assert_eq!(thread_cores(&none), 8);
        assert_eq!(quota_peak(peak(1.0), &none, 8), peak(1.0));
        let unknown = Peak::unknown("unknown: generic kernel");
        assert_eq!(quota_peak(unknown.clone(), &h, 4), unknown);
    }
}
