//! TCP data streams: the per-stream loops (send, receive, ping, echo), each run on its
//! own pinned thread by `engine.rs`.
//!
//! Counting follows iperf3: payload bytes handed to / returned by the socket calls.
//! The sender writes `msg`-byte messages; the receiver reads with a buffer of at least
//! 128 KiB (iperf3 reads its block size; a larger read only drains the socket in fewer
//! calls, it does not change what crossed the network).

use super::engine::{DataSock, Interrupt, LatencyOut, Pacer, StreamIo, Transport};
use super::proto::{StreamStats, TestKind, TestSpec};
use crate::measure::clock::Tick;
use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// Smallest receive buffer.
const MIN_READ: usize = 128 * 1024;

fn send_flags(fd: i32, buf: &[u8], flags: i32) -> io::Result<usize> {
    // SAFETY: `buf` is a valid readable slice for its length; `fd` is an open socket
    // owned by the caller for the duration of the call.
    let n = unsafe {
        libc::send(
            fd,
            buf.as_ptr().cast(),
            buf.len(),
            flags | libc::MSG_NOSIGNAL,
        )
    };
    if n < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(n as usize)
    }
}

/// Enables MSG_ZEROCOPY on the socket; `false` when the kernel refuses (before 4.14,
/// or a socket type without it).
pub(crate) fn enable_zerocopy(sock: &TcpStream) -> bool {
    let one: libc::c_int = 1;
    // SAFETY: plain setsockopt with a valid int option value.
    unsafe {
        libc::setsockopt(
            sock.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_ZEROCOPY,
            (&one as *const libc::c_int).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        ) == 0
    }
}

/// Reads and discards MSG_ZEROCOPY completion notifications from the error queue, so
/// the socket's option memory (optmem) is released and sends keep going. The buffer
/// is never changed while in flight, so completions need no bookkeeping.
fn reap_zerocopy(fd: i32) {
    let mut control = [0u8; 256];
    loop {
        // SAFETY: msghdr points at a valid control buffer and no data iovecs.
        let n = unsafe {
            let mut m: libc::msghdr = std::mem::zeroed();
            m.msg_control = control.as_mut_ptr().cast();
            m.msg_controllen = control.len() as _;
            libc::recvmsg(fd, &mut m, libc::MSG_ERRQUEUE | libc::MSG_DONTWAIT)
        };
        if n < 0 {
            break;
        }
    }
}

/// Sends `msg`-byte messages until the test's end or an interrupt, then shuts down the
/// write side so the receiver sees the end. Returns (bytes, messages).
pub(crate) fn send(
    mut sock: &TcpStream,
    msg: usize,
    pacer: &Pacer,
    stop: &Interrupt,
    count: &AtomicU64,
    zerocopy: bool,
    budget: Option<&AtomicU64>,
) -> io::Result<(u64, u64)> {
    let buf = payload(msg);
    let fd = sock.as_raw_fd();
    let flags = if zerocopy { libc::MSG_ZEROCOPY } else { 0 };
    let (mut bytes, mut msgs) = (0u64, 0u64);
    while !pacer.done(Tick::now()) && !stop.is_set() {
        // A fixed transfer: this message is what is left of it, at most `msg` bytes.
        let len = match budget {
            Some(b) => super::transfer::take(b, msg as u64) as usize,
            None => msg,
        };
        if len == 0 {
            break;
        }
        let mut off = 0;
        while off < len {
            let r = if zerocopy {
                send_flags(fd, &buf[off..len], flags)
            } else {
                sock.write(&buf[off..len])
            };
            match r {
                Ok(0) => return Err(io::Error::new(io::ErrorKind::WriteZero, "peer gone")),
                Ok(n) => {
                    off += n;
                    bytes += n as u64;
                    count.fetch_add(n as u64, Ordering::Relaxed);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                // Zero-copy: optmem exhausted until completions are read.
                Err(e) if zerocopy && e.raw_os_error() == Some(libc::ENOBUFS) => reap_zerocopy(fd),
                Err(e) => return Err(e),
            }
        }
        msgs += 1;
        if zerocopy && msgs % 64 == 0 {
            reap_zerocopy(fd);
        }
    }
    if zerocopy {
        reap_zerocopy(fd);
    }
    let _ = sock.flush();
    let _ = sock.shutdown(std::net::Shutdown::Write);
    Ok((bytes, msgs))
}

/// Receives until the peer shuts its side down. Returns (bytes, reads).
pub(crate) fn recv(mut sock: &TcpStream, msg: usize, count: &AtomicU64) -> io::Result<(u64, u64)> {
    let mut buf = vec![0u8; msg.max(MIN_READ)];
    let (mut bytes, mut reads) = (0u64, 0u64);
    loop {
        match sock.read(&mut buf) {
            Ok(0) => return Ok((bytes, reads)),
            Ok(n) => {
                bytes += n as u64;
                reads += 1;
                count.fetch_add(n as u64, Ordering::Relaxed);
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

/// How long a latency thread polls a socket before it blocks (see `engine.rs`).
pub(crate) const SPIN: f64 = 100e-6;

/// Polls `fd` without blocking for up to [`SPIN`] seconds. `None`: nothing arrived.
pub(crate) fn spin_recv(fd: i32, buf: &mut [u8]) -> Option<io::Result<usize>> {
    let t0 = Tick::now();
    loop {
        // SAFETY: `buf` is valid and writable for its length; `fd` is an open socket.
        let n = unsafe { libc::recv(fd, buf.as_mut_ptr().cast(), buf.len(), libc::MSG_DONTWAIT) };
        if n >= 0 {
            return Some(Ok(n as usize));
        }
        let e = io::Error::last_os_error();
        if !matches!(e.raw_os_error(), Some(libc::EAGAIN) | Some(libc::EINTR)) {
            return Some(Err(e));
        }
        if Tick::now().secs_since(t0) >= SPIN {
            return None;
        }
        std::hint::spin_loop();
    }
}

/// Reads exactly `buf.len()` bytes; `Ok(false)` on a clean end before the first byte.
/// With `spin`, each read polls for [`SPIN`] before blocking.
fn read_msg(sock: &mut &TcpStream, buf: &mut [u8], spin: bool) -> io::Result<bool> {
    let mut got = 0;
    while got < buf.len() {
        let r = match spin
            .then(|| spin_recv(sock.as_raw_fd(), &mut buf[got..]))
            .flatten()
        {
            Some(r) => r,
            None => sock.read(&mut buf[got..]),
        };
        match r {
            Ok(0) if got == 0 => return Ok(false),
            Ok(0) => {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "peer closed mid-message",
                ))
            }
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(true)
}

/// Client side of ping-pong: send a message, wait for it to come back, until the
/// test's end. Round trips starting after the warm-up are recorded. The timeline
/// starts at the first answered ping ([`Pacer::restarted`]): a peer that is released
/// late, or whose first reply the scheduler holds up, costs no timed interval.
pub(crate) fn ping(
    mut sock: &TcpStream,
    msg: usize,
    pacer: &Pacer,
    stop: &Interrupt,
    spin: bool,
) -> io::Result<LatencyOut> {
    let out_buf = payload(msg);
    let mut in_buf = vec![0u8; msg];
    let mut out = LatencyOut::new(pacer.intervals);
    let mut pacer = *pacer;
    let mut answered = false;
    while !stop.is_set() {
        let t = Tick::now();
        if answered && pacer.done(t) {
            break;
        }
        sock.write_all(&out_buf)?;
        if !read_msg(&mut sock, &mut in_buf, spin)? {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "peer closed during ping-pong",
            ));
        }
        let done = Tick::now();
        out.sent += 1;
        if !answered {
            answered = true;
            pacer = pacer.restarted(done);
            continue;
        }
        out.record(&pacer, t, done);
    }
    let _ = sock.shutdown(std::net::Shutdown::Write);
    Ok(out)
}

/// Server side of ping-pong: echo every `msg`-byte message until the peer shuts down.
/// Returns (bytes, messages) echoed.
pub(crate) fn echo(mut sock: &TcpStream, msg: usize, spin: bool) -> io::Result<(u64, u64)> {
    let mut buf = vec![0u8; msg];
    let mut n = 0u64;
    while read_msg(&mut sock, &mut buf, spin)? {
        sock.write_all(&buf)?;
        n += 1;
    }
    Ok((n * msg as u64, n))
}

/// A payload that is not all zeros (compression anywhere on the path gains nothing).
pub(crate) fn payload(len: usize) -> Vec<u8> {
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

/// Sets TCP_NODELAY (latency: no Nagle batching of small messages).
pub(crate) fn nodelay(sock: &TcpStream) {
    let _ = sock.set_nodelay(true);
}

impl Transport for TcpStream {
    fn setup(&self, spec: &TestSpec, idle: Duration) -> io::Result<()> {
        self.set_read_timeout(Some(idle))?;
        self.set_write_timeout(Some(idle))?;
        if spec.test == TestKind::Latency {
            nodelay(self);
        }
        Ok(())
    }
    fn try_clone(&self) -> io::Result<DataSock> {
        Ok(Box::new(TcpStream::try_clone(self)?))
    }
    fn shutdown(&self) {
        let _ = TcpStream::shutdown(self, Shutdown::Both);
    }
    fn zerocopy(&self) -> bool {
        enable_zerocopy(self)
    }
    fn send(&self, io: &StreamIo) -> io::Result<(u64, u64)> {
        send(
            self,
            io.msg,
            io.pacer,
            io.stop,
            io.sent,
            io.zerocopy,
            io.budget,
        )
    }
    fn recv(&self, io: &StreamIo, stats: &mut StreamStats) -> io::Result<()> {
        let (b, m) = recv(self, io.msg, io.recv)?;
        stats.recv_bytes = b;
        stats.recv_msgs = m;
        Ok(())
    }
    fn ping(&self, io: &StreamIo) -> io::Result<LatencyOut> {
        ping(self, io.msg, io.pacer, io.stop, io.spin)
    }
    fn echo(&self, io: &StreamIo) -> io::Result<(u64, u64)> {
        echo(self, io.msg, io.spin)
    }
}
