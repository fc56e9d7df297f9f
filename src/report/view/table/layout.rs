//! Laying the results table out within a width (issue #32 C): which columns show, how
//! wide each is, and how a cell wraps.
//!
//! A cell wraps only at separators, never inside a token: first at spaces (a number
//! keeps its unit, `105.8 %`), then, for a word longer than its column, after `=`,
//! `,`, `_`, `-`, `/` or `;` (`precision=` / `fp16`, `fma_f64_` / `avx512`). A column
//! of words is never narrower than its longest such piece, so nothing is cut unless
//! one piece is wider than the whole table. Columns empty in every row are left out;
//! when the rest does not fit, the least wanted go first (each column's `keep`, which
//! the table raises for the columns a row or a warning depends on). Where the grid
//! would wrap a row to more than two lines, the results table stacks it instead
//! ([`stack`]): its params on a line of their own under it, nothing else wrapped.

use crate::util::term;

/// A column: its header, how much it is wanted when space is short (higher stays
/// longer; 95 and above never go), and for a column of words the width it reads
/// comfortably at (`None`: a column of figures, never wrapped).
#[derive(Debug, Clone, Copy)]
pub(super) struct Col {
    pub(super) header: &'static str,
    pub(super) keep: u8,
    pub(super) comfy: Option<usize>,
}

/// Columns below this `keep` make way before the columns of words are squeezed below
/// their comfortable width.
const OPTIONAL: u8 = 75;

/// The words of a cell: split at spaces, except that a number keeps the unit after it
/// (`105.8 %`, `64.95 ms`): a space after a digit is not a break unless the word
/// before it is a `key=value`.
fn words(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for w in text.split(' ').filter(|w| !w.is_empty()) {
        match out.last_mut() {
            Some(prev)
                if prev.ends_with(|c: char| c.is_ascii_digit())
                    && !prev.contains('=')
                    && !w.starts_with(|c: char| c.is_ascii_digit()) =>
            {
                prev.push(' ');
                prev.push_str(w);
            }
            _ => out.push(w.to_string()),
        }
    }
    out
}

/// A word cut after each separator (`precision=` `fp16`).
fn pieces(word: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, c) in word.char_indices() {
        let end = i + c.len_utf8();
        if matches!(c, '=' | ',' | '_' | '-' | '/' | ';') && end < word.len() && i > start {
            out.push(&word[start..end]);
            start = end;
        }
    }
    out.push(&word[start..]);
    out
}

/// The narrowest a cell can wrap to without cutting a token: its longest piece.
pub(super) fn narrowest(text: &str) -> usize {
    text.lines()
        .flat_map(words)
        .flat_map(|w| pieces(&w).into_iter().map(term::len).collect::<Vec<_>>())
        .max()
        .unwrap_or(0)
}

/// The longest line of a cell.
pub(super) fn widest(text: &str) -> usize {
    text.lines().map(term::len).max().unwrap_or(0)
}

/// `text` wrapped into lines of at most `width` characters, joined with `\n`: at
/// spaces first, then a word too long for a line at its separators; a piece longer
/// than a whole line (only when the table cannot be that wide) is cut.
pub(super) fn wrap(text: &str, width: usize) -> String {
    let width = width.max(1);
    let mut lines: Vec<String> = Vec::new();
    for para in text.lines() {
        let mut line = String::new();
        for w in words(para) {
            let sep = usize::from(!line.is_empty());
            if term::len(&line) + sep + term::len(&w) <= width {
                if sep == 1 {
                    line.push(' ');
                }
                line.push_str(&w);
                continue;
            }
            if !line.is_empty() {
                lines.push(std::mem::take(&mut line));
            }
            if term::len(&w) <= width {
                line = w;
                continue;
            }
            for p in pieces(&w) {
                if term::len(&line) + term::len(p) > width && !line.is_empty() {
                    lines.push(std::mem::take(&mut line));
                }
                let mut p: String = p.to_string();
                while term::len(&p) > width {
                    let cut: String = p.chars().take(width).collect();
                    p = p.chars().skip(width).collect();
                    lines.push(cut);
                }
                line.push_str(&p);
            }
        }
        lines.push(line);
    }
    lines.join("\n")
}

/// The width of each column's content (`None`: not shown) for a table of at most
/// `width` characters, given each column's widest line (`natural`) and narrowest wrap
/// (`least`, the natural width for a column of figures), which columns have anything to
/// show (`visible`), and what a column of words really takes when wrapped at a width
/// (`wrapped(column, width)`, at most that width). The optional columns make way until
/// the columns of words fit at a comfortable width, then any column below `keep` 95
/// until all fit at their narrowest; what is left widens the columns of words, in
/// `grow` order, up to their comfortable width and then their natural one. Room their
/// wrapped lines leave unused brings back the most wanted columns that fit in it.
pub(super) fn fit(
    cols: &[Col],
    width: usize,
    natural: &[usize],
    least: &[usize],
    visible: &mut [bool],
    grow: &[usize],
    wrapped: &dyn Fn(usize, usize) -> usize,
) -> Vec<Option<usize>> {
    let n = cols.len();
    let offered = visible.to_vec();
    let comfy = |c: usize| match cols[c].comfy {
        Some(w) => natural[c].min(w.max(least[c])),
        None => natural[c],
    };
    let total = |visible: &[bool], w: &dyn Fn(usize) -> usize| {
        let shown: Vec<usize> = (0..n).filter(|&c| visible[c]).collect();
        (shown.iter().map(|&c| w(c)).sum::<usize>() + 3 * shown.len()).saturating_sub(1)
    };
    let narrow = |c: usize| least[c];
    let passes: [(&dyn Fn(usize) -> usize, u8); 2] = [(&comfy, OPTIONAL), (&narrow, 95)];
    for (at, below) in passes {
        while total(visible, at) > width {
            let drop = (0..n)
                .filter(|&c| visible[c] && cols[c].keep < below)
                .min_by_key(|&c| cols[c].keep);
            match drop {
                Some(c) => visible[c] = false,
                None => break,
            }
        }
    }
    let mut w: Vec<usize> = (0..n).map(|c| least[c]).collect();
    let used = total(visible, &|c| w[c]);
    if used > width {
        // Even the columns that never go do not fit at their narrowest: the columns of
        // words give up what they must (their pieces are then cut).
        let mut over = used - width;
        for &c in grow.iter().rev() {
            if visible[c] && over > 0 {
                let give = over.min(w[c].saturating_sub(4));
                w[c] -= give;
                over -= give;
            }
        }
    }
    loop {
        let mut spare = width.saturating_sub(total(visible, &|c| w[c]));
        for comfortable in [true, false] {
            for &c in grow {
                if visible[c] {
                    let goal = if comfortable { comfy(c) } else { natural[c] };
                    let more = goal.saturating_sub(w[c]).min(spare);
                    w[c] += more;
                    spare -= more;
                }
            }
        }
        // What the columns of words really take, and a dropped column that fits in
        // what they leave.
        let real: Vec<usize> = (0..n)
            .map(|c| match cols[c].comfy {
                Some(_) if visible[c] => wrapped(c, w[c]).min(w[c]),
                _ => w[c],
            })
            .collect();
        let spare = width.saturating_sub(total(visible, &|c| real[c]));
        let back = (0..n)
            .filter(|&c| offered[c] && !visible[c] && natural[c] + 3 <= spare)
            .max_by_key(|&c| cols[c].keep);
        match back {
            Some(c) => {
                visible[c] = true;
                w = real;
                w[c] = natural[c];
            }
            None => break,
        }
    }
    (0..n).map(|c| visible[c].then_some(w[c])).collect()
}

/// The narrowest line a stacked row's params get before the grid is kept instead.
const MIN_PARAMS: usize = 24;

/// The stacked layout (issue #45 item 3): the widths (`None`: not shown) when the
/// params (column `params`) leave the grid for a line of their own under each row and
/// every other cell keeps its natural width (nothing wraps, no word is split): the least wanted
/// columns make way as in the grid. `None` when even that does not fit `width`, or
/// leaves the params line narrower than [`MIN_PARAMS`].
pub(super) fn stack(
    cols: &[Col],
    params: usize,
    width: usize,
    natural: &[usize],
    visible: &[bool],
) -> Option<Vec<Option<usize>>> {
    let figures: Vec<Col> = cols.iter().map(|c| Col { comfy: None, ..*c }).collect();
    let mut shown = visible.to_vec();
    shown[params] = false;
    let w = fit(
        &figures,
        width,
        natural,
        natural,
        &mut shown,
        &[],
        &|_, w| w,
    );
    let used = (w.iter().flatten().map(|x| x + 3).sum::<usize>()).saturating_sub(1);
    let lead = w[0].unwrap_or(0) + 2 + 4;
    (used <= width && width.saturating_sub(lead) >= MIN_PARAMS).then_some(w)
}

/// The table's `lines` (header, rule, then each row in `heights[i]` lines) with each
/// row's params (`params[i]`, empty: none) on lines of their own under it, indented
/// past the first column and wrapped at spaces to `width`, and `params` named under
/// the header.
pub(super) fn stacked_lines(
    lines: Vec<String>,
    heights: &[usize],
    params: &[&str],
    width: usize,
) -> Vec<String> {
    let rule = lines.iter().position(|l| l.contains('┼')).unwrap_or(0);
    let bar = lines
        .get(rule)
        .and_then(|l| l.chars().position(|c| c == '┼'))
        .unwrap_or(0);
    let lead = format!("{}│   ", " ".repeat(bar));
    let room = width.saturating_sub(bar + 4).max(1);
    let mut out = Vec::with_capacity(lines.len() + heights.len() + 1);
    let mut it = lines.into_iter();
    out.extend(it.by_ref().take(rule));
    out.push(format!("{lead}params"));
    out.extend(it.by_ref().take(1));
    for (h, p) in heights.iter().zip(params) {
        out.extend(it.by_ref().take(*h));
        if !p.is_empty() {
            out.extend(wrap(p, room).lines().map(|l| format!("{lead}{l}")));
        }
    }
    out.extend(it);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wraps_at_separators_never_inside_a_token() {
        assert_eq!(
            wrap("precision=fp16 threads=2", 14),
            "precision=fp16\nthreads=2"
        );
        assert_eq!(
            wrap("precision=fp16 threads=2", 12),
            "precision=\nfp16\nthreads=2"
        );
        assert_eq!(wrap("isa=avx512-vnni", 12), "isa=avx512-\nvnni");
        assert_eq!(wrap("fma_f64_avx512", 10), "fma_f64_\navx512");
        // A number keeps its unit.
        assert_eq!(wrap("~105.8 % OVER PEAK", 10), "~105.8 %\nOVER PEAK");
        assert_eq!(narrowest("~105.8 % OVER PEAK"), 8);
        assert_eq!(narrowest("precision=fp16 threads=2"), 10);
        assert_eq!(narrowest("isa=avx512-vnni"), 7);
        // Only a piece wider than the whole line is cut.
        assert_eq!(wrap("abcdefgh", 3), "abc\ndef\ngh");
        assert_eq!(wrap("", 5), "");
    }

    #[test]
    fn every_wrapped_line_fits_and_nothing_is_lost() {
        let text = "block=4KiB depth=32 engine=uring file_size=256MiB jobs=1 pattern=rand-read";
        for w in 1..80 {
            let got = wrap(text, w);
            assert!(got.lines().all(|l| term::len(l) <= w), "{w}: {got}");
            let squeeze = |s: &str| s.split_whitespace().collect::<String>();
            assert_eq!(squeeze(&got.replace('\n', "")), squeeze(text), "{w}");
            if w >= narrowest(text) {
                // No token is cut: every line ends at a separator or a word's end.
                for l in got.lines() {
                    assert!(
                        text.contains(l),
                        "{w}: '{l}' is not a run of the text: {got}"
                    );
                }
            }
        }
    }
}
