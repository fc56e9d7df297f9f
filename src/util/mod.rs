//! Small helpers shared by every layer: unit parsing and printing, and the sanitiser
//! for text from outside.

pub mod sanitize;
pub mod units;
