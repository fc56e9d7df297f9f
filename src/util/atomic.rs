//! The one atomic file write, and exits that respect it.
//!
//! What is at the path decides first ([`crate::util::outpath`]): a regular file or
//! nothing is replaced as below; standard output, a device or a FIFO is written
//! through in place; a symbolic link is followed to its target; a directory is refused.
//!
//! A file is written to a temporary file beside it, created exclusively under a name no
//! other writer uses (`.NAME.PID-N.tmp`: two runs saving at once never share it), then
//! synced and renamed over the target, so readers see the old or the new content, never
//! a part. Saves hold a process-wide lock, and every exit on a signal goes through
//! [`exit_after_saves`], which takes that lock first: an interrupted run never leaves a
//! temporary file or half a save behind.
//!
//! [`catch_signals`] routes SIGINT/SIGTERM of a measuring run through that exit. Whoever
//! must undo something on such an exit (the disk benchmark: stop its I/O, remove its
//! files) registers it with [`on_signal_exit`] *before* doing it: the exit runs every
//! registered hook first, and holds their registry until the process is gone, so
//! nothing can be registered (and so created) after the hooks ran (issue #33 item 3).
//!
//! Every temporary file is in a registry from before it exists until it is renamed or
//! removed. The commands that only write views of results files (`report`, `compare`,
//! `fleet`) do not wait for a save on a signal: [`discard_on_signal`] removes the
//! registered temporaries and exits at once (issue #33 item 9: an interrupted `report
//! --html` left `.out.html.PID-0.tmp` behind).

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicI32, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Duration;

/// Held while a save is in progress and by an exit in progress.
static SAVING: Mutex<()> = Mutex::new(());
/// What an exit on a signal must undo first ([`on_signal_exit`]), by id.
type Hook = std::sync::Arc<dyn Fn() -> Vec<String> + Send + Sync>;
static HOOKS: Mutex<Vec<(u64, Hook)>> = Mutex::new(Vec::new());
/// Installs [`catch_signals`]'s handler and watcher once.
static CATCH: std::sync::Once = std::sync::Once::new();
/// Per-process counter for temporary names.
static SEQ: AtomicU64 = AtomicU64::new(0);
/// The last SIGINT/SIGTERM caught by [`catch_signals`] (0 = none).
static CAUGHT: AtomicI32 = AtomicI32::new(0);
/// What the exit on a signal says after "interrupted by SIG…", a line each
/// ([`on_interrupt_say`]).
static NOTE: Mutex<String> = Mutex::new(String::new());
/// The temporary files that exist now (or are about to be created): a path is added
/// before its exclusive create and removed after its rename or removal, each under
/// this lock, so whoever holds it sees every temporary file of the process.
static TEMPS: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn temps() -> std::sync::MutexGuard<'static, Vec<PathBuf>> {
    TEMPS.lock().unwrap_or_else(|e| e.into_inner())
}

/// Creates the temporary file `tmp` exclusively and registers it, in one step under the
/// registry's lock.
fn create_temp(tmp: &Path) -> io::Result<std::fs::File> {
    let mut t = temps();
    let f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(tmp)?;
    t.push(tmp.to_path_buf());
    Ok(f)
}

/// Renames (`to` given) or removes the temporary file `tmp` and unregisters it, in one
/// step under the registry's lock.
fn settle_temp(tmp: &Path, to: Option<&Path>) -> io::Result<()> {
    let mut t = temps();
    let r = match to {
        Some(to) => std::fs::rename(tmp, to),
        None => std::fs::remove_file(tmp),
    };
    if r.is_ok() || to.is_none() {
        t.retain(|p| p != tmp);
    }
    r
}

/// Sets what an exit on a signal says, one or more lines (what finished, where the
/// results so far are).
pub(crate) fn on_interrupt_say(note: String) {
    *NOTE.lock().unwrap_or_else(|e| e.into_inner()) = note;
}

fn lock() -> std::sync::MutexGuard<'static, ()> {
    SAVING.lock().unwrap_or_else(|e| e.into_inner())
}

/// A fresh temporary path beside `path`.
fn temp_path(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".into());
    let n = SEQ.fetch_add(1, Ordering::Relaxed);
    path.with_file_name(format!(".{name}.{}-{n}.tmp", std::process::id()))
}

/// Writes what `render` produces to `path`: atomically where a regular file (or
/// nothing) is, written through to standard output, a device or a FIFO, a symbolic
/// link followed to its target ([`crate::util::outpath`]; a directory is refused). On
/// any error of an atomic write the temporary file is removed and the target is
/// untouched.
pub(crate) fn write_atomic(
    path: &Path,
    render: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    use crate::util::outpath::{self, Dest};
    match outpath::resolve(path)? {
        Dest::Replace(target) => replace(&target, render),
        // Written through: no temporary, no rename, and no save lock held (a reader
        // that stops reading must not hold up an exit on a signal).
        Dest::Stdout => {
            let mut out = io::stdout().lock();
            render(&mut out)?;
            out.flush()
        }
        Dest::Fd(fd) => write_through(outpath::dup_fd(fd)?, render),
        Dest::Through(p) => write_through(outpath::open_through(&p)?, render),
    }
}

fn write_through(
    f: std::fs::File,
    render: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    let mut w = io::BufWriter::new(f);
    render(&mut w)?;
    w.flush()
}

/// The atomic write of [`write_atomic`] to the regular file (or nothing) at `path`.
fn replace(path: &Path, render: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> io::Result<()> {
    let _saving = lock();
    let tmp = temp_path(path);
    let f = create_temp(&tmp)?;
    let r = (|| {
        let mut w = io::BufWriter::new(f);
        render(&mut w)?;
        let f = w.into_inner().map_err(|e| e.into_error())?;
        // Best effort: some filesystems (tmpfs, FUSE) do not sync.
        let _ = f.sync_all();
        drop(f);
        settle_temp(&tmp, Some(path))
    })();
    if r.is_err() {
        let _ = settle_temp(&tmp, None);
    }
    r
}

/// Checks, before any work, that `path` can be written as [`write_atomic`] will: a
/// regular file's directory exists and accepts a new file (a temporary one, removed at
/// once; `path` is not touched), a device or FIFO is writable by this process
/// (a FIFO's reader is only looked for when writing), a directory is refused.
pub(crate) fn check_writable(path: &Path) -> io::Result<()> {
    use crate::util::outpath::{self, Dest};
    match outpath::resolve(path)? {
        Dest::Replace(target) => {
            let tmp = temp_path(&target);
            create_temp(&tmp)?;
            settle_temp(&tmp, None)
        }
        Dest::Stdout => Ok(()),
        Dest::Fd(fd) => outpath::dup_fd(fd).map(drop),
        Dest::Through(p) => outpath::may_write(&p),
    }
}

/// Creates `dir/STEM.EXT` exclusively, or `STEM-2.EXT`, `STEM-3.EXT`, … when taken, and
/// returns the path reserved: two runs started in the same second never share a name.
pub(crate) fn create_unique(dir: &Path, stem: &str, ext: &str) -> io::Result<PathBuf> {
    for i in 1..10_000u32 {
        let name = if i == 1 {
            format!("{stem}.{ext}")
        } else {
            format!("{stem}-{i}.{ext}")
        };
        let p = dir.join(name);
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&p)
        {
            Ok(_) => return Ok(p),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(io::Error::new(
        io::ErrorKind::AlreadyExists,
        format!("{stem}.{ext} and 9999 numbered variants exist"),
    ))
}

/// Registers `hook` to run (once) on an exit on a signal, before anything else; its
/// lines are printed. Returns an id for [`forget_on_signal_exit`]. Blocks for ever when
/// such an exit is under way (the process is about to end): register before creating
/// what the hook removes, and it is never left behind.
pub(crate) fn on_signal_exit(hook: Hook) -> u64 {
    let id = SEQ.fetch_add(1, Ordering::Relaxed);
    HOOKS
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push((id, hook));
    id
}

/// Unregisters hook `id` (what it would undo is gone).
pub(crate) fn forget_on_signal_exit(id: u64) {
    HOOKS
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .retain(|(i, _)| *i != id);
}

/// Exits with `code` once no save is in progress (and none can start); an exit on a
/// signal (`code` > 128) first runs the [`on_signal_exit`] hooks, printing their lines,
/// then prints [`on_interrupt_say`]'s lines, whichever handler caught it.
pub(crate) fn exit_after_saves(code: i32) -> ! {
    if code > 128 {
        // Held until the process is gone: no hook is added after these ran.
        let hooks = HOOKS.lock().unwrap_or_else(|e| e.into_inner());
        for (_, h) in hooks.iter() {
            for l in h() {
                eprintln!("peakbench: {l}");
            }
        }
        std::mem::forget(hooks);
    }
    let _saving = lock();
    if code > 128 {
        let note = std::mem::take(&mut *NOTE.lock().unwrap_or_else(|e| e.into_inner()));
        for l in note.lines() {
            eprintln!("peakbench: {l}");
        }
    }
    let _ = io::stderr().flush();
    crate::util::foreign::exiting();
    std::process::exit(code)
}

extern "C" fn on_signal(sig: libc::c_int) {
    // Async-signal-safe: one atomic store.
    CAUGHT.store(sig, Ordering::SeqCst);
}

/// Routes SIGINT/SIGTERM through [`exit_after_saves`] for the rest of the process: a
/// watcher thread sees the signal within 20 ms, says so (with [`on_interrupt_say`]'s
/// note), and exits with 128 + the signal number (as a shell expects) after the
/// [`on_signal_exit`] hooks and any save in progress. Installed once: later calls do
/// nothing.
pub(crate) fn catch_signals() {
    CATCH.call_once(install_catch);
}

fn install_catch() {
    watch_signals("signal-watch", |sig, name| {
        eprintln!("peakbench: interrupted by {name}");
        exit_after_saves(128 + sig);
    });
}

/// Installs [`on_signal`] for SIGINT and SIGTERM and starts a watcher thread named
/// `thread` that looks for a caught signal every 20 ms and then calls `exit` with its
/// number and name (`exit` ends the process).
fn watch_signals(thread: &str, exit: impl Fn(i32, &str) + Send + 'static) {
    for sig in [libc::SIGINT, libc::SIGTERM] {
        // SAFETY: a zeroed sigaction is valid; the handler only stores an atomic.
        unsafe {
            let mut act: libc::sigaction = std::mem::zeroed();
            act.sa_sigaction = on_signal as *const () as usize;
            libc::sigemptyset(&mut act.sa_mask);
            libc::sigaction(sig, &act, std::ptr::null_mut());
        }
    }
    let _ = std::thread::Builder::new()
        .name(thread.into())
        .spawn(move || loop {
            let sig = CAUGHT.load(Ordering::SeqCst);
            if sig != 0 {
                let name = if sig == libc::SIGINT {
                    "SIGINT"
                } else {
                    "SIGTERM"
                };
                exit(sig, name);
            }
            std::thread::sleep(Duration::from_millis(20));
        });
}

/// Routes SIGINT/SIGTERM of a command that only writes views of results files
/// (`report`, `compare`, `fleet`) to an exit that does not wait for the save in
/// progress: a watcher thread sees the signal within 20 ms, takes the temporary-file
/// registry for good (no temporary can be created or renamed after), removes every
/// registered temporary file, says so and exits with 128 + the signal number. A file
/// already renamed into place is whole; one not yet renamed was never there.
pub(crate) fn discard_on_signal() {
    watch_signals("signal-discard", |sig, name| {
        let mut t = temps();
        let mut removed = Vec::new();
        for p in t.drain(..) {
            if std::fs::remove_file(&p).is_ok() {
                removed.push(crate::util::sanitize::line(&p.display().to_string()));
            }
        }
        if removed.is_empty() {
            eprintln!("peakbench: interrupted by {name}");
        } else {
            eprintln!(
                "peakbench: interrupted by {name}; removed the unfinished {}",
                removed.join(", ")
            );
        }
        let _ = io::stderr().flush();
        // The registry stays locked: the writer thread can neither create nor rename
        // a temporary file before the process is gone.
        std::mem::forget(t);
        crate::util::foreign::exiting();
        std::process::exit(128 + sig);
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_replace_and_leave_no_temporary() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("r.json");
        write_atomic(&p, |w| w.write_all(b"one")).unwrap();
        write_atomic(&p, |w| w.write_all(b"two")).unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"two");
        // A failing render leaves the old content and no temporary file.
        let e = write_atomic(&p, |_| Err(io::Error::other("render failed")));
        assert!(e.is_err());
        assert_eq!(std::fs::read(&p).unwrap(), b"two");
        let names: Vec<_> = std::fs::read_dir(d.path()).unwrap().collect();
        assert_eq!(names.len(), 1);
    }

    #[test]
    fn unique_names_never_collide() {
        let d = tempfile::tempdir().unwrap();
        let a = create_unique(d.path(), "host-t", "json").unwrap();
        let b = create_unique(d.path(), "host-t", "json").unwrap();
        assert_ne!(a, b);
        assert!(b.ends_with("host-t-2.json"));
        assert!(check_writable(&d.path().join("x.html")).is_ok());
        assert!(check_writable(&d.path().join("no/such/x.html")).is_err());
        assert!(check_writable(d.path()).is_err());
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 2);
    }
}
