//! The three-word address scheme (`docs/adr/0003-three-word-addresses.md`), version 3
//! (`docs/adr/0009-three-word-scheme-v3.md`).
//!
//! Every ≈ 3 m square of the Earth ([`grid`]) belongs to a region ([`regions`]: dense,
//! populated, land, sea); its number is scrambled by a keyed permutation ([`permute`]);
//! numbers map to triples of word ranks in shells of increasing largest rank ([`shell`]), so
//! populated places get the most common words. Version 3 ([`v3`], re-exported as [`Scheme`])
//! adds word classes and tile signatures so that no listed neighbour of a word lands within
//! 50 km: square ↔ word-rank triple, both ways, in microseconds and without any index of the
//! squares. [`SchemeV2`] is version 2 (one numbering per region, no classes), which no pack is
//! answered with any more.
//!
//! Words themselves are data of the pack; this crate deals in ranks.
pub mod codec;
pub mod forms;
pub mod grid;
pub mod permute;
pub mod regions;
pub mod shell;
pub mod v3;

use grid::Square;
use permute::{Permutation, region_key};
use regions::{REGIONS, Regions};

/// The scheme version the engine answers ([`v3::Scheme`]).
pub const SCHEME_VERSION: u32 = v3::SCHEME_VERSION;

pub use v3::Scheme;
/// Words per language.
pub const WORDS: u64 = 40_000;

/// Square ↔ triple of word ranks, scheme version 2 (ADR 0003 §3–§5): kept as the definition
/// version 3 builds on (its grid, region numbering and shells), not answered.
#[derive(Debug, Clone)]
pub struct SchemeV2 {
    regions: Regions,
    permutations: [Permutation; REGIONS],
    /// First number of each region, and the total last.
    offsets: [u64; REGIONS + 1],
}

/// The scheme cannot be built on these regions.
#[derive(Debug, thiserror::Error)]
#[error("the regions hold {squares} squares, more than the {WORDS}³ word triples")]
pub struct TooManySquares {
    squares: u64,
}

impl SchemeV2 {
    /// The scheme over `regions`.
    pub fn new(regions: Regions) -> Result<SchemeV2, TooManySquares> {
        let mut offsets = [0u64; REGIONS + 1];
        for k in 0..REGIONS {
            offsets[k + 1] = offsets[k] + regions.squares(k);
        }
        if offsets[REGIONS] > WORDS * WORDS * WORDS {
            return Err(TooManySquares {
                squares: offsets[REGIONS],
            });
        }
        let permutations =
            std::array::from_fn(|k| Permutation::new(regions.squares(k).max(1), region_key(k)));
        Ok(SchemeV2 {
            regions,
            permutations,
            offsets,
        })
    }

    /// The regions.
    pub fn regions(&self) -> &Regions {
        &self.regions
    }

    /// Squares in all (numbers at or above are not addresses).
    pub fn squares(&self) -> u64 {
        self.offsets[REGIONS]
    }

    /// The first number of region `k` (`k = REGIONS` gives the total).
    pub fn offset(&self, k: usize) -> u64 {
        self.offsets[k]
    }

    /// The number of square `s`.
    pub fn number(&self, s: Square) -> u64 {
        let (k, n) = self.regions.locate(s);
        self.offsets[k as usize] + self.permutations[k as usize].apply(n)
    }

    /// The region of the square numbered `t` (from the number alone: regions own consecutive
    /// ranges of numbers), `None` when `t` is not an address.
    pub fn region_of_number(&self, t: u64) -> Option<u8> {
        if t >= self.squares() {
            return None;
        }
        (0..REGIONS)
            .rev()
            .find(|&k| self.offsets[k] <= t)
            .map(|k| k as u8)
    }

    /// The region of the square of word ranks `ranks`, `None` when they name no square.
    pub fn region_of(&self, ranks: [u64; 3]) -> Option<u8> {
        if ranks.iter().any(|&r| r >= WORDS) {
            return None;
        }
        self.region_of_number(shell::number(ranks))
    }

    /// The square numbered `t`, `None` when `t` is not an address.
    pub fn square_of_number(&self, t: u64) -> Option<Square> {
        if t >= self.squares() {
            return None;
        }
        let k = (0..REGIONS).rev().find(|&k| self.offsets[k] <= t)?;
        let n = self.permutations[k].invert(t - self.offsets[k]);
        self.regions.square(k as u8, n)
    }

    /// The word ranks of square `s`.
    pub fn triple(&self, s: Square) -> [u64; 3] {
        shell::triple(self.number(s))
    }

    /// The square of word ranks `ranks`, `None` when they name no square.
    pub fn square(&self, ranks: [u64; 3]) -> Option<Square> {
        if ranks.iter().any(|&r| r >= WORDS) {
            return None;
        }
        self.square_of_number(shell::number(ranks))
    }
}

#[cfg(test)]
mod tests;
