//! The stores layer on real data: sample stores derived from the Andorra extract's points of
//! interest (with opening hours and delivery zones), and a customer's CSV imported into a
//! built pack — skipped records located by line, strict mode refusing the whole import and
//! leaving the pack as it was, and the imported pack signing and verifying.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;

use rusqlite::Connection;
use waymark_core::auth::keys::Publisher;
use waymark_core::packs::{Manifest, PackSource};
use waymark_core::stores::packed::{self, PackedStore, PackedZone};
use waymark_packs::build::{self, PackPlan};
use waymark_packs::sources::Sources;
use waymark_packs::stores;
use waymark_packs::stores::pack::ImportPolicy;

fn sources() -> Sources {
    Sources::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("sources.toml")).unwrap()
}

fn andorra(out: &Path, layers: &[&str]) -> Option<std::path::PathBuf> {
    let s = sources();
    if !s.is_available(s.get("osm-andorra").unwrap()) {
        eprintln!("skipped: shared extract osm-andorra absent");
        return None;
    }
    let plan = PackPlan {
        id: "andorra".into(),
        osm: vec!["osm-andorra".into()],
        layers: layers.iter().map(|s| s.to_string()).collect(),
        base: false,
        routing: Default::default(),
    };
    Some(build::build_pack(&plan, "2026.11.24", &s, out, false, &mut |_, _, _| {}).unwrap())
}

/// The pack's stores and zones (one zstd frame each, pack format 6).
fn layer(dir: &Path) -> (Vec<PackedStore>, Vec<PackedZone>) {
    let conn = Connection::open(dir.join("data.sqlite")).unwrap();
    packed::read(&conn).unwrap()
}

#[test]
fn sample_stores_come_from_the_pois_with_hours_and_zones() {
    let out = tempfile::tempdir().unwrap();
    let Some(dir) = andorra(out.path(), &["pois", "places", "stores"]) else {
        return;
    };
    let (stores, zones) = layer(&dir);
    assert!(stores.len() > 30, "{} stores", stores.len());
    assert!(
        stores
            .iter()
            .filter(|s| s.types.iter().any(|t| t == "pharmacy"))
            .count()
            > 5
    );
    assert!(stores.iter().filter(|s| s.opening_hours.is_some()).count() > 5);
    assert!(
        stores
            .iter()
            .all(|s| s.country_code.as_deref() == Some("AD")),
        "the pack's country"
    );
    assert!(zones.len() > 5, "{} zones", zones.len());
    let ids: std::collections::BTreeSet<&str> = zones.iter().map(|z| z.zone_id.as_str()).collect();
    assert_eq!(ids.len(), zones.len());
    for z in &zones {
        assert!(
            stores::polygon_problem(&z.polygon_wkt).is_none(),
            "{}",
            z.polygon_wkt
        );
        assert!(stores.iter().any(|s| s.store_id == z.store_id));
    }
    let manifest: Manifest =
        serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap();
    assert!(manifest.layers.iter().any(|l| l == "stores"));
    assert!(manifest.layers.iter().any(|l| l == "zones"));
}

fn customer() -> PackSource {
    PackSource {
        id: "customer-stores".into(),
        licence: "proprietary".into(),
        attribution: "© Example Retail".into(),
        version: None,
        sha256: None,
        notes: None,
        layers: vec!["stores".into(), "zones".into()],
    }
}

const CSV: &str = "store_id,name,lat,lng,city,country_code,types,tags,user_properties\n\
    AD100,Farmacia Meritxell,42.5075,1.5218,Andorra la Vella,AD,pharmacy,24h,\"{\"\"rating\"\": 4.5}\"\n\
    AD101,Super Escaldes,42.5096,1.5386,Escaldes-Engordany,AD,grocery|drive,,\n\
    bad-id,Broken,42.5,1.5,,,,,\n";

const ZONES: &str = "zone_id,store_id,polygon,types\n\
    AD101D,AD101,\"POLYGON((1.53 42.50, 1.55 42.50, 1.55 42.52, 1.53 42.52, 1.53 42.50))\",delivery\n";

#[test]
fn a_customer_csv_is_imported_atomically_and_the_pack_signs_and_verifies() {
    let out = tempfile::tempdir().unwrap();
    let Some(dir) = andorra(out.path(), &["pois", "places", "stores"]) else {
        return;
    };
    let before = std::fs::read(dir.join("manifest.json")).unwrap();
    let sample_stores = layer(&dir).0.len();

    // Strict: the bad row refuses the whole import; the pack is untouched.
    let (records, problems) = stores::read::csv(CSV, Some(ZONES));
    let err =
        stores::pack::import_into_pack(&dir, records, problems, customer(), ImportPolicy::STRICT)
            .unwrap_err()
            .to_string();
    assert!(
        err.contains("line 4") && err.contains("[A-Za-z0-9]+"),
        "{err}"
    );
    assert_eq!(std::fs::read(dir.join("manifest.json")).unwrap(), before);
    assert_eq!(layer(&dir).0.len(), sample_stores);

    // Lenient, within the default share of skipped records: 1 in 3 is too many; nothing
    // changes.
    let (records, problems) = stores::read::csv(CSV, Some(ZONES));
    let err =
        stores::pack::import_into_pack(&dir, records, problems, customer(), ImportPolicy::LENIENT)
            .unwrap_err()
            .to_string();
    assert!(
        err.contains("1 of 3") && err.contains("--force") && err.contains("line 4"),
        "{err}"
    );
    assert_eq!(std::fs::read(dir.join("manifest.json")).unwrap(), before);

    // Lenient with a larger share allowed: the bad row is skipped and reported; the layer is
    // replaced.
    let half = ImportPolicy {
        max_skipped_share: 0.5,
        ..ImportPolicy::LENIENT
    };
    let (records, problems) = stores::read::csv(CSV, Some(ZONES));
    let report = stores::pack::import_into_pack(&dir, records, problems, customer(), half).unwrap();
    assert_eq!((report.stats.stores, report.stats.zones), (2, 1));
    assert_eq!(report.skipped.len(), 1);
    assert_eq!(report.skipped[0].at, "line 4");
    let (stores, zones) = layer(&dir);
    assert_eq!(stores.len(), 2);
    assert_eq!(zones.iter().filter(|z| z.store_id == "AD101").count(), 1);
    let meritxell = stores.iter().find(|s| s.store_id == "AD100").unwrap();
    assert_eq!(meritxell.name.as_deref(), Some("Farmacia Meritxell"));
    assert_eq!(meritxell.tags, ["24h"]);
    assert_eq!(meritxell.user_properties["rating"], 4.5);
    assert!(!out.path().join("andorra-2026.11.24.importing").exists());

    let publisher = Publisher::generate().unwrap();
    build::sign_pack(&dir, &publisher).unwrap();
    let manifest = build::verify_pack(&dir, &[publisher.verifying()]).unwrap();
    let source = manifest
        .sources
        .iter()
        .find(|s| s.id == "customer-stores")
        .unwrap();
    assert_eq!(source.attribution, "© Example Retail");
}

/// The CSV of stores `AD0..ADn`, every `bad_every`-th line holding one field too many (an
/// unquoted comma in the name).
fn stores_csv(n: usize, bad_every: usize) -> String {
    let mut text = String::from("store_id,name,lat,lng,city\n");
    for i in 0..n {
        if bad_every > 0 && i % bad_every == bad_every - 1 {
            text.push_str(&format!("AD{i},Farmacia, Centre,42.50{i},1.52,Andorra\n"));
        } else {
            text.push_str(&format!("AD{i},Farmacia {i},42.50{i},1.52,Andorra\n"));
        }
    }
    text
}

#[test]
fn an_import_cannot_wipe_the_stores_layer() {
    let out = tempfile::tempdir().unwrap();
    let Some(dir) = andorra(out.path(), &["pois", "places", "stores"]) else {
        return;
    };
    let before_manifest = std::fs::read(dir.join("manifest.json")).unwrap();
    let before = layer(&dir).0;
    assert!(!before.is_empty());
    let unchanged = |dir: &Path| {
        assert_eq!(
            std::fs::read(dir.join("manifest.json")).unwrap(),
            before_manifest
        );
        assert_eq!(layer(dir).0, before);
    };

    // A row with a wrong field count is located by its line and skipped; the rows after it
    // are still read.
    let (records, problems) = stores::read::csv(&stores_csv(30, 10), None);
    assert_eq!(records.len(), 27);
    let at: Vec<&str> = problems.iter().map(|p| p.at.as_str()).collect();
    assert_eq!(at, ["line 11", "line 21", "line 31"]);
    assert!(
        problems[0]
            .message
            .contains("6 fields where the header has 5"),
        "{}",
        problems[0].message
    );

    // Every line broken: nothing readable; a lenient import refuses (and would not empty the
    // layer), even with a generous share.
    let (records, problems) = stores::read::csv(&stores_csv(5, 1), None);
    assert!(records.is_empty() && problems.len() == 5);
    let all = ImportPolicy {
        max_skipped_share: 1.0,
        ..ImportPolicy::LENIENT
    };
    let err = stores::pack::import_into_pack(&dir, records, problems, customer(), all)
        .unwrap_err()
        .to_string();
    assert!(err.contains("no store") && err.contains("--force"), "{err}");
    unchanged(&dir);

    // An empty file (a header only) neither.
    let (records, problems) = stores::read::csv("store_id,name,lat,lng\n", None);
    let err =
        stores::pack::import_into_pack(&dir, records, problems, customer(), ImportPolicy::LENIENT)
            .unwrap_err()
            .to_string();
    assert!(err.contains("no store"), "{err}");
    unchanged(&dir);

    // A file that is not a FeatureCollection: one problem, 100% skipped.
    let (records, problems) = stores::read::geojson("{\"type\": \"Feature\"}");
    let err =
        stores::pack::import_into_pack(&dir, records, problems, customer(), ImportPolicy::LENIENT)
            .unwrap_err()
            .to_string();
    assert!(err.contains("FeatureCollection"), "{err}");
    unchanged(&dir);

    // Within the share (3 of 30 = 10%): imported, the bad lines reported.
    let (records, problems) = stores::read::csv(&stores_csv(30, 10), None);
    let report =
        stores::pack::import_into_pack(&dir, records, problems, customer(), ImportPolicy::LENIENT)
            .unwrap();
    assert_eq!(report.stats.stores, 27);
    assert_eq!(report.skipped.len(), 3);
    assert_eq!(layer(&dir).0.len(), 27);

    // With --force, emptying is allowed.
    let forced = ImportPolicy {
        force: true,
        ..ImportPolicy::LENIENT
    };
    let (records, problems) = stores::read::csv("store_id,name,lat,lng\n", None);
    let report =
        stores::pack::import_into_pack(&dir, records, problems, customer(), forced).unwrap();
    assert_eq!(report.stats.stores, 0);
    assert!(layer(&dir).0.is_empty());
}

#[test]
fn an_import_stopped_between_its_renames_puts_the_previous_pack_back() {
    let out = tempfile::tempdir().unwrap();
    let Some(dir) = andorra(out.path(), &["pois", "places", "stores"]) else {
        return;
    };
    let before = layer(&dir).0;
    // What a kill between the two renames leaves: the pack moved aside, the new one not yet
    // in place.
    let mut replaced = dir.file_name().unwrap().to_os_string();
    replaced.push(".replaced");
    let replaced = dir.with_file_name(replaced);
    std::fs::rename(&dir, &replaced).unwrap();
    let (records, problems) = stores::read::csv("store_id,name,lat,lng\n", None);
    let err =
        stores::pack::import_into_pack(&dir, records, problems, customer(), ImportPolicy::LENIENT)
            .unwrap_err()
            .to_string();
    assert!(err.contains("no store"), "{err}");
    assert!(!replaced.exists());
    assert_eq!(layer(&dir).0, before);
}

#[test]
fn the_cli_refuses_a_wiping_import_with_a_non_zero_exit() {
    let out = tempfile::tempdir().unwrap();
    let Some(dir) = andorra(out.path(), &["pois", "places", "stores"]) else {
        return;
    };
    let before = layer(&dir).0;
    let csv = out.path().join("stores.csv");
    std::fs::write(&csv, stores_csv(4, 1)).unwrap();
    let run = |extra: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_waymark-packs"))
            .args(["import-stores", "--pack"])
            .arg(&dir)
            .arg("--csv")
            .arg(&csv)
            .args(extra)
            .output()
            .unwrap()
    };
    let refused = run(&[]);
    assert!(!refused.status.success());
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        stderr.contains("line 2") && stderr.contains("--force"),
        "{stderr}"
    );
    assert_eq!(layer(&dir).0, before);
    let forced = run(&["--force"]);
    assert!(
        forced.status.success(),
        "{}",
        String::from_utf8_lossy(&forced.stderr)
    );
    assert!(layer(&dir).0.is_empty());
}
