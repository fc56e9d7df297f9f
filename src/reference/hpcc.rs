//! hpcc (Debian `hpcc`, HPC Challenge 1.5): HPL and DGEMM beside `peakbench linalg`'s
//! fp64 LU and GEMM cases, at the same order and thread count.
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
//!
//! hpcc's figures are only as good as the BLAS it links: the note says which BLAS and
//! LAPACK files `ldd hpcc` resolves (Debian's alternatives pick `libblas.so.3`; the
//! netlib reference BLAS is 10–50× slower than OpenBLAS; install
//! `libopenblas0-pthread`), and whether that is the library of the row beside it
//! (`linalg --blas`: the same file, or a file in the same directory, is the same build).

use super::{capture_in, which, Context, Found, SharedFound, Tool};
use crate::report::model::{BenchResult, Reference, Resource, Unit};
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
}

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

impl Tool for Hpcc {
    fn name(&self) -> &'static str {
        "hpcc"
    }
    fn binary(&self) -> &'static str {
        "hpcc"
    }
    fn package(&self) -> &'static str {
        "hpcc"
    }
    fn covers(&self) -> &'static str {
        "linalg fp64 LU (HPL) and GEMM (DGEMM) at the same N and threads (mpirun, tens of seconds per run)"
    }
    fn version(&self, _path: &Path) -> Option<String> {
        super::dpkg_version("hpcc")
    }
    fn shared(&self, r: &BenchResult, ctx: &Context, version: &str) -> SharedFound {
        if r.resource != Resource::Linalg || r.param_str("precision") != Some("fp64") {
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
            Resource::Linalg,
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
        use crate::report::model::{Metric, Resource, Unit};
        let host = crate::report::samples::host();
        let memo = crate::reference::Memo::default();
        let ctx = Context::new(&host, &memo);
        let gemm = |t: u64| {
            BenchResult::new(Resource::Linalg, "gemm", Metric::Ops, Unit::FlopPerSec)
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
