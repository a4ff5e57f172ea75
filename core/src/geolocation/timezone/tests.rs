//! The grid against a plain scan of the polygons.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, OnceLock};

use super::*;

/// A polyline6 ring of `(lng, lat)` points, as the packs store them.
fn ring(pts: &[(f64, f64)]) -> String {
    let coords: Vec<geo_types::Coord<f64>> = pts
        .iter()
        .map(|&(x, y)| geo_types::Coord { x, y })
        .collect();
    polyline::encode_coordinates(coords, 6).unwrap()
}

#[test]
fn polygons_with_holes() {
    let mut b = TimezoneIndexBuilder::default();
    // A square zone with a square hole.
    let outer = ring(&[
        (10.0, 10.0),
        (12.0, 10.0),
        (12.0, 12.0),
        (10.0, 12.0),
        (10.0, 10.0),
    ]);
    let hole = ring(&[
        (10.5, 10.5),
        (11.5, 10.5),
        (11.5, 11.5),
        (10.5, 11.5),
        (10.5, 10.5),
    ]);
    let shape = serde_json::to_string(&vec![vec![outer, hole]]).unwrap();
    b.add("Europe/Berlin", &shape).unwrap();
    b.add("Europe/Berlin", &shape).unwrap();
    assert_eq!(b.len(), 1, "a zone given twice is kept once");
    let idx = b.build();
    assert_eq!(idx.lookup(10.2, 10.2), "Europe/Berlin");
    assert_eq!(
        idx.lookup(11.0, 11.0),
        "Etc/GMT-1",
        "inside the hole: nautical zone"
    );
    assert_eq!(idx.lookup(40.0, 40.0), "Etc/GMT-3");
    assert_eq!(
        TimezoneIndexBuilder::default().build().lookup(0.0, 0.0),
        "Etc/GMT"
    );
}

/// A zone of the tests: its id and the rings of one polygon.
type TestZone = (String, Vec<Vec<(f64, f64)>>);

/// Even-odd test over all rings of a polygon, the plain scan the grid replaces.
fn scan_contains(rings: &[Vec<(f64, f64)>], x: f64, y: f64) -> bool {
    let mut inside = false;
    for ring in rings {
        let n = ring.len();
        let mut j = n - 1;
        for i in 0..n {
            let (xi, yi) = ring[i];
            let (xj, yj) = ring[j];
            if (yi > y) != (yj > y) && x < (xj - xi) * (y - yi) / (yj - yi) + xi {
                inside = !inside;
            }
            j = i;
        }
    }
    inside
}

#[test]
fn the_grid_answers_as_a_scan_of_the_polygons() {
    // Jagged zones (thousands of short edges, so cells split deep), a zone with a hole,
    // overlapping zones (the first loaded wins), zones touching the antimeridian and the
    // poles; compared with a plain scan on random points.
    let mut seed = 0x2545_f491_4f6c_dd1d_u64;
    let mut rnd = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed >> 11) as f64 / (1u64 << 53) as f64
    };
    let jagged = |cx: f64, cy: f64, r: f64, n: usize, rnd: &mut dyn FnMut() -> f64| {
        let mut pts: Vec<(f64, f64)> = (0..n)
            .map(|i| {
                let t = i as f64 / n as f64 * std::f64::consts::TAU;
                let rr = r * (0.6 + 0.4 * rnd());
                (cx + rr * t.cos(), cy + rr * t.sin())
            })
            .collect();
        pts.push(pts[0]);
        pts
    };
    let mut zones: Vec<TestZone> = vec![
        (
            "A/Jagged".into(),
            vec![jagged(5.3, 45.1, 3.0, 4000, &mut rnd)],
        ),
        (
            "B/Overlap".into(),
            vec![jagged(7.0, 46.0, 2.5, 500, &mut rnd)],
        ),
        (
            "C/Holed".into(),
            vec![
                vec![
                    (-20.0, -10.0),
                    (-10.0, -10.0),
                    (-10.0, 0.0),
                    (-20.0, 0.0),
                    (-20.0, -10.0),
                ],
                jagged(-15.0, -5.0, 2.0, 300, &mut rnd),
            ],
        ),
        (
            "D/East".into(),
            vec![vec![
                (175.0, -20.0),
                (180.0, -20.0),
                (180.0, -10.0),
                (175.0, -10.0),
                (175.0, -20.0),
            ]],
        ),
        (
            "E/West".into(),
            vec![vec![
                (-180.0, -20.0),
                (-175.0, -20.0),
                (-175.0, -10.0),
                (-180.0, -10.0),
                (-180.0, -20.0),
            ]],
        ),
        (
            "F/Pole".into(),
            vec![vec![
                (-180.0, 80.0),
                (180.0, 80.0),
                (180.0, 90.0),
                (-180.0, 90.0),
                (-180.0, 80.0),
            ]],
        ),
    ];
    zones.push((
        "G/Long".into(),
        vec![vec![
            (-40.0, -60.0),
            (-30.0, 70.0),
            (-20.0, -60.0),
            (-40.0, -60.0),
        ]],
    ));
    let builder = || {
        let mut b = TimezoneIndexBuilder::default();
        for (tzid, rings) in &zones {
            let encoded: Vec<String> = rings.iter().map(|r| ring(r)).collect();
            b.add(tzid, &serde_json::to_string(&vec![encoded]).unwrap())
                .unwrap();
        }
        b
    };
    let idx = builder().build();
    let st = idx.stats();
    assert!(st.edge_leaves > 100 && st.nodes > TOP_W * TOP_H, "{st:?}");
    // The scan works on the rounded (polyline6) coordinates the index holds.
    let round = |v: f64| (v * 1e6).round() / 1e6;
    let rounded: Vec<TestZone> = zones
        .iter()
        .map(|(t, rings)| {
            (
                t.clone(),
                rings
                    .iter()
                    .map(|r| r.iter().map(|&(x, y)| (round(x), round(y))).collect())
                    .collect(),
            )
        })
        .collect();
    let scan = |lat: f64, lng: f64| -> String {
        rounded
            .iter()
            .find(|(_, rings)| scan_contains(rings, lng, lat))
            .map_or_else(|| nautical_zone(lng).to_string(), |(t, _)| t.clone())
    };
    // The same zones without their grid: the scan that answers while the grid builds.
    let grid = idx;
    let scanning = TimezoneIndex {
        zones: Arc::clone(&grid.zones),
        grid: Arc::new(OnceLock::new()),
    };
    assert!(grid.grid_ready() && !scanning.grid_ready());
    // Points on the polygons' vertices and edge midpoints: the tie rules agree.
    for (_, rings) in &rounded {
        for r in rings {
            for w in r.windows(2).step_by(7) {
                let (a, b) = (w[0], w[1]);
                for (x, y) in [a, ((a.0 + b.0) / 2.0, (a.1 + b.1) / 2.0)] {
                    assert_eq!(grid.lookup(y, x), scanning.lookup(y, x), "{y},{x}");
                }
            }
        }
    }
    for idx in [&grid, &scanning] {
        let mut checked = 0;
        for i in 0..30_000 {
            // Half the points near the jagged zones, the rest anywhere.
            let (lat, lng) = if i % 2 == 0 {
                (40.0 + rnd() * 10.0, 1.0 + rnd() * 10.0)
            } else {
                (rnd() * 180.0 - 90.0, rnd() * 360.0 - 180.0)
            };
            assert_eq!(idx.lookup(lat, lng), scan(lat, lng), "{lat},{lng}");
            checked += 1;
        }
        assert_eq!(checked, 30_000);
        // Domain edges: the antimeridian and the poles answer as the scan does (a point on a
        // polygon's east or north edge is outside it, as with any even-odd ray cast).
        for (lat, lng) in [(-15.0, -180.0), (90.0, 0.0), (-90.0, 0.0), (85.0, -180.0)] {
            assert_eq!(idx.lookup(lat, lng), scan(lat, lng), "{lat},{lng}");
        }
        // +180° is -180°.
        for lat in [-15.0, 0.0, 85.0, -89.0] {
            assert_eq!(idx.lookup(lat, 180.0), scan(lat, -180.0), "{lat},180");
        }
        assert_eq!(idx.lookup(-15.0, 180.0), "E/West");
        assert_eq!(idx.lookup(-15.0, 179.999_999), "D/East");
        assert_eq!(idx.lookup(-15.0, -180.0), "E/West");
        assert_eq!(idx.lookup(89.999_999, 0.0), "F/Pole");
        assert_eq!(idx.lookup(-90.0, 0.0), "Etc/GMT");
    }
    // Built in the background: the grid arrives and answers the same.
    let late = builder().build_in_background();
    assert_eq!(late.lookup(45.0, 5.0), grid.lookup(45.0, 5.0));
    late.wait_for_grid();
    assert_eq!(late.stats().nodes, grid.stats().nodes);
}
