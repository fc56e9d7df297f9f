//! `peakbench cpu` options: one struct, [`CpuOptions`], its flags typed where clap
//! reads them (a bad value is one line naming the flag and the accepted form, exit
//! code 2, nothing run) and [`parse`] for the checks that span flags. Checks that need
//! the host (which ISAs this CPU has) happen in `plan`.

use super::kernels::{Isa, Precision};
use crate::bench::common::{secs, secs_opt};
use crate::bench::flags::{threads, Choices, List};
use crate::hw::clock_choice::ClockChoice;
use crate::util::units::{parse_duration, parse_list, ParseError};
use crate::util::usage::UsageError;
use clap::Args;
use serde::{Serialize, Serializer};
use std::time::Duration;

impl Serialize for Precision {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}
impl Serialize for Isa {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

/// `peakbench cpu`: its flags, typed where clap reads them, and the validated options
/// (serialised into the report's `config`): one struct. [`parse`] checks what spans
/// flags.
#[derive(Debug, Clone, Args, Serialize)]
pub(crate) struct CpuOptions {
    /// Precisions [default: all; aliases qp,hp,sp,dp]
    #[arg(
        long = "precision",
        value_name = "LIST",
        allow_hyphen_values = true,
        value_parser = Choices::new(precisions, precision_names)
    )]
    pub(crate) precisions: Option<List<Precision>>,
    /// Instruction sets [default: all the CPU has]
    #[arg(
        long = "isa",
        value_name = "LIST",
        allow_hyphen_values = true,
        value_parser = Choices::new(isas, isa_names)
    )]
    pub(crate) isas: Option<List<Isa>>,
    /// Thread counts [default: 1,2,4,… up to the core count]
    #[arg(long, value_name = "LIST", allow_hyphen_values = true, value_parser = threads)]
    pub(crate) threads: Option<List<usize>>,
    /// Sustained mode: sample for this long, e.g. 10m (a time series per case)
    #[arg(long, value_name = "DUR", allow_hyphen_values = true, value_parser = parse_duration)]
    #[serde(serialize_with = "secs_opt", rename = "sustain_s")]
    pub(crate) sustain: Option<Duration>,
    /// Sample interval in sustained mode [default: 1s]
    #[arg(
        long,
        value_name = "DUR",
        allow_hyphen_values = true,
        value_parser = parse_duration,
        default_value = "1s",
        hide_default_value = true,
        requires = "sustain"
    )]
    #[serde(serialize_with = "secs", rename = "interval_s")]
    pub(crate) interval: Duration,
    /// Core-to-core latency: bounce one cache line between every ordered pair of CPUs
    /// (compare-and-swap ping-pong; a matrix with min/median per pair)
    #[arg(long)]
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub(crate) c2c: bool,
    /// The clock of the peaks the efficiency column divides by: measured (the sustained
    /// clock the case saw), nominal (the label's base clock) or all-core (the kernel's
    /// clock chain on every core at once) [default: measured]
    #[arg(long, value_name = "CLOCK", value_parser = ClockChoice::parse)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) clock: Option<ClockChoice>,
}

/// The sample length in sustained mode when `--interval` is not given.
const DEFAULT_INTERVAL: Duration = Duration::from_secs(1);

impl Default for CpuOptions {
    fn default() -> Self {
        CpuOptions {
            precisions: None,
            isas: None,
            threads: None,
            sustain: None,
            interval: DEFAULT_INTERVAL,
            c2c: false,
            clock: None,
        }
    }
}

fn precision_names() -> Vec<&'static str> {
    Precision::ALL.iter().map(|p| p.name()).collect()
}

fn isa_names() -> Vec<&'static str> {
    Isa::ALL.iter().map(|i| i.name()).collect()
}

/// `--precision`: precisions of the kernel table, or their aliases.
fn precisions(text: &str) -> Result<List<Precision>, ParseError> {
    parse_list(text, |s| {
        Precision::parse(s).ok_or_else(|| {
            ParseError(format!(
                "unknown precision '{s}'; accepted: {} (or {})",
                precision_names().join(","),
                crate::hw::precision::alias_list()
            ))
        })
    })
}

/// `--isa`: instruction sets of the kernel table.
fn isas(text: &str) -> Result<List<Isa>, ParseError> {
    parse_list(text, |s| {
        Isa::parse(s).ok_or_else(|| {
            ParseError(format!(
                "unknown instruction set '{s}'; accepted: {}",
                isa_names().join(",")
            ))
        })
    })
}

/// The checks that span flags: `--interval` fits in `--sustain` (clap refuses it
/// without `--sustain`: `requires`).
pub(crate) fn parse(a: &CpuOptions) -> Result<CpuOptions, UsageError> {
    if a.c2c {
        // The ping-pong runs every pair of the CPUs (`--cpus` chooses them) with its own
        // fixed sampling: the kernel flags have nothing to choose.
        let given = [
            ("--precision", a.precisions.is_some()),
            ("--isa", a.isas.is_some()),
            ("--threads", a.threads.is_some()),
            ("--sustain", a.sustain.is_some()),
            ("--clock", a.clock.is_some()),
        ];
        if let Some((flag, _)) = given.iter().find(|(_, g)| *g) {
            return Err(UsageError::new(
                flag,
                "does not apply with --c2c (every ordered pair of CPUs is measured; choose the CPUs with --cpus LIST)",
            ));
        }
    }
    let interval = a.interval;
    if let Some(s) = a.sustain {
        if interval > s {
            return Err(UsageError::new(
                "--interval",
                format!(
                    "{:?} is longer than --sustain {:?}; use an interval shorter than the run",
                    interval, s
                ),
            ));
        }
    }
    Ok(a.clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::flags::try_args;

    fn opts(argv: &[&str]) -> Result<CpuOptions, UsageError> {
        parse(&try_args::<CpuOptions>(argv)?)
    }

    /// Every flag's bad value is the one line it gave before the flags were typed.
    #[test]
    fn bad_values_give_their_line() {
        for (argv, line) in [
            (&["--precision", "fp8"][..], "--precision: unknown precision 'fp8'; accepted: int8,int16,int32,int64,fp16,bf16,fp32,fp64 (or qp,hp,sp,dp)"),
            (&["--precision", "fp64,,sp"], "--precision: 'fp64,,sp' has an empty element; use a comma-separated list like 1,2,4"),
            (&["--isa", "mmx9"], "--isa: unknown instruction set 'mmx9'; accepted: generic,scalar,sse2,avx,avx2,f16c,avx-vnni,avx512,avx512-vnni,avx512-bf16,avx512-fp16,amx,neon,neon-fp16,neon-dotprod,neon-bf16,neon-i8mm,sve,sve-bf16,sve-i8mm,sve2"),
            (&["--threads", "0"], "--threads: '0' is out of range; thread counts go from 1 to 4096"),
            (&["--threads", "two"], "--threads: 'two' is not a thread count; use whole numbers like 1,2,4,8"),
            (&["--sustain", "ten minutes"], "--sustain: 'ten minutes' is not a duration; use a number with ms, s, m or h, e.g. 500ms or 10s"),
            (&["--sustain", "10m", "--interval", "5"], "--interval: '5' has no unit; give one of us, ms, s, m or h, e.g. 5ms or 5s"),
            (&["--sustain", "1s", "--interval", "2s"], "--interval: 2s is longer than --sustain 1s; use an interval shorter than the run"),
            (&["--c2c", "--threads", "2"], "--threads: does not apply with --c2c (every ordered pair of CPUs is measured; choose the CPUs with --cpus LIST)"),
            (&["--clock", "turbo"], "--clock: unknown clock 'turbo'; accepted: measured, nominal, all-core"),
        ] {
            assert_eq!(opts(argv).unwrap_err().0, line, "{argv:?}");
        }
    }

    /// The help lists the kernel table's precisions and ISAs.
    #[test]
    fn help_lists_the_tables_choices() {
        let mut cmd = <CpuOptions as clap::Args>::augment_args(clap::Command::new("cpu"));
        let help = cmd.render_help().to_string();
        for p in Precision::ALL {
            assert!(help.contains(p.name()), "{p:?}: {help}");
        }
        for i in Isa::ALL {
            assert!(help.contains(i.name()), "{i:?}: {help}");
        }
    }
}
