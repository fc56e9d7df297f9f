//! The host's CPU figures as `/proc` shows them, for [`super::share`]'s host marks:
//! the jiffies and steal of each CPU and the runnable tasks (`/proc/stat`), the CPU
//! pressure (`/proc/pressure/cpu`), the state of a thread (`/proc/…/task/N/stat`), and
//! the steal between two readings. Parsers are pure functions, tested on recorded text.

/// Jiffies of one CPU (or of all, the `cpu` line) in `/proc/stat`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct CpuTicks {
    /// Sum of every field (user … steal; guest time is already in user).
    pub(crate) total: u64,
    /// The steal field (8th).
    pub(crate) steal: u64,
}

/// What `/proc/stat` says that matters here.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct ProcStat {
    /// The `cpu` line: all CPUs together.
    pub(crate) all: CpuTicks,
    /// `cpuN` lines, by N.
    pub(crate) cpus: Vec<(usize, CpuTicks)>,
    /// `procs_running`: tasks runnable now, the reader included.
    pub(crate) procs_running: Option<u32>,
}

/// Parses `/proc/stat` text. Lines it does not know are ignored; a `cpu` line with
/// fewer than 8 fields (kernels before 2.6.11) has no steal and counts 0.
pub(crate) fn parse_stat(text: &str) -> ProcStat {
    let mut out = ProcStat::default();
    for line in text.lines() {
        let mut f = line.split_ascii_whitespace();
        let Some(key) = f.next() else { continue };
        if key == "procs_running" {
            out.procs_running = f.next().and_then(|v| v.parse().ok());
            continue;
        }
        let Some(rest) = key.strip_prefix("cpu") else {
            continue;
        };
        let v: Vec<u64> = f.map_while(|x| x.parse().ok()).collect();
        // Fields: user nice system idle iowait irq softirq steal guest guest_nice; guest
        // time is counted in user already, so the total stops at steal.
        let ticks = CpuTicks {
            total: v.iter().take(8).sum(),
            steal: v.get(7).copied().unwrap_or(0),
        };
        if rest.is_empty() {
            out.all = ticks;
        } else if let Ok(n) = rest.parse::<usize>() {
            out.cpus.push((n, ticks));
        }
    }
    out
}

/// The `some … total=` of `/proc/pressure/cpu`, microseconds some task waited for a CPU.
pub(crate) fn parse_pressure(text: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with("some "))?;
    line.split_ascii_whitespace()
        .find_map(|f| f.strip_prefix("total="))
        .and_then(|v| v.parse().ok())
}

/// The state letter of a `/proc/…/task/N/stat` line (`R` runnable, `S` sleeping, …):
/// the field after the command name, which is in parentheses and may hold spaces.
pub(crate) fn parse_task_state(text: &str) -> Option<char> {
    let rest = &text[text.rfind(')')? + 1..];
    rest.split_ascii_whitespace().next()?.chars().next()
}

/// Threads of this process that are runnable now (state `R`), the caller included; 1
/// where `/proc` is unreadable.
pub(crate) fn own_running() -> u32 {
    let Ok(dir) = std::fs::read_dir("/proc/self/task") else {
        return 1;
    };
    let n = dir
        .flatten()
        .filter(|e| {
            std::fs::read_to_string(e.path().join("stat"))
                .ok()
                .and_then(|t| parse_task_state(&t))
                == Some('R')
        })
        .count() as u32;
    n.max(1)
}

/// Stolen ÷ total jiffies between two readings, over `cpus` (all CPUs when empty, or
/// when a listed CPU has no line); `None` when no time passed in the readings' units.
pub(crate) fn steal_between(a: &ProcStat, b: &ProcStat, cpus: &[usize]) -> Option<f64> {
    let find = |s: &ProcStat, c: usize| s.cpus.iter().find(|(n, _)| *n == c).map(|(_, t)| *t);
    let picked: Option<Vec<(CpuTicks, CpuTicks)>> = if cpus.is_empty() {
        None
    } else {
        cpus.iter()
            .map(|&c| Some((find(a, c)?, find(b, c)?)))
            .collect()
    };
    let pairs = picked.unwrap_or_else(|| vec![(a.all, b.all)]);
    let (mut total, mut steal) = (0u64, 0u64);
    for (x, y) in pairs {
        total += y.total.saturating_sub(x.total);
        steal += y.steal.saturating_sub(x.steal);
    }
    (total > 0).then(|| steal as f64 / total as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// /proc/stat of a 2-vCPU guest (Linux 6.8), trimmed after `procs_blocked`.
    const STAT: &str = "cpu  1893842 1245 412893 98231765 20345 0 9812 4411 0 0
cpu0 946201 610 207118 49112533 10020 0 7103 2300 0 0
cpu1 947641 635 205775 49119232 10325 0 2709 2111 0 0
intr 1234567 0 9 0 0
ctxt 987654321
btime 1763990000
processes 456789
procs_running 3
procs_blocked 0
softirq 12345 0 1 2 3 4 5 6 7 8 9
";

    #[test]
    fn parses_recorded_proc_stat() {
        let s = parse_stat(STAT);
        assert_eq!(s.procs_running, Some(3));
        assert_eq!(s.all.steal, 4411);
        assert_eq!(
            s.all.total,
            1893842 + 1245 + 412893 + 98231765 + 20345 + 9812 + 4411
        );
        assert_eq!(s.cpus.len(), 2);
        assert_eq!(s.cpus[1].0, 1);
        assert_eq!(s.cpus[1].1.steal, 2111);
        // An old kernel's short line: no steal field, counted as 0.
        let old = parse_stat("cpu 1 2 3 4\ncpu0 1 2 3 4\n");
        assert_eq!(
            old.all,
            CpuTicks {
                total: 10,
                steal: 0
            }
        );
        assert_eq!(old.procs_running, None);
        assert_eq!(parse_stat(""), ProcStat::default());
    }

    #[test]
    fn steal_is_taken_over_the_cpus_in_use() {
        let a = parse_stat(STAT);
        let b = parse_stat(
            "cpu  1893942 1245 412893 98231865 20345 0 9812 4431 0 0
cpu0 946301 610 207118 49112533 10020 0 7103 2300 0 0
cpu1 947641 635 205775 49119312 10325 0 2709 2131 0 0
procs_running 1
",
        );
        // cpu1: 80 idle + 20 steal jiffies → 20 %; cpu0: 100 user, no steal.
        assert_eq!(steal_between(&a, &b, &[1]), Some(0.2));
        assert_eq!(steal_between(&a, &b, &[0]), Some(0.0));
        assert_eq!(steal_between(&a, &b, &[0, 1]), Some(0.1));
        // Unpinned (or a CPU without a line): the all-CPU line, 20 of 220.
        assert_eq!(steal_between(&a, &b, &[]), Some(20.0 / 220.0));
        assert_eq!(steal_between(&a, &b, &[7]), Some(20.0 / 220.0));
        assert_eq!(steal_between(&a, &a, &[1]), None);
    }

    #[test]
    fn parses_recorded_pressure() {
        let t = "some avg10=49.51 avg60=20.01 avg300=5.12 total=123456789
full avg10=0.00 avg60=0.00 avg300=0.00 total=0
";
        assert_eq!(parse_pressure(t), Some(123456789));
        assert_eq!(parse_pressure("full avg10=0.00 total=5\n"), None);
        assert_eq!(parse_pressure(""), None);
    }

    #[test]
    fn the_task_state_is_read_after_the_command_name() {
        assert_eq!(
            parse_task_state("1234 (peakbench) R 1 1234 1234 0 -1 4194304"),
            Some('R')
        );
        // A name with spaces and parentheses.
        assert_eq!(parse_task_state("77 (a (b) c) S 1 2 3"), Some('S'));
        assert_eq!(parse_task_state("garbage"), None);
        assert!(own_running() >= 1);
    }
}
