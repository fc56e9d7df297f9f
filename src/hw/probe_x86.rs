//! x86-64 loops of the execution-resource probe (`probe.rs`), in inline assembly.
//!
//! Each probe loop runs one instruction class on enough independent accumulators to
//! cover latency × the most units any known core has (FMA 4–5 cycles × 2–3, vpmulld
//! 10 × 1, vpmullq 15 × ⅔, dot products 5 × 2), so its rate is bound by the number of
//! units, never by a dependency. All registers start at zero: zero operands keep every
//! value finite and normal (no denormal assists), and no x86 core times FP or integer
//! arithmetic by value otherwise. The loops store nothing; `clobber_abi("C")` tells
//! the compiler every vector (and tile) register is overwritten.
//!
//! The clock chains are those of `hw::clock` (192 dependent `add reg, reg`, one per
//! cycle) with one FMA of the probed width after every add, on 8 accumulators: the
//! core then runs in the frequency licence that dense vector code of that width gets
//! (as the 512-bit FMA kernels' chain in `bench::cpu::x86` does), while the adds count
//! its cycles. One FMA per cycle is at most the rate of one FMA unit, so the FMAs never
//! hold the adds back.
//!
//! As in `bench::cpu::x86`, the assembler accepts instructions the enabled target
//! features do not name (AVX-VNNI, AVX512-FP16/BF16, AMX): callers check the CPU first.

use super::asm::{amx_loop_body, f16c_loop_body, irp12, irp24, tile_config};
use super::probe_class::Test;
use super::uarch::Width;

/// A probe loop: runs `loops` iterations.
pub(super) type LoopFn = unsafe fn(u64);

/// One probe loop: `$setup` zeroes the registers, `$body` is one iteration.
macro_rules! probe_loop {
    ($name:ident, $features:literal, [$($setup:expr),+], [$($body:expr),+], $tail:expr) => {
        #[target_feature(enable = $features)]
        unsafe fn $name(loops: u64) {
            std::arch::asm!(
                $($setup,)+
                ".p2align 5",
                "2:",
                $($body,)+
                "dec rcx",
                "jnz 2b",
                $tail,
                inout("rcx") loops => _,
                clobber_abi("C"),
                options(nomem, nostack),
            );
        }
    };
}

/// A loop over 12 xmm/ymm accumulators (0–11), operands in registers 14 and 15.
/// The body runs twice per iteration (24 instructions).
macro_rules! vex_loop {
    ($name:ident, $features:literal, $reg:literal, $instr:literal) => {
        probe_loop!(
            $name,
            $features,
            [
                ".irp r,0,1,2,3,4,5,6,7,8,9,10,11,14,15",
                concat!("vpxor ", $reg, "\\r, ", $reg, "\\r, ", $reg, "\\r"),
                ".endr"
            ],
            [".rept 2", irp12!(), $instr, ".endr", ".endr"],
            "vzeroupper"
        );
    };
}

/// Zeroes zmm0–31 (the probe's 512-bit loops use 0–24 and 30–31).
macro_rules! zmm_setup {
    () => {
        ".irp r,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31\nvpxord zmm\\r, zmm\\r, zmm\\r\n.endr"
    };
}

/// Leaves the vector state clean (vzeroupper leaves zmm16–31 alone).
macro_rules! zmm_tail {
    () => {
        ".irp r,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31\nvpxord xmm\\r, xmm\\r, xmm\\r\n.endr\nvzeroupper"
    };
}

/// A loop over 24 zmm accumulators (0–23), operands zmm30 and zmm31: 24 instructions.
macro_rules! zmm_loop {
    ($name:ident, $features:literal, $instr:literal) => {
        probe_loop!(
            $name,
            $features,
            [zmm_setup!()],
            [irp24!(), $instr, ".endr"],
            zmm_tail!()
        );
    };
}

// FMA: acc += a × b.
vex_loop!(
    fma_xmm,
    "avx,fma",
    "xmm",
    "vfmadd231pd xmm\\r, xmm14, xmm15"
);
vex_loop!(
    fma_ymm,
    "avx,fma",
    "ymm",
    "vfmadd231pd ymm\\r, ymm14, ymm15"
);
zmm_loop!(fma_zmm, "avx512f", "vfmadd231pd zmm\\r, zmm30, zmm31");
// The same 24 FMAs with 24 independent shuffles, which only port 5 runs on Intel cores
// (where the second 512-bit FMA unit also sits).
probe_loop!(
    fma_zmm_shuffle,
    "avx512f",
    [zmm_setup!()],
    [
        irp24!(),
        "vfmadd231pd zmm\\r, zmm30, zmm31",
        "vshufps zmm24, zmm30, zmm31, 0",
        ".endr"
    ],
    zmm_tail!()
);

// Mul+add: independent multiplies and adds, so the rate is bound by the mul and add
// pipes, not by a mul→add dependency: 7 + 7 accumulators (multiplies in 0–5 and 8, adds
// in 10–15 and 9, operands in 6 and 7) for xmm/ymm, 10 + 10 for zmm (multiplies in
// 0–9, adds in 10–19, operands 30 and 31). How close a core comes to its mul and add
// pipes' sum depends on the order (Zen 3 reads 3.1–3.9 of 4 by order and run), so two
// orders are timed, two multiplies then two adds and blocks of seven, and the faster
// counts.
probe_loop!(
    muladd_xmm,
    "sse2",
    [
        ".irp r,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15",
        "pxor xmm\\r, xmm\\r",
        ".endr"
    ],
    [
        ".rept 2",
        "mulpd xmm0, xmm6",
        "mulpd xmm1, xmm6",
        "addpd xmm10, xmm7",
        "addpd xmm11, xmm7",
        "mulpd xmm2, xmm6",
        "mulpd xmm3, xmm6",
        "addpd xmm12, xmm7",
        "addpd xmm13, xmm7",
        "mulpd xmm4, xmm6",
        "mulpd xmm5, xmm6",
        "addpd xmm14, xmm7",
        "addpd xmm15, xmm7",
        "mulpd xmm8, xmm6",
        "addpd xmm9, xmm7",
        ".endr"
    ],
    ""
);
probe_loop!(
    muladd_ymm,
    "avx",
    [
        ".irp r,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15",
        "vpxor ymm\\r, ymm\\r, ymm\\r",
        ".endr"
    ],
    [
        ".rept 2",
        "vmulpd ymm0, ymm0, ymm6",
        "vmulpd ymm1, ymm1, ymm6",
        "vaddpd ymm10, ymm10, ymm7",
        "vaddpd ymm11, ymm11, ymm7",
        "vmulpd ymm2, ymm2, ymm6",
        "vmulpd ymm3, ymm3, ymm6",
        "vaddpd ymm12, ymm12, ymm7",
        "vaddpd ymm13, ymm13, ymm7",
        "vmulpd ymm4, ymm4, ymm6",
        "vmulpd ymm5, ymm5, ymm6",
        "vaddpd ymm14, ymm14, ymm7",
        "vaddpd ymm15, ymm15, ymm7",
        "vmulpd ymm8, ymm8, ymm6",
        "vaddpd ymm9, ymm9, ymm7",
        ".endr"
    ],
    "vzeroupper"
);
probe_loop!(
    muladd_zmm,
    "avx512f",
    [zmm_setup!()],
    [
        ".rept 2",
        ".irp r,0,1,2,3,4,5,6,7,8,9",
        "vmulpd zmm\\r, zmm\\r, zmm30",
        "vaddpd zmm1\\r, zmm1\\r, zmm31",
        ".endr",
        ".endr"
    ],
    zmm_tail!()
);

probe_loop!(
    muladd_xmm_blocked,
    "sse2",
    [
        ".irp r,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15",
        "pxor xmm\\r, xmm\\r",
        ".endr"
    ],
    [
        ".rept 2",
        ".irp r,0,1,2,3,4,5,8",
        "mulpd xmm\\r, xmm6",
        ".endr",
        ".irp r,10,11,12,13,14,15,9",
        "addpd xmm\\r, xmm7",
        ".endr",
        ".endr"
    ],
    ""
);
probe_loop!(
    muladd_ymm_blocked,
    "avx",
    [
        ".irp r,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15",
        "vpxor ymm\\r, ymm\\r, ymm\\r",
        ".endr"
    ],
    [
        ".rept 2",
        ".irp r,0,1,2,3,4,5,8",
        "vmulpd ymm\\r, ymm\\r, ymm6",
        ".endr",
        ".irp r,10,11,12,13,14,15,9",
        "vaddpd ymm\\r, ymm\\r, ymm7",
        ".endr",
        ".endr"
    ],
    "vzeroupper"
);
probe_loop!(
    muladd_zmm_blocked,
    "avx512f",
    [zmm_setup!()],
    [
        irp12!(),
        "vmulpd zmm\\r, zmm\\r, zmm30",
        ".endr",
        ".irp r,12,13,14,15,16,17,18,19,20,21,22,23",
        "vaddpd zmm\\r, zmm\\r, zmm31",
        ".endr"
    ],
    zmm_tail!()
);

// F16C: 12 fp16 accumulators, each widened, one fp32 FMA, rounded back, in the
// software-pipelined order of the kernel `fma_f16_f16c` (`hw::asm::f16c_loop_body`; its
// chain of 12-18 cycles spread over 12 accumulators: the conversions' ports bound it).
// Zeros stay zeros, so the steps carried over the back edge need no start or finish.
probe_loop!(
    f16c_ymm,
    "avx,fma,f16c",
    [
        ".irp r,0,1,2,3,4,5,6,7,8,9,10,11,14,15",
        "vpxor ymm\\r, ymm\\r, ymm\\r",
        ".endr"
    ],
    [".rept 2", f16c_loop_body!(), ".endr"],
    "vzeroupper"
);

// Integer multiplies: acc *= a.
vex_loop!(vpmulld_xmm, "avx", "xmm", "vpmulld xmm\\r, xmm\\r, xmm14");
vex_loop!(
    vpmulld_ymm,
    "avx,avx2",
    "ymm",
    "vpmulld ymm\\r, ymm\\r, ymm14"
);
zmm_loop!(vpmulld_zmm, "avx512f", "vpmulld zmm\\r, zmm\\r, zmm30");
zmm_loop!(
    vpmullq_zmm,
    "avx512f,avx512dq",
    "vpmullq zmm\\r, zmm\\r, zmm30"
);

// Dot products. vpmaddwd does not accumulate: each result is independent.
vex_loop!(vpmaddwd_xmm, "avx", "xmm", "vpmaddwd xmm\\r, xmm14, xmm15");
vex_loop!(
    vpmaddwd_ymm,
    "avx,avx2",
    "ymm",
    "vpmaddwd ymm\\r, ymm14, ymm15"
);
zmm_loop!(
    vpmaddwd_zmm,
    "avx512f,avx512bw",
    "vpmaddwd zmm\\r, zmm30, zmm31"
);
vex_loop!(
    vpdpbusd_ymm,
    "avx,avx2",
    "ymm",
    "{{vex}} vpdpbusd ymm\\r, ymm14, ymm15"
);
vex_loop!(
    vpdpwssd_ymm,
    "avx,avx2",
    "ymm",
    "{{vex}} vpdpwssd ymm\\r, ymm14, ymm15"
);
zmm_loop!(vpdpbusd_zmm, "avx512f", "vpdpbusd zmm\\r, zmm30, zmm31");
zmm_loop!(vpdpwssd_zmm, "avx512f", "vpdpwssd zmm\\r, zmm30, zmm31");
zmm_loop!(vdpbf16ps_zmm, "avx512f", "vdpbf16ps zmm\\r, zmm30, zmm31");
zmm_loop!(fma_ph_zmm, "avx512f", "vfmadd231ph zmm\\r, zmm30, zmm31");

/// AMX loop: zeroed tiles, four independent tile multiplies per iteration (C0–C3 from
/// A in tmm4–5 and B in tmm6–7), as the AMX kernels do. The caller must hold the
/// Linux tile-data permission (`hw::cpu::request_amx_permission`).
macro_rules! amx_loop {
    ($name:ident, $op:literal) => {
        unsafe fn $name(loops: u64) {
            let cfg = tile_config();
            std::arch::asm!(
                "ldtilecfg [{cfg}]",
                ".irp r,0,1,2,3,4,5,6,7",
                "tilezero tmm\\r",
                ".endr",
                amx_loop_body!($op, "rcx"),
                "tilerelease",
                cfg = in(reg) cfg.as_ptr(),
                inout("rcx") loops => _,
                clobber_abi("C"),
                options(readonly, nostack),
            );
        }
    };
}
amx_loop!(tdpbf16ps_tile, "tdpbf16ps");
amx_loop!(tdpbssd_tile, "tdpbssd");

/// A second loop for the same test in another instruction order, where the order
/// matters (mul+add); the faster of the two counts.
pub(super) fn alternative_for(test: Test) -> Option<(LoopFn, u64)> {
    match test {
        Test::MulAdd(Width::V512) => Some((muladd_zmm_blocked as LoopFn, 24)),
        Test::MulAdd(Width::V256) => Some((muladd_ymm_blocked, 28)),
        Test::MulAdd(_) => Some((muladd_xmm_blocked, 28)),
        _ => None,
    }
}

/// The loop of a test and the counted instructions one iteration retires.
pub(super) fn loop_for(test: Test) -> (LoopFn, u64) {
    use Width::*;
    match test {
        Test::Fma(V512) => (fma_zmm as LoopFn, 24),
        Test::Fma(V256) => (fma_ymm, 24),
        Test::Fma(_) => (fma_xmm, 24),
        Test::FmaShuffleMix => (fma_zmm_shuffle, 24),
        Test::MulAdd(V512) => (muladd_zmm, 40),
        Test::MulAdd(V256) => (muladd_ymm, 28),
        Test::MulAdd(_) => (muladd_xmm, 28),
        Test::F16c => (f16c_ymm, 24),
        Test::Vpmulld(V512) => (vpmulld_zmm, 24),
        Test::Vpmulld(V256) => (vpmulld_ymm, 24),
        Test::Vpmulld(_) => (vpmulld_xmm, 24),
        Test::Vpmullq => (vpmullq_zmm, 24),
        Test::Vpmaddwd(V512) => (vpmaddwd_zmm, 24),
        Test::Vpmaddwd(V256) => (vpmaddwd_ymm, 24),
        Test::Vpmaddwd(_) => (vpmaddwd_xmm, 24),
        Test::Vpdpbusd(V512) => (vpdpbusd_zmm, 24),
        Test::Vpdpbusd(_) => (vpdpbusd_ymm, 24),
        Test::Vpdpwssd(V512) => (vpdpwssd_zmm, 24),
        Test::Vpdpwssd(_) => (vpdpwssd_ymm, 24),
        Test::Vdpbf16ps => (vdpbf16ps_zmm, 24),
        Test::Fp16Fma => (fma_ph_zmm, 24),
        Test::AmxBf16 => (tdpbf16ps_tile, 4),
        Test::AmxInt8 => (tdpbssd_tile, 4),
        // aarch64's tests (`probe_arm.rs`): not in `TESTS`, never run here.
        Test::Fmla | Test::Sdot | Test::SveFmla | Test::Smmla | Test::Bfmmla => {
            unreachable!("{} is an aarch64 test", test.name())
        }
    }
}

/// A clock chain: 192 dependent adds with one FMA (`$fma`) after each on 8
/// accumulators, `$setup` zeroing them and the operands, `$tail` cleaning up.
macro_rules! fma_clock_chain {
    ($(#[$doc:meta])* $name:ident, $features:literal, [$($setup:literal),+], $fma:literal, [$($tail:literal),+]) => {
        $(#[$doc])*
        #[target_feature(enable = $features)]
        pub(super) unsafe fn $name(loops: u64) -> u64 {
            std::arch::asm!(
                $($setup,)+
                ".p2align 5",
                "2:",
                ".rept 24",
                ".irp r,0,1,2,3,4,5,6,7",
                "add rdx, {b}",
                $fma,
                ".endr",
                ".endr",
                "dec rcx",
                "jnz 2b",
                $($tail,)+
                inout("rcx") loops => _,
                inout("rdx") 1u64 => _,
                b = in(reg) std::hint::black_box(3u64),
                clobber_abi("C"),
                options(nomem, nostack),
            );
            loops * 192
        }
    };
}

fma_clock_chain!(
    /// 192 dependent adds with a 256-bit FMA after each (8 accumulators).
    ymm_clock_chain,
    "avx,fma",
    [".irp r,0,1,2,3,4,5,6,7,14,15", "vpxor ymm\\r, ymm\\r, ymm\\r", ".endr"],
    "vfmadd231pd ymm\\r, ymm14, ymm15",
    ["vzeroupper"]
);
fma_clock_chain!(
    /// 192 dependent adds with a 512-bit FMA after each (8 accumulators): the heavy
    /// AVX-512 licence the 512-bit loops run in.
    zmm_clock_chain,
    "avx512f",
    [".irp r,0,1,2,3,4,5,6,7,30,31", "vpxord zmm\\r, zmm\\r, zmm\\r", ".endr"],
    "vfmadd231pd zmm\\r, zmm30, zmm31",
    ["vpxord xmm30, xmm30, xmm30", "vpxord xmm31, xmm31, xmm31", "vzeroupper"]
);
