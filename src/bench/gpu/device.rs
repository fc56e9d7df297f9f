//! One opened adapter ([`Gpu`]): device and queue with the features the kernels use,
//! pipelines built from WGSL, buffers, read-back, and the stopwatch.
//!
//! Timing: with `TIMESTAMP_QUERY`, two GPU timestamps are written by empty compute
//! passes placed before and after the timed commands. wgpu writes pass timestamps at
//! the bottom of the pipe, so the second one is taken only once every earlier command
//! of the command buffer has finished; the interval therefore covers the dispatches and
//! copies and nothing of the submission. Without timestamps the host clock times
//! submission to completion, and the result says so.
//!
//! Errors: wgpu reports validation and out-of-memory errors asynchronously; they are
//! collected (never a panic) and turned into a `failed` result by [`Gpu::check`].

use crate::hw::gpu::{self as hwgpu, GpuInfo};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Invocations per workgroup of every kernel (the WebGPU default limit).
pub(crate) const WORKGROUP: u32 = 256;

/// An opened adapter.
pub(crate) struct Gpu {
    /// The adapter as detected.
    pub info: GpuInfo,
    /// Its logical device.
    pub device: wgpu::Device,
    /// Its queue.
    pub queue: wgpu::Queue,
    /// Whether GPU timestamps time the work (else the host clock does).
    pub timestamps: bool,
    /// Largest workgroup count of one dispatch dimension.
    pub max_workgroups: u32,
    errors: Arc<Mutex<Vec<String>>>,
}

/// How long some work took.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Timing {
    /// GPU timestamp interval, when timestamps are on and the interval is positive.
    pub gpu_s: Option<f64>,
    /// Host time from submission to the completion being seen.
    pub host_s: f64,
}

impl Timing {
    /// The interval used for the figure: the GPU's when it has one, else the host's.
    pub(crate) fn seconds(&self) -> f64 {
        self.gpu_s.unwrap_or(self.host_s)
    }
}

impl Gpu {
    /// Opens the adapter `info` describes (as detected with the host), requesting the
    /// shader features the kernels can use (f16, f64, int64, timestamps) and the
    /// adapter's own limits (not WebGPU's defaults, which cap bindings at 128 MiB).
    pub(crate) fn open(info: &GpuInfo) -> Result<Gpu, String> {
        let inst = hwgpu::instance();
        let adapter = hwgpu::adapters(&inst)
            .into_iter()
            .nth(info.index)
            .filter(|a| a.get_info().name == info.name)
            .ok_or_else(|| format!("GPU adapter {} ({}) is gone", info.index, info.name))?;
        let info = info.clone();
        let wanted = wgpu::Features::SHADER_F16
            | wgpu::Features::SHADER_F64
            | wgpu::Features::SHADER_INT64
            | wgpu::Features::TIMESTAMP_QUERY;
        let features = adapter.features() & wanted;
        let limits = adapter.limits();
        let desc = wgpu::DeviceDescriptor {
            label: Some("peakbench"),
            required_features: features,
            required_limits: limits.clone(),
            memory_hints: wgpu::MemoryHints::Performance,
            ..Default::default()
        };
        let (device, queue) = pollster::block_on(adapter.request_device(&desc))
            .map_err(|e| format!("cannot open {}: {e}", info.label()))?;
        let errors = Arc::new(Mutex::new(Vec::new()));
        let sink = errors.clone();
        device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| {
            if let Ok(mut v) = sink.lock() {
                v.push(one_line(&e.to_string()));
            }
        }));
        let lost = errors.clone();
        device.set_device_lost_callback(move |reason, msg| {
            if let Ok(mut v) = lost.lock() {
                v.push(format!("device lost ({reason:?}): {}", one_line(&msg)));
            }
        });
        Ok(Gpu {
            info,
            timestamps: features.contains(wgpu::Features::TIMESTAMP_QUERY),
            max_workgroups: limits.max_compute_workgroups_per_dimension,
            device,
            queue,
            errors,
        })
    }

    /// The errors wgpu reported since the last call, as one `Err` line.
    pub(crate) fn check(&self) -> Result<(), String> {
        let mut v = self.errors.lock().map_err(|_| "error list poisoned")?;
        if v.is_empty() {
            Ok(())
        } else {
            let e = v.join("; ");
            v.clear();
            Err(e)
        }
    }

    /// Waits until the queue is idle.
    pub(crate) fn wait(&self) -> Result<(), String> {
        self.device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| format!("waiting for the GPU: {e}"))?;
        self.check()
    }

    /// A compute pipeline from WGSL source with entry point `main`.
    pub(crate) fn pipeline(
        &self,
        label: &str,
        wgsl: &str,
    ) -> Result<wgpu::ComputePipeline, String> {
        // SAFETY: `unchecked` drops naga's bounds clamping and loop-iteration guards, which
        // would add instructions to the timed loops. Every kernel in this module indexes
        // within `arrayLength` (loop conditions) and its loops are bounded by a uniform.
        let module = unsafe {
            self.device.create_shader_module_trusted(
                wgpu::ShaderModuleDescriptor {
                    label: Some(label),
                    source: wgpu::ShaderSource::Wgsl(wgsl.into()),
                },
                wgpu::ShaderRuntimeChecks::unchecked(),
            )
        };
        let p = self
            .device
            .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(label),
                layout: None,
                module: &module,
                entry_point: Some("main"),
                compilation_options: Default::default(),
                cache: None,
            });
        self.check()
            .map_err(|e| format!("shader {label} was rejected: {e}"))?;
        Ok(p)
    }

    /// A device-local storage buffer.
    pub(crate) fn storage(&self, label: &str, size: u64) -> Result<wgpu::Buffer, String> {
        let b = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size,
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::COPY_SRC
                | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        self.check().map_err(|e| {
            format!("cannot allocate {size} B on the GPU ({e}); use a smaller --size")
        })?;
        Ok(b)
    }

    /// A small buffer initialised from `bytes` (uniform or read-only storage).
    pub(crate) fn init(
        &self,
        label: &str,
        bytes: &[u8],
        usage: wgpu::BufferUsages,
    ) -> wgpu::Buffer {
        let size = (bytes.len() as u64).next_multiple_of(16).max(16);
        let b = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size,
            usage: usage | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut padded = bytes.to_vec();
        padded.resize(size as usize, 0);
        self.queue.write_buffer(&b, 0, &padded);
        b
    }

    /// A bind group of `pipeline`'s group 0 with `buffers` at bindings 0, 1, 2, ….
    pub(crate) fn bind(
        &self,
        pipeline: &wgpu::ComputePipeline,
        buffers: &[&wgpu::Buffer],
    ) -> wgpu::BindGroup {
        let layout = pipeline.get_bind_group_layout(0);
        let entries: Vec<wgpu::BindGroupEntry> = buffers
            .iter()
            .enumerate()
            .map(|(i, b)| wgpu::BindGroupEntry {
                binding: i as u32,
                resource: b.as_entire_binding(),
            })
            .collect();
        self.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: None,
            layout: &layout,
            entries: &entries,
        })
    }

    /// Maps a `MAP_READ` buffer and hands its bytes to `f`.
    pub(crate) fn map_read<T>(
        &self,
        buf: &wgpu::Buffer,
        f: impl FnOnce(&[u8]) -> T,
    ) -> Result<T, String> {
        let (tx, rx) = std::sync::mpsc::channel();
        buf.map_async(wgpu::MapMode::Read, .., move |r| {
            let _ = tx.send(r);
        });
        self.wait()?;
        rx.recv()
            .map_err(|_| "the GPU never answered the map request".to_string())?
            .map_err(|e| format!("cannot map a read-back buffer: {e}"))?;
        let out = {
            let view = buf
                .get_mapped_range(..)
                .map_err(|e| format!("cannot read a mapped buffer: {e}"))?;
            f(&view)
        };
        buf.unmap();
        Ok(out)
    }

    /// Copies `size` bytes of `src` to the host.
    pub(crate) fn read_back(&self, src: &wgpu::Buffer, size: u64) -> Result<Vec<u8>, String> {
        let staging = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("read-back"),
            size,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut enc = self.device.create_command_encoder(&Default::default());
        enc.copy_buffer_to_buffer(src, 0, &staging, 0, size);
        self.queue.submit([enc.finish()]);
        self.map_read(&staging, |b| b.to_vec())
    }

    /// Records `work` between two timestamps, submits it and waits for completion.
    pub(crate) fn time(
        &self,
        work: impl FnOnce(&mut wgpu::CommandEncoder),
    ) -> Result<Timing, String> {
        let mut enc = self.device.create_command_encoder(&Default::default());
        let stamps = self.timestamps.then(|| {
            let qs = self.device.create_query_set(&wgpu::QuerySetDescriptor {
                label: Some("stopwatch"),
                ty: wgpu::QueryType::Timestamp,
                count: 2,
            });
            let resolve = self.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("stopwatch-resolve"),
                size: 16,
                usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            });
            let read = self.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("stopwatch-read"),
                size: 16,
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            (qs, resolve, read)
        });
        if let Some((qs, _, _)) = &stamps {
            marker(&mut enc, qs, 0);
        }
        work(&mut enc);
        if let Some((qs, resolve, read)) = &stamps {
            marker(&mut enc, qs, 1);
            enc.resolve_query_set(qs, 0..2, resolve, 0);
            enc.copy_buffer_to_buffer(resolve, 0, read, 0, 16);
        }
        let cmd = enc.finish();
        self.check()?;
        let t0 = Instant::now();
        self.queue.submit([cmd]);
        self.wait()?;
        let host_s = t0.elapsed().as_secs_f64();
        let gpu_s = match &stamps {
            None => None,
            Some((_, _, read)) => {
                let ticks = self.map_read(read, |b| {
                    let t = |i: usize| {
                        let mut a = [0u8; 8];
                        a.copy_from_slice(&b[i * 8..i * 8 + 8]);
                        u64::from_le_bytes(a)
                    };
                    t(1).wrapping_sub(t(0))
                })?;
                let s = ticks as f64 * self.queue.get_timestamp_period() as f64 * 1e-9;
                // A zero or absurd interval (counter wrap, broken driver) falls back to the
                // host clock rather than producing an infinite rate.
                (s > 0.0 && s <= host_s * 1.5 + 1e-3).then_some(s)
            }
        };
        Ok(Timing { gpu_s, host_s })
    }

    /// Host round trip of an empty submission: what host-timed figures include beyond
    /// the work (stated next to them).
    pub(crate) fn submit_overhead(&self) -> Result<Duration, String> {
        let mut best = Duration::MAX;
        for _ in 0..20 {
            let enc = self.device.create_command_encoder(&Default::default());
            let t0 = Instant::now();
            self.queue.submit([enc.finish()]);
            self.wait()?;
            best = best.min(t0.elapsed());
        }
        Ok(best)
    }

    /// How the figures were timed, for the result notes.
    pub(crate) fn timing_note(&self) -> String {
        if self.timestamps {
            "timed with GPU timestamps around the work (submission excluded)".into()
        } else {
            match self.submit_overhead() {
                Ok(d) => format!(
                    "host-timed (the adapter has no timestamp queries): includes the submission round trip of about {:.0} µs",
                    d.as_secs_f64() * 1e6
                ),
                Err(_) => "host-timed (the adapter has no timestamp queries)".into(),
            }
        }
    }
}

/// An empty compute pass that writes timestamp `index` (bottom of pipe).
fn marker(enc: &mut wgpu::CommandEncoder, qs: &wgpu::QuerySet, index: u32) {
    let _ = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
        label: Some("stopwatch"),
        timestamp_writes: Some(wgpu::ComputePassTimestampWrites {
            query_set: qs,
            beginning_of_pass_write_index: Some(index),
            end_of_pass_write_index: None,
        }),
    });
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Records one dispatch of `pipeline` over `groups` workgroups, in its own pass.
pub(crate) fn dispatch(
    enc: &mut wgpu::CommandEncoder,
    pipeline: &wgpu::ComputePipeline,
    bind: &wgpu::BindGroup,
    groups: u32,
) {
    let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
        label: None,
        timestamp_writes: None,
    });
    pass.set_pipeline(pipeline);
    pass.set_bind_group(0, bind, &[]);
    pass.dispatch_workgroups(groups, 1, 1);
}
