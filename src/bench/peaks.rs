//! The `--peak KEY=VALUE` keys (issue #16 item 7, typed in #25): [`PeakKey`], the units
//! each accepts, and [`PeakOverrides`], the user's peaks the resources look up.
//!
//! `hw::peak::parse_override` reads the number, its SI prefix and its unit; the keys are
//! the resources' own names (CPU precisions and ISAs, memory levels, GPU precisions and
//! kernels), which live here in `bench`, so they are checked here: an unknown key, or a
//! unit that does not fit what the key measures, is refused before anything runs,
//! naming the bad part and the accepted form. The value is converted to the unit of the
//! results the key applies to (bit/s → B/s for bandwidths), so the resources read
//! `PeakOverrides` without caring how it was written.
//!
//! A key is parsed once, into a [`PeakKey`]; the resources build the typed key they look
//! up (`overrides.find`), so a key a resource looks up and the keys accepted here cannot
//! drift apart: a resource adding a peak key adds a variant (or a case of one) here.

use super::cpu::kernels::{self, Isa, Precision};
use super::gpu::options::MemKernel;
use super::memory::level::Level;
use crate::hw::gpu_table::GpuPrecision;
use crate::hw::peak::Peak;
use crate::hw::peak::{parse_override, PeakUnit};
use crate::util::usage::UsageError;
use serde::{Serialize, Serializer};
use std::collections::BTreeMap;
use std::fmt;

/// A `--peak` key: which peak a user's value replaces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PeakKey {
    /// `null`: the hidden pipeline benchmark (`peakbench null`).
    Null,
    /// `cpu`, `cpu.PRECISION` or `cpu.PRECISION.ISA` (`None`: every precision; the ISA
    /// only with a precision, and only one that has a kernel of that precision).
    Cpu(Option<(Precision, Option<Isa>)>),
    /// `memory` (`None`) or `memory.l1|l2|l3|dram`.
    Memory(Option<Level>),
    /// `disk` (`None`), `disk.throughput` or `disk.iops`.
    Disk(Option<DiskPeak>),
    /// `net`: the link speed.
    Net,
    /// `gpu.PRECISION`, `gpu.memory`, `gpu.pcie` or `gpu.KERNEL`.
    Gpu(GpuPeak),
}

/// The two disk peaks a `disk.…` key names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiskPeak {
    /// `disk.throughput`.
    Throughput,
    /// `disk.iops`.
    Iops,
}

/// The GPU peaks a `gpu.…` key names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GpuPeak {
    /// `gpu.PRECISION`: a compute kernel's rate.
    Precision(GpuPrecision),
    /// `gpu.memory`: the device memory bandwidth.
    Memory,
    /// `gpu.pcie`: the host link.
    Pcie,
    /// `gpu.read|write|copy|h2d|d2h`: one memory or transfer kernel (never `dispatch`).
    Kernel(MemKernel),
}

/// What a key measures, which decides the units its value may carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Operations per second (CPU, GPU compute): FLOP/s, OP/s, IOP/s or none.
    Ops,
    /// I/O operations per second (`disk.iops`): IOP/s, OP/s or none.
    Iops,
    /// A bandwidth in bytes per second: B/s, bit/s (÷ 8) or none (B/s).
    Bytes,
    /// A link speed (`net`): bit/s, B/s, or none (bit/s, as links are rated).
    Link,
}

/// The accepted keys, for messages.
const KEYS: &str = "cpu, cpu.PRECISION, cpu.PRECISION.ISA, memory, memory.l1|l2|l3|dram, disk, disk.throughput, disk.iops, net, gpu.PRECISION, gpu.memory, gpu.pcie, gpu.read|write|copy|h2d|d2h";

impl PeakKey {
    /// Reads a key (lower-case, as `parse_override` leaves it), or says why it is
    /// unknown.
    pub(crate) fn parse(key: &str) -> Result<PeakKey, String> {
        let unknown = || format!("unknown key '{key}'; accepted: {KEYS}");
        let parts: Vec<&str> = key.split('.').collect();
        match parts.as_slice() {
            ["null"] => Ok(PeakKey::Null),
            ["cpu"] => Ok(PeakKey::Cpu(None)),
            ["cpu", p, rest @ ..] => {
                let Some(prec) = Precision::ALL.into_iter().find(|x| x.name() == *p) else {
                    let names: Vec<&str> = Precision::ALL.iter().map(|x| x.name()).collect();
                    return Err(format!(
                        "unknown CPU precision '{p}' in '{key}'; accepted: {}",
                        names.join(", ")
                    ));
                };
                match rest {
                    [] => Ok(PeakKey::Cpu(Some((prec, None)))),
                    [isa] => {
                        let mut isas: Vec<Isa> = Vec::new();
                        for k in kernels::all().into_iter().filter(|k| k.precision == prec) {
                            if !isas.contains(&k.isa) {
                                isas.push(k.isa);
                            }
                        }
                        match isas.iter().find(|i| i.name() == *isa) {
                            Some(&i) => Ok(PeakKey::Cpu(Some((prec, Some(i))))),
                            None => Err(format!(
                                "no {p} kernel for ISA '{isa}' in '{key}'; accepted: {}",
                                isas.iter()
                                    .map(|i| format!("cpu.{p}.{}", i.name()))
                                    .collect::<Vec<_>>()
                                    .join(", ")
                            )),
                        }
                    }
                    _ => Err(unknown()),
                }
            }
            ["memory"] => Ok(PeakKey::Memory(None)),
            ["memory", l] => Level::ALL
                .into_iter()
                .find(|x| x.name().eq_ignore_ascii_case(l))
                .map(|x| PeakKey::Memory(Some(x)))
                .ok_or_else(unknown),
            ["disk"] => Ok(PeakKey::Disk(None)),
            ["disk", "throughput"] => Ok(PeakKey::Disk(Some(DiskPeak::Throughput))),
            ["disk", "iops"] => Ok(PeakKey::Disk(Some(DiskPeak::Iops))),
            ["net"] => Ok(PeakKey::Net),
            ["gpu", "memory"] => Ok(PeakKey::Gpu(GpuPeak::Memory)),
            ["gpu", "pcie"] => Ok(PeakKey::Gpu(GpuPeak::Pcie)),
            ["gpu", x] => {
                if let Some(p) = GpuPrecision::ALL.into_iter().find(|p| p.name() == *x) {
                    Ok(PeakKey::Gpu(GpuPeak::Precision(p)))
                } else if let Some(k) = MemKernel::ALL
                    .into_iter()
                    .find(|k| *k != MemKernel::Dispatch && k.name() == *x)
                {
                    Ok(PeakKey::Gpu(GpuPeak::Kernel(k)))
                } else {
                    Err(unknown())
                }
            }
            _ => Err(unknown()),
        }
    }

    /// What the key measures.
    fn kind(self) -> Kind {
        match self {
            PeakKey::Null | PeakKey::Cpu(_) | PeakKey::Gpu(GpuPeak::Precision(_)) => Kind::Ops,
            PeakKey::Memory(_)
            | PeakKey::Disk(None | Some(DiskPeak::Throughput))
            | PeakKey::Gpu(GpuPeak::Memory | GpuPeak::Pcie | GpuPeak::Kernel(_)) => Kind::Bytes,
            PeakKey::Disk(Some(DiskPeak::Iops)) => Kind::Iops,
            PeakKey::Net => Kind::Link,
        }
    }
}

/// The canonical text of the key (lower-case, as accepted), e.g. `cpu.fp64.avx512`.
impl fmt::Display for PeakKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PeakKey::Null => f.write_str("null"),
            PeakKey::Cpu(None) => f.write_str("cpu"),
            PeakKey::Cpu(Some((p, None))) => write!(f, "cpu.{}", p.name()),
            PeakKey::Cpu(Some((p, Some(i)))) => write!(f, "cpu.{}.{}", p.name(), i.name()),
            PeakKey::Memory(None) => f.write_str("memory"),
            PeakKey::Memory(Some(l)) => write!(f, "memory.{}", l.name().to_ascii_lowercase()),
            PeakKey::Disk(None) => f.write_str("disk"),
            PeakKey::Disk(Some(DiskPeak::Throughput)) => f.write_str("disk.throughput"),
            PeakKey::Disk(Some(DiskPeak::Iops)) => f.write_str("disk.iops"),
            PeakKey::Net => f.write_str("net"),
            PeakKey::Gpu(GpuPeak::Precision(p)) => write!(f, "gpu.{}", p.name()),
            PeakKey::Gpu(GpuPeak::Memory) => f.write_str("gpu.memory"),
            PeakKey::Gpu(GpuPeak::Pcie) => f.write_str("gpu.pcie"),
            PeakKey::Gpu(GpuPeak::Kernel(k)) => write!(f, "gpu.{}", k.name()),
        }
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
            .find_map(|k| self.0.iter().find(|(x, _)| x == k).copied())
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

/// Parses one `--peak KEY=VALUE`: the key must name a peak, the unit must fit it. The
/// value comes back in the unit of the results the key applies to. Errors name the flag.
pub fn parse_peak(text: &str) -> Result<(PeakKey, f64), UsageError> {
    let p = parse_override(text).map_err(|e| UsageError::new("--peak", e))?;
    let shown = crate::util::sanitize::line_max(text, 200);
    let key = PeakKey::parse(&p.key).map_err(|e| UsageError::new("--peak", e))?;
    let kind = key.kind();
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
        (Kind::Ops, PeakUnit::None | PeakUnit::Flop | PeakUnit::Op | PeakUnit::Iop) => v,
        (Kind::Ops, _) => {
            return Err(misfit(
                "an operation rate (FLOP/s, OP/s, IOP/s or no unit)",
                "cpu.fp64=3.2TFLOP/s",
            ))
        }
        (Kind::Iops, PeakUnit::None | PeakUnit::Iop | PeakUnit::Op) => v,
        (Kind::Iops, _) => {
            return Err(misfit(
                "an I/O rate (IOPS, IOP/s or no unit)",
                "disk.iops=500kIOPS",
            ))
        }
        (Kind::Bytes, PeakUnit::None | PeakUnit::Byte) => v,
        (Kind::Bytes | Kind::Link, PeakUnit::Bit) => v / 8.0,
        (Kind::Bytes, _) => {
            return Err(misfit(
                "a bandwidth (B/s, bit/s or no unit for B/s)",
                "memory=68GB/s",
            ))
        }
        (Kind::Link, PeakUnit::None) => v / 8.0,
        (Kind::Link, PeakUnit::Byte) => v,
        (Kind::Link, _) => {
            return Err(misfit(
                "a link speed (bit/s, B/s, or no unit for bit/s)",
                "net=10Gbit/s",
            ))
        }
    };
    Ok((key, value))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    fn ok(t: &str) -> (String, f64) {
        parse_peak(t)
            .map(|(k, v)| (k.to_string(), v))
            .unwrap_or_else(|e| panic!("{t}: {e}"))
    }
    fn err(t: &str) -> String {
        let e = parse_peak(t).expect_err(t).0;
        assert!(e.starts_with("--peak: "), "{e}");
        assert!(!e.contains('\n'), "{e}");
        e
    }

    /// Every key a resource can look up, as the resources build them.
    fn every_key() -> Vec<PeakKey> {
        let mut keys = vec![
            PeakKey::Null,
            PeakKey::Cpu(None),
            PeakKey::Memory(None),
            PeakKey::Disk(None),
            PeakKey::Disk(Some(DiskPeak::Throughput)),
            PeakKey::Disk(Some(DiskPeak::Iops)),
            PeakKey::Net,
            PeakKey::Gpu(GpuPeak::Memory),
            PeakKey::Gpu(GpuPeak::Pcie),
        ];
        for k in kernels::all() {
            keys.push(PeakKey::Cpu(Some((k.precision, Some(k.isa)))));
            keys.push(PeakKey::Cpu(Some((k.precision, None))));
        }
        keys.extend(Level::ALL.map(|l| PeakKey::Memory(Some(l))));
        keys.extend(GpuPrecision::ALL.map(|p| PeakKey::Gpu(GpuPeak::Precision(p))));
        for k in MemKernel::ALL {
            if k != MemKernel::Dispatch {
                keys.push(PeakKey::Gpu(GpuPeak::Kernel(k)));
            }
        }
        keys
    }

    #[test]
    fn every_key_a_resource_looks_up_reads_back_from_its_text() {
        for k in every_key() {
            let text = k.to_string();
            assert_eq!(PeakKey::parse(&text), Ok(k), "{text}");
            assert_eq!(text, text.to_ascii_lowercase());
        }
    }

    #[test]
    fn overrides_keep_the_last_value_and_find_the_most_specific_key() {
        let fp64 = PeakKey::Cpu(Some((Precision::Fp64, None)));
        let mut o = PeakOverrides::default();
        o.insert(fp64, 1.0);
        o.insert(PeakKey::Cpu(None), 3.0);
        o.insert(fp64, 2.0);
        let keys = [
            PeakKey::Cpu(Some((Precision::Fp64, Some(Isa::Avx512)))),
            fp64,
            PeakKey::Cpu(None),
        ];
        assert_eq!(o.find(&keys), Some((fp64, 2.0)));
        assert_eq!(o.find(&[PeakKey::Net]), None);
        // Serialised as before the keys were typed: a map ordered by the keys' text.
        o.insert(PeakKey::Memory(Some(Level::Dram)), 4.0);
        assert_eq!(
            serde_json::to_string(&o).unwrap(),
            r#"{"cpu":3.0,"cpu.fp64":2.0,"memory.dram":4.0}"#
        );
    }

    // x86 kernels and ISAs by name (aarch64 builds have other ones).
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn values_come_back_in_the_results_unit() {
        assert_eq!(ok("cpu.fp64=100gflop/s"), ("cpu.fp64".into(), 100e9));
        assert_eq!(ok("cpu.FP64.avx2=1T"), ("cpu.fp64.avx2".into(), 1e12));
        assert_eq!(ok("memory=68GB/s").1, 68e9);
        assert_eq!(ok("memory.L1=8Tbit/s").1, 1e12);
        assert_eq!(ok("disk=4GiB/s").1, 4.0 * (1u64 << 30) as f64);
        assert_eq!(ok("disk.iops=500k").1, 500e3);
        assert_eq!(ok("gpu.fp32=60TFLOP/s").1, 60e12);
        assert_eq!(ok("gpu.h2d=25GB/s").1, 25e9);
        // Links are rated in bit/s: a bare number is bits, B/s is taken as written.
        assert_eq!(ok("net=10G").1, 1.25e9);
        assert_eq!(ok("net=10Gbit/s").1, 1.25e9);
        assert_eq!(ok("net=1.25GB/s").1, 1.25e9);
    }

    // x86 kernels and ISAs by name (aarch64 builds have other ones).
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn unknown_keys_are_refused_naming_the_accepted_ones() {
        let e = err("cpu.fp46=1T");
        assert!(
            e.contains("unknown CPU precision 'fp46'") && e.contains("fp64"),
            "{e}"
        );
        let e = err("cpu.fp64.avx-vnni=1T");
        assert!(
            e.contains("ISA 'avx-vnni'") && e.contains("cpu.fp64.scalar"),
            "{e}"
        );
        for k in [
            "gpu",
            "gpu.dispatch",
            "memory.l4",
            "disk.latency",
            "nett",
            "cpu.fp64.avx2.x",
            "gpu.fp128",
        ] {
            let e = err(&format!("{k}=1"));
            assert!(
                e.contains(&format!("unknown key '{k}'")) && e.contains("memory.l1|l2|l3|dram"),
                "{e}"
            );
        }
    }

    #[test]
    fn units_must_fit_the_key() {
        let e = err("cpu.fp64=100GB/s");
        assert!(e.contains("operation rate") && e.contains("'GB/s'"), "{e}");
        let e = err("memory=68GFLOP/s");
        assert!(
            e.contains("bandwidth") && e.contains("memory=68GB/s"),
            "{e}"
        );
        let e = err("disk.iops=1GB/s");
        assert!(e.contains("I/O rate"), "{e}");
        let e = err("net=1TFLOP/s");
        assert!(e.contains("link speed"), "{e}");
        let e = err("cpu.fp64=100Xyz");
        assert!(e.contains("unknown unit 'Xyz'"), "{e}");
        // What the user pasted is echoed on one line, escaped (found by fuzzing).
        for t in ["\n", "cpu=1\x1b[2J", "cpu.fp64=1\nGB/s", "x\u{202e}=1"] {
            let e = err(t);
            assert!(crate::util::sanitize::is_clean(&e), "{e:?}");
        }
    }
}
