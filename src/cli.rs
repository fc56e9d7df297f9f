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
    /// Directory where HOST-UTCTIME.json is kept [default: results]
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
    /// Memory bandwidth (read, write, copy, scale, add, triad) and latency, L1 to DRAM
    Memory(MemoryArgs),
    /// File I/O like fio: throughput, IOPS and completion-latency percentiles (O_DIRECT)
    Disk(DiskArgs),
    /// TCP/UDP throughput and ping-pong latency (loopback, or against `peakbench serve`)
    Net(NetArgs),
    /// GPU compute per precision, memory and transfer bandwidth, dispatch latency (wgpu over Vulkan)
    Gpu(GpuArgs),
    /// Serve network tests to `peakbench net --server` clients
    Serve(ServeArgs),
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

/// `peakbench memory` flags (validated in `bench::memory::options`).
#[derive(Debug, Args, Default)]
pub struct MemoryArgs {
    /// Kernels: read,write,copy,scale,add,triad,chase [default: all]
    #[arg(long, value_name = "LIST")]
    pub kernel: Option<String>,
    /// Access order of the blocks: seq,rand [default: seq]
    #[arg(long, value_name = "LIST")]
    pub pattern: Option<String>,
    /// Contiguous access sizes, multiples of 8 B, e.g. 8B,1KiB,8KiB,1MiB,8MiB,80MiB [default: whole array for seq, 4KiB for rand]
    #[arg(long, value_name = "LIST", allow_hyphen_values = true)]
    pub block: Option<String>,
    /// Working set of a case, all arrays and threads together [default: 4x the last-level cache, rounded up to a power of two]
    #[arg(long, value_name = "SIZE", allow_hyphen_values = true)]
    pub size: Option<String>,
    /// Thread counts [default: 1,2,4,… up to the core count]
    #[arg(long, value_name = "LIST", allow_hyphen_values = true)]
    pub threads: Option<String>,
    /// Walk the working set from 4 KiB to 4x the last-level cache (L1/L2/L3/DRAM marked)
    #[arg(long)]
    pub sweep: bool,
    /// Non-temporal stores: auto (when the working set exceeds the LLC), on, off [default: auto]
    #[arg(long, value_name = "MODE")]
    pub nt: Option<String>,
    /// Count the write-allocate read of cached stores (STREAM does not)
    #[arg(long)]
    pub count_write_allocate: bool,
}

/// `peakbench gpu` flags (validated in `bench/gpu/options.rs`).
#[derive(Debug, Args, Default)]
pub struct GpuArgs {
    /// List the adapters (name, vendor, type, driver, backend, limits, peaks) and exit
    #[arg(long)]
    pub list: bool,
    /// Adapter index from --list [default: the first: discrete before integrated before software]
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    pub device: Option<String>,
    /// Compute precisions: fp32,fp16,fp64,int32,int8,int64 or all [default: all, unless only --kernel is given]
    #[arg(long, value_name = "LIST", allow_hyphen_values = true)]
    pub precision: Option<String>,
    /// Memory kernels: read,write,copy,h2d,d2h,dispatch or all [default: all, unless only --precision is given]
    #[arg(long, value_name = "LIST", allow_hyphen_values = true)]
    pub kernel: Option<String>,
    /// Bytes per buffer of the memory and transfer kernels [default: 1GiB; 256MiB on a software adapter]
    #[arg(long, value_name = "SIZE", allow_hyphen_values = true)]
    pub size: Option<String>,
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
    #[arg(long, value_name = "LIST", allow_hyphen_values = true)]
    pub block: Option<String>,
    /// I/Os in flight per job (queue depth) [default: 1,32]
    #[arg(long, value_name = "LIST", allow_hyphen_values = true)]
    pub depth: Option<String>,
    /// Parallel jobs, one file and one thread each [default: 1]
    #[arg(long, value_name = "LIST", allow_hyphen_values = true)]
    pub jobs: Option<String>,
    /// Size of each job's file [default: 1GiB]
    #[arg(long, value_name = "SIZE", allow_hyphen_values = true)]
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

/// `peakbench net` flags.
#[derive(Debug, Args, Default)]
pub struct NetArgs {
    /// Server running `peakbench serve`, as HOST or HOST:PORT [default: an in-process server on 127.0.0.1; port 5211]
    #[arg(long, value_name = "HOST[:PORT]")]
    pub server: Option<String>,
    /// Transports: tcp,udp [default: tcp,udp]
    #[arg(long, value_name = "LIST")]
    pub proto: Option<String>,
    /// Tests: throughput,latency [default: throughput,latency]
    #[arg(long, value_name = "LIST")]
    pub test: Option<String>,
    /// Message/datagram sizes, e.g. 1B,1KiB,64KiB [default: TCP 128KiB, UDP 1460B, latency 64B]
    #[arg(long, value_name = "LIST")]
    pub msg: Option<String>,
    /// Parallel streams, one pinned thread each on both ends [default: 1]
    #[arg(long, value_name = "LIST")]
    pub streams: Option<String>,
    /// Timed part of each case, split into --repeat samples, after a 0.5 s warm-up [default: 3s]
    #[arg(long, value_name = "DUR")]
    pub time: Option<String>,
    /// The server sends (throughput)
    #[arg(long)]
    pub reverse: bool,
    /// Both ends send at once, each on its own streams (throughput)
    #[arg(long)]
    pub bidir: bool,
    /// UDP pacing per stream in bit/s, e.g. 500M or 2.5G [default: unpaced]
    #[arg(long, value_name = "RATE")]
    pub rate: Option<String>,
    /// TCP sends with MSG_ZEROCOPY where the OS offers it
    #[arg(long)]
    pub zerocopy: bool,
    /// Pre-shared token (proven by HMAC, never sent); or set $PEAKBENCH_TOKEN
    #[arg(long, value_name = "SECRET")]
    pub token: Option<String>,
}

/// `peakbench serve` flags.
#[derive(Debug, Args, Default)]
pub struct ServeArgs {
    /// Address and port to listen on [default: 127.0.0.1:5211; other addresses only when asked]
    #[arg(long, value_name = "ADDR:PORT")]
    pub bind: Option<String>,
    /// Require clients to prove this pre-shared token; or set $PEAKBENCH_TOKEN
    #[arg(long, value_name = "SECRET")]
    pub token: Option<String>,
    /// Exit after the first test session
    #[arg(long)]
    pub once: bool,
}

/// `peakbench report` arguments.
#[derive(Debug, Args, Default)]
pub struct ReportArgs {
    /// A results file written by a run (results/HOST-TIME.json)
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
