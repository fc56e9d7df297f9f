//! The clock of each kind of core on a machine with several (Arm big.LITTLE, e.g.
//! 4 × Cortex-A510 + 3 × Cortex-A710 + 1 × Cortex-X3): their clocks differ by up to 2×,
//! and CPU 0, whose clock used to stand for all of them, is usually a LITTLE core. The
//! add chain (`clock.rs`) is run on one core of each kind ([`plan`]: the first of that
//! kind in the pinning order), and each kind's cores take their kind's reading
//! ([`assign`]), so a peak over mixed cores is the sum over its cores of each core's
//! rate × its own kind's clock (`bench::cpu::peak`). The measuring is `clock.rs`'s; the
//! planning and assignment here are pure, tested on the recorded big.LITTLE machine
//! with injected readings.

use super::arm::{implementer_code, CorePart};
use super::cpudesc::CpuDescription;
use serde::{Deserialize, Serialize};

/// The measured clock of one kind of core.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub(crate) struct KindClock {
    /// The kind's table row (`Cortex-A710`), or its implementer and part when the table
    /// lacks it (`ARM part 0xd4e`).
    pub(crate) core: String,
    /// MIDR part number.
    pub(crate) part: u32,
    /// The logical CPUs of this kind.
    pub(crate) cpus: Vec<usize>,
    /// The CPU the clock was read on.
    pub(crate) measured_on: usize,
    /// The clock (add chain, after a warm-up), Hz; `None` when the reading failed.
    pub(crate) hz: Option<f64>,
}

/// The CPU to read each kind's clock on, one per kind (`parts` order): the first CPU of
/// that kind in the pinning order (so one the run may use), else its lowest. Empty on a
/// machine with one kind of core.
pub(crate) fn plan(parts: &[CorePart], pin_order: &[usize]) -> Vec<usize> {
    if parts.len() < 2 {
        return Vec::new();
    }
    parts
        .iter()
        .filter_map(|p| {
            pin_order
                .iter()
                .find(|c| p.cpus.contains(c))
                .or_else(|| p.cpus.iter().min())
                .copied()
        })
        .collect()
}

/// Each kind of `d.parts` with the reading taken on its planned CPU (`readings[i]` is
/// the clock read on `plan[i]`, `None` when it failed).
pub(crate) fn assign(
    d: &CpuDescription,
    threads: usize,
    plan: &[usize],
    readings: &[Option<f64>],
) -> Vec<KindClock> {
    let ids = super::uarch::identify_parts(d, threads);
    d.parts
        .iter()
        .zip(&ids)
        .zip(plan.iter().zip(readings))
        .map(|((p, (id, _)), (&cpu, &hz))| KindClock {
            core: if id.by == "model" {
                id.row.clone()
            } else {
                format!("{} part 0x{:03x}", p.vendor, p.model)
            },
            part: p.model,
            cpus: p.cpus.clone(),
            measured_on: cpu,
            hz: hz.filter(|h| h.is_finite() && *h > 0.0),
        })
        .collect()
}

/// The clock of CPU `cpu`'s kind, when it was measured.
pub(crate) fn of_cpu(kinds: &[KindClock], cpu: usize) -> Option<f64> {
    kinds.iter().find(|k| k.cpus.contains(&cpu))?.hz
}

/// `Cortex-A710 (0x41:0xd47, CPUs 4-6)`: a kind as sysinfo names it, part in hex as
/// the vendors print it.
pub(crate) fn label(k: &KindClock, vendor: &str) -> String {
    let imp = implementer_code(vendor).map_or(String::new(), |c| format!("0x{c:02x}:"));
    format!(
        "{} ({imp}0x{:03x}, CPUs {})",
        k.core,
        k.part,
        cpu_list(&k.cpus)
    )
}

/// `0-3,7`: a CPU list as Linux writes one.
pub(crate) fn cpu_list(cpus: &[usize]) -> String {
    let mut v = cpus.to_vec();
    v.sort_unstable();
    v.dedup();
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < v.len() {
        let mut j = i;
        while j + 1 < v.len() && v[j + 1] == v[j] + 1 {
            j += 1;
        }
        out.push(if j > i {
            format!("{}-{}", v[i], v[j])
        } else {
            v[i].to_string()
        });
        i = j + 1;
    }
    out.join(",")
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The recorded big.LITTLE machine (tests/fixtures/cpus/arm-hetero-a510-a710-a715-x3.json).
    pub(crate) fn hetero() -> CpuDescription {
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/cpus/arm-hetero-a510-a710-a715-x3.json"
        ))
        .unwrap();
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        serde_json::from_value(v["cpu"].clone()).unwrap()
    }

    #[test]
    fn each_kind_of_the_recorded_big_little_is_read_on_one_of_its_cores() {
        let d = hetero();
        assert!(d.parts.len() >= 3, "{:?}", d.parts);
        let threads: usize = d.parts.iter().map(|p| p.cpus.len()).sum();
        let order: Vec<usize> = (0..threads).collect();
        let planned = plan(&d.parts, &order);
        assert_eq!(planned.len(), d.parts.len());
        for (p, cpu) in d.parts.iter().zip(&planned) {
            assert_eq!(Some(cpu), p.cpus.iter().min(), "{p:?}");
        }
        // A pinning order that starts with the big core reads it there.
        let mut big_first = order.clone();
        big_first.reverse();
        let last = d.parts.last().unwrap();
        assert_eq!(plan(&d.parts, &big_first).last(), last.cpus.iter().max());
        // Injected readings: each kind's cores get their kind's clock.
        let readings: Vec<Option<f64>> = (0..planned.len())
            .map(|i| Some(1.8e9 + 0.5e9 * i as f64))
            .collect();
        let kinds = assign(&d, threads, &planned, &readings);
        assert_eq!(kinds.len(), d.parts.len());
        for (i, (k, p)) in kinds.iter().zip(&d.parts).enumerate() {
            assert_eq!(k.cpus, p.cpus);
            for &c in &p.cpus {
                assert_eq!(of_cpu(&kinds, c), readings[i]);
            }
        }
        // The A510 (part 0xd46) by its row where the table has one, else by its part.
        assert!(
            kinds[0].core == "ARM part 0xd46" || kinds[0].core.starts_with("Cortex-A510"),
            "{}",
            kinds[0].core
        );
        assert!(label(&kinds[0], &d.parts[0].vendor).ends_with("(0x41:0xd46, CPUs 0-2)"));
        assert!(kinds[3].core.starts_with("Cortex-X"), "{}", kinds[3].core);
        // A failed reading leaves that kind without a clock.
        let kinds = assign(&d, threads, &planned, &vec![None; planned.len()]);
        assert!(kinds.iter().all(|k| k.hz.is_none()));
        // One kind of core: nothing to plan.
        assert!(plan(&d.parts[..1], &order).is_empty());
    }

    #[test]
    fn cpu_lists_are_written_as_linux_does() {
        assert_eq!(cpu_list(&[0, 1, 2, 3, 7]), "0-3,7");
        assert_eq!(cpu_list(&[5]), "5");
        assert_eq!(cpu_list(&[3, 2, 9, 10]), "2-3,9-10");
    }
}
