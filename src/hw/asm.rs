//! Assembler text shared by the CPU kernels (`bench::cpu::x86`, `bench::cpu::amx`) and
//! the execution probe (`probe_x86.rs`): the accumulator lists that `.irp` repeats an
//! instruction over, and the AMX tile setup and loop. One copy, so the kernels and the
//! probe time the same instructions; the caller's `asm!` joins the strings with
//! newlines, so a string here that holds several lines assembles as if written apart.

/// The end of a counted loop whose body starts at label `2:`: `{n}` counted down and a
/// jump back while it is not zero (two lines, as the caller's `asm!` joins them).
#[cfg(target_arch = "x86_64")]
macro_rules! loop_end {
    () => {
        "dec {n}\njnz 2b"
    };
}
/// The end of a counted loop whose body starts at label `2:` (aarch64).
#[cfg(target_arch = "aarch64")]
macro_rules! loop_end {
    () => {
        "subs {n}, {n}, #1\nb.ne 2b"
    };
}
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
pub(crate) use loop_end;

/// The `asm!` of a peak kernel (`bench::cpu::x86`, `bench::cpu::arm`): the lines
/// `$line` (operand loads, the loop from label `2:`, the stores) with the operands every
/// kernel takes, `{n}` the iteration count `$iters` (counted down), `{a}` and `{b}` the
/// operand vectors and `{c}` the accumulators' initial value (of `$p`, the kernel's
/// `Operands`), `{o}` where the accumulators go (`$out`); `$clobber` lists the
/// registers it writes, each followed by a comma.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
macro_rules! kernel_asm {
    ($iters:expr, $p:expr, $out:expr, [$($line:expr),+ $(,)?], $($clobber:tt)*) => {
        std::arch::asm!(
            $($line,)+
            n = inout(reg) $iters => _,
            a = in(reg) $p.a.as_ptr(),
            b = in(reg) $p.b.as_ptr(),
            c = in(reg) $p.init.as_ptr(),
            o = in(reg) $out,
            $($clobber)*
            options(nostack),
        )
    };
}
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
pub(crate) use kernel_asm;

/// `.irp` over the 24 accumulators of the 512-bit loops (zmm0–23).
macro_rules! irp24 {
    () => {
        ".irp r,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23"
    };
}
pub(crate) use irp24;

/// `.irp` over the 12 accumulators of the 128- and 256-bit loops (xmm/ymm0–11).
#[cfg(target_arch = "x86_64")]
macro_rules! irp12 {
    () => {
        ".irp r,0,1,2,3,4,5,6,7,8,9,10,11"
    };
}
#[cfg(target_arch = "x86_64")]
pub(crate) use irp12;

/// One step of the F16C loop (`bench::cpu::x86::fma_f16_f16c`, the probe's
/// `f16c_ymm`): widen accumulator `$i` (`vcvtph2ps`), the fp32 FMA of accumulator `$f`
/// (acc·ymm15 + ymm14), round accumulator `$o` back to fp16 (`vcvtps2ph`).
#[cfg(target_arch = "x86_64")]
macro_rules! f16c_step {
    ($i:literal, $f:literal, $o:literal) => {
        concat!(
            "vcvtph2ps ymm",
            $i,
            ", xmm",
            $i,
            "\n",
            "vfmadd132ps ymm",
            $f,
            ", ymm15, ymm14\n",
            "vcvtps2ph xmm",
            $o,
            ", ymm",
            $o,
            ", 0"
        )
    };
}

/// The F16C loop's 12 steps, software-pipelined: step s widens accumulator s, runs the
/// FMA of accumulator s + 8 and rounds accumulator s + 4 (mod 12), so each instruction's
/// input was produced four steps (12 instructions, 8 cycles at the port bound) earlier:
/// longer than any of the three latencies (7, 4, 7 cycles on Intel), so port 5 finds a
/// ready conversion every cycle even when another thread shares the core. Accumulators
/// 4-11 carry a step across the loop's back edge: the kernel starts and finishes it
/// outside the loop.
#[cfg(target_arch = "x86_64")]
macro_rules! f16c_loop_body {
    () => {
        concat!(
            $crate::hw::asm::f16c_step!(0, 8, 4),
            "\n",
            $crate::hw::asm::f16c_step!(1, 9, 5),
            "\n",
            $crate::hw::asm::f16c_step!(2, 10, 6),
            "\n",
            $crate::hw::asm::f16c_step!(3, 11, 7),
            "\n",
            $crate::hw::asm::f16c_step!(4, 0, 8),
            "\n",
            $crate::hw::asm::f16c_step!(5, 1, 9),
            "\n",
            $crate::hw::asm::f16c_step!(6, 2, 10),
            "\n",
            $crate::hw::asm::f16c_step!(7, 3, 11),
            "\n",
            $crate::hw::asm::f16c_step!(8, 4, 0),
            "\n",
            $crate::hw::asm::f16c_step!(9, 5, 1),
            "\n",
            $crate::hw::asm::f16c_step!(10, 6, 2),
            "\n",
            $crate::hw::asm::f16c_step!(11, 7, 3)
        )
    };
}
#[cfg(target_arch = "x86_64")]
pub(crate) use {f16c_loop_body, f16c_step};

/// The timed AMX loop: four independent tile multiplies `$op` per iteration, C0–C3
/// (tmm0–3) from A in tmm4–5 and B in tmm6–7, so the TMUL unit always has the next
/// one ready; `$counter` (a register or operand) counts the iterations down.
#[cfg(target_arch = "x86_64")]
macro_rules! amx_loop_body {
    ($op:literal, $counter:literal) => {
        concat!(
            ".p2align 5\n2:\n",
            $op,
            " tmm0, tmm4, tmm6\n",
            $op,
            " tmm1, tmm4, tmm7\n",
            $op,
            " tmm2, tmm5, tmm6\n",
            $op,
            " tmm3, tmm5, tmm7\n",
            "dec ",
            $counter,
            "\njnz 2b"
        )
    };
}
#[cfg(target_arch = "x86_64")]
pub(crate) use amx_loop_body;

/// The 64-byte AMX tile configuration (`ldtilecfg`): palette 1, tiles 0–7 with 16 rows
/// of 64 bytes.
#[cfg(target_arch = "x86_64")]
pub(crate) fn tile_config() -> [u8; 64] {
    let mut cfg = [0u8; 64];
    cfg[0] = 1; // palette
    for t in 0..8 {
        cfg[16 + 2 * t..18 + 2 * t].copy_from_slice(&64u16.to_le_bytes()); // colsb
        cfg[48 + t] = 16; // rows
    }
    cfg
}
