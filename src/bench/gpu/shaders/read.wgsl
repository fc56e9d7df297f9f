// Device memory read: each invocation sums its grid-stride elements, four loads in
// flight per step; the workgroup's total goes to sums[workgroup] (checked on the CPU).
@group(0) @binding(0) var<storage, read> src: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read_write> sums: array<u32>;
var<workgroup> total: atomic<u32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(local_invocation_index) lid: u32,
        @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    let n = arrayLength(&src);
    let stride = nwg.x * 256u;
    var a = vec4<u32>(0u);
    var b = vec4<u32>(0u);
    var c = vec4<u32>(0u);
    var d = vec4<u32>(0u);
    var i = gid.x;
    while (i + 3u * stride < n) {
        a = a + src[i];
        b = b + src[i + stride];
        c = c + src[i + 2u * stride];
        d = d + src[i + 3u * stride];
        i = i + 4u * stride;
    }
    while (i < n) {
        a = a + src[i];
        i = i + stride;
    }
    let t = a + b + c + d;
    atomicAdd(&total, t.x + t.y + t.z + t.w);
    workgroupBarrier();
    if (lid == 0u) {
        sums[wid.x] = atomicLoad(&total);
    }
}
