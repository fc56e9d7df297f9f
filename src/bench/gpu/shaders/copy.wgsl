// Device memory copy: dst = src, grid stride, four 16 B loads in flight per step.
@group(0) @binding(0) var<storage, read> src: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read_write> dst: array<vec4<u32>>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let n = arrayLength(&src);
    let stride = nwg.x * 256u;
    var i = gid.x;
    while (i + 3u * stride < n) {
        let x0 = src[i];
        let x1 = src[i + stride];
        let x2 = src[i + 2u * stride];
        let x3 = src[i + 3u * stride];
        dst[i] = x0;
        dst[i + stride] = x1;
        dst[i + 2u * stride] = x2;
        dst[i + 3u * stride] = x3;
        i = i + 4u * stride;
    }
    while (i < n) {
        dst[i] = src[i];
        i = i + stride;
    }
}
