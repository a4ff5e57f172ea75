//! `packopen --packs DIR --publisher FILE [--runs N]`: how long a pack takes to open for
//! routing ("pack open ≤ 50 ms"), with a warm file cache. For each installed pack
//! with roads, `--runs` times: a new [`Engine`] over the packs directory (a new state
//! directory, as an app's first start, then the same one again, as every later start), then
//! its first route (driving, time), which opens the pack for routing: roads layer, snap
//! index, addresses, tolls, the driving turn graph, its reachability and hierarchy. Then, in
//! a second pass, the same pieces timed one by one. Prints each run and the medians.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::time::Instant;

use waymark_core::api::{LatLng, RouteRequest};
use waymark_core::auth::RateLimitMode;
use waymark_core::auth::keys::Publisher;
use waymark_core::distance::address::AddressIndex;
use waymark_core::distance::tolls::TollTable;
use waymark_core::operation::Credentials;
use waymark_core::routing::network::RoadNetwork;
use waymark_core::routing::snap::SnapIndex;
use waymark_core::routing::{Metric, Profile, Router};
use waymark_core::{Engine, EngineConfig};

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Two points on main driving roads of the pack in `dir`, inside its coverage box: the
/// quartiles of the nodes ordered by `lat + lng` (the extremes may lie on roads cut by the
/// extract's border).
fn route_ends(dir: &Path) -> (LatLng, LatLng) {
    let manifest: waymark_core::packs::Manifest =
        serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap();
    let [w, s, e, n] = manifest.coverage.bbox;
    let db = rusqlite::Connection::open(dir.join("data.sqlite")).unwrap();
    let mut stmt = db
        .prepare(
            "SELECT n.lat, n.lng FROM road_edges e JOIN road_nodes n ON n.id = e.from_node \
             WHERE e.car = 1 AND e.highway IN ('primary','secondary','tertiary') \
             AND n.lat BETWEEN ?1 AND ?2 AND n.lng BETWEEN ?3 AND ?4 ORDER BY n.lat + n.lng",
        )
        .unwrap();
    let points: Vec<LatLng> = stmt
        .query_map([s, n, w, e], |r| Ok(LatLng::new(r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    (points[points.len() / 4], points[points.len() * 3 / 4])
}

/// One pack alone in a packs directory of its own (a copy of the installed version).
fn single_pack_dir(work: &Path, installed: &Path, id: &str) -> PathBuf {
    let packs = work.join(format!("packs-{id}"));
    if !packs.exists() {
        let version = installed.file_name().unwrap();
        waymark_packs::stores::pack::copy_dir(installed, &packs.join(id).join(version)).unwrap();
    }
    packs
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |name: &str| waymark_tests::arg_value(&args, name);
    let packs = PathBuf::from(arg("--packs").expect("--packs DIR"));
    let publisher =
        Publisher::read_file(Path::new(&arg("--publisher").expect("--publisher F"))).unwrap();
    let runs: usize = arg("--runs").map_or(5, |r| r.parse().unwrap());
    let work = tempfile::tempdir().unwrap();
    let caller = waymark_tests::private_caller(&publisher);
    let mut ids: Vec<(String, PathBuf)> = Vec::new();
    for e in std::fs::read_dir(&packs).unwrap() {
        let e = e.unwrap();
        let id = e.file_name().to_string_lossy().to_string();
        if id.starts_with('.') {
            continue;
        }
        let version = std::fs::read_dir(e.path())
            .unwrap()
            .next()
            .unwrap()
            .unwrap()
            .path();
        let has_roads = rusqlite::Connection::open(version.join("data.sqlite"))
            .and_then(|c| {
                c.query_row("SELECT count(*) FROM road_edges", [], |r| {
                    r.get::<_, i64>(0)
                })
            })
            .is_ok_and(|n| n > 0);
        if has_roads {
            ids.push((id, version));
        }
    }
    ids.sort();
    for (id, installed) in &ids {
        let dir = single_pack_dir(work.path(), installed, id);
        let (a, b) = route_ends(installed);
        let (mut first, mut again, mut route) = (Vec::new(), Vec::new(), Vec::new());
        for run in 0..runs {
            let state = work.path().join(format!("state-{id}-{run}"));
            let open = || {
                let mut config = EngineConfig::new(&state, vec![publisher.verifying()]);
                config.rate_limits = RateLimitMode::Off;
                config.packs_dir = Some(dir.clone());
                Engine::open(config).unwrap()
            };
            let t = Instant::now();
            drop(open());
            first.push(ms(t));
            let t = Instant::now();
            let engine = std::sync::Arc::new(open());
            again.push(ms(t));
            let t = Instant::now();
            let answer = engine
                .call(
                    &Credentials::Http(&caller),
                    RouteRequest {
                        origin: a,
                        destination: b,
                        ..Default::default()
                    },
                )
                .unwrap();
            route.push(ms(t));
            assert!(
                !answer.routes.is_empty(),
                "{id}: no route {a:?} → {b:?}: {:?}",
                answer.status
            );
            println!(
                "{id} run {run}: engine open {:.1} ms (new state) / {:.1} ms (again); first route {:.1} ms",
                first[run], again[run], route[run]
            );
        }
        // The pieces of the first route, one by one.
        let db = rusqlite::Connection::open(installed.join("data.sqlite")).unwrap();
        let t = Instant::now();
        let net = RoadNetwork::load(&db).unwrap();
        let network = ms(t);
        let t = Instant::now();
        let snap = SnapIndex::build(&net);
        let (snap_ms, pieces) = (ms(t), snap.pieces());
        let t = Instant::now();
        AddressIndex::load(
            rusqlite::Connection::open(installed.join("data.sqlite")).unwrap(),
            a.lat,
        )
        .unwrap();
        let addresses = ms(t);
        let t = Instant::now();
        TollTable::load(&db).unwrap();
        let tolls = ms(t);
        let router = Router::open(id, installed, &db).unwrap();
        let t = Instant::now();
        router.graph(Profile::Driving);
        let graph = ms(t);
        let t = Instant::now();
        router.reach(Profile::Driving);
        let reach = ms(t);
        let t = Instant::now();
        router.hierarchy(Profile::Driving, Metric::Time);
        let hierarchy = ms(t);
        println!(
            "{id}: median engine open {:.1} ms (new state) / {:.1} ms (again), first route {:.1} ms; \
             pieces: roads {network:.1}, snap index {snap_ms:.1} ({pieces} pieces), addresses \
             {addresses:.1}, tolls {tolls:.1}, driving turn graph {graph:.1}, reach {reach:.1}, \
             hierarchy {hierarchy:.1} ms",
            median(first),
            median(again),
            median(route)
        );
    }
}
