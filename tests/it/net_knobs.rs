//! Issue #48 item 1: the net knobs iperf3 users reach for (`--window`, `--congestion`,
//! `--mss`, `--omit`, `--cpus`) run on loopback, are recorded on the result, and reach
//! the iperf3 reference run as its own flags (`-w`, `-C`, `-M`, `-O`, `-A`): checked
//! with a fake iperf3 on `PATH` that logs its command line.

use crate::common;
use serde_json::Value;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::Duration;

/// A fake `iperf3` in `bin`: a server (`-s`) that waits, a client that logs its
/// arguments to `log` and prints the recorded iperf3 JSON.
fn fake_iperf3(bin: &Path, log: &Path) {
    let fixture =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tools/iperf3_tcp.json");
    let script = format!(
        "#!/bin/sh\nif [ \"$1\" = --version ]; then echo 'iperf 3.12 (cJSON 1.7.15)'; exit 0; fi\n\
         if [ \"$1\" = -s ]; then exec sleep 30; fi\necho \"$*\" >> '{}'\ncat '{}'\n",
        log.display(),
        fixture.display()
    );
    let p = bin.join("iperf3");
    std::fs::write(&p, script).unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// The first CPU this process may run on (`--cpus` takes only those).
fn first_allowed_cpu() -> usize {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let list = status
        .lines()
        .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
        .unwrap()
        .trim();
    list.split([',', '-']).next().unwrap().parse().unwrap()
}

/// A congestion control this host has: reno is built into every Linux kernel.
fn congestion() -> Option<&'static str> {
    let list =
        std::fs::read_to_string("/proc/sys/net/ipv4/tcp_available_congestion_control").ok()?;
    list.split_whitespace()
        .any(|c| c == "reno")
        .then_some("reno")
}

#[test]
fn knobs_run_on_loopback_and_reach_iperf3() {
    let bin = common::scratch_dir();
    let out = common::scratch_dir();
    let log = bin.path().join("iperf3.log");
    fake_iperf3(bin.path(), &log);
    let cpu = first_allowed_cpu().to_string();
    let mut args = vec![
        "net",
        "--proto",
        "tcp",
        "--test",
        "throughput",
        "--time",
        "400ms",
        "--repeat",
        "2",
        "--window",
        "256KiB",
        "--mss",
        "1000",
        "--omit",
        "1s",
        "--cpus",
        &cpu,
        "--reference",
        "--quiet",
        "--format",
        "json",
    ];
    let cc = congestion();
    if let Some(c) = cc {
        args.extend(["--congestion", c]);
    }
    let path = format!(
        "{}:{}",
        bin.path().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let o = common::pb()
        .env("PATH", path)
        .args(&args)
        .arg("--output")
        .arg(out.path())
        .timeout(Duration::from_secs(120))
        .output()
        .unwrap();
    common::assert_success(&o, "net with knobs");
    let report: Value = serde_json::from_slice(&o.stdout).unwrap();
    let r = &report["results"][0];
    assert_eq!(r["status"], "ok", "{r}");
    let p = &r["params"];
    assert_eq!(p["window"], 262144, "{p}");
    assert_eq!(p["mss"], 1000, "{p}");
    assert_eq!(p["omit_ms"], 1000, "{p}");
    assert_eq!(p["cpus"], cpu.as_str(), "{p}");
    if let Some(c) = cc {
        assert_eq!(p["congestion"], c, "{p}");
    }
    // The receiver counted payload in every interval, and both ends agree (TCP).
    assert!(r["summary"]["mean"].as_f64().unwrap() > 0.0, "{r}");
    let runs: Vec<String> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    assert_eq!(runs.len(), 1, "{runs:?}");
    let run = format!(" {} ", runs[0]);
    for want in [
        " -w 262144 ".to_string(),
        " -M 1000 ".into(),
        " -O 1 ".into(),
        format!(" -A {cpu},{cpu} "),
        " -P 1 ".into(),
        " -l 131072 ".into(),
    ] {
        assert!(run.contains(&want), "{want} not in {run}");
    }
    if let Some(c) = cc {
        assert!(run.contains(&format!(" -C {c} ")), "{run}");
    }
    let refs = r["reference"].as_array().expect("an iperf3 figure");
    assert_eq!(refs[0]["tool"], "iperf3");
    assert!(
        refs[0]["command"].as_str().unwrap().contains("-w 262144"),
        "{r}"
    );
}

/// One TCP throughput case of two streams on loopback with a fixed-transfer `knob`
/// (`--bytes`, `--blocks`) and `--reference`, beside a fake iperf3: the row (checked ok,
/// with a figure) and the command line iperf3 got, padded with spaces.
fn fixed_transfer_run(knob: &[&str], what: &str) -> (Value, String) {
    let bin = common::scratch_dir();
    let out = common::scratch_dir();
    let log = bin.path().join("iperf3.log");
    fake_iperf3(bin.path(), &log);
    let path = format!(
        "{}:{}",
        bin.path().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let o = common::pb()
        .env("PATH", path)
        .args([
            "net",
            "--proto",
            "tcp",
            "--test",
            "throughput",
            "--streams",
            "2",
        ])
        .args(knob)
        .args(["--reference", "--quiet", "--format", "json"])
        .arg("--output")
        .arg(out.path())
        .timeout(Duration::from_secs(120))
        .output()
        .unwrap();
    common::assert_success(&o, what);
    let report: Value = serde_json::from_slice(&o.stdout).unwrap();
    let r = report["results"][0].clone();
    assert_eq!(r["status"], "ok", "{r}");
    assert!(r["summary"]["mean"].as_f64().unwrap() > 0.0, "{r}");
    let run = format!(" {} ", std::fs::read_to_string(&log).unwrap().trim());
    (r, run)
}

/// `--bytes` (iperf3 `-n`): two streams on loopback move exactly the bytes asked for
/// in all, the row records them, and iperf3 gets `-n` with them in place of `-t`.
#[test]
fn a_fixed_transfer_moves_its_bytes_and_reaches_iperf3() {
    let (r, run) = fixed_transfer_run(&["--bytes", "8MiB"], "net --bytes");
    assert_eq!(r["params"]["bytes"], 8u64 << 20, "{r}");
    // Both ends counted exactly the transfer, across the two streams.
    let row = r.to_string();
    assert!(
        row.contains("totals: sent 8388608 B, received 8388608 B"),
        "{row}"
    );
    assert!(run.contains(" -n 8388608 "), "{run}");
    assert!(!run.contains(" -t "), "{run}");
}

/// `--blocks` (iperf3 `-k`): two streams on loopback send exactly the messages asked
/// for in all (iperf3 counts `-k` over all streams too), so the bytes moved are blocks x
/// msg; the row records both, and iperf3 gets `-k` with the same count beside `-l`.
#[test]
fn a_fixed_count_of_messages_moves_blocks_times_msg_and_reaches_iperf3() {
    let (r, run) = fixed_transfer_run(&["--msg", "64KiB", "--blocks", "101"], "net --blocks");
    let moved = 101u64 * 65536;
    assert_eq!(r["params"]["blocks"], 101, "{r}");
    assert_eq!(r["params"]["bytes"], moved, "{r}");
    // Both ends counted exactly blocks x msg, across the two streams (an odd count:
    // one stream sent a message more than the other, none sent a part of one).
    let row = r.to_string();
    assert!(
        row.contains(&format!("totals: sent {moved} B, received {moved} B")),
        "{row}"
    );
    for want in [" -k 101 ", " -l 65536 ", " -P 2 "] {
        assert!(run.contains(want), "{want} not in {run}");
    }
    for not in [" -t ", " -n "] {
        assert!(!run.contains(not), "{not} in {run}");
    }
}

#[test]
fn bad_knobs_exit_2_with_one_line() {
    for (args, needles) in [
        (
            &["net", "--congestion", "nosuchcc"][..],
            &[
                "--congestion",
                "'nosuchcc' is not available here",
                "tcp_available_congestion_control",
            ][..],
        ),
        (&["net", "--mss", "10"], &["--mss", "88 to 9216"]),
        (
            &["net", "--mss", "1000", "--proto", "udp"],
            &["--mss", "TCP only"],
        ),
        (&["net", "--window", "1KiB"], &["--window", "4KiB to 1GiB"]),
        (&["net", "--omit", "5m"], &["--omit", "0s to 60s"]),
        (
            &["net", "--bytes", "8MiB", "--proto", "tcp"],
            &["--bytes", "not latency", "--test throughput"],
        ),
        (
            &["net", "--bytes", "8MiB", "--time", "2s"],
            &["--bytes", "--time"],
        ),
        (
            &[
                "net",
                "--blocks",
                "64",
                "--proto",
                "udp",
                "--test",
                "throughput",
            ],
            &["--blocks: applies to TCP throughput only; add --proto tcp --test throughput"],
        ),
        (
            &[
                "net", "--blocks", "64", "--test", "latency", "--proto", "tcp",
            ],
            &["--blocks: applies to throughput only, not latency; add --test throughput"],
        ),
        (
            &["net", "--blocks", "64", "--time", "2s"],
            &["--blocks: cannot be combined with --time; use one of them"],
        ),
        (
            &[
                "net",
                "--blocks",
                "64",
                "--bytes",
                "8MiB",
                "--proto",
                "tcp",
                "--test",
                "throughput",
            ],
            &["--blocks: cannot be combined with --bytes; use one of them"],
        ),
        // `--matrix` measures each link for --time: a fixed transfer is refused, not
        // ignored (#48).
        (
            &["net", "--matrix", "--bytes", "8MiB"],
            &["--bytes: cannot be combined with --matrix; use one of them"],
        ),
        (
            &["net", "--blocks", "64", "--matrix"],
            &["--blocks: cannot be combined with --matrix; use one of them"],
        ),
    ] {
        common::refused_bounded(args, needles);
    }
}

/// Issue #48 item 5: ping's ICMP round trip beside `tcp_latency` of the same size, from
/// a fake `ping` that logs its command line and prints a recorded loopback run.
#[test]
fn ping_goes_beside_tcp_latency_of_the_same_size() {
    let bin = common::scratch_dir();
    let out = common::scratch_dir();
    let log = bin.path().join("ping.log");
    let fixture =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tools/ping_loopback_64000.txt");
    let script = format!(
        "#!/bin/sh\nif [ \"$1\" = -V ]; then echo 'ping from iputils 20221126'; exit 0; fi\n\
         echo \"$*\" >> '{}'\ncat '{}'\n",
        log.display(),
        fixture.display()
    );
    let p = bin.path().join("ping");
    std::fs::write(&p, script).unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!(
        "{}:{}",
        bin.path().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let o = common::pb()
        .env("PATH", path)
        .args([
            "net",
            "--proto",
            "tcp",
            "--test",
            "latency",
            "--msg",
            "64000B",
            "--time",
            "300ms",
            "--repeat",
            "1",
            "--reference",
            "--quiet",
            "--format",
            "json",
        ])
        .arg("--output")
        .arg(out.path())
        .timeout(Duration::from_secs(120))
        .output()
        .unwrap();
    common::assert_success(&o, "net latency with ping");
    let runs: Vec<String> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    assert_eq!(runs, ["-n -q -c 15 -i 0.2 -s 64000 127.0.0.1"]);
    let report: Value = serde_json::from_slice(&o.stdout).unwrap();
    let r = &report["results"][0];
    let refs = r["reference"].as_array().expect("a ping figure");
    let ping = refs.iter().find(|x| x["tool"] == "ping").expect("ping");
    // The fixture: rtt min/avg/max/mdev = 0.054/0.070/0.135/0.019 ms.
    assert!(
        (ping["value"].as_f64().unwrap() - 70e-6).abs() < 1e-12,
        "{ping}"
    );
    assert_eq!(ping["version"], "20221126");
    let notes = r["notes"].to_string();
    assert!(
        notes.contains("min 54.0 µs / avg 70.0 µs / max 135.0 µs / mdev 19.0 µs"),
        "{notes}"
    );
}
