//! `datasets-load --server PATH --work DIR [--duration SECS] [--rate N] [--features N]
//! [--paths N] [--max-growth-mib MIB]`: the attribute-column memory test of datasets.
//!
//! Writes (once, kept in DIR) a GeoJSON file of `--features` points (default 100,000), each
//! with 8 numeric attributes drawn from `--paths` names (default 400: `a0` … `a399`), starts
//! the real `waymark serve` on 127.0.0.1, imports the file as a dataset, reads it once, and
//! then sends `--rate` (default 20) `POST /datasets/{id}/features/search` per second for
//! `--duration` seconds (default 20), each with a `where` over a random path: three in four
//! a path some features have (`a123:>500`, which builds that path's column), one in four a
//! path none has (`zz<random>:>1`, which must build nothing). The server's resident memory is
//! sampled every second.
//!
//! Passes when every answer is a 200, the rate was held (at least 90% of the requests sent),
//! and the resident memory never grew above the memory after the first read by more than
//! `--max-growth-mib` (default 96: the dataset's 64 MiB column budget plus 32 MiB for the
//! allocator's slack, connection buffers and answers). Without the budget the columns of 300
//! paths over 100,000 features would take more than a gigabyte.
//!
//! `tests/run-all.sh` runs 20 s of it against the debug server; the 5-minute run is
//! `localserver/benches/datasets-load.sh` (figures in docs/performance.md).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use serde_json::Value;
use waymark_core::auth::keys::{KeyClaims, KeyScope, PrivateRestriction, Publisher};
use waymark_tests::Rng;
use waymark_tests::soak::{Conn, Server};

struct Args {
    server: PathBuf,
    work: PathBuf,
    duration: u64,
    rate: u64,
    features: usize,
    paths: usize,
    max_growth_mib: u64,
}

fn parse() -> Result<Args, String> {
    let mut a = Args {
        server: PathBuf::new(),
        work: PathBuf::new(),
        duration: 20,
        rate: 20,
        features: 100_000,
        paths: 400,
        max_growth_mib: 96,
    };
    let mut args = std::env::args().skip(1);
    while let Some(k) = args.next() {
        let v = args.next().ok_or(format!("{k} needs a value"))?;
        let num = || {
            v.parse::<u64>()
                .map_err(|_| format!("{k} {v}: not a number"))
        };
        match k.as_str() {
            "--server" => a.server = PathBuf::from(&v),
            "--work" => a.work = PathBuf::from(&v),
            "--duration" => a.duration = num()?.min(3600),
            "--rate" => a.rate = num()?.clamp(1, 1000),
            "--features" => a.features = num()? as usize,
            "--paths" => a.paths = num()?.max(1) as usize,
            "--max-growth-mib" => a.max_growth_mib = num()?,
            _ => return Err(format!("unknown option {k}")),
        }
    }
    if a.server.as_os_str().is_empty() || a.work.as_os_str().is_empty() {
        return Err("--server and --work are required".into());
    }
    Ok(a)
}

/// The dataset source: `features` points around Monaco with 8 numeric attributes each from
/// `paths` names (deterministic, written once).
fn source(work: &Path, features: usize, paths: usize) -> PathBuf {
    let path = work.join(format!("points-{features}-{paths}.geojson"));
    if path.exists() {
        return path;
    }
    std::fs::create_dir_all(work).unwrap();
    let tmp = path.with_extension("tmp");
    let mut out = std::io::BufWriter::new(std::fs::File::create(&tmp).unwrap());
    let mut rng = Rng::new(44);
    write!(out, r#"{{"type":"FeatureCollection","features":["#).unwrap();
    for i in 0..features {
        if i > 0 {
            out.write_all(b",").unwrap();
        }
        let (lng, lat) = (7.40 + rng.unit() * 0.03, 43.72 + rng.unit() * 0.03);
        let mut props = serde_json::Map::new();
        props.insert("n".into(), Value::from(i));
        for _ in 0..8 {
            props.insert(
                format!("a{}", rng.below(paths)),
                Value::from(rng.below(1000)),
            );
        }
        write!(
            out,
            r#"{{"type":"Feature","id":{i},"geometry":{{"type":"Point","coordinates":[{lng:.6},{lat:.6}]}},"properties":{}}}"#,
            Value::Object(props)
        )
        .unwrap();
    }
    out.write_all(b"]}").unwrap();
    out.into_inner().unwrap().sync_all().unwrap();
    std::fs::rename(&tmp, &path).unwrap();
    path
}

fn main() -> ExitCode {
    let args = match parse() {
        Ok(a) => a,
        Err(e) => {
            eprintln!(
                "datasets-load: {e}\nusage: datasets-load --server PATH --work DIR [--duration SECS] [--rate N] [--features N] [--paths N] [--max-growth-mib MIB]"
            );
            return ExitCode::from(2);
        }
    };
    let file = source(&args.work, args.features, args.paths);
    let run_dir = args.work.join("run");
    let _ = std::fs::remove_dir_all(&run_dir);
    std::fs::create_dir_all(run_dir.join("packs")).unwrap();
    let publisher = Publisher::generate().unwrap();
    let key = publisher
        .issue(&KeyClaims::new(KeyScope::Private {
            write: true,
            restriction: PrivateRestriction::None,
        }))
        .unwrap();
    let server = Server::start(
        &args.server,
        &run_dir.join("state"),
        &run_dir.join("packs"),
        &publisher.verifying().encode(),
    );
    let mut conn = Conn::new(server.addr);
    let url = format!("file://{}", file.canonicalize().unwrap().display());
    let body = serde_json::json!({"name": "load", "url": url}).to_string();
    let (status, answer) = conn.send("POST", "/datasets", &key, &body).unwrap();
    assert_eq!(status, 202, "create: {answer}");
    let id = serde_json::from_str::<Value>(&answer).unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let imported = Instant::now();
    loop {
        let (_, s) = conn
            .send("GET", &format!("/datasets/{id}/status"), &key, "")
            .unwrap();
        let s: Value = serde_json::from_str(&s).unwrap();
        match s["status"].as_str() {
            Some("success") => break,
            Some("in_progress") if imported.elapsed() < Duration::from_secs(1200) => {
                std::thread::sleep(Duration::from_millis(250));
            }
            _ => {
                println!("datasets-load: the import did not succeed: {s}");
                println!("datasets-load: FAIL");
                return ExitCode::FAILURE;
            }
        }
    }
    let import_s = imported.elapsed().as_secs_f64();
    let target = format!("/datasets/{id}/features/search?per_page=10");
    let (status, answer) = conn
        .send("POST", &target, &key, r#"{"where":"n:<10"}"#)
        .unwrap();
    assert_eq!(status, 200, "first read: {answer}");
    let base_kib = server.rss_kib();

    let stop = Arc::new(AtomicBool::new(false));
    let peak = Arc::new(AtomicU64::new(base_kib));
    let sampler = {
        let (stop, peak, pid) = (stop.clone(), peak.clone(), server.pid);
        std::thread::spawn(move || {
            let mut samples = Vec::new();
            while !stop.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_secs(1));
                let r = waymark_tests::soak::rss_kib(pid);
                peak.fetch_max(r, Ordering::Relaxed);
                samples.push(r);
            }
            samples
        })
    };
    // Four senders, each at a quarter of the rate on its own schedule (a slow answer delays
    // only its sender's next request).
    let senders = 4u64;
    let started = Instant::now();
    let duration = Duration::from_secs(args.duration);
    let workers: Vec<_> = (0..senders)
        .map(|t| {
            let (addr, key, target, paths) = (server.addr, key.clone(), target.clone(), args.paths);
            let every = Duration::from_secs_f64(senders as f64 / args.rate as f64);
            std::thread::spawn(move || {
                let mut conn = Conn::new(addr);
                let mut rng = Rng::new(1000 + t);
                let mut statuses: BTreeMap<u16, u64> = BTreeMap::new();
                let mut first_error = None;
                let mut micros: Vec<u64> = Vec::new();
                let mut next = started + every.mul_f64(t as f64 / senders as f64);
                while next < started + duration {
                    if let Some(wait) = next.checked_duration_since(Instant::now()) {
                        std::thread::sleep(wait);
                    }
                    next += every;
                    let clause = if rng.below(4) == 0 {
                        format!("zz{}:>1", rng.next_u64())
                    } else {
                        format!("a{}:>{}", rng.below(paths), rng.below(1000))
                    };
                    let body = serde_json::json!({ "where": clause }).to_string();
                    let sent = Instant::now();
                    let answer = conn.send("POST", &target, &key, &body);
                    micros.push(sent.elapsed().as_micros() as u64);
                    let status = answer.as_ref().map_or(0, |a| a.0);
                    *statuses.entry(status).or_default() += 1;
                    if status != 200 && first_error.is_none() {
                        first_error = Some(format!("{clause}: {status} {answer:?}"));
                    }
                }
                (statuses, first_error, micros)
            })
        })
        .collect();
    let mut statuses: BTreeMap<u16, u64> = BTreeMap::new();
    let mut errors = Vec::new();
    let mut micros = Vec::new();
    for w in workers {
        let (s, e, m) = w.join().unwrap();
        for (k, v) in s {
            *statuses.entry(k).or_default() += v;
        }
        errors.extend(e);
        micros.extend(m);
    }
    let elapsed = started.elapsed().as_secs_f64();
    stop.store(true, Ordering::Relaxed);
    let samples = sampler.join().unwrap();
    let end_kib = server.rss_kib();
    let peak_kib = peak.load(Ordering::Relaxed).max(end_kib);
    micros.sort_unstable();
    let pct = |p: f64| {
        micros
            .get(((micros.len() as f64 * p) as usize).min(micros.len().saturating_sub(1)))
            .copied()
            .unwrap_or(0) as f64
            / 1000.0
    };
    let sent: u64 = statuses.values().sum();
    let growth_mib = peak_kib.saturating_sub(base_kib) as f64 / 1024.0;
    println!(
        "datasets-load: {} features, {} attribute paths; import {import_s:.1} s",
        args.features, args.paths
    );
    println!(
        "datasets-load: {sent} where queries in {elapsed:.1} s ({:.1}/s, target {}/s); statuses {statuses:?}; p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
        sent as f64 / elapsed,
        args.rate,
        pct(0.5),
        pct(0.99),
        pct(1.0)
    );
    println!(
        "datasets-load: rss after the first read {:.1} MiB, peak {:.1} MiB, end {:.1} MiB: growth {growth_mib:.1} MiB (limit {} MiB); samples (MiB) {:?}",
        base_kib as f64 / 1024.0,
        peak_kib as f64 / 1024.0,
        end_kib as f64 / 1024.0,
        args.max_growth_mib,
        samples
            .iter()
            .step_by((samples.len() / 20).max(1))
            .map(|k| k / 1024)
            .collect::<Vec<_>>()
    );
    let mut ok = true;
    if statuses.keys().any(|s| *s != 200) {
        println!("FAIL: answers other than 200, first: {:?}", errors.first());
        ok = false;
    }
    let expected = args.duration * args.rate;
    if sent * 10 < expected * 9 {
        println!("FAIL: {sent} requests sent, fewer than 90% of {expected}");
        ok = false;
    }
    if growth_mib > args.max_growth_mib as f64 {
        println!(
            "FAIL: resident memory grew {growth_mib:.1} MiB, above {} MiB",
            args.max_growth_mib
        );
        ok = false;
    }
    println!("datasets-load: {}", if ok { "PASS" } else { "FAIL" });
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
