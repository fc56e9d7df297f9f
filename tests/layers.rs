//! The direction of imports (docs/ARCHITECTURE.md): a lower layer never imports a higher
//! one. This test reads the sources of the lower layers and fails, naming the file and
//! the path, when one of them uses a module it may not (`crate::x`, `use crate::{x, …}`,
//! or `super::super::x` reaching the crate root), including paths written in attributes
//! (`serialize_with = "crate::…"`) and in `#[cfg(test)]` code. Comments are ignored.
//!
//! The layers, lowest first. Each may use itself and the layers listed beside it; the
//! top of the crate (`main`, `app`, `cli`, `cluster`, `options`, `reporting`,
//! `sysinfo`) may use everything and is not scanned for direction. Every file of every
//! folder, the top's included, is scanned for import circles within its folder.

use std::path::{Path, PathBuf};

/// `(layer, the other top-level modules it may use)`, lowest first.
const LAYERS: &[(&str, &[&str])] = &[
    ("util", &[]),
    ("measure", &["util"]),
    ("hw", &["measure", "util"]),
    ("report", &["hw", "measure", "util"]),
    ("bench", &["report", "hw", "measure", "util"]),
    ("reference", &["report", "hw", "measure", "util"]),
    ("history", &["report", "hw", "measure", "util"]),
];

/// The top of the crate: the binary, the crate root, the commands and the cluster
/// launcher (which runs `app`'s plan on every rank). It may use every layer and is not
/// scanned for direction; the circle check still covers its folders (`cluster/`).
const TOP: &[&str] = &[
    "main",
    "lib",
    "app",
    "cli",
    "cluster",
    "cmdline",
    "options",
    "reporting",
    "sysinfo",
];

/// `src/` with `//` and `/* */` comments replaced by spaces (same length, newlines
/// kept), strings kept: an attribute's `"crate::…"` is a real dependency.
fn strip_comments(src: &str) -> String {
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
fn skip_literal(b: &[u8], i: usize) -> Option<usize> {
    match b[i] {
        b'"' => Some(skip_string(b, i, 0)),
        b'r' if matches!(b.get(i + 1), Some(b'"' | b'#')) && (i == 0 || !is_ident(b[i - 1])) => {
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
fn skip_string(b: &[u8], i: usize, hashes: usize) -> usize {
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

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// The identifier starting at `i` (after spaces), and the index after it.
fn ident_at(b: &[u8], mut i: usize) -> (String, usize) {
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
fn after_colons(b: &[u8], mut i: usize) -> Option<usize> {
    while i < b.len() && b[i].is_ascii_whitespace() {
        i += 1;
    }
    (b.get(i) == Some(&b':') && b.get(i + 1) == Some(&b':')).then_some(i + 2)
}

/// The top-level names a path continues with at `i` (just after `crate::`): one
/// identifier, or the first identifier of every item of a `{…}` group.
fn heads_at(b: &[u8], mut i: usize) -> Vec<String> {
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
fn inline_mods(code: &[u8]) -> Vec<(usize, usize)> {
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
fn uses(src: &str, module: &[String]) -> Vec<(usize, String)> {
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
fn module_of(rel: &Path) -> Vec<String> {
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

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
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

/// The upward uses in one file's text: `"line: crate::x"` for each.
fn violations(layer: &str, src: &str, module: &[String]) -> Vec<String> {
    let allowed = LAYERS
        .iter()
        .find(|(l, _)| *l == layer)
        .map(|(_, a)| *a)
        .expect("a known layer");
    uses(src, module)
        .into_iter()
        .filter(|(_, m)| m != layer && !allowed.contains(&m.as_str()))
        .map(|(l, m)| format!("{l}: crate::{m}"))
        .collect()
}

#[test]
fn lower_layers_never_import_higher_ones() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut bad = Vec::new();
    let mut scanned = 0;
    for (layer, allowed) in LAYERS {
        let mut files = Vec::new();
        let dir = src.join(layer);
        if dir.is_dir() {
            rust_files(&dir, &mut files);
        }
        let single = src.join(format!("{layer}.rs"));
        if single.is_file() {
            files.push(single);
        }
        for f in files {
            let text = std::fs::read_to_string(&f).unwrap();
            let rel = f.strip_prefix(&src).unwrap();
            scanned += 1;
            for v in violations(layer, &text, &module_of(rel)) {
                bad.push(format!(
                    "src/{}:{v} ({layer} may use only itself and: {})",
                    rel.display(),
                    if allowed.is_empty() {
                        "nothing else".to_string()
                    } else {
                        allowed.join(", ")
                    }
                ));
            }
        }
    }
    assert!(scanned > 50, "only {scanned} files scanned; is src/ there?");
    assert!(
        bad.is_empty(),
        "lower layers import higher ones (see docs/ARCHITECTURE.md):\n{}",
        bad.join("\n")
    );
}

/// The scanner itself: every form of an upward import is caught, and what is not an
/// import (comments, other crates, `super` inside the layer) is not.
#[test]
fn the_scanner_sees_every_form() {
    let m = |p: &str| p.split("::").map(String::from).collect::<Vec<_>>();
    let bench = m("bench::disk::options");
    let v = |src: &str| violations("bench", src, &bench);
    assert_eq!(v("use crate::options::Options;"), ["1: crate::options"]);
    assert_eq!(
        v("use crate::{hw::HostInfo, cli::{Cli, Cmd}};"),
        ["1: crate::cli"]
    );
    assert_eq!(
        v("use crate::{\n    app,\n    util::units,\n    self,\n};"),
        ["1: crate::app"]
    );
    assert_eq!(
        v("#[serde(serialize_with = \"crate::options::secs\")]"),
        ["1: crate::options"]
    );
    assert_eq!(
        v("fn f() { crate :: reporting::x() }"),
        ["1: crate::reporting"]
    );
    // `super` from bench::disk::options: three steps reach the crate root.
    assert_eq!(
        v("use super::super::super::cli::DiskArgs;"),
        ["1: crate::cli"]
    );
    assert_eq!(
        v("use super::super::super::{util, app};"),
        ["1: crate::app"]
    );
    // Inside `mod tests`, one more step is needed.
    assert!(v("mod tests { use super::super::super::UsageError; }").is_empty());
    assert_eq!(
        v("mod tests {\n use super::super::super::super::options::X;\n}"),
        ["2: crate::options"]
    );
    // Not imports of a higher layer.
    assert!(v("// use crate::options::Options;").is_empty());
    assert!(v("/* crate::cli */ use crate::util::units;").is_empty());
    assert!(v("/// [`crate::app::run`]\nfn f() {}").is_empty());
    assert!(v("use super::super::engine;").is_empty());
    assert!(v("use clap::Args; use peakbench_crate::options;").is_empty());
    assert!(v("let s = \"// not a comment\"; use crate::report::model;").is_empty());
    assert_eq!(
        v("let s = \"https://x\"; use crate::options;"),
        ["1: crate::options"]
    );
    assert_eq!(v("let c = '\"'; use crate::app;"), ["1: crate::app"]);
    assert!(v("fn f<'a>(x: &'a str) -> &'a str { x }").is_empty());
    assert_eq!(v("let c = ['→', '{'];\nuse crate::cli;"), ["2: crate::cli"]);
    assert!(v("let c = '{'; mod tests { use super::super::super::UsageError; }").is_empty());
    // Lower layers are held to their own lists.
    let hw = m("hw::gpu_table");
    assert_eq!(
        violations("hw", "crate::reference::capture(&argv, t)", &hw),
        ["1: crate::reference"]
    );
    assert!(violations("hw", "use crate::measure::clock::Tick;", &hw).is_empty());
    let util = m("util::units");
    assert_eq!(
        violations("util", "use crate::measure::Scaling;", &util),
        ["1: crate::measure"]
    );
    assert_eq!(module_of(Path::new("bench/disk/mod.rs")), m("bench::disk"));
    assert_eq!(module_of(Path::new("util/units.rs")), m("util::units"));
}

/// Every path `src` (the file of module `module`) names from the crate root, through
/// `super`/`self`, or from one of its own child modules (`is_module` tells which module
/// paths are files), resolved to absolute segments, with its line number. A `{…}` group
/// gives one path per item.
fn paths(
    src: &str,
    module: &[String],
    is_module: &dyn Fn(&[String]) -> bool,
) -> Vec<(usize, Vec<String>)> {
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
        // A path's first segment: not the tail of `a::b`, a field or a method.
        let mut k = i;
        while k > 0 && b[k - 1].is_ascii_whitespace() {
            k -= 1;
        }
        let mid_path = k >= 2 && &b[k - 2..k] == b"::" || k >= 1 && b[k - 1] == b'.';
        let Some(j) = after_colons(b, end) else {
            i = end;
            continue;
        };
        if mid_path {
            i = end;
            continue;
        }
        let inline = mods.iter().filter(|&&(s, e)| s < i && i < e).count();
        // Unit tests (`#[cfg(test)] mod …`) are not part of the built module tree: a
        // test may exercise its file through a sibling.
        let in_test = mods.iter().any(|&(s, e)| {
            s < i
                && i < e
                && b[s.saturating_sub(80)..s]
                    .windows(9)
                    .any(|w| w == b"cfg(test)")
        });
        if in_test {
            i = end;
            continue;
        }
        let (base, from) = match id.as_str() {
            "crate" => (Vec::new(), j),
            "self" => (module.to_vec(), j),
            "super" => {
                let mut n: usize = 1;
                let mut j = j;
                loop {
                    let (next, e) = ident_at(b, j);
                    match (next == "super").then(|| after_colons(b, e)).flatten() {
                        Some(k) => {
                            n += 1;
                            j = k;
                        }
                        None => break,
                    }
                }
                let up = n.saturating_sub(inline);
                (module[..module.len().saturating_sub(up)].to_vec(), j)
            }
            _ => {
                let mut child = module.to_vec();
                child.push(id.clone());
                if !is_module(&child) {
                    i = end;
                    continue;
                }
                (child, j)
            }
        };
        for p in tree_at(b, from, base) {
            found.push((line(i), p));
        }
        i = from;
    }
    found
}

/// The paths a use tree at `i` spells under `base`: `a::b::C`, `a::{b, c::D}`, `self`.
fn tree_at(b: &[u8], mut i: usize, base: Vec<String>) -> Vec<Vec<String>> {
    while i < b.len() && b[i].is_ascii_whitespace() {
        i += 1;
    }
    if b.get(i) == Some(&b'{') {
        let mut out = Vec::new();
        let mut depth = 0;
        let mut item = i + 1;
        let mut j = i + 1;
        while j < b.len() {
            match b[j] {
                b'{' => depth += 1,
                b'}' if depth == 0 => {
                    out.extend(tree_at(b, item, base.clone()));
                    break;
                }
                b'}' => depth -= 1,
                b',' if depth == 0 => {
                    out.extend(tree_at(b, item, base.clone()));
                    item = j + 1;
                }
                _ => {}
            }
            j += 1;
        }
        return out;
    }
    let (id, end) = ident_at(b, i);
    if id.is_empty() || id == "self" {
        return vec![base];
    }
    let mut p = base;
    p.push(id);
    match after_colons(b, end) {
        Some(k) => tree_at(b, k, p),
        None => vec![p],
    }
}

/// Circles between files of one top-level folder of `src/`: groups of files each of
/// which reaches every other by imports (`use`, paths in code and attributes).
fn circles(src: &Path) -> Vec<Vec<String>> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let rel: Vec<PathBuf> = files
        .iter()
        .map(|f| f.strip_prefix(src).unwrap().to_path_buf())
        .collect();
    let modules: Vec<Vec<String>> = rel.iter().map(|r| module_of(r)).collect();
    let is_module = |m: &[String]| modules.iter().any(|x| x == m);
    // The file a path lands in: the longest module prefix that is a file.
    let file_of = |p: &[String]| {
        (0..=p.len())
            .rev()
            .find_map(|n| modules.iter().position(|m| m == &p[..n]))
    };
    let n = files.len();
    let mut reach = vec![vec![false; n]; n];
    for (a, f) in files.iter().enumerate() {
        let text = std::fs::read_to_string(f).unwrap();
        for (_, p) in paths(&text, &modules[a], &is_module) {
            if let Some(t) = file_of(&p) {
                let same_folder =
                    rel[a].components().count() > 1 && rel[a].iter().next() == rel[t].iter().next();
                // A child naming an item of its own parent module (`super::Benchmark`, the
                // seam a folder's mod.rs defines for its files) is the module tree itself,
                // not an import that can close a circle.
                let to_ancestor =
                    modules[a].starts_with(&modules[t]) && modules[t].len() < modules[a].len();
                if t != a && same_folder && !to_ancestor {
                    reach[a][t] = true;
                }
            }
        }
    }
    // Transitive closure (Floyd–Warshall over booleans).
    for k in 0..n {
        let via = reach[k].clone();
        for row in reach.iter_mut().filter(|row| row[k]) {
            for (t, &r) in via.iter().enumerate() {
                row[t] |= r;
            }
        }
    }
    let mut seen = vec![false; n];
    let mut out = Vec::new();
    for a in 0..n {
        if seen[a] || !reach[a][a] {
            continue;
        }
        let group: Vec<usize> = (0..n).filter(|&t| reach[a][t] && reach[t][a]).collect();
        for &t in &group {
            seen[t] = true;
        }
        out.push(
            group
                .iter()
                .map(|&t| format!("src/{}", rel[t].display()))
                .collect(),
        );
    }
    out
}

/// No two files of one folder import each other, directly or round a circle: a type
/// both need lives in a file of its own (docs/ARCHITECTURE.md). A file's use of its own
/// parent module (the seam a folder's mod.rs defines) is not counted, nor are the
/// paths of unit tests (`#[cfg(test)] mod tests`), which are not part of the build. The exceptions are
/// the platform split of the execution probe: `hw/probe.rs` holds the portable part and
/// the tests, `hw/probe_x86.rs` the x86 loops and `hw/probe_arm.rs` the aarch64 ones,
/// and each names the portable part and is named by it; and the same split of the core
/// table, `hw/uarch.rs` (the types, identification, x86 rows) and `hw/uarch_arm.rs` (the
/// Arm rows, built from uarch's types and looked up by its identification).
#[test]
fn no_circles_between_files_of_one_folder() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let allowed: &[&[&str]] = &[
        &[
            "src/hw/probe.rs",
            "src/hw/probe_arm.rs",
            "src/hw/probe_x86.rs",
        ],
        &["src/hw/uarch.rs", "src/hw/uarch_arm.rs"],
    ];
    let found = circles(&src);
    let bad: Vec<String> = found
        .iter()
        .filter(|c| {
            !allowed
                .iter()
                .any(|a| a.iter().copied().eq(c.iter().map(|s| s.as_str())))
        })
        .map(|c| c.join(" <-> "))
        .collect();
    assert!(bad.is_empty(), "import circles:\n{}", bad.join("\n"));
    // The scan finds the documented split (every folder is covered: see
    // `the_circle_check_covers_every_folder`).
    assert!(found
        .iter()
        .any(|c| c.len() == 3 && c[0] == "src/hw/probe.rs"));
}

/// Every file and folder directly under `src/` is a layer or part of the top, so a new
/// module cannot escape the direction check unnoticed.
#[test]
fn every_module_has_a_place() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut unplaced = Vec::new();
    for e in std::fs::read_dir(&src).unwrap() {
        let p = e.unwrap().path();
        let name = if p.is_dir() {
            p.file_name().unwrap().to_string_lossy().into_owned()
        } else if p.extension().is_some_and(|x| x == "rs") {
            p.file_stem().unwrap().to_string_lossy().into_owned()
        } else {
            continue;
        };
        if !LAYERS.iter().any(|(l, _)| *l == name) && !TOP.contains(&name.as_str()) {
            unplaced.push(name);
        }
    }
    assert!(unplaced.is_empty(), "modules in no layer: {unplaced:?}");
}

/// The circle check reads every folder, at any depth, the top's `cluster/` included: a
/// circle planted in a copy of each folder's layout is found, and nothing else is.
#[test]
fn the_circle_check_covers_every_folder() {
    let real = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut folders = Vec::new();
    let mut files = Vec::new();
    rust_files(&real, &mut files);
    for f in &files {
        let rel = f
            .parent()
            .unwrap()
            .strip_prefix(&real)
            .unwrap()
            .to_path_buf();
        if !rel.as_os_str().is_empty() && !folders.contains(&rel) {
            folders.push(rel);
        }
    }
    assert!(
        folders.iter().any(|f| f == Path::new("cluster")),
        "{folders:?}"
    );
    for folder in &folders {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join(folder);
        std::fs::create_dir_all(&dir).unwrap();
        let module: Vec<String> = folder
            .iter()
            .map(|c| c.to_string_lossy().into_owned())
            .collect();
        let m = module.join("::");
        std::fs::write(dir.join("mod.rs"), "pub(crate) mod a;\npub(crate) mod b;\n").unwrap();
        std::fs::write(
            dir.join("a.rs"),
            format!("use crate::{m}::b::B;\npub(crate) struct A;\n"),
        )
        .unwrap();
        std::fs::write(dir.join("b.rs"), "use super::a::A;\npub(crate) struct B;\n").unwrap();
        let found = circles(tmp.path());
        let a = format!("src/{}", folder.join("a.rs").display());
        let b = format!("src/{}", folder.join("b.rs").display());
        assert_eq!(found, [vec![a, b]], "{}", folder.display());
        // Without the way back, no circle.
        std::fs::write(dir.join("b.rs"), "pub(crate) struct B;\n").unwrap();
        assert!(circles(tmp.path()).is_empty(), "{}", folder.display());
    }
}

/// The path resolver behind the circle check.
#[test]
fn paths_resolve_every_form() {
    let m = |p: &str| p.split("::").map(String::from).collect::<Vec<_>>();
    let known = [
        m("bench::disk::engine"),
        m("bench::disk::sync"),
        m("bench::disk"),
    ];
    let is = |p: &[String]| known.iter().any(|k| k == p);
    let here = m("bench::disk::uring");
    let p = |src: &str| -> Vec<String> {
        paths(src, &here, &is)
            .into_iter()
            .map(|(_, p)| p.join("::"))
            .collect()
    };
    assert_eq!(
        p("use super::engine::{Buffers, Caps};"),
        ["bench::disk::engine::Buffers", "bench::disk::engine::Caps"]
    );
    assert_eq!(p("use super::super::Case;"), ["bench::Case"]);
    assert_eq!(
        p("use crate::bench::{disk::{sync::S, engine}, Plan};"),
        ["bench::disk::sync::S", "bench::disk::engine", "bench::Plan"]
    );
    assert_eq!(p("mod tests { use super::*; }"), ["bench::disk::uring"]);
    assert!(p("#[cfg(test)]\nmod tests { use super::super::engine::X; }").is_empty());
    assert!(p("let x = a::b; x.super_thing(); foo::engine::X").is_empty());
    let disk = m("bench::disk");
    let q = paths("use engine::IoEngine; fn f() { sync::S }", &disk, &is);
    assert_eq!(q.len(), 2);
    assert_eq!(q[0].1.join("::"), "bench::disk::engine::IoEngine");
}
