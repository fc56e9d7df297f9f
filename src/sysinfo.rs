//! `peakbench sysinfo`: the detected host, measured clocks, and the theoretical peak of
//! every CPU kernel this machine can run (one core and all cores), with provenance.

use crate::bench::common::CommonOptions;
use crate::bench::cpu::{kernels, peak_for, per_cycle_for, unavailable};
use crate::bench::gpu::list::print_gpus;
use crate::bench::quota::quota_peak;
use crate::hw::clock::measure_warm;
use crate::hw::peak::Peak;
use crate::hw::rates::trim_float;
use crate::hw::HostInfo;
use crate::report::{export_fit, TextDoc};
use crate::util::term::{fit_table, fit_text};
use crate::util::units::{format_si, format_size};
use comfy_table::Table;
use serde::Serialize;
use std::io::Write;

/// One row of the peak table.
#[derive(Debug, Serialize)]
pub(crate) struct PeakRow {
    /// Kernel name.
    pub(crate) kernel: &'static str,
    /// `--precision` value.
    pub(crate) precision: &'static str,
    /// `--isa` value.
    pub(crate) isa: &'static str,
    /// `FLOP/s` or `OP/s`.
    pub(crate) unit: &'static str,
    /// Peak of one core.
    pub(crate) one_core: Peak,
    /// Peak of all cores.
    pub(crate) all_cores: Peak,
    /// Why the kernel would be skipped here (e.g. AMX permission), if it would.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) skipped: Option<String>,
    /// An emulated CPU (no clock): operations per cycle on one core and on all cores.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) per_cycle: Option<(f64, f64)>,
}

/// What `sysinfo --format json` prints.
#[derive(Debug, Serialize)]
pub(crate) struct SysInfo {
    /// Schema of the report this belongs to.
    pub(crate) schema: &'static str,
    /// The host.
    pub(crate) host: HostInfo,
    /// Theoretical CPU peaks.
    pub(crate) cpu_peaks: Vec<PeakRow>,
}

/// Builds the peak table for a detected host. Each kernel's clock is measured as its
/// benchmark case measures it: with the kernel's own clock chain (its instruction
/// interleaved with the add chain), pinned, on one core and on all cores
/// (≈ 40 ms per kernel); kernels without one use the host's chains (`ClockInfo`).
pub(crate) fn cpu_peaks(host: &HostInfo, opts: &CommonOptions) -> Vec<PeakRow> {
    let order = &host.cpu.pin_order;
    let all = host.cpu.cores.max(1);
    let one_cpu: Vec<usize> = order.iter().take(1).copied().collect();
    let all_cpus: Vec<usize> = order.iter().take(all).copied().collect();
    let supported: Vec<_> = kernels::all()
        .into_iter()
        .filter(|k| {
            k.supported_by(&host.cpu.features) && !kernels::superseded(k, &host.cpu.features)
        })
        .collect();
    // A bar over the kernels on a terminal (issue #32 G: sysinfo was silent for 12 s).
    let progress = crate::report::progress::Progress::new(
        vec![std::time::Duration::from_millis(100); supported.len()],
        opts.quiet,
    );
    let rows = supported
        .into_iter()
        .map(|k| {
            progress.start(&format!("clock of {} on 1 and {all} cores", k.name));
            let skipped = unavailable(k, host);
            let kind = crate::bench::cpu::clock_kind(k);
            let own = |cpus: &[usize]| {
                // SAFETY: the kernel's chain uses its own instructions, which the CPU
                // has (`unavailable` checked the features and any OS permission).
                k.clock
                    .filter(|_| skipped.is_none() && host.cpu.emulated.is_none())
                    .and_then(|c| unsafe { measure_warm(cpus, c, KERNEL_WARMUP_SECS) })
            };
            let (one_hz, all_hz) = match own(&one_cpu) {
                Some(one) => (Some(one), own(&all_cpus).or(Some(one))),
                None => (host.clock.for_peak(kind, 1), host.clock.for_peak(kind, all)),
            };
            let row =
                PeakRow {
                    kernel: k.name,
                    precision: k.precision.name(),
                    isa: k.isa.name(),
                    unit: k.precision.unit().as_str(),
                    one_core: quota_peak(peak_for(k, host, 1, one_hz, &opts.peaks), host, 1),
                    all_cores: quota_peak(peak_for(k, host, all, all_hz, &opts.peaks), host, all),
                    skipped,
                    per_cycle: host.cpu.emulated.as_ref().and_then(|_| {
                        Some((per_cycle_for(k, host, 1)?, per_cycle_for(k, host, all)?))
                    }),
                };
            progress.done();
            row
        })
        .collect();
    progress.finish();
    rows
}

/// Warm-up of each kernel's chain before its readings: the host's clock measurement
/// just warmed the cores up, this only settles the kernel's frequency licence.
const KERNEL_WARMUP_SECS: f64 = 0.02;

/// Prints sysinfo in the requested format.
pub(crate) fn run(opts: &CommonOptions, out: &mut dyn Write) -> std::io::Result<()> {
    if !opts.quiet {
        // Detection (GPU adapters included) and the clock of every kernel take seconds.
        eprintln!(
            "sysinfo: detecting the hardware, then measuring each CPU kernel's clock on one and all cores (seconds; --quiet hides this)"
        );
    }
    let host = HostInfo::detect(true);
    let info = SysInfo {
        schema: crate::report::model::SCHEMA,
        cpu_peaks: cpu_peaks(&host, opts),
        host,
    };
    let doc = TextDoc {
        value: &info,
        text: print_text,
    };
    export_fit(&doc, opts.format, opts.width, out)
}

/// The rows only an Arm CPU has: the SoC where the firmware names it, implementer,
/// part and variant of each kind of core in hex (as the vendors and /proc/cpuinfo print
/// them), and the SVE vector length.
fn arm_rows(c: &crate::hw::cpu::CpuInfo) -> Vec<(String, String)> {
    let mut rows = Vec::new();
    if let Some(soc) = &c.soc {
        rows.push(("soc".into(), format!("{} ({})", soc.name, soc.evidence)));
    }
    let imp = |vendor: &str| {
        crate::hw::arm::implementer_code(vendor).map_or_else(
            || vendor.to_string(),
            |code| format!("{vendor} (0x{code:02x})"),
        )
    };
    let d = &c.description;
    let parts = if d.parts.len() > 1 {
        d.parts
            .iter()
            .map(|p| {
                format!(
                    "0x{:03x} r{} (CPUs {})",
                    p.model,
                    p.stepping,
                    crate::hw::clock_kinds::cpu_list(&p.cpus)
                )
            })
            .collect::<Vec<_>>()
            .join(", ")
    } else {
        format!("0x{:03x} / r{}", c.model, c.stepping)
    };
    rows.push((
        if d.parts.len() > 1 {
            "implementer / parts".into()
        } else {
            "implementer / part / variant".into()
        },
        format!("{} / {parts}", imp(&c.vendor)),
    ));
    rows.push((
        "SVE vector length".into(),
        match c.sve_vector_bits {
            Some(b) => format!("{b} bits ({} bytes)", b / 8),
            None if c.features.iter().any(|f| f == "sve") => "not read".into(),
            None => "no SVE".into(),
        },
    ));
    rows
}

/// The rows of what the run was given: each setting, the cpufreq ones as one row
/// where the machine exposes no cpufreq (said once, not four unknowns).
fn tuning_rows(t: &crate::hw::tuning::Tuning) -> Vec<(String, String)> {
    let mut rows = Vec::new();
    for (k, v) in t.pairs() {
        let cpufreq = ["governor", "cpufreq driver", "boost", "p-state mode"].contains(&k);
        if cpufreq && t.no_cpufreq() {
            if k == "governor" {
                rows.push((
                    "cpufreq".to_string(),
                    "not exposed here: governor, driver, boost and p-state mode unknown"
                        .to_string(),
                ));
            }
            continue;
        }
        let v = match (k, &t.boost_file) {
            ("boost", Some(f)) => format!("{v} ({f})"),
            _ => v,
        };
        rows.push((k.to_string(), v));
    }
    rows
}

fn ghz(x: Option<f64>) -> String {
    x.map_or("not measured".into(), |v| format!("{:.3} GHz", v / 1e9))
}

/// The text view within `width` columns (`None`: no limit): tables wrap their cells,
/// long lines wrap.
fn print_text(info: &SysInfo, width: Option<usize>, out: &mut dyn Write) -> std::io::Result<()> {
    let h = &info.host;
    let c = &h.cpu;
    let mut t = Table::new();
    t.load_preset(crate::util::term::PRESET);
    fit_table(&mut t, width);
    let caches: Vec<String> = c
        .caches
        .iter()
        .map(|x| {
            format!(
                "L{} {} {} (shared by {})",
                x.level,
                x.kind.to_lowercase(),
                format_size(x.size_bytes),
                x.shared_by
            )
        })
        .collect();
    let arm = c.description.arch == "aarch64";
    let mut rows: Vec<(String, String)> = vec![
        ("host".into(), h.hostname.clone()),
        ("os / kernel".into(), format!("{} / {}", h.os, h.kernel)),
        ("virtualization".into(), h.virtualization.clone()),
        ("cpu".into(), format!("{} ({})", c.model_name, c.vendor)),
    ];
    if arm {
        rows.extend(arm_rows(c));
    } else {
        rows.push((
            "family / model / stepping".into(),
            format!("{} / {} / {}", c.family, c.model, c.stepping),
        ));
    }
    rows.extend([
        ("microarchitecture".into(), c.microarch.clone()),
        ("identified by".into(), {
            let id = c.identified();
            match &id.model_overruled {
                Some(o) => format!("{}; {o}", id.evidence),
                None => id.evidence,
            }
        }),
        (
            "sockets / cores / threads".into(),
            format!("{} / {} / {}", c.sockets, c.cores, c.threads),
        ),
        ("caches".into(), caches.join(", ")),
        ("features".into(), c.features.join(" ")),
        ("clock (add chain)".into(), ghz(h.clock.scalar_hz)),
        (
            "clock (add chain, all cores)".into(),
            ghz(h.clock.scalar_all_hz),
        ),
    ]);
    // big.LITTLE: each kind of core's own clock (the peaks use it for its cores).
    for k in &h.clock.kinds {
        rows.push((
            format!(
                "clock (add chain), {}",
                crate::hw::clock_kinds::label(k, &c.vendor)
            ),
            ghz(k.hz),
        ));
    }
    // The AVX-512 licence and the TSC label mean something on x86 only.
    if !arm {
        rows.extend([
            ("clock (AVX2 load)".into(), ghz(h.clock.avx2_hz)),
            (
                "clock (AVX2 load, all cores)".into(),
                ghz(h.clock.avx2_all_hz),
            ),
            ("clock (AVX-512 load)".into(), ghz(h.clock.avx512_hz)),
            (
                "clock (AVX-512 load, all cores)".into(),
                ghz(h.clock.avx512_all_hz),
            ),
        ]);
    }
    rows.push(("clock method".into(), h.clock.method.clone()));
    if !arm {
        rows.push(("clock label (/proc/cpuinfo)".into(), ghz(h.clock.label_hz)));
    }
    rows.push((
        "memory".into(),
        format!(
            "{} total, {} available, THP {}",
            format_size(h.memory.total_bytes),
            format_size(h.memory.available_bytes),
            h.memory.thp.as_deref().unwrap_or("unknown")
        ),
    ));
    // NUMA nodes, sockets, L3 domains, SMT (#47).
    if let Some(topo) = &h.topology {
        rows.extend(topo.lines(&c.vendor));
        // Each node's share of the DIMMs, or why it is unknown (#47).
        let peaks = crate::hw::node_peak::node_peaks(&h.memory.dimms, topo, &h.memory.smbios);
        rows.push((
            "memory peak per node".into(),
            crate::hw::node_peak::line(&peaks),
        ));
    }
    for (k, v) in rows {
        t.add_row(vec![k, v]);
    }
    // What the run was given (#47 item 5): governor, boost, p-state mode, SMT, isolation.
    for (k, v) in h.tuning.iter().flat_map(tuning_rows) {
        t.add_row(vec![k, v]);
    }
    // Energy counters (#47 item 4), or why there are none: said once.
    if let Some(e) = &h.energy {
        t.add_row(vec!["energy counters".to_string(), e.line()]);
    }
    // The container's limits are the machine's (#47): the peaks below follow them.
    for l in h.cgroup.iter().flat_map(|c| c.lines()) {
        t.add_row(vec!["container limit".to_string(), l]);
    }
    for d in &h.disks {
        t.add_row(vec![
            format!("disk {}", d.name),
            crate::hw::disk::summary(d),
        ]);
    }
    if h.gpus.adapters.is_empty() {
        t.add_row(vec![
            "gpu".to_string(),
            h.gpus.note.clone().unwrap_or_else(|| "none".into()),
        ]);
    }
    writeln!(out, "{}", crate::util::term::table_text(&t))?;
    write!(
        out,
        "{}",
        fit_text(&crate::hw::probe::probe(c).to_string(), width)
    )?;
    if !h.gpus.adapters.is_empty() {
        print_gpus(&h.gpus, width, out)?;
    }
    let mut p = Table::new();
    p.load_preset(crate::util::term::PRESET).set_header(vec![
        "kernel",
        "precision",
        "isa",
        "1 core",
        "all cores",
        "note",
    ]);
    fit_table(&mut p, width);
    for r in &info.cpu_peaks {
        let v = |x: &Peak, cycle: Option<f64>| match (x.value, cycle) {
            (Some(v), _) => format_si(v, r.unit),
            // Emulated: the per-cycle peak of the emulated core, no rate.
            (None, Some(c)) => format!("{} {}/cycle", trim_float(c), r.unit.trim_end_matches("/s")),
            (None, None) => "unknown".into(),
        };
        p.add_row(vec![
            r.kernel.to_string(),
            r.precision.to_string(),
            r.isa.to_string(),
            v(&r.one_core, r.per_cycle.map(|c| c.0)),
            v(&r.all_cores, r.per_cycle.map(|c| c.1)),
            r.skipped.clone().unwrap_or_default(),
        ]);
    }
    writeln!(
        out,
        "Theoretical CPU peaks\n{}",
        crate::util::term::table_text(&p)
    )?;
    if let Some(why) = &c.emulated {
        let line = format!(
            "{}: {why}; the peaks above are per cycle of the emulated core",
            crate::hw::arm::EMULATED
        );
        write!(out, "{}", fit_text(&line, width))?;
    }
    if let Some(r) = info
        .cpu_peaks
        .iter()
        .rev()
        .find(|r| r.all_cores.value.is_some())
    {
        let line = format!("peak source, e.g. {}: {}", r.kernel, r.all_cores.source);
        write!(out, "{}", fit_text(&line, width))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A Graviton2-like host as sysinfo would detect it (Neoverse N1, part 0xd0c).
    fn arm_info(parts: Vec<crate::hw::arm::CorePart>) -> SysInfo {
        let mut host = crate::report::samples::host();
        host.arch = "aarch64".into();
        let c = &mut host.cpu;
        c.vendor = "ARM".into();
        c.family = 0;
        c.model = 0xd0c;
        c.stepping = 3;
        c.description = crate::hw::cpudesc::CpuDescription {
            arch: "aarch64".into(),
            vendor: "ARM".into(),
            model: 0xd0c,
            stepping: 3,
            flags: vec!["fp".into(), "asimd".into(), "sve".into()],
            parts,
            ..Default::default()
        };
        c.identification = crate::hw::uarch::identify(&c.description);
        c.microarch = c.identification.row.clone();
        c.model_name = "AWS Graviton2 (Neoverse N1)".into();
        c.features = vec!["neon".into(), "sve".into()];
        c.sve_vector_bits = Some(256);
        c.soc = Some(crate::hw::arm_soc::Soc {
            name: "AWS Graviton2".into(),
            evidence: "EC2 instance type c6g.large (/sys/class/dmi/id/product_name)".into(),
        });
        c.probed.clear();
        host.clock.avx512_hz = None;
        host.clock.label_hz = None;
        SysInfo {
            schema: "test",
            host,
            cpu_peaks: Vec::new(),
        }
    }

    fn text(info: &SysInfo) -> String {
        let mut out = Vec::new();
        print_text(info, None, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn what_the_run_was_given_shows_and_a_missing_cpufreq_is_said_once() {
        let fixture = |n: &str| {
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/fixtures/tuning")
                .join(n)
        };
        let mut info = arm_info(Vec::new());
        info.host.tuning = Some(crate::hw::tuning::Tuning::read(&fixture("vm")));
        let t = text(&info);
        assert_eq!(t.matches("unknown").count(), 1, "{t}");
        assert!(t.contains("not exposed here"), "{t}");
        assert!(t.contains("notsupported"), "{t}");
        assert!(
            !t.lines().any(|l| l.trim_start().starts_with("governor")),
            "{t}"
        );
        info.host.tuning = Some(crate::hw::tuning::Tuning::read(&fixture("intel")));
        let t = text(&info);
        assert!(t.contains("intel_pstate active"), "{t}");
        assert!(
            t.contains("on (/sys/devices/system/cpu/intel_pstate/no_turbo)"),
            "{t}"
        );
        assert!(t.contains("nohz,domain,2-3"), "{t}");
    }

    /// Issue #42 item 5: what an Arm user sees: the SoC, the part in hex, the SVE
    /// vector length (text and JSON), no x86-only clock rows, no doubled names.
    #[test]
    fn an_arm_host_shows_its_soc_part_in_hex_and_sve_length() {
        let info = arm_info(Vec::new());
        let t = text(&info);
        for want in [
            "AWS Graviton2 (EC2 instance type c6g.large",
            "implementer / part / variant",
            "ARM (0x41) / 0xd0c / r3",
            "SVE vector length",
            "256 bits (32 bytes)",
        ] {
            assert!(t.contains(want), "{want}:\n{t}");
        }
        for gone in [
            "AVX-512",
            "clock label",
            "family / model / stepping",
            "3340",
        ] {
            assert!(!t.contains(gone), "{gone}:\n{t}");
        }
        let json = serde_json::to_value(&info).unwrap();
        assert_eq!(json["host"]["cpu"]["sve_vector_bits"], 256);
        assert_eq!(json["host"]["cpu"]["soc"]["name"], "AWS Graviton2");
        // The name says the core once.
        let line = crate::report::view::cells::host_line(&info.host);
        assert!(line.contains("| AWS Graviton2 (Neoverse N1) |"), "{line}");
        // Without SVE it says so; an x86 host keeps its rows and has no SVE row.
        let mut info = arm_info(Vec::new());
        info.host.cpu.sve_vector_bits = None;
        info.host.cpu.features = vec!["neon".into()];
        assert!(text(&info).contains("no SVE"));
        let x86 = SysInfo {
            schema: "test",
            host: crate::report::samples::host(),
            cpu_peaks: Vec::new(),
        };
        let t = text(&x86);
        assert!(t.contains("family / model / stepping") && t.contains("clock (AVX-512 load)"));
        // An aarch64 build identifies every host as Arm (by MIDR) and runs the Arm
        // probe, so the recorded x86 host shows no SVE row only where x86 code runs.
        if cfg!(target_arch = "x86_64") {
            assert!(!t.contains("SVE") && !t.contains("implementer"), "{t}");
        }
    }

    /// On big.LITTLE each kind of core is listed with its part in hex, and each gets
    /// its own clock row.
    #[test]
    fn a_big_little_host_lists_each_kind_and_its_clock() {
        let part = |model: u32, cpus: Vec<usize>| crate::hw::arm::CorePart {
            vendor: "ARM".into(),
            model,
            stepping: 1,
            cpus,
        };
        let parts = vec![part(0xd05, vec![0, 1, 2, 3]), part(0xd0b, vec![4, 5, 6, 7])];
        let mut info = arm_info(parts.clone());
        let d = info.host.cpu.description.clone();
        let plan = crate::hw::clock_kinds::plan(&parts, &(0..8).collect::<Vec<_>>());
        info.host.clock.kinds =
            crate::hw::clock_kinds::assign(&d, 8, &plan, &[Some(1.8e9), Some(2.4e9)]);
        let t = text(&info);
        for want in [
            "implementer / parts",
            "0xd05 r1 (CPUs 0-3), 0xd0b r1 (CPUs 4-7)",
            "clock (add chain), Cortex-A55 (0x41:0xd05, CPUs 0-3)",
            "1.800 GHz",
            "(0x41:0xd0b, CPUs 4-7)",
            "2.400 GHz",
        ] {
            assert!(t.contains(want), "{want}:\n{t}");
        }
    }
}
