//! The BLAS library families peakbench knows, as data: one row of [`KNOWN`] per family
//! (its `--blas` name, the files tried, the symbol or file name that tells it apart, its
//! thread-count call, how its version is read, how to install it), with the calls that
//! read each family's version. Split from `blas.rs` (the loader and the calls), which
//! reads these rows; adding a family is one row here.
//!
//! On 64-bit Arm the vendors' libraries are rows too: Arm Performance Libraries
//! (`libarmpl_lp64*.so`, told by `armplversion`), NVIDIA NVPL BLAS
//! (`libnvpl_blas_lp64_*.so.0`, told by `nvpl_blas_get_version`, threads by
//! `nvpl_blas_set_num_threads`) and Fujitsu SSL2 (`libfjlapack*.so`, the A64FX's; told by
//! its file name, having no symbol of its own that peakbench knows). They are searched
//! only on aarch64 (`Known::arch`), so `--blas auto` elsewhere neither tries nor lists
//! them; `--blas armpl` by name still says where it looked.

use std::ffi::{c_char, c_int, CStr};

/// `const char *f(void)`.
type StrFn = unsafe extern "C" fn() -> *const c_char;

/// Looks up `name` in `lib` as a `T` (a function pointer type), or `None`.
///
/// # Safety
/// `T` must be the symbol's true type.
pub(super) unsafe fn sym<T: Copy>(lib: &libloading::Library, name: &str) -> Option<T> {
    // SAFETY: the caller names the symbol's type; the pointer is copied out while `lib`
    // stays loaded for the life of the process (ManuallyDrop in `Library`).
    unsafe { lib.get::<T>(name.as_bytes()).ok().map(|s| *s) }
}

/// A C string returned by a library, copied (lossy UTF-8), or `None` for null.
///
/// # Safety
/// `p` must be null or point to a NUL-terminated string.
pub(super) unsafe fn text(p: *const c_char) -> Option<String> {
    if p.is_null() {
        return None;
    }
    // SAFETY: non-null and NUL-terminated per the caller.
    Some(
        unsafe { CStr::from_ptr(p) }
            .to_string_lossy()
            .trim()
            .to_string(),
    )
}

/// One library family peakbench knows: everything the loader, `--blas` and its help need
/// about it. Adding a BLAS backend is one row in [`KNOWN`].
pub(crate) struct Known {
    /// The `--blas` name and row label.
    pub name: &'static str,
    /// The symbol whose presence tells a loaded file is this family (the rows are asked
    /// in order), or `file:NAME` for a family told by its file's name (a library with
    /// no symbol of its own); `None` for the one row that takes any other BLAS, last.
    pub marker: Option<&'static str>,
    /// Sonames (searched like `dlopen`) then paths.
    pub files: &'static [&'static str],
    /// The other families (by name) a file found for this one may be told as.
    pub also: &'static [&'static str],
    /// Install hint.
    pub install: &'static str,
    /// How the thread count is set.
    pub threads: ThreadCall,
    /// How the version is read.
    pub version: Version,
    /// Whether it reads `OPENBLAS_CORETYPE` when loaded (peakbench sets it for the load
    /// from the CPU's features where the environment does not).
    pub coretype: bool,
    /// Why `--blas auto` leaves it out (it runs when named), or `None`.
    pub not_in_auto: Option<&'static str>,
    /// The one architecture the family exists on (`aarch64`), or `None` for any: `auto`
    /// searches it only there.
    pub arch: Option<&'static str>,
}

/// A family's thread-count call.
#[derive(Debug, Clone, Copy)]
pub(crate) enum ThreadCall {
    /// `void set(int)` and `int get(void)`.
    Int {
        /// The setter.
        set: &'static str,
        /// The getter (read back).
        get: &'static str,
    },
    /// `void set(dim_t)` and `dim_t get(void)` (BLIS: 64-bit).
    Dim {
        /// The setter.
        set: &'static str,
        /// The getter (read back).
        get: &'static str,
    },
    /// No call: why the library ignores the setting.
    None(&'static str),
}

/// How a family's version string is read.
#[derive(Clone, Copy)]
pub(crate) enum Version {
    /// The library's own calls, read by this function.
    ///
    /// # Safety
    /// The function may be called only on a library of the row's family.
    Call(unsafe fn(&libloading::Library) -> String),
    /// The library has no version call: this text.
    Fixed(&'static str),
}

/// Why a library without a thread-count call ignores the setting (and any library whose
/// row names a call it does not export).
pub(super) const NO_THREAD_CALL: &str =
    "the library has no thread-count call (the reference BLAS runs on the calling thread alone)";

/// The families `auto` looks for, in the order rows appear (and the order in which a
/// loaded file's symbols are asked).
pub(crate) static KNOWN: [Known; 9] = [
    Known {
        name: "openblas",
        marker: Some("openblas_get_config"),
        files: &[
            "libopenblas.so.0",
            "libopenblasp.so.0",
            "libopenblaso.so.0",
            "libopenblas.so",
            "/usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblas.so.0",
            "/usr/lib/x86_64-linux-gnu/openblas-openmp/libopenblas.so.0",
            "/usr/lib/aarch64-linux-gnu/openblas-pthread/libopenblas.so.0",
            "/usr/lib64/libopenblasp.so.0",
            "/usr/lib64/libopenblas.so.0",
            "/opt/OpenBLAS/lib/libopenblas.so",
        ],
        also: &[],
        install: "apt-get install libopenblas0-pthread (Debian/Ubuntu), dnf install openblas-threads (RHEL, EPEL)",
        threads: ThreadCall::Int {
            set: "openblas_set_num_threads",
            get: "openblas_get_num_threads",
        },
        version: Version::Call(version_openblas),
        coretype: true,
        not_in_auto: None,
        arch: None,
    },
    Known {
        name: "blis",
        marker: Some("bli_info_get_version_str"),
        files: &[
            "libblis.so.4",
            "libblis.so.3",
            "libblis-mt.so.4",
            "libblis.so",
            "/usr/lib/x86_64-linux-gnu/blis-pthread/libblis.so.4",
            "/usr/lib/x86_64-linux-gnu/blis-openmp/libblis.so.4",
            "/usr/lib64/libblis-mt.so.4",
            "/usr/lib64/libblis.so.4",
        ],
        also: &[],
        install: "apt-get install libblis4-pthread (Debian/Ubuntu), dnf install blis (RHEL, EPEL)",
        threads: ThreadCall::Dim {
            set: "bli_thread_set_num_threads",
            get: "bli_thread_get_num_threads",
        },
        version: Version::Call(version_blis),
        coretype: false,
        not_in_auto: None,
        arch: None,
    },
    Known {
        name: "mkl",
        marker: Some("MKL_Get_Version_String"),
        files: &[
            "libmkl_rt.so.2",
            "libmkl_rt.so",
            "/opt/intel/oneapi/mkl/latest/lib/libmkl_rt.so.2",
            "/opt/intel/oneapi/mkl/latest/lib/intel64/libmkl_rt.so.2",
        ],
        also: &[],
        install: "apt-get install libmkl-rt (Debian/Ubuntu, non-free), or Intel oneAPI's intel-oneapi-mkl (RHEL)",
        threads: ThreadCall::Int {
            set: "MKL_Set_Num_Threads",
            get: "MKL_Get_Max_Threads",
        },
        version: Version::Call(version_mkl),
        coretype: false,
        not_in_auto: None,
        arch: None,
    },
    Known {
        name: "flexiblas",
        marker: Some("flexiblas_get_version"),
        files: &["libflexiblas.so.3", "libflexiblas.so"],
        also: &[],
        install: "apt-get install libflexiblas-dev (Debian/Ubuntu), dnf install flexiblas (RHEL)",
        threads: ThreadCall::Int {
            set: "flexiblas_set_num_threads",
            get: "flexiblas_get_num_threads",
        },
        version: Version::Call(version_flexiblas),
        coretype: false,
        not_in_auto: None,
        arch: None,
    },
    Known {
        name: "atlas",
        marker: Some("ATL_buildinfo"),
        files: &[
            "libtatlas.so.3",
            "libsatlas.so.3",
            "/usr/lib64/atlas/libtatlas.so.3",
            "/usr/lib64/atlas/libsatlas.so.3",
            "/usr/lib/x86_64-linux-gnu/atlas/libblas.so.3",
        ],
        // Debian's ATLAS BLAS exports no ATL_buildinfo.
        also: &["reference"],
        install: "apt-get install libatlas3-base (Debian/Ubuntu), dnf install atlas (RHEL)",
        threads: ThreadCall::None("ATLAS fixes its thread count when it is built (libtatlas: every core, libsatlas: one); it has no call to set it"),
        version: Version::Fixed("ATLAS"),
        coretype: false,
        not_in_auto: None,
        arch: None,
    },
    Known {
        name: "armpl",
        marker: Some("armplversion"),
        files: &[
            "libarmpl_lp64_mp.so",
            "libarmpl_lp64.so",
            "/opt/arm/armpl/lib/libarmpl_lp64_mp.so",
            "/opt/arm/armpl/lib/libarmpl_lp64.so",
        ],
        also: &[],
        install: "Arm Performance Libraries from developer.arm.com (a .deb: apt-get install ./arm-performance-libraries_*.deb, then add its lib directory to LD_LIBRARY_PATH)",
        threads: ThreadCall::None("Arm Performance Libraries take their thread count from OpenMP (OMP_NUM_THREADS; the _mp library), and have no call of their own"),
        version: Version::Call(version_armpl),
        coretype: false,
        not_in_auto: None,
        arch: Some("aarch64"),
    },
    Known {
        name: "nvpl",
        marker: Some("nvpl_blas_get_version"),
        files: &[
            "libnvpl_blas_lp64_gomp.so.0",
            "libnvpl_blas_lp64_seq.so.0",
            "/usr/lib/aarch64-linux-gnu/libnvpl_blas_lp64_gomp.so.0",
            "/opt/nvidia/nvpl/lib/libnvpl_blas_lp64_gomp.so.0",
        ],
        also: &[],
        install: "apt-get install nvpl-blas (NVIDIA's CUDA repository for arm64/sbsa), or the NVPL tarball from developer.nvidia.com",
        threads: ThreadCall::Int {
            set: "nvpl_blas_set_num_threads",
            get: "nvpl_blas_get_max_threads",
        },
        version: Version::Call(version_nvpl),
        coretype: false,
        not_in_auto: None,
        arch: Some("aarch64"),
    },
    Known {
        name: "ssl2",
        marker: Some("file:libfjlapack"),
        files: &[
            "libfjlapackexsve.so",
            "libfjlapacksve.so",
            "libfjlapackex.so",
            "libfjlapack.so",
        ],
        also: &[],
        install: "Fujitsu SSL2 comes with Fujitsu's compiler (Technical Computing Suite / Fujitsu Development Studio, no apt-get package): add its lib64 directory to LD_LIBRARY_PATH",
        threads: ThreadCall::None("Fujitsu SSL2's thread-parallel library (libfjlapackex*) takes its thread count from OpenMP (OMP_NUM_THREADS), and has no call of its own"),
        version: Version::Fixed("Fujitsu SSL2"),
        coretype: false,
        not_in_auto: None,
        arch: Some("aarch64"),
    },
    Known {
        name: "reference",
        marker: None,
        files: &[
            "/usr/lib/x86_64-linux-gnu/blas/libblas.so.3",
            "/usr/lib/aarch64-linux-gnu/blas/libblas.so.3",
            "/usr/lib64/libblas.so.3",
        ],
        also: &[],
        install: "apt-get install libblas3 (Debian/Ubuntu), dnf install blas (RHEL)",
        threads: ThreadCall::None(NO_THREAD_CALL),
        version: Version::Fixed("BLAS without a version call"),
        coretype: false,
        // Issue #32 item 6.
        not_in_auto: Some("netlib's reference BLAS is for correctness, not speed (plain loops on one thread: minutes at --n 4096); name it (--blas reference) to run it"),
        arch: None,
    },
];

/// The row named `name` (case as in the table).
pub(crate) fn known(name: &str) -> Option<&'static Known> {
    KNOWN.iter().find(|k| k.name == name)
}

impl Known {
    /// Whether a loaded library told as `kind` is one of this family's.
    pub(crate) fn accepts(&self, kind: &Known) -> bool {
        kind.name == self.name || self.also.contains(&kind.name)
    }

    /// Whether the family exists on the architecture this build runs on.
    pub(crate) fn here(&self) -> bool {
        self.arch.is_none_or(|a| a == std::env::consts::ARCH)
    }

    /// Whether a loaded library is this family: it exports the row's marker symbol
    /// (`has`), or its file's name holds the row's `file:` marker.
    pub(crate) fn tells(&self, has: &dyn Fn(&str) -> bool, file: &std::path::Path) -> bool {
        match self.marker {
            None => true,
            Some(m) => match m.strip_prefix("file:") {
                Some(stem) => file
                    .file_name()
                    .is_some_and(|f| f.to_string_lossy().starts_with(stem)),
                None => has(m),
            },
        }
    }
}

/// OpenBLAS's configuration and kernels.
///
/// # Safety
/// `lib` must be an OpenBLAS (its calls have the documented prototypes).
unsafe fn version_openblas(lib: &libloading::Library) -> String {
    // SAFETY: each symbol is called with its documented prototype; every returned
    // string is the library's own static, NUL-terminated text.
    unsafe {
        let config = sym::<StrFn>(lib, "openblas_get_config").and_then(|f| text(f()));
        let core = sym::<StrFn>(lib, "openblas_get_corename").and_then(|f| text(f()));
        let mut s = config.unwrap_or_else(|| "OpenBLAS".into());
        if let Some(c) = core {
            s.push_str(&format!(" (kernels: {c})"));
        }
        s
    }
}

/// BLIS's version and kernels.
///
/// # Safety
/// `lib` must be a BLIS (its calls have the documented prototypes).
unsafe fn version_blis(lib: &libloading::Library) -> String {
    // SAFETY: each symbol is called with BLIS's documented prototype; every returned
    // string is the library's own static, NUL-terminated text.
    unsafe {
        let v = sym::<StrFn>(lib, "bli_info_get_version_str").and_then(|f| text(f()));
        type ArchId = unsafe extern "C" fn() -> c_int;
        type ArchStr = unsafe extern "C" fn(c_int) -> *const c_char;
        let arch = match (
            sym::<ArchId>(lib, "bli_arch_query_id"),
            sym::<ArchStr>(lib, "bli_arch_string"),
        ) {
            (Some(id), Some(name)) => text(name(id())),
            _ => None,
        };
        format!(
            "BLIS {}{}",
            v.unwrap_or_else(|| "?".into()),
            arch.map_or(String::new(), |a| format!(" (kernels: {a})"))
        )
    }
}

/// oneMKL's version string.
///
/// # Safety
/// `lib` must be a oneMKL (its calls have the documented prototypes).
unsafe fn version_mkl(lib: &libloading::Library) -> String {
    // SAFETY: the symbol is called with oneMKL's documented prototype, on a buffer of
    // ours whose length is passed with it; the text it writes is NUL-terminated.
    unsafe {
        type VerFn = unsafe extern "C" fn(*mut c_char, c_int);
        let mut buf = [0 as c_char; 256];
        match sym::<VerFn>(lib, "MKL_Get_Version_String") {
            Some(f) => {
                f(buf.as_mut_ptr(), buf.len() as c_int - 1);
                text(buf.as_ptr()).unwrap_or_else(|| "Intel oneMKL".into())
            }
            None => "Intel oneMKL".into(),
        }
    }
}

/// FlexiBLAS's version and the backend it switched to.
///
/// # Safety
/// `lib` must be a FlexiBLAS (its calls have the documented prototypes).
unsafe fn version_flexiblas(lib: &libloading::Library) -> String {
    // SAFETY: each symbol is called with FlexiBLAS's documented prototype; the integers
    // and the buffer it writes are ours, the buffer's length passed less one byte, so
    // the zeroed buffer stays NUL-terminated.
    unsafe {
        type VerFn = unsafe extern "C" fn(*mut c_int, *mut c_int, *mut c_int);
        type BackendFn = unsafe extern "C" fn(*mut c_char, usize) -> isize;
        let mut s = String::from("FlexiBLAS");
        if let Some(f) = sym::<VerFn>(lib, "flexiblas_get_version") {
            let (mut a, mut b, mut c) = (0, 0, 0);
            f(&mut a, &mut b, &mut c);
            s.push_str(&format!(" {a}.{b}.{c}"));
        }
        if let Some(f) = sym::<BackendFn>(lib, "flexiblas_current_backend") {
            let mut buf = [0 as c_char; 256];
            if f(buf.as_mut_ptr(), buf.len() - 1) >= 0 {
                if let Some(b) = text(buf.as_ptr()) {
                    s.push_str(&format!(" (backend: {b})"));
                }
            }
        }
        s
    }
}

/// Arm Performance Libraries' version (`armplversion(&major, &minor, &patch, &tag)`).
///
/// # Safety
/// `lib` must be an Arm Performance Libraries build (the call has that prototype).
unsafe fn version_armpl(lib: &libloading::Library) -> String {
    // SAFETY: the symbol is called with its documented prototype; the tag is the
    // library's own static NUL-terminated text.
    unsafe {
        type VerFn = unsafe extern "C" fn(*mut c_int, *mut c_int, *mut c_int, *mut *const c_char);
        let mut s = String::from("Arm Performance Libraries");
        if let Some(f) = sym::<VerFn>(lib, "armplversion") {
            let (mut a, mut b, mut c) = (0, 0, 0);
            let mut tag: *const c_char = std::ptr::null();
            f(&mut a, &mut b, &mut c, &mut tag);
            s.push_str(&format!(" {a}.{b}.{c}"));
            if let Some(t) = text(tag).filter(|t| !t.is_empty()) {
                s.push_str(&format!(" ({t})"));
            }
        }
        s
    }
}

/// NVIDIA NVPL BLAS's version (`int nvpl_blas_get_version(void)`: major × 10000 +
/// minor × 100 + patch).
///
/// # Safety
/// `lib` must be an NVPL BLAS (the call has that prototype).
unsafe fn version_nvpl(lib: &libloading::Library) -> String {
    // SAFETY: the documented prototype, called with no arguments.
    let v = unsafe {
        sym::<unsafe extern "C" fn() -> c_int>(lib, "nvpl_blas_get_version").map(|f| f())
    };
    match v {
        Some(v) if v > 0 => format!("NVPL BLAS {}.{}.{}", v / 10000, v / 100 % 100, v % 100),
        _ => "NVPL BLAS".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    /// Issue #42 item 5: the Arm vendors' libraries are rows, searched on aarch64 only,
    /// before the reference row that takes any BLAS; SSL2 is told by its file's name.
    #[test]
    fn the_arm_vendor_libraries_are_known_on_aarch64() {
        for (name, file) in [
            ("armpl", "libarmpl_lp64_mp.so"),
            ("nvpl", "libnvpl_blas_lp64_gomp.so.0"),
            ("ssl2", "libfjlapackexsve.so"),
        ] {
            let k = known(name).unwrap();
            assert_eq!(k.arch, Some("aarch64"));
            assert_eq!(k.here(), cfg!(target_arch = "aarch64"), "{name}");
            assert!(k.files.contains(&file), "{name}");
        }
        assert!(KNOWN.last().unwrap().marker.is_none());
        let none = |_: &str| false;
        let ssl2 = known("ssl2").unwrap();
        assert!(ssl2.tells(
            &none,
            Path::new("/opt/FJSVxtclanga/lib64/libfjlapackexsve.so")
        ));
        assert!(!ssl2.tells(&none, Path::new("/usr/lib/libopenblas.so.0")));
        let nvpl = known("nvpl").unwrap();
        assert!(nvpl.tells(&|s| s == "nvpl_blas_get_version", Path::new("x.so")));
        assert!(!nvpl.tells(&none, Path::new("libnvpl_blas_lp64_gomp.so.0")));
        assert!(known("openblas").unwrap().here());
    }
}
