//! The `--peak KEY=VALUE` keys (issue #16 item 7, typed in #25): [`PeakKey`], the units
//! each accepts, and [`PeakOverrides`], the user's peaks the resources look up.
//!
//! `hw::peak::parse_override` reads the number, its SI prefix and its unit; the keys are
//! the resources' own names (CPU precisions and ISAs, memory levels, GPU precisions and
//! kernels): each resource reads the keys that start with its name
//! (`bench::resource::Resource::peak_key`), and the registry (`bench::parse_peak`) asks
//! the one the key names. An unknown key, or a unit that does not fit what the key
//! measures ([`PeakKind`]), is refused before anything runs, naming the bad part and the
//! accepted form. The value is converted to the unit of the results the key applies to
//! (bit/s → B/s for bandwidths), so the resources read `PeakOverrides` without caring
//! how it was written.
//!
//! A key is parsed once, into its canonical text ([`PeakKey`]); each resource builds
//! the keys it looks up (`overrides.find`) with the same function it parses them with,
//! so a key a resource looks up and the keys accepted cannot drift apart. This file
//! imports no resource.
//!
//! The latency keys (issue #48: `memory.latency[.l1|l2|l3|dram]`, `disk.latency`,
//! `net.latency`) are one table here ([`LATENCY`]) rather than one per resource: they
//! take a time ([`PeakKind::Latency`]), and their rows' efficiency is peak / measured
//! (`report::model::efficiency`). The registry reads them before it asks the resource
//! (`bench::peak_key`), and the resources look them up with [`latency_keys`].

use crate::hw::peak::Peak;
use crate::hw::peak::{parse_override, PeakUnit};
use crate::util::usage::UsageError;
use serde::{Serialize, Serializer};
use std::collections::BTreeMap;
use std::fmt;

/// A `--peak` key: which peak a user's value replaces, as its canonical text
/// (lower-case, as accepted), e.g. `cpu.fp64.avx512`. Built by the resource the key
/// names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PeakKey(String);

impl PeakKey {
    /// The key of canonical text `text` (for the resources' key builders).
    pub(crate) fn new(text: impl Into<String>) -> PeakKey {
        PeakKey(text.into())
    }
}

/// One `--peak KEY=VALUE` as clap yields it: the key and the value in the unit of the
/// results it applies to ([`parse_peak`] read it; the command line's value parser,
/// assembled in `cli.rs` with the registry's keys, is the one place that calls it).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PeakSetting {
    /// Which peak.
    pub(crate) key: PeakKey,
    /// Its value, converted to the unit of the results.
    pub(crate) value: f64,
}

/// The value parser `CommonArgs` declares for `--peak` until `cli.rs` assembles the
/// command line with the registry's (`bench::parse_peak` reads every resource's keys,
/// and the resources sit above `bench::common`): parsed alone, `CommonArgs` refuses a
/// `--peak`, so no key is ever taken unchecked.
pub(crate) fn unassembled_peak(t: &str) -> Result<PeakSetting, crate::util::units::ParseError> {
    Err(crate::util::units::ParseError(format!(
        "'{}': the keys are read by the assembled command line (cli.rs)",
        crate::util::sanitize::line_max(t, 200)
    )))
}

/// What a key measures, which decides the units its value may carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PeakKind {
    /// Operations per second (CPU, GPU compute): FLOP/s, OP/s, IOP/s or none.
    Ops,
    /// I/O operations per second (`disk.iops`): IOP/s, OP/s or none.
    Iops,
    /// A bandwidth in bytes per second: B/s, bit/s (÷ 8) or none (B/s).
    Bytes,
    /// A link speed (`net`): bit/s, B/s, or none (bit/s, as links are rated).
    Link,
    /// A latency floor (`memory.latency`, `disk.latency`, `net.latency`): a time in s,
    /// ms, us or ns, or none (seconds).
    Latency,
}

/// The resources whose latency rows read a `--peak RESOURCE.latency=TIME` key, each
/// with the levels it also takes after it (`memory.latency.l1`), lower-case.
pub(crate) const LATENCY: [(&str, &[&str]); 3] = [
    // The memory levels of `bench::memory::Level` (a test checks they agree).
    ("memory", &["l1", "l2", "l3", "dram"]),
    ("disk", &[]),
    ("net", &[]),
];

/// The latency keys' forms, for messages: `memory.latency, memory.latency.l1|l2|l3|dram,
/// disk.latency, net.latency`.
pub(crate) fn latency_forms() -> String {
    let mut out = Vec::new();
    for (r, levels) in LATENCY {
        out.push(format!("{r}.latency"));
        if !levels.is_empty() {
            out.push(format!("{r}.latency.{}", levels.join("|")));
        }
    }
    out.join(", ")
}

/// The keys a latency row of `resource` at `level` (if it has one) looks up, most
/// specific first: `memory.latency.l2`, `memory.latency`.
pub(crate) fn latency_keys(resource: &str, level: Option<&str>) -> Vec<PeakKey> {
    let base = format!("{resource}.latency");
    let mut keys = Vec::new();
    if let Some(l) = level {
        keys.push(PeakKey::new(format!("{base}.{}", l.to_ascii_lowercase())));
    }
    keys.push(PeakKey::new(base));
    keys
}

/// Reads a latency key (lower-case, split at its dots: `first` and the `rest`):
/// `None` when it is no latency key (the resource reads it), else the key or why not.
pub(crate) fn latency_key_of(
    first: &str,
    rest: &[&str],
) -> Option<Result<(PeakKey, PeakKind), String>> {
    let (r, levels) = LATENCY.iter().find(|(r, _)| *r == first)?;
    match rest {
        ["latency"] => Some(Ok((
            PeakKey::new(format!("{r}.latency")),
            PeakKind::Latency,
        ))),
        ["latency", l] if levels.contains(l) => Some(Ok((
            PeakKey::new(format!("{r}.latency.{l}")),
            PeakKind::Latency,
        ))),
        ["latency", l, ..] => Some(Err(format!(
            "unknown key '{}': {r}.latency takes {}",
            [first]
                .iter()
                .chain(rest)
                .copied()
                .collect::<Vec<_>>()
                .join("."),
            if levels.is_empty() {
                "no level after it".to_string()
            } else {
                format!("a level {} after it, not '{l}'", levels.join("|"))
            }
        ))),
        _ => None,
    }
}

/// The canonical text of the key.
impl fmt::Display for PeakKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// User-supplied peaks (`--peak KEY=VALUE`), e.g. `cpu.fp64=3.2TFLOP/s`, `memory=68GB/s`,
/// each already converted to the unit of the results it applies to (operations per
/// second, or bytes per second for every bandwidth, `net` included). A key given twice
/// keeps its last value. Serialised as a map from each key's text to its value, in the
/// order of the texts.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct PeakOverrides(Vec<(PeakKey, f64)>);

impl PeakOverrides {
    /// Sets the peak of `key`, replacing an earlier value of the same key.
    pub(crate) fn insert(&mut self, key: PeakKey, value: f64) {
        match self.0.iter_mut().find(|(k, _)| *k == key) {
            Some(slot) => slot.1 = value,
            None => self.0.push((key, value)),
        }
    }

    /// The most specific override among `keys` (most specific first).
    pub(crate) fn find(&self, keys: &[PeakKey]) -> Option<(PeakKey, f64)> {
        keys.iter()
            .find_map(|k| self.0.iter().find(|(x, _)| x == k).cloned())
    }

    /// [`find`](Self::find) as the result's peak, its source naming the key the user
    /// gave: `user (--peak KEY=…)`.
    pub(crate) fn peak(&self, keys: &[PeakKey]) -> Option<Peak> {
        self.find(keys).map(|(k, v)| Peak {
            value: Some(v),
            source: format!("user (--peak {k}=…)"),
        })
    }
}

impl Serialize for PeakOverrides {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let by_text: BTreeMap<String, f64> =
            self.0.iter().map(|(k, v)| (k.to_string(), *v)).collect();
        by_text.serialize(s)
    }
}

/// Parses one `--peak KEY=VALUE`: the key must name a peak (`key_of` reads it, lower-case,
/// into the key and what it measures, or says why not), the unit must fit it. The value
/// comes back in the unit of the results the key applies to. Errors name the flag.
pub(crate) fn parse_peak(
    text: &str,
    key_of: impl FnOnce(&str) -> Result<(PeakKey, PeakKind), String>,
) -> Result<(PeakKey, f64), UsageError> {
    let p = parse_override(text).map_err(|e| UsageError::new("--peak", e))?;
    let shown = crate::util::sanitize::line_max(text, 200);
    let (key, kind) = key_of(&p.key).map_err(|e| UsageError::new("--peak", e))?;
    let misfit = |what: &str, example: &str| {
        UsageError::new(
            "--peak",
            format!(
                "'{shown}': {} is {what}, not '{}'; e.g. {example}",
                p.key, p.unit_text
            ),
        )
    };
    let v = p.value;
    let value = match (kind, p.unit) {
        (PeakKind::Ops, PeakUnit::None | PeakUnit::Flop | PeakUnit::Op | PeakUnit::Iop) => v,
        (PeakKind::Ops, _) => {
            return Err(misfit(
                "an operation rate (FLOP/s, OP/s, IOP/s or no unit)",
                "cpu.fp64=3.2TFLOP/s",
            ))
        }
        (PeakKind::Iops, PeakUnit::None | PeakUnit::Iop | PeakUnit::Op) => v,
        (PeakKind::Iops, _) => {
            return Err(misfit(
                "an I/O rate (IOPS, IOP/s or no unit)",
                "disk.iops=500kIOPS",
            ))
        }
        (PeakKind::Bytes, PeakUnit::None | PeakUnit::Byte) => v,
        (PeakKind::Bytes | PeakKind::Link, PeakUnit::Bit) => v / 8.0,
        (PeakKind::Bytes, _) => {
            return Err(misfit(
                "a bandwidth (B/s, bit/s or no unit for B/s)",
                "memory=68GB/s",
            ))
        }
        (PeakKind::Link, PeakUnit::None) => v / 8.0,
        (PeakKind::Link, PeakUnit::Byte) => v,
        (PeakKind::Link, _) => {
            return Err(misfit(
                "a link speed (bit/s, B/s, or no unit for bit/s)",
                "net=10Gbit/s",
            ))
        }
        (PeakKind::Latency, PeakUnit::Second | PeakUnit::None) => v,
        (PeakKind::Latency, _) => {
            return Err(misfit(
                "a latency (s, ms, us or ns, or no unit for seconds)",
                "memory.latency=80ns",
            ))
        }
    };
    Ok((key, value))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latency_keys_are_one_table() {
        let k = |t: &str| {
            let mut p = t.split('.');
            let first = p.next().unwrap();
            let rest: Vec<&str> = p.collect();
            latency_key_of(first, &rest).map(|r| r.map(|(k, kind)| (k.to_string(), kind)))
        };
        assert_eq!(
            k("memory.latency"),
            Some(Ok(("memory.latency".into(), PeakKind::Latency)))
        );
        assert_eq!(
            k("memory.latency.dram"),
            Some(Ok(("memory.latency.dram".into(), PeakKind::Latency)))
        );
        assert_eq!(
            k("net.latency"),
            Some(Ok(("net.latency".into(), PeakKind::Latency)))
        );
        // Not latency keys: the resource reads them.
        assert_eq!(k("memory.l1"), None);
        assert_eq!(k("cpu.latency"), None);
        let e = k("disk.latency.l1").unwrap().unwrap_err();
        assert!(e.contains("disk.latency takes no level"), "{e}");
        let e = k("memory.latency.l4").unwrap().unwrap_err();
        assert!(
            e.contains("a level l1|l2|l3|dram after it, not 'l4'"),
            "{e}"
        );
        assert_eq!(
            latency_keys("memory", Some("L2"))
                .iter()
                .map(|k| k.to_string())
                .collect::<Vec<_>>(),
            ["memory.latency.l2", "memory.latency"]
        );
        assert_eq!(
            latency_forms(),
            "memory.latency, memory.latency.l1|l2|l3|dram, disk.latency, net.latency"
        );
    }

    #[test]
    fn a_latency_takes_a_time_and_nothing_else() {
        let key = |_: &str| Ok((PeakKey::new("net.latency"), PeakKind::Latency));
        assert_eq!(parse_peak("net.latency=20us", key).unwrap().1, 20e-6);
        assert_eq!(parse_peak("net.latency=2e-5", key).unwrap().1, 2e-5);
        let e = parse_peak("net.latency=10Gbit/s", key).unwrap_err().0;
        assert!(e.contains("is a latency (s, ms, us or ns"), "{e}");
        // A time is refused where a rate is meant.
        let rate = |_: &str| Ok((PeakKey::new("net"), PeakKind::Link));
        let e = parse_peak("net=20us", rate).unwrap_err().0;
        assert!(e.contains("is a link speed"), "{e}");
    }

    #[test]
    fn overrides_keep_the_last_value_and_find_the_most_specific_key() {
        let k = PeakKey::new;
        let mut o = PeakOverrides::default();
        o.insert(k("cpu.fp64"), 1.0);
        o.insert(k("cpu"), 3.0);
        o.insert(k("cpu.fp64"), 2.0);
        let keys = [k("cpu.fp64.avx512"), k("cpu.fp64"), k("cpu")];
        assert_eq!(o.find(&keys), Some((k("cpu.fp64"), 2.0)));
        assert_eq!(o.find(&[k("net")]), None);
        // Serialised as before the keys were typed: a map ordered by the keys' text.
        o.insert(k("memory.dram"), 4.0);
        assert_eq!(
            serde_json::to_string(&o).unwrap(),
            r#"{"cpu":3.0,"cpu.fp64":2.0,"memory.dram":4.0}"#
        );
    }
}
