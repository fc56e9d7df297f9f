//! Directories left by a disk run that was killed (SIGKILL, a crash, a power cut): the
//! signal handlers of [`super::workspace`] cannot run then, and `peakbench-disk-PID-…`
//! stays in `--dir` with its job files (hundreds of MB). The next run in the same
//! directory reclaims such a directory only when all of these hold, else it names it
//! with its size and the command to remove it:
//!
//! - its name is exactly `peakbench-disk-<pid>-<nanos>`, and it is a directory itself,
//!   not a symbolic link, owned by the user running peakbench;
//! - its process is gone: `kill(pid, 0)` answers ESRCH and `/proc/<pid>` does not
//!   exist (a live process of another name holding a reused PID is not enough to
//!   reclaim, it is only mentioned);
//! - nobody holds its lock: a running workspace keeps an `flock` on its directory, so
//!   a run in another PID namespace on the same machine is never taken for dead;
//! - it holds only regular files of the names a run creates (`job<N>.dat`, `probe`).
//!
//! Files are checked and removed relative to a descriptor of the directory opened with
//! `O_NOFOLLOW` (`fstatat`/`unlinkat`), so a link swapped in meanwhile is never
//! followed.

use crate::util::sanitize;
use crate::util::units::format_size;
use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// The name prefix of a run's directory.
pub(crate) const PREFIX: &str = "peakbench-disk-";

/// The PID in a run directory's name, when the name is exactly
/// `peakbench-disk-<pid>-<nanos>`.
pub(crate) fn pid_of(name: &str) -> Option<i32> {
    let rest = name.strip_prefix(PREFIX)?;
    let (pid, nanos) = rest.split_once('-')?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(pid) || !digits(nanos) {
        return None;
    }
    pid.parse().ok().filter(|&p: &i32| p > 0)
}

/// Whether `name` is a file a run creates in its directory.
fn ours(name: &[u8]) -> bool {
    name == b"probe"
        || name
            .strip_prefix(b"job")
            .and_then(|r| r.strip_suffix(b".dat"))
            .is_some_and(|d| !d.is_empty() && d.iter().all(u8::is_ascii_digit))
}

/// Whether process `pid` may still be running (the conservative answer on doubt).
fn alive(pid: i32) -> bool {
    // SAFETY: signal 0 only checks that the process exists.
    let r = unsafe { libc::kill(pid, 0) };
    let gone = r != 0 && io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH);
    !gone || Path::new(&format!("/proc/{pid}")).exists()
}

fn cstr(name: &[u8]) -> io::Result<CString> {
    CString::new(name).map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "NUL in name"))
}

/// Opens directory `name` of `parent` without following a link.
fn open_dir_at(parent: &OwnedFd, name: &[u8]) -> io::Result<OwnedFd> {
    let c = cstr(name)?;
    // SAFETY: valid C string; the descriptor is owned below.
    let fd = unsafe {
        libc::openat(
            parent.as_raw_fd(),
            c.as_ptr(),
            libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC,
        )
    };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: a fresh descriptor we own.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// `fstatat(dir, name, AT_SYMLINK_NOFOLLOW)`.
fn stat_at(dir: &OwnedFd, name: &[u8]) -> io::Result<libc::stat> {
    let c = cstr(name)?;
    // SAFETY: a zeroed stat is valid output space; valid C string.
    unsafe {
        let mut st: libc::stat = std::mem::zeroed();
        if libc::fstatat(
            dir.as_raw_fd(),
            c.as_ptr(),
            &mut st,
            libc::AT_SYMLINK_NOFOLLOW,
        ) != 0
        {
            return Err(io::Error::last_os_error());
        }
        Ok(st)
    }
}

/// Takes the run lock of a directory without waiting: `false` when another process
/// holds it (a live run).
pub(crate) fn try_lock(dir: &OwnedFd) -> bool {
    // SAFETY: flock on our own descriptor.
    unsafe { libc::flock(dir.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) == 0 }
}

/// Opens and locks a run directory for the life of its run (see the module doc).
pub(crate) fn lock_own(dir: &Path) -> io::Result<OwnedFd> {
    let c = cstr(dir.as_os_str().as_bytes())?;
    // SAFETY: valid C string; the descriptor is owned below.
    let fd = unsafe {
        libc::open(
            c.as_ptr(),
            libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC,
        )
    };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: a fresh descriptor we own.
    let fd = unsafe { OwnedFd::from_raw_fd(fd) };
    if !try_lock(&fd) {
        return Err(io::Error::last_os_error());
    }
    Ok(fd)
}

/// What was found of one stale directory.
enum Verdict {
    /// A running peakbench holds its lock: not stale at all.
    Live,
    /// Removed; its size.
    Removed(u64),
    /// Left in place: why, and its size as far as it was read.
    Kept(String, u64),
}

/// Checks directory `name` of `parent` (its PID is `pid`, known dead, or alive with a
/// reused PID when `reused`) and removes it when every rule of the module doc holds.
fn reclaim_one(parent: &OwnedFd, name: &[u8], reused: bool) -> Verdict {
    let dir = match open_dir_at(parent, name) {
        Ok(d) => d,
        Err(e) => return Verdict::Kept(format!("cannot open it ({e})"), 0),
    };
    // SAFETY: geteuid cannot fail.
    let me = unsafe { libc::geteuid() };
    match stat_at(parent, name) {
        Ok(st) if st.st_uid != me => return Verdict::Kept("it belongs to another user".into(), 0),
        Ok(_) => {}
        Err(e) => return Verdict::Kept(format!("cannot read it ({e})"), 0),
    }
    if !try_lock(&dir) {
        return Verdict::Live;
    }
    // The entries, read through the descriptor (not the path, which may change).
    let listing = match std::fs::read_dir(format!("/proc/self/fd/{}", dir.as_raw_fd())) {
        Ok(l) => l,
        Err(e) => return Verdict::Kept(format!("cannot list it ({e})"), 0),
    };
    let mut names = Vec::new();
    let mut size = 0u64;
    let mut foreign = None;
    for e in listing {
        let Ok(e) = e else {
            foreign = Some("an entry cannot be read".to_string());
            break;
        };
        let n = e.file_name().as_bytes().to_vec();
        match stat_at(&dir, &n) {
            Ok(st) if (st.st_mode & libc::S_IFMT) == libc::S_IFREG && ours(&n) => {
                size += st.st_blocks as u64 * 512;
                names.push(n);
            }
            Ok(st) => {
                size += st.st_blocks as u64 * 512;
                foreign.get_or_insert_with(|| {
                    format!(
                        "it holds '{}', which a run does not create",
                        sanitize::line_max(&String::from_utf8_lossy(&n), 200)
                    )
                });
            }
            Err(err) => {
                foreign.get_or_insert_with(|| format!("cannot read an entry ({err})"));
            }
        }
    }
    if let Some(why) = foreign {
        return Verdict::Kept(why, size);
    }
    if reused {
        return Verdict::Kept(
            "its PID now belongs to another running process".into(),
            size,
        );
    }
    for n in &names {
        let c = match cstr(n) {
            Ok(c) => c,
            Err(e) => return Verdict::Kept(e.to_string(), size),
        };
        // SAFETY: unlink of a plain name relative to our directory descriptor.
        if unsafe { libc::unlinkat(dir.as_raw_fd(), c.as_ptr(), 0) } != 0 {
            let e = io::Error::last_os_error();
            return Verdict::Kept(format!("cannot remove a file ({e})"), size);
        }
    }
    let c = match cstr(name) {
        Ok(c) => c,
        Err(e) => return Verdict::Kept(e.to_string(), size),
    };
    // SAFETY: rmdir of a plain name relative to the parent's descriptor; fails unless empty.
    if unsafe { libc::unlinkat(parent.as_raw_fd(), c.as_ptr(), libc::AT_REMOVEDIR) } != 0 {
        let e = io::Error::last_os_error();
        return Verdict::Kept(format!("cannot remove it ({e})"), size);
    }
    Verdict::Removed(size)
}

/// Looks in `parent` for directories of killed runs, removes those the module doc's
/// rules allow and returns one line per directory found: what was removed, or what was
/// left with its size and the command to remove it. Live runs (of this or another
/// process) are passed over in silence.
pub(crate) fn reclaim(parent: &Path) -> Vec<String> {
    let Ok(listing) = std::fs::read_dir(parent) else {
        return Vec::new();
    };
    let Ok(c) = cstr(parent.as_os_str().as_bytes()) else {
        return Vec::new();
    };
    // SAFETY: valid C string; the descriptor is owned below.
    let fd = unsafe {
        libc::open(
            c.as_ptr(),
            libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC,
        )
    };
    if fd < 0 {
        return Vec::new();
    }
    // SAFETY: a fresh descriptor we own.
    let parent_fd = unsafe { OwnedFd::from_raw_fd(fd) };
    let me = std::process::id() as i32;
    // SAFETY: geteuid cannot fail.
    let uid = unsafe { libc::geteuid() };
    let mut lines = Vec::new();
    for e in listing.flatten() {
        let name = e.file_name();
        let Some(pid) = name.to_str().and_then(pid_of) else {
            continue;
        };
        // A link of our name is not ours to follow or judge.
        match std::fs::symlink_metadata(e.path()) {
            Ok(m) if m.is_dir() && m.uid() == uid => {}
            _ => continue,
        }
        if pid == me {
            continue;
        }
        let reused = if alive(pid) {
            // A run of that PID may be live: only a PID now held by another program
            // (not peakbench) is worth mentioning.
            let comm = std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
            if comm.trim().is_empty() || comm.trim() == "peakbench" {
                continue;
            }
            true
        } else {
            false
        };
        // The path as text with its control characters escaped (`--dir` is the user's,
        // but may hold anything), and as a shell argument that still names it.
        let path = e.path();
        let shown = sanitize::line(&path.display().to_string());
        match reclaim_one(&parent_fd, name.as_bytes(), reused) {
            Verdict::Removed(size) => lines.push(format!(
                "removed {shown} ({}), left by a killed run (PID {pid} is gone)",
                format_size(size)
            )),
            Verdict::Live => {}
            Verdict::Kept(why, size) => lines.push(format!(
                "{shown} ({}) looks left by a killed run but was not removed: {why}; if it is yours and unused, remove it with: rm -r -- {}",
                format_size(size),
                sanitize::shell_arg(path.as_os_str().as_bytes())
            )),
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(pid_of("peakbench-disk-123-456"), Some(123));
        for bad in [
            "peakbench-disk-123",
            "peakbench-disk--456",
            "peakbench-disk-12a-456",
            "peakbench-disk-123-456-x",
            "peakbench-disk-0-1",
            "xpeakbench-disk-1-2",
        ] {
            assert_eq!(pid_of(bad), None, "{bad}");
        }
        assert!(ours(b"job0.dat") && ours(b"job12.dat") && ours(b"probe"));
        assert!(!ours(b"job.dat") && !ours(b"jobx.dat") && !ours(b"notes.txt"));
    }

    /// A PID that is not running: a child that has exited and been reaped.
    fn dead_pid() -> i32 {
        let mut c = std::process::Command::new("true").spawn().unwrap();
        let pid = c.id() as i32;
        c.wait().unwrap();
        pid
    }

    fn run_dir(parent: &Path, pid: i32, n: u32, files: &[&str]) -> std::path::PathBuf {
        let d = parent.join(format!("{PREFIX}{pid}-{n}"));
        std::fs::create_dir(&d).unwrap();
        for f in files {
            std::fs::write(d.join(f), vec![7u8; 8192]).unwrap();
        }
        d
    }

    /// Issue #26: a run killed with SIGKILL left its directory; the next run reclaims
    /// it when it is provably a dead run's and holds only a run's files, and otherwise
    /// names it with its size and the command to remove it.
    #[test]
    fn a_dead_runs_directory_is_reclaimed_and_nothing_else() {
        let parent = crate::util::scratch::scratch_dir();
        let p = parent.path();
        let pid = dead_pid();
        let dead = run_dir(p, pid, 1, &["job0.dat", "job1.dat", "probe"]);
        let foreign = run_dir(p, pid, 2, &["job0.dat", "notes.txt"]);
        // A link of the pattern's name to a directory of job files: never followed.
        let target = run_dir(p, pid, 3, &["job0.dat"]);
        let target_moved = p.join("elsewhere");
        std::fs::rename(&target, &target_moved).unwrap();
        let link = p.join(format!("{PREFIX}{pid}-4"));
        std::os::unix::fs::symlink(&target_moved, &link).unwrap();
        // A live run's directory (this process's lock, as another process would hold it).
        let live = run_dir(p, pid, 5, &["job0.dat"]);
        let _held = lock_own(&live).unwrap();
        // Not of our pattern at all.
        let other = p.join("peakbench-disk-notes");
        std::fs::create_dir(&other).unwrap();

        let mut lines = reclaim(p);
        lines.sort();
        assert_eq!(lines.len(), 2, "{lines:#?}");
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with(&format!("removed {} (", dead.display()))
                    && l.ends_with(&format!("), left by a killed run (PID {pid} is gone)"))),
            "{lines:#?}"
        );
        let kept = lines.iter().find(|l| l.contains("-2 (")).unwrap();
        assert!(
            kept.ends_with(&format!(
                "looks left by a killed run but was not removed: it holds 'notes.txt', which a run does not create; if it is yours and unused, remove it with: rm -r -- '{}'",
                foreign.display()
            )),
            "{kept}"
        );
        assert!(!dead.exists());
        assert!(foreign.join("job0.dat").exists() && foreign.join("notes.txt").exists());
        assert!(target_moved.join("job0.dat").exists() && link.exists());
        assert!(live.join("job0.dat").exists());
        assert!(other.exists());
    }

    /// Issue #33 item 12: names with ESC, BEL or a newline (a planted file, a `--dir`
    /// of any name) reach the messages escaped, and the command shown still removes
    /// the real directory.
    #[test]
    fn issue_33_names_in_the_messages_are_escaped() {
        let top = crate::util::scratch::scratch_dir();
        let p = top.path().join("dir\x1b]0;owned\x07 it's\nhere");
        std::fs::create_dir(&p).unwrap();
        let pid = dead_pid();
        let kept = run_dir(&p, pid, 1, &["job0.dat", "x\x1b[2J\x07\ny"]);
        let lines = reclaim(&p);
        assert_eq!(lines.len(), 1, "{lines:#?}");
        let l = &lines[0];
        assert!(crate::util::sanitize::is_clean(l), "{l:?}");
        assert!(l.contains("it holds 'x\\x1b[2J\\x07\\ny'"), "{l}");
        assert!(l.contains("dir\\x1b]0;owned\\x07 it's\\nhere"), "{l}");
        // The command's argument, read by a shell, is the directory itself.
        let arg = l.rsplit("rm -r -- ").next().unwrap();
        assert!(arg.starts_with("$'"), "{arg}");
        if let Ok(out) = std::process::Command::new("bash")
            .arg("-c")
            .arg(format!("printf %s {arg}"))
            .output()
        {
            assert_eq!(out.stdout, kept.as_os_str().as_bytes(), "{arg}");
        }
        let clean = sanitize::shell_arg(b"/tmp/it's");
        assert_eq!(clean, "'/tmp/it'\\''s'");
    }
}
