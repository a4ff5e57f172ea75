//! Points (addresses, settlements) in square cells, for the nearest point within a radius:
//! flat arrays that are kept in memory or mapped from a layout file beside the pack
//! ([`crate::routing::flat`]), so that a country's addresses cost no heap and no load on
//! an opening after the first.
//!
//! The cells are as wide as the radius looked up, so a lookup reads at most three runs of
//! three cells (one bisection of the sorted cell keys per run of cells).
use crate::routing::flat::{Arr, FlatError, FlatFile, Section};

/// Column and row offset that makes every cell index of the Earth's surface (projected in
/// metres, cells of at least a metre) a non-negative 32-bit value.
const OFFSET: i64 = 1 << 31;

/// One point: where it is (projected, metres), its row `id` and the index of its pack.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    /// Projected position.
    pub xy: [f64; 2],
    /// The row's `id`.
    pub row: i64,
    /// Index of the member pack's connection.
    pub member: u32,
}

/// Points sorted by cell (rows south to north, cells west to east), in the order given
/// within a cell.
#[derive(Debug, Default)]
pub struct PointGrid {
    /// Width of a cell, metres.
    cell: f64,
    /// Key of each non-empty cell ([`PointGrid::key`]), increasing.
    keys: Arr<u64>,
    /// First point of each cell, and the number of points at the end.
    starts: Arr<u32>,
    xy: Arr<[f64; 2]>,
    rows: Arr<i64>,
    members: Arr<u32>,
}

impl PointGrid {
    fn index(v: f64, cell: f64) -> i64 {
        ((v / cell).floor() as i64 + OFFSET).clamp(0, u32::MAX as i64)
    }

    /// The key of the cell in column `cx`, row `cy` (offset indexes).
    fn key(cx: i64, cy: i64) -> u64 {
        ((cy as u64) << 32) | cx as u64
    }

    /// The grid of `points` in cells `cell` metres wide.
    pub fn build(points: &[Point], cell: f64) -> PointGrid {
        let key_of =
            |p: &Point| PointGrid::key(Self::index(p.xy[0], cell), Self::index(p.xy[1], cell));
        let mut order: Vec<u32> = (0..points.len() as u32).collect();
        // Stable: points of a cell keep the order they were given in.
        order.sort_by_key(|&i| key_of(&points[i as usize]));
        let mut keys = Vec::new();
        let mut starts = Vec::new();
        for (at, &i) in order.iter().enumerate() {
            let k = key_of(&points[i as usize]);
            if keys.last() != Some(&k) {
                keys.push(k);
                starts.push(at as u32);
            }
        }
        starts.push(order.len() as u32);
        PointGrid {
            cell,
            keys: keys.into(),
            starts: starts.into(),
            xy: order
                .iter()
                .map(|&i| points[i as usize].xy)
                .collect::<Vec<_>>()
                .into(),
            rows: order
                .iter()
                .map(|&i| points[i as usize].row)
                .collect::<Vec<_>>()
                .into(),
            members: order
                .iter()
                .map(|&i| points[i as usize].member)
                .collect::<Vec<_>>()
                .into(),
        }
    }

    /// Whether the arrays are read from a mapped file.
    pub fn is_mapped(&self) -> bool {
        self.xy.is_mapped()
    }

    /// The point nearest to `q` within `radius` metres and its squared distance; of equally
    /// near points, the first in the grid's order.
    pub fn nearest(&self, q: [f64; 2], radius: f64) -> Option<(Point, f64)> {
        let (cell, r2) = (self.cell, radius * radius);
        if cell.is_nan() || cell <= 0.0 {
            return None;
        }
        let (x0, x1) = (
            Self::index(q[0] - radius, cell),
            Self::index(q[0] + radius, cell),
        );
        let (y0, y1) = (
            Self::index(q[1] - radius, cell),
            Self::index(q[1] + radius, cell),
        );
        let mut best: Option<(usize, f64)> = None;
        for cy in y0..=y1 {
            let (lo, hi) = (Self::key(x0, cy), Self::key(x1, cy));
            let mut c = self.keys.partition_point(|&k| k < lo);
            while self.keys.get(c).is_some_and(|&k| k <= hi) {
                let from = self.starts.get(c).copied().unwrap_or(0) as usize;
                let to = self.starts.get(c + 1).copied().unwrap_or(0) as usize;
                for (i, p) in self.xy.get(from..to).unwrap_or(&[]).iter().enumerate() {
                    let d2 = (p[0] - q[0]).powi(2) + (p[1] - q[1]).powi(2);
                    if d2 <= r2 && best.is_none_or(|(_, b)| d2 < b) {
                        best = Some((from + i, d2));
                    }
                }
                c += 1;
            }
        }
        let (i, d2) = best?;
        Some((
            Point {
                xy: *self.xy.get(i)?,
                row: *self.rows.get(i)?,
                member: *self.members.get(i)?,
            },
            d2,
        ))
    }

    /// The sections of a layout file holding the grid, tagged `<prefix>.<part>`.
    pub fn sections<'a>(&'a self, prefix: &str, cell: &'a [f64; 1]) -> Vec<Section<'a>> {
        vec![
            Section::new(&format!("{prefix}.cell"), cell),
            Section::new(&format!("{prefix}.keys"), &self.keys),
            Section::new(&format!("{prefix}.start"), &self.starts),
            Section::new(&format!("{prefix}.xy"), &self.xy),
            Section::new(&format!("{prefix}.row"), &self.rows),
            Section::new(&format!("{prefix}.mem"), &self.members),
        ]
    }

    /// The cell width as [`PointGrid::sections`] wants it.
    pub fn cell(&self) -> [f64; 1] {
        [self.cell]
    }

    /// The grid written as [`PointGrid::sections`] with `prefix`, mapped, after checking that
    /// its cells are `cell` metres wide, its keys increase, its cells cover every point in
    /// order and every point names one of `members` packs (so no lookup reads out of bounds).
    pub fn from_file(
        f: &FlatFile,
        prefix: &str,
        cell: f64,
        members: usize,
    ) -> Result<PointGrid, FlatError> {
        let bad = |what: &str| FlatError::Invalid(format!("is inconsistent: {prefix}: {what}"));
        let stored: Arr<f64> = f.arr(&format!("{prefix}.cell"))?;
        if stored.first().copied() != Some(cell) {
            return Err(bad("another cell width"));
        }
        let n = f.count::<[f64; 2]>(&format!("{prefix}.xy"))?;
        if f.count::<i64>(&format!("{prefix}.row"))? != n
            || f.count::<u32>(&format!("{prefix}.mem"))? != n
        {
            return Err(bad("per-point arrays differ in length"));
        }
        let cells = f.count::<u64>(&format!("{prefix}.keys"))?;
        if f.count::<u32>(&format!("{prefix}.start"))? != cells + 1 {
            return Err(bad("cell starts do not match the cells"));
        }
        let mut last: Option<u64> = None;
        let increasing = f.scan(&format!("{prefix}.keys"), |_, v: &[u64]| {
            v.iter().all(|&k| {
                let up = last.is_none_or(|l| k > l);
                last = Some(k);
                up
            })
        })?;
        let mut prev = 0u32;
        let rising = f.scan(&format!("{prefix}.start"), |at, v: &[u32]| {
            (at > 0 || v.first() == Some(&0))
                && v.iter().all(|&s| {
                    let up = s >= prev;
                    prev = s;
                    up
                })
        })?;
        if !increasing || !rising || prev as usize != n {
            return Err(bad("cells are not in order over every point"));
        }
        if !f.scan(&format!("{prefix}.mem"), |_, v: &[u32]| {
            v.iter().all(|&m| (m as usize) < members)
        })? {
            return Err(bad("a point names no pack"));
        }
        Ok(PointGrid {
            cell,
            keys: f.arr(&format!("{prefix}.keys"))?,
            starts: f.arr(&format!("{prefix}.start"))?,
            xy: f.arr(&format!("{prefix}.xy"))?,
            rows: f.arr(&format!("{prefix}.row"))?,
            members: f.arr(&format!("{prefix}.mem"))?,
        })
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn points(seed: u64, n: usize) -> Vec<Point> {
        let mut x = seed;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % 1_000_000) as f64 / 1_000_000.0
        };
        let mut out: Vec<Point> = (0..n)
            .map(|i| Point {
                // Negative and positive coordinates, some on cell edges.
                xy: [
                    (next() * 4_000.0 - 2_000.0).round(),
                    (next() * 3_000.0 - 1_500.0).round(),
                ],
                row: i as i64,
                member: (i % 3) as u32,
            })
            .collect();
        // Points at the same position: the first given wins.
        let twin = Point {
            row: n as i64,
            ..out[7]
        };
        out.push(twin);
        out
    }

    fn brute(points: &[Point], q: [f64; 2], radius: f64) -> Option<f64> {
        points
            .iter()
            .map(|p| (p.xy[0] - q[0]).powi(2) + (p.xy[1] - q[1]).powi(2))
            .filter(|&d2| d2 <= radius * radius)
            .min_by(f64::total_cmp)
    }

    #[test]
    fn the_nearest_point_within_the_radius_is_found() {
        let pts = points(0x9e37, 3_000);
        let grid = PointGrid::build(&pts, 150.0);
        let probes = points(0x51ed, 2_000);
        let mut found = 0;
        // Over nine times the points' area: most probes are far from every point.
        for q in probes
            .iter()
            .map(|p| [p.xy[0] * 3.0 + 0.5, p.xy[1] * 3.0 - 0.25])
        {
            let want = brute(&pts, q, 150.0);
            let got = grid.nearest(q, 150.0);
            assert_eq!(got.map(|g| g.1), want, "at {q:?}");
            if let Some((p, d2)) = got {
                found += 1;
                let d = (p.xy[0] - q[0]).powi(2) + (p.xy[1] - q[1]).powi(2);
                assert_eq!(d, d2);
                assert!(pts.contains(&p), "a point that was given");
            }
        }
        assert!(found > 150 && found < 1_500, "{found} probes near a point");
        // The first of two points at one position.
        let (p, d2) = grid.nearest(pts[7].xy, 1.0).unwrap();
        assert_eq!((p.row, d2), (7, 0.0));
        // Exactly at the radius counts; beyond it does not.
        let q = [pts[7].xy[0] + 150.0, pts[7].xy[1]];
        assert!(grid.nearest(q, 150.0).is_some());
        assert!(
            PointGrid::build(&pts[7..8], 150.0)
                .nearest([q[0] + 0.01, q[1]], 150.0)
                .is_none()
        );
        assert!(PointGrid::build(&[], 150.0).nearest(q, 150.0).is_none());
    }

    #[test]
    fn a_grid_maps_back_from_its_file_and_a_damaged_one_is_refused() {
        let pts = points(0x77, 500);
        let grid = PointGrid::build(&pts, 150.0);
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("g.layout");
        let key = [3u8; 32];
        let cell = grid.cell();
        crate::routing::flat::write(&path, &key, &grid.sections("a", &cell)).unwrap();
        let f = FlatFile::open(&path, &key).unwrap();
        let back = PointGrid::from_file(&f, "a", 150.0, 3).unwrap();
        assert!(back.is_mapped());
        for p in &pts {
            assert_eq!(back.nearest(p.xy, 150.0), grid.nearest(p.xy, 150.0));
        }
        // Another cell width, or a point naming a pack that is not there.
        assert!(PointGrid::from_file(&f, "a", 3_000.0, 3).is_err());
        assert!(PointGrid::from_file(&f, "a", 150.0, 2).is_err());
        // Cell starts past the last point.
        let mut bad = PointGrid::build(&pts, 150.0);
        if let Some(last) = bad.starts.to_mut().last_mut() {
            *last += 1;
        }
        crate::routing::flat::write(&path, &key, &bad.sections("a", &cell)).unwrap();
        let f = FlatFile::open(&path, &key).unwrap();
        assert!(PointGrid::from_file(&f, "a", 150.0, 3).is_err());
    }
}
