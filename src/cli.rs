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
    /// TCP/UDP throughput and ping-pong latency (loopback, or against `peakbench serve`)
    Net(NetArgs),
    /// Serve network tests to `peakbench net --server` clients
    Serve(ServeArgs),
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

/// `peakbench net` flags.
#[derive(Debug, Args, Default)]
pub struct NetArgs {
    /// Server HOST[:PORT] running `peakbench serve` [default: an in-process server on 127.0.0.1; port 5211]
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
