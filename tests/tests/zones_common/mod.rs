//! Shared by the zone tests: a customer's stores pack of 60 generated stores around Andorra
//! la Vella (imported with the real import, signed and installed into a new engine) and the
//! calls and values the tests make of it.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::sync::Arc;

use rusqlite::Connection;
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
pub fn stores() -> Vec<StoreAsset> {
    synthetic::generate(60, 11, [1.45, 42.45, 1.60, 42.60])
}

/// Far from every generated zone.
pub const FAR: LatLng = LatLng {
    lat: 43.3,
    lng: 2.2,
};
pub const FAR2: LatLng = LatLng {
    lat: 43.6,
    lng: 2.6,
};

pub fn at(store: &StoreAsset) -> LatLng {
    LatLng {
        lat: store.location.lat,
        lng: store.location.lng,
    }
}

/// The ids of the stores delivering at `p`.
pub fn delivering(engine: &Arc<Engine>, publisher: &Publisher, p: LatLng) -> Vec<String> {
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

pub fn zone(zone_id: &str, store_id: &str, polygon: String) -> Zone {
    Zone {
        zone_id: zone_id.into(),
        store_id: store_id.into(),
        polygon,
        ..Default::default()
    }
}

pub fn put(
    engine: &Arc<Engine>,
    publisher: &Publisher,
    zones: Vec<Zone>,
) -> Result<waymark_core::api::ZonesUpdateResponse, waymark_core::error::ApiError> {
    let caller = waymark_tests::write_caller(publisher);
    engine.call(&Credentials::Http(&caller), ZonesUpdateRequest { zones })
}

/// A stored edit: zone id, store id, description, types (JSON), status.
type EditRow = (String, String, Option<String>, String, Option<String>);

pub fn edits(state: &Path) -> Vec<EditRow> {
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
pub struct Retail {
    pub _tmp: tempfile::TempDir,
    pub publisher: Publisher,
    pub stores: Vec<StoreAsset>,
    pub state: std::path::PathBuf,
    pub engine: Arc<Engine>,
}

pub fn retail() -> Retail {
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

pub fn value(r: &waymark_tests::HttpAnswer) -> serde_json::Value {
    serde_json::from_str(&r.body).unwrap()
}

/// A ring of 200,000 vertices (about 8 MB of WKT): refused by its size, before any validity
/// check.
pub fn huge_ring() -> String {
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

pub fn circle(p: LatLng, radius_m: f64) -> String {
    circle_wkt(p.lat, p.lng, radius_m, 16)
}

pub fn create(
    engine: &Arc<Engine>,
    publisher: &Publisher,
    zones: Vec<Zone>,
) -> Result<waymark_core::api::ZonesCreateResponse, waymark_core::error::ApiError> {
    let caller = waymark_tests::write_caller(publisher);
    engine.call(&Credentials::Http(&caller), ZonesCreateRequest { zones })
}

pub fn get(engine: &Arc<Engine>, publisher: &Publisher, zone_id: &str) -> Option<ZoneRecord> {
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

pub fn list(engine: &Arc<Engine>, publisher: &Publisher, store_id: &str) -> Vec<String> {
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

pub fn delete(
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

pub fn export(engine: &Arc<Engine>, publisher: &Publisher) -> ZonesExportResponse {
    let caller = waymark_tests::write_caller(publisher);
    engine
        .call(&Credentials::Http(&caller), ZonesExportRequest::default())
        .unwrap()
}
