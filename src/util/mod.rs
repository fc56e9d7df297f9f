//! Small helpers shared by every layer: unit parsing and printing, the usage error,
//! the sanitiser for text from outside, the one atomic file write, and running
//! external programs.

pub mod atomic;
pub mod process;
pub mod sanitize;
pub mod units;
pub mod usage;
