//! Point grid indexes of `data.sqlite` (pack format 5): `addresses_grid` and `pois_grid`
//! replace the R-trees `addresses_rtree` and `pois_rtree`.
//!
//! An R-tree of points stores each point as a box (four floats and a 64-bit id, plus a
//! row in its `_rowid` table): Neubrandenburg's 10,261 addresses took 0.5 MB. A grid index
//! has one row per occupied cell of a fixed grid ([`CELLS_PER_DEGREE`] cells per degree of
//! latitude and of longitude): the cell number is the row id and the ids of the points in the
//! cell are a BLOB of ascending ids, delta-coded as LEB128 varints.
//!
//! ```sql
//! CREATE TABLE addresses_grid (cell INTEGER PRIMARY KEY, ids BLOB NOT NULL);
//! ```
//!
//! [`ids_in`] gives the ids of every point of the cells a box touches: a superset of the
//! points in the box (readers check the exact position, as they did with the R-tree's float
//! boxes), in ascending id order.
use rusqlite::{Connection, params};

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

/// Ascending ids as delta-coded LEB128 varints (the first delta from 0).
pub fn encode_ids(ids: &[i64]) -> Vec<u8> {
    let mut out = Vec::with_capacity(ids.len() * 2);
    let mut last = 0i64;
    for &id in ids {
        let mut d = (id - last) as u64;
        last = id;
        loop {
            let byte = (d & 0x7f) as u8;
            d >>= 7;
            if d == 0 {
                out.push(byte);
                break;
            }
            out.push(byte | 0x80);
        }
    }
    out
}

/// The ids of [`encode_ids`], appended to `out`.
pub fn decode_ids(bytes: &[u8], out: &mut Vec<i64>) {
    let mut last = 0i64;
    let mut d = 0u64;
    let mut shift = 0u32;
    for &b in bytes {
        if shift < 64 {
            d |= u64::from(b & 0x7f) << shift;
        }
        if b & 0x80 == 0 {
            last = last.wrapping_add(d as i64);
            out.push(last);
            d = 0;
            shift = 0;
        } else {
            shift += 7;
        }
    }
}

/// DDL of a grid table named `table`.
pub fn create_sql(table: &str) -> String {
    format!("CREATE TABLE IF NOT EXISTS {table} (cell INTEGER PRIMARY KEY, ids BLOB NOT NULL);")
}

/// (Re)writes the grid `table` from every `(id, lat, lng)` of `points_table`.
pub fn rebuild(conn: &Connection, table: &str, points_table: &str) -> rusqlite::Result<u64> {
    let mut cells: std::collections::BTreeMap<i64, Vec<i64>> = Default::default();
    let mut n = 0u64;
    {
        let mut st = conn.prepare(&format!("SELECT id, lat, lng FROM {points_table}"))?;
        let mut rows = st.query([])?;
        while let Some(r) = rows.next()? {
            let (id, lat, lng): (i64, f64, f64) = (r.get(0)?, r.get(1)?, r.get(2)?);
            cells.entry(cell_of(lat, lng)).or_default().push(id);
            n += 1;
        }
    }
    conn.execute(&format!("DELETE FROM {table}"), [])?;
    let mut ins = conn.prepare(&format!("INSERT INTO {table}(cell, ids) VALUES (?1, ?2)"))?;
    for (cell, mut ids) in cells {
        ids.sort_unstable();
        ins.execute(params![cell, encode_ids(&ids)])?;
    }
    Ok(n)
}

/// Ids (ascending) of the points in the cells that the box `[min_lat, max_lat, min_lng,
/// max_lng]` touches, from the grid `table`.
pub fn ids_in(conn: &Connection, table: &str, b: [f64; 4]) -> rusqlite::Result<Vec<i64>> {
    let mut out = Vec::new();
    if !(b[0] <= b[1] && b[2] <= b[3]) {
        return Ok(out);
    }
    let (r0, r1) = (row_of(b[0]), row_of(b[1]));
    let (c0, c1) = (column_of(b[2]), column_of(b[3]));
    let mut st = conn.prepare_cached(&format!(
        "SELECT ids FROM {table} WHERE cell BETWEEN ?1 AND ?2"
    ))?;
    if r1 - r0 < 64 {
        for r in r0..=r1 {
            let mut rows = st.query(params![(r << COLUMN_BITS) | c0, (r << COLUMN_BITS) | c1])?;
            while let Some(row) = rows.next()? {
                decode_ids(row.get_ref(0)?.as_blob()?, &mut out);
            }
        }
    } else {
        // A tall box: one scan of its rows, the columns checked here.
        let mut st = conn.prepare_cached(&format!(
            "SELECT cell, ids FROM {table} WHERE cell BETWEEN ?1 AND ?2"
        ))?;
        let mut rows = st.query(params![r0 << COLUMN_BITS, (r1 << COLUMN_BITS) | c1])?;
        while let Some(row) = rows.next()? {
            let column = row.get::<_, i64>(0)? & ((1 << COLUMN_BITS) - 1);
            if (c0..=c1).contains(&column) {
                decode_ids(row.get_ref(1)?.as_blob()?, &mut out);
            }
        }
    }
    out.sort_unstable();
    Ok(out)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip() {
        let ids = [1, 2, 130, 131, 100_000, 1 << 40];
        let mut back = Vec::new();
        decode_ids(&encode_ids(&ids), &mut back);
        assert_eq!(back, ids);
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
            let found = ids_in(&conn, "pts_grid", b).unwrap();
            let inside: Vec<i64> = pts
                .iter()
                .filter(|p| p.1 >= b[0] && p.1 <= b[1] && p.2 >= b[2] && p.2 <= b[3])
                .map(|p| p.0)
                .collect();
            assert!(inside.iter().all(|id| found.contains(id)));
            assert!(found.windows(2).all(|w| w[0] < w[1]));
        }
        assert!(
            ids_in(&conn, "pts_grid", [1.0, 0.0, 0.0, 1.0])
                .unwrap()
                .is_empty()
        );
    }
}
