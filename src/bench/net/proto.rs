//! The network control protocol: one control TCP connection per test, plus data
//! streams that present the test's session cookie.
//!
//! Every byte from the peer is hostile (iperf3 CVE-2023-38403,
//! CVE-2024-53580, #1776). Hence:
//! - frames are a `u32` big-endian length followed by that many bytes of JSON; the
//!   length is checked against [`MAX_FRAME`] *before* anything is allocated;
//! - messages are strictly typed (serde, `deny_unknown_fields`), and every number that
//!   sizes work is range-checked by [`TestSpec::validate`] / [`EndReport::validate`];
//! - every read has a deadline for its whole phase, so a peer that trickles bytes
//!   cannot stretch it;
//! - the pre-shared token is never sent: each side proves it knows it with an
//!   HMAC-SHA256 over both sides' fresh nonces (mutual challenge–response);
//! - text from the peer is cleaned ([`clean`]) before it reaches a terminal.
//!
//! Conversation (client C, server S):
//! ```text
//! S→C Greeting{version, nonce, auth}     C checks the version
//! C→S Hello{version, nonce, proof}       S checks version and proof
//! S→C Welcome{proof, host}               C checks the server's proof (if --token)
//! C→S Test{spec}                         S validates, opens data ports
//! S→C Ready{cookie, ports}               C connects data streams presenting the cookie
//! S→C Attached                           every stream is there (receivers exist first)
//! C→S Start                            (a client that only receives starts first)
//! S→C Started                          S's streams run; C starts its senders now
//! ... data ...                           each end that sends says SenderDone
//! S→C Results{report}                    the server's own view; C adds its view
//! C→S Bye
//! ```
//! Any message may be replaced by `Error{message}`, which ends the conversation.

use crate::util::frame::{self, FrameError};
use serde::{Deserialize, Serialize};
use std::time::{Duration, Instant};

/// Protocol version; bumped whenever a message changes. A mismatch is refused.
pub const VERSION: u32 = 2;
/// Largest frame accepted, in bytes (the length prefix excluded). A report with a
/// HostInfo is a few KiB; anything near this cap is an attack or a bug.
pub(crate) const MAX_FRAME: usize = 256 * 1024;
/// Warm-up at the start of every test, not counted, when `--omit` is not given.
pub(crate) const DEFAULT_OMIT: Duration = Duration::from_millis(500);
/// Smallest MSS Linux accepts (TCP_MIN_MSS).
pub(crate) const MIN_MSS: u32 = 88;
/// Largest MSS accepted (iperf3's limit: a 9216-byte jumbo frame).
pub(crate) const MAX_MSS: u32 = 9216;
/// Smallest socket buffer accepted.
pub(crate) const MIN_WINDOW: u32 = 4096;
/// Largest socket buffer accepted.
pub(crate) const MAX_WINDOW: u32 = 1 << 30;
/// Longest congestion control name (TCP_CA_NAME_MAX − 1).
pub(crate) const MAX_CONGESTION_NAME: usize = 15;
/// Default TCP port of `peakbench serve`.
pub(crate) const DEFAULT_PORT: u16 = 5211;
/// Most streams per direction a server accepts.
pub(crate) const MAX_STREAMS: u32 = 128;
/// Largest TCP message (write size) accepted.
pub(crate) const MAX_TCP_MSG: u32 = 16 * 1024 * 1024;
/// Largest UDP datagram payload (IPv4: 65535 − 20 − 8).
pub(crate) const MAX_UDP_MSG: u32 = 65_507;
/// Smallest UDP throughput datagram: it carries a sequence number and a send time.
pub(crate) const MIN_UDP_MSG: u32 = 16;
/// Longest test a server accepts (warm-up + timed part).
pub(crate) const MAX_TEST: Duration = Duration::from_secs(3600);
/// Bytes of the hello a data stream sends first: magic, cookie, stream index.
pub(crate) const DATA_HELLO_LEN: usize = 8 + COOKIE_LEN + 4;
/// Magic of a data-stream hello.
pub(crate) const DATA_MAGIC: &[u8; 8] = b"PKBNDATA";
/// Magic of the server's acknowledgement of a UDP data hello.
pub(crate) const ACK_MAGIC: &[u8; 8] = b"PKBNDACK";
/// Bytes of a session cookie.
pub(crate) const COOKIE_LEN: usize = 16;

/// Transport of a test.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Proto {
    /// TCP stream sockets.
    Tcp,
    /// UDP datagram sockets.
    Udp,
}

/// What a test measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TestKind {
    /// Bytes per second, counted at the receiver.
    Throughput,
    /// Round trips of N-byte messages (ping-pong).
    Latency,
}

/// Who sends in a throughput test.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// The client sends (default).
    Up,
    /// The server sends (`--reverse`).
    Down,
    /// Both send at once, each on its own streams (`--bidir`).
    Bidir,
}

impl Proto {
    /// Lower-case name, as on the command line.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Proto::Tcp => "tcp",
            Proto::Udp => "udp",
        }
    }
}

impl TestKind {
    /// Lower-case name, as on the command line.
    pub(crate) fn name(self) -> &'static str {
        match self {
            TestKind::Throughput => "throughput",
            TestKind::Latency => "latency",
        }
    }
}

/// One test, as the client asks for it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TestSpec {
    /// Transport.
    pub proto: Proto,
    /// Throughput or latency.
    pub test: TestKind,
    /// Message (write) size or datagram payload, bytes.
    pub msg: u32,
    /// Streams per direction.
    pub streams: u32,
    /// Who sends (throughput); latency is always client-driven ping-pong.
    pub direction: Direction,
    /// Warm-up at the start, not counted (TCP slow start, caches), milliseconds.
    pub omit_ms: u64,
    /// Length of one timed interval (one sample), milliseconds.
    pub interval_ms: u64,
    /// Number of timed intervals (samples).
    pub intervals: u32,
    /// UDP pacing per stream, bits per second; `None` = as fast as possible.
    pub rate_bps: Option<u64>,
    /// Send with MSG_ZEROCOPY (TCP) where the OS offers it.
    pub zerocopy: bool,
    /// Socket buffers (SO_SNDBUF and SO_RCVBUF) of every data socket at both ends,
    /// bytes (iperf3 `-w`); `None` = the kernel's default (TCP) or as large as allowed
    /// (UDP). Absent from the message when `None`, so that a server of the previous
    /// release still serves a run without the knob (and refuses one with it, naming it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<u32>,
    /// TCP congestion control of the data connections at both ends (iperf3 `-C`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub congestion: Option<String>,
    /// TCP MSS cap of the data connections, bytes (iperf3 `-M`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mss: Option<u32>,
    /// A fixed transfer (`--bytes`, iperf3 `-n`): the sending streams of each end stop
    /// once they sent this many payload bytes in all, and the figure is these bytes
    /// over the transfer's elapsed time (TCP throughput only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes: Option<u64>,
}

impl TestSpec {
    /// Warm-up plus timed part.
    pub(crate) fn total(&self) -> Duration {
        Duration::from_millis(
            self.omit_ms
                .saturating_add(self.interval_ms.saturating_mul(u64::from(self.intervals))),
        )
    }

    /// Data connections to open: one per stream, twice that for `bidir`.
    pub(crate) fn connections(&self) -> usize {
        let n = self.streams as usize;
        if self.test == TestKind::Throughput && self.direction == Direction::Bidir {
            2 * n
        } else {
            n
        }
    }

    /// Checks every field that sizes work or memory; the error is one line for the peer.
    pub(crate) fn validate(&self) -> Result<(), String> {
        let max_msg = match self.proto {
            Proto::Tcp => MAX_TCP_MSG,
            Proto::Udp => MAX_UDP_MSG,
        };
        let min_msg = match (self.proto, self.test) {
            (Proto::Udp, TestKind::Throughput) => MIN_UDP_MSG,
            _ => 1,
        };
        if !(min_msg..=max_msg).contains(&self.msg) {
            return Err(format!(
                "message size {} out of range for {} {}: {min_msg}..={max_msg} bytes",
                self.msg,
                self.proto.name(),
                self.test.name()
            ));
        }
        if !(1..=MAX_STREAMS).contains(&self.streams) {
            return Err(format!(
                "{} streams out of range: 1..={MAX_STREAMS}",
                self.streams
            ));
        }
        if self.interval_ms == 0 || self.intervals == 0 || self.intervals > 100_000 {
            return Err("a test needs 1..=100000 intervals of at least 1 ms".into());
        }
        if self.total() > MAX_TEST {
            return Err(format!(
                "test of {:?} longer than the {:?} limit",
                self.total(),
                MAX_TEST
            ));
        }
        if self.test == TestKind::Latency && self.direction != Direction::Up {
            return Err("latency tests are client-driven: no reverse or bidir".into());
        }
        if self.rate_bps == Some(0) {
            return Err("a rate of 0 bit/s sends nothing".into());
        }
        if self.zerocopy && self.proto != Proto::Tcp {
            return Err("zero-copy applies to TCP only".into());
        }
        self.validate_knobs()
    }

    /// Checks the socket knobs (`window`, `congestion`, `mss`): ranges, and a
    /// congestion control name that can only be a kernel module's name.
    fn validate_knobs(&self) -> Result<(), String> {
        if let Some(w) = self.window {
            if !(MIN_WINDOW..=MAX_WINDOW).contains(&w) {
                return Err(format!(
                    "socket buffer of {w} B out of range: {MIN_WINDOW}..={MAX_WINDOW} bytes"
                ));
            }
        }
        if let Some(b) = self.bytes {
            if self.proto != Proto::Tcp || self.test != TestKind::Throughput {
                return Err("a fixed transfer applies to TCP throughput only".into());
            }
            if b == 0 {
                return Err("a fixed transfer of 0 bytes moves nothing".into());
            }
        }
        if let Some(m) = self.mss {
            if self.proto != Proto::Tcp {
                return Err("an MSS applies to TCP only".into());
            }
            if !(MIN_MSS..=MAX_MSS).contains(&m) {
                return Err(format!("MSS {m} out of range: {MIN_MSS}..={MAX_MSS} bytes"));
            }
        }
        if let Some(c) = &self.congestion {
            if self.proto != Proto::Tcp {
                return Err("a congestion control applies to TCP only".into());
            }
            let name_ok = !c.is_empty()
                && c.len() <= MAX_CONGESTION_NAME
                && c.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
            if !name_ok {
                return Err(format!(
                    "'{}' is not a congestion control name: 1 to {MAX_CONGESTION_NAME} letters, digits, _ or -",
                    clean(c)
                ));
            }
        }
        Ok(())
    }
}

/// UDP receive statistics of one stream.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UdpRecv {
    /// Data datagrams received.
    pub received: u64,
    /// Datagrams that arrived with a sequence number below one already seen.
    pub reordered: u64,
    /// Highest sequence number seen plus one (0 when none arrived).
    pub next_seq: u64,
    /// Interarrival jitter (RFC 3550 §6.4.1), seconds.
    pub(crate) jitter_s: f64,
}

/// One stream's counts at one end.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StreamStats {
    /// Stream index (bidir: client-sent streams first).
    pub(crate) id: u32,
    /// Payload bytes this end sent on the stream.
    pub sent_bytes: u64,
    /// Messages (writes or datagrams) this end sent.
    pub(crate) sent_msgs: u64,
    /// Payload bytes this end received.
    pub recv_bytes: u64,
    /// Messages received (datagrams; for TCP ping-pong, whole messages).
    pub(crate) recv_msgs: u64,
    /// UDP receive statistics, when this end received datagrams.
    pub udp: Option<UdpRecv>,
    /// CPU time of the stream's thread, seconds.
    pub(crate) cpu_s: f64,
}

/// One end's view of a finished test.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EndReport {
    /// Per stream.
    pub streams: Vec<StreamStats>,
    /// Payload bytes received per timed interval, with the interval's length in seconds.
    pub(crate) recv_intervals: Vec<(f64, u64)>,
    /// Payload bytes sent per timed interval, with the interval's length in seconds.
    pub(crate) sent_intervals: Vec<(f64, u64)>,
    /// Wall time from Start to the last stream's end, seconds.
    pub(crate) wall_s: f64,
    /// CPU time of all stream threads, seconds.
    pub(crate) cpu_s: f64,
}

impl EndReport {
    /// Rejects counts that cannot come from an honest peer (negative or non-finite
    /// times, more intervals or streams than asked for).
    pub(crate) fn validate(&self, spec: &TestSpec) -> Result<(), String> {
        let okf = |x: f64| x.is_finite() && x >= 0.0;
        if self.streams.len() > spec.connections() {
            return Err("peer reported more streams than the test has".into());
        }
        if self.recv_intervals.len() > spec.intervals as usize
            || self.sent_intervals.len() > spec.intervals as usize
        {
            return Err("peer reported more intervals than the test has".into());
        }
        let times_ok = okf(self.wall_s)
            && okf(self.cpu_s)
            && self
                .streams
                .iter()
                .all(|s| okf(s.cpu_s) && s.udp.as_ref().is_none_or(|u| okf(u.jitter_s)))
            && self
                .recv_intervals
                .iter()
                .chain(&self.sent_intervals)
                .all(|(t, _)| okf(*t) && *t > 0.0);
        if !times_ok {
            return Err("peer reported an impossible time".into());
        }
        // Each interval is a sampler's sleep from one boundary to the next: never far
        // shorter than the interval asked for (a later boundary can follow a late one
        // by less, hence the 1/20), nor longer than the whole test and a minute. A 1 ns
        // interval made 1.355e18 B/s from a hostile server (#33 item 10).
        let iv = spec.interval_ms as f64 / 1e3;
        // A fixed transfer (`bytes`) is one interval of any length up to the cap: never
        // shorter than its bytes at 10 TB/s, beyond any link.
        let lo = match spec.bytes {
            Some(b) => (b as f64 / 1e13).max(1e-6),
            None => iv / 20.0,
        };
        let hi = spec.total().as_secs_f64() + 60.0;
        for (t, _) in self.recv_intervals.iter().chain(&self.sent_intervals) {
            if *t < lo || *t > hi {
                return Err(format!(
                    "peer reported an interval of {t:.3e} s for intervals of {iv} s (accepted: {lo:.3e} to {hi:.0} s)"
                ));
            }
        }
        // The intervals count bytes the streams counted: never more than their totals.
        let total = |f: fn(&StreamStats) -> u64| {
            self.streams
                .iter()
                .fold(0u64, |a, s| a.saturating_add(f(s)))
        };
        let in_intervals = |v: &[(f64, u64)]| v.iter().fold(0u64, |a, (_, b)| a.saturating_add(*b));
        for (what, iv_bytes, streams) in [
            (
                "received",
                in_intervals(&self.recv_intervals),
                total(|s| s.recv_bytes),
            ),
            (
                "sent",
                in_intervals(&self.sent_intervals),
                total(|s| s.sent_bytes),
            ),
        ] {
            if iv_bytes > streams {
                return Err(format!(
                    "peer reported {iv_bytes} B {what} in its intervals but {streams} B {what} by its streams"
                ));
            }
        }
        Ok(())
    }
}

/// Sent counts of one stream, announced when an end has finished sending.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SentCount {
    /// Stream index.
    pub id: u32,
    /// Messages (datagrams) sent.
    pub msgs: u64,
    /// Payload bytes sent.
    pub bytes: u64,
}

/// Every control message. Variants without data are written `Name {}` so that
/// `deny_unknown_fields` applies to them too (serde ignores extra fields on unit
/// variants of internally tagged enums).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Msg {
    /// S→C first: protocol version, a fresh nonce, whether a token is required.
    Greeting {
        /// Server's protocol version.
        version: u32,
        /// Hex of [`NONCE_LEN`] random bytes.
        nonce: String,
        /// Whether the server requires a token.
        auth: bool,
    },
    /// C→S: version, the client's nonce and its proof of the token.
    Hello {
        /// Client's protocol version.
        version: u32,
        /// Hex of [`NONCE_LEN`] random bytes.
        nonce: String,
        /// Hex HMAC-SHA256, when the client has a token.
        proof: Option<String>,
    },
    /// S→C: the server's proof and its HostInfo (kept as an opaque document).
    Welcome {
        /// Hex HMAC-SHA256, when the server has a token.
        proof: Option<String>,
        /// The server's HostInfo as JSON; stored in the report, never interpreted.
        host: serde_json::Value,
    },
    /// C→S: the test to run.
    Test {
        /// What to run.
        spec: TestSpec,
    },
    /// S→C: data ports are open; streams must present `cookie`.
    Ready {
        /// Hex of the session cookie.
        cookie: String,
        /// TCP: one listening port. UDP: one port per connection.
        ports: Vec<u16>,
    },
    /// S→C: every data stream is attached and its receiver exists.
    Attached {},
    /// C→S: go.
    Start {},
    /// S→C: the server's streams are released (since protocol 2). A client whose
    /// streams send starts them only now, so the server's receivers are running
    /// before the first byte is counted against a timed interval (issue #32 item 1).
    Started {},
    /// Either way: this end has stopped sending; its counts (for UDP loss).
    SenderDone {
        /// Per stream.
        sent: Vec<SentCount>,
    },
    /// S→C: the server's view of the test.
    Results {
        /// Counts, intervals, CPU time.
        report: EndReport,
    },
    /// C→S: no more tests on this connection.
    Bye {},
    /// Either way: the conversation ends; one line saying why.
    Error {
        /// Human-readable reason.
        message: String,
    },
}

/// Protocol failures, each one clear line.
#[derive(Debug, thiserror::Error)]
pub enum ProtoError {
    /// I/O on the control connection.
    #[error("{what}: {source}")]
    Io {
        /// The phase.
        what: String,
        /// Underlying error.
        source: std::io::Error,
    },
    /// The phase's deadline passed.
    #[error("{0}: the peer went silent (timed out)")]
    Timeout(String),
    /// The peer closed the connection.
    #[error("{0}: the peer closed the connection")]
    Closed(String),
    /// Not a peakbench peer, or a broken one.
    #[error("{0}")]
    Bad(String),
    /// The peer sent `Error`.
    #[error("peer says: {0}")]
    Peer(String),
}

/// Decodes one frame body. Never panics; rejects anything but one well-formed message.
pub fn decode(body: &[u8]) -> Result<Msg, ProtoError> {
    serde_json::from_slice::<Msg>(body).map_err(|e| {
        ProtoError::Bad(format!(
            "malformed control message ({})",
            clean(&e.to_string())
        ))
    })
}

/// Encodes a message as one frame (length prefix + JSON; [`crate::util::frame`]).
pub fn encode(msg: &Msg) -> Vec<u8> {
    // Serialising these plain types cannot fail: no maps with non-string keys, no
    // non-finite floats (EndReport fields are validated finite before use).
    let body = serde_json::to_vec(msg).unwrap_or_else(|_| b"{\"type\":\"bye\"}".to_vec());
    // A control message is far below 4 GiB; the fallback is never taken.
    frame::encode(&body).unwrap_or_default()
}

/// Parses a frame header; the error says why the length is unacceptable.
pub fn frame_len(header: [u8; 4]) -> Result<usize, ProtoError> {
    frame::frame_len(header, MAX_FRAME, "control").map_err(|e| ProtoError::Bad(e.to_string()))
}

/// A control connection with phase deadlines.
pub struct Control<S> {
    stream: S,
}

pub use crate::util::frame::Timed;

/// The challenge–response both TCP protocols share (`serve`'s control connection here,
/// the cluster's coordinator connections in `cluster::auth`): one HMAC in `util`.
pub use crate::util::proof::{hex, prove, unhex, Side, NONCE_LEN};
pub(crate) use crate::util::proof::{random_bytes, verify};

/// Whether the peer of `s` has closed or reset the connection. Pending data is left
/// in place (peeked, not read), so an early message is still read by its reader.
pub(crate) fn peer_closed(s: &std::net::TcpStream) -> bool {
    use std::os::fd::AsRawFd;
    let mut b = [0u8; 1];
    // SAFETY: a valid socket and a one-byte buffer; MSG_DONTWAIT never blocks.
    let r = unsafe {
        libc::recv(
            s.as_raw_fd(),
            b.as_mut_ptr() as *mut libc::c_void,
            1,
            libc::MSG_PEEK | libc::MSG_DONTWAIT,
        )
    };
    if r == 0 {
        return true;
    }
    if r > 0 {
        return false;
    }
    let e = std::io::Error::last_os_error();
    !matches!(
        e.kind(),
        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::Interrupted
    )
}

impl<S: Timed> Control<S> {
    /// Wraps a connected stream.
    pub fn new(stream: S) -> Control<S> {
        Control { stream }
    }

    /// The underlying stream.
    pub(crate) fn get_ref(&self) -> &S {
        &self.stream
    }

    /// Whether a message (or the end) is waiting, within `t`.
    pub(crate) fn readable(&self, t: Duration) -> bool {
        self.stream.readable(t)
    }

    /// Sends one message.
    pub(crate) fn send(&mut self, msg: &Msg, what: &str) -> Result<(), ProtoError> {
        self.stream
            .write_all(&encode(msg))
            .and_then(|_| self.stream.flush())
            .map_err(|e| io_err(what, e))
    }

    /// Receives one message within `timeout` (for the whole frame). An `Error` message
    /// from the peer becomes [`ProtoError::Peer`].
    pub fn recv(&mut self, timeout: Duration, what: &str) -> Result<Msg, ProtoError> {
        let deadline = Instant::now() + timeout;
        let body =
            frame::read(&mut self.stream, MAX_FRAME, deadline, "control").map_err(|e| match e {
                FrameError::Timeout => ProtoError::Timeout(what.into()),
                FrameError::Closed => ProtoError::Closed(what.into()),
                FrameError::Length(m) => ProtoError::Bad(format!("{what}: {m}")),
                FrameError::Io(source) => ProtoError::Io {
                    what: what.into(),
                    source,
                },
            })?;
        match decode(&body).map_err(|e| ProtoError::Bad(format!("{what}: {e}")))? {
            Msg::Error { message } => Err(ProtoError::Peer(clean(&message))),
            m => Ok(m),
        }
    }
}

fn io_err(what: &str, e: std::io::Error) -> ProtoError {
    match e.kind() {
        std::io::ErrorKind::UnexpectedEof
        | std::io::ErrorKind::ConnectionReset
        | std::io::ErrorKind::BrokenPipe => ProtoError::Closed(what.into()),
        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut => {
            ProtoError::Timeout(what.into())
        }
        _ => ProtoError::Io {
            what: what.into(),
            source: e,
        },
    }
}

/// Peer text made safe for a terminal and a log line: the one sanitiser
/// ([`crate::util::sanitize`]), capped at 200 characters.
pub(crate) fn clean(text: &str) -> String {
    crate::util::sanitize::line_max(text, 200)
}

/// The hello a data stream sends first: magic, cookie, stream index.
pub fn data_hello(cookie: &[u8], id: u32) -> [u8; DATA_HELLO_LEN] {
    let mut h = [0u8; DATA_HELLO_LEN];
    h[..8].copy_from_slice(DATA_MAGIC);
    h[8..8 + COOKIE_LEN].copy_from_slice(&cookie[..COOKIE_LEN.min(cookie.len())]);
    h[8 + COOKIE_LEN..].copy_from_slice(&id.to_be_bytes());
    h
}

/// The stream index in a data hello, if it carries `magic` and the right cookie.
pub(crate) fn parse_data_hello(buf: &[u8], magic: &[u8; 8], cookie: &[u8]) -> Option<u32> {
    if buf.len() != DATA_HELLO_LEN || &buf[..8] != magic {
        return None;
    }
    // Constant-time compare of the cookie.
    let diff = buf[8..8 + COOKIE_LEN]
        .iter()
        .zip(cookie)
        .fold(0u8, |acc, (a, b)| acc | (a ^ b));
    if diff != 0 || cookie.len() != COOKIE_LEN {
        return None;
    }
    let mut id = [0u8; 4];
    id.copy_from_slice(&buf[8 + COOKIE_LEN..]);
    Some(u32::from_be_bytes(id))
}

#[cfg(test)]
#[path = "proto_tests.rs"]
mod tests;
