//! The direction of imports (docs/ARCHITECTURE.md): a lower layer never imports a higher
//! one. This test reads the sources of the lower layers and fails, naming the file and
//! the path, when one of them uses a module it may not (`crate::x`, `use crate::{x, …}`,
//! or `super::super::x` reaching the crate root), including paths written in attributes
//! (`serialize_with = "crate::…"`) and in `#[cfg(test)]` code. Comments are ignored.
//!
//! The layers, lowest first. Each may use itself and the layers listed beside it; the
//! top of the crate (`main`, `app`, `pipeline`, `cli`, `cluster`, `options`,
//! `reporting`, `sysinfo`) may use everything and is not scanned for direction.
//!
//! And no import cycle between any files of the crate, of any length, across folders:
//! the module tree is read from `src/lib.rs`, every path a file names is resolved to the
//! file that defines its item, and a cycle fails the test naming its files and one way
//! round it with line numbers.

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
    // The gate reads the run history (`check --against history`, `baseline --from-history`).
    ("gate", &["history", "report", "hw", "measure", "util"]),
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
    "pipeline",
    "reporting",
    "retries",
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
        v("use super::super::super::cli::DiskOptions;"),
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

/// A file of the crate and the module it is: `bench/disk/mod.rs` is `bench::disk`,
/// `bench/net/proto_tests.rs` (declared `#[path = "proto_tests.rs"] mod tests;` in
/// proto.rs) is `bench::net::proto::tests`.
struct Unit {
    rel: PathBuf,
    module: Vec<String>,
}

/// The `mod NAME;` declarations of a file (not inline `mod NAME { … }`), each with the
/// file a `#[path = "…"]` attribute just before it names.
fn mod_decls(code: &str) -> Vec<(String, Option<String>)> {
    let b = code.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if let Some(j) = skip_literal(b, i) {
            i = j;
            continue;
        }
        if !(b[i..].starts_with(b"mod") && (i == 0 || !is_ident(b[i - 1]))) {
            i += 1;
            continue;
        }
        let (kw, end) = ident_at(b, i);
        let (name, after) = ident_at(b, end);
        let mut j = after;
        while j < b.len() && b[j].is_ascii_whitespace() {
            j += 1;
        }
        if kw == "mod" && !name.is_empty() && b.get(j) == Some(&b';') {
            // The attributes of this item: back to the end of the previous one.
            let start = code[..i].rfind([';', '}', '{']).map_or(0, |k| k + 1);
            let attrs = &code[start..i];
            let path = attrs.find("path").and_then(|p| {
                let q = attrs[p..].find('"')? + p + 1;
                let e = attrs[q..].find('"')? + q;
                Some(attrs[q..e].to_string())
            });
            out.push((name, path));
        }
        i = end;
    }
    out
}

/// The crate's module tree from `src/lib.rs`, following every `mod` declaration
/// (`#[cfg(…)]` ones included, `#[path]` honoured). Fails on a file under `src/` that no
/// declaration reaches (`main.rs`, the binary's root, aside).
fn module_tree(src: &Path) -> Vec<Unit> {
    let mut units = vec![Unit {
        rel: PathBuf::from("lib.rs"),
        module: Vec::new(),
    }];
    let mut k = 0;
    while k < units.len() {
        let rel = units[k].rel.clone();
        let text = std::fs::read_to_string(src.join(&rel))
            .unwrap_or_else(|e| panic!("src/{}: {e}", rel.display()));
        let here = rel.parent().unwrap_or(Path::new("")).to_path_buf();
        let stem = rel.file_stem().unwrap().to_string_lossy().into_owned();
        // `a/b.rs` declares its children in `a/b/`; `mod.rs` and `lib.rs` beside them.
        let dir = if stem == "mod" || stem == "lib" {
            here.clone()
        } else {
            here.join(&stem)
        };
        for (name, path) in mod_decls(&strip_comments(&text)) {
            let child = match path {
                Some(p) => here.join(p),
                None if src.join(dir.join(format!("{name}.rs"))).is_file() => {
                    dir.join(format!("{name}.rs"))
                }
                None => dir.join(&name).join("mod.rs"),
            };
            assert!(
                src.join(&child).is_file(),
                "src/{}: `mod {name};` names no file ({})",
                rel.display(),
                child.display()
            );
            let mut module = units[k].module.clone();
            module.push(name);
            units.push(Unit { rel: child, module });
        }
        k += 1;
    }
    let mut all = Vec::new();
    rust_files(src, &mut all);
    let lost: Vec<String> = all
        .iter()
        .map(|f| f.strip_prefix(src).unwrap().to_path_buf())
        .filter(|r| r != Path::new("main.rs") && !units.iter().any(|u| &u.rel == r))
        .map(|r| format!("src/{}", r.display()))
        .collect();
    assert!(
        lost.is_empty(),
        "files no `mod` declaration reaches: {lost:?}"
    );
    units
}

/// Turns the path a file spells at a byte offset into an absolute module path.
type Resolve<'a> = dyn Fn(usize, &[String]) -> Option<Vec<String>> + 'a;

/// The crate-local names a file's `use` items bring into scope: `use crate::bench;`
/// binds `bench`, `use super::proto::{self, Side as S}` binds `proto` and `S`, each to
/// its absolute path. `resolve` turns a path's first segments into absolute ones
/// (`None` for another crate's).
fn use_names(b: &[u8], resolve: &Resolve) -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if let Some(j) = skip_literal(b, i) {
            i = j;
            continue;
        }
        let word_start = i == 0 || !(is_ident(b[i - 1]) || b[i - 1] == b'$');
        if !(word_start && b[i..].starts_with(b"use") && !is_ident(*b.get(i + 3).unwrap_or(&b' ')))
        {
            i += 1;
            continue;
        }
        let mut raw = Vec::new();
        use_tree(b, i + 3, Vec::new(), &mut raw);
        for (path, name) in raw {
            if let Some(abs) = resolve(i, &path) {
                out.push((name, abs));
            }
        }
        i += 3;
    }
    out
}

/// The leaves of a use tree at `i` under `prefix`: each path with the name it binds.
fn use_tree(b: &[u8], mut i: usize, prefix: Vec<String>, out: &mut Vec<(Vec<String>, String)>) {
    while i < b.len() && b[i].is_ascii_whitespace() {
        i += 1;
    }
    if b.get(i) == Some(&b'{') {
        let mut depth = 0;
        let mut item = i + 1;
        for j in i + 1..b.len() {
            match b[j] {
                b'{' => depth += 1,
                b'}' if depth == 0 => {
                    use_tree(b, item, prefix.clone(), out);
                    return;
                }
                b'}' => depth -= 1,
                b',' if depth == 0 => {
                    use_tree(b, item, prefix.clone(), out);
                    item = j + 1;
                }
                _ => {}
            }
        }
        return;
    }
    let (id, end) = ident_at(b, i);
    if id.is_empty() {
        return; // `*`, or an empty group item
    }
    if let Some(k) = after_colons(b, end) {
        let mut p = prefix;
        p.push(id);
        return use_tree(b, k, p, out);
    }
    let (kw, e) = ident_at(b, end);
    let (alias, _) = ident_at(b, e);
    let path = if id == "self" {
        prefix
    } else {
        let mut p = prefix;
        p.push(id);
        p
    };
    let name = if kw == "as" {
        alias
    } else {
        path.last().cloned().unwrap_or_default()
    };
    if name != "_" && !name.is_empty() {
        out.push((path, name));
    }
}

/// Every path `src` (the file of module `module`) names from the crate root, through
/// `super`/`self`, from one of its own child modules (`is_module` tells which module
/// paths are files) or through a name its `use` items bound (`names`), resolved to
/// absolute segments, with its line number; `#[cfg(test)]` code and attributes'
/// strings included. A `{…}` group gives one path per item.
fn paths(
    src: &str,
    module: &[String],
    is_module: &dyn Fn(&[String]) -> bool,
    names: &[(String, Vec<String>)],
) -> Vec<(usize, Vec<String>)> {
    let code = strip_comments(src);
    let b = code.as_bytes();
    let mods = inline_mods(b);
    let line = |i: usize| b[..i].iter().filter(|&&c| c == b'\n').count() + 1;
    let mut found = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if let Some(j) = skip_literal(b, i).filter(|_| b[i] != b'"') {
            i = j; // a char literal or a raw string; plain strings are read (attributes)
            continue;
        }
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
                if is_module(&child) {
                    (child, j)
                } else if let Some((_, p)) = names.iter().find(|(n, _)| *n == id) {
                    (p.clone(), j)
                } else {
                    i = end;
                    continue;
                }
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

/// One import: file `from` names file `to` at `line` of `from`.
#[derive(Clone, Debug, PartialEq)]
struct Import {
    from: usize,
    to: usize,
    line: usize,
}

/// The crate's files and the imports between them: every path a file names (`use`,
/// paths in code, in attributes, in `#[cfg(test)]` code) lands in the file that
/// defines its item, through re-exports (`pub use x::Y` forwards `Y` to `x`). A `mod x;`
/// declaration is not an import.
fn imports(src: &Path) -> (Vec<Unit>, Vec<Import>) {
    let units = module_tree(src);
    let texts: Vec<String> = units
        .iter()
        .map(|u| std::fs::read_to_string(src.join(&u.rel)).unwrap())
        .collect();
    let is_module = |m: &[String]| units.iter().any(|u| u.module == m);
    // Each file's `use` names, resolved the way `paths` resolves a path's start.
    let names: Vec<Vec<(String, Vec<String>)>> = units
        .iter()
        .zip(&texts)
        .map(|(u, text)| {
            let code = strip_comments(text);
            let b = code.as_bytes();
            let mods = inline_mods(b);
            let resolve = |at: usize, p: &[String]| -> Option<Vec<String>> {
                let inline = mods.iter().filter(|&&(s, e)| s < at && at < e).count();
                let first = p.first()?;
                let (mut base, rest) = match first.as_str() {
                    "crate" => (Vec::new(), &p[1..]),
                    "self" => (u.module.clone(), &p[1..]),
                    "super" => {
                        let n = p.iter().take_while(|s| *s == "super").count();
                        let up = n.saturating_sub(inline);
                        let keep = u.module.len().saturating_sub(up);
                        (u.module[..keep].to_vec(), &p[n..])
                    }
                    _ => {
                        let mut child = u.module.clone();
                        child.push(first.clone());
                        if !is_module(&child) {
                            return None;
                        }
                        (child, &p[1..])
                    }
                };
                base.extend(rest.iter().cloned());
                Some(base)
            };
            use_names(b, &resolve)
        })
        .collect();
    // The file whose item a path names, following re-exports.
    let file_of = |p: &[String]| -> Option<usize> {
        let mut p = p.to_vec();
        for _ in 0..16 {
            let (n, t) = (0..=p.len()).rev().find_map(|n| {
                units
                    .iter()
                    .position(|u| u.module == p[..n])
                    .map(|t| (n, t))
            })?;
            let forward = p
                .get(n)
                .and_then(|item| names[t].iter().find(|(name, _)| name == item));
            match forward {
                Some((_, to)) if to[..] != p[..n + 1] => {
                    let mut next = to.clone();
                    next.extend(p[n + 1..].iter().cloned());
                    p = next;
                }
                _ => return Some(t),
            }
        }
        None
    };
    let mut out = Vec::new();
    for (a, u) in units.iter().enumerate() {
        for (line, p) in paths(&texts[a], &u.module, &is_module, &names[a]) {
            if let Some(t) = file_of(&p) {
                let imp = Import {
                    from: a,
                    to: t,
                    line,
                };
                if t != a && !out.iter().any(|o: &Import| o.from == a && o.to == t) {
                    out.push(imp);
                }
            }
        }
    }
    (units, out)
}

/// Whether `to` reaches `from` over `edges` (so `from → to` closes a cycle), and the
/// way: the imports from `to` back to `from`.
fn way_back(n: usize, edges: &[&Import], from: usize, to: usize) -> Option<Vec<Import>> {
    let mut prev: Vec<Option<&Import>> = vec![None; n];
    let mut seen = vec![false; n];
    let mut queue = std::collections::VecDeque::from([to]);
    seen[to] = true;
    while let Some(x) = queue.pop_front() {
        if x == from {
            let mut way = Vec::new();
            let mut at = from;
            while at != to {
                let e = prev[at].unwrap();
                way.push(e.clone());
                at = e.from;
            }
            way.reverse();
            return Some(way);
        }
        for e in edges.iter().filter(|e| e.from == x) {
            if seen[e.to] {
                continue;
            }
            seen[e.to] = true;
            prev[e.to] = Some(e);
            queue.push_back(e.to);
        }
    }
    None
}

/// The import cycles among `edges`: each group of files that reach one another, with
/// one cycle through its first file written out (`src/a.rs:3 → src/b.rs:9 → src/a.rs`).
fn cycles(units: &[Unit], edges: &[&Import]) -> Vec<(Vec<String>, String)> {
    let n = units.len();
    let name = |t: usize| format!("src/{}", units[t].rel.display());
    // What each file reaches, by a walk from it.
    let reach: Vec<Vec<bool>> = (0..n)
        .map(|a| {
            let mut seen = vec![false; n];
            let mut stack = vec![a];
            while let Some(x) = stack.pop() {
                for e in edges.iter().filter(|e| e.from == x) {
                    if seen[e.to] {
                        continue;
                    }
                    seen[e.to] = true;
                    stack.push(e.to);
                }
            }
            seen
        })
        .collect();
    let mut seen = vec![false; n];
    let mut out = Vec::new();
    for a in 0..n {
        if seen[a] {
            continue;
        }
        let group: Vec<usize> = (0..n)
            .filter(|&t| t == a || reach[a][t] && reach[t][a])
            .collect();
        if group.len() < 2 {
            continue;
        }
        for &t in &group {
            seen[t] = true;
        }
        let first = edges
            .iter()
            .find(|e| e.from == a && group.contains(&e.to))
            .unwrap();
        let mut way = vec![(*first).clone()];
        way.extend(way_back(n, edges, a, first.to).unwrap());
        let mut text: Vec<String> = way
            .iter()
            .map(|e| format!("{}:{}", name(e.from), e.line))
            .collect();
        text.push(name(a));
        let mut files: Vec<String> = group.iter().map(|&t| name(t)).collect();
        files.sort();
        out.push((files, text.join(" → ")));
    }
    out
}

/// Imports that close a cycle today and stay allowed, each `(from, to)` with why. An
/// entry that no longer closes a cycle (or names an import that is gone) fails the
/// test, so the list cannot go stale.
const ALLOWED: &[(&str, &str, &str)] = &[
    // The Arm part of the execution probe: `hw/probe.rs` runs the probe and hands an
    // aarch64 machine to `hw/probe_arm.rs`, which probes each kind of core with
    // `probe.rs`'s `run_tests`. (The x86 loops name only the tests, `probe_class.rs`.)
    (
        "src/hw/probe.rs",
        "src/hw/probe_arm.rs",
        "the probe's Arm part",
    ),
    (
        "src/hw/probe_arm.rs",
        "src/hw/probe.rs",
        "the probe's Arm part",
    ),
];

/// The allowed imports `(from, to)` that are gone or close no cycle any more.
fn stale(units: &[Unit], edges: &[Import], allowed: &[(&str, &str)]) -> Vec<String> {
    let name = |t: usize| format!("src/{}", units[t].rel.display());
    let all: Vec<&Import> = edges.iter().collect();
    let mut stale = Vec::new();
    for &(a, b) in allowed {
        let e = edges.iter().find(|e| name(e.from) == a && name(e.to) == b);
        match e {
            None => stale.push(format!("{a} → {b}: no such import any more")),
            Some(e) if way_back(units.len(), &all, e.from, e.to).is_none() => {
                stale.push(format!("{a} → {b}: closes no cycle any more"))
            }
            Some(_) => {}
        }
    }
    stale
}

/// No import cycle between any files of the crate, of any length, across folders
/// (docs/ARCHITECTURE.md): a type two files both need lives in a file below both. A
/// child importing its folder's `mod.rs` counts like any import, and so does the code
/// of unit tests; a `mod x;` declaration does not. The one exception is [`ALLOWED`], the
/// probe's Arm part.
#[test]
fn no_import_cycles_in_the_crate() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let (units, edges) = imports(&src);
    assert!(
        units.len() > 100,
        "only {} files; is src/ there?",
        units.len()
    );
    let name = |t: usize| format!("src/{}", units[t].rel.display());
    let allowed: Vec<(&str, &str)> = ALLOWED.iter().map(|&(a, b, _)| (a, b)).collect();
    let stale = stale(&units, &edges, &allowed);
    assert!(
        stale.is_empty(),
        "allowed imports no longer needed (remove them from the list):\n{}",
        stale.join("\n")
    );
    let kept: Vec<&Import> = edges
        .iter()
        .filter(|e| !allowed.contains(&(name(e.from).as_str(), name(e.to).as_str())))
        .collect();
    let found = cycles(&units, &kept);
    let text: Vec<String> = found
        .iter()
        .map(|(files, way)| format!("{}\n    e.g. {way}", files.join(" <-> ")))
        .collect();
    assert!(found.is_empty(), "import cycles:\n{}", text.join("\n"));
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

/// Writes `files` (path under `src/`, text) into a fresh `src/` and returns the cycles
/// the check finds there, each as its files.
fn cycles_in(files: &[(&str, &str)]) -> Vec<Vec<String>> {
    let tmp = tempfile::tempdir().unwrap();
    for (path, text) in files {
        let p = tmp.path().join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    let (units, edges) = imports(tmp.path());
    cycles(&units, &edges.iter().collect::<Vec<_>>())
        .into_iter()
        .map(|(files, _)| files)
        .collect()
}

/// The cycle check sees every form of import, across folders and at any length, and
/// nothing that is not one.
#[test]
fn the_cycle_check_sees_every_form() {
    let lib = "pub mod a;\npub mod b;\npub mod c;\n";
    let a = "pub mod x;\npub(crate) struct A;\n";
    // A three-file cycle across folders: a/x.rs → b.rs → c.rs → a/x.rs.
    let found = cycles_in(&[
        ("lib.rs", lib),
        ("a/mod.rs", a),
        ("a/x.rs", "use crate::b::B;\npub(crate) struct X;\n"),
        ("b.rs", "pub(crate) struct B(crate::c::C);\n"),
        (
            "c.rs",
            "pub(crate) struct C;\nfn f() { let _ = super::a::x::X; }\n",
        ),
    ]);
    assert_eq!(found, [vec!["src/a/x.rs", "src/b.rs", "src/c.rs"]]);
    // `self::`, a path in an attribute's string and unit-test code close cycles too;
    // so does a child naming its own folder's mod.rs.
    for back in [
        "#[serde(with = \"crate::a::x\")]\npub(crate) struct C;\n",
        "pub(crate) struct C;\n#[cfg(test)]\nmod tests {\n    use super::super::a::x::X;\n}\n",
        "pub(crate) struct C;\nmod inner { use crate::a::x; }\n",
    ] {
        let found = cycles_in(&[
            ("lib.rs", lib),
            ("a/mod.rs", a),
            ("a/x.rs", "use crate::c::C;\npub(crate) struct X;\n"),
            ("b.rs", ""),
            ("c.rs", back),
        ]);
        assert_eq!(found, [vec!["src/a/x.rs", "src/c.rs"]], "{back}");
    }
    let found = cycles_in(&[
        ("lib.rs", lib),
        (
            "a/mod.rs",
            "pub mod x;\npub(crate) use self::x::X;\npub(crate) struct A;\n",
        ),
        ("a/x.rs", "use super::A;\npub(crate) struct X;\n"),
        ("b.rs", ""),
        ("c.rs", ""),
    ]);
    assert_eq!(found, [vec!["src/a/mod.rs", "src/a/x.rs"]]);
    // Not imports: `mod x;`, comments, another crate's paths, a re-export passed
    // through (`crate::a::X` is `a/x.rs`'s item, so b.rs → a/x.rs only), and a
    // `#[path]` test file's `super` (its module is the file that declares it).
    let found = cycles_in(&[
        ("lib.rs", lib),
        (
            "a/mod.rs",
            "pub mod x;\npub(crate) use x::X;\nuse crate::b::B;\n",
        ),
        (
            "a/x.rs",
            "// use crate::a::B;\npub(crate) struct X;\nuse std::fmt;\n",
        ),
        (
            "b.rs",
            "pub(crate) struct B;\nfn f() { let _ = crate::a::X; }\n",
        ),
        (
            "c.rs",
            "#[cfg(test)]\n#[path = \"c_tests.rs\"]\nmod tests;\npub(crate) struct C;\n",
        ),
        ("c_tests.rs", "use super::*;\n"),
    ]);
    assert!(found.is_empty(), "{found:?}");
}

/// The check covers the whole crate: every file is reached from `lib.rs`, and a cycle
/// planted in a copy of each folder of `src/` (the top's `cluster/` included) is found.
#[test]
fn the_cycle_check_covers_every_folder() {
    let real = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let tmp = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    rust_files(&real, &mut files);
    for f in &files {
        let to = tmp.path().join(f.strip_prefix(&real).unwrap());
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(f, &to).unwrap();
    }
    let (units, edges) = imports(tmp.path());
    let before = cycles(&units, &edges.iter().collect::<Vec<_>>()).len();
    let folders: Vec<&Unit> = units.iter().filter(|u| u.rel.ends_with("mod.rs")).collect();
    assert!(folders.iter().any(|u| u.rel == Path::new("cluster/mod.rs")));
    for u in &folders {
        let m = u.module.join("::");
        let dir = tmp.path().join(u.rel.parent().unwrap());
        let mut text = std::fs::read_to_string(tmp.path().join(&u.rel)).unwrap();
        text.push_str("\npub(crate) mod zz_a;\npub(crate) mod zz_b;\n");
        std::fs::write(tmp.path().join(&u.rel), text).unwrap();
        std::fs::write(
            dir.join("zz_a.rs"),
            format!("use crate::{m}::zz_b::B;\npub(crate) struct A;\n"),
        )
        .unwrap();
        std::fs::write(
            dir.join("zz_b.rs"),
            "use super::zz_a::A;\npub(crate) struct B;\n",
        )
        .unwrap();
    }
    let (units, edges) = imports(tmp.path());
    let found = cycles(&units, &edges.iter().collect::<Vec<_>>());
    let planted: Vec<&Vec<String>> = found
        .iter()
        .map(|(f, _)| f)
        .filter(|f| f.iter().any(|x| x.contains("zz_")))
        .collect();
    assert_eq!(planted.len(), folders.len(), "{planted:?}");
    assert_eq!(found.len(), before + folders.len());
    for f in planted {
        assert_eq!(f.len(), 2, "{f:?}");
    }
}

/// An allowed import that is gone, or no longer closes a cycle, is reported, so the
/// allowlists cannot go stale.
#[test]
fn allowlist_entries_must_still_be_needed() {
    let tmp = tempfile::tempdir().unwrap();
    let write = |p: &str, t: &str| std::fs::write(tmp.path().join(p), t).unwrap();
    write("lib.rs", "pub mod a;\npub mod b;\n");
    write("a.rs", "use crate::b::B;\npub(crate) struct A;\n");
    write("b.rs", "use crate::a::A;\npub(crate) struct B;\n");
    let (units, edges) = imports(tmp.path());
    let allowed = [("src/b.rs", "src/a.rs")];
    assert!(stale(&units, &edges, &allowed).is_empty());
    // The way back is gone: the entry closes no cycle.
    write("a.rs", "pub(crate) struct A;\n");
    let (units, edges) = imports(tmp.path());
    assert_eq!(
        stale(&units, &edges, &allowed),
        ["src/b.rs → src/a.rs: closes no cycle any more"]
    );
    // The import itself is gone.
    write("b.rs", "pub(crate) struct B;\n");
    let (units, edges) = imports(tmp.path());
    assert_eq!(
        stale(&units, &edges, &allowed),
        ["src/b.rs → src/a.rs: no such import any more"]
    );
}

/// docs/ARCHITECTURE.md is true: every file it names under `src/` exists, and it names
/// every file under `src/`. A section whose heading names a folder (`src/report/view/`)
/// names its files relative to it (`json.rs`, `table/layout.rs`); `src/…` is a path from
/// the root anywhere; patterns (`bench/<r>/mod.rs`) and `tests/…` are not checked.
#[test]
fn architecture_names_every_file_and_only_real_ones() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let doc = std::fs::read_to_string(root.join("docs/ARCHITECTURE.md")).unwrap();
    let mut named = std::collections::BTreeSet::new();
    let mut wrong = Vec::new();
    let mut folder: Option<String> = None;
    for (n, line) in doc.lines().enumerate() {
        let ticked: Vec<&str> = line.split('`').skip(1).step_by(2).collect();
        if line.starts_with('#') {
            folder = ticked.iter().find(|t| t.starts_with("src/")).map(|t| {
                if t.ends_with('/') {
                    t.to_string()
                } else {
                    format!("{}/", Path::new(t).parent().unwrap().display())
                }
            });
            continue;
        }
        for t in ticked {
            let pattern = t.contains(['<', '*', ' ']) || t.starts_with("tests/");
            if pattern || !(t.ends_with(".rs") || t.ends_with('/')) {
                continue;
            }
            let path = match &folder {
                _ if t.starts_with("src/") => t.to_string(),
                Some(f) => format!("{f}{t}"),
                None => continue,
            };
            if root.join(&path).exists() {
                named.insert(path.trim_end_matches('/').to_string());
            } else {
                wrong.push(format!("line {}: {path} does not exist", n + 1));
            }
        }
    }
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    let unnamed: Vec<String> = files
        .iter()
        .map(|f| {
            let rel = f.strip_prefix(root).unwrap();
            rel.to_string_lossy().into_owned()
        })
        .filter(|f| !named.contains(f))
        .collect();
    assert!(files.len() > 100, "only {} files under src/", files.len());
    assert!(
        wrong.is_empty() && unnamed.is_empty(),
        "docs/ARCHITECTURE.md is out of date:\n{}\nnot named: {unnamed:?}",
        wrong.join("\n")
    );
}
