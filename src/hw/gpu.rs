//! GPU detection through wgpu (Vulkan; every backend compiled in is asked): one
//! [`GpuInfo`] per adapter, in the order `--device N` uses, with the
//! features and limits the GPU benchmarks depend on and the datasheet peaks of known
//! models (`gpu_table`).
//!
//! Enumeration runs in its own thread with a time limit: a broken driver must not stop a
//! CPU or disk run, it only leaves the GPU list empty with the reason.

use super::gpu_table::{self, GpuPrecision};
use super::peak::Peak;
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// How long adapter enumeration may take before it is given up.
const ENUMERATE_TIMEOUT: Duration = Duration::from_secs(20);

/// The limits of an adapter that decide the size of the GPU kernels.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub(crate) struct GpuLimits {
    /// Largest buffer, bytes.
    pub(crate) max_buffer_size: u64,
    /// Largest storage-buffer binding, bytes (bigger working sets are split into chunks).
    pub(crate) max_storage_buffer_binding_size: u64,
    /// Largest workgroup count in one dimension of a dispatch.
    pub(crate) max_compute_workgroups_per_dimension: u32,
    /// Most invocations in one workgroup.
    pub(crate) max_compute_invocations_per_workgroup: u32,
}

/// One adapter.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub(crate) struct GpuInfo {
    /// Position in the adapter list (`--device N`).
    pub(crate) index: usize,
    /// Adapter name as the driver reports it.
    pub(crate) name: String,
    /// Vendor name (from the PCI vendor id, or the driver for software adapters).
    pub(crate) vendor: String,
    /// PCI vendor id (Mesa's software devices use 0x10005).
    pub(crate) vendor_id: u32,
    /// PCI device id.
    pub(crate) device_id: u32,
    /// `discrete`, `integrated`, `virtual`, `cpu` or `other`.
    pub(crate) device_type: String,
    /// A software rasteriser (lavapipe/llvmpipe, SwiftShader, WARP): the "GPU" is the CPU.
    pub(crate) software: bool,
    /// Driver name.
    pub(crate) driver: String,
    /// Driver version text.
    pub(crate) driver_info: String,
    /// wgpu backend (`vulkan`, `metal`, `dx12`).
    pub(crate) backend: String,
    /// Shader features the benchmarks use: `f16`, `f64`, `int64`, `timestamp`.
    pub(crate) features: Vec<String>,
    /// Limits that size the kernels.
    pub(crate) limits: GpuLimits,
    /// The row of the known-GPU table that matched, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) model: Option<String>,
    /// Theoretical peaks by key (`fp32`, `fp16`, `fp64`, `int32`, `int8`, `int64`,
    /// `memory`), each with its provenance.
    #[serde(default)]
    pub(crate) peaks: Vec<(String, Peak)>,
}

impl GpuInfo {
    /// Whether the adapter offers what `p` needs in a shader.
    pub(crate) fn supports(&self, p: GpuPrecision) -> Result<(), String> {
        let need = match p {
            GpuPrecision::Fp16 => "f16",
            GpuPrecision::Fp64 => "f64",
            GpuPrecision::Int64 => "int64",
            GpuPrecision::Fp32 | GpuPrecision::Int32 | GpuPrecision::Int8 => return Ok(()),
        };
        if self.features.iter().any(|f| f == need) {
            Ok(())
        } else {
            Err(format!(
                "adapter {} ({}) does not offer {} in shaders (wgpu feature {})",
                self.index,
                self.name,
                p.name(),
                match p {
                    GpuPrecision::Fp16 => "SHADER_F16",
                    GpuPrecision::Fp64 => "SHADER_F64",
                    _ => "SHADER_INT64",
                }
            ))
        }
    }

    /// The peak stored under `key`.
    pub(crate) fn peak(&self, key: &str) -> Option<&Peak> {
        self.peaks.iter().find(|(k, _)| k == key).map(|(_, p)| p)
    }

    /// `name (type, driver)` with `software` spelled out, for labels.
    pub(crate) fn label(&self) -> String {
        let soft = if self.software { ", software" } else { "" };
        format!(
            "{} ({}{soft}, {} {})",
            self.name, self.device_type, self.backend, self.driver
        )
    }
}

/// What enumeration found: the adapters, or why there are none.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub(crate) struct GpuDetection {
    /// Adapters in `--device` order.
    pub(crate) adapters: Vec<GpuInfo>,
    /// Why the list is empty (no Vulkan loader, no driver, timed out…).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) note: Option<String>,
}

/// A wgpu instance on every backend compiled in, without validation layers
/// (`WGPU_BACKEND`, `WGPU_VALIDATION`, … still apply).
pub(crate) fn instance() -> wgpu::Instance {
    let desc = wgpu::InstanceDescriptor {
        backends: wgpu::Backends::all(),
        flags: wgpu::InstanceFlags::empty(),
        ..wgpu::InstanceDescriptor::new_without_display_handle()
    }
    .with_env();
    wgpu::Instance::new(desc)
}

/// The adapters of `inst`, best first: discrete, integrated, virtual, other, then
/// software; ties keep the driver's order. `--device N` indexes this list.
pub(crate) fn adapters(inst: &wgpu::Instance) -> Vec<wgpu::Adapter> {
    let mut list = pollster::block_on(inst.enumerate_adapters(wgpu::Backends::all()));
    list.sort_by_key(|a| rank(&a.get_info()));
    list
}

fn rank(info: &wgpu::AdapterInfo) -> u8 {
    if is_software(info) {
        return 9;
    }
    match info.device_type {
        wgpu::DeviceType::DiscreteGpu => 0,
        wgpu::DeviceType::IntegratedGpu => 1,
        wgpu::DeviceType::VirtualGpu => 2,
        wgpu::DeviceType::Other => 3,
        wgpu::DeviceType::Cpu => 9,
    }
}

/// Software rasterisers: CPU device type, or a known software driver name.
pub(crate) fn is_software(info: &wgpu::AdapterInfo) -> bool {
    let n = format!("{} {}", info.name, info.driver).to_lowercase();
    info.device_type == wgpu::DeviceType::Cpu
        || ["llvmpipe", "lavapipe", "swiftshader", "warp", "softpipe"]
            .iter()
            .any(|s| n.contains(s))
}

fn vendor_name(id: u32, info: &wgpu::AdapterInfo) -> String {
    match id {
        0x10de => "NVIDIA".into(),
        0x1002 | 0x1022 => "AMD".into(),
        0x8086 => "Intel".into(),
        0x13b5 => "ARM".into(),
        0x5143 => "Qualcomm".into(),
        0x106b => "Apple".into(),
        0x1010 => "Imagination".into(),
        0x10005 => "Mesa".into(),
        _ if !info.driver.is_empty() => info.driver.clone(),
        _ => format!("0x{id:04x}"),
    }
}

fn device_type(t: wgpu::DeviceType) -> &'static str {
    match t {
        wgpu::DeviceType::DiscreteGpu => "discrete",
        wgpu::DeviceType::IntegratedGpu => "integrated",
        wgpu::DeviceType::VirtualGpu => "virtual",
        wgpu::DeviceType::Cpu => "cpu",
        wgpu::DeviceType::Other => "other",
    }
}

/// Describes one adapter (no device is created); `smi` is what nvidia-smi reported,
/// read once for all adapters.
pub(crate) fn describe(index: usize, a: &wgpu::Adapter, smi: &[gpu_table::SmiClock]) -> GpuInfo {
    let info = a.get_info();
    let f = a.features();
    let l = a.limits();
    let mut features = Vec::new();
    for (flag, name) in [
        (wgpu::Features::SHADER_F16, "f16"),
        (wgpu::Features::SHADER_F64, "f64"),
        (wgpu::Features::SHADER_INT64, "int64"),
        (wgpu::Features::TIMESTAMP_QUERY, "timestamp"),
    ] {
        if f.contains(flag) {
            features.push(name.to_string());
        }
    }
    let mut g = GpuInfo {
        index,
        name: info.name.clone(),
        vendor: vendor_name(info.vendor, &info),
        vendor_id: info.vendor,
        device_id: info.device,
        device_type: device_type(info.device_type).into(),
        software: is_software(&info),
        driver: info.driver.clone(),
        driver_info: info.driver_info.clone(),
        backend: info.backend.to_str().into(),
        features,
        limits: GpuLimits {
            max_buffer_size: l.max_buffer_size,
            max_storage_buffer_binding_size: l.max_storage_buffer_binding_size,
            max_compute_workgroups_per_dimension: l.max_compute_workgroups_per_dimension,
            max_compute_invocations_per_workgroup: l.max_compute_invocations_per_workgroup,
        },
        model: None,
        peaks: Vec::new(),
    };
    attach_peaks(&mut g, smi);
    let pcie = if let (true, Some((_, same))) = (g.software, g.peaks.first()) {
        same.clone()
    } else {
        pcie_peak(
            g.vendor_id,
            g.device_id,
            std::path::Path::new("/sys/bus/pci/devices"),
        )
    };
    g.peaks.push(("pcie".to_string(), pcie));
    g
}

/// Per-direction PCIe bandwidth of the first PCI function with this vendor and device
/// id, from sysfs: the lower of the device's and its upstream port's maximum link speed
/// and width (the current link speed drops when the GPU idles, so it is not used).
pub(crate) fn pcie_peak(vendor_id: u32, device_id: u32, root: &std::path::Path) -> Peak {
    let read = |p: &std::path::Path| {
        std::fs::read_to_string(p)
            .ok()
            .map(|s| s.trim().to_string())
    };
    let hex = |p: &std::path::Path| {
        read(p).and_then(|s| u32::from_str_radix(s.trim_start_matches("0x"), 16).ok())
    };
    let Ok(dir) = std::fs::read_dir(root) else {
        return Peak::unknown("unknown: /sys/bus/pci is not readable; use --peak gpu.pcie=…");
    };
    let mut entries: Vec<_> = dir.flatten().map(|e| e.path()).collect();
    entries.sort();
    for dev in entries {
        if hex(&dev.join("vendor")) != Some(vendor_id)
            || hex(&dev.join("device")) != Some(device_id)
        {
            continue;
        }
        let link = |d: &std::path::Path| -> Option<(f64, u32)> {
            let speed = read(&d.join("max_link_speed"))?;
            let gts: f64 = speed.split_whitespace().next()?.parse().ok()?;
            let width: u32 = read(&d.join("max_link_width"))?.parse().ok()?;
            (gts > 0.0 && width > 0).then_some((gts, width))
        };
        let Some((mut gts, mut width)) = link(&dev) else {
            return Peak::unknown(format!(
                "unknown: {} has no PCIe link speed in sysfs; use --peak gpu.pcie=…",
                dev.display()
            ));
        };
        if let Some(up) = std::fs::canonicalize(&dev)
            .ok()
            .and_then(|p| p.parent().map(|p| p.to_path_buf()))
        {
            if let Some((g2, w2)) = link(&up) {
                gts = gts.min(g2);
                width = width.min(w2);
            }
        }
        // Line coding: 8b/10b up to 5 GT/s, 128b/130b for 8–32 GT/s, FLIT (242/256) at 64.
        let (enc, code) = if gts <= 5.0 {
            (0.8, "8b/10b")
        } else if gts <= 32.0 {
            (128.0 / 130.0, "128b/130b")
        } else {
            (242.0 / 256.0, "FLIT 242/256")
        };
        let value = gts * 1e9 * width as f64 * enc / 8.0;
        return Peak {
            value: Some(value),
            source: format!(
                "PCIe link {gts} GT/s x{width} ({code}) / 8 = {:.1} GB/s per direction (sysfs max_link_speed/width of {})",
                value / 1e9,
                dev.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default()
            ),
        };
    }
    Peak::unknown("unknown: the GPU's PCI function was not found in sysfs; use --peak gpu.pcie=…")
}

/// Fills `model` and `peaks` from the known-GPU table. The clock is the maximum SM
/// clock `nvidia-smi` reports for a GPU of the same name when there is one (the
/// "reported clock"), else the datasheet boost clock.
pub(crate) fn attach_peaks(g: &mut GpuInfo, smi: &[gpu_table::SmiClock]) {
    if g.software {
        let why = "unknown: software adapter (the GPU is emulated on the CPU; see the cpu peaks)";
        g.peaks = peak_keys()
            .map(|k| (k.to_string(), Peak::unknown(why)))
            .collect();
        return;
    }
    let Some(known) = gpu_table::lookup(g.vendor_id, g.device_id, &g.name) else {
        let why = format!(
            "unknown: {} (vendor 0x{:04x}, device 0x{:04x}) is not in the known-GPU table; use --peak gpu.fp32=…",
            g.name, g.vendor_id, g.device_id
        );
        g.peaks = peak_keys()
            .map(|k| (k.to_string(), Peak::unknown(why.clone())))
            .collect();
        return;
    };
    g.model = Some(known.name.to_string());
    let lname = g.name.to_lowercase();
    let clock = smi
        .iter()
        .find(|s| s.device_id == Some(g.device_id))
        .or_else(|| {
            smi.iter().find(|s| {
                let n = s.name.to_lowercase();
                !n.is_empty() && (lname.contains(&n) || n.contains(&lname))
            })
        })
        .and_then(|s| s.max_sm_mhz);
    for p in GpuPrecision::ALL {
        let (value, mut source) = known.peak(p, clock);
        if clock.is_some() {
            source.push_str(" (clock: nvidia-smi clocks.max.sm)");
        }
        g.peaks.push((p.name().to_string(), Peak { value, source }));
    }
    let (bw, source) = known.mem_peak();
    g.peaks.push((
        "memory".to_string(),
        Peak {
            value: Some(bw),
            source,
        },
    ));
}

fn peak_keys() -> impl Iterator<Item = &'static str> {
    GpuPrecision::ALL
        .into_iter()
        .map(|p| p.name())
        .chain(std::iter::once("memory"))
}

/// Enumerates the adapters, in a thread with a time limit.
pub(crate) fn detect() -> GpuDetection {
    let (tx, rx) = std::sync::mpsc::channel();
    let spawned = std::thread::Builder::new()
        .name("gpu-detect".into())
        .spawn(move || {
            let r = std::panic::catch_unwind(|| {
                let inst = instance();
                let list = adapters(&inst);
                let smi = if list.is_empty() {
                    Vec::new()
                } else {
                    gpu_table::nvidia_smi_clocks()
                };
                list.iter()
                    .enumerate()
                    .map(|(i, a)| describe(i, a, &smi))
                    .collect::<Vec<_>>()
            });
            let _ = tx.send(r);
        });
    if spawned.is_err() {
        return GpuDetection {
            adapters: Vec::new(),
            note: Some("could not start the GPU detection thread".into()),
        };
    }
    match rx.recv_timeout(ENUMERATE_TIMEOUT) {
        Ok(Ok(adapters)) if adapters.is_empty() => GpuDetection {
            adapters,
            note: Some(no_adapter_reason()),
        },
        Ok(Ok(adapters)) => GpuDetection {
            adapters,
            note: None,
        },
        Ok(Err(_)) => GpuDetection {
            adapters: Vec::new(),
            note: Some("the GPU driver panicked during adapter enumeration".into()),
        },
        Err(_) => GpuDetection {
            adapters: Vec::new(),
            note: Some(format!(
                "adapter enumeration did not finish within {} s (driver hung?)",
                ENUMERATE_TIMEOUT.as_secs()
            )),
        },
    }
}

/// Why no adapter was found, as precisely as the environment tells.
fn no_adapter_reason() -> String {
    if cfg!(target_os = "linux") {
        let loader = [
            "/usr/lib/x86_64-linux-gnu/libvulkan.so.1",
            "/usr/lib/aarch64-linux-gnu/libvulkan.so.1",
            "/usr/lib64/libvulkan.so.1",
            "/usr/lib/libvulkan.so.1",
            "/usr/local/lib/libvulkan.so.1",
        ]
        .iter()
        .any(|p| std::path::Path::new(p).exists());
        if !loader {
            return "no GPU adapter: the Vulkan loader (libvulkan.so.1) is not installed \
                    (Debian: apt install libvulkan1 mesa-vulkan-drivers)"
                .into();
        }
        return "no GPU adapter: the Vulkan loader found no driver (ICD); install the GPU's \
                Vulkan driver (Debian: mesa-vulkan-drivers; NVIDIA: the driver's Vulkan ICD)"
            .into();
    }
    "no GPU adapter found by wgpu".into()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(name: &str, vendor_id: u32, device_id: u32, software: bool) -> GpuInfo {
        GpuInfo {
            index: 0,
            name: name.into(),
            vendor: "x".into(),
            vendor_id,
            device_id,
            device_type: if software { "cpu" } else { "discrete" }.into(),
            software,
            driver: "d".into(),
            driver_info: String::new(),
            backend: "vulkan".into(),
            features: vec!["f64".into()],
            limits: GpuLimits::default(),
            model: None,
            peaks: Vec::new(),
        }
    }

    #[test]
    fn software_and_unknown_adapters_have_unknown_peaks_with_reason() {
        let mut g = info("llvmpipe (LLVM 15.0.6, 256 bits)", 0x10005, 0, true);
        attach_peaks(&mut g, &[]);
        let p = g.peak("fp32").unwrap();
        assert!(p.value.is_none() && p.source.contains("software"));
        let mut g = info("Frobnicator 9000", 0x1234, 0x5678, false);
        attach_peaks(&mut g, &[]);
        assert!(g
            .peak("memory")
            .unwrap()
            .source
            .contains("not in the known-GPU table"));
    }

    #[test]
    fn known_gpu_gets_every_peak() {
        let mut g = info("NVIDIA H100 80GB HBM3", 0x10de, 0x2330, false);
        attach_peaks(&mut g, &[]);
        assert!(g.model.is_some());
        let fp32 = g.peak("fp32").unwrap().value.unwrap();
        assert!(fp32 > 50e12 && fp32 < 80e12, "{fp32}");
        assert!(g.peak("memory").unwrap().value.unwrap() > 1e12);
        // A reported clock replaces the boost clock and says so.
        let smi = [gpu_table::SmiClock {
            name: "NVIDIA H100 80GB HBM3".into(),
            device_id: None,
            max_sm_mhz: Some(990.0),
            current_sm_mhz: None,
        }];
        let mut h = info("NVIDIA H100 80GB HBM3", 0x10de, 0x2330, false);
        attach_peaks(&mut h, &smi);
        let half = h.peak("fp32").unwrap();
        assert!((half.value.unwrap() * 2.0 / fp32 - 1.0).abs() < 0.02);
        assert!(half.source.contains("nvidia-smi"));
    }

    #[test]
    fn pcie_peak_from_sysfs() {
        let root = tempfile::tempdir().unwrap();
        let dev = root.path().join("0000:01:00.0");
        std::fs::create_dir(&dev).unwrap();
        for (f, v) in [
            ("vendor", "0x10de\n"),
            ("device", "0x2330\n"),
            ("max_link_speed", "32.0 GT/s PCIe\n"),
            ("max_link_width", "16\n"),
        ] {
            std::fs::write(dev.join(f), v).unwrap();
        }
        let p = pcie_peak(0x10de, 0x2330, root.path());
        let v = p.value.unwrap();
        assert!((v - 63.015e9).abs() < 0.1e9, "{v}");
        assert!(p.source.contains("128b/130b"), "{}", p.source);
        assert!(pcie_peak(0x10de, 0x1111, root.path()).value.is_none());
    }

    #[test]
    fn supports_names_the_missing_feature() {
        let g = info("x", 1, 1, false);
        assert!(g.supports(GpuPrecision::Fp64).is_ok());
        assert!(g.supports(GpuPrecision::Fp32).is_ok());
        let e = g.supports(GpuPrecision::Fp16).unwrap_err();
        assert!(e.contains("SHADER_F16"), "{e}");
    }
}
