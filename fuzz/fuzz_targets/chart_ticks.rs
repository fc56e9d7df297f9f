//! Fuzzes the chart axes of the HTML report (`report::charts::ticks_of`, what
//! `render` draws): any values, finite or not, on a linear, log10 or log2 axis, must
//! give at most 51 finite ticks inside the axis with short labels, in bounded time
//! (values of 1e308 once made the tick loop run over 2^63 exponents, issue #27).
//!
//! `cargo +nightly fuzz run -s none chart_ticks fuzz/corpus/chart_ticks -- -max_total_time=60`
#![no_main]

use libfuzzer_sys::fuzz_target;
use peakbench::report::charts::ticks_of;

fuzz_target!(|data: &[u8]| {
    let Some((&head, rest)) = data.split_first() else {
        return;
    };
    // Every 8 bytes one f64, bit for bit: NaNs, infinities, subnormals, extremes.
    let values: Vec<f64> = rest
        .chunks_exact(8)
        .take(64)
        .map(|c| f64::from_le_bytes(c.try_into().expect("8 bytes")))
        .collect();
    let ticks = ticks_of(head % 3, &values, head & 0x80 != 0);
    assert!(ticks.len() <= 51, "{} ticks", ticks.len());
    for (t, at, label) in &ticks {
        assert!(t.is_finite(), "tick {t}");
        assert!((-1e-9..=1.0 + 1e-9).contains(at), "tick {t} at {at}");
        assert!(label.chars().count() <= 24, "label {label}");
    }
});
