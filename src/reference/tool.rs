//! What a reference tool is (its [`Row`] of metadata and its [`Tool`] behaviour) and
//! what the adapters share (the [`Context`] of a run, the [`Memo`] of tool outputs,
//! version and output helpers). Below both `reference/mod.rs` (the tool list) and the
//! adapters, so that neither imports the other's file back.

use crate::hw::HostInfo;
use crate::report::model::{BenchResult, Reference, ResourceName, Unit};
/// Running external programs lives in `util::process` (the one place that does);
/// re-exported for the adapters.
pub(crate) use crate::util::process::capture;
use crate::util::process::{output_any, spawn_quiet};
use std::any::Any;
use std::collections::HashMap;
use std::path::Path;
use std::process::Child;
use std::sync::Mutex;
use std::time::Duration;

/// What an adapter may look at to match a case, besides the case's own typed result
/// (its resource, metric, unit and params: what actually ran, e.g. the disk `engine`
/// that `--engine auto` chose): the host, the few run settings a result does not carry,
/// and the outputs kept from earlier cases of the same run.
pub(crate) struct Context<'a> {
    /// The machine.
    pub(crate) host: &'a HostInfo,
    /// `--dir` of a disk run as the user gave it (fio runs in the same directory; not
    /// given, fio is not run).
    pub(crate) disk_dir: Option<&'a Path>,
    /// Whether a network run measured against a `--server` (the loopback-only tools,
    /// iperf3 and sockperf, then have nothing to compare).
    pub(crate) remote: bool,
    /// Tool outputs kept across the cases of this run.
    pub(crate) memo: &'a Memo,
}

impl<'a> Context<'a> {
    /// A context for a run on `host` with no disk directory and no remote server.
    #[cfg(test)]
    pub(crate) fn new(host: &'a HostInfo, memo: &'a Memo) -> Context<'a> {
        Context {
            host,
            disk_dir: None,
            remote: false,
            memo,
        }
    }
}

/// Tool outputs kept for the length of one run, by key, so that a tool that measures
/// every case at once runs once. Owned by whoever runs the cases (`app::run`).
#[derive(Default)]
pub(crate) struct Memo {
    slots: Mutex<HashMap<String, Box<dyn Any + Send>>>,
}

impl Memo {
    /// The value kept under `key`, made by `make` the first time. The lock is not held
    /// while `make` runs, so `make` may use the memo itself. A value of another type
    /// under the same key is replaced.
    pub(crate) fn get_or_insert_with<T: Any + Send + Clone>(
        &self,
        key: &str,
        make: impl FnOnce() -> T,
    ) -> T {
        let kept = self
            .slots
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(key)
            .and_then(|v| v.downcast_ref::<T>())
            .cloned();
        if let Some(v) = kept {
            return v;
        }
        let v = make();
        self.slots
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(key.to_string(), Box::new(v.clone()));
        v
    }
}

/// What a shared-run tool found for one case: its figure, if it has one for this case,
/// and notes for the reader (conventions, why nothing was attached).
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Found {
    /// The figure, in the case's unit.
    pub(crate) reference: Option<Reference>,
    /// Notes for the case, each added as `reference <tool>: <note>`.
    pub(crate) notes: Vec<String>,
}

/// What [`Tool::shared`] answers: `None` when the tool has nothing for the case,
/// `Err` when running or reading the tool failed.
pub(crate) type SharedFound = Option<Result<Found, String>>;

/// A tool run that reproduces one case.
pub(crate) struct Invocation {
    /// Program and arguments (`argv[0]` is the binary name).
    pub(crate) argv: Vec<String>,
    /// Longest the run may take.
    pub(crate) timeout: Duration,
    /// Turns the tool's stdout into a value in `unit`.
    pub(crate) parse: fn(&str) -> Result<f64, String>,
    /// Unit of the parsed value (the case's unit).
    pub(crate) unit: Unit,
    /// A helper to start first and stop after (a server), if any.
    pub(crate) server: Option<Server>,
}

/// A server a reference client measures against on loopback.
pub(crate) struct Server {
    /// Program and arguments (`argv[0]` is the binary name).
    pub(crate) argv: Vec<String>,
    /// The loopback port it listens on, from [`free_port`]: the argument after `-p`
    /// in both `argv` and the client's argv, replaced there when the server has to
    /// move to another port (see [`start_server`]).
    pub(crate) port: u16,
}

/// One reference tool as data: who it is, what it checks and how its version is read.
/// Each adapter file has one (`ROW`), listed in [`TOOLS`](super::TOOLS); `tool` is its behaviour.
pub(crate) struct Row {
    /// Tool name as users know it, e.g. `likwid-bench`.
    pub(crate) name: &'static str,
    /// The binary to look for on `PATH`.
    pub(crate) binary: &'static str,
    /// The Debian package that provides it.
    pub(crate) package: &'static str,
    /// Which peakbench cases it checks, one line, starting with their resources.
    pub(crate) covers: &'static str,
    /// How its version is read.
    pub(crate) version: VersionFrom,
    /// Which cases it runs and how.
    pub(crate) tool: &'static dyn Tool,
}

/// Where a tool's version comes from.
pub(crate) enum VersionFrom {
    /// The Debian package's version (`dpkg-query`): the tool prints none.
    Package,
    /// The first line of `argv`'s output that `pick` reads a version from; the
    /// package's version when none does.
    Command {
        /// The command (`argv[0]` is the binary name).
        argv: &'static [&'static str],
        /// The version in one line of its output, if that line has it.
        pick: fn(&str) -> Option<String>,
    },
    /// The package's version (finer than the tool's own), else the command's.
    PackageThenCommand {
        /// The command (`argv[0]` is the binary name).
        argv: &'static [&'static str],
        /// The version in one line of its output, if that line has it.
        pick: fn(&str) -> Option<String>,
    },
}

impl Row {
    /// The version of the installed tool: from the tool itself or its package.
    pub(crate) fn version(&self) -> Option<String> {
        // The version command runs the binary that was found (a tool built from
        // source may be found by its `$PEAKBENCH_<TOOL>` path, not on PATH).
        let program = self.program();
        let with_program = |argv: &[&str]| -> Vec<String> {
            let mut a: Vec<String> = argv.iter().map(|s| s.to_string()).collect();
            if a.first().map(String::as_str) == Some(self.binary) {
                a[0] = program.clone();
            }
            a
        };
        match self.version {
            VersionFrom::Package => dpkg_version(self.package),
            VersionFrom::Command { argv, pick } => {
                version_line(&with_program(argv), pick).or_else(|| dpkg_version(self.package))
            }
            VersionFrom::PackageThenCommand { argv, pick } => {
                dpkg_version(self.package).or_else(|| version_line(&with_program(argv), pick))
            }
        }
    }

    /// Where the tool is: the file named by its `$PEAKBENCH_<TOOL>` variable when it
    /// has one ([`Tool::env_path`]) and that names a file, else its binary on `PATH`.
    pub(crate) fn locate(&self) -> Option<std::path::PathBuf> {
        self.tool
            .env_path()
            .and_then(std::env::var_os)
            .filter(|v| !v.is_empty())
            .map(std::path::PathBuf::from)
            .filter(|p| p.is_file())
            .or_else(|| super::which(self.binary))
    }

    /// The program to run: [`Row::locate`]'s path when the tool's variable names it,
    /// else the binary's name (found on `PATH` when it runs).
    pub(crate) fn program(&self) -> String {
        match self.tool.env_path().and_then(std::env::var_os) {
            Some(v) if !v.is_empty() && std::path::Path::new(&v).is_file() => {
                v.to_string_lossy().into_owned()
            }
            _ => self.binary.to_string(),
        }
    }

    /// What `peakbench reference` says to do when the tool is not found.
    pub(crate) fn install_hint(&self) -> String {
        self.tool.install_hint().map_or_else(
            || format!("apt-get install {}", self.package),
            str::to_string,
        )
    }

    /// The resources whose rows the tool checks: those named in [`Row::covers`] (its
    /// line starts with them), so the line users read is the one source.
    pub(crate) fn resources(&self) -> Vec<ResourceName> {
        self.covers
            .split(|c: char| !c.is_ascii_alphanumeric())
            .filter_map(ResourceName::parse)
            .collect()
    }
}

/// What one reference tool does (its [`Row`] says who it is).
pub(crate) trait Tool: Sync {
    /// A run matching `r`, or `None` when the tool has no matching case (or running it
    /// would not be cheap).
    fn invocation(&self, r: &BenchResult, ctx: &Context) -> Option<Invocation> {
        let _ = (r, ctx);
        None
    }
    /// Why the tool, although it covers this kind of case, cannot run `r` with the
    /// same parameters (a message size it does not take, more streams than it runs):
    /// one line, attached as a note instead of a figure for an unlike run. `None` when
    /// it can, or when the case is not of its kind at all.
    fn cannot_match(&self, r: &BenchResult, ctx: &Context) -> Option<String> {
        let _ = (r, ctx);
        None
    }
    /// For a tool that measures many cases in one long run: what it found for `r`,
    /// from a run kept in `ctx.memo` and shared by every case of the process; `version`
    /// is the detected version. `None` when the tool has nothing for `r`; `Err` when
    /// running or reading the tool failed. When this gives `Some`, [`Tool::invocation`]
    /// is not asked.
    fn shared(&self, r: &BenchResult, ctx: &Context, version: &str) -> SharedFound {
        let _ = (r, ctx, version);
        None
    }
    /// For a tool users build from source: the environment variable that may name its
    /// binary (`PEAKBENCH_PMBW`), looked at before `PATH`. `None`: `PATH` only.
    fn env_path(&self) -> Option<&'static str> {
        None
    }
    /// How to get the tool when it is not found, when `apt-get install <package>` is
    /// not the answer (a tool built from source, a package outside Debian's main).
    fn install_hint(&self) -> Option<&'static str> {
        None
    }
}

/// The first line of `argv`'s output (stdout, else stderr) that `pick` accepts.
pub(crate) fn version_line(
    argv: &[String],
    pick: impl Fn(&str) -> Option<String>,
) -> Option<String> {
    // Some tools print their version and exit non-zero; take the text either way.
    let (out, err) = match capture(argv, Duration::from_secs(5)) {
        Ok(x) => x,
        Err(_) => output_any(argv)?,
    };
    out.lines()
        .chain(err.lines())
        .find_map(|l| pick(&strip_ansi(l)))
}

/// The Debian package version (`dpkg-query`), when the tool does not say.
pub(crate) fn dpkg_version(package: &str) -> Option<String> {
    // A tool Debian does not package has no package name (and `dpkg-query -W ''`
    // would list every package).
    if package.is_empty() {
        return None;
    }
    let argv = [
        "dpkg-query".to_string(),
        "-W".into(),
        "-f=${Version}".into(),
        package.into(),
    ];
    let (out, _) = capture(&argv, Duration::from_secs(5)).ok()?;
    let v = out.trim();
    (!v.is_empty()).then(|| v.to_string())
}

/// Removes ANSI colour sequences (`ESC [ … m`), which sockperf prints.
pub(crate) fn strip_ansi(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    let mut it = s.chars().peekable();
    while let Some(c) = it.next() {
        if c == '\u{1b}' {
            if it.peek() == Some(&'[') {
                for d in it.by_ref() {
                    if d.is_ascii_alphabetic() {
                        break;
                    }
                }
            }
            continue;
        }
        o.push(c);
    }
    o
}

/// The number after `key` on the first line containing it (`MFlops/s:\t\t23669.26`).
pub(crate) fn number_after(text: &str, key: &str) -> Option<f64> {
    text.lines().find_map(|l| {
        let l = strip_ansi(l);
        let i = l.find(key)?;
        let rest = l[i + key.len()..]
            .trim_start_matches(|c: char| c == ':' || c == '=' || c.is_whitespace() || c == '(');
        let num: String = rest
            .chars()
            .take_while(|c| c.is_ascii_digit() || matches!(c, '.' | '-' | '+' | 'e' | 'E'))
            .collect();
        num.parse::<f64>().ok().filter(|v| v.is_finite())
    })
}

/// A free TCP port on loopback for a reference server (bind to 0, read, release).
pub(crate) fn free_port() -> Option<u16> {
    std::net::TcpListener::bind("127.0.0.1:0")
        .ok()?
        .local_addr()
        .ok()
        .map(|a| a.port())
}

/// How many ports a reference server is started on before the run gives up.
pub(crate) const SERVER_TRIES: usize = 5;

/// How long a reference server gets to start listening before the client runs; one
/// that has exited by then did not start (its port was taken, most often).
const SERVER_START: Duration = Duration::from_millis(300);

/// `argv` with the port after each `-p` that reads `from` set to `to`.
fn moved(argv: &[String], from: u16, to: u16) -> Vec<String> {
    let from = from.to_string();
    let mut out = argv.to_vec();
    for i in 1..out.len() {
        if out[i - 1] == "-p" && out[i] == from {
            out[i] = to.to_string();
        }
    }
    out
}

/// Starts `inv`'s server, if it has one, and returns it with the client's argv for the
/// port it listens on. [`free_port`] only says the port was free when it looked: another
/// process may bind it before the server does. A server that has exited within
/// [`SERVER_START`] could not listen, so it is started again on a fresh port, at most
/// [`SERVER_TRIES`] times in all; then the run fails with one line saying so.
pub(crate) fn start_server(inv: &Invocation) -> Result<(Option<Child>, Vec<String>), String> {
    let Some(server) = &inv.server else {
        return Ok((None, inv.argv.clone()));
    };
    let mut port = server.port;
    for _ in 0..SERVER_TRIES {
        let argv = moved(&server.argv, server.port, port);
        let mut child = spawn_quiet(&argv)?;
        std::thread::sleep(SERVER_START);
        match child.try_wait() {
            Ok(None) => return Ok((Some(child), moved(&inv.argv, server.port, port))),
            Ok(Some(_)) => {}
            Err(e) => return Err(format!("cannot watch `{}`: {e}", argv.join(" "))),
        }
        port = free_port().ok_or("no free loopback port for the server")?;
    }
    Err(format!(
        "server `{}` exited before its client ran, on {SERVER_TRIES} ports in turn (port in use?)",
        server.argv.join(" ")
    ))
}
