//! What a result is of and in: its resource ([`ResourceName`], a validated name with
//! the resource's facts), the kind of figure ([`Metric`]) and its unit ([`Unit`]), each
//! a row of data that every reader asks rather than matching on today's resources
//! (issue #46 item 1).
//!
//! - A [`Unit`] row holds its symbol (`B/s`, as JSON writes it), the metric it measures,
//!   its OpenMetrics name and whether a smaller figure is better: `physics::unit_of`,
//!   `compare`, `fleet`, the gate and `view::openmetrics` read it.
//! - A [`ResourceName`] row holds the resource's facts: its noise floor (the default
//!   tolerance of `compare` and the gate), its `--peak` key per row, and what its charts
//!   draw. A resource creates its results with its own row (`bench::<r>`); a file's
//!   results get the row of the built-in resource of that name ([`ResourceName::ALL`]),
//!   or, for a name none has, a row of default facts under that name.
//! - JSON writes each as the same string as ever (`memory`, `throughput`, `B/s`), and
//!   they sort in the order of their rows (`rank`), as the enums they replace did.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// Declares `$t`, a handle on a `$def` row (`$attr`: its doc), with `new` (a row of a
/// resource's own, usually a `static`), `parse` (the built-in row, of `ALL`, of that
/// name), `as_str` (the row's `$field`, its JSON name), `Display` and `Serialize`.
macro_rules! row_handle {
    ($(#[$attr:meta])* $t:ident($def:ident), $field:ident) => {
        $(#[$attr])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $t(&'static $def);

        impl $t {
            /// A row of a resource's own (usually a `static`).
            pub const fn new(def: &'static $def) -> $t {
                $t(def)
            }

            /// The built-in row of this name.
            pub fn parse(s: &str) -> Option<$t> {
                Self::ALL.iter().copied().find(|v| v.as_str() == s)
            }

            /// The name as written in JSON and shown in the views.
            pub(crate) fn as_str(self) -> &'static str {
                self.0.$field
            }
        }

        impl fmt::Display for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl Serialize for $t {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }
    };
}

/// Declares the built-in rows of `$t` (`$attr`: the block's doc) as its associated
/// constants `$name` (each with its doc, `$row_attr`), and `$t::ALL`: every one of
/// them, in order, what a file may hold.
macro_rules! builtin {
    ($(#[$attr:meta])* $t:ident($def:ident) {
        $($(#[$row_attr:meta])* $name:ident = $row:expr;)+
    }) => {
        $(#[$attr])*
        #[allow(non_upper_case_globals)]
        impl $t {
            $($(#[$row_attr])* pub const $name: $t = $t(&$row);)+

            /// Every built-in row, in order: what a file may hold.
            pub const ALL: &'static [$t] = &[$($t::$name),+];
        }
    };
}

/// One kind of figure: its name in JSON and its direction.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct MetricDef {
    /// Sort order (declaration order of the built-in rows; a resource's own after).
    pub rank: u16,
    /// The name in JSON (`throughput`).
    pub name: &'static str,
    /// Whether a smaller figure is better (latencies).
    pub lower_is_better: bool,
}

row_handle!(
    /// The kind of figure: a row of [`MetricDef`] (JSON: its name).
    Metric(MetricDef),
    name
);

/// One unit: its symbol in JSON, the metric it measures, its OpenMetrics name and its
/// direction.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct UnitDef {
    /// Sort order (declaration order of the built-in rows; a resource's own after).
    pub rank: u16,
    /// The symbol in JSON and the views (`B/s`).
    pub symbol: &'static str,
    /// The metric a figure in it measures.
    pub metric: Metric,
    /// The OpenMetrics family after `peakbench_` (`bytes_per_second`).
    pub openmetrics: &'static str,
    /// The OpenMetrics `# UNIT`, where the name ends in a base unit.
    pub openmetrics_unit: Option<&'static str>,
    /// What one sample counts, for the family's `# HELP`.
    pub what: &'static str,
    /// Whether a smaller figure is better (seconds).
    pub lower_is_better: bool,
}

row_handle!(
    /// Unit of a result's samples, summary, peak and reference figures: a row of
    /// [`UnitDef`] (JSON: its symbol).
    Unit(UnitDef),
    symbol
);

/// Where a row's `--peak` key comes from: for rows of `metric` (any when `None`), the
/// key `with` (its `{precision}` replaced by the row's `precision` parameter), or
/// `without` when the row has none.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PeakHint {
    /// The metric of the rows it is for; `None`: every row.
    pub metric: Option<Metric>,
    /// The key, with `{precision}` standing for the row's precision.
    pub with: &'static str,
    /// The key of a row without a precision.
    pub without: &'static str,
}

/// What a resource's rows draw in the charts.
#[derive(Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ChartHint {
    /// Byte-size sweeps carry the cache sizes as vertical marks (memory, cpu).
    pub cache_marks: bool,
    /// Its `FLOP/s` rows are ceilings of the roofline (not linalg's points).
    pub compute_ceiling: bool,
    /// Its `B/s` throughput rows are bandwidth ceilings of the roofline.
    pub bandwidth_ceiling: bool,
}

/// A resource's facts, as its results carry them.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ResourceDef {
    /// Sort order (the registry's order of the built-in rows; others after, by name).
    pub rank: u16,
    /// The name: its subcommand, `resource` in JSON.
    pub name: &'static str,
    /// The smallest relative change taken as more than run-to-run noise, in percent:
    /// `compare`'s floor and the gate's default tolerance.
    pub noise_floor_pct: u8,
    /// Its rows' `--peak` keys, first match first (empty: no key to suggest).
    pub peak: &'static [PeakHint],
    /// What its charts draw.
    pub chart: ChartHint,
}

row_handle!(
    /// What a result measures: a validated name (lower-case ASCII letters, digits and
    /// `-`, starting with a letter) with its resource's facts ([`ResourceDef`]).
    ResourceName(ResourceDef),
    name
);

/// The facts of a resource that says nothing of its own: a 5 % noise floor, no `--peak`
/// key to suggest, a compute ceiling for its `FLOP/s` rows.
pub(crate) const DEFAULT_FACTS: ResourceDef = ResourceDef {
    rank: u16::MAX,
    name: "",
    noise_floor_pct: 5,
    peak: &[],
    chart: ChartHint {
        cache_marks: false,
        compute_ceiling: true,
        bandwidth_ceiling: false,
    },
};

builtin! {
    /// The built-in metrics, in order.
    Metric(MetricDef) {
        /// Operations per second (`OP/s`, `FLOP/s`).
        Ops = MetricDef { rank: 0, name: "ops", lower_is_better: false };
        /// Bytes per second.
        Throughput = MetricDef { rank: 1, name: "throughput", lower_is_better: false };
        /// I/O operations per second.
        Iops = MetricDef { rank: 2, name: "iops", lower_is_better: false };
        /// Seconds per operation.
        Latency = MetricDef { rank: 3, name: "latency", lower_is_better: true };
    }
}

impl Metric {
    /// Whether a smaller figure is better (latencies).
    pub(crate) fn lower_is_better(self) -> bool {
        self.0.lower_is_better
    }
}

builtin! {
    /// The built-in units, in order.
    Unit(UnitDef) {
        /// Integer operations per second.
        OpPerSec = UnitDef { rank: 0, symbol: "OP/s", metric: Metric::Ops, openmetrics: "operations_per_second", openmetrics_unit: None, what: "integer operations per second", lower_is_better: false };
        /// Floating-point operations per second (an FMA is 2).
        FlopPerSec = UnitDef { rank: 1, symbol: "FLOP/s", metric: Metric::Ops, openmetrics: "floating_point_operations_per_second", openmetrics_unit: None, what: "floating-point operations per second (an FMA is 2)", lower_is_better: false };
        /// Bytes per second.
        BytePerSec = UnitDef { rank: 2, symbol: "B/s", metric: Metric::Throughput, openmetrics: "bytes_per_second", openmetrics_unit: Some("bytes_per_second"), what: "bytes per second", lower_is_better: false };
        /// I/O operations per second.
        IoPerSec = UnitDef { rank: 3, symbol: "IO/s", metric: Metric::Iops, openmetrics: "io_operations_per_second", openmetrics_unit: None, what: "I/O operations per second", lower_is_better: false };
        /// Seconds.
        Second = UnitDef { rank: 4, symbol: "s", metric: Metric::Latency, openmetrics: "latency_seconds", openmetrics_unit: Some("seconds"), what: "seconds per operation (latency)", lower_is_better: true };
    }
}

impl Unit {
    /// Its row.
    pub(crate) fn def(self) -> &'static UnitDef {
        self.0
    }

    /// Whether a figure in it measures `metric` (`B/s`: throughput).
    pub(crate) fn measures(self, metric: Metric) -> bool {
        self.0.metric == metric
    }

    /// Whether a smaller figure is better (seconds).
    pub(crate) fn lower_is_better(self) -> bool {
        self.0.lower_is_better
    }
}

/// The `--peak` key of the rows of `cpu` and of `linalg` (whose peak is the CPU's):
/// `cpu.{precision}`, or `cpu` for a row without a precision.
const CPU_PEAK: &[PeakHint] = &[PeakHint {
    metric: None,
    with: "cpu.{precision}",
    without: "cpu",
}];

/// The built-in resources, in the registry's order (a test holds them to it).
#[allow(non_upper_case_globals)]
impl ResourceName {
    /// Processor compute (`peakbench cpu`).
    pub const Cpu: ResourceName = ResourceName(&ResourceDef {
        rank: 0,
        name: "cpu",
        noise_floor_pct: 5,
        peak: CPU_PEAK,
        chart: ChartHint {
            cache_marks: true,
            compute_ceiling: true,
            bandwidth_ceiling: false,
        },
    });
    /// Memory bandwidth and latency.
    pub const Memory: ResourceName = ResourceName(&ResourceDef {
        rank: 1,
        name: "memory",
        noise_floor_pct: 10,
        peak: &[
            PeakHint {
                metric: Some(Metric::Latency),
                with: "memory.latency",
                without: "memory.latency",
            },
            PeakHint {
                metric: None,
                with: "memory",
                without: "memory",
            },
        ],
        chart: ChartHint {
            cache_marks: true,
            compute_ceiling: true,
            bandwidth_ceiling: true,
        },
    });
    /// Storage.
    pub const Disk: ResourceName = ResourceName(&ResourceDef {
        rank: 2,
        name: "disk",
        noise_floor_pct: 20,
        peak: &[
            PeakHint {
                metric: Some(Metric::Latency),
                with: "disk.latency",
                without: "disk.latency",
            },
            PeakHint {
                metric: Some(Metric::Iops),
                with: "disk.iops",
                without: "disk.iops",
            },
            PeakHint {
                metric: None,
                with: "disk",
                without: "disk",
            },
        ],
        chart: ChartHint {
            cache_marks: false,
            compute_ceiling: true,
            bandwidth_ceiling: false,
        },
    });
    /// Network.
    pub const Net: ResourceName = ResourceName(&ResourceDef {
        rank: 3,
        name: "net",
        noise_floor_pct: 20,
        peak: &[
            PeakHint {
                metric: Some(Metric::Latency),
                with: "net.latency",
                without: "net.latency",
            },
            PeakHint {
                metric: None,
                with: "net",
                without: "net",
            },
        ],
        chart: ChartHint {
            cache_marks: false,
            compute_ceiling: true,
            bandwidth_ceiling: false,
        },
    });
    /// GPU compute, memory and transfers.
    pub const Gpu: ResourceName = ResourceName(&ResourceDef {
        rank: 4,
        name: "gpu",
        noise_floor_pct: 10,
        peak: &[
            PeakHint {
                metric: Some(Metric::Ops),
                with: "gpu.{precision}",
                without: "gpu.fp32",
            },
            PeakHint {
                metric: None,
                with: "gpu.memory",
                without: "gpu.memory",
            },
        ],
        chart: ChartHint {
            cache_marks: false,
            compute_ceiling: true,
            bandwidth_ceiling: true,
        },
    });
    /// Dense linear algebra (`peakbench linalg`: GEMM, LU solve): points on the
    /// roofline, not ceilings.
    pub const Linalg: ResourceName = ResourceName(&ResourceDef {
        rank: 5,
        name: "linalg",
        noise_floor_pct: 5,
        peak: CPU_PEAK,
        chart: ChartHint {
            cache_marks: false,
            compute_ceiling: false,
            bandwidth_ceiling: false,
        },
    });
    /// The do-nothing resource the tests drive the pipeline with.
    pub const Null: ResourceName = ResourceName(&ResourceDef {
        rank: 6,
        name: "null",
        ..DEFAULT_FACTS
    });

    /// The built-in resources, in order: the rows a file's results are read with.
    pub const ALL: &'static [ResourceName] = &[
        ResourceName::Cpu,
        ResourceName::Memory,
        ResourceName::Disk,
        ResourceName::Net,
        ResourceName::Gpu,
        ResourceName::Linalg,
        ResourceName::Null,
    ];

    /// The resource named `s` as a file holds it: the built-in row of that name, or
    /// default facts under it (a resource this build does not have). The name of such a
    /// row lives as long as the process: it is read once per result, from files that
    /// name a resource this build lacks.
    pub(crate) fn read(s: &str) -> Result<ResourceName, String> {
        if let Some(r) = Self::parse(s) {
            return Ok(r);
        }
        valid_name(s)?;
        let name: &'static str = Box::leak(s.to_string().into_boxed_str());
        Ok(ResourceName(Box::leak(Box::new(ResourceDef {
            name,
            ..DEFAULT_FACTS
        }))))
    }

    /// Its facts.
    pub(crate) fn facts(self) -> &'static ResourceDef {
        self.0
    }

    /// `compare`'s noise floor and the gate's default tolerance, as a fraction.
    pub(crate) fn noise_floor(self) -> f64 {
        f64::from(self.0.noise_floor_pct) / 100.0
    }

    /// The `--peak` key of a row of `metric` with the `precision` parameter, if the
    /// resource reads one.
    pub(crate) fn peak_key(self, metric: Metric, precision: Option<&str>) -> Option<String> {
        let h = self
            .0
            .peak
            .iter()
            .find(|h| h.metric.is_none_or(|m| m == metric))?;
        Some(match precision {
            Some(p) => h.with.replace("{precision}", p),
            None => h.without.to_string(),
        })
    }
}

/// Whether `s` is a resource name: 1 to 32 lower-case ASCII letters, digits and `-`,
/// starting with a letter.
pub(crate) fn valid_name(s: &str) -> Result<(), String> {
    let ok = (1..=32).contains(&s.len())
        && s.starts_with(|c: char| c.is_ascii_lowercase())
        && s.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
    if ok {
        Ok(())
    } else {
        Err(format!(
            "'{s}' is not a resource name; use 1 to 32 lower-case letters, digits and '-', starting with a letter"
        ))
    }
}

impl<'de> Deserialize<'de> for ResourceName {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        ResourceName::read(&s).map_err(serde::de::Error::custom)
    }
}

/// The built-in metrics' names, for serde's "expected one of" (a test holds them to
/// [`Metric::ALL`]).
const METRIC_NAMES: &[&str] = &["ops", "throughput", "iops", "latency"];

/// The built-in units' symbols, for serde's "expected one of" (a test holds them to
/// [`Unit::ALL`]).
const UNIT_NAMES: &[&str] = &["OP/s", "FLOP/s", "B/s", "IO/s", "s"];

/// Reads a built-in row by its JSON name; anything else is serde's unknown-variant
/// error naming the accepted names, as when these were enums.
fn read_row<'de, D: Deserializer<'de>, T: Copy + fmt::Display>(
    d: D,
    all: &[T],
    names: &'static [&'static str],
) -> Result<T, D::Error> {
    let s = String::deserialize(d)?;
    all.iter()
        .copied()
        .find(|v| v.to_string() == s)
        .ok_or_else(|| serde::de::Error::unknown_variant(&s, names))
}

/// The built-in resources' names, for serde's "expected one of" (a test holds them to
/// [`ResourceName::ALL`]).
const RESOURCE_NAMES: &[&str] = &["cpu", "memory", "disk", "net", "gpu", "linalg", "null"];

/// Reads a built-in resource only (`deserialize_with`), for files that must name one:
/// a baseline's cases, whose tolerances and directions are the built-in rows' facts.
pub(crate) fn built_in<'de, D: Deserializer<'de>>(d: D) -> Result<ResourceName, D::Error> {
    read_row(d, ResourceName::ALL, RESOURCE_NAMES)
}

impl<'de> Deserialize<'de> for Metric {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        read_row(d, Metric::ALL, METRIC_NAMES)
    }
}

impl<'de> Deserialize<'de> for Unit {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        read_row(d, Unit::ALL, UNIT_NAMES)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_sort_in_their_order_and_read_back() {
        assert!(Metric::ALL.windows(2).all(|w| w[0] < w[1]));
        assert!(Unit::ALL.windows(2).all(|w| w[0] < w[1]));
        assert!(ResourceName::ALL.windows(2).all(|w| w[0] < w[1]));
        for u in Unit::ALL {
            let back: Unit = serde_json::from_value(u.as_str().into()).unwrap();
            assert_eq!(back, *u);
            assert_eq!(u.lower_is_better(), u.def().metric.lower_is_better());
        }
        for r in ResourceName::ALL {
            valid_name(r.as_str()).unwrap();
            let back: ResourceName = serde_json::from_value(r.as_str().into()).unwrap();
            assert_eq!(back, *r);
        }
        let names = |v: Vec<String>| v.join(",");
        assert_eq!(
            names(Unit::ALL.iter().map(|u| u.to_string()).collect()),
            UNIT_NAMES.join(",")
        );
        assert_eq!(
            names(Metric::ALL.iter().map(|u| u.to_string()).collect()),
            METRIC_NAMES.join(",")
        );
        assert_eq!(
            names(ResourceName::ALL.iter().map(|u| u.to_string()).collect()),
            RESOURCE_NAMES.join(",")
        );
        let e = serde_json::from_str::<Unit>("\"W\"")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("unknown variant `W`, expected one of `OP/s`"),
            "{e}"
        );
    }

    /// A name no built-in resource has is read with default facts; a bad one is not.
    #[test]
    fn a_resource_name_is_validated_not_enumerated() {
        let r: ResourceName = serde_json::from_str("\"power\"").unwrap();
        assert_eq!(r.as_str(), "power");
        assert_eq!(r.noise_floor(), 0.05);
        assert_eq!(r.peak_key(Metric::Ops, None), None);
        assert_eq!(serde_json::to_string(&r).unwrap(), "\"power\"");
        for bad in ["", "Power", "1cpu", "a b", "ünï"] {
            assert!(
                serde_json::from_value::<ResourceName>(bad.into()).is_err(),
                "{bad}"
            );
        }
    }

    #[test]
    fn facts_answer_as_the_old_matches_did() {
        assert_eq!(ResourceName::Disk.noise_floor(), 0.20);
        assert_eq!(ResourceName::Gpu.noise_floor(), 0.10);
        assert_eq!(ResourceName::Linalg.noise_floor(), 0.05);
        let key = |r: ResourceName, m, p| r.peak_key(m, p);
        assert_eq!(
            key(ResourceName::Cpu, Metric::Ops, Some("fp64")).unwrap(),
            "cpu.fp64"
        );
        assert_eq!(key(ResourceName::Linalg, Metric::Ops, None).unwrap(), "cpu");
        assert_eq!(
            key(ResourceName::Disk, Metric::Iops, None).unwrap(),
            "disk.iops"
        );
        assert_eq!(
            key(ResourceName::Disk, Metric::Latency, None).unwrap(),
            "disk.latency"
        );
        // The latency keys of #48: one per resource with latency rows.
        assert_eq!(
            key(ResourceName::Memory, Metric::Latency, None).unwrap(),
            "memory.latency"
        );
        assert_eq!(
            key(ResourceName::Net, Metric::Latency, None).unwrap(),
            "net.latency"
        );
        assert_eq!(
            key(ResourceName::Net, Metric::Throughput, None).unwrap(),
            "net"
        );
        assert_eq!(
            key(ResourceName::Gpu, Metric::Ops, None).unwrap(),
            "gpu.fp32"
        );
        assert_eq!(
            key(ResourceName::Gpu, Metric::Throughput, Some("fp32")).unwrap(),
            "gpu.memory"
        );
        assert_eq!(key(ResourceName::Null, Metric::Ops, None), None);
    }
}
