//! The one results model, the documents computed from it (a comparison, a fleet, the
//! matrix of a cluster run), their views, and the live progress channel.
//!
//! A view is pure: it formats a document into a writer and never computes statistics.
//! The views are on one axis ([`view`]): every document is a [`Doc`], every format is
//! one module that renders every document, and [`export()`] is the one dispatch.
//! Adding a format is one file and one registry line ([`view`]'s `FORMATS`); adding a
//! document is one [`Doc`] variant and one arm in each format.

pub(crate) mod chart_axis;
pub mod charts;
pub mod compare;
mod condense;
pub(crate) mod disturbance;
pub(crate) mod efficiency;
pub(crate) mod energy;
pub(crate) mod figures;
#[cfg(test)]
pub(crate) mod fixtures;
pub mod fleet;
pub(crate) mod kinds;
pub mod load;
pub(crate) mod loaded_latency;
pub(crate) mod matrix;
pub(crate) mod measured_roofline;
pub mod model;
pub(crate) mod numa_matrix;
pub(crate) mod physics;
pub(crate) mod progress;
mod provenance;
pub mod quality;
pub(crate) mod results_index;
#[cfg(test)]
pub(crate) mod samples;
pub mod series;
pub(crate) mod settings;
pub(crate) mod view;

pub use view::{export, export_fit, Doc, Format, Grid, Text, TextDoc};
