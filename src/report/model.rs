//! The one results model (DESIGN.md §2, schema `peakbench/2`). Every exporter reads only
//! this; the JSON form of [`Report`] is the source of truth, and the table, CSV, Markdown
//! and HTML are views of it that never compute numbers of their own.
//!
//! Conventions:
//! - [`ResourceName`], [`Metric`] and [`Unit`] are rows of data (`report::kinds`): a
//!   resource's name with its facts, and the units' table; JSON writes them as the same
//!   strings as ever (`memory`, `throughput`, `B/s`).
//! - `params` uses the command-line flag names (`threads`, `precision`, `isa`, …). Every
//!   byte size (the keys in [`SIZE_PARAMS`]) is a number of bytes; only the views turn
//!   it into `8KiB`. `peakbench/1` wrote memory sizes as text (`"7.81KiB"`): `load`
//!   converts them.
//! - A note is a [`Note`]: its [`NoteKind`] says what it is (a warning, the over-peak
//!   flag, a reference tool's remark), so no reader tests the text.
//! - `efficiency` = `summary.mean / peak.value`, and `peak.value / summary.mean` for a
//!   lower-is-better metric (a latency against its floor, issue #48: [`efficiency`]); a
//!   figure above its peak keeps its value and sets `over_peak` (it is a configuration
//!   or table error to investigate, never clamped).
//! - Non-finite numbers never reach the model: a case that cannot produce a finite
//!   figure is `failed` with the error.

use crate::hw::peak::Peak;
use crate::hw::HostInfo;
use crate::measure::{Percentiles, SampleShare, Summary};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

pub(crate) use super::efficiency::efficiency;
pub use super::efficiency::PeakClock;
pub use super::kinds::{Metric, ResourceName, Unit};

/// The schema identifier written into every report.
pub(crate) const SCHEMA: &str = "peakbench/2";

/// The previous schema, still read (and converted) by `report` and `compare`.
pub(crate) const SCHEMA_V1: &str = "peakbench/1";

/// A whole run.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Report {
    /// Always [`SCHEMA`].
    pub schema: String,
    /// peakbench version that wrote the report.
    pub tool_version: String,
    /// UTC start time, RFC 3339.
    pub started_at: String,
    /// UTC finish time, RFC 3339 (`None` while the run is in progress).
    pub finished_at: Option<String>,
    /// The machine.
    pub host: HostInfo,
    /// The effective options of the run.
    pub config: serde_json::Value,
    /// One entry per measured case, in run order.
    pub results: Vec<BenchResult>,
    /// The hosts of a gathered run (MPI: one per host, rank 0 writes the report); each
    /// result then names its host in [`BenchResult::host`]. Empty for a one-host run,
    /// and absent from its JSON (a file without it is a one-host run).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hosts: Vec<HostRun>,
    /// How much of the run was the machine's own (`report::quality`), set when a
    /// measuring run finishes; absent from files written before it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_quality: Option<RunQuality>,
}

/// One host of a gathered run.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct HostRun {
    /// The name its results carry in [`BenchResult::host`] (the hostname, or the
    /// `PEAKBENCH_HOST_ID` override).
    pub name: String,
    /// The ranks that ran on it; the first ran the suite.
    pub ranks: Vec<usize>,
    /// Its hardware, as it detected it (`None` when it never answered).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub info: Option<HostInfo>,
    /// `ok`, or `failed` with what went wrong (a rank that died or did not answer in
    /// time): a partial report names it rather than hanging.
    pub status: Status,
}

/// What a note is, so that readers act on the kind and never on the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NoteKind {
    /// A convention, a setting or context worth reading next to the figure.
    Info,
    /// Something that makes the figure less certain (oversubscribed threads, a moving
    /// clock, lost datagrams).
    Warning,
    /// The samples spread more than [`CV_WARN`]; shown live during the run.
    HighCv,
    /// The mean exceeds the theoretical peak; shown live and flagged in every view.
    OverPeak,
    /// From a reference tool run next to the case (its remark or its failure).
    Reference,
    /// The machine was not the benchmark's own: a worker thread lost its core or the
    /// host stole time (`shared machine: …`, see [`BenchResult::disturbed`]).
    Shared,
}

/// A remark attached to a result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "NoteRepr")]
pub struct Note {
    /// What it is.
    pub kind: NoteKind,
    /// The sentence for the reader.
    pub text: String,
}

/// A note as read: `{kind, text}`, or a bare string as `peakbench/1` wrote it (the
/// kind then inferred with [`Note::infer`]).
#[derive(Deserialize)]
#[serde(untagged)]
enum NoteRepr {
    Typed { kind: NoteKind, text: String },
    Text(String),
}

impl From<NoteRepr> for Note {
    fn from(r: NoteRepr) -> Note {
        match r {
            NoteRepr::Typed { kind, text } => Note { kind, text },
            NoteRepr::Text(text) => Note::infer(text),
        }
    }
}

impl Note {
    /// A note of `kind`.
    pub(crate) fn new(kind: NoteKind, text: impl Into<String>) -> Note {
        Note {
            kind,
            text: text.into(),
        }
    }

    /// An [`NoteKind::Info`] note.
    pub(crate) fn info(text: impl Into<String>) -> Note {
        Note::new(NoteKind::Info, text)
    }

    /// A [`NoteKind::Warning`] note.
    pub(crate) fn warning(text: impl Into<String>) -> Note {
        Note::new(NoteKind::Warning, text)
    }

    /// The note a `peakbench/1` file holds as bare text, its kind read from the prefixes
    /// that version wrote (`CV …`, `OVER PEAK …`, `reference <tool>: …`,
    /// `oversubscribed: …`, `clock moved …`); anything else is `info`.
    pub(crate) fn infer(text: String) -> Note {
        let kind = if text.starts_with("CV ") {
            NoteKind::HighCv
        } else if text.starts_with("OVER PEAK") {
            NoteKind::OverPeak
        } else if text.starts_with("reference ") {
            NoteKind::Reference
        } else if text.starts_with("oversubscribed:") || text.starts_with("clock moved") {
            NoteKind::Warning
        } else {
            NoteKind::Info
        };
        Note { kind, text }
    }

    /// Whether the run shows it live, as it happens (high CV, over peak).
    pub(crate) fn is_live_warning(&self) -> bool {
        matches!(
            self.kind,
            NoteKind::HighCv | NoteKind::OverPeak | NoteKind::Shared
        )
    }
}

impl fmt::Display for Note {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// Parameters whose numbers are byte sizes: the views print them in binary units
/// (`block=8KiB`), and `peakbench/1` files may hold them as text. Text under one of
/// these keys that is no size stays text (memory's `bytes: "stream"` names the counting
/// convention; GPU's `bytes` is a number of bytes).
pub(crate) const SIZE_PARAMS: [&str; 5] = ["block", "size", "file_size", "msg", "bytes"];

/// Whether the parameter `key` is a byte size (see [`SIZE_PARAMS`]).
pub(crate) fn is_size_param(key: &str) -> bool {
    SIZE_PARAMS.contains(&key)
}

/// The value of one case parameter.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Param {
    /// A switch (`nt`, `direct`, `zerocopy`).
    Bool(bool),
    /// A count, or a number of bytes under a [`SIZE_PARAMS`] key.
    Int(u64),
    /// Any other number.
    Float(f64),
    /// A name (`precision`, `pattern`, `engine`, …).
    Text(String),
}

impl Param {
    /// The whole number, if it is one.
    pub(crate) fn as_u64(&self) -> Option<u64> {
        match self {
            Param::Int(n) => Some(*n),
            _ => None,
        }
    }

    /// The text, if it is text.
    pub(crate) fn as_str(&self) -> Option<&str> {
        match self {
            Param::Text(s) => Some(s),
            _ => None,
        }
    }
}

impl fmt::Display for Param {
    /// Plain: numbers as JSON writes them, text as it is (the views format sizes).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Param::Bool(b) => write!(f, "{b}"),
            Param::Int(n) => write!(f, "{n}"),
            Param::Float(x) => match serde_json::Number::from_f64(*x) {
                Some(n) => write!(f, "{n}"),
                None => write!(f, "{x}"),
            },
            Param::Text(s) => f.write_str(s),
        }
    }
}

macro_rules! param_from {
    ($($t:ty => $v:ident as $as:ty,)+) => {
        $(impl From<$t> for Param {
            fn from(x: $t) -> Param {
                Param::$v(x as $as)
            }
        })+
    };
}

param_from! {
    u8 => Int as u64,
    u16 => Int as u64,
    u32 => Int as u64,
    u64 => Int as u64,
    usize => Int as u64,
    f64 => Float as f64,
}

impl From<bool> for Param {
    fn from(b: bool) -> Param {
        Param::Bool(b)
    }
}

impl From<&str> for Param {
    fn from(s: &str) -> Param {
        Param::Text(s.to_string())
    }
}

impl From<String> for Param {
    fn from(s: String) -> Param {
        Param::Text(s)
    }
}

impl From<i32> for Param {
    fn from(x: i32) -> Param {
        Param::from(i64::from(x))
    }
}

impl From<i64> for Param {
    fn from(x: i64) -> Param {
        match u64::try_from(x) {
            Ok(n) => Param::Int(n),
            Err(_) => Param::Float(x as f64),
        }
    }
}

/// Outcome of a case.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Measured.
    Ok,
    /// Not run, e.g. the CPU lacks the instructions or the OS refused them.
    Skipped {
        /// Why.
        reason: String,
    },
    /// Tried and failed.
    Failed {
        /// What went wrong.
        error: String,
    },
}

/// A figure from a reference tool, next to ours.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Reference {
    /// Tool name, e.g. `likwid-bench`.
    pub tool: String,
    /// Tool version.
    pub version: String,
    /// The exact command that was run.
    pub command: String,
    /// Its figure, converted to `unit`.
    pub value: f64,
    /// Unit of `value` (the case's unit).
    pub unit: Unit,
}

/// One measured case.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct BenchResult {
    /// What was measured.
    pub resource: ResourceName,
    /// The kernel or workload name, e.g. `fma_f64_avx512`.
    pub workload: String,
    /// Case parameters under their flag names; sizes in bytes (see [`SIZE_PARAMS`]).
    pub params: BTreeMap<String, Param>,
    /// The kind of figure.
    pub metric: Metric,
    /// Unit of the samples and summary.
    pub unit: Unit,
    /// Every timed sample (warm-up excluded).
    pub samples: Vec<f64>,
    /// Statistics of `samples`; `None` unless the status is `ok`.
    pub summary: Option<Summary>,
    /// Latency percentiles, for latency metrics.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub percentiles: Option<Percentiles>,
    /// UDP datagrams lost of those sent (network UDP throughput), counted as iperf3
    /// counts them. Absent elsewhere and from files written before it existed (see
    /// [`BenchResult::udp_loss`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loss: Option<Loss>,
    /// `(seconds since start, value)` for sustained runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeseries: Option<Vec<(f64, f64)>>,
    /// Theoretical peak with provenance.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peak: Option<Peak>,
    /// `summary.mean / peak.value`; `peak.value / summary.mean` for a lower-is-better
    /// metric (latency), see [`efficiency`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub efficiency: Option<f64>,
    /// True when the mean exceeds the theoretical peak.
    #[serde(default)]
    pub over_peak: bool,
    /// Core clock measured around the run (CPU cases), Hz.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock_hz: Option<f64>,
    /// Reference tools' figures for the same case.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference: Option<Vec<Reference>>,
    /// Warnings and conventions worth reading next to the figure (e.g. high CV).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<Note>,
    /// ok, skipped or failed.
    pub status: Status,
    /// Both ends of a client/server case (network): `local` and `remote`, each with
    /// its role and raw counts; `remote` also carries the peer's HostInfo as it sent it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ends: Option<serde_json::Value>,
    /// The host that measured it, in a gathered run ([`Report::hosts`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    /// Per sample, in the order of `samples`: what each worker thread had of its core
    /// during the timed window and the host's figures over it (steal, CPU pressure,
    /// runnable tasks). Absent from files written before it existed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub share: Vec<SampleShare>,
    /// True when the samples were disturbed (`measure::share::result_disturbed`: a
    /// worker thread had less than `measure::share::MIN_SHARE` of its core over them,
    /// or the windows saw steal), or the case started while other threads of the
    /// process were busy, or (window figures only) the host stole time. The figure is
    /// then weaker evidence (`~` in the tables; `compare` says "disturbed", never
    /// "worse"), and a `shared machine:` warning says which thread lost how much.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub disturbed: bool,
    /// The host's figures over the whole case (steal, CPU pressure, runnable tasks),
    /// for resources that have no per-sample figures in `share` (disk, net, GPU,
    /// linalg's GEMM and LU).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<SampleShare>,
    /// `--until-stable`: the samples left out of `samples` because they were
    /// disturbed, each with its value and why.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dropped: Vec<Dropped>,
    /// The sustained clock the peak was computed at, Hz (CPU and linalg cases): the
    /// host's all-core reading or the highest clean reading of the run, whichever is
    /// higher; `clock_hz` is what the case measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sustained_hz: Option<f64>,
    /// `--clock` (issue #48): which clock the peak was computed at and its value, only
    /// when the flag was given (without it the peak is at the measured clock, as ever).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peak_clock: Option<PeakClock>,
    /// Energy per domain kind (`package`, `dram`, `gpu`): joules per sample, watts, and
    /// the figure per watt (#47 item 4, `report::energy`); absent without counters.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) energy: Vec<crate::measure::energy::RowEnergy>,
}

/// Datagrams lost in a UDP test: sent by the sender, not received by the receiver.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
pub struct Loss {
    /// Datagrams sent and never received.
    pub lost: u64,
    /// Datagrams sent.
    pub sent: u64,
}

impl Loss {
    /// The share lost, 0 to 1 (0 when nothing was sent).
    pub(crate) fn fraction(&self) -> f64 {
        if self.sent == 0 {
            0.0
        } else {
            self.lost as f64 / self.sent as f64
        }
    }
}

/// A sample `--until-stable` left out.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Dropped {
    /// Its figure, in the result's unit.
    pub value: f64,
    /// Why it was left out (which thread lost how much of its core, or steal).
    pub why: String,
}

/// Coefficient of variation above which a result carries a warning (DESIGN.md §3).
pub(crate) const CV_WARN: f64 = 0.05;

impl BenchResult {
    /// The UDP loss of this result: its `loss`, or for a file written before that
    /// field existed, the counts of its `UDP: N of M datagrams lost` note.
    pub(crate) fn udp_loss(&self) -> Option<Loss> {
        if self.loss.is_some() {
            return self.loss;
        }
        self.notes.iter().find_map(|n| {
            let rest = n.text.strip_prefix("UDP: ")?;
            let (lost, rest) = rest.split_once(" of ")?;
            let (sent, _) = rest.split_once(" datagrams lost")?;
            Some(Loss {
                lost: lost.trim().parse().ok()?,
                sent: sent.trim().parse().ok()?,
            })
        })
    }

    /// A new result with no samples yet (status ok until told otherwise).
    pub(crate) fn new(
        resource: ResourceName,
        workload: &str,
        metric: Metric,
        unit: Unit,
    ) -> BenchResult {
        BenchResult {
            resource,
            workload: workload.into(),
            params: BTreeMap::new(),
            metric,
            unit,
            samples: Vec::new(),
            summary: None,
            percentiles: None,
            loss: None,
            timeseries: None,
            peak: None,
            efficiency: None,
            over_peak: false,
            clock_hz: None,
            reference: None,
            notes: Vec::new(),
            status: Status::Ok,
            ends: None,
            host: None,
            share: Vec::new(),
            disturbed: false,
            window: None,
            dropped: Vec::new(),
            sustained_hz: None,
            peak_clock: None,
            energy: Vec::new(),
        }
    }

    /// Adds a parameter under its flag name (a byte size goes through [`Self::size`]).
    pub(crate) fn param(mut self, name: &str, value: impl Into<Param>) -> BenchResult {
        let value = value.into();
        // A size under a size key is a number (`.size`); text there names something
        // else (memory's `bytes: "stream"`, the counting convention).
        debug_assert!(
            !(is_size_param(name)
                && value
                    .as_str()
                    .is_some_and(|s| crate::util::units::parse_size(s).is_ok())),
            "size parameter '{name}' given as text"
        );
        self.params.insert(name.into(), value);
        self
    }

    /// Adds a byte-size parameter (a key of [`SIZE_PARAMS`]), a number of bytes.
    pub(crate) fn size(mut self, name: &str, bytes: u64) -> BenchResult {
        debug_assert!(is_size_param(name), "'{name}' is not in SIZE_PARAMS");
        self.params.insert(name.into(), Param::Int(bytes));
        self
    }

    /// A whole-number parameter (counts, sizes in bytes).
    pub(crate) fn param_u64(&self, key: &str) -> Option<u64> {
        self.params.get(key)?.as_u64()
    }

    /// A text parameter.
    pub(crate) fn param_str(&self, key: &str) -> Option<&str> {
        self.params.get(key)?.as_str()
    }

    /// A switch parameter.
    pub(crate) fn param_bool(&self, key: &str) -> Option<bool> {
        match self.params.get(key)? {
            Param::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// Adds an [`NoteKind::Info`] note.
    pub(crate) fn info(&mut self, text: impl Into<String>) {
        self.notes.push(Note::info(text));
    }

    /// Adds a [`NoteKind::Warning`] note.
    pub(crate) fn warn(&mut self, text: impl Into<String>) {
        self.notes.push(Note::warning(text));
    }

    /// Marks the result skipped.
    pub(crate) fn skipped(mut self, reason: impl Into<String>) -> BenchResult {
        self.status = Status::Skipped {
            reason: reason.into(),
        };
        self
    }

    /// Marks the result failed.
    pub(crate) fn failed(mut self, error: impl Into<String>) -> BenchResult {
        self.status = Status::Failed {
            error: error.into(),
        };
        self
    }

    /// Sets the samples, computing the summary and the CV warning; a non-finite or empty
    /// sample set turns the result into `failed`.
    pub(crate) fn with_samples(mut self, samples: Vec<f64>) -> BenchResult {
        match Summary::of(&samples) {
            Ok(s) => {
                if s.cv > CV_WARN {
                    self.notes.push(Note::new(NoteKind::HighCv, format!(
                        "CV {:.1} % > {:.0} %: the machine was noisy or the case too short; consider --repeat or --min-time",
                        s.cv * 100.0,
                        CV_WARN * 100.0
                    )));
                }
                self.summary = Some(s);
                self.samples = samples;
            }
            Err(e) => {
                self.status = Status::Failed {
                    error: format!("no usable samples: {e}"),
                };
            }
        }
        self
    }

    /// Sets the peak and derives efficiency and the over-peak flag from the mean.
    pub(crate) fn with_peak(mut self, peak: Peak) -> BenchResult {
        if let (Some(s), Some(p)) = (&self.summary, peak.value) {
            if let Some(e) = efficiency(self.metric, s.mean, p) {
                self.efficiency = Some(e);
                self.over_peak = e > 1.0;
                if self.over_peak {
                    let text = super::efficiency::over_peak_text(
                        self.metric,
                        self.unit,
                        (s.mean, p),
                        &peak.source,
                    );
                    self.notes.push(Note::new(NoteKind::OverPeak, text));
                }
            }
        }
        self.peak = Some(peak);
        self
    }

    /// Whether the status is `ok`.
    pub(crate) fn is_ok(&self) -> bool {
        self.status == Status::Ok
    }
}

/// The run's verdict (issue #31), computed by `report::quality` at the end of a run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunQuality {
    /// `own`: no row was disturbed; `shared`: some row was (inside the guest or by
    /// host contention), and those rows are marked `~`.
    pub verdict: String,
    /// Rows measured (status ok).
    pub rows: usize,
    /// Rows disturbed inside the guest.
    pub disturbed_in_guest: usize,
    /// Rows touched by host contention (their canary fell).
    pub host_contention: usize,
    /// Probe figures kept from the table (the probe may not lower it on its readings),
    /// and rows whose case outran a probe figure and went back to the table's.
    pub probe_kept_table: usize,
    /// The verdict in one sentence, as the views print it.
    pub text: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r() -> BenchResult {
        BenchResult::new(ResourceName::Cpu, "k", Metric::Ops, Unit::FlopPerSec)
    }

    #[test]
    fn efficiency_and_over_peak_are_not_clamped() {
        let r = r().with_samples(vec![110.0, 110.0, 110.0]).with_peak(Peak {
            value: Some(100.0),
            source: "test".into(),
        });
        assert_eq!(r.efficiency, Some(1.1));
        assert!(r.over_peak);
        assert!(r.notes.iter().any(|n| n.kind == NoteKind::OverPeak));
        assert!(r.notes.iter().any(|n| n.text.starts_with("OVER PEAK")));
    }

    #[test]
    fn non_finite_fails() {
        let r = r().with_samples(vec![f64::INFINITY]);
        assert!(matches!(r.status, Status::Failed { .. }));
        assert!(r.summary.is_none());
    }

    #[test]
    fn status_json_shape() {
        let ok = serde_json::to_string(&Status::Ok).unwrap();
        assert_eq!(ok, "\"ok\"");
        let s = serde_json::to_string(&Status::Skipped { reason: "x".into() }).unwrap();
        assert_eq!(s, r#"{"skipped":{"reason":"x"}}"#);
    }

    #[test]
    fn cv_warning() {
        let r = r().with_samples(vec![1.0, 2.0, 3.0]);
        assert!(r.notes.iter().any(|n| n.kind == NoteKind::HighCv));
        assert!(r.notes.iter().all(|n| n.is_live_warning()));
    }

    #[test]
    fn names_are_the_json_strings() {
        for (v, s) in [
            (
                serde_json::to_value(ResourceName::Memory).unwrap(),
                "memory",
            ),
            (serde_json::to_value(Metric::Iops).unwrap(), "iops"),
            (serde_json::to_value(Unit::FlopPerSec).unwrap(), "FLOP/s"),
            (serde_json::to_value(Unit::Second).unwrap(), "s"),
            (
                serde_json::to_value(NoteKind::OverPeak).unwrap(),
                "over_peak",
            ),
        ] {
            assert_eq!(v, s);
        }
        for u in Unit::ALL {
            let back: Unit = serde_json::from_value(u.as_str().into()).unwrap();
            assert_eq!(back, *u);
        }
        assert!(serde_json::from_str::<Metric>("\"speed\"").is_err());
    }

    #[test]
    fn sizes_are_numbers_and_notes_are_typed_in_json() {
        let mut r = BenchResult::new(
            ResourceName::Memory,
            "read",
            Metric::Throughput,
            Unit::BytePerSec,
        )
        .size("block", 8000)
        .param("kernel", "read")
        .param("threads", 2)
        .param("nt", false);
        r.info("bytes: counted as STREAM does");
        let v = serde_json::to_value(&r).unwrap();
        assert_eq!(v["params"]["block"], 8000);
        assert_eq!(v["params"]["threads"], 2);
        assert_eq!(v["params"]["nt"], false);
        assert_eq!(v["notes"][0]["kind"], "info");
        assert_eq!(v["notes"][0]["text"], "bytes: counted as STREAM does");
        let back: BenchResult = serde_json::from_value(v).unwrap();
        assert_eq!(back, r);
        assert_eq!(back.param_u64("block"), Some(8000));
        assert_eq!(back.param_str("kernel"), Some("read"));
    }

    #[test]
    fn bare_text_notes_get_an_inferred_kind() {
        let n: Vec<Note> = serde_json::from_str(
            r#"["CV 7.0 % > 5 %: noisy", "OVER PEAK: 110.0 %", "reference fio: exit 1",
                "oversubscribed: 4 threads on 2 logical CPUs, not pinned", "bytes: 8 B",
                {"kind": "warning", "text": "x"}]"#,
        )
        .unwrap();
        let kinds: Vec<NoteKind> = n.iter().map(|n| n.kind).collect();
        use NoteKind::*;
        assert_eq!(kinds, [HighCv, OverPeak, Reference, Warning, Info, Warning]);
        assert!(serde_json::from_str::<Note>(r#"{"kind": "shout", "text": "x"}"#).is_err());
    }

    #[test]
    fn params_read_back_as_written() {
        let p: BTreeMap<String, Param> =
            serde_json::from_str(r#"{"a": 1, "b": -1, "c": 1.5, "d": true, "e": "x"}"#).unwrap();
        assert_eq!(p["a"], Param::Int(1));
        assert_eq!(p["b"], Param::Float(-1.0));
        assert_eq!(p["c"], Param::Float(1.5));
        assert_eq!(p["d"], Param::Bool(true));
        assert_eq!(p["e"], Param::Text("x".into()));
        assert_eq!(Param::Float(1.5).to_string(), "1.5");
        assert_eq!(Param::from(-3).to_string(), "-3.0");
    }
}
