//! `peakbench memory` options: one struct, [`MemoryOptions`], its flags typed where
//! clap reads them (a bad value is one line naming the flag and the accepted form, exit
//! code 2, nothing run) and [`parse`] for the checks that span flags. Checks that need the host (free memory, cache sizes)
//! happen in `plan`.

use super::kernels::Op;
use crate::bench::flags::{dedup, threads, Choices, List};
use crate::util::units::{parse_list, parse_size, ParseError};
use crate::util::usage::UsageError;
use clap::Args;
use serde::{Serialize, Serializer};

/// Largest working set a case may map, all threads and arrays together (256 TiB, twice
/// what x86-64 user space can address with 4-level page tables). Every size product is
/// checked against it, so none can wrap around 2^64 and map less than the kernels touch.
pub(crate) const MAX_SIZE: u64 = 1 << 48;

/// What `--kernel` selects: a bandwidth operation or the latency chase.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Kind {
    /// A bandwidth kernel.
    Bw(Op),
    /// Pointer-chase latency.
    Chase,
}

impl Kind {
    /// Every kind, in listing order.
    pub(crate) fn all() -> Vec<Kind> {
        let mut v: Vec<Kind> = Op::ALL.iter().map(|&o| Kind::Bw(o)).collect();
        v.push(Kind::Chase);
        v
    }

    /// The flag value.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Kind::Bw(o) => o.name(),
            Kind::Chase => "chase",
        }
    }
}

impl Serialize for Kind {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

/// Access order of the blocks (`--pattern`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Pattern {
    /// Blocks in address order.
    Seq,
    /// Every block once per pass, in a random order.
    Rand,
}

impl Pattern {
    /// The flag value.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Pattern::Seq => "seq",
            Pattern::Rand => "rand",
        }
    }
}

/// Non-temporal stores (`--nt`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Nt {
    /// Streaming stores when the working set exceeds the last-level cache.
    Auto,
    /// Always (for kernels that store).
    On,
    /// Never.
    Off,
}

/// `--sweep MODE`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SweepMode {
    /// Every power of two from 4 KiB to 4x the last-level cache.
    Full,
    /// One working set per cache level.
    Quick,
}

/// `peakbench memory`: its flags, typed where clap reads them, and the validated
/// options (serialised into the report's `config`): one struct. [`parse`] checks what
/// spans flags.
#[derive(Debug, Clone, Args, Serialize)]
pub(crate) struct MemoryOptions {
    /// Kernels [default: all]
    #[arg(long = "kernel", value_name = "LIST", value_parser = Choices::new(kernels, kind_names))]
    pub(crate) kernels: Option<List<Kind>>,
    /// Access order of the blocks [default: seq]
    #[arg(
        long = "pattern",
        value_name = "LIST",
        default_value = "seq",
        hide_default_value = true,
        value_parser = Choices::new(patterns, pattern_names)
    )]
    pub(crate) patterns: List<Pattern>,
    /// Contiguous access sizes, e.g. 1B,8B,1KB,1MiB,80MiB; multiples of 8 B run every kernel on f64 elements, other sizes (1 B…) run read, write and copy on bytes [default: whole array for seq, 4KiB for rand]
    #[arg(long = "block", value_name = "LIST", allow_hyphen_values = true, value_parser = blocks)]
    pub(crate) blocks: Option<List<u64>>,
    /// Working set of a case, all arrays and threads together [default: 4x the last-level cache, rounded up to a power of two]
    #[arg(long, value_name = "SIZE", allow_hyphen_values = true, value_parser = size, conflicts_with = "sweep")]
    pub(crate) size: Option<u64>,
    /// Thread counts [default: 1,2,4,… up to the core count]
    #[arg(long, value_name = "LIST", allow_hyphen_values = true, value_parser = threads)]
    pub(crate) threads: Option<List<usize>>,
    /// Walk the working set: `full` = every power of two from 4 KiB to 4x the last-level cache (minutes: kernels x ~20 sizes x threads cases), `quick` = one working set per cache level (L1/L2/L3/DRAM marked)
    #[arg(
        long,
        value_name = "MODE",
        num_args = 0..=1,
        default_missing_value = "full",
        value_parser = Choices::new(sweep_mode, || vec!["full", "quick"])
    )]
    #[serde(flatten, serialize_with = "sweep_fields")]
    pub(crate) sweep: Option<SweepMode>,
    /// Non-temporal stores: auto (when the working set exceeds the LLC), on, off [default: auto]
    #[arg(
        long,
        value_name = "MODE",
        default_value = "auto",
        hide_default_value = true,
        value_parser = Choices::new(nt, || vec!["auto", "on", "off"])
    )]
    pub(crate) nt: Nt,
    /// Count the write-allocate read of cached stores (STREAM does not)
    #[arg(long)]
    pub(crate) count_write_allocate: bool,
    /// Run the threads on the CPUs of NUMA node N (one per core first) [default: the whole machine's pinning order]
    #[arg(long = "cpu-node", value_name = "N", allow_hyphen_values = true, value_parser = cpu_node)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) cpu_node: Option<u32>,
    /// Place the memory on NUMA node N, or `interleave` it page by page over every node with memory [default: first touch, the node of the thread's CPU]
    #[arg(long = "mem-node", value_name = "N|interleave", allow_hyphen_values = true, value_parser = mem_node)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) mem_node: Option<MemNode>,
    /// The NUMA node x node matrix: for every CPU node and memory node, read bandwidth on the CPU node's cores and the chase latency on one of them (other --kernel lists allowed)
    #[arg(long)]
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub(crate) matrix: bool,
    /// The loaded-latency curve (Intel MLC's --loaded_latency): the chase on one CPU, alone and while --threads other CPUs (default: all the others) stream the --kernel (default read) with each injected delay of DELAYS (empty-loop iterations after every 512 B block), lightest load first [default DELAYS: 20000,5000,2000,1000,400,200,100,50,0]
    #[arg(
        long = "loaded-latency",
        value_name = "DELAYS",
        num_args = 0..=1,
        default_missing_value = DEFAULT_DELAYS,
        value_parser = delays
    )]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) loaded_latency: Option<List<u64>>,
}

/// `--loaded-latency` without a list: MLC's kind of sweep, from a light load to none.
pub(crate) const DEFAULT_DELAYS: &str = "20000,5000,2000,1000,400,200,100,50,0";

/// Largest injected delay: about a millisecond per block on any current core, far
/// past the point where the loaders stop loading.
pub(crate) const MAX_DELAY: u64 = 10_000_000;

/// `--loaded-latency DELAYS`: whole numbers up to [`MAX_DELAY`], run from the largest
/// (the lightest load) down.
fn delays(text: &str) -> Result<List<u64>, ParseError> {
    let mut v = parse_list(text, |s| match s.parse::<u64>() {
        Ok(d) if d <= MAX_DELAY => Ok(d),
        _ => Err(ParseError(format!(
            "'{s}' is not a delay; use whole numbers from 0 to {MAX_DELAY}, e.g. 1000,100,0"
        ))),
    })
    .map(dedup)?;
    v.sort_unstable_by(|a, b| b.cmp(a));
    Ok(v)
}

/// `--mem-node`: one node, or every node with memory page by page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum MemNode {
    /// `--mem-node N`.
    Node(u32),
    /// `--mem-node interleave`.
    Interleave,
}

impl Serialize for MemNode {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            MemNode::Node(n) => s.serialize_u32(*n),
            MemNode::Interleave => s.serialize_str("interleave"),
        }
    }
}

/// `--cpu-node N`: a node number (checked against the machine's nodes in `plan`).
fn cpu_node(text: &str) -> Result<u32, ParseError> {
    text.trim().parse().map_err(|_| {
        ParseError(format!(
            "'{text}' is not a node number; use a NUMA node of this machine, e.g. 0 (peakbench sysinfo lists them)"
        ))
    })
}

/// `--mem-node N|interleave`.
fn mem_node(text: &str) -> Result<MemNode, ParseError> {
    let t = text.trim().to_ascii_lowercase();
    if t == "interleave" {
        return Ok(MemNode::Interleave);
    }
    t.parse().map(MemNode::Node).map_err(|_| {
        ParseError(format!(
            "'{text}' is neither a node number nor interleave; use e.g. 0 or interleave"
        ))
    })
}

impl Default for MemoryOptions {
    fn default() -> Self {
        MemoryOptions {
            kernels: None,
            patterns: vec![Pattern::Seq],
            blocks: None,
            size: None,
            threads: None,
            sweep: None,
            nt: Nt::Auto,
            count_write_allocate: false,
            cpu_node: None,
            mem_node: None,
            matrix: false,
            loaded_latency: None,
        }
    }
}

fn kind_names() -> Vec<&'static str> {
    Kind::all().iter().map(|k| k.name()).collect()
}

fn pattern_names() -> Vec<&'static str> {
    [Pattern::Seq, Pattern::Rand].map(Pattern::name).to_vec()
}

/// `--kernel`: kernels of the kernel table, and the chase.
fn kernels(text: &str) -> Result<List<Kind>, ParseError> {
    let names = kind_names();
    parse_list(text, |s| {
        let s = s.to_ascii_lowercase();
        Kind::all()
            .into_iter()
            .find(|k| k.name() == s)
            .ok_or_else(|| {
                ParseError(format!(
                    "unknown kernel '{s}'; accepted: {}",
                    names.join(",")
                ))
            })
    })
    .map(dedup)
}

/// `--pattern`: seq, rand (or sequential, random).
fn patterns(text: &str) -> Result<List<Pattern>, ParseError> {
    parse_list(text, |s| match s.to_ascii_lowercase().as_str() {
        "seq" | "sequential" => Ok(Pattern::Seq),
        "rand" | "random" => Ok(Pattern::Rand),
        _ => Err(ParseError(format!(
            "unknown pattern '{s}'; accepted: {}",
            pattern_names().join(",")
        ))),
    })
    .map(dedup)
}

/// `--block`: sizes up to [`MAX_SIZE`].
fn blocks(text: &str) -> Result<List<u64>, ParseError> {
    parse_list(text, |s| {
        let b = parse_size(s)?;
        if b > MAX_SIZE {
            return Err(ParseError(format!(
                "'{s}' is above the limit of {}; use e.g. 8KiB or 1MiB",
                crate::util::units::format_size(MAX_SIZE)
            )));
        }
        Ok(b)
    })
    .map(dedup)
}

/// `--size`: from 4 KiB to [`MAX_SIZE`].
fn size(text: &str) -> Result<u64, ParseError> {
    let s = parse_size(text)?;
    if s < 4096 {
        return Err(ParseError(format!(
            "{s} B is too small; use at least 4KiB (e.g. 256MiB for DRAM)"
        )));
    }
    if s > MAX_SIZE {
        return Err(ParseError(format!(
            "{} is above the limit of {}; use e.g. 256MiB",
            crate::util::units::format_size(s),
            crate::util::units::format_size(MAX_SIZE)
        )));
    }
    Ok(s)
}

/// `--sweep MODE`: full or quick.
fn sweep_mode(text: &str) -> Result<SweepMode, ParseError> {
    match text.trim().to_ascii_lowercase().as_str() {
        "full" => Ok(SweepMode::Full),
        "quick" => Ok(SweepMode::Quick),
        m => Err(ParseError(format!(
            "unknown mode '{m}'; accepted: full (every power of two from 4 KiB to 4x LLC), quick (one working set per cache level)"
        ))),
    }
}

/// `--nt`: auto, on, off.
fn nt(text: &str) -> Result<Nt, ParseError> {
    match text.trim().to_ascii_lowercase().as_str() {
        "auto" => Ok(Nt::Auto),
        "on" => Ok(Nt::On),
        "off" => Ok(Nt::Off),
        s => Err(ParseError(format!(
            "unknown value '{s}'; accepted: auto,on,off"
        ))),
    }
}

/// The checks that span flags: `--size` with `--sweep` or a larger `--block`.
pub(crate) fn parse(a: &MemoryOptions) -> Result<MemoryOptions, UsageError> {
    // `--size` with `--sweep` is refused by clap (`conflicts_with`).
    if let Some(s) = a.size {
        if let Some(big) = a.blocks.as_ref().and_then(|b| b.iter().find(|&&b| b > s)) {
            return Err(UsageError::new(
                "--block",
                format!(
                    "{} is larger than the working set --size {}; use a block no larger than the size",
                    crate::util::units::format_size(*big),
                    crate::util::units::format_size(s)
                ),
            ));
        }
    }
    if a.matrix {
        for (given, flag) in [
            (a.cpu_node.is_some(), "--cpu-node"),
            (a.mem_node.is_some(), "--mem-node"),
        ] {
            if given {
                return Err(UsageError::new(
                    flag,
                    "cannot be combined with --matrix (the matrix runs every CPU node with every memory node); drop one of them",
                ));
            }
        }
    }
    if a.loaded_latency.is_some() {
        loaded_latency_conflicts(a)?;
    }
    Ok(a.clone())
}

/// `--sweep [MODE]` in the results' config, as it was written before the mode was one
/// field: `sweep` (any sweep) and `sweep_quick` (one working set per cache level).
fn sweep_fields<S: Serializer>(m: &Option<SweepMode>, s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    let mut map = s.serialize_map(Some(2))?;
    map.serialize_entry("sweep", &m.is_some())?;
    map.serialize_entry("sweep_quick", &(*m == Some(SweepMode::Quick)))?;
    map.end()
}

/// What `--loaded-latency` cannot be combined with: it runs one chase and one
/// streaming kernel on sequential blocks of its own size.
fn loaded_latency_conflicts(a: &MemoryOptions) -> Result<(), UsageError> {
    let why = "the loaded-latency curve runs the chase beside one streaming kernel";
    for (given, flag, what) in [
        (
            a.matrix,
            "--matrix",
            "its chase and loaders are placed by --cpu-node/--mem-node",
        ),
        (
            a.sweep.is_some(),
            "--sweep",
            "it runs one working set (use --size)",
        ),
        (
            a.blocks.is_some(),
            "--block",
            "its loaders stream blocks of 512 B",
        ),
        (
            a.patterns.iter().any(|&p| p != Pattern::Seq),
            "--pattern",
            "its loaders stream sequentially",
        ),
    ] {
        if given {
            return Err(UsageError::new(
                flag,
                format!("cannot be combined with --loaded-latency: {what}; drop one of them"),
            ));
        }
    }
    match a.kernels.as_deref() {
        None | Some([Kind::Bw(_)]) => Ok(()),
        Some(_) => Err(UsageError::new(
            "--kernel",
            format!("with --loaded-latency names the one kernel the loaders stream ({why}), e.g. --kernel read; accepted: read,write,copy,scale,add,triad"),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::flags::try_args;

    fn args(argv: &[&str]) -> Result<MemoryOptions, UsageError> {
        parse(&try_args::<MemoryOptions>(argv)?)
    }

    #[test]
    fn defaults() {
        let o = args(&[]).unwrap();
        assert_eq!(o.kernels, None);
        assert_eq!(o.patterns, vec![Pattern::Seq]);
        assert_eq!(o.nt, Nt::Auto);
        assert!(!o.count_write_allocate && o.sweep.is_none());
    }

    #[test]
    fn lists_parse() {
        let line = "--kernel copy,triad,chase,copy --pattern seq,rand \
                    --block 8B,1KiB,8KiB,1MiB,8MiB,80MiB --size 1GiB --threads 1,2 --nt on";
        let o = args(&line.split_whitespace().collect::<Vec<_>>()).unwrap();
        assert_eq!(
            o.kernels,
            Some(vec![Kind::Bw(Op::Copy), Kind::Bw(Op::Triad), Kind::Chase])
        );
        assert_eq!(o.patterns, vec![Pattern::Seq, Pattern::Rand]);
        assert_eq!(
            o.blocks,
            Some(vec![8, 1024, 8192, 1 << 20, 8 << 20, 80 << 20])
        );
        assert_eq!(o.size, Some(1 << 30));
        assert_eq!(o.nt, Nt::On);
        let o = args(&["--cpu-node", "1", "--mem-node", "Interleave"]).unwrap();
        assert_eq!(
            (o.cpu_node, o.mem_node),
            (Some(1), Some(MemNode::Interleave))
        );
        assert_eq!(
            args(&["--mem-node", "3"]).unwrap().mem_node,
            Some(MemNode::Node(3))
        );
        assert!(args(&["--matrix"]).unwrap().matrix);
        // The delays run from the lightest load down, each once.
        let o = args(&["--loaded-latency", "0,100,10,100", "--kernel", "copy"]).unwrap();
        assert_eq!(o.loaded_latency, Some(vec![100, 10, 0]));
        let o = args(&["--loaded-latency", "--size", "1MiB"]).unwrap();
        let d = o.loaded_latency.unwrap();
        assert!(
            d.windows(2).all(|w| w[0] > w[1]) && d.last() == Some(&0),
            "{d:?}"
        );
    }

    #[test]
    fn errors_name_the_flag() {
        let e = args(&["--kernel", "memcpy"]).unwrap_err().0;
        assert!(e.starts_with("--kernel: unknown kernel 'memcpy'"), "{e}");
        assert!(e.contains("read,write,copy,scale,add,triad,chase"), "{e}");
        let e = args(&["--pattern", "zigzag"]).unwrap_err().0;
        assert!(e.starts_with("--pattern:"), "{e}");
        // Byte blocks (1 B accesses, decimal sizes) are taken as they are.
        let o = args(&["--block", "1B,12B,1KB,1MB"]).unwrap();
        assert_eq!(o.blocks, Some(vec![1, 12, 1000, 1_000_000]));
        let e = args(&["--block", "0B"]).unwrap_err().0;
        assert!(e.starts_with("--block:"), "{e}");
        let e = args(&["--block", "big"]).unwrap_err().0;
        assert!(e.starts_with("--block:"), "{e}");
        let e = args(&["--size", "1KiB"]).unwrap_err().0;
        assert!(e.starts_with("--size:"), "{e}");
        let e = args(&["--size", "1MiB", "--block", "8MiB"]).unwrap_err().0;
        assert!(e.starts_with("--block: 8 MiB is larger than"), "{e}");
        let e = args(&["--nt", "maybe"]).unwrap_err().0;
        assert!(e.starts_with("--nt:") && e.contains("auto,on,off"), "{e}");
        let e = args(&["--threads", "0"]).unwrap_err().0;
        assert!(e.starts_with("--threads:"), "{e}");
        let e = args(&["--sweep", "fast"]).unwrap_err().0;
        assert!(e.starts_with("--sweep: unknown mode 'fast'"), "{e}");
        let o = args(&["--sweep", "Quick"]).unwrap();
        assert_eq!(o.sweep, Some(SweepMode::Quick));
        // The config keeps its two keys, in their place.
        let v = serde_json::to_string(&o).unwrap();
        assert!(
            v.contains(r#""threads":null,"sweep":true,"sweep_quick":true,"nt":"#),
            "{v}"
        );
    }

    /// Every flag's bad value is the one line it gave before the flags were typed.
    #[test]
    fn bad_values_give_their_line() {
        for (argv, line) in [
            (&["--kernel", "Memcpy"][..], "--kernel: unknown kernel 'memcpy'; accepted: read,write,copy,scale,add,triad,chase"),
            (&["--pattern", "zigzag"], "--pattern: unknown pattern 'zigzag'; accepted: seq,rand"),
            (&["--block", "1PiB"], "--block: '1PiB' is not a size; use a number with B, KiB, MiB, GiB, TiB (or KB, MB, GB), e.g. 8KiB"),
            (&["--block", "512TiB"], "--block: '512TiB' is above the limit of 256 TiB; use e.g. 8KiB or 1MiB"),
            (&["--size", "1KiB"], "--size: 1024 B is too small; use at least 4KiB (e.g. 256MiB for DRAM)"),
            (&["--size", "512TiB"], "--size: 512 TiB is above the limit of 256 TiB; use e.g. 256MiB"),
            (&["--sweep", " Fast"], "--sweep: unknown mode 'fast'; accepted: full (every power of two from 4 KiB to 4x LLC), quick (one working set per cache level)"),
            (&["--nt", "Maybe"], "--nt: unknown value 'maybe'; accepted: auto,on,off"),
            (&["--threads", "1,,2"], "--threads: '1,,2' has an empty element; use a comma-separated list like 1,2,4"),
            (&["--cpu-node", "one"], "--cpu-node: 'one' is not a node number; use a NUMA node of this machine, e.g. 0 (peakbench sysinfo lists them)"),
            (&["--mem-node", "-1"], "--mem-node: '-1' is neither a node number nor interleave; use e.g. 0 or interleave"),
            (&["--matrix", "--mem-node", "0"], "--mem-node: cannot be combined with --matrix (the matrix runs every CPU node with every memory node); drop one of them"),
            (&["--loaded-latency", "10,x"], "--loaded-latency: 'x' is not a delay; use whole numbers from 0 to 10000000, e.g. 1000,100,0"),
            (&["--loaded-latency", "--matrix"], "--matrix: cannot be combined with --loaded-latency: its chase and loaders are placed by --cpu-node/--mem-node; drop one of them"),
            (&["--loaded-latency", "--kernel", "read,chase"], "--kernel: with --loaded-latency names the one kernel the loaders stream (the loaded-latency curve runs the chase beside one streaming kernel), e.g. --kernel read; accepted: read,write,copy,scale,add,triad"),
            (&["--loaded-latency", "--pattern", "rand"], "--pattern: cannot be combined with --loaded-latency: its loaders stream sequentially; drop one of them"),
        ] {
            assert_eq!(args(argv).unwrap_err().0, line, "{argv:?}");
        }
    }
}
