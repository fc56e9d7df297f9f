//! Plain-Rust fallback kernels, so aarch64 and old CPUs still get numbers.
//!
//! 16 independent accumulators, `acc = acc * a + b` (2 operations per element per
//! iteration); the compiler vectorises them with whatever the target baseline offers
//! (SSE2 on x86-64, NEON on aarch64), so no theoretical peak is claimed for them.
//! A multiply-add recurrence (not a plain add) keeps the compiler from replacing the
//! loop by a closed form.

use super::kernel::Operands;

/// Accumulators per generic kernel.
pub(crate) const ACCS: usize = 16;

/// One generic kernel: `acc = step(acc, a, b)` on every accumulator, `iters` times;
/// `step` is written as `|x, a, b| expr` over values of type `$t`. `float` kernels
/// step `x * a + b`, `int` ones the same with wrapping arithmetic.
macro_rules! generic_kernel {
    (float $name:ident, $t:ty) => {
        generic_kernel!($name, $t, |x, a, b| x * a + b);
    };
    (int $name:ident, $t:ty) => {
        generic_kernel!($name, $t, |x, a, b| x.wrapping_mul(a).wrapping_add(b));
    };
    ($name:ident, $t:ty, |$x:ident, $a:ident, $b:ident| $step:expr) => {
        pub(super) unsafe fn $name(iters: u64, p: &Operands, out: *mut u8) {
            #[inline(always)]
            fn step($x: $t, $a: $t, $b: $t) -> $t {
                $step
            }
            const W: usize = std::mem::size_of::<$t>();
            let a = <$t>::from_le_bytes(p.a[..W].try_into().unwrap());
            let b = <$t>::from_le_bytes(p.b[..W].try_into().unwrap());
            let c = <$t>::from_le_bytes(p.init[..W].try_into().unwrap());
            let (a, b) = std::hint::black_box((a, b));
            let mut acc = [c; ACCS];
            for _ in 0..iters {
                for x in acc.iter_mut() {
                    *x = step(*x, a, b);
                }
            }
            for (i, x) in acc.iter().enumerate() {
                std::ptr::copy_nonoverlapping(x.to_le_bytes().as_ptr(), out.add(i * W), W);
            }
        }
    };
}

generic_kernel!(float muladd_f64_generic, f64);
generic_kernel!(float muladd_f32_generic, f32);
generic_kernel!(int muladd_i8_generic, i8);
generic_kernel!(int muladd_i16_generic, i16);
generic_kernel!(int muladd_i32_generic, i32);
generic_kernel!(int muladd_i64_generic, i64);
