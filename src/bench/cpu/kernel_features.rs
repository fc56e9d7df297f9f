//! Each CPU kernel is compiled for the features its row requires (tests only). A kernel's
//! features are written twice: in its arch file, as the `#[target_feature(enable = "…")]`
//! of its function (the literal its kernel macro is given, `zmm_kernel!(name, clock,
//! "avx512f", …)`), which lets the compiler take those instructions as present; and in
//! its row of the table (kernels.rs), as `requires`, which the CPU must have before the
//! function is called. This test reads the literals from the arch files' text and the
//! rows from the table itself, and fails naming every kernel where the two differ: a
//! feature compiled for but not required would let the function run on a CPU without
//! it; a feature required but not compiled for says the row asks for what the function
//! does not use.
//!
//! Two kinds of difference are by design: SVE's optional parts have detection names of
//! their own (`sve-i8mm`, `sve-bf16`) where the compiler knows one feature (`i8mm`,
//! `bf16`), and Rust 1.95 cannot enable the AMX features (`amx-tile`, `amx-int8`,
//! `amx-bf16` are unstable target features), so the AMX kernels are compiled for none.

use super::kernel::Kernel;
use std::collections::{BTreeMap, BTreeSet};

/// The kernel macros of the arch files and which argument (from 0) is the features
/// literal; `None`: the macro compiles its kernel for no extra feature.
const MACROS: &[(&str, Option<usize>)] = &[
    ("xmm_kernel", Some(2)),
    ("ymm_kernel", Some(2)),
    ("zmm_kernel", Some(2)),
    ("neon_kernel", Some(1)),
    ("sve_kernel", Some(1)),
    ("amx_kernel", None),
];

/// Detection names (`requires`) whose target feature has another name.
const RUST_NAME: &[(&str, &str)] = &[("sve-i8mm", "i8mm"), ("sve-bf16", "bf16")];

/// Features a row may require that no stable Rust can enable (see the module text).
const NOT_ENABLEABLE: &[&str] = &["amx-tile", "amx-int8", "amx-bf16"];

/// The arguments of the macro call whose `(` is at `open`, split at top-level commas
/// (string literals, with their escapes and parentheses, kept whole), and the index
/// after its `)`.
fn call_args(src: &str, open: usize) -> (Vec<String>, usize) {
    let b = src.as_bytes();
    let (mut depth, mut i, mut start) = (0usize, open, open + 1);
    let mut args = Vec::new();
    while i < b.len() {
        match b[i] {
            b'"' => {
                i += 1;
                while b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'(' | b'[' => depth += 1,
            b')' | b']' => {
                depth -= 1;
                if depth == 0 {
                    args.push(src[start..i].trim().to_string());
                    return (args, i + 1);
                }
            }
            b',' if depth == 1 => {
                args.push(src[start..i].trim().to_string());
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    panic!("unclosed macro call at byte {open}");
}

/// The features each kernel function of an arch file's text is compiled for, by name:
/// from the top-level kernel macro calls (a line starting `zmm_kernel!(`; the first
/// argument is the function, after an optional `fma` marker) and from hand-written
/// functions (`#[target_feature(enable = "…")]` at the start of a line, then `fn name(`).
fn compiled(src: &str) -> BTreeMap<String, BTreeSet<String>> {
    let split = |lit: &str| -> BTreeSet<String> {
        let inner = lit.strip_prefix('"').and_then(|l| l.strip_suffix('"'));
        let inner = inner.unwrap_or_else(|| panic!("features {lit} are not a string literal"));
        inner.split(',').map(str::to_string).collect()
    };
    let mut out = BTreeMap::new();
    let mut at = 0;
    for line in src.split_inclusive('\n') {
        for &(mac, features) in MACROS {
            if line.starts_with(&format!("{mac}!(")) {
                let (args, _) = call_args(src, at + mac.len() + 1);
                let name = args[0]
                    .strip_prefix("fma ")
                    .unwrap_or(&args[0])
                    .trim()
                    .to_string();
                let f = features.map(|i| split(&args[i])).unwrap_or_default();
                assert!(out.insert(name.clone(), f).is_none(), "{name} twice");
            }
        }
        if let Some(rest) = line.strip_prefix("#[target_feature(enable = ") {
            let lit = &rest[..rest.find(")]").expect("a closed attribute")];
            let after = &src[at + line.len()..];
            let name = after[after.find("fn ").expect("a function") + 3..]
                .split('(')
                .next()
                .unwrap()
                .to_string();
            out.insert(name, split(lit));
        }
        at += line.len();
    }
    out
}

/// The features a row requires, in the compiler's names, less those no stable Rust can
/// enable.
fn required(k: &Kernel) -> BTreeSet<String> {
    k.requires
        .iter()
        .filter(|f| !NOT_ENABLEABLE.contains(f))
        .map(|f| {
            let rust = RUST_NAME.iter().find(|(d, _)| d == f).map(|(_, r)| *r);
            rust.unwrap_or(f).to_string()
        })
        .collect()
}

/// Every row of `table` against the functions of `files`: each row's function is found
/// there, compiled for exactly the features the row requires, and each kernel function
/// found has a row. The messages, one per disagreement.
fn disagreements(table: &[Kernel], files: &[&str]) -> Vec<String> {
    let mut fns = BTreeMap::new();
    for f in files {
        fns.extend(compiled(f));
    }
    let mut bad = Vec::new();
    for k in table {
        match fns.get(k.name) {
            None => bad.push(format!("{}: no kernel function of that name", k.name)),
            Some(c) if *c != required(k) => bad.push(format!(
                "{}: compiled for {c:?}, its row requires {:?}",
                k.name, k.requires
            )),
            Some(_) => {}
        }
    }
    for name in fns.keys() {
        if !table.iter().any(|k| k.name == name) {
            bad.push(format!("{name}: a kernel function without a row"));
        }
    }
    bad
}

#[cfg(target_arch = "x86_64")]
#[test]
fn every_x86_kernel_is_compiled_for_what_its_row_requires() {
    let files = [include_str!("x86.rs"), include_str!("amx.rs")];
    let bad = disagreements(super::kernels::X86, &files);
    assert!(
        bad.is_empty(),
        "kernel features disagree:\n{}",
        bad.join("\n")
    );
}

#[cfg(target_arch = "aarch64")]
#[test]
fn every_arm_kernel_is_compiled_for_what_its_row_requires() {
    let bad = disagreements(super::kernels::ARM, &[include_str!("arm.rs")]);
    assert!(
        bad.is_empty(),
        "kernel features disagree:\n{}",
        bad.join("\n")
    );
}

/// The generic kernels are plain Rust for every CPU: no row requires a feature and no
/// function enables one.
#[test]
fn generic_kernels_need_no_feature() {
    assert!(super::kernels::GENERIC
        .iter()
        .all(|k| k.requires.is_empty()));
    assert!(!include_str!("generic.rs").contains("target_feature"));
}

/// The reader of the arch files sees every form, and a disagreement in either direction
/// is named.
#[test]
fn the_feature_reader_sees_every_form() {
    let src = r#"macro_rules! zmm_kernel {
    ($name:ident) => { #[target_feature(enable = $features)] };
}
zmm_kernel!(
    fma fma_f64_avx512,
    fma_f64_avx512_clock,
    "avx512f",
    "vfmadd132pd zmm\\r, zmm31, zmm30"
);
neon_kernel!(fma_f16_neon, "neon,fp16", "fmla v\\r\\().8h, v30.8h, v31.8h");
amx_kernel!(tdp_i8_amx, "tdpbssd");
#[target_feature(enable = "avx,fma,f16c")]
pub(super) unsafe fn fma_f16_f16c(iters: u64) {}
"#;
    let got = compiled(src);
    let set = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<BTreeSet<_>>();
    assert_eq!(got.len(), 4, "{got:?}");
    assert_eq!(got["fma_f64_avx512"], set(&["avx512f"]));
    assert_eq!(got["fma_f16_neon"], set(&["neon", "fp16"]));
    assert_eq!(got["tdp_i8_amx"], set(&[]));
    assert_eq!(got["fma_f16_f16c"], set(&["avx", "fma", "f16c"]));
    let row = |name: &'static str, requires: &'static [&'static str]| {
        let mut k = super::kernels::GENERIC[0];
        k.name = name;
        k.requires = requires;
        k
    };
    let rows = [
        row("fma_f64_avx512", &["avx512f", "avx512dq"]),
        row("fma_f16_neon", &["neon"]),
        row("tdp_i8_amx", &["amx-tile", "amx-int8"]),
        row("fma_f16_f16c", &["avx", "fma", "f16c"]),
        row("smmla_i8_sve", &["sve", "sve-i8mm"]),
    ];
    let sve = "sve_kernel!(smmla_i8_sve, \"sve,i8mm\", \"smmla z\\\\r\\\\().s, z30.b, z31.b\");\n";
    let extra = "sve_kernel!(orphan, \"sve\", \"x\");\n";
    assert_eq!(
        disagreements(&rows, &[src, sve, extra]),
        [
            "fma_f64_avx512: compiled for {\"avx512f\"}, its row requires [\"avx512f\", \"avx512dq\"]",
            "fma_f16_neon: compiled for {\"fp16\", \"neon\"}, its row requires [\"neon\"]",
            "orphan: a kernel function without a row",
        ]
    );
}
