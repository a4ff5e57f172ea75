//! Store locator search on the Andorra sample pack (stores derived from its OSM points of
//! interest, with delivery zones): nearest-first search, the query language, radius, route
//! corridor, zones, pagination, localized names, opening state, bounds and bad input — through
//! the engine and over real HTTP on 127.0.0.1.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::{Arc, OnceLock};

use waymark_core::Engine;
use waymark_core::api::{LatLng, StoresBoundsRequest, StoresSearchRequest, StoresSearchResponse};
use waymark_core::auth::keys::Publisher;
use waymark_core::error::ApiError;
use waymark_core::error::ErrorCode;
use waymark_core::geo::{Pt, encode_polyline, haversine_m};
use waymark_core::operation::Credentials;
use waymark_packs::build::PackPlan;

struct Fixture {
    engine: Arc<Engine>,
    publisher: Publisher,
    _dir: tempfile::TempDir,
}

fn fixture() -> &'static Fixture {
    static F: OnceLock<Fixture> = OnceLock::new();
    F.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let plan = PackPlan {
            id: "andorra".into(),
            osm: vec!["osm-andorra".into()],
            layers: ["pois", "places", "stores"]
                .iter()
                .map(|s| s.to_string())
                .collect(),
            base: false,
            routing: Default::default(),
        };
        let (engine, publisher) = waymark_tests::engine_with_pack(&plan, dir.path());
        Fixture {
            engine,
            publisher,
            _dir: dir,
        }
    })
}

fn search(req: StoresSearchRequest) -> Result<StoresSearchResponse, ApiError> {
    let f = fixture();
    let caller = waymark_tests::private_caller(&f.publisher);
    f.engine.call(&Credentials::Http(&caller), req)
}

const CENTRE: LatLng = LatLng {
    lat: 42.5075,
    lng: 1.5218,
};

#[test]
fn nearest_first_with_distances_and_full_properties() {
    let r = search(StoresSearchRequest {
        center: Some(CENTRE),
        stores_by_page: 20,
        ..Default::default()
    })
    .unwrap();
    assert_eq!(r.kind, "FeatureCollection");
    assert_eq!(r.features.len(), 20);
    assert!(r.pagination.total > 30, "{:?}", r.pagination);
    let d: Vec<f64> = r
        .features
        .iter()
        .map(|f| f.properties.distance.unwrap())
        .collect();
    assert!(d.windows(2).all(|w| w[0] <= w[1]), "{d:?}");
    let c = Pt::new(CENTRE.lat, CENTRE.lng);
    for f in &r.features {
        let [lng, lat] = [f.geometry.coordinates[0], f.geometry.coordinates[1]];
        let real = haversine_m(c, Pt::new(lat, lng));
        assert!((real - f.properties.distance.unwrap()).abs() < 1.0);
        assert_eq!(f.properties.address.country_code.as_deref(), Some("AD"));
        assert!(!f.properties.types.is_empty());
    }
    let with_hours = r
        .features
        .iter()
        .filter(|f| f.properties.open.is_some())
        .count();
    assert!(with_hours > 0, "some nearby stores have opening hours");
    for f in r.features.iter().filter_map(|f| f.properties.open.as_ref()) {
        assert_eq!(f.timezone, "Europe/Andorra");
        assert_eq!(f.open_now, f.closes_at.is_some());
    }
}

#[test]
fn the_query_language_filters() {
    let all = search(StoresSearchRequest {
        query: Some("type:pharmacy".into()),
        stores_by_page: 300,
        ..Default::default()
    })
    .unwrap();
    assert!(all.pagination.total > 5);
    assert!(
        all.features
            .iter()
            .all(|f| f.properties.types.contains(&"pharmacy".to_string()))
    );
    let names: Vec<&str> = all
        .features
        .iter()
        .map(|f| f.properties.name.as_str())
        .collect();
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted, "without a centre, by name");
    let not = search(StoresSearchRequest {
        query: Some("NOT type:pharmacy AND country:AD".into()),
        stores_by_page: 300,
        ..Default::default()
    })
    .unwrap();
    let everything = search(StoresSearchRequest {
        stores_by_page: 300,
        ..Default::default()
    })
    .unwrap();
    assert_eq!(
        not.pagination.total + all.pagination.total,
        everything.pagination.total
    );
    let none = search(StoresSearchRequest {
        query: Some("country:FR".into()),
        ..Default::default()
    })
    .unwrap();
    assert_eq!((none.pagination.total, none.pagination.page_count), (0, 0));
}

#[test]
fn radius_corridor_zone_and_pages() {
    let r = search(StoresSearchRequest {
        center: Some(CENTRE),
        radius: Some(500.0),
        stores_by_page: 300,
        ..Default::default()
    })
    .unwrap();
    assert!(
        r.features
            .iter()
            .all(|f| f.properties.distance.unwrap() <= 500.0)
    );
    assert!(r.pagination.total > 0);
    // A corridor along the main valley road: every store within 300 m of the line.
    let line = [
        Pt::new(42.5075, 1.5218),
        Pt::new(42.5096, 1.5386),
        Pt::new(42.5340, 1.5806),
    ];
    let corridor = search(StoresSearchRequest {
        encoded_polyline: Some(encode_polyline(line, 5)),
        radius: Some(300.0),
        stores_by_page: 300,
        ..Default::default()
    })
    .unwrap();
    assert!(corridor.pagination.total > 0);
    assert!(corridor.pagination.total < everything_total());
    // Zones: the stores delivering at a pharmacy's door include that pharmacy.
    let pharmacy = search(StoresSearchRequest {
        query: Some("type:pharmacy".into()),
        center: Some(CENTRE),
        stores_by_page: 1,
        ..Default::default()
    })
    .unwrap();
    let p = &pharmacy.features[0];
    let at = LatLng::new(p.geometry.coordinates[1], p.geometry.coordinates[0]);
    let delivering = search(StoresSearchRequest {
        center: Some(at),
        zone: true,
        stores_by_page: 300,
        ..Default::default()
    })
    .unwrap();
    assert!(
        delivering
            .features
            .iter()
            .any(|f| f.properties.store_id == p.properties.store_id)
    );
    let far = search(StoresSearchRequest {
        center: Some(LatLng::new(40.0, -3.7)),
        zone: true,
        ..Default::default()
    })
    .unwrap();
    assert_eq!(far.pagination.total, 0);
    // Pages partition the result.
    let page = |n| {
        search(StoresSearchRequest {
            center: Some(CENTRE),
            stores_by_page: 7,
            page: n,
            ..Default::default()
        })
        .unwrap()
    };
    let (p1, p2) = (page(1), page(2));
    assert_eq!(p1.pagination.page_count, p1.pagination.total.div_ceil(7));
    assert!(p1.features.last().unwrap().properties.distance <= p2.features[0].properties.distance);
    assert!(page(1000).features.is_empty());
}

/// The by-type index gives the answers of a full scan: a query whose `type:` clause sits
/// under an `OR` (which the planner cannot use) must answer exactly the same pages, with every
/// spatial filter.
#[test]
fn the_type_index_answers_as_a_full_scan() {
    let line = [Pt::new(42.5075, 1.5218), Pt::new(42.5340, 1.5806)];
    let spatial = [
        (None, None, None, false),
        (Some(CENTRE), None, None, false),
        (Some(CENTRE), Some(300.0), None, false),
        (Some(CENTRE), Some(50_000.0), None, false),
        (None, Some(400.0), Some(encode_polyline(line, 5)), false),
        (Some(CENTRE), None, None, true),
        (Some(CENTRE), Some(1_500.0), None, true),
    ];
    for t in ["pharmacy", "supermarket", "fuel", "PHARMACY", "nothing"] {
        for (center, radius, polyline, zone) in &spatial {
            let ask = |query: String, page: u32| {
                search(StoresSearchRequest {
                    query: Some(query),
                    center: *center,
                    radius: *radius,
                    encoded_polyline: polyline.clone(),
                    zone: *zone,
                    stores_by_page: 3,
                    page,
                    ..Default::default()
                })
                .unwrap()
            };
            for page in 1..=3 {
                let planned = ask(format!("type:{t} AND NOT tag:nope"), page);
                let scanned = ask(format!("(type:{t} OR type:{t}) AND NOT tag:nope"), page);
                // `open` is computed at each call's instant: compare the rest.
                let plain = |r: &StoresSearchResponse| {
                    let mut v = serde_json::to_value(r).unwrap();
                    for f in v["features"].as_array_mut().unwrap() {
                        f["properties"].as_object_mut().unwrap().remove("open");
                    }
                    v
                };
                assert_eq!(
                    plain(&planned),
                    plain(&scanned),
                    "type {t}, {center:?} {radius:?} {polyline:?} zone {zone}, page {page}"
                );
            }
        }
    }
}

fn everything_total() -> u32 {
    search(StoresSearchRequest::default())
        .unwrap()
        .pagination
        .total
}

#[test]
fn localized_names_answer_in_the_language_asked() {
    let r = search(StoresSearchRequest {
        stores_by_page: 300,
        ..Default::default()
    })
    .unwrap();
    let Some((f, lang, name)) = r.features.iter().find_map(|f| {
        let names = f.properties.localized_names.as_ref()?;
        let (lang, name) = names
            .0
            .iter()
            .find(|(_, v)| v.as_str() != Some(&f.properties.name))?;
        Some((f, lang.clone(), name.as_str()?.to_owned()))
    }) else {
        eprintln!("no store with a distinct localized name in this extract");
        return;
    };
    let r = search(StoresSearchRequest {
        query: Some(format!("idstore:{}", f.properties.store_id)),
        language: Some(lang),
        ..Default::default()
    })
    .unwrap();
    assert_eq!(r.features[0].properties.name, name);
}

#[test]
fn bounds_hold_every_match_and_none_is_404() {
    let f = fixture();
    // Bounds take the private key as `private_key` (not `X-Api-Key`).
    let mut caller = waymark_tests::private_caller(&f.publisher);
    caller.private_key = caller.api_key_header.take();
    let b = f
        .engine
        .call(
            &Credentials::Http(&caller),
            StoresBoundsRequest {
                query: Some("type:pharmacy".into()),
                ..Default::default()
            },
        )
        .unwrap()
        .bounds;
    let all = search(StoresSearchRequest {
        query: Some("type:pharmacy".into()),
        stores_by_page: 300,
        ..Default::default()
    })
    .unwrap();
    for s in &all.features {
        let [lng, lat] = [s.geometry.coordinates[0], s.geometry.coordinates[1]];
        assert!(b.west <= lng && lng <= b.east && b.south <= lat && lat <= b.north);
    }
    assert!(
        all.features
            .iter()
            .any(|s| s.geometry.coordinates[0] == b.west)
    );
    let none = f.engine.call(
        &Credentials::Http(&caller),
        StoresBoundsRequest {
            query: Some("country:FR".into()),
            ..Default::default()
        },
    );
    assert_eq!(none.unwrap_err().code, ErrorCode::NotFound);
}

#[test]
fn bad_input_is_422_naming_the_parameter() {
    for (req, field, needle) in [
        (
            StoresSearchRequest {
                query: Some("type:pharmacy AND (city:x".into()),
                ..Default::default()
            },
            "query",
            "column",
        ),
        (
            StoresSearchRequest {
                zone: true,
                ..Default::default()
            },
            "zone",
            "lat",
        ),
        (
            StoresSearchRequest {
                stores_by_page: 301,
                ..Default::default()
            },
            "stores_by_page",
            "300",
        ),
        (
            StoresSearchRequest {
                encoded_polyline: Some("_p~iF~ps|U".into()),
                ..Default::default()
            },
            "radius",
            "encoded_polyline",
        ),
        (
            StoresSearchRequest {
                encoded_polyline: Some("\u{1}".into()),
                radius: Some(10.0),
                ..Default::default()
            },
            "encoded_polyline",
            "polyline",
        ),
    ] {
        let err = search(req).unwrap_err();
        assert_eq!(err.code, ErrorCode::Validation, "{field}");
        let fe = &err.fields[0];
        assert_eq!(fe.loc[1], serde_json::json!(field), "{fe:?}");
        assert!(fe.msg.contains(needle), "{field}: {}", fe.msg);
    }
}

#[test]
fn over_http_with_the_spec_call() {
    let f = fixture();
    let server = waymark_tests::LocalServer::start(f.engine.clone());
    let key = waymark_tests::private_caller(&f.publisher)
        .api_key_header
        .unwrap();
    let r = server.call("GET", "/stores/search?lat=42.5075&lng=1.5218", &key, "");
    assert_eq!(r.status, 200, "{}", r.body);
    let body: serde_json::Value = serde_json::from_str(&r.body).unwrap();
    let first = &body["features"][0];
    assert_eq!(first["type"], "Feature");
    assert!(first["properties"]["store_id"].is_string());
    assert!(first["properties"]["address"]["lines"].is_array());
    assert!(first["properties"]["distance"].is_number());
    assert_eq!(first["geometry"]["type"], "Point");
    // Bounds take the private key as `private_key` only.
    let r = server.call(
        "GET",
        &format!("/stores/search/bounds/?query=type:pharmacy&private_key={key}"),
        "",
        "",
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let r = server.call("GET", "/stores/search?query=type%3A%20pharmacy", &key, "");
    assert_eq!(r.status, 422, "{}", r.body);
    assert!(r.body.contains("column"), "{}", r.body);
}

/// Every parameter of search and bounds, given a bad value over real HTTP: a 422 whose first
/// error names that parameter, with a message saying what to give — never a 5xx.
#[test]
fn over_http_every_bad_parameter_is_a_422_naming_it() {
    let f = fixture();
    let server = waymark_tests::LocalServer::start(f.engine.clone());
    let key = waymark_tests::private_caller(&f.publisher)
        .api_key_header
        .unwrap();
    let search_cases: &[(&str, &str, &str)] = &[
        ("query=type%3Apharmacy%20AND", "query", "column"),
        ("query=user.rating%3A%3E%3Dhigh", "query", "number"),
        ("query=colour%3Ared", "query", "colour"),
        ("lat=abc&lng=1.5", "lat", "number"),
        ("lat=91&lng=1.5", "lat", "latitude"),
        ("lat=42.5&lng=200", "lng", "longitude"),
        ("lat=42.5", "lng", "together"),
        ("lat=42.5&lng=1.5&radius=-5", "radius", "positive"),
        ("lat=42.5&lng=1.5&radius=far", "radius", "number"),
        (
            "radius=500&query=type%3Apharmacy",
            "radius",
            "encoded_polyline",
        ),
        (
            "encoded_polyline=_p~iF~ps%7CU",
            "radius",
            "encoded_polyline",
        ),
        (
            "encoded_polyline=%01&radius=10",
            "encoded_polyline",
            "polyline",
        ),
        ("zone=maybe&lat=42.5&lng=1.5", "zone", "true"),
        ("zone=true", "zone", "lat"),
        ("timestamp=soon", "timestamp", "integer"),
        ("timestamp=99999999999999999", "timestamp", "range"),
        ("stores_by_page=0", "stores_by_page", "300"),
        ("stores_by_page=301", "stores_by_page", "300"),
        ("stores_by_page=ten", "stores_by_page", "integer"),
        ("page=0", "page", "1"),
        ("page=-1", "page", "integer"),
        ("colour=red", "colour", "extra"),
    ];
    let bounds_cases: &[(&str, &str, &str)] = &[
        ("query=(type%3Apharmacy", "query", "column"),
        ("lat=42.5&lng=-181", "lng", "longitude"),
        ("lng=1.5", "lat", "together"),
        ("lat=42.5&lng=1.5&radius=0", "radius", "positive"),
        (
            "encoded_polyline=_p~iF~ps%7CU",
            "radius",
            "encoded_polyline",
        ),
        ("radius=500", "radius", "lat"),
    ];
    for (path, cases) in [
        ("/stores/search", search_cases),
        ("/stores/search/bounds", bounds_cases),
    ] {
        for (query, param, needle) in cases {
            let r = if path.ends_with("bounds") {
                server.call("GET", &format!("{path}?{query}&private_key={key}"), "", "")
            } else {
                server.call("GET", &format!("{path}?{query}"), &key, "")
            };
            assert_eq!(r.status, 422, "{path}?{query}: {}", r.body);
            let body: serde_json::Value = serde_json::from_str(&r.body).unwrap();
            let first = &body["detail"][0];
            assert_eq!(first["loc"][1], *param, "{path}?{query}: {}", r.body);
            let said = format!("{} {}", first["msg"], first["type"]).to_lowercase();
            assert!(said.contains(needle), "{path}?{query}: {}", r.body);
        }
    }
}

/// A store as a search answers it, read by the query language as the engine reads its
/// records.
struct Answered<'a>(&'a waymark_core::api::StoreProperties);

impl waymark_storequery::StoreFields for Answered<'_> {
    fn types(&self) -> &[String] {
        &self.0.types
    }
    fn tags(&self) -> &[String] {
        &self.0.tags
    }
    fn city(&self) -> &str {
        &self.0.address.city
    }
    fn country_code(&self) -> Option<&str> {
        self.0.address.country_code.as_deref()
    }
    fn name(&self) -> &str {
        &self.0.name
    }
    fn store_id(&self) -> &str {
        &self.0.store_id
    }
    fn localized_names(&self) -> impl Iterator<Item = &str> {
        self.0
            .localized_names
            .iter()
            .flat_map(|m| m.0.values())
            .filter_map(|v| v.as_str())
    }
    fn user_property(&self, name: &str) -> Option<&serde_json::Value> {
        self.0.user_properties.as_ref()?.0.get(name)
    }
}

/// The column-wise evaluation of a query answers exactly the stores that match it one by
/// one: every field, operator and connective, on every store of the pack, with and without a
/// spatial filter.
#[test]
fn column_evaluation_answers_as_store_by_store_matching() {
    // Every page of a search, 300 stores at a time.
    let every_page = |req: StoresSearchRequest| {
        let mut out = Vec::new();
        for page in 1.. {
            let r = search(StoresSearchRequest {
                stores_by_page: 300,
                page,
                ..req.clone()
            })
            .unwrap();
            out.extend(r.features.into_iter().map(|f| f.properties));
            if page >= r.pagination.page_count {
                return out;
            }
        }
        out
    };
    let everything = every_page(StoresSearchRequest {
        center: Some(CENTRE),
        ..Default::default()
    });
    let stores: Vec<_> = everything.iter().collect();
    let brand = stores
        .iter()
        .find_map(|s| s.user_properties.as_ref()?.0.get("brand")?.as_str())
        .expect("some store has a brand");
    let brand_word = brand.split_whitespace().next().unwrap().to_lowercase();
    let city = stores
        .iter()
        .map(|s| s.address.city.as_str())
        .find(|c| !c.is_empty());
    let city = city.expect("some store has a city");
    let queries = [
        "type:pharmacy".to_owned(),
        "type:=PHARMACY OR tag:wheelchair".into(),
        "NOT type:pharmacy".into(),
        "country:AD AND NOT country:FR".into(),
        "country:ad".into(),
        format!("user.brand:{brand_word}"),
        format!("user.brand:=\"{brand}\""),
        "user.wheelchair:true".into(),
        "user.wheelchair:false OR user.wheelchair:=yes".into(),
        "user.osm_id:>1000000000 AND NOT user.osm_id:>=5000000000".into(),
        "user.osm_id:<0 OR user.osm_id:<=100".into(),
        "user.nothing:1 OR user.nothing:>1".into(),
        format!("city:\"{city}\" OR (type:supermarket AND NOT user.wheelchair:true)"),
        "name:farmacia OR localized:pharmacy".into(),
        "idstore:a OR (type:fuel AND (tag:x OR NOT user.brand:repsol))".into(),
        "NOT (type:pharmacy OR type:supermarket OR type:fuel)".into(),
    ];
    let mut telling = 0;
    for q in &queries {
        let parsed = waymark_storequery::parse(q).unwrap();
        for radius in [None, Some(2_000.0)] {
            let expected: Vec<&str> = stores
                .iter()
                .filter(|s| radius.is_none_or(|r| s.distance.unwrap() <= r))
                .filter(|s| parsed.matches(&Answered(s)))
                .map(|s| s.store_id.as_str())
                .collect();
            let answered = every_page(StoresSearchRequest {
                query: Some(q.clone()),
                center: Some(CENTRE),
                radius,
                ..Default::default()
            });
            let got: Vec<&str> = answered.iter().map(|s| s.store_id.as_str()).collect();
            assert_eq!(got, expected, "{q} within {radius:?}");
            if !expected.is_empty() && expected.len() < stores.len() {
                telling += 1;
            }
        }
    }
    // Most cases keep some stores and leave out others, so a wrong evaluation shows.
    assert!(telling >= 20, "only {telling} cases select a proper subset");
}
