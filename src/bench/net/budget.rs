//! The memory budget of `serve` (issue #27): the stream-buffer bytes a test makes the
//! server allocate ([`test_buffer_bytes`]) are reserved against a server-wide budget
//! before any data port opens; the reservation is held by the test's stream threads and
//! given back by the last one to exit, so a test that ended early counts until its
//! threads are gone. Also the allocator settings that hand freed buffers back to the OS.

use super::proto::{Proto, TestSpec};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// Upper end of the default memory budget ([`default_memory`]).
pub(crate) const DEFAULT_MEMORY_CAP: u64 = 1 << 30;
/// Lower end of the default memory budget.
const DEFAULT_MEMORY_FLOOR: u64 = 64 << 20;
/// Buffers of one UDP stream at most: the batched datagram slots of `udp.rs` (up to
/// 2 × 512 KiB of 64 KiB slots) plus one 64 KiB datagram.
const UDP_STREAM_BYTES: u64 = (1 << 20) + (64 << 10);
/// Smallest TCP receive buffer (`tcp.rs` reads at least this much at a time).
const TCP_MIN_READ: u64 = 128 << 10;

/// The default memory budget of `serve`: a quarter of `available` (MemAvailable),
/// within [64 MiB, [`DEFAULT_MEMORY_CAP`]]; the cap when `available` is unknown (0).
pub(crate) fn default_memory(available: u64) -> u64 {
    if available == 0 {
        return DEFAULT_MEMORY_CAP;
    }
    (available / 4).clamp(DEFAULT_MEMORY_FLOOR, DEFAULT_MEMORY_CAP)
}

/// The stream-buffer bytes `spec` makes the server allocate: one buffer per data
/// connection, of the message size (TCP receivers at least 128 KiB), or a UDP stream's
/// batch of datagram slots. Thread stacks and kernel socket buffers are not counted.
pub(crate) fn test_buffer_bytes(spec: &TestSpec) -> u64 {
    let per = match spec.proto {
        Proto::Tcp => u64::from(spec.msg).max(TCP_MIN_READ),
        Proto::Udp => UDP_STREAM_BYTES,
    };
    per.saturating_mul(spec.connections() as u64)
}

/// The server-wide budget of stream-buffer bytes in flight, over all tests, including
/// tests whose threads are still stopping.
pub(crate) struct Budget {
    limit: u64,
    used: Mutex<u64>,
    freed: Condvar,
}

/// Bytes reserved in a [`Budget`], given back when the last holder drops it (each
/// stream thread holds a clone until it has exited).
pub(crate) struct Reservation {
    budget: Arc<Budget>,
    bytes: u64,
}

impl Drop for Reservation {
    fn drop(&mut self) {
        let mut u = self.budget.used.lock().unwrap_or_else(|e| e.into_inner());
        *u = u.saturating_sub(self.bytes);
        self.budget.freed.notify_all();
    }
}

impl Budget {
    pub(crate) fn new(limit: u64) -> Arc<Budget> {
        Arc::new(Budget {
            limit,
            used: Mutex::new(0),
            freed: Condvar::new(),
        })
    }

    /// Reserves what `spec` needs: refused at once when the test alone is over the
    /// budget; when earlier tests' streams still hold part of it, waits up to `wait`
    /// for them to exit, then refuses.
    pub(crate) fn reserve(
        self: &Arc<Self>,
        spec: &TestSpec,
        wait: Duration,
    ) -> Result<Reservation, String> {
        let need = test_buffer_bytes(spec);
        let size = crate::util::units::format_size;
        if need > self.limit {
            let per = need / spec.connections().max(1) as u64;
            return Err(format!(
                "test refused: it needs {} of stream buffers on the server ({} connections x {}), over this server's memory budget of {} (peakbench serve --max-memory SIZE); use fewer --streams or a smaller --msg",
                size(need),
                spec.connections(),
                size(per),
                size(self.limit)
            ));
        }
        let deadline = Instant::now() + wait;
        let mut u = self.used.lock().unwrap_or_else(|e| e.into_inner());
        while *u + need > self.limit {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(format!(
                    "server busy: {} of its {} memory budget is still held by the streams of an earlier test that are stopping; try again later",
                    size(*u),
                    size(self.limit)
                ));
            }
            u = self
                .freed
                .wait_timeout(u, left)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        *u += need;
        Ok(Reservation {
            budget: self.clone(),
            bytes: need,
        })
    }
}

/// Hands freed heap memory back to the OS (glibc keeps freed blocks in its arenas, one
/// per thread that allocated, so a finished test's buffers would stay resident).
pub(crate) fn give_memory_back() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only releases free memory; no pointers are involved.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Makes every allocation of 1 MiB or more its own mapping, returned to the OS when
/// freed. glibc otherwise raises this threshold to the largest block freed so far, and
/// later message buffers then come from arenas that do not shrink.
pub(crate) fn big_buffers_mapped() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only changes an allocator tunable.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 1 << 20);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::net::proto;

    fn tcp(streams: u32, msg: u32, direction: proto::Direction) -> TestSpec {
        TestSpec {
            msg,
            streams,
            direction,
            omit_ms: 0,
            interval_ms: 100,
            intervals: 10,
            ..crate::bench::net::test_support::spec()
        }
    }

    /// Issue #27 item 2: a test's buffers are counted per connection (bidir: both
    /// ways), and the budget refuses a test over it with the figures and the flag.
    #[test]
    fn the_budget_counts_buffers_and_refuses_with_the_figures() {
        use proto::Direction::{Bidir, Down};
        assert_eq!(test_buffer_bytes(&tcp(128, 16 << 20, Down)), 2 << 30);
        assert_eq!(test_buffer_bytes(&tcp(128, 16 << 20, Bidir)), 4 << 30);
        assert_eq!(test_buffer_bytes(&tcp(1, 64, Down)), 128 << 10);
        assert_eq!(default_memory(0), DEFAULT_MEMORY_CAP);
        assert_eq!(default_memory(1 << 20), 64 << 20);
        assert_eq!(default_memory(64 << 30), 1 << 30);
        assert_eq!(default_memory(2 << 30), 512 << 20);

        let b = Budget::new(64 << 20);
        let e = b
            .reserve(&tcp(128, 16 << 20, Down), Duration::ZERO)
            .err()
            .unwrap();
        for needle in [
            "2 GiB",
            "128 connections x 16 MiB",
            "64 MiB",
            "--max-memory",
        ] {
            assert!(e.contains(needle), "{needle:?} in {e}");
        }
        // Held while a holder lives (the stream threads), given back after the last.
        let r = Arc::new(b.reserve(&tcp(2, 16 << 20, Down), Duration::ZERO).unwrap());
        let held = r.clone();
        let e = b
            .reserve(&tcp(3, 16 << 20, Down), Duration::from_millis(10))
            .err()
            .unwrap();
        assert!(e.contains("busy") && e.contains("32 MiB"), "{e}");
        drop(r);
        let t = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(50));
            drop(held);
        });
        // Waits for the earlier test's last thread instead of refusing.
        assert!(b
            .reserve(&tcp(4, 16 << 20, Down), Duration::from_secs(10))
            .is_ok());
        t.join().unwrap();
        assert_eq!(*b.used.lock().unwrap(), 0);
    }
}
