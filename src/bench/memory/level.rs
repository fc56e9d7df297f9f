//! The cache level a working set fits in: the `level` parameter of the memory results
//! and the `memory.LEVEL` peak keys (`bench::peaks`), in a file of its own so that the
//! keys can name it without importing the memory benchmark.

/// The cache level a working set fits in (`level` param).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    /// Per-thread share fits the L1 data cache.
    L1,
    /// Per-thread share fits L2.
    L2,
    /// The whole working set fits L3.
    L3,
    /// Larger than every cache.
    Dram,
}

impl Level {
    /// Every level, innermost first.
    pub(crate) const ALL: [Level; 4] = [Level::L1, Level::L2, Level::L3, Level::Dram];

    /// `L1`, `L2`, `L3`, `DRAM`.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Level::L1 => "L1",
            Level::L2 => "L2",
            Level::L3 => "L3",
            Level::Dram => "DRAM",
        }
    }
}
