//! `--clock measured|nominal|all-core` (issue #48): which clock a CPU peak is computed
//! at. `measured` (the default) is the sustained clock the case saw (`clock::case_clock`);
//! `nominal` is the label's base clock, as the course's peak formula uses it: cpufreq's
//! `base_frequency` where the driver exposes it, else the `@ 2.50GHz` of the model name;
//! `all-core` is the reading of the kernel's clock chain on every physical core at once
//! (`ClockInfo`'s `*_all_hz`). Each peak says which clock it used and where it was read;
//! a clock this machine does not tell is refused before anything runs.

use super::clock::{ClockInfo, ClockKind};
use crate::util::units::ParseError;

/// Which clock a CPU peak uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ClockChoice {
    /// The sustained clock the case measured (the default).
    Measured,
    /// The nominal (base) clock of the label.
    Nominal,
    /// The kernel's chain read on every physical core at once.
    AllCore,
}

impl ClockChoice {
    /// Every choice, in the order of the flag's help.
    pub(crate) const ALL: [ClockChoice; 3] = [
        ClockChoice::Measured,
        ClockChoice::Nominal,
        ClockChoice::AllCore,
    ];

    /// The name as the flag takes it and the JSON writes it.
    pub(crate) fn name(self) -> &'static str {
        match self {
            ClockChoice::Measured => "measured",
            ClockChoice::Nominal => "nominal",
            ClockChoice::AllCore => "all-core",
        }
    }

    /// `--clock`'s value parser.
    pub(crate) fn parse(text: &str) -> Result<ClockChoice, ParseError> {
        let t = text.trim().to_ascii_lowercase();
        ClockChoice::ALL
            .into_iter()
            .find(|c| c.name() == t || (t == "allcore" && *c == ClockChoice::AllCore))
            .ok_or_else(|| {
                ParseError(format!(
                    "unknown clock '{}'; accepted: measured, nominal, all-core",
                    crate::util::sanitize::line_max(text, 40)
                ))
            })
    }
}

/// The nominal clock in Hz and where it was read: cpufreq's `base_frequency` (kHz, the
/// intel_pstate and amd-pstate drivers write it) when given, else the `@ N.NNGHz` (or
/// `MHz`) at the end of the model name `brand`. `None` when neither tells it.
pub(crate) fn nominal(brand: &str, base_khz: Option<&str>) -> Option<(f64, String)> {
    if let Some(khz) = base_khz
        .and_then(|t| t.trim().parse::<f64>().ok())
        .filter(|k| *k > 0.0)
    {
        return Some((
            khz * 1e3,
            format!(
                "nominal, cpufreq base_frequency {} kHz",
                crate::hw::rates::trim_float(khz)
            ),
        ));
    }
    let (_, after) = brand.rsplit_once('@')?;
    let t = after.trim();
    let (num, mult) = if let Some(n) = t.strip_suffix("GHz") {
        (n, 1e9)
    } else if let Some(n) = t.strip_suffix("MHz") {
        (n, 1e6)
    } else {
        return None;
    };
    let v: f64 = num.trim().parse().ok().filter(|v: &f64| *v > 0.0)?;
    Some((v * mult, format!("nominal, '@ {}' in the model name", t)))
}

/// cpu0's cpufreq `base_frequency` (kHz) as the file says it, where the driver has one.
pub(crate) fn base_frequency_here() -> Option<String> {
    std::fs::read_to_string("/sys/devices/system/cpu/cpu0/cpufreq/base_frequency").ok()
}

/// Serialised as its name (`nominal`), as the flag takes it.
impl serde::Serialize for ClockChoice {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

/// The all-core reading of chain `kind` (the add chain where that chain was not read
/// on every core) and which chain it was.
pub(crate) fn all_core(clock: &ClockInfo, kind: ClockKind) -> Option<(f64, String)> {
    let (own, name) = match kind {
        ClockKind::Scalar => (None, "add"),
        ClockKind::Avx2 => (clock.avx2_all_hz, "AVX2"),
        ClockKind::Avx512 => (clock.avx512_all_hz, "AVX-512"),
    };
    match (own, clock.scalar_all_hz) {
        (Some(hz), _) => Some((hz, format!("all-core, {name} chain on every core at once"))),
        (None, Some(hz)) => Some((hz, "all-core, add chain on every core at once".into())),
        (None, None) => None,
    }
}

/// Why `choice` cannot be used on this machine, or `None`: the nominal clock needs a
/// label that tells it, the all-core one a reading (refused only where the clocks were
/// measured without one: a dry run measures none), and neither is a clock of an
/// emulated CPU.
pub(crate) fn unknown(
    choice: ClockChoice,
    brand: &str,
    base_khz: Option<&str>,
    clock: &ClockInfo,
    emulated: bool,
) -> Option<String> {
    if choice == ClockChoice::Measured {
        return None;
    }
    if emulated {
        return Some(format!(
            "the {} clock is unknown: the CPU is emulated (no clock, no efficiency); drop --clock",
            choice.name()
        ));
    }
    match choice {
        ClockChoice::Nominal if nominal(brand, base_khz).is_none() => Some(format!(
            "the nominal clock is unknown on this machine (no cpufreq base_frequency, no '@ N.NNGHz' in the model name '{}'); use --clock measured or all-core",
            crate::util::sanitize::line_max(brand, 80)
        )),
        ClockChoice::AllCore
            if clock.scalar_hz.is_some() && all_core(clock, ClockKind::Scalar).is_none() =>
        {
            Some(
                "the all-core clock is unknown on this machine (no reading on every core); use --clock measured".into(),
            )
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_flag_takes_three_clocks() {
        assert_eq!(ClockChoice::parse("nominal").unwrap(), ClockChoice::Nominal);
        assert_eq!(
            ClockChoice::parse("All-Core").unwrap(),
            ClockChoice::AllCore
        );
        assert_eq!(
            ClockChoice::parse("measured").unwrap(),
            ClockChoice::Measured
        );
        let e = ClockChoice::parse("turbo").unwrap_err().0;
        assert_eq!(
            e,
            "unknown clock 'turbo'; accepted: measured, nominal, all-core"
        );
    }

    #[test]
    fn the_nominal_clock_comes_from_cpufreq_or_the_model_name() {
        // This machine's label (a Cascade Lake KVM guest) and the recorded Gold 6248's.
        let (hz, from) = nominal("Intel(R) Xeon(R) Processor @ 2.50GHz", None).unwrap();
        assert_eq!(hz, 2.5e9);
        assert_eq!(from, "nominal, '@ 2.50GHz' in the model name");
        let (hz, _) = nominal("Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz", None).unwrap();
        assert_eq!(hz, 2.5e9);
        assert_eq!(nominal("Pentium @ 933MHz", None).unwrap().0, 933e6);
        // cpufreq's base_frequency wins over the label.
        let (hz, from) = nominal("X @ 2.50GHz", Some("2100000\n")).unwrap();
        assert_eq!(hz, 2.1e9);
        assert!(from.contains("base_frequency 2100000 kHz"), "{from}");
        // AMD's model names carry no clock.
        assert_eq!(nominal("AMD EPYC", None), None);
        assert_eq!(nominal("AMD EPYC 9654 96-Core Processor", Some("")), None);
    }

    #[test]
    fn the_all_core_clock_is_the_chain_s_reading_on_every_core() {
        let c = ClockInfo {
            scalar_hz: Some(3.2e9),
            scalar_all_hz: Some(3.0e9),
            avx512_all_hz: Some(2.6e9),
            ..ClockInfo::default()
        };
        assert_eq!(all_core(&c, ClockKind::Avx512).unwrap().0, 2.6e9);
        // No AVX2 chain on every core: the adds'.
        let (hz, from) = all_core(&c, ClockKind::Avx2).unwrap();
        assert_eq!(hz, 3.0e9);
        assert!(from.contains("add chain"), "{from}");
        assert_eq!(all_core(&ClockInfo::default(), ClockKind::Scalar), None);
    }

    #[test]
    fn an_unknown_clock_is_refused_with_the_reason() {
        let mut c = ClockInfo::default();
        assert_eq!(
            unknown(ClockChoice::Measured, "AMD EPYC", None, &c, false),
            None
        );
        let e = unknown(ClockChoice::Nominal, "AMD EPYC", None, &c, false).unwrap();
        assert!(
            e.starts_with("the nominal clock is unknown on this machine"),
            "{e}"
        );
        assert!(e.contains("'AMD EPYC'"), "{e}");
        // No clock measured yet (a dry run): the all-core clock is not refused.
        assert_eq!(
            unknown(ClockChoice::AllCore, "AMD EPYC", None, &c, false),
            None
        );
        c.scalar_hz = Some(3e9);
        let e = unknown(ClockChoice::AllCore, "AMD EPYC", None, &c, false).unwrap();
        assert!(e.contains("all-core clock is unknown"), "{e}");
        let e = unknown(ClockChoice::Nominal, "X @ 2.5GHz", None, &c, true).unwrap();
        assert!(e.contains("emulated"), "{e}");
        assert_eq!(
            unknown(ClockChoice::Nominal, "X @ 2.5GHz", None, &c, false),
            None
        );
    }
}
