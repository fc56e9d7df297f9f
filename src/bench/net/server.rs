//! `peakbench serve`: listens (loopback by default), authenticates, runs one test at a
//! time and refuses others with a busy message, and goes back to listening after any
//! failure. Also started in-process by `peakbench net` when no `--server` is given.
//!
//! Hostile-peer measures (limits in SECURITY.md):
//! - admission: at most [`MAX_PENDING_PER_ADDR`] unauthenticated connections per
//!   address and [`MAX_PENDING`] in all; a newcomer over either budget evicts the oldest
//!   waiting connection (told why in an `Error` frame), so idle connections can never
//!   lock a real client out, and each must send its hello within the short
//!   [`ServerConfig::preauth`] deadline;
//! - the busy slot is claimed only after the client has proven the token, and during
//!   a test the server watches the control connection: a client that vanishes ends its
//!   test (and frees the slot) within [`WATCH_TICK`];
//! - data streams must come from the control peer's address and present the session
//!   cookie within the attach deadline; connections that say nothing wait aside
//!   without delaying the others;
//! - log lines are rate-limited ([`LOG_BURST`] per [`LOG_WINDOW`], then one summary);
//! - memory: a test's stream buffers
//!   ([`test_buffer_bytes`](super::budget::test_buffer_bytes)) are reserved against a
//!   server-wide budget ([`ServerConfig::memory`]) before any port opens, a test over it
//!   is refused with the figures, and the reservation is held by the stream threads
//!   themselves, so a test that ended early (its client gone) counts until its last
//!   thread has exited and freed its buffer; the engine waits for those threads before
//!   the busy slot frees, and the freed memory is handed back to the OS after each test.

use super::attach::{attach_tcp, attach_udp};
use super::budget::{big_buffers_mapped, give_memory_back, Budget};
pub(crate) use super::budget::{default_memory, DEFAULT_MEMORY_CAP};
use super::engine::{kind, Engine, Hold};
use super::proto::{
    self, hex, prove, random_bytes, unhex, verify, Control, Msg, Proto, ProtoError, Side, TestSpec,
    NONCE_LEN, VERSION,
};
use std::net::{IpAddr, SocketAddr, TcpListener, TcpStream, UdpSocket};
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Most unauthenticated connections at once from all addresses.
pub(crate) const MAX_PENDING: usize = 64;
/// Most unauthenticated connections at once from one address.
pub const MAX_PENDING_PER_ADDR: usize = 4;
/// How often the server checks, during a test, whether the client is still there.
pub(crate) const WATCH_TICK: Duration = Duration::from_millis(50);
/// Log lines allowed per [`LOG_WINDOW`]; more are counted and summarised.
pub(crate) const LOG_BURST: u32 = 20;
/// The log rate-limit window.
pub(crate) const LOG_WINDOW: Duration = Duration::from_secs(10);

/// How a server behaves.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// Pre-shared token; `None` = no authentication.
    pub token: Option<Vec<u8>>,
    /// Exit after the first session.
    pub(crate) once: bool,
    /// Deadline of each handshake step and of attaching data streams.
    pub handshake: Duration,
    /// Deadline for an unauthenticated connection to send its hello (short: such a
    /// connection holds an admission slot).
    pub(crate) preauth: Duration,
    /// Longest a data socket may stay silent mid-test before the test fails.
    pub idle: Duration,
    /// Longest wait for the next test request on an open session.
    pub(crate) between_tests: Duration,
    /// The server's HostInfo, sent to clients.
    pub(crate) host: serde_json::Value,
    /// CPUs the stream threads are pinned to, in order (empty: not pinned).
    pub(crate) cpus: Vec<usize>,
    /// Log sessions to stderr.
    pub log: bool,
    /// Budget of stream-buffer bytes in flight, per test and over all tests
    /// ([`test_buffer_bytes`](super::budget::test_buffer_bytes)); `serve --max-memory`.
    pub(crate) memory: u64,
    /// Pause between the client's Start and the release of the streams: zero, except
    /// in tests standing in for a server the scheduler holds up on a loaded machine.
    pub(crate) start_delay: Duration,
}

impl ServerConfig {
    /// Defaults: 5 s handshake and idle deadlines, 3 s to say hello, 30 s between tests,
    /// a memory budget of [`DEFAULT_MEMORY_CAP`].
    pub fn new(host: serde_json::Value, cpus: Vec<usize>) -> ServerConfig {
        ServerConfig {
            token: None,
            once: false,
            handshake: Duration::from_secs(5),
            preauth: Duration::from_secs(3),
            idle: Duration::from_secs(5),
            between_tests: Duration::from_secs(30),
            host,
            cpus,
            log: true,
            memory: DEFAULT_MEMORY_CAP,
            start_delay: Duration::ZERO,
        }
    }
}

/// A bound server.
pub struct Server {
    listener: TcpListener,
    cfg: Arc<ServerConfig>,
    stop: Arc<AtomicBool>,
    budget: Arc<Budget>,
}

impl Server {
    /// Binds the control port.
    pub fn bind(addr: SocketAddr, cfg: ServerConfig) -> std::io::Result<Server> {
        let listener = TcpListener::bind(addr)?;
        Ok(Server {
            listener,
            budget: Budget::new(cfg.memory),
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
        let admission = Arc::new(Admission::default());
        let log = Arc::new(LogLimit::new(self.cfg.log));
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
            let Ok(handle) = sock.try_clone() else {
                continue;
            };
            let (id, evicted) = admission.admit(peer.ip(), handle);
            for (ip, s) in evicted {
                evict(&s, ip);
                log.line(&format!(
                    "{ip}: closed an unauthenticated connection to admit a newer one (at most {MAX_PENDING_PER_ADDR} per address, {MAX_PENDING} in all)"
                ));
            }
            let (cfg, adm, busy, outcome, log, budget) = (
                self.cfg.clone(),
                admission.clone(),
                busy.clone(),
                outcome.clone(),
                log.clone(),
                self.budget.clone(),
            );
            let spawned = std::thread::Builder::new()
                .name("net-session".into())
                .spawn(move || {
                    let pend = Pending(Some((&adm, id)));
                    let r = session(sock, peer, &cfg, pend, &busy, &budget);
                    match &r {
                        Ok(Some(())) => log.line(&format!("session from {peer} done")),
                        Ok(None) => {}
                        Err(e) => log.line(&format!("{peer}: {e}")),
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
                admission.leave(id);
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

/// One unauthenticated connection waiting in admission.
struct Waiting {
    id: u64,
    ip: IpAddr,
    sock: TcpStream,
}

/// The unauthenticated connections, oldest first (see the module doc).
#[derive(Default)]
struct Admission {
    next: std::sync::atomic::AtomicU64,
    waiting: std::sync::Mutex<Vec<Waiting>>,
}

impl Admission {
    /// Admits a connection from `ip` (`sock` is a handle to it); returns its id and the
    /// connections evicted to make room: the oldest from the same address when that
    /// address is at its budget, else the oldest overall when all slots are taken.
    fn admit(&self, ip: IpAddr, sock: TcpStream) -> (u64, Vec<(IpAddr, TcpStream)>) {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let mut w = self.waiting.lock().unwrap_or_else(|e| e.into_inner());
        let mut evicted = Vec::new();
        if w.iter().filter(|x| x.ip == ip).count() >= MAX_PENDING_PER_ADDR {
            if let Some(i) = w.iter().position(|x| x.ip == ip) {
                let x = w.remove(i);
                evicted.push((x.ip, x.sock));
            }
        }
        if w.len() >= MAX_PENDING {
            let x = w.remove(0);
            evicted.push((x.ip, x.sock));
        }
        w.push(Waiting { id, ip, sock });
        (id, evicted)
    }

    /// The connection `id` left admission (authenticated, refused or closed).
    fn leave(&self, id: u64) {
        let mut w = self.waiting.lock().unwrap_or_else(|e| e.into_inner());
        w.retain(|x| x.id != id);
    }
}

/// Tells an evicted connection why (without blocking the accept loop) and closes it;
/// its session thread then sees the end of the stream and exits.
fn evict(s: &TcpStream, ip: IpAddr) {
    let frame = proto::encode(&Msg::Error {
        message: format!(
            "too many unauthenticated connections from {ip} (at most {MAX_PENDING_PER_ADDR} per address, {MAX_PENDING} in all); this, the oldest, was closed: retry"
        ),
    });
    // SAFETY: a valid socket and buffer; MSG_DONTWAIT never blocks, MSG_NOSIGNAL keeps a
    // closed peer from raising SIGPIPE. A short or failed send only loses the reason.
    unsafe {
        libc::send(
            s.as_raw_fd(),
            frame.as_ptr() as *const libc::c_void,
            frame.len(),
            libc::MSG_DONTWAIT | libc::MSG_NOSIGNAL,
        )
    };
    let _ = s.shutdown(std::net::Shutdown::Both);
}

/// Rate-limited server log: at most [`LOG_BURST`] lines per [`LOG_WINDOW`]; the lines
/// over that are counted and reported in one summary line when the next window opens,
/// so a flood of connections cannot flood the log. Peer text is sanitised.
struct LogLimit {
    on: bool,
    state: std::sync::Mutex<(Instant, u32, u64)>,
}

impl LogLimit {
    fn new(on: bool) -> LogLimit {
        LogLimit {
            on,
            state: std::sync::Mutex::new((Instant::now(), 0, 0)),
        }
    }

    fn line(&self, text: &str) {
        for l in self.admit(text, Instant::now()) {
            eprintln!("peakbench serve: {l}");
        }
    }

    /// The lines to print for `text` at `now`: none when over the budget, else the line
    /// (sanitised), preceded by the summary of the previous window's suppressed lines.
    fn admit(&self, text: &str, now: Instant) -> Vec<String> {
        if !self.on {
            return Vec::new();
        }
        let mut out = Vec::new();
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let (start, shown, dropped) = &mut *st;
        if now.saturating_duration_since(*start) >= LOG_WINDOW {
            if *dropped > 0 {
                out.push(format!(
                    "{dropped} more log line(s) suppressed in the last {} s",
                    LOG_WINDOW.as_secs()
                ));
            }
            *start = now;
            *shown = 0;
            *dropped = 0;
        }
        if *shown < LOG_BURST {
            *shown += 1;
            out.push(crate::util::sanitize::line(text));
        } else {
            *dropped += 1;
        }
        out
    }
}

/// Takes a connection out of admission once.
struct Pending<'a>(Option<(&'a Admission, u64)>);
impl Pending<'_> {
    fn done(&mut self) {
        if let Some((a, id)) = self.0.take() {
            a.leave(id);
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
    mut pend: Pending<'_>,
    busy: &AtomicBool,
    budget: &Arc<Budget>,
) -> Result<Option<()>, SessionError> {
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
    let hello = match ctrl.recv(cfg.preauth.min(cfg.handshake), "waiting for hello") {
        Ok(m) => m,
        Err(e @ ProtoError::Bad(_)) => return Err(refuse(&mut ctrl, e.to_string())),
        Err(e) => return Err(early(e)),
    };
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
            Err(e @ ProtoError::Bad(_)) => {
                // A malformed frame from an authenticated client gets a reply saying so.
                let e = e.to_string();
                drop(claim);
                let _ = ctrl.send(&Msg::Error { message: e.clone() }, "reporting a failure");
                return Err(SessionError::Test(e));
            }
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
                let r = run_test(&mut ctrl, &spec, local_ip, peer.ip(), cfg, budget);
                give_memory_back();
                if let Err(e) = r {
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

/// Runs one validated test on an authenticated session.
fn run_test(
    ctrl: &mut Control<TcpStream>,
    spec: &TestSpec,
    local: IpAddr,
    peer: IpAddr,
    cfg: &ServerConfig,
    budget: &Arc<Budget>,
) -> Result<(), String> {
    // Before any port opens or thread starts; held by the stream threads from here.
    let hold: Hold = Arc::new(budget.reserve(spec, cfg.handshake)?);
    let cookie = random_bytes(proto::COOKIE_LEN).map_err(|e| e.to_string())?;
    let n = spec.connections();
    let deadline = Instant::now() + cfg.handshake;
    let socks = match spec.proto {
        Proto::Tcp => {
            let l =
                TcpListener::bind((local, 0)).map_err(|e| format!("opening a data port: {e}"))?;
            // Before any client connects: accepted connections inherit them.
            super::sockopt::apply_tcp(l.as_raw_fd(), spec).map_err(|e| e.to_string())?;
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
                super::sockopt::apply_udp(&s, spec).map_err(|e| e.to_string())?;
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
    let engine = Engine::spawn_holding(spec, false, socks, &cfg.cpus, cfg.idle, Some(hold))
        .map_err(|e| e.to_string())?;
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
    std::thread::sleep(cfg.start_delay);
    let t0 = engine.release();
    ctrl.send(&Msg::Started {}, "started")
        .map_err(|e| e.to_string())?;
    // Watch the control connection while the test runs: a client that vanished (closed
    // or reset) ends the test now, freeing the server, instead of at its full duration.
    let sock = ctrl.get_ref();
    let Some(iv) = engine.sample_watching(t0, WATCH_TICK, &|| proto::peer_closed(sock)) else {
        return Err("the client went away during the test (control connection closed)".into());
    };
    let fin = engine.finish(ctrl, t0, iv)?;
    ctrl.send(&Msg::Results { report: fin.report }, "results")
        .map_err(|e| e.to_string())
}

/// The warning `serve` gives when it listens beyond loopback without a token (issue #16
/// item 11); `None` on loopback (IPv4-mapped included) or with a token.
pub(crate) fn exposure_warning(ip: std::net::IpAddr, token: bool) -> Option<String> {
    (!token && !ip.to_canonical().is_loopback()).then(|| format!(
        "warning: listening on {ip} without a token: anyone who can reach it can run tests (load this host and its network); give --token (or $PEAKBENCH_TOKEN)"
    ))
}

/// `peakbench serve`: binds, prints one line, serves until stopped.
pub(crate) fn run_cli(o: &super::options::ServeOptions) -> anyhow::Result<std::process::ExitCode> {
    let host = crate::hw::HostInfo::detect(true);
    let mut cfg = ServerConfig::new(
        serde_json::to_value(&host).unwrap_or(serde_json::Value::Null),
        host.cpu.pin_order.clone(),
    );
    cfg.token = o.token.as_ref().map(|t| t.as_bytes().to_vec());
    cfg.once = o.once;
    cfg.memory = o
        .max_memory
        .unwrap_or_else(|| default_memory(host.memory.available_bytes));
    big_buffers_mapped();
    let cfg_memory = cfg.memory;
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
    if let Some(w) = exposure_warning(addr.ip(), o.token.is_some()) {
        eprintln!("peakbench serve: {w}");
    }
    eprintln!(
        "peakbench serve: listening on {addr} (protocol {VERSION}, token {}, memory budget {}){}",
        if o.token.is_some() {
            "required"
        } else {
            "not required"
        },
        crate::util::units::format_size(cfg_memory),
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue #16 item 11: a flood of log lines is cut at the burst, then summarised in
    /// one line when the next window opens; peer text is sanitised.
    #[test]
    fn log_lines_are_rate_limited_and_sanitised() {
        let log = LogLimit::new(true);
        let t = Instant::now();
        let shown: usize = (0..LOG_BURST + 7)
            .map(|i| log.admit(&format!("line {i}\x1b[2J"), t).len())
            .sum();
        assert_eq!(shown, LOG_BURST as usize);
        let next = log.admit("after", t + LOG_WINDOW);
        assert_eq!(next.len(), 2, "{next:?}");
        assert_eq!(next[0], "7 more log line(s) suppressed in the last 10 s");
        assert_eq!(next[1], "after");
        let l = log.admit("x\x1b]0;t\x07", t + LOG_WINDOW);
        assert!(
            l[0].starts_with("x\\x1b") && !l[0].contains('\x1b'),
            "{l:?}"
        );
        assert!(LogLimit::new(false).admit("x", t).is_empty());
    }

    #[test]
    fn serving_beyond_loopback_without_a_token_warns() {
        let ip = |s: &str| s.parse::<std::net::IpAddr>().unwrap();
        let w = exposure_warning(ip("0.0.0.0"), false).unwrap();
        assert!(
            w.contains("0.0.0.0 without a token") && w.contains("--token"),
            "{w}"
        );
        assert!(exposure_warning(ip("::"), false).is_some());
        assert!(exposure_warning(ip("192.0.2.1"), false).is_some());
        assert!(exposure_warning(ip("0.0.0.0"), true).is_none());
        for lo in ["127.0.0.1", "127.0.0.2", "::1", "::ffff:127.0.0.1"] {
            assert!(exposure_warning(ip(lo), false).is_none(), "{lo}");
        }
    }
}
