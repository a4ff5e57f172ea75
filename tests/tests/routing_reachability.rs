//! Snapping onto road fragments: a point next to a piece of road cut off
//! from the rest of the network must still route to the rest of the network.
//!
//! * The reported Helsinki case (driving 700 m from a point next to a cut-off service
//!   road) answers `OK` with a sensible length, and its isochrone is not empty.
//! * Random road nodes route to each other (status OK) in ≥ 99.9 % of pairs, per sample pack
//!   and profile. The nearest-edge snap of the code before the fix is measured beside it and
//!   printed (`before`), with the snapping cost and the cost of the component analysis.
//!
//! Packs: Monaco, Andorra and Helsinki by default; every sample pack with
//! `WAYMARK_REACHABILITY_ALL=1` (and 1,000 pairs instead of 300).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::{Arc, OnceLock};

use waymark_core::api::*;
use waymark_core::auth::Caller;
use waymark_core::auth::keys::Publisher;
use waymark_core::geo::{LocalProjection, Pt, decode_polyline, haversine_m};
use waymark_core::operation::Credentials;
use waymark_core::routing::graph::NO_ARC;
use waymark_core::routing::reach::{MIN_REACH_NODES, Reach};
use waymark_core::routing::router::{SearchAlgorithm, expand_sources, positions};
use waymark_core::routing::search::Dijkstra;
use waymark_core::routing::{Metric, Profile, Router};
use waymark_core::{Engine, EngineConfig};
use waymark_tests::{Rng, routing_pack};

fn open(id: &str) -> Router {
    let dir = routing_pack(id);
    let conn = rusqlite::Connection::open(dir.join("data.sqlite")).unwrap();
    Router::open(id, &dir, &conn).unwrap()
}

struct Fixture {
    _tmp: tempfile::TempDir,
    engine: Arc<Engine>,
    caller: Caller,
}

/// An engine with the Helsinki routing pack installed (the pack the other tests open).
fn helsinki() -> &'static Fixture {
    static F: OnceLock<Fixture> = OnceLock::new();
    F.get_or_init(|| {
        let tmp = tempfile::tempdir().unwrap();
        let built = routing_pack("helsinki");
        let dir = tmp.path().join("helsinki");
        for rel in walk(&built) {
            std::fs::create_dir_all(dir.join(&rel).parent().unwrap()).unwrap();
            std::fs::copy(built.join(&rel), dir.join(&rel)).unwrap();
        }
        let publisher = Publisher::generate().unwrap();
        waymark_packs::build::sign_pack(&dir, &publisher).unwrap();
        let mut config = EngineConfig::new(&tmp.path().join("state"), vec![publisher.verifying()]);
        config.rate_limits = waymark_core::auth::RateLimitMode::Off;
        config.packs_dir = Some(tmp.path().join("packs"));
        let engine = Engine::open(config).unwrap();
        engine
            .install_pack(
                &format!("file://{}", dir.canonicalize().unwrap().display()),
                &mut |_| {},
            )
            .unwrap();
        Fixture {
            _tmp: tmp,
            engine: Arc::new(engine),
            caller: waymark_tests::private_caller(&publisher),
        }
    })
}

/// Relative paths of the files under `root`.
fn walk(root: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut dirs = vec![root.to_path_buf()];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                dirs.push(p);
            } else {
                out.push(p.strip_prefix(root).unwrap().to_path_buf());
            }
        }
    }
    out
}

const FROM: LatLng = LatLng::new(60.1699, 24.9384);
/// On Alvar Aallon katu, whose pieces reach the rest of the car network only through footways
/// and roads closed to cars.
const ISLAND: LatLng = LatLng::new(60.17665, 24.93819);

/// The area of an isochrone's outline, km².
fn outline_km2(iso: &IsochroneResponse, lat: f64) -> f64 {
    let g = match &iso.isoline {
        Isoline::Time(t) => &t.geometry,
        Isoline::Distance(d) => &d.geometry,
    };
    let mut ring = Vec::new();
    decode_polyline(g, 5, &mut ring).unwrap();
    let proj = LocalProjection::new(lat);
    let xy: Vec<[f64; 2]> = ring.iter().map(|p| proj.project(*p)).collect();
    let mut a = 0.0;
    for w in xy.windows(2) {
        a += w[0][0] * w[1][1] - w[1][0] * w[0][1];
    }
    a.abs() / 2.0 / 1e6
}

/// An origin on a street island that a search from it covers both ways for at least
/// MIN_REACH_NODES nodes starts there, as Valhalla's does (its `locate` gives the street a
/// reach of 50 and 50): the 30-minute drive covers the island, not the whole extract (2.22 km²
/// from every other origin; Valhalla 0.39 km²).
#[test]
fn an_isochrone_from_a_street_island_stays_on_the_island() {
    let r = open("helsinki");
    let p = Profile::Driving;
    let g = r.graph(p);
    let reach = r.reach(p);
    let all = |_: u32| true;
    let c = r
        .snap_candidates(p, Pt::new(ISLAND.lat, ISLAND.lng), &all)
        .unwrap();
    assert_eq!(r.net.name(c.near.edge), "Alvar Aallon katu");
    assert!(
        c.main.is_some() && !reach.can_leave(&g, &c.near),
        "an island"
    );
    let head = |a: u32| g.head_node(&r.net, a);
    let nodes = reach.both_ways_nodes(&g, &c.near, head, usize::MAX);
    eprintln!("Alvar Aallon katu: {nodes} nodes both ways");
    assert!(nodes >= MIN_REACH_NODES);
    assert_eq!(reach.origin(&g, &c, head), c.near);
    let f = helsinki();
    let iso: IsochroneResponse = f
        .engine
        .call(
            &Credentials::Http(&f.caller),
            IsochroneRequest {
                origin: ISLAND,
                value: 30.0,
                mode: TravelMode::Driving,
                method: RouteMethod::Time,
                ..Default::default()
            },
        )
        .unwrap();
    assert_eq!(iso.status, DistanceStatus::Ok);
    let km2 = outline_km2(&iso, ISLAND.lat);
    eprintln!("30 min driving from the island: {km2:.2} km²");
    assert!(km2 > 0.05 && km2 < 1.0, "{km2:.3} km²");
}
const TO: LatLng = LatLng::new(60.165, 24.945);

#[test]
fn the_helsinki_point_next_to_a_fragment_routes_and_reaches_the_city() {
    let f = helsinki();
    let straight = haversine_m(Pt::new(FROM.lat, FROM.lng), Pt::new(TO.lat, TO.lng));
    for mode in [
        TravelMode::Driving,
        TravelMode::Walking,
        TravelMode::Cycling,
    ] {
        for (a, b) in [(FROM, TO), (TO, FROM)] {
            let r: RouteResponse = f
                .engine
                .call(
                    &Credentials::Http(&f.caller),
                    RouteRequest {
                        origin: a,
                        destination: b,
                        mode,
                        ..Default::default()
                    },
                )
                .unwrap();
            assert_eq!(r.status, DistanceStatus::Ok, "{mode:?} {a:?} → {b:?}");
            let len = r.routes[0].legs[0].distance.value as f64;
            eprintln!("{mode:?} {a:?} → {b:?}: {len} m (straight {straight:.0} m)");
            assert!(
                len >= straight * 0.9 && len <= straight * 3.0,
                "{mode:?}: {len} m for {straight:.0} m"
            );
        }
    }
    // 10 minutes of driving from the point cover a piece of the city, not a parking lot.
    let iso: IsochroneResponse = f
        .engine
        .call(
            &Credentials::Http(&f.caller),
            IsochroneRequest {
                origin: FROM,
                value: 10.0,
                mode: TravelMode::Driving,
                method: RouteMethod::Time,
                ..Default::default()
            },
        )
        .unwrap();
    assert_eq!(iso.status, DistanceStatus::Ok);
    let km2 = outline_km2(&iso, FROM.lat);
    eprintln!("10 min driving from {FROM:?}: {km2:.2} km²");
    assert!(km2 > 0.5, "isochrone of {km2:.3} km²");
    // The road reached in 10 minutes from the nearest snap (the code before) and from the
    // isochrone's origin snap.
    let r = open("helsinki");
    let p = Profile::Driving;
    let g = r.graph(p);
    let all = |_: u32| true;
    let c = r
        .snap_candidates(p, Pt::new(FROM.lat, FROM.lng), &all)
        .unwrap();
    let reached_km = |s: &waymark_core::routing::snap::Snap| {
        let src = positions(&g, s, &all);
        let starts: Vec<(u32, i64)> = expand_sources(&g, Metric::Time, &src, &all)
            .iter()
            .map(|x| (x.0, x.1 as i64))
            .collect();
        let mut d = Dijkstra::new(g.arc_count());
        d.explore(
            &g,
            &starts,
            600_000,
            |a, t| Some(g.transition_cost(Metric::Time, a, t)),
            all,
        );
        d.order
            .iter()
            .map(|&a| r.net.edges[g.arc_edge[a as usize] as usize].length_m)
            .sum::<f64>()
            / 1000.0
    };
    let (before, after) = (
        reached_km(&c.near),
        reached_km(&r.reach(p).origin(&g, &c, |a| g.head_node(&r.net, a))),
    );
    eprintln!(
        "road reached in 10 min driving from {FROM:?}: before {before:.2} km, after {after:.2} km"
    );
    assert!(after >= before);
    // The reported pair with the nearest snaps (the code before) and with the fix.
    let (a, b) = (Pt::new(FROM.lat, FROM.lng), Pt::new(TO.lat, TO.lng));
    let old = r.path(
        p,
        Metric::Time,
        &r.snap(p, a, &all).unwrap(),
        &r.snap(p, b, &all).unwrap(),
        None,
        SearchAlgorithm::Ch,
    );
    let (ca, cb) = (
        r.snap_candidates(p, a, &all).unwrap(),
        r.snap_candidates(p, b, &all).unwrap(),
    );
    let new = r.path_between(p, Metric::Time, &ca, &cb, None, SearchAlgorithm::Ch);
    eprintln!(
        "the reported pair: before {:?}, after {:?}",
        old.as_ref().map(|x| x.cost),
        new.as_ref().map(|x| x.0.cost)
    );
    assert!(new.is_some());
    // From the middle of every small piece that cannot reach the main network: the origin moves
    // onto the main network and the 10 minutes reach far more road, unless the piece is an
    // island of at least MIN_REACH_NODES nodes, where the origin stays.
    let reach = r.reach(p);
    let head = |a: u32| g.head_node(&r.net, a);
    let (mut checked, mut islands) = (0, 0);
    let (mut sum_before, mut sum_after) = (0.0, 0.0);
    for (e, arcs) in g.edge_arcs.iter().enumerate() {
        let arcs: Vec<u32> = arcs.iter().copied().filter(|&x| x != NO_ARC).collect();
        if arcs.is_empty() || arcs.iter().any(|&x| reach.reaches_main(x)) {
            continue;
        }
        let geom = r.net.geometry(e as u32);
        let mid = geom[geom.len() / 2];
        let Some(c) = r.snap_candidates(p, mid, &all) else {
            continue;
        };
        if c.near.edge != e as u32 || c.main.is_none() {
            continue;
        }
        let origin = reach.origin(&g, &c, head);
        let nodes = reach.both_ways_nodes(&g, &c.near, head, MIN_REACH_NODES);
        if nodes >= MIN_REACH_NODES {
            assert_eq!(origin, c.near);
            islands += 1;
            continue;
        }
        let (b, a) = (reached_km(&c.near), reached_km(&origin));
        sum_before += b;
        sum_after += a;
        checked += 1;
        assert!(a > b, "edge {e}: {b} → {a} km");
    }
    eprintln!(
        "{checked} origins on pieces that cannot reach the main network: road reached in 10 min \
         driving {:.2} km before, {:.2} km after (mean); {islands} on islands of {MIN_REACH_NODES} \
         nodes or more stay",
        sum_before / f64::from(checked),
        sum_after / f64::from(checked)
    );
    assert!(checked > 10, "{checked}");
}

struct Rates {
    pairs: usize,
    before_ok: usize,
    after_ok: usize,
}

/// Random road nodes of `id` routed to each other per profile, with the nearest-edge snap of
/// the code before the fix (`before`) and the snaps of [`Router::snap_candidates`] (`after`).
fn sweep(id: &str, pairs: usize) -> Vec<(Profile, Rates)> {
    let r = open(id);
    let mut out = Vec::new();
    for profile in Profile::ALL {
        let g = r.graph(profile);
        let t = std::time::Instant::now();
        let reach = Reach::build(&g);
        let build_ms = t.elapsed().as_secs_f64() * 1e3;
        let main = reach.size[reach.main as usize];
        let fragments = reach.size.len() - 1;
        eprintln!(
            "{id} {profile}: {} arcs, {} transitions, main component {main} arcs ({:.1} %), \
             {fragments} other components; analysis {build_ms:.1} ms, {} KiB",
            g.arc_count(),
            g.transition_count(),
            100.0 * f64::from(main) / g.arc_count() as f64,
            reach.heap_bytes() / 1024
        );
        let mut rng = Rng::new(0x21 ^ ((id.len() as u64) << 8) ^ profile.index() as u64);
        let all = |_: u32| true;
        let mut rates = Rates {
            pairs,
            before_ok: 0,
            after_ok: 0,
        };
        let (mut t_before, mut t_after) = (0.0, 0.0);
        let mut failures = Vec::new();
        // Nodes of the profile's graph (ends of edges it may use).
        let nodes: Vec<u32> = {
            let mut v: Vec<u32> = r
                .net
                .edges
                .iter()
                .enumerate()
                .filter(|(e, _)| g.edge_arcs[*e].iter().any(|&a| a != NO_ARC))
                .flat_map(|(_, e)| [e.from, e.to])
                .collect();
            v.sort_unstable();
            v.dedup();
            v
        };
        let mut beyond = 0;
        let mut off_main = 0;
        let mut done = 0;
        while done < pairs {
            let pick = |rng: &mut Rng| r.net.nodes[nodes[rng.below(nodes.len())] as usize];
            let (a, b) = (pick(&mut rng), pick(&mut rng));
            // A node whose nearest edge is cut off and has no edge of the main component within
            // the snap radius cannot be helped by snapping: counted apart.
            let out_of_reach = |p: Pt| {
                r.snap_candidates(profile, p, &all)
                    .is_none_or(|c| c.main.is_none() && !reach.edge_in_main(&g, c.near.edge))
            };
            if out_of_reach(a) || out_of_reach(b) {
                beyond += 1;
                continue;
            }
            done += 1;
            let t = std::time::Instant::now();
            let before = (r.snap(profile, a, &all), r.snap(profile, b, &all));
            t_before += t.elapsed().as_secs_f64();
            if let (Some(s), Some(d)) = before
                && r.path(profile, Metric::Time, &s, &d, None, SearchAlgorithm::Ch)
                    .is_some()
            {
                rates.before_ok += 1;
            }
            let t = std::time::Instant::now();
            let after = (
                r.snap_candidates(profile, a, &all),
                r.snap_candidates(profile, b, &all),
            );
            t_after += t.elapsed().as_secs_f64();
            off_main += usize::from(after.0.is_some_and(|c| c.main.is_some()))
                + usize::from(after.1.is_some_and(|c| c.main.is_some()));
            let ok = match after {
                (Some(s), Some(d)) => r
                    .path_between(profile, Metric::Time, &s, &d, None, SearchAlgorithm::Ch)
                    .is_some(),
                _ => false,
            };
            if ok {
                rates.after_ok += 1;
            } else {
                failures.push((a, b, after));
            }
        }
        eprintln!(
            "{id} {profile}: before {}/{pairs} OK, after {}/{pairs} OK ({beyond} pairs skipped: \
             a node > 5 km from the main component); {off_main} of {} points off the main \
             component; snap {:.1} µs before, {:.1} µs after \
             (per point, this build)",
            rates.before_ok,
            rates.after_ok,
            2 * pairs,
            t_before * 1e6 / (2 * pairs) as f64,
            t_after * 1e6 / (2 * pairs) as f64,
        );
        for f in failures.iter().take(3) {
            eprintln!("  failing pair: {f:?}");
        }
        out.push((profile, rates));
    }
    out
}

fn packs() -> (Vec<&'static str>, usize) {
    if std::env::var_os("WAYMARK_REACHABILITY_ALL").is_some() {
        (
            vec![
                "monaco",
                "andorra",
                "liechtenstein",
                "neubrandenburg",
                "helsinki",
                "porto",
                "munchen",
                "london",
            ],
            1000,
        )
    } else {
        (vec!["monaco", "andorra", "helsinki"], 300)
    }
}

#[test]
fn random_road_nodes_route_to_each_other() {
    let (ids, pairs) = packs();
    let mut bad = Vec::new();
    for id in ids {
        for (profile, rates) in sweep(id, pairs) {
            if (rates.after_ok as f64) < rates.pairs as f64 * 0.999 {
                bad.push(format!(
                    "{id} {profile}: {}/{} pairs route",
                    rates.after_ok, rates.pairs
                ));
            }
        }
    }
    assert!(bad.is_empty(), "{bad:#?}");
}

#[test]
fn the_matrix_agrees_with_routes_between_fragments() {
    let r = open("helsinki");
    let mut rng = Rng::new(0x2101);
    let all = |_: u32| true;
    for profile in [Profile::Driving, Profile::Walking] {
        let pts: Vec<Pt> = (0..30)
            .map(|_| r.net.nodes[rng.below(r.net.nodes.len())])
            .chain([Pt::new(FROM.lat, FROM.lng), Pt::new(TO.lat, TO.lng)])
            .collect();
        let c: Vec<_> = pts
            .iter()
            .map(|p| r.snap_candidates(profile, *p, &all))
            .collect();
        let m = r.matrix_candidates(profile, Metric::Time, &c, &c, None);
        for i in 0..c.len() {
            for j in 0..c.len() {
                let (Some(a), Some(b)) = (c[i], c[j]) else {
                    continue;
                };
                let p = r
                    .path_between(profile, Metric::Time, &a, &b, None, SearchAlgorithm::Ch)
                    .map(|x| x.0.cost);
                assert_eq!(m[i][j].map(|x| x.0), p, "{profile} {i} → {j}");
            }
        }
    }
}

/// Road nodes on the edge of the Helsinki pack's coverage (the convex hull of its road nodes):
/// Annankatu at the south side, Viherniemenkatu at a corner. They were answered
/// `ZERO_RESULTS` (the even-odd test counted them outside the pack), where Valhalla routes
/// from them and draws their isochrones.
#[test]
fn points_on_the_edge_of_the_coverage_route_and_reach_the_city() {
    let f = helsinki();
    let creds = Credentials::Http(&f.caller);
    let annankatu = LatLng::new(60.1641581, 24.9406959);
    let viherniemenkatu = LatLng::new(60.178679, 24.953059);
    let laivasillankatu = LatLng::new(60.164446, 24.952906);
    let rikhardinkatu = LatLng::new(60.1660962, 24.9474088);
    for (a, b) in [
        (annankatu, laivasillankatu),
        (viherniemenkatu, rikhardinkatu),
        (rikhardinkatu, annankatu),
        (rikhardinkatu, viherniemenkatu),
    ] {
        let r: RouteResponse = f
            .engine
            .call(
                &creds,
                RouteRequest {
                    origin: a,
                    destination: b,
                    mode: TravelMode::Driving,
                    ..Default::default()
                },
            )
            .unwrap();
        assert_eq!(r.status, DistanceStatus::Ok, "{a:?} → {b:?}");
    }
    for origin in [annankatu, viherniemenkatu] {
        let iso: IsochroneResponse = f
            .engine
            .call(
                &creds,
                IsochroneRequest {
                    origin,
                    value: 30.0,
                    mode: TravelMode::Driving,
                    method: RouteMethod::Time,
                    ..Default::default()
                },
            )
            .unwrap();
        assert_eq!(iso.status, DistanceStatus::Ok, "{origin:?}");
        let km2 = outline_km2(&iso, origin.lat);
        eprintln!("30 min driving from {origin:?}: {km2:.2} km²");
        assert!(km2 > 1.5, "{origin:?}: {km2:.3} km²");
    }
}
