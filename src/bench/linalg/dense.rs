//! The dense work behind `peakbench linalg`: matrices filled like HPL's (uniform in
//! [-0.5, 0.5), from a seed), GEMM and the HPL-style solve through `faer`, and the checks
//! that prove each call did its work.
//!
//! Why `faer`: it is the maintained, pure-Rust dense linear algebra library with
//! hand-tuned, runtime-dispatched SIMD GEMM kernels (AVX2/FMA and AVX-512 on x86-64,
//! NEON on aarch64) and a blocked, recursive LU with partial pivoting, parallel over a
//! rayon pool we size and pin ourselves. It needs no system BLAS (unlike the `blas` /
//! `lapack` bindings, whose speed would be whichever OpenBLAS/MKL the machine links,
//! i.e. the reference tool's own library), builds with cargo alone, and its speed is
//! close to OpenBLAS/MKL in published comparisons, so the figure is what Rust code can
//! reach, next to hpcc's OpenBLAS.
//!
//! Checks (a failed check is a failed result, never a number):
//! - GEMM: Freivalds' test, `‖C·v − A·(B·v)‖∞ / (n · ε · ‖A‖∞ ‖B‖∞ ‖v‖∞) < 16`, two
//!   O(n²) matrix-vector products in f64 with a random `v` instead of an O(n³) second
//!   multiply;
//! - LU: HPL's scaled residual `‖A·x − b‖∞ / (ε · (‖A‖∞ ‖x‖∞ + ‖b‖∞) · n) < 16`,
//!   computed in f64 with ε of the working precision.
//!
//! A result holding a non-finite element (NaN, ±Inf) fails either check whatever the
//! rest holds: both return NaN then ([`NON_FINITE`]), and every maximum here keeps a
//! NaN (`f64::max` drops it: a library writing NaN into all of C once passed Freivalds
//! with 0.0, #33).

use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::lu::partial_pivoting::{factor, solve};
use faer::perm::PermRef;
use faer::{Accum, Mat, MatMut, MatRef, Par};

/// HPL's threshold on the scaled residual (its default `16.0` in `HPL.dat`).
pub(crate) const THRESHOLD: f64 = 16.0;

/// What a check returns for a result holding NaN or ±Inf (callers treat NaN as failed).
pub(crate) const NON_FINITE: f64 = f64::NAN;

/// The largest of `xs` by absolute value, NaN as soon as one is NaN (`f64::max` would
/// drop it); 0 for none.
fn max_abs(xs: impl IntoIterator<Item = f64>) -> f64 {
    let mut m = 0.0f64;
    for x in xs {
        let a = x.abs();
        if a.is_nan() {
            return f64::NAN;
        }
        if a > m {
            m = a;
        }
    }
    m
}

/// Whether every element of `m` is finite.
fn all_finite<T: Real>(m: MatRef<'_, T>) -> bool {
    (0..m.ncols()).all(|j| (0..m.nrows()).all(|i| m[(i, j)].f64().is_finite()))
}

/// A floating-point element type the routines run in (f64 or f32).
pub(crate) trait Real: faer::traits::RealField + Copy + Send + Sync + 'static {
    /// Machine epsilon (HPL's ε: the unit roundoff times 2, as `f64::EPSILON`).
    const EPS: f64;
    /// Bytes per element.
    const BYTES: usize;
    /// From f64 (rounded).
    fn of(x: f64) -> Self;
    /// To f64 (exact).
    fn f64(self) -> f64;
}

impl Real for f64 {
    const EPS: f64 = f64::EPSILON;
    const BYTES: usize = 8;
    fn of(x: f64) -> Self {
        x
    }
    fn f64(self) -> f64 {
        self
    }
}

impl Real for f32 {
    const EPS: f64 = f32::EPSILON as f64;
    const BYTES: usize = 4;
    fn of(x: f64) -> Self {
        x as f32
    }
    fn f64(self) -> f64 {
        f64::from(self)
    }
}

/// A value in [-0.5, 0.5) from `(seed, index)`: splitmix64, so any element can be made
/// on its own (and a matrix in any order) with the same result.
pub(crate) fn uniform(seed: u64, index: u64) -> f64 {
    let mut z = seed
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .wrapping_add(index)
        .wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    (z >> 11) as f64 / (1u64 << 53) as f64 - 0.5
}

/// An n×m matrix of [`uniform`] values (column-major, like HPL's).
pub(crate) fn random<T: Real>(rows: usize, cols: usize, seed: u64) -> Mat<T> {
    Mat::from_fn(rows, cols, |i, j| {
        T::of(uniform(seed, (j * rows + i) as u64))
    })
}

/// `‖A‖∞`: the largest row sum of absolute values.
pub(crate) fn norm_inf<T: Real>(a: MatRef<'_, T>) -> f64 {
    let mut rows = vec![0.0f64; a.nrows()];
    for j in 0..a.ncols() {
        for (i, r) in rows.iter_mut().enumerate() {
            *r += a[(i, j)].f64().abs();
        }
    }
    max_abs(rows)
}

/// `‖v‖∞`.
fn vec_inf(v: &[f64]) -> f64 {
    max_abs(v.iter().copied())
}

/// `A·v` in f64 (column by column, so the matrix is read in memory order).
pub(crate) fn matvec<T: Real>(a: MatRef<'_, T>, v: &[f64]) -> Vec<f64> {
    let mut y = vec![0.0f64; a.nrows()];
    for (j, &vj) in v.iter().enumerate().take(a.ncols()) {
        for (i, yi) in y.iter_mut().enumerate() {
            *yi += a[(i, j)].f64() * vj;
        }
    }
    y
}

/// `C = A·B` with the library's kernels and `par` (its parallelism, within the
/// caller's rayon pool).
pub(crate) fn gemm<T: Real>(c: MatMut<'_, T>, a: MatRef<'_, T>, b: MatRef<'_, T>, par: Par) {
    faer::linalg::matmul::matmul(c, Accum::Replace, a, b, T::of(1.0), par);
}

/// Freivalds' check of `C = A·B`: the scaled difference of `C·v` and `A·(B·v)` (see the
/// module doc); below [`THRESHOLD`] when `C` is the product, [`NON_FINITE`] when `C`
/// holds NaN or ±Inf.
pub(crate) fn gemm_check<T: Real>(
    a: MatRef<'_, T>,
    b: MatRef<'_, T>,
    c: MatRef<'_, T>,
    seed: u64,
) -> f64 {
    if !all_finite(c) {
        return NON_FINITE;
    }
    let n = a.ncols();
    let v: Vec<f64> = (0..b.ncols())
        .map(|i| uniform(seed ^ 0xF00D, i as u64))
        .collect();
    let cv = matvec(c, &v);
    let abv = matvec(a, &matvec(b, &v));
    let diff: Vec<f64> = cv.iter().zip(&abv).map(|(x, y)| x - y).collect();
    let scale = n.max(1) as f64 * T::EPS * norm_inf(a) * norm_inf(b) * vec_inf(&v);
    if scale == 0.0 {
        return if vec_inf(&diff) == 0.0 {
            0.0
        } else {
            f64::INFINITY
        };
    }
    vec_inf(&diff) / scale
}

/// The LU workspace of one order: the factorised matrix, the permutation and the
/// library's scratch, reused from call to call.
pub(crate) struct LuSolver<T: Real> {
    /// The matrix being factorised in place (overwritten by L and U).
    pub lu: Mat<T>,
    /// The right-hand side, overwritten by the solution.
    pub x: Mat<T>,
    fwd: Vec<usize>,
    bwd: Vec<usize>,
    scratch: MemBuffer,
}

impl<T: Real> LuSolver<T> {
    /// A workspace for order `n`.
    pub(crate) fn new(n: usize, par: Par) -> LuSolver<T> {
        let req = factor::lu_in_place_scratch::<usize, T>(n, n, par, Default::default())
            .or(solve::solve_in_place_scratch::<usize, T>(n, 1, par));
        LuSolver {
            lu: Mat::zeros(n, n),
            x: Mat::zeros(n, 1),
            fwd: vec![0; n],
            bwd: vec![0; n],
            scratch: MemBuffer::new(req),
        }
    }

    /// Copies `a` and `b` into the workspace (not part of the timed solve).
    pub(crate) fn load(&mut self, a: MatRef<'_, T>, b: MatRef<'_, T>) {
        self.lu.copy_from(a);
        self.x.copy_from(b);
    }

    /// Solves the loaded system in place: LU with partial pivoting, then the two
    /// triangular solves (the timed part, HPL's 2/3 n³ + 2 n² FLOP).
    pub(crate) fn solve(&mut self, par: Par) {
        let stack = MemStack::new(&mut self.scratch);
        let (_, perm) = factor::lu_in_place(
            self.lu.as_mut(),
            &mut self.fwd,
            &mut self.bwd,
            par,
            stack,
            Default::default(),
        );
        let perm: PermRef<'_, usize> = perm;
        let stack = MemStack::new(&mut self.scratch);
        solve::solve_in_place(
            self.lu.as_ref(),
            self.lu.as_ref(),
            perm,
            self.x.as_mut(),
            par,
            stack,
        );
    }
}

/// HPL's scaled residual of `x` as a solution of `A·x = b` (see the module doc);
/// [`NON_FINITE`] when `x` holds NaN or ±Inf.
pub(crate) fn lu_residual<T: Real>(a: MatRef<'_, T>, x: MatRef<'_, T>, b: MatRef<'_, T>) -> f64 {
    if !all_finite(x) {
        return NON_FINITE;
    }
    let n = a.nrows();
    let xv: Vec<f64> = (0..n).map(|i| x[(i, 0)].f64()).collect();
    let bv: Vec<f64> = (0..n).map(|i| b[(i, 0)].f64()).collect();
    let ax = matvec(a, &xv);
    let r = max_abs(ax.iter().zip(&bv).map(|(p, q)| p - q));
    let scale = T::EPS * (norm_inf(a) * vec_inf(&xv) + vec_inf(&bv)) * n.max(1) as f64;
    if scale == 0.0 {
        return if r == 0.0 { 0.0 } else { f64::INFINITY };
    }
    r / scale
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The textbook triple loop, in f64.
    fn naive(a: MatRef<'_, f64>, b: MatRef<'_, f64>) -> Mat<f64> {
        let n = a.nrows();
        Mat::from_fn(n, b.ncols(), |i, j| {
            (0..a.ncols()).map(|k| a[(i, k)] * b[(k, j)]).sum()
        })
    }

    #[test]
    fn uniform_values_stay_in_range_and_are_reproducible() {
        let v: Vec<f64> = (0..10_000).map(|i| uniform(7, i)).collect();
        assert!(v.iter().all(|x| (-0.5..0.5).contains(x)));
        let mean = v.iter().sum::<f64>() / v.len() as f64;
        assert!(mean.abs() < 0.02, "{mean}");
        assert_eq!(uniform(7, 3), v[3]);
        assert_ne!(uniform(8, 3), v[3]);
    }

    #[test]
    fn gemm_matches_the_naive_product_within_rounding() {
        for (n, par) in [
            (1, Par::Seq),
            (17, Par::Seq),
            (64, Par::rayon(2)),
            (129, Par::rayon(2)),
        ] {
            let a = random::<f64>(n, n, 1);
            let b = random::<f64>(n, n, 2);
            let mut c = Mat::<f64>::zeros(n, n);
            gemm(c.as_mut(), a.as_ref(), b.as_ref(), par);
            let want = naive(a.as_ref(), b.as_ref());
            // Each element is a sum of n products of |x| ≤ 1/4: rounding is below n·ε/4
            // per element, far below this bound.
            for j in 0..n {
                for i in 0..n {
                    let d = (c[(i, j)] - want[(i, j)]).abs();
                    assert!(d <= n as f64 * f64::EPSILON, "n={n} ({i},{j}): {d}");
                }
            }
            assert!(gemm_check(a.as_ref(), b.as_ref(), c.as_ref(), 3) < THRESHOLD);
            // In f64 an element off by 1e-6 is caught.
            c[(n / 2, n / 3)] += 1e-6;
            assert!(
                gemm_check(a.as_ref(), b.as_ref(), c.as_ref(), 3) > THRESHOLD,
                "n={n}"
            );
        }
    }

    #[test]
    fn gemm_f32_passes_its_check_and_a_wrong_product_fails_it() {
        let n = 100;
        let a = random::<f32>(n, n, 1);
        let b = random::<f32>(n, n, 2);
        let mut c = Mat::<f32>::zeros(n, n);
        gemm(c.as_mut(), a.as_ref(), b.as_ref(), Par::Seq);
        assert!(gemm_check(a.as_ref(), b.as_ref(), c.as_ref(), 3) < THRESHOLD);
        // One element off by 1 (elements are about ±1 here) is caught; the bound uses
        // norms, so in f32 it tolerates up to about n·ε·‖A‖‖B‖‖v‖ ≈ 4e-3.
        let mut wrong = c.clone();
        wrong[(5, 7)] += 1.0;
        assert!(gemm_check(a.as_ref(), b.as_ref(), wrong.as_ref(), 3) > THRESHOLD);
        // A product never computed (zeros) is caught.
        let z = Mat::<f32>::zeros(n, n);
        assert!(gemm_check(a.as_ref(), b.as_ref(), z.as_ref(), 3) > THRESHOLD);
    }

    #[test]
    fn lu_solves_to_a_small_residual_and_a_wrong_solution_fails() {
        for (n, par) in [(1, Par::Seq), (50, Par::Seq), (300, Par::rayon(2))] {
            let a = random::<f64>(n, n, 11);
            let b = random::<f64>(n, 1, 12);
            let mut s = LuSolver::<f64>::new(n, par);
            s.load(a.as_ref(), b.as_ref());
            s.solve(par);
            let r = lu_residual(a.as_ref(), s.x.as_ref(), b.as_ref());
            assert!(r < THRESHOLD, "n={n}: residual {r}");
            // The same workspace solves again from a fresh copy.
            s.load(a.as_ref(), b.as_ref());
            s.solve(par);
            assert!(lu_residual(a.as_ref(), s.x.as_ref(), b.as_ref()) < THRESHOLD);
            // Perturbing x far beyond rounding is caught.
            s.x[(0, 0)] += 1e-6;
            assert!(lu_residual(a.as_ref(), s.x.as_ref(), b.as_ref()) > THRESHOLD);
        }
        let n = 200;
        let a = random::<f32>(n, n, 11);
        let b = random::<f32>(n, 1, 12);
        let mut s = LuSolver::<f32>::new(n, Par::Seq);
        s.load(a.as_ref(), b.as_ref());
        s.solve(Par::Seq);
        assert!(lu_residual(a.as_ref(), s.x.as_ref(), b.as_ref()) < THRESHOLD);
    }

    #[test]
    fn a_non_finite_element_fails_both_checks() {
        let n = 40;
        let a = random::<f64>(n, n, 1);
        let b = random::<f64>(n, n, 2);
        let mut c = Mat::<f64>::zeros(n, n);
        gemm(c.as_mut(), a.as_ref(), b.as_ref(), Par::Seq);
        assert!(gemm_check(a.as_ref(), b.as_ref(), c.as_ref(), 3) < THRESHOLD);
        for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            let mut one = c.clone();
            one[(3, 5)] = bad;
            assert!(gemm_check(a.as_ref(), b.as_ref(), one.as_ref(), 3).is_nan());
            let all = Mat::<f64>::from_fn(n, n, |_, _| bad);
            assert!(gemm_check(a.as_ref(), b.as_ref(), all.as_ref(), 3).is_nan());
        }
        let rhs = random::<f64>(n, 1, 12);
        let mut s = LuSolver::<f64>::new(n, Par::Seq);
        s.load(a.as_ref(), rhs.as_ref());
        s.solve(Par::Seq);
        assert!(lu_residual(a.as_ref(), s.x.as_ref(), rhs.as_ref()) < THRESHOLD);
        for bad in [f64::NAN, f64::INFINITY] {
            let mut x = s.x.clone();
            x[(7, 0)] = bad;
            assert!(lu_residual(a.as_ref(), x.as_ref(), rhs.as_ref()).is_nan());
        }
        // NaN in a norm is kept, not dropped.
        assert!(max_abs([1.0, f64::NAN, 2.0]).is_nan());
        assert_eq!(max_abs([1.0, -3.0, 2.0]), 3.0);
    }

    #[test]
    fn norms() {
        let a = Mat::from_fn(2, 2, |i, j| [[1.0, -2.0], [3.0, 0.5]][i][j]);
        assert_eq!(norm_inf(a.as_ref()), 3.5);
        assert_eq!(matvec(a.as_ref(), &[1.0, 1.0]), vec![-1.0, 3.5]);
    }
}
