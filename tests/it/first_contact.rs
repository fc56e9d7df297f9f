//! Issue #32, first contact (second round): the README's test command passes in any
//! ordinary shell (A), help fits the terminal (C), durations need their unit, long runs
//! show their plan and `--dry-run` shows only that (D), typos get a did-you-mean and
//! every problem of a command line is reported at once (E). Nothing here checks speed.

use crate::common;

use common::pb;
use std::path::Path;

/// Every module file of the test binary (`tests/it/*.rs`; `common` aside), with its text.
fn test_sources() -> Vec<(String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it");
    let mut out = Vec::new();
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "rs") {
            let name = p.file_name().unwrap().to_string_lossy().to_string();
            out.push((name, std::fs::read_to_string(&p).unwrap()));
        }
    }
    out
}

/// B: the README's second command reuses the first's build: both use the release
/// profile, which therefore has no fat LTO (that made every test binary a whole-program
/// link, so the tests had their own profile and compiled everything twice); the README
/// says how long both take, and `.ci/run` runs exactly that command.
#[test]
fn the_test_command_reuses_the_release_build_and_says_how_long() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let first = readme
        .split("```sh\n")
        .nth(1)
        .and_then(|b| b.split("```").next())
        .unwrap();
    let commands: Vec<&str> = first
        .lines()
        .map(|l| l.split('#').next().unwrap().trim())
        .collect();
    assert_eq!(commands, ["cargo run --release", "cargo test --release"]);
    let after = &readme[readme.find(first).unwrap() + first.len()..];
    let said = &after[..after.len().min(700)];
    assert!(
        said.contains("minutes") && said.contains("reuses that build"),
        "the README's first lines say how long the build and the tests take: {said}"
    );
    let ci = std::fs::read_to_string(root.join(".ci/run")).unwrap();
    assert!(
        ci.lines().any(|l| l.trim() == "cargo test --release"),
        ".ci/run runs the README's test command"
    );
    let toml = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    let release = toml
        .split("[profile.release]")
        .nth(1)
        .and_then(|r| r.split("\n[").next())
        .unwrap();
    for key in ["lto", "codegen-units"] {
        assert!(
            !release.lines().any(|l| l.trim_start().starts_with(key)),
            "the release profile sets {key}: the tests would not share its build"
        );
    }
}

/// A: `COLUMNS=120` exported made three tests of tests/report.rs fail (their
/// `pb()` kept the shell's environment). Every test starts the binary through
/// `common` (clean environment); no file builds its own command of the binary.
#[test]
fn every_test_starts_the_binary_in_a_clean_environment() {
    for (name, text) in test_sources() {
        if name == "first_contact.rs" {
            continue;
        }
        for direct in ["cargo_bin(\"peakbench\")", "CARGO_BIN_EXE_peakbench"] {
            assert!(
                !text.contains(direct),
                "tests/it/{name} starts the binary itself ({direct}); use common::pb, pb_std or clean_env"
            );
        }
    }
    let c = common::pb_std();
    let envs: Vec<_> = c.get_envs().collect();
    for v in [
        "COLUMNS",
        "LINES",
        "NO_COLOR",
        "TERM",
        "LANG",
        "PEAKBENCH_TOKEN",
    ] {
        assert!(
            envs.iter()
                .any(|(k, val)| *k == std::ffi::OsStr::new(v) && val.is_none()),
            "{v} is not removed: {envs:?}"
        );
    }
}

/// The widest line of `text`, in characters.
fn widest(text: &[u8]) -> usize {
    String::from_utf8_lossy(text)
        .lines()
        .map(|l| l.chars().count())
        .max()
        .unwrap_or(0)
}

/// C: `cpu --help` was 113 columns wide (an unbreakable list, and clap's 100-column
/// default). Help fits 80 columns when stdout is no terminal and COLUMNS is unset, and
/// the terminal's width (COLUMNS) otherwise.
#[test]
fn help_wraps_to_80_columns_or_the_terminal() {
    for sub in [
        "",
        "sysinfo",
        "cpu",
        "memory",
        "disk",
        "net",
        "gpu",
        "linalg",
        "serve",
        "report",
        "compare",
        "reference",
        "fleet",
    ] {
        let mut c = pb();
        if !sub.is_empty() {
            c.arg(sub);
        }
        let out = c.arg("--help").output().unwrap();
        assert!(out.status.success(), "{sub}");
        assert!(
            widest(&out.stdout) <= 80,
            "{sub} --help is {} wide",
            widest(&out.stdout)
        );
        let out = pb()
            .args([sub, "--help"])
            .env("COLUMNS", "60")
            .output()
            .unwrap();
        if !sub.is_empty() {
            // The usage line is one line whatever the width.
            let text = String::from_utf8_lossy(&out.stdout);
            let body: Vec<&str> = text.lines().filter(|l| !l.starts_with("Usage:")).collect();
            assert!(
                widest(body.join("\n").as_bytes()) <= 60,
                "{sub} --help at 60"
            );
        }
    }
    // A wide terminal gets the width it has (clap capped it at 100).
    let out = pb()
        .args(["cpu", "--help"])
        .env("COLUMNS", "200")
        .output()
        .unwrap();
    assert!(widest(&out.stdout) > 100, "{}", widest(&out.stdout));
}

/// Runs `args` (with `--output` a fresh directory) and returns (exit code, stderr
/// lines, whether a file was written).
fn refusal(args: &[&str]) -> (Option<i32>, Vec<String>, bool) {
    let dir = tempfile::tempdir().unwrap();
    let out = pb()
        .args(args)
        .arg("--output")
        .arg(dir.path())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(!err.contains("panicked"), "{err}");
    let wrote = std::fs::read_dir(dir.path()).unwrap().count() > 0;
    (
        out.status.code(),
        err.lines().map(str::to_string).collect(),
        wrote,
    )
}

/// D: `cpu --min-time 100` (meant as 100 ms) silently started hours of measuring.
/// Every duration flag refuses a number without a unit, naming the accepted forms.
#[test]
fn a_duration_without_a_unit_is_refused() {
    for args in [
        &["cpu", "--min-time", "100"][..],
        &["cpu", "--sustain", "10"],
        &["cpu", "--sustain", "10s", "--interval", "1"],
        &["net", "--time", "1"],
        &["disk", "--runtime", "2"],
        &["disk", "--ramp", "1"],
        &["disk", "--sustain", "60"],
        &["memory", "--until-stable", "1%", "--stable-budget", "30"],
    ] {
        let (code, lines, wrote) = refusal(args);
        assert_eq!(code, Some(2), "{args:?}: {lines:?}");
        assert_eq!(lines.len(), 1, "{args:?}: {lines:?}");
        assert!(lines[0].contains("has no unit"), "{args:?}: {lines:?}");
        assert!(lines[0].contains("ms, s, m or h"), "{args:?}: {lines:?}");
        assert!(!wrote, "{args:?}");
    }
}

/// D: `--dry-run` prints the plan (every case with its estimated length) and exits 0
/// without measuring or writing anything.
#[test]
fn dry_run_prints_the_plan_and_measures_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let out = pb()
        .args([
            "null",
            "--threads",
            "1,2,3",
            "--repeat",
            "4",
            "--min-time",
            "2s",
        ])
        .arg("--dry-run")
        .arg("--output")
        .arg(dir.path())
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .unwrap();
    let text = common::success_text(&out, "null --dry-run");
    // 3 cases × (warm-up + 4 runs) × 2 s.
    assert!(text.starts_with("plan: 3 cases, about 30s"), "{text}");
    assert_eq!(
        text.lines().filter(|l| l.contains("null")).count(),
        3,
        "{text}"
    );
    assert!(text.contains("nothing was measured"), "{text}");
    assert!(!dir.path().exists() || std::fs::read_dir(dir.path()).unwrap().count() == 0);
    // A command with no plan refuses it.
    let out = pb().args(["sysinfo", "--dry-run"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with("error: --dry-run: only a measuring command"),
        "{err}"
    );
}

/// D: a run planned to last over a minute says so, and how, before it starts.
#[test]
fn a_long_run_prints_its_plan_first() {
    use std::io::{BufRead, BufReader};
    // 60 null cases planned at (warm-up + 1 run) × 1 s: two minutes. The run is
    // stopped once its plan is read.
    let threads = vec!["1"; 60].join(",");
    let dir = tempfile::tempdir().unwrap();
    let mut child = common::pb_std()
        .args([
            "null",
            "--repeat",
            "1",
            "--min-time",
            "1s",
            "--format",
            "json",
        ])
        .args(["--threads", &threads, "--output"])
        .arg(dir.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = BufReader::new(child.stderr.take().unwrap());
    let mut first = String::new();
    let mut second = String::new();
    err.read_line(&mut first).unwrap();
    err.read_line(&mut second).unwrap();
    let _ = child.kill();
    let _ = child.wait();
    assert!(first.starts_with("plan: 60 cases, about 2m 00s"), "{first}");
    assert!(second.contains("null 60; --dry-run lists them"), "{second}");
    // A short run and --quiet say nothing.
    for extra in [&[][..], &["--quiet"]] {
        let out = pb()
            .args([
                "null",
                "--repeat",
                "1",
                "--min-time",
                "1ms",
                "--format",
                "json",
            ])
            .args(["--threads", "1,1", "--output"])
            .arg(dir.path())
            .args(extra)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!err.contains("plan:"), "{err}");
    }
}

/// E: typos get clap's did-you-mean, the hint points at the subcommand's help, a flag
/// another resource names otherwise says so, and every problem of the line is reported
/// at once (exit 2, nothing written).
#[test]
fn typos_and_every_problem_at_once() {
    let (code, lines, _) = refusal(&["memroy"]);
    assert_eq!(code, Some(2));
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(lines[0].contains("did you mean 'memory'?"), "{lines:?}");
    let (_, lines, _) = refusal(&["memory", "--kernal", "copy"]);
    assert!(lines[0].contains("did you mean '--kernel'?"), "{lines:?}");
    assert!(
        lines[0].ends_with("(see peakbench memory --help)"),
        "{lines:?}"
    );
    let (_, lines, _) = refusal(&["cpu", "--precisoin", "fp64"]);
    assert!(
        lines[0].contains("did you mean '--precision'?"),
        "{lines:?}"
    );
    let (_, lines, _) = refusal(&["disk", "--threads", "4"]);
    assert!(lines[0].contains("disk calls it --jobs"), "{lines:?}");
    let (code, lines, wrote) = refusal(&[
        "disk",
        "--threads",
        "4",
        "--pattern",
        "seqread",
        "--block",
        "4X",
        "--time",
        "2s",
    ]);
    assert_eq!(code, Some(2));
    assert!(!wrote);
    assert_eq!(lines.len(), 4, "{lines:?}");
    assert!(lines.iter().all(|l| l.starts_with("error: ")), "{lines:?}");
    assert!(lines.iter().any(|l| l.contains("--pattern")), "{lines:?}");
    assert!(lines.iter().any(|l| l.contains("--block")), "{lines:?}");
    assert!(
        lines.iter().any(|l| l.contains("disk calls it --runtime")),
        "{lines:?}"
    );
}

/// G: `sysinfo` was silent for 12 s; it says what it is doing first (and the bar
/// follows the kernels on a terminal); `--quiet` says nothing.
#[test]
fn sysinfo_says_what_it_measures() {
    let out = pb().args(["sysinfo", "--format", "json"]).output().unwrap();
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.starts_with("sysinfo: detecting the hardware"), "{err}");
    let out = pb()
        .args(["sysinfo", "--format", "json", "--quiet"])
        .output()
        .unwrap();
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// G: the quick suite says before it starts that its disk cases write a 256 MiB file
/// into the current directory, and names it.
#[test]
fn the_quick_suite_names_its_disk_file_first() {
    let here = tempfile::tempdir().unwrap();
    let out = pb()
        .arg("--dry-run")
        .current_dir(here.path())
        .timeout(std::time::Duration::from_secs(120))
        .output()
        .unwrap();
    let text = common::success_text(&out, "peakbench --dry-run");
    let canon = here.path().canonicalize().unwrap();
    assert!(
        text.contains("write a 256 MiB file into the current directory")
            && (text.contains(&*here.path().to_string_lossy())
                || text.contains(&*canon.to_string_lossy())),
        "{text}"
    );
}
