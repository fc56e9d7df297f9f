//! The `mmap` engine, as fio's `ioengine=mmap`: the job's file is mapped shared
//! (`MAP_SHARED`, read and write) and each I/O is a copy between the mapping and the
//! job's buffer — a read faults the file's pages in from the page cache (or the disk),
//! a write dirties them for the kernel's writeback (or for `--fsync`/`--fdatasync`,
//! which flush the mapping's dirty pages like any other). One I/O per call and one in
//! flight per job ([`Caps::SYNC`]), timed by the job loop around the copy.
//!
//! What it lacks, refused with one line before any I/O ([`Caps::MAPPED`]): O_DIRECT (a
//! mapping is the page cache; fio emulates `direct=1` with an msync and a
//! `MADV_DONTNEED` per I/O, which is not O_DIRECT either), so it runs with `--buffered`
//! only; and O_SYNC (`--sync`): stores into a mapping never pass through write(2).

use super::engine::{Buffers, Caps, Done, Finished, Io, IoEngine, Op, Queue};
use std::io;
use std::os::fd::RawFd;

/// Copies through a shared mapping of the file (fio `mmap`).
pub(crate) struct MmapEngine;

/// One job's mapping of its whole file.
struct MmapQueue {
    base: *mut u8,
    len: usize,
    /// The descriptor was opened for writing (the mapping then is too).
    writable: bool,
    /// The `madvise` advice given to the mapping ([`Queue::advise`]).
    advice: libc::c_int,
    done: Finished,
}

// SAFETY: the mapping is owned by one job thread at a time (the queue moves with it).
unsafe impl Send for MmapQueue {}

/// Bytes of the file (or block device) behind `fd`: its size, or for a device where
/// fstat says 0, the offset of its end.
fn file_len(fd: RawFd) -> io::Result<u64> {
    // SAFETY: `stat` is plain integers; fstat fills it for an open descriptor.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: `fd` is open for the call, `st` a live out-struct of the right type.
    if unsafe { libc::fstat(fd, &mut st) } != 0 {
        return Err(io::Error::last_os_error());
    }
    if st.st_size > 0 {
        return Ok(st.st_size as u64);
    }
    // SAFETY: lseek on an open descriptor; the job loop passes offsets, not the position.
    let end = unsafe { libc::lseek(fd, 0, libc::SEEK_END) };
    if end < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(end as u64)
}

/// The advice for a job's walk over its mapping, as fio's mmap engine gives it (with
/// its `fadvise_hint=1` default): `MADV_RANDOM` for random offsets, so a fault reads
/// only its page, `MADV_SEQUENTIAL` otherwise, so faults read ahead aggressively.
/// Without advice the kernel reads around each fault (32 pages here), which a random
/// job over a file the size of the page cache turns into caching the whole file.
fn advice(random: bool) -> libc::c_int {
    if random {
        libc::MADV_RANDOM
    } else {
        libc::MADV_SEQUENTIAL
    }
}

/// The advice's name, for the results' description.
fn advice_name(advice: libc::c_int) -> &'static str {
    match advice {
        libc::MADV_RANDOM => "MADV_RANDOM",
        libc::MADV_SEQUENTIAL => "MADV_SEQUENTIAL",
        _ => "no advice",
    }
}

impl MmapQueue {
    fn map(fd: RawFd) -> io::Result<MmapQueue> {
        let len = usize::try_from(file_len(fd)?)
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "file too large to map"))?;
        if len == 0 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "cannot map an empty file",
            ));
        }
        // A descriptor opened read-only maps read-only (a shared writable mapping of it
        // is refused with EACCES); its writes are then refused as pwrite refuses them.
        // SAFETY: F_GETFL on an open descriptor.
        let mode = unsafe { libc::fcntl(fd, libc::F_GETFL) };
        if mode < 0 {
            return Err(io::Error::last_os_error());
        }
        let writable = mode & libc::O_ACCMODE != libc::O_RDONLY;
        let prot = if writable {
            libc::PROT_READ | libc::PROT_WRITE
        } else {
            libc::PROT_READ
        };
        // SAFETY: a fresh shared mapping of `len` bytes of `fd` at an address the kernel
        // picks; it stays valid after `fd` is closed and is unmapped in `drop`.
        let p = unsafe { libc::mmap(std::ptr::null_mut(), len, prot, libc::MAP_SHARED, fd, 0) };
        if p == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        Ok(MmapQueue {
            base: p as *mut u8,
            len,
            writable,
            advice: libc::MADV_NORMAL,
            done: Finished::new(),
        })
    }
}

impl Drop for MmapQueue {
    fn drop(&mut self) {
        // SAFETY: unmaps exactly the mapping made in `map`, once.
        unsafe {
            libc::munmap(self.base as *mut libc::c_void, self.len);
        }
    }
}

impl Queue for MmapQueue {
    fn submit(&mut self, ios: &[Io], bufs: &Buffers) -> io::Result<()> {
        for io in ios {
            let end = (io.offset as usize).checked_add(bufs.block);
            let result = match end {
                _ if io.op == Op::Write && !self.writable => -(libc::EBADF as i64),
                // Beyond the mapping a copy would fault (SIGBUS): refused as pwrite
                // would refuse an I/O past the end of a device.
                Some(e) if e <= self.len => {
                    // SAFETY: [offset, offset + block) lies inside the mapping, and the
                    // slot holds `block` bytes owned by this job; the two never overlap
                    // (the buffers are anonymous memory).
                    unsafe {
                        let m = self.base.add(io.offset as usize);
                        match io.op {
                            Op::Read => {
                                std::ptr::copy_nonoverlapping(m, bufs.ptr(io.slot), bufs.block)
                            }
                            Op::Write => {
                                std::ptr::copy_nonoverlapping(bufs.ptr(io.slot), m, bufs.block)
                            }
                        }
                    }
                    bufs.block as i64
                }
                _ => -(libc::EINVAL as i64),
            };
            self.done.push_result(io.slot, result);
        }
        Ok(())
    }

    fn reap(&mut self, _min: usize, max: usize, out: &mut Vec<Done>) -> io::Result<()> {
        self.done.reap(max, out);
        Ok(())
    }

    fn describe(&self) -> String {
        format!(
            "memcpy through a shared mapping (mmap, {})",
            advice_name(self.advice)
        )
    }

    fn advise(&mut self, random: bool) -> io::Result<()> {
        let advice = advice(random);
        // SAFETY: advice only, over exactly the mapping made in `map`.
        if unsafe { libc::madvise(self.base as *mut libc::c_void, self.len, advice) } != 0 {
            return Err(io::Error::last_os_error());
        }
        self.advice = advice;
        Ok(())
    }
}

impl IoEngine for MmapEngine {
    fn name(&self) -> &'static str {
        "mmap"
    }
    fn caps(&self) -> Caps {
        Caps(Caps::SYNC | Caps::MAPPED)
    }
    fn available(&self) -> Result<(), String> {
        Ok(())
    }
    fn open(&self, fd: RawFd, _depth: usize, _bufs: &Buffers) -> io::Result<Box<dyn Queue>> {
        Ok(Box::new(MmapQueue::map(fd)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::AsRawFd;

    /// The `VmFlags` of the mapping that starts at `base`, from /proc/self/smaps: the
    /// kernel's own record of the advice (`rr`: MADV_RANDOM, `sr`: MADV_SEQUENTIAL).
    fn vm_flags(base: *mut u8) -> Vec<String> {
        let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
        let start = format!("{:x}-", base as usize);
        let mut lines = smaps.lines().skip_while(|l| !l.starts_with(&start));
        assert!(lines.next().is_some(), "mapping {start} not in smaps");
        let flags = lines.find(|l| l.starts_with("VmFlags:")).unwrap();
        flags.split_whitespace().skip(1).map(String::from).collect()
    }

    /// A mapping carries the advice fio's mmap engine gives its pattern: random patterns
    /// MADV_RANDOM, sequential ones (and copy) MADV_SEQUENTIAL, as the kernel reports it
    /// for the mapping; the job loop passes `Pattern::random` (which patterns are random:
    /// `options_tests::patterns`).
    #[test]
    fn the_advice_follows_the_pattern() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f");
        std::fs::write(&p, vec![1u8; 16384]).unwrap();
        let f = std::fs::File::open(&p).unwrap();
        for random in [false, true] {
            let mut q = MmapQueue::map(f.as_raw_fd()).unwrap();
            assert_eq!(
                q.describe(),
                "memcpy through a shared mapping (mmap, no advice)"
            );
            let base = q.base;
            let before = vm_flags(base);
            assert!(!before.iter().any(|f| f == "rr" || f == "sr"), "{before:?}");
            q.advise(random).unwrap();
            let (want, name) = if random {
                ("rr", "MADV_RANDOM")
            } else {
                ("sr", "MADV_SEQUENTIAL")
            };
            // qemu-user keeps the advice to itself (the host kernel never sees it), so
            // only a real kernel's record is checked.
            if crate::hw::emulation::emulated().is_none() {
                let flags = vm_flags(base);
                assert!(
                    flags.iter().any(|f| f == want),
                    "random {random}: {flags:?}"
                );
            }
            assert_eq!(
                q.describe(),
                format!("memcpy through a shared mapping (mmap, {name})")
            );
        }
        assert_eq!(advice(true), libc::MADV_RANDOM);
        assert_eq!(advice(false), libc::MADV_SEQUENTIAL);
    }

    /// A write lands in the file at its offset, a read returns the file's bytes, and an
    /// I/O past the end is refused (not a fault).
    #[test]
    fn copies_through_the_mapping() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f");
        std::fs::write(&p, vec![7u8; 8192]).unwrap();
        let f = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(&p)
            .unwrap();
        let mut bufs = Buffers::new(4096, 1).unwrap();
        bufs.slot_mut(0).fill(9);
        let mut q = MmapEngine.open(f.as_raw_fd(), 1, &bufs).unwrap();
        let w = Io {
            slot: 0,
            op: Op::Write,
            offset: 4096,
        };
        q.submit(&[w], &bufs).unwrap();
        let mut out = Vec::new();
        q.reap(1, 1, &mut out).unwrap();
        assert_eq!(out[0].result, 4096);
        let r = Io {
            op: Op::Read,
            offset: 0,
            ..w
        };
        q.submit(&[r], &bufs).unwrap();
        assert!(bufs.slot(0).iter().all(|&b| b == 7));
        let past = Io { offset: 8192, ..w };
        q.submit(&[past], &bufs).unwrap();
        out.clear();
        q.reap(1, 2, &mut out).unwrap();
        assert_eq!(out[1].result, -(libc::EINVAL as i64));
        drop(q);
        let data = std::fs::read(&p).unwrap();
        assert!(data[..4096].iter().all(|&b| b == 7));
        assert!(data[4096..].iter().all(|&b| b == 9));
        // Read-only: mapped for reading, its writes refused (EBADF), as pwrite's are.
        let ro = std::fs::File::open(&p).unwrap();
        let mut q = MmapEngine.open(ro.as_raw_fd(), 1, &bufs).unwrap();
        q.submit(&[r, w], &bufs).unwrap();
        out.clear();
        q.reap(2, 2, &mut out).unwrap();
        assert_eq!(out[0].result, 4096);
        assert_eq!(out[1].result, -(libc::EBADF as i64));
    }
}
