//! The results files a run writes to `--output` (#16 items 6 and 8): runs started
//! together each keep their own file, and a run interrupted at any moment leaves only
//! whole JSON files, never a temporary one.

use crate::common;

use std::time::Duration;

fn null_run(out: &std::path::Path, cases: usize) -> std::process::Command {
    let threads = vec!["1"; cases].join(",");
    let mut c = common::pb_std();
    c.args([
        "null",
        "--quiet",
        "--format",
        "json",
        "--min-time",
        "1ms",
        "--repeat",
        "1",
    ])
    .args(["--threads", &threads, "--output"])
    .arg(out)
    .stdout(std::process::Stdio::null())
    .stderr(std::process::Stdio::piped());
    c
}

fn names(dir: &std::path::Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// #16 item 6: runs started together with the same --output each keep their own results.
#[test]
fn simultaneous_runs_keep_every_result() {
    let dir = tempfile::tempdir().unwrap();
    let kids: Vec<_> = (0..4)
        .map(|_| null_run(dir.path(), 3).spawn().unwrap())
        .collect();
    for k in kids {
        let o = k.wait_with_output().unwrap();
        common::assert_success(&o, "o");
    }
    let files = names(dir.path());
    assert_eq!(files.len(), 4, "{files:?}");
    for f in &files {
        assert!(f.ends_with(".json"), "{files:?}");
        let v: serde_json::Value =
            serde_json::from_slice(&std::fs::read(dir.path().join(f)).unwrap()).unwrap();
        assert_eq!(v["results"].as_array().unwrap().len(), 3, "{f}");
    }
}

/// #16 item 8: SIGINT at any moment of a run that saves after every case never leaves a
/// temporary file or a broken JSON; the exit code says which signal ended it.
#[test]
fn interrupted_runs_leave_whole_results_only() {
    let dir = tempfile::tempdir().unwrap();
    for delay_ms in [30u64, 60, 90, 120, 150, 200] {
        let mut child = null_run(dir.path(), 2000).spawn().unwrap();
        std::thread::sleep(Duration::from_millis(delay_ms));
        // SAFETY: signalling our own child process.
        unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
        let t = std::time::Instant::now();
        let status = loop {
            if let Some(s) = child.try_wait().unwrap() {
                break s;
            }
            assert!(
                t.elapsed() < Duration::from_secs(20),
                "no exit after SIGINT"
            );
            std::thread::sleep(Duration::from_millis(10));
        };
        use std::os::unix::process::ExitStatusExt;
        assert!(
            status.code() == Some(130) || status.signal() == Some(libc::SIGINT),
            "{status:?}"
        );
    }
    for f in names(dir.path()) {
        assert!(f.ends_with(".json"), "left behind: {f}");
        let bytes = std::fs::read(dir.path().join(&f)).unwrap();
        // An empty file is a name reserved before the first save completed.
        if !bytes.is_empty() {
            serde_json::from_slice::<serde_json::Value>(&bytes)
                .unwrap_or_else(|e| panic!("{f}: {e}"));
        }
    }
}
