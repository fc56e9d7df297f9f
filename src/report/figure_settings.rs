//! The settings of a run that change a case's figure (issue #44 item 6): what keys a
//! series of the history (`history show`) besides the case and the host. Runs that
//! differ only in where and how they wrote their output (`--format`, `--output`,
//! `--html`, `--prom-file`, `--history`, …) or in which cases they ran (the lists:
//! `--threads 1,2` runs the case `threads=1` as a `--threads 1` run does) measure the
//! same figure; runs that differ in `--repeat`, `--cpus`, `--min-time`, a command's
//! scalar option (disk `--file-size`, net `--time`) do not, and are never one series.
//! The peakbench version is not among them: a new version that changes a figure is a
//! change point to see, not another series.

use serde_json::Value;
use std::collections::BTreeMap;

/// Options that never change a figure: where and how the output goes, which history
/// records it, the peaks a figure is divided by (its efficiency, not the figure).
const NOT_FIGURE: &[&str] = &[
    "command",
    "format",
    "output",
    "quiet",
    "html",
    "reference",
    "history",
    "no_history",
    "prom_file",
    "junit",
    "width",
    "tag",
    "tags",
    "peaks",
    "dry_run",
    "tool_version",
];

/// The settings of a run's `config` (a report's, or the history's `runs.settings`)
/// that change a figure, as `key → value` (the common options' scalars and the
/// command's; lists and nulls left out).
pub(crate) fn figure_settings(config: &Value) -> BTreeMap<String, String> {
    let mut s = BTreeMap::new();
    let Some(cfg) = config.as_object() else {
        return s;
    };
    let scalar = |v: &Value| match v {
        Value::Null | Value::Array(_) | Value::Object(_) => None,
        Value::String(t) => Some(t.clone()),
        other => Some(other.to_string()),
    };
    let mut add = |k: &String, v: &Value| {
        if !NOT_FIGURE.contains(&k.as_str()) {
            if let Some(t) = scalar(v) {
                s.insert(k.clone(), t);
            }
        }
    };
    for (k, v) in cfg {
        add(k, v);
    }
    if let Some(cmd) = cfg.get("command").and_then(Value::as_object) {
        for (k, v) in cmd {
            add(k, v);
        }
    }
    s
}

/// `k=v, …` of the settings.
pub(crate) fn show(s: &BTreeMap<String, String>) -> String {
    s.iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn output_options_and_lists_are_not_figure_settings() {
        let a = json!({"format": "json", "output": "r", "repeat": 3, "min_time_s": 0.5,
                       "prom_file": "x.prom", "peaks": {},
                       "command": {"command": "cpu", "threads": [1, 2], "interval_s": 1.0}});
        let b = json!({"format": "table", "repeat": 3, "min_time_s": 0.5,
                       "command": {"command": "cpu", "threads": [1], "interval_s": 1.0}});
        assert_eq!(figure_settings(&a), figure_settings(&b));
        assert_eq!(
            show(&figure_settings(&a)),
            "interval_s=1.0, min_time_s=0.5, repeat=3"
        );
        let c = json!({"repeat": 5, "min_time_s": 0.5, "cpus": "0-3",
                       "command": {"command": "cpu", "interval_s": 1.0}});
        assert_ne!(figure_settings(&a), figure_settings(&c));
    }
}
