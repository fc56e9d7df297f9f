//! What a working set decides: the cache level it lands in ([`level_of`]), the default
//! and `--sweep` sizes, the byte counts of a plan (per thread, in all, mapped), the
//! `--peak` keys and the peak of a level (DRAM from the DIMMs, [`dram_peak`]), the
//! case labels' size spelling, and whether `--nt auto` stores non-temporally
//! ([`choose`]). Below the cases (`cases.rs`) and the plan (`mod.rs`).

use super::kernels::{self, Kernel, Op};
use super::level::Level;
use super::options::{self, Nt};
use crate::bench::peaks::{PeakKey, PeakOverrides};
use crate::hw::peak::Peak;
use crate::hw::HostInfo;
use crate::measure::Scaling;
use crate::util::units::format_size;

/// Fallback last-level cache size when the OS does not report one.
const LLC_FALLBACK: u64 = 32 << 20;
/// Default block for the random pattern: one 4 KiB page.
pub(crate) const RAND_BLOCK: u64 = 4096;

fn cache_size(host: &HostInfo, level: u8) -> Option<u64> {
    host.cpu
        .caches
        .iter()
        .find(|c| c.level == level && c.kind != "Instruction")
        .map(|c| c.size_bytes)
}

/// Where a working set of `total` bytes shared by `threads` threads lives. Private
/// levels (L1, L2) compare with the per-thread share, the shared L3 with the total.
pub(crate) fn level_of(host: &HostInfo, total: u64, threads: usize) -> Level {
    let per = total / threads.max(1) as u64;
    match (
        cache_size(host, 1),
        cache_size(host, 2),
        cache_size(host, 3),
    ) {
        (Some(l1), _, _) if per <= l1 => Level::L1,
        (_, Some(l2), _) if per <= l2 => Level::L2,
        (_, _, Some(l3)) if total <= l3 => Level::L3,
        _ => Level::Dram,
    }
}

pub(super) fn llc(host: &HostInfo) -> u64 {
    host.cpu
        .llc_bytes()
        .filter(|&b| b > 0)
        .unwrap_or(LLC_FALLBACK)
}

/// Default working set: 4× the LLC rounded up to a power of two, grown to fit the
/// largest block in every array of every thread.
pub(crate) fn default_size(
    host: &HostInfo,
    max_block: u64,
    max_arrays: usize,
    max_threads: usize,
) -> u64 {
    let base = llc(host).saturating_mul(4).next_power_of_two();
    // Saturating: `plan` refuses anything above `MAX_SIZE`, so a huge product is refused
    // there instead of wrapping here.
    let fit = max_block
        .saturating_mul(max_arrays as u64)
        .saturating_mul(max_threads as u64);
    base.max(fit.div_ceil(1 << 20).saturating_mul(1 << 20))
}

/// Working sets of `--sweep`: powers of two from 4 KiB to the first ≥ 4× LLC.
pub(crate) fn sweep_sizes(host: &HostInfo) -> Vec<u64> {
    let top = llc(host).saturating_mul(4).min(options::MAX_SIZE);
    let mut v = vec![4096u64];
    while *v.last().unwrap() < top {
        v.push(v.last().unwrap() * 2);
    }
    v
}

/// `--sweep quick`: one working set per cache level, the middle of that level's run of
/// [`sweep_sizes`] (as one thread sees it), so the staircase keeps its steps in a
/// fraction of the cases.
pub(crate) fn quick_sweep_sizes(host: &HostInfo) -> Vec<u64> {
    let all = sweep_sizes(host);
    let mut out = Vec::new();
    let mut i = 0;
    while i < all.len() {
        let level = level_of(host, all[i], 1);
        let run = all[i..]
            .iter()
            .take_while(|&&s| level_of(host, s, 1) == level)
            .count();
        out.push(all[i + run / 2]);
        i += run;
    }
    // DRAM: the largest size (4x LLC), the one the quick suite measures.
    if let (Some(last), Some(big)) = (out.last_mut(), all.last()) {
        if level_of(host, *big, 1) == Level::Dram {
            *last = *big;
        }
    }
    out
}

/// The `--peak` key `memory` (`None`) or `memory.l1|l2|l3|dram`: the one spelling of
/// the keys this resource looks up and accepts.
pub(crate) fn peak_key(level: Option<Level>) -> PeakKey {
    PeakKey::new(match level {
        None => "memory".to_string(),
        Some(l) => format!("memory.{}", l.name().to_ascii_lowercase()),
    })
}

/// The DRAM bandwidth peak: `--peak memory.dram=…`/`memory=…`, else SMBIOS type 17
/// (Σ populated DIMMs × MT/s × bus bytes), else unknown with the reason.
pub(crate) fn dram_peak(host: &HostInfo, overrides: &PeakOverrides) -> Peak {
    let keys = [peak_key(Some(Level::Dram)), peak_key(None)];
    if let Some(p) = overrides.peak(&keys) {
        return p;
    }
    let d = &host.memory.dimms;
    if d.is_empty() {
        return Peak::unknown(format!(
            "unknown: {}; supply it with --peak memory=…GB/s",
            host.memory.smbios
        ));
    }
    let value: f64 = d
        .iter()
        .map(|x| x.speed_mts as f64 * 1e6 * x.data_width_bits as f64 / 8.0)
        .sum();
    // Mixed DIMMs are named once per distinct speed and bus width, in order.
    let distinct = |v: &[u32]| {
        let mut out: Vec<u32> = Vec::new();
        for x in v {
            if !out.contains(x) {
                out.push(*x);
            }
        }
        out.iter()
            .map(|s| s.to_string())
            .collect::<Vec<_>>()
            .join("/")
    };
    let speeds: Vec<u32> = d.iter().map(|x| x.speed_mts).collect();
    let widths: Vec<u32> = d.iter().map(|x| x.data_width_bits / 8).collect();
    Peak {
        value: Some(value),
        source: format!(
            "{} DIMM{} x {} MT/s x {} B (SMBIOS type 17, configured speed; assumes one DIMM per channel)",
            d.len(),
            if d.len() == 1 { "" } else { "s" },
            distinct(&speeds),
            distinct(&widths)
        ),
    }
}

/// Peak for a level: DRAM from [`dram_peak`]; caches only from `--peak memory.l1=…`
/// (no table of cache bandwidths yet), otherwise none.
pub(super) fn level_peak(level: Level, host: &HostInfo, overrides: &PeakOverrides) -> Option<Peak> {
    if level == Level::Dram {
        return Some(dram_peak(host, overrides));
    }
    overrides.peak(&[peak_key(Some(level))])
}

/// The load-to-use floor of a chase over `per` bytes per thread on `threads` threads
/// whose working set lands in `level` (issue #48): `--peak memory.latency.LEVEL=…` or
/// `memory.latency=…`, else the caches' floor (`hw::latency::cache_floor`) at the add
/// chain's measured clock (on every core at once when the threads run on several).
pub(super) fn latency_peak(
    level: Level,
    per: u64,
    threads: usize,
    host: &HostInfo,
    overrides: &PeakOverrides,
) -> Peak {
    if let Some(p) = overrides.peak(&crate::bench::peaks::latency_keys(
        "memory",
        Some(level.name()),
    )) {
        return p;
    }
    let cores = threads.min(host.cpu.cores).max(1);
    let clock = host
        .clock
        .for_peak(crate::hw::clock::ClockKind::Scalar, cores)
        .filter(|_| host.cpu.emulated.is_none());
    let what = if cores > 1 {
        "measured, add chain on every core at once"
    } else {
        "measured, add chain"
    };
    let row = host.cpu.identified().row;
    crate::hw::latency::cache_floor(&crate::hw::latency::CacheFloorInput {
        per_thread: per,
        threads,
        caches: &host.cpu.caches,
        row: &row,
        clock: clock.map(|hz| (hz, what)),
    })
}

/// `256MiB`, `4KiB`, `8B`: a size `--size`/`--block` accept back, for case labels (the
/// results hold sizes as numbers of bytes).
pub(crate) fn size_param(bytes: u64) -> String {
    format_size(bytes).replace(' ', "")
}

/// Bytes each thread works on for a case of `total` bytes.
pub(super) fn per_thread(total: u64, threads: usize, scaling: Scaling) -> u64 {
    match scaling {
        Scaling::Strong => total / threads as u64,
        Scaling::Weak => total,
    }
}

/// Bytes all threads together work on: `--size`, or `--size` per thread with `--weak`.
pub(super) fn total(size: u64, threads: usize, scaling: Scaling) -> u64 {
    per_thread(size, threads, scaling).saturating_mul(threads as u64)
}

/// Bytes a plan maps at most: the biggest working set (times the threads with `--weak`)
/// plus 2 MiB of alignment per array and thread; `None` when that overflows 64 bits.
pub(super) fn mapped_bytes(
    biggest: u64,
    threads: usize,
    arrays: usize,
    scaling: Scaling,
) -> Option<u64> {
    let sets = match scaling {
        Scaling::Strong => biggest,
        Scaling::Weak => biggest.checked_mul(threads as u64)?,
    };
    let pad = (2u64 << 20)
        .checked_mul(threads as u64)?
        .checked_mul(arrays as u64)?;
    sets.checked_add(pad)
}

/// The kernel for `op` under `--nt` at working set `size`, with a note when the wish
/// for non-temporal stores could not be met.
pub(super) fn choose(
    op: Op,
    nt: Nt,
    size: u64,
    host: &HostInfo,
) -> (&'static Kernel, Option<String>) {
    let want = match nt {
        Nt::On => true,
        Nt::Off => false,
        Nt::Auto => size > llc(host),
    };
    let (k, met) = kernels::best(op, want, &host.cpu.features)
        .expect("generic kernels exist for every operation");
    let note = (!met).then(|| {
        format!(
            "non-temporal stores requested but no {} kernel has them; ordinary stores used",
            k.isa.name()
        )
    });
    (k, note)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hw::cpu::Cache;

    fn host() -> HostInfo {
        let mut h = HostInfo::detect(false);
        h.cpu.caches = vec![
            Cache {
                level: 1,
                kind: "Data".into(),
                size_bytes: 32 << 10,
                shared_by: 1,
            },
            Cache {
                level: 2,
                kind: "Unified".into(),
                size_bytes: 1 << 20,
                shared_by: 1,
            },
            Cache {
                level: 3,
                kind: "Unified".into(),
                size_bytes: 35 << 20,
                shared_by: 2,
            },
        ];
        h
    }

    #[test]
    fn levels_and_sizes_follow_the_caches() {
        let h = host();
        assert_eq!(level_of(&h, 16 << 10, 1), Level::L1);
        assert_eq!(level_of(&h, 64 << 10, 2), Level::L1);
        assert_eq!(level_of(&h, 64 << 10, 1), Level::L2);
        assert_eq!(level_of(&h, 8 << 20, 1), Level::L3);
        assert_eq!(level_of(&h, 256 << 20, 2), Level::Dram);
        assert_eq!(default_size(&h, 0, 3, 2), 256 << 20);
        assert_eq!(default_size(&h, 80 << 20, 3, 2), 480 << 20);
        let s = sweep_sizes(&h);
        assert_eq!(s.first(), Some(&4096));
        assert_eq!(s.last(), Some(&(256 << 20)));
        assert_eq!(size_param(256 << 20), "256MiB");
        // --sweep quick: one size inside each level, DRAM at 4x LLC.
        assert_eq!(
            quick_sweep_sizes(&h),
            [16 << 10, 256 << 10, 8 << 20, 256 << 20]
        );
    }

    #[test]
    fn dram_peak_sources() {
        let mut h = host();
        h.memory.dimms.clear();
        h.memory.smbios = "SMBIOS unreadable (test)".into();
        let p = dram_peak(&h, &PeakOverrides::default());
        assert_eq!(p.value, None);
        assert!(p.source.starts_with("unknown: SMBIOS unreadable (test)"));
        assert!(p.source.contains("--peak memory="));
        let mut o = PeakOverrides::default();
        o.insert(peak_key(None), 68e9);
        let p = dram_peak(&h, &o);
        assert_eq!(p.value, Some(68e9));
        assert!(p.source.starts_with("user"));
        h.memory.dimms = vec![
            crate::hw::memory::Dimm {
                locator: "A1".into(),
                size_bytes: 16 << 30,
                speed_mts: 2933,
                data_width_bits: 64,
            };
            6
        ];
        let p = dram_peak(&h, &PeakOverrides::default());
        // 6 channels x 2933 MT/s x 8 B = 140.784 GB/s
        assert_eq!(p.value, Some(6.0 * 2933e6 * 8.0));
        assert!(
            p.source.contains("6 DIMMs x 2933 MT/s x 8 B"),
            "{}",
            p.source
        );
        // Mixed DIMMs: each distinct speed once, in order; the sum is per DIMM.
        for (i, speed) in [(1, 3200), (3, 3200)] {
            h.memory.dimms[i].speed_mts = speed;
        }
        h.memory.dimms[5].data_width_bits = 32;
        let p = dram_peak(&h, &PeakOverrides::default());
        assert_eq!(
            p.value,
            Some((4.0 * 2933e6 + 2.0 * 3200e6) * 8.0 - 2933e6 * 4.0)
        );
        assert!(
            p.source.contains("6 DIMMs x 2933/3200 MT/s x 8/4 B"),
            "{}",
            p.source
        );
    }

    #[test]
    fn nt_auto_follows_the_llc() {
        let h = host();
        let (small, _) = choose(Op::Copy, Nt::Auto, 1 << 20, &h);
        assert!(!small.nt);
        let (big, note) = choose(Op::Copy, Nt::Auto, 1 << 30, &h);
        assert_eq!(big.nt, note.is_none());
        let (read, note) = choose(Op::Read, Nt::On, 1 << 30, &h);
        assert!(
            !read.nt && note.is_none(),
            "read has no stores: nothing to regret"
        );
    }
}
