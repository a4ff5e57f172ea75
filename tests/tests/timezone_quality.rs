//! Quality of `GET /geolocation/timezone` on the world polygons of the base pack against an
//! independent reference: tzfpy (a different finder with its own bundled boundary data),
//! pinned in `data-packs/sources.toml` (`tz-reference-tzfpy`) and run by
//! `tests/scripts/tz-reference.sh`.
//!
//! * 10,000 random land points: points drawn uniformly on the sphere (seeded) and kept when
//!   the engine or the reference puts them in a zone other than the nautical `Etc/*` ones
//!   ("land" = inside a non-`Etc` zone polygon of either data set, so territorial waters
//!   count as land and neither side chooses the sample alone).
//! * Points within 1 km of a zone border of the pack's own polygons are left out of the score
//!   (the two data sets are simplified differently near borders).
//! * Two different identifiers count as agreement when the tz database gives them the same
//!   UTC offset and abbreviation at noon UTC of every day from 1970 to 2030 (links such as
//!   Europe/Kiev and Europe/Kyiv, and zones identical since 1970 that the two data sets split
//!   or merge differently). Every such pair is printed.
//! * Agreement must be at least 99.9%.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::HashMap;
use std::io::Write;
use std::process::{Command, Stdio};

use chrono::{Offset, TimeZone, Utc};
use chrono_tz::{OffsetName, Tz};
use waymark_core::api::{LatLng, TimezoneRequest};
use waymark_core::operation::Credentials;
use waymark_packs::build::PackPlan;

const LAND_POINTS: usize = 10_000;
const BORDER_KM: f64 = 1.0;
const KM_PER_DEG: f64 = 111.195;
/// Cell side of the border-distance grid, in degrees.
const CELL: f64 = 0.1;

/// The reference zone of each point (empty when it knows none).
fn reference(points: &[(f64, f64)]) -> Vec<String> {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/tz-reference.sh");
    let mut child = Command::new("bash")
        .arg(script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {script}: {e}"));
    let mut input = String::new();
    for (lat, lng) in points {
        input.push_str(&format!("{lat} {lng}\n"));
    }
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()).unwrap());
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    assert!(
        out.status.success(),
        "{script} failed ({}): it needs python3 with pip and the package registry",
        out.status
    );
    let lines: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    assert_eq!(lines.len(), points.len(), "one answer per point");
    lines
}

/// Polygon edges of the pack, bucketed by `CELL`° cells, for distances to the nearest border.
struct Borders {
    vertices: Vec<(f64, f64)>,
    cells: HashMap<(i32, i32), Vec<u32>>,
}

fn cell_of(v: f64) -> i32 {
    (v / CELL).floor() as i32
}

impl Borders {
    fn from_pack(conn: &rusqlite::Connection) -> Self {
        let mut vertices = Vec::new();
        let mut cells: HashMap<(i32, i32), Vec<u32>> = HashMap::new();
        let mut stmt = conn.prepare("SELECT shape FROM timezones").unwrap();
        let shapes: Vec<String> = stmt
            .query_map([], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        for shape in shapes {
            let polygons: Vec<Vec<String>> = serde_json::from_str(&shape).unwrap();
            for ring in polygons.iter().flatten() {
                let line = polyline::decode_polyline(ring, 6).unwrap();
                let start = vertices.len();
                vertices.extend(line.0.iter().map(|c| (c.x, c.y)));
                for i in start..vertices.len().saturating_sub(1) {
                    let (a, b) = (vertices[i], vertices[i + 1]);
                    for cx in cell_of(a.0.min(b.0))..=cell_of(a.0.max(b.0)) {
                        for cy in cell_of(a.1.min(b.1))..=cell_of(a.1.max(b.1)) {
                            cells.entry((cx, cy)).or_default().push(i as u32);
                        }
                    }
                }
                // Mark the end of the ring so that no edge joins two rings.
                vertices.push((f64::NAN, f64::NAN));
            }
        }
        Borders { vertices, cells }
    }

    /// Whether a border lies within `km` of the point (local equirectangular distances).
    fn near(&self, lat: f64, lng: f64, km: f64) -> bool {
        let k = lat.to_radians().cos().max(0.01);
        let dlat = km / KM_PER_DEG;
        let dlng = (dlat / k).min(360.0);
        let project = |p: (f64, f64)| {
            let mut dx = p.0 - lng;
            if dx > 180.0 {
                dx -= 360.0;
            } else if dx < -180.0 {
                dx += 360.0;
            }
            (dx * k * KM_PER_DEG, (p.1 - lat) * KM_PER_DEG)
        };
        let (x0, x1) = (cell_of(lng - dlng), cell_of(lng + dlng));
        for cy in cell_of(lat - dlat)..=cell_of(lat + dlat) {
            for cx in x0..=x1 {
                // Wrap the cell column around the antimeridian.
                let n = (360.0 / CELL) as i32;
                let wrapped = (cx + n / 2).rem_euclid(n) - n / 2;
                let Some(edges) = self.cells.get(&(wrapped, cy)) else {
                    continue;
                };
                for &e in edges {
                    let a = project(self.vertices[e as usize]);
                    let b = project(self.vertices[e as usize + 1]);
                    if segment_distance(a, b) <= km {
                        return true;
                    }
                }
            }
        }
        false
    }
}

/// Distance from the origin to segment `a → b`.
fn segment_distance(a: (f64, f64), b: (f64, f64)) -> f64 {
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let len2 = dx * dx + dy * dy;
    let t = if len2 == 0.0 {
        0.0
    } else {
        (-(a.0 * dx + a.1 * dy) / len2).clamp(0.0, 1.0)
    };
    (a.0 + t * dx).hypot(a.1 + t * dy)
}

/// Whether the tz database gives `a` and `b` the same offset and abbreviation at noon UTC of
/// every day from 1970 to 2030.
fn same_since_1970(a: &str, b: &str) -> bool {
    let (Ok(ta), Ok(tb)) = (a.parse::<Tz>(), b.parse::<Tz>()) else {
        return false;
    };
    let start = Utc.with_ymd_and_hms(1970, 1, 1, 12, 0, 0).unwrap();
    (0..(61 * 366)).all(|day| {
        let t = start + chrono::Duration::days(day);
        let (oa, ob) = (
            ta.from_utc_datetime(&t.naive_utc()),
            tb.from_utc_datetime(&t.naive_utc()),
        );
        oa.offset().fix() == ob.offset().fix()
            && oa.offset().abbreviation() == ob.offset().abbreviation()
    })
}

fn is_sea(tzid: &str) -> bool {
    tzid.is_empty() || tzid.starts_with("Etc/")
}

#[test]
fn ten_thousand_land_points_agree_with_an_independent_finder() {
    let tmp = tempfile::tempdir().unwrap();
    let plan = PackPlan {
        id: "base".into(),
        osm: vec![],
        layers: vec!["timezones".into()],
        base: true,
        routing: Default::default(),
    };
    let (engine, publisher) = waymark_tests::engine_with_pack(&plan, tmp.path());
    let caller = waymark_tests::private_caller(&publisher);
    let ours = |lat: f64, lng: f64| {
        engine
            .call(
                &Credentials::Http(&caller),
                TimezoneRequest {
                    location: LatLng { lat, lng },
                    timestamp: Some(1_768_000_000),
                },
            )
            .unwrap()
            .timezone
    };

    // Candidates uniform on the sphere; land is about a third of them.
    let mut rng = waymark_tests::Rng(0x5eed_7f4a_7c15_9e37);
    let candidates: Vec<(f64, f64)> = (0..40_000).map(|_| rng.sphere_point()).collect();
    let theirs = reference(&candidates);
    let mut land = Vec::new();
    for (i, &(lat, lng)) in candidates.iter().enumerate() {
        let mine = ours(lat, lng);
        if !is_sea(&mine) || !is_sea(&theirs[i]) {
            land.push((lat, lng, mine, theirs[i].clone()));
        }
        if land.len() == LAND_POINTS {
            break;
        }
    }
    assert_eq!(
        land.len(),
        LAND_POINTS,
        "not enough land among the candidates"
    );

    let pack = engine.packs().snapshot().get("base").unwrap().clone();
    let borders = Borders::from_pack(&pack.sqlite().unwrap());
    let (mut scored, mut same, mut equivalent, mut near_border) = (0usize, 0usize, 0usize, 0usize);
    let mut pairs: HashMap<(String, String), usize> = HashMap::new();
    let mut differences = Vec::new();
    let mut equivalence: HashMap<(String, String), bool> = HashMap::new();
    for (lat, lng, mine, theirs) in &land {
        if borders.near(*lat, *lng, BORDER_KM) {
            near_border += 1;
            continue;
        }
        scored += 1;
        if mine == theirs {
            same += 1;
            continue;
        }
        let key = (mine.clone(), theirs.clone());
        let eq = *equivalence
            .entry(key.clone())
            .or_insert_with(|| same_since_1970(mine, theirs));
        if eq {
            equivalent += 1;
            *pairs.entry(key).or_default() += 1;
        } else {
            differences.push(format!(
                "{lat:.5},{lng:.5}: ours {mine}, reference {theirs:?}"
            ));
        }
    }
    let agree = same + equivalent;
    println!(
        "{LAND_POINTS} land points: {near_border} within {BORDER_KM} km of a border left out; \
         {scored} scored: {same} identical, {equivalent} equivalent, {} different \
         ({:.3}% agreement)",
        differences.len(),
        100.0 * agree as f64 / scored as f64
    );
    for ((a, b), n) in &pairs {
        println!("  equivalent since 1970: {a} ~ {b} ({n} points)");
    }
    for d in &differences {
        println!("  {d}");
    }
    assert!(scored >= 9_000, "{scored} points scored");
    assert!(
        agree * 1000 >= scored * 999,
        "{agree}/{scored} agree: {differences:?}"
    );
}
