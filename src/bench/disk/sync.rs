//! The `sync` engine: pread/pwrite, one I/O per call and one in flight per job, as fio's
//! `psync`. The job loop times the whole call (its [`Caps::SYNC`] flag).

use super::engine::{Buffers, Caps, Done, Finished, Io, IoEngine, Op, Queue};
use std::io;
use std::os::fd::RawFd;

/// pread/pwrite: one I/O per call, one in flight per job (fio `psync`).
pub(crate) struct SyncEngine;

struct SyncQueue {
    fd: RawFd,
    done: Finished,
}

impl Queue for SyncQueue {
    fn submit(&mut self, ios: &[Io], bufs: &Buffers) -> io::Result<()> {
        for io in ios {
            let p = bufs.ptr(io.slot);
            // SAFETY: `p` points at `bufs.block` writable bytes owned by this job; the
            // offset is validated against the file size by the job loop.
            let r = unsafe {
                match io.op {
                    Op::Read => {
                        libc::pread(self.fd, p as *mut libc::c_void, bufs.block, io.offset as _)
                    }
                    Op::Write => libc::pwrite(
                        self.fd,
                        p as *const libc::c_void,
                        bufs.block,
                        io.offset as _,
                    ),
                }
            };
            self.done.push(io.slot, r);
        }
        Ok(())
    }

    fn reap(&mut self, _min: usize, max: usize, out: &mut Vec<Done>) -> io::Result<()> {
        self.done.reap(max, out);
        Ok(())
    }

    fn describe(&self) -> String {
        "pread/pwrite".into()
    }
}

impl IoEngine for SyncEngine {
    fn name(&self) -> &'static str {
        "sync"
    }
    fn aliases(&self) -> &'static [&'static str] {
        &["psync"]
    }
    fn caps(&self) -> Caps {
        Caps(Caps::SYNC)
    }
    fn available(&self) -> Result<(), String> {
        Ok(())
    }
    fn open(&self, fd: RawFd, _depth: usize, _bufs: &Buffers) -> io::Result<Box<dyn Queue>> {
        Ok(Box::new(SyncQueue {
            fd,
            done: Finished::new(),
        }))
    }
}
