//! The data side of one test, the same at both ends: one pinned thread per data
//! connection, released together through a gate; interval sampling of the byte
//! counters; and the end of the test (senders stop, `SenderDone` crosses the control
//! connection, receivers drain, every thread is joined within a deadline).
//!
//! Placement, throughput: connection i runs on `cpus[i % len]` at *both* ends. On one
//! host (loopback, namespaces) the sender and receiver of a stream then share a core
//! and the payload stays in that core's caches; each stream gets its own core while
//! there are enough. Measured here (2 vCPUs, 128 KiB TCP): about 30 Gbit/s with the
//! pair on one core against about 11 Gbit/s with the pair split across cores.
//!
//! Placement, latency: when every thread of both ends can have its own core
//! (2 × streams ≤ CPUs), the server's threads take the cores after the client's and
//! both sides poll the socket for up to 100 µs (`tcp::SPIN`) before blocking, so a
//! reply is picked up without a wakeup (an inter-processor interrupt, costly in a
//! VM). Measured here, TCP 64 B round trip p50: 8–11 µs polling on separate cores,
//! 12–18 µs blocking on a shared core, 17–23 µs blocking on separate cores. Polling
//! keeps those cores busy during latency tests (the CPU note shows it). Otherwise
//! (fewer CPUs) threads block, placed as for throughput.
//!
//! Between two hosts the placement is simply one stream per core on each.
//!
//! A peer that stalls or vanishes cannot hang an end: data sockets carry read/write
//! timeouts, every wait has a deadline, and on any failure (or drop) the engine
//! interrupts its threads and shuts their sockets down so blocked calls return, then
//! waits (bounded) for them to exit, so their buffers are freed before it returns.

use super::proto::{
    Control, Direction, EndReport, Msg, SentCount, StreamStats, TestKind, TestSpec,
};
use crate::measure::clock::Tick;
use crate::measure::runner::pin_current_thread;
use hdrhistogram::Histogram;
use std::io;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// A shared stop flag.
#[derive(Clone, Default)]
pub struct Interrupt(Arc<AtomicBool>);

impl Interrupt {
    /// Whether the stop was requested.
    pub(crate) fn is_set(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
    /// Requests the stop.
    pub fn set(&self) {
        self.0.store(true, Ordering::Relaxed)
    }
}

/// The test's timeline as one thread sees it, from its own release time `t0`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Pacer {
    /// Release time.
    pub(crate) t0: Tick,
    /// Warm-up, seconds (not counted).
    pub(crate) omit_s: f64,
    /// One interval, seconds.
    pub(crate) iv_s: f64,
    /// Number of timed intervals.
    pub(crate) intervals: usize,
    /// Warm-up plus intervals, seconds.
    pub(crate) total_s: f64,
}

impl Pacer {
    /// The timeline of `spec` starting at `t0`.
    pub(crate) fn new(t0: Tick, spec: &TestSpec) -> Pacer {
        let omit_s = spec.omit_ms as f64 / 1e3;
        let iv_s = spec.interval_ms as f64 / 1e3;
        Pacer {
            t0,
            omit_s,
            iv_s,
            intervals: spec.intervals as usize,
            total_s: omit_s + iv_s * spec.intervals as f64,
        }
    }
    /// Whether the test time is over at `t`.
    pub(crate) fn done(&self, t: Tick) -> bool {
        t.secs_since(self.t0) >= self.total_s
    }
    /// The same timeline, starting at `t0` instead: a pinger restarts it at its first
    /// answered ping, so that the warm-up and the timed intervals begin once the peer
    /// is known to answer (a peer released late, or a first reply held up by the
    /// scheduler on a loaded machine, then costs no timed interval).
    pub(crate) fn restarted(&self, t0: Tick) -> Pacer {
        Pacer { t0, ..*self }
    }
    /// The timeline of a sender: one warm-up (at least the default one) longer than the
    /// receiver counts, so that the receiver's window, which opens at its first byte
    /// (see [`Engine::sample_watching`]), ends before the sender stops even when the
    /// receiver began reading up to one warm-up after the sender began sending.
    pub(crate) fn with_tail(&self) -> Pacer {
        // At least the default warm-up, so that `--omit 0` keeps the cover.
        let tail = self.omit_s.max(super::proto::DEFAULT_OMIT.as_secs_f64());
        Pacer {
            total_s: self.total_s + tail,
            ..*self
        }
    }
    /// The timed interval `t` falls in (`None` during the warm-up and after the end).
    pub(crate) fn slot(&self, t: Tick) -> Option<usize> {
        let e = t.secs_since(self.t0) - self.omit_s;
        if e < 0.0 {
            return None;
        }
        let k = (e / self.iv_s) as usize;
        (k < self.intervals).then_some(k)
    }
}

/// Round trips measured by one pinging stream (or several, merged).
pub(crate) struct LatencyOut {
    /// Round-trip times in nanoseconds (1 ns .. 60 s, 3 significant digits).
    pub(crate) hist: Histogram<u64>,
    /// Per timed interval: sum of round trips (s) and their count.
    pub(crate) per_interval: Vec<(f64, u64)>,
    /// Pings sent (warm-up included).
    pub(crate) sent: u64,
    /// Pings whose reply never came (UDP).
    pub(crate) lost: u64,
}

impl LatencyOut {
    /// Empty, for `intervals` intervals.
    pub(crate) fn new(intervals: usize) -> LatencyOut {
        LatencyOut {
            // Bounds are constants within hdrhistogram's limits: cannot fail.
            hist: Histogram::new_with_bounds(1, 60_000_000_000, 3).expect("valid bounds"),
            per_interval: vec![(0.0, 0); intervals],
            sent: 0,
            lost: 0,
        }
    }
    /// Records one round trip from `start` to `done` if it began in a timed interval.
    pub(crate) fn record(&mut self, pacer: &Pacer, start: Tick, done: Tick) {
        if let Some(k) = pacer.slot(start) {
            let rtt = done.secs_since(start);
            self.hist.saturating_record(((rtt * 1e9) as u64).max(1));
            self.per_interval[k].0 += rtt;
            self.per_interval[k].1 += 1;
        }
    }
    /// Adds another stream's round trips.
    pub(crate) fn merge(&mut self, o: &LatencyOut) {
        let _ = self.hist.add(&o.hist);
        for (a, b) in self.per_interval.iter_mut().zip(&o.per_interval) {
            a.0 += b.0;
            a.1 += b.1;
        }
        self.sent += o.sent;
        self.lost += o.lost;
    }
}

/// What a stream thread hands its transport: the test's timeline and the shared
/// state of its connection.
pub(crate) struct StreamIo<'a> {
    /// Message (TCP write, UDP datagram) size in bytes.
    pub(crate) msg: usize,
    /// The test's timeline from this thread's release.
    pub(crate) pacer: &'a Pacer,
    /// Set when the stream must stop.
    pub(crate) stop: &'a Interrupt,
    /// Live counter of payload bytes sent (read by the interval sampler).
    pub(crate) sent: &'a AtomicU64,
    /// Live counter of payload bytes received.
    pub(crate) recv: &'a AtomicU64,
    /// A fixed transfer's bytes still to send, shared by this end's senders (`None`:
    /// send until the test's end).
    pub(crate) budget: Option<&'a AtomicU64>,
    /// Poll the socket before blocking (latency with a core per thread).
    pub(crate) spin: bool,
    /// Zero-copy sends were enabled on this socket ([`Transport::zerocopy`]).
    pub(crate) zerocopy: bool,
    /// Pacing of a UDP sender, bits per second (`None`: as fast as it goes).
    pub(crate) rate_bps: Option<u64>,
    /// Longest silence from the peer before the stream fails (a pinger waiting for its
    /// first answer gives up after it).
    pub(crate) idle: Duration,
}

/// One transport's data side: how a connected socket of it is set up and how it runs
/// each [`Action`]. TCP and UDP are the impls (in `tcp.rs` and `udp.rs`); a new
/// transport is one more impl, plus its connect/accept in `client.rs`/`server.rs`.
pub(crate) trait Transport: Send + 'static {
    /// Readies the socket before its thread starts; `idle` bounds blocking calls.
    fn setup(&self, _spec: &TestSpec, _idle: Duration) -> io::Result<()> {
        Ok(())
    }
    /// Another handle on the same socket, kept to unblock the thread at the end.
    fn try_clone(&self) -> io::Result<DataSock>;
    /// Makes blocked calls on the socket return (where the transport can).
    fn shutdown(&self) {}
    /// Whether payload can still sit in socket buffers after the peer said it
    /// finished sending (datagrams: nothing tells the receiver the stream ended), so
    /// receivers drain until their counters stand still before being stopped.
    fn lingers(&self) -> bool {
        false
    }
    /// Turns on zero-copy sends where the transport has them; whether it did.
    fn zerocopy(&self) -> bool {
        false
    }
    /// Sends payload until the test's end or an interrupt: (bytes, messages).
    fn send(&self, io: &StreamIo) -> io::Result<(u64, u64)>;
    /// Receives and counts payload until the peer's end, filling the receive side of
    /// `stats`.
    fn recv(&self, io: &StreamIo, stats: &mut StreamStats) -> io::Result<()>;
    /// Client side of ping-pong: the round trips.
    fn ping(&self, io: &StreamIo) -> io::Result<LatencyOut>;
    /// Server side of ping-pong: (bytes, messages) echoed.
    fn echo(&self, io: &StreamIo) -> io::Result<(u64, u64)>;
}

/// A connected data socket of some transport.
pub(crate) type DataSock = Box<dyn Transport>;

/// What one end does on one data connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Action {
    /// Send payload.
    Send,
    /// Receive and count payload.
    Recv,
    /// Ping-pong driver (client).
    Ping,
    /// Ping-pong echo (server).
    Echo,
}

impl Action {
    /// Whether the action ends by itself at the test's end (and then says SenderDone).
    fn drives(self) -> bool {
        matches!(self, Action::Send | Action::Ping)
    }
}

/// The action of each data connection at one end. Bidir: the first `streams`
/// connections carry client→server traffic, the rest server→client.
pub(crate) fn actions(spec: &TestSpec, client: bool) -> Vec<Action> {
    let n = spec.streams as usize;
    (0..spec.connections())
        .map(|c| match spec.test {
            TestKind::Latency => {
                if client {
                    Action::Ping
                } else {
                    Action::Echo
                }
            }
            TestKind::Throughput => {
                let client_sends = match spec.direction {
                    Direction::Up => true,
                    Direction::Down => false,
                    Direction::Bidir => c < n,
                };
                if client_sends == client {
                    Action::Send
                } else {
                    Action::Recv
                }
            }
        })
        .collect()
}

#[repr(align(128))]
#[derive(Default)]
struct Padded(AtomicU64);

/// What a stream thread returns.
struct StreamOut {
    stats: StreamStats,
    latency: Option<LatencyOut>,
    ended: Tick,
    error: Option<String>,
}

/// Start gate: 0 waiting, 1 go, 2 abort.
struct Gate {
    state: Mutex<(u8, Option<Tick>)>,
    cv: Condvar,
}

fn thread_cpu_s() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: valid timespec pointer; CLOCK_THREAD_CPUTIME_ID exists on Linux.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

fn describe(e: &std::io::Error, idle: Duration) -> String {
    match e.kind() {
        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut => format!(
            "the peer stalled: nothing moved for {:.1} s",
            idle.as_secs_f64()
        ),
        _ => e.to_string(),
    }
}

/// (received, sent) bytes per timed interval, each as (seconds, bytes).
pub(crate) type Intervals = (Vec<(f64, u64)>, Vec<(f64, u64)>);

/// What an end learned from a finished test.
pub struct Finished {
    /// This end's counts.
    pub report: EndReport,
    /// Merged round trips (latency tests, client end).
    pub(crate) latency: Option<LatencyOut>,
    /// What the peer said it sent (from its SenderDone).
    pub(crate) peer_sent: Vec<SentCount>,
}

/// The running data side of one test at one end.
pub(crate) struct Engine {
    spec: TestSpec,
    actions: Vec<Action>,
    handles: Vec<Option<JoinHandle<StreamOut>>>,
    outs: Vec<Option<StreamOut>>,
    sent: Arc<Vec<Padded>>,
    recv: Arc<Vec<Padded>>,
    stop: Interrupt,
    clones: Vec<DataSock>,
    gate: Arc<Gate>,
    idle: Duration,
}

/// Something every stream thread keeps alive until it has exited (its buffers freed):
/// the server's memory reservation for the test.
pub(crate) type Hold = Arc<dyn std::any::Any + Send + Sync>;

impl Engine {
    /// Starts one thread per connection, pinned to `cpus[i % len]` (none when empty);
    /// they wait at the gate until [`Engine::release`]. `idle` bounds every blocking
    /// data-socket call.
    pub(crate) fn spawn(
        spec: &TestSpec,
        client: bool,
        socks: Vec<DataSock>,
        cpus: &[usize],
        idle: Duration,
    ) -> std::io::Result<Engine> {
        Engine::spawn_holding(spec, client, socks, cpus, idle, None)
    }

    /// [`Engine::spawn`], each thread holding a clone of `hold` until it exits, so the
    /// last thread to end (even one not joined in time) releases what `hold` stands for.
    pub(crate) fn spawn_holding(
        spec: &TestSpec,
        client: bool,
        socks: Vec<DataSock>,
        cpus: &[usize],
        idle: Duration,
        hold: Option<Hold>,
    ) -> std::io::Result<Engine> {
        let actions = actions(spec, client);
        let n = socks.len();
        let sent: Arc<Vec<Padded>> = Arc::new((0..n).map(|_| Padded::default()).collect());
        let recv: Arc<Vec<Padded>> = Arc::new((0..n).map(|_| Padded::default()).collect());
        let gate = Arc::new(Gate {
            state: Mutex::new((0, None)),
            cv: Condvar::new(),
        });
        let stop = Interrupt::default();
        let budget = Arc::new(AtomicU64::new(spec.bytes.unwrap_or(0)));
        let mut clones = Vec::with_capacity(n);
        let mut handles = Vec::with_capacity(n);
        // If anything below fails, threads already started must not wait at the gate
        // forever: this guard opens it with "abort" unless defused.
        struct AbortOnError(Arc<Gate>, bool);
        impl Drop for AbortOnError {
            fn drop(&mut self) {
                if !self.1 {
                    let mut st = self.0.state.lock().unwrap_or_else(|p| p.into_inner());
                    st.0 = 2;
                    self.0.cv.notify_all();
                }
            }
        }
        let mut guard = AbortOnError(gate.clone(), false);
        for (i, sock) in socks.into_iter().enumerate() {
            clones.push(sock.try_clone()?);
            sock.setup(spec, idle)?;
            // Latency with a core per thread: the server's threads go on the cores
            // after the client's and both poll before blocking (see the module doc).
            let spin = spec.test == TestKind::Latency && 2 * n <= cpus.len();
            let offset = if spin && !client { n } else { 0 };
            let cpu = (!cpus.is_empty()).then(|| cpus[(i + offset) % cpus.len()]);
            let (action, spec2) = (actions[i], spec.clone());
            let (sent, recv, gate, stop) = (sent.clone(), recv.clone(), gate.clone(), stop.clone());
            let hold = hold.clone();
            let budget = budget.clone();
            let h = std::thread::Builder::new()
                .name(format!("net-stream-{i}"))
                .spawn(move || {
                    // Dropped when this closure returns, after the transport's buffers.
                    let _hold = hold;
                    if let Some(c) = cpu {
                        pin_current_thread(c);
                    }
                    let zerocopy = spec2.zerocopy && action == Action::Send && sock.zerocopy();
                    let mut st = gate.state.lock().unwrap_or_else(|p| p.into_inner());
                    while st.0 == 0 {
                        st = gate.cv.wait(st).unwrap_or_else(|p| p.into_inner());
                    }
                    let go = st.0 == 1;
                    drop(st);
                    let t0 = Tick::now();
                    let mut out = StreamOut {
                        stats: StreamStats {
                            id: i as u32,
                            ..Default::default()
                        },
                        latency: None,
                        ended: t0,
                        error: None,
                    };
                    if !go {
                        out.error = Some("aborted before the start".into());
                        return out;
                    }
                    let pacer = Pacer::new(t0, &spec2);
                    let pacer = if action == Action::Send {
                        pacer.with_tail()
                    } else {
                        pacer
                    };
                    let cpu0 = thread_cpu_s();
                    let msg = spec2.msg as usize;
                    let io = StreamIo {
                        msg,
                        pacer: &pacer,
                        stop: &stop,
                        sent: &sent[i].0,
                        recv: &recv[i].0,
                        spin,
                        zerocopy,
                        rate_bps: spec2.rate_bps,
                        idle,
                        budget: spec2.bytes.map(|_| &*budget),
                    };
                    let r: io::Result<()> = match action {
                        Action::Send => sock.send(&io).map(|(b, m)| {
                            out.stats.sent_bytes = b;
                            out.stats.sent_msgs = m;
                        }),
                        Action::Recv => sock.recv(&io, &mut out.stats),
                        Action::Ping => sock.ping(&io).map(|l| {
                            out.stats.sent_msgs = l.sent;
                            out.stats.sent_bytes = l.sent * msg as u64;
                            out.stats.recv_msgs = l.sent - l.lost;
                            out.stats.recv_bytes = (l.sent - l.lost) * msg as u64;
                            out.latency = Some(l);
                        }),
                        Action::Echo => sock.echo(&io).map(|(b, m)| {
                            out.stats.recv_bytes = b;
                            out.stats.recv_msgs = m;
                            out.stats.sent_bytes = b;
                            out.stats.sent_msgs = m;
                        }),
                    };
                    out.stats.cpu_s = (thread_cpu_s() - cpu0).max(0.0);
                    out.ended = Tick::now();
                    if let Err(e) = r {
                        out.error = Some(format!("stream {i}: {}", describe(&e, idle)));
                    }
                    out
                })?;
            handles.push(Some(h));
        }
        guard.1 = true;
        Ok(Engine {
            spec: spec.clone(),
            actions,
            outs: (0..n).map(|_| None).collect(),
            handles,
            sent,
            recv,
            stop,
            clones,
            gate,
            idle,
        })
    }

    /// Opens the gate: every stream starts now. Returns the release time.
    pub(crate) fn release(&self) -> Tick {
        let t0 = Tick::now();
        let mut st = self.gate.state.lock().unwrap_or_else(|p| p.into_inner());
        *st = (1, Some(t0));
        self.gate.cv.notify_all();
        t0
    }

    /// Sleeps through the test, snapshotting the byte counters at every interval
    /// boundary. Returns (received, sent) per timed interval as (seconds, bytes).
    pub(crate) fn sample(&self, t0: Tick) -> Intervals {
        self.sample_watching(t0, Duration::from_millis(50), &|| false)
            .unwrap_or_default()
    }

    /// [`Engine::sample`], checking `gone` at least every `tick`: `None` (and every
    /// stream told to stop) as soon as it says the peer has vanished.
    ///
    /// An end that receives opens its window at the first payload byte it counts, not
    /// at its release (issue #32 item 1): the two ends are released one control message
    /// apart, and on a loaded machine that can be most of a second, which used to fall
    /// on the receiver's timed intervals (zero bytes, reported as a rate of 0 B/s).
    /// The sender sends one warm-up longer ([`Pacer::with_tail`]) to cover the window.
    /// An end whose peer sends nothing within the idle deadline returns no intervals
    /// (its receivers fail on their own read deadline).
    ///
    /// A sampler woken late (past the next boundary, or less than half an interval
    /// after its last sample) skips that boundary: its interval merges with the next,
    /// so every interval is one of real elapsed time, never the few microseconds
    /// between two samples taken back to back after a stall.
    pub(crate) fn sample_watching(
        &self,
        t0: Tick,
        tick: Duration,
        gone: &dyn Fn() -> bool,
    ) -> Option<Intervals> {
        let total = |v: &Vec<Padded>| v.iter().map(|c| c.0.load(Ordering::Relaxed)).sum::<u64>();
        let t0 = if self.actions.contains(&Action::Recv) {
            let give_up = Instant::now() + self.idle + Duration::from_secs(1);
            let mut watched = Instant::now();
            loop {
                if total(&self.recv) > 0 {
                    break Tick::now();
                }
                if self.stop.is_set() || Instant::now() >= give_up {
                    return Some(Intervals::default());
                }
                if watched.elapsed() >= tick {
                    watched = Instant::now();
                    if gone() {
                        self.stop.set();
                        return None;
                    }
                }
                std::thread::sleep(Duration::from_micros(500));
            }
        } else {
            t0
        };
        if let Some(b) = self.spec.bytes {
            let ends = (
                self.actions.contains(&Action::Recv),
                self.actions.contains(&Action::Send),
            );
            let counts = || (total(&self.recv), total(&self.sent));
            let cap_s = Pacer::new(t0, &self.spec).total_s;
            let stopped = || self.stop.is_set();
            let got = super::transfer::sample(t0, cap_s, b, ends, &counts, &stopped, tick, gone);
            if got.is_none() {
                self.stop.set();
            }
            return got;
        }
        let p = Pacer::new(t0, &self.spec);
        let mut recv_iv = Vec::new();
        let mut sent_iv = Vec::new();
        let mut last: Option<(Tick, u64, u64)> = None;
        for k in 0..=p.intervals {
            let at = p.omit_s + p.iv_s * k as f64;
            loop {
                let left = at - Tick::now().secs_since(t0);
                if left <= 0.0 || self.stop.is_set() {
                    break;
                }
                if gone() {
                    self.stop.set();
                    return None;
                }
                std::thread::sleep(Duration::from_secs_f64(left.min(tick.as_secs_f64())));
            }
            if self.stop.is_set() {
                break;
            }
            let now = Tick::now();
            if let Some((t, _, _)) = last {
                let next = p.omit_s + p.iv_s * (k + 1) as f64;
                let short = now.secs_since(t) < p.iv_s / 2.0;
                let passed_next = k < p.intervals && now.secs_since(t0) >= next;
                if short || passed_next {
                    continue;
                }
            }
            let (r, s) = (total(&self.recv), total(&self.sent));
            if let Some((t, r0, s0)) = last {
                let dt = now.secs_since(t);
                if dt > 0.0 {
                    recv_iv.push((dt, r - r0));
                    sent_iv.push((dt, s - s0));
                }
            }
            last = Some((now, r, s));
        }
        Some((recv_iv, sent_iv))
    }

    /// Waits for the threads at `idx` to end, up to `deadline`.
    fn wait_for(&mut self, idx: &[usize], deadline: Instant) -> bool {
        loop {
            let mut all = true;
            for &i in idx {
                if let Some(h) = &self.handles[i] {
                    if h.is_finished() {
                        let h = self.handles[i].take();
                        self.outs[i] = h.and_then(|h| h.join().ok());
                    } else {
                        all = false;
                    }
                }
            }
            if all || Instant::now() >= deadline {
                return all;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    fn first_error(&self) -> Option<String> {
        self.outs.iter().flatten().find_map(|o| o.error.clone())
    }

    /// Ends the test: waits for local senders, exchanges `SenderDone` with the peer,
    /// drains and joins the receivers, and returns this end's view.
    pub(crate) fn finish<S: super::proto::Timed>(
        mut self,
        ctrl: &mut Control<S>,
        t0: Tick,
        intervals: Intervals,
    ) -> Result<Finished, String> {
        let idle = self.idle;
        let n = self.actions.len();
        let drivers: Vec<usize> = (0..n).filter(|&i| self.actions[i].drives()).collect();
        let passive: Vec<usize> = (0..n).filter(|&i| !self.actions[i].drives()).collect();
        if !self.wait_for(&drivers, Instant::now() + idle + Duration::from_secs(1)) {
            return Err("a sending stream did not stop at the end of the test".into());
        }
        if let Some(e) = self.first_error() {
            return Err(e);
        }
        if !drivers.is_empty() {
            let sent = drivers
                .iter()
                .filter_map(|&i| self.outs[i].as_ref())
                .map(|o| SentCount {
                    id: o.stats.id,
                    msgs: o.stats.sent_msgs,
                    bytes: o.stats.sent_bytes,
                })
                .collect();
            ctrl.send(&Msg::SenderDone { sent }, "announcing the end of sending")
                .map_err(|e| e.to_string())?;
        }
        let mut peer_sent = Vec::new();
        if !passive.is_empty() {
            // A failed receiver (peer stalled or gone) ends the wait at once, instead
            // of waiting for a SenderDone that will not come.
            let give_up = Instant::now() + 2 * idle + Duration::from_secs(1);
            while !ctrl.readable(Duration::from_millis(20)) {
                self.wait_for(&passive, Instant::now());
                if let Some(e) = self.first_error() {
                    return Err(e);
                }
                if Instant::now() >= give_up {
                    return Err(
                        "waiting for the peer to finish sending: the peer went silent".into(),
                    );
                }
            }
            match ctrl.recv(
                2 * idle + Duration::from_secs(1),
                "waiting for the peer to finish sending",
            ) {
                Ok(Msg::SenderDone { sent }) if sent.len() <= n => peer_sent = sent,
                Ok(other) => {
                    return Err(format!(
                        "protocol error: expected sender_done, got {}",
                        kind(&other)
                    ))
                }
                Err(e) => return Err(e.to_string()),
            }
            if self.clones.iter().any(|c| c.lingers()) {
                // Datagrams still queued in socket buffers: drain until the counters
                // stay still for 60 ms (at most 2 s), then stop the receivers.
                let total = || {
                    self.recv
                        .iter()
                        .map(|c| c.0.load(Ordering::Relaxed))
                        .sum::<u64>()
                };
                let give_up = Instant::now() + Duration::from_secs(2);
                let (mut last, mut still_since) = (total(), Instant::now());
                while Instant::now() < give_up && still_since.elapsed() < Duration::from_millis(60)
                {
                    std::thread::sleep(Duration::from_millis(10));
                    let t = total();
                    if t != last {
                        last = t;
                        still_since = Instant::now();
                    }
                }
                self.stop.set();
            }
        }
        if !self.wait_for(&passive, Instant::now() + idle + Duration::from_secs(1)) {
            return Err(format!(
                "a receiving stream saw no end of data within {:.1} s",
                idle.as_secs_f64() + 1.0
            ));
        }
        if let Some(e) = self.first_error() {
            return Err(e);
        }
        let outs: Vec<StreamOut> = self.outs.iter_mut().filter_map(|o| o.take()).collect();
        let mut latency: Option<LatencyOut> = None;
        let mut report = EndReport {
            recv_intervals: intervals.0,
            sent_intervals: intervals.1,
            ..Default::default()
        };
        for mut o in outs {
            report.wall_s = report.wall_s.max(o.ended.secs_since(t0));
            report.cpu_s += o.stats.cpu_s;
            if let Some(l) = o.latency.take() {
                match &mut latency {
                    None => latency = Some(l),
                    Some(m) => m.merge(&l),
                }
            }
            report.streams.push(o.stats);
        }
        Ok(Finished {
            report,
            latency,
            peer_sent,
        })
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        // Wake threads still at the gate (abort) and unblock the others.
        {
            let mut st = self.gate.state.lock().unwrap_or_else(|p| p.into_inner());
            if st.0 == 0 {
                st.0 = 2;
            }
            self.gate.cv.notify_all();
        }
        self.stop.set();
        for c in &self.clones {
            c.shutdown();
        }
        // Wait (bounded) for the threads, so a test that ended early does not leave its
        // streams running, buffers allocated, under the next test (issue #27 item 1).
        // With their sockets shut down they return at their next call.
        let deadline = Instant::now() + self.idle + Duration::from_secs(1);
        let all: Vec<usize> = (0..self.handles.len()).collect();
        self.wait_for(&all, deadline);
    }
}

/// The message's type name, for protocol errors.
pub(crate) fn kind(m: &Msg) -> &'static str {
    match m {
        Msg::Greeting { .. } => "greeting",
        Msg::Hello { .. } => "hello",
        Msg::Welcome { .. } => "welcome",
        Msg::Test { .. } => "test",
        Msg::Ready { .. } => "ready",
        Msg::Attached {} => "attached",
        Msg::Start {} => "start",
        Msg::Started {} => "started",
        Msg::SenderDone { .. } => "sender_done",
        Msg::Results { .. } => "results",
        Msg::Bye {} => "bye",
        Msg::Error { .. } => "error",
    }
}
