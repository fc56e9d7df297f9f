//! hpcc (Debian `hpcc`): HPL, DGEMM, STREAM and more in one MPI run. Detected and
//! versioned only: a run takes minutes and needs tuning on this class of CPU
//! (`OPENBLAS_CORETYPE`, `mpirun --bind-to none`), so it is never run automatically.

use super::Tool;
use std::path::Path;

/// The hpcc adapter.
pub(crate) struct Hpcc;

impl Tool for Hpcc {
    fn name(&self) -> &'static str {
        "hpcc"
    }
    fn binary(&self) -> &'static str {
        "hpcc"
    }
    fn package(&self) -> &'static str {
        "hpcc"
    }
    fn covers(&self) -> &'static str {
        "cpu fp64 HPL/DGEMM, memory STREAM (manual: minutes per run)"
    }
    fn version(&self, _path: &Path) -> Option<String> {
        super::dpkg_version("hpcc")
    }
}
