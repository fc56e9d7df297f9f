//! Validated options: the only place that reads the raw command line. It assembles what
//! each part validates itself — the common options (`bench::common::parse`), each
//! resource's flags (`bench::<resource>::options::parse`), the commands that measure
//! nothing (`reporting`) — into one [`Options`]. Each bad value becomes one
//! [`UsageError`] line naming the flag and the accepted form; nothing runs.

use crate::bench::common::{parse_threads, CommonOptions};
use crate::cli::{Cli, Cmd};
use crate::reporting::{ReferenceOptions, ReportOptions};
use crate::util::usage::UsageError;
use serde::Serialize;
use std::path::PathBuf;

/// What to run.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "lowercase", tag = "command")]
pub(crate) enum Command {
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
    /// `peakbench linalg`.
    Linalg(crate::bench::linalg::options::LinalgOptions),
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
    /// `peakbench fleet FILE…` (measures nothing).
    Fleet(crate::reporting::FleetOptions),
    /// `peakbench history` (measures nothing).
    History(crate::history::command::HistoryOptions),
    /// Hidden `peakbench null`.
    Null {
        /// `--threads`.
        threads: Vec<usize>,
    },
}

/// All validated options of one invocation.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Options {
    /// The options common to every command (flattened: the report's `config` keeps
    /// them at the top level).
    #[serde(flatten)]
    pub(crate) common: CommonOptions,
    /// The subcommand and its options.
    pub(crate) command: Command,
}

impl Options {
    /// Validates the parsed command line.
    pub(crate) fn from_cli(cli: Cli) -> Result<Options, UsageError> {
        let c = &cli.common;
        let quick = cli.command.is_none();
        let mut common = crate::bench::common::parse(c, quick)?;
        for p in &c.peak {
            let (k, v) = crate::bench::peaks::parse_peak(p)?;
            common.peaks.insert(k, v);
        }
        let command = match &cli.command {
            None => Command::Quick,
            Some(Cmd::Sysinfo) => Command::Sysinfo,
            Some(Cmd::Cpu(a)) => Command::Cpu(crate::bench::cpu::options::parse(a)?),
            Some(Cmd::Memory(a)) => Command::Memory(crate::bench::memory::options::parse(a)?),
            Some(Cmd::Disk(a)) => Command::Disk(crate::bench::disk::options::parse(a)?),
            Some(Cmd::Net(a)) => Command::Net(crate::bench::net::options::parse_net(a)?),
            Some(Cmd::Gpu(a)) => Command::Gpu(crate::bench::gpu::options::parse(a)?),
            Some(Cmd::Linalg(a)) => Command::Linalg(crate::bench::linalg::options::parse(a)?),
            Some(Cmd::Serve(a)) => Command::Serve(crate::bench::net::options::parse_serve(a)?),
            Some(Cmd::Report(a)) => Command::Report(crate::reporting::parse_report(a, c)?),
            Some(Cmd::Compare(a)) => Command::Compare {
                files: a.files.iter().map(PathBuf::from).collect(),
            },
            Some(Cmd::Reference(a)) => Command::Reference(ReferenceOptions {
                run: a.run,
                threads: a.threads.as_deref().map(parse_threads).transpose()?,
            }),
            Some(Cmd::Fleet(a)) => Command::Fleet(crate::reporting::parse_fleet(a)?),
            Some(Cmd::History(a)) => Command::History(crate::history::command::parse(a)?),
            Some(Cmd::Null { threads }) => Command::Null {
                threads: threads
                    .as_deref()
                    .map(parse_threads)
                    .transpose()?
                    .unwrap_or_else(|| vec![1]),
            },
        };
        refuse_unused(c, &command)?;
        check_history(&common, &command)?;
        check_cpus(common.cpus.as_deref(), &command)?;
        common.html = match c.html.as_deref() {
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
        Ok(Options { common, command })
    }
}

/// Refuses the common flags that would do nothing for this command, rather than accept
/// and ignore them: `--weak` outside the CPU and memory measurements (disk jobs have a
/// file each and net streams a send each, so there is no shared problem to divide), and
/// on `sysinfo` every flag but `--format`, `--peak` and `--quiet` (it measures no case;
/// `--quiet` stays accepted, as true of it and harmless in scripts that pass it to all).
fn refuse_unused(
    c: &crate::bench::common::CommonArgs,
    command: &Command,
) -> Result<(), UsageError> {
    if c.weak {
        let why = match command {
            Command::Disk(_) => Some("disk jobs each have their own --file-size file already (weak scaling by construction); drop --weak and set --jobs and --file-size"),
            Command::Net(_) => Some("net streams each send for --time with no shared problem to divide; drop --weak and set --streams"),
            Command::Gpu(_) => Some("the GPU kernels run on one device with no thread count to scale; drop --weak"),
            Command::Sysinfo | Command::Serve(_) | Command::Report(_) | Command::Compare { .. } => {
                Some("applies only to the cpu, memory and linalg measurements (and the quick suite); drop --weak")
            }
            _ => None,
        };
        if let Some(why) = why {
            return Err(UsageError::new("--weak", why));
        }
    }
    if c.until_stable.is_some() {
        if let Some(why) = until_stable_unused(command) {
            return Err(UsageError::new("--until-stable", why));
        }
    }
    if matches!(command, Command::Sysinfo) {
        let given = [
            ("--repeat", c.repeat.is_some()),
            ("--min-time", c.min_time.is_some()),
            ("--output", c.output.is_some()),
            ("--reference", c.reference),
        ];
        if let Some((flag, _)) = given.iter().find(|(_, g)| *g) {
            return Err(UsageError::new(
                flag,
                "sysinfo measures no case and writes no results file; it takes only --format and --peak",
            ));
        }
    }
    Ok(())
}

/// `--history PATH` given to a measuring run must be usable before anything is
/// measured (an existing peakbench history, or a file its directory lets us create);
/// `history` reads the database, so `--no-history` makes no sense there.
fn check_history(common: &CommonOptions, command: &Command) -> Result<(), UsageError> {
    match (command, &common.history) {
        (Command::History(_), _) if common.no_history => Err(UsageError::new(
            "--no-history",
            "history reads the database; drop --no-history (or give --history PATH)",
        )),
        (Command::History(_), _) | (_, None) => Ok(()),
        (_, Some(p)) if !common.no_history && !common.dry_run => {
            crate::history::check_target(p).map_err(|e| UsageError::new("--history", e))
        }
        _ => Ok(()),
    }
}

/// `--cpus` applies to the CPU-bound commands (cpu, memory, linalg, and gpu's host
/// side); elsewhere it is refused. A thread list longer than the CPUs listed is refused
/// too: those threads could not each have a CPU of the list.
fn check_cpus(cpus: Option<&[usize]>, command: &Command) -> Result<(), UsageError> {
    let Some(cpus) = cpus else { return Ok(()) };
    let threads = match command {
        Command::Cpu(o) => o.threads.as_ref(),
        Command::Memory(o) => o.threads.as_ref(),
        Command::Linalg(o) => o.threads.as_ref(),
        Command::Gpu(_) => None,
        _ => {
            return Err(UsageError::new(
                "--cpus",
                "applies only to the cpu, memory, linalg and gpu commands; drop --cpus (or run the command under taskset -c)",
            ))
        }
    };
    if let Some(&t) = threads.and_then(|t| t.iter().max()) {
        if t > cpus.len() {
            return Err(UsageError::new(
                "--threads",
                format!(
                    "{t} threads but --cpus lists {} CPU{} ({}); use at most {} threads or list more CPUs",
                    cpus.len(),
                    if cpus.len() == 1 { "" } else { "s" },
                    crate::bench::common::cpu_list(cpus),
                    cpus.len()
                ),
            ));
        }
    }
    Ok(())
}

/// Why `--until-stable` would do nothing for this command (issue #33 item 13): it
/// repeats a case's runner samples and drops those whose threads lost their cores,
/// which only the cpu (not `--sustain`), memory and linalg roofline cases take.
fn until_stable_unused(command: &Command) -> Option<&'static str> {
    use crate::bench::linalg::options::Routine;
    Some(match command {
        Command::Disk(_) => "disk cases run fixed --runtime windows, with no per-sample check of the threads; drop --until-stable and set --repeat",
        Command::Net(_) => "net tests run for --time, with no per-sample check of the threads; drop --until-stable and set --repeat",
        Command::Gpu(_) => "GPU kernels run on the device, with no per-sample check of CPU threads; drop --until-stable and set --repeat",
        Command::Cpu(c) if c.sustain.is_some() => "--sustain keeps every interval's sample (a time series); drop one of the two",
        Command::Linalg(l) if !l.routines.contains(&Routine::Roofline) => "applies to the linalg roofline only, not to gemm or lu; drop --until-stable or add --routine roofline",
        Command::Sysinfo | Command::Serve(_) | Command::Report(_) | Command::Compare { .. } | Command::Fleet(_) | Command::Reference(_) => {
            "applies only to the cpu, memory and linalg roofline measurements (and the quick suite); drop --until-stable"
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::cpu::kernels::{Isa, Precision};
    use clap::Parser;
    use std::time::Duration;

    fn opts(args: &[&str]) -> Result<Options, UsageError> {
        let mut v = vec!["peakbench"];
        v.extend_from_slice(args);
        Options::from_cli(Cli::try_parse_from(v).unwrap())
    }

    #[test]
    fn defaults() {
        let o = opts(&[]).unwrap();
        assert_eq!(o.common.repeat, 3);
        assert_eq!(o.common.min_time, Duration::from_millis(200));
        assert!(matches!(o.command, Command::Quick));
        let o = opts(&["cpu"]).unwrap();
        assert_eq!(o.common.min_time, Duration::from_millis(500));
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
        let e = opts(&["cpu", "--isa", "mmx9"]).unwrap_err().0;
        assert!(
            e.starts_with("--isa: unknown instruction set 'mmx9'"),
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

    #[test]
    fn flags_that_would_do_nothing_are_refused() {
        for cmd in ["disk", "net", "gpu", "sysinfo"] {
            let e = opts(&[cmd, "--weak"]).unwrap_err().0;
            assert!(e.starts_with("--weak: "), "{cmd}: {e}");
        }
        let e = opts(&["disk", "--weak"]).unwrap_err().0;
        assert!(e.contains("own --file-size file"), "{e}");
        // Issue #33 item 13: --until-stable did nothing on these, silently.
        for a in [
            &["disk"][..],
            &["net"],
            &["gpu"],
            &["sysinfo"],
            &["serve"],
            &["report", "x.json"],
            &["compare", "a.json", "b.json"],
            &["fleet", "a.json"],
            &["reference"],
            &["cpu", "--sustain", "2s"],
            &["linalg", "--routine", "gemm,lu"],
            &["linalg"],
        ] {
            let mut v = a.to_vec();
            v.extend(["--until-stable", "2%"]);
            let e = opts(&v).unwrap_err().0;
            assert!(e.starts_with("--until-stable: "), "{a:?}: {e}");
            assert!(!e.contains('\n'), "{e}");
        }
        for ok in [
            &[][..],
            &["cpu"],
            &["memory"],
            &["linalg", "--routine", "roofline"],
            &["linalg", "--routine", "gemm,roofline"],
        ] {
            let mut v = ok.to_vec();
            v.extend(["--until-stable", "2%"]);
            assert!(opts(&v).is_ok(), "{ok:?}: {:?}", opts(&v).err());
        }
        for ok in [&["--weak"][..], &["cpu", "--weak"], &["memory", "--weak"]] {
            assert!(opts(ok).is_ok(), "{ok:?}");
        }
        for flag in [
            &["--repeat", "2"][..],
            &["--min-time", "1s"],
            &["--reference"],
            &["--output", "x"],
        ] {
            let mut a = vec!["sysinfo"];
            a.extend_from_slice(flag);
            let e = opts(&a).unwrap_err().0;
            assert!(
                e.starts_with(flag[0]) && e.contains("only --format and --peak"),
                "{e}"
            );
        }
        assert!(opts(&[
            "sysinfo",
            "--format",
            "json",
            "--quiet",
            "--peak",
            "memory=10GB/s"
        ])
        .is_ok());
    }
}
