//! Tests of the pmbw adapter: its parser on a recorded output (pmbw 0.6.3 on a Xeon
//! Cascade Lake guest), which rows it matches and the command each gets, and that its
//! run leaves no directory behind.

use super::*;
use std::os::unix::fs::PermissionsExt;

fn fixture() -> String {
    std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/tools/pmbw_0.6.3_scan256.txt"),
    )
    .unwrap()
}

/// A memory row as `peakbench memory` writes it: whole arrays unless `block` differs.
fn row(kernel: &str, isa: &str, size: u64, threads: u64, block: u64) -> BenchResult {
    BenchResult::new(
        ResourceName::Memory,
        &format!("{kernel}_{isa}"),
        Metric::Throughput,
        Unit::BytePerSec,
    )
    .param("kernel", kernel)
    .param("pattern", "seq")
    .size("size", size)
    .param("threads", threads)
    .param("isa", isa)
    .param("nt", false)
    .param("bytes", "stream")
    .size("block", block)
}

#[test]
fn the_recorded_result_lines_are_read() {
    let lines = parse_results(&fixture()).unwrap();
    assert_eq!(lines.len(), 12);
    let l = lines
        .iter()
        .find(|l| {
            l.funcname == "ScanRead256PtrUnrollLoop" && l.nthreads == 2 && l.areasize == 1310720
        })
        .unwrap();
    assert_eq!(l.bandwidth, 12_763_805_295.080_204);
    assert_eq!(l.version.as_deref(), Some("0.6.3"));
    // Progress lines are not results; a RESULT line without a bandwidth is an error.
    assert!(parse_results("Running nthreads=1\n").unwrap().is_empty());
    let bad = "RESULT\tfuncname=ScanRead64PtrSimpleLoop\tnthreads=1\tareasize=1024\n";
    assert!(parse_results(bad).unwrap_err().contains("bandwidth"));
    let zero = format!("{}\tbandwidth=0", bad.trim_end());
    assert!(parse_results(&zero).is_err());
}

/// The row's operation, vector width, threads and array size reach pmbw's `-f`, `-p`,
/// `-P`, `-s`, `-S`; `-M` holds the spaced per-thread areas.
#[cfg(target_arch = "x86_64")]
#[test]
fn the_command_follows_the_row() {
    let mib = 1u64 << 20;
    let m = matching(&row("read", "avx2", mib, 1, mib))
        .unwrap()
        .unwrap();
    assert_eq!(
        m.argv("pmbw").join(" "),
        "pmbw -f ScanRead256PtrUnrollLoop -p 1 -P 1 -s 1048576 -S 1048576 -M 16777216"
    );
    assert!(m.note.is_none());
    // Two threads sharing 64 MiB (strong scaling, as --size): pmbw's areasize 64 MiB.
    let m = matching(&row("write", "generic", 64 * mib, 2, 32 * mib))
        .unwrap()
        .unwrap();
    assert_eq!(
        m.argv("/opt/pmbw").join(" "),
        "/opt/pmbw -f ScanWrite128PtrUnrollLoop -p 2 -P 2 -s 67108864 -S 67108864 -M 134217728"
    );
    // --weak: each thread's 1 MiB is its own, pmbw's array is 2 MiB.
    let m = matching(&row("read", "avx512", mib, 2, mib))
        .unwrap()
        .unwrap();
    assert_eq!((m.area, m.threads), (2 * mib, 2));
    assert!(m.note.unwrap().contains("no 512-bit"));
}

#[test]
fn rows_pmbw_does_not_run_alike_get_one_reason() {
    let mib = 1u64 << 20;
    let why = |r: BenchResult| matching(&r).unwrap().unwrap_err();
    let w = why(row("read", "generic", mib + 4096, 1, mib + 4096));
    assert!(
        w.contains(
            "array is 1052672 B (1.00 MiB) (nearest: 1048576 B (1 MiB), 1310720 B (1.25 MiB))"
        ),
        "{w}"
    );
    assert!(why(row("read", "generic", mib, 1, 4096)).contains("blocks of 4 KiB"));
    assert!(why(row("write", "avx2", mib, 1, mib).param("nt", true)).contains("non-temporal"));
    let wa = row("write", "avx2", mib, 1, mib).param("bytes", "stream+write-allocate");
    assert!(why(wa).contains("write-allocate"));
    let numa = row("read", "avx2", mib, 1, mib).param("mem_node", 1u64);
    assert!(why(numa).contains("NUMA"));
    // Not pmbw's kind at all: another kernel, random order, another resource.
    assert!(matching(&row("copy", "avx2", mib, 1, mib)).is_none());
    assert!(matching(&row("read", "avx2", mib, 1, mib).param("pattern", "rand")).is_none());
    let host = crate::report::samples::host();
    let memo = crate::reference::Memo::default();
    let ctx = Context::new(&host, &memo);
    assert!(Pmbw
        .cannot_match(&row("triad", "avx2", mib, 1, mib), &ctx)
        .is_none());
}

#[test]
fn the_figure_is_the_line_of_the_rows_function_threads_and_size() {
    let m = Match {
        func: "ScanWrite256PtrUnrollLoop",
        threads: 2,
        area: 1 << 20,
        note: None,
    };
    let argv = m.argv("pmbw");
    let f = found(&m, &fixture(), &argv, "unknown").unwrap();
    let x = f.reference.unwrap();
    assert_eq!(x.value, 13_617_928_994.412_18);
    assert_eq!(x.version, "0.6.3");
    assert_eq!(x.command, argv.join(" "));
    assert!(
        f.notes[0].contains("2 threads scanning 1 MiB"),
        "{:?}",
        f.notes
    );
    let other = Match { threads: 3, ..m };
    let e = found(&other, &fixture(), &argv, "x").unwrap_err();
    assert!(e.contains("no RESULT"), "{e}");
}

/// pmbw writes `stats.txt` into its working directory: the run gets a directory of
/// its own, which is gone afterwards, whether the tool succeeded or failed.
#[test]
fn the_run_directory_is_removed() {
    let bin = tempfile::tempdir().unwrap();
    let log = bin.path().join("log");
    let fake = bin.path().join("pmbw");
    std::fs::write(
        &fake,
        format!(
            "#!/bin/sh\npwd >> '{}'\necho x > stats.txt\n[ \"$1\" = ok ] || exit 1\necho 'RESULT\tfuncname=F\tnthreads=1\tareasize=1024\tbandwidth=5'\n",
            log.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let program = fake.display().to_string();
    let out = run_in_own_dir(&[program.clone(), "ok".into()]).unwrap();
    assert_eq!(parse_results(&out).unwrap()[0].bandwidth, 5.0);
    assert!(run_in_own_dir(&[program, "fail".into()]).is_err());
    let dirs = std::fs::read_to_string(&log).unwrap();
    assert_eq!(dirs.lines().count(), 2, "{dirs}");
    for d in dirs.lines() {
        assert!(d.contains("peakbench-pmbw-"), "{d}");
        assert!(!std::path::Path::new(d).exists(), "{d} left behind");
    }
}
