//! A delta between two real builds installed through the local server: Monaco built from the
//! shared extract, then again after a day of edits; `POST /packs` of the new version, served
//! from a directory that holds no routing graph, installs by delta (graphs prepared on the
//! device), `GET /packs?source=` shows the delta's size, and routes answer on the new version
//! with every file equal to the published one.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::{Path, PathBuf};

use common::{Req, Server, with_query};
use serde_json::json;
use waymark_core::auth::RateLimitMode;
use waymark_core::auth::keys::Publisher;
use waymark_core::packs::schema::layers;
use waymark_packs::build::{self, BuildOptions, PackPlan};
use waymark_packs::osm::OsmEdit;
use waymark_packs::sources::Sources;

fn sources() -> Sources {
    Sources::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../data-packs/sources.toml"))
        .unwrap()
}

fn build_version(version: &str, edit: Option<OsmEdit>, out: &Path, p: &Publisher) -> PathBuf {
    let plan = PackPlan {
        id: "monaco".into(),
        osm: vec!["osm-monaco".into()],
        layers: [layers::ROADS, layers::SEARCH, layers::ROUTING]
            .iter()
            .map(|s| s.to_string())
            .collect(),
        base: false,
        routing: Default::default(),
    };
    let options = BuildOptions {
        force: false,
        edit,
        region: None,
    };
    let dir = build::build_pack_with(&plan, version, &sources(), out, &options, &mut |_, _, _| {})
        .unwrap();
    build::sign_pack(&dir, p).unwrap();
    dir
}

fn install(s: &Server, w: &str, url: &str) -> serde_json::Value {
    let body = serde_json::to_string(&json!({ "url": url })).unwrap();
    let r = s.http(
        &Req::with_method("POST", "/packs")
            .header("X-Api-Key", w)
            .body(&body),
    );
    assert_eq!(r.status, 202, "{}", r.body);
    common::wait_install(s, w, r.body["install_id"].as_str().unwrap())
}

#[test]
fn a_delta_between_two_real_builds_installs_through_the_server() {
    let s = sources();
    if !s.is_available(s.get("osm-monaco").unwrap()) {
        eprintln!("skipped: shared extract osm-monaco absent");
        return;
    }
    let server = Server::start_with(RateLimitMode::Off);
    let w = server.keys.private_write.clone();
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("published");
    let v1 = build_version("1", None, &out, &server.publisher);
    let v2 = build_version(
        "2",
        Some(OsmEdit::Day {
            share: 0.005,
            seed: 5,
        }),
        &out,
        &server.publisher,
    );
    let summary = waymark_core::packs::delta::build_delta(
        &v1,
        &v2,
        &v2.join(waymark_core::packs::delta::delta_dir_rel("1")),
        &server.publisher,
    )
    .unwrap();
    assert!(
        summary.files.iter().any(|f| f.1 == "prepare"),
        "{summary:?}"
    );
    // What the device is served of v2 has no routing graph.
    for f in std::fs::read_dir(v2.join("routing")).unwrap() {
        let path = f.unwrap().path();
        if path.extension().is_some_and(|e| e == "fp") {
            std::fs::remove_file(path).unwrap();
        }
    }
    let url = |dir: &Path| format!("file://{}", dir.display());
    let status = install(&server, &w, &url(&v1));
    assert_eq!(status["status"], "completed", "{status}");
    let r =
        server.both(&Req::get(with_query("/packs", "source", &url(&v2))).header("X-Api-Key", &w));
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(
        r.body["packs"][0]["update"]["delta_size"], summary.delta_size,
        "{}",
        r.body
    );

    let status = install(&server, &w, &url(&v2));
    assert_eq!(status["status"], "completed", "{status}");
    let r = server.both(&Req::get("/packs").header("X-Api-Key", &w));
    assert_eq!(r.body["packs"][0]["version"], "2", "{}", r.body);
    let pack = server
        .engine
        .packs()
        .snapshot()
        .get("monaco")
        .unwrap()
        .clone();
    for f in &pack.manifest.files {
        if f.path.starts_with("routing/") {
            // The graph the device prepared is the one v1's publisher built for v2.
            let bytes = std::fs::read(pack.path(&f.path)).unwrap();
            assert_eq!(
                waymark_core::packs::install::sha256_hex(&bytes),
                f.sha256,
                "{}",
                f.path
            );
        }
    }
    let route = "/distance/route/json?origin=43.7380,7.4240&destination=43.7290,7.4150";
    let r = server.both(&Req::get(route).header("X-Api-Key", &server.keys.private));
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.body["status"], "OK", "{}", r.body);
}
