//! `PUT /zones` on a customer's stores pack (generated stores imported with the real import,
//! signed and installed): an update is used by the next `zone=true` search, keeps the fields
//! it does not give, a batch with any bad zone writes nothing, edits survive a restart and a
//! hot-swap of the pack and stay in force, in conflict, when a newer pack changes the zone —
//! through the engine and over real HTTP on 127.0.0.1.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod zones_common;

use rusqlite::Connection;
use serde_json::json;
use waymark_core::auth::keys::Publisher;
use waymark_core::error::ErrorCode;
use zones_common::*;

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
