//! Which library runs a linalg case (`--blas`): faer, built in, or a BLAS/LAPACK
//! library found on the machine and loaded at run time ([`super::blas::Library`]).
//!
//! Discovery tries each family's sonames (as `dlopen` searches them) and then its known
//! paths (Debian's `/usr/lib/x86_64-linux-gnu/<flavour>/`, RHEL's `/usr/lib64/`, oneAPI's
//! `/opt/intel/oneapi/mkl/latest/lib/`); the first file that loads and exports that
//! family's symbols is the family's library. `auto` is faer and every family found, once
//! per file. A family asked for by name and not found gives skipped rows saying what
//! was tried and how to install it; a path that exists but is not a BLAS is refused.
//!
//! LAPACK: the solve needs `?getrf_`/`?getrs_` in the same file (OpenBLAS, MKL,
//! FlexiBLAS, RHEL's ATLAS have them). A BLAS without them (BLIS, the netlib BLAS,
//! Debian's ATLAS BLAS) gets a skipped LU row: a separate `liblapack.so.3` is not
//! loaded beside it, since its own `libblas.so.3` dependency resolves to whichever
//! library the system's alternatives select, so the solve would not be that library's.
//!
//! OpenBLAS reads `OPENBLAS_CORETYPE` once, when it is loaded: where the environment
//! does not set it, it is set for the load from the CPU's features exactly as for hpcc
//! ([`crate::reference::hpcc::coretype`]; OpenBLAS 0.3.21 takes a Zen 5 for Haswell and
//! would run AVX2 kernels), and the row says so.

use super::blas::{BlasLoadError, CallError, Elem, Library, Threads};
use super::dense;
use super::options::Routine;
use super::sample::{samples, GemmSet, Run, Sample};
use crate::bench::resource::Context;
use crate::hw::HostInfo;
use crate::measure::clock::Tick;
use crate::report::model::BenchResult;
use crate::util::usage::UsageError;
use faer::Mat;
use std::path::Path;
use std::sync::Arc;
use std::sync::Mutex;

pub(crate) use super::choice::BlasChoice;
use super::choice::{accepted, known, Known, KNOWN};

/// The library behind one set of rows.
#[derive(Clone)]
pub(crate) enum Backend {
    /// faer, built in.
    Faer,
    /// A loaded library and its row name.
    Lib {
        /// Row name (`blas` parameter): the family's name, or the file's for a path.
        name: String,
        /// The library.
        lib: Arc<Library>,
        /// Said on every row (how it was loaded, e.g. an `OPENBLAS_CORETYPE` set).
        load_note: Option<String>,
    },
    /// Asked for by name and not found: every row skipped with `why`.
    Missing {
        /// Row name.
        name: String,
        /// Why (what was tried, how to install).
        why: String,
    },
}

/// faer's version, for its rows (the crate peakbench is built with).
pub(crate) const FAER: &str = "faer 0.24 (built in, pure Rust)";

impl Backend {
    /// The row name (`faer`, `openblas`, …).
    pub(crate) fn name(&self) -> &str {
        match self {
            Backend::Faer => "faer",
            Backend::Lib { name, .. } | Backend::Missing { name, .. } => name,
        }
    }

    /// Whether this is faer.
    pub(crate) fn is_faer(&self) -> bool {
        matches!(self, Backend::Faer)
    }
}

/// The `OPENBLAS_CORETYPE` to set for loading OpenBLAS, when the environment sets none.
fn coretype(host: &HostInfo) -> Option<&'static str> {
    if std::env::var_os("OPENBLAS_CORETYPE").is_some() {
        return None;
    }
    crate::hw::cpu::openblas_coretype(&host.cpu.features, &host.cpu.vendor)
}

/// Loads `file`, with `OPENBLAS_CORETYPE` set for the load when `core` is given (and
/// removed afterwards, so nothing else sees it).
fn load(file: &Path, core: Option<&str>) -> Result<Library, BlasLoadError> {
    match core {
        Some(c) => {
            // Loading happens while planning, before any case or reference tool runs
            // threads that read the environment.
            std::env::set_var("OPENBLAS_CORETYPE", c);
            let lib = Library::load(file);
            std::env::remove_var("OPENBLAS_CORETYPE");
            lib
        }
        None => Library::load(file),
    }
}

/// The note for an OpenBLAS loaded with `core` set by peakbench, or with
/// `OPENBLAS_CORETYPE` from the environment (which then chose its kernels).
fn core_note(lib: &Library, core: Option<&str>) -> Option<String> {
    if !lib.kind.coretype {
        return None;
    }
    match (core, std::env::var("OPENBLAS_CORETYPE")) {
        (Some(c), _) => Some(format!("OPENBLAS_CORETYPE={c} was set for loading it, from the CPU's features (as for hpcc), since OpenBLAS's own detection may not know this CPU")),
        (None, Ok(c)) => Some(format!("OPENBLAS_CORETYPE={c} from the environment chose its kernels")),
        (None, Err(_)) => None,
    }
}

/// Finds family `k`: the first of its files that loads and is that family.
fn find(k: &Known, host: &HostInfo) -> Result<Backend, String> {
    let core = if k.coretype { coretype(host) } else { None };
    let mut seen = Vec::new();
    for f in k.files {
        match load(Path::new(f), core) {
            Ok(lib) if k.accepts(lib.kind) => {
                return Ok(Backend::Lib {
                    name: k.name.into(),
                    load_note: core_note(&lib, core),
                    lib: Arc::new(lib),
                })
            }
            Ok(lib) => seen.push(format!("{} is another BLAS", lib.file.display())),
            Err(_) => {}
        }
    }
    let tried = k.files.join(", ");
    Err(format!(
        "{} not found (tried {tried}{}); install: {}",
        k.name,
        if seen.is_empty() {
            String::new()
        } else {
            format!("; {}", seen.join(", "))
        },
        k.install
    ))
}

/// The backends for `choices`, in order, each library once (by file).
pub(crate) fn resolve(choices: &[BlasChoice], host: &HostInfo) -> Result<Vec<Backend>, UsageError> {
    let mut out: Vec<Backend> = Vec::new();
    let push = |b: Backend, out: &mut Vec<Backend>| {
        let dup = out.iter().any(|o| match (o, &b) {
            (Backend::Faer, Backend::Faer) => true,
            (Backend::Lib { lib: x, .. }, Backend::Lib { lib: y, .. }) => x.file == y.file,
            (Backend::Missing { name: x, .. }, Backend::Missing { name: y, .. }) => x == y,
            _ => false,
        });
        if !dup {
            out.push(b);
        }
    };
    for c in choices {
        match c {
            BlasChoice::Faer => push(Backend::Faer, &mut out),
            BlasChoice::Auto => {
                push(Backend::Faer, &mut out);
                for k in KNOWN.iter().filter(|k| k.not_in_auto.is_none() && k.here()) {
                    if let Ok(b) = find(k, host) {
                        push(b, &mut out);
                    }
                }
            }
            BlasChoice::Named(name) => {
                let k = known(name).expect("parsed from KNOWN");
                let b = find(k, host).unwrap_or_else(|why| Backend::Missing {
                    name: k.name.into(),
                    why,
                });
                push(b, &mut out);
            }
            BlasChoice::Path(p) => {
                let name = p.file_name().map_or_else(
                    || p.display().to_string(),
                    |f| f.to_string_lossy().into_owned(),
                );
                // A path names a file; a bare soname is searched as dlopen does.
                let soname = !p.to_string_lossy().contains('/');
                if !soname && !p.exists() {
                    push(
                        Backend::Missing {
                            name,
                            why: format!("{}: no such file", p.display()),
                        },
                        &mut out,
                    );
                    continue;
                }
                // dlopen would wait for ever on a FIFO: only a regular file is loaded
                // (issue #33 item 6).
                if !soname {
                    if let Err(e) = crate::util::regular::open(p) {
                        return Err(UsageError::new(
                            "--blas",
                            format!("{}: {e}; give a BLAS library ({})", p.display(), accepted()),
                        ));
                    }
                }
                let core = coretype(host);
                let lib = match load(p, core) {
                    Ok(lib) => lib,
                    Err(BlasLoadError::NotFound(e)) if soname => {
                        push(Backend::Missing { name, why: e }, &mut out);
                        continue;
                    }
                    Err(e) => {
                        return Err(UsageError::new(
                            "--blas",
                            format!("{}: {e}; give a BLAS library ({})", p.display(), accepted()),
                        ))
                    }
                };
                push(
                    Backend::Lib {
                        name,
                        load_note: core_note(&lib, core),
                        lib: Arc::new(lib),
                    },
                    &mut out,
                );
            }
        }
    }
    Ok(out)
}

/// What `--blas auto` picked on this host and what it left out and why, one line
/// (said on every row of a run that asked for `auto`).
pub(crate) fn auto_summary(host: &HostInfo) -> String {
    let picked = resolve(&[BlasChoice::Auto], host).unwrap_or_default();
    let names: Vec<&str> = picked.iter().map(Backend::name).collect();
    let mut s = format!("--blas auto ran {}", names.join(", "));
    let absent: Vec<&str> = KNOWN
        .iter()
        .filter(|k| k.not_in_auto.is_none() && k.here() && !names.contains(&k.name))
        .map(|k| k.name)
        .collect();
    if !absent.is_empty() {
        s.push_str(&format!("; not found: {}", absent.join(", ")));
    }
    for k in &KNOWN {
        let Some(why) = k.not_in_auto else { continue };
        let found = find(k, host).is_ok();
        s.push_str(&format!(
            "; left out: {} ({}): {why}",
            k.name,
            if found { "installed" } else { "not installed" }
        ));
    }
    s
}

/// Sets a library's thread count for a case and notes on `r` what was set, what the
/// library reports and where its threads run; faer's rows name faer.
pub(super) fn prepare(
    b: &Backend,
    threads: usize,
    weak: bool,
    cpus: &[usize],
    r: &mut BenchResult,
) {
    let Backend::Lib { lib, load_note, .. } = b else {
        r.info(format!("library: {FAER}"));
        return;
    };
    r.info(format!(
        "library: {} from {}",
        lib.version,
        lib.file.display()
    ));
    if let Some(n) = load_note {
        r.info(n.clone());
    }
    // Under --weak each pinned worker calls the library on its own matrices, so the
    // library itself runs one thread per call.
    let want = if weak { 1 } else { threads };
    match lib.set_threads(want) {
        Threads::Set { call, read_back } => match read_back {
            Some(x) if x != want as i64 => r.warn(format!(
                "{call}({want}) was called but the library reports {x} threads"
            )),
            _ => r.info(format!(
                "threads: {call}({want}){}",
                if weak {
                    format!(", called by each of the {threads} pinned threads at once")
                } else {
                    String::new()
                }
            )),
        },
        Threads::Ignored(why) if !weak && threads > 1 => {
            r.warn(format!("the library ignores the thread count: {why}"))
        }
        Threads::Ignored(why) => r.info(format!("thread count not set: {why}")),
    }
    if !weak && !cpus.is_empty() {
        let no_affinity = lib.version.contains("NO_AFFINITY");
        r.info(format!(
            "called from a thread restricted to CPUs {cpus:?} (the CPUs faer's threads are pinned to, one each); threads the library starts during the call inherit that set{}",
            if no_affinity {
                "; OpenBLAS's own threads, started when it was loaded, are not pinned (built NO_AFFINITY)"
            } else {
                ""
            }
        ));
    }
}

/// Why a case cannot run on this backend in precision `T`, or `None`.
pub(super) fn unavailable<T: Elem>(b: &Backend, routine: Routine) -> Option<String> {
    match b {
        Backend::Faer => None,
        Backend::Missing { why, .. } => Some(why.clone()),
        Backend::Lib { lib, .. } => {
            let p = if T::BYTES == 8 {
                ('d', "fp64")
            } else {
                ('s', "fp32")
            };
            if routine == Routine::Lu && !lib.has_lu::<T>() {
                Some(format!(
                    "no LAPACK in {}: it exports no {c}getrf_/{c}getrs_ for the {} solve; a separate liblapack.so.3 is not loaded beside it, since that would call whichever libblas.so.3 the system resolves, not this library",
                    lib.file.display(),
                    p.1,
                    c = p.0
                ))
            } else if routine == Routine::Gemm && !lib.has_gemm::<T>() {
                Some(format!(
                    "{} exports no {}gemm_ ({})",
                    lib.file.display(),
                    p.0,
                    p.1
                ))
            } else {
                None
            }
        }
    }
}

/// The samples of a case (`routine` at order `n`, `--weak` or not) run by library
/// `lib`: the matrices, then the calls driven by [`samples`] (as faer's in
/// `LinalgCase::measure`). `Err`: a call failed.
pub(super) fn lib_samples<T: Elem>(
    routine: Routine,
    n: usize,
    weak: bool,
    ctx: &Context,
    lib: &Library,
    pool: &rayon::ThreadPool,
    read: &mut dyn FnMut(),
) -> Result<Run, String> {
    let err: Mutex<Option<String>> = Mutex::new(None);
    let fail = |e: CallError| {
        let mut g = err.lock().unwrap_or_else(|e| e.into_inner());
        g.get_or_insert_with(|| e.to_string());
    };
    // A failed call counts as taking forever and failing its check, so the sample loop
    // makes no further calls than it must.
    let failed = || Sample {
        secs: f64::INFINITY,
        worst: f64::INFINITY,
    };
    let run = match routine {
        Routine::Roofline => return Err("the roofline is not a matrix routine".into()),
        Routine::Gemm if weak => {
            let sets: Vec<Mutex<GemmSet<T>>> = pool.broadcast(|c| {
                let seed = 2 * c.index() as u64;
                Mutex::new(GemmSet {
                    a: dense::random::<T>(n, n, seed + 1),
                    b: dense::random::<T>(n, n, seed + 2),
                    c: Mat::<T>::zeros(n, n),
                })
            });
            let mut call = |check: bool| -> Sample {
                let t0 = Tick::now();
                let ok: Vec<bool> = pool.broadcast(|c| {
                    let mut g = sets[c.index()].lock().unwrap_or_else(|e| e.into_inner());
                    let GemmSet { a, b, c } = &mut *g;
                    lib.gemm(c.as_mut(), a.as_ref(), b.as_ref())
                        .map_err(fail)
                        .is_ok()
                });
                let secs = Tick::now().secs_since(t0);
                if ok.contains(&false) {
                    return failed();
                }
                let worst = if check {
                    GemmSet::worst_check(&sets)
                } else {
                    0.0
                };
                Sample { secs, worst }
            };
            samples(ctx, &mut call, read)
        }
        Routine::Gemm => {
            let a = dense::random::<T>(n, n, 1);
            let b = dense::random::<T>(n, n, 2);
            let mut c = Mat::<T>::zeros(n, n);
            let mut call = |check: bool| -> Sample {
                let t0 = Tick::now();
                if let Err(e) = lib.gemm(c.as_mut(), a.as_ref(), b.as_ref()) {
                    fail(e);
                    return failed();
                }
                Sample::checked(t0, check, || {
                    dense::gemm_check(a.as_ref(), b.as_ref(), c.as_ref(), 3)
                })
            };
            samples(ctx, &mut call, read)
        }
        Routine::Lu => {
            let a = dense::random::<T>(n, n, 1);
            let b = dense::random::<T>(n, 1, 2);
            let mut lu = Mat::<T>::zeros(n, n);
            let mut x = Mat::<T>::zeros(n, 1);
            let mut ipiv = vec![0i32; n];
            let mut call = |_check: bool| -> Sample {
                lu.copy_from(a.as_ref());
                x.copy_from(b.as_ref());
                let t0 = Tick::now();
                if let Err(e) = lib.lu_solve(lu.as_mut(), &mut ipiv, x.as_mut()) {
                    fail(e);
                    return failed();
                }
                let secs = Tick::now().secs_since(t0);
                // Every solve is checked, as faer's: O(n²), outside the timed part.
                let worst = dense::lu_residual(a.as_ref(), x.as_ref(), b.as_ref());
                Sample { secs, worst }
            };
            samples(ctx, &mut call, read)
        }
    };
    match err.into_inner().unwrap_or_else(|e| e.into_inner()) {
        Some(e) => Err(format!("{}: {e}", lib.file.display())),
        None => Ok(run),
    }
}

/// Runs the unit test `name` (its name inside this crate's tests, `bench::linalg::…`)
/// alone, in a child process of the test binary, and says whether the caller is that
/// child (then it runs the test's body) or the parent (the child ran it; the parent
/// checks it passed and returns). Every test that calls into a system BLAS goes through
/// it: inside the one process of the unit tests, beside faer's thread pools and the
/// Vulkan drivers that host detection loads, OpenBLAS 0.3.21 (Debian 12) crashed about
/// one run in twelve (a call through a null pointer in its worker thread), where alone
/// (60 runs) and in peakbench's own runs (45) it never did.
#[cfg(test)]
pub(super) fn in_own_process(name: &str) -> bool {
    const CHILD: &str = "PEAKBENCH_LIBRARY_TEST_CHILD";
    if std::env::var_os(CHILD).is_some() {
        return true;
    }
    if let Some(why) = crate::hw::arm::emulated() {
        // qemu-user (without binfmt_misc) cannot start the test binary again, and the
        // host's BLAS libraries are not aarch64 ones.
        println!("{name}: skipped, emulated CPU: the child process cannot start ({why})");
        return false;
    }
    let exe = std::env::current_exe().expect("the test binary");
    let out = std::process::Command::new(exe)
        .args([name, "--exact", "--test-threads=1", "--nocapture"])
        .env(CHILD, "1")
        .output()
        .expect("the test binary runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    eprint!("{stderr}");
    assert!(
        out.status.success() && stdout.contains("1 passed"),
        "{name} in its own process: {}\n{stdout}\n{stderr}",
        out.status
    );
    false
}

#[cfg(test)]
mod tests {
    use super::super::choice::parse_choice;

    /// Issue #32 item 6: `auto` never runs netlib's reference BLAS (minutes at large
    /// n), says so with the way to run it, and naming it still runs it.
    #[test]
    fn auto_leaves_the_reference_blas_out_and_says_why() {
        let host = HostInfo::detect(false);
        let auto = resolve(&[BlasChoice::Auto], &host).unwrap();
        assert!(
            auto.iter().all(|b| b.name() != "reference"),
            "{:?}",
            auto.iter().map(Backend::name).collect::<Vec<_>>()
        );
        assert_eq!(auto[0].name(), "faer");
        let s = auto_summary(&host);
        assert!(s.starts_with("--blas auto ran faer"), "{s}");
        assert!(s.contains("left out: reference"), "{s}");
        assert!(s.contains("--blas reference"), "{s}");
        let named = resolve(&[BlasChoice::Named("reference")], &host).unwrap();
        assert_eq!(named.len(), 1);
        assert_eq!(named[0].name(), "reference");
        // Where it is installed, naming it loads it (no Missing row).
        // (choice.rs lists x86-64 Debian paths; an aarch64 process cannot load them.)
        if cfg!(target_arch = "x86_64")
            && Path::new("/usr/lib/x86_64-linux-gnu/blas/libblas.so.3").exists()
        {
            assert!(matches!(named[0], Backend::Lib { .. }), "named: {s}");
        }
    }
    use super::super::dense::Real;
    use super::*;

    #[test]
    fn choices_parse_names_paths_and_refuse_the_rest() {
        assert_eq!(parse_choice("AUTO"), Ok(BlasChoice::Auto));
        assert_eq!(parse_choice("faer"), Ok(BlasChoice::Faer));
        assert_eq!(parse_choice("OpenBLAS"), Ok(BlasChoice::Named("openblas")));
        assert_eq!(
            parse_choice("/opt/x/libfoo.so.1"),
            Ok(BlasChoice::Path("/opt/x/libfoo.so.1".into()))
        );
        assert_eq!(
            parse_choice("libfoo.so"),
            Ok(BlasChoice::Path("libfoo.so".into()))
        );
        let e = parse_choice("eigen").unwrap_err();
        assert!(
            e.starts_with("unknown BLAS 'eigen'; accepted: auto, faer"),
            "{e}"
        );
    }

    /// Family `name` loaded, or `None` with the reason printed (the test then skips it).
    fn installed(name: &str, host: &HostInfo) -> Option<Arc<Library>> {
        match find(known(name).unwrap(), host) {
            Ok(Backend::Lib { lib, .. }) => Some(lib),
            Ok(_) => None,
            Err(why) => {
                eprintln!("skipped: {why}");
                None
            }
        }
    }

    /// `|x − y|∞` over two matrices.
    fn diff<T: Real>(x: faer::MatRef<'_, T>, y: faer::MatRef<'_, T>) -> f64 {
        let mut d = 0.0f64;
        for j in 0..x.ncols() {
            for i in 0..x.nrows() {
                d = d.max((x[(i, j)].f64() - y[(i, j)].f64()).abs());
            }
        }
        d
    }

    fn agree<T: Elem>(lib: &Library, name: &str) {
        use super::super::dense::{gemm, lu_residual, random, LuSolver, THRESHOLD};
        use faer::Par;
        for n in [1, 17, 64, 130] {
            let a = random::<T>(n, n, 1);
            let b = random::<T>(n, n, 2);
            let mut c = Mat::<T>::zeros(n, n);
            let mut want = Mat::<T>::zeros(n, n);
            lib.gemm(c.as_mut(), a.as_ref(), b.as_ref()).unwrap();
            gemm(want.as_mut(), a.as_ref(), b.as_ref(), Par::Seq);
            // Each element sums n products of |x| ≤ 1/4: two orders of summation differ
            // by less than n·ε.
            let d = diff(c.as_ref(), want.as_ref());
            assert!(d <= n as f64 * T::EPS, "{name} gemm n={n}: {d}");
            if !lib.has_lu::<T>() {
                continue;
            }
            let x0 = random::<T>(n, 1, 3);
            let mut lu = a.clone();
            let mut x = x0.clone();
            let mut ipiv = vec![0; n];
            lib.lu_solve(lu.as_mut(), &mut ipiv, x.as_mut()).unwrap();
            assert!(
                lu_residual(a.as_ref(), x.as_ref(), x0.as_ref()) < THRESHOLD,
                "{name} lu n={n}"
            );
            let mut s = LuSolver::<T>::new(n, Par::Seq);
            s.load(a.as_ref(), x0.as_ref());
            s.solve(Par::Seq);
            // Both solve the same system: the solutions differ by rounding amplified by
            // the condition number (random matrices of these orders: below 1e4).
            let scale = diff(s.x.as_ref(), Mat::<T>::zeros(n, 1).as_ref()).max(1.0);
            let d = diff(x.as_ref(), s.x.as_ref()) / scale;
            assert!(
                d < 1e5 * n as f64 * T::EPS,
                "{name} lu n={n}: x differs by {d}"
            );
        }
    }

    #[test]
    fn each_installed_library_agrees_with_faer_within_rounding() {
        if !in_own_process("bench::linalg::backend::tests::each_installed_library_agrees_with_faer_within_rounding") {
            return;
        }
        let host = HostInfo::detect(false);
        for k in &KNOWN {
            let Some(lib) = installed(k.name, &host) else {
                continue;
            };
            eprintln!("{}: {} from {}", k.name, lib.version, lib.file.display());
            agree::<f64>(&lib, k.name);
            agree::<f32>(&lib, k.name);
            match lib.set_threads(2) {
                Threads::Set { read_back, .. } => {
                    assert!(read_back.is_none_or(|x| x >= 1), "{read_back:?}")
                }
                Threads::Ignored(why) => assert!(!why.is_empty()),
            }
        }
    }

    #[test]
    fn blis_has_no_lapack_so_its_lu_is_skipped_with_the_reason() {
        if !in_own_process("bench::linalg::backend::tests::blis_has_no_lapack_so_its_lu_is_skipped_with_the_reason") {
            return;
        }
        let host = HostInfo::detect(false);
        let Some(lib) = installed("blis", &host) else {
            return;
        };
        let b = Backend::Lib {
            name: "blis".into(),
            lib,
            load_note: None,
        };
        let why = unavailable::<f64>(&b, Routine::Lu).expect("BLIS has no dgetrf_");
        assert!(why.starts_with("no LAPACK in /"), "{why}");
        assert!(why.contains("dgetrf_"), "{why}");
        assert_eq!(unavailable::<f64>(&b, Routine::Gemm), None);
    }

    #[test]
    fn a_library_that_is_not_a_blas_or_not_there_is_told_apart() {
        if !in_own_process("bench::linalg::backend::tests::a_library_that_is_not_a_blas_or_not_there_is_told_apart") {
            return;
        }
        assert!(matches!(
            Library::load(Path::new("libm.so.6")),
            Err(BlasLoadError::NotBlas)
        ));
        assert!(matches!(
            Library::load(Path::new("libpeakbench-none.so.9")),
            Err(BlasLoadError::NotFound(_))
        ));
        let host = HostInfo::detect(false);
        let e = resolve(&[BlasChoice::Path("libm.so.6".into())], &host)
            .err()
            .unwrap()
            .0;
        assert!(e.starts_with("--blas: libm.so.6: not a BLAS"), "{e}");
        let b = resolve(
            &[
                BlasChoice::Faer,
                BlasChoice::Path("/nonexistent/libblas.so.3".into()),
                BlasChoice::Faer,
            ],
            &host,
        )
        .unwrap();
        assert_eq!(b.len(), 2);
        assert!(matches!(&b[1], Backend::Missing { why, .. } if why.contains("no such file")));
    }

    /// Issue #33 item 6: `--blas FIFO` is refused at once (dlopen would wait for a
    /// writer for ever), and so is a directory.
    #[test]
    fn issue_33_a_blas_path_that_is_not_a_regular_file_is_refused() {
        let d = tempfile::tempdir().unwrap();
        let fifo = d.path().join("libblas.so");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid C string.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let host = HostInfo::detect(false);
        let e = resolve(&[BlasChoice::Path(fifo.clone())], &host)
            .err()
            .unwrap()
            .0;
        assert!(
            e.starts_with(&format!(
                "--blas: {}: is a named pipe (FIFO)",
                fifo.display()
            )),
            "{e}"
        );
        let e = resolve(&[BlasChoice::Path(d.path().into())], &host)
            .err()
            .unwrap()
            .0;
        assert!(e.contains("is a directory"), "{e}");
    }

    #[test]
    fn compare_and_fleet_key_rows_by_library_and_faer_rows_as_before() {
        use crate::report::compare::CaseKey;
        use crate::report::model::{Metric, ResourceName, Unit};
        let row = || {
            BenchResult::new(ResourceName::Linalg, "gemm", Metric::Ops, Unit::FlopPerSec)
                .param("routine", "gemm")
                .param("n", 1024u64)
                .param("threads", 2u64)
        };
        let faer = CaseKey::of(&row());
        let openblas = CaseKey::of(&row().param("blas", "openblas"));
        let blis = CaseKey::of(&row().param("blas", "blis"));
        assert_ne!(faer, openblas);
        assert_ne!(openblas, blis);
        assert!(
            openblas.params.contains("blas=openblas"),
            "{}",
            openblas.params
        );
        assert!(!faer.params.contains("blas"), "{}", faer.params);
    }

    /// Issue #34 item 4: every row of the family table resolves when named: to its
    /// library where one is installed (and of that family), else to a skipped row
    /// saying what was tried and how to install it.
    #[test]
    fn every_known_family_resolves_by_name() {
        if !in_own_process("bench::linalg::backend::tests::every_known_family_resolves_by_name") {
            return;
        }
        let host = HostInfo::detect(false);
        for k in &KNOWN {
            let b = resolve(&[BlasChoice::Named(k.name)], &host).unwrap();
            assert_eq!(b.len(), 1, "{}", k.name);
            assert_eq!(b[0].name(), k.name);
            match &b[0] {
                Backend::Lib { lib, .. } => assert!(k.accepts(lib.kind), "{}", k.name),
                Backend::Missing { why, .. } => {
                    assert!(why.contains(k.install) && why.contains(k.files[0]), "{why}")
                }
                Backend::Faer => panic!("{} resolved to faer", k.name),
            }
        }
    }

    #[test]
    fn every_known_family_names_files_and_an_install_line() {
        for k in &KNOWN {
            // The Arm vendors' libraries (one architecture) come from their vendors.
            assert!(
                !k.files.is_empty() && (k.install.contains("apt-get") || k.arch.is_some()),
                "{}",
                k.name
            );
            assert_eq!(parse_choice(k.name), Ok(BlasChoice::Named(k.name)));
        }
    }
}
