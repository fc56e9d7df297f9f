//! What the cases of one disk run share: the [`RunPlan`] (`mod.rs`'s `prepare` builds
//! it, every check that can refuse the run done first; the cases of `case.rs` hold it).

use super::data::Gens;
use super::engine::IoEngine;
use super::options::Validated;
use super::workspace::Workspace;
use crate::hw::disk::DiskInfo;
use std::sync::Mutex;
use std::time::Duration;

/// Everything the cases of one run share.
pub(crate) struct RunPlan {
    /// Validated options.
    pub(crate) opts: Validated,
    /// Where the files live.
    pub(crate) ws: Workspace,
    /// The engine that runs.
    pub(crate) engine: &'static dyn IoEngine,
    /// How the engine was chosen (auto), for the notes.
    pub(crate) engine_note: Option<String>,
    /// The device backing the target.
    pub(crate) device: Option<DiskInfo>,
    /// Data seed of the run.
    pub(crate) seed: u64,
    /// Unmeasured lead-in per case.
    pub(crate) ramp: Duration,
    /// Measured window length.
    pub(crate) window: Duration,
    /// Windows per case (the samples).
    pub(crate) windows: usize,
    /// Per-file generations (`--verify`), and the generation counter.
    pub(crate) verify: Option<Mutex<(Vec<Gens>, u16)>>,
    /// The verify unit: gcd of the block sizes.
    pub(crate) unit: u64,
    /// Stop after this many I/Os per job (tests only).
    pub(crate) io_limit: Option<u64>,
}
