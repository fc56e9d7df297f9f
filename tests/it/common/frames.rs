//! The `net` control protocol by hand, for the tests that play a client of `serve`
//! (in-process or the binary) on loopback: connect, read a frame, authenticate.
#![allow(dead_code)]

use peakbench::bench::net::proto::{
    self, encode, hex, prove, unhex, Msg, Side, NONCE_LEN, VERSION,
};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

/// A control connection to `addr` whose reads give up after 10 s.
pub fn raw(addr: SocketAddr) -> TcpStream {
    let s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s
}

/// Reads one frame (or None on close, a timeout or a frame that does not decode).
pub fn read_frame(s: &mut TcpStream) -> Option<Msg> {
    let mut h = [0u8; 4];
    s.read_exact(&mut h).ok()?;
    let mut b = vec![0u8; proto::frame_len(h).ok()?];
    s.read_exact(&mut b).ok()?;
    proto::decode(&b).ok()
}

/// Authenticates by hand with `token`; returns the control stream after Welcome.
pub fn authenticate(addr: SocketAddr, token: &str) -> TcpStream {
    let mut s = raw(addr);
    let Some(Msg::Greeting { nonce, .. }) = read_frame(&mut s) else {
        panic!("no greeting")
    };
    let sn = unhex(&nonce, NONCE_LEN).unwrap();
    let cn = [9u8; NONCE_LEN];
    let hello = Msg::Hello {
        version: VERSION,
        nonce: hex(&cn),
        proof: Some(prove(token.as_bytes(), Side::Client, &sn, &cn)),
    };
    s.write_all(&encode(&hello)).unwrap();
    assert!(matches!(read_frame(&mut s), Some(Msg::Welcome { .. })));
    s
}
