//! Turn restrictions of the Neubrandenburg and Helsinki extracts are obeyed by the prepared
//! hierarchies and by Dijkstra (and would be broken without them), and avoid options never
//! route over an avoided edge when another way exists (Andorra).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use waymark_core::api::{LatLng, RouteAvoid};
use waymark_core::distance::excluded_edges;
use waymark_core::geo::Pt;
use waymark_core::routing::graph::{NO_ARC, TurnGraph};
use waymark_core::routing::router::{SearchAlgorithm, expand_sources, positions, targets};
use waymark_core::routing::search::Dijkstra;
use waymark_core::routing::snap::Snap;
use waymark_core::routing::{Metric, Profile, RoadNetwork, Router};
use waymark_tests::{Rng, routing_pack};

fn open(id: &str) -> Router {
    let dir = routing_pack(id);
    let conn = rusqlite::Connection::open(dir.join("data.sqlite")).unwrap();
    Router::open(id, &dir, &conn).unwrap()
}

/// A snapped point at `offset` along arc `a` (in the arc's direction).
fn on_arc(r: &Router, g: &TurnGraph, a: u32, offset: f64) -> Snap {
    let e = g.arc_edge[a as usize];
    let fraction = if g.arc_forward[a as usize] {
        offset
    } else {
        1.0 - offset
    };
    let geom = r.net.geometry(e);
    Snap {
        edge: e,
        fraction,
        point: geom[0],
        distance_m: 0.0,
    }
}

fn head_node(r: &Router, g: &TurnGraph, a: u32) -> u32 {
    let e = &r.net.edges[g.arc_edge[a as usize] as usize];
    if g.arc_forward[a as usize] {
        e.to
    } else {
        e.from
    }
}

fn tail_node(r: &Router, g: &TurnGraph, a: u32) -> u32 {
    let e = &r.net.edges[g.arc_edge[a as usize] as usize];
    if g.arc_forward[a as usize] {
        e.from
    } else {
        e.to
    }
}

fn way(r: &Router, g: &TurnGraph, a: u32) -> i64 {
    r.net.edges[g.arc_edge[a as usize] as usize].way_id
}

/// Whether consecutive arcs of `path` break a restriction of the raw data.
fn violates(r: &Router, g: &TurnGraph, path: &[u32]) -> Option<i64> {
    for w in path.windows(2) {
        let (a, b) = (w[0], w[1]);
        let v = head_node(r, g, a);
        for res in &r.net.restrictions {
            if res.via_node != Some(v) || !g.profile.restricted_by(res.except.as_deref()) {
                continue;
            }
            if way(r, g, a) != res.from_way {
                continue;
            }
            let onto_to = way(r, g, b) == res.to_way && tail_node(r, g, b) == v;
            if (res.only && !onto_to) || (!res.only && onto_to) {
                return Some(res.relation_id);
            }
        }
    }
    // Via-way restrictions: from → via ways (in order, one or more arcs each) → to.
    for res in r.net.restrictions.iter().filter(|x| x.via_node.is_none()) {
        if res.only || !g.profile.restricted_by(res.except.as_deref()) {
            continue;
        }
        for start in 0..path.len() {
            if way(r, g, path[start]) != res.from_way {
                continue;
            }
            let mut i = start + 1;
            let mut ok = true;
            for vw in &res.via_ways {
                let from = i;
                while i < path.len() && way(r, g, path[i]) == *vw {
                    i += 1;
                }
                if i == from {
                    ok = false;
                    break;
                }
            }
            if ok && i < path.len() && way(r, g, path[i]) == res.to_way {
                return Some(res.relation_id);
            }
        }
    }
    None
}

/// Cases around each restriction: a point on a `from` arc just before the via and a point
/// on a `to` arc just after it.
fn cases(r: &Router, g: &TurnGraph) -> Vec<(Snap, Snap)> {
    let mut out = Vec::new();
    for res in &r.net.restrictions {
        if !g.profile.restricted_by(res.except.as_deref()) {
            continue;
        }
        let from: Vec<u32> = (0..g.original_arcs)
            .filter(|&a| way(r, g, a) == res.from_way)
            .filter(|&a| res.via_node.is_none_or(|v| head_node(r, g, a) == v))
            .collect();
        let to: Vec<u32> = (0..g.original_arcs)
            .filter(|&a| way(r, g, a) == res.to_way)
            .filter(|&a| res.via_node.is_none_or(|v| tail_node(r, g, a) == v))
            .collect();
        for &fa in &from {
            for &ta in &to {
                if fa != ta {
                    out.push((on_arc(r, g, fa, 0.8), on_arc(r, g, ta, 0.2)));
                }
            }
        }
    }
    out
}

fn check_restrictions(id: &str) {
    let r = open(id);
    let g = r.graph(Profile::Driving);
    let all = |_: u32| true;
    // The same network without its restrictions, to show the cases matter.
    let dir = routing_pack(id);
    let conn = rusqlite::Connection::open(dir.join("data.sqlite")).unwrap();
    let mut free_net = RoadNetwork::load(&conn).unwrap();
    free_net.restrictions.clear();
    let free = TurnGraph::build(&free_net, Profile::Driving);
    let mut d = Dijkstra::new(free.arc_count());
    let cases = cases(&r, &g);
    assert!(
        cases.len() >= 10,
        "{id}: only {} restriction cases",
        cases.len()
    );
    let (mut routed, mut would_violate) = (0, 0);
    for (s, t) in &cases {
        for algorithm in [SearchAlgorithm::Ch, SearchAlgorithm::Dijkstra] {
            if let Some(p) = r.path(Profile::Driving, Metric::Time, s, t, None, algorithm) {
                routed += 1;
                assert_eq!(
                    violates(&r, &g, &p.arcs),
                    None,
                    "{id}: {algorithm:?} path breaks a restriction"
                );
            }
        }
        let src = positions(&free, s, &all);
        let dst = positions(&free, t, &all);
        let st: Vec<(u32, i64)> = expand_sources(&free, Metric::Time, &src, &all)
            .iter()
            .map(|x| (x.0, x.1 as i64))
            .collect();
        let tt: Vec<(u32, i64)> = targets(&free, Metric::Time, &dst)
            .iter()
            .map(|x| (x.0, x.1 as i64))
            .collect();
        if let Some(f) = d.shortest(
            &free,
            &st,
            &tt,
            |a, t| Some(free.transition_cost(Metric::Time, a, t)),
            all,
        ) {
            let mut arcs = vec![src[0].arc];
            arcs.extend(f.arcs);
            // Arc ids of `free` equal those of `g` for original arcs (same edges, same order).
            if violates(&r, &g, &arcs).is_some() {
                would_violate += 1;
            }
        }
    }
    assert!(
        routed > cases.len(),
        "{id}: too few routes found ({routed})"
    );
    assert!(
        would_violate > 0,
        "{id}: no case would have broken a restriction without them"
    );
}

#[test]
fn neubrandenburg_turn_restrictions_are_obeyed() {
    check_restrictions("neubrandenburg");
}

#[test]
fn helsinki_turn_restrictions_are_obeyed() {
    check_restrictions("helsinki");
}

#[test]
fn avoided_edges_are_never_used_when_another_way_exists() {
    let r = open("andorra");
    let mut rng = Rng::new(77);
    let avoids = [
        vec![RouteAvoid::Tolls],
        vec![RouteAvoid::Highways],
        vec![RouteAvoid::Polygon(vec![
            LatLng::new(42.50, 1.50),
            LatLng::new(42.50, 1.54),
            LatLng::new(42.52, 1.54),
            LatLng::new(42.52, 1.50),
        ])],
    ];
    let mut checked = 0;
    for avoid in &avoids {
        let excluded = excluded_edges(&r, avoid).unwrap();
        assert!(excluded.iter().any(|&x| x), "{avoid:?} excludes something");
        let g = r.graph(Profile::Driving);
        let usable = |a: u32| !excluded[g.arc_edge[a as usize] as usize];
        let edge_ok = |e: u32| !excluded[e as usize];
        for _ in 0..150 {
            let pick = |rng: &mut Rng| {
                let n = r.net.nodes[rng.below(r.net.nodes.len())];
                Pt::new(n.lat, n.lng)
            };
            let (a, b) = (pick(&mut rng), pick(&mut rng));
            let (Some(s), Some(t)) = (
                r.snap(Profile::Driving, a, &edge_ok),
                r.snap(Profile::Driving, b, &edge_ok),
            ) else {
                continue;
            };
            match r.path(
                Profile::Driving,
                Metric::Time,
                &s,
                &t,
                Some(&usable),
                SearchAlgorithm::Ch,
            ) {
                Some(p) => {
                    checked += 1;
                    for &arc in &p.arcs {
                        assert!(
                            !excluded[g.arc_edge[arc as usize] as usize],
                            "{avoid:?}: the route uses an avoided edge"
                        );
                    }
                    // Never better than the unrestricted optimum.
                    let best = r
                        .path(
                            Profile::Driving,
                            Metric::Time,
                            &s,
                            &t,
                            None,
                            SearchAlgorithm::Ch,
                        )
                        .unwrap();
                    assert!(p.cost >= best.cost);
                }
                None => {
                    // Then no arc of the target is reachable over usable arcs at all.
                    let all_ok: &dyn Fn(u32) -> bool = &usable;
                    let src = positions(&g, &s, all_ok);
                    let st: Vec<(u32, i64)> = expand_sources(&g, Metric::Time, &src, all_ok)
                        .iter()
                        .map(|x| (x.0, x.1 as i64))
                        .collect();
                    let mut d = Dijkstra::new(g.arc_count());
                    d.explore(&g, &st, i64::MAX, |_, _| Some(1), usable);
                    let arcs = g.edge_arcs[t.edge as usize];
                    assert!(
                        arcs.iter().all(|&x| x == NO_ARC || d.reached(x).is_none()),
                        "a usable way existed"
                    );
                }
            }
        }
    }
    assert!(checked > 300, "{checked} routes checked");
}
