//! `GET /distance/route/json` and the route part of `GET /distance/tolls/json`.
//!
//! * **Search.** Without `avoid`, each leg is a query on the prepared hierarchy of the
//!   profile and metric. With `avoid` (tolls, highways, ferries, polygons) the hierarchy does
//!   not apply — it was contracted with those edges in it — so the leg is a plain Dijkstra on
//!   the turn graph with the avoided edges removed, snapping included. When no route avoids
//!   them, the route that uses them is returned with a `notice` saying so.
//! * **Waypoints** `optimize:true`: the points between the fixed origin and destination are
//!   reordered to minimise the total cost in the request's metric (exactly, by dynamic
//!   programming, up to 10 waypoints; nearest neighbour then 2-opt above), from a cost matrix
//!   of the hierarchy's many-to-many search.
//! * **Alternatives** (2–3 routes): via-node candidates of the hierarchy (or, with `avoid`,
//!   penalised re-searches: arcs of the routes found cost 1.5× more), kept when they cost at
//!   most 1.4× the best and share at most 60 % of their length with every route kept before.
//! * **Time of day.** Offline there is no live traffic. With `departure_time` or
//!   `arrival_time` the free-flow `duration_without_traffic` is multiplied, per road class, by
//!   a fixed typical-congestion profile at the local time of the leg's start (motor vehicles
//!   only): weekday peaks 07:00–09:30 and 16:30–19:00 ×1.25 on motorways and trunk roads and
//!   ×1.40 on other roads, weekday daytime 09:30–16:30 ×1.10 / ×1.15, evenings 19:00–22:00
//!   ×1.05, weekend daytime 10:00–19:00 ×1.05 / ×1.10, otherwise ×1.0. With `arrival_time` the
//!   departure is found by fixed-point iteration.
use crate::api::*;
use crate::geo::{BBox, Pt, bearing_deg, encode_polyline, line_length_m, sub_line, turn_angle};
use crate::routing::Profile;
use crate::routing::graph::TurnGraph;
use crate::routing::profile::{Highway, Metric};
use crate::routing::router::{
    ArcPath, Router, SearchAlgorithm, expand_sources, positions, targets,
};
use crate::routing::search::Dijkstra;
use crate::routing::snap::Snap;

use super::text::{self, Maneuver};
use super::{LocalClock, RoutingPack};

/// `departure_time` or `arrival_time`, resolved to UNIX seconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum When {
    /// Leave at.
    Depart(i64),
    /// Arrive at.
    Arrive(i64),
}

/// What to route.
#[derive(Debug, Clone)]
pub struct TripQuery {
    /// Origin, waypoints, destination.
    pub points: Vec<Pt>,
    /// Reorder the waypoints.
    pub optimize: bool,
    /// Profile.
    pub profile: Profile,
    /// Metric.
    pub metric: Metric,
    /// Avoid options.
    pub avoid: Vec<RouteAvoid>,
    /// Alternatives wanted.
    pub alternatives: bool,
    /// Time of day.
    pub when: Option<When>,
}

/// A computed leg.
#[derive(Debug, Clone)]
pub struct TripLeg {
    /// The path.
    pub path: ArcPath,
    /// Index of the start in the request's points.
    pub from: usize,
    /// Index of the end.
    pub to: usize,
    /// Snapped start.
    pub from_snap: Snap,
    /// Snapped end.
    pub to_snap: Snap,
    /// Length, m.
    pub distance_m: f64,
    /// Free-flow duration, s.
    pub duration_s: f64,
    /// Duration at the time of day, s (when a time was given).
    pub traffic_s: Option<f64>,
}

/// A computed route.
#[derive(Debug, Clone)]
pub struct Trip {
    /// Legs.
    pub legs: Vec<TripLeg>,
    /// Notice.
    pub notice: Option<String>,
}

/// Most waypoints per request.
pub const MAX_WAYPOINTS: usize = 25;

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
    let excluded = super::excluded_edges(router, &q.avoid);
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
        match router.snap(q.profile, *p, &edge_ok) {
            Some(s) => snaps.push(s),
            None => return Vec::new(),
        }
    }
    let mut order: Vec<usize> = (0..snaps.len()).collect();
    if q.optimize && snaps.len() > 3 {
        let some: Vec<Option<Snap>> = snaps.iter().copied().map(Some).collect();
        let m = router.matrix(q.profile, q.metric, &some, &some, usable);
        let cost = |i: usize, j: usize| m[i][j].map_or(u64::MAX / 4, |c| c.0);
        order = optimize_order(snaps.len(), &cost);
    }
    let mut legs = Vec::new();
    for w in order.windows(2) {
        let (i, j) = (w[0], w[1]);
        let Some(path) = router.path(
            q.profile,
            q.metric,
            &snaps[i],
            &snaps[j],
            usable,
            SearchAlgorithm::Ch,
        ) else {
            return Vec::new();
        };
        legs.push(leg(router, q.profile, path, (i, j), (snaps[i], snaps[j])));
    }
    let mut trips = vec![Trip { legs, notice: None }];
    if q.alternatives && snaps.len() == 2 {
        for path in alternatives(
            router,
            &g,
            q,
            &snaps[0],
            &snaps[1],
            usable,
            &trips[0].legs[0].path,
        ) {
            trips.push(Trip {
                legs: vec![leg(router, q.profile, path, (0, 1), (snaps[0], snaps[1]))],
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
fn alternatives(
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
    let dst = positions(g, to, ok);
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
    let to_path = |cost: u64, arcs: Vec<u32>| -> Option<ArcPath> {
        let first = *arcs.first()?;
        let last = *arcs.last()?;
        let src_arc = starts.iter().find(|x| x.0 == first)?.3;
        let start = src.iter().find(|p| p.arc == src_arc)?.offset;
        let end = dst.iter().find(|p| p.arc == last)?.offset;
        let mut full = vec![src_arc];
        full.extend(arcs);
        Some(ArcPath {
            cost,
            arcs: full,
            start,
            end,
        })
    };
    let ch = if usable.is_none() {
        router.hierarchy(q.profile, q.metric)
    } else {
        None
    };
    if let Some(ch) = ch {
        let s: Vec<(u32, u64)> = starts.iter().map(|x| (x.0, x.1)).collect();
        let t: Vec<(u32, u64)> = ends.iter().map(|x| (x.0, x.1)).collect();
        let len = |a: u32| arc_length(router, g, a);
        for (cost, arcs) in ch.alternatives(&s, &t, 6, (STRETCH, SHARE), &len) {
            if let Some(p) = to_path(cost, arcs) {
                accept(p, &mut found);
            }
        }
    } else {
        // Penalty method on the turn graph.
        let mut penalised: std::collections::HashSet<u32> = best.arcs.iter().copied().collect();
        let mut d = Dijkstra::new(g.arc_count());
        for _ in 0..3 {
            let s: Vec<(u32, i64)> = starts.iter().map(|x| (x.0, x.1 as i64)).collect();
            let t: Vec<(u32, i64)> = ends.iter().map(|x| (x.0, x.1 as i64)).collect();
            let weight = |a: u32, tr: u32| {
                let w = g.transition_cost(q.metric, a, tr);
                Some(if penalised.contains(&a) { w * 3 / 2 } else { w })
            };
            let Some(f) = d.shortest(g, &s, &t, weight, ok) else {
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

/// The typical-congestion factor of a road class at a local time (see the module notes).
pub fn traffic_factor(highway: Highway, local_minutes: u32, weekday: bool) -> f64 {
    let fast = highway.is_highway();
    let m = local_minutes % 1440;
    let h = |hh: u32, mm: u32| hh * 60 + mm;
    if highway == Highway::Ferry || highway == Highway::Track {
        return 1.0;
    }
    if weekday && ((h(7, 0)..h(9, 30)).contains(&m) || (h(16, 30)..h(19, 0)).contains(&m)) {
        if fast { 1.25 } else { 1.40 }
    } else if weekday && (h(9, 30)..h(16, 30)).contains(&m) {
        if fast { 1.10 } else { 1.15 }
    } else if (h(19, 0)..h(22, 0)).contains(&m) {
        1.05
    } else if !weekday && (h(10, 0)..h(19, 0)).contains(&m) {
        if fast { 1.05 } else { 1.10 }
    } else {
        1.0
    }
}

fn traffic_duration(
    router: &Router,
    profile: Profile,
    leg: &TripLeg,
    depart: i64,
    clock: LocalClock<'_>,
) -> f64 {
    use chrono::{Datelike, Timelike};
    let local = depart + clock.utc_offset(leg.from_snap.point, depart);
    let Some(t) = chrono::DateTime::from_timestamp(local, 0) else {
        return leg.duration_s;
    };
    let minutes = t.hour() * 60 + t.minute();
    let weekday = t.weekday().number_from_monday() <= 5;
    let g = router.graph(profile);
    let p = &leg.path;
    let n = p.arcs.len();
    let mut ms = 0.0;
    for (i, &a) in p.arcs.iter().enumerate() {
        let from = if i == 0 { p.start } else { 0.0 };
        let to = if i + 1 == n { p.end } else { 1.0 };
        let e = &router.net.edges[g.arc_edge[a as usize] as usize];
        let f = traffic_factor(e.highway, minutes, weekday);
        let mut t = f64::from(g.arc_time_ms[a as usize]) * (to - from).max(0.0);
        if i + 1 < n {
            t += f64::from(g.turn_between(a, p.arcs[i + 1]).unwrap_or(0));
        }
        ms += t * f;
    }
    ms / 1000.0
}

fn apply_time_of_day(
    router: &Router,
    profile: Profile,
    trip: &mut Trip,
    when: When,
    clock: LocalClock<'_>,
) {
    let total = |trip: &Trip, depart: i64| -> Vec<f64> {
        let mut t = depart as f64;
        trip.legs
            .iter()
            .map(|l| {
                let d = traffic_duration(router, profile, l, t.round() as i64, clock);
                t += d;
                d
            })
            .collect()
    };
    let durations = match when {
        When::Depart(t) => total(trip, t),
        When::Arrive(arrive) => {
            let mut depart = arrive - trip.legs.iter().map(|l| l.duration_s).sum::<f64>() as i64;
            let mut d = total(trip, depart);
            for _ in 0..3 {
                let next = arrive - d.iter().sum::<f64>().round() as i64;
                if next == depart {
                    break;
                }
                depart = next;
                d = total(trip, depart);
            }
            d
        }
    };
    for (l, d) in trip.legs.iter_mut().zip(durations) {
        l.traffic_s = Some(d);
    }
}

/// The points of an arc between offsets `from` and `to`, appended without repeating the last
/// point already in `out`.
fn arc_points(router: &Router, g: &TurnGraph, a: u32, from: f64, to: f64, out: &mut Vec<Pt>) {
    let e = g.arc_edge[a as usize];
    let geom = router.net.geometry(e);
    let mut tmp: Vec<Pt> = Vec::new();
    let full = from <= 0.0 && to >= 1.0;
    if g.arc_forward[a as usize] {
        if full {
            tmp.extend_from_slice(geom);
        } else {
            sub_line(geom, from, to, &mut tmp);
        }
    } else {
        let rev: Vec<Pt> = geom.iter().rev().copied().collect();
        if full {
            tmp = rev;
        } else {
            sub_line(&rev, from, to, &mut tmp);
        }
    }
    for p in tmp {
        if out.last() != Some(&p) {
            out.push(p);
        }
    }
}

/// Every point of a leg.
pub fn leg_points(router: &Router, g: &TurnGraph, p: &ArcPath) -> Vec<Pt> {
    let mut out = Vec::new();
    let n = p.arcs.len();
    for (i, &a) in p.arcs.iter().enumerate() {
        let from = if i == 0 { p.start } else { 0.0 };
        let to = if i + 1 == n { p.end } else { 1.0 };
        arc_points(router, g, a, from, to, &mut out);
    }
    out
}

/// A step under construction.
#[derive(Debug)]
pub struct StepParts {
    /// Manoeuvre.
    pub maneuver: Maneuver,
    /// Name of the way (name, else ref).
    pub name: String,
    /// Length, m.
    pub distance_m: f64,
    /// Duration, s.
    pub duration_s: f64,
    /// Points (only when geometry was asked for).
    pub points: Vec<Pt>,
    /// Start.
    pub start: Pt,
    /// End.
    pub end: Pt,
}

fn arc_bearings(router: &Router, g: &TurnGraph, a: u32) -> (f64, f64) {
    let geom = router.net.geometry(g.arc_edge[a as usize]);
    let n = geom.len();
    if g.arc_forward[a as usize] {
        (
            bearing_deg(geom[0], geom[1]),
            bearing_deg(geom[n - 2], geom[n - 1]),
        )
    } else {
        (
            bearing_deg(geom[n - 1], geom[n - 2]),
            bearing_deg(geom[1], geom[0]),
        )
    }
}

/// The steps of a leg: a new step starts where the way's name changes, at a U-turn, when
/// boarding a ferry, and at a junction turn of 40° or more; the last step is the arrival.
pub fn steps(router: &Router, g: &TurnGraph, leg: &TripLeg, geometry: bool) -> Vec<StepParts> {
    let p = &leg.path;
    let n = p.arcs.len();
    let mut out: Vec<StepParts> = Vec::new();
    let name_of = |a: u32| -> String {
        let e = g.arc_edge[a as usize];
        let name = router.net.name(e);
        if name.is_empty() {
            router.net.road_ref(e).to_string()
        } else {
            name.to_string()
        }
    };
    let mut cur: Option<StepParts> = None;
    for (i, &a) in p.arcs.iter().enumerate() {
        let from = if i == 0 { p.start } else { 0.0 };
        let to = if i + 1 == n { p.end } else { 1.0 };
        let share = (to - from).max(0.0);
        let e = &router.net.edges[g.arc_edge[a as usize] as usize];
        let name = name_of(a);
        let (b_out, _) = arc_bearings(router, g, a);
        let mut turn_s = 0.0;
        let new = match (i, cur.as_ref()) {
            (0, _) | (_, None) => Some(Maneuver::Depart(text::compass(b_out))),
            (_, Some(c)) => {
                let prev = p.arcs[i - 1];
                turn_s = f64::from(g.turn_between(prev, a).unwrap_or(0)) / 1000.0;
                let (_, b_in) = arc_bearings(router, g, prev);
                let dev = turn_angle(b_in, b_out);
                let prev_e = &router.net.edges[g.arc_edge[prev as usize] as usize];
                let u_turn = g.arc_edge[prev as usize] == g.arc_edge[a as usize];
                let junction = g.out_range(prev).len() >= 2;
                if u_turn {
                    Some(Maneuver::UTurn)
                } else if e.ferry && !prev_e.ferry {
                    Some(Maneuver::Ferry)
                } else if name != c.name || (junction && dev.abs() >= 40.0) {
                    Some(Maneuver::of_turn(dev))
                } else {
                    None
                }
            }
        };
        if let Some(m) = new {
            let start = cur.as_ref().map_or(leg.from_snap.point, |c| c.end);
            if let Some(done) = cur.take() {
                out.push(done);
            }
            cur = Some(StepParts {
                maneuver: m,
                name: name.clone(),
                distance_m: 0.0,
                duration_s: 0.0,
                points: if geometry { vec![start] } else { Vec::new() },
                start,
                end: start,
            });
        }
        if let Some(c) = cur.as_mut() {
            c.distance_m += e.length_m * share;
            c.duration_s += f64::from(g.arc_time_ms[a as usize]) * share / 1000.0 + turn_s;
            let mut pts = Vec::new();
            arc_points(router, g, a, from, to, &mut pts);
            if let Some(last) = pts.last() {
                c.end = *last;
            }
            if geometry {
                for q in pts {
                    if c.points.last() != Some(&q) {
                        c.points.push(q);
                    }
                }
            }
        }
    }
    if let Some(done) = cur.take() {
        out.push(done);
    }
    let end = leg.to_snap.point;
    out.push(StepParts {
        maneuver: Maneuver::Arrive,
        name: String::new(),
        distance_m: 0.0,
        duration_s: 0.0,
        points: if geometry { vec![end] } else { Vec::new() },
        start: end,
        end,
    });
    out
}

/// The bounds of points.
pub fn bounds(pts: impl IntoIterator<Item = Pt>) -> Viewport {
    let Some(b) = BBox::of(pts) else {
        return Viewport::default();
    };
    Viewport {
        northeast: super::latlng(Pt::new(b.north, b.east)),
        southwest: super::latlng(Pt::new(b.south, b.west)),
    }
}

/// Texts of a request.
#[derive(Debug, Clone, Copy)]
pub struct Texts {
    /// Units.
    pub units: Units,
    /// Language.
    pub lang: RouteLanguage,
}

impl Texts {
    /// The texts in `units` and `lang`.
    pub fn new(units: Units, lang: RouteLanguage) -> Self {
        Texts { units, lang }
    }
}

fn dist_text(m: f64, t: Texts) -> TextValue {
    TextValue {
        value: m.round().max(0.0) as u64,
        text: text::distance(m, t.units, t.lang),
    }
}

fn dur_text(s: f64, t: Texts) -> TextValue {
    TextValue {
        value: s.round().max(0.0) as u64,
        text: text::duration(s, t.lang),
    }
}

/// The route answer of planned trips.
pub fn route_response(
    routing: &RoutingPack,
    profile: Profile,
    trips: &[Trip],
    texts: Texts,
    details: bool,
) -> RouteResponse {
    let router = &routing.router;
    let g = router.graph(profile);
    let mut routes = Vec::with_capacity(trips.len());
    for (k, trip) in trips.iter().enumerate() {
        let mut all_points: Vec<Pt> = Vec::new();
        let mut legs = Vec::with_capacity(trip.legs.len());
        let mut longest: (f64, String) = (-1.0, String::new());
        for l in &trip.legs {
            let pts = leg_points(router, &g, &l.path);
            for p in &pts {
                if all_points.last() != Some(p) {
                    all_points.push(*p);
                }
            }
            let parts = steps(router, &g, l, details);
            for s in &parts {
                if s.distance_m > longest.0 && !s.name.is_empty() {
                    longest = (s.distance_m, s.name.clone());
                }
            }
            let step_list = details.then(|| {
                parts
                    .iter()
                    .map(|s| RouteStep {
                        distance: dist_text(s.distance_m, texts),
                        duration: dur_text(s.duration_s, texts),
                        start_location: super::latlng(s.start),
                        end_location: super::latlng(s.end),
                        polyline: EncodedPolyline {
                            points: encode_polyline(s.points.iter().copied(), 5),
                        },
                        instruction: text::instruction(s.maneuver, &s.name, texts.lang),
                        maneuver: s.maneuver.code().to_string(),
                        name: s.name.clone(),
                    })
                    .collect()
            });
            let duration = l.traffic_s.unwrap_or(l.duration_s);
            legs.push(RouteLeg {
                distance: dist_text(l.distance_m, texts),
                duration: dur_text(duration, texts),
                duration_without_traffic: l.traffic_s.map(|_| dur_text(l.duration_s, texts)),
                start_location: super::latlng(l.from_snap.point),
                end_location: super::latlng(l.to_snap.point),
                start_waypoint: l.from as u32,
                end_waypoint: l.to as u32,
                start_address: routing.addresses.nearest(l.from_snap.point),
                end_address: routing.addresses.nearest(l.to_snap.point),
                steps: step_list,
            });
        }
        routes.push(Route {
            overview_polyline: EncodedPolyline {
                points: encode_polyline(all_points.iter().copied(), 5),
            },
            bounds: bounds(all_points.iter().copied()),
            notice: trip.notice.clone(),
            legs,
            main_route_name: longest.1,
            recommended: k == 0,
        });
    }
    RouteResponse {
        status: DistanceStatus::Ok,
        routes,
    }
}

/// The toll answer of planned trips.
pub fn tolls_response(
    routing: &RoutingPack,
    profile: Profile,
    trips: &[Trip],
    texts: Texts,
) -> TollsResponse {
    let router = &routing.router;
    let g = router.graph(profile);
    let routes = trips
        .iter()
        .map(|trip| {
            let mut all_points: Vec<Pt> = Vec::new();
            let legs = trip
                .legs
                .iter()
                .map(|l| {
                    for p in leg_points(router, &g, &l.path) {
                        if all_points.last() != Some(&p) {
                            all_points.push(p);
                        }
                    }
                    let (tolls, toll_systems) =
                        routing.tolls.leg_tolls(router, &g, &l.path, profile);
                    TollLeg {
                        distance: dist_text(l.distance_m, texts),
                        duration: dur_text(l.traffic_s.unwrap_or(l.duration_s), texts),
                        start_location: super::latlng(l.from_snap.point),
                        end_location: super::latlng(l.to_snap.point),
                        tolls,
                        toll_systems,
                    }
                })
                .collect();
            TollRoute {
                overview_polyline: EncodedPolyline {
                    points: encode_polyline(all_points.iter().copied(), 5),
                },
                bounds: bounds(all_points.iter().copied()),
                legs,
            }
        })
        .collect();
    TollsResponse {
        status: DistanceStatus::Ok,
        routes,
    }
}
