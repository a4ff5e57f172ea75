//! `PUT /zones` on a customer's stores pack (generated stores imported with the real import,
//! signed and installed): an update is used by the next `zone=true` search, keeps the fields
//! it does not give, a batch with any bad zone writes nothing, edits survive a restart and a
//! hot-swap of the pack and stay in force, in conflict, when a newer pack changes the zone —
//! through the engine and over real HTTP on 127.0.0.1.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::sync::Arc;

use rusqlite::Connection;
use serde_json::json;
use waymark_core::Engine;
use waymark_core::api::{
    LatLng, StoresSearchRequest, Zone, ZoneDeleteRequest, ZoneGetRequest, ZoneRecord,
    ZonesCreateRequest, ZonesExportRequest, ZonesExportResponse, ZonesListRequest,
    ZonesUpdateRequest,
};
use waymark_core::auth::keys::Publisher;
use waymark_core::error::ErrorCode;
use waymark_core::operation::Credentials;
use waymark_packs::stores::StoreAsset;
use waymark_packs::stores::synthetic::{self, circle_wkt};

/// 60 stores around Andorra la Vella, zones of 1–3 km.
fn stores() -> Vec<StoreAsset> {
    synthetic::generate(60, 11, [1.45, 42.45, 1.60, 42.60])
}

/// Far from every generated zone.
const FAR: LatLng = LatLng {
    lat: 43.3,
    lng: 2.2,
};
const FAR2: LatLng = LatLng {
    lat: 43.6,
    lng: 2.6,
};

fn at(store: &StoreAsset) -> LatLng {
    LatLng {
        lat: store.location.lat,
        lng: store.location.lng,
    }
}

/// The ids of the stores delivering at `p`.
fn delivering(engine: &Arc<Engine>, publisher: &Publisher, p: LatLng) -> Vec<String> {
    let caller = waymark_tests::private_caller(publisher);
    let r = engine
        .call(
            &Credentials::Http(&caller),
            StoresSearchRequest {
                center: Some(p),
                zone: true,
                stores_by_page: 300,
                ..Default::default()
            },
        )
        .unwrap();
    r.features
        .into_iter()
        .map(|f| f.properties.store_id)
        .collect()
}

fn zone(zone_id: &str, store_id: &str, polygon: String) -> Zone {
    Zone {
        zone_id: zone_id.into(),
        store_id: store_id.into(),
        polygon,
        ..Default::default()
    }
}

fn put(
    engine: &Arc<Engine>,
    publisher: &Publisher,
    zones: Vec<Zone>,
) -> Result<waymark_core::api::ZonesUpdateResponse, waymark_core::error::ApiError> {
    let caller = waymark_tests::write_caller(publisher);
    engine.call(&Credentials::Http(&caller), ZonesUpdateRequest { zones })
}

/// A stored edit: zone id, store id, description, types (JSON), status.
type EditRow = (String, String, Option<String>, String, Option<String>);

fn edits(state: &Path) -> Vec<EditRow> {
    let conn = Connection::open(state.join("zones.sqlite")).unwrap();
    let mut stmt = conn
        .prepare(
            "SELECT zone_id, store_id, description, types, status FROM zone_edits ORDER BY zone_id",
        )
        .unwrap();
    stmt.query_map([], |r| {
        Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
    })
    .unwrap()
    .map(Result::unwrap)
    .collect()
}

/// The generated stores pack, built, signed and installed into a new engine.
struct Retail {
    _tmp: tempfile::TempDir,
    publisher: Publisher,
    stores: Vec<StoreAsset>,
    state: std::path::PathBuf,
    engine: Arc<Engine>,
}

fn retail() -> Retail {
    let tmp = tempfile::tempdir().unwrap();
    let publisher = Publisher::generate().unwrap();
    let stores = stores();
    let dir = waymark_tests::stores_pack(
        "retail",
        "1",
        &stores,
        &tmp.path().join("built"),
        &publisher,
    );
    let state = tmp.path().join("state");
    let engine = waymark_tests::open_engine(&state, &tmp.path().join("packs"), &publisher);
    waymark_tests::install(&engine, &dir);
    Retail {
        _tmp: tmp,
        publisher,
        stores,
        state,
        engine,
    }
}

fn value(r: &waymark_tests::HttpAnswer) -> serde_json::Value {
    serde_json::from_str(&r.body).unwrap()
}

/// A ring of 200,000 vertices (about 8 MB of WKT): refused by its size, before any validity
/// check.
fn huge_ring() -> String {
    let n = 200_000;
    let mut pts: Vec<String> = (0..n)
        .map(|i| {
            let a = std::f64::consts::TAU * i as f64 / n as f64;
            format!("{:.7} {:.7}", 1.5 + 0.1 * a.cos(), 42.5 + 0.1 * a.sin())
        })
        .collect();
    pts.push(pts[0].clone());
    format!("POLYGON(({}))", pts.join(", "))
}

fn circle(p: LatLng, radius_m: f64) -> String {
    circle_wkt(p.lat, p.lng, radius_m, 16)
}

#[test]
fn an_update_is_used_by_the_next_search_and_keeps_what_it_does_not_give() {
    let Retail {
        _tmp,
        publisher,
        stores,
        state,
        engine,
    } = retail();

    assert!(delivering(&engine, &publisher, at(&stores[0])).contains(&"G0".to_string()));
    assert!(delivering(&engine, &publisher, FAR).is_empty());

    let r = put(
        &engine,
        &publisher,
        vec![zone("G0D", "G0", circle(FAR, 2_000.0))],
    )
    .unwrap();
    assert_eq!(
        (r.status.as_str(), r.message.as_str()),
        ("success", "1 zone updated")
    );
    assert_eq!(delivering(&engine, &publisher, FAR), ["G0"]);
    assert!(!delivering(&engine, &publisher, at(&stores[0])).contains(&"G0".to_string()));
    // Fields the update did not give keep the imported values.
    assert_eq!(
        edits(&state),
        [(
            "G0D".into(),
            "G0".into(),
            Some("delivery area".into()),
            r#"["delivery"]"#.into(),
            Some("active".into())
        )]
    );

    // The zone moves to another store; given fields replace, the others stay as edited.
    let mut moved = zone("G0D", "G1", circle(FAR, 2_000.0));
    moved.description = Some("moved by the field team".into());
    moved.types = Some(vec!["delivery".into(), "express".into()]);
    let r = put(&engine, &publisher, vec![moved]).unwrap();
    assert_eq!(r.message, "1 zone updated");
    assert_eq!(delivering(&engine, &publisher, FAR), ["G1"]);
    let e = edits(&state);
    assert_eq!(e[0].1, "G1");
    assert_eq!(e[0].2.as_deref(), Some("moved by the field team"));
    assert_eq!(e[0].3, r#"["delivery","express"]"#);
    assert_eq!(e[0].4.as_deref(), Some("active"));

    // A multipolygon batch of two zones.
    let multi = format!(
        "MULTIPOLYGON((({})),(({})))",
        &circle(FAR, 500.0)["POLYGON((".len()..circle(FAR, 500.0).len() - 2],
        &circle(FAR2, 500.0)["POLYGON((".len()..circle(FAR2, 500.0).len() - 2]
    );
    let r = put(
        &engine,
        &publisher,
        vec![
            zone("G2D", "G2", multi),
            zone("G3D", "G3", circle(FAR2, 800.0)),
        ],
    )
    .unwrap();
    assert_eq!(r.message, "2 zones updated");
    assert_eq!(delivering(&engine, &publisher, FAR), ["G1", "G2"]);
    assert_eq!(delivering(&engine, &publisher, FAR2), ["G2", "G3"]);
}

#[test]
fn a_batch_with_any_bad_zone_writes_nothing() {
    let Retail {
        _tmp,
        publisher,
        stores,
        state,
        engine,
    } = retail();

    let err = put(
        &engine,
        &publisher,
        vec![
            zone("G0D", "G0", circle(FAR, 2_000.0)),
            zone("NOPE", "G1", circle(FAR, 2_000.0)),
            zone("G2D", "G999999", circle(FAR, 2_000.0)),
            zone("G3D", "G3", "POLYGON((0 0, 1 1, 1 0, 0 1, 0 0))".into()),
            zone("G4D", "G4", "LINESTRING(0 0, 1 1)".into()),
            zone("G5D", "G5", "POLYGON((0 0, 1 0".into()),
            zone(
                "G6D",
                "G6",
                "POLYGON((1.5 42.5, 1.6 42.5, 200 42.6, 1.5 42.5))".into(),
            ),
            zone("G7D", "G7", huge_ring()),
        ],
    )
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::Validation);
    let body = serde_json::to_value(&err.fields).unwrap();
    let locs: Vec<_> = body
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["loc"].clone())
        .collect();
    assert_eq!(
        locs,
        [
            json!(["body", "zones", 1, "zone_id"]),
            json!(["body", "zones", 2, "store_id"]),
            json!(["body", "zones", 3, "polygon"]),
            json!(["body", "zones", 4, "polygon"]),
            json!(["body", "zones", 5, "polygon"]),
            json!(["body", "zones", 6, "polygon"]),
            json!(["body", "zones", 7, "polygon"]),
        ]
    );
    let msgs: Vec<&str> = body
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["msg"].as_str().unwrap())
        .collect();
    assert!(
        msgs[0].contains("unknown zone_id") && msgs[0].contains("NOPE"),
        "{msgs:?}"
    );
    assert!(msgs[1].contains("unknown store_id"), "{msgs:?}");
    assert!(msgs[2].contains("not a valid polygon"), "{msgs:?}");
    assert!(msgs[3].contains("POLYGON or MULTIPOLYGON"), "{msgs:?}");
    assert!(msgs[4].contains("Well-Known Text"), "{msgs:?}");
    assert!(
        msgs[5].contains("zone `G6D`") && msgs[5].contains("vertex 3 of ring 1"),
        "{msgs:?}"
    );
    assert!(
        msgs[6].contains("zone `G7D`") && msgs[6].contains("at most 10000 vertices"),
        "{msgs:?}"
    );
    // Nothing of the batch was applied or stored, the valid zone included.
    assert!(delivering(&engine, &publisher, FAR).is_empty());
    assert!(edits(&state).is_empty());
    assert!(delivering(&engine, &publisher, at(&stores[0])).contains(&"G0".to_string()));
}

#[test]
fn edits_survive_restart_and_hot_swap_and_a_newer_zone_puts_them_in_conflict() {
    let tmp = tempfile::tempdir().unwrap();
    let publisher = Publisher::generate().unwrap();
    let (state, packs, built) = (
        tmp.path().join("state"),
        tmp.path().join("packs"),
        tmp.path().join("built"),
    );
    let mut stores = stores();
    let v1 = waymark_tests::stores_pack("retail", "1", &stores, &built, &publisher);
    {
        let engine = waymark_tests::open_engine(&state, &packs, &publisher);
        waymark_tests::install(&engine, &v1);
        put(
            &engine,
            &publisher,
            vec![
                zone("G0D", "G0", circle(FAR, 2_000.0)),
                zone("G1D", "G1", circle(FAR2, 2_000.0)),
            ],
        )
        .unwrap();
    }
    // Restart: the edits are read back from the state.
    let engine = waymark_tests::open_engine(&state, &packs, &publisher);
    assert_eq!(delivering(&engine, &publisher, FAR), ["G0"]);
    assert_eq!(delivering(&engine, &publisher, FAR2), ["G1"]);

    // A newer pack with the same zones, swapped in while serving: the edits still apply.
    let v2 = waymark_tests::stores_pack("retail", "2", &stores, &built, &publisher);
    waymark_tests::install(&engine, &v2);
    assert_eq!(
        engine.packs().snapshot().get("retail").unwrap().version(),
        "2"
    );
    assert_eq!(delivering(&engine, &publisher, FAR), ["G0"]);
    assert_eq!(delivering(&engine, &publisher, FAR2), ["G1"]);

    // A newer pack that changes zone G1D: the field team's edit stays in force, the zone is
    // in conflict (with the versions), G0D's edit, on a zone the pack did not change, applies
    // without conflict.
    assert!(engine.zone_conflicts().unwrap().is_empty());
    let home = at(&stores[1]);
    stores[1].zones[0].polygon = circle(home, 300.0);
    let v3 = waymark_tests::stores_pack("retail", "3", &stores, &built, &publisher);
    waymark_tests::install(&engine, &v3);
    assert_eq!(delivering(&engine, &publisher, FAR), ["G0"]);
    assert_eq!(delivering(&engine, &publisher, FAR2), ["G1"]);
    // The pack's new zone around the store is not used: the edit replaces it.
    assert!(!delivering(&engine, &publisher, home).contains(&"G1".to_string()));
    let conflicts = engine.zone_conflicts().unwrap();
    assert_eq!(conflicts.len(), 1, "{conflicts:?}");
    assert_eq!(conflicts[0].zone_id, "G1D");
    assert_eq!(conflicts[0].edit_pack_version, "1");
    assert_eq!(conflicts[0].pack_version.as_deref(), Some("3"));
    assert_eq!(edits(&state).len(), 2);
    // The conflict survives a restart.
    drop(engine);
    let engine = waymark_tests::open_engine(&state, &packs, &publisher);
    assert_eq!(engine.zone_conflicts().unwrap().len(), 1);
    assert_eq!(delivering(&engine, &publisher, FAR2), ["G1"]);

    // A pack that changes only the description of G0D: a conflict too, the edit in force.
    stores[0].zones[0].description = Some("Livraison express".into());
    let v4 = waymark_tests::stores_pack("retail", "4", &stores, &built, &publisher);
    waymark_tests::install(&engine, &v4);
    let ids: Vec<String> = engine
        .zone_conflicts()
        .unwrap()
        .into_iter()
        .map(|c| c.zone_id)
        .collect();
    assert_eq!(ids, ["G0D", "G1D"]);
    assert_eq!(delivering(&engine, &publisher, FAR), ["G0"]);

    // Updating the zone again resolves its conflict: the edit is now made on version 4.
    put(
        &engine,
        &publisher,
        vec![zone("G1D", "G1", circle(FAR2, 2_000.0))],
    )
    .unwrap();
    let ids: Vec<String> = engine
        .zone_conflicts()
        .unwrap()
        .into_iter()
        .map(|c| c.zone_id)
        .collect();
    assert_eq!(ids, ["G0D"]);
    assert_eq!(delivering(&engine, &publisher, FAR2), ["G1"]);
    drop(engine);
    let engine = waymark_tests::open_engine(&state, &packs, &publisher);
    assert_eq!(delivering(&engine, &publisher, FAR2), ["G1"]);
    assert_eq!(delivering(&engine, &publisher, FAR), ["G0"]);
    assert_eq!(engine.zone_conflicts().unwrap().len(), 1);
}

#[test]
fn an_edit_made_after_a_newer_pack_changed_the_zone_is_not_in_conflict() {
    // The other order: the pack changes the zone first, the field team edits it after.
    let tmp = tempfile::tempdir().unwrap();
    let publisher = Publisher::generate().unwrap();
    let (state, packs, built) = (
        tmp.path().join("state"),
        tmp.path().join("packs"),
        tmp.path().join("built"),
    );
    let mut stores = stores();
    let v1 = waymark_tests::stores_pack("retail", "1", &stores, &built, &publisher);
    let engine = waymark_tests::open_engine(&state, &packs, &publisher);
    waymark_tests::install(&engine, &v1);
    stores[1].zones[0].description = Some("Nouvelle zone".into());
    let v2 = waymark_tests::stores_pack("retail", "2", &stores, &built, &publisher);
    waymark_tests::install(&engine, &v2);
    put(
        &engine,
        &publisher,
        vec![zone("G1D", "G1", circle(FAR2, 2_000.0))],
    )
    .unwrap();
    assert!(engine.zone_conflicts().unwrap().is_empty());
    assert_eq!(delivering(&engine, &publisher, FAR2), ["G1"]);
    // The edit kept the new pack's description (it left it out).
    assert_eq!(edits(&state)[0].2.as_deref(), Some("Nouvelle zone"));
    let conn = Connection::open(state.join("zones.sqlite")).unwrap();
    let version: String = conn
        .query_row(
            "SELECT pack_version FROM zone_edits WHERE zone_id = 'G1D'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(version, "2");
}

#[test]
fn over_http_an_update_answers_200_and_refusals_say_what_to_fix() {
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
    let target = format!("/zones?private_key={write}");
    let body = json!({"zones": [{
        "zone_id": "G0D", "store_id": "G0", "polygon": circle(FAR, 1_500.0),
        "description": "winter delivery area", "status": "active"
    }]})
    .to_string();
    let r = server.call("PUT", &target, "", &body);
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(
        value(&r),
        json!({"status": "success", "message": "1 zone updated"})
    );
    let r = server.call(
        "GET",
        &format!("/stores/search?lat={}&lng={}&zone=true", FAR.lat, FAR.lng),
        &read,
        "",
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(value(&r)["features"][0]["properties"]["store_id"], "G0");
    assert_eq!(value(&r)["pagination"]["total"], 1);

    // The trailing-slash path is the same operation.
    let r = server.call("PUT", &format!("/zones/?private_key={write}"), "", &body);
    assert_eq!(r.status, 200, "{}", r.body);

    // Not JSON: 400 {status, value}.
    let r = server.call("PUT", &target, "", "zones=G0D");
    assert_eq!(r.status, 400, "{}", r.body);
    assert_eq!(value(&r)["status"], "error");
    assert!(value(&r)["value"].is_string());
    // Unknown zone: 422 naming the item.
    let r = server.call(
        "PUT",
        &target,
        "",
        &json!({"zones": [{"zone_id": "X1", "store_id": "G0", "polygon": circle(FAR, 100.0)}]})
            .to_string(),
    );
    assert_eq!(r.status, 422, "{}", r.body);
    assert_eq!(
        value(&r)["detail"][0]["loc"],
        json!(["body", "zones", 0, "zone_id"])
    );
    // A key without write permission: 403; a read key sent as header: 401.
    let r = server.call("PUT", &format!("/zones?private_key={read}"), "", &body);
    assert_eq!(r.status, 403, "{}", r.body);
    let r = server.call("PUT", "/zones", &write, &body);
    assert_eq!(r.status, 401, "{}", r.body);
}

#[test]
fn a_pack_without_an_edited_zone_keeps_the_edit_in_force_in_conflict() {
    let tmp = tempfile::tempdir().unwrap();
    let publisher = Publisher::generate().unwrap();
    let (state, packs, built) = (
        tmp.path().join("state"),
        tmp.path().join("packs"),
        tmp.path().join("built"),
    );
    let mut stores = stores();
    let v1 = waymark_tests::stores_pack("retail", "1", &stores, &built, &publisher);
    let engine = waymark_tests::open_engine(&state, &packs, &publisher);
    waymark_tests::install(&engine, &v1);
    put(
        &engine,
        &publisher,
        vec![zone("G2D", "G2", circle(FAR, 2_000.0))],
    )
    .unwrap();
    assert!(engine.zone_conflicts().unwrap().is_empty());
    // Version 2 drops the zone: the edit still answers, and the zone is in conflict with no
    // pack carrying it.
    stores[2].zones.clear();
    let v2 = waymark_tests::stores_pack("retail", "2", &stores, &built, &publisher);
    waymark_tests::install(&engine, &v2);
    assert_eq!(delivering(&engine, &publisher, FAR), ["G2"]);
    let conflicts = engine.zone_conflicts().unwrap();
    assert_eq!(conflicts.len(), 1, "{conflicts:?}");
    assert_eq!(conflicts[0].zone_id, "G2D");
    assert_eq!(conflicts[0].edit_pack_version, "1");
    assert_eq!(conflicts[0].pack_id, None);
    // An update of the zone, which now exists only on the device, resolves the conflict.
    put(
        &engine,
        &publisher,
        vec![zone("G2D", "G2", circle(FAR, 1_000.0))],
    )
    .unwrap();
    assert!(engine.zone_conflicts().unwrap().is_empty());
    assert_eq!(delivering(&engine, &publisher, FAR), ["G2"]);
    // Version 3 brings the zone back (as in version 1): a conflict again, the edit in force.
    let stores = self::stores();
    let v3 = waymark_tests::stores_pack("retail", "3", &stores, &built, &publisher);
    waymark_tests::install(&engine, &v3);
    assert_eq!(delivering(&engine, &publisher, FAR), ["G2"]);
    assert_eq!(engine.zone_conflicts().unwrap().len(), 1);
    // Version 4 republishes the device's zone as it is: the pack agrees with the edit.
    let mut stores = self::stores();
    stores[2].zones[0].polygon = circle(FAR, 1_000.0);
    let v4 = waymark_tests::stores_pack("retail", "4", &stores, &built, &publisher);
    waymark_tests::install(&engine, &v4);
    assert!(engine.zone_conflicts().unwrap().is_empty());
    assert_eq!(delivering(&engine, &publisher, FAR), ["G2"]);
}

fn create(
    engine: &Arc<Engine>,
    publisher: &Publisher,
    zones: Vec<Zone>,
) -> Result<waymark_core::api::ZonesCreateResponse, waymark_core::error::ApiError> {
    let caller = waymark_tests::write_caller(publisher);
    engine.call(&Credentials::Http(&caller), ZonesCreateRequest { zones })
}

fn get(engine: &Arc<Engine>, publisher: &Publisher, zone_id: &str) -> Option<ZoneRecord> {
    let caller = waymark_tests::private_caller(publisher);
    match engine.call(
        &Credentials::Http(&caller),
        ZoneGetRequest {
            zone_id: zone_id.into(),
        },
    ) {
        Ok(z) => Some(z),
        Err(e) if e.code == ErrorCode::NotFound => None,
        Err(e) => panic!("{e:?}"),
    }
}

fn list(engine: &Arc<Engine>, publisher: &Publisher, store_id: &str) -> Vec<String> {
    let caller = waymark_tests::private_caller(publisher);
    let r = engine
        .call(
            &Credentials::Http(&caller),
            ZonesListRequest {
                store_id: store_id.into(),
                zones_by_page: 300,
                ..Default::default()
            },
        )
        .unwrap();
    assert_eq!(r.pagination.total as usize, r.zones.len());
    r.zones.into_iter().map(|z| z.zone_id).collect()
}

fn delete(
    engine: &Arc<Engine>,
    publisher: &Publisher,
    zone_id: &str,
) -> Result<waymark_core::api::ZoneDeleteResponse, waymark_core::error::ApiError> {
    let caller = waymark_tests::write_caller(publisher);
    engine.call(
        &Credentials::Http(&caller),
        ZoneDeleteRequest {
            zone_id: zone_id.into(),
        },
    )
}

fn export(engine: &Arc<Engine>, publisher: &Publisher) -> ZonesExportResponse {
    let caller = waymark_tests::write_caller(publisher);
    engine
        .call(&Credentials::Http(&caller), ZonesExportRequest::default())
        .unwrap()
}

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
