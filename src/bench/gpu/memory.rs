//! GPU memory: device-local read, write and copy bandwidth; host↔device transfer
//! bandwidth; the round trip of an empty dispatch.
//!
//! - Buffers hold `--size` bytes (default 1 GiB, 256 MiB on a software adapter). Where
//!   the adapter's storage binding is smaller, the buffer is split into equal chunks,
//!   one dispatch each (the result's `chunks` param says so).
//! - Kernels walk their chunk with a grid stride, four `vec4<u32>` (64 B) per invocation
//!   per step so that loads are in flight together; neighbouring invocations touch
//!   neighbouring 16 B, so every access is coalesced.
//! - The data is a pattern (word w holds w × 0x9E3779B1), written by the GPU; `read`
//!   sums it per workgroup, and the sums, the written and the copied buffers are checked
//!   against the CPU's values before the timed runs.
//! - Bytes are counted like STREAM: copy moves 2 × size (read + write).
//! - Transfers copy between a mapped (pinned, host-visible) staging buffer and a
//!   device-local one, like CUDA's `bandwidthTest --memory=pinned`.
//! - Timed units repeat the work until one lasts the dispatch target; samples add up
//!   units until `--min-time`.

use super::device::{Gpu, Timing, WORKGROUP};
use super::options::MemKernel;
use crate::measure::stats::{percentiles, Percentiles};
use crate::report::model::Param;
use std::time::{Duration, Instant};

/// Multiplier of the data pattern.
const PATTERN: u32 = 0x9E37_79B1;
/// Elements (`vec4<u32>`) each invocation handles per loop step.
const PER_STEP: u64 = 4;
/// Largest transfer buffer.
const MAX_TRANSFER: u64 = 256 << 20;

const WRITE_WGSL: &str = include_str!("shaders/write.wgsl");
const READ_WGSL: &str = include_str!("shaders/read.wgsl");
const COPY_WGSL: &str = include_str!("shaders/copy.wgsl");
const EMPTY_WGSL: &str = include_str!("shaders/empty.wgsl");

/// The pattern word at global word index `w`.
pub(crate) fn pattern(w: u32) -> u32 {
    w.wrapping_mul(PATTERN)
}

/// Σ pattern(w) for w in [w0, w1), wrapping, in closed form.
pub(crate) fn pattern_sum(w0: u64, w1: u64) -> u32 {
    let tri = |n: u64| -> u128 { (n as u128) * (n as u128).wrapping_sub(1) / 2 };
    let s = (tri(w1) - tri(w0)) as u32;
    s.wrapping_mul(PATTERN)
}

/// How a buffer of `size` bytes is split: (chunks, bytes per chunk).
pub(crate) fn chunking(size: u64, max_binding: u64, max_buffer: u64) -> (u64, u64) {
    let cap = max_binding.min(max_buffer).max(4096) / 4096 * 4096;
    let chunks = size.div_ceil(cap);
    let per = (size / chunks) / 4096 * 4096;
    (chunks, per)
}

/// Workgroups of a dispatch over `elements` vec4s.
fn groups_for(gpu: &Gpu, elements: u64) -> u32 {
    elements
        .div_ceil(WORKGROUP as u64 * PER_STEP)
        .clamp(1, gpu.max_workgroups as u64) as u32
}

/// A measured memory case: bytes per unit and the timed samples.
pub(crate) struct Measured {
    /// Rates (B/s) or, for `dispatch`, mean latencies (s), one per sample.
    pub samples: Vec<f64>,
    /// Latency percentiles (`dispatch` only).
    pub percentiles: Option<Percentiles>,
    /// Parameters for the result (`chunks`, `bytes`, `repeats`…).
    pub params: Vec<(&'static str, Param)>,
    /// Notes for the result.
    pub notes: Vec<String>,
}

struct Chunks {
    bufs: Vec<wgpu::Buffer>,
    per: u64,
}

fn alloc(gpu: &Gpu, label: &str, size: u64) -> Result<Chunks, String> {
    let l = &gpu.info.limits;
    let (n, per) = chunking(size, l.max_storage_buffer_binding_size, l.max_buffer_size);
    let bufs = (0..n)
        .map(|i| gpu.storage(&format!("{label}{i}"), per))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Chunks { bufs, per })
}

/// Fills every chunk with the pattern (GPU write kernel); returns the pipeline pieces
/// so `write` can time the same thing.
fn writer(gpu: &Gpu, c: &Chunks) -> Result<Vec<(wgpu::ComputePipeline, wgpu::BindGroup)>, String> {
    let p = gpu.pipeline("write", WRITE_WGSL)?;
    let words = c.per / 4;
    Ok(c.bufs
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let base = (i as u64 * words) as u32;
            let params = gpu.init(
                "write-params",
                &[base.to_le_bytes(), [0; 4], [0; 4], [0; 4]].concat(),
                wgpu::BufferUsages::UNIFORM,
            );
            let bg = gpu.bind(&p, &[&params, b]);
            (p.clone(), bg)
        })
        .collect())
}

/// Checks that chunk `i` of `c` holds the pattern.
fn check_pattern(gpu: &Gpu, c: &Chunks, what: &str) -> Result<(), String> {
    let words = c.per / 4;
    for (i, b) in c.bufs.iter().enumerate() {
        let bytes = gpu.read_back(b, c.per)?;
        let base = i as u64 * words;
        for (k, w) in bytes.chunks_exact(4).enumerate() {
            let got = u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
            let want = pattern((base + k as u64) as u32);
            if got != want {
                return Err(format!(
                    "wrong data after {what}: word {} holds 0x{got:08x}, expected 0x{want:08x}",
                    base + k as u64
                ));
            }
        }
    }
    Ok(())
}

/// How long to make and take the timed units.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Budget {
    /// Least duration of one timed unit (the repeat count grows to reach it).
    pub target: Duration,
    /// Least duration of one sample (units are added until it is reached).
    pub min_time: Duration,
    /// Samples.
    pub repeat: u32,
}

type Encode<'a> = Box<dyn Fn(&mut wgpu::CommandEncoder, u32) + 'a>;

/// Grows the repeat count of `encode` until one unit lasts `target`, then takes
/// `repeat` samples of at least `min_time`; returns rates in bytes/s.
fn time_units(
    gpu: &Gpu,
    encode: &Encode,
    bytes_per_repeat: f64,
    b: Budget,
) -> Result<(Vec<f64>, u32), String> {
    let Budget {
        target,
        min_time,
        repeat,
    } = b;
    let mut reps = 1u32;
    loop {
        let t = gpu.time(|e| encode(e, reps))?.seconds();
        if t >= target.as_secs_f64() || reps >= 1 << 16 {
            break;
        }
        let scale = (target.as_secs_f64() * 1.1 / t.max(1e-6)).clamp(1.5, 64.0);
        reps = ((reps as f64 * scale).ceil() as u32).min(1 << 16);
    }
    let mut samples = Vec::new();
    for _ in 0..repeat {
        let (mut bytes, mut secs) = (0.0, 0.0);
        while secs < min_time.as_secs_f64() || bytes == 0.0 {
            let t: Timing = gpu.time(|e| encode(e, reps))?;
            secs += t.seconds();
            bytes += bytes_per_repeat * reps as f64;
        }
        samples.push(bytes / secs);
    }
    Ok((samples, reps))
}

/// Runs one memory kernel: checks it, then times it.
pub(crate) fn run(gpu: &Gpu, kernel: MemKernel, size: u64, b: Budget) -> Result<Measured, String> {
    match kernel {
        MemKernel::Read | MemKernel::Write | MemKernel::Copy => device_kernel(gpu, kernel, size, b),
        MemKernel::H2d | MemKernel::D2h => transfer(gpu, kernel, size, b),
        MemKernel::Dispatch => dispatch_latency(gpu, b.min_time, b.repeat),
    }
}

fn device_kernel(gpu: &Gpu, kernel: MemKernel, size: u64, b: Budget) -> Result<Measured, String> {
    let src = alloc(gpu, "src", size)?;
    let fill = writer(gpu, &src)?;
    let elements = src.per / 16;
    let groups = groups_for(gpu, elements);
    gpu.time(|e| {
        for (p, bg) in &fill {
            super::device::dispatch(e, p, bg, groups);
        }
    })?;
    check_pattern(gpu, &src, "the write kernel")?;
    let chunk_bytes = src.per as f64 * src.bufs.len() as f64;
    let mut keep = Vec::new();
    let (units, bytes): (Vec<(wgpu::ComputePipeline, wgpu::BindGroup)>, f64) = match kernel {
        MemKernel::Write => (fill, chunk_bytes),
        MemKernel::Read => {
            let p = gpu.pipeline("read", READ_WGSL)?;
            let out = gpu.storage("sums", groups as u64 * 4)?;
            let mut v = Vec::new();
            for (i, b) in src.bufs.iter().enumerate() {
                let bg = gpu.bind(&p, &[b, &out]);
                // Check this chunk's sums before timing.
                gpu.time(|e| super::device::dispatch(e, &p, &bg, groups))?;
                let sums = gpu.read_back(&out, groups as u64 * 4)?;
                let got = sums
                    .chunks_exact(4)
                    .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
                    .fold(0u32, u32::wrapping_add);
                let w0 = i as u64 * src.per / 4;
                let want = pattern_sum(w0, w0 + src.per / 4);
                if got != want {
                    return Err(format!(
                        "wrong sum from the read kernel in chunk {i}: 0x{got:08x}, the CPU computes 0x{want:08x}"
                    ));
                }
                v.push((p.clone(), bg));
            }
            keep.push(out);
            (v, chunk_bytes)
        }
        MemKernel::Copy => {
            let dst = alloc(gpu, "dst", size)?;
            let p = gpu.pipeline("copy", COPY_WGSL)?;
            let v: Vec<_> = src
                .bufs
                .iter()
                .zip(&dst.bufs)
                .map(|(s, d)| (p.clone(), gpu.bind(&p, &[s, d])))
                .collect();
            gpu.time(|e| {
                for (p, bg) in &v {
                    super::device::dispatch(e, p, bg, groups);
                }
            })?;
            check_pattern(gpu, &dst, "the copy kernel")?;
            keep.extend(dst.bufs);
            (v, 2.0 * chunk_bytes)
        }
        _ => unreachable!("device_kernel handles read, write and copy"),
    };
    let encode: Encode = Box::new(move |enc, reps| {
        let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: None,
            timestamp_writes: None,
        });
        for _ in 0..reps {
            for (p, bg) in &units {
                pass.set_pipeline(p);
                pass.set_bind_group(0, bg, &[]);
                pass.dispatch_workgroups(groups, 1, 1);
            }
        }
    });
    let (samples, reps) = time_units(gpu, &encode, bytes, b)?;
    drop(keep);
    Ok(Measured {
        samples,
        percentiles: None,
        params: vec![
            ("size", (src.per * src.bufs.len() as u64).into()),
            ("chunks", src.bufs.len().into()),
            ("bytes", (bytes as u64).into()),
        ],
        notes: vec![
            format!(
                "{groups} workgroups x {WORKGROUP} invocations per dispatch, {reps} pass(es) over the buffer per timed unit"
            ),
            if kernel == MemKernel::Copy {
                "bytes counted as STREAM does: copy = read + write of the buffer; checked".into()
            } else {
                "checked: the data matches the pattern the CPU computes".into()
            },
        ],
    })
}

fn transfer(gpu: &Gpu, kernel: MemKernel, size: u64, b: Budget) -> Result<Measured, String> {
    let dev = alloc(gpu, "device", size.min(MAX_TRANSFER))?;
    let per = dev.per;
    let size = per * dev.bufs.len() as u64;
    let host_usage = if kernel == MemKernel::H2d {
        wgpu::BufferUsages::MAP_WRITE | wgpu::BufferUsages::COPY_SRC
    } else {
        wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST
    };
    let host = gpu.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("host-staging"),
        size,
        usage: host_usage,
        mapped_at_creation: kernel == MemKernel::H2d,
    });
    gpu.check()
        .map_err(|e| format!("cannot allocate a {size} B host staging buffer: {e}"))?;
    if kernel == MemKernel::H2d {
        let data: Vec<u8> = (0..(size / 4) as u32)
            .flat_map(|w| pattern(w).to_le_bytes())
            .collect();
        host.get_mapped_range_mut(..)
            .map_err(|e| format!("cannot fill the staging buffer: {e}"))?
            .copy_from_slice(&data);
        host.unmap();
    } else {
        let fill = writer(gpu, &dev)?;
        let groups = groups_for(gpu, per / 16);
        gpu.time(|e| {
            for (p, bg) in &fill {
                super::device::dispatch(e, p, bg, groups);
            }
        })?;
    }
    let (h, bufs) = (&host, &dev.bufs);
    let encode: Encode = Box::new(move |enc, reps| {
        for _ in 0..reps {
            for (i, d) in bufs.iter().enumerate() {
                let off = i as u64 * per;
                if kernel == MemKernel::H2d {
                    enc.copy_buffer_to_buffer(h, off, d, 0, per);
                } else {
                    enc.copy_buffer_to_buffer(d, 0, h, off, per);
                }
            }
        }
    });
    let (samples, reps) = time_units(gpu, &encode, size as f64, b)?;
    // Check what crossed the bus.
    if kernel == MemKernel::H2d {
        check_pattern(gpu, &dev, "the host-to-device copies")?;
    } else {
        let bad = gpu.map_read(&host, |b| {
            b.chunks_exact(4).enumerate().position(|(k, w)| {
                u32::from_le_bytes([w[0], w[1], w[2], w[3]]) != pattern(k as u32)
            })
        })?;
        if let Some(k) = bad {
            return Err(format!(
                "wrong data after the device-to-host copies at word {k}"
            ));
        }
    }
    Ok(Measured {
        samples,
        percentiles: None,
        params: vec![
            ("size", size.into()),
            ("chunks", dev.bufs.len().into()),
            ("bytes", size.into()),
        ],
        notes: vec![format!(
            "pinned staging buffer (host-visible, mapped), copied with copy_buffer_to_buffer, {reps} copies per timed unit; checked"
        )],
    })
}

fn dispatch_latency(gpu: &Gpu, min_time: Duration, repeat: u32) -> Result<Measured, String> {
    let p = gpu.pipeline("empty", EMPTY_WGSL)?;
    let round_trip = || -> Result<f64, String> {
        let mut enc = gpu.device.create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: None,
                timestamp_writes: None,
            });
            pass.set_pipeline(&p);
            pass.dispatch_workgroups(1, 1, 1);
        }
        let t0 = Instant::now();
        gpu.queue.submit([enc.finish()]);
        gpu.wait()?;
        Ok(t0.elapsed().as_secs_f64())
    };
    for _ in 0..20 {
        round_trip()?;
    }
    let mut all = Vec::new();
    let mut samples = Vec::new();
    for _ in 0..repeat {
        let start = Instant::now();
        let mut v = Vec::new();
        while start.elapsed() < min_time || v.len() < 100 {
            v.push(round_trip()?);
        }
        samples.push(v.iter().sum::<f64>() / v.len() as f64);
        all.extend(v);
    }
    Ok(Measured {
        samples,
        percentiles: percentiles(&all),
        params: Vec::new(),
        notes: vec![format!(
            "host clock: submit one empty 1-invocation dispatch, wait until the host sees it complete; {} round trips",
            all.len()
        )],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pattern_sum_matches_loop() {
        for (a, b) in [
            (0u64, 0u64),
            (0, 1),
            (0, 1000),
            (12345, 99999),
            (1 << 26, (1 << 26) + 777),
        ] {
            let want = (a..b)
                .map(|w| pattern(w as u32))
                .fold(0u32, u32::wrapping_add);
            assert_eq!(pattern_sum(a, b), want, "{a}..{b}");
        }
    }

    #[test]
    fn chunks_fit_the_binding() {
        assert_eq!(chunking(1 << 30, 128 << 20, 2 << 30), (8, 128 << 20));
        assert_eq!(chunking(1 << 30, u64::MAX, u64::MAX), (1, 1 << 30));
        let (n, per) = chunking(300 << 20, 128 << 20, 1 << 40);
        assert_eq!(n, 3);
        assert!(per <= 128 << 20 && per % 4096 == 0 && per * 3 <= 300 << 20);
    }
}
