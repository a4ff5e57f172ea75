//! A dataset's data is read into memory once, however many requests arrive together after a
//! restart of the engine, and the reading does not hold the local server's I/O threads; an
//! import's status shows the bytes and features done while it runs: through the engine and
//! over real HTTP on 127.0.0.1.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::sync::{Arc, Barrier};
use std::time::Duration;

use serde_json::json;
use waymark_core::Engine;
use waymark_core::api::*;
use waymark_core::auth::keys::Publisher;
use waymark_core::endpoint::{Endpoint, Run};
use waymark_core::operation::Credentials;

/// 20,000 points with a few attributes, as a GeoJSON file.
fn points(dir: &Path) -> std::path::PathBuf {
    let features: Vec<_> = (0..20_000)
        .map(|i| {
            json!({
                "type": "Feature",
                "id": format!("p{i}"),
                "geometry": {"type": "Point", "coordinates": [7.40 + (i % 200) as f64 * 1e-4, 43.72 + (i / 200) as f64 * 1e-4]},
                "properties": {"n": i, "kind": if i % 3 == 0 { "valve" } else { "hydrant" }},
            })
        })
        .collect();
    let path = dir.join("points.geojson");
    std::fs::write(
        &path,
        json!({"type": "FeatureCollection", "features": features}).to_string(),
    )
    .unwrap();
    path
}

fn open(dir: &Path, publisher: &Publisher) -> Arc<Engine> {
    waymark_tests::open_engine(&dir.join("state"), &dir.join("packs"), publisher)
}

fn wait(engine: &Arc<Engine>, publisher: &Publisher, id: &str) -> ImportRun {
    let writer = waymark_tests::write_caller(publisher);
    for _ in 0..1200 {
        let run = engine
            .call(
                &Credentials::Http(&writer),
                DatasetStatusRequest {
                    dataset_id: id.into(),
                },
            )
            .unwrap();
        if run.status != ImportStatus::InProgress {
            return run;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("the import of {id} did not end");
}

#[test]
fn requests_arriving_together_load_the_data_once() {
    let tmp = tempfile::tempdir().unwrap();
    let publisher = Publisher::generate().unwrap();
    let file = points(tmp.path());
    let id = {
        let engine = open(tmp.path(), &publisher);
        let d = engine
            .call(
                &Credentials::Http(&waymark_tests::write_caller(&publisher)),
                DatasetCreateRequest {
                    body: DatasetCreateBody {
                        name: "points".into(),
                        url: format!("file://{}", file.display()),
                        scheduled_for_deletion_after: None,
                    },
                },
            )
            .unwrap();
        let run = wait(&engine, &publisher, &d.id);
        assert_eq!(run.status, ImportStatus::Success, "{run:?}");
        assert!(engine.datasets().wait_idle(Duration::from_secs(30)));
        d.id
    };

    // After a restart nothing is loaded; 12 requests at once read the file once.
    let engine = open(tmp.path(), &publisher);
    assert_eq!(engine.dataset_loads(), 0);
    let reader = waymark_tests::private_caller(&publisher);
    let barrier = Arc::new(Barrier::new(12));
    let handles: Vec<_> = (0..12)
        .map(|i| {
            let (engine, reader, barrier, id) =
                (engine.clone(), reader.clone(), barrier.clone(), id.clone());
            std::thread::spawn(move || {
                barrier.wait();
                let r = engine
                    .call(
                        &Credentials::Http(&reader),
                        FeatureSearchRequest {
                            dataset_id: id,
                            body: FeatureSearchBody {
                                filter: format!("n:>={}", i * 1000),
                            },
                            ..Default::default()
                        },
                    )
                    .unwrap();
                assert!(!r.features.is_empty());
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    assert_eq!(engine.dataset_loads(), 1);

    // Over HTTP after another restart: feature reads and searches together, one load. Every
    // operation that may load the data runs off the server's I/O threads, so a request that
    // does not need the data is answered meanwhile.
    for ep in [
        Endpoint::FeatureGet,
        Endpoint::FeatureSearch,
        Endpoint::FeatureContains,
    ] {
        assert_eq!(ep.run(), Run::Blocking, "{}", ep.name());
    }
    let key = reader.api_key_header.clone().unwrap();
    let feature = {
        let first = engine
            .call(
                &Credentials::Http(&reader),
                FeatureSearchRequest {
                    dataset_id: id.clone(),
                    body: FeatureSearchBody {
                        filter: "n:5".into(),
                    },
                    ..Default::default()
                },
            )
            .unwrap();
        first.features[0].id.clone()
    };
    assert_eq!(engine.dataset_loads(), 1);
    drop(engine);
    let engine = open(tmp.path(), &publisher);
    let server = Arc::new(waymark_tests::LocalServer::start(engine.clone()));
    let barrier = Arc::new(Barrier::new(9));
    let handles: Vec<_> = (0..9)
        .map(|i| {
            let (server, barrier, key, id, feature) = (
                server.clone(),
                barrier.clone(),
                key.clone(),
                id.clone(),
                feature.clone(),
            );
            std::thread::spawn(move || {
                barrier.wait();
                let r = match i % 3 {
                    0 => server.call(
                        "GET",
                        &format!("/datasets/{id}/features/{feature}"),
                        &key,
                        "",
                    ),
                    1 => server.call(
                        "POST",
                        &format!("/datasets/{id}/features/search"),
                        &key,
                        r#"{"where": "kind:valve"}"#,
                    ),
                    _ => server.call(
                        "GET",
                        "/geolocation/timezone?location=60.17,24.94",
                        &key,
                        "",
                    ),
                };
                (i, r.status, r.body)
            })
        })
        .collect();
    for h in handles {
        let (i, status, body) = h.join().unwrap();
        if i % 3 == 2 {
            // No pack holds the timezone layer here: a 503, answered while the data loads.
            assert!(status == 200 || status == 503, "{status} {body}");
        } else {
            assert_eq!(status, 200, "{i}: {body}");
        }
    }
    assert_eq!(engine.dataset_loads(), 1);
}

/// A slow HTTP source of `body` (16 KiB every 5 ms).
fn slow_source(body: Vec<u8>) -> String {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/points.geojson", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut s) = stream else { continue };
            let mut head = Vec::new();
            let mut b = [0u8; 1];
            while !head.ends_with(b"\r\n\r\n") {
                match s.read(&mut b) {
                    Ok(1) => head.push(b[0]),
                    _ => break,
                }
            }
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            );
            if s.write_all(head.as_bytes()).is_err() {
                continue;
            }
            for chunk in body.chunks(16 * 1024) {
                if s.write_all(chunk).is_err() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(5));
            }
        }
    });
    url
}

#[test]
fn the_import_status_shows_bytes_and_features_done_while_it_runs() {
    let tmp = tempfile::tempdir().unwrap();
    let publisher = Publisher::generate().unwrap();
    let body = std::fs::read(points(tmp.path())).unwrap();
    let size = body.len() as u64;
    let url = slow_source(body);
    let engine = open(tmp.path(), &publisher);
    let writer = waymark_tests::write_caller(&publisher);
    let d = engine
        .call(
            &Credentials::Http(&writer),
            DatasetCreateRequest {
                body: DatasetCreateBody {
                    name: "points".into(),
                    url,
                    scheduled_for_deletion_after: None,
                },
            },
        )
        .unwrap();
    // Polled while it runs: the fetch step shows its bytes going up, below the size.
    let mut midway = Vec::new();
    let run = loop {
        let run = engine
            .call(
                &Credentials::Http(&writer),
                DatasetStatusRequest {
                    dataset_id: d.id.clone(),
                },
            )
            .unwrap();
        if run.status != ImportStatus::InProgress {
            break run;
        }
        if let Some(step) = run.steps.last()
            && step.name == ImportStepName::Fetch
            && let Some(done) = step.bytes_done
        {
            assert_eq!(step.bytes_total, Some(size));
            midway.push(done);
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(run.status, ImportStatus::Success, "{run:?}");
    assert!(
        midway.len() >= 3 && midway.iter().any(|&b| b > 0 && b < size),
        "{midway:?} of {size}"
    );
    assert!(midway.windows(2).all(|w| w[0] <= w[1]), "{midway:?}");
    // Ended: the whole file, every feature.
    assert_eq!(run.steps[0].bytes_done, Some(size));
    assert_eq!(run.steps[1].features_done, Some(20_000));
    assert_eq!(run.steps[1].bytes_done, None);
}
