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
//! (`deny_unknown_fields`).
//!
//! Conversation (coordinator C, rank R):
//! ```text
//! C→R Challenge{version, nonce}             R checks the version
//! R→C Join{version, rank, nonce, proof}     C checks version, rank and proof
//! C→R Welcome{proof}                        R checks C's proof (a fake coordinator fails)
//! R→C Hello{host, info}                     (authenticated from here on)
//! C→R Go{runner} | Refused{reason}          the barrier's release
//! ...  Results | Serve/Serving/Measure/Pair/Stop/Stopped ...
//! C→R Bye
//! ```
//! The proofs are `serve`'s HMAC-SHA256 over both fresh nonces (and the rank), with the
//! cluster's own domain labels ([`crate::bench::net::proto::Side`]): a recorded
//! handshake replayed later meets a new nonce and fails.

use crate::hw::HostInfo;
use crate::report::model::BenchResult;
use crate::util::frame::{self, FrameError, Timed};
use serde::{Deserialize, Serialize};
use std::net::TcpStream;
use std::time::{Duration, Instant};

/// Protocol version; bumped whenever a message changes. A mismatch is refused.
pub const VERSION: u32 = 1;
/// Largest frame before the peer proved the secret (a `Join` is about 250 bytes).
pub const MAX_PREAUTH: usize = 4 * 1024;
/// Largest frame after the handshake (a host's gathered suite is a few MiB).
pub(crate) const MAX_FRAME: usize = 64 << 20;
/// Most bytes one authenticated connection may send over the whole run.
pub(crate) const PEER_BUDGET: u64 = 256 << 20;

/// A message of the cluster protocol.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "msg", rename_all = "snake_case", deny_unknown_fields)]
pub enum Msg {
    /// Coordinator → rank, first: the protocol version and a fresh nonce (hex).
    Challenge {
        /// The coordinator's protocol version.
        version: u32,
        /// Hex of [`crate::bench::net::proto::NONCE_LEN`] random bytes.
        nonce: String,
    },
    /// Rank → coordinator: its rank, its nonce and its proof of the run's secret.
    Join {
        /// The rank's protocol version.
        version: u32,
        /// Its rank.
        rank: usize,
        /// Hex of [`crate::bench::net::proto::NONCE_LEN`] random bytes.
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
    /// Coordinator → rank: serve one link of the matrix.
    Serve {},
    /// Rank → coordinator: serving at `addr` with `token` (hex).
    Serving {
        /// `ip:port`.
        addr: String,
        /// The server's token.
        token: String,
    },
    /// Coordinator → rank: measure the link to the server at `addr`.
    Measure {
        /// `ip:port`.
        addr: String,
        /// The server's token.
        token: String,
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
            Msg::Serve {} => "serve",
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
}

impl Conn {
    /// A new, unauthenticated connection.
    pub fn new(stream: TcpStream) -> Conn {
        let _ = stream.set_nodelay(true);
        Conn {
            stream,
            max: MAX_PREAUTH,
            budget: PEER_BUDGET,
        }
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
        decode(&body)
    }
}

/// One line for an I/O error of the protocol: a timeout says so.
pub(crate) fn why(e: &std::io::Error, t: Duration) -> String {
    match e.kind() {
        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut => {
            format!("no answer within {:.0} s", t.as_secs_f64())
        }
        std::io::ErrorKind::UnexpectedEof => "connection closed (the rank exited or died)".into(),
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
}
