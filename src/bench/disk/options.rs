//! `peakbench disk` options: [`DiskOptions`], its flags typed where clap reads them (a
//! bad value is one line naming the flag and the accepted form, exit code 2), and
//! [`parse`] for the checks that span flags, which gives the [`Validated`] options: the
//! flags with the file size fitted to the blocks and the notes that fitting wrote.
//! Checks that need the filesystem (free space, O_DIRECT) happen at plan time, still
//! before any I/O.

use super::engine::Caps;
use super::engines::{by_name, ENGINES};
use crate::bench::flags::{Choices, List};
use crate::util::units::{
    format_size, format_size_exact, parse_duration, parse_list, parse_size, ParseError,
};
use crate::util::usage::UsageError;
use clap::Args;
use serde::{Serialize, Serializer};
use std::path::PathBuf;
use std::time::Duration;

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

/// `peakbench disk`: its flags, typed where clap reads them. [`parse`] checks what spans
/// flags and fits the file size to the blocks ([`Validated`]).
#[derive(Debug, Clone, Args, Serialize)]
pub(crate) struct DiskOptions {
    /// Directory for the test files (a temporary subdirectory is created and removed) [default: current directory]
    #[arg(long, value_name = "DIR", value_parser = dir)]
    pub(crate) dir: Option<PathBuf>,
    /// Patterns: seq-read,seq-write,rand-read,rand-write,rw-mix or rw-mix:READ_PCT, copy (sequential read+write) (fio names read,write,randread,randwrite,randrw also accepted) [default: the four seq/rand ones]
    #[arg(
        long = "pattern",
        value_name = "LIST",
        default_value = "seq-read,seq-write,rand-read,rand-write",
        hide_default_value = true,
        value_parser = patterns
    )]
    pub(crate) patterns: List<Pattern>,
    /// Block sizes, e.g. 4KiB,1MiB: multiples of 512 B, or any size from 1 B with --buffered (4KB = 4000 B) [default: 1MiB for seq-* and copy, 4KiB for rand-* and rw-mix]
    #[arg(long = "block", value_name = "LIST", allow_hyphen_values = true, value_parser = blocks)]
    pub(crate) blocks: Option<List<u64>>,
    /// I/Os in flight per job (queue depth) [default: 1,32]
    #[arg(
        long = "depth",
        value_name = "LIST",
        allow_hyphen_values = true,
        default_value = "1,32",
        hide_default_value = true,
        value_parser = depths
    )]
    pub(crate) depths: List<u32>,
    /// Parallel jobs, one file and one thread each [default: 1]
    #[arg(
        long,
        value_name = "LIST",
        allow_hyphen_values = true,
        default_value = "1",
        hide_default_value = true,
        value_parser = jobs
    )]
    pub(crate) jobs: List<u32>,
    /// Size of each job's file, a multiple of every block [default: 1GiB, rounded down to a multiple of the blocks]
    #[arg(
        long = "file-size",
        id = "file_size",
        value_name = "SIZE",
        allow_hyphen_values = true,
        value_parser = file_size
    )]
    #[serde(skip)]
    pub(crate) file_size_given: Option<u64>,
    /// All jobs share one file of --file-size, each job an equal contiguous part of it (strong scaling over one file, as fio's shared filename with offset_increment)
    #[arg(long)]
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub(crate) shared_file: bool,
    /// I/O engine: auto (io_uring when the kernel allows it, else sync) or one of the engines [default: auto]
    #[arg(
        long,
        value_name = "ENGINE",
        default_value = "auto",
        hide_default_value = true,
        value_parser = Choices::new(engine, engine_names)
    )]
    pub(crate) engine: EngineChoice,
    /// Go through the page cache instead of O_DIRECT (labelled in the results)
    #[arg(long)]
    pub(crate) buffered: bool,
    /// Measured time per repeat [default: 2s, or --min-time if longer]
    #[arg(long, value_name = "DUR", value_parser = parse_duration)]
    #[serde(
        serialize_with = "crate::bench::common::secs_opt",
        rename = "runtime_s"
    )]
    pub(crate) runtime: Option<Duration>,
    /// Unmeasured I/O before the first repeat [default: 1s]
    #[arg(
        long,
        value_name = "DUR",
        default_value = "1s",
        hide_default_value = true,
        value_parser = ramp
    )]
    #[serde(serialize_with = "crate::bench::common::secs", rename = "ramp_s")]
    pub(crate) ramp: Duration,
    /// Check the data: reads compare with what was written, writes are read back after the case
    #[arg(long)]
    pub(crate) verify: bool,
    /// Steady-state mode: one run this long sampled every second (e.g. 10m for the SSD write cliff)
    #[arg(long, value_name = "DUR", value_parser = sustain)]
    #[serde(
        serialize_with = "crate::bench::common::secs_opt",
        rename = "sustain_s"
    )]
    pub(crate) sustain: Option<Duration>,
    /// Write durability (`--fsync`, `--fdatasync`, `--sync`).
    #[command(flatten)]
    #[serde(flatten)]
    pub(crate) durability: super::durability::DurabilityFlags,
    /// I/O rate cap (`--rate-iops`).
    #[command(flatten)]
    #[serde(flatten)]
    pub(crate) rate: super::rate::RateFlags,
    /// Block popularity of the random patterns (`--distribution`).
    #[command(flatten)]
    #[serde(flatten)]
    pub(crate) distribution: super::zipf::DistributionFlags,
    /// The steady-state stop rule of `--sustain` (`--ss`, `--ss-dur`, `--ss-ramp`).
    #[command(flatten)]
    #[serde(flatten)]
    pub(crate) steady: super::steady::SteadyFlags,
    /// Allow --dir to be a block device (its data in the tested range is DESTROYED by writes)
    #[arg(long)]
    pub(crate) allow_destructive: bool,
}

/// The disk options once validated ([`parse`]): the flags (read through `Deref`) and
/// what is derived from several of them, as the report's `config` shows them (the
/// flags' fields and `file_size`).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Validated {
    /// The flags.
    #[serde(flatten)]
    pub(crate) flags: DiskOptions,
    /// Bytes per job file (with `--shared-file`: of the one file): `--file-size` or
    /// 1 GiB, rounded down to a multiple of the blocks.
    pub(crate) file_size: u64,
    /// What validation changed, for the results (a `--file-size` rounded down).
    #[serde(skip)]
    pub(crate) notes: Vec<String>,
}

impl std::ops::Deref for Validated {
    type Target = DiskOptions;
    fn deref(&self) -> &DiskOptions {
        &self.flags
    }
}

impl Validated {
    /// Options taken as they are, with a file size of their own (the quick suite's):
    /// nothing to fit, nothing to note.
    pub(crate) fn sized(flags: DiskOptions, file_size: u64) -> Validated {
        Validated {
            flags,
            file_size,
            notes: Vec::new(),
        }
    }
}

/// `--file-size` when not given: 1 GiB.
const DEFAULT_FILE_SIZE: u64 = 1 << 30;

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
            file_size_given: None,
            shared_file: false,
            engine: EngineChoice::Auto,
            buffered: false,
            runtime: None,
            ramp: Duration::from_secs(1),
            verify: false,
            sustain: None,
            durability: Default::default(),
            rate: Default::default(),
            distribution: Default::default(),
            steady: Default::default(),
            allow_destructive: false,
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

fn parse_counts(text: &str, max: u32, what: &str) -> Result<List<u32>, ParseError> {
    parse_list(text, |s| match s.trim().parse::<u32>() {
        Ok(n) if (1..=max).contains(&n) => Ok(n),
        Ok(_) => Err(ParseError(format!(
            "'{s}' is out of range; {what} go from 1 to {max}"
        ))),
        Err(_) => Err(ParseError(format!(
            "'{s}' is not a whole number; use e.g. 1,32"
        ))),
    })
}

/// `--dir`: a path, not empty (whether it exists is the plan's to check).
fn dir(text: &str) -> Result<PathBuf, ParseError> {
    if text.trim().is_empty() {
        return Err(ParseError("empty path; give an existing directory".into()));
    }
    Ok(PathBuf::from(text))
}

/// `--pattern`: our names or fio's.
fn patterns(text: &str) -> Result<List<Pattern>, ParseError> {
    parse_list(text, Pattern::parse)
}

/// `--block`: sizes (checked against `--buffered` by `parse`).
fn blocks(text: &str) -> Result<List<u64>, ParseError> {
    parse_list(text, parse_size)
}

/// `--depth`: 1 to [`MAX_DEPTH`].
fn depths(text: &str) -> Result<List<u32>, ParseError> {
    parse_counts(text, MAX_DEPTH, "queue depths")
}

/// `--jobs`: 1 to [`MAX_JOBS`].
fn jobs(text: &str) -> Result<List<u32>, ParseError> {
    parse_counts(text, MAX_JOBS, "job counts")
}

/// `--file-size`: up to [`MAX_FILE_SIZE`].
fn file_size(text: &str) -> Result<u64, ParseError> {
    let s = parse_size(text)?;
    if s > MAX_FILE_SIZE {
        return Err(ParseError(format!(
            "{} is above the limit of {}; use e.g. 1GiB",
            format_size(s),
            format_size(MAX_FILE_SIZE)
        )));
    }
    Ok(s)
}

/// The `--engine` choices: auto and the registry's engines.
fn engine_names() -> Vec<&'static str> {
    let mut names: Vec<&str> = ENGINES.iter().map(|e| e.name()).collect();
    names.sort_unstable();
    std::iter::once("auto").chain(names).collect()
}

/// `--engine`: auto, or an engine of [`ENGINES`] (by any of its names).
fn engine(text: &str) -> Result<EngineChoice, ParseError> {
    let want = text.trim().to_ascii_lowercase();
    if want == "auto" {
        return Ok(EngineChoice::Auto);
    }
    match by_name(&want) {
        Some(e) => Ok(EngineChoice::Named(e.name())),
        None => Err(ParseError(format!(
            "unknown engine '{text}'; accepted: {}",
            engine_names().join(",")
        ))),
    }
}

/// `--ramp`: a duration, or zero ("0", "0s").
fn ramp(text: &str) -> Result<Duration, ParseError> {
    let z = text.trim().trim_end_matches('s').trim_end_matches('m');
    if z.parse::<f64>().is_ok_and(|v| v == 0.0) {
        return Ok(Duration::ZERO);
    }
    parse_duration(text)
}

/// `--sustain`: at least 2 s (it samples every second).
fn sustain(text: &str) -> Result<Duration, ParseError> {
    let s = parse_duration(text)?;
    if s < Duration::from_secs(2) {
        return Err(ParseError(
            "steady-state mode samples every second; give at least 2s, e.g. 10m".into(),
        ));
    }
    Ok(s)
}

/// The checks that span flags (no filesystem access here): the blocks against
/// `--buffered` and `--verify`, the file size fitted to the blocks, the engine against
/// `--depth`, `--shared-file` against `--verify`.
pub(crate) fn parse(a: &DiskOptions) -> Result<Validated, UsageError> {
    let o = a;
    if let Some(blocks) = &o.blocks {
        check_blocks(blocks, o.buffered, o.verify)?;
    }
    let (file_size, notes) = fit_file_size(o)?;
    check_engine_depth(o.engine, &o.depths)?;
    o.steady.check(o.sustain)?;
    if o.distribution.zipf_theta.is_some() && !o.patterns.iter().any(|p| p.random()) {
        return Err(UsageError::new(
            "--distribution",
            "applies to the random patterns (rand-read, rand-write, rw-mix); add one with --pattern",
        ));
    }
    if o.shared_file && o.verify {
        return Err(UsageError::new(
            "--shared-file",
            "--verify tracks the data of each job's own file and does not run on a shared file; drop --verify or --shared-file",
        ));
    }
    Ok(Validated {
        flags: o.clone(),
        file_size,
        notes,
    })
}

/// Each `--block` size ([`check_block`]), and whole sectors for `--verify`.
fn check_blocks(blocks: &[u64], buffered: bool, verify: bool) -> Result<(), UsageError> {
    for &b in blocks {
        check_block(b, buffered)?;
    }
    if verify {
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
    Ok(())
}

/// The file size: `--file-size` (or 1 GiB) rounded down to a multiple of every block,
/// as fio does, rather than refused (the default size need not be a multiple of
/// decimal --buffered blocks such as 4KB, nor a given 256MB of 80MB blocks); a given
/// size that changes says so in the notes returned with it. Refused when it holds no
/// whole block, or fewer than two for `copy`.
fn fit_file_size(o: &DiskOptions) -> Result<(u64, Vec<String>), UsageError> {
    let size = o.file_size_given.unwrap_or(DEFAULT_FILE_SIZE);
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
    let mut notes = Vec::new();
    let file_size = match lcm {
        Some(l) if l <= size => {
            let rounded = size - size % l;
            if rounded != size && o.file_size_given.is_some() {
                notes.push(format!(
                    "--file-size {} ({} B) rounded down to {} ({rounded} B), a multiple of {multiple}, as fio does",
                    format_size_exact(size),
                    size,
                    format_size_exact(rounded),
                ));
            }
            rounded
        }
        _ => {
            return Err(UsageError::new(
                "--file-size",
                format!(
                    "{} ({} B) is smaller than {multiple}; a job file holds whole blocks, so give at least that or smaller --block sizes",
                    format_size_exact(size),
                    size,
                ),
            ));
        }
    };
    for p in &o.patterns {
        for b in o.blocks_for(*p) {
            if *p == Pattern::Copy && file_size / b < 2 {
                return Err(UsageError::new(
                    "--file-size",
                    format!(
                        "{} holds fewer than two blocks of {}; copy reads one half and writes the other, so use at least {}",
                        format_size_exact(file_size),
                        format_size_exact(b),
                        format_size_exact(2 * b)
                    ),
                ));
            }
        }
    }
    Ok((file_size, notes))
}

/// A sync engine has one I/O in flight per job: `--depth` above 1 is refused with it.
fn check_engine_depth(engine: EngineChoice, depths: &[u32]) -> Result<(), UsageError> {
    let EngineChoice::Named(name) = engine else {
        return Ok(());
    };
    let Some(e) = by_name(name) else {
        return Ok(());
    };
    if e.caps().has(Caps::SYNC) && depths.iter().any(|&d| d > 1) {
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
    Ok(())
}

#[cfg(test)]
#[path = "options_tests.rs"]
mod tests;
