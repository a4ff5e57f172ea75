//! Tests of the graph build and search.

use super::*;
use serde_json::json;

fn rect(w: f64, s: f64, e: f64, n: f64) -> Value {
    json!({"type": "Polygon", "coordinates": [[[w, s], [e, s], [e, n], [w, n], [w, s]]]})
}

/// An L-shaped corridor: a route around its corner stays inside.
#[test]
fn visibility_turns_around_inner_corners() {
    let props = Map::new();
    let l = json!({"type": "Polygon", "coordinates": [[[0.0, 0.0], [0.001, 0.0], [0.001, 0.0001],
        [0.0001, 0.0001], [0.0001, 0.001], [0.0, 0.001], [0.0, 0.0]]]});
    let f = GraphFeature {
        id: 1,
        kind: "corridor",
        levels: vec![0],
        properties: &props,
        shape: &l,
        point: Pt::new(0.00005, 0.00005),
        poi: false,
    };
    let g = build(&[f]);
    let a = g.anchor(Pt::new(0.00005, 0.0009), 0).unwrap();
    let b = g.anchor(Pt::new(0.0009, 0.00005), 0).unwrap();
    let p = g.route(&a, &b, Profile::Default, &[]).unwrap();
    for w in p.points.windows(2) {
        let m = Pt::new(
            (w[0].0.lat + w[1].0.lat) / 2.0,
            (w[0].0.lng + w[1].0.lng) / 2.0,
        );
        assert!(g.walkable_at(m, 0, 0.1), "{m:?} outside");
    }
    // 2 x 89 m around the inner corner, not the 125 m diagonal through the wall
    assert!(p.length_m > 177.0 && p.length_m < 185.0, "{}", p.length_m);
}

/// The stored forms: version 2 (zstd) and version 1 (plain postcard, packs built before it)
/// read back to the same graph; an unknown version or a damaged frame is an error.
#[test]
fn stored_graph_reads_back_in_every_version() {
    let props = Map::new();
    let hall = rect(0.0, 0.0, 0.001, 0.0002);
    let lift = json!({"type": "Point", "coordinates": [0.0009, 0.0001]});
    let g = build(&[
        GraphFeature {
            id: 7,
            kind: "corridor",
            levels: vec![0, 1],
            properties: &props,
            shape: &hall,
            point: Pt::new(0.0001, 0.0005),
            poi: false,
        },
        GraphFeature {
            id: 8,
            kind: "elevator",
            levels: vec![0, 1],
            properties: &props,
            shape: &lift,
            point: Pt::new(0.0001, 0.0009),
            poi: false,
        },
    ]);
    assert!(!g.edges.is_empty());
    let v3 = g.to_bytes().unwrap();
    let v1 = postcard::to_stdvec(&g).unwrap();
    let v2 = zstd::bulk::compress(&v1, 19).unwrap();
    assert!(v2.len() < v1.len(), "{} >= {}", v2.len(), v1.len());
    assert!(v3.len() < v1.len(), "{} >= {}", v3.len(), v1.len());
    let mut want = g.clone();
    want.index();
    // Derived and stored lengths both come back bit for bit.
    let raw = columns::encode(&g).unwrap();
    let back = columns::decode(&raw).unwrap();
    for (a, b) in back.edges.iter().zip(&g.edges) {
        assert_eq!(a.length.to_bits(), b.length.to_bits());
    }
    assert!(g.edges.iter().any(|e| e.kind == EdgeKind::Elevator));
    assert_eq!(Graph::from_bytes(3, &v3).unwrap(), want);
    assert_eq!(Graph::from_bytes(2, &v2).unwrap(), want);
    assert_eq!(Graph::from_bytes(1, &v1).unwrap(), want);
    assert!(matches!(
        Graph::from_bytes(4, &v3),
        Err(GraphCodecError::Version(4))
    ));
    assert!(Graph::from_bytes(2, &v1).is_err());
    // A truncated version 3 graph is an error, not a panic.
    for cut in [0, 1, 9, raw.len() / 2, raw.len() - 1] {
        let z = zstd::bulk::compress(&raw[..cut], 3).unwrap();
        assert!(Graph::from_bytes(3, &z).is_err(), "cut at {cut}");
    }
}

/// Stairs and an elevator between two levels: wheelchairs take the elevator.
#[test]
fn wheelchair_avoids_stairs() {
    let props = Map::new();
    let mut up = Map::new();
    up.insert("incline".into(), json!("up"));
    let hall = rect(0.0, 0.0, 0.001, 0.0002);
    let stairs = json!({"type": "LineString", "coordinates": [[0.0002, 0.0001], [0.0003, 0.0001]]});
    let lift = json!({"type": "Point", "coordinates": [0.0009, 0.0001]});
    let feats = vec![
        GraphFeature {
            id: 1,
            kind: "corridor",
            levels: vec![0, 1],
            properties: &props,
            shape: &hall,
            point: Pt::new(0.0001, 0.0005),
            poi: false,
        },
        GraphFeature {
            id: 2,
            kind: "stairs",
            levels: vec![0, 1],
            properties: &up,
            shape: &stairs,
            point: Pt::new(0.0001, 0.00025),
            poi: false,
        },
        GraphFeature {
            id: 3,
            kind: "elevator",
            levels: vec![0, 1],
            properties: &props,
            shape: &lift,
            point: Pt::new(0.0001, 0.0009),
            poi: false,
        },
    ];
    let g = build(&feats);
    assert_eq!(g.profiles, ["default", "wheelchair"]);
    let a = g.anchor(Pt::new(0.0001, 0.0001), 0).unwrap();
    let b = g.anchor(Pt::new(0.0001, 0.0004), 1).unwrap();
    let d = g.route(&a, &b, Profile::Default, &[]).unwrap();
    assert!(d.segments.iter().any(|s| s.kind == EdgeKind::Stairs));
    let w = g.route(&a, &b, Profile::Wheelchair, &[]).unwrap();
    assert!(w.segments.iter().all(|s| s.kind != EdgeKind::Stairs));
    assert!(w.segments.iter().any(|s| s.kind == EdgeKind::Elevator));
    // avoiding the elevator's corner of level 0 leaves wheelchairs no way
    let boxes = [AvoidBox {
        level: 0,
        corners: vec![
            Pt::new(0.0, 0.0008),
            Pt::new(0.0, 0.001),
            Pt::new(0.0002, 0.001),
            Pt::new(0.0002, 0.0008),
        ],
    }];
    assert!(g.route(&a, &b, Profile::Wheelchair, &boxes).is_none());
    assert!(g.route(&a, &b, Profile::Default, &boxes).is_some());
    // a point outside every area is not anchored
    assert!(g.anchor(Pt::new(0.01, 0.01), 0).is_none());
    assert!(g.anchor(Pt::new(0.0001, 0.0001), 5).is_none());
}

/// A mall mapped the way Forum (Helsinki) is: shops as points on levels 0 to 2, no room or
/// corridor, a footway of level 1 that continues a street (level 0) at a shared node, and a
/// stair way `level=1;2` drawn from its upper end. The building's outline is the floor of
/// each level, the shared node joins levels 0 and 1, the stair's ends are read from the
/// lines they meet: every shop is reachable from every other.
#[test]
fn footways_floors_and_shared_nodes_join_levels() {
    let props = Map::new();
    let outline = rect(0.0, 0.0, 0.001, 0.0004);
    // the street runs west into the building's door at (0.0002, 0.0); the level 1
    // footway continues it from that node
    let street = json!({"type": "LineString", "coordinates": [[-0.0005, 0.0002], [0.0, 0.0002]]});
    let walk1 = json!({"type": "LineString", "coordinates": [[0.0, 0.0002], [0.0006, 0.0002]]});
    let walk2 = json!({"type": "LineString", "coordinates": [[0.0008, 0.0002], [0.0009, 0.0002]]});
    // drawn from the level 2 end (shared with walk2) to the level 1 end (on walk1)
    let stairs = json!({"type": "LineString", "coordinates": [[0.0008, 0.0002], [0.0006, 0.0002]]});
    let shop = |x: f64| json!({"type": "Point", "coordinates": [x, 0.0003]});
    let (s0, s1, s2) = (shop(0.0003), shop(0.0004), shop(0.0005));
    let f = |id, kind, levels: Vec<i64>, shape, point, poi| GraphFeature {
        id,
        kind,
        levels,
        properties: &props,
        shape,
        point,
        poi,
    };
    let feats = vec![
        f(10, "poi", vec![0], &s0, Pt::new(0.0003, 0.0003), true),
        f(11, "poi", vec![1], &s1, Pt::new(0.0003, 0.0004), true),
        f(12, "poi", vec![2], &s2, Pt::new(0.0003, 0.0005), true),
        f(20, "footway", vec![1], &walk1, Pt::new(0.0002, 0.0), false),
        f(
            21,
            "footway",
            vec![2],
            &walk2,
            Pt::new(0.0002, 0.0008),
            false,
        ),
        f(
            22,
            "stairs",
            vec![1, 2],
            &stairs,
            Pt::new(0.0002, 0.0008),
            false,
        ),
        f(
            -3,
            "building",
            vec![0, 1, 2],
            &outline,
            Pt::new(0.0002, 0.0005),
            false,
        ),
        f(
            -2,
            "outdoor",
            vec![0],
            &street,
            Pt::new(0.0002, -0.0005),
            false,
        ),
    ];
    let g = build(&feats);
    assert_eq!(g.profiles, ["default"]);
    let node = |id| g.node_anchor(g.poi_node(id).unwrap()).unwrap();
    for (a, b) in [(10, 11), (11, 12), (10, 12), (12, 10)] {
        let p = g.route(&node(a), &node(b), Profile::Default, &[]);
        assert!(p.is_some(), "{a} -> {b}");
    }
    let p = g
        .route(&node(11), &node(12), Profile::Default, &[])
        .unwrap();
    assert!(p.segments.iter().any(|s| s.kind == EdgeKind::Stairs));
    // only stairs reach level 2: no wheelchair profile
    assert!(
        g.route(&node(10), &node(12), Profile::Wheelchair, &[])
            .is_none()
    );
    // without the floors, the shops off every line are out of reach, and no profile
    // is listed: they would promise moves between levels that cannot be made
    let g = build(&feats[..feats.len() - 2]);
    assert!(g.profiles.is_empty(), "{:?}", g.profiles);
}

/// A stair joins levels 0 and 1, but the shop of level 1 is in a room the stair does not
/// reach: no profile is listed, though a connector exists.
#[test]
fn profiles_need_every_poi_level() {
    let props = Map::new();
    let hall = rect(0.0, 0.0, 0.0004, 0.0002);
    let shut = rect(0.0006, 0.0, 0.001, 0.0002);
    let lift = json!({"type": "Point", "coordinates": [0.0001, 0.0001]});
    let shop = |x: f64| json!({"type": "Point", "coordinates": [x, 0.0001]});
    let (s0, s1) = (shop(0.0003), shop(0.0008));
    let f = |id, kind, levels: Vec<i64>, shape, point, poi| GraphFeature {
        id,
        kind,
        levels,
        properties: &props,
        shape,
        point,
        poi,
    };
    let mut feats = vec![
        f(
            1,
            "corridor",
            vec![0, 1],
            &hall,
            Pt::new(0.0001, 0.0002),
            false,
        ),
        f(2, "room", vec![1], &shut, Pt::new(0.0001, 0.0008), false),
        f(
            3,
            "elevator",
            vec![0, 1],
            &lift,
            Pt::new(0.0001, 0.0001),
            false,
        ),
        f(10, "poi", vec![0], &s0, Pt::new(0.0001, 0.0003), true),
        f(11, "poi", vec![1], &s1, Pt::new(0.0001, 0.0008), true),
    ];
    assert!(build(&feats).profiles.is_empty());
    // the shop of level 1 in the corridor: both profiles
    let s1b = shop(0.0002);
    feats[4] = f(11, "poi", vec![1], &s1b, Pt::new(0.0001, 0.0002), true);
    assert_eq!(build(&feats).profiles, ["default", "wheelchair"]);
}

fn tags(pairs: &[(&str, &str)]) -> Map<String, Value> {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), json!(v)))
        .collect()
}

fn feat<'a>(
    id: i64,
    kind: &'a str,
    props: &'a Map<String, Value>,
    shape: &'a Value,
    point: Pt,
) -> GraphFeature<'a> {
    GraphFeature {
        id,
        kind,
        levels: vec![0],
        properties: props,
        shape,
        point,
        poi: false,
    }
}

/// Corridors west and east of a room, and a corridor along the north of all three: the
/// short way crosses the room, unless the room is private.
#[test]
fn private_rooms_are_not_crossed() {
    let open = Map::new();
    let private = tags(&[("access", "private")]);
    let (w, r, e) = (
        rect(0.0, 0.0, 0.0003, 0.0002),
        rect(0.0003, 0.0, 0.0006, 0.0002),
        rect(0.0006, 0.0, 0.001, 0.0002),
    );
    let n = rect(0.0, 0.0002, 0.001, 0.0004);
    let build_with = |room: &Map<String, Value>| {
        build(&[
            feat(1, "corridor", &open, &w, Pt::new(0.0001, 0.00015)),
            feat(2, "room", room, &r, Pt::new(0.0001, 0.00045)),
            feat(3, "corridor", &open, &e, Pt::new(0.0001, 0.0008)),
            feat(4, "corridor", &open, &n, Pt::new(0.0003, 0.0005)),
        ])
    };
    let (from, to) = (Pt::new(0.00005, 0.0001), Pt::new(0.00005, 0.0009));
    let g = build_with(&open);
    let p = g
        .route(
            &g.anchor(from, 0).unwrap(),
            &g.anchor(to, 0).unwrap(),
            Profile::Default,
            &[],
        )
        .unwrap();
    assert!(p.segments.iter().any(|s| s.feature == Some(2)));
    let g = build_with(&private);
    let p = g
        .route(
            &g.anchor(from, 0).unwrap(),
            &g.anchor(to, 0).unwrap(),
            Profile::Default,
            &[],
        )
        .unwrap();
    assert!(
        p.segments.iter().all(|s| s.feature != Some(2)),
        "{:?}",
        p.segments
    );
    // between the corridors, the route keeps to the north one
    assert!(
        p.points
            .iter()
            .filter(|(q, _)| q.lng > 0.00031 && q.lng < 0.00059)
            .all(|(q, _)| q.lat >= 0.00019),
        "{:?}",
        p.points
    );
    // a point in the private room is off every walkable area
    assert!(g.anchor(Pt::new(0.0001, 0.00045), 0).is_none());
}

/// Two rooms sharing a wall are joined only by a mapped door; a door tagged
/// `wheelchair=no` is not passed by wheelchairs; a door `access=no` by no one.
#[test]
fn walls_and_doors() {
    let open = Map::new();
    let (a, b) = (
        rect(0.0, 0.0, 0.0002, 0.0002),
        rect(0.0002, 0.0, 0.0004, 0.0002),
    );
    let door = json!({"type": "Point", "coordinates": [0.0002, 0.0001]});
    let (from, to) = (Pt::new(0.0001, 0.0001), Pt::new(0.0001, 0.0003));
    let route = |door_tags: Option<&Map<String, Value>>, p: Profile| {
        let mut fs = vec![
            feat(1, "room", &open, &a, Pt::new(0.0001, 0.0001)),
            feat(2, "room", &open, &b, Pt::new(0.0001, 0.0003)),
        ];
        if let Some(t) = door_tags {
            fs.push(feat(3, "door", t, &door, Pt::new(0.0001, 0.0002)));
        }
        let g = build(&fs);
        g.route(
            &g.anchor(from, 0).unwrap(),
            &g.anchor(to, 0).unwrap(),
            p,
            &[],
        )
    };
    assert!(route(None, Profile::Default).is_none());
    assert!(route(Some(&open), Profile::Default).is_some());
    assert!(route(Some(&open), Profile::Wheelchair).is_some());
    let narrow = tags(&[("wheelchair", "no")]);
    assert!(route(Some(&narrow), Profile::Default).is_some());
    assert!(route(Some(&narrow), Profile::Wheelchair).is_none());
    let shut = tags(&[("access", "no")]);
    assert!(route(Some(&shut), Profile::Default).is_none());
}

/// A footway through a gate: `access=private` closes it, a turnstile stops wheelchairs;
/// a one-way footway (or moving walkway) is walked one way.
#[test]
fn gates_and_one_way_lines() {
    // the ends' anchors link to the ends of their own edge only: the gate is between
    let line = json!({"type": "LineString", "coordinates": [[0.0, 0.0], [0.00025, 0.0],
        [0.0005, 0.0], [0.00075, 0.0], [0.001, 0.0]]});
    let gate_pt = json!({"type": "Point", "coordinates": [0.0005, 0.0]});
    let (a, b) = (Pt::new(0.0, 0.0), Pt::new(0.0, 0.001));
    let go = |line_tags: &Map<String, Value>,
              gate: Option<&Map<String, Value>>,
              from: Pt,
              to: Pt,
              p: Profile| {
        let mut fs = vec![feat(1, "footway", line_tags, &line, a)];
        if let Some(t) = gate {
            fs.push(feat(2, "barrier", t, &gate_pt, Pt::new(0.0, 0.0005)));
        }
        let g = build(&fs);
        g.route(
            &g.anchor(from, 0).unwrap(),
            &g.anchor(to, 0).unwrap(),
            p,
            &[],
        )
    };
    let open = Map::new();
    let gate = tags(&[("barrier", "gate")]);
    let private_gate = tags(&[("barrier", "gate"), ("access", "private")]);
    let turnstile = tags(&[("barrier", "turnstile")]);
    assert!(go(&open, Some(&gate), a, b, Profile::Wheelchair).is_some());
    assert!(go(&open, Some(&private_gate), a, b, Profile::Default).is_none());
    assert!(go(&open, Some(&turnstile), a, b, Profile::Default).is_some());
    assert!(go(&open, Some(&turnstile), a, b, Profile::Wheelchair).is_none());
    for t in [
        tags(&[("oneway", "yes")]),
        tags(&[("conveying", "forward")]),
    ] {
        assert!(go(&t, None, a, b, Profile::Default).is_some());
        assert!(go(&t, None, b, a, Profile::Default).is_none());
    }
    let back = tags(&[("oneway", "-1")]);
    assert!(go(&back, None, a, b, Profile::Default).is_none());
    assert!(go(&back, None, b, a, Profile::Default).is_some());
}

#[test]
fn crossing() {
    assert!(proper_cross([0.0, 0.0], [2.0, 2.0], [0.0, 2.0], [2.0, 0.0]));
    assert!(!proper_cross(
        [0.0, 0.0],
        [1.0, 1.0],
        [1.0, 1.0],
        [2.0, 0.0]
    ));
    assert!(segments_meet(
        [0.0, 0.0],
        [1.0, 1.0],
        [1.0, 1.0],
        [2.0, 0.0]
    ));
}
