//! The distance group through the Engine on a real Andorra pack (roads, places, addresses,
//! routing graphs, timezones): routes with every parameter, avoid options, alternatives,
//! waypoints, time of day, statuses, tolls on the Túnel d'Envalira, and isochrones.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::{Arc, OnceLock};

use waymark_core::Engine;
use waymark_core::api::*;
use waymark_core::auth::Caller;
use waymark_core::geo::{LocalProjection, Pt, decode_polyline, haversine_m, ring_contains};
use waymark_core::operation::Credentials;

struct Fixture {
    _tmp: tempfile::TempDir,
    engine: Arc<Engine>,
    caller: Caller,
}

fn fixture() -> &'static Fixture {
    static F: OnceLock<Fixture> = OnceLock::new();
    F.get_or_init(|| {
        let tmp = tempfile::tempdir().unwrap();
        let mut plan = waymark_tests::routing_plan("andorra");
        plan.layers.push("timezones".into());
        let (engine, publisher) = waymark_tests::engine_with_pack(&plan, tmp.path());
        // The prepared graphs were installed with the pack (listed and verified like any file):
        // one per profile, in the time metric only (ADR 0006).
        let pack = engine.packs().snapshot().get("andorra").unwrap().clone();
        for profile in ["driving", "truck", "walking", "cycling"] {
            let rel = format!("routing/{profile}-time.fp");
            assert!(
                pack.manifest
                    .files
                    .iter()
                    .any(|f| f.path == rel && f.sha256.len() == 64)
            );
            assert!(pack.path(&rel).is_file(), "{rel} installed");
            let distance = format!("routing/{profile}-distance.fp");
            assert!(!pack.manifest.files.iter().any(|f| f.path == distance));
        }
        Fixture {
            _tmp: tmp,
            engine,
            caller: waymark_tests::private_caller(&publisher),
        }
    })
}

// Andorra la Vella (Plaça del Poble), Encamp, Soldeu, Pas de la Casa.
const ANDORRA_LA_VELLA: LatLng = LatLng::new(42.5075, 1.5218);
const ENCAMP: LatLng = LatLng::new(42.5347, 1.5805);
const SOLDEU: LatLng = LatLng::new(42.5766, 1.6677);
const PAS_DE_LA_CASA: LatLng = LatLng::new(42.5428, 1.7330);
const ORDINO: LatLng = LatLng::new(42.5560, 1.5331);
const SANT_JULIA: LatLng = LatLng::new(42.4637, 1.4913);

fn route(req: RouteRequest) -> RouteResponse {
    let f = fixture();
    f.engine.call(&Credentials::Http(&f.caller), req).unwrap()
}

fn trip(origin: LatLng, destination: LatLng) -> RouteRequest {
    RouteRequest {
        origin,
        destination,
        ..Default::default()
    }
}

fn points(p: &str) -> Vec<Pt> {
    let mut v = Vec::new();
    decode_polyline(p, 5, &mut v).unwrap();
    v
}

fn near(a: Pt, b: LatLng, m: f64) -> bool {
    haversine_m(a, Pt::new(b.lat, b.lng)) <= m
}

#[test]
fn a_route_has_geometry_bounds_addresses_and_a_plausible_length() {
    let r = route(trip(ANDORRA_LA_VELLA, ENCAMP));
    assert_eq!(r.status, DistanceStatus::Ok);
    assert_eq!(r.routes.len(), 1);
    let route = &r.routes[0];
    assert!(route.recommended);
    let leg = &route.legs[0];
    let crow = haversine_m(
        Pt::new(ANDORRA_LA_VELLA.lat, ANDORRA_LA_VELLA.lng),
        Pt::new(ENCAMP.lat, ENCAMP.lng),
    );
    assert!(
        leg.distance.value as f64 > crow && (leg.distance.value as f64) < crow * 2.0,
        "{} m for {crow} m",
        leg.distance.value
    );
    // 6 km through the valley: between 5 and 25 minutes by car.
    assert!(
        (300..1500).contains(&leg.duration.value),
        "{:?}",
        leg.duration
    );
    assert!(leg.distance.text.ends_with(" km"), "{}", leg.distance.text);
    assert!(leg.steps.is_none(), "no steps without details=full");
    assert!(leg.duration_without_traffic.is_none());
    assert_eq!((leg.start_waypoint, leg.end_waypoint), (0, 1));
    assert!(leg.start_address.is_some() && leg.end_address.is_some());
    let pts = points(&route.overview_polyline.points);
    assert!(pts.len() > 10);
    assert!(near(pts[0], ANDORRA_LA_VELLA, 200.0), "{:?}", pts[0]);
    assert!(near(*pts.last().unwrap(), ENCAMP, 200.0));
    for p in &pts {
        assert!(
            route.bounds.contains(LatLng::new(p.lat, p.lng))
                || (p.lat - route.bounds.northeast.lat).abs() < 1e-5
                || (p.lng - route.bounds.northeast.lng).abs() < 1e-5
                || (p.lat - route.bounds.southwest.lat).abs() < 1e-5
                || (p.lng - route.bounds.southwest.lng).abs() < 1e-5
        );
    }
    assert!(!route.main_route_name.is_empty());
    // The shortest route is not longer than the fastest one.
    let short = route_len(RouteRequest {
        method: RouteMethod::Distance,
        ..trip(ANDORRA_LA_VELLA, ENCAMP)
    });
    assert!(
        short <= leg.distance.value,
        "{short} > {}",
        leg.distance.value
    );
}

fn route_len(req: RouteRequest) -> u64 {
    route(req).routes[0]
        .legs
        .iter()
        .map(|l| l.distance.value)
        .sum()
}

#[test]
fn full_details_give_localized_steps_that_add_up() {
    for (lang, word) in [
        (RouteLanguage::En, "Head"),
        (RouteLanguage::Fr, "Prendre la direction"),
        (RouteLanguage::Ca, "Dirigiu-vos"),
        (RouteLanguage::Ja, "進みます"),
    ] {
        let r = route(RouteRequest {
            details: DetailsLevel::Full,
            language: Some(lang),
            units: Units::Imperial,
            ..trip(ANDORRA_LA_VELLA, ORDINO)
        });
        let leg = &r.routes[0].legs[0];
        let steps = leg.steps.as_ref().unwrap();
        assert!(steps.len() >= 3, "{steps:?}");
        assert_eq!(steps[0].maneuver, "depart");
        assert!(
            steps[0].instruction.contains(word),
            "{}",
            steps[0].instruction
        );
        assert_eq!(steps.last().unwrap().maneuver, "arrive");
        let sum: u64 = steps.iter().map(|s| s.distance.value).sum();
        assert!(
            (sum as i64 - leg.distance.value as i64).abs() <= steps.len() as i64,
            "{sum} vs {}",
            leg.distance.value
        );
        assert!(
            leg.distance.text.ends_with(" mi") || leg.distance.text.ends_with("マイル"),
            "{}",
            leg.distance.text
        );
        for s in steps {
            assert!(!s.instruction.contains('{'));
            assert!(!points(&s.polyline.points).is_empty());
        }
    }
    // Accept-Language when `language` is absent.
    let r = route(RouteRequest {
        details: DetailsLevel::Full,
        accept_language: Some("de-AT,de;q=0.9".into()),
        ..trip(ANDORRA_LA_VELLA, ORDINO)
    });
    let steps = r.routes[0].legs[0].steps.as_ref().unwrap();
    assert!(
        steps[0].instruction.contains("Richtung"),
        "{}",
        steps[0].instruction
    );
}

#[test]
fn alternatives_are_different_and_only_the_first_is_recommended() {
    let r = route(RouteRequest {
        alternatives: true,
        ..trip(ANDORRA_LA_VELLA, ENCAMP)
    });
    assert_eq!(r.status, DistanceStatus::Ok);
    assert!(
        (2..=3).contains(&r.routes.len()),
        "{} routes",
        r.routes.len()
    );
    assert!(r.routes[0].recommended);
    assert!(r.routes[1..].iter().all(|x| !x.recommended));
    assert!(r.routes.iter().all(|x| !x.main_route_name.is_empty()));
    let best = r.routes[0].legs[0].duration.value;
    for alt in &r.routes[1..] {
        assert_ne!(alt.overview_polyline, r.routes[0].overview_polyline);
        assert!(alt.legs[0].duration.value >= best);
        assert!((alt.legs[0].duration.value as f64) <= best as f64 * 1.5);
    }
}

#[test]
fn shortest_distance_alternatives_start_with_the_shortest_route() {
    // No distance hierarchy (ADR 0006): the directed search gives the route, the penalty
    // method its alternatives.
    let req = RouteRequest {
        method: RouteMethod::Distance,
        ..trip(ANDORRA_LA_VELLA, ENCAMP)
    };
    let one = route(req.clone());
    let r = route(RouteRequest {
        alternatives: true,
        ..req
    });
    assert_eq!(r.status, DistanceStatus::Ok);
    assert!((1..=3).contains(&r.routes.len()));
    assert_eq!(
        r.routes[0].legs[0].distance.value,
        one.routes[0].legs[0].distance.value
    );
    let fastest = route(trip(ANDORRA_LA_VELLA, ENCAMP));
    assert!(one.routes[0].legs[0].distance.value <= fastest.routes[0].legs[0].distance.value);
    for alt in &r.routes[1..] {
        assert_ne!(alt.overview_polyline, r.routes[0].overview_polyline);
        assert!(alt.legs[0].distance.value >= one.routes[0].legs[0].distance.value);
    }
}

#[test]
fn without_a_genuine_alternative_one_route_comes_back() {
    // Sant Julià → Encamp: every other way is a long detour through the mountains.
    let r = route(RouteRequest {
        alternatives: true,
        ..trip(SANT_JULIA, ENCAMP)
    });
    assert_eq!(r.status, DistanceStatus::Ok);
    assert!(!r.routes.is_empty() && r.routes.len() <= 3);
    assert!(r.routes[0].recommended);
}

#[test]
fn waypoints_in_order_and_optimized() {
    // Given in a poor order: Encamp then Ordino between Sant Julià and Soldeu... Ordino is
    // off the way, so either order is a detour, but Ordino first then Encamp is shorter.
    let given = RouteRequest {
        waypoints: Waypoints {
            optimize: false,
            points: vec![ENCAMP, ORDINO],
        },
        ..trip(ANDORRA_LA_VELLA, SOLDEU)
    };
    let r = route(given.clone());
    let legs = &r.routes[0].legs;
    assert_eq!(legs.len(), 3);
    assert_eq!(
        legs.iter()
            .map(|l| (l.start_waypoint, l.end_waypoint))
            .collect::<Vec<_>>(),
        vec![(0, 1), (1, 2), (2, 3)]
    );
    let o = route(RouteRequest {
        waypoints: Waypoints {
            optimize: true,
            points: vec![ENCAMP, ORDINO],
        },
        ..given
    });
    let olegs = &o.routes[0].legs;
    assert_eq!(
        olegs
            .iter()
            .map(|l| (l.start_waypoint, l.end_waypoint))
            .collect::<Vec<_>>(),
        vec![(0, 2), (2, 1), (1, 3)],
        "Ordino (index 2) is visited before Encamp (index 1)"
    );
    let total = |legs: &[RouteLeg]| legs.iter().map(|l| l.duration.value).sum::<u64>();
    assert!(total(olegs) <= total(legs));
}

#[test]
fn statuses_for_far_and_uncovered_points() {
    let r = route(trip(ANDORRA_LA_VELLA, LatLng::new(60.17, 24.94)));
    assert_eq!(r.status, DistanceStatus::MaxRouteLengthExceeded);
    assert!(r.routes.is_empty());
    // Monaco is < 500 km away but no installed pack covers both points.
    let r = route(trip(ANDORRA_LA_VELLA, LatLng::new(43.7384, 7.4246)));
    assert_eq!(r.status, DistanceStatus::ZeroResults);
}

#[test]
fn time_of_day_changes_duration_and_keeps_the_free_flow_duration() {
    // Tuesday 2026-11-24 08:00 CET = 07:00 UTC.
    let peak = 1_795_503_600;
    let r = route(RouteRequest {
        departure_time: Some(TrafficTime::At(peak)),
        ..trip(ANDORRA_LA_VELLA, ENCAMP)
    });
    let leg = &r.routes[0].legs[0];
    let free = leg.duration_without_traffic.as_ref().unwrap().value;
    assert!(
        leg.duration.value > free,
        "{} vs {free}",
        leg.duration.value
    );
    // Sunday 03:00 CET.
    let night = 1_795_312_800;
    let r = route(RouteRequest {
        arrival_time: Some(TrafficTime::At(night)),
        ..trip(ANDORRA_LA_VELLA, ENCAMP)
    });
    let leg = &r.routes[0].legs[0];
    assert_eq!(
        leg.duration.value,
        leg.duration_without_traffic.as_ref().unwrap().value
    );
    // Walking ignores traffic.
    let r = route(RouteRequest {
        mode: TravelMode::Walking,
        departure_time: Some(TrafficTime::At(peak)),
        ..trip(ANDORRA_LA_VELLA, ENCAMP)
    });
    let leg = &r.routes[0].legs[0];
    assert_eq!(
        leg.duration.value,
        leg.duration_without_traffic.as_ref().unwrap().value
    );
    assert!(leg.duration.value > 3600, "6 km on foot");
}

fn tolls(mode: TravelMode) -> TollsResponse {
    let f = fixture();
    f.engine
        .call(
            &Credentials::Http(&f.caller),
            TollsRequest {
                origin: SOLDEU,
                destination: PAS_DE_LA_CASA,
                mode,
                ..Default::default()
            },
        )
        .unwrap()
}

#[test]
fn the_envalira_tunnel_is_tolled_with_labelled_made_up_fares() {
    let r = tolls(TravelMode::Driving);
    assert_eq!(r.status, DistanceStatus::Ok);
    let leg = &r.routes[0].legs[0];
    assert!(
        !leg.tolls.is_empty(),
        "the fastest way is the tunnel: {leg:?}"
    );
    assert!(
        leg.toll_systems.iter().any(|s| s.name.contains("Envalira")),
        "{:?}",
        leg.toll_systems
    );
    let t = &leg.tolls[0];
    assert_eq!(t.country_code, "AND");
    assert_eq!(
        leg.toll_systems[t.toll_system_ref as usize].name,
        t.toll_system
    );
    let fare = &t.fares[0];
    assert!(fare.name.contains("made-up"), "{}", fare.name);
    assert!(fare.id.starts_with("madeup:"));
    assert_eq!(fare.price.currency, "EUR");
    assert!(!t.toll_collection_locations.is_empty());
    let truck = tolls(TravelMode::Truck);
    let tf = &truck.routes[0].legs[0].tolls[0].fares[0];
    assert!(tf.price.value > fare.price.value, "trucks pay more");
    // Walking pays no toll.
    let walk = tolls(TravelMode::Walking);
    assert!(walk.routes[0].legs[0].tolls.is_empty());
}

#[test]
fn avoiding_tolls_takes_the_pass_instead_of_the_tunnel() {
    let base = trip(SOLDEU, PAS_DE_LA_CASA);
    let tunnel = route(base.clone());
    let pass = route(RouteRequest {
        avoid: vec![RouteAvoid::Tolls],
        ..base.clone()
    });
    assert_eq!(pass.status, DistanceStatus::Ok);
    assert!(pass.routes[0].notice.is_none());
    assert_ne!(
        pass.routes[0].overview_polyline,
        tunnel.routes[0].overview_polyline
    );
    // Over the Port d'Envalira (2,408 m): the route climbs north of the tunnel.
    let top = points(&pass.routes[0].overview_polyline.points)
        .iter()
        .map(|p| p.lat)
        .fold(f64::MIN, f64::max);
    let tunnel_top = points(&tunnel.routes[0].overview_polyline.points)
        .iter()
        .map(|p| p.lat)
        .fold(f64::MIN, f64::max);
    assert!(top >= tunnel_top);
    // A polygon around the tunnel's portals has the same effect.
    let poly = RouteAvoid::Polygon(vec![
        LatLng::new(42.545, 1.690),
        LatLng::new(42.545, 1.720),
        LatLng::new(42.560, 1.720),
        LatLng::new(42.560, 1.690),
    ]);
    let around = route(RouteRequest {
        avoid: vec![poly],
        ..base
    });
    assert_eq!(around.status, DistanceStatus::Ok);
}

#[test]
fn isochrones_grow_with_the_budget_and_follow_the_network() {
    let f = fixture();
    let iso = |mode, method, value| {
        f.engine
            .call(
                &Credentials::Http(&f.caller),
                IsochroneRequest {
                    origin: ANDORRA_LA_VELLA,
                    value,
                    mode,
                    method,
                    ..Default::default()
                },
            )
            .unwrap()
    };
    let area = |r: &IsochroneResponse| -> (f64, Vec<Pt>) {
        let g = match &r.isoline {
            Isoline::Time(t) => &t.geometry,
            Isoline::Distance(d) => &d.geometry,
        };
        let ring = points(g);
        assert!(ring.len() >= 4);
        assert_eq!(ring.first(), ring.last(), "closed ring");
        let mut a = 0.0;
        for w in ring.windows(2) {
            a += w[0].lng * w[1].lat - w[1].lng * w[0].lat;
        }
        (a.abs() / 2.0, ring)
    };
    let small = iso(TravelMode::Driving, RouteMethod::Time, 5.0);
    let big = iso(TravelMode::Driving, RouteMethod::Time, 30.0);
    assert_eq!(small.status, DistanceStatus::Ok);
    let Isoline::Time(t) = &big.isoline else {
        panic!("time variant")
    };
    assert_eq!(t.time.value, 1800);
    let (a_small, ring_small) = area(&small);
    let (a_big, ring_big) = area(&big);
    assert!(a_big > a_small * 2.0, "{a_big} vs {a_small}");
    // The origin is inside; the outline is not convex (Andorra's valleys).
    assert!(ring_contains(
        &ring_small,
        Pt::new(ANDORRA_LA_VELLA.lat, ANDORRA_LA_VELLA.lng)
    ));
    let hull = convex_area(&ring_big);
    assert!(
        a_big < hull * 0.85,
        "outline {a_big} vs its convex hull {hull}"
    );
    let walk = iso(TravelMode::Walking, RouteMethod::Time, 10.0);
    let (a_walk, _) = area(&walk);
    assert!(a_walk < a_small);
    let dist = iso(TravelMode::Driving, RouteMethod::Distance, 3.0);
    let Isoline::Distance(d) = &dist.isoline else {
        panic!("distance variant")
    };
    assert_eq!(d.distance.value, 3000.0);
    assert_eq!(d.distance.text, "3.0 km");
}

/// An outline computed on two threads (the reached pieces read beside the search, the field
/// marked in two halves) is the outline computed on one, point for point: with the default
/// batches, with batches small enough that every reach here is handed over many times, and
/// with one arc a batch; for long and short reaches, both metrics, and an avoid option.
#[test]
fn isochrones_on_two_threads_are_those_on_one() {
    use waymark_core::distance::isochrone::{Threads, outline_on};
    use waymark_core::routing::{Metric, Profile};
    let f = fixture();
    let set = f.engine.packs().snapshot();
    let packs = waymark_core::distance::RoutingPacks::new(&set);
    let questions = [
        (
            ANDORRA_LA_VELLA,
            Profile::Driving,
            Metric::Time,
            1_800_000,
            vec![],
        ),
        (
            ENCAMP,
            Profile::Driving,
            Metric::Time,
            600_000,
            vec![RouteAvoid::Tolls],
        ),
        (ORDINO, Profile::Walking, Metric::Time, 900_000, vec![]),
        (
            SANT_JULIA,
            Profile::Cycling,
            Metric::Distance,
            800_000,
            vec![],
        ),
        (SOLDEU, Profile::Driving, Metric::Time, 60_000, vec![]),
    ];
    for (origin, profile, metric, budget, avoid) in questions {
        let at = Pt::new(origin.lat, origin.lng);
        let rp = packs.for_area(at).unwrap().unwrap();
        let one = outline_on(&rp, at, profile, metric, budget, &avoid, Threads::One);
        let one = one.expect("an outline");
        assert!(one.ring.len() >= 4);
        for threads in [
            Threads::TWO,
            Threads::Two { batch: 64 },
            Threads::Two { batch: 1 },
        ] {
            let two = outline_on(&rp, at, profile, metric, budget, &avoid, threads);
            assert_eq!(
                two.as_ref(),
                Some(&one),
                "{profile:?} {budget} on {threads:?}"
            );
        }
    }
}

/// Isochrone outlines are contours of a travel-time field: no axis-aligned staircase (the
/// grid tracing they replaced turned at right angles at nearly every vertex), and the holes
/// of the Waymark extension, when present, are closed rings inside the outline.
#[test]
fn isochrone_outlines_are_smooth_contours_with_holes_inside() {
    let f = fixture();
    let mut vertices = 0;
    let mut steps = 0;
    let mut holes = 0;
    for (origin, mode, minutes) in [
        (ANDORRA_LA_VELLA, TravelMode::Driving, 30.0),
        (ANDORRA_LA_VELLA, TravelMode::Walking, 10.0),
        (ENCAMP, TravelMode::Driving, 10.0),
        (ENCAMP, TravelMode::Walking, 15.0),
    ] {
        let r = f
            .engine
            .call(
                &Credentials::Http(&f.caller),
                IsochroneRequest {
                    origin,
                    value: minutes,
                    mode,
                    ..Default::default()
                },
            )
            .unwrap();
        let Isoline::Time(t) = &r.isoline else {
            panic!("time variant")
        };
        let ring = points(&t.geometry);
        assert!(ring.len() >= 4 && ring.first() == ring.last(), "closed");
        // Axis-aligned segments meeting at a right angle: steps of a staircase.
        let axis = |a: Pt, b: Pt| {
            let (dx, dy) = (b.lng - a.lng, b.lat - a.lat);
            if dx.abs() < 1e-9 {
                Some(1)
            } else if dy.abs() < 1e-9 {
                Some(0)
            } else {
                None
            }
        };
        vertices += ring.len() - 1;
        steps += ring
            .windows(3)
            .filter(
                |w| matches!((axis(w[0], w[1]), axis(w[1], w[2])), (Some(a), Some(b)) if a != b),
            )
            .count();
        for h in &t.holes {
            let hole = points(h);
            assert!(
                hole.len() >= 4 && hole.first() == hole.last(),
                "closed hole"
            );
            assert!(
                hole.iter().all(|p| ring_contains(&ring, *p)),
                "a hole lies inside the outline"
            );
            holes += 1;
        }
    }
    eprintln!("{steps} staircase steps among {vertices} vertices, {holes} holes");
    assert!(
        steps * 50 <= vertices,
        "{steps} steps among {vertices} vertices"
    );
}

/// Holes are road-less land deep inside the outline, not the land between reached streets: a
/// 30-minute drive from Andorra la Vella keeps the mountainsides between its valleys as holes,
/// and every hole has land at least two grid cells (366 m) from its own ring. Gaps between
/// reached roads that no point of lies that far inside (a strip between two valley roads,
/// blocks between streets) are reached land, as the user of the map expects.
#[test]
fn isochrone_holes_are_deep_road_less_land_not_gaps_between_streets() {
    let f = fixture();
    let r = f
        .engine
        .call(
            &Credentials::Http(&f.caller),
            IsochroneRequest {
                origin: ANDORRA_LA_VELLA,
                value: 30.0,
                ..Default::default()
            },
        )
        .unwrap();
    let Isoline::Time(t) = &r.isoline else {
        panic!("time variant")
    };
    let cell = waymark_core::distance::isochrone::cell_size(
        waymark_core::routing::Profile::Driving,
        waymark_core::routing::Metric::Time,
        1_800_000,
    );
    assert!(!t.holes.is_empty(), "the mountainsides between the valleys");
    let proj = LocalProjection::new(ANDORRA_LA_VELLA.lat);
    for h in &t.holes {
        let hole: Vec<[f64; 2]> = points(h).iter().map(|p| proj.project(*p)).collect();
        let depth = inscribed_depth(&hole, 25.0);
        assert!(
            depth >= 2.0 * cell,
            "a hole whose deepest point is {depth:.0} m from its ring ({} points)",
            hole.len()
        );
    }
}

/// The largest distance from a point inside the closed ring `ring` to the ring, on a grid of
/// `step` metres.
fn inscribed_depth(ring: &[[f64; 2]], step: f64) -> f64 {
    let (mut x0, mut y0, mut x1, mut y1) = (f64::MAX, f64::MAX, f64::MIN, f64::MIN);
    for p in ring {
        x0 = x0.min(p[0]);
        x1 = x1.max(p[0]);
        y0 = y0.min(p[1]);
        y1 = y1.max(p[1]);
    }
    let inside = |p: [f64; 2]| {
        let mut c = false;
        for w in ring.windows(2) {
            let (a, b) = (w[0], w[1]);
            if (a[1] > p[1]) != (b[1] > p[1])
                && p[0] < (b[0] - a[0]) * (p[1] - a[1]) / (b[1] - a[1]) + a[0]
            {
                c = !c;
            }
        }
        c
    };
    let to_segment = |p: [f64; 2], a: [f64; 2], b: [f64; 2]| {
        let (dx, dy) = (b[0] - a[0], b[1] - a[1]);
        let l2 = dx * dx + dy * dy;
        let t = if l2 > 0.0 {
            (((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / l2).clamp(0.0, 1.0)
        } else {
            0.0
        };
        ((p[0] - a[0] - t * dx).powi(2) + (p[1] - a[1] - t * dy).powi(2)).sqrt()
    };
    let mut best: f64 = 0.0;
    let mut y = y0;
    while y <= y1 {
        let mut x = x0;
        while x <= x1 {
            let p = [x, y];
            if inside(p) {
                let d = ring
                    .windows(2)
                    .map(|w| to_segment(p, w[0], w[1]))
                    .fold(f64::MAX, f64::min);
                best = best.max(d);
            }
            x += step;
        }
        y += step;
    }
    best
}

fn convex_area(pts: &[Pt]) -> f64 {
    let mut p: Vec<(f64, f64)> = pts.iter().map(|p| (p.lng, p.lat)).collect();
    p.sort_by(|a, b| a.partial_cmp(b).unwrap());
    p.dedup();
    let cross = |o: (f64, f64), a: (f64, f64), b: (f64, f64)| {
        (a.0 - o.0) * (b.1 - o.1) - (a.1 - o.1) * (b.0 - o.0)
    };
    let mut hull: Vec<(f64, f64)> = Vec::new();
    for pass in 0..2 {
        let start = hull.len();
        let it: Vec<(f64, f64)> = if pass == 0 {
            p.clone()
        } else {
            p.iter().rev().copied().collect()
        };
        for q in it {
            while hull.len() >= start + 2
                && cross(hull[hull.len() - 2], hull[hull.len() - 1], q) <= 0.0
            {
                hull.pop();
            }
            hull.push(q);
        }
        hull.pop();
    }
    let mut a = 0.0;
    for i in 0..hull.len() {
        let (x1, y1) = hull[i];
        let (x2, y2) = hull[(i + 1) % hull.len()];
        a += x1 * y2 - x2 * y1;
    }
    a.abs() / 2.0
}

#[test]
fn bad_input_is_refused_with_422() {
    let f = fixture();
    let err = f
        .engine
        .call(
            &Credentials::Http(&f.caller),
            RouteRequest {
                waypoints: Waypoints {
                    optimize: false,
                    points: vec![ENCAMP; 30],
                },
                ..trip(ANDORRA_LA_VELLA, ENCAMP)
            },
        )
        .unwrap_err();
    assert_eq!(err.code, waymark_core::ErrorCode::Validation);
    assert!(err.message.contains("at most 25"), "{}", err.message);
}
