//! What a results file within every cap may make the readers hold (#33 item 5),
//! measured as the peak resident memory of each `peakbench` child, read from its own
//! `wait4` (the test binary's other tests run children of their own at the same time,
//! so `getrusage` of all the children would count theirs): the issue's 8 MB file of
//! 121 000 towers of 32
//! nested arrays (562 MiB before), the largest file of that shape now accepted, and
//! the files of one `fleet` together. Nothing here checks speed.

use crate::common;

use std::path::Path;

/// Runs `cmd` to its end; its output and its own peak resident memory in MiB (from
/// `wait4` on its PID, so no other child of this process counts).
#[allow(clippy::zombie_processes)] // reaped by the wait4 below, which std cannot do
fn run_measured(mut cmd: std::process::Command) -> (std::process::Output, f64) {
    use std::io::Read;
    use std::os::unix::process::ExitStatusExt;
    use std::process::Stdio;
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut so = child.stdout.take().unwrap();
    let mut se = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut b = Vec::new();
        so.read_to_end(&mut b).unwrap();
        b
    });
    let mut stderr = Vec::new();
    se.read_to_end(&mut stderr).unwrap();
    let stdout = reader.join().unwrap();
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: `rusage` is integers and time values: all zeroes is valid.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: wait4 writes the status and the struct it is given, both ours.
        let r = unsafe { libc::wait4(pid, &mut status, 0, &mut u) };
        if r == pid {
            break;
        }
        let e = std::io::Error::last_os_error();
        assert_eq!(e.kind(), std::io::ErrorKind::Interrupted, "wait4: {e}");
    }
    // The child is reaped: `child` is dropped without waiting (std never waits on drop).
    let out = std::process::Output {
        status: std::process::ExitStatus::from_raw(status),
        stdout,
        stderr,
    };
    (out, u.ru_maxrss as f64 / 1024.0)
}

/// A peakbench/2 report whose `config` is `towers` towers of `depth` nested
/// one-element arrays, and one ok result.
fn deep_file(path: &Path, towers: usize, depth: usize) {
    let tower = format!("{}0{}", "[".repeat(depth), "]".repeat(depth));
    let config = format!("[{}]", vec![tower; towers].join(","));
    let report = fixture().replacen("\"config\":{}", &format!("\"config\":{config}"), 1);
    assert!(report.contains(&config[..10]));
    std::fs::write(path, report).unwrap();
}

/// A small valid report with `"config":{}`.
fn fixture() -> String {
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string("tests/fixtures/report_mixed.json").unwrap())
            .unwrap();
    v["config"] = serde_json::json!({});
    serde_json::to_string(&v).unwrap()
}

#[test]
fn a_file_within_the_caps_cannot_make_the_reader_hold_hundreds_of_mib() {
    measured();
    let d = tempfile::tempdir().unwrap();
    the_files_of_one_fleet_are_capped_together(d.path());
}

fn measured() {
    let d = tempfile::tempdir().unwrap();
    // The issue's file: 8 MB, 3.9 M values counted as before (arrays at 1).
    let issue = d.path().join("issue.json");
    deep_file(&issue, 121_000, 32);
    let mut c = common::pb_std();
    c.arg("report").arg(&issue);
    let (out, refused_peak) = run_measured(c);
    common::assert_refused(&out, &"issue.json", &["JSON values", "the reader's cap"]);
    // The largest such file now accepted (1 M arrays, 3.9 M values as counted now):
    // read in full, within 256 MiB.
    let largest = d.path().join("largest.json");
    deep_file(&largest, 30_000, 32);
    let mut c = common::pb_std();
    c.args(["report", "--format", "json"]).arg(&largest);
    let (out, read_peak) = run_measured(c);
    common::assert_success(&out, "report largest.json");
    let peak = refused_peak.max(read_peak);
    assert!(peak < 256.0, "report held {peak:.0} MiB");
}

/// In the same test as the measurement above (run after it, as it always was; each
/// measurement reads its own child's peak).
fn the_files_of_one_fleet_are_capped_together(d: &Path) {
    // Six files of 1.5 M values each (numbers in config): each within the cap of one
    // file, 9 M together, over the cap of 8 M for the files of one command.
    let zeros = format!("[{}0]", "0,".repeat(1_500_000));
    let text = fixture().replacen("\"config\":{}", &format!("\"config\":{zeros}"), 1);
    let files: Vec<_> = (0..6)
        .map(|i| {
            let p = d.join(format!("h{i}.json"));
            std::fs::write(&p, &text).unwrap();
            p
        })
        .collect();
    let out = common::pb().arg("fleet").args(&files).output().unwrap();
    common::assert_refused(
        &out,
        &"fleet of six",
        &["h5.json", "the cap on the files of one compare or fleet"],
    );
    // Five are within it.
    let out = common::pb()
        .arg("fleet")
        .args(&files[..5])
        .output()
        .unwrap();
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains("compare or fleet"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = common::pb().arg("compare").args(&files).output().unwrap();
    common::assert_refused(&out, &"compare of six", &["h5.json", "compare or fleet"]);
}
