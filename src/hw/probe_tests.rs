//! Tests of the execution-resource probe: the decision logic on synthetic timings, the
//! kernel mapping, and one real run that checks only that every result is an allowed
//! unit count or has a reason (never a speed).

use super::*;

#[test]
fn clean_one_and_two_units() {
    assert_eq!(decide(&[1.97, 1.99], FMA_UNITS).unwrap().0, 2.0);
    assert_eq!(decide(&[0.99, 1.0], FMA_UNITS).unwrap().0, 1.0);
    assert_eq!(decide(&[3.93, 3.97], FMA_UNITS).unwrap().0, 4.0);
    // Slightly above is as acceptable as slightly below: a clock read a little low.
    assert_eq!(decide(&[2.08, 2.05], FMA_UNITS).unwrap().0, 2.0);
    let p = decide_test(Test::Fma(Width::V256), &[1.97, 1.99]).unwrap();
    assert_eq!(p.per_cycle, 2.0);
    assert_eq!(
        p.evidence,
        "probe: 2 FMA/cycle, vfmadd231pd ymm (measured 1.97, 1.99)"
    );
}

#[test]
fn ambiguous_or_noisy_measurements_give_no_count() {
    // Between 1 and 2: a fraction of a unit is never a result.
    let e = decide(&[1.5, 1.52], FMA_UNITS).unwrap_err();
    assert!(e.contains("ambiguous"), "{e}");
    // Just outside the tolerance of 2.
    assert!(decide(&[1.75, 1.76], FMA_UNITS).is_err());
    // Each estimate is clean, but they disagree.
    let e = decide(&[1.98, 3.01], FMA_UNITS).unwrap_err();
    assert!(e.contains("disagree"), "{e}");
    // One clean estimate does not rescue an ambiguous one.
    assert!(decide(&[2.0, 1.6], FMA_UNITS).is_err());
    assert!(decide(&[], FMA_UNITS).is_err());
    assert!(decide(&[f64::NAN, 2.0], FMA_UNITS).is_err());
    assert!(decide(&[0.0, 2.0], FMA_UNITS).is_err());
    assert!(decide(&[f64::INFINITY], FMA_UNITS).is_err());
}

#[test]
fn known_fractions() {
    let (c, ev) = decide(&[0.0622, 0.0624], AMX_UNITS).unwrap();
    assert_eq!(c, 1.0 / 16.0);
    assert!(ev.starts_with("1/16 (measured 0.0622"), "{ev}");
    let p = decide_test(Test::AmxBf16, &[0.0618, 0.0624]).unwrap();
    assert!(
        p.evidence.starts_with("probe: 1/16 tdpbf16ps/cycle"),
        "{}",
        p.evidence
    );
    // AMX's own power licence may leave the FMA chain's clock 20 % off: still 1/16.
    assert_eq!(
        decide_test(Test::AmxInt8, &[0.051, 0.052])
            .unwrap()
            .per_cycle,
        1.0 / 16.0
    );
    assert!(decide_test(Test::AmxInt8, &[0.044, 0.045]).is_err());
    // Half the rate is 1/32, not "1/16 at 50 %".
    assert_eq!(decide(&[0.0312, 0.0311], AMX_UNITS).unwrap().0, 1.0 / 32.0);
    assert_eq!(decide(&[0.66, 0.65], MUL_UNITS).unwrap().0, 2.0 / 3.0);
    assert_eq!(decide(&[0.33, 0.34], MUL_UNITS).unwrap().0, 1.0 / 3.0);
    assert_eq!(decide(&[0.5, 0.49], MUL_UNITS).unwrap().0, 0.5);
    assert!(decide(&[0.58, 0.58], MUL_UNITS).is_err());
    assert_eq!(fmt_units(2.0 / 3.0), "2/3");
    assert_eq!(fmt_units(1.0 / 16.0), "1/16");
    assert_eq!(fmt_units(3.0), "3");
    assert_eq!(fmt_units(0.5), "1/2");
}

#[test]
fn no_measurement_is_within_tolerance_of_two_candidates() {
    for t in TESTS.iter().copied().chain([Test::FmaShuffleMix]) {
        let (l, tol) = (t.candidates(), t.tolerance());
        for w in l.windows(2) {
            assert!(w[0] < w[1], "{l:?} sorted");
            assert!(
                w[0] * (1.0 + tol) < w[1] * (1.0 - tol),
                "{} and {} overlap",
                w[0],
                w[1]
            );
        }
    }
}

#[test]
fn shuffle_mix_tells_one_from_two_512_bit_units() {
    // Two units (Gold 6xxx/Platinum, Sapphire Rapids): shuffles take port 5 from the
    // second unit, the loop takes twice as long.
    let two = decide_fma512(&[1.97, 1.99], &[0.99, 1.0], true).unwrap();
    assert_eq!(two.per_cycle, 2.0);
    assert!(two.evidence.contains("2 units"), "{}", two.evidence);
    // One unit (Silver/Bronze, client Ice Lake): shuffles run beside it for free.
    let one = decide_fma512(&[0.99, 1.0], &[0.98, 0.99], true).unwrap();
    assert_eq!(one.per_cycle, 1.0);
    assert!(one.evidence.contains("1 unit "), "{}", one.evidence);
    // The pure loop reads 2 but the shuffles cost nothing: contradiction, no count.
    let e = decide_fma512(&[1.98, 1.99], &[1.97, 1.99], true).unwrap_err();
    assert!(e.contains("inconsistent"), "{e}");
    // A slowdown between 1 and 2 is unclear.
    let e = decide_fma512(&[1.98, 1.99], &[1.32, 1.33], true).unwrap_err();
    assert!(e.contains("unclear"), "{e}");
    // AMD: the mix is reported, not required.
    let amd = decide_fma512(&[0.99, 1.0], &[0.7, 0.7], false).unwrap();
    assert_eq!(amd.per_cycle, 1.0);
    assert!(amd.evidence.contains("not used"), "{}", amd.evidence);
    // An ambiguous pure loop is never rescued by the mix.
    assert!(decide_fma512(&[1.5, 1.5], &[1.0, 1.0], true).is_err());
}

#[test]
fn unsettled_attempts_are_retried_a_few_times() {
    let mut n = 0;
    let p = with_retries(|| {
        n += 1;
        if n < 3 {
            Err("noisy".into())
        } else {
            decide_test(Test::Fma(Width::V256), &[2.0, 1.98]).map_err(ProbeError::from)
        }
    })
    .unwrap();
    assert_eq!(p.per_cycle, 2.0);
    assert!(
        p.evidence.ends_with("(after 2 unsettled attempt(s))"),
        "{}",
        p.evidence
    );
    let mut n = 0;
    let e = with_retries(|| {
        n += 1;
        Err::<Probed, _>(format!("ambiguous {n}").into())
    })
    .unwrap_err();
    assert_eq!(
        (n, e.to_string().as_str()),
        (ATTEMPTS, "ambiguous 3 (3 attempts)")
    );
    // A missing instruction is not retried.
    let mut n = 0;
    assert!(with_retries(|| {
        n += 1;
        Err(ProbeError::Lacks(vec!["avx512f".into()]))
    })
    .is_err());
    assert_eq!(n, 1);
}

fn entry(test: Test, per_cycle: f64) -> ProbeEntry {
    ProbeEntry {
        test,
        result: Ok(Probed {
            per_cycle,
            evidence: format!("probe: {per_cycle}"),
        }),
    }
}

#[test]
fn report_lookup_by_pipe_width_and_kernel() {
    let r = ProbeReport {
        entries: vec![
            entry(Test::Fma(Width::V128), 2.0),
            entry(Test::MulAdd(Width::V128), 4.0),
            entry(Test::Vpdpbusd(Width::V512), 2.0),
            entry(Test::Vdpbf16ps, 1.0),
            ProbeEntry {
                test: Test::AmxBf16,
                result: Err(ProbeError::Lacks(vec!["amx-tile".into()])),
            },
        ],
        cpu: Some(0),
        seconds: 0.1,
    };
    assert_eq!(
        r.per_cycle(Pipe::Fma, Width::Scalar).unwrap().per_cycle,
        2.0
    );
    assert_eq!(r.for_kernel("muladd_f64_sse2").unwrap().per_cycle, 4.0);
    assert_eq!(r.per_cycle(Pipe::Dot, Width::V512).unwrap().per_cycle, 2.0);
    assert_eq!(r.for_kernel("dp_bf16_avx512bf16").unwrap().per_cycle, 1.0);
    assert!(r.per_cycle(Pipe::Amx, Width::Tile).is_none());
    assert!(r.result(Test::AmxBf16).unwrap_err().contains("lacks"));
    assert!(r.per_cycle(Pipe::Alu, Width::V256).is_none());
    assert!(r
        .for_kernel("tdp_i8_amx")
        .unwrap_err()
        .contains("not probed"));
    let text = r.to_string();
    assert!(text.contains("execution probe (cpu 0"), "{text}");
    assert!(
        text.contains("not run (CPU lacks them): tdpbf16ps"),
        "{text}"
    );
}

#[test]
fn real_probe_gives_allowed_counts_or_reasons() {
    let cpu = CpuInfo::detect();
    let r = run_probe(&cpu);
    eprintln!("{r}");
    assert_eq!(r.entries.len(), TESTS.len());
    for e in &r.entries {
        match &e.result {
            Ok(p) => assert!(
                e.test.candidates().contains(&p.per_cycle),
                "{}: {}",
                e.test.name(),
                p.evidence
            ),
            Err(why) => assert!(!why.to_string().is_empty(), "{}", e.test.name()),
        }
        if e.test.requires().iter().any(|f| !cpu.has(f)) {
            assert!(
                matches!(e.result, Err(ProbeError::Lacks(_))),
                "{:?}",
                e.result
            );
        }
    }
    // Cached once per process.
    assert!(std::ptr::eq(probe(&cpu), probe(&cpu)));
}
