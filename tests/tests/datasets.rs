//! Datasets over real parts: the building footprints of the Monaco extract (GeoJSON written
//! by `waymark_packs::datasets`) and hydrant-like points (CSV) imported from `file://` URLs
//! into real SQLite data files, queried through the engine and over real HTTP on 127.0.0.1:
//! import runs and their log, feature get (GeoJSON, WKB, field masks), `where` searches
//! against a reference evaluation, contains (points, buffered polylines) against a
//! brute-force reference, and bad input.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod datasets_common;

use std::path::{Path, PathBuf};

use base64::Engine as _;
use datasets_common::*;
use geo::{Contains, Distance, Geometry, Haversine, InteriorPoint, Point};
use serde_json::{Value, json};
use waymark_core::api::*;
use waymark_core::error::{ApiError, ErrorCode};

#[test]
fn the_import_run_logs_both_steps() {
    let f = fixture();
    let run = call(DatasetStatusRequest {
        dataset_id: f.buildings.id.clone(),
    })
    .unwrap();
    assert_eq!(run.status, ImportStatus::Success);
    let names: Vec<_> = run.steps.iter().map(|s| s.name).collect();
    assert_eq!(names, [ImportStepName::Fetch, ImportStepName::Import]);
    assert!(
        run.steps
            .iter()
            .all(|s| s.status == ImportStatus::Success && s.end.is_some())
    );
    let last = &run.steps[1].entries.last().unwrap().detail;
    let imported: String = last
        .strip_prefix("imported ")
        .and_then(|r| r.split(' ').next())
        .unwrap_or_default()
        .replace(',', "");
    assert_eq!(imported, f.source.len().to_string(), "{last}");
    assert!(f.source.len() > 1000, "thousands are separated: {last}");
    assert!(last.contains(','), "{last}");
    let got = call(DatasetGetRequest {
        dataset_id: f.buildings.id.clone(),
    })
    .unwrap();
    assert_eq!(got.name, "Monaco buildings");
    assert!(got.updated_at >= got.created_at);
    let list = call(DatasetListRequest::default()).unwrap();
    assert!(list.datasets.iter().any(|d| d.id == f.buildings.id));
}

#[test]
fn where_searches_match_a_reference_evaluation() {
    let f = fixture();
    let reference = |pred: &dyn Fn(&Value) -> bool| -> usize {
        f.source.iter().filter(|x| pred(&x["properties"])).count()
    };
    type Case = (&'static str, Box<dyn Fn(&Value) -> bool>);
    let cases: Vec<Case> = vec![
        (
            "levels:>=5 AND area_m2:<2000",
            Box::new(|p| {
                p["levels"].as_f64().is_some_and(|l| l >= 5.0)
                    && p["area_m2"].as_f64().is_some_and(|a| a < 2000.0)
            }),
        ),
        (
            "building:=residential OR building:=apartments",
            Box::new(|p| {
                p["building"].as_str().is_some_and(|b| {
                    b.eq_ignore_ascii_case("residential") || b.eq_ignore_ascii_case("apartments")
                })
            }),
        ),
        (
            "building:IN(residential,apartments)",
            Box::new(|p| {
                p["building"].as_str().is_some_and(|b| {
                    b.eq_ignore_ascii_case("residential") || b.eq_ignore_ascii_case("apartments")
                })
            }),
        ),
        ("NOT name:null", Box::new(|p| !p["name"].is_null())),
        (
            "area_m2:>500 AND NOT levels:null",
            Box::new(|p| p["area_m2"].as_f64().unwrap() > 500.0 && !p["levels"].is_null()),
        ),
    ];
    for (filter, pred) in cases {
        let found = search_all(&f.buildings.id, filter);
        let expected = reference(&*pred);
        assert!(expected > 0, "{filter}: the reference matches nothing");
        assert_eq!(found.len(), expected, "{filter}");
        assert!(
            found
                .iter()
                .all(|x| pred(&Value::Object(x.attributes.clone().unwrap().0))),
            "{filter}"
        );
    }
}

#[test]
fn pages_walk_forward_and_back() {
    let f = fixture();
    let all = search_all(&f.buildings.id, "area_m2:>0");
    assert_eq!(all.len(), f.source.len());
    let p1 = search(&f.buildings.id, "area_m2:>0", 1, 10);
    assert_eq!(p1.features.len(), 10);
    assert_eq!((p1.pagination.prev, p1.pagination.next), (None, Some(2)));
    let p2 = search(&f.buildings.id, "area_m2:>0", 2, 10);
    assert_eq!(p2.pagination.prev, Some(1));
    assert_eq!(p2.features[0].id, all[10].id);
    let last = all.len().div_ceil(10) as u32;
    let beyond = search(&f.buildings.id, "area_m2:>0", last + 3, 10);
    assert!(beyond.features.is_empty());
    assert_eq!(beyond.pagination.prev, Some(last));
    assert_eq!(beyond.pagination.next, None);
}

#[test]
fn features_read_back_as_geojson_wkb_and_masked() {
    let f = fixture();
    let first = &search(&f.buildings.id, "levels:>=3", 1, 1).features[0];
    let get = |format, mask: Option<Vec<String>>| {
        call(FeatureGetRequest {
            dataset_id: f.buildings.id.clone(),
            feature_id: first.id.clone(),
            format,
            x_field_mask: mask,
        })
        .unwrap()
    };
    let full = get(DatasetFormat::Geojson, None);
    assert_eq!(full.geometry.0, first.geometry.0);
    assert_eq!(Some(&full.attributes), first.attributes.as_ref());
    let osm_id = full.attributes.get("id").cloned();
    assert_eq!(osm_id, None, "the source id is not an attribute");
    let source = f
        .source
        .iter()
        .find(|s| s["properties"] == Value::Object(full.attributes.0.clone()))
        .expect("the feature's attributes are those of a source feature");
    assert_eq!(full.geometry.0, source["geometry"]);
    let wkb = get(DatasetFormat::Wkb, None);
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(wkb.geometry.0.as_str().unwrap())
        .unwrap();
    assert_eq!(bytes[0], 1, "little-endian WKB");
    assert_eq!(
        u32::from_le_bytes(bytes[1..5].try_into().unwrap()),
        3,
        "a polygon"
    );
    let masked = get(
        DatasetFormat::Geojson,
        Some(vec!["id".into(), "attributes.levels".into()]),
    );
    assert_eq!(masked.geometry.0, Value::Null);
    assert_eq!(
        Value::Object(masked.attributes.0),
        json!({"levels": full.attributes.get("levels").unwrap()})
    );
    let err = call(FeatureGetRequest {
        dataset_id: f.buildings.id.clone(),
        feature_id: first.id.clone(),
        format: DatasetFormat::Geojson,
        x_field_mask: Some(vec!["colour".into()]),
    })
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::Validation);
    assert_eq!(
        err.fields[0].loc,
        vec![json!("header"), json!("x-field-mask")]
    );
    let err = call(FeatureGetRequest {
        dataset_id: f.buildings.id.clone(),
        feature_id: "nope".into(),
        ..Default::default()
    })
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::NotFound);
}

fn contains(
    id: &str,
    geometry: InputGeometry,
    buffer: Option<f64>,
    filter: Option<&str>,
) -> Result<Vec<FeatureSummary>, ApiError> {
    let mut out = Vec::new();
    let mut page = 1;
    loop {
        let r = call(FeatureContainsRequest {
            dataset_id: id.into(),
            per_page: 1000,
            page,
            body: FeatureContainsBody {
                geometry: geometry.clone(),
                buffer,
                filter: filter.map(str::to_owned),
            },
            ..Default::default()
        })?;
        out.extend(r.features);
        match r.pagination.next {
            Some(n) => page = n,
            None => return Ok(out),
        }
    }
}

#[test]
fn contains_a_point_agrees_with_brute_force() {
    let f = fixture();
    let shapes: Vec<Geometry<f64>> = f.source.iter().map(|s| geometry(&s["geometry"])).collect();
    let mut rng = waymark_tests::Rng::new(7);
    let mut hits = 0;
    for k in 0..300 {
        // Half inside a building, half anywhere in the extract's box.
        let p = if k % 2 == 0 {
            let s = &shapes[rng.below(shapes.len())];
            s.interior_point().unwrap()
        } else {
            Point::new(7.41 + rng.unit() * 0.03, 43.725 + rng.unit() * 0.03)
        };
        let expected: Vec<usize> = (0..shapes.len())
            .filter(|&i| shapes[i].contains(&p))
            .collect();
        let text = format!("{},{}", p.y(), p.x());
        let got = contains(&f.buildings.id, InputGeometry::Text(text), None, None).unwrap();
        let got_attrs: Vec<Value> = got
            .iter()
            .map(|x| Value::Object(x.attributes.clone().unwrap().0))
            .collect();
        let want_attrs: Vec<Value> = expected
            .iter()
            .map(|&i| f.source[i]["properties"].clone())
            .collect();
        assert_eq!(got_attrs, want_attrs, "at {p:?}");
        hits += usize::from(!got.is_empty());
    }
    assert!(hits >= 150, "{hits}");
}

#[test]
fn buffers_shrink_what_contains_a_point() {
    let f = fixture();
    let shapes: Vec<Geometry<f64>> = f.source.iter().map(|s| geometry(&s["geometry"])).collect();
    // A large building, and a point inside it.
    let (i, shape) = shapes
        .iter()
        .enumerate()
        .max_by(|a, b| {
            let area = |i: usize| f.source[i]["properties"]["area_m2"].as_f64().unwrap();
            area(a.0).total_cmp(&area(b.0))
        })
        .unwrap();
    let p = shape.interior_point().unwrap();
    let Geometry::Polygon(poly) = shape else {
        panic!()
    };
    let to_edge = poly
        .exterior()
        .lines()
        .map(|l| {
            // Metres from p to the segment, sampled finely.
            (0..=100)
                .map(|t| {
                    let t = t as f64 / 100.0;
                    let q = Point::new(
                        l.start.x + (l.end.x - l.start.x) * t,
                        l.start.y + (l.end.y - l.start.y) * t,
                    );
                    Haversine.distance(p, q)
                })
                .fold(f64::INFINITY, f64::min)
        })
        .fold(f64::INFINITY, f64::min);
    let text = InputGeometry::Text(format!("POINT({} {})", p.x(), p.y()));
    let ids = |buffer| -> Vec<Value> {
        contains(&f.buildings.id, text.clone(), Some(buffer), None)
            .unwrap()
            .into_iter()
            .map(|x| Value::Object(x.attributes.unwrap().0))
            .collect()
    };
    assert!(ids(to_edge * 0.9).contains(&f.source[i]["properties"]));
    assert!(!ids(to_edge * 1.1).contains(&f.source[i]["properties"]));
}

/// Hydrant-like points: the buildings' interior points with a pressure, as CSV.
fn hydrants_csv(dir: &Path) -> (PathBuf, Vec<(Point<f64>, f64)>) {
    let f = fixture();
    let mut rng = waymark_tests::Rng::new(11);
    let mut rows = String::from("id;lat;lng;pressure;kind\n");
    let mut points = Vec::new();
    for (k, s) in f.source.iter().enumerate() {
        let p = geometry(&s["geometry"]).interior_point().unwrap();
        let pressure = (rng.unit() * 60.0).round() / 10.0;
        rows.push_str(&format!("h{k};{};{};{pressure};hydrant\n", p.y(), p.x()));
        points.push((p, pressure));
    }
    let path = dir.join("hydrants.csv");
    std::fs::write(&path, rows).unwrap();
    (path, points)
}

#[test]
fn points_within_a_buffered_polyline_with_a_filter() {
    let f = fixture();
    let dir = tempfile::tempdir().unwrap();
    let (csv, points) = hydrants_csv(dir.path());
    let hydrants = create(&f.engine, "hydrants", &file_url(&csv));
    assert_eq!(wait(&f.engine, &hydrants.id).status, ImportStatus::Success);
    // A street-like line across Monaco, as an encoded polyline.
    let line = [
        (43.7275, 7.4160),
        (43.7330, 7.4190),
        (43.7385, 7.4250),
        (43.7410, 7.4300),
    ];
    let encoded = polyline::encode_coordinates(
        line.iter().map(|&(lat, lng)| geo::coord! {x: lng, y: lat}),
        5,
    )
    .unwrap();
    let got = contains(
        &hydrants.id,
        InputGeometry::Text(encoded),
        Some(50.0),
        Some("pressure:>3"),
    )
    .unwrap();
    let near = |p: Point<f64>| {
        line.windows(2).any(|w| {
            (0..=400).any(|t| {
                let t = t as f64 / 400.0;
                let q = Point::new(
                    w[0].1 + (w[1].1 - w[0].1) * t,
                    w[0].0 + (w[1].0 - w[0].0) * t,
                );
                Haversine.distance(p, q) <= 50.0
            })
        })
    };
    let far = |p: Point<f64>| {
        line.windows(2).all(|w| {
            (0..=400).all(|t| {
                let t = t as f64 / 400.0;
                let q = Point::new(
                    w[0].1 + (w[1].1 - w[0].1) * t,
                    w[0].0 + (w[1].0 - w[0].0) * t,
                );
                Haversine.distance(p, q) > 50.5
            })
        })
    };
    assert!(!got.is_empty());
    for x in &got {
        let a = x.attributes.as_ref().unwrap();
        assert!(a.get("pressure").unwrap().as_f64().unwrap() > 3.0);
        let c = &x.geometry.0["coordinates"];
        let p = Point::new(c[0].as_f64().unwrap(), c[1].as_f64().unwrap());
        assert!(!far(p), "{p:?} is more than 50 m from the line");
    }
    let expected = points
        .iter()
        .filter(|(p, pr)| *pr > 3.0 && near(*p) && !far(*p))
        .count();
    let borderline = points
        .iter()
        .filter(|(p, pr)| *pr > 3.0 && !near(*p) && !far(*p))
        .count();
    assert!(
        got.len() >= expected && got.len() <= expected + borderline,
        "{} found, {expected} expected (+{borderline} within half a metre of 50 m)",
        got.len()
    );
}

#[test]
fn bad_input_is_a_422_that_points_at_it() {
    let f = fixture();
    let err = call(FeatureSearchRequest {
        dataset_id: f.buildings.id.clone(),
        body: FeatureSearchBody {
            filter: "levels:>=five".into(),
        },
        ..Default::default()
    })
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::Validation);
    assert_eq!(err.fields[0].loc, vec![json!("body"), json!("where")]);
    assert!(
        err.fields[0].msg.contains("column"),
        "{}",
        err.fields[0].msg
    );
    for (geometry, words) in [
        (
            json!({"type": "Polygon", "coordinates": [[[7.41, 43.73], [7.42, 43.73], [7.42, 43.74]]]}),
            "ring",
        ),
        (
            json!({"type": "Polygon", "coordinates": [[[7.41, 43.73], [7.42, 43.74], [7.42, 43.73], [7.41, 43.74], [7.41, 43.73]]]}),
            "intersect",
        ),
    ] {
        let err = contains(
            &f.buildings.id,
            InputGeometry::GeoJson(JsonObject(geometry.as_object().unwrap().clone())),
            None,
            None,
        )
        .unwrap_err();
        assert_eq!(err.code, ErrorCode::Validation, "{err:?}");
        assert_eq!(err.fields[0].loc, vec![json!("body"), json!("geometry")]);
        assert!(err.fields[0].msg.contains(words), "{}", err.fields[0].msg);
    }
    let err = contains(
        &f.buildings.id,
        InputGeometry::Text("95,7".into()),
        None,
        None,
    )
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::Validation, "{err:?}");
    let err = call(DatasetGetRequest {
        dataset_id: "00000000-0000-0000-0000-000000000000".into(),
    })
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::NotFound);
}

#[test]
fn http_answers_equal_the_engine_and_errors_have_the_datasets_bodies() {
    let f = fixture();
    let key = caller().private_key.unwrap();
    let id = &f.buildings.id;
    let body = r#"{"where": "levels:>=5"}"#;
    let http = f.server.call(
        "POST",
        &format!("/datasets/{id}/features/search?per_page=5&private_key={key}"),
        "",
        body,
    );
    assert_eq!(http.status, 200, "{}", http.body);
    let engine = search(id, "levels:>=5", 1, 5);
    assert_eq!(http.body, serde_json::to_string(&engine).unwrap());
    let feature = &engine.features[0].id;
    let http = f.server.call(
        "GET",
        &format!("/datasets/{id}/features/{feature}/?format=wkb&private_key={key}"),
        "",
        "",
    );
    assert_eq!(http.status, 200, "{}", http.body);
    let v: Value = serde_json::from_str(&http.body).unwrap();
    assert!(v["geometry"].is_string());
    let http = f.server.call(
        "GET",
        &format!("/datasets/{id}/features/nope?private_key={key}"),
        "",
        "",
    );
    assert_eq!(http.status, 404);
    let v: Value = serde_json::from_str(&http.body).unwrap();
    assert!(v["details"].as_str().unwrap().contains("nope"), "{v}");
    let http = f.server.call(
        "POST",
        &format!("/datasets/{id}/features/contains?private_key={key}"),
        "",
        r#"{"geometry": "43.7384,7.4246", "where": "levels:>"}"#,
    );
    assert_eq!(http.status, 422, "{}", http.body);
    // A read-only key may not list datasets (K3).
    let ro = waymark_tests::private_caller(&f.publisher)
        .api_key_header
        .unwrap();
    let http = f.server.call("GET", "/datasets", &ro, "");
    assert_eq!(http.status, 403, "{}", http.body);
}

/// A GeoPackage point blob (little-endian header without envelope, then ISO WKB).
fn gp_point(srs_id: i32, x: f64, y: f64) -> Vec<u8> {
    let mut b = vec![b'G', b'P', 0, 0b0000_0001, 0, 0, 0, 0];
    b[4..8].copy_from_slice(&srs_id.to_le_bytes());
    b.push(1);
    b.extend_from_slice(&1u32.to_le_bytes());
    b.extend_from_slice(&x.to_le_bytes());
    b.extend_from_slice(&y.to_le_bytes());
    b
}

#[test]
fn geopackage_layers_are_chosen_in_the_url_and_reprojected() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("network.gpkg");
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute_batch(
        "CREATE TABLE gpkg_spatial_ref_sys (srs_name TEXT NOT NULL, srs_id INTEGER PRIMARY KEY, organization TEXT NOT NULL, organization_coordsys_id INTEGER NOT NULL, definition TEXT NOT NULL, description TEXT);
         INSERT INTO gpkg_spatial_ref_sys VALUES ('WGS 84 / Pseudo-Mercator', 3857, 'EPSG', 3857, 'PROJCS[\"WGS 84 / Pseudo-Mercator\"]', NULL);
         INSERT INTO gpkg_spatial_ref_sys VALUES ('WGS 84', 4326, 'EPSG', 4326, 'GEOGCS[\"WGS 84\"]', NULL);
         CREATE TABLE gpkg_contents (table_name TEXT NOT NULL PRIMARY KEY, data_type TEXT NOT NULL, identifier TEXT, description TEXT DEFAULT '', last_change DATETIME, min_x DOUBLE, min_y DOUBLE, max_x DOUBLE, max_y DOUBLE, srs_id INTEGER);
         CREATE TABLE gpkg_geometry_columns (table_name TEXT NOT NULL, column_name TEXT NOT NULL, geometry_type_name TEXT NOT NULL, srs_id INTEGER NOT NULL, z TINYINT NOT NULL, m TINYINT NOT NULL);
         CREATE TABLE hydrants (fid INTEGER PRIMARY KEY, geom BLOB, n INTEGER);
         CREATE TABLE valves (fid INTEGER PRIMARY KEY, geom BLOB, n INTEGER);
         INSERT INTO gpkg_contents (table_name, data_type, srs_id) VALUES ('hydrants', 'features', 3857), ('valves', 'features', 4326);
         INSERT INTO gpkg_geometry_columns VALUES ('hydrants', 'geom', 'POINT', 3857, 0, 0), ('valves', 'geom', 'POINT', 4326, 0, 0);",
    )
    .unwrap();
    // Hydrants around Monaco in spherical Mercator (x = R·λ, y = R·ln tan(π/4 + φ/2)).
    let places: Vec<(f64, f64)> = (0..20)
        .map(|i| (7.41 + i as f64 * 0.001, 43.73 + (i % 5) as f64 * 0.001))
        .collect();
    let r = 6_378_137.0f64;
    for (i, (lon, lat)) in places.iter().enumerate() {
        let (x, y) = (
            r * lon.to_radians(),
            r * (std::f64::consts::FRAC_PI_4 + lat.to_radians() / 2.0)
                .tan()
                .ln(),
        );
        conn.execute(
            "INSERT INTO hydrants VALUES (?1, ?2, ?1)",
            rusqlite::params![i as i64, gp_point(3857, x, y)],
        )
        .unwrap();
    }
    conn.execute(
        "INSERT INTO valves VALUES (1, ?1, 1)",
        rusqlite::params![gp_point(4326, 7.42, 43.74)],
    )
    .unwrap();
    drop(conn);
    let engine = &fixture().engine;
    let url = file_url(&path);

    // Two feature tables and none named: the import fails, listing them.
    let d = create(engine, "network", &url);
    let run = wait(engine, &d.id);
    assert_eq!(run.status, ImportStatus::Failed);
    let detail = &run.steps.last().unwrap().entries.last().unwrap().detail;
    assert!(detail.contains("\"hydrants\", \"valves\""), "{detail}");
    assert!(detail.contains("#layer="), "{detail}");

    // Each table as its own dataset, the projected one reprojected to WGS 84.
    let hydrants = create(engine, "hydrants", &format!("{url}#layer=hydrants"));
    assert_eq!(wait(engine, &hydrants.id).status, ImportStatus::Success);
    let got = search_all(&hydrants.id, "n:>=0");
    assert_eq!(got.len(), places.len());
    for f in &got {
        let n = f.attributes.as_ref().unwrap().0["n"].as_u64().unwrap() as usize;
        let c = &f.geometry.0["coordinates"];
        let (lon, lat) = (c[0].as_f64().unwrap(), c[1].as_f64().unwrap());
        let d = Haversine.distance(Point::new(lon, lat), Point::new(places[n].0, places[n].1));
        assert!(d < 1.0, "hydrant {n}: ({lon}, {lat}) is {d:.3} m away");
    }
    let valves = create(engine, "valves", &format!("{url}#layer=valves"));
    assert_eq!(wait(engine, &valves.id).status, ImportStatus::Success);
    assert_eq!(search_all(&valves.id, "n:>=0").len(), 1);

    // A table that is not there, and a fragment that is not a layer: the import says so.
    for (fragment, says) in [
        ("#layer=pipes", "no feature table \"pipes\""),
        ("#page=2", "#layer=<table>"),
    ] {
        let d = create(engine, "bad layer", &format!("{url}{fragment}"));
        let run = wait(engine, &d.id);
        assert_eq!(run.status, ImportStatus::Failed, "{fragment}");
        let detail = &run.steps.last().unwrap().entries.last().unwrap().detail;
        assert!(detail.contains(says), "{fragment}: {detail}");
    }
}
