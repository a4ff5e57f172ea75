//! Datasets on 100,000 parcels: `cargo bench -p waymark-tests --bench datasets`.
//!
//! A grid of 100,000 quadrilateral parcels (about 40 m × 50 m, jittered corners) over
//! Helsinki with four attributes each, written as a GeoJSON FeatureCollection, imported from a
//! `file://` URL (timed from `POST` to a successful status), then: contains with a point,
//! contains with a 100 m buffered polyline of five points, search with a two-clause `where`,
//! and feature get — each as p50/p95/p99 over 2,000 calls through the engine. Last, the same
//! 100,000 parcels written as a GeoPackage in a projected system (EPSG:3067, ETRS-TM35FIN,
//! Finland's national grid) and imported (reprojected to WGS 84) from a `file://` URL, timed
//! from `POST` to a successful status; a contains query at a parcel's centre then checks the
//! parcel landed where it belongs.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::io::Write;
use std::time::{Duration, Instant};

use waymark_core::api::*;
use waymark_core::auth::keys::Publisher;
use waymark_core::operation::Credentials;

const COLS: usize = 400;
const ROWS: usize = 250;
const DX: f64 = 0.0008; // ~44 m of longitude at 60° N
const DY: f64 = 0.00045; // ~50 m of latitude
const WEST: f64 = 24.80;
const SOUTH: f64 = 60.10;

fn write_parcels(path: &std::path::Path) {
    let mut rng = waymark_tests::Rng::new(3);
    let mut w = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    w.write_all(b"{\"type\":\"FeatureCollection\",\"features\":[\n")
        .unwrap();
    // Shared jittered grid corners, so that neighbouring parcels meet without gaps.
    let corner = |i: usize, j: usize, rng: &mut waymark_tests::Rng| {
        let _ = rng;
        let jx = (((i * 7919 + j * 104_729) % 1000) as f64 / 1000.0 - 0.5) * DX * 0.2;
        let jy = (((i * 6271 + j * 15_485_863) % 1000) as f64 / 1000.0 - 0.5) * DY * 0.2;
        [WEST + i as f64 * DX + jx, SOUTH + j as f64 * DY + jy]
    };
    let zonings = ["residential", "commercial", "industrial", "park", "mixed"];
    let mut n = 0;
    for j in 0..ROWS {
        for i in 0..COLS {
            let ring = [
                corner(i, j, &mut rng),
                corner(i + 1, j, &mut rng),
                corner(i + 1, j + 1, &mut rng),
                corner(i, j + 1, &mut rng),
                corner(i, j, &mut rng),
            ];
            let f = serde_json::json!({
                "type": "Feature",
                "id": format!("parcel-{n}"),
                "geometry": {"type": "Polygon", "coordinates": [ring]},
                "properties": {
                    "parcel": n,
                    "zoning": zonings[rng.below(zonings.len())],
                    "value_keur": (rng.unit() * 2000.0).round(),
                    "owner": {"kind": if rng.unit() < 0.3 { "public" } else { "private" }},
                },
            });
            if n > 0 {
                w.write_all(b",\n").unwrap();
            }
            serde_json::to_writer(&mut w, &f).unwrap();
            n += 1;
        }
    }
    w.write_all(b"\n]}\n").unwrap();
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("parcels.geojson");
    let t = Instant::now();
    write_parcels(&path);
    eprintln!(
        "wrote {} parcels ({} MB) in {:.1} s",
        COLS * ROWS,
        std::fs::metadata(&path).unwrap().len() / 1_000_000,
        t.elapsed().as_secs_f64()
    );
    let publisher = Publisher::generate().unwrap();
    let engine = waymark_tests::open_engine(
        &dir.path().join("state"),
        &dir.path().join("packs"),
        &publisher,
    );
    let caller = waymark_tests::write_caller(&publisher);
    let c = Credentials::Http(&caller);
    let t = Instant::now();
    let d = engine
        .call(
            &c,
            DatasetCreateRequest {
                body: DatasetCreateBody {
                    name: "parcels".into(),
                    url: format!("file://{}", path.display()),
                    scheduled_for_deletion_after: None,
                },
            },
        )
        .unwrap();
    let run = loop {
        let run = engine
            .call(
                &c,
                DatasetStatusRequest {
                    dataset_id: d.id.clone(),
                },
            )
            .unwrap();
        if run.status != ImportStatus::InProgress {
            break run;
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    assert_eq!(run.status, ImportStatus::Success, "{run:?}");
    eprintln!(
        "import of {} polygons: {:.2} s ({})",
        COLS * ROWS,
        t.elapsed().as_secs_f64(),
        run.steps[1].entries.last().unwrap().detail
    );
    let mut rng = waymark_tests::Rng::new(9);
    let points: Vec<(f64, f64)> = (0..2000)
        .map(|_| {
            (
                SOUTH + rng.unit() * ROWS as f64 * DY,
                WEST + rng.unit() * COLS as f64 * DX,
            )
        })
        .collect();
    let mut found = 0;
    waymark_tests::time_percentiles("contains point", points.len(), |i| {
        let (lat, lng) = points[i];
        let r = engine
            .call(
                &c,
                FeatureContainsRequest {
                    dataset_id: d.id.clone(),
                    body: FeatureContainsBody {
                        geometry: InputGeometry::Text(format!("{lat},{lng}")),
                        ..Default::default()
                    },
                    ..Default::default()
                },
            )
            .unwrap();
        found += r.features.len();
    });
    eprintln!("  (features found: {found} for {} points)", points.len());
    let lines: Vec<String> = points
        .iter()
        .map(|&(lat, lng)| {
            let coords: Vec<geo::Coord<f64>> = (0..5)
                .map(|k| geo::coord! {x: lng + k as f64 * 0.0004, y: lat + (k % 2) as f64 * 0.0002})
                .collect();
            polyline::encode_coordinates(coords, 5).unwrap()
        })
        .collect();
    let mut found = 0;
    waymark_tests::time_percentiles("contains 100 m buffered polyline", lines.len(), |i| {
        let r = engine
            .call(
                &c,
                FeatureContainsRequest {
                    dataset_id: d.id.clone(),
                    per_page: 1000,
                    body: FeatureContainsBody {
                        geometry: InputGeometry::Text(lines[i].clone()),
                        buffer: Some(100.0),
                        filter: None,
                    },
                    ..Default::default()
                },
            )
            .unwrap();
        found += r.features.len();
    });
    eprintln!("  (features found: {found})");
    let filters: Vec<String> = (0..2000)
        .map(|k| {
            format!(
                "value_keur:>{} AND zoning:={}",
                1000 + k % 900,
                ["park", "industrial", "mixed"][k % 3]
            )
        })
        .collect();
    waymark_tests::time_percentiles("search, two-clause where", filters.len(), |i| {
        engine
            .call(
                &c,
                FeatureSearchRequest {
                    dataset_id: d.id.clone(),
                    body: FeatureSearchBody {
                        filter: filters[i].clone(),
                    },
                    ..Default::default()
                },
            )
            .unwrap();
    });
    let ids: Vec<String> = (0..20)
        .flat_map(|p| {
            engine
                .call(
                    &c,
                    FeatureSearchRequest {
                        dataset_id: d.id.clone(),
                        page: p + 1,
                        per_page: 100,
                        body: FeatureSearchBody {
                            filter: "parcel:>=0".into(),
                        },
                        ..Default::default()
                    },
                )
                .unwrap()
                .features
                .into_iter()
                .map(|f| f.id)
        })
        .collect();
    waymark_tests::time_percentiles("feature get", ids.len(), |i| {
        engine
            .call(
                &c,
                FeatureGetRequest {
                    dataset_id: d.id.clone(),
                    feature_id: ids[i].clone(),
                    ..Default::default()
                },
            )
            .unwrap();
    });

    gpkg_import(dir.path(), &engine, &c);
}

/// ETRS-TM35FIN (EPSG:3067): transverse Mercator on GRS 1980 with central meridian 27° E,
/// (easting, northing) in metres.
fn tm35fin(lon: f64, lat: f64) -> (f64, f64) {
    waymark_geoformats::testing::transverse_mercator_grs80(lon, lat, 27.0)
}

/// The parcel grid as a GeoPackage layer in EPSG:3067 (rusqlite; GP blobs with ISO WKB).
fn write_parcels_gpkg(path: &std::path::Path) {
    let conn = rusqlite::Connection::open(path).unwrap();
    conn.execute_batch(
        "PRAGMA application_id = 1196444487; PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;
         CREATE TABLE gpkg_spatial_ref_sys (srs_name TEXT NOT NULL, srs_id INTEGER PRIMARY KEY, organization TEXT NOT NULL, organization_coordsys_id INTEGER NOT NULL, definition TEXT NOT NULL, description TEXT);
         INSERT INTO gpkg_spatial_ref_sys VALUES ('ETRS89 / TM35FIN(E,N)', 3067, 'EPSG', 3067, 'PROJCS[\"ETRS89 / TM35FIN(E,N)\"]', NULL);
         CREATE TABLE gpkg_contents (table_name TEXT NOT NULL PRIMARY KEY, data_type TEXT NOT NULL, identifier TEXT, description TEXT DEFAULT '', last_change DATETIME, min_x DOUBLE, min_y DOUBLE, max_x DOUBLE, max_y DOUBLE, srs_id INTEGER);
         CREATE TABLE gpkg_geometry_columns (table_name TEXT NOT NULL, column_name TEXT NOT NULL, geometry_type_name TEXT NOT NULL, srs_id INTEGER NOT NULL, z TINYINT NOT NULL, m TINYINT NOT NULL);
         CREATE TABLE parcels (fid INTEGER PRIMARY KEY, geom BLOB, parcel INTEGER, zoning TEXT, value_keur REAL);
         INSERT INTO gpkg_contents (table_name, data_type, srs_id) VALUES ('parcels', 'features', 3067);
         INSERT INTO gpkg_geometry_columns VALUES ('parcels', 'geom', 'POLYGON', 3067, 0, 0);
         BEGIN;",
    )
    .unwrap();
    let zonings = ["residential", "commercial", "industrial", "park", "mixed"];
    let mut rng = waymark_tests::Rng::new(3);
    let mut ins = conn
        .prepare("INSERT INTO parcels VALUES (?1, ?2, ?3, ?4, ?5)")
        .unwrap();
    let mut n = 0i64;
    for j in 0..ROWS {
        for i in 0..COLS {
            let corners = [(i, j), (i + 1, j), (i + 1, j + 1), (i, j + 1), (i, j)];
            let mut blob = vec![b'G', b'P', 0, 0b0000_0001];
            blob.extend_from_slice(&3067i32.to_le_bytes());
            blob.push(1);
            blob.extend_from_slice(&3u32.to_le_bytes());
            blob.extend_from_slice(&1u32.to_le_bytes());
            blob.extend_from_slice(&5u32.to_le_bytes());
            for (ci, cj) in corners {
                let (e, nn) = tm35fin(WEST + ci as f64 * DX, SOUTH + cj as f64 * DY);
                blob.extend_from_slice(&e.to_le_bytes());
                blob.extend_from_slice(&nn.to_le_bytes());
            }
            ins.execute(rusqlite::params![
                n,
                blob,
                n,
                zonings[rng.below(zonings.len())],
                (rng.unit() * 2000.0).round()
            ])
            .unwrap();
            n += 1;
        }
    }
    conn.execute_batch("COMMIT;").unwrap();
}

fn gpkg_import(
    dir: &std::path::Path,
    engine: &std::sync::Arc<waymark_core::Engine>,
    c: &Credentials<'_>,
) {
    let path = dir.join("parcels-tm35fin.gpkg");
    let t = Instant::now();
    write_parcels_gpkg(&path);
    eprintln!(
        "wrote {} parcels in EPSG:3067 as a GeoPackage ({} MB) in {:.1} s",
        COLS * ROWS,
        std::fs::metadata(&path).unwrap().len() / 1_000_000,
        t.elapsed().as_secs_f64()
    );
    let t = Instant::now();
    let d = engine
        .call(
            c,
            DatasetCreateRequest {
                body: DatasetCreateBody {
                    name: "parcels-tm35fin".into(),
                    url: format!("file://{}", path.display()),
                    scheduled_for_deletion_after: None,
                },
            },
        )
        .unwrap();
    let run = loop {
        let run = engine
            .call(
                c,
                DatasetStatusRequest {
                    dataset_id: d.id.clone(),
                },
            )
            .unwrap();
        if run.status != ImportStatus::InProgress {
            break run;
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    assert_eq!(run.status, ImportStatus::Success, "{run:?}");
    eprintln!(
        "import of {} polygons from a GeoPackage in EPSG:3067 (reprojected): {:.2} s ({})",
        COLS * ROWS,
        t.elapsed().as_secs_f64(),
        run.steps[1].entries.last().unwrap().detail
    );
    // The centre of parcel (i = 123, j = 45) is inside the parcel numbered 45 * COLS + 123.
    let (lat, lng) = (SOUTH + 45.5 * DY, WEST + 123.5 * DX);
    let found = engine
        .call(
            c,
            FeatureContainsRequest {
                dataset_id: d.id.clone(),
                body: FeatureContainsBody {
                    geometry: InputGeometry::Text(format!("{lat},{lng}")),
                    ..Default::default()
                },
                ..Default::default()
            },
        )
        .unwrap();
    let parcels: Vec<_> = found
        .features
        .iter()
        .map(|f| {
            f.attributes
                .as_ref()
                .and_then(|a| a.0.get("parcel"))
                .cloned()
        })
        .collect();
    assert_eq!(
        parcels,
        vec![Some(serde_json::json!(45 * COLS + 123))],
        "{parcels:?}"
    );
}
