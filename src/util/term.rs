//! The terminal: how wide the text views may be, and word wrapping to that width.
//!
//! The width comes from `--width` (tests, scripts), else `COLUMNS` (set by shells and
//! by `tmux`), else the size of the terminal on stdout; output that goes to a file or a
//! pipe has no width limit unless one of the first two says so.

use std::io::IsTerminal;

/// Narrowest width the views lay out for; below it they keep this width.
pub(crate) const MIN_WIDTH: usize = 40;

/// The width for text on stdout: `COLUMNS` when it is a positive number, else the
/// terminal's when stdout is one, else `None` (no limit).
pub(crate) fn stdout_width() -> Option<usize> {
    if let Some(c) = std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse::<usize>().ok())
        .filter(|&c| c > 0)
    {
        return Some(c);
    }
    if !std::io::stdout().is_terminal() {
        return None;
    }
    terminal_columns(libc::STDOUT_FILENO)
}

/// The width for lines on stderr: `COLUMNS`, else the terminal's when stderr is one,
/// else `None`.
pub(crate) fn stderr_width() -> Option<usize> {
    if let Some(c) = std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse::<usize>().ok())
        .filter(|&c| c > 0)
    {
        return Some(c);
    }
    if !std::io::stderr().is_terminal() {
        return None;
    }
    terminal_columns(libc::STDERR_FILENO)
}

/// The column count of the terminal on `fd` (TIOCGWINSZ), if it says.
fn terminal_columns(fd: libc::c_int) -> Option<usize> {
    let mut ws = libc::winsize {
        ws_row: 0,
        ws_col: 0,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    // SAFETY: TIOCGWINSZ writes one `winsize` into the struct we own; a failure leaves
    // it untouched and returns -1.
    let rc = unsafe { libc::ioctl(fd, libc::TIOCGWINSZ, &mut ws) };
    (rc == 0 && ws.ws_col > 0).then_some(ws.ws_col as usize)
}

/// Number of characters as a terminal shows them (one column per `char`: the views
/// print no wide characters).
pub(crate) fn len(s: &str) -> usize {
    s.chars().count()
}

/// Wraps `text` into lines of at most `width` characters: the first line starts with
/// `first`, the others with `indent` spaces. Words longer than a line are cut. `None`
/// keeps one line.
pub(crate) fn wrap(first: &str, text: &str, indent: usize, width: Option<usize>) -> Vec<String> {
    let Some(width) = width else {
        return vec![format!("{first}{text}")];
    };
    let width = width.max(indent + 10);
    let pad = " ".repeat(indent);
    let mut lines = Vec::new();
    let mut line = first.to_string();
    let mut fresh = true; // nothing but the prefix on `line` yet
    for word in text.split_whitespace() {
        let mut word = word.to_string();
        loop {
            let room = width.saturating_sub(len(&line) + usize::from(!fresh));
            if len(&word) <= room {
                if !fresh {
                    line.push(' ');
                }
                line.push_str(&word);
                fresh = false;
                break;
            }
            if !fresh {
                lines.push(std::mem::replace(&mut line, pad.clone()));
                fresh = true;
                continue;
            }
            // A word longer than a whole line: cut it.
            let cut: String = word.chars().take(room.max(1)).collect();
            word = word.chars().skip(len(&cut)).collect();
            line.push_str(&cut);
            lines.push(std::mem::replace(&mut line, pad.clone()));
        }
    }
    if !fresh || lines.is_empty() {
        lines.push(line);
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrap_keeps_every_line_within_the_width() {
        let text = "clock readings before the samples and after each: 3.21, 3.22, 3.15 GHz; \
                    averyveryveryveryveryveryverylongwordthatmustbecut and more";
        for w in [20, 40, 80] {
            let lines = wrap("note: ", text, 4, Some(w));
            assert!(lines.iter().all(|l| len(l) <= w), "{lines:?}");
            assert!(lines[0].starts_with("note: clock"));
            assert!(lines[1..].iter().all(|l| l.starts_with("    ")));
            let joined: String = lines.concat().split_whitespace().collect();
            let want: String = format!("note: {text}").split_whitespace().collect();
            assert_eq!(joined, want);
        }
        assert_eq!(wrap("a: ", "b c", 2, None), vec!["a: b c"]);
    }
}
