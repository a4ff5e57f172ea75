//! Dataset runs from `http://` and `file://` URLs: downloads cut midway resume, reimports
//! that fail change nothing (the previous data keeps answering), bad features are skipped
//! with a warning, deletion, expiry and a restart — through the engine over real SQLite data
//! files.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod datasets_common;

use std::io::{Read, Write};
use std::net::TcpListener;
use std::sync::Arc;
use std::time::Duration;

use datasets_common::*;
use serde_json::Value;
use waymark_core::Engine;
use waymark_core::api::*;
use waymark_core::error::ErrorCode;
use waymark_core::operation::Credentials;

/// A one-file HTTP server on 127.0.0.1 that answers `Range` requests (the file has an `ETag`,
/// so a download can resume); the first `cuts` answers close after `cut_after` bytes.
fn serve_file(
    bytes: Vec<u8>,
    cut_after: usize,
    cuts: usize,
) -> (String, std::thread::JoinHandle<Vec<String>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!(
        "http://{}/data/buildings.geojson",
        listener.local_addr().unwrap()
    );
    let handle = std::thread::spawn(move || {
        let mut seen = Vec::new();
        let mut cuts_left = cuts;
        listener.set_nonblocking(false).unwrap();
        for stream in listener.incoming() {
            let mut s = stream.unwrap();
            let mut head = Vec::new();
            let mut b = [0u8; 1];
            while !head.ends_with(b"\r\n\r\n") {
                if s.read(&mut b).unwrap() == 0 {
                    break;
                }
                head.push(b[0]);
            }
            let head = String::from_utf8_lossy(&head).to_string();
            if head.starts_with("QUIT") {
                return seen;
            }
            let start = head
                .lines()
                .find_map(|l| {
                    let (name, value) = l.split_once(':')?;
                    name.eq_ignore_ascii_case("range")
                        .then(|| value.trim().strip_prefix("bytes="))?
                })
                .and_then(|r| r.trim_end_matches('-').parse::<usize>().ok())
                .unwrap_or(0);
            seen.push(head.lines().next().unwrap_or("").to_owned() + &format!(" from {start}"));
            let rest = &bytes[start..];
            let status = if start > 0 {
                format!(
                    "HTTP/1.1 206 Partial Content\r\nContent-Range: bytes {start}-{}/{}\r\n",
                    bytes.len() - 1,
                    bytes.len()
                )
            } else {
                "HTTP/1.1 200 OK\r\n".to_owned()
            };
            let _ = s.write_all(
                format!(
                    "{status}ETag: \"buildings-1\"\r\nContent-Type: application/geo+json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                    rest.len()
                )
                .as_bytes(),
            );
            if cuts_left > 0 {
                cuts_left -= 1;
                let _ = s.write_all(&rest[..cut_after.min(rest.len())]);
            } else {
                let _ = s.write_all(rest);
            }
        }
        seen
    });
    (url, handle)
}

fn quit(url: &str) {
    let addr = url.trim_start_matches("http://").split('/').next().unwrap();
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    s.write_all(b"QUIT / HTTP/1.1\r\n\r\n").unwrap();
}

#[test]
fn downloads_cut_midway_resume_and_failed_runs_change_nothing() {
    let f = fixture();
    let dir = tempfile::tempdir().unwrap();
    let engine = open_engine(dir.path());
    let bytes = std::fs::read(f.dir.path().join("monaco-buildings.geojson")).unwrap();
    // Cut twice: the download resumes with Range requests and succeeds.
    let (url, server) = serve_file(bytes.clone(), 100_000, 2);
    let d = create(&engine, "cut", &url);
    let run = wait(&engine, &d.id);
    quit(&url);
    let seen = server.join().unwrap();
    assert_eq!(run.status, ImportStatus::Success, "{run:?}");
    assert_eq!(seen.len(), 3, "{seen:?}");
    assert!(seen[1].ends_with("from 100000"), "{seen:?}");
    assert!(
        run.steps[0]
            .entries
            .iter()
            .any(|e| e.detail.contains("downloaded"))
    );
    let before = search_in(&engine, &d.id, "levels:>=5", 1);

    // A reimport from a url that always breaks fails, and the data answers as before.
    let (url, server) = serve_file(bytes.clone(), 50_000, usize::MAX);
    update_url(&engine, &d.id, &url);
    let run = wait(&engine, &d.id);
    quit(&url);
    server.join().unwrap();
    assert_eq!(run.status, ImportStatus::Failed);
    assert_eq!(run.steps[0].status, ImportStatus::Failed);
    let e = run.steps[0].entries.last().unwrap();
    assert_eq!(e.level, LogLevel::Error);
    assert!(e.detail.contains("fetch failed"), "{}", e.detail);
    assert_eq!(search_in(&engine, &d.id, "levels:>=5", 1), before);

    // A malformed file fails in the import step, and the data still answers.
    let bad = dir.path().join("bad.geojson");
    std::fs::write(&bad, &bytes[..bytes.len() / 2]).unwrap();
    update_url(&engine, &d.id, &file_url(&bad));
    let run = wait(&engine, &d.id);
    assert_eq!(run.status, ImportStatus::Failed, "{run:?}");
    assert_eq!(run.steps[1].name, ImportStepName::Import);
    assert_eq!(run.steps[1].status, ImportStatus::Failed);
    assert_eq!(search_in(&engine, &d.id, "levels:>=5", 1), before);

    // Bad features are skipped with a warning naming them; the rest is imported.
    let mut v: Value = serde_json::from_slice(&bytes).unwrap();
    let features = v["features"].as_array_mut().unwrap();
    let ring = features[3]["geometry"]["coordinates"][0]
        .as_array_mut()
        .unwrap();
    ring.pop();
    let n = features.len();
    let partial = dir.path().join("partial.geojson");
    std::fs::write(&partial, v.to_string()).unwrap();
    update_url(&engine, &d.id, &file_url(&partial));
    let run = wait(&engine, &d.id);
    assert_eq!(run.status, ImportStatus::Success, "{run:?}");
    let warnings: Vec<_> = run.steps[1]
        .entries
        .iter()
        .filter(|e| e.level == LogLevel::Warning)
        .collect();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].detail.starts_with("feature 4: "),
        "{}",
        warnings[0].detail
    );
    assert!(
        warnings[0].detail.ends_with(", skipped"),
        "{}",
        warnings[0].detail
    );
    assert_eq!(search_in_all(&engine, &d.id, "area_m2:>0"), n - 1);

    // Deleted: gone from every operation and from the disk.
    engine
        .call(
            &Credentials::Http(&waymark_tests::write_caller(&fixture_publisher_raw())),
            DatasetDeleteRequest {
                dataset_id: d.id.clone(),
            },
        )
        .unwrap();
    let err = engine
        .call(
            &Credentials::Http(&waymark_tests::write_caller(&fixture_publisher_raw())),
            DatasetStatusRequest {
                dataset_id: d.id.clone(),
            },
        )
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::NotFound);
    assert!(engine.datasets().wait_idle(Duration::from_secs(10)));
    assert!(!dir.path().join("state/datasets").join(&d.id).exists());
}

fn update_url(engine: &Arc<Engine>, id: &str, url: &str) {
    engine
        .call(
            &Credentials::Http(&waymark_tests::write_caller(&fixture_publisher_raw())),
            DatasetUpdateRequest {
                dataset_id: id.into(),
                body: DatasetUpdateBody {
                    name: None,
                    url: Some(url.into()),
                },
            },
        )
        .unwrap();
}

fn search_in(engine: &Arc<Engine>, id: &str, filter: &str, page: u32) -> FeatureSearchResponse {
    engine
        .call(
            &Credentials::Http(&waymark_tests::write_caller(&fixture_publisher_raw())),
            FeatureSearchRequest {
                dataset_id: id.into(),
                per_page: 1000,
                page,
                body: FeatureSearchBody {
                    filter: filter.into(),
                },
                ..Default::default()
            },
        )
        .unwrap()
}

/// How many features match `filter`, walking the pages.
fn search_in_all(engine: &Arc<Engine>, id: &str, filter: &str) -> usize {
    let mut n = 0;
    let mut page = 1;
    loop {
        let r = search_in(engine, id, filter, page);
        n += r.features.len();
        match r.pagination.next {
            Some(p) => page = p,
            None => return n,
        }
    }
}

#[test]
fn datasets_are_removed_after_their_deletion_time_and_survive_a_restart() {
    let f = fixture();
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("p.csv");
    std::fs::write(&csv, "lat,lng,name\n43.73,7.42,a\n43.74,7.43,b\n").unwrap();
    let engine = open_engine(dir.path());
    let soon = engine
        .call(
            &Credentials::Http(&waymark_tests::write_caller(&fixture_publisher_raw())),
            DatasetCreateRequest {
                body: DatasetCreateBody {
                    name: "soon gone".into(),
                    url: file_url(&csv),
                    scheduled_for_deletion_after: Some(
                        chrono::Utc::now() + chrono::Duration::milliseconds(1500),
                    ),
                },
            },
        )
        .unwrap();
    let kept = create(&engine, "kept", &file_url(&csv));
    assert_eq!(wait(&engine, &soon.id).status, ImportStatus::Success);
    assert_eq!(wait(&engine, &kept.id).status, ImportStatus::Success);
    drop(engine);
    // Reopened: the data answers without a new import.
    let engine = open_engine(dir.path());
    assert_eq!(search_in_all(&engine, &kept.id, "name:a"), 1);
    std::thread::sleep(Duration::from_millis(1600));
    let err = engine
        .call(
            &Credentials::Http(&waymark_tests::write_caller(&fixture_publisher_raw())),
            DatasetGetRequest {
                dataset_id: soon.id.clone(),
            },
        )
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::NotFound);
    assert_eq!(search_in_all(&engine, &kept.id, "name:b"), 1);
    let _ = f;
}
