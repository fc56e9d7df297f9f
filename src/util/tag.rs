//! A run's tag, `KEY=VALUE` (issue #44 item 9): the operator's note on a run ("after
//! BIOS update"), given to a measuring run (`--tag`), set later (`history tag`) and
//! named as a fixed reference (`check --against tag:KEY[=VALUE]`). One rule for the
//! three, here at the bottom so that every layer that reads a tag checks it the same
//! way: a key of letters, digits, `_`, `-`, `.` (1 to [`MAX_KEY`] bytes), a value of
//! printable text of at most [`MAX_VALUE`] characters.

use super::units::ParseError;

/// Longest key, in bytes (ASCII only).
pub(crate) const MAX_KEY: usize = 64;

/// Longest value, in characters.
pub(crate) const MAX_VALUE: usize = 200;

/// Most tags one run carries (`--tag` given more often is refused).
pub(crate) const MAX_TAGS: usize = 32;

/// The accepted form, as refusals end.
pub(crate) const FORM: &str = "give key=value, the key letters, digits, '_', '-' or '.' (at most 64), the value printable text of at most 200 characters";

/// Whether `k` is a tag key.
pub(crate) fn key_ok(k: &str) -> bool {
    !k.is_empty()
        && k.len() <= MAX_KEY
        && k.chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-.".contains(c))
}

/// Whether `v` is a tag value (empty is one: `history tag` removes the key with it).
pub(crate) fn value_ok(v: &str) -> bool {
    v.chars().count() <= MAX_VALUE
        && !v.chars().any(char::is_control)
        && super::sanitize::is_clean(v)
}

/// `KEY=VALUE`, both trimmed; `allow_empty` says whether an empty value is accepted
/// (`history tag`: it removes the key; a measuring run's `--tag`: it is not).
pub(crate) fn parse(t: &str, allow_empty: bool) -> Result<(String, String), ParseError> {
    let shown = super::sanitize::line_max(t, 60);
    let (k, v) = t
        .split_once('=')
        .ok_or_else(|| ParseError(format!("'{shown}' has no '='; {FORM}")))?;
    let (k, v) = (k.trim(), v.trim());
    if !key_ok(k) || !value_ok(v) {
        return Err(ParseError(format!("'{shown}' is not a tag; {FORM}")));
    }
    if v.is_empty() && !allow_empty {
        return Err(ParseError(format!(
            "'{shown}' has an empty value; {FORM} (e.g. note=after-bios-update)"
        )));
    }
    Ok((k.to_string(), v.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_values_and_refusals() {
        assert_eq!(
            parse(" note = after BIOS update ", false).unwrap(),
            ("note".into(), "after BIOS update".into())
        );
        assert_eq!(parse("k=", true).unwrap(), ("k".into(), String::new()));
        assert!(parse("k=", false).unwrap_err().0.contains("empty value"));
        assert!(parse("novalue", false)
            .unwrap_err()
            .0
            .contains("has no '='"));
        assert!(parse("a b=1", false)
            .unwrap_err()
            .0
            .contains("is not a tag"));
        assert!(parse(&format!("{}=1", "k".repeat(65)), false).is_err());
        assert!(parse(&format!("k={}", "v".repeat(201)), false).is_err());
        assert!(parse("k=a\u{1b}[31m", false).is_err());
        assert!(key_ok("bios.version-2_1"));
    }
}
