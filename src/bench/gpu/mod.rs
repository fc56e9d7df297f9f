//! `peakbench gpu`: compute throughput per precision, device memory and transfer
//! bandwidth, and dispatch latency, through wgpu: one code path for every vendor
//! (Vulkan; wgpu's Metal and DX12 backends are one Cargo feature away).
//!
//! - Adapters are detected once per run (`hw::gpu`); `--device N` picks one, the
//!   default is the first (discrete before integrated before software). A software
//!   adapter (lavapipe, SwiftShader, WARP) is labelled so on every result.
//! - No adapter: every GPU case is `skipped` with the reason, exit 0.
//! - Kernels (`compute.rs`, `memory.rs`) are calibrated until one dispatch lasts
//!   [`DISPATCH_TARGET`] (or `--min-time` when shorter), checked against the CPU, then
//!   timed with GPU timestamps where the adapter has them.
//! - Peaks come from the known-GPU table (`hw::gpu_table`) at the clock nvidia-smi
//!   reports, or the datasheet boost clock; `--peak gpu.fp32=…`, `gpu.memory=…`,
//!   `gpu.pcie=…` override them.

pub(crate) mod compute;
pub(crate) mod device;
#[cfg(test)]
mod kernel_tests;
pub(crate) mod list;
pub(crate) mod memory;
pub mod options;

use super::common::{ram_refuses, ram_room, RAM_FRACTION};
use super::peaks::{PeakKey, PeakKind};
use super::resource::{self, Case, CommonFlag, Context, Plan, Run, UsageError};
use crate::hw::gpu::GpuInfo;
use crate::hw::gpu_table::GpuPrecision;
use crate::hw::peak::Peak;
use crate::report::model::{BenchResult, Metric, ResourceName, Unit};
use device::Gpu;
use options::{GpuOptions, MemKernel};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

/// How long one timed dispatch (or unit of copies) should last at least.
pub(crate) const DISPATCH_TARGET: Duration = Duration::from_millis(100);
/// Default buffer size of the memory kernels on a hardware adapter.
const DEFAULT_SIZE: u64 = 1 << 30;
/// Default buffer size on a software adapter (its "device memory" is host memory).
const SOFTWARE_SIZE: u64 = 256 << 20;

/// The GPU resource.
pub(crate) struct GpuBench;

/// The GPU peaks a `gpu.…` key names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GpuPeak {
    /// `gpu.PRECISION`: a compute kernel's rate.
    Precision(GpuPrecision),
    /// `gpu.memory`: the device memory bandwidth.
    Memory,
    /// `gpu.pcie`: the host link.
    Pcie,
    /// `gpu.read|write|copy|h2d|d2h`: one memory or transfer kernel (never `dispatch`).
    Kernel(MemKernel),
}

/// The `--peak` key `gpu.PRECISION`, `gpu.memory`, `gpu.pcie` or `gpu.KERNEL`: the one
/// spelling of the keys this resource looks up and accepts.
pub(crate) fn peak_key(which: GpuPeak) -> PeakKey {
    PeakKey::new(match which {
        GpuPeak::Precision(p) => format!("gpu.{}", p.name()),
        GpuPeak::Memory => "gpu.memory".to_string(),
        GpuPeak::Pcie => "gpu.pcie".to_string(),
        GpuPeak::Kernel(k) => format!("gpu.{}", k.name()),
    })
}

/// The adapter a plan runs on, opened by the first case that needs it.
struct Shared {
    info: GpuInfo,
    gpu: OnceLock<Result<Arc<Gpu>, String>>,
}

impl Shared {
    fn gpu(&self) -> Result<Arc<Gpu>, String> {
        self.gpu
            .get_or_init(|| Gpu::open(&self.info).map(Arc::new))
            .clone()
    }
}

enum What {
    Compute(GpuPrecision),
    Memory(MemKernel),
}

impl What {
    fn workload(&self) -> &'static str {
        match self {
            What::Compute(p) => compute::Kernel::of(*p).workload,
            What::Memory(k) => k.name(),
        }
    }

    fn skeleton(&self) -> BenchResult {
        match self {
            What::Compute(p) => {
                let k = compute::Kernel::of(*p);
                BenchResult::new(ResourceName::Gpu, k.workload, Metric::Ops, k.unit)
                    .param("precision", p.name())
            }
            What::Memory(MemKernel::Dispatch) => {
                BenchResult::new(ResourceName::Gpu, "dispatch", Metric::Latency, Unit::Second)
            }
            What::Memory(k) => BenchResult::new(
                ResourceName::Gpu,
                k.name(),
                Metric::Throughput,
                Unit::BytePerSec,
            ),
        }
    }
}

/// One GPU case.
struct GpuCase {
    what: What,
    shared: Option<Arc<Shared>>,
    /// Why it cannot run (no adapter, precision missing), decided at plan time.
    skip: Option<String>,
    size: Option<u64>,
}

impl Case for GpuCase {
    fn label(&self) -> String {
        let dev = self
            .shared
            .as_ref()
            .map(|s| format!(" on {}", s.info.name))
            .unwrap_or_default();
        match &self.what {
            What::Compute(p) => format!("gpu {} {}{dev}", p.name(), self.what.workload()),
            What::Memory(k) => format!("gpu {}{dev}", k.name()),
        }
    }

    fn run(&self, ctx: &Context) -> Vec<BenchResult> {
        vec![self.result(ctx)]
    }
}

impl GpuCase {
    /// The case's one result.
    fn result(&self, ctx: &Context) -> BenchResult {
        let mut r = self.what.skeleton();
        if let Some(why) = &self.skip {
            return r.skipped(why.clone());
        }
        let Some(shared) = &self.shared else {
            return r.skipped("no GPU adapter");
        };
        let info = &shared.info;
        r = r.param("device", info.index);
        if info.software {
            r = r.param("software", true);
        }
        // A driver that panics inside wgpu fails this case, not the whole run.
        let skeleton = r.clone();
        let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let gpu = match shared.gpu() {
                Ok(g) => g,
                Err(e) => return r.failed(e),
            };
            let target = DISPATCH_TARGET
                .min(ctx.opts.min_time)
                .max(Duration::from_millis(1));
            let out = match &self.what {
                What::Compute(p) => run_compute(&gpu, *p, target, ctx, r),
                What::Memory(k) => {
                    let size = self.size.unwrap_or(if info.software {
                        SOFTWARE_SIZE
                    } else {
                        DEFAULT_SIZE
                    });
                    run_memory(&gpu, *k, size, target, ctx, r)
                }
            };
            // Leave the device idle and error-free for the next case.
            let _ = gpu.wait();
            out
        }));
        run.unwrap_or_else(|p| {
            let msg = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "unknown panic".into());
            skeleton.failed(format!("the GPU driver or wgpu panicked: {msg}"))
        })
    }
}

fn run_compute(
    gpu: &Gpu,
    p: GpuPrecision,
    target: Duration,
    ctx: &Context,
    mut r: BenchResult,
) -> BenchResult {
    let kernel = compute::Kernel::of(p);
    let prepared = match compute::prepare(gpu, kernel, target) {
        Ok(x) => x,
        Err(e) => return r.failed(e),
    };
    let mut samples = Vec::new();
    for _ in 0..ctx.opts.repeat {
        match compute::sample(gpu, &prepared, ctx.opts.min_time) {
            Ok((ops, secs)) => samples.push(ops / secs),
            Err(e) => return r.failed(e),
        }
    }
    let mut note = format!(
        "{}; {}; {} invocations x {} iterations x {} lanes x {} op, one dispatch {:.0} ms; every invocation's result checked against the CPU",
        adapter_note(&gpu.info),
        gpu.timing_note(),
        prepared.groups * device::WORKGROUP,
        prepared.iters,
        compute::UNROLL * compute::ACC * 4,
        kernel.ops_per_step,
        prepared.dispatch_s * 1e3
    );
    if p == GpuPrecision::Int8 {
        note.push_str(
            "; dot4I8Packed is one OpSDot (DP4A) where the driver has VK_KHR_shader_integer_dot_product, else naga emulates it",
        );
    }
    r.info(note);
    let peak = peak_for(&gpu.info, p.name(), &[peak_key(GpuPeak::Precision(p))], ctx);
    r.with_samples(samples).with_peak(peak)
}

fn run_memory(
    gpu: &Gpu,
    k: MemKernel,
    size: u64,
    target: Duration,
    ctx: &Context,
    mut r: BenchResult,
) -> BenchResult {
    let m = match memory::run(
        gpu,
        k,
        size,
        memory::Budget {
            target,
            min_time: ctx.opts.min_time,
            repeat: ctx.opts.repeat,
        },
    ) {
        Ok(m) => m,
        Err(e) => return r.failed(e),
    };
    for (name, v) in m.params {
        r = r.param(name, v);
    }
    let timing = if k == MemKernel::Dispatch {
        String::new()
    } else {
        format!("; {}", gpu.timing_note())
    };
    r.info(format!(
        "{}{timing}; {}",
        adapter_note(&gpu.info),
        m.notes.join("; ")
    ));
    r.percentiles = m.percentiles;
    let r = r.with_samples(m.samples);
    match k {
        MemKernel::Dispatch => r,
        MemKernel::H2d | MemKernel::D2h => {
            let keys = [peak_key(GpuPeak::Kernel(k)), peak_key(GpuPeak::Pcie)];
            let peak = peak_for(&gpu.info, "pcie", &keys, ctx);
            r.with_peak(peak)
        }
        _ => {
            let keys = [peak_key(GpuPeak::Kernel(k)), peak_key(GpuPeak::Memory)];
            let peak = peak_for(&gpu.info, "memory", &keys, ctx);
            r.with_peak(peak)
        }
    }
}

/// `name (type)`, with the software case spelled out.
fn adapter_note(info: &GpuInfo) -> String {
    if info.software {
        format!(
            "{} (software adapter: the GPU is emulated on the CPU)",
            info.name
        )
    } else {
        format!("{} ({} GPU)", info.name, info.device_type)
    }
}

/// The peak under `key` of the adapter, or a `--peak` override among `keys`.
fn peak_for(info: &GpuInfo, key: &str, keys: &[PeakKey], ctx: &Context) -> Peak {
    if let Some(p) = ctx.opts.peaks.peak(keys) {
        return p;
    }
    info.peak(key)
        .cloned()
        .unwrap_or_else(|| Peak::unknown(format!("unknown: no {key} peak for {}", info.name)))
}

/// The adapter a run uses, or why there is none.
fn pick(ctx: &Context, device: Option<usize>) -> Result<Result<GpuInfo, String>, UsageError> {
    let det = &ctx.host.gpus;
    match device {
        Some(i) if i >= det.adapters.len() => {
            let found = if det.adapters.is_empty() {
                format!(
                    "this machine has no GPU adapter ({})",
                    det.note.as_deref().unwrap_or("none found")
                )
            } else {
                let names: Vec<String> = det
                    .adapters
                    .iter()
                    .map(|g| format!("{}: {}", g.index, g.name))
                    .collect();
                format!(
                    "accepted: 0 to {} ({})",
                    det.adapters.len() - 1,
                    names.join(", ")
                )
            };
            Err(UsageError::new(
                "--device",
                format!("{i} is out of range; {found}"),
            ))
        }
        Some(i) => Ok(Ok(det.adapters[i].clone())),
        None => Ok(det.adapters.first().cloned().ok_or_else(|| {
            det.note
                .clone()
                .unwrap_or_else(|| "no GPU adapter found".to_string())
        })),
    }
}

fn cases(
    ctx: &Context,
    o: &GpuOptions,
    compute: &[GpuPrecision],
    mem: &[MemKernel],
) -> Result<Vec<Box<dyn Case>>, UsageError> {
    let adapter = pick(ctx, o.device)?;
    let shared = adapter.as_ref().ok().map(|info| {
        Arc::new(Shared {
            info: info.clone(),
            gpu: OnceLock::new(),
        })
    });
    if let (Ok(info), Some(size)) = (&adapter, o.size) {
        fits(info, size, mem, ctx.host.memory.available_bytes)?;
    }
    let no_adapter = adapter.as_ref().err().cloned();
    let mut out: Vec<Box<dyn Case>> = Vec::new();
    for &p in compute {
        let mut skip = no_adapter.clone();
        if let Ok(info) = &adapter {
            if let Err(why) = info.supports(p) {
                if !o.all_precisions() {
                    return Err(UsageError::new(
                        "--precision",
                        format!("{why}; see `peakbench gpu --list`, or use --precision all to skip what it lacks"),
                    ));
                }
                skip = Some(why);
            }
        }
        out.push(Box::new(GpuCase {
            what: What::Compute(p),
            shared: shared.clone(),
            skip,
            size: o.size,
        }));
    }
    for &k in mem {
        out.push(Box::new(GpuCase {
            what: What::Memory(k),
            shared: shared.clone(),
            skip: no_adapter.clone(),
            size: o.size,
        }));
    }
    Ok(out)
}

/// Checks `--size` against memory before anything is allocated: on a software adapter
/// the device's buffers are host memory, so the largest kernel's buffers (copy: source
/// and destination) must fit in MemAvailable (`available`; 0 when unknown: no check).
/// A hardware adapter does not report its memory through wgpu: an allocation it
/// cannot make fails its case with the driver's error.
fn fits(info: &GpuInfo, size: u64, mem: &[MemKernel], available: u64) -> Result<(), UsageError> {
    use crate::util::units::format_size;
    let (kernel, need) = if mem.contains(&MemKernel::Copy) {
        ("copy", size.saturating_mul(2))
    } else if mem
        .iter()
        .any(|k| matches!(k, MemKernel::Read | MemKernel::Write))
    {
        ("read/write", size)
    } else {
        return Ok(());
    };
    // The share of MemAvailable the buffers of a software adapter may take is the
    // memory benchmark's (`common::RAM_FRACTION`).
    let room = ram_room(available);
    if info.software && ram_refuses(need, available) {
        return Err(UsageError::new(
            "--size",
            format!(
                "the {kernel} kernel needs {} of buffers, and on the software adapter '{}' they are host memory: only {} is available ({:.0} % of MemAvailable {}); use a smaller --size",
                format_size(need),
                crate::util::sanitize::line_max(&info.name, 80),
                format_size(room),
                RAM_FRACTION * 100.0,
                format_size(available)
            ),
        ));
    }
    Ok(())
}

impl Plan for GpuBench {
    type Options = GpuOptions;

    fn refuses(&self, _o: &GpuOptions, flag: CommonFlag) -> Option<&'static str> {
        match flag {
            CommonFlag::Weak => Some("the GPU kernels run on one device with no thread count to scale; drop --weak"),
            CommonFlag::UntilStable => Some("GPU kernels run on the device, with no per-sample check of CPU threads; drop --until-stable and set --repeat"),
            // The host side's threads (driver, software adapter) follow --cpus.
            CommonFlag::Cpus => None,
        }
    }

    /// `--list` prints the adapters instead (the top runs it: it measures nothing).
    fn action(&self, o: &GpuOptions) -> Option<resource::Action> {
        o.list.then(list::action)
    }

    fn plan(&self, o: &GpuOptions, ctx: &Context) -> Result<Vec<Box<dyn Case>>, UsageError> {
        cases(ctx, o, &o.compute(), &o.memory())
    }
}

impl resource::Resource for GpuBench {
    fn name(&self) -> &'static str {
        "gpu"
    }

    fn about(&self) -> &'static str {
        "GPU compute per precision, memory and transfer bandwidth, dispatch latency (wgpu over Vulkan)"
    }

    fn never_takes(&self) -> &'static [CommonFlag] {
        &[CommonFlag::Weak, CommonFlag::UntilStable]
    }

    fn command(&self) -> clap::Command {
        resource::subcommand::<options::GpuOptions>(self)
    }

    fn parse(&self, m: &clap::ArgMatches) -> Result<Box<dyn Run>, UsageError> {
        resource::parse_with(&GpuBench, m, options::parse)
    }

    fn peak_keys(&self) -> &'static str {
        "gpu.PRECISION, gpu.memory, gpu.pcie, gpu.read|write|copy|h2d|d2h"
    }

    fn peak_key(&self, _key: &str, rest: &[&str]) -> Result<Option<(PeakKey, PeakKind)>, String> {
        let [x] = rest else { return Ok(None) };
        let which = match *x {
            "memory" => GpuPeak::Memory,
            "pcie" => GpuPeak::Pcie,
            x => {
                if let Some(p) = GpuPrecision::ALL.into_iter().find(|p| p.name() == x) {
                    GpuPeak::Precision(p)
                } else if let Some(k) = MemKernel::ALL
                    .into_iter()
                    .find(|k| *k != MemKernel::Dispatch && k.name() == x)
                {
                    GpuPeak::Kernel(k)
                } else {
                    return Ok(None);
                }
            }
        };
        let kind = match which {
            GpuPeak::Precision(_) => PeakKind::Ops,
            _ => PeakKind::Bytes,
        };
        Ok(Some((peak_key(which), kind)))
    }

    fn quick(&self, ctx: &Context) -> Vec<Box<dyn Case>> {
        // No `--precision`: every precision the adapter lacks is skipped.
        let o = GpuOptions::default();
        cases(ctx, &o, &[GpuPrecision::Fp32], &[MemKernel::Copy]).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::common::{self, args_from, CommonArgs};
    use crate::bench::resource::Resource as _;
    use crate::hw::gpu::{GpuDetection, GpuLimits};
    use options::GpuOptions;

    fn host_with(features: &[&str]) -> crate::hw::HostInfo {
        let mut h = crate::report::samples::host();
        h.gpus = GpuDetection {
            adapters: vec![GpuInfo {
                index: 0,
                name: "Test GPU".into(),
                vendor: "Test".into(),
                vendor_id: 0x1234,
                device_id: 1,
                device_type: "discrete".into(),
                software: false,
                driver: "test".into(),
                driver_info: String::new(),
                backend: "vulkan".into(),
                features: features.iter().map(|s| s.to_string()).collect(),
                limits: GpuLimits::default(),
                model: None,
                peaks: Vec::new(),
            }],
            note: None,
        };
        h
    }

    fn plan(host: &crate::hw::HostInfo, args: &[&str]) -> Result<Vec<Box<dyn Case>>, UsageError> {
        let o = options::parse(&args_from::<GpuOptions>(args)).unwrap();
        let opts = common::parse(&CommonArgs::default(), false).unwrap();
        GpuBench.plan(&o, &Context { host, opts: &opts })
    }

    /// Issue #27 item 8: on a software adapter a size whose buffers exceed the host's
    /// available memory is refused before anything is allocated; a hardware adapter
    /// is not judged by host memory.
    #[test]
    fn sizes_are_checked_against_memory_before_allocating() {
        let mut h = host_with(&[]);
        h.memory.available_bytes = 8 << 30;
        h.gpus.adapters[0].software = true;
        let e = plan(&h, &["--kernel", "copy", "--size", "4GiB"])
            .err()
            .unwrap()
            .0;
        for needle in ["--size:", "8 GiB", "software adapter", "MemAvailable 8 GiB"] {
            assert!(e.contains(needle), "{needle:?} in {e}");
        }
        assert!(plan(&h, &["--kernel", "read", "--size", "4GiB"]).is_ok());
        assert!(plan(&h, &["--kernel", "h2d", "--size", "1TiB"]).is_ok());
        assert!(plan(&h, &["--kernel", "read", "--size", "1TiB"]).is_err());
        h.gpus.adapters[0].software = false;
        assert!(plan(&h, &["--kernel", "copy", "--size", "64GiB"]).is_ok());
    }

    #[test]
    fn a_precision_the_adapter_lacks_is_refused_or_skipped() {
        let h = host_with(&["f16"]);
        let e = plan(&h, &["--precision", "fp64"]).err().unwrap().0;
        assert!(
            e.starts_with("--precision:") && e.contains("SHADER_F64"),
            "{e}"
        );
        let cases = plan(&h, &["--precision", "all"]).unwrap();
        assert_eq!(cases.len(), 6);
        let opts = common::parse(&CommonArgs::default(), false).unwrap();
        let ctx = Context {
            host: &h,
            opts: &opts,
        };
        // fp64 (index 2) and int64 (index 5) are skipped without touching a device.
        for i in [2, 5] {
            let [r] = &cases[i].run(&ctx)[..] else {
                panic!("one result per GPU case")
            };
            let reason = match &r.status {
                crate::report::model::Status::Skipped { reason } => reason.clone(),
                s => panic!("{s:?}"),
            };
            assert!(reason.contains("does not offer"), "{reason}");
        }
    }

    #[test]
    fn device_out_of_range_names_the_adapters() {
        let h = host_with(&[]);
        let e = plan(&h, &["--device", "3"]).err().unwrap().0;
        assert!(e.starts_with("--device: 3 is out of range"), "{e}");
        assert!(e.contains("0: Test GPU"), "{e}");
        assert_eq!(
            plan(&h, &["--device", "0", "--kernel", "copy"])
                .unwrap()
                .len(),
            1
        );
    }

    #[test]
    fn no_adapter_skips_every_case_with_the_reason() {
        let mut h = host_with(&[]);
        h.gpus = GpuDetection {
            adapters: Vec::new(),
            note: Some("no GPU adapter: test".into()),
        };
        let opts = common::parse(&CommonArgs::default(), true).unwrap();
        let ctx = Context {
            host: &h,
            opts: &opts,
        };
        let quick = GpuBench.quick(&ctx);
        assert_eq!(quick.len(), 2);
        for c in quick {
            let [r] = &c.run(&ctx)[..] else {
                panic!("one result per GPU case")
            };
            assert!(matches!(&r.status,
                crate::report::model::Status::Skipped { reason } if reason == "no GPU adapter: test"));
        }
    }
}
