//! Units: parsing of sizes, durations and rates from the command line, and printing of
//! figures with SI prefixes.
//!
//! Conventions: sizes are printed in binary units (KiB, MiB), byte
//! *rates* in decimal units (MB/s, GB/s) the way STREAM, fio and iperf print them.
//! Both binary (`KiB`) and decimal (`KB`) suffixes are accepted on input.

use std::time::Duration;

/// Why a textual value could not be parsed. The caller adds the flag name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ParseError(pub(crate) String);

/// Splits `12.5KiB` into the number (`12.5`) and the trimmed suffix (`KiB`); `None`
/// when there is no number or it does not parse.
fn number_and_suffix(text: &str) -> Option<(f64, String)> {
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, suffix) = t.split_at(split);
    if num.is_empty() {
        return None;
    }
    let value: f64 = num.parse().ok()?;
    Some((value, suffix.trim().to_ascii_lowercase()))
}

/// Parses a size such as `8B`, `4KiB`, `1.5MiB`, `10GB` or a bare byte count `4096`.
///
/// Binary suffixes (KiB, MiB, GiB, TiB, and K/M/G/T) are powers of 1024, decimal ones
/// (KB, MB, GB, TB) powers of 1000. Case-insensitive; the result must be a whole,
/// non-zero number of bytes.
pub fn parse_size(text: &str) -> Result<u64, ParseError> {
    let bytes = size_bytes(text)?;
    if bytes < 1.0 || bytes.fract() != 0.0 || bytes > u64::MAX as f64 {
        return Err(ParseError(format!(
            "'{text}' is not a whole, non-zero number of bytes"
        )));
    }
    Ok(bytes as u64)
}

/// Reads back a size as [`format_size`] printed it (`7.81 KiB`, `7.81KiB`: two
/// decimals, so not always a whole number of bytes), rounded to the nearest byte. For
/// files of the `peakbench/1` schema, which stored some sizes that way.
pub(crate) fn parse_printed_size(text: &str) -> Result<u64, ParseError> {
    let bytes = size_bytes(text)?.round();
    if bytes < 1.0 || bytes > u64::MAX as f64 {
        return Err(ParseError(format!("'{text}' is not a non-zero size")));
    }
    Ok(bytes as u64)
}

/// The bytes `text` names, before any check that they are whole.
fn size_bytes(text: &str) -> Result<f64, ParseError> {
    let bad = || {
        ParseError(format!(
            "'{text}' is not a size; use a number with B, KiB, MiB, GiB, TiB (or KB, MB, GB), e.g. 8KiB"
        ))
    };
    let (value, suffix) = number_and_suffix(text).ok_or_else(bad)?;
    let mult: f64 = match suffix.as_str() {
        "" | "b" => 1.0,
        "k" | "kib" => 1024.0,
        "m" | "mib" => 1024.0 * 1024.0,
        "g" | "gib" => 1024.0 * 1024.0 * 1024.0,
        "t" | "tib" => 1024.0f64.powi(4),
        "kb" => 1e3,
        "mb" => 1e6,
        "gb" => 1e9,
        "tb" => 1e12,
        _ => return Err(bad()),
    };
    let bytes = value * mult;
    if !bytes.is_finite() {
        return Err(ParseError(format!(
            "'{text}' is not a whole, non-zero number of bytes"
        )));
    }
    Ok(bytes)
}

/// Parses a duration such as `500ms`, `2s`, `1.5s`, `10m`, `1h`. A bare number is refused
/// (issue #32 D): `--min-time 100`, meant as 100 ms, was taken as 100 s and silently
/// started hours of measuring; the unit is what says which was meant.
pub fn parse_duration(text: &str) -> Result<Duration, ParseError> {
    let bad = || {
        ParseError(format!(
            "'{text}' is not a duration; use a number with ms, s, m or h, e.g. 500ms or 10s"
        ))
    };
    let (value, suffix) = number_and_suffix(text).ok_or_else(bad)?;
    let secs = match suffix.as_str() {
        "" => {
            return Err(ParseError(format!(
                "'{text}' has no unit; give one of us, ms, s, m or h, e.g. {t}ms or {t}s",
                t = text.trim()
            )))
        }
        "ms" => value / 1e3,
        "us" | "µs" => value / 1e6,
        "s" => value,
        "m" | "min" => value * 60.0,
        "h" => value * 3600.0,
        _ => return Err(bad()),
    };
    // At least 1 µs, the finest unit accepted: a smaller positive number would round
    // to a zero Duration (`.0000000001` was accepted as 0 ns; found by fuzzing).
    if !(1e-6..=7.0 * 86400.0).contains(&secs) {
        return Err(ParseError(format!(
            "'{text}' is out of range; durations must be at least 1us and at most 7 days"
        )));
    }
    Ok(Duration::from_secs_f64(secs))
}

/// [`parse_duration`], also taking a zero with a unit (`0s`, `0ms`) as no time at all,
/// for flags where none is meaningful (`net --omit`: no warm-up). A bare `0` is still
/// refused for its missing unit.
pub fn parse_duration_or_zero(text: &str) -> Result<Duration, ParseError> {
    match number_and_suffix(text) {
        Some((v, unit)) if v == 0.0 && parse_duration(&format!("1{unit}")).is_ok() => {
            Ok(Duration::ZERO)
        }
        _ => parse_duration(text),
    }
}

/// Prints a byte count in binary units: `8 B`, `4 KiB`, `1.5 MiB`.
pub fn format_size(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = bytes as f64;
    let mut i = 0;
    while v >= 1024.0 && i + 1 < UNITS.len() {
        v /= 1024.0;
        i += 1;
    }
    if v.fract() == 0.0 {
        format!("{} {}", v as u64, UNITS[i])
    } else {
        format!("{:.2} {}", v, UNITS[i])
    }
}

/// Prints a byte count in the units that state it exactly: decimal (`8 KB`, `80 MB`)
/// when it is a whole number of a larger decimal unit than of any binary one (8000 B
/// given as `8KB`), bytes below 1 MiB when a binary unit would round it (`1460 B`), else as
/// [`format_size`] does (`8 KiB`, `1.50 MiB`). So a size the user gave in decimal units
/// or bytes is shown in them, not as `7.81 KiB`.
pub fn format_size_exact(bytes: u64) -> String {
    /// The largest k ≤ 4 with `bytes` a multiple of `base`^k.
    fn whole(bytes: u64, base: u64) -> usize {
        (1..=4)
            .rev()
            .find(|&k| bytes.is_multiple_of(base.pow(k as u32)))
            .unwrap_or(0)
    }
    const DECIMAL: [&str; 5] = ["B", "KB", "MB", "GB", "TB"];
    let dec = if bytes == 0 { 0 } else { whole(bytes, 1000) };
    let bin = if bytes == 0 { 0 } else { whole(bytes, 1024) };
    if dec > bin {
        format!("{} {}", bytes / 1000u64.pow(dec as u32), DECIMAL[dec])
    } else if bytes < EXACT_BYTES_BELOW && !binary_is_exact(bytes) {
        // Not exact in two decimals of a binary unit (1460 B, UDP's default payload):
        // the bytes, rather than 1.43 KiB.
        format!("{bytes} B")
    } else {
        format_size(bytes)
    }
}

/// Below this, a size that [`format_size`] would round prints as bytes.
const EXACT_BYTES_BELOW: u64 = 1 << 20;

/// Whether [`format_size`] shows `bytes` exactly (its unit times at most two decimals).
fn binary_is_exact(bytes: u64) -> bool {
    let unit = (0..=4u32)
        .rev()
        .map(|k| 1024u128.pow(k))
        .find(|&u| bytes as u128 >= u)
        .unwrap_or(1);
    (bytes as u128 * 100).is_multiple_of(unit)
}

/// Prints a value with a decimal SI prefix and the unit: `76.9 GFLOP/s`, `35.2 GB/s`,
/// `95.7 µs`. Four significant digits at most; non-finite values print as `n/a`.
pub fn format_si(value: f64, unit: &str) -> String {
    if !value.is_finite() {
        return "n/a".to_string();
    }
    const BIG: [(f64, &str); 5] = [(1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")];
    const SMALL: [(f64, &str); 3] = [(1e-3, "m"), (1e-6, "µ"), (1e-9, "n")];
    let a = value.abs();
    if a >= 1e18 {
        // Past the largest prefix a thousandfold: the mantissa and the power of ten,
        // not a number of up to 294 digits (1e308 FLOP/s in a forged file).
        return format!("{value:.3e} {unit}");
    }
    let (scale, prefix) = if a == 0.0 {
        (1.0, "")
    } else if a >= 1e3 {
        BIG.iter()
            .copied()
            .find(|(s, _)| a >= *s)
            .unwrap_or((1.0, ""))
    } else if a < 1.0 {
        SMALL
            .iter()
            .copied()
            .find(|(s, _)| a >= *s)
            .unwrap_or((1e-9, "n"))
    } else {
        (1.0, "")
    };
    let v = value / scale;
    let digits = if v.abs() >= 100.0 {
        1
    } else if v.abs() >= 10.0 {
        2
    } else {
        3
    };
    // Units like "B/s" print as "GB/s"; "s" prints as "µs".
    format!("{v:.digits$} {prefix}{unit}")
}

/// Parses a comma-separated list, applying `item` to each element and naming the
/// element that failed.
pub fn parse_list<T>(
    text: &str,
    item: impl Fn(&str) -> Result<T, ParseError>,
) -> Result<Vec<T>, ParseError> {
    let mut out = Vec::new();
    for part in text.split(',') {
        let p = part.trim();
        if p.is_empty() {
            return Err(ParseError(format!(
                "'{text}' has an empty element; use a comma-separated list like 1,2,4"
            )));
        }
        out.push(item(p)?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("8B").unwrap(), 8);
        assert_eq!(parse_size("4096").unwrap(), 4096);
        assert_eq!(parse_size("4KiB").unwrap(), 4096);
        assert_eq!(parse_size("1.5MiB").unwrap(), 1572864);
        assert_eq!(parse_size("80MiB").unwrap(), 80 << 20);
        assert_eq!(parse_size("10GB").unwrap(), 10_000_000_000);
        assert_eq!(parse_size("1g").unwrap(), 1 << 30);
        // The course's decimal sizes: KB/MB are powers of 1000, any case, spaces allowed.
        assert_eq!(parse_size("1B").unwrap(), 1);
        assert_eq!(parse_size("1KB").unwrap(), 1000);
        assert_eq!(parse_size("4kb").unwrap(), 4000);
        assert_eq!(parse_size("1.5KB").unwrap(), 1500);
        assert_eq!(parse_size("10 MB").unwrap(), 10_000_000);
        assert_eq!(parse_size("1MB").unwrap(), 1_000_000);
        assert_eq!(parse_size("1TB").unwrap(), 1_000_000_000_000);
        assert!(parse_size("0.0001KB").is_err(), "0.1 B is not whole");
        assert!(parse_size("0B").is_err());
        assert!(parse_size("1.3B").is_err());
        assert!(parse_size("KiB").is_err());
        assert!(parse_size("12 parsecs").is_err());
        assert!(parse_size("").is_err());
    }

    #[test]
    fn printed_sizes_read_back() {
        for b in [8u64, 4096, 8000, 8_000_000, 80 << 20, 3 << 30] {
            let printed = format_size(b);
            let back = parse_printed_size(&printed.replace(' ', "")).unwrap();
            // Two decimals of the unit: within half a hundredth of it.
            assert!(
                (back as f64 - b as f64).abs() / b as f64 <= 0.001,
                "{printed}"
            );
            assert_eq!(format_size(back), printed);
        }
        assert_eq!(parse_printed_size("7.81KiB").unwrap(), 7997);
        assert!(parse_printed_size("whole").is_err());
        assert!(parse_printed_size("0B").is_err());
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("500ms").unwrap(), Duration::from_millis(500));
        // Issue #32 D: a bare number is refused with the accepted forms.
        let e = parse_duration("2").unwrap_err().0;
        assert!(
            e.contains("'2' has no unit") && e.contains("2ms or 2s"),
            "{e}"
        );
        assert!(parse_duration("100").is_err());
        assert_eq!(parse_duration("2s").unwrap(), Duration::from_secs(2));
        assert_eq!(parse_duration("10m").unwrap(), Duration::from_secs(600));
        assert!(parse_duration("0s").is_err());
        assert!(parse_duration("-1s").is_err());
        assert!(parse_duration("fast").is_err());
        assert!(parse_duration("30d").is_err());
        // Positive but below 1 µs: would be a zero Duration.
        assert!(parse_duration(".0000000001").is_err());
        assert!(parse_duration("0.5us").is_err());
        assert_eq!(parse_duration("1us").unwrap(), Duration::from_micros(1));
    }

    #[test]
    fn formatting() {
        assert_eq!(format_size(8), "8 B");
        assert_eq!(format_size(80 << 20), "80 MiB");
        assert_eq!(format_size(1536), "1.50 KiB");
        assert_eq!(format_si(76.9e9, "FLOP/s"), "76.90 GFLOP/s");
        assert_eq!(format_si(95.7e-6, "s"), "95.70 µs");
        assert_eq!(format_si(123.4e12, "OP/s"), "123.4 TOP/s");
        assert_eq!(format_si(f64::NAN, "s"), "n/a");
        assert_eq!(format_si(1e308, "FLOP/s"), "1.000e308 FLOP/s");
        assert_eq!(format_si(-2.5e20, "B/s"), "-2.500e20 B/s");
        assert_eq!(format_si(0.0, "B/s"), "0.000 B/s");
    }

    /// Issue #26: `--block 8KB` showed as `block=7.81KiB`; a size is shown in the
    /// units that state it exactly, and what it shows parses back to the same bytes.
    #[test]
    fn sizes_show_in_the_units_that_state_them_exactly() {
        for (given, shown) in [
            ("8KB", "8 KB"),
            ("80MB", "80 MB"),
            ("256MB", "256 MB"),
            ("10GB", "10 GB"),
            ("1KB", "1 KB"),
            ("1.5MB", "1500 KB"),
            ("8KiB", "8 KiB"),
            ("128KiB", "128 KiB"),
            ("1MiB", "1 MiB"),
            ("1.5MiB", "1.50 MiB"),
            ("64B", "64 B"),
            ("1460B", "1460 B"),
            ("1.5KiB", "1.50 KiB"),
            ("1000000", "1 MB"),
            ("4096000", "3.91 MiB"),
        ] {
            let b = parse_size(given).unwrap();
            assert_eq!(format_size_exact(b), shown, "{given}");
            if !shown.contains('.') {
                assert_eq!(parse_size(&shown.replace(' ', "")).unwrap(), b, "{shown}");
            }
        }
        assert_eq!(format_size_exact(7997), "7997 B");
        assert_eq!(format_size_exact(999_292_929), "953.00 MiB");
        assert_eq!(format_size_exact(0), "0 B");
    }

    #[test]
    fn lists() {
        assert_eq!(
            parse_list("1,2, 4", |s| s
                .parse::<u32>()
                .map_err(|e| ParseError(e.to_string())))
            .unwrap(),
            vec![1, 2, 4]
        );
        assert!(parse_list("1,,2", |s| Ok(s.to_string())).is_err());
    }
}
