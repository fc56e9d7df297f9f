//! The all-pairs schedule of `peakbench net --matrix`: every ordered pair of hosts
//! (sender → receiver) exactly once, in rounds where no host is in two pairs, so the
//! links measured at the same time never share an end.
//!
//! Circle method (the round-robin tournament of Kirkman and Lucas): with `m` players
//! (`n`, or `n + 1` with a bye when `n` is odd) player `m − 1` stays fixed and the
//! others turn one place per round; round `r` pairs `r` with the fixed player and
//! `(r + k) mod (m − 1)` with `(r − k) mod (m − 1)` for `k = 1 … m/2 − 1`. That gives
//! every unordered pair once in `m − 1` rounds; the same rounds again with each pair
//! reversed give the other direction, so `2 (m − 1)` rounds in all and `⌊n/2⌋` links
//! at once (a pair with the bye is dropped: that host rests).

/// One round: `(sender, receiver)` pairs, no host twice.
pub(crate) type Round = Vec<(usize, usize)>;

/// The rounds for `n` hosts (numbered `0..n`); none for fewer than 2.
pub(crate) fn rounds(n: usize) -> Vec<Round> {
    if n < 2 {
        return Vec::new();
    }
    // `m` players, even; the player `n` (when m > n) is the bye.
    let m = n + n % 2;
    let turn = m - 1;
    let mut half: Vec<Round> = Vec::with_capacity(turn);
    for r in 0..turn {
        let mut round = Vec::with_capacity(m / 2);
        // Alternate which end sends, so that each host sends about as often as it
        // receives within the first half too.
        let fixed = if r % 2 == 0 { (r, m - 1) } else { (m - 1, r) };
        round.push(fixed);
        for k in 1..m / 2 {
            let a = (r + k) % turn;
            let b = (r + turn - k) % turn;
            round.push(if k % 2 == 0 { (a, b) } else { (b, a) });
        }
        round.retain(|&(a, b)| a < n && b < n);
        half.push(round);
    }
    let back: Vec<Round> = half
        .iter()
        .map(|r| r.iter().map(|&(a, b)| (b, a)).collect())
        .collect();
    half.extend(back);
    half
}

/// Number of rounds for `n` hosts: `2 (m − 1)` with `m` = `n` rounded up to even.
#[cfg(test)]
pub(crate) fn round_count(n: usize) -> usize {
    if n < 2 {
        0
    } else {
        2 * (n + n % 2 - 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_ordered_pair_once_and_no_host_twice_in_a_round() {
        for n in 2..=64 {
            let rs = rounds(n);
            assert_eq!(rs.len(), round_count(n), "n={n}");
            let mut seen = vec![vec![0u32; n]; n];
            for (i, r) in rs.iter().enumerate() {
                let mut busy = vec![false; n];
                for &(a, b) in r {
                    assert!(a < n && b < n && a != b, "n={n} round {i}: ({a},{b})");
                    assert!(!busy[a] && !busy[b], "n={n} round {i}: host twice");
                    busy[a] = true;
                    busy[b] = true;
                    seen[a][b] += 1;
                }
                // Every host but the one with the bye is busy.
                assert_eq!(r.len(), n / 2, "n={n} round {i}");
            }
            for (a, row) in seen.iter().enumerate() {
                for (b, &k) in row.iter().enumerate() {
                    assert_eq!(k, u32::from(a != b), "n={n}: pair ({a},{b}) {k} times");
                }
            }
        }
    }

    #[test]
    fn small_cases() {
        assert!(rounds(0).is_empty() && rounds(1).is_empty());
        assert_eq!(rounds(2), [vec![(0, 1)], vec![(1, 0)]]);
        // Three hosts: a bye each round, 6 rounds of one pair.
        let r3 = rounds(3);
        assert_eq!(r3.len(), 6);
        assert!(r3.iter().all(|r| r.len() == 1));
        assert_eq!(round_count(64), 126);
        assert_eq!(round_count(1024), 2046);
        assert_eq!(round_count(1023), 2046);
    }

    #[test]
    fn senders_and_receivers_are_balanced_in_the_first_half() {
        // Not required for correctness; keeps one end from sending all first.
        let n = 8;
        let rs = rounds(n);
        let mut sends = vec![0i32; n];
        for r in &rs[..rs.len() / 2] {
            for &(a, _) in r {
                sends[a] += 1;
            }
        }
        assert!(sends.iter().all(|&s| (2..=5).contains(&s)), "{sends:?}");
    }
}
