//! The one error for bad usage: a request that cannot be satisfied, as one line naming
//! the flag (or the input) and the accepted form. `main` maps it to exit code 2. It
//! lives in `util` so that every layer may return it.

/// A request that cannot be satisfied: one line naming the flag and the accepted values.
/// Build it with [`UsageError::new`]; the text is public for reading (tests, messages).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

impl UsageError {
    /// `flag: msg`, e.g. `UsageError::new("--threads", "'0' is out of range; …")`.
    pub(crate) fn new(flag: impl std::fmt::Display, msg: impl std::fmt::Display) -> UsageError {
        UsageError(format!("{flag}: {msg}"))
    }

    /// The line a flag's typed value gives when clap refuses it: a `value_parser`
    /// function's error (`ErrorKind::ValueValidation`, or `InvalidValue` with the
    /// parser's error as its source) becomes `--flag: <the parser's message>`, the line
    /// the same check gave as a [`UsageError`] before the flag was typed; a short flag's
    /// is `-o: …`, a positional argument's `NAME: …` (its value name, `[NAME]` in clap's
    /// words). `None` for every other clap error (unknown flags, a missing value, help),
    /// which keep clap's words.
    pub(crate) fn from_clap(e: &clap::Error) -> Option<UsageError> {
        use clap::error::{ContextKind, ContextValue, ErrorKind};
        if !matches!(
            e.kind(),
            ErrorKind::ValueValidation | ErrorKind::InvalidValue
        ) {
            return None;
        }
        let msg = std::error::Error::source(e)?.to_string();
        // clap names a flag with its value name, "--precision <LIST>" or "-o <FILE>", and
        // a positional argument by its value name alone: "[RESULTS.json]", "<CASE>".
        let flag = match e.get(ContextKind::InvalidArg)? {
            ContextValue::String(s) => s.split([' ', '=']).next()?.to_string(),
            _ => return None,
        };
        let name = match flag.strip_prefix(['[', '<']) {
            Some(p) => p
                .trim_end_matches('.')
                .strip_suffix([']', '>'])?
                .to_string(),
            None if flag.starts_with('-') => flag,
            None => return None,
        };
        Some(UsageError::new(
            name,
            msg.lines().next().unwrap_or_default(),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_naming_the_flag() {
        let e = UsageError::new("--threads", "'0' is out of range");
        assert_eq!(e.to_string(), "--threads: '0' is out of range");
        assert_eq!(e.0, "--threads: '0' is out of range");
    }

    /// A typed flag's parser error is the same line a `UsageError` gives; clap's own
    /// errors (unknown flag, missing value) are left to clap.
    #[test]
    fn a_value_parsers_error_is_the_usage_line() {
        fn count(s: &str) -> Result<u32, crate::util::units::ParseError> {
            s.parse().map_err(|_| {
                crate::util::units::ParseError(format!("'{s}' is not a count; use e.g. 4"))
            })
        }
        let cmd = || {
            clap::Command::new("t").arg(
                clap::Arg::new("depth")
                    .long("depth")
                    .value_name("LIST")
                    .value_parser(count),
            )
        };
        for argv in [&["t", "--depth", "x"][..], &["t", "--depth=x"]] {
            let e = cmd().try_get_matches_from(argv).unwrap_err();
            assert_eq!(
                UsageError::from_clap(&e).unwrap().0,
                "--depth: 'x' is not a count; use e.g. 4"
            );
        }
        for argv in [&["t", "--depth"][..], &["t", "--deep", "1"]] {
            let e = cmd().try_get_matches_from(argv).unwrap_err();
            assert_eq!(UsageError::from_clap(&e), None, "{argv:?}");
        }
        // A short flag, and a positional argument (optional or required), by its name.
        let cmd = |required: bool| {
            clap::Command::new("t")
                .arg(
                    clap::Arg::new("o")
                        .short('o')
                        .value_name("FILE")
                        .value_parser(count),
                )
                .arg(
                    clap::Arg::new("n")
                        .value_name("N.json")
                        .required(required)
                        .value_parser(count),
                )
        };
        for (argv, line) in [
            (&["t", "-o", "x"][..], "-o: 'x' is not a count; use e.g. 4"),
            (&["t", "y"], "N.json: 'y' is not a count; use e.g. 4"),
        ] {
            for required in [false, true] {
                let e = cmd(required).try_get_matches_from(argv).unwrap_err();
                assert_eq!(UsageError::from_clap(&e).unwrap().0, line, "{argv:?}");
            }
        }
    }
}
