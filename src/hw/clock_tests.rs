//! Tests of the clock readings (`clock.rs`): which reading a sample and a peak use,
//! how lowered readings are said.

use super::*;

#[test]
fn each_sample_takes_the_larger_reading_around_it() {
    // Samples between (2.34, 2.40), (2.40, 2.23), (2.23, 2.38): 2.40, 2.40, 2.38.
    let hz = used_hz(&[2.34e9, 2.40e9, 2.23e9, 2.38e9]).unwrap();
    assert!((hz - 7.18e9 / 3.0).abs() < 1.0, "{hz}");
    assert_eq!(max_reading(&[2.34e9, 2.40e9, 2.23e9, 2.38e9]), Some(2.40e9));
    assert_eq!(used_hz(&[2.3e9, 2.3e9]), Some(2.3e9));
    assert_eq!(used_hz(&[2.1e9]), Some(2.1e9));
    assert_eq!(used_hz(&[]), None);
    // A failed or broken reading never becomes the clock.
    assert_eq!(used_hz(&[f64::NAN, 0.0, -1.0, f64::INFINITY]), None);
    assert_eq!(used_hz(&[f64::NAN, 2.2e9, f64::INFINITY]), Some(2.2e9));
}

#[test]
fn peaks_use_the_clock_of_their_width_and_core_count() {
    let c = ClockInfo {
        scalar_hz: Some(4.0e9),
        avx512_hz: Some(3.6e9),
        scalar_all_hz: Some(3.9e9),
        avx512_all_hz: Some(3.5e9),
        ..ClockInfo::default()
    };
    assert_eq!(c.for_peak(ClockKind::Scalar, 1), Some(4.0e9));
    assert_eq!(c.for_peak(ClockKind::Scalar, 2), Some(3.9e9));
    assert_eq!(c.for_peak(ClockKind::Avx512, 1), Some(3.6e9));
    assert_eq!(c.for_peak(ClockKind::Avx512, 8), Some(3.5e9));
    // No AVX2 reading (a report from before it, a CPU without FMA): the add chain.
    assert_eq!(c.for_peak(ClockKind::Avx2, 1), Some(4.0e9));
    assert_eq!(c.for_peak(ClockKind::Avx2, 2), Some(3.9e9));
    let a = ClockInfo {
        avx2_hz: Some(3.7e9),
        avx2_all_hz: Some(3.65e9),
        ..c.clone()
    };
    assert_eq!(a.for_peak(ClockKind::Avx2, 1), Some(3.7e9));
    assert_eq!(a.for_peak(ClockKind::Avx2, 4), Some(3.65e9));
    // No AVX-512 chain (AMD Zen 3, say): wide kernels fall back to the add chain.
    let z = ClockInfo {
        scalar_hz: Some(3.2e9),
        scalar_all_hz: Some(3.1e9),
        ..ClockInfo::default()
    };
    assert_eq!(z.for_peak(ClockKind::Avx512, 2), Some(3.1e9));
    // Reports from before the all-core readings: the one-core clock.
    let old = ClockInfo {
        scalar_hz: Some(3.2e9),
        ..ClockInfo::default()
    };
    assert_eq!(old.for_peak(ClockKind::Scalar, 4), Some(3.2e9));
}

fn r(hz: f64, share: f64) -> Reading {
    Reading {
        hz,
        running_hz: hz / share,
        share,
    }
}

#[test]
fn a_descheduled_reading_does_not_lower_the_clock() {
    // The best of several readings is the largest clean one.
    let b = best_reading([r(3.6e9, 1.0), r(1.9e9, 0.5), r(3.68e9, 0.99)].into_iter());
    assert_eq!(b.hz, 3.68e9);
    // None clean: the one with most of its core, at its running clock.
    let b = best_reading([r(1.8e9, 0.49), r(1.9e9, 0.515)].into_iter());
    assert!(b.descheduled());
    assert!((b.clock() - 1.9e9 / 0.515).abs() < 1.0);
    // The linalg case of the issue: 1.88/1.86 GHz readings at half a core among
    // 3.69 GHz ones; the peak stays at the sustained clock and the note says why.
    let c = case_clock(
        &[
            r(1.88e9, 0.51),
            r(1.86e9, 0.505),
            r(3.69e9, 1.0),
            r(3.69e9, 1.0),
        ],
        Some(3.69e9),
    );
    assert_eq!(c.sustained, Some(3.69e9));
    assert!(c.measured.unwrap() > 3.6e9, "{c:?}");
    assert!(
        c.notes[0].1.starts_with(
            "clock readings before the samples and after each: 1.88, 1.86, 3.69, 3.69 GHz;"
        ),
        "{c:?}"
    );
    assert!(c.notes[1].0);
    assert!(c.notes[1].1.starts_with("clock readings 1.88, 1.86 GHz taken while the chain's thread had 51 % of its core (descheduled, not a slower clock)"), "{}", c.notes[1].1);
    assert_eq!(c.notes.len(), 2, "{c:?}");
}

#[test]
fn a_slower_clean_clock_is_said_and_the_peak_stays_sustained() {
    let c = case_clock(&[r(3.2e9, 1.0), r(3.2e9, 1.0)], Some(3.69e9));
    assert_eq!(c.sustained, Some(3.69e9));
    assert_eq!(c.measured, Some(3.2e9));
    assert!(
        c.notes[0]
            .1
            .ends_with("peak at the sustained 3.690 GHz (the host's all-core reading)"),
        "{c:?}"
    );
    assert!(
        c.notes.iter().any(|(w, t)| *w
            && t.starts_with(
                "taken at a lower clock: 3.20 GHz measured, 13 % below the sustained 3.69 GHz"
            )),
        "{c:?}"
    );
    // No host reading, or a lower one: the highest reading of the case.
    let c = case_clock(&[r(3.7e9, 1.0), r(3.65e9, 1.0)], Some(3.5e9));
    assert_eq!(c.sustained, Some(3.7e9));
    assert!(c.notes[0].1.ends_with("(the highest reading of the case)"));
    assert_eq!(c.notes.len(), 1);
    assert_eq!(case_clock(&[], None).sustained, None);
    assert_eq!(case_clock(&[], Some(3e9)).measured, None);
}

#[test]
fn spread_is_largest_over_smallest() {
    assert_eq!(spread(&[]), None);
    assert_eq!(spread(&[2.3e9]), Some(1.0));
    assert_eq!(spread(&[2.0e9, 2.2e9, 2.1e9]), Some(1.1));
    assert_eq!(spread(&[0.0, 2.0e9, f64::NAN, 2.1e9]), Some(1.05));
    // The reading that made fma_f64_avx512 read 103 % of peak in a quick suite.
    assert!(spread(&[2.23e9, 2.34e9, 2.40e9]).unwrap() > SPREAD_WARN);
    assert!(spread(&[2.34e9, 2.38e9, 2.36e9, 2.39e9]).unwrap() <= SPREAD_WARN);
}

#[test]
fn clock_is_plausible() {
    if !chain_available(ClockKind::Scalar) {
        // Another architecture, or an emulated CPU (its chain would time the emulator).
        eprintln!(
            "skipped: no clock chain here ({})",
            crate::hw::emulation::emulated().unwrap_or_else(|| std::env::consts::ARCH.to_string())
        );
        return;
    }
    // SAFETY: the scalar chain is plain integer adds, on every CPU that has a chain.
    let hz = unsafe { max_hz(chain_fn(ClockKind::Scalar).unwrap(), 3, 0.01) };
    // Any real core runs between 0.3 and 7 GHz; a collapsed chain would read more.
    assert!(hz > 3e8 && hz < 7e9, "measured {hz} Hz");
    if chain_available(ClockKind::Avx512) {
        // SAFETY: `chain_available` checked the CPU has AVX-512.
        let v = unsafe { max_hz(chain_fn(ClockKind::Avx512).unwrap(), 3, 0.01) };
        assert!(v > 3e8 && v < 7e9, "measured {v} Hz under AVX-512");
    }
    if chain_available(ClockKind::Avx2) {
        // SAFETY: `chain_available` checked the CPU has AVX and FMA.
        let v = unsafe { max_hz(chain_fn(ClockKind::Avx2).unwrap(), 3, 0.01) };
        assert!(v > 3e8 && v < 7e9, "measured {v} Hz under 256-bit FMAs");
    }
}
