//! Benchmarks: one resource = one folder implementing [`Resource`] and [`Plan`](resource::Plan)
//! (`bench/resource.rs`), registered by one line in [`RESOURCES`].
//!
//! # How to add a resource
//!
//! A resource touches its own folder and one line of [`RESOURCES`]; the subcommand,
//! its help, the parsing of its flags, the planner, the quick suite, its `--peak` keys,
//! its refusals of common flags, its hooks (reference hints, an action instead of a
//! measurement, the quick-suite notice, other resources' names for its flags) and the
//! lists of resources in messages are all built from the registry (a test,
//! `every_resource_is_reachable_from_every_list`, holds every place to it). The hidden
//! `tally` test resource is this recipe followed, with a metric and a unit of its own.
//!
//! 1. `bench/<resource>/options.rs`: one typed struct, `<Resource>Options`, deriving
//!    `clap::Args` (each flag typed by a `value_parser` whose accepted values and help
//!    come from the resource's own tables: `bench::flags::Choices`) and `Serialize`
//!    (serialised into the report's `config` next to `"command": "<resource>"`), and
//!    `parse(&Options) -> Result<Options, UsageError>` for the checks that span flags.
//!    Nothing here imports `cli`, `options` or `app`.
//! 2. `bench/<resource>/mod.rs`: a unit struct implementing, from
//!    [`resource`] (never from this file, which names every resource):
//!    - [`Resource`]: `name` (the subcommand and the results' `resource`), `about` (one
//!      line for help), `command` (`resource::subcommand::<Options>(self)`), `parse`
//!      (`resource::parse_with(&Self, m, options::parse)`: the one call into its
//!      options), `quick` (the cases of the quick suite; keep the resource's share of
//!      the suite's time budget), and, when it reads `--peak` keys, `peak_keys` (their
//!      forms, for messages) and `peak_key` (reads the key's parts after its name, with
//!      the same function that builds the keys it looks up: `ctx.opts.peaks.find`).
//!      `hidden` keeps it out of help and the quick suite (the `null` test resource).
//!      Optional hooks: `aliases` (other resources' names for its flags, for the
//!      refusal of an unknown flag), `quick_notice` (what the quick suite says first
//!      because of its cases), `never_takes` (common flags left out of its help).
//!    - [`Plan`](resource::Plan), with `type Options = <Resource>Options`: `plan` is called once before
//!      anything runs, with the validated options; it returns the cases, or a
//!      [`UsageError`] naming the flag when the request cannot be satisfied on this
//!      host (e.g. `--isa amx` on a CPU without AMX). Nothing has run yet, so refusing
//!      has no side effects. `refuses` says why a common flag (`--weak`,
//!      `--until-stable`, `--cpus`: [`resource::CommonFlag`]) would do nothing with
//!      these options (by default `--cpus` is refused, the others apply), `threads`
//!      gives the `--threads` list `--cpus` is checked against; `hints` what the
//!      reference tools need of its options (disk `--dir`, net `--server`), and
//!      `action` what its options do instead of measuring (`gpu --list`).
//! 3. Its results name it with its own row, `ResourceName::new(&ROW)` (a
//!    `report::kinds::ResourceDef`: its name, noise floor, `--peak` key per row, chart
//!    hints), and a metric or unit of its own is a `MetricDef` / `UnitDef` row in its
//!    folder (`tally`); the built-in resources' rows are `ResourceName::ALL`.
//! 4. Each case implements [`Case`]: `label` for progress, `run` returns every
//!    complete `BenchResult` (samples, summary, peak, status) of one measurement —
//!    one for most cases, several when one run yields several metrics (disk:
//!    throughput, IOPS and latency of the same I/O). State that outlives a case (a
//!    disk workspace, a network control connection) lives in the resource's plan
//!    object, which its cases share; cases never hand results to one another. Use
//!    `measure::Runner` for iteration-calibrated work, configured and pinned by
//!    [`common::run_config`] (which warns when oversubscribed), and check a plan's
//!    memory with [`common::ram_refuses`]; never print from a case.
//! 5. One line in [`RESOURCES`], in quick-suite order.
//!
//! Cases that cannot run on this host return a `skipped` result with the reason; cases
//! that fail return `failed`. Neither stops the run.
//!
//! # How to add a command that measures nothing, or a top-level flag
//!
//! A command that measures nothing (`report`, `compare`, `fleet`: it reads files, or
//! prints what it detects) is a variant of `cli::Cmd` holding its clap `Args`, a
//! variant of `options::Command` with its validated options (serialised into `config`
//! under `"command"`, through `options::Shown`), its parse arm in
//! `options::Options::from_cli`, its arm in `app`'s dispatch, and its line in
//! `cli::reads` naming the common options it reads (by default the output options;
//! its help offers those, and the others are refused when given).
//!
//! A common option is a typed field of `common::CommonArgs` (its clap flag, its
//! `value_parser`), one line in `cli::COMMON` (`common_options!`: its id and whether it
//! is an output or a measurement option; `cli::overlay`, `cli::given` and `cli::reads`
//! derive from it), a field of `common::CommonOptions` where a case or the report reads
//! it (defaults and cross-flag checks in `common::parse`), and its name in `cli::reads`
//! for the commands that measure nothing yet read it. The top level offers every common option; a
//! resource's subcommand offers them all too.
//!
//! # Layers
//!
//! The resources import [`resource`], [`common`] and [`peaks`], never this file; this
//! file imports every resource. So no two files import each other.

pub mod common;
pub mod cpu;
pub mod disk;
pub(crate) mod flags;
pub mod gpu;
pub mod linalg;
pub mod memory;
pub mod net;
pub(crate) mod null;
#[cfg(test)]
mod options_golden;
pub mod peaks;
pub(crate) mod quota;
pub(crate) mod rate_case;
#[cfg(test)]
pub(crate) mod tally;

pub(crate) mod resource;

pub(crate) use resource::{Case, Context, Resource, UsageError};

/// Every resource, in quick-suite order; `null` and (in tests) `tally`, hidden, are
/// for tests.
pub(crate) static RESOURCES: &[&dyn Resource] = &[
    &cpu::CpuBench,
    &memory::MemoryBench,
    &disk::DiskBench,
    &net::NetBench,
    &gpu::GpuBench,
    &linalg::LinalgBench,
    &null::NullBench,
    #[cfg(test)]
    &tally::TallyBench,
];

/// The registered resource of subcommand `name`.
pub(crate) fn find(name: &str) -> Option<&'static dyn Resource> {
    RESOURCES.iter().copied().find(|r| r.name() == name)
}

/// The resources of the quick suite: every visible one, in the registry's order.
pub(crate) fn quick_suite() -> impl Iterator<Item = &'static dyn Resource> {
    RESOURCES.iter().copied().filter(|r| !r.hidden())
}

/// The cases of the quick suite: [`quick_suite`]'s, in order.
pub(crate) fn quick(ctx: &Context) -> Vec<Box<dyn Case>> {
    quick_suite().flat_map(|r| r.quick(ctx)).collect()
}

/// `a, b and c`: the names in a sentence.
fn sentence(names: &[&str]) -> String {
    match names {
        [] => String::new(),
        [one] => (*one).to_string(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// The visible resources that take the common flag `flag` whatever their options
/// (it is not in their `never_takes`), in a sentence: `cpu, memory and linalg`.
pub(crate) fn taking(flag: resource::CommonFlag) -> String {
    let names: Vec<&str> = quick_suite()
        .filter(|r| !r.never_takes().contains(&flag))
        .map(|r| r.name())
        .collect();
    sentence(&names)
}

/// The measuring commands, for messages: every visible resource and the quick suite
/// (`cpu, memory, disk, net, gpu, linalg, the quick suite`).
pub(crate) fn measuring_commands() -> String {
    let mut names: Vec<&str> = quick_suite().map(|r| r.name()).collect();
    names.push("the quick suite");
    names.join(", ")
}

/// Why `--cpus` is refused ([`resource::CPUS_ONLY`] written out): the commands that
/// pin their threads, from the registry.
pub(crate) fn cpus_only() -> String {
    format!(
        "applies only to the {} commands; drop --cpus (or run the command under taskset -c)",
        taking(resource::CommonFlag::Cpus)
    )
}

/// The accepted `--peak` keys, for messages: every visible resource's.
fn peak_keys() -> String {
    let keys: Vec<&str> = RESOURCES
        .iter()
        .filter(|r| !r.hidden())
        .map(|r| r.peak_keys())
        .filter(|k| !k.is_empty())
        .collect();
    format!("{}, {}", keys.join(", "), peaks::latency_forms())
}

/// Reads a `--peak` key (lower-case): the resource its first part names reads the rest.
fn peak_key(key: &str) -> Result<(peaks::PeakKey, peaks::PeakKind), String> {
    let unknown = || format!("unknown key '{key}'; accepted: {}", peak_keys());
    let mut parts = key.split('.');
    let first = parts.next().unwrap_or_default();
    let rest: Vec<&str> = parts.collect();
    // The latency keys are one table for every resource that has latency rows.
    if let Some(k) = peaks::latency_key_of(first, &rest) {
        return k;
    }
    match find(first) {
        Some(r) => r.peak_key(key, &rest)?.ok_or_else(unknown),
        None => Err(unknown()),
    }
}

/// Parses one `--peak KEY=VALUE` ([`peaks::parse_peak`] with the registry's keys).
pub fn parse_peak(text: &str) -> Result<(peaks::PeakKey, f64), UsageError> {
    peaks::parse_peak(text, peak_key)
}

#[cfg(test)]
mod tests {
    use super::peaks::PeakKey;
    use super::*;

    /// The keys' forms in messages are the registry's: the same text as before the
    /// resources parsed their own keys.
    #[test]
    fn the_accepted_keys_are_listed_in_the_registry_s_order() {
        assert_eq!(
            peak_keys(),
            "cpu, cpu.PRECISION, cpu.PRECISION.ISA, memory, memory.l1|l2|l3|dram, disk, disk.throughput, disk.iops, net, gpu.PRECISION, gpu.memory, gpu.pcie, gpu.read|write|copy|h2d|d2h, memory.latency, memory.latency.l1|l2|l3|dram, disk.latency, net.latency"
        );
    }

    /// The results model's built-in rows (what a file's results are read with) are
    /// the registry's resources, in its order; every registered name is valid.
    #[test]
    fn the_models_rows_are_the_registry() {
        use crate::report::model::ResourceName;
        let built_in: Vec<&str> = ResourceName::ALL.iter().map(|r| r.as_str()).collect();
        let registered: Vec<&str> = RESOURCES
            .iter()
            .map(|r| r.name())
            .filter(|n| built_in.contains(n))
            .collect();
        assert_eq!(built_in, registered);
        for r in RESOURCES {
            crate::report::kinds::valid_name(r.name()).unwrap();
        }
        assert_eq!(
            measuring_commands(),
            "cpu, memory, disk, net, gpu, linalg, the quick suite"
        );
        assert_eq!(taking(resource::CommonFlag::Weak), "cpu, memory and linalg");
        assert_eq!(
            cpus_only(),
            "applies only to the cpu, memory, net, gpu and linalg commands; drop --cpus (or run the command under taskset -c)"
        );
    }

    /// Every visible resource is in the quick suite, in the registry's order; the
    /// hidden ones are not.
    #[test]
    fn the_quick_suite_is_the_visible_resources() {
        let names: Vec<&str> = quick_suite().map(|r| r.name()).collect();
        assert_eq!(names, ["cpu", "memory", "disk", "net", "gpu", "linalg"]);
        for r in RESOURCES {
            assert_eq!(names.contains(&r.name()), !r.hidden(), "{}", r.name());
            assert_eq!(find(r.name()).map(|f| f.name()), Some(r.name()));
        }
    }

    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    fn ok(t: &str) -> (String, f64) {
        parse_peak(t)
            .map(|(k, v)| (k.to_string(), v))
            .unwrap_or_else(|e| panic!("{t}: {e}"))
    }
    fn err(t: &str) -> String {
        let e = parse_peak(t).expect_err(t).0;
        assert!(e.starts_with("--peak: "), "{e}");
        assert!(!e.contains('\n'), "{e}");
        e
    }

    /// Every key a resource can look up, as the resources build them.
    fn every_key() -> Vec<PeakKey> {
        use cpu::peak_key as c;
        use disk::case::{peak_key as d, DiskPeak};
        use gpu::{peak_key as g, GpuPeak};
        use memory::peak_key as m;
        let mut keys = vec![
            PeakKey::new("null"),
            c(None),
            m(None),
            d(None),
            d(Some(DiskPeak::Throughput)),
            d(Some(DiskPeak::Iops)),
            net::results::peak_key(),
            g(GpuPeak::Memory),
            g(GpuPeak::Pcie),
        ];
        for k in cpu::kernels::all() {
            keys.push(c(Some((k.precision, Some(k.isa)))));
            keys.push(c(Some((k.precision, None))));
        }
        keys.extend(memory::Level::ALL.map(|l| m(Some(l))));
        for (r, _) in peaks::LATENCY {
            keys.extend(peaks::latency_keys(r, None));
        }
        for l in memory::Level::ALL {
            keys.extend(peaks::latency_keys("memory", Some(l.name())));
        }
        keys.extend(crate::hw::gpu_table::GpuPrecision::ALL.map(|p| g(GpuPeak::Precision(p))));
        for k in gpu::options::MemKernel::ALL {
            if k != gpu::options::MemKernel::Dispatch {
                keys.push(g(GpuPeak::Kernel(k)));
            }
        }
        keys
    }

    #[test]
    fn every_key_a_resource_looks_up_reads_back_from_its_text() {
        for k in every_key() {
            let text = k.to_string();
            assert_eq!(peak_key(&text).map(|(k, _)| k), Ok(k), "{text}");
            assert_eq!(text, text.to_ascii_lowercase());
        }
    }

    // x86 kernels and ISAs by name (aarch64 builds have other ones).
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn values_come_back_in_the_results_unit() {
        assert_eq!(ok("cpu.fp64=100gflop/s"), ("cpu.fp64".into(), 100e9));
        assert_eq!(ok("cpu.FP64.avx2=1T"), ("cpu.fp64.avx2".into(), 1e12));
        assert_eq!(ok("memory=68GB/s").1, 68e9);
        assert_eq!(ok("memory.L1=8Tbit/s").1, 1e12);
        assert_eq!(ok("disk=4GiB/s").1, 4.0 * (1u64 << 30) as f64);
        assert_eq!(ok("disk.iops=500k").1, 500e3);
        assert_eq!(ok("gpu.fp32=60TFLOP/s").1, 60e12);
        assert_eq!(ok("gpu.h2d=25GB/s").1, 25e9);
        // Links are rated in bit/s: a bare number is bits, B/s is taken as written.
        assert_eq!(ok("net=10G").1, 1.25e9);
        assert_eq!(ok("net=10Gbit/s").1, 1.25e9);
        assert_eq!(ok("net=1.25GB/s").1, 1.25e9);
        // Latencies (#48) are times, in seconds.
        assert_eq!(
            ok("memory.latency.L1=2ns"),
            ("memory.latency.l1".into(), 2e-9)
        );
        assert_eq!(ok("net.latency=10us").1, 1e-5);
        assert_eq!(ok("disk.latency=80us").1, 8e-5);
    }

    /// The latency table's memory levels are the memory resource's.
    #[test]
    fn the_latency_levels_are_the_memory_levels() {
        let levels: Vec<String> = memory::Level::ALL
            .iter()
            .map(|l| l.name().to_ascii_lowercase())
            .collect();
        let table = peaks::LATENCY
            .iter()
            .find(|(r, _)| *r == "memory")
            .unwrap()
            .1;
        assert_eq!(levels, table);
        // And the resources the table names exist.
        for (r, _) in peaks::LATENCY {
            assert!(find(r).is_some(), "{r}");
        }
    }

    // x86 kernels and ISAs by name (aarch64 builds have other ones).
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn unknown_keys_are_refused_naming_the_accepted_ones() {
        let e = err("cpu.fp46=1T");
        assert!(
            e.contains("unknown CPU precision 'fp46'") && e.contains("fp64"),
            "{e}"
        );
        let e = err("cpu.fp64.avx-vnni=1T");
        assert!(
            e.contains("ISA 'avx-vnni'") && e.contains("cpu.fp64.scalar"),
            "{e}"
        );
        for k in [
            "gpu",
            "gpu.dispatch",
            "memory.l4",
            // `disk.latency` is a key since #48.
            "disk.latency2",
            "nett",
            "cpu.fp64.avx2.x",
            "gpu.fp128",
        ] {
            let e = err(&format!("{k}=1"));
            assert!(
                e.contains(&format!("unknown key '{k}'")) && e.contains("memory.l1|l2|l3|dram"),
                "{e}"
            );
        }
    }

    #[test]
    fn units_must_fit_the_key() {
        let e = err("cpu.fp64=100GB/s");
        assert!(e.contains("operation rate") && e.contains("'GB/s'"), "{e}");
        let e = err("memory=68GFLOP/s");
        assert!(
            e.contains("bandwidth") && e.contains("memory=68GB/s"),
            "{e}"
        );
        let e = err("disk.iops=1GB/s");
        assert!(e.contains("I/O rate"), "{e}");
        let e = err("net=1TFLOP/s");
        assert!(e.contains("link speed"), "{e}");
        let e = err("cpu.fp64=100Xyz");
        assert!(e.contains("unknown unit 'Xyz'"), "{e}");
        // What the user pasted is echoed on one line, escaped (found by fuzzing).
        for t in ["\n", "cpu=1\x1b[2J", "cpu.fp64=1\nGB/s", "x\u{202e}=1"] {
            let e = err(t);
            assert!(crate::util::sanitize::is_clean(&e), "{e:?}");
        }
    }
}
