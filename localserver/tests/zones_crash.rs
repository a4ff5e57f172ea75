//! A zones batch is all or nothing even when the server dies in the middle of it: the real
//! `waymark serve` process receives a batch moving every zone of a customer's stores pack and
//! is killed (SIGKILL) at points spread over the time the batch takes; after each kill the
//! state holds exactly one whole batch (the last one or the one before), a batch that was
//! answered 200 is never lost, and the restarted server answers `zone=true` searches from
//! that batch.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod process;

use std::path::{Path, PathBuf};
use std::time::Instant;

use process::{send, start};

use rusqlite::Connection;
use serde_json::{Value, json};
use waymark_core::auth::keys::{KeyClaims, KeyScope, PrivateRestriction, Publisher};
use waymark_core::{Engine, EngineConfig};
use waymark_packs::build::PackPlan;
use waymark_packs::sources::Sources;
use waymark_packs::stores::StoreAsset;
use waymark_packs::stores::synthetic::{self, circle_wkt};

/// Stores (and zones) in the pack: enough for a batch to take a while.
const STORES: usize = 3_000;

/// The centre of store `s`'s zone in batch `k` (each batch moves every zone north).
fn centre(s: &StoreAsset, k: usize) -> (f64, f64) {
    (s.location.lat + 0.02 * k as f64, s.location.lng)
}

fn batch(stores: &[StoreAsset], k: usize) -> String {
    let zones: Vec<Value> = stores
        .iter()
        .map(|s| {
            let (lat, lng) = centre(s, k);
            json!({
                "zone_id": s.zones[0].zone_id,
                "store_id": s.store_id,
                "polygon": circle_wkt(lat, lng, 400.0, 24),
                "description": format!("batch {k}"),
            })
        })
        .collect();
    json!({ "zones": zones }).to_string()
}

/// `(description, rows)` of every batch present in the state.
fn stored(state: &Path) -> Vec<(String, i64)> {
    let conn = Connection::open(state.join("zones.sqlite")).unwrap();
    let mut stmt = conn
        .prepare("SELECT description, count(*) FROM zone_edits GROUP BY description")
        .unwrap();
    stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

fn prepare(tmp: &Path, publisher: &Publisher) -> (Vec<StoreAsset>, PathBuf, PathBuf) {
    let sources =
        Sources::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../data-packs/sources.toml"))
            .unwrap();
    let stores = synthetic::generate(STORES, 5, synthetic::DEFAULT_BBOX);
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
        &plan,
        "1",
        &sources,
        &stores,
        source,
        &tmp.join("built"),
    )
    .unwrap();
    waymark_packs::build::sign_pack(&dir, publisher).unwrap();
    let (state, packs) = (tmp.join("state"), tmp.join("packs"));
    let mut config = EngineConfig::new(&state, vec![publisher.verifying()]);
    config.packs_dir = Some(packs.clone());
    let engine = Engine::open(config).unwrap();
    engine
        .install_pack(
            &format!("file://{}", dir.canonicalize().unwrap().display()),
            &mut |_| {},
        )
        .unwrap();
    (stores, state, packs)
}

#[test]
fn a_batch_survives_sigkill_whole_or_not_at_all() {
    let tmp = tempfile::tempdir().unwrap();
    let publisher = Publisher::generate().unwrap();
    let (stores, state, packs) = prepare(tmp.path(), &publisher);
    let trust = publisher.verifying().encode();
    let write = publisher
        .issue(&KeyClaims::new(KeyScope::Private {
            write: true,
            restriction: PrivateRestriction::None,
        }))
        .unwrap();
    let read = publisher
        .issue(&KeyClaims::new(KeyScope::Private {
            write: false,
            restriction: PrivateRestriction::None,
        }))
        .unwrap();
    let target = format!("/zones?private_key={write}");

    // Batch 0, undisturbed: how long a batch takes.
    let server = start(&state, &packs, &trust);
    let started = Instant::now();
    let (status, body) = send(server.addr, "PUT", &target, "", &batch(&stores, 0)).unwrap();
    let full = started.elapsed();
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["message"], format!("{STORES} zones updated"));
    server.kill();
    assert_eq!(stored(&state), [("batch 0".to_string(), STORES as i64)]);

    let mut applied = 0;
    let mut last = 0;
    const KILLS: usize = 8;
    for k in 1..=KILLS {
        let server = start(&state, &packs, &trust);
        let (addr, body, target) = (server.addr, batch(&stores, k), target.clone());
        let request = std::thread::spawn(move || send(addr, "PUT", &target, "", &body));
        // Kill points spread from early in the request to past its usual end.
        std::thread::sleep(full.mul_f64(k as f64 / KILLS as f64 * 1.2));
        server.kill();
        let answered = request.join().unwrap();
        let now = stored(&state);
        assert_eq!(
            now.len(),
            1,
            "exactly one whole batch after kill {k}: {now:?}"
        );
        assert_eq!(
            now[0].1, STORES as i64,
            "a whole batch after kill {k}: {now:?}"
        );
        let expected_before = format!("batch {last}");
        let expected_after = format!("batch {k}");
        if answered.as_ref().is_some_and(|(s, _)| *s == 200) {
            assert_eq!(now[0].0, expected_after, "an answered batch is never lost");
        }
        if now[0].0 == expected_after {
            applied += 1;
            last = k;
        } else {
            assert_eq!(now[0].0, expected_before, "after kill {k}");
        }
    }
    eprintln!("{applied} of {KILLS} killed batches had committed, the others left no trace");

    // The restarted server answers from the last whole batch.
    let server = start(&state, &packs, &trust);
    for s in [&stores[0], &stores[STORES / 2], &stores[STORES - 1]] {
        let (lat, lng) = centre(s, last);
        let (status, body) = send(
            server.addr,
            "GET",
            &format!("/stores/search?lat={lat}&lng={lng}&zone=true&stores_by_page=300"),
            &read,
            "",
        )
        .unwrap();
        assert_eq!(status, 200, "{body}");
        let ids: Vec<&str> = body["features"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["properties"]["store_id"].as_str().unwrap())
            .collect();
        assert!(
            ids.contains(&s.store_id.as_str()),
            "{} not in {ids:?}",
            s.store_id
        );
    }
    server.kill();
}
