//! Command-line definitions (clap). Every flag is defined once here, with its help.
//! Values are taken as text and validated in `options.rs`, which gives each bad value
//! one clear line naming the flag and the accepted form.

use clap::{Args, Parser, Subcommand};

/// peakbench: how close does this machine come to its physical limit?
#[derive(Debug, Parser)]
#[command(
    name = "peakbench",
    version,
    about = "How close does this machine come to its physical limit? Run with no subcommand for the quick suite.",
    after_help = "Lists are comma-separated (--threads 1,2,4). Sizes take B/KiB/MiB/GiB or KB/MB/GB, durations ms/s/m/h."
)]
pub struct Cli {
    /// Options common to every measuring command.
    #[command(flatten)]
    pub common: CommonArgs,
    /// What to run; none runs the quick suite.
    #[command(subcommand)]
    pub command: Option<Cmd>,
}

/// Options shared by every measuring command (DESIGN.md §5).
#[derive(Debug, Args, Default)]
pub struct CommonArgs {
    /// Timed runs per case after the warm-up [default: 3]
    #[arg(long, global = true, value_name = "N", allow_hyphen_values = true)]
    pub repeat: Option<String>,
    /// Minimum duration of each timed run, e.g. 500ms [default: 500ms; quick suite 200ms]
    #[arg(long, global = true, value_name = "DUR", allow_hyphen_values = true)]
    pub min_time: Option<String>,
    /// What goes to stdout: table, json, csv or markdown [default: table]
    #[arg(long, global = true, value_name = "FORMAT", allow_hyphen_values = true)]
    pub format: Option<String>,
    /// Directory where <host>-<UTC time>.json is kept [default: results]
    #[arg(long, global = true, value_name = "DIR", allow_hyphen_values = true)]
    pub output: Option<String>,
    /// No progress bar
    #[arg(long, global = true)]
    pub quiet: bool,
    /// Weak scaling: every thread gets the full problem instead of a share
    #[arg(long, global = true)]
    pub weak: bool,
    /// Override a theoretical peak, e.g. cpu.fp64=3.2TFLOP/s or memory=68GB/s (repeatable)
    #[arg(
        long,
        global = true,
        value_name = "KEY=VALUE",
        allow_hyphen_values = true
    )]
    pub peak: Vec<String>,
    /// Also write the HTML report to this file (quick suite: next to the JSON by default)
    #[arg(long, global = true, value_name = "FILE", allow_hyphen_values = true)]
    pub html: Option<String>,
    /// Run the installed reference tools on matching cases and record their figures
    #[arg(long, global = true)]
    pub reference: bool,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Cmd {
    /// Detected hardware, measured clocks and theoretical peaks
    Sysinfo,
    /// Operations per second per precision and instruction set, 1..N pinned threads
    Cpu(CpuArgs),
    /// Render a results file: the table on stdout, or --html/--csv/--markdown files
    Report(ReportArgs),
    /// Compare results files case by case: change of the mean with a 95 % CI (Welch)
    Compare(CompareArgs),
    /// Installed reference tools and their versions; --run compares CPU peaks with likwid-bench
    Reference(ReferenceArgs),
    /// Does nothing; drives the whole pipeline in tests
    #[command(hide = true)]
    Null {
        /// Thread counts
        #[arg(long, value_name = "LIST", allow_hyphen_values = true)]
        threads: Option<String>,
    },
}

/// `peakbench cpu` flags.
#[derive(Debug, Args, Default)]
pub struct CpuArgs {
    /// Precisions: int8,int16,int32,int64,fp16,bf16,fp32,fp64 (aliases qp,hp,sp,dp) [default: all]
    #[arg(long, value_name = "LIST", allow_hyphen_values = true)]
    pub precision: Option<String>,
    /// Instruction sets: generic,scalar,sse2,avx,avx2,avx-vnni,avx512,avx512-vnni,avx512-bf16,avx512-fp16,amx [default: all the CPU has]
    #[arg(long, value_name = "LIST", allow_hyphen_values = true)]
    pub isa: Option<String>,
    /// Thread counts [default: 1,2,4,… up to the core count]
    #[arg(long, value_name = "LIST", allow_hyphen_values = true)]
    pub threads: Option<String>,
    /// Sustained mode: sample for this long, e.g. 10m (a time series per case)
    #[arg(long, value_name = "DUR", allow_hyphen_values = true)]
    pub sustain: Option<String>,
    /// Sample interval in sustained mode [default: 1s]
    #[arg(long, value_name = "DUR", allow_hyphen_values = true)]
    pub interval: Option<String>,
}

/// `peakbench report` arguments.
#[derive(Debug, Args, Default)]
pub struct ReportArgs {
    /// A results file written by a run (results/<host>-<time>.json)
    #[arg(value_name = "FILE.json")]
    pub file: String,
    /// Write the results as CSV to this file
    #[arg(long, value_name = "FILE", allow_hyphen_values = true)]
    pub csv: Option<String>,
    /// Write the results as a Markdown table to this file
    #[arg(long, value_name = "FILE", allow_hyphen_values = true)]
    pub markdown: Option<String>,
}

/// `peakbench compare` arguments.
#[derive(Debug, Args, Default)]
pub struct CompareArgs {
    /// Results files; the first is the baseline
    #[arg(value_name = "FILE.json", required = true, num_args = 2..)]
    pub files: Vec<String>,
}

/// `peakbench reference` arguments.
#[derive(Debug, Args, Default)]
pub struct ReferenceArgs {
    /// Run likwid-bench peakflops next to peakbench's matching CPU kernels and print both
    #[arg(long)]
    pub run: bool,
    /// Thread counts for --run [default: 1 and the core count]
    #[arg(long, value_name = "LIST", allow_hyphen_values = true)]
    pub threads: Option<String>,
}
