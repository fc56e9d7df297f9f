//! CSV: one row per result, raw numbers in the model's units (no SI prefixes), so
//! spreadsheets and scripts get full precision.

use super::model::{Report, Status};
use super::view;
use std::io::Write;

const HEADER: &str = "resource,workload,params,metric,unit,n,mean,sd,min,max,median,cv,ci95_low,ci95_high,peak,peak_source,efficiency,over_peak,clock_hz,status,reason";

/// Sanitises the field (see [`crate::util::sanitize`]), then quotes it when it holds a
/// comma or quote (RFC 4180).
pub(crate) fn field(s: &str) -> String {
    let s = crate::util::sanitize::line(s);
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn num(x: Option<f64>) -> String {
    x.map_or(String::new(), |v| format!("{v}"))
}

/// Writes the header and one line per result.
pub fn export(report: &Report, out: &mut dyn Write) -> std::io::Result<()> {
    writeln!(out, "{HEADER}")?;
    for r in &report.results {
        let s = r.summary.as_ref();
        let (status, reason) = match &r.status {
            Status::Ok => ("ok", String::new()),
            Status::Skipped { reason } => ("skipped", reason.clone()),
            Status::Failed { error } => ("failed", error.clone()),
        };
        let cells = [
            field(r.resource.as_str()),
            field(&r.workload),
            field(&view::params(r)),
            field(r.metric.as_str()),
            field(r.unit.as_str()),
            s.map_or(String::new(), |s| s.n.to_string()),
            num(s.map(|s| s.mean)),
            num(s.map(|s| s.sd)),
            num(s.map(|s| s.min)),
            num(s.map(|s| s.max)),
            num(s.map(|s| s.median)),
            num(s.map(|s| s.cv)),
            num(s.map(|s| s.ci95_low)),
            num(s.map(|s| s.ci95_high)),
            num(r.peak.as_ref().and_then(|p| p.value)),
            field(r.peak.as_ref().map_or("", |p| p.source.as_str())),
            num(r.efficiency),
            r.over_peak.to_string(),
            num(r.clock_hz),
            status.to_string(),
            field(&reason),
        ];
        writeln!(out, "{}", cells.join(","))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_rows() {
        let mut buf = Vec::new();
        export(&crate::report::fixtures::report(), &mut buf).unwrap();
        let s = String::from_utf8(buf).unwrap();
        let lines: Vec<&str> = s.lines().collect();
        assert_eq!(lines.len(), 4);
        assert_eq!(lines[0], HEADER);
        let cols = HEADER.split(',').count();
        assert!(lines[1].starts_with(
            "cpu,fma_f64_avx512,isa=avx512 precision=fp64 threads=2,ops,FLOP/s,3,152000000000,"
        ));
        assert!(lines[2].contains(",true,"));
        assert!(lines[3].ends_with(",skipped,CPU lacks amx-bf16"));
        for l in &lines[1..] {
            assert_eq!(l.split(',').count(), cols, "{l}");
        }
    }
}
