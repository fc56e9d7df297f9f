//! Other peakbench runs on this machine (issue #45 item 5: two runs started at once
//! were both pinned to cpu 0, each got half of it, and neither said so).
//!
//! Every measuring run on one host enters a registry: one small file per run in
//! `$PEAKBENCH_RUNS_DIR`, else `$XDG_RUNTIME_DIR/peakbench-runs`, else
//! `/tmp/peakbench-runs-UID` (mode 700), holding its pid, start, command and, once it
//! ends, its end. A live run holds an `flock` on its file, so a run killed by SIGKILL
//! (no handler runs) is told from a live one without trusting its pid: the lock is
//! free. Nothing here waits: every lock is tried (`LOCK_NB`), and a registry that
//! cannot be written is simply not kept (the run goes on, as before).
//!
//! A run reads the registry before it starts, saying on stderr which runs are
//! measuring, and after each case: a case during which another run was alive (even
//! one that started and ended inside it: ended runs stay listed for an hour) gets a
//! `shared` note and is marked disturbed, like any other neighbour.

use serde::{Deserialize, Serialize};
use std::fs::File;
use std::io::Write;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// How long an ended run stays listed, so a later case can still see that it overlapped.
const KEEP_ENDED: Duration = Duration::from_secs(3600);

/// One run, as its file says.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub(crate) struct Entry {
    /// Its process id.
    pub pid: u32,
    /// When it entered, seconds since the epoch.
    pub start: f64,
    /// When it ended (`None` while it runs).
    pub end: Option<f64>,
    /// Its command line, as typed (`peakbench cpu --threads 1`).
    pub command: String,
    /// When its first case began, seconds since the epoch (`None` while it still
    /// detects the host, or when it measured nothing).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub measuring: Option<f64>,
}

impl Entry {
    /// One line naming the run for a person.
    pub(crate) fn describe(&self) -> String {
        format!("pid {}, `{}`", self.pid, self.command)
    }
}

/// This run's place in the registry; leaving it (drop) writes the end time.
pub(crate) struct Registry {
    dir: PathBuf,
    path: PathBuf,
    file: File,
    own: Mutex<Entry>,
    /// The pids already named on stderr.
    said: Mutex<Vec<u32>>,
}

fn secs(t: SystemTime) -> f64 {
    t.duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0)
}

/// The registry's directory for this user.
pub(crate) fn dir() -> PathBuf {
    if let Some(d) = std::env::var_os("PEAKBENCH_RUNS_DIR").filter(|d| !d.is_empty()) {
        return PathBuf::from(d);
    }
    if let Some(d) = std::env::var_os("XDG_RUNTIME_DIR").filter(|d| !d.is_empty()) {
        let d = PathBuf::from(d);
        if d.is_dir() {
            return d.join("peakbench-runs");
        }
    }
    // SAFETY: getuid has no preconditions.
    let uid = unsafe { libc::getuid() };
    std::env::temp_dir().join(format!("peakbench-runs-{uid}"))
}

/// Tries the lock of `f` without waiting; `true` when it was taken.
fn try_lock(f: &File) -> bool {
    // SAFETY: flock on a descriptor we own.
    unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) == 0 }
}

impl Registry {
    /// Enters the registry of [`dir`] as `command`; `None` when it cannot be kept.
    pub(crate) fn enter(command: &str) -> Option<Registry> {
        Registry::enter_in(&dir(), command)
    }

    /// [`Registry::enter`] in `dir`.
    pub(crate) fn enter_in(dir: &Path, command: &str) -> Option<Registry> {
        use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
            .ok()?;
        let now = SystemTime::now();
        let pid = std::process::id();
        let nanos = now.duration_since(UNIX_EPOCH).ok()?.as_nanos();
        let path = dir.join(format!("{pid}-{nanos}.run"));
        let file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&path)
            .ok()?;
        if !try_lock(&file) {
            return None;
        }
        let own = Entry {
            pid,
            start: secs(now),
            end: None,
            command: crate::util::sanitize::line_max(command, 200),
            measuring: None,
        };
        let r = Registry {
            dir: dir.to_path_buf(),
            path,
            file,
            own: Mutex::new(own),
            said: Mutex::new(Vec::new()),
        };
        r.write();
        Some(r)
    }

    fn write(&self) {
        let own = self.own.lock().unwrap_or_else(|e| e.into_inner()).clone();
        if let Ok(text) = serde_json::to_string(&own) {
            let mut f = &self.file;
            let _ = f.set_len(0);
            let _ = std::io::Seek::rewind(&mut f);
            let _ = f.write_all(text.as_bytes());
        }
    }

    /// Says in this run's file that its first case begins now (once; later calls keep
    /// the first time).
    pub(crate) fn measuring(&self) {
        {
            let mut own = self.own.lock().unwrap_or_else(|e| e.into_inner());
            if own.measuring.is_some() {
                return;
            }
            own.measuring = Some(secs(SystemTime::now()));
        }
        self.write();
    }

    /// The other runs of the registry: live ones with `end: None`; a run whose lock is
    /// free but that wrote no end died (SIGKILL) and gets its file's last change as its
    /// end. Ended runs older than [`KEEP_ENDED`] are removed as they are read.
    pub(crate) fn others(&self) -> Vec<Entry> {
        let Ok(rd) = std::fs::read_dir(&self.dir) else {
            return Vec::new();
        };
        let now = secs(SystemTime::now());
        let mut out = Vec::new();
        for e in rd.flatten() {
            let p = e.path();
            if p == self.path || p.extension().is_none_or(|x| x != "run") {
                continue;
            }
            let Ok(f) = File::open(&p) else { continue };
            let Some(mut entry) = std::fs::read_to_string(&p)
                .ok()
                .and_then(|t| serde_json::from_str::<Entry>(&t).ok())
            else {
                continue;
            };
            if entry.end.is_none() && try_lock(&f) {
                // Nobody holds it: the run is gone without saying when.
                let changed = f
                    .metadata()
                    .and_then(|m| m.modified())
                    .map(secs)
                    .unwrap_or(now);
                entry.end = Some(changed.max(entry.start));
            }
            if entry
                .end
                .is_some_and(|end| now - end > KEEP_ENDED.as_secs_f64())
            {
                let _ = std::fs::remove_file(&p);
                continue;
            }
            out.push(entry);
        }
        out.sort_by(|a, b| a.start.total_cmp(&b.start));
        out
    }

    /// The other runs alive now.
    pub(crate) fn active(&self) -> Vec<Entry> {
        self.others()
            .into_iter()
            .filter(|e| e.end.is_none())
            .collect()
    }

    /// The other runs alive at some moment since `from`.
    pub(crate) fn during(&self, from: SystemTime) -> Vec<Entry> {
        let from = secs(from);
        self.others()
            .into_iter()
            .filter(|e| e.end.is_none_or(|end| end >= from))
            .collect()
    }

    /// The runs of `entries` not named on stderr yet (each is named once).
    pub(crate) fn unsaid(&self, entries: &[Entry]) -> Vec<Entry> {
        let mut said = self.said.lock().unwrap_or_else(|e| e.into_inner());
        let mut out = Vec::new();
        for e in entries {
            if !said.contains(&e.pid) {
                said.push(e.pid);
                out.push(e.clone());
            }
        }
        out
    }
}

impl Drop for Registry {
    fn drop(&mut self) {
        self.own.lock().unwrap_or_else(|e| e.into_inner()).end = Some(secs(SystemTime::now()));
        self.write();
        // The lock goes with the file descriptor.
    }
}

/// The line a run prints when `others` are measuring as it starts (or start later).
pub(crate) fn warning(others: &[Entry]) -> String {
    let names: Vec<String> = others.iter().map(Entry::describe).collect();
    format!(
        "another peakbench run is measuring on this machine ({}): both runs share the CPUs, so their figures are disturbed (marked ~); wait for it, or keep the runs apart with --cpus",
        names.join("; ")
    )
}

/// The `shared` note of a case during which `others` ran.
pub(crate) fn note(others: &[Entry]) -> String {
    let names: Vec<String> = others.iter().map(Entry::describe).collect();
    format!(
        "shared machine: another peakbench run was measuring during the case ({}); the figure is not the machine's own",
        names.join("; ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_see_each_other_and_an_ended_one_still_overlaps() {
        let d = crate::util::scratch::scratch_dir();
        let a = Registry::enter_in(d.path(), "peakbench cpu").unwrap();
        let t0 = SystemTime::now();
        assert!(a.active().is_empty());
        let b = Registry::enter_in(d.path(), "peakbench null").unwrap();
        let seen = a.active();
        assert_eq!(seen.len(), 1);
        assert_eq!(seen[0].command, "peakbench null");
        assert_eq!(b.active()[0].command, "peakbench cpu");
        // Named once on stderr, however often seen.
        assert_eq!(a.unsaid(&seen).len(), 1);
        assert!(a.unsaid(&seen).is_empty());
        // A run says once when its cases begin; the first time is kept.
        assert_eq!(a.others()[0].measuring, None);
        b.measuring();
        let m = a.others()[0].measuring;
        assert!(m.is_some());
        b.measuring();
        assert_eq!(a.others()[0].measuring, m);
        drop(b);
        // Gone now, but it ran during the window that began at t0.
        assert!(a.active().is_empty());
        assert_eq!(a.during(t0).len(), 1);
        assert!(a
            .during(SystemTime::now() + Duration::from_secs(5))
            .is_empty());
        assert!(warning(&seen).contains("another peakbench run is measuring"));
        assert!(note(&seen).starts_with("shared machine: another peakbench run"));
    }

    #[test]
    fn a_run_that_died_without_a_word_is_not_alive() {
        let d = crate::util::scratch::scratch_dir();
        let a = Registry::enter_in(d.path(), "peakbench cpu").unwrap();
        // A file like a live run's, but nobody holds its lock (a SIGKILLed run).
        let dead = Entry {
            pid: 1,
            start: secs(SystemTime::now()),
            end: None,
            command: "peakbench memory".into(),
            measuring: None,
        };
        std::fs::write(
            d.path().join("1-1.run"),
            serde_json::to_string(&dead).unwrap(),
        )
        .unwrap();
        assert!(a.active().is_empty());
        assert_eq!(a.others().len(), 1);
        // Long ended runs are removed as they are read.
        let old = Entry {
            end: Some(1.0),
            start: 0.5,
            ..dead
        };
        let p = d.path().join("1-2.run");
        std::fs::write(&p, serde_json::to_string(&old).unwrap()).unwrap();
        a.others();
        assert!(!p.exists());
    }
}
