//! What `--blas` names: the built-in faer, every library found (`auto`), a family by
//! name (a row of [`KNOWN`], which says the files tried and how to install it), or a
//! file. Parsed here,
//! apart from the backends that load them, so the options take it without importing
//! the backends (which take the options' routines).

pub(crate) use super::blas::{known, Known, KNOWN};
use std::path::PathBuf;

/// One `--blas` item, as parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum BlasChoice {
    /// faer and every performance library found (not those whose row says why not).
    Auto,
    /// faer, built in.
    Faer,
    /// A family by name (one of [`KNOWN`]).
    Named(&'static str),
    /// A file to load.
    Path(PathBuf),
}

/// Every name `--blas` accepts besides a path: `auto`, `faer`, then each row of
/// [`KNOWN`] in order (for typed flags and their help).
pub(crate) fn names() -> Vec<&'static str> {
    let mut v = vec!["auto", "faer"];
    v.extend(KNOWN.iter().map(|k| k.name));
    v
}

/// The accepted form, as errors print it: `auto, faer, openblas, …, or a path to a .so`.
pub(crate) fn accepted() -> String {
    format!("{}, or a path to a .so", names().join(", "))
}

/// The `--blas` help line, the libraries listed from [`KNOWN`].
pub(crate) fn help() -> String {
    let libs: Vec<&str> = KNOWN.iter().map(|k| k.name).collect();
    format!(
        "Libraries: faer (built in), auto (faer and every BLAS found), {}, or a path to a BLAS .so; loaded at run time, one set of rows each [default: faer]",
        libs.join(", ")
    )
}

/// Parses one `--blas` item.
pub(crate) fn parse_choice(s: &str) -> Result<BlasChoice, String> {
    let l = s.to_ascii_lowercase();
    if l == "auto" {
        return Ok(BlasChoice::Auto);
    }
    if l == "faer" {
        return Ok(BlasChoice::Faer);
    }
    if let Some(k) = known(&l) {
        return Ok(BlasChoice::Named(k.name));
    }
    if s.contains('/') || s.contains(".so") {
        return Ok(BlasChoice::Path(PathBuf::from(s)));
    }
    Err(format!("unknown BLAS '{s}'; accepted: {}", accepted()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue #34 item 4: the family table is the one source of the `--blas` names, the
    /// help and the accepted-values error.
    #[test]
    fn every_row_is_a_unique_name_in_the_help_and_the_error() {
        let names = names();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), names.len(), "{names:?}");
        let help = help();
        let err = parse_choice("eigen").unwrap_err();
        assert_eq!(
            err,
            "unknown BLAS 'eigen'; accepted: auto, faer, openblas, blis, mkl, flexiblas, atlas, armpl, nvpl, ssl2, reference, or a path to a .so"
        );
        for k in &KNOWN {
            assert!(
                help.contains(&format!(" {},", k.name)),
                "{}: {help}",
                k.name
            );
            assert!(err.contains(&format!(" {},", k.name)), "{}: {err}", k.name);
            assert_eq!(parse_choice(k.name), Ok(BlasChoice::Named(k.name)));
            assert_eq!(
                parse_choice(&k.name.to_ascii_uppercase()),
                Ok(BlasChoice::Named(k.name))
            );
            // The Arm vendors' libraries (one architecture) come from their vendors.
            assert!(
                !k.files.is_empty() && (k.install.contains("apt-get") || k.arch.is_some()),
                "{}",
                k.name
            );
            for a in k.also {
                assert!(known(a).is_some(), "{}: also {a}", k.name);
            }
        }
        // The loader asks the rows in order: every marker is distinct, and exactly one
        // row (the last) takes any other BLAS.
        let markers: Vec<Option<&str>> = KNOWN.iter().map(|k| k.marker).collect();
        assert_eq!(markers.iter().filter(|m| m.is_none()).count(), 1);
        assert!(KNOWN.last().unwrap().marker.is_none());
        let mut m: Vec<&str> = markers.iter().flatten().copied().collect();
        m.sort_unstable();
        m.dedup();
        assert_eq!(m.len(), KNOWN.len() - 1);
    }
}
