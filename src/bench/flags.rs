//! Typed flags at the clap boundary (issue #34 item 2): what the resources' options
//! share to parse a flag's value where clap reads it. A flag's `value_parser` returns
//! the typed value or a [`ParseError`] with the message its check always gave; clap
//! refuses the line with it and `cmdline` prints it as `--flag: message` (exit 2),
//! the line a `UsageError` gives. Checks that span flags stay in each resource's
//! `parse`.

use crate::util::units::ParseError;
use clap::builder::{PossibleValue, TypedValueParser};
use std::ffi::OsStr;

/// A comma-separated flag's values, parsed whole by its `value_parser`. Named through
/// this alias because clap's derive reads a field written `Vec<T>` as a flag given
/// several times, each value parsed on its own.
pub(crate) type List<T> = Vec<T>;

/// A `value_parser` whose accepted names come from the registry that holds them, so
/// the help lists them (`[possible values: …]`) from the same table the parser and
/// its error read: help and errors cannot drift. The parse itself (lists, aliases,
/// case) and its messages are the parser function's.
#[derive(Clone)]
pub(crate) struct Choices<T> {
    parse: fn(&str) -> Result<T, ParseError>,
    names: fn() -> Vec<&'static str>,
}

impl<T> Choices<T> {
    /// `parse` reads the flag's value; `names` are the choices shown in help.
    pub(crate) fn new(
        parse: fn(&str) -> Result<T, ParseError>,
        names: fn() -> Vec<&'static str>,
    ) -> Choices<T> {
        Choices { parse, names }
    }
}

impl<T: Clone + Send + Sync + 'static> TypedValueParser for Choices<T> {
    type Value = T;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<T, clap::Error> {
        self.parse.parse_ref(cmd, arg, value)
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new((self.names)().into_iter().map(PossibleValue::new)))
    }
}

/// Most threads accepted per case: far beyond any oversubscription worth measuring
/// (this file imports nothing of `bench`, so that the options files that use it stay
/// out of import circles through `common`).
pub(crate) const MAX_THREADS: usize = 4096;

/// `--threads`: a list of thread counts, whole numbers from 1 to [`MAX_THREADS`] (every
/// resource's `--threads`, `reference --threads` and `null --threads`).
pub(crate) fn threads(text: &str) -> Result<List<usize>, ParseError> {
    crate::util::units::parse_list(text, |s| {
        let n: usize = s.parse().map_err(|_| {
            ParseError(format!(
                "'{s}' is not a thread count; use whole numbers like 1,2,4,8"
            ))
        })?;
        if n == 0 || n > MAX_THREADS {
            return Err(ParseError(format!(
                "'{s}' is out of range; thread counts go from 1 to {MAX_THREADS}"
            )));
        }
        Ok(n)
    })
}

/// `v` with each value once, first occurrence first.
pub(crate) fn dedup<T: PartialEq>(v: Vec<T>) -> Vec<T> {
    let mut out: Vec<T> = Vec::with_capacity(v.len());
    for x in v {
        if !out.contains(&x) {
            out.push(x);
        }
    }
    out
}

/// Parses `argv` (flags only) as the clap arguments `A`; a typed flag's bad value is
/// the `UsageError` line the command line prints (tests of a resource's flags).
#[cfg(test)]
pub(crate) fn try_args<A: clap::Args + clap::FromArgMatches>(
    argv: &[&str],
) -> Result<A, crate::util::usage::UsageError> {
    let cmd = A::augment_args(clap::Command::new("test"));
    let m = cmd
        .try_get_matches_from(std::iter::once("test").chain(argv.iter().copied()))
        .map_err(|e| {
            crate::util::usage::UsageError::from_clap(&e)
                .unwrap_or_else(|| panic!("{argv:?}: not a value error: {e}"))
        })?;
    Ok(A::from_arg_matches(&m).unwrap())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn threads_keep_their_message_and_lists_their_order() {
        assert_eq!(threads("1,2,4").unwrap(), [1, 2, 4]);
        assert_eq!(
            threads("0").unwrap_err().0,
            "'0' is out of range; thread counts go from 1 to 4096"
        );
        assert_eq!(dedup(vec![3, 1, 3, 2, 1]), [3, 1, 2]);
    }
}
