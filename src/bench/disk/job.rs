//! One job: a thread keeping `depth` I/Os in flight against its own file for a ramp and
//! then `windows` measured windows, fio-style (time-based, counting completed I/O).
//!
//! Accounting (the same rules as fio):
//! - An I/O counts in the window in which it *completes*; completions during the ramp,
//!   or after the last window while the queue drains, are not counted.
//! - I/Os are submitted one call each (fio's `iodepth_batch_submit=1`; see the loop).
//! - Completion latency (`clat`) runs from the moment the kernel has the I/O (after its
//!   submitting call returns, for asynchronous engines; before the call for SYNC ones)
//!   to the moment its completion is reaped (one at a time, as fio's default).
//! - Latencies go into an HDR histogram (1 ns .. 1 h, 3 significant digits), so p99.9
//!   and max are exact to 0.1 % with no 17 s cap (fio#1668).

use super::data::{self, Gens};
use super::engine::{Buffers, Caps, Done, Io, IoEngine, Op, Queue};
use super::options::Pattern;
use crate::measure::clock::Tick;
use crate::util::rng::XorShift;
use hdrhistogram::Histogram;
use std::io;
use std::os::fd::AsRawFd;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// Highest latency the histogram holds: one hour, in ns.
pub(crate) const HIST_MAX_NS: u64 = 3_600_000_000_000;

/// A new, empty latency histogram (ns).
pub(crate) fn histogram() -> Histogram<u64> {
    // Bounds are constants that hdrhistogram accepts (low ≥ 1, high ≥ 2·low, 3 digits).
    Histogram::new_with_bounds(1, HIST_MAX_NS, 3).expect("valid histogram bounds")
}

/// What `--verify` needs in a job.
pub(crate) struct Verify<'a> {
    /// Expected generation per unit of this job's file (updated by writes).
    pub gens: &'a mut Gens,
    /// Generation this case writes.
    pub gen: u16,
    /// Check read data in the loop (only when nothing writes concurrently).
    pub check_reads: bool,
}

/// One job's parameters.
pub(crate) struct JobSpec<'a> {
    /// The engine.
    pub engine: &'a dyn IoEngine,
    /// File (or block device) and the byte where this job's region starts.
    pub path: &'a Path,
    /// Region start.
    pub base: u64,
    /// Region length (a multiple of `block`).
    pub size: u64,
    /// Identifies the file in the data pattern.
    pub file_id: u32,
    /// Access pattern.
    pub pattern: Pattern,
    /// Bytes per I/O.
    pub block: u64,
    /// I/Os in flight (1 for SYNC engines).
    pub depth: usize,
    /// O_DIRECT.
    pub direct: bool,
    /// Unmeasured lead-in.
    pub ramp: Duration,
    /// Length of one measured window.
    pub window: Duration,
    /// Number of measured windows.
    pub windows: usize,
    /// Stop after this many I/Os (tests: exact counts); `None` = time-based only.
    pub io_limit: Option<u64>,
    /// Data seed of the run.
    pub seed: u64,
    /// Per-job random-offset seed.
    pub rng_seed: u64,
    /// Set by a signal: stop issuing.
    pub stop: &'a AtomicBool,
    /// Flushes after writes, O_SYNC (`--fsync`, `--fdatasync`, `--sync`).
    pub durability: super::durability::Durability,
    /// Most I/Os per second (`--rate-iops`); `None` = as fast as possible.
    pub rate_iops: Option<u32>,
    /// Zipf θ of the random patterns' blocks (`--distribution`); `None` = uniform.
    pub zipf_theta: Option<f64>,
    /// `--ss`: the stop rule the case's jobs share, and this job's index in it.
    pub steady: Option<(&'a super::steady::Steady, usize)>,
}

/// Counters of one measured window.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct Window {
    /// Bytes of the I/Os completed in the window.
    pub bytes: u64,
    /// I/Os completed.
    pub ios: u64,
    /// Reads completed.
    pub reads: u64,
    /// Sum of their latencies, ns.
    pub lat_ns: u128,
}

/// What a job measured.
pub(crate) struct JobStats {
    /// Per measured window.
    pub windows: Vec<Window>,
    /// Bytes completed per second of the measured span.
    pub per_sec: Vec<u64>,
    /// Completion latencies of counted I/Os, ns.
    pub hist: Histogram<u64>,
    /// Every I/O completed, ramp and drain included (for exact-count checks).
    pub all_ios: u64,
    /// Every byte completed, ramp and drain included.
    pub all_bytes: u64,
    /// Seconds from the end of the ramp to the last completion.
    pub span_s: f64,
    /// Engine description (e.g. registered buffers).
    pub queue: String,
    /// First offset whose read data did not match (with `--verify`).
    pub bad_read: Option<u64>,
    /// Stopped by a signal.
    pub interrupted: bool,
}

#[derive(Clone, Copy)]
struct Slot {
    op: Op,
    offset: u64,
    issued: Tick,
}

/// Runs one job to completion. `ready` is called once the file is open and the buffers
/// are allocated, and must return when every job is ready (the start barrier).
pub(crate) fn run(
    spec: &JobSpec,
    verify: Option<Verify<'_>>,
    ready: &dyn Fn(),
) -> io::Result<JobStats> {
    let sync = spec.engine.caps().has(Caps::SYNC);
    let depth = if sync { 1 } else { spec.depth.max(1) };
    let fd =
        super::workspace::open_with(spec.path, spec.direct, false, spec.durability.open_flags())?;
    let bufs = write_buffers(spec, depth)?;
    let mut q = spec.engine.open(fd.as_raw_fd(), depth, &bufs)?;
    q.advise(spec.pattern.random())?;
    let mut job = Job::new(spec, verify, sync, depth, q, bufs);
    job.fd = fd.as_raw_fd();
    ready();
    job.drive()?;
    job.finish_steady();
    // The queue goes before the buffers it may have registered, both before the file.
    let Job { q, bufs, st, .. } = job;
    drop(q);
    drop(bufs);
    Ok(st)
}

/// `depth` I/O buffers, each starting with incompressible data. Without --verify each
/// write then only stamps its offset and a counter into the first 16 bytes (like fio's
/// scramble_buffers, see [`Job::fill_write`]), so no two written blocks are identical
/// (no dedup).
fn write_buffers(spec: &JobSpec, depth: usize) -> io::Result<Buffers> {
    let mut bufs = Buffers::new(spec.block as usize, depth)?;
    for s in 0..depth {
        data::fill(
            bufs.slot_mut(s),
            spec.seed ^ 0x5eed,
            spec.file_id,
            s as u64 * spec.block,
            1,
        );
    }
    Ok(bufs)
}

/// One running job: its queue and buffers, where the next I/O goes, what is in flight
/// and what has been counted.
struct Job<'a> {
    spec: &'a JobSpec<'a>,
    verify: Option<Verify<'a>>,
    /// The engine completes I/O inside `submit`.
    sync: bool,
    q: Box<dyn Queue>,
    bufs: Buffers,
    /// Blocks in the job's region.
    nblocks: u64,
    /// Percentage of reads (mixed patterns).
    read_pct: u64,
    /// `--pattern copy`: read block i of the first half, write block i of the second.
    copy: bool,
    rng: XorShift,
    /// `--distribution zipf:θ`: the block picker of a random pattern.
    zipf: Option<super::zipf::Zipf>,
    /// The next block of a sequential pattern (of the first half, for copy).
    seq_next: u64,
    /// Writes stamped so far (without --verify).
    stamp: u64,
    /// I/Os submitted so far.
    issued: u64,
    /// Writes submitted so far (the count `--fsync`/`--fdatasync` flush on).
    writes: u64,
    /// The job's file (for the flushes).
    fd: std::os::fd::RawFd,
    inflight: usize,
    /// Still submitting: neither the end of the last window, the I/O limit nor a signal.
    issuing: bool,
    slots: Vec<Slot>,
    free: Vec<usize>,
    done: Vec<Done>,
    ramp_s: f64,
    win_s: f64,
    /// Seconds from the start to the end of the last window.
    end_s: f64,
    /// `--ss`: the window being counted, and its latencies (merged into the job's
    /// histogram once the window is published and kept, see `steady.rs`).
    cur_w: usize,
    pending: Option<Histogram<u64>>,
    st: JobStats,
}

impl<'a> Job<'a> {
    fn new(
        spec: &'a JobSpec<'a>,
        verify: Option<Verify<'a>>,
        sync: bool,
        depth: usize,
        q: Box<dyn Queue>,
        bufs: Buffers,
    ) -> Job<'a> {
        let ramp_s = spec.ramp.as_secs_f64();
        let win_s = spec.window.as_secs_f64();
        let st = JobStats {
            windows: vec![Window::default(); spec.windows],
            per_sec: Vec::new(),
            hist: histogram(),
            all_ios: 0,
            all_bytes: 0,
            span_s: 0.0,
            queue: q.describe(),
            bad_read: None,
            interrupted: false,
        };
        Job {
            spec,
            verify,
            sync,
            q,
            bufs,
            nblocks: spec.size / spec.block,
            read_pct: spec.pattern.read_pct() as u64,
            copy: spec.pattern == Pattern::Copy,
            rng: XorShift::new(spec.rng_seed | 1),
            zipf: spec
                .zipf_theta
                .filter(|_| spec.pattern.random())
                .map(|t| super::zipf::Zipf::new(spec.size / spec.block, t)),
            seq_next: 0,
            stamp: 0,
            issued: 0,
            writes: 0,
            fd: -1,
            inflight: 0,
            issuing: true,
            slots: vec![
                Slot {
                    op: Op::Read,
                    offset: 0,
                    issued: Tick::now(),
                };
                depth
            ],
            free: (0..depth).rev().collect(),
            done: Vec::with_capacity(depth),
            ramp_s,
            win_s,
            end_s: ramp_s + win_s * spec.windows as f64,
            cur_w: 0,
            pending: spec.steady.map(|_| histogram()),
            st,
        }
    }

    /// Whether the I/O limit (tests' exact counts) still allows another I/O.
    fn below_limit(&self) -> bool {
        self.spec.io_limit.is_none_or(|l| self.issued < l)
    }

    /// The ramp and the measured windows: keeps `depth` I/Os in flight until the end of
    /// the last window (or the I/O limit, or a signal), then drains the queue.
    fn drive(&mut self) -> io::Result<()> {
        let t0 = Tick::now();
        let mut now = t0;
        loop {
            if self.issuing {
                self.check_end(now.secs_since(t0));
            }
            // fio's loop (its defaults `iodepth_batch_submit=1`,
            // `iodepth_batch_complete_min=max=1`): fill the queue one submitting call per
            // I/O; once it is full, take one completion and refill its slot, so the queue
            // stays at its depth and every I/O's latency is measured at that depth.
            let room = self.issuing && self.below_limit();
            // `--rate-iops`: ahead of the schedule, take a completion or sleep.
            let wait =
                super::rate::wait_before(self.spec.rate_iops, self.issued, now.secs_since(t0));
            if room && !wait.is_zero() {
                if self.inflight > 0 {
                    now = self.reap(t0)?;
                } else {
                    super::rate::nap(wait);
                    now = Tick::now();
                }
                continue;
            }
            if room {
                if let Some(slot) = self.free.pop() {
                    self.issue(slot)?;
                }
            }
            if self.inflight == 0 {
                return Ok(());
            }
            if room && !self.free.is_empty() && self.below_limit() {
                // Not full yet: fill the next slot first.
                continue;
            }
            now = self.reap(t0)?;
        }
    }

    /// Stops issuing at the end of the last window, at the I/O limit or on a signal
    /// (`t`: seconds since the start).
    fn check_end(&mut self, t: f64) {
        let end_s = match self.spec.steady {
            Some((s, _)) => self.ramp_s + self.win_s * s.cap() as f64,
            None => self.end_s,
        };
        if t >= end_s || self.spec.io_limit.is_some_and(|l| self.issued >= l) {
            self.issuing = false;
        } else if self.spec.stop.load(Ordering::Relaxed) {
            self.issuing = false;
            self.st.interrupted = true;
        }
    }

    /// The block and direction of the next I/O, by the pattern.
    fn next_target(&mut self) -> (u64, Op) {
        let spec = self.spec;
        if self.copy {
            // Read block i of the first half, then write block i of the second.
            let half = self.nblocks / 2;
            return if self.issued.is_multiple_of(2) {
                (self.seq_next, Op::Read)
            } else {
                let i = half + self.seq_next;
                self.seq_next = (self.seq_next + 1) % half;
                (i, Op::Write)
            };
        }
        let idx = if spec.pattern.random() {
            match &self.zipf {
                Some(z) => z.block(self.rng.next_u64()),
                None => self.rng.below(self.nblocks),
            }
        } else {
            let i = self.seq_next;
            self.seq_next = (self.seq_next + 1) % self.nblocks;
            i
        };
        let read_pct = self.read_pct;
        let op = if read_pct == 100 || (read_pct > 0 && self.rng.below(100) < read_pct) {
            Op::Read
        } else {
            Op::Write
        };
        (idx, op)
    }

    /// Puts the data of a write at `rel` (bytes into the region) into `slot`'s buffer:
    /// the checkable generation with --verify, else the offset and a counter stamped
    /// over the incompressible data.
    fn fill_write(&mut self, slot: usize, rel: u64) {
        let spec = self.spec;
        let b = self.bufs.slot_mut(slot);
        match self.verify.as_mut() {
            Some(v) => {
                data::fill(b, spec.seed, spec.file_id, rel, v.gen);
                v.gens.set(rel, spec.block, v.gen);
            }
            None => {
                self.stamp += 1;
                // Blocks below 16 B (--buffered) take what fits.
                let mut tag = [0u8; 16];
                tag[..8].copy_from_slice(&rel.to_le_bytes());
                tag[8..].copy_from_slice(&self.stamp.to_le_bytes());
                let n = b.len().min(16);
                b[..n].copy_from_slice(&tag[..n]);
            }
        }
    }

    /// Submits the next I/O from the free `slot`, one submitting call.
    fn issue(&mut self, slot: usize) -> io::Result<()> {
        let (idx, op) = self.next_target();
        let rel = idx * self.spec.block;
        if op == Op::Write {
            self.fill_write(slot, rel);
        }
        self.slots[slot].op = op;
        self.slots[slot].offset = rel;
        let io = Io {
            slot,
            op,
            offset: self.spec.base + rel,
        };
        self.issued += 1;
        // Why one I/O per call and one completion per reap, measured on a quiet
        // 2-vCPU guest at 4 KiB random depth 32: every refill in one call reached
        // the device as a burst (the block layer holds the batch until the call
        // ends) and the queue swung between full and empty: 77–85 kIO/s against
        // 109–113 one per call (reads), 67–71 against 84–96 (writes). Reaping all
        // completions at once and then refilling them one by one (~5.5 µs a call)
        // left the first freed slots idle for most of the refill: about 22 of 32
        // I/Os were in flight on average, so latencies "at depth 32" read 0.65× fio's.
        // SYNC engines complete inside submit: their latency includes the call.
        let before = Tick::now();
        self.q.submit(std::slice::from_ref(&io), &self.bufs)?;
        self.slots[slot].issued = if self.sync { before } else { Tick::now() };
        self.inflight += 1;
        if op == Op::Write {
            // A SYNC engine's write has completed inside submit: the flush follows it,
            // outside its latency, inside the job's time (see `durability.rs`).
            self.writes += 1;
            self.spec.durability.after_write(self.fd, self.writes)?;
        }
        Ok(())
    }

    /// Takes one completion and handles it; returns when it was reaped.
    fn reap(&mut self, t0: Tick) -> io::Result<Tick> {
        self.done.clear();
        self.q.reap(1, 1, &mut self.done)?;
        let now = Tick::now();
        let t = now.secs_since(t0) - self.ramp_s;
        for i in 0..self.done.len() {
            let d = self.done[i];
            self.complete(d, now, t)?;
        }
        Ok(now)
    }

    /// One completed I/O, reaped at `now`, `t` seconds after the ramp: checked (an
    /// error or a short transfer ends the job), its read data verified, counted, and
    /// its slot freed.
    fn complete(&mut self, d: Done, now: Tick, t: f64) -> io::Result<()> {
        let spec = self.spec;
        self.inflight -= 1;
        let s = self.slots[d.slot];
        if d.result < 0 {
            return Err(io::Error::from_raw_os_error(-d.result as i32));
        }
        if d.result as u64 != spec.block {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                format!(
                    "short {}: {} of {} bytes at offset {}",
                    if s.op == Op::Read { "read" } else { "write" },
                    d.result,
                    spec.block,
                    spec.base + s.offset
                ),
            ));
        }
        self.st.all_ios += 1;
        self.st.all_bytes += spec.block;
        if s.op == Op::Read && self.st.bad_read.is_none() {
            if let Some(v) = self.verify.as_ref().filter(|v| v.check_reads) {
                self.st.bad_read = v
                    .gens
                    .first_bad(self.bufs.slot(d.slot), spec.seed, spec.file_id, s.offset)
                    .map(|o| spec.base + o);
            }
        }
        if t >= 0.0 {
            self.count(s, now, t);
        }
        self.free.push(d.slot);
        Ok(())
    }

    /// Counts an I/O completed `t` ≥ 0 seconds after the ramp in its window (none
    /// after the last: the drain), with its latency and its second.
    fn count(&mut self, s: Slot, now: Tick, t: f64) {
        let block = self.spec.block;
        let w = (t / self.win_s) as usize;
        let cap = self.spec.steady.map_or(usize::MAX, |(s, _)| s.cap());
        if w >= self.spec.windows.min(cap) {
            return;
        }
        if self.spec.steady.is_some() && w > self.cur_w && w >= self.cross(w) {
            return;
        }
        let st = &mut self.st;
        let lat = ((now.secs_since(s.issued) * 1e9).round() as u64).max(1);
        let win = &mut st.windows[w];
        win.bytes += block;
        win.ios += 1;
        win.reads += (s.op == Op::Read) as u64;
        win.lat_ns += lat as u128;
        // Cannot fail: values are clamped to the histogram's range.
        let _ = match self.pending.as_mut() {
            Some(p) => p.record(lat.min(HIST_MAX_NS)),
            None => st.hist.record(lat.min(HIST_MAX_NS)),
        };
        let sec = t as usize;
        if st.per_sec.len() <= sec {
            st.per_sec.resize(sec + 1, 0);
        }
        st.per_sec[sec] += block;
        st.span_s = t;
    }

    /// `--ss`: the first completion of window `w` publishes the windows before it and
    /// keeps the latencies of the one just ended when it is kept; returns the windows
    /// kept now.
    fn cross(&mut self, w: usize) -> usize {
        let Some((s, idx)) = self.spec.steady else {
            return self.spec.windows;
        };
        let counts: Vec<(u64, u64)> = self.st.windows.iter().map(|x| (x.ios, x.bytes)).collect();
        let cap = s.publish(idx, w, &counts);
        if let Some(p) = self.pending.as_mut() {
            if self.cur_w < cap {
                // Same bounds on both sides, so adding cannot fail.
                let _ = self.st.hist.add(&*p);
            }
            p.reset();
        }
        self.cur_w = w;
        cap
    }

    /// `--ss`: at the end of the job, every window is published (so the others are not
    /// kept waiting) and the last one's latencies kept when it is.
    fn finish_steady(&mut self) {
        if self.spec.steady.is_some() {
            self.cross(self.spec.windows);
        }
    }
}
