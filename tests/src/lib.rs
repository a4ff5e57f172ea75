//! Shared fixtures for the end-to-end tests and benchmarks: an engine with a real pack built
//! from the pinned sources and installed like any other, and callers with keys of its
//! publisher.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::sync::Arc;

use waymark_core::auth::keys::{KeyClaims, KeyScope, PrivateRestriction, Publisher};
use waymark_core::auth::{Caller, RateLimitMode};
use waymark_core::{Engine, EngineConfig};
use waymark_packs::build::{self, PackPlan};
use waymark_packs::sources::Sources;

pub mod props;
pub mod soak;

/// The repository's pinned sources.
pub fn sources() -> Sources {
    Sources::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../data-packs/sources.toml"))
        .unwrap()
}

/// Builds `plan` under `tmp`, signs it with a new publisher, installs it into a new engine
/// (rate limits off) and returns both.
pub fn engine_with_pack(plan: &PackPlan, tmp: &Path) -> (Arc<Engine>, Publisher) {
    engine_with_pack_in(
        plan,
        &tmp.join("built"),
        &tmp.join("packs"),
        &tmp.join("state"),
    )
}

/// Builds `plan` under `work`, signs it with a new publisher and installs it into an engine
/// whose packs live in `packs` and state in `state` (rate limits off); returns both.
pub fn engine_with_pack_in(
    plan: &PackPlan,
    work: &Path,
    packs: &Path,
    state: &Path,
) -> (Arc<Engine>, Publisher) {
    let publisher = Publisher::generate().unwrap();
    let dir = build::build_pack(plan, "1", &sources(), work, false, &mut |_, _, _| {}).unwrap();
    build::sign_pack(&dir, &publisher).unwrap();
    let mut config = EngineConfig::new(state, vec![publisher.verifying()]);
    config.rate_limits = RateLimitMode::Off;
    config.packs_dir = Some(packs.to_path_buf());
    let engine = Engine::open(config).unwrap();
    engine
        .install_pack(
            &format!("file://{}", dir.canonicalize().unwrap().display()),
            &mut |_| {},
        )
        .unwrap();
    (Arc::new(engine), publisher)
}

/// The pack of the parity suite (engine, local server, Kotlin library): Andorra with every
/// layer the implemented operations read.
pub fn parity_plan() -> PackPlan {
    let mut plan = build::sample_plan("andorra").unwrap();
    plan.layers
        .push(waymark_core::packs::schema::layers::THREEWORDS.to_string());
    plan
}

/// A pack with only the three-word layer (the base pack's, without its other world-wide
/// layers).
pub fn threewords_plan() -> PackPlan {
    PackPlan {
        id: "words".into(),
        osm: vec![],
        layers: vec![waymark_core::packs::schema::layers::THREEWORDS.to_string()],
        base: true,
        routing: Default::default(),
    }
}

/// The Android package id the SDK fixture's Android-restricted key allows.
pub const SDK_ANDROID_PACKAGE: &str = "com.waymark.sample";
/// The signing-certificate SHA-1 that key allows (colon-separated, as `keytool` prints it).
pub const SDK_ANDROID_SHA1: &str = "5E:8F:16:06:2E:A3:CD:2C:4A:0D:54:78:76:BA:A6:F3:8C:AB:F6:25";
/// The iOS bundle id the SDK fixture's iOS-restricted key allows.
pub const SDK_IOS_BUNDLE: &str = "com.waymark.sample";

/// The local server over an engine, listening on 127.0.0.1 (a free port) on a runtime of its
/// own; it shuts down gracefully when dropped.
#[derive(Debug)]
pub struct LocalServer {
    /// Where it listens.
    pub addr: std::net::SocketAddr,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    runtime: Option<tokio::runtime::Runtime>,
}

impl LocalServer {
    /// Starts serving `engine`.
    pub fn start(engine: std::sync::Arc<Engine>) -> LocalServer {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let listener = runtime
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .unwrap();
        let addr = listener.local_addr().unwrap();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        runtime.spawn(waymark_localserver::serve(
            engine,
            waymark_localserver::ServerConfig::default(),
            listener,
            async move {
                let _ = stopped.await;
            },
        ));
        LocalServer {
            addr,
            stop: Some(stop),
            runtime: Some(runtime),
        }
    }
}

/// An HTTP answer of [`LocalServer::call`].
#[derive(Debug)]
pub struct HttpAnswer {
    /// Status code.
    pub status: u16,
    /// The header lines, as sent.
    pub headers: String,
    /// The body's text (de-chunked), compared as text: parsing would round some floats.
    pub body: String,
}

impl HttpAnswer {
    /// The value of header `name` (any case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.lines().find_map(|l| {
            let (n, v) = l.split_once(':')?;
            n.eq_ignore_ascii_case(name).then(|| v.trim())
        })
    }
}

impl LocalServer {
    /// Sends one request with the key in `X-Api-Key` (no such header when `key` is empty)
    /// over a new connection and reads the whole answer.
    pub fn call(&self, method: &str, target: &str, key: &str, body: &str) -> HttpAnswer {
        let mut headers = vec![("Content-Type".to_string(), "application/json".to_string())];
        if !key.is_empty() {
            headers.push(("X-Api-Key".to_string(), key.to_string()));
        }
        self.call_with(method, target, &headers, body.as_bytes())
    }

    /// Sends one request with these headers (a `Host` naming the server's address unless one
    /// is given) over a new connection and reads the whole answer.
    pub fn call_with(
        &self,
        method: &str,
        target: &str,
        headers: &[(String, String)],
        body: &[u8],
    ) -> HttpAnswer {
        use std::io::{Read, Write};
        let addr = self.addr;
        let mut s = std::net::TcpStream::connect(addr).unwrap();
        s.set_read_timeout(Some(std::time::Duration::from_secs(60)))
            .unwrap();
        let mut head = format!("{method} {target} HTTP/1.1\r\n");
        if !headers.iter().any(|(n, _)| n.eq_ignore_ascii_case("host")) {
            head.push_str(&format!("Host: {addr}\r\n"));
        }
        for (n, v) in headers {
            head.push_str(&format!("{n}: {v}\r\n"));
        }
        head.push_str(&format!(
            "Content-Length: {}\r\nConnection: close\r\n\r\n",
            body.len()
        ));
        s.write_all(head.as_bytes()).unwrap();
        s.write_all(body).unwrap();
        let mut raw = Vec::new();
        s.read_to_end(&mut raw).unwrap();
        let raw = String::from_utf8(raw).unwrap();
        let status: u16 = raw[9..12].parse().unwrap();
        let (headers, body) = raw.split_once("\r\n\r\n").unwrap();
        let mut answer = HttpAnswer {
            status,
            headers: headers.to_string(),
            body: body.to_string(),
        };
        if answer
            .header("transfer-encoding")
            .is_some_and(|v| v.eq_ignore_ascii_case("chunked"))
        {
            answer.body = dechunk(body);
        }
        answer
    }
}

fn dechunk(mut body: &str) -> String {
    let mut out = String::new();
    loop {
        let (size, rest) = body.split_once("\r\n").unwrap();
        let size = usize::from_str_radix(size.trim(), 16).unwrap();
        if size == 0 {
            return out;
        }
        out.push_str(&rest[..size]);
        body = &rest[size + 2..];
    }
}

impl Drop for LocalServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_timeout(std::time::Duration::from_secs(5));
        }
    }
}

/// A caller with an unrestricted private key of `publisher`, connecting from 127.0.0.1.
pub fn private_caller(publisher: &Publisher) -> Caller {
    let claims = KeyClaims::new(KeyScope::Private {
        write: false,
        restriction: PrivateRestriction::None,
    });
    Caller {
        api_key_header: Some(publisher.issue(&claims).unwrap()),
        peer_ip: Some("127.0.0.1".parse().unwrap()),
        ..Caller::default()
    }
}

/// A caller with an unrestricted private key of `publisher` with write permission (zones
/// updates) in the `private_key` parameter, connecting from 127.0.0.1.
pub fn write_caller(publisher: &Publisher) -> Caller {
    let claims = KeyClaims::new(KeyScope::Private {
        write: true,
        restriction: PrivateRestriction::None,
    });
    Caller {
        private_key: Some(publisher.issue(&claims).unwrap()),
        peer_ip: Some("127.0.0.1".parse().unwrap()),
        ..Caller::default()
    }
}

/// A customer's stores pack: `stores` imported (strictly) into a small pack `id` at
/// `version` built under `out` from the Monaco extract (places only), signed by `publisher`.
pub fn stores_pack(
    id: &str,
    version: &str,
    stores: &[waymark_packs::stores::StoreAsset],
    out: &Path,
    publisher: &Publisher,
) -> std::path::PathBuf {
    let plan = PackPlan {
        id: id.into(),
        osm: vec!["osm-monaco".into()],
        layers: vec!["places".into()],
        base: false,
        routing: Default::default(),
    };
    let (dir, _) = waymark_packs::stores::pack::build_with_stores(
        &plan,
        version,
        &sources(),
        stores,
        waymark_packs::stores::pack::customer_source("proprietary", "generated test stores"),
        out,
    )
    .unwrap();
    build::sign_pack(&dir, publisher).unwrap();
    dir
}

/// Opens an engine (rate limits off) trusting `publisher`, with its state in `state` and its
/// packs in `packs`.
pub fn open_engine(state: &Path, packs: &Path, publisher: &Publisher) -> Arc<Engine> {
    let mut config = EngineConfig::new(state, vec![publisher.verifying()]);
    config.rate_limits = RateLimitMode::Off;
    config.packs_dir = Some(packs.to_path_buf());
    Arc::new(Engine::open(config).unwrap())
}

/// Installs the built pack in `dir` into `engine`.
pub fn install(engine: &Engine, dir: &Path) {
    engine
        .install_pack(
            &format!("file://{}", dir.canonicalize().unwrap().display()),
            &mut |_| {},
        )
        .unwrap();
}

/// The region sample plans reduced to the layers the localities operations read (roads,
/// places, addresses, POIs, search), so that tests build them quickly.
pub fn localities_plans() -> Vec<PackPlan> {
    use waymark_core::packs::schema::layers;
    build::sample_plans()
        .into_iter()
        .filter(|p| !p.base)
        .map(|mut p| {
            p.layers = [
                layers::ROADS,
                layers::PLACES,
                layers::ADDRESSES,
                layers::POIS,
                layers::SEARCH,
            ]
            .iter()
            .map(|s| s.to_string())
            .collect();
            p
        })
        .collect()
}

/// Builds every plan of `plans` under `tmp`, signs them with one new publisher and installs
/// them all into a new engine (rate limits off); returns the engine, the publisher and the
/// built pack directories (in the order of `plans`).
pub fn engine_with_packs(
    plans: &[PackPlan],
    tmp: &Path,
) -> (Arc<Engine>, Publisher, Vec<std::path::PathBuf>) {
    let publisher = Publisher::generate().unwrap();
    let mut config = EngineConfig::new(&tmp.join("state"), vec![publisher.verifying()]);
    config.rate_limits = RateLimitMode::Off;
    config.packs_dir = Some(tmp.join("packs"));
    let engine = Engine::open(config).unwrap();
    let mut dirs = Vec::new();
    for plan in plans {
        let dir = build::build_pack(
            plan,
            "1",
            &sources(),
            &tmp.join("built"),
            false,
            &mut |_, _, _| {},
        )
        .unwrap();
        build::sign_pack(&dir, &publisher).unwrap();
        engine
            .install_pack(
                &format!("file://{}", dir.canonicalize().unwrap().display()),
                &mut |_| {},
            )
            .unwrap();
        dirs.push(dir);
    }
    (Arc::new(engine), publisher, dirs)
}

/// Deterministic pseudo-random numbers (xorshift64) for the quality tests and benchmarks.
#[derive(Debug, Clone)]
pub struct Rng(pub u64);

impl Rng {
    /// A generator from a seed (never zero: xorshift would stay at zero).
    pub fn new(seed: u64) -> Self {
        Rng(seed.max(1))
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// An index in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// A point uniform on the sphere, `(lat, lng)`.
    pub fn sphere_point(&mut self) -> (f64, f64) {
        let lat = (2.0 * self.unit() - 1.0).asin().to_degrees();
        (lat, self.unit() * 360.0 - 180.0)
    }
}

/// The plan of sample pack `id` restricted to what routing needs: roads, places, addresses
/// and the prepared routing graphs.
pub fn routing_plan(id: &str) -> PackPlan {
    let mut plan = build::sample_plan(id).unwrap();
    plan.layers = ["roads", "places", "addresses", "routing"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    plan
}

/// Up to `n` random points near the network of `r` (within about 100 m of a node), snapped
/// for `profile`.
pub fn random_snaps(
    r: &waymark_core::routing::Router,
    profile: waymark_core::routing::Profile,
    n: usize,
    rng: &mut Rng,
) -> Vec<waymark_core::routing::snap::Snap> {
    let mut out = Vec::new();
    let mut tries = 0;
    while out.len() < n && tries < n * 50 {
        tries += 1;
        let node = r.net.nodes[rng.below(r.net.nodes.len())];
        let p = waymark_core::geo::Pt::new(
            node.lat + (rng.unit() - 0.5) * 0.002,
            node.lng + (rng.unit() - 0.5) * 0.002,
        );
        if let Some(s) = r.snap(profile, p, &|_| true) {
            out.push(s);
        }
    }
    out
}

/// The directory of sample pack `id` built with [`routing_plan`], once per test process (kept
/// in a temporary directory that lives as long as the process).
pub fn routing_pack(id: &str) -> std::path::PathBuf {
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock};
    static BUILT: OnceLock<Mutex<HashMap<String, std::path::PathBuf>>> = OnceLock::new();
    static ROOT: OnceLock<tempfile::TempDir> = OnceLock::new();
    let root = ROOT.get_or_init(|| tempfile::tempdir().unwrap());
    let mut built = BUILT.get_or_init(Default::default).lock().unwrap();
    if let Some(dir) = built.get(id) {
        return dir.clone();
    }
    let dir = build::build_pack(
        &routing_plan(id),
        "1",
        &sources(),
        root.path(),
        false,
        &mut |_, _, _| {},
    )
    .unwrap();
    built.insert(id.to_string(), dir.clone());
    dir
}

/// Times `f(0)`, `f(1)`, ... `f(n - 1)` call by call (after a warm-up of up to 50 calls) and
/// prints p50, p95 and p99 in milliseconds: the benchmarks' targets are percentiles, which
/// criterion's means do not give.
pub fn time_percentiles(label: &str, n: usize, mut f: impl FnMut(usize)) {
    for i in 0..n.min(50) {
        f(i);
    }
    let mut t: Vec<f64> = (0..n)
        .map(|i| {
            let s = std::time::Instant::now();
            f(i);
            s.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    t.sort_by(f64::total_cmp);
    let p = |q: f64| t[((t.len() as f64 - 1.0) * q).round() as usize];
    eprintln!(
        "{label}: p50 {:.3} ms, p95 {:.3} ms, p99 {:.3} ms (n={n})",
        p(0.5),
        p(0.95),
        p(0.99)
    );
}

/// The plan of sample pack `id` restricted to the indoor layer (venues, features, graphs)
/// and the roads it joins the venues' entrances to.
pub fn indoor_plan(id: &str) -> PackPlan {
    use waymark_core::packs::schema::layers;
    let mut plan = build::sample_plan(id).unwrap();
    plan.layers = vec![layers::ROADS.to_string(), layers::INDOOR.to_string()];
    plan
}

/// The sample venue file (IMDF-like GeoJSON, `docs/indoor-venue-file.md`): venue
/// `imdf-venue-1`, "Example Hall", two levels.
pub fn sample_venue_file() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../data-packs/examples/venue-file.geojson")
}

/// The engine of the parity suite (engine, local server, Kotlin library): the
/// [`parity_plan`] pack with the [`sample_venue_file`] added to its indoor layer, built
/// under `work`, signed by a new publisher and installed (rate limits off).
pub fn parity_engine_in(work: &Path, packs: &Path, state: &Path) -> (Arc<Engine>, Publisher) {
    let publisher = Publisher::generate().unwrap();
    let dir = build::build_pack(
        &parity_plan(),
        "1",
        &sources(),
        work,
        false,
        &mut |_, _, _| {},
    )
    .unwrap();
    waymark_packs::venue_file::add_to_pack(&dir, &sample_venue_file()).unwrap();
    build::sign_pack(&dir, &publisher).unwrap();
    let engine = open_engine(state, packs, &publisher);
    install(&engine, &dir);
    // Monaco cut in two at 7.42° E (roads and routing only): the crossing cases of the suite
    // run on the two parts joined (ADR 0008).
    for (id, bbox) in PARITY_MONACO_PARTS {
        let part = cut_routing_pack(id, "monaco", bbox, work);
        build::sign_pack(&part, &publisher).unwrap();
        install(&engine, &part);
    }
    // IP positions come from the world IP pack (region packs carry no networks).
    let world_ip = build::build_pack(
        &build::sample_plan(build::WORLD_IP_PACK).unwrap(),
        "1",
        &sources(),
        work,
        false,
        &mut |_, _, _| {},
    )
    .unwrap();
    build::sign_pack(&world_ip, &publisher).unwrap();
    install(&engine, &world_ip);
    (engine, publisher)
}

/// The first IPv4 address of a network that DB-IP City Lite places in country `cc`, read
/// from the MaxMind DB file of the world IP pack in `pack_dir` (so that position tests ask
/// for an address the packs know).
pub fn first_ipv4_in_country(pack_dir: &Path, cc: &str) -> Option<std::net::Ipv4Addr> {
    use waymark_core::geolocation::ip::{DbIpCity, WORLD_IP_FILES};
    let reader = maxminddb::Reader::open_readfile(pack_dir.join(WORLD_IP_FILES[0])).ok()?;
    for item in reader.networks(maxminddb::WithinOptions::default()).ok()? {
        let item = item.ok()?;
        let rec: Option<DbIpCity> = item.decode().ok()?;
        if rec.and_then(|r| r.country_code) == Some(cc) {
            return match item.network().ok()?.ip() {
                std::net::IpAddr::V4(a) => Some(a),
                std::net::IpAddr::V6(a) => a.to_ipv4_mapped(),
            };
        }
    }
    None
}

/// The Monaco parts of the parity suite: pack id and cut box.
pub const PARITY_MONACO_PARTS: [(&str, &str); 2] = [
    ("monaco-west", "40,0,50,7.42"),
    ("monaco-east", "40,7.42,50,10"),
];

/// The [`routing_plan`] of sample extract `osm` cut to `bbox` as region pack `id`, built under
/// `out` (unsigned).
pub fn cut_routing_pack(id: &str, osm: &str, bbox: &str, out: &Path) -> std::path::PathBuf {
    let mut plan = routing_plan(osm);
    plan.id = id.to_string();
    let options = build::BuildOptions {
        region: Some(waymark_packs::cut::Region::from_bbox_arg(bbox).unwrap()),
        ..Default::default()
    };
    build::build_pack_with(&plan, "1", &sources(), out, &options, &mut |_, _, _| {}).unwrap()
}

/// The value after `name` on a tool's command line (`--work DIR` gives `DIR`).
/// The start node of every car road edge of an ordinary class (primary to unclassified) in
/// the pack database `db`, in edge order: where benchmarks and load tools draw random
/// route ends from.
pub fn car_road_points(db: &rusqlite::Connection) -> Vec<waymark_core::api::LatLng> {
    let mut stmt = db
        .prepare(
            "SELECT n.lat, n.lng FROM road_edges e JOIN road_nodes n ON n.id = e.from_node \
             WHERE e.car = 1 AND e.highway IN ('primary','secondary','tertiary','residential','unclassified') \
             ORDER BY e.id",
        )
        .unwrap();
    stmt.query_map([], |r| {
        Ok(waymark_core::api::LatLng::new(r.get(0)?, r.get(1)?))
    })
    .unwrap()
    .map(Result::unwrap)
    .collect()
}

pub fn arg_value(args: &[String], name: &str) -> Option<String> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .cloned()
}

/// The [`routing_plan`] of sample extract `osm` (`andorra`, `neubrandenburg`, ...) with the
/// layers the localities operations read too, as pack `id`, cut to `bbox`
/// (`SOUTH,WEST,NORTH,EAST`) when given, built under `out` (unsigned).
pub fn cut_pack(id: &str, osm: &str, bbox: Option<&str>, out: &Path) -> std::path::PathBuf {
    let mut plan = routing_plan(osm);
    plan.id = id.to_string();
    for l in ["pois", "search"] {
        plan.layers.push(l.to_string());
    }
    let options = build::BuildOptions {
        region: bbox.map(|b| waymark_packs::cut::Region::from_bbox_arg(b).unwrap()),
        ..Default::default()
    };
    build::build_pack_with(&plan, "1", &sources(), out, &options, &mut |_, _, _| {}).unwrap()
}
