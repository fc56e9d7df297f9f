//! A kernel at work: whether it can run on this host ([`unavailable`]) and the runner's
//! per-thread workload that runs it ([`KernelWork`]; `run_once` for the tests that
//! compare its lanes with the scalar reference). Below the resource (`mod.rs`), the
//! quick suite's choice (`select.rs`) and the table's tests (`kernels.rs`).

use super::kernel::{Isa, Kernel, Operands, OUT_BYTES};
use crate::hw::HostInfo;
use crate::measure::runner::Workload;

/// Why a kernel cannot run here, or `None` when it can.
pub(crate) fn unavailable(k: &Kernel, host: &HostInfo) -> Option<String> {
    if !k.supported_by(&host.cpu.features) {
        let missing: Vec<&str> = k
            .requires
            .iter()
            .copied()
            .filter(|r| !host.cpu.has(r))
            .collect();
        return Some(format!("CPU lacks {}", missing.join(", ")));
    }
    if k.isa == Isa::Amx {
        if let Err(e) = super::amx::request_permission() {
            return Some(e);
        }
    }
    None
}

/// The per-thread workload: runs the kernel and counts operations.
pub(crate) struct KernelWork {
    kernel: &'static Kernel,
    operands: Box<Operands>,
    out: Vec<u8>,
}

impl KernelWork {
    /// Kernel `k` with its operands and an output buffer of [`OUT_BYTES`].
    pub(crate) fn new(k: &'static Kernel) -> KernelWork {
        KernelWork {
            kernel: k,
            operands: k.operands(),
            out: vec![0u8; OUT_BYTES],
        }
    }
}

impl Workload for KernelWork {
    fn run(&mut self, iters: u64) -> f64 {
        if iters == 0 {
            return 0.0;
        }
        // SAFETY: availability (CPU features, AMX permission) was checked before the case
        // was planned; `out` holds OUT_BYTES ≥ the kernel's out_bytes.
        unsafe { (self.kernel.run)(iters, &self.operands, self.out.as_mut_ptr()) };
        std::hint::black_box(&self.out);
        (iters * self.kernel.ops_per_iter()) as f64
    }
}

/// Runs a kernel once for `iters` iterations and returns every accumulator lane.
/// Used by the tests to compare with the scalar reference.
#[cfg(test)]
pub(crate) fn run_once(k: &'static Kernel, iters: u64) -> Vec<f64> {
    let mut w = KernelWork::new(k);
    w.run(iters);
    k.lanes(&w.out)
}
