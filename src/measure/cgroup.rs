//! Container limits (issue #47): the cgroup (v1 or v2) this process runs in, and the
//! limits it sets on the machine: the CPU quota (`cpu.max`; v1 `cpu.cfs_quota_us` /
//! `cpu.cfs_period_us`), the cpuset, the memory limit (`memory.max`; v1
//! `memory.limit_in_bytes`) and I/O limits (`io.max`), each the tightest on the path
//! from the process's cgroup up to its mount; and the throttling the quota caused
//! (`cpu.stat`), which `measure::share` records per sample. Everything is read under a
//! root directory (`/` on the machine, a recorded tree in tests): `proc/self/cgroup`
//! names the cgroup, `proc/self/mountinfo` where each hierarchy is mounted.

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// A CPU quota: `quota_us` of CPU time per `period_us`, from the file `file`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct CpuQuota {
    /// CPU time allowed per period, µs.
    pub(crate) quota_us: u64,
    /// The period, µs.
    pub(crate) period_us: u64,
    /// The file it was read from (under the root).
    pub(crate) file: String,
}

impl CpuQuota {
    /// The CPUs the quota is worth (0.5 for 50000/100000 µs).
    pub(crate) fn cpus(&self) -> f64 {
        self.quota_us as f64 / self.period_us.max(1) as f64
    }

    /// `cgroup CPU quota 50000/100000 µs = 0.5 CPU (/sys/fs/cgroup/cpu/x/cpu.cfs_quota_us)`.
    pub(crate) fn source(&self) -> String {
        format!(
            "cgroup CPU quota {}/{} µs = {} CPU ({})",
            self.quota_us,
            self.period_us,
            fmt_cpus(self.cpus()),
            self.file
        )
    }
}

/// `0.5`, `2`, `1.25`: a CPU count without trailing zeros.
pub(crate) fn fmt_cpus(c: f64) -> String {
    let s = format!("{c:.3}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// The limits of the cgroup this process runs in; only the ones set are present.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub(crate) struct CgroupLimits {
    /// 1 or 2: the version of the hierarchy the CPU limits were read from (2 when
    /// only the unified hierarchy is mounted).
    pub(crate) version: u8,
    /// The process's cgroup (as `/proc/self/cgroup` names it, CPU controller's).
    pub(crate) path: String,
    /// The tightest CPU quota on the path, when one is set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) cpu_quota: Option<CpuQuota>,
    /// The CPUs of the cpuset (`cpuset.cpus.effective`, v1 `cpuset.cpus`), when it
    /// holds fewer than the online CPUs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) cpuset: Option<String>,
    /// The tightest memory limit on the path, bytes, when one is set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) memory_max: Option<u64>,
    /// What the cgroup of that limit used when it was read, bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) memory_used: Option<u64>,
    /// The `io.max` lines that set a limit (`8:0 rbps=1048576 wbps=max …`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) io_max: Vec<String>,
}

impl CgroupLimits {
    /// Whether any limit is set.
    pub(crate) fn any(&self) -> bool {
        self.cpu_quota.is_some()
            || self.cpuset.is_some()
            || self.memory_max.is_some()
            || !self.io_max.is_empty()
    }

    /// The bytes the memory limit leaves (limit minus use), when one is set.
    pub(crate) fn memory_room(&self) -> Option<u64> {
        self.memory_max
            .map(|m| m.saturating_sub(self.memory_used.unwrap_or(0)))
    }

    /// One line per limit set, for `sysinfo`.
    pub(crate) fn lines(&self) -> Vec<String> {
        let mut out = Vec::new();
        if let Some(q) = &self.cpu_quota {
            out.push(q.source());
        }
        if let Some(c) = &self.cpuset {
            out.push(format!("cgroup cpuset: CPUs {c}"));
        }
        if let Some(m) = self.memory_max {
            out.push(format!(
                "cgroup memory limit {} ({} used)",
                crate::util::units::format_size(m),
                crate::util::units::format_size(self.memory_used.unwrap_or(0))
            ));
        }
        for l in &self.io_max {
            out.push(format!("cgroup io.max {l}"));
        }
        out
    }
}

/// One line of `/proc/self/mountinfo` that mounts a cgroup hierarchy.
#[derive(Debug, Clone, PartialEq)]
struct Mount {
    /// The directory of the hierarchy mounted (`/` or the container's cgroup).
    root: String,
    /// Where it is mounted.
    point: String,
    /// 1 (`cgroup`) or 2 (`cgroup2`).
    version: u8,
    /// The v1 controllers (super options), empty for v2.
    controllers: Vec<String>,
}

/// The cgroup mounts of a `mountinfo` text (other mounts are skipped).
fn parse_mountinfo(text: &str) -> Vec<Mount> {
    let mut out = Vec::new();
    for line in text.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        let Some(dash) = f.iter().position(|w| *w == "-") else {
            continue;
        };
        let (Some(root), Some(point), Some(fs)) = (f.get(3), f.get(4), f.get(dash + 1)) else {
            continue;
        };
        let version = match *fs {
            "cgroup" => 1,
            "cgroup2" => 2,
            _ => continue,
        };
        let controllers = f
            .get(dash + 3)
            .map(|o| o.split(',').map(str::to_string).collect())
            .unwrap_or_default();
        out.push(Mount {
            root: unescape(root),
            point: unescape(point),
            version,
            controllers: if version == 1 {
                controllers
            } else {
                Vec::new()
            },
        });
    }
    out
}

/// mountinfo escapes spaces and the like as `\040` (octal).
fn unescape(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && i + 4 <= b.len() {
            if let Ok(v) = u8::from_str_radix(&s[i + 1..i + 4], 8) {
                out.push(v);
                i += 4;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The process's cgroups from `/proc/self/cgroup`: (controllers, path) per line; the
/// v2 line (`0::/path`) has no controllers.
fn parse_proc_cgroup(text: &str) -> Vec<(Vec<String>, String)> {
    text.lines()
        .filter_map(|l| {
            let mut it = l.splitn(3, ':');
            let (_, ctl, path) = (it.next()?, it.next()?, it.next()?);
            let ctl = ctl
                .split(',')
                .filter(|c| !c.is_empty())
                .map(str::to_string)
                .collect();
            Some((ctl, path.to_string()))
        })
        .collect()
}

/// Where one controller's files are: the directories from the process's cgroup up to
/// its mount (leaf first), and the hierarchy's version.
#[derive(Debug, Clone, PartialEq)]
struct Place {
    version: u8,
    /// The process's cgroup path as `/proc/self/cgroup` names it.
    path: String,
    /// Leaf first, the mount point last (each under the root).
    dirs: Vec<PathBuf>,
    /// The same directories as the machine names them (for messages).
    shown: Vec<String>,
}

/// The cgroup tree of a process, read under a root.
struct Tree {
    root: PathBuf,
    mounts: Vec<Mount>,
    groups: Vec<(Vec<String>, String)>,
}

impl Tree {
    fn read(root: &Path) -> Option<Tree> {
        let groups =
            parse_proc_cgroup(&std::fs::read_to_string(root.join("proc/self/cgroup")).ok()?);
        let mounts =
            parse_mountinfo(&std::fs::read_to_string(root.join("proc/self/mountinfo")).ok()?);
        (!mounts.is_empty()).then(|| Tree {
            root: root.to_path_buf(),
            mounts,
            groups,
        })
    }

    /// The place of controller `ctl`: its v1 hierarchy when one is mounted, else the
    /// unified (v2) one.
    fn place(&self, ctl: &str) -> Option<Place> {
        let v1 = self
            .mounts
            .iter()
            .find(|m| m.version == 1 && m.controllers.iter().any(|c| c == ctl));
        let (mount, path) = match v1 {
            Some(m) => (
                m,
                self.groups
                    .iter()
                    .find(|(c, _)| c.iter().any(|c| c == ctl))?
                    .1
                    .clone(),
            ),
            None => (
                self.mounts.iter().find(|m| m.version == 2)?,
                self.groups.iter().find(|(c, _)| c.is_empty())?.1.clone(),
            ),
        };
        // The part of the path below the mounted directory (a container that sees its
        // host's paths mounts its own cgroup as the hierarchy's root).
        let below = if mount.root == "/" {
            path.as_str()
        } else {
            path.strip_prefix(mount.root.as_str())
                .unwrap_or(path.as_str())
        };
        let parts: Vec<&str> = below
            .split('/')
            .filter(|p| !p.is_empty() && *p != "..")
            .collect();
        let mut dirs = Vec::new();
        let mut shown = Vec::new();
        for n in (0..=parts.len()).rev() {
            let rel = parts[..n].join("/");
            let machine = if rel.is_empty() {
                mount.point.clone()
            } else {
                format!("{}/{rel}", mount.point.trim_end_matches('/'))
            };
            dirs.push(self.root.join(machine.trim_start_matches('/')));
            shown.push(machine);
        }
        Some(Place {
            version: mount.version,
            path,
            dirs,
            shown,
        })
    }
}

fn read(p: &Path) -> Option<String> {
    std::fs::read_to_string(p)
        .ok()
        .map(|s| s.trim().to_string())
}

/// The tightest CPU quota on the path, and the directory of its `cpu.stat`.
fn cpu_quota(p: &Place) -> Option<(CpuQuota, PathBuf)> {
    let mut best: Option<(CpuQuota, PathBuf)> = None;
    for (dir, shown) in p.dirs.iter().zip(&p.shown) {
        let q = if p.version == 2 {
            read(&dir.join("cpu.max")).and_then(|t| {
                let mut w = t.split_whitespace();
                let quota = w.next()?.parse::<u64>().ok()?; // `max`: no quota
                let period = w.next().and_then(|v| v.parse().ok()).unwrap_or(100_000);
                Some(CpuQuota {
                    quota_us: quota,
                    period_us: period,
                    file: format!("{shown}/cpu.max"),
                })
            })
        } else {
            let quota = read(&dir.join("cpu.cfs_quota_us")).and_then(|t| t.parse::<i64>().ok());
            let period = read(&dir.join("cpu.cfs_period_us")).and_then(|t| t.parse::<u64>().ok());
            match (quota, period) {
                (Some(q), Some(per)) if q > 0 && per > 0 => Some(CpuQuota {
                    quota_us: q as u64,
                    period_us: per,
                    file: format!("{shown}/cpu.cfs_quota_us"),
                }),
                _ => None,
            }
        };
        if let Some(q) = q.filter(|q| q.period_us > 0) {
            if best.as_ref().is_none_or(|(b, _)| q.cpus() < b.cpus()) {
                best = Some((q, dir.join("cpu.stat")));
            }
        }
    }
    best
}

/// Memory limits at or above this are "no limit" (v1 writes 2^63 rounded to a page).
const NO_MEMORY_LIMIT: u64 = 1 << 62;

/// The tightest memory limit on the path and the use of its cgroup.
fn memory_max(p: &Place) -> Option<(u64, Option<u64>)> {
    let (limit, usage) = if p.version == 2 {
        ("memory.max", "memory.current")
    } else {
        ("memory.limit_in_bytes", "memory.usage_in_bytes")
    };
    let mut best: Option<(u64, Option<u64>)> = None;
    for dir in &p.dirs {
        let Some(m) = read(&dir.join(limit))
            .and_then(|t| t.parse::<u64>().ok())
            .filter(|m| *m < NO_MEMORY_LIMIT)
        else {
            continue;
        };
        if best.is_none_or(|(b, _)| m < b) {
            best = Some((m, read(&dir.join(usage)).and_then(|t| t.parse().ok())));
        }
    }
    best
}

/// The cpuset's CPUs at the leaf, when fewer than the online CPUs.
fn cpuset(p: &Place, root: &Path) -> Option<String> {
    let leaf = p.dirs.first()?;
    let names: &[&str] = if p.version == 2 {
        &["cpuset.cpus.effective"]
    } else {
        &["cpuset.effective_cpus", "cpuset.cpus"]
    };
    let set = names
        .iter()
        .find_map(|n| read(&leaf.join(n)).filter(|s| !s.is_empty()))?;
    let online = read(&root.join("sys/devices/system/cpu/online"))?;
    (count_list(&set) < count_list(&online)).then_some(set)
}

/// CPUs in a kernel list like `0-3,8`.
pub(crate) fn count_list(s: &str) -> usize {
    s.split(',')
        .filter(|p| !p.trim().is_empty())
        .map(|p| match p.trim().split_once('-') {
            Some((a, b)) => match (a.parse::<usize>(), b.parse::<usize>()) {
                (Ok(a), Ok(b)) if b >= a => b - a + 1,
                _ => 0,
            },
            None => usize::from(p.trim().parse::<usize>().is_ok()),
        })
        .sum()
}

/// The `io.max` lines on the path that limit something (v2 only).
fn io_max(p: &Place) -> Vec<String> {
    if p.version != 2 {
        return Vec::new();
    }
    let mut out = Vec::new();
    for dir in &p.dirs {
        if let Some(t) = read(&dir.join("io.max")) {
            for l in t.lines() {
                let limited = l.split_whitespace().skip(1).any(|kv| !kv.ends_with("=max"));
                if limited && !out.iter().any(|o: &String| o == l) {
                    out.push(l.to_string());
                }
            }
        }
    }
    out
}

/// The limits under `root` (with the `cpu.stat` of the quota's cgroup), `None` where
/// no cgroup is readable.
pub(crate) fn read_limits(root: &Path) -> Option<(CgroupLimits, Option<PathBuf>)> {
    let tree = Tree::read(root)?;
    let cpu = tree.place("cpu");
    let quota = cpu.as_ref().and_then(cpu_quota);
    let mem = tree.place("memory").as_ref().and_then(memory_max);
    let io = tree.place("io").map(|p| io_max(&p)).unwrap_or_default();
    let set = tree.place("cpuset").and_then(|p| cpuset(&p, root));
    let (version, path) = cpu
        .map(|p| (p.version, p.path))
        .or_else(|| tree.place("memory").map(|p| (p.version, p.path)))?;
    let (cpu_quota, stat) = match quota {
        Some((q, s)) => (Some(q), Some(s)),
        None => (None, None),
    };
    Some((
        CgroupLimits {
            version,
            path,
            cpu_quota,
            cpuset: set,
            memory_max: mem.map(|m| m.0),
            memory_used: mem.and_then(|m| m.1),
            io_max: io,
        },
        stat,
    ))
}

/// This process's limits and the `cpu.stat` of its quota, read once.
fn this() -> &'static Option<(CgroupLimits, Option<PathBuf>)> {
    static THIS: OnceLock<Option<(CgroupLimits, Option<PathBuf>)>> = OnceLock::new();
    THIS.get_or_init(|| read_limits(Path::new("/")))
}

/// This process's cgroup limits, `None` where none is set or none is readable.
pub(crate) fn limits() -> Option<CgroupLimits> {
    this()
        .as_ref()
        .map(|l| l.0.clone())
        .filter(CgroupLimits::any)
}

/// The CPU periods of a quota and the throttled ones over a window (or since the
/// cgroup was made, for one reading).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub(crate) struct Throttle {
    /// Quota periods that passed with the cgroup runnable.
    pub(crate) periods: u64,
    /// Periods in which the cgroup ran out of quota and was stopped.
    pub(crate) throttled: u64,
    /// Time the cgroup's tasks spent stopped, µs.
    pub(crate) throttled_us: u64,
}

impl Throttle {
    /// The counts from `start` to `self`.
    pub(crate) fn since(&self, start: &Throttle) -> Throttle {
        Throttle {
            periods: self.periods.saturating_sub(start.periods),
            throttled: self.throttled.saturating_sub(start.throttled),
            throttled_us: self.throttled_us.saturating_sub(start.throttled_us),
        }
    }

    /// Adds another window's counts.
    pub(crate) fn add(&mut self, o: &Throttle) {
        self.periods += o.periods;
        self.throttled += o.throttled;
        self.throttled_us += o.throttled_us;
    }
}

/// Parses a `cpu.stat`: v2 `throttled_usec`, v1 `throttled_time` (ns).
pub(crate) fn parse_cpu_stat(text: &str) -> Option<Throttle> {
    let mut t = Throttle::default();
    let mut seen = false;
    for l in text.lines() {
        let mut w = l.split_whitespace();
        let (Some(k), Some(v)) = (w.next(), w.next().and_then(|v| v.parse::<u64>().ok())) else {
            continue;
        };
        match k {
            "nr_periods" => {
                t.periods = v;
                seen = true;
            }
            "nr_throttled" => t.throttled = v,
            "throttled_usec" => t.throttled_us = v,
            "throttled_time" => t.throttled_us = v / 1000,
            _ => {}
        }
    }
    seen.then_some(t)
}

/// The throttling counts of this process's CPU quota now; `None` where no quota is set.
pub(crate) fn throttle_now() -> Option<Throttle> {
    let stat = this().as_ref()?.1.as_ref()?;
    parse_cpu_stat(&std::fs::read_to_string(stat).ok()?)
}

/// `throttled by the container's CPU quota: 45 of 47 periods (2.25 s stopped)`.
pub(crate) fn throttle_words(t: &Throttle) -> String {
    format!(
        "throttled by the container's CPU quota: {} of {} periods ({:.2} s stopped)",
        t.throttled,
        t.periods,
        t.throttled_us as f64 * 1e-6
    )
}

/// The quota's counts summed over the throttled windows of `windows`, `None` when
/// none was throttled.
pub(crate) fn throttled_over(windows: impl Iterator<Item = Option<Throttle>>) -> Option<Throttle> {
    let mut sum: Option<Throttle> = None;
    for t in windows.flatten().filter(|t| t.throttled > 0) {
        sum.get_or_insert_with(Throttle::default).add(&t);
    }
    sum
}

/// The warning of a result whose samples the quota throttled: its own cause, not
/// other tasks. `threads`: what each worker thread short of its window ran. Example:
/// `container CPU quota: 3 of 3 samples throttled: throttled by the container's CPU
/// quota: 45 of 47 periods (2.25 s stopped); thread 1 (cpu 0) ran 50 % of the window;
/// the figure is what the quota allows, not the machine's own`.
pub(crate) fn quota_warning(t: &Throttle, bad: usize, all: usize, threads: &[String]) -> String {
    let mut text = format!(
        "container CPU quota: {bad} of {all} samples throttled: {}",
        throttle_words(t)
    );
    for w in threads {
        text.push_str("; ");
        text.push_str(w);
    }
    text.push_str("; the figure is what the quota allows, not the machine's own");
    text
}

#[cfg(test)]
#[path = "cgroup_tests.rs"]
mod tests;
