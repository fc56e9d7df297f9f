//! Tests of `scratch` (issue #37): where the tests write, also without `target/`.

use super::scratch::*;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// Issue #37: with `CARGO_TARGET_DIR` elsewhere the checkout has no `target/`; the
/// scratch root is created rather than assumed.
#[test]
fn a_checkout_without_target_gets_its_scratch_root_created() {
    let checkout = tempfile::tempdir().unwrap();
    assert!(!checkout.path().join("target").exists());
    let root = root_for(checkout.path(), None);
    assert_eq!(root, checkout.path().join("target/test-scratch"));
    assert!(root.is_dir());
    let d = tempfile::tempdir_in(&root).unwrap();
    std::fs::write(d.path().join("x"), b"x").unwrap();
    // A second call (another test thread) finds it there.
    assert_eq!(root_for(checkout.path(), None), root);
    // The override wins and is created too; an empty one is ignored.
    let over = checkout.path().join("elsewhere/deeper");
    assert_eq!(root_for(checkout.path(), Some(over.clone().into())), over);
    assert!(over.is_dir());
    assert_eq!(root_for(checkout.path(), Some(OsString::new())), root);
}

#[test]
fn scratch_dirs_are_under_the_root_and_removed_on_drop() {
    let d = scratch_dir();
    assert!(d.path().starts_with(scratch_root()));
    let p = d.path().to_path_buf();
    drop(d);
    assert!(!p.exists());
}

/// Issue #37: no test builds its own scratch path from the checkout's `target/`
/// (which is absent under `CARGO_TARGET_DIR`) or from `CARGO_TARGET_TMPDIR`; they
/// all use this module.
#[test]
fn every_test_uses_this_scratch_rule() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    fn walk(d: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    walk(&root.join("src"), &mut files);
    walk(&root.join("tests"), &mut files);
    let bad_target = ["CARGO_MANIFEST_DIR\"), \"/target", "CARGO_TARGET_TMPDIR"];
    // This rule's own files name what they forbid.
    let own = ["scratch.rs", "scratch_tests.rs"];
    for f in files.iter().filter(|f| {
        !own.iter()
            .any(|o| f.file_name() == Some(std::ffi::OsStr::new(o)))
    }) {
        let text = std::fs::read_to_string(f).unwrap();
        for b in bad_target {
            assert!(
                !text.contains(b),
                "{} builds a scratch path from {b}: use util::scratch (tests/common::scratch_dir)",
                f.display()
            );
        }
    }
}
