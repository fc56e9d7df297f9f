//! What `--blas` names: the built-in faer, every library found (`auto`), a family by
//! name (with the files tried for it and how to install it), or a file. Parsed here,
//! apart from the backends that load them, so the options take it without importing
//! the backends (which take the options' routines).

use super::blas::Family;
use std::path::PathBuf;

/// One `--blas` item, as parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum BlasChoice {
    /// faer and every performance library found (not those in [`NOT_IN_AUTO`]).
    Auto,
    /// faer, built in.
    Faer,
    /// A family by name (one of [`KNOWN`]).
    Named(&'static str),
    /// A file to load.
    Path(PathBuf),
}

/// A family peakbench looks for: its name, the files to try and how to install it.
pub(crate) struct Known {
    /// The `--blas` name and row label.
    pub name: &'static str,
    /// Sonames (searched like `dlopen`) then paths.
    pub files: &'static [&'static str],
    /// The family the file must be.
    pub(super) family: &'static [Family],
    /// Install hint.
    pub install: &'static str,
}

/// The families `auto` looks for, in the order rows appear.
pub(crate) const KNOWN: [Known; 6] = [
    Known {
        name: "openblas",
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
        family: &[Family::OpenBlas],
        install: "apt-get install libopenblas0-pthread (Debian/Ubuntu), dnf install openblas-threads (RHEL, EPEL)",
    },
    Known {
        name: "blis",
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
        family: &[Family::Blis],
        install: "apt-get install libblis4-pthread (Debian/Ubuntu), dnf install blis (RHEL, EPEL)",
    },
    Known {
        name: "mkl",
        files: &[
            "libmkl_rt.so.2",
            "libmkl_rt.so",
            "/opt/intel/oneapi/mkl/latest/lib/libmkl_rt.so.2",
            "/opt/intel/oneapi/mkl/latest/lib/intel64/libmkl_rt.so.2",
        ],
        family: &[Family::Mkl],
        install: "apt-get install libmkl-rt (Debian/Ubuntu, non-free), or Intel oneAPI's intel-oneapi-mkl (RHEL)",
    },
    Known {
        name: "flexiblas",
        files: &["libflexiblas.so.3", "libflexiblas.so"],
        family: &[Family::FlexiBlas],
        install: "apt-get install libflexiblas-dev (Debian/Ubuntu), dnf install flexiblas (RHEL)",
    },
    Known {
        name: "atlas",
        files: &[
            "libtatlas.so.3",
            "libsatlas.so.3",
            "/usr/lib64/atlas/libtatlas.so.3",
            "/usr/lib64/atlas/libsatlas.so.3",
            "/usr/lib/x86_64-linux-gnu/atlas/libblas.so.3",
        ],
        family: &[Family::Atlas, Family::Other],
        install: "apt-get install libatlas3-base (Debian/Ubuntu), dnf install atlas (RHEL)",
    },
    Known {
        name: "reference",
        files: &[
            "/usr/lib/x86_64-linux-gnu/blas/libblas.so.3",
            "/usr/lib/aarch64-linux-gnu/blas/libblas.so.3",
            "/usr/lib64/libblas.so.3",
        ],
        family: &[Family::Other],
        install: "apt-get install libblas3 (Debian/Ubuntu), dnf install blas (RHEL)",
    },
];

/// Families `auto` leaves out, each with why: they run when named (issue #32 item 6).
pub(crate) const NOT_IN_AUTO: &[(&str, &str)] = &[(
    "reference",
    "netlib's reference BLAS is for correctness, not speed (plain loops on one thread: minutes at --n 4096); name it (--blas reference) to run it",
)];

/// The names `--blas` accepts.
pub(crate) const ACCEPTED: &str =
    "auto, faer, openblas, blis, mkl, flexiblas, atlas, reference, or a path to a .so";

/// Parses one `--blas` item.
pub(crate) fn parse_choice(s: &str) -> Result<BlasChoice, String> {
    let l = s.to_ascii_lowercase();
    if l == "auto" {
        return Ok(BlasChoice::Auto);
    }
    if l == "faer" {
        return Ok(BlasChoice::Faer);
    }
    if let Some(k) = KNOWN.iter().find(|k| k.name == l) {
        return Ok(BlasChoice::Named(k.name));
    }
    if s.contains('/') || s.contains(".so") {
        return Ok(BlasChoice::Path(PathBuf::from(s)));
    }
    Err(format!("unknown BLAS '{s}'; accepted: {ACCEPTED}"))
}
