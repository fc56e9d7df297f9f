//! x86-64 peak kernels in inline assembly, one function per table row.
//!
//! Every kernel has the same shape (cpufp's): load two operand vectors and the initial
//! accumulator value from memory, run `iters` loop iterations of independent
//! instructions into N accumulators, store the accumulators to `out`. N covers latency ×
//! issue width for every instruction used here (FMA 4 × 2 = 8, vpdpbusd 5 × 2 = 10,
//! vpmulld 10 × 1, vpmullq 15 × ⅔): 24 accumulators in zmm0–23 for AVX-512, 12 in
//! xmm/ymm0–11 for SSE/AVX (16 architectural registers). Operands live in xmm/ymm14–15
//! or zmm30–31.
//!
//! Assembly, not intrinsics, because (a) the compiler must not fold, reorder or spill
//! the chains, and (b) AVX512-FP16 and AMX intrinsics are not stable in Rust 1.95 while
//! the assembler accepts the instructions. The `.irp` directive repeats an instruction
//! over the accumulator registers. Callers check the CPU features first (see the
//! table's `requires`, which each function's `target_feature` names exactly:
//! `kernel_features.rs` checks it); `iters` must be at least 1.

use super::kernel::Operands;
use crate::hw::asm::{f16c_loop_body, irp12, irp24, kernel_asm, loop_end};
use crate::hw::clock::add_chain;

/// The clock chain of a kernel: the dependent `add reg, reg` chain of `hw::clock` (192
/// adds per iteration) with the kernel's own first instruction interleaved once every
/// two adds, on accumulators 0–7 and zeroed operands. The core then runs at the
/// frequency licence of that instruction class (AVX-512 integer adds are "light" and
/// run faster than 512-bit FMAs on many Intel parts), while the adds count its cycles.
macro_rules! clock_chain {
    ($name:ident, $features:literal, $zero_a:literal, $zero_b:literal, $instr:literal, $tail:literal, $($clobber:tt)*) => {
        clock_chain!(@chain $name, $features, $zero_a, $zero_b, ".rept 12", ".irp r,0,1,2,3,4,5,6,7",
            [$instr], $tail, $($clobber)*);
    };
    // `$rept` × `$irp` pairs of adds must make 192 adds; `$body` follows each pair.
    (@chain $name:ident, $features:literal, $zero_a:literal, $zero_b:literal, $rept:literal, $irp:literal,
     [$($body:literal),+], $tail:literal, $($clobber:tt)*) => {
        #[target_feature(enable = $features)]
        pub(super) unsafe fn $name(loops: u64) -> u64 {
            add_chain!(loops, [$zero_a, $zero_b, ".p2align 5"],
                [$rept, $irp, "add {a}, {b}", "add {a}, {b}", $($body,)+ ".endr", ".endr"],
                [$tail], $($clobber)*,);
            loops * 192
        }
    };
}

/// The clock chain of the 512-bit FMA kernels: the same 192 dependent adds with the
/// kernel's FMA issued twice every two adds (one per cycle, on zmm0–5 and zmm10–15).
/// Measured on Cascade Lake (best of 200 readings): one FMA every two adds leaves the
/// core at 2.700 GHz, the light licence 512-bit integer adds also get; one or 1.5 FMAs
/// per cycle read 2.400 GHz, the heavy licence the kernels (two FMAs per cycle) run in,
/// and 1.5 `vpaddq` per cycle on the same ports still read 2.700 GHz, so the drop is the
/// licence, not port contention. Only instructions with two pipes use this density: a
/// slower one (`vpmullq`) would stall the adds and read a low clock.
macro_rules! zmm_dense_clock_chain {
    ($name:ident, $features:literal, $instr:literal) => {
        clock_chain!(@chain $name, $features, "vpxord zmm30, zmm30, zmm30", "vpxord zmm31, zmm31, zmm31",
            ".rept 16", ".irp q,0,1,2,3,4,5", [".irp r,\\q,1\\q", $instr, ".endr"],
            "vpxord xmm30, xmm30, xmm30\nvpxord xmm31, xmm31, xmm31\nvzeroupper",
            out("zmm0") _, out("zmm1") _, out("zmm2") _, out("zmm3") _, out("zmm4") _, out("zmm5") _,
            out("zmm10") _, out("zmm11") _, out("zmm12") _, out("zmm13") _, out("zmm14") _, out("zmm15") _,
            out("zmm30") _, out("zmm31") _);
    };
}

/// The code every kernel shares, whatever its width: load operands a and b into
/// registers `$ra` and `$rb` and the accumulators (`$irp` lists them) from `init`, run
/// the `$body` instructions over every accumulator `iters` times, store the
/// accumulators to `out` (`$stride` bytes each), then `$tail`. `$mov` moves one vector
/// of `$reg` registers; `\\r` in a body is the accumulator's number.
macro_rules! acc_kernel {
    ($name:ident, $features:literal, $mov:literal, $reg:literal, $irp:ident, $ra:literal, $rb:literal,
     $stride:literal, [$($body:literal),+], [$($tail:literal),*], $($clobber:tt)*) => {
        #[target_feature(enable = $features)]
        pub(super) unsafe fn $name(iters: u64, p: &Operands, out: *mut u8) {
            kernel_asm!(iters, p, out, [
                concat!($mov, " ", $reg, $ra, ", [{a}]"),
                concat!($mov, " ", $reg, $rb, ", [{b}]"),
                $irp!(), concat!($mov, " ", $reg, "\\r, [{c}]"), ".endr",
                ".p2align 5",
                "2:",
                $($irp!(), $body, ".endr",)+
                loop_end!(),
                $irp!(), concat!($mov, " [{o} + ", $stride, "*\\r], ", $reg, "\\r"), ".endr",
                $($tail,)*
                ],
                $($clobber)*
            );
        }
    };
}

/// 512-bit kernel: 24 accumulators zmm0–23, operands a = zmm30, b = zmm31.
macro_rules! zmm_kernel {
    (fma $name:ident, $clock:ident, $features:literal, $first:literal $(, $body:literal)*) => {
        zmm_kernel!(@kernel $name, $features, $first $(, $body)*);
        zmm_dense_clock_chain!($clock, $features, $first);
    };
    ($name:ident, $clock:ident, $features:literal, $first:literal $(, $body:literal)*) => {
        zmm_kernel!(@kernel $name, $features, $first $(, $body)*);
        clock_chain!($clock, $features, "vpxord zmm30, zmm30, zmm30", "vpxord zmm31, zmm31, zmm31", $first,
            "vpxord xmm30, xmm30, xmm30\nvpxord xmm31, xmm31, xmm31\nvzeroupper",
            out("zmm0") _, out("zmm1") _, out("zmm2") _, out("zmm3") _,
            out("zmm4") _, out("zmm5") _, out("zmm6") _, out("zmm7") _,
            out("zmm30") _, out("zmm31") _);
    };
    (@kernel $name:ident, $features:literal, $($body:literal),+) => {
        // vzeroupper leaves zmm16-31 alone; the tail zeroes them too so the thread's
        // vector state is clean for whatever runs next.
        acc_kernel!($name, $features, "vmovdqu64", "zmm", irp24, "30", "31", "64", [$($body),+],
            [".irp r,16,17,18,19,20,21,22,23,30,31", "vpxord xmm\\r, xmm\\r, xmm\\r", ".endr", "vzeroupper"],
            out("zmm0") _, out("zmm1") _, out("zmm2") _, out("zmm3") _, out("zmm4") _, out("zmm5") _,
            out("zmm6") _, out("zmm7") _, out("zmm8") _, out("zmm9") _, out("zmm10") _, out("zmm11") _,
            out("zmm12") _, out("zmm13") _, out("zmm14") _, out("zmm15") _, out("zmm16") _, out("zmm17") _,
            out("zmm18") _, out("zmm19") _, out("zmm20") _, out("zmm21") _, out("zmm22") _, out("zmm23") _,
            out("zmm30") _, out("zmm31") _,);
    };
}

/// 256-bit VEX kernel: 12 accumulators ymm0–11, operands a = ymm14, b = ymm15.
macro_rules! ymm_kernel {
    ($name:ident, $clock:ident, $features:literal, $first:literal $(, $body:literal)*) => {
        ymm_kernel!(@kernel $name, $features, $first $(, $body)*);
        clock_chain!($clock, $features, "vpxor ymm14, ymm14, ymm14", "vpxor ymm15, ymm15, ymm15", $first, "vzeroupper",
            out("ymm0") _, out("ymm1") _, out("ymm2") _, out("ymm3") _,
            out("ymm4") _, out("ymm5") _, out("ymm6") _, out("ymm7") _,
            out("ymm14") _, out("ymm15") _);
    };
    (@kernel $name:ident, $features:literal, $($body:literal),+) => {
        acc_kernel!($name, $features, "vmovdqu", "ymm", irp12, "14", "15", "32", [$($body),+], ["vzeroupper"],
            out("ymm0") _, out("ymm1") _, out("ymm2") _, out("ymm3") _, out("ymm4") _, out("ymm5") _, out("ymm6") _,
            out("ymm7") _, out("ymm8") _, out("ymm9") _, out("ymm10") _, out("ymm11") _, out("ymm14") _, out("ymm15") _,);
    };
}

/// 128-bit legacy-SSE kernel: 12 accumulators xmm0–11, operands a = xmm14, b = xmm15.
macro_rules! xmm_kernel {
    ($name:ident, $clock:ident, $features:literal, $first:literal $(, $body:literal)*) => {
        xmm_kernel!(@kernel $name, $features, $first $(, $body)*);
        clock_chain!($clock, $features, "pxor xmm14, xmm14", "pxor xmm15, xmm15", $first, "",
            out("xmm0") _, out("xmm1") _, out("xmm2") _, out("xmm3") _,
            out("xmm4") _, out("xmm5") _, out("xmm6") _, out("xmm7") _,
            out("xmm14") _, out("xmm15") _);
    };
    (@kernel $name:ident, $features:literal, $($body:literal),+) => {
        acc_kernel!($name, $features, "movdqu", "xmm", irp12, "14", "15", "16", [$($body),+], [],
            out("xmm0") _, out("xmm1") _, out("xmm2") _, out("xmm3") _, out("xmm4") _, out("xmm5") _, out("xmm6") _,
            out("xmm7") _, out("xmm8") _, out("xmm9") _, out("xmm10") _, out("xmm11") _, out("xmm14") _, out("xmm15") _,);
    };
}

// Floating point. FMA form 132: acc = acc * a + b (converges to b / (1 - a), so values
// stay normal: no denormal slow paths). Mul+add kernels do the same in two steps.
xmm_kernel!(
    muladd_f64_scalar,
    muladd_f64_scalar_clock,
    "sse2",
    "mulsd xmm\\r, xmm14",
    "addsd xmm\\r, xmm15"
);
xmm_kernel!(
    muladd_f32_scalar,
    muladd_f32_scalar_clock,
    "sse2",
    "mulss xmm\\r, xmm14",
    "addss xmm\\r, xmm15"
);
xmm_kernel!(
    muladd_f64_sse2,
    muladd_f64_sse2_clock,
    "sse2",
    "mulpd xmm\\r, xmm14",
    "addpd xmm\\r, xmm15"
);
xmm_kernel!(
    muladd_f32_sse2,
    muladd_f32_sse2_clock,
    "sse2",
    "mulps xmm\\r, xmm14",
    "addps xmm\\r, xmm15"
);
ymm_kernel!(
    muladd_f64_avx,
    muladd_f64_avx_clock,
    "avx",
    "vmulpd ymm\\r, ymm\\r, ymm14",
    "vaddpd ymm\\r, ymm\\r, ymm15"
);
ymm_kernel!(
    muladd_f32_avx,
    muladd_f32_avx_clock,
    "avx",
    "vmulps ymm\\r, ymm\\r, ymm14",
    "vaddps ymm\\r, ymm\\r, ymm15"
);
ymm_kernel!(
    fma_f64_avx2,
    fma_f64_avx2_clock,
    "avx,fma",
    "vfmadd132pd ymm\\r, ymm15, ymm14"
);
ymm_kernel!(
    fma_f32_avx2,
    fma_f32_avx2_clock,
    "avx,fma",
    "vfmadd132ps ymm\\r, ymm15, ymm14"
);
zmm_kernel!(
    fma fma_f64_avx512,
    fma_f64_avx512_clock,
    "avx512f",
    "vfmadd132pd zmm\\r, zmm31, zmm30"
);
zmm_kernel!(
    fma fma_f32_avx512,
    fma_f32_avx512_clock,
    "avx512f",
    "vfmadd132ps zmm\\r, zmm31, zmm30"
);
zmm_kernel!(
    fma_f16_avx512fp16,
    fma_f16_avx512fp16_clock,
    "avx512f,avx512fp16",
    "vfmadd132ph zmm\\r, zmm31, zmm30"
);
// BF16 dot product: acc.f32 += a.bf16[2i] * b.bf16[2i] + a.bf16[2i+1] * b.bf16[2i+1].
zmm_kernel!(
    dp_bf16_avx512bf16,
    dp_bf16_avx512bf16_clock,
    "avx512f,avx512bf16",
    "vdpbf16ps zmm\\r, zmm30, zmm31"
);

// Integer dot products: vpdpbusd adds four u8 × s8 products into each i32 lane (8 ops),
// vpdpwssd two s16 × s16 products (4 ops). The AVX-VNNI forms need the {vex} prefix so
// they run on CPUs with AVX-VNNI but no AVX-512.
zmm_kernel!(
    dp_i8_avx512vnni,
    dp_i8_avx512vnni_clock,
    "avx512f,avx512vnni",
    "vpdpbusd zmm\\r, zmm30, zmm31"
);
zmm_kernel!(
    dp_i16_avx512vnni,
    dp_i16_avx512vnni_clock,
    "avx512f,avx512vnni",
    "vpdpwssd zmm\\r, zmm30, zmm31"
);
ymm_kernel!(
    dp_i8_avxvnni,
    dp_i8_avxvnni_clock,
    "avx2,avxvnni",
    "{{vex}} vpdpbusd ymm\\r, ymm14, ymm15"
);
ymm_kernel!(
    dp_i16_avxvnni,
    dp_i16_avxvnni_clock,
    "avx2,avxvnni",
    "{{vex}} vpdpwssd ymm\\r, ymm14, ymm15"
);

// Integer add and multiply: acc += a, acc *= a (wrapping).
xmm_kernel!(
    add_i32_sse2,
    add_i32_sse2_clock,
    "sse2",
    "paddd xmm\\r, xmm14"
);
xmm_kernel!(
    add_i64_sse2,
    add_i64_sse2_clock,
    "sse2",
    "paddq xmm\\r, xmm14"
);
ymm_kernel!(
    add_i32_avx2,
    add_i32_avx2_clock,
    "avx2",
    "vpaddd ymm\\r, ymm\\r, ymm14"
);
ymm_kernel!(
    add_i64_avx2,
    add_i64_avx2_clock,
    "avx2",
    "vpaddq ymm\\r, ymm\\r, ymm14"
);
ymm_kernel!(
    mul_i32_avx2,
    mul_i32_avx2_clock,
    "avx2",
    "vpmulld ymm\\r, ymm\\r, ymm14"
);
zmm_kernel!(
    add_i32_avx512,
    add_i32_avx512_clock,
    "avx512f",
    "vpaddd zmm\\r, zmm\\r, zmm30"
);
zmm_kernel!(
    add_i64_avx512,
    add_i64_avx512_clock,
    "avx512f",
    "vpaddq zmm\\r, zmm\\r, zmm30"
);
zmm_kernel!(
    mul_i32_avx512,
    mul_i32_avx512_clock,
    "avx512f",
    "vpmulld zmm\\r, zmm\\r, zmm30"
);
zmm_kernel!(
    mul_i64_avx512,
    mul_i64_avx512_clock,
    "avx512f,avx512dq",
    "vpmullq zmm\\r, zmm\\r, zmm30"
);

/// fp16 arithmetic on a CPU without native fp16 (F16C): 12 fp16 accumulators of 8 lanes
/// in xmm0–11, each step widened to fp32 (`vcvtph2ps`), one fp32 FMA acc·a + b, and the
/// result rounded back to fp16 (`vcvtps2ph`, round to nearest even), so every result is
/// an fp16 value as native fp16 arithmetic would keep it. The operands a and b are fp16
/// in memory, widened once to fp32 in ymm14/15. Only the FMA counts as operations (2 per
/// lane); the two conversions per step are the price of fp16 here, and their port (5 on
/// Intel) bounds the rate, not the FMA pipes.
///
/// The loop is software-pipelined (`hw::asm::f16c_loop_body`): each instruction's input
/// comes from four steps earlier, not from the instruction before it. The same
/// instructions as three blocks of twelve ran 8-13 % slower on Cascade Lake on a quiet
/// host, and 20-25 % slower than this order when the host loaded the core (29-34
/// against 27.2-27.8 cycles per 12 steps at the add chain's clock, the best of 200 by
/// the thread's CPU time; `scripts/bench-f16c.sh`); `llvm-mca` reads 24.0 for every
/// order. Accumulators 4–11 start a step before the loop and finish it after, and
/// 0–3 take one whole step after it, so the loop runs `iters - 1` times and every
/// accumulator takes exactly `iters` steps (at least one).
#[target_feature(enable = "avx,fma,f16c")]
pub(super) unsafe fn fma_f16_f16c(iters: u64, p: &Operands, out: *mut u8) {
    kernel_asm!(iters.max(1) - 1, p, out, [
        "vcvtph2ps ymm14, xmmword ptr [{a}]",
        "vcvtph2ps ymm15, xmmword ptr [{b}]",
        irp12!(), "vmovdqu xmm\\r, xmmword ptr [{c}]", ".endr",
        // The steps carried into the loop: 4–7 widened and multiplied, 8–11 widened.
        ".irp r,4,5,6,7,8,9,10,11", "vcvtph2ps ymm\\r, xmm\\r", ".endr",
        ".irp r,4,5,6,7", "vfmadd132ps ymm\\r, ymm15, ymm14", ".endr",
        "test {n}, {n}",
        "jz 3f",
        ".p2align 5",
        "2:",
        f16c_loop_body!(),
        loop_end!(),
        "3:",
        // The carried steps finished, and 0–3's last step.
        ".irp r,4,5,6,7", "vcvtps2ph xmm\\r, ymm\\r, 0", ".endr",
        ".irp r,8,9,10,11", "vfmadd132ps ymm\\r, ymm15, ymm14", "vcvtps2ph xmm\\r, ymm\\r, 0", ".endr",
        ".irp r,0,1,2,3",
        "vcvtph2ps ymm\\r, xmm\\r",
        "vfmadd132ps ymm\\r, ymm15, ymm14",
        "vcvtps2ph xmm\\r, ymm\\r, 0",
        ".endr",
        irp12!(), "vmovdqu ymmword ptr [{o} + 32*\\r], ymm\\r", ".endr",
        "vzeroupper",
        ],
        out("ymm0") _, out("ymm1") _, out("ymm2") _, out("ymm3") _, out("ymm4") _, out("ymm5") _,
        out("ymm6") _, out("ymm7") _, out("ymm8") _, out("ymm9") _, out("ymm10") _, out("ymm11") _,
        out("ymm14") _, out("ymm15") _,
    );
}
