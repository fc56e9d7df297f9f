//! Recording a report: the host's fingerprint, the run with its settings and whole
//! JSON, and one row per case with its raw samples and verdicts, in one transaction.
//!
//! A run is identified by the SHA-256 of its report's JSON (`runs.digest`): the same
//! report recorded twice (a run's own hook, then `history import` of its file, or one
//! file imported twice) is one run.
//!
//! What a file cannot do to the database (issue #43 items 2 and 3): each distinct text
//! of the cases is stored once (`texts`), one run adds at most [`Limits`] (bytes and
//! cases), and a report with a figure no machine could measure
//! (`report::physics::check_report`) is refused; each is one line, nothing written.

use super::{why, History, HistoryError};
use crate::report::compare::CaseKey;
use crate::report::model::{NoteKind, Report, Status};
use rusqlite::{params, OptionalExtension};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use std::collections::{HashMap, HashSet};
use std::path::Path;

pub(crate) use super::limits::{Limits, FUTURE_SLACK_S};

/// Seconds by which `report` starts after `now` (Unix), when that is more than
/// [`FUTURE_SLACK_S`]: a run dated in the future.
pub(crate) fn ahead(report: &Report, now: i64) -> Option<i64> {
    let d = unix(&report.started_at) - now;
    (d > FUTURE_SLACK_S).then_some(d)
}

/// Now, in Unix seconds.
pub(crate) fn now_unix() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

/// One case as recorded: its texts (stored once each in `texts`) and its figures.
struct CaseRow {
    texts: [String; 8],
    value: Option<f64>,
    median: Option<f64>,
    sd: Option<f64>,
    n: i64,
    peak: Option<f64>,
    efficiency: Option<f64>,
    over_peak: bool,
    disturbed: bool,
    high_cv: bool,
    samples: String,
}

/// The cases of `report` as rows.
fn case_rows(report: &Report) -> Vec<CaseRow> {
    report
        .results
        .iter()
        .map(|r| {
            let status = match r.status {
                Status::Ok => "ok",
                Status::Skipped { .. } => "skipped",
                Status::Failed { .. } => "failed",
            };
            let s = r.summary.as_ref();
            CaseRow {
                texts: [
                    r.host
                        .clone()
                        .unwrap_or_else(|| report.host.hostname.clone()),
                    CaseKey::of(r).label(),
                    r.resource.to_string(),
                    r.workload.clone(),
                    r.metric.to_string(),
                    r.unit.to_string(),
                    serde_json::to_string(&r.params).unwrap_or_else(|_| "{}".into()),
                    status.to_string(),
                ],
                value: s.map(|s| s.mean),
                median: s.map(|s| s.median),
                sd: s.map(|s| s.sd),
                n: r.samples.len() as i64,
                peak: r.peak.as_ref().and_then(|p| p.value),
                efficiency: r.efficiency,
                over_peak: r.over_peak,
                disturbed: r.disturbed,
                high_cv: r.notes.iter().any(|n| n.kind == NoteKind::HighCv),
                samples: serde_json::to_string(&r.samples).unwrap_or_else(|_| "[]".into()),
            }
        })
        .collect()
}

/// Refuses a run that adds more than `limits` allow (one line, before anything is
/// written). The bytes count each distinct text once, as they are stored.
fn within(
    limits: Limits,
    json: &str,
    extra: &[&str],
    rows: &[CaseRow],
) -> Result<(), HistoryError> {
    if rows.len() > limits.cases {
        return Err(HistoryError::Refused(format!(
            "{} cases; one run adds at most {}, not recorded",
            rows.len(),
            limits.cases
        )));
    }
    let mut distinct: HashSet<&str> = HashSet::new();
    let mut bytes = json.len() + extra.iter().map(|t| t.len()).sum::<usize>();
    for r in rows {
        bytes += r.samples.len() + 8 * 16;
        for t in &r.texts {
            if distinct.insert(t) {
                bytes += t.len();
            }
        }
    }
    if bytes > limits.bytes {
        return Err(HistoryError::Refused(format!(
            "the run would add {} MiB to the history; one run adds at most {} MiB, not recorded",
            bytes.div_ceil(1 << 20),
            limits.bytes >> 20
        )));
    }
    Ok(())
}

/// What recording did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Recorded {
    /// A new run, with its id.
    New(i64),
    /// The same report was already there (its id).
    Already(i64),
}

impl Recorded {
    /// The run's id.
    pub fn id(self) -> i64 {
        match self {
            Recorded::New(i) | Recorded::Already(i) => i,
        }
    }
}

/// The options of a run that do not change what it measured (where it wrote, how it
/// printed), left out of the settings kept with it.
/// `tags` are kept in the tags table ([`run_tags`]).
const NOT_SETTINGS: &[&str] = &["format", "output", "quiet", "html", "tags"];

/// The tags a run was measured with (`--tag`: its `config.tags`), checked by
/// `util::tag`'s rule: a file whose tags break it (edited) is refused, not recorded.
pub(crate) fn run_tags(
    report: &Report,
) -> Result<std::collections::BTreeMap<String, String>, HistoryError> {
    let mut out = std::collections::BTreeMap::new();
    let Some(v) = report.config.get("tags") else {
        return Ok(out);
    };
    let bad = || {
        HistoryError::Refused(format!(
            "its config.tags is not a run's tags (at most {} of key=value text: {}), not recorded",
            crate::util::tag::MAX_TAGS,
            crate::util::tag::FORM
        ))
    };
    let m = v.as_object().ok_or_else(bad)?;
    if m.len() > crate::util::tag::MAX_TAGS {
        return Err(bad());
    }
    for (k, v) in m {
        let v = v.as_str().ok_or_else(bad)?;
        if !crate::util::tag::key_ok(k) || !crate::util::tag::value_ok(v) || v.is_empty() {
            return Err(bad());
        }
        out.insert(k.clone(), v.to_string());
    }
    Ok(out)
}

/// The settings that matter: the report's `config` without [`NOT_SETTINGS`].
pub(crate) fn settings(report: &Report) -> Value {
    match &report.config {
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(k, _)| !NOT_SETTINGS.contains(&k.as_str()))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// The command a report ran (`quick`, `cpu`, …), from its `config`.
pub(crate) fn command(report: &Report) -> String {
    report
        .config
        .get("command")
        .and_then(|c| c.get("command").or(Some(c)))
        .and_then(Value::as_str)
        .unwrap_or("unknown")
        .to_string()
}

/// The running machine's microcode revision (`microcode` in /proc/cpuinfo, x86), read
/// when a run is recorded on the machine that measured it; not in the report.
fn microcode() -> Option<String> {
    let text = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    text.lines()
        .find(|l| l.starts_with("microcode"))
        .and_then(|l| l.split_once(':'))
        .map(|(_, v)| v.trim().to_string())
}

/// The host's identity: what, when it changes, can change the figures.
pub(crate) fn identity(report: &Report, microcode: Option<String>) -> Value {
    let h = &report.host;
    let c = &h.cpu;
    json!({
        "hostname": h.hostname,
        "cpu": {
            "vendor": c.vendor, "model_name": c.model_name, "family": c.family,
            "model": c.model, "stepping": c.stepping, "microarch": c.microarch,
            "sockets": c.sockets, "cores": c.cores, "threads": c.threads,
        },
        "microcode": microcode,
        "kernel": h.kernel,
        "os": h.os,
        "arch": h.arch,
        "virtualization": h.virtualization,
        "memory": {
            "total_bytes": h.memory.total_bytes,
            "thp": h.memory.thp,
            "dimms": h.memory.dimms.iter().map(|d| json!({
                "size_bytes": d.size_bytes, "speed_mts": d.speed_mts,
                "data_width_bits": d.data_width_bits,
            })).collect::<Vec<_>>(),
        },
        "tool_version": report.tool_version,
    })
}

fn hex(d: impl AsRef<[u8]>) -> String {
    d.as_ref().iter().map(|b| format!("{b:02x}")).collect()
}

/// Unix seconds of an RFC 3339 time (0 when it does not parse).
pub(crate) fn unix(t: &str) -> i64 {
    humantime::parse_rfc3339_weak(t)
        .ok()
        .and_then(|s| s.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_secs() as i64)
}

/// The identity of a report in the database (`runs.digest`): the SHA-256 of its JSON.
pub(crate) fn digest(report: &Report) -> Result<String, serde_json::Error> {
    Ok(hex(Sha256::digest(
        serde_json::to_string(report)?.as_bytes(),
    )))
}

impl History {
    /// The id of the run recorded from `report` (the same report, by its digest), if
    /// it is in the database.
    pub fn find(&self, report: &Report) -> Result<Option<i64>, HistoryError> {
        let Ok(d) = digest(report) else {
            return Ok(None);
        };
        self.conn
            .query_row("SELECT id FROM runs WHERE digest = ?1", [&d], |r| r.get(0))
            .optional()
            .map_err(|e| HistoryError::Sqlite(self.shown.clone(), why(&e)))
    }

    /// Records a run on the machine that just measured it (its microcode is read now).
    pub fn record_live(
        &mut self,
        report: &Report,
        source: Option<&Path>,
    ) -> Result<Recorded, HistoryError> {
        self.record(report, source, microcode())
    }

    /// Records a report read from a file (`history import`): the microcode of the
    /// machine that measured it is not known.
    pub fn record_file(
        &mut self,
        report: &Report,
        source: Option<&Path>,
    ) -> Result<Recorded, HistoryError> {
        self.record(report, source, None)
    }

    fn record(
        &mut self,
        report: &Report,
        source: Option<&Path>,
        microcode: Option<String>,
    ) -> Result<Recorded, HistoryError> {
        crate::report::physics::check_report(report).map_err(|e| {
            HistoryError::Refused(format!(
                "{e}; such a figure is not a measurement (a corrupted or edited file), not recorded"
            ))
        })?;
        let shown = self.shown.clone();
        let err = |e: rusqlite::Error| HistoryError::Sqlite(shown.clone(), why(&e));
        let json = serde_json::to_string(report)
            .map_err(|e| HistoryError::Sqlite(self.shown.clone(), e.to_string()))?;
        let digest = hex(Sha256::digest(json.as_bytes()));
        let ident = identity(report, microcode).to_string();
        let settings = settings(report).to_string();
        let tags = run_tags(report)?;
        let rows = case_rows(report);
        within(
            self.limits,
            &json,
            &[&ident, &settings, &report.host.hostname],
            &rows,
        )?;
        let tx = super::error::write_tx(&mut self.conn, &shown)?;
        if let Some(id) = tx
            .query_row("SELECT id FROM runs WHERE digest = ?1", [&digest], |r| {
                r.get::<_, i64>(0)
            })
            .optional()
            .map_err(err)?
        {
            return Ok(Recorded::Already(id));
        }
        let fingerprint = hex(Sha256::digest(ident.as_bytes()));
        tx.execute(
            "INSERT OR IGNORE INTO hosts (fingerprint, hostname, identity) VALUES (?1, ?2, ?3)",
            params![fingerprint, report.host.hostname, ident],
        )
        .map_err(err)?;
        let host_id: i64 = tx
            .query_row(
                "SELECT id FROM hosts WHERE fingerprint = ?1",
                [&fingerprint],
                |r| r.get(0),
            )
            .map_err(err)?;
        let now = humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string();
        tx.execute(
            "INSERT INTO runs (digest, host_id, hostname, command, started_at, started_unix,
                               finished_at, tool_version, settings, gathered, source,
                               recorded_at, report)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
            params![
                digest,
                host_id,
                report.host.hostname,
                command(report),
                report.started_at,
                unix(&report.started_at),
                report.finished_at,
                report.tool_version,
                settings,
                !report.hosts.is_empty(),
                source.map(|p| p.display().to_string()),
                now,
                json,
            ],
        )
        .map_err(err)?;
        let run_id = tx.last_insert_rowid();
        for (k, v) in &tags {
            tx.execute(
                "INSERT INTO tags (run_id, key, value) VALUES (?1, ?2, ?3)",
                params![run_id, k, v],
            )
            .map_err(err)?;
        }
        {
            let mut ids: HashMap<&str, i64> = HashMap::new();
            let mut add = tx
                .prepare("INSERT OR IGNORE INTO texts (text) VALUES (?1)")
                .map_err(err)?;
            let mut get = tx
                .prepare("SELECT id FROM texts WHERE text = ?1")
                .map_err(err)?;
            let mut st = tx
                .prepare(
                    "INSERT INTO case_rows (run_id, idx, host_t, key_t, resource_t, workload_t,
                                            metric_t, unit_t, params_t, status_t, value, median,
                                            sd, n, peak, efficiency, over_peak, disturbed,
                                            high_cv, samples)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15,
                             ?16, ?17, ?18, ?19, ?20)",
                )
                .map_err(err)?;
            for (i, r) in rows.iter().enumerate() {
                let mut t = [0i64; 8];
                for (slot, text) in t.iter_mut().zip(&r.texts) {
                    *slot = match ids.get(text.as_str()) {
                        Some(&id) => id,
                        None => {
                            add.execute([text]).map_err(err)?;
                            let id: i64 = get.query_row([text], |r| r.get(0)).map_err(err)?;
                            ids.insert(text, id);
                            id
                        }
                    };
                }
                st.execute(params![
                    run_id,
                    i as i64,
                    t[0],
                    t[1],
                    t[2],
                    t[3],
                    t[4],
                    t[5],
                    t[6],
                    t[7],
                    r.value,
                    r.median,
                    r.sd,
                    r.n,
                    r.peak,
                    r.efficiency,
                    r.over_peak,
                    r.disturbed,
                    r.high_cv,
                    r.samples,
                ])
                .map_err(err)?;
            }
        }
        tx.commit().map_err(err)?;
        Ok(Recorded::New(run_id))
    }
}
