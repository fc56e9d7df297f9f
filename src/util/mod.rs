//! Small helpers shared by every layer: unit parsing and printing, the usage error,
//! the sanitiser for text from outside, the one atomic file write, opening a user's file without blocking, running
//! external programs, reporting a library that exits the process, and a small seedable generator.

pub(crate) mod atomic;
pub(crate) mod foreign;
pub mod frame;
pub(crate) mod process;
pub(crate) mod regular;
pub(crate) mod rng;
pub mod sanitize;
pub(crate) mod term;
pub mod units;
pub mod usage;
