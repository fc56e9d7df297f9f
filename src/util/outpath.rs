//! Where a user-named output path leads, decided on what is there now (issue #43 item 1).
//!
//! Every file peakbench writes for the user (`--html`, `--csv`, `--markdown`, `--junit`,
//! `baseline -o`, `--prom-file`, `history show --html`, the results files) goes through
//! [`crate::util::atomic::write_atomic`], which asks [`resolve`] first. Before, the
//! atomic write renamed its temporary file over whatever the path named, so as root
//! `--junit /dev/null` turned the machine's `/dev/null` into a regular file, and a
//! symbolic link was replaced by a file. Now:
//!
//! - nothing, or a regular file: replaced atomically (a temporary file in the same
//!   directory, renamed over it);
//! - `-`, `/dev/stdout`, `/dev/fd/N`, `/proc/self/fd/N`: the process's own descriptor,
//!   written through (a shell's `> file` keeps its file and offset);
//! - a character device or a FIFO: opened for writing in place (no create, no
//!   truncation, no rename); a FIFO nobody reads is refused at once ("no reader on FIFO
//!   PATH") rather than waited on;
//! - a symbolic link: followed (up to 40 links) to its target, which the same rules
//!   then decide; a regular target is replaced in its own directory and the link stays;
//! - a directory, a socket or a block device: refused with one line saying what it is.

use std::io;
use std::path::{Path, PathBuf};

/// Where the bytes for an output path go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Dest {
    /// The process's standard output (`-`, `/dev/stdout`, …).
    Stdout,
    /// Another of the process's own descriptors (`/dev/fd/N`, `/dev/stderr`).
    Fd(i32),
    /// A character device or a FIFO: written through, in place.
    Through(PathBuf),
    /// Nothing, or a regular file: replaced atomically. The path to rename over: a
    /// symbolic link's final target.
    Replace(PathBuf),
}

/// How many symbolic links [`resolve`] follows (the kernel's own limit).
const MAX_LINKS: usize = 40;

/// The descriptor `p` names when it is one of the process's own (`/dev/stdout`,
/// `/dev/stderr`, `/dev/stdin`, `/dev/fd/N`, `/proc/self/fd/N`,
/// `/proc/thread-self/fd/N`, `/proc/PID/fd/N` of this process).
fn own_fd(p: &Path) -> Option<i32> {
    let s = p.to_str()?;
    match s {
        "/dev/stdin" => return Some(0),
        "/dev/stdout" => return Some(1),
        "/dev/stderr" => return Some(2),
        _ => {}
    }
    let pid = format!("/proc/{}/fd/", std::process::id());
    [
        "/dev/fd/",
        "/proc/self/fd/",
        "/proc/thread-self/fd/",
        pid.as_str(),
    ]
    .iter()
    .find_map(|pre| s.strip_prefix(pre))
    .and_then(|n| n.parse::<i32>().ok())
    .filter(|&n| n >= 0)
}

/// What is wrong with writing over a file of this type, or `Ok` with how to write it.
fn by_kind(p: PathBuf, kind: std::fs::FileType) -> io::Result<Dest> {
    use std::os::unix::fs::FileTypeExt;
    let refuse = |what: &str| {
        Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            what.to_string(),
        ))
    };
    if kind.is_file() {
        Ok(Dest::Replace(p))
    } else if kind.is_char_device() || kind.is_fifo() {
        Ok(Dest::Through(p))
    } else if kind.is_dir() {
        refuse("is a directory")
    } else if kind.is_block_device() {
        refuse("is a block device: peakbench writes no report onto a disk")
    } else if kind.is_socket() {
        refuse("is a socket")
    } else {
        refuse("is not a regular file, a character device or a FIFO")
    }
}

/// Where writing to `path` goes (see the module doc); an error says why nothing may be
/// written there.
pub(crate) fn resolve(path: &Path) -> io::Result<Dest> {
    if path.as_os_str() == "-" {
        return Ok(Dest::Stdout);
    }
    let mut p = path.to_path_buf();
    for _ in 0..=MAX_LINKS {
        if let Some(fd) = own_fd(&p) {
            return Ok(if fd == 1 { Dest::Stdout } else { Dest::Fd(fd) });
        }
        let meta = match std::fs::symlink_metadata(&p) {
            // Nothing there (or a dangling link's target): created by the rename.
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Dest::Replace(p)),
            Err(e) => return Err(e),
            Ok(m) => m,
        };
        if !meta.file_type().is_symlink() {
            return by_kind(p, meta.file_type());
        }
        let target = std::fs::read_link(&p)?;
        // A relative target is relative to the link's directory; the kernel resolves
        // `..` the same way through the joined path.
        p = match p.parent() {
            Some(dir) if target.is_relative() => dir.join(target),
            _ => target,
        };
    }
    Err(io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("more than {MAX_LINKS} symbolic links to follow"),
    ))
}

/// Whether writing to `path` streams (standard output, a device, a FIFO) rather than
/// replacing a file: a page rewritten after every case of a run is then written once,
/// at the end, instead of once per case into the stream.
pub(crate) fn is_stream(path: &Path) -> bool {
    !matches!(resolve(path), Ok(Dest::Replace(_)) | Err(_))
}

/// Opens a character device or FIFO `p` for writing in place: no create, no truncation;
/// a FIFO without a reader is refused at once (`O_NONBLOCK`), and the descriptor is
/// checked to be what [`resolve`] saw (a path swapped for a regular file in between is
/// refused, not written into). Writes then block as usual.
pub(crate) fn open_through(p: &Path) -> io::Result<std::fs::File> {
    use std::os::fd::AsRawFd;
    use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
    let f = std::fs::OpenOptions::new()
        .write(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY | libc::O_CLOEXEC)
        .open(p)
        .map_err(|e| {
            if e.raw_os_error() == Some(libc::ENXIO) {
                // Not `BrokenPipe`: that kind ends the process quietly with success
                // (a reader that went away, as `| head` does), and this is a failure.
                io::Error::other(format!(
                    "no reader on FIFO {}: start its reader first, or give a regular file",
                    crate::util::sanitize::line(&p.display().to_string())
                ))
            } else {
                e
            }
        })?;
    let kind = f.metadata()?.file_type();
    if !(kind.is_char_device() || kind.is_fifo()) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "changed while it was opened (no longer a device or a FIFO)",
        ));
    }
    // Blocking writes from here on: a reader is there (or the device takes them).
    // SAFETY: fcntl on a descriptor this function owns.
    unsafe {
        let fd = f.as_raw_fd();
        let fl = libc::fcntl(fd, libc::F_GETFL);
        if fl < 0 || libc::fcntl(fd, libc::F_SETFL, fl & !libc::O_NONBLOCK) < 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(f)
}

/// A duplicate of the process's descriptor `fd` (closed on drop, `fd` stays open).
pub(crate) fn dup_fd(fd: i32) -> io::Result<std::fs::File> {
    use std::os::fd::FromRawFd;
    // SAFETY: F_DUPFD_CLOEXEC returns a new descriptor this function then owns, or -1.
    let n = unsafe { libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 3) };
    if n < 0 {
        let e = io::Error::last_os_error();
        return Err(io::Error::new(
            e.kind(),
            format!("descriptor {fd} is not open ({e})"),
        ));
    }
    // SAFETY: `n` is a fresh descriptor owned by nobody else.
    Ok(unsafe { std::fs::File::from_raw_fd(n) })
}

/// Whether this process may write `p` (a device or FIFO [`resolve`] returned).
pub(crate) fn may_write(p: &Path) -> io::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(p.as_os_str().as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "holds a NUL byte"))?;
    // SAFETY: a valid C string.
    if unsafe { libc::access(c.as_ptr(), libc::W_OK) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_of_path_has_its_destination() {
        let d = tempfile::tempdir().unwrap();
        let dir = d.path();
        assert_eq!(resolve(Path::new("-")).unwrap(), Dest::Stdout);
        assert_eq!(resolve(Path::new("/dev/stdout")).unwrap(), Dest::Stdout);
        assert_eq!(resolve(Path::new("/dev/fd/1")).unwrap(), Dest::Stdout);
        assert_eq!(resolve(Path::new("/dev/stderr")).unwrap(), Dest::Fd(2));
        assert_eq!(resolve(Path::new("/proc/self/fd/7")).unwrap(), Dest::Fd(7));
        let new = dir.join("new.csv");
        assert_eq!(resolve(&new).unwrap(), Dest::Replace(new.clone()));
        std::fs::write(&new, "x").unwrap();
        assert_eq!(resolve(&new).unwrap(), Dest::Replace(new.clone()));
        // A link (relative, through another link) resolves to its final target.
        std::os::unix::fs::symlink("new.csv", dir.join("l1")).unwrap();
        std::os::unix::fs::symlink(dir.join("l1"), dir.join("l2")).unwrap();
        assert_eq!(
            resolve(&dir.join("l2")).unwrap(),
            Dest::Replace(dir.join("new.csv"))
        );
        // A dangling link: its target is created.
        std::os::unix::fs::symlink("absent.csv", dir.join("l3")).unwrap();
        assert_eq!(
            resolve(&dir.join("l3")).unwrap(),
            Dest::Replace(dir.join("absent.csv"))
        );
        // A loop is refused, as is a directory.
        std::os::unix::fs::symlink("loop", dir.join("loop")).unwrap();
        assert!(resolve(&dir.join("loop"))
            .unwrap_err()
            .to_string()
            .contains("symbolic links"));
        assert!(resolve(dir)
            .unwrap_err()
            .to_string()
            .contains("is a directory"));
        let fifo = dir.join("fifo");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid C string.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        assert_eq!(resolve(&fifo).unwrap(), Dest::Through(fifo.clone()));
        // Nobody reads it: refused at once, never waited on.
        let e = open_through(&fifo).unwrap_err().to_string();
        assert!(e.starts_with("no reader on FIFO "), "{e}");
        // /dev/null is only looked at, never written by a unit test.
        assert_eq!(
            resolve(Path::new("/dev/null")).unwrap(),
            Dest::Through("/dev/null".into())
        );
    }
}
