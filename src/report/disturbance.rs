//! What the model records about a shared machine (issue #22): the runner's per-sample
//! shares, the window figures of resources without them, the `shared` note and the
//! `disturbed` flag, and the samples `--until-stable` dropped. See `measure::share` for
//! how the figures are taken.

use super::model::{BenchResult, Dropped, Note, NoteKind};
use crate::measure::runner::split_kept;
use crate::measure::{Sample, SampleShare};

/// Fraction of a case in which some task waited for a CPU (`/proc/pressure/cpu`) above
/// which a case with other runnable tasks around it is marked shared.
pub(crate) const WINDOW_PRESSURE: f64 = 0.10;

impl BenchResult {
    /// Sets the samples from the runner: their figures (`value` of each), what the
    /// threads had of their cores, and the `shared machine:` warning when a sample was
    /// disturbed. Under `--until-stable` (`stable`) disturbed samples are left out and
    /// listed in `dropped`, unless none was clean (then all stay, and a note says so).
    pub(crate) fn with_runner_samples(
        self,
        samples: Vec<Sample>,
        stable: bool,
        value: impl Fn(&Sample) -> f64,
    ) -> BenchResult {
        let taken = samples.len();
        let (kept, dropped) = split_kept(samples, stable);
        let mut r = self.with_samples(kept.iter().map(&value).collect());
        r.dropped = dropped
            .iter()
            .map(|(s, why)| Dropped {
                value: value(s),
                why: why.clone(),
            })
            .collect();
        if stable {
            let clean = kept.iter().filter(|s| !s.share.disturbed()).count();
            r.info(if clean == 0 {
                format!("--until-stable: none of {taken} samples was clean within the budget; all are kept and the figure is disturbed")
            } else {
                format!(
                    "--until-stable: {} of {taken} samples kept, {} dropped (a thread lost its core, the host stole time or its canary fell)",
                    kept.len(),
                    r.dropped.len()
                )
            });
        }
        r.with_shares(kept.into_iter().map(|s| s.share).collect())
    }

    /// Records the per-sample shares, and sets `disturbed` and the `shared machine:`
    /// warning when one of them was disturbed.
    pub(crate) fn with_shares(mut self, shares: Vec<SampleShare>) -> BenchResult {
        if let Some(w) = crate::measure::share::warning(&shares) {
            self.disturbed = true;
            self.notes.push(Note::new(NoteKind::Shared, w));
        }
        if let Some(w) = crate::measure::share::contention_warning(&shares) {
            self.disturbed = true;
            self.notes.push(Note::new(NoteKind::Shared, w));
        }
        self.with_energy_of(&shares.iter().collect::<Vec<_>>());
        self.share = shares;
        self
    }

    /// Records the host's figures over the whole case, and marks the result disturbed
    /// when the host stole more than `measure::share::MAX_STEAL` of the CPUs' time, or
    /// when other tasks were runnable around the case and some task waited for a CPU
    /// for at least [`WINDOW_PRESSURE`] of it (issue #31: linalg's library threads, a
    /// software GPU, disk and net know when they were shared). Pressure alone is not
    /// judged (a network or GPU case has busy threads of its own), nor are runnable
    /// tasks alone (a task runnable at the two readings may have been idle between).
    pub(crate) fn with_window(mut self, w: SampleShare) -> BenchResult {
        if let Some(t) = w.throttle.filter(|t| t.throttled > 0) {
            self.disturbed = true;
            self.notes.push(Note::new(
                NoteKind::Shared,
                format!(
                    "container CPU quota: {}; the figure is what the quota allows, not the machine's own",
                    crate::measure::cgroup::throttle_words(&t)
                ),
            ));
        }
        // Under a throttling quota the pressure is the quota's, not other tasks'.
        let others = w.runnable.filter(|r| *r > 0 && !w.throttled());
        let pressure = w.pressure.filter(|p| *p >= WINDOW_PRESSURE);
        if let (Some(n), Some(p), false) = (others, pressure, self.disturbed) {
            self.disturbed = true;
            self.notes.push(Note::new(
                NoteKind::Shared,
                format!(
                    "shared machine: {n} other task{} runnable and CPU pressure {:.0} % during the case; the figure is not the machine's own",
                    if n == 1 { "" } else { "s" },
                    p * 100.0
                ),
            ));
        }
        if let Some(s) = w.steal.filter(|s| *s > crate::measure::share::MAX_STEAL) {
            self.disturbed = true;
            self.notes.push(Note::new(
                NoteKind::Shared,
                format!(
                    "shared machine: the hypervisor stole {:.1} % of the CPUs' time during the case; the figure is not the machine's own",
                    s * 100.0
                ),
            ));
        }
        self.with_energy_of(&[&w]);
        self.window = Some(w);
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::share::ThreadShare;
    use crate::report::model::{Metric, ResourceName, Unit};

    fn sample(rate: f64, share: f64) -> Sample {
        let t = |thread: usize, share: f64, nivcsw: u64| ThreadShare {
            thread,
            cpu: Some(thread - 1),
            share,
            cpu_secs: share,
            wall_secs: 1.0,
            nivcsw,
        };
        Sample {
            work: rate,
            secs: 1.0,
            iters: 1,
            at: 0.0,
            share: SampleShare {
                threads: vec![t(1, 1.0, 0), t(2, share, 40)],
                steal: Some(0.0),
                pressure: Some(0.5),
                runnable: Some(1),
                canary: Vec::new(),
                throttle: None,
                energy: Vec::new(),
            },
        }
    }

    fn r() -> BenchResult {
        BenchResult::new(ResourceName::Cpu, "k", Metric::Ops, Unit::FlopPerSec)
    }

    fn shared_notes(r: &BenchResult) -> Vec<&str> {
        r.notes
            .iter()
            .filter(|n| n.kind == NoteKind::Shared)
            .map(|n| n.text.as_str())
            .collect()
    }

    #[test]
    fn disturbed_samples_are_kept_and_named_without_until_stable() {
        let r = r().with_runner_samples(
            vec![sample(2.0, 1.0), sample(1.0, 0.5), sample(2.0, 0.99)],
            false,
            Sample::rate,
        );
        assert_eq!(r.samples, [2.0, 1.0, 2.0]);
        assert_eq!(r.share.len(), 3);
        assert!(r.disturbed);
        assert!(r.dropped.is_empty());
        let n = shared_notes(&r);
        assert_eq!(n.len(), 1);
        assert!(
            n[0].starts_with("shared machine: 1 of 3 samples disturbed; thread 2 (cpu 1) ran 50 % of the window: 1 other task runnable, CPU pressure 50 %"),
            "{}",
            n[0]
        );
        // The JSON carries the figures; a clean result carries no flag and no note.
        let v = serde_json::to_value(&r).unwrap();
        assert_eq!(v["disturbed"], true);
        assert_eq!(v["share"][1]["threads"][1]["cpu"], 1);
        assert_eq!(v["share"][1]["threads"][1]["nivcsw"], 40);
        let clean = BenchResult::new(ResourceName::Cpu, "k", Metric::Ops, Unit::FlopPerSec)
            .with_runner_samples(
                vec![sample(2.0, 1.0), sample(2.0, 0.99)],
                false,
                Sample::rate,
            );
        let v = serde_json::to_value(&clean).unwrap();
        assert!(v.get("disturbed").is_none() && v.get("dropped").is_none());
        assert!(shared_notes(&clean).is_empty());
    }

    #[test]
    fn until_stable_drops_the_disturbed_and_says_how_many() {
        let r = r().with_runner_samples(
            vec![sample(2.0, 1.0), sample(1.0, 0.5), sample(2.0, 0.99)],
            true,
            Sample::rate,
        );
        assert_eq!(r.samples, [2.0, 2.0]);
        assert!(!r.disturbed);
        assert_eq!(
            r.dropped,
            [Dropped {
                value: 1.0,
                why: "thread 2 (cpu 1) ran 50 % of its window".into()
            }]
        );
        assert!(r.notes.iter().any(|n| n.text
            == "--until-stable: 2 of 3 samples kept, 1 dropped (a thread lost its core, the host stole time or its canary fell)"));
        // Nothing clean: all kept, disturbed, and said.
        let r = BenchResult::new(ResourceName::Cpu, "k", Metric::Ops, Unit::FlopPerSec)
            .with_runner_samples(
                vec![sample(1.0, 0.5), sample(1.0, 0.45)],
                true,
                Sample::rate,
            );
        assert!(r.disturbed && r.dropped.is_empty());
        assert!(r.notes.iter().any(|n| n
            .text
            .starts_with("--until-stable: none of 2 samples was clean")));
    }

    #[test]
    fn a_fallen_canary_marks_the_result_in_its_own_words_and_until_stable_drops_it() {
        use crate::measure::canary::CanaryShare;
        let with_canary = |rate: f64, per_cycle: f64| {
            let mut s = sample(rate, 1.0);
            s.share.canary = vec![CanaryShare {
                cpu: Some(1),
                per_cycle,
                best: 2.0,
            }];
            s
        };
        let c = r().with_runner_samples(
            vec![
                with_canary(1.6, 1.56),
                with_canary(1.6, 1.56),
                with_canary(2.0, 1.99),
            ],
            false,
            Sample::rate,
        );
        assert!(c.disturbed);
        let n = shared_notes(&c);
        assert_eq!(
            n,
            ["host contention: 2 of 3 samples: cpu 1 issued 85 % of its best rate: another tenant on the core or the host was busy; the figure is not the machine's own"]
        );
        let v = serde_json::to_value(&c).unwrap();
        assert_eq!(v["share"][0]["canary"][0]["per_cycle"], 1.56);
        // --until-stable drops the contended samples like disturbed ones.
        let d = r().with_runner_samples(
            vec![
                with_canary(1.6, 1.56),
                with_canary(2.0, 1.99),
                with_canary(2.0, 1.98),
            ],
            true,
            Sample::rate,
        );
        assert_eq!(d.samples, [2.0, 2.0]);
        assert_eq!(
            d.dropped[0].why,
            "host contention: cpu 1 issued 78 % of its best rate"
        );
        assert!(!d.disturbed);
        // A quiet canary marks nothing.
        let q = r().with_runner_samples(
            vec![with_canary(2.0, 1.97), with_canary(2.0, 1.99)],
            false,
            Sample::rate,
        );
        assert!(!q.disturbed && shared_notes(&q).is_empty());
    }

    #[test]
    fn a_window_with_steal_is_disturbed_and_one_without_is_not() {
        let w = SampleShare {
            steal: Some(0.08),
            ..SampleShare::default()
        };
        let r1 = r().with_samples(vec![1.0]).with_window(w);
        assert!(r1.disturbed);
        assert!(
            shared_notes(&r1)[0].contains("stole 8.0 %"),
            "{:?}",
            r1.notes
        );
        let r2 = r().with_samples(vec![1.0]).with_window(SampleShare {
            steal: Some(0.0),
            runnable: Some(3),
            ..SampleShare::default()
        });
        assert!(!r2.disturbed);
        assert_eq!(r2.window.unwrap().runnable, Some(3));
        // Other tasks runnable and CPU pressure: a GEMM, a software GPU, a disk or a
        // net case shared its CPUs (issue #31).
        let r3 = r().with_samples(vec![1.0]).with_window(SampleShare {
            steal: Some(0.0),
            runnable: Some(1),
            pressure: Some(0.45),
            ..SampleShare::default()
        });
        assert!(r3.disturbed);
        assert_eq!(
            shared_notes(&r3),
            ["shared machine: 1 other task runnable and CPU pressure 45 % during the case; the figure is not the machine's own"]
        );
        // Pressure of its own threads alone, or a low pressure: not marked.
        for (runnable, pressure) in [(Some(0), Some(0.9)), (Some(2), Some(0.05))] {
            let q = r().with_samples(vec![1.0]).with_window(SampleShare {
                runnable,
                pressure,
                ..SampleShare::default()
            });
            assert!(!q.disturbed, "{runnable:?} {pressure:?}");
        }
        // Files from before these fields load unchanged.
        let old: BenchResult = serde_json::from_str(
            r#"{"resource":"cpu","workload":"k","params":{},"metric":"ops","unit":"FLOP/s","samples":[1.0],"summary":null,"status":"ok"}"#,
        )
        .unwrap();
        assert!(!old.disturbed && old.share.is_empty() && old.window.is_none());
    }

    /// A sample whose one thread ran half its window, with the quota's counts.
    fn throttled_sample(throttled: u64) -> SampleShare {
        SampleShare {
            threads: vec![ThreadShare {
                thread: 1,
                cpu: Some(0),
                share: 0.5,
                cpu_secs: 0.5,
                wall_secs: 1.0,
                nivcsw: 0,
            }],
            steal: Some(0.0),
            pressure: Some(0.5),
            runnable: Some(3),
            canary: Vec::new(),
            throttle: Some(crate::measure::cgroup::Throttle {
                periods: 10,
                throttled,
                throttled_us: 500_000,
            }),
            energy: Vec::new(),
        }
    }

    #[test]
    fn throttling_is_named_as_the_quota_not_other_tasks() {
        let s = throttled_sample(9);
        assert!(s.disturbed());
        assert!(
            s.why().unwrap().contains(
                "throttled by the container's CPU quota: 9 of 10 periods (0.50 s stopped)"
            ),
            "{:?}",
            s.why()
        );
        let w = crate::measure::share::warning(&[s.clone(), s.clone()]).unwrap();
        assert_eq!(
            w,
            "container CPU quota: 2 of 2 samples throttled: throttled by the container's CPU quota: 18 of 20 periods (1.00 s stopped); thread 1 (cpu 0) ran 50 % of the window; the figure is what the quota allows, not the machine's own"
        );
        // Merged windows add their counts.
        let m = SampleShare::merge(&[(s.clone(), 1.0), (s, 1.0)]);
        assert_eq!(m.throttle.unwrap().throttled, 18);
        // Without a throttled period the other tasks are named, as before.
        let w = crate::measure::share::warning(&[throttled_sample(0)]).unwrap();
        assert!(
            w.starts_with("shared machine:") && w.contains("3 other tasks runnable"),
            "{w}"
        );
        // A window (disk, net, linalg) the quota throttled: the quota, not other tasks.
        let r = r().with_samples(vec![1.0]).with_window(throttled_sample(9));
        assert!(r.disturbed);
        assert_eq!(
            shared_notes(&r),
            ["container CPU quota: throttled by the container's CPU quota: 9 of 10 periods (0.50 s stopped); the figure is what the quota allows, not the machine's own"]
        );
    }
}
