//! JSON: the Report exactly as the model serialises it (the source of truth).

use super::model::Report;
use std::io::Write;

/// Writes the pretty-printed Report followed by a newline.
pub fn export(report: &Report, out: &mut dyn Write) -> std::io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, report)?;
    writeln!(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let r = crate::report::fixtures::report();
        let mut buf = Vec::new();
        export(&r, &mut buf).unwrap();
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
