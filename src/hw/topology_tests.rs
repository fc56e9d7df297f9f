//! Tests of `hw::topology` on the recorded sysfs trees of tests/fixtures/numa (a
//! two-socket Xeon with SNC2, an EPYC in NPS4; written by its `write.py` from public
//! descriptions) and on this machine.

use super::*;
use std::path::PathBuf;

pub(crate) fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/numa")
        .join(name)
}

/// A recorded machine's topology.
pub(crate) fn recorded(name: &str) -> Topology {
    read_topology(&fixture(name)).unwrap()
}

/// A lookup in the sysinfo lines `lines`: the text of the line named `k`.
fn line_of(lines: Vec<(String, String)>) -> impl Fn(&str) -> String {
    move |k| {
        let l = lines.iter().find(|l| l.0 == k);
        l.unwrap_or_else(|| panic!("no line {k}")).1.clone()
    }
}

#[test]
fn lists_parse_as_the_kernel_writes_them() {
    assert_eq!(
        parse_list("0-3,8,10-11\n"),
        Some(vec![0, 1, 2, 3, 8, 10, 11])
    );
    assert_eq!(parse_list(""), Some(vec![]));
    assert_eq!(parse_list("3-1"), None);
    assert_eq!(parse_list("a"), None);
    assert_eq!(cpu_list(&parse_list("0-3,16-19").unwrap()), "0-3,16-19");
}

#[test]
fn a_two_socket_xeon_with_snc2_has_four_nodes_two_per_socket() {
    let t = recorded("xeon-2s-snc2");
    assert_eq!(t.nodes.len(), 4);
    assert_eq!(t.sockets.len(), 2);
    assert_eq!(cpu_list(&t.nodes[1].cpus), "4-7,20-23");
    assert_eq!(cpu_list(&t.sockets[1].cpus), "8-15,24-31");
    assert_eq!(t.nodes[0].distances, [10, 11, 21, 21]);
    assert_eq!(t.nodes[3].distances, [21, 21, 11, 10]);
    assert_eq!(t.nodes[1].mem_bytes, 48 << 30);
    assert_eq!(t.nodes_per_socket(), Some(2));
    // SNC splits the memory, not the L3: one domain per socket.
    assert_eq!(t.l3.len(), 2);
    assert_eq!(t.l3[0].size_bytes, 25344 << 10);
    assert_eq!(cpu_list(&t.l3[1].cpus), "8-15,24-31");
    assert_eq!((t.threads_per_core, t.smt.len()), (2, 16));
    assert_eq!(t.smt[0], "0,16");
    let find = line_of(t.lines("GenuineIntel"));
    assert_eq!(
        find("numa node 2"),
        "CPUs 8-11,24-27, 48 GiB memory, socket 1, distances 21 21 10 11"
    );
    assert_eq!(
        find("numa mode"),
        "2 nodes per socket: SNC2 (sub-NUMA clustering)"
    );
    assert_eq!(find("L3 domains"), "2 x 24.75 MiB: 0-7,16-23; 8-15,24-31");
    assert!(find("SMT").starts_with("2 threads per core, siblings 0,16; 1,17"));
}

#[test]
fn an_epyc_in_nps4_has_two_ccx_per_node() {
    let t = recorded("epyc-nps4");
    assert_eq!((t.nodes.len(), t.sockets.len(), t.l3.len()), (4, 1, 8));
    assert_eq!(t.nodes[2].distances, [12, 12, 10, 12]);
    assert_eq!(cpu_list(&t.l3[3].cpus), "6-7,22-23");
    assert_eq!(t.l3[3].id, 3);
    assert_eq!(t.nodes_per_socket(), Some(4));
    let find = line_of(t.lines("AuthenticAMD"));
    assert_eq!(
        find("numa mode"),
        "4 nodes per socket: NPS4 (nodes per socket)"
    );
    let l3 = find("L3 domains");
    assert!(
        l3.starts_with(
            "8 x 16 MiB, 2 per node (CCX/CCD: cores sharing one L3): 0-1,16-17; 2-3,18-19;"
        ),
        "{l3}"
    );
}

#[test]
fn a_node_pins_one_thread_per_core_first() {
    let t = recorded("xeon-2s-snc2");
    let all: Vec<usize> = (0..32).collect();
    assert_eq!(t.node_cpus(1, &all), [4, 5, 6, 7, 20, 21, 22, 23]);
    assert_eq!(t.node_cores(1, &all), 4);
    // Only the CPUs this process may use; a sibling whose first thread is not allowed
    // counts as the core's first.
    assert_eq!(t.node_cpus(1, &[5, 20, 21]), [5, 20, 21]);
    assert_eq!(t.node_cores(1, &[5, 20, 21]), 2);
    assert!(t.node_cpus(9, &all).is_empty());
    assert_eq!(t.node_list(|n| n.mem_bytes > 0), "0-3");
}

#[test]
fn the_topology_survives_the_report() {
    let t = recorded("epyc-nps4");
    let json = serde_json::to_string(&t).unwrap();
    assert!(json.contains("\"cpus\":\"0-3,16-19\""), "{json}");
    let back: Topology = serde_json::from_str(&json).unwrap();
    assert_eq!(back, t);
}

#[test]
fn a_tree_without_nodes_is_one_node_and_no_tree_is_none() {
    let dir = std::env::temp_dir().join(format!("peakbench-topo-{}", std::process::id()));
    let cpu = dir.join("sys/devices/system/cpu/cpu0/topology");
    std::fs::create_dir_all(&cpu).unwrap();
    std::fs::write(cpu.join("physical_package_id"), "0\n").unwrap();
    let t = read_topology(&dir).unwrap();
    assert_eq!((t.nodes.len(), t.nodes[0].cpus.clone()), (1, vec![0]));
    assert_eq!((t.threads_per_core, t.l3.len()), (1, 0));
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(read_topology(&dir), None);
}

/// This machine: whatever it is, every online CPU is on exactly one node and one socket.
#[test]
fn this_machine_has_every_cpu_on_one_node() {
    let Some(t) = detect() else {
        eprintln!("skipped: no CPU topology in /sys on this machine");
        return;
    };
    let online = online_cpus(Path::new("/"));
    for c in &online {
        assert_eq!(
            t.nodes.iter().filter(|n| n.cpus.contains(c)).count(),
            1,
            "CPU {c} in {t:?}"
        );
        assert_eq!(t.sockets.iter().filter(|s| s.cpus.contains(c)).count(), 1);
    }
    assert!(t
        .nodes
        .iter()
        .all(|n| n.distances.len() == t.nodes.len() || t.nodes.len() == 1));
}

fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

/// Two sockets, two cores each, two threads per core; socket 0's cores share an L3,
/// socket 1's cores each have their own (two CCXs).
fn two_sockets(root: &Path) {
    for cpu in 0..8usize {
        let core = cpu / 2;
        let d = format!("sys/devices/system/cpu/cpu{cpu}");
        let sib = format!("{}-{}", core * 2, core * 2 + 1);
        write(root, &format!("{d}/topology/thread_siblings_list"), &sib);
        write(
            root,
            &format!("{d}/topology/physical_package_id"),
            &(cpu / 4).to_string(),
        );
        write(root, &format!("{d}/cache/index0/level"), "1\n");
        write(root, &format!("{d}/cache/index3/level"), "3\n");
        let l3 = if cpu < 4 {
            "0-3".to_string()
        } else {
            sib.clone()
        };
        write(root, &format!("{d}/cache/index3/shared_cpu_list"), &l3);
    }
}

/// How two CPUs are related (`cpu --c2c`'s grouping), from the one topology reader.
#[test]
fn relations_on_a_two_socket_tree() {
    let dir = tempfile::tempdir().unwrap();
    two_sockets(dir.path());
    let t = read_topology(dir.path()).unwrap();
    let rel = |a, b| relation(Some(&t), a, b);
    assert_eq!(rel(0, 1), Relation::SmtSibling);
    assert_eq!(rel(0, 2), Relation::SameL3);
    assert_eq!(rel(4, 6), Relation::SameSocket);
    assert_eq!(rel(1, 5), Relation::OtherSocket);
    assert_eq!(rel(1, 99), Relation::Unknown);
    // The recorded machines: SNC2 keeps one L3 per socket, NPS4 has a CCX of 2 cores.
    let x = recorded("xeon-2s-snc2");
    assert_eq!(x.relation(0, 16), Relation::SmtSibling);
    assert_eq!(x.relation(0, 7), Relation::SameL3);
    assert_eq!(x.relation(0, 8), Relation::OtherSocket);
    let e = recorded("epyc-nps4");
    assert_eq!(e.relation(0, 1), Relation::SameL3);
    assert_eq!(e.relation(0, 2), Relation::SameSocket);
}

#[test]
fn an_unreadable_tree_is_unknown() {
    let dir = tempfile::tempdir().unwrap();
    let t = read_topology(dir.path());
    assert_eq!(t, None);
    assert_eq!(relation(t.as_ref(), 0, 1), Relation::Unknown);
}
