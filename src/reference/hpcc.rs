//! hpcc (Debian `hpcc`, HPC Challenge 1.5): HPL and DGEMM beside `peakbench linalg`'s
//! fp64 LU and GEMM cases, at the same order and thread count, and STREAM beside
//! `peakbench memory`'s DRAM copy/scale/add/triad rows, at the same threads and bytes.
//!
//! One hpcc run measures every HPC Challenge test (HPL, DGEMM, STREAM, PTRANS,
//! RandomAccess, FFT) and takes tens of seconds, so it runs once per (N, threads) and
//! is kept in the run's memo ([`Tool::shared`]). How it is run:
//!
//! - `hpccinf.txt` (HPL's `HPL.dat` plus PTRANS lines) is written to a fresh temporary
//!   directory with `N`, `NB` = [`NB`] and a process grid P×Q = threads (P ≤ Q, as
//!   square as the count allows); hpcc reads it from, and writes `hpccoutf.txt` to,
//!   its working directory;
//! - `mpirun --allow-run-as-root --bind-to none --oversubscribe -np T hpcc`: one MPI
//!   rank per thread, each with a single-threaded BLAS (`OPENBLAS_NUM_THREADS=1`,
//!   `OMP_NUM_THREADS=1`), not bound by MPI (`--bind-to none`: Open MPI's default
//!   binding can put both ranks on one core of a small VM);
//! - `OPENBLAS_CORETYPE` is set from the CPU's features when the environment does not
//!   set it (`SkylakeX` with AVX-512, `Haswell`/`Zen` with AVX2+FMA): Debian's OpenBLAS
//!   does not know every new or masked CPU model and then falls back to SSE kernels.
//!
//! Matching (the summary section's `KEY=value` lines):
//!
//! | peakbench case | hpcc input | hpcc figure |
//! | --- | --- | --- |
//! | `linalg lu fp64 n=N threads=T` | HPL `N` | `HPL_Tflops` × 10¹² (HPL counts 2/3 N³ + 2 N², as peakbench) |
//! | `linalg gemm fp64 n=n threads=T` | HPL `N` = n·√(3T), so hpcc's own DGEMM order (`DGEMM_N` = √(N²/(3T))) ≈ n | T = 1: `SingleDGEMM_Gflops`; T > 1 with `--weak`: `StarDGEMM_Gflops` × T (every rank runs its own DGEMM at once, as every `--weak` thread does; hpcc prints the mean per rank); T > 1 strong: none (hpcc has no threaded DGEMM), a note says so |
//! | `memory copy/scale/add/triad seq size=S threads=T` at DRAM, whole arrays | HPL `N` = ⌈√(3·T·E)⌉ with E = bytes per thread / 24, so hpcc's `STREAM_VectorSize` (N²/(3T)) ≥ E: STREAM's 3 arrays per rank hold the case's bytes per thread | T = 1: `SingleSTREAM_<Kernel>`; T > 1: `StarSTREAM_<Kernel>` × T (each rank streams its own arrays at once; hpcc prints the mean per rank); GB/s of 10⁹ B, best of 10 passes, copy counted as 2 × 8 B per element like peakbench |
//!
//! STREAM cannot be run alone or sized apart from HPL (hpcc runs every test and derives
//! every size from the largest HPL order), so the STREAM figure of a DRAM working set
//! costs an HPL run at N ≈ √(working set / 8 B): seconds with OpenBLAS, many minutes
//! with the netlib reference BLAS. One run serves every kernel of a (threads, size)
//! and any linalg row of the same N and threads. Memory rows STREAM does not run alike
//! (random pattern, blocks, caches, write-allocate bytes) get a one-line reason.
//!
//! hpcc's figures are only as good as the BLAS it links: the note says which BLAS and
//! LAPACK files `ldd hpcc` resolves (Debian's alternatives pick `libblas.so.3`; the
//! netlib reference BLAS is 10–50× slower than OpenBLAS; install
//! `libopenblas0-pthread`), and whether that is the library of the row beside it
//! (`linalg --blas`: the same file, or a file in the same directory, is the same build).

use super::{capture_in, which, Context, Found, Row, SharedFound, Tool, VersionFrom};
use crate::report::model::{BenchResult, Reference, ResourceName, Unit};
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

/// The hpcc adapter.
pub(crate) struct Hpcc;

/// HPL's block size: 192 suits OpenBLAS's AVX2/AVX-512 DGEMM kernels.
pub(crate) const NB: usize = 192;

/// Longest one hpcc run may take (every HPC Challenge test, at the case's N).
const RUN_TIMEOUT: Duration = Duration::from_secs(900);

/// What hpcc measured, from its summary section.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Figures {
    /// `HPL_Tflops`, in FLOP/s.
    pub(crate) hpl: f64,
    /// `HPL_N`.
    pub(crate) hpl_n: u64,
    /// `DGEMM_N`: the order of hpcc's DGEMM.
    pub(crate) dgemm_n: u64,
    /// `StarDGEMM_Gflops`, in FLOP/s: the mean per rank, all ranks at once.
    pub(crate) star_dgemm: f64,
    /// `SingleDGEMM_Gflops`, in FLOP/s: one rank alone.
    pub(crate) single_dgemm: f64,
    /// `CommWorldProcs`: the MPI ranks.
    pub(crate) procs: u64,
    /// STREAM's figures.
    pub(crate) stream: Stream,
}

/// hpcc's STREAM figures (its summary's `STREAM_*`, `StarSTREAM_*`, `SingleSTREAM_*`),
/// in B/s (hpcc prints GB/s of 10⁹ B), in the order copy, scale, add, triad.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Stream {
    /// `STREAM_VectorSize`: elements per array per rank (3 arrays of f64).
    pub(crate) vector_size: u64,
    /// `StarSTREAM_*`: every rank at once, the mean over ranks of each rank's rate.
    pub(crate) star: [f64; 4],
    /// `SingleSTREAM_*`: one rank alone.
    pub(crate) single: [f64; 4],
}

/// STREAM's kernels, in the order of [`Stream::star`], by their `memory --kernel` names.
pub(crate) const STREAM_KERNELS: [(&str, &str); 4] = [
    ("copy", "Copy"),
    ("scale", "Scale"),
    ("add", "Add"),
    ("triad", "Triad"),
];

/// The `KEY=value` lines of the last summary section of `hpccoutf.txt` (hpcc appends
/// to an existing file, so the last section is the latest run).
pub(crate) fn summary(text: &str) -> Option<BTreeMap<String, String>> {
    let start = text.rfind("Begin of Summary section.")?;
    let body = &text[start..];
    let body = &body[..body.find("End of Summary section.")?];
    Some(
        body.lines()
            .filter_map(|l| l.split_once('='))
            .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
            .collect(),
    )
}

/// Reads the HPL and DGEMM figures from `hpccoutf.txt`.
pub(crate) fn parse(text: &str) -> Result<Figures, String> {
    let s = summary(text).ok_or("no complete summary section in hpccoutf.txt")?;
    let num = |k: &str| -> Result<f64, String> {
        s.get(k)
            .ok_or_else(|| format!("no {k} in hpcc's summary"))?
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite())
            .ok_or_else(|| format!("{k} in hpcc's summary is not a number"))
    };
    let stream_figures = |prefix: &str| -> Result<[f64; 4], String> {
        let mut v = [0.0; 4];
        for (x, (_, name)) in v.iter_mut().zip(STREAM_KERNELS) {
            *x = num(&format!("{prefix}_{name}"))? * 1e9;
        }
        Ok(v)
    };
    if s.get("Success").map(String::as_str) == Some("0") {
        return Err("hpcc reports Success=0 (a test failed its check)".into());
    }
    Ok(Figures {
        hpl: num("HPL_Tflops")? * 1e12,
        hpl_n: num("HPL_N")? as u64,
        dgemm_n: num("DGEMM_N")? as u64,
        star_dgemm: num("StarDGEMM_Gflops")? * 1e9,
        single_dgemm: num("SingleDGEMM_Gflops")? * 1e9,
        procs: num("CommWorldProcs")? as u64,
        stream: Stream {
            vector_size: num("STREAM_VectorSize")? as u64,
            star: stream_figures("StarSTREAM")?,
            single: stream_figures("SingleSTREAM")?,
        },
    })
}

/// The process grid for `t` ranks: P×Q = t with P ≤ Q and P as large as possible.
pub(crate) fn grid(t: usize) -> (usize, usize) {
    let t = t.max(1);
    let p = (1..=t)
        .filter(|p| t.is_multiple_of(*p) && p * p <= t)
        .max()
        .unwrap_or(1);
    (p, t / p)
}

/// HPL's order for a GEMM case of order `n` on `t` ranks: hpcc sizes its DGEMM as
/// √(N² / (3t)), so N = n·√(3t) gives a DGEMM of order ≈ n.
pub(crate) fn hpl_n_for_gemm(n: u64, t: usize) -> u64 {
    (n as f64 * (3.0 * t.max(1) as f64).sqrt()).round() as u64
}

/// HPL's order that makes hpcc's STREAM arrays at least `e` elements per rank on `t`
/// ranks: hpcc sizes STREAM from HPL's largest matrix, `STREAM_VectorSize` =
/// N²·8 B / (P·Q) / 3 arrays / 8 B = N² / (3t), so N = ⌈√(3·t·e)⌉. There is no other
/// way to size it: hpcc reads only `hpccinf.txt` (its `hpccmemf.txt` sizes N when that
/// file is absent) and runs every test, so a STREAM at a DRAM working set costs an HPL
/// at N ≈ √(working set / 8 B).
pub(crate) fn hpl_n_for_stream(e: u64, t: usize) -> u64 {
    let t = t.max(1) as u64;
    let mut n = ((3 * t * e) as f64).sqrt().ceil() as u64;
    while n * n / (3 * t) < e {
        n += 1;
    }
    n
}

/// `hpccinf.txt` for one HPL order, block size and grid (the rest as hpcc's sample).
pub(crate) fn input_file(n: u64, nb: usize, p: usize, q: usize) -> String {
    format!(
        "HPLinpack benchmark input file
Innovative Computing Laboratory, University of Tennessee
HPL.out      output file name (if any)
8            device out (6=stdout,7=stderr,file)
1            # of problems sizes (N)
{n}         Ns
1            # of NBs
{nb}          NBs
0            PMAP process mapping (0=Row-,1=Column-major)
1            # of process grids (P x Q)
{p}            Ps
{q}            Qs
16.0         threshold
1            # of panel fact
2            PFACTs (0=left, 1=Crout, 2=Right)
1            # of recursive stopping criterium
4            NBMINs (>= 1)
1            # of panels in recursion
2            NDIVs
1            # of recursive panel fact.
1            RFACTs (0=left, 1=Crout, 2=Right)
1            # of broadcast
1            BCASTs (0=1rg,1=1rM,2=2rg,3=2rM,4=Lng,5=LnM)
1            # of lookahead depth
1            DEPTHs (>=0)
2            SWAP (0=bin-exch,1=long,2=mix)
64           swapping threshold
0            L1 in (0=transposed,1=no-transposed) form
0            U  in (0=transposed,1=no-transposed) form
1            Equilibration (0=no,1=yes)
8            memory alignment in double (> 0)
##### This line (no. 32) is ignored (it serves as a separator). ######
0                               Number of additional problem sizes for PTRANS
1200 10000 30000                values of N
0                               number of additional blocking sizes for PTRANS
40 9 8 13 13 20 16 32 64        values of NB
"
    )
}

pub(crate) use crate::hw::cpu::openblas_coretype as coretype;

/// One hpcc run at HPL order `n` on `t` ranks: its figures, the command as run, and
/// the BLAS it used.
#[derive(Debug, Clone)]
struct Run {
    figures: Figures,
    command: String,
    blas: String,
    /// The files hpcc's BLAS/LAPACK resolve to (canonical).
    blas_files: Vec<std::path::PathBuf>,
}

/// Runs hpcc once in a fresh temporary directory (removed afterwards).
fn run(n: u64, t: usize, ctx: &Context) -> Result<Run, String> {
    let mpirun = which("mpirun").ok_or("mpirun not found (apt-get install openmpi-bin)")?;
    let (p, q) = grid(t);
    let dir = std::env::temp_dir().join(format!("peakbench-hpcc-{}-{n}-{t}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let result = (|| {
        std::fs::write(dir.join("hpccinf.txt"), input_file(n, NB, p, q))
            .map_err(|e| format!("cannot write hpccinf.txt: {e}"))?;
        let mut env = vec![
            ("OPENBLAS_NUM_THREADS".to_string(), "1".to_string()),
            ("OMP_NUM_THREADS".to_string(), "1".to_string()),
        ];
        if std::env::var_os("OPENBLAS_CORETYPE").is_none() {
            if let Some(c) = coretype(&ctx.host.cpu.features, &ctx.host.cpu.vendor) {
                env.push(("OPENBLAS_CORETYPE".into(), c.into()));
            }
        }
        let argv: Vec<String> = [
            mpirun.to_string_lossy().as_ref(),
            "--allow-run-as-root",
            "--bind-to",
            "none",
            "--oversubscribe",
            "-np",
            &t.to_string(),
            "hpcc",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        capture_in(&argv, Some(&dir), &env, RUN_TIMEOUT)?;
        let text = std::fs::read_to_string(dir.join("hpccoutf.txt"))
            .map_err(|e| format!("hpcc wrote no hpccoutf.txt: {e}"))?;
        let figures = parse(&text)?;
        let envs: Vec<String> = env.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let (blas, blas_files) = blas_in_use();
        Ok(Run {
            figures,
            command: format!(
                "{} {} (hpccinf.txt: N={n} NB={NB} P={p} Q={q})",
                envs.join(" "),
                argv[1..]
                    .iter()
                    .fold("mpirun".to_string(), |a, s| a + " " + s)
            ),
            blas,
            blas_files,
        })
    })();
    let _ = std::fs::remove_dir_all(&dir);
    result
}

/// Which BLAS/LAPACK files hpcc is linked to: `ldd hpcc`'s lines for them, each
/// resolved through its links (Debian's alternatives); without `ldd`, the
/// `libblas.so.3` the system resolves. The text for the note, and the files.
fn blas_in_use() -> (String, Vec<std::path::PathBuf>) {
    let ldd = which("hpcc").and_then(|h| {
        let argv = vec!["ldd".to_string(), h.to_string_lossy().into_owned()];
        crate::util::process::capture(&argv, Duration::from_secs(10)).ok()
    });
    let linked = ldd.map(|(out, _)| linked_blas(&out)).unwrap_or_default();
    if linked.is_empty() {
        let link = Path::new("/usr/lib/x86_64-linux-gnu/libblas.so.3");
        return match std::fs::canonicalize(link) {
            Ok(p) => (format!("libblas.so.3 → {}", p.display()), vec![p]),
            Err(_) => ("unknown".into(), Vec::new()),
        };
    }
    let text: Vec<String> = linked
        .iter()
        .map(|(n, p)| format!("{n} → {}", p.display()))
        .collect();
    (
        format!("{}, from ldd hpcc", text.join(", ")),
        linked.into_iter().map(|x| x.1).collect(),
    )
}

/// The BLAS/LAPACK lines of `ldd`'s output: soname and the file it resolves to
/// (canonical where it exists).
pub(crate) fn linked_blas(ldd: &str) -> Vec<(String, std::path::PathBuf)> {
    const NAMES: [&str; 8] = [
        "libblas",
        "liblapack",
        "libopenblas",
        "libblis",
        "libmkl",
        "libflexiblas",
        "libatlas",
        "libtatlas",
    ];
    ldd.lines()
        .filter_map(|l| {
            let (name, rest) = l.trim().split_once(" => ")?;
            let file = rest.split(" (").next()?.trim();
            if !NAMES.iter().any(|n| name.starts_with(n)) || !file.starts_with('/') {
                return None;
            }
            let p = std::path::PathBuf::from(file);
            Some((name.to_string(), std::fs::canonicalize(&p).unwrap_or(p)))
        })
        .collect()
}

/// The file of the library a linalg row ran on: its `library: … from FILE` note
/// (`None` for faer's rows, which load nothing).
fn row_library(r: &BenchResult) -> Option<std::path::PathBuf> {
    r.notes
        .iter()
        .filter_map(|n| n.text.strip_prefix("library: "))
        .find_map(|t| {
            t.rsplit_once(" from ")
                .map(|x| std::path::PathBuf::from(x.1))
        })
}

/// Whether hpcc's libraries include the row's: the same file, or a file in the same
/// directory (Debian ships one build's libblas.so.3 and libopenblas.so.0 side by side).
fn same_library(hpcc: &[std::path::PathBuf], row: &Path) -> bool {
    hpcc.iter()
        .any(|h| h == row || (h.parent().is_some() && h.parent() == row.parent()))
}

/// hpcc: who it is, what it checks, how its version is read (its line in [`super::TOOLS`]).
pub(crate) static ROW: Row = Row {
    name: "hpcc",
    binary: "hpcc",
    package: "hpcc",
    covers: "linalg fp64 LU (HPL) and GEMM (DGEMM) at the same N and threads; memory copy/scale/add/triad at DRAM sizes (STREAM, same threads and bytes per thread); mpirun, seconds to minutes per run",
    version: VersionFrom::Package,
    tool: &Hpcc,
};

impl Tool for Hpcc {
    fn shared(&self, r: &BenchResult, ctx: &Context, version: &str) -> SharedFound {
        if r.resource == ResourceName::Memory {
            let m = match stream_match(r)? {
                Ok(m) => m,
                Err(why) => {
                    return Some(Ok(Found {
                        reference: None,
                        notes: vec![format!("no STREAM figure: {why}")],
                    }))
                }
            };
            let key = format!("hpcc:{}:{}", m.hpl_n, m.threads);
            let got: Result<Run, String> = ctx
                .memo
                .get_or_insert_with(&key, || run(m.hpl_n, m.threads, ctx));
            return Some(got.and_then(|run| stream_found(&m, version, &run)));
        }
        if r.resource != ResourceName::Linalg || r.param_str("precision") != Some("fp64") {
            return None;
        }
        let routine = r.param_str("routine")?;
        let n = r.param_u64("n")?;
        let t = r.param_u64("threads")?.max(1) as usize;
        let weak = r.param_str("scaling") == Some("weak");
        let hpl_n = match routine {
            "lu" => n,
            // hpcc's only many-rank DGEMM is StarDGEMM, every rank its own product at
            // once: the shape of `--weak`. A strong (shared) GEMM on several threads
            // has no hpcc counterpart, so none is run for it.
            "gemm" if t > 1 && !weak => {
                return Some(Ok(Found {
                    reference: None,
                    notes: vec![format!(
                        "no figure: hpcc has no threaded DGEMM; its StarDGEMM (each of {t} ranks its own DGEMM at once) matches `linalg --routine gemm --weak`"
                    )],
                }))
            }
            "gemm" => hpl_n_for_gemm(n, t),
            _ => return None,
        };
        let key = format!("hpcc:{hpl_n}:{t}");
        let got: Result<Run, String> = ctx.memo.get_or_insert_with(&key, || run(hpl_n, t, ctx));
        let row = row_library(r);
        let name = r.param_str("blas").unwrap_or("faer").to_string();
        Some(got.map(|run| {
            let mut f = found(routine, t, version, &run);
            let same = row.as_deref().is_some_and(|p| same_library(&run.blas_files, p));
            f.notes.push(if same {
                format!("hpcc's BLAS is this row's library ({name}): the two figures compare one library called two ways")
            } else {
                format!("hpcc's BLAS is not this row's library ({name})")
            });
            f
        }))
    }
}

/// How a memory row is matched by hpcc's STREAM.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct StreamMatch {
    /// Index into [`STREAM_KERNELS`].
    kernel: usize,
    /// Threads of the case = MPI ranks.
    threads: usize,
    /// Elements per array per thread of the case, and its arrays.
    case_elems: u64,
    arrays: u64,
    /// STREAM's elements per array per rank wanted: the case's bytes per thread / 24 B.
    stream_elems: u64,
    /// HPL's order that sizes STREAM so.
    hpl_n: u64,
}

/// Whether hpcc's STREAM runs the same work as memory row `r`: `None` when the row is
/// not one of STREAM's kernels in order at all, `Some(Err)` with the one-line reason
/// when it is but runs differently (blocks, a cache level, write-allocate bytes),
/// else how to run hpcc for it. STREAM's 3 arrays per rank hold as many bytes as the
/// case's arrays per thread, so one hpcc run serves every kernel of a (threads, size).
pub(crate) fn stream_match(r: &BenchResult) -> Option<Result<StreamMatch, String>> {
    use crate::report::model::Metric;
    if r.resource != ResourceName::Memory
        || r.metric != Metric::Throughput
        || r.unit != Unit::BytePerSec
    {
        return None;
    }
    let name = r.param_str("kernel")?;
    let kernel = STREAM_KERNELS.iter().position(|(k, _)| *k == name)?;
    let arrays: u64 = if kernel < 2 { 2 } else { 3 };
    // A random order is no STREAM case at all: the row's one line comes from
    // `reference::uncovered`, which names every tool that streams in order.
    if r.param_str("pattern").is_some_and(|p| p != "seq") {
        return None;
    }
    if let Some(level) = r
        .param_str("level")
        .filter(|l| !l.eq_ignore_ascii_case("dram"))
    {
        return Some(Err(format!(
            "hpcc is run for DRAM working sets only (this case is in {level}): it sizes STREAM from HPL's matrix, so every STREAM size costs an HPL run"
        )));
    }
    if r.param_str("bytes")
        .is_some_and(|b| b.contains("write-allocate"))
    {
        return Some(Err(
            "this case counts write-allocate reads (--count-write-allocate); STREAM counts only the streamed bytes".into(),
        ));
    }
    let threads = r.param_u64("threads")?.max(1) as usize;
    let size = r.param_u64("size")?;
    let block = r.param_u64("block")?;
    // The default block is each thread's whole array (strong scaling: the size shared
    // by the threads; weak: the size per thread).
    let whole = |per_thread: u64| per_thread / arrays / 8 * 8;
    if block != whole(size / threads as u64) && block != whole(size) {
        return Some(Err(format!(
            "STREAM streams whole arrays; this case moves blocks of {}",
            crate::util::units::format_size(block)
        )));
    }
    let case_elems = block / 8;
    let stream_elems = case_elems * arrays / 3;
    Some(Ok(StreamMatch {
        kernel,
        threads,
        case_elems,
        arrays,
        stream_elems,
        hpl_n: hpl_n_for_stream(stream_elems, threads),
    }))
}

/// The figure and notes for one memory row from one hpcc run: `SingleSTREAM_<k>` for
/// one thread, `StarSTREAM_<k>` × ranks for several (hpcc prints the mean per rank).
fn stream_found(m: &StreamMatch, version: &str, run: &Run) -> Result<Found, String> {
    let st = &run.figures.stream;
    if run.figures.procs != m.threads as u64 {
        return Err(format!(
            "hpcc ran on {} MPI ranks, not the case's {} threads",
            run.figures.procs, m.threads
        ));
    }
    let (kname, name) = STREAM_KERNELS[m.kernel];
    let (value, what) = if m.threads == 1 {
        (st.single[m.kernel], format!("SingleSTREAM_{name}"))
    } else {
        (
            st.star[m.kernel] * m.threads as f64,
            format!(
                "StarSTREAM_{name} × {} ranks (each rank its own arrays at once; hpcc prints the mean per rank)",
                m.threads
            ),
        )
    };
    let arrays_note = if m.arrays == 3 {
        "the same array length as this case".to_string()
    } else {
        format!(
            "the same bytes per thread as this case's {} arrays of {} elements",
            m.arrays, m.case_elems
        )
    };
    Ok(Found {
        reference: Some(Reference {
            tool: "hpcc".into(),
            version: version.into(),
            command: run.command.clone(),
            value,
            unit: Unit::BytePerSec,
        }),
        notes: vec![format!(
            "{what} at STREAM_VectorSize={} (3 arrays of f64 per rank; {} wanted: {arrays_note}); STREAM reports the best of 10 passes and counts {kname} as peakbench does ({} B per element), peakbench's figure is the mean of its samples; hpcc ran HPL at N={} to size STREAM (it sizes every test from HPL's matrix)",
            st.vector_size,
            m.stream_elems,
            if m.arrays == 3 { 24 } else { 16 },
            run.figures.hpl_n
        )],
    })
}

/// The figure and notes for one case from one hpcc run.
fn found(routine: &str, t: usize, version: &str, run: &Run) -> Found {
    let f = &run.figures;
    let (value, what) = if routine == "lu" {
        (f.hpl, format!("HPL_Tflops at N={}", f.hpl_n))
    } else if t == 1 {
        (
            f.single_dgemm,
            format!("SingleDGEMM_Gflops at DGEMM_N={}", f.dgemm_n),
        )
    } else {
        (
            f.star_dgemm * t as f64,
            format!(
                "StarDGEMM_Gflops × {t} ranks (each rank its own DGEMM at once) at DGEMM_N={}",
                f.dgemm_n
            ),
        )
    };
    Found {
        reference: Some(Reference {
            tool: "hpcc".into(),
            version: version.into(),
            command: run.command.clone(),
            value,
            unit: Unit::FlopPerSec,
        }),
        notes: vec![format!(
            "{what}, {} MPI rank{} with a single-threaded BLAS ({})",
            f.procs,
            if f.procs == 1 { "" } else { "s" },
            run.blas
        )],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIXTURE: &str = include_str!("../../tests/fixtures/tools/hpcc_1.5.0_hpccoutf.txt");

    #[test]
    fn parses_the_last_summary_of_a_recorded_output() {
        // The fixture holds two runs (hpcc appends): the reference BLAS, then OpenBLAS.
        let f = parse(FIXTURE).unwrap();
        assert_eq!(f.hpl_n, 2000);
        assert_eq!(f.dgemm_n, 815);
        assert_eq!(f.procs, 2);
        assert!((f.hpl - 0.00469717e12).abs() < 1.0, "{}", f.hpl);
        assert!((f.star_dgemm - 7.17793e9).abs() < 1.0);
        assert!((f.single_dgemm - 11.7265e9).abs() < 1.0);
        let first = &FIXTURE[..FIXTURE.rfind("Begin of Summary section.").unwrap()];
        assert!((parse(first).unwrap().hpl - 0.000937339e12).abs() < 1.0);
    }

    #[test]
    fn incomplete_or_failed_outputs_are_errors() {
        assert!(parse("").is_err());
        let cut = &FIXTURE[..FIXTURE.rfind("End of Summary section.").unwrap()];
        // The last section is cut: the one before it is not taken for it.
        assert!(parse(cut).is_err());
        let failed = FIXTURE.replace("Success=1", "Success=0");
        assert!(parse(&failed).unwrap_err().contains("Success=0"));
        let no_hpl = FIXTURE.replace("HPL_Tflops=", "HPL_Gone=");
        assert!(parse(&no_hpl).unwrap_err().contains("HPL_Tflops"));
    }

    #[test]
    fn grids_inputs_and_orders() {
        assert_eq!(grid(1), (1, 1));
        assert_eq!(grid(2), (1, 2));
        assert_eq!(grid(4), (2, 2));
        assert_eq!(grid(6), (2, 3));
        assert_eq!(grid(7), (1, 7));
        // hpcc's DGEMM order √(N²/(3t)): 2000 on 2 ranks gave DGEMM_N=815 (fixture).
        assert_eq!(hpl_n_for_gemm(815, 2), 1996);
        assert_eq!(hpl_n_for_gemm(1000, 1), 1732);
        let inf = input_file(4096, 192, 1, 2);
        let lines: Vec<&str> = inf.lines().collect();
        assert_eq!(lines[5].split_whitespace().next(), Some("4096"));
        assert_eq!(lines[7].split_whitespace().next(), Some("192"));
        assert_eq!(lines[10].split_whitespace().next(), Some("1"));
        assert_eq!(lines[11].split_whitespace().next(), Some("2"));
        assert!(lines[31].starts_with("#####"), "{}", lines[31]);
        assert_eq!(lines.len(), 36);
    }

    fn mem_row(kernel: &str, size: u64, threads: u64, block: u64) -> BenchResult {
        use crate::report::model::Metric;
        BenchResult::new(
            ResourceName::Memory,
            kernel,
            Metric::Throughput,
            Unit::BytePerSec,
        )
        .param("kernel", kernel)
        .param("pattern", "seq")
        .size("size", size)
        .param("threads", threads)
        .param("level", "DRAM")
        .param("bytes", "stream")
        .size("block", block)
    }

    /// Issue #32 item 8: STREAM's figures, read from the recorded output (N = 2000 on
    /// 2 ranks: STREAM_VectorSize = 2000² / 6).
    #[test]
    fn parses_stream_and_sizes_hpl_for_a_stream_array() {
        let st = parse(FIXTURE).unwrap().stream;
        assert_eq!(st.vector_size, 666_666);
        assert_eq!(st.vector_size, 2000 * 2000 / (3 * 2));
        assert!((st.star[0] - 12.4326e9).abs() < 1.0);
        assert!((st.star[3] - 15.4588e9).abs() < 1.0);
        assert!((st.single[1] - 31.5064e9).abs() < 1.0);
        assert!((st.single[2] - 37.5349e9).abs() < 1.0);
        let no_stream = FIXTURE.replace("StarSTREAM_Add=", "StarSTREAM_Gone=");
        assert!(parse(&no_stream).unwrap_err().contains("StarSTREAM_Add"));
        for (e, t) in [(666_666u64, 2usize), (1 << 20, 1), (5_592_405, 2), (1, 4)] {
            let n = hpl_n_for_stream(e, t);
            assert!(n * n / (3 * t as u64) >= e, "{e} {t}");
            assert!(
                (n - 1) * (n - 1) / (3 * t as u64) < e,
                "{e} {t}: {n} not the least"
            );
        }
        assert_eq!(hpl_n_for_stream(666_666, 2), 2000);
    }

    /// Issue #32 item 8: which memory rows STREAM matches, with what array size, and a
    /// reason for those it runs differently.
    #[test]
    fn memory_rows_match_stream_at_the_same_bytes_per_thread() {
        let gib = 1u64 << 30;
        // triad, 1 GiB shared by 2 threads: 3 arrays of 512 MiB / 24 B per thread.
        let e3 = gib / 2 / 3 / 8;
        let m = stream_match(&mem_row("triad", gib, 2, e3 * 8))
            .unwrap()
            .unwrap();
        assert_eq!((m.kernel, m.threads, m.stream_elems), (3, 2, e3));
        assert_eq!(m.hpl_n, hpl_n_for_stream(e3, 2));
        // copy at the same size: 2 arrays, the same bytes per thread, the same hpcc run.
        let e2 = gib / 2 / 2 / 8;
        let c = stream_match(&mem_row("copy", gib, 2, e2 * 8))
            .unwrap()
            .unwrap();
        assert_eq!((c.kernel, c.hpl_n), (0, m.hpl_n));
        // --weak: the size is per thread.
        let w = stream_match(&mem_row("add", gib, 2, gib / 3 / 8 * 8))
            .unwrap()
            .unwrap();
        assert_eq!(w.stream_elems, gib / 3 / 8);
        // Not STREAM's kind: nothing. STREAM's kind run differently: one line why.
        assert!(stream_match(&mem_row("read", gib, 2, e3 * 8)).is_none());
        let why = |r: BenchResult| stream_match(&r).unwrap().unwrap_err();
        assert!(why(mem_row("triad", gib, 2, 4096)).contains("blocks of 4 KiB"));
        assert!(stream_match(&mem_row("triad", gib, 2, e3 * 8).param("pattern", "rand")).is_none());
        assert!(why(mem_row("triad", gib, 2, e3 * 8).param("level", "L2")).contains("DRAM"));
        let wa = mem_row("copy", gib, 2, e2 * 8).param("bytes", "stream+write-allocate");
        assert!(why(wa).contains("write-allocate"));
    }

    #[test]
    fn stream_figures_are_single_for_one_thread_and_star_times_ranks_for_more() {
        let mut run = Run {
            figures: parse(FIXTURE).unwrap(),
            command: "mpirun …".into(),
            blas: String::new(),
            blas_files: Vec::new(),
        };
        let gib = 1u64 << 30;
        let m2 = stream_match(&mem_row("triad", gib, 2, gib / 2 / 3 / 8 * 8))
            .unwrap()
            .unwrap();
        let f = stream_found(&m2, "1.5.0", &run).unwrap();
        let x = f.reference.unwrap();
        assert!((x.value - 2.0 * 15.4588e9).abs() < 10.0);
        assert_eq!(x.unit, Unit::BytePerSec);
        assert!(
            f.notes[0].contains("StarSTREAM_Triad × 2 ranks"),
            "{:?}",
            f.notes
        );
        assert!(f.notes[0].contains("best of 10"), "{:?}", f.notes);
        assert!(f.notes[0].contains("mean"), "{:?}", f.notes);
        // One thread: SingleSTREAM, from a run on one rank; a run on other ranks is refused.
        let m1 = stream_match(&mem_row("copy", gib, 1, gib / 2 / 8 * 8))
            .unwrap()
            .unwrap();
        assert!(stream_found(&m1, "1.5.0", &run)
            .unwrap_err()
            .contains("2 MPI ranks"));
        run.figures.procs = 1;
        let f = stream_found(&m1, "1.5.0", &run).unwrap();
        assert!((f.reference.unwrap().value - 36.3603e9).abs() < 1.0);
        assert!(f.notes[0].contains("SingleSTREAM_Copy"), "{:?}", f.notes);
        assert!(f.notes[0].contains("16 B per element"), "{:?}", f.notes);
    }

    #[test]
    fn coretypes() {
        let f = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            coretype(&f(&["avx2", "fma", "avx512f"]), "GenuineIntel"),
            Some("SkylakeX")
        );
        assert_eq!(coretype(&f(&["avx2", "fma"]), "AuthenticAMD"), Some("Zen"));
        assert_eq!(
            coretype(&f(&["avx2", "fma"]), "GenuineIntel"),
            Some("Haswell")
        );
        assert_eq!(coretype(&f(&["sse2"]), "GenuineIntel"), None);
    }

    #[test]
    fn gemm_cases_scale_the_star_figure_and_name_the_convention() {
        let run = Run {
            figures: parse(FIXTURE).unwrap(),
            command: "mpirun …".into(),
            blas: "/usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3".into(),
            blas_files: Vec::new(),
        };
        let g2 = found("gemm", 2, "1.5.0", &run);
        let x = g2.reference.unwrap();
        assert!((x.value - 2.0 * 7.17793e9).abs() < 10.0);
        assert!(
            g2.notes[0].contains("StarDGEMM_Gflops × 2"),
            "{:?}",
            g2.notes
        );
        assert!(g2.notes[0].contains("openblas"));
        let g1 = found("gemm", 1, "1.5.0", &run);
        assert!((g1.reference.unwrap().value - 11.7265e9).abs() < 1.0);
        let lu = found("lu", 2, "1.5.0", &run);
        assert!(lu.notes[0].starts_with("HPL_Tflops at N=2000"));
    }

    #[test]
    fn ldd_lines_name_the_linked_blas_and_rows_are_matched_by_file_or_directory() {
        let ldd = "\tlinux-vdso.so.1 (0x00007ffd)\n\tlibblas.so.3 => /nonexistent/openblas-pthread/libblas.so.3 (0x00007f69)\n\tlibmpi.so.40 => /lib/libmpi.so.40 (0x1)\n\tlibopenblas.so.0 => /nonexistent/openblas-pthread/libopenblas.so.0 (0x2)\n\tliblapack.so.3 => not found\n";
        let l = linked_blas(ldd);
        let names: Vec<&str> = l.iter().map(|x| x.0.as_str()).collect();
        assert_eq!(names, ["libblas.so.3", "libopenblas.so.0"]);
        let files: Vec<std::path::PathBuf> = l.into_iter().map(|x| x.1).collect();
        assert!(same_library(
            &files,
            Path::new("/nonexistent/openblas-pthread/libopenblasp-r0.3.21.so")
        ));
        assert!(!same_library(
            &files,
            Path::new("/nonexistent/blis-pthread/libblis.so.4")
        ));
        let mut r = BenchResult::new(
            ResourceName::Linalg,
            "gemm",
            crate::report::model::Metric::Ops,
            Unit::FlopPerSec,
        );
        assert_eq!(row_library(&r), None);
        r.info("library: OpenBLAS 0.3.21 from /x/libopenblas.so.0");
        assert_eq!(row_library(&r), Some("/x/libopenblas.so.0".into()));
    }

    #[test]
    fn a_strong_gemm_on_several_threads_gets_a_note_and_no_star_figure() {
        use crate::report::model::{Metric, ResourceName, Unit};
        let host = crate::report::samples::host();
        let memo = crate::reference::Memo::default();
        let ctx = Context::new(&host, &memo);
        let gemm = |t: u64| {
            BenchResult::new(ResourceName::Linalg, "gemm", Metric::Ops, Unit::FlopPerSec)
                .param("routine", "gemm")
                .param("precision", "fp64")
                .param("n", 1024u64)
                .param("threads", t)
        };
        // Answered without running hpcc: StarDGEMM is the weak shape.
        let f = Hpcc.shared(&gemm(2), &ctx, "1.5.0").unwrap().unwrap();
        assert!(f.reference.is_none());
        assert!(f.notes[0].contains("--weak"), "{:?}", f.notes);
        // Not a linalg fp64 case: nothing.
        let fp32 = gemm(2).param("precision", "fp32");
        assert!(Hpcc.shared(&fp32, &ctx, "1.5.0").is_none());
    }
}
