//! The identity of a case across files ([`CaseKey`]), below both the comparison
//! (`compare.rs`) and the quick-suite matching (`quick.rs`); the gate keys its baseline
//! by it too.

use crate::report::model::{BenchResult, Metric, ResourceName, Unit};
use crate::report::view::cells;
use serde::Serialize;

/// The identity of a case across files.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub(crate) struct CaseKey {
    /// Resource, e.g. `cpu`.
    pub(crate) resource: ResourceName,
    /// Workload, e.g. `fma_f64_avx512`.
    pub(crate) workload: String,
    /// Metric, e.g. `ops`.
    pub(crate) metric: Metric,
    /// Unit of the means.
    pub(crate) unit: Unit,
    /// Parameters as `key=value` text, sorted by key.
    pub(crate) params: String,
}

impl CaseKey {
    /// The key of a result.
    pub(crate) fn of(r: &BenchResult) -> CaseKey {
        CaseKey {
            resource: r.resource,
            workload: r.workload.clone(),
            metric: r.metric,
            unit: r.unit,
            params: cells::params(r),
        }
    }

    /// `cpu fma_f64_avx512 [threads=2] ops`.
    pub(crate) fn label(&self) -> String {
        format!(
            "{} {} [{}] {}",
            self.resource, self.workload, self.params, self.metric
        )
    }
}
