//! The data sockets' knobs, as iperf3 has them: the socket buffer (`--window`, iperf3
//! `-w`: SO_SNDBUF and SO_RCVBUF), the congestion control (`--congestion`, `-C`:
//! TCP_CONGESTION) and the MSS (`--mss`, `-M`: TCP_MAXSEG).
//!
//! Both ends set them before the TCP handshake, as iperf3 does: the server on its data
//! listener (accepted connections inherit the buffers, the congestion control and the
//! MSS it advertises in the SYN-ACK), the client on its socket before `connect`
//! ([`connect_tcp`]): the window scale and the MSS are agreed in the handshake, so a
//! buffer set afterwards would be capped by a scale chosen for the default one.
//!
//! A buffer the kernel caps below what was asked (`net.core.rmem_max`/`wmem_max`) is
//! asked again with SO_RCVBUFFORCE/SO_SNDBUFFORCE (allowed with CAP_NET_ADMIN); if it
//! is still short the test fails with the sysctl that limits it, rather than running
//! with a window nobody asked for.

use super::proto::{Proto, TestSpec};
use std::io;
use std::net::{SocketAddr, TcpStream, UdpSocket};
use std::os::fd::{AsRawFd, FromRawFd, RawFd};
use std::time::Duration;

/// Where Linux lists the congestion controls it can use.
pub(crate) const CONGESTION_LIST: &str = "/proc/sys/net/ipv4/tcp_available_congestion_control";

fn set_int(fd: RawFd, level: i32, opt: i32, v: i32) -> io::Result<()> {
    // SAFETY: plain setsockopt with a valid int option value of the right length.
    let rc = unsafe {
        libc::setsockopt(
            fd,
            level,
            opt,
            (&v as *const i32).cast(),
            std::mem::size_of::<i32>() as libc::socklen_t,
        )
    };
    if rc == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

fn get_int(fd: RawFd, level: i32, opt: i32) -> io::Result<i32> {
    let mut v: i32 = 0;
    let mut len = std::mem::size_of::<i32>() as libc::socklen_t;
    // SAFETY: getsockopt writes at most `len` bytes into `v`, an i32.
    let rc = unsafe { libc::getsockopt(fd, level, opt, (&mut v as *mut i32).cast(), &mut len) };
    if rc == 0 {
        Ok(v)
    } else {
        Err(io::Error::last_os_error())
    }
}

/// The receive buffer the kernel granted, in the bytes asked for (Linux reports twice
/// the value set: half of it is bookkeeping).
#[cfg(test)]
pub(crate) fn window(fd: RawFd) -> io::Result<u32> {
    Ok((get_int(fd, libc::SOL_SOCKET, libc::SO_RCVBUF)? / 2).max(0) as u32)
}

/// Sets both socket buffers to `bytes` (see the module doc for capped buffers).
pub(crate) fn set_window(fd: RawFd, bytes: u32) -> io::Result<()> {
    let v = bytes.min(i32::MAX as u32) as i32;
    for (opt, force, sysctl) in [
        (libc::SO_SNDBUF, libc::SO_SNDBUFFORCE, "net.core.wmem_max"),
        (libc::SO_RCVBUF, libc::SO_RCVBUFFORCE, "net.core.rmem_max"),
    ] {
        set_int(fd, libc::SOL_SOCKET, opt, v)?;
        if get_int(fd, libc::SOL_SOCKET, opt)? / 2 < v {
            // Not root: the kernel says EPERM, and the check below names the limit.
            let _ = set_int(fd, libc::SOL_SOCKET, force, v);
            let got = get_int(fd, libc::SOL_SOCKET, opt)? / 2;
            if got < v {
                return Err(io::Error::other(format!(
                    "the kernel caps the socket buffer at {got} B, below the {bytes} B of --window ({sysctl}; raise it with sysctl -w {sysctl}={bytes}, or run as root)"
                )));
            }
        }
    }
    Ok(())
}

/// The socket's congestion control.
#[cfg(test)]
pub(crate) fn congestion(fd: RawFd) -> io::Result<String> {
    let mut buf = [0u8; 16];
    let mut len = buf.len() as libc::socklen_t;
    // SAFETY: getsockopt writes at most `len` bytes into `buf`.
    let rc = unsafe {
        libc::getsockopt(
            fd,
            libc::IPPROTO_TCP,
            libc::TCP_CONGESTION,
            buf.as_mut_ptr().cast(),
            &mut len,
        )
    };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    let n = buf[..len as usize]
        .iter()
        .position(|&b| b == 0)
        .unwrap_or(len as usize);
    Ok(String::from_utf8_lossy(&buf[..n]).into_owned())
}

/// Sets the congestion control to `name`.
pub(crate) fn set_congestion(fd: RawFd, name: &str) -> io::Result<()> {
    // SAFETY: setsockopt reads `name.len()` bytes from the string's buffer.
    let rc = unsafe {
        libc::setsockopt(
            fd,
            libc::IPPROTO_TCP,
            libc::TCP_CONGESTION,
            name.as_ptr().cast(),
            name.len() as libc::socklen_t,
        )
    };
    if rc == 0 {
        return Ok(());
    }
    let e = io::Error::last_os_error();
    Err(io::Error::other(match e.raw_os_error() {
        Some(libc::ENOENT) => format!(
            "congestion control '{name}' is not available on this host (see {CONGESTION_LIST})"
        ),
        Some(libc::EPERM) => format!(
            "congestion control '{name}' is not allowed for unprivileged users here (net.ipv4.tcp_allowed_congestion_control)"
        ),
        _ => format!("congestion control '{name}': {e}"),
    }))
}

/// The socket's MSS (after the handshake: the one in use).
#[cfg(test)]
pub(crate) fn mss(fd: RawFd) -> io::Result<u32> {
    Ok(get_int(fd, libc::IPPROTO_TCP, libc::TCP_MAXSEG)?.max(0) as u32)
}

/// Caps the MSS at `bytes` (before the handshake: also the MSS advertised).
pub(crate) fn set_mss(fd: RawFd, bytes: u32) -> io::Result<()> {
    set_int(fd, libc::IPPROTO_TCP, libc::TCP_MAXSEG, bytes as i32)
        .map_err(|e| io::Error::other(format!("MSS {bytes}: {e}")))
}

/// The congestion controls this host offers; `None` when the list cannot be read.
pub(crate) fn available_congestion() -> Option<Vec<String>> {
    let text = std::fs::read_to_string(CONGESTION_LIST).ok()?;
    Some(text.split_whitespace().map(str::to_string).collect())
}

/// Whether `spec` sets any TCP knob.
fn any_tcp_knob(spec: &TestSpec) -> bool {
    spec.window.is_some() || spec.congestion.is_some() || spec.mss.is_some()
}

/// Sets `spec`'s TCP knobs on a socket not yet connected, or on a listener.
pub(crate) fn apply_tcp(fd: RawFd, spec: &TestSpec) -> io::Result<()> {
    if let Some(w) = spec.window {
        set_window(fd, w)?;
    }
    if let Some(c) = &spec.congestion {
        set_congestion(fd, c)?;
    }
    if let Some(m) = spec.mss {
        set_mss(fd, m)?;
    }
    Ok(())
}

/// Sizes a UDP data socket's buffers: `--window` when given, else as large as the
/// kernel allows ([`super::udp::big_buffers`]).
pub(crate) fn apply_udp(sock: &UdpSocket, spec: &TestSpec) -> io::Result<()> {
    match spec.window {
        Some(w) if spec.proto == Proto::Udp => set_window(sock.as_raw_fd(), w),
        _ => {
            super::udp::big_buffers(sock);
            Ok(())
        }
    }
}

fn sockaddr(addr: &SocketAddr) -> (libc::sockaddr_storage, libc::socklen_t) {
    // SAFETY: an all-zero sockaddr_storage is a valid (unspecified) address.
    let mut ss: libc::sockaddr_storage = unsafe { std::mem::zeroed() };
    let len = match addr {
        SocketAddr::V4(a) => {
            // SAFETY: sockaddr_storage is larger than, and aligned for, sockaddr_in.
            let sin = unsafe {
                &mut *(&mut ss as *mut libc::sockaddr_storage).cast::<libc::sockaddr_in>()
            };
            sin.sin_family = libc::AF_INET as libc::sa_family_t;
            sin.sin_port = a.port().to_be();
            sin.sin_addr.s_addr = u32::from_ne_bytes(a.ip().octets());
            std::mem::size_of::<libc::sockaddr_in>()
        }
        SocketAddr::V6(a) => {
            // SAFETY: sockaddr_storage is larger than, and aligned for, sockaddr_in6.
            let sin6 = unsafe {
                &mut *(&mut ss as *mut libc::sockaddr_storage).cast::<libc::sockaddr_in6>()
            };
            sin6.sin6_family = libc::AF_INET6 as libc::sa_family_t;
            sin6.sin6_port = a.port().to_be();
            sin6.sin6_addr.s6_addr = a.ip().octets();
            sin6.sin6_flowinfo = a.flowinfo();
            sin6.sin6_scope_id = a.scope_id();
            std::mem::size_of::<libc::sockaddr_in6>()
        }
    };
    (ss, len as libc::socklen_t)
}

/// Connects a TCP data stream to `addr` within `timeout`, with `spec`'s knobs set
/// before the handshake (without knobs: a plain `connect_timeout`).
pub(crate) fn connect_tcp(
    addr: SocketAddr,
    timeout: Duration,
    spec: &TestSpec,
) -> io::Result<TcpStream> {
    if !any_tcp_knob(spec) {
        return TcpStream::connect_timeout(&addr, timeout);
    }
    let family = if addr.is_ipv4() {
        libc::AF_INET
    } else {
        libc::AF_INET6
    };
    // SAFETY: socket(2) with constant arguments; the fd is owned by `stream` at once.
    let fd = unsafe {
        libc::socket(
            family,
            libc::SOCK_STREAM | libc::SOCK_CLOEXEC | libc::SOCK_NONBLOCK,
            0,
        )
    };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `fd` is a fresh socket nobody else owns; TcpStream closes it on drop.
    let stream = unsafe { TcpStream::from_raw_fd(fd) };
    apply_tcp(fd, spec)?;
    let (ss, len) = sockaddr(&addr);
    // SAFETY: `ss` holds a valid address of `len` bytes.
    let rc = unsafe { libc::connect(fd, (&ss as *const libc::sockaddr_storage).cast(), len) };
    if rc != 0 {
        let e = io::Error::last_os_error();
        if e.raw_os_error() != Some(libc::EINPROGRESS) {
            return Err(e);
        }
        let mut pfd = libc::pollfd {
            fd,
            events: libc::POLLOUT,
            revents: 0,
        };
        let ms = timeout.as_millis().clamp(1, i32::MAX as u128) as i32;
        // SAFETY: poll on one valid pollfd.
        let n = unsafe { libc::poll(&mut pfd, 1, ms) };
        if n < 0 {
            return Err(io::Error::last_os_error());
        }
        if n == 0 {
            return Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "connection timed out",
            ));
        }
        let err = get_int(fd, libc::SOL_SOCKET, libc::SO_ERROR)?;
        if err != 0 {
            return Err(io::Error::from_raw_os_error(err));
        }
    }
    stream.set_nonblocking(false)?;
    Ok(stream)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::TcpListener;

    fn spec() -> TestSpec {
        TestSpec {
            msg: 1000,
            omit_ms: 0,
            interval_ms: 100,
            intervals: 1,
            window: Some(64 * 1024),
            congestion: Some("reno".into()),
            mss: Some(1000),
            ..crate::bench::net::test_support::spec()
        }
    }

    /// Both ends of a loopback connection carry the knobs: set on the listener and
    /// before connect, read back from the sockets after the handshake.
    #[test]
    fn both_ends_of_a_connection_carry_the_knobs() {
        let s = spec();
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        apply_tcp(l.as_raw_fd(), &s).unwrap();
        let c = connect_tcp(l.local_addr().unwrap(), Duration::from_secs(5), &s).unwrap();
        let (a, _) = l.accept().unwrap();
        for (end, fd) in [("client", c.as_raw_fd()), ("server", a.as_raw_fd())] {
            assert_eq!(congestion(fd).unwrap(), "reno", "{end}");
            let m = mss(fd).unwrap();
            assert!(m <= 1000 && m > 0, "{end}: MSS {m}");
            assert!(window(fd).unwrap() >= 64 * 1024, "{end}");
        }
    }

    #[test]
    fn an_unknown_congestion_control_is_one_line() {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let e = set_congestion(l.as_raw_fd(), "nosuchcc").unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("congestion control 'nosuchcc' is not available on this host (see {CONGESTION_LIST})")
        );
    }

    #[test]
    fn the_host_lists_its_congestion_controls() {
        // Every Linux kernel has reno built in.
        if let Some(list) = available_congestion() {
            assert!(list.iter().any(|c| c == "reno"), "{list:?}");
        }
    }
}
