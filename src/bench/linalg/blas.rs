//! A BLAS/LAPACK library loaded at run time (`dlopen` through `libloading`), never
//! linked: the one module of `peakbench linalg` with foreign calls.
//!
//! What is called, in the LP64 Fortran ABI every BLAS exports (32-bit integers, every
//! argument by pointer, column-major arrays, and gfortran's hidden `size_t` length after
//! the arguments for each `CHARACTER` argument, passed even to libraries written in C,
//! where the extra trailing arguments are ignored under the x86-64 and AArch64 C ABIs):
//! `dgemm_`/`sgemm_` for GEMM, `dgetrf_`/`sgetrf_` then `dgetrs_`/`sgetrs_` for the
//! solve. Orders beyond `i32::MAX` are refused before any call.
//!
//! Every library family peakbench knows is one row of [`KNOWN`] (`blas_known.rs`): its `--blas` name, the
//! files tried for it, the symbol that tells it apart, its thread-count call, how its
//! version is read and how to install it. Adding a BLAS backend is one row there (and,
//! when the library has a version call, the function that reads it). What is read to
//! name the library: the row's version call (`openblas_get_config` +
//! `openblas_get_corename`, `bli_info_get_version_str` +
//! `bli_arch_string(bli_arch_query_id())`, `MKL_Get_Version_String`,
//! `flexiblas_get_version` + `flexiblas_current_backend`), and LAPACK's `ilaver_` where
//! there is one. The thread count is set with the row's call and read back where the
//! library can say it.
//!
//! A library stays loaded until the process ends: unloading OpenBLAS or an OpenMP
//! runtime while their worker threads exist crashes the process.
//!
//! Every call into the library (its initialisers at `dlopen` too) is armed with
//! [`crate::util::foreign::arm`]: a library that calls `exit()` inside it is reported,
//! naming the routine and the file, and the exit status is 1, never the library's 0.

pub(crate) use super::blas_known::{known, Known, KNOWN};
use super::blas_known::{sym, text, ThreadCall, Version, NO_THREAD_CALL};
use super::dense::Real;
use faer::{MatMut, MatRef};
use std::ffi::{c_char, c_int, c_void};
use std::mem::ManuallyDrop;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// `?gemm_`: `C = alpha·op(A)·op(B) + beta·C`.
type GemmFn<T> = unsafe extern "C" fn(
    *const c_char,
    *const c_char,
    *const c_int,
    *const c_int,
    *const c_int,
    *const T,
    *const T,
    *const c_int,
    *const T,
    *const c_int,
    *const T,
    *mut T,
    *const c_int,
    usize,
    usize,
);
/// `?getrf_`: LU with partial pivoting in place.
type GetrfFn<T> =
    unsafe extern "C" fn(*const c_int, *const c_int, *mut T, *const c_int, *mut c_int, *mut c_int);
/// `?getrs_`: solves with the factors of `?getrf_`.
type GetrsFn<T> = unsafe extern "C" fn(
    *const c_char,
    *const c_int,
    *const c_int,
    *const T,
    *const c_int,
    *const c_int,
    *mut T,
    *const c_int,
    *mut c_int,
    usize,
);
/// `int f(void)` / `void f(int)`: thread-count calls.
type GetIntFn = unsafe extern "C" fn() -> c_int;
type SetIntFn = unsafe extern "C" fn(c_int);
/// BLIS's `dim_t` is 64-bit.
type GetDimFn = unsafe extern "C" fn() -> i64;
type SetDimFn = unsafe extern "C" fn(i64);

/// The routines of one precision a library exports.
pub(crate) struct Fns<T> {
    gemm: Option<GemmFn<T>>,
    getrf: Option<GetrfFn<T>>,
    getrs: Option<GetrsFn<T>>,
}

/// How a thread-count call went.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Threads {
    /// Set with the library's call; the count it reports afterwards, where it has one.
    Set {
        /// The call used.
        call: &'static str,
        /// The count read back.
        read_back: Option<i64>,
    },
    /// The library has no thread-count call: it ignores the setting.
    Ignored(String),
}

/// A BLAS (and maybe LAPACK) library loaded with `dlopen`.
pub(crate) struct Library {
    /// The family told by the symbols (its row).
    pub kind: &'static Known,
    /// The file it came from (canonical path).
    pub file: PathBuf,
    /// Its version/configuration string(s), as the library reports them.
    pub version: String,
    /// The file as the exit hook names it (sanitised).
    label: Arc<str>,
    d: Fns<f64>,
    s: Fns<f32>,
    set_int: Option<(&'static str, SetIntFn)>,
    get_int: Option<GetIntFn>,
    set_dim: Option<(&'static str, SetDimFn)>,
    get_dim: Option<GetDimFn>,
    /// Kept loaded for the life of the process (see the module doc).
    _lib: ManuallyDrop<libloading::Library>,
}

/// An element type with BLAS/LAPACK routines (`d` or `s` prefix).
pub(crate) trait Elem: Real {
    /// The names of this precision's GEMM, LU factorisation and solve.
    const NAMES: [&'static str; 3];
    /// This precision's routines in `lib`.
    #[doc(hidden)]
    fn fns(lib: &Library) -> &Fns<Self>;
}

impl Elem for f64 {
    const NAMES: [&'static str; 3] = ["dgemm_", "dgetrf_", "dgetrs_"];
    fn fns(lib: &Library) -> &Fns<f64> {
        &lib.d
    }
}

impl Elem for f32 {
    const NAMES: [&'static str; 3] = ["sgemm_", "sgetrf_", "sgetrs_"];
    fn fns(lib: &Library) -> &Fns<f32> {
        &lib.s
    }
}

/// The file a symbol at `addr` was loaded from (`dladdr`), canonical.
fn file_of(addr: *const c_void) -> Option<PathBuf> {
    // SAFETY: `Dl_info` is pointers and integers, for which all zeroes is valid.
    let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
    // SAFETY: `dladdr` only reads the loader's tables; `info` is plain data it fills.
    if unsafe { libc::dladdr(addr, &mut info) } == 0 || info.dli_fname.is_null() {
        return None;
    }
    // SAFETY: `dli_fname` is the loader's NUL-terminated path of the object.
    let name = unsafe { text(info.dli_fname) }?;
    Some(std::fs::canonicalize(&name).unwrap_or_else(|_| PathBuf::from(name)))
}

impl Library {
    /// Loads `name` (a soname searched like `dlopen` does, or a path). `Err` says why
    /// not: not found/loadable, or not a BLAS (no `dgemm_` nor `sgemm_`).
    pub(crate) fn load(name: &Path) -> Result<Library, BlasLoadError> {
        let asked: Arc<str> = Arc::from(crate::util::sanitize::line(&name.display().to_string()));
        let lib = {
            let _armed = crate::util::foreign::arm("its initialisers (dlopen)", &asked);
            // SAFETY: loading runs the library's initialisers; a BLAS's only start its
            // thread pool. Which file is loaded is the user's choice or a known BLAS name.
            unsafe { libloading::Library::new(name.as_os_str()) }
        }
        .map_err(|e| BlasLoadError::NotFound(e.to_string()))?;
        // SAFETY: each type is the symbol's documented C or Fortran prototype (LP64:
        // `int` is 32-bit), see the type aliases above.
        let d: Fns<f64> = unsafe {
            Fns {
                gemm: sym(&lib, "dgemm_"),
                getrf: sym(&lib, "dgetrf_"),
                getrs: sym(&lib, "dgetrs_"),
            }
        };
        // SAFETY: as for `d`: the single-precision routines' documented prototypes.
        let s: Fns<f32> = unsafe {
            Fns {
                gemm: sym(&lib, "sgemm_"),
                getrf: sym(&lib, "sgetrf_"),
                getrs: sym(&lib, "sgetrs_"),
            }
        };
        let Some(addr) = d
            .gemm
            .map(|f| f as *const c_void)
            .or(s.gemm.map(|f| f as *const c_void))
        else {
            return Err(BlasLoadError::NotBlas);
        };
        let file = file_of(addr).unwrap_or_else(|| name.to_path_buf());
        // SAFETY: only the symbol's presence is read (as a data pointer, never called).
        let has = |n: &str| unsafe { sym::<*const c_void>(&lib, n) }.is_some();
        let kind = KNOWN
            .iter()
            .find(|k| k.tells(&has, &file))
            .expect("one row of KNOWN takes any BLAS");
        let label: Arc<str> = Arc::from(crate::util::sanitize::line(&file.display().to_string()));
        let armed = crate::util::foreign::arm("its version calls", &label);
        let mut version = match kind.version {
            Version::Fixed(v) => v.to_string(),
            // SAFETY: `kind` was told by the library's own symbols just above.
            Version::Call(f) => unsafe { f(&lib) },
        };
        // LAPACK's own version, where the file has LAPACK.
        type Ilaver = unsafe extern "C" fn(*mut c_int, *mut c_int, *mut c_int);
        // SAFETY: LAPACK's `SUBROUTINE ILAVER(VERS_MAJOR, VERS_MINOR, VERS_PATCH)`.
        if let Some(f) = unsafe { sym::<Ilaver>(&lib, "ilaver_") } {
            let (mut a, mut b, mut c) = (0, 0, 0);
            // SAFETY: ilaver_ writes three integers through the pointers.
            unsafe { f(&mut a, &mut b, &mut c) };
            version.push_str(&format!("; LAPACK {a}.{b}.{c}"));
        }
        drop(armed);
        // SAFETY: the thread calls' prototypes, as above.
        let (set_int, get_int, set_dim, get_dim) = unsafe {
            match kind.threads {
                ThreadCall::Int { set, get } => (
                    sym::<SetIntFn>(&lib, set).map(|f| (set, f)),
                    sym::<GetIntFn>(&lib, get),
                    None,
                    None,
                ),
                ThreadCall::Dim { set, get } => (
                    None,
                    None,
                    sym::<SetDimFn>(&lib, set).map(|f| (set, f)),
                    sym::<GetDimFn>(&lib, get),
                ),
                ThreadCall::None(_) => (None, None, None, None),
            }
        };
        Ok(Library {
            kind,
            file,
            version,
            label,
            d,
            s,
            set_int,
            get_int,
            set_dim,
            get_dim,
            _lib: ManuallyDrop::new(lib),
        })
    }

    /// Whether the library has GEMM in `T`.
    pub(crate) fn has_gemm<T: Elem>(&self) -> bool {
        T::fns(self).gemm.is_some()
    }

    /// Whether the library has the LU factorisation and solve in `T`.
    pub(crate) fn has_lu<T: Elem>(&self) -> bool {
        let f = T::fns(self);
        f.getrf.is_some() && f.getrs.is_some()
    }

    /// Sets the library's thread count to `t` with its own call.
    pub(crate) fn set_threads(&self, t: usize) -> Threads {
        let t32 = c_int::try_from(t).unwrap_or(c_int::MAX);
        let _armed = crate::util::foreign::arm("its thread-count call", &self.label);
        if let Some((call, f)) = self.set_int {
            // SAFETY: the library's `void f(int)` thread-count call.
            unsafe { f(t32) };
            // SAFETY: its `int f(void)` counterpart.
            let read_back = self.get_int.map(|g| i64::from(unsafe { g() }));
            return Threads::Set { call, read_back };
        }
        if let Some((call, f)) = self.set_dim {
            // SAFETY: BLIS's `void bli_thread_set_num_threads(dim_t)`.
            unsafe { f(t as i64) };
            // SAFETY: its `dim_t bli_thread_get_num_threads(void)`.
            let read_back = self.get_dim.map(|g| unsafe { g() });
            return Threads::Set { call, read_back };
        }
        Threads::Ignored(match self.kind.threads {
            ThreadCall::None(why) => why.into(),
            _ => NO_THREAD_CALL.into(),
        })
    }

    /// `C = A·B` (square or not; every matrix column-major with unit row stride).
    pub(crate) fn gemm<T: Elem>(
        &self,
        c: MatMut<'_, T>,
        a: MatRef<'_, T>,
        b: MatRef<'_, T>,
    ) -> Result<(), CallError> {
        let f = T::fns(self).gemm.ok_or(CallError::Missing("gemm"))?;
        let (m, k, n) = (a.nrows(), a.ncols(), b.ncols());
        if b.nrows() != k || c.nrows() != m || c.ncols() != n {
            return Err(CallError::Shape);
        }
        let (mi, ni, ki) = (int(m)?, int(n)?, int(k)?);
        let (lda, ldb, ldc) = (
            ld(a.row_stride(), a.col_stride(), m)?,
            ld(b.row_stride(), b.col_stride(), k)?,
            ld(c.row_stride(), c.col_stride(), m)?,
        );
        let (one, zero) = (T::of(1.0), T::of(0.0));
        let tr = b"N".as_ptr().cast::<c_char>();
        let _armed = crate::util::foreign::arm(T::NAMES[0], &self.label);
        // SAFETY: the dimensions and leading dimensions describe the three matrices
        // exactly (checked above: unit row stride, column stride ≥ rows, all fitting in
        // `int`); `c` is borrowed mutably and distinct from `a` and `b`; the two hidden
        // lengths are those of the one-character strings "N".
        unsafe {
            f(
                tr,
                tr,
                &mi,
                &ni,
                &ki,
                &one,
                a.as_ptr(),
                &lda,
                b.as_ptr(),
                &ldb,
                &zero,
                c.as_ptr_mut(),
                &ldc,
                1,
                1,
            )
        };
        Ok(())
    }

    /// Solves `A·x = b` in place: `a` is overwritten by its LU factors, `x` holds `b`
    /// on entry and the solution on return; `ipiv` has `n` entries.
    pub(crate) fn lu_solve<T: Elem>(
        &self,
        a: MatMut<'_, T>,
        ipiv: &mut [c_int],
        x: MatMut<'_, T>,
    ) -> Result<(), CallError> {
        let fns = T::fns(self);
        let getrf = fns.getrf.ok_or(CallError::Missing("getrf"))?;
        let getrs = fns.getrs.ok_or(CallError::Missing("getrs"))?;
        let n = a.nrows();
        if a.ncols() != n || x.nrows() != n || ipiv.len() < n {
            return Err(CallError::Shape);
        }
        let (ni, nrhs) = (int(n)?, int(x.ncols())?);
        let lda = ld(a.row_stride(), a.col_stride(), n)?;
        let ldb = ld(x.row_stride(), x.col_stride(), n)?;
        let mut info: c_int = 0;
        let ap = a.as_ptr_mut();
        let armed = crate::util::foreign::arm(T::NAMES[1], &self.label);
        // SAFETY: `a` is n×n with leading dimension `lda` (checked), borrowed mutably;
        // `ipiv` holds at least n ints; getrf writes only these.
        unsafe { getrf(&ni, &ni, ap, &lda, ipiv.as_mut_ptr(), &mut info) };
        drop(armed);
        if info != 0 {
            return Err(CallError::Info("getrf", info));
        }
        let tr = b"N".as_ptr().cast::<c_char>();
        let _armed = crate::util::foreign::arm(T::NAMES[2], &self.label);
        // SAFETY: the factors and pivots getrf just wrote; `x` is n×nrhs with leading
        // dimension `ldb`, borrowed mutably; the hidden length is that of "N".
        unsafe {
            getrs(
                tr,
                &ni,
                &nrhs,
                ap,
                &lda,
                ipiv.as_ptr(),
                x.as_ptr_mut(),
                &ldb,
                &mut info,
                1,
            )
        };
        if info != 0 {
            return Err(CallError::Info("getrs", info));
        }
        Ok(())
    }
}

/// `n` as a Fortran `int`.
fn int(n: usize) -> Result<c_int, CallError> {
    c_int::try_from(n).map_err(|_| CallError::TooLarge(n))
}

/// The leading dimension of a column-major matrix with `rows` rows and these strides
/// (unit row stride, column stride at least the rows).
fn ld(row_stride: isize, col_stride: isize, rows: usize) -> Result<c_int, CallError> {
    if rows > 1 && row_stride != 1 {
        return Err(CallError::Shape);
    }
    let cs = usize::try_from(col_stride).map_err(|_| CallError::Shape)?;
    int(cs.max(rows).max(1))
}

/// Why a library could not be loaded.
#[derive(Debug, thiserror::Error)]
pub(crate) enum BlasLoadError {
    /// `dlopen` failed (not installed, or not a loadable library).
    #[error("cannot load: {0}")]
    NotFound(String),
    /// Loaded, but it exports neither `dgemm_` nor `sgemm_`.
    #[error("not a BLAS: it exports neither dgemm_ nor sgemm_")]
    NotBlas,
}

/// Why a call was not made or failed.
#[derive(Debug, thiserror::Error)]
pub(crate) enum CallError {
    /// The routine is not in the library.
    #[error("the library has no {0}")]
    Missing(&'static str),
    /// The matrices do not fit the call (a bug on our side, never the library's).
    #[error("matrix shapes or strides do not fit a column-major BLAS call")]
    Shape,
    /// An order beyond the 32-bit (LP64) interface.
    #[error("n={0} is beyond the LP64 interface's 32-bit integers")]
    TooLarge(usize),
    /// LAPACK's `info` was not 0.
    #[error("{0} returned info={1}")]
    Info(&'static str, c_int),
}

/// Restricts the calling thread to a set of CPUs until dropped, then restores its
/// mask: a library called from it runs there, and the threads it creates meanwhile
/// inherit the set.
pub(crate) struct Affinity {
    old: Option<libc::cpu_set_t>,
}

impl Affinity {
    /// Restricts the calling thread to `cpus` (nothing when empty or out of range).
    pub(crate) fn restrict(cpus: &[usize]) -> Affinity {
        let size = std::mem::size_of::<libc::cpu_set_t>();
        if cpus.is_empty() || cpus.iter().any(|&c| c >= 8 * size) {
            return Affinity { old: None };
        }
        // SAFETY: cpu_set_t is plain data; every CPU index was bounds-checked above;
        // the calls only read or set the calling thread's (pid 0) mask.
        unsafe {
            let mut old: libc::cpu_set_t = std::mem::zeroed();
            if libc::sched_getaffinity(0, size, &mut old) != 0 {
                return Affinity { old: None };
            }
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            for &c in cpus {
                libc::CPU_SET(c, &mut set);
            }
            if libc::sched_setaffinity(0, size, &set) != 0 {
                return Affinity { old: None };
            }
            Affinity { old: Some(old) }
        }
    }
}

impl Drop for Affinity {
    fn drop(&mut self) {
        if let Some(old) = &self.old {
            // SAFETY: restores the mask read in `restrict` on the same thread.
            unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), old) };
        }
    }
}
