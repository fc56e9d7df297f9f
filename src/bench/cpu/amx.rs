//! AMX tile kernels (Sapphire Rapids and later) and the Linux permission they need.
//!
//! Linux (5.16+) keeps the 8 KiB tile-data state off by default; a process must ask
//! with `arch_prctl(ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA)` before its first tile
//! instruction, or that instruction faults. The request is made once per process; a
//! refusal turns the AMX rows into `skipped` with the errno.
//!
//! The kernel configures eight 16 × 64-byte tiles (palette 1), loads A into tmm4–5 and
//! B into tmm6–7, and runs four independent tile multiplies per iteration into tmm0–3
//! (C\[i\]\[j\] += A\[i\] · B\[j\]), so the TMUL unit always has the next multiply ready.
//! Per instruction: M = 16 rows × N = 16 fp32/int32 columns × K = 32 bf16 (or 64 int8)
//! multiply-adds, i.e. 16 384 FLOP for tdpbf16ps and 32 768 OP for tdpbssd.

#[cfg(target_arch = "x86_64")]
use super::kernel::Operands;
#[cfg(target_arch = "x86_64")]
use crate::hw::asm::{amx_loop_body, tile_config};

/// Linux's AMX tile-data permission lives with the CPU detection (`hw::cpu`), below
/// both the kernels and the execution probe.
pub(crate) use crate::hw::cpu::request_amx_permission as request_permission;

#[cfg(target_arch = "x86_64")]
macro_rules! amx_kernel {
    ($name:ident, $op:literal) => {
        /// Runs `iters` × 4 tile multiplies; `p.tiles` holds A0, A1, B0, B1 (two A tiles
        /// then two B tiles, 1 KiB each); `out` gets the four 1 KiB accumulator tiles.
        pub(super) unsafe fn $name(iters: u64, p: &Operands, out: *mut u8) {
            let cfg = tile_config();
            let t = p.tiles.as_ptr();
            std::arch::asm!(
                "ldtilecfg [{cfg}]",
                "tilezero tmm0",
                "tilezero tmm1",
                "tilezero tmm2",
                "tilezero tmm3",
                "tileloadd tmm4, [{t} + {s}*1]",
                "add {t}, 1024",
                "tileloadd tmm5, [{t} + {s}*1]",
                "add {t}, 1024",
                "tileloadd tmm6, [{t} + {s}*1]",
                "add {t}, 1024",
                "tileloadd tmm7, [{t} + {s}*1]",
                amx_loop_body!($op, "{n}"),
                "tilestored [{o} + {s}*1], tmm0",
                "add {o}, 1024",
                "tilestored [{o} + {s}*1], tmm1",
                "add {o}, 1024",
                "tilestored [{o} + {s}*1], tmm2",
                "add {o}, 1024",
                "tilestored [{o} + {s}*1], tmm3",
                "tilerelease",
                cfg = in(reg) cfg.as_ptr(),
                t = inout(reg) t => _,
                s = in(reg) 64usize,
                n = inout(reg) iters => _,
                o = inout(reg) out => _,
                options(nostack),
            );
        }
    };
}

#[cfg(target_arch = "x86_64")]
amx_kernel!(tdp_bf16_amx, "tdpbf16ps");
#[cfg(target_arch = "x86_64")]
amx_kernel!(tdp_i8_amx, "tdpbssd");
