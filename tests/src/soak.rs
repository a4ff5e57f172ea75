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
    // Packs built by an older release use an older format that no longer loads: rebuilt.
    let stamp = work.join(format!(
        "prepared-format-{}",
        waymark_core::packs::FORMAT_VERSION
    ));
    if !publisher_file.exists() || !stamp.exists() {
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
        std::fs::write(&stamp, b"").unwrap();
    }
    Prepared {
        packs,
        publisher: Publisher::read_file(&publisher_file).unwrap(),
        monaco,
        dataset,
    }
}

/// A running `waymark serve`.
pub struct Server {
    child: Child,
    /// Where it listens.
    pub addr: SocketAddr,
    /// Its process id.
    pub pid: u32,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Server({}, pid {})", self.addr, self.pid)
    }
}

impl Server {
    /// Starts `bin serve` on a free loopback port (rate limits off, access log at warn).
    pub fn start(bin: &Path, state: &Path, packs: &Path, trust: &str) -> Server {
        let mut child = Command::new(bin)
            .args([
                "serve",
                "--port",
                "0",
                "--rate-limits",
                "off",
                "--no-sample-packs",
            ])
            .arg("--state-dir")
            .arg(state)
            .arg("--packs")
            .arg(packs)
            .args(["--trust", trust])
            .env("RUST_LOG", "warn")
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let mut lines = BufReader::new(stdout).lines();
        let addr = loop {
            let line = lines
                .next()
                .expect("the server printed its address")
                .unwrap();
            if let Some(rest) = line.strip_prefix("waymark local server listening on http://") {
                break rest.trim().parse().unwrap();
            }
        };
        std::thread::spawn(move || for _ in lines {});
        let pid = child.id();
        Server { child, addr, pid }
    }

    /// Resident memory in KiB.
    pub fn rss_kib(&self) -> u64 {
        rss_kib(self.pid)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `VmRSS` of process `pid` in KiB (0 when unknown).
pub fn rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

/// One HTTP/1.1 keep-alive connection.
pub struct Conn {
    addr: SocketAddr,
    stream: Option<BufReader<TcpStream>>,
}

impl std::fmt::Debug for Conn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Conn({})", self.addr)
    }
}

impl Conn {
    /// A connection to `addr` (opened on first use, reopened after a failure).
    pub fn new(addr: SocketAddr) -> Conn {
        Conn { addr, stream: None }
    }

    /// Sends a request with `key` in the `private_key` parameter and reads the answer:
    /// `(status, body)`, `None` when the connection failed.
    pub fn send(
        &mut self,
        method: &str,
        target: &str,
        key: &str,
        body: &str,
    ) -> Option<(u16, String)> {
        let answer = self.try_send(method, target, key, body);
        if answer.is_none() {
            self.stream = None;
        }
        answer
    }

    fn try_send(
        &mut self,
        method: &str,
        target: &str,
        key: &str,
        body: &str,
    ) -> Option<(u16, String)> {
        if self.stream.is_none() {
            let s = TcpStream::connect(self.addr).ok()?;
            s.set_read_timeout(Some(Duration::from_secs(120))).ok()?;
            s.set_nodelay(true).ok()?;
            self.stream = Some(BufReader::new(s));
        }
        let reader = self.stream.as_mut()?;
        // The key in `private_key`: the one form every operation takes.
        let sep = if target.contains('?') { '&' } else { '?' };
        let head = format!(
            "{method} {target}{sep}private_key={key} HTTP/1.1\r\nHost: {}\r\n\
             Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            self.addr,
            body.len()
        );
        reader.get_mut().write_all(head.as_bytes()).ok()?;
        let mut line = String::new();
        reader.read_line(&mut line).ok()?;
        let status: u16 = line.get(9..12)?.parse().ok()?;
        let (mut length, mut chunked, mut close) = (None, false, false);
        loop {
            let mut h = String::new();
            if reader.read_line(&mut h).ok()? == 0 {
                return None;
            }
            let h = h.trim_end();
            if h.is_empty() {
                break;
            }
            let (name, value) = h.split_once(':')?;
            let value = value.trim();
            if name.eq_ignore_ascii_case("content-length") {
                length = value.parse::<usize>().ok();
            } else if name.eq_ignore_ascii_case("transfer-encoding") {
                chunked = value.eq_ignore_ascii_case("chunked");
            } else if name.eq_ignore_ascii_case("connection") {
                close = value.eq_ignore_ascii_case("close");
            }
        }
        let mut out = Vec::new();
        if chunked {
            loop {
                let mut size = String::new();
                reader.read_line(&mut size).ok()?;
                let n = usize::from_str_radix(size.trim(), 16).ok()?;
                let mut chunk = vec![0; n + 2];
                reader.read_exact(&mut chunk).ok()?;
                if n == 0 {
                    break;
                }
                out.extend_from_slice(&chunk[..n]);
            }
        } else if let Some(n) = length {
            out.resize(n, 0);
            reader.read_exact(&mut out).ok()?;
        }
        if close {
            self.stream = None;
        }
        Some((status, String::from_utf8_lossy(&out).into_owned()))
    }
}

/// One request of the mix and the statuses it may get.
#[derive(Debug, Clone)]
pub struct Case {
    /// Label for the report.
    pub label: String,
    /// Method.
    pub method: &'static str,
    /// Path and query.
    pub target: String,
    /// Body.
    pub body: String,
    /// Statuses that are not errors.
    pub expect: Vec<u16>,
}

fn case(label: &str, method: &'static str, target: String, body: &str, expect: &[u16]) -> Case {
    Case {
        label: label.to_string(),
        method,
        target,
        body: body.to_string(),
        expect: expect.to_vec(),
    }
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

fn json_of(body: &str) -> Value {
    serde_json::from_str(body).unwrap_or(Value::Null)
}

/// Polls `target` until its `status` is one of `done`; returns the last body.
fn poll(
    conn: &mut Conn,
    key: &str,
    target: &str,
    done: &[&str],
    limit: Duration,
) -> Result<Value, String> {
    let started = Instant::now();
    loop {
        let (status, body) = conn
            .send("GET", target, key, "")
            .ok_or_else(|| format!("{target}: connection failed"))?;
        let v = json_of(&body);
        if status != 200 {
            return Err(format!("{target}: {status} {body}"));
        }
        if done.contains(&v["status"].as_str().unwrap_or_default()) {
            return Ok(v);
        }
        if started.elapsed() > limit {
            return Err(format!("{target}: still {v} after {limit:?}"));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The request mix over the running server (discovering the ids it needs).
fn mix(conn: &mut Conn, key: &str, packs: &Path, dataset_url: &str) -> Vec<Case> {
    let golden: Vec<Value> = serde_json::from_str(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("golden/parity/cases.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let mut cases: Vec<Case> = golden
        .iter()
        .map(|c| {
            let (_, path) = c["endpoint"].as_str().unwrap().split_once(' ').unwrap();
            let q = c["query"].as_str().unwrap();
            let target = if q.is_empty() {
                path.to_string()
            } else {
                format!("{path}?{q}")
            };
            case(c["name"].as_str().unwrap(), "GET", target, "", &[200])
        })
        .collect();
    // A place id for details.
    let (_, body) = conn
        .send("GET", "/localities/autocomplete?input=Andorra", key, "")
        .unwrap();
    let place = json_of(&body)["localities"][0]["public_id"]
        .as_str()
        .expect("autocomplete finds Andorra")
        .to_string();
    cases.push(case(
        "details",
        "GET",
        format!("/localities/details?public_id={place}"),
        "",
        &[200],
    ));
    cases.push(case(
        "geocode",
        "GET",
        "/localities/geocode?address=Avinguda%20Meritxell".into(),
        "",
        &[200],
    ));
    // An IP address of the pack.
    let db = std::fs::read_dir(packs.join("andorra"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path()
        .join("data.sqlite");
    let conn_db = rusqlite::Connection::open(&db).unwrap();
    let start: Vec<u8> = conn_db
        .query_row(
            "SELECT start FROM ip_ranges WHERE substr(start, 1, 12) = X'00000000000000000000FFFF' ORDER BY start LIMIT 1",
            [],
            |r| r.get(0),
        )
        .unwrap();
    let ip = std::net::Ipv4Addr::from(<[u8; 4]>::try_from(&start[12..16]).unwrap());
    cases.push(case(
        "position",
        "GET",
        format!("/geolocation/position?ip_address={ip}"),
        "",
        &[200],
    ));
    // A zone of a store, updated with its own polygon.
    let zone = waymark_core::stores::packed::read(&conn_db)
        .expect("the parity pack's stores layer reads")
        .1
        .into_iter()
        .next()
        .expect("the parity pack has zones");
    let (zone_id, store_id, wkt) = (zone.zone_id, zone.store_id, zone.polygon_wkt);
    let zones =
        json!({"zones": [{"zone_id": zone_id, "store_id": store_id, "polygon": wkt}]}).to_string();
    cases.push(case("zones-update", "PUT", "/zones".into(), &zones, &[200]));
    cases.push(case(
        "map",
        "GET",
        "/map/features?bbox=1.51,42.50,1.53,42.52".into(),
        "",
        &[200],
    ));
    cases.push(case("packs-list", "GET", "/packs".into(), "", &[200]));
    // A dataset, imported before the load starts.
    let (status, body) = conn
        .send(
            "POST",
            "/datasets",
            key,
            &json!({"name": "soak buildings", "url": dataset_url}).to_string(),
        )
        .unwrap();
    assert_eq!(status, 202, "{body}");
    let id = json_of(&body)["id"].as_str().unwrap().to_string();
    poll(
        conn,
        key,
        &format!("/datasets/{id}/status"),
        &["success"],
        Duration::from_secs(120),
    )
    .unwrap();
    let (status, body) = conn
        .send(
            "POST",
            &format!("/datasets/{id}/features/search?per_page=5"),
            key,
            r#"{"where": "levels:>=3"}"#,
        )
        .unwrap();
    assert_eq!(status, 200, "{body}");
    let feature = json_of(&body)["features"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    cases.push(case("datasets-list", "GET", "/datasets".into(), "", &[200]));
    cases.push(case(
        "dataset-get",
        "GET",
        format!("/datasets/{id}"),
        "",
        &[200],
    ));
    cases.push(case(
        "dataset-status",
        "GET",
        format!("/datasets/{id}/status"),
        "",
        &[200],
    ));
    cases.push(case(
        "feature-get",
        "GET",
        format!("/datasets/{id}/features/{feature}"),
        "",
        &[200],
    ));
    cases.push(case(
        "feature-search",
        "POST",
        format!("/datasets/{id}/features/search?per_page=10"),
        r#"{"where": "levels:>=3"}"#,
        &[200],
    ));
    cases.push(case(
        "feature-contains",
        "POST",
        format!("/datasets/{id}/features/contains"),
        r#"{"geometry": "42.5051,1.5151"}"#,
        &[200],
    ));
    // Requests meant to fail.
    cases.push(case(
        "bad-coordinates",
        "GET",
        "/geolocation/timezone?location=95,0".into(),
        "",
        &[422],
    ));
    cases.push(case("bad-waypoints", "GET", "/distance/route/json?origin=42.5078,1.5211&destination=42.5346,1.5806&waypoints=optimize:true|x".into(), "", &[422]));
    cases.push(case(
        "unknown-venue",
        "GET",
        "/indoor/venues/nope".into(),
        "",
        &[404],
    ));
    cases.push(case(
        "unknown-matrix",
        "GET",
        "/distance/matrix/async/nope/status".into(),
        "",
        &[404],
    ));
    cases
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
