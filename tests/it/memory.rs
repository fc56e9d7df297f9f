//! CLI tests of `peakbench memory` through the binary: tiny working sets and minimum
//! times so the set runs in seconds, results read back from the JSON file. Nothing here
//! checks speed, only that the right cases run, say what they counted, and that bad
//! input is refused before anything runs.

use crate::common;

use assert_cmd::Command;
use serde_json::Value;
use std::path::Path;

fn peakbench(out: &Path) -> Command {
    let mut c = common::pb();
    c.args(["--quiet", "--min-time", "5ms", "--repeat", "2", "--output"])
        .arg(out);
    c
}

/// The single report written under `out`.
fn report(out: &Path) -> Value {
    let files: Vec<_> = std::fs::read_dir(out)
        .unwrap()
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
        .collect();
    assert_eq!(files.len(), 1, "expected one report in {}", out.display());
    serde_json::from_str(&std::fs::read_to_string(files[0].path()).unwrap()).unwrap()
}

fn results(out: &Path) -> Vec<Value> {
    report(out)["results"].as_array().unwrap().clone()
}

/// The rows that are not latency rows (bandwidth cases, and the skipped ones).
fn throughput(rs: &[Value]) -> Vec<Value> {
    rs.iter()
        .filter(|r| r["metric"] != "latency")
        .cloned()
        .collect()
}

/// Issue #32 item 9: every small-block case (≤ 64 B: sequential and random read, write
/// and read+write, element and byte blocks) gets a latency row beside its throughput
/// row: the time per block operation per thread, `threads × bytes counted per block
/// operation / throughput`, sample by sample; larger blocks get none, and the chase
/// stays the load-to-use latency.
#[test]
fn small_blocks_get_a_latency_row_per_access_beside_the_throughput() {
    let dir = tempfile::tempdir().unwrap();
    peakbench(dir.path())
        .args([
            "memory",
            "--kernel",
            "read,write,copy,chase",
            "--pattern",
            "seq,rand",
            "--block",
            "1B,8B,64B,128B",
            "--size",
            "512KiB",
            "--threads",
            "1,2",
            "--nt",
            "off",
        ])
        .assert()
        .success();
    let rs = results(dir.path());
    let key = |r: &Value| {
        let p = &r["params"];
        (
            p["kernel"].as_str().unwrap().to_string(),
            p["pattern"].as_str().unwrap().to_string(),
            p["block"].as_u64().unwrap(),
            p["threads"].as_u64().unwrap(),
        )
    };
    let mut latency_rows = 0;
    for tp in rs.iter().filter(|r| r["metric"] == "throughput") {
        assert_eq!(tp["status"], "ok", "{tp}");
        let (kernel, pattern, block, threads) = key(tp);
        let lat: Vec<&Value> = rs
            .iter()
            .filter(|r| r["metric"] == "latency" && r["params"] == tp["params"])
            .collect();
        if block > 64 {
            assert!(lat.is_empty(), "{kernel} {pattern} {block}: {lat:?}");
            continue;
        }
        assert_eq!(lat.len(), 1, "{kernel} {pattern} {block} {threads}");
        let lat = lat[0];
        latency_rows += 1;
        assert_eq!((&lat["unit"], &lat["status"]), (&"s".into(), &"ok".into()));
        assert_eq!(lat["workload"], tp["workload"]);
        // Bytes counted per block operation: copy reads and writes the block.
        let per_op = block as f64 * if kernel == "copy" { 2.0 } else { 1.0 };
        let samples = |r: &Value| -> Vec<f64> {
            r["samples"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_f64().unwrap())
                .collect()
        };
        let (t, l) = (samples(tp), samples(lat));
        assert_eq!(t.len(), l.len());
        for (rate, secs) in t.iter().zip(&l) {
            let want = threads as f64 * per_op / rate;
            assert!(((secs - want) / want).abs() < 1e-9, "{secs} vs {want}");
            assert!(*secs > 0.0 && *secs < 1e-3, "{secs} s per access");
        }
        let notes = lat["notes"].to_string();
        assert!(notes.contains("per thread = threads"), "{notes}");
        assert!(notes.contains("not a load-to-use latency"), "{notes}");
    }
    // read, write, copy × seq, rand × 1B, 8B, 64B × 1, 2 threads.
    assert_eq!(latency_rows, 3 * 2 * 3 * 2);
    // The chase is still there, the load-to-use latency with its own block.
    let chase: Vec<&Value> = rs.iter().filter(|r| r["workload"] == "chase").collect();
    assert_eq!(chase.len(), 2);
    assert!(chase.iter().all(|r| r["metric"] == "latency"));
}

#[test]
fn bandwidth_and_latency_cases_run_and_declare_their_bytes() {
    let dir = tempfile::tempdir().unwrap();
    peakbench(dir.path())
        .args([
            "memory",
            "--kernel",
            "read,write,copy,scale,add,triad,chase",
            "--size",
            "1MiB",
            "--threads",
            "1,2",
        ])
        .assert()
        .success();
    let rs = results(dir.path());
    assert_eq!(rs.len(), 14);
    for r in &rs {
        assert_eq!(r["resource"], "memory");
        assert_eq!(r["status"], "ok", "{r}");
        // peakbench/2: sizes are numbers of bytes.
        assert_eq!(r["params"]["size"], 1 << 20);
        let kernel = r["params"]["kernel"].as_str().unwrap();
        if kernel == "chase" {
            assert_eq!(r["metric"], "latency");
            assert_eq!(r["unit"], "s");
            assert!(r["summary"]["mean"].as_f64().unwrap() > 0.0);
        } else {
            assert_eq!(r["metric"], "throughput");
            assert_eq!(r["unit"], "B/s");
            assert_eq!(r["params"]["bytes"], "stream");
            let notes = r["notes"].to_string();
            assert!(notes.contains("bytes: "), "{notes}");
            assert!(r["workload"].as_str().unwrap().starts_with(kernel));
        }
        assert!(r["notes"].to_string().contains("pages: "), "{r}");
    }
    let copy = rs.iter().find(|r| r["params"]["kernel"] == "copy").unwrap();
    assert!(copy["notes"]
        .to_string()
        .contains("16 B per 8-byte element"));
    // 1 MiB fits the LLC of anything we run on: --nt auto keeps ordinary stores.
    assert_eq!(copy["params"]["nt"], false);
}

#[test]
fn patterns_blocks_and_write_allocate() {
    let dir = tempfile::tempdir().unwrap();
    peakbench(dir.path())
        .args([
            "memory",
            "--kernel",
            "copy",
            "--pattern",
            "seq,rand",
            "--block",
            "8B,4KiB",
            "--size",
            "256KiB",
            "--threads",
            "1",
            "--nt",
            "off",
            "--count-write-allocate",
        ])
        .assert()
        .success();
    let all = results(dir.path());
    // The 8 B blocks also get their latency rows (issue #32 item 9).
    assert_eq!(all.len(), 6);
    let rs = throughput(&all);
    assert_eq!(rs.len(), 4);
    for r in &rs {
        assert_eq!(r["status"], "ok", "{r}");
        assert_eq!(r["params"]["bytes"], "stream+write-allocate");
        assert_eq!(r["params"]["nt"], false);
    }
    let blocks: Vec<u64> = rs
        .iter()
        .map(|r| r["params"]["block"].as_u64().unwrap())
        .collect();
    assert_eq!(blocks, [8, 4096, 8, 4096]);
}

#[test]
fn non_temporal_on_is_honoured() {
    let dir = tempfile::tempdir().unwrap();
    peakbench(dir.path())
        .args([
            "memory",
            "--kernel",
            "write",
            "--size",
            "64KiB",
            "--threads",
            "1",
            "--nt",
            "on",
        ])
        .assert()
        .success();
    let r = &results(dir.path())[0];
    assert_eq!(r["status"], "ok");
    let name = r["workload"].as_str().unwrap();
    // CPUs without AVX2 only have the generic kernel, which says so in a note.
    if name != "write_generic" {
        assert!(name.ends_with("_nt"), "{name}");
        assert!(r["notes"].to_string().contains("non-temporal"));
    }
}

#[test]
fn sweep_marks_cache_levels_and_peak_override_applies_to_dram() {
    let dir = tempfile::tempdir().unwrap();
    peakbench(dir.path())
        .args([
            "memory",
            "--kernel",
            "read",
            "--threads",
            "1",
            "--sweep",
            "--peak",
            "memory=1TB/s",
        ])
        .assert()
        .success();
    let rs = results(dir.path());
    assert!(rs.len() >= 8, "{}", rs.len());
    assert_eq!(rs[0]["params"]["size"], 4096);
    assert_eq!(rs[0]["params"]["level"], "L1");
    let last = rs.last().unwrap();
    assert_eq!(last["params"]["level"], "DRAM");
    assert_eq!(last["peak"]["value"].as_f64(), Some(1e12));
    assert!(last["peak"]["source"].as_str().unwrap().starts_with("user"));
    // Levels never go back down as the working set grows.
    let order = ["L1", "L2", "L3", "DRAM"];
    let levels: Vec<usize> = rs
        .iter()
        .map(|r| {
            order
                .iter()
                .position(|l| r["params"]["level"] == *l)
                .unwrap()
        })
        .collect();
    assert!(levels.windows(2).all(|w| w[0] <= w[1]), "{levels:?}");
}

fn refused(args: &[&str], flag: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("results");
    let a = peakbench(&out).args(args).assert().code(2);
    let err = String::from_utf8(a.get_output().stderr.clone()).unwrap();
    assert!(err.contains(flag), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "one line: {err}");
    assert!(!out.exists(), "nothing may run or be written on bad input");
    err
}

#[test]
fn bad_input_is_refused_up_front() {
    let e = refused(&["memory", "--size", "100TiB"], "--size");
    assert!(e.contains("available"), "{e}");
    let e = refused(&["memory", "--size", "64KiB", "--block", "1MiB"], "--block");
    assert!(e.contains("larger than the working set"), "{e}");
    let e = refused(
        &[
            "memory",
            "--kernel",
            "copy",
            "--size",
            "64KiB",
            "--block",
            "64KiB",
            "--threads",
            "1",
        ],
        "--block",
    );
    assert!(e.contains("share"), "{e}");
    refused(&["memory", "--kernel", "memcpy"], "--kernel");
    refused(&["memory", "--pattern", "zigzag"], "--pattern");
    refused(&["memory", "--block", "0B"], "--block");
    refused(&["memory", "--nt", "sometimes"], "--nt");
    refused(&["memory", "--threads", "0"], "--threads");
}

#[test]
fn weak_scaling_gives_every_thread_the_full_size() {
    let level = |weak: bool| {
        let dir = tempfile::tempdir().unwrap();
        let mut c = peakbench(dir.path());
        c.args([
            "memory",
            "--kernel",
            "read",
            "--size",
            "64KiB",
            "--threads",
            "2",
        ]);
        if weak {
            c.arg("--weak");
        }
        c.assert().success();
        let r = &results(dir.path())[0];
        assert_eq!(r["status"], "ok");
        (
            r["params"]["level"].as_str().unwrap().to_string(),
            r["params"]["block"].as_u64().unwrap(),
        )
    };
    let (strong, strong_block) = level(false);
    let (weak, weak_block) = level(true);
    // Strong: 32 KiB per thread; weak: 64 KiB per thread (one array each).
    assert_eq!(strong_block, 32 << 10);
    assert_eq!(weak_block, 64 << 10);
    let order = ["L1", "L2", "L3", "DRAM"];
    let rank = |l: &str| order.iter().position(|x| *x == l).unwrap();
    assert!(rank(&weak) >= rank(&strong), "{weak} < {strong}");
}

/// The course's block sizes in decimal units (`8KB` = 8000 B) are recorded as numbers
/// of bytes, and the HTML report gets its memory block-size chart (with peakbench/1's
/// text sizes, "7.81KiB", the chart silently disappeared).
#[test]
fn decimal_block_sizes_give_the_block_chart() {
    let dir = tempfile::tempdir().unwrap();
    let html = dir.path().join("blocks.html");
    peakbench(dir.path())
        .args([
            "memory",
            "--kernel",
            "read",
            "--block",
            "8B,8KB,8MB",
            "--size",
            "16MiB",
            "--threads",
            "1",
            "--html",
        ])
        .arg(&html)
        .assert()
        .success();
    let rs = throughput(&results(dir.path()));
    let blocks: Vec<u64> = rs
        .iter()
        .map(|r| r["params"]["block"].as_u64().unwrap())
        .collect();
    assert_eq!(blocks, [8, 8000, 8_000_000]);
    assert!(rs.iter().all(|r| r["params"]["size"] == 16 << 20));
    let h = std::fs::read_to_string(&html).unwrap();
    assert!(
        h.contains("memory read seq throughput by block (B/s)"),
        "{h}"
    );
    assert_eq!(h.matches("<svg").count(), 1);
}

/// The course's 1 B accesses: blocks that are not a multiple of 8 B run read, write and
/// copy on bytes (checked, bytes counted as STREAM counts them); the f64 kernels are
/// `skipped` with the reason, and the command still succeeds.
#[test]
fn one_byte_blocks_run_read_write_copy_and_skip_the_f64_kernels() {
    let dir = tempfile::tempdir().unwrap();
    peakbench(dir.path())
        .args([
            "memory",
            "--kernel",
            "read,write,copy,triad",
            "--pattern",
            "seq,rand",
            "--block",
            "1B,1KB",
            "--size",
            "256KiB",
            "--threads",
            "1",
        ])
        .assert()
        .success();
    let all = results(dir.path());
    // Plus a latency row for each 1 B case that ran (read, write, copy × seq, rand).
    assert_eq!(all.len(), 4 * 2 * 2 + 3 * 2);
    let rs = throughput(&all);
    assert_eq!(rs.len(), 4 * 2 * 2);
    for r in &rs {
        let (kernel, block) = (
            r["params"]["kernel"].as_str().unwrap(),
            r["params"]["block"].as_u64().unwrap(),
        );
        match (kernel, block) {
            ("triad", 1) => {
                let why = r["status"]["skipped"]["reason"].as_str().unwrap();
                assert!(why.contains("8-byte f64 elements"), "{r}");
            }
            (_, 1) => {
                assert_eq!(r["status"], "ok", "{r}");
                assert_eq!(r["workload"], format!("{kernel}_bytes"), "{r}");
                // The params the element kernels have, with the byte path's values.
                let p = &r["params"];
                assert_eq!(
                    (&p["isa"], &p["nt"], &p["bytes"]),
                    (&"generic".into(), &false.into(), &"stream".into()),
                    "{r}"
                );
                assert!(p["level"].is_string() && p["pattern"].is_string(), "{r}");
                assert_eq!(
                    (&p["size"], &p["threads"]),
                    (&(256 << 10).into(), &1.into())
                );
                assert!(r["notes"].to_string().contains("1 B per access"), "{r}");
            }
            // 1KB = 1000 B = 125 elements: the f64 kernels.
            (_, 1000) => assert_eq!(r["status"], "ok", "{r}"),
            other => panic!("{other:?}"),
        }
    }
}

// ---- Regressions of the hardening rounds and the loose ends (#16, #26, #27, #33). ----

/// #16 item 1: sizes whose products wrap around 2^64 (a segfault, a worker panic and a hang
/// before the fix) are refused up front, naming --size and the limit.
#[test]
fn memory_sizes_that_overflow_are_refused() {
    let max = "18446744073709551615B";
    common::refused_bounded(
        &[
            "memory",
            "--size",
            max,
            "--kernel",
            "read",
            "--threads",
            "1",
        ],
        &["--size:", "limit of 256 TiB"],
    );
    common::refused_bounded(
        &[
            "memory",
            "--size",
            max,
            "--kernel",
            "chase",
            "--threads",
            "1",
        ],
        &["--size:", "limit of 256 TiB"],
    );
    common::refused_bounded(
        &[
            "memory",
            "--weak",
            "--threads",
            "2",
            "--size",
            "9223372036854775808B",
        ],
        &["--size:", "limit of 256 TiB"],
    );
    // Below the per-value limit, but the weak product is above it.
    common::refused_bounded(
        &["memory", "--weak", "--threads", "2", "--size", "200TiB"],
        &["--size:", "limit of 256 TiB"],
    );
    // The chase's u32 node indices: refused, never a worker panic (the RAM check names
    // the first limit on a machine with less than 256 GiB per thread; the chase's own
    // limit is tested in bench::memory::chase).
    common::refused_bounded(
        &[
            "memory",
            "--size",
            "200TiB",
            "--kernel",
            "chase",
            "--threads",
            "1",
        ],
        &["--size:"],
    );
    common::refused_bounded(
        &[
            "memory",
            "--block",
            "100TiB",
            "--threads",
            "4",
            "--kernel",
            "copy",
        ],
        &["--block:", "limit of 256 TiB"],
    );
}

/// Issue #47: `--loaded-latency` gives the idle point, then per delay (largest first)
/// the chase's latency and the loaders' bandwidth with the bytes they counted; the
/// notes say where it ran. Tiny sizes: this checks shape, not speed. On a machine
/// with one usable CPU only the idle point runs.
#[test]
fn loaded_latency_gives_the_idle_point_then_one_pair_per_delay() {
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let dir = tempfile::tempdir().unwrap();
    let mut c = peakbench(dir.path());
    c.args(["memory", "--loaded-latency", "0,500", "--size", "256KiB"]);
    if cpus > 1 {
        c.args(["--threads", "1"]);
    }
    c.assert().success();
    let rs = results(dir.path());
    assert!(
        rs.iter()
            .all(|r| r["workload"] == "loaded_latency" && r["status"] == "ok"),
        "{rs:?}"
    );
    let lat: Vec<&Value> = rs.iter().filter(|r| r["metric"] == "latency").collect();
    assert!(lat[0]["params"]["loaders"] == 0 && lat[0]["params"]["delay"].is_null());
    for r in &lat {
        assert!(r["summary"]["mean"].as_f64().unwrap() > 0.0, "{r}");
        assert_eq!(r["params"]["size"], 256 << 10);
    }
    if rs.len() == 1 {
        assert!(lat[0]["notes"].to_string().contains("only the idle point"));
        return;
    }
    assert_eq!((rs.len(), lat.len()), (5, 3));
    let delays: Vec<u64> = lat[1..]
        .iter()
        .map(|r| r["params"]["delay"].as_u64().unwrap())
        .collect();
    assert_eq!(delays, vec![500, 0]);
    for r in rs.iter().filter(|r| r["metric"] == "throughput") {
        assert_eq!(r["params"]["loaders"], 1);
        assert_eq!(r["params"]["kernel"], "read");
        // Whole blocks of 64 elements of 8 B, read once: 512 B each.
        let bytes = r["params"]["load_bytes"].as_u64().unwrap();
        assert!(bytes > 0 && bytes % 512 == 0, "{r}");
        assert!(r["summary"]["mean"].as_f64().unwrap() > 0.0, "{r}");
    }
}

#[test]
fn loaded_latency_refuses_what_it_cannot_run() {
    // No machine the tests run on has 4097 CPUs.
    let e = refused(
        &["memory", "--loaded-latency", "--threads", "4096"],
        "--threads",
    );
    assert!(e.contains("one runs the chase"), "{e}");
    let e = refused(
        &["memory", "--loaded-latency", "--kernel", "chase"],
        "--kernel",
    );
    assert!(e.contains("accepted: read,write"), "{e}");
}
