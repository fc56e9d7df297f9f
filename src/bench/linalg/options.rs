//! `peakbench linalg` options: one struct, [`LinalgOptions`], its flags typed where
//! clap reads them (a bad value is one line naming the flag and the accepted form, exit
//! code 2, nothing run). Checks that need the host (memory for `--n`, which
//! precisions this CPU has) happen in `plan`.

use super::choice::{self, BlasChoice};
use crate::bench::cpu::kernels::Precision;
use crate::bench::flags::{threads, Choices, List};
use crate::util::units::{parse_list, ParseError};
use crate::util::usage::UsageError;
use clap::Args;
use serde::{Serialize, Serializer};

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

/// `peakbench linalg`: its flags, typed where clap reads them, and the validated
/// options (serialised into the report's `config`): one struct; no check spans its
/// flags ([`parse`]).
#[derive(Debug, Clone, Args, Serialize)]
pub(crate) struct LinalgOptions {
    /// Routines: gemm (C = A·B, 2n³ FLOP), lu (HPL-style solve: LU with partial pivoting + triangular solves, 2/3 n³ + 2n² FLOP), roofline (intensity sweep 1/8..64 FLOP/B over L1, L2, LLC and DRAM) [default: gemm,lu]
    #[arg(
        long = "routine",
        value_name = "LIST",
        allow_hyphen_values = true,
        default_value = "gemm,lu",
        hide_default_value = true,
        value_parser = Choices::new(routines, routine_names)
    )]
    pub(crate) routines: List<Routine>,
    /// Precisions (bf16,fp16: GEMM only, where the CPU has them) [default: fp64]
    #[arg(
        long = "precision",
        value_name = "LIST",
        allow_hyphen_values = true,
        default_value = "fp64",
        hide_default_value = true,
        value_parser = Choices::new(precisions, precision_names)
    )]
    pub(crate) precisions: List<Precision>,
    /// Matrix orders, e.g. 1000,4000 [default: sized for about a quarter second per GEMM and a second per LU at the FMA peak]
    #[arg(long, value_name = "LIST", allow_hyphen_values = true, value_parser = orders)]
    pub(crate) n: Option<List<usize>>,
    /// Thread counts (pinned; the library's parallelism set to the same count) [default: 1,2,4,… up to the core count]
    #[arg(long, value_name = "LIST", allow_hyphen_values = true, value_parser = threads)]
    pub(crate) threads: Option<List<usize>>,
    // Help: the libraries listed from the table (choice::help).
    #[arg(
        long,
        help = choice::help(),
        value_name = "LIST",
        allow_hyphen_values = true,
        default_value = "faer",
        hide_default_value = true,
        value_parser = Choices::new(blas, blas_names)
    )]
    pub(crate) blas: List<BlasChoice>,
}

/// Until the top names one type per command (issue #34): the flags are the options.
pub(crate) type LinalgArgs = LinalgOptions;

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

fn routine_names() -> Vec<&'static str> {
    Routine::ALL.map(Routine::name).to_vec()
}

fn precision_names() -> Vec<&'static str> {
    PRECISIONS.map(Precision::name).to_vec()
}

/// The `--blas` names: auto, faer and the BLAS family (a path is accepted too).
fn blas_names() -> Vec<&'static str> {
    let known = choice::KNOWN.iter().map(|k| k.name);
    ["auto", "faer"].into_iter().chain(known).collect()
}

/// `--routine`: gemm, lu, roofline.
fn routines(text: &str) -> Result<List<Routine>, ParseError> {
    parse_list(text, |s| {
        let l = s.to_ascii_lowercase();
        Routine::ALL
            .into_iter()
            .find(|r| r.name() == l)
            .ok_or_else(|| {
                ParseError(format!(
                    "unknown routine '{s}'; accepted: {}",
                    routine_names().join(",")
                ))
            })
    })
}

/// `--precision`: the precisions linalg measures (or their aliases).
fn precisions(text: &str) -> Result<List<Precision>, ParseError> {
    parse_list(text, |s| {
        Precision::parse(s)
            .filter(|p| PRECISIONS.contains(p))
            .ok_or_else(|| {
                ParseError(format!(
                    "unknown precision '{s}'; accepted: {} (or dp,sp,hp)",
                    precision_names().join(",")
                ))
            })
    })
}

/// `--n`: matrix orders from 1 to [`MAX_N`].
fn orders(text: &str) -> Result<List<usize>, ParseError> {
    parse_list(text, |s| match s.parse::<usize>() {
        Ok(n) if (1..=MAX_N).contains(&n) => Ok(n),
        _ => Err(ParseError(format!(
            "'{s}' is not a matrix order; use whole numbers from 1 to {MAX_N}, e.g. 1000,4000"
        ))),
    })
}

/// `--blas`: the choices of `choice::parse_choice`.
fn blas(text: &str) -> Result<List<BlasChoice>, ParseError> {
    parse_list(text, |s| choice::parse_choice(s).map_err(ParseError))
}

/// No check spans `peakbench linalg` flags: the options as typed.
pub(crate) fn parse(a: &LinalgOptions) -> Result<LinalgOptions, UsageError> {
    Ok(a.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(argv: &[&str]) -> Result<LinalgOptions, UsageError> {
        parse(&crate::bench::flags::try_args::<LinalgOptions>(argv)?)
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

    /// Every flag's bad value is the one line it gave before the flags were typed.
    #[test]
    fn bad_values_give_their_line() {
        for (argv, line) in [
            (&["--routine", "qr"][..], "--routine: unknown routine 'qr'; accepted: gemm,lu,roofline"),
            (&["--precision", "int8"], "--precision: unknown precision 'int8'; accepted: fp64,fp32,bf16,fp16 (or dp,sp,hp)"),
            (&["--n", "0"], "--n: '0' is not a matrix order; use whole numbers from 1 to 1048576, e.g. 1000,4000"),
            (&["--threads", "0"], "--threads: '0' is out of range; thread counts go from 1 to 4096"),
        ] {
            assert_eq!(opts(argv).unwrap_err().0, line, "{argv:?}");
        }
        let e = opts(&["--blas", "faer,eigen"]).unwrap_err().0;
        assert_eq!(
            e,
            format!(
                "--blas: unknown BLAS 'eigen'; accepted: {}",
                choice::accepted()
            )
        );
    }
}
