//! Issue #45 item 1: the documentation cannot drift from the program. Every `peakbench`
//! command in a fenced `sh` block of README.md and docs/*.md (and every
//! `cargo run --release -- …`) is run: a measuring command with `--dry-run` (its plan on
//! this machine, nothing measured), a command that only reads directly where the files
//! it names exist, else with `--dry-run`, which a command that measures nothing refuses
//! only after the whole command line was accepted. Every relative link of those pages
//! must name an existing file, and an existing heading where it names an anchor.
//! Nothing here checks speed, or assumes the CPU under it beyond what peakbench's own
//! detection says.

use crate::common;

use std::path::{Path, PathBuf};

/// The root of the checkout.
fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// README.md and every page under docs/, with their text.
fn pages() -> Vec<(PathBuf, String)> {
    let mut out = vec![root().join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    docs.sort();
    out.extend(docs);
    out.into_iter()
        .map(|p| {
            let t = std::fs::read_to_string(&p).unwrap();
            (p, t)
        })
        .collect()
}

/// The command lines of the fenced `sh` blocks of `text`: continuation lines joined,
/// comments dropped.
fn sh_lines(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_sh = false;
    let mut in_other = false;
    let mut pending = String::new();
    for line in text.lines() {
        let t = line.trim_start();
        if let Some(lang) = t.strip_prefix("```") {
            if in_sh || in_other {
                in_sh = false;
                in_other = false;
            } else if lang.trim() == "sh" {
                in_sh = true;
            } else {
                in_other = true;
            }
            continue;
        }
        if !in_sh {
            continue;
        }
        let code = strip_comment(line);
        if let Some(head) = code.trim_end().strip_suffix('\\') {
            pending.push_str(head);
            pending.push(' ');
            continue;
        }
        pending.push_str(&code);
        let l = pending.trim().to_string();
        pending.clear();
        if !l.is_empty() {
            out.push(l);
        }
    }
    out
}

/// `line` without a shell comment (a `#` at the start of a word, outside quotes).
fn strip_comment(line: &str) -> String {
    let (mut quote, mut prev_space) = (None, true);
    for (i, c) in line.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (None, '\'' | '"') => quote = Some(c),
            (None, '#') if prev_space => return line[..i].to_string(),
            _ => {}
        }
        prev_space = c.is_whitespace();
    }
    line.to_string()
}

/// Shell words of `line`: whitespace-separated, single and double quotes removed.
fn words(line: &str) -> Vec<String> {
    let (mut out, mut cur, mut quote, mut any) = (Vec::new(), String::new(), None, false);
    for c in line.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => cur.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                any = true;
            }
            (None, c) if c.is_whitespace() => {
                if any || !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
                any = false;
            }
            (None, c) => cur.push(c),
        }
    }
    if any || !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// A documented invocation: the environment it sets, and peakbench's arguments.
#[derive(Debug)]
struct Invocation {
    page: String,
    line: String,
    env: Vec<(String, String)>,
    args: Vec<String>,
}

/// Every peakbench invocation of the pages' `sh` blocks (`VAR=value` prefixes kept as
/// its environment; `cargo run --release -- ARGS` is `peakbench ARGS`).
fn invocations() -> Vec<Invocation> {
    let mut out = Vec::new();
    for (path, text) in pages() {
        let page = path.strip_prefix(root()).unwrap().display().to_string();
        for line in sh_lines(&text) {
            let mut w = words(&line);
            let mut env = Vec::new();
            while let Some((k, v)) = w.first().and_then(|x| x.split_once('=')) {
                if k.is_empty() || !k.chars().all(|c| c.is_ascii_uppercase() || c == '_') {
                    break;
                }
                env.push((k.to_string(), v.to_string()));
                w.remove(0);
            }
            let mut args = if w.first().is_some_and(|x| x == "peakbench") {
                w[1..].to_vec()
            } else if w.starts_with(&[
                "cargo".into(),
                "run".into(),
                "--release".into(),
                "--".into(),
            ]) {
                w[4..].to_vec()
            } else {
                continue;
            };
            // The shell's part of the line (a redirection, a pipe, the next command).
            if let Some(end) = args
                .iter()
                .position(|a| matches!(a.as_str(), ">" | ">>" | "2>" | "|" | "&&" | "||" | ";"))
            {
                args.truncate(end);
            }
            out.push(Invocation {
                page: page.clone(),
                line,
                env,
                args,
            });
        }
    }
    out
}

/// Documented commands not run here, each with why: they name what only another machine
/// has. Keep it short: a command that can run belongs out of it.
const SKIP: &[(&str, &str)] = &[
    (
        "--blas openblas,/opt/lib/libfoo.so",
        "an example path of a BLAS file: a library named by a path that does not exist is refused (exit 2)",
    ),
    (
        "$(hostname)",
        "a line of a script run as written by its own test (tests/it/gate_ci.rs): the host's name is the shell's",
    ),
    (
        "\"$DIR/",
        "a line of a script whose variables its own test sets: docs/baseline.md's cron and CI examples run as written in tests/it/gate_ci.rs",
    ),
    (
        "--prom-file /var/lib/node_exporter/",
        "node_exporter's textfile directory: --prom-file is refused before measuring where that directory does not exist",
    ),
];

/// Every subcommand's name: the first of them on a line is its command.
const COMMANDS: &[&str] = &[
    "sysinfo",
    "cpu",
    "memory",
    "disk",
    "net",
    "serve",
    "gpu",
    "linalg",
    "report",
    "compare",
    "fleet",
    "reference",
    "history",
    "baseline",
    "check",
    "null",
];

/// Commands that measure nothing and only read: run as documented when every file they
/// name exists.
const READERS: &[&str] = &["sysinfo", "report", "compare", "fleet", "reference"];

/// The subcommand of `args` (the first word that names one), if any.
fn subcommand(args: &[String]) -> Option<&str> {
    args.iter()
        .map(String::as_str)
        .find(|a| COMMANDS.contains(a))
}

/// Whether `args` is a measuring command: the quick suite, a resource's, or
/// `reference --run` (`gpu --list` measures nothing).
fn measures(args: &[String]) -> bool {
    let has = |f: &str| args.iter().any(|a| a == f);
    match subcommand(args) {
        None => true,
        Some("cpu" | "memory" | "disk" | "net" | "linalg") => true,
        Some("gpu") => !has("--list"),
        Some("reference") => has("--run"),
        Some(_) => false,
    }
}

#[test]
fn every_documented_command_runs_or_plans() {
    let all = invocations();
    assert!(
        all.len() >= 40,
        "only {} documented commands found: did the pages lose their sh blocks?",
        all.len()
    );
    // The front page's sample commands are among them.
    assert!(all.iter().any(|i| i.page == "README.md"));
    let mut failures = Vec::new();
    for inv in &all {
        if let Some((_, why)) = SKIP.iter().find(|(s, _)| inv.line.contains(s)) {
            eprintln!("skipped: {}: {} ({why})", inv.page, inv.line);
            continue;
        }
        let reads = READERS.contains(&subcommand(&inv.args).unwrap_or(""))
            && !measures(&inv.args)
            && inv.args.iter().skip(1).all(|a| {
                a.starts_with('-')
                    || !(a.ends_with(".json") || a.contains('/'))
                    || root().join(a).exists()
            });
        let mut c = common::pb();
        c.current_dir(root())
            .timeout(std::time::Duration::from_secs(120));
        // Before the subcommand, where every command parses the common options
        // (`history show`'s own subcommand does not take it after).
        if !reads && !inv.args.iter().any(|a| a == "--dry-run") {
            c.arg("--dry-run");
        }
        c.args(&inv.args);
        for (k, v) in &inv.env {
            c.env(k, v);
        }
        let out = c.output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        let stdout = String::from_utf8_lossy(&out.stdout);
        // An example for hardware this machine lacks (`--isa avx512` on a CPU without
        // it, a second GPU) is refused for that alone: the rest of its line was accepted.
        let lacks = err.contains("this CPU lacks")
            || (err.contains("--device:") && err.contains("is out of range"));
        if out.status.code() == Some(2) && lacks {
            eprintln!("skipped here: {}: {} ({})", inv.page, inv.line, err.trim());
            continue;
        }
        let ok = if reads {
            out.status.success()
        } else if measures(&inv.args) {
            out.status.success() && stdout.contains("dry run: nothing was measured")
        } else {
            // Refused for --dry-run alone: the rest of the line was accepted.
            out.status.code() == Some(2)
                && err.contains("--dry-run")
                && err.contains("only a measuring command")
        };
        if !ok {
            failures.push(format!(
                "{}: `{}` (run as {}{:?}): exit {:?}\n{}",
                inv.page,
                inv.line,
                if reads { "" } else { "--dry-run " },
                inv.args,
                out.status.code(),
                err.trim_end()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// GitHub's anchor of a heading: lower case, punctuation but `-` and `_` dropped, spaces
/// as `-`.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors of `text`'s headings (outside fenced blocks).
fn anchors(text: &str) -> Vec<String> {
    let mut fence = false;
    let mut out = Vec::new();
    for l in text.lines() {
        if l.trim_start().starts_with("```") {
            fence = !fence;
        } else if !fence && l.starts_with('#') {
            out.push(anchor(l.trim_start_matches('#')));
        }
    }
    out
}

/// Pages other branches of this round write (linked before they land); a link to one of
/// them passes while it is missing. Remove an entry once its page is in.
const WRITTEN_ELSEWHERE: &[&str] = &[];

#[test]
fn every_relative_link_of_the_docs_resolves() {
    let mut bad = Vec::new();
    let mut count = 0;
    for (path, text) in pages() {
        let dir = path.parent().unwrap();
        let mut fence = false;
        for line in text.lines() {
            if line.trim_start().starts_with("```") {
                fence = !fence;
                continue;
            }
            if fence {
                continue;
            }
            for (i, _) in line.match_indices("](") {
                let rest = &line[i + 2..];
                let Some(end) = rest.find(')') else { continue };
                let target = &rest[..end];
                if target.contains("://") || target.starts_with("mailto:") {
                    continue;
                }
                count += 1;
                let (file, frag) = target.split_once('#').unwrap_or((target, ""));
                let file_path = if file.is_empty() {
                    path.clone()
                } else {
                    dir.join(file)
                };
                let rel = file_path
                    .canonicalize()
                    .ok()
                    .and_then(|p| p.strip_prefix(root()).ok().map(Path::to_path_buf));
                if !file_path.exists() {
                    let named = dir
                        .join(file)
                        .components()
                        .filter(|c| !matches!(c, std::path::Component::CurDir))
                        .collect::<PathBuf>();
                    let pending = WRITTEN_ELSEWHERE
                        .iter()
                        .any(|w| named.ends_with(w) || root().join(w) == named);
                    if !pending {
                        bad.push(format!("{}: {target}: no such file", path.display()));
                    }
                    continue;
                }
                if !frag.is_empty() {
                    let t = std::fs::read_to_string(&file_path).unwrap_or_default();
                    if !anchors(&t).iter().any(|a| a == frag) {
                        bad.push(format!(
                            "{}: {target}: no heading with the anchor #{frag} in {rel:?}",
                            path.display()
                        ));
                    }
                }
            }
        }
    }
    assert!(count > 50, "only {count} relative links found");
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// The front page stays a front page: under 300 lines, the two commands first.
#[test]
fn the_readme_is_a_front_page() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let n = readme.lines().count();
    assert!(
        n < 300,
        "README.md has {n} lines; the rest belongs under docs/"
    );
    let first_block = readme.split("```sh\n").nth(1).unwrap();
    assert!(
        first_block.starts_with("cargo run --release "),
        "{first_block}"
    );
    // Every page of docs/ is reachable from the guide's index.
    let index = std::fs::read_to_string(root().join("docs/README.md")).unwrap();
    for (path, _) in pages() {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if path.parent() == Some(&root().join("docs")) && name != "README.md" {
            assert!(
                index.contains(&format!("]({name})")),
                "docs/README.md does not link {name}"
            );
        }
    }
}

#[test]
fn the_extractor_reads_shell_lines() {
    let text = "```sh\nA=1 peakbench history show 'memory triad' # a comment\npeakbench x \\\n  --y 2\n```\n```text\npeakbench no\n```\n";
    assert_eq!(
        sh_lines(text),
        [
            "A=1 peakbench history show 'memory triad'",
            "peakbench x    --y 2"
        ]
    );
    assert_eq!(
        words("A=1 peakbench history show 'memory triad'"),
        ["A=1", "peakbench", "history", "show", "memory triad"]
    );
}
