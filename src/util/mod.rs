//! Small helpers shared by every layer: unit parsing and printing, the usage error,
//! the sanitiser for text from outside, the one atomic file write, running
//! external programs, a small seedable generator, and (tests only) where tests write
//! their scratch files.

pub(crate) mod atomic;
pub mod frame;
pub(crate) mod process;
pub(crate) mod rng;
pub mod sanitize;
#[cfg(test)]
pub(crate) mod scratch;
#[cfg(test)]
mod scratch_tests;
pub(crate) mod term;
pub mod units;
pub mod usage;
