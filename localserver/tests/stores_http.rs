//! The stores search's opening filter (`open_now`, `open_at`) and bounds with `zone=true`
//! over real HTTP on 127.0.0.1 and through `warp::test` (every case is sent both ways and the
//! answers must agree), on a customer's pack of 20 generated stores with weekly hours, a
//! special closed day and the timezone of their position: totals, bounds, each error naming
//! its parameter, and the rules stated in `/openapi.json`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{Req, Server, stores_server};
use serde_json::{Value, json};
use waymark_core::auth::RateLimitMode;

/// 2026-12-18 10:00 UTC, a Friday.
const FRIDAY: i64 = 1_797_588_000;
/// 2026-12-20 11:00 UTC, a Sunday.
const SUNDAY: i64 = 1_797_764_400;
/// 2026-12-25 10:00 UTC, Christmas (a Friday).
const CHRISTMAS: i64 = 1_798_192_800;

fn total(r: &common::Resp) -> u64 {
    r.body["pagination"]["total"].as_u64().unwrap()
}

#[test]
fn open_at_filters_totals_and_bounds_and_refuses_what_it_cannot_use() {
    let (s, stores) = stores_server();
    let key = s.keys.private.clone();
    let get = |t: &str| s.both(&Req::get(t).header("X-Api-Key", &key));
    let bounds = |q: &str| {
        s.both(&Req::get(format!(
            "/stores/search/bounds?private_key={key}&{q}"
        )))
    };
    let all = get("/stores/search?stores_by_page=300");
    assert_eq!(all.status, 200, "{}", all.body);
    assert_eq!(total(&all), 20);

    // Sunday 2026-12-20 at 11:00 UTC (noon in Spain, France and Andorra, 11:00 in Portugal):
    // the generated hours close on Sunday except for the stores tagged `24h`.
    let all_day: Vec<&str> = stores
        .iter()
        .filter(|s| s.tags.iter().any(|t| t == "24h"))
        .map(|s| s.store_id.as_str())
        .collect();
    assert!(!all_day.is_empty() && all_day.len() < 20, "{all_day:?}");
    let sunday = SUNDAY;
    let r = get(&format!("/stores/search?open_at={sunday}&stores_by_page=2"));
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(total(&r), all_day.len() as u64, "{}", r.body);
    assert_eq!(
        r.body["pagination"]["pageCount"],
        json!(all_day.len().div_ceil(2))
    );
    let r = get(&format!(
        "/stores/search?open_at={sunday}&stores_by_page=300"
    ));
    let mut open: Vec<&str> = r.body["features"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["properties"]["store_id"].as_str().unwrap())
        .collect();
    open.sort();
    let mut want = all_day.clone();
    want.sort();
    assert_eq!(open, want);

    // Friday 2026-12-18 at 10:00 UTC every store is open; on Christmas (a special closed day
    // of every store) none is, and bounds of nothing are a 404.
    let r = get(&format!(
        "/stores/search?open_at={}&stores_by_page=1",
        FRIDAY
    ));
    assert_eq!(total(&r), 20, "{}", r.body);
    let christmas = CHRISTMAS;
    let r = get(&format!("/stores/search?open_at={christmas}"));
    assert_eq!((r.status, total(&r)), (200, 0), "{}", r.body);
    assert_eq!(r.body["features"], json!([]));
    let r = bounds(&format!("open_at={christmas}"));
    assert_eq!(r.status, 404, "{}", r.body);
    let r = bounds(&format!("open_at={}", FRIDAY));
    assert_eq!(r.status, 200, "{}", r.body);

    // `zone=true` in bounds: the stores delivering at G3's position (G3 among them).
    let g3 = &stores[3].location;
    let r = bounds(&format!("lat={}&lng={}&zone=true", g3.lat, g3.lng));
    assert_eq!(r.status, 200, "{}", r.body);
    let b = &r.body["bounds"];
    assert!(b["west"].as_f64().unwrap() <= g3.lng && g3.lng <= b["east"].as_f64().unwrap());
    assert!(b["south"].as_f64().unwrap() <= g3.lat && g3.lat <= b["north"].as_f64().unwrap());
    let r = bounds(&format!(
        "lat={}&lng={}&zone=true&open_at={christmas}",
        g3.lat, g3.lng
    ));
    assert_eq!(r.status, 404, "{}", r.body);

    // Every refusal names the parameter to fix.
    let now = FRIDAY;
    for (target, name) in [
        (
            format!("/stores/search?open_now=true&open_at={now}"),
            "open_at",
        ),
        ("/stores/search?open_at=tomorrow".into(), "open_at"),
        ("/stores/search?open_at=9999999999999999".into(), "open_at"),
        ("/stores/search?open_at=".into(), "open_at"),
        ("/stores/search?open_now=maybe".into(), "open_now"),
    ] {
        let r = get(&target);
        assert_eq!(r.status, 422, "{target}: {}", r.body);
        assert_eq!(
            r.body["detail"][0]["loc"],
            json!(["query", name]),
            "{target}"
        );
        assert!(r.body["detail"][0]["msg"].is_string(), "{target}");
    }
    for (q, name) in [
        ("zone=true".to_string(), "zone"),
        (format!("open_now=true&open_at={now}"), "open_at"),
    ] {
        let r = bounds(&q);
        assert_eq!(r.status, 422, "{q}: {}", r.body);
        assert_eq!(r.body["detail"][0]["loc"], json!(["query", name]), "{q}");
    }
    // `open_now=true` alone is accepted (its answer depends on the clock).
    let r = get("/stores/search?open_now=true");
    assert_eq!(r.status, 200, "{}", r.body);
}

/// `/openapi.json` states the new parameters of search and bounds with their ranges.
#[test]
fn openapi_states_the_opening_parameters() {
    let s = Server::start_with(RateLimitMode::Off);
    let r = s.both(&Req::get("/openapi.json"));
    assert_eq!(r.status, 200);
    let params = |path: &str| -> Vec<Value> {
        r.body["paths"][path]["get"]["parameters"]
            .as_array()
            .unwrap()
            .clone()
    };
    for path in ["/stores/search", "/stores/search/bounds"] {
        let ps = params(path);
        let find = |name: &str| {
            ps.iter()
                .find(|p| p["name"] == name)
                .unwrap_or_else(|| panic!("{path}: no parameter {name}"))
                .clone()
        };
        let open_at = find("open_at");
        assert_eq!(open_at["in"], "query");
        assert!(open_at["schema"]["minimum"].is_i64(), "{path}: {open_at}");
        assert!(open_at["schema"]["maximum"].is_i64(), "{path}: {open_at}");
        assert!(
            open_at["description"]
                .as_str()
                .is_some_and(|d| d.contains("open_now")),
            "{path}: {open_at}"
        );
        find("open_now");
        find("zone");
    }
}
