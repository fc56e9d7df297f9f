//! The terminal: how wide the text views may be, and word wrapping to that width.
//!
//! The width comes from `--width` (tests, scripts), else `COLUMNS` (set by shells and
//! by `tmux`), else the size of the terminal on stdout; output that goes to a file or a
//! pipe is [`PIPE_WIDTH`] wide unless one of the first two says otherwise.

use std::io::IsTerminal;

/// Narrowest width the views lay out for; below it they keep this width.
pub(crate) const MIN_WIDTH: usize = 40;

/// The width of text on stdout when it goes to a file or a pipe and `COLUMNS` is not
/// set: wide enough for the results table's main columns, narrow enough to read in
/// a pager or a diff (`--width` sets any other).
pub(crate) const PIPE_WIDTH: usize = 120;

/// The one frame of every terminal table (comfy-table preset): a line under the
/// header, vertical lines between columns, no outer border, so 3 characters between
/// columns.
pub(crate) const PRESET: &str = "     ─┼ │          ";

/// The width for text on stdout: `COLUMNS` when it is a positive number, else the
/// terminal's when stdout is one, else [`PIPE_WIDTH`] (a file or a pipe).
pub(crate) fn stdout_width() -> Option<usize> {
    stdout_columns().or(Some(PIPE_WIDTH))
}

/// The columns stdout is known to have: `COLUMNS` when it is a positive number, else
/// the terminal's when stdout is one; `None` for a file or a pipe (the help then keeps
/// its own default, 80).
pub(crate) fn stdout_columns() -> Option<usize> {
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

/// Lets a comfy-table table wrap its cells to fit `width` columns (`None`: no limit,
/// every cell on one line). The tables of `sysinfo`, `gpu --list` and `reference`
/// go through here; the results and compare tables lay out their own columns.
pub(crate) fn fit_table(t: &mut comfy_table::Table, width: Option<usize>) {
    if let Some(w) = width {
        t.set_content_arrangement(comfy_table::ContentArrangement::Dynamic)
            .set_width(u16::try_from(w.max(MIN_WIDTH)).unwrap_or(u16::MAX));
    }
}

/// A table's text in the one frame ([`PRESET`]): its lines with no trailing spaces
/// (the frame pads the last column), joined with newlines (none at the end). A table
/// fitted to a width keeps its words whole ([`keep_words`]), as records where they
/// cannot stand side by side ([`records`]).
pub(crate) fn table_text(t: &comfy_table::Table) -> String {
    let mut t = t.clone();
    if !keep_words(&mut t) {
        return records(&t);
    }
    t.lines()
        .map(|l| l.trim_end().to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

/// A table too narrow for its words, as records: each row's first cell on a line,
/// then its other cells as `header: value` pairs, wrapped between words to the width
/// (issue #45: at 80 columns `check` cut `baselin`/`e`, `toleran`/`ce`).
fn records(t: &comfy_table::Table) -> String {
    let width = t.width().map(usize::from);
    let one = |s: String| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let headers: Vec<String> = t
        .header()
        .map(|h| h.cell_iter().map(|c| one(c.content())).collect())
        .unwrap_or_default();
    let mut out = Vec::new();
    for row in t.row_iter() {
        let cells: Vec<String> = row.cell_iter().map(|c| one(c.content())).collect();
        let Some((first, rest)) = cells.split_first() else {
            continue;
        };
        let head = match headers.first() {
            Some(h) if !h.is_empty() => format!("{h}: {first}"),
            _ => first.clone(),
        };
        out.extend(wrap("", &head, 4, width));
        let pairs: Vec<String> = rest
            .iter()
            .enumerate()
            .filter(|(_, v)| !v.is_empty())
            .map(|(i, v)| match headers.get(i + 1) {
                Some(h) if !h.is_empty() => format!("{h}: {v}"),
                _ => v.clone(),
            })
            .collect();
        out.extend(pair_lines(&pairs, width));
    }
    out.join("\n")
}

/// `pairs` (`header: value`) on lines indented by two, `; ` between them, a pair broken
/// over lines only when it is longer than a line: a value stays with its header and
/// its unit.
fn pair_lines(pairs: &[String], width: Option<usize>) -> Vec<String> {
    let w = width.unwrap_or(usize::MAX);
    let mut out = Vec::new();
    let mut line = "  ".to_string();
    let mut empty = true;
    for (k, p) in pairs.iter().enumerate() {
        let text = if k + 1 < pairs.len() {
            format!("{p};")
        } else {
            p.clone()
        };
        let sep = usize::from(!empty);
        if len(&line) + sep + len(&text) <= w {
            if !empty {
                line.push(' ');
            }
            line.push_str(&text);
            empty = false;
            continue;
        }
        if !empty {
            out.push(std::mem::replace(&mut line, "    ".to_string()));
        }
        if len(&line) + len(&text) <= w {
            line.push_str(&text);
        } else {
            let mut ls = wrap(&line, &text, 4, Some(w));
            line = ls.pop().unwrap_or_default();
            out.extend(ls);
        }
        empty = false;
    }
    if !empty {
        out.push(line);
    }
    out
}

/// Gives each column of a table fitted to a width at least the width of its longest
/// word, so comfy-table wraps cells between words (issue #45: `baselin`/`e`,
/// `precisio`/`n=fp64` at 80 columns). `false` when the longest words of all columns
/// do not fit side by side: the table is then better shown as [`records`].
fn keep_words(t: &mut comfy_table::Table) -> bool {
    use comfy_table::{ColumnConstraint, Width};
    let Some(width) = t.width() else {
        return true;
    };
    if t.column_iter().any(|c| c.constraint().is_some()) {
        // Laid out by its own table code.
        return true;
    }
    let n = t.column_count();
    let mut longest = vec![0usize; n];
    let rows = t.header().into_iter().chain(t.row_iter());
    for row in rows {
        for (i, cell) in row.cell_iter().enumerate().take(n) {
            for word in cell.content().split_whitespace() {
                longest[i] = longest[i].max(len(word));
            }
        }
    }
    // The frame: 1 character of padding each side and 1 between columns.
    let budget = usize::from(width).saturating_sub(3 * n).saturating_add(1);
    if longest.iter().sum::<usize>() > budget {
        return false;
    }
    for (col, l) in t.column_iter_mut().zip(longest) {
        if l > 0 {
            let w = u16::try_from(l).unwrap_or(u16::MAX);
            col.set_constraint(ColumnConstraint::LowerBoundary(Width::Fixed(
                w.saturating_add(col.padding_width()),
            )));
        }
    }
    true
}

/// `text` with every line ended by a newline and every line longer than `width`
/// wrapped ([`wrap`], continuation lines indented by the line's own indent plus two);
/// `None` wraps nothing.
pub(crate) fn fit_text(text: &str, width: Option<usize>) -> String {
    let w = width.map_or(usize::MAX, |w| w.max(MIN_WIDTH));
    let mut out = String::with_capacity(text.len() + 1);
    for line in text.lines() {
        if len(line) <= w {
            out.push_str(line);
            out.push('\n');
            continue;
        }
        let indent = line.len() - line.trim_start().len();
        for l in wrap(&line[..indent], line.trim_start(), indent + 2, Some(w)) {
            out.push_str(&l);
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fit_text_wraps_long_lines_only() {
        let text = "short\n  a long line of words that goes on and on past forty columns here";
        let fitted = fit_text(text, Some(40));
        assert!(fitted.lines().all(|l| len(l) <= 40), "{fitted}");
        assert!(fitted.starts_with("short\n  a long") && fitted.ends_with('\n'));
        assert!(
            fitted.lines().skip(2).all(|l| l.starts_with("    ")),
            "{fitted}"
        );
        assert_eq!(fit_text("one", None), "one\n");
    }

    /// Issue #45: a fitted table keeps its words whole, as a table where they fit side
    /// by side, else as records.
    #[test]
    fn tables_keep_their_words_whole() {
        let table = |w: usize| {
            let mut t = comfy_table::Table::new();
            t.load_preset(PRESET)
                .set_header(["case", "verdict", "baseline", "tolerance", "why"]);
            fit_table(&mut t, Some(w));
            t.add_row([
                "cpu fma_f64_avx512 [precision=fp64 threads=1]",
                "inconclusive",
                "100.0 GFLOP/s",
                "5%",
                "1 sample: no confidence interval; run with --repeat 3 or more",
            ]);
            table_text(&t)
        };
        for w in [40, 60, 80, 120] {
            let s = table(w);
            assert!(s.lines().all(|l| len(l) <= w), "{w}:\n{s}");
            let have: Vec<&str> = s
                .split(|c: char| c.is_whitespace() || c == '│' || c == ';')
                .map(|w| w.trim_end_matches(':'))
                .collect();
            for word in [
                "fma_f64_avx512",
                "[precision=fp64",
                "inconclusive",
                "confidence",
                "--repeat",
            ] {
                assert!(have.contains(&word), "{w}: {word}\n{s}");
            }
        }
        assert!(table(40).starts_with("case: cpu"), "{}", table(40));
        // A value stays on the line of its header, with its unit.
        assert!(
            table(40).contains("baseline: 100.0 GFLOP/s"),
            "{}",
            table(40)
        );
        assert!(table(120).starts_with(" case"), "{}", table(120));
    }

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
