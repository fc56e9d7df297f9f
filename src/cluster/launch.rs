//! A rank's place in a cluster launch ([`Launch`]), below both `mod.rs` (which reads it
//! from the `PEAKBENCH_*` environment and runs it) and `mpi.rs` (which fills it from MPI).

use super::auth;
use std::net::{IpAddr, SocketAddr, TcpListener};
use std::sync::Arc;
use std::time::Duration;

/// This rank's place in a cluster launch.
#[derive(Debug, Clone)]
pub(crate) struct Launch {
    /// Its rank.
    pub(crate) rank: usize,
    /// Ranks in all.
    pub(crate) size: usize,
    /// Rank 0's coordinator address.
    pub(crate) coord: SocketAddr,
    /// The host name results are tagged with.
    pub(crate) host: String,
    /// The address this rank serves matrix links on.
    pub(crate) bind: IpAddr,
    /// Bound of the barrier.
    pub(crate) join: Duration,
    /// Bound of each host's suite.
    pub(crate) suite: Duration,
    /// The run's secret, proven on every coordinator connection.
    pub(crate) secret: auth::Secret,
    /// Rank 0's listener, bound before the address was shared (MPI launch).
    pub(super) listener: Option<Arc<TcpListener>>,
}
