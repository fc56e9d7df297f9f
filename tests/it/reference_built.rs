//! The reference tools users build from source (pmbw, IOZone), replaced by fakes that
//! log their arguments and answer like the real tools, found by `$PEAKBENCH_<TOOL>` or
//! on `PATH`: the command each gets matches the row beside which its figure stands, and
//! what they write is gone afterwards.

use crate::common;

use serde_json::Value;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::Duration;

fn write_exe(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

fn fixture(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/tools")
        .join(name)
        .display()
        .to_string()
}

fn notes(r: &Value) -> Vec<String> {
    r["notes"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|n| n["text"].as_str().map(str::to_string))
        .collect()
}

/// pmbw, found by `$PEAKBENCH_PMBW` (not on `PATH`), runs once per read or write row
/// with the row's function, threads and array size, in a directory of its own that is
/// gone afterwards; its bandwidth stands beside the row. The fake answers with a RESULT
/// line for what it was asked (`-f F -p T -P T -s A …`).
#[test]
fn pmbw_runs_the_rows_scan_and_leaves_nothing() {
    let bin = common::scratch_dir();
    let out = common::scratch_dir();
    let log = bin.path().join("pmbw.log");
    let fake = bin.path().join("my-pmbw");
    write_exe(
        &fake,
        &format!(
            "#!/bin/sh\necho \"$* @ $(pwd)\" >> '{}'\necho partial > stats.txt\n\
             printf 'RESULT\\tdatetime=x\\thost=h\\tversion=0.6.3\\tfuncname=%s\\tnthreads=%s\\tareasize=%s\\tbandwidth=12345678901.5\\n' \"$2\" \"$4\" \"$8\"\n",
            log.display()
        ),
    );
    let o = common::pb()
        .env("PEAKBENCH_PMBW", &fake)
        .args(["memory", "--kernel", "read,write,copy", "--size", "1MiB"])
        .args(["--threads", "1", "--repeat", "1", "--min-time", "5ms"])
        .args([
            "--reference",
            "--quiet",
            "--no-history",
            "--format",
            "json",
            "--output",
        ])
        .arg(out.path())
        .timeout(Duration::from_secs(120))
        .output()
        .unwrap();
    common::assert_success(&o, "memory --reference with pmbw");
    let runs: Vec<String> = std::fs::read_to_string(&log)
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect();
    let report: Value = serde_json::from_slice(&o.stdout).unwrap();
    let mut seen = 0;
    for r in report["results"].as_array().unwrap() {
        let kernel = r["params"]["kernel"].as_str().unwrap();
        let pmbw = r["reference"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|x| x["tool"] == "pmbw");
        let text = notes(r).join(" | ");
        if kernel == "copy" {
            assert!(pmbw.is_none() && !text.contains("reference pmbw"), "{r}");
            continue;
        }
        if r["params"]["nt"] == true {
            assert!(text.contains("reference pmbw: not run"), "{text}");
            continue;
        }
        let x = pmbw.unwrap_or_else(|| panic!("no pmbw figure: {r}"));
        assert_eq!(x["value"].as_f64().unwrap(), 12345678901.5);
        assert_eq!(x["version"], "0.6.3");
        let op = if kernel == "read" { "Read" } else { "Write" };
        let width = match r["params"]["isa"].as_str().unwrap() {
            "avx2" | "avx512" => "256",
            _ => "128",
        };
        let want = format!(
            "{} -f Scan{op}{width}PtrUnrollLoop -p 1 -P 1 -s 1048576 -S 1048576 -M 16777216",
            fake.display()
        );
        if cfg!(target_arch = "x86_64") {
            assert_eq!(x["command"], want.as_str(), "{r}");
        }
        let args = x["command"].as_str().unwrap().split_once(' ').unwrap().1;
        assert!(
            runs.iter().any(|l| l.starts_with(args)),
            "{args} in {runs:?}"
        );
        seen += 1;
    }
    assert!(seen >= 2, "{report}");
    // One run per distinct command, each in a directory that is gone now.
    let mut cmds: Vec<&str> = runs
        .iter()
        .map(|l| l.split(" @ ").next().unwrap())
        .collect();
    let n = cmds.len();
    cmds.dedup();
    assert_eq!(cmds.len(), n, "{runs:?}");
    for l in &runs {
        let dir = l.split(" @ ").nth(1).unwrap();
        assert!(dir.contains("peakbench-pmbw-"), "{dir}");
        assert!(!Path::new(dir).exists(), "{dir} left behind");
    }
    // `peakbench reference` shows where it was found.
    let t = common::pb()
        .env("PEAKBENCH_PMBW", &fake)
        .args(["reference", "--format", "json"])
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    common::assert_success(&t, "reference");
    let v: Value = serde_json::from_slice(&t.stdout).unwrap();
    let row = v["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["tool"] == "pmbw")
        .unwrap();
    assert_eq!(row["installed"], true, "{row}");
    assert_eq!(row["path"], fake.display().to_string().as_str(), "{row}");
}

/// IOZone on `PATH`: one run per disk configuration, shared by its write and read
/// rows, with the case's file size, block, jobs and O_DIRECT, on files in `--dir`
/// that are gone afterwards (the fake leaves them, as a cut-off run would). One job
/// reads iozone's table, two its throughput summary.
#[test]
fn iozone_runs_once_per_configuration_in_our_directory() {
    let bin = common::scratch_dir();
    let log = bin.path().join("iozone.log");
    write_exe(
        &bin.path().join("iozone"),
        &format!(
            "#!/bin/sh\nif [ \"$1\" = -v ]; then echo '        Version $Revision: 3.414 $'; exit 0; fi\n\
             echo \"$*\" >> '{log}'\nout='{table}'\n\
             while [ $# -gt 0 ]; do case \"$1\" in -t) out='{tput}';; -f|-F) shift; for f in \"$@\"; do echo x > \"$f\"; done; break;; esac; shift; done\n\
             cat \"$out\"\n",
            log = log.display(),
            table = fixture("iozone_3.414_table.txt"),
            tput = fixture("iozone_3.414_throughput_t2.txt"),
        ),
    );
    let path = format!(
        "{}:{}",
        bin.path().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    // (jobs, file size: the recorded outputs' 16 MiB for one job, 8 MiB for two;
    // expected write and read figures in kB/s of 1024 B).
    for (jobs, size, write, read) in [
        ("1", "16MiB", 1479244.0, 1087922.0),
        ("2", "8MiB", 2286867.50, 5728718.00),
    ] {
        let dir = common::scratch_dir();
        let out = common::scratch_dir();
        let _ = std::fs::remove_file(&log);
        let o = common::pb()
            .env("PATH", &path)
            .args(["disk", "--dir"])
            .arg(dir.path())
            .args(["--engine", "sync", "--file-size", size, "--block", "64KiB"])
            .args([
                "--pattern",
                "seq-write,seq-read",
                "--depth",
                "1",
                "--jobs",
                jobs,
            ])
            .args(["--runtime", "100ms", "--ramp", "0", "--repeat", "1"])
            .args([
                "--reference",
                "--quiet",
                "--no-history",
                "--format",
                "json",
                "--output",
            ])
            .arg(out.path())
            .timeout(Duration::from_secs(120))
            .output()
            .unwrap();
        common::assert_success(&o, "disk --reference with iozone");
        let runs: Vec<String> = std::fs::read_to_string(&log)
            .unwrap()
            .lines()
            .map(str::to_string)
            .collect();
        assert_eq!(
            runs.len(),
            1,
            "one run for the write and read rows: {runs:?}"
        );
        let d = dir.path().display();
        let files = if jobs == "1" {
            format!("-f {d}/peakbench-iozone.0")
        } else {
            format!("-t 2 -F {d}/peakbench-iozone.0 {d}/peakbench-iozone.1")
        };
        let kib = if jobs == "1" { 16384 } else { 8192 };
        assert_eq!(
            runs[0],
            format!("-s {kib}k -r 64k -i 0 -i 1 -+n -I {files}")
        );
        let left: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with("peakbench-iozone"))
            .collect();
        assert!(left.is_empty(), "{left:?}");
        let report: Value = serde_json::from_slice(&o.stdout).unwrap();
        let mut seen = 0;
        for r in report["results"].as_array().unwrap() {
            let x = r["reference"]
                .as_array()
                .into_iter()
                .flatten()
                .find(|x| x["tool"] == "iozone");
            if r["metric"] != "throughput" {
                assert!(x.is_none(), "{r}");
                continue;
            }
            let x = x.unwrap_or_else(|| panic!("no iozone figure: {r}"));
            let want = if r["params"]["pattern"] == "seq-write" {
                write
            } else {
                read
            } * 1024.0;
            assert_eq!(x["value"].as_f64().unwrap(), want, "{r}");
            assert_eq!(x["version"], "3.414");
            seen += 1;
        }
        assert_eq!(seen, 2, "{report}");
    }
}
