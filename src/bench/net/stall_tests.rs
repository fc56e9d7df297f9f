//! Issue #32 item 1: single-stream cases stalled on a loaded machine because each
//! end's timed window opened at its own release, one control message apart, so a
//! server the scheduler held up lost its window (0 B/s reported ok) or a pinger's
//! whole window passed waiting for its first reply. These tests stand in for the
//! loaded machine deterministically: a server that releases its streams late, and an
//! echo peer that answers its first ping late. Each runs in about two seconds.

use super::client::{self, Outcome, Timeouts};
use super::engine::{Interrupt, Pacer};
use super::proto::{Direction, Proto, TestKind, TestSpec};
use super::server::{Server, ServerConfig};
use crate::measure::clock::Tick;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::time::Duration;

/// Longer than the whole test below (100 ms warm-up + 3 × 100 ms).
const LATE: Duration = Duration::from_millis(1200);

fn spec(proto: Proto, test: TestKind, direction: Direction) -> TestSpec {
    TestSpec {
        proto,
        test,
        msg: if test == TestKind::Latency { 64 } else { 16384 },
        direction,
        omit_ms: 100,
        interval_ms: 100,
        ..super::test_support::spec()
    }
}

/// One test against an in-process server that waits `delay` after Start before it
/// releases its streams.
fn run_late(spec: &TestSpec, delay: Duration) -> Outcome {
    let mut cfg = ServerConfig::new(serde_json::Value::Null, Vec::new());
    cfg.token = Some(b"tok".to_vec());
    cfg.once = true;
    cfg.log = false;
    cfg.start_delay = delay;
    let srv = Server::bind(SocketAddr::from(([127, 0, 0, 1], 0)), cfg).unwrap();
    let addr = srv.local_addr().unwrap();
    let h = std::thread::spawn(move || srv.serve());
    let o = client::run(addr, Some(b"tok"), spec, &[], Timeouts::default());
    let _ = h.join();
    match o {
        Ok(o) => o,
        Err(e) => panic!("{}", e.message),
    }
}

#[test]
fn a_late_server_still_receives_in_every_timed_interval() {
    let s = spec(Proto::Tcp, TestKind::Throughput, Direction::Up);
    let o = run_late(&s, LATE);
    let iv = &o.remote.recv_intervals;
    assert_eq!(iv.len(), 3, "{iv:?}");
    assert!(iv.iter().all(|(t, b)| *b > 0 && *t > 0.05), "{iv:?}");
}

#[test]
fn a_late_sending_server_still_fills_the_clients_window() {
    let s = spec(Proto::Tcp, TestKind::Throughput, Direction::Down);
    let o = run_late(&s, LATE);
    let iv = &o.local.report.recv_intervals;
    assert_eq!(iv.len(), 3, "{iv:?}");
    assert!(iv.iter().all(|(t, b)| *b > 0 && *t > 0.05), "{iv:?}");
}

#[test]
fn a_late_echo_server_still_gives_round_trips_in_the_window() {
    for proto in [Proto::Tcp, Proto::Udp] {
        let s = spec(proto, TestKind::Latency, Direction::Up);
        let o = run_late(&s, LATE);
        let l = o.local.latency.expect("round trips");
        assert!(!l.hist.is_empty(), "{proto:?}: no round trip in the window");
        assert!(
            l.per_interval.iter().all(|(_, n)| *n > 0),
            "{proto:?}: {:?}",
            l.per_interval
        );
        // The wait for the late server is not a round trip.
        assert!(l.hist.max() < LATE.as_nanos() as u64 / 2, "{proto:?}");
    }
}

/// The pinger's window opens at its first answer: a peer whose first reply comes
/// after the whole test's length (no server protocol involved).
#[test]
fn a_first_reply_later_than_the_test_costs_no_window() {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = l.local_addr().unwrap();
    let echo = std::thread::spawn(move || {
        let (mut s, _) = l.accept().unwrap();
        let mut buf = [0u8; 64];
        let mut first = true;
        while s.read_exact(&mut buf).is_ok() {
            if first {
                std::thread::sleep(LATE);
                first = false;
            }
            if s.write_all(&buf).is_err() {
                break;
            }
        }
    });
    let c = TcpStream::connect(addr).unwrap();
    c.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let s = spec(Proto::Tcp, TestKind::Latency, Direction::Up);
    let pacer = Pacer::new(Tick::now(), &s);
    let out = super::tcp::ping(&c, 64, &pacer, &Interrupt::default(), false).unwrap();
    drop(c);
    echo.join().unwrap();
    assert!(!out.hist.is_empty(), "no round trip after the warm-up");
    assert!(
        out.per_interval.iter().all(|(_, n)| *n > 0),
        "{:?}",
        out.per_interval
    );
    assert!(out.hist.max() < LATE.as_nanos() as u64 / 2);
}
