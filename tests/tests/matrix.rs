//! The asynchronous matrix on a real Andorra pack: job states through the Engine, values equal
//! to routes, the element limit, resuming a job after a restart, and the 303 over real HTTP
//! on 127.0.0.1.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::needless_range_loop
)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use waymark_core::api::*;
use waymark_core::auth::keys::Publisher;
use waymark_core::auth::{Caller, RateLimitMode};
use waymark_core::endpoint::Endpoint;
use waymark_core::operation::Credentials;
use waymark_core::{Engine, EngineConfig};

fn open_engine(tmp: &std::path::Path, publisher: &Publisher) -> Arc<Engine> {
    let mut config = EngineConfig::new(&tmp.join("state"), vec![publisher.verifying()]);
    config.rate_limits = RateLimitMode::Off;
    config.packs_dir = Some(tmp.join("packs"));
    Arc::new(Engine::open(config).unwrap())
}

const POINTS: [LatLng; 5] = [
    LatLng::new(42.5075, 1.5218),
    LatLng::new(42.5347, 1.5805),
    LatLng::new(42.5560, 1.5331),
    LatLng::new(42.4637, 1.4913),
    LatLng::new(42.5766, 1.6677),
];

fn request() -> MatrixCreateRequest {
    MatrixCreateRequest {
        origins: POINTS[..4].to_vec(),
        destinations: POINTS[1..].to_vec(),
        mode: TravelMode::Driving,
    }
}

fn wait_completed(engine: &Arc<Engine>, caller: &Caller, id: &str) -> Vec<MatrixStatus> {
    let started = Instant::now();
    let mut seen = Vec::new();
    loop {
        let s = engine
            .call(
                &Credentials::Http(caller),
                MatrixStatusRequest {
                    matrix_id: id.into(),
                },
            )
            .unwrap()
            .status;
        if seen.last() != Some(&s) {
            seen.push(s);
        }
        if s == MatrixStatus::Completed {
            return seen;
        }
        assert!(
            matches!(s, MatrixStatus::Accepted | MatrixStatus::InProgress),
            "{s:?}"
        );
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "never completed"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn result(engine: &Arc<Engine>, caller: &Caller, id: &str) -> MatrixResult {
    engine
        .call(
            &Credentials::Http(caller),
            MatrixResultRequest {
                matrix_id: id.into(),
            },
        )
        .unwrap()
}

#[test]
fn jobs_complete_agree_with_routes_limit_elements_and_survive_a_restart() {
    let tmp = tempfile::tempdir().unwrap();
    let plan = waymark_tests::routing_plan("andorra");
    let (engine, publisher) = waymark_tests::engine_with_pack(&plan, tmp.path());
    let caller = waymark_tests::private_caller(&publisher);
    let created = engine.call(&Credentials::Http(&caller), request()).unwrap();
    assert_eq!(created.status, MatrixStatus::Accepted);
    assert_eq!(created.matrix_id.len(), 32);
    // Before completion the result path says where the job is (or it is already done).
    let states = wait_completed(&engine, &caller, &created.matrix_id);
    assert_eq!(states.last(), Some(&MatrixStatus::Completed));
    let r = result(&engine, &caller, &created.matrix_id);
    assert_eq!(r.matrix_id, created.matrix_id);
    assert_eq!((r.matrix.num_origins, r.matrix.num_destinations), (4, 4));
    assert_eq!(r.matrix.travel_times.len(), 16);
    // Origin 1 is destination 0: the diagonal pair holds 0.
    let k = r.matrix.index(1, 0).unwrap();
    assert_eq!(r.matrix.travel_times[k], Some(0.0));
    assert_eq!(r.matrix.distances[k], Some(0.0));
    // Every other cell equals the route between the points.
    #[allow(clippy::needless_range_loop)]
    for i in 0..4 {
        for j in 0..4 {
            let (o, d) = (POINTS[i], POINTS[j + 1]);
            if o == d {
                continue;
            }
            let route = engine
                .call(
                    &Credentials::Http(&caller),
                    RouteRequest {
                        origin: o,
                        destination: d,
                        ..Default::default()
                    },
                )
                .unwrap();
            let leg = &route.routes[0].legs[0];
            let k = r.matrix.index(i as u32, j as u32).unwrap();
            let t = r.matrix.travel_times[k].unwrap();
            let m = r.matrix.distances[k].unwrap();
            assert!(
                (t - leg.duration.value as f64).abs() <= 1.0,
                "{i}->{j}: matrix {t} s, route {} s",
                leg.duration.value
            );
            assert!(
                (m - leg.distance.value as f64).abs() <= 2.0,
                "{i}->{j}: matrix {m} m, route {} m",
                leg.distance.value
            );
        }
    }
    // Over 200 elements: 422 whose distance status names the limit.
    let big = MatrixCreateRequest {
        origins: vec![POINTS[0]; 15],
        destinations: vec![POINTS[1]; 14],
        mode: TravelMode::Truck,
    };
    let err = engine.call(&Credentials::Http(&caller), big).unwrap_err();
    assert_eq!(err.code, waymark_core::ErrorCode::Validation);
    let http = err.to_http(Endpoint::MatrixCreate);
    assert_eq!(http.status, 422);
    assert_eq!(http.body["status"], "MAX_ELEMENTS_EXCEEDED");
    assert!(err.message.contains("210 elements"), "{}", err.message);
    // An unknown id is 404.
    let err = engine
        .call(
            &Credentials::Http(&caller),
            MatrixStatusRequest {
                matrix_id: "nope".into(),
            },
        )
        .unwrap_err();
    assert_eq!(err.code, waymark_core::ErrorCode::NotFound);

    // The process stops while the job is being computed: mark it so, then reopen.
    drop(engine);
    std::thread::sleep(Duration::from_millis(600));
    let db = rusqlite::Connection::open(tmp.path().join("state/matrix.sqlite")).unwrap();
    db.execute(
        "UPDATE matrix_jobs SET status = 'inProgress', result = NULL WHERE id = ?1",
        [&created.matrix_id],
    )
    .unwrap();
    drop(db);
    let engine = open_engine(tmp.path(), &publisher);
    let states = wait_completed(&engine, &caller, &created.matrix_id);
    assert_ne!(
        states[0],
        MatrixStatus::InProgress,
        "resumed as accepted: {states:?}"
    );
    let again = result(&engine, &caller, &created.matrix_id);
    assert_eq!(again, r, "the resumed job computes the same result");
}

#[test]
fn the_result_path_answers_303_over_http() {
    let tmp = tempfile::tempdir().unwrap();
    let plan = waymark_tests::routing_plan("monaco");
    let (engine, publisher) = waymark_tests::engine_with_pack(&plan, tmp.path());
    let key = publisher
        .issue(&waymark_core::auth::keys::KeyClaims::new(
            waymark_core::auth::keys::KeyScope::Private {
                write: false,
                restriction: waymark_core::auth::keys::PrivateRestriction::None,
            },
        ))
        .unwrap();
    let server = waymark_tests::LocalServer::start(engine.clone());
    let call = |method: &str, target: &str, body: &str| -> (u16, String, String) {
        let a = server.call(method, target, &key, body);
        let location = a.header("location").unwrap_or_default().to_string();
        (a.status, location, a.body)
    };
    let (status, _, body) = call(
        "POST",
        "/distance/matrix/async",
        r#"{"origins":"43.7384,7.4246|43.7311,7.4197","destinations":"43.7403,7.4270|43.7384,7.4246"}"#,
    );
    assert_eq!(status, 200, "{body}");
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    let id = v["matrix_id"].as_str().unwrap().to_string();
    assert_eq!(v["status"], "accepted");
    let started = Instant::now();
    loop {
        let (status, _, body) = call("GET", &format!("/distance/matrix/async/{id}/status"), "");
        assert_eq!(status, 200);
        if body.contains("completed") {
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(60));
        std::thread::sleep(Duration::from_millis(10));
    }
    let (status, location, body) = call("GET", &format!("/distance/matrix/async/{id}"), "");
    assert_eq!(status, 303, "{body}");
    assert_eq!(location, format!("/distance/matrix/async/{id}/result"));
    let (status, _, body) = call("GET", &location, "");
    assert_eq!(status, 200, "{body}");
    let r: MatrixResult = serde_json::from_str(&body).unwrap();
    assert_eq!(r.matrix_id, id);
    assert_eq!(
        r.matrix.travel_times[1],
        Some(0.0),
        "origin 0 = destination 1"
    );
    assert!(r.matrix.travel_times[0].unwrap() > 0.0);
    // Unknown ids: 404 with the distance status.
    let (status, _, body) = call("GET", "/distance/matrix/async/unknown", "");
    assert_eq!(status, 404);
    assert!(body.contains("INVALID_REQUEST"), "{body}");
    drop(server);
}
