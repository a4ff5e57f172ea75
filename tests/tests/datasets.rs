//! Datasets over real parts: the building footprints of the Monaco extract (GeoJSON written
//! by `waymark_packs::datasets`) and hydrant-like points (CSV) imported from `file://` and
//! `http://` URLs into real SQLite data files, queried through the engine and over real HTTP
//! on 127.0.0.1: import runs and their log, feature get (GeoJSON, WKB, field masks), `where`
//! searches against a reference evaluation, contains (points, buffered polylines) against a
//! brute-force reference, reimports that fail or are cut mid-download (the previous data keeps
//! answering), deletion, expiry and bad input.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use base64::Engine as _;
use geo::{Contains, Distance, Geometry, Haversine, InteriorPoint, Point};
use serde_json::{Value, json};
use waymark_core::Engine;
use waymark_core::api::*;
use waymark_core::auth::Caller;
use waymark_core::auth::keys::Publisher;
use waymark_core::error::{ApiError, ErrorCode};
use waymark_core::operation::{Credentials, Operation};

struct Fixture {
    engine: Arc<Engine>,
    publisher: Publisher,
    server: waymark_tests::LocalServer,
    buildings: Dataset,
    /// The source features (id → feature), as written.
    source: Vec<Value>,
    dir: tempfile::TempDir,
}

fn caller() -> Caller {
    waymark_tests::write_caller(&fixture().publisher)
}

fn call<R: Operation>(req: R) -> Result<R::Response, ApiError> {
    fixture().engine.call(&Credentials::Http(&caller()), req)
}

fn file_url(p: &Path) -> String {
    format!("file://{}", p.canonicalize().unwrap().display())
}

/// Waits for the latest run of `id` to end.
fn wait(engine: &Arc<Engine>, id: &str) -> ImportRun {
    for _ in 0..1200 {
        let run = engine
            .call(
                &Credentials::Http(&waymark_tests::write_caller(&fixture_publisher_raw())),
                DatasetStatusRequest {
                    dataset_id: id.into(),
                },
            )
            .unwrap();
        if run.status != ImportStatus::InProgress {
            return run;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("the import of {id} did not end");
}

static PUBLISHER: OnceLock<Publisher> = OnceLock::new();

fn open_engine(dir: &Path) -> Arc<Engine> {
    let publisher = fixture_publisher_raw();
    waymark_tests::open_engine(&dir.join("state"), &dir.join("packs"), &publisher)
}

fn fixture_publisher_raw() -> Publisher {
    PUBLISHER
        .get_or_init(|| Publisher::generate().unwrap())
        .clone()
}

fn create(engine: &Arc<Engine>, name: &str, url: &str) -> Dataset {
    engine
        .call(
            &Credentials::Http(&waymark_tests::write_caller(&fixture_publisher_raw())),
            DatasetCreateRequest {
                body: DatasetCreateBody {
                    name: name.into(),
                    url: url.into(),
                    scheduled_for_deletion_after: None,
                },
            },
        )
        .unwrap()
}

fn fixture() -> &'static Fixture {
    static F: OnceLock<Fixture> = OnceLock::new();
    F.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let pbf = waymark_tests::sources().fetch("osm-monaco").unwrap();
        let geojson = dir.path().join("monaco-buildings.geojson");
        waymark_packs::datasets::write_buildings(&pbf, &geojson).unwrap();
        let source: Value = serde_json::from_slice(&std::fs::read(&geojson).unwrap()).unwrap();
        let engine = open_engine(dir.path());
        let buildings = create(&engine, "Monaco buildings", &file_url(&geojson));
        let run = wait(&engine, &buildings.id);
        assert_eq!(run.status, ImportStatus::Success, "{run:?}");
        let server = waymark_tests::LocalServer::start(engine.clone());
        Fixture {
            engine,
            publisher: fixture_publisher_raw(),
            server,
            buildings,
            source: source["features"].as_array().unwrap().clone(),
            dir,
        }
    })
}

fn search(id: &str, filter: &str, page: u32, per_page: u32) -> FeatureSearchResponse {
    call(FeatureSearchRequest {
        dataset_id: id.into(),
        per_page,
        page,
        body: FeatureSearchBody {
            filter: filter.into(),
        },
        ..Default::default()
    })
    .unwrap()
}

/// Every feature id matching `filter`, walking the pages.
fn search_all(id: &str, filter: &str) -> Vec<FeatureSummary> {
    let mut out = Vec::new();
    let mut page = 1;
    loop {
        let r = search(id, filter, page, 1000);
        out.extend(r.features);
        match r.pagination.next {
            Some(n) => page = n,
            None => return out,
        }
    }
}

/// The source's polygon geometry.
fn geometry(v: &Value) -> Geometry<f64> {
    let coords = v["coordinates"][0].as_array().unwrap();
    let ring: Vec<(f64, f64)> = coords
        .iter()
        .map(|c| (c[0].as_f64().unwrap(), c[1].as_f64().unwrap()))
        .collect();
    Geometry::Polygon(geo::Polygon::new(ring.into(), vec![]))
}

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

/// A one-file HTTP server on 127.0.0.1 that answers `Range` requests (the file has an `ETag`,
/// so a download can resume); the first `cuts` answers close after `cut_after` bytes.
fn serve_file(
    bytes: Vec<u8>,
    cut_after: usize,
    cuts: usize,
) -> (String, std::thread::JoinHandle<Vec<String>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!(
        "http://{}/data/buildings.geojson",
        listener.local_addr().unwrap()
    );
    let handle = std::thread::spawn(move || {
        let mut seen = Vec::new();
        let mut cuts_left = cuts;
        listener.set_nonblocking(false).unwrap();
        for stream in listener.incoming() {
            let mut s = stream.unwrap();
            let mut head = Vec::new();
            let mut b = [0u8; 1];
            while !head.ends_with(b"\r\n\r\n") {
                if s.read(&mut b).unwrap() == 0 {
                    break;
                }
                head.push(b[0]);
            }
            let head = String::from_utf8_lossy(&head).to_string();
            if head.starts_with("QUIT") {
                return seen;
            }
            let start = head
                .lines()
                .find_map(|l| {
                    let (name, value) = l.split_once(':')?;
                    name.eq_ignore_ascii_case("range")
                        .then(|| value.trim().strip_prefix("bytes="))?
                })
                .and_then(|r| r.trim_end_matches('-').parse::<usize>().ok())
                .unwrap_or(0);
            seen.push(head.lines().next().unwrap_or("").to_owned() + &format!(" from {start}"));
            let rest = &bytes[start..];
            let status = if start > 0 {
                format!(
                    "HTTP/1.1 206 Partial Content\r\nContent-Range: bytes {start}-{}/{}\r\n",
                    bytes.len() - 1,
                    bytes.len()
                )
            } else {
                "HTTP/1.1 200 OK\r\n".to_owned()
            };
            let _ = s.write_all(
                format!(
                    "{status}ETag: \"buildings-1\"\r\nContent-Type: application/geo+json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                    rest.len()
                )
                .as_bytes(),
            );
            if cuts_left > 0 {
                cuts_left -= 1;
                let _ = s.write_all(&rest[..cut_after.min(rest.len())]);
            } else {
                let _ = s.write_all(rest);
            }
        }
        seen
    });
    (url, handle)
}

fn quit(url: &str) {
    let addr = url.trim_start_matches("http://").split('/').next().unwrap();
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    s.write_all(b"QUIT / HTTP/1.1\r\n\r\n").unwrap();
}

#[test]
fn downloads_cut_midway_resume_and_failed_runs_change_nothing() {
    let f = fixture();
    let dir = tempfile::tempdir().unwrap();
    let engine = open_engine(dir.path());
    let bytes = std::fs::read(f.dir.path().join("monaco-buildings.geojson")).unwrap();
    // Cut twice: the download resumes with Range requests and succeeds.
    let (url, server) = serve_file(bytes.clone(), 100_000, 2);
    let d = create(&engine, "cut", &url);
    let run = wait(&engine, &d.id);
    quit(&url);
    let seen = server.join().unwrap();
    assert_eq!(run.status, ImportStatus::Success, "{run:?}");
    assert_eq!(seen.len(), 3, "{seen:?}");
    assert!(seen[1].ends_with("from 100000"), "{seen:?}");
    assert!(
        run.steps[0]
            .entries
            .iter()
            .any(|e| e.detail.contains("downloaded"))
    );
    let before = search_in(&engine, &d.id, "levels:>=5", 1);

    // A reimport from a url that always breaks fails, and the data answers as before.
    let (url, server) = serve_file(bytes.clone(), 50_000, usize::MAX);
    update_url(&engine, &d.id, &url);
    let run = wait(&engine, &d.id);
    quit(&url);
    server.join().unwrap();
    assert_eq!(run.status, ImportStatus::Failed);
    assert_eq!(run.steps[0].status, ImportStatus::Failed);
    let e = run.steps[0].entries.last().unwrap();
    assert_eq!(e.level, LogLevel::Error);
    assert!(e.detail.contains("fetch failed"), "{}", e.detail);
    assert_eq!(search_in(&engine, &d.id, "levels:>=5", 1), before);

    // A malformed file fails in the import step, and the data still answers.
    let bad = dir.path().join("bad.geojson");
    std::fs::write(&bad, &bytes[..bytes.len() / 2]).unwrap();
    update_url(&engine, &d.id, &file_url(&bad));
    let run = wait(&engine, &d.id);
    assert_eq!(run.status, ImportStatus::Failed, "{run:?}");
    assert_eq!(run.steps[1].name, ImportStepName::Import);
    assert_eq!(run.steps[1].status, ImportStatus::Failed);
    assert_eq!(search_in(&engine, &d.id, "levels:>=5", 1), before);

    // Bad features are skipped with a warning naming them; the rest is imported.
    let mut v: Value = serde_json::from_slice(&bytes).unwrap();
    let features = v["features"].as_array_mut().unwrap();
    let ring = features[3]["geometry"]["coordinates"][0]
        .as_array_mut()
        .unwrap();
    ring.pop();
    let n = features.len();
    let partial = dir.path().join("partial.geojson");
    std::fs::write(&partial, v.to_string()).unwrap();
    update_url(&engine, &d.id, &file_url(&partial));
    let run = wait(&engine, &d.id);
    assert_eq!(run.status, ImportStatus::Success, "{run:?}");
    let warnings: Vec<_> = run.steps[1]
        .entries
        .iter()
        .filter(|e| e.level == LogLevel::Warning)
        .collect();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].detail.starts_with("feature 4: "),
        "{}",
        warnings[0].detail
    );
    assert!(
        warnings[0].detail.ends_with(", skipped"),
        "{}",
        warnings[0].detail
    );
    assert_eq!(search_in_all(&engine, &d.id, "area_m2:>0"), n - 1);

    // Deleted: gone from every operation and from the disk.
    engine
        .call(
            &Credentials::Http(&waymark_tests::write_caller(&fixture_publisher_raw())),
            DatasetDeleteRequest {
                dataset_id: d.id.clone(),
            },
        )
        .unwrap();
    let err = engine
        .call(
            &Credentials::Http(&waymark_tests::write_caller(&fixture_publisher_raw())),
            DatasetStatusRequest {
                dataset_id: d.id.clone(),
            },
        )
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::NotFound);
    assert!(engine.datasets().wait_idle(Duration::from_secs(10)));
    assert!(!dir.path().join("state/datasets").join(&d.id).exists());
}

fn update_url(engine: &Arc<Engine>, id: &str, url: &str) {
    engine
        .call(
            &Credentials::Http(&waymark_tests::write_caller(&fixture_publisher_raw())),
            DatasetUpdateRequest {
                dataset_id: id.into(),
                body: DatasetUpdateBody {
                    name: None,
                    url: Some(url.into()),
                },
            },
        )
        .unwrap();
}

fn search_in(engine: &Arc<Engine>, id: &str, filter: &str, page: u32) -> FeatureSearchResponse {
    engine
        .call(
            &Credentials::Http(&waymark_tests::write_caller(&fixture_publisher_raw())),
            FeatureSearchRequest {
                dataset_id: id.into(),
                per_page: 1000,
                page,
                body: FeatureSearchBody {
                    filter: filter.into(),
                },
                ..Default::default()
            },
        )
        .unwrap()
}

/// How many features match `filter`, walking the pages.
fn search_in_all(engine: &Arc<Engine>, id: &str, filter: &str) -> usize {
    let mut n = 0;
    let mut page = 1;
    loop {
        let r = search_in(engine, id, filter, page);
        n += r.features.len();
        match r.pagination.next {
            Some(p) => page = p,
            None => return n,
        }
    }
}

#[test]
fn datasets_are_removed_after_their_deletion_time_and_survive_a_restart() {
    let f = fixture();
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("p.csv");
    std::fs::write(&csv, "lat,lng,name\n43.73,7.42,a\n43.74,7.43,b\n").unwrap();
    let engine = open_engine(dir.path());
    let soon = engine
        .call(
            &Credentials::Http(&waymark_tests::write_caller(&fixture_publisher_raw())),
            DatasetCreateRequest {
                body: DatasetCreateBody {
                    name: "soon gone".into(),
                    url: file_url(&csv),
                    scheduled_for_deletion_after: Some(
                        chrono::Utc::now() + chrono::Duration::milliseconds(1500),
                    ),
                },
            },
        )
        .unwrap();
    let kept = create(&engine, "kept", &file_url(&csv));
    assert_eq!(wait(&engine, &soon.id).status, ImportStatus::Success);
    assert_eq!(wait(&engine, &kept.id).status, ImportStatus::Success);
    drop(engine);
    // Reopened: the data answers without a new import.
    let engine = open_engine(dir.path());
    assert_eq!(search_in_all(&engine, &kept.id, "name:a"), 1);
    std::thread::sleep(Duration::from_millis(1600));
    let err = engine
        .call(
            &Credentials::Http(&waymark_tests::write_caller(&fixture_publisher_raw())),
            DatasetGetRequest {
                dataset_id: soon.id.clone(),
            },
        )
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::NotFound);
    assert_eq!(search_in_all(&engine, &kept.id, "name:b"), 1);
    let _ = f;
}
