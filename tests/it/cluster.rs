//! Cluster runs on this one machine, launched by hand with the environment a launcher
//! would give (`PEAKBENCH_RANK`, `PEAKBENCH_SIZE`, `PEAKBENCH_COORD`), each rank a host
//! of its own (`PEAKBENCH_HOST_ID`) on its own loopback address (127.0.0.1/.2/.3, the
//! only addresses used): the gathered suite with 3 hosts, the 3 × 3 network matrix with
//! all 6 ordered links, and a rank that never comes (a partial report naming it, within
//! the join deadline, never a hang). CI runs the same through `mpirun` with the `mpi`
//! feature. Nothing here checks speed.

use crate::common;

use serde_json::Value;
use std::path::Path;
use std::process::{Child, Command};
use std::time::{Duration, Instant};

/// A coordinator address on 127.0.0.1 whose port stays held for rank 0 while the
/// returned hold lives (keep it until the launch ends): between picking a port and rank
/// 0's bind, seconds later, no other test may take it (see [`common::PortHold`]).
pub fn coord_port() -> (String, common::PortHold) {
    let hold = common::PortHold::new();
    (hold.addr(), hold)
}

/// What a launcher gives one rank: its number, the launch's size and coordinator, the
/// host it stands for and the loopback address it binds, and the join deadline (the
/// default when `None`).
pub struct Rank<'a> {
    pub rank: usize,
    pub size: usize,
    pub coord: &'a str,
    pub host: String,
    pub bind: String,
    pub join_s: Option<u64>,
    /// The run's secret this rank was given.
    pub token: &'a str,
}

/// The secret every rank of these launches shares (`$PEAKBENCH_TOKEN`).
pub const SECRET: &str = "cluster-test-secret";

/// Starts one rank running `args`, its stdout and stderr in files under `out`.
pub fn spawn(out: &Path, args: &[&str], r: Rank) -> Child {
    let mut c = common::pb_std();
    c.args(args)
        .args(["--quiet", "--format", "json", "--output"])
        .arg(out)
        .env("PEAKBENCH_RANK", r.rank.to_string())
        .env("PEAKBENCH_SIZE", r.size.to_string())
        .env("PEAKBENCH_COORD", r.coord)
        .env("PEAKBENCH_HOST_ID", r.host)
        .env("PEAKBENCH_BIND", r.bind)
        .env("PEAKBENCH_TOKEN", r.token);
    if let Some(s) = r.join_s {
        c.env("PEAKBENCH_JOIN_TIMEOUT", s.to_string());
    }
    // Files, not pipes: nobody reads a pipe while the ranks run, and a report larger
    // than the pipe's buffer would block rank 0.
    c.stdout(std::fs::File::create(out.join(format!("stdout{}", r.rank))).unwrap())
        .stderr(std::fs::File::create(out.join(format!("stderr{}", r.rank))).unwrap())
        .spawn()
        .unwrap()
}

/// Starts `ranks` of a launch of `size` ranks running `args`, each rank `r` the host
/// `h{r}` on 127.0.0.{r+1}; with the hold on the coordinator's port (keep it until the
/// ranks are waited for).
fn launch(
    out: &Path,
    size: usize,
    ranks: &[usize],
    args: &[&str],
    join_s: u64,
) -> (Vec<Child>, common::PortHold) {
    let (coord, hold) = coord_port();
    let kids = ranks
        .iter()
        .map(|&r| {
            let rank = Rank {
                rank: r,
                size,
                coord: &coord,
                host: format!("h{r}"),
                bind: format!("127.0.0.{}", r + 1),
                join_s: Some(join_s),
                token: SECRET,
            };
            spawn(out, args, rank)
        })
        .collect();
    (kids, hold)
}

/// Asserts every rank exited 0, naming the first that did not with its stderr.
pub fn all_succeeded(outs: &[std::process::Output]) {
    for (i, o) in outs.iter().enumerate() {
        common::assert_success(o, &format!("rank {i}"));
    }
}

/// The names of a gathered report's hosts, in order.
pub fn host_names(v: &Value) -> Vec<&str> {
    v["hosts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["name"].as_str().unwrap())
        .collect()
}

/// Waits for every child within `limit` (killing them after it), rank 0's output first.
pub fn wait(dir: &Path, children: Vec<Child>, limit: Duration) -> Vec<std::process::Output> {
    let end = Instant::now() + limit;
    let mut outs = Vec::new();
    for (r, mut c) in children.into_iter().enumerate() {
        while c.try_wait().unwrap().is_none() {
            if Instant::now() > end {
                let _ = c.kill();
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let status = c.wait().unwrap();
        let read = |n: &str| std::fs::read(dir.join(format!("{n}{r}"))).unwrap_or_default();
        outs.push(std::process::Output {
            status,
            stdout: read("stdout"),
            stderr: read("stderr"),
        });
    }
    assert!(
        Instant::now() <= end,
        "the ranks did not finish within {limit:?}"
    );
    outs
}

fn gathered(dir: &Path, ext: &str) -> std::path::PathBuf {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| {
            p.extension().is_some_and(|e| e == ext)
                && p.file_name()
                    .unwrap()
                    .to_string_lossy()
                    .starts_with("cluster-")
        })
        .unwrap_or_else(|| panic!("no cluster-*.{ext} in {}", dir.display()))
}

/// The hold the launches use: no bind to port 0 nor connection gets the held port
/// (another test's server or client cannot take rank 0's port), yet a server binding it
/// by number listens there and is reached.
#[test]
fn a_held_port_goes_to_no_other_socket_but_a_server_may_listen_on_it() {
    let hold = common::PortHold::new();
    let other = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    for _ in 0..1000 {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        assert_ne!(l.local_addr().unwrap().port(), hold.port());
        let c = std::net::TcpStream::connect(other.local_addr().unwrap()).unwrap();
        assert_ne!(c.local_addr().unwrap().port(), hold.port());
        drop(other.accept().unwrap());
    }
    let server = std::net::TcpListener::bind(hold.addr()).unwrap();
    let c = std::net::TcpStream::connect(hold.addr()).unwrap();
    let (s, _) = server.accept().unwrap();
    assert_eq!(s.peer_addr().unwrap(), c.local_addr().unwrap());
}

#[test]
fn three_ranks_gather_one_report_with_three_hosts() {
    let d = tempfile::tempdir().unwrap();
    let (kids, _port) = launch(d.path(), 3, &[0, 1, 2], &["null", "--threads", "1"], 30);
    let outs = wait(d.path(), kids, Duration::from_secs(120));
    all_succeeded(&outs);
    let v: Value = serde_json::from_slice(&outs[0].stdout).unwrap();
    assert_eq!(host_names(&v), ["h0", "h1", "h2"]);
    let tags: Vec<&str> = v["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["host"].as_str().unwrap())
        .collect();
    assert_eq!(tags, ["h0", "h1", "h2"]);
    assert!(outs[1].stdout.is_empty(), "only rank 0 reports");
    let file = gathered(d.path(), "json");
    let back: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    assert_eq!(back["hosts"].as_array().unwrap().len(), 3);
    // The gathered file is a fleet input like any other.
    let fleet = common::pb_std()
        .args(["fleet", "--format", "json"])
        .arg(&file)
        .output()
        .unwrap();
    common::assert_success(&fleet, "fleet");
    let f: Value = serde_json::from_slice(&fleet.stdout).unwrap();
    assert_eq!(f["workloads"][0]["n"], 3);
    assert!(gathered(d.path(), "html").exists());
}

/// Starts ranks `0..hosts.len()` of one launch, rank `r` naming the host `hosts[r]`
/// (all on 127.0.0.1), each running `args`; with the hold on the coordinator's port.
fn launch_named(
    out: &Path,
    hosts: &[&str],
    args: &[&str],
    join_s: u64,
) -> (Vec<Child>, common::PortHold) {
    let (coord, hold) = coord_port();
    let kids = (0..hosts.len())
        .map(|r| {
            let rank = Rank {
                rank: r,
                size: hosts.len(),
                coord: &coord,
                host: hosts[r].into(),
                bind: "127.0.0.1".into(),
                join_s: Some(join_s),
                token: SECRET,
            };
            spawn(out, args, rank)
        })
        .collect();
    (kids, hold)
}

#[test]
fn ranks_on_one_host_share_one_runner() {
    let d = tempfile::tempdir().unwrap();
    let (kids, _port) = launch_named(d.path(), &["a", "a", "b"], &["null"], 30);
    let outs = wait(d.path(), kids, Duration::from_secs(60));
    all_succeeded(&outs);
    let v: Value = serde_json::from_slice(&outs[0].stdout).unwrap();
    assert_eq!(host_names(&v), ["a", "b"]);
    assert_eq!(v["hosts"][0]["ranks"], serde_json::json!([0, 1]));
    assert_eq!(
        v["results"].as_array().unwrap().len(),
        2,
        "one runner a host"
    );
}

/// Issue #33 item 15: `a` and `a ` named two hosts, so one machine ran the suite twice.
#[test]
fn host_ids_differing_in_white_space_name_one_host() {
    let d = tempfile::tempdir().unwrap();
    let (kids, _port) = launch_named(d.path(), &["a", "a ", " b"], &["null"], 30);
    let outs = wait(d.path(), kids, Duration::from_secs(60));
    all_succeeded(&outs);
    let v: Value = serde_json::from_slice(&outs[0].stdout).unwrap();
    assert_eq!(host_names(&v), ["a", "b"]);
    assert_eq!(v["hosts"][0]["ranks"], serde_json::json!([0, 1]));
}

/// Issue #24: `mpirun -np 3` on one machine without `PEAKBENCH_HOST_ID` used to write a
/// report of one host (or, for the matrix, of no link) and exit 0. Every rank now says
/// why and how to fix it, exit 2, and no report is written.
#[test]
fn a_launch_on_one_host_is_refused_with_the_fix() {
    for args in [&["null"][..], &["net", "--matrix", "--time", "200ms"][..]] {
        let d = tempfile::tempdir().unwrap();
        let (kids, _port) = launch_named(d.path(), &["same", "same", "same"], args, 30);
        let outs = wait(d.path(), kids, Duration::from_secs(60));
        for (r, o) in outs.iter().enumerate() {
            let e = String::from_utf8_lossy(&o.stderr);
            assert_eq!(o.status.code(), Some(2), "{args:?} rank {r}: {e}");
            assert!(
                e.contains("all 3 ranks of this launch name one host ('same')")
                    && e.contains("PEAKBENCH_HOST_ID"),
                "{args:?} rank {r}: {e}"
            );
        }
        let files: Vec<_> = std::fs::read_dir(d.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with("cluster-"))
            .collect();
        assert!(files.is_empty(), "{args:?}: {files:?}");
    }
}

/// Issue #24: `linalg` was missing from the measuring commands, so under a launch every
/// rank ran on its own. It is gathered like every other measuring command.
#[test]
fn linalg_is_gathered_from_every_host() {
    let d = tempfile::tempdir().unwrap();
    let args = [
        "linalg",
        "--routine",
        "gemm",
        "--n",
        "64",
        "--threads",
        "1",
        "--repeat",
        "2",
        "--min-time",
        "10ms",
    ];
    let (kids, _port) = launch(d.path(), 2, &[0, 1], &args, 30);
    let outs = wait(d.path(), kids, Duration::from_secs(120));
    all_succeeded(&outs);
    let v: Value = serde_json::from_slice(&outs[0].stdout).unwrap();
    assert_eq!(host_names(&v), ["h0", "h1"]);
    let mut tags: Vec<&str> = v["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            assert_eq!(r["resource"], "linalg", "{r}");
            r["host"].as_str().unwrap()
        })
        .collect();
    tags.dedup();
    assert_eq!(tags, ["h0", "h1"]);
    assert!(outs[1].stdout.is_empty(), "only rank 0 reports");
}

#[test]
fn the_matrix_measures_all_six_links_of_three_hosts() {
    let d = tempfile::tempdir().unwrap();
    let args = ["net", "--matrix", "--time", "400ms", "--repeat", "2"];
    let (kids, _port) = launch(d.path(), 3, &[0, 1, 2], &args, 30);
    let outs = wait(d.path(), kids, Duration::from_secs(180));
    all_succeeded(&outs);
    let v: Value = serde_json::from_slice(&outs[0].stdout).unwrap();
    let rs = v["results"].as_array().unwrap();
    let mut links: Vec<(String, String, String)> = rs
        .iter()
        .map(|r| {
            assert_eq!(r["status"], "ok", "{r}");
            (
                r["workload"].as_str().unwrap().to_string(),
                r["params"]["from"].as_str().unwrap().to_string(),
                r["params"]["to"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    links.sort();
    links.dedup();
    assert_eq!(links.len(), 12, "{links:?}");
    for w in ["throughput", "latency"] {
        let n = links
            .iter()
            .filter(|l| l.0.contains(w) && l.1 != l.2)
            .count();
        assert_eq!(n, 6, "{w}: {links:?}");
    }
    // Each link's server listened on the receiver's own loopback address.
    for r in rs {
        let to = r["params"]["to"].as_str().unwrap();
        let ip = format!("127.0.0.{}:", to[1..].parse::<u32>().unwrap() + 1);
        assert!(
            r["params"]["server"].as_str().unwrap().starts_with(&ip),
            "{r}"
        );
    }
    let html = std::fs::read_to_string(gathered(d.path(), "html")).unwrap();
    assert!(html.contains("from \\ to") && html.contains("h2"));
}

#[test]
fn a_rank_that_never_comes_gives_a_partial_report_naming_it() {
    let d = tempfile::tempdir().unwrap();
    let t0 = Instant::now();
    let (kids, _port) = launch(d.path(), 3, &[0, 1], &["null"], 3);
    let outs = wait(d.path(), kids, Duration::from_secs(60));
    assert!(t0.elapsed() < Duration::from_secs(50));
    assert_eq!(outs[0].status.code(), Some(1), "a lost host is a failure");
    assert!(outs[1].status.success());
    let v: Value = serde_json::from_slice(&outs[0].stdout).unwrap();
    let hosts = v["hosts"].as_array().unwrap();
    assert_eq!(hosts.len(), 3);
    let lost = hosts.iter().find(|h| h["name"] == "rank2").unwrap();
    let e = lost["status"]["failed"]["error"].as_str().unwrap();
    assert!(e.contains("rank 2 did not join within 3 s"), "{e}");
    assert_eq!(v["results"].as_array().unwrap().len(), 2);
}

#[test]
fn matrix_without_a_launch_is_a_usage_error() {
    let out = common::pb_std()
        .args(["net", "--matrix"])
        .env_remove("PEAKBENCH_RANK")
        .env_remove("OMPI_COMM_WORLD_SIZE")
        .env_remove("PMIX_RANK")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let e = String::from_utf8(out.stderr).unwrap();
    assert!(
        e.starts_with("error: --matrix: needs a cluster launch"),
        "{e}"
    );
}

/// The same through `mpirun` (CI sets `PEAKBENCH_MPI_BIN` to a build with
/// `--features mpi`; run with `--ignored`): three ranks on this machine, each its own
/// host on its own loopback address, give the gathered suite with 3 hosts and the 3 × 3
/// matrix with all 6 ordered links.
#[test]
#[ignore = "needs: mpirun and a build with --features mpi (PEAKBENCH_MPI_BIN)"]
fn mpirun_three_ranks_matrix_and_gathered_suite() {
    let Some(bin) = std::env::var_os("PEAKBENCH_MPI_BIN") else {
        eprintln!("skipped: PEAKBENCH_MPI_BIN is not set");
        return;
    };
    for (args, check) in [
        ("null", 3usize),
        ("net --matrix --time 400ms --repeat 2", 12usize),
    ] {
        let d = tempfile::tempdir().unwrap();
        let script = format!(
            "PEAKBENCH_HOST_ID=h$OMPI_COMM_WORLD_RANK PEAKBENCH_BIND=127.0.0.$((OMPI_COMM_WORLD_RANK+1)) exec {} {args} --quiet --format json --output {}",
            bin.to_string_lossy(),
            d.path().display()
        );
        let out = Command::new("timeout")
            .args([
                "300",
                "mpirun",
                "--allow-run-as-root",
                "--oversubscribe",
                "-np",
                "3",
                "sh",
                "-c",
            ])
            .arg(&script)
            .output()
            .unwrap();
        let v: Value = common::success_json(&out, args);
        assert_eq!(host_names(&v), ["h0", "h1", "h2"], "{args}");
        let rs = v["results"].as_array().unwrap();
        assert_eq!(rs.len(), check, "{args}");
        assert!(rs.iter().all(|r| r["status"] == "ok"), "{args}: {rs:?}");
        if check == 12 {
            let mut pairs: Vec<(&str, &str)> = rs
                .iter()
                .map(|r| {
                    (
                        r["params"]["from"].as_str().unwrap(),
                        r["params"]["to"].as_str().unwrap(),
                    )
                })
                .collect();
            pairs.sort();
            pairs.dedup();
            assert_eq!(pairs.len(), 6, "{pairs:?}");
        }
    }
}
