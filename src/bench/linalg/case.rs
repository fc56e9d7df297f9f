//! One linalg case, [`LinalgCase`]: what it runs (routine, precision, order, threads,
//! library). How it runs (`Case`, the measurement) is in `mod.rs`; the quick suite's
//! row (`quick.rs`) holds one per library found.

use super::backend::Backend;
use super::options::Routine;
use crate::bench::cpu::kernels::Precision;
use std::sync::Arc;

/// One case: a routine at one precision, order and thread count.
pub(crate) struct LinalgCase {
    /// GEMM, LU or the roofline.
    pub(crate) routine: Routine,
    /// fp64 or fp32 (bf16 and fp16 are skipped with the reason).
    pub(crate) precision: Precision,
    /// Matrix order.
    pub(crate) n: usize,
    /// Worker threads.
    pub(crate) threads: usize,
    /// `--weak`: GEMM on every thread at once, each with its own n×n matrices.
    pub(crate) weak: bool,
    /// The library that runs it (`--blas`).
    pub(crate) backend: Backend,
    /// With `--blas auto`: what auto picked and left out ([`super::backend::auto_summary`]).
    pub(crate) auto: Option<Arc<str>>,
}
