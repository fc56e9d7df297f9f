//! `peakbench serve`: listens (loopback by default), authenticates, runs one test at a
//! time and refuses others with a busy message, and goes back to listening after any
//! failure. Also started in-process by `peakbench net` when no `--server` is given.
//!
//! Hostile-peer measures: at most [`MAX_PENDING`] unauthenticated connections at once,
//! each with a handshake deadline, so garbage or silent connections neither block a
//! real client nor exhaust threads; the busy slot is claimed only after the client
//! has proven the token; data streams must come from the control peer's address and
//! present the session cookie within the attach deadline.

use super::engine::{kind, DataSock, Engine};
use super::proto::{
    self, data_hello, hex, parse_data_hello, prove, random_bytes, unhex, verify, Control, Msg,
    Proto, ProtoError, Side, TestSpec, ACK_MAGIC, DATA_HELLO_LEN, DATA_MAGIC, NONCE_LEN, VERSION,
};
use std::io::Read;
use std::net::{IpAddr, SocketAddr, TcpListener, TcpStream, UdpSocket};
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Most connections in the handshake at once; more are closed at once.
pub const MAX_PENDING: usize = 16;

/// How a server behaves.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// Pre-shared token; `None` = no authentication.
    pub token: Option<Vec<u8>>,
    /// Exit after the first session.
    pub once: bool,
    /// Deadline of each handshake step and of attaching data streams.
    pub handshake: Duration,
    /// Longest a data socket may stay silent mid-test before the test fails.
    pub idle: Duration,
    /// Longest wait for the next test request on an open session.
    pub between_tests: Duration,
    /// The server's HostInfo, sent to clients.
    pub host: serde_json::Value,
    /// CPUs the stream threads are pinned to, in order (empty: not pinned).
    pub cpus: Vec<usize>,
    /// Log sessions to stderr.
    pub log: bool,
}

impl ServerConfig {
    /// Defaults: 5 s handshake and idle deadlines, 30 s between tests.
    pub fn new(host: serde_json::Value, cpus: Vec<usize>) -> ServerConfig {
        ServerConfig {
            token: None,
            once: false,
            handshake: Duration::from_secs(5),
            idle: Duration::from_secs(5),
            between_tests: Duration::from_secs(30),
            host,
            cpus,
            log: true,
        }
    }
}

/// A bound server.
pub struct Server {
    listener: TcpListener,
    cfg: Arc<ServerConfig>,
    stop: Arc<AtomicBool>,
}

impl Server {
    /// Binds the control port.
    pub fn bind(addr: SocketAddr, cfg: ServerConfig) -> std::io::Result<Server> {
        let listener = TcpListener::bind(addr)?;
        Ok(Server {
            listener,
            cfg: Arc::new(cfg),
            stop: Arc::new(AtomicBool::new(false)),
        })
    }

    /// The bound address (the real port when bound to port 0).
    pub fn local_addr(&self) -> std::io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// A flag that stops [`Server::serve`] within 100 ms when set.
    pub fn stopper(&self) -> Arc<AtomicBool> {
        self.stop.clone()
    }

    /// Accepts connections until stopped (or, with `once`, until the first session
    /// ends). Returns the outcome of the last session in `once` mode.
    pub fn serve(self) -> Result<(), String> {
        let pending = Arc::new(AtomicUsize::new(0));
        let busy = Arc::new(AtomicBool::new(false));
        let outcome: Arc<std::sync::Mutex<Option<Result<(), String>>>> = Arc::default();
        let fd = self.listener.as_raw_fd();
        while !self.stop.load(Ordering::Relaxed) {
            if self.cfg.once && outcome.lock().map(|o| o.is_some()).unwrap_or(true) {
                break;
            }
            let mut pfd = libc::pollfd {
                fd,
                events: libc::POLLIN,
                revents: 0,
            };
            // SAFETY: one valid pollfd.
            let r = unsafe { libc::poll(&mut pfd, 1, 100) };
            if r <= 0 {
                continue;
            }
            let (sock, peer) = match self.listener.accept() {
                Ok(x) => x,
                Err(_) => continue,
            };
            if pending.load(Ordering::Relaxed) >= MAX_PENDING {
                drop(sock);
                continue;
            }
            pending.fetch_add(1, Ordering::Relaxed);
            let (cfg, pend, busy, outcome) = (
                self.cfg.clone(),
                pending.clone(),
                busy.clone(),
                outcome.clone(),
            );
            let spawned = std::thread::Builder::new()
                .name("net-session".into())
                .spawn(move || {
                    let r = session(sock, peer, &cfg, &pend, &busy);
                    match &r {
                        Ok(Some(())) => {
                            if cfg.log {
                                eprintln!("peakbench serve: session from {peer} done");
                            }
                        }
                        Ok(None) => {}
                        Err(e) => {
                            if cfg.log {
                                eprintln!("peakbench serve: {peer}: {e}");
                            }
                        }
                    }
                    // Only claimed sessions count for --once (not refused or garbage
                    // connections).
                    let claimed =
                        !matches!(r, Ok(None)) && !matches!(&r, Err(SessionError::Early(_)));
                    if claimed {
                        if let Ok(mut o) = outcome.lock() {
                            *o = Some(r.map(|_| ()).map_err(|e| e.to_string()));
                        }
                    }
                });
            if spawned.is_err() {
                pending.fetch_sub(1, Ordering::Relaxed);
            }
        }
        let o = outcome.lock().ok().and_then(|mut o| o.take());
        o.unwrap_or(Ok(()))
    }
}

/// Why a session ended badly.
#[derive(Debug, thiserror::Error)]
enum SessionError {
    /// Before the client was authenticated: garbage, wrong version, wrong token, busy.
    #[error("{0}")]
    Early(String),
    /// During a claimed session.
    #[error("{0}")]
    Test(String),
}

/// Releases the busy slot when the session ends, however it ends.
struct Claim<'a>(&'a AtomicBool);
impl Drop for Claim<'_> {
    fn drop(&mut self) {
        self.0.store(false, Ordering::Release);
    }
}

/// Decrements the pending-handshake count once.
struct Pending<'a>(Option<&'a AtomicUsize>);
impl Pending<'_> {
    fn done(&mut self) {
        if let Some(p) = self.0.take() {
            p.fetch_sub(1, Ordering::Relaxed);
        }
    }
}
impl Drop for Pending<'_> {
    fn drop(&mut self) {
        self.done();
    }
}

fn early(e: ProtoError) -> SessionError {
    SessionError::Early(e.to_string())
}

/// One control connection. `Ok(None)`: refused before a session was claimed.
fn session(
    sock: TcpStream,
    peer: SocketAddr,
    cfg: &ServerConfig,
    pending: &AtomicUsize,
    busy: &AtomicBool,
) -> Result<Option<()>, SessionError> {
    let mut pend = Pending(Some(pending));
    let _ = sock.set_write_timeout(Some(cfg.handshake));
    let _ = sock.set_nodelay(true);
    let local_ip = sock
        .local_addr()
        .map_err(|e| SessionError::Early(e.to_string()))?
        .ip();
    let mut ctrl = Control::new(sock);
    let nonce = random_bytes(NONCE_LEN).map_err(|e| SessionError::Early(e.to_string()))?;
    ctrl.send(
        &Msg::Greeting {
            version: VERSION,
            nonce: hex(&nonce),
            auth: cfg.token.is_some(),
        },
        "greeting",
    )
    .map_err(early)?;
    let hello = ctrl
        .recv(cfg.handshake, "waiting for hello")
        .map_err(early)?;
    let Msg::Hello {
        version,
        nonce: cnonce,
        proof,
    } = hello
    else {
        return Err(refuse(
            &mut ctrl,
            format!("expected hello, got {}", kind(&hello)),
        ));
    };
    if version != VERSION {
        return Err(refuse(
            &mut ctrl,
            format!(
                "protocol version mismatch: server speaks {VERSION}, client {version}; run the same peakbench version on both ends"
            ),
        ));
    }
    let Some(cnonce) = unhex(&cnonce, NONCE_LEN) else {
        return Err(refuse(&mut ctrl, "malformed client nonce".into()));
    };
    if let Some(token) = &cfg.token {
        let ok = proof
            .as_deref()
            .is_some_and(|p| verify(token, Side::Client, &nonce, &cnonce, p));
        if !ok {
            return Err(refuse(
                &mut ctrl,
                if proof.is_none() {
                    "this server requires a token (--token)".into()
                } else {
                    "authentication failed: wrong token".into()
                },
            ));
        }
    }
    if busy
        .compare_exchange(false, true, Ordering::AcqRel, Ordering::Acquire)
        .is_err()
    {
        let _ = refuse(
            &mut ctrl,
            "server busy: another test is running; try again later".into(),
        );
        return Ok(None);
    }
    let claim = Claim(busy);
    pend.done();
    let proof = cfg
        .token
        .as_ref()
        .map(|t| prove(t, Side::Server, &nonce, &cnonce));
    ctrl.send(
        &Msg::Welcome {
            proof,
            host: cfg.host.clone(),
        },
        "welcome",
    )
    .map_err(|e| SessionError::Test(e.to_string()))?;
    loop {
        let m = match ctrl.recv(cfg.between_tests, "waiting for a test") {
            // A client that leaves between tests ends its session normally.
            Err(ProtoError::Closed(_)) => return Ok(Some(())),
            r => r.map_err(|e| SessionError::Test(e.to_string()))?,
        };
        match m {
            Msg::Bye {} => return Ok(Some(())),
            Msg::Test { spec } => {
                if let Err(e) = spec.validate() {
                    // Free the slot before telling the client, so it can start again at once.
                    drop(claim);
                    let _ = ctrl.send(&Msg::Error { message: e.clone() }, "refusing the test");
                    return Err(SessionError::Test(format!("refused test: {e}")));
                }
                if let Err(e) = run_test(&mut ctrl, &spec, local_ip, peer.ip(), cfg) {
                    // Free the slot before telling the client, so it can start again at once.
                    drop(claim);
                    let _ = ctrl.send(&Msg::Error { message: e.clone() }, "reporting a failure");
                    return Err(SessionError::Test(e));
                }
            }
            other => {
                let e = format!("protocol error: expected test or bye, got {}", kind(&other));
                // Free the slot before telling the client, so it can start again at once.
                drop(claim);
                let _ = ctrl.send(&Msg::Error { message: e.clone() }, "reporting a failure");
                return Err(SessionError::Test(e));
            }
        }
    }
}

fn refuse(ctrl: &mut Control<TcpStream>, message: String) -> SessionError {
    let _ = ctrl.send(
        &Msg::Error {
            message: message.clone(),
        },
        "refusing",
    );
    SessionError::Early(message)
}

/// Attaches TCP data streams: accepts until every connection presented the cookie.
fn attach_tcp(
    listener: &TcpListener,
    n: usize,
    cookie: &[u8],
    peer: IpAddr,
    deadline: Instant,
) -> Result<Vec<DataSock>, String> {
    let mut slots: Vec<Option<TcpStream>> = (0..n).map(|_| None).collect();
    listener.set_nonblocking(true).map_err(|e| e.to_string())?;
    while slots.iter().any(|s| s.is_none()) {
        if Instant::now() >= deadline {
            return Err("data streams did not attach in time".into());
        }
        let (mut s, from) = match listener.accept() {
            Ok(x) => x,
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                std::thread::sleep(Duration::from_millis(1));
                continue;
            }
            Err(e) => return Err(format!("accepting a data stream: {e}")),
        };
        if from.ip() != peer {
            continue;
        }
        let _ = s.set_nonblocking(false);
        let left = deadline.saturating_duration_since(Instant::now());
        let _ = s.set_read_timeout(Some(left.max(Duration::from_millis(1))));
        let mut h = [0u8; DATA_HELLO_LEN];
        if s.read_exact(&mut h).is_err() {
            continue;
        }
        match parse_data_hello(&h, DATA_MAGIC, cookie) {
            Some(id) if (id as usize) < n && slots[id as usize].is_none() => {
                slots[id as usize] = Some(s)
            }
            _ => continue,
        }
    }
    Ok(slots.into_iter().flatten().map(DataSock::Tcp).collect())
}

/// Attaches UDP data streams: each port waits for a hello with the cookie from the
/// control peer, connects to its source and acknowledges.
fn attach_udp(
    socks: Vec<UdpSocket>,
    cookie: &[u8],
    peer: IpAddr,
    deadline: Instant,
) -> Result<Vec<DataSock>, String> {
    let mut out = Vec::with_capacity(socks.len());
    let mut buf = [0u8; 2048];
    for (i, s) in socks.into_iter().enumerate() {
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err("UDP data streams did not attach in time".into());
            }
            let _ = s.set_read_timeout(Some(left));
            let (len, from) = match s.recv_from(&mut buf) {
                Ok(x) => x,
                Err(_) => continue,
            };
            if from.ip() != peer {
                continue;
            }
            if parse_data_hello(&buf[..len], DATA_MAGIC, cookie) == Some(i as u32) {
                s.connect(from).map_err(|e| e.to_string())?;
                let mut ack = data_hello(cookie, i as u32);
                ack[..8].copy_from_slice(ACK_MAGIC);
                let _ = s.send(&ack);
                break;
            }
        }
        out.push(DataSock::Udp(s));
    }
    Ok(out)
}

/// Runs one validated test on an authenticated session.
fn run_test(
    ctrl: &mut Control<TcpStream>,
    spec: &TestSpec,
    local: IpAddr,
    peer: IpAddr,
    cfg: &ServerConfig,
) -> Result<(), String> {
    let cookie = random_bytes(proto::COOKIE_LEN).map_err(|e| e.to_string())?;
    let n = spec.connections();
    let deadline = Instant::now() + cfg.handshake;
    let socks = match spec.proto {
        Proto::Tcp => {
            let l =
                TcpListener::bind((local, 0)).map_err(|e| format!("opening a data port: {e}"))?;
            let port = l.local_addr().map_err(|e| e.to_string())?.port();
            ctrl.send(
                &Msg::Ready {
                    cookie: hex(&cookie),
                    ports: vec![port],
                },
                "ready",
            )
            .map_err(|e| e.to_string())?;
            attach_tcp(&l, n, &cookie, peer, deadline)?
        }
        Proto::Udp => {
            let mut socks = Vec::with_capacity(n);
            let mut ports = Vec::with_capacity(n);
            for _ in 0..n {
                let s =
                    UdpSocket::bind((local, 0)).map_err(|e| format!("opening a data port: {e}"))?;
                super::udp::big_buffers(&s);
                ports.push(s.local_addr().map_err(|e| e.to_string())?.port());
                socks.push(s);
            }
            ctrl.send(
                &Msg::Ready {
                    cookie: hex(&cookie),
                    ports,
                },
                "ready",
            )
            .map_err(|e| e.to_string())?;
            attach_udp(socks, &cookie, peer, deadline)?
        }
    };
    // Stream i is pinned to the same CPU at both ends (see `engine.rs`).
    let engine =
        Engine::spawn(spec, false, socks, &cfg.cpus, cfg.idle).map_err(|e| e.to_string())?;
    ctrl.send(&Msg::Attached {}, "attached")
        .map_err(|e| e.to_string())?;
    match ctrl.recv(cfg.handshake, "waiting for start") {
        Ok(Msg::Start {}) => {}
        Ok(other) => {
            return Err(format!(
                "protocol error: expected start, got {}",
                kind(&other)
            ))
        }
        Err(e) => return Err(e.to_string()),
    }
    let t0 = engine.release();
    let iv = engine.sample(t0);
    let fin = engine.finish(ctrl, t0, iv)?;
    ctrl.send(&Msg::Results { report: fin.report }, "results")
        .map_err(|e| e.to_string())
}

/// `peakbench serve`: binds, prints one line, serves until stopped.
pub fn run_cli(o: &super::options::ServeOptions) -> anyhow::Result<std::process::ExitCode> {
    let host = crate::hw::HostInfo::detect(true);
    let mut cfg = ServerConfig::new(
        serde_json::to_value(&host).unwrap_or(serde_json::Value::Null),
        host.cpu.pin_order.clone(),
    );
    cfg.token = o.token.as_ref().map(|t| t.as_bytes().to_vec());
    cfg.once = o.once;
    let server = Server::bind(o.bind, cfg).map_err(|e| {
        anyhow::anyhow!(
            "cannot listen on {}: {e}{}",
            o.bind,
            if e.kind() == std::io::ErrorKind::AddrInUse {
                " (choose another --bind port)"
            } else {
                ""
            }
        )
    })?;
    let addr = server.local_addr()?;
    eprintln!(
        "peakbench serve: listening on {addr} (protocol {VERSION}, token {}){}",
        if o.token.is_some() {
            "required"
        } else {
            "not required"
        },
        if o.once {
            ", exits after one session"
        } else {
            "; Ctrl-C stops"
        }
    );
    match server.serve() {
        Ok(()) => Ok(std::process::ExitCode::SUCCESS),
        Err(e) => Err(anyhow::anyhow!("{e}")),
    }
}
