//! `peakbench linalg` options: validation of the raw flags ([`LinalgArgs`]) into
//! [`LinalgOptions`]. Every bad value becomes one line naming the flag and the accepted
//! form (exit code 2, nothing run). Checks that need the host (memory for `--n`, which
//! precisions this CPU has) happen in `plan`.

use super::choice::{self, BlasChoice};
use crate::bench::common::parse_threads;
use crate::bench::cpu::kernels::Precision;
use crate::util::units::{parse_list, ParseError};
use crate::util::usage::UsageError;
use clap::Args;
use serde::{Serialize, Serializer};

/// `peakbench linalg` flags.
#[derive(Debug, Args, Default)]
pub struct LinalgArgs {
    /// Routines: gemm (C = A·B, 2n³ FLOP), lu (HPL-style solve: LU with partial pivoting + triangular solves, 2/3 n³ + 2n² FLOP), roofline (intensity sweep 1/8..64 FLOP/B over L1, L2, LLC and DRAM) [default: gemm,lu]
    #[arg(long, value_name = "LIST", allow_hyphen_values = true)]
    pub(crate) routine: Option<String>,
    /// Precisions: fp64,fp32 (bf16,fp16: GEMM only, where the CPU has them) [default: fp64]
    #[arg(long, value_name = "LIST", allow_hyphen_values = true)]
    pub(crate) precision: Option<String>,
    /// Matrix orders, e.g. 1000,4000 [default: sized for about a quarter second per GEMM and a second per LU at the FMA peak]
    #[arg(long, value_name = "LIST", allow_hyphen_values = true)]
    pub(crate) n: Option<String>,
    /// Thread counts (pinned; the library's parallelism set to the same count) [default: 1,2,4,… up to the core count]
    #[arg(long, value_name = "LIST", allow_hyphen_values = true)]
    pub(crate) threads: Option<String>,
    /// Libraries: faer (built in), auto (faer and every BLAS found), openblas, blis, mkl, flexiblas, atlas, reference, or a path to a BLAS .so; loaded at run time, one set of rows each [default: faer]
    #[arg(long, value_name = "LIST", allow_hyphen_values = true)]
    pub(crate) blas: Option<String>,
}

/// A dense routine (`--routine`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Routine {
    /// General matrix multiply, C = A·B (square, order n).
    Gemm,
    /// HPL-style solve of A·x = b: LU with partial pivoting, then two triangular solves.
    Lu,
    /// The measured roofline: an intensity sweep over arrays sized for each memory
    /// level (fp64; `--n` does not apply).
    Roofline,
}

impl Routine {
    /// Every routine, in listing order.
    pub(crate) const ALL: [Routine; 3] = [Routine::Gemm, Routine::Lu, Routine::Roofline];

    /// The flag value (also the result's workload name).
    pub(crate) fn name(self) -> &'static str {
        match self {
            Routine::Gemm => "gemm",
            Routine::Lu => "lu",
            Routine::Roofline => "roofline",
        }
    }

    /// Floating-point operations of one call at order `n`, counted as the reference
    /// tools count them: GEMM 2n³ (n³ multiply-adds, as hpcc's DGEMM), LU HPL's
    /// 2/3 n³ + 2 n² (factorisation and the two triangular solves); the roofline has no
    /// order (0).
    pub(crate) fn flops(self, n: usize) -> f64 {
        let n = n as f64;
        match self {
            Routine::Gemm => 2.0 * n * n * n,
            Routine::Lu => 2.0 / 3.0 * n * n * n + 2.0 * n * n,
            Routine::Roofline => 0.0,
        }
    }

    /// FLOP per byte of compulsory memory traffic at order `n` with `elem`-byte
    /// elements (GEMM: A and B read, C written, 3n² elements; LU: A read and written,
    /// 2n²), the x coordinate of the routine's point on the roofline.
    pub(crate) fn intensity(self, n: usize, elem: usize) -> f64 {
        let n2 = (n * n) as f64 * elem as f64;
        match self {
            Routine::Gemm => self.flops(n) / (3.0 * n2),
            Routine::Lu => self.flops(n) / (2.0 * n2),
            Routine::Roofline => 0.0,
        }
    }
}

impl Serialize for Routine {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

/// `peakbench linalg` options.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct LinalgOptions {
    /// `--routine`.
    pub(crate) routines: Vec<Routine>,
    /// `--precision` (fp64, fp32, bf16, fp16).
    pub(crate) precisions: Vec<Precision>,
    /// `--n`; `None` = sized from the peak.
    pub(crate) n: Option<Vec<usize>>,
    /// `--threads`; `None` = 1, 2, 4, … cores.
    pub(crate) threads: Option<Vec<usize>>,
    /// `--blas`, as given (resolved to libraries in `plan`).
    pub(crate) blas: Vec<BlasChoice>,
}

impl Serialize for BlasChoice {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            BlasChoice::Auto => s.serialize_str("auto"),
            BlasChoice::Faer => s.serialize_str("faer"),
            BlasChoice::Named(n) => s.serialize_str(n),
            BlasChoice::Path(p) => s.serialize_str(&p.to_string_lossy()),
        }
    }
}

/// Largest matrix order accepted before the memory check (n² must not overflow).
pub(crate) const MAX_N: usize = 1 << 20;

/// The precisions `--precision` accepts.
const PRECISIONS: [Precision; 4] = [
    Precision::Fp64,
    Precision::Fp32,
    Precision::Bf16,
    Precision::Fp16,
];

/// Validates `peakbench linalg` flags.
pub(crate) fn parse(a: &LinalgArgs) -> Result<LinalgOptions, UsageError> {
    let routines = match a.routine.as_deref() {
        None => vec![Routine::Gemm, Routine::Lu],
        Some(t) => parse_list(t, |s| {
            let l = s.to_ascii_lowercase();
            Routine::ALL
                .into_iter()
                .find(|r| r.name() == l)
                .ok_or_else(|| {
                    ParseError(format!("unknown routine '{s}'; accepted: gemm,lu,roofline"))
                })
        })
        .map_err(|e| UsageError::new("--routine", e))?,
    };
    let precisions = match a.precision.as_deref() {
        None => vec![Precision::Fp64],
        Some(t) => parse_list(t, |s| {
            Precision::parse(s)
                .filter(|p| PRECISIONS.contains(p))
                .ok_or_else(|| {
                    ParseError(format!(
                        "unknown precision '{s}'; accepted: fp64,fp32,bf16,fp16 (or dp,sp,hp)"
                    ))
                })
        })
        .map_err(|e| UsageError::new("--precision", e))?,
    };
    let n = a
        .n
        .as_deref()
        .map(|t| {
            parse_list(t, |s| match s.parse::<usize>() {
                Ok(n) if (1..=MAX_N).contains(&n) => Ok(n),
                _ => Err(ParseError(format!(
                    "'{s}' is not a matrix order; use whole numbers from 1 to {MAX_N}, e.g. 1000,4000"
                ))),
            })
        })
        .transpose()
        .map_err(|e| UsageError::new("--n", e))?;
    let threads = a.threads.as_deref().map(parse_threads).transpose()?;
    let blas = match a.blas.as_deref() {
        None => vec![BlasChoice::Faer],
        Some(t) => parse_list(t, |s| choice::parse_choice(s).map_err(ParseError))
            .map_err(|e| UsageError::new("--blas", e))?,
    };
    Ok(LinalgOptions {
        routines,
        precisions,
        n,
        threads,
        blas,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::common::args_from;

    fn opts(argv: &[&str]) -> Result<LinalgOptions, UsageError> {
        parse(&args_from::<LinalgArgs>(argv))
    }

    #[test]
    fn defaults_and_lists() {
        let o = opts(&[]).unwrap();
        assert_eq!(o.routines, vec![Routine::Gemm, Routine::Lu]);
        assert_eq!(o.precisions, vec![Precision::Fp64]);
        assert_eq!((o.n, o.threads), (None, None));
        assert_eq!(o.blas, vec![BlasChoice::Faer]);
        let o = opts(&[
            "--routine",
            "LU",
            "--precision",
            "sp,fp64",
            "--n",
            "100,2000",
            "--threads",
            "1,2",
        ])
        .unwrap();
        assert_eq!(o.routines, vec![Routine::Lu]);
        assert_eq!(o.precisions, vec![Precision::Fp32, Precision::Fp64]);
        assert_eq!(o.n, Some(vec![100, 2000]));
        assert_eq!(o.threads, Some(vec![1, 2]));
    }

    #[test]
    fn bad_values_name_the_flag() {
        let e = opts(&["--routine", "qr"]).unwrap_err().0;
        assert!(e.starts_with("--routine: unknown routine 'qr'"), "{e}");
        let e = opts(&["--precision", "int8"]).unwrap_err().0;
        assert!(
            e.starts_with("--precision: unknown precision 'int8'"),
            "{e}"
        );
        for bad in ["0", "-5", "ten", "99999999999"] {
            let e = opts(&["--n", bad]).unwrap_err().0;
            assert!(e.starts_with("--n: "), "{e}");
        }
        let e = opts(&["--threads", "0"]).unwrap_err().0;
        assert!(e.starts_with("--threads:"), "{e}");
        let e = opts(&["--blas", "faer,eigen"]).unwrap_err().0;
        assert!(e.starts_with("--blas: unknown BLAS 'eigen'"), "{e}");
    }

    #[test]
    fn flop_counts_are_the_reference_tools() {
        assert_eq!(Routine::Gemm.flops(1000), 2e9);
        // HPL: 2/3 n³ + 2 n² (hpcc's HPL_Tflops uses the same count).
        assert_eq!(Routine::Lu.flops(3), 2.0 / 3.0 * 27.0 + 18.0);
        let n = 10000.0f64;
        assert!((Routine::Lu.flops(10000) - (2.0 / 3.0 * n * n * n + 2.0 * n * n)).abs() < 1.0);
    }
}
