//! Region packs that join (ADR 0008): the Andorra and Neubrandenburg extracts cut into two
//! overlapping parts with `--bbox`, both parts installed, compared with the whole-region pack:
//! matrices of random points on opposite sides (1,600 pairs per profile), routes with their
//! geometry, steps, durations and tolls, isochrone outlines (IoU), a chain of three parts with
//! the middle one removed while serving, packs that must not join, and the cut's bad input.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use geo::{Area, BooleanOps, Coord, LineString, Polygon};
use waymark_core::Engine;
use waymark_core::api::*;
use waymark_core::auth::Caller;
use waymark_core::auth::keys::Publisher;
use waymark_core::geo::{Pt, decode_polyline, haversine_m};
use waymark_core::operation::Credentials;
use waymark_packs::build;

/// One region: the whole pack and its two parts, each in an engine of its own.
struct Region {
    name: &'static str,
    /// Longitude of the cut.
    cut: f64,
    whole: Arc<Engine>,
    parts: Arc<Engine>,
    caller_whole: Caller,
    caller_parts: Caller,
    /// Road-edge midpoints of the whole pack per access column (`car`, `foot`, `bicycle`).
    points: Vec<(Pt, [bool; 3])>,
    /// `data.sqlite` of the whole pack and of the two parts.
    dbs: [PathBuf; 3],
    _tmp: tempfile::TempDir,
}

fn west_box(cut: f64) -> String {
    format!("30,-10,60,{cut}")
}

fn east_box(cut: f64) -> String {
    format!("30,{cut},60,30")
}

fn build_region(name: &'static str, cut: f64) -> Region {
    let tmp = tempfile::tempdir().unwrap();
    let built = tmp.path().join("built");
    let whole_dir = waymark_tests::cut_pack(name, name, None, &built);
    let west = waymark_tests::cut_pack(&format!("{name}-west"), name, Some(&west_box(cut)), &built);
    let east = waymark_tests::cut_pack(&format!("{name}-east"), name, Some(&east_box(cut)), &built);
    let pw = Publisher::generate().unwrap();
    let pp = Publisher::generate().unwrap();
    build::sign_pack(&whole_dir, &pw).unwrap();
    let whole = waymark_tests::open_engine(&tmp.path().join("sw"), &tmp.path().join("pw"), &pw);
    waymark_tests::install(&whole, &whole_dir);
    for d in [&west, &east] {
        build::sign_pack(d, &pp).unwrap();
    }
    let parts = waymark_tests::open_engine(&tmp.path().join("sp"), &tmp.path().join("pp"), &pp);
    waymark_tests::install(&parts, &west);
    waymark_tests::install(&parts, &east);
    let db = rusqlite::Connection::open(built.join(format!("{name}-1/data.sqlite"))).unwrap();
    let mut stmt = db
        .prepare(
            "SELECT geometry, car, foot, bicycle FROM road_edges \
             WHERE highway NOT IN ('motorway', 'motorway_link', 'trunk_link') ORDER BY id",
        )
        .unwrap();
    let points = stmt
        .query_map([], |r| {
            let g: String = r.get(0)?;
            let flags = [
                r.get::<_, i64>(1)? != 0,
                r.get::<_, i64>(2)? != 0,
                r.get::<_, i64>(3)? != 0,
            ];
            Ok((g, flags))
        })
        .unwrap()
        .map(Result::unwrap)
        .filter_map(|(g, flags)| {
            let mut v = Vec::new();
            decode_polyline(&g, 6, &mut v).ok()?;
            // A point strictly inside the edge (a vertex, or the middle of a segment): it snaps
            // to that edge alone.
            let p = if v.len() >= 3 {
                v[v.len() / 2]
            } else {
                Pt::new((v[0].lat + v[1].lat) / 2.0, (v[0].lng + v[1].lng) / 2.0)
            };
            Some((p, flags))
        })
        .collect();
    drop(stmt);
    Region {
        name,
        cut,
        whole,
        parts,
        caller_whole: waymark_tests::private_caller(&pw),
        caller_parts: waymark_tests::private_caller(&pp),
        points,
        dbs: [&whole_dir, &west, &east].map(|d| d.join("data.sqlite")),
        _tmp: tmp,
    }
}

fn andorra() -> &'static Region {
    static R: OnceLock<Region> = OnceLock::new();
    R.get_or_init(|| build_region("andorra", 1.56))
}

fn neubrandenburg() -> &'static Region {
    static R: OnceLock<Region> = OnceLock::new();
    R.get_or_init(|| build_region("neubrandenburg", 13.27))
}

fn ll(p: Pt) -> LatLng {
    LatLng::new(p.lat, p.lng)
}

/// `n` random points usable by `mode` on each side of the cut, at least 300 m from it.
fn sides(r: &Region, mode: TravelMode, n: usize, seed: u64) -> (Vec<LatLng>, Vec<LatLng>) {
    let col = match mode {
        TravelMode::Walking => 1,
        TravelMode::Cycling => 2,
        _ => 0,
    };
    let usable: Vec<Pt> = r
        .points
        .iter()
        .filter(|(_, f)| f[col])
        .map(|(p, _)| *p)
        .collect();
    let margin = 0.004;
    let west: Vec<Pt> = usable
        .iter()
        .copied()
        .filter(|p| p.lng < r.cut - margin)
        .collect();
    let east: Vec<Pt> = usable
        .iter()
        .copied()
        .filter(|p| p.lng > r.cut + margin)
        .collect();
    let mut rng = waymark_tests::Rng::new(seed);
    let pick = |v: &[Pt], rng: &mut waymark_tests::Rng| -> Vec<LatLng> {
        (0..n).map(|_| ll(v[rng.below(v.len())])).collect()
    };
    (pick(&west, &mut rng), pick(&east, &mut rng))
}

fn matrix(e: &Arc<Engine>, c: &Caller, o: &[LatLng], d: &[LatLng], mode: TravelMode) -> MatrixData {
    let req = MatrixCreateRequest {
        origins: o.to_vec(),
        destinations: d.to_vec(),
        mode,
    };
    e.call_with(&Credentials::Http(c), req, |e, call, r| {
        e.distance_matrix_now(call, r)
    })
    .unwrap()
}

fn close(a: f64, b: f64, rel: f64, abs: f64) -> bool {
    (a - b).abs() <= (rel * a.abs().max(b.abs())).max(abs)
}

fn compare_matrices(r: &Region, mode: TravelMode, seed: u64) {
    let (west, east) = sides(r, mode, 40, seed);
    let whole = matrix(&r.whole, &r.caller_whole, &west, &east, mode);
    let parts = matrix(&r.parts, &r.caller_parts, &west, &east, mode);
    let mut filled = 0;
    for i in 0..whole.travel_times.len() {
        let (tw, tp) = (whole.travel_times[i], parts.travel_times[i]);
        let (dw, dp) = (whole.distances[i], parts.distances[i]);
        assert_eq!(
            tw.is_some(),
            tp.is_some(),
            "{} {mode:?} cell {i}: whole {tw:?}, joined {tp:?}",
            r.name
        );
        if let (Some(tw), Some(tp), Some(dw), Some(dp)) = (tw, tp, dw, dp) {
            filled += 1;
            assert!(
                close(tw, tp, 0.001, 0.2),
                "{} {mode:?} cell {i} ({:?} -> {:?}): time whole {tw} s, joined {tp} s",
                r.name,
                west[i / 40],
                east[i % 40]
            );
            assert!(
                close(dw, dp, 0.001, 1.0),
                "{} {mode:?} cell {i}: distance whole {dw} m, joined {dp} m",
                r.name
            );
        }
    }
    assert!(
        filled >= 1_000,
        "{} {mode:?}: only {filled} cells with a path",
        r.name
    );
}

/// Walking and cycling have no matrix (the spec's matrix modes are driving and truck): 1,000
/// routes each, compared cost by cost.
fn compare_route_costs(r: &Region, mode: TravelMode, seed: u64) {
    let (west, east) = sides(r, mode, 1_000, seed);
    let mut found = 0;
    for (o, d) in west.iter().zip(&east) {
        let req = RouteRequest {
            origin: *o,
            destination: *d,
            mode,
            ..Default::default()
        };
        let w = route(&r.whole, &r.caller_whole, req.clone());
        let p = route(&r.parts, &r.caller_parts, req);
        assert_eq!(w.status, p.status, "{} {mode:?} {o:?} -> {d:?}", r.name);
        if let (Some(rw), Some(rp)) = (w.routes.first(), p.routes.first()) {
            found += 1;
            let (lw, lp) = (&rw.legs[0], &rp.legs[0]);
            assert!(
                close(
                    lw.duration.value as f64,
                    lp.duration.value as f64,
                    0.001,
                    1.5
                ),
                "{} {mode:?} {o:?} -> {d:?}: whole {} s, joined {} s",
                r.name,
                lw.duration.value,
                lp.duration.value
            );
        }
    }
    assert!(found >= 900, "{} {mode:?}: only {found} routes", r.name);
}

#[test]
fn andorra_matrices_across_the_cut_equal_the_whole_pack() {
    let r = andorra();
    compare_matrices(r, TravelMode::Driving, 1);
    compare_matrices(r, TravelMode::Truck, 4);
    compare_route_costs(r, TravelMode::Walking, 2);
    compare_route_costs(r, TravelMode::Cycling, 3);
}

#[test]
fn neubrandenburg_matrices_across_the_cut_equal_the_whole_pack() {
    let r = neubrandenburg();
    compare_matrices(r, TravelMode::Driving, 11);
    compare_matrices(r, TravelMode::Truck, 14);
    compare_route_costs(r, TravelMode::Walking, 12);
    compare_route_costs(r, TravelMode::Cycling, 13);
}

fn route(e: &Arc<Engine>, c: &Caller, req: RouteRequest) -> RouteResponse {
    e.call(&Credentials::Http(c), req).unwrap()
}

fn pts(p: &str) -> Vec<Pt> {
    let mut v = Vec::new();
    decode_polyline(p, 5, &mut v).unwrap();
    v
}

fn compare_routes(r: &Region, mode: TravelMode, method: RouteMethod, seed: u64) {
    let (west, east) = sides(r, mode, 15, seed);
    for (o, d) in west.iter().zip(&east) {
        let req = RouteRequest {
            origin: *o,
            destination: *d,
            mode,
            method,
            details: DetailsLevel::Full,
            ..Default::default()
        };
        let w = route(&r.whole, &r.caller_whole, req.clone());
        let p = route(&r.parts, &r.caller_parts, req);
        assert_eq!(w.status, p.status, "{} {mode:?} {o:?} -> {d:?}", r.name);
        let (Some(rw), Some(rp)) = (w.routes.first(), p.routes.first()) else {
            continue;
        };
        let (lw, lp) = (&rw.legs[0], &rp.legs[0]);
        let metric = |l: &RouteLeg| match method {
            RouteMethod::Time => l.duration.value as f64,
            RouteMethod::Distance => l.distance.value as f64,
        };
        assert!(
            close(metric(lw), metric(lp), 0.001, 1.5),
            "{} {mode:?} {method:?} {o:?} -> {d:?}: whole {} / {} , joined {} / {}",
            r.name,
            lw.distance.value,
            lw.duration.value,
            lp.distance.value,
            lp.duration.value
        );
        // The geometry is whole: it runs from the start to the end without a gap.
        let line = pts(&rp.overview_polyline.points);
        assert!(
            haversine_m(
                line[0],
                Pt::new(lp.start_location.lat, lp.start_location.lng)
            ) < 5.0
        );
        let last = *line.last().unwrap();
        assert!(haversine_m(last, Pt::new(lp.end_location.lat, lp.end_location.lng)) < 5.0);
        for w in line.windows(2) {
            assert!(haversine_m(w[0], w[1]) < 3_000.0, "a gap in the geometry");
        }
        let steps = lp.steps.as_ref().expect("steps with details=full");
        let total: f64 = steps.iter().map(|s| s.distance.value as f64).sum();
        assert!(close(total, lp.distance.value as f64, 0.01, 20.0));
        assert_eq!(
            steps.last().map(|s| s.maneuver.clone()),
            Some("arrive".into())
        );
    }
}

#[test]
fn andorra_routes_across_the_cut_are_whole() {
    let r = andorra();
    compare_routes(r, TravelMode::Driving, RouteMethod::Time, 21);
    compare_routes(r, TravelMode::Walking, RouteMethod::Time, 22);
    compare_routes(r, TravelMode::Cycling, RouteMethod::Time, 23);
    compare_routes(r, TravelMode::Driving, RouteMethod::Distance, 24);
}

#[test]
fn a_route_across_the_cut_takes_waypoints_optimize_alternatives_and_avoid() {
    let r = andorra();
    // Andorra la Vella (west) to Encamp and Soldeu (east) and back west to Ordino.
    let alv = LatLng::new(42.5075, 1.5218);
    let encamp = LatLng::new(42.5347, 1.5805);
    let soldeu = LatLng::new(42.5766, 1.6677);
    let ordino = LatLng::new(42.5560, 1.5331);
    for optimize in [false, true] {
        let req = RouteRequest {
            origin: alv,
            destination: ordino,
            waypoints: Waypoints {
                optimize,
                points: vec![soldeu, encamp],
            },
            ..Default::default()
        };
        let w = route(&r.whole, &r.caller_whole, req.clone());
        let p = route(&r.parts, &r.caller_parts, req);
        assert_eq!(p.status, DistanceStatus::Ok, "optimize {optimize}");
        let order = |x: &RouteResponse| -> Vec<u32> {
            x.routes[0].legs.iter().map(|l| l.start_waypoint).collect()
        };
        assert_eq!(order(&w), order(&p));
        let total = |x: &RouteResponse| -> f64 {
            x.routes[0]
                .legs
                .iter()
                .map(|l| l.duration.value as f64)
                .sum()
        };
        assert!(
            close(total(&w), total(&p), 0.001, 3.0),
            "{} {}",
            total(&w),
            total(&p)
        );
    }
    let req = RouteRequest {
        origin: alv,
        destination: soldeu,
        alternatives: true,
        ..Default::default()
    };
    let p = route(&r.parts, &r.caller_parts, req);
    assert_eq!(p.status, DistanceStatus::Ok);
    assert!(p.routes[0].recommended);
    let req = RouteRequest {
        origin: alv,
        destination: soldeu,
        avoid: vec![RouteAvoid::Tolls],
        ..Default::default()
    };
    let w = route(&r.whole, &r.caller_whole, req.clone());
    let p = route(&r.parts, &r.caller_parts, req);
    assert_eq!(w.status, p.status);
    assert!(close(
        w.routes[0].legs[0].duration.value as f64,
        p.routes[0].legs[0].duration.value as f64,
        0.001,
        1.5
    ));
}

#[test]
fn tolls_across_the_cut_come_from_the_pack_that_has_them() {
    let r = andorra();
    // Andorra la Vella to Pas de la Casa through the Túnel d'Envalira (east part).
    let req = TollsRequest {
        origin: LatLng::new(42.5075, 1.5218),
        destination: LatLng::new(42.5428, 1.7330),
        ..Default::default()
    };
    let w: TollsResponse = r
        .whole
        .call(&Credentials::Http(&r.caller_whole), req.clone())
        .unwrap();
    let p: TollsResponse = r
        .parts
        .call(&Credentials::Http(&r.caller_parts), req)
        .unwrap();
    assert_eq!(w.status, p.status);
    let tolls = |x: &TollsResponse| -> Vec<(String, usize)> {
        x.routes[0]
            .legs
            .iter()
            .flat_map(|l| l.tolls.iter())
            .map(|t| (t.country_code.clone(), t.fares.len()))
            .collect()
    };
    assert!(
        !tolls(&w).is_empty(),
        "the whole pack has the tunnel's toll"
    );
    assert_eq!(tolls(&w), tolls(&p));
}

/// The outline of an isochrone as a polygon in degrees.
fn outline(x: &IsochroneResponse) -> Polygon<f64> {
    let geometry = match &x.isoline {
        Isoline::Time(t) => &t.geometry,
        Isoline::Distance(d) => &d.geometry,
    };
    let ring: Vec<Coord<f64>> = pts(geometry)
        .into_iter()
        .map(|p| Coord { x: p.lng, y: p.lat })
        .collect();
    Polygon::new(LineString::new(ring), vec![])
}

#[test]
fn isochrones_spread_across_the_cut() {
    let r = andorra();
    for (origin, mode, minutes) in [
        (LatLng::new(42.5275, 1.5553), TravelMode::Driving, 10.0),
        (LatLng::new(42.5347, 1.5805), TravelMode::Driving, 15.0),
        (LatLng::new(42.5310, 1.5560), TravelMode::Walking, 20.0),
    ] {
        let req = IsochroneRequest {
            origin,
            value: minutes,
            mode,
            ..Default::default()
        };
        let w: IsochroneResponse = r
            .whole
            .call(&Credentials::Http(&r.caller_whole), req.clone())
            .unwrap();
        let p: IsochroneResponse = r
            .parts
            .call(&Credentials::Http(&r.caller_parts), req)
            .unwrap();
        let (a, b) = (outline(&w), outline(&p));
        let inter = a.intersection(&b).unsigned_area();
        let union = a.union(&b).unsigned_area();
        let iou = inter / union;
        assert!(iou >= 0.95, "{origin:?} {mode:?}: IoU {iou:.3}");
        // It does reach across the cut.
        assert!(b.exterior().0.iter().any(|c| c.x < r.cut));
        assert!(b.exterior().0.iter().any(|c| c.x > r.cut));
    }
}

#[test]
fn a_chain_of_three_parts_joins_and_the_middle_can_be_removed_while_serving() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("built");
    let a = waymark_tests::cut_pack("ad-a", "andorra", Some("30,-10,60,1.53"), &out);
    let b = waymark_tests::cut_pack("ad-b", "andorra", Some("30,1.53,60,1.60"), &out);
    let c = waymark_tests::cut_pack("ad-c", "andorra", Some("30,1.60,60,30"), &out);
    let p = Publisher::generate().unwrap();
    for d in [&a, &b, &c] {
        build::sign_pack(d, &p).unwrap();
    }
    let e = waymark_tests::open_engine(&tmp.path().join("s"), &tmp.path().join("p"), &p);
    for d in [&a, &b, &c] {
        waymark_tests::install(&e, d);
    }
    let caller = waymark_tests::private_caller(&p);
    // Sant Julià (A) to Soldeu (C), through B.
    let across = RouteRequest {
        origin: LatLng::new(42.4637, 1.4913),
        destination: LatLng::new(42.5766, 1.6677),
        ..Default::default()
    };
    let inside_a = RouteRequest {
        origin: LatLng::new(42.4637, 1.4913),
        destination: LatLng::new(42.5075, 1.5218),
        ..Default::default()
    };
    let first = route(&e, &caller, across.clone());
    assert_eq!(first.status, DistanceStatus::Ok);
    let whole = andorra();
    let w = route(&whole.whole, &whole.caller_whole, across.clone());
    assert!(close(
        w.routes[0].legs[0].duration.value as f64,
        first.routes[0].legs[0].duration.value as f64,
        0.001,
        1.5
    ));
    // Removing B while other threads keep asking: every answer is whole or ZERO_RESULTS.
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let workers: Vec<_> = (0..2)
        .map(|_| {
            let e = e.clone();
            let caller = caller.clone();
            let across = across.clone();
            let stop = stop.clone();
            std::thread::spawn(move || {
                let mut n = 0;
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    let r = route(&e, &caller, across.clone());
                    assert!(matches!(
                        r.status,
                        DistanceStatus::Ok | DistanceStatus::ZeroResults
                    ));
                    n += 1;
                }
                n
            })
        })
        .collect();
    std::thread::sleep(std::time::Duration::from_millis(200));
    e.remove_pack("ad-b").unwrap();
    std::thread::sleep(std::time::Duration::from_millis(200));
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    for w in workers {
        assert!(w.join().unwrap() > 0);
    }
    // A and C no longer meet: the trip ends at A's border (a dead end, not an error).
    assert_eq!(
        route(&e, &caller, across).status,
        DistanceStatus::ZeroResults
    );
    assert_eq!(route(&e, &caller, inside_a).status, DistanceStatus::Ok);
}

#[test]
fn packs_of_different_publishers_do_not_join_and_each_answers_alone() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("built");
    let west = waymark_tests::cut_pack("m-west", "andorra", Some(&west_box(1.56)), &out);
    let east = waymark_tests::cut_pack("m-east", "andorra", Some(&east_box(1.56)), &out);
    let (p1, p2) = (
        Publisher::generate().unwrap(),
        Publisher::generate().unwrap(),
    );
    build::sign_pack(&west, &p1).unwrap();
    build::sign_pack(&east, &p2).unwrap();
    let mut config = waymark_core::EngineConfig::new(
        &tmp.path().join("s"),
        vec![p1.verifying(), p2.verifying()],
    );
    config.rate_limits = waymark_core::auth::RateLimitMode::Off;
    config.packs_dir = Some(tmp.path().join("p"));
    let e = Arc::new(Engine::open(config).unwrap());
    waymark_tests::install(&e, &west);
    waymark_tests::install(&e, &east);
    let caller = waymark_tests::private_caller(&p1);
    let across = RouteRequest {
        origin: LatLng::new(42.5075, 1.5218),
        destination: LatLng::new(42.5766, 1.6677),
        ..Default::default()
    };
    assert_eq!(
        route(&e, &caller, across).status,
        DistanceStatus::ZeroResults
    );
    for (o, d) in [
        (LatLng::new(42.5075, 1.5218), LatLng::new(42.4637, 1.4913)),
        (LatLng::new(42.5766, 1.6677), LatLng::new(42.5428, 1.7330)),
    ] {
        let r = route(
            &e,
            &caller,
            RouteRequest {
                origin: o,
                destination: d,
                ..Default::default()
            },
        );
        assert_eq!(r.status, DistanceStatus::Ok);
    }
}

fn build_err(bbox: Option<&str>, polygon: Option<&Path>, out: &Path) -> String {
    let mut plan = waymark_tests::routing_plan("andorra");
    plan.id = "bad-cut".into();
    let region = match (bbox, polygon) {
        (Some(b), _) => waymark_packs::cut::Region::from_bbox_arg(b),
        (None, Some(p)) => waymark_packs::cut::Region::from_polygon_file(p),
        _ => unreachable!(),
    };
    let region = match region {
        Ok(r) => r,
        Err(e) => return e.to_string(),
    };
    let options = build::BuildOptions {
        region: Some(region),
        ..Default::default()
    };
    build::build_pack_with(
        &plan,
        "1",
        &waymark_tests::sources(),
        out,
        &options,
        &mut |_, _, _| {},
    )
    .unwrap_err()
    .to_string()
}

#[test]
fn a_cut_that_does_not_fit_names_its_argument_and_writes_no_pack() {
    let tmp = tempfile::tempdir().unwrap();
    let out: PathBuf = tmp.path().join("built");
    let e = build_err(Some("10,10,11,11"), None, &out);
    assert!(
        e.contains("--bbox 10,10,11,11") && e.contains("outside the extract"),
        "{e}"
    );
    // Inside the extract's box, in its empty corner (south-west of Andorra, in Spain).
    let e = build_err(Some("42.4290,1.4080,42.4295,1.4085"), None, &out);
    assert!(e.contains("--bbox") && e.contains("empty"), "{e}");
    let e = build_err(Some("42.6,1.4,42.4,1.5"), None, &out);
    assert!(
        e.contains("--bbox") && e.contains("SOUTH must be less than NORTH"),
        "{e}"
    );
    let f = tmp.path().join("bad.geojson");
    std::fs::write(&f, "{\"type\": \"Polygon\", \"coordinates\": [[1, 2]]}").unwrap();
    let e = build_err(None, Some(&f), &out);
    assert!(e.contains("--polygon") && e.contains("bad.geojson"), "{e}");
    let left: Vec<_> = std::fs::read_dir(&out)
        .map(|d| d.map(|e| e.unwrap().file_name()).collect())
        .unwrap_or_default();
    assert!(left.is_empty(), "no pack written: {left:?}");
}

/// Addresses of the whole pack on each side of the cut: `"street housenumber"`.
fn addresses(r: &Region, n: usize, seed: u64) -> Vec<String> {
    let db = rusqlite::Connection::open(
        r._tmp
            .path()
            .join(format!("built/{}-1/data.sqlite", r.name)),
    )
    .unwrap();
    let mut stmt = db
        .prepare(
            "SELECT street, housenumber, lng FROM addresses WHERE street IS NOT NULL ORDER BY id",
        )
        .unwrap();
    let all: Vec<(String, f64)> = stmt
        .query_map([], |x| {
            Ok((
                format!("{} {}", x.get::<_, String>(0)?, x.get::<_, String>(1)?),
                x.get(2)?,
            ))
        })
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let mut rng = waymark_tests::Rng::new(seed);
    let west: Vec<&(String, f64)> = all.iter().filter(|a| a.1 < r.cut).collect();
    let east: Vec<&(String, f64)> = all.iter().filter(|a| a.1 >= r.cut).collect();
    let mut out = Vec::new();
    for side in [&west, &east] {
        for _ in 0..n {
            out.push(side[rng.below(side.len())].0.clone());
        }
    }
    out
}

#[test]
fn localities_answer_as_one_pack_across_the_parts() {
    for r in [andorra(), neubrandenburg()] {
        let (mut same_geo, mut same_auto, mut total) = (0, 0, 0);
        for a in addresses(r, 25, 31) {
            total += 1;
            let g = GeocodeRequest {
                address: Some(a.clone()),
                ..Default::default()
            };
            let w: GeocodeResponse = r
                .whole
                .call(&Credentials::Http(&r.caller_whole), g.clone())
                .unwrap();
            let p: GeocodeResponse = r
                .parts
                .call(&Credentials::Http(&r.caller_parts), g)
                .unwrap();
            let first = |x: &GeocodeResponse| x.results.first().map(|r| r.public_id.clone());
            if first(&w) == first(&p) {
                same_geo += 1;
            } else {
                eprintln!(
                    "{}: geocode {a:?}: whole {:?}, parts {:?}",
                    r.name,
                    first(&w),
                    first(&p)
                );
            }
            // No answer twice: the same OSM object in both parts is one answer.
            let ids: Vec<&String> = p.results.iter().map(|x| &x.public_id).collect();
            let unique: std::collections::HashSet<&&String> = ids.iter().collect();
            assert_eq!(ids.len(), unique.len(), "{a:?}: {ids:?}");
            let q = AutocompleteRequest {
                input: a.clone(),
                ..Default::default()
            };
            let w: AutocompleteResponse = r
                .whole
                .call(&Credentials::Http(&r.caller_whole), q.clone())
                .unwrap();
            let p: AutocompleteResponse = r
                .parts
                .call(&Credentials::Http(&r.caller_parts), q)
                .unwrap();
            let first =
                |x: &AutocompleteResponse| x.localities.first().map(|l| l.public_id.clone());
            if first(&w) == first(&p) {
                same_auto += 1;
            } else {
                let top = |x: &AutocompleteResponse| {
                    x.localities
                        .iter()
                        .take(3)
                        .map(|l| format!("{} {}", l.public_id, l.description))
                        .collect::<Vec<_>>()
                };
                eprintln!(
                    "{}: autocomplete {a:?}: whole {:?}, parts {:?}",
                    r.name,
                    top(&w),
                    top(&p)
                );
            }
            let ids: Vec<&String> = p.localities.iter().map(|x| &x.public_id).collect();
            let unique: std::collections::HashSet<&&String> = ids.iter().collect();
            assert_eq!(ids.len(), unique.len(), "{a:?}: {ids:?}");
        }
        assert_eq!(same_geo, total, "{}: geocode first answers", r.name);
        assert_eq!(same_auto, total, "{}: autocomplete first answers", r.name);
    }
}

/// A part stores, for every node, the road density that node has in the whole region
/// (measured by the builder before the cut), where a density measured over the part's own
/// roads differs near the cut; the whole pack stores none (it measures its own roads).
#[test]
fn parts_store_the_road_density_of_the_whole_region() {
    use std::collections::HashMap;
    use waymark_core::routing::density::node_density;
    use waymark_core::routing::network::RoadNetwork;
    for r in [andorra(), neubrandenburg()] {
        let load = |p: &Path| RoadNetwork::load(&rusqlite::Connection::open(p).unwrap()).unwrap();
        let stores = |p: &Path| -> bool {
            rusqlite::Connection::open(p)
                .unwrap()
                .query_row(
                    "SELECT count(*) > 0 FROM sqlite_master WHERE name = 'road_node_density'",
                    [],
                    |row| row.get(0),
                )
                .unwrap()
        };
        // The whole extract's pack stores no density: it measures its own roads, which are
        // the whole extract's.
        assert!(
            !stores(&r.dbs[0]),
            "{}: whole pack stores densities",
            r.name
        );
        let whole = load(&r.dbs[0]);
        assert_eq!(
            &whole.density[..],
            &node_density(&whole)[..],
            "{}: whole pack",
            r.name
        );
        assert!(
            whole.density.iter().any(|&d| d >= 8.0),
            "{}: no built-up node",
            r.name
        );
        let of: HashMap<i64, f32> = whole
            .node_osm
            .iter()
            .copied()
            .zip(whole.density.iter().copied())
            .collect();
        for db in &r.dbs[1..] {
            assert!(stores(db), "{}: a part stores no densities", r.name);
            let part = load(db);
            let own = node_density(&part);
            let (mut same, mut differs_own) = (0, 0);
            for (i, osm) in part.node_osm.iter().enumerate() {
                let Some(&d) = of.get(osm) else {
                    continue;
                };
                assert_eq!(part.density[i], d, "{}: node {osm}", r.name);
                same += 1;
                if (own[i] - d).abs() > 0.5 {
                    differs_own += 1;
                }
            }
            assert!(
                same * 10 > part.nodes.len() * 9,
                "{}: {same} of {}",
                r.name,
                part.nodes.len()
            );
            assert!(
                differs_own > 0,
                "{}: no node near the cut measures differently",
                r.name
            );
        }
    }
}
