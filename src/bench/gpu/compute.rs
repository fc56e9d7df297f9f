//! GPU compute throughput per precision.
//!
//! Each invocation keeps [`ACC`] independent `vec4` accumulators and runs an unrolled
//! body of [`UNROLL`] × [`ACC`] operations per loop iteration, so the loop overhead is
//! under 1 % of the instructions and every SIMD lane has 32 independent dependency
//! chains (enough to hide the FMA latency of any GPU with a few resident warps). The
//! trip count comes from a uniform, so no compiler can fold the loop. The operand
//! values are read from a buffer, so none can fold the arithmetic either.
//!
//! | precision | operation per lane | ops | value after n steps (checked on the CPU) |
//! | --- | --- | --- | --- |
//! | fp32, fp64 | `a = fma(a, b, c)`, b = 1, c = 1 | 2 | a₀ + n, exact (kept under 2²⁴) |
//! | fp16 | `a = fma(a, b, c)`, b = 0.5, c = 1 | 2 | the f16 recurrence simulated on the CPU |
//! | int32, int64 | `a = a * b + c` (wrapping), an LCG | 2 | the affine map raised to the n-th power |
//! | int8 | `a = dot4I8Packed(bitcast<u32>(a), y) + a` | 8 | simulated step by step |
//!
//! For int8 the dot product's input is the accumulator itself, so it cannot be hoisted
//! out of the loop; `dot4I8Packed` is one SPIR-V `OpSDot` where the driver offers
//! `VK_KHR_shader_integer_dot_product` (DP4A on NVIDIA), else naga emulates it with bit
//! extractions (the result says which cannot be told through wgpu, so the note states
//! the assumption). Every invocation writes the sum of its lanes; all of them are read
//! back and compared with the CPU's values after calibration.

use super::device::{dispatch, Gpu, WORKGROUP};
use crate::hw::gpu_table::GpuPrecision;
use crate::report::model::Unit;
use std::fmt::Write as _;
use std::time::Duration;

/// Independent `vec4` accumulators per invocation.
pub(crate) const ACC: usize = 8;
/// Copies of the accumulator updates per loop iteration.
pub(crate) const UNROLL: usize = 8;
/// Lanes per invocation.
const LANES: usize = ACC * 4;
/// Distinct starting values (invocation id & 7).
const SEEDS: u32 = 8;
/// Largest trip count: keeps the fp32 sums exact (32 × (38 + 8 × 60000) < 2²⁴).
pub(crate) const MAX_ITERS: u32 = 60_000;
/// Largest per-invocation output the check reads back.
const MAX_OUT_BYTES: u64 = 64 << 20;

/// How a precision is computed and checked.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Kernel {
    /// The precision.
    pub precision: GpuPrecision,
    /// Workload name in results.
    pub workload: &'static str,
    /// WGSL scalar type of the accumulators.
    pub ty: &'static str,
    /// Bytes of one scalar.
    pub bytes: u64,
    /// Operations per lane per step.
    pub ops_per_step: f64,
    /// `FLOP/s` or `OP/s`.
    pub unit: Unit,
}

impl Kernel {
    /// The kernel of a precision.
    pub(crate) fn of(p: GpuPrecision) -> Kernel {
        let (workload, ty, bytes, ops, unit) = match p {
            GpuPrecision::Fp32 => ("fma", "f32", 4, 2.0, Unit::FlopPerSec),
            GpuPrecision::Fp16 => ("fma", "f16", 2, 2.0, Unit::FlopPerSec),
            GpuPrecision::Fp64 => ("fma", "f64", 8, 2.0, Unit::FlopPerSec),
            GpuPrecision::Int32 => ("muladd", "u32", 4, 2.0, Unit::OpPerSec),
            GpuPrecision::Int64 => ("muladd", "u64", 8, 2.0, Unit::OpPerSec),
            GpuPrecision::Int8 => ("dot4", "i32", 4, 8.0, Unit::OpPerSec),
        };
        Kernel {
            precision: p,
            workload,
            ty,
            bytes,
            ops_per_step: ops,
            unit,
        }
    }

    /// Operations of one invocation running `iters` loop iterations.
    pub(crate) fn ops_per_invocation(&self, iters: u32) -> f64 {
        iters as f64 * (UNROLL * LANES) as f64 * self.ops_per_step
    }

    /// The coefficient buffer (b, c; for int8 only y).
    fn coefficients(&self) -> Vec<u8> {
        match self.precision {
            GpuPrecision::Fp32 => [1.0f32, 1.0].iter().flat_map(|x| x.to_le_bytes()).collect(),
            GpuPrecision::Fp64 => [1.0f64, 1.0].iter().flat_map(|x| x.to_le_bytes()).collect(),
            GpuPrecision::Fp16 => [half::f16::from_f32(0.5), half::f16::from_f32(1.0)]
                .iter()
                .flat_map(|x| x.to_le_bytes())
                .collect(),
            GpuPrecision::Int32 => [LCG32.0, LCG32.1]
                .iter()
                .flat_map(|x| x.to_le_bytes())
                .collect(),
            GpuPrecision::Int64 => [LCG64.0, LCG64.1]
                .iter()
                .flat_map(|x| x.to_le_bytes())
                .collect(),
            GpuPrecision::Int8 => [DOT_Y, 0].iter().flat_map(|x| x.to_le_bytes()).collect(),
        }
    }

    /// The WGSL source.
    pub(crate) fn wgsl(&self) -> String {
        let t = self.ty;
        let mut s = String::new();
        if self.precision == GpuPrecision::Fp16 {
            s.push_str("enable f16;\n");
        }
        let _ = writeln!(
            s,
            "struct Params {{ iters: u32, p1: u32, p2: u32, p3: u32 }}\n\
             @group(0) @binding(0) var<uniform> params: Params;\n\
             @group(0) @binding(1) var<storage, read> coef: array<{t}>;\n\
             @group(0) @binding(2) var<storage, read_write> out: array<{t}>;\n\
             @compute @workgroup_size({WORKGROUP})\n\
             fn main(@builtin(global_invocation_id) gid: vec3<u32>) {{\n\
             let id = gid.x;\n\
             let s = {t}(id & {}u);",
            SEEDS - 1
        );
        if self.precision == GpuPrecision::Int8 {
            s.push_str("let y = bitcast<u32>(coef[0]);\n");
        } else {
            let _ = writeln!(
                s,
                "let b = vec4<{t}>(coef[0]);\nlet c = vec4<{t}>(coef[1]);"
            );
        }
        for j in 0..ACC {
            let l = 4 * j;
            let _ = writeln!(
                s,
                "var a{j} = vec4<{t}>(s + {t}({l}u), s + {t}({}u), s + {t}({}u), s + {t}({}u));",
                l + 1,
                l + 2,
                l + 3
            );
        }
        s.push_str("for (var i = 0u; i < params.iters; i = i + 1u) {\n");
        for _ in 0..UNROLL {
            for j in 0..ACC {
                match self.precision {
                    GpuPrecision::Int8 => {
                        for c in ["x", "y", "z", "w"] {
                            let _ = writeln!(
                                s,
                                "a{j}.{c} = dot4I8Packed(bitcast<u32>(a{j}.{c}), y) + a{j}.{c};"
                            );
                        }
                    }
                    GpuPrecision::Int32 | GpuPrecision::Int64 => {
                        let _ = writeln!(s, "a{j} = a{j} * b + c;");
                    }
                    _ => {
                        let _ = writeln!(s, "a{j} = fma(a{j}, b, c);");
                    }
                }
            }
        }
        s.push_str("}\n");
        let sum: Vec<String> = (0..ACC).map(|j| format!("a{j}")).collect();
        let _ = writeln!(
            s,
            "let t = {};\nout[id] = t.x + t.y + t.z + t.w;\n}}",
            sum.join(" + ")
        );
        s
    }

    /// The value every invocation with seed `seed` must write after `iters` iterations,
    /// as f64 (integers exactly, as their wrapped bit pattern reinterpreted).
    pub(crate) fn expected(&self, seed: u32, iters: u32) -> f64 {
        let n = iters as u64 * UNROLL as u64;
        let lanes = (0..LANES as u32).map(|l| seed + l);
        match self.precision {
            GpuPrecision::Fp32 | GpuPrecision::Fp64 => lanes.map(|x| x as f64 + n as f64).sum(),
            GpuPrecision::Fp16 => lanes.map(|x| f16_recurrence(x as f32, n) as f64).sum(),
            GpuPrecision::Int32 => {
                let (m, k) = affine_pow32(LCG32, n);
                lanes
                    .map(|x| m.wrapping_mul(x).wrapping_add(k))
                    .fold(0u32, u32::wrapping_add) as f64
            }
            GpuPrecision::Int64 => {
                let (m, k) = affine_pow64(LCG64, n);
                lanes
                    .map(|x| m.wrapping_mul(x as u64).wrapping_add(k))
                    .fold(0u64, u64::wrapping_add) as f64
            }
            GpuPrecision::Int8 => lanes
                .map(|x| {
                    let mut a = x as i32;
                    for _ in 0..n {
                        a = dot4_i8(a as u32, DOT_Y as u32).wrapping_add(a);
                    }
                    a
                })
                .fold(0i32, i32::wrapping_add) as f64,
        }
    }

    /// Decodes output element `i` of the read-back bytes to f64 the way [`Self::expected`]
    /// represents it.
    fn decode(&self, b: &[u8], i: usize) -> f64 {
        let w = self.bytes as usize;
        let e = &b[i * w..i * w + w];
        let mut a = [0u8; 8];
        a[..w].copy_from_slice(e);
        match self.precision {
            GpuPrecision::Fp32 => f32::from_le_bytes([a[0], a[1], a[2], a[3]]) as f64,
            GpuPrecision::Fp64 => f64::from_le_bytes(a),
            GpuPrecision::Fp16 => half::f16::from_le_bytes([a[0], a[1]]).to_f64(),
            GpuPrecision::Int32 => u32::from_le_bytes([a[0], a[1], a[2], a[3]]) as f64,
            GpuPrecision::Int64 => u64::from_le_bytes(a) as f64,
            GpuPrecision::Int8 => i32::from_le_bytes([a[0], a[1], a[2], a[3]]) as f64,
        }
    }

    /// Relative tolerance of the check (0 = exact).
    fn tolerance(&self) -> f64 {
        match self.precision {
            GpuPrecision::Fp32 => 1e-6,
            GpuPrecision::Fp64 => 1e-12,
            GpuPrecision::Fp16 => 1e-2,
            _ => 0.0,
        }
    }

    /// Compares every invocation's output with the CPU's value.
    pub(crate) fn verify(
        &self,
        bytes: &[u8],
        invocations: usize,
        iters: u32,
    ) -> Result<(), String> {
        let want: Vec<f64> = (0..SEEDS).map(|s| self.expected(s, iters)).collect();
        let tol = self.tolerance();
        for i in 0..invocations {
            let got = self.decode(bytes, i);
            let w = want[i % SEEDS as usize];
            let ok = if tol == 0.0 {
                got == w
            } else {
                (got - w).abs() <= tol * w.abs().max(1.0)
            };
            if !ok {
                return Err(format!(
                    "wrong result: invocation {i} wrote {got}, the CPU computes {w} ({} {} x {iters} iterations)",
                    self.precision.name(),
                    self.workload
                ));
            }
        }
        Ok(())
    }
}

/// LCG multiplier and increment for int32 (Numerical Recipes).
const LCG32: (u32, u32) = (1_664_525, 1_013_904_223);
/// LCG multiplier and increment for int64 (Knuth's MMIX).
const LCG64: (u64, u64) = (6_364_136_223_846_793_005, 1_442_695_040_888_963_407);
/// The fixed int8 operand: bytes 3, -1, 2, -5 (little-endian).
const DOT_Y: i32 = i32::from_le_bytes([3, 0xff, 2, 0xfb]);

/// `x → m·x + k` (mod 2⁶⁴) applied `n` times, as one affine map (square and multiply).
fn affine_pow64((m, k): (u64, u64), mut n: u64) -> (u64, u64) {
    let (mut rm, mut rk) = (1u64, 0u64);
    let (mut bm, mut bk) = (m, k);
    while n > 0 {
        if n & 1 == 1 {
            // result = base ∘ result: x → bm(rm x + rk) + bk
            rk = bm.wrapping_mul(rk).wrapping_add(bk);
            rm = bm.wrapping_mul(rm);
        }
        bk = bm.wrapping_mul(bk).wrapping_add(bk);
        bm = bm.wrapping_mul(bm);
        n >>= 1;
    }
    (rm, rk)
}

/// The mod 2³² map: reduction mod 2³² commutes with + and ×, so it is the low half of
/// the mod 2⁶⁴ one.
fn affine_pow32((m, k): (u32, u32), n: u64) -> (u32, u32) {
    let (rm, rk) = affine_pow64((m as u64, k as u64), n);
    (rm as u32, rk as u32)
}

/// WGSL `dot4I8Packed`: signed bytes multiplied pairwise and summed.
fn dot4_i8(a: u32, b: u32) -> i32 {
    (0..4)
        .map(|i| (a >> (8 * i)) as u8 as i8 as i32 * ((b >> (8 * i)) as u8 as i8 as i32))
        .sum()
}

/// `a = fma(a, 0.5, 1)` in f16, `n` times. The product is exact and an f32 sum rounded
/// once to f16 equals the correctly rounded f16 sum (24 ≥ 2·11 + 2 bits), so this is
/// what any conforming GPU computes. It stops at the fixed point (2.0).
fn f16_recurrence(a0: f32, n: u64) -> f32 {
    let mut a = half::f16::from_f32(a0);
    for _ in 0..n {
        let next = half::f16::from_f32(a.to_f32() * 0.5 + 1.0);
        if next == a {
            break;
        }
        a = next;
    }
    a.to_f32()
}

/// A calibrated, checked compute kernel ready to time.
pub(crate) struct Prepared {
    kernel: Kernel,
    pipeline: wgpu::ComputePipeline,
    bind: wgpu::BindGroup,
    /// Workgroups per dispatch.
    pub groups: u32,
    /// Loop iterations per invocation.
    pub iters: u32,
    /// Duration of one dispatch at the calibrated size.
    pub dispatch_s: f64,
}

impl Prepared {
    /// Operations of one dispatch.
    pub(crate) fn ops(&self) -> f64 {
        (self.groups * WORKGROUP) as f64 * self.kernel.ops_per_invocation(self.iters)
    }
}

/// Builds the kernel, grows the work until one dispatch lasts `target` (or the trip
/// count limit), and checks every invocation's result of the last calibration dispatch.
pub(crate) fn prepare(gpu: &Gpu, kernel: Kernel, target: Duration) -> Result<Prepared, String> {
    let label = format!("{}-{}", kernel.workload, kernel.precision.name());
    let pipeline = gpu.pipeline(&label, &kernel.wgsl())?;
    let max_by_out = (MAX_OUT_BYTES.min(gpu.info.limits.max_storage_buffer_binding_size)
        / (WORKGROUP as u64 * kernel.bytes))
        .max(1) as u32;
    // A software adapter runs the invocations on the CPU: a few thousand fill its cores.
    let groups = if gpu.info.software { 64 } else { 65_535 }
        .min(gpu.max_workgroups)
        .min(max_by_out);
    let n = (groups * WORKGROUP) as u64;
    let out = gpu.storage("out", n * kernel.bytes)?;
    let coef = gpu.init("coef", &kernel.coefficients(), wgpu::BufferUsages::STORAGE);
    let params = gpu.init("params", &[0u8; 16], wgpu::BufferUsages::UNIFORM);
    let bind = gpu.bind(&pipeline, &[&params, &coef, &out]);
    let mut iters = 1u32;
    let target_s = target.as_secs_f64();
    let t = loop {
        let mut p = [0u8; 16];
        p[..4].copy_from_slice(&iters.to_le_bytes());
        gpu.queue.write_buffer(&params, 0, &p);
        let t = gpu
            .time(|enc| dispatch(enc, &pipeline, &bind, groups))?
            .seconds();
        if t >= target_s || iters >= MAX_ITERS {
            break t;
        }
        let scale = (target_s * 1.1 / t.max(1e-6)).clamp(1.5, 64.0);
        iters = ((iters as f64 * scale).ceil() as u32).min(MAX_ITERS);
    };
    let bytes = gpu.read_back(&out, n * kernel.bytes)?;
    kernel.verify(&bytes, n as usize, iters)?;
    Ok(Prepared {
        kernel,
        pipeline,
        bind,
        groups,
        iters,
        dispatch_s: t,
    })
}

/// One sample: dispatches until `min_time` has passed on the GPU; returns (ops, seconds).
pub(crate) fn sample(gpu: &Gpu, p: &Prepared, min_time: Duration) -> Result<(f64, f64), String> {
    let (mut ops, mut secs) = (0.0, 0.0);
    while secs < min_time.as_secs_f64() || ops == 0.0 {
        let t = gpu.time(|enc| dispatch(enc, &p.pipeline, &p.bind, p.groups))?;
        secs += t.seconds();
        ops += p.ops();
    }
    Ok((ops, secs))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn affine_power_matches_stepping() {
        for n in [0u64, 1, 2, 3, 7, 100, 1234] {
            let (m, k) = affine_pow32(LCG32, n);
            let (m64, k64) = affine_pow64(LCG64, n);
            for x in [0u32, 5, 0xdead_beef] {
                let mut a = x;
                let mut b = x as u64;
                for _ in 0..n {
                    a = a.wrapping_mul(LCG32.0).wrapping_add(LCG32.1);
                    b = b.wrapping_mul(LCG64.0).wrapping_add(LCG64.1);
                }
                assert_eq!(m.wrapping_mul(x).wrapping_add(k), a);
                assert_eq!(m64.wrapping_mul(x as u64).wrapping_add(k64), b);
            }
        }
    }

    #[test]
    fn dot4_is_signed_bytes() {
        assert_eq!(dot4_i8(0x0102_03ff, 0x0101_0101), 1 + 2 + 3 - 1);
        assert_eq!(dot4_i8(DOT_Y as u32, DOT_Y as u32), 9 + 1 + 4 + 25);
    }

    #[test]
    fn fp_expectations_count_every_step() {
        let k = Kernel::of(GpuPrecision::Fp32);
        // 32 lanes starting at 0..31, each + 8 × iters.
        assert_eq!(k.expected(0, 10), (0..32).sum::<u32>() as f64 + 32.0 * 80.0);
        assert_eq!(Kernel::of(GpuPrecision::Fp16).expected(3, 100), 64.0);
        assert_eq!(f16_recurrence(6.0, 1), 4.0);
        // Bound that keeps the fp32 sums exact.
        assert!(k.expected(SEEDS - 1, MAX_ITERS) < (1u64 << 24) as f64);
    }

    #[test]
    fn op_counts() {
        let k = Kernel::of(GpuPrecision::Int8);
        assert_eq!(k.ops_per_invocation(1), (UNROLL * ACC * 4 * 8) as f64);
        assert_eq!(
            Kernel::of(GpuPrecision::Fp64).ops_per_invocation(3),
            3.0 * 512.0
        );
    }

    /// Compiles a kernel to SPIR-V with naga (as wgpu does for Vulkan, runtime checks
    /// off) and counts the opcodes matching `pick` (opcode, words).
    fn spirv_count(p: GpuPrecision, pick: impl Fn(u32, &[u32]) -> bool) -> usize {
        let src = Kernel::of(p).wgsl();
        let module = naga::front::wgsl::parse_str(&src).unwrap_or_else(|e| panic!("{p:?}: {e}"));
        let info = naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::all(),
        )
        .validate(&module)
        .unwrap_or_else(|e| panic!("{p:?}: {e:?}"));
        let options = naga::back::spv::Options {
            lang_version: (1, 6),
            force_loop_bounding: false,
            ..Default::default()
        };
        let words = naga::back::spv::write_vec(&module, &info, &options, None).unwrap();
        let mut i = 5; // header
        let mut n = 0;
        while i < words.len() {
            let (count, op) = ((words[i] >> 16) as usize, words[i] & 0xffff);
            if pick(op, &words[i..i + count]) {
                n += 1;
            }
            i += count.max(1);
        }
        n
    }

    #[test]
    fn the_compiled_loop_does_the_counted_operations() {
        const OP_EXT_INST: u32 = 12;
        const GLSL_FMA: u32 = 50;
        const OP_IMUL: u32 = 132;
        const OP_SDOT: u32 = 4450;
        let per_iteration = UNROLL * ACC;
        for p in [GpuPrecision::Fp32, GpuPrecision::Fp16, GpuPrecision::Fp64] {
            // One vec4 fma per accumulator update, none anywhere else.
            let fma = spirv_count(p, |op, w| op == OP_EXT_INST && w.get(4) == Some(&GLSL_FMA));
            assert_eq!(fma, per_iteration, "{p:?}");
        }
        for p in [GpuPrecision::Int32, GpuPrecision::Int64] {
            assert_eq!(
                spirv_count(p, |op, _| op == OP_IMUL),
                per_iteration,
                "{p:?}"
            );
        }
        // A native packed dot product per lane (naga would emulate it without the
        // capability; wgpu grants it where the driver has the extension).
        let dots = spirv_count(GpuPrecision::Int8, |op, _| op == OP_SDOT);
        assert_eq!(dots, per_iteration * 4);
    }
}
