//! The cells of a [`Comparison`](crate::report::compare::Comparison) the text views
//! share: a change's row and its interval cell.

use crate::report::compare::{pct, Change};
use crate::util::units::format_si;

/// The change cell: `+5.2 % [+3.1 %, +7.3 %]`.
pub(crate) fn change_cell(c: &Change) -> String {
    match (c.rel, c.rel_ci95) {
        (Some(r), Some((lo, hi))) => format!("{} [{}, {}]", pct(r), pct(lo), pct(hi)),
        (Some(r), None) => pct(r),
        (None, _) => format_si(c.diff, c.case.unit.as_str()),
    }
}

/// Column headers of the text views.
pub(crate) const HEADERS: [&str; 8] = [
    "case",
    "vs",
    "baseline mean",
    "mean",
    "change [95 % CI]",
    "n",
    "significant",
    "verdict",
];

/// One row of cells in [`HEADERS`] order.
pub(crate) fn row(c: &Change) -> [String; 8] {
    [
        c.case.label(),
        c.against.clone(),
        format_si(c.a.mean, c.case.unit.as_str()),
        format_si(c.b.mean, c.case.unit.as_str()),
        change_cell(c),
        format!("{}/{}", c.a.n, c.b.n),
        match c.significant {
            Some(true) => "yes".into(),
            Some(false) => "no".into(),
            None => "n/a".into(),
        },
        c.verdict.clone(),
    ]
}
