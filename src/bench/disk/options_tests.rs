//! Tests of `disk`'s flags and their validation (`options.rs`): values, defaults, the
//! checks across flags and the file size fitted to the blocks.

use super::*;

fn args(argv: &[&str]) -> Result<Validated, UsageError> {
    parse(&crate::bench::flags::try_args::<DiskOptions>(argv)?)
}

#[test]
fn patterns() {
    // Random patterns get MADV_RANDOM from the mmap engine, the others MADV_SEQUENTIAL.
    for p in [Pattern::SeqRead, Pattern::SeqWrite, Pattern::Copy] {
        assert!(!p.random(), "{p:?}");
    }
    for p in [Pattern::RandRead, Pattern::RandWrite] {
        assert!(p.random(), "{p:?}");
    }
    assert_eq!(Pattern::parse("rw-mix").unwrap(), Pattern::RwMix(70));
    assert_eq!(Pattern::parse("rw-mix:30").unwrap(), Pattern::RwMix(30));
    assert_eq!(Pattern::parse("randread").unwrap(), Pattern::RandRead);
    assert_eq!(Pattern::parse("RS").unwrap(), Pattern::SeqRead);
    assert!(Pattern::parse("rw-mix:101").is_err());
    assert!(Pattern::parse("seq-read:5").is_err());
    assert!(Pattern::parse("zigzag").is_err());
    assert_eq!(Pattern::RwMix(70).name(), "rw-mix:70");
}

#[test]
fn defaults() {
    let o = args(&[]).unwrap();
    assert_eq!(o.patterns.len(), 4);
    assert_eq!(o.depths, vec![1, 32]);
    assert_eq!(o.file_size, 1 << 30);
    assert_eq!(o.blocks_for(Pattern::SeqRead), vec![1 << 20]);
    assert_eq!(o.blocks_for(Pattern::RandWrite), vec![4096]);
}

#[test]
fn errors_name_the_flag() {
    let e = args(&["--depth", "0"]).unwrap_err().0;
    assert!(e.starts_with("--depth: '0' is out of range"), "{e}");
    let e = args(&["--jobs", "x"]).unwrap_err().0;
    assert!(e.starts_with("--jobs:"), "{e}");
    let e = args(&["--block", "1000B"]).unwrap_err().0;
    assert!(e.starts_with("--block:"), "{e}");
    let e = args(&["--block", "1MiB", "--file-size", "512KiB"])
        .unwrap_err()
        .0;
    assert!(
        e.starts_with("--file-size: 512 KiB (524288 B) is smaller than the block size 1 MiB"),
        "{e}"
    );
    let e = args(&["--engine", "spdk"]).unwrap_err().0;
    assert!(e.contains("auto,libaio,mmap,sync,uring"), "{e}");
    let e = args(&["--engine", "sync", "--depth", "32"]).unwrap_err().0;
    assert!(e.starts_with("--depth:"), "{e}");
    let e = args(&["--sustain", "1s"]).unwrap_err().0;
    assert!(e.starts_with("--sustain:"), "{e}");
    let e = args(&["--dir", " "]).unwrap_err().0;
    assert!(e.starts_with("--dir:"), "{e}");
}

#[test]
fn engines_come_from_the_registry() {
    let engine = |t: &str| args(&["--engine", t, "--depth", "1"]).map(|o| o.engine);
    assert_eq!(engine("auto").unwrap(), EngineChoice::Auto);
    for (given, name) in [
        ("sync", "sync"),
        ("psync", "sync"),
        ("uring", "uring"),
        ("io_uring", "uring"),
        ("IO-URING", "uring"),
    ] {
        assert_eq!(engine(given).unwrap(), EngineChoice::Named(name), "{given}");
    }
    for e in ENGINES {
        assert_eq!(engine(e.name()).unwrap(), EngineChoice::Named(e.name()));
    }
    let e = engine("spdk").unwrap_err().0;
    assert_eq!(
        e,
        "--engine: unknown engine 'spdk'; accepted: auto,libaio,mmap,sync,uring"
    );
    // The report's config keeps the flag's words.
    let json = |c: EngineChoice| serde_json::to_value(c).unwrap();
    assert_eq!(json(EngineChoice::Auto), "auto");
    assert_eq!(json(EngineChoice::Named("uring")), "uring");
    // A sync engine has one I/O in flight; a queued one takes any depth.
    let e = args(&["--engine", "psync", "--depth", "1,32"])
        .unwrap_err()
        .0;
    assert_eq!(
        e,
        "--depth: the sync engine has one I/O in flight per job; use --depth 1 or --engine uring"
    );
    assert!(args(&["--engine", "uring", "--depth", "1,32"]).is_ok());
}

#[test]
fn decimal_and_small_blocks() {
    // Decimal sizes: refused for O_DIRECT with the nearest sector multiples...
    let e = args(&["--block", "4KB"]).unwrap_err().0;
    assert_eq!(
        e,
        "--block: 4 KB (4000 B) is not a multiple of 512 B, which direct I/O needs; nearest: 3.50 KiB (3584 B) or 4 KiB (4096 B), or add --buffered for any size"
    );
    let e = args(&["--block", "1B"]).unwrap_err().0;
    assert!(
        e.contains("nearest: 512 B (512 B), or add --buffered"),
        "{e}"
    );
    // ...taken as they are with --buffered, the default file rounded to fit them.
    let o = args(&["--block", "1B,100B,4KB,1MB", "--buffered"]).unwrap();
    assert_eq!(o.blocks, Some(vec![1, 100, 4000, 1_000_000]));
    assert_eq!(o.file_size % 1_000_000, 0);
    assert_eq!(o.file_size, 1073 * 1_000_000);
    // Sector multiples written in decimal need nothing: 512KB = 1000 sectors.
    assert_eq!(
        args(&["--block", "512KB"]).unwrap().blocks,
        Some(vec![512_000])
    );
    // An explicit file size that the blocks do not divide is rounded down, as fio
    // does, and the results say so (issue #26: 256MB of 80MB blocks was refused).
    let o = args(&["--block", "80MB", "--file-size", "256MB"]).unwrap();
    assert_eq!(o.file_size, 240_000_000);
    assert_eq!(
        o.notes,
        ["--file-size 256 MB (256000000 B) rounded down to 240 MB (240000000 B), a multiple of the block size 80 MB, as fio does"]
    );
    let o = args(&["--file-size", "1GB"]).unwrap();
    assert_eq!(o.file_size, 953 << 20);
    assert_eq!(
        o.notes,
        ["--file-size 1 GB (1000000000 B) rounded down to 953 MiB (999292928 B), a multiple of 1 MiB, the least common multiple of the block sizes, as fio does"]
    );
    // A size that needs no rounding says nothing; one below a block is refused.
    assert!(args(&["--file-size", "1GiB"]).unwrap().notes.is_empty());
    let e = args(&["--block", "1MiB", "--file-size", "1000KiB"])
        .unwrap_err()
        .0;
    assert_eq!(
        e,
        "--file-size: 1000 KiB (1024000 B) is smaller than the block size 1 MiB; a job file holds whole blocks, so give at least that or smaller --block sizes"
    );
    // --verify checks sectors.
    let e = args(&["--block", "100B", "--buffered", "--verify"])
        .unwrap_err()
        .0;
    assert!(e.starts_with("--verify: checks whole 512 B sectors"), "{e}");
    let e = args(&["--block", "2GiB"]).unwrap_err().0;
    assert!(e.starts_with("--block: 2 GiB is above the limit"), "{e}");
}

#[test]
fn copy_pattern() {
    assert_eq!(Pattern::parse("copy").unwrap(), Pattern::Copy);
    assert_eq!(Pattern::parse("seq-rw").unwrap(), Pattern::Copy);
    assert!(!Pattern::Copy.random() && Pattern::Copy.writes());
    assert_eq!(Pattern::Copy.default_block(), 1 << 20);
    let e = args(&["--pattern", "copy", "--file-size", "1MiB"])
        .unwrap_err()
        .0;
    assert!(e.contains("fewer than two blocks"), "{e}");
}

#[test]
fn zero_ramp() {
    assert_eq!(args(&["--ramp", "0"]).unwrap().ramp, Duration::ZERO);
    assert_eq!(
        args(&["--ramp", "500ms"]).unwrap().ramp,
        Duration::from_millis(500)
    );
}

/// Every flag's bad value is the one line it gave before the flags were typed.
#[test]
fn bad_values_give_their_line() {
    for (argv, line) in [
        (&["--dir", " "][..], "--dir: empty path; give an existing directory"),
        (&["--pattern", "seqread"], "--pattern: unknown pattern 'seqread'; accepted: seq-read,seq-write,rand-read,rand-write,rw-mix[:READ_PCT],copy (or fio's read,write,randread,randwrite,randrw)"),
        (&["--pattern", "rw-mix:101"], "--pattern: 'rw-mix:101': the read percentage of rw-mix is a whole number from 0 to 100, e.g. rw-mix:70"),
        (&["--block", "4X"], "--block: '4X' is not a size; use a number with B, KiB, MiB, GiB, TiB (or KB, MB, GB), e.g. 8KiB"),
        (&["--depth", "zero"], "--depth: 'zero' is not a whole number; use e.g. 1,32"),
        (&["--depth", "5000"], "--depth: '5000' is out of range; queue depths go from 1 to 4096"),
        (&["--jobs", "0"], "--jobs: '0' is out of range; job counts go from 1 to 1024"),
        (&["--file-size", "1PiB"], "--file-size: '1PiB' is not a size; use a number with B, KiB, MiB, GiB, TiB (or KB, MB, GB), e.g. 8KiB"),
        (&["--file-size", "512TiB"], "--file-size: 512 TiB is above the limit of 256 TiB; use e.g. 1GiB"),
        (&["--engine", "spdk"], "--engine: unknown engine 'spdk'; accepted: auto,libaio,mmap,sync,uring"),
        (&["--runtime", "2"], "--runtime: '2' has no unit; give one of us, ms, s, m or h, e.g. 2ms or 2s"),
        (&["--ramp", "soon"], "--ramp: 'soon' is not a duration; use a number with ms, s, m or h, e.g. 500ms or 10s"),
        (&["--sustain", "1s"], "--sustain: steady-state mode samples every second; give at least 2s, e.g. 10m"),
        (&["--shared-file", "--verify"], "--shared-file: --verify tracks the data of each job's own file and does not run on a shared file; drop --verify or --shared-file"),
    ] {
        assert_eq!(args(argv).unwrap_err().0, line, "{argv:?}");
    }
}

/// The help lists the engines of the registry.
#[test]
fn help_lists_the_engines() {
    let mut cmd = <DiskOptions as clap::Args>::augment_args(clap::Command::new("disk"));
    let help = cmd.render_help().to_string();
    for e in ENGINES {
        assert!(help.contains(e.name()), "{}: {help}", e.name());
    }
}
