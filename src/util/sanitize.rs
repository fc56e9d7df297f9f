//! The one sanitiser for text that comes from outside (a network peer, a results file,
//! a tool's output) and is shown on a terminal, written to the server log, or put in a
//! Markdown or CSV export. HTML has its own escaping on top of this.
//!
//! Why: such text can carry terminal escape sequences (ESC, BEL: retitle or clear the
//! terminal, fake a prompt), newlines (forge extra log or table lines), bidirectional
//! overrides (make text read differently than it is), or be megabytes long. Every
//! control and format character is written as a visible escape (`\x1b`, `\n`,
//! `\u{202e}`), so nothing is lost from view and nothing acts; the length is capped
//! with an ellipsis.

/// Default cap, in characters, for one field or message.
pub(crate) const MAX_CHARS: usize = 1000;

/// `text` made safe for one line of a terminal, log or export: escapes, at most
/// [`MAX_CHARS`] characters (then `…`).
pub(crate) fn line(text: &str) -> String {
    line_max(text, MAX_CHARS)
}

/// [`line()`] with a cap of `max` characters of the input.
pub(crate) fn line_max(text: &str, max: usize) -> String {
    let mut out = String::with_capacity(text.len().min(max + 8));
    for (i, c) in text.chars().enumerate() {
        if i == max {
            out.push('…');
            break;
        }
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if needs_escape(c) => {
                if (c as u32) < 0x100 {
                    out.push_str(&format!("\\x{:02x}", c as u32));
                } else {
                    out.push_str(&format!("\\u{{{:x}}}", c as u32));
                }
            }
            c => out.push(c),
        }
    }
    out
}

/// An error message for stderr, whatever text it quotes (a flag's value, a file's
/// field): each of its lines through [`line()`], so a value can neither act on the
/// terminal nor forge lines, while a message's own line breaks stay.
pub fn message(text: &str) -> String {
    text.lines().map(line).collect::<Vec<_>>().join("\n")
}

/// Whether the text would be changed by [`line_max`] with no length cap.
pub fn is_clean(text: &str) -> bool {
    !text
        .chars()
        .any(|c| c == '\n' || c == '\r' || c == '\t' || needs_escape(c))
}

/// Control characters (C0, DEL, C1) and the invisible format characters that reorder
/// or hide text (bidi embeddings/overrides/isolates, zero-width marks, BOM).
pub(crate) fn needs_escape(c: char) -> bool {
    c.is_control()
        || matches!(c,
            '\u{200b}'..='\u{200f}'
            | '\u{202a}'..='\u{202e}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{2069}'
            | '\u{feff}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_what_acts_on_a_terminal() {
        assert_eq!(line("a\x1b[2Jb\x07c"), "a\\x1b[2Jb\\x07c");
        assert_eq!(line("one\ntwo\r\tthree"), "one\\ntwo\\r\\tthree");
        assert_eq!(line("x\u{9b}y\u{7f}"), "x\\x9by\\x7f");
        assert_eq!(line("abc\u{202e}cba"), "abc\\u{202e}cba");
        // Ordinary text, Unicode included, is untouched.
        assert_eq!(line("µs, 76.9 GFLOP/s | ok"), "µs, 76.9 GFLOP/s | ok");
        assert!(is_clean("µs ok") && !is_clean("a\nb") && !is_clean("\x1b"));
    }

    #[test]
    fn caps_the_length() {
        let big = "A".repeat(250 * 1024);
        let s = line(&big);
        assert_eq!(s.chars().count(), MAX_CHARS + 1);
        assert!(s.ends_with('…'));
        assert_eq!(line_max("abcdef", 3), "abc…");
        assert_eq!(line_max("abc", 3), "abc");
        // Escapes never let the output grow without bound either.
        let esc = "\x1b".repeat(250 * 1024);
        assert!(line(&esc).len() <= 4 * MAX_CHARS + 3);
    }
}
