//! Tests of the IOZone adapter: its two parsers on recorded outputs (iozone 3.414 built
//! from source, on an ext4 virtual disk of a Xeon Cascade Lake guest), which rows it
//! matches and the command each gets, and that its files are removed.

use super::*;

fn fixture(name: &str) -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/tools")
            .join(name),
    )
    .unwrap()
}

/// A disk throughput row as `peakbench disk` writes it.
fn row(pattern: &str, block: u64, jobs: u64) -> BenchResult {
    BenchResult::new(
        ResourceName::Disk,
        pattern,
        Metric::Throughput,
        Unit::BytePerSec,
    )
    .param("pattern", pattern)
    .size("block", block)
    .param("depth", 1u32)
    .param("jobs", jobs)
    .param("engine", "sync")
    .param("direct", true)
    .size("file_size", 16 << 20)
}

#[test]
fn the_recorded_table_is_read_by_column() {
    let rows = parse_table(&fixture("iozone_3.414_table.txt")).unwrap();
    assert_eq!(rows.len(), 1);
    let r = &rows[0];
    assert_eq!((r.kb, r.reclen), (16384, 64));
    assert_eq!(r.get("write"), Some(1479244.0 * 1024.0));
    assert_eq!(r.get("read"), Some(1087922.0 * 1024.0));
    assert_eq!(r.get("rewrite"), Some(0.0));
    assert_eq!(r.get("random read"), None);
    // `-i 0 -i 2` leaves read and reread blank: the random figures are placed by where
    // they end, not by their order on the line (iozone 3.414's layout).
    let random = "              KB  reclen   write rewrite    read    reread    read   write    read  rewrite     read   fwrite frewrite   fread  freread\n           16384       4   38981       0                     43492   40447                                                          \n\niozone test complete.\n";
    let r = &parse_table(random).unwrap()[0];
    assert_eq!(r.get("random read"), Some(43492.0 * 1024.0));
    assert_eq!(r.get("random write"), Some(40447.0 * 1024.0));
    assert_eq!(r.get("read"), None);
    // iozone 3.5's header says `kB`, and its columns are wider.
    let wide = "              kB  reclen    write  rewrite    read    reread\n         1048576    4096   512000        0   600000         0\n";
    let r = &parse_table(wide).unwrap()[0];
    assert_eq!((r.kb, r.reclen), (1048576, 4096));
    assert_eq!(r.get("read"), Some(600000.0 * 1024.0));
    assert!(parse_table("iozone test complete.\n").is_err());
}

#[test]
fn the_recorded_throughput_summary_is_read() {
    let (sizes, tests) = parse_throughput(&fixture("iozone_3.414_throughput_t2.txt")).unwrap();
    assert_eq!(sizes, Some((8192, 64)));
    assert_eq!(tests.len(), 2);
    assert_eq!(tests[0].test, "initial writers");
    assert_eq!(tests[0].procs, 2);
    assert_eq!(tests[0].children, 2286867.50 * 1024.0);
    assert_eq!(tests[0].parent, Some(276700.13 * 1024.0));
    assert_eq!(tests[1].test, "readers");
    assert_eq!(tests[1].children, 5728718.00 * 1024.0);
    let ops = "\tChildren see throughput for  2 readers \t\t= 10.00 ops/sec\n";
    assert!(parse_throughput(ops).unwrap_err().contains("kB/sec"));
    assert!(parse_throughput("nothing").is_err());
}

/// The row's block, file size, jobs, O_DIRECT and pattern reach iozone's `-r`, `-s`,
/// `-t`/`-F` (or `-f`), `-I` and `-i`, with files in the run's directory only.
#[test]
fn the_command_follows_the_row() {
    let dir = Path::new("/data/pb");
    let m = matching(&row("seq-write", 64 << 10, 1), dir, "iozone")
        .unwrap()
        .unwrap();
    assert_eq!(
        m.argv.join(" "),
        "iozone -s 16384k -r 64k -i 0 -i 1 -+n -I -f /data/pb/peakbench-iozone.0"
    );
    // The read row of the same configuration runs the same command (one run for both).
    let read = matching(&row("seq-read", 64 << 10, 1), dir, "iozone")
        .unwrap()
        .unwrap();
    assert_eq!(read.argv, m.argv);
    assert_eq!((read.column, read.test), ("read", "readers"));
    let m = matching(
        &row("rand-read", 4096, 2)
            .param("direct", false)
            .param("sync", 1u64),
        dir,
        "/opt/iozone",
    )
    .unwrap()
    .unwrap();
    assert_eq!(
        m.argv.join(" "),
        "/opt/iozone -s 16384k -r 4k -i 0 -i 2 -+n -o -t 2 -F /data/pb/peakbench-iozone.0 /data/pb/peakbench-iozone.1"
    );
    assert!(m.files.iter().all(|f| f.starts_with(dir)));
    let mmap = matching(
        &row("seq-read", 4096, 1).param("engine", "mmap"),
        dir,
        "iozone",
    )
    .unwrap()
    .unwrap();
    assert!(mmap.argv.contains(&"-B".to_string()));
    let uring = matching(
        &row("seq-read", 4096, 1).param("engine", "uring"),
        dir,
        "iozone",
    )
    .unwrap()
    .unwrap();
    assert!(uring.engine_note.unwrap().contains("uring"));
}

#[test]
fn rows_iozone_does_not_run_alike_get_one_reason() {
    let dir = Path::new("/data/pb");
    let why = |r: BenchResult| matching(&r, dir, "iozone").unwrap().unwrap_err();
    assert!(why(row("seq-read", 4096, 1).param("depth", 8u32)).contains("8 in flight"));
    assert!(why(row("seq-write", 4096, 1).param("fsync", 1u64)).contains("fsync every 1"));
    assert!(why(row("seq-write", 4096, 1).param("rate_iops", 100u64)).contains("capped"));
    assert!(why(row("rand-read", 4096, 1).param("distribution", "zipf:1.2")).contains("skewed"));
    assert!(why(row("seq-read", 4096, 2).param("shared_file", true)).contains("own file"));
    assert!(why(row("seq-read", 512, 1)).contains("512 B"));
    assert!(why(row("seq-read", 32 << 20, 1)).contains("16 MiB"));
    // Not iozone's kind: IOPS and latency rows, a mixed pattern.
    let iops = BenchResult::new(ResourceName::Disk, "x", Metric::Iops, Unit::IoPerSec)
        .param("pattern", "seq-read");
    assert!(matching(&iops, dir, "iozone").is_none());
    assert!(matching(&row("rw-mix:70", 4096, 1), dir, "iozone").is_none());
    // Without --dir iozone has nowhere to run: no reason, no run.
    let host = crate::report::samples::host();
    let memo = crate::reference::Memo::default();
    let ctx = Context::new(&host, &memo);
    assert!(Iozone
        .cannot_match(&row("seq-read", 4096, 1).param("depth", 8u32), &ctx)
        .is_none());
}

#[test]
fn the_figure_is_the_rows_test() {
    let dir = Path::new("/data/pb");
    let one = |p: &str| {
        let r = row(p, 64 << 10, 1);
        let m = matching(&r, dir, "iozone").unwrap().unwrap();
        found(&m, &fixture("iozone_3.414_table.txt"), "3.414").unwrap()
    };
    let w = one("seq-write");
    let x = w.reference.unwrap();
    assert_eq!(x.value, 1479244.0 * 1024.0);
    assert_eq!(x.version, "3.414");
    assert!(
        x.command.starts_with("iozone -s 16384k -r 64k"),
        "{}",
        x.command
    );
    assert_eq!(one("seq-read").reference.unwrap().value, 1087922.0 * 1024.0);
    let two = |p: &str, kib: u64| {
        let r = row(p, 64 << 10, 2).size("file_size", kib << 10);
        let m = matching(&r, dir, "iozone").unwrap().unwrap();
        found(&m, &fixture("iozone_3.414_throughput_t2.txt"), "3.414")
    };
    let f = two("seq-read", 8192).unwrap();
    assert_eq!(f.reference.unwrap().value, 5728718.00 * 1024.0);
    assert!(
        f.notes[0].contains("parent sees 530.1 MB/s"),
        "{:?}",
        f.notes
    );
    // Another file size than the output's, or a test it did not run: an error.
    assert!(two("seq-read", 4096)
        .unwrap_err()
        .contains("8192 KiB files"));
    assert!(two("rand-read", 8192)
        .unwrap_err()
        .contains("random readers"));
    // A one-job row whose size the table lacks.
    let m = matching(&row("seq-read", 4096, 1), dir, "iozone")
        .unwrap()
        .unwrap();
    assert!(found(&m, &fixture("iozone_3.414_table.txt"), "3.414").is_err());
}

/// A run cut off or failed leaves no file behind: the adapter removes them.
#[test]
fn its_files_are_removed_whatever_happened() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let fake = dir.path().join("iozone");
    // Creates every file it is given (the arguments after -f or -F) and fails.
    std::fs::write(
        &fake,
        "#!/bin/sh\nwhile [ $# -gt 0 ]; do case \"$1\" in -f|-F) shift; for f in \"$@\"; do echo x > \"$f\"; done; break;; esac; shift; done\nexit 3\n",
    )
    .unwrap();
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let data = dir.path().join("data");
    std::fs::create_dir(&data).unwrap();
    let r = row("seq-write", 4096, 3);
    let m = matching(&r, &data, &fake.display().to_string())
        .unwrap()
        .unwrap();
    assert!(run(&m).is_err());
    let left: Vec<_> = std::fs::read_dir(&data).unwrap().collect();
    assert!(left.is_empty(), "{left:?}");
}
