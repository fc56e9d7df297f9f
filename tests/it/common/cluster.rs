//! Attacks on a cluster's coordinator, shared by `tests/it/cluster.rs` (loopback)
//! and `tests/it/cluster_netns.rs` (namespaces): a peer that skips the handshake, a guessed
//! proof, a replayed proof and an oversized pre-auth frame. Each must be refused.
#![allow(dead_code)]

use peakbench::bench::net::proto::{hex, prove, unhex, Side, NONCE_LEN};
use peakbench::cluster::wire::{Conn, Msg};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

/// Deadline of one step of an attack.
pub const STEP: Duration = Duration::from_secs(10);

/// Connects to the coordinator, retrying while rank 0 starts.
pub fn reach(coord: &str) -> TcpStream {
    let end = Instant::now() + Duration::from_secs(30);
    loop {
        match TcpStream::connect(coord) {
            Ok(s) => return s,
            Err(e) if Instant::now() > end => panic!("rank 0 never listened on {coord}: {e}"),
            Err(_) => std::thread::sleep(Duration::from_millis(50)),
        }
    }
}

/// The coordinator's challenge nonce, read from a new connection.
pub fn challenge(c: &mut Conn) -> Vec<u8> {
    match c.recv(STEP).unwrap() {
        Msg::Challenge { version, nonce } => {
            assert_eq!(version, peakbench::cluster::wire::VERSION);
            unhex(&nonce, NONCE_LEN).unwrap()
        }
        m => panic!("expected a challenge, got {m:?}"),
    }
}

/// A join for `rank` answering the challenge `nonce` with a proof made from `secret`.
pub fn join_msg(secret: &str, nonce: &[u8], rank: usize) -> Msg {
    let mine = [7u8; NONCE_LEN];
    let mut tag = mine.to_vec();
    tag.extend_from_slice(&(rank as u64).to_be_bytes());
    Msg::Join {
        version: peakbench::cluster::wire::VERSION,
        rank,
        nonce: hex(&mine),
        proof: prove(secret.as_bytes(), Side::Rank, nonce, &tag),
    }
}

/// The reason of the coordinator's refusal.
pub fn refusal(c: &mut Conn) -> String {
    match c.recv(STEP) {
        Ok(Msg::Refused { reason }) => reason,
        other => panic!("expected a refusal, got {other:?}"),
    }
}

/// The four attacks on the coordinator at `coord` whose launch shares `secret`; each
/// is refused, and none takes rank 1's place. Rank 0 logs 5 refused connections: the
/// four, and the one the replayed proof was recorded on (closed without an answer).
pub fn all(coord: &str, secret: &str) {
    // No handshake: straight to results, as the script of issue #24 did.
    let mut c = Conn::new(reach(coord));
    let _ = challenge(&mut c);
    c.send(&Msg::Results { results: vec![] }, STEP).unwrap();
    assert!(refusal(&mut c).contains("expected join, got results"));
    // A proof made without the secret.
    let mut c = Conn::new(reach(coord));
    let n = challenge(&mut c);
    c.send(&join_msg("guessed", &n, 1), STEP).unwrap();
    assert!(refusal(&mut c).contains("wrong secret"));
    // A proof made with the real secret for an earlier challenge, replayed.
    let mut first = Conn::new(reach(coord));
    let recorded = join_msg(secret, &challenge(&mut first), 1);
    drop(first);
    let mut c = Conn::new(reach(coord));
    let _ = challenge(&mut c);
    c.send(&recorded, STEP).unwrap();
    assert!(refusal(&mut c).contains("wrong secret"));
    // A 1 MiB frame announced before authenticating: the connection is closed without
    // the coordinator reading (or allocating) it.
    let mut s = reach(coord);
    s.write_all(&(1u32 << 20).to_be_bytes()).unwrap();
    let _ = s.write_all(&[b'{'; 1000]);
    s.set_read_timeout(Some(STEP)).unwrap();
    let mut sink = Vec::new();
    if let Err(e) = s.read_to_end(&mut sink) {
        assert_eq!(e.kind(), std::io::ErrorKind::ConnectionReset, "{e}");
    }
}
