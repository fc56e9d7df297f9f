//! The report's `config` for each resource, pinned: each resource's validated options
//! for representative command lines, serialised as the report writes them (field names,
//! their order, units, the order of lists), compared with the JSON the options gave
//! before their flags were typed at the clap boundary (issue #34 item 2), and disk's
//! notes (what validation changed, written into the results). A change here changes
//! every results file's `config`: it must be additive and deliberate. (One change of
//! order only, issue #46: disk's fitted `file_size` moved from among its flags to the
//! end, with the flags' struct no longer holding it. The order is not seen in any file:
//! the report's `config` goes through `serde_json::Value`, whose keys are sorted.)

use crate::bench::common::args_from;

/// The options `argv` gives for resource `r`, serialised.
fn actual(r: &str, argv: &[&str]) -> String {
    let j = |v: serde_json::Result<String>| v.unwrap();
    match r {
        "cpu" => j(serde_json::to_string(
            &crate::bench::cpu::options::parse(&args_from(argv)).unwrap(),
        )),
        "memory" => j(serde_json::to_string(
            &crate::bench::memory::options::parse(&args_from(argv)).unwrap(),
        )),
        "disk" => {
            let o = crate::bench::disk::options::parse(&args_from(argv)).unwrap();
            format!(
                "{}|{}",
                j(serde_json::to_string(&o)),
                j(serde_json::to_string(&o.notes))
            )
        }
        "net" => j(serde_json::to_string(
            &crate::bench::net::options::parse_net(&args_from(argv)).unwrap(),
        )),
        "serve" => j(serde_json::to_string(
            &crate::bench::net::options::parse_serve(&args_from(argv)).unwrap(),
        )),
        "gpu" => j(serde_json::to_string(
            &crate::bench::gpu::options::parse(&args_from(argv)).unwrap(),
        )),
        "linalg" => j(serde_json::to_string(
            &crate::bench::linalg::options::parse(&args_from(argv)).unwrap(),
        )),
        _ => unreachable!("{r}"),
    }
}

/// Every case gives the JSON it gave before the flags were typed. ($PEAKBENCH_TOKEN
/// would make `token_given` true where no `--token` is given: the test reads it as
/// `false` only when the variable is unset or empty.)
#[test]
fn config_json_is_unchanged() {
    let env_token =
        std::env::var(crate::bench::net::options::TOKEN_ENV).is_ok_and(|t| !t.is_empty());
    let mut seen = std::collections::BTreeSet::new();
    for (r, argv, want) in CASES {
        seen.insert(*r);
        let got = actual(r, argv);
        if env_token && matches!(*r, "net" | "serve") {
            continue;
        }
        assert_eq!(got, *want, "{r} {argv:?}");
    }
    assert_eq!(seen.len(), 7, "every resource: {seen:?}");
}

const CASES: &[(&str, &[&str], &str)] = &[
    (
        "cpu",
        &[],
        r#"{"precisions":null,"isas":null,"threads":null,"sustain_s":null,"interval_s":1.0}"#,
    ),
    (
        "cpu",
        &[
            "--precision",
            "dp,sp,int8",
            "--isa",
            "avx512,generic",
            "--threads",
            "1,2,4",
        ],
        r#"{"precisions":["fp64","fp32","int8"],"isas":["avx512","generic"],"threads":[1,2,4],"sustain_s":null,"interval_s":1.0}"#,
    ),
    (
        "cpu",
        &[
            "--precision=qp,hp,BF16",
            "--sustain",
            "10m",
            "--interval",
            "500ms",
        ],
        r#"{"precisions":["int8","fp16","bf16"],"isas":null,"threads":null,"sustain_s":600.0,"interval_s":0.5}"#,
    ),
    (
        "cpu",
        &["--sustain", "2s"],
        r#"{"precisions":null,"isas":null,"threads":null,"sustain_s":2.0,"interval_s":1.0}"#,
    ),
    (
        "memory",
        &[],
        r#"{"kernels":null,"patterns":["seq"],"blocks":null,"size":null,"threads":null,"sweep":false,"sweep_quick":false,"nt":"auto","count_write_allocate":false}"#,
    ),
    (
        "memory",
        &[
            "--kernel",
            "copy,triad,chase,copy",
            "--pattern",
            "seq,random,rand",
            "--block",
            "8B,1KiB,1MB",
            "--size",
            "1GiB",
            "--threads",
            "1,2",
            "--nt",
            "on",
        ],
        r#"{"kernels":["copy","triad","chase"],"patterns":["seq","rand"],"blocks":[8,1024,1000000],"size":1073741824,"threads":[1,2],"sweep":false,"sweep_quick":false,"nt":"on","count_write_allocate":false}"#,
    ),
    (
        "memory",
        &["--sweep"],
        r#"{"kernels":null,"patterns":["seq"],"blocks":null,"size":null,"threads":null,"sweep":true,"sweep_quick":false,"nt":"auto","count_write_allocate":false}"#,
    ),
    (
        "memory",
        &[
            "--sweep",
            "Quick",
            "--nt",
            "OFF",
            "--count-write-allocate",
            "--kernel",
            "READ",
        ],
        r#"{"kernels":["read"],"patterns":["seq"],"blocks":null,"size":null,"threads":null,"sweep":true,"sweep_quick":true,"nt":"off","count_write_allocate":true}"#,
    ),
    (
        "memory",
        &["--sweep", "full", "--block", "4KiB"],
        r#"{"kernels":null,"patterns":["seq"],"blocks":[4096],"size":null,"threads":null,"sweep":true,"sweep_quick":false,"nt":"auto","count_write_allocate":false}"#,
    ),
    (
        "disk",
        &[],
        r#"{"dir":null,"patterns":["seq-read","seq-write","rand-read","rand-write"],"blocks":null,"depths":[1,32],"jobs":[1],"engine":"auto","buffered":false,"runtime_s":null,"ramp_s":1.0,"verify":false,"sustain_s":null,"allow_destructive":false,"file_size":1073741824}|[]"#,
    ),
    (
        "disk",
        &[
            "--dir",
            "/tmp/x",
            "--pattern",
            "read,randwrite,rw-mix:30,copy",
            "--block",
            "4KiB,1MiB",
            "--depth",
            "1,4,32",
            "--jobs",
            "1,2",
            "--file-size",
            "64MiB",
            "--engine",
            "IO_URING",
            "--runtime",
            "1s",
            "--ramp",
            "0",
            "--verify",
        ],
        r#"{"dir":"/tmp/x","patterns":["seq-read","rand-write","rw-mix:30","copy"],"blocks":[4096,1048576],"depths":[1,4,32],"jobs":[1,2],"engine":"uring","buffered":false,"runtime_s":1.0,"ramp_s":0.0,"verify":true,"sustain_s":null,"allow_destructive":false,"file_size":67108864}|[]"#,
    ),
    (
        "disk",
        &[
            "--block",
            "80MB",
            "--file-size",
            "256MB",
            "--engine",
            "psync",
            "--depth",
            "1",
            "--ramp",
            "500ms",
            "--sustain",
            "10m",
            "--allow-destructive",
        ],
        r#"{"dir":null,"patterns":["seq-read","seq-write","rand-read","rand-write"],"blocks":[80000000],"depths":[1],"jobs":[1],"engine":"sync","buffered":false,"runtime_s":null,"ramp_s":0.5,"verify":false,"sustain_s":600.0,"allow_destructive":true,"file_size":240000000}|["--file-size 256 MB (256000000 B) rounded down to 240 MB (240000000 B), a multiple of the block size 80 MB, as fio does"]"#,
    ),
    (
        "disk",
        &[
            "--block",
            "1B,100B,4KB",
            "--buffered",
            "--shared-file",
            "--jobs",
            "4",
            "--pattern",
            "rw-mix",
        ],
        r#"{"dir":null,"patterns":["rw-mix:70"],"blocks":[1,100,4000],"depths":[1,32],"jobs":[4],"shared_file":true,"engine":"auto","buffered":true,"runtime_s":null,"ramp_s":1.0,"verify":false,"sustain_s":null,"allow_destructive":false,"file_size":1073740000}|[]"#,
    ),
    (
        "disk",
        &["--file-size", "1GB", "--engine", "auto"],
        r#"{"dir":null,"patterns":["seq-read","seq-write","rand-read","rand-write"],"blocks":null,"depths":[1,32],"jobs":[1],"engine":"auto","buffered":false,"runtime_s":null,"ramp_s":1.0,"verify":false,"sustain_s":null,"allow_destructive":false,"file_size":999292928}|["--file-size 1 GB (1000000000 B) rounded down to 953 MiB (999292928 B), a multiple of 1 MiB, the least common multiple of the block sizes, as fio does"]"#,
    ),
    (
        "net",
        &[],
        r#"{"server":null,"protos":["tcp","udp"],"tests":["throughput","latency"],"msgs":null,"streams":[1],"time_s":3.0,"reverse":false,"bidir":false,"rate_bps":null,"zerocopy":false,"token_given":false,"matrix":false}"#,
    ),
    (
        "net",
        &[
            "--server",
            "127.0.0.1:5999",
            "--proto",
            "tcp",
            "--test",
            "throughput",
            "--msg",
            "1KiB,64KiB",
            "--streams",
            "1,4",
            "--time",
            "2s",
            "--reverse",
            "--zerocopy",
            "--token",
            "t0k",
        ],
        r#"{"server":"127.0.0.1:5999","protos":["tcp"],"tests":["throughput"],"msgs":[1024,65536],"streams":[1,4],"time_s":2.0,"reverse":true,"bidir":false,"rate_bps":null,"zerocopy":true,"token_given":true,"matrix":false}"#,
    ),
    (
        "net",
        &[
            "--proto",
            "UDP,tcp",
            "--test",
            "latency,throughput",
            "--rate",
            "2.5G",
            "--bidir",
            "--msg",
            "64B,1460",
        ],
        r#"{"server":null,"protos":["udp","tcp"],"tests":["latency","throughput"],"msgs":[64,1460],"streams":[1],"time_s":3.0,"reverse":false,"bidir":true,"rate_bps":2500000000,"zerocopy":false,"token_given":false,"matrix":false}"#,
    ),
    (
        "net",
        &["--matrix", "--time", "10ms"],
        r#"{"server":null,"protos":["tcp","udp"],"tests":["throughput","latency"],"msgs":null,"streams":[1],"time_s":0.01,"reverse":false,"bidir":false,"rate_bps":null,"zerocopy":false,"token_given":false,"matrix":true}"#,
    ),
    (
        "serve",
        &[],
        r#"{"bind":"127.0.0.1:5211","token_given":false,"once":false,"max_memory":null}"#,
    ),
    (
        "serve",
        &[
            "--bind",
            "127.0.0.1:5300",
            "--once",
            "--max-memory",
            "64MiB",
            "--token",
            "s3cret",
        ],
        r#"{"bind":"127.0.0.1:5300","token_given":true,"once":true,"max_memory":67108864}"#,
    ),
    (
        "serve",
        &["--bind", "::1"],
        r#"{"bind":"[::1]:5211","token_given":false,"once":false,"max_memory":null}"#,
    ),
    (
        "gpu",
        &[],
        r#"{"list":false,"device":null,"precisions":null,"all_precisions":true,"kernels":null,"size":null}"#,
    ),
    (
        "gpu",
        &["--list"],
        r#"{"list":true,"device":null,"precisions":null,"all_precisions":true,"kernels":null,"size":null}"#,
    ),
    (
        "gpu",
        &[
            "--device",
            "1",
            "--precision",
            "fp32,sp,int8",
            "--size",
            "64MiB",
        ],
        r#"{"list":false,"device":1,"precisions":["fp32","int8"],"all_precisions":false,"kernels":null,"size":67108864}"#,
    ),
    (
        "gpu",
        &["--kernel", "copy,H2D,copy"],
        r#"{"list":false,"device":null,"precisions":null,"all_precisions":true,"kernels":["copy","h2d"],"size":null}"#,
    ),
    (
        "gpu",
        &["--precision", "all", "--kernel", "all", "--size", "4096KB"],
        r#"{"list":false,"device":null,"precisions":["fp32","fp16","fp64","int32","int8","int64"],"all_precisions":true,"kernels":["read","write","copy","h2d","d2h","dispatch"],"size":4096000}"#,
    ),
    (
        "linalg",
        &[],
        r#"{"routines":["gemm","lu"],"precisions":["fp64"],"n":null,"threads":null,"blas":["faer"]}"#,
    ),
    (
        "linalg",
        &[
            "--routine",
            "LU,gemm,roofline",
            "--precision",
            "sp,fp64,bf16",
            "--n",
            "100,2000",
            "--threads",
            "1,2",
            "--blas",
            "faer,auto,openblas",
        ],
        r#"{"routines":["lu","gemm","roofline"],"precisions":["fp32","fp64","bf16"],"n":[100,2000],"threads":[1,2],"blas":["faer","auto","openblas"]}"#,
    ),
    (
        "linalg",
        &["--blas", "/opt/lib/libblas.so", "--routine", "roofline"],
        r#"{"routines":["roofline"],"precisions":["fp64"],"n":null,"threads":null,"blas":["/opt/lib/libblas.so"]}"#,
    ),
];
