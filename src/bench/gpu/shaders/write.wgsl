// Device memory write: every element of the chunk gets the pattern
// word(w) = w * 0x9E3779B1, w the global word index (params.base + local index).
// Grid stride; neighbouring invocations write neighbouring 16 B (coalesced).
struct Params { base: u32, p1: u32, p2: u32, p3: u32 }
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read_write> dst: array<vec4<u32>>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let n = arrayLength(&dst);
    let stride = nwg.x * 256u;
    for (var i = gid.x; i < n; i = i + stride) {
        let w = params.base + i * 4u;
        dst[i] = vec4<u32>(w, w + 1u, w + 2u, w + 3u) * 0x9E3779B1u;
    }
}
