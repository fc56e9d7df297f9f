//! Cluster authentication (issue #24) and its later hardening (#33): attackers that
//! reach rank 0's port on loopback — forged ranks, wrong secrets, replays, oversized
//! frames, silent connections, impostors, a matrix rank that tries to send the others
//! elsewhere — are refused and named, and never end or lock out a real rank. The
//! launch helpers are [`super::cluster`]'s. Nothing here checks speed.

use super::cluster::{all_succeeded, coord_port, host_names, spawn, wait, Rank, SECRET};
use crate::common;

use serde_json::Value;
use std::path::Path;
use std::process::Child;
use std::time::Duration;

use crate::common::cluster as attack;
use attack::{challenge, join_msg, reach, STEP};
use peakbench::cluster::wire::{Conn, Msg};

/// Rank 0 of a 2-rank launch (`h0`, 127.0.0.1) running `null`; its coordinator address
/// and the hold on its port (keep it until rank 0 is waited for).
fn rank0(out: &Path, join_s: u64) -> (Child, String, common::PortHold) {
    let (coord, hold) = coord_port();
    (rank0_at(out, &coord, join_s, &["null"]), coord, hold)
}

/// Rank 0 of a 2-rank launch (`h0`, 127.0.0.1) running `args`, listening on `coord`.
fn rank0_at(out: &Path, coord: &str, join_s: u64, args: &[&str]) -> Child {
    let r = Rank {
        rank: 0,
        size: 2,
        coord,
        host: "h0".into(),
        bind: "127.0.0.1".into(),
        join_s: Some(join_s),
        token: SECRET,
    };
    spawn(out, args, r)
}

/// Rank 1 (`h1`, 127.0.0.2) of the launch at `coord`, with `token`.
fn rank1(out: &Path, coord: &str, token: &str) -> Child {
    rank1_for(out, coord, token, 30)
}

/// Rank 1 as [`rank1`], with a join deadline of `join_s`.
fn rank1_for(out: &Path, coord: &str, token: &str, join_s: u64) -> Child {
    let r = Rank {
        rank: 1,
        size: 2,
        coord,
        host: "h1".into(),
        bind: "127.0.0.2".into(),
        join_s: Some(join_s),
        token,
    };
    spawn(out, &["null"], r)
}

/// The issue's attack (hello and forged results without a handshake), a guessed proof,
/// a replayed proof and an oversized pre-auth frame are each refused and logged; none
/// takes rank 1's place, and the real rank 1 then completes the run.
#[test]
fn forged_ranks_wrong_secrets_replays_and_oversized_frames_are_refused() {
    let d = tempfile::tempdir().unwrap();
    let (r0, coord, _port) = rank0(d.path(), 30);
    attack::all(&coord, SECRET);
    // The real rank 1 joins and the run completes with the two real hosts only.
    let r1 = rank1(d.path(), &coord, SECRET);
    let outs = wait(d.path(), vec![r0, r1], Duration::from_secs(90));
    all_succeeded(&outs);
    let v: Value = serde_json::from_slice(&outs[0].stdout).unwrap();
    assert_eq!(host_names(&v), ["h0", "h1"]);
    assert_eq!(v["results"].as_array().unwrap().len(), 2);
    let log = String::from_utf8_lossy(&outs[0].stderr);
    // Four attacks, and the connection the replayed proof was recorded on (closed
    // without an answer).
    assert_eq!(
        log.matches("refused a connection from 127.0.0.1").count(),
        5,
        "{log}"
    );
    for what in [
        "expected join, got results",
        "wrong secret",
        "exceeds the 4096-byte cap",
    ] {
        assert!(log.contains(what), "{what}: {log}");
    }
}

/// A real rank given the wrong secret is refused: it says so (and, since a refusal
/// before the coordinator proved the secret may come from an impostor, tries again
/// until its join deadline), and rank 0 reports the rank as not having joined (a
/// partial report), within the join deadline.
#[test]
fn a_rank_with_the_wrong_secret_is_refused_and_named() {
    let d = tempfile::tempdir().unwrap();
    let (r0, coord, _port) = rank0(d.path(), 4);
    let r1 = rank1_for(d.path(), &coord, "not-the-secret", 6);
    let outs = wait(d.path(), vec![r0, r1], Duration::from_secs(60));
    let e1 = String::from_utf8_lossy(&outs[1].stderr);
    assert!(!outs[1].status.success(), "{e1}");
    assert!(
        e1.contains("rank 1: joining the coordinator at")
            && e1.contains("the coordinator refused this rank (unauthenticated")
            && e1.contains("authentication failed"),
        "{e1}"
    );
    assert!(
        e1.contains("rank 1: could not join the coordinator"),
        "{e1}"
    );
    assert_eq!(outs[0].status.code(), Some(1));
    let v: Value = serde_json::from_slice(&outs[0].stdout).unwrap();
    assert_eq!(host_names(&v), ["h0", "rank1"]);
}

/// A rank that holds the secret but lies: results with another host's name and a
/// figure of 1e300 B/s. The result is tagged with the rank's own host and refused,
/// naming the host, never kept as a figure.
#[test]
fn an_authenticated_rank_cannot_forge_hosts_or_impossible_figures() {
    let d = tempfile::tempdir().unwrap();
    let (r0, coord, _port) = rank0(d.path(), 30);
    let mut c = Conn::new(reach(&coord));
    let n = challenge(&mut c);
    c.send(&join_msg(SECRET, &n, 1), STEP).unwrap();
    assert!(matches!(c.recv(STEP).unwrap(), Msg::Welcome { .. }));
    let info = serde_json::to_value(peakbench::hw::HostInfo::detect(false)).unwrap();
    let hello = serde_json::json!({"msg": "hello", "host": "h1", "info": info});
    let m: Msg = serde_json::from_value(hello).unwrap();
    c.send(&m, STEP).unwrap();
    assert!(matches!(c.recv(STEP).unwrap(), Msg::Go { runner: true }));
    let forged = serde_json::json!({"msg": "results", "results": [{
        "resource": "net", "workload": "tcp_throughput", "params": {},
        "metric": "throughput", "unit": "B/s", "samples": [1e300, 1e300],
        "summary": {"n": 2, "mean": 1e300, "sd": 0.0, "min": 1e300, "max": 1e300,
            "median": 1e300, "cv": 0.0, "ci95_low": 1e300, "ci95_high": 1e300, "outliers": 0},
        "status": "ok", "host": "forged-host"}]});
    let m: Msg = serde_json::from_value(forged).unwrap();
    c.send(&m, STEP).unwrap();
    let outs = wait(d.path(), vec![r0], Duration::from_secs(60));
    // A refused (failed) result fails the launch (#43 item 10).
    assert_eq!(outs[0].status.code(), Some(1));
    let v: Value = serde_json::from_slice(&outs[0].stdout).unwrap();
    assert_eq!(host_names(&v), ["h0", "h1"]);
    let r = &v["results"].as_array().unwrap()[1];
    assert_eq!(r["host"], "h1", "{r}");
    let e = r["status"]["failed"]["error"].as_str().unwrap();
    assert!(
        e.starts_with("refused from host h1: tcp_throughput (B/s)"),
        "{e}"
    );
    assert!(r["samples"].as_array().unwrap().is_empty(), "{r}");
    assert!(!String::from_utf8_lossy(&outs[0].stdout).contains("forged-host"));
}

/// #33 item 2: 64 silent connections held open at join time (each re-opened within
/// half a second when rank 0 closes it, from the ranks' own address) do not lock the
/// real rank 1 out: rank 0 keeps room and closes the oldest silent ones, saying so, and
/// a rank whose connection was closed tries again. Before, the 65th connection was
/// closed and rank 1 exited with "connection closed (the rank exited or died)".
#[test]
fn a_burst_of_silent_connections_does_not_lock_a_rank_out() {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use std::sync::Arc;
    let d = tempfile::tempdir().unwrap();
    let (r0, coord, _port) = rank0(d.path(), 40);
    let stop = Arc::new(AtomicBool::new(false));
    let opened = Arc::new(AtomicUsize::new(0));
    let burst = {
        let (stop, coord, opened) = (stop.clone(), coord.clone(), opened.clone());
        std::thread::spawn(move || {
            let mut held: Vec<std::net::TcpStream> = Vec::new();
            while !stop.load(Ordering::Relaxed) {
                // Drop the connections rank 0 closed, then fill up to 64 again.
                held.retain(|s| {
                    let _ = s.set_nonblocking(true);
                    let mut b = [0u8; 256];
                    loop {
                        match std::io::Read::read(&mut &*s, &mut b) {
                            Ok(0) => return false,
                            Ok(_) => continue,
                            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => return true,
                            Err(_) => return false,
                        }
                    }
                });
                while held.len() < 64 {
                    match std::net::TcpStream::connect(&coord) {
                        Ok(s) => {
                            held.push(s);
                            opened.fetch_add(1, Ordering::Relaxed);
                        }
                        Err(_) => break,
                    }
                }
                std::thread::sleep(Duration::from_millis(
                    if opened.load(Ordering::Relaxed) < 64 {
                        50
                    } else {
                        500
                    },
                ));
            }
        })
    };
    // Rank 1 comes once the burst holds every pending slot (rank 0's start, with its
    // hardware probe, takes seconds on a loaded machine: a fixed wait raced it).
    let t = std::time::Instant::now();
    while opened.load(Ordering::Relaxed) < 64 && t.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(50));
    }
    let r1 = rank1(d.path(), &coord, SECRET);
    let outs = wait(d.path(), vec![r0, r1], Duration::from_secs(120));
    stop.store(true, Ordering::Relaxed);
    burst.join().unwrap();
    let opened = opened.load(Ordering::Relaxed);
    assert!(opened >= 64, "the burst opened {opened}");
    all_succeeded(&outs);
    let v: Value = serde_json::from_slice(&outs[0].stdout).unwrap();
    assert_eq!(host_names(&v), ["h0", "h1"]);
    let log = String::from_utf8_lossy(&outs[0].stderr);
    assert!(
        log.contains("rank 0 closed the connection from 127.0.0.1")
            && log.contains("before it proved the secret"),
        "{log}"
    );
}

/// #33 item 2: a `Refused` from whoever answered at the coordinator's address before
/// proving the secret (here an impostor that got the port first) does not end a rank:
/// it tries again, and joins the real coordinator once it listens.
#[test]
fn an_impostors_refusal_does_not_end_a_rank() {
    let d = tempfile::tempdir().unwrap();
    let (coord, _port) = coord_port();
    let impostor = std::net::TcpListener::bind(&coord).unwrap();
    let r1 = rank1(d.path(), &coord, SECRET);
    let (s, _) = impostor.accept().unwrap();
    let mut c = Conn::new(s);
    c.send(
        &Msg::Refused {
            reason: "go away".into(),
        },
        STEP,
    )
    .unwrap();
    drop(c);
    drop(impostor);
    let r0 = rank0_at(d.path(), &coord, 30, &["null"]);
    let outs = wait(d.path(), vec![r0, r1], Duration::from_secs(90));
    all_succeeded(&outs);
    let e1 = String::from_utf8_lossy(&outs[1].stderr);
    assert!(
        e1.contains("refused this rank (unauthenticated") && e1.contains("go away"),
        "{e1}"
    );
    let v: Value = serde_json::from_slice(&outs[0].stdout).unwrap();
    assert_eq!(host_names(&v), ["h0", "h1"]);
}

/// #33 item 11: in a matrix run, an authenticated rank (here the test, as rank 1) that
/// names a serving address on another host is not relayed: the link fails naming why
/// and rank 0 never connects there; one that names its own host but whose server does
/// not prove the link's token (derived from the run's secret, never sent: here a server
/// without a token, which lets anyone in) gets a failed link too.
#[test]
fn a_matrix_rank_cannot_send_the_others_elsewhere() {
    use peakbench::bench::net::server::{Server, ServerConfig};
    for case in ["other-host", "impostor"] {
        let d = tempfile::tempdir().unwrap();
        let (coord, _port) = coord_port();
        let args = ["net", "--matrix", "--time", "300ms", "--repeat", "1"];
        let r0 = rank0_at(d.path(), &coord, 30, &args);
        // Where the lie points: a listener on 127.0.0.2 (not the address rank 1's
        // connection comes from), or a server on 127.0.0.1 with a token of its own.
        let elsewhere = std::net::TcpListener::bind("127.0.0.2:0").unwrap();
        elsewhere.set_nonblocking(true).unwrap();
        // A server that lets anyone in and proves nothing (it knows no secret).
        let mut cfg = ServerConfig::new(serde_json::json!({"hostname": "impostor"}), vec![]);
        cfg.token = None;
        let srv = Server::bind("127.0.0.1:0".parse().unwrap(), cfg).unwrap();
        let srv_addr = srv.local_addr().unwrap();
        let stopper = srv.stopper();
        let srv_thread = std::thread::spawn(move || srv.serve());
        let lie = match case {
            "other-host" => elsewhere.local_addr().unwrap().to_string(),
            _ => srv_addr.to_string(),
        };
        let mut c = Conn::new(reach(&coord));
        let n = challenge(&mut c);
        c.send(&join_msg(SECRET, &n, 1), STEP).unwrap();
        assert!(matches!(c.recv(STEP).unwrap(), Msg::Welcome { .. }));
        let info = serde_json::to_value(peakbench::hw::HostInfo::detect(false)).unwrap();
        let hello = serde_json::json!({"msg": "hello", "host": "h1", "info": info});
        c.send(&serde_json::from_value(hello).unwrap(), STEP)
            .unwrap();
        assert!(matches!(c.recv(STEP).unwrap(), Msg::Go { runner: true }));
        let long = Duration::from_secs(60);
        loop {
            match c.recv(long) {
                Ok(Msg::Serve { .. }) => c.send(&Msg::Serving { addr: lie.clone() }, STEP).unwrap(),
                Ok(Msg::Measure { .. }) => c.send(&Msg::Pair { results: vec![] }, STEP).unwrap(),
                Ok(Msg::Stop {}) => c.send(&Msg::Stopped {}, STEP).unwrap(),
                Ok(Msg::Bye {}) | Err(_) => break,
                Ok(m) => panic!("{case}: unexpected {m:?}"),
            }
        }
        let outs = wait(d.path(), vec![r0], Duration::from_secs(90));
        stopper.store(true, std::sync::atomic::Ordering::Relaxed);
        let _ = srv_thread.join();
        assert!(
            elsewhere.accept().is_err(),
            "{case}: rank 0 connected to the address the rank named"
        );
        let v: Value = serde_json::from_slice(&outs[0].stdout).unwrap();
        // #43 item 10: every link this launch reports failed, and so does rank 0 (it
        // exited 0, so a CI step or a cron `&&` chain saw success).
        let all = v["results"].as_array().unwrap();
        assert!(
            all.iter().all(|r| r["status"]["failed"].is_object()),
            "{v:#}"
        );
        assert_eq!(
            outs[0].status.code(),
            Some(1),
            "{case}: failed links exit 1"
        );
        let to_h1: Vec<&Value> = v["results"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["params"]["to"] == "h1")
            .collect();
        assert!(!to_h1.is_empty(), "{case}: {v:#}");
        let want = match case {
            "other-host" => "not on the address 127.0.0.1 it connected from",
            _ => "did not prove the token",
        };
        let mut proved = 0;
        for r in to_h1 {
            let e = r["status"]["failed"]["error"].as_str().unwrap_or_else(|| {
                panic!("{case}: the link to h1 was measured: {r:#}");
            });
            // The impostor (a plain server, one test at a time) may still hold its busy
            // slot from the previous refused attempt when the next link reaches it on a
            // loaded machine: refused before any test too.
            let busy = case == "impostor" && e.contains("server busy");
            assert!(e.contains(want) || busy, "{case}: {e}");
            proved += usize::from(e.contains(want));
        }
        assert!(proved > 0, "{case}: no link said {want:?}: {v:#}");
    }
}

// ---- Regressions of the hardening rounds and the loose ends (#16, #26, #27, #33). ----

/// #33 item 15: a secret file others may read is used, with a warning as ssh gives.
#[test]
fn issue_33_a_token_file_open_to_others_is_warned_about() {
    use std::os::unix::fs::PermissionsExt;
    let d = tempfile::tempdir().unwrap();
    let tok = d.path().join("token");
    std::fs::write(&tok, "s3cret\n").unwrap();
    let run = |mode: u32| {
        std::fs::set_permissions(&tok, std::fs::Permissions::from_mode(mode)).unwrap();
        // A rank whose coordinator never answers: it gives up after the 1 s join
        // deadline, having read the secret first.
        let child = common::pb_std()
            .args(["null", "--quiet", "--output"])
            .arg(d.path())
            .env("PEAKBENCH_RANK", "1")
            .env("PEAKBENCH_SIZE", "2")
            .env("PEAKBENCH_COORD", "127.0.0.1:9")
            .env("PEAKBENCH_BIND", "127.0.0.1")
            .env("PEAKBENCH_JOIN_TIMEOUT", "1")
            .env_remove("PEAKBENCH_TOKEN")
            .env("PEAKBENCH_TOKEN_FILE", &tok)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let o = common::finish(child, Duration::from_secs(30), "token file");
        String::from_utf8_lossy(&o.stderr).to_string()
    };
    let err = run(0o644);
    assert!(
        err.contains("warning: $PEAKBENCH_TOKEN_FILE")
            && err.contains("is open to other users (mode 0644)")
            && err.contains("chmod 600"),
        "{err}"
    );
    let err = run(0o600);
    assert!(!err.contains("warning"), "{err}");
}
