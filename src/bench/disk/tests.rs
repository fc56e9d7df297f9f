//! Tests of the disk pipeline on real files (under `target/test-scratch/` of the
//! checkout, a real filesystem where `/tmp` may be tmpfs: `util::scratch`): exact I/O and byte counts per engine, data read
//! back identical with `--verify`, and a corrupted byte detected. Speed is never checked.

use super::case::{self, Config};
use super::data::Gens;
use super::engine::IoEngine;
use super::engines;
use super::job::{self, JobSpec};
use super::options::{DiskOptions, Pattern};
use super::{prepare, RunPlan};
use crate::bench::common::{self, args_from, CommonArgs, CommonOptions};
use crate::bench::resource::Context;
use crate::hw::HostInfo;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

fn scratch() -> tempfile::TempDir {
    crate::util::scratch::scratch_dir()
}

fn engines() -> Vec<&'static dyn IoEngine> {
    engines::ENGINES
        .iter()
        .copied()
        .filter(|e| match e.available() {
            Ok(()) => true,
            Err(why) => {
                eprintln!("skipping engine {}: {why}", e.name());
                false
            }
        })
        .collect()
}

/// The plan, or `None` (with the reason printed) where this filesystem refuses
/// O_DIRECT: these tests are about direct I/O on a real disk.
fn plan(
    dir: &std::path::Path,
    extra: &[&str],
    host: &HostInfo,
) -> Option<(RunPlan, CommonOptions)> {
    let mut args = vec!["--dir", dir.to_str().unwrap()];
    args.extend_from_slice(extra);
    let o = super::options::parse(&args_from::<DiskOptions>(&args)).unwrap();
    let opts = common::parse(&CommonArgs::default(), false).unwrap();
    let ctx = Context { host, opts: &opts };
    match prepare(&o, &ctx, Duration::from_secs(600), 1) {
        Ok(p) => Some((p, opts)),
        Err(e) if e.0.contains("O_DIRECT") => {
            eprintln!("skipping: {e}");
            None
        }
        Err(e) => panic!("{e}"),
    }
}

/// A plan over 1 MiB files, no ramp, depth 1, stopping each job after `io_limit`
/// I/Os (`None` as for [`plan`]).
fn small_plan(
    dir: &std::path::Path,
    host: &HostInfo,
    engine: &str,
    verify: bool,
    io_limit: u64,
) -> Option<(Arc<RunPlan>, CommonOptions)> {
    let mut args = vec![
        "--file-size",
        "1MiB",
        "--ramp",
        "0",
        "--engine",
        engine,
        "--depth",
        "1",
    ];
    if verify {
        args.push("--verify");
    }
    let (mut p, opts) = plan(dir, &args, host)?;
    p.io_limit = Some(io_limit);
    Some((Arc::new(p), opts))
}

#[test]
fn exact_io_and_byte_counts_per_engine() {
    let dir = scratch();
    let host = HostInfo::detect(false);
    let Some((p, _)) = plan(dir.path(), &["--file-size", "2MiB", "--ramp", "0"], &host) else {
        return;
    };
    p.ws.ensure_files(1, true, p.seed).unwrap();
    let (path, base) = p.ws.target(0);
    let stop = AtomicBool::new(false);
    for e in engines() {
        for (pattern, block, depth, limit) in [
            (Pattern::SeqRead, 4096u64, 8usize, 512u64),
            (Pattern::RandWrite, 8192, 4, 300),
            (Pattern::RwMix(50), 4096, 16, 1000),
            (Pattern::Copy, 4096, 8, 400),
        ] {
            let spec = JobSpec {
                engine: e,
                path: &path,
                base,
                size: 2 << 20,
                file_id: 0,
                pattern,
                block,
                depth,
                direct: true,
                ramp: Duration::ZERO,
                window: Duration::from_secs(600),
                windows: 1,
                io_limit: Some(limit),
                seed: p.seed,
                rng_seed: 42,
                stop: &stop,
                durability: Default::default(),
                rate_iops: None,
                zipf_theta: None,
                steady: None,
            };
            let s = job::run(&spec, None, &|| {}).unwrap();
            let what = format!("{} {} depth {depth}", e.name(), pattern.name());
            assert_eq!(s.all_ios, limit, "{what}");
            assert_eq!(s.all_bytes, limit * block, "{what}");
            assert_eq!(s.windows[0].ios, limit, "{what}");
            assert_eq!(s.windows[0].bytes, limit * block, "{what}");
            assert_eq!(s.hist.len(), limit, "{what}: one latency per I/O");
            assert_eq!(s.per_sec.iter().sum::<u64>(), limit * block, "{what}");
            if pattern == Pattern::SeqRead {
                assert_eq!(s.windows[0].reads, limit);
            }
            if pattern == Pattern::Copy {
                assert_eq!(s.windows[0].reads, limit / 2, "{what}: one write per read");
            }
        }
    }
}

#[test]
fn buffered_blocks_below_a_sector_move_exact_bytes() {
    let dir = scratch();
    let host = HostInfo::detect(false);
    let Some((p, _)) = plan(
        dir.path(),
        &[
            "--file-size",
            "64KB",
            "--ramp",
            "0",
            "--buffered",
            "--block",
            "1B,100B,4KB",
        ],
        &host,
    ) else {
        return;
    };
    assert_eq!(p.ws.file_size, 64_000);
    p.ws.ensure_files(1, false, p.seed).unwrap();
    let (path, base) = p.ws.target(0);
    let stop = AtomicBool::new(false);
    for e in engines() {
        for (pattern, block) in [
            (Pattern::SeqWrite, 1u64),
            (Pattern::RandRead, 100),
            (Pattern::Copy, 4000),
            (Pattern::RandWrite, 1),
        ] {
            let limit = 300u64;
            let spec = JobSpec {
                engine: e,
                path: &path,
                base,
                size: 64_000,
                file_id: 0,
                pattern,
                block,
                depth: 1,
                direct: false,
                ramp: Duration::ZERO,
                window: Duration::from_secs(600),
                windows: 1,
                io_limit: Some(limit),
                seed: p.seed,
                rng_seed: 7,
                stop: &stop,
                durability: Default::default(),
                rate_iops: None,
                zipf_theta: None,
                steady: None,
            };
            let s = job::run(&spec, None, &|| {}).unwrap();
            let what = format!("{} {} {block} B", e.name(), pattern.name());
            assert_eq!(s.all_ios, limit, "{what}");
            assert_eq!(s.all_bytes, limit * block, "{what}");
        }
    }
    // The file keeps its size: no I/O went past its end.
    assert_eq!(std::fs::metadata(&path).unwrap().len(), 64_000);
}

#[test]
fn written_data_reads_back_identical_and_corruption_is_caught() {
    let dir = scratch();
    let host = HostInfo::detect(false);
    for e in engines() {
        let Some((p, opts)) = small_plan(dir.path(), &host, e.name(), true, 600) else {
            return;
        };
        let ctx = Context {
            host: &host,
            opts: &opts,
        };
        // Write randomly (with in-loop generation tracking), then read everything back
        // through the engine with in-loop checks, then verify again from outside.
        let cfgs = [
            Config {
                pattern: Pattern::RandWrite,
                block: 4096,
                depth: 1,
                jobs: 2,
            },
            Config {
                pattern: Pattern::SeqWrite,
                block: 16384,
                depth: 1,
                jobs: 2,
            },
            Config {
                pattern: Pattern::Copy,
                block: 8192,
                depth: 1,
                jobs: 2,
            },
            Config {
                pattern: Pattern::RandRead,
                block: 4096,
                depth: 1,
                jobs: 2,
            },
        ];
        for c in case::cases(&p, &cfgs) {
            let rs = c.run(&ctx);
            assert_eq!(rs.len(), 3, "{} {}", e.name(), c.label());
            for r in rs {
                assert!(r.is_ok(), "{} {}: {:?}", e.name(), c.label(), r.status);
            }
        }
        let gens: Vec<Gens> = p.verify.as_ref().unwrap().lock().unwrap().0.clone();
        assert!(gens[0].gens.iter().any(|&g| g > 0), "writes were tracked");
        case::read_back(&p, 0, &gens[0], true).unwrap();
        // Flip one byte of job 1's file: the read-back must say where.
        let (path, _) = p.ws.target(1);
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[123_457] ^= 0x40;
        std::fs::write(&path, &bytes).unwrap();
        let err = case::read_back(&p, 1, &gens[1], true).unwrap_err();
        assert!(err.contains("wrong data at byte 122880"), "{err}");
    }
}

#[test]
fn one_case_returns_the_three_results_of_one_run() {
    let dir = scratch();
    let host = HostInfo::detect(false);
    let Some((p, opts)) = small_plan(dir.path(), &host, "sync", false, 100) else {
        return;
    };
    let ctx = Context {
        host: &host,
        opts: &opts,
    };
    let cases = case::cases(
        &p,
        &[Config {
            pattern: Pattern::SeqRead,
            block: 4096,
            depth: 1,
            jobs: 1,
        }],
    );
    assert_eq!(cases.len(), 1, "one case per configuration");
    let rs = cases[0].run(&ctx);
    let metrics: Vec<&str> = rs.iter().map(|r| r.metric.as_str()).collect();
    assert_eq!(metrics, ["throughput", "iops", "latency"]);
    assert!(rs.iter().all(|r| r.is_ok()), "{:?}", rs[0].status);
    // 100 I/Os of 4 KiB in one window: throughput = 4096 × IOPS exactly.
    let t = rs[0].summary.as_ref().unwrap().mean;
    let i = rs[1].summary.as_ref().unwrap().mean;
    assert!((t - 4096.0 * i).abs() < 1e-6 * t);
    let pc = rs[2].percentiles.as_ref().unwrap();
    assert!(pc.p50 > 0.0 && pc.p50 <= pc.p99 && pc.p99 <= pc.max);
    assert!(rs[0].notes[0].text.contains("pread/pwrite; O_DIRECT"));
}

#[test]
fn a_reap_takes_no_more_than_asked_and_leaves_the_rest_queued() {
    use super::engine::{Buffers, Io, Op};
    use std::os::fd::AsRawFd;
    // The job loop takes one completion at a time (fio's default): every engine must
    // leave completions beyond `max` for the next reap, none lost, none twice.
    let dir = scratch();
    let path = dir.path().join("reap.dat");
    std::fs::write(&path, vec![7u8; 4 * 4096]).unwrap();
    let file = std::fs::File::open(&path).unwrap();
    for e in engines() {
        let bufs = Buffers::new(4096, 4).unwrap();
        let mut q = e.open(file.as_raw_fd(), 4, &bufs).unwrap();
        let ios: Vec<Io> = (0..4)
            .map(|i| Io {
                slot: i,
                op: Op::Read,
                offset: 4096 * i as u64,
            })
            .collect();
        q.submit(&ios, &bufs).unwrap();
        let mut out = Vec::new();
        q.reap(1, 1, &mut out).unwrap();
        assert_eq!(out.len(), 1, "{}", e.name());
        q.reap(3, 3, &mut out).unwrap();
        assert_eq!(out.len(), 4, "{}", e.name());
        let mut slots: Vec<usize> = out.iter().map(|d| d.slot).collect();
        slots.sort();
        assert_eq!(slots, vec![0, 1, 2, 3], "{}", e.name());
        assert!(out.iter().all(|d| d.result == 4096), "{}", e.name());
    }
}

/// Issue #26: `--jobs 4` with the default depth 32 and 80 MB blocks was refused without
/// naming `--depth 1`, the depth a threads-as-jobs experiment wants.
#[test]
fn too_many_buffers_name_the_flag_that_fixes_it() {
    let gib = 1u64 << 30;
    let e = super::buffers_too_big(4, 32, 80_000_000, 24 * gib);
    assert_eq!(
        e.to_string(),
        "--depth: jobs × depth × block = 4 × 32 × 80 MB = 9.54 GiB of I/O buffers exceeds a quarter of the 24 GiB of RAM; use --depth 20 or less (--depth 1: one I/O in flight per job, the threads-as-jobs experiment)"
    );
    // Depth 1 already: fewer jobs; one job at depth 1: a smaller block.
    let e = super::buffers_too_big(64, 1, 1 << 30, 24 * gib).to_string();
    assert!(
        e.starts_with("--jobs: ") && e.ends_with("; use --jobs 6 or less"),
        "{e}"
    );
    let e = super::buffers_too_big(1, 1, 1 << 30, 2 * gib).to_string();
    assert!(
        e.starts_with("--block: ") && e.ends_with("; use a --block of 512 MiB or less"),
        "{e}"
    );
}

/// `--engine mmap` copies through the page cache: refused without `--buffered` before
/// anything is written (one line naming the fix); with it, a written case reads back
/// identical (`--verify`), counts exactly, and the run leaves no file behind.
#[test]
fn mmap_runs_buffered_only_and_moves_exact_bytes() {
    let dir = scratch();
    let host = HostInfo::detect(false);
    let opts = common::parse(&CommonArgs::default(), false).unwrap();
    let ctx = Context {
        host: &host,
        opts: &opts,
    };
    let d = dir.path().to_str().unwrap();
    let parse = |extra: &[&str]| {
        let mut a = vec![
            "--dir",
            d,
            "--engine",
            "mmap",
            "--depth",
            "1",
            "--file-size",
            "1MiB",
            "--ramp",
            "0",
        ];
        a.extend_from_slice(extra);
        super::options::parse(&args_from::<DiskOptions>(&a)).unwrap()
    };
    match prepare(&parse(&[]), &ctx, Duration::from_secs(600), 1) {
        Ok(_) => panic!("mmap without --buffered was accepted"),
        Err(e) => assert_eq!(
            e.0,
            "--engine: mmap copies through the page cache and has no O_DIRECT; add --buffered (or use --engine sync for O_DIRECT)"
        ),
    }
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    let Ok(mut p) = prepare(
        &parse(&["--buffered", "--verify"]),
        &ctx,
        Duration::from_secs(600),
        1,
    ) else {
        panic!("mmap with --buffered was refused");
    };
    p.io_limit = Some(200);
    let p = Arc::new(p);
    for pattern in [Pattern::RandWrite, Pattern::SeqRead] {
        let cfg = Config {
            pattern,
            block: 4096,
            depth: 1,
            jobs: 1,
        };
        let rs = case::cases(&p, &[cfg])[0].run(&ctx);
        assert!(rs.iter().all(|r| r.is_ok()), "{:?}", rs[0].status);
        assert_eq!(rs[0].param_str("engine"), Some("mmap"));
        // The mapping was advised as fio's mmap engine advises it, by pattern.
        let advice = if pattern.random() {
            "MADV_RANDOM"
        } else {
            "MADV_SEQUENTIAL"
        };
        let note = &rs[0].notes[0].text;
        assert!(
            note.contains(&format!("shared mapping (mmap, {advice}); BUFFERED")),
            "{note}"
        );
        // 200 I/Os in the one 600 s window: exactly 200 counted.
        let ios = rs[1].summary.as_ref().unwrap().mean * 600.0;
        assert!((ios - 200.0).abs() < 1e-6, "{ios}");
    }
    drop(p);
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

/// `--ss` stops the jobs once steady: with 100 ms windows and a criterion two busy
/// windows always meet, the case ends after a few windows of the 40 it may take, its
/// samples are the kept windows, its rows say steady state was reached and carry what
/// fio gets; the run's files are removed.
#[test]
fn ss_stops_the_jobs_once_steady() {
    let dir = scratch();
    let host = HostInfo::detect(false);
    let opts = common::parse(&CommonArgs::default(), false).unwrap();
    let ctx = Context {
        host: &host,
        opts: &opts,
    };
    let args = [
        "--dir",
        dir.path().to_str().unwrap(),
        "--engine",
        "sync",
        "--buffered",
        "--depth",
        "1",
        "--file-size",
        "1MiB",
        "--ramp",
        "0",
        "--sustain",
        "40s",
        "--ss",
        "iops:100%",
        "--ss-dur",
        "2s",
    ];
    let o = super::options::parse(&args_from::<DiskOptions>(&args)).unwrap();
    let Ok(p) = prepare(&o, &ctx, Duration::from_millis(100), 40) else {
        panic!("refused");
    };
    let p = Arc::new(p);
    let cfg = Config {
        pattern: Pattern::SeqRead,
        block: 4096,
        depth: 1,
        jobs: 2,
    };
    let rs = case::cases(&p, &[cfg])[0].run(&ctx);
    assert!(rs.iter().all(|r| r.is_ok()), "{:?}", rs[0].status);
    let kept = rs[0].samples.len();
    assert!((2..40).contains(&kept), "{kept} windows kept");
    assert_eq!(rs[1].samples.len(), kept);
    let note = rs[0]
        .notes
        .iter()
        .find(|n| n.text.starts_with("steady state reached (--ss iops:100%"))
        .unwrap_or_else(|| panic!("{:?}", rs[0].notes));
    assert!(
        note.text
            .ends_with(&format!("stopped after {kept} s of 40")),
        "{}",
        note.text
    );
    assert_eq!(rs[2].param_str("ss"), Some("iops:100%"));
    assert_eq!(rs[2].param_u64("ss_dur"), Some(2));
    assert_eq!(rs[2].param_u64("sustain"), Some(40));
    drop(p);
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}
