//! Fuzzes the `--peak KEY=VALUE` parser: `bench::parse_peak` (the registry's keys and their units)
//! over `hw::peak::parse_override` (number, prefix, unit). Nothing may panic; what is
//! accepted is a known key, whose text is lower-case, and a finite, positive value; a
//! refusal is one line without control characters.
#![no_main]

use libfuzzer_sys::fuzz_target;
use peakbench::bench::parse_peak;
use peakbench::hw::peak::parse_override;
use peakbench::util::sanitize::is_clean;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(p) = parse_override(&text) {
        assert!(p.value.is_finite() && p.value > 0.0, "{p:?}");
    }
    match parse_peak(&text) {
        Ok((key, v)) => {
            let key = key.to_string();
            assert!(v.is_finite() && v > 0.0, "{key}={v}");
            assert!(!key.is_empty() && key == key.to_ascii_lowercase(), "{key}");
        }
        // One clean line, whatever the input held.
        Err(e) => assert!(e.0.starts_with("--peak: ") && is_clean(&e.0), "{e:?}"),
    }
});
