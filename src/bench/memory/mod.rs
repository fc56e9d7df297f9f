//! `peakbench memory`: bandwidth (read, write, copy, scale, add, triad; sequential or
//! random blocks) and latency (pointer chase) from L1 to DRAM, 1..N pinned threads.
//!
//! Measurement rules (STREAM, likwid-bench, pmbw, MLC):
//! - working set ≥ 4× the last-level cache by default, heap (mmap) memory, 2 MiB
//!   aligned, transparent huge pages requested (and the grant reported);
//! - strong scaling: the working set is divided among the threads, each thread maps and
//!   first-touches its own region after being pinned;
//! - bytes counted as STREAM does (copy = 16 B per element, no write-allocate) and the
//!   convention is written on every result (`bytes` param and a note);
//! - non-temporal stores (`--nt auto`) when the working set exceeds the LLC;
//! - the first pass of every thread is checked against the scalar reference before the
//!   timed samples (the runner's calibration run), a wrong result fails the case;
//! - the DRAM peak comes from SMBIOS type 17 (`hw::memory`), or `--peak memory=…`.
//!
//! This file plans the cases (`plan`, the quick suite) and is the resource; the cases
//! are `cases.rs`, what a working set decides (its level, sizes, peaks) `sizes.rs`.

// Defined before the kernel modules, which take it by textual scope (`kernels`, `x86`).
/// A read kernel `$name` (with the attributes `$attr`: its doc, its `target_feature`):
/// a `kernels::KernelFn` that reads `$x[0..$n]` only, and returns what `$body` sums of it.
macro_rules! read_fn {
    ($(#[$attr:meta])* $name:ident, |$x:ident, $n:ident| $body:block) => {
        $(#[$attr])*
        pub(crate) unsafe fn $name(_d: *mut f64, $x: *const f64, _y: *const f64, _s: f64, $n: usize) -> f64 $body
    };
}

pub(crate) mod bandwidth;
pub(crate) mod bytes;
pub(crate) mod cases;
pub(crate) mod chase;
pub(crate) mod kernels;
pub(crate) mod level;
pub(crate) mod load;
pub(crate) mod loaded;
pub mod options;
pub(crate) mod placement;
pub(crate) mod region;
pub(crate) mod sizes;
#[cfg(target_arch = "x86_64")]
pub(crate) mod x86;

use super::common::{ram_refuses, ram_room, RAM_FRACTION};
use super::peaks::{PeakKey, PeakKind};
use super::resource::{self, Case, CommonFlag, Context, Plan, Run, UsageError};
use crate::measure::Scaling;
use crate::util::units::format_size;
use bandwidth::Geometry;
use cases::{BwCase, ChaseCase};
use kernels::Op;
pub use level::Level;
use options::{Kind, MemoryOptions, Nt, Pattern, SweepMode};
pub(crate) use sizes::peak_key;
use sizes::{
    choose, default_size, mapped_bytes, per_thread, quick_sweep_sizes, sweep_sizes, total,
    RAND_BLOCK,
};

/// The memory resource.
pub(crate) struct MemoryBench;

impl Plan for MemoryBench {
    type Options = MemoryOptions;

    fn refuses(&self, _o: &MemoryOptions, _flag: CommonFlag) -> Option<&'static str> {
        None
    }

    fn threads<'a>(&self, o: &'a MemoryOptions) -> Option<&'a [usize]> {
        o.threads.as_deref()
    }

    fn plan(&self, o: &MemoryOptions, ctx: &Context) -> Result<Vec<Box<dyn Case>>, UsageError> {
        if let Some(delays) = &o.loaded_latency {
            return loaded::plan(o, delays, ctx);
        }
        let host = ctx.host;
        let kinds = o.kernels.clone().unwrap_or_else(|| {
            if o.matrix {
                vec![Kind::Bw(Op::Read), Kind::Chase]
            } else {
                Kind::all()
            }
        });
        let fallback =
            crate::bench::common::default_threads(crate::bench::quota::thread_cores(host));
        // Where the threads and the memory go (#47): one placement, or the matrix's pairs,
        // each with its thread counts for bandwidth and for the chase.
        let places = placement::plan(o, host, &host.cpu.pin_order)?
            .into_iter()
            .map(|p| {
                let t = |chase| {
                    placement::threads(&p, o.threads.as_deref(), o.matrix, chase, &fallback)
                };
                Ok((t(false)?, t(true)?, p))
            })
            .collect::<Result<Vec<_>, UsageError>>()?;
        let max_threads = places
            .iter()
            .flat_map(|(b, c, _)| b.iter().chain(c))
            .copied()
            .max()
            .unwrap_or(1);
        let max_arrays = kinds
            .iter()
            .map(|k| match k {
                Kind::Bw(op) => op.arrays(),
                Kind::Chase => 1,
            })
            .max()
            .unwrap_or(1);
        let max_block = o.blocks.as_ref().and_then(|b| b.iter().max().copied());
        let sizes = if o.sweep == Some(SweepMode::Quick) {
            quick_sweep_sizes(host)
        } else if o.sweep.is_some() {
            sweep_sizes(host)
        } else {
            vec![o.size.unwrap_or_else(|| {
                default_size(host, max_block.unwrap_or(0), max_arrays, max_threads)
            })]
        };
        // Refuse up front what would not fit in memory (an OOM kill measures nothing).
        let biggest = *sizes.iter().max().unwrap_or(&0);
        let need = mapped_bytes(biggest, max_threads, max_arrays, ctx.opts.scaling)
            .filter(|&n| n <= options::MAX_SIZE)
            .ok_or_else(|| {
                // Without --size the default grew to fit --block, so name that flag.
                let flag = if o.size.is_none() && o.blocks.is_some() { "--block" } else { "--size" };
                UsageError::new(flag, format!(
                    "a working set of {} with {max_threads} thread{}{} needs more than the limit of {} (all threads and arrays together); use a smaller {flag}{}",
                    format_size(biggest),
                    if max_threads == 1 { "" } else { "s" },
                    if ctx.opts.scaling == Scaling::Weak { " (--weak: per thread)" } else { "" },
                    format_size(options::MAX_SIZE),
                    if max_threads == 1 { "" } else { " or fewer --threads" }
                ))
            })?;
        // The RAM check first: it names the real limit of a machine (the chase's own
        // limit lies far above any RAM this check accepts).
        let avail = host.memory.available_bytes;
        if ram_refuses(need, avail) {
            return Err(UsageError::new(
                "--size",
                format!(
                    "the working set needs {} but only {} is available ({} of MemAvailable {}); use a smaller --size",
                    format_size(need),
                    format_size(ram_room(avail)),
                    (RAM_FRACTION * 100.0).round(),
                    format_size(avail)
                ),
            ));
        }
        placement::fits_nodes(&places, need, host)?;
        if kinds.contains(&Kind::Chase) {
            let per = sizes
                .iter()
                .flat_map(|&s| places.iter().flat_map(|p| p.1.clone()).map(move |t| (s, t)))
                .map(|(s, t)| per_thread(s, t, ctx.opts.scaling))
                .max()
                .unwrap_or(0);
            if per > chase::MAX_BYTES {
                return Err(UsageError::new("--size", format!(
                    "the chase kernel links at most {} per thread ({} nodes of {} B) but this run gives a thread {}; use a smaller --size or more --threads",
                    format_size(chase::MAX_BYTES),
                    u32::MAX,
                    chase::NODE,
                    format_size(per)
                )));
            }
        }
        let mut cases: Vec<Box<dyn Case>> = Vec::new();
        for (bw_threads, chase_threads, place) in &places {
            for kind in &kinds {
                let threads = if *kind == Kind::Chase {
                    chase_threads
                } else {
                    bw_threads
                };
                for &size in &sizes {
                    for &t in threads {
                        match *kind {
                            Kind::Chase => cases.push(Box::new(ChaseCase {
                                size,
                                threads: t,
                                place: place.clone(),
                            })),
                            Kind::Bw(op) => {
                                let ws = total(size, t, ctx.opts.scaling);
                                let (kernel, nt_note) = choose(op, o.nt, ws, host);
                                for &pattern in &o.patterns {
                                    let blocks: Vec<Option<u64>> = match (&o.blocks, pattern) {
                                        (Some(b), _) => b.iter().map(|&b| Some(b)).collect(),
                                        (None, Pattern::Seq) => vec![None],
                                        (None, Pattern::Rand) => vec![Some(RAND_BLOCK)],
                                    };
                                    for block in blocks {
                                        let per = per_thread(size, t, ctx.opts.scaling);
                                        let fits = match block {
                                            Some(b) if b % 8 != 0 => {
                                                bytes::ByteGeometry::new(per, op.arrays(), b)
                                                    .map(|_| ())
                                            }
                                            _ => Geometry::new(per, op.arrays(), block).map(|_| ()),
                                        };
                                        if o.sweep.is_none() {
                                            if let Err(e) = fits {
                                                return Err(UsageError::new(
                                                "--block",
                                                format!(
                                                    "{e} with --size {} and {t} thread{}; lower --block or raise --size",
                                                    format_size(size),
                                                    if t == 1 { "" } else { "s" }
                                                ),
                                            ));
                                            }
                                        }
                                        cases.push(Box::new(BwCase {
                                            kernel,
                                            nt_note: nt_note.clone(),
                                            pattern,
                                            block,
                                            size,
                                            threads: t,
                                            count_wa: o.count_write_allocate,
                                            place: place.clone(),
                                        }));
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        Ok(cases)
    }
}

impl resource::Resource for MemoryBench {
    fn name(&self) -> &'static str {
        "memory"
    }

    fn about(&self) -> &'static str {
        "Memory bandwidth (read, write, copy, scale, add, triad) and latency, L1 to DRAM"
    }

    fn aliases(&self) -> &'static [resource::Alias] {
        use resource::alias;
        const ALIASES: &[resource::Alias] = &[
            resource::THREADS_ALIASES[0],
            resource::THREADS_ALIASES[1],
            alias("--msg", "--block", "the working set per thread"),
            alias("--file-size", "--size", "the working set"),
            resource::MIN_TIME_ALIAS,
        ];
        ALIASES
    }

    fn command(&self) -> clap::Command {
        resource::subcommand::<options::MemoryOptions>(self)
    }

    fn parse(&self, m: &clap::ArgMatches) -> Result<Box<dyn Run>, UsageError> {
        resource::parse_with(&MemoryBench, m, options::parse)
    }

    fn peak_keys(&self) -> &'static str {
        "memory, memory.l1|l2|l3|dram"
    }

    fn peak_key(&self, _key: &str, rest: &[&str]) -> Result<Option<(PeakKey, PeakKind)>, String> {
        Ok(match rest {
            [] => Some((peak_key(None), PeakKind::Bytes)),
            [l] => Level::ALL
                .into_iter()
                .find(|x| x.name().eq_ignore_ascii_case(l))
                .map(|x| (peak_key(Some(x)), PeakKind::Bytes)),
            _ => None,
        })
    }

    fn quick(&self, ctx: &Context) -> Vec<Box<dyn Case>> {
        let host = ctx.host;
        let size = default_size(host, 0, 3, 1);
        let cores = host.cpu.cores.max(1);
        let mut threads = vec![1];
        if cores > 1 {
            threads.push(cores);
        }
        let mut cases: Vec<Box<dyn Case>> = Vec::new();
        for op in [Op::Read, Op::Copy, Op::Triad] {
            let (kernel, nt_note) = choose(op, Nt::Auto, size, host);
            for &t in &threads {
                cases.push(Box::new(BwCase {
                    kernel,
                    nt_note: nt_note.clone(),
                    pattern: Pattern::Seq,
                    block: None,
                    size,
                    threads: t,
                    count_wa: false,
                    place: Default::default(),
                }));
            }
        }
        cases.push(Box::new(ChaseCase {
            size,
            threads: 1,
            place: Default::default(),
        }));
        cases
    }
}
