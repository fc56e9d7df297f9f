//! Byte-granular bandwidth cases: `--block` sizes that are not a multiple of the 8-byte
//! `f64` element (1 B, 100 B, 1001 B …; the course's "1 B accesses").
//!
//! Only the operations that mean something on bytes run: `read` (every byte of a block
//! loaded and summed), `write` (the block set, `memset`) and `copy` (the block copied,
//! `memcpy`); `scale`, `add` and `triad` compute on `f64` elements and are `skipped`
//! with that reason. Blocks are visited in address order or, for `rand`, in the same
//! keyed permutation as the element kernels ([`super::bandwidth::permute`]), so a 1 B
//! random case touches one byte per access and every byte once per pass.
//!
//! Bytes are counted as STREAM counts them (copy = one read and one write per byte, no
//! write-allocate unless `--count-write-allocate`), and the first pass is checked: the
//! read sum, or every destination byte (sampled above 64 KiB) against its source.

use super::bandwidth::{for_each_block, PassRun, PassSetup, Passes, ARRAY_PAD};
use super::kernels::Op;

/// Value of every source byte `i`: position-dependent, so a copy from the wrong place
/// shows.
fn src_byte(i: usize) -> u8 {
    (i % 251) as u8 + 1
}

/// Value every `write` stores.
const WRITE_BYTE: u8 = 0x5a;

/// Whether `op` runs on byte blocks; `Err` is the reason it is skipped.
pub(crate) fn supported(op: Op) -> Result<(), String> {
    match op {
        Op::Read | Op::Write | Op::Copy => Ok(()),
        _ => Err(format!(
            "{} computes on 8-byte f64 elements; blocks that are not a multiple of 8 B run the read, write and copy kernels (byte loads, memset, memcpy)",
            op.name()
        )),
    }
}

/// The note of a byte-block case: the block, what the operation does per block, and
/// the bytes counted per byte of the array (STREAM's convention, or with the
/// write-allocate read under `--count-write-allocate`).
pub(crate) fn note(op: Op, block: u64, geo: &ByteGeometry, count_wa: bool) -> String {
    format!(
        "byte blocks: {block} B per access ({}), {} B counted per byte of the array{}",
        match op {
            Op::Read => "byte loads, summed",
            Op::Write => "memset",
            _ => "memcpy",
        },
        geo.bytes_per_pass(op, count_wa) / geo.len as u64,
        if count_wa && op.stores() {
            " (with the write-allocate read, --count-write-allocate)"
        } else {
            " (STREAM convention: no write-allocate)"
        }
    )
}

/// One thread's arrays cut into blocks of `block` bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ByteGeometry {
    /// Bytes per array (a multiple of `block`).
    pub len: usize,
    /// Bytes per block.
    pub block: usize,
    /// Arrays the operation touches (1 for read and write, 2 for copy).
    pub arrays: usize,
}

impl ByteGeometry {
    /// Cuts `bytes_per_thread` into `arrays` arrays of whole blocks.
    pub(crate) fn new(
        bytes_per_thread: u64,
        arrays: usize,
        block: u64,
    ) -> Result<ByteGeometry, String> {
        let per_array = bytes_per_thread / arrays as u64;
        if block == 0 || block > per_array {
            return Err(format!(
                "block {block} B is larger than each thread's share of an array ({per_array} B = working set / {arrays} array{} / threads)",
                if arrays == 1 { "" } else { "s" }
            ));
        }
        let len = usize::try_from(per_array / block * block)
            .map_err(|_| format!("working set of {bytes_per_thread} B per thread does not fit"))?;
        let g = ByteGeometry {
            len,
            block: block as usize,
            arrays,
        };
        g.region_bytes().ok_or_else(|| {
            format!("working set of {bytes_per_thread} B per thread does not fit")
        })?;
        Ok(g)
    }

    /// Bytes from one array's start to the next's (same padding as the element arrays).
    fn stride(&self) -> Option<usize> {
        self.len
            .checked_next_multiple_of(4096)?
            .checked_add(ARRAY_PAD)
    }

    /// Bytes the thread's region needs.
    fn region_bytes(&self) -> Option<usize> {
        self.stride()?.checked_mul(self.arrays)
    }

    /// Blocks per array.
    pub(crate) fn blocks(&self) -> usize {
        self.len / self.block
    }

    /// Bytes one pass moves: reads plus writes, and the write-allocate read of each
    /// stored byte when counted.
    pub(crate) fn bytes_per_pass(&self, op: Op, count_write_allocate: bool) -> u64 {
        let per = match op {
            Op::Read | Op::Write => 1,
            _ => 2,
        } + u64::from(count_write_allocate && op.stores());
        self.len as u64 * per
    }
}

/// One thread's byte workload.
pub(crate) struct ByteWork<'a> {
    op: Op,
    geo: ByteGeometry,
    run: PassRun<'a>,
}

impl<'a> ByteWork<'a> {
    /// Maps, first-touches and fills the arrays on the calling thread.
    pub(crate) fn new(op: Op, geo: ByteGeometry, setup: PassSetup<'a>) -> Result<Self, String> {
        supported(op)?;
        let bytes = geo.region_bytes().ok_or("working set does not fit")?;
        let bytes_per_pass = geo.bytes_per_pass(op, setup.count_write_allocate) as f64;
        let run = PassRun::new(bytes, bytes_per_pass, setup)?;
        let w = ByteWork { op, geo, run };
        if op.sources() > 0 {
            // SAFETY: array 0 lies inside the region (region_bytes covers it).
            let src = unsafe { std::slice::from_raw_parts_mut(w.array(0), geo.len) };
            for (i, b) in src.iter_mut().enumerate() {
                *b = src_byte(i);
            }
        }
        Ok(w)
    }

    fn array(&self, k: usize) -> *mut u8 {
        let stride = self.geo.stride().expect("checked in ByteGeometry::new");
        // SAFETY: k < arrays, so the offset is inside the region.
        unsafe { self.run.region.as_ptr().add(k * stride) }
    }

    /// One block at byte `o`; returns the sum of the bytes read (read only).
    ///
    /// SAFETY: `o + block ≤ len`.
    #[inline(always)]
    unsafe fn block(&self, src: *const u8, dst: *mut u8, o: usize) -> u64 {
        let n = self.geo.block;
        match self.op {
            Op::Read => {
                let mut s = 0u64;
                for i in 0..n {
                    s += u64::from(*src.add(o + i));
                }
                s
            }
            Op::Write => {
                std::ptr::write_bytes(dst.add(o), WRITE_BYTE, n);
                0
            }
            _ => {
                std::ptr::copy_nonoverlapping(src.add(o), dst.add(o), n);
                0
            }
        }
    }
}

impl<'a> Passes<'a> for ByteWork<'a> {
    type Sum = u64;
    /// One pass over every block; returns the read sum.
    fn pass(&mut self) -> u64 {
        let src = self.array(0) as *const u8;
        let dst = self.array(self.geo.arrays - 1);
        let (bs, nb) = (self.geo.block, self.geo.blocks());
        let mut sum = 0u64;
        let (pattern, pass) = self.run.next_pass();
        for_each_block(pattern, nb, pass, |b| {
            // SAFETY: block b covers bytes [b·bs, (b+1)·bs) < len of each array.
            sum += unsafe { self.block(src, dst, b * bs) };
        });
        sum
    }

    /// Checks the first pass: the read sum, or the destination bytes (every byte up to
    /// 64 KiB, every 1009th and the last above).
    fn verify(&self, sum: u64) -> Result<(), String> {
        let n = self.geo.len;
        if self.op == Op::Read {
            let want: u64 = (0..n).map(|i| u64::from(src_byte(i))).sum();
            return if sum == want {
                Ok(())
            } else {
                Err(format!("read (bytes): sum {sum} != {want}"))
            };
        }
        let dst = self.array(self.geo.arrays - 1);
        let step = if n <= 1 << 16 { 1 } else { 1009 };
        for i in (0..n).step_by(step).chain(std::iter::once(n - 1)) {
            let want = if self.op == Op::Write {
                WRITE_BYTE
            } else {
                src_byte(i)
            };
            // SAFETY: i < len.
            let got = unsafe { *dst.add(i) };
            if got != want {
                return Err(format!(
                    "{} (bytes): byte {i} is {got}, expected {want}",
                    self.op.name()
                ));
            }
        }
        Ok(())
    }
    fn add(total: u64, sum: u64) -> u64 {
        total.wrapping_add(sum)
    }
    fn run_state(&mut self) -> &mut PassRun<'a> {
        &mut self.run
    }
}

#[cfg(test)]
mod tests {
    use super::super::options::Pattern;
    use super::super::region::Pages;
    use super::*;
    use crate::measure::runner::Workload;

    #[test]
    fn geometry_cuts_whole_byte_blocks() {
        let g = ByteGeometry::new(1000, 2, 7).unwrap();
        assert_eq!((g.len, g.blocks()), (497, 71));
        assert_eq!(g.bytes_per_pass(Op::Copy, false), 994);
        assert_eq!(g.bytes_per_pass(Op::Copy, true), 1491);
        assert_eq!(g.bytes_per_pass(Op::Read, true), 497);
        assert!(ByteGeometry::new(10, 2, 6).is_err());
        assert!(ByteGeometry::new(u64::MAX, 1, 1).is_err());
    }

    #[test]
    fn every_byte_op_and_pattern_moves_and_checks_every_byte() {
        let errors = std::sync::Mutex::new(Vec::new());
        for op in [Op::Read, Op::Write, Op::Copy] {
            for pattern in [Pattern::Seq, Pattern::Rand] {
                for block in [1u64, 3, 100, 1001] {
                    let geo = ByteGeometry::new(40_000, op.arrays(), block).unwrap();
                    let mut w = ByteWork::new(
                        op,
                        geo,
                        PassSetup::new(pattern, false, Pages::Small, &errors),
                    )
                    .unwrap();
                    let s = w.pass();
                    // Every block visited once: the check passes on the first pass...
                    w.verify(s).unwrap_or_else(|e| panic!("{e}"));
                    // ...and the runner is told the bytes of whole passes.
                    assert_eq!(w.run(2), 2.0 * geo.bytes_per_pass(op, false) as f64);
                }
            }
        }
        assert!(errors.lock().unwrap().is_empty());
        assert!(supported(Op::Triad).unwrap_err().contains("8-byte f64"));
    }

    #[test]
    fn a_wrong_copy_is_caught() {
        let errors = std::sync::Mutex::new(Vec::new());
        let geo = ByteGeometry::new(4096, 2, 1).unwrap();
        let w = ByteWork::new(
            Op::Copy,
            geo,
            PassSetup::new(Pattern::Seq, false, Pages::Small, &errors),
        )
        .unwrap();
        // No pass has run: the destination still holds zeros.
        assert!(w.verify(0).unwrap_err().contains("byte 0 is 0"));
    }
}
