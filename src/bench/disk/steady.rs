//! `--ss CRIT:LIMIT%` with `--ss-dur` and `--ss-ramp`: fio's steady-state stop rule
//! (`ss=iops_slope:0.1%`, `ss_dur`, `ss_ramp`) beside `--sustain`. A `--sustain` run is
//! sampled every second; once the last `--ss-dur` seconds (none of the first
//! `--ss-ramp` ones) meet the criterion, every job stops and the row says at which
//! second steady state was reached; when they never do, the run goes on to the end of
//! `--sustain` and the row says it was not reached.
//!
//! The criteria are fio's, on the per-second IOPS or bandwidth of all jobs together:
//! - `iops`, `bw`: every second within LIMIT % of the window's mean;
//! - `iops_slope`, `bw_slope`: the least-squares slope of the window, per second, as a
//!   percentage of its mean, below LIMIT in magnitude.
//!
//! How the jobs agree without a monitor thread: each job publishes a second's counts
//! when its first completion of a later second arrives ([`Steady::publish`]); the job
//! whose publication completes a second for all jobs judges the window ending there.
//! When it is met, the kept seconds become those every job has published so far (the
//! furthest job's), so no job has counted, nor merged into its latency histogram, a
//! second beyond them; the jobs stop at the end of that second.

use crate::util::units::{parse_duration, ParseError};
use crate::util::usage::UsageError;
use clap::Args;
use serde::{Serialize, Serializer};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

/// What the criterion reads per second.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SsMetric {
    /// Completed I/Os per second.
    Iops,
    /// Bytes per second.
    Bw,
}

/// One `--ss` criterion: fio's name and a limit in percent of the window's mean.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Criterion {
    /// IOPS or bandwidth.
    pub(crate) metric: SsMetric,
    /// The least-squares slope (else the largest deviation from the mean).
    pub(crate) slope: bool,
    /// The limit, % of the mean (per second for a slope).
    pub(crate) limit_pct: f64,
}

impl Criterion {
    /// fio's name: `iops`, `iops_slope`, `bw`, `bw_slope`.
    pub(crate) fn name(&self) -> &'static str {
        match (self.metric, self.slope) {
            (SsMetric::Iops, false) => "iops",
            (SsMetric::Iops, true) => "iops_slope",
            (SsMetric::Bw, false) => "bw",
            (SsMetric::Bw, true) => "bw_slope",
        }
    }

    /// As on the command line and for fio's `--ss`: `iops_slope:0.1%`.
    pub(crate) fn text(&self) -> String {
        format!("{}:{}%", self.name(), self.limit_pct)
    }

    /// The criterion's value over `ys` (one value per second), in % of the mean (per
    /// second for a slope), and whether it is below the limit. `None` with fewer than
    /// two seconds or a mean of zero (nothing moved: never steady).
    pub(crate) fn judge(&self, ys: &[f64]) -> Option<(f64, bool)> {
        let n = ys.len() as f64;
        if ys.len() < 2 {
            return None;
        }
        let mean = ys.iter().sum::<f64>() / n;
        if mean <= 0.0 || !mean.is_finite() {
            return None;
        }
        let v = if self.slope {
            // Least squares over x = 0, 1, …, n−1 (fio's x are the seconds).
            let sx: f64 = (0..ys.len()).map(|i| i as f64).sum();
            let sxx: f64 = (0..ys.len()).map(|i| (i * i) as f64).sum();
            let sxy: f64 = ys.iter().enumerate().map(|(i, y)| i as f64 * y).sum();
            let sy = mean * n;
            let slope = (sxy - sx * sy / n) / (sxx - sx * sx / n);
            100.0 * slope / mean
        } else {
            100.0 * ys.iter().map(|y| (y - mean).abs()).fold(0.0, f64::max) / mean
        };
        Some((v, v.abs() < self.limit_pct))
    }
}

impl Serialize for Criterion {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.text())
    }
}

/// The steady-state flags of `peakbench disk` (flattened into its options).
#[derive(Debug, Clone, Default, Args, Serialize, PartialEq)]
pub(crate) struct SteadyFlags {
    /// Stop a --sustain run once steady, as fio --ss: iops, iops_slope, bw or bw_slope, a limit in % of the mean, e.g. iops_slope:0.1%
    #[arg(long = "ss", value_name = "CRIT:LIMIT%", value_parser = criterion)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) ss: Option<Criterion>,
    /// Seconds the --ss criterion is judged over, as fio --ss_dur [default: 10s]
    #[arg(long = "ss-dur", value_name = "DUR", value_parser = whole_secs)]
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "crate::bench::common::secs_opt",
        rename = "ss_dur_s"
    )]
    pub(crate) ss_dur: Option<Duration>,
    /// First seconds of a --sustain run that --ss does not judge, as fio --ss_ramp [default: 0s]
    #[arg(long = "ss-ramp", value_name = "DUR", value_parser = whole_secs_or_zero)]
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "crate::bench::common::secs_opt",
        rename = "ss_ramp_s"
    )]
    pub(crate) ss_ramp: Option<Duration>,
}

/// `--ss-dur` when not given.
pub(crate) const DEFAULT_DUR: u64 = 10;

/// `--ss`: fio's `iops`, `iops_slope`, `bw`, `bw_slope` with a limit in %.
fn criterion(text: &str) -> Result<Criterion, ParseError> {
    let t = text.trim().to_ascii_lowercase();
    let bad_name = || {
        ParseError(format!(
            "unknown criterion in '{text}'; accepted: iops,iops_slope,bw,bw_slope with a limit in % of the mean, e.g. iops_slope:0.1%"
        ))
    };
    let (name, limit) = t.split_once(':').ok_or_else(bad_name)?;
    let (metric, slope) = match name {
        "iops" => (SsMetric::Iops, false),
        "iops_slope" => (SsMetric::Iops, true),
        "bw" => (SsMetric::Bw, false),
        "bw_slope" => (SsMetric::Bw, true),
        _ => return Err(bad_name()),
    };
    let pct = limit.strip_suffix('%').ok_or_else(|| {
        ParseError(format!(
            "'{text}': give the limit in % of the mean, e.g. {name}:0.1% (fio's absolute limits are not taken)"
        ))
    })?;
    match pct.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 && v <= 100.0 => Ok(Criterion {
            metric,
            slope,
            limit_pct: v,
        }),
        _ => Err(ParseError(format!(
            "'{text}': the limit is a percentage above 0 and at most 100, e.g. {name}:0.1%"
        ))),
    }
}

/// A duration of whole seconds (the criterion's samples are seconds).
fn secs(text: &str, least: u64) -> Result<Duration, ParseError> {
    let d = parse_duration(text)?;
    if d.subsec_nanos() != 0 || d.as_secs() < least {
        return Err(ParseError(format!(
            "'{text}': steady state is judged on whole seconds; give at least {least}s in whole seconds, e.g. 30s"
        )));
    }
    Ok(d)
}

/// `--ss-dur`: whole seconds, at least 2 (a slope needs two points).
fn whole_secs(text: &str) -> Result<Duration, ParseError> {
    secs(text, 2)
}

/// `--ss-ramp`: whole seconds, 0 allowed.
fn whole_secs_or_zero(text: &str) -> Result<Duration, ParseError> {
    if text.trim().trim_end_matches('s').parse::<f64>() == Ok(0.0) {
        return Ok(Duration::ZERO);
    }
    secs(text, 0)
}

impl SteadyFlags {
    /// The window, in seconds.
    pub(crate) fn dur(&self) -> u64 {
        self.ss_dur.map_or(DEFAULT_DUR, |d| d.as_secs())
    }

    /// The seconds not judged.
    pub(crate) fn ramp(&self) -> u64 {
        self.ss_ramp.map_or(0, |d| d.as_secs())
    }

    /// The checks that span flags: `--ss-dur`/`--ss-ramp` with `--ss`, `--ss` with
    /// `--sustain`, and the window within the run.
    pub(crate) fn check(&self, sustain: Option<Duration>) -> Result<(), UsageError> {
        let Some(c) = self.ss else {
            for (given, flag) in [
                (self.ss_dur.is_some(), "--ss-dur"),
                (self.ss_ramp.is_some(), "--ss-ramp"),
            ] {
                if given {
                    return Err(UsageError::new(
                        flag,
                        "sets the window of --ss; add --ss, e.g. --ss iops_slope:0.1%",
                    ));
                }
            }
            return Ok(());
        };
        let Some(sustain) = sustain else {
            return Err(UsageError::new(
                "--ss",
                "stops a --sustain run once steady; add --sustain DUR, the longest it may run (e.g. --sustain 10m)",
            ));
        };
        let (dur, ramp) = (self.dur(), self.ramp());
        if ramp + dur > sustain.as_secs() {
            return Err(UsageError::new(
                "--ss-dur",
                format!(
                    "{ramp} s of --ss-ramp and {dur} s of window do not fit in --sustain {} s; give a longer --sustain or a shorter --ss-dur ({} judged with {})",
                    sustain.as_secs(),
                    dur,
                    c.text()
                ),
            ));
        }
        Ok(())
    }
}

/// What the jobs of one `--ss` case share.
pub(crate) struct Steady {
    crit: Criterion,
    dur: usize,
    ramp: usize,
    /// Seconds per window (1 under `--sustain`), to turn counts into rates.
    win_s: f64,
    /// Windows kept: the jobs stop at the end of window `cap − 1`.
    cap: AtomicUsize,
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    ios: Vec<u64>,
    bytes: Vec<u64>,
    /// Windows each job has published.
    published: Vec<usize>,
    /// Windows every job has published.
    complete: usize,
    /// The last judgement: (windows judged up to, value in %, met).
    last: Option<(usize, f64, bool)>,
}

/// How a `--ss` case ended, for its rows' note.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Outcome {
    /// The criterion as given.
    pub(crate) crit: Criterion,
    /// Seconds judged.
    pub(crate) dur: usize,
    /// The last judgement: (seconds from the start it covered up to, value %, met).
    pub(crate) last: Option<(usize, f64, bool)>,
    /// Seconds kept (the row's samples).
    pub(crate) kept: usize,
    /// Seconds the run could take.
    pub(crate) windows: usize,
}

impl Steady {
    /// The shared state of `jobs` jobs over `windows` windows of `window`.
    pub(crate) fn new(
        f: &SteadyFlags,
        jobs: usize,
        windows: usize,
        window: Duration,
    ) -> Option<Steady> {
        let crit = f.ss?;
        Some(Steady {
            crit,
            dur: f.dur() as usize,
            ramp: f.ramp() as usize,
            win_s: window.as_secs_f64(),
            cap: AtomicUsize::new(windows),
            inner: Mutex::new(Inner {
                ios: vec![0; windows],
                bytes: vec![0; windows],
                published: vec![0; jobs],
                ..Inner::default()
            }),
        })
    }

    /// Windows kept so far (the jobs stop at the end of the last one).
    pub(crate) fn cap(&self) -> usize {
        self.cap.load(Ordering::Acquire)
    }

    /// Job `job` publishes its windows up to `upto` (exclusive) from `counts` (ios,
    /// bytes per window); a publication that completes windows for every job judges
    /// them. Returns the windows kept after it.
    pub(crate) fn publish(&self, job: usize, upto: usize, counts: &[(u64, u64)]) -> usize {
        let mut g = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let n = g.ios.len();
        let from = g.published[job];
        let upto = upto.min(n);
        for (w, &(ios, bytes)) in counts.iter().enumerate().take(upto).skip(from) {
            g.ios[w] += ios;
            g.bytes[w] += bytes;
        }
        g.published[job] = g.published[job].max(upto);
        let all = g.published.iter().copied().min().unwrap_or(0);
        while g.complete < all {
            g.complete += 1;
            let end = g.complete;
            if self.cap() < n || end < self.ramp + self.dur {
                continue;
            }
            let src = match self.crit.metric {
                SsMetric::Iops => &g.ios,
                SsMetric::Bw => &g.bytes,
            };
            let ys: Vec<f64> = src[end - self.dur..end]
                .iter()
                .map(|&v| v as f64 / self.win_s)
                .collect();
            if let Some((v, met)) = self.crit.judge(&ys) {
                g.last = Some((end, v, met));
                if met {
                    // Keep what the furthest job has published: no job has counted a
                    // later window, so every kept one is whole and none is cut.
                    let furthest = g.published.iter().copied().max().unwrap_or(end);
                    self.cap.store(furthest.max(end), Ordering::Release);
                }
            }
        }
        self.cap()
    }

    /// How the case ended.
    pub(crate) fn outcome(&self) -> Outcome {
        let g = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        Outcome {
            crit: self.crit,
            dur: self.dur,
            last: g.last,
            kept: self.cap(),
            windows: g.ios.len(),
        }
    }
}

impl Outcome {
    /// The rows' note: whether steady state was reached, when, and by how much.
    pub(crate) fn note(&self) -> String {
        let c = &self.crit;
        let unit = if c.slope { " per second" } else { "" };
        match self.last {
            Some((at, v, true)) => format!(
                "steady state reached (--ss {}, fio's ss): at {at} s the last {} s had {} {v:.3} %{unit} of the mean, below {} %; stopped after {} s of {}",
                c.text(),
                self.dur,
                if c.slope { "a slope of" } else { "a largest deviation of" },
                c.limit_pct,
                self.kept,
                self.windows
            ),
            Some((at, v, false)) => format!(
                "steady state NOT reached (--ss {}, fio's ss) in {} s: the last judged {} s (to {at} s) had {} {v:.3} %{unit} of the mean, limit {} %",
                c.text(),
                self.windows,
                self.dur,
                if c.slope { "a slope of" } else { "a largest deviation of" },
                c.limit_pct
            ),
            None => format!(
                "steady state NOT reached (--ss {}, fio's ss) in {} s: no window of {} s was judged (no I/O completed, or the run ended first)",
                c.text(),
                self.windows,
                self.dur
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::flags::try_args;

    fn c(text: &str) -> Criterion {
        criterion(text).unwrap()
    }

    #[test]
    fn criteria_are_fios() {
        assert_eq!(c("iops_slope:0.1%").text(), "iops_slope:0.1%");
        assert_eq!(c("BW:10%").name(), "bw");
        // A flat series: no slope, no deviation.
        let flat = [100.0; 5];
        assert_eq!(c("iops_slope:0.1%").judge(&flat), Some((0.0, true)));
        assert_eq!(c("iops:1%").judge(&flat), Some((0.0, true)));
        // 100, 101, 102, 103, 104: slope 1 per second, mean 102 → 0.98 %/s.
        let rising = [100.0, 101.0, 102.0, 103.0, 104.0];
        let (v, met) = c("iops_slope:1%").judge(&rising).unwrap();
        assert!((v - 100.0 / 102.0).abs() < 1e-9, "{v}");
        assert!(met);
        assert!(!c("iops_slope:0.5%").judge(&rising).unwrap().1);
        // Largest deviation: |104 − 102| / 102.
        let (v, met) = c("iops:2%").judge(&rising).unwrap();
        assert!((v - 200.0 / 102.0).abs() < 1e-9 && met, "{v}");
        // A falling series has a negative slope, judged by its magnitude.
        let falling: Vec<f64> = rising.iter().rev().copied().collect();
        assert!(c("iops_slope:1%").judge(&falling).unwrap().0 < 0.0);
        // Nothing moved, or one second: not judged.
        assert_eq!(c("iops:1%").judge(&[0.0, 0.0]), None);
        assert_eq!(c("iops:1%").judge(&[5.0]), None);
    }

    #[test]
    fn bad_values_give_their_line() {
        let flags = |argv: &[&str]| try_args::<SteadyFlags>(argv);
        for (argv, line) in [
            (&["--ss", "lat:1%"][..], "--ss: unknown criterion in 'lat:1%'; accepted: iops,iops_slope,bw,bw_slope with a limit in % of the mean, e.g. iops_slope:0.1%"),
            (&["--ss", "iops_slope:0.1"], "--ss: 'iops_slope:0.1': give the limit in % of the mean, e.g. iops_slope:0.1% (fio's absolute limits are not taken)"),
            (&["--ss", "iops:0%"], "--ss: 'iops:0%': the limit is a percentage above 0 and at most 100, e.g. iops:0.1%"),
            (&["--ss-dur", "1s"], "--ss-dur: '1s': steady state is judged on whole seconds; give at least 2s in whole seconds, e.g. 30s"),
            (&["--ss-ramp", "1500ms"], "--ss-ramp: '1500ms': steady state is judged on whole seconds; give at least 0s in whole seconds, e.g. 30s"),
        ] {
            assert_eq!(flags(argv).unwrap_err().0, line, "{argv:?}");
        }
        let ten = Some(Duration::from_secs(10));
        let f = flags(&["--ss-dur", "5s"]).unwrap();
        assert_eq!(
            f.check(ten).unwrap_err().0,
            "--ss-dur: sets the window of --ss; add --ss, e.g. --ss iops_slope:0.1%"
        );
        let f = flags(&["--ss", "iops_slope:0.1%"]).unwrap();
        assert_eq!(
            f.check(None).unwrap_err().0,
            "--ss: stops a --sustain run once steady; add --sustain DUR, the longest it may run (e.g. --sustain 10m)"
        );
        assert!(f.check(ten).is_ok());
        let f = flags(&["--ss", "bw:5%", "--ss-dur", "8s", "--ss-ramp", "3s"]).unwrap();
        assert_eq!(
            f.check(ten).unwrap_err().0,
            "--ss-dur: 3 s of --ss-ramp and 8 s of window do not fit in --sustain 10 s; give a longer --sustain or a shorter --ss-dur (8 judged with bw:5%)"
        );
    }

    /// Two jobs publish out of step: nothing is judged before both have published a
    /// second, the ramp is skipped, and once met the kept seconds are the furthest
    /// job's, never fewer than the judged ones.
    #[test]
    fn jobs_agree_on_the_stop() {
        let f = try_args::<SteadyFlags>(&["--ss", "iops:1%", "--ss-dur", "3s", "--ss-ramp", "1s"])
            .unwrap();
        let s = Steady::new(&f, 2, 10, Duration::from_secs(1)).unwrap();
        // Job 0: a ramp second of 10 I/Os, then 100 per second.
        let a: Vec<(u64, u64)> = [10, 100, 100, 100, 100, 100]
            .iter()
            .map(|&n| (n, n * 4096))
            .collect();
        let b = a.clone();
        // Job 0 runs ahead to 5 windows; nothing is complete for both yet.
        assert_eq!(s.publish(0, 5, &a), 10);
        assert_eq!(s.outcome().last, None);
        // Job 1 publishes 3: seconds 1..3 are judged only once 4 are complete.
        assert_eq!(s.publish(1, 3, &b), 10);
        assert_eq!(s.outcome().last, None);
        // Job 1 publishes its 4th: seconds 1, 2, 3 flat → met; keep job 0's 5.
        assert_eq!(s.publish(1, 4, &b), 5);
        let o = s.outcome();
        assert_eq!(o.last, Some((4, 0.0, true)));
        assert_eq!(o.kept, 5);
        assert!(o.note().starts_with("steady state reached (--ss iops:1%, fio's ss): at 4 s the last 3 s had a largest deviation of 0.000 % of the mean, below 1 %; stopped after 5 s of 10"), "{}", o.note());
        // A later publication changes nothing.
        assert_eq!(s.publish(1, 6, &b), 5);
    }

    #[test]
    fn not_reached_says_so() {
        let f = try_args::<SteadyFlags>(&["--ss", "iops_slope:0.1%", "--ss-dur", "2s"]).unwrap();
        let s = Steady::new(&f, 1, 3, Duration::from_secs(1)).unwrap();
        let rising: Vec<(u64, u64)> = [100, 200, 300].iter().map(|&n| (n, n)).collect();
        assert_eq!(s.publish(0, 3, &rising), 3);
        let o = s.outcome();
        assert_eq!(o.kept, 3);
        assert!(o.note().starts_with("steady state NOT reached (--ss iops_slope:0.1%, fio's ss) in 3 s: the last judged 2 s (to 3 s) had a slope of 40.000 % per second"), "{}", o.note());
    }
}
