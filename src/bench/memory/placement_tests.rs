//! Placement plans replayed on the recorded machines of tests/fixtures/numa (a
//! two-socket Xeon with SNC2, an EPYC in NPS4) and on this machine: which CPUs the
//! threads get, which policy the memory gets, what is refused, and the matrix's shape.

use super::*;
use crate::bench::common::{self, args_from, CommonArgs};
use crate::bench::resource::{Context, Plan};
use crate::hw::topology::{read_topology, Topology};

fn recorded(name: &str) -> Topology {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/numa");
    read_topology(&root.join(name)).unwrap()
}

/// The fixture host with a recorded machine's topology and all its CPUs allowed.
fn host(name: &str) -> HostInfo {
    let mut h = crate::report::samples::host();
    let t = recorded(name);
    h.cpu.pin_order = (0..32).collect();
    h.cpu.cores = 16;
    h.cpu.threads = 32;
    h.cpu.sockets = t.sockets.len();
    h.topology = Some(t);
    h
}

fn opts(argv: &[&str]) -> MemoryOptions {
    super::super::options::parse(&args_from::<MemoryOptions>(argv)).unwrap()
}

/// The case labels of a plan, or its one-line refusal.
fn labels(h: &HostInfo, argv: &[&str]) -> Result<Vec<String>, String> {
    let o = opts(argv);
    let c = common::parse(&CommonArgs::default(), false).unwrap();
    let ctx = Context { host: h, opts: &c };
    super::super::MemoryBench
        .plan(&o, &ctx)
        .map(|cs| cs.iter().map(|c| c.label()).collect())
        .map_err(|e| e.0)
}

#[test]
fn cpu_and_memory_nodes_are_placed_separately_on_the_xeon() {
    let h = host("xeon-2s-snc2");
    let ps = plan(
        &opts(&["--cpu-node", "1", "--mem-node", "2"]),
        &h,
        &h.cpu.pin_order,
    )
    .unwrap();
    assert_eq!(ps.len(), 1);
    let p = &ps[0];
    assert_eq!((p.cpu_node, p.cores), (Some(1), 4));
    assert_eq!(p.cpus_for(4).unwrap(), [4, 5, 6, 7]);
    assert_eq!(p.cpus_for(6).unwrap(), [4, 5, 6, 7, 20, 21]);
    assert_eq!(p.mem_node, Some((MemNode::Node(2), MemPlace::Node(2))));
    assert_eq!(p.label(), " cpu-node=1 mem-node=2");
    let r = p.params(BenchResult::new(
        crate::report::model::ResourceName::Memory,
        "read",
        crate::report::model::Metric::Throughput,
        crate::report::model::Unit::BytePerSec,
    ));
    assert_eq!(
        (r.param_u64("cpu_node"), r.param_u64("mem_node")),
        (Some(1), Some(2))
    );
    // Without --threads a node's run goes 1, 2, 4 threads: up to its cores.
    let ls = labels(
        &h,
        &[
            "--kernel",
            "read",
            "--size",
            "64MiB",
            "--cpu-node",
            "1",
            "--mem-node",
            "interleave",
        ],
    )
    .unwrap();
    assert_eq!(ls.len(), 3, "{ls:?}");
    for (l, t) in ls.iter().zip([1, 2, 4]) {
        assert!(
            l.ends_with(&format!(" threads={t} cpu-node=1 mem-node=interleave")),
            "{l}"
        );
    }
    let ps = plan(&opts(&["--mem-node", "interleave"]), &h, &h.cpu.pin_order).unwrap();
    assert_eq!(
        ps[0].mem_node.as_ref().unwrap().1,
        MemPlace::Interleave(vec![0, 1, 2, 3])
    );
    assert_eq!(
        ps[0].cpus_for(2),
        None,
        "no --cpu-node: the host's pinning order"
    );
}

#[test]
fn nodes_that_do_not_fit_are_one_line_each() {
    let h = host("xeon-2s-snc2");
    for (argv, line) in [
        (
            &["--cpu-node", "4"][..],
            "--cpu-node: node 4 does not exist; use a node with CPUs: 0-3",
        ),
        (
            &["--mem-node", "7"],
            "--mem-node: node 7 does not exist; use a node with memory (0-3) or interleave",
        ),
        (
            &["--cpu-node", "0", "--threads", "9"],
            "--threads: 9 threads do not fit the 8 CPUs of node 0; use at most 8",
        ),
    ] {
        assert_eq!(labels(&h, argv).unwrap_err(), line, "{argv:?}");
    }
    // More than the node's memory, though the machine has room.
    let mut big = host("xeon-2s-snc2");
    big.memory.available_bytes = 180 << 30;
    let e = labels(
        &big,
        &[
            "--mem-node",
            "1",
            "--size",
            "64GiB",
            "--threads",
            "1",
            "--kernel",
            "read",
        ],
    )
    .unwrap_err();
    assert!(e.starts_with("--size: the working set needs 64"), "{e}");
    assert!(
        e.ends_with(" but node 1 has 48 GiB of memory in all; use a smaller --size"),
        "{e}"
    );
    assert!(labels(
        &big,
        &[
            "--mem-node",
            "interleave",
            "--size",
            "64GiB",
            "--threads",
            "1",
            "--kernel",
            "read"
        ]
    )
    .is_ok());
    // A process confined to socket 0 has no CPU on node 2.
    let mut h = host("xeon-2s-snc2");
    h.cpu.pin_order = vec![0, 1, 2, 3, 4, 5, 6, 7];
    assert_eq!(
        labels(&h, &["--cpu-node", "2"]).unwrap_err(),
        "--cpu-node: node 2 has no CPUs this process may use; use a node with CPUs: 0-1"
    );
    // A machine without any topology in /sys.
    let mut h = host("xeon-2s-snc2");
    h.topology = None;
    assert_eq!(
        labels(&h, &["--matrix"]).unwrap_err(),
        "--matrix: this machine shows no CPU topology (/sys/devices/system); run without it"
    );
}

#[test]
fn the_matrix_is_every_cpu_node_with_every_memory_node() {
    for name in ["xeon-2s-snc2", "epyc-nps4"] {
        let h = host(name);
        let ls = labels(&h, &["--matrix", "--size", "64MiB"]).unwrap();
        // 4 CPU nodes x 4 memory nodes x (read on the node's cores, chase on one).
        assert_eq!(ls.len(), 32, "{name}: {ls:?}");
        assert!(
            ls[0].ends_with("threads=4 cpu-node=0 mem-node=0"),
            "{}",
            ls[0]
        );
        assert_eq!(
            ls[1],
            "memory chase size=64MiB threads=1 cpu-node=0 mem-node=0"
        );
        assert!(ls[7].ends_with("cpu-node=0 mem-node=3"), "{}", ls[7]);
        assert!(ls[31].ends_with("cpu-node=3 mem-node=3"), "{}", ls[31]);
        let ps = plan(&opts(&["--matrix"]), &h, &h.cpu.pin_order).unwrap();
        assert_eq!(ps.len(), 16);
    }
    // EPYC NPS4: node 2 is CCD 2, whose first threads are 8-11.
    let h = host("epyc-nps4");
    let ps = plan(&opts(&["--matrix"]), &h, &h.cpu.pin_order).unwrap();
    assert_eq!(ps[9].cpu_node, Some(2));
    assert_eq!(ps[9].cpus, [8, 9, 10, 11, 24, 25, 26, 27]);
    assert_eq!(ps[9].mem_node.as_ref().unwrap().1, MemPlace::Node(1));
}

/// This machine: a 1 x 1 matrix on one node, n x m on more.
#[test]
fn the_matrix_of_this_machine_has_a_row_per_node() {
    let mut h = crate::report::samples::host();
    h.cpu.pin_order = crate::hw::cpu::allowed_cpus();
    h.topology = crate::hw::topology::detect();
    let Some(t) = h.topology.clone() else {
        eprintln!("skipped: no topology in /sys");
        return;
    };
    let cpu_nodes = t
        .nodes
        .iter()
        .filter(|n| n.cpus.iter().any(|c| h.cpu.pin_order.contains(c)))
        .count();
    let mem_nodes = t.nodes.iter().filter(|n| n.mem_bytes > 0).count();
    let ps = plan(&opts(&["--matrix"]), &h, &h.cpu.pin_order).unwrap();
    assert_eq!(ps.len(), cpu_nodes * mem_nodes);
}

/// #47: with a recorded DIMM table, `--mem-node N` gets node N's share of its socket's
/// DIMMs as the DRAM peak (3 of the Xeon's 6 DDR4-2666 channels a socket in SNC2).
#[test]
fn a_memory_node_gets_its_share_of_the_dimms() {
    let mut h = host("xeon-2s-snc2");
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/numa/xeon-2s-snc2/dmidecode-t17.txt");
    h.memory.dimms = crate::hw::memory::parse_dmidecode(&std::fs::read_to_string(root).unwrap());
    let ps = plan(&opts(&["--mem-node", "2"]), &h, &h.cpu.pin_order).unwrap();
    let p = ps[0].node_peak(&h).unwrap();
    assert_eq!(p.value, Some(3.0 * 2666e6 * 8.0));
    assert!(
        p.source.starts_with("memory node 2: socket 1: 6 DIMMs"),
        "{}",
        p.source
    );
    // Interleaved or unplaced memory keeps the machine's peak; so does a table that
    // cannot be split.
    let ps = plan(&opts(&["--mem-node", "interleave"]), &h, &h.cpu.pin_order).unwrap();
    assert_eq!(ps[0].node_peak(&h), None);
    h.memory
        .dimms
        .iter_mut()
        .for_each(|d| d.locator = "A1".into());
    let ps = plan(&opts(&["--mem-node", "2"]), &h, &h.cpu.pin_order).unwrap();
    assert_eq!(ps[0].node_peak(&h), None);
}

/// #47: the loaded-latency plan on a recorded node: the chase on the node's first CPU,
/// the idle point first, then every delay (largest first) with the node's other CPUs
/// loading; more loaders than the node has spare CPUs is refused.
#[test]
fn the_loaded_latency_plan_runs_on_the_chosen_node() {
    let h = host("xeon-2s-snc2");
    let ls = labels(
        &h,
        &[
            "--loaded-latency",
            "0,100",
            "--cpu-node",
            "1",
            "--size",
            "64MiB",
        ],
    )
    .unwrap();
    assert_eq!(
        ls,
        [
            "memory loaded-latency idle size=64MiB cpu-node=1",
            "memory loaded-latency load=read loaders=7 delay=100 size=64MiB cpu-node=1",
            "memory loaded-latency load=read loaders=7 delay=0 size=64MiB cpu-node=1",
        ]
    );
    let ls = labels(
        &h,
        &[
            "--loaded-latency",
            "5",
            "--threads",
            "1,31",
            "--kernel",
            "copy",
            "--size",
            "8MiB",
        ],
    )
    .unwrap();
    assert_eq!(ls.len(), 3);
    assert!(ls[2].contains("load=copy loaders=31 delay=5"), "{ls:?}");
    let e = labels(
        &h,
        &["--loaded-latency", "--cpu-node", "0", "--threads", "8"],
    )
    .unwrap_err();
    assert_eq!(e, "--threads: 8 loaders need 9 CPUs (one runs the chase) but 8 are usable here (0-3,16-19); use --threads up to 7");
}
