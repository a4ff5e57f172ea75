//! Dataset imports survive SIGKILL: the real `waymark serve` imports 10,000 parcels from a slow
//! HTTP source and is killed at points spread over the download and the import; after each
//! restart the run resumes (the download continues with a `Range` request, the import starts
//! over from the download), a dataset answers from one whole version of its data or not at
//! all — never half an import, never a mix of two versions — and the last run ends in
//! success with every feature.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod process;

use std::io::{Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use process::{Server, send, start, start_with_file_limit};
use serde_json::{Value, json};
use waymark_core::auth::keys::{KeyClaims, KeyScope, PrivateRestriction, Publisher};

const PARCELS: usize = 10_000;

fn parcels(version: u32) -> Vec<u8> {
    let features: Vec<Value> = (0..PARCELS)
        .map(|n| {
            let (x, y) = (24.9 + (n % 100) as f64 * 0.001, 60.15 + (n / 100) as f64 * 0.0005);
            json!({
                "type": "Feature",
                "id": n,
                "geometry": {"type": "Polygon", "coordinates": [[[x, y], [x + 0.0009, y], [x + 0.0009, y + 0.0004], [x, y + 0.0004], [x, y]]]},
                "properties": {"n": n, "version": version},
            })
        })
        .collect();
    json!({"type": "FeatureCollection", "features": features})
        .to_string()
        .into_bytes()
}

/// A slow HTTP source of `body` (8 KiB every 2 ms, with an `ETag`, `Range` and `If-Range`),
/// logging the start offset of every request.
fn slow_source(body: Arc<Mutex<Vec<u8>>>) -> (String, Arc<Mutex<Vec<usize>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/parcels.geojson", listener.local_addr().unwrap());
    let log = Arc::new(Mutex::new(Vec::new()));
    let seen = log.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut s) = stream else { continue };
            let bytes = body.lock().unwrap().clone();
            let seen = seen.clone();
            std::thread::spawn(move || {
                let mut head = Vec::new();
                let mut b = [0u8; 1];
                while !head.ends_with(b"\r\n\r\n") {
                    match s.read(&mut b) {
                        Ok(1) => head.push(b[0]),
                        _ => return,
                    }
                }
                let head = String::from_utf8_lossy(&head).to_string();
                let field = |wanted: &str| {
                    head.lines().find_map(|l| {
                        let (name, value) = l.split_once(':')?;
                        name.eq_ignore_ascii_case(wanted)
                            .then(|| value.trim().to_owned())
                    })
                };
                // The version's validator: a range is answered only for the same version.
                let etag = format!(
                    "\"{}-{}\"",
                    bytes.len(),
                    bytes
                        .iter()
                        .fold(0u64, |h, b| h.wrapping_mul(31).wrapping_add(u64::from(*b)))
                );
                let start = field("range")
                    .and_then(|r| {
                        r.strip_prefix("bytes=")?
                            .trim_end_matches('-')
                            .parse::<usize>()
                            .ok()
                    })
                    .filter(|_| field("if-range").is_none_or(|v| v == etag))
                    .unwrap_or(0)
                    .min(bytes.len());
                seen.lock().unwrap().push(start);
                let status = if start > 0 {
                    format!(
                        "HTTP/1.1 206 Partial Content\r\nContent-Range: bytes {start}-{}/{}\r\n",
                        bytes.len() - 1,
                        bytes.len()
                    )
                } else {
                    "HTTP/1.1 200 OK\r\n".to_owned()
                };
                let head = format!(
                    "{status}ETag: {etag}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                    bytes.len() - start
                );
                if s.write_all(head.as_bytes()).is_err() {
                    return;
                }
                for chunk in bytes[start..].chunks(8192) {
                    if s.write_all(chunk).is_err() {
                        return;
                    }
                    std::thread::sleep(Duration::from_millis(2));
                }
            });
        }
    });
    (url, log)
}

/// The versions the dataset's features carry now (counted over every page), or None while
/// it has no data (503).
fn versions(server: &Server, key: &str, id: &str) -> Option<Vec<(u64, usize)>> {
    let mut counts = std::collections::BTreeMap::new();
    let mut page = 1;
    loop {
        let (status, body) = send(
            server.addr,
            "POST",
            &format!("/datasets/{id}/features/search?per_page=1000&page={page}"),
            key,
            r#"{"where": "n:>=0"}"#,
        )
        .unwrap();
        if status == 503 {
            return None;
        }
        assert_eq!(status, 200, "{body}");
        for f in body["features"].as_array().unwrap() {
            *counts
                .entry(f["attributes"]["version"].as_u64().unwrap())
                .or_insert(0) += 1;
        }
        match body["pagination"]["next"].as_u64() {
            Some(n) => page = n,
            None => return Some(counts.into_iter().collect()),
        }
    }
}

fn status(server: &Server, key: &str, id: &str) -> Value {
    let (code, body) = send(
        server.addr,
        "GET",
        &format!("/datasets/{id}/status"),
        key,
        "",
    )
    .unwrap();
    assert_eq!(code, 200, "{body}");
    body
}

fn wait_done(server: &Server, key: &str, id: &str) -> Value {
    let end = Instant::now() + Duration::from_secs(120);
    while Instant::now() < end {
        let s = status(server, key, id);
        if s["status"] != "in_progress" {
            return s;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("the run of {id} did not end");
}

#[test]
fn imports_resume_after_sigkill_and_never_show_half_the_data() {
    let tmp = tempfile::tempdir().unwrap();
    let (state, packs) = (tmp.path().join("state"), tmp.path().join("packs"));
    let publisher = Publisher::generate().unwrap();
    let trust = publisher.verifying().encode();
    let key = publisher
        .issue(&KeyClaims::new(KeyScope::Private {
            write: true,
            restriction: PrivateRestriction::None,
        }))
        .unwrap();
    let body = Arc::new(Mutex::new(parcels(1)));
    let (url, log) = slow_source(body.clone());

    // Version 1: killed three times while it downloads and imports.
    let server = start(&state, &packs, &trust);
    let (code, created) = send(
        server.addr,
        "POST",
        "/datasets",
        &key,
        &json!({"name": "parcels", "url": url}).to_string(),
    )
    .unwrap();
    assert_eq!(code, 202, "{created}");
    let id = created["id"].as_str().unwrap().to_owned();
    let mut server = server;
    for delay in [300, 250, 400] {
        std::thread::sleep(Duration::from_millis(delay));
        server.kill();
        server = start(&state, &packs, &trust);
        let now = versions(&server, &key, &id);
        assert!(
            now.is_none() || now == Some(vec![(1, PARCELS)]),
            "version 1 whole or nothing: {now:?}"
        );
    }
    let run = wait_done(&server, &key, &id);
    assert_eq!(run["status"], "success", "{run}");
    assert_eq!(versions(&server, &key, &id), Some(vec![(1, PARCELS)]));
    let offsets = log.lock().unwrap().clone();
    assert!(
        offsets.iter().any(|&o| o > 0),
        "a restarted download continues with a Range request: {offsets:?}"
    );

    // Version 2 from the same url: killed at points over its run; version 1 answers until
    // version 2 is whole.
    *body.lock().unwrap() = parcels(2);
    let (code, updated) = send(
        server.addr,
        "PUT",
        &format!("/datasets/{id}"),
        &key,
        &json!({"url": url}).to_string(),
    )
    .unwrap();
    assert_eq!(code, 200, "{updated}");
    for delay in [200, 500, 700, 900] {
        std::thread::sleep(Duration::from_millis(delay));
        server.kill();
        server = start(&state, &packs, &trust);
        let now = versions(&server, &key, &id).unwrap();
        assert!(
            now == vec![(1, PARCELS)] || now == vec![(2, PARCELS)],
            "one whole version: {now:?}"
        );
    }
    let run = wait_done(&server, &key, &id);
    assert_eq!(run["status"], "success", "{run}");
    assert_eq!(versions(&server, &key, &id), Some(vec![(2, PARCELS)]));
    server.kill();
}

#[test]
fn a_full_disk_fails_the_run_and_the_previous_data_keeps_answering() {
    let tmp = tempfile::tempdir().unwrap();
    let (state, packs) = (tmp.path().join("state"), tmp.path().join("packs"));
    let publisher = Publisher::generate().unwrap();
    let trust = publisher.verifying().encode();
    let key = publisher
        .issue(&KeyClaims::new(KeyScope::Private {
            write: true,
            restriction: PrivateRestriction::None,
        }))
        .unwrap();
    let small = tmp.path().join("small.geojson");
    let v1 = parcels(1);
    // Version 1 fits; version 2 is padded past the limit of 8 MiB per file.
    std::fs::write(&small, &v1).unwrap();
    let mut v2: Value = serde_json::from_slice(&parcels(2)).unwrap();
    for f in v2["features"].as_array_mut().unwrap() {
        f["properties"]["note"] = Value::from("x".repeat(900));
    }
    let big = tmp.path().join("big.geojson");
    std::fs::write(&big, v2.to_string()).unwrap();
    assert!(std::fs::metadata(&big).unwrap().len() > 9 << 20);
    let server = start_with_file_limit(&state, &packs, &trust, 8 * 1024);
    let (code, created) = send(
        server.addr,
        "POST",
        "/datasets",
        &key,
        &json!({"name": "parcels", "url": format!("file://{}", small.display())}).to_string(),
    )
    .unwrap();
    assert_eq!(code, 202, "{created}");
    let id = created["id"].as_str().unwrap().to_owned();
    assert_eq!(wait_done(&server, &key, &id)["status"], "success");
    let (code, _) = send(
        server.addr,
        "PUT",
        &format!("/datasets/{id}"),
        &key,
        &json!({"url": format!("file://{}", big.display())}).to_string(),
    )
    .unwrap();
    assert_eq!(code, 200);
    let run = wait_done(&server, &key, &id);
    assert_eq!(run["status"], "failed", "{run}");
    let last = run["steps"].as_array().unwrap().last().unwrap();
    let detail = last["entries"].as_array().unwrap().last().unwrap()["detail"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        detail.contains("too large") || detail.contains("No space"),
        "{detail}"
    );
    assert_eq!(versions(&server, &key, &id), Some(vec![(1, PARCELS)]));
    server.kill();
}
