//! Tests of `measure::energy` on fake sysfs trees: a two-socket RAPL machine (packages
//! with a dram subzone each, one MMIO duplicate), an amd_energy hwmon chip, a machine
//! whose zones are root-only, and recorded counter sequences that wrap.

use super::*;

fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

/// Zone `dir` (under powercap) named `name` at `uj` of a `max`-µJ range.
fn zone(root: &Path, dir: &str, name: &str, uj: u64, max: u64) {
    let d = format!("sys/class/powercap/{dir}");
    write(root, &format!("{d}/name"), &format!("{name}\n"));
    write(root, &format!("{d}/energy_uj"), &format!("{uj}\n"));
    write(
        root,
        &format!("{d}/max_energy_range_uj"),
        &format!("{max}\n"),
    );
}

const MAX: u64 = 262_143_328_850;

fn two_sockets(root: &Path) {
    // The control type directory, not a zone.
    std::fs::create_dir_all(root.join("sys/class/powercap/intel-rapl")).unwrap();
    zone(root, "intel-rapl:0", "package-0", 1_000_000, MAX);
    zone(root, "intel-rapl:0:0", "dram", 500_000, MAX);
    zone(root, "intel-rapl:1", "package-1", 2_000_000, MAX);
    zone(root, "intel-rapl:1:0", "dram", 700_000, MAX);
    zone(root, "intel-rapl-mmio:0", "package-0", 9, MAX);
}

#[test]
fn a_two_socket_rapl_tree_names_packages_and_their_dram() {
    let dir = tempfile::tempdir().unwrap();
    two_sockets(dir.path());
    let c = Counters::discover(dir.path(), false);
    let names: Vec<&str> = c.list.iter().map(|c| c.domain.as_str()).collect();
    // The MMIO zone repeats package-0 and is left out.
    assert_eq!(names, ["package-0", "dram-0", "package-1", "dram-1"]);
    assert_eq!(c.list[0].source, "/sys/class/powercap/intel-rapl:0");
    assert_eq!(c.list[0].max_uj, Some(MAX));
    assert_eq!(
        c.read_all(),
        [
            Some(1_000_000),
            Some(500_000),
            Some(2_000_000),
            Some(700_000)
        ]
    );
    let info = c.info();
    assert_eq!(info.none, None);
    assert!(info
        .line()
        .starts_with("package-0 (/sys/class/powercap/intel-rapl:0), dram-0"));
}

#[test]
fn a_recorded_sequence_across_a_wrap_counts_the_rest_of_the_range() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    zone(root, "intel-rapl:0", "package-0", MAX - 3_000_000, MAX);
    let c = Counters::discover(root, false);
    // package-0 read around four windows: 1 J, 21 J across the wrap (2 J to the end
    // of the range, 19 J after), 25 J, 10 J; the wrap must not show as a negative
    // energy.
    let seq = [
        MAX - 3_000_000,
        MAX - 2_000_000,
        19_000_000,
        44_000_000,
        54_000_000,
    ];
    let mut marks = Vec::new();
    for v in seq {
        write(
            root,
            "sys/class/powercap/intel-rapl:0/energy_uj",
            &v.to_string(),
        );
        marks.push(EnergyMark {
            values: c.read_all(),
            at: None,
        });
    }
    let joules: Vec<f64> = marks
        .windows(2)
        .map(|w| EnergyMark::between(&c, &w[0], &w[1], 2.0)[0].joules)
        .collect();
    assert_eq!(joules, [1.0, 21.0, 25.0, 10.0]);
    let e = &EnergyMark::between(&c, &marks[3], &marks[4], 2.0)[0];
    assert_eq!((e.domain.as_str(), e.watts()), ("package-0", 5.0));
}

#[test]
fn the_delta_rule() {
    assert_eq!(delta_uj(10, 25, Some(100)), Some(15));
    // Wrapped: the rest of the range, then from 0.
    assert_eq!(delta_uj(90, 5, Some(100)), Some(15));
    // Backwards without a known range: no figure, never a negative one.
    assert_eq!(delta_uj(90, 5, None), None);
    // A "range" below the first reading is no range.
    assert_eq!(delta_uj(200, 5, Some(100)), None);
}

#[test]
fn hwmon_energy_sensors_are_read_without_per_core_ones() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let h = "sys/class/hwmon/hwmon3";
    write(root, &format!("{h}/name"), "amd_energy\n");
    write(root, &format!("{h}/energy1_input"), "123456789\n");
    write(root, &format!("{h}/energy1_label"), "Ecore000\n");
    write(root, &format!("{h}/energy17_input"), "987654321\n");
    write(root, &format!("{h}/energy17_label"), "Esocket0\n");
    write(root, "sys/class/hwmon/hwmon0/name", "coretemp\n");
    write(root, "sys/class/hwmon/hwmon0/temp1_input", "45000\n");
    let c = Counters::discover(root, false);
    let names: Vec<&str> = c.list.iter().map(|c| c.domain.as_str()).collect();
    assert_eq!(names, ["amd_energy Esocket0"]);
    assert_eq!(c.list[0].source, "/sys/class/hwmon/hwmon3/energy17_input");
    assert_eq!(c.read_all(), [Some(987_654_321)]);
    assert_eq!(kind("amd_energy Esocket0"), "amd_energy Esocket");
}

#[test]
fn none_readable_is_said_once_with_why() {
    let dir = tempfile::tempdir().unwrap();
    let c = Counters::discover(dir.path(), false);
    assert!(c.list.is_empty());
    assert_eq!(
        c.info().line(),
        "no energy counters readable here (no RAPL zone in /sys/class/powercap; no hwmon energy sensor; no perf power PMU (/sys/bus/event_source/devices/power))"
    );
    assert!(EnergyMark::read(&c).values.is_empty());
    // JSON of a machine without counters: only the reason.
    let j = serde_json::to_value(c.info()).unwrap();
    assert_eq!(j.as_object().unwrap().len(), 1);
}

#[test]
fn a_zone_that_is_root_only_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    zone(root, "intel-rapl:0", "package-0", 1, MAX);
    // An unreadable file reads like a directory in its place: present, no number.
    let f = root.join("sys/class/powercap/intel-rapl:0/energy_uj");
    std::fs::remove_file(&f).unwrap();
    std::fs::create_dir(&f).unwrap();
    let c = Counters::discover(root, false);
    assert!(c.list.is_empty());
    assert!(
        c.info()
            .line()
            .contains("powercap intel-rapl:0 energy_uj not readable (root only since Linux 5.10)"),
        "{}",
        c.info().line()
    );
}

#[test]
fn kinds_sum_sockets() {
    assert_eq!(kind("package-1"), "package");
    assert_eq!(kind("dram-0"), "dram");
    assert_eq!(kind("gpu12"), "gpu");
    assert_eq!(kind("psys"), "psys");
}
