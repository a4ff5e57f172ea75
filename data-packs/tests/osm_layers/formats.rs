//! A whole pack's layers, errors, and the geometry formats (polyline6, ring assembly, point
//! grids).
use super::*;

#[test]
fn andorra_whole_pack_under_a_minute() {
    let Some((conn, stats)) = build("andorra", OsmLayers::ALL) else {
        return;
    };
    let total_ms = stats.read_ms
        + stats.roads_ms
        + stats.places_ms
        + stats.addresses_ms
        + stats.pois_ms
        + stats.indoor_ms;
    assert!(total_ms <= 60_000, "{total_ms} ms");
    assert_eq!(count(&conn, "SELECT count(*) FROM addresses"), 189);
    assert!(
        count(
            &conn,
            "SELECT count(*) FROM places WHERE kind = 'country' AND country_code = 'AD'"
        ) == 1
    );
    assert!(
        stats.bbox[0] < 1.5 && stats.bbox[2] > 1.5 && stats.bbox[1] < 42.5 && stats.bbox[3] > 42.5
    );
}

#[test]
fn missing_file_is_an_io_error() {
    let mut conn = Connection::open_in_memory().unwrap();
    waymark_core::packs::schema::create_all(&conn).unwrap();
    let err = build_osm(
        Path::new("/nonexistent/x.osm.pbf"),
        &mut conn,
        &OsmLayers::ALL,
        &mut |_, _, _| {},
    )
    .unwrap_err();
    assert!(err.to_string().contains("/nonexistent/x.osm.pbf"), "{err}");
}

#[test]
fn polyline6_round_trip() {
    // deterministic pseudo-random lines (xorshift), including negative and extreme values
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for case in 0..500 {
        let n = (next() % 50) as usize + usize::from(case == 0);
        let pts: Vec<Pt> = (0..n)
            .map(|_| {
                let lat = (next() % 180_000_001) as f64 / 1e6 - 90.0;
                let lng = (next() % 360_000_001) as f64 / 1e6 - 180.0;
                Pt::new(lat, lng)
            })
            .collect();
        let enc = encode_polyline6(&pts).unwrap();
        assert!(enc.bytes().all(|b| (63..=126).contains(&b)));
        let dec = decode_polyline6(&enc).unwrap();
        assert_eq!(dec.len(), pts.len());
        for (a, b) in pts.iter().zip(&dec) {
            assert!(
                (a.lat - b.lat).abs() < 5e-7 && (a.lng - b.lng).abs() < 5e-7,
                "{a:?} {b:?}"
            );
        }
        assert_eq!(decode_test(&enc), dec);
    }
    assert_eq!(encode_polyline6(&[]).unwrap(), "");
}

/// An independent decoder written for the test (straight from the algorithm description).
fn decode_test(s: &str) -> Vec<Pt> {
    let mut values = Vec::new();
    let (mut acc, mut shift) = (0i64, 0);
    for b in s.bytes() {
        let chunk = i64::from(b) - 63;
        acc |= (chunk & 0x1f) << shift;
        shift += 5;
        if chunk & 0x20 == 0 {
            let v = if acc & 1 != 0 {
                -((acc + 1) >> 1)
            } else {
                acc >> 1
            };
            values.push(v);
            acc = 0;
            shift = 0;
        }
    }
    let mut out = Vec::new();
    let (mut lat, mut lng) = (0i64, 0i64);
    for pair in values.chunks(2) {
        lat += pair[0];
        lng += pair[1];
        out.push(Pt::new(lat as f64 / 1e6, lng as f64 / 1e6));
    }
    out
}

#[test]
fn ring_assembly_joins_three_ways() {
    // a square 1-2-3-4-1 split into three ways, the middle one reversed
    let ways = vec![vec![1, 2], vec![4, 3, 2], vec![4, 1]];
    let rings = assemble_rings(&ways);
    assert_eq!(rings.open, 0);
    assert_eq!(rings.closed.len(), 1);
    let ring = &rings.closed[0];
    assert_eq!(ring.first(), ring.last());
    let mut ids: Vec<i64> = ring[..ring.len() - 1].to_vec();
    ids.sort_unstable();
    assert_eq!(ids, [1, 2, 3, 4]);
    // a missing piece leaves the chain open
    let rings = assemble_rings(&[vec![1, 2], vec![4, 3, 2]]);
    assert_eq!((rings.closed.len(), rings.open), (0, 1));
    // two separate rings plus an already closed way
    let rings = assemble_rings(&[
        vec![1, 2, 3],
        vec![3, 1],
        vec![5, 6, 7, 5],
        vec![8, 9],
        vec![9, 10, 8],
    ]);
    assert_eq!((rings.closed.len(), rings.open), (3, 0));
}

/// Every point of `points` is in its own cell of the grid `grid` (pack format 5), once, and
/// its sub-cell holds its position.
pub(crate) fn assert_grid_holds_every_point(conn: &Connection, grid: &str, points: &str) {
    use waymark_core::packs::grid::{GridPoint, cell_of, decode_cell};
    let mut in_grid = std::collections::HashMap::new();
    let mut st = conn
        .prepare(&format!("SELECT cell, ids FROM {grid}"))
        .unwrap();
    let mut rows = st.query([]).unwrap();
    while let Some(r) = rows.next().unwrap() {
        let cell: i64 = r.get(0).unwrap();
        let mut found: Vec<GridPoint> = Vec::new();
        decode_cell(cell, r.get_ref(1).unwrap().as_blob().unwrap(), &mut found);
        assert!(found.windows(2).all(|w| w[0].id < w[1].id));
        for p in found {
            assert!(
                in_grid.insert(p.id, (cell, p)).is_none(),
                "{grid}: id {} twice",
                p.id
            );
        }
    }
    let mut st = conn
        .prepare(&format!("SELECT id, lat, lng FROM {points}"))
        .unwrap();
    let pts: Vec<(i64, f64, f64)> = st
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert!(!pts.is_empty());
    assert_eq!(pts.len(), in_grid.len(), "{grid}");
    for (id, lat, lng) in pts {
        let (cell, p) = in_grid[&id];
        assert_eq!(cell, cell_of(lat, lng), "{grid}: id {id}");
        assert!(p.lat[0] <= lat && lat <= p.lat[1], "{grid}: id {id} {p:?}");
        assert!(p.lng[0] <= lng && lng <= p.lng[1], "{grid}: id {id} {p:?}");
    }
}
