//! Planning a trip: snapping, legs on the hierarchy (or, with `avoid`, on the turn graph
//! without the avoided edges), the waypoint order of `optimize:true`, alternatives and
//! time-of-day durations (see the [module notes](super)).
use crate::api::{DistanceStatus, MAX_ROUTE_LENGTH_M, RouteAvoid};
use crate::distance::{LocalClock, RoutingPack};
use crate::geo::line_length_m;
use crate::routing::Profile;
use crate::routing::reach::SnapCandidates;
use crate::routing::router::{ArcPath, Router, SearchAlgorithm};
use crate::routing::snap::Snap;

use super::alternatives::alternatives;
use super::traffic::apply_time_of_day;
use super::{Trip, TripLeg, TripQuery};

fn avoid_words(avoid: &[RouteAvoid]) -> String {
    let mut w: Vec<&str> = Vec::new();
    for a in avoid {
        w.push(match a {
            RouteAvoid::Tolls => "tolls",
            RouteAvoid::Highways => "highways",
            RouteAvoid::Ferries => "ferries",
            RouteAvoid::Polygon(_) => "the avoided areas",
        });
    }
    w.dedup();
    w.join(", ")
}

/// Plans the trip on `routing`, best route first, with time-of-day traffic at the local time
/// `clock` tells; without routes, the status saying why (`ZERO_RESULTS`,
/// `MAX_ROUTE_LENGTH_EXCEEDED`).
pub fn plan(
    routing: &RoutingPack,
    q: &TripQuery,
    clock: LocalClock<'_>,
) -> Result<Vec<Trip>, DistanceStatus> {
    if line_length_m(&q.points) > MAX_ROUTE_LENGTH_M as f64 {
        return Err(DistanceStatus::MaxRouteLengthExceeded);
    }
    let router = &routing.router;
    let excluded = crate::distance::excluded_edges(router, &q.avoid);
    let mut trips = match excluded.as_deref() {
        Some(ex) => {
            let trips = plan_with(router, q, Some(ex));
            if trips.is_empty() {
                let mut fallback = plan_with(router, q, None);
                for t in &mut fallback {
                    t.notice = Some(format!(
                        "no route avoids {}; this route does not avoid them",
                        avoid_words(&q.avoid)
                    ));
                }
                fallback
            } else {
                trips
            }
        }
        None => plan_with(router, q, None),
    };
    if trips.is_empty() {
        return Err(DistanceStatus::ZeroResults);
    }
    if trips[0].legs.iter().map(|l| l.distance_m).sum::<f64>() > MAX_ROUTE_LENGTH_M as f64 {
        return Err(DistanceStatus::MaxRouteLengthExceeded);
    }
    if let Some(when) = q.when {
        for t in &mut trips {
            if q.profile.is_motor() {
                apply_time_of_day(router, q.profile, t, when, clock);
            } else {
                // No congestion on foot or by bicycle: the duration is the free-flow one.
                for l in &mut t.legs {
                    l.traffic_s = Some(l.duration_s);
                }
            }
        }
    }
    Ok(trips)
}

fn plan_with(router: &Router, q: &TripQuery, excluded: Option<&[bool]>) -> Vec<Trip> {
    let g = router.graph(q.profile);
    let edge_ok = |e: u32| excluded.is_none_or(|x| !x[e as usize]);
    let arc_ok = |a: u32| excluded.is_none_or(|x| !x[g.arc_edge[a as usize] as usize]);
    let usable: Option<&dyn Fn(u32) -> bool> = if excluded.is_some() {
        Some(&arc_ok)
    } else {
        None
    };
    let mut snaps = Vec::with_capacity(q.points.len());
    for p in &q.points {
        match router.snap_candidates(q.profile, *p, &edge_ok) {
            Some(s) => snaps.push(s),
            None => return Vec::new(),
        }
    }
    let mut order: Vec<usize> = (0..snaps.len()).collect();
    if q.optimize && snaps.len() > 3 {
        let some: Vec<Option<SnapCandidates>> = snaps.iter().copied().map(Some).collect();
        let m = router.matrix_candidates(q.profile, q.metric, &some, &some, usable);
        let cost = |i: usize, j: usize| m[i][j].map_or(u64::MAX / 4, |c| c.0);
        order = optimize_order(snaps.len(), &cost);
    }
    let mut legs = Vec::new();
    for w in order.windows(2) {
        let (i, j) = (w[0], w[1]);
        let Some((path, from, to)) = router.path_between(
            q.profile,
            q.metric,
            &snaps[i],
            &snaps[j],
            usable,
            SearchAlgorithm::Ch,
        ) else {
            return Vec::new();
        };
        legs.push(leg(router, q.profile, path, (i, j), (from, to)));
    }
    let mut trips = vec![Trip { legs, notice: None }];
    if q.alternatives && snaps.len() == 2 {
        let (from, to) = (trips[0].legs[0].from_snap, trips[0].legs[0].to_snap);
        for path in alternatives(router, &g, q, &from, &to, usable, &trips[0].legs[0].path) {
            trips.push(Trip {
                legs: vec![leg(router, q.profile, path, (0, 1), (from, to))],
                notice: None,
            });
        }
    }
    trips
}

fn leg(
    router: &Router,
    profile: Profile,
    path: ArcPath,
    (from, to): (usize, usize),
    (from_snap, to_snap): (Snap, Snap),
) -> TripLeg {
    let (distance_m, duration_ms) = router.measure(profile, &path);
    TripLeg {
        path,
        from,
        to,
        from_snap,
        to_snap,
        distance_m,
        duration_s: duration_ms / 1000.0,
        traffic_s: None,
    }
}

/// The visiting order minimising the total cost, start and end fixed.
pub fn optimize_order(n: usize, cost: &dyn Fn(usize, usize) -> u64) -> Vec<usize> {
    let inner: Vec<usize> = (1..n - 1).collect();
    let k = inner.len();
    if k <= 10 {
        // Held-Karp over subsets of the inner points.
        let full = 1usize << k;
        let inf = u64::MAX / 4;
        let mut dp = vec![inf; full * k];
        let mut parent = vec![usize::MAX; full * k];
        for j in 0..k {
            dp[(1 << j) * k + j] = cost(0, inner[j]);
        }
        for mask in 1..full {
            for j in 0..k {
                let cur = dp[mask * k + j];
                if mask & (1 << j) == 0 || cur >= inf {
                    continue;
                }
                for nx in 0..k {
                    if mask & (1 << nx) != 0 {
                        continue;
                    }
                    let m2 = mask | (1 << nx);
                    let c = cur.saturating_add(cost(inner[j], inner[nx])).min(inf);
                    if c < dp[m2 * k + nx] {
                        dp[m2 * k + nx] = c;
                        parent[m2 * k + nx] = j;
                    }
                }
            }
        }
        let last_mask = full - 1;
        let mut best = (u64::MAX, 0);
        for j in 0..k {
            let c = dp[last_mask * k + j].saturating_add(cost(inner[j], n - 1));
            if c < best.0 {
                best = (c, j);
            }
        }
        let mut seq = Vec::with_capacity(k);
        let (mut mask, mut j) = (last_mask, best.1);
        while j != usize::MAX && mask != 0 {
            seq.push(inner[j]);
            let p = parent[mask * k + j];
            mask &= !(1 << j);
            j = p;
        }
        seq.reverse();
        if seq.len() != k {
            // Some waypoint cannot be reached: keep the given order (the legs will say so).
            return (0..n).collect();
        }
        let mut order = vec![0];
        order.extend(seq);
        order.push(n - 1);
        return order;
    }
    // Nearest neighbour, then 2-opt on the inner points.
    let mut left: Vec<usize> = inner;
    let mut order = vec![0];
    while !left.is_empty() {
        let cur = *order.last().unwrap_or(&0);
        let (idx, _) = left
            .iter()
            .enumerate()
            .min_by_key(|(_, p)| cost(cur, **p))
            .unwrap_or((0, &0));
        order.push(left.remove(idx));
    }
    order.push(n - 1);
    let total = |o: &[usize]| {
        o.windows(2)
            .map(|w| cost(w[0], w[1]))
            .fold(0u64, u64::saturating_add)
    };
    let mut improved = true;
    let mut best = total(&order);
    while improved {
        improved = false;
        for i in 1..order.len() - 2 {
            for j in i + 1..order.len() - 1 {
                order[i..=j].reverse();
                let t = total(&order);
                if t < best {
                    best = t;
                    improved = true;
                } else {
                    order[i..=j].reverse();
                }
            }
        }
    }
    order
}
