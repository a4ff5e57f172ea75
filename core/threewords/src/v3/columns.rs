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
}

/// Per tile holding squares of more than one region, the columns of each region in each of
/// its bands: the numbering inside such a tile sums whole bands from this table and searches
/// the runs of one band only. A tile of one region needs no table (its squares of that region
/// are all its columns); neither does a tile with more columns in a band than a `u16` holds
/// (next to the poles), which is counted from the runs.
#[derive(Debug, Clone)]
pub(super) struct TileWidths {
    /// Per tile: its region when it holds one only, [`MIXED`] when its bands are in `widths`,
    /// [`RUNS`] when they are counted from the runs.
    only: Vec<u8>,
    /// Per tile of [`MIXED`], the index of its first band in `widths`.
    first: Vec<u32>,
    /// Columns of each region, per band of each tile of [`MIXED`].
    widths: Vec<[u16; KINDS]>,
}

/// [`TileWidths::only`] of a tile whose bands' columns are kept.
const MIXED: u8 = u8::MAX;
/// [`TileWidths::only`] of a tile counted from the runs.
const RUNS: u8 = u8::MAX - 1;

/// How the squares of a tile are counted.
pub(super) enum TileKinds<'a> {
    /// All its squares are of this region.
    Only(u8),
    /// Columns of each region in each of its bands.
    Widths(&'a [[u16; KINDS]]),
    /// From the runs of the region table.
    Runs,
}

impl TileWidths {
    /// The table of every tile, and each tile's squares of each region.
    pub(super) fn new(
        regions: &Regions,
        tiles: &Tiles,
        columns: &Columns,
    ) -> (TileWidths, Vec<[u64; KINDS]>) {
        let n = tiles.count() as usize;
        let mut table = TileWidths {
            only: Vec::with_capacity(n),
            first: vec![u32::MAX; n],
            widths: Vec::new(),
        };
        let mut counts = Vec::with_capacity(n);
        let mut bands = Vec::with_capacity(super::G as usize);
        for tile in 0..tiles.count() {
            let (r, j) = tiles.row_col(tile);
            let (b0, b1) = tiles.bands(r);
            bands.clear();
            let mut total = [0u64; KINDS];
            for b in b0..b1 {
                let range = tiles.col_range_at(r, j, b);
                let w: [u32; KINDS] =
                    std::array::from_fn(|k| columns.count(regions, b, range, k as u8));
                for k in 0..KINDS {
                    total[k] += u64::from(w[k]) * u64::from(ROWS_PER_BAND);
                }
                bands.push(w);
            }
            counts.push(total);
            let present: Vec<usize> = (0..KINDS).filter(|&k| total[k] > 0).collect();
            let only = match present.as_slice() {
                [k] => *k as u8,
                _ if bands.iter().flatten().all(|&w| w <= u32::from(u16::MAX)) => {
                    table.first[tile as usize] = table.widths.len() as u32;
                    table
                        .widths
                        .extend(bands.iter().map(|w| w.map(|c| c as u16)));
                    MIXED
                }
                _ => RUNS,
            };
            table.only.push(only);
        }
        (table, counts)
    }

    /// How the squares of `tile` (of `bands` bands) are counted.
    pub(super) fn kinds(&self, tile: u32, bands: u32) -> TileKinds<'_> {
        match self.only.get(tile as usize).copied() {
            Some(MIXED) => {
                let from = self.first[tile as usize] as usize;
                match self.widths.get(from..from + bands as usize) {
                    Some(w) => TileKinds::Widths(w),
                    None => TileKinds::Runs,
                }
            }
            Some(RUNS) | None => TileKinds::Runs,
            Some(k) => TileKinds::Only(k),
        }
    }
}

impl Scheme {
    /// Index of square `s` among its tile's squares of region `k`.
    pub(super) fn in_tile(&self, tile: u32, k: u8, s: Square) -> u64 {
        let (r, j) = self.tiles.row_col(tile);
        let (b0, b1) = self.tiles.bands(r);
        let b = s.band();
        let rows = u64::from(ROWS_PER_BAND);
        let in_band = u64::from(s.row - b * ROWS_PER_BAND);
        let regions = &self.regions;
        match self.widths.kinds(tile, b1 - b0) {
            TileKinds::Only(only) if only == k => {
                let mut n = 0u64;
                for b2 in b0..b {
                    let (c0, c1) = self.tiles.col_range_at(r, j, b2);
                    n += u64::from(c1 - c0) * rows;
                }
                let (c0, c1) = self.tiles.col_range_at(r, j, b);
                n + in_band * u64::from(c1 - c0) + u64::from(s.col - c0)
            }
            TileKinds::Widths(w) => {
                let k = usize::from(k);
                let i = (b - b0) as usize;
                let before: u64 = w[..i].iter().map(|c| u64::from(c[k])).sum();
                let (c0, _) = self.tiles.col_range_at(r, j, b);
                before * rows
                    + in_band * u64::from(w[i][k])
                    + u64::from(self.columns.count(regions, b, (c0, s.col), k as u8))
            }
            _ => {
                let mut n = 0u64;
                for b2 in b0..b {
                    let range = self.tiles.col_range_at(r, j, b2);
                    n += u64::from(self.columns.count(regions, b2, range, k)) * rows;
                }
                let (c0, c1) = self.tiles.col_range_at(r, j, b);
                let w = self.columns.count(regions, b, (c0, c1), k);
                n += in_band * u64::from(w);
                n + u64::from(self.columns.count(regions, b, (c0, s.col), k))
            }
        }
    }

    /// The square of index `n` among the tile's squares of region `k`.
    pub(super) fn square_in_tile(&self, tile: u32, k: u8, mut n: u64) -> Option<Square> {
        let (r, j) = self.tiles.row_col(tile);
        let (b0, b1) = self.tiles.bands(r);
        let rows = u64::from(ROWS_PER_BAND);
        let regions = &self.regions;
        match self.widths.kinds(tile, b1 - b0) {
            TileKinds::Only(only) => {
                if only != k {
                    return None;
                }
                for b in b0..b1 {
                    let (c0, c1) = self.tiles.col_range_at(r, j, b);
                    let w = u64::from(c1 - c0);
                    if n >= w * rows {
                        n -= w * rows;
                        continue;
                    }
                    let row = b * ROWS_PER_BAND + (n / w) as u32;
                    return Some(Square {
                        row,
                        col: c0 + (n % w) as u32,
                    });
                }
                None
            }
            TileKinds::Widths(widths) => {
                let k8 = k;
                let k = usize::from(k);
                for (b, c) in (b0..b1).zip(widths) {
                    let w = u64::from(c[k]);
                    if n >= w * rows {
                        n -= w * rows;
                        continue;
                    }
                    let row = b * ROWS_PER_BAND + (n / w) as u32;
                    let (c0, _) = self.tiles.col_range_at(r, j, b);
                    let col = self.columns.nth(regions, b, c0, k8, n % w)?;
                    return Some(Square { row, col });
                }
                None
            }
            TileKinds::Runs => {
                for b in b0..b1 {
                    let (c0, c1) = self.tiles.col_range_at(r, j, b);
                    let w = u64::from(self.columns.count(regions, b, (c0, c1), k));
                    if n >= w * rows {
                        n -= w * rows;
                        continue;
                    }
                    let row = b * ROWS_PER_BAND + (n / w) as u32;
                    let col = self.columns.nth(regions, b, c0, k, n % w)?;
                    return Some(Square { row, col });
                }
                None
            }
        }
    }
}
