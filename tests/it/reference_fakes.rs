//! Reference tools replaced by fakes on `PATH` that print a captured output from
//! `tests/fixtures/tools/` and log each invocation, so that what peakbench runs (how
//! often, with which arguments) is checked without the real tools or their time.

use crate::common;

use serde_json::Value;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

fn scratch() -> tempfile::TempDir {
    common::scratch_dir()
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/tools")
        .join(name)
}

/// Writes an executable `name` into `bin` that answers `--version` with `version`
/// and otherwise logs its arguments to `log` (one line per run) and prints `output`.
fn fake_tool(bin: &Path, name: &str, version: &str, output: &Path, log: &Path) {
    let script = format!(
        "#!/bin/sh\nif [ \"$1\" = \"--version\" ]; then echo '{version}'; exit 0; fi\necho \"$*\" >> '{}'\ncat '{}'\n",
        log.display(),
        output.display()
    );
    let p = bin.join(name);
    std::fs::write(&p, script).unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
}

fn path_with(bin: &Path) -> String {
    format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

fn logged(log: &Path) -> Vec<String> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

/// Issue #32 item 2: fio runs once per disk configuration, with the case's file size,
/// and the configuration's throughput, IOPS and latency rows share that run's figures.
#[test]
fn fio_runs_once_per_configuration_with_the_cases_file_size() {
    let bin = scratch();
    let dir = scratch();
    let out = scratch();
    let log = bin.path().join("fio.log");
    fake_tool(
        bin.path(),
        "fio",
        "fio-3.33",
        &fixture("fio_randread.json"),
        &log,
    );
    let o = common::pb()
        .env("PATH", path_with(bin.path()))
        .args(["disk", "--dir"])
        .arg(dir.path())
        .arg("--output")
        .arg(out.path())
        .args([
            "--quiet",
            "--reference",
            "--engine",
            "sync",
            "--file-size",
            "4MiB",
            "--pattern",
            "rand-read",
            "--block",
            "4KiB",
            "--depth",
            "1",
            "--jobs",
            "1,2",
            "--runtime",
            "100ms",
            "--ramp",
            "0",
            "--repeat",
            "1",
            "--format",
            "json",
        ])
        .timeout(Duration::from_secs(120))
        .output()
        .unwrap();
    common::assert_success(&o, "o");
    let runs = logged(&log);
    assert_eq!(runs.len(), 2, "one fio run per configuration: {runs:?}");
    for (run, jobs) in runs.iter().zip(["1", "2"]) {
        assert!(run.contains("--size=4194304"), "{run}");
        assert!(!run.contains("--size=256M"), "{run}");
        assert!(run.contains(&format!("--numjobs={jobs}")), "{run}");
    }
    let report: Value = serde_json::from_slice(&o.stdout).unwrap();
    let rows = report["results"].as_array().unwrap();
    assert_eq!(rows.len(), 6);
    // The fixture: 77828091 B/s, 19000.999 IO/s, clat mean 51626.99 ns (read only).
    for r in rows {
        let refs = r["reference"]
            .as_array()
            .expect("a fio figure on every row");
        assert_eq!(refs.len(), 1, "{r}");
        let (v, want) = (
            refs[0]["value"].as_f64().unwrap(),
            match r["metric"].as_str().unwrap() {
                "throughput" => 77_828_091.0,
                "iops" => 19_000.999_001,
                "latency" => 51_626.988_749e-9,
                m => panic!("{m}"),
            },
        );
        assert!((v - want).abs() <= want * 1e-9, "{v} vs {want}: {r}");
    }
    // The three rows of a configuration name the same fio command.
    for cfg in rows.chunks(3) {
        let cmd = |i: usize| {
            cfg[i]["reference"][0]["command"]
                .as_str()
                .unwrap()
                .to_string()
        };
        assert_eq!(cmd(0), cmd(1));
        assert_eq!(cmd(1), cmd(2));
    }
}

/// Issue #32 item 8: hpcc's STREAM beside the DRAM copy and triad rows. A fake `mpirun`
/// logs `-np` and the HPL order of the `hpccinf.txt` it was given, and writes the
/// recorded `hpccoutf.txt` (its rank count set to `-np`): one hpcc run per thread
/// count, sized so STREAM's three arrays hold the case's bytes per thread; SingleSTREAM
/// beside one thread, StarSTREAM × ranks beside two.
#[test]
fn hpcc_runs_stream_once_per_thread_count_beside_dram_rows() {
    let bin = scratch();
    let out = scratch();
    let log = bin.path().join("mpirun.log");
    let fixture = fixture("hpcc_1.5.0_hpccoutf.txt");
    let mpirun = format!(
        "#!/bin/sh\nnp=0\nwhile [ $# -gt 0 ]; do [ \"$1\" = \"-np\" ] && np=$2; shift; done\n\
         echo \"np=$np N=$(sed -n 6p hpccinf.txt | awk '{{print $1}}')\" >> '{}'\n\
         sed \"s/^CommWorldProcs=.*/CommWorldProcs=$np/\" '{}' > hpccoutf.txt\n",
        log.display(),
        fixture.display()
    );
    for (name, text) in [("mpirun", mpirun.as_str()), ("hpcc", "#!/bin/sh\nexit 0\n")] {
        let p = bin.path().join(name);
        std::fs::write(&p, text).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    // A DRAM working set here: twice the last-level cache, at least 64 MiB.
    let l3 = std::fs::read_to_string("/sys/devices/system/cpu/cpu0/cache/index3/size")
        .ok()
        .and_then(|s| s.trim().trim_end_matches('K').parse::<u64>().ok())
        .map_or(0, |k| k << 10);
    let mib = (2 * l3).max(64 << 20).div_ceil(1 << 20);
    let o = common::pb()
        .env("PATH", path_with(bin.path()))
        .args(["memory", "--kernel", "copy,triad", "--threads", "1,2"])
        .args(["--size", &format!("{mib}MiB")])
        .args([
            "--repeat",
            "1",
            "--min-time",
            "10ms",
            "--reference",
            "--quiet",
        ])
        .args(["--format", "json", "--output"])
        .arg(out.path())
        .timeout(Duration::from_secs(300))
        .output()
        .unwrap();
    common::assert_success(&o, "o");
    let runs = logged(&log);
    assert_eq!(runs.len(), 2, "one hpcc run per thread count: {runs:?}");
    let report: Value = serde_json::from_slice(&o.stdout).unwrap();
    let rows = report["results"].as_array().unwrap();
    let mut seen = 0;
    for r in rows {
        let t = r["params"]["threads"].as_u64().unwrap();
        let kernel = r["params"]["kernel"].as_str().unwrap();
        let refs = r["reference"].as_array().expect("an hpcc figure");
        let x = refs.iter().find(|x| x["tool"] == "hpcc").unwrap();
        // The recorded output: SingleSTREAM Copy 36.3603, Triad 35.5972; StarSTREAM
        // Copy 12.4326, Triad 15.4588 GB/s per rank.
        let want = match (kernel, t) {
            ("copy", 1) => 36.3603e9,
            ("triad", 1) => 35.5972e9,
            ("copy", 2) => 2.0 * 12.4326e9,
            ("triad", 2) => 2.0 * 15.4588e9,
            k => panic!("{k:?}"),
        };
        let v = x["value"].as_f64().unwrap();
        assert!((v - want).abs() < 1e3, "{v} vs {want}: {r}");
        // The run had this row's ranks and an HPL order whose STREAM arrays hold the
        // row's bytes per thread (3 arrays of N²/(3T) elements).
        let cmd = x["command"].as_str().unwrap();
        assert!(cmd.contains(&format!("-np {t}")), "{cmd}");
        let run = runs
            .iter()
            .find(|l| l.starts_with(&format!("np={t} ")))
            .unwrap();
        let n: u64 = run.rsplit('=').next().unwrap().parse().unwrap();
        let e = (mib << 20) / t / 24;
        assert!(
            n * n / (3 * t) >= e && (n - 1) * (n - 1) / (3 * t) < e,
            "{run}"
        );
        let notes = r["notes"].to_string();
        assert!(notes.contains("best of 10"), "{notes}");
        seen += 1;
    }
    assert_eq!(seen, 4);
}

/// Issue #45 item 7: likwid-bench ran once per row, and one command gave 21.85, 32.71
/// and 32.64 GB/s beside three rows. It runs as many times as the case has samples,
/// once per configuration, and the mean of those runs stands beside the row, the runs
/// in a note. The SSE2 fp64 kernel exists on every x86-64 CPU.
#[cfg(target_arch = "x86_64")]
#[test]
fn likwid_runs_once_per_configuration_repeated_like_the_case() {
    let bin = scratch();
    let out = scratch();
    let log = bin.path().join("likwid.log");
    fake_tool(
        bin.path(),
        "likwid-bench",
        "likwid-bench -- Version 5.2.2",
        &fixture("likwid-bench_peakflops_avx512_fma.txt"),
        &log,
    );
    let o = common::pb()
        .env("PATH", path_with(bin.path()))
        .args([
            "cpu",
            "--precision",
            "fp64",
            "--isa",
            "sse2",
            "--threads",
            "1",
            "--repeat",
            "3",
            "--min-time",
            "5ms",
            "--quiet",
            "--no-history",
            "--reference",
            "--format",
            "json",
            "--output",
        ])
        .arg(out.path())
        .timeout(Duration::from_secs(120))
        .output()
        .unwrap();
    common::assert_success(&o, "cpu --reference");
    // Its version is read with `-h` first.
    let runs: Vec<String> = logged(&log).into_iter().filter(|r| r != "-h").collect();
    assert_eq!(runs.len(), 3, "as many runs as samples: {runs:?}");
    assert!(
        runs.iter().all(|r| r == "-t peakflops_sse -W N:32kB:1"),
        "{runs:?}"
    );
    let report: Value = serde_json::from_slice(&o.stdout).unwrap();
    let r = &report["results"][0];
    let refs = r["reference"].as_array().expect("a likwid figure");
    assert_eq!(refs[0]["value"].as_f64().unwrap(), 23669.26e6);
    let notes: Vec<&str> = r["notes"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|n| n["text"].as_str())
        .collect();
    assert!(
        notes
            .iter()
            .any(|n| n.contains("3 runs of `likwid-bench -t peakflops_sse -W N:32kB:1`")),
        "{notes:?}"
    );
}

/// Issue #48 item 2: write durability (`--fsync N`, `--fdatasync N`, `--sync`) runs on
/// the sync engine, and `--rate-iops` caps the I/O rate; both are recorded on the rows
/// and reach fio as its own options.
#[test]
fn durability_reaches_fio_as_its_own_options() {
    let bin = scratch();
    let dir = scratch();
    let out = scratch();
    let log = bin.path().join("fio.log");
    fake_tool(
        bin.path(),
        "fio",
        "fio-3.33",
        &fixture("fio_randread.json"),
        &log,
    );
    let o = common::pb()
        .env("PATH", path_with(bin.path()))
        .args(["disk", "--dir"])
        .arg(dir.path())
        .arg("--output")
        .arg(out.path())
        .args([
            "--quiet",
            "--reference",
            "--engine",
            "sync",
            "--file-size",
            "1MiB",
            "--pattern",
            "seq-write",
            "--block",
            "4KiB",
            "--depth",
            "1",
            "--fdatasync",
            "4",
            "--sync",
            "--rate-iops",
            "200",
            "--runtime",
            "500ms",
            "--ramp",
            "0",
            "--repeat",
            "1",
            "--format",
            "json",
        ])
        .timeout(Duration::from_secs(120))
        .output()
        .unwrap();
    common::assert_success(&o, "disk --fdatasync 4 --sync");
    let runs = logged(&log);
    assert_eq!(runs.len(), 1, "{runs:?}");
    for want in [
        "--fdatasync=4",
        "--sync=1",
        "--rate_iops=200",
        "--ioengine=psync",
        "--rw=write",
        "--overwrite=1",
    ] {
        assert!(
            runs[0].split(' ').any(|a| a == want),
            "{want} not in {}",
            runs[0]
        );
    }
    let report: Value = serde_json::from_slice(&o.stdout).unwrap();
    for r in report["results"].as_array().unwrap() {
        assert_eq!(r["status"], "ok", "{r}");
        assert_eq!(r["params"]["fdatasync"], 4, "{r}");
        assert_eq!(r["params"]["sync"], 1, "{r}");
        assert_eq!(r["params"]["rate_iops"], 200, "{r}");
        // I/O k is never issued before k / 200 s (no ramp): at most 200 × 0.5 s + 1 in
        // the window, however fast or slow the machine.
        if r["metric"] == "iops" {
            let iops = r["summary"]["mean"].as_f64().unwrap();
            assert!(
                iops <= 202.0 + 1e-9,
                "{iops} IO/s above --rate-iops 200: {r}"
            );
        }
    }
    let refused = common::pb_bounded()
        .args(["disk", "--fsync", "1", "--fdatasync", "1"])
        .output()
        .unwrap();
    common::assert_refused(
        &refused,
        &"--fsync with --fdatasync",
        &["--fdatasync", "--fsync"],
    );
}

/// Issue #48: `--engine mmap` runs buffered, and fio gets its own mmap engine with
/// direct=0, the case's pattern and block; the run's files are removed.
#[test]
fn mmap_reaches_fio_as_its_mmap_engine() {
    let bin = scratch();
    let dir = scratch();
    let out = scratch();
    let log = bin.path().join("fio.log");
    fake_tool(
        bin.path(),
        "fio",
        "fio-3.33",
        &fixture("fio_randread.json"),
        &log,
    );
    let o = common::pb()
        .env("PATH", path_with(bin.path()))
        .args(["disk", "--dir"])
        .arg(dir.path())
        .arg("--output")
        .arg(out.path())
        .args([
            "--quiet",
            "--reference",
            "--engine",
            "mmap",
            "--buffered",
            "--file-size",
            "1MiB",
            "--pattern",
            "rand-read",
            "--block",
            "4KiB",
            "--depth",
            "1",
            "--runtime",
            "200ms",
            "--ramp",
            "0",
            "--repeat",
            "1",
            "--format",
            "json",
        ])
        .timeout(Duration::from_secs(120))
        .output()
        .unwrap();
    common::assert_success(&o, "disk --engine mmap --buffered");
    let runs = logged(&log);
    assert_eq!(runs.len(), 1, "{runs:?}");
    for want in [
        "--ioengine=mmap",
        "--direct=0",
        "--rw=randread",
        "--bs=4096",
    ] {
        assert!(
            runs[0].split(' ').any(|a| a == want),
            "{want} not in {}",
            runs[0]
        );
    }
    let report: Value = serde_json::from_slice(&o.stdout).unwrap();
    for r in report["results"].as_array().unwrap() {
        assert_eq!(r["status"], "ok", "{r}");
        assert_eq!(r["params"]["engine"], "mmap", "{r}");
        assert_eq!(r["params"]["direct"], false, "{r}");
    }
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}
