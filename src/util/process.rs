//! The one place that runs external programs (reference tools, `nvidia-smi`,
//! `dpkg-query`): always an argument vector, never a shell; stdin closed; a time limit
//! where the program's output is awaited. In `util` so that detection (`hw`) and the
//! reference adapters share it without `hw` importing `reference`.

use std::io::Read;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Finds `name` on `PATH`.
pub fn which(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// Runs `argv` with a time limit and returns its stdout and stderr (lossy UTF-8).
/// Errors: cannot start, time limit, or a non-zero exit (with the last stderr line).
pub(crate) fn capture(argv: &[String], timeout: Duration) -> Result<(String, String), String> {
    capture_in(argv, None, &[], timeout)
}

/// [`capture`], run in directory `dir` (when given) with `env` added to the
/// environment (tools that read an input file from their working directory: hpcc).
pub(crate) fn capture_in(
    argv: &[String],
    dir: Option<&std::path::Path>,
    env: &[(String, String)],
    timeout: Duration,
) -> Result<(String, String), String> {
    let (prog, args) = argv.split_first().ok_or("empty command")?;
    let mut cmd = Command::new(prog);
    if let Some(d) = dir {
        cmd.current_dir(d);
    }
    // The C locale: the parsers read the tools' numbers and words as the tools print
    // them there (a German LANG makes lscpu say "Architektur" and some tools print
    // decimal commas), whatever the user's shell exports.
    cmd.env("LC_ALL", "C");
    cmd.envs(env.iter().map(|(k, v)| (k, v)));
    let mut child = cmd
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start {prog}: {e}"))?;
    // Drain both pipes on threads, so a chatty tool never blocks on a full pipe.
    let mut so = child.stdout.take().ok_or("no stdout")?;
    let mut se = child.stderr.take().ok_or("no stderr")?;
    let t_out = std::thread::spawn(move || {
        let mut b = Vec::new();
        let _ = so.read_to_end(&mut b);
        b
    });
    let t_err = std::thread::spawn(move || {
        let mut b = Vec::new();
        let _ = se.read_to_end(&mut b);
        b
    });
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break s,
            Ok(None) if start.elapsed() > timeout => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("{prog} did not finish within {timeout:?}"));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => return Err(format!("{prog}: {e}")),
        }
    };
    let out = String::from_utf8_lossy(&t_out.join().unwrap_or_default()).into_owned();
    let err = String::from_utf8_lossy(&t_err.join().unwrap_or_default()).into_owned();
    if !status.success() && out.trim().is_empty() {
        let last = err
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("");
        return Err(format!("{prog} exited with {status}: {}", last.trim()));
    }
    Ok((out, err))
}

/// Runs `argv` to completion without a time limit and returns its stdout and stderr
/// (lossy UTF-8) whatever its exit status; `None` when it cannot start. For version
/// queries of tools that print their version and exit non-zero.
pub(crate) fn output_any(argv: &[String]) -> Option<(String, String)> {
    let (prog, args) = argv.split_first()?;
    let o = Command::new(prog)
        .env("LC_ALL", "C")
        .args(args)
        .stdin(Stdio::null())
        .output()
        .ok()?;
    Some((
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    ))
}

/// Starts `argv` in the background with every stream closed (a tool's server side);
/// the caller kills and waits for it.
pub(crate) fn spawn_quiet(argv: &[String]) -> Result<Child, String> {
    let (prog, args) = argv.split_first().ok_or("empty server command")?;
    Command::new(prog)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot start {prog}: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue #32 A: a tool's output does not depend on the user's locale.
    #[test]
    fn tools_run_in_the_c_locale() {
        let argv: Vec<String> = ["sh", "-c", "echo \"$LC_ALL\""]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let (out, _) = capture(&argv, Duration::from_secs(10)).unwrap();
        assert_eq!(out.trim(), "C");
        let (out, _) = output_any(&argv).unwrap();
        assert_eq!(out.trim(), "C");
    }
}
