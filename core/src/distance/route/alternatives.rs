//! Alternative routes: via-node candidates of the hierarchy, or penalised re-searches on the
//! turn graph with `avoid` (see the [module notes](super)).
use crate::routing::Metric;
use crate::routing::graph::TurnGraph;
use crate::routing::router::{
    ArcPath, Router, arc_path, arrivals, expand_sources, positions, targets,
};
use crate::routing::search::Dijkstra;
use crate::routing::snap::Snap;

use super::TripQuery;

fn arc_length(router: &Router, g: &TurnGraph, a: u32) -> f64 {
    router.net.edges[g.arc_edge[a as usize] as usize].length_m
}

fn shares(router: &Router, g: &TurnGraph, a: &[u32], b: &[u32]) -> f64 {
    let set: std::collections::HashSet<u32> = b.iter().map(|&x| g.original(x)).collect();
    let total: f64 = a.iter().map(|&x| arc_length(router, g, x)).sum();
    let other: f64 = b.iter().map(|&x| arc_length(router, g, x)).sum();
    let common: f64 = a
        .iter()
        .filter(|x| set.contains(&g.original(**x)))
        .map(|&x| arc_length(router, g, x))
        .sum();
    common / total.min(other).max(1e-9)
}

const STRETCH: f64 = 1.4;
const SHARE: f64 = 0.6;

/// Up to two alternatives to `best` (see the module notes).
pub(super) fn alternatives(
    router: &Router,
    g: &TurnGraph,
    q: &TripQuery,
    from: &Snap,
    to: &Snap,
    usable: Option<&dyn Fn(u32) -> bool>,
    best: &ArcPath,
) -> Vec<ArcPath> {
    let all = |_: u32| true;
    let ok: &dyn Fn(u32) -> bool = usable.unwrap_or(&all);
    let src = positions(g, from, ok);
    let dst = arrivals(g, to, ok);
    let starts = expand_sources(g, q.metric, &src, ok);
    let ends = targets(g, q.metric, &dst);
    let mut found: Vec<ArcPath> = Vec::new();
    let accept = |p: ArcPath, found: &mut Vec<ArcPath>| {
        if p.cost as f64 > best.cost as f64 * STRETCH {
            return;
        }
        let distinct = std::iter::once(best)
            .chain(found.iter())
            .all(|k| shares(router, g, &p.arcs, &k.arcs) <= SHARE);
        if distinct && found.len() < 2 {
            found.push(p);
        }
    };
    let to_path = |cost: u64, arcs: Vec<u32>| arc_path(&starts, &src, &dst, cost, arcs);
    let ch = if usable.is_none() {
        router.hierarchy(q.profile, q.metric)
    } else {
        None
    };
    if let Some(ch) = &ch {
        let s: Vec<(u32, u64)> = starts.iter().map(|x| (x.0, x.1)).collect();
        let t: Vec<(u32, u64)> = ends.iter().map(|x| (x.0, x.1)).collect();
        let len = |a: u32| arc_length(router, g, a);
        for (cost, arcs) in ch.alternatives(&s, &t, 6, (STRETCH, SHARE), &len) {
            if let Some(p) = to_path(cost, arcs) {
                accept(p, &mut found);
            }
        }
    }
    // The hierarchy's via nodes depend on its contraction order and can miss a genuine
    // alternative: then (and with `avoid`) the penalised re-searches run.
    if found.is_empty() {
        // Penalty method on the turn graph. Penalised costs are never below the real ones, so
        // the distance metric's bound (ADR 0006) still never overestimates and directs each
        // search; the time metric searches undirected.
        let mut penalised: std::collections::HashSet<u32> = best.arcs.iter().copied().collect();
        let mut d = Dijkstra::new(g.arc_count());
        let bound = router.distance_bound(g, to.point);
        for _ in 0..3 {
            let s: Vec<(u32, i64)> = starts.iter().map(|x| (x.0, x.1 as i64)).collect();
            let t: Vec<(u32, i64)> = ends.iter().map(|x| (x.0, x.1 as i64)).collect();
            let weight = |a: u32, tr: u32| {
                let w = g.transition_cost(q.metric, a, tr);
                Some(if penalised.contains(&a) { w * 3 / 2 } else { w })
            };
            let searched = match q.metric {
                Metric::Distance => d.shortest_towards(g, &s, &t, weight, ok, &bound),
                Metric::Time => d.shortest(g, &s, &t, weight, ok),
            };
            let Some(f) = searched else {
                break;
            };
            // The real cost of the path found.
            let mut cost = starts.iter().find(|x| x.0 == f.arcs[0]).map_or(0, |x| x.1);
            for w in f.arcs.windows(2) {
                cost += g
                    .out_range(w[0])
                    .find(|&t| g.head[t as usize] == w[1])
                    .map_or(0, |t| g.transition_cost(q.metric, w[0], t));
            }
            if let Some(last) = f.arcs.last() {
                cost += ends.iter().find(|x| x.0 == *last).map_or(0, |x| x.1);
            }
            penalised.extend(f.arcs.iter().copied());
            if let Some(p) = to_path(cost, f.arcs) {
                accept(p, &mut found);
            }
        }
    }
    found.sort_by_key(|p| p.cost);
    found
}
