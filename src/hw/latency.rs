//! Latency floors (issue #48): the shortest time a latency row's operation can take on
//! this machine, each a [`Peak`] whose source names every input, or no figure with the
//! reason. A latency row's efficiency is floor / measured (`report::model::efficiency`).
//!
//! - memory ([`cache_floor`]): a pointer chase over a random cycle of `S` bytes per
//!   thread: at best each cache level holds its size in distinct lines beyond the faster
//!   levels', so the mean load costs Σ share × cycles of each level ([`CACHE_CYCLES`]:
//!   vendor figures per microarchitecture row) at the clock measured. A working set
//!   that spills into DRAM has no figure: DRAM's load-to-use time (the DIMMs' tRCD + CL
//!   plus the memory controller and the on-chip network) is reported by nothing this
//!   machine exposes.
//! - network ([`net_floor`]): a ping-pong round trip is at least twice the message's
//!   serialisation on the link (payload, headers and Ethernet framing at the link speed
//!   of /sys/class/net/*/speed) plus twice the distance at the speed of light in fibre
//!   ([`FIBRE_SPEED`]). Loopback has no link and no figure.
//! - disk: no device reports a latency the kernel passes on; only `--peak disk.latency`.

use super::cpudesc::Cache;
use super::peak::Peak;
use crate::util::units::{format_si, format_size};

/// Speed of light in vacuum, m/s.
const C: f64 = 299_792_458.0;

/// Group index of standard single-mode fibre (ITU-T G.652) at 1550 nm.
const FIBRE_INDEX: f64 = 1.468;

/// Light in silica fibre, m/s: c / 1.468 ≈ 0.681 c ≈ 204,000 km/s (4.9 µs per km).
/// Long-haul links are such fibre; the round "2/3 c" (index 1.5) is 2 % slower and would
/// put the floor 2 % above what the fibre allows, so the measured index is used.
pub(crate) const FIBRE_SPEED: f64 = C / FIBRE_INDEX;

/// Ethernet's bytes per frame beyond the IP packet: header 14, FCS 4, preamble and
/// start delimiter 8, inter-frame gap 12.
const ETHERNET_OVERHEAD: u64 = 38;

/// The smallest Ethernet frame (header + payload + FCS), 64 B: shorter packets are padded.
const ETHERNET_MIN_FRAME: u64 = 64;

/// What a network round-trip floor is computed from.
#[derive(Debug, Clone)]
pub(crate) struct NetFloorInput<'a> {
    /// Payload bytes each way (the ping and the pong are the same size).
    pub(crate) msg: u64,
    /// `tcp` or `udp`.
    pub(crate) proto: &'a str,
    /// The link's speed in bit/s and where it was read, or why it is unknown.
    pub(crate) link: Result<(f64, String), String>,
    /// The interface's MTU (IP packet bytes); 1500 when unknown.
    pub(crate) mtu: Option<u64>,
    /// Whether the peer is this host over loopback (no link at all).
    pub(crate) loopback: bool,
    /// `--distance`, metres one way.
    pub(crate) distance_m: Option<f64>,
}

/// Bytes on the wire, and frames, for one message of `msg` payload bytes over Ethernet
/// with IP packets of at most `mtu` bytes: TCP segments of mtu − 40 payload bytes (IPv4
/// and TCP headers without options); a UDP datagram (8-byte header) in IP fragments of
/// mtu − 20 bytes. Each frame adds [`ETHERNET_OVERHEAD`], padded to the minimum frame.
pub(crate) fn wire_bytes(msg: u64, proto: &str, mtu: u64) -> (u64, u64) {
    let mtu = mtu.max(68);
    let (frames, l4_total, per_frame_ip) = if proto == "udp" {
        ((msg + 8).div_ceil(mtu - 20).max(1), 8, 20)
    } else {
        (msg.div_ceil(mtu - 40).max(1), 0, 40)
    };
    // Every frame but the last is full; the last may be padded to the minimum frame.
    let l3 = msg + l4_total + frames * per_frame_ip;
    let full = (frames - 1) * (mtu + ETHERNET_OVERHEAD);
    let last_ip = l3 - (frames - 1) * mtu;
    let last = (last_ip + 18).max(ETHERNET_MIN_FRAME) + (ETHERNET_OVERHEAD - 18);
    (full + last, frames)
}

/// The round-trip floor of a ping-pong of `i.msg` bytes (see the module doc).
pub(crate) fn net_floor(i: &NetFloorInput) -> Peak {
    if i.loopback {
        let d = i.distance_m.map_or(String::new(), |d| {
            format!(
                " (--distance {} is for a link to another host)",
                distance_text(d)
            )
        });
        return Peak::unknown(format!(
            "unknown: no figure: loopback has no link, so no serialisation on a wire and no distance; the time is the kernel's and the CPU's{d}; set one with --peak net.latency=…"
        ));
    }
    let mut parts = Vec::new();
    let mut one_way = 0.0;
    match &i.link {
        Ok((bps, source)) => {
            let mtu = i.mtu.unwrap_or(1500);
            let (bytes, frames) = wire_bytes(i.msg, i.proto, mtu);
            let t = bytes as f64 * 8.0 / bps;
            one_way += t;
            parts.push(format!(
                "serialisation of {} B {} in {frames} frame{} ({bytes} B on the wire with headers and Ethernet framing, MTU {mtu}) at {} ({source}) = {}",
                i.msg,
                i.proto.to_ascii_uppercase(),
                if frames == 1 { "" } else { "s" },
                format_si(*bps, "bit/s"),
                format_si(t, "s")
            ));
        }
        Err(why) if i.distance_m.is_none() => {
            return Peak::unknown(format!(
                "unknown: no figure: {}; give --distance for the propagation time, or --peak net.latency=…",
                why.strip_prefix("unknown: ").unwrap_or(why)
            ));
        }
        Err(why) => parts.push(format!(
            "no serialisation term ({})",
            why.strip_prefix("unknown: ").unwrap_or(why)
        )),
    }
    if let Some(d) = i.distance_m {
        let t = d / FIBRE_SPEED;
        one_way += t;
        parts.push(format!(
            "{} at c / {FIBRE_INDEX} (light in silica fibre) = {}",
            distance_text(d),
            format_si(t, "s")
        ));
    }
    Peak {
        value: Some(2.0 * one_way),
        source: format!(
            "round-trip floor 2 × ({}) = {}",
            parts.join(" + "),
            format_si(2.0 * one_way, "s")
        ),
    }
}

/// `1000 km`, `2.5 km`, `300 m`.
fn distance_text(m: f64) -> String {
    if m >= 1000.0 {
        format!("{} km", short(m / 1000.0))
    } else {
        format!("{} m", short(m))
    }
}

/// `x` with at most two decimals, without trailing zeros: `13.38`, `2.5`, `4`.
fn short(x: f64) -> String {
    let t = format!("{x:.2}");
    t.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// Load-to-use latencies of a core's caches, in core cycles, for a chain of dependent
/// integer loads with a simple address (`mov rax, [rax]`), as the vendor states them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct CacheCycles {
    /// L1 data cache.
    pub(crate) l1: f64,
    /// L2.
    pub(crate) l2: f64,
    /// L3, or why the table has no figure.
    pub(crate) l3: Result<f64, &'static str>,
    /// Where the figures come from.
    pub(crate) source: &'static str,
}

/// Load-to-use figures per microarchitecture row (`hw::uarch` names): the vendor's
/// optimization manual, and published pointer-chase measurements where they were found
/// (issue #48; docs/peaks.md says what was checked). A row not here has no memory
/// latency floor (the source says so).
///
/// A floor must never be above what the hardware can do, or a run at the hardware's
/// speed reads as more than 100 % and is flagged falsely; so where credible sources
/// differ, the row takes the **smallest** figure and its source names the others. The
/// L3 differs most: its slices sit at different distances on the ring or mesh, so a
/// random chase over the whole L3 pays the mean over the slices, which sources give as
/// an average or a range; and the L3 runs on its own clock (Intel's mesh, AMD's L3
/// clock follows the fastest core of the CCX), so its latency in core cycles moves with
/// the ratio of the two clocks: a figure taken at a higher core clock is more cycles.
pub(crate) const CACHE_CYCLES: &[(&str, CacheCycles)] = &[
    ("Skylake-SP/Cascade Lake/Cooper Lake", SKYLAKE_SP),
    ("Skylake-SP/Cascade Lake (one 512-bit FMA unit)", SKYLAKE_SP),
    ("Zen 4", ZEN4),
    ("Zen 3", ZEN3),
];

/// Skylake-SP and its Cascade Lake/Cooper Lake steppings (same core, caches and mesh).
pub(crate) const SKYLAKE_SP: CacheCycles = CacheCycles {
    l1: 4.0,
    l2: 14.0,
    l3: Ok(46.0),
    source: "L1 4 cycles (pointer chase with a simple address; 5 with an index), L2 14: Intel 64 and IA-32 Architectures Optimization Reference Manual (Skylake Server cache parameters), the same measured by AnandTech on a Xeon Platinum 8280 (Rome review, corrected figures of 2019-10-01); the launch figure of 11-13 cycles for the L2 is not a load-to-use time (no pointer chase shows it); L3 46 cycles, AnandTech's measured mean over the slices on the 28-core Xeon Platinum 8280 at 2.7 GHz, below Intel's 50-70 (the manual's range over the mesh) and AnandTech's 77 on a Core i9-7900X (2017, a tool it later replaced): the smallest credible figure is taken",
};

/// Zen 3 (family 19h models 00h-0Fh, 20h-5Fh).
pub(crate) const ZEN3: CacheCycles = CacheCycles {
    l1: 4.0,
    l2: 12.0,
    l3: Ok(46.0),
    source: "AMD Software Optimization Guide for AMD Family 19h Processors (56665): L1 4 cycles for integer loads (7 for FP), L2 12, L3 46 on average over the slices of the CCX (no published pointer chase lower than that was found); the 3D V-Cache parts add 3-4 cycles to the L3, so the plain figure stays the floor",
};

/// Zen 4 (family 19h models 10h-1Fh, 60h-7Fh, A0h-AFh).
pub(crate) const ZEN4: CacheCycles = CacheCycles {
    l1: 4.0,
    l2: 14.0,
    l3: Ok(50.0),
    source: "AMD Software Optimization Guide for the AMD Zen4 Microarchitecture (57647): L1 4 cycles for integer loads (7 for FP), L2 14, L3 50 on average over the slices of the CCX (no published pointer chase lower than that was found); the 3D V-Cache parts add cycles to the L3, so the plain figure stays the floor",
};

/// The table's figures for row `row`.
pub(crate) fn cache_cycles(row: &str) -> Option<&'static CacheCycles> {
    CACHE_CYCLES.iter().find(|(r, _)| *r == row).map(|(_, c)| c)
}

/// What a memory latency floor is computed from.
#[derive(Debug, Clone)]
pub(crate) struct CacheFloorInput<'a> {
    /// Bytes each thread chases over.
    pub(crate) per_thread: u64,
    /// Threads chasing at once (they share the L3).
    pub(crate) threads: usize,
    /// The CPU's caches (`hw::cpudesc::Cache`).
    pub(crate) caches: &'a [Cache],
    /// The identified microarchitecture row.
    pub(crate) row: &'a str,
    /// The core clock, Hz, and what measured it; `None`: no clock (emulated).
    pub(crate) clock: Option<(f64, &'a str)>,
}

/// The memory latency floor of a random pointer chase (see the module doc).
pub(crate) fn cache_floor(i: &CacheFloorInput) -> Peak {
    let Some(cyc) = cache_cycles(i.row) else {
        return Peak::unknown(format!(
            "unknown: no figure: no cache latencies in the table for row '{}'; set one with --peak memory.latency=…",
            i.row
        ));
    };
    let Some((hz, clock_what)) = i.clock.filter(|(hz, _)| *hz > 0.0) else {
        return Peak::unknown("unknown: no figure: no clock was measured to turn cycles into time");
    };
    let s = i.per_thread.max(1) as f64;
    // Capacity each thread has of each level: a private level whole, a shared one
    // divided among the threads that share it.
    let capacity = |level: u8| -> Option<f64> {
        let c = i
            .caches
            .iter()
            .find(|c| c.level == level && c.kind != "Instruction")?;
        let sharing = i.threads.clamp(1, c.shared_by.max(1));
        Some(if level < 3 {
            c.size_bytes as f64
        } else {
            c.size_bytes as f64 / sharing as f64
        })
    };
    let levels: [(u8, &str, Result<f64, &str>); 3] = [
        (1, "L1", Ok(cyc.l1)),
        (2, "L2", Ok(cyc.l2)),
        (3, "L3", cyc.l3),
    ];
    let (mut held, mut cycles) = (0.0f64, 0.0f64);
    let mut terms = Vec::new();
    for (level, name, c) in levels {
        if held >= s {
            break;
        }
        let Some(cap) = capacity(level) else {
            continue;
        };
        let share = ((held + cap).min(s) - held) / s;
        held += cap;
        let c = match c {
            Ok(c) => c,
            Err(why) => {
                return Peak::unknown(format!(
                    "unknown: no figure: {:.1} % of the loads reach the {name}, whose latency the table has no figure for ({why}); set one with --peak memory.latency=…",
                    share * 100.0
                ))
            }
        };
        cycles += share * c;
        terms.push(format!("{:.1} % {name} × {}", share * 100.0, short(c)));
    }
    if held < s {
        return Peak::unknown(format!(
            "unknown: no figure: {} per thread is more than the caches hold ({} with best-case placement), and DRAM's load-to-use time (the DIMMs' tRCD + CL plus the memory controller and the on-chip network) is reported by nothing on this machine; set one with --peak memory.latency.dram=…",
            format_size(i.per_thread),
            format_size(held as u64)
        ));
    }
    let secs = cycles / hz;
    Peak {
        value: Some(secs),
        source: format!(
            "load-to-use floor of a random chase over {} per thread: {} = {} cycles at {:.3} GHz ({clock_what}) = {}; best case, each level holding its size in distinct lines beyond the faster levels' ({})",
            format_size(i.per_thread),
            terms.join(" + "),
            short(cycles),
            hz / 1e9,
            format_si(secs, "s"),
            cyc.source
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn net(msg: u64, proto: &str, gbps: f64, km: Option<f64>) -> Peak {
        net_floor(&NetFloorInput {
            msg,
            proto,
            link: Ok((gbps * 1e9, "link speed of eth0: test".into())),
            mtu: Some(1500),
            loopback: false,
            distance_m: km.map(|k| k * 1000.0),
        })
    }

    #[test]
    fn frames_carry_headers_and_ethernet_framing() {
        // 64 B over TCP: one frame, 64 + 40 = 104 B of IP packet + 38 = 142 B.
        assert_eq!(wire_bytes(64, "tcp", 1500), (142, 1));
        // 1 B over UDP: 29 B of IP packet, padded to the 64 B minimum frame + 20.
        assert_eq!(wire_bytes(1, "udp", 1500), (84, 1));
        // 64000 B over TCP: 44 segments of 1460 B; 43 full frames of 1538 B, the last
        // carries 64000 - 43 × 1460 = 1220 B + 40 + 38.
        assert_eq!(wire_bytes(64000, "tcp", 1500), (43 * 1538 + 1298, 44));
        // 64000 B over UDP: 64008 B in fragments of 1480 B: 44 fragments (43 full).
        let (b, f) = wire_bytes(64000, "udp", 1500);
        assert_eq!(f, 44);
        assert_eq!(b, 43 * 1538 + (64008 - 43 * 1480) + 20 + 38);
    }

    #[test]
    fn serialisation_and_distance_make_the_round_trip_floor() {
        // 10 Gbit/s, 64 B TCP: 142 B × 8 / 1e10 = 113.6 ns each way.
        let p = net(64, "tcp", 10.0, None);
        let v = p.value.unwrap();
        assert!((v - 2.0 * 113.6e-9).abs() < 1e-15, "{v}");
        assert!(p.source.contains("142 B on the wire"), "{}", p.source);
        // 1000 km of fibre: 1e6 / (c / 1.468) = 4.8967 ms each way.
        let p = net(64, "tcp", 10.0, Some(1000.0));
        let prop = 1e6 * 1.468 / 299_792_458.0;
        assert!((p.value.unwrap() - 2.0 * (113.6e-9 + prop)).abs() < 1e-12);
        assert!(p.source.contains("1000 km at c / 1.468"), "{}", p.source);
        assert!(
            p.source.starts_with("round-trip floor 2 × ("),
            "{}",
            p.source
        );
    }

    #[test]
    fn loopback_and_unknown_links_say_why() {
        let mut i = NetFloorInput {
            msg: 64,
            proto: "tcp",
            link: Err("unknown: loopback has no link speed".into()),
            mtu: None,
            loopback: true,
            distance_m: Some(1e6),
        };
        let p = net_floor(&i);
        assert_eq!(p.value, None);
        assert!(p.source.contains("loopback has no link"), "{}", p.source);
        assert!(
            p.source.contains("--distance 1000 km is for a link"),
            "{}",
            p.source
        );
        // A virtual device: no serialisation term, but the distance still bounds it.
        i.loopback = false;
        i.link = Err("unknown: veth0 is a virtual device without a link speed".into());
        let p = net_floor(&i);
        assert!((p.value.unwrap() - 2.0 * 1e6 / FIBRE_SPEED).abs() < 1e-12);
        assert!(
            p.source
                .contains("no serialisation term (veth0 is a virtual"),
            "{}",
            p.source
        );
        i.distance_m = None;
        let p = net_floor(&i);
        assert_eq!(p.value, None);
        assert!(p.source.contains("give --distance"), "{}", p.source);
    }

    /// A recorded machine: the Zen 4 "AMD EPYC" KVM guest (32 KiB L1d, 1 MiB L2, a
    /// 32 MiB L3 shared by 2) at its measured 3.69 GHz.
    fn zen4() -> crate::hw::cpudesc::CpuDescription {
        let path = format!(
            "{}/tests/fixtures/cpus/recorded-kvm-amd-epyc-zen4-family25-model17.json",
            env!("CARGO_MANIFEST_DIR")
        );
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        serde_json::from_value(v["cpu"].clone()).unwrap()
    }

    fn floor(per_thread: u64, threads: usize) -> Peak {
        let d = zen4();
        let row = crate::hw::uarch::identify(&d).row;
        cache_floor(&CacheFloorInput {
            per_thread,
            threads,
            caches: &d.caches,
            row: &row,
            clock: Some((3.69e9, "measured, add chain")),
        })
    }

    #[test]
    fn the_cache_floor_of_a_recorded_machine() {
        // Inside L1: 4 cycles.
        let p = floor(16 << 10, 1);
        assert!((p.value.unwrap() - 4.0 / 3.69e9).abs() < 1e-15);
        assert!(p.source.contains("100.0 % L1 × 4"), "{}", p.source);
        assert!(
            p.source.contains("AMD Software Optimization Guide"),
            "{}",
            p.source
        );
        // 512 KiB: 1/16 of the lines can sit in L1, the rest in L2: 0.0625 × 4 +
        // 0.9375 × 14 = 13.375 cycles.
        let p = floor(512 << 10, 1);
        assert!((p.value.unwrap() - 13.375 / 3.69e9).abs() < 1e-15);
        assert!(
            p.source.contains("13.38 cycles at 3.690 GHz"),
            "{}",
            p.source
        );
        // 16 MiB on one thread: L1 + L2 + the rest from L3.
        let s = 16.0 * 1048576.0;
        let want = (32768.0 * 4.0 + 1048576.0 * 14.0 + (s - 32768.0 - 1048576.0) * 50.0) / s;
        let p = floor(16 << 20, 1);
        assert!((p.value.unwrap() - want / 3.69e9).abs() < 1e-15);
        // Two threads share the L3: 24 MiB each fits on one thread (L1 + L2 + 32 MiB)
        // but not on two (L1 + L2 + 16 MiB each).
        assert!(floor(24 << 20, 1).value.is_some());
        let p = floor(24 << 20, 2);
        assert_eq!(p.value, None);
        assert!(p.source.contains("DRAM"), "{}", p.source);
        // Past the caches: no figure, and why.
        let p = floor(256 << 20, 1);
        assert_eq!(p.value, None);
        assert!(
            p.source.contains("--peak memory.latency.dram"),
            "{}",
            p.source
        );
    }

    /// The figures of each row (issue #48: checked against the sources its text names).
    #[test]
    fn each_row_has_its_checked_figures_and_names_its_sources() {
        let want: &[(&str, f64, f64, f64, &[&str])] = &[
            (
                "Skylake-SP/Cascade Lake/Cooper Lake",
                4.0,
                14.0,
                46.0,
                &[
                    "Optimization Reference Manual",
                    "Xeon Platinum 8280",
                    "50-70",
                ],
            ),
            (
                "Skylake-SP/Cascade Lake (one 512-bit FMA unit)",
                4.0,
                14.0,
                46.0,
                &[
                    "Optimization Reference Manual",
                    "Xeon Platinum 8280",
                    "50-70",
                ],
            ),
            ("Zen 3", 4.0, 12.0, 46.0, &["(56665)", "on average"]),
            ("Zen 4", 4.0, 14.0, 50.0, &["(57647)", "on average"]),
        ];
        assert_eq!(CACHE_CYCLES.len(), want.len(), "a row without a test here");
        for (row, l1, l2, l3, names) in want {
            let c = cache_cycles(row).unwrap_or_else(|| panic!("{row} missing"));
            assert_eq!((c.l1, c.l2, c.l3), (*l1, *l2, Ok(*l3)), "{row}");
            for n in *names {
                assert!(c.source.contains(n), "{row}: {n} not in {}", c.source);
            }
            // Faster levels are faster: a typo swapping digits would break this.
            assert!(c.l1 < c.l2 && c.l2 < *l3, "{row}");
        }
    }

    /// The floor's text carries the row's source, so a report says where the cycles
    /// came from.
    #[test]
    fn the_floor_names_the_rows_source() {
        let d = zen4();
        let p = cache_floor(&CacheFloorInput {
            per_thread: 8 << 20,
            threads: 1,
            caches: &d.caches,
            row: "Skylake-SP/Cascade Lake/Cooper Lake",
            clock: Some((3e9, "measured, add chain")),
        });
        assert!(p.source.contains("L3 × 46"), "{}", p.source);
        assert!(p.source.contains("smallest credible"), "{}", p.source);
    }

    #[test]
    fn rows_without_figures_and_no_clock_say_so() {
        let d = zen4();
        let mut i = CacheFloorInput {
            per_thread: 4096,
            threads: 1,
            caches: &d.caches,
            row: "Haswell/Broadwell",
            clock: Some((3e9, "x")),
        };
        let p = cache_floor(&i);
        assert!(p
            .source
            .contains("no cache latencies in the table for row 'Haswell/Broadwell'"));
        i.row = "Zen 4";
        i.clock = None;
        assert!(cache_floor(&i).source.contains("no clock"));
        // Every row of the table is a row of the identification table.
        for (row, _) in CACHE_CYCLES {
            assert!(
                crate::hw::uarch::UARCHES.iter().any(|u| u.name == *row),
                "{row}"
            );
        }
    }
}
