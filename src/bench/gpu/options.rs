//! `peakbench gpu` options: one struct, [`GpuOptions`], its flags typed where clap
//! reads them (a bad value is one line naming the flag and the accepted form, exit
//! code 2, nothing run), and [`parse`]. Checks that need the adapter (`--device` range, a precision it
//! lacks) happen in `plan`.

use crate::bench::flags::{dedup, Choices, List};
use crate::hw::gpu_table::GpuPrecision;
use crate::util::units::{parse_list, parse_size, ParseError};
use crate::util::usage::UsageError;
use clap::Args;
use serde::{Serialize, Serializer};

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

/// `--precision` as given: the precisions, and whether it said `all`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PrecisionChoice {
    /// The precisions asked for, each once.
    list: Vec<GpuPrecision>,
    /// `--precision all`: missing precisions are skipped, not refused.
    all: bool,
}

/// `peakbench gpu`: its flags, typed where clap reads them, and the validated options
/// (serialised into the report's `config`): one struct, read as clap gave it.
#[derive(Debug, Clone, Default, Args, Serialize)]
pub(crate) struct GpuOptions {
    /// List the adapters (name, vendor, type, driver, backend, limits, peaks) and exit
    #[arg(long)]
    pub(crate) list: bool,
    /// Adapter index from --list [default: the first: discrete before integrated before software]
    #[arg(long, value_name = "N", allow_hyphen_values = true, value_parser = device)]
    pub(crate) device: Option<usize>,
    /// Compute precisions, or all (aliases qp,hp,sp,dp) [default: all, unless only --kernel is given]
    #[arg(
        long = "precision",
        id = "precision",
        value_name = "LIST",
        allow_hyphen_values = true,
        value_parser = Choices::new(precisions, precision_names)
    )]
    #[serde(flatten, serialize_with = "precision_fields")]
    pub(crate) precision: Option<PrecisionChoice>,
    /// Memory kernels, or all [default: all, unless only --precision is given]
    #[arg(
        long = "kernel",
        value_name = "LIST",
        allow_hyphen_values = true,
        value_parser = Choices::new(kernels, kernel_names)
    )]
    pub(crate) kernels: Option<List<MemKernel>>,
    /// Bytes per buffer of the memory and transfer kernels [default: 1GiB; 256MiB on a software adapter]
    #[arg(long, value_name = "SIZE", allow_hyphen_values = true, value_parser = size)]
    pub(crate) size: Option<u64>,
}

/// `--precision` in the results' config, as it was written before the choice was one
/// field: `precisions` (the list given, or null) and `all_precisions`.
fn precision_fields<S: serde::Serializer>(
    p: &Option<PrecisionChoice>,
    s: S,
) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    let mut map = s.serialize_map(Some(2))?;
    map.serialize_entry("precisions", &p.as_ref().map(|c| &c.list))?;
    map.serialize_entry("all_precisions", &p.as_ref().is_none_or(|c| c.all))?;
    map.end()
}

impl GpuOptions {
    /// Whether `--precision all` (or nothing) was asked: a precision the adapter lacks
    /// is skipped, not refused.
    pub(crate) fn all_precisions(&self) -> bool {
        self.precision.as_ref().is_none_or(|p| p.all)
    }

    /// The compute precisions to run, in order.
    pub(crate) fn compute(&self) -> Vec<GpuPrecision> {
        match (self.precision.as_ref().map(|p| &p.list), &self.kernels) {
            (Some(p), _) => p.clone(),
            (None, None) => GpuPrecision::ALL.to_vec(),
            (None, Some(_)) => Vec::new(),
        }
    }

    /// The memory/transfer kernels to run, in order.
    pub(crate) fn memory(&self) -> Vec<MemKernel> {
        match (&self.kernels, &self.precision) {
            (Some(k), _) => k.clone(),
            (None, None) => MemKernel::ALL.to_vec(),
            (None, Some(_)) => Vec::new(),
        }
    }
}

/// Largest `--size` (checked before anything is allocated; the adapter's and the
/// host's memory are checked when the adapter is known, in `cases`).
pub(crate) const MAX_SIZE: u64 = 1 << 40;

fn precision_names() -> Vec<&'static str> {
    let names = GpuPrecision::ALL.map(GpuPrecision::name);
    names.into_iter().chain(["all"]).collect()
}

fn kernel_names() -> Vec<&'static str> {
    let names = MemKernel::ALL.map(MemKernel::name);
    names.into_iter().chain(["all"]).collect()
}

/// `--device N`.
fn device(text: &str) -> Result<usize, ParseError> {
    text.trim().parse::<usize>().map_err(|_| {
        ParseError(format!(
            "'{text}' is not an adapter index; use a number from `peakbench gpu --list`"
        ))
    })
}

/// `--precision`: precisions of the GPU table (or their aliases), or all.
fn precisions(text: &str) -> Result<PrecisionChoice, ParseError> {
    if text.trim().eq_ignore_ascii_case("all") {
        return Ok(PrecisionChoice {
            list: GpuPrecision::ALL.to_vec(),
            all: true,
        });
    }
    let names = GpuPrecision::ALL.map(GpuPrecision::name).join(",");
    let list = parse_list(text, |s| {
        GpuPrecision::parse(s).ok_or_else(|| {
            ParseError(format!(
                "unknown precision '{s}'; accepted: {names} (aliases {}; or all)",
                crate::hw::precision::alias_list()
            ))
        })
    })?;
    Ok(PrecisionChoice {
        list: dedup(list),
        all: false,
    })
}

/// `--kernel`: the memory and transfer kernels, or all.
fn kernels(text: &str) -> Result<List<MemKernel>, ParseError> {
    if text.trim().eq_ignore_ascii_case("all") {
        return Ok(MemKernel::ALL.to_vec());
    }
    let names = MemKernel::ALL.map(MemKernel::name).join(",");
    parse_list(text, |s| {
        MemKernel::ALL
            .into_iter()
            .find(|k| k.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| ParseError(format!("unknown kernel '{s}'; accepted: {names} (or all)")))
    })
    .map(dedup)
}

/// `--size`: 1 MiB to [`MAX_SIZE`], whole 4 KiB pages.
fn size(t: &str) -> Result<u64, ParseError> {
    let s = parse_size(t)?;
    if s > MAX_SIZE {
        return Err(ParseError(format!(
            "'{t}' is over 1TiB, more than any GPU's memory; use at most 1TiB, e.g. 256MiB or 1GiB"
        )));
    }
    if s < 1 << 20 {
        return Err(ParseError(format!(
            "'{t}' must be at least 1MiB and a multiple of 4KiB, e.g. 256MiB or 1GiB"
        )));
    }
    if s % 4096 != 0 {
        // Refused with the nearest sizes (as disk blocks are), never rounded.
        let below = s / 4096 * 4096;
        let fmt = crate::util::units::format_size;
        return Err(ParseError(format!(
            "'{t}' ({s} B) is not a multiple of 4KiB; nearest: {} ({below} B) or {} ({} B)",
            fmt(below),
            fmt(below + 4096),
            below + 4096
        )));
    }
    Ok(s)
}

/// The checks that span flags: none (clap typed every flag; what `--precision` means
/// is read from it, [`GpuOptions::compute`], [`GpuOptions::all_precisions`]).
pub(crate) fn parse(a: &GpuOptions) -> Result<GpuOptions, UsageError> {
    Ok(a.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(args: &[(&str, &str)]) -> Result<GpuOptions, UsageError> {
        let flags: Vec<String> = args.iter().map(|(k, _)| format!("--{k}")).collect();
        let mut argv: Vec<&str> = Vec::new();
        for ((_, v), f) in args.iter().zip(&flags) {
            argv.extend([f.as_str(), v]);
        }
        parse(&crate::bench::flags::try_args::<GpuOptions>(&argv)?)
    }

    #[test]
    fn defaults_run_everything() {
        let o = p(&[]).unwrap();
        assert_eq!(o.compute(), GpuPrecision::ALL.to_vec());
        assert_eq!(o.memory(), MemKernel::ALL.to_vec());
        assert!(o.all_precisions());
    }

    #[test]
    fn one_family_selects_only_it() {
        let o = p(&[("precision", "fp32,sp,int8")]).unwrap();
        assert_eq!(o.compute(), vec![GpuPrecision::Fp32, GpuPrecision::Int8]);
        assert!(o.memory().is_empty());
        assert!(!o.all_precisions());
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

    /// Every flag's bad value is the one line it gave before the flags were typed.
    #[test]
    fn bad_values_give_their_line() {
        for (argv, line) in [
            (&[("device", "x")][..], "--device: 'x' is not an adapter index; use a number from `peakbench gpu --list`"),
            (&[("precision", "fp8")], "--precision: unknown precision 'fp8'; accepted: fp32,fp16,fp64,int32,int8,int64 (aliases qp,hp,sp,dp; or all)"),
            (&[("kernel", "triad")], "--kernel: unknown kernel 'triad'; accepted: read,write,copy,h2d,d2h,dispatch (or all)"),
            (&[("size", "2TiB")], "--size: '2TiB' is over 1TiB, more than any GPU's memory; use at most 1TiB, e.g. 256MiB or 1GiB"),
            (&[("size", "4KiB")], "--size: '4KiB' must be at least 1MiB and a multiple of 4KiB, e.g. 256MiB or 1GiB"),
        ] {
            assert_eq!(p(argv).unwrap_err().0, line, "{argv:?}");
        }
        let o = p(&[("precision", "ALL")]).unwrap();
        assert!(o.all_precisions());
        assert_eq!(o.compute(), GpuPrecision::ALL.to_vec());
        // The config keeps its two keys, in their place.
        let v = serde_json::to_string(&o).unwrap();
        assert!(
            v.contains(r#""device":null,"precisions":["#)
                && v.contains(r#"],"all_precisions":true,"kernels":null"#),
            "{v}"
        );
        let v = serde_json::to_string(&p(&[("kernel", "copy")]).unwrap()).unwrap();
        assert!(
            v.contains(r#""precisions":null,"all_precisions":true,"kernels":["copy"]"#),
            "{v}"
        );
    }
}
