//! Two hosts on one machine: two network namespaces joined by a veth pair, `peakbench
//! serve --once` in one, `peakbench net --server` in the other; both ends' byte counts
//! must agree. Needs root and `ip`; skipped with a printed reason otherwise. The
//! namespaces are always removed (on drop, also after a failed assertion), and every
//! command is bounded in time. Only addresses inside these namespaces are used.

use crate::common;

use common::ip;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::Duration;

/// Two namespaces and their veth pair; removed on drop.
struct Netns {
    a: String,
    b: String,
}

impl Netns {
    fn create() -> Result<Netns, String> {
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } != 0 {
            return Err("not root (network namespaces need CAP_SYS_ADMIN)".into());
        }
        let id = std::process::id();
        let ns = Netns {
            a: format!("pbnet-a-{id}"),
            b: format!("pbnet-b-{id}"),
        };
        let (va, vb) = (format!("pbva{id}"), format!("pbvb{id}"));
        ip(&["netns", "add", &ns.a])?;
        ip(&["netns", "add", &ns.b])?;
        ip(&["link", "add", &va, "type", "veth", "peer", "name", &vb])?;
        ip(&["link", "set", &va, "netns", &ns.a])?;
        ip(&["link", "set", &vb, "netns", &ns.b])?;
        ip(&["-n", &ns.a, "addr", "add", "10.213.7.1/24", "dev", &va])?;
        ip(&["-n", &ns.b, "addr", "add", "10.213.7.2/24", "dev", &vb])?;
        for (n, v) in [(&ns.a, &va), (&ns.b, &vb)] {
            ip(&["-n", n, "link", "set", v, "up"])?;
            ip(&["-n", n, "link", "set", "lo", "up"])?;
        }
        Ok(ns)
    }
}

impl Drop for Netns {
    fn drop(&mut self) {
        // Deleting a namespace deletes its end of the veth pair, and with it the pair.
        let _ = ip(&["netns", "del", &self.a]);
        let _ = ip(&["netns", "del", &self.b]);
    }
}

#[test]
fn two_namespaces_over_veth() {
    let ns = match Netns::create() {
        Ok(ns) => ns,
        Err(why) => {
            eprintln!("skipped two_namespaces_over_veth: {why}");
            return;
        }
    };
    let bin = common::bin();
    let mut server = common::clean_env(&mut Command::new("ip"))
        .args(["netns", "exec", &ns.a])
        .arg(&bin)
        .args([
            "serve",
            "--bind",
            "10.213.7.1:5211",
            "--once",
            "--token",
            "ns",
        ])
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(server.stderr.as_mut().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert!(line.contains("listening on 10.213.7.1:5211"), "{line}");
    let dir = tempfile::tempdir().unwrap();
    let mut client = Command::new("ip");
    common::clean_env(&mut client);
    let out = assert_cmd::Command::from_std(client)
        .args(["netns", "exec", &ns.b])
        .arg(&bin)
        .args([
            "net",
            "--server",
            "10.213.7.1",
            "--token",
            "ns",
            "--proto",
            "tcp,udp",
            "--test",
            "throughput,latency",
            "--time",
            "300ms",
            "--repeat",
            "2",
            "--format",
            "json",
            "--quiet",
            "--output",
        ])
        .arg(dir.path())
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    // --once: the server ends by itself after the client's run (one session).
    let mut exited = None;
    for _ in 0..100 {
        if let Some(st) = server.try_wait().unwrap() {
            exited = Some(st);
            break;
        }
        std::thread::sleep(Duration::from_millis(30));
    }
    let _ = server.kill();
    let _ = server.wait();
    let v: serde_json::Value = common::success_json(&out, "net against the server");
    let results = v["results"].as_array().unwrap();
    assert_eq!(results.len(), 4);
    let sum = |end: &serde_json::Value, f: &str| -> u64 {
        end["report"]["streams"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s[f].as_u64().unwrap())
            .sum()
    };
    for r in results {
        assert_eq!(r["status"], "ok", "{r}");
        let (l, s) = (&r["ends"]["local"], &r["ends"]["remote"]);
        assert!(l["address"].as_str().unwrap().starts_with("10.213.7.2:"));
        if r["params"]["test"] == "throughput" {
            if r["params"]["proto"] == "tcp" {
                assert!(sum(l, "sent_bytes") > 0);
                assert_eq!(sum(l, "sent_bytes"), sum(s, "recv_bytes"));
            } else {
                assert!(sum(s, "recv_bytes") > 0);
                assert!(sum(s, "recv_bytes") <= sum(l, "sent_bytes"));
            }
            // veth is virtual: no made-up link speed as the peak.
            let src = r["peak"]["source"].as_str().unwrap();
            assert!(src.contains("virtual"), "{src}");
        }
    }
    let exited = exited.expect("serve --once still running after the session");
    assert!(exited.success(), "serve --once: {exited}");
}
