//! peakbench: how close does this machine come to its physical limit, resource by
//! resource? See docs/ARCHITECTURE.md for the layers; in short:
//! `main → app → bench → report → measure, hw, util`, lower layers never importing
//! higher ones.

// Items are `pub(crate)` unless the binary, the integration tests or the fuzz targets
// use them; the docs are for this crate's developers (`cargo doc --document-private-items`),
// where links from public items to crate-private ones resolve.
#![allow(rustdoc::private_intra_doc_links)]
#![warn(unreachable_pub)]

pub mod app;
pub mod bench;
pub mod cli;
pub mod cluster;
pub mod cmdline;
pub(crate) mod gate;
pub mod history;
pub mod hw;
pub mod measure;
pub(crate) mod options;
pub(crate) mod pipeline;
pub mod reference;
pub mod report;
pub(crate) mod reporting;
pub(crate) mod retries;
pub(crate) mod sysinfo;
pub mod util;
