//! Command-line definitions (clap), assembled here at the top: the options common to
//! every command (`bench::common::CommonArgs`) and one subcommand per resource, whose
//! flags each resource defines next to its validation (`bench/<resource>/options.rs`).
//! The commands that measure nothing (report, compare, reference) are defined here.
//! Every flag is defined once, with its help. Values are taken as text and validated
//! (through `options.rs`), which gives each bad value one clear line naming the flag and
//! the accepted form.

use crate::bench::common::CommonArgs;
use crate::bench::cpu::options::CpuArgs;
use crate::bench::disk::options::DiskArgs;
use crate::bench::gpu::options::GpuArgs;
use crate::bench::linalg::options::LinalgArgs;
use crate::bench::memory::options::MemoryArgs;
use crate::bench::net::options::{NetArgs, ServeArgs};
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
    pub(crate) common: CommonArgs,
    /// What to run; none runs the quick suite.
    #[command(subcommand)]
    pub(crate) command: Option<Cmd>,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub(crate) enum Cmd {
    /// Detected hardware, measured clocks and theoretical peaks
    #[command(
        after_help = "sysinfo measures no case: of the options above it takes --format, --peak, --width and --quiet; the others are refused (exit 2)."
    )]
    Sysinfo,
    /// Operations per second per precision and instruction set, 1..N pinned threads
    Cpu(CpuArgs),
    /// Memory bandwidth (read, write, copy, scale, add, triad) and latency, L1 to DRAM
    Memory(MemoryArgs),
    /// File I/O like fio: throughput, IOPS and completion-latency percentiles (O_DIRECT)
    Disk(DiskArgs),
    /// TCP/UDP throughput and ping-pong latency (loopback, or against `peakbench serve`)
    Net(NetArgs),
    /// GPU compute per precision, memory and transfer bandwidth, dispatch latency (wgpu over Vulkan)
    Gpu(GpuArgs),
    /// Dense linear algebra next to the FMA peak: GEMM and an HPL-style LU solve (faer)
    Linalg(LinalgArgs),
    /// Serve network tests to `peakbench net --server` clients
    Serve(ServeArgs),
    /// Render a results file: the table on stdout, or --html/--csv/--markdown files
    Report(ReportArgs),
    /// Compare results files case by case: change of the mean with a 95 % CI (Welch)
    Compare(CompareArgs),
    /// Installed reference tools and their versions; --run compares CPU peaks with likwid-bench
    Reference(ReferenceArgs),
    /// Merge many hosts' results files: per workload the fleet median, spread and outlier hosts
    Fleet(FleetArgs),
    /// The recorded runs: list them, show a case over time with its change points, import results files
    History(crate::history::command::HistoryArgs),
    /// Does nothing; drives the whole pipeline in tests
    #[command(hide = true)]
    Null {
        /// Thread counts
        #[arg(long, value_name = "LIST", allow_hyphen_values = true)]
        threads: Option<String>,
    },
}

/// `peakbench report` arguments.
#[derive(Debug, Args, Default)]
pub(crate) struct ReportArgs {
    /// A results file written by a run (results/HOST-TIME.json)
    #[arg(value_name = "FILE.json")]
    pub(crate) file: String,
    /// Write the results as CSV to this file
    #[arg(long, value_name = "FILE", allow_hyphen_values = true)]
    pub(crate) csv: Option<String>,
    /// Write the results as a Markdown table to this file
    #[arg(long, value_name = "FILE", allow_hyphen_values = true)]
    pub(crate) markdown: Option<String>,
}

/// `peakbench compare` arguments.
#[derive(Debug, Args, Default)]
pub(crate) struct CompareArgs {
    /// Results files; the first is the baseline
    #[arg(value_name = "FILE.json", required = true, num_args = 2..)]
    pub(crate) files: Vec<String>,
}

/// `peakbench reference` arguments.
#[derive(Debug, Args, Default)]
pub(crate) struct ReferenceArgs {
    /// Run likwid-bench peakflops next to peakbench's matching CPU kernels and print both
    #[arg(long)]
    pub(crate) run: bool,
    /// Thread counts for --run [default: 1 and the core count]
    #[arg(long, value_name = "LIST", allow_hyphen_values = true)]
    pub(crate) threads: Option<String>,
}

/// `peakbench fleet` arguments.
#[derive(Debug, Args, Default)]
pub(crate) struct FleetArgs {
    /// Results files, one per host (or gathered MPI runs with hosts[])
    #[arg(value_name = "FILE.json", required = true, num_args = 1..)]
    pub(crate) files: Vec<String>,
    /// Outlier when the modified z-score |0.6745*(x-median)/MAD| exceeds this [default: 3.5]
    #[arg(long, value_name = "Z", allow_hyphen_values = true)]
    pub(crate) threshold: Option<String>,
    /// ... and the figure is at least this far from the median, e.g. 5% [default: 5%]
    #[arg(long, value_name = "PCT", allow_hyphen_values = true)]
    pub(crate) min_gap: Option<String>,
    /// Refuse files that ran the same case with differing settings (default: label them)
    #[arg(long)]
    pub(crate) strict: bool,
}
