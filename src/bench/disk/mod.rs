//! `peakbench disk`: fio-class file I/O — throughput, IOPS and completion-latency
//! percentiles per (pattern, block, depth, jobs), O_DIRECT by default.
//!
//! Plan time (nothing written yet, so refusing has no side effects beyond a probe in our
//! own fresh directory): the target is checked (exists, directory or — only with
//! `--allow-destructive` — a block device, writable), free space is compared with
//! `jobs × file-size`, the engine is resolved (`auto` → io_uring when the kernel allows
//! it), and O_DIRECT is probed. Each bad condition is one [`UsageError`] line (exit 2).
//!
//! Run time: job files are created and filled with incompressible data on first use and
//! shared by every case of the run; each measured configuration yields three results
//! (`throughput` B/s, `iops` IO/s, `latency` s with percentiles) — see [`case`].
//! Files are removed when the run ends or on SIGINT/SIGTERM ([`workspace`]); the
//! directory of a run killed outright is reclaimed by the next run in the same `--dir`,
//! or named with its size and the command to remove it ([`stale`]).

pub(crate) mod case;
pub(crate) mod data;
pub(crate) mod durability;
pub(crate) mod engine;
pub(crate) mod engines;
pub(crate) mod job;
pub(crate) mod libaio;
pub(crate) mod mmap;
pub mod options;
pub(crate) mod plan;
pub(crate) mod rate;
#[cfg(test)]
mod shared_tests;
mod stale;
pub(crate) mod steady;
pub(crate) mod sync;
#[cfg(test)]
mod tests;
pub(crate) mod uring;
pub(crate) mod workspace;
pub(crate) mod zipf;

use super::peaks::{PeakKey, PeakKind};
use super::resource::{self, Case, CommonFlag, Context, Plan, Resource, Run, UsageError};
use crate::hw::disk as hwdisk;
use crate::util::units::{format_size, format_size_exact};
use case::{peak_key, DiskPeak};
use engine::IoEngine;
use options::{DiskOptions, EngineChoice, Pattern, Validated};
pub(crate) use plan::RunPlan;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;
use workspace::Workspace;

/// The disk resource.
pub(crate) struct DiskBench;

/// Space left free on the filesystem after our files: max(256 MiB, 2 % of its size).
fn reserve(total: u64) -> u64 {
    (256u64 << 20).max(total / 50)
}

/// The resolved target of a run.
enum Target {
    Dir(PathBuf),
    /// A `--dir` that does not exist yet, in a directory that does: the run creates it
    /// (as `mkdir` would, one level) and removes it at the end when it is empty
    /// (issue #45 item 2: the documented `--dir target/sample` failed on a fresh clone).
    NewDir(PathBuf),
    Device(PathBuf),
}

/// The existing directory `dir` would be created in, when `dir` is missing but its
/// parent is a directory (a relative name without a parent is in the current one).
fn creatable(dir: &Path) -> Option<PathBuf> {
    let parent = match dir.parent() {
        Some(p) if p.as_os_str().is_empty() => Path::new("."),
        Some(p) => p,
        None => return None,
    };
    (dir.file_name().is_some() && parent.is_dir()).then(|| parent.to_path_buf())
}

fn check_target(o: &DiskOptions) -> Result<Target, UsageError> {
    use std::os::unix::fs::FileTypeExt;
    let dir = o.dir.clone().unwrap_or_else(|| PathBuf::from("."));
    let meta = match std::fs::metadata(&dir) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && creatable(&dir).is_some() => {
            return Ok(Target::NewDir(dir));
        }
        Err(e) => {
            return Err(UsageError::new(
                "--dir",
                format!(
                    "{} is not usable ({e}); give an existing directory, or a new one in an existing directory",
                    dir.display()
                ),
            ))
        }
        Ok(m) => m,
    };
    if meta.file_type().is_block_device() {
        if !o.allow_destructive {
            return Err(UsageError::new(
                "--dir",
                format!(
                    "{} is a block device; testing it overwrites its data, so it needs --allow-destructive",
                    dir.display()
                ),
            ));
        }
        return Ok(Target::Device(dir));
    }
    if !meta.is_dir() {
        return Err(UsageError::new(
            "--dir",
            format!(
                "{} is not a directory; give an existing directory",
                dir.display()
            ),
        ));
    }
    Ok(Target::Dir(dir))
}

/// (available, total) bytes of the filesystem holding `dir`, and whether it is read-only.
fn fs_space(dir: &Path) -> Option<(u64, u64, bool)> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(dir.as_os_str().as_bytes()).ok()?;
    // SAFETY: `statvfs` is plain integers, for which all zeroes is a valid value.
    let mut s: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: `c` is a NUL-terminated path and `s` a live out-struct of the right type.
    if unsafe { libc::statvfs(c.as_ptr(), &mut s) } != 0 {
        return None;
    }
    let f = s.f_frsize as u64;
    Some((
        s.f_bavail as u64 * f,
        s.f_blocks as u64 * f,
        s.f_flag & libc::ST_RDONLY != 0,
    ))
}

/// Picks the engine from [`engines::ENGINES`]; `Err` for an explicit engine the kernel
/// refuses. `auto` takes the first available one, with a note saying which (and why the
/// ones before it were passed over).
fn resolve_engine(
    choice: EngineChoice,
) -> Result<(&'static dyn IoEngine, Option<String>), UsageError> {
    match choice {
        EngineChoice::Named(name) => {
            let e = engines::by_name(name)
                .ok_or_else(|| UsageError::new("--engine", format!("{name} is not registered")))?;
            match e.available() {
                Ok(()) => Ok((e, None)),
                Err(why) => {
                    let other = engines::ENGINES
                        .iter()
                        .find(|o| o.name() != e.name() && o.available().is_ok())
                        .map_or("auto", |o| o.name());
                    Err(UsageError::new(
                        "--engine",
                        format!(
                            "{} is not available here ({why}); use --engine {other}",
                            e.title()
                        ),
                    ))
                }
            }
        }
        EngineChoice::Auto => {
            let mut passed = Vec::new();
            for &e in engines::ENGINES {
                match e.available() {
                    Ok(()) if passed.is_empty() => {
                        return Ok((e, Some(format!("--engine auto chose {}", e.title()))))
                    }
                    Ok(()) => {
                        return Ok((
                            e,
                            Some(format!(
                                "--engine auto: {}, ran {}",
                                passed.join(", "),
                                e.name()
                            )),
                        ))
                    }
                    Err(why) => passed.push(format!("{} unavailable ({why})", e.title())),
                }
            }
            Err(UsageError::new(
                "--engine",
                format!("no I/O engine is available here: {}", passed.join(", ")),
            ))
        }
    }
}

/// The refusal of `jobs` × `depth` × `block` bytes of I/O buffers beyond a quarter of
/// `ram`, naming the flag that fixes it: `--depth` when a smaller depth fits (with
/// several jobs, `--depth 1` is the threads-as-jobs experiment: one I/O in flight per
/// thread), else `--block` or `--jobs`.
fn buffers_too_big(jobs: u64, depth: u64, block: u64, ram: u64) -> UsageError {
    let cap = ram / 4;
    let total = jobs.saturating_mul(depth).saturating_mul(block);
    let head = format!(
        "jobs × depth × block = {jobs} × {depth} × {} = {} of I/O buffers exceeds a quarter of the {} of RAM",
        format_size_exact(block),
        format_size(total),
        format_size(ram)
    );
    let depth_fits = cap / jobs.saturating_mul(block).max(1);
    if depth > 1 && depth_fits >= 1 {
        let one = if jobs > 1 {
            " (--depth 1: one I/O in flight per job, the threads-as-jobs experiment)"
        } else {
            ""
        };
        UsageError::new(
            "--depth",
            format!(
                "{head}; use --depth {} or less{one}",
                depth_fits.min(depth - 1)
            ),
        )
    } else if jobs > 1 && cap / depth.saturating_mul(block).max(1) >= 1 {
        UsageError::new(
            "--jobs",
            format!(
                "{head}; use --jobs {} or less",
                cap / depth.saturating_mul(block).max(1)
            ),
        )
    } else {
        UsageError::new(
            "--block",
            format!(
                "{head}; use a --block of {} or less",
                format_size(cap / jobs.saturating_mul(depth).max(1))
            ),
        )
    }
}

/// Builds the shared plan: every check that can refuse the run happens here.
pub(crate) fn prepare(
    o: &Validated,
    ctx: &Context,
    window: Duration,
    windows: usize,
) -> Result<RunPlan, UsageError> {
    let target = check_target(o)?;
    let (engine, engine_note) = resolve_engine(o.engine)?;
    o.durability.check_engine(engine)?;
    if engine.caps().has(engine::Caps::MAPPED) && !o.buffered {
        return Err(UsageError::new(
            "--engine",
            format!(
                "{} copies through the page cache and has no O_DIRECT; add --buffered (or use --engine sync for O_DIRECT)",
                engine.title()
            ),
        ));
    }
    let max_jobs = *o.jobs.iter().max().unwrap_or(&1) as u64;
    let blocks: Vec<u64> = o.patterns.iter().flat_map(|p| o.blocks_for(*p)).collect();
    // Files on disk: one per job, or one shared by all (`--shared-file`).
    let files = if o.shared_file { 1 } else { max_jobs };
    let need = files.saturating_mul(o.file_size);
    // I/O buffers: jobs × depth × block at once; keep them within a quarter of RAM.
    let depth_max = if engine.caps().has(engine::Caps::SYNC) {
        1
    } else {
        *o.depths.iter().max().unwrap_or(&1) as u64
    };
    let buf_need = max_jobs
        .saturating_mul(depth_max)
        .saturating_mul(*blocks.iter().max().unwrap_or(&4096));
    let ram = ctx.host.memory.total_bytes;
    if ram > 0 && buf_need > ram / 4 {
        return Err(buffers_too_big(
            max_jobs,
            depth_max,
            *blocks.iter().max().unwrap_or(&4096),
            ram,
        ));
    }
    let unit = blocks
        .iter()
        .copied()
        .fold(0, data::gcd)
        .max(options::SECTOR);
    let device = match &target {
        Target::Dir(d) | Target::Device(d) => hwdisk::backing(d),
        Target::NewDir(d) => creatable(d).and_then(|p| hwdisk::backing(&p)),
    };
    let mut stale_notes = Vec::new();
    if let Some(dev) = &device {
        if let Some(b) = blocks.iter().find(|&&b| b % dev.logical_block != 0) {
            if !o.buffered {
                return Err(UsageError::new(
                    "--block",
                    format!(
                        "{} is not a multiple of {}'s logical block ({} B), which O_DIRECT requires; use a multiple or --buffered",
                        format_size(*b),
                        dev.name,
                        dev.logical_block
                    ),
                ));
            }
        }
    }
    let ws = match &target {
        Target::Device(d) => {
            let size = device.as_ref().map_or(0, |x| x.size_bytes);
            if size > 0 && need > size {
                return Err(UsageError::new(
                    "--file-size",
                    format!(
                        "{} jobs × {} = {} exceeds the device's {}",
                        files,
                        format_size(o.file_size),
                        format_size(need),
                        format_size(size)
                    ),
                ));
            }
            Workspace::on_device(d, o.file_size)
        }
        Target::Dir(d) | Target::NewDir(d) => {
            let new = matches!(target, Target::NewDir(_));
            // The filesystem the files land on: the new directory's parent's.
            let space_of = if new {
                creatable(d).unwrap_or_else(|| d.clone())
            } else {
                d.clone()
            };
            // Before the free-space check: a killed run's files take that space.
            for line in if new { Vec::new() } else { stale::reclaim(d) } {
                eprintln!("peakbench: {line}");
                stale_notes.push(line);
            }
            let (avail, total, ro) = fs_space(&space_of).ok_or_else(|| {
                UsageError::new(
                    "--dir",
                    format!("cannot read the free space of {}", d.display()),
                )
            })?;
            if total == 0 {
                // /proc, /sys and the like report no blocks at all: not a disk.
                return Err(UsageError::new(
                    "--dir",
                    format!(
                        "{} is on a filesystem with no storage (0 B in total, e.g. /proc or /sys); give a directory on a disk",
                        d.display()
                    ),
                ));
            }
            if ro {
                return Err(UsageError::new(
                    "--dir",
                    format!(
                        "{} is on a read-only filesystem; give a writable directory",
                        d.display()
                    ),
                ));
            }
            let keep = reserve(total);
            if need.saturating_add(keep) > avail {
                return Err(UsageError::new(
                    "--file-size",
                    format!(
                        "{} job file(s) × {} = {} do not fit in {}: {} free, and {} must stay free; use a smaller --file-size or fewer --jobs",
                        files,
                        format_size(o.file_size),
                        format_size(need),
                        d.display(),
                        format_size(avail),
                        format_size(keep)
                    ),
                ));
            }
            let ws = Workspace::in_dir(d, o.file_size, new).map_err(|e| {
                UsageError::new(
                    "--dir",
                    format!(
                        "cannot create a directory in {} ({e}); give a writable directory",
                        d.display()
                    ),
                )
            })?;
            if new {
                let said = format!(
                    "--dir {}: created (it did not exist; its parent does); removed at the end when empty",
                    d.display()
                );
                eprintln!("peakbench: {said}");
                stale_notes.push(said);
            }
            ws
        }
    };
    if !o.buffered {
        if let Err(e) = ws.probe_direct() {
            drop(ws);
            return Err(UsageError::new(
                "--dir",
                format!(
                    "the filesystem refuses O_DIRECT ({e}); use --buffered to measure through the page cache (labelled in the results)"
                ),
            ));
        }
    }
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(1)
        ^ std::process::id() as u64;
    Ok(RunPlan {
        verify: o.verify.then(|| std::sync::Mutex::new((Vec::new(), 0u16))),
        unit,
        opts: Validated {
            notes: o.notes.iter().cloned().chain(stale_notes).collect(),
            ..o.clone()
        },
        ws,
        engine,
        engine_note,
        device,
        seed,
        ramp: o.ramp,
        window,
        windows,
        io_limit: None,
    })
}

/// The measured configurations of a run, in order.
pub(crate) fn configs(o: &DiskOptions) -> Vec<case::Config> {
    let mut v = Vec::new();
    for &pattern in &o.patterns {
        for block in o.blocks_for(pattern) {
            for &depth in &o.depths {
                for &jobs in &o.jobs {
                    v.push(case::Config {
                        pattern,
                        block,
                        depth,
                        jobs,
                    });
                }
            }
        }
    }
    v
}

impl Plan for DiskBench {
    type Options = Validated;

    fn refuses(&self, _o: &Validated, flag: CommonFlag) -> Option<&'static str> {
        Some(match flag {
            CommonFlag::Weak => "disk jobs each have their own --file-size file already (weak scaling by construction); drop --weak and set --jobs and --file-size",
            CommonFlag::UntilStable => "disk cases run fixed --runtime windows, with no per-sample check of the threads; drop --until-stable and set --repeat",
            CommonFlag::Cpus => resource::CPUS_ONLY,
        })
    }

    fn hints<'a>(&self, o: &'a Validated) -> resource::Hints<'a> {
        resource::Hints {
            dir: o.dir.as_deref(),
            ..Default::default()
        }
    }

    fn plan(&self, o: &Validated, ctx: &Context) -> Result<Vec<Box<dyn Case>>, UsageError> {
        let (window, windows) = match o.sustain {
            Some(s) => (Duration::from_secs(1), s.as_secs().max(2) as usize),
            None => (
                o.runtime
                    .unwrap_or(Duration::from_secs(2).max(ctx.opts.min_time)),
                ctx.opts.repeat as usize,
            ),
        };
        let plan = Arc::new(prepare(o, ctx, window, windows)?);
        Ok(case::cases(&plan, &configs(o)))
    }
}

/// The size of the file the quick suite's disk cases write (the suite says so first).
pub(crate) const QUICK_FILE_SIZE: u64 = 256 << 20;

impl Resource for DiskBench {
    fn name(&self) -> &'static str {
        "disk"
    }

    fn about(&self) -> &'static str {
        "File I/O like fio: throughput, IOPS and completion-latency percentiles (O_DIRECT)"
    }

    fn never_takes(&self) -> &'static [CommonFlag] {
        &[CommonFlag::Weak, CommonFlag::UntilStable, CommonFlag::Cpus]
    }

    fn aliases(&self) -> &'static [resource::Alias] {
        use resource::alias;
        const JOBS: &str = "parallel jobs, each with its own file";
        const ALIASES: &[resource::Alias] = &[
            alias("--threads", "--jobs", JOBS),
            alias("--streams", "--jobs", JOBS),
            alias("--size", "--file-size", "the size of each job's file"),
            alias("--msg", "--block", "the size of each I/O"),
            alias("--time", "--runtime", "how long each case runs"),
            alias("--kernel", "--pattern", "seq-read, rand-write, …"),
        ];
        ALIASES
    }

    fn quick_notice(&self) -> Option<String> {
        let here = std::env::current_dir()
            .map(|d| d.display().to_string())
            .unwrap_or_else(|_| ".".into());
        Some(format!(
            "the disk cases write a {} file into the current directory, {here} (in a peakbench-disk-* directory, removed at the end); cd to another disk to measure it",
            crate::util::units::format_size(QUICK_FILE_SIZE)
        ))
    }

    fn command(&self) -> clap::Command {
        resource::subcommand::<options::DiskOptions>(self)
    }

    fn parse(&self, m: &clap::ArgMatches) -> Result<Box<dyn Run>, UsageError> {
        resource::parse_with(&DiskBench, m, options::parse)
    }

    fn peak_keys(&self) -> &'static str {
        "disk, disk.throughput, disk.iops"
    }

    fn peak_key(&self, _key: &str, rest: &[&str]) -> Result<Option<(PeakKey, PeakKind)>, String> {
        Ok(match rest {
            [] => Some((peak_key(None), PeakKind::Bytes)),
            ["throughput"] => Some((peak_key(Some(DiskPeak::Throughput)), PeakKind::Bytes)),
            ["iops"] => Some((peak_key(Some(DiskPeak::Iops)), PeakKind::Iops)),
            _ => None,
        })
    }

    fn quick(&self, ctx: &Context) -> Vec<Box<dyn Case>> {
        // seq 1 MiB and rand 4 KiB, read and write, at depth 32 and 1: 8 configurations
        // of 0.2 s ramp + repeat × 0.5 s on a 256 MiB file (≈ 15 s with 3 repeats).
        let o = Validated::sized(
            DiskOptions {
                patterns: vec![
                    Pattern::SeqRead,
                    Pattern::SeqWrite,
                    Pattern::RandRead,
                    Pattern::RandWrite,
                ],
                depths: vec![32, 1],
                ramp: Duration::from_millis(200),
                ..DiskOptions::default()
            },
            QUICK_FILE_SIZE,
        );
        match prepare(
            &o,
            ctx,
            Duration::from_millis(500),
            ctx.opts.repeat as usize,
        ) {
            Ok(plan) => case::cases(&Arc::new(plan), &configs(&o)),
            Err(e) => vec![Box::new(case::Skipped(e.0))],
        }
    }
}
