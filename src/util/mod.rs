//! Small helpers shared by every layer: unit parsing and printing, the usage error,
//! the sanitiser for text from outside, the one atomic file write (and where an output
//! path leads), the framing and the
//! HMAC proof of the two TCP protocols, opening and reading a user's file without blocking, running
//! external programs, reporting a library that exits the process, a small seedable generator,
//! the rule of a run's tag (`KEY=VALUE`), and (tests only) where tests write their scratch files.

pub(crate) mod atomic;
pub(crate) mod foreign;
pub mod frame;
pub(crate) mod outpath;
pub(crate) mod process;
pub(crate) mod proof;
pub(crate) mod regular;
pub(crate) mod rng;
pub mod sanitize;
#[cfg(test)]
pub(crate) mod scratch;
#[cfg(test)]
mod scratch_tests;
pub(crate) mod tag;
pub(crate) mod term;
pub mod units;
pub mod usage;
