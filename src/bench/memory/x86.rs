//! x86-64 bandwidth kernels (AVX2 and AVX-512F), one function per table row.
//!
//! Shape of every store kernel: a scalar head until the destination is 64-byte aligned
//! (so aligned vector and non-temporal stores are legal and no store splits a cache
//! line), a main loop of four vectors per iteration, a one-vector loop, and a scalar
//! tail. Loads are unaligned instructions (as fast as aligned ones on aligned data);
//! sources share the destination's alignment in our layout, but the kernels do not rely
//! on it. With 8-byte blocks only the head runs: that is the per-access cost the small
//! blocks are meant to show.
//!
//! Non-temporal variants (`_nt`) store with `vmovntpd`: the line goes to memory through
//! write-combining buffers without being read first (no write-allocate traffic) and
//! without evicting useful cache lines. That is what lets a DRAM copy approach the bus
//! limit, and also why `--nt auto` turns them off for cache-sized working sets (a
//! streaming store to a cached line evicts it). An `sfence` orders the streaming stores
//! before the kernel returns.
//!
//! AVX2 kernels use intrinsics (stable since Rust 1.27; the loops are simple enough that
//! the compiler emits exactly the instructions named). AVX-512 kernels run their vector
//! loop in `asm!`: they were written when the AVX-512 intrinsics were not yet stable
//! (Rust 1.89), and `asm!` pins the exact instruction stream; the head and tail stay in Rust. The read kernels keep 8 independent
//! accumulators so the adds (4-cycle latency, 2 per cycle) never limit an L1 read.

use std::arch::x86_64::*;

macro_rules! store_kernels {
    (
        $feat:literal, $vec:ty, $lanes:expr, $set1:ident, $storeu:ident, $stream:ident,
        $(($name:ident, $name_nt:ident,
            |$x:ident, $y:ident, $s:ident, $vs:ident, $i:ident| scalar $se:expr, vector $ve:expr)),+ $(,)?
    ) => {$(
        store_kernels!(@one $feat, $vec, $lanes, $set1, $storeu, false,
            $name, |$x, $y, $s, $vs, $i| $se, $ve);
        store_kernels!(@one $feat, $vec, $lanes, $set1, $stream, true,
            $name_nt, |$x, $y, $s, $vs, $i| $se, $ve);
    )+};
    (@one $feat:literal, $vec:ty, $lanes:expr, $set1:ident, $store:ident, $nt:expr,
        $name:ident, |$x:ident, $y:ident, $s:ident, $vs:ident, $i:ident| $se:expr, $ve:expr) => {
        /// Bandwidth kernel; see the module and `kernels` docs for the operation.
        ///
        /// # Safety
        /// See `kernels::KernelFn`; needs the features in `target_feature`.
        #[target_feature(enable = $feat)]
        #[allow(unused_variables)]
        pub(crate) unsafe fn $name(d: *mut f64, $x: *const f64, $y: *const f64, $s: f64, n: usize) -> f64 {
            const L: usize = $lanes;
            let $vs: $vec = $set1($s);
            let mut $i = 0usize;
            // Head: scalar stores until d + i is 64-byte aligned.
            while $i < n && (d.add($i) as usize) % 64 != 0 {
                *d.add($i) = $se;
                $i += 1;
            }
            let vector_start = $i;
            while $i + 4 * L <= n {
                let base = $i;
                // Shadowing `i` lets the same element expression serve each vector.
                let v0: $vec = { let $i = base; $ve };
                let v1: $vec = { let $i = base + L; $ve };
                let v2: $vec = { let $i = base + 2 * L; $ve };
                let v3: $vec = { let $i = base + 3 * L; $ve };
                $store(d.add(base), v0);
                $store(d.add(base + L), v1);
                $store(d.add(base + 2 * L), v2);
                $store(d.add(base + 3 * L), v3);
                $i = base + 4 * L;
            }
            while $i + L <= n {
                let v: $vec = $ve;
                $store(d.add($i), v);
                $i += L;
            }
            if $nt && $i > vector_start {
                _mm_sfence();
            }
            while $i < n {
                *d.add($i) = $se;
                $i += 1;
            }
            0.0
        }
    };
}

store_kernels!(
    "avx2,fma", __m256d, 4, _mm256_set1_pd, _mm256_store_pd, _mm256_stream_pd,
    (write_avx2, write_avx2_nt, |x, y, s, vs, i| scalar s, vector vs),
    (copy_avx2, copy_avx2_nt, |x, y, s, vs, i|
        scalar *x.add(i), vector _mm256_loadu_pd(x.add(i))),
    (scale_avx2, scale_avx2_nt, |x, y, s, vs, i|
        scalar s * *x.add(i), vector _mm256_mul_pd(vs, _mm256_loadu_pd(x.add(i)))),
    (add_avx2, add_avx2_nt, |x, y, s, vs, i|
        scalar *x.add(i) + *y.add(i),
        vector _mm256_add_pd(_mm256_loadu_pd(x.add(i)), _mm256_loadu_pd(y.add(i)))),
    (triad_avx2, triad_avx2_nt, |x, y, s, vs, i|
        scalar *x.add(i) + s * *y.add(i),
        vector _mm256_fmadd_pd(vs, _mm256_loadu_pd(y.add(i)), _mm256_loadu_pd(x.add(i)))),
);

macro_rules! read_kernel {
    ($name:ident, $feat:literal, $vec:ty, $lanes:expr, $zero:ident, $load:ident, $add:ident,
     $sum:expr) => {
        read_fn!(
        /// Read kernel: `Σ x[i]` with 8 independent vector accumulators.
        ///
        /// # Safety
        /// See `kernels::KernelFn`; needs the features in `target_feature`.
        #[target_feature(enable = $feat)]
        $name, |x, n| {
            const L: usize = $lanes;
            let mut a: [$vec; 8] = [$zero(); 8];
            let mut i = 0usize;
            while i + 8 * L <= n {
                a[0] = $add(a[0], $load(x.add(i)));
                a[1] = $add(a[1], $load(x.add(i + L)));
                a[2] = $add(a[2], $load(x.add(i + 2 * L)));
                a[3] = $add(a[3], $load(x.add(i + 3 * L)));
                a[4] = $add(a[4], $load(x.add(i + 4 * L)));
                a[5] = $add(a[5], $load(x.add(i + 5 * L)));
                a[6] = $add(a[6], $load(x.add(i + 6 * L)));
                a[7] = $add(a[7], $load(x.add(i + 7 * L)));
                i += 8 * L;
            }
            while i + L <= n {
                a[0] = $add(a[0], $load(x.add(i)));
                i += L;
            }
            let t = $add(
                $add($add(a[0], a[1]), $add(a[2], a[3])),
                $add($add(a[4], a[5]), $add(a[6], a[7])),
            );
            let mut total: f64 = $sum(t);
            while i < n {
                total += *x.add(i);
                i += 1;
            }
            total
        });
    };
}

#[target_feature(enable = "avx2")]
unsafe fn hsum256(v: __m256d) -> f64 {
    let mut lanes = [0.0f64; 4];
    _mm256_storeu_pd(lanes.as_mut_ptr(), v);
    (lanes[0] + lanes[1]) + (lanes[2] + lanes[3])
}

read_kernel!(
    read_avx2,
    "avx2,fma",
    __m256d,
    4,
    _mm256_setzero_pd,
    _mm256_loadu_pd,
    _mm256_add_pd,
    hsum256
);

macro_rules! irp4 {
    () => {
        ".irp k,0,1,2,3"
    };
}

/// AVX-512 store kernels: Rust head until `d` is 64-byte aligned, an `asm!` loop of
/// 4 × 64 B per iteration (data in zmm0–3, the broadcast scalar in zmm4), Rust tail.
macro_rules! zmm_store_kernels {
    ($(($name:ident, $name_nt:ident, |$x:ident, $y:ident, $s:ident, $i:ident| $se:expr,
        prefetch [$($pf:literal),*], $($body:literal),+)),+ $(,)?) => {$(
        zmm_store_kernels!(@one $name, "vmovapd [{d} + 64*\\k], zmm\\k", false,
            |$x, $y, $s, $i| $se, $($body),+);
        zmm_store_kernels!(@one $name_nt, "vmovntpd [{d} + 64*\\k], zmm\\k", true,
            |$x, $y, $s, $i| $se, $($pf,)* $($body),+);
    )+};
    (@one $name:ident, $store:literal, $nt:expr, |$x:ident, $y:ident, $s:ident, $i:ident| $se:expr,
        $($body:literal),+) => {
        /// AVX-512 bandwidth kernel; see the module and `kernels` docs.
        ///
        /// # Safety
        /// See `kernels::KernelFn`; needs AVX-512F.
        #[target_feature(enable = "avx512f")]
        #[allow(unused_variables)]
        pub(crate) unsafe fn $name(d: *mut f64, $x: *const f64, $y: *const f64, $s: f64, n: usize) -> f64 {
            let mut $i = 0usize;
            while $i < n && (d.add($i) as usize) % 64 != 0 {
                *d.add($i) = $se;
                $i += 1;
            }
            let chunks = (n - $i) / 32;
            if chunks > 0 {
                std::arch::asm!(
                    "vbroadcastsd zmm4, qword ptr [{s}]",
                    ".p2align 5",
                    "2:",
                    irp4!(), $($body,)+ $store, ".endr",
                    "add {x}, 256",
                    "add {y}, 256",
                    "add {d}, 256",
                    "dec {n}",
                    "jnz 2b",
                    "vzeroupper",
                    s = in(reg) &$s as *const f64,
                    x = inout(reg) $x.add($i) => _,
                    y = inout(reg) $y.add($i) => _,
                    d = inout(reg) d.add($i) => _,
                    n = inout(reg) chunks => _,
                    out("zmm0") _, out("zmm1") _, out("zmm2") _, out("zmm3") _, out("zmm4") _,
                    options(nostack),
                );
                $i += chunks * 32;
                if $nt {
                    // Order the streaming stores before anything that follows.
                    _mm_sfence();
                }
            }
            while $i < n {
                *d.add($i) = $se;
                $i += 1;
            }
            0.0
        }
    };
}

// The `_nt` variants (used at DRAM sizes) also prefetch the sources 2 KiB ahead: the
// L2 streamer stops at every 4 KiB boundary, software prefetch does not.
zmm_store_kernels!(
    (write_avx512, write_avx512_nt, |x, y, s, i| s, prefetch [], "vmovapd zmm\\k, zmm4"),
    (copy_avx512, copy_avx512_nt, |x, y, s, i| *x.add(i), prefetch ["prefetcht0 [{x} + 2048 + 64*\\k]"],
        "vmovupd zmm\\k, [{x} + 64*\\k]"),
    (scale_avx512, scale_avx512_nt, |x, y, s, i| s * *x.add(i), prefetch ["prefetcht0 [{x} + 2048 + 64*\\k]"],
        "vmulpd zmm\\k, zmm4, [{x} + 64*\\k]"),
    (add_avx512, add_avx512_nt, |x, y, s, i| *x.add(i) + *y.add(i), prefetch ["prefetcht0 [{x} + 2048 + 64*\\k]", "prefetcht0 [{y} + 2048 + 64*\\k]"],
        "vmovupd zmm\\k, [{x} + 64*\\k]", "vaddpd zmm\\k, zmm\\k, [{y} + 64*\\k]"),
    // zmm_k = x + s·y as one FMA (231 form: k = 4·mem + k); the tests use
    // integer-valued data, where FMA and mul+add agree.
    (triad_avx512, triad_avx512_nt, |x, y, s, i| *x.add(i) + s * *y.add(i), prefetch ["prefetcht0 [{x} + 2048 + 64*\\k]", "prefetcht0 [{y} + 2048 + 64*\\k]"],
        "vmovupd zmm\\k, [{x} + 64*\\k]", "vfmadd231pd zmm\\k, zmm4, [{y} + 64*\\k]"),
);

read_fn!(
    /// AVX-512 read kernel: `Σ x[i]`, 8 accumulators zmm0–7 over 512 B per iteration.
    ///
    /// # Safety
    /// See `kernels::KernelFn`; needs AVX-512F.
    #[target_feature(enable = "avx512f")]
    read_avx512,
    |x, n| {
    let chunks = n / 64;
    let mut lanes = [0.0f64; 8];
    if chunks > 0 {
        std::arch::asm!(
            ".irp k,0,1,2,3,4,5,6,7", "vpxorq zmm\\k, zmm\\k, zmm\\k", ".endr",
            ".p2align 5",
            "2:",
            ".irp k,0,1,2,3,4,5,6,7", "vaddpd zmm\\k, zmm\\k, [{x} + 64*\\k]", ".endr",
            "add {x}, 512",
            "dec {n}",
            "jnz 2b",
            // Tree-add the accumulators into zmm0 so only 8 lanes are summed in Rust:
            // with small (L1) arrays this epilogue runs once per pass.
            "vaddpd zmm0, zmm0, zmm1",
            "vaddpd zmm2, zmm2, zmm3",
            "vaddpd zmm4, zmm4, zmm5",
            "vaddpd zmm6, zmm6, zmm7",
            "vaddpd zmm0, zmm0, zmm2",
            "vaddpd zmm4, zmm4, zmm6",
            "vaddpd zmm0, zmm0, zmm4",
            "vmovupd [{o}], zmm0",
            "vzeroupper",
            x = inout(reg) x => _,
            n = inout(reg) chunks => _,
            o = in(reg) lanes.as_mut_ptr(),
            out("zmm0") _, out("zmm1") _, out("zmm2") _, out("zmm3") _,
            out("zmm4") _, out("zmm5") _, out("zmm6") _, out("zmm7") _,
            options(nostack),
        );
    }
    let mut total = ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3]))
        + ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7]));
    for i in chunks * 64..n {
        total += *x.add(i);
    }
    total
});
