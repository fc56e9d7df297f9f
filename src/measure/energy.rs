//! Energy counters (issue #47 item 4): what a sample cost in joules, where the machine
//! exposes it. Read around every timed window with the host's other figures
//! (`share::HostMark`), so each sample carries its joules per domain.
//!
//! Sources, each a counter of microjoules (or converted to them):
//!
//! - **RAPL through powercap** (`/sys/class/powercap/intel-rapl:N[:M]`, also on AMD Zen,
//!   whose RAPL the same driver exposes): `energy_uj` per zone (`package-N`, and its
//!   subzones `core`, `uncore`, `dram`; `psys`), wrapping at `max_energy_range_uj`.
//!   Linux 5.10 made `energy_uj` readable by root only (CVE-2020-8694): a zone that
//!   exists but is not readable is said, not silently dropped.
//! - **hwmon** `energyN_input` (µJ; `amd_energy`, `zenpower`, some BMC-backed sensors),
//!   labelled by `energyN_label`; per-core counters (`Ecore…`) are left out: the
//!   socket's counter covers them.
//! - **the perf `power` PMU** (`energy_perf.rs`): the same RAPL counters through
//!   `perf_event_open`, for the domains powercap did not give (its `energy_uj` is root
//!   only; perf follows `perf_event_paranoid`).
//! - **NVML** (`libnvidia-ml.so.1`, loaded at run time, never linked): each NVIDIA GPU's
//!   `nvmlDeviceGetTotalEnergyConsumption` (mJ since the driver loaded; Volta and
//!   later). Absent driver or GPU: skipped, said in the reason.
//!
//! A counter that went backwards wraps: with a known range the delta is
//! `after + range − before`; without one the window has no figure for that counter
//! (never a negative or invented energy). Everything but NVML is read under a root
//! directory (`/` on the machine, a fake tree in tests: `energy_tests.rs`).

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The energy one domain used over one window.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Energy {
    /// The counter's domain: `package-0`, `dram-0`, `psys`, `gpu0`, `amd_energy Esocket0`.
    pub(crate) domain: String,
    /// Joules used over the window.
    pub(crate) joules: f64,
    /// The window's length, seconds (joules / secs = average watts).
    pub(crate) secs: f64,
}

impl Energy {
    /// Average power over the window, watts.
    #[cfg(test)]
    pub(crate) fn watts(&self) -> f64 {
        if self.secs > 0.0 {
            self.joules / self.secs
        } else {
            f64::NAN
        }
    }
}

/// A row's energy in one domain kind (computed by `report::energy`, kept here, below
/// the results model that holds it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct RowEnergy {
    /// The domain kind, sockets or devices summed: `package`, `dram`, `core`, `psys`, `gpu`.
    pub(crate) domain: String,
    /// Mean joules per sample (per window).
    pub(crate) joules: f64,
    /// Mean power over the samples' windows, watts (their joules over their seconds).
    pub(crate) watts: f64,
    /// The row's mean over `watts`, in the row's unit per watt (FLOP/s/W, B/s/W, IO/s/W);
    /// absent for a latency, which per watt means nothing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) per_watt: Option<f64>,
}

/// The kind of a domain, the name its sockets or devices are summed under:
/// `package-1` → `package`, `dram-0` → `dram`, `gpu0` → `gpu`.
pub(crate) fn kind(domain: &str) -> String {
    domain
        .trim_end_matches(|c: char| c.is_ascii_digit())
        .trim_end_matches(['-', '_'])
        .to_string()
}

/// How a counter is read.
enum Reader {
    /// A file of microjoules (powercap `energy_uj`, hwmon `energyN_input`).
    File(PathBuf),
    /// An NVIDIA GPU through NVML (millijoules).
    Nvml(usize),
    /// A perf `power` PMU event (`energy_perf.rs`): counts of `scale` joules.
    Perf(std::os::fd::OwnedFd, f64),
}

/// One readable energy counter.
pub(crate) struct Counter {
    /// Its domain (see [`Energy::domain`]).
    pub(crate) domain: String,
    /// Where it is read, for `sysinfo` (`/sys/class/powercap/intel-rapl:0`, `NVML`).
    pub(crate) source: String,
    /// The value after which it wraps to 0, µJ (powercap's `max_energy_range_uj`).
    max_uj: Option<u64>,
    reader: Reader,
}

/// The counters of a machine, or why there are none.
pub(crate) struct Counters {
    /// The readable counters.
    pub(crate) list: Vec<Counter>,
    /// What was found and could not be read, or looked for and not found: the reason
    /// said once when `list` is empty.
    pub(crate) missing: Vec<String>,
    nvml: Option<crate::measure::nvml::Nvml>,
}

fn read(p: &Path) -> Option<String> {
    std::fs::read_to_string(p)
        .ok()
        .map(|s| s.trim().to_string())
}

fn read_u64(p: &Path) -> Option<u64> {
    read(p)?.parse().ok()
}

/// The entries of a directory whose names start with `prefix`, sorted by name.
fn entries(dir: &Path, prefix: &str) -> Vec<(String, PathBuf)> {
    let mut v: Vec<(String, PathBuf)> = std::fs::read_dir(dir)
        .map(|d| {
            d.filter_map(|e| {
                let e = e.ok()?;
                let n = e.file_name().to_str()?.to_string();
                n.starts_with(prefix).then(|| (n, e.path()))
            })
            .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// The powercap RAPL zones under `root`: each `intel-rapl:N` (package, psys) and
/// `intel-rapl:N:M` (its subzones), named `package-0`, `dram-0` (the subzone with its
/// package's number), `psys`. MMIO zones (`intel-rapl-mmio:N`) repeat the package and
/// are read only where the MSR zone of that name is missing.
fn powercap(root: &Path, out: &mut Vec<Counter>, missing: &mut Vec<String>) {
    let dir = root.join("sys/class/powercap");
    let mut zones = entries(&dir, "intel-rapl");
    // MSR zones first: an MMIO zone is read only where its name is not already.
    zones.sort_by_key(|(n, _)| n.starts_with("intel-rapl-mmio"));
    if zones.is_empty() {
        missing.push("no RAPL zone in /sys/class/powercap".into());
        return;
    }
    let mut unreadable = Vec::new();
    for (name, path) in &zones {
        // The top `intel-rapl` (no colon) is the control type, not a zone.
        let Some((_, nums)) = name.split_once(':') else {
            continue;
        };
        let Some(zone) = read(&path.join("name")) else {
            continue;
        };
        let parts: Vec<&str> = nums.split(':').collect();
        let domain = match parts.as_slice() {
            [_] => zone,
            // A subzone: `dram` of package 1 is `dram-1`.
            [p, _] => {
                let parent = name.rsplit_once(':').map_or(name.as_str(), |x| x.0);
                let pkg = read(&dir.join(parent).join("name"))
                    .and_then(|n| n.strip_prefix("package-").map(str::to_string))
                    .unwrap_or_else(|| p.to_string());
                format!("{zone}-{pkg}")
            }
            _ => continue,
        };
        if name.starts_with("intel-rapl-mmio") && out.iter().any(|c| c.domain == domain) {
            continue;
        }
        let shown = format!("/sys/class/powercap/{name}");
        let file = path.join("energy_uj");
        if read_u64(&file).is_none() {
            if file.exists() {
                unreadable.push(name.clone());
            }
            continue;
        }
        out.push(Counter {
            domain,
            source: shown,
            max_uj: read_u64(&path.join("max_energy_range_uj")).filter(|m| *m > 0),
            reader: Reader::File(file),
        });
    }
    if !unreadable.is_empty() {
        missing.push(format!(
            "powercap {} energy_uj not readable (root only since Linux 5.10)",
            unreadable.join(", ")
        ));
    }
}

/// The hwmon energy sensors under `root` (`energyN_input`, µJ), per-core ones left out.
fn hwmon(root: &Path, out: &mut Vec<Counter>, missing: &mut Vec<String>) {
    let mut any = false;
    for (hw, path) in entries(&root.join("sys/class/hwmon"), "hwmon") {
        let chip = read(&path.join("name")).unwrap_or_else(|| hw.clone());
        for (f, input) in entries(&path, "energy") {
            let Some(n) = f
                .strip_prefix("energy")
                .and_then(|r| r.strip_suffix("_input"))
            else {
                continue;
            };
            any = true;
            let label = read(&path.join(format!("energy{n}_label")))
                .unwrap_or_else(|| format!("energy{n}"));
            if label.starts_with("Ecore") || read_u64(&input).is_none() {
                continue;
            }
            out.push(Counter {
                domain: format!("{chip} {label}"),
                source: format!("/sys/class/hwmon/{hw}/{f}"),
                max_uj: None,
                reader: Reader::File(input),
            });
        }
    }
    if !any {
        missing.push("no hwmon energy sensor".into());
    }
}

impl Counters {
    /// The counters under `root`, and NVML's GPUs when `nvml` (the machine's only).
    pub(crate) fn discover(root: &Path, nvml: bool) -> Counters {
        let mut list = Vec::new();
        let mut missing = Vec::new();
        powercap(root, &mut list, &mut missing);
        hwmon(root, &mut list, &mut missing);
        // The perf power PMU for what powercap did not give (#47).
        match super::energy_perf::discover(root) {
            Ok(pmu) => {
                let have: Vec<String> = list.iter().map(|c| c.domain.clone()).collect();
                let (opened, refused) =
                    super::energy_perf::counters(&pmu, &have, super::energy_perf::open);
                list.extend(opened.into_iter().map(|o| Counter {
                    domain: o.domain,
                    source: o.source,
                    max_uj: None,
                    reader: Reader::Perf(o.fd, o.scale),
                }));
                missing.extend(refused);
            }
            Err(why) => missing.push(why),
        }
        let mut lib = None;
        if nvml {
            match crate::measure::nvml::Nvml::load() {
                Ok(n) => {
                    for (i, name) in n.gpus().iter().enumerate() {
                        list.push(Counter {
                            domain: format!("gpu{i}"),
                            source: format!("NVML ({name})"),
                            max_uj: None,
                            reader: Reader::Nvml(i),
                        });
                    }
                    lib = Some(n);
                }
                Err(why) => missing.push(why),
            }
        }
        Counters {
            list,
            missing,
            nvml: lib,
        }
    }

    /// Every counter's value now, µJ (`None`: that read failed).
    pub(crate) fn read_all(&self) -> Vec<Option<u64>> {
        self.list
            .iter()
            .map(|c| match &c.reader {
                Reader::File(p) => read_u64(p),
                Reader::Nvml(i) => self.nvml.as_ref()?.energy_mj(*i).map(|mj| mj * 1000),
                Reader::Perf(fd, scale) => super::energy_perf::read_uj(fd, *scale),
            })
            .collect()
    }

    /// What `sysinfo` and a report's header say: the domains with their sources, or
    /// "no energy counters readable here" with why.
    pub(crate) fn info(&self) -> EnergyInfo {
        EnergyInfo {
            domains: self
                .list
                .iter()
                .map(|c| format!("{} ({})", c.domain, c.source))
                .collect(),
            none: self.list.is_empty().then(|| {
                format!(
                    "no energy counters readable here ({})",
                    self.missing.join("; ")
                )
            }),
        }
    }
}

/// The energy counters a run had, as the report records them.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub(crate) struct EnergyInfo {
    /// Each readable domain with its source (`package-0 (/sys/class/powercap/intel-rapl:0)`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) domains: Vec<String>,
    /// Why there are none, when there are none: said once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) none: Option<String>,
}

impl EnergyInfo {
    /// One line: `package-0 (…), dram-0 (…)` or the reason there are none.
    pub(crate) fn line(&self) -> String {
        self.none.clone().unwrap_or_else(|| self.domains.join(", "))
    }
}

/// Microjoules from `before` to `after` of a counter that wraps after `max` (`None`:
/// unknown range, and a counter that went backwards gives no figure).
pub(crate) fn delta_uj(before: u64, after: u64, max: Option<u64>) -> Option<u64> {
    if after >= before {
        return Some(after - before);
    }
    // Wrapped once: the rest of the range, then from 0 (powercap's own rule, as
    // turbostat and the kernel's documentation apply it).
    max.filter(|m| *m >= before).map(|m| m - before + after)
}

/// Every counter's value at one moment.
#[derive(Debug, Clone, Default)]
pub(crate) struct EnergyMark {
    values: Vec<Option<u64>>,
    at: Option<std::time::Instant>,
}

impl EnergyMark {
    /// Reads `counters` now.
    pub(crate) fn read(counters: &Counters) -> EnergyMark {
        if counters.list.is_empty() {
            return EnergyMark::default();
        }
        EnergyMark {
            values: counters.read_all(),
            at: Some(std::time::Instant::now()),
        }
    }

    /// Reads the machine's counters now (nothing where none is readable).
    pub(crate) fn now() -> EnergyMark {
        EnergyMark::read(machine())
    }

    /// The energy per domain from `start` to `self` over `secs` seconds.
    pub(crate) fn between(
        counters: &Counters,
        start: &EnergyMark,
        end: &EnergyMark,
        secs: f64,
    ) -> Vec<Energy> {
        let mut out = Vec::new();
        for (i, c) in counters.list.iter().enumerate() {
            let (Some(Some(a)), Some(Some(b))) = (start.values.get(i), end.values.get(i)) else {
                continue;
            };
            if let Some(d) = delta_uj(*a, *b, c.max_uj) {
                out.push(Energy {
                    domain: c.domain.clone(),
                    joules: d as f64 * 1e-6,
                    secs,
                });
            }
        }
        out
    }

    /// The machine's energy per domain from `start` to `self` (empty without counters).
    pub(crate) fn since(&self, start: &EnergyMark) -> Vec<Energy> {
        let secs = match (self.at, start.at) {
            (Some(b), Some(a)) => b.duration_since(a).as_secs_f64(),
            _ => return Vec::new(),
        };
        EnergyMark::between(machine(), start, self, secs)
    }
}

/// This machine's counters, found once per run.
pub(crate) fn machine() -> &'static Counters {
    static THIS: OnceLock<Counters> = OnceLock::new();
    THIS.get_or_init(|| Counters::discover(Path::new("/"), true))
}

#[cfg(test)]
#[path = "energy_tests.rs"]
mod tests;
