//! UDP data streams: paced or unpaced senders, receivers that count loss, reordering
//! and jitter, and ping-pong.
//!
//! Every throughput datagram starts with a 16-byte header: the sequence number and the
//! sender's monotonic send time in nanoseconds (big-endian u64 each). Bytes are counted
//! as whole datagram payloads, header included, as iperf3 does. Sends and receives go
//! through `sendmmsg`/`recvmmsg` in batches (fewer system calls per datagram; the
//! datagrams on the wire are the same).
//!
//! Loss = datagrams the sender reports sent − datagrams received (the sender's count
//! arrives over the control connection, so datagrams lost at the tail are counted too).
//! Reordered = datagrams whose sequence number is below the highest already seen.
//! Jitter = RFC 3550 §6.4.1 interarrival jitter, J += (|D| − J) / 16, where D is the
//! change in transit time; the unknown clock offset between hosts cancels in D.

use super::engine::{DataSock, Interrupt, LatencyOut, Pacer, StreamIo, Transport};
use super::proto::{StreamStats, UdpRecv, ACK_MAGIC, DATA_HELLO_LEN, DATA_MAGIC};
use crate::measure::clock::Tick;
use std::io;
use std::net::UdpSocket;
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// Bytes of the sequence/time header of throughput datagrams.
pub(crate) const HEADER: usize = 16;
/// Most datagrams per sendmmsg/recvmmsg call.
const MAX_BATCH: usize = 64;
/// Bytes of datagram buffers per batch (bounds memory for large datagrams).
const BATCH_BYTES: usize = 512 * 1024;

/// The headers of one sendmmsg/recvmmsg batch, one datagram per buffer. They point
/// at the buffers, which must outlive every call that uses them, and at `_iov`, whose
/// heap storage stays put when the struct moves.
struct MsgHeaders {
    _iov: Vec<libc::iovec>,
    hdrs: Vec<libc::mmsghdr>,
}

impl MsgHeaders {
    fn new(bufs: &mut [Vec<u8>]) -> MsgHeaders {
        let mut iov: Vec<libc::iovec> = bufs
            .iter_mut()
            .map(|b| libc::iovec {
                iov_base: b.as_mut_ptr().cast(),
                iov_len: b.len(),
            })
            .collect();
        // Each header points at one live iovec above.
        let hdrs = iov
            .iter_mut()
            .map(|v| {
                // SAFETY: `mmsghdr` is pointers and integers: all zeroes is valid.
                let mut h: libc::mmsghdr = unsafe { std::mem::zeroed() };
                h.msg_hdr.msg_iov = v;
                h.msg_hdr.msg_iovlen = 1;
                h
            })
            .collect();
        MsgHeaders { _iov: iov, hdrs }
    }
}

/// Nanoseconds on this end's raw monotonic clock (only differences are meaningful).
fn now_ns(origin: Tick) -> u64 {
    (Tick::now().secs_since(origin) * 1e9) as u64
}

/// Asks for large socket buffers (the kernel clamps to `net.core.{r,w}mem_max`): at
/// line rate the default ~200 KiB receive buffer overflows in well under a
/// millisecond of scheduling delay, which would be counted as network loss.
pub fn big_buffers(sock: &UdpSocket) {
    let size: libc::c_int = 4 << 20;
    for opt in [libc::SO_RCVBUF, libc::SO_SNDBUF] {
        // SAFETY: plain setsockopt with a valid int option value.
        unsafe {
            libc::setsockopt(
                sock.as_raw_fd(),
                libc::SOL_SOCKET,
                opt,
                (&size as *const libc::c_int).cast(),
                std::mem::size_of::<libc::c_int>() as libc::socklen_t,
            );
        }
    }
}

fn batch_for(msg: usize, rate_bps: Option<u64>) -> usize {
    let by_mem = (BATCH_BYTES / msg.max(1)).clamp(1, MAX_BATCH);
    match rate_bps {
        // Paced: at most ~50 µs of datagrams per burst, so pacing stays smooth.
        Some(r) => {
            let per_50us = (r as f64 * 50e-6 / (msg as f64 * 8.0)) as usize;
            per_50us.clamp(1, by_mem)
        }
        None => by_mem,
    }
}

/// Sends numbered datagrams until the test's end. Returns (bytes, datagrams).
pub(crate) fn send(
    sock: &UdpSocket,
    msg: usize,
    pacer: &Pacer,
    stop: &Interrupt,
    count: &AtomicU64,
    rate_bps: Option<u64>,
) -> io::Result<(u64, u64)> {
    let batch = batch_for(msg, rate_bps);
    let mut bufs: Vec<Vec<u8>> = (0..batch).map(|_| super::tcp::payload(msg)).collect();
    let fd = sock.as_raw_fd();
    let origin = pacer.t0;
    let (mut seq, mut bytes) = (0u64, 0u64);
    // Seconds per datagram at the requested rate.
    let gap = rate_bps.map(|r| msg as f64 * 8.0 / r as f64);
    loop {
        let now = Tick::now();
        if pacer.done(now) || stop.is_set() {
            break;
        }
        if let Some(g) = gap {
            let due = seq as f64 * g;
            let ahead = due - now.secs_since(origin);
            if ahead > 0.0 {
                if ahead > 200e-6 {
                    std::thread::sleep(Duration::from_secs_f64(ahead - 100e-6));
                } else {
                    std::hint::spin_loop();
                }
                continue;
            }
        }
        let ts = now_ns(origin);
        for (i, b) in bufs.iter_mut().enumerate() {
            b[..8].copy_from_slice(&(seq + i as u64).to_be_bytes());
            b[8..16].copy_from_slice(&ts.to_be_bytes());
        }
        let mut batch = MsgHeaders::new(&mut bufs);
        let hdrs = &mut batch.hdrs;
        // SAFETY: `hdrs` and the buffers they point to outlive the call.
        let n = unsafe { libc::sendmmsg(fd, hdrs.as_mut_ptr(), hdrs.len() as u32, 0) };
        if n < 0 {
            let e = io::Error::last_os_error();
            match e.raw_os_error() {
                Some(libc::EINTR) | Some(libc::EAGAIN) | Some(libc::ENOBUFS) => {
                    std::thread::yield_now();
                    continue;
                }
                Some(libc::ECONNREFUSED) => {
                    return Err(io::Error::new(
                        io::ErrorKind::ConnectionRefused,
                        "the receiver's port refused datagrams (receiver gone)",
                    ))
                }
                _ => return Err(e),
            }
        }
        let n = n as u64;
        seq += n;
        bytes += n * msg as u64;
        count.fetch_add(n * msg as u64, Ordering::Relaxed);
    }
    Ok((bytes, seq))
}

/// Whether a datagram is a (repeated) data hello or acknowledgement, not payload.
fn is_handshake(d: &[u8]) -> bool {
    d.len() == DATA_HELLO_LEN && (&d[..8] == DATA_MAGIC || &d[..8] == ACK_MAGIC)
}

/// Receives numbered datagrams until `stop`. Returns (bytes, statistics).
pub fn recv(
    sock: &UdpSocket,
    msg: usize,
    count: &AtomicU64,
    stop: &Interrupt,
    origin: Tick,
) -> io::Result<(u64, UdpRecv)> {
    let _ = sock.set_read_timeout(Some(Duration::from_millis(20)));
    // One byte more than the agreed size: a longer datagram from a misbehaving peer is
    // truncated and counted at the buffer's size, never overflows.
    let slot = (msg + 1).min(65_536);
    let batch = (2 * BATCH_BYTES / slot).clamp(8, MAX_BATCH);
    let mut bufs: Vec<Vec<u8>> = (0..batch).map(|_| vec![0u8; slot]).collect();
    let fd = sock.as_raw_fd();
    let mut st = UdpRecv::default();
    let mut bytes = 0u64;
    let mut prev_transit: Option<i64> = None;
    let mut jitter_ns = 0f64;
    while !stop.is_set() {
        let mut batch = MsgHeaders::new(&mut bufs);
        let hdrs = &mut batch.hdrs;
        // SAFETY: buffers and headers outlive the call; MSG_WAITFORONE blocks (up to
        // SO_RCVTIMEO) for the first datagram only.
        let n = unsafe {
            libc::recvmmsg(
                fd,
                hdrs.as_mut_ptr(),
                hdrs.len() as u32,
                libc::MSG_WAITFORONE,
                std::ptr::null_mut(),
            )
        };
        if n < 0 {
            let e = io::Error::last_os_error();
            match e.raw_os_error() {
                Some(libc::EINTR) | Some(libc::EAGAIN) => continue,
                // An ICMP error from an earlier send on this connected socket.
                Some(libc::ECONNREFUSED) => continue,
                _ => return Err(e),
            }
        }
        let arrival = now_ns(origin) as i64;
        for (h, b) in hdrs.iter().zip(&bufs).take(n as usize) {
            let len = (h.msg_len as usize).min(b.len());
            let d = &b[..len];
            if len < HEADER || is_handshake(d) {
                continue;
            }
            let mut w = [0u8; 8];
            w.copy_from_slice(&d[..8]);
            let seq = u64::from_be_bytes(w);
            w.copy_from_slice(&d[8..16]);
            let sent = u64::from_be_bytes(w) as i64;
            st.received += 1;
            bytes += len as u64;
            count.fetch_add(len as u64, Ordering::Relaxed);
            if seq < st.next_seq {
                st.reordered += 1;
            } else {
                st.next_seq = seq.saturating_add(1);
            }
            let transit = arrival.wrapping_sub(sent);
            if let Some(p) = prev_transit {
                let dd = transit.wrapping_sub(p).unsigned_abs() as f64;
                jitter_ns += (dd - jitter_ns) / 16.0;
            }
            prev_transit = Some(transit);
        }
    }
    st.jitter_s = jitter_ns * 1e-9;
    Ok((bytes, st))
}

/// Client side of UDP ping-pong. A reply that does not come back within 200 ms is
/// counted lost (UDP has no retransmission) and the next ping goes out. The timeline
/// starts at the first answered ping ([`Pacer::restarted`]); pings before it are not
/// counted (the peer may not be reading yet), and no answer within `idle` fails.
pub(crate) fn ping(
    sock: &UdpSocket,
    msg: usize,
    pacer: &Pacer,
    stop: &Interrupt,
    spin: bool,
    idle: Duration,
) -> io::Result<LatencyOut> {
    let _ = sock.set_read_timeout(Some(Duration::from_millis(200)));
    let mut out_buf = super::tcp::payload(msg);
    let mut in_buf = vec![0u8; 65_536];
    let mut out = LatencyOut::new(pacer.intervals);
    let mut pacer = *pacer;
    let mut answered = false;
    let began = std::time::Instant::now();
    let mut seq = 0u64;
    while !stop.is_set() {
        let t = Tick::now();
        if answered && pacer.done(t) {
            break;
        }
        // Messages of 8 bytes or more carry a sequence number, so a late reply to a
        // ping already counted lost is not taken for the current one.
        if msg >= 8 {
            out_buf[..8].copy_from_slice(&seq.to_be_bytes());
        }
        seq += 1;
        sock.send(&out_buf)?;
        out.sent += 1;
        loop {
            let r = match spin
                .then(|| super::tcp::spin_recv(sock.as_raw_fd(), &mut in_buf))
                .flatten()
            {
                Some(r) => r,
                None => sock.recv(&mut in_buf),
            };
            match r {
                Ok(n) => {
                    if msg >= 8 && (n < 8 || in_buf[..8] != out_buf[..8]) {
                        continue;
                    }
                    let done = Tick::now();
                    if answered {
                        out.record(&pacer, t, done);
                    } else {
                        answered = true;
                        out.sent = 1;
                        pacer = pacer.restarted(done);
                    }
                    break;
                }
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                    ) =>
                {
                    if answered {
                        out.lost += 1;
                    } else if began.elapsed() >= idle {
                        return Err(io::Error::new(
                            io::ErrorKind::TimedOut,
                            "no ping was answered",
                        ));
                    }
                    break;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }
    Ok(out)
}

/// Server side of UDP ping-pong: echo every datagram until `stop`.
/// Returns (bytes, datagrams) echoed.
pub(crate) fn echo(sock: &UdpSocket, stop: &Interrupt, spin: bool) -> io::Result<(u64, u64)> {
    let _ = sock.set_read_timeout(Some(Duration::from_millis(20)));
    let mut buf = vec![0u8; 65_536];
    let (mut bytes, mut n) = (0u64, 0u64);
    while !stop.is_set() {
        let r = match spin
            .then(|| super::tcp::spin_recv(sock.as_raw_fd(), &mut buf))
            .flatten()
        {
            Some(r) => r,
            None => sock.recv(&mut buf),
        };
        match r {
            Ok(len) => {
                if is_handshake(&buf[..len]) {
                    continue;
                }
                match sock.send(&buf[..len]) {
                    Ok(_) => {}
                    Err(e) if e.kind() == io::ErrorKind::ConnectionRefused => {}
                    Err(e) => return Err(e),
                }
                bytes += len as u64;
                n += 1;
            }
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock
                        | io::ErrorKind::TimedOut
                        | io::ErrorKind::Interrupted
                        | io::ErrorKind::ConnectionRefused
                ) => {}
            Err(e) => return Err(e),
        }
    }
    Ok((bytes, n))
}

/// UDP has no shutdown: a blocked receive returns at its read timeout and sees the
/// stop flag.
impl Transport for UdpSocket {
    fn try_clone(&self) -> io::Result<DataSock> {
        Ok(Box::new(UdpSocket::try_clone(self)?))
    }
    fn lingers(&self) -> bool {
        true
    }
    fn send(&self, io: &StreamIo) -> io::Result<(u64, u64)> {
        send(self, io.msg, io.pacer, io.stop, io.sent, io.rate_bps)
    }
    fn recv(&self, io: &StreamIo, stats: &mut StreamStats) -> io::Result<()> {
        let (b, u) = recv(self, io.msg, io.recv, io.stop, io.pacer.t0)?;
        stats.recv_bytes = b;
        stats.recv_msgs = u.received;
        stats.udp = Some(u);
        Ok(())
    }
    fn ping(&self, io: &StreamIo) -> io::Result<LatencyOut> {
        ping(self, io.msg, io.pacer, io.stop, io.spin, io.idle)
    }
    fn echo(&self, io: &StreamIo) -> io::Result<(u64, u64)> {
        echo(self, io.stop, io.spin)
    }
}
