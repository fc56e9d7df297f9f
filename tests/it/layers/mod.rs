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
//! Beside it: no import cycle between any files of the crate ([`cycles`]), and the
//! rules on files ([`files`]: docs/ARCHITECTURE.md names every file under `src/`, no
//! source file over 800 lines). [`scan`] reads the sources for all of them.

mod cycles;
mod files;
mod scan;

use scan::{module_of, rust_files, uses};
use std::path::Path;

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
