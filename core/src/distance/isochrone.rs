//! `GET /distance/isochrone/json`: the area reachable from `origin` within `value` minutes
//! (`method=time`) or kilometres (`method=distance`).
//!
//! 1. **Reach.** A Dijkstra bounded by the budget on the turn graph of the mode (avoid options
//!    removed, as for routes), from the snapped origin. An arc reached with budget left is
//!    kept in full when the rest covers it, else the part of it the rest covers (partial
//!    edges), including the origin's own arc. The origin snaps onto the main network unless a
//!    search from its nearest edge reaches it or that edge's component is itself large
//!    ([`crate::routing::reach::Reach::origin`]).
//! 2. **Outline.** The reached road geometry is drawn on a grid (about 120 cells across the
//!    reached extent, cells of at least 15 m), each marked cell is grown by one cell, holes are
//!    filled, diagonal pinches closed, and the boundary of the largest connected region is
//!    traced and simplified (Douglas–Peucker, half a cell). The outline follows the network:
//!    valleys without roads stay outside, unlike a convex hull.
//! 3. The ring (closed: first point repeated last) is an encoded polyline, precision 5.
//!
//! Long ranges cost at most one search over the pack's graph plus the grid, so they do not
//! time out. The time-based variant (not shown in the spec) is `{origin, time: {value, text},
//! geometry}` with `time.value` in seconds; the distance-based one reports `distance.value` in
//! metres.
use std::collections::VecDeque;

use crate::api::*;
use crate::geo::{LocalProjection, Pt, encode_polyline, sub_line};
use crate::routing::router::{expand_sources, positions};
use crate::routing::search::Dijkstra;
use crate::routing::{Metric, Profile};

use super::RoutingPack;
use super::route::Texts;

/// The reachable outline as a closed ring, `None` when the origin does not snap.
pub fn outline(
    routing: &RoutingPack,
    origin: Pt,
    profile: Profile,
    metric: Metric,
    budget: u64,
    avoid: &[RouteAvoid],
) -> Option<Vec<Pt>> {
    let router = &routing.router;
    let g = router.graph(profile);
    let excluded = super::excluded_edges(router, avoid);
    let ex = excluded.as_deref();
    let edge_ok = |e: u32| ex.is_none_or(|x| !x[e as usize]);
    let arc_ok = |a: u32| ex.is_none_or(|x| !x[g.arc_edge[a as usize] as usize]);
    let candidates = router
        .snap_candidates(profile, origin, &edge_ok)
        .or_else(|| router.snap_candidates(profile, origin, &|_| true))?;
    let snap = router.reach(profile).origin(&g, &candidates);
    let src = positions(&g, &snap, &arc_ok);
    let starts: Vec<(u32, i64)> = expand_sources(&g, metric, &src, &arc_ok)
        .iter()
        .map(|s| (s.0, s.1 as i64))
        .collect();
    let mut d = Dijkstra::new(g.arc_count());
    d.explore(
        &g,
        &starts,
        budget as i64,
        |a, t| Some(g.transition_cost(metric, a, t)),
        arc_ok,
    );
    // Reached pieces: (arc, from, to) fractions.
    let mut pieces: Vec<(u32, f64, f64)> = Vec::new();
    for p in &src {
        let c = g.arc_cost(metric, p.arc) as f64;
        let ahead = if c > 0.0 { budget as f64 / c } else { 1.0 };
        pieces.push((p.arc, p.offset, (p.offset + ahead).min(1.0)));
    }
    for &a in &d.order {
        let Some(label) = d.reached(a) else { continue };
        let left = budget as i64 - label;
        if left <= 0 {
            continue;
        }
        let c = g.arc_cost(metric, a);
        let f = if c == 0 || left as u64 >= c {
            1.0
        } else {
            left as f64 / c as f64
        };
        pieces.push((a, 0.0, f));
    }
    let proj = LocalProjection::new(origin.lat);
    let mut segments: Vec<([f64; 2], [f64; 2])> = Vec::new();
    let mut pts: Vec<Pt> = Vec::new();
    for (a, from, to) in pieces {
        pts.clear();
        let geom = router.net.geometry(g.arc_edge[a as usize]);
        let forward = g.arc_forward[a as usize];
        if from <= 0.0 && to >= 1.0 {
            if forward {
                pts.extend_from_slice(geom);
            } else {
                pts.extend(geom.iter().rev());
            }
        } else if forward {
            sub_line(geom, from, to, &mut pts);
        } else {
            let rev: Vec<Pt> = geom.iter().rev().copied().collect();
            sub_line(&rev, from, to, &mut pts);
        }
        for w in pts.windows(2) {
            segments.push((proj.project(w[0]), proj.project(w[1])));
        }
        if pts.len() == 1 {
            let p = proj.project(pts[0]);
            segments.push((p, p));
        }
    }
    let o = proj.project(snap.point);
    segments.push((o, o));
    let ring = grid_outline(&segments)?;
    Some(ring.into_iter().map(|xy| proj.unproject(xy)).collect())
}

/// The outline of the region around line segments (projected metres) as a closed ring.
pub fn grid_outline(segments: &[([f64; 2], [f64; 2])]) -> Option<Vec<[f64; 2]>> {
    let (mut x0, mut y0, mut x1, mut y1) = (f64::MAX, f64::MAX, f64::MIN, f64::MIN);
    for (a, b) in segments {
        for p in [a, b] {
            x0 = x0.min(p[0]);
            y0 = y0.min(p[1]);
            x1 = x1.max(p[0]);
            y1 = y1.max(p[1]);
        }
    }
    if x0 > x1 {
        return None;
    }
    let extent = (x1 - x0).max(y1 - y0);
    let cell = (extent / 120.0).max(15.0);
    // Two cells of margin on each side.
    let ox = x0 - 2.0 * cell;
    let oy = y0 - 2.0 * cell;
    let w = ((x1 - x0) / cell) as usize + 5;
    let h = ((y1 - y0) / cell) as usize + 5;
    let mut grid = vec![false; w * h];
    let mark = |grid: &mut Vec<bool>, p: [f64; 2]| {
        let cx = ((p[0] - ox) / cell) as usize;
        let cy = ((p[1] - oy) / cell) as usize;
        if cx < w && cy < h {
            grid[cy * w + cx] = true;
        }
    };
    for (a, b) in segments {
        let len = ((b[0] - a[0]).powi(2) + (b[1] - a[1]).powi(2)).sqrt();
        let steps = (len / (cell * 0.5)).ceil() as usize;
        for i in 0..=steps {
            let t = if steps == 0 {
                0.0
            } else {
                i as f64 / steps as f64
            };
            mark(
                &mut grid,
                [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t],
            );
        }
    }
    // Grow by one cell (8 neighbours).
    let mut grown = grid.clone();
    for y in 0..h {
        for x in 0..w {
            if grid[y * w + x] {
                for dy in -1i64..=1 {
                    for dx in -1i64..=1 {
                        let (nx, ny) = (x as i64 + dx, y as i64 + dy);
                        if nx >= 0 && ny >= 0 && (nx as usize) < w && (ny as usize) < h {
                            grown[ny as usize * w + nx as usize] = true;
                        }
                    }
                }
            }
        }
    }
    let mut grid = grown;
    for _ in 0..4 {
        fill_holes(&mut grid, w, h);
        if !close_pinches(&mut grid, w, h) {
            break;
        }
    }
    fill_holes(&mut grid, w, h);
    // Largest 4-connected region.
    let mut label = vec![0u32; w * h];
    let mut best = (0usize, 0u32);
    let mut next = 1u32;
    for start in 0..w * h {
        if !grid[start] || label[start] != 0 {
            continue;
        }
        let mut size = 0;
        let mut q = VecDeque::from([start]);
        label[start] = next;
        while let Some(i) = q.pop_front() {
            size += 1;
            let (x, y) = (i % w, i / w);
            let mut push = |j: usize| {
                if grid[j] && label[j] == 0 {
                    label[j] = next;
                    q.push_back(j);
                }
            };
            if x > 0 {
                push(i - 1);
            }
            if x + 1 < w {
                push(i + 1);
            }
            if y > 0 {
                push(i - w);
            }
            if y + 1 < h {
                push(i + w);
            }
        }
        if size > best.0 {
            best = (size, next);
        }
        next += 1;
    }
    let inside = |x: i64, y: i64| {
        x >= 0
            && y >= 0
            && (x as usize) < w
            && (y as usize) < h
            && label[y as usize * w + x as usize] == best.1
    };
    // Trace the boundary counter-clockwise (region on the left), starting at the bottom edge
    // of the lowest-leftmost cell.
    let first = (0..w * h).find(|&i| label[i] == best.1)?;
    let (sx, sy) = ((first % w) as i64, (first / w) as i64);
    let mut ring: Vec<(i64, i64)> = vec![(sx, sy)];
    let (mut x, mut y) = (sx + 1, sy);
    let mut dir = (1i64, 0i64);
    let limit = 4 * w * h + 8;
    while (x, y) != (sx, sy) && ring.len() < limit {
        ring.push((x, y));
        // Candidate directions: left turn, straight, right turn (keep the region on the left).
        let left = (-dir.1, dir.0);
        let right = (dir.1, -dir.0);
        let mut moved = false;
        for d in [left, dir, right] {
            if edge_is_boundary((x, y), d, &inside) {
                dir = d;
                x += d.0;
                y += d.1;
                moved = true;
                break;
            }
        }
        if !moved {
            return None;
        }
    }
    let pts: Vec<[f64; 2]> = ring
        .iter()
        .map(|&(gx, gy)| [ox + gx as f64 * cell, oy + gy as f64 * cell])
        .collect();
    let mut simple = douglas_peucker(&pts, cell * 0.5);
    if let Some(&f) = simple.first() {
        simple.push(f);
    }
    (simple.len() >= 4).then_some(simple)
}

/// Whether the unit edge from vertex `v` in direction `d` has the region on its left and
/// outside on its right.
fn edge_is_boundary(v: (i64, i64), d: (i64, i64), inside: &dyn Fn(i64, i64) -> bool) -> bool {
    // Cells left and right of the edge.
    let (l, r) = match d {
        (1, 0) => ((v.0, v.1), (v.0, v.1 - 1)),
        (0, 1) => ((v.0 - 1, v.1), (v.0, v.1)),
        (-1, 0) => ((v.0 - 1, v.1 - 1), (v.0 - 1, v.1)),
        _ => ((v.0, v.1 - 1), (v.0 - 1, v.1 - 1)),
    };
    inside(l.0, l.1) && !inside(r.0, r.1)
}

fn fill_holes(grid: &mut [bool], w: usize, h: usize) {
    let mut outside = vec![false; w * h];
    let mut q = VecDeque::new();
    for x in 0..w {
        for y in [0, h - 1] {
            let i = y * w + x;
            if !grid[i] && !outside[i] {
                outside[i] = true;
                q.push_back(i);
            }
        }
    }
    for y in 0..h {
        for x in [0, w - 1] {
            let i = y * w + x;
            if !grid[i] && !outside[i] {
                outside[i] = true;
                q.push_back(i);
            }
        }
    }
    while let Some(i) = q.pop_front() {
        let (x, y) = (i % w, i / w);
        let mut n = Vec::with_capacity(4);
        if x > 0 {
            n.push(i - 1);
        }
        if x + 1 < w {
            n.push(i + 1);
        }
        if y > 0 {
            n.push(i - w);
        }
        if y + 1 < h {
            n.push(i + w);
        }
        for j in n {
            if !grid[j] && !outside[j] {
                outside[j] = true;
                q.push_back(j);
            }
        }
    }
    for i in 0..w * h {
        if !outside[i] {
            grid[i] = true;
        }
    }
}

/// Fills one cell of every 2×2 block whose filled cells touch only diagonally; whether any was.
fn close_pinches(grid: &mut [bool], w: usize, h: usize) -> bool {
    let mut changed = false;
    for y in 0..h - 1 {
        for x in 0..w - 1 {
            let (a, b, c, d) = (
                grid[y * w + x],
                grid[y * w + x + 1],
                grid[(y + 1) * w + x],
                grid[(y + 1) * w + x + 1],
            );
            if a && d && !b && !c {
                grid[y * w + x + 1] = true;
                changed = true;
            } else if b && c && !a && !d {
                grid[y * w + x] = true;
                changed = true;
            }
        }
    }
    changed
}

fn douglas_peucker(pts: &[[f64; 2]], tol: f64) -> Vec<[f64; 2]> {
    if pts.len() < 3 {
        return pts.to_vec();
    }
    let mut keep = vec![false; pts.len()];
    keep[0] = true;
    keep[pts.len() - 1] = true;
    let mut stack = vec![(0usize, pts.len() - 1)];
    while let Some((s, e)) = stack.pop() {
        if e <= s + 1 {
            continue;
        }
        let (a, b) = (pts[s], pts[e]);
        let (dx, dy) = (b[0] - a[0], b[1] - a[1]);
        let len = (dx * dx + dy * dy).sqrt();
        let mut far = (0.0, s);
        for (i, p) in pts.iter().enumerate().take(e).skip(s + 1) {
            let dist = if len == 0.0 {
                ((p[0] - a[0]).powi(2) + (p[1] - a[1]).powi(2)).sqrt()
            } else {
                ((p[0] - a[0]) * dy - (p[1] - a[1]) * dx).abs() / len
            };
            if dist > far.0 {
                far = (dist, i);
            }
        }
        if far.0 > tol {
            keep[far.1] = true;
            stack.push((s, far.1));
            stack.push((far.1, e));
        }
    }
    pts.iter()
        .zip(keep)
        .filter_map(|(p, k)| k.then_some(*p))
        .collect()
}

/// The isochrone answer.
pub fn isochrone(routing: &RoutingPack, req: &IsochroneRequest, texts: Texts) -> IsochroneResponse {
    let profile = super::profile(req.mode);
    let metric = super::metric(req.method);
    let budget = match metric {
        // minutes → ms; km → cm
        Metric::Time => (req.value * 60_000.0).min(1e12) as u64,
        Metric::Distance => (req.value * 100_000.0).min(1e12) as u64,
    };
    let ring = outline(
        routing,
        super::pt(req.origin),
        profile,
        metric,
        budget,
        &req.avoid,
    );
    respond(req, texts, ring)
}

/// The answer without any reachable area (`ZERO_RESULTS`, empty geometry).
pub fn isochrone_empty(req: &IsochroneRequest, texts: Texts) -> IsochroneResponse {
    respond(req, texts, None)
}

fn respond(req: &IsochroneRequest, texts: Texts, ring: Option<Vec<Pt>>) -> IsochroneResponse {
    let metric = super::metric(req.method);
    let status = if ring.is_some() {
        DistanceStatus::Ok
    } else {
        DistanceStatus::ZeroResults
    };
    let geometry = ring.map(|r| encode_polyline(r, 5)).unwrap_or_default();
    let isoline = match metric {
        Metric::Time => {
            let secs = req.value * 60.0;
            Isoline::Time(TimeIsoline {
                origin: req.origin,
                time: TextValue {
                    value: secs.round() as u64,
                    text: super::text::duration(secs, texts.lang),
                },
                geometry,
            })
        }
        Metric::Distance => {
            let m = req.value * 1000.0;
            Isoline::Distance(DistanceIsoline {
                origin: req.origin,
                distance: NumberTextValue {
                    value: m,
                    text: super::text::distance(m, texts.units, texts.lang),
                },
                geometry,
            })
        }
    };
    IsochroneResponse { status, isoline }
}
