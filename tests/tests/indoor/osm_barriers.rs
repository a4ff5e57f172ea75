//! Walls, gates and one-way doors as OSM maps them, on small venues written into the same
//! PBF extract as [`super::osm_rules`] and built through the pack builder's OSM path: a gate
//! or turnstile mapped as a point inside a corridor area, a gate on the wall two corridor
//! areas share, a door with `oneway=yes` on a corridor line, a wall across a corridor area, a
//! fence across a corridor line, a wall with a gate in it, a moving walkway and an escalator
//! way between two levels. Each is asked
//! for directions through the engine and checked on what a user sees.
//!
//! Every venue is a station concourse (no building: no floor to cut across) with a kiosk at
//! (0, 0) and a bakery at (40, 0) on level 0, joined by an 80 m footway around by (0, 20) and
//! (40, 20), and by the short way under test. Positions are metres east and north of each
//! venue's origin, 500 m apart.

use super::osm_rules::{Osm, Place, at, length, passes, rules, rules_graph, station, walk};
use super::*;

/// The fixtures: name, `(first OSM id, metres east of the common origin)`.
const PLACES: [(&str, (i64, f64)); 10] = [
    ("gate in corridor", (7_000, 3_000.0)),
    ("turnstile in corridor", (8_000, 3_500.0)),
    ("open gate on shared wall", (9_000, 4_000.0)),
    ("private gate on shared wall", (10_000, 4_500.0)),
    ("one-way door", (11_000, 5_000.0)),
    ("wall across corridor", (12_000, 5_500.0)),
    ("fence across corridor line", (13_000, 6_000.0)),
    ("wall with a gate", (14_000, 6_500.0)),
    ("moving walkway", (15_000, 7_000.0)),
    ("escalator", (16_000, 7_500.0)),
];

fn place(name: &str) -> (i64, f64) {
    PLACES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, p)| *p)
        .unwrap()
}

/// The concourse with the kiosk, the bakery and the footway around; `join` adds the short
/// way between them (given the kiosk's and the bakery's node ids). Returns the station's way
/// id.
fn concourse(
    osm: &mut Osm,
    name: &str,
    join: impl FnOnce(&mut Place<'_>, i64, i64),
) -> (&'static str, i64) {
    let key = PLACES.iter().find(|(n, _)| *n == name).unwrap().0;
    let mut v = osm.place(place(name));
    let station = v.ring(
        &[(-10.0, -10.0), (50.0, -10.0), (50.0, 30.0), (-10.0, 30.0)],
        &[
            ("public_transport", "station"),
            ("railway", "station"),
            ("name", name),
        ],
    );
    let kiosk = v.node(
        0.0,
        0.0,
        &[("shop", "kiosk"), ("name", "Kiosk"), ("level", "0")],
    );
    let bakery = v.node(
        40.0,
        0.0,
        &[("shop", "bakery"), ("name", "Bakery"), ("level", "0")],
    );
    let (c1, c2) = (v.node(0.0, 20.0, &[]), v.node(40.0, 20.0, &[]));
    v.way(
        &[kiosk, c1, c2, bakery],
        &[("highway", "footway"), ("level", "0")],
    );
    join(&mut v, kiosk, bakery);
    (key, station)
}

const CORRIDOR: [(&str, &str); 2] = [("indoor", "corridor"), ("level", "0")];

/// A 4 m wide corridor area from x = -2 to 42 holding the kiosk and the bakery.
fn corridor_area(v: &mut Place<'_>) {
    v.ring(
        &[(-2.0, -2.0), (42.0, -2.0), (42.0, 2.0), (-2.0, 2.0)],
        &CORRIDOR,
    );
}

/// The fixtures' venues, `(name, OSM way id of the station)`.
pub(super) fn venues(osm: &mut Osm) -> Vec<(&'static str, i64)> {
    let mut out = vec![
        concourse(osm, "gate in corridor", |v, _, _| {
            corridor_area(v);
            v.node(
                20.0,
                0.0,
                &[("barrier", "gate"), ("access", "private"), ("level", "0")],
            );
        }),
        concourse(osm, "turnstile in corridor", |v, _, _| {
            corridor_area(v);
            v.node(20.0, 0.0, &[("barrier", "turnstile"), ("level", "0")]);
        }),
    ];
    for (name, access) in [
        ("open gate on shared wall", "yes"),
        ("private gate on shared wall", "private"),
    ] {
        out.push(concourse(osm, name, |v, _, _| {
            // two corridor areas sharing the wall x = 20, the gate a vertex of both
            let [sw, nw, s, n, se, ne] = [
                (-2.0, -2.0),
                (-2.0, 2.0),
                (20.0, -2.0),
                (20.0, 2.0),
                (42.0, -2.0),
                (42.0, 2.0),
            ]
            .map(|(x, y)| v.node(x, y, &[]));
            let gate = v.node(
                20.0,
                -1.5,
                &[("barrier", "gate"), ("access", access), ("level", "0")],
            );
            v.way(&[sw, s, gate, n, nw, sw], &CORRIDOR);
            v.way(&[s, se, ne, n, gate, s], &CORRIDOR);
        }));
    }
    out.push((
        "one-way door",
        station(
            osm,
            place("one-way door"),
            "One Way Door Station",
            &[],
            &[("door", "hinged"), ("oneway", "yes"), ("level", "0")],
        ),
    ));
    out.push(concourse(osm, "wall across corridor", |v, _, _| {
        corridor_area(v);
        let (a, b) = (v.node(20.0, -3.0, &[]), v.node(20.0, 3.0, &[]));
        v.way(&[a, b], &[("barrier", "wall"), ("level", "0")]);
    }));
    out.push(concourse(
        osm,
        "fence across corridor line",
        |v, kiosk, bakery| {
            v.way(&[kiosk, bakery], &[("highway", "corridor"), ("level", "0")]);
            let (a, b) = (v.node(10.0, -5.0, &[]), v.node(10.0, 5.0, &[]));
            v.way(&[a, b], &[("barrier", "fence"), ("level", "0")]);
        },
    ));
    out.push(concourse(osm, "wall with a gate", |v, _, _| {
        corridor_area(v);
        let (a, b) = (v.node(20.0, -3.0, &[]), v.node(20.0, 3.0, &[]));
        let gate = v.node(20.0, 1.5, &[("barrier", "gate"), ("level", "0")]);
        v.way(&[a, gate, b], &[("barrier", "wall"), ("level", "0")]);
    }));
    out.push(concourse(osm, "moving walkway", |v, kiosk, bakery| {
        v.way(
            &[kiosk, bakery],
            &[
                ("highway", "footway"),
                ("conveying", "forward"),
                ("level", "0"),
            ],
        );
    }));
    out.push(concourse(osm, "escalator", |v, _, _| {
        // the corridor on levels 0 and 1, an up escalator near the kiosk, a stair near the
        // bookshop whose foot is at its far end
        let rect = [(-2.0, -2.0), (42.0, -2.0), (42.0, 2.0), (-2.0, 2.0)];
        v.ring(&rect, &CORRIDOR);
        v.ring(&rect, &[("indoor", "corridor"), ("level", "1")]);
        v.node(
            40.0,
            1.0,
            &[("shop", "books"), ("name", "Bookshop"), ("level", "1")],
        );
        let (a, b) = (v.node(5.0, -1.0, &[]), v.node(15.0, -1.0, &[]));
        v.way(
            &[a, b],
            &[
                ("highway", "steps"),
                ("conveying", "forward"),
                ("incline", "up"),
                ("level", "0;1"),
            ],
        );
        let (c, d) = (v.node(38.0, 1.0, &[]), v.node(30.0, 1.0, &[]));
        v.way(
            &[c, d],
            &[("highway", "steps"), ("incline", "up"), ("level", "0;1")],
        );
    }));
    out
}

fn venue(name: &str) -> &'static str {
    rules().barriers[name].as_str()
}

/// Where a fixture's position `(x, y)` is.
fn spot(name: &str, x: f64, y: f64) -> Pt {
    at(place(name).1 + x, y)
}

/// Both ways and both profiles go round by the 80 m footway, never near `(x, y)`.
fn assert_walked_around(name: &str, x: f64, y: f64) {
    let v = venue(name);
    for mode in ["default", "wheelchair"] {
        for (from, to) in [("Kiosk", "Bakery"), ("Bakery", "Kiosk")] {
            let r = walk(v, from, to, mode);
            assert_eq!(r.status, "ok", "{name} {mode} {from}");
            assert!(length(&r) > 75.0, "{name} {mode} {from}: {}", length(&r));
            assert!(!passes(&r, spot(name, x, y), 0.0), "{name} {mode} {from}");
            assert_walkable(&rules_graph(v), &r);
        }
    }
}

#[test]
fn a_private_gate_point_inside_a_corridor_area_bars_it() {
    assert_walked_around("gate in corridor", 20.0, 0.0);
}

#[test]
fn a_turnstile_point_inside_a_corridor_area_is_passed_on_foot_only() {
    let name = "turnstile in corridor";
    let r = walk(venue(name), "Kiosk", "Bakery", "default");
    assert_eq!(r.status, "ok");
    assert!(length(&r) < 45.0, "{}", length(&r));
    assert!(passes(&r, spot(name, 20.0, 0.0), 0.0));
    let r = walk(venue(name), "Bakery", "Kiosk", "wheelchair");
    assert_eq!(r.status, "ok");
    assert!(length(&r) > 75.0, "{}", length(&r));
    assert!(!passes(&r, spot(name, 20.0, 0.0), 0.0));
}

#[test]
fn a_gate_on_the_wall_two_areas_share_is_the_only_way_between_them() {
    let name = "open gate on shared wall";
    for (from, to) in [("Kiosk", "Bakery"), ("Bakery", "Kiosk")] {
        let r = walk(venue(name), from, to, "default");
        assert_eq!(r.status, "ok");
        assert!(length(&r) < 45.0, "{from}: {}", length(&r));
        assert!(passes(&r, spot(name, 20.0, -1.5), 0.0), "{from}");
        assert_walkable(&rules_graph(venue(name)), &r);
    }
    assert_walked_around("private gate on shared wall", 20.0, 0.0);
}

#[test]
fn a_one_way_door_on_a_corridor_line_is_passed_in_its_direction_only() {
    let name = "one-way door";
    let r = walk(venue(name), "Kiosk", "Bakery", "default");
    assert_eq!(r.status, "ok");
    assert!(length(&r) < 45.0, "{}", length(&r));
    assert!(passes(&r, spot(name, 20.0, 0.0), 0.0));
    for mode in ["default", "wheelchair"] {
        let r = walk(venue(name), "Bakery", "Kiosk", mode);
        assert_eq!(r.status, "ok", "{mode}");
        assert!(length(&r) > 75.0, "{mode}: {}", length(&r));
        assert!(!passes(&r, spot(name, 20.0, 0.0), 0.0), "{mode}");
        assert_walkable(&rules_graph(venue(name)), &r);
    }
}

#[test]
fn a_wall_across_a_corridor_area_and_a_fence_across_a_corridor_line_are_not_crossed() {
    assert_walked_around("wall across corridor", 20.0, 0.0);
    assert_walked_around("fence across corridor line", 10.0, 0.0);
}

#[test]
fn a_wall_is_passed_through_the_gate_in_it() {
    let name = "wall with a gate";
    for mode in ["default", "wheelchair"] {
        let r = walk(venue(name), "Kiosk", "Bakery", mode);
        assert_eq!(r.status, "ok", "{mode}");
        assert!(length(&r) < 45.0, "{mode}: {}", length(&r));
        assert!(passes(&r, spot(name, 20.0, 1.5), 0.0), "{mode}");
        assert_walkable(&rules_graph(venue(name)), &r);
    }
}

#[test]
fn a_moving_walkway_is_ridden_in_its_direction_only() {
    let name = "moving walkway";
    let r = walk(venue(name), "Kiosk", "Bakery", "default");
    assert_eq!(r.status, "ok");
    assert!(length(&r) < 45.0, "{}", length(&r));
    let r = walk(venue(name), "Bakery", "Kiosk", "default");
    assert_eq!(r.status, "ok");
    assert!(length(&r) > 75.0, "{}", length(&r));
    assert!(!passes(&r, spot(name, 20.0, 0.0), 0.0));
}

#[test]
fn an_escalator_way_is_ridden_up_only_and_the_way_down_is_the_stair() {
    let v = venue("escalator");
    let up = walk(v, "Kiosk", "Bookshop", "default");
    assert_eq!(up.status, "ok");
    assert!(
        step_kinds(&up).contains(&"escalator_up".to_owned()),
        "{:?}",
        step_kinds(&up)
    );
    // down, the escalator would be quicker were it two-way: the stair is taken
    let down = walk(v, "Bookshop", "Kiosk", "default");
    assert_eq!(down.status, "ok");
    let kinds = step_kinds(&down);
    assert!(kinds.contains(&"stairs_down".to_owned()), "{kinds:?}");
    assert!(
        !kinds.iter().any(|k| k.starts_with("escalator")),
        "{kinds:?}"
    );
    assert_walkable(&rules_graph(v), &down);
}
