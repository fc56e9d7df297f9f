//! What the net tests share (tests only): the base test spec each test changes with
//! `..spec()`, so a new field of `TestSpec` is written once here for all of them.

use super::proto::{Direction, Proto, TestKind, TestSpec};

/// A TCP throughput test, the client sending on one stream of 128 KiB messages, three
/// 1 s intervals after 0.5 s of warm-up, every knob at its default (no pacing, no
/// zero-copy, the kernel's window, congestion control and MSS).
pub(crate) fn spec() -> TestSpec {
    TestSpec {
        proto: Proto::Tcp,
        test: TestKind::Throughput,
        msg: 131072,
        streams: 1,
        direction: Direction::Up,
        omit_ms: 500,
        interval_ms: 1000,
        intervals: 3,
        rate_bps: None,
        zerocopy: false,
        window: None,
        congestion: None,
        mss: None,
        bytes: None,
    }
}
