//! The test workload and run configuration the runner's and `--until-stable`'s unit
//! tests share (compiled for tests only).

use super::runner::{RunConfig, Workload};
use std::time::Duration;

/// Counts to `iters` (kept from being optimised away); one unit of work per iteration.
pub(crate) struct Count;

impl Workload for Count {
    fn run(&mut self, iters: u64) -> f64 {
        let mut x = 0u64;
        for i in 0..iters {
            x = std::hint::black_box(x.wrapping_add(i));
        }
        std::hint::black_box(x);
        iters as f64
    }
}

/// 3 samples of at least 5 ms on `threads` unpinned threads.
pub(crate) fn cfg(threads: usize) -> RunConfig {
    RunConfig {
        repeat: 3,
        min_time: Duration::from_millis(5),
        threads,
        cpus: vec![],
        stable: None,
    }
}
