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
    #[arg(long, global = true, value_name = "N")]
    pub repeat: Option<String>,
    /// Minimum duration of each timed run, e.g. 500ms [default: 500ms; quick suite 200ms]
    #[arg(long, global = true, value_name = "DUR")]
    pub min_time: Option<String>,
    /// What goes to stdout: table, json, csv or markdown [default: table]
    #[arg(long, global = true, value_name = "FORMAT")]
    pub format: Option<String>,
    /// Directory where <host>-<UTC time>.json is kept [default: results]
    #[arg(long, global = true, value_name = "DIR")]
    pub output: Option<String>,
    /// No progress bar
    #[arg(long, global = true)]
    pub quiet: bool,
    /// Weak scaling: every thread gets the full problem instead of a share
    #[arg(long, global = true)]
    pub weak: bool,
    /// Override a theoretical peak, e.g. cpu.fp64=3.2TFLOP/s or memory=68GB/s (repeatable)
    #[arg(long, global = true, value_name = "KEY=VALUE")]
    pub peak: Vec<String>,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Cmd {
    /// Detected hardware, measured clocks and theoretical peaks
    Sysinfo,
    /// Operations per second per precision and instruction set, 1..N pinned threads
    Cpu(CpuArgs),
    /// File I/O like fio: throughput, IOPS and completion-latency percentiles (O_DIRECT)
    Disk(DiskArgs),
    /// Does nothing; drives the whole pipeline in tests
    #[command(hide = true)]
    Null {
        /// Thread counts
        #[arg(long, value_name = "LIST")]
        threads: Option<String>,
    },
}

/// `peakbench cpu` flags.
#[derive(Debug, Args, Default)]
pub struct CpuArgs {
    /// Precisions: int8,int16,int32,int64,fp16,bf16,fp32,fp64 (aliases qp,hp,sp,dp) [default: all]
    #[arg(long, value_name = "LIST")]
    pub precision: Option<String>,
    /// Instruction sets: generic,scalar,sse2,avx,avx2,avx-vnni,avx512,avx512-vnni,avx512-bf16,avx512-fp16,amx [default: all the CPU has]
    #[arg(long, value_name = "LIST")]
    pub isa: Option<String>,
    /// Thread counts [default: 1,2,4,… up to the core count]
    #[arg(long, value_name = "LIST")]
    pub threads: Option<String>,
    /// Sustained mode: sample for this long, e.g. 10m (a time series per case)
    #[arg(long, value_name = "DUR")]
    pub sustain: Option<String>,
    /// Sample interval in sustained mode [default: 1s]
    #[arg(long, value_name = "DUR")]
    pub interval: Option<String>,
}

/// `peakbench disk` flags (validated in `bench/disk/options.rs`).
#[derive(Debug, Args, Default)]
pub struct DiskArgs {
    /// Directory for the test files (a temporary subdirectory is created and removed) [default: current directory]
    #[arg(long, value_name = "DIR")]
    pub dir: Option<String>,
    /// Patterns: seq-read,seq-write,rand-read,rand-write,rw-mix or rw-mix:READ_PCT (fio names read,write,randread,randwrite,randrw also accepted) [default: the four seq/rand ones]
    #[arg(long, value_name = "LIST")]
    pub pattern: Option<String>,
    /// Block sizes, e.g. 4KiB,1MiB [default: 1MiB for seq-*, 4KiB for rand-* and rw-mix]
    #[arg(long, value_name = "LIST")]
    pub block: Option<String>,
    /// I/Os in flight per job (queue depth) [default: 1,32]
    #[arg(long, value_name = "LIST")]
    pub depth: Option<String>,
    /// Parallel jobs, one file and one thread each [default: 1]
    #[arg(long, value_name = "LIST")]
    pub jobs: Option<String>,
    /// Size of each job's file [default: 1GiB]
    #[arg(long, value_name = "SIZE")]
    pub file_size: Option<String>,
    /// I/O engine: auto (io_uring when the kernel allows it, else sync), sync, uring [default: auto]
    #[arg(long, value_name = "ENGINE")]
    pub engine: Option<String>,
    /// Go through the page cache instead of O_DIRECT (labelled in the results)
    #[arg(long)]
    pub buffered: bool,
    /// Measured time per repeat [default: 2s, or --min-time if longer]
    #[arg(long, value_name = "DUR")]
    pub runtime: Option<String>,
    /// Unmeasured I/O before the first repeat [default: 1s]
    #[arg(long, value_name = "DUR")]
    pub ramp: Option<String>,
    /// Check the data: reads compare with what was written, writes are read back after the case
    #[arg(long)]
    pub verify: bool,
    /// Steady-state mode: one run this long sampled every second (e.g. 10m for the SSD write cliff)
    #[arg(long, value_name = "DUR")]
    pub sustain: Option<String>,
    /// Allow --dir to be a block device (its data in the tested range is DESTROYED by writes)
    #[arg(long)]
    pub allow_destructive: bool,
}
