//! The gate in cron and CI (issue #44 items 5 and 8): docs/baseline.md's cron and CI
//! examples run as written, and the JUnit file of `check --junit` validated against
//! tests/fixtures/junit-10.xsd with `xmllint --schema` (Debian package `libxml2-utils`,
//! which `.ci/run` installs; without it the schema check says so and skips).
//!
//! The examples run with `peakbench` on `PATH` as a small wrapper around the built
//! binary that turns the measuring command (`cpu`, `quick`) into the test-only `null`
//! workload (one thread, three short samples), so each night takes seconds; every other
//! command line, the gate's included, runs as the page writes it. Nothing here
//! checks speed: a busy machine may make the gate fail or be inconclusive, so the
//! tests check the wiring (exit codes among those documented, files written, the JUnit
//! file valid).

use super::gate::{fixture, run_file};
use crate::common;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The fenced block after `<!-- example: NAME -->` in docs/baseline.md.
fn example(name: &str) -> String {
    let doc =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/baseline.md"))
            .unwrap();
    let marker = format!("<!-- example: {name} -->");
    let at = doc
        .find(&marker)
        .unwrap_or_else(|| panic!("{marker} not in docs/baseline.md"));
    let rest = &doc[at + marker.len()..];
    let open = rest.find("```").unwrap();
    let body = &rest[open..];
    let body = &body[body.find('\n').unwrap() + 1..];
    body[..body.find("```").unwrap()].to_string()
}

/// A `bin/` folder holding `peakbench`: the built binary, the measuring commands
/// turned into the `null` workload.
fn wrapper(dir: &Path) -> PathBuf {
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let script = format!(
        "#!/bin/sh\ncase \"$1\" in\n  cpu|quick) shift; exec '{0}' null --threads 1 --repeat 3 --min-time 20ms \"$@\" ;;\nesac\nexec '{0}' \"$@\"\n",
        common::bin().display()
    );
    let p = bin.join("peakbench");
    std::fs::write(&p, script).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    bin
}

/// A shell in `dir` with the wrapper first on `PATH` and its own data directory.
fn shell(dir: &Path, bin: &Path) -> Command {
    let mut c = Command::new("sh");
    common::clean_env(&mut c);
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_else(|_| "/usr/bin:/bin".into())
    );
    c.current_dir(dir)
        .env("PATH", path)
        .env("XDG_DATA_HOME", dir.join("xdg"))
        .env("HOME", dir);
    c
}

/// `xmllint --noout --schema tests/fixtures/junit-10.xsd FILE`: `Err` with its
/// output when invalid, `Ok(false)` when xmllint is not installed (said on stderr).
fn valid_junit(file: &Path) -> Result<bool, String> {
    let xsd = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/junit-10.xsd");
    match Command::new("xmllint")
        .args(["--noout", "--schema"])
        .arg(&xsd)
        .arg(file)
        .output()
    {
        Ok(o) if o.status.success() => Ok(true),
        Ok(o) => Err(format!(
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        )),
        Err(e) => {
            eprintln!(
                "skipping the junit-10.xsd check: xmllint not runnable ({e}); apt-get install libxml2-utils"
            );
            Ok(false)
        }
    }
}

/// The cron example, three nights: the first two cannot check yet (exit 2: the
/// history holds fewer than 2 runs), the third checks (0, 1 or 3) and writes its JUnit
/// and JSON files and the metrics file; the JUnit file is valid.
#[test]
fn the_cron_example_runs_as_written() {
    let d = tempfile::tempdir().unwrap();
    let bin = wrapper(d.path());
    let script = d.path().join("peakbench-cpu");
    std::fs::write(&script, example("cron")).unwrap();
    let state = d.path().join("state");
    let night = || {
        let o = shell(d.path(), &bin)
            .arg(&script)
            .env("PEAKBENCH_DIR", &state)
            .output()
            .unwrap();
        (
            o.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    for i in 0..2 {
        let (code, err) = night();
        assert_eq!(code, 2, "night {i}: {err}");
        assert!(
            err.contains("--against: ") && err.contains("record more runs"),
            "{err}"
        );
    }
    let (code, err) = night();
    assert!([0, 1, 3].contains(&code), "night 3 exited {code}: {err}");
    let prom = std::fs::read_to_string(state.join("textfile/peakbench-cpu.prom")).unwrap();
    assert!(prom.contains("command=\"null\""), "{prom}");
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(state.join("cpu/check.json")).unwrap()).unwrap();
    assert_eq!(json["schema"], "peakbench-check/1");
    let outcome = json["outcome"].as_str().unwrap();
    assert_eq!(
        code,
        match outcome {
            "pass" => 0,
            "fail" => 1,
            _ => 3,
        },
        "{json}"
    );
    if let Err(e) = valid_junit(&state.join("cpu/check.xml")) {
        panic!("check.xml is not valid under junit-10.xsd: {e}");
    }
}

/// The CI example: the first baseline, then the GitLab job's script lines, each run
/// as GitLab runs them (stop at the first that fails); the check's JUnit file valid.
#[test]
fn the_ci_example_runs_as_written() {
    let d = tempfile::tempdir().unwrap();
    let bin = wrapper(d.path());
    for line in example("first-baseline")
        .lines()
        .filter(|l| !l.trim().is_empty())
    {
        let o = shell(d.path(), &bin).args(["-c", line]).output().unwrap();
        common::assert_success(&o, line);
    }
    let base = std::fs::read_to_string(d.path().join("baseline.toml")).unwrap();
    assert!(base.contains("command = \"null\""), "{base}");
    let job = example("gitlab");
    let script: Vec<&str> = job
        .lines()
        .skip_while(|l| l.trim() != "script:")
        .skip(1)
        .map_while(|l| l.trim().strip_prefix("- "))
        .collect();
    assert_eq!(script.len(), 2, "{job}");
    let o = shell(d.path(), &bin)
        .args(["-c", script[0]])
        .output()
        .unwrap();
    common::assert_success(&o, script[0]);
    let o = shell(d.path(), &bin)
        .args(["-c", script[1]])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    // Pass, fail, or inconclusive on a busy machine (the job's allowed exit code).
    assert!(matches!(o.status.code(), Some(0 | 1 | 3)), "{err}");
    assert!(
        job.contains("junit: check.xml") && job.contains("exit_codes: [3]"),
        "{job}"
    );
    if let Err(e) = valid_junit(&d.path().join("check.xml")) {
        panic!("check.xml is not valid under junit-10.xsd: {e}");
    }
}

/// A check with every kind of row (pass, regressed, missing, inconclusive) and hostile
/// names: the JUnit file is valid under junit-10.xsd.
#[test]
fn junit_is_valid_under_the_junit_10_schema() {
    let d = tempfile::tempdir().unwrap();
    let b = super::gate::baseline_of(d.path(), &fixture());
    let run = run_file(d.path(), "run.json", |v| {
        v["host"]["hostname"] = "node\u{202e}7\u{7f}".into();
        let rs = v["results"].as_array_mut().unwrap();
        for s in rs[0]["samples"].as_array_mut().unwrap() {
            *s = (s.as_f64().unwrap() * 0.5).into();
        }
        rs.remove(2);
    });
    let junit = d.path().join("check.xml");
    let o = common::pb()
        .args(["check", "--baseline"])
        .arg(&b)
        .arg(&run)
        .arg("--junit")
        .arg(&junit)
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let xml = std::fs::read_to_string(&junit).unwrap();
    for raw in ['\u{202e}', '\u{7f}'] {
        assert!(!xml.contains(raw), "{raw:?} raw in {xml}");
    }
    assert!(
        xml.contains("<failure") && xml.contains("<skipped"),
        "{xml}"
    );
    assert!(
        xml.contains("<testsuite name=\"peakbench check on node\\u{202e}7\\x7f\""),
        "{xml}"
    );
    if let Err(e) = valid_junit(&junit) {
        panic!("not valid under junit-10.xsd: {e}\n{xml}");
    }
    // The schema refuses what it should: `skipped` on <testsuites>.
    let bad = d.path().join("bad.xml");
    std::fs::write(
        &bad,
        xml.replacen(
            "<testsuites name=\"peakbench check\"",
            "<testsuites skipped=\"1\" name=\"peakbench check\"",
            1,
        ),
    )
    .unwrap();
    if valid_junit(&junit) == Ok(true) {
        assert!(
            valid_junit(&bad).is_err(),
            "the schema accepted skipped on <testsuites>"
        );
    }
}
