//! `peakbench memory` options: validation of the raw flags ([`MemoryArgs`]) into
//! [`MemoryOptions`]. Every bad value becomes one line naming the flag and the accepted
//! form (exit code 2, nothing run). Checks that need the host (free memory, cache sizes)
//! happen in `plan`.

use super::kernels::Op;
use crate::bench::common::parse_threads;
use crate::util::units::{parse_list, parse_size, ParseError};
use crate::util::usage::UsageError;
use clap::Args;
use serde::{Serialize, Serializer};

/// `peakbench memory` flags (validated in `bench::memory::options`).
#[derive(Debug, Args, Default)]
pub struct MemoryArgs {
    /// Kernels: read,write,copy,scale,add,triad,chase [default: all]
    #[arg(long, value_name = "LIST")]
    pub(crate) kernel: Option<String>,
    /// Access order of the blocks: seq,rand [default: seq]
    #[arg(long, value_name = "LIST")]
    pub(crate) pattern: Option<String>,
    /// Contiguous access sizes, e.g. 1B,8B,1KB,1MiB,80MiB; multiples of 8 B run every kernel on f64 elements, other sizes (1 B…) run read, write and copy on bytes [default: whole array for seq, 4KiB for rand]
    #[arg(long, value_name = "LIST", allow_hyphen_values = true)]
    pub(crate) block: Option<String>,
    /// Working set of a case, all arrays and threads together [default: 4x the last-level cache, rounded up to a power of two]
    #[arg(long, value_name = "SIZE", allow_hyphen_values = true)]
    pub(crate) size: Option<String>,
    /// Thread counts [default: 1,2,4,… up to the core count]
    #[arg(long, value_name = "LIST", allow_hyphen_values = true)]
    pub(crate) threads: Option<String>,
    /// Walk the working set: `full` = every power of two from 4 KiB to 4x the last-level cache (minutes: kernels x ~20 sizes x threads cases), `quick` = one working set per cache level (L1/L2/L3/DRAM marked)
    #[arg(long, value_name = "MODE", num_args = 0..=1, default_missing_value = "full")]
    pub(crate) sweep: Option<String>,
    /// Non-temporal stores: auto (when the working set exceeds the LLC), on, off [default: auto]
    #[arg(long, value_name = "MODE")]
    pub(crate) nt: Option<String>,
    /// Count the write-allocate read of cached stores (STREAM does not)
    #[arg(long)]
    pub(crate) count_write_allocate: bool,
}

/// Largest working set a case may map, all threads and arrays together (256 TiB, twice
/// what x86-64 user space can address with 4-level page tables). Every size product is
/// checked against it, so none can wrap around 2^64 and map less than the kernels touch.
pub(crate) const MAX_SIZE: u64 = 1 << 48;

/// What `--kernel` selects: a bandwidth operation or the latency chase.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Kind {
    /// A bandwidth kernel.
    Bw(Op),
    /// Pointer-chase latency.
    Chase,
}

impl Kind {
    /// Every kind, in listing order.
    pub(crate) fn all() -> Vec<Kind> {
        let mut v: Vec<Kind> = Op::ALL.iter().map(|&o| Kind::Bw(o)).collect();
        v.push(Kind::Chase);
        v
    }

    /// The flag value.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Kind::Bw(o) => o.name(),
            Kind::Chase => "chase",
        }
    }
}

impl Serialize for Kind {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

/// Access order of the blocks (`--pattern`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Pattern {
    /// Blocks in address order.
    Seq,
    /// Every block once per pass, in a random order.
    Rand,
}

impl Pattern {
    /// The flag value.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Pattern::Seq => "seq",
            Pattern::Rand => "rand",
        }
    }
}

/// Non-temporal stores (`--nt`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Nt {
    /// Streaming stores when the working set exceeds the last-level cache.
    Auto,
    /// Always (for kernels that store).
    On,
    /// Never.
    Off,
}

/// Validated `peakbench memory` options.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct MemoryOptions {
    /// `--kernel`; `None` = all.
    pub(crate) kernels: Option<Vec<Kind>>,
    /// `--pattern` [default: seq].
    pub(crate) patterns: Vec<Pattern>,
    /// `--block` in bytes; `None` = the whole per-thread array for `seq`, 4 KiB for `rand`.
    pub(crate) blocks: Option<Vec<u64>>,
    /// `--size`: total working set of a case (all arrays, all threads); `None` = 4× LLC
    /// rounded up to a power of two.
    pub(crate) size: Option<u64>,
    /// `--threads`; `None` = 1, 2, 4, … cores.
    pub(crate) threads: Option<Vec<usize>>,
    /// `--sweep`: working sets from 4 KiB to 4× LLC.
    pub(crate) sweep: bool,
    /// `--sweep quick`: one working set per cache level instead of every power of two.
    pub(crate) sweep_quick: bool,
    /// `--nt`.
    pub(crate) nt: Nt,
    /// `--count-write-allocate`.
    pub(crate) count_write_allocate: bool,
}

impl Default for MemoryOptions {
    fn default() -> Self {
        MemoryOptions {
            kernels: None,
            patterns: vec![Pattern::Seq],
            blocks: None,
            size: None,
            threads: None,
            sweep: false,
            sweep_quick: false,
            nt: Nt::Auto,
            count_write_allocate: false,
        }
    }
}

/// Validates `peakbench memory` flags.
pub(crate) fn parse(a: &MemoryArgs) -> Result<MemoryOptions, UsageError> {
    let names: Vec<&str> = Kind::all().iter().map(|k| k.name()).collect();
    let kernels = a
        .kernel
        .as_deref()
        .map(|t| {
            parse_list(t, |s| {
                let s = s.to_ascii_lowercase();
                Kind::all()
                    .into_iter()
                    .find(|k| k.name() == s)
                    .ok_or_else(|| {
                        ParseError(format!(
                            "unknown kernel '{s}'; accepted: {}",
                            names.join(",")
                        ))
                    })
            })
        })
        .transpose()
        .map_err(|e| UsageError::new("--kernel", e))?
        .map(dedup);
    let patterns = a
        .pattern
        .as_deref()
        .map(|t| {
            parse_list(t, |s| match s.to_ascii_lowercase().as_str() {
                "seq" | "sequential" => Ok(Pattern::Seq),
                "rand" | "random" => Ok(Pattern::Rand),
                _ => Err(ParseError(format!(
                    "unknown pattern '{s}'; accepted: seq,rand"
                ))),
            })
        })
        .transpose()
        .map_err(|e| UsageError::new("--pattern", e))?
        .map(dedup)
        .unwrap_or_else(|| vec![Pattern::Seq]);
    let blocks = a
        .block
        .as_deref()
        .map(|t| {
            parse_list(t, |s| {
                let b = parse_size(s)?;
                if b > MAX_SIZE {
                    return Err(ParseError(format!(
                        "'{s}' is above the limit of {}; use e.g. 8KiB or 1MiB",
                        crate::util::units::format_size(MAX_SIZE)
                    )));
                }
                Ok(b)
            })
        })
        .transpose()
        .map_err(|e| UsageError::new("--block", e))?
        .map(dedup);
    let size = a
        .size
        .as_deref()
        .map(parse_size)
        .transpose()
        .map_err(|e| UsageError::new("--size", e))?;
    if let Some(s) = size {
        if s < 4096 {
            return Err(UsageError::new(
                "--size",
                format!("{s} B is too small; use at least 4KiB (e.g. 256MiB for DRAM)"),
            ));
        }
        if s > MAX_SIZE {
            return Err(UsageError::new(
                "--size",
                format!(
                    "{} is above the limit of {}; use e.g. 256MiB",
                    crate::util::units::format_size(s),
                    crate::util::units::format_size(MAX_SIZE)
                ),
            ));
        }
        if a.sweep.is_some() {
            return Err(UsageError::new(
                "--size",
                "cannot be combined with --sweep (the sweep chooses the working sets, 4 KiB to 4x LLC)",
            ));
        }
        if let Some(big) = blocks.as_ref().and_then(|b| b.iter().find(|&&b| b > s)) {
            return Err(UsageError::new(
                "--block",
                format!(
                    "{} is larger than the working set --size {}; use a block no larger than the size",
                    crate::util::units::format_size(*big),
                    crate::util::units::format_size(s)
                ),
            ));
        }
    }
    let sweep_quick = match a.sweep.as_deref().map(|s| s.trim().to_ascii_lowercase()) {
        None => false,
        Some(m) if m == "full" => false,
        Some(m) if m == "quick" => true,
        Some(m) => {
            return Err(UsageError::new(
                "--sweep",
                format!("unknown mode '{m}'; accepted: full (every power of two from 4 KiB to 4x LLC), quick (one working set per cache level)"),
            ))
        }
    };
    let threads = a.threads.as_deref().map(parse_threads).transpose()?;
    let nt = match a.nt.as_deref().map(|s| s.trim().to_ascii_lowercase()) {
        None => Nt::Auto,
        Some(s) if s == "auto" => Nt::Auto,
        Some(s) if s == "on" => Nt::On,
        Some(s) if s == "off" => Nt::Off,
        Some(s) => {
            return Err(UsageError::new(
                "--nt",
                format!("unknown value '{s}'; accepted: auto,on,off"),
            ))
        }
    };
    Ok(MemoryOptions {
        kernels,
        patterns,
        blocks,
        size,
        threads,
        sweep: a.sweep.is_some(),
        sweep_quick,
        nt,
        count_write_allocate: a.count_write_allocate,
    })
}

fn dedup<T: PartialEq>(v: Vec<T>) -> Vec<T> {
    let mut out: Vec<T> = Vec::with_capacity(v.len());
    for x in v {
        if !out.contains(&x) {
            out.push(x);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(f: impl FnOnce(&mut MemoryArgs)) -> Result<MemoryOptions, UsageError> {
        let mut a = MemoryArgs::default();
        f(&mut a);
        parse(&a)
    }

    #[test]
    fn defaults() {
        let o = args(|_| {}).unwrap();
        assert_eq!(o.kernels, None);
        assert_eq!(o.patterns, vec![Pattern::Seq]);
        assert_eq!(o.nt, Nt::Auto);
        assert!(!o.count_write_allocate && !o.sweep);
    }

    #[test]
    fn lists_parse() {
        let o = args(|a| {
            a.kernel = Some("copy,triad,chase,copy".into());
            a.pattern = Some("seq,rand".into());
            a.block = Some("8B,1KiB,8KiB,1MiB,8MiB,80MiB".into());
            a.size = Some("1GiB".into());
            a.threads = Some("1,2".into());
            a.nt = Some("on".into());
        })
        .unwrap();
        assert_eq!(
            o.kernels,
            Some(vec![Kind::Bw(Op::Copy), Kind::Bw(Op::Triad), Kind::Chase])
        );
        assert_eq!(o.patterns, vec![Pattern::Seq, Pattern::Rand]);
        assert_eq!(
            o.blocks,
            Some(vec![8, 1024, 8192, 1 << 20, 8 << 20, 80 << 20])
        );
        assert_eq!(o.size, Some(1 << 30));
        assert_eq!(o.nt, Nt::On);
    }

    #[test]
    fn errors_name_the_flag() {
        let e = args(|a| a.kernel = Some("memcpy".into())).unwrap_err().0;
        assert!(e.starts_with("--kernel: unknown kernel 'memcpy'"), "{e}");
        assert!(e.contains("read,write,copy,scale,add,triad,chase"), "{e}");
        let e = args(|a| a.pattern = Some("zigzag".into())).unwrap_err().0;
        assert!(e.starts_with("--pattern:"), "{e}");
        // Byte blocks (1 B accesses, decimal sizes) are taken as they are.
        let o = args(|a| a.block = Some("1B,12B,1KB,1MB".into())).unwrap();
        assert_eq!(o.blocks, Some(vec![1, 12, 1000, 1_000_000]));
        let e = args(|a| a.block = Some("0B".into())).unwrap_err().0;
        assert!(e.starts_with("--block:"), "{e}");
        let e = args(|a| a.block = Some("big".into())).unwrap_err().0;
        assert!(e.starts_with("--block:"), "{e}");
        let e = args(|a| a.size = Some("1KiB".into())).unwrap_err().0;
        assert!(e.starts_with("--size:"), "{e}");
        let e = args(|a| {
            a.size = Some("1MiB".into());
            a.block = Some("8MiB".into());
        })
        .unwrap_err()
        .0;
        assert!(e.starts_with("--block: 8 MiB is larger than"), "{e}");
        let e = args(|a| a.nt = Some("maybe".into())).unwrap_err().0;
        assert!(e.starts_with("--nt:") && e.contains("auto,on,off"), "{e}");
        let e = args(|a| a.threads = Some("0".into())).unwrap_err().0;
        assert!(e.starts_with("--threads:"), "{e}");
        let e = args(|a| {
            a.sweep = Some("full".into());
            a.size = Some("1GiB".into());
        })
        .unwrap_err()
        .0;
        assert!(e.starts_with("--size:"), "{e}");
        let e = args(|a| a.sweep = Some("fast".into())).unwrap_err().0;
        assert!(e.starts_with("--sweep: unknown mode 'fast'"), "{e}");
        let o = args(|a| a.sweep = Some("Quick".into())).unwrap();
        assert!(o.sweep && o.sweep_quick);
    }
}
