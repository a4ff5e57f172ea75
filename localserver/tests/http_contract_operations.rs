//! The REST contract per operation, over real HTTP on 127.0.0.1 and through `warp::test`:
//! every path of the OpenAPI document answers, every 405 names its methods in `Allow`, and the
//! zone operations answer every status they document.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{Req, Server, stores_server, with_query};
use serde_json::json;
use waymark_core::auth::RateLimitMode;
use waymark_core::endpoint::Endpoint;

/// `/openapi.json` over HTTP describes each operation of the endpoint table under its path and
/// method, and nothing else; and every operation it describes is reachable over HTTP at that
/// path (with and without the trailing slash): without credentials it answers 401, not the
/// 404 of an unknown path or the 405 of a wrong method.
#[test]
fn openapi_describes_every_endpoint() {
    let s = Server::start_with(RateLimitMode::Off);
    let r = s.both(&Req::get("/openapi.json"));
    assert_eq!(r.status, 200);
    let mut described: Vec<(String, String, String)> = Vec::new();
    for (path, methods) in r.body["paths"].as_object().unwrap() {
        for (method, op) in methods.as_object().unwrap() {
            described.push((
                method.to_ascii_uppercase(),
                path.clone(),
                op["operationId"].as_str().unwrap().to_owned(),
            ));
        }
    }
    let mut table: Vec<(String, String, String)> = Endpoint::operations()
        .map(|ep| {
            (
                ep.method().as_str().to_owned(),
                ep.path().to_owned(),
                ep.name().to_owned(),
            )
        })
        .collect();
    described.sort();
    table.sort();
    assert_eq!(
        described, table,
        "/openapi.json and the endpoint table differ"
    );
    for (method, path, name) in &described {
        let method: &'static str = match method.as_str() {
            "GET" => "GET",
            "POST" => "POST",
            "PUT" => "PUT",
            "DELETE" => "DELETE",
            other => panic!("{name}: method {other}"),
        };
        let concrete: String = path
            .split('/')
            .map(|seg| if seg.starts_with('{') { "x1" } else { seg })
            .collect::<Vec<_>>()
            .join("/");
        for target in [concrete.clone(), format!("{concrete}/")] {
            let r = s.both(&Req::with_method(method, target.as_str()));
            assert_eq!(r.status, 401, "{name}: {method} {target}: {}", r.body);
        }
    }
}

/// Every 405 names the methods of its path in `Allow`: a method the server does not serve at
/// all (PATCH), a method another operation of the path has, `/openapi.json` and the demo page.
#[test]
fn every_405_has_an_allow_header_listing_the_methods_of_the_path() {
    let s = Server::start_with(RateLimitMode::Off);
    let private = s.keys.private.clone();
    for ep in Endpoint::operations() {
        let params = vec!["x1".to_owned(); ep.path_params().len()];
        let path = ep.concrete_path(&params);
        let mut want: Vec<&str> = Endpoint::methods_at(&path)
            .into_iter()
            .map(|m| m.as_str())
            .collect();
        want.sort_unstable();
        for method in ["PATCH", "GET", "POST", "PUT", "DELETE"] {
            if want.contains(&method) {
                continue;
            }
            for target in [path.clone(), format!("{path}/")] {
                let r = s
                    .both(&Req::with_method(method, target.as_str()).header("X-Api-Key", &private));
                assert_eq!(r.status, 405, "{method} {target}: {}", r.body);
                let mut allow: Vec<&str> = r
                    .header("allow")
                    .unwrap_or_else(|| panic!("{method} {target}: no Allow header"))
                    .split(", ")
                    .collect();
                allow.sort_unstable();
                assert_eq!(allow, want, "{method} {target}");
                assert!(
                    r.body["detail"].as_str().unwrap().contains(want[0]),
                    "{}",
                    r.body
                );
            }
        }
    }
    // HEAD of an operation (over the socket: a HEAD answer has no body to compare).
    let r = s.http(&Req::with_method("HEAD", "/geolocation/timezone"));
    assert_eq!((r.status, r.header("allow")), (405, Some("GET")));
    for method in ["POST", "PATCH"] {
        let r = s.both(&Req::with_method(method, "/openapi.json"));
        assert_eq!(
            (r.status, r.header("allow")),
            (405, Some("GET")),
            "{method}"
        );
        let r = s.both(&Req::with_method(method, "/"));
        assert_eq!(
            (r.status, r.header("allow")),
            (405, Some("GET, HEAD")),
            "{method} /"
        );
    }
    // A path that does not exist is a 404 for any method, without `Allow`.
    let r = s.both(&Req::with_method("PATCH", "/nowhere"));
    assert_eq!((r.status, r.header("allow")), (404, None));
}

/// The zone operations beside `PUT /zones`: every status they answer, each error naming what
/// to fix, writes all or nothing.
#[test]
fn zones_are_read_created_deleted_and_exported_with_their_errors() {
    let (s, stores) = stores_server();
    let read = s.keys.private.clone();
    let write = s.keys.private_write.clone();
    let get = |t: &str| s.both(&Req::get(t).header("X-Api-Key", &read));
    // Writes are sent once (over real HTTP): a second sending would see the first one's edit.
    let send = |method: &'static str, t: &str, key: &str, body: &str| {
        let req = Req::with_method(method, t).body(body);
        match key.is_empty() {
            true => s.http(&req),
            false => s.http(&req.header("X-Api-Key", key)),
        }
    };
    let at = |i: usize| {
        let l = &stores[i].location;
        waymark_packs::stores::synthetic::circle_wkt(l.lat, l.lng, 300.0, 12)
    };

    // One zone, with and without the trailing slash.
    for path in ["/zones/G3D", "/zones/G3D/"] {
        let r = get(path);
        assert_eq!(r.status, 200, "{}", r.body);
        assert_eq!(r.body["zone_id"], "G3D");
        assert_eq!(r.body["store_id"], "G3");
        assert_eq!(r.body["origin"], "pack");
        assert_eq!(r.body["conflict"], false);
        assert!(r.body["polygon"].as_str().unwrap().starts_with("POLYGON"));
    }
    let r = get("/zones/NOPE7");
    assert_eq!(r.status, 404, "{}", r.body);
    assert!(
        r.body["detail"].as_str().unwrap().contains("NOPE7"),
        "{}",
        r.body
    );

    // A store's zones, paged.
    for path in ["/zones?store_id=G3", "/zones/?store_id=G3"] {
        let r = get(path);
        assert_eq!(r.status, 200, "{}", r.body);
        assert_eq!(
            r.body["pagination"],
            json!({"page": 1, "pageCount": 1, "total": 1})
        );
        assert_eq!(r.body["zones"][0]["zone_id"], "G3D");
    }
    let r = get("/zones?store_id=G3&page=2");
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.body["zones"], json!([]));
    let r = get("/zones?store_id=NOSTORE");
    assert_eq!(r.status, 404, "{}", r.body);
    assert!(r.body["detail"].as_str().unwrap().contains("NOSTORE"));
    let r = get("/zones");
    assert_eq!(r.status, 422, "{}", r.body);
    assert_eq!(r.body["detail"][0]["loc"], json!(["query", "store_id"]));
    for bad in [
        "zones_by_page=0",
        "zones_by_page=301",
        "page=0",
        "page=first",
    ] {
        let r = get(&format!("/zones?store_id=G3&{bad}"));
        assert_eq!(r.status, 422, "{bad}: {}", r.body);
        let name = bad.split('=').next().unwrap();
        assert_eq!(r.body["detail"][0]["loc"], json!(["query", name]), "{bad}");
    }

    // Creation: all or nothing, every refusal naming the zone and the problem.
    let good =
        json!({"zone_id": "NEW1", "store_id": "G1", "polygon": at(1), "types": ["delivery"]});
    let batch = |zones: Vec<serde_json::Value>| json!({ "zones": zones }).to_string();
    let cases: Vec<(serde_json::Value, &[&str], &str)> = vec![
        (
            json!({"zone_id": "G2D", "store_id": "G2", "polygon": at(2)}),
            &["G2D", "exists"],
            "zone_id",
        ),
        (
            json!({"zone_id": "NEW2", "store_id": "NOSTORE", "polygon": at(2)}),
            &["NOSTORE"],
            "store_id",
        ),
        (
            json!({"zone_id": "NEW3", "store_id": "G2",
                   "polygon": "POLYGON((7.41 43.73, 7.42 143.73, 7.42 43.74, 7.41 43.73))"}),
            &["NEW3", "vertex 2 of ring 1"],
            "polygon",
        ),
        (
            json!({"zone_id": "NEW4", "store_id": "G2",
                   "polygon": "POLYGON((7.41 43.73, 7.42 43.74, 7.42 43.73, 7.41 43.74, 7.41 43.73))"}),
            &["NEW4", "not a valid polygon"],
            "polygon",
        ),
        (
            json!({"zone_id": "NEW5", "store_id": "G2", "polygon": "CIRCLE(1 2)"}),
            &["NEW5", "Well-Known Text"],
            "polygon",
        ),
    ];
    for (bad, words, field) in &cases {
        let r = send(
            "POST",
            "/zones",
            &write,
            &batch(vec![good.clone(), bad.clone()]),
        );
        assert_eq!(r.status, 422, "{bad}: {}", r.body);
        assert_eq!(
            r.body["detail"][0]["loc"],
            json!(["body", "zones", 1, field]),
            "{bad}"
        );
        let msg = r.body["detail"][0]["msg"].as_str().unwrap();
        for w in *words {
            assert!(msg.contains(w), "{bad}: {msg}");
        }
        // Nothing of the batch was written.
        assert_eq!(get("/zones/NEW1").status, 404, "{bad}");
    }
    // Rules of the body itself: duplicates, empty batch, a body that is not JSON, wrong shapes.
    let r = send(
        "POST",
        "/zones",
        &write,
        &batch(vec![good.clone(), good.clone()]),
    );
    assert_eq!(r.status, 422, "{}", r.body);
    assert_eq!(
        r.body["detail"][0]["loc"],
        json!(["body", "zones", 1, "zone_id"])
    );
    assert!(
        r.body["detail"][0]["msg"]
            .as_str()
            .unwrap()
            .contains("NEW1")
    );
    let r = send("POST", "/zones", &write, &batch(vec![]));
    assert_eq!(r.status, 422, "{}", r.body);
    assert_eq!(r.body["detail"][0]["loc"], json!(["body", "zones"]));
    let r = send("POST", "/zones", &write, "{not json");
    assert_eq!(r.status, 400, "{}", r.body);
    assert_eq!(r.body["status"], "error");
    assert!(r.body["value"].as_str().unwrap().contains("not valid json"));
    let r = send("POST", "/zones", &write, r#"{"zones": [{"zone_id": 5}]}"#);
    assert_eq!(r.status, 422, "{}", r.body);
    assert_eq!(r.body["detail"][0]["loc"][0], "body");
    let r = send("POST", "/zones", &write, r#"{"zones": [], "zonez": 1}"#);
    assert_eq!(r.status, 422, "{}", r.body);
    assert_eq!(get("/zones/NEW1").status, 404);
    // Key sets of a write.
    assert_eq!(
        send("POST", "/zones", &read, &batch(vec![good.clone()])).status,
        403
    );
    assert_eq!(
        send("POST", "/zones", "", &batch(vec![good.clone()])).status,
        401
    );
    assert_eq!(get("/zones/NEW1").status, 404);

    // A good batch, with the trailing slash and the key as `private_key`.
    let second =
        json!({"zone_id": "NEW2", "store_id": "G1", "polygon": at(1), "description": "second"});
    let r = send(
        "POST",
        &with_query("/zones/", "private_key", &write),
        "",
        &batch(vec![good.clone(), second]),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(
        r.body,
        json!({"status": "success", "message": "2 zones created"})
    );
    let r = get("/zones/NEW1");
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.body["origin"], "device");
    assert_eq!(r.body["edit"]["change"], "created");
    assert_eq!(r.body["types"], json!(["delivery"]));
    let r = get("/zones?store_id=G1&zones_by_page=2");
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(
        r.body["pagination"],
        json!({"page": 1, "pageCount": 2, "total": 3})
    );
    let ids: Vec<&str> = r.body["zones"]
        .as_array()
        .unwrap()
        .iter()
        .map(|z| z["zone_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["G1D", "NEW1"]);
    // Created once: the same id again is refused.
    let r = send("POST", "/zones", &write, &batch(vec![good.clone()]));
    assert_eq!(r.status, 422, "{}", r.body);
    assert!(
        r.body["detail"][0]["msg"]
            .as_str()
            .unwrap()
            .contains("NEW1")
    );

    // Deletion: of a device zone and of a pack zone.
    assert_eq!(send("DELETE", "/zones/NEW1", &read, "").status, 403);
    assert_eq!(send("DELETE", "/zones/NEW1", "", "").status, 401);
    let r = send("DELETE", "/zones/NEW1/", &write, "");
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.body["status"], "success");
    assert!(r.body["message"].as_str().unwrap().contains("NEW1"));
    let r = send("DELETE", "/zones/NEW1", &write, "");
    assert_eq!(r.status, 404, "{}", r.body);
    assert!(r.body["detail"].as_str().unwrap().contains("NEW1"));
    assert_eq!(get("/zones/NEW1").status, 404);
    let r = send("DELETE", "/zones/G5D", &write, "");
    assert_eq!(r.status, 200, "{}", r.body);
    let r = get("/zones/G5D");
    assert_eq!(r.status, 404, "{}", r.body);
    let r = get("/zones?store_id=G5");
    assert_eq!(r.body["pagination"]["total"], 0, "{}", r.body);
    // A deleted pack zone cannot be updated, and can be created again.
    let again = json!({"zone_id": "G5D", "store_id": "G5", "polygon": at(5)});
    let r = send(
        "PUT",
        &with_query("/zones", "private_key", &write),
        "",
        &batch(vec![again.clone()]),
    );
    assert_eq!(r.status, 422, "{}", r.body);
    assert!(
        r.body["detail"][0]["msg"]
            .as_str()
            .unwrap()
            .contains("POST /zones"),
        "{}",
        r.body
    );

    // The export: write keys only; the edits with the stores they touch.
    assert_eq!(get("/zones/export").status, 403);
    for path in ["/zones/export", "/zones/export/"] {
        let r = s.both(&Req::get(path).header("X-Api-Key", &write));
        assert_eq!(r.status, 200, "{}", r.body);
        assert_eq!(r.body["type"], "FeatureCollection");
        let edits: Vec<(&str, &str)> = r.body["edits"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| {
                (
                    e["zone_id"].as_str().unwrap(),
                    e["edit"]["change"].as_str().unwrap(),
                )
            })
            .collect();
        assert_eq!(edits, [("G5D", "deleted"), ("NEW2", "created")]);
        let features: Vec<&str> = r.body["features"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["properties"]["store_id"].as_str().unwrap())
            .collect();
        assert_eq!(features, ["G1", "G5"]);
    }
    let r = s.both(&Req::get("/zones/export?store_id=G5").header("X-Api-Key", &write));
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.body["edits"].as_array().unwrap().len(), 1);
    assert_eq!(r.body["features"][0]["properties"]["zones"], json!([]));

    let r = send("POST", "/zones", &write, &batch(vec![again]));
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(get("/zones/G5D").body["origin"], "device");

    // Methods the zone path does not have.
    let r = send("PATCH", "/zones/G3D", &write, "");
    assert_eq!(r.status, 405, "{}", r.body);
    let r = send("POST", "/zones/G3D", &write, "{}");
    assert_eq!(r.status, 405, "{}", r.body);
    assert_eq!(r.header("allow"), Some("GET, DELETE"));
}
