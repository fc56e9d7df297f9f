//! clpeak (Debian `clpeak`): OpenCL peak compute and bandwidth. Detected and versioned
//! only until peakbench's GPU resource lands; then its fp32/fp64/global-bandwidth lines
//! map onto `gpu` cases.

use super::{version_line, Tool};
use std::path::Path;

/// The clpeak adapter.
pub struct Clpeak;

impl Tool for Clpeak {
    fn name(&self) -> &'static str {
        "clpeak"
    }
    fn binary(&self) -> &'static str {
        "clpeak"
    }
    fn package(&self) -> &'static str {
        "clpeak"
    }
    fn covers(&self) -> &'static str {
        "gpu fp32/fp64 compute and global memory bandwidth (OpenCL)"
    }
    fn version(&self, _path: &Path) -> Option<String> {
        version_line(&["clpeak", "--version"], |l| {
            l.to_lowercase()
                .contains("version")
                .then(|| l.rsplit(' ').next().unwrap_or(l).trim().to_string())
        })
    }
}
