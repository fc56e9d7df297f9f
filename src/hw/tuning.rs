//! What the run was given (issue #47 item 5): the CPU frequency governor and driver,
//! boost/turbo, the intel_pstate or amd-pstate mode, SMT, and the kernel's isolation
//! parameters (`isolcpus`, `nohz_full`, `rcu_nocbs`). Two runs on one machine differ by
//! more than noise when one ran under `powersave` and the other under `performance`, or
//! with turbo off: every report records these, `sysinfo` shows them and `compare` names
//! a difference.
//!
//! Everything is read under a root directory (`/` on the machine, a recorded tree in
//! tests: tests/fixtures/tuning). A file that is absent reads as unknown (`None`), never
//! as a guess: a guest without cpufreq (most VMs) has no governor to report.

use serde::{Deserialize, Serialize};
use std::path::Path;

/// The kernel's CPU isolation parameters, as `/proc/cmdline` gives them; each `None`
/// when the command line does not set it.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub(crate) struct Isolation {
    /// `isolcpus=` (CPUs taken from the scheduler's balancing, with any flags).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) isolcpus: Option<String>,
    /// `nohz_full=` (CPUs without the periodic tick while one task runs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) nohz_full: Option<String>,
    /// `rcu_nocbs=` (CPUs whose RCU callbacks run elsewhere).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) rcu_nocbs: Option<String>,
}

/// The frequency and scheduling settings of the host during the run; `None` where the
/// machine does not expose the setting (unknown, not off).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub(crate) struct Tuning {
    /// The cpufreq governor (`performance`, `powersave`, `schedutil`, …); when the
    /// CPUs differ, each value with its CPUs (`performance (cpu 0-3), powersave (cpu 4-7)`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) governor: Option<String>,
    /// The cpufreq driver (`intel_pstate`, `amd-pstate-epp`, `acpi-cpufreq`, `cppc_cpufreq`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) driver: Option<String>,
    /// Whether boost/turbo is allowed: `cpufreq/boost` = 1, or `intel_pstate/no_turbo` = 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) boost: Option<bool>,
    /// The file `boost` was read from (under the root).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) boost_file: Option<String>,
    /// The p-state driver's mode: `intel_pstate active`, `amd-pstate guided`, ….
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) pstate: Option<String>,
    /// SMT control (`on`, `off`, `forceoff`, `notsupported`, `notimplemented`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) smt: Option<String>,
    /// Whether SMT siblings are active (`smt/active` = 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) smt_active: Option<bool>,
    /// The isolation parameters; `None` where `/proc/cmdline` was not readable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) isolation: Option<Isolation>,
}

/// The word a setting shows when the machine does not expose it.
pub(crate) const UNKNOWN: &str = "unknown";

fn read(p: &Path) -> Option<String> {
    let s = std::fs::read_to_string(p).ok()?;
    let s = s.trim();
    (!s.is_empty()).then(|| s.to_string())
}

fn flag(p: &Path) -> Option<bool> {
    match read(p)?.as_str() {
        "1" => Some(true),
        "0" => Some(false),
        _ => None,
    }
}

/// The CPU numbers `cpuN` under `sys/devices/system/cpu`, sorted.
fn cpus(cpu_dir: &Path) -> Vec<usize> {
    let mut out: Vec<usize> = std::fs::read_dir(cpu_dir)
        .map(|d| {
            d.filter_map(|e| {
                e.ok()?
                    .file_name()
                    .to_str()?
                    .strip_prefix("cpu")?
                    .parse()
                    .ok()
            })
            .collect()
        })
        .unwrap_or_default();
    out.sort_unstable();
    out
}

/// One value, or each value with its CPUs when they differ.
fn per_cpu(values: &[(usize, String)]) -> Option<String> {
    let (_, first) = values.first()?;
    if values.iter().all(|(_, v)| v == first) {
        return Some(first.clone());
    }
    let mut groups: Vec<(String, Vec<usize>)> = Vec::new();
    for (c, v) in values {
        match groups.iter_mut().find(|(g, _)| g == v) {
            Some((_, cs)) => cs.push(*c),
            None => groups.push((v.clone(), vec![*c])),
        }
    }
    Some(
        groups
            .iter()
            .map(|(v, cs)| format!("{v} (cpu {})", crate::hw::clock_kinds::cpu_list(cs)))
            .collect::<Vec<_>>()
            .join(", "),
    )
}

/// The isolation parameters of a kernel command line.
pub(crate) fn parse_cmdline(text: &str) -> Isolation {
    let mut iso = Isolation::default();
    for w in text.split_whitespace() {
        // Arguments after `--` go to init, not to the kernel.
        if w == "--" {
            break;
        }
        let Some((k, v)) = w.split_once('=') else {
            continue;
        };
        let slot = match k {
            "isolcpus" => &mut iso.isolcpus,
            "nohz_full" => &mut iso.nohz_full,
            "rcu_nocbs" => &mut iso.rcu_nocbs,
            _ => continue,
        };
        // The last one wins, as in the kernel's own parsing.
        *slot = Some(v.to_string());
    }
    iso
}

impl Tuning {
    /// Reads the settings under `root`.
    pub(crate) fn read(root: &Path) -> Tuning {
        let cpu = root.join("sys/devices/system/cpu");
        let mut governors = Vec::new();
        let mut drivers = Vec::new();
        for c in cpus(&cpu) {
            let f = cpu.join(format!("cpu{c}/cpufreq"));
            if let Some(g) = read(&f.join("scaling_governor")) {
                governors.push((c, g));
            }
            if let Some(d) = read(&f.join("scaling_driver")) {
                drivers.push((c, d));
            }
        }
        // intel_pstate says "no turbo"; acpi-cpufreq and amd-pstate say "boost" (global
        // or, since Linux 6.11, per policy).
        let boost_files = [
            ("intel_pstate/no_turbo", true),
            ("cpufreq/boost", false),
            ("cpufreq/policy0/boost", false),
        ];
        let (boost, boost_file) = boost_files
            .iter()
            .find_map(|(f, inverted)| {
                flag(&cpu.join(f)).map(|b| {
                    (
                        Some(b != *inverted),
                        Some(format!("/sys/devices/system/cpu/{f}")),
                    )
                })
            })
            .unwrap_or((None, None));
        let pstate = [
            ("intel_pstate", "intel_pstate"),
            ("amd_pstate", "amd-pstate"),
        ]
        .iter()
        .find_map(|(dir, name)| read(&cpu.join(dir).join("status")).map(|m| format!("{name} {m}")));
        Tuning {
            governor: per_cpu(&governors),
            driver: per_cpu(&drivers),
            boost,
            boost_file,
            pstate,
            smt: read(&cpu.join("smt/control")),
            smt_active: flag(&cpu.join("smt/active")),
            isolation: std::fs::read_to_string(root.join("proc/cmdline"))
                .ok()
                .map(|t| parse_cmdline(&t)),
        }
    }

    /// This machine's settings (read once per run, with the rest of `HostInfo`).
    pub(crate) fn detect() -> Tuning {
        Tuning::read(Path::new("/"))
    }

    /// Whether the machine exposes no cpufreq setting at all (no governor, driver,
    /// boost or p-state mode): said once instead of four unknowns.
    pub(crate) fn no_cpufreq(&self) -> bool {
        self.governor.is_none()
            && self.driver.is_none()
            && self.boost.is_none()
            && self.pstate.is_none()
    }

    /// Every setting as `name, value` (`unknown` where not exposed, `none` for an
    /// isolation parameter the command line does not set): what `compare` matches.
    pub(crate) fn pairs(&self) -> Vec<(&'static str, String)> {
        let s = |v: &Option<String>| v.clone().unwrap_or_else(|| UNKNOWN.into());
        let onoff = |v: Option<bool>| match v {
            Some(true) => "on".to_string(),
            Some(false) => "off".to_string(),
            None => UNKNOWN.into(),
        };
        let iso = |f: fn(&Isolation) -> &Option<String>| match &self.isolation {
            Some(i) => f(i).clone().unwrap_or_else(|| "none".into()),
            None => UNKNOWN.into(),
        };
        vec![
            ("governor", s(&self.governor)),
            ("cpufreq driver", s(&self.driver)),
            ("boost", onoff(self.boost)),
            ("p-state mode", s(&self.pstate)),
            ("SMT", s(&self.smt)),
            ("SMT active", onoff(self.smt_active)),
            ("isolcpus", iso(|i| &i.isolcpus)),
            ("nohz_full", iso(|i| &i.nohz_full)),
            ("rcu_nocbs", iso(|i| &i.rcu_nocbs)),
        ]
    }

    /// One line for a report's header and `sysinfo`: `governor performance
    /// (intel_pstate), boost on, intel_pstate active, SMT on (active), isolcpus 2-3`.
    /// Without cpufreq the four frequency settings are one phrase.
    pub(crate) fn line(&self) -> String {
        let mut parts = Vec::new();
        if self.no_cpufreq() {
            parts.push("cpufreq not exposed (governor, boost and p-state mode unknown)".into());
        } else {
            let gov = self.governor.as_deref().unwrap_or(UNKNOWN);
            parts.push(match &self.driver {
                Some(d) => format!("governor {gov} ({d})"),
                None => format!("governor {gov}"),
            });
            parts.push(format!(
                "boost {}",
                match self.boost {
                    Some(true) => "on",
                    Some(false) => "off",
                    None => UNKNOWN,
                }
            ));
            if let Some(p) = &self.pstate {
                parts.push(p.clone());
            }
        }
        parts.push(match (&self.smt, self.smt_active) {
            (Some(c), Some(a)) => {
                format!("SMT {c} ({})", if a { "active" } else { "inactive" })
            }
            (Some(c), None) => format!("SMT {c}"),
            (None, _) => format!("SMT {UNKNOWN}"),
        });
        match &self.isolation {
            None => parts.push(format!("isolation {UNKNOWN}")),
            Some(i) => {
                let set: Vec<String> = [
                    ("isolcpus", &i.isolcpus),
                    ("nohz_full", &i.nohz_full),
                    ("rcu_nocbs", &i.rcu_nocbs),
                ]
                .iter()
                .filter_map(|(k, v)| v.as_ref().map(|v| format!("{k}={v}")))
                .collect();
                parts.push(if set.is_empty() {
                    "no CPU isolation".into()
                } else {
                    set.join(" ")
                });
            }
        }
        parts.join(", ")
    }
}

#[cfg(test)]
#[path = "tuning_tests.rs"]
mod tests;
