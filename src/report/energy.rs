//! Energy beside every figure (issue #47 item 4): from the joules each sample's window
//! used per domain (`measure::energy`, recorded in the samples' `share` or the case's
//! `window`), a row's energy per domain kind (sockets and devices summed: `package`,
//! `dram`, `gpu`): the mean joules per sample, the mean power, and for a rate the
//! figure per watt (GFLOP/s per watt, the Green500 measure; GB/s per watt). A row
//! without energy readings gets nothing, and its JSON is unchanged.

use super::model::{BenchResult, Metric, Note, NoteKind};
use crate::measure::energy::{kind, Energy, RowEnergy};
use crate::measure::SampleShare;
use crate::util::units::format_si;

/// Per domain kind, in first-seen order: (joules of each window, seconds of each).
fn by_kind(windows: &[&[Energy]]) -> Vec<(String, Vec<f64>, Vec<f64>)> {
    let mut out: Vec<(String, Vec<f64>, Vec<f64>)> = Vec::new();
    for w in windows {
        let mut here: Vec<(String, f64, f64)> = Vec::new();
        for e in w.iter() {
            let k = kind(&e.domain);
            match here.iter_mut().find(|(h, _, _)| *h == k) {
                // Sockets add their joules over the same window.
                Some((_, j, _)) => *j += e.joules,
                None => here.push((k, e.joules, e.secs)),
            }
        }
        for (k, j, s) in here {
            match out.iter_mut().find(|(o, _, _)| *o == k) {
                Some((_, js, ss)) => {
                    js.push(j);
                    ss.push(s);
                }
                None => out.push((k, vec![j], vec![s])),
            }
        }
    }
    out
}

/// The energy of a row from its windows' readings and its mean figure.
pub(crate) fn row_energy(
    windows: &[&[Energy]],
    metric: Metric,
    mean: Option<f64>,
) -> Vec<RowEnergy> {
    by_kind(windows)
        .into_iter()
        .filter_map(|(domain, js, ss)| {
            let secs: f64 = ss.iter().sum();
            let joules: f64 = js.iter().sum();
            if secs <= 0.0 || js.is_empty() {
                return None;
            }
            let watts = joules / secs;
            let per_watt = match (metric, mean) {
                (Metric::Latency, _) | (_, None) => None,
                (_, Some(m)) if watts > 0.0 => Some(m / watts),
                _ => None,
            };
            Some(RowEnergy {
                domain,
                joules: joules / js.len() as f64,
                watts,
                per_watt,
            })
        })
        .collect()
}

impl BenchResult {
    /// Sets `energy` and its note from the samples' windows (`share`, else `window`);
    /// nothing where none carries energy.
    pub(crate) fn with_energy_of(&mut self, shares: &[&SampleShare]) {
        let windows: Vec<&[Energy]> = shares
            .iter()
            .map(|s| s.energy.as_slice())
            .filter(|e| !e.is_empty())
            .collect();
        if windows.is_empty() {
            return;
        }
        let mean = self.summary.as_ref().map(|s| s.mean);
        self.energy = row_energy(&windows, self.metric, mean);
        if self.energy.is_empty() {
            return;
        }
        let unit = self.unit.as_str();
        let parts: Vec<String> = self
            .energy
            .iter()
            .map(|e| {
                let mut s = format!(
                    "{} {} per sample, {}",
                    e.domain,
                    format_si(e.joules, "J"),
                    format_si(e.watts, "W")
                );
                if let Some(p) = e.per_watt {
                    s.push_str(&format!(" → {} per W", format_si(p, unit)));
                }
                s
            })
            .collect();
        self.notes.push(Note::new(
            NoteKind::Info,
            format!("energy: {}", parts.join("; ")),
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::model::{ResourceName, Unit};

    fn e(domain: &str, joules: f64, secs: f64) -> Energy {
        Energy {
            domain: domain.into(),
            joules,
            secs,
        }
    }

    #[test]
    fn sockets_add_up_and_rates_get_a_figure_per_watt() {
        let w1 = [
            e("package-0", 40.0, 2.0),
            e("package-1", 60.0, 2.0),
            e("dram-0", 10.0, 2.0),
        ];
        let w2 = [
            e("package-0", 50.0, 2.0),
            e("package-1", 50.0, 2.0),
            e("dram-0", 14.0, 2.0),
        ];
        let rows = row_energy(&[&w1, &w2], Metric::Ops, Some(1e12));
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].domain, "package");
        assert_eq!((rows[0].joules, rows[0].watts), (100.0, 50.0));
        assert_eq!(rows[0].per_watt, Some(2e10));
        assert_eq!(rows[1].domain, "dram");
        assert_eq!((rows[1].joules, rows[1].watts), (12.0, 6.0));
        // A latency has joules and watts, no figure per watt.
        let lat = row_energy(&[&w1], Metric::Latency, Some(1e-7));
        assert_eq!(lat[0].per_watt, None);
    }

    #[test]
    fn a_row_gets_its_energy_note_and_nothing_without_counters() {
        let mut r = BenchResult::new(ResourceName::Cpu, "k", Metric::Ops, Unit::FlopPerSec)
            .with_samples(vec![1e11, 1e11]);
        let s = SampleShare {
            energy: vec![e("package-0", 20.0, 1.0)],
            ..SampleShare::default()
        };
        r.with_energy_of(&[&s, &s]);
        assert_eq!(r.energy[0].per_watt, Some(5e9));
        let note = &r.notes.last().unwrap().text;
        assert_eq!(
            note,
            "energy: package 20.00 J per sample, 20.00 W → 5.000 GFLOP/s per W"
        );
        let mut plain = BenchResult::new(ResourceName::Cpu, "k", Metric::Ops, Unit::FlopPerSec)
            .with_samples(vec![1e11]);
        let before = serde_json::to_value(&plain).unwrap();
        plain.with_energy_of(&[&SampleShare::default()]);
        assert_eq!(serde_json::to_value(&plain).unwrap(), before);
    }
}
