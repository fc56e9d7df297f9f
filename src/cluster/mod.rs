//! Cluster runs: the suite on every host of a launch, gathered by rank 0 into one report
//! (`hosts[]`, each result tagged with its host), and `net --matrix` over every ordered
//! pair of hosts. The launcher (mpirun, `srun --mpi=pmix`, the Kubernetes MPI operator)
//! only starts the ranks and tells each its rank; everything after goes over peakbench's
//! own TCP connections with a deadline on every step ([`wire`], [`coord`]), because MPI
//! collectives cannot time out and a dead rank must give a partial report, not a hang.
//!
//! How a rank learns its place (the first that applies):
//! - `PEAKBENCH_RANK`, `PEAKBENCH_SIZE` and `PEAKBENCH_COORD=IP:PORT` (any launcher, and
//!   the tests): rank 0 listens on `PEAKBENCH_COORD`, the others connect to it; the run's
//!   secret is `PEAKBENCH_TOKEN` or `PEAKBENCH_TOKEN_FILE`, the same on every rank;
//! - built with the cargo feature `mpi` and started by an MPI launcher
//!   (`OMPI_COMM_WORLD_SIZE` or `PMIX_RANK` set): rank and size from MPI, and rank 0's
//!   address and a fresh secret from one MPI broadcast, polled against the join deadline
//!   (the `mpi` submodule).
//!
//! Every coordinator connection proves the secret both ways before anything else
//! ([`auth`], [`wire`]); a launch whose ranks all name one host is refused (exit 2).
//!
//! Other variables: `PEAKBENCH_HOST_ID` names the host instead of its hostname (ranks
//! with the same name share one runner, so `PEAKBENCH_HOST_ID=$RANK` makes ranks on one
//! machine count as hosts); `PEAKBENCH_BIND` is the address this rank serves the matrix
//! on (and rank 0 listens on); `PEAKBENCH_JOIN_TIMEOUT` (default 60 s) bounds the barrier,
//! `PEAKBENCH_SUITE_TIMEOUT` (default 3600 s) the wait for each host's results.

pub(crate) mod auth;
pub(crate) mod coord;
mod launch;
#[cfg(feature = "mpi")]
mod mpi;
pub mod wire;

use crate::bench::Context;
use crate::hw::HostInfo;
use crate::options::Options;
use crate::report::model::{Report, SCHEMA};
use crate::report::view::html;
use crate::report::Doc;
use crate::util::usage::UsageError;
use anyhow::Context as _;
pub(crate) use launch::Launch;
use std::net::{IpAddr, SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::process::ExitCode;
use std::time::{Duration, Instant};
use wire::Conn;
use wire::Msg;

fn env(k: &str) -> Option<String> {
    std::env::var(k).ok().filter(|v| !v.trim().is_empty())
}

fn env_num(k: &str) -> Result<Option<usize>, UsageError> {
    env(k)
        .map(|v| {
            v.trim().parse::<usize>().map_err(|_| {
                UsageError(format!(
                    "${k}: '{v}' is not a whole number; set it to a rank or a count"
                ))
            })
        })
        .transpose()
}

fn env_secs(k: &str, default: u64) -> Result<Duration, UsageError> {
    Ok(Duration::from_secs(
        env_num(k)?.map_or(default, |v| v as u64).max(1),
    ))
}

/// This host's name: `PEAKBENCH_HOST_ID`, else the hostname, without the white space
/// around it (`a` and `a ` are one host, issue #33 item 15).
fn host_name() -> String {
    env("PEAKBENCH_HOST_ID")
        .unwrap_or_else(crate::hw::hostname)
        .trim()
        .to_string()
}

/// This rank's address: `PEAKBENCH_BIND`, else the hostname's first address.
fn bind_addr() -> Result<IpAddr, UsageError> {
    if let Some(b) = env("PEAKBENCH_BIND") {
        return b.trim().parse().map_err(|_| {
            UsageError(format!(
                "$PEAKBENCH_BIND: '{b}' is not an IP address; give one like 127.0.0.2"
            ))
        });
    }
    let h = crate::hw::hostname();
    (h.as_str(), 0)
        .to_socket_addrs()
        .ok()
        .and_then(|mut a| a.next())
        .map(|a| a.ip())
        .ok_or_else(|| {
            UsageError(format!(
                "cannot resolve this host's name '{h}' to an address; set $PEAKBENCH_BIND"
            ))
        })
}

/// The launch this process is part of, if any (see the module docs).
pub(crate) fn launch() -> Result<Option<Launch>, UsageError> {
    let join = env_secs("PEAKBENCH_JOIN_TIMEOUT", 60)?;
    let suite = env_secs("PEAKBENCH_SUITE_TIMEOUT", 3600)?;
    if let (Some(rank), Some(size)) = (env_num("PEAKBENCH_RANK")?, env_num("PEAKBENCH_SIZE")?) {
        if size == 0 || rank >= size {
            return Err(UsageError(format!(
                "$PEAKBENCH_RANK={rank} is not below $PEAKBENCH_SIZE={size}; ranks are 0..size-1"
            )));
        }
        let coord = env("PEAKBENCH_COORD").ok_or_else(|| {
            UsageError("$PEAKBENCH_COORD: not set; give rank 0's address as IP:PORT".into())
        })?;
        let coord = coord
            .trim()
            .parse()
            .map_err(|_| UsageError(format!("$PEAKBENCH_COORD: '{coord}' is not IP:PORT")))?;
        return Ok(Some(Launch {
            rank,
            size,
            coord,
            host: host_name(),
            bind: bind_addr()?,
            join,
            suite,
            secret: auth::Secret::from_env()?,
            listener: None,
        }));
    }
    let under_mpi = env("OMPI_COMM_WORLD_SIZE").is_some() || env("PMIX_RANK").is_some();
    if !under_mpi {
        return Ok(None);
    }
    #[cfg(feature = "mpi")]
    {
        mpi::launch(host_name(), bind_addr()?, join, suite).map(Some)
    }
    #[cfg(not(feature = "mpi"))]
    {
        // A build without MPI under mpirun: every rank runs alone (merge the files with
        // `peakbench fleet`), unless the command needs the cluster.
        Ok(None)
    }
}

/// A TCP connection to `to` from the address `from` (port chosen by the kernel),
/// within `t` (Linux bounds `connect` by the send timeout).
fn connect_from(from: IpAddr, to: SocketAddr, t: Duration) -> std::io::Result<TcpStream> {
    use std::os::fd::FromRawFd;
    fn raw(a: SocketAddr) -> (libc::sockaddr_storage, libc::socklen_t) {
        // SAFETY: all-zero bytes are a valid sockaddr_storage.
        let mut ss: libc::sockaddr_storage = unsafe { std::mem::zeroed() };
        let len = match a {
            SocketAddr::V4(v4) => {
                // SAFETY: sockaddr_storage is large and aligned enough for any sockaddr.
                let sin = unsafe { &mut *(&mut ss as *mut _ as *mut libc::sockaddr_in) };
                sin.sin_family = libc::AF_INET as libc::sa_family_t;
                sin.sin_port = v4.port().to_be();
                sin.sin_addr.s_addr = u32::from_ne_bytes(v4.ip().octets());
                std::mem::size_of::<libc::sockaddr_in>()
            }
            SocketAddr::V6(v6) => {
                // SAFETY: as above.
                let sin6 = unsafe { &mut *(&mut ss as *mut _ as *mut libc::sockaddr_in6) };
                sin6.sin6_family = libc::AF_INET6 as libc::sa_family_t;
                sin6.sin6_port = v6.port().to_be();
                sin6.sin6_addr.s6_addr = v6.ip().octets();
                sin6.sin6_scope_id = v6.scope_id();
                std::mem::size_of::<libc::sockaddr_in6>()
            }
        };
        (ss, len as libc::socklen_t)
    }
    let domain = if to.is_ipv4() {
        libc::AF_INET
    } else {
        libc::AF_INET6
    };
    // SAFETY: a plain socket call; the descriptor is owned by the TcpStream at once.
    let fd = unsafe { libc::socket(domain, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0) };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: `fd` is a fresh socket no one else owns.
    let s = unsafe { TcpStream::from_raw_fd(fd) };
    s.set_write_timeout(Some(t.max(Duration::from_millis(1))))?;
    let (src, len) = raw(SocketAddr::new(from, 0));
    // SAFETY: `src` is a valid sockaddr of `len` bytes.
    if unsafe { libc::bind(fd, &src as *const _ as *const libc::sockaddr, len) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    let (dst, len) = raw(to);
    // SAFETY: as above.
    if unsafe { libc::connect(fd, &dst as *const _ as *const libc::sockaddr, len) } != 0 {
        let e = std::io::Error::last_os_error();
        return Err(if e.raw_os_error() == Some(libc::EINPROGRESS) {
            std::io::ErrorKind::TimedOut.into()
        } else {
            e
        });
    }
    s.set_write_timeout(None)?;
    Ok(s)
}

/// One connection to the coordinator. In a matrix run it comes from this rank's own
/// address (`PEAKBENCH_BIND`), the one it serves on: the coordinator relays only a
/// serving address on the host a rank connected from (unless that address is loopback
/// and the coordinator is not, where it could not be reached from).
fn connect_once(l: &Launch, matrix: bool) -> std::io::Result<TcpStream> {
    let t = Duration::from_secs(2);
    let own = matrix
        && !l.bind.is_unspecified()
        && l.bind.is_ipv4() == l.coord.is_ipv4()
        && (!l.bind.is_loopback() || l.coord.ip().is_loopback());
    let s = if own {
        connect_from(l.bind, l.coord, t)?
    } else {
        TcpStream::connect_timeout(&l.coord, t)?
    };
    let _ = s.set_nodelay(true);
    Ok(s)
}

/// Connects to the coordinator and proves the secret, trying again until the join
/// deadline on any failure: rank 0 may not be listening yet, may have closed the
/// connection to make room during a burst of connections, and anything said before the
/// coordinator proved the secret (a `Refused` included) may come from an impostor. Waits
/// 0.1 s after a connection that could not be made, and 0.1 s doubling to 2 s after a
/// handshake that failed; says each such failure (the first three in full).
fn join_coordinator(l: &Launch, hello: &Msg, matrix: bool) -> anyhow::Result<Conn> {
    let end = Instant::now() + l.join;
    let step = Duration::from_secs(15);
    let mut backoff = Duration::from_millis(100);
    let (mut tries, mut said) = (0u32, 0u32);
    let mut handshake: Option<String> = None;
    loop {
        tries += 1;
        let left = end.saturating_duration_since(Instant::now());
        let (why, wait) = match connect_once(l, matrix) {
            Err(e) => (
                format!("cannot reach the coordinator at {}: {e}", l.coord),
                Duration::from_millis(100),
            ),
            Ok(s) => {
                let mut c = Conn::new(s);
                let t = step.min(left).max(Duration::from_secs(1));
                match auth::join(&mut c, &l.secret, l.rank, hello, t) {
                    Ok(()) => return Ok(c),
                    Err(e) => {
                        let w = backoff;
                        backoff = (backoff * 2).min(Duration::from_secs(2));
                        if said < 3 {
                            said += 1;
                            eprintln!(
                                "rank {}: joining the coordinator at {}: {}; trying again until the join deadline",
                                l.rank,
                                l.coord,
                                crate::util::sanitize::line_max(&e, 300)
                            );
                        }
                        handshake = Some(e.clone());
                        (e, w)
                    }
                }
            }
        };
        if Instant::now() + wait >= end {
            let earlier = match &handshake {
                Some(h) if *h != why => format!(
                    "; the last handshake: {}",
                    crate::util::sanitize::line_max(h, 300)
                ),
                _ => String::new(),
            };
            anyhow::bail!(
                "rank {}: could not join the coordinator at {} within {:.0} s ($PEAKBENCH_JOIN_TIMEOUT; {tries} attempts); the last: {}{earlier}",
                l.rank,
                l.coord,
                l.join.as_secs_f64(),
                crate::util::sanitize::line_max(&why, 300)
            );
        }
        std::thread::sleep(wait);
    }
}

/// Runs this rank of a cluster launch: rank 0 also coordinates and writes the report.
/// Under MPI, MPI is finalised after (the report is written first, so a finalisation
/// that waits on a lost rank cannot cost it).
pub(crate) fn run(
    options: &Options,
    l: Launch,
    plan: crate::pipeline::Planner<'_>,
) -> anyhow::Result<ExitCode> {
    let r = run_rank(options, l, plan);
    #[cfg(feature = "mpi")]
    mpi::finish();
    r
}

fn run_rank(
    options: &Options,
    l: Launch,
    plan: crate::pipeline::Planner<'_>,
) -> anyhow::Result<ExitCode> {
    let opts = &options.common;
    let matrix = options
        .command
        .options_of::<crate::bench::net::options::NetOptions>()
        .filter(|n| n.matrix)
        .cloned();
    // --cpus: each rank confines itself before it detects its host, as a single run does.
    if let Some(cpus) = &opts.cpus {
        crate::bench::common::confine_to(cpus).map_err(anyhow::Error::msg)?;
    }
    let host = HostInfo::detect(true);
    let ctx = Context { host: &host, opts };
    let specs = matrix
        .as_ref()
        .map(|n| crate::bench::net::matrix::specs(n, opts.repeat));
    let started = humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string();
    let coordinator = if l.rank == 0 {
        let listener = match &l.listener {
            Some(s) => s.try_clone().context("coordinator listener")?,
            None => TcpListener::bind(l.coord).with_context(|| {
                format!("rank 0 cannot listen on {} ($PEAKBENCH_COORD)", l.coord)
            })?,
        };
        let work = match &specs {
            Some(s) => coord::Work::Matrix { specs: s.clone() },
            None => coord::Work::Suite { deadline: l.suite },
        };
        let (size, join, secret) = (l.size, l.join, l.secret.clone());
        Some(std::thread::spawn(move || {
            coord::run(listener, size, join, &secret, &work)
        }))
    } else {
        None
    };
    // Every rank, rank 0 included, is a worker with one connection to the coordinator.
    let hello = Msg::Hello {
        host: l.host.clone(),
        info: Box::new(ctx.host.clone()),
    };
    let worker = join_coordinator(&l, &hello, matrix.is_some())
        .and_then(|mut c| work(options, &mut c, &l, &ctx, specs.as_deref(), plan));
    let Some(c) = coordinator else {
        worker?;
        return Ok(ExitCode::SUCCESS);
    };
    let g = c
        .join()
        .map_err(|_| anyhow::anyhow!("the coordinator panicked"))?;
    if let Some(why) = g.refused {
        return Err(UsageError(why).into());
    }
    if let Err(e) = &worker {
        eprintln!("rank 0: {e:#}");
    }
    let report = Report {
        schema: SCHEMA.into(),
        tool_version: env!("CARGO_PKG_VERSION").into(),
        started_at: started.clone(),
        finished_at: Some(
            humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string(),
        ),
        host: host.clone(),
        config: serde_json::to_value(options)?,
        results: g.results,
        hosts: g.hosts,
        run_quality: None,
    };
    write(&report, options, matrix.is_some())
}

/// One rank's side after the handshake and hello: the barrier, then its work.
fn work(
    options: &Options,
    s: &mut Conn,
    l: &Launch,
    ctx: &Context,
    specs: Option<&[crate::bench::net::proto::TestSpec]>,
    plan: crate::pipeline::Planner<'_>,
) -> anyhow::Result<()> {
    let step = Duration::from_secs(15);
    // The barrier: released when every rank joined (or the join deadline passed).
    let runner = match s.recv(l.join + step) {
        Ok(Msg::Go { runner }) => runner,
        Ok(Msg::Refused { reason }) => {
            return Err(UsageError(crate::util::sanitize::line_max(&reason, 400)).into())
        }
        Ok(m) => anyhow::bail!("rank {}: expected go, got {}", l.rank, m.kind()),
        Err(e) => anyhow::bail!(
            "rank {}: waiting at the barrier: {}",
            l.rank,
            wire::why_coord(&e, l.join)
        ),
    };
    let Some(specs) = specs else {
        let mut results = Vec::new();
        if runner {
            // The local pipeline, as a run on this host alone: progress, --reference,
            // this host's own results file saved after every case (a launch cut short
            // still leaves each host's results), signals. The gathered page is rank 0's.
            let mut local = options.clone();
            local.common.html = None;
            let tag = |r: &mut crate::report::model::BenchResult| r.host = Some(l.host.clone());
            let (report, _, _) =
                crate::pipeline::run_cases(&local, ctx.host, &l.host, |_| None, plan, tag, None)?;
            results = report.results;
        }
        s.send(&Msg::Results { results }, step)?;
        let _ = s.recv(l.suite);
        return Ok(());
    };
    // Matrix: serve or measure as told until bye (or the coordinator is gone).
    let mut serving: Option<crate::bench::net::matrix::Serving> = None;
    let idle = l.join + crate::bench::net::matrix::link_deadline(specs) * 2;
    loop {
        let m = match s.recv(idle) {
            Ok(m) => m,
            Err(e) => anyhow::bail!(
                "rank {}: lost the coordinator: {}",
                l.rank,
                wire::why_coord(&e, idle)
            ),
        };
        match m {
            Msg::Serve { link } => {
                let Some(link) = crate::util::proof::unhex(&link, 32) else {
                    anyhow::bail!("rank {}: malformed link nonce from the coordinator", l.rank);
                };
                let token = auth::link_token(&l.secret, &link);
                let reply = match crate::bench::net::matrix::Serving::start(l.bind, ctx, token) {
                    Ok(sv) => {
                        let r = Msg::Serving {
                            addr: sv.addr.to_string(),
                        };
                        serving = Some(sv);
                        r
                    }
                    Err(e) => anyhow::bail!("rank {}: {e}", l.rank),
                };
                s.send(&reply, step)?;
            }
            Msg::Measure {
                addr,
                link,
                from,
                to,
            } => {
                let addr: SocketAddr = addr.parse().context("bad address from the coordinator")?;
                let Some(link) = crate::util::proof::unhex(&link, 32) else {
                    anyhow::bail!("rank {}: malformed link nonce from the coordinator", l.rank);
                };
                // The server must prove this token, which only a holder of the run's
                // secret can derive.
                let token = auth::link_token(&l.secret, &link);
                let results =
                    crate::bench::net::matrix::measure(addr, &token, &from, &to, specs, ctx);
                s.send(&Msg::Pair { results }, step)?;
            }
            Msg::Stop {} => {
                if let Some(sv) = serving.take() {
                    sv.stop();
                }
                s.send(&Msg::Stopped {}, step)?;
            }
            Msg::Bye {} => return Ok(()),
            other => anyhow::bail!("rank {}: unexpected {}", l.rank, other.kind()),
        }
    }
}

/// Rank 0: the gathered JSON in `--output`, its HTML next to it (the matrix heat map,
/// or the fleet page of the hosts), and the `--format` view on stdout.
fn write(report: &Report, options: &Options, matrix: bool) -> anyhow::Result<ExitCode> {
    let opts = &options.common;
    std::fs::create_dir_all(&opts.output).with_context(|| {
        format!(
            "cannot create {} (choose another --output)",
            opts.output.display()
        )
    })?;
    let stem = format!("cluster-{}", report.started_at.replace(':', "-"));
    let path = crate::util::atomic::create_unique(&opts.output, &stem, "json")
        .with_context(|| format!("cannot create a results file in {}", opts.output.display()))?;
    crate::util::atomic::write_atomic(&path, |w| {
        serde_json::to_writer_pretty(&mut *w, report)?;
        w.write_all(b"\n")
    })
    .with_context(|| format!("cannot write {}", path.display()))?;
    crate::history::after_run(opts.history.as_deref(), opts.no_history, report, &path);
    crate::report::view::openmetrics::save(report, opts.prom_file.as_deref())?;
    let html = opts
        .html
        .clone()
        .unwrap_or_else(|| path.with_extension("html"));
    let page = if matrix {
        let mut buf = Vec::new();
        crate::report::export(Doc::Matrix(report), html::FORMAT, &mut buf)?;
        String::from_utf8_lossy(&buf).into_owned()
    } else {
        let name = path
            .file_name()
            .map_or("cluster".into(), |n| n.to_string_lossy().into_owned());
        let f =
            crate::report::fleet::fleet(&[name], std::slice::from_ref(report), Default::default());
        let mut buf = Vec::new();
        crate::report::export(&f, html::FORMAT, &mut buf)?;
        String::from_utf8_lossy(&buf).into_owned()
    };
    crate::util::atomic::write_atomic(&html, |w| w.write_all(page.as_bytes()))
        .with_context(|| format!("cannot write {}", html.display()))?;
    let mut out = std::io::stdout().lock();
    // A matrix run's table adds the host × host grids under the results.
    let doc = if matrix {
        Doc::Matrix(report)
    } else {
        Doc::Report(report)
    };
    crate::report::export(doc, opts.format, &mut out)?;
    if !opts.quiet {
        eprintln!("results: {}", path.display());
        eprintln!("html: {}", html.display());
    }
    // Exit 1 when a host or a case failed, as a run on one host does: a matrix whose
    // links all failed exited 0 (issue #43 item 10), so a CI step saw success.
    let failed = report
        .hosts
        .iter()
        .map(|h| &h.status)
        .chain(report.results.iter().map(|r| &r.status))
        .any(|s| matches!(s, crate::report::model::Status::Failed { .. }));
    Ok(if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}
