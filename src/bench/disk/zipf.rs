//! `--distribution zipf:THETA` (fio `random_distribution=zipf:THETA`): random patterns
//! pick blocks with Zipf-distributed popularity instead of uniformly, so a few blocks
//! take most of the I/O (a cache-friendly, database-like load).
//!
//! The ranks come from the generator fio uses (Gray et al., "Quickly generating
//! billion-record synthetic databases", SIGMOD 1994): ζ(n, θ) summed once over the
//! blocks (at most [`MAX_ZETA_TERMS`] terms, as fio caps it), then one uniform draw per
//! I/O. Rank r is then spread over the file by a hash, as fio does, so the hot blocks
//! are not all at the start of the file.

use clap::Args;
use serde::{Serialize, Serializer};

/// Most terms of ζ(n, θ) summed (fio's `ZIPF_MAX_GEN`); beyond, the tail is left out.
const MAX_ZETA_TERMS: u64 = 10_000_000;

/// The distribution flag of `peakbench disk` (flattened into its options).
#[derive(Debug, Clone, Default, Args, Serialize, PartialEq)]
pub(crate) struct DistributionFlags {
    /// Block popularity of the random patterns: zipf:THETA (THETA > 0, not 1), as fio --random_distribution=zipf:THETA [default: uniform]
    #[arg(long = "distribution", value_name = "zipf:THETA", value_parser = distribution)]
    #[serde(
        rename = "distribution",
        skip_serializing_if = "Option::is_none",
        serialize_with = "as_text"
    )]
    pub(crate) zipf_theta: Option<f64>,
}

fn as_text<S: Serializer>(t: &Option<f64>, s: S) -> Result<S::Ok, S::Error> {
    match t {
        Some(t) => s.serialize_str(&format!("zipf:{t}")),
        None => s.serialize_none(),
    }
}

/// `--distribution zipf:THETA`.
fn distribution(text: &str) -> Result<f64, crate::util::units::ParseError> {
    let bad = || {
        crate::util::units::ParseError(format!(
            "'{text}' is not a distribution; use zipf:THETA with THETA above 0 and not 1, e.g. zipf:1.2"
        ))
    };
    let theta: f64 = text
        .trim()
        .strip_prefix("zipf:")
        .ok_or_else(bad)?
        .parse()
        .map_err(|_| bad())?;
    if !theta.is_finite() || theta <= 0.0 || (theta - 1.0).abs() < 1e-9 || theta > 100.0 {
        return Err(bad());
    }
    Ok(theta)
}

/// A Zipf(θ) block picker over `n` blocks.
#[derive(Debug, Clone)]
pub(crate) struct Zipf {
    n: u64,
    theta: f64,
    zetan: f64,
    alpha: f64,
    eta: f64,
}

impl Zipf {
    /// The picker over `n` ≥ 1 blocks.
    pub(crate) fn new(n: u64, theta: f64) -> Zipf {
        let n = n.max(1);
        let zeta = |k: u64| (1..=k).map(|i| 1.0 / (i as f64).powf(theta)).sum::<f64>();
        let zetan = zeta(n.min(MAX_ZETA_TERMS));
        let zeta2 = zeta(2.min(n));
        let alpha = 1.0 / (1.0 - theta);
        let eta = if n > 1 {
            (1.0 - (2.0 / n as f64).powf(1.0 - theta)) / (1.0 - zeta2 / zetan)
        } else {
            0.0
        };
        Zipf {
            n,
            theta,
            zetan,
            alpha,
            eta,
        }
    }

    /// The rank (0 = most popular) for a uniform draw `u` in [0, 1).
    fn rank(&self, u: f64) -> u64 {
        let uz = u * self.zetan;
        if uz < 1.0 {
            return 0;
        }
        if uz < 1.0 + 0.5f64.powf(self.theta) {
            return 1;
        }
        let r = (self.n as f64 * (self.eta * u - self.eta + 1.0).powf(self.alpha)) as u64;
        r.min(self.n - 1)
    }

    /// The block for 64 random bits: the rank, spread over the file by a hash.
    pub(crate) fn block(&self, bits: u64) -> u64 {
        let u = (bits >> 11) as f64 / (1u64 << 53) as f64;
        let r = self.rank(u);
        // splitmix64's finaliser: ranks next to each other land far apart.
        let mut x = r.wrapping_add(0x9E37_79B9_7F4A_7C15);
        x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        (x ^ (x >> 31)) % self.n
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::util::rng::XorShift;

    /// θ = 1.2 over 10 000 blocks: every pick is a block of the file, the hottest block
    /// takes far more than its uniform share, and ranks follow Zipf's law (rank 0 about
    /// 2^1.2 ≈ 2.3 times as often as rank 1).
    #[test]
    fn picks_follow_zipf() {
        let z = Zipf::new(10_000, 1.2);
        let mut rng = XorShift::seeded(7);
        let mut count = std::collections::HashMap::<u64, u64>::new();
        let draws = 200_000;
        for _ in 0..draws {
            let b = z.block(rng.next_u64());
            assert!(b < 10_000);
            *count.entry(b).or_default() += 1;
        }
        let mut c: Vec<u64> = count.values().copied().collect();
        c.sort_unstable_by(|a, b| b.cmp(a));
        // Uniform would give 20 per block; Zipf(1.2)'s first rank takes 1 / ζ ≈ 20 %.
        assert!(c[0] > draws / 10, "{:?}", &c[..5]);
        let ratio = c[0] as f64 / c[1] as f64;
        assert!((1.5..3.5).contains(&ratio), "{ratio}");
        assert!(Zipf::new(1, 0.5).block(u64::MAX) == 0);
    }

    #[test]
    fn bad_values_give_their_line() {
        use crate::bench::flags::try_args;
        for bad in ["zipf:1", "zipf:0", "pareto:0.5", "zipf:x"] {
            let e = try_args::<DistributionFlags>(&["--distribution", bad])
                .unwrap_err()
                .0;
            assert_eq!(e, format!("--distribution: '{bad}' is not a distribution; use zipf:THETA with THETA above 0 and not 1, e.g. zipf:1.2"));
        }
        let ok = try_args::<DistributionFlags>(&["--distribution", "zipf:1.2"]).unwrap();
        assert_eq!(ok.zipf_theta, Some(1.2));
        assert_eq!(
            serde_json::to_value(&ok).unwrap(),
            serde_json::json!({"distribution": "zipf:1.2"})
        );
    }
}
