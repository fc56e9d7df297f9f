//! `peakbench disk` options: validation of the raw flags into [`DiskOptions`]. Each bad
//! value becomes one [`UsageError`] naming the flag and the accepted form; checks that
//! need the filesystem (free space, O_DIRECT) happen at plan time, still before any I/O.

use super::engine::Caps;
use super::engines::{by_name, ENGINES};
use crate::util::units::{
    format_size, format_size_exact, parse_duration, parse_list, parse_size, ParseError,
};
use crate::util::usage::UsageError;
use clap::Args;
use serde::{Serialize, Serializer};
use std::path::PathBuf;
use std::time::Duration;

/// `peakbench disk` flags (validated in `bench/disk/options.rs`).
#[derive(Debug, Args, Default)]
pub struct DiskArgs {
    /// Directory for the test files (a temporary subdirectory is created and removed) [default: current directory]
    #[arg(long, value_name = "DIR")]
    pub(crate) dir: Option<String>,
    /// Patterns: seq-read,seq-write,rand-read,rand-write,rw-mix or rw-mix:READ_PCT, copy (sequential read+write) (fio names read,write,randread,randwrite,randrw also accepted) [default: the four seq/rand ones]
    #[arg(long, value_name = "LIST")]
    pub(crate) pattern: Option<String>,
    /// Block sizes, e.g. 4KiB,1MiB: multiples of 512 B, or any size from 1 B with --buffered (4KB = 4000 B) [default: 1MiB for seq-* and copy, 4KiB for rand-* and rw-mix]
    #[arg(long, value_name = "LIST", allow_hyphen_values = true)]
    pub(crate) block: Option<String>,
    /// I/Os in flight per job (queue depth) [default: 1,32]
    #[arg(long, value_name = "LIST", allow_hyphen_values = true)]
    pub(crate) depth: Option<String>,
    /// Parallel jobs, one file and one thread each [default: 1]
    #[arg(long, value_name = "LIST", allow_hyphen_values = true)]
    pub(crate) jobs: Option<String>,
    /// Size of each job's file, a multiple of every block [default: 1GiB, rounded down to a multiple of the blocks]
    #[arg(long, value_name = "SIZE", allow_hyphen_values = true)]
    pub(crate) file_size: Option<String>,
    /// All jobs share one file of --file-size, each job an equal contiguous part of it (strong scaling over one file, as fio's shared filename with offset_increment)
    #[arg(long)]
    pub(crate) shared_file: bool,
    /// I/O engine: auto (io_uring when the kernel allows it, else sync), sync, uring [default: auto]
    #[arg(long, value_name = "ENGINE")]
    pub(crate) engine: Option<String>,
    /// Go through the page cache instead of O_DIRECT (labelled in the results)
    #[arg(long)]
    pub(crate) buffered: bool,
    /// Measured time per repeat [default: 2s, or --min-time if longer]
    #[arg(long, value_name = "DUR")]
    pub(crate) runtime: Option<String>,
    /// Unmeasured I/O before the first repeat [default: 1s]
    #[arg(long, value_name = "DUR")]
    pub(crate) ramp: Option<String>,
    /// Check the data: reads compare with what was written, writes are read back after the case
    #[arg(long)]
    pub(crate) verify: bool,
    /// Steady-state mode: one run this long sampled every second (e.g. 10m for the SSD write cliff)
    #[arg(long, value_name = "DUR")]
    pub(crate) sustain: Option<String>,
    /// Allow --dir to be a block device (its data in the tested range is DESTROYED by writes)
    #[arg(long)]
    pub(crate) allow_destructive: bool,
}

/// Deepest queue accepted per job (io_uring rings go to 32768; beyond 4096 nothing changes).
pub(crate) const MAX_DEPTH: u32 = 4096;
/// Most jobs accepted (one thread and one file each).
pub(crate) const MAX_JOBS: u32 = 1024;
/// Largest `--file-size` (256 TiB): with at most [`MAX_JOBS`] files, every offset and
/// every jobs × size product stays far below 2^64.
pub(crate) const MAX_FILE_SIZE: u64 = 1 << 48;
/// Largest block: 1 GiB (io_uring and pread/pwrite move at most 2 GiB − 4 KiB per call).
pub(crate) const MAX_BLOCK: u64 = 1 << 30;
/// Block sizes must be multiples of this (the smallest logical block of any disk).
pub(crate) const SECTOR: u64 = 512;

/// An access pattern (`--pattern`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pattern {
    /// Sequential reads (fio `read`).
    SeqRead,
    /// Sequential writes (fio `write`).
    SeqWrite,
    /// Uniform random reads (fio `randread`).
    RandRead,
    /// Uniform random writes (fio `randwrite`).
    RandWrite,
    /// Random mixed reads and writes with this read percentage (fio `randrw`, `rwmixread`).
    RwMix(u8),
    /// Sequential read+write, the I/O of a file copy: reads stream through the first half
    /// of each job's file while writes stream through the second half, one write after
    /// each read (the bytes written are the run's own data, not the bytes just read).
    Copy,
}

impl Pattern {
    /// The name used on the command line and in results, e.g. `rw-mix:70`.
    pub(crate) fn name(&self) -> String {
        match self {
            Pattern::SeqRead => "seq-read".into(),
            Pattern::SeqWrite => "seq-write".into(),
            Pattern::RandRead => "rand-read".into(),
            Pattern::RandWrite => "rand-write".into(),
            Pattern::RwMix(p) => format!("rw-mix:{p}"),
            Pattern::Copy => "copy".into(),
        }
    }

    /// Percentage of I/Os that are reads.
    pub(crate) fn read_pct(&self) -> u8 {
        match self {
            Pattern::SeqRead | Pattern::RandRead => 100,
            Pattern::SeqWrite | Pattern::RandWrite => 0,
            Pattern::RwMix(p) => *p,
            Pattern::Copy => 50,
        }
    }

    /// Whether offsets are random.
    pub(crate) fn random(&self) -> bool {
        !matches!(self, Pattern::SeqRead | Pattern::SeqWrite | Pattern::Copy)
    }

    /// Whether it writes.
    pub(crate) fn writes(&self) -> bool {
        self.read_pct() < 100
    }

    /// The block size used when `--block` is not given: 1 MiB sequential, 4 KiB random.
    pub(crate) fn default_block(&self) -> u64 {
        if self.random() {
            4096
        } else {
            1 << 20
        }
    }

    /// Parses one pattern (our names or fio's).
    pub(crate) fn parse(s: &str) -> Result<Pattern, ParseError> {
        let bad = || {
            ParseError(format!(
                "unknown pattern '{s}'; accepted: seq-read,seq-write,rand-read,rand-write,rw-mix[:READ_PCT],copy (or fio's read,write,randread,randwrite,randrw)"
            ))
        };
        let t = s.trim().to_ascii_lowercase();
        let (head, pct) = match t.split_once(':') {
            Some((h, p)) => (h.to_string(), Some(p.to_string())),
            None => (t.clone(), None),
        };
        let p = match head.as_str() {
            "seq-read" | "read" | "rs" => Pattern::SeqRead,
            "seq-write" | "write" | "ws" => Pattern::SeqWrite,
            "rand-read" | "randread" | "rr" => Pattern::RandRead,
            "rand-write" | "randwrite" | "wr" => Pattern::RandWrite,
            "copy" | "seq-rw" => Pattern::Copy,
            "rw-mix" | "randrw" => {
                let pct = match pct.as_deref() {
                    None => 70,
                    Some(p) => match p.parse::<u8>() {
                        Ok(v) if v <= 100 => v,
                        _ => {
                            return Err(ParseError(format!(
                                "'{s}': the read percentage of rw-mix is a whole number from 0 to 100, e.g. rw-mix:70"
                            )))
                        }
                    },
                };
                return Ok(Pattern::RwMix(pct));
            }
            _ => return Err(bad()),
        };
        if pct.is_some() {
            return Err(bad());
        }
        Ok(p)
    }
}

impl Serialize for Pattern {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.name())
    }
}

/// `--engine`: any engine of [`ENGINES`], or the first one this kernel allows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum EngineChoice {
    /// The first available engine of [`ENGINES`] (io_uring when the kernel allows it,
    /// else sync; the result says which ran).
    Auto,
    /// The engine of [`ENGINES`] with this name.
    Named(&'static str),
}

impl Serialize for EngineChoice {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(match self {
            EngineChoice::Auto => "auto",
            EngineChoice::Named(n) => n,
        })
    }
}

/// Validated `peakbench disk` options.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct DiskOptions {
    /// `--dir`; `None` = the current directory.
    pub(crate) dir: Option<PathBuf>,
    /// `--pattern`.
    pub(crate) patterns: Vec<Pattern>,
    /// `--block`; `None` = each pattern's default.
    pub(crate) blocks: Option<Vec<u64>>,
    /// `--depth`.
    pub(crate) depths: Vec<u32>,
    /// `--jobs`.
    pub(crate) jobs: Vec<u32>,
    /// `--file-size`: bytes per job file (with `--shared-file`: of the one file).
    pub(crate) file_size: u64,
    /// `--shared-file`: every job in one file, each an equal contiguous part of it.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub(crate) shared_file: bool,
    /// `--engine`.
    pub(crate) engine: EngineChoice,
    /// `--buffered`.
    pub(crate) buffered: bool,
    /// `--runtime`; `None` = max(2 s, `--min-time`).
    #[serde(
        serialize_with = "crate::bench::common::secs_opt",
        rename = "runtime_s"
    )]
    pub(crate) runtime: Option<Duration>,
    /// `--ramp`.
    #[serde(serialize_with = "crate::bench::common::secs", rename = "ramp_s")]
    pub(crate) ramp: Duration,
    /// `--verify`.
    pub(crate) verify: bool,
    /// `--sustain`.
    #[serde(
        serialize_with = "crate::bench::common::secs_opt",
        rename = "sustain_s"
    )]
    pub(crate) sustain: Option<Duration>,
    /// `--allow-destructive`.
    pub(crate) allow_destructive: bool,
    /// What validation changed, for the results (a `--file-size` rounded down).
    #[serde(skip)]
    pub(crate) notes: Vec<String>,
}

impl Default for DiskOptions {
    fn default() -> Self {
        DiskOptions {
            dir: None,
            patterns: vec![
                Pattern::SeqRead,
                Pattern::SeqWrite,
                Pattern::RandRead,
                Pattern::RandWrite,
            ],
            blocks: None,
            depths: vec![1, 32],
            jobs: vec![1],
            file_size: 1 << 30,
            shared_file: false,
            engine: EngineChoice::Auto,
            buffered: false,
            runtime: None,
            ramp: Duration::from_secs(1),
            verify: false,
            sustain: None,
            allow_destructive: false,
            notes: Vec::new(),
        }
    }
}

impl DiskOptions {
    /// Block sizes of a pattern.
    pub(crate) fn blocks_for(&self, p: Pattern) -> Vec<u64> {
        self.blocks
            .clone()
            .unwrap_or_else(|| vec![p.default_block()])
    }
}

/// Checks one `--block` size: up to [`MAX_BLOCK`], and a multiple of [`SECTOR`] unless
/// `--buffered` (O_DIRECT moves whole sectors; the page cache takes any size, down to
/// 1 B). A size that is not a multiple is refused with the nearest valid sizes, not
/// rounded: a measurement is labelled with the block it really used.
fn check_block(b: u64, buffered: bool) -> Result<(), UsageError> {
    if b > MAX_BLOCK {
        return Err(UsageError::new(
            "--block",
            format!(
                "{} is above the limit of {}; use e.g. 4KiB or 1MiB",
                format_size(b),
                format_size(MAX_BLOCK)
            ),
        ));
    }
    if !b.is_multiple_of(SECTOR) && !buffered {
        let below = b / SECTOR * SECTOR;
        let above = below + SECTOR;
        let nearest = if below == 0 {
            format!("{} ({above} B)", format_size(above))
        } else {
            format!(
                "{} ({below} B) or {} ({above} B)",
                format_size(below),
                format_size(above)
            )
        };
        return Err(UsageError::new(
            "--block",
            format!(
                "{} ({b} B) is not a multiple of 512 B, which direct I/O needs; nearest: {nearest}, or add --buffered for any size",
                format_size_exact(b)
            ),
        ));
    }
    Ok(())
}

fn parse_counts(flag: &str, text: &str, max: u32, what: &str) -> Result<Vec<u32>, UsageError> {
    parse_list(text, |s| match s.trim().parse::<u32>() {
        Ok(n) if (1..=max).contains(&n) => Ok(n),
        Ok(_) => Err(ParseError(format!(
            "'{s}' is out of range; {what} go from 1 to {max}"
        ))),
        Err(_) => Err(ParseError(format!(
            "'{s}' is not a whole number; use e.g. 1,32"
        ))),
    })
    .map_err(|e| UsageError::new(flag, e))
}

/// Validates the raw `peakbench disk` flags (no filesystem access here).
pub(crate) fn parse(a: &DiskArgs) -> Result<DiskOptions, UsageError> {
    let mut o = DiskOptions::default();
    if let Some(d) = &a.dir {
        if d.trim().is_empty() {
            return Err(UsageError::new(
                "--dir",
                "empty path; give an existing directory",
            ));
        }
        o.dir = Some(PathBuf::from(d));
    }
    if let Some(t) = &a.pattern {
        o.patterns = parse_list(t, Pattern::parse).map_err(|e| UsageError::new("--pattern", e))?;
    }
    if let Some(t) = &a.block {
        let blocks = parse_list(t, parse_size).map_err(|e| UsageError::new("--block", e))?;
        for &b in &blocks {
            check_block(b, a.buffered)?;
        }
        if a.verify {
            if let Some(b) = blocks.iter().find(|&&b| b % SECTOR != 0) {
                return Err(UsageError::new(
                    "--verify",
                    format!(
                        "checks whole 512 B sectors, and the block {} ({b} B) is not a multiple of 512 B; use e.g. 4KiB or drop --verify",
                        format_size_exact(*b)
                    ),
                ));
            }
        }
        o.blocks = Some(blocks);
    }
    if let Some(t) = &a.depth {
        o.depths = parse_counts("--depth", t, MAX_DEPTH, "queue depths")?;
    }
    if let Some(t) = &a.jobs {
        o.jobs = parse_counts("--jobs", t, MAX_JOBS, "job counts")?;
    }
    if let Some(t) = &a.file_size {
        o.file_size = parse_size(t).map_err(|e| UsageError::new("--file-size", e))?;
        if o.file_size > MAX_FILE_SIZE {
            return Err(UsageError::new(
                "--file-size",
                format!(
                    "{} is above the limit of {}; use e.g. 1GiB",
                    format_size(o.file_size),
                    format_size(MAX_FILE_SIZE)
                ),
            ));
        }
    }
    // The size must be a multiple of every block: round it down to one, as fio does,
    // rather than refuse (the default size need not be a multiple of decimal
    // --buffered blocks such as 4KB, nor a given 256MB of 80MB blocks). A given size
    // that changes says so in the results.
    let mut blocks: Vec<u64> = o.patterns.iter().flat_map(|p| o.blocks_for(*p)).collect();
    blocks.sort_unstable();
    blocks.dedup();
    let lcm = blocks
        .iter()
        .try_fold(1u64, |l, &b| l.checked_mul(b / super::data::gcd(l, b)));
    let multiple = if blocks.len() == 1 {
        format!("the block size {}", format_size_exact(blocks[0]))
    } else {
        format!(
            "{}, the least common multiple of the block sizes",
            lcm.map_or("more than 16 EB".into(), format_size_exact)
        )
    };
    match lcm {
        Some(l) if l <= o.file_size => {
            let rounded = o.file_size - o.file_size % l;
            if rounded != o.file_size && a.file_size.is_some() {
                o.notes.push(format!(
                    "--file-size {} ({} B) rounded down to {} ({rounded} B), a multiple of {multiple}, as fio does",
                    format_size_exact(o.file_size),
                    o.file_size,
                    format_size_exact(rounded),
                ));
            }
            o.file_size = rounded;
        }
        _ => {
            return Err(UsageError::new(
                "--file-size",
                format!(
                    "{} ({} B) is smaller than {multiple}; a job file holds whole blocks, so give at least that or smaller --block sizes",
                    format_size_exact(o.file_size),
                    o.file_size,
                ),
            ));
        }
    }
    for p in &o.patterns {
        for b in o.blocks_for(*p) {
            if *p == Pattern::Copy && o.file_size / b < 2 {
                return Err(UsageError::new(
                    "--file-size",
                    format!(
                        "{} holds fewer than two blocks of {}; copy reads one half and writes the other, so use at least {}",
                        format_size_exact(o.file_size),
                        format_size_exact(b),
                        format_size_exact(2 * b)
                    ),
                ));
            }
        }
    }
    if let Some(t) = &a.engine {
        let want = t.trim().to_ascii_lowercase();
        o.engine = if want == "auto" {
            EngineChoice::Auto
        } else {
            match by_name(&want) {
                Some(e) => EngineChoice::Named(e.name()),
                None => {
                    let mut names: Vec<&str> = ENGINES.iter().map(|e| e.name()).collect();
                    names.sort_unstable();
                    return Err(UsageError::new(
                        "--engine",
                        format!("unknown engine '{t}'; accepted: auto,{}", names.join(",")),
                    ));
                }
            }
        };
    }
    if let Some(e) = match o.engine {
        EngineChoice::Named(n) => by_name(n),
        EngineChoice::Auto => None,
    } {
        if e.caps().has(Caps::SYNC) && o.depths.iter().any(|&d| d > 1) {
            let queued = ENGINES
                .iter()
                .find(|e| e.caps().has(Caps::ASYNC))
                .map_or("auto", |e| e.name());
            return Err(UsageError::new(
                "--depth",
                format!(
                    "the {} engine has one I/O in flight per job; use --depth 1 or --engine {queued}",
                    e.name()
                ),
            ));
        }
    }
    o.buffered = a.buffered;
    o.verify = a.verify;
    o.shared_file = a.shared_file;
    if a.shared_file && a.verify {
        return Err(UsageError::new(
            "--shared-file",
            "--verify tracks the data of each job's own file and does not run on a shared file; drop --verify or --shared-file",
        ));
    }
    o.allow_destructive = a.allow_destructive;
    if let Some(t) = &a.runtime {
        o.runtime = Some(parse_duration(t).map_err(|e| UsageError::new("--runtime", e))?);
    }
    if let Some(t) = &a.ramp {
        // A zero ramp is allowed here (unlike other durations): "0" or "0s".
        let z = t.trim().trim_end_matches('s').trim_end_matches('m');
        o.ramp = if z.parse::<f64>().is_ok_and(|v| v == 0.0) {
            Duration::ZERO
        } else {
            parse_duration(t).map_err(|e| UsageError::new("--ramp", e))?
        };
    }
    if let Some(t) = &a.sustain {
        let s = parse_duration(t).map_err(|e| UsageError::new("--sustain", e))?;
        if s < Duration::from_secs(2) {
            return Err(UsageError::new(
                "--sustain",
                "steady-state mode samples every second; give at least 2s, e.g. 10m",
            ));
        }
        o.sustain = Some(s);
    }
    Ok(o)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(f: impl FnOnce(&mut DiskArgs)) -> Result<DiskOptions, UsageError> {
        let mut a = DiskArgs::default();
        f(&mut a);
        parse(&a)
    }

    #[test]
    fn patterns() {
        assert_eq!(Pattern::parse("rw-mix").unwrap(), Pattern::RwMix(70));
        assert_eq!(Pattern::parse("rw-mix:30").unwrap(), Pattern::RwMix(30));
        assert_eq!(Pattern::parse("randread").unwrap(), Pattern::RandRead);
        assert_eq!(Pattern::parse("RS").unwrap(), Pattern::SeqRead);
        assert!(Pattern::parse("rw-mix:101").is_err());
        assert!(Pattern::parse("seq-read:5").is_err());
        assert!(Pattern::parse("zigzag").is_err());
        assert_eq!(Pattern::RwMix(70).name(), "rw-mix:70");
    }

    #[test]
    fn defaults() {
        let o = args(|_| {}).unwrap();
        assert_eq!(o.patterns.len(), 4);
        assert_eq!(o.depths, vec![1, 32]);
        assert_eq!(o.file_size, 1 << 30);
        assert_eq!(o.blocks_for(Pattern::SeqRead), vec![1 << 20]);
        assert_eq!(o.blocks_for(Pattern::RandWrite), vec![4096]);
    }

    #[test]
    fn errors_name_the_flag() {
        let e = args(|a| a.depth = Some("0".into())).unwrap_err().0;
        assert!(e.starts_with("--depth: '0' is out of range"), "{e}");
        let e = args(|a| a.jobs = Some("x".into())).unwrap_err().0;
        assert!(e.starts_with("--jobs:"), "{e}");
        let e = args(|a| a.block = Some("1000B".into())).unwrap_err().0;
        assert!(e.starts_with("--block:"), "{e}");
        let e = args(|a| {
            a.block = Some("1MiB".into());
            a.file_size = Some("512KiB".into());
        })
        .unwrap_err()
        .0;
        assert!(
            e.starts_with("--file-size: 512 KiB (524288 B) is smaller than the block size 1 MiB"),
            "{e}"
        );
        let e = args(|a| a.engine = Some("libaio".into())).unwrap_err().0;
        assert!(e.contains("auto,sync,uring"), "{e}");
        let e = args(|a| {
            a.engine = Some("sync".into());
            a.depth = Some("32".into());
        })
        .unwrap_err()
        .0;
        assert!(e.starts_with("--depth:"), "{e}");
        let e = args(|a| a.sustain = Some("1s".into())).unwrap_err().0;
        assert!(e.starts_with("--sustain:"), "{e}");
        let e = args(|a| a.dir = Some(" ".into())).unwrap_err().0;
        assert!(e.starts_with("--dir:"), "{e}");
    }

    #[test]
    fn engines_come_from_the_registry() {
        let engine = |t: &str| {
            args(|a| {
                a.engine = Some(t.into());
                a.depth = Some("1".into());
            })
            .map(|o| o.engine)
        };
        assert_eq!(engine("auto").unwrap(), EngineChoice::Auto);
        for (given, name) in [
            ("sync", "sync"),
            ("psync", "sync"),
            ("uring", "uring"),
            ("io_uring", "uring"),
            ("IO-URING", "uring"),
        ] {
            assert_eq!(engine(given).unwrap(), EngineChoice::Named(name), "{given}");
        }
        for e in ENGINES {
            assert_eq!(engine(e.name()).unwrap(), EngineChoice::Named(e.name()));
        }
        let e = engine("libaio").unwrap_err().0;
        assert_eq!(
            e,
            "--engine: unknown engine 'libaio'; accepted: auto,sync,uring"
        );
        // The report's config keeps the flag's words.
        let json = |c: EngineChoice| serde_json::to_value(c).unwrap();
        assert_eq!(json(EngineChoice::Auto), "auto");
        assert_eq!(json(EngineChoice::Named("uring")), "uring");
        // A sync engine has one I/O in flight; a queued one takes any depth.
        let e = args(|a| {
            a.engine = Some("psync".into());
            a.depth = Some("1,32".into());
        })
        .unwrap_err()
        .0;
        assert_eq!(
            e,
            "--depth: the sync engine has one I/O in flight per job; use --depth 1 or --engine uring"
        );
        assert!(args(|a| {
            a.engine = Some("uring".into());
            a.depth = Some("1,32".into());
        })
        .is_ok());
    }

    #[test]
    fn decimal_and_small_blocks() {
        // Decimal sizes: refused for O_DIRECT with the nearest sector multiples...
        let e = args(|a| a.block = Some("4KB".into())).unwrap_err().0;
        assert_eq!(
            e,
            "--block: 4 KB (4000 B) is not a multiple of 512 B, which direct I/O needs; nearest: 3.50 KiB (3584 B) or 4 KiB (4096 B), or add --buffered for any size"
        );
        let e = args(|a| a.block = Some("1B".into())).unwrap_err().0;
        assert!(
            e.contains("nearest: 512 B (512 B), or add --buffered"),
            "{e}"
        );
        // ...taken as they are with --buffered, the default file rounded to fit them.
        let o = args(|a| {
            a.block = Some("1B,100B,4KB,1MB".into());
            a.buffered = true;
        })
        .unwrap();
        assert_eq!(o.blocks, Some(vec![1, 100, 4000, 1_000_000]));
        assert_eq!(o.file_size % 1_000_000, 0);
        assert_eq!(o.file_size, 1073 * 1_000_000);
        // Sector multiples written in decimal need nothing: 512KB = 1000 sectors.
        assert_eq!(
            args(|a| a.block = Some("512KB".into())).unwrap().blocks,
            Some(vec![512_000])
        );
        // An explicit file size that the blocks do not divide is rounded down, as fio
        // does, and the results say so (issue #26: 256MB of 80MB blocks was refused).
        let o = args(|a| {
            a.block = Some("80MB".into());
            a.file_size = Some("256MB".into());
        })
        .unwrap();
        assert_eq!(o.file_size, 240_000_000);
        assert_eq!(
            o.notes,
            ["--file-size 256 MB (256000000 B) rounded down to 240 MB (240000000 B), a multiple of the block size 80 MB, as fio does"]
        );
        let o = args(|a| a.file_size = Some("1GB".into())).unwrap();
        assert_eq!(o.file_size, 953 << 20);
        assert_eq!(
            o.notes,
            ["--file-size 1 GB (1000000000 B) rounded down to 953 MiB (999292928 B), a multiple of 1 MiB, the least common multiple of the block sizes, as fio does"]
        );
        // A size that needs no rounding says nothing; one below a block is refused.
        assert!(args(|a| a.file_size = Some("1GiB".into()))
            .unwrap()
            .notes
            .is_empty());
        let e = args(|a| {
            a.block = Some("1MiB".into());
            a.file_size = Some("1000KiB".into());
        })
        .unwrap_err()
        .0;
        assert_eq!(
            e,
            "--file-size: 1000 KiB (1024000 B) is smaller than the block size 1 MiB; a job file holds whole blocks, so give at least that or smaller --block sizes"
        );
        // --verify checks sectors.
        let e = args(|a| {
            a.block = Some("100B".into());
            a.buffered = true;
            a.verify = true;
        })
        .unwrap_err()
        .0;
        assert!(e.starts_with("--verify: checks whole 512 B sectors"), "{e}");
        let e = args(|a| a.block = Some("2GiB".into())).unwrap_err().0;
        assert!(e.starts_with("--block: 2 GiB is above the limit"), "{e}");
    }

    #[test]
    fn copy_pattern() {
        assert_eq!(Pattern::parse("copy").unwrap(), Pattern::Copy);
        assert_eq!(Pattern::parse("seq-rw").unwrap(), Pattern::Copy);
        assert!(!Pattern::Copy.random() && Pattern::Copy.writes());
        assert_eq!(Pattern::Copy.default_block(), 1 << 20);
        let e = args(|a| {
            a.pattern = Some("copy".into());
            a.file_size = Some("1MiB".into());
        })
        .unwrap_err()
        .0;
        assert!(e.contains("fewer than two blocks"), "{e}");
    }

    #[test]
    fn zero_ramp() {
        assert_eq!(
            args(|a| a.ramp = Some("0".into())).unwrap().ramp,
            Duration::ZERO
        );
        assert_eq!(
            args(|a| a.ramp = Some("500ms".into())).unwrap().ramp,
            Duration::from_millis(500)
        );
    }
}
