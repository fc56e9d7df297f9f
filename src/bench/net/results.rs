//! Turns both ends' views of a finished test into a `BenchResult`: samples from the
//! receiver's intervals (throughput) or the pinger's (latency), the sender's view,
//! UDP loss/reordering/jitter, CPU time of both ends, the link peak and both ends'
//! raw reports under `ends`.

use super::client::Outcome;
use super::engine::LatencyOut;
use super::proto::{Direction, EndReport, Proto, SentCount, TestKind, TestSpec};
use crate::bench::resource::Context;
use crate::hw::peak::Peak;
use crate::measure::Percentiles;
use crate::report::model::{BenchResult, Metric, ResourceName, Unit};
use crate::util::units::format_si;

/// The result skeleton of a case, before anything ran.
pub(crate) fn base(spec: &TestSpec) -> BenchResult {
    let (metric, unit) = match spec.test {
        TestKind::Throughput => (Metric::Throughput, Unit::BytePerSec),
        TestKind::Latency => (Metric::Latency, Unit::Second),
    };
    let workload = format!("{}_{}", spec.proto.name(), spec.test.name());
    let mut r = BenchResult::new(ResourceName::Net, &workload, metric, unit)
        .param("proto", spec.proto.name())
        .param("test", spec.test.name())
        .size("msg", u64::from(spec.msg))
        .param("streams", spec.streams);
    if spec.test == TestKind::Throughput {
        r = r.param(
            "direction",
            match spec.direction {
                Direction::Up => "up",
                Direction::Down => "reverse",
                Direction::Bidir => "bidir",
            },
        );
    }
    if let Some(rate) = spec.rate_bps {
        r = r.param("rate", rate);
    }
    if spec.zerocopy {
        r = r.param("zerocopy", true);
    }
    // The knobs, only when given, so that a run without them keeps its params.
    if let Some(w) = spec.window {
        r = r.param("window", u64::from(w));
    }
    if let Some(c) = &spec.congestion {
        r = r.param("congestion", c.as_str());
    }
    if let Some(m) = spec.mss {
        r = r.param("mss", u64::from(m));
    }
    if let Some(b) = spec.bytes {
        r = r.param("bytes", b);
    }
    if spec.omit_ms != super::proto::DEFAULT_OMIT.as_millis() as u64 {
        r = r.param("omit_ms", spec.omit_ms);
    }
    r
}

fn rates(iv: &[(f64, u64)]) -> Vec<f64> {
    iv.iter()
        .filter(|(t, _)| *t > 0.0)
        .map(|(t, b)| *b as f64 / t)
        .collect()
}

/// The failures of a case whose stream stalled within a window (a thread the scheduler
/// held up, a paused process or VM): the case is worth one more try, unlike a peer
/// that is gone or refuses.
const STALLS: [&str; 3] = [
    "moved no payload",
    "no timed interval was measured",
    "no round trip completed after the warm-up",
];

/// The error of `r` when it failed because a window stalled ([`STALLS`]).
pub(crate) fn stall(r: &BenchResult) -> Option<String> {
    match &r.status {
        crate::report::model::Status::Failed { error }
            if STALLS.iter().any(|s| error.contains(s)) =>
        {
            Some(error.clone())
        }
        _ => None,
    }
}

/// Runs a case (`once`) and, when it failed on a stalled window, once more, saying so
/// on the result (issue #32 item 1: a window that moved nothing is never ok; it is
/// failed with its reason, or retried).
pub(crate) fn with_one_retry(once: impl Fn() -> BenchResult) -> BenchResult {
    let r = once();
    match stall(&r) {
        None => r,
        Some(why) => {
            let mut again = once();
            again.warn(format!("retried once: the first try stalled ({why})"));
            again
        }
    }
}

/// Why the receiver's timed intervals `iv` cannot stand as a figure: none measured,
/// or one that moved no payload (issue #32 item 1: a window that moved no bytes is
/// never a rate of 0 B/s with status ok). `None` when every interval moved bytes.
fn stalled(iv: &[(f64, u64)], label: &str) -> Option<String> {
    if iv.is_empty() {
        return Some(format!(
            "no timed interval was measured {label}: the receiver counted no payload"
        ));
    }
    let empty = iv.iter().filter(|(_, b)| *b == 0).count();
    (empty > 0).then(|| {
        format!(
            "{empty} of {} timed intervals moved no payload {label}: the stream stalled (a peer held up by a loaded machine?)",
            iv.len()
        )
    })
}

fn gbit(bps: f64) -> String {
    format!("{:.2} Gbit/s", bps * 8.0 / 1e9)
}

fn mean(v: &[f64]) -> f64 {
    if v.is_empty() {
        0.0
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

/// Streams with ids in `ids` (bidir: one direction's streams).
fn sum(
    r: &EndReport,
    ids: &std::ops::Range<u32>,
    f: impl Fn(&super::proto::StreamStats) -> u64,
) -> u64 {
    r.streams
        .iter()
        .filter(|s| ids.contains(&s.id))
        .map(f)
        .fold(0u64, u64::saturating_add)
}

/// Loss, reordering and jitter of the receiving end's UDP streams in `ids`.
fn udp_note(
    recv: &EndReport,
    sent: &[SentCount],
    ids: &std::ops::Range<u32>,
) -> (String, u64, u64) {
    let received = sum(recv, ids, |s| s.udp.as_ref().map_or(0, |u| u.received));
    let reordered = sum(recv, ids, |s| s.udp.as_ref().map_or(0, |u| u.reordered));
    let sent_n = sent
        .iter()
        .filter(|c| ids.contains(&c.id))
        .map(|c| c.msgs)
        .fold(0u64, u64::saturating_add);
    let jit: Vec<f64> = recv
        .streams
        .iter()
        .filter(|s| ids.contains(&s.id))
        .filter_map(|s| s.udp.as_ref().map(|u| u.jitter_s))
        .collect();
    let lost = sent_n.saturating_sub(received);
    let pct = if sent_n > 0 {
        100.0 * lost as f64 / sent_n as f64
    } else {
        0.0
    };
    (
        format!(
            "UDP: {lost} of {sent_n} datagrams lost ({pct:.2} %), {reordered} reordered, jitter {} (RFC 3550, mean over streams)",
            format_si(mean(&jit), "s")
        ),
        lost,
        sent_n,
    )
}

fn cpu_note(o: &Outcome) -> String {
    let l = &o.local.report;
    let r = &o.remote;
    let pct = |c: f64, w: f64| if w > 0.0 { 100.0 * c / w } else { 0.0 };
    format!(
        "CPU time of the stream threads: client {:.2} s ({:.0} % of one core), server {:.2} s ({:.0} %)",
        l.cpu_s,
        pct(l.cpu_s, l.wall_s),
        r.cpu_s,
        pct(r.cpu_s, r.wall_s)
    )
}

/// For scale on loopback: single-core memcpy bandwidth of `msg`-sized blocks (at
/// least 64 KiB), measured for ~50 ms. Loopback TCP copies every byte twice (into the
/// kernel and out), so it cannot exceed about half of this per stream.
fn memcpy_note(msg: usize) -> String {
    use crate::measure::clock::Tick;
    let n = msg.max(64 * 1024);
    let src = super::tcp::payload(n);
    let mut dst = vec![0u8; n];
    let t0 = Tick::now();
    let mut bytes = 0u64;
    while Tick::now().secs_since(t0) < 0.05 {
        dst.copy_from_slice(std::hint::black_box(&src));
        std::hint::black_box(&mut dst);
        bytes += n as u64;
    }
    let bw = bytes as f64 / Tick::now().secs_since(t0);
    format!(
        "loopback has no link speed; for scale, memcpy of {} blocks runs at {} on one core here (loopback copies each byte twice)",
        crate::util::units::format_size(n as u64),
        format_si(bw, "B/s")
    )
}

/// The `--peak` key `net` (the link speed): the one spelling of the key this resource
/// looks up and accepts.
pub(crate) fn peak_key() -> crate::bench::peaks::PeakKey {
    crate::bench::peaks::PeakKey::new("net")
}

fn peak(o: &Outcome, spec: &TestSpec, ctx: &Context) -> Option<(Peak, Option<String>)> {
    if spec.test != TestKind::Throughput {
        return None;
    }
    let link = crate::hw::net::link_of(o.local_addr.ip());
    // Already in B/s: bench::peaks converts a link speed in bit/s.
    if let Some(p) = ctx.opts.peaks.peak(&[peak_key()]) {
        return Some((p, None));
    }
    let extra = o
        .local_addr
        .ip()
        .is_loopback()
        .then(|| memcpy_note(spec.msg as usize));
    Some(match link.speed_bps {
        // Link speed is bits per second on the wire; the result unit is payload B/s.
        Some(bps) => (
            Peak {
                value: Some(bps / 8.0),
                source: format!(
                    "{} (payload cannot reach it: headers take a few %)",
                    link.source
                ),
            },
            extra,
        ),
        None => (Peak::unknown(link.source), extra),
    })
}

fn latency_result(mut r: BenchResult, l: Option<LatencyOut>, o: &Outcome) -> BenchResult {
    let Some(l) = l else {
        return r.failed("no round trips were recorded");
    };
    let samples: Vec<f64> = l
        .per_interval
        .iter()
        .filter(|(_, n)| *n > 0)
        .map(|(s, n)| s / *n as f64)
        .collect();
    if samples.len() < l.per_interval.len() {
        r.warn(format!(
            "{} of {} intervals had no complete round trip",
            l.per_interval.len() - samples.len(),
            l.per_interval.len()
        ));
    }
    let h = &l.hist;
    if h.is_empty() {
        return r.failed("no round trip completed after the warm-up");
    }
    let q = |x: f64| h.value_at_quantile(x) as f64 * 1e-9;
    r.percentiles = Some(Percentiles {
        p50: q(0.50),
        p90: q(0.90),
        p99: q(0.99),
        p99_9: q(0.999),
        max: h.max() as f64 * 1e-9,
    });
    r.info(format!(
        "round trip (sockperf prints RTT/2): {} round trips, p50 {} (one-way {}), p99 {}",
        h.len(),
        format_si(q(0.5), "s"),
        format_si(q(0.5) / 2.0, "s"),
        format_si(q(0.99), "s")
    ));
    if l.lost > 0 {
        r.warn(format!(
            "{} of {} pings got no reply within 200 ms (counted lost, not in the percentiles)",
            l.lost, l.sent
        ));
    }
    r.info(cpu_note(o));
    r.with_samples(samples)
}

/// Builds the result of a finished case.
pub(crate) fn build(mut r: BenchResult, spec: &TestSpec, o: Outcome, ctx: &Context) -> BenchResult {
    r.ends = Some(serde_json::json!({
        "local": { "role": "client", "address": o.local_addr.to_string(), "report": o.local.report },
        "remote": { "role": "server", "host": o.remote_host, "report": o.remote },
    }));
    if spec.test == TestKind::Latency {
        let mut o = o;
        let l = o.local.latency.take();
        return latency_result(r, l, &o);
    }
    let n = spec.streams;
    // (receiver report, its intervals, sender report, its intervals, peer-sent counts
    // as the receiver learned them, stream ids, label)
    let up = 0..n;
    let down = if spec.direction == Direction::Bidir {
        n..2 * n
    } else {
        0..n
    };
    let local_sent = o.local_sent();
    let (recv, send, sent_counts, ids, label) = match spec.direction {
        Direction::Up | Direction::Bidir => {
            (&o.remote, &o.local.report, &local_sent, up, "client→server")
        }
        Direction::Down => (
            &o.local.report,
            &o.remote,
            &o.local.peer_sent,
            down.clone(),
            "server→client",
        ),
    };
    let recv_bytes = sum(recv, &ids, |s| s.recv_bytes);
    let sent_bytes = sum(send, &ids, |s| s.sent_bytes);
    let samples = rates(&recv.recv_intervals);
    let sender = mean(&rates(&send.sent_intervals));
    r.info(format!(
        "counted at the receiver (payload bytes, as iperf3): {} {label}; sender view {}; totals: sent {sent_bytes} B, received {recv_bytes} B",
        gbit(mean(&samples)),
        gbit(sender)
    ));
    if spec.direction == Direction::Bidir {
        let rb = sum(&o.local.report, &down, |s| s.recv_bytes);
        let sb = sum(&o.remote, &down, |s| s.sent_bytes);
        r.info(format!(
            "bidir, server→client at the same time: {} (received {rb} B of {sb} B sent)",
            gbit(mean(&rates(&o.local.report.recv_intervals)))
        ));
        if spec.proto == Proto::Tcp && rb != sb {
            return r.failed(format!(
                "TCP byte counts disagree server→client: sent {sb} B, received {rb} B"
            ));
        }
    }
    if let Some(why) = stalled(&recv.recv_intervals, label) {
        return r.failed(why);
    }
    if spec.direction == Direction::Bidir {
        if let Some(why) = stalled(&o.local.report.recv_intervals, "server→client") {
            return r.failed(why);
        }
    }
    if samples.len() < spec.intervals as usize {
        r.warn(format!(
            "{} timed intervals measured instead of {}: the receiver's sampler woke late (a loaded machine) and merged intervals",
            samples.len(),
            spec.intervals
        ));
    }
    if spec.proto == Proto::Tcp && recv_bytes != sent_bytes {
        return r.failed(format!(
            "TCP byte counts disagree: sent {sent_bytes} B, received {recv_bytes} B"
        ));
    }
    if spec.proto == Proto::Udp {
        let (note, lost, sent) = udp_note(recv, sent_counts, &ids);
        r.info(note);
        r.loss = Some(crate::report::model::Loss { lost, sent });
    }
    r.info(cpu_note(&o));
    if spec.zerocopy && o.local_addr.ip().is_loopback() {
        r.warn("zero-copy on loopback: no NIC reads the pages, so the kernel copies them anyway and the completions only add work; use --zerocopy between hosts");
    }
    let pk = peak(&o, spec, ctx);
    let mut r = r.with_samples(samples);
    if let Some((p, extra)) = pk {
        if let Some(e) = extra {
            r.info(e);
        }
        r = r.with_peak(p);
    }
    r
}

impl Outcome {
    /// What this end sent, as SentCount (the receiver's "peer sent" when it is the
    /// server: the server learned it from our SenderDone).
    fn local_sent(&self) -> Vec<SentCount> {
        self.local
            .report
            .streams
            .iter()
            .map(|s| SentCount {
                id: s.id,
                msgs: s.sent_msgs,
                bytes: s.sent_bytes,
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::common::{self, CommonArgs};
    use crate::bench::net::engine::Finished;
    use crate::bench::net::proto::StreamStats;

    fn spec() -> TestSpec {
        TestSpec {
            interval_ms: 333,
            ..crate::bench::net::test_support::spec()
        }
    }

    /// The 0.000 B/s "ok" of issue #32 item 1: 579 MB crossed, all of it outside the
    /// receiver's timed intervals.
    fn outcome(recv_iv: Vec<(f64, u64)>) -> Outcome {
        let bytes = 579_000_000;
        let local = EndReport {
            streams: vec![StreamStats {
                sent_bytes: bytes,
                ..Default::default()
            }],
            sent_intervals: vec![(0.333, 0); 3],
            wall_s: 1.5,
            cpu_s: 1.0,
            ..Default::default()
        };
        let remote = EndReport {
            streams: vec![StreamStats {
                recv_bytes: bytes,
                ..Default::default()
            }],
            recv_intervals: recv_iv,
            wall_s: 1.5,
            cpu_s: 1.0,
            ..Default::default()
        };
        Outcome {
            local: Finished {
                report: local,
                latency: None,
                peer_sent: Vec::new(),
            },
            remote,
            remote_host: serde_json::Value::Null,
            local_addr: ([127, 0, 0, 1], 1).into(),
        }
    }

    #[test]
    fn a_window_that_moved_no_bytes_is_never_ok() {
        let host = crate::report::samples::host();
        let opts = common::parse(&CommonArgs::default(), false).unwrap();
        let ctx = Context {
            host: &host,
            opts: &opts,
        };
        let s = spec();
        let zero = build(base(&s), &s, outcome(vec![(0.333, 0); 3]), &ctx);
        assert!(!zero.is_ok(), "{:?}", zero.status);
        assert!(
            stall(&zero).unwrap().contains("3 of 3"),
            "{:?}",
            zero.status
        );
        // One empty interval among moving ones fails too; none measured fails.
        let one = build(
            base(&s),
            &s,
            outcome(vec![(0.333, 1 << 20), (0.333, 0), (0.333, 1 << 20)]),
            &ctx,
        );
        assert!(stall(&one).is_some(), "{:?}", one.status);
        let none = build(base(&s), &s, outcome(Vec::new()), &ctx);
        assert!(stall(&none).is_some(), "{:?}", none.status);
        // Intervals that all moved bytes stand (merged ones are said).
        let fine = build(
            base(&s),
            &s,
            outcome(vec![(0.333, 193_000_000), (0.666, 386_000_000)]),
            &ctx,
        );
        assert!(fine.is_ok(), "{:?}", fine.status);
        assert!(fine.notes.iter().any(|n| n.text.contains("merged")));
    }

    #[test]
    fn a_stalled_case_is_tried_once_more_and_says_so() {
        let s = spec();
        let calls = std::cell::Cell::new(0);
        let r = with_one_retry(|| {
            calls.set(calls.get() + 1);
            if calls.get() == 1 {
                base(&s).failed("no round trip completed after the warm-up")
            } else {
                base(&s).with_samples(vec![1.0])
            }
        });
        assert_eq!(calls.get(), 2);
        assert!(r.is_ok());
        assert!(r.notes.iter().any(|n| n.text.starts_with("retried once")));
        // Other failures (a peer gone) are not retried.
        calls.set(0);
        let r = with_one_retry(|| {
            calls.set(calls.get() + 1);
            base(&s).failed("cannot connect")
        });
        assert_eq!(calls.get(), 1);
        assert!(!r.is_ok());
    }
}
