//! Small helpers shared by every layer: unit parsing and printing, the sanitiser for
//! text from outside, and the one atomic file write.

pub mod atomic;
pub mod sanitize;
pub mod units;
