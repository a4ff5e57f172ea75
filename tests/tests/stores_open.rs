//! `open_now` / `open_at` in the stores search itself, on a customer's stores pack (stores in
//! three timezones, one with a special closed day, one without hours, imported with the real
//! import, signed and installed): pages and `total` count only the stores open at the instant,
//! each in its own timezone with its special days; bounds take the same filter and
//! `zone=true` — through the engine and over real HTTP on 127.0.0.1.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::{Arc, OnceLock};

use chrono::TimeZone;
use serde_json::{Value, json};
use waymark_core::Engine;
use waymark_core::api::{
    LatLng, StoresBoundsRequest, StoresBoundsResponse, StoresSearchRequest, StoresSearchResponse,
};
use waymark_core::auth::keys::Publisher;
use waymark_core::error::{ApiError, ErrorCode};
use waymark_core::operation::Credentials;
use waymark_packs::stores::StoreAsset;
use waymark_packs::stores::synthetic::circle_wkt;

struct Fixture {
    engine: Arc<Engine>,
    publisher: Publisher,
    _tmp: tempfile::TempDir,
}

/// Centre of the stores (Monaco); every store's zone is a 5 km circle around its position, so
/// every zone contains it.
const CENTRE: LatLng = LatLng {
    lat: 43.7384,
    lng: 7.4246,
};

/// One store `id` at `i` hundred metres east of the centre, with `hours` (JSON) and a zone.
fn store(id: &str, i: usize, hours: Option<Value>) -> StoreAsset {
    let lat = CENTRE.lat;
    let lng = CENTRE.lng + 0.00124 * i as f64;
    serde_json::from_value(json!({
        "store_id": id,
        "name": format!("Store {id}"),
        "types": ["shop"],
        "opening_hours": hours,
        "location": {"lat": lat, "lng": lng},
        "zones": [{"zone_id": format!("{id}Z"), "polygon": circle_wkt(lat, lng, 5_000.0, 12)}],
    }))
    .unwrap()
}

fn daily(tz: &str, start: &str, end: &str, special: Value) -> Option<Value> {
    Some(json!({
        "timezone": tz,
        "usual": {"default": [{"start": start, "end": end}]},
        "special": special,
    }))
}

/// The instant of the tests: Friday 2026-12-25 14:00 UTC, that is 15:00 in Monaco (Christmas),
/// 09:00 in New York and 23:00 in Tokyo.
fn instant() -> i64 {
    chrono::Utc
        .with_ymd_and_hms(2026, 12, 25, 14, 0, 0)
        .unwrap()
        .timestamp()
}

/// The stores open at [`instant`]: `M3`..`M5` (Monaco, no special day) and `N0`..`N3` (New
/// York, 08:00–18:00 local). Closed then: `M0`..`M2` (closed on Christmas, a special day),
/// `T0`..`T2` (Tokyo, 09:00–18:00 local: open at 14:00 UTC if read as UTC), `X0` (no hours).
const OPEN: [&str; 7] = ["M3", "M4", "M5", "N0", "N1", "N2", "N3"];

fn stores() -> Vec<StoreAsset> {
    let mut out = Vec::new();
    let mut i = 0;
    let mut next = || {
        i += 1;
        i
    };
    for n in 0..6 {
        let special = match n < 3 {
            true => json!({"2026-12-25": []}),
            false => json!({}),
        };
        out.push(store(
            &format!("M{n}"),
            next(),
            daily("Europe/Monaco", "09:00", "20:00", special),
        ));
    }
    for n in 0..4 {
        out.push(store(
            &format!("N{n}"),
            next(),
            daily("America/New_York", "08:00", "18:00", json!({})),
        ));
    }
    for n in 0..3 {
        out.push(store(
            &format!("T{n}"),
            next(),
            daily("Asia/Tokyo", "09:00", "18:00", json!({})),
        ));
    }
    out.push(store("X0", next(), None));
    out
}

fn fixture() -> &'static Fixture {
    static F: OnceLock<Fixture> = OnceLock::new();
    F.get_or_init(|| {
        let tmp = tempfile::tempdir().unwrap();
        let publisher = Publisher::generate().unwrap();
        let dir = waymark_tests::stores_pack(
            "opening",
            "1",
            &stores(),
            &tmp.path().join("built"),
            &publisher,
        );
        let engine = waymark_tests::open_engine(
            &tmp.path().join("state"),
            &tmp.path().join("packs"),
            &publisher,
        );
        waymark_tests::install(&engine, &dir);
        Fixture {
            engine,
            publisher,
            _tmp: tmp,
        }
    })
}

fn search(req: StoresSearchRequest) -> Result<StoresSearchResponse, ApiError> {
    let f = fixture();
    let caller = waymark_tests::private_caller(&f.publisher);
    f.engine.call(&Credentials::Http(&caller), req)
}

fn bounds(req: StoresBoundsRequest) -> Result<StoresBoundsResponse, ApiError> {
    let f = fixture();
    let mut caller = waymark_tests::private_caller(&f.publisher);
    caller.private_key = caller.api_key_header.take();
    f.engine.call(&Credentials::Http(&caller), req)
}

fn ids(r: &StoresSearchResponse) -> Vec<String> {
    r.features
        .iter()
        .map(|f| f.properties.store_id.clone())
        .collect()
}

#[test]
fn pages_and_total_count_only_the_stores_open_at_the_instant() {
    // Without the filter: every store, on 5 pages of 3.
    let all = search(StoresSearchRequest {
        center: Some(CENTRE),
        stores_by_page: 3,
        ..Default::default()
    })
    .unwrap();
    assert_eq!(all.pagination.total, 14);
    // With it: 7 stores on 3 pages of 3, 3 and 1, nearest first, each open.
    let mut seen = Vec::new();
    for page in 1..=3 {
        let r = search(StoresSearchRequest {
            center: Some(CENTRE),
            open_at: Some(instant()),
            stores_by_page: 3,
            page,
            ..Default::default()
        })
        .unwrap();
        assert_eq!(r.pagination.total, 7, "page {page}");
        assert_eq!(r.pagination.page_count, 3, "page {page}");
        assert_eq!(r.features.len(), if page == 3 { 1 } else { 3 });
        for f in &r.features {
            // The `open` block is computed at `open_at` when no `timestamp` is given.
            let open = f.properties.open.as_ref().unwrap();
            assert!(open.open_now, "{}: {open:?}", f.properties.store_id);
        }
        seen.extend(ids(&r));
    }
    assert_eq!(seen, OPEN);
    // The filter agrees with each store's own `open` block at that instant.
    let every = search(StoresSearchRequest {
        center: Some(CENTRE),
        timestamp: Some(instant()),
        stores_by_page: 300,
        ..Default::default()
    })
    .unwrap();
    let open_by_block: Vec<String> = every
        .features
        .iter()
        .filter(|f| f.properties.open.as_ref().is_some_and(|o| o.open_now))
        .map(|f| f.properties.store_id.clone())
        .collect();
    assert_eq!(open_by_block, OPEN);
    // The day after Christmas at the same hour, the special day is over: M0..M2 open too.
    let r = search(StoresSearchRequest {
        center: Some(CENTRE),
        open_at: Some(instant() + 86_400),
        stores_by_page: 300,
        ..Default::default()
    })
    .unwrap();
    assert_eq!(r.pagination.total, 10, "{:?}", ids(&r));
    // Past the page count: an empty page that still states the total.
    let r = search(StoresSearchRequest {
        open_at: Some(instant()),
        stores_by_page: 3,
        page: 4,
        ..Default::default()
    })
    .unwrap();
    assert!(r.features.is_empty());
    assert_eq!((r.pagination.total, r.pagination.page_count), (7, 3));
}

#[test]
fn the_filter_combines_with_the_query_zones_and_open_now() {
    // With a query: the open stores among its matches.
    let r = search(StoresSearchRequest {
        query: Some("NOT idstore:N1".into()),
        open_at: Some(instant()),
        stores_by_page: 300,
        ..Default::default()
    })
    .unwrap();
    assert_eq!(r.pagination.total, 6, "{:?}", ids(&r));
    assert!(!ids(&r).contains(&"N1".to_string()));
    // With `zone=true`: the open stores delivering at the centre.
    let r = search(StoresSearchRequest {
        center: Some(CENTRE),
        zone: true,
        open_at: Some(instant()),
        stores_by_page: 300,
        ..Default::default()
    })
    .unwrap();
    assert_eq!(ids(&r), OPEN);
    // `open_now`: the same rule at the time of the request, which the `open` blocks (computed
    // at the same time, no `timestamp` given) confirm.
    let r = search(StoresSearchRequest {
        open_now: true,
        stores_by_page: 300,
        ..Default::default()
    })
    .unwrap();
    assert_eq!(r.pagination.total as usize, r.features.len());
    assert!(
        r.features
            .iter()
            .all(|f| f.properties.open.as_ref().is_some_and(|o| o.open_now))
    );
    assert!(!ids(&r).contains(&"X0".to_string()), "no hours: not open");
}

#[test]
fn bounds_take_the_filter_and_zones() {
    let lng = |i: usize| CENTRE.lng + 0.00124 * i as f64;
    // Every store: M0 (1) to X0 (14).
    let b = bounds(StoresBoundsRequest {
        center: Some(CENTRE),
        zone: true,
        ..Default::default()
    })
    .unwrap()
    .bounds;
    assert!(
        (b.west - lng(1)).abs() < 1e-9 && (b.east - lng(14)).abs() < 1e-9,
        "{b:?}"
    );
    // Open at the instant: M3 (4) to N3 (10).
    let b = bounds(StoresBoundsRequest {
        center: Some(CENTRE),
        zone: true,
        open_at: Some(instant()),
        ..Default::default()
    })
    .unwrap()
    .bounds;
    assert!(
        (b.west - lng(4)).abs() < 1e-9 && (b.east - lng(10)).abs() < 1e-9,
        "{b:?}"
    );
    // A point no zone contains: nothing to bound.
    let far = LatLng {
        lat: 44.5,
        lng: 8.5,
    };
    let e = bounds(StoresBoundsRequest {
        center: Some(far),
        zone: true,
        ..Default::default()
    })
    .unwrap_err();
    assert_eq!(e.code, ErrorCode::NotFound, "{e:?}");
    // 05:00 UTC on Christmas: Monaco 06:00, New York 00:00, Tokyo 14:00 — only Tokyo is open.
    let b = bounds(StoresBoundsRequest {
        open_at: Some(instant() - 9 * 3600),
        ..Default::default()
    })
    .unwrap()
    .bounds;
    assert!(
        (b.west - lng(11)).abs() < 1e-9 && (b.east - lng(13)).abs() < 1e-9,
        "{b:?}"
    );
}

#[test]
fn bad_combinations_name_the_parameter() {
    let loc = |e: ApiError| -> Vec<Value> {
        e.fields
            .iter()
            .map(|d| serde_json::to_value(d).unwrap()["loc"].clone())
            .collect()
    };
    let e = search(StoresSearchRequest {
        open_now: true,
        open_at: Some(instant()),
        ..Default::default()
    })
    .unwrap_err();
    assert_eq!(e.code, ErrorCode::Validation);
    assert_eq!(loc(e), [json!(["query", "open_at"])]);
    let e = bounds(StoresBoundsRequest {
        open_at: Some(i64::MAX),
        zone: true,
        ..Default::default()
    })
    .unwrap_err();
    assert_eq!(
        loc(e),
        [json!(["query", "zone"]), json!(["query", "open_at"])]
    );
}

#[test]
fn over_http_the_filter_pages_and_refuses_the_same() {
    let f = fixture();
    let server = waymark_tests::LocalServer::start(f.engine.clone());
    let read = waymark_tests::private_caller(&f.publisher)
        .api_key_header
        .unwrap();
    let value = |body: &str| -> Value { serde_json::from_str(body).unwrap() };
    let t = instant();
    let target = format!(
        "/stores/search?lat={}&lng={}&open_at={t}&stores_by_page=3&page=3",
        CENTRE.lat, CENTRE.lng
    );
    let r = server.call("GET", &target, &read, "");
    assert_eq!(r.status, 200, "{}", r.body);
    let body = value(&r.body);
    assert_eq!(
        body["pagination"],
        json!({"page": 3, "pageCount": 3, "total": 7})
    );
    assert_eq!(body["features"][0]["properties"]["store_id"], "N3");
    let target = format!(
        "/stores/search/bounds?private_key={read}&lat={}&lng={}&zone=true&open_at={t}",
        CENTRE.lat, CENTRE.lng
    );
    let r = server.call("GET", &target, "", "");
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(value(&r.body)["bounds"]["west"].as_f64().unwrap() > CENTRE.lng);
    for (query, name) in [
        (format!("open_now=true&open_at={t}"), "open_at"),
        ("open_at=tomorrow".to_string(), "open_at"),
        ("open_at=9999999999999999".to_string(), "open_at"),
        ("open_now=maybe".to_string(), "open_now"),
    ] {
        let r = server.call("GET", &format!("/stores/search?{query}"), &read, "");
        assert_eq!(r.status, 422, "{query}: {}", r.body);
        assert_eq!(
            value(&r.body)["detail"][0]["loc"],
            json!(["query", name]),
            "{query}"
        );
    }
    let r = server.call(
        "GET",
        &format!("/stores/search/bounds?private_key={read}&zone=true"),
        "",
        "",
    );
    assert_eq!(r.status, 422, "{}", r.body);
    assert_eq!(value(&r.body)["detail"][0]["loc"], json!(["query", "zone"]));
}
