//! `peakbench gpu` options: validation of the raw flags ([`GpuArgs`]) into
//! [`GpuOptions`]. Bad values get one line naming the flag and the accepted form (exit
//! code 2, nothing run). Checks that need the adapter (`--device` range, a precision it
//! lacks) happen in `plan`.

use crate::hw::gpu_table::GpuPrecision;
use crate::util::units::{parse_list, parse_size, ParseError};
use crate::util::usage::UsageError;
use clap::Args;
use serde::{Serialize, Serializer};

/// `peakbench gpu` flags (validated in `bench/gpu/options.rs`).
#[derive(Debug, Args, Default)]
pub struct GpuArgs {
    /// List the adapters (name, vendor, type, driver, backend, limits, peaks) and exit
    #[arg(long)]
    pub(crate) list: bool,
    /// Adapter index from --list [default: the first: discrete before integrated before software]
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    pub(crate) device: Option<String>,
    /// Compute precisions: fp32,fp16,fp64,int32,int8,int64 (aliases qp,hp,sp,dp) or all [default: all, unless only --kernel is given]
    #[arg(long, value_name = "LIST", allow_hyphen_values = true)]
    pub(crate) precision: Option<String>,
    /// Memory kernels: read,write,copy,h2d,d2h,dispatch or all [default: all, unless only --precision is given]
    #[arg(long, value_name = "LIST", allow_hyphen_values = true)]
    pub(crate) kernel: Option<String>,
    /// Bytes per buffer of the memory and transfer kernels [default: 1GiB; 256MiB on a software adapter]
    #[arg(long, value_name = "SIZE", allow_hyphen_values = true)]
    pub(crate) size: Option<String>,
}

/// Memory and transfer workloads (`--kernel`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum MemKernel {
    /// Device memory read.
    Read,
    /// Device memory write.
    Write,
    /// Device memory copy (counted as read + write, like STREAM).
    Copy,
    /// Host to device transfer.
    H2d,
    /// Device to host transfer.
    D2h,
    /// Round trip of an empty dispatch (submit → completion seen by the host).
    Dispatch,
}

impl MemKernel {
    /// Every kernel, in run order.
    pub(crate) const ALL: [MemKernel; 6] = [
        MemKernel::Read,
        MemKernel::Write,
        MemKernel::Copy,
        MemKernel::H2d,
        MemKernel::D2h,
        MemKernel::Dispatch,
    ];

    /// The flag value (and workload name).
    pub(crate) fn name(self) -> &'static str {
        match self {
            MemKernel::Read => "read",
            MemKernel::Write => "write",
            MemKernel::Copy => "copy",
            MemKernel::H2d => "h2d",
            MemKernel::D2h => "d2h",
            MemKernel::Dispatch => "dispatch",
        }
    }
}

impl Serialize for MemKernel {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

/// Validated `peakbench gpu` options.
#[derive(Debug, Clone, Default, Serialize)]
pub(crate) struct GpuOptions {
    /// `--list`: print the adapters and exit.
    pub(crate) list: bool,
    /// `--device`: adapter index; `None` = the first (best) one.
    pub(crate) device: Option<usize>,
    /// `--precision`; `None` = all when `--kernel` is not given either, else none.
    pub(crate) precisions: Option<Vec<GpuPrecision>>,
    /// Whether `--precision all` (or nothing) was asked: missing precisions are skipped,
    /// not refused.
    pub(crate) all_precisions: bool,
    /// `--kernel`; `None` = all when `--precision` is not given either, else none.
    pub(crate) kernels: Option<Vec<MemKernel>>,
    /// `--size`: bytes per buffer of the memory and transfer kernels.
    pub(crate) size: Option<u64>,
}

impl GpuOptions {
    /// The compute precisions to run, in order.
    pub(crate) fn compute(&self) -> Vec<GpuPrecision> {
        match (&self.precisions, &self.kernels) {
            (Some(p), _) => p.clone(),
            (None, None) => GpuPrecision::ALL.to_vec(),
            (None, Some(_)) => Vec::new(),
        }
    }

    /// The memory/transfer kernels to run, in order.
    pub(crate) fn memory(&self) -> Vec<MemKernel> {
        match (&self.kernels, &self.precisions) {
            (Some(k), _) => k.clone(),
            (None, None) => MemKernel::ALL.to_vec(),
            (None, Some(_)) => Vec::new(),
        }
    }
}

/// Largest `--size` (checked before anything is allocated; the adapter's and the
/// host's memory are checked when the adapter is known, in `cases`).
pub(crate) const MAX_SIZE: u64 = 1 << 40;

/// Validates the flags.
pub(crate) fn parse(a: &GpuArgs) -> Result<GpuOptions, UsageError> {
    let device = match &a.device {
        None => None,
        Some(t) => Some(t.trim().parse::<usize>().map_err(|_| {
            UsageError::new(
                "--device",
                format!("'{t}' is not an adapter index; use a number from `peakbench gpu --list`"),
            )
        })?),
    };
    let mut all_precisions = a.precision.is_none();
    let precisions = match &a.precision {
        None => None,
        Some(t) if t.trim().eq_ignore_ascii_case("all") => {
            all_precisions = true;
            Some(GpuPrecision::ALL.to_vec())
        }
        Some(t) => Some(
            dedup(parse_list(t, |s| {
                GpuPrecision::parse(s).ok_or_else(|| {
                    ParseError(format!(
                        "unknown precision '{s}'; accepted: fp32,fp16,fp64,int32,int8,int64 (aliases {}; or all)",
                        crate::hw::precision::alias_list()
                    ))
                })
            }))
            .map_err(|e| UsageError::new("--precision", e))?,
        ),
    };
    let kernels = match &a.kernel {
        None => None,
        Some(t) if t.trim().eq_ignore_ascii_case("all") => Some(MemKernel::ALL.to_vec()),
        Some(t) => Some(
            dedup(parse_list(t, |s| {
                MemKernel::ALL
                    .into_iter()
                    .find(|k| k.name().eq_ignore_ascii_case(s))
                    .ok_or_else(|| {
                        ParseError(format!(
                            "unknown kernel '{s}'; accepted: read,write,copy,h2d,d2h,dispatch (or all)"
                        ))
                    })
            }))
            .map_err(|e| UsageError::new("--kernel", e))?,
        ),
    };
    let size = match &a.size {
        None => None,
        Some(t) => {
            let s = parse_size(t).map_err(|e| UsageError::new("--size", e))?;
            if s > MAX_SIZE {
                return Err(UsageError::new(
                    "--size",
                    format!(
                        "'{t}' is over 1TiB, more than any GPU's memory; use at most 1TiB, e.g. 256MiB or 1GiB"
                    ),
                ));
            }
            if s < 1 << 20 {
                return Err(UsageError::new(
                    "--size",
                    format!(
                        "'{t}' must be at least 1MiB and a multiple of 4KiB, e.g. 256MiB or 1GiB"
                    ),
                ));
            }
            if s % 4096 != 0 {
                // Refused with the nearest sizes (as disk blocks are), never rounded.
                let below = s / 4096 * 4096;
                let fmt = crate::util::units::format_size;
                return Err(UsageError::new(
                    "--size",
                    format!(
                        "'{t}' ({s} B) is not a multiple of 4KiB; nearest: {} ({below} B) or {} ({} B)",
                        fmt(below),
                        fmt(below + 4096),
                        below + 4096
                    ),
                ));
            }
            Some(s)
        }
    };
    Ok(GpuOptions {
        list: a.list,
        device,
        precisions,
        all_precisions,
        kernels,
        size,
    })
}

fn dedup<T: Ord + Copy>(v: Result<Vec<T>, ParseError>) -> Result<Vec<T>, ParseError> {
    let mut v = v?;
    let mut seen = Vec::new();
    v.retain(|x| {
        if seen.contains(x) {
            false
        } else {
            seen.push(*x);
            true
        }
    });
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(args: &[(&str, &str)]) -> Result<GpuOptions, UsageError> {
        let mut a = GpuArgs::default();
        for (k, v) in args {
            let v = Some(v.to_string());
            match *k {
                "device" => a.device = v,
                "precision" => a.precision = v,
                "kernel" => a.kernel = v,
                "size" => a.size = v,
                _ => unreachable!(),
            }
        }
        parse(&a)
    }

    #[test]
    fn defaults_run_everything() {
        let o = p(&[]).unwrap();
        assert_eq!(o.compute(), GpuPrecision::ALL.to_vec());
        assert_eq!(o.memory(), MemKernel::ALL.to_vec());
        assert!(o.all_precisions);
    }

    #[test]
    fn one_family_selects_only_it() {
        let o = p(&[("precision", "fp32,sp,int8")]).unwrap();
        assert_eq!(o.compute(), vec![GpuPrecision::Fp32, GpuPrecision::Int8]);
        assert!(o.memory().is_empty());
        assert!(!o.all_precisions);
        let o = p(&[("kernel", "copy,h2d")]).unwrap();
        assert!(o.compute().is_empty());
        assert_eq!(o.memory(), vec![MemKernel::Copy, MemKernel::H2d]);
    }

    /// Issue #32 item 11: `gpu` refused `qp`, which `cpu` accepts; both read one alias
    /// table now, so every alias names the same data type in both commands.
    #[test]
    fn precision_aliases_are_the_cpus() {
        let o = p(&[("precision", "qp,hp,sp,dp")]).unwrap();
        assert_eq!(
            o.compute(),
            vec![
                GpuPrecision::Int8,
                GpuPrecision::Fp16,
                GpuPrecision::Fp32,
                GpuPrecision::Fp64
            ]
        );
        for (alias, _) in crate::hw::precision::ALIASES {
            let cpu = crate::bench::cpu::kernels::Precision::parse(alias).unwrap();
            let gpu = GpuPrecision::parse(alias).unwrap();
            assert_eq!(cpu.name(), gpu.name(), "{alias}");
        }
        let e = p(&[("precision", "fp8")]).unwrap_err().0;
        assert!(e.contains("qp,hp,sp,dp"), "{e}");
    }

    #[test]
    fn bad_values_name_the_flag() {
        let e = p(&[("device", "x")]).unwrap_err().0;
        assert!(e.starts_with("--device:"), "{e}");
        let e = p(&[("precision", "fp8")]).unwrap_err().0;
        assert!(e.starts_with("--precision:") && e.contains("fp8"), "{e}");
        let e = p(&[("kernel", "triad")]).unwrap_err().0;
        assert!(e.starts_with("--kernel:") && e.contains("h2d"), "{e}");
        let e = p(&[("size", "9223372036854775808")]).unwrap_err().0;
        assert!(e.starts_with("--size:") && e.contains("1TiB"), "{e}");
        let e = p(&[("size", "1000")]).unwrap_err().0;
        assert!(e.starts_with("--size:"), "{e}");
        assert_eq!(p(&[("size", "64MiB")]).unwrap().size, Some(64 << 20));
        // Decimal sizes: taken when whole 4 KiB pages (256MB is, 1GB is not), else refused with the nearest.
        let e = p(&[("size", "1GB")]).unwrap_err().0;
        assert_eq!(
            e,
            "--size: '1GB' (1000000000 B) is not a multiple of 4KiB; nearest: 953.67 MiB (999997440 B) or 953.68 MiB (1000001536 B)"
        );
        assert_eq!(p(&[("size", "4096KB")]).unwrap().size, Some(4_096_000));
    }
}
