//! The run's secret and the handshake that proves it, both ways, on every coordinator
//! connection (see [`super::wire`] for the conversation). The secret comes from the
//! launch: under MPI rank 0 draws 32 random bytes and broadcasts them with its address;
//! a plain-environment launch gives every rank the same `$PEAKBENCH_TOKEN` (as
//! `peakbench serve` takes it) or `$PEAKBENCH_TOKEN_FILE`. It is never sent: each side
//! proves it with `serve`'s HMAC over both sides' fresh nonces and the rank.

use super::wire::{Conn, Msg, VERSION};
use crate::util::proof::{hex, prove, random_bytes, unhex, verify, Side, NONCE_LEN};
use crate::util::usage::UsageError;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// The run's shared secret (never printed).
#[derive(Clone)]
pub(crate) struct Secret(Vec<u8>);

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(..)")
    }
}

/// Bytes of a secret drawn by rank 0 under MPI.
#[cfg_attr(not(feature = "mpi"), allow(dead_code))]
pub(crate) const SECRET_LEN: usize = 32;

impl Secret {
    /// Wraps given bytes (1 to 1024 of them).
    pub(crate) fn new(bytes: Vec<u8>) -> Option<Secret> {
        (1..=1024).contains(&bytes.len()).then_some(Secret(bytes))
    }

    /// A fresh random secret, for rank 0 to share.
    #[cfg_attr(not(feature = "mpi"), allow(dead_code))]
    pub(crate) fn generate() -> std::io::Result<Secret> {
        random_bytes(SECRET_LEN).map(Secret)
    }

    /// The bytes, for the broadcast.
    #[cfg_attr(not(feature = "mpi"), allow(dead_code))]
    pub(crate) fn bytes(&self) -> &[u8] {
        &self.0
    }

    /// The secret of a plain-environment launch: `$PEAKBENCH_TOKEN`, else the first
    /// line of the file `$PEAKBENCH_TOKEN_FILE`.
    pub(crate) fn from_env() -> Result<Secret, UsageError> {
        let bad = || {
            UsageError(
                "$PEAKBENCH_TOKEN: a cluster secret is 1 to 1024 bytes; give every rank the same one".into(),
            )
        };
        if let Some(t) = std::env::var_os("PEAKBENCH_TOKEN").filter(|t| !t.is_empty()) {
            use std::os::unix::ffi::OsStrExt;
            return Secret::new(t.as_bytes().to_vec()).ok_or_else(bad);
        }
        if let Some(p) = std::env::var_os("PEAKBENCH_TOKEN_FILE").filter(|t| !t.is_empty()) {
            let p = std::path::PathBuf::from(p);
            let (text, open_to) = read_small(&p).map_err(|e| {
                UsageError(format!(
                    "$PEAKBENCH_TOKEN_FILE: cannot read {} ({e}); give a file holding the cluster secret on its first line",
                    p.display()
                ))
            })?;
            if let Some(mode) = open_to {
                // As ssh does for a private key, though only a warning: the secret is
                // still used (issue #33 item 15).
                eprintln!(
                    "peakbench: warning: $PEAKBENCH_TOKEN_FILE {} is open to other users (mode {mode:04o}): anyone who can read it can join this launch; chmod 600 it",
                    crate::util::sanitize::line(&p.display().to_string())
                );
            }
            let line = text.lines().next().unwrap_or("").trim_end();
            return Secret::new(line.as_bytes().to_vec()).ok_or_else(|| {
                UsageError(format!(
                    "$PEAKBENCH_TOKEN_FILE: {} does not start with a secret of 1 to 1024 bytes",
                    p.display()
                ))
            });
        }
        Err(UsageError(
            "a cluster launch needs a shared secret: set $PEAKBENCH_TOKEN (or $PEAKBENCH_TOKEN_FILE) to the same value on every rank (see docs/fleet.md)".into(),
        ))
    }
}

/// The first 4 KiB of a file, as text (a secret file is one short line), and its
/// permission bits when group or others have any access to it. Only a regular file is
/// read: a FIFO or device is refused at once, never waited on (issue #33 item 6).
fn read_small(p: &std::path::Path) -> std::io::Result<(String, Option<u32>)> {
    use std::io::Read;
    use std::os::unix::fs::PermissionsExt;
    let f = crate::util::regular::open(p)?;
    let mode = f.metadata()?.permissions().mode() & 0o7777;
    let mut buf = Vec::new();
    f.take(4096).read_to_end(&mut buf)?;
    let text = String::from_utf8(buf).map_err(|_| std::io::Error::other("not UTF-8 text"))?;
    Ok((text, (mode & 0o077 != 0).then_some(mode)))
}

/// The `serve` token of the matrix link named by `link` (a nonce the coordinator drew):
/// HMAC-SHA256 of the run's secret over a label of its own and the nonce. Both ends of
/// the link derive it, so it never travels, and a server that proves it holds the
/// run's secret (#33 item 11).
pub(crate) fn link_token(secret: &Secret, link: &[u8]) -> Vec<u8> {
    use hmac::{Hmac, Mac};
    let mut m = <Hmac<sha2::Sha256> as Mac>::new_from_slice(&secret.0)
        .expect("HMAC takes a key of any length");
    m.update(b"peakbench-cluster/2 link token");
    m.update(link);
    m.finalize().into_bytes().to_vec()
}

/// The rank, bound into both proofs: a proof for one rank is no proof for another.
fn tagged(nonce: &[u8], rank: usize) -> Vec<u8> {
    let mut v = nonce.to_vec();
    v.extend_from_slice(&(rank as u64).to_be_bytes());
    v
}

/// The coordinator's side: challenge, check the rank's proof, prove itself, read its
/// hello. `Ok((rank, host, info))` once the rank proved the secret; `Err` is one line
/// for the log (the peer was told why when it could be). `proven` is set as soon as the
/// peer's proof checks out (the coordinator never turns such a connection away).
pub(crate) fn accept(
    c: &mut Conn,
    secret: &Secret,
    size: usize,
    preauth: Duration,
    step: Duration,
    proven: &AtomicBool,
) -> Result<(usize, String, crate::hw::HostInfo), String> {
    let nonce = random_bytes(NONCE_LEN).map_err(|e| format!("no random source: {e}"))?;
    c.send(
        &Msg::Challenge {
            version: VERSION,
            nonce: hex(&nonce),
        },
        step,
    )
    .map_err(|e| super::wire::why(&e, step))?;
    let m = c.recv(preauth).map_err(|e| super::wire::why(&e, preauth))?;
    let Msg::Join {
        version,
        rank,
        nonce: rnonce,
        proof,
    } = m
    else {
        return Err(refuse(c, format!("expected join, got {}", m.kind())));
    };
    if version != VERSION {
        return Err(refuse(
            c,
            format!("protocol version mismatch: coordinator speaks {VERSION}, rank {version}; run the same peakbench on every rank"),
        ));
    }
    let Some(rnonce) = unhex(&rnonce, NONCE_LEN) else {
        return Err(refuse(c, "malformed nonce".into()));
    };
    let rtag = tagged(&rnonce, rank);
    if !verify(&secret.0, Side::Rank, &nonce, &rtag, &proof) {
        return Err(refuse(
            c,
            "authentication failed: wrong secret (every rank needs the same $PEAKBENCH_TOKEN)"
                .into(),
        ));
    }
    if rank >= size {
        return Err(refuse(
            c,
            format!("rank {rank} is not below the launch's size {size}"),
        ));
    }
    proven.store(true, Ordering::Release);
    c.authenticated();
    c.send(
        &Msg::Welcome {
            proof: prove(&secret.0, Side::Coordinator, &nonce, &rtag),
        },
        step,
    )
    .map_err(|e| format!("rank {rank}: {}", super::wire::why(&e, step)))?;
    match c.recv(step) {
        Ok(Msg::Hello { host, info }) => Ok((rank, host, *info)),
        Ok(m) => Err(refuse(
            c,
            format!("rank {rank}: expected hello, got {}", m.kind()),
        )),
        Err(e) => Err(format!("rank {rank}: {}", super::wire::why(&e, step))),
    }
}

/// Tells the peer why it is refused (best effort) and returns the reason.
fn refuse(c: &mut Conn, reason: String) -> String {
    let _ = c.send(
        &Msg::Refused {
            reason: reason.clone(),
        },
        Duration::from_secs(1),
    );
    reason
}

/// A rank's side: answer the challenge, check the coordinator's proof, say hello. Every
/// error is one line; nothing before the coordinator's proof is trusted (a `Refused`
/// may come from an impostor), so the caller retries on any of them.
pub(crate) fn join(
    c: &mut Conn,
    secret: &Secret,
    rank: usize,
    hello: &Msg,
    t: Duration,
) -> Result<(), String> {
    let what = |e: std::io::Error| super::wire::why_coord(&e, t);
    let (version, nonce) = match c.recv(t).map_err(what)? {
        Msg::Challenge { version, nonce } => (version, nonce),
        Msg::Refused { reason } => {
            return Err(format!(
                "the coordinator refused this rank (unauthenticated: it had not proven the secret yet): {}",
                crate::util::sanitize::line_max(&reason, 200)
            ))
        }
        m => {
            return Err(format!(
                "expected the coordinator's challenge, got {}",
                m.kind()
            ))
        }
    };
    if version != VERSION {
        return Err(format!(
            "protocol version mismatch: coordinator speaks {version}, this rank {VERSION}; run the same peakbench on every rank"
        ));
    }
    let nonce = unhex(&nonce, NONCE_LEN).ok_or("malformed nonce from the coordinator")?;
    let mine = random_bytes(NONCE_LEN).map_err(|e| format!("no random source: {e}"))?;
    let tag = tagged(&mine, rank);
    c.send(
        &Msg::Join {
            version: VERSION,
            rank,
            nonce: hex(&mine),
            proof: prove(&secret.0, Side::Rank, &nonce, &tag),
        },
        t,
    )
    .map_err(what)?;
    match c.recv(t).map_err(what)? {
        Msg::Welcome { proof } if verify(&secret.0, Side::Coordinator, &nonce, &tag, &proof) => {}
        Msg::Welcome { .. } => {
            return Err("the coordinator did not prove the secret (wrong $PEAKBENCH_TOKEN, or not our coordinator)".into())
        }
        Msg::Refused { reason } => {
            return Err(format!(
                "the coordinator refused this rank (unauthenticated: it had not proven the secret yet): {}",
                crate::util::sanitize::line_max(&reason, 200)
            ))
        }
        m => return Err(format!("expected welcome, got {}", m.kind())),
    }
    c.authenticated();
    c.send(hello, t).map_err(what)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue #33 items 6 and 15: a secret file is read only when regular, never waited
    /// on, and its mode is reported when others may read it.
    #[test]
    fn issue_33_a_secret_file_must_be_regular_and_its_mode_is_checked() {
        use std::os::unix::fs::PermissionsExt;
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("token");
        std::fs::write(&f, "s3cret\n").unwrap();
        std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o600)).unwrap();
        assert_eq!(read_small(&f).unwrap(), ("s3cret\n".to_string(), None));
        std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o644)).unwrap();
        assert_eq!(read_small(&f).unwrap().1, Some(0o644));
        std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o640)).unwrap();
        assert_eq!(read_small(&f).unwrap().1, Some(0o640));
        let fifo = d.path().join("fifo");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid C string.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let e = read_small(&fifo).unwrap_err().to_string();
        assert!(e.contains("named pipe (FIFO)"), "{e}");
    }

    fn pair() -> (Conn, Conn) {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let a = std::net::TcpStream::connect(l.local_addr().unwrap()).unwrap();
        let (b, _) = l.accept().unwrap();
        (Conn::new(a), Conn::new(b))
    }

    fn hello() -> Msg {
        Msg::Hello {
            host: "h1".into(),
            info: Box::new(crate::hw::HostInfo::detect(false)),
        }
    }

    fn handshake(
        rank_secret: &[u8],
        coord_secret: &[u8],
        rank: usize,
    ) -> (Result<(), String>, Result<usize, String>) {
        let (mut r, mut c) = pair();
        let rs = Secret::new(rank_secret.to_vec()).unwrap();
        let t = Duration::from_secs(5);
        let h = std::thread::spawn(move || join(&mut r, &rs, rank, &hello(), t));
        let cs = Secret::new(coord_secret.to_vec()).unwrap();
        let proven = AtomicBool::new(false);
        let got = accept(&mut c, &cs, 3, t, t, &proven).map(|(r, _, _)| r);
        assert_eq!(proven.load(Ordering::Acquire), got.is_ok());
        drop(c);
        (h.join().unwrap(), got)
    }

    #[test]
    fn both_sides_prove_the_secret() {
        let (r, c) = handshake(b"s3cret", b"s3cret", 2);
        assert_eq!((r, c), (Ok(()), Ok(2)));
        let (r, c) = handshake(b"guess", b"s3cret", 1);
        assert!(c.unwrap_err().contains("wrong secret"));
        assert!(r
            .unwrap_err()
            .contains("refused this rank (unauthenticated: it had not proven the secret yet): authentication failed"));
        let (_, c) = handshake(b"s3cret", b"s3cret", 3);
        assert!(c.unwrap_err().contains("not below"));
    }

    #[test]
    fn a_secret_is_one_to_1024_bytes_and_never_printed() {
        assert!(Secret::new(Vec::new()).is_none());
        assert!(Secret::new(vec![b'x'; 1025]).is_none());
        assert_eq!(format!("{:?}", Secret::generate().unwrap()), "Secret(..)");
    }
}
