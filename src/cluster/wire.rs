//! The cluster's own messages between each rank and the coordinator (rank 0), framed
//! like `serve`'s control protocol ([`crate::util::frame`]: a 4-byte big-endian length,
//! then JSON), over one TCP connection per rank. Every read and write has a deadline,
//! so a rank that dies (its socket closes) or hangs (the deadline passes) is an error
//! naming it, never a hang.
//!
//! Every byte before the handshake is hostile: until a peer has proven the run's
//! secret, a frame is at most [`MAX_PREAUTH`] bytes (so nobody can make rank 0 allocate
//! more than that), and after it each connection has a budget of [`PEER_BUDGET`] bytes
//! in all, frames at most [`MAX_FRAME`]. Messages are strictly typed
//! (`deny_unknown_fields`). Bytes alone do not bound memory (a 64 MiB frame of tiny
//! arrays once took 3.4 GiB decoded, #33): every authenticated frame's JSON values are
//! counted as the results reader counts them ([`crate::report::load::count_values`])
//! before it is decoded, against a [`Budget`] that rank 0 shares among all its ranks
//! (so everything gathered stays within what `peakbench report` reads back).
//!
//! Conversation (coordinator C, rank R):
//! ```text
//! C→R Challenge{version, nonce}             R checks the version
//! R→C Join{version, rank, nonce, proof}     C checks version, rank and proof
//! C→R Welcome{proof}                        R checks C's proof (a fake coordinator fails)
//! R→C Hello{host, info}                     (authenticated from here on)
//! C→R Go{runner} | Refused{reason}          the barrier's release
//! ...  Results | Serve{link}/Serving{addr}/Measure{addr, link}/Pair/Stop/Stopped ...
//! C→R Bye
//! ```
//! The proofs are `serve`'s HMAC-SHA256 over both fresh nonces (and the rank), with the
//! cluster's own domain labels ([`crate::util::proof::Side`]): a recorded
//! handshake replayed later meets a new nonce and fails. A matrix link's `serve` token
//! is never sent: both ends derive it from the run's secret and the coordinator's
//! fresh `link` nonce ([`super::auth::link_token`]), so the measuring rank talks only
//! to a server that proves the run's secret.

use crate::hw::HostInfo;
use crate::report::model::BenchResult;
use crate::util::frame::{self, FrameError, Timed};
use serde::{Deserialize, Serialize};
use std::net::TcpStream;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Protocol version; bumped whenever a message changes. A mismatch is refused.
/// 2: the link token is derived, not sent (`Serve{link}`, `Serving{addr}`).
pub const VERSION: u32 = 2;
/// Largest frame before the peer proved the secret (a `Join` is about 250 bytes).
pub const MAX_PREAUTH: usize = 4 * 1024;
/// Largest frame after the handshake (a host's gathered suite is a few MiB).
pub(crate) const MAX_FRAME: usize = 64 << 20;
/// Most bytes one authenticated connection may send over the whole run.
pub(crate) const PEER_BUDGET: u64 = 256 << 20;
/// Most JSON values (counted like the results reader: an object counts
/// [`crate::report::load::OBJECT_WEIGHT`]) all the ranks of a run together may send
/// rank 0 after their handshakes: the reader's own cap on one file.
pub(crate) const GATHER_VALUES: u64 = crate::report::load::MAX_VALUES as u64;
/// Most bytes of frames all the ranks of a run together may send rank 0 after their
/// handshakes: the reader's cap on one file, halved (the gathered file is written
/// pretty-printed, which adds indentation).
pub(crate) const GATHER_BYTES: u64 = crate::report::load::MAX_BYTES / 2;

/// What all the authenticated connections of one side may still send it, shared by
/// them: JSON values and bytes ([`GATHER_VALUES`], [`GATHER_BYTES`]).
#[derive(Debug, Clone)]
pub(crate) struct Budget {
    values: Arc<AtomicU64>,
    bytes: Arc<AtomicU64>,
}

impl Default for Budget {
    fn default() -> Budget {
        Budget::new(GATHER_VALUES, GATHER_BYTES)
    }
}

impl Budget {
    /// A budget of `values` JSON values and `bytes` bytes.
    pub(crate) fn new(values: u64, bytes: u64) -> Budget {
        Budget {
            values: Arc::new(AtomicU64::new(values)),
            bytes: Arc::new(AtomicU64::new(bytes)),
        }
    }

    /// Takes `values` and `bytes` from the budget, or says what is left and takes
    /// nothing.
    fn take(&self, values: u64, bytes: u64) -> Result<(), String> {
        let take = |a: &AtomicU64, n: u64| {
            a.fetch_update(Ordering::AcqRel, Ordering::Acquire, |v| v.checked_sub(n))
        };
        if let Err(left) = take(&self.values, values) {
            return Err(format!(
                "a frame of {values} JSON values, over the {left} left of rank 0's budget of {GATHER_VALUES} for the whole run (the results reader's cap)"
            ));
        }
        if let Err(left) = take(&self.bytes, bytes) {
            self.values.fetch_add(values, Ordering::AcqRel);
            return Err(format!(
                "a frame of {bytes} bytes, over the {left} left of rank 0's budget of {GATHER_BYTES} bytes for the whole run"
            ));
        }
        Ok(())
    }
}

/// A message of the cluster protocol.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "msg", rename_all = "snake_case", deny_unknown_fields)]
pub enum Msg {
    /// Coordinator → rank, first: the protocol version and a fresh nonce (hex).
    Challenge {
        /// The coordinator's protocol version.
        version: u32,
        /// Hex of [`crate::util::proof::NONCE_LEN`] random bytes.
        nonce: String,
    },
    /// Rank → coordinator: its rank, its nonce and its proof of the run's secret.
    Join {
        /// The rank's protocol version.
        version: u32,
        /// Its rank.
        rank: usize,
        /// Hex of [`crate::util::proof::NONCE_LEN`] random bytes.
        nonce: String,
        /// Hex HMAC-SHA256 over both nonces and the rank.
        proof: String,
    },
    /// Coordinator → rank: its own proof of the secret.
    Welcome {
        /// Hex HMAC-SHA256 over both nonces and the rank.
        proof: String,
    },
    /// Either way: refused; one line saying why (the connection ends).
    Refused {
        /// Why.
        reason: String,
    },
    /// Rank → coordinator: who and where it is.
    Hello {
        /// Its host name (or `PEAKBENCH_HOST_ID`).
        host: String,
        /// Its hardware.
        info: Box<HostInfo>,
    },
    /// Coordinator → rank: everyone has joined (the barrier); whether this rank runs
    /// its host's work.
    Go {
        /// The first rank of its host.
        runner: bool,
    },
    /// Rank → coordinator: the results of its host's suite (empty for a rank that is
    /// not its host's runner).
    Results {
        /// The results, tagged with the host.
        results: Vec<BenchResult>,
    },
    /// Coordinator → rank: serve one link of the matrix, with the token derived from
    /// the run's secret and `link`.
    Serve {
        /// Hex of a fresh random nonce naming the link.
        link: String,
    },
    /// Rank → coordinator: serving at `addr` (relayed only when it is on the address
    /// the rank connected from).
    Serving {
        /// `ip:port`.
        addr: String,
    },
    /// Coordinator → rank: measure the link to the server at `addr`, whose token is
    /// derived from the run's secret and `link`.
    Measure {
        /// `ip:port`.
        addr: String,
        /// Hex of the link's nonce (the one its server was given).
        link: String,
        /// This host.
        from: String,
        /// The serving host.
        to: String,
    },
    /// Rank → coordinator: the results of one link.
    Pair {
        /// Throughput and latency of the link.
        results: Vec<BenchResult>,
    },
    /// Coordinator → rank: stop serving.
    Stop {},
    /// Rank → coordinator: stopped.
    Stopped {},
    /// Coordinator → rank: the run is over.
    Bye {},
}

impl Msg {
    /// The message's name, for errors (never its content, which may be hostile).
    pub(crate) fn kind(&self) -> &'static str {
        match self {
            Msg::Challenge { .. } => "challenge",
            Msg::Join { .. } => "join",
            Msg::Welcome { .. } => "welcome",
            Msg::Refused { .. } => "refused",
            Msg::Hello { .. } => "hello",
            Msg::Go { .. } => "go",
            Msg::Results { .. } => "results",
            Msg::Serve { .. } => "serve",
            Msg::Serving { .. } => "serving",
            Msg::Measure { .. } => "measure",
            Msg::Pair { .. } => "pair",
            Msg::Stop {} => "stop",
            Msg::Stopped {} => "stopped",
            Msg::Bye {} => "bye",
        }
    }
}

/// Encodes one message as a frame body (JSON).
pub fn encode(m: &Msg) -> std::io::Result<Vec<u8>> {
    serde_json::to_vec(m).map_err(std::io::Error::other)
}

/// Decodes one frame body; never panics.
pub fn decode(body: &[u8]) -> std::io::Result<Msg> {
    serde_json::from_slice(body).map_err(|e| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!(
                "malformed cluster message ({})",
                crate::util::sanitize::line_max(&e.to_string(), 200)
            ),
        )
    })
}

/// Reads one message of at most `max` bytes before `deadline` from any timed stream
/// (the fuzz target drives this with arbitrary bytes).
pub fn read<S: Timed>(s: &mut S, max: usize, deadline: Instant) -> std::io::Result<Msg> {
    let body = frame::read(s, max, deadline, "cluster").map_err(io)?;
    decode(&body)
}

fn io(e: FrameError) -> std::io::Error {
    match e {
        FrameError::Timeout => std::io::ErrorKind::TimedOut.into(),
        FrameError::Closed => std::io::ErrorKind::UnexpectedEof.into(),
        FrameError::Length(m) => std::io::Error::new(std::io::ErrorKind::InvalidData, m),
        FrameError::Io(e) => e,
    }
}

/// One connection between a rank and the coordinator, with the bytes it may still
/// receive: [`MAX_PREAUTH`] per frame until [`Conn::authenticated`], then [`MAX_FRAME`]
/// per frame within [`PEER_BUDGET`] in all.
pub struct Conn {
    stream: TcpStream,
    max: usize,
    budget: u64,
    gather: Budget,
}

impl Conn {
    /// A new, unauthenticated connection.
    pub fn new(stream: TcpStream) -> Conn {
        let _ = stream.set_nodelay(true);
        Conn {
            stream,
            max: MAX_PREAUTH,
            budget: PEER_BUDGET,
            gather: Budget::default(),
        }
    }

    /// Draws this connection's authenticated frames from `b`, shared with others.
    pub(crate) fn share(&mut self, b: &Budget) {
        self.gather = b.clone();
    }

    /// The peer proved the secret: full-size frames from now on.
    pub(crate) fn authenticated(&mut self) {
        self.max = MAX_FRAME;
    }

    /// Sends `m` within `t`.
    pub fn send(&mut self, m: &Msg, t: Duration) -> std::io::Result<()> {
        let body = encode(m)?;
        self.stream
            .set_write_timeout(Some(t.max(Duration::from_millis(1))))?;
        frame::write(&mut self.stream, &body)
    }

    /// Receives one message within `t` (a closed peer is an error at once).
    pub fn recv(&mut self, t: Duration) -> std::io::Result<Msg> {
        let max = self
            .max
            .min(usize::try_from(self.budget).unwrap_or(usize::MAX));
        if max == 0 {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("sent more than its budget of {PEER_BUDGET} bytes"),
            ));
        }
        let body = frame::read(&mut self.stream, max, Instant::now() + t, "cluster").map_err(io)?;
        self.budget = self.budget.saturating_sub(4 + body.len() as u64);
        if self.max > MAX_PREAUTH {
            // Counted before anything is built from it: what the frame would cost.
            let values = crate::report::load::count_values(&body) as u64;
            self.gather
                .take(values, 4 + body.len() as u64)
                .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))?;
        }
        decode(&body)
    }
}

/// One line for an I/O error of the protocol on the coordinator's side (the peer is a
/// rank): a timeout says so.
pub(crate) fn why(e: &std::io::Error, t: Duration) -> String {
    why_from(e, t, "the rank closed the connection (it exited or died)")
}

/// The same on a rank's side (the peer is the coordinator).
pub(crate) fn why_coord(e: &std::io::Error, t: Duration) -> String {
    why_from(
        e,
        t,
        "the coordinator closed the connection (it exited, or turned the connection away)",
    )
}

fn why_from(e: &std::io::Error, t: Duration, closed: &str) -> String {
    match e.kind() {
        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut => {
            format!("no answer within {:.0} s", t.as_secs_f64())
        }
        std::io::ErrorKind::UnexpectedEof
        | std::io::ErrorKind::ConnectionReset
        | std::io::ErrorKind::ConnectionAborted
        | std::io::ErrorKind::BrokenPipe => closed.into(),
        _ => crate::util::sanitize::line_max(&e.to_string(), 200),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair() -> (Conn, Conn) {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let a = TcpStream::connect(l.local_addr().unwrap()).unwrap();
        let (b, _) = l.accept().unwrap();
        (Conn::new(a), Conn::new(b))
    }

    #[test]
    fn messages_round_trip_and_a_closed_peer_is_an_error() {
        let (mut a, mut b) = pair();
        let t = Duration::from_secs(5);
        a.send(&Msg::Go { runner: true }, t).unwrap();
        assert!(matches!(b.recv(t).unwrap(), Msg::Go { runner: true }));
        let silent = Duration::from_millis(50);
        let e = b.recv(silent).unwrap_err();
        assert!(why(&e, silent).starts_with("no answer"), "{e}");
        drop(a);
        let e = b.recv(t).unwrap_err();
        assert!(why(&e, t).contains("closed"), "{e}");
    }

    #[test]
    fn frames_beyond_the_preauth_cap_and_unknown_fields_are_refused() {
        let (mut a, mut b) = pair();
        let t = Duration::from_secs(5);
        let big = Msg::Refused {
            reason: "x".repeat(MAX_PREAUTH),
        };
        a.send(&big, t).unwrap();
        let e = b.recv(t).unwrap_err();
        assert!(e.to_string().contains("exceeds the 4096-byte cap"), "{e}");
        b.authenticated();
        let (mut a, mut b) = pair();
        b.authenticated();
        a.send(&big, t).unwrap();
        assert!(matches!(b.recv(t).unwrap(), Msg::Refused { .. }));
        let e = decode(br#"{"msg":"go","runner":true,"extra":1}"#).unwrap_err();
        assert!(e.to_string().contains("unknown field"), "{e}");
    }

    /// #33 item 4: a results frame of millions of tiny arrays in a free-form field is
    /// refused by its count of values before it is decoded, and the budget is shared by
    /// every rank's connection.
    #[test]
    fn an_authenticated_frame_is_counted_against_the_shared_budget_before_decoding() {
        let t = Duration::from_secs(10);
        let result = |ends: &str| {
            format!(
                r#"{{"resource":"null","workload":"x","params":{{}},"metric":"ops","unit":"OP/s","samples":[],"status":"ok","ends":{ends}}}"#
            )
        };
        let arrays = format!("[{}[]]", "[],".repeat(2_000_000));
        let body = format!(r#"{{"msg":"results","results":[{}]}}"#, result(&arrays));
        let (mut a, mut b) = pair();
        b.authenticated();
        a.stream.set_write_timeout(Some(t)).unwrap();
        let writer = std::thread::spawn(move || frame::write(&mut a.stream, body.as_bytes()));
        // Within the byte caps (6 MB), far over the budget of values: refused unread.
        b.share(&Budget::new(1_000_000, GATHER_BYTES));
        let e = b.recv(t).unwrap_err();
        assert!(e.to_string().contains("JSON values, over the"), "{e}");
        writer.join().unwrap().unwrap();
        // Two ranks share one budget: what the first took, the second cannot.
        let small = format!(r#"{{"msg":"results","results":[{}]}}"#, result("[1,2]"));
        let n = crate::report::load::count_values(small.as_bytes()) as u64;
        let shared = Budget::new(n + n / 2, GATHER_BYTES);
        let ((mut a1, mut b1), (mut a2, mut b2)) = (pair(), pair());
        for c in [&mut b1, &mut b2] {
            c.authenticated();
            c.share(&shared);
        }
        frame::write(&mut a1.stream, small.as_bytes()).unwrap();
        frame::write(&mut a2.stream, small.as_bytes()).unwrap();
        assert!(matches!(b1.recv(t).unwrap(), Msg::Results { .. }));
        let e = b2.recv(t).unwrap_err();
        assert!(e.to_string().contains("left of rank 0's budget"), "{e}");
    }
}
