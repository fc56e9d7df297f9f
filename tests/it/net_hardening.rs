//! `peakbench serve` and the in-process server under the hardening rounds and loose
//! ends (#16, #26, #27, #33): hostile and vanishing clients, per-address limits, and the
//! real binary's memory under churn (`--max-memory`). Everything runs on loopback;
//! nothing checks speed.

use crate::common;

use std::time::Duration;

mod server {
    //! #16 items 2, 3, 9 and 11 (server side), on loopback against the in-process server.

    use crate::common::frames::{authenticate, raw, read_frame};
    use peakbench::bench::net::client;
    use peakbench::bench::net::proto::{
        data_hello, encode, unhex, Direction, Msg, Proto, SentCount, TestKind, TestSpec,
    };
    use peakbench::bench::net::server::{Server, ServerConfig, MAX_PENDING_PER_ADDR};
    use std::io::Write;
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
            window: None,
            congestion: None,
            mss: None,
            bytes: None,
        }
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

    /// #16 item 2: a client that starts a 10-minute test and vanishes frees the server at
    /// once (it used to stay busy for the whole requested duration).
    #[test]
    fn a_vanished_client_frees_the_server() {
        let srv = server();
        let mut c = authenticate(srv.addr, "tok");
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

    /// #16 item 3: idle connections, from the client's own address and from another one,
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

    /// #16 item 9: a connection to the data port that says nothing does not hold up the
    /// real stream behind it, and the test completes with every byte counted.
    #[test]
    fn a_silent_data_connection_does_not_abort_the_test() {
        let srv = server();
        let mut c = authenticate(srv.addr, "tok");
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

    /// #16 item 11: a malformed frame after authentication gets an error reply.
    #[test]
    fn malformed_frames_after_auth_get_an_error_reply() {
        let srv = server();
        let mut c = authenticate(srv.addr, "tok");
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

mod serve_memory {
    //! #27 items 1 and 2 against the real `peakbench serve` binary on 127.0.0.1.

    use crate::common::frames::read_frame;
    use peakbench::bench::net::proto::{
        data_hello, encode, hex, unhex, Direction, Msg, Proto, TestKind, TestSpec, NONCE_LEN,
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
        let mut child = crate::common::pb_std()
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
            window: None,
            congestion: None,
            mss: None,
            bytes: None,
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

    /// #27 items 1 and 2: repeated tests whose client vanishes 50 ms after the start keep
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

/// #27 item 8: `serve --max-memory` takes a size and refuses anything else.
#[test]
fn serve_max_memory_is_checked() {
    let out = common::pb()
        .args(["serve", "--max-memory", "lots"])
        .timeout(Duration::from_secs(20))
        .output()
        .unwrap();
    common::assert_refused(&out, &"--max-memory lots", &["--max-memory:", "lots"]);
}
