//! Memory placement on NUMA nodes (issue #47) through the kernel's own system calls,
//! `set_mempolicy(2)` and `move_pages(2)` (no libnuma): a worker thread sets its
//! policy before it maps and first-touches its arrays, so every page it faults in lands
//! where the policy says (bound to one node, or interleaved page by page over several),
//! and `move_pages` with no target nodes then reports where sampled pages really are.
//!
//! The policy is the calling thread's: the runner's worker threads live for one case,
//! and [`reset_thread_policy`] returns the thread to first touch once its memory is
//! placed, so nothing leaks into other allocations.

use std::collections::BTreeMap;

/// Where a thread's memory goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum MemPlace {
    /// Every page on this node (`MPOL_BIND`).
    Node(u32),
    /// Pages round-robin over these nodes (`MPOL_INTERLEAVE`).
    Interleave(Vec<u32>),
}

/// `MPOL_DEFAULT`: first touch (the node of the CPU that faults the page in).
const MPOL_DEFAULT: libc::c_int = 0;
/// `MPOL_BIND`: only the nodes of the mask.
const MPOL_BIND: libc::c_int = 2;
/// `MPOL_INTERLEAVE`: round-robin over the nodes of the mask.
const MPOL_INTERLEAVE: libc::c_int = 3;
/// Words of the node mask: 1024 nodes, the kernel's largest `MAX_NUMNODES`.
const MASK_WORDS: usize = 16;

/// The node mask of `nodes`; `None` when a node is beyond the mask.
fn mask(nodes: &[u32]) -> Option<[libc::c_ulong; MASK_WORDS]> {
    let bits = libc::c_ulong::BITS as usize;
    let mut m = [0 as libc::c_ulong; MASK_WORDS];
    for &n in nodes {
        let n = n as usize;
        if n >= MASK_WORDS * bits {
            return None;
        }
        m[n / bits] |= 1 << (n % bits);
    }
    Some(m)
}

fn set_policy(mode: libc::c_int, nodes: &[u32]) -> Result<(), String> {
    let m = mask(nodes).ok_or_else(|| format!("node numbers {nodes:?} exceed the node mask"))?;
    let (ptr, maxnode) = if mode == MPOL_DEFAULT {
        (std::ptr::null(), 0)
    } else {
        // The kernel reads maxnode - 1 bits (libnuma passes the mask's bits + 1).
        (
            m.as_ptr(),
            (MASK_WORDS * libc::c_ulong::BITS as usize + 1) as libc::c_ulong,
        )
    };
    // SAFETY: set_mempolicy reads at most `maxnode - 1` bits from `ptr`, which points
    // to MASK_WORDS words that live across the call (or is null with maxnode 0).
    let rc = unsafe { libc::syscall(libc::SYS_set_mempolicy, mode, ptr, maxnode) };
    if rc == 0 {
        Ok(())
    } else {
        Err(format!(
            "set_mempolicy({}, nodes {nodes:?}) failed: {}",
            match mode {
                MPOL_BIND => "MPOL_BIND",
                MPOL_INTERLEAVE => "MPOL_INTERLEAVE",
                _ => "MPOL_DEFAULT",
            },
            std::io::Error::last_os_error()
        ))
    }
}

/// Sets the calling thread's memory policy: the pages it faults in from now on go
/// where `place` says.
pub(crate) fn set_thread_policy(place: &MemPlace) -> Result<(), String> {
    match place {
        MemPlace::Node(n) => set_policy(MPOL_BIND, &[*n]),
        MemPlace::Interleave(ns) => set_policy(MPOL_INTERLEAVE, ns),
    }
}

/// Returns the calling thread to the default policy (first touch).
pub(crate) fn reset_thread_policy() {
    let _ = set_policy(MPOL_DEFAULT, &[]);
}

/// Pages sampled from `[ptr, ptr + len)`: at most `samples`, evenly spaced.
const PAGE: usize = 4096;

/// Where the pages of `[ptr, ptr + len)` are: up to `samples` pages evenly spaced,
/// counted per node (`move_pages` without target nodes only reports); `None` when the
/// kernel cannot say (no NUMA support, a seccomp filter).
pub(crate) fn pages_by_node(
    ptr: *const u8,
    len: usize,
    samples: usize,
) -> Option<BTreeMap<u32, usize>> {
    let pages = (len / PAGE).max(1);
    let n = samples.clamp(1, pages);
    let addrs: Vec<*mut libc::c_void> = (0..n)
        .map(|i| ptr.wrapping_add(i * pages / n * PAGE) as *mut libc::c_void)
        .collect();
    let mut status = vec![0 as libc::c_int; n];
    // SAFETY: `addrs` and `status` hold `n` entries each and live across the call;
    // with a null `nodes` argument the kernel only writes each page's node to `status`.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_move_pages,
            0,
            n as libc::c_ulong,
            addrs.as_ptr(),
            std::ptr::null::<libc::c_int>(),
            status.as_mut_ptr(),
            0,
        )
    };
    if rc != 0 {
        return None;
    }
    let mut by = BTreeMap::new();
    for s in status.into_iter().filter(|&s| s >= 0) {
        *by.entry(s as u32).or_insert(0) += 1;
    }
    (!by.is_empty()).then_some(by)
}

/// `pages on node 1: 64 of 64 sampled (move_pages)`, or per node when spread.
pub(crate) fn pages_words(by: &BTreeMap<u32, usize>) -> String {
    let all: usize = by.values().sum();
    let parts: Vec<String> = by.iter().map(|(n, c)| format!("node {n}: {c}")).collect();
    format!(
        "where the pages of thread 0's memory are: {} of {all} pages sampled (move_pages)",
        parts.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Maps `pages` fresh anonymous pages, writes each (faulting it in under the
    /// thread's policy), calls `f` on them and unmaps them.
    fn fresh_pages<T>(pages: usize, f: impl FnOnce(*const u8, usize) -> T) -> T {
        let len = pages * PAGE;
        // SAFETY: an anonymous private mapping, checked; written only within `len`,
        // unmapped once `f` returns.
        unsafe {
            let p = libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            );
            assert_ne!(p, libc::MAP_FAILED);
            std::ptr::write_bytes(p as *mut u8, 1, len);
            let out = f(p as *const u8, len);
            libc::munmap(p, len);
            out
        }
    }

    #[test]
    fn masks_set_one_bit_per_node() {
        let m = mask(&[0, 3, 65]).unwrap();
        assert_eq!(m[0], 0b1001);
        assert_eq!(m[1], 0b10);
        assert!(mask(&[4096]).is_none());
    }

    /// On this machine (whatever its nodes): binding to a node that has memory puts the
    /// pages there, interleaving over it too, and `move_pages` sees them.
    #[test]
    fn a_bound_thread_faults_its_pages_in_on_its_node() {
        let Some(t) = super::super::topology::detect() else {
            eprintln!("skipped: no topology in /sys");
            return;
        };
        let nodes: Vec<u32> = t
            .nodes
            .iter()
            .filter(|n| n.mem_bytes > 0)
            .map(|n| n.id)
            .collect();
        // Every node with memory (one here, more in a multi-node guest), bound and as
        // an interleave of one.
        let places: Vec<(u32, MemPlace)> = nodes
            .iter()
            .flat_map(|&n| [(n, MemPlace::Node(n)), (n, MemPlace::Interleave(vec![n]))])
            .collect();
        std::thread::spawn(move || {
            for (node, place) in places {
                if let Err(e) = set_thread_policy(&place) {
                    eprintln!("skipped: {e} (a kernel without NUMA or a filter)");
                    return;
                }
                // A fresh mapping: malloc may hand back pages faulted in before,
                // under the previous policy.
                let by = fresh_pages(64, |p, len| pages_by_node(p, len, 16));
                reset_thread_policy();
                let Some(by) = by else {
                    eprintln!("skipped: move_pages cannot say here");
                    return;
                };
                assert_eq!(by.keys().copied().collect::<Vec<_>>(), [node], "{place:?}");
                assert_eq!(by.values().sum::<usize>(), 16);
                assert!(pages_words(&by).contains(&format!("node {node}: 16 of 16")));
            }
            // Interleaved over several nodes, the pages are on more than one.
            if nodes.len() > 1 && set_thread_policy(&MemPlace::Interleave(nodes.clone())).is_ok() {
                let by = fresh_pages(64, |p, len| pages_by_node(p, len, 64));
                reset_thread_policy();
                let by = by.unwrap();
                assert!(by.len() > 1, "interleaved over {nodes:?}: {by:?}");
            }
        })
        .join()
        .unwrap();
    }

    #[test]
    fn a_node_without_memory_is_refused_by_the_kernel() {
        // Node 1023 exists on no machine: the kernel refuses the policy, and says why.
        let e = std::thread::spawn(|| set_thread_policy(&MemPlace::Node(1023)))
            .join()
            .unwrap()
            .unwrap_err();
        assert!(
            e.starts_with("set_mempolicy(MPOL_BIND, nodes [1023]) failed:"),
            "{e}"
        );
    }
}
