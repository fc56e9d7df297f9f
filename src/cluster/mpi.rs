//! The MPI side of a cluster launch (cargo feature `mpi`): rank and size from MPI, and
//! rank 0's coordinator address and the run's fresh secret ([`super::auth`]) shared
//! with one broadcast (MPI's own channel between the processes it started). The broadcast is
//! non-blocking (`MPI_Ibcast`) and polled against the join deadline, so a rank that
//! never arrives makes the others give up with a clear error instead of hanging; after
//! it, MPI is only kept alive for the launcher, and all traffic is peakbench's own TCP.

use super::auth::{Secret, SECRET_LEN};
use super::launch::Launch;
use crate::util::usage::UsageError;
use mpi::traits::*;
use std::net::{IpAddr, SocketAddr, TcpListener};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

/// Size of the broadcast address buffer (`ip:port`, NUL-padded).
const ADDR_LEN: usize = 64;

/// MPI stays initialised until the rank's work is done; [`finish`] drops the `Universe`
/// (MPI_Finalize), which the launcher requires of every rank before it exits.
static UNIVERSE: OnceLock<std::sync::Mutex<Option<mpi::environment::Universe>>> = OnceLock::new();

/// Initialises MPI and shares rank 0's coordinator address.
pub(super) fn launch(
    host: String,
    bind: IpAddr,
    join: Duration,
    suite: Duration,
) -> Result<Launch, UsageError> {
    let universe = mpi::initialize()
        .ok_or_else(|| UsageError("MPI was already initialised in this process".into()))?;
    let world = universe.world();
    let rank = world.rank() as usize;
    let size = world.size() as usize;
    let mut listener = None;
    // The address, NUL-padded to ADDR_LEN, then the secret.
    let mut buf = [0u8; ADDR_LEN + SECRET_LEN];
    if rank == 0 {
        let secret = Secret::generate().map_err(|e| {
            UsageError(format!(
                "rank 0: no random source for the run's secret: {e}"
            ))
        })?;
        buf[ADDR_LEN..].copy_from_slice(secret.bytes());
        let l = TcpListener::bind(SocketAddr::new(bind, 0)).map_err(|e| {
            UsageError(format!(
                "rank 0 cannot listen on {bind} ({e}); set $PEAKBENCH_BIND"
            ))
        })?;
        let a = l
            .local_addr()
            .map_err(|e| UsageError(format!("rank 0: {e}")))?
            .to_string();
        buf[..a.len()].copy_from_slice(a.as_bytes());
        listener = Some(Arc::new(l));
    }
    let root = world.process_at_rank(0);
    let end = Instant::now() + join;
    let done = mpi::request::scope(|scope| {
        let mut req = root.immediate_broadcast_into(scope, &mut buf[..]);
        loop {
            match req.test() {
                Ok(_) => return true,
                Err(r) if Instant::now() >= end => {
                    // Leave the request pending: the process exits with an error.
                    std::mem::forget(r);
                    return false;
                }
                Err(r) => {
                    req = r;
                    std::thread::sleep(Duration::from_millis(5));
                }
            }
        }
    });
    if !done {
        return Err(UsageError(format!(
            "rank {rank}: rank 0's address did not arrive within {:.0} s (MPI broadcast)",
            join.as_secs_f64()
        )));
    }
    let secret = Secret::new(buf[ADDR_LEN..].to_vec())
        .ok_or_else(|| UsageError(format!("rank {rank}: no secret in rank 0's broadcast")))?;
    let text = std::str::from_utf8(&buf[..ADDR_LEN])
        .unwrap_or("")
        .trim_end_matches('\0')
        .to_string();
    let coord: SocketAddr = text
        .parse()
        .map_err(|_| UsageError(format!("rank {rank}: bad coordinator address '{text}'")))?;
    let _ = UNIVERSE
        .get_or_init(|| std::sync::Mutex::new(None))
        .lock()
        .map(|mut u| *u = Some(universe));
    Ok(Launch {
        rank,
        size,
        coord,
        host,
        bind,
        join,
        suite,
        secret,
        listener,
    })
}

/// Finalises MPI (drops the `Universe`), if it was initialised.
pub(super) fn finish() {
    if let Some(m) = UNIVERSE.get() {
        if let Ok(mut u) = m.lock() {
            drop(u.take());
        }
    }
}
