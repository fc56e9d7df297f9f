//! Fuzzes the control protocol's parsing: a whole frame (length prefix + body) through
//! `Control::recv`, and the body alone through `decode`. Neither may panic, hang or
//! allocate beyond the frame cap; anything accepted must survive a re-encode round trip.
#![no_main]

use libfuzzer_sys::fuzz_target;
use peakbench::bench::net::proto::{decode, encode, Control, Timed};
use std::io::{Cursor, Read, Write};
use std::time::Duration;

struct Bytes(Cursor<Vec<u8>>);
impl Read for Bytes {
    fn read(&mut self, b: &mut [u8]) -> std::io::Result<usize> {
        self.0.read(b)
    }
}
impl Write for Bytes {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
impl Timed for Bytes {
    fn set_timeout(&self, _: Duration) -> std::io::Result<()> {
        Ok(())
    }
}

fuzz_target!(|data: &[u8]| {
    let _ = decode(data);
    let mut c = Control::new(Bytes(Cursor::new(data.to_vec())));
    if let Ok(m) = c.recv(Duration::from_secs(1), "fuzz") {
        let again = decode(&encode(&m)[4..]).expect("re-encoded message must decode");
        assert_eq!(again, m);
    }
});
