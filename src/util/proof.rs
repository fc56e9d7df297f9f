//! The proof of a shared secret that both TCP protocols use (`serve`'s control
//! connection, `bench::net::proto`; the cluster's coordinator connections,
//! `cluster::auth`): fresh nonces from the OS, hex on the wire, and an HMAC-SHA256 over
//! both sides' nonces under a label per side, so neither the token nor a replayable
//! answer is ever sent.

use hmac::{Hmac, Mac};
use sha2::Sha256;
use std::io::Read;

/// Bytes of a handshake nonce.
pub const NONCE_LEN: usize = 32;

/// `n` bytes from the OS random source (/dev/urandom). Nonces and cookies must be
/// unpredictable, so there is no weak fallback: without it the session fails.
pub(crate) fn random_bytes(n: usize) -> std::io::Result<Vec<u8>> {
    let mut v = vec![0u8; n];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut v)?;
    Ok(v)
}

/// Lower-case hex.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Parses lower- or upper-case hex of exactly `len` bytes.
pub fn unhex(text: &str, len: usize) -> Option<Vec<u8>> {
    if text.len() != 2 * len || !text.is_ascii() {
        return None;
    }
    (0..len)
        .map(|i| u8::from_str_radix(&text[2 * i..2 * i + 2], 16).ok())
        .collect()
}

/// Which side a proof comes from (domain separation, so a client proof cannot be
/// replayed as a server proof, nor a proof of one protocol in the other: the cluster's
/// coordinator handshake (`cluster::wire`) uses the same HMAC with its own two
/// labels).
#[derive(Debug, Clone, Copy)]
pub enum Side {
    /// The client proves itself.
    Client,
    /// The server proves itself.
    Server,
    /// A cluster rank proves itself to the coordinator.
    Rank,
    /// The cluster's coordinator proves itself to a rank.
    Coordinator,
}

fn mac(token: &[u8], side: Side, server_nonce: &[u8], client_nonce: &[u8]) -> Hmac<Sha256> {
    // HMAC accepts keys of any length; `new_from_slice` cannot fail for it.
    let mut m = <Hmac<Sha256> as Mac>::new_from_slice(token)
        .unwrap_or_else(|_| <Hmac<Sha256> as Mac>::new_from_slice(&[0u8]).expect("1-byte key"));
    m.update(match side {
        Side::Client => b"peakbench-net/1 client",
        Side::Server => b"peakbench-net/1 server",
        Side::Rank => b"peakbench-cluster/1 rank",
        Side::Coordinator => b"peakbench-cluster/1 coordinator",
    });
    m.update(server_nonce);
    m.update(client_nonce);
    m
}

/// Hex HMAC-SHA256 proving knowledge of `token` for this pair of nonces.
pub fn prove(token: &[u8], side: Side, server_nonce: &[u8], client_nonce: &[u8]) -> String {
    hex(&mac(token, side, server_nonce, client_nonce)
        .finalize()
        .into_bytes())
}

/// Checks a proof in constant time.
pub(crate) fn verify(
    token: &[u8],
    side: Side,
    server_nonce: &[u8],
    client_nonce: &[u8],
    proof: &str,
) -> bool {
    match unhex(proof, 32) {
        Some(p) => mac(token, side, server_nonce, client_nonce)
            .verify_slice(&p)
            .is_ok(),
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hmac_mutual_and_domain_separated() {
        let (sn, cn) = ([1u8; 32], [2u8; 32]);
        let p = prove(b"secret", Side::Client, &sn, &cn);
        assert!(verify(b"secret", Side::Client, &sn, &cn, &p));
        assert!(!verify(b"wrong", Side::Client, &sn, &cn, &p));
        // A client proof is not a server proof, and nonces bind it to one session.
        assert!(!verify(b"secret", Side::Server, &sn, &cn, &p));
        assert!(!verify(b"secret", Side::Client, &[9u8; 32], &cn, &p));
        assert!(!verify(b"secret", Side::Client, &sn, &cn, "zz"));
        assert!(!verify(b"secret", Side::Client, &sn, &cn, &"é".repeat(32)));
        // Nor is a proof of one protocol one of the other.
        let r = prove(b"secret", Side::Rank, &sn, &cn);
        assert!(verify(b"secret", Side::Rank, &sn, &cn, &r));
        assert!(!verify(b"secret", Side::Coordinator, &sn, &cn, &r));
        assert!(!verify(b"secret", Side::Client, &sn, &cn, &r));
    }

    #[test]
    fn hex_round_trips_and_checks_its_length() {
        let b = random_bytes(NONCE_LEN).unwrap();
        assert_eq!(b.len(), NONCE_LEN);
        let h = hex(&b);
        assert_eq!(h.len(), 2 * NONCE_LEN);
        assert_eq!(unhex(&h, NONCE_LEN), Some(b.clone()));
        assert_eq!(unhex(&h.to_uppercase(), NONCE_LEN), Some(b));
        assert_eq!(unhex(&h, NONCE_LEN - 1), None);
        assert_eq!(unhex("zz", 1), None);
        assert_eq!(unhex("é", 1), None);
        assert_eq!(hex(&[0, 15, 255]), "000fff");
    }
}
