//! The perf `power` PMU as an energy source (issue #47 item 4), beside powercap and
//! hwmon (`energy.rs`): the kernel's RAPL events under
//! `/sys/bus/event_source/devices/power/` (`type`, `cpumask`, `events/energy-pkg`,
//! `energy-ram`, `energy-cores`, `energy-gpu`, `energy-psys`, each with its `.scale`
//! in joules per count and its `.unit`), read with `perf_event_open(2)` system-wide
//! (pid −1) on the PMU's CPU of each package (its `cpumask`), as `perf stat -e
//! power/energy-pkg/ -a` does. The kernel accumulates the 32-bit RAPL MSRs into a
//! 64-bit count, so these counters do not wrap.
//!
//! Used for the domains powercap did not give (the same RAPL counters must not be
//! summed twice); where the PMU exists but opening is refused (`perf_event_paranoid`,
//! not root), that is said as the other sources say theirs.

use std::os::fd::OwnedFd;
use std::path::Path;

/// One event of the PMU as sysfs describes it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PerfEvent {
    /// The event's file name: `energy-pkg`.
    pub(crate) name: String,
    /// The domain kind it is reported under: `package`, `dram`, `core`, `gpu`, `psys`.
    pub(crate) kind: String,
    /// `attr.config`: the `event=0x..` of its file.
    pub(crate) config: u64,
    /// Joules per count (`.scale`, with `.unit` Joules).
    pub(crate) scale: f64,
}

/// The PMU: its `type` number, the CPUs to open on (one per package) and its events.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PowerPmu {
    /// `attr.type`.
    pub(crate) kind: u32,
    /// The PMU's `cpumask`: one CPU per package.
    pub(crate) cpus: Vec<usize>,
    /// Its energy events, in name order.
    pub(crate) events: Vec<PerfEvent>,
}

/// The directory of the PMU under a root.
pub(crate) const PMU_DIR: &str = "sys/bus/event_source/devices/power";

fn read(p: &Path) -> Option<String> {
    std::fs::read_to_string(p)
        .ok()
        .map(|s| s.trim().to_string())
}

/// A `cpumask` as the kernel writes it (`0,24`, `0-1`); `None` when it is not one.
fn cpu_mask(text: &str) -> Option<Vec<usize>> {
    let mut out = Vec::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        match part.split_once('-') {
            Some((a, b)) => out.extend(a.parse::<usize>().ok()?..=b.parse().ok()?),
            None => out.push(part.parse().ok()?),
        }
    }
    Some(out)
}

/// `event=0x02` (or `event=0x02,umask=0x0`: the event field) → 2.
fn event_config(text: &str) -> Option<u64> {
    text.split(',').find_map(|f| {
        let v = f.trim().strip_prefix("event=")?;
        match v.strip_prefix("0x") {
            Some(h) => u64::from_str_radix(h, 16).ok(),
            None => v.parse().ok(),
        }
    })
}

/// The domain kind of an event name, as powercap names its zones.
fn kind_of(event: &str) -> Option<&'static str> {
    Some(match event.strip_prefix("energy-")? {
        "pkg" => "package",
        "ram" => "dram",
        "cores" => "core",
        "gpu" => "gpu",
        "psys" => "psys",
        _ => return None,
    })
}

/// Reads the PMU's description under `root`, or says why there is none.
pub(crate) fn discover(root: &Path) -> Result<PowerPmu, String> {
    let dir = root.join(PMU_DIR);
    let kind = read(&dir.join("type"))
        .and_then(|t| t.parse().ok())
        .ok_or("no perf power PMU (/sys/bus/event_source/devices/power)")?;
    let cpus = read(&dir.join("cpumask"))
        .and_then(|m| cpu_mask(&m))
        .filter(|c| !c.is_empty())
        .unwrap_or_else(|| vec![0]);
    let mut names: Vec<String> = std::fs::read_dir(dir.join("events"))
        .map(|d| {
            d.filter_map(|e| e.ok()?.file_name().into_string().ok())
                .filter(|n| !n.contains('.'))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    let events: Vec<PerfEvent> = names
        .into_iter()
        .filter_map(|name| {
            let kind = kind_of(&name)?;
            let ev = dir.join("events");
            let config = event_config(&read(&ev.join(&name))?)?;
            let unit = read(&ev.join(format!("{name}.unit"))).unwrap_or_default();
            let scale: f64 = read(&ev.join(format!("{name}.scale")))?.parse().ok()?;
            (unit.eq_ignore_ascii_case("joules") && scale > 0.0).then(|| PerfEvent {
                name,
                kind: kind.to_string(),
                config,
                scale,
            })
        })
        .collect();
    if events.is_empty() {
        return Err("the perf power PMU lists no energy event".into());
    }
    Ok(PowerPmu { kind, cpus, events })
}

/// Opens one counting event system-wide on `cpu`: `perf_event_open(2)` with a
/// version-0 attribute (type, size, config; everything else 0: counting, enabled).
pub(crate) fn open(kind: u32, config: u64, cpu: usize) -> Result<OwnedFd, String> {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::FromRawFd;
        /// `struct perf_event_attr` up to `config1` (PERF_ATTR_SIZE_VER0, 64 bytes).
        #[repr(C)]
        struct Attr {
            kind: u32,
            size: u32,
            config: u64,
            rest: [u64; 6],
        }
        let attr = Attr {
            kind,
            size: std::mem::size_of::<Attr>() as u32,
            config,
            rest: [0; 6],
        };
        const PERF_FLAG_FD_CLOEXEC: libc::c_ulong = 8;
        // SAFETY: `attr` is a valid version-0 perf_event_attr that outlives the call;
        // pid −1 with a CPU counts system-wide on it, group −1 opens a lone event.
        let fd = unsafe {
            libc::syscall(
                libc::SYS_perf_event_open,
                &attr as *const Attr,
                -1 as libc::pid_t,
                cpu as libc::c_int,
                -1 as libc::c_int,
                PERF_FLAG_FD_CLOEXEC,
            )
        };
        if fd < 0 {
            return Err(std::io::Error::last_os_error().to_string());
        }
        // SAFETY: the kernel just returned this descriptor to us; nothing else owns it.
        Ok(unsafe { OwnedFd::from_raw_fd(fd as libc::c_int) })
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (kind, config, cpu);
        Err("perf_event_open exists on Linux only".into())
    }
}

/// The count of an open event, in microjoules at `scale` joules per count.
pub(crate) fn read_uj(fd: &OwnedFd, scale: f64) -> Option<u64> {
    use std::io::Read;
    let mut buf = [0u8; 8];
    let mut f = std::fs::File::from(fd.try_clone().ok()?);
    f.read_exact(&mut buf).ok()?;
    Some((u64::from_ne_bytes(buf) as f64 * scale * 1e6) as u64)
}

/// One opened counter: its domain (`package-0`), where it is read, the event's fd and
/// scale.
pub(crate) struct Opened {
    pub(crate) domain: String,
    pub(crate) source: String,
    pub(crate) fd: OwnedFd,
    pub(crate) scale: f64,
}

/// Opens every event of `pmu` not already among `have` (the domains powercap gave) on
/// each of its CPUs with `open`; the events that could not be opened are one reason.
pub(crate) fn counters(
    pmu: &PowerPmu,
    have: &[String],
    open: impl Fn(u32, u64, usize) -> Result<OwnedFd, String>,
) -> (Vec<Opened>, Option<String>) {
    let mut out = Vec::new();
    let mut refused: Vec<String> = Vec::new();
    let mut why = String::new();
    for ev in &pmu.events {
        for (pkg, &cpu) in pmu.cpus.iter().enumerate() {
            // Package-wide events per package; psys is one for the platform.
            let domain = if ev.kind == "psys" {
                if pkg > 0 {
                    continue;
                }
                "psys".to_string()
            } else {
                format!("{}-{pkg}", ev.kind)
            };
            if have.contains(&domain) {
                continue;
            }
            match open(pmu.kind, ev.config, cpu) {
                Ok(fd) => out.push(Opened {
                    domain,
                    source: format!("perf power/{}/ on CPU {cpu}", ev.name),
                    fd,
                    scale: ev.scale,
                }),
                Err(e) => {
                    if !refused.contains(&ev.name) {
                        refused.push(ev.name.clone());
                    }
                    why = e;
                }
            }
        }
    }
    let missing = (!refused.is_empty()).then(|| {
        format!(
            "perf power PMU {} not readable (perf_event_open: {why}; root or perf_event_paranoid 0 needed)",
            refused.join(", ")
        )
    });
    (out, missing)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fake sysfs tree of the PMU as an Intel server's kernel writes it.
    fn tree(events: &[(&str, &str, &str, &str)], cpumask: &str) -> tempfile::TempDir {
        let d = tempfile::tempdir().unwrap();
        let pmu = d.path().join(PMU_DIR);
        std::fs::create_dir_all(pmu.join("events")).unwrap();
        std::fs::write(pmu.join("type"), "23\n").unwrap();
        std::fs::write(pmu.join("cpumask"), format!("{cpumask}\n")).unwrap();
        for (name, ev, scale, unit) in events {
            let e = pmu.join("events");
            std::fs::write(e.join(name), format!("{ev}\n")).unwrap();
            std::fs::write(e.join(format!("{name}.scale")), format!("{scale}\n")).unwrap();
            std::fs::write(e.join(format!("{name}.unit")), format!("{unit}\n")).unwrap();
        }
        d
    }

    const SCALE: &str = "2.3283064365386962890625e-10";

    #[test]
    fn discovery_reads_type_cpus_events_and_scales() {
        let d = tree(
            &[
                ("energy-pkg", "event=0x02", SCALE, "Joules"),
                ("energy-ram", "event=0x03", "1.52587890625e-05", "Joules"),
                ("energy-cores", "event=0x01", SCALE, "Joules"),
                ("energy-fake", "event=0x09", SCALE, "Joules"),
                ("energy-psys", "event=0x05", SCALE, "Watts"),
            ],
            "0,24",
        );
        let p = discover(d.path()).unwrap();
        assert_eq!((p.kind, p.cpus.clone()), (23, vec![0, 24]));
        let got: Vec<(&str, &str, u64)> = p
            .events
            .iter()
            .map(|e| (e.name.as_str(), e.kind.as_str(), e.config))
            .collect();
        // Unknown names and non-joule units are left out.
        assert_eq!(
            got,
            vec![
                ("energy-cores", "core", 1),
                ("energy-pkg", "package", 2),
                ("energy-ram", "dram", 3)
            ]
        );
        assert_eq!(p.events[1].scale, 2f64.powi(-32));
        assert_eq!(p.events[2].scale, 1.52587890625e-05);
        assert_eq!(event_config("event=0x1b,umask=0x0"), Some(0x1b));
        assert_eq!(event_config("event=7"), Some(7));
        assert_eq!(cpu_mask("0-1,24"), Some(vec![0, 1, 24]));
        assert_eq!(cpu_mask("x"), None);
    }

    #[test]
    fn a_missing_or_empty_pmu_says_why() {
        let d = tempfile::tempdir().unwrap();
        assert_eq!(
            discover(d.path()).unwrap_err(),
            "no perf power PMU (/sys/bus/event_source/devices/power)"
        );
        let d = tree(&[], "0");
        assert_eq!(
            discover(d.path()).unwrap_err(),
            "the perf power PMU lists no energy event"
        );
    }

    /// Each package's events are opened on its CPU, powercap's domains are skipped,
    /// and a refused open is one reason naming the events.
    #[test]
    fn counters_open_per_package_and_say_what_was_refused() {
        let d = tree(
            &[
                ("energy-pkg", "event=0x02", SCALE, "Joules"),
                ("energy-ram", "event=0x03", SCALE, "Joules"),
                ("energy-psys", "event=0x05", SCALE, "Joules"),
            ],
            "0,8",
        );
        let p = discover(d.path()).unwrap();
        let devnull =
            || -> Result<OwnedFd, String> { Ok(std::fs::File::open("/dev/null").unwrap().into()) };
        let opened = std::cell::RefCell::new(Vec::new());
        let (c, missing) = counters(&p, &["package-0".to_string()], |t, cfg, cpu| {
            opened.borrow_mut().push((t, cfg, cpu));
            devnull()
        });
        let domains: Vec<&str> = c.iter().map(|o| o.domain.as_str()).collect();
        assert_eq!(domains, vec!["package-1", "psys", "dram-0", "dram-1"]);
        assert_eq!(
            opened.into_inner(),
            vec![(23, 2, 8), (23, 5, 0), (23, 3, 0), (23, 3, 8)]
        );
        assert_eq!(c[0].source, "perf power/energy-pkg/ on CPU 8");
        assert_eq!(missing, None);
        // /dev/null reads no count: no figure, never an invented one.
        assert_eq!(read_uj(&c[0].fd, 1.0), None);
        let (c, missing) = counters(&p, &[], |_, _, _| {
            Err("Permission denied (os error 13)".into())
        });
        assert!(c.is_empty());
        assert_eq!(
            missing.unwrap(),
            "perf power PMU energy-pkg, energy-psys, energy-ram not readable (perf_event_open: Permission denied (os error 13); root or perf_event_paranoid 0 needed)"
        );
    }
}
