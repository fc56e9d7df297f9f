//! `--cpus LIST` through the binary (issue #32 item 13): the CPU-bound commands run on
//! the logical CPUs listed and only there (the host they detect, the default thread
//! counts, the pinning and the peaks all follow them), the report records them, and bad
//! lists, more threads than CPUs listed and commands it does not apply to are refused
//! with one line and exit code 2.

use crate::common;

use common::{pb, refused, success_json};

/// The CPUs this test process may run on (the binary inherits the same mask).
fn allowed() -> Vec<usize> {
    // SAFETY: cpu_set_t is plain data, filled by the kernel.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        assert_eq!(
            libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set),
            0
        );
        (0..libc::CPU_SETSIZE as usize)
            .filter(|&c| libc::CPU_ISSET(c, &set))
            .collect()
    }
}

#[test]
fn the_cpu_command_runs_on_the_cpus_listed_and_says_so() {
    // The last CPU we may use: a run confined to it cannot land elsewhere by chance.
    let cpu = *allowed().last().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = pb()
        .args(["cpu", "--precision", "fp64", "--isa", "generic", "--quiet"])
        .args(["--min-time", "5ms", "--repeat", "2", "--format", "json"])
        .args(["--cpus", &cpu.to_string(), "--output"])
        .arg(dir.path())
        .output()
        .unwrap();
    let report = success_json(&out, "cpu --cpus");
    assert_eq!(report["config"]["cpus"], serde_json::json!([cpu]));
    // The host is the chosen CPUs: one logical CPU, one core.
    assert_eq!(report["host"]["cpu"]["threads"], 1);
    assert_eq!(report["host"]["cpu"]["cores"], 1);
    assert_eq!(report["host"]["cpu"]["pin_order"], serde_json::json!([cpu]));
    let results = report["results"].as_array().unwrap();
    // Default thread counts follow the CPUs listed: only 1.
    assert_eq!(results.len(), 1, "{results:?}");
    let r = &results[0];
    assert_eq!(r["status"], "ok", "{r}");
    assert_eq!(r["params"]["threads"], 1);
    // Every sample's thread ran pinned on the CPU listed.
    for s in r["share"].as_array().unwrap() {
        for t in s["threads"].as_array().unwrap() {
            assert_eq!(t["cpu"], cpu, "{r}");
        }
    }
}

#[test]
fn without_cpus_the_report_has_no_cpus_entry() {
    let dir = tempfile::tempdir().unwrap();
    let out = pb()
        .args(["cpu", "--precision", "fp64", "--isa", "generic", "--quiet"])
        .args(["--min-time", "5ms", "--repeat", "1", "--threads", "1"])
        .args(["--format", "json", "--output"])
        .arg(dir.path())
        .output()
        .unwrap();
    let report = success_json(&out, "cpu");
    assert!(
        report["config"].get("cpus").is_none(),
        "{}",
        report["config"]
    );
    assert_eq!(report["host"]["cpu"]["threads"], allowed().len());
}

#[test]
fn bad_lists_and_commands_it_does_not_apply_to_are_refused() {
    let all = allowed();
    let outside = (all.last().unwrap() + 1).to_string();
    let n = all.len();
    let too_many = (n + 1).to_string();
    let first = all[0].to_string();
    let cases: Vec<(Vec<&str>, Vec<&str>)> = vec![
        (
            vec!["cpu", "--cpus", &outside],
            vec!["--cpus:", "not one this process may run on"],
        ),
        (
            vec!["memory", "--cpus", "x"],
            vec!["--cpus:", "not a CPU number", "0,2-3"],
        ),
        (
            vec!["linalg", "--cpus", "1-0"],
            vec!["--cpus:", "backwards"],
        ),
        (vec!["cpu", "--cpus", "0,0"], vec!["--cpus:", "twice"]),
        (vec!["cpu", "--cpus", "0,"], vec!["--cpus:", "empty entry"]),
        (
            vec!["cpu", "--cpus", &first, "--threads", &too_many],
            vec!["--threads:", "--cpus lists 1 CPU"],
        ),
        (
            vec!["disk", "--cpus", &first],
            vec!["--cpus:", "applies only to"],
        ),
        (vec!["--cpus", &first], vec!["--cpus:", "applies only to"]),
    ];
    for (args, needles) in cases {
        refused(&mut pb(), &args, &needles);
    }
}
