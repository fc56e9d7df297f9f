//! Tests of the execution-resource probe: the decision logic on synthetic timings, the
//! kernel mapping, and one real run that checks only that every result is an allowed
//! unit count or has a reason (never a speed).

use super::*;
use crate::hw::probe_class::{AMX_UNITS, FMA_UNITS, MUL_UNITS, TESTS, TOLERANCE};
use crate::hw::probe_settle::{decide, decide_fma512, fmt_units, settle};
#[cfg(target_arch = "x86_64")]
use crate::hw::uarch::Pipe;

/// Readings that all kept their core, on cpus 0 and 1 in turn.
fn quiet(v: &[f64]) -> Vec<Reading> {
    v.iter()
        .enumerate()
        .map(|(i, x)| Reading {
            cpu: Some(i % 2),
            per_cycle: *x,
            kept_core: true,
        })
        .collect()
}

#[test]
fn clean_one_and_two_units() {
    assert_eq!(decide(&[1.97, 1.99], FMA_UNITS).unwrap().0, 2.0);
    assert_eq!(decide(&[0.99, 1.0], FMA_UNITS).unwrap().0, 1.0);
    assert_eq!(decide(&[3.93, 3.97], FMA_UNITS).unwrap().0, 4.0);
    // Slightly above is as acceptable as slightly below: a clock read a little low.
    assert_eq!(decide(&[2.08, 2.05], FMA_UNITS).unwrap().0, 2.0);
    let p = settle_test(Test::Fma(Width::V256), &quiet(&[1.97, 1.99, 1.98])).unwrap();
    assert_eq!(p.per_cycle, 2.0);
    assert_eq!(
        p.evidence,
        "probe: 2 FMA/cycle, vfmadd231pd ymm (highest consistent reading 1.99 of 3 on cpus 0, 1 (1.97-1.99, spread 1 %))"
    );
    assert_eq!(p.readings, [1.97, 1.99, 1.98]);
    assert!(p.consistent && p.dropped == 0);
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
    let p = settle_test(Test::AmxBf16, &quiet(&[0.0618, 0.0624, 0.0621])).unwrap();
    assert!(
        p.evidence.starts_with("probe: 1/16 tdpbf16ps/cycle"),
        "{}",
        p.evidence
    );
    // AMX's own power licence may leave the FMA chain's clock 20 % off: still 1/16.
    assert_eq!(
        settle_test(Test::AmxInt8, &quiet(&[0.051, 0.052, 0.0515]))
            .unwrap()
            .per_cycle,
        1.0 / 16.0
    );
    assert!(settle_test(Test::AmxInt8, &quiet(&[0.044, 0.045, 0.0445])).is_err());
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
    #[cfg(target_arch = "x86_64")]
    let all = [TESTS, &[Test::FmaShuffleMix]].concat();
    #[cfg(not(target_arch = "x86_64"))]
    let all = TESTS.to_vec();
    for t in all {
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
fn the_highest_consistent_reading_counts_and_a_lone_high_one_does_not() {
    // Issue #31, Zen 4 mul+add: three readings at the pipes' 3.8, three taken while a
    // neighbour shared the core. A disturbance only lowers: 4 it is, and the readings
    // disagree (so this figure could never lower a table either).
    let s = settle(
        &quiet(&[3.82, 3.05, 3.79, 3.10, 3.80, 3.02]),
        FMA_UNITS,
        TOLERANCE,
    )
    .unwrap();
    assert_eq!((s.count, s.best), (4.0, 3.82));
    assert!(!s.consistent);
    assert!((s.spread - 0.8 / 3.82).abs() < 1e-9);
    // One reading spoilt upwards (its clock reading cut short) is corroborated by no
    // other and does not count.
    let s = settle(&quiet(&[2.6, 1.98, 1.97, 1.99]), FMA_UNITS, TOLERANCE).unwrap();
    assert_eq!((s.count, s.best), (2.0, 1.99));
    assert!(!s.consistent, "2.6 snaps to 3");
}

#[test]
fn consistent_low_readings_settle_low() {
    // A one-FMA-unit core, quiet: every reading at 1, so the figure is consistent and
    // may lower a table that says 2 (when the table holds 1 for the class).
    let p = settle_test(
        Test::Fma(Width::V512),
        &quiet(&[0.99, 1.0, 0.98, 0.99, 1.0, 0.99]),
    )
    .unwrap();
    assert_eq!(p.per_cycle, 1.0);
    assert!(p.consistent);
    assert_eq!(p.spread, Some(0.02));
}

#[test]
fn inconsistent_ambiguous_and_disturbed_readings_settle_nothing() {
    // No two readings within 3 % of each other.
    let e = settle(&quiet(&[3.9, 3.5, 3.1, 2.7, 2.3]), FMA_UNITS, TOLERANCE).unwrap_err();
    assert!(e.starts_with("inconsistent: no two of 5 readings"), "{e}");
    // The highest consistent reading sits between 3 and 4.
    let e = settle(&quiet(&[3.45, 3.4, 3.42, 3.1]), FMA_UNITS, TOLERANCE).unwrap_err();
    assert!(
        e.starts_with("ambiguous: highest consistent reading 3.45"),
        "{e}"
    );
    assert!(e.contains("readings 3.45, 3.40, 3.42, 3.10"), "{e}");
    // Issue #31's "3.57/3.49": the highest consistent reading is within 12 % of 4.
    let s = settle(&quiet(&[3.57, 3.49, 3.55]), FMA_UNITS, TOLERANCE).unwrap();
    assert_eq!(s.count, 4.0);
    // Readings whose thread lost its core are left out; too few left: disturbed.
    let mut r = quiet(&[2.0, 1.0, 1.0, 1.0, 2.0]);
    for x in &mut r[1..4] {
        x.kept_core = false;
    }
    let e = settle(&r, FMA_UNITS, TOLERANCE).unwrap_err();
    assert_eq!(
        e,
        "disturbed: only 2 of 5 readings kept their core (2.00, 2.00)"
    );
    // Enough left: they settle, and the left-out ones are counted and said.
    r.push(Reading {
        cpu: Some(1),
        per_cycle: 1.99,
        kept_core: true,
    });
    let p = settle_test(Test::Fma(Width::V256), &r).unwrap();
    assert_eq!((p.per_cycle, p.dropped), (2.0, 3));
    assert!(
        p.evidence.contains("3 left out (thread lost its core)"),
        "{}",
        p.evidence
    );
    assert!(settle(&[], FMA_UNITS, TOLERANCE).is_err());
    assert!(settle(&quiet(&[f64::NAN, 2.0, 2.0]), FMA_UNITS, TOLERANCE).is_err());
}

#[test]
fn the_512_bit_fma_settles_from_both_loops_readings() {
    let p = settle_fma512(
        &quiet(&[1.97, 1.99, 1.98]),
        &quiet(&[0.99, 1.0, 0.98]),
        true,
    )
    .unwrap();
    assert_eq!(p.per_cycle, 2.0);
    assert!(p.evidence.contains("2 units"), "{}", p.evidence);
    assert_eq!(p.readings.len(), 3);
    let e = settle_fma512(&quiet(&[1.97, 1.99, 1.98]), &quiet(&[1.0, 1.4, 1.9]), true).unwrap_err();
    assert!(e.contains("shuffle mix did not"), "{e}");
}

#[cfg(target_arch = "x86_64")]
fn entry(test: Test, per_cycle: f64) -> ProbeEntry {
    ProbeEntry {
        test,
        result: Ok(Probed {
            per_cycle,
            evidence: format!("probe: {per_cycle}"),
            ..Probed::default()
        }),
    }
}

// x86's canonical tests per (pipe, width); aarch64's are `arm_canonical_test`'s.
#[cfg(target_arch = "x86_64")]
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
        other_kinds: Vec::new(),
        cpu: Some(0),
        cpus: vec![0],
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
    if let Some(why) = crate::hw::emulation::emulated() {
        // probe_arm's arm_probe_under_emulation_says_so checks what it says there.
        println!("skipped: emulated CPU, no clock to probe with ({why})");
        return;
    }
    let cpu = CpuInfo::detect();
    let r = run_probe(&cpu);
    eprintln!("{r}");
    assert_eq!(r.entries.len(), tests_here().len());
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
    assert!(r.seconds >= SPREAD_SECS * 0.9, "{}", r.seconds);
    // Cached once per process.
    assert!(std::ptr::eq(probe(&cpu), probe(&cpu)));
}
