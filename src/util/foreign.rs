//! A library loaded at run time (a BLAS, `dlopen`) runs its own code inside this
//! process, and may end it: `exit(0)` from inside `dgemm_` made peakbench exit 0 with
//! no message and no results (issue #33 item 14). While such a call is in progress it is
//! *armed* ([`arm`]); an `atexit` hook installed on the first arm reports an exit that
//! happens meanwhile, naming the call and the library, and makes the exit status 1.
//! peakbench's own exits (the end on a signal) say so first ([`exiting`]), so they
//! are never taken for the library's.
//!
//! Not covered: a library that calls `_exit`/`exit_group` directly, or whose own
//! `atexit` handlers (registered after this hook, so run before it) end the process;
//! a crash (SIGSEGV, `abort`) already ends with a status that is not 0.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Once};

/// Calls in progress now (several threads may each be in one, e.g. weak GEMM).
static ARMED: AtomicUsize = AtomicUsize::new(0);
/// The routine and library of the latest armed call.
static WHAT: Mutex<Option<(&'static str, Arc<str>)>> = Mutex::new(None);
/// Set by peakbench's own exits.
static DELIBERATE: AtomicBool = AtomicBool::new(false);
static HOOK: Once = Once::new();

/// A call into foreign code in progress; disarms on drop.
pub(crate) struct Armed(());

impl Drop for Armed {
    fn drop(&mut self) {
        ARMED.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Arms the exit hook for a call of `routine` in `library` (a name or path, shown
/// as it is given: sanitise it first) until the returned guard drops.
pub(crate) fn arm(routine: &'static str, library: &Arc<str>) -> Armed {
    HOOK.call_once(|| {
        // SAFETY: registers a plain `extern "C" fn()`; failure only loses the report.
        unsafe { libc::atexit(on_exit) };
    });
    *WHAT.lock().unwrap_or_else(|e| e.into_inner()) = Some((routine, library.clone()));
    ARMED.fetch_add(1, Ordering::SeqCst);
    Armed(())
}

/// Marks the exit about to happen as peakbench's own (an end on a signal).
pub(crate) fn exiting() {
    DELIBERATE.store(true, Ordering::SeqCst);
}

/// The report of an exit during an armed call, or `None` when none is armed or the
/// exit is peakbench's own.
fn report() -> Option<String> {
    // try_lock: the exiting thread may be the one arming (never blocks here).
    let what = WHAT.try_lock().ok().and_then(|w| w.clone());
    report_of(
        ARMED.load(Ordering::SeqCst),
        DELIBERATE.load(Ordering::SeqCst),
        what.as_ref().map(|(r, l)| (*r, &**l)),
    )
}

/// [`report`] of these readings.
fn report_of(armed: usize, deliberate: bool, what: Option<(&str, &str)>) -> Option<String> {
    if armed == 0 || deliberate {
        return None;
    }
    let what = what.map_or_else(|| "a library call".into(), |(r, l)| format!("{r} of {l}"));
    Some(format!(
        "peakbench: error: the process was ended by a call to exit() during {what}, inside the library; the case did not finish (cases before it are in the results file), exit status 1\n"
    ))
}

extern "C" fn on_exit() {
    if let Some(msg) = report() {
        // SAFETY: write(2) of our own buffer to stderr, then _exit: nothing of the
        // process's state (locks, buffers) is touched on the way out.
        unsafe {
            libc::write(2, msg.as_ptr().cast(), msg.len());
            libc::_exit(1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_exit_is_reported_only_while_a_call_is_armed_and_not_deliberate() {
        let what = Some(("dgemm_", "/opt/libevil.so"));
        let msg = report_of(1, false, what).unwrap();
        assert!(
            msg.contains("during dgemm_ of /opt/libevil.so, inside the library"),
            "{msg}"
        );
        assert_eq!(msg.lines().count(), 1);
        assert_eq!(report_of(0, false, what), None);
        assert_eq!(report_of(2, true, what), None);
        assert!(report_of(1, false, None)
            .unwrap()
            .contains("a library call"));
        // Arming counts calls in progress, and a guard disarms on drop.
        let lib: Arc<str> = Arc::from("x");
        let g = arm("sgemm_", &lib);
        assert!(ARMED.load(Ordering::SeqCst) >= 1);
        drop(g);
    }
}
