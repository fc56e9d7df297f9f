//! NVIDIA GPUs' energy through NVML (issue #47 item 4): `libnvidia-ml.so.1`, the
//! library the driver installs, loaded at run time (never linked: peakbench runs where
//! no NVIDIA driver exists), and per GPU `nvmlDeviceGetTotalEnergyConsumption`, the
//! millijoules the board used since the driver loaded (Volta and later). Only the five
//! entry points below are used; their C signatures are NVML's public API (nvml.h).

use std::ffi::{c_char, c_int, c_uint, c_ulonglong, c_void};

type Ret = c_int;
type Device = *mut c_void;
const SUCCESS: Ret = 0;

/// The library and the GPUs whose energy counter answered.
pub(crate) struct Nvml {
    // Kept loaded: the function pointers below point into it.
    _lib: libloading::Library,
    energy: unsafe extern "C" fn(Device, *mut c_ulonglong) -> Ret,
    devices: Vec<(Device, String)>,
}

// SAFETY: NVML's entry points are thread-safe (nvml.h: "all NVML functions are
// thread-safe"); the device handles are opaque tokens valid until nvmlShutdown, which
// is never called (the counters live for the whole run).
unsafe impl Send for Nvml {}
// SAFETY: as above; `&Nvml` only calls the thread-safe energy query.
unsafe impl Sync for Nvml {}

impl Nvml {
    /// Loads the library and finds the GPUs with an energy counter; `Err` says why
    /// there are none (no driver, no GPU, no counter on this generation).
    pub(crate) fn load() -> Result<Nvml, String> {
        // SAFETY: loading the driver's NVML runs its initialisers, which only set up
        // its own state; the symbols are read with their nvml.h signatures.
        unsafe {
            let lib = libloading::Library::new("libnvidia-ml.so.1")
                .map_err(|_| "no NVIDIA driver (libnvidia-ml.so.1)".to_string())?;
            let sym = |n: &[u8]| -> Result<*const c_void, String> {
                lib.get::<*const c_void>(n).map(|s| *s).map_err(|_| {
                    format!("NVML lacks {}", String::from_utf8_lossy(&n[..n.len() - 1]))
                })
            };
            let init: unsafe extern "C" fn() -> Ret = std::mem::transmute(sym(b"nvmlInit_v2\0")?);
            let count: unsafe extern "C" fn(*mut c_uint) -> Ret =
                std::mem::transmute(sym(b"nvmlDeviceGetCount_v2\0")?);
            let handle: unsafe extern "C" fn(c_uint, *mut Device) -> Ret =
                std::mem::transmute(sym(b"nvmlDeviceGetHandleByIndex_v2\0")?);
            let name: unsafe extern "C" fn(Device, *mut c_char, c_uint) -> Ret =
                std::mem::transmute(sym(b"nvmlDeviceGetName\0")?);
            let energy: unsafe extern "C" fn(Device, *mut c_ulonglong) -> Ret =
                std::mem::transmute(sym(b"nvmlDeviceGetTotalEnergyConsumption\0")?);
            if init() != SUCCESS {
                return Err("NVML did not initialise (no NVIDIA GPU or driver mismatch)".into());
            }
            let mut n: c_uint = 0;
            if count(&mut n) != SUCCESS || n == 0 {
                return Err("NVML sees no GPU".into());
            }
            let mut devices = Vec::new();
            for i in 0..n {
                let mut d: Device = std::ptr::null_mut();
                if handle(i, &mut d) != SUCCESS {
                    continue;
                }
                let mut mj: c_ulonglong = 0;
                // A GPU before Volta has no counter: left out.
                if energy(d, &mut mj) != SUCCESS {
                    continue;
                }
                let mut buf = [0 as c_char; 96];
                let label = if name(d, buf.as_mut_ptr(), buf.len() as c_uint) == SUCCESS {
                    std::ffi::CStr::from_ptr(buf.as_ptr())
                        .to_string_lossy()
                        .into_owned()
                } else {
                    format!("GPU {i}")
                };
                devices.push((d, crate::util::sanitize::line(&label)));
            }
            if devices.is_empty() {
                return Err("no NVIDIA GPU with an energy counter (Volta or later)".into());
            }
            Ok(Nvml {
                _lib: lib,
                energy,
                devices,
            })
        }
    }

    /// The GPUs' names, in counter order.
    pub(crate) fn gpus(&self) -> Vec<String> {
        self.devices.iter().map(|(_, n)| n.clone()).collect()
    }

    /// GPU `i`'s energy since the driver loaded, mJ.
    pub(crate) fn energy_mj(&self, i: usize) -> Option<u64> {
        let (d, _) = self.devices.get(i)?;
        let mut mj: c_ulonglong = 0;
        // SAFETY: `d` came from nvmlDeviceGetHandleByIndex_v2 and NVML is not shut down.
        let ok = unsafe { (self.energy)(*d, &mut mj) } == SUCCESS;
        ok.then_some(mj)
    }
}
