//! Restricted roads (ADR 0010) on real streets: a destination-only street (Müllerstraße in
//! München, `motor_vehicle=destination`) and a private one (Speicherstraße in Neubrandenburg,
//! `access=private`) are each a short cut between the roads at their ends. A car may start or
//! end a trip on them, but never cross them between two points outside; the prepared
//! hierarchy, Dijkstra and the matrix agree.
//!
//! Tracks in Neubrandenburg are driven at the speed of their `tracktype` grade, stored in the
//! pack (format 11), and at 5 km/h without one. Its paths and footways tagged `motorcar=no`
//! stay closed to cars (a restricting value opens no road whose class forbids the mode).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use waymark_core::geo::Pt;
use waymark_core::routing::profile::{Highway, track_kmh};
use waymark_core::routing::router::{ArcPath, SearchAlgorithm};
use waymark_core::routing::snap::Snap;
use waymark_core::routing::{Metric, Profile, Router};
use waymark_tests::routing_pack;

fn open(id: &str) -> Router {
    let dir = routing_pack(id);
    let conn = rusqlite::Connection::open(dir.join("data.sqlite")).unwrap();
    Router::open(id, &dir, &conn).unwrap()
}

/// The route a trip request takes (snapping as the API does), and the way ids of its arcs.
fn trip(r: &Router, profile: Profile, a: Pt, b: Pt, algorithm: SearchAlgorithm) -> Trip {
    let all = |_: u32| true;
    let s = r.snap_candidates(profile, a, &all).unwrap();
    let t = r.snap_candidates(profile, b, &all).unwrap();
    let (path, from, to) = r
        .path_between(profile, Metric::Time, &s, &t, None, algorithm)
        .unwrap_or_else(|| panic!("no route {a:?} → {b:?}"));
    let g = r.graph(profile);
    let ways = path
        .arcs
        .iter()
        .map(|&arc| r.net.edges[g.arc_edge[arc as usize] as usize].way_id)
        .collect();
    Trip {
        path,
        from,
        to,
        ways,
    }
}

struct Trip {
    path: ArcPath,
    from: Snap,
    to: Snap,
    ways: Vec<i64>,
}

/// The route of the hierarchy, checked against Dijkstra's (same cost).
fn route(r: &Router, a: Pt, b: Pt) -> Trip {
    let ch = trip(r, Profile::Driving, a, b, SearchAlgorithm::Ch);
    let dj = trip(r, Profile::Driving, a, b, SearchAlgorithm::Dijkstra);
    assert_eq!(ch.path.cost, dj.path.cost, "hierarchy and Dijkstra agree");
    ch
}

fn way_of(r: &Router, s: &Snap) -> i64 {
    r.net.edges[s.edge as usize].way_id
}

/// Every edge of `way` is in the pack and restricted for cars.
fn restricted_way(r: &Router, way: i64) {
    let edges: Vec<_> = r.net.edges.iter().filter(|e| e.way_id == way).collect();
    assert!(!edges.is_empty(), "way {way} is in the pack");
    assert!(
        edges
            .iter()
            .all(|e| e.allows(Profile::Driving) && e.restricted(Profile::Driving)),
        "way {way} is restricted for cars"
    );
}

/// Müllerstraße between Angertorstraße and Fraunhoferstraße: `motor_vehicle=destination`,
/// one way to the east, 135 m where the way round is about 600 m.
const MUELLER: i64 = 46_870_051;
/// On the free part of Müllerstraße, west of the destination-only one.
const MUELLER_WEST: Pt = Pt {
    lat: 48.131_042_6,
    lng: 11.569_530_4,
};
/// On Fraunhoferstraße, south-east of the destination-only part's end.
const FRAUNHOFER: Pt = Pt {
    lat: 48.131_046_4,
    lng: 11.571_934_6,
};
/// On the destination-only part, 40 m from its start.
const MUELLER_INSIDE: Pt = Pt {
    lat: 48.130_888_7,
    lng: 11.570_484_9,
};

#[test]
fn a_destination_only_street_is_no_through_road() {
    let r = open("munchen");
    restricted_way(&r, MUELLER);
    let through = route(&r, MUELLER_WEST, FRAUNHOFER);
    assert!(
        !through.ways.contains(&MUELLER),
        "the route between two points outside goes round: {:?}",
        through.ways
    );
    let g = r.graph(Profile::Driving);
    assert!(
        through
            .path
            .arcs
            .iter()
            .all(|&a| !g.restricted_arc(&r.net, a)),
        "no restricted road at all between two free ends"
    );
}

#[test]
fn a_destination_only_street_is_reached_and_left_through_itself() {
    let r = open("munchen");
    let to = route(&r, MUELLER_WEST, MUELLER_INSIDE);
    assert_eq!(
        way_of(&r, &to.to),
        MUELLER,
        "the point snaps onto the street"
    );
    assert!(to.ways.contains(&MUELLER));
    let from = route(&r, MUELLER_INSIDE, FRAUNHOFER);
    assert_eq!(way_of(&r, &from.from), MUELLER);
    assert_eq!(from.ways.first(), Some(&MUELLER), "the trip starts on it");
    // Reaching the point and leaving it costs less than the way round between the two ends:
    // only the through trip is refused.
    let through = route(&r, MUELLER_WEST, FRAUNHOFER);
    let (m, _) = r.measure(Profile::Driving, &through.path);
    let (m1, _) = r.measure(Profile::Driving, &to.path);
    let (m2, _) = r.measure(Profile::Driving, &from.path);
    assert!(
        (m1 + m2) * 1.5 < m,
        "to {m1:.0} m + from {m2:.0} m against {m:.0} m round"
    );
}

/// Speicherstraße between Werner-Baier-Straße and its free part to the east:
/// `access=private`, 176 m where the way round is about 1.7 km.
const SPEICHER: i64 = 28_873_903;
/// On Werner-Baier-Straße, just west of the private part.
const WERNER_BAIER: Pt = Pt {
    lat: 53.559_934_2,
    lng: 13.270_569_2,
};
/// On the free part of Speicherstraße, east of the private one.
const SPEICHER_EAST: Pt = Pt {
    lat: 53.559_617_4,
    lng: 13.273_467_6,
};
/// Halfway along the private part.
const SPEICHER_INSIDE: Pt = Pt {
    lat: 53.559_772_9,
    lng: 13.272_029_9,
};
/// Neubrandenburg's market square, far from both.
const MARKT: Pt = Pt {
    lat: 53.557_1,
    lng: 13.261_0,
};

#[test]
fn a_trip_from_a_private_street_starts_on_it() {
    let r = open("neubrandenburg");
    restricted_way(&r, SPEICHER);
    let t = route(&r, SPEICHER_INSIDE, MARKT);
    assert_eq!(way_of(&r, &t.from), SPEICHER, "the origin snaps onto it");
    assert_eq!(t.ways.first(), Some(&SPEICHER), "the trip starts on it");
    let back = route(&r, MARKT, SPEICHER_INSIDE);
    assert_eq!(
        back.ways.last(),
        Some(&SPEICHER),
        "and a trip to it ends on it"
    );
    // The matrix gives the routes' costs.
    let all = |_: u32| true;
    let c = |p| Some(r.snap_candidates(Profile::Driving, p, &all).unwrap());
    let m = r.matrix_candidates(
        Profile::Driving,
        Metric::Time,
        &[c(SPEICHER_INSIDE), c(MARKT)],
        &[c(MARKT), c(SPEICHER_INSIDE)],
        None,
    );
    assert_eq!(m[0][0].map(|x| x.0), Some(t.path.cost));
    assert_eq!(m[1][1].map(|x| x.0), Some(back.path.cost));
}

#[test]
fn a_private_street_is_never_a_through_road() {
    let r = open("neubrandenburg");
    // The private street is in the graph: a trip to a point on it and one from there on use
    // it.
    let to = route(&r, WERNER_BAIER, SPEICHER_INSIDE);
    let from = route(&r, SPEICHER_INSIDE, SPEICHER_EAST);
    assert!(to.ways.contains(&SPEICHER) && from.ways.contains(&SPEICHER));
    let through = route(&r, WERNER_BAIER, SPEICHER_EAST);
    assert!(
        !through.ways.contains(&SPEICHER),
        "the route between two points outside goes round: {:?}",
        through.ways
    );
    let g = r.graph(Profile::Driving);
    assert!(
        through
            .path
            .arcs
            .iter()
            .all(|&a| !g.restricted_arc(&r.net, a))
    );
    let (m, _) = r.measure(Profile::Driving, &through.path);
    let (m1, _) = r.measure(Profile::Driving, &to.path);
    let (m2, _) = r.measure(Profile::Driving, &from.path);
    assert!((m1 + m2) * 2.0 < m, "{m1:.0} + {m2:.0} m against {m:.0} m");
    // A point next to both the free street and the private one starts on the free one.
    let all = |_: u32| true;
    let s = r
        .snap_candidates(Profile::Driving, WERNER_BAIER, &all)
        .unwrap();
    assert_ne!(way_of(&r, &s.near), SPEICHER);
}

#[test]
fn neubrandenburg_tracks_are_driven_by_their_tracktype() {
    let r = open("neubrandenburg");
    let conn =
        rusqlite::Connection::open(routing_pack("neubrandenburg").join("data.sqlite")).unwrap();
    let stored: std::collections::HashMap<i64, Option<u8>> = conn
        .prepare(
            "SELECT s.id, g.grade FROM road_segments s JOIN road_attrs a ON a.id = s.attrs \
             LEFT JOIN road_track_grades g ON g.attrs = s.attrs WHERE a.highway = 'track'",
        )
        .unwrap()
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let g = r.graph(Profile::Driving);
    let mut by_grade = [0usize; 6];
    for (a, &e) in g.arc_edge.iter().enumerate().take(g.original_arcs as usize) {
        let edge = &r.net.edges[e as usize];
        if edge.highway() != Highway::Track {
            continue;
        }
        assert_eq!(edge.tracktype(), stored[&edge.id], "edge {}", edge.id);
        if edge.maxspeed().is_some() {
            continue;
        }
        let kmh = track_kmh(edge.tracktype());
        let expected = ((edge.length_m * 3600.0 / kmh).round() as u64).max(1);
        assert_eq!(
            g.arc_cost(Metric::Time, a as u32),
            expected,
            "track {} of grade {:?}",
            edge.way_id,
            edge.tracktype()
        );
        by_grade[usize::from(edge.tracktype().unwrap_or(0))] += 1;
    }
    eprintln!("driving arcs on tracks by grade (none, 1-5): {by_grade:?}");
    // Ungraded tracks (5 km/h) and graded ones both carry cars.
    assert!(by_grade[0] > 50 && by_grade[1..].iter().sum::<usize>() > 50);
    assert!(track_kmh(None) == 5.0 && track_kmh(Some(1)) == 20.0);
}

/// Neubrandenburg's paths and footways tagged `motorcar=no` (the forest paths round the
/// Tollensesee: 53537239, 32236110, ...) are closed to cars: a restricting value restricts a
/// road open to the mode, it does not open one. The builder read `no` as "restricted" and
/// cars drove them as the first or last part of a trip, and 30-minute isochrones spread along
/// them. Paths tagged `access=yes` and `motor_vehicle=private` stay restricted.
#[test]
fn neubrandenburg_paths_tagged_motorcar_no_carry_no_cars() {
    let r = open("neubrandenburg");
    let closed = [
        Highway::Path,
        Highway::Footway,
        Highway::Cycleway,
        Highway::Steps,
        Highway::Pedestrian,
        Highway::Bridleway,
    ];
    let mut open_to_cars = Vec::new();
    let mut ways = std::collections::HashSet::new();
    for edge in r.net.edges.iter() {
        ways.insert(edge.way_id);
        if closed.contains(&edge.highway())
            && edge.allows(Profile::Driving)
            && edge.restricted(Profile::Driving)
        {
            open_to_cars.push(edge.way_id);
        }
    }
    for way in [53537239, 32236110] {
        assert!(ways.contains(&way), "way {way} is in the pack");
        assert!(!open_to_cars.contains(&way), "way {way} carries cars");
    }
    // The paths left are opened by a less specific tag (`access=yes`, then
    // `motor_vehicle=private`): restricted, as a private road is.
    open_to_cars.sort_unstable();
    open_to_cars.dedup();
    assert_eq!(
        open_to_cars,
        [28812192, 53454882, 216936421, 233586426],
        "path or footway ways restricted for cars"
    );
}
