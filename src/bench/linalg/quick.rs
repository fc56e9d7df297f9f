//! The quick suite's linalg row: one fp64 GEMM at n = 1024 on every library found
//! (faer and `--blas auto`'s), reported as one row, the best library's, with every
//! library's figure in a note (so the quick suite answers "which library gets closest
//! to the peak here" in one line).

use super::case::LinalgCase;
use crate::bench::resource::{Case, Context};
use crate::report::model::{BenchResult, Status};

/// The quick suite's GEMM: the same case on every backend found, one row, the best
/// (highest mean) with the others' figures in a note.
pub(super) struct BestOf(pub(super) Vec<LinalgCase>);

impl Case for BestOf {
    fn label(&self) -> String {
        let names: Vec<&str> = self.0.iter().map(|c| c.backend.name()).collect();
        match self.0.first() {
            Some(c) => format!("{} (best of {})", c.label(), names.join(", ")),
            None => "linalg gemm".into(),
        }
    }

    fn run(&self, ctx: &Context) -> Vec<BenchResult> {
        let rows: Vec<BenchResult> = self.0.iter().flat_map(|c| c.run(ctx)).collect();
        let mean = |r: &BenchResult| r.summary.as_ref().map(|s| s.mean).filter(|_| r.is_ok());
        let best = rows
            .iter()
            .enumerate()
            .filter_map(|(i, r)| mean(r).map(|m| (i, m)))
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(i, _)| i);
        // None ran (all failed): the first row says why.
        let Some(best) = best else {
            return rows.into_iter().take(1).collect();
        };
        let others: Vec<String> = rows
            .iter()
            .zip(&self.0)
            .map(|(r, c)| match mean(r) {
                Some(m) => format!("{} {:.1} GFLOP/s", c.backend.name(), m / 1e9),
                None => format!(
                    "{} {}",
                    c.backend.name(),
                    match &r.status {
                        Status::Failed { .. } => "failed",
                        _ => "skipped",
                    }
                ),
            })
            .collect();
        let mut r = rows.into_iter().nth(best).expect("index of a row");
        if others.len() > 1 {
            r.info(format!(
                "best of the libraries found ({}): {}",
                others.join(", "),
                self.0[best].backend.name()
            ));
        }
        vec![r]
    }
}
