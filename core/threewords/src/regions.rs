//! Regions of the grid (ADR 0003 §2, §3): runs of columns per band, and the numbering of the
//! squares of each region.

use sha2::{Digest, Sha256};

use crate::grid::{Grid, ROWS_PER_BAND, Square};

/// Regions: 0 populated, 1 land, 2 sea, 3 dense. Scheme version 2 uses the first three only
/// (its table holds no dense run); the dense region is version 3's (ADR 0009 rule 5).
pub const REGIONS: usize = 4;
/// SHA-256 of the region table of scheme v1 ([`Regions::digest`]), as built from the pinned
/// sources (ADR 0003 §2): a pack whose table differs is refused.
pub const REGIONS_SHA256: &str = "e93ebce8cedf918768d49d0c3a5ac7909559fe29b4f951f555545a36caf0e78b";
/// The populated region.
pub const POPULATED: u8 = 0;
/// Land away from populated places.
pub const LAND: u8 = 1;
/// The sea.
pub const SEA: u8 = 2;
/// Densely populated places (scheme version 3 only): within the radius holding a large
/// place's people at a fixed density.
pub const DENSE: u8 = 3;

/// A run of columns of one region: from `start` to the next run's start (or the band's end).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Run {
    /// First column.
    pub start: u32,
    /// Region.
    pub region: u8,
}

/// What is wrong with a region table.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum RegionError {
    /// Not one list of runs per band.
    #[error("the region table has {found} bands, the grid {expected}")]
    Bands {
        /// Bands found.
        found: usize,
        /// Bands of the grid.
        expected: usize,
    },
    /// A band's runs are malformed.
    #[error("band {band}: {why}")]
    Band {
        /// The band.
        band: u32,
        /// Why.
        why: String,
    },
}

/// The regions of every square, and the numbering of each region's squares.
#[derive(Debug, Clone)]
pub struct Regions {
    grid: Grid,
    /// Runs of all bands, band after band.
    runs: Vec<Run>,
    /// For each run, the region's columns in its band before it.
    before: Vec<u32>,
    /// First run of each band (and one past the last band).
    first_run: Vec<u32>,
    /// Columns of each region in each band.
    band_columns: Vec<[u32; REGIONS]>,
    /// Squares of each region in the bands before each band (and the region's total last).
    prefix: [Vec<u64>; REGIONS],
}

impl Regions {
    /// The regions given by `runs` (one list per band, south to north; each list starts at
    /// column 0, starts ascend strictly, stay below the band's columns, regions are 0–3 and
    /// neighbouring runs differ).
    pub fn new(grid: Grid, bands: Vec<Vec<Run>>) -> Result<Regions, RegionError> {
        let expected = grid.all_columns().len();
        if bands.len() != expected {
            return Err(RegionError::Bands {
                found: bands.len(),
                expected,
            });
        }
        let mut runs = Vec::new();
        let mut before = Vec::new();
        let mut first_run = Vec::with_capacity(expected + 1);
        let mut band_columns = Vec::with_capacity(expected);
        let mut prefix: [Vec<u64>; REGIONS] = Default::default();
        let mut totals = [0u64; REGIONS];
        for (b, band) in bands.into_iter().enumerate() {
            let b = b as u32;
            let n = grid.columns(b);
            let bad = |why: String| RegionError::Band { band: b, why };
            if band.first().map(|r| r.start) != Some(0) {
                return Err(bad("the first run must start at column 0".into()));
            }
            first_run.push(runs.len() as u32);
            let mut counts = [0u32; REGIONS];
            for (i, run) in band.iter().enumerate() {
                let end = band.get(i + 1).map_or(n, |r| r.start);
                if run.region as usize >= REGIONS {
                    return Err(bad(format!("unknown region {}", run.region)));
                }
                if end <= run.start || end > n {
                    return Err(bad(format!(
                        "run {i} spans columns {}..{end} of {n}",
                        run.start
                    )));
                }
                if i > 0 && band[i - 1].region == run.region {
                    return Err(bad(format!("runs {} and {i} have the same region", i - 1)));
                }
                let k = run.region as usize;
                before.push(counts[k]);
                counts[k] += end - run.start;
                runs.push(*run);
            }
            for k in 0..REGIONS {
                prefix[k].push(totals[k]);
                totals[k] += u64::from(counts[k]) * u64::from(ROWS_PER_BAND);
            }
            band_columns.push(counts);
        }
        first_run.push(runs.len() as u32);
        for k in 0..REGIONS {
            prefix[k].push(totals[k]);
        }
        Ok(Regions {
            grid,
            runs,
            before,
            first_run,
            band_columns,
            prefix,
        })
    }

    /// The grid.
    pub fn grid(&self) -> &Grid {
        &self.grid
    }

    /// The runs of band `b`.
    pub fn band_runs(&self, b: u32) -> &[Run] {
        let (from, to) = (self.first_run[b as usize], self.first_run[b as usize + 1]);
        &self.runs[from as usize..to as usize]
    }

    /// Runs in all.
    pub fn run_count(&self) -> usize {
        self.runs.len()
    }

    /// Squares of region `k`.
    pub fn squares(&self, k: usize) -> u64 {
        self.prefix[k].last().copied().unwrap_or(0)
    }

    /// SHA-256 (hex) of the table: every run as `band, start, region` little-endian
    /// (`u32, u32, u8`).
    pub fn digest(&self) -> String {
        let mut h = Sha256::new();
        for b in 0..self.band_columns.len() as u32 {
            for r in self.band_runs(b) {
                h.update(b.to_le_bytes());
                h.update(r.start.to_le_bytes());
                h.update([r.region]);
            }
        }
        h.finalize().iter().map(|b| format!("{b:02x}")).collect()
    }

    /// The index of the run of band `b` holding column `col`.
    fn run_at(&self, b: u32, col: u32) -> usize {
        let from = self.first_run[b as usize] as usize;
        let runs = self.band_runs(b);
        from + runs.partition_point(|r| r.start <= col) - 1
    }

    /// The region of square `s`.
    pub fn region(&self, s: Square) -> u8 {
        self.runs[self.run_at(s.band(), s.col)].region
    }

    /// Region and number within the region of square `s` (§3).
    pub fn locate(&self, s: Square) -> (u8, u64) {
        let b = s.band();
        let i = self.run_at(b, s.col);
        let run = self.runs[i];
        let k = run.region as usize;
        let rank = self.before[i] + (s.col - run.start);
        let row_in_band = s.row - b * ROWS_PER_BAND;
        let n = self.prefix[k][b as usize]
            + u64::from(row_in_band) * u64::from(self.band_columns[b as usize][k])
            + u64::from(rank);
        (run.region, n)
    }

    /// The square numbered `n` in region `k`; `None` when the region has fewer squares.
    pub fn square(&self, k: u8, n: u64) -> Option<Square> {
        let prefix = self.prefix.get(k as usize)?;
        if n >= self.squares(k as usize) {
            return None;
        }
        // The band whose range holds n (bands without the region have empty ranges).
        let b = prefix.partition_point(|p| *p <= n) - 1;
        let per_row = u64::from(self.band_columns[b][k as usize]);
        let off = n - prefix[b];
        let row = b as u32 * ROWS_PER_BAND + (off / per_row) as u32;
        let rank = (off % per_row) as u32;
        let from = self.first_run[b] as usize;
        let runs = self.band_runs(b as u32);
        let end_of = |i: usize| {
            runs.get(i + 1)
                .map_or(self.grid.columns(b as u32), |r| r.start)
        };
        let i = (0..runs.len()).find(|&i| {
            runs[i].region == k
                && self.before[from + i] <= rank
                && rank < self.before[from + i] + (end_of(i) - runs[i].start)
        })?;
        let col = runs[i].start + (rank - self.before[from + i]);
        Some(Square { row, col })
    }
}
