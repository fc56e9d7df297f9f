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
/// A line over [`MAX_CHARS`] keeps its start and its end, the middle left out with
/// how much, since a message ends with its reason and the fix (issue #45: a long value
/// quoted first pushed the reason past the cap).
pub fn message(text: &str) -> String {
    text.lines()
        .map(|l| {
            let n = l.chars().count();
            if n <= MAX_CHARS {
                return line(l);
            }
            let keep = MAX_CHARS / 2;
            let head: String = l.chars().take(keep).collect();
            let tail: String = l.chars().skip(n - keep).collect();
            format!(
                "{} … ({} characters left out) … {}",
                line(&head),
                n - 2 * keep,
                line(&tail)
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// `bytes` (a file name or path, not necessarily UTF-8) as one argument for a POSIX
/// shell command shown to the user: `'…'` when it is clean text, else bash's `$'…'`
/// with every escaped character's bytes as `\xHH`, so the command still names the
/// real file while no control character reaches the terminal (issue #33 item 12).
pub(crate) fn shell_arg(bytes: &[u8]) -> String {
    let clean = std::str::from_utf8(bytes).is_ok_and(is_clean);
    if clean {
        let s = String::from_utf8_lossy(bytes);
        return format!("'{}'", s.replace('\'', "'\\''"));
    }
    let mut o = String::from("$'");
    let hex = |o: &mut String, b: &[u8]| {
        for x in b {
            o.push_str(&format!("\\x{x:02x}"));
        }
    };
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '\\' => o.push_str("\\\\"),
                '\'' => o.push_str("\\'"),
                c if c == '\n' || c == '\r' || c == '\t' || needs_escape(c) => {
                    hex(&mut o, c.encode_utf8(&mut [0; 4]).as_bytes())
                }
                c => o.push(c),
            }
        }
        hex(&mut o, chunk.invalid());
    }
    o.push('\'');
    o
}

/// Whether the text would be changed by [`line_max`] with no length cap.
pub fn is_clean(text: &str) -> bool {
    !text
        .chars()
        .any(|c| c == '\n' || c == '\r' || c == '\t' || needs_escape(c))
}

/// Whether `c` is written as a visible escape: by its Unicode general category, so the
/// rule needs no list kept up to date by hand (issue #33 item 8: a list missed U+061C,
/// U+2028/2029, the tag characters, U+00AD, U+180E, U+206A–206F, U+FFF9–FFFB):
///
/// - `Cc`: C0 controls, DEL, C1 controls (ESC, BEL, CSI act on a terminal);
/// - `Cf`: format characters, every bidi control among them (U+061C, U+200E/F,
///   U+202A–202E, U+2066–2069), zero-width marks, the soft hyphen, the BOM, the
///   deprecated format characters U+206A–206F, the interlinear annotations
///   U+FFF9–FFFB and the tag characters U+E0001, U+E0020–E007F;
/// - `Zl`, `Zp`: U+2028 and U+2029, which many viewers take for line breaks;
/// - `Cn`: unassigned code points and noncharacters (nothing can say how they show);
/// - the blank letters and marks that are default-ignorable without being `Cf`
///   (Hangul fillers U+115F, U+1160, U+3164, U+FFA0; U+034F, U+17B4, U+17B5): they show
///   nothing, so a name of them looks empty or like another.
///
/// Private-use characters (icon fonts), variation selectors (emoji presentation) and
/// spaces other than U+0020 are shown as they are.
pub(crate) fn needs_escape(c: char) -> bool {
    use unicode_properties::{GeneralCategory as G, UnicodeGeneralCategory};
    if c.is_ascii() {
        return c.is_ascii_control();
    }
    matches!(
        c.general_category(),
        G::Control | G::Format | G::LineSeparator | G::ParagraphSeparator | G::Unassigned
    ) || matches!(
        c,
        '\u{115f}' | '\u{1160}' | '\u{3164}' | '\u{ffa0}' | '\u{34f}' | '\u{17b4}' | '\u{17b5}'
    )
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

    /// Issue #33 item 8: every character the list missed is escaped, by its category.
    #[test]
    fn issue_33_format_separator_and_blank_characters_are_escaped() {
        let missed = [
            '\u{61c}',
            '\u{2028}',
            '\u{2029}',
            '\u{e0001}',
            '\u{e0041}',
            '\u{e007f}',
            '\u{ad}',
            '\u{180e}',
            '\u{206a}',
            '\u{206f}',
            '\u{fff9}',
            '\u{fffb}',
            '\u{3164}',
            '\u{115f}',
            '\u{ffa0}',
            '\u{fffe}',
            '\u{10ffff}',
        ];
        for c in missed {
            let s = line(&format!("a{c}b"));
            assert!(!s.contains(c), "U+{:04X} written raw: {s:?}", c as u32);
            assert!(s.starts_with("a\\") && s.ends_with('b'), "{s:?}");
            assert!(!is_clean(&c.to_string()), "U+{:04X}", c as u32);
        }
        assert_eq!(line("x\u{2028}y"), "x\\u{2028}y");
        assert_eq!(line("x\u{ad}y"), "x\\xady");
        // Text in any script, symbols, emoji with their selectors, private-use icons
        // and the no-break space stay as they are.
        for ok in [
            "Grüße, 東京, Ελλάδα, עברית, العربية, हिन्दी, 한국어",
            "≤ ±5 % → 76.9 GB/s ✓ 🚀 ❤\u{fe0f}",
            "\u{e0b0} nerd-font icon, 1\u{a0}000",
        ] {
            assert_eq!(line(ok), ok);
            assert!(is_clean(ok), "{ok}");
        }
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

    /// Issue #45: an error quoting a long value lost its reason at the cap.
    #[test]
    fn a_long_message_keeps_its_reason() {
        let m = format!(
            "--dir: {} is not usable (No such file or directory); give an existing directory",
            "x/".repeat(2000)
        );
        let s = message(&m);
        assert!(s.starts_with("--dir: x/x/"), "{s}");
        assert!(
            s.ends_with("is not usable (No such file or directory); give an existing directory"),
            "{s}"
        );
        assert!(s.contains(" characters left out) … "), "{s}");
        assert!(s.chars().count() < MAX_CHARS + 60);
        assert_eq!(message("short\nlines"), "short\nlines");
    }
}
