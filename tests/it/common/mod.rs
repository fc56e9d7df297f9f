//! Helpers shared by the integration tests (`tests/it/main.rs` declares `mod common;`
//! once; each module uses `crate::common`): the
//! binary under test in a clean environment, where tests write their scratch files, the
//! check that bad input is refused cleanly, and the check of a JSON report whose every
//! result ran. Not every file uses every helper.
//!
//! Every test that starts the binary starts it through [`pb`], [`pb_std`] or
//! [`clean_env`] (a test in `tests/it/first_contact.rs` holds them to it): the user's shell must not
//! change what the tests see (issue #32 A: `COLUMNS=120` exported made three tests of
//! `tests/report.rs` (now `tests/it/report.rs`) fail, since the table fits `COLUMNS`).
#![allow(dead_code)]

use assert_cmd::Command;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Child, Output};
use std::time::{Duration, Instant};

pub mod cluster;
pub mod frames;
pub mod history;

#[path = "../../../src/util/scratch.rs"]
mod scratch;
#[allow(unused_imports)]
pub(crate) use scratch::{scratch_dir, scratch_root};

/// Variables of an ordinary shell that change what the binary prints or does: the
/// terminal's size and colours, the locale (of the reference tools it runs), and
/// peakbench's own (a token, a cluster launch). Removed for every test; a test that is
/// about one of them sets it again on its command.
pub const SHELL_VARS: &[&str] = &[
    "COLUMNS",
    "LINES",
    "TERM",
    "COLORTERM",
    "NO_COLOR",
    "CLICOLOR",
    "CLICOLOR_FORCE",
    "LANG",
    "LANGUAGE",
    "LC_ALL",
    "LC_CTYPE",
    "LC_NUMERIC",
    "LC_MESSAGES",
    "PEAKBENCH_TOKEN",
    "PEAKBENCH_TOKEN_FILE",
    "PEAKBENCH_RUNS_DIR",
    "PEAKBENCH_RANK",
    "PEAKBENCH_SIZE",
    "PEAKBENCH_COORD",
    "PEAKBENCH_HOST_ID",
    "PEAKBENCH_BIND",
    "PEAKBENCH_JOIN_TIMEOUT",
    "PEAKBENCH_SUITE_TIMEOUT",
    "OMPI_COMM_WORLD_SIZE",
    "PMIX_RANK",
];

/// Where the binary under test keeps its run history: `XDG_DATA_HOME` points into the
/// scratch root, so no test writes into the user's own data directory.
pub fn data_home() -> std::path::PathBuf {
    scratch_root().join("xdg-data")
}

/// A registry of running runs of its own for each started binary
/// (`PEAKBENCH_RUNS_DIR`): the tests run in parallel, and runs that see each other mark
/// their figures disturbed (issue #45 item 5); a test about that shares one on purpose.
pub fn runs_dir() -> PathBuf {
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    scratch_root().join(format!("runs/{}-{n}", std::process::id()))
}

/// Gives `c` the clean environment of the tests: [`SHELL_VARS`] removed, then
/// `LC_ALL=C`, `XDG_DATA_HOME` in the scratch root ([`data_home`]) and a registry of
/// runs of its own ([`runs_dir`]). For commands that start the binary through another program (`ip netns
/// exec`, `timeout`), which passes its environment on.
pub fn clean_env(c: &mut std::process::Command) -> &mut std::process::Command {
    for v in SHELL_VARS {
        c.env_remove(v);
    }
    c.env("LC_ALL", "C")
        .env("XDG_DATA_HOME", data_home())
        .env("PEAKBENCH_RUNS_DIR", runs_dir())
}

/// The path of the `peakbench` binary built for these tests.
pub fn bin() -> std::path::PathBuf {
    assert_cmd::cargo::cargo_bin("peakbench")
}

/// The `peakbench` binary built for these tests, in the clean environment.
pub fn pb() -> Command {
    let mut c = Command::cargo_bin("peakbench").unwrap();
    for v in SHELL_VARS {
        c.env_remove(v);
    }
    c.env("LC_ALL", "C")
        .env("XDG_DATA_HOME", data_home())
        .env("PEAKBENCH_RUNS_DIR", runs_dir());
    c
}

/// [`pb`] that cannot hang: killed after 60 s (a hang is a failure, not a stuck CI).
pub fn pb_bounded() -> Command {
    let mut c = pb();
    c.timeout(Duration::from_secs(60));
    c
}

/// [`pb`] as a `std::process::Command`, for tests that spawn it and signal it.
pub fn pb_std() -> std::process::Command {
    let mut c = std::process::Command::new(bin());
    clean_env(&mut c);
    c
}

/// Asserts a refusal of bad input: exit code 2 and exactly one line on stderr, holding
/// every needle and no panic. `what` names the case in failure messages. Returns stderr.
pub fn assert_refused(out: &Output, what: &dyn std::fmt::Debug, needles: &[&str]) -> String {
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(2), "{what:?}: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{what:?}: {err}");
    for n in needles {
        assert!(err.contains(n), "{what:?}: missing {n:?} in {err}");
    }
    assert!(!err.contains("panicked"), "{what:?}: {err}");
    err
}

/// Runs `cmd` with `args` and `--output` an empty directory, asserts the refusal
/// ([`assert_refused`]) and that no file was written; returns the output.
pub fn refused(cmd: &mut Command, args: &[&str], needles: &[&str]) -> Output {
    let dir = tempfile::tempdir().unwrap();
    let out = cmd
        .args(args)
        .arg("--output")
        .arg(dir.path())
        .output()
        .unwrap();
    assert_refused(&out, &args, needles);
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        0,
        "{args:?} wrote files"
    );
    out
}

/// [`refused`] of `args` run by [`pb_bounded`].
pub fn refused_bounded(args: &[&str], needles: &[&str]) -> Output {
    refused(&mut pb_bounded(), args, needles)
}

/// The results of the JSON report in `stdout`: asserts there are `n` of them (`what`
/// says why, e.g. "3 patterns × 2 blocks × 3 metrics") and that every one ran.
pub fn ok_results(stdout: &[u8], n: usize, what: &str) -> Vec<Value> {
    let report: Value = serde_json::from_slice(stdout).unwrap();
    let results = report["results"].as_array().unwrap().clone();
    assert_eq!(results.len(), n, "{what}");
    for r in &results {
        assert_eq!(r["status"], "ok", "{r}");
    }
    results
}

/// Asserts a run's exit status is success, naming `what` and its stderr otherwise.
pub fn assert_success(out: &Output, what: &str) {
    assert!(
        out.status.success(),
        "{what}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The JSON a successful run printed: [`assert_success`], then stdout parsed.
pub fn success_json(out: &Output, what: &str) -> Value {
    assert_success(out, what);
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The text a successful run printed: [`assert_success`], then stdout (lossy UTF-8).
pub fn success_text(out: &Output, what: &str) -> String {
    assert_success(out, what);
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Runs `ip ARGS…` (iproute2) for the tests that build network namespaces; the error
/// names the command and its stderr.
pub fn ip(args: &[&str]) -> Result<(), String> {
    let out = std::process::Command::new("ip")
        .args(args)
        .output()
        .map_err(|e| format!("cannot run ip: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "ip {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

/// `tests/fixtures/NAME` as JSON.
pub fn fixture_json(name: &str) -> Value {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap()
}

/// Writes `v` to `dir/NAME`; returns its path.
pub fn write_json(dir: &Path, name: &str, v: &Value) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, serde_json::to_vec(v).unwrap()).unwrap();
    p
}

/// Waits for `child` at most `limit` (then kills it and fails: nothing may hang).
pub fn finish(mut child: Child, limit: Duration, what: &str) -> Output {
    let t = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if t.elapsed() > limit {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!(
                "{what}: still running after {limit:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    child.wait_with_output().unwrap()
}

/// Sends `sig` to `child`.
pub fn signal(child: &Child, sig: i32) {
    // SAFETY: signalling our own child process.
    unsafe { libc::kill(child.id() as i32, sig) };
}

/// Every path under `dir`, recursively.
pub fn everything(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                todo.push(p.clone());
            }
            out.push(p);
        }
    }
    out
}

/// Makes a named pipe at `p`.
pub fn mkfifo(p: &Path) {
    let c = std::ffi::CString::new(p.to_str().unwrap()).unwrap();
    // SAFETY: a valid C string.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
}

/// A loopback TCP port held for a server that a test starts later (a cluster's rank 0,
/// an impostor): a socket bound to `127.0.0.1:PORT` with `SO_REUSEADDR`, never listening,
/// kept open while this lives.
///
/// Binding port 0, reading the port and closing the socket (what the tests did) leaves
/// the port free until the server binds it, seconds later on a busy machine: meanwhile
/// another test of the one test binary (or another process) could get the same port
/// from its own bind to port 0 or as a connection's local port. While this socket holds
/// it, Linux hands the port out to neither (a bind to port 0 skips ports that a socket
/// is bound to, `SO_REUSEADDR` or not, and so does the choice of a connection's local
/// port), yet a server that binds this port by number with `SO_REUSEADDR` (Rust's
/// `TcpListener::bind` sets it, as peakbench's coordinator does) may bind it and listen,
/// since this socket does not listen. Until the server listens, a connection to the port
/// is refused, as when nothing is bound there.
pub struct PortHold {
    /// The bound socket, closed on drop.
    _fd: std::os::fd::OwnedFd,
    port: u16,
}

impl PortHold {
    /// Holds a port of 127.0.0.1 that nothing else is bound to.
    pub fn new() -> PortHold {
        use std::os::fd::FromRawFd;
        // SAFETY: plain socket calls on a descriptor this function owns; the structures
        // passed are of the sizes given.
        unsafe {
            let raw = libc::socket(libc::AF_INET, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0);
            assert!(raw >= 0, "socket: {}", std::io::Error::last_os_error());
            let fd = std::os::fd::OwnedFd::from_raw_fd(raw);
            let one: libc::c_int = 1;
            let rc = libc::setsockopt(
                raw,
                libc::SOL_SOCKET,
                libc::SO_REUSEADDR,
                (&one as *const libc::c_int).cast(),
                std::mem::size_of::<libc::c_int>() as libc::socklen_t,
            );
            assert_eq!(rc, 0, "SO_REUSEADDR: {}", std::io::Error::last_os_error());
            let mut sa: libc::sockaddr_in = std::mem::zeroed();
            sa.sin_family = libc::AF_INET as libc::sa_family_t;
            sa.sin_addr.s_addr = u32::from(std::net::Ipv4Addr::LOCALHOST).to_be();
            sa.sin_port = 0;
            let mut len = std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t;
            let rc = libc::bind(raw, (&sa as *const libc::sockaddr_in).cast(), len);
            assert_eq!(
                rc,
                0,
                "bind 127.0.0.1:0: {}",
                std::io::Error::last_os_error()
            );
            let rc = libc::getsockname(raw, (&mut sa as *mut libc::sockaddr_in).cast(), &mut len);
            assert_eq!(rc, 0, "getsockname: {}", std::io::Error::last_os_error());
            PortHold {
                _fd: fd,
                port: u16::from_be(sa.sin_port),
            }
        }
    }

    /// The port held.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// `127.0.0.1:PORT`.
    pub fn addr(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }
}

impl Default for PortHold {
    fn default() -> Self {
        PortHold::new()
    }
}
