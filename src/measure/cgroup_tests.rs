//! Tests of `measure::cgroup` on recorded cgroup trees (tests/fixtures/cgroup): a
//! Docker container on cgroup v1 (the host's paths, `cpu,cpuacct` joined) and a
//! container with its own cgroup namespace on v2.

use super::*;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/cgroup")
        .join(name)
}

#[test]
fn a_v1_container_has_its_quota_memory_limit_and_cpuset() {
    let (l, stat) = read_limits(&fixture("v1")).unwrap();
    assert_eq!(l.version, 1);
    assert_eq!(l.path, "/docker/abc");
    let q = l.cpu_quota.clone().unwrap();
    assert_eq!((q.quota_us, q.period_us), (150_000, 100_000));
    assert_eq!(q.cpus(), 1.5);
    assert_eq!(
        q.source(),
        "cgroup CPU quota 150000/100000 µs = 1.5 CPU (/sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_quota_us)"
    );
    assert_eq!(l.memory_max, Some(512 << 20));
    assert_eq!(l.memory_room(), Some((512 << 20) - (100 << 20)));
    assert_eq!(l.cpuset.as_deref(), Some("0-7"));
    assert!(l.io_max.is_empty(), "v1 has no io.max");
    let t = parse_cpu_stat(&std::fs::read_to_string(stat.unwrap()).unwrap()).unwrap();
    assert_eq!(
        t,
        Throttle {
            periods: 47,
            throttled: 45,
            throttled_us: 2_250_000
        }
    );
}

#[test]
fn a_v2_container_in_its_namespace_reads_its_own_root() {
    let (l, stat) = read_limits(&fixture("v2")).unwrap();
    assert_eq!((l.version, l.path.as_str()), (2, "/"));
    let q = l.cpu_quota.clone().unwrap();
    assert_eq!(q.cpus(), 0.5);
    assert_eq!(
        q.source(),
        "cgroup CPU quota 50000/100000 µs = 0.5 CPU (/sys/fs/cgroup/cpu.max)"
    );
    assert_eq!(l.memory_max, Some(1 << 30));
    assert_eq!(l.memory_used, Some(256 << 20));
    assert_eq!(l.cpuset.as_deref(), Some("2-3"));
    assert_eq!(
        l.io_max,
        vec!["8:0 rbps=1048576 wbps=max riops=max wiops=max"]
    );
    assert!(l.any());
    let lines = l.lines();
    assert_eq!(lines.len(), 4, "{lines:?}");
    assert!(lines[2].starts_with("cgroup memory limit "), "{lines:?}");
    let t = parse_cpu_stat(&std::fs::read_to_string(stat.unwrap()).unwrap()).unwrap();
    assert_eq!(
        (t.periods, t.throttled, t.throttled_us),
        (47, 45, 2_250_000)
    );
}

#[test]
fn no_quota_and_no_limit_read_as_none() {
    let dir = std::env::temp_dir().join(format!("peakbench-cgroup-none-{}", std::process::id()));
    let g = dir.join("sys/fs/cgroup");
    std::fs::create_dir_all(dir.join("proc/self")).unwrap();
    std::fs::create_dir_all(&g).unwrap();
    std::fs::write(dir.join("proc/self/cgroup"), "0::/\n").unwrap();
    std::fs::write(
        dir.join("proc/self/mountinfo"),
        "1 0 0:1 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n",
    )
    .unwrap();
    std::fs::write(g.join("cpu.max"), "max 100000\n").unwrap();
    std::fs::write(g.join("memory.max"), "max\n").unwrap();
    let (l, stat) = read_limits(&dir).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(!l.any(), "{l:?}");
    assert!(stat.is_none());
}

#[test]
fn the_tightest_quota_on_the_path_wins_and_its_stat_is_read() {
    // A parent at 0.5 CPU above a child at 2 CPUs: the parent's quota limits.
    let dir = std::env::temp_dir().join(format!("peakbench-cgroup-nest-{}", std::process::id()));
    let g = dir.join("sys/fs/cgroup");
    std::fs::create_dir_all(dir.join("proc/self")).unwrap();
    std::fs::create_dir_all(g.join("a/b")).unwrap();
    std::fs::write(dir.join("proc/self/cgroup"), "0::/a/b\n").unwrap();
    std::fs::write(
        dir.join("proc/self/mountinfo"),
        "1 0 0:1 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n",
    )
    .unwrap();
    std::fs::write(g.join("a/cpu.max"), "50000 100000\n").unwrap();
    std::fs::write(g.join("a/b/cpu.max"), "200000 100000\n").unwrap();
    let (l, stat) = read_limits(&dir).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(l.cpu_quota.unwrap().file, "/sys/fs/cgroup/a/cpu.max");
    assert_eq!(stat.unwrap(), g.join("a/cpu.stat"));
}

#[test]
fn mountinfo_escapes_and_other_mounts() {
    let m = parse_mountinfo(
        "1 0 0:1 / /sys/fs/cgroup/my\\040dir rw - cgroup cgroup rw,cpu\n2 0 0:2 / /proc rw - proc proc rw\n",
    );
    assert_eq!(m.len(), 1);
    assert_eq!(m[0].point, "/sys/fs/cgroup/my dir");
    assert_eq!(m[0].controllers, vec!["rw", "cpu"]);
}

#[test]
fn throttle_windows_subtract_and_add() {
    let a = Throttle {
        periods: 10,
        throttled: 4,
        throttled_us: 100,
    };
    let b = Throttle {
        periods: 30,
        throttled: 20,
        throttled_us: 900,
    };
    let mut d = b.since(&a);
    assert_eq!(
        d,
        Throttle {
            periods: 20,
            throttled: 16,
            throttled_us: 800
        }
    );
    d.add(&a);
    assert_eq!(d, b);
    assert_eq!(count_list("0-3,8"), 5);
    assert_eq!(fmt_cpus(0.5), "0.5");
    assert_eq!(fmt_cpus(2.0), "2");
}
