//! peakbench's integration tests: one test binary (`cargo test --release --test it`),
//! one module per feature. A single binary links once instead of once per file (each
//! link of a test binary is the whole library and its dependencies: about 25 of them
//! before), and its tests run in one process, in parallel: a test never changes the
//! process's environment or working directory, binds fixed ports or shares a file name
//! with another; it starts the binary through [`common`] and writes under its own
//! scratch or temporary directory.
//!
//! Filters: `cargo test --release --test it net::` runs one module's tests.

mod common;

mod blas_checks;
mod c2c;
mod cli;
mod cluster;
mod cluster_auth;
mod cluster_netns;
mod container;
mod cpu_fixtures;
mod cpus;
mod disk;
mod docs;
mod first_contact;
mod fleet;
mod gate;
mod gate_ci;
mod gate_history;
mod gate_ops;
mod gate_refs;
mod gpu;
mod history;
mod latency_peaks;
mod layers;
mod linalg;
mod memory;
mod neighbours;
mod net;
mod net_hardening;
mod net_knobs;
mod netns;
mod outputs;
mod prom;
mod reader_memory;
mod readers;
mod reference_built;
mod reference_fakes;
mod report;
mod report_hardening;
mod results;
mod shared_machine;
mod terminal;
