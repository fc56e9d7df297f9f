//! Reference tools: adapters that find the trusted specialist tools (likwid-bench,
//! sysbench, fio, iperf3, sockperf, ping, mbw, pmbw, hpcc, iozone, clpeak), report their versions, and —
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
pub(crate) mod hpcc_files;
pub(crate) mod iozone;
pub mod iperf3;
pub mod likwid;
pub mod mbw;
pub(crate) mod ping;
pub(crate) mod pmbw;
pub mod sockperf;
pub mod sysbench;
mod tool;

use crate::report::model::{BenchResult, Note, NoteKind, Reference, ResourceName};
pub use crate::util::process::which;
/// Running external programs lives in `util::process` (the one place that does);
/// re-exported for the adapters.
pub(crate) use crate::util::process::{capture, capture_in};
use serde::Serialize;
use std::path::PathBuf;
pub(crate) use tool::{
    free_port, number_after, start_server, strip_ansi, Context, Found, Invocation, Memo, Row,
    Server, SharedFound, Tool, VersionFrom,
};

/// Every adapter, in listing order.
pub(crate) static TOOLS: &[&Row] = &[
    &likwid::ROW,
    &sysbench::ROW,
    &mbw::ROW,
    &pmbw::ROW,
    &hpcc::ROW,
    &fio::ROW,
    &iozone::ROW,
    &iperf3::ROW,
    &sockperf::ROW,
    &ping::ROW,
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
    /// Debian package providing it (`apt-get install <package>`); empty for a tool
    /// Debian does not package.
    pub(crate) package: &'static str,
    /// How to get it when it is not found (`apt-get install <package>`, or where its
    /// source is and the `$PEAKBENCH_<TOOL>` variable that may name it).
    #[serde(skip)]
    pub(crate) install: String,
    /// What it checks.
    pub(crate) covers: &'static str,
}

/// Detects every tool in [`TOOLS`].
pub(crate) fn detect() -> Vec<Detected> {
    TOOLS
        .iter()
        .map(|t| {
            let path = t.locate();
            let version = path.as_ref().and_then(|_| t.version());
            Detected {
                tool: t.name,
                installed: path.is_some(),
                path,
                version,
                package: t.package,
                install: t.install_hint(),
                covers: t.covers,
            }
        })
        .collect()
}

/// Runs one invocation (with its server, if any) and returns the reference figure.
pub(crate) fn run(tool: &Row, version: &str, inv: &Invocation) -> Result<Reference, String> {
    let (mut server, argv) = start_server(inv)?;
    let res = capture(&argv, inv.timeout);
    if let Some(s) = server.as_mut() {
        let _ = s.kill();
        let _ = s.wait();
    }
    let (out, _) = res?;
    let value = (inv.parse)(&out)?;
    Ok(Reference {
        tool: tool.name.to_string(),
        version: version.to_string(),
        command: argv.join(" "),
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
    // ping reaches the server's host itself: only the loopback tools are named here.
    let loopback: Vec<&str> = names
        .iter()
        .copied()
        .filter(|n| *n != ping::ROW.name)
        .collect();
    if r.resource == ResourceName::Net && ctx.remote && !loopback.is_empty() {
        return format!(
            "against a --server, {} would measure loopback on this host, not the link to the server; run them between the two hosts by hand to compare",
            loopback.join(", ")
        );
    }
    if r.resource == ResourceName::Memory && r.param_str("pattern") == Some("rand") {
        return format!(
            "none of {list} runs {} in random order at this block (sysbench's rnd mode has read and write only; likwid-bench, mbw, pmbw and hpcc's STREAM stream in order)",
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hw::HostInfo;
    use crate::report::model::Unit;
    use crate::report::model::{Metric, ResourceName};
    use std::os::unix::fs::PermissionsExt;
    use std::time::Duration;

    /// A fake loopback tool in `dir`: `tool -s -p PORT` is a server that logs
    /// `server PORT` and exits at once (its port taken) while fewer than `fails` servers
    /// have started, then stays up; `tool -c -p PORT` logs `client PORT` and prints 42.
    fn fake_server_tool(dir: &std::path::Path, fails: usize) -> (String, std::path::PathBuf) {
        let log = dir.join("log");
        let script = format!(
            "#!/bin/sh\nlog='{log}'\nif [ \"$1\" = -s ]; then\n  echo \"server $3\" >> \"$log\"\n  \
             if [ $(grep -c '^server' \"$log\") -le {fails} ]; then exit 1; fi\n  exec sleep 30\nfi\n\
             echo \"client $3\" >> \"$log\"\necho 42\n",
            log = log.display()
        );
        let p = dir.join("fake-tool");
        std::fs::write(&p, script).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        (p.display().to_string(), log)
    }

    fn served(tool: &str, port: u16) -> Invocation {
        let argv = |mode: &str| vec![tool.to_string(), mode.into(), "-p".into(), port.to_string()];
        Invocation {
            argv: argv("-c"),
            timeout: Duration::from_secs(30),
            parse: |s| s.trim().parse::<f64>().map_err(|e| e.to_string()),
            unit: Unit::BytePerSec,
            server: Some(Server {
                argv: argv("-s"),
                port,
            }),
        }
    }

    /// A reference server whose first port was taken by another process (it exits at
    /// once) is started again on another port, and the client goes to that port.
    #[test]
    fn a_server_that_cannot_listen_moves_to_another_port() {
        let dir = tempfile::tempdir().unwrap();
        let (tool, log) = fake_server_tool(dir.path(), 1);
        let first = free_port().unwrap();
        let got = run(&iperf3::ROW, "1", &served(&tool, first)).unwrap();
        assert_eq!(got.value, 42.0);
        let lines: Vec<String> = std::fs::read_to_string(&log)
            .unwrap()
            .lines()
            .map(str::to_string)
            .collect();
        assert_eq!(lines.len(), 3, "{lines:?}");
        assert_eq!(lines[0], format!("server {first}"));
        let second = lines[1].strip_prefix("server ").unwrap();
        assert_ne!(second, first.to_string(), "{lines:?}");
        assert_eq!(lines[2], format!("client {second}"));
        assert!(
            got.command.ends_with(&format!("-p {second}")),
            "{}",
            got.command
        );
    }

    /// A server that never starts is tried a bounded number of times, then the run
    /// fails with one line and the client never runs.
    #[test]
    fn a_server_that_never_listens_fails_after_a_few_ports() {
        let dir = tempfile::tempdir().unwrap();
        let (tool, log) = fake_server_tool(dir.path(), usize::MAX >> 1);
        let err = run(&iperf3::ROW, "1", &served(&tool, free_port().unwrap())).unwrap_err();
        assert!(err.contains("exited before its client ran"), "{err}");
        let text = std::fs::read_to_string(&log).unwrap();
        assert_eq!(text.lines().count(), tool::SERVER_TRIES, "{text}");
        assert!(!text.contains("client"), "{text}");
    }

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
            crate::report::samples::throughput(ResourceName::Net, "tcp")
                .param("proto", "tcp")
                .param("msg", 131072)
                .param("streams", 1),
            BenchResult::new(ResourceName::Net, "udp", Metric::Latency, Unit::Second)
                .param("proto", "udp")
                .param("msg", 64),
            crate::report::samples::throughput(ResourceName::Memory, "read")
                .param("kernel", "read")
                .param("pattern", "seq")
                .param("block", 1048576)
                .param("size", 67108864)
                .param("threads", 1),
            crate::report::samples::mem_seq("copy", 67108864, 1),
            BenchResult::new(
                ResourceName::Cpu,
                "fma_f64_avx2",
                Metric::Ops,
                Unit::FlopPerSec,
            )
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
                install: t.install_hint(),
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
            let mut r = BenchResult::new(ResourceName::Net, "tcp", metric, unit)
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
    /// matched only linalg rows. A README or docs line that credits hpcc with STREAM needs the
    /// adapter to cover memory rows.
    #[test]
    fn the_readme_credits_hpcc_only_with_what_it_covers() {
        let readme = [
            include_str!("../../README.md"),
            include_str!("../../docs/reference.md"),
            include_str!("../../docs/linalg.md"),
            include_str!("../../docs/memory.md"),
        ]
        .concat();
        let covers_memory = hpcc::ROW.resources().contains(&ResourceName::Memory);
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
            // A tool Debian does not package says where to get it instead.
            assert!(
                !t.package.is_empty() || t.tool.install_hint().is_some(),
                "{}",
                t.name
            );
            assert!(!t.binary.is_empty(), "{}", t.name);
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
        assert_eq!(
            pick("iozone", "        Version $Revision: 3.414 $"),
            Some("3.414".into())
        );
        for name in ["mbw", "hpcc", "pmbw"] {
            let t = TOOLS.iter().find(|t| t.name == name).unwrap();
            assert!(matches!(t.version, VersionFrom::Package), "{name}");
        }
    }

    fn latency(proto: &str, msg: u64, streams: u32) -> BenchResult {
        BenchResult::new(
            ResourceName::Net,
            &format!("{proto}_latency"),
            Metric::Latency,
            Unit::Second,
        )
        .param("proto", proto)
        .param("test", "latency")
        .size("msg", msg)
        .param("streams", streams)
        .with_samples(vec![1e-5, 1e-5])
    }

    /// Issue #26: `--msg 128KiB,64B --streams 1,2` ran sockperf with 128 KiB (which it
    /// refuses, reported as a parse error) and matched 2 streams with a 1-stream run.
    /// Only a case sockperf can run alike gets a run; the others get one reason.
    #[test]
    fn only_cases_sockperf_can_run_alike_are_matched() {
        use super::sockperf::Sockperf;
        let host = crate::report::samples::host();
        let memo = Memo::default();
        let ctx = Context::new(&host, &memo);
        // Only sockperf "installed", at a path that does not exist: nothing may run.
        let found: Vec<Detected> = TOOLS
            .iter()
            .map(|t| Detected {
                tool: t.name,
                installed: t.name == "sockperf",
                path: Some("/nonexistent/sockperf".into()),
                version: Some("3.7".into()),
                package: t.package,
                install: t.install_hint(),
                covers: t.covers,
            })
            .collect();
        for (proto, msg, streams, want) in [
            ("udp", 131072, 1, "reference sockperf: not run: sockperf takes messages up to 65500 B; this case's are 131072 B"),
            ("tcp", 64, 2, "reference sockperf: not run: sockperf ping-pong runs one stream; this case ran 2"),
            ("udp", 8, 1, "reference sockperf: not run: sockperf sends messages of at least 14 B; this case's are 8 B"),
        ] {
            let mut r = latency(proto, msg, streams);
            assert!(Sockperf.invocation(&r, &ctx).is_none());
            attach(&mut r, &ctx, &found);
            let notes: Vec<&str> = r.notes.iter().map(|n| n.text.as_str()).collect();
            assert_eq!(notes, [want]);
            assert!(r.reference.is_none());
        }
        // A case it can run: the same size and protocol, nothing else changed.
        let r = latency("tcp", 65500, 1);
        assert!(Sockperf.cannot_match(&r, &ctx).is_none());
        let inv = Sockperf.invocation(&r, &ctx).unwrap();
        let m = inv.argv.iter().position(|a| a == "-m").unwrap();
        assert_eq!(inv.argv[m + 1], "65500");
        assert!(inv.argv.contains(&"--tcp".to_string()));
        // A remote run or a throughput case is not sockperf's: no reason, no run.
        let remote = Context {
            remote: true,
            ..Context::new(&host, &memo)
        };
        assert!(Sockperf
            .cannot_match(&latency("udp", 1 << 20, 4), &remote)
            .is_none());
    }
}
