//! Tests of the control protocol: round trips, strictness, authentication, and a
//! deterministic randomized test that throws mutated and random frames at the parser
//! (the stable-Rust counterpart of the cargo-fuzz target in `fuzz/`).

use super::*;
use crate::util::rng::XorShift;
use std::io::Cursor;

use crate::util::frame::Bytes;

fn spec() -> TestSpec {
    TestSpec {
        streams: 2,
        ..crate::bench::net::test_support::spec()
    }
}

fn samples() -> Vec<Msg> {
    vec![
        Msg::Greeting {
            version: VERSION,
            nonce: hex(&[7u8; NONCE_LEN]),
            auth: true,
        },
        Msg::Hello {
            version: VERSION,
            nonce: hex(&[1u8; NONCE_LEN]),
            proof: Some("ab".repeat(32)),
        },
        Msg::Welcome {
            proof: None,
            host: serde_json::json!({"hostname": "x"}),
        },
        Msg::Test { spec: spec() },
        Msg::Ready {
            cookie: hex(&[3u8; COOKIE_LEN]),
            ports: vec![1, 2],
        },
        Msg::Attached {},
        Msg::Start {},
        Msg::Started {},
        Msg::SenderDone {
            sent: vec![SentCount {
                id: 0,
                msgs: 5,
                bytes: 10,
            }],
        },
        Msg::Results {
            report: EndReport {
                streams: vec![StreamStats {
                    id: 1,
                    udp: Some(UdpRecv::default()),
                    ..Default::default()
                }],
                recv_intervals: vec![(1.0, 5)],
                sent_intervals: vec![],
                wall_s: 1.0,
                cpu_s: 0.5,
            },
        },
        Msg::Bye {},
        Msg::Error {
            message: "x".into(),
        },
    ]
}

fn recv_from(bytes: Vec<u8>) -> Result<Msg, ProtoError> {
    Control::new(Bytes(Cursor::new(bytes))).recv(Duration::from_secs(1), "test")
}

#[test]
fn every_message_round_trips() {
    for m in samples() {
        let got = recv_from(encode(&m));
        match (&m, got) {
            (Msg::Error { message }, Err(ProtoError::Peer(p))) => assert_eq!(*message, p),
            (_, Ok(g)) => assert_eq!(g, m),
            (_, Err(e)) => panic!("{m:?}: {e}"),
        }
    }
}

#[test]
fn strict_schema() {
    // Unknown field, unknown type, wrong type, missing field, trailing garbage.
    for bad in [
        r#"{"type":"start","extra":1}"#,
        r#"{"type":"launch"}"#,
        r#"{"type":"greeting","version":"1","nonce":"00","auth":true}"#,
        r#"{"type":"greeting","version":1,"auth":true}"#,
        r#"{"type":"start"} x"#,
        r#"{"type":"test","spec":{"proto":"tcp","test":"throughput","msg":1,"streams":1,"direction":"up","omit_ms":0,"interval_ms":1,"intervals":1,"rate_bps":null,"zerocopy":false,"evil":1}}"#,
        r#"{"type":"greeting","version":-1,"nonce":"","auth":true}"#,
        r#"{"type":"greeting","version":4294967296,"nonce":"","auth":true}"#,
    ] {
        assert!(decode(bad.as_bytes()).is_err(), "{bad}");
    }
}

#[test]
fn frame_caps() {
    assert!(frame_len(0u32.to_be_bytes()).is_err());
    assert!(frame_len((MAX_FRAME as u32 + 1).to_be_bytes()).is_err());
    assert_eq!(
        frame_len((MAX_FRAME as u32).to_be_bytes()).unwrap(),
        MAX_FRAME
    );
    // "GET " from an HTTP client is a 1.2 GB length: refused before any allocation.
    let e = recv_from(b"GET / HTTP/1.1\r\n\r\n".to_vec()).unwrap_err();
    assert!(e.to_string().contains("exceeds"), "{e}");
    // A truncated frame is a closed connection, not a hang or a panic.
    let mut f = encode(&Msg::Start {});
    f.truncate(f.len() - 1);
    assert!(matches!(recv_from(f), Err(ProtoError::Closed(_))));
}

#[test]
fn spec_validation() {
    assert!(spec().validate().is_ok());
    let bad = [
        TestSpec { msg: 0, ..spec() },
        TestSpec {
            msg: MAX_TCP_MSG + 1,
            ..spec()
        },
        TestSpec {
            proto: Proto::Udp,
            msg: 70_000,
            ..spec()
        },
        TestSpec {
            proto: Proto::Udp,
            msg: 8,
            ..spec()
        },
        TestSpec {
            streams: 0,
            ..spec()
        },
        TestSpec {
            streams: MAX_STREAMS + 1,
            ..spec()
        },
        TestSpec {
            intervals: 0,
            ..spec()
        },
        TestSpec {
            interval_ms: u64::MAX,
            ..spec()
        },
        TestSpec {
            omit_ms: u64::MAX,
            ..spec()
        },
        TestSpec {
            test: TestKind::Latency,
            direction: Direction::Down,
            ..spec()
        },
        TestSpec {
            proto: Proto::Udp,
            msg: 100,
            zerocopy: true,
            window: None,
            congestion: None,
            mss: None,
            bytes: None,
            ..spec()
        },
        TestSpec {
            rate_bps: Some(0),
            ..spec()
        },
    ];
    for b in bad {
        assert!(b.validate().is_err(), "{b:?}");
    }
}

#[test]
fn report_validation() {
    let s = spec();
    let good = EndReport {
        streams: vec![StreamStats {
            recv_bytes: 3,
            ..Default::default()
        }],
        recv_intervals: vec![(1.0, 1); 3],
        ..Default::default()
    };
    assert!(good.validate(&s).is_ok());
    // #33 item 10: a 1 ns interval (1.355e18 B/s once), an interval longer than the
    // test, and intervals holding more bytes than the streams counted are refused.
    for (iv, want) in [
        (
            vec![(1e-9, 1_355_000_000), (1.0, 1)],
            "an interval of 1.000e-9 s",
        ),
        (vec![(1.0, 1), (4000.0, 1)], "an interval of 4.000e3 s"),
        (
            vec![(1.0, 1), (1.0, 5)],
            "6 B received in its intervals but 3 B",
        ),
    ] {
        let bad = EndReport {
            recv_intervals: iv,
            ..good.clone()
        };
        let e = bad.validate(&s).unwrap_err();
        assert!(e.contains(want), "{e}");
    }
    let too_many = EndReport {
        recv_intervals: vec![(1.0, 1); 4],
        ..Default::default()
    };
    assert!(too_many.validate(&s).is_err());
    let neg = EndReport {
        wall_s: -1.0,
        ..Default::default()
    };
    assert!(neg.validate(&s).is_err());
}

#[test]
fn data_hello_checks_cookie() {
    let c = [5u8; COOKIE_LEN];
    let h = data_hello(&c, 7);
    assert_eq!(parse_data_hello(&h, DATA_MAGIC, &c), Some(7));
    assert_eq!(parse_data_hello(&h, ACK_MAGIC, &c), None);
    assert_eq!(parse_data_hello(&h, DATA_MAGIC, &[6u8; COOKIE_LEN]), None);
    assert_eq!(parse_data_hello(&h[..10], DATA_MAGIC, &c), None);
}

#[test]
fn clean_strips_terminal_escapes() {
    assert_eq!(clean("a\x1b[2Jb\n"), "a\\x1b[2Jb\\n");
    assert!(clean(&"x".repeat(1000)).chars().count() <= 201);
}

/// Mutates valid frames (bit flips, byte changes, insertions, deletions, splices,
/// length-field changes) and feeds pure noise; the parser must return, never panic,
/// and anything it accepts must re-encode to a message that decodes the same.
#[test]
fn randomized_frames_never_panic() {
    let mut rng = XorShift::new(0x5EED_1234_ABCD_0001);
    let seeds: Vec<Vec<u8>> = samples().iter().map(encode).collect();
    let tokens: [&[u8]; 10] = [
        b"{",
        b"}",
        b"\"type\"",
        b":",
        b",",
        b"null",
        b"1e999",
        b"-1",
        b"\"\\u0000\"",
        b"[[[[",
    ];
    let mut accepted = 0;
    for i in 0..40_000 {
        let mut f = if i % 10 == 9 {
            let n = rng.index(64);
            (0..n).map(|_| rng.next_u64() as u8).collect()
        } else {
            seeds[rng.index(seeds.len())].clone()
        };
        for _ in 0..=rng.index(4) {
            if f.is_empty() {
                break;
            }
            let at = rng.index(f.len());
            match rng.index(7) {
                0 => f[at] ^= 1 << rng.index(8),
                1 => f[at] = rng.next_u64() as u8,
                2 => f.insert(at, rng.next_u64() as u8),
                3 => {
                    f.remove(at);
                }
                4 => {
                    let t = tokens[rng.index(tokens.len())];
                    f.splice(at..at, t.iter().copied());
                }
                5 if f.len() >= 4 => {
                    // Make the length prefix lie.
                    let l = (rng.next_u64() as u32) >> rng.index(32);
                    f[..4].copy_from_slice(&l.to_be_bytes());
                }
                _ => f.truncate(at),
            }
        }
        if let Ok(m) = recv_from(f.clone()) {
            accepted += 1;
            assert_eq!(recv_from(encode(&m)).unwrap(), m);
        }
        // The body alone too (what the fuzz target feeds).
        if f.len() > 4 {
            let _ = decode(&f[4..]);
        }
    }
    // Single-bit flips in whitespace-free JSON often keep it valid (e.g. a digit);
    // make sure the test exercised both paths.
    assert!(accepted > 0);
}
