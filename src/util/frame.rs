//! The one framing of peakbench's two TCP protocols (`serve`'s control connection and
//! the cluster's coordinator connection): a `u32` big-endian length, then that many
//! bytes of JSON. The length is checked against the caller's cap *before* anything is
//! allocated, and the whole frame must arrive before one deadline, so a peer that
//! trickles bytes cannot stretch it. What the body means is each protocol's business.

use std::io::{Read, Write};
use std::time::{Duration, Instant};

/// A stream whose read timeout can be set (TcpStream; test doubles, fuzz inputs).
pub trait Timed: Read + Write {
    /// Sets the read timeout of the next read.
    fn set_timeout(&self, t: Duration) -> std::io::Result<()>;
    /// Whether a read would not block within `t` (data, end of stream or error).
    fn readable(&self, _t: Duration) -> bool {
        true
    }
}

impl Timed for std::net::TcpStream {
    fn set_timeout(&self, t: Duration) -> std::io::Result<()> {
        self.set_read_timeout(Some(t.max(Duration::from_millis(1))))
    }
    fn readable(&self, t: Duration) -> bool {
        use std::os::fd::AsRawFd;
        let mut p = libc::pollfd {
            fd: self.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one valid pollfd.
        unsafe { libc::poll(&mut p, 1, t.as_millis().min(60_000) as i32) > 0 }
    }
}

/// Why a frame could not be read.
#[derive(Debug, thiserror::Error)]
pub(crate) enum FrameError {
    /// The deadline passed before the whole frame arrived.
    #[error("the peer went silent (timed out)")]
    Timeout,
    /// The peer closed (or reset) the connection.
    #[error("the peer closed the connection")]
    Closed,
    /// A length of zero, or beyond the cap.
    #[error("{0}")]
    Length(String),
    /// Any other I/O error.
    #[error("{0}")]
    Io(std::io::Error),
}

impl From<std::io::Error> for FrameError {
    fn from(e: std::io::Error) -> FrameError {
        match e.kind() {
            std::io::ErrorKind::UnexpectedEof
            | std::io::ErrorKind::ConnectionReset
            | std::io::ErrorKind::ConnectionAborted
            | std::io::ErrorKind::BrokenPipe => FrameError::Closed,
            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut => FrameError::Timeout,
            _ => FrameError::Io(e),
        }
    }
}

/// The body length a header announces, refused when 0 or beyond `max` (`what` names
/// the protocol in the message, e.g. "control").
pub(crate) fn frame_len(header: [u8; 4], max: usize, what: &str) -> Result<usize, FrameError> {
    let len = u32::from_be_bytes(header) as usize;
    if len == 0 {
        return Err(FrameError::Length(format!("empty {what} frame")));
    }
    if len > max {
        return Err(FrameError::Length(format!(
            "{what} frame of {len} bytes exceeds the {max}-byte cap (not a peakbench peer?)"
        )));
    }
    Ok(len)
}

/// One frame: the length prefix and `body`. A body beyond `u32` cannot be framed.
pub(crate) fn encode(body: &[u8]) -> std::io::Result<Vec<u8>> {
    let len = u32::try_from(body.len())
        .map_err(|_| std::io::Error::other("message too large to frame"))?;
    let mut out = Vec::with_capacity(4 + body.len());
    out.extend_from_slice(&len.to_be_bytes());
    out.extend_from_slice(body);
    Ok(out)
}

/// Writes one frame and flushes.
pub(crate) fn write<S: Write>(s: &mut S, body: &[u8]) -> std::io::Result<()> {
    s.write_all(&encode(body)?)?;
    s.flush()
}

/// Reads exactly `buf.len()` bytes before `deadline`.
pub(crate) fn read_full<S: Timed>(
    s: &mut S,
    buf: &mut [u8],
    deadline: Instant,
) -> Result<(), FrameError> {
    let mut got = 0;
    while got < buf.len() {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(FrameError::Timeout);
        }
        s.set_timeout(left)?;
        match s.read(&mut buf[got..]) {
            Ok(0) => return Err(FrameError::Closed),
            Ok(n) => got += n,
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::Interrupted
                        | std::io::ErrorKind::WouldBlock
                        | std::io::ErrorKind::TimedOut
                ) => {}
            Err(e) => return Err(e.into()),
        }
    }
    Ok(())
}

/// Reads one frame's body of at most `max` bytes before `deadline`.
pub(crate) fn read<S: Timed>(
    s: &mut S,
    max: usize,
    deadline: Instant,
    what: &str,
) -> Result<Vec<u8>, FrameError> {
    let mut header = [0u8; 4];
    read_full(s, &mut header, deadline)?;
    let len = frame_len(header, max, what)?;
    let mut body = vec![0u8; len];
    read_full(s, &mut body, deadline)?;
    Ok(body)
}

/// A stream over a byte buffer that discards what is written: frames fed to a reader
/// in the tests of both protocols (`serve`'s and the cluster's).
#[cfg(test)]
pub(crate) struct Bytes(pub(crate) std::io::Cursor<Vec<u8>>);

#[cfg(test)]
impl Read for Bytes {
    fn read(&mut self, b: &mut [u8]) -> std::io::Result<usize> {
        self.0.read(b)
    }
}

#[cfg(test)]
impl Write for Bytes {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
impl Timed for Bytes {
    fn set_timeout(&self, _: Duration) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    #[test]
    fn frames_round_trip_and_caps_apply_before_allocation() {
        let t = Instant::now() + Duration::from_secs(5);
        let f = encode(b"{}").unwrap();
        assert_eq!(read(&mut Bytes(Cursor::new(f)), 16, t, "x").unwrap(), b"{}");
        // A 4 GiB announcement is refused from the header alone.
        let e = read(&mut Bytes(Cursor::new(vec![0xff; 4])), 16, t, "cluster").unwrap_err();
        assert!(
            e.to_string().contains("cluster frame of 4294967295 bytes"),
            "{e}"
        );
        let e = read(&mut Bytes(Cursor::new(vec![0; 4])), 16, t, "x").unwrap_err();
        assert!(e.to_string().contains("empty"), "{e}");
        // A frame cut short is a closed peer.
        let mut cut = encode(b"{\"a\":1}").unwrap();
        cut.truncate(6);
        assert!(matches!(
            read(&mut Bytes(Cursor::new(cut)), 16, t, "x"),
            Err(FrameError::Closed)
        ));
    }
}
