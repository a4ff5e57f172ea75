//! Point grid indexes of `data.sqlite` (pack format 5): `addresses_grid` and `pois_grid`
//! replace the R-trees `addresses_rtree` and `pois_rtree`.
//!
//! An R-tree of points stores each point as a box (four floats and a 64-bit id, plus a
//! row in its `_rowid` table): Neubrandenburg's 10,261 addresses took 0.5 MB. A grid index
//! has one row per occupied cell of a fixed grid ([`CELLS_PER_DEGREE`] cells per degree of
//! latitude and of longitude): the cell number is the row id and the ids of the points in the
//! cell are a BLOB of ascending ids, delta-coded as LEB128 varints, each followed by the
//! point's sub-cell (two bytes: its position to 1/256 of the cell, [`SUB_CELLS`]).
//!
//! ```sql
//! CREATE TABLE addresses_grid (cell INTEGER PRIMARY KEY, ids BLOB NOT NULL);
//! ```
//!
//! [`points_in`] gives every point of the cells a box touches: a superset of the points in
//! the box. Each comes with a box of 0.87 m that holds its exact position, so a reader
//! narrows them (box test, distance bounds) before it reads any row, and checks the exact
//! position of the few left, as it did with the R-tree's float boxes.
use rusqlite::{Connection, params};

use crate::geo::{Pt, haversine_m};
use crate::varint;

/// Cells per degree (a cell is 1/500 degree: 222 m of latitude).
pub const CELLS_PER_DEGREE: f64 = 500.0;

/// Bits of the column number in a cell number (360 × 500 columns < 2^18).
const COLUMN_BITS: u32 = 18;

fn row_of(lat: f64) -> i64 {
    ((lat.clamp(-90.0, 90.0) + 90.0) * CELLS_PER_DEGREE).floor() as i64
}

fn column_of(lng: f64) -> i64 {
    ((lng.clamp(-180.0, 180.0) + 180.0) * CELLS_PER_DEGREE).floor() as i64
}

/// The cell number of a point.
pub fn cell_of(lat: f64, lng: f64) -> i64 {
    (row_of(lat) << COLUMN_BITS) | column_of(lng)
}

/// Sub-cells per side of a cell: each point also keeps its position within its cell to
/// 1/256 of the cell (1/128,000 degree: 0.87 m of latitude) in two bytes, so that readers
/// bound a point's distance and box test without reading its row.
pub const SUB_CELLS: f64 = 256.0;

/// Slack (degrees) around a point's sub-cell, for the rounding of the quantisation.
const SUB_SLACK: f64 = 1e-9;

/// A point of a grid cell: its id and a box (degrees) that holds its exact position.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GridPoint {
    /// The point's row id in its points table.
    pub id: i64,
    /// Latitude bounds `[low, high]` of the point.
    pub lat: [f64; 2],
    /// Longitude bounds `[low, high]` of the point.
    pub lng: [f64; 2],
}

impl GridPoint {
    /// Whether the point is certainly inside the box `[min_lat, max_lat, min_lng, max_lng]`
    /// (and so also a hit of [`rtree_point_hit`], whose f32 rounding only widens).
    pub fn surely_in(&self, b: [f64; 4]) -> bool {
        self.lat[0] >= b[0] && self.lat[1] <= b[1] && self.lng[0] >= b[2] && self.lng[1] <= b[3]
    }

    /// Whether the point may be inside the box, or a hit of [`rtree_point_hit`] for it (the
    /// box widened by more than an f32 rounding step).
    pub fn maybe_in(&self, b: [f64; 4]) -> bool {
        const F32_STEP: f64 = 1e-4;
        self.lat[1] >= b[0] - F32_STEP
            && self.lat[0] <= b[1] + F32_STEP
            && self.lng[1] >= b[2] - F32_STEP
            && self.lng[0] <= b[3] + F32_STEP
    }

    /// Bounds `(low, high)` of the great-circle distance in metres from `from` to the point:
    /// the distance to the centre of its box, less and plus half the box's diagonal (and a
    /// centimetre for the arithmetic).
    pub fn distance_bounds_m(&self, from: Pt) -> (f64, f64) {
        let centre = Pt::new(
            (self.lat[0] + self.lat[1]) / 2.0,
            (self.lng[0] + self.lng[1]) / 2.0,
        );
        let half = haversine_m(
            Pt::new(self.lat[0], self.lng[0]),
            Pt::new(self.lat[1], self.lng[1]),
        ) / 2.0
            + 0.01;
        let d = haversine_m(from, centre);
        (d - half, d + half)
    }
}

/// The sub-cell (0-255) of `v` in the cell `index` of its axis (`offset`: 90 for latitudes,
/// 180 for longitudes).
fn sub_of(v: f64, offset: f64, index: i64) -> u8 {
    let fine = ((v + offset) * CELLS_PER_DEGREE * SUB_CELLS).floor() as i64;
    (fine - index * SUB_CELLS as i64).clamp(0, 255) as u8
}

/// Bounds (degrees) of the sub-cell `sub` of the cell `index` of an axis.
fn sub_bounds(offset: f64, index: i64, sub: u8) -> [f64; 2] {
    let fine = (index * SUB_CELLS as i64 + i64::from(sub)) as f64;
    let per = CELLS_PER_DEGREE * SUB_CELLS;
    [
        fine / per - offset - SUB_SLACK,
        (fine + 1.0) / per - offset + SUB_SLACK,
    ]
}

/// The BLOB of one cell: per point the id as a delta-coded LEB128 varint (zigzag: the first
/// delta from 0; ascending ids give small positive deltas, a tie group out of id order a few
/// negative ones), then its latitude and longitude sub-cells (one byte each).
pub fn encode_cell(cell: i64, points: &[(i64, f64, f64)]) -> Vec<u8> {
    let (row, column) = (cell >> COLUMN_BITS, cell & ((1 << COLUMN_BITS) - 1));
    let mut out = Vec::with_capacity(points.len() * 4);
    let mut last = 0i64;
    for &(id, lat, lng) in points {
        let delta = id.wrapping_sub(last);
        last = id;
        varint::put_signed(&mut out, delta);
        out.push(sub_of(lat.clamp(-90.0, 90.0), 90.0, row));
        out.push(sub_of(lng.clamp(-180.0, 180.0), 180.0, column));
    }
    out
}

/// The points of [`encode_cell`], appended to `out` in stored order. A truncated BLOB gives
/// the points it holds whole.
pub fn decode_cell(cell: i64, bytes: &[u8], out: &mut Vec<GridPoint>) {
    let (row, column) = (cell >> COLUMN_BITS, cell & ((1 << COLUMN_BITS) - 1));
    let mut last = 0i64;
    let mut i = 0;
    while i < bytes.len() {
        let mut d = 0u64;
        let mut shift = 0u32;
        loop {
            let Some(&b) = bytes.get(i) else { return };
            i += 1;
            if shift < 64 {
                d |= u64::from(b & 0x7f) << shift;
            }
            if b & 0x80 == 0 {
                break;
            }
            shift += 7;
        }
        let (Some(&slat), Some(&slng)) = (bytes.get(i), bytes.get(i + 1)) else {
            return;
        };
        i += 2;
        last = last.wrapping_add(varint::unzigzag(d));
        out.push(GridPoint {
            id: last,
            lat: sub_bounds(90.0, row, slat),
            lng: sub_bounds(180.0, column, slng),
        });
    }
}

/// SQLite's R-tree rounding of a stored coordinate down to an f32 (`rtreeValueDown`).
fn f32_down(d: f64) -> f64 {
    let f = d as f32;
    if f64::from(f) > d {
        let x = f.to_bits();
        f64::from(f32::from_bits(if x & 0x8000_0000 != 0 {
            x + 1
        } else {
            x - 1
        }))
    } else {
        f64::from(f)
    }
}

/// SQLite's R-tree rounding of a stored coordinate up to an f32 (`rtreeValueUp`).
fn f32_up(d: f64) -> f64 {
    let f = d as f32;
    if f64::from(f) < d {
        let x = f.to_bits();
        f64::from(f32::from_bits(if x & 0x8000_0000 != 0 {
            x - 1
        } else {
            x + 1
        }))
    } else {
        f64::from(f)
    }
}

/// Whether the R-tree of pack formats 1-4 (a point stored as a box of f32 values rounded
/// outwards) gave the point for the query `max_lat >= b[0] AND min_lat <= b[1] AND max_lng
/// >= b[2] AND min_lng <= b[3]`: readers that kept every point the R-tree gave keep the
/// same points from the cells of [`points_in`].
pub fn rtree_point_hit(lat: f64, lng: f64, b: [f64; 4]) -> bool {
    f32_up(lat) >= b[0] && f32_down(lat) <= b[1] && f32_up(lng) >= b[2] && f32_down(lng) <= b[3]
}

/// DDL of a grid table named `table`.
pub fn create_sql(table: &str) -> String {
    format!("CREATE TABLE IF NOT EXISTS {table} (cell INTEGER PRIMARY KEY, ids BLOB NOT NULL);")
}

/// (Re)writes the grid `table` from every `(id, lat, lng)` of `points_table`.
///
/// Within a cell the ids ascend, except that points at the very same position (a tie for
/// any nearest-point reader) keep the order in which an SQLite R-tree of the points,
/// inserted in id order as the builder of pack formats 1 to 4 did, gives them back: readers
/// that keep the first of equally near points ([`points_in`]) answer as they did with the
/// R-tree.
pub fn rebuild(conn: &Connection, table: &str, points_table: &str) -> rusqlite::Result<u64> {
    use std::collections::{BTreeMap, HashMap, HashSet};
    let mut points: Vec<(i64, f64, f64)> = Vec::new();
    {
        let mut st = conn.prepare(&format!(
            "SELECT id, lat, lng FROM {points_table} ORDER BY id"
        ))?;
        let mut rows = st.query([])?;
        while let Some(r) = rows.next()? {
            points.push((r.get(0)?, r.get(1)?, r.get(2)?));
        }
    }
    // Tie groups: ids at the same position (bit for bit).
    let mut at: HashMap<(u64, u64), Vec<i64>> = HashMap::new();
    for &(id, lat, lng) in &points {
        at.entry((lat.to_bits(), lng.to_bits()))
            .or_default()
            .push(id);
    }
    let pos: HashMap<i64, (u64, u64)> = at
        .iter()
        .filter(|(_, ids)| ids.len() > 1)
        .flat_map(|(p, ids)| ids.iter().map(move |&id| (id, *p)))
        .collect();
    let rank = if pos.is_empty() {
        HashMap::new()
    } else {
        rtree_order(conn, &points)?
    };
    let mut cells: BTreeMap<i64, Vec<i64>> = BTreeMap::new();
    for &(id, lat, lng) in &points {
        cells.entry(cell_of(lat, lng)).or_default().push(id);
    }
    conn.execute(&format!("DELETE FROM {table}"), [])?;
    let mut ins = conn.prepare(&format!("INSERT INTO {table}(cell, ids) VALUES (?1, ?2)"))?;
    for (cell, mut ids) in cells {
        ids.sort_unstable();
        // Each tie group takes its slots (ascending) in R-tree order.
        let mut done = HashSet::new();
        for i in 0..ids.len() {
            let Some(p) = pos.get(&ids[i]) else { continue };
            if !done.insert(*p) {
                continue;
            }
            let slots: Vec<usize> = (i..ids.len())
                .filter(|&j| pos.get(&ids[j]) == Some(p))
                .collect();
            let mut members: Vec<i64> = slots.iter().map(|&j| ids[j]).collect();
            members.sort_by_key(|id| rank.get(id).copied().unwrap_or(usize::MAX));
            for (slot, id) in slots.into_iter().zip(members) {
                ids[slot] = id;
            }
        }
        // `points` ascend by id (the query's order).
        let cell_points: Vec<(i64, f64, f64)> = ids
            .iter()
            .filter_map(|id| {
                points
                    .binary_search_by_key(id, |p| p.0)
                    .ok()
                    .map(|i| points[i])
            })
            .collect();
        ins.execute(params![cell, encode_cell(cell, &cell_points)])?;
    }
    Ok(points.len() as u64)
}

/// Position of each id in the scan order of an R-tree of the points (boxes of one point,
/// inserted in id order), built in a temporary table and dropped.
fn rtree_order(
    conn: &Connection,
    points: &[(i64, f64, f64)],
) -> rusqlite::Result<std::collections::HashMap<i64, usize>> {
    conn.execute_batch(
        "DROP TABLE IF EXISTS temp.grid_tie_order;
         CREATE VIRTUAL TABLE temp.grid_tie_order
             USING rtree(id, min_lat, max_lat, min_lng, max_lng);",
    )?;
    {
        let mut ins = conn.prepare(
            "INSERT INTO temp.grid_tie_order(id, min_lat, max_lat, min_lng, max_lng) \
             VALUES (?1, ?2, ?2, ?3, ?3)",
        )?;
        for &(id, lat, lng) in points {
            ins.execute(params![id, lat, lng])?;
        }
    }
    let mut rank = std::collections::HashMap::new();
    {
        let mut st = conn.prepare("SELECT id FROM temp.grid_tie_order")?;
        let mut rows = st.query([])?;
        while let Some(r) = rows.next()? {
            let n = rank.len();
            rank.insert(r.get::<_, i64>(0)?, n);
        }
    }
    conn.execute_batch("DROP TABLE temp.grid_tie_order;")?;
    Ok(rank)
}

/// The points of the cells that the box `[min_lat, max_lat, min_lng, max_lng]` touches,
/// from the grid `table`: a superset of the points in the box, cell by cell, each cell's in
/// stored order (ascending ids; points at the same position in their former R-tree order, see
/// [`rebuild`]). Readers narrow them with [`GridPoint::maybe_in`] and
/// [`GridPoint::distance_bounds_m`] before reading rows.
pub fn points_in(conn: &Connection, table: &str, b: [f64; 4]) -> rusqlite::Result<Vec<GridPoint>> {
    let mut out = Vec::new();
    if !(b[0] <= b[1] && b[2] <= b[3]) {
        return Ok(out);
    }
    let (r0, r1) = (row_of(b[0]), row_of(b[1]));
    let (c0, c1) = (column_of(b[2]), column_of(b[3]));
    let mut st = conn.prepare_cached(&format!(
        "SELECT cell, ids FROM {table} WHERE cell BETWEEN ?1 AND ?2"
    ))?;
    if r1 - r0 < 64 {
        for r in r0..=r1 {
            let mut rows = st.query(params![(r << COLUMN_BITS) | c0, (r << COLUMN_BITS) | c1])?;
            while let Some(row) = rows.next()? {
                decode_cell(row.get(0)?, row.get_ref(1)?.as_blob()?, &mut out);
            }
        }
    } else {
        // A tall box: one scan of its rows, the columns checked here.
        let mut rows = st.query(params![r0 << COLUMN_BITS, (r1 << COLUMN_BITS) | c1])?;
        while let Some(row) = rows.next()? {
            let cell: i64 = row.get(0)?;
            if (c0..=c1).contains(&(cell & ((1 << COLUMN_BITS) - 1))) {
                decode_cell(cell, row.get_ref(1)?.as_blob()?, &mut out);
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn rtree_rounding_is_sqlites() {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch("CREATE VIRTUAL TABLE r USING rtree(id, a, b, c, d);")
            .unwrap();
        let vals = [
            53.557_123_456_789,
            -0.117_742_8,
            11.575_802_7,
            48.137_350_4,
            0.0,
        ];
        for (i, &v) in vals.iter().enumerate() {
            conn.execute(
                "INSERT INTO r VALUES (?1, ?2, ?2, ?2, ?2)",
                params![i as i64, v],
            )
            .unwrap();
            let (lo, hi): (f64, f64) = conn
                .query_row("SELECT a, b FROM r WHERE id = ?1", [i as i64], |r| {
                    Ok((r.get(0)?, r.get(1)?))
                })
                .unwrap();
            assert_eq!((lo, hi), (f32_down(v), f32_up(v)), "{v}");
            assert!(lo <= v && v <= hi);
        }
        assert!(rtree_point_hit(1.0, 2.0, [1.0, 1.0, 2.0, 2.0]));
        assert!(!rtree_point_hit(1.0, 2.0, [1.1, 1.2, 2.0, 2.0]));
    }

    #[test]
    fn tie_groups_keep_the_rtree_order() {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch("CREATE TABLE pts (id INTEGER PRIMARY KEY, lat REAL, lng REAL);")
            .unwrap();
        conn.execute_batch(&create_sql("pts_grid")).unwrap();
        // Enough points for a tree of several levels, and tie groups among them.
        let mut pts = Vec::new();
        for i in 0..3000i64 {
            let lat = 48.13 + (i as f64 * 0.61803).fract() * 0.01;
            let lng = 11.57 + (i as f64 * 0.7548).fract() * 0.01;
            pts.push((i + 1, lat, lng));
        }
        for (i, j) in [(5, 2900), (17, 18), (40, 1200), (40, 2500)] {
            pts[j].1 = pts[i].1;
            pts[j].2 = pts[i].2;
        }
        for &(id, lat, lng) in &pts {
            conn.execute("INSERT INTO pts VALUES (?1, ?2, ?3)", params![id, lat, lng])
                .unwrap();
        }
        let rank = rtree_order(&conn, &pts).unwrap();
        rebuild(&conn, "pts_grid", "pts").unwrap();
        for group in [vec![6, 2901], vec![18, 19], vec![41, 1201, 2501]] {
            let (_, lat, lng) = pts[(group[0] - 1) as usize];
            let found = points_in(&conn, "pts_grid", [lat, lat, lng, lng]).unwrap();
            let got: Vec<i64> = found
                .into_iter()
                .map(|p| p.id)
                .filter(|id| group.contains(id))
                .collect();
            let mut want = group.clone();
            want.sort_by_key(|id| rank[id]);
            assert_eq!(got, want);
        }
    }

    #[test]
    fn cells_round_trip() {
        let ids = [1, 2, 130, 131, 100_000, 1 << 40, 7, 3];
        for (lat, lng) in [
            (53.557_123_456_789, 13.261_1),
            (-33.9, -70.6),
            (0.0, 0.0),
            (89.999_999, 179.999_999),
            (-90.0, -180.0),
            (48.137_350_4, 11.575_802_7),
        ] {
            let cell = cell_of(lat, lng);
            let points: Vec<(i64, f64, f64)> = ids
                .iter()
                .enumerate()
                .map(|(i, &id)| {
                    // Points spread over the cell, at its edges too.
                    let f = i as f64 / (ids.len() - 1) as f64;
                    let lat0 = (cell >> COLUMN_BITS) as f64 / CELLS_PER_DEGREE - 90.0;
                    let lng0 = (cell & ((1 << COLUMN_BITS) - 1)) as f64 / CELLS_PER_DEGREE - 180.0;
                    let p = (
                        id,
                        (lat0 + f * 0.999_999 / CELLS_PER_DEGREE).max(-90.0),
                        (lng0 + (1.0 - f) * 0.999_999 / CELLS_PER_DEGREE).max(-180.0),
                    );
                    assert_eq!(cell_of(p.1, p.2), cell, "{p:?}");
                    p
                })
                .collect();
            let bytes = encode_cell(cell, &points);
            // Varints of 1+1+2+1+3+6+6+1 bytes, two sub-cell bytes each.
            assert_eq!(bytes.len(), 21 + 2 * ids.len());
            let mut back = Vec::new();
            decode_cell(cell, &bytes, &mut back);
            assert_eq!(back.len(), ids.len());
            for (g, &(id, plat, plng)) in back.iter().zip(&points) {
                assert_eq!(g.id, id);
                assert!(g.lat[0] <= plat && plat <= g.lat[1], "{g:?} {plat}");
                assert!(g.lng[0] <= plng && plng <= g.lng[1], "{g:?} {plng}");
                assert!(g.lat[1] - g.lat[0] < 1.0 / 127_000.0);
                assert!(g.lng[1] - g.lng[0] < 1.0 / 127_000.0);
            }
            // A truncated BLOB gives its whole points and never panics.
            for cut in 0..bytes.len() {
                let mut part = Vec::new();
                decode_cell(cell, &bytes[..cut], &mut part);
                assert!(part.len() < ids.len());
                assert_eq!(part[..], back[..part.len()]);
            }
        }
    }

    #[test]
    fn distance_bounds_hold_the_exact_distance() {
        let from = Pt::new(51.507_3, -0.127_6);
        for i in 0..5000 {
            let lat = 51.5 + (i as f64 * 0.618_034).fract() * 0.02;
            let lng = -0.14 + (i as f64 * 0.754_878).fract() * 0.03;
            let cell = cell_of(lat, lng);
            let mut g = Vec::new();
            decode_cell(cell, &encode_cell(cell, &[(i, lat, lng)]), &mut g);
            let (lo, hi) = g[0].distance_bounds_m(from);
            let d = haversine_m(from, Pt::new(lat, lng));
            assert!(lo <= d && d <= hi, "{lo} {d} {hi}");
            assert!(hi - lo < 1.3, "{lo} {hi}");
            let b = [lat - 1e-3, lat + 1e-3, lng - 1e-3, lng + 1e-3];
            assert!(g[0].maybe_in(b));
            if g[0].surely_in(b) {
                assert!(rtree_point_hit(lat, lng, b));
            }
            let away = [lat + 0.01, lat + 0.02, lng, lng + 0.01];
            assert!(!g[0].maybe_in(away) && !rtree_point_hit(lat, lng, away));
        }
    }

    #[test]
    fn box_query_finds_every_point_inside() {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch("CREATE TABLE pts (id INTEGER PRIMARY KEY, lat REAL, lng REAL);")
            .unwrap();
        conn.execute_batch(&create_sql("pts_grid")).unwrap();
        let mut pts = Vec::new();
        for i in 0..2000i64 {
            let lat = 53.5 + (i as f64 * 0.61803).fract() * 0.05;
            let lng = -0.02 + (i as f64 * 0.7548).fract() * 0.05;
            pts.push((i + 1, lat, lng));
            conn.execute(
                "INSERT INTO pts VALUES (?1, ?2, ?3)",
                params![i + 1, lat, lng],
            )
            .unwrap();
        }
        assert_eq!(rebuild(&conn, "pts_grid", "pts").unwrap(), 2000);
        for b in [
            [53.51, 53.512, -0.01, -0.008],
            [53.5, 53.55, -0.02, 0.03],
            [53.52, 53.52, 0.0, 0.0],
            [-89.0, 89.0, -0.015, 0.01],
        ] {
            let found = points_in(&conn, "pts_grid", b).unwrap();
            let ids: Vec<i64> = found.iter().map(|p| p.id).collect();
            for p in &pts {
                let inside = p.1 >= b[0] && p.1 <= b[1] && p.2 >= b[2] && p.2 <= b[3];
                let Some(g) = found.iter().find(|g| g.id == p.0) else {
                    assert!(!inside, "{p:?} not found in {b:?}");
                    continue;
                };
                // The narrowing never drops a point of the box, nor keeps one surely out.
                assert!(!inside || g.maybe_in(b), "{p:?}");
                assert!(!g.surely_in(b) || inside, "{p:?}");
            }
            let mut sorted = ids.clone();
            sorted.sort_unstable();
            sorted.dedup();
            assert_eq!(sorted.len(), ids.len());
        }
        // Ids within a cell ascend when no two points share a position.
        let cells: Vec<i64> = points_in(&conn, "pts_grid", [53.5, 53.55, -0.02, 0.03])
            .unwrap()
            .into_iter()
            .map(|p| p.id)
            .collect();
        assert_eq!(cells.len(), 2000);
        let mut sorted = cells.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (1..=2000).collect::<Vec<i64>>());
        assert!(
            points_in(&conn, "pts_grid", [1.0, 0.0, 0.0, 1.0])
                .unwrap()
                .is_empty()
        );
    }
}
