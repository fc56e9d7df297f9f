//! A cluster of three real hosts on one machine: three network namespaces joined by veth
//! pairs on a bridge, each rank in its own namespace with its own hostname (a UTS
//! namespace, so no `PEAKBENCH_HOST_ID`), so the matrix crosses real interfaces. While
//! rank 0 waits for the others, an attacker in the third namespace tries a peer that
//! skips the handshake, a guessed proof, a replayed proof and an oversized pre-auth
//! frame; each is refused and logged, and the real ranks then complete all 6 links.
//! Needs root, `ip` and `unshare`; skipped with a printed reason otherwise. The
//! namespaces are always removed (on drop), and every step is bounded in time. Only
//! addresses inside these namespaces are used.

use crate::common;
use crate::common::cluster as attack;

use common::ip;

use serde_json::Value;
use std::os::fd::AsRawFd;
use std::process::{Child, Command};
use std::time::{Duration, Instant};

/// The three hosts' namespaces; removed on drop.
struct Hosts {
    ns: Vec<String>,
}

/// The hosts' addresses, host `i` at `ADDRS[i]` (rank 0's namespace holds the bridge).
const ADDRS: [&str; 3] = ["10.214.9.1", "10.214.9.2", "10.214.9.3"];
const SECRET: &str = "netns-cluster-secret";

impl Hosts {
    fn create() -> Result<Hosts, String> {
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } != 0 {
            return Err("not root (network namespaces need CAP_SYS_ADMIN)".into());
        }
        if Command::new("unshare").arg("--version").output().is_err() {
            return Err("no unshare (util-linux)".into());
        }
        let id = std::process::id();
        let hosts = Hosts {
            ns: ["a", "b", "c"]
                .iter()
                .map(|h| format!("pbcluster-{h}-{id}"))
                .collect(),
        };
        for n in &hosts.ns {
            ip(&["netns", "add", n])?;
            ip(&["-n", n, "link", "set", "lo", "up"])?;
        }
        let a = &hosts.ns[0];
        ip(&["-n", a, "link", "add", "br0", "type", "bridge"])?;
        ip(&[
            "-n",
            a,
            "addr",
            "add",
            &format!("{}/24", ADDRS[0]),
            "dev",
            "br0",
        ])?;
        ip(&["-n", a, "link", "set", "br0", "up"])?;
        for (i, addr) in ADDRS.iter().enumerate().skip(1) {
            // One veth pair per other host: one end on rank 0's bridge, one in the host.
            let (near, far) = (format!("pbclb{i}-{id}"), format!("pbclh{i}-{id}"));
            let (near, far) = (&near[..near.len().min(15)], &far[..far.len().min(15)]);
            ip(&["link", "add", near, "type", "veth", "peer", "name", far])?;
            ip(&["link", "set", near, "netns", a])?;
            ip(&["link", "set", far, "netns", &hosts.ns[i]])?;
            ip(&["-n", a, "link", "set", near, "master", "br0"])?;
            ip(&["-n", a, "link", "set", near, "up"])?;
            let addr = format!("{addr}/24");
            ip(&["-n", &hosts.ns[i], "addr", "add", &addr, "dev", far])?;
            ip(&["-n", &hosts.ns[i], "link", "set", far, "up"])?;
        }
        Ok(hosts)
    }
}

impl Drop for Hosts {
    fn drop(&mut self) {
        // Deleting a namespace deletes its veth ends, and with them the pairs.
        for n in &self.ns {
            let _ = ip(&["netns", "del", n]);
        }
    }
}

/// Rank `r` of 3 in its host's namespace, with its own hostname `host{r}`.
fn spawn(h: &Hosts, r: usize, coord: &str, out: &std::path::Path, args: &[&str]) -> Child {
    let bin = common::bin();
    common::clean_env(&mut Command::new("ip"))
        .args(["netns", "exec", &h.ns[r], "unshare", "--uts", "sh", "-c"])
        .arg("hostname \"$0\" && exec \"$@\"")
        .arg(format!("host{r}"))
        .arg(&bin)
        .args(args)
        .args(["--quiet", "--format", "json", "--output"])
        .arg(out)
        .env("PEAKBENCH_RANK", r.to_string())
        .env("PEAKBENCH_SIZE", "3")
        .env("PEAKBENCH_COORD", coord)
        .env("PEAKBENCH_BIND", ADDRS[r])
        .env("PEAKBENCH_TOKEN", SECRET)
        .env("PEAKBENCH_JOIN_TIMEOUT", "60")
        .env_remove("PEAKBENCH_HOST_ID")
        .stdout(std::fs::File::create(out.join(format!("stdout{r}"))).unwrap())
        .stderr(std::fs::File::create(out.join(format!("stderr{r}"))).unwrap())
        .spawn()
        .unwrap()
}

/// Runs `f` on a thread inside the namespace `ns` (setns applies to the calling thread).
fn in_netns<T: Send + 'static>(ns: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let file = std::fs::File::open(format!("/run/netns/{ns}")).unwrap();
    std::thread::spawn(move || {
        // SAFETY: a valid namespace fd; only this thread changes namespace.
        let rc = unsafe { libc::setns(file.as_raw_fd(), libc::CLONE_NEWNET) };
        assert_eq!(rc, 0, "setns: {}", std::io::Error::last_os_error());
        f()
    })
    .join()
    .unwrap()
}

#[test]
fn three_namespaces_matrix_with_attackers_refused() {
    let h = match Hosts::create() {
        Ok(h) => h,
        Err(why) => {
            eprintln!("skipped three_namespaces_matrix_with_attackers_refused: {why}");
            return;
        }
    };
    let d = tempfile::tempdir().unwrap();
    let coord = format!("{}:5311", ADDRS[0]);
    let args = ["net", "--matrix", "--time", "300ms", "--repeat", "2"];
    let r0 = spawn(&h, 0, &coord, d.path(), &args);
    let c = coord.clone();
    in_netns(&h.ns[2], move || attack::all(&c, SECRET));
    let mut kids = vec![r0];
    kids.extend((1..3).map(|r| spawn(&h, r, &coord, d.path(), &args)));
    let end = Instant::now() + Duration::from_secs(240);
    let mut codes = Vec::new();
    for mut k in kids {
        while k.try_wait().unwrap().is_none() && Instant::now() < end {
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = k.kill();
        codes.push(k.wait().unwrap());
    }
    let read =
        |n: String| String::from_utf8_lossy(&std::fs::read(d.path().join(n)).unwrap()).into_owned();
    for (r, c) in codes.iter().enumerate() {
        assert!(c.success(), "rank {r}: {c}: {}", read(format!("stderr{r}")));
    }
    let v: Value = serde_json::from_str(&read("stdout0".into())).unwrap();
    let names: Vec<&str> = v["hosts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["host0", "host1", "host2"]);
    let rs = v["results"].as_array().unwrap();
    let mut links = Vec::new();
    for r in rs {
        assert_eq!(r["status"], "ok", "{r}");
        let (from, to) = (
            r["params"]["from"].as_str().unwrap(),
            r["params"]["to"].as_str().unwrap(),
        );
        // The link's server listened on the receiver's own interface.
        let ip = ADDRS[to[4..].parse::<usize>().unwrap()];
        assert!(
            r["params"]["server"]
                .as_str()
                .unwrap()
                .starts_with(&format!("{ip}:")),
            "{r}"
        );
        links.push((from.to_string(), to.to_string()));
    }
    links.sort();
    links.dedup();
    assert_eq!(links.len(), 6, "{links:?}");
    let log = read("stderr0".into());
    assert_eq!(
        log.matches(&format!("refused a connection from {}", ADDRS[2]))
            .count(),
        5,
        "{log}"
    );
}
