//! Pack management and pack-backed answers over real HTTP on 127.0.0.1 and through
//! `warp::test`: `GET/POST/DELETE /packs` with install progress, and the timezone answered
//! from an installed pack until the free quota runs out (402).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{Req, Server, wait_install, with_query};

use serde_json::json;
use waymark_core::auth::RateLimitMode;

const GOOD_REFERER: &str = "https://example.com/shop/page.html";
const TZ: &str = "/geolocation/timezone?location=60.17,24.94";

/// A signed pack directory made with the core API (one empty `data.sqlite`).
fn make_pack(out: &std::path::Path, publisher: &waymark_core::auth::keys::Publisher) -> String {
    make_pack_version(
        out,
        publisher,
        "2026.11.22",
        b"not really sqlite, but hashed and verified like any file".to_vec(),
    )
}

/// A signed pack directory `monaco-<version>` holding `data.bin`.
fn make_pack_version(
    out: &std::path::Path,
    publisher: &waymark_core::auth::keys::Publisher,
    version: &str,
    data: Vec<u8>,
) -> String {
    use waymark_core::packs::manifest::{Manifest, PackFile, PackSource};
    let dir = out.join(format!("monaco-{version}"));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("data.bin"), &data).unwrap();
    let sha = waymark_core::packs::install::sha256_hex(&data);
    let mut m = Manifest::new("monaco", version, vec!["roads".into()]);
    m.coverage.bbox = [7.40, 43.72, 7.44, 43.76];
    m.files.push(PackFile {
        path: "data.bin".into(),
        sha256: sha,
        size: data.len() as u64,
    });
    m.sources.push(PackSource {
        id: "osm-monaco".into(),
        licence: "ODbL-1.0".into(),
        attribution: "© OpenStreetMap contributors".into(),
        version: None,
        sha256: None,
        notes: None,
        layers: vec![],
    });
    m.sign(publisher).unwrap();
    std::fs::write(dir.join("manifest.json"), serde_json::to_vec(&m).unwrap()).unwrap();
    format!("file://{}", dir.display())
}

#[test]
fn packs_are_listed_installed_with_progress_and_removed() {
    let s = Server::start_with(RateLimitMode::Off);
    let w = s.keys.private_write.clone();
    let list = || s.both(&Req::get("/packs").header("X-Api-Key", &w));
    assert_eq!(list().body, json!({"packs": []}));
    // Only private keys with write permission.
    assert_eq!(
        s.both(&Req::get("/packs").header("X-Api-Key", &s.keys.private))
            .status,
        403
    );
    assert_eq!(
        s.both(
            &Req::get(with_query("/packs", "key", &s.keys.public)).header("Referer", GOOD_REFERER)
        )
        .status,
        401
    );

    let src = tempfile::tempdir().unwrap();
    let url = make_pack(src.path(), &s.publisher);
    let body = serde_json::to_string(&json!({ "url": url })).unwrap();
    let r = s.http(
        &Req::with_method("POST", "/packs")
            .header("X-Api-Key", &w)
            .body(&body),
    );
    assert_eq!(r.status, 202, "{}", r.body);
    let id = r.body["install_id"].as_str().unwrap().to_string();
    let status = wait_install(&s, &w, &id);
    assert_eq!(status["status"], "completed", "{status}");
    assert_eq!(status["pack_id"], "monaco");
    assert_eq!(status["bytes_done"], status["bytes_total"]);

    let packs = list().body;
    assert_eq!(packs["packs"][0]["id"], "monaco");
    assert_eq!(
        packs["packs"][0]["attribution"][0]["attribution"],
        "© OpenStreetMap contributors"
    );

    // A pack signed by someone else fails, with the reason, and changes nothing.
    let other = tempfile::tempdir().unwrap();
    let bad = make_pack(
        other.path(),
        &waymark_core::auth::keys::Publisher::generate().unwrap(),
    );
    let body = serde_json::to_string(&json!({ "url": bad })).unwrap();
    let r = s.http(
        &Req::with_method("POST", "/packs")
            .header("X-Api-Key", &w)
            .body(&body),
    );
    let id = r.body["install_id"].as_str().unwrap().to_string();
    let status = wait_install(&s, &w, &id);
    assert_eq!(status["status"], "failed");
    assert!(
        status["error"].as_str().unwrap().contains("trust"),
        "{status}"
    );
    assert_eq!(list().body["packs"].as_array().unwrap().len(), 1);

    // Bad bodies and unknown ids.
    let r = s.both(
        &Req::with_method("POST", "/packs")
            .header("X-Api-Key", &w)
            .body(r#"{"url": "ftp://x"}"#),
    );
    assert_eq!(r.status, 422);
    assert_eq!(r.body["detail"][0]["loc"], json!(["body", "url"]));
    assert_eq!(
        s.both(&Req::get("/packs/installs/nope").header("X-Api-Key", &w))
            .status,
        404
    );

    let r = s.http(&Req::with_method("DELETE", "/packs/monaco").header("X-Api-Key", &w));
    assert_eq!(
        (r.status, r.body["status"].clone()),
        (200, json!("removed"))
    );
    assert_eq!(list().body, json!({"packs": []}));
    assert_eq!(
        s.http(&Req::with_method("DELETE", "/packs/monaco").header("X-Api-Key", &w))
            .status,
        404
    );
}

/// Waits for install job `id` and returns its final status.
#[test]
fn packs_list_shows_the_full_and_delta_sizes_of_an_update_at_a_source() {
    let s = Server::start_with(RateLimitMode::Off);
    let w = s.keys.private_write.clone();
    let src = tempfile::tempdir().unwrap();
    // v1 and v2 share most of their bytes.
    let v1: Vec<u8> = (0..200_000u32)
        .flat_map(|i| (i * 7919).to_le_bytes())
        .collect();
    let mut v2 = v1.clone();
    v2[400_000..400_016].copy_from_slice(b"changed in v2!!!");
    let url1 = make_pack_version(src.path(), &s.publisher, "2026.11.01", v1);
    let url2 = make_pack_version(src.path(), &s.publisher, "2026.11.22", v2.clone());
    let v1_dir = src.path().join("monaco-2026.11.01");
    let v2_dir = src.path().join("monaco-2026.11.22");
    let body = serde_json::to_string(&json!({ "url": url1 })).unwrap();
    let r = s.http(
        &Req::with_method("POST", "/packs")
            .header("X-Api-Key", &w)
            .body(&body),
    );
    let status = wait_install(&s, &w, r.body["install_id"].as_str().unwrap());
    assert_eq!(status["status"], "completed", "{status}");

    let listed = |source: &str| {
        s.both(&Req::get(with_query("/packs", "source", source)).header("X-Api-Key", &w))
    };
    // No delta at the source yet: the full size only.
    let r = listed(&url2);
    assert_eq!(r.status, 200, "{}", r.body);
    let pack = &r.body["packs"][0];
    assert_eq!(pack["version"], "2026.11.01");
    assert_eq!(pack["size"], 800_000);
    assert_eq!(
        pack["update"],
        json!({"version": "2026.11.22", "url": url2, "size": 800_000})
    );
    // With the delta from the installed version.
    let summary = waymark_core::packs::delta::build_delta(
        &v1_dir,
        &v2_dir,
        &v2_dir.join(waymark_core::packs::delta::delta_dir_rel("2026.11.01")),
        &s.publisher,
    )
    .unwrap();
    let r = listed(&url2);
    let update = &r.body["packs"][0]["update"];
    assert_eq!(update["delta_size"], summary.delta_size, "{update}");
    assert!(summary.delta_size < 1000, "{summary:?}");
    // The installed version itself is no update; a bad source is the caller's to fix.
    assert!(listed(&url1).body["packs"][0].get("update").is_none());
    let r = listed("ftp://x");
    assert_eq!(r.status, 422);
    assert_eq!(r.body["detail"][0]["loc"], json!(["query", "source"]));
    let missing = format!("file://{}/nothing-here", src.path().display());
    assert_eq!(listed(&missing).status, 404);

    // Installing v2 uses the delta and gives v2's bytes.
    let body = serde_json::to_string(&json!({ "url": url2 })).unwrap();
    let r = s.http(
        &Req::with_method("POST", "/packs")
            .header("X-Api-Key", &w)
            .body(&body),
    );
    let status = wait_install(&s, &w, r.body["install_id"].as_str().unwrap());
    assert_eq!(status["status"], "completed", "{status}");
    let r = s.both(&Req::get("/packs").header("X-Api-Key", &w));
    assert_eq!(r.body["packs"][0]["version"], "2026.11.22");
    let installed = s
        .engine
        .packs()
        .snapshot()
        .get("monaco")
        .map(|p| std::fs::read(p.path("data.bin")).unwrap());
    assert_eq!(installed, Some(v2));
}

/// Builds the world timezones layer into a signed pack and installs it in the server's engine.
fn install_timezones(s: &Server) {
    let sources = waymark_packs::sources::Sources::load(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../data-packs/sources.toml"),
    )
    .unwrap();
    let plan = waymark_packs::build::PackPlan {
        id: "base".into(),
        osm: vec![],
        layers: vec!["timezones".into()],
        base: true,
        routing: Default::default(),
    };
    let out = s.dir.path().join("built");
    let dir =
        waymark_packs::build::build_pack(&plan, "1", &sources, &out, false, &mut |_, _, _| {})
            .unwrap();
    waymark_packs::build::sign_pack(&dir, &s.publisher).unwrap();
    let url = format!("file://{}", dir.canonicalize().unwrap().display());
    s.engine.install_pack(&url, &mut |_| {}).unwrap();
}

#[test]
fn timezone_answers_from_a_pack_and_quota_runs_out_with_402() {
    let s = Server::start_with(RateLimitMode::Off);
    install_timezones(&s);
    let r = s.both(
        &Req::get("/geolocation/timezone?location=52.52,13.40&timestamp=1784000000")
            .header("X-Api-Key", &s.keys.private),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(
        r.body,
        json!({"timezone": "Europe/Berlin", "timezone_name": "CEST", "raw_offset": 3600, "dst_offset": 3600})
    );
    // The quota key has 3 free requests; invalid requests do not use them.
    let q = s.keys.quota3.clone();
    let bad = s.http(&Req::get("/geolocation/timezone?location=99,0").header("X-Api-Key", &q));
    assert_eq!(bad.status, 422);
    for i in 0..3 {
        let r = s.http(&Req::get(TZ).header("X-Api-Key", &q));
        assert_eq!(r.status, 200, "request {i}: {}", r.body);
    }
    let r = s.http(&Req::get(TZ).header("X-Api-Key", &q));
    assert_eq!(r.status, 402);
    assert_eq!(
        r.body,
        json!({"detail": "the free quota of 3 requests of this key is used up"})
    );
}
