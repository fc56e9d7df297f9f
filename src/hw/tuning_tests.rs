//! Tests of `hw::tuning` on recorded trees (tests/fixtures/tuning): an Intel host under
//! intel_pstate with two governors and isolated CPUs, an AMD host under amd-pstate
//! (guided) with boost and SMT off, and a KVM guest without cpufreq.

use super::*;
use std::path::PathBuf;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/tuning")
        .join(name)
}

#[test]
fn an_intel_host_with_two_governors_and_isolated_cpus() {
    let t = Tuning::read(&fixture("intel"));
    assert_eq!(
        t.governor.as_deref(),
        Some("performance (cpu 0-1), powersave (cpu 2-3)")
    );
    assert_eq!(t.driver.as_deref(), Some("intel_pstate"));
    // no_turbo = 0: turbo allowed.
    assert_eq!(t.boost, Some(true));
    assert_eq!(
        t.boost_file.as_deref(),
        Some("/sys/devices/system/cpu/intel_pstate/no_turbo")
    );
    assert_eq!(t.pstate.as_deref(), Some("intel_pstate active"));
    assert_eq!((t.smt.as_deref(), t.smt_active), (Some("on"), Some(true)));
    let i = t.isolation.clone().unwrap();
    assert_eq!(i.isolcpus.as_deref(), Some("nohz,domain,2-3"));
    assert_eq!(i.nohz_full.as_deref(), Some("2-3"));
    assert_eq!(i.rcu_nocbs.as_deref(), Some("2-3"));
    assert_eq!(
        t.line(),
        "governor performance (cpu 0-1), powersave (cpu 2-3) (intel_pstate), boost on, \
         intel_pstate active, SMT on (active), isolcpus=nohz,domain,2-3 nohz_full=2-3 rcu_nocbs=2-3"
    );
}

#[test]
fn an_amd_host_with_boost_and_smt_off() {
    let t = Tuning::read(&fixture("amd"));
    assert_eq!(t.governor.as_deref(), Some("powersave"));
    assert_eq!(t.driver.as_deref(), Some("amd-pstate-epp"));
    assert_eq!(t.boost, Some(false));
    assert_eq!(t.pstate.as_deref(), Some("amd-pstate guided"));
    assert_eq!(
        t.line(),
        "governor powersave (amd-pstate-epp), boost off, amd-pstate guided, SMT off (inactive), no CPU isolation"
    );
    let p = t.pairs();
    assert!(p.contains(&("isolcpus", "none".to_string())));
    assert!(p.contains(&("boost", "off".to_string())));
}

#[test]
fn a_guest_without_cpufreq_says_so_once() {
    let t = Tuning::read(&fixture("vm"));
    assert!(t.no_cpufreq());
    assert_eq!(
        t.line(),
        "cpufreq not exposed (governor, boost and p-state mode unknown), SMT notsupported (inactive), no CPU isolation"
    );
    assert_eq!(t.line().matches("unknown").count(), 1);
    // Init's arguments after `--` are not the kernel's.
    assert_eq!(t.isolation, Some(Isolation::default()));
    assert!(t.pairs().contains(&("governor", UNKNOWN.to_string())));
}

#[test]
fn an_empty_root_is_all_unknown_and_its_json_is_empty() {
    let dir = tempfile::tempdir().unwrap();
    let t = Tuning::read(dir.path());
    assert_eq!(t, Tuning::default());
    assert_eq!(
        t.line(),
        "cpufreq not exposed (governor, boost and p-state mode unknown), SMT unknown, isolation unknown"
    );
    assert_eq!(serde_json::to_string(&t).unwrap(), "{}");
    assert!(t.pairs().iter().all(|(_, v)| v == UNKNOWN));
}

#[test]
fn the_command_line_last_setting_wins() {
    let i = parse_cmdline("isolcpus=1 ro isolcpus=2-3 nohz_full");
    assert_eq!(i.isolcpus.as_deref(), Some("2-3"));
    // A bare word without `=` sets nothing.
    assert_eq!(i.nohz_full, None);
}

#[test]
fn tuning_round_trips_through_json() {
    let t = Tuning::read(&fixture("intel"));
    let back: Tuning = serde_json::from_str(&serde_json::to_string(&t).unwrap()).unwrap();
    assert_eq!(back, t);
}
