//! Bad packs over HTTP: with a real pack installed (Monaco: places, addresses,
//! POIs, search), `POST /packs` of a newer version that is truncated, has a flipped byte in
//! any one of its files (every file of every layer is tried), is signed by a publisher the
//! server does not trust, or comes from a newer format version fails with a message saying
//! what is wrong, and all the while the installed version stays listed and keeps answering.
//! (`core/tests/packs_install_faults.rs` checks the same refusals on the pack store itself.)
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use common::{Req, Server};
use serde_json::{Value, json};
use waymark_core::auth::RateLimitMode;
use waymark_core::auth::keys::Publisher;
use waymark_core::packs::{FORMAT_VERSION, Manifest};

const ID: &str = "monaco";
const QUERY: &str = "/localities/autocomplete?input=Monte%20Carlo";

fn copy_dir(from: &Path, to: &Path) {
    waymark_packs::stores::pack::copy_dir(from, to).unwrap();
}

fn manifest(dir: &Path) -> Manifest {
    serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap()
}

fn write_manifest(dir: &Path, m: &Manifest) {
    std::fs::write(dir.join("manifest.json"), serde_json::to_vec(m).unwrap()).unwrap();
}

/// A copy of the built pack under `out/name` as version `2-name` (a version of its own, so that
/// no variant resumes from the files another one left in the installer's partial directory),
/// signed by `signer` after `edit`, then damaged by `damage`.
fn variant(
    built: &Path,
    out: &Path,
    name: &str,
    signer: &Publisher,
    edit: impl FnOnce(&mut Manifest),
    damage: impl FnOnce(&Path),
) -> PathBuf {
    let dir = out.join(name);
    copy_dir(built, &dir);
    let mut m = manifest(&dir);
    m.version = format!("2-{name}");
    edit(&mut m);
    m.sign(signer).unwrap();
    write_manifest(&dir, &m);
    damage(&dir);
    dir
}

/// The installed version answers and is the one listed.
fn assert_v1_answers(s: &Server, context: &str) {
    let r = s.http(&Req::get(QUERY).header("X-Api-Key", &s.keys.private));
    assert_eq!(r.status, 200, "{context}: {}", r.body);
    assert!(
        !r.body["localities"].as_array().unwrap().is_empty(),
        "{context}: {}",
        r.body
    );
    let list = s.http(&Req::get("/packs").header("X-Api-Key", &s.keys.private_write));
    let versions: Vec<&str> = list.body["packs"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["id"] == ID)
        .map(|p| p["version"].as_str().unwrap())
        .collect();
    assert_eq!(versions, ["1"], "{context}");
}

/// Installs `dir` over HTTP and returns the failed job's message.
fn install_fails(s: &Server, dir: &Path, context: &str) -> String {
    let w = s.keys.private_write.clone();
    let body = json!({"url": format!("file://{}", dir.display())}).to_string();
    let r = s.http(
        &Req::with_method("POST", "/packs")
            .header("X-Api-Key", &w)
            .body(&body),
    );
    assert_eq!(r.status, 202, "{context}: {}", r.body);
    let id = r.body["install_id"].as_str().unwrap().to_string();
    let started = Instant::now();
    loop {
        // The installed version keeps answering while the bad one is being checked.
        assert_v1_answers(s, context);
        let st = s.http(&Req::get(format!("/packs/installs/{id}")).header("X-Api-Key", &w));
        assert_eq!(st.status, 200, "{context}: {}", st.body);
        match st.body["status"].as_str().unwrap() {
            "failed" => return st.body["error"].as_str().unwrap().to_string(),
            "completed" => panic!("{context}: a bad pack was installed: {}", st.body),
            _ => {}
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "{context}: never ended"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn files_of(dir: &Path) -> Vec<String> {
    manifest(dir).files.iter().map(|f| f.path.clone()).collect()
}

#[test]
fn bad_packs_are_refused_and_the_installed_version_keeps_answering() {
    let s = Server::start_with(RateLimitMode::Off);
    let sources = waymark_packs::sources::Sources::load(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../data-packs/sources.toml"),
    )
    .unwrap();
    let plan = waymark_packs::build::PackPlan {
        id: ID.into(),
        osm: vec!["osm-monaco".into()],
        layers: ["places", "addresses", "pois", "search"]
            .iter()
            .map(|s| s.to_string())
            .collect(),
        base: false,
        routing: Default::default(),
    };
    let out = s.dir.path().join("built");
    let built =
        waymark_packs::build::build_pack(&plan, "1", &sources, &out, false, &mut |_, _, _| {})
            .unwrap()
            .canonicalize()
            .unwrap();
    waymark_packs::build::sign_pack(&built, &s.publisher).unwrap();
    s.engine
        .install_pack(&format!("file://{}", built.display()), &mut |_| {})
        .unwrap();
    assert_v1_answers(&s, "installed");
    let bad = s.dir.path().join("bad");
    let files = files_of(&built);
    assert!(files.len() >= 2, "{files:?}");

    // A truncated file (the largest one).
    let largest = files
        .iter()
        .max_by_key(|f| std::fs::metadata(built.join(f)).unwrap().len())
        .unwrap()
        .clone();
    let dir = variant(
        &built,
        &bad,
        "truncated",
        &s.publisher,
        |_| {},
        |d| {
            let p = d.join(&largest);
            let bytes = std::fs::read(&p).unwrap();
            std::fs::write(&p, &bytes[..bytes.len() / 2]).unwrap();
        },
    );
    let msg = install_fails(&s, &dir, "truncated");
    assert!(
        msg.contains(&largest),
        "truncated: `{msg}` names `{largest}`"
    );

    // A flipped byte in each file of every layer.
    for (i, file) in files.iter().enumerate() {
        let context = format!("flipped byte in {file}");
        let f = file.clone();
        let dir = variant(
            &built,
            &bad,
            &format!("flipped-{i}"),
            &s.publisher,
            |_| {},
            |d| {
                let p = d.join(&f);
                let mut bytes = std::fs::read(&p).unwrap();
                if bytes.is_empty() {
                    bytes.push(0);
                } else {
                    let at = bytes.len() / 2;
                    bytes[at] ^= 0x01;
                }
                std::fs::write(&p, &bytes).unwrap();
            },
        );
        let msg = install_fails(&s, &dir, &context);
        assert!(
            msg.contains(file.as_str()),
            "{context}: `{msg}` names the file"
        );
    }

    // A manifest signed by a publisher the server does not trust.
    let stranger = Publisher::generate().unwrap();
    let dir = variant(&built, &bad, "unknown-publisher", &stranger, |_| {}, |_| {});
    let msg = install_fails(&s, &dir, "unknown publisher");
    assert!(msg.contains("does not trust"), "unknown publisher: `{msg}`");

    // A pack of a newer format version.
    let newer = FORMAT_VERSION + 1;
    let dir = variant(
        &built,
        &bad,
        "newer-format",
        &s.publisher,
        |m| m.format_version = newer,
        |_| {},
    );
    let msg = install_fails(&s, &dir, "newer format");
    assert!(
        msg.contains(&format!("format version {newer} is not supported")),
        "newer format: `{msg}`"
    );

    // Still version 1, and a good version 2 installs.
    assert_v1_answers(&s, "after the bad packs");
    let good = variant(&built, &bad, "good", &s.publisher, |_| {}, |_| {});
    let w = s.keys.private_write.clone();
    let r = s.http(
        &Req::with_method("POST", "/packs")
            .header("X-Api-Key", &w)
            .body(&json!({"url": format!("file://{}", good.display())}).to_string()),
    );
    assert_eq!(r.status, 202, "{}", r.body);
    let id = r.body["install_id"].as_str().unwrap().to_string();
    let started = Instant::now();
    loop {
        let st = s.http(&Req::get(format!("/packs/installs/{id}")).header("X-Api-Key", &w));
        if st.body["status"] == "completed" {
            break;
        }
        assert_ne!(st.body["status"], Value::from("failed"), "{}", st.body);
        assert!(started.elapsed() < Duration::from_secs(60));
        std::thread::sleep(Duration::from_millis(20));
    }
}
