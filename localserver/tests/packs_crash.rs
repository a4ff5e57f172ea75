//! Pack installs survive SIGKILL: the real `waymark serve` process installs newer versions of
//! an installed pack (`POST /packs`) from a throttled local HTTP source and is killed
//! (SIGKILL) at points spread over the time an install takes. After each kill the restarted
//! server serves either the previous version or the new one, whole (its files verify against
//! the signed manifest); an install reported `completed` before the kill is never lost; no
//! half-written version directory is visible; and the restarted server answers from the pack.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod process;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use process::{install_and_watch, send, serve_files, start};
use waymark_core::auth::keys::{KeyClaims, KeyScope, PrivateRestriction, Publisher};
use waymark_core::packs::{Manifest, PackStore};
use waymark_core::{Engine, EngineConfig};
use waymark_packs::build::PackPlan;
use waymark_packs::sources::Sources;

const ID: &str = "monaco";
/// Kill rounds.
const ROUNDS: usize = 6;

fn copy_dir(from: &Path, to: &Path) {
    waymark_packs::stores::pack::copy_dir(from, to).unwrap();
}

fn dir_bytes(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            if e.file_type().unwrap().is_dir() {
                dir_bytes(&e.path())
            } else {
                e.metadata().unwrap().len()
            }
        })
        .sum()
}

/// The built pack re-versioned as `version` (same files, manifest signed again) under `src`.
fn version_of(built: &Path, src: &Path, version: &str, publisher: &Publisher) -> PathBuf {
    let dir = src.join(format!("{ID}-{version}"));
    copy_dir(built, &dir);
    let path = dir.join("manifest.json");
    let mut m: Manifest = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    m.version = version.to_string();
    m.sign(publisher).unwrap();
    std::fs::write(&path, serde_json::to_vec(&m).unwrap()).unwrap();
    dir
}

/// The version of pack `ID` the server serves.
fn served_version(addr: std::net::SocketAddr, key: &str) -> String {
    let (status, body) = send(addr, "GET", "/packs", key, "").unwrap();
    assert_eq!(status, 200, "{body}");
    let packs = body["packs"].as_array().unwrap();
    let p = packs.iter().find(|p| p["id"] == ID).unwrap();
    p["version"].as_str().unwrap().to_string()
}

#[test]
fn pack_installs_survive_sigkill_whole_or_not_at_all() {
    let tmp = tempfile::tempdir().unwrap();
    let publisher = Publisher::generate().unwrap();
    let trust = publisher.verifying().encode();
    let trusted = [publisher.verifying()];
    let key = publisher
        .issue(&KeyClaims::new(KeyScope::Private {
            write: true,
            restriction: PrivateRestriction::None,
        }))
        .unwrap();
    let sources =
        Sources::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../data-packs/sources.toml"))
            .unwrap();
    let plan = PackPlan {
        id: ID.into(),
        osm: vec!["osm-monaco".into()],
        layers: ["places", "addresses", "pois", "search"]
            .iter()
            .map(|s| s.to_string())
            .collect(),
        base: false,
        routing: Default::default(),
    };
    let built = waymark_packs::build::build_pack(
        &plan,
        "1",
        &sources,
        &tmp.path().join("built"),
        false,
        &mut |_, _, _| {},
    )
    .unwrap();
    waymark_packs::build::sign_pack(&built, &publisher).unwrap();
    let (state, packs, src) = (
        tmp.path().join("state"),
        tmp.path().join("packs"),
        tmp.path().join("src"),
    );
    let mut config = EngineConfig::new(&state, vec![publisher.verifying()]);
    config.packs_dir = Some(packs.clone());
    Engine::open(config)
        .unwrap()
        .install_pack(
            &format!("file://{}", built.canonicalize().unwrap().display()),
            &mut |_| {},
        )
        .unwrap();
    // About 1.5 s per install.
    let rate = (dir_bytes(&built) as f64 / 1.5) as u64 + 1;
    let source = serve_files(&src, rate);
    let url = |v: &str| format!("http://{source}/{ID}-{v}/");

    // An undisturbed install: how long one takes.
    version_of(&built, &src, "2", &publisher);
    let server = start(&state, &packs, &trust);
    let started = Instant::now();
    let watcher = install_and_watch(server.addr, &key, &url("2"), Arc::default());
    assert!(watcher.join().unwrap());
    let full = started.elapsed();
    assert_eq!(served_version(server.addr, &key), "2");
    server.kill();

    let mut current = "2".to_string();
    let mut completed_rounds = 0;
    for round in 0..ROUNDS {
        let version = format!("{}", round + 3);
        version_of(&built, &src, &version, &publisher);
        let server = start(&state, &packs, &trust);
        let stop = Arc::new(AtomicBool::new(false));
        let watcher = install_and_watch(server.addr, &key, &url(&version), stop.clone());
        std::thread::sleep(full.mul_f64((round + 1) as f64 / ROUNDS as f64 * 1.2));
        server.kill();
        stop.store(true, Ordering::Release);
        let acknowledged = watcher.join().unwrap();

        // The restarted server serves a whole version: the new one if it was reported done.
        let server = start(&state, &packs, &trust);
        let served = served_version(server.addr, &key);
        if acknowledged {
            assert_eq!(
                served, version,
                "round {round}: a completed install was lost"
            );
        }
        assert!(
            served == version || served == current,
            "round {round}: serves {served}, expected {current} or {version}"
        );
        let (status, body) = send(
            server.addr,
            "GET",
            "/localities/autocomplete?input=Monte%20Carlo",
            &key,
            "",
        )
        .unwrap();
        assert_eq!(status, 200, "round {round}: {body}");
        assert!(
            !body["localities"].as_array().unwrap().is_empty(),
            "round {round}: {body}"
        );
        server.kill();
        let store = PackStore::open(&packs).unwrap();
        for v in store.installed_versions(ID).unwrap() {
            store
                .verify_installed(ID, &v, &trusted)
                .unwrap_or_else(|e| panic!("round {round}: version {v} is not whole: {e}"));
        }
        let visible: Vec<String> = std::fs::read_dir(packs.join(ID))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        for v in &visible {
            assert!(
                store.installed_versions(ID).unwrap().contains(v),
                "round {round}: `{ID}/{v}` is visible but not a whole install"
            );
        }
        if served == version {
            completed_rounds += 1;
            current = version;
        }
    }
    eprintln!("{completed_rounds} of {ROUNDS} killed installs had completed");
}
