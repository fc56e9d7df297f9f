//! IOZone (the course's disk tool: `iozone -a -s 1GB`, `-i 0 -t 1/2/4/8`; Debian has
//! it only in non-free as `iozone3`, so users often build it from iozone.org; found on
//! `PATH` or by `$PEAKBENCH_IOZONE`). Two of its reports are read, in kB/s of 1024 B:
//! the table of its single-process mode (`KB reclen write rewrite read reread random
//! read random write …`, one line per file size and record size, columns aligned on
//! their right edge, blank where a test did not run) and the summary of its throughput
//! mode (`Children see throughput for  2 initial writers = 2286867.50 kB/sec`: the sum
//! of every process's own rate).
//!
//! Matching: a `disk` throughput row of pattern `seq-write` (iozone's write),
//! `seq-read` (read), `rand-write` or `rand-read` (random write, random read), one I/O
//! in flight (iozone issues one blocking call at a time), a block of whole KiB up to
//! 16 MiB (iozone's record size), in the run's `--dir`. One job runs the single-process
//! mode on one file (`-f DIR/peakbench-iozone.0`), several jobs the throughput mode
//! with one process and file per job (`-t N -F DIR/peakbench-iozone.0 …`); each file
//! holds the case's `--file-size` (`-s`), records are the block (`-r`), `-I` (O_DIRECT)
//! unless the case was buffered, `-o` (O_SYNC) for `--sync`, `-B` (mmap) for the mmap
//! engine, `-+n` (no re-tests). Sequential rows run `-i 0 -i 1` and random rows
//! `-i 0 -i 2` (iozone reads what its write test wrote), so the write and read rows of
//! a configuration share one run, kept in the run's memo. IOZone removes its files; the
//! adapter removes any it left (a run cut off by the time limit) afterwards.

use super::{capture, Context, Found, Row, SharedFound, Tool, VersionFrom};
use crate::report::model::{BenchResult, Metric, Reference, ResourceName, Unit};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The IOZone adapter.
pub(crate) struct Iozone;

/// The variable that may name the iozone binary.
pub(crate) const ENV: &str = "PEAKBENCH_IOZONE";

/// The largest record size iozone takes (its `MAXBUFFERSIZE` on 64-bit builds).
pub(crate) const MAX_RECORD: u64 = 16 << 20;

/// The columns of iozone's single-process table after `KB` and `reclen`, in order.
pub(crate) const COLUMNS: [&str; 13] = [
    "write",
    "rewrite",
    "read",
    "reread",
    "random read",
    "random write",
    "bkwd read",
    "record rewrite",
    "stride read",
    "fwrite",
    "frewrite",
    "fread",
    "freread",
];

/// One line of iozone's single-process table.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct TableRow {
    /// File size, KiB.
    pub(crate) kb: u64,
    /// Record size, KiB.
    pub(crate) reclen: u64,
    /// The tests that ran, by [`COLUMNS`] name, in B/s.
    pub(crate) values: Vec<(&'static str, f64)>,
}

impl TableRow {
    /// The figure of test `name`, B/s.
    pub(crate) fn get(&self, name: &str) -> Option<f64> {
        self.values.iter().find(|(k, _)| *k == name).map(|x| x.1)
    }
}

/// The byte offsets where each token of `line` ends, with the token.
fn token_ends(line: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in line.char_indices().chain([(line.len(), ' ')]) {
        match (c.is_whitespace(), start) {
            (false, None) => start = Some(i),
            (true, Some(s)) => {
                out.push((i, &line[s..i]));
                start = None;
            }
            _ => {}
        }
    }
    out
}

/// The lines of iozone's single-process table (`-a`, or one `-s`/`-r`). Its columns
/// are right-aligned under the header's names, and a test that did not run leaves its
/// column blank, so each figure is placed by where it ends.
pub(crate) fn parse_table(text: &str) -> Result<Vec<TableRow>, String> {
    let lines: Vec<&str> = text.lines().collect();
    let head = lines
        .iter()
        .position(|l| {
            let t: Vec<&str> = l.split_whitespace().collect();
            t.len() > 2 && t[0].eq_ignore_ascii_case("kb") && t[1] == "reclen"
        })
        .ok_or("no 'KB reclen write …' table in iozone output")?;
    let ends: Vec<usize> = token_ends(lines[head]).iter().map(|x| x.0).collect();
    let mut rows = Vec::new();
    for line in &lines[head + 1..] {
        let toks = token_ends(line);
        if toks.is_empty() || !toks.iter().all(|(_, t)| t.parse::<f64>().is_ok()) {
            break;
        }
        let mut kb = None;
        let mut reclen = None;
        let mut values = Vec::new();
        for (end, tok) in toks {
            // The column whose name ends where the figure ends (±2 for a wider figure).
            let col = ends
                .iter()
                .position(|&e| e.abs_diff(end) <= 2)
                .ok_or_else(|| format!("iozone figure '{tok}' under no column: {line}"))?;
            let v: f64 = tok.parse().unwrap_or(0.0);
            match col {
                0 => kb = Some(v as u64),
                1 => reclen = Some(v as u64),
                c => {
                    let name = COLUMNS
                        .get(c - 2)
                        .ok_or_else(|| format!("iozone column {c} unknown: {line}"))?;
                    values.push((*name, v * 1024.0));
                }
            }
        }
        rows.push(TableRow {
            kb: kb.ok_or("iozone table line without KB")?,
            reclen: reclen.ok_or("iozone table line without reclen")?,
            values,
        });
    }
    if rows.is_empty() {
        return Err("iozone's table has no figures".into());
    }
    Ok(rows)
}

/// One test of iozone's throughput mode.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Throughput {
    /// The test as iozone names it (`initial writers`, `readers`, `random readers`).
    pub(crate) test: String,
    /// Processes.
    pub(crate) procs: u64,
    /// `Children see throughput`: the sum of every process's own rate, B/s.
    pub(crate) children: f64,
    /// `Parent sees throughput`: all bytes over the parent's wall time, B/s.
    pub(crate) parent: Option<f64>,
}

/// The file and record size of iozone's `Each process writes a 8192 kByte file in 64
/// kByte records` line (KiB), when it printed one, and its throughput tests.
pub(crate) type ThroughputReport = (Option<(u64, u64)>, Vec<Throughput>);

/// iozone's throughput summary, with the file and record size of its
/// `Each process writes a 8192 kByte file in 64 kByte records` line (KiB).
pub(crate) fn parse_throughput(text: &str) -> Result<ThroughputReport, String> {
    // `for  2 initial writers \t= 2286867.50 kB/sec` → (procs, test, B/s).
    let read = |rest: &str| -> Result<(u64, String, f64), String> {
        let (who, fig) = rest
            .split_once('=')
            .ok_or_else(|| format!("iozone throughput line without '=': {rest}"))?;
        let mut w = who.split_whitespace();
        let procs: u64 = w
            .next()
            .and_then(|n| n.parse().ok())
            .ok_or_else(|| format!("iozone throughput line without a process count: {rest}"))?;
        let test = w.collect::<Vec<_>>().join(" ");
        let mut f = fig.split_whitespace();
        let v: f64 = f
            .next()
            .and_then(|n| n.parse().ok())
            .ok_or_else(|| format!("iozone throughput figure is not a number: {rest}"))?;
        match f.next() {
            Some(u) if u.eq_ignore_ascii_case("kb/sec") => Ok((procs, test, v * 1024.0)),
            u => Err(format!(
                "iozone throughput in {u:?}, not kB/sec (run without -O or -N)"
            )),
        }
    };
    let mut out: Vec<Throughput> = Vec::new();
    let mut sizes = None;
    for line in text.lines().map(str::trim) {
        if let Some(rest) = line.strip_prefix("Children see throughput for") {
            let (procs, test, v) = read(rest)?;
            out.push(Throughput {
                test,
                procs,
                children: v,
                parent: None,
            });
        } else if let Some(rest) = line.strip_prefix("Parent sees throughput for") {
            let (procs, test, v) = read(rest)?;
            if let Some(t) = out
                .iter_mut()
                .rev()
                .find(|t| t.test == test && t.procs == procs)
            {
                t.parent = Some(v);
            }
        } else if let Some(rest) = line.strip_prefix("Each process writes a ") {
            let n: Vec<u64> = rest
                .split_whitespace()
                .filter_map(|w| w.parse().ok())
                .collect();
            if let [file, record] = n[..] {
                sizes = Some((file, record));
            }
        }
    }
    if out.is_empty() {
        return Err("no 'Children see throughput' line in iozone output".into());
    }
    Ok((sizes, out))
}

/// IOZone: who it is, what it checks, how its version is read (its line in [`super::TOOLS`]).
pub(crate) static ROW: Row = Row {
    name: "iozone",
    binary: "iozone",
    package: "iozone3",
    covers: "disk sequential/random read and write throughput (record size = block, one process and file per job, O_DIRECT)",
    version: VersionFrom::Command {
        argv: &["iozone", "-v"],
        pick: |l| {
            let v = l.trim().strip_prefix("Version $Revision:")?;
            Some(v.trim().trim_end_matches('$').trim().to_string())
        },
    },
    tool: &Iozone,
};

/// iozone's name for pattern `p`: (the table column, the throughput-mode test, the
/// `-i` tests to run).
fn test_of(p: &str) -> Option<(&'static str, &'static str, &'static str)> {
    Some(match p {
        "seq-write" => ("write", "initial writers", "1"),
        "seq-read" => ("read", "readers", "1"),
        "rand-write" => ("random write", "random writers", "2"),
        "rand-read" => ("random read", "random readers", "2"),
        _ => return None,
    })
}

/// How to run iozone for one disk row.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Match {
    /// The command (`argv[0]` is the program).
    pub(crate) argv: Vec<String>,
    /// The files it works on (removed afterwards if it left them).
    pub(crate) files: Vec<PathBuf>,
    /// The table column of the row's test (one job).
    pub(crate) column: &'static str,
    /// The throughput-mode test of the row (several jobs).
    pub(crate) test: &'static str,
    /// Jobs (iozone processes).
    pub(crate) jobs: u64,
    /// File size per job, KiB.
    pub(crate) kb: u64,
    /// Record size, KiB.
    pub(crate) reclen: u64,
    /// The engine, when it is not iozone's blocking calls.
    pub(crate) engine_note: Option<String>,
}

/// Whether iozone runs the same work as disk row `r` in directory `dir`: `None` when
/// the row is not of its kind (another metric or pattern), `Some(Err)` with the
/// one-line reason when it is but runs differently, else how to run it (`program` is
/// the binary to run).
pub(crate) fn matching(
    r: &BenchResult,
    dir: &Path,
    program: &str,
) -> Option<Result<Match, String>> {
    if r.resource != ResourceName::Disk || r.metric != Metric::Throughput {
        return None;
    }
    let (column, test, i) = test_of(r.param_str("pattern")?)?;
    let fail = |why: String| Some(Err(why));
    let depth = r.param_u64("depth").unwrap_or(1);
    if depth != 1 {
        return fail(format!(
            "iozone issues one blocking read or write at a time; this case kept {depth} in flight"
        ));
    }
    for key in ["fsync", "fdatasync"] {
        if let Some(n) = r.param_u64(key) {
            return fail(format!(
                "iozone flushes only at the end of a test (-e); this case called {key} every {n} writes"
            ));
        }
    }
    if let Some(n) = r.param_u64("rate_iops") {
        return fail(format!(
            "iozone does not cap its rate; this case was capped at {n} IO/s"
        ));
    }
    if r.param_str("distribution").is_some() {
        return fail(
            "iozone's random offsets are uniform; this case used a skewed distribution".into(),
        );
    }
    if r.param_bool("shared_file") == Some(true) {
        return fail("iozone gives each process its own file; this case shared one".into());
    }
    let block = r.param_u64("block").unwrap_or(4096);
    if !block.is_multiple_of(1024) || block == 0 || block > MAX_RECORD {
        return fail(format!(
            "iozone's records are whole KiB up to 16 MiB; this case's block is {block} B"
        ));
    }
    let size = r.param_u64("file_size").unwrap_or(256 << 20);
    if !size.is_multiple_of(1024) || size < block {
        return fail(format!(
            "iozone's files are whole KiB of at least one record; this case's are {size} B"
        ));
    }
    let engine = r.param_str("engine").unwrap_or("sync");
    let engine_note = match engine {
        "sync" | "psync" | "mmap" => None,
        e => Some(format!(
            "iozone issues blocking read/write calls; this case used the {e} engine with one I/O in flight"
        )),
    };
    let jobs = r.param_u64("jobs").unwrap_or(1).max(1);
    let files: Vec<PathBuf> = (0..jobs)
        .map(|j| dir.join(format!("peakbench-iozone.{j}")))
        .collect();
    let (kb, reclen) = (size / 1024, block / 1024);
    let mut argv: Vec<String> = vec![
        program.into(),
        "-s".into(),
        format!("{kb}k"),
        "-r".into(),
        format!("{reclen}k"),
        "-i".into(),
        "0".into(),
        "-i".into(),
        i.into(),
        "-+n".into(),
    ];
    if r.param_bool("direct").unwrap_or(true) {
        argv.push("-I".into());
    }
    if r.param_u64("sync").is_some_and(|s| s > 0) {
        argv.push("-o".into());
    }
    if engine == "mmap" {
        argv.push("-B".into());
    }
    if jobs == 1 {
        argv.push("-f".into());
    } else {
        argv.extend(["-t".into(), jobs.to_string(), "-F".into()]);
    }
    argv.extend(files.iter().map(|f| f.display().to_string()));
    Some(Ok(Match {
        argv,
        files,
        column,
        test,
        jobs,
        kb,
        reclen,
        engine_note,
    }))
}

/// iozone's time limit: 2 minutes for the start (its throughput mode waits for its
/// processes) plus writing and reading `bytes` at a pessimistic 12.5 MB/s each way.
fn timeout_for(bytes: u64) -> Duration {
    Duration::from_secs(120 + bytes / 12_500_000)
}

/// Runs `m` and removes its files, whatever happened (iozone removes them itself
/// unless it was cut off); returns its stdout.
fn run(m: &Match) -> Result<String, String> {
    let bytes = m.kb.saturating_mul(1024).saturating_mul(m.jobs);
    let res = capture(&m.argv, timeout_for(bytes));
    for f in &m.files {
        let _ = std::fs::remove_file(f);
    }
    res.map(|(out, _)| out)
}

/// The figure and notes for the row `m` was made for, from iozone's output `text`.
pub(crate) fn found(m: &Match, text: &str, version: &str) -> Result<Found, String> {
    let mut notes = Vec::new();
    let value = if m.jobs == 1 {
        let rows = parse_table(text)?;
        let row = rows
            .iter()
            .find(|t| t.kb == m.kb && t.reclen == m.reclen)
            .ok_or_else(|| {
                format!(
                    "iozone's table has no line for {} KiB files in {} KiB records",
                    m.kb, m.reclen
                )
            })?;
        notes.push(format!(
            "iozone {}, one process, {} KiB file in {} KiB records",
            m.column, m.kb, m.reclen
        ));
        row.get(m.column)
            .ok_or_else(|| format!("iozone's table has no {} figure", m.column))?
    } else {
        let (sizes, tests) = parse_throughput(text)?;
        if let Some((kb, rec)) = sizes.filter(|s| *s != (m.kb, m.reclen)) {
            return Err(format!(
                "iozone wrote {kb} KiB files in {rec} KiB records, not {} in {}",
                m.kb, m.reclen
            ));
        }
        let t = tests
            .iter()
            .find(|t| t.test == m.test && t.procs == m.jobs)
            .ok_or_else(|| format!("iozone printed no throughput for {} {}", m.jobs, m.test))?;
        let parent = t.parent.map_or(String::new(), |p| {
            format!("; parent sees {:.1} MB/s", p / 1e6)
        });
        notes.push(format!(
            "iozone {} {}: children see {:.1} MB/s (the sum of each process's own rate){parent}",
            m.jobs,
            m.test,
            t.children / 1e6
        ));
        t.children
    };
    if !(value.is_finite() && value > 0.0) {
        return Err(format!("iozone's {} figure is {value}", m.column));
    }
    notes.extend(m.engine_note.clone());
    Ok(Found {
        reference: Some(Reference {
            tool: ROW.name.into(),
            version: version.into(),
            command: m.argv.join(" "),
            value,
            unit: Unit::BytePerSec,
        }),
        notes,
    })
}

impl Tool for Iozone {
    fn cannot_match(&self, r: &BenchResult, ctx: &Context) -> Option<String> {
        matching(r, ctx.disk_dir?, ROW.binary)?.err()
    }

    fn shared(&self, r: &BenchResult, ctx: &Context, version: &str) -> SharedFound {
        let m = matching(r, ctx.disk_dir?, &ROW.program())?.ok()?;
        // The write and read rows of a configuration share one run.
        let key = format!("iozone {}", m.argv.join(" "));
        let out: Result<String, String> = ctx.memo.get_or_insert_with(&key, || run(&m));
        Some(out.and_then(|text| found(&m, &text, version)))
    }

    fn env_path(&self) -> Option<&'static str> {
        Some(ENV)
    }

    fn install_hint(&self) -> Option<&'static str> {
        Some("apt-get install iozone3 from Debian non-free, or build it from iozone.org; put it on PATH or set $PEAKBENCH_IOZONE")
    }
}

#[cfg(test)]
#[path = "iozone_tests.rs"]
mod tests;
