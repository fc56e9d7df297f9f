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
}
