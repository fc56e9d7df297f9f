//! Reference tools: adapters that find the trusted specialist tools (likwid-bench,
//! sysbench, fio, iperf3, sockperf, mbw, hpcc, clpeak), report their versions, and —
//! where it is cheap — run them with parameters matching a peakbench case, parse their
//! output and return a [`Reference`] to put beside our figure.
//!
//! One tool = one file with its [`Row`] (name, binary, package, what it checks, how its
//! version is read) and a unit struct implementing [`Tool`] (what it runs), and one line
//! in [`TOOLS`]. Parsers are pure functions over the tool's text, tested on captured
//! outputs in `tests/fixtures/tools/`. Tools run with a time limit and never get a
//! shell: arguments are passed as a vector.
//!
//! Most tools run once per case ([`Tool::invocation`]). A tool that measures every
//! case in one long run (clpeak) implements [`Tool::shared`] instead and keeps its
//! parsed output in the run's [`Memo`], which the caller owns (no global state).

pub(crate) mod clpeak;
pub mod fio;
pub(crate) mod hpcc;
pub mod iperf3;
pub mod likwid;
pub mod mbw;
pub mod sockperf;
pub mod sysbench;

use crate::hw::HostInfo;
use crate::report::model::{BenchResult, Note, NoteKind, Reference, Resource, Unit};
pub use crate::util::process::which;
/// Running external programs lives in `util::process` (the one place that does);
/// re-exported for the adapters.
pub(crate) use crate::util::process::{capture, capture_in};
use crate::util::process::{output_any, spawn_quiet};
use serde::Serialize;
use std::any::Any;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
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
    pub(crate) server: Option<Vec<String>>,
}

/// One reference tool as data: who it is, what it checks and how its version is read.
/// Each adapter file has one (`ROW`), listed in [`TOOLS`]; `tool` is its behaviour.
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
        match self.version {
            VersionFrom::Package => dpkg_version(self.package),
            VersionFrom::Command { argv, pick } => {
                version_line(argv, pick).or_else(|| dpkg_version(self.package))
            }
            VersionFrom::PackageThenCommand { argv, pick } => {
                dpkg_version(self.package).or_else(|| version_line(argv, pick))
            }
        }
    }

    /// The resources whose rows the tool checks: those named in [`Row::covers`] (its
    /// line starts with them), so the line users read is the one source.
    pub(crate) fn resources(&self) -> Vec<Resource> {
        self.covers
            .split(|c: char| !c.is_ascii_alphanumeric())
            .filter_map(Resource::parse)
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
}

/// Every adapter, in listing order.
pub(crate) static TOOLS: &[&Row] = &[
    &likwid::ROW,
    &sysbench::ROW,
    &mbw::ROW,
    &hpcc::ROW,
    &fio::ROW,
    &iperf3::ROW,
    &sockperf::ROW,
    &clpeak::ROW,
];

/// A tool as found on this machine.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Detected {
    /// Tool name.
    pub(crate) tool: &'static str,
    /// Whether the binary is on `PATH`.
    pub(crate) installed: bool,
    /// Where.
    pub(crate) path: Option<PathBuf>,
    /// Its version, when it says.
    pub(crate) version: Option<String>,
    /// Debian package providing it (`apt-get install <package>`).
    pub(crate) package: &'static str,
    /// What it checks.
    pub(crate) covers: &'static str,
}

/// The first line of `argv`'s output (stdout, else stderr) that `pick` accepts.
pub(crate) fn version_line(argv: &[&str], pick: impl Fn(&str) -> Option<String>) -> Option<String> {
    let argv: Vec<String> = argv.iter().map(|s| s.to_string()).collect();
    // Some tools print their version and exit non-zero; take the text either way.
    let (out, err) = match capture(&argv, Duration::from_secs(5)) {
        Ok(x) => x,
        Err(_) => output_any(&argv)?,
    };
    out.lines()
        .chain(err.lines())
        .find_map(|l| pick(&strip_ansi(l)))
}

/// The Debian package version (`dpkg-query`), when the tool does not say.
pub(crate) fn dpkg_version(package: &str) -> Option<String> {
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

/// Detects every tool in [`TOOLS`].
pub(crate) fn detect() -> Vec<Detected> {
    TOOLS
        .iter()
        .map(|t| {
            let path = which(t.binary);
            let version = path.as_ref().and_then(|_| t.version());
            Detected {
                tool: t.name,
                installed: path.is_some(),
                path,
                version,
                package: t.package,
                covers: t.covers,
            }
        })
        .collect()
}

/// Runs one invocation (with its server, if any) and returns the reference figure.
pub(crate) fn run(tool: &Row, version: &str, inv: &Invocation) -> Result<Reference, String> {
    let mut server = match &inv.server {
        Some(argv) => {
            let child = spawn_quiet(argv)?;
            // Give the server time to listen.
            std::thread::sleep(Duration::from_millis(300));
            Some(child)
        }
        None => None,
    };
    let res = capture(&inv.argv, inv.timeout);
    if let Some(s) = server.as_mut() {
        let _ = s.kill();
        let _ = s.wait();
    }
    let (out, _) = res?;
    let value = (inv.parse)(&out)?;
    Ok(Reference {
        tool: tool.name.to_string(),
        version: version.to_string(),
        command: inv.argv.join(" "),
        value,
        unit: inv.unit,
    })
}

/// Runs every installed tool that has a case matching `r` and adds its figure to
/// `r.reference`; a tool that fails adds a note instead.
pub(crate) fn attach(r: &mut BenchResult, ctx: &Context, found: &[Detected]) {
    if !r.is_ok() {
        return;
    }
    let before = (r.reference.as_ref().map_or(0, Vec::len), r.notes.len());
    attach_each(r, ctx, found);
    // Issue #32 item 4: a row of a resource that installed tools check, which none of
    // them ran or explained, gets one line saying so (not silence).
    if before == (r.reference.as_ref().map_or(0, Vec::len), r.notes.len()) {
        let names: Vec<&str> = TOOLS
            .iter()
            .zip(found)
            .filter(|(t, d)| d.installed && t.resources().contains(&r.resource))
            .map(|(t, _)| t.name)
            .collect();
        if !names.is_empty() {
            r.notes.push(Note::new(
                NoteKind::Reference,
                format!("reference: not run: {}", uncovered(r, ctx, &names)),
            ));
        }
    }
}

/// Why none of the installed tools `names` (all of `r`'s resource) ran `r`: one line.
fn uncovered(r: &BenchResult, ctx: &Context, names: &[&str]) -> String {
    let list = names.join(", ");
    if r.resource == Resource::Net && ctx.remote {
        return format!(
            "against a --server, {list} would measure loopback on this host, not the link to the server; run them between the two hosts by hand to compare"
        );
    }
    if r.resource == Resource::Memory && r.param_str("pattern") == Some("rand") {
        return format!(
            "none of {list} runs {} in random order at this block (sysbench's rnd mode has read and write only; likwid-bench, mbw and hpcc's STREAM stream in order)",
            r.param_str("kernel").unwrap_or("this kernel")
        );
    }
    format!(
        "none of the installed {} tools ({list}) runs this case with the same parameters",
        r.resource
    )
}

/// [`attach`]'s work: each installed tool's figure or note.
fn attach_each(r: &mut BenchResult, ctx: &Context, found: &[Detected]) {
    for (t, d) in TOOLS.iter().zip(found) {
        if !d.installed {
            continue;
        }
        let version = d.version.clone().unwrap_or_else(|| "unknown".into());
        if let Some(why) = t.tool.cannot_match(r, ctx) {
            r.notes.push(reference_note(t, &format!("not run: {why}")));
            continue;
        }
        if let Some(res) = t.tool.shared(r, ctx, &version) {
            match res {
                Ok(f) => {
                    if let Some(x) = f.reference {
                        r.reference.get_or_insert_with(Vec::new).push(x);
                    }
                    for n in f.notes {
                        r.notes.push(reference_note(t, &n));
                    }
                }
                Err(e) => r.notes.push(reference_note(t, &e)),
            }
            continue;
        }
        let Some(inv) = t.tool.invocation(r, ctx) else {
            continue;
        };
        match run(t, &version, &inv) {
            Ok(x) => r.reference.get_or_insert_with(Vec::new).push(x),
            Err(e) => r.notes.push(reference_note(t, &e)),
        }
    }
}

/// `reference <tool>: <text>`, of kind [`NoteKind::Reference`].
fn reference_note(t: &Row, text: &str) -> Note {
    Note::new(NoteKind::Reference, format!("reference {}: {text}", t.name))
}

/// A free TCP port on loopback for a reference server (bind to 0, read, release).
pub(crate) fn free_port() -> Option<u16> {
    std::net::TcpListener::bind("127.0.0.1:0")
        .ok()?
        .local_addr()
        .ok()
        .map(|a| a.port())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::model::{Metric, Resource};

    #[test]
    fn helpers() {
        assert_eq!(strip_ansi("a\u{1b}[2;35mb\u{1b}[0mc"), "abc");
        assert_eq!(
            number_after("x\nMFlops/s:\t\t23669.26\n", "MFlops/s"),
            Some(23669.26)
        );
        assert_eq!(
            number_after("avg-latency=13.140 (std", "avg-latency"),
            Some(13.14)
        );
        assert_eq!(number_after("nothing", "MFlops/s"), None);
        assert!(capture(&["/nonexistent/tool".into()], Duration::from_secs(1)).is_err());
        assert!(capture(&[], Duration::from_secs(1)).is_err());
    }

    /// Runs every installed tool with a matching case for loopback-network, memory and
    /// CPU results (about 20 s): `cargo test --release -- --ignored reference`.
    #[test]
    #[ignore = "needs: the reference tools installed; runs them (~20 s)"]
    fn installed_tools_run_and_parse() {
        let host = HostInfo::detect(false);
        let memo = Memo::default();
        let ctx = Context::new(&host, &memo);
        let found = detect();
        let cases = [
            BenchResult::new(Resource::Net, "tcp", Metric::Throughput, Unit::BytePerSec)
                .param("proto", "tcp")
                .param("msg", 131072)
                .param("streams", 1),
            BenchResult::new(Resource::Net, "udp", Metric::Latency, Unit::Second)
                .param("proto", "udp")
                .param("msg", 64),
            BenchResult::new(
                Resource::Memory,
                "read",
                Metric::Throughput,
                Unit::BytePerSec,
            )
            .param("kernel", "read")
            .param("pattern", "seq")
            .param("block", 1048576)
            .param("size", 67108864)
            .param("threads", 1),
            crate::report::samples::mem_seq("copy", 67108864, 1),
            BenchResult::new(Resource::Cpu, "fma_f64_avx2", Metric::Ops, Unit::FlopPerSec)
                .param("precision", "fp64")
                .param("isa", "avx2")
                .param("threads", 1),
        ];
        for r in cases {
            let mut r = r.with_samples(vec![1.0, 1.0]);
            attach(&mut r, &ctx, &found);
            eprintln!(
                "{} {}: {:?} {:?}",
                r.resource, r.workload, r.reference, r.notes
            );
            let failed: Vec<&Note> = r
                .notes
                .iter()
                .filter(|n| n.kind == NoteKind::Reference)
                .collect();
            assert!(failed.is_empty(), "{failed:?}");
            for x in r.reference.iter().flatten() {
                assert!(x.value > 0.0 && x.value.is_finite(), "{x:?}");
                assert_eq!(x.unit, r.unit);
            }
        }
    }

    /// Issue #32 item 4: memory rows in random order and every row against a
    /// `--server` used to get neither a figure nor a reason.
    #[test]
    fn rows_no_installed_tool_runs_get_one_reason() {
        let host = crate::report::samples::host();
        let memo = Memo::default();
        // Every tool "installed": none of them matches these rows, so none runs.
        let found: Vec<Detected> = TOOLS
            .iter()
            .map(|t| Detected {
                tool: t.name,
                installed: true,
                path: Some(PathBuf::from("/nonexistent")),
                version: Some("1".into()),
                package: t.package,
                covers: t.covers,
            })
            .collect();
        let mut rand = crate::report::samples::mem_seq("copy", 67108864, 1)
            .param("pattern", "rand")
            .with_samples(vec![1.0, 1.0]);
        attach(&mut rand, &Context::new(&host, &memo), &found);
        let reasons: Vec<&Note> = rand
            .notes
            .iter()
            .filter(|n| n.kind == NoteKind::Reference)
            .collect();
        assert_eq!(reasons.len(), 1, "{:?}", rand.notes);
        assert!(reasons[0].text.contains("random order"), "{reasons:?}");
        let remote = Context {
            remote: true,
            ..Context::new(&host, &memo)
        };
        for metric in [Metric::Throughput, Metric::Latency] {
            let unit = if metric == Metric::Latency {
                Unit::Second
            } else {
                Unit::BytePerSec
            };
            let mut r = BenchResult::new(Resource::Net, "tcp", metric, unit)
                .param("proto", "tcp")
                .param("msg", 64)
                .param("streams", 1)
                .with_samples(vec![1.0, 1.0]);
            attach(&mut r, &remote, &found);
            let n: Vec<&Note> = r
                .notes
                .iter()
                .filter(|n| n.kind == NoteKind::Reference)
                .collect();
            assert_eq!(n.len(), 1, "{:?}", r.notes);
            assert!(n[0].text.contains("--server"), "{n:?}");
            assert!(r.reference.is_none());
        }
    }

    /// Issue #32 item 7: the README said hpcc checks "memory STREAM" while the adapter
    /// matched only linalg rows. A README line that credits hpcc with STREAM needs the
    /// adapter to cover memory rows.
    #[test]
    fn the_readme_credits_hpcc_only_with_what_it_covers() {
        let readme = include_str!("../../README.md");
        let covers_memory = hpcc::ROW.resources().contains(&Resource::Memory);
        for line in readme.lines() {
            if line.contains("hpcc") && line.contains("STREAM") {
                assert!(
                    covers_memory,
                    "README claims what hpcc does not run: {line}"
                );
            }
        }
    }

    #[test]
    fn memo_makes_once_per_key() {
        let memo = Memo::default();
        let mut calls = 0;
        let a: Result<u32, String> = memo.get_or_insert_with("k", || {
            calls += 1;
            Ok(7)
        });
        let b: Result<u32, String> = memo.get_or_insert_with("k", || {
            calls += 1;
            Ok(8)
        });
        assert_eq!((a, b, calls), (Ok(7), Ok(7), 1));
        // Another key, and the same key asked for another type, are made anew.
        assert_eq!(memo.get_or_insert_with("j", || 1u8), 1);
        assert_eq!(memo.get_or_insert_with("k", || "x".to_string()), "x");
        // A make that uses the memo itself does not deadlock.
        let n = memo.get_or_insert_with("outer", || memo.get_or_insert_with("inner", || 3u64));
        assert_eq!(n, 3);
    }

    /// Issue #34 item 4: one row per tool, names unique, each naming its package and
    /// binary and checking at least one resource.
    #[test]
    fn every_tool_names_its_package() {
        let mut names: Vec<&str> = TOOLS.iter().map(|t| t.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), TOOLS.len());
        for t in TOOLS {
            assert!(!t.package.is_empty() && !t.binary.is_empty(), "{}", t.name);
            assert!(!t.resources().is_empty(), "{}", t.name);
        }
        let d = detect();
        assert_eq!(d.len(), TOOLS.len());
        for x in &d {
            assert_eq!(x.installed, x.path.is_some());
        }
    }

    /// Each row's version reader takes the line its tool prints (as the adapters read
    /// them before they were rows).
    #[test]
    fn version_lines_are_read_as_each_tool_prints_them() {
        let pick = |name: &str, line: &str| {
            let t = TOOLS.iter().find(|t| t.name == name).unwrap();
            match t.version {
                VersionFrom::Command { pick, .. }
                | VersionFrom::PackageThenCommand { pick, .. } => pick(line),
                VersionFrom::Package => panic!("{name} reads its package's version"),
            }
        };
        assert_eq!(pick("fio", "fio-3.33"), Some("3.33".into()));
        assert_eq!(
            pick("sysbench", "sysbench 1.0.20 (using system LuaJIT)"),
            Some("1.0.20".into())
        );
        assert_eq!(
            pick("iperf3", "iperf 3.12 (cJSON 1.7.15)"),
            Some("3.12".into())
        );
        assert_eq!(
            pick("sockperf", "== version #3.10-0 =="),
            Some("3.10-0".into())
        );
        assert_eq!(pick("clpeak", "clpeak version 1.1.2"), Some("1.1.2".into()));
        assert_eq!(
            pick("likwid-bench", "likwid-bench -- Version  5.2"),
            Some("5.2".into())
        );
        assert_eq!(pick("fio", "usage"), None);
        for name in ["mbw", "hpcc"] {
            let t = TOOLS.iter().find(|t| t.name == name).unwrap();
            assert!(matches!(t.version, VersionFrom::Package), "{name}");
        }
    }
}
