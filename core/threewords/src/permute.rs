//! A keyed bijection of `[0, n)` (ADR 0003 §4): a balanced Feistel network on the smallest
//! even bit width covering `n`, with cycle walking.

use sha2::{Digest, Sha256};

/// Feistel rounds.
const ROUNDS: u64 = 8;

/// The finaliser of SplitMix64.
pub fn splitmix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The key of region `k`: the first 8 bytes, big-endian, of
/// `SHA-256("waymark threewords v1 region k")`.
pub fn region_key(k: usize) -> u64 {
    let d = Sha256::digest(format!("waymark threewords v1 region {k}").as_bytes());
    let mut b = [0u8; 8];
    b.copy_from_slice(&d[..8]);
    u64::from_be_bytes(b)
}

/// The permutation of `[0, n)` under `key`.
#[derive(Debug, Clone, Copy)]
pub struct Permutation {
    n: u64,
    key: u64,
    /// Bits of each half.
    half: u32,
    mask: u64,
}

impl Permutation {
    /// The permutation of `[0, n)` (`1 ≤ n ≤ 2⁶²`).
    pub fn new(n: u64, key: u64) -> Permutation {
        let bits = 64 - n.saturating_sub(1).leading_zeros();
        let half = bits.div_ceil(2).max(1);
        Permutation {
            n,
            key,
            half,
            mask: (1u64 << half) - 1,
        }
    }

    /// Domain size.
    pub fn len(&self) -> u64 {
        self.n
    }

    /// Whether the domain is empty.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    fn round(&self, i: u64, x: u64) -> u64 {
        splitmix64(self.key ^ (i << 56) ^ x) & self.mask
    }

    fn encrypt(&self, v: u64) -> u64 {
        let (mut l, mut r) = (v >> self.half, v & self.mask);
        for i in 0..ROUNDS {
            (l, r) = (r, l ^ self.round(i, r));
        }
        (l << self.half) | r
    }

    fn decrypt(&self, v: u64) -> u64 {
        let (mut l, mut r) = (v >> self.half, v & self.mask);
        for i in (0..ROUNDS).rev() {
            (l, r) = (r ^ self.round(i, l), l);
        }
        (l << self.half) | r
    }

    /// The image of `x < n`.
    pub fn apply(&self, x: u64) -> u64 {
        let mut y = self.encrypt(x);
        while y >= self.n {
            y = self.encrypt(y);
        }
        y
    }

    /// The preimage of `y < n`.
    pub fn invert(&self, y: u64) -> u64 {
        let mut x = self.decrypt(y);
        while x >= self.n {
            x = self.decrypt(x);
        }
        x
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn small_domains_are_permuted_exactly() {
        for n in [1u64, 2, 3, 7, 16, 17, 1000, 4097] {
            let p = Permutation::new(n, region_key(0));
            let mut seen = vec![false; n as usize];
            for x in 0..n {
                let y = p.apply(x);
                assert!(y < n);
                assert!(!seen[y as usize], "{n}: {y} twice");
                seen[y as usize] = true;
                assert_eq!(p.invert(y), x);
            }
        }
    }

    #[test]
    fn neighbours_are_scattered() {
        let p = Permutation::new(10_000_000_000_000, region_key(1));
        let far = (0..10_000u64)
            .filter(|x| p.apply(*x).abs_diff(p.apply(x + 1)) > 1_000_000)
            .count();
        assert!(far > 9_990, "{far}");
    }

    proptest! {
        #[test]
        fn inverse_of_apply(n in 1u64..(1 << 50), x in any::<u64>(), k in 0usize..3) {
            let p = Permutation::new(n, region_key(k));
            let x = x % n;
            let y = p.apply(x);
            prop_assert!(y < n);
            prop_assert_eq!(p.invert(y), x);
        }
    }
}
