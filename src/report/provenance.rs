//! Short forms of a peak's provenance for table cells. A peak's `source` is the whole
//! derivation (cores × clock × instructions per cycle with the microarchitecture row
//! and why it was chosen, or the reason the peak is unknown): right in the JSON, 6–9
//! lines in a table cell. The HTML shows the short form with the full text one click
//! away, and each reason for an unknown peak once under its table.

/// Longest short form of a provenance that is not a CPU formula, in characters.
const MAX_SHORT: usize = 60;

/// What a table cell shows of a peak's provenance.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Short {
    /// A known peak: its short derivation, e.g. `Zen 3 · 3.220 GHz · 2 × Fma V256`.
    Known(String),
    /// An unknown peak: the reason (what follows `unknown: `), to be shown once.
    Unknown(String),
}

/// The text between `open` and the next `close` after it.
fn between<'a>(s: &'a str, open: &str, close: &str) -> Option<&'a str> {
    let from = s.find(open)? + open.len();
    let len = s[from..].find(close)?;
    Some(&s[from..from + len])
}

/// The short form of `source` ([`Short`]). A CPU formula
/// (`2 cores x 3.211 GHz (…) x 4 instr/cycle (Alu V256: table; row 'Zen 3' …) x 8
/// op/instr`) becomes `row · clock · pipes` (`Zen 3 · 3.211 GHz · 4 × Alu V256`); any
/// other known source its first clause, cut at [`MAX_SHORT`] characters.
pub(crate) fn short(source: &str) -> Short {
    let s = source.trim();
    if let Some(reason) = s.strip_prefix("unknown:") {
        return Short::Unknown(reason.trim().to_string());
    }
    if let (Some(ghz), Some(ipc)) = (
        between(s, " x ", " GHz"),
        between(s, " GHz", " instr/cycle ("),
    ) {
        let ipc = ipc.rsplit(" x ").next().unwrap_or(ipc).trim();
        let pipe = between(s, " instr/cycle (", ":").unwrap_or("").trim();
        let mut parts = Vec::new();
        if let Some(row) = between(s, "row '", "'") {
            parts.push(row.to_string());
        }
        parts.push(format!("{} GHz", ghz.trim()));
        parts.push(format!("{ipc} × {pipe}").trim().to_string());
        return Short::Known(parts.join(" · "));
    }
    let first = s.split(';').next().unwrap_or(s).trim();
    Short::Known(if first.chars().count() > MAX_SHORT {
        let cut: String = first.chars().take(MAX_SHORT - 1).collect();
        format!("{}…", cut.trim_end())
    } else {
        first.to_string()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue #26: the HTML peak source was 6–9 lines per row.
    #[test]
    fn short_forms() {
        let cpu = "2 cores x 3.211 GHz (measured with this kernel's instruction) x 4 instr/cycle (Alu V256: table; row 'Zen 3' chosen by family 25 model 1, features agree (no avx512f)) x 8 op/instr; two 256-bit FMA pipes plus two FADD pipes";
        assert_eq!(
            short(cpu),
            Short::Known("Zen 3 · 3.211 GHz · 4 × Alu V256".into())
        );
        let mem = "unknown: SMBIOS unreadable (/sys/firmware/dmi/entries: No such file or directory (os error 2)); supply it with --peak memory=…GB/s";
        assert_eq!(
            short(mem),
            Short::Unknown("SMBIOS unreadable (/sys/firmware/dmi/entries: No such file or directory (os error 2)); supply it with --peak memory=…GB/s".into())
        );
        assert_eq!(
            short("SATA link 6.0 Gbps (sysfs ata_link sata_spd), after 8b/10b coding"),
            Short::Known("SATA link 6.0 Gbps (sysfs ata_link sata_spd), after 8b/10b…".into())
        );
        assert_eq!(
            short("user: --peak memory=68GB/s"),
            Short::Known("user: --peak memory=68GB/s".into())
        );
    }
}
