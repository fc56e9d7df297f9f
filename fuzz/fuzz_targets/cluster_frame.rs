//! Fuzzes the cluster protocol's parsing: a whole frame (length prefix + body) through
//! `wire::read` under the pre-auth cap, and the body alone through `decode`. Neither
//! may panic, hang or allocate beyond the cap; anything accepted must survive a
//! re-encode round trip.
#![no_main]

use libfuzzer_sys::fuzz_target;
use peakbench::cluster::wire::{decode, encode, read, MAX_PREAUTH};
use peakbench::util::frame::Timed;
use std::io::{Cursor, Read, Write};
use std::time::{Duration, Instant};

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
    let mut s = Bytes(Cursor::new(data.to_vec()));
    if let Ok(m) = read(&mut s, MAX_PREAUTH, Instant::now() + Duration::from_secs(1)) {
        let body = encode(&m).expect("a decoded message re-encodes");
        let again = decode(&body).expect("re-encoded message must decode");
        assert_eq!(format!("{again:?}"), format!("{m:?}"));
    }
});
