//! The memory peak of every NUMA node (issue #47), from the DIMM table (SMBIOS type 17,
//! `hw::memory`) and the topology (`hw::topology`): a DIMM's socket comes from its
//! locator (`CPU1_DIMMA1`, `P0-DIMMA1`, `PROC 2 DIMM 3`, `Socket 0 …`) or, on a
//! one-socket machine, is that socket; a socket's DIMMs are shared evenly by its nodes
//! with memory, as sub-NUMA clustering (SNC) and AMD's nodes per socket (NPS) give
//! each node an equal share of the socket's channels. Each node's peak is then its
//! share of Σ transfer rate × bus width over the socket's DIMMs, with that arithmetic as
//! its source; where a DIMM's socket cannot be told, every node says why instead.

use super::memory::Dimm;
use super::topology::Topology;

/// One node's peak, or why it is unknown.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct NodePeak {
    /// The node number.
    pub(crate) node: u32,
    /// Bytes per second, when known.
    pub(crate) value: Option<f64>,
    /// How it was derived, or why it is unknown.
    pub(crate) source: String,
}

/// The socket number a locator names, as written (boards count from 0 or from 1):
/// `CPU1_DIMMA1` → 1, `P0-DIMMA1` → 0, `PROC 2 DIMM 3` → 2, `Socket 1 DIMM 0` → 1,
/// `P1_Node0_Channel0_Dimm0` → 1; `None` when it names none (`DIMM_A1`, `A1`).
pub(crate) fn locator_socket(locator: &str) -> Option<u32> {
    let l = locator.trim().to_ascii_uppercase();
    for prefix in ["CPU", "PROC", "SOCKET", "P"] {
        let Some(rest) = l.strip_prefix(prefix) else {
            continue;
        };
        let rest = rest.trim_start_matches([' ', '_', '-']);
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        // `P` alone must be followed by the number and a separator (`P0-`, `P1_`), so
        // that a locator such as `PDIMM3` is not read as socket 3.
        let after = rest[digits.len()..].chars().next();
        let tight =
            prefix != "P" || (rest.len() == l.len() - 1 && matches!(after, Some('_' | '-' | ' ')));
        if !digits.is_empty() && tight {
            return digits.parse().ok();
        }
    }
    None
}

/// A DIMM's peak: transfer rate × bus width.
fn bytes_per_sec(d: &Dimm) -> f64 {
    d.speed_mts as f64 * 1e6 * d.data_width_bits as f64 / 8.0
}

/// Every node's peak (nodes in topology order). `why_none` says why the table is empty
/// (the SMBIOS status) when it is.
pub(crate) fn node_peaks(dimms: &[Dimm], topo: &Topology, why_none: &str) -> Vec<NodePeak> {
    let unknown = |why: String| -> Vec<NodePeak> {
        topo.nodes
            .iter()
            .map(|n| NodePeak {
                node: n.id,
                value: None,
                source: format!("unknown: {why}"),
            })
            .collect()
    };
    if dimms.is_empty() {
        return unknown(format!("no DIMM table ({why_none})"));
    }
    let socket_ids: Vec<u32> = topo.sockets.iter().map(|s| s.id).collect();
    // Each DIMM's socket id in the topology.
    let placed: Vec<(u32, &Dimm)> = if let [only] = socket_ids[..] {
        dimms.iter().map(|d| (only, d)).collect()
    } else {
        let named: Option<Vec<u32>> = dimms.iter().map(|d| locator_socket(&d.locator)).collect();
        let Some(mut named) = named else {
            let bad = dimms
                .iter()
                .find(|d| locator_socket(&d.locator).is_none())
                .map_or("", |d| d.locator.as_str());
            return unknown(format!(
                "the DIMM locator '{bad}' names no socket (CPU<n>, P<n>, PROC <n>, Socket <n>), so the {} sockets' DIMMs cannot be told apart",
                socket_ids.len()
            ));
        };
        // Boards that count from 1 (CPU1, CPU2) against sysfs packages 0, 1.
        let one_based =
            !named.contains(&0) && named.iter().all(|&s| s as usize <= socket_ids.len());
        if one_based {
            named.iter_mut().for_each(|s| *s -= 1);
            named.iter_mut().for_each(|s| *s = socket_ids[*s as usize]);
        }
        if let Some(s) = named.iter().find(|s| !socket_ids.contains(s)) {
            return unknown(format!(
                "a DIMM locator names socket {s}, which this machine does not have"
            ));
        }
        named.into_iter().zip(dimms).collect()
    };
    topo.nodes
        .iter()
        .map(|n| {
            let socket = topo
                .sockets
                .iter()
                .find(|s| n.cpus.iter().any(|c| s.cpus.contains(c)));
            let Some(socket) = socket.filter(|_| n.mem_bytes > 0) else {
                return NodePeak {
                    node: n.id,
                    value: None,
                    source: "unknown: a node without CPUs or memory has no socket's DIMMs"
                        .into(),
                };
            };
            let sharing = topo
                .nodes
                .iter()
                .filter(|m| m.mem_bytes > 0 && m.cpus.iter().any(|c| socket.cpus.contains(c)))
                .count()
                .max(1);
            let mine: Vec<&Dimm> = placed
                .iter()
                .filter(|(s, _)| *s == socket.id)
                .map(|(_, d)| *d)
                .collect();
            if mine.is_empty() {
                return NodePeak {
                    node: n.id,
                    value: None,
                    source: format!("unknown: no DIMM of the table is on socket {}", socket.id),
                };
            }
            let total: f64 = mine.iter().map(|d| bytes_per_sec(d)).sum();
            let mut speeds: Vec<u32> = mine.iter().map(|d| d.speed_mts).collect();
            speeds.dedup();
            let speeds: Vec<String> = speeds.iter().map(u32::to_string).collect();
            NodePeak {
                node: n.id,
                value: Some(total / sharing as f64),
                source: format!(
                    "socket {}: {} DIMM{} x {} MT/s x {} B{} (SMBIOS type 17; assumes one DIMM per channel{})",
                    socket.id,
                    mine.len(),
                    if mine.len() == 1 { "" } else { "s" },
                    speeds.join("/"),
                    mine[0].data_width_bits / 8,
                    if sharing > 1 {
                        format!(" / {sharing} nodes on the socket")
                    } else {
                        String::new()
                    },
                    if sharing > 1 {
                        " and SNC/NPS giving each node an equal share of the channels"
                    } else {
                        ""
                    }
                ),
            }
        })
        .collect()
}

/// The `sysinfo` line: every node's peak with its source, or the one reason none is
/// known.
pub(crate) fn line(peaks: &[NodePeak]) -> String {
    if let Some(first) = peaks
        .first()
        .filter(|_| peaks.iter().all(|p| p.value.is_none()))
    {
        if peaks.iter().all(|p| p.source == first.source) {
            return first.source.clone();
        }
    }
    peaks
        .iter()
        .map(|p| match p.value {
            Some(v) => format!(
                "node {}: {} ({})",
                p.node,
                crate::util::units::format_si(v, "B/s"),
                p.source
            ),
            None => format!("node {}: {}", p.node, p.source),
        })
        .collect::<Vec<_>>()
        .join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hw::memory::parse_dmidecode;
    use std::path::Path;

    fn machine(name: &str) -> (Topology, Vec<Dimm>) {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/numa")
            .join(name);
        let t = crate::hw::topology::read_topology(&root).unwrap();
        let d = parse_dmidecode(&std::fs::read_to_string(root.join("dmidecode-t17.txt")).unwrap());
        (t, d)
    }

    #[test]
    fn locators_name_their_socket_or_none() {
        for (l, s) in [
            ("CPU1_DIMMA1", Some(1)),
            ("CPU2_DIMM_F1", Some(2)),
            ("P0-DIMMA1", Some(0)),
            ("P1_Node0_Channel0_Dimm0", Some(1)),
            ("PROC 2 DIMM 3", Some(2)),
            ("Socket 0 DIMM 1", Some(0)),
            ("DIMM_A1", None),
            ("A1", None),
            ("PDIMM3", None),
            ("", None),
        ] {
            assert_eq!(locator_socket(l), s, "{l}");
        }
    }

    /// Two Xeon Gold 6134 in SNC2: 6 DDR4-2666 channels a socket, 3 a node.
    #[test]
    fn the_two_socket_xeon_gives_each_snc_node_half_its_socket() {
        let (t, d) = machine("xeon-2s-snc2");
        assert_eq!(d.len(), 12);
        let p = node_peaks(&d, &t, "");
        assert_eq!(
            p.iter().map(|x| x.node).collect::<Vec<_>>(),
            vec![0, 1, 2, 3]
        );
        let half = 6.0 * 2666e6 * 8.0 / 2.0;
        for x in &p {
            assert!((x.value.unwrap() - half).abs() < 1.0, "{x:?}");
            assert!(
                x.source.contains("6 DIMMs x 2666 MT/s x 8 B / 2 nodes"),
                "{x:?}"
            );
        }
        assert!(p[0].source.starts_with("socket 0") && p[3].source.starts_with("socket 1"));
        let l = line(&p);
        assert!(l.starts_with("node 0: 63.98 GB/s (socket 0"), "{l}");
    }

    /// One EPYC 7302 in NPS4: 8 DDR4-3200 channels, 2 a quadrant; the locators name
    /// no socket, and need not: there is one.
    #[test]
    fn the_one_socket_epyc_gives_each_quadrant_a_quarter() {
        let (t, d) = machine("epyc-nps4");
        let p = node_peaks(&d, &t, "");
        assert_eq!(p.len(), 4);
        for x in &p {
            assert_eq!(x.value, Some(8.0 * 3200e6 * 8.0 / 4.0), "{x:?}");
            assert!(x.source.contains("/ 4 nodes on the socket"), "{x:?}");
        }
    }

    /// Where the table cannot be split, every node says why, once on the line.
    #[test]
    fn unknown_peaks_say_why() {
        let (xeon, _) = machine("xeon-2s-snc2");
        let (_, epyc_dimms) = machine("epyc-nps4");
        let p = node_peaks(&epyc_dimms, &xeon, "");
        assert!(p.iter().all(|x| x.value.is_none()));
        assert_eq!(
            line(&p),
            "unknown: the DIMM locator 'DIMM_A1' names no socket (CPU<n>, P<n>, PROC <n>, Socket <n>), so the 2 sockets' DIMMs cannot be told apart"
        );
        let p = node_peaks(&[], &xeon, "SMBIOS unreadable (not root)");
        assert_eq!(
            line(&p),
            "unknown: no DIMM table (SMBIOS unreadable (not root))"
        );
        let mut d = machine("xeon-2s-snc2").1;
        d[0].locator = "CPU7_DIMMA1".into();
        assert!(line(&node_peaks(&d, &xeon, "")).contains("socket 7"));
    }
}
