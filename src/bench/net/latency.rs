//! The network latency rows' floor (issue #48): `--peak net.latency=…`, else the
//! round-trip floor of the link the test ran over (`hw::latency::net_floor`: the
//! message's serialisation at the link speed of /sys/class/net/*/speed, plus
//! `--distance` at the speed of light in fibre), attached to a finished `tcp_latency`
//! or `udp_latency` row with its efficiency (floor / measured round trip). Also
//! `--distance`'s value parser.

use super::proto::{TestKind, TestSpec};
use crate::bench::peaks::{latency_keys, PeakOverrides};
use crate::hw::latency::{net_floor, NetFloorInput};
use crate::hw::peak::Peak;
use crate::report::model::BenchResult;
use crate::util::units::ParseError;
use std::net::IpAddr;

/// The longest `--distance`: twice round the equator (40,075 km), beyond any cable.
const MAX_DISTANCE_M: f64 = 80_150_000.0;

/// `--distance`: a length with its unit, `1000km`, `300m`, `2.5 km`; at most 80,150 km.
pub(crate) fn distance(text: &str) -> Result<f64, ParseError> {
    let t = text.trim();
    let form = "give a length with its unit, e.g. 1000km or 300m";
    let (num, mult) = if let Some(n) = t.strip_suffix("km") {
        (n, 1000.0)
    } else if let Some(n) = t.strip_suffix('m') {
        (n, 1.0)
    } else {
        return Err(ParseError(format!(
            "'{}' has no unit (m or km); {form}",
            crate::util::sanitize::line_max(text, 40)
        )));
    };
    let v: f64 = num.trim().parse().map_err(|_| {
        ParseError(format!(
            "'{}' is not a length; {form}",
            crate::util::sanitize::line_max(text, 40)
        ))
    })?;
    let m = v * mult;
    if !m.is_finite() || !(0.0..=MAX_DISTANCE_M).contains(&m) {
        return Err(ParseError(format!(
            "'{}' is out of range; a distance goes from 0 to 80150km",
            crate::util::sanitize::line_max(text, 40)
        )));
    }
    Ok(m)
}

/// The floor of a ping-pong of `msg` bytes over `proto` (`tcp`, `udp`) run from local
/// address `local`: the user's `--peak net.latency`, else the link's round-trip floor
/// with `distance_m`.
pub(crate) fn floor(
    (msg, proto): (u64, &str),
    local: IpAddr,
    distance_m: Option<f64>,
    overrides: &PeakOverrides,
) -> Peak {
    if let Some(p) = overrides.peak(&latency_keys("net", None)) {
        return p;
    }
    let link = crate::hw::net::link_of(local);
    let mtu = std::fs::read_to_string(format!("/sys/class/net/{}/mtu", link.name))
        .ok()
        .and_then(|t| t.trim().parse::<u64>().ok());
    net_floor(&NetFloorInput {
        msg,
        proto,
        link: link
            .speed_bps
            .map(|b| (b, link.source.clone()))
            .ok_or(link.source),
        mtu,
        loopback: local.is_loopback(),
        distance_m,
    })
}

/// `r` with the floor of its latency test, when it is one that measured.
pub(crate) fn attach(
    r: BenchResult,
    spec: &TestSpec,
    local: IpAddr,
    distance_m: Option<f64>,
    overrides: &PeakOverrides,
) -> BenchResult {
    if spec.test != TestKind::Latency || !r.is_ok() {
        return r;
    }
    let what = (u64::from(spec.msg), spec.proto.name());
    r.with_peak(floor(what, local, distance_m, overrides))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances_take_m_or_km() {
        assert_eq!(distance("1000km"), Ok(1e6));
        assert_eq!(distance(" 2.5 km"), Ok(2500.0));
        assert_eq!(distance("300m"), Ok(300.0));
        assert_eq!(distance("0m"), Ok(0.0));
        assert_eq!(
            distance("1000").unwrap_err().0,
            "'1000' has no unit (m or km); give a length with its unit, e.g. 1000km or 300m"
        );
        assert_eq!(
            distance("farkm").unwrap_err().0,
            "'farkm' is not a length; give a length with its unit, e.g. 1000km or 300m"
        );
        for bad in ["-1km", "1e9km", "nankm", "5mi"] {
            assert!(distance(bad).is_err(), "{bad}");
        }
    }

    /// On loopback the floor says there is none; `--peak net.latency` replaces it.
    #[test]
    fn loopback_has_no_floor_but_the_user_s() {
        let spec = (64, "tcp");
        let lo: IpAddr = "127.0.0.1".parse().unwrap();
        let p = floor(spec, lo, Some(1e6), &PeakOverrides::default());
        assert_eq!(p.value, None);
        assert!(p.source.contains("loopback has no link"), "{}", p.source);
        let mut o = PeakOverrides::default();
        o.insert(crate::bench::peaks::PeakKey::new("net.latency"), 20e-6);
        let p = floor(spec, lo, None, &o);
        assert_eq!(p.value, Some(20e-6));
        assert_eq!(p.source, "user (--peak net.latency=…)");
    }
}
