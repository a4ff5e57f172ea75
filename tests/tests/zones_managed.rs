//! Zones as a managed resource on a customer's stores pack: read, list, create, delete and
//! export, with every refusal naming what to fix — through the engine and over real HTTP on
//! 127.0.0.1.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod zones_common;

use serde_json::json;
use waymark_core::api::{Zone, ZonesListRequest};
use waymark_core::error::ErrorCode;
use waymark_core::operation::Credentials;
use waymark_packs::stores::StoreAsset;
use zones_common::*;

#[test]
fn zones_are_read_listed_created_deleted_and_exported() {
    let Retail {
        _tmp: tmp,
        publisher,
        stores,
        state,
        engine,
    } = retail();
    // A pack zone as the pack brings it.
    let g0 = get(&engine, &publisher, "G0D").unwrap();
    assert_eq!((g0.store_id.as_str(), g0.origin.as_str()), ("G0", "pack"));
    assert_eq!(g0.polygon, stores[0].zones[0].polygon);
    assert_eq!(g0.description, stores[0].zones[0].description);
    assert!(!g0.conflict && g0.edit.is_none());
    assert_eq!(list(&engine, &publisher, "G0"), ["G0D"]);

    // Creation: all or nothing.
    let e = create(
        &engine,
        &publisher,
        vec![
            zone("NEW3", "G0", circle(FAR, 500.0)),
            zone("G1D", "G0", circle(FAR, 500.0)),
            zone("NEW4", "NOSTORE", circle(FAR, 500.0)),
        ],
    )
    .unwrap_err();
    assert_eq!(e.code, ErrorCode::Validation);
    let body = serde_json::to_value(&e.fields).unwrap();
    let locs: Vec<serde_json::Value> = body
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["loc"].clone())
        .collect();
    assert_eq!(
        locs,
        [
            json!(["body", "zones", 1, "zone_id"]),
            json!(["body", "zones", 2, "store_id"])
        ]
    );
    assert!(get(&engine, &publisher, "NEW3").is_none());
    assert!(edits(&state).is_empty());
    let r = create(
        &engine,
        &publisher,
        vec![
            Zone {
                description: Some("Night delivery".into()),
                types: Some(vec!["delivery".into()]),
                ..zone("NEW1", "G0", circle(FAR, 1_000.0))
            },
            zone("NEW2", "G0", circle(FAR2, 1_000.0)),
        ],
    )
    .unwrap();
    assert_eq!(r.message, "2 zones created");
    let new1 = get(&engine, &publisher, "NEW1").unwrap();
    assert_eq!(new1.origin, "device");
    assert_eq!(new1.description.as_deref(), Some("Night delivery"));
    assert_eq!(new1.edit.as_ref().unwrap().change, "created");
    assert_eq!(list(&engine, &publisher, "G0"), ["G0D", "NEW1", "NEW2"]);
    assert_eq!(delivering(&engine, &publisher, FAR), ["G0"]);
    // Paged.
    let caller = waymark_tests::private_caller(&publisher);
    let page = engine
        .call(
            &Credentials::Http(&caller),
            ZonesListRequest {
                store_id: "G0".into(),
                zones_by_page: 2,
                page: 2,
            },
        )
        .unwrap();
    assert_eq!(page.zones.len(), 1);
    assert_eq!(page.zones[0].zone_id, "NEW2");
    assert_eq!((page.pagination.page_count, page.pagination.total), (2, 3));
    // Created again: refused, it exists; updated with PUT: kept as a created zone.
    assert!(
        create(
            &engine,
            &publisher,
            vec![zone("NEW1", "G0", circle(FAR, 9.0))]
        )
        .is_err()
    );
    put(
        &engine,
        &publisher,
        vec![zone("NEW1", "G0", circle(FAR, 1_200.0))],
    )
    .unwrap();
    let new1 = get(&engine, &publisher, "NEW1").unwrap();
    assert_eq!(new1.description.as_deref(), Some("Night delivery"));
    assert_eq!(new1.edit.unwrap().change, "created");

    // Deletion of a pack zone: hidden, kept as a deletion; of a device zone: removed.
    let home1 = at(&stores[1]);
    assert!(delivering(&engine, &publisher, home1).contains(&"G1".to_string()));
    delete(&engine, &publisher, "G1D").unwrap();
    assert!(get(&engine, &publisher, "G1D").is_none());
    assert!(list(&engine, &publisher, "G1").is_empty());
    assert!(!delivering(&engine, &publisher, home1).contains(&"G1".to_string()));
    let e = delete(&engine, &publisher, "G1D").unwrap_err();
    assert_eq!(e.code, ErrorCode::NotFound);
    let e = put(
        &engine,
        &publisher,
        vec![zone("G1D", "G1", circle(FAR2, 500.0))],
    )
    .unwrap_err();
    assert_eq!(e.code, ErrorCode::Validation);
    delete(&engine, &publisher, "NEW2").unwrap();
    assert_eq!(list(&engine, &publisher, "G0"), ["G0D", "NEW1"]);
    let ids: Vec<String> = edits(&state).into_iter().map(|e| e.0).collect();
    assert_eq!(ids, ["G1D", "NEW1"]);

    // The export: the stores the edits touch with their zones as they answer, and the edits.
    let x = export(&engine, &publisher);
    assert_eq!(x.kind, "FeatureCollection");
    let changes: Vec<(String, String)> = x
        .edits
        .iter()
        .map(|z| (z.zone_id.clone(), z.edit.as_ref().unwrap().change.clone()))
        .collect();
    assert_eq!(
        changes,
        [
            ("G1D".to_string(), "deleted".to_string()),
            ("NEW1".to_string(), "created".to_string())
        ]
    );
    // `waymark-packs import-stores` reads it: the two stores, G0 with its two zones, G1 with
    // none.
    let text = serde_json::to_string(&x).unwrap();
    let (records, problems) = waymark_packs::stores::read::geojson(&text);
    assert!(problems.is_empty(), "{problems:?}");
    let assets: Vec<StoreAsset> = records.into_iter().map(|(_, a)| a).collect();
    let ids: Vec<&str> = assets.iter().map(|a| a.store_id.as_str()).collect();
    assert_eq!(ids, ["G0", "G1"]);
    let zone_ids: Vec<&str> = assets[0].zones.iter().map(|z| z.zone_id.as_str()).collect();
    assert_eq!(zone_ids, ["G0D", "NEW1"]);
    assert!(assets[1].zones.is_empty());
    assert_eq!(assets[0].name, stores[0].name);
    assert!(assets[0].opening_hours.is_some());

    // The publisher imports it into the next version: the pack now agrees with every edit,
    // no conflict; the edits stay on the device until updated.
    let mut next: Vec<StoreAsset> = stores.clone();
    next[0] = assets[0].clone();
    next[1] = assets[1].clone();
    let v2 =
        waymark_tests::stores_pack("retail", "2", &next, &tmp.path().join("built"), &publisher);
    waymark_tests::install(&engine, &v2);
    assert!(engine.zone_conflicts().unwrap().is_empty());
    assert!(!get(&engine, &publisher, "NEW1").unwrap().conflict);
    // A version that changes NEW1 again: in conflict in its answers and in the export.
    next[0].zones[1].description = Some("Day delivery".into());
    let v3 =
        waymark_tests::stores_pack("retail", "3", &next, &tmp.path().join("built"), &publisher);
    waymark_tests::install(&engine, &v3);
    let new1 = get(&engine, &publisher, "NEW1").unwrap();
    assert!(new1.conflict);
    assert_eq!(new1.description.as_deref(), Some("Night delivery"));
    let info = new1.edit.unwrap();
    assert_eq!(info.pack_version.as_deref(), Some("3"));
    let x = export(&engine, &publisher);
    let in_conflict: Vec<&str> = x
        .edits
        .iter()
        .filter(|z| z.conflict)
        .map(|z| z.zone_id.as_str())
        .collect();
    assert_eq!(in_conflict, ["NEW1"]);
    // Edits survive a restart.
    drop(engine);
    let engine = waymark_tests::open_engine(&state, &tmp.path().join("packs"), &publisher);
    assert!(get(&engine, &publisher, "G1D").is_none());
    assert!(get(&engine, &publisher, "NEW1").unwrap().conflict);
}

#[test]
fn over_http_zones_are_managed_with_their_errors() {
    let Retail {
        _tmp,
        publisher,
        engine,
        ..
    } = retail();
    let server = waymark_tests::LocalServer::start(engine);
    let write = waymark_tests::write_caller(&publisher).private_key.unwrap();
    let read = waymark_tests::private_caller(&publisher)
        .api_key_header
        .unwrap();
    // Reads with a read key, with and without the trailing slash.
    for path in ["/zones/G0D", "/zones/G0D/"] {
        let r = server.call("GET", path, &read, "");
        assert_eq!(r.status, 200, "{}", r.body);
        assert_eq!(value(&r)["store_id"], "G0");
        assert_eq!(value(&r)["origin"], "pack");
    }
    for path in ["/zones?store_id=G0", "/zones/?store_id=G0"] {
        let r = server.call("GET", path, &read, "");
        assert_eq!(r.status, 200, "{}", r.body);
        assert_eq!(value(&r)["pagination"]["total"], 1);
        assert_eq!(value(&r)["zones"][0]["zone_id"], "G0D");
    }
    // Errors: unknown zone and store 404, missing store_id and a bad page size 422.
    let r = server.call("GET", "/zones/NOPE", &read, "");
    assert_eq!(r.status, 404, "{}", r.body);
    assert!(value(&r)["detail"].as_str().unwrap().contains("NOPE"));
    let r = server.call("GET", "/zones?store_id=NOPE", &read, "");
    assert_eq!(r.status, 404, "{}", r.body);
    let r = server.call("GET", "/zones", &read, "");
    assert_eq!(r.status, 422, "{}", r.body);
    assert_eq!(value(&r)["detail"][0]["loc"], json!(["query", "store_id"]));
    let r = server.call("GET", "/zones?store_id=G0&zones_by_page=0", &read, "");
    assert_eq!(r.status, 422, "{}", r.body);
    assert_eq!(
        value(&r)["detail"][0]["loc"],
        json!(["query", "zones_by_page"])
    );

    // Writes need a write key (K3: private_key or X-Api-Key).
    let body =
        json!({"zones": [{"zone_id": "N1", "store_id": "G0", "polygon": circle(FAR, 800.0)}]})
            .to_string();
    let r = server.call("POST", "/zones", &read, &body);
    assert_eq!(r.status, 403, "{}", r.body);
    let r = server.call("POST", "/zones", "", &body);
    assert_eq!(r.status, 401, "{}", r.body);
    let r = server.call("POST", "/zones/", &write, &body);
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(
        value(&r),
        json!({"status": "success", "message": "1 zone created"})
    );
    let r = server.call("POST", &format!("/zones?private_key={write}"), "", &body);
    assert_eq!(r.status, 422, "{}", r.body);
    assert_eq!(
        value(&r)["detail"][0]["loc"],
        json!(["body", "zones", 0, "zone_id"])
    );
    let r = server.call("POST", "/zones", &write, "zones=N2");
    assert_eq!(r.status, 400, "{}", r.body);
    assert_eq!(value(&r)["status"], "error");
    let bad = json!({"zones": [{"zone_id": "N3", "store_id": "G0", "polygon": "POLYGON((1.5 42.5, 1.6 142.5, 1.6 42.6, 1.5 42.5))"}]})
        .to_string();
    let r = server.call("POST", "/zones", &write, &bad);
    assert_eq!(r.status, 422, "{}", r.body);
    let msg = value(&r)["detail"][0]["msg"].as_str().unwrap().to_string();
    assert!(
        msg.contains("N3") && msg.contains("vertex 2 of ring 1"),
        "{msg}"
    );

    // The export with a write key only.
    let r = server.call("GET", "/zones/export", &read, "");
    assert_eq!(r.status, 403, "{}", r.body);
    for path in ["/zones/export", "/zones/export/"] {
        let r = server.call("GET", path, &write, "");
        assert_eq!(r.status, 200, "{}", r.body);
        assert_eq!(value(&r)["type"], "FeatureCollection");
        assert_eq!(value(&r)["edits"][0]["zone_id"], "N1");
        assert_eq!(value(&r)["features"][0]["properties"]["store_id"], "G0");
    }

    // Deletion.
    let r = server.call("DELETE", "/zones/N1", &read, "");
    assert_eq!(r.status, 403, "{}", r.body);
    let r = server.call("DELETE", "/zones/N1/", &write, "");
    assert_eq!(r.status, 200, "{}", r.body);
    let r = server.call("DELETE", "/zones/N1", &write, "");
    assert_eq!(r.status, 404, "{}", r.body);
    let r = server.call("GET", "/zones/N1", &read, "");
    assert_eq!(r.status, 404, "{}", r.body);
    let r = server.call("PATCH", "/zones/G0D", &write, "");
    assert_eq!(r.status, 405, "{}", r.body);
}
