//! Which settings of a run change its figures (issue #44 item 6): the one rule that
//! keys a gate's reference runs (`check --against history`, `baseline --from-history`),
//! a fleet's "same settings" check and the history's series, so that a run that only
//! added `--prom-file` or `--quiet` is the same series, and a `--threads 1` run is
//! compared with the `threads=1` cases of a `--threads 1,2` run.
//!
//! A setting is one of three kinds:
//!
//! - **where or how the output goes** ([`OUTPUT_ONLY`]: `--format`, `--output`,
//!   `--quiet`, `--html`, `--reference`, `--prom-file`, `--peak`, …): never changes a
//!   measured figure, so never part of the key (`--peak` changes the peak a figure is
//!   divided by, not the figure);
//! - **which cases run** (a command's lists: `--threads 1,2`, `--precision`, `--block`,
//!   …): each case carries its own value in its parameters (`threads=1`), and cases are
//!   matched by their parameters, so the list is not part of the key either;
//! - **how each case is measured**: the peakbench version, `--repeat`, `--min-time`,
//!   `--weak`, `--until-stable`, `--cpus` (which CPUs the threads run on) and the
//!   command's scalar options: these are the key.

use super::model::Report;
use std::collections::BTreeMap;

/// The run's settings that never change a figure: where and how the output goes.
pub(crate) const OUTPUT_ONLY: [&str; 16] = [
    "command",
    "junit",
    "tag",
    "tags",
    "format",
    "output",
    "quiet",
    "html",
    "reference",
    "prom_file",
    "peaks",
    "width",
    "history",
    "no_history",
    "dry_run",
    // How often a disturbed case was measured again: the figure kept is one attempt's.
    "retries",
];

/// Lists among the run's common settings that choose how cases are measured (not
/// which cases run), written as comma-separated text in the key.
const MEASURING_LISTS: [&str; 1] = ["cpus"];

/// The settings of `rep` that can change a case's figure without showing in its
/// parameters (see the module doc), as `name → value` text: two runs whose maps are
/// equal measured their common cases the same way.
pub(crate) fn figure_settings(rep: &Report) -> BTreeMap<String, String> {
    let mut s = config_settings(&rep.config);
    s.insert("tool_version".to_string(), rep.tool_version.clone());
    s
}

/// [`figure_settings`] of a run's `config` alone (a report's, or the history's
/// `runs.settings`), without the peakbench version: the history's series span versions
/// (a new version that changes a figure is a change point to see, not another series).
pub(crate) fn config_settings(config: &serde_json::Value) -> BTreeMap<String, String> {
    let mut s = BTreeMap::new();
    let Some(cfg) = config.as_object() else {
        return s;
    };
    let scalar = |v: &serde_json::Value| match v {
        serde_json::Value::Null | serde_json::Value::Array(_) => None,
        serde_json::Value::String(t) => Some(t.clone()),
        other => Some(other.to_string()),
    };
    for (k, v) in cfg {
        if OUTPUT_ONLY.contains(&k.as_str()) {
            continue;
        }
        match v {
            serde_json::Value::Array(items) if MEASURING_LISTS.contains(&k.as_str()) => {
                let text: Vec<String> = items.iter().filter_map(scalar).collect();
                s.insert(k.clone(), text.join(","));
            }
            _ => {
                if let Some(t) = scalar(v) {
                    s.insert(k.clone(), t);
                }
            }
        }
    }
    if let Some(cmd) = cfg.get("command").and_then(|c| c.as_object()) {
        for (k, v) in cmd {
            if k != "command" {
                if let Some(t) = scalar(v) {
                    s.insert(k.clone(), t);
                }
            }
        }
    }
    s
}

/// The settings as `k=v, …` (how `history show` names a series' settings).
pub(crate) fn show(s: &BTreeMap<String, String>) -> String {
    s.iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// [`figure_settings`] as one line, `key=value` joined by spaces: how a reference's
/// key is written (the gate's accepted runs, messages).
pub(crate) fn key_text(settings: &BTreeMap<String, String>) -> String {
    settings
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(config: serde_json::Value) -> Report {
        let mut r = crate::report::samples::compare_a();
        r.config = config;
        r
    }

    #[test]
    fn output_settings_and_case_lists_are_not_the_key() {
        let base = run(serde_json::json!({
            "command": {"command": "cpu", "threads": [1, 2], "precision": ["fp64"]},
            "repeat": 3, "min_time_s": 0.5, "format": "table", "output": "results",
            "quiet": false, "scaling": "strong", "peaks": {}, "html": null,
            "reference": false
        }));
        let other = run(serde_json::json!({
            "command": {"command": "cpu", "threads": [1]},
            "repeat": 3, "min_time_s": 0.5, "format": "json", "output": "/srv/r",
            "quiet": true, "scaling": "strong", "peaks": {"fma": "1e12"}, "html": "x.html",
            "reference": true, "prom_file": "/var/lib/node_exporter/pb.prom"
        }));
        assert_eq!(figure_settings(&base), figure_settings(&other));
        let k = figure_settings(&base);
        assert_eq!(
            key_text(&k),
            "min_time_s=0.5 repeat=3 scaling=strong tool_version=0.1.0"
        );
        // How cases are measured is the key: --repeat, --cpus, a scalar option.
        for changed in [
            serde_json::json!({"command": {"command": "cpu"}, "repeat": 5, "min_time_s": 0.5, "scaling": "strong"}),
            serde_json::json!({"command": {"command": "cpu"}, "repeat": 3, "min_time_s": 0.5, "scaling": "strong", "cpus": [0, 2]}),
            serde_json::json!({"command": {"command": "cpu", "isa_only": true}, "repeat": 3, "min_time_s": 0.5, "scaling": "strong"}),
        ] {
            assert_ne!(figure_settings(&run(changed.clone())), k, "{changed}");
        }
        let c = figure_settings(&run(serde_json::json!({"cpus": [0, 2]})));
        assert_eq!(c["cpus"], "0,2");
    }

    #[test]
    fn the_history_key_has_no_version_and_drops_output_options() {
        use serde_json::json;
        let a = json!({"format": "json", "output": "r", "repeat": 3, "min_time_s": 0.5,
                       "prom_file": "x.prom", "peaks": {}, "tag": "bios",
                       "command": {"command": "cpu", "threads": [1, 2], "interval_s": 1.0}});
        let b = json!({"format": "table", "repeat": 3, "min_time_s": 0.5,
                       "command": {"command": "cpu", "threads": [1], "interval_s": 1.0}});
        assert_eq!(config_settings(&a), config_settings(&b));
        assert_eq!(
            show(&config_settings(&a)),
            "interval_s=1.0, min_time_s=0.5, repeat=3"
        );
        let c = json!({"repeat": 5, "min_time_s": 0.5, "cpus": "0-3",
                       "command": {"command": "cpu", "interval_s": 1.0}});
        assert_ne!(config_settings(&a), config_settings(&c));
    }
}
