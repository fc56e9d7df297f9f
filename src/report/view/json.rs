//! JSON: a document exactly as it serialises (for a Report, the source of truth; a
//! matrix run is its report; a grid and a text document give their own JSON form).

use super::{Doc, Format};
use serde::Serialize;
use std::io::Write;

/// `--format json`.
pub(crate) const FORMAT: Format = Format {
    name: "json",
    aliases: &[],
    stdout: true,
    write: export,
};

/// Writes `doc` as JSON.
fn export(doc: Doc<'_>, _width: Option<usize>, out: &mut dyn Write) -> std::io::Result<()> {
    match doc {
        Doc::Report(r) | Doc::Matrix(r) => write(r, out),
        Doc::Comparison(c) => write(c, out),
        Doc::Fleet(f) => write(f, out),
        Doc::Grid(g) => write(&g.json, out),
        Doc::Series(s) => write(s, out),
        Doc::Text(t) => t.json(out),
    }
}

/// Writes `doc` pretty-printed, followed by a newline.
pub(crate) fn write(doc: &impl Serialize, out: &mut dyn Write) -> std::io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, doc)?;
    writeln!(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::model::Report;

    #[test]
    fn round_trip() {
        let r = crate::report::fixtures::report();
        let mut buf = Vec::new();
        write(&r, &mut buf).unwrap();
        let back: Report = serde_json::from_slice(&buf).unwrap();
        assert_eq!(back, r);
        let v: serde_json::Value = serde_json::from_slice(&buf).unwrap();
        assert_eq!(v["schema"], "peakbench/2");
        assert_eq!(v["results"][1]["over_peak"], true);
        assert_eq!(v["results"][0]["params"]["threads"], 2);
        assert_eq!(
            v["results"][2]["status"]["skipped"]["reason"],
            "CPU lacks amx-bf16"
        );
    }
}
