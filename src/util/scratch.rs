//! Where the tests write their scratch files (issue #37), one rule for the unit tests and
//! the integration tests alike (`tests/common` includes this file by path; it uses only
//! `std` and the dev-dependency `tempfile`).
//!
//! The disk tests need a real filesystem: `/tmp` may be tmpfs, where `O_DIRECT` is
//! refused on older kernels and no page cache is bypassed. The checkout is on a real
//! disk (someone cloned it there), so the scratch root is `target/test-scratch/` in the
//! checkout, **created when missing**: with `CARGO_TARGET_DIR` pointing elsewhere the
//! checkout has no `target/` at all, and `tempdir_in("<checkout>/target")` failed with
//! `NotFound` in eight tests. `target/` is ignored by git. `PEAKBENCH_TEST_SCRATCH=DIR`
//! moves the root (created when missing too); when the checkout is read-only the tests
//! fall back to the system's temporary directory, saying so on stderr. Each test's
//! directory is removed when its `TempDir` is dropped. Its tests are in
//! `scratch_tests.rs`, so that the integration tests, which include this file, do not
//! run them once per test binary.

#![allow(dead_code)]

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// The variable that moves the scratch root.
pub(crate) const SCRATCH_ENV: &str = "PEAKBENCH_TEST_SCRATCH";

/// The folder under which tests create their scratch directories (see the module doc).
pub(crate) fn scratch_root() -> PathBuf {
    root_for(
        Path::new(env!("CARGO_MANIFEST_DIR")),
        std::env::var_os(SCRATCH_ENV),
    )
}

/// The scratch root for a checkout at `checkout` and the override `over`: the override
/// when set, else `checkout/target/test-scratch`, either created when missing; the
/// system's temporary directory when that cannot be created.
pub(crate) fn root_for(checkout: &Path, over: Option<OsString>) -> PathBuf {
    let dir = match over.filter(|o| !o.is_empty()) {
        Some(o) => PathBuf::from(o),
        None => checkout.join("target").join("test-scratch"),
    };
    match std::fs::create_dir_all(&dir) {
        Ok(()) => dir,
        Err(e) => {
            let tmp = std::env::temp_dir();
            eprintln!(
                "test scratch: cannot create {} ({e}); using {} (set {SCRATCH_ENV} to a directory on a real disk)",
                dir.display(),
                tmp.display()
            );
            tmp
        }
    }
}

/// A fresh scratch directory of this test under [`scratch_root`], removed on drop.
pub(crate) fn scratch_dir() -> tempfile::TempDir {
    let root = scratch_root();
    tempfile::Builder::new()
        .prefix("pb-test-")
        .tempdir_in(&root)
        .unwrap_or_else(|e| {
            panic!(
                "cannot create a scratch directory in {}: {e}",
                root.display()
            )
        })
}
