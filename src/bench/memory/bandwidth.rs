//! Bandwidth cases: one kernel over per-thread arrays, blocks visited in address order
//! or in a random order, bytes counted from the kernel's declared bytes per element.
//!
//! Layout per thread (built on the pinned thread, so first touch places the pages near
//! it): one 2 MiB-aligned region holding the kernel's arrays back to back. Each array
//! starts 3584 B (≡ −512 mod 4096) after a 4 KiB boundary relative to the previous one,
//! so a store to the destination never shares its low 12 address bits with a load just
//! ahead of it in a source (4K aliasing stalls loads behind unrelated stores).
//!
//! The random order visits every block exactly once per pass without an index array
//! (which would add its own memory traffic): block indices run through a keyed bijection
//! of `0..2^k` (xor, odd multiplies, xorshifts) and indices ≥ the block count are
//! skipped. The key changes every pass.

use super::kernels::{Kernel, Op};
use super::options::Pattern;
use super::region::{Pages, Region};
use crate::measure::runner::Workload;

/// Extra distance between consecutive arrays (see the module doc).
pub(crate) const ARRAY_PAD: usize = 3584;

/// Where one thread's arrays live and how they are cut into blocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Geometry {
    /// Elements per array for this thread (a multiple of `block_elems`).
    pub elems: usize,
    /// Elements per block (contiguous access).
    pub block_elems: usize,
    /// Arrays the kernel touches.
    pub arrays: usize,
}

impl Geometry {
    /// Cuts `bytes_per_thread` into `arrays` arrays of whole blocks of `block` bytes
    /// (`None`: one block per array). Errors say what does not fit.
    pub(crate) fn new(
        bytes_per_thread: u64,
        arrays: usize,
        block: Option<u64>,
    ) -> Result<Geometry, String> {
        let per_array = bytes_per_thread / arrays as u64 / 8;
        if per_array == 0 {
            return Err(format!(
                "working set too small: {bytes_per_thread} B per thread for {arrays} arrays"
            ));
        }
        let block_elems = match block {
            None => per_array,
            Some(b) => b / 8,
        };
        if block_elems == 0 || block_elems > per_array {
            return Err(format!(
                "block {} is larger than each thread's share of an array ({} = working set / {arrays} array{} / threads)",
                crate::util::units::format_size(block_elems * 8),
                crate::util::units::format_size(per_array * 8),
                if arrays == 1 { "" } else { "s" }
            ));
        }
        let elems = per_array / block_elems * block_elems;
        let geo = Geometry {
            elems: usize::try_from(elems).map_err(|_| too_big(bytes_per_thread))?,
            block_elems: block_elems as usize,
            arrays,
        };
        // Every product the kernels rely on must fit: a wrapped region size would map less
        // than the arrays the kernels write.
        geo.checked_region_bytes()
            .ok_or_else(|| too_big(bytes_per_thread))?;
        Ok(geo)
    }

    /// Bytes the thread's region needs (stride × arrays), `None` when it overflows `usize`.
    pub(crate) fn checked_region_bytes(&self) -> Option<usize> {
        self.elems
            .checked_mul(8)?
            .checked_next_multiple_of(4096)?
            .checked_add(ARRAY_PAD)?
            .checked_mul(self.arrays)
    }

    /// Blocks per array.
    pub(crate) fn blocks(&self) -> usize {
        self.elems / self.block_elems
    }

    /// Bytes from one array's start to the next's.
    pub(crate) fn stride(&self) -> usize {
        (self.elems * 8).div_ceil(4096) * 4096 + ARRAY_PAD
    }
}

fn too_big(bytes: u64) -> String {
    format!("working set of {bytes} B per thread does not fit this machine's address space")
}

/// A keyed bijection of `0..=mask` (mask = 2^k − 1): xor with the key, multiply by odd
/// constants, xorshift; each step is invertible on k bits, so the whole is a permutation.
pub(crate) fn permute(i: u64, key: u64, mask: u64, bits: u32) -> u64 {
    let mut x = (i ^ key) & mask;
    x = x.wrapping_mul(0x9E37_79B9_7F4A_7C15) & mask;
    x ^= x >> (bits / 2 + 1);
    x = x.wrapping_mul(0xD6E8_FEB8_6659_FD93) & mask;
    x ^= x >> (bits / 3 + 1);
    x
}

/// Calls `visit` with every block index of one pass, `0..nb`, each once: in address
/// order (`seq`), or in a random order keyed by the pass number (`rand`: [`permute`] over
/// the next power of two, indices past `nb` skipped). Inlined into each pass loop.
#[inline(always)]
pub(crate) fn for_each_block(pattern: Pattern, nb: usize, pass: u64, mut visit: impl FnMut(usize)) {
    match pattern {
        Pattern::Seq => {
            for b in 0..nb {
                visit(b);
            }
        }
        Pattern::Rand => {
            let bits = usize::BITS - (nb.max(2) - 1).leading_zeros();
            let mask = (1u64 << bits) - 1;
            let key = pass.wrapping_mul(0x9E37_79B9_7F4A_7C15);
            for i in 0..=mask {
                let b = permute(i, key, mask, bits) as usize;
                if b < nb {
                    visit(b);
                }
            }
        }
    }
}

/// One thread's bandwidth workload.
pub(crate) struct BwWork<'a> {
    kernel: &'static Kernel,
    geo: Geometry,
    run: PassRun<'a>,
}

/// Scalar the kernels use (`s` in STREAM).
pub(crate) const SCALAR: f64 = 3.0;
/// Initial value of source array 0 (`x`).
pub(crate) const X0: f64 = 1.0;
/// Initial value of source array 1 (`y`).
pub(crate) const Y0: f64 = 2.0;

impl<'a> BwWork<'a> {
    /// Maps, first-touches and initialises the arrays on the calling thread.
    pub(crate) fn new(
        kernel: &'static Kernel,
        geo: Geometry,
        setup: PassSetup<'a>,
    ) -> Result<Self, String> {
        let bytes = geo
            .checked_region_bytes()
            .ok_or_else(|| too_big((geo.elems as u64).saturating_mul(8)))?;
        let bytes_per_pass =
            (geo.elems as u64 * kernel.bytes_per_elem(setup.count_write_allocate)) as f64;
        let run = PassRun::new(bytes, bytes_per_pass, setup)?;
        let w = BwWork { kernel, geo, run };
        for (k, v) in [(0, X0), (1, Y0)] {
            if k < geo.arrays {
                let a = w.array(k);
                // SAFETY: the array lies inside the region (region_bytes covers it).
                unsafe { std::slice::from_raw_parts_mut(a, geo.elems).fill(v) };
            }
        }
        Ok(w)
    }

    fn array(&self, k: usize) -> *mut f64 {
        // SAFETY: k < arrays, so the offset is inside the region.
        unsafe { self.run.region.as_ptr().add(k * self.geo.stride()) as *mut f64 }
    }

    /// (d, x, y) for the kernel: sources first, destination last.
    fn operands(&self) -> (*mut f64, *const f64, *const f64) {
        let op = self.kernel.op;
        let x = self.array(0);
        let y = if op.sources() == 2 { self.array(1) } else { x };
        let d = self.array(self.geo.arrays - 1);
        (d, x, y)
    }
}

/// What a case builds each thread's [`Passes`] workload with, besides its kernel (or
/// byte operation) and geometry.
#[derive(Clone, Copy)]
pub(crate) struct PassSetup<'a> {
    /// The order the blocks of a pass are visited in.
    pub(crate) pattern: Pattern,
    /// Whether stores count the write-allocate read (`--count-write-allocate`).
    pub(crate) count_write_allocate: bool,
    /// The page size the arrays' region asks for.
    pub(crate) pages: Pages,
    /// Where a failed check is reported.
    pub(crate) errors: &'a std::sync::Mutex<Vec<String>>,
}

impl<'a> PassSetup<'a> {
    /// A setup of every field.
    pub(crate) fn new(
        pattern: Pattern,
        count_write_allocate: bool,
        pages: Pages,
        errors: &'a std::sync::Mutex<Vec<String>>,
    ) -> Self {
        PassSetup {
            pattern,
            count_write_allocate,
            pages,
            errors,
        }
    }
}

/// What the runner's loop ([`run_passes`]) keeps of a [`Passes`] workload besides its
/// kernel and geometry; the element kernels and the byte blocks each hold one.
pub(crate) struct PassRun<'a> {
    /// The arrays' region (kept alive past the loop; its pages are reported).
    pub(crate) region: Region,
    /// Bytes one pass counts.
    bytes_per_pass: f64,
    /// The order the blocks of a pass are visited in.
    pattern: Pattern,
    /// Passes done so far (the key of a random order).
    pass: u64,
    /// Whether the first pass was checked; set once it is.
    checked: bool,
    /// Where a failed check is reported.
    errors: &'a std::sync::Mutex<Vec<String>>,
}

impl<'a> PassRun<'a> {
    /// Maps a region of `bytes` and first-touches it on the calling thread; the first
    /// pass is not checked yet.
    pub(crate) fn new(
        bytes: usize,
        bytes_per_pass: f64,
        setup: PassSetup<'a>,
    ) -> Result<PassRun<'a>, String> {
        let mut region = Region::new(bytes, setup.pages)?;
        region.touch();
        Ok(PassRun {
            region,
            bytes_per_pass,
            pattern: setup.pattern,
            pass: 0,
            checked: false,
            errors: setup.errors,
        })
    }

    /// The block order of the next pass and its number, counting it.
    pub(crate) fn next_pass(&mut self) -> (Pattern, u64) {
        self.pass += 1;
        (self.pattern, self.pass - 1)
    }
}

/// A bandwidth workload made of whole passes over its arrays: the element kernels
/// ([`BwWork`]) and the byte blocks ([`super::bytes::ByteWork`]) share the runner's loop
/// ([`run_passes`]) through it.
pub(crate) trait Passes<'a> {
    /// What a pass returns for the check (the read sum).
    type Sum: Copy + Default;
    /// One pass over every block.
    fn pass(&mut self) -> Self::Sum;
    /// Checks the arrays after the first pass, given its sum.
    fn verify(&self, sum: Self::Sum) -> Result<(), String>;
    /// Adds a pass's sum to the running one (kept only so no pass is optimised away).
    fn add(total: Self::Sum, sum: Self::Sum) -> Self::Sum;
    /// The region, the bytes per pass and the check's state ([`PassRun`]).
    fn run_state(&mut self) -> &mut PassRun<'a>;
}

/// The runner's loop for a [`Passes`] workload: `iters` passes, the workload's first
/// pass checked once (the first run is the runner's calibration, outside the timed
/// samples), the sums and the region kept alive past the loop; returns the bytes moved.
#[inline]
fn run_passes<'a, W: Passes<'a>>(w: &mut W, iters: u64) -> f64 {
    let mut sum = W::Sum::default();
    for _ in 0..iters {
        let s = w.pass();
        if !w.run_state().checked {
            w.run_state().checked = true;
            if let Err(e) = w.verify(s) {
                w.run_state().errors.lock().unwrap().push(e);
            }
        }
        sum = W::add(sum, s);
    }
    std::hint::black_box(sum);
    let run = w.run_state();
    std::hint::black_box(run.region.as_ptr());
    iters as f64 * run.bytes_per_pass
}

/// Every [`Passes`] workload runs through [`run_passes`].
impl<'a, W: Passes<'a> + Send> Workload for W {
    fn run(&mut self, iters: u64) -> f64 {
        run_passes(self, iters)
    }
}

impl<'a> Passes<'a> for BwWork<'a> {
    type Sum = f64;
    /// One pass over every block; returns the checksum.
    fn pass(&mut self) -> f64 {
        let (d, x, y) = self.operands();
        let f = self.kernel.run;
        let be = self.geo.block_elems;
        let nb = self.geo.blocks();
        let mut sum = 0.0;
        let (pattern, pass) = self.run.next_pass();
        for_each_block(pattern, nb, pass, |b| {
            let o = b * be;
            // SAFETY: block b covers elements [b·be, (b+1)·be) < elems of every array;
            // the kernel's features were checked when the case was planned.
            sum += unsafe { f(d.add(o), x.add(o), y.add(o), SCALAR, be) };
        });
        sum
    }

    /// Checks the arrays after the first pass (outside the timed samples: the first run
    /// is the runner's calibration). Every element is checked for small arrays,
    /// every 1009th otherwise.
    fn verify(&self, sum: f64) -> Result<(), String> {
        let op = self.kernel.op;
        let n = self.geo.elems;
        if op == Op::Read {
            let want = X0 * n as f64;
            return if sum == want {
                Ok(())
            } else {
                Err(format!("{}: sum {sum} != {want}", self.kernel.name))
            };
        }
        let (d, _, _) = self.operands();
        let want = op.reference(X0, Y0, SCALAR);
        let step = if n <= 1 << 16 { 1 } else { 1009 };
        for i in (0..n).step_by(step).chain(std::iter::once(n - 1)) {
            // SAFETY: i < elems.
            let got = unsafe { *d.add(i) };
            if got != want {
                return Err(format!(
                    "{}: element {i} is {got}, expected {want}",
                    self.kernel.name
                ));
            }
        }
        Ok(())
    }
    fn add(total: f64, sum: f64) -> f64 {
        total + sum
    }
    fn run_state(&mut self) -> &mut PassRun<'a> {
        &mut self.run
    }
}

#[cfg(test)]
mod tests {
    use super::super::kernels::{best, KERNELS};
    use super::*;

    #[test]
    fn permute_is_a_permutation() {
        for bits in [1u32, 2, 5, 10, 16] {
            let mask = (1u64 << bits) - 1;
            for key in [0u64, 12345, u64::MAX] {
                let mut seen = vec![false; 1 << bits];
                for i in 0..=mask {
                    let p = permute(i, key, mask, bits) as usize;
                    assert!(!seen[p]);
                    seen[p] = true;
                }
            }
        }
    }

    #[test]
    fn geometry_cuts_whole_blocks() {
        let g = Geometry::new(3 << 20, 3, Some(4096)).unwrap();
        assert_eq!(g.elems * 8, 1 << 20);
        assert_eq!(g.blocks(), 256);
        assert_eq!(g.stride() % 4096, ARRAY_PAD);
        let g = Geometry::new(1000, 1, Some(24)).unwrap();
        assert_eq!(g.elems, 123);
        assert_eq!(g.block_elems, 3);
        let whole = Geometry::new(1 << 20, 2, None).unwrap();
        assert_eq!(whole.blocks(), 1);
        // Sizes whose region would wrap around 2^64 are errors, never a short mapping.
        let e = Geometry::new(u64::MAX, 1, None).unwrap_err();
        assert!(e.contains("address space"), "{e}");
        let e = Geometry::new(1 << 20, 2, Some(1 << 20)).unwrap_err();
        assert!(e.contains("larger than each thread's share"), "{e}");
    }

    #[test]
    fn every_kernel_and_pattern_computes_and_counts_bytes() {
        let f = crate::hw::cpu::CpuInfo::detect().features;
        let errors = std::sync::Mutex::new(Vec::new());
        for k in KERNELS.iter().filter(|k| k.supported_by(&f)) {
            for pattern in [Pattern::Seq, Pattern::Rand] {
                for block in [Some(8), Some(72), Some(4096), None] {
                    let geo = Geometry::new(96 << 10, k.op.arrays(), block).unwrap();
                    let mut w = BwWork::new(
                        k,
                        geo,
                        PassSetup::new(pattern, false, Pages::Small, &errors),
                    )
                    .unwrap();
                    let bytes = w.run(3);
                    assert_eq!(
                        bytes,
                        3.0 * (geo.elems as u64 * k.bytes_per_elem(false)) as f64
                    );
                    // Every block visited: every destination element was written.
                    w.verify(if k.op == Op::Read {
                        X0 * geo.elems as f64
                    } else {
                        0.0
                    })
                    .unwrap();
                }
            }
        }
        assert!(
            errors.lock().unwrap().is_empty(),
            "{:?}",
            errors.lock().unwrap()
        );
        let (copy, _) = best(Op::Copy, false, &f).unwrap();
        let geo = Geometry::new(64 << 10, 2, None).unwrap();
        let mut w = BwWork::new(
            copy,
            geo,
            PassSetup::new(Pattern::Seq, true, Pages::Small, &errors),
        )
        .unwrap();
        assert_eq!(w.run(1), (geo.elems * 24) as f64, "write-allocate adds 8 B");
    }

    #[test]
    fn a_wrong_result_is_caught() {
        let errors = std::sync::Mutex::new(Vec::new());
        let copy = KERNELS.iter().find(|k| k.name == "copy_generic").unwrap();
        let geo = Geometry::new(64 << 10, 2, None).unwrap();
        let w = BwWork::new(
            copy,
            geo,
            PassSetup::new(Pattern::Seq, false, Pages::Small, &errors),
        )
        .unwrap();
        // No pass has run: the destination still holds zeros.
        assert!(w.verify(0.0).is_err());
    }
}
