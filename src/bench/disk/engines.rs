//! The registry of I/O engines, in preference order: `--engine auto` takes the first
//! available one, `--engine NAME` looks one up by name or alias. Adding an engine is one
//! file implementing [`IoEngine`] and one line here.

use super::engine::IoEngine;
use super::libaio::LibaioEngine;
use super::mmap::MmapEngine;
use super::sync::SyncEngine;
use super::uring::UringEngine;

/// Every engine, in preference order for `--engine auto` (first available wins; sync
/// always is, so libaio and mmap run only when asked for by name).
pub(crate) static ENGINES: &[&dyn IoEngine] =
    &[&UringEngine, &SyncEngine, &LibaioEngine, &MmapEngine];

/// The engine named `name` (or one of its aliases).
pub(crate) fn by_name(name: &str) -> Option<&'static dyn IoEngine> {
    ENGINES
        .iter()
        .copied()
        .find(|e| e.name() == name || e.aliases().contains(&name))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::disk::engine::Caps;

    #[test]
    fn registry() {
        assert_eq!(by_name("sync").unwrap().caps(), Caps(Caps::SYNC));
        assert!(by_name("uring").unwrap().caps().has(Caps::ASYNC));
        assert!(by_name("libaio").unwrap().caps().has(Caps::ASYNC));
        assert_eq!(
            by_name("mmap").unwrap().caps(),
            Caps(Caps::SYNC | Caps::MAPPED)
        );
        assert!(by_name("spdk").is_none());
        assert_eq!(by_name("psync").unwrap().name(), "sync");
        assert_eq!(by_name("io_uring").unwrap().name(), "uring");
        assert_eq!(by_name("io-uring").unwrap().title(), "io_uring");
    }
}
