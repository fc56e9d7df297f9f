//! Small helpers shared by every layer: unit parsing and printing.

pub mod units;
