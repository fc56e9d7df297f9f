//! The data peakbench writes: incompressible, non-dedupable, and a pure function of
//! (run seed, file, generation, byte position), so any block can be checked after the
//! fact without keeping a copy.
//!
//! Every 8-byte word is SplitMix64 of a per-(seed, file, generation) key plus the word's
//! index: statistically random (no compressor or dedup engine shrinks it) and cheap
//! (≈ 1 ns per word). A *generation* is bumped for every writing case, so a block that
//! still holds an older generation after a write case is detected as a lost write.

const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;

#[inline]
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[inline]
fn key(seed: u64, file_id: u32, gen: u16) -> u64 {
    mix(seed ^ mix(((file_id as u64) << 16 | gen as u64).wrapping_add(GOLDEN)))
}

/// Fills `buf`, which sits at byte `off` (a multiple of 8) of file `file_id`, with
/// generation `gen`'s content.
pub(crate) fn fill(buf: &mut [u8], seed: u64, file_id: u32, off: u64, gen: u16) {
    let k = key(seed, file_id, gen);
    let first = off / 8;
    for (i, w) in buf.chunks_exact_mut(8).enumerate() {
        let v = mix(k.wrapping_add((first + i as u64 + 1).wrapping_mul(GOLDEN)));
        w.copy_from_slice(&v.to_le_bytes());
    }
}

/// Whether `buf` at byte `off` of file `file_id` holds generation `gen`'s content.
pub(crate) fn check(buf: &[u8], seed: u64, file_id: u32, off: u64, gen: u16) -> bool {
    let k = key(seed, file_id, gen);
    let first = off / 8;
    buf.chunks_exact(8).enumerate().all(|(i, w)| {
        let v = mix(k.wrapping_add((first + i as u64 + 1).wrapping_mul(GOLDEN)));
        w == v.to_le_bytes()
    })
}

/// Per-unit generations of one file, for `--verify`: `gens[i]` is the generation
/// expected in bytes `[i·unit, (i+1)·unit)`.
#[derive(Debug, Clone)]
pub(crate) struct Gens {
    /// Bytes per tracked unit (the gcd of the block sizes).
    pub unit: u64,
    /// Generation per unit.
    pub gens: Vec<u16>,
}

impl Gens {
    /// All units at generation 0 (what the fill writes).
    pub(crate) fn new(file_size: u64, unit: u64) -> Gens {
        Gens {
            unit,
            gens: vec![0; (file_size / unit) as usize],
        }
    }

    /// Records that `[off, off+len)` now holds generation `gen`.
    pub(crate) fn set(&mut self, off: u64, len: u64, gen: u16) {
        let (a, b) = (
            (off / self.unit) as usize,
            ((off + len) / self.unit) as usize,
        );
        if let Some(s) = self.gens.get_mut(a..b) {
            s.fill(gen);
        }
    }

    /// The generation expected in the unit at byte `o` (0, the initial fill, past the
    /// end).
    fn gen_at(&self, o: u64) -> u16 {
        self.gens
            .get((o / self.unit) as usize)
            .copied()
            .unwrap_or(0)
    }

    /// Fills `buf` (at `off`) with the expected content, unit by unit.
    #[cfg(test)]
    pub(crate) fn fill(&self, buf: &mut [u8], seed: u64, file_id: u32, off: u64) {
        for (i, c) in buf.chunks_mut(self.unit as usize).enumerate() {
            let o = off + i as u64 * self.unit;
            fill(c, seed, file_id, o, self.gen_at(o));
        }
    }

    /// Offset of the first unit in `buf` (at `off`) that differs from the expected
    /// content, or `None` when all match.
    pub(crate) fn first_bad(&self, buf: &[u8], seed: u64, file_id: u32, off: u64) -> Option<u64> {
        buf.chunks(self.unit as usize)
            .enumerate()
            .find_map(|(i, c)| {
                let o = off + i as u64 * self.unit;
                (!check(c, seed, file_id, o, self.gen_at(o))).then_some(o)
            })
    }
}

/// Greatest common divisor (the verify unit of several block sizes).
pub(crate) fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn position_dependent_and_checkable() {
        let mut a = vec![0u8; 4096];
        fill(&mut a, 1, 0, 4096, 3);
        assert!(check(&a, 1, 0, 4096, 3));
        assert!(!check(&a, 1, 0, 0, 3), "another offset differs");
        assert!(!check(&a, 1, 1, 4096, 3), "another file differs");
        assert!(!check(&a, 1, 0, 4096, 4), "another generation differs");
        // A sub-range is the same content at its own offset.
        let mut b = vec![0u8; 512];
        fill(&mut b, 1, 0, 4096 + 1024, 3);
        assert_eq!(&a[1024..1536], &b[..]);
    }

    #[test]
    fn incompressible_enough() {
        // Byte histogram of 1 MiB is flat: no byte value above 1.2x its share.
        let mut a = vec![0u8; 1 << 20];
        fill(&mut a, 9, 2, 0, 0);
        let mut h = [0u32; 256];
        for &x in &a {
            h[x as usize] += 1;
        }
        let share = (a.len() / 256) as u32;
        assert!(h.iter().all(|&c| c < share * 12 / 10 && c > share * 8 / 10));
    }

    #[test]
    fn gens_track_units() {
        let mut g = Gens::new(16384, 4096);
        g.set(4096, 8192, 5);
        assert_eq!(g.gens, vec![0, 5, 5, 0]);
        let mut buf = vec![0u8; 16384];
        g.fill(&mut buf, 1, 0, 0);
        assert_eq!(g.first_bad(&buf, 1, 0, 0), None);
        buf[5000] ^= 1;
        assert_eq!(g.first_bad(&buf, 1, 0, 0), Some(4096));
        assert_eq!(gcd(4096, 1 << 20), 4096);
        assert_eq!(gcd(12288, 8192), 4096);
    }
}
