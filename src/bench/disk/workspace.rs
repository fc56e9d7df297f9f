//! Where the disk benchmark writes, and how it cleans up.
//!
//! Host-safety rules: peakbench writes only files it created, in a
//! fresh subdirectory `peakbench-disk-<pid>-<nanos>` of `--dir`; it removes exactly
//! those files and that directory (never recursively, never anything it did not make)
//! when the run ends, and on SIGINT/SIGTERM. A block device is a target only with
//! `--allow-destructive`; then nothing is created or removed. The directory is held
//! under an `flock` while the run lives, so the next run can tell a directory left by a
//! killed run (SIGKILL: no handler runs) from a live one ([`super::stale`]).
//!
//! Signals: a workspace registers its cleanup with the process's exit on a signal
//! ([`crate::util::atomic::on_signal_exit`], the SIGINT/SIGTERM handler of
//! [`crate::util::atomic::catch_signals`]) *before* it creates anything. That exit
//! tells the job threads and the fill to stop, waits for them (≤ 5 s), removes the
//! files and the directory, and exits with 128 + the signal number, as a shell
//! expects. The cleanup also closes the workspace: a file is created and recorded in
//! one step under the lock the cleanup takes, and never once it has run, so a job file
//! created by the next case as the signal arrives cannot outlive it (issue #33 item 3:
//! the fill stopped, its case failed at once, the next case created `job0.dat` again
//! while the cleanup ran, and the directory stayed, "Directory not empty").

use super::data;
use super::engine::{Buffers, ALIGN};
use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// What the workspace created, so cleanup removes exactly that.
#[derive(Default)]
struct Created {
    files: Vec<PathBuf>,
    dir: Option<PathBuf>,
    /// The `--dir` itself, when the run created it (it did not exist): removed after
    /// `dir`, and only when empty.
    made_parent: Option<PathBuf>,
    /// Set by the cleanup: nothing more may be created.
    closed: bool,
}

/// State shared with the exit on a signal and the job threads.
pub(crate) struct Shared {
    /// Set on a signal: jobs and the fill stop at their next I/O.
    pub stop: AtomicBool,
    /// Threads doing I/O now (cleanup waits for them).
    busy: AtomicUsize,
    created: Mutex<Created>,
}

impl Shared {
    fn new() -> Arc<Shared> {
        Arc::new(Shared {
            stop: AtomicBool::new(false),
            busy: AtomicUsize::new(0),
            created: Mutex::new(Created::default()),
        })
    }

    fn created(&self) -> std::sync::MutexGuard<'_, Created> {
        self.created.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Removes what was created and closes the workspace; returns the problems.
    fn cleanup(&self) -> Vec<String> {
        let mut problems = Vec::new();
        let mut c = self.created();
        c.closed = true;
        let shown = |p: &Path| crate::util::sanitize::line(&p.display().to_string());
        for f in c.files.drain(..) {
            if let Err(e) = std::fs::remove_file(&f) {
                if e.kind() != io::ErrorKind::NotFound {
                    problems.push(format!("cannot remove {}: {e}", shown(&f)));
                }
            }
        }
        if let Some(d) = c.dir.take() {
            // remove_dir, not remove_dir_all: anything we did not create stays.
            if let Err(e) = std::fs::remove_dir(&d) {
                if e.kind() != io::ErrorKind::NotFound {
                    problems.push(format!("cannot remove {}: {e}", shown(&d)));
                }
            }
        }
        if let Some(d) = c.made_parent.take() {
            // Only when empty: whatever else was put there since stays, with it.
            let _ = std::fs::remove_dir(&d);
        }
        problems
    }

    /// The exit on a signal: stop the I/O, wait for it (≤ 5 s), remove the files.
    fn on_signal(&self) -> Vec<String> {
        self.stop.store(true, Ordering::SeqCst);
        let t = Instant::now();
        while self.busy.load(Ordering::SeqCst) > 0 && t.elapsed() < Duration::from_secs(5) {
            std::thread::sleep(Duration::from_millis(5));
        }
        let had_files = {
            let c = self.created();
            !c.files.is_empty() || c.dir.is_some()
        };
        let mut lines = self.cleanup();
        if had_files {
            lines.insert(0, "stopped the I/O and removed the test files".into());
        }
        lines
    }

    /// Creates `p` exclusively (see [`open`]) and records it, in one step under the
    /// lock the cleanup takes; refused once the workspace is closed.
    fn create(&self, p: &Path, direct: bool) -> io::Result<OwnedFd> {
        let mut c = self.created();
        if c.closed || self.stop.load(Ordering::SeqCst) {
            return Err(io::Error::new(io::ErrorKind::Interrupted, "interrupted"));
        }
        // Recorded only once the exclusive create succeeded: a file someone else put
        // there is never on the cleanup list.
        let fd = open(p, direct, true)?;
        c.files.push(p.to_path_buf());
        Ok(fd)
    }

    /// Marks a thread busy with I/O until the guard drops.
    pub(crate) fn busy(&self) -> BusyGuard<'_> {
        self.busy.fetch_add(1, Ordering::SeqCst);
        BusyGuard(self)
    }
}

/// Decrements the busy count on drop.
pub(crate) struct BusyGuard<'a>(&'a Shared);

impl Drop for BusyGuard<'_> {
    fn drop(&mut self) {
        self.0.busy.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Registers `shared`'s cleanup with the exit on a signal (installing that exit's
/// handler if the command has not); returns the registration's id.
fn register(shared: &Arc<Shared>) -> u64 {
    crate::util::atomic::catch_signals();
    let s = shared.clone();
    crate::util::atomic::on_signal_exit(Arc::new(move || s.on_signal()))
}

/// The files of one run: job `i` uses `files[i]` from byte `bases[i]` on.
pub(crate) struct Workspace {
    /// Shared with the watcher and job threads.
    pub shared: Arc<Shared>,
    /// The temporary directory we created (`None` for a block device).
    pub dir: Option<PathBuf>,
    /// The block device under test (`--allow-destructive`), if any.
    pub device: Option<PathBuf>,
    /// Bytes per job file (or per job region of the device).
    pub file_size: u64,
    /// Files (job `i` → `files[i]`), created and filled on demand.
    files: Mutex<Vec<PathBuf>>,
    /// The registration of the cleanup with the exit on a signal.
    hook: u64,
    /// The directory's run lock, held until the workspace is gone.
    _lock: Option<OwnedFd>,
}

fn open_flags(direct: bool) -> libc::c_int {
    libc::O_RDWR | libc::O_CLOEXEC | if direct { libc::O_DIRECT } else { 0 }
}

/// Opens `path` read-write, with O_DIRECT unless `direct` is false; `create` adds
/// O_CREAT|O_EXCL so an existing file is never overwritten.
pub(crate) fn open(path: &Path, direct: bool, create: bool) -> io::Result<OwnedFd> {
    open_with(path, direct, create, 0)
}

/// [`open`] with `extra` open(2) flags (O_SYNC for `--sync`).
pub(crate) fn open_with(
    path: &Path,
    direct: bool,
    create: bool,
    extra: libc::c_int,
) -> io::Result<OwnedFd> {
    let c = CString::new(path.as_os_str().as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "path contains NUL"))?;
    let mut flags = open_flags(direct) | extra;
    if create {
        flags |= libc::O_CREAT | libc::O_EXCL;
    }
    // SAFETY: `c` is a valid C string; the returned fd is owned below.
    let fd = unsafe { libc::open(c.as_ptr(), flags, 0o600) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `fd` is a fresh descriptor we own.
    Ok(unsafe { std::os::fd::FromRawFd::from_raw_fd(fd) })
}

impl Workspace {
    /// Creates a fresh subdirectory of `parent` (nothing else is touched); with
    /// `create_parent`, `parent` itself first (one level, as `mkdir`; it must not exist),
    /// removed again at the end when empty.
    pub(crate) fn in_dir(
        parent: &Path,
        file_size: u64,
        create_parent: bool,
    ) -> io::Result<Workspace> {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        let dir = parent.join(format!(
            "{}{}-{nanos}",
            super::stale::PREFIX,
            std::process::id()
        ));
        // Registered before anything exists, and the directory created and recorded
        // in one step: a signal at any moment finds all there is to remove.
        let shared = Shared::new();
        let hook = register(&shared);
        let made = {
            let mut c = shared.created();
            if c.closed || shared.stop.load(Ordering::SeqCst) {
                Err(io::Error::new(io::ErrorKind::Interrupted, "interrupted"))
            } else {
                // create_dir fails if it exists: we never adopt someone else's directory.
                let made = if create_parent {
                    std::fs::create_dir(parent).map(|()| c.made_parent = Some(parent.into()))
                } else {
                    Ok(())
                };
                made.and_then(|()| std::fs::create_dir(&dir).map(|()| c.dir = Some(dir.clone())))
            }
        };
        let mut ws = Workspace {
            shared,
            dir: Some(dir.clone()),
            device: None,
            file_size,
            files: Mutex::new(Vec::new()),
            hook,
            _lock: None,
        };
        // On an error `ws` is dropped, which removes what was made.
        made?;
        ws._lock = Some(super::stale::lock_own(&dir)?);
        Ok(ws)
    }

    /// A block device as the target: job `i` uses bytes `[i·size, (i+1)·size)`.
    pub(crate) fn on_device(dev: &Path, file_size: u64) -> Workspace {
        let shared = Shared::new();
        let hook = register(&shared);
        Workspace {
            shared,
            dir: None,
            device: Some(dev.to_path_buf()),
            file_size,
            files: Mutex::new(Vec::new()),
            hook,
            _lock: None,
        }
    }

    /// Whether writes go to a raw block device.
    pub(crate) fn is_device(&self) -> bool {
        self.device.is_some()
    }

    /// Path and base offset of job `i`'s data.
    pub(crate) fn target(&self, i: usize) -> (PathBuf, u64) {
        match &self.device {
            Some(d) => (d.clone(), i as u64 * self.file_size),
            None => {
                let files = self.files.lock().unwrap_or_else(|e| e.into_inner());
                (files[i].clone(), 0)
            }
        }
    }

    /// Tries O_DIRECT on a probe file; `Err` carries the OS error when refused.
    pub(crate) fn probe_direct(&self) -> io::Result<()> {
        let Some(dir) = &self.dir else {
            let _ = open(self.device.as_deref().unwrap_or(Path::new("")), true, false)?;
            return Ok(());
        };
        let p = dir.join("probe");
        let r = (|| {
            // Exclusive create; only a file we created is tracked and removed.
            let fd = self.shared.create(&p, true)?;
            let b = Buffers::new(ALIGN, 1)?;
            // SAFETY: one aligned 4 KiB buffer, written at offset 0.
            let n = unsafe { libc::pwrite(fd.as_raw_fd(), b.ptr(0) as *const _, ALIGN, 0) };
            if n < 0 {
                return Err(io::Error::last_os_error());
            }
            Ok(())
        })();
        if self.is_tracked(&p) {
            let _ = std::fs::remove_file(&p);
            self.untrack(&p);
        }
        r
    }

    fn is_tracked(&self, p: &Path) -> bool {
        let c = self
            .shared
            .created
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        c.files.iter().any(|f| f == p)
    }

    fn untrack(&self, p: &Path) {
        let mut c = self
            .shared
            .created
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        c.files.retain(|f| f != p);
    }

    /// Makes sure files `0..n` exist, preallocated and filled with incompressible data
    /// (generation 0 of [`data::fill`]), so reads measure the disk and not holes or
    /// compression. On a block device (`--allow-destructive`) the job regions are
    /// filled the same way, so reads and `--verify` see known data there too.
    pub(crate) fn ensure_files(&self, n: usize, direct: bool, seed: u64) -> io::Result<()> {
        let mut files = self.files.lock().unwrap_or_else(|e| e.into_inner());
        while files.len() < n {
            let i = files.len();
            let _busy = self.shared.busy();
            let (p, fd, base) = match (&self.dir, &self.device) {
                (Some(dir), _) => {
                    let p = dir.join(format!("job{i}.dat"));
                    let fd = self.shared.create(&p, direct)?;
                    (p, fd, None)
                }
                (None, Some(dev)) => {
                    let fd = open(dev, direct, false)?;
                    (dev.clone(), fd, Some(i as u64 * self.file_size))
                }
                (None, None) => return Ok(()),
            };
            fill_file(
                &fd,
                i as u32,
                base,
                self.file_size,
                seed,
                direct,
                &self.shared.stop,
            )?;
            files.push(p);
        }
        Ok(())
    }

    /// Removes what we created; returns the problems (normally none).
    pub(crate) fn cleanup(&self) -> Vec<String> {
        self.shared.cleanup()
    }
}

impl Drop for Workspace {
    fn drop(&mut self) {
        for p in self.cleanup() {
            eprintln!("peakbench: {p}");
        }
        crate::util::atomic::forget_on_signal_exit(self.hook);
    }
}

/// Writes `size` bytes of generation-0 data in 1 MiB chunks: a new file (`base`
/// `None`) is preallocated first; a device region starts at byte `base`.
fn fill_file(
    fd: &OwnedFd,
    file_id: u32,
    base: Option<u64>,
    size: u64,
    seed: u64,
    direct: bool,
    stop: &AtomicBool,
) -> io::Result<()> {
    let raw = fd.as_raw_fd();
    let r = match base {
        // SAFETY: a plain syscall on our own open descriptor; no memory is passed.
        None => unsafe { libc::fallocate(raw, 0, 0, size as libc::off_t) },
        Some(_) => 0,
    };
    if r != 0 {
        let e = io::Error::last_os_error();
        match e.raw_os_error() {
            // Filesystems without fallocate get the data written below anyway.
            Some(libc::EOPNOTSUPP) => {}
            Some(libc::ENOSPC) => {
                return Err(io::Error::new(
                    e.kind(),
                    format!("no space left to preallocate {size} B: {e}"),
                ))
            }
            _ => return Err(e),
        }
    }
    let chunk = (1u64 << 20).min(size) as usize;
    let mut buf = Buffers::new(chunk, 1)?;
    let mut off = 0u64;
    while off < size {
        if stop.load(Ordering::Relaxed) {
            return Err(io::Error::new(io::ErrorKind::Interrupted, "interrupted"));
        }
        let len = chunk.min((size - off) as usize);
        let s = &mut buf.slot_mut(0)[..len];
        data::fill(s, seed, file_id, off, 0);
        let at = base.unwrap_or(0) + off;
        // SAFETY: `len` bytes of the aligned buffer; len is a multiple of 512.
        let n = unsafe { libc::pwrite(raw, buf.ptr(0) as *const _, len, at as libc::off_t) };
        if n < 0 {
            return Err(io::Error::last_os_error());
        }
        if n as usize != len {
            return Err(io::Error::new(io::ErrorKind::WriteZero, "short write"));
        }
        off += len as u64;
    }
    // SAFETY: plain syscalls on our own descriptor.
    unsafe {
        libc::fdatasync(raw);
        if !direct {
            // Buffered runs start cold too: drop what the fill left in the page cache.
            let at = base.unwrap_or(0) as libc::off_t;
            libc::posix_fadvise(raw, at, size as libc::off_t, libc::POSIX_FADV_DONTNEED);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn creates_fills_and_removes_only_its_own() {
        let parent = crate::util::scratch::scratch_dir();
        let keep = parent.path().join("not-ours.txt");
        std::fs::write(&keep, b"keep me").unwrap();
        let ws = Workspace::in_dir(parent.path(), 1 << 20, false).unwrap();
        let direct = ws.probe_direct().is_ok();
        ws.ensure_files(2, direct, 7).unwrap();
        let (p, base) = ws.target(1);
        assert_eq!(base, 0);
        assert_eq!(std::fs::metadata(&p).unwrap().len(), 1 << 20);
        let bytes = std::fs::read(&p).unwrap();
        let mut want = vec![0u8; 1 << 20];
        data::fill(&mut want, 7, 1, 0, 0);
        assert!(bytes == want, "file content is generation-0 data");
        let dir = ws.dir.clone().unwrap();
        drop(ws);
        assert!(!dir.exists());
        assert!(keep.exists());
    }

    #[test]
    fn a_foreign_file_in_the_run_dir_is_never_removed() {
        let parent = crate::util::scratch::scratch_dir();
        let ws = Workspace::in_dir(parent.path(), 1 << 20, false).unwrap();
        let dir = ws.dir.clone().unwrap();
        // Someone plants the files the run is about to create.
        for name in ["job0.dat", "probe"] {
            std::fs::write(dir.join(name), b"not ours").unwrap();
        }
        assert!(ws.probe_direct().is_err());
        assert!(ws.ensure_files(1, false, 7).is_err());
        drop(ws);
        for name in ["job0.dat", "probe"] {
            assert_eq!(std::fs::read(dir.join(name)).unwrap(), b"not ours");
        }
    }
}
