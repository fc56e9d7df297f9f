//! The `--peak KEY=VALUE` keys and the units each accepts (issue #16 item 7).
//!
//! `hw::peak::parse_override` reads the number, its SI prefix and its unit; the keys are
//! the resources' own names (CPU precisions and ISAs, memory levels, GPU precisions and
//! kernels), which live here in `bench`, so they are checked here: an unknown key, or a
//! unit that does not fit what the key measures, is refused before anything runs,
//! naming the bad part and the accepted form. The value is converted to the unit of the
//! results the key applies to (bit/s → B/s for bandwidths), so the resources read
//! `PeakOverrides` without caring how it was written.
//!
//! Every key here must be looked up by some resource (`overrides.find` / `peaks.find`),
//! and every key a resource looks up must be accepted here; a resource adding a peak
//! key adds it to `kind_of`.

use super::cpu::kernels::{self, Precision};
use super::gpu::options::MemKernel;
use super::memory::Level;
use crate::hw::gpu_table::GpuPrecision;
use crate::hw::peak::{parse_override, PeakUnit};
use crate::util::usage::UsageError;

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

/// The kind of a known key, or why it is unknown.
fn kind_of(key: &str) -> Result<Kind, String> {
    let unknown = || format!("unknown key '{key}'; accepted: {KEYS}");
    let parts: Vec<&str> = key.split('.').collect();
    match parts.as_slice() {
        // The hidden pipeline benchmark (`peakbench null`).
        ["null"] => Ok(Kind::Ops),
        ["cpu"] => Ok(Kind::Ops),
        ["cpu", p, rest @ ..] => {
            let Some(prec) = Precision::ALL.into_iter().find(|x| x.name() == *p) else {
                let names: Vec<&str> = Precision::ALL.iter().map(|x| x.name()).collect();
                return Err(format!(
                    "unknown CPU precision '{p}' in '{key}'; accepted: {}",
                    names.join(", ")
                ));
            };
            match rest {
                [] => Ok(Kind::Ops),
                [isa] => {
                    let mut isas: Vec<&str> = Vec::new();
                    for k in kernels::all().into_iter().filter(|k| k.precision == prec) {
                        if !isas.contains(&k.isa.name()) {
                            isas.push(k.isa.name());
                        }
                    }
                    if isas.contains(isa) {
                        Ok(Kind::Ops)
                    } else {
                        Err(format!(
                            "no {p} kernel for ISA '{isa}' in '{key}'; accepted: {}",
                            isas.iter()
                                .map(|i| format!("cpu.{p}.{i}"))
                                .collect::<Vec<_>>()
                                .join(", ")
                        ))
                    }
                }
                _ => Err(unknown()),
            }
        }
        ["memory"] => Ok(Kind::Bytes),
        ["memory", l] if Level::ALL.iter().any(|x| x.name().eq_ignore_ascii_case(l)) => {
            Ok(Kind::Bytes)
        }
        ["disk"] | ["disk", "throughput"] => Ok(Kind::Bytes),
        ["disk", "iops"] => Ok(Kind::Iops),
        ["net"] => Ok(Kind::Link),
        ["gpu", "memory" | "pcie"] => Ok(Kind::Bytes),
        ["gpu", x] if GpuPrecision::ALL.iter().any(|p| p.name() == *x) => Ok(Kind::Ops),
        ["gpu", x]
            if MemKernel::ALL
                .iter()
                .any(|k| *k != MemKernel::Dispatch && k.name() == *x) =>
        {
            Ok(Kind::Bytes)
        }
        _ => Err(unknown()),
    }
}

/// Parses one `--peak KEY=VALUE`: the key must name a peak, the unit must fit it. The
/// value comes back in the unit of the results the key applies to. Errors name the flag.
pub fn parse_peak(text: &str) -> Result<(String, f64), UsageError> {
    let p = parse_override(text).map_err(|e| UsageError::new("--peak", e))?;
    let shown = crate::util::sanitize::line_max(text, 200);
    let kind = kind_of(&p.key).map_err(|e| UsageError::new("--peak", e))?;
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
    Ok((p.key, value))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(t: &str) -> (String, f64) {
        parse_peak(t).unwrap_or_else(|e| panic!("{t}: {e}"))
    }
    fn err(t: &str) -> String {
        let e = parse_peak(t).expect_err(t).0;
        assert!(e.starts_with("--peak: "), "{e}");
        assert!(!e.contains('\n'), "{e}");
        e
    }

    #[test]
    fn every_key_a_resource_looks_up_is_accepted() {
        let mut keys = vec![
            "null".to_string(),
            "cpu".into(),
            "memory".into(),
            "memory.dram".into(),
            "disk".into(),
            "disk.throughput".into(),
            "disk.iops".into(),
            "net".into(),
            "gpu.memory".into(),
            "gpu.pcie".into(),
        ];
        for k in kernels::all() {
            keys.push(format!("cpu.{}.{}", k.precision.name(), k.isa.name()));
            keys.push(format!("cpu.{}", k.precision.name()));
        }
        for l in Level::ALL {
            keys.push(format!("memory.{}", l.name().to_ascii_lowercase()));
        }
        for p in GpuPrecision::ALL {
            keys.push(format!("gpu.{}", p.name()));
        }
        for k in MemKernel::ALL {
            if k != MemKernel::Dispatch {
                keys.push(format!("gpu.{}", k.name()));
            }
        }
        for k in keys {
            assert!(kind_of(&k).is_ok(), "{k}");
        }
    }

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
