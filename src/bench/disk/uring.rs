//! The io_uring engine: a ring of `depth` entries per job, one `io_uring_enter` per
//! submission the job loop hands over (one I/O each, as fio's default), and completions
//! read from the ring as many at a time as the loop asks (one, as fio's default).
//!
//! Where it helps at high IOPS (fio's `fixedbufs`/`registerfiles`), the job's buffers
//! and file are registered with the ring, so the kernel neither pins pages nor looks up
//! the descriptor per I/O. Registration can fail (RLIMIT_MEMLOCK, old kernels); the
//! queue then uses plain READ/WRITE and says so in its description.

use super::engine::{Buffers, Caps, Done, Io, IoEngine, Op, Queue};
use io_uring::{opcode, types, IoUring};
use std::io;
use std::os::fd::RawFd;

/// io_uring engine.
pub(crate) struct UringEngine;

struct UringQueue {
    ring: IoUring,
    fd: RawFd,
    fixed_file: bool,
    fixed_bufs: bool,
}

impl Queue for UringQueue {
    fn submit(&mut self, ios: &[Io], bufs: &Buffers) -> io::Result<()> {
        let len = bufs.block as u32;
        {
            let mut sq = self.ring.submission();
            for io in ios {
                let p = bufs.ptr(io.slot);
                let idx = io.slot as u16;
                let e = match (io.op, self.fixed_file, self.fixed_bufs) {
                    (Op::Read, true, true) => {
                        { opcode::ReadFixed::new(types::Fixed(0), p, len, idx).offset(io.offset) }
                            .build()
                    }
                    (Op::Write, true, true) => {
                        { opcode::WriteFixed::new(types::Fixed(0), p, len, idx).offset(io.offset) }
                            .build()
                    }
                    (Op::Read, true, false) => opcode::Read::new(types::Fixed(0), p, len)
                        .offset(io.offset)
                        .build(),
                    (Op::Write, true, false) => opcode::Write::new(types::Fixed(0), p, len)
                        .offset(io.offset)
                        .build(),
                    (Op::Read, false, true) => {
                        opcode::ReadFixed::new(types::Fd(self.fd), p, len, idx).offset(io.offset)
                    }
                    .build(),
                    (Op::Write, false, true) => {
                        opcode::WriteFixed::new(types::Fd(self.fd), p, len, idx).offset(io.offset)
                    }
                    .build(),
                    (Op::Read, false, false) => opcode::Read::new(types::Fd(self.fd), p, len)
                        .offset(io.offset)
                        .build(),
                    (Op::Write, false, false) => opcode::Write::new(types::Fd(self.fd), p, len)
                        .offset(io.offset)
                        .build(),
                }
                .user_data(io.slot as u64);
                // SAFETY: the buffer slot lives in `bufs`, which outlives the queue, and
                // the job loop does not touch a slot until its completion is reaped.
                unsafe {
                    sq.push(&e)
                        .map_err(|_| io::Error::other("io_uring submission queue full"))?;
                }
            }
        }
        let mut left = ios.len();
        while left > 0 {
            match self.ring.submit() {
                Ok(n) => left = left.saturating_sub(n),
                Err(e) if e.raw_os_error() == Some(libc::EINTR) => {}
                Err(e) if e.raw_os_error() == Some(libc::EAGAIN) => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    fn reap(&mut self, min: usize, max: usize, out: &mut Vec<Done>) -> io::Result<()> {
        let mut got = 0;
        loop {
            // Entries not taken stay in the ring: the queue's head only moves past
            // the ones consumed.
            for c in self.ring.completion().take(max.saturating_sub(got)) {
                out.push(Done {
                    slot: c.user_data() as usize,
                    result: c.result() as i64,
                });
                got += 1;
            }
            if got >= min {
                return Ok(());
            }
            match self.ring.submit_and_wait(min - got) {
                Ok(_) => {}
                Err(e) if e.raw_os_error() == Some(libc::EINTR) => {}
                Err(e) => return Err(e),
            }
        }
    }

    fn describe(&self) -> String {
        let mut v = vec!["io_uring"];
        if self.fixed_bufs {
            v.push("registered buffers");
        }
        if self.fixed_file {
            v.push("registered file");
        }
        v.join(", ")
    }
}

impl IoEngine for UringEngine {
    fn name(&self) -> &'static str {
        "uring"
    }

    fn aliases(&self) -> &'static [&'static str] {
        &["io_uring", "io-uring"]
    }

    fn title(&self) -> &'static str {
        "io_uring"
    }

    fn caps(&self) -> Caps {
        Caps(Caps::ASYNC | Caps::REGISTERED_BUFFERS | Caps::REGISTERED_FILES)
    }

    fn available(&self) -> Result<(), String> {
        // io_uring_setup fails with ENOSYS (no kernel support), EPERM
        // (kernel.io_uring_disabled, seccomp in containers) or ENOMEM.
        let ring = IoUring::new(2).map_err(|e| format!("io_uring_setup failed: {e}"))?;
        let mut probe = io_uring::Probe::new();
        if ring.submitter().register_probe(&mut probe).is_ok()
            && !(probe.is_supported(opcode::Read::CODE) && probe.is_supported(opcode::Write::CODE))
        {
            return Err("this kernel's io_uring lacks READ/WRITE (needs Linux 5.6+)".into());
        }
        Ok(())
    }

    fn open(&self, fd: RawFd, depth: usize, bufs: &Buffers) -> io::Result<Box<dyn Queue>> {
        let entries = depth.next_power_of_two().max(2) as u32;
        // One thread submits and reaps: COOP_TASKRUN spares the inter-processor
        // interrupt per completion and SINGLE_ISSUER lets the kernel skip locking
        // (Linux 5.19 / 6.0); older kernels refuse the flags, so fall back to none.
        let ring = IoUring::builder()
            .setup_coop_taskrun()
            .setup_single_issuer()
            .build(entries)
            .or_else(|_| IoUring::new(entries))?;
        let fixed_file = ring.submitter().register_files(&[fd]).is_ok();
        // Fixed buffers are indexed by u16 and each must be ≤ 1 GiB.
        let fixed_bufs = bufs.slots <= u16::MAX as usize + 1 && {
            let iov = bufs.iovecs();
            // SAFETY: the iovecs point into `bufs`, which outlives the ring (the job
            // drops the queue before the buffers).
            unsafe { ring.submitter().register_buffers(&iov).is_ok() }
        };
        Ok(Box::new(UringQueue {
            ring,
            fd,
            fixed_file,
            fixed_bufs,
        }))
    }
}
