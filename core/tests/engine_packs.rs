//! The engine installs signed packs while serving: a new version is swapped in, the replaced
//! one is removed from disk, and a pack can be removed again.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use waymark_core::auth::keys::Publisher;
use waymark_core::packs::manifest::{Manifest, PackFile};
use waymark_core::{Engine, EngineConfig, ErrorCode};

fn make_pack(out: &Path, publisher: &Publisher, version: &str) -> String {
    let dir = out.join(format!("monaco-{version}"));
    std::fs::create_dir_all(&dir).unwrap();
    let conn = rusqlite::Connection::open(dir.join("data.sqlite")).unwrap();
    waymark_core::packs::schema::create_all(&conn).unwrap();
    drop(conn);
    let bytes = std::fs::read(dir.join("data.sqlite")).unwrap();
    use sha2::Digest;
    let sha: String = sha2::Sha256::digest(&bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let mut m = Manifest::new("monaco", version, vec!["roads".into()]);
    m.coverage.bbox = [7.40, 43.72, 7.44, 43.76];
    m.files.push(PackFile {
        path: "data.sqlite".into(),
        sha256: sha,
        size: bytes.len() as u64,
    });
    m.sign(publisher).unwrap();
    std::fs::write(
        dir.join("manifest.json"),
        serde_json::to_vec_pretty(&m).unwrap(),
    )
    .unwrap();
    format!("file://{}", dir.display())
}

#[test]
fn install_swap_and_remove() {
    let tmp = tempfile::tempdir().unwrap();
    let publisher = Publisher::generate().unwrap();
    let mut config = EngineConfig::new(&tmp.path().join("state"), vec![publisher.verifying()]);
    config.packs_dir = Some(tmp.path().join("packs"));
    let engine = Engine::open(config.clone()).unwrap();
    assert!(engine.packs().snapshot().is_empty());

    let v1 = make_pack(tmp.path(), &publisher, "2026.01.01");
    engine.install_pack(&v1, &mut |_| {}).unwrap();
    let before = engine.packs().snapshot();
    assert_eq!(before.covering(43.74, 7.42).len(), 1);
    assert!(before.covering(48.0, 11.0).is_empty());

    let v2 = make_pack(tmp.path(), &publisher, "2026.02.01");
    engine.install_pack(&v2, &mut |_| {}).unwrap();
    let now = engine.packs().snapshot();
    assert_eq!(now.get("monaco").unwrap().version(), "2026.02.01");
    assert_eq!(
        before.get("monaco").unwrap().version(),
        "2026.01.01",
        "old snapshot unchanged"
    );
    assert!(
        !tmp.path().join("packs/monaco/2026.01.01").exists(),
        "replaced version removed"
    );

    // Reopening the engine loads what is installed.
    drop(engine);
    let engine = Engine::open(config).unwrap();
    assert_eq!(
        engine.packs().snapshot().get("monaco").unwrap().version(),
        "2026.02.01"
    );

    // An unsigned pack is refused and the loaded one stays.
    let bad = make_pack(tmp.path(), &Publisher::generate().unwrap(), "2026.03.01");
    let err = engine.install_pack(&bad, &mut |_| {}).unwrap_err();
    assert_eq!(err.code, ErrorCode::BadRequest);
    assert_eq!(
        engine.packs().snapshot().get("monaco").unwrap().version(),
        "2026.02.01"
    );

    engine.remove_pack("monaco").unwrap();
    assert!(engine.packs().snapshot().is_empty());
    assert_eq!(
        engine.remove_pack("monaco").unwrap_err().code,
        ErrorCode::NotFound
    );
}
