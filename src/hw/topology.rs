//! NUMA and socket topology (issue #47): the NUMA nodes with their CPUs, memory and
//! distances (`/sys/devices/system/node/node*/{cpulist,meminfo,distance}`), the sockets
//! (`topology/physical_package_id`), the L3 domains (`cache/index*/shared_cpu_list` of
//! the level-3 cache: one per socket on most Intel parts, one per CCX on AMD Zen) and
//! the SMT sibling groups (`topology/thread_siblings_list`).
//!
//! Everything is read under a root directory (`/` on the machine, a recorded tree in
//! tests: tests/fixtures/numa), so a two-socket Xeon with sub-NUMA clustering or an EPYC
//! in NPS4 mode replays on any machine. [`Topology::node_cpus`] orders a node's CPUs
//! as the pinning does (one per physical core first, then their siblings), which is
//! what `memory --cpu-node` pins to. [`Topology::relation`] says how two CPUs are
//! related (SMT siblings, one L3, one socket, two sockets), which `cpu --c2c` groups
//! its pairs by.

use super::clock_kinds::cpu_list;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// How two CPUs are related, nearest first: a cache line bounced between two CPUs
/// costs what the nearest level they share costs (`cpu --c2c` groups pairs by it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Relation {
    /// Two hardware threads of one core.
    SmtSibling,
    /// Different cores sharing an L3 cache (a CCX, an SNC domain, a monolithic die).
    SameL3,
    /// One socket, no shared L3 (another CCX or die).
    SameSocket,
    /// Different sockets.
    OtherSocket,
    /// The topology is not readable.
    Unknown,
}

impl Relation {
    /// The name in the results (`params.relation`) and the summary.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Relation::SmtSibling => "smt-sibling",
            Relation::SameL3 => "same-l3",
            Relation::SameSocket => "same-socket",
            Relation::OtherSocket => "other-socket",
            Relation::Unknown => "unknown",
        }
    }

    /// Every relation, nearest first.
    pub(crate) const ALL: [Relation; 5] = [
        Relation::SmtSibling,
        Relation::SameL3,
        Relation::SameSocket,
        Relation::OtherSocket,
        Relation::Unknown,
    ];
}

/// The relation of CPUs `a` and `b` in `topo` (`Unknown` without a topology).
pub(crate) fn relation(topo: Option<&Topology>, a: usize, b: usize) -> Relation {
    topo.map_or(Relation::Unknown, |t| t.relation(a, b))
}

/// One NUMA node.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct Node {
    /// The node number (`nodeN`).
    pub(crate) id: u32,
    /// Its online CPUs (empty for a memory-only node: CXL, HBM in flat mode).
    #[serde(with = "list")]
    pub(crate) cpus: Vec<usize>,
    /// `MemTotal` of its `meminfo`, bytes (0 for a node without memory).
    pub(crate) mem_bytes: u64,
    /// The firmware's (SLIT) distances to every node, in the order of
    /// [`Topology::nodes`] (10 = local).
    pub(crate) distances: Vec<u32>,
}

/// A group of CPUs with a number: a socket, an L3 domain.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct Group {
    /// The socket's `physical_package_id`; an L3 domain's cache `id` (or its index in
    /// [`Topology::l3`] where the kernel gives none).
    pub(crate) id: u32,
    /// Its CPUs.
    #[serde(with = "list")]
    pub(crate) cpus: Vec<usize>,
    /// The L3 domain's cache size, bytes (0 for a socket).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub(crate) size_bytes: u64,
}

fn is_zero(v: &u64) -> bool {
    *v == 0
}

/// The machine's NUMA and socket topology, as sysfs describes it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct Topology {
    /// Online NUMA nodes, ascending.
    pub(crate) nodes: Vec<Node>,
    /// Sockets (physical packages), ascending.
    pub(crate) sockets: Vec<Group>,
    /// L3 domains: the CPUs sharing one last-level cache, ascending by first CPU.
    #[serde(default)]
    pub(crate) l3: Vec<Group>,
    /// SMT sibling groups of more than one CPU (the hardware threads of one core),
    /// each as a CPU list; empty without SMT.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) smt: Vec<String>,
    /// Hardware threads per core (1 without SMT).
    pub(crate) threads_per_core: usize,
}

/// CPU lists serialised as Linux writes them (`0-3,16-19`), so a 64-CPU node stays
/// one short string in the report.
mod list {
    use serde::{Deserialize, Deserializer, Serializer};

    pub(super) fn serialize<S: Serializer>(v: &[usize], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&super::cpu_list(v))
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<usize>, D::Error> {
        let s = String::deserialize(d)?;
        super::parse_list(&s)
            .ok_or_else(|| serde::de::Error::custom(format!("'{s}' is not a CPU list")))
    }
}

/// Parses a kernel CPU or node list (`0-3,8,10-11`; empty = none); `None` when it is
/// not one.
pub(crate) fn parse_list(s: &str) -> Option<Vec<usize>> {
    let mut out = Vec::new();
    for part in s.trim().split(',').map(str::trim).filter(|p| !p.is_empty()) {
        match part.split_once('-') {
            Some((a, b)) => {
                let (a, b): (usize, usize) = (a.parse().ok()?, b.parse().ok()?);
                if b < a || b - a > 1 << 16 {
                    return None;
                }
                out.extend(a..=b);
            }
            None => out.push(part.parse().ok()?),
        }
    }
    out.sort_unstable();
    out.dedup();
    Some(out)
}

fn read(p: &Path) -> Option<String> {
    std::fs::read_to_string(p)
        .ok()
        .map(|s| s.trim().to_string())
}

/// `Node 0 MemTotal:  21981400 kB` → bytes.
fn mem_total(meminfo: &str) -> Option<u64> {
    meminfo.lines().find_map(|l| {
        let (_, rest) = l.split_once("MemTotal:")?;
        let kb: u64 = rest.trim().trim_end_matches("kB").trim().parse().ok()?;
        Some(kb * 1024)
    })
}

/// `48K`, `2048K`, `32M` → bytes.
fn cache_size(s: &str) -> u64 {
    let (num, mult) = match s.chars().last() {
        Some('K') => (&s[..s.len() - 1], 1 << 10),
        Some('M') => (&s[..s.len() - 1], 1 << 20),
        Some('G') => (&s[..s.len() - 1], 1 << 30),
        _ => (s, 1),
    };
    num.parse::<u64>().unwrap_or(0) * mult
}

/// What one CPU's sysfs directory says.
struct CpuDir {
    cpu: usize,
    package: u32,
    siblings: Vec<usize>,
    /// The level-3 cache: (shared CPUs, size, id).
    l3: Option<(Vec<usize>, u64, Option<u32>)>,
}

fn cpu_dir(root: &Path, cpu: usize) -> Option<CpuDir> {
    let dir = root.join(format!("sys/devices/system/cpu/cpu{cpu}"));
    let topo = dir.join("topology");
    let package = read(&topo.join("physical_package_id"))?.parse().ok()?;
    let siblings = read(&topo.join("thread_siblings_list"))
        .and_then(|s| parse_list(&s))
        .filter(|v| !v.is_empty())
        .unwrap_or_else(|| vec![cpu]);
    let l3 = (0..16).find_map(|i| {
        let idx = dir.join(format!("cache/index{i}"));
        (read(&idx.join("level"))? == "3").then(|| {
            (
                read(&idx.join("shared_cpu_list"))
                    .and_then(|s| parse_list(&s))
                    .unwrap_or_else(|| vec![cpu]),
                read(&idx.join("size")).map_or(0, |s| cache_size(&s)),
                read(&idx.join("id")).and_then(|s| s.parse().ok()),
            )
        })
    });
    Some(CpuDir {
        cpu,
        package,
        siblings,
        l3,
    })
}

/// The online CPUs: `cpu/online`, else every `cpuN` directory.
fn online_cpus(root: &Path) -> Vec<usize> {
    let sys = root.join("sys/devices/system/cpu");
    if let Some(v) = read(&sys.join("online")).and_then(|s| parse_list(&s)) {
        return v;
    }
    let mut v: Vec<usize> = std::fs::read_dir(&sys)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.strip_prefix("cpu")?.parse().ok())
        .collect();
    v.sort_unstable();
    v
}

/// The NUMA node directories (`nodeN`), ascending.
fn node_ids(root: &Path) -> Vec<u32> {
    let dir = root.join("sys/devices/system/node");
    if let Some(v) = read(&dir.join("online")).and_then(|s| parse_list(&s)) {
        return v.into_iter().map(|n| n as u32).collect();
    }
    let mut v: Vec<u32> = std::fs::read_dir(&dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.strip_prefix("node")?.parse().ok())
        .collect();
    v.sort_unstable();
    v
}

/// Reads the topology under `root`; `None` when sysfs shows no CPU topology at all.
/// A kernel without NUMA (no `node` directory) is one node of every CPU.
pub(crate) fn read_topology(root: &Path) -> Option<Topology> {
    let cpus: Vec<CpuDir> = online_cpus(root)
        .into_iter()
        .filter_map(|c| cpu_dir(root, c))
        .collect();
    if cpus.is_empty() {
        return None;
    }
    let ids = node_ids(root);
    let mut nodes: Vec<Node> = ids
        .iter()
        .map(|&id| {
            let d = root.join(format!("sys/devices/system/node/node{id}"));
            Node {
                id,
                cpus: read(&d.join("cpulist"))
                    .and_then(|s| parse_list(&s))
                    .unwrap_or_default(),
                mem_bytes: read(&d.join("meminfo"))
                    .and_then(|m| mem_total(&m))
                    .unwrap_or(0),
                distances: read(&d.join("distance"))
                    .map(|s| {
                        s.split_whitespace()
                            .filter_map(|x| x.parse().ok())
                            .collect()
                    })
                    .unwrap_or_default(),
            }
        })
        .collect();
    if nodes.is_empty() {
        nodes.push(Node {
            id: 0,
            cpus: cpus.iter().map(|c| c.cpu).collect(),
            mem_bytes: 0,
            distances: vec![10],
        });
    }
    let mut sockets: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
    let mut l3: BTreeMap<Vec<usize>, (u64, Option<u32>)> = BTreeMap::new();
    let mut smt: BTreeSet<Vec<usize>> = BTreeSet::new();
    for c in &cpus {
        sockets.entry(c.package).or_default().push(c.cpu);
        if let Some((shared, size, id)) = &c.l3 {
            l3.entry(shared.clone()).or_insert((*size, *id));
        }
        if c.siblings.len() > 1 {
            smt.insert(c.siblings.clone());
        }
    }
    let mut l3: Vec<Group> = l3
        .into_iter()
        .enumerate()
        .map(|(i, (cpus, (size_bytes, id)))| Group {
            id: id.unwrap_or(i as u32),
            cpus,
            size_bytes,
        })
        .collect();
    l3.sort_by_key(|g| g.cpus.first().copied());
    let threads_per_core = cpus.iter().map(|c| c.siblings.len()).max().unwrap_or(1);
    Some(Topology {
        nodes,
        sockets: sockets
            .into_iter()
            .map(|(id, cpus)| Group {
                id,
                cpus,
                size_bytes: 0,
            })
            .collect(),
        l3,
        smt: smt.into_iter().map(|s| cpu_list(&s)).collect(),
        threads_per_core,
    })
}

/// The topology of this machine (read once per process).
pub(crate) fn detect() -> Option<Topology> {
    static T: std::sync::OnceLock<Option<Topology>> = std::sync::OnceLock::new();
    T.get_or_init(|| read_topology(Path::new("/"))).clone()
}

impl Topology {
    /// The node numbered `id`.
    pub(crate) fn node(&self, id: u32) -> Option<&Node> {
        self.nodes.iter().find(|n| n.id == id)
    }

    /// Node numbers as a list (`0-3`).
    pub(crate) fn node_list(&self, keep: impl Fn(&Node) -> bool) -> String {
        let ids: Vec<usize> = self
            .nodes
            .iter()
            .filter(|n| keep(n))
            .map(|n| n.id as usize)
            .collect();
        if ids.is_empty() {
            "none".into()
        } else {
            cpu_list(&ids)
        }
    }

    /// Node `id`'s CPUs among `allowed`, in pinning order: the first hardware thread of
    /// every core, then the other threads (so N threads on a node get N cores while
    /// the node has them).
    pub(crate) fn node_cpus(&self, id: u32, allowed: &[usize]) -> Vec<usize> {
        let Some(node) = self.node(id) else {
            return Vec::new();
        };
        let mine: Vec<usize> = node
            .cpus
            .iter()
            .copied()
            .filter(|c| allowed.contains(c))
            .collect();
        let groups: Vec<Vec<usize>> = self.smt.iter().filter_map(|s| parse_list(s)).collect();
        // A CPU is a core's first thread unless a smaller sibling of it is on the list.
        let first = |c: usize| {
            groups
                .iter()
                .find(|g| g.contains(&c))
                .is_none_or(|g| !g.iter().any(|&s| s < c && mine.contains(&s)))
        };
        let (mut a, b): (Vec<usize>, Vec<usize>) = mine.iter().partition(|&&c| first(c));
        a.extend(b);
        a
    }

    /// Physical cores of node `id` among `allowed`.
    pub(crate) fn node_cores(&self, id: u32, allowed: &[usize]) -> usize {
        let cpus = self.node_cpus(id, allowed);
        let groups: Vec<Vec<usize>> = self.smt.iter().filter_map(|s| parse_list(s)).collect();
        cpus.iter()
            .filter(|&&c| {
                groups
                    .iter()
                    .find(|g| g.contains(&c))
                    .is_none_or(|g| !g.iter().any(|&s| s < c && cpus.contains(&s)))
            })
            .count()
    }

    /// Nodes per socket (sub-NUMA clustering, NPS), when every socket has the same
    /// number of nodes with CPUs.
    pub(crate) fn nodes_per_socket(&self) -> Option<usize> {
        let counts: Vec<usize> = self
            .sockets
            .iter()
            .map(|s| {
                self.nodes
                    .iter()
                    .filter(|n| n.cpus.iter().any(|c| s.cpus.contains(c)))
                    .count()
            })
            .collect();
        let first = *counts.first()?;
        counts.iter().all(|&c| c == first).then_some(first)
    }

    /// How CPUs `a` and `b` are related: SMT siblings, then a shared L3, then the
    /// sockets (`Unknown` where either CPU has no socket here).
    pub(crate) fn relation(&self, a: usize, b: usize) -> Relation {
        let both = |cpus: &[usize]| cpus.contains(&a) && cpus.contains(&b);
        if self
            .smt
            .iter()
            .filter_map(|s| parse_list(s))
            .any(|g| both(&g))
        {
            Relation::SmtSibling
        } else if self.l3.iter().any(|g| both(&g.cpus)) {
            Relation::SameL3
        } else {
            match (self.socket_of(a), self.socket_of(b)) {
                (Some(x), Some(y)) if x == y => Relation::SameSocket,
                (Some(_), Some(_)) => Relation::OtherSocket,
                _ => Relation::Unknown,
            }
        }
    }

    /// The socket of `cpu`.
    fn socket_of(&self, cpu: usize) -> Option<u32> {
        self.sockets
            .iter()
            .find(|s| s.cpus.contains(&cpu))
            .map(|s| s.id)
    }

    /// The lines `sysinfo` prints, as (key, value): one per node, then sockets, the
    /// NUMA mode, the L3 domains and SMT. `vendor` names the mode (SNC on Intel, NPS on
    /// AMD).
    pub(crate) fn lines(&self, vendor: &str) -> Vec<(String, String)> {
        let mut out = Vec::new();
        for n in &self.nodes {
            let sockets: Vec<String> = {
                let mut s: Vec<u32> = n.cpus.iter().filter_map(|&c| self.socket_of(c)).collect();
                s.dedup();
                s.iter().map(u32::to_string).collect()
            };
            out.push((
                format!("numa node {}", n.id),
                format!(
                    "CPUs {}, {} memory{}, distances {}",
                    if n.cpus.is_empty() {
                        "none".into()
                    } else {
                        cpu_list(&n.cpus)
                    },
                    if n.mem_bytes == 0 {
                        "no".into()
                    } else {
                        crate::util::units::format_size(n.mem_bytes)
                    },
                    if sockets.is_empty() {
                        String::new()
                    } else {
                        format!(", socket {}", sockets.join(","))
                    },
                    n.distances
                        .iter()
                        .map(u32::to_string)
                        .collect::<Vec<_>>()
                        .join(" ")
                ),
            ));
        }
        out.push((
            "sockets".into(),
            self.sockets
                .iter()
                .map(|s| format!("{}: CPUs {}", s.id, cpu_list(&s.cpus)))
                .collect::<Vec<_>>()
                .join("; "),
        ));
        if let Some(k) = self.nodes_per_socket().filter(|&k| k > 1) {
            let mode = if vendor.contains("AMD") {
                format!("NPS{k} (nodes per socket)")
            } else {
                format!("SNC{k} (sub-NUMA clustering)")
            };
            out.push(("numa mode".into(), format!("{k} nodes per socket: {mode}")));
        }
        if !self.l3.is_empty() {
            let per_node = self
                .nodes
                .iter()
                .filter(|n| !n.cpus.is_empty())
                .map(|n| {
                    self.l3
                        .iter()
                        .filter(|g| g.cpus.iter().any(|c| n.cpus.contains(c)))
                        .count()
                })
                .max()
                .unwrap_or(0);
            let what = if per_node > 1 {
                format!(", {per_node} per node (CCX/CCD: cores sharing one L3)")
            } else if self.l3.len() > self.sockets.len() {
                " (more than one per socket)".to_string()
            } else {
                String::new()
            };
            out.push((
                "L3 domains".into(),
                format!(
                    "{} x {}{what}: {}",
                    self.l3.len(),
                    crate::util::units::format_size(self.l3[0].size_bytes),
                    self.l3
                        .iter()
                        .map(|g| cpu_list(&g.cpus))
                        .collect::<Vec<_>>()
                        .join("; ")
                ),
            ));
        }
        out.push((
            "SMT".into(),
            if self.smt.is_empty() {
                "off or absent (1 thread per core)".into()
            } else {
                format!(
                    "{} threads per core, siblings {}{}",
                    self.threads_per_core,
                    self.smt
                        .iter()
                        .take(4)
                        .cloned()
                        .collect::<Vec<_>>()
                        .join("; "),
                    if self.smt.len() > 4 { "; …" } else { "" }
                )
            },
        ));
        out
    }
}

#[cfg(test)]
#[path = "topology_tests.rs"]
mod tests;
