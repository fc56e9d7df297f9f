//! Small helpers shared by every layer: unit parsing and printing, the usage error.

pub mod units;
pub mod usage;
