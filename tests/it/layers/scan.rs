//! The scanner of the layers test: Rust source with its comments blanked and its
//! literals skipped, the crate paths a file names (`crate::x`, `use crate::{x, …}`,
//! `super::super::x`), and the files under a folder.

use std::path::{Path, PathBuf};

/// `src/` with `//` and `/* */` comments replaced by spaces (same length, newlines
/// kept), strings kept: an attribute's `"crate::…"` is a real dependency.
pub(super) fn strip_comments(src: &str) -> String {
    let b = src.as_bytes();
    let mut out = b.to_vec();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    out[i] = b' ';
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let mut depth = 0;
                while i < b.len() {
                    if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
                        depth += 1;
                        out[i] = b' ';
                        out[i + 1] = b' ';
                        i += 2;
                    } else if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
                        depth -= 1;
                        out[i] = b' ';
                        out[i + 1] = b' ';
                        i += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        if b[i] != b'\n' {
                            out[i] = b' ';
                        }
                        i += 1;
                    }
                }
            }
            _ => match skip_literal(b, i) {
                Some(j) => i = j,
                None => i += 1,
            },
        }
    }
    String::from_utf8(out).expect("only ASCII bytes were replaced")
}

/// The index after the string or char literal starting at `i` (`"…"`, `r#"…"#`, `'"'`,
/// `'\''`), or `None` when none starts there (a lifetime is not a literal).
pub(super) fn skip_literal(b: &[u8], i: usize) -> Option<usize> {
    match b[i] {
        b'"' => Some(skip_string(b, i, 0)),
        // `r"…"`, `r#"…"#`, and the byte and C forms `br#"…"#`, `cr"…"`.
        b'r' if matches!(b.get(i + 1), Some(b'"' | b'#'))
            && (i == 0
                || !is_ident(b[i - 1])
                || matches!(b[i - 1], b'b' | b'c') && (i == 1 || !is_ident(b[i - 2]))) =>
        {
            let hashes = b[i + 1..].iter().take_while(|&&c| c == b'#').count();
            (b.get(i + 1 + hashes) == Some(&b'"')).then(|| skip_string(b, i + 1 + hashes, hashes))
        }
        b'\'' if b.get(i + 2) == Some(&b'\'') => Some(i + 3),
        // A char literal of a multi-byte character ('→').
        b'\'' if b.get(i + 1).is_some_and(|&c| c >= 0xc0) => {
            let len = b[i + 1].leading_ones() as usize;
            (b.get(i + 1 + len) == Some(&b'\'')).then_some(i + 2 + len)
        }
        b'\'' if b.get(i + 1) == Some(&b'\\') => {
            let mut j = i + 2;
            while j < b.len() && b[j] != b'\'' {
                j += 1;
            }
            Some(j + 1)
        }
        _ => None,
    }
}

/// The index after the string literal whose opening quote is at `i`; `hashes` > 0 (or
/// a raw string) ends only at `"` followed by that many `#`.
pub(super) fn skip_string(b: &[u8], i: usize, hashes: usize) -> usize {
    let raw = i > 0 && (b[i - 1] == b'r' || b[i - 1] == b'#');
    let mut j = i + 1;
    while j < b.len() {
        if b[j] == b'\\' && !raw {
            j += 2;
            continue;
        }
        if b[j] == b'"' && b[j + 1..].iter().take(hashes).all(|&c| c == b'#') {
            return j + 1 + hashes;
        }
        j += 1;
    }
    j
}

pub(super) fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// The identifier starting at `i` (after spaces), and the index after it.
pub(super) fn ident_at(b: &[u8], mut i: usize) -> (String, usize) {
    while i < b.len() && b[i].is_ascii_whitespace() {
        i += 1;
    }
    let s = i;
    while i < b.len() && is_ident(b[i]) {
        i += 1;
    }
    (String::from_utf8_lossy(&b[s..i]).into_owned(), i)
}

/// Skips spaces and `::` at `i`; `None` when the next thing is not `::`.
pub(super) fn after_colons(b: &[u8], mut i: usize) -> Option<usize> {
    while i < b.len() && b[i].is_ascii_whitespace() {
        i += 1;
    }
    (b.get(i) == Some(&b':') && b.get(i + 1) == Some(&b':')).then_some(i + 2)
}

/// The top-level names a path continues with at `i` (just after `crate::`): one
/// identifier, or the first identifier of every item of a `{…}` group.
pub(super) fn heads_at(b: &[u8], mut i: usize) -> Vec<String> {
    while i < b.len() && b[i].is_ascii_whitespace() {
        i += 1;
    }
    if b.get(i) != Some(&b'{') {
        let (id, _) = ident_at(b, i);
        return if id.is_empty() { vec![] } else { vec![id] };
    }
    let mut heads = Vec::new();
    let mut depth = 0;
    let mut item_start = true;
    i += 1;
    while i < b.len() {
        match b[i] {
            b'{' => depth += 1,
            b'}' if depth == 0 => break,
            b'}' => depth -= 1,
            b',' if depth == 0 => item_start = true,
            c if item_start && is_ident(c) => {
                let (id, end) = ident_at(b, i);
                // `self` names the crate root itself: nothing below it is named.
                if id != "self" {
                    heads.push(id);
                }
                item_start = false;
                i = end;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    heads
}

/// Spans `[open, close)` of the inline modules (`mod tests { … }`) of `code`: a `super`
/// inside one is one level further from the crate root.
pub(super) fn inline_mods(code: &[u8]) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut open: Vec<(usize, usize)> = Vec::new(); // (brace depth, start)
    let mut depth = 0usize;
    let mut i = 0;
    while i < code.len() {
        match code[i] {
            b'"' | b'\'' | b'r' if skip_literal(code, i).is_some() => {
                i = skip_literal(code, i).unwrap_or(i + 1);
                continue;
            }
            b'{' => depth += 1,
            b'}' => {
                if open.last().is_some_and(|&(d, _)| d == depth) {
                    let (_, s) = open.pop().unwrap();
                    spans.push((s, i));
                }
                depth = depth.saturating_sub(1);
            }
            b'm' if code[i..].starts_with(b"mod") && (i == 0 || !is_ident(code[i - 1])) => {
                let (kw, end) = ident_at(code, i);
                if kw == "mod" {
                    let (_name, mut j) = ident_at(code, end);
                    while j < code.len() && code[j].is_ascii_whitespace() {
                        j += 1;
                    }
                    if code.get(j) == Some(&b'{') {
                        open.push((depth + 1, j));
                    }
                }
                i = end;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    spans
}

/// Every top-level module that `src` (the file of module `module`, e.g.
/// `["bench", "memory", "bandwidth"]`) names, with its line number.
pub(super) fn uses(src: &str, module: &[String]) -> Vec<(usize, String)> {
    let code = strip_comments(src);
    let b = code.as_bytes();
    let mods = inline_mods(b);
    let line = |i: usize| b[..i].iter().filter(|&&c| c == b'\n').count() + 1;
    let mut found = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let word_start = i == 0 || !(is_ident(b[i - 1]) || b[i - 1] == b'$');
        if !word_start || !is_ident(b[i]) {
            i += 1;
            continue;
        }
        let (id, end) = ident_at(b, i);
        if id == "crate" {
            if let Some(j) = after_colons(b, end) {
                for h in heads_at(b, j) {
                    found.push((line(i), h));
                }
            }
        } else if id == "super" {
            // Count the chain `super::super::…` and where it ends.
            let mut n = 1;
            let mut j = end;
            while let Some(k) = after_colons(b, j) {
                let (next, e) = ident_at(b, k);
                if next == "super" {
                    n += 1;
                    j = e;
                } else {
                    j = k;
                    break;
                }
            }
            let depth = module.len() + mods.iter().filter(|&&(s, e)| s < i && i < e).count();
            if n >= depth && j != end {
                for h in heads_at(b, j) {
                    found.push((line(i), h));
                }
            }
            i = j.max(end);
            continue;
        }
        i = end;
    }
    found
}

/// The module path of a file under `src/`: `bench/memory/mod.rs` → `bench::memory`.
pub(super) fn module_of(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let last = parts.pop().unwrap_or_default();
    let stem = last.trim_end_matches(".rs");
    if stem != "mod" {
        parts.push(stem.to_string());
    }
    parts
}

pub(super) fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}
