//! The server's side of attaching a test's data streams: TCP connections accepted side
//! by side until each presented the session cookie, UDP ports that wait for a hello
//! with the cookie from the control peer. Split from `server.rs` (the conversation),
//! since attaching is its own hostile-peer problem: a silent or trickling connection
//! must not hold up the real streams behind it.

use super::engine::DataSock;
use super::proto::{data_hello, parse_data_hello, ACK_MAGIC, DATA_HELLO_LEN, DATA_MAGIC};
use std::io::Read;
use std::net::{IpAddr, TcpListener, TcpStream, UdpSocket};
use std::time::{Duration, Instant};

/// Most data-port connections waiting for their hello at once during an attach.
const MAX_ATTACH_WAITING: usize = 64;

/// A data connection whose hello is still arriving.
struct Arriving {
    sock: TcpStream,
    hello: [u8; DATA_HELLO_LEN],
    got: usize,
}

/// Attaches TCP data streams: accepts until every connection presented the cookie.
/// Connections are read without blocking, side by side, so one that stays silent (or
/// trickles) does not hold up the real streams behind it; it is dropped at the end.
pub(crate) fn attach_tcp(
    listener: &TcpListener,
    n: usize,
    cookie: &[u8],
    peer: IpAddr,
    deadline: Instant,
) -> Result<Vec<DataSock>, String> {
    let mut slots: Vec<Option<TcpStream>> = (0..n).map(|_| None).collect();
    let mut arriving: Vec<Arriving> = Vec::new();
    listener.set_nonblocking(true).map_err(|e| e.to_string())?;
    while slots.iter().any(|s| s.is_none()) {
        if Instant::now() >= deadline {
            return Err("data streams did not attach in time".into());
        }
        let mut progress = false;
        match listener.accept() {
            Ok((s, from)) => {
                progress = true;
                if from.ip() == peer && s.set_nonblocking(true).is_ok() {
                    if arriving.len() >= MAX_ATTACH_WAITING {
                        arriving.remove(0);
                    }
                    arriving.push(Arriving {
                        sock: s,
                        hello: [0; DATA_HELLO_LEN],
                        got: 0,
                    });
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
            Err(e) => return Err(format!("accepting a data stream: {e}")),
        }
        let mut i = 0;
        while i < arriving.len() {
            let a = &mut arriving[i];
            let keep = match a.sock.read(&mut a.hello[a.got..]) {
                Ok(0) => false,
                Ok(k) => {
                    progress = true;
                    a.got += k;
                    a.got < DATA_HELLO_LEN
                }
                Err(e) => matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::Interrupted
                ),
            };
            if keep {
                i += 1;
                continue;
            }
            let a = arriving.swap_remove(i);
            if a.got == DATA_HELLO_LEN {
                if let Some(id) = parse_data_hello(&a.hello, DATA_MAGIC, cookie) {
                    if (id as usize) < n && slots[id as usize].is_none() {
                        a.sock.set_nonblocking(false).map_err(|e| e.to_string())?;
                        slots[id as usize] = Some(a.sock);
                    }
                }
            }
        }
        if !progress {
            std::thread::sleep(Duration::from_millis(1));
        }
    }
    Ok(slots
        .into_iter()
        .flatten()
        .map(|s| Box::new(s) as DataSock)
        .collect())
}

/// Attaches UDP data streams: each port waits for a hello with the cookie from the
/// control peer, connects to its source and acknowledges.
pub(crate) fn attach_udp(
    socks: Vec<UdpSocket>,
    cookie: &[u8],
    peer: IpAddr,
    deadline: Instant,
) -> Result<Vec<DataSock>, String> {
    let mut out: Vec<DataSock> = Vec::with_capacity(socks.len());
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
        out.push(Box::new(s));
    }
    Ok(out)
}
