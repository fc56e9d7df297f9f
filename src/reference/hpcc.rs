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

use super::hpcc_files::{
    grid, hpl_n_for_gemm, hpl_n_for_stream, input_file, parse, Figures, STREAM_KERNELS,
};
use super::{capture_in, which, Context, Found, Row, SharedFound, Tool, VersionFrom};
use crate::report::model::{BenchResult, Reference, ResourceName, Unit};
use std::path::Path;
use std::time::Duration;

/// The hpcc adapter.
pub(crate) struct Hpcc;

/// HPL's block size: 192 suits OpenBLAS's AVX2/AVX-512 DGEMM kernels.
pub(crate) const NB: usize = 192;

/// Longest one hpcc run may take (every HPC Challenge test, at the case's N).
const RUN_TIMEOUT: Duration = Duration::from_secs(900);

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

    fn mem_row(kernel: &str, size: u64, threads: u32, block: u64) -> BenchResult {
        crate::report::samples::mem_seq(kernel, size, threads)
            .param("level", "DRAM")
            .param("bytes", "stream")
            .size("block", block)
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
