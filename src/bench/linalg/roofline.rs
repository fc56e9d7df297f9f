//! The measured roofline (`peakbench linalg --routine roofline`): one kernel swept over
//! arithmetic intensity (1/8 to 64 FLOP per byte loaded) on arrays sized for L1, L2,
//! the last-level cache and DRAM, so that each memory level shows its own measured
//! ceiling: bandwidth-bound at low intensity, compute-bound at high.
//!
//! The kernel reads each fp64 element `x` once, runs `k` dependent FMAs on it
//! (`y = y·a + b`, a converging recurrence that never overflows) and adds the result to
//! an accumulator: 2k + 1 FLOP per 8 bytes loaded, intensity (2k + 1) / 8. k = 0 is
//! a plain sum (1/8 FLOP/B); k = 256 is 64.1 FLOP/B. Eight vectors are in flight per
//! step (eight independent chains, enough to cover the FMA latency on two pipes), and
//! the sum is consumed (`black_box`) and compared with a plain scalar loop in the
//! tests.

use crate::hw::HostInfo;
use crate::measure::runner::Workload;

/// FMAs per element of the sweep: intensities 1/8, 3/8, 5/8, 9/8, … 513/8 FLOP/B.
pub(crate) const KS: [u32; 10] = [0, 1, 2, 4, 8, 16, 32, 64, 128, 256];

/// The recurrence's factor and increment (exact in fp64; y stays within [-0.5, 1]).
const A: f64 = 1.0 - 1.0 / 1024.0;
const B: f64 = 1.0 / 1024.0;

/// Elements per step: 8 vectors of 4 fp64 (the AVX2 kernel's block).
pub(crate) const BLOCK: usize = 32;

/// FLOP per element at `k` FMAs.
pub(crate) fn flops_per_elem(k: u32) -> f64 {
    2.0 * k as f64 + 1.0
}

/// FLOP per byte loaded at `k` FMAs.
pub(crate) fn intensity(k: u32) -> f64 {
    flops_per_elem(k) / 8.0
}

/// The roofline's memory levels and the bytes per thread each gets: half of L1 and of
/// L2 (private), half of the last-level cache shared by the threads, and the larger of
/// 4× the LLC and 256 MiB shared for DRAM.
pub(crate) fn levels(host: &HostInfo, threads: usize) -> Vec<(&'static str, u64)> {
    let size = |level: u8| {
        host.cpu
            .caches
            .iter()
            .find(|c| c.level == level && c.kind != "Instruction")
            .map(|c| c.size_bytes)
            .filter(|&b| b > 0)
    };
    let t = threads.max(1) as u64;
    let mut v = Vec::new();
    if let Some(l1) = size(1) {
        v.push(("L1", l1 / 2));
    }
    if let Some(l2) = size(2) {
        v.push(("L2", l2 / 2));
    }
    let llc = host.cpu.llc_bytes().filter(|&b| b > 0);
    if let (Some(l3), Some(_)) = (size(3), llc) {
        v.push(("L3", l3 / 2 / t));
    }
    let dram = llc.unwrap_or(32 << 20).saturating_mul(4).max(256 << 20);
    v.push(("DRAM", dram / t));
    v
}

/// The plain scalar reference: the same recurrence per element, summed in order.
#[cfg(test)]
pub(crate) fn reference(x: &[f64], k: u32) -> f64 {
    x.iter()
        .map(|&v| (0..k).fold(v, |y, _| y.mul_add(A, B)))
        .sum()
}

/// The kernel over `x` (a multiple of [`BLOCK`] long): the sum of every element after
/// `k` FMAs. Uses AVX2+FMA where the CPU has them, else portable code.
pub(crate) fn sweep(x: &[f64], k: u32) -> f64 {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
        {
            // SAFETY: the features were just checked.
            return unsafe { sweep_avx2(x, k) };
        }
    }
    sweep_portable(x, k)
}

/// Portable version: eight independent chains, as the vector kernel's lanes.
fn sweep_portable(x: &[f64], k: u32) -> f64 {
    let mut acc = [0.0f64; 8];
    for c in x.chunks_exact(8) {
        let mut y = [0.0f64; 8];
        y.copy_from_slice(c);
        for _ in 0..k {
            for v in &mut y {
                *v = v.mul_add(A, B);
            }
        }
        for (a, v) in acc.iter_mut().zip(y) {
            *a += v;
        }
    }
    acc.iter().sum()
}

/// AVX2+FMA: 8 vectors (32 elements) loaded per step, `k` FMAs on each, then added to
/// 8 accumulators.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn sweep_avx2(x: &[f64], k: u32) -> f64 {
    use std::arch::x86_64::*;
    let a = _mm256_set1_pd(A);
    let b = _mm256_set1_pd(B);
    let mut acc = [_mm256_setzero_pd(); 8];
    for c in x.chunks_exact(BLOCK) {
        let p = c.as_ptr();
        let mut y = [_mm256_setzero_pd(); 8];
        for (i, v) in y.iter_mut().enumerate() {
            // SAFETY: `c` holds BLOCK = 8 × 4 elements.
            *v = unsafe { _mm256_loadu_pd(p.add(4 * i)) };
        }
        for _ in 0..k {
            for v in &mut y {
                *v = _mm256_fmadd_pd(*v, a, b);
            }
        }
        for (s, v) in acc.iter_mut().zip(y) {
            *s = _mm256_add_pd(*s, v);
        }
    }
    let mut lanes = [0.0f64; 4];
    let mut total = 0.0;
    for s in acc {
        // SAFETY: `lanes` holds 4 f64.
        unsafe { _mm256_storeu_pd(lanes.as_mut_ptr(), s) };
        total += lanes.iter().sum::<f64>();
    }
    total
}

/// One thread's share of a roofline case: its array, swept `iters` times per run.
pub(crate) struct Sweep {
    /// The array (a multiple of [`BLOCK`] elements), first touched on its thread.
    pub x: Vec<f64>,
    /// FMAs per element.
    pub k: u32,
}

impl Sweep {
    /// `bytes` of data (rounded down to whole blocks, at least one) for `k` FMAs per
    /// element, filled with values in [-0.5, 0.5).
    pub(crate) fn new(bytes: u64, k: u32, seed: u64) -> Sweep {
        let n = ((bytes / 8) as usize / BLOCK).max(1) * BLOCK;
        let x = (0..n as u64)
            .map(|i| super::dense::uniform(seed, i))
            .collect();
        Sweep { x, k }
    }
}

impl Workload for Sweep {
    fn run(&mut self, iters: u64) -> f64 {
        let mut s = 0.0;
        for _ in 0..iters {
            s += sweep(std::hint::black_box(&self.x), self.k);
        }
        std::hint::black_box(s);
        iters as f64 * self.x.len() as f64 * flops_per_elem(self.k)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_kernel_matches_the_scalar_reference_at_every_intensity() {
        let s = Sweep::new(8 * 1000, 0, 5);
        assert_eq!(s.x.len() % BLOCK, 0);
        for k in KS {
            let want = reference(&s.x, k);
            for got in [sweep(&s.x, k), sweep_portable(&s.x, k)] {
                // Same operations per element; only the order of the final sum differs.
                assert!(
                    (got - want).abs() <= 1e-12 * want.abs().max(1.0),
                    "k={k}: {got} vs {want}"
                );
            }
        }
        // The recurrence moves the values: k FMAs are not a no-op.
        assert_ne!(reference(&s.x, 0), reference(&s.x, 8));
    }

    #[test]
    fn intensities_span_an_eighth_to_sixty_four() {
        assert_eq!(intensity(KS[0]), 0.125);
        assert!(intensity(*KS.last().unwrap()) >= 64.0);
        let mut w = Sweep::new(8 * 64, 4, 1);
        assert_eq!(w.run(3), 3.0 * 64.0 * 9.0);
    }
}
