//! The localities endpoints over real HTTP on 127.0.0.1, with the Andorra and Monaco sample
//! packs (localities layers) built from `../shared/data/osm`: a happy path through every
//! endpoint, and bad input answered 422 (or 404 for an unknown id) naming the parameter.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{Req, Server};
use serde_json::Value;
use waymark_core::auth::RateLimitMode;
use waymark_packs::build::{self, PackPlan};
use waymark_packs::sources::Sources;

fn install(s: &Server, id: &str) {
    let sources = Sources::load(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../data-packs/sources.toml"),
    )
    .unwrap();
    let plan = PackPlan {
        id: id.into(),
        osm: vec![format!("osm-{id}")],
        layers: ["roads", "places", "addresses", "pois", "search"]
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

fn get(s: &Server, target: &str) -> (u16, Value) {
    let r = s.http(&Req::get(target).header("X-Api-Key", &s.keys.private));
    (r.status, r.body)
}

/// Asserts a 422 whose detail names `param` in its `loc`.
fn assert_422(s: &Server, target: &str, param: &str) {
    let (status, body) = get(s, target);
    assert_eq!(status, 422, "{target}: {body}");
    let details = body["detail"].as_array().unwrap();
    assert!(
        details
            .iter()
            .any(|d| d["loc"] == serde_json::json!(["query", param])),
        "{target}: {body} does not name `{param}`"
    );
    assert!(
        details
            .iter()
            .all(|d| !d["msg"].as_str().unwrap().is_empty())
    );
}

#[test]
fn localities_over_http_answer_from_packs_and_refuse_bad_input_naming_the_parameter() {
    let s = Server::start_with(RateLimitMode::Off);
    // Without the search layer: 503, after validation.
    let (status, body) = get(&s, "/localities/autocomplete?input=Ordino");
    assert_eq!(status, 503, "{body}");
    install(&s, "andorra");
    install(&s, "monaco");

    // Happy paths.
    let (status, body) = get(
        &s,
        "/localities/autocomplete?input=Ordin&components=country:AND",
    );
    assert_eq!(status, 200, "{body}");
    let first = &body["localities"][0];
    assert!(
        first["description"].as_str().unwrap().starts_with("Ordino"),
        "{body}"
    );
    assert_eq!(
        first["matched_substrings"]["description"][0],
        serde_json::json!({"length": 5, "offset": 0})
    );
    let id = first["public_id"].as_str().unwrap().to_string();
    let (status, body) = get(
        &s,
        &format!("/localities/details?public_id={id}&fields=geometry|address_components"),
    );
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["result"]["public_id"], id.as_str());
    assert!(
        body["result"]["address_components"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["types"][0] == "country" && c["short_name"] == "AD")
    );
    let (status, body) = get(&s, "/localities/geocode?latlng=43.7384,7.4246");
    assert_eq!(status, 200, "{body}");
    assert!(!body["results"].as_array().unwrap().is_empty(), "{body}");
    let (status, body) = get(
        &s,
        "/localities/nearby?types=business.food_and_drinks&location=43.7384,7.4246&radius=500&limit=3",
    );
    assert_eq!(status, 200, "{body}");
    let results = body["results"].as_array().unwrap();
    assert_eq!(results.len(), 3, "{body}");
    assert_eq!(results[0]["categories"], results[0]["types"]);
    assert_eq!(body["pagination"]["previous_page"], Value::Null);
    assert_eq!(body["pagination"]["next_page"], 2);

    // Autocomplete bad input.
    assert_422(&s, "/localities/autocomplete?input=", "input");
    assert_422(
        &s,
        &format!("/localities/autocomplete?input={}", "a".repeat(151)),
        "input",
    );
    assert_422(
        &s,
        "/localities/autocomplete?input=Ordino&types=locality|castle",
        "types",
    );
    assert_422(
        &s,
        "/localities/autocomplete?input=Ordino&excluded_types=nowhere",
        "excluded_types",
    );
    assert_422(
        &s,
        "/localities/autocomplete?input=Ordino&components=country:ZZZ",
        "components",
    );
    assert_422(
        &s,
        "/localities/autocomplete?input=Ordino&components=land:AD",
        "components",
    );
    assert_422(
        &s,
        "/localities/autocomplete?input=Ordino&location=91,1",
        "location",
    );
    assert_422(
        &s,
        "/localities/autocomplete?input=Ordino&location=42.5,1.5&radius=9",
        "radius",
    );
    assert_422(
        &s,
        "/localities/autocomplete?input=Monaco&extended=postal_code&types=locality|postal_code|route",
        "extended",
    );
    assert_422(
        &s,
        "/localities/autocomplete?input=Ordino&custom_description=locality:%22{name}%20{planet}%22",
        "custom_description",
    );
    // data=advanced needs a licence option on the key: 403.
    let (status, body) = get(&s, "/localities/autocomplete?input=Ordino&data=advanced");
    assert_eq!(status, 403, "{body}");
    assert!(
        body["detail"]
            .as_str()
            .unwrap()
            .contains("advanced_postal_codes")
    );

    // Details: unknown id 404, bad fields 422.
    let (status, body) = get(&s, "/localities/details?public_id=place.osm-n1");
    assert_eq!(status, 404, "{body}");
    assert!(body["detail"].as_str().unwrap().contains("place.osm-n1"));
    assert_422(
        &s,
        "/localities/details?public_id=x&fields=geometry|outline",
        "fields",
    );
    assert_422(
        &s,
        "/localities/details?public_id=x&cc_format=alpha4",
        "cc_format",
    );
    assert_422(&s, "/localities/details", "public_id");

    // Geocode: exactly one of address and latlng.
    assert_422(&s, "/localities/geocode", "address");
    assert_422(
        &s,
        "/localities/geocode?address=Ordino&latlng=42.5,1.5",
        "latlng",
    );
    assert_422(&s, "/localities/geocode?latlng=42.5,181", "latlng");
    assert_422(&s, "/localities/geocode?address=%20%2C%20", "address");
    assert_422(
        &s,
        "/localities/geocode?address=Ordino&components=country:QQ",
        "components",
    );

    // Nearby.
    assert_422(&s, "/localities/nearby?location=43.7,7.4", "types");
    assert_422(
        &s,
        "/localities/nearby?types=park&location=43.7",
        "location",
    );
    assert_422(
        &s,
        "/localities/nearby?types=locality&location=43.7,7.4",
        "types",
    );
    assert_422(
        &s,
        "/localities/nearby?types=park&location=43.7,7.4&radius=0",
        "radius",
    );
    assert_422(
        &s,
        "/localities/nearby?types=park&location=43.7,7.4&radius=60000",
        "radius",
    );
    assert_422(
        &s,
        "/localities/nearby?types=park&location=43.7,7.4&limit=101",
        "limit",
    );
    assert_422(
        &s,
        "/localities/nearby?types=park&location=43.7,7.4&excluded_types=zoo",
        "excluded_types",
    );
}
