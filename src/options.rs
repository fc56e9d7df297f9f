//! Validated options: the only place that reads the raw command line. Each bad value
//! becomes one [`UsageError`] line naming the flag and the accepted form; nothing runs.

use crate::cli::{Cli, Cmd};
use crate::hw::peak::{parse_override, PeakOverrides};
use crate::measure::Scaling;
use crate::report::Format;
use crate::reporting::{ReferenceOptions, ReportOptions};
use crate::util::units::{parse_duration, parse_list};
use crate::util::usage::UsageError;
use serde::{Serialize, Serializer};
use std::path::PathBuf;
use std::time::Duration;

/// Most threads accepted per case: far beyond any oversubscription worth measuring.
pub const MAX_THREADS: usize = 4096;

/// Serialises a duration as seconds (`f64`), for `*_s` option fields in the report.
pub fn secs<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(d.as_secs_f64())
}
/// Serialises an optional duration as seconds or `null`.
pub fn secs_opt<S: Serializer>(d: &Option<Duration>, s: S) -> Result<S::Ok, S::Error> {
    match d {
        Some(d) => s.serialize_some(&d.as_secs_f64()),
        None => s.serialize_none(),
    }
}

/// What to run.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "lowercase", tag = "command")]
pub enum Command {
    /// No subcommand: the quick suite.
    Quick,
    /// `peakbench sysinfo`.
    Sysinfo,
    /// `peakbench cpu`.
    Cpu(crate::bench::cpu::options::CpuOptions),
    /// `peakbench memory`.
    Memory(crate::bench::memory::options::MemoryOptions),
    /// `peakbench disk`.
    Disk(crate::bench::disk::options::DiskOptions),
    /// `peakbench net`.
    Net(crate::bench::net::options::NetOptions),
    /// `peakbench gpu`.
    Gpu(crate::bench::gpu::options::GpuOptions),
    /// `peakbench serve` (measures nothing itself; dispatched by `app::run`).
    Serve(crate::bench::net::options::ServeOptions),
    /// `peakbench report FILE.json` (measures nothing).
    Report(ReportOptions),
    /// `peakbench compare A.json B.json …` (measures nothing).
    Compare {
        /// The files, baseline first.
        files: Vec<PathBuf>,
    },
    /// `peakbench reference`.
    Reference(ReferenceOptions),
    /// Hidden `peakbench null`.
    Null {
        /// `--threads`.
        threads: Vec<usize>,
    },
}

impl Command {
    /// The resource (`Benchmark::id`) a measuring subcommand runs; `None` for the quick
    /// suite and for commands that measure nothing.
    pub fn resource(&self) -> Option<&'static str> {
        match self {
            Command::Cpu(_) => Some("cpu"),
            Command::Memory(_) => Some("memory"),
            Command::Disk(_) => Some("disk"),
            Command::Net(_) => Some("net"),
            Command::Gpu(_) => Some("gpu"),
            Command::Null { .. } => Some("null"),
            Command::Quick
            | Command::Sysinfo
            | Command::Serve(_)
            | Command::Report(_)
            | Command::Compare { .. }
            | Command::Reference(_) => None,
        }
    }
}

/// All validated options of one invocation.
#[derive(Debug, Clone, Serialize)]
pub struct Options {
    /// `--repeat`.
    pub repeat: u32,
    /// `--min-time`.
    #[serde(serialize_with = "secs", rename = "min_time_s")]
    pub min_time: Duration,
    /// `--format`.
    pub format: Format,
    /// `--output`.
    pub output: PathBuf,
    /// `--quiet`.
    pub quiet: bool,
    /// `--weak` (weak) or default (strong).
    pub scaling: Scaling,
    /// `--peak`.
    pub peaks: PeakOverrides,
    /// `--html`: where to write the HTML report.
    pub html: Option<PathBuf>,
    /// `--reference`: run matching reference tools after each case.
    pub reference: bool,
    /// The subcommand and its options.
    pub command: Command,
}

/// Parses a thread list: whole numbers from 1 to [`MAX_THREADS`].
pub fn parse_threads(text: &str) -> Result<Vec<usize>, UsageError> {
    parse_list(text, |s| {
        let n: usize = s.parse().map_err(|_| {
            crate::util::units::ParseError(format!(
                "'{s}' is not a thread count; use whole numbers like 1,2,4,8"
            ))
        })?;
        if n == 0 || n > MAX_THREADS {
            return Err(crate::util::units::ParseError(format!(
                "'{s}' is out of range; thread counts go from 1 to {MAX_THREADS}"
            )));
        }
        Ok(n)
    })
    .map_err(|e| UsageError::new("--threads", e))
}

impl Options {
    /// Validates the parsed command line.
    pub fn from_cli(cli: Cli) -> Result<Options, UsageError> {
        let c = &cli.common;
        let repeat = match &c.repeat {
            None => 3,
            Some(t) => match t.trim().parse::<u32>() {
                Ok(n) if (1..=10_000).contains(&n) => n,
                _ => {
                    return Err(UsageError::new(
                        "--repeat",
                        format!("'{t}' is not a run count; use a whole number from 1 to 10000"),
                    ))
                }
            },
        };
        let quick = cli.command.is_none();
        let min_time = match &c.min_time {
            None if quick => Duration::from_millis(200),
            None => Duration::from_millis(500),
            Some(t) => parse_duration(t).map_err(|e| UsageError::new("--min-time", e))?,
        };
        let format = match &c.format {
            None => Format::Table,
            Some(t) => Format::parse(t.trim()).ok_or_else(|| {
                UsageError::new(
                    "--format",
                    format!("unknown format '{t}'; accepted: table,json,csv,markdown"),
                )
            })?,
        };
        let output = match &c.output {
            None => PathBuf::from("results"),
            Some(t) if t.trim().is_empty() => {
                return Err(UsageError::new("--output", "empty path; give a directory"))
            }
            Some(t) => PathBuf::from(t),
        };
        let mut peaks = PeakOverrides::default();
        for p in &c.peak {
            let (k, v) = parse_override(p).map_err(|e| UsageError::new("--peak", e))?;
            peaks.0.insert(k, v);
        }
        let command = match &cli.command {
            None => Command::Quick,
            Some(Cmd::Sysinfo) => Command::Sysinfo,
            Some(Cmd::Cpu(a)) => Command::Cpu(crate::bench::cpu::options::parse(a)?),
            Some(Cmd::Memory(a)) => Command::Memory(crate::bench::memory::options::parse(a)?),
            Some(Cmd::Disk(a)) => Command::Disk(crate::bench::disk::options::parse(a)?),
            Some(Cmd::Net(a)) => Command::Net(crate::bench::net::options::parse_net(a)?),
            Some(Cmd::Gpu(a)) => Command::Gpu(crate::bench::gpu::options::parse(a)?),
            Some(Cmd::Serve(a)) => Command::Serve(crate::bench::net::options::parse_serve(a)?),
            Some(Cmd::Report(a)) => Command::Report(crate::reporting::parse_report(a, c)?),
            Some(Cmd::Compare(a)) => Command::Compare {
                files: a.files.iter().map(PathBuf::from).collect(),
            },
            Some(Cmd::Reference(a)) => Command::Reference(ReferenceOptions {
                run: a.run,
                threads: a.threads.as_deref().map(parse_threads).transpose()?,
            }),
            Some(Cmd::Null { threads }) => Command::Null {
                threads: threads
                    .as_deref()
                    .map(parse_threads)
                    .transpose()?
                    .unwrap_or_else(|| vec![1]),
            },
        };
        let html = match c.html.as_deref() {
            None => None,
            Some(t) if t.trim().is_empty() => {
                return Err(UsageError::new(
                    "--html",
                    "empty path; give a file name like report.html",
                ))
            }
            Some(_) if matches!(command, Command::Sysinfo | Command::Reference(_)) => {
                return Err(UsageError::new(
                    "--html",
                    "only applies to measuring runs, report and compare",
                ))
            }
            Some(t) => Some(PathBuf::from(t)),
        };
        Ok(Options {
            html,
            reference: c.reference,
            repeat,
            min_time,
            format,
            output,
            quiet: c.quiet,
            scaling: if c.weak {
                Scaling::Weak
            } else {
                Scaling::Strong
            },
            peaks,
            command,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::cpu::kernels::{Isa, Precision};
    use clap::Parser;

    fn opts(args: &[&str]) -> Result<Options, UsageError> {
        let mut v = vec!["peakbench"];
        v.extend_from_slice(args);
        Options::from_cli(Cli::try_parse_from(v).unwrap())
    }

    #[test]
    fn defaults() {
        let o = opts(&[]).unwrap();
        assert_eq!(o.repeat, 3);
        assert_eq!(o.min_time, Duration::from_millis(200));
        assert!(matches!(o.command, Command::Quick));
        let o = opts(&["cpu"]).unwrap();
        assert_eq!(o.min_time, Duration::from_millis(500));
    }

    #[test]
    fn cpu_flags() {
        let o = opts(&[
            "cpu",
            "--precision",
            "dp,sp,int8",
            "--isa",
            "avx512",
            "--threads",
            "1,2",
        ])
        .unwrap();
        let Command::Cpu(c) = o.command else { panic!() };
        assert_eq!(
            c.precisions,
            Some(vec![Precision::Fp64, Precision::Fp32, Precision::Int8])
        );
        assert_eq!(c.isas, Some(vec![Isa::Avx512]));
        assert_eq!(c.threads, Some(vec![1, 2]));
    }

    #[test]
    fn errors_name_the_flag() {
        let e = opts(&["cpu", "--precision", "fp8"]).unwrap_err().0;
        assert!(e.starts_with("--precision: unknown precision 'fp8'"), "{e}");
        assert!(e.contains("int8,int16"));
        let e = opts(&["cpu", "--isa", "neon"]).unwrap_err().0;
        assert!(
            e.starts_with("--isa: unknown instruction set 'neon'"),
            "{e}"
        );
        let e = opts(&["cpu", "--threads", "0"]).unwrap_err().0;
        assert!(e.starts_with("--threads:"), "{e}");
        assert!(opts(&["cpu", "--threads", "100000"]).is_err());
        assert!(opts(&["cpu", "--threads", "two"]).is_err());
        let e = opts(&["--repeat", "0"]).unwrap_err().0;
        assert!(e.starts_with("--repeat:"), "{e}");
        let e = opts(&["--min-time", "soon"]).unwrap_err().0;
        assert!(e.starts_with("--min-time:"), "{e}");
        let e = opts(&["--format", "xml"]).unwrap_err().0;
        assert!(e.contains("table,json,csv,markdown"), "{e}");
        let e = opts(&["cpu", "--sustain", "1s", "--interval", "2s"])
            .unwrap_err()
            .0;
        assert!(e.starts_with("--interval:"), "{e}");
        let e = opts(&["cpu", "--interval", "2s"]).unwrap_err().0;
        assert!(e.starts_with("--interval:"), "{e}");
        let e = opts(&["--peak", "cpu"]).unwrap_err().0;
        assert!(e.starts_with("--peak:"), "{e}");
    }
}
