//! A zones batch is all or nothing even when the server dies in the middle of it: the real
//! `waymark serve` process receives a batch moving every zone of a customer's stores pack and
//! is killed (SIGKILL) at points spread over the time the batch takes; after each kill the
//! state holds exactly one whole batch (the last one or the one before), a batch that was
//! answered 200 is never lost, and the restarted server answers `zone=true` searches from
//! that batch. The same holds when a newer pack changes the edited zones: killed while it
//! installs (edit, then pack update) or while a batch resolves the conflicts (pack update,
//! then edit), the restarted engine keeps every edit whole and reports every edited zone in
//! conflict exactly when the installed pack's zones differ from the ones the edits were made
//! on.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod process;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use process::{install_and_watch, send, serve_files, start};

use rusqlite::Connection;
use serde_json::{Value, json};
use waymark_core::auth::keys::{KeyClaims, KeyScope, PrivateRestriction, Publisher};
use waymark_core::packs::Manifest;
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

/// The retail pack (version 1) of `stores`, built and signed under `out`.
fn build(stores: &[StoreAsset], out: &Path, publisher: &Publisher) -> PathBuf {
    let sources =
        Sources::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../data-packs/sources.toml"))
            .unwrap();
    let plan = PackPlan {
        id: "retail".into(),
        osm: vec!["osm-monaco".into()],
        layers: vec!["places".into()],
        base: false,
        routing: Default::default(),
    };
    let source =
        waymark_packs::stores::pack::customer_source("proprietary", "generated test stores");
    let (dir, _) =
        waymark_packs::stores::pack::build_with_stores(&plan, "1", &sources, stores, source, out)
            .unwrap();
    waymark_packs::build::sign_pack(&dir, publisher).unwrap();
    dir
}

fn open_engine(state: &Path, packs: &Path, publisher: &Publisher) -> Engine {
    let mut config = EngineConfig::new(state, vec![publisher.verifying()]);
    config.packs_dir = Some(packs.to_path_buf());
    Engine::open(config).unwrap()
}

/// The stores, the state and packs directories (version 1 installed) and the built pack.
fn prepare(tmp: &Path, publisher: &Publisher) -> (Vec<StoreAsset>, PathBuf, PathBuf, PathBuf) {
    let stores = synthetic::generate(STORES, 5, synthetic::DEFAULT_BBOX);
    let dir = build(&stores, &tmp.join("built"), publisher);
    let (state, packs) = (tmp.join("state"), tmp.join("packs"));
    open_engine(&state, &packs, publisher)
        .install_pack(
            &format!("file://{}", dir.canonicalize().unwrap().display()),
            &mut |_| {},
        )
        .unwrap();
    (stores, state, packs, dir)
}

#[test]
fn a_batch_survives_sigkill_whole_or_not_at_all() {
    let tmp = tempfile::tempdir().unwrap();
    let publisher = Publisher::generate().unwrap();
    let (stores, state, packs, _) = prepare(tmp.path(), &publisher);
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

/// The built pack `built` re-versioned as `version` (same files, manifest signed again) under
/// `src`.
fn version_of(built: &Path, src: &Path, version: usize, publisher: &Publisher) -> PathBuf {
    let dir = src.join(format!("retail-{version}"));
    waymark_packs::stores::pack::copy_dir(built, &dir).unwrap();
    let path = dir.join("manifest.json");
    let mut m: Manifest = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    m.version = version.to_string();
    m.sign(publisher).unwrap();
    std::fs::write(&path, serde_json::to_vec(&m).unwrap()).unwrap();
    dir
}

/// The installed retail version and the zones in conflict, read by an engine opened on the
/// state the killed server left.
fn after_kill(state: &Path, packs: &Path, publisher: &Publisher) -> (usize, usize) {
    let engine = open_engine(state, packs, publisher);
    let version = engine
        .packs()
        .snapshot()
        .get("retail")
        .unwrap()
        .version()
        .parse()
        .unwrap();
    (version, engine.zone_conflicts().unwrap().len())
}

#[test]
fn conflicts_survive_sigkill_in_both_orders() {
    let tmp = tempfile::tempdir().unwrap();
    let publisher = Publisher::generate().unwrap();
    let (stores, state, packs, original) = prepare(tmp.path(), &publisher);
    let trust = publisher.verifying().encode();
    let write = publisher
        .issue(&KeyClaims::new(KeyScope::Private {
            write: true,
            restriction: PrivateRestriction::None,
        }))
        .unwrap();
    let target = format!("/zones?private_key={write}");
    // The pack republished with every zone's description changed.
    let mut republished = stores.clone();
    for s in &mut republished {
        s.zones[0].description = Some("republished".into());
    }
    let changed = build(&republished, &tmp.path().join("built-changed"), &publisher);
    // Odd versions carry the republished zones, even ones the original zones.
    let content = |v: usize| if v % 2 == 1 { &changed } else { &original };
    let in_conflict = |v: usize| if v % 2 == 1 { STORES } else { 0 };
    let src = tmp.path().join("src");
    let rate = (dir_bytes(&changed) as f64 / 1.5) as u64 + 1;
    let source = serve_files(&src, rate);
    let url = |v: usize| format!("http://{source}/retail-{v}/");

    // Edit, then pack update. Batch 0 edits every zone of version 1: no conflict.
    let server = start(&state, &packs, &trust);
    let started = Instant::now();
    let (status, body) = send(server.addr, "PUT", &target, "", &batch(&stores, 0)).unwrap();
    let put_time = started.elapsed();
    assert_eq!(status, 200, "{body}");
    server.kill();
    assert_eq!(after_kill(&state, &packs, &publisher), (1, 0));

    // An undisturbed install of version 3 (republished zones): how long one takes.
    version_of(content(3), &src, 3, &publisher);
    let server = start(&state, &packs, &trust);
    let started = Instant::now();
    assert!(
        install_and_watch(server.addr, &write, &url(3), Arc::default())
            .join()
            .unwrap()
    );
    let install_time = started.elapsed();
    server.kill();
    assert_eq!(after_kill(&state, &packs, &publisher), (3, STORES));
    assert_eq!(stored(&state), [("batch 0".to_string(), STORES as i64)]);

    // Installs of versions 4, 5, ... alternately changing the zones back and again, killed at
    // points spread over an install: the edits stay whole, the conflicts follow the version.
    const ROUNDS: usize = 5;
    let mut current = 3;
    for round in 0..ROUNDS {
        let version = current + 1;
        version_of(content(version), &src, version, &publisher);
        let server = start(&state, &packs, &trust);
        let stop = Arc::new(AtomicBool::new(false));
        let watcher = install_and_watch(server.addr, &write, &url(version), stop.clone());
        std::thread::sleep(install_time.mul_f64((round + 1) as f64 / ROUNDS as f64 * 1.2));
        server.kill();
        stop.store(true, Ordering::Release);
        let acknowledged = watcher.join().unwrap();
        let (served, conflicts) = after_kill(&state, &packs, &publisher);
        assert!(
            served == current || served == version,
            "round {round}: {served}"
        );
        if acknowledged {
            assert_eq!(
                served, version,
                "round {round}: a completed install was lost"
            );
        }
        assert_eq!(
            conflicts,
            in_conflict(served),
            "round {round}, version {served}"
        );
        assert_eq!(
            stored(&state),
            [("batch 0".to_string(), STORES as i64)],
            "round {round}: the edits are whole"
        );
        current = served;
    }

    // Pack update, then edit: batches that resolve every conflict, killed at points spread
    // over a batch; before each, a version with zones other than the edits' is installed.
    const KILLS: usize = 6;
    let mut last = 0;
    for k in 1..=KILLS {
        let (served, conflicts) = after_kill(&state, &packs, &publisher);
        current = served;
        if conflicts == 0 {
            // The edits were made on `current`: the other content puts them in conflict.
            current += 1;
            let dir = version_of(content(current), &src, current, &publisher);
            open_engine(&state, &packs, &publisher)
                .install_pack(
                    &format!("file://{}", dir.canonicalize().unwrap().display()),
                    &mut |_| {},
                )
                .unwrap();
            assert_eq!(after_kill(&state, &packs, &publisher), (current, STORES));
        }
        let server = start(&state, &packs, &trust);
        let (addr, body, target) = (server.addr, batch(&stores, k), target.clone());
        let request = std::thread::spawn(move || send(addr, "PUT", &target, "", &body));
        std::thread::sleep(put_time.mul_f64(k as f64 / KILLS as f64 * 1.2));
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
        if answered.as_ref().is_some_and(|(s, _)| *s == 200) {
            assert_eq!(
                now[0].0,
                format!("batch {k}"),
                "an answered batch is never lost"
            );
        }
        let (served, conflicts) = after_kill(&state, &packs, &publisher);
        assert_eq!(served, current);
        if now[0].0 == format!("batch {k}") {
            assert_eq!(conflicts, 0, "the committed batch resolved every conflict");
            last = k;
        } else {
            assert_eq!(now[0].0, format!("batch {last}"), "after kill {k}");
            assert_eq!(
                conflicts, STORES,
                "the conflicts stay until a batch commits"
            );
        }
    }
}

/// Creation batch `k`: a new zone beside every store (`C<k>x<i>`), described `create <k>`.
fn creation(stores: &[StoreAsset], k: usize) -> String {
    let zones: Vec<Value> = stores
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let (lat, lng) = centre(s, k);
            json!({
                "zone_id": format!("C{k}x{i}"),
                "store_id": s.store_id,
                "polygon": circle_wkt(lat, lng, 300.0, 24),
                "description": format!("create {k}"),
                "types": ["pickup"],
            })
        })
        .collect();
    json!({ "zones": zones }).to_string()
}

fn write_key(publisher: &Publisher) -> String {
    publisher
        .issue(&KeyClaims::new(KeyScope::Private {
            write: true,
            restriction: PrivateRestriction::None,
        }))
        .unwrap()
}

#[test]
fn a_creation_survives_sigkill_whole_or_not_at_all() {
    let tmp = tempfile::tempdir().unwrap();
    let publisher = Publisher::generate().unwrap();
    let (stores, state, packs, _) = prepare(tmp.path(), &publisher);
    let trust = publisher.verifying().encode();
    let write = write_key(&publisher);

    // Creation 0, undisturbed: how long a batch takes.
    let server = start(&state, &packs, &trust);
    let started = Instant::now();
    let (status, body) =
        send(server.addr, "POST", "/zones", &write, &creation(&stores, 0)).unwrap();
    let full = started.elapsed();
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["message"], format!("{STORES} zones created"));
    server.kill();
    assert_eq!(stored(&state), [("create 0".to_string(), STORES as i64)]);

    let mut committed = vec![0];
    let mut lost = Vec::new();
    const KILLS: usize = 8;
    for k in 1..=KILLS {
        let server = start(&state, &packs, &trust);
        let (addr, body, key) = (server.addr, creation(&stores, k), write.clone());
        let request = std::thread::spawn(move || send(addr, "POST", "/zones", &key, &body));
        std::thread::sleep(full.mul_f64(k as f64 / KILLS as f64 * 1.2));
        server.kill();
        let answered = request.join().unwrap();
        let now = stored(&state);
        for (description, rows) in &now {
            assert_eq!(
                *rows, STORES as i64,
                "{description} is whole after kill {k}: {now:?}"
            );
        }
        let has = |k: usize| now.iter().any(|(d, _)| *d == format!("create {k}"));
        if answered.as_ref().is_some_and(|(s, _)| *s == 200) {
            assert!(has(k), "an answered creation is never lost (kill {k})");
        }
        match has(k) {
            true => committed.push(k),
            false => lost.push(k),
        }
        let expected: Vec<String> = committed.iter().map(|k| format!("create {k}")).collect();
        let present: Vec<String> = now.iter().map(|(d, _)| d.clone()).collect();
        assert_eq!(present.len(), expected.len(), "after kill {k}: {now:?}");
        for d in &expected {
            assert!(present.contains(d), "{d} after kill {k}: {now:?}");
        }
    }
    eprintln!(
        "{} of {KILLS} killed creations had committed, the others left no trace",
        committed.len() - 1
    );

    // The restarted server answers the committed zones and none of the others, and a creation
    // that left no trace can be sent again.
    let server = start(&state, &packs, &trust);
    for &k in &committed {
        for i in [0, STORES / 2, STORES - 1] {
            let (status, body) =
                send(server.addr, "GET", &format!("/zones/C{k}x{i}"), &write, "").unwrap();
            assert_eq!(status, 200, "{body}");
            assert_eq!(body["description"], format!("create {k}"));
            assert_eq!(body["store_id"], stores[i].store_id.as_str());
        }
    }
    for &k in &lost {
        let (status, body) =
            send(server.addr, "GET", &format!("/zones/C{k}x0"), &write, "").unwrap();
        assert_eq!(status, 404, "{body}");
    }
    if let Some(&k) = lost.first() {
        let (status, body) =
            send(server.addr, "POST", "/zones", &write, &creation(&stores, k)).unwrap();
        assert_eq!(status, 200, "{body}");
    }
    server.kill();
}

/// `(zone_id, deleted, polygon, base, store_id)` of every edit row.
fn edit_rows(state: &Path) -> Vec<(String, bool, String, String, String)> {
    let conn = Connection::open(state.join("zones.sqlite")).unwrap();
    let mut stmt = conn
        .prepare("SELECT zone_id, deleted, polygon_wkt, base, store_id FROM zone_edits")
        .unwrap();
    stmt.query_map([], |r| {
        Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
    })
    .unwrap()
    .map(Result::unwrap)
    .collect()
}

#[test]
fn deletions_survive_sigkill_each_whole() {
    let tmp = tempfile::tempdir().unwrap();
    let publisher = Publisher::generate().unwrap();
    let (stores, state, packs, _) = prepare(tmp.path(), &publisher);
    let trust = publisher.verifying().encode();
    let write = write_key(&publisher);
    const RUN: usize = 40;
    // Deletes the pack zones of stores `from..from + RUN` one after the other; the ones
    // answered 200, in order (stops at the first request the kill cut).
    let run = |addr, from: usize| {
        let ids: Vec<String> = stores[from..from + RUN]
            .iter()
            .map(|s| s.zones[0].zone_id.clone())
            .collect();
        let key = write.clone();
        std::thread::spawn(move || {
            let mut answered = Vec::new();
            for id in ids {
                match send(addr, "DELETE", &format!("/zones/{id}"), &key, "") {
                    Some((200, _)) => answered.push(id),
                    Some((status, body)) => panic!("{id}: {status} {body}"),
                    None => break,
                }
            }
            answered
        })
    };

    // One run, undisturbed: how long it takes (the first request opens the stores index).
    let server = start(&state, &packs, &trust);
    let started = Instant::now();
    assert_eq!(run(server.addr, 0).join().unwrap().len(), RUN);
    let full = started.elapsed();
    server.kill();
    assert_eq!(edit_rows(&state).len(), RUN);

    const KILLS: usize = 6;
    let mut deleted: Vec<String> = stores[..RUN]
        .iter()
        .map(|s| s.zones[0].zone_id.clone())
        .collect();
    for k in 1..=KILLS {
        let from = k * RUN;
        let server = start(&state, &packs, &trust);
        let request = run(server.addr, from);
        std::thread::sleep(full.mul_f64(k as f64 / KILLS as f64 * 1.2));
        server.kill();
        let answered = request.join().unwrap();
        let rows = edit_rows(&state);
        // Every row is a whole deletion of a pack zone: its store and polygon, the pack
        // zone it hides.
        for (zone_id, is_deleted, polygon, base, store_id) in &rows {
            let s = stores
                .iter()
                .find(|s| &s.zones[0].zone_id == zone_id)
                .unwrap();
            assert!(is_deleted, "{zone_id}");
            assert_eq!(store_id, &s.store_id, "{zone_id}");
            assert_eq!(polygon, &s.zones[0].polygon, "{zone_id}");
            assert_eq!(base.len(), 64, "{zone_id}");
        }
        let now: Vec<&str> = rows.iter().map(|r| r.0.as_str()).collect();
        // The acknowledged ones are kept; at most the one in flight besides them.
        for id in deleted.iter().chain(&answered) {
            assert!(now.contains(&id.as_str()), "{id} lost after kill {k}");
        }
        let extra = now.len() - deleted.len() - answered.len();
        assert!(
            extra <= 1,
            "kill {k}: {extra} deletions nobody was answered for"
        );
        if extra == 1 {
            let next = &stores[from + answered.len()].zones[0].zone_id;
            assert!(
                now.contains(&next.as_str()),
                "kill {k}: not the one in flight"
            );
        }
        deleted = now.iter().map(|s| s.to_string()).collect();
    }

    // The restarted server answers 404 for exactly the deleted zones.
    let server = start(&state, &packs, &trust);
    for s in &stores[..(KILLS + 1) * RUN] {
        let id = &s.zones[0].zone_id;
        let (status, body) = send(server.addr, "GET", &format!("/zones/{id}"), &write, "").unwrap();
        let want = match deleted.contains(id) {
            true => 404,
            false => 200,
        };
        assert_eq!(status, want, "{id}: {body}");
    }
    server.kill();
}
