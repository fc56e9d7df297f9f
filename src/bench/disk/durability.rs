//! Write durability, as fio has it: `--fsync N` (fio `fsync=N`: fsync(2) after every N
//! writes of a job), `--fdatasync N` (`fdatasync=N`) and `--sync` (`sync=1`: the job
//! files opened O_SYNC, so every write is durable before it returns). The write figure
//! people ask about ("what does my disk do when each write must reach the media?").
//!
//! How it is counted, as fio does: the flush is a call of its own after the N-th write
//! completed, so its time is in the job's throughput and IOPS (the job waits for it)
//! but not in the write's completion latency (fio reports it apart, as `sync` latency).
//! fsync and fdatasync run with the `sync` engine only (one write in flight, the order
//! is the program's); with io_uring a flush would have to be ordered against the writes
//! in flight, which this engine does not do, so it is refused with one line.

use super::engine::{Caps, IoEngine};
use crate::util::usage::UsageError;
use clap::Args;
use serde::Serialize;
use std::io;
use std::os::fd::RawFd;

/// The durability flags of `peakbench disk` (flattened into its options).
#[derive(Debug, Clone, Default, Args, Serialize, PartialEq)]
pub(crate) struct DurabilityFlags {
    /// fsync(2) after every N writes of a job, as fio --fsync=N (with --engine sync)
    #[arg(long, value_name = "N", value_parser = every)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) fsync: Option<u32>,
    /// fdatasync(2) after every N writes of a job, as fio --fdatasync=N (with --engine sync)
    #[arg(long, value_name = "N", value_parser = every, conflicts_with = "fsync")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) fdatasync: Option<u32>,
    /// Open the job files O_SYNC: every write durable before it returns, as fio --sync=1
    #[arg(long = "sync")]
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub(crate) o_sync: bool,
}

/// `--fsync`/`--fdatasync`: 1 to 1,000,000 writes.
fn every(text: &str) -> Result<u32, crate::util::units::ParseError> {
    match text.trim().parse::<u32>() {
        Ok(n) if (1..=1_000_000).contains(&n) => Ok(n),
        _ => Err(crate::util::units::ParseError(format!(
            "'{text}' is not a write count; use a whole number from 1 to 1000000 (a flush after every N writes)"
        ))),
    }
}

/// What one job does for durability.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct Durability {
    /// Flush after every this many writes (0: never).
    pub(crate) every: u32,
    /// The flush is fdatasync (else fsync).
    pub(crate) data_only: bool,
    /// The files are opened O_SYNC.
    pub(crate) o_sync: bool,
}

impl DurabilityFlags {
    /// The checks that need the engine the run resolved: flushes with the sync engine.
    pub(crate) fn check_engine(&self, engine: &dyn IoEngine) -> Result<(), UsageError> {
        if self.o_sync && engine.caps().has(Caps::MAPPED) {
            return Err(UsageError::new(
                "--sync",
                format!(
                    "opens the files O_SYNC, which stores into a mapping ({}) never pass through; use --fsync 1 or --engine sync",
                    engine.title()
                ),
            ));
        }
        let flag = match (self.fsync, self.fdatasync) {
            (Some(_), _) => "--fsync",
            (_, Some(_)) => "--fdatasync",
            _ => return Ok(()),
        };
        if engine.caps().has(Caps::SYNC) {
            return Ok(());
        }
        Err(UsageError::new(
            flag,
            format!(
                "flushes after the writes of the sync engine (one write in flight), and this run uses {}; add --engine sync",
                engine.title()
            ),
        ))
    }

    /// What the jobs do.
    pub(crate) fn durability(&self) -> Durability {
        Durability {
            every: self.fsync.or(self.fdatasync).unwrap_or(0),
            data_only: self.fdatasync.is_some(),
            o_sync: self.o_sync,
        }
    }
}

impl Durability {
    /// Extra open(2) flags of the job files.
    pub(crate) fn open_flags(&self) -> libc::c_int {
        if self.o_sync {
            libc::O_SYNC
        } else {
            0
        }
    }

    /// Flushes `fd` after the `n`-th write (counting from 1) when it is due.
    pub(crate) fn after_write(&self, fd: RawFd, n: u64) -> io::Result<()> {
        if self.every == 0 || !n.is_multiple_of(u64::from(self.every)) {
            return Ok(());
        }
        // SAFETY: fsync/fdatasync on a descriptor the job owns for its whole run.
        let rc = unsafe {
            if self.data_only {
                libc::fdatasync(fd)
            } else {
                libc::fsync(fd)
            }
        };
        if rc == 0 {
            Ok(())
        } else {
            Err(io::Error::last_os_error())
        }
    }

    /// The result parameters: `fsync`/`fdatasync` N and `sync`, only those set.
    pub(crate) fn params(&self) -> Vec<(&'static str, u64)> {
        let mut p = Vec::new();
        if self.every > 0 {
            p.push((
                if self.data_only { "fdatasync" } else { "fsync" },
                u64::from(self.every),
            ));
        }
        if self.o_sync {
            p.push(("sync", 1));
        }
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A flush is due on every N-th write and only then; a file flushed in between
    /// still holds what was written.
    #[test]
    fn flushes_fall_on_every_nth_write() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f");
        std::fs::write(&p, b"data").unwrap();
        let f = std::fs::OpenOptions::new().write(true).open(&p).unwrap();
        let fd = std::os::fd::AsRawFd::as_raw_fd(&f);
        let d = Durability {
            every: 3,
            data_only: true,
            o_sync: false,
        };
        for n in 1..=9 {
            d.after_write(fd, n).unwrap();
        }
        assert_eq!(std::fs::read(&p).unwrap(), b"data");
        // A closed descriptor shows the flush really ran on the 3rd write, not the 2nd.
        assert!(d.after_write(-1, 2).is_ok());
        assert!(d.after_write(-1, 3).is_err());
        assert_eq!(d.params(), vec![("fdatasync", 3)]);
        assert_eq!(d.open_flags(), 0);
        let s = Durability {
            o_sync: true,
            ..Durability::default()
        };
        assert_eq!(s.open_flags(), libc::O_SYNC);
        assert_eq!(s.params(), vec![("sync", 1)]);
    }

    #[test]
    fn bad_values_give_their_line() {
        use crate::bench::flags::try_args;
        let e = try_args::<DurabilityFlags>(&["--fsync", "0"])
            .unwrap_err()
            .0;
        assert_eq!(e, "--fsync: '0' is not a write count; use a whole number from 1 to 1000000 (a flush after every N writes)");
        // One flush kind at a time: `--fdatasync` conflicts with `--fsync` (clap; the
        // line is `cmdline`'s, tests::relations_are_one_line_naming_the_flag).
        let uring = crate::bench::disk::engines::by_name("uring").unwrap();
        let sync = crate::bench::disk::engines::by_name("sync").unwrap();
        let f = try_args::<DurabilityFlags>(&["--fsync", "1"]).unwrap();
        assert!(f.check_engine(sync).is_ok());
        assert_eq!(
            f.check_engine(uring).unwrap_err().0,
            "--fsync: flushes after the writes of the sync engine (one write in flight), and this run uses io_uring; add --engine sync"
        );
        // mmap: one copy at a time, so flushes go; O_SYNC does not reach its stores.
        let mmap = crate::bench::disk::engines::by_name("mmap").unwrap();
        assert!(f.check_engine(mmap).is_ok());
        let s = try_args::<DurabilityFlags>(&["--sync"]).unwrap();
        assert!(s.check_engine(sync).is_ok());
        assert_eq!(
            s.check_engine(mmap).unwrap_err().0,
            "--sync: opens the files O_SYNC, which stores into a mapping (mmap) never pass through; use --fsync 1 or --engine sync"
        );
    }
}
