//! Regression tests for the attacks of issue #16: each reproduces one attack through the
//! binary (or on loopback) and asserts the clean outcome: exit code, one clear line, no
//! crash, no hang, and a server that keeps serving legitimate clients.

use crate::common;

use assert_cmd::Command;
use std::time::Duration;

fn pb() -> Command {
    let mut c = common::pb();
    // Nothing here may hang: a hang is a failure, not a stuck CI.
    c.timeout(Duration::from_secs(60));
    c
}

/// Exit code 2, one line on stderr containing every needle, no output files.
fn refused(args: &[&str], needles: &[&str]) {
    common::refused(&mut pb(), args, needles);
}

/// Item 1: sizes whose products wrap around 2^64 (a segfault, a worker panic and a hang
/// before the fix) are refused up front, naming --size and the limit.
#[test]
fn memory_sizes_that_overflow_are_refused() {
    let max = "18446744073709551615B";
    refused(
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
    refused(
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
    refused(
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
    refused(
        &["memory", "--weak", "--threads", "2", "--size", "200TiB"],
        &["--size:", "limit of 256 TiB"],
    );
    // The chase's u32 node indices: refused, never a worker panic (the RAM check names
    // the first limit on a machine with less than 256 GiB per thread; the chase's own
    // limit is tested in bench::memory::chase).
    refused(
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
    refused(
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

/// Item 11: a negative size reaches the flag's own parser (not clap's "unexpected
/// argument"), and a virtual filesystem is blamed on --dir, not on --file-size.
#[test]
fn disk_flags_are_blamed_correctly() {
    refused(
        &["disk", "--file-size", "-1GiB"],
        &["--file-size:", "-1GiB"],
    );
    refused(
        &["disk", "--file-size", "18446744073709551615B"],
        &["--file-size:", "limit of 256 TiB"],
    );
    if std::path::Path::new("/proc/self").exists() {
        refused(&["disk", "--dir", "/proc"], &["--dir:", "no storage"]);
    }
}

mod server {
    //! Items 2, 3, 9 and 11 (server side), on loopback against the in-process server.

    use peakbench::bench::net::client;
    use peakbench::bench::net::proto::{
        self, data_hello, encode, hex, prove, unhex, Direction, Msg, Proto, SentCount, Side,
        TestKind, TestSpec, NONCE_LEN, VERSION,
    };
    use peakbench::bench::net::server::{Server, ServerConfig, MAX_PENDING_PER_ADDR};
    use std::io::{Read, Write};
    use std::net::{SocketAddr, TcpStream};
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    use std::time::{Duration, Instant};

    /// A token server on 127.0.0.1 with short deadlines; stopped on drop.
    struct Srv {
        addr: SocketAddr,
        stop: Arc<AtomicBool>,
    }
    impl Drop for Srv {
        fn drop(&mut self) {
            self.stop.store(true, Ordering::Relaxed);
        }
    }
    fn server() -> Srv {
        let mut cfg = ServerConfig::new(serde_json::json!({"hostname": "test"}), vec![]);
        cfg.token = Some(b"tok".to_vec());
        cfg.handshake = Duration::from_secs(2);
        cfg.idle = Duration::from_secs(2);
        cfg.log = false;
        let srv = Server::bind("127.0.0.1:0".parse().unwrap(), cfg).unwrap();
        let addr = srv.local_addr().unwrap();
        let stop = srv.stopper();
        std::thread::spawn(move || srv.serve());
        Srv { addr, stop }
    }

    fn spec(intervals: u32) -> TestSpec {
        TestSpec {
            proto: Proto::Tcp,
            test: TestKind::Throughput,
            msg: 65536,
            streams: 1,
            direction: Direction::Up,
            omit_ms: 50,
            interval_ms: 100,
            intervals,
            rate_bps: None,
            zerocopy: false,
        }
    }

    fn raw(addr: SocketAddr) -> TcpStream {
        let s = TcpStream::connect(addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        s
    }

    fn read_frame(s: &mut TcpStream) -> Option<Msg> {
        let mut h = [0u8; 4];
        s.read_exact(&mut h).ok()?;
        let mut b = vec![0u8; proto::frame_len(h).ok()?];
        s.read_exact(&mut b).ok()?;
        proto::decode(&b).ok()
    }

    fn authenticate(addr: SocketAddr) -> TcpStream {
        let mut s = raw(addr);
        let Some(Msg::Greeting { nonce, .. }) = read_frame(&mut s) else {
            panic!("no greeting")
        };
        let sn = unhex(&nonce, NONCE_LEN).unwrap();
        let cn = [7u8; NONCE_LEN];
        let hello = Msg::Hello {
            version: VERSION,
            nonce: hex(&cn),
            proof: Some(prove(b"tok", Side::Client, &sn, &cn)),
        };
        s.write_all(&encode(&hello)).unwrap();
        assert!(matches!(read_frame(&mut s), Some(Msg::Welcome { .. })));
        s
    }

    /// A legitimate client gets a full, counted test (retrying while the server says it
    /// is busy, for at most `within`).
    fn served_within(addr: SocketAddr, within: Duration) -> Duration {
        let t = Instant::now();
        loop {
            match client::run(
                addr,
                Some(b"tok"),
                &spec(2),
                &[],
                client::Timeouts::default(),
            ) {
                Ok(o) => {
                    let sent: u64 = o.local.report.streams.iter().map(|s| s.sent_bytes).sum();
                    let got: u64 = o.remote.streams.iter().map(|s| s.recv_bytes).sum();
                    assert!(sent > 0 && sent == got, "{sent} vs {got}");
                    return t.elapsed();
                }
                Err(e) if e.message.contains("busy") && t.elapsed() < within => {
                    std::thread::sleep(Duration::from_millis(100));
                }
                Err(e) => panic!(
                    "legitimate client refused after {:?}: {}",
                    t.elapsed(),
                    e.message
                ),
            }
        }
    }

    /// Item 2: a client that starts a 10-minute test and vanishes frees the server at
    /// once (it used to stay busy for the whole requested duration).
    #[test]
    fn a_vanished_client_frees_the_server() {
        let srv = server();
        let mut c = authenticate(srv.addr);
        c.write_all(&encode(&Msg::Test { spec: spec(6000) }))
            .unwrap();
        let Some(Msg::Ready { cookie, ports }) = read_frame(&mut c) else {
            panic!("no ready")
        };
        let mut d = TcpStream::connect((srv.addr.ip(), ports[0])).unwrap();
        d.write_all(&data_hello(&unhex(&cookie, 16).unwrap(), 0))
            .unwrap();
        assert!(matches!(read_frame(&mut c), Some(Msg::Attached {})));
        c.write_all(&encode(&Msg::Start {})).unwrap();
        std::thread::sleep(Duration::from_millis(200));
        drop((c, d));
        let waited = served_within(srv.addr, Duration::from_secs(20));
        assert!(waited < Duration::from_secs(20), "{waited:?}");
    }

    /// Item 3: idle connections, from the client's own address and from another one,
    /// never lock a legitimate client out; an evicted connection is told why.
    #[test]
    fn idle_connections_cannot_lock_clients_out() {
        let srv = server();
        let mut idle: Vec<TcpStream> = (0..16).map(|_| raw(srv.addr)).collect();
        // From a second loopback address too, where the OS allows binding one.
        for _ in 0..16 {
            let s = socket2_like_bind("127.0.0.2", srv.addr);
            if let Some(s) = s {
                idle.push(s);
            }
        }
        served_within(srv.addr, Duration::from_secs(20));
        // Over the per-address budget, the oldest waiting connection is closed with a
        // reason (not silently, which clients read as "not a peakbench server").
        let mut first = raw(srv.addr);
        assert!(matches!(read_frame(&mut first), Some(Msg::Greeting { .. })));
        let _more: Vec<TcpStream> = (0..MAX_PENDING_PER_ADDR + 16)
            .map(|_| raw(srv.addr))
            .collect();
        match read_frame(&mut first) {
            Some(Msg::Error { message }) => {
                assert!(
                    message.contains("too many unauthenticated connections"),
                    "{message}"
                )
            }
            // It may also have reached its hello deadline first.
            Some(other) => panic!("{other:?}"),
            None => {}
        }
        served_within(srv.addr, Duration::from_secs(20));
        drop(idle);
    }

    /// Connects to `to` from source address `from`; `None` where that cannot be bound.
    fn socket2_like_bind(from: &str, to: SocketAddr) -> Option<TcpStream> {
        // std has no bind-before-connect; use libc directly for the source address.
        use std::os::fd::FromRawFd;
        let src: std::net::Ipv4Addr = from.parse().ok()?;
        let SocketAddr::V4(dst) = to else { return None };
        // SAFETY: plain socket calls on a fresh fd, checked; ownership passes to TcpStream.
        unsafe {
            let fd = libc::socket(libc::AF_INET, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0);
            if fd < 0 {
                return None;
            }
            let sa = |ip: std::net::Ipv4Addr, port: u16| libc::sockaddr_in {
                sin_family: libc::AF_INET as libc::sa_family_t,
                sin_port: port.to_be(),
                sin_addr: libc::in_addr {
                    s_addr: u32::from(ip).to_be(),
                },
                sin_zero: [0; 8],
            };
            let a = sa(src, 0);
            let len = std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t;
            if libc::bind(fd, &a as *const _ as *const libc::sockaddr, len) != 0 {
                libc::close(fd);
                return None;
            }
            let b = sa(*dst.ip(), dst.port());
            if libc::connect(fd, &b as *const _ as *const libc::sockaddr, len) != 0 {
                libc::close(fd);
                return None;
            }
            Some(TcpStream::from_raw_fd(fd))
        }
    }

    /// Item 9: a connection to the data port that says nothing does not hold up the
    /// real stream behind it, and the test completes with every byte counted.
    #[test]
    fn a_silent_data_connection_does_not_abort_the_test() {
        let srv = server();
        let mut c = authenticate(srv.addr);
        c.write_all(&encode(&Msg::Test { spec: spec(2) })).unwrap();
        let Some(Msg::Ready { cookie, ports }) = read_frame(&mut c) else {
            panic!("no ready")
        };
        let _silent = TcpStream::connect((srv.addr.ip(), ports[0])).unwrap();
        std::thread::sleep(Duration::from_millis(100));
        let mut d = TcpStream::connect((srv.addr.ip(), ports[0])).unwrap();
        d.write_all(&data_hello(&unhex(&cookie, 16).unwrap(), 0))
            .unwrap();
        let t = Instant::now();
        assert!(matches!(read_frame(&mut c), Some(Msg::Attached {})));
        assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
        c.write_all(&encode(&Msg::Start {})).unwrap();
        assert!(matches!(read_frame(&mut c), Some(Msg::Started {})));
        let chunk = vec![0x5au8; 65536];
        for _ in 0..16 {
            d.write_all(&chunk).unwrap();
        }
        d.shutdown(std::net::Shutdown::Write).unwrap();
        std::thread::sleep(Duration::from_millis(300));
        let sent = vec![SentCount {
            id: 0,
            msgs: 16,
            bytes: 16 * 65536,
        }];
        c.write_all(&encode(&Msg::SenderDone { sent })).unwrap();
        match read_frame(&mut c) {
            Some(Msg::Results { report }) => {
                let got: u64 = report.streams.iter().map(|s| s.recv_bytes).sum();
                assert_eq!(got, 16 * 65536);
            }
            other => panic!("{other:?}"),
        }
    }

    /// Item 11: a malformed frame after authentication gets an error reply.
    #[test]
    fn malformed_frames_after_auth_get_an_error_reply() {
        let srv = server();
        let mut c = authenticate(srv.addr);
        let body = b"{\"type\":\"test\",\"spec\":\"\x1b]0;pwned\x07\"}";
        let mut f = (body.len() as u32).to_be_bytes().to_vec();
        f.extend_from_slice(body);
        c.write_all(&f).unwrap();
        match read_frame(&mut c) {
            Some(Msg::Error { message }) => {
                assert!(message.contains("malformed"), "{message}");
                assert!(
                    !message.contains('\x1b') && !message.contains('\x07'),
                    "{message:?}"
                );
            }
            other => panic!("{other:?}"),
        }
        served_within(srv.addr, Duration::from_secs(20));
    }
}

/// Item 4: a crafted results file with ESC, BEL, newlines, a bidi override and a 250 KB
/// string: no control character reaches the terminal, Markdown or CSV, no forged line,
/// and every field is capped.
#[test]
fn report_text_from_a_file_is_sanitised() {
    let src = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/report_compare_a.json"
    );
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(src).unwrap()).unwrap();
    let evil = format!(
        "x\x1b]0;pwned\x07\x1b[2J\nnote: forged line\r\u{202e}{}",
        "A".repeat(250 * 1024)
    );
    v["host"]["hostname"] = evil.clone().into();
    let r = &mut v["results"][0];
    r["workload"] = evil.clone().into();
    r["notes"] = serde_json::json!([evil.clone()]);
    r["params"]["evil"] = evil.clone().into();
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("evil.json");
    std::fs::write(&f, serde_json::to_vec(&v).unwrap()).unwrap();
    for format in ["table", "markdown", "csv"] {
        let out = pb()
            .args(["report", f.to_str().unwrap(), "--format", format])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{format}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let s = String::from_utf8(out.stdout).unwrap();
        assert!(
            !s.chars()
                .any(|c| c.is_control() && c != '\n' || c == '\u{202e}'),
            "{format}: control character in the output"
        );
        // Markdown escapes the backslashes and brackets of the shown escape once more
        // (#33 item 7), so it renders as the same text.
        let shown = if format == "markdown" {
            "\\\\x1b\\]0;pwned\\\\x07"
        } else {
            "\\x1b]0;pwned\\x07"
        };
        assert!(s.contains(shown), "{format}: escape not shown");
        assert!(
            !s.lines().any(|l| l.starts_with("note: forged")),
            "{format}: forged line"
        );
        // Four copies of the string, each capped at 1000 characters (+ escapes).
        assert!(s.len() < 100_000, "{format}: {} bytes", s.len());
    }
}

/// Item 5: `report` never trusts the size a file reports: a device is refused at once,
/// and an endless pipe is cut at the cap (one line, exit 2).
#[test]
fn report_reads_are_bounded() {
    let t = std::time::Instant::now();
    let out = pb().args(["report", "/dev/zero"]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.contains("/dev/zero"), "{err}");
    assert!(t.elapsed() < Duration::from_secs(30));
}

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

/// Item 6: runs started together with the same --output each keep their own results.
#[test]
fn simultaneous_runs_keep_every_result() {
    let dir = tempfile::tempdir().unwrap();
    let kids: Vec<_> = (0..4)
        .map(|_| null_run(dir.path(), 3).spawn().unwrap())
        .collect();
    for k in kids {
        let o = k.wait_with_output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
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

/// Item 8: SIGINT at any moment of a run that saves after every case never leaves a
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

/// Item 11: an unwritable --html is refused before anything is measured.
#[test]
fn html_path_is_checked_before_the_run() {
    refused(
        &["null", "--html", "/nonexistent-dir/x.html"],
        &["--html:", "/nonexistent-dir/x.html"],
    );
}

/// Item 7: `--peak` values are read with their prefix whatever its case
/// (`100gflop/s` was read as 100 FLOP/s), and an unknown unit or key, a lower-case `m`
/// (milli) or a unit that does not fit the key is refused before anything runs.
#[test]
fn peak_overrides_are_unit_checked() {
    let out = pb()
        .args([
            "sysinfo",
            "--format",
            "json",
            "--peak",
            "cpu.fp64=100gflop/s",
        ])
        .output()
        .unwrap();
    let v: serde_json::Value = common::success_json(&out, "sysinfo");
    let fp64: Vec<&serde_json::Value> = v["cpu_peaks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["precision"] == "fp64")
        .collect();
    assert!(!fp64.is_empty());
    for p in fp64 {
        assert_eq!(p["all_cores"]["value"].as_f64(), Some(100e9));
    }
    refused(
        &["null", "--peak", "cpu.fp64=100Xyz"],
        &["--peak:", "unknown unit 'Xyz'", "FLOP/s"],
    );
    refused(
        &["null", "--peak", "cpu.fp46=1TFLOP/s"],
        &["--peak:", "precision 'fp46'", "fp64"],
    );
    refused(
        &["null", "--peak", "gpu.fp128=1T"],
        &["--peak:", "unknown key 'gpu.fp128'", "gpu.PRECISION"],
    );
    refused(
        &["null", "--peak", "memory=100mB/s"],
        &["--peak:", "milli", "M for mega"],
    );
    refused(
        &["null", "--peak", "memory=1TFLOP/s"],
        &["--peak:", "bandwidth", "memory=68GB/s"],
    );
    refused(
        &["null", "--peak", "memory=10gb/s"],
        &["--peak:", "ambiguous", "bit/s"],
    );
}

/// Item 11: `compare` of files with nothing to compare (no case in common, or the
/// common cases not measured in both) is refused with one line, exit 2, and writes no
/// `--html`; it used to print an empty comparison and exit 0.
#[test]
fn compare_with_nothing_in_common_is_refused() {
    let src = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/report_compare_a.json"
    );
    let a: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(src).unwrap()).unwrap();
    let mut other = a.clone();
    for r in other["results"].as_array_mut().unwrap() {
        r["resource"] = "disk".into();
    }
    let mut failed = a.clone();
    for r in failed["results"].as_array_mut().unwrap() {
        r["status"] = serde_json::json!({"failed": {"error": "boom"}});
    }
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, v: &serde_json::Value| {
        let p = dir.path().join(name);
        std::fs::write(&p, serde_json::to_vec(v).unwrap()).unwrap();
        p.to_str().unwrap().to_string()
    };
    let (a, other, failed) = (
        write("a.json", &a),
        write("other.json", &other),
        write("failed.json", &failed),
    );
    let html = dir.path().join("c.html");
    for (b, needle) in [
        (&other, "no case in common"),
        (&failed, "measured (status ok)"),
    ] {
        let out = pb()
            .args(["compare", &a, b, "--html"])
            .arg(&html)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(
            err.contains("nothing to compare") && err.contains(needle),
            "{err}"
        );
        assert!(err.contains("a.json: 5 cases (cpu, memory)"), "{err}");
        assert!(out.stdout.is_empty());
        assert!(!html.exists());
    }
}
