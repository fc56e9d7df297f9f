//! `--shared-file` (issue #32 item 10): 1..N jobs split one file into equal contiguous
//! parts, fio's shared `filename` with `offset_increment`. Exact byte counts per job on
//! a real file (in `target/`; `/tmp` may be tmpfs); speed is never checked.

use super::case::{regions, Config};
use super::engines;
use super::job::{self, JobSpec};
use super::options::{DiskOptions, Pattern};
use super::{prepare, RunPlan};
use crate::bench::common::{self, args_from, CommonArgs};
use crate::bench::resource::Context;
use crate::hw::HostInfo;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

fn plan(dir: &std::path::Path, host: &HostInfo) -> Option<RunPlan> {
    let args = [
        "--dir",
        dir.to_str().unwrap(),
        "--shared-file",
        "--file-size",
        "2MiB",
        "--block",
        "64KiB",
        "--ramp",
        "0",
        "--engine",
        "sync",
        "--depth",
        "1",
    ];
    let o = super::options::parse(&args_from::<DiskOptions>(&args)).unwrap();
    assert!(o.shared_file);
    let opts = common::parse(&CommonArgs::default(), false).unwrap();
    let ctx = Context { host, opts: &opts };
    match prepare(&o, &ctx, Duration::from_secs(600), 1) {
        Ok(p) => Some(p),
        Err(e) if e.0.contains("O_DIRECT") => {
            eprintln!("skipping: {e}");
            None
        }
        Err(e) => panic!("{e}"),
    }
}

fn cfg(pattern: Pattern, jobs: u32) -> Config {
    Config {
        pattern,
        block: 64 << 10,
        depth: 1,
        jobs,
    }
}

#[test]
fn jobs_split_one_file_into_equal_parts_with_exact_byte_counts() {
    let dir = crate::util::scratch::scratch_dir();
    let host = HostInfo::detect(false);
    let Some(p) = plan(dir.path(), &host) else {
        return;
    };
    p.ws.ensure_files(1, true, p.seed).unwrap();
    // 2 jobs: two halves of the same file.
    let r = regions(&p, cfg(Pattern::SeqWrite, 2)).unwrap();
    assert_eq!(r.len(), 2);
    assert_eq!(r[0].0, r[1].0, "one file");
    assert_eq!((r[0].1, r[0].2), (0, 1 << 20));
    assert_eq!((r[1].1, r[1].2), (1 << 20, 1 << 20));
    // 3 jobs: whole blocks each (2 MiB / 3 rounded down to 64 KiB: 10 blocks).
    let r3 = regions(&p, cfg(Pattern::RandRead, 3)).unwrap();
    assert_eq!(
        r3.iter().map(|x| (x.1, x.2)).collect::<Vec<_>>(),
        vec![(0, 655_360), (655_360, 655_360), (1_310_720, 655_360)]
    );
    // More jobs than blocks: refused with the reason (copy needs two blocks each).
    let e = regions(&p, cfg(Pattern::SeqRead, 64)).unwrap_err();
    assert!(
        e.contains("--shared-file") && e.contains("fewer --jobs"),
        "{e}"
    );
    assert!(regions(&p, cfg(Pattern::Copy, 32)).is_err());
    // Write both halves at once, each job exactly its part: one file of 2 MiB.
    let stop = AtomicBool::new(false);
    let engine = engines::ENGINES
        .iter()
        .copied()
        .find(|e| e.name() == "sync")
        .unwrap();
    let stats: Vec<job::JobStats> = std::thread::scope(|s| {
        let hs: Vec<_> = r
            .iter()
            .enumerate()
            .map(|(j, (path, base, size))| {
                let stop = &stop;
                let seed = p.seed;
                s.spawn(move || {
                    let spec = JobSpec {
                        engine,
                        path,
                        base: *base,
                        size: *size,
                        file_id: j as u32,
                        pattern: Pattern::SeqWrite,
                        block: 64 << 10,
                        depth: 1,
                        direct: true,
                        ramp: Duration::ZERO,
                        window: Duration::from_secs(600),
                        windows: 1,
                        io_limit: Some(*size / (64 << 10)),
                        seed,
                        rng_seed: 7 + j as u64,
                        stop,
                        durability: Default::default(),
                        rate_iops: None,
                        zipf_theta: None,
                        steady: None,
                    };
                    job::run(&spec, None, &|| {}).unwrap()
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for s in &stats {
        assert_eq!(s.all_ios, 16);
        assert_eq!(s.all_bytes, 1 << 20);
    }
    let parent = r[0].0.parent().unwrap();
    let files: Vec<_> = std::fs::read_dir(parent).unwrap().collect();
    assert_eq!(files.len(), 1, "one shared file");
    assert_eq!(std::fs::metadata(&r[0].0).unwrap().len(), 2 << 20);
    assert!(p.ws.cleanup().is_empty());
}

#[test]
fn shared_file_with_verify_is_refused() {
    let e = super::options::parse(&args_from::<DiskOptions>(&["--shared-file", "--verify"]))
        .unwrap_err();
    assert!(e.0.starts_with("--shared-file"), "{}", e.0);
}
