//! The cluster's own messages between each rank and the coordinator (rank 0): JSON
//! bodies behind a 4-byte big-endian length, over one TCP connection per rank. Every
//! read and write has a deadline, so a rank that dies (its socket closes) or hangs
//! (the deadline passes) is an error naming it, never a hang.

use crate::hw::HostInfo;
use crate::report::model::BenchResult;
use serde::{Deserialize, Serialize};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

/// Largest message accepted (a gathered suite is a few MiB).
const MAX_BODY: usize = 256 << 20;

/// A message of the cluster protocol.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "msg", rename_all = "snake_case")]
pub(crate) enum Msg {
    /// Rank → coordinator: who and where it is.
    Hello {
        /// Its rank.
        rank: usize,
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

/// Sends `m` within `t`.
pub(crate) fn send(s: &mut TcpStream, m: &Msg, t: Duration) -> std::io::Result<()> {
    let body = serde_json::to_vec(m)?;
    s.set_write_timeout(Some(t.max(Duration::from_millis(1))))?;
    let len = u32::try_from(body.len())
        .map_err(|_| std::io::Error::other("message too large"))?
        .to_be_bytes();
    s.write_all(&len)?;
    s.write_all(&body)?;
    s.flush()
}

/// Receives one message within `t` (a closed peer is an error at once).
pub(crate) fn recv(s: &mut TcpStream, t: Duration) -> std::io::Result<Msg> {
    s.set_read_timeout(Some(t.max(Duration::from_millis(1))))?;
    let mut len = [0u8; 4];
    s.read_exact(&mut len)?;
    let n = u32::from_be_bytes(len) as usize;
    if n > MAX_BODY {
        return Err(std::io::Error::other(format!(
            "message of {n} bytes refused"
        )));
    }
    let mut body = vec![0u8; n];
    s.read_exact(&mut body)?;
    serde_json::from_slice(&body).map_err(|e| std::io::Error::other(format!("bad message: {e}")))
}

/// One line for an I/O error of the protocol: a timeout says so.
pub(crate) fn why(e: &std::io::Error, t: Duration) -> String {
    match e.kind() {
        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut => {
            format!("no answer within {:.0} s", t.as_secs_f64())
        }
        std::io::ErrorKind::UnexpectedEof => "connection closed (the rank exited or died)".into(),
        _ => e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_round_trip_and_a_closed_peer_is_an_error() {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let mut a = TcpStream::connect(l.local_addr().unwrap()).unwrap();
        let (mut b, _) = l.accept().unwrap();
        let t = Duration::from_secs(5);
        send(&mut a, &Msg::Go { runner: true }, t).unwrap();
        assert!(matches!(recv(&mut b, t).unwrap(), Msg::Go { runner: true }));
        let silent = Duration::from_millis(50);
        let e = recv(&mut b, silent).unwrap_err();
        assert!(why(&e, silent).starts_with("no answer"), "{e}");
        drop(a);
        let e = recv(&mut b, t).unwrap_err();
        assert!(why(&e, t).contains("closed"), "{e}");
    }
}
