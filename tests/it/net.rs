//! `peakbench net` / `peakbench serve` through the binary and through the library:
//! byte counts agree at both ends, bad input gives one clear line and the right exit
//! code, and a server survives garbage, oversized frames, silent and stalling clients,
//! wrong tokens and version mismatches — and keeps serving. Everything runs on
//! loopback with short tests; nothing checks speed.

use crate::common;

use common::frames::{authenticate, raw, read_frame};

use assert_cmd::Command;
use peakbench::bench::net::proto::{
    data_hello, encode, hex, unhex, Direction, Msg, Proto, TestKind, TestSpec, NONCE_LEN, VERSION,
};
use peakbench::bench::net::server::{Server, ServerConfig};
use peakbench::bench::net::{client, udp};
use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener, TcpStream, UdpSocket};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

fn bin() -> Command {
    common::pb()
}

/// `peakbench serve --bind 127.0.0.1:0 ARGS`, killed on drop; the bound address is
/// read from its first stderr line.
struct Serve {
    child: Child,
    addr: SocketAddr,
}

impl Serve {
    fn start(args: &[&str]) -> Serve {
        let mut child = common::pb_std()
            .args(["serve", "--bind", "127.0.0.1:0"])
            .args(args)
            .env_remove("PEAKBENCH_TOKEN")
            .stderr(Stdio::piped())
            .stdout(Stdio::null())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stderr.as_mut().unwrap())
            .read_line(&mut line)
            .unwrap();
        let addr = line
            .split_whitespace()
            .find_map(|w| w.parse::<SocketAddr>().ok())
            .unwrap_or_else(|| panic!("no address in {line:?}"));
        Serve { child, addr }
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn json_run(args: &[&str]) -> (serde_json::Value, std::process::Output) {
    let dir = tempfile::tempdir().unwrap();
    let out = bin()
        .args(["net", "--format", "json", "--quiet", "--output"])
        .arg(dir.path())
        .args(args)
        .env_remove("PEAKBENCH_TOKEN")
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    let v = serde_json::from_slice(&out.stdout).unwrap_or(serde_json::Value::Null);
    (v, out)
}

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Sums a field over the `streams` of one end's report.
fn total(end: &serde_json::Value, field: &str) -> u64 {
    end["report"]["streams"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s[field].as_u64().unwrap())
        .sum()
}

#[test]
fn loopback_counts_agree_at_both_ends() {
    let (v, out) = json_run(&[
        "--proto",
        "tcp,udp",
        "--test",
        "throughput,latency",
        "--streams",
        "2",
        "--time",
        "200ms",
        "--repeat",
        "2",
    ]);
    common::assert_success(&out, "net");
    let results = v["results"].as_array().unwrap();
    assert_eq!(results.len(), 4);
    for r in results {
        assert_eq!(r["status"], "ok", "{r}");
        assert_eq!(r["samples"].as_array().unwrap().len(), 2);
        let (local, remote) = (&r["ends"]["local"], &r["ends"]["remote"]);
        assert!(remote["host"]["hostname"].is_string());
        match (r["params"]["proto"].as_str(), r["params"]["test"].as_str()) {
            (Some("tcp"), Some("throughput")) => {
                let sent = total(local, "sent_bytes");
                assert!(sent > 0);
                assert_eq!(sent, total(remote, "recv_bytes"));
                assert_eq!(r["unit"], "B/s");
            }
            (Some("udp"), Some("throughput")) => {
                let sent = total(local, "sent_msgs");
                let got: u64 = remote["report"]["streams"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|s| s["udp"]["received"].as_u64().unwrap())
                    .sum();
                assert!(got > 0 && got <= sent, "{got} of {sent}");
                assert!(r["notes"].to_string().contains("datagrams lost"));
            }
            (_, Some("latency")) => {
                let p = &r["percentiles"];
                let (p50, max) = (p["p50"].as_f64().unwrap(), p["max"].as_f64().unwrap());
                assert!(p50 > 0.0 && p50 <= max);
                assert_eq!(r["unit"], "s");
            }
            other => panic!("{other:?}"),
        }
    }
}

/// UDP throughput below the 16-byte header is one `skipped` case with its reason; the
/// other sizes of the same command still run (it used to be exit 2 for all of them).
#[test]
fn udp_datagrams_below_the_header_are_skipped_not_refused() {
    let (v, out) = json_run(&[
        "--proto",
        "udp",
        "--test",
        "throughput",
        "--msg",
        "1B,15B,64B",
        "--time",
        "100ms",
        "--repeat",
        "1",
    ]);
    common::assert_success(&out, "net");
    let results = v["results"].as_array().unwrap();
    assert_eq!(results.len(), 3);
    for r in &results[..2] {
        let why = r["status"]["skipped"]["reason"]
            .as_str()
            .unwrap_or_default();
        assert!(why.contains("16-byte sequence and time header"), "{r}");
    }
    assert_eq!(results[2]["status"], "ok", "{}", results[2]);
}

#[test]
fn reverse_and_bidir_count_both_ways() {
    for flag in ["--reverse", "--bidir"] {
        let (v, out) = json_run(&[
            "--proto",
            "tcp",
            "--test",
            "throughput",
            "--time",
            "100ms",
            "--repeat",
            "1",
            flag,
        ]);
        common::assert_success(&out, flag);
        let r = &v["results"][0];
        assert_eq!(r["status"], "ok", "{r}");
        let (local, remote) = (&r["ends"]["local"], &r["ends"]["remote"]);
        assert_eq!(total(remote, "sent_bytes"), total(local, "recv_bytes"));
        assert!(total(local, "recv_bytes") > 0);
        if flag == "--bidir" {
            assert_eq!(total(local, "sent_bytes"), total(remote, "recv_bytes"));
            assert!(total(local, "sent_bytes") > 0);
        }
    }
}

#[test]
fn bad_flags_exit_2_with_one_line() {
    for (args, flag) in [
        (vec!["--proto", "sctp"], "--proto"),
        (vec!["--test", "jitter"], "--test"),
        (vec!["--msg", "0B"], "--msg"),
        (vec!["--proto", "udp", "--msg", "70000B"], "--msg"),
        (vec!["--streams", "0"], "--streams"),
        (vec!["--time", "forever"], "--time"),
        (vec!["--reverse", "--bidir"], "--bidir"),
        (vec!["--proto", "tcp", "--rate", "1G"], "--rate"),
        (vec!["--proto", "udp", "--rate", "fast"], "--rate"),
        (vec!["--server", "127.0.0.1:99999"], "--server"),
    ] {
        let out = bin().arg("net").args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let e = stderr(&out);
        assert_eq!(e.trim().lines().count(), 1, "{args:?}: {e}");
        assert!(e.contains(flag), "{args:?}: {e}");
    }
    let out = bin()
        .args(["serve", "--bind", "nowhere:x"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--bind"));
}

#[test]
fn refused_port_and_port_in_use_exit_1() {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = l.local_addr().unwrap().to_string();
    let out = bin().args(["serve", "--bind", &addr]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("in use"), "{}", stderr(&out));
    drop(l);
    // A port held bound but not listening: connections are refused, and no other
    // process can take it meanwhile (the dropped listener's port could be).
    let hold = common::PortHold::new();
    let (_, out) = json_run(&["--server", &hold.addr(), "--time", "100ms"]);
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let first = v["results"][0]["status"]["failed"]["error"]
        .as_str()
        .unwrap();
    assert!(first.contains("connection refused"), "{first}");
    // The other cases are skipped, not retried one by one.
    assert!(v["results"][1]["status"]["skipped"].is_object());
}

#[test]
fn serve_once_with_token_and_wrong_tokens() {
    let s = Serve::start(&["--token", "s3cret"]);
    let a = s.addr.to_string();
    let (_, out) = json_run(&["--server", &a, "--time", "100ms", "--token", "wrong"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("wrong token"));
    let (_, out) = json_run(&["--server", &a, "--time", "100ms"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("requires a token"));
    // Still serving.
    let (v, out) = json_run(&[
        "--server", &a, "--time", "100ms", "--repeat", "1", "--proto", "tcp", "--token", "s3cret",
    ]);
    common::assert_success(&out, "net");
    assert_eq!(v["results"][0]["status"], "ok");
    assert_eq!(v["results"][0]["params"]["server"], a);
}

fn test_server(
    token: Option<&str>,
    idle: Duration,
) -> (SocketAddr, std::sync::Arc<std::sync::atomic::AtomicBool>) {
    let mut cfg = ServerConfig::new(serde_json::json!({"hostname": "test"}), vec![]);
    cfg.token = token.map(|t| t.as_bytes().to_vec());
    cfg.handshake = Duration::from_secs(2);
    cfg.idle = idle;
    cfg.log = false;
    let srv = Server::bind("127.0.0.1:0".parse().unwrap(), cfg).unwrap();
    let addr = srv.local_addr().unwrap();
    let stop = srv.stopper();
    std::thread::spawn(move || srv.serve());
    (addr, stop)
}

fn spec(proto: Proto) -> TestSpec {
    TestSpec {
        proto,
        test: TestKind::Throughput,
        msg: if proto == Proto::Udp { 1000 } else { 65536 },
        streams: 1,
        direction: Direction::Up,
        omit_ms: 50,
        interval_ms: 100,
        intervals: 2,
        rate_bps: None,
        zerocopy: false,
        window: None,
        congestion: None,
        mss: None,
        bytes: None,
    }
}

fn good_run(addr: SocketAddr, token: Option<&str>) {
    let o = client::run(
        addr,
        token.map(str::as_bytes),
        &spec(Proto::Tcp),
        &[],
        client::Timeouts::default(),
    )
    .unwrap_or_else(|e| panic!("{}", e.message));
    let sent: u64 = o.local.report.streams.iter().map(|s| s.sent_bytes).sum();
    let got: u64 = o.remote.streams.iter().map(|s| s.recv_bytes).sum();
    assert!(sent > 0);
    assert_eq!(sent, got);
}

#[test]
fn server_survives_hostile_clients() {
    let (addr, stop) = test_server(Some("tok"), Duration::from_millis(800));
    // Garbage (an HTTP request), an oversized frame, a malformed frame.
    for junk in [
        b"GET / HTTP/1.1\r\nHost: x\r\n\r\n".to_vec(),
        u32::MAX.to_be_bytes().to_vec(),
        [&8u32.to_be_bytes()[..], b"{\"type\":"].concat(),
        encode(&Msg::Start {}),
    ] {
        let mut s = raw(addr);
        assert!(matches!(read_frame(&mut s), Some(Msg::Greeting { .. })));
        let _ = s.write_all(&junk);
        // The server answers with an error or closes; it never hangs us.
        let t = Instant::now();
        let _ = read_frame(&mut s);
        assert!(t.elapsed() < Duration::from_secs(5));
    }
    // A silent connection does not block a real client meanwhile.
    let _silent = raw(addr);
    good_run(addr, Some("tok"));
    // Version mismatch: a clear error naming both versions.
    let mut s = raw(addr);
    read_frame(&mut s);
    s.write_all(&encode(&Msg::Hello {
        version: 999,
        nonce: hex(&[0u8; NONCE_LEN]),
        proof: None,
    }))
    .unwrap();
    match read_frame(&mut s) {
        Some(Msg::Error { message }) => assert!(message.contains("version mismatch"), "{message}"),
        other => panic!("{other:?}"),
    }
    // Wrong token.
    let o = client::run(
        addr,
        Some(b"nope"),
        &spec(Proto::Tcp),
        &[],
        client::Timeouts::default(),
    );
    assert!(o.err().unwrap().message.contains("wrong token"));
    // A client that stalls mid-test: authenticates, attaches, starts, sends nothing.
    let mut c = authenticate(addr, "tok");
    c.write_all(&encode(&Msg::Test {
        spec: spec(Proto::Tcp),
    }))
    .unwrap();
    let Some(Msg::Ready { cookie, ports }) = read_frame(&mut c) else {
        panic!("no ready")
    };
    let mut d = TcpStream::connect((addr.ip(), ports[0])).unwrap();
    d.write_all(&data_hello(&unhex(&cookie, 16).unwrap(), 0))
        .unwrap();
    assert!(matches!(read_frame(&mut c), Some(Msg::Attached {})));
    // Meanwhile the server is busy for others.
    let busy = client::run(
        addr,
        Some(b"tok"),
        &spec(Proto::Tcp),
        &[],
        client::Timeouts::default(),
    );
    assert!(busy.err().unwrap().message.contains("busy"));
    c.write_all(&encode(&Msg::Start {})).unwrap();
    let t = Instant::now();
    // Protocol 2: the server says its streams run before the data flows.
    assert!(matches!(read_frame(&mut c), Some(Msg::Started {})));
    match read_frame(&mut c) {
        Some(Msg::Error { message }) => assert!(message.contains("stall"), "{message}"),
        other => panic!("{other:?}"),
    }
    assert!(t.elapsed() < Duration::from_secs(5));
    drop((c, d));
    // And it serves again, TCP and UDP.
    good_run(addr, Some("tok"));
    let o = client::run(
        addr,
        Some(b"tok"),
        &spec(Proto::Udp),
        &[],
        client::Timeouts::default(),
    )
    .unwrap_or_else(|e| panic!("{}", e.message));
    assert!(o.remote.streams[0].udp.as_ref().unwrap().received > 0);
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
}

#[test]
fn client_refuses_a_server_with_another_version_or_no_proof() {
    for greeting in [
        Msg::Greeting {
            version: VERSION + 1,
            nonce: hex(&[1u8; NONCE_LEN]),
            auth: false,
        },
        Msg::Greeting {
            version: VERSION,
            nonce: hex(&[1u8; NONCE_LEN]),
            auth: false,
        },
    ] {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = l.local_addr().unwrap();
        let g = greeting.clone();
        let fake = std::thread::spawn(move || {
            let (mut s, _) = l.accept().unwrap();
            s.write_all(&encode(&g)).unwrap();
            let _ = read_frame(&mut s);
            // A server that skips authentication: no proof.
            let _ = s.write_all(&encode(&Msg::Welcome {
                proof: None,
                host: serde_json::Value::Null,
            }));
            std::thread::sleep(Duration::from_millis(200));
        });
        let (_, out) = json_run(&[
            "--server",
            &addr.to_string(),
            "--token",
            "t",
            "--proto",
            "tcp",
            "--test",
            "latency",
        ]);
        assert_eq!(out.status.code(), Some(1));
        let text = String::from_utf8_lossy(&out.stdout);
        if let Msg::Greeting { version, .. } = greeting {
            if version != VERSION {
                assert!(text.contains("protocol version mismatch"), "{text}");
            } else {
                assert!(text.contains("did not prove the token"), "{text}");
            }
        }
        fake.join().unwrap();
    }
}

#[test]
fn udp_loss_and_reordering_are_counted() {
    // Datagrams 0..1000 with every 10th dropped on purpose and 500/501 swapped.
    let rx = UdpSocket::bind("127.0.0.1:0").unwrap();
    let tx = UdpSocket::bind("127.0.0.1:0").unwrap();
    udp::big_buffers(&rx);
    tx.connect(rx.local_addr().unwrap()).unwrap();
    let stop = peakbench::bench::net::engine::Interrupt::default();
    let count = std::sync::atomic::AtomicU64::new(0);
    let origin = peakbench::measure::clock::Tick::now();
    let mut order: Vec<u64> = (0..1000).filter(|s| s % 10 != 9).collect();
    let i = order.iter().position(|&s| s == 500).unwrap();
    order.swap(i, i + 1);
    std::thread::scope(|sc| {
        let h = sc.spawn(|| udp::recv(&rx, 100, &count, &stop, origin).unwrap());
        for s in &order {
            let mut d = vec![0u8; 100];
            d[..8].copy_from_slice(&s.to_be_bytes());
            tx.send(&d).unwrap();
            if s % 100 == 0 {
                std::thread::sleep(Duration::from_millis(1));
            }
        }
        std::thread::sleep(Duration::from_millis(100));
        stop.set();
        let (bytes, st) = h.join().unwrap();
        assert_eq!(st.received, 900);
        assert_eq!(bytes, 900 * 100);
        assert_eq!(1000 - st.received, 100, "loss against the sender's count");
        assert_eq!(st.reordered, 1);
        assert_eq!(st.next_seq, 999);
    });
}
