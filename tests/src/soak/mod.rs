//! The soak test: the real `waymark serve` process under full load for a bounded
//! time, on 127.0.0.1 only.
//!
//! [`prepare`] builds (once, kept in the work directory) the parity pack (Andorra with every
//! layer and the sample venue), a small Monaco pack in three versions, a GeoJSON dataset
//! source and a publisher file. [`run`] copies the packs into a fresh run directory, starts
//! the server, discovers real queries (a place id, an IP address of the pack, a zone of a
//! store, a dataset and one of its features) and then, for the given time:
//!
//! - client threads send a mix of every built endpoint over keep-alive connections (the
//!   golden queries of `tests/golden/parity/cases.json` and the operations they do not
//!   cover, plus requests that are meant to fail: 404s and 422s); every request has the set
//!   of statuses it may get, and any other is an error;
//! - a pack thread installs the Monaco pack early (within the warm-up) and replaces it twice
//!   later (`POST /packs` of versions 2 and 3);
//! - a matrix thread keeps creating asynchronous matrix jobs and polls each to completion;
//! - the resident memory of the server (`VmRSS`) is sampled every 10 s.
//!
//! The [`Report`] gives the requests, the errors by status, p50/p99, the RSS samples and the
//! growth after warm-up (the first 15% of the run, at least 10 s).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use waymark_core::auth::keys::{KeyClaims, KeyScope, PrivateRestriction, Publisher};
use waymark_core::packs::Manifest;
use waymark_packs::build::{self, PackPlan};

mod mix;
mod server;

pub use mix::Case;
use mix::*;
pub use server::{Conn, Server, rss_kib};

/// What the soak runs with.
#[derive(Debug, Clone)]
pub struct Config {
    /// The `waymark` binary.
    pub server: PathBuf,
    /// Work directory (the prepared data is kept there between runs).
    pub work: PathBuf,
    /// How long the load runs.
    pub duration: Duration,
    /// Client threads.
    pub clients: usize,
}

/// The prepared data (see the module documentation).
#[derive(Debug)]
pub struct Prepared {
    /// Packs directory with the parity pack installed.
    pub packs: PathBuf,
    /// The publisher that signed everything.
    pub publisher: Publisher,
    /// The Monaco pack's versions 1, 2, 3 (directories).
    pub monaco: Vec<PathBuf>,
    /// The dataset source (GeoJSON).
    pub dataset: PathBuf,
}

fn copy_dir(from: &Path, to: &Path) {
    waymark_packs::stores::pack::copy_dir(from, to).unwrap();
}

/// Builds what the soak needs under `work` unless it is there already.
pub fn prepare(work: &Path) -> Prepared {
    let publisher_file = work.join("publisher.json");
    let packs = work.join("packs");
    let monaco: Vec<PathBuf> = (1..=3)
        .map(|v| work.join("monaco").join(format!("monaco-{v}")))
        .collect();
    let dataset = work.join("buildings.geojson");
    // The stamp describes what was prepared: packs of an older format no longer load, and a
    // changed pack set (another plan, another part, a pack added) must be prepared again.
    let stamp = work.join("prepared");
    let wanted = preparation();
    let current = std::fs::read_to_string(&stamp).unwrap_or_default();
    if !publisher_file.exists() || current != wanted {
        let _ = std::fs::remove_dir_all(work);
        std::fs::create_dir_all(work).unwrap();
        let (engine, publisher) =
            crate::parity_engine_in(&work.join("built"), &packs, &work.join("state-build"));
        drop(engine);
        let plan = PackPlan {
            id: "monaco".into(),
            osm: vec!["osm-monaco".into()],
            layers: ["places", "addresses", "pois", "search"]
                .iter()
                .map(|s| s.to_string())
                .collect(),
            base: false,
            routing: Default::default(),
        };
        let built = build::build_pack(
            &plan,
            "1",
            &crate::sources(),
            &work.join("built-monaco"),
            false,
            &mut |_, _, _| {},
        )
        .unwrap();
        for (i, dir) in monaco.iter().enumerate() {
            copy_dir(&built, dir);
            let path = dir.join("manifest.json");
            let mut m: Manifest = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
            m.version = format!("{}", i + 1);
            m.sign(&publisher).unwrap();
            std::fs::write(&path, serde_json::to_vec(&m).unwrap()).unwrap();
        }
        // 400 small buildings around Andorra la Vella.
        let features: Vec<Value> = (0..400)
            .map(|i| {
                let (lat, lng) = (
                    42.500 + (i / 20) as f64 * 0.001,
                    1.510 + (i % 20) as f64 * 0.001,
                );
                let d = 0.0003;
                json!({"type": "Feature", "properties": {"levels": i % 8, "name": format!("b{i}")},
                    "geometry": {"type": "Polygon", "coordinates": [[
                        [lng, lat], [lng + d, lat], [lng + d, lat + d], [lng, lat + d], [lng, lat]]]}})
            })
            .collect();
        std::fs::write(
            &dataset,
            json!({"type": "FeatureCollection", "features": features}).to_string(),
        )
        .unwrap();
        publisher.write_file(&publisher_file).unwrap();
        std::fs::write(&stamp, &wanted).unwrap();
    }
    Prepared {
        packs,
        publisher: Publisher::read_file(&publisher_file).unwrap(),
        monaco,
        dataset,
    }
}

/// What `prepare` builds, in words: the pack format and every plan of the prepared packs.
fn preparation() -> String {
    let mut plans = vec![
        format!("{:?}", crate::parity_plan()),
        format!("{:?}", build::sample_plan(build::WORLD_IP_PACK)),
    ];
    plans.extend(
        crate::PARITY_MONACO_PARTS
            .iter()
            .map(|(id, bbox)| format!("{id} {bbox}")),
    );
    format!(
        "format {}\n{}\n",
        waymark_core::packs::FORMAT_VERSION,
        plans.join("\n")
    )
}

/// What a run measured.
#[derive(Debug, Default)]
pub struct Report {
    /// Requests sent by the client threads.
    pub requests: u64,
    /// Seconds the load ran.
    pub seconds: f64,
    /// Answers by status.
    pub by_status: BTreeMap<u16, u64>,
    /// Unexpected answers by status (0 for a connection failure), with a sample.
    pub errors: BTreeMap<u16, (u64, String)>,
    /// Latency percentiles in ms.
    pub p50_ms: f64,
    /// 99th percentile in ms.
    pub p99_ms: f64,
    /// `(seconds since the start, RSS KiB)` every 10 s.
    pub rss: Vec<(u64, u64)>,
    /// RSS at the end of the warm-up, KiB.
    pub rss_after_warmup: u64,
    /// RSS at the end, KiB.
    pub rss_end: u64,
    /// Pack installs that completed (of 3).
    pub installs_done: usize,
    /// Pack install failures, with messages.
    pub install_failures: Vec<String>,
    /// Matrix jobs completed.
    pub matrix_done: u64,
    /// Matrix job failures.
    pub matrix_failures: Vec<String>,
}

impl Report {
    /// Growth of the RSS after warm-up, in percent.
    pub fn rss_growth_pct(&self) -> f64 {
        if self.rss_after_warmup == 0 {
            return 0.0;
        }
        (self.rss_end as f64 - self.rss_after_warmup as f64) / self.rss_after_warmup as f64 * 100.0
    }

    /// Unexpected answers in all.
    pub fn error_count(&self) -> u64 {
        self.errors.values().map(|(n, _)| n).sum()
    }

    /// The report as text.
    pub fn text(&self) -> String {
        let mut s = format!(
            "requests: {} in {:.0} s ({:.0}/s)\nby status: {:?}\nerrors (unexpected statuses): {}\n",
            self.requests,
            self.seconds,
            self.requests as f64 / self.seconds.max(1e-9),
            self.by_status,
            self.error_count()
        );
        for (status, (n, sample)) in &self.errors {
            s.push_str(&format!("  {status}: {n} (e.g. {sample})\n"));
        }
        s.push_str(&format!(
            "latency: p50 {:.2} ms, p99 {:.2} ms\n",
            self.p50_ms, self.p99_ms
        ));
        s.push_str(&format!(
            "pack installs completed: {}/3; failures: {:?}\nmatrix jobs completed: {}; failures: {:?}\n",
            self.installs_done, self.install_failures, self.matrix_done, self.matrix_failures
        ));
        let samples: Vec<String> = self
            .rss
            .iter()
            .map(|(t, k)| format!("{t}s:{:.1}", *k as f64 / 1024.0))
            .collect();
        s.push_str(&format!("rss MiB every 10 s: {}\n", samples.join(" ")));
        s.push_str(&format!(
            "rss after warm-up {:.1} MiB, at the end {:.1} MiB, growth {:.2}%\n",
            self.rss_after_warmup as f64 / 1024.0,
            self.rss_end as f64 / 1024.0,
            self.rss_growth_pct()
        ));
        s
    }
}

/// Runs the soak (see the module documentation).
pub fn run(config: &Config) -> Report {
    let prepared = prepare(&config.work);
    let run_dir = config.work.join("run");
    let _ = std::fs::remove_dir_all(&run_dir);
    let packs = run_dir.join("packs");
    copy_dir(&prepared.packs, &packs);
    let trust = prepared.publisher.verifying().encode();
    let server = Server::start(&config.server, &run_dir.join("state"), &packs, &trust);
    let key = prepared
        .publisher
        .issue(&KeyClaims::new(KeyScope::Private {
            write: true,
            restriction: PrivateRestriction::None,
        }))
        .unwrap();
    let dataset_url = format!(
        "file://{}",
        prepared.dataset.canonicalize().unwrap().display()
    );
    let mut setup = Conn::new(server.addr);
    let cases = mix(&mut setup, &key, &packs, &dataset_url);
    for c in &cases {
        let (status, body) = setup.send(c.method, &c.target, &key, &c.body).unwrap();
        assert!(c.expect.contains(&status), "{}: {status} {body}", c.label);
    }
    let cases = Arc::new(cases);
    let started = Instant::now();
    let stop = Arc::new(AtomicBool::new(false));
    let warmup = (config.duration.mul_f64(0.15)).max(Duration::from_secs(10));

    let clients: Vec<_> = (0..config.clients)
        .map(|t| {
            let (cases, stop, key, addr) = (cases.clone(), stop.clone(), key.clone(), server.addr);
            std::thread::spawn(move || {
                let mut conn = Conn::new(addr);
                let mut latencies: Vec<u32> = Vec::with_capacity(1 << 20);
                let mut by_status: BTreeMap<u16, u64> = BTreeMap::new();
                let mut errors: BTreeMap<u16, (u64, String)> = BTreeMap::new();
                let mut i = t * 7;
                while !stop.load(Ordering::Relaxed) {
                    let c = &cases[i % cases.len()];
                    i += 1;
                    let sent = Instant::now();
                    let answer = conn.send(c.method, &c.target, &key, &c.body);
                    latencies.push(sent.elapsed().as_micros().min(u32::MAX as u128) as u32);
                    let status = answer.as_ref().map_or(0, |(s, _)| *s);
                    *by_status.entry(status).or_default() += 1;
                    if !c.expect.contains(&status) {
                        let e = errors.entry(status).or_insert_with(|| {
                            (
                                0,
                                format!(
                                    "{} {}: {}",
                                    c.label,
                                    c.target,
                                    answer.map(|a| a.1).unwrap_or_default()
                                ),
                            )
                        });
                        e.0 += 1;
                    }
                }
                (latencies, by_status, errors)
            })
        })
        .collect();

    // Packs: installed within the warm-up, replaced twice later.
    let packs_thread = {
        let (stop, key, addr, monaco, duration) = (
            stop.clone(),
            key.clone(),
            server.addr,
            prepared.monaco.clone(),
            config.duration,
        );
        std::thread::spawn(move || {
            let mut conn = Conn::new(addr);
            let (mut done, mut failures) = (0, Vec::new());
            for (i, at) in [0.05, 0.45, 0.75].iter().enumerate() {
                while started.elapsed() < duration.mul_f64(*at) {
                    if stop.load(Ordering::Relaxed) {
                        return (done, failures);
                    }
                    std::thread::sleep(Duration::from_millis(100));
                }
                let url = format!("file://{}", monaco[i].canonicalize().unwrap().display());
                let result = conn
                    .send("POST", "/packs", &key, &json!({"url": url}).to_string())
                    .filter(|(s, _)| *s == 202)
                    .ok_or_else(|| format!("install {} not accepted", i + 1))
                    .and_then(|(_, body)| {
                        let id = json_of(&body)["install_id"]
                            .as_str()
                            .unwrap_or_default()
                            .to_string();
                        poll(
                            &mut conn,
                            &key,
                            &format!("/packs/installs/{id}"),
                            &["completed", "failed"],
                            Duration::from_secs(300),
                        )
                    });
                match result {
                    Ok(v) if v["status"] == "completed" => done += 1,
                    Ok(v) => failures.push(v.to_string()),
                    Err(e) => failures.push(e),
                }
            }
            (done, failures)
        })
    };

    // Matrix jobs, one after the other.
    let matrix_thread = {
        let (stop, key, addr) = (stop.clone(), key.clone(), server.addr);
        std::thread::spawn(move || {
            let mut conn = Conn::new(addr);
            let (mut done, mut failures) = (0u64, Vec::new());
            let body = json!({"origins": "42.5078,1.5211|42.5346,1.5806|42.5063,1.5218",
                "destinations": "42.5092,1.5380|42.5430,1.7330|42.5075,1.5218|42.5440,1.5160"})
            .to_string();
            while !stop.load(Ordering::Relaxed) {
                let result = conn
                    .send("POST", "/distance/matrix/async", &key, &body)
                    .filter(|(s, _)| *s == 200)
                    .ok_or_else(|| "matrix job not accepted".to_string())
                    .and_then(|(_, b)| {
                        let id = json_of(&b)["matrix_id"]
                            .as_str()
                            .unwrap_or_default()
                            .to_string();
                        poll(
                            &mut conn,
                            &key,
                            &format!("/distance/matrix/async/{id}/status"),
                            &["completed", "error", "timeout"],
                            Duration::from_secs(120),
                        )
                        .and_then(|v| {
                            if v["status"] != "completed" {
                                return Err(v.to_string());
                            }
                            match conn.send(
                                "GET",
                                &format!("/distance/matrix/async/{id}/result"),
                                &key,
                                "",
                            ) {
                                Some((200, _)) => Ok(()),
                                other => Err(format!("result: {other:?}")),
                            }
                        })
                    });
                match result {
                    Ok(()) => done += 1,
                    Err(e) => failures.push(e),
                }
                std::thread::sleep(Duration::from_millis(200));
            }
            (done, failures)
        })
    };

    // RSS every 10 s.
    let mut report = Report::default();
    let mut next = Duration::ZERO;
    while started.elapsed() < config.duration {
        if started.elapsed() >= next {
            let kib = server.rss_kib();
            report.rss.push((started.elapsed().as_secs(), kib));
            if report.rss_after_warmup == 0 && started.elapsed() >= warmup {
                report.rss_after_warmup = kib;
            }
            next += Duration::from_secs(10);
        }
        std::thread::sleep(
            Duration::from_millis(100).min(config.duration.saturating_sub(started.elapsed())),
        );
    }
    stop.store(true, Ordering::Release);
    report.seconds = started.elapsed().as_secs_f64();
    let mut latencies = Vec::new();
    for c in clients {
        let (l, by_status, errors) = c.join().unwrap();
        latencies.extend(l);
        for (s, n) in by_status {
            *report.by_status.entry(s).or_default() += n;
        }
        for (s, (n, sample)) in errors {
            report.errors.entry(s).or_insert((0, sample)).0 += n;
        }
    }
    (report.installs_done, report.install_failures) = packs_thread.join().unwrap();
    (report.matrix_done, report.matrix_failures) = matrix_thread.join().unwrap();
    report.rss_end = server.rss_kib();
    report
        .rss
        .push((started.elapsed().as_secs(), report.rss_end));
    if report.rss_after_warmup == 0 {
        report.rss_after_warmup = report.rss.first().map_or(0, |r| r.1);
    }
    report.requests = latencies.len() as u64;
    latencies.sort_unstable();
    let p = |q: f64| {
        latencies
            .get(((latencies.len() as f64 - 1.0) * q).round() as usize)
            .map_or(0.0, |us| *us as f64 / 1000.0)
    };
    report.p50_ms = p(0.5);
    report.p99_ms = p(0.99);
    drop(server);
    report
}
