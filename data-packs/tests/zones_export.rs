//! The zone edits of a device, taken off it with `GET /zones/export`, go back into a pack with
//! the real `waymark-packs import-stores`: the imported pack holds every exported store with
//! exactly the zones the device answers for it (updated, created and deleted zones alike),
//! zones in conflict are marked in the export, and the pack signed and installed on the device
//! answers as the edits did, with no conflict left.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rusqlite::Connection;
use serde_json::json;
use waymark_core::api::{
    ZoneDeleteRequest, ZoneRecord, ZonesCreateRequest, ZonesExportRequest, ZonesListRequest,
    ZonesUpdateRequest,
};
use waymark_core::auth::keys::{KeyClaims, KeyScope, PrivateRestriction, Publisher};
use waymark_core::auth::{Caller, RateLimitMode};
use waymark_core::operation::Credentials;
use waymark_core::stores::packed;
use waymark_core::{Engine, EngineConfig};
use waymark_packs::build::{self, PackPlan};
use waymark_packs::sources::Sources;
use waymark_packs::stores::StoreAsset;
use waymark_packs::stores::synthetic::{self, circle_wkt};

fn build_pack(stores: &[StoreAsset], version: &str, out: &Path, publisher: &Publisher) -> PathBuf {
    let sources =
        Sources::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("sources.toml")).unwrap();
    let plan = PackPlan {
        id: "retail".into(),
        osm: vec!["osm-monaco".into()],
        layers: vec!["places".into()],
        base: false,
        routing: Default::default(),
    };
    let source =
        waymark_packs::stores::pack::customer_source("proprietary", "generated test stores");
    let (dir, _) = waymark_packs::stores::pack::build_with_stores(
        &plan, version, &sources, stores, source, out,
    )
    .unwrap();
    build::sign_pack(&dir, publisher).unwrap();
    dir
}

fn install(engine: &Engine, dir: &Path) {
    engine
        .install_pack(
            &format!("file://{}", dir.canonicalize().unwrap().display()),
            &mut |_| {},
        )
        .unwrap();
}

/// A zone as the pack or the device holds it: `(store_id, description, polygon, types,
/// status)`.
type Zone = (String, Option<String>, String, Vec<String>, Option<String>);

fn device_zones(engine: &Arc<Engine>, caller: &Caller, store_id: &str) -> BTreeMap<String, Zone> {
    let page = engine
        .call(
            &Credentials::Http(caller),
            ZonesListRequest {
                store_id: store_id.into(),
                zones_by_page: 300,
                page: 1,
            },
        )
        .unwrap();
    page.zones
        .into_iter()
        .map(|z: ZoneRecord| {
            (
                z.zone_id,
                (z.store_id, z.description, z.polygon, z.types, z.status),
            )
        })
        .collect()
}

#[test]
fn an_export_imported_by_import_stores_gives_the_same_zones() {
    let tmp = tempfile::tempdir().unwrap();
    let publisher = Publisher::generate().unwrap();
    let stores = synthetic::generate(12, 11, synthetic::DEFAULT_BBOX);
    let v1 = build_pack(&stores, "1", &tmp.path().join("v1"), &publisher);
    let mut config = EngineConfig::new(&tmp.path().join("state"), vec![publisher.verifying()]);
    config.rate_limits = RateLimitMode::Off;
    config.packs_dir = Some(tmp.path().join("packs"));
    let engine = Arc::new(Engine::open(config).unwrap());
    install(&engine, &v1);
    let key = publisher
        .issue(&KeyClaims::new(KeyScope::Private {
            write: true,
            restriction: PrivateRestriction::None,
        }))
        .unwrap();
    let caller = Caller {
        private_key: Some(key),
        ..Caller::default()
    };
    let creds = Credentials::Http(&caller);
    let near = |i: usize, r: f64| {
        let l = &stores[i].location;
        circle_wkt(l.lat + 0.001, l.lng, r, 16)
    };
    let zone = |id: &str, store: usize, r: f64, description: &str| {
        json!({"zone_id": id, "store_id": stores[store].store_id, "polygon": near(store, r),
               "description": description, "types": ["delivery"], "status": "active"})
    };

    // The field team's edits: G1D and G4D updated, NEW1 created for G2, G3D deleted.
    let update: ZonesUpdateRequest = serde_json::from_value(json!({"zones": [
        zone("G1D", 1, 900.0, "winter area"),
        zone("G4D", 4, 700.0, "moved"),
    ]}))
    .unwrap();
    engine.call(&creds, update).unwrap();
    let create: ZonesCreateRequest =
        serde_json::from_value(json!({"zones": [zone("NEW1", 2, 300.0, "pick-up point")]}))
            .unwrap();
    engine.call(&creds, create).unwrap();
    engine
        .call(
            &creds,
            ZoneDeleteRequest {
                zone_id: "G3D".into(),
            },
        )
        .unwrap();

    // Version 2 of the pack changes G4D since the edit: that edit is in conflict.
    let mut republished = stores.clone();
    republished[4].zones[0].description = Some("republished".into());
    let v2 = build_pack(&republished, "2", &tmp.path().join("v2"), &publisher);
    install(&engine, &v2);
    let conflicts: Vec<String> = engine
        .zone_conflicts()
        .unwrap()
        .into_iter()
        .map(|c| c.zone_id)
        .collect();
    assert_eq!(conflicts, ["G4D"]);

    let export = engine.call(&creds, ZonesExportRequest::default()).unwrap();
    let edited = ["G1", "G2", "G3", "G4"];
    let exported: Vec<String> = export
        .features
        .iter()
        .map(|f| f.properties.0["store_id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(exported, edited);
    // Conflicts are marked on the store's feature and in the list of edits.
    for f in &export.features {
        let want: &[&str] = match f.properties.0["store_id"].as_str().unwrap() {
            "G4" => &["G4D"],
            _ => &[],
        };
        assert_eq!(f.conflicts, want);
    }
    let marks: Vec<(String, String, bool)> = export
        .edits
        .iter()
        .map(|e| {
            let edit = e.edit.as_ref().unwrap();
            (e.zone_id.clone(), edit.change.clone(), edit.conflict)
        })
        .collect();
    assert_eq!(
        marks,
        [
            ("G1D".to_string(), "updated".to_string(), false),
            ("G3D".to_string(), "deleted".to_string(), false),
            ("G4D".to_string(), "updated".to_string(), true),
            ("NEW1".to_string(), "created".to_string(), false),
        ]
    );

    // The export as the HTTP face writes it, imported into a copy of version 2 by the real
    // binary, strictly (any refused record fails the import).
    let file = tmp.path().join("export.geojson");
    std::fs::write(&file, serde_json::to_vec(&export).unwrap()).unwrap();
    let v3 = tmp.path().join("v3/retail");
    waymark_packs::stores::pack::copy_dir(&v2, &v3).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_waymark-packs"))
        .args(["import-stores", "--strict", "--pack"])
        .arg(&v3)
        .arg("--geojson")
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // The imported pack holds the exported stores with exactly the device's zones.
    let (packed_stores, packed_zones) =
        packed::read(&Connection::open(v3.join("data.sqlite")).unwrap()).unwrap();
    let ids: Vec<&str> = packed_stores.iter().map(|s| s.store_id.as_str()).collect();
    assert_eq!(ids, edited);
    let mut device = BTreeMap::new();
    for s in edited {
        device.extend(device_zones(&engine, &caller, s));
    }
    let imported: BTreeMap<String, Zone> = packed_zones
        .into_iter()
        .map(|z| {
            (
                z.zone_id,
                (z.store_id, z.description, z.polygon_wkt, z.types, z.status),
            )
        })
        .collect();
    assert_eq!(imported, device);
    assert!(!imported.contains_key("G3D"));
    assert_eq!(imported["NEW1"].0, "G2");
    assert_eq!(imported["G4D"].1.as_deref(), Some("moved"));
    // The stores keep every field they had in the pack the edits were exported from; the
    // position to the last bit but one (JSON numbers are read by serde_json's fast parser,
    // which may round the last bit the other way).
    let (before, _) = packed::read(&Connection::open(v2.join("data.sqlite")).unwrap()).unwrap();
    for p in &packed_stores {
        let b = before.iter().find(|b| b.store_id == p.store_id).unwrap();
        let ulps = |x: f64, y: f64| x.to_bits().abs_diff(y.to_bits());
        assert!(
            ulps(p.lat, b.lat) <= 1 && ulps(p.lng, b.lng) <= 1,
            "{p:?}\n{b:?}"
        );
        let same_place = packed::PackedStore {
            lat: b.lat,
            lng: b.lng,
            ..p.clone()
        };
        assert_eq!(&same_place, b);
    }

    // Signed as version 3 and installed on the device: the zones answer as before and the
    // pack now carries every edit, so nothing is in conflict.
    let mut manifest: waymark_core::packs::Manifest =
        serde_json::from_slice(&std::fs::read(v3.join("manifest.json")).unwrap()).unwrap();
    manifest.version = "3".into();
    std::fs::write(
        v3.join("manifest.json"),
        serde_json::to_vec(&manifest).unwrap(),
    )
    .unwrap();
    build::sign_pack(&v3, &publisher).unwrap();
    install(&engine, &v3);
    assert!(engine.zone_conflicts().unwrap().is_empty());
    let mut after = BTreeMap::new();
    for s in edited {
        after.extend(device_zones(&engine, &caller, s));
    }
    assert_eq!(after, device);
}
