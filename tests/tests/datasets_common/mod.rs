//! Shared by the dataset tests: the building footprints of the Monaco extract imported once
//! into an engine served on 127.0.0.1, and the calls the tests make.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use geo::Geometry;
use serde_json::Value;
use waymark_core::Engine;
use waymark_core::api::*;
use waymark_core::auth::Caller;
use waymark_core::auth::keys::Publisher;
use waymark_core::error::ApiError;
use waymark_core::operation::{Credentials, Operation};

pub struct Fixture {
    pub engine: Arc<Engine>,
    pub publisher: Publisher,
    pub server: waymark_tests::LocalServer,
    pub buildings: Dataset,
    /// The source features (id → feature), as written.
    pub source: Vec<Value>,
    pub dir: tempfile::TempDir,
}

pub fn caller() -> Caller {
    waymark_tests::write_caller(&fixture().publisher)
}

pub fn call<R: Operation>(req: R) -> Result<R::Response, ApiError> {
    fixture().engine.call(&Credentials::Http(&caller()), req)
}

pub fn file_url(p: &Path) -> String {
    format!("file://{}", p.canonicalize().unwrap().display())
}

/// Waits for the latest run of `id` to end.
pub fn wait(engine: &Arc<Engine>, id: &str) -> ImportRun {
    for _ in 0..1200 {
        let run = engine
            .call(
                &Credentials::Http(&waymark_tests::write_caller(&fixture_publisher_raw())),
                DatasetStatusRequest {
                    dataset_id: id.into(),
                },
            )
            .unwrap();
        if run.status != ImportStatus::InProgress {
            return run;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("the import of {id} did not end");
}

pub static PUBLISHER: OnceLock<Publisher> = OnceLock::new();

pub fn open_engine(dir: &Path) -> Arc<Engine> {
    let publisher = fixture_publisher_raw();
    waymark_tests::open_engine(&dir.join("state"), &dir.join("packs"), &publisher)
}

pub fn fixture_publisher_raw() -> Publisher {
    PUBLISHER
        .get_or_init(|| Publisher::generate().unwrap())
        .clone()
}

pub fn create(engine: &Arc<Engine>, name: &str, url: &str) -> Dataset {
    engine
        .call(
            &Credentials::Http(&waymark_tests::write_caller(&fixture_publisher_raw())),
            DatasetCreateRequest {
                body: DatasetCreateBody {
                    name: name.into(),
                    url: url.into(),
                    scheduled_for_deletion_after: None,
                },
            },
        )
        .unwrap()
}

pub fn fixture() -> &'static Fixture {
    static F: OnceLock<Fixture> = OnceLock::new();
    F.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let pbf = waymark_tests::sources().fetch("osm-monaco").unwrap();
        let geojson = dir.path().join("monaco-buildings.geojson");
        waymark_packs::datasets::write_buildings(&pbf, &geojson).unwrap();
        let source: Value = serde_json::from_slice(&std::fs::read(&geojson).unwrap()).unwrap();
        let engine = open_engine(dir.path());
        let buildings = create(&engine, "Monaco buildings", &file_url(&geojson));
        let run = wait(&engine, &buildings.id);
        assert_eq!(run.status, ImportStatus::Success, "{run:?}");
        let server = waymark_tests::LocalServer::start(engine.clone());
        Fixture {
            engine,
            publisher: fixture_publisher_raw(),
            server,
            buildings,
            source: source["features"].as_array().unwrap().clone(),
            dir,
        }
    })
}

pub fn search(id: &str, filter: &str, page: u32, per_page: u32) -> FeatureSearchResponse {
    call(FeatureSearchRequest {
        dataset_id: id.into(),
        per_page,
        page,
        body: FeatureSearchBody {
            filter: filter.into(),
        },
        ..Default::default()
    })
    .unwrap()
}

/// Every feature id matching `filter`, walking the pages.
pub fn search_all(id: &str, filter: &str) -> Vec<FeatureSummary> {
    let mut out = Vec::new();
    let mut page = 1;
    loop {
        let r = search(id, filter, page, 1000);
        out.extend(r.features);
        match r.pagination.next {
            Some(n) => page = n,
            None => return out,
        }
    }
}

/// The source's polygon geometry.
pub fn geometry(v: &Value) -> Geometry<f64> {
    let coords = v["coordinates"][0].as_array().unwrap();
    let ring: Vec<(f64, f64)> = coords
        .iter()
        .map(|c| (c[0].as_f64().unwrap(), c[1].as_f64().unwrap()))
        .collect();
    Geometry::Polygon(geo::Polygon::new(ring.into(), vec![]))
}
