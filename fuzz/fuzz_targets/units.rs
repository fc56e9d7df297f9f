//! Fuzzes the command-line value parsers of `util::units`: sizes, durations and
//! comma-separated lists, and the printers their results go to. Nothing may panic, and
//! what is accepted must be in range: a size is a whole number of bytes ≥ 1, a duration
//! is above 0 and at most 7 days.
#![no_main]

use libfuzzer_sys::fuzz_target;
use peakbench::util::units::{
    format_si, format_size, format_size_exact, parse_duration, parse_list, parse_size,
};
use std::time::Duration;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(n) = parse_size(&text) {
        assert!(n >= 1);
        let _ = format_size(n);
        let _ = format_size_exact(n);
    }
    if let Ok(d) = parse_duration(&text) {
        assert!(
            d > Duration::ZERO && d <= Duration::from_secs(7 * 86400),
            "{d:?}"
        );
        let _ = format_si(d.as_secs_f64(), "s");
    }
    if let Ok(v) = parse_list(&text, parse_size) {
        assert!(!v.is_empty() && v.iter().all(|&n| n >= 1));
    }
    let _ = parse_list(&text, |s| parse_duration(s));
    if data.len() >= 8 {
        let x = f64::from_le_bytes(data[..8].try_into().unwrap());
        let _ = format_si(x, "B/s");
        let _ = format_size(u64::from_le_bytes(data[..8].try_into().unwrap()));
    }
});
