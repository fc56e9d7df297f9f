//! Small helpers shared by every layer: unit parsing and printing, the usage error,
//! the sanitiser for text from outside, the one atomic file write, running
//! external programs, and a small seedable generator.

pub(crate) mod atomic;
pub mod frame;
pub(crate) mod process;
pub(crate) mod rng;
pub mod sanitize;
pub(crate) mod term;
pub mod units;
pub mod usage;
