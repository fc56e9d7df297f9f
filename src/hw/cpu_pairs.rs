//! How two logical CPUs are related, for `cpu --c2c` (issue #47 item 3): SMT siblings
//! of one core, cores sharing an L3 (a CCX, an SNC domain, a monolithic die), cores of
//! one socket without a shared L3, or different sockets. A cache line bounced between
//! two CPUs costs what the nearest level they share costs, so the summary groups pairs
//! by this relation.
//!
//! A deliberately small reader of `/sys/devices/system/cpu/cpuN/topology` and `cache`,
//! under an injectable root (recorded trees in tests); it reads only what the grouping
//! needs and sits in its own file so that a fuller topology reader can replace it.

use std::path::Path;

/// How two CPUs are related, nearest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Relation {
    /// Two hardware threads of one core.
    SmtSibling,
    /// Different cores sharing an L3 cache.
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

/// What one CPU shares with others.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct CpuPlace {
    /// The logical CPU.
    pub(crate) cpu: usize,
    /// Its SMT siblings, itself included (`thread_siblings_list`).
    pub(crate) siblings: Vec<usize>,
    /// The CPUs sharing its L3 (`cache/indexN/shared_cpu_list` of the level-3 cache);
    /// empty where it has none or it is not readable.
    pub(crate) l3: Vec<usize>,
    /// Its socket (`physical_package_id`).
    pub(crate) package: Option<i64>,
}

/// `0-3,8,10-11` → [0, 1, 2, 3, 8, 10, 11]; `None` on anything else.
pub(crate) fn parse_cpu_list(s: &str) -> Option<Vec<usize>> {
    let s = s.trim();
    let mut out = Vec::new();
    if s.is_empty() {
        return Some(out);
    }
    for part in s.split(',') {
        match part.split_once('-') {
            Some((a, b)) => {
                let (a, b): (usize, usize) = (a.trim().parse().ok()?, b.trim().parse().ok()?);
                if b < a {
                    return None;
                }
                out.extend(a..=b);
            }
            None => out.push(part.trim().parse().ok()?),
        }
    }
    Some(out)
}

fn read(p: &Path) -> Option<String> {
    std::fs::read_to_string(p).ok()
}

impl CpuPlace {
    /// CPU `cpu`'s place under `root`.
    pub(crate) fn read(root: &Path, cpu: usize) -> CpuPlace {
        let dir = root.join(format!("sys/devices/system/cpu/cpu{cpu}"));
        let siblings = read(&dir.join("topology/thread_siblings_list"))
            .and_then(|s| parse_cpu_list(&s))
            .unwrap_or_default();
        let package =
            read(&dir.join("topology/physical_package_id")).and_then(|s| s.trim().parse().ok());
        // The level-3 cache's index is not always 3 (an L3 without a separate L1i).
        let l3 = (0..8)
            .map(|i| dir.join(format!("cache/index{i}")))
            .find(|d| read(&d.join("level")).is_some_and(|l| l.trim() == "3"))
            .and_then(|d| read(&d.join("shared_cpu_list")))
            .and_then(|s| parse_cpu_list(&s))
            .unwrap_or_default();
        CpuPlace {
            cpu,
            siblings,
            l3,
            package,
        }
    }
}

/// The relation of two CPUs from their places.
pub(crate) fn relation(a: &CpuPlace, b: &CpuPlace) -> Relation {
    if a.siblings.contains(&b.cpu) && a.siblings.len() > 1 {
        Relation::SmtSibling
    } else if a.l3.contains(&b.cpu) {
        Relation::SameL3
    } else if let (Some(x), Some(y)) = (a.package, b.package) {
        if x == y {
            Relation::SameSocket
        } else {
            Relation::OtherSocket
        }
    } else {
        Relation::Unknown
    }
}

/// The places of `cpus` under `root`.
pub(crate) fn places(root: &Path, cpus: &[usize]) -> Vec<CpuPlace> {
    cpus.iter().map(|&c| CpuPlace::read(root, c)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(root: &Path, rel: &str, text: &str) {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    /// Two sockets, two cores each, two threads per core; socket 0's cores share an
    /// L3, socket 1's cores each have their own (two CCXs).
    fn two_sockets(root: &Path) {
        for cpu in 0..8usize {
            let core = cpu / 2;
            let d = format!("sys/devices/system/cpu/cpu{cpu}");
            let sib = format!("{}-{}", core * 2, core * 2 + 1);
            write(root, &format!("{d}/topology/thread_siblings_list"), &sib);
            write(
                root,
                &format!("{d}/topology/physical_package_id"),
                &(cpu / 4).to_string(),
            );
            write(root, &format!("{d}/cache/index0/level"), "1\n");
            write(root, &format!("{d}/cache/index3/level"), "3\n");
            let l3 = if cpu < 4 {
                "0-3".to_string()
            } else {
                sib.clone()
            };
            write(root, &format!("{d}/cache/index3/shared_cpu_list"), &l3);
        }
    }

    #[test]
    fn relations_on_a_two_socket_tree() {
        let dir = tempfile::tempdir().unwrap();
        two_sockets(dir.path());
        let p = places(dir.path(), &(0..8).collect::<Vec<_>>());
        assert_eq!(relation(&p[0], &p[1]), Relation::SmtSibling);
        assert_eq!(relation(&p[0], &p[2]), Relation::SameL3);
        assert_eq!(relation(&p[4], &p[6]), Relation::SameSocket);
        assert_eq!(relation(&p[1], &p[5]), Relation::OtherSocket);
        assert_eq!(p[5].siblings, vec![4, 5]);
    }

    #[test]
    fn an_unreadable_tree_is_unknown_and_lists_parse() {
        let dir = tempfile::tempdir().unwrap();
        let p = places(dir.path(), &[0, 1]);
        assert_eq!(relation(&p[0], &p[1]), Relation::Unknown);
        assert_eq!(
            parse_cpu_list("0-2,8,10-11\n"),
            Some(vec![0, 1, 2, 8, 10, 11])
        );
        assert_eq!(parse_cpu_list("3-1"), None);
        assert_eq!(parse_cpu_list("x"), None);
    }
}
