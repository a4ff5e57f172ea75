//! Columns of each region between two columns of a band, in one binary search over the band's
//! runs: the numbering inside a tile ([`Scheme::triple`], [`Scheme::square`]) counts a tile's
//! squares of one region band by band, and a tile of a populated coast spans dozens of runs
//! per band, so the counts before every run are kept once rather than summed on each call.

use super::{KINDS, Scheme, Tiles};
use crate::grid::{ROWS_PER_BAND, Square};
use crate::regions::Regions;

/// Per run of a region table, the columns of each region of its band before the run starts.
#[derive(Debug, Clone)]
pub(super) struct Columns {
    /// Index of the first run of each band, and the number of runs last.
    first: Vec<u32>,
    /// Per run, columns of each region in its band before it.
    before: Vec<[u32; KINDS]>,
}

impl Columns {
    /// The counts of `regions` (≈ 16 bytes per run).
    pub(super) fn new(regions: &Regions) -> Columns {
        let bands = regions.grid().all_columns().len() as u32;
        let mut first = Vec::with_capacity(bands as usize + 1);
        let mut before = Vec::with_capacity(regions.run_count());
        for b in 0..bands {
            first.push(before.len() as u32);
            let runs = regions.band_runs(b);
            let n = regions.grid().columns(b);
            let mut acc = [0u32; KINDS];
            for (i, run) in runs.iter().enumerate() {
                before.push(acc);
                let end = runs.get(i + 1).map_or(n, |r| r.start);
                if let Some(a) = acc.get_mut(usize::from(run.region)) {
                    *a += end.saturating_sub(run.start);
                }
            }
        }
        first.push(before.len() as u32);
        Columns { first, before }
    }

    /// The counts of band `b`'s runs.
    fn band(&self, b: u32) -> &[[u32; KINDS]] {
        let (from, to) = (self.first[b as usize], self.first[b as usize + 1]);
        &self.before[from as usize..to as usize]
    }

    /// Columns of region `k` in band `b` before column `c` (`c` at most the band's columns).
    fn upto(&self, regions: &Regions, b: u32, c: u32, k: u8) -> u32 {
        let runs = regions.band_runs(b);
        let Some(i) = runs.partition_point(|r| r.start <= c).checked_sub(1) else {
            return 0;
        };
        let run = runs[i];
        let before = self.band(b)[i][usize::from(k)];
        if run.region == k {
            before + (c - run.start)
        } else {
            before
        }
    }

    /// Columns of region `k` of band `b` within `[c0, c1)`.
    pub(super) fn count(&self, regions: &Regions, b: u32, (c0, c1): (u32, u32), k: u8) -> u32 {
        if c1 <= c0 {
            return 0;
        }
        self.upto(regions, b, c1, k) - self.upto(regions, b, c0, k)
    }

    /// The column of the square of rank `rank` (from 0) among the columns of region `k` of
    /// band `b` from `c0` on; `None` past the band's last.
    pub(super) fn nth(&self, regions: &Regions, b: u32, c0: u32, k: u8, rank: u64) -> Option<u32> {
        let target = u64::from(self.upto(regions, b, c0, k)) + rank;
        let counts = self.band(b);
        let i = counts
            .partition_point(|p| u64::from(p[usize::from(k)]) <= target)
            .checked_sub(1)?;
        let runs = regions.band_runs(b);
        let run = runs[i];
        let end = runs
            .get(i + 1)
            .map_or(regions.grid().columns(b), |r| r.start);
        let off = target - u64::from(counts[i][usize::from(k)]);
        (run.region == k && off < u64::from(end - run.start)).then(|| run.start + off as u32)
    }

    /// Squares of each region in a tile ([`super::tile_counts`], from the kept counts).
    pub(super) fn tile_counts(&self, regions: &Regions, tiles: &Tiles, tile: u32) -> [u64; KINDS] {
        let (r, j) = tiles.row_col(tile);
        let (b0, b1) = tiles.bands(r);
        let mut out = [0u64; KINDS];
        for b in b0..b1 {
            let range = tiles.col_range_at(r, j, b);
            for (k, slot) in out.iter_mut().enumerate() {
                *slot +=
                    u64::from(self.count(regions, b, range, k as u8)) * u64::from(ROWS_PER_BAND);
            }
        }
        out
    }
}

impl Scheme {
    /// Index of square `s` among its tile's squares of region `k`.
    pub(super) fn in_tile(&self, tile: u32, k: u8, s: Square) -> u64 {
        let (r, j) = self.tiles.row_col(tile);
        let (b0, _) = self.tiles.bands(r);
        let b = s.band();
        let regions = &self.regions;
        let mut n = 0u64;
        for b2 in b0..b {
            let range = self.tiles.col_range_at(r, j, b2);
            n += u64::from(self.columns.count(regions, b2, range, k)) * u64::from(ROWS_PER_BAND);
        }
        let (c0, c1) = self.tiles.col_range_at(r, j, b);
        let w = self.columns.count(regions, b, (c0, c1), k);
        n += u64::from(s.row - b * ROWS_PER_BAND) * u64::from(w);
        n + u64::from(self.columns.count(regions, b, (c0, s.col), k))
    }

    /// The square of index `n` among the tile's squares of region `k`.
    pub(super) fn square_in_tile(&self, tile: u32, k: u8, mut n: u64) -> Option<Square> {
        let (r, j) = self.tiles.row_col(tile);
        let (b0, b1) = self.tiles.bands(r);
        let regions = &self.regions;
        for b in b0..b1 {
            let (c0, c1) = self.tiles.col_range_at(r, j, b);
            let w = u64::from(self.columns.count(regions, b, (c0, c1), k));
            if n >= w * u64::from(ROWS_PER_BAND) {
                n -= w * u64::from(ROWS_PER_BAND);
                continue;
            }
            let row = b * ROWS_PER_BAND + (n / w) as u32;
            let col = self.columns.nth(regions, b, c0, k, n % w)?;
            return Some(Square { row, col });
        }
        None
    }
}
