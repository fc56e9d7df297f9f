//! `peakbench cpu` options: validation of the raw flags ([`CpuArgs`]) into
//! [`CpuOptions`]. Every bad value becomes one line naming the flag and the accepted
//! form (exit code 2, nothing run). Checks that need the host (which ISAs this CPU has)
//! happen in `plan`.

use super::kernels::{Isa, Precision};
use crate::bench::common::{parse_threads, secs, secs_opt};
use crate::util::units::{parse_duration, parse_list};
use crate::util::usage::UsageError;
use clap::Args;
use serde::{Serialize, Serializer};
use std::time::Duration;

/// `peakbench cpu` flags.
#[derive(Debug, Args, Default)]
pub struct CpuArgs {
    /// Precisions: int8,int16,int32,int64,fp16,bf16,fp32,fp64 (aliases qp,hp,sp,dp) [default: all]
    #[arg(long, value_name = "LIST", allow_hyphen_values = true)]
    pub(crate) precision: Option<String>,
    /// Instruction sets, comma-separated: generic, scalar, sse2, avx, avx2, f16c, avx-vnni, avx512,
    /// avx512-vnni, avx512-bf16, avx512-fp16, amx [default: all the CPU has]
    #[arg(long, value_name = "LIST", allow_hyphen_values = true)]
    pub(crate) isa: Option<String>,
    /// Thread counts [default: 1,2,4,… up to the core count]
    #[arg(long, value_name = "LIST", allow_hyphen_values = true)]
    pub(crate) threads: Option<String>,
    /// Sustained mode: sample for this long, e.g. 10m (a time series per case)
    #[arg(long, value_name = "DUR", allow_hyphen_values = true)]
    pub(crate) sustain: Option<String>,
    /// Sample interval in sustained mode [default: 1s]
    #[arg(long, value_name = "DUR", allow_hyphen_values = true)]
    pub(crate) interval: Option<String>,
}

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

/// `peakbench cpu` options.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct CpuOptions {
    /// `--precision`; `None` = all.
    pub(crate) precisions: Option<Vec<Precision>>,
    /// `--isa`; `None` = all the CPU has.
    pub(crate) isas: Option<Vec<Isa>>,
    /// `--threads`; `None` = 1, 2, 4, … cores.
    pub(crate) threads: Option<Vec<usize>>,
    /// `--sustain`: total duration of a sustained run.
    #[serde(serialize_with = "secs_opt", rename = "sustain_s")]
    pub(crate) sustain: Option<Duration>,
    /// `--interval`: sample length in sustained mode.
    #[serde(serialize_with = "secs", rename = "interval_s")]
    pub(crate) interval: Duration,
}

impl Default for CpuOptions {
    fn default() -> Self {
        CpuOptions {
            precisions: None,
            isas: None,
            threads: None,
            sustain: None,
            interval: Duration::from_secs(1),
        }
    }
}

/// Validates `peakbench cpu` flags.
pub(crate) fn parse(a: &CpuArgs) -> Result<CpuOptions, UsageError> {
    let precisions = a
        .precision
        .as_deref()
        .map(|t| {
            parse_list(t, |s| {
                Precision::parse(s).ok_or_else(|| {
                    crate::util::units::ParseError(format!(
                        "unknown precision '{s}'; accepted: int8,int16,int32,int64,fp16,bf16,fp32,fp64 (or {})",
                        crate::hw::precision::alias_list()
                    ))
                })
            })
        })
        .transpose()
        .map_err(|e| UsageError::new("--precision", e))?;
    let isas = a
        .isa
        .as_deref()
        .map(|t| {
            parse_list(t, |s| {
                Isa::parse(s).ok_or_else(|| {
                    let names: Vec<&str> = Isa::ALL.iter().map(|i| i.name()).collect();
                    crate::util::units::ParseError(format!(
                        "unknown instruction set '{s}'; accepted: {}",
                        names.join(",")
                    ))
                })
            })
        })
        .transpose()
        .map_err(|e| UsageError::new("--isa", e))?;
    let threads = a.threads.as_deref().map(parse_threads).transpose()?;
    let sustain = a
        .sustain
        .as_deref()
        .map(parse_duration)
        .transpose()
        .map_err(|e| UsageError::new("--sustain", e))?;
    let interval = a
        .interval
        .as_deref()
        .map(parse_duration)
        .transpose()
        .map_err(|e| UsageError::new("--interval", e))?
        .unwrap_or(Duration::from_secs(1));
    if a.interval.is_some() && sustain.is_none() {
        return Err(UsageError::new(
            "--interval",
            "only applies with --sustain DUR",
        ));
    }
    if let Some(s) = sustain {
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
    Ok(CpuOptions {
        precisions,
        isas,
        threads,
        sustain,
        interval,
    })
}
