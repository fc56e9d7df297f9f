//! Every file peakbench writes for the user, at every kind of path (issue #43 item 1):
//! as root, `check … --junit /dev/null` turned the machine's `/dev/null` into a regular
//! file, since the atomic write renamed its temporary file over whatever was there. For
//! each writer (`report --html/--csv/--markdown`, `compare --html`, `baseline -o`,
//! `check --junit`, a run's `--html` and `--prom-file`, `history show --html`) and each
//! kind of path: a character device the test makes under its own scratch directory (a
//! copy of /dev/null's numbers, 1:3; never the system's node, and skipped with the
//! reason when this is not root or the filesystem refuses devices) stays that device;
//! a FIFO with a reader gets the bytes and stays a FIFO; a FIFO nobody reads is refused
//! at once ("no reader on FIFO"); a symbolic link stays a link and its target is
//! replaced; a directory is refused in one line; `-` writes to stdout. Nothing here
//! checks speed.

use crate::common;

use std::ffi::OsString;
use std::io::Read;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::{Duration, Instant};

/// What the writers of one test need: a baseline, a history with a run, a results
/// folder, all in `dir`.
struct Setup {
    dir: tempfile::TempDir,
    baseline: PathBuf,
    history: PathBuf,
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

impl Setup {
    fn new() -> Setup {
        let dir = common::scratch_dir();
        let baseline = dir.path().join("base.toml");
        let o = common::pb_bounded()
            .args(["baseline", "--from"])
            .arg(fixture("report_compare_a.json"))
            .arg("-o")
            .arg(&baseline)
            .output()
            .unwrap();
        common::assert_success(&o, "baseline");
        let history = dir.path().join("h.db");
        let o = common::pb_bounded()
            .args(["null", "--min-time", "2ms", "--quiet", "--history"])
            .arg(&history)
            .arg("--output")
            .arg(dir.path().join("results"))
            .output()
            .unwrap();
        common::assert_success(&o, "null run");
        Setup {
            dir,
            baseline,
            history,
        }
    }
}

/// One writer: its name, the extension its path needs, the command line writing to
/// `path`, and text its output starts with or holds.
struct Writer {
    name: &'static str,
    ext: &'static str,
    args: fn(&Setup, &Path) -> Vec<OsString>,
    holds: &'static str,
}

fn os(v: &[&dyn AsRef<std::ffi::OsStr>]) -> Vec<OsString> {
    v.iter().map(|a| a.as_ref().to_os_string()).collect()
}

const WRITERS: &[Writer] = &[
    Writer {
        name: "report --csv",
        ext: "csv",
        args: |_, p| os(&[&"report", &fixture("report_mixed.json"), &"--csv", &p]),
        holds: "resource",
    },
    Writer {
        name: "report --markdown",
        ext: "md",
        args: |_, p| os(&[&"report", &fixture("report_mixed.json"), &"--markdown", &p]),
        holds: "| ",
    },
    Writer {
        name: "report --html",
        ext: "html",
        args: |_, p| os(&[&"report", &fixture("report_mixed.json"), &"--html", &p]),
        holds: "</html>",
    },
    Writer {
        name: "compare --html",
        ext: "html",
        args: |_, p| {
            os(&[
                &"compare",
                &fixture("report_compare_a.json"),
                &fixture("report_compare_b.json"),
                &"--quiet",
                &"--html",
                &p,
            ])
        },
        holds: "</html>",
    },
    Writer {
        name: "baseline -o",
        ext: "toml",
        args: |_, p| {
            os(&[
                &"baseline",
                &"--from",
                &fixture("report_compare_a.json"),
                &"-o",
                &p,
            ])
        },
        holds: "[[case]]",
    },
    Writer {
        name: "check --junit",
        ext: "xml",
        args: |s, p| {
            os(&[
                &"check",
                &"--baseline",
                &s.baseline,
                &fixture("report_compare_a.json"),
                &"--quiet",
                &"--allow-inconclusive",
                &"--junit",
                &p,
            ])
        },
        holds: "</testsuites>",
    },
    Writer {
        name: "null --html",
        ext: "html",
        args: |s, p| {
            os(&[
                &"null",
                &"--min-time",
                &"2ms",
                &"--quiet",
                &"--no-history",
                &"--output",
                &s.dir.path().join("results"),
                &"--html",
                &p,
            ])
        },
        holds: "</html>",
    },
    Writer {
        name: "null --prom-file",
        ext: "prom",
        args: |s, p| {
            os(&[
                &"null",
                &"--min-time",
                &"2ms",
                &"--quiet",
                &"--no-history",
                &"--output",
                &s.dir.path().join("results"),
                &"--prom-file",
                &p,
            ])
        },
        holds: "# EOF",
    },
    Writer {
        name: "history show --html",
        ext: "html",
        args: |s, p| {
            os(&[
                &"history",
                &"show",
                &"null",
                &"--history",
                &s.history,
                &"--html",
                &p,
            ])
        },
        holds: "</html>",
    },
];

/// A fresh directory for one writer and one kind of path, and the path in it.
fn place(s: &Setup, w: &Writer, kind: &str) -> (PathBuf, PathBuf) {
    let d = s
        .dir
        .path()
        .join(format!("{}-{kind}", w.name.replace([' ', '-'], "")));
    std::fs::create_dir(&d).unwrap();
    let p = d.join(format!("out.{}", w.ext));
    (d, p)
}

fn run(s: &Setup, w: &Writer, p: &Path) -> Output {
    common::pb_bounded().args((w.args)(s, p)).output().unwrap()
}

fn names(d: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// Makes a character device with /dev/null's numbers (1:3) at `p`, or says why not.
fn null_device(p: &Path) -> Result<(), String> {
    use std::os::unix::ffi::OsStrExt;
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return Err("not root (making a device node needs CAP_MKNOD)".into());
    }
    let c = std::ffi::CString::new(p.as_os_str().as_bytes()).unwrap();
    // SAFETY: a valid C string; the node is made under the test's own directory.
    let rc = unsafe { libc::mknod(c.as_ptr(), libc::S_IFCHR | 0o666, libc::makedev(1, 3)) };
    if rc != 0 {
        return Err(format!("mknod: {}", std::io::Error::last_os_error()));
    }
    // A filesystem mounted nodev refuses to open it.
    std::fs::OpenOptions::new()
        .write(true)
        .open(p)
        .map(drop)
        .map_err(|e| format!("the scratch filesystem does not open devices: {e}"))
}

/// Runs `w` writing into the FIFO `p` while this thread reads it; the output and what
/// was read.
fn run_reading(s: &Setup, w: &Writer, p: &Path) -> (Output, Vec<u8>) {
    // Opened first, without waiting for a writer: the writer's open then finds a reader.
    let mut r = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(p)
        .unwrap();
    let mut c = common::pb_std();
    c.args((w.args)(s, p));
    let child = std::thread::spawn(move || c.output().unwrap());
    let end = Instant::now() + Duration::from_secs(60);
    let (mut got, mut buf) = (Vec::new(), vec![0u8; 1 << 16]);
    loop {
        assert!(Instant::now() < end, "{}: did not finish", w.name);
        let done = child.is_finished();
        match r.read(&mut buf) {
            Ok(n) if n > 0 => got.extend_from_slice(&buf[..n]),
            Ok(_) => {
                if done {
                    break;
                }
                std::thread::sleep(Duration::from_millis(10));
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                if done {
                    break;
                }
                std::thread::sleep(Duration::from_millis(10));
            }
            Err(e) => panic!("{}: reading the FIFO: {e}", w.name),
        }
    }
    (child.join().unwrap(), got)
}

#[test]
fn a_device_stays_a_device() {
    let s = Setup::new();
    for w in WRITERS {
        let (d, p) = place(&s, w, "dev");
        if let Err(why) = null_device(&p) {
            println!("skipped: no device node in the scratch directory: {why}");
            return;
        }
        let o = run(&s, w, &p);
        common::assert_success(&o, w.name);
        let m = std::fs::symlink_metadata(&p).unwrap();
        assert!(m.file_type().is_char_device(), "{}: {m:?}", w.name);
        use std::os::unix::fs::MetadataExt;
        assert_eq!(m.rdev(), libc::makedev(1, 3), "{}", w.name);
        assert_eq!(names(&d), [format!("out.{}", w.ext)], "{}", w.name);
    }
}

#[test]
fn a_fifo_is_written_through_and_one_nobody_reads_is_refused_at_once() {
    let s = Setup::new();
    for w in WRITERS {
        let (d, p) = place(&s, w, "fifo");
        common::mkfifo(&p);
        let (o, got) = run_reading(&s, w, &p);
        common::assert_success(&o, w.name);
        let text = String::from_utf8_lossy(&got);
        assert!(text.contains(w.holds), "{}: read {text}", w.name);
        // Nobody reading: refused, not waited on, and nothing left beside it.
        let t0 = Instant::now();
        let o = run(&s, w, &p);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success(), "{}: {err}", w.name);
        assert!(err.contains("no reader on FIFO "), "{}: {err}", w.name);
        assert!(!err.contains("panicked"), "{}: {err}", w.name);
        assert!(t0.elapsed() < Duration::from_secs(50), "{}", w.name);
        let m = std::fs::symlink_metadata(&p).unwrap();
        assert!(m.file_type().is_fifo(), "{}", w.name);
        assert_eq!(names(&d), [format!("out.{}", w.ext)], "{}", w.name);
    }
}

#[test]
fn a_symlink_stays_a_link_and_its_target_is_replaced() {
    let s = Setup::new();
    for w in WRITERS {
        let (d, p) = place(&s, w, "link");
        let target = format!("target.{}", w.ext);
        std::fs::write(d.join(&target), "old").unwrap();
        std::os::unix::fs::symlink(&target, &p).unwrap();
        let o = run(&s, w, &p);
        common::assert_success(&o, w.name);
        assert!(
            std::fs::symlink_metadata(&p)
                .unwrap()
                .file_type()
                .is_symlink(),
            "{}",
            w.name
        );
        assert_eq!(std::fs::read_link(&p).unwrap(), Path::new(&target));
        let text = std::fs::read_to_string(d.join(&target)).unwrap();
        assert!(text.contains(w.holds), "{}: {text}", w.name);
        assert_eq!(
            names(&d),
            [format!("out.{}", w.ext), target.clone()],
            "{}",
            w.name
        );
    }
}

#[test]
fn a_directory_is_refused_in_one_line_and_dash_is_stdout() {
    let s = Setup::new();
    for w in WRITERS {
        let (_, p) = place(&s, w, "dir");
        std::fs::create_dir(&p).unwrap();
        let o = run(&s, w, &p);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success(), "{}: {err}", w.name);
        assert_eq!(err.trim_end().lines().count(), 1, "{}: {err}", w.name);
        assert!(err.contains("is a directory"), "{}: {err}", w.name);
        assert!(
            std::fs::read_dir(&p).unwrap().next().is_none(),
            "{}",
            w.name
        );
        // `--prom-file` takes a *.prom name (its stdout form is --format openmetrics).
        if w.ext == "prom" {
            continue;
        }
        let o = run(&s, w, Path::new("-"));
        common::assert_success(&o, w.name);
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(out.contains(w.holds), "{}: {out}", w.name);
        assert!(!Path::new("-").exists(), "{}: wrote a file named -", w.name);
    }
}
