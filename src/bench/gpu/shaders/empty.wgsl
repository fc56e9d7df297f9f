// The empty dispatch of the round-trip latency test.
@compute @workgroup_size(1)
fn main() {
}
