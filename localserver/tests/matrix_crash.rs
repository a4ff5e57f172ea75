//! Asynchronous matrix jobs survive SIGKILL: the real `waymark serve` process (Monaco roads
//! and routing graphs) receives a stream of `POST /distance/matrix/async` while its worker
//! computes and stores results, and is killed (SIGKILL) at random points. After each restart
//! every job whose creation was answered is still known and completes with the same result as
//! an undisturbed job of the same request; `matrix.sqlite` holds no half-written job (every
//! status is one of the spec's, a completed job has a whole result, the others none).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod process;

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use process::{send, start};
use rusqlite::Connection;
use serde_json::{Value, json};
use waymark_core::auth::keys::{KeyClaims, KeyScope, PrivateRestriction, Publisher};
use waymark_core::{Engine, EngineConfig};
use waymark_packs::build::PackPlan;
use waymark_packs::sources::Sources;

/// Points on Monaco's roads.
const POINTS: &[(f64, f64)] = &[
    (43.7384, 7.4246),
    (43.7311, 7.4197),
    (43.7403, 7.4270),
    (43.7276, 7.4154),
    (43.7452, 7.4310),
    (43.7330, 7.4210),
    (43.7398, 7.4220),
    (43.7420, 7.4282),
];

/// Request `k`: a different rotation of the points as origins and destinations.
fn body(k: usize) -> String {
    let pick = |offset: usize, n: usize| -> String {
        (0..n)
            .map(|i| {
                let (lat, lng) = POINTS[(k + offset + i) % POINTS.len()];
                format!("{lat},{lng}")
            })
            .collect::<Vec<_>>()
            .join("|")
    };
    json!({"origins": pick(0, 6), "destinations": pick(3, 8)}).to_string()
}
const BODIES: usize = 4;

fn install_monaco(tmp: &Path, publisher: &Publisher) -> (std::path::PathBuf, std::path::PathBuf) {
    let sources =
        Sources::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../data-packs/sources.toml"))
            .unwrap();
    let plan = PackPlan {
        id: "monaco".into(),
        osm: vec!["osm-monaco".into()],
        layers: ["roads", "places", "addresses", "routing"]
            .iter()
            .map(|s| s.to_string())
            .collect(),
        base: false,
        routing: Default::default(),
    };
    let dir = waymark_packs::build::build_pack(
        &plan,
        "1",
        &sources,
        &tmp.join("built"),
        false,
        &mut |_, _, _| {},
    )
    .unwrap();
    waymark_packs::build::sign_pack(&dir, publisher).unwrap();
    let (state, packs) = (tmp.join("state"), tmp.join("packs"));
    let mut config = EngineConfig::new(&state, vec![publisher.verifying()]);
    config.packs_dir = Some(packs.clone());
    Engine::open(config)
        .unwrap()
        .install_pack(
            &format!("file://{}", dir.canonicalize().unwrap().display()),
            &mut |_| {},
        )
        .unwrap();
    (state, packs)
}

/// Every stored job is whole: a known status; a result exactly when completed, and then one
/// that parses with a cell per pair.
fn check_store(state: &Path) {
    let conn = Connection::open(state.join("matrix.sqlite")).unwrap();
    let mut stmt = conn
        .prepare("SELECT id, status, request, result FROM matrix_jobs")
        .unwrap();
    let rows: Vec<(String, String, String, Option<String>)> = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    for (id, status, request, result) in rows {
        assert!(
            ["accepted", "inProgress", "completed", "error", "timeout"].contains(&status.as_str()),
            "{id}: status {status}"
        );
        let request: Value = serde_json::from_str(&request).unwrap();
        assert!(request["origins"].is_string(), "{id}: {request}");
        match (status.as_str(), result) {
            ("completed", Some(result)) => {
                let r: Value = serde_json::from_str(&result).unwrap();
                let n = r["matrix"]["numOrigins"].as_u64().unwrap()
                    * r["matrix"]["numDestinations"].as_u64().unwrap();
                assert_eq!(
                    r["matrix"]["travelTimes"].as_array().unwrap().len() as u64,
                    n
                );
                assert_eq!(r["matrix"]["distances"].as_array().unwrap().len() as u64, n);
            }
            ("completed", None) => panic!("{id}: completed without a result"),
            (_, Some(_)) => panic!("{id}: a result while {status}"),
            (_, None) => {}
        }
    }
}

/// Polls job `id` until it is completed and returns its `matrix` (with the id left out).
fn completed(addr: std::net::SocketAddr, key: &str, id: &str) -> Value {
    let started = Instant::now();
    loop {
        let (status, body) = send(
            addr,
            "GET",
            &format!("/distance/matrix/async/{id}/status"),
            key,
            "",
        )
        .unwrap();
        assert_eq!(status, 200, "job {id} is known: {body}");
        match body["status"].as_str().unwrap() {
            "completed" => break,
            "accepted" | "inProgress" => {}
            other => panic!("job {id} ended {other}: {body}"),
        }
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "job {id} never completed"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let (status, body) = send(
        addr,
        "GET",
        &format!("/distance/matrix/async/{id}/result"),
        key,
        "",
    )
    .unwrap();
    assert_eq!(status, 200, "{body}");
    body["matrix"].clone()
}

#[test]
fn acknowledged_matrix_jobs_survive_sigkill() {
    let tmp = tempfile::tempdir().unwrap();
    let publisher = Publisher::generate().unwrap();
    let (state, packs) = install_monaco(tmp.path(), &publisher);
    let trust = publisher.verifying().encode();
    let key = publisher
        .issue(&KeyClaims::new(KeyScope::Private {
            write: false,
            restriction: PrivateRestriction::None,
        }))
        .unwrap();

    // Undisturbed: the reference answer of each request.
    let server = start(&state, &packs, &trust);
    let reference: Vec<Value> = (0..BODIES)
        .map(|k| {
            let (status, v) = send(
                server.addr,
                "POST",
                "/distance/matrix/async",
                &key,
                &body(k),
            )
            .unwrap();
            assert_eq!(status, 200, "{v}");
            completed(server.addr, &key, v["matrix_id"].as_str().unwrap())
        })
        .collect();
    assert!(
        reference[0]["travelTimes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t.as_f64().is_some_and(|t| t > 0.0)),
        "the reference has routes: {}",
        reference[0]
    );
    server.kill();

    let acknowledged: Arc<Mutex<Vec<(String, usize)>>> = Arc::default();
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    for round in 0..6 {
        let server = start(&state, &packs, &trust);
        let addr = server.addr;
        let client = {
            let (acknowledged, key) = (acknowledged.clone(), key.clone());
            std::thread::spawn(move || {
                for i in 0.. {
                    let k = (round + i) % BODIES;
                    match send(addr, "POST", "/distance/matrix/async", &key, &body(k)) {
                        Some((200, v)) => acknowledged
                            .lock()
                            .unwrap()
                            .push((v["matrix_id"].as_str().unwrap().to_string(), k)),
                        Some((status, v)) => panic!("unexpected {status}: {v}"),
                        None => return,
                    }
                }
            })
        };
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        std::thread::sleep(Duration::from_millis(30 + seed % 500));
        server.kill();
        client.join().unwrap();
        check_store(&state);
        eprintln!(
            "round {round}: {} jobs acknowledged so far",
            acknowledged.lock().unwrap().len()
        );
    }

    // Restarted: every acknowledged job completes with the reference answer.
    let server = start(&state, &packs, &trust);
    let acknowledged = acknowledged.lock().unwrap().clone();
    assert!(!acknowledged.is_empty());
    for (id, k) in &acknowledged {
        assert_eq!(
            &completed(server.addr, &key, id),
            &reference[*k],
            "job {id} (request {k})"
        );
    }
    server.kill();
    check_store(&state);
}
