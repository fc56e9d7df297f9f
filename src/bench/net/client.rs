//! The client end of one test: connect, authenticate (and check the server's proof),
//! ask for the test, attach data streams with the cookie, run, and collect both views.

use super::engine::{kind, DataSock, Engine, Finished};
use super::proto::{
    data_hello, hex, parse_data_hello, prove, random_bytes, unhex, verify, Control, Direction,
    EndReport, Msg, Proto, ProtoError, Side, TestKind, TestSpec, ACK_MAGIC, COOKIE_LEN, NONCE_LEN,
    VERSION,
};
use std::io::Write;
use std::net::{SocketAddr, TcpStream, UdpSocket};
use std::time::{Duration, Instant};

/// Client deadlines.
#[derive(Debug, Clone, Copy)]
pub struct Timeouts {
    /// Connecting and each handshake step.
    pub(crate) handshake: Duration,
    /// Longest silence on a data socket mid-test.
    pub(crate) idle: Duration,
}

impl Default for Timeouts {
    fn default() -> Self {
        Timeouts {
            handshake: Duration::from_secs(5),
            idle: Duration::from_secs(5),
        }
    }
}

/// Both views of one finished test.
pub struct Outcome {
    /// This end.
    pub local: Finished,
    /// The server's own report.
    pub remote: EndReport,
    /// The server's HostInfo, as it sent it.
    pub(crate) remote_host: serde_json::Value,
    /// Address of the control connection's local end (which interface was used).
    pub(crate) local_addr: SocketAddr,
}

/// Why a case could not run; `fatal` errors (cannot connect, wrong token, version)
/// make the remaining cases pointless.
#[derive(Debug)]
pub struct ClientError {
    /// One line.
    pub message: String,
    /// Whether later cases would fail the same way.
    pub(crate) fatal: bool,
}

fn fatal(message: String) -> ClientError {
    ClientError {
        message,
        fatal: true,
    }
}
fn test_err(message: String) -> ClientError {
    ClientError {
        message,
        fatal: false,
    }
}
fn pe(e: ProtoError) -> ClientError {
    test_err(e.to_string())
}

/// Tells the server why this client ends the session (best effort: it may be gone),
/// and makes that the run's fatal error.
fn refuse(ctrl: &mut Control<TcpStream>, msg: String) -> ClientError {
    let _ = ctrl.send(
        &Msg::Error {
            message: msg.clone(),
        },
        "refusing",
    );
    fatal(msg)
}

/// Connects and authenticates. Returns the control connection and the server's
/// HostInfo.
pub(crate) fn connect(
    addr: SocketAddr,
    token: Option<&[u8]>,
    t: Timeouts,
) -> Result<(Control<TcpStream>, serde_json::Value), ClientError> {
    let sock = TcpStream::connect_timeout(&addr, t.handshake).map_err(|e| {
        fatal(match e.kind() {
            std::io::ErrorKind::ConnectionRefused => {
                format!("cannot connect to {addr}: connection refused (is `peakbench serve` running there?)")
            }
            std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock => {
                format!("cannot connect to {addr}: no answer within {:?} (unreachable?)", t.handshake)
            }
            _ => format!("cannot connect to {addr}: {e}"),
        })
    })?;
    let _ = sock.set_nodelay(true);
    let _ = sock.set_write_timeout(Some(t.handshake));
    let mut ctrl = Control::new(sock);
    let first = |e: ProtoError| {
        fatal(match e {
            ProtoError::Peer(m) => format!("server {addr} refused: {m}"),
            e => format!("server {addr}: {e} (is it a peakbench server?)"),
        })
    };
    let g = ctrl
        .recv(t.handshake, "waiting for the greeting")
        .map_err(first)?;
    let Msg::Greeting {
        version,
        nonce,
        auth,
    } = g
    else {
        return Err(fatal(format!(
            "server {addr}: expected a greeting, got {} (is it a peakbench server?)",
            kind(&g)
        )));
    };
    if version != VERSION {
        let msg = format!(
            "protocol version mismatch: server {addr} speaks {version}, this client {VERSION}; run the same peakbench version on both ends"
        );
        return Err(refuse(&mut ctrl, msg));
    }
    let Some(snonce) = unhex(&nonce, NONCE_LEN) else {
        return Err(fatal(format!("server {addr}: malformed nonce")));
    };
    if auth && token.is_none() {
        let msg = format!("server {addr} requires a token; give --token (or $PEAKBENCH_TOKEN)");
        return Err(refuse(&mut ctrl, msg));
    }
    let cnonce = random_bytes(NONCE_LEN).map_err(|e| fatal(e.to_string()))?;
    let proof = token.map(|tk| prove(tk, Side::Client, &snonce, &cnonce));
    ctrl.send(
        &Msg::Hello {
            version: VERSION,
            nonce: hex(&cnonce),
            proof,
        },
        "hello",
    )
    .map_err(|e| fatal(e.to_string()))?;
    let w = ctrl
        .recv(t.handshake, "waiting for the welcome")
        .map_err(|e| match e {
            ProtoError::Peer(m) => fatal(format!("server {addr} refused: {m}")),
            e => fatal(e.to_string()),
        })?;
    let Msg::Welcome { proof, host } = w else {
        return Err(fatal(format!("expected welcome, got {}", kind(&w))));
    };
    // Mutual authentication: with a token, the server must prove it too (no
    // downgrade to a server that skips authentication).
    if let Some(tk) = token {
        let ok = proof
            .as_deref()
            .is_some_and(|p| verify(tk, Side::Server, &snonce, &cnonce, p));
        if !ok {
            let msg = format!(
                "server {addr} did not prove the token: wrong token, or not the server you meant"
            );
            return Err(refuse(&mut ctrl, msg));
        }
    }
    Ok((ctrl, host))
}

fn attach(
    server: SocketAddr,
    spec: &TestSpec,
    cookie: &[u8],
    ports: &[u16],
    t: Timeouts,
) -> Result<Vec<DataSock>, ClientError> {
    let n = spec.connections();
    let mut socks: Vec<DataSock> = Vec::with_capacity(n);
    match spec.proto {
        Proto::Tcp => {
            let &[port] = ports else {
                return Err(test_err(
                    "protocol error: expected one TCP data port".into(),
                ));
            };
            for i in 0..n {
                let mut s = super::sockopt::connect_tcp(
                    SocketAddr::new(server.ip(), port),
                    t.handshake,
                    spec,
                )
                .map_err(|e| {
                    test_err(format!(
                        "data stream {i}: cannot connect to port {port}: {e}"
                    ))
                })?;
                s.write_all(&data_hello(cookie, i as u32))
                    .map_err(|e| test_err(format!("data stream {i}: {e}")))?;
                socks.push(Box::new(s));
            }
        }
        Proto::Udp => {
            if ports.len() != n {
                return Err(test_err(
                    "protocol error: wrong number of UDP data ports".into(),
                ));
            }
            let bind: SocketAddr = if server.is_ipv4() {
                ([0, 0, 0, 0], 0).into()
            } else {
                (std::net::Ipv6Addr::UNSPECIFIED, 0).into()
            };
            for (i, &port) in ports.iter().enumerate() {
                let s = UdpSocket::bind(bind).map_err(|e| test_err(e.to_string()))?;
                s.connect(SocketAddr::new(server.ip(), port))
                    .map_err(|e| test_err(e.to_string()))?;
                super::sockopt::apply_udp(&s, spec)
                    .map_err(|e| test_err(format!("UDP data stream {i}: {e}")))?;
                let _ = s.set_read_timeout(Some(Duration::from_millis(50)));
                let hello = data_hello(cookie, i as u32);
                let deadline = Instant::now() + t.handshake;
                let mut buf = [0u8; 2048];
                // The hello may be lost: resend every 50 ms until acknowledged.
                loop {
                    if Instant::now() >= deadline {
                        return Err(test_err(format!(
                            "UDP data stream {i}: no acknowledgement from port {port} (datagrams blocked?)"
                        )));
                    }
                    let _ = s.send(&hello);
                    if let Ok(len) = s.recv(&mut buf) {
                        if parse_data_hello(&buf[..len], ACK_MAGIC, cookie) == Some(i as u32) {
                            break;
                        }
                    }
                }
                socks.push(Box::new(s));
            }
        }
    }
    Ok(socks)
}

/// Runs one test on a connected control connection.
pub(crate) fn run_test(
    ctrl: &mut Control<TcpStream>,
    server: SocketAddr,
    spec: &TestSpec,
    cpus: &[usize],
    t: Timeouts,
) -> Result<(Finished, EndReport), ClientError> {
    ctrl.send(&Msg::Test { spec: spec.clone() }, "sending the test")
        .map_err(pe)?;
    let r = ctrl.recv(t.handshake, "waiting for ready").map_err(pe)?;
    let Msg::Ready { cookie, ports } = r else {
        return Err(test_err(format!(
            "protocol error: expected ready, got {}",
            kind(&r)
        )));
    };
    let cookie = unhex(&cookie, COOKIE_LEN)
        .ok_or_else(|| test_err("protocol error: malformed cookie".into()))?;
    let socks = attach(server, spec, &cookie, &ports, t)?;
    let engine =
        Engine::spawn(spec, true, socks, cpus, t.idle).map_err(|e| test_err(e.to_string()))?;
    match ctrl
        .recv(t.handshake, "waiting for the streams to attach")
        .map_err(pe)?
    {
        Msg::Attached {} => {}
        other => {
            return Err(test_err(format!(
                "protocol error: expected attached, got {}",
                kind(&other)
            )))
        }
    }
    // The receiving end starts first (issue #32 item 1): a client that only receives
    // starts its streams, then says Start; otherwise it says Start and starts its
    // streams once the server's are running (Started), so no sender gets a head start
    // of a control round trip, which on a loaded machine can be most of a second.
    let receives_only = spec.test == TestKind::Throughput && spec.direction == Direction::Down;
    let mut t0 = None;
    if receives_only {
        t0 = Some(engine.release());
    }
    ctrl.send(&Msg::Start {}, "start").map_err(pe)?;
    match ctrl.recv(t.handshake, "waiting for the server's streams to start") {
        Ok(Msg::Started {}) => {}
        Ok(other) => {
            return Err(test_err(format!(
                "protocol error: expected started, got {}",
                kind(&other)
            )))
        }
        Err(e) => return Err(pe(e)),
    }
    let t0 = match t0 {
        Some(t0) => t0,
        None => engine.release(),
    };
    let iv = engine.sample(t0);
    let fin = engine.finish(ctrl, t0, iv).map_err(test_err)?;
    let wait = 2 * t.idle + Duration::from_secs(2);
    let remote = match ctrl
        .recv(wait, "waiting for the server's results")
        .map_err(pe)?
    {
        Msg::Results { report } => report,
        other => {
            return Err(test_err(format!(
                "protocol error: expected results, got {}",
                kind(&other)
            )))
        }
    };
    remote
        .validate(spec)
        .map_err(|e| test_err(format!("server results rejected: {e}")))?;
    Ok((fin, remote))
}

/// Connects, runs one test, says goodbye.
pub fn run(
    server: SocketAddr,
    token: Option<&[u8]>,
    spec: &TestSpec,
    cpus: &[usize],
    t: Timeouts,
) -> Result<Outcome, ClientError> {
    let (mut ctrl, remote_host) = connect(server, token, t)?;
    let local_addr = ctrl
        .get_ref()
        .local_addr()
        .map_err(|e| test_err(e.to_string()))?;
    let (local, remote) = run_test(&mut ctrl, server, spec, cpus, t)?;
    let _ = ctrl.send(&Msg::Bye {}, "bye");
    // Wait (briefly) for the server to close: it has then freed its busy slot, so a
    // next run started right away is not refused as busy.
    let _ = ctrl.readable(Duration::from_secs(1));
    Ok(Outcome {
        local,
        remote,
        remote_host,
        local_addr,
    })
}
