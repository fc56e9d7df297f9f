//! Small helpers shared by every layer: unit parsing and printing, the usage error, and
//! running external programs.

pub mod process;
pub mod units;
pub mod usage;
