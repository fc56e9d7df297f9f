//! CSV: one row per result, raw numbers in the model's units (no SI prefixes), so
//! spreadsheets and scripts get full precision.

use super::export::{opt_num as num, CsvWriter};
use super::model::{Report, Status};
use super::view;

const HEADER: &str = "resource,workload,params,metric,unit,n,mean,sd,min,max,median,cv,ci95_low,ci95_high,peak,peak_source,efficiency,over_peak,clock_hz,status,reason";

/// Writes the header and one line per result.
pub fn export(report: &Report, out: &mut CsvWriter) -> std::io::Result<()> {
    out.record(&HEADER.split(',').collect::<Vec<_>>())?;
    for r in &report.results {
        let s = r.summary.as_ref();
        let (status, reason) = match &r.status {
            Status::Ok => ("ok", String::new()),
            Status::Skipped { reason } => ("skipped", reason.clone()),
            Status::Failed { error } => ("failed", error.clone()),
        };
        let cells = [
            r.resource.to_string(),
            r.workload.clone(),
            view::params(r),
            r.metric.to_string(),
            r.unit.to_string(),
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
            r.peak.as_ref().map_or(String::new(), |p| p.source.clone()),
            num(r.efficiency),
            r.over_peak.to_string(),
            num(r.clock_hz),
            status.to_string(),
            reason,
        ];
        out.record(&cells)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_rows() {
        let mut buf = Vec::new();
        export(
            &crate::report::fixtures::report(),
            &mut CsvWriter::new(&mut buf),
        )
        .unwrap();
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
