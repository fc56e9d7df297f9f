//! Latency by pointer chasing (pmbw, MLC, lmbench): the working set is cut into 64-byte
//! nodes (one cache line each) linked in a single random cycle, built with Sattolo's
//! algorithm, so every load depends on the previous one and the hardware prefetchers
//! cannot guess the next line. Time per load = latency.
//!
//! Sattolo's variant of the Fisher-Yates shuffle (swap `i` with a `j < i`, never
//! `j == i`) yields a uniformly random permutation with exactly one cycle, so a chase
//! from any node visits every node once before it returns (the tests check this).

/// Bytes per node: one cache line on every CPU peakbench targets.
pub(crate) const NODE: usize = 64;

/// Most bytes one thread's cycle may span: node indices are `u32`.
pub(crate) const MAX_BYTES: u64 = u32::MAX as u64 * NODE as u64;

use super::region::{Pages, Region};
use crate::measure::runner::Workload;
use crate::util::rng::XorShift;

/// The shuffle's generator: [`XorShift::seeded`] and its multiply-shift draws.
pub(crate) type Rng = XorShift;

/// A random cyclic permutation of `0..n` by Sattolo's algorithm: `next[i]` is the node
/// after `i`, and following `next` from any node visits all `n` nodes exactly once.
pub(crate) fn sattolo(n: usize, rng: &mut Rng) -> Vec<u32> {
    assert!(n <= u32::MAX as usize, "too many nodes for u32 indices");
    let mut order: Vec<u32> = (0..n as u32).collect();
    for i in (1..n).rev() {
        let j = rng.below_usize(i);
        order.swap(i, j);
    }
    order
}

/// Links `n` nodes of [`NODE`] bytes at `base` into the cycle `next`: the first word of
/// node `i` holds the address of node `next[i]`.
///
/// # Safety
/// `base` must be valid for writes of `next.len() * NODE` bytes and 8-byte aligned.
pub(crate) unsafe fn link(base: *mut u8, next: &[u32]) {
    for (i, &j) in next.iter().enumerate() {
        let target = base.add(j as usize * NODE) as usize;
        (base.add(i * NODE) as *mut usize).write(target);
    }
}

/// Follows `hops` pointers from `p` and returns where it ended. Volatile loads so the
/// compiler neither elides nor batches them; every load depends on the previous one.
///
/// # Safety
/// `p` must start a cycle built by [`link`] that is still alive.
pub(crate) unsafe fn chase(mut p: *const usize, hops: u64) -> *const usize {
    let mut left = hops;
    while left >= 16 {
        // 16 dependent loads per loop: the loop branch is noise next to them.
        for _ in 0..16 {
            p = std::ptr::read_volatile(p) as *const usize;
        }
        left -= 16;
    }
    for _ in 0..left {
        p = std::ptr::read_volatile(p) as *const usize;
    }
    p
}

/// Loads per `Workload` iteration; the runner multiplies iterations until `--min-time`.
pub(crate) const HOPS: u64 = 1024;

/// One thread's chase over its own region.
pub(crate) struct ChaseWork {
    region: Region,
    p: *const usize,
    #[cfg_attr(not(test), allow(dead_code))] // read by the tests
    nodes: usize,
}

// SAFETY: `p` points into `region`, which this value owns; moving both together to
// another thread is sound.
unsafe impl Send for ChaseWork {}

impl ChaseWork {
    /// Maps `bytes` (whole nodes), first-touches it on the calling thread and links a
    /// Sattolo cycle through it. `seed` varies the cycle (e.g. per thread).
    pub(crate) fn new(bytes: u64, pages: Pages, seed: u64) -> Result<ChaseWork, String> {
        if bytes > MAX_BYTES {
            return Err(format!(
                "a chase cycle spans at most {} per thread (u32 node indices), not {}",
                crate::util::units::format_size(MAX_BYTES),
                crate::util::units::format_size(bytes)
            ));
        }
        let nodes = usize::try_from(bytes / NODE as u64)
            .map_err(|_| format!("{bytes} B does not fit this machine's address space"))?
            .max(2);
        let mut region = Region::new(nodes * NODE, pages)?;
        region.touch();
        let next = sattolo(nodes, &mut Rng::seeded(seed));
        // SAFETY: the region holds at least nodes·NODE bytes and is 2 MiB aligned.
        unsafe { link(region.as_ptr(), &next) };
        let p = region.as_ptr() as *const usize;
        Ok(ChaseWork { region, p, nodes })
    }

    /// The region (for the huge-page report).
    pub(crate) fn region(&self) -> &Region {
        &self.region
    }

    /// Nodes in the cycle.
    #[cfg(test)]
    pub(crate) fn nodes(&self) -> usize {
        self.nodes
    }
}

impl Workload for ChaseWork {
    fn run(&mut self, iters: u64) -> f64 {
        // SAFETY: p is on the cycle linked in `new`, inside the owned region.
        self.p = unsafe { chase(self.p, iters * HOPS) };
        std::hint::black_box(self.p);
        (iters * HOPS) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sattolo_is_one_cycle_visiting_every_node_once() {
        for n in [1usize, 2, 3, 10, 64, 1000, 65_536] {
            let next = sattolo(n, &mut Rng::seeded(n as u64));
            let mut seen = vec![false; n];
            let mut i = 0usize;
            for _ in 0..n {
                assert!(!seen[i], "node {i} visited twice (n={n})");
                seen[i] = true;
                i = next[i] as usize;
            }
            assert_eq!(i, 0, "did not return to the start after n hops (n={n})");
            assert!(seen.iter().all(|&s| s));
            if n > 1 {
                assert!(next.iter().enumerate().all(|(i, &j)| i != j as usize));
            }
        }
    }

    #[test]
    fn chase_through_memory_visits_every_node_once() {
        let n = 4096;
        let next = sattolo(n, &mut Rng::seeded(7));
        let mut buf = vec![0u64; n * NODE / 8];
        let base = buf.as_mut_ptr() as *mut u8;
        // SAFETY: buf holds n nodes and is 8-byte aligned.
        unsafe { link(base, &next) };
        let mut seen = vec![false; n];
        let mut p = base as *const usize;
        for _ in 0..n {
            let idx = (p as usize - base as usize) / NODE;
            assert!(!seen[idx]);
            seen[idx] = true;
            // SAFETY: p points at a linked node.
            p = unsafe { chase(p, 1) };
        }
        assert_eq!(p as usize, base as usize);
        // SAFETY: same cycle; n hops (with the 16-unrolled path) return to the start.
        assert_eq!(unsafe { chase(p, n as u64) } as usize, base as usize);
        // SAFETY: the same cycle, any number of hops.
        let (far, near) = unsafe { (chase(p, 3 * n as u64 + 5), chase(p, 5)) };
        assert_eq!(far, near);
    }

    #[test]
    fn chase_work_counts_loads_and_stays_on_the_cycle() {
        let mut w = ChaseWork::new(64 << 10, Pages::Small, 3).unwrap();
        assert_eq!(w.nodes(), 1024);
        // Beyond u32 indices: an error, never a panic in the worker.
        let e = ChaseWork::new(MAX_BYTES + NODE as u64, Pages::Small, 3)
            .err()
            .unwrap();
        assert!(e.contains("at most"), "{e}");
        assert_eq!(w.run(2), (2 * HOPS) as f64);
        // 2 × 1024 hops over a 1024-node cycle: back at node 0.
        assert_eq!(w.p as usize, w.region().as_ptr() as usize);
    }

    #[test]
    fn rng_below_stays_in_range() {
        let mut r = Rng::seeded(1);
        for n in [1usize, 2, 3, 1000] {
            for _ in 0..1000 {
                assert!(r.below_usize(n) < n);
            }
        }
    }
}
