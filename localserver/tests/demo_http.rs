//! The demo page's files and its map layer over real HTTP on 127.0.0.1 (no browser; the
//! browser test is `browser.rs`): the page and its assets with their content types, caching
//! validators and a Content-Security-Policy allowing nothing from outside; the development
//! key filled in; DNS-rebinding refusal for the page too; `GET /map/features` on the Helsinki
//! sample pack (roads, places, points of interest) with its credentials, level of detail, box
//! and bad input answered 422 naming `bbox`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{Req, Server};
use serde_json::Value;
use waymark_core::auth::RateLimitMode;
use waymark_localserver::ServerConfig;
use waymark_packs::build::{self, PackPlan};
use waymark_packs::sources::Sources;

const REFERER: &str = "https://example.com/app/";

/// Head and body of a raw response.
fn split(raw: &[u8]) -> (u16, Vec<(String, String)>, Vec<u8>) {
    let at = raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    let head = std::str::from_utf8(&raw[..at]).unwrap();
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .unwrap()
        .split(' ')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    (status, headers, raw[at + 4..].to_vec())
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

#[test]
fn the_page_and_its_assets_are_served_with_types_validators_and_a_closed_csp() {
    let s = Server::start_with_config(RateLimitMode::Spec, |_, _| ServerConfig {
        page_key: Some("pk_the_page_key".into()),
        ..ServerConfig::default()
    });
    let (status, h, body) = split(&s.http_raw(&Req::get("/")));
    assert_eq!(status, 200);
    assert_eq!(header(&h, "content-type"), Some("text/html; charset=utf-8"));
    let page = String::from_utf8(body).unwrap();
    assert!(page.contains(r#"<meta name="waymark-key" content="pk_the_page_key">"#));
    let csp = header(&h, "content-security-policy").unwrap();
    assert!(csp.contains("default-src 'none'") && csp.contains("connect-src 'self'"));
    assert!(!csp.contains("http"), "no outside origin in {csp}");
    assert_eq!(header(&h, "x-content-type-options"), Some("nosniff"));
    assert_eq!(header(&h, "cache-control"), Some("no-cache"));
    for (path, ctype) in [
        ("/index.html", "text/html; charset=utf-8"),
        ("/assets/style.css", "text/css; charset=utf-8"),
        ("/assets/js/app.js", "text/javascript; charset=utf-8"),
        ("/assets/js/api.js", "text/javascript; charset=utf-8"),
        ("/assets/js/map.js", "text/javascript; charset=utf-8"),
        ("/assets/favicon.svg", "image/svg+xml"),
    ] {
        let (status, h, body) = split(&s.http_raw(&Req::get(path)));
        assert_eq!(status, 200, "{path}");
        assert_eq!(header(&h, "content-type"), Some(ctype), "{path}");
        assert!(!body.is_empty(), "{path}");
        let etag = header(&h, "etag").unwrap().to_string();
        // Revalidation: 304 without a body.
        let (status, h2, body) = split(&s.http_raw(&Req::get(path).header("If-None-Match", &etag)));
        assert_eq!((status, body.len()), (304, 0), "{path}");
        assert_eq!(header(&h2, "etag"), Some(etag.as_str()));
        // HEAD: the headers alone.
        let (status, h3, body) = split(&s.http_raw(&Req::with_method("HEAD", path)));
        assert_eq!((status, body.len()), (200, 0), "{path}");
        assert_eq!(header(&h3, "content-type"), Some(ctype), "{path}");
    }
    // A foreign Host (DNS rebinding) is refused for the page as for the API.
    let r = s.http(&Req::get("/").header("Host", "evil.example:8787"));
    assert_eq!(r.status, 403);
    assert!(r.body["detail"].as_str().unwrap().contains("evil.example"));
    // Unknown files are the API's 404; other methods on the page are a 405 naming the
    // page's methods.
    let r = s.http(&Req::get("/assets/nothing.js"));
    assert_eq!(r.status, 404);
    let r = s.http(&Req::with_method("POST", "/"));
    assert_eq!(r.status, 405, "{:?}", r.body);
    assert_eq!(r.header("allow"), Some("GET, HEAD"));
    // Without a key in the configuration the page is served with an empty key.
    let plain = Server::start();
    let page = String::from_utf8(plain.http_raw(&Req::get("/"))).unwrap();
    assert!(page.contains(r#"<meta name="waymark-key" content="">"#));
}

fn install_helsinki(s: &Server) {
    let sources = Sources::load(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../data-packs/sources.toml"),
    )
    .unwrap();
    let plan = PackPlan {
        id: "helsinki".into(),
        osm: vec!["osm-helsinki".into()],
        layers: ["roads", "places", "pois"]
            .iter()
            .map(|s| s.to_string())
            .collect(),
        base: false,
        routing: Default::default(),
    };
    let dir = build::build_pack(
        &plan,
        "1",
        &sources,
        &s.dir.path().join("built"),
        false,
        &mut |_, _, _| {},
    )
    .unwrap();
    build::sign_pack(&dir, &s.publisher).unwrap();
    let url = format!("file://{}", dir.canonicalize().unwrap().display());
    s.engine.install_pack(&url, &mut |_| {}).unwrap();
}

fn features(s: &Server, query: &str) -> (u16, Value) {
    let target = format!("/map/features?key={}{query}", s.keys.public);
    let r = s.both(&Req::get(target).header("Referer", REFERER));
    (r.status, r.body)
}

fn positions(f: &Value) -> Vec<(f64, f64)> {
    let c = &f["geometry"]["coordinates"];
    match f["geometry"]["type"].as_str().unwrap() {
        "Point" => vec![(c[0].as_f64().unwrap(), c[1].as_f64().unwrap())],
        "LineString" => c
            .as_array()
            .unwrap()
            .iter()
            .map(|p| (p[0].as_f64().unwrap(), p[1].as_f64().unwrap()))
            .collect(),
        other => panic!("unexpected geometry {other}"),
    }
}

#[test]
fn map_features_draw_the_helsinki_pack() {
    let s = Server::start();
    // No pack yet: 503 in words.
    let (status, body) = features(&s, "");
    assert_eq!(status, 503, "{body}");
    assert!(body["detail"].as_str().unwrap().contains("install"));
    install_helsinki(&s);

    // The whole pack: its roads, places and points of interest, and its attribution.
    let (status, all) = features(&s, "");
    assert_eq!(status, 200, "{all}");
    assert_eq!(all["type"], "FeatureCollection");
    let bbox: Vec<f64> = serde_json::from_value(all["bbox"].clone()).unwrap();
    assert!(
        bbox[0] < 24.94 && bbox[2] > 24.95 && bbox[1] < 60.165 && bbox[3] > 60.178,
        "{bbox:?}"
    );
    let feats = all["features"].as_array().unwrap();
    let layer = |l: &str| {
        feats
            .iter()
            .filter(|f| f["properties"]["layer"] == l)
            .collect::<Vec<_>>()
    };
    let roads = layer("road");
    assert!(roads.len() > 300, "{} roads", roads.len());
    assert!(
        roads
            .iter()
            .any(|r| r["properties"]["name"] == "Mannerheimintie")
    );
    assert!(roads.iter().all(|r| positions(r).len() >= 2));
    assert!(!layer("poi").is_empty());
    let classes: std::collections::BTreeSet<&str> = roads
        .iter()
        .map(|r| r["properties"]["class"].as_str().unwrap())
        .collect();
    assert!(
        classes.contains("primary") && classes.contains("footway"),
        "{classes:?}"
    );
    // Major roads come first (a client paints them last, over the minor ones).
    let first_footway = roads
        .iter()
        .position(|r| r["properties"]["class"] == "footway");
    let last_primary = roads
        .iter()
        .rposition(|r| r["properties"]["class"] == "primary");
    assert!(last_primary < first_footway);
    assert_eq!(all["truncated"], false);
    let packs = all["packs"].as_array().unwrap();
    assert_eq!(packs[0]["id"], "helsinki");
    assert!(
        packs[0]["attribution"][0]["attribution"]
            .as_str()
            .unwrap()
            .contains("OpenStreetMap")
    );

    // A box: every point inside it, every line meeting it.
    let (w, so, e, n) = (24.940, 60.166, 24.946, 60.170);
    let (status, part) = features(&s, &format!("&bbox={w},{so},{e},{n}"));
    assert_eq!(status, 200);
    let part_feats = part["features"].as_array().unwrap();
    assert!(!part_feats.is_empty() && part_feats.len() < feats.len());
    for f in part_feats {
        let ps = positions(f);
        if f["geometry"]["type"] == "Point" {
            let (x, y) = ps[0];
            assert!(x >= w && x <= e && y >= so && y <= n, "{f}");
        } else {
            let (x0, x1) = ps
                .iter()
                .fold((f64::MAX, f64::MIN), |a, p| (a.0.min(p.0), a.1.max(p.0)));
            let (y0, y1) = ps
                .iter()
                .fold((f64::MAX, f64::MIN), |a, p| (a.0.min(p.1), a.1.max(p.1)));
            assert!(
                x0 <= e + 1e-3 && x1 >= w - 1e-3 && y0 <= n + 1e-3 && y1 >= so - 1e-3,
                "{f}"
            );
        }
    }

    // A large box around the pack: fewer details (no footways, no points of interest).
    let (status, wide) = features(&s, "&bbox=24.0,59.8,26.0,60.6");
    assert_eq!(status, 200);
    let wide_feats = wide["features"].as_array().unwrap();
    assert!(
        wide_feats
            .iter()
            .all(|f| f["properties"]["class"] != "footway" && f["properties"]["layer"] != "poi")
    );
    assert!(
        wide_feats
            .iter()
            .any(|f| f["properties"]["class"] == "primary")
    );

    // A box away from every pack: an empty collection.
    let (status, none) = features(&s, "&bbox=1.0,42.0,1.1,42.1");
    assert_eq!(status, 200);
    assert!(none["features"].as_array().unwrap().is_empty());

    // Bad boxes: 422 naming bbox.
    for bad in [
        "1,2,3",
        "a,b,c,d",
        "24.95,60.1,24.94,60.2",
        "24.9,60.2,24.95,60.1",
        "1,95,2,96",
    ] {
        let (status, body) = features(&s, &format!("&bbox={bad}"));
        assert_eq!(status, 422, "{bad}: {body}");
        assert_eq!(
            body["detail"][0]["loc"],
            serde_json::json!(["query", "bbox"]),
            "{bad}"
        );
        assert!(!body["detail"][0]["msg"].as_str().unwrap().is_empty());
    }

    // Credentials as for the localities (K1): a public key needs a matching Referer.
    let r = s.http(&Req::get("/map/features"));
    assert_eq!(r.status, 401, "{:?}", r.body);
    let r = s.http(&Req::get(format!("/map/features?key={}", s.keys.public)));
    assert_eq!(r.status, 403, "{:?}", r.body);
    let r = s.http(
        &Req::get(format!("/map/features?key={}", s.keys.public))
            .header("Referer", "https://evil.com/"),
    );
    assert_eq!(r.status, 403, "{:?}", r.body);
    let r = s.http(&Req::get("/map/features").header("X-Api-Key", &s.keys.private));
    assert_eq!(r.status, 200);
    // Described in the API document.
    let doc = s.http(&Req::get("/openapi.json"));
    assert_eq!(
        doc.body["paths"]["/map/features"]["get"]["operationId"],
        "MapFeatures"
    );
}
