//! I/O engines behind one trait, the way fio keeps `ioengine_ops`: an engine declares
//! its capabilities ([`Caps`]) and the job loop adapts to them, never to names.
//!
//! An engine opens a [`Queue`] per job over one file descriptor and that job's aligned
//! buffer slots. The job loop hands it batches of [`Io`]s and reaps [`Done`]s.
//! - A [`Caps::SYNC`] engine completes each I/O inside `submit` (one in flight), so the
//!   loop times the whole call, as fio's psync does.
//! - An asynchronous engine returns from `submit` once the kernel has the I/Os; the loop
//!   stamps the issue time then, so completion latency excludes submission cost, as
//!   fio's `clat` does for io_uring and libaio.
//!
//! Adding an engine: one file implementing [`IoEngine`] + one line in
//! [`ENGINES`](super::engines::ENGINES). The engines live in files of their own (sync.rs,
//! uring.rs) and the registry in engines.rs, so this file imports none of them.

use std::alloc::{alloc, alloc_zeroed, dealloc, Layout};
use std::io;
use std::os::fd::RawFd;

/// Capability flags of an engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Caps(pub u32);

impl Caps {
    /// Completes I/O inside `submit`; at most one in flight per job.
    pub(crate) const SYNC: u32 = 1;
    /// Keeps many I/Os in flight (queue depth > 1).
    pub(crate) const ASYNC: u32 = 2;
    /// Uses buffers registered with the kernel (no per-I/O page pinning).
    pub(crate) const REGISTERED_BUFFERS: u32 = 4;
    /// Uses registered file descriptors (no per-I/O fd lookup).
    pub(crate) const REGISTERED_FILES: u32 = 8;
    /// Moves data by copying through a mapping of the file (page cache): no O_DIRECT,
    /// no O_SYNC.
    pub(crate) const MAPPED: u32 = 16;

    /// Whether flag `f` is set.
    pub(crate) fn has(self, f: u32) -> bool {
        self.0 & f != 0
    }
}

/// Read or write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Op {
    /// Read into the slot's buffer.
    Read,
    /// Write the slot's buffer.
    Write,
}

/// One I/O: a buffer slot, a direction and a file offset; the length is the job's block.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Io {
    /// Buffer slot index (0..depth); also identifies the I/O on completion.
    pub slot: usize,
    /// Direction.
    pub op: Op,
    /// Byte offset in the file.
    pub offset: u64,
}

/// A completed I/O: its slot and the kernel's result (bytes moved, or −errno).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Done {
    /// Slot of the I/O.
    pub slot: usize,
    /// Bytes transferred, or a negative errno.
    pub result: i64,
}

/// `depth` buffers of `block` bytes in one allocation aligned to 4 KiB: O_DIRECT needs
/// buffer addresses and lengths aligned to the device's logical block (512 B or 4 KiB),
/// and 4 KiB alignment satisfies every device.
///
/// From 2 MiB on, the allocation is 2 MiB-aligned and transparent huge pages are asked
/// for (`MADV_HUGEPAGE`) before it is touched: a 1 MiB I/O then lies in physically
/// contiguous memory, one DMA segment, where on 4 KiB pages it is 256 segments that
/// the block layer splits into several requests (virtio-blk takes 254 segments per
/// request). On the 2-vCPU guest that split made 1 MiB sequential reads issue 1.45x the
/// device requests fio did (324 vs 468 KiB each, from `/sys/block/vda/stat`).
pub(crate) struct Buffers {
    ptr: *mut u8,
    layout: Layout,
    /// Bytes per slot.
    pub block: usize,
    /// Number of slots.
    pub slots: usize,
}

// SAFETY: the buffer is plain memory owned by one job thread at a time.
unsafe impl Send for Buffers {}

/// O_DIRECT alignment used for buffers.
pub(crate) const ALIGN: usize = 4096;
/// Transparent huge page size: alignment of buffers from this size on.
const HUGE: usize = 2 << 20;

impl Buffers {
    /// Allocates `slots` zeroed buffers of `block` bytes.
    pub(crate) fn new(block: usize, slots: usize) -> io::Result<Buffers> {
        let size = block
            .checked_mul(slots)
            .filter(|&s| s > 0)
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "buffer size overflow"))?;
        let huge = size >= HUGE;
        let layout = Layout::from_size_align(size, if huge { HUGE } else { ALIGN })
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e.to_string()))?;
        let ptr = if huge {
            // SAFETY: the layout has a non-zero size; the advice covers only our
            // allocation, and the zeroing below touches it after the advice (the OS
            // may refuse huge pages: the buffers then work on 4 KiB pages).
            unsafe {
                let p = alloc(layout);
                if !p.is_null() {
                    libc::madvise(p as *mut libc::c_void, size, libc::MADV_HUGEPAGE);
                    std::ptr::write_bytes(p, 0, size);
                }
                p
            }
        } else {
            // SAFETY: the layout has a non-zero size.
            unsafe { alloc_zeroed(layout) }
        };
        if ptr.is_null() {
            return Err(io::Error::new(
                io::ErrorKind::OutOfMemory,
                format!("cannot allocate {size} B of I/O buffers"),
            ));
        }
        Ok(Buffers {
            ptr,
            layout,
            block,
            slots,
        })
    }

    /// Start address of slot `i`.
    pub(crate) fn ptr(&self, i: usize) -> *mut u8 {
        assert!(i < self.slots);
        // SAFETY: i < slots, so the offset stays inside the allocation.
        unsafe { self.ptr.add(i * self.block) }
    }

    /// Slot `i` as a slice.
    pub(crate) fn slot(&self, i: usize) -> &[u8] {
        // SAFETY: in bounds (see `ptr`); no I/O on this slot is in flight when the job
        // loop looks at it (it only reads completed slots).
        unsafe { std::slice::from_raw_parts(self.ptr(i), self.block) }
    }

    /// Slot `i` as a mutable slice.
    pub(crate) fn slot_mut(&mut self, i: usize) -> &mut [u8] {
        // SAFETY: as `slot`, and `&mut self` makes the access exclusive.
        unsafe { std::slice::from_raw_parts_mut(self.ptr(i), self.block) }
    }

    /// One iovec per slot (for buffer registration).
    pub(crate) fn iovecs(&self) -> Vec<libc::iovec> {
        (0..self.slots)
            .map(|i| libc::iovec {
                iov_base: self.ptr(i) as *mut libc::c_void,
                iov_len: self.block,
            })
            .collect()
    }
}

impl Drop for Buffers {
    fn drop(&mut self) {
        // SAFETY: allocated in `new` with this layout; queues are dropped before buffers.
        unsafe { dealloc(self.ptr, self.layout) }
    }
}

/// A job's I/O queue over one file.
pub(crate) trait Queue {
    /// Hands `ios` to the kernel (a SYNC engine performs them before returning).
    fn submit(&mut self, ios: &[Io], bufs: &Buffers) -> io::Result<()>;
    /// Appends at least `min` and at most `max` completions to `out` (waiting if
    /// needed); completions beyond `max` stay queued for the next call.
    fn reap(&mut self, min: usize, max: usize, out: &mut Vec<Done>) -> io::Result<()>;
    /// Human-readable options in effect (e.g. registered buffers), for the results.
    fn describe(&self) -> String;
    /// Tells the kernel how the job will walk the file (`random` offsets, else in
    /// order), before the first I/O, as fio's `fadvise_hint=1` default does. Only the
    /// mmap engine acts on it (`madvise`, as fio's mmap engine): its page faults read
    /// ahead by that advice, where pread/pwrite with O_DIRECT read no more than asked.
    fn advise(&mut self, _random: bool) -> io::Result<()> {
        Ok(())
    }
}

/// The completions of a [`Caps::SYNC`] engine, which finishes each I/O inside
/// `submit` and hands the results out at the next `reap`.
pub(crate) struct Finished(Vec<Done>);

impl Finished {
    /// An empty list (one I/O in flight: room for one).
    pub(crate) fn new() -> Finished {
        Finished(Vec::with_capacity(1))
    }

    /// Records the I/O of `slot` as done with `r`: bytes moved, or for a failed call
    /// (`r` < 0) the call's errno, negated as io_uring reports it.
    pub(crate) fn push(&mut self, slot: usize, r: isize) {
        let result = if r < 0 {
            -(io::Error::last_os_error()
                .raw_os_error()
                .unwrap_or(libc::EIO) as i64)
        } else {
            r as i64
        };
        self.push_result(slot, result);
    }

    /// Records the I/O of `slot` as done with `result` (bytes, or −errno).
    pub(crate) fn push_result(&mut self, slot: usize, result: i64) {
        self.0.push(Done { slot, result });
    }

    /// [`Queue::reap`] for it: at most `max` completions, oldest first (all are there
    /// already, so `min` never waits).
    pub(crate) fn reap(&mut self, max: usize, out: &mut Vec<Done>) {
        let n = max.min(self.0.len());
        out.extend(self.0.drain(..n));
    }
}

/// An I/O engine.
pub(crate) trait IoEngine: Sync {
    /// `sync` or `uring`: the `--engine` value and the name in results.
    fn name(&self) -> &'static str;
    /// Other `--engine` values accepted for it (fio's names), e.g. `psync`.
    fn aliases(&self) -> &'static [&'static str] {
        &[]
    }
    /// The name in messages (`io_uring`).
    fn title(&self) -> &'static str {
        self.name()
    }
    /// Capability flags.
    fn caps(&self) -> Caps;
    /// `Ok` when this kernel and process can use the engine, else the reason.
    fn available(&self) -> Result<(), String>;
    /// Opens a queue of `depth` over `fd` using `bufs` (which must outlive the queue).
    fn open(&self, fd: RawFd, depth: usize, bufs: &Buffers) -> io::Result<Box<dyn Queue>>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_are_aligned_and_disjoint() {
        let mut b = Buffers::new(8192, 3).unwrap();
        for i in 0..3 {
            assert_eq!(b.ptr(i) as usize % ALIGN, 0);
            b.slot_mut(i).fill(i as u8 + 1);
        }
        assert!(b.slot(1).iter().all(|&x| x == 2));
        assert_eq!(b.iovecs().len(), 3);
        assert!(Buffers::new(0, 1).is_err());
        // From 2 MiB on: 2 MiB-aligned (huge pages asked for), zeroed like the small ones.
        let mut b = Buffers::new(1 << 20, 4).unwrap();
        assert_eq!(b.ptr(0) as usize % HUGE, 0);
        assert!((0..4).all(|i| b.slot(i).iter().all(|&x| x == 0)));
        b.slot_mut(3).fill(7);
        assert!(b.slot(2).iter().all(|&x| x == 0) && b.slot(3).iter().all(|&x| x == 7));
    }
}
