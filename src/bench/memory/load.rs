//! The loaders of the loaded-latency curve (`memory --loaded-latency`, issue #47): a
//! thread streams a bandwidth kernel of the kernel table (`kernels::KERNELS`) over its
//! own arrays in blocks of [`BLOCK_ELEMS`] elements and, after every block, runs an
//! injected delay of `delay` iterations of an empty loop the compiler must keep. As in
//! Intel MLC's `--loaded_latency`, the delay only throttles: the curve's x-axis is the
//! bandwidth the loaders measured, not the delay.
//!
//! Bytes are counted as the bandwidth cases count them (STREAM: the kernel's declared
//! bytes per element, write-allocate not counted), per whole block, and the first pass
//! of every loader is checked against the plain reference before it starts loading.

use super::kernels::{Kernel, Op};
use super::region::{Pages, Region};

/// Elements per block: 512 B of every array, 8 cache lines, between two delays.
pub(crate) const BLOCK_ELEMS: usize = 64;

/// The scalar of scale and triad.
const S: f64 = 3.0;

/// One loader's arrays and where it is in them.
pub(crate) struct Loader {
    kernel: &'static Kernel,
    /// Source arrays then the destination, as many as the operation touches.
    arrays: Vec<Region>,
    /// Elements per array (a whole number of blocks).
    elems: usize,
    /// The next block.
    next: usize,
}

// SAFETY: the regions are owned by the loader and only touched through `&mut self`.
unsafe impl Send for Loader {}

/// The value of source `a` at element `i`: small integers, so every kernel's sums and
/// products are exact in `f64` whatever order it adds them in.
fn source(a: usize, i: usize) -> f64 {
    if a == 0 {
        (i % 97) as f64
    } else {
        (i % 13) as f64 + 1.0
    }
}

/// The injected delay: `n` iterations of an empty loop that `black_box` keeps (about
/// one core cycle each on current cores; nothing depends on the exact figure).
#[inline]
pub(crate) fn spin(n: u64) {
    for i in 0..n {
        std::hint::black_box(i);
    }
}

impl Loader {
    /// Maps `bytes_per_array` (whole blocks, at least one) for every array of the
    /// kernel's operation, first-touches it on the calling thread and fills the sources.
    pub(crate) fn new(
        kernel: &'static Kernel,
        bytes_per_array: u64,
        pages: Pages,
    ) -> Result<Loader, String> {
        let block = (BLOCK_ELEMS * 8) as u64;
        let blocks = (bytes_per_array / block).max(1);
        let elems = usize::try_from(blocks * BLOCK_ELEMS as u64)
            .map_err(|_| format!("{bytes_per_array} B does not fit this address space"))?;
        let mut arrays = Vec::new();
        for a in 0..kernel.op.arrays() {
            let mut r = Region::new(elems * 8, pages)?;
            r.touch();
            if a < kernel.op.sources() {
                let p = r.as_ptr() as *mut f64;
                for i in 0..elems {
                    // SAFETY: the region holds `elems` f64s and is 2 MiB aligned.
                    unsafe { p.add(i).write(source(a, i)) };
                }
            }
            arrays.push(r);
        }
        Ok(Loader {
            kernel,
            arrays,
            elems,
            next: 0,
        })
    }

    /// Blocks per array.
    pub(crate) fn blocks(&self) -> usize {
        self.elems / BLOCK_ELEMS
    }

    /// Bytes one block counts (STREAM convention: write-allocate not counted).
    pub(crate) fn bytes_per_block(&self) -> u64 {
        BLOCK_ELEMS as u64 * self.kernel.bytes_per_elem(false)
    }

    /// The kernel's operands at element `at`.
    fn operands(&self, at: usize) -> (*mut f64, *const f64, *const f64) {
        let op = self.kernel.op;
        let ptr = |a: usize| {
            // SAFETY: `at` < elems, inside every array.
            unsafe { (self.arrays[a].as_ptr() as *mut f64).add(at) }
        };
        let src = op.sources();
        let x = if src >= 1 {
            ptr(0)
        } else {
            std::ptr::null_mut()
        };
        let y = if src >= 2 {
            ptr(1)
        } else {
            std::ptr::null_mut()
        };
        let d = if op.stores() {
            ptr(src)
        } else {
            std::ptr::null_mut()
        };
        (d, x, y)
    }

    /// Runs `blocks` blocks from where the last call stopped (wrapping around the
    /// arrays), `delay` spins after each; returns the bytes counted and the kernels'
    /// checksum (the sum for `read`, 0 otherwise).
    pub(crate) fn run(&mut self, blocks: usize, delay: u64) -> (u64, f64) {
        let mut sum = 0.0;
        for _ in 0..blocks {
            let (d, x, y) = self.operands(self.next * BLOCK_ELEMS);
            // SAFETY: each operand points at BLOCK_ELEMS elements inside its array; the
            // kernel was chosen for this CPU's features (`kernels::best`).
            sum += unsafe { (self.kernel.run)(d, x, y, S, BLOCK_ELEMS) };
            spin(delay);
            self.next += 1;
            if self.next == self.blocks() {
                self.next = 0;
            }
        }
        std::hint::black_box(sum);
        (blocks as u64 * self.bytes_per_block(), sum)
    }

    /// One whole pass from the first block, checked against the plain reference
    /// ([`Op::reference`]): the sum for `read`, every destination element otherwise.
    pub(crate) fn checked_pass(&mut self) -> Result<(), String> {
        self.next = 0;
        let (_, sum) = self.run(self.blocks(), 0);
        let op = self.kernel.op;
        if op == Op::Read {
            let want: f64 = (0..self.elems).map(|i| source(0, i)).sum();
            return (sum == want).then_some(()).ok_or_else(|| {
                format!(
                    "loader {}: sum {sum} where the reference gives {want}",
                    self.kernel.name
                )
            });
        }
        let d = self.arrays[op.sources()].as_ptr() as *const f64;
        for i in 0..self.elems {
            let want = op.reference(source(0, i), source(1, i), S);
            // SAFETY: i < elems, inside the destination.
            let got = unsafe { d.add(i).read() };
            if got != want {
                return Err(format!(
                    "loader {}: element {i} is {got} where the reference gives {want}",
                    self.kernel.name
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::memory::kernels::{best, KERNELS};

    fn runnable() -> Vec<&'static Kernel> {
        let f = crate::hw::cpu::CpuInfo::detect().features;
        KERNELS.iter().filter(|k| k.supported_by(&f)).collect()
    }

    /// Every kernel this CPU runs, as a loader over a tiny region: its pass matches the
    /// plain reference, and the bytes are the blocks run times the declared bytes.
    #[test]
    fn every_loader_matches_the_reference_and_counts_its_bytes() {
        for k in runnable() {
            let mut l = Loader::new(k, 8 << 10, Pages::Small).unwrap();
            assert_eq!(l.blocks(), 16, "{}", k.name);
            assert_eq!(l.bytes_per_block(), 64 * k.bytes_per_elem(false));
            l.checked_pass().unwrap_or_else(|e| panic!("{e}"));
            // Delayed blocks do the same work and count the same bytes; 40 blocks wrap
            // around the 16 of the arrays.
            let (bytes, _) = l.run(40, 25);
            assert_eq!(bytes, 40 * 64 * k.bytes_per_elem(false), "{}", k.name);
            assert_eq!(l.next, 40 % 16);
            l.checked_pass().unwrap_or_else(|e| panic!("{e}"));
        }
    }

    /// A wrong destination or sum is caught, not counted.
    #[test]
    fn a_wrong_loader_result_is_caught() {
        let f = crate::hw::cpu::CpuInfo::detect().features;
        let (k, _) = best(Op::Copy, false, &f).unwrap();
        let mut l = Loader::new(k, 4 << 10, Pages::Small).unwrap();
        l.checked_pass().unwrap();
        // Change a source after the fact: the next pass copies it and disagrees.
        // SAFETY: element 5 of the source is inside its region.
        unsafe { (l.arrays[0].as_ptr() as *mut f64).add(5).write(-7.0) };
        let e = l.checked_pass().unwrap_err();
        assert!(e.contains("element 5"), "{e}");
        let (k, _) = best(Op::Read, false, &f).unwrap();
        let mut l = Loader::new(k, 4 << 10, Pages::Small).unwrap();
        // SAFETY: as above.
        unsafe { (l.arrays[0].as_ptr() as *mut f64).add(9).write(1e6) };
        assert!(l.checked_pass().unwrap_err().contains("sum"));
    }

    #[test]
    fn a_tiny_region_is_one_block() {
        let f = crate::hw::cpu::CpuInfo::detect().features;
        let (k, _) = best(Op::Read, false, &f).unwrap();
        let l = Loader::new(k, 1, Pages::Small).unwrap();
        assert_eq!((l.blocks(), l.elems), (1, BLOCK_ELEMS));
    }
}
