//! The grid of scheme v1 (ADR 0003 §1): 6,672,000 rows of equal latitude height, grouped in
//! bands of 1,000 rows whose columns are ≈ 3 m wide.

use sha2::{Digest, Sha256};

/// Rows of latitude.
pub const ROWS: u32 = 6_672_000;
/// Rows per band.
pub const ROWS_PER_BAND: u32 = 1_000;
/// Bands.
pub const BANDS: u32 = ROWS / ROWS_PER_BAND;
/// Columns a band would have at the equator (`cos φ = 1`).
pub const EQUATOR_COLUMNS: f64 = 13_344_000.0;
/// SHA-256 of the column counts of every band (little-endian `u32`s, south to north): the
/// table scheme v1 was defined with.
pub const COLUMNS_SHA256: &str = "43d5cc50205e7d2ccf31b6ced72d427e0d209eb7ab31c480a28d2f74fe9b847b";

/// Height of a row, degrees.
pub fn row_height() -> f64 {
    180.0 / f64::from(ROWS)
}

/// A square of the grid.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square {
    /// Row, from the south pole.
    pub row: u32,
    /// Column, from longitude −180 eastwards.
    pub col: u32,
}

impl Square {
    /// Its band.
    pub fn band(self) -> u32 {
        self.row / ROWS_PER_BAND
    }
}

/// The columns of every band, and the square of a position.
#[derive(Debug, Clone)]
pub struct Grid {
    columns: Vec<u32>,
}

/// The grid cannot be used on this platform: its column table differs from the one the
/// scheme was defined with.
#[derive(Debug, thiserror::Error)]
#[error(
    "the three-word grid computed on this platform differs from scheme v1 (column table SHA-256 {found}, expected {COLUMNS_SHA256}): refusing to answer rather than re-map addresses"
)]
pub struct GridMismatch {
    found: String,
}

impl Grid {
    /// The grid of scheme v1, checked against [`COLUMNS_SHA256`].
    pub fn v1() -> Result<Grid, GridMismatch> {
        let grid = Grid::computed();
        let found = grid.digest();
        if found != COLUMNS_SHA256 {
            return Err(GridMismatch { found });
        }
        Ok(grid)
    }

    /// The grid as this platform computes it, unchecked.
    pub fn computed() -> Grid {
        let h = row_height() * f64::from(ROWS_PER_BAND);
        let columns = (0..BANDS)
            .map(|b| {
                let centre = -90.0 + (f64::from(b) + 0.5) * h;
                let n = (EQUATOR_COLUMNS * centre.to_radians().cos()).round();
                // In range: 0 ≤ n ≤ 13,344,000.
                (n as u32).max(1)
            })
            .collect();
        Grid { columns }
    }

    /// SHA-256 (hex) of the column table.
    pub fn digest(&self) -> String {
        let mut h = Sha256::new();
        for c in &self.columns {
            h.update(c.to_le_bytes());
        }
        h.finalize().iter().map(|b| format!("{b:02x}")).collect()
    }

    /// Columns of band `b`.
    pub fn columns(&self, band: u32) -> u32 {
        self.columns[band as usize]
    }

    /// Every band's column count, south to north.
    pub fn all_columns(&self) -> &[u32] {
        &self.columns
    }

    /// Squares in all.
    pub fn squares(&self) -> u64 {
        self.columns
            .iter()
            .map(|c| u64::from(*c) * u64::from(ROWS_PER_BAND))
            .sum()
    }

    /// The square holding `lat, lng` (degrees; latitude in [−90, 90], any finite longitude,
    /// wrapped). `None` for a latitude out of range or a non-finite number.
    pub fn square(&self, lat: f64, lng: f64) -> Option<Square> {
        if !(lat.is_finite() && lng.is_finite() && (-90.0..=90.0).contains(&lat)) {
            return None;
        }
        let row = (((lat + 90.0) / row_height()).floor() as u32).min(ROWS - 1);
        let n = self.columns(row / ROWS_PER_BAND);
        let lng = (lng + 180.0).rem_euclid(360.0);
        let col = ((lng / 360.0 * f64::from(n)).floor() as u32).min(n - 1);
        Some(Square { row, col })
    }

    /// Whether `s` is a square of the grid.
    pub fn contains(&self, s: Square) -> bool {
        s.row < ROWS && s.col < self.columns(s.band())
    }

    /// `[south, west, north, east]` of square `s`, degrees.
    pub fn bounds(&self, s: Square) -> [f64; 4] {
        let h = row_height();
        let w = 360.0 / f64::from(self.columns(s.band()));
        let south = -90.0 + f64::from(s.row) * h;
        let west = -180.0 + f64::from(s.col) * w;
        [south, west, (south + h).min(90.0), (west + w).min(180.0)]
    }

    /// The centre of square `s`, `(lat, lng)` degrees.
    pub fn centre(&self, s: Square) -> (f64, f64) {
        let [south, west, north, east] = self.bounds(s);
        ((south + north) / 2.0, (west + east) / 2.0)
    }
}
