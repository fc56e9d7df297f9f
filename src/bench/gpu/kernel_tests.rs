//! Kernel checks on the first adapter (lavapipe in CI), across the folder's files:
//! compute kernels against the CPU, memory kernels and transfers, timestamps. They
//! print why and pass when the machine has no adapter. In a file of their own so that
//! device.rs, which the kernels' files use, imports none of them.
use super::compute::{prepare, Kernel};
use super::device::{Gpu, WORKGROUP};
use super::memory;
use super::options::MemKernel;
use crate::hw::gpu_table::GpuPrecision;
use std::time::Duration;

fn open() -> Option<Gpu> {
    let det = crate::hw::gpu::detect();
    if det.adapters.is_empty() {
        eprintln!("skipped: no GPU adapter (CI installs mesa-vulkan-drivers)");
        return None;
    }
    Some(Gpu::open(&det.adapters[0]).expect("the detected adapter opens"))
}

#[test]
fn compute_kernels_match_the_cpu() {
    let Some(gpu) = open() else { return };
    for p in GpuPrecision::ALL {
        if gpu.info.supports(p).is_err() {
            eprintln!("{}: not offered by {}", p.name(), gpu.info.name);
            continue;
        }
        // prepare() reads back every invocation's result and compares it.
        let k = prepare(&gpu, Kernel::of(p), Duration::from_millis(5))
            .unwrap_or_else(|e| panic!("{}: {e}", p.name()));
        assert!(k.iters >= 1 && k.groups >= 1);
        let per = Kernel::of(p).ops_per_invocation(k.iters);
        assert_eq!(k.ops(), (k.groups * WORKGROUP) as f64 * per);
    }
}

#[test]
fn a_wrong_result_is_caught() {
    let k = Kernel::of(GpuPrecision::Int32);
    let want = k.expected(0, 3) as u32;
    let mut bytes: Vec<u8> = (0..8u32)
        .flat_map(|s| (k.expected(s, 3) as u32).to_le_bytes())
        .collect();
    assert!(k.verify(&bytes, 8, 3).is_ok());
    bytes[0..4].copy_from_slice(&want.wrapping_add(1).to_le_bytes());
    let e = k.verify(&bytes, 8, 3).unwrap_err();
    assert!(e.contains("invocation 0"), "{e}");
}

#[test]
fn memory_kernels_and_transfers_move_checked_data() {
    let Some(gpu) = open() else { return };
    for k in MemKernel::ALL {
        let budget = memory::Budget {
            target: Duration::from_millis(2),
            min_time: Duration::from_millis(2),
            repeat: 2,
        };
        let m =
            memory::run(&gpu, k, 4 << 20, budget).unwrap_or_else(|e| panic!("{}: {e}", k.name()));
        assert_eq!(m.samples.len(), 2);
        assert!(m.samples.iter().all(|&x| x > 0.0 && x.is_finite()));
        assert_eq!(m.percentiles.is_some(), k == MemKernel::Dispatch);
    }
}

#[test]
fn timestamps_cover_the_work() {
    let Some(gpu) = open() else { return };
    let t = gpu.time(|_| {}).unwrap();
    assert!(t.host_s > 0.0);
    if let Some(g) = t.gpu_s {
        assert!(g <= t.host_s * 1.5 + 1e-3);
    }
}
