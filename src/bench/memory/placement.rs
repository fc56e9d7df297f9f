//! Where a memory case's threads and memory go (issue #47): `--cpu-node N` pins the
//! threads to node N's CPUs (one per core first), `--mem-node N|interleave` places the
//! memory by the thread's memory policy (`hw::mempolicy`), and `--matrix` plans every
//! (CPU node, memory node) pair. Both are checked against the detected topology
//! (`hw::topology`) when the run is planned, so a node that does not exist, has no
//! CPUs or no memory is one line and exit code 2 before anything runs.

use super::options::{MemNode, MemoryOptions};
use crate::bench::resource::UsageError;
use crate::hw::mempolicy::{self, MemPlace};
use crate::hw::topology::Topology;
use crate::hw::HostInfo;
use crate::report::model::BenchResult;
use std::collections::BTreeMap;
use std::sync::Mutex;

/// One placement of a case's threads and memory; the default places nothing (the
/// host's pinning order and first touch), as before #47.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Placement {
    /// `--cpu-node`: the node the threads run on.
    pub(crate) cpu_node: Option<u32>,
    /// Its CPUs this process may use, in pinning order.
    pub(crate) cpus: Vec<usize>,
    /// Its physical cores among them.
    pub(crate) cores: usize,
    /// `--mem-node` as given, and the policy it stands for.
    pub(crate) mem_node: Option<(MemNode, MemPlace)>,
}

impl Placement {
    /// Whether anything is placed.
    pub(crate) fn any(&self) -> bool {
        self.cpu_node.is_some() || self.mem_node.is_some()
    }

    /// ` cpu-node=1 mem-node=interleave` for the case's label (empty when unplaced).
    pub(crate) fn label(&self) -> String {
        let mut s = String::new();
        if let Some(n) = self.cpu_node {
            s += &format!(" cpu-node={n}");
        }
        if let Some((m, _)) = &self.mem_node {
            s += &format!(" mem-node={}", mem_name(*m));
        }
        s
    }

    /// The result's `cpu_node` and `mem_node` params (a number, or `interleave`).
    pub(crate) fn params(&self, mut r: BenchResult) -> BenchResult {
        if let Some(n) = self.cpu_node {
            r = r.param("cpu_node", u64::from(n));
        }
        match self.mem_node {
            Some((MemNode::Node(n), _)) => r = r.param("mem_node", u64::from(n)),
            Some((MemNode::Interleave, _)) => r = r.param("mem_node", "interleave"),
            None => {}
        }
        r
    }

    /// The CPUs `threads` threads are pinned to: the node's first ones, or `None` to
    /// keep the host's order.
    pub(crate) fn cpus_for(&self, threads: usize) -> Option<Vec<usize>> {
        (self.cpu_node.is_some() && threads <= self.cpus.len())
            .then(|| self.cpus[..threads].to_vec())
    }

    /// On a worker thread, before it maps its memory: sets the thread's memory policy.
    pub(crate) fn apply(&self) -> Result<(), String> {
        match &self.mem_node {
            Some((_, place)) => mempolicy::set_thread_policy(place),
            None => Ok(()),
        }
    }

    /// On the worker thread, once its memory is faulted in: back to first touch, and
    /// for thread 0 where its pages landed (into `seen`).
    pub(crate) fn placed(
        &self,
        index: usize,
        ptr: *const u8,
        len: usize,
        seen: &Mutex<Option<BTreeMap<u32, usize>>>,
    ) {
        if self.mem_node.is_some() {
            mempolicy::reset_thread_policy();
        }
        if index == 0 && self.any() {
            *seen.lock().unwrap() = mempolicy::pages_by_node(ptr, len, 64);
        }
    }

    /// With `--mem-node N`: node N's DRAM peak from its share of the DIMMs
    /// (`hw::node_peak`), when the DIMM table tells it; `None` otherwise (the caller
    /// keeps the machine's peak).
    pub(crate) fn node_peak(&self, host: &HostInfo) -> Option<crate::hw::peak::Peak> {
        let Some((MemNode::Node(m), _)) = self.mem_node else {
            return None;
        };
        let topo = host.topology.as_ref()?;
        crate::hw::node_peak::node_peaks(&host.memory.dimms, topo, &host.memory.smbios)
            .into_iter()
            .find(|p| p.node == m)
            .and_then(|p| {
                Some(crate::hw::peak::Peak {
                    value: Some(p.value?),
                    source: format!("memory node {m}: {}", p.source),
                })
            })
    }

    /// The result's note of where the pages are, when one was read.
    pub(crate) fn note(&self, r: &mut BenchResult, seen: &Mutex<Option<BTreeMap<u32, usize>>>) {
        if let Some(by) = seen.lock().unwrap().as_ref() {
            r.info(mempolicy::pages_words(by));
        }
    }
}

fn mem_name(m: MemNode) -> String {
    match m {
        MemNode::Node(n) => n.to_string(),
        MemNode::Interleave => "interleave".into(),
    }
}

/// The topology, or why the flag cannot be used without one.
fn topo<'a>(host: &'a HostInfo, flag: &str) -> Result<&'a Topology, UsageError> {
    host.topology.as_ref().ok_or_else(|| {
        UsageError::new(
            flag,
            "this machine shows no CPU topology (/sys/devices/system); run without it",
        )
    })
}

/// The CPU side: node `n` with its CPUs among `allowed`.
fn cpu_side(t: &Topology, n: u32, allowed: &[usize]) -> Result<Placement, UsageError> {
    let with_cpus = t.node_list(|x| x.cpus.iter().any(|c| allowed.contains(c)));
    if t.node(n).is_none() {
        return Err(UsageError::new(
            "--cpu-node",
            format!("node {n} does not exist; use a node with CPUs: {with_cpus}"),
        ));
    }
    let cpus = t.node_cpus(n, allowed);
    if cpus.is_empty() {
        return Err(UsageError::new(
            "--cpu-node",
            format!("node {n} has no CPUs this process may use; use a node with CPUs: {with_cpus}"),
        ));
    }
    Ok(Placement {
        cpu_node: Some(n),
        cores: t.node_cores(n, allowed),
        cpus,
        mem_node: None,
    })
}

/// The memory side: `m` against the nodes with memory.
fn mem_side(t: &Topology, m: MemNode) -> Result<(MemNode, MemPlace), UsageError> {
    let with_mem: Vec<u32> = t
        .nodes
        .iter()
        .filter(|x| x.mem_bytes > 0)
        .map(|x| x.id)
        .collect();
    let list = t.node_list(|x| x.mem_bytes > 0);
    match m {
        MemNode::Interleave if with_mem.is_empty() => Err(UsageError::new(
            "--mem-node",
            "no node reports memory (node*/meminfo); run without --mem-node",
        )),
        MemNode::Interleave => Ok((m, MemPlace::Interleave(with_mem))),
        MemNode::Node(n) if with_mem.contains(&n) => Ok((m, MemPlace::Node(n))),
        MemNode::Node(n) => Err(UsageError::new(
            "--mem-node",
            format!(
                "node {n} {}; use a node with memory ({list}) or interleave",
                if t.node(n).is_some() {
                    "has no memory"
                } else {
                    "does not exist"
                }
            ),
        )),
    }
}

/// The placements a run's cases are repeated for: one (nothing placed, or
/// `--cpu-node`/`--mem-node`), or with `--matrix` every CPU node (with CPUs this
/// process may use) with every memory node (with memory), CPU node outermost.
pub(crate) fn plan(
    o: &MemoryOptions,
    host: &HostInfo,
    allowed: &[usize],
) -> Result<Vec<Placement>, UsageError> {
    if o.matrix {
        let t = topo(host, "--matrix")?;
        let mut out = Vec::new();
        for c in t
            .nodes
            .iter()
            .filter(|n| n.cpus.iter().any(|c| allowed.contains(c)))
        {
            for m in t.nodes.iter().filter(|n| n.mem_bytes > 0) {
                let mut p = cpu_side(t, c.id, allowed)?;
                p.mem_node = Some(mem_side(t, MemNode::Node(m.id))?);
                out.push(p);
            }
        }
        if out.is_empty() {
            return Err(UsageError::new(
                "--matrix",
                "no node has both usable CPUs and memory here; run without --matrix",
            ));
        }
        return Ok(out);
    }
    let mut p = Placement::default();
    if let Some(n) = o.cpu_node {
        p = cpu_side(topo(host, "--cpu-node")?, n, allowed)?;
    }
    if let Some(m) = o.mem_node {
        p.mem_node = Some(mem_side(topo(host, "--mem-node")?, m)?);
    }
    Ok(vec![p])
}

/// The thread counts of a placement: `--threads` as given (each must fit the node's
/// CPUs), else with a CPU node 1, 2, 4, … up to its cores (the matrix: its cores for
/// bandwidth, one thread for the chase), else `fallback`.
pub(crate) fn threads(
    p: &Placement,
    given: Option<&[usize]>,
    matrix: bool,
    chase: bool,
    fallback: &[usize],
) -> Result<Vec<usize>, UsageError> {
    let Some(n) = p.cpu_node else {
        return Ok(given.map_or_else(|| fallback.to_vec(), <[usize]>::to_vec));
    };
    if let Some(g) = given {
        if let Some(&big) = g.iter().find(|&&t| t > p.cpus.len()) {
            return Err(UsageError::new(
                "--threads",
                format!(
                    "{big} threads do not fit the {} CPUs of node {n}; use at most {}",
                    p.cpus.len(),
                    p.cpus.len()
                ),
            ));
        }
        return Ok(g.to_vec());
    }
    Ok(match (matrix, chase) {
        (true, true) => vec![1],
        (true, false) => vec![p.cores.max(1)],
        _ => crate::bench::common::default_threads(p.cores.max(1)),
    })
}

#[cfg(test)]
#[path = "placement_tests.rs"]
mod tests;

/// Refuses a run whose memory, all of it bound to one node, would not fit that node's
/// memory (an OOM kill or a swap storm measures nothing): `need` bytes against the
/// node's `MemTotal`, with the margin of the whole machine's check.
pub(crate) fn fits_nodes(
    places: &[(Vec<usize>, Vec<usize>, Placement)],
    need: u64,
    host: &HostInfo,
) -> Result<(), UsageError> {
    let Some(t) = &host.topology else {
        return Ok(());
    };
    for (_, _, p) in places {
        if let Some((_, MemPlace::Node(n))) = &p.mem_node {
            let mem = t.node(*n).map_or(0, |x| x.mem_bytes);
            if crate::bench::common::ram_refuses(need, mem) {
                return Err(UsageError::new(
                    "--size",
                    format!(
                        "the working set needs {} but node {n} has {} of memory in all; use a smaller --size",
                        crate::util::units::format_size(need),
                        crate::util::units::format_size(mem)
                    ),
                ));
            }
        }
    }
    Ok(())
}
