//! The `libaio` engine: Linux native AIO (fio's `libaio`) through its four system calls
//! (`io_setup`, `io_submit`, `io_getevents`, `io_destroy`), called directly so that no
//! C library is needed. One context of `depth` events per job, one `io_submit` per I/O
//! the job loop hands over (fio's default `iodepth_batch_submit=1`), completions read
//! as many at a time as the loop asks.
//!
//! Native AIO is asynchronous only with O_DIRECT: a buffered I/O completes inside
//! `io_submit` (as with fio's libaio); `--buffered` runs still count correctly, their
//! latency then being the submit call's.

use super::engine::{Buffers, Caps, Done, Io, IoEngine, Op, Queue};
use std::io;
use std::os::fd::RawFd;

/// Linux native AIO engine.
pub(crate) struct LibaioEngine;

/// `struct iocb` of `<linux/aio_abi.h>` (64 bytes; little-endian field order of the
/// key/flags pair on the 64-bit targets peakbench builds for).
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct Iocb {
    data: u64,
    key: u32,
    rw_flags: u32,
    opcode: u16,
    reqprio: i16,
    fildes: u32,
    buf: u64,
    nbytes: u64,
    offset: i64,
    reserved2: u64,
    flags: u32,
    resfd: u32,
}

/// `struct io_event` of `<linux/aio_abi.h>`.
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct IoEvent {
    data: u64,
    obj: u64,
    res: i64,
    res2: i64,
}

const IOCB_CMD_PREAD: u16 = 0;
const IOCB_CMD_PWRITE: u16 = 1;

type AioContext = libc::c_ulong;

fn setup(nr: usize) -> io::Result<AioContext> {
    let mut ctx: AioContext = 0;
    // SAFETY: io_setup writes the new context into `ctx`.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_io_setup,
            nr as libc::c_long,
            &mut ctx as *mut AioContext,
        )
    };
    if rc < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(ctx)
}

fn destroy(ctx: AioContext) {
    // SAFETY: `ctx` came from io_setup and is destroyed once.
    unsafe {
        libc::syscall(libc::SYS_io_destroy, ctx);
    }
}

struct AioQueue {
    ctx: AioContext,
    fd: RawFd,
    /// One control block per buffer slot: the kernel reads it during `io_submit` only,
    /// but keeping one per slot gives each I/O in flight a stable address anyway.
    iocbs: Vec<Iocb>,
    events: Vec<IoEvent>,
}

impl Drop for AioQueue {
    fn drop(&mut self) {
        // Waits for I/Os still in flight (the job loop drains before, so none).
        destroy(self.ctx);
    }
}

impl Queue for AioQueue {
    fn submit(&mut self, ios: &[Io], bufs: &Buffers) -> io::Result<()> {
        let mut ptrs: Vec<*mut Iocb> = Vec::with_capacity(ios.len());
        for io in ios {
            let cb = &mut self.iocbs[io.slot];
            *cb = Iocb {
                data: io.slot as u64,
                opcode: match io.op {
                    Op::Read => IOCB_CMD_PREAD,
                    Op::Write => IOCB_CMD_PWRITE,
                },
                fildes: self.fd as u32,
                buf: bufs.ptr(io.slot) as u64,
                nbytes: bufs.block as u64,
                offset: io.offset as i64,
                ..Iocb::default()
            };
            ptrs.push(cb);
        }
        let mut done = 0;
        while done < ptrs.len() {
            // SAFETY: the pointers are to control blocks in `self.iocbs`, whose buffers
            // live in `bufs` (outliving the queue); the job loop leaves a slot alone
            // until its completion is reaped.
            let rc = unsafe {
                libc::syscall(
                    libc::SYS_io_submit,
                    self.ctx,
                    (ptrs.len() - done) as libc::c_long,
                    ptrs[done..].as_mut_ptr(),
                )
            };
            if rc < 0 {
                let e = io::Error::last_os_error();
                match e.raw_os_error() {
                    Some(libc::EINTR) | Some(libc::EAGAIN) => continue,
                    _ => return Err(e),
                }
            }
            done += rc as usize;
        }
        Ok(())
    }

    fn reap(&mut self, min: usize, max: usize, out: &mut Vec<Done>) -> io::Result<()> {
        let max = max.min(self.events.len());
        let mut got = 0;
        while got < min.max(1).min(max) {
            // SAFETY: the kernel writes at most `max - got` events into `self.events`.
            let rc = unsafe {
                libc::syscall(
                    libc::SYS_io_getevents,
                    self.ctx,
                    min.saturating_sub(got) as libc::c_long,
                    (max - got) as libc::c_long,
                    self.events.as_mut_ptr(),
                    std::ptr::null_mut::<libc::timespec>(),
                )
            };
            if rc < 0 {
                let e = io::Error::last_os_error();
                if e.raw_os_error() == Some(libc::EINTR) {
                    continue;
                }
                return Err(e);
            }
            for ev in &self.events[..rc as usize] {
                out.push(Done {
                    slot: ev.data as usize,
                    result: ev.res,
                });
            }
            got += rc as usize;
            if min == 0 {
                break;
            }
        }
        Ok(())
    }

    fn describe(&self) -> String {
        "libaio (native AIO)".into()
    }
}

impl IoEngine for LibaioEngine {
    fn name(&self) -> &'static str {
        "libaio"
    }

    fn caps(&self) -> Caps {
        Caps(Caps::ASYNC)
    }

    fn available(&self) -> Result<(), String> {
        // ENOSYS without CONFIG_AIO, EAGAIN when fs.aio-max-nr is used up, EPERM under
        // a seccomp filter.
        let ctx = setup(1).map_err(|e| format!("io_setup failed: {e}"))?;
        destroy(ctx);
        Ok(())
    }

    fn open(&self, fd: RawFd, depth: usize, _bufs: &Buffers) -> io::Result<Box<dyn Queue>> {
        let depth = depth.max(1);
        let ctx = setup(depth)?;
        Ok(Box::new(AioQueue {
            ctx,
            fd,
            iocbs: vec![Iocb::default(); depth],
            events: vec![IoEvent::default(); depth],
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn abi_sizes() {
        assert_eq!(std::mem::size_of::<Iocb>(), 64);
        assert_eq!(std::mem::size_of::<IoEvent>(), 32);
    }

    /// Writes then reads back four blocks at depth 4 through the engine, in a file of
    /// the test's own.
    #[test]
    fn writes_and_reads_back() {
        if LibaioEngine.available().is_err() {
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let f = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(dir.path().join("aio.dat"))
            .unwrap();
        let fd = std::os::fd::AsRawFd::as_raw_fd(&f);
        let mut bufs = Buffers::new(4096, 4).unwrap();
        for s in 0..4 {
            bufs.slot_mut(s).fill(s as u8 + 1);
        }
        let mut q = LibaioEngine.open(fd, 4, &bufs).unwrap();
        let ios = |op| -> Vec<Io> {
            (0..4)
                .map(|s| Io {
                    slot: s,
                    op,
                    offset: (3 - s as u64) * 4096,
                })
                .collect()
        };
        let mut out = Vec::new();
        q.submit(&ios(Op::Write), &bufs).unwrap();
        while out.len() < 4 {
            q.reap(1, 4, &mut out).unwrap();
        }
        assert!(out.iter().all(|d| d.result == 4096));
        for s in 0..4 {
            bufs.slot_mut(s).fill(0);
        }
        out.clear();
        q.submit(&ios(Op::Read), &bufs).unwrap();
        while out.len() < 4 {
            q.reap(1, 4, &mut out).unwrap();
        }
        for s in 0..4 {
            assert!(bufs.slot(s).iter().all(|&b| b == s as u8 + 1), "slot {s}");
        }
        let data = std::fs::read(dir.path().join("aio.dat")).unwrap();
        assert_eq!(data.len(), 4 * 4096);
        assert!(
            data[..4096].iter().all(|&b| b == 4),
            "block 0 holds slot 3's data"
        );
    }
}
