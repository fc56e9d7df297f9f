//! The rules on files: docs/ARCHITECTURE.md names every file under `src/` and only real
//! ones, and no source file under `src/` or `tests/` grows past [`MAX_LINES`].

use super::scan::rust_files;
use std::path::{Path, PathBuf};

/// The most lines a Rust file under `src/` or `tests/` may have: a longer file is split
/// by meaning (a part of the work to a file of its own), not by cutting it in two.
const MAX_LINES: usize = 800;

/// Files that may stay longer than [`MAX_LINES`] for now, each with why. An entry whose
/// file is gone or back within the limit fails the test, so the list cannot go stale.
/// Keep it empty: a file that truly cannot be split (a generated table) belongs here.
const LONG_FILES: &[(&str, &str)] = &[];

/// The files of `roots` (relative to `root`) over `max` lines, as `(path, lines)`.
fn long_files(root: &Path, roots: &[&str], max: usize) -> Vec<(String, usize)> {
    let mut files: Vec<PathBuf> = Vec::new();
    for r in roots {
        rust_files(&root.join(r), &mut files);
    }
    files
        .iter()
        .map(|f| {
            let text = std::fs::read_to_string(f).unwrap();
            let rel = f.strip_prefix(root).unwrap().to_string_lossy().into_owned();
            (rel, text.lines().count())
        })
        .filter(|&(_, n)| n > max)
        .collect()
}

/// The file-size rule of the developers' guide: no Rust file under `src/` or `tests/`
/// over [`MAX_LINES`] lines, except the [`LONG_FILES`], which must still be long.
#[test]
fn no_source_file_is_over_the_line_limit() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let long = long_files(root, &["src", "tests"], MAX_LINES);
    let over: Vec<String> = long
        .iter()
        .filter(|(f, _)| !LONG_FILES.iter().any(|(l, _)| l == f))
        .map(|(f, n)| format!("{f}: {n} lines"))
        .collect();
    let stale: Vec<&str> = LONG_FILES
        .iter()
        .map(|&(l, _)| l)
        .filter(|l| !long.iter().any(|(f, _)| f == l))
        .collect();
    assert!(
        over.is_empty(),
        "files over {MAX_LINES} lines (split each by meaning):\n{}",
        over.join("\n")
    );
    assert!(
        stale.is_empty(),
        "allowed long files that are gone or within {MAX_LINES} lines now (remove them from LONG_FILES): {stale:?}"
    );
}

/// The size check counts lines as an editor does and looks under every folder given.
#[test]
fn the_size_check_counts_every_file() {
    let tmp = tempfile::tempdir().unwrap();
    let write = |p: &str, lines: usize| {
        let p = tmp.path().join(p);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, "x\n".repeat(lines)).unwrap();
    };
    write("src/a.rs", 3);
    write("src/deep/b.rs", 4);
    write("tests/it/c.rs", 5);
    write("tests/data.txt", 50);
    let mut got = long_files(tmp.path(), &["src", "tests"], 3);
    got.sort();
    assert_eq!(
        got,
        [
            ("src/deep/b.rs".to_string(), 4),
            ("tests/it/c.rs".to_string(), 5)
        ]
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
