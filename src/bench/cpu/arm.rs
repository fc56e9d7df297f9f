//! 64-bit Arm peak kernels in inline assembly, one function per table row: NEON
//! (ASIMD, 128-bit) and SVE (any vector length, 128–2048 bits, read at run time).
//!
//! The same shape as the x86 kernels: load the operand vectors a (v30/z30) and b
//! (v31/z31) and the initial accumulator value, run `iters` iterations of independent
//! instructions into 24 accumulators (v0–v23 / z0–z23), store them to `out`. 24 covers
//! latency × issue width of every instruction here on the widest cores (FMLA 4 cycles
//! × 4 pipes on Neoverse V1/V2 = 16; A64FX 9 cycles × 2 = 18).
//!
//! FMLA accumulates (`acc += a × b`), unlike x86's `vfmadd132` form; a × b is exact in
//! every format, so the scalar reference adds the same value with one rounding per
//! step. SVE has no stable Rust intrinsics: `asm!` with the `sve` target feature. SVE
//! operands are loaded with `ld1rq*`, which replicates 128 bits over the vector, and
//! accumulators stored whole (`str z, [.., mul vl]`), so a kernel never needs to know
//! its vector length; the table scales lanes and operations by it
//! (`Kernel::vector_scale`). Callers check the features first (the table's
//! `requires`, which each function's `target_feature` names: `kernel_features.rs`
//! checks it); `iters` must be at least 1.

use super::kernel::Operands;
use crate::hw::asm::{irp24, kernel_asm, loop_end};

/// The code every Arm kernel shares, NEON or SVE: `$setup`, load operands a and b
/// (`$load_a`, `$load_b`) and each of the 24 accumulators (`$load_c`; `\\r` is its
/// number) from `init`, run the `$body` instructions over every accumulator `iters`
/// times, store each accumulator (`$store`) to `out`. `$clobber` lists the registers
/// beyond v0–v23, v30 and v31 (which hold the SVE z registers' low halves too), each
/// followed by a comma.
macro_rules! arm_kernel {
    ($name:ident, $features:literal, [$($setup:literal),*], $load_a:literal, $load_b:literal,
     $load_c:literal, $store:literal, [$($body:literal),+], $($clobber:tt)*) => {
        #[target_feature(enable = $features)]
        pub(super) unsafe fn $name(iters: u64, p: &Operands, out: *mut u8) {
            kernel_asm!(iters, p, out, [
                $($setup,)*
                $load_a,
                $load_b,
                irp24!(), $load_c, ".endr",
                ".p2align 5",
                "2:",
                $(irp24!(), $body, ".endr",)+
                loop_end!(),
                irp24!(), $store, ".endr",
                ],
                out("v0") _, out("v1") _, out("v2") _, out("v3") _, out("v4") _, out("v5") _,
                out("v6") _, out("v7") _, out("v8") _, out("v9") _, out("v10") _, out("v11") _,
                out("v12") _, out("v13") _, out("v14") _, out("v15") _, out("v16") _, out("v17") _,
                out("v18") _, out("v19") _, out("v20") _, out("v21") _, out("v22") _, out("v23") _,
                out("v30") _, out("v31") _, $($clobber)*
            );
        }
    };
}

/// NEON kernel: 24 accumulators v0–v23, operands a = v30, b = v31.
macro_rules! neon_kernel {
    ($name:ident, $features:literal, $($body:literal),+) => {
        arm_kernel!($name, $features, [], "ldr q30, [{a}]", "ldr q31, [{b}]", "ldr q\\r, [{c}]",
            "str q\\r, [{o}, #16*\\r]", [$($body),+],);
    };
}

/// SVE kernel: 24 accumulators z0–z23, operands a = z30, b = z31, every lane active
/// (p0); `str` stores each accumulator's whole vector length.
macro_rules! sve_kernel {
    ($name:ident, $features:literal, $($body:literal),+) => {
        arm_kernel!($name, $features, ["ptrue p0.b"], "ld1rqb {{z30.b}}, p0/z, [{a}]",
            "ld1rqb {{z31.b}}, p0/z, [{b}]", "ld1rqb {{z\\r\\().b}}, p0/z, [{c}]",
            "str z\\r, [{o}, #\\r, mul vl]", [$($body),+], out("p0") _,);
    };
}

// Floating point: acc += a × b (FMLA), or acc = acc × a then acc += b (mul+add, the
// converging recurrence of the x86 mul+add kernels).
neon_kernel!(fma_f64_neon, "neon", "fmla v\\r\\().2d, v30.2d, v31.2d");
neon_kernel!(fma_f32_neon, "neon", "fmla v\\r\\().4s, v30.4s, v31.4s");
neon_kernel!(
    fma_f16_neon,
    "neon,fp16",
    "fmla v\\r\\().8h, v30.8h, v31.8h"
);
neon_kernel!(
    muladd_f64_neon,
    "neon",
    "fmul v\\r\\().2d, v\\r\\().2d, v30.2d",
    "fadd v\\r\\().2d, v\\r\\().2d, v31.2d"
);
neon_kernel!(
    muladd_f32_neon,
    "neon",
    "fmul v\\r\\().4s, v\\r\\().4s, v30.4s",
    "fadd v\\r\\().4s, v\\r\\().4s, v31.4s"
);
// BF16: BFDOT adds two bf16 products into each f32 lane; BFMMLA multiplies a 2×4 by a
// 4×2 bf16 matrix into 2×2 f32 (four products per lane).
neon_kernel!(
    bfdot_bf16_neon,
    "neon,bf16",
    "bfdot v\\r\\().4s, v30.8h, v31.8h"
);
neon_kernel!(
    bfmmla_bf16_neon,
    "neon,bf16",
    "bfmmla v\\r\\().4s, v30.8h, v31.8h"
);
// Int8: SDOT/UDOT add four byte products into each i32 lane; SMMLA/UMMLA multiply a
// 2×8 by an 8×2 byte matrix into 2×2 i32 (eight products per lane).
neon_kernel!(
    sdot_i8_neon,
    "neon,dotprod",
    "sdot v\\r\\().4s, v30.16b, v31.16b"
);
neon_kernel!(
    udot_i8_neon,
    "neon,dotprod",
    "udot v\\r\\().4s, v30.16b, v31.16b"
);
neon_kernel!(
    smmla_i8_neon,
    "neon,i8mm",
    "smmla v\\r\\().4s, v30.16b, v31.16b"
);
neon_kernel!(
    ummla_i8_neon,
    "neon,i8mm",
    "ummla v\\r\\().4s, v30.16b, v31.16b"
);
// Integer add and multiply per width (NEON has no 64-bit lane multiply).
neon_kernel!(
    add_i8_neon,
    "neon",
    "add v\\r\\().16b, v\\r\\().16b, v30.16b"
);
neon_kernel!(add_i16_neon, "neon", "add v\\r\\().8h, v\\r\\().8h, v30.8h");
neon_kernel!(add_i32_neon, "neon", "add v\\r\\().4s, v\\r\\().4s, v30.4s");
neon_kernel!(add_i64_neon, "neon", "add v\\r\\().2d, v\\r\\().2d, v30.2d");
neon_kernel!(
    mul_i8_neon,
    "neon",
    "mul v\\r\\().16b, v\\r\\().16b, v30.16b"
);
neon_kernel!(mul_i16_neon, "neon", "mul v\\r\\().8h, v\\r\\().8h, v30.8h");
neon_kernel!(mul_i32_neon, "neon", "mul v\\r\\().4s, v\\r\\().4s, v30.4s");

// SVE, any vector length.
sve_kernel!(fma_f64_sve, "sve", "fmla z\\r\\().d, p0/m, z30.d, z31.d");
sve_kernel!(fma_f32_sve, "sve", "fmla z\\r\\().s, p0/m, z30.s, z31.s");
sve_kernel!(fma_f16_sve, "sve", "fmla z\\r\\().h, p0/m, z30.h, z31.h");
sve_kernel!(
    muladd_f64_sve,
    "sve",
    "fmul z\\r\\().d, p0/m, z\\r\\().d, z30.d",
    "fadd z\\r\\().d, p0/m, z\\r\\().d, z31.d"
);
sve_kernel!(
    muladd_f32_sve,
    "sve",
    "fmul z\\r\\().s, p0/m, z\\r\\().s, z30.s",
    "fadd z\\r\\().s, p0/m, z\\r\\().s, z31.s"
);
sve_kernel!(sdot_i8_sve, "sve", "sdot z\\r\\().s, z30.b, z31.b");
sve_kernel!(udot_i8_sve, "sve", "udot z\\r\\().s, z30.b, z31.b");
sve_kernel!(smmla_i8_sve, "sve,i8mm", "smmla z\\r\\().s, z30.b, z31.b");
sve_kernel!(bfdot_bf16_sve, "sve,bf16", "bfdot z\\r\\().s, z30.h, z31.h");
sve_kernel!(
    bfmmla_bf16_sve,
    "sve,bf16",
    "bfmmla z\\r\\().s, z30.h, z31.h"
);
sve_kernel!(add_i32_sve, "sve", "add z\\r\\().s, z\\r\\().s, z30.s");
sve_kernel!(add_i64_sve, "sve", "add z\\r\\().d, z\\r\\().d, z30.d");
sve_kernel!(
    mul_i32_sve,
    "sve",
    "mul z\\r\\().s, p0/m, z\\r\\().s, z30.s"
);
sve_kernel!(
    mul_i64_sve,
    "sve",
    "mul z\\r\\().d, p0/m, z\\r\\().d, z30.d"
);
// SVE2: the unpredicated vector multiply (SVE has only the predicated, destructive one).
sve_kernel!(
    mul_i64_sve2,
    "sve,sve2",
    "mul z\\r\\().d, z\\r\\().d, z30.d"
);
