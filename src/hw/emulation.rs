//! Whether this process's CPU is emulated (user-mode emulation: qemu-user), asked the
//! same way on every architecture: `arm.rs` answers on aarch64 (the kernel or
//! /proc/cpuinfo is not Arm), `x86id.rs` on x86-64 (CPUID against /proc/cpuinfo). An
//! emulated CPU's timings are the emulator's: no clock is measured, no efficiency
//! claimed, peaks are given per cycle. A leaf of `hw`, so the clock and the probe ask it
//! without importing `hw/mod.rs`.

/// Why this process's CPU is emulated, or `None` on a real machine or a system VM.
pub(crate) fn emulated() -> Option<String> {
    super::arm::emulated().or_else(super::x86id::emulated)
}
