//! `GET /distance/isochrone/json`: the area reachable from `origin` within `value` minutes
//! (`method=time`) or kilometres (`method=distance`).
//!
//! 1. **Reach.** A Dijkstra bounded by the budget on the turn graph of the mode (avoid options
//!    removed, as for routes), from the snapped origin. Every arc reached with budget left is kept
//!    with its cost at both ends, in full when the rest covers it, else the part the rest covers
//!    (partial edges), including the origin's own arc. The origin snaps onto the main network
//!    unless a search from its nearest edge reaches it or that edge's component is itself large
//!    ([`crate::routing::reach::Reach::origin`]).
//! 2. **Travel-cost field.** A square grid is laid over the reached roads ([`cell_size`]: the
//!    farthest reach of the budget over 300, never under [`MIN_CELL_M`] nor over
//!    [`MAX_CELL_M`]: 110 m for a 10-minute walk, 183 m for a 30-minute drive). Walking along
//!    every reached piece (points at most half a cell apart, the cost interpolated along the
//!    piece), each cell keeps the lowest cost of a road point inside it; cells without a
//!    reached road count as reached at the budget plus [`ALLOWANCE`].
//! 3. **Contour.** Marching squares trace the level `budget` over the cell centres, the
//!    crossing on each cell side interpolated linearly between its two centres. That is the
//!    **off-road allowance**: the outline lies between a reached road's cell centre and the
//!    next unreached cell centre, nearer the road the later it was reached, so never more than
//!    one cell and a half beyond a reached road, and hugging roads reached at the limit
//!    ([`ALLOWANCE`]). Ambiguous squares are decided by their centre's mean. The rings are
//!    closed, simplified (Douglas–Peucker, a quarter cell) and sorted: the outer ring of the
//!    largest area is the outline (`geometry`); rings inside it of at least [`MIN_HOLE_CELLS`]
//!    cells are its `holes` (lakes, parks, mountainsides with no reached road), a Waymark
//!    extension. Diagonal outlines come out diagonal: there is no staircase.
//! 4. Rings are closed (first point repeated last) encoded polylines, precision 5.
//!
//! Long ranges cost at most one search over the pack's graph plus the grid, so they do not time
//! out. The time-based variant (not shown in the spec) is `{origin, time: {value, text},
//! geometry}` with `time.value` in seconds; the distance-based one reports `distance.value` in
//! metres.
use crate::api::*;
use crate::geo::{LocalProjection, Pt, encode_polyline};
use crate::routing::router::{expand_sources, positions};
use crate::routing::search::with_dijkstra;
use crate::routing::{Metric, Profile};

use super::RoutingPack;
use super::route::Texts;

/// Smallest grid cell, in metres (short walks): about a city block's depth.
pub const MIN_CELL_M: f64 = 110.0;
/// Largest grid cell, in metres (long drives).
pub const MAX_CELL_M: f64 = 550.0;
/// Cells across the farthest reach of the budget (its radius): the grid resolves about 1/300
/// of the reach.
pub const CELLS_PER_REACH: f64 = 300.0;

/// The side of a grid cell for a budget: the farthest reach of the budget at the mode's top
/// speed ([`top_speed_mps`]; the budget itself for `method=distance`) over
/// [`CELLS_PER_REACH`], between [`MIN_CELL_M`] and [`MAX_CELL_M`]. Fixed by the question, not
/// the answer, so that an outline does not coarsen because a far road was reached.
pub fn cell_size(profile: Profile, metric: Metric, budget: u64) -> f64 {
    let reach_m = match metric {
        // ms
        Metric::Time => budget as f64 / 1000.0 * top_speed_mps(profile),
        // cm
        Metric::Distance => budget as f64 / 100.0,
    };
    (reach_m / CELLS_PER_REACH).clamp(MIN_CELL_M, MAX_CELL_M)
}

/// The speed, in m/s, a mode rarely exceeds on average over a long trip (the size of its
/// isochrone grid): 110 km/h driving, 90 km/h for trucks, 30 km/h cycling, 8 km/h walking.
pub fn top_speed_mps(profile: Profile) -> f64 {
    match profile {
        Profile::Driving => 110.0 / 3.6,
        Profile::Truck => 90.0 / 3.6,
        Profile::Cycling => 30.0 / 3.6,
        Profile::Walking => 8.0 / 3.6,
    }
}

/// Off-road allowance: a cell without a reached road counts as reached at the budget plus
/// this share of it, so the outline crosses from a road's cell towards the next cell centre
/// by `(budget − cost) / (budget × (1 + ALLOWANCE) − cost)` of a cell: most of a cell beside
/// roads reached early, almost nothing beside roads reached at the limit.
pub const ALLOWANCE: f64 = 0.125;

/// Smallest hole, in cells: an unreachable area at least about four cells across (0.5 km²
/// for a 30-minute drive, 0.2 km² for a 10-minute walk); smaller gaps between reached roads
/// are filled.
pub const MIN_HOLE_CELLS: f64 = 16.0;

/// An isochrone's area: the outer ring and the unreachable rings inside it, each closed.
#[derive(Debug, Clone, PartialEq)]
pub struct Outline {
    /// Outer ring, counter-clockwise.
    pub ring: Vec<Pt>,
    /// Holes, clockwise.
    pub holes: Vec<Vec<Pt>>,
}

/// A ring of projected points.
type Ring = Vec<[f64; 2]>;

/// A reached piece of an arc: fractions `from..to` of its geometry, reached at costs
/// `cost_from` and `cost_to`.
struct Piece {
    arc: u32,
    from: f64,
    to: f64,
    cost_from: f64,
    cost_to: f64,
}

/// The reachable outline, `None` when the origin does not snap.
pub fn outline(
    routing: &RoutingPack,
    origin: Pt,
    profile: Profile,
    metric: Metric,
    budget: u64,
    avoid: &[RouteAvoid],
) -> Option<Outline> {
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
    let budget_f = budget as f64;
    let mut pieces: Vec<Piece> = Vec::new();
    for p in &src {
        let c = g.arc_cost(metric, p.arc) as f64;
        let ahead = if c > 0.0 { budget_f / c } else { 1.0 };
        let to = (p.offset + ahead).min(1.0);
        pieces.push(Piece {
            arc: p.arc,
            from: p.offset,
            to,
            cost_from: 0.0,
            cost_to: (to - p.offset) * c,
        });
    }
    with_dijkstra(g.arc_count(), |d| {
        d.explore(
            &g,
            &starts,
            budget as i64,
            |a, t| Some(g.transition_cost(metric, a, t)),
            arc_ok,
        );
        // A cell keeps the lowest cost marked in it, so pieces may come in any order: in arc
        // (edge) order, edges and points are read front to back, not at random.
        let mut order = std::mem::take(&mut d.order);
        radsort::sort(&mut order);
        for &a in &order {
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
            pieces.push(Piece {
                arc: a,
                from: 0.0,
                to: f,
                cost_from: label as f64,
                cost_to: label as f64 + f * c as f64,
            });
        }
        d.order = order;
    });
    let proj = LocalProjection::new(origin.lat);
    // One pass over the reached arcs' geometry: each piece's points, projected in its direction
    // of travel, go into one buffer, and the grid's box (linear projection) is taken on the way.
    let o = proj.project(snap.point);
    let (mut x0, mut y0, mut x1, mut y1) = (o[0], o[1], o[0], o[1]);
    let mut xy = KEPT_POINTS.with(|k| std::mem::take(&mut *k.borrow_mut()));
    xy.clear();
    let mut ends: Vec<usize> = Vec::with_capacity(pieces.len());
    for piece in &pieces {
        let geom = router.net.geometry(g.arc_edge[piece.arc as usize]);
        let start = xy.len();
        if g.arc_forward[piece.arc as usize] {
            xy.extend(geom.iter().map(|p| proj.project(*p)));
        } else {
            xy.extend(geom.iter().rev().map(|p| proj.project(*p)));
        }
        for p in &xy[start..] {
            x0 = x0.min(p[0]);
            x1 = x1.max(p[0]);
            y0 = y0.min(p[1]);
            y1 = y1.max(p[1]);
        }
        ends.push(xy.len());
    }
    let cell = cell_size(profile, metric, budget);
    let mut field = CostField::new([x0, y0, x1, y1], cell, budget_f * (1.0 + ALLOWANCE));
    field.mark(o, 0.0);
    let mut line = Scratch::default();
    let mut start = 0;
    for (piece, &end) in pieces.iter().zip(&ends) {
        line.load(&xy[start..end]);
        field.trace(&line, piece);
        start = end;
    }
    if xy.capacity() <= MAX_KEPT_POINTS {
        KEPT_POINTS.with(|k| *k.borrow_mut() = xy);
    }
    let (ring, holes) = field.contour(budget_f)?;
    let unproject =
        |r: Vec<[f64; 2]>| -> Vec<Pt> { r.into_iter().map(|p| proj.unproject(p)).collect() };
    Some(Outline {
        ring: unproject(ring),
        holes: holes.into_iter().map(unproject).collect(),
    })
}

/// Largest buffer of projected points a thread keeps between isochrones: 2²² points (64 MB),
/// the reach of a long drive in a dense region; bigger reaches allocate per request.
const MAX_KEPT_POINTS: usize = 1 << 22;

thread_local! {
    static KEPT_POINTS: std::cell::RefCell<Vec<[f64; 2]>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// One arc's geometry, projected in its direction of travel, with its segment lengths:
/// buffers kept across the reached pieces.
#[derive(Default)]
struct Scratch {
    xy: Vec<[f64; 2]>,
    /// `len[i]`: length of segment `xy[i]`–`xy[i + 1]`.
    len: Vec<f64>,
    total: f64,
}

impl Scratch {
    /// Loads a projected line (points in its direction of travel).
    fn load(&mut self, xy: &[[f64; 2]]) {
        self.xy.clear();
        self.xy.extend_from_slice(xy);
        self.len.clear();
        self.len.extend(
            self.xy
                .windows(2)
                .map(|w| ((w[1][0] - w[0][0]).powi(2) + (w[1][1] - w[0][1]).powi(2)).sqrt()),
        );
        self.total = self.len.iter().sum();
    }
}

/// Lowest reached cost per grid cell (cell centres at `origin + (i + ½) · cell`).
struct CostField {
    ox: f64,
    oy: f64,
    cell: f64,
    w: usize,
    h: usize,
    v: Vec<f64>,
}

impl CostField {
    /// An empty field over `bbox` (projected `[x0, y0, x1, y1]`) on cells of `cell` metres,
    /// every cell at `unreached`; two cells of margin keep every contour closed.
    fn new(bbox: [f64; 4], cell: f64, unreached: f64) -> CostField {
        let [x0, y0, x1, y1] = bbox;
        let w = ((x1 - x0) / cell) as usize + 5;
        let h = ((y1 - y0) / cell) as usize + 5;
        CostField {
            ox: x0 - 2.0 * cell,
            oy: y0 - 2.0 * cell,
            cell,
            w,
            h,
            v: vec![unreached; w * h],
        }
    }

    /// Marks the part `piece.from..piece.to` (fractions of length) of `line`, its cost linear
    /// in length between the piece's two costs: points half a cell apart along the line, and
    /// both ends of the piece.
    fn trace(&mut self, line: &Scratch, piece: &Piece) {
        let Some(&first) = line.xy.first() else {
            return;
        };
        if line.total <= 0.0 || line.xy.len() < 2 {
            self.mark(first, piece.cost_from);
            return;
        }
        let (start, end) = (piece.from * line.total, piece.to * line.total);
        let rate = if end > start {
            (piece.cost_to - piece.cost_from) / (end - start)
        } else {
            0.0
        };
        let step = self.cell * 0.5;
        let mut next = start;
        let mut s0 = 0.0;
        for (i, &l) in line.len.iter().enumerate() {
            let s1 = s0 + l;
            if l > 0.0 {
                let (a, b) = (line.xy[i], line.xy[i + 1]);
                while next <= s1 {
                    let t = (next - s0) / l;
                    self.mark(
                        [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t],
                        piece.cost_from + rate * (next - start),
                    );
                    if next >= end {
                        return;
                    }
                    next = (next + step).min(end);
                }
            }
            s0 = s1;
        }
        // Rounding left the end a hair beyond the summed lengths: it is the last point.
        if let Some(&last) = line.xy.last() {
            self.mark(last, piece.cost_to);
        }
    }

    fn mark(&mut self, p: [f64; 2], cost: f64) {
        let cx = (p[0] - self.ox) / self.cell;
        let cy = (p[1] - self.oy) / self.cell;
        if cx < 0.0 || cy < 0.0 {
            return;
        }
        // Truncation is the floor of a non-negative number (and no call into libm).
        let (cx, cy) = (cx as usize, cy as usize);
        if cx < self.w && cy < self.h {
            let i = cy * self.w + cx;
            if cost < self.v[i] {
                self.v[i] = cost;
            }
        }
    }

    fn centre(&self, x: usize, y: usize) -> [f64; 2] {
        [
            self.ox + (x as f64 + 0.5) * self.cell,
            self.oy + (y as f64 + 0.5) * self.cell,
        ]
    }

    /// Where the level crosses side `e` of the centre grid: even ids are the side from centre
    /// `(x, y)` to `(x + 1, y)`, odd ids the side from `(x, y)` to `(x, y + 1)`.
    fn crossing(&self, e: usize, level: f64) -> [f64; 2] {
        let i = e / 2;
        let (x, y) = (i % self.w, i / self.w);
        let (a, b) = if e.is_multiple_of(2) {
            (self.centre(x, y), self.centre(x + 1, y))
        } else {
            (self.centre(x, y), self.centre(x, y + 1))
        };
        let j = if e.is_multiple_of(2) {
            i + 1
        } else {
            i + self.w
        };
        let (va, vb) = (self.v[i], self.v[j]);
        let t = if (vb - va).abs() < f64::EPSILON {
            0.5
        } else {
            ((level - va) / (vb - va)).clamp(0.0, 1.0)
        };
        [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t]
    }

    /// The rings where the field crosses `level` (inside: below it): the outer ring of the
    /// largest area and the holes inside it.
    fn contour(&self, level: f64) -> Option<(Ring, Vec<Ring>)> {
        let (w, h) = (self.w, self.h);
        let inside = |x: usize, y: usize| self.v[y * w + x] < level;
        // next[side] = the side where the contour leaving through `side` goes on.
        let mut next = vec![u32::MAX; 2 * w * h];
        let mut starts: Vec<usize> = Vec::new();
        for y in 0..h - 1 {
            for x in 0..w - 1 {
                // Corners counter-clockwise from the bottom left; sides k from corner k to k + 1.
                let c = [
                    inside(x, y),
                    inside(x + 1, y),
                    inside(x + 1, y + 1),
                    inside(x, y + 1),
                ];
                let side = [
                    2 * (y * w + x),
                    2 * (y * w + x + 1) + 1,
                    2 * ((y + 1) * w + x),
                    2 * (y * w + x) + 1,
                ];
                let n_in = c.iter().filter(|b| **b).count();
                if n_in == 0 || n_in == 4 {
                    continue;
                }
                // Region on the left: the contour crosses the square from a side going
                // inside → outside (corners counter-clockwise) to a side going outside → inside.
                let mut link = |from: usize, to: usize| {
                    next[side[from]] = side[to] as u32;
                    starts.push(side[from]);
                };
                if c[0] == c[2] && c[1] == c[3] {
                    // Saddle: decided by the mean at the square's centre.
                    let i = y * w + x;
                    let mean =
                        (self.v[i] + self.v[i + 1] + self.v[i + w] + self.v[i + w + 1]) / 4.0;
                    let centre_in = mean < level;
                    match (c[0], centre_in) {
                        (true, true) => {
                            link(0, 1);
                            link(2, 3);
                        }
                        (true, false) => {
                            link(0, 3);
                            link(2, 1);
                        }
                        (false, true) => {
                            link(3, 0);
                            link(1, 2);
                        }
                        (false, false) => {
                            link(1, 0);
                            link(3, 2);
                        }
                    }
                    continue;
                }
                let (mut out_side, mut in_side) = (0, 0);
                for k in 0..4 {
                    let (a, b) = (c[k], c[(k + 1) % 4]);
                    if a && !b {
                        out_side = k;
                    } else if !a && b {
                        in_side = k;
                    }
                }
                link(out_side, in_side);
            }
        }
        let mut rings: Vec<(f64, Vec<[f64; 2]>)> = Vec::new();
        for s in starts {
            if next[s] == u32::MAX {
                continue;
            }
            let mut ring = Vec::new();
            let mut e = s;
            while next[e] != u32::MAX && ring.len() <= 2 * w * h {
                ring.push(self.crossing(e, level));
                let n = next[e] as usize;
                next[e] = u32::MAX;
                e = n;
            }
            if ring.len() >= 3 {
                let area = signed_area(&ring);
                rings.push((area, ring));
            }
        }
        let outer_idx = rings
            .iter()
            .enumerate()
            .filter(|(_, r)| r.0 > 0.0)
            .max_by(|a, b| a.1.0.total_cmp(&b.1.0))
            .map(|(i, _)| i)?;
        let (_, outer) = rings.swap_remove(outer_idx);
        let min_hole = MIN_HOLE_CELLS * self.cell * self.cell;
        let tol = self.cell * 0.25;
        let holes = rings
            .into_iter()
            .filter(|(a, r)| *a <= -min_hole && contains(&outer, r[0]))
            .filter_map(|(_, r)| close(douglas_peucker(&r, tol)))
            .collect();
        Some((close(douglas_peucker(&outer, tol))?, holes))
    }
}

/// Twice the signed area… halved: positive for counter-clockwise rings.
fn signed_area(ring: &[[f64; 2]]) -> f64 {
    let n = ring.len();
    (0..n)
        .map(|i| {
            let (a, b) = (ring[i], ring[(i + 1) % n]);
            a[0] * b[1] - b[0] * a[1]
        })
        .sum::<f64>()
        / 2.0
}

/// Whether `p` lies inside the (open) ring, even–odd rule.
fn contains(ring: &[[f64; 2]], p: [f64; 2]) -> bool {
    let mut inside = false;
    let n = ring.len();
    let mut j = n - 1;
    for i in 0..n {
        let (a, b) = (ring[i], ring[j]);
        if (a[1] > p[1]) != (b[1] > p[1])
            && p[0] < (b[0] - a[0]) * (p[1] - a[1]) / (b[1] - a[1]) + a[0]
        {
            inside = !inside;
        }
        j = i;
    }
    inside
}

/// The ring closed (first point repeated last), if it still has an area.
fn close(mut ring: Vec<[f64; 2]>) -> Option<Vec<[f64; 2]>> {
    let first = *ring.first()?;
    ring.push(first);
    (ring.len() >= 4).then_some(ring)
}

/// Douglas–Peucker on an open ring: the first point and the point farthest from it are kept,
/// each half simplified.
fn douglas_peucker(pts: &[[f64; 2]], tol: f64) -> Vec<[f64; 2]> {
    if pts.len() < 4 {
        return pts.to_vec();
    }
    let far = (1..pts.len())
        .max_by(|&a, &b| dist2(pts[0], pts[a]).total_cmp(&dist2(pts[0], pts[b])))
        .unwrap_or(pts.len() / 2);
    let mut closed: Vec<[f64; 2]> = pts.to_vec();
    closed.push(pts[0]);
    let mut keep = vec![false; closed.len()];
    keep[0] = true;
    keep[far] = true;
    keep[closed.len() - 1] = true;
    let mut stack = vec![(0usize, far), (far, closed.len() - 1)];
    while let Some((s, e)) = stack.pop() {
        if e <= s + 1 {
            continue;
        }
        let (a, b) = (closed[s], closed[e]);
        let (dx, dy) = (b[0] - a[0], b[1] - a[1]);
        let len = (dx * dx + dy * dy).sqrt();
        let mut best = (0.0, s);
        for (i, p) in closed.iter().enumerate().take(e).skip(s + 1) {
            let dist = if len == 0.0 {
                dist2(*p, a).sqrt()
            } else {
                ((p[0] - a[0]) * dy - (p[1] - a[1]) * dx).abs() / len
            };
            if dist > best.0 {
                best = (dist, i);
            }
        }
        if best.0 > tol {
            keep[best.1] = true;
            stack.push((s, best.1));
            stack.push((best.1, e));
        }
    }
    closed.pop();
    closed
        .into_iter()
        .zip(keep)
        .filter_map(|(p, k)| k.then_some(p))
        .collect()
}

fn dist2(a: [f64; 2], b: [f64; 2]) -> f64 {
    (a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2)
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
    let area = outline(
        routing,
        super::pt(req.origin),
        profile,
        metric,
        budget,
        &req.avoid,
    );
    respond(req, texts, area)
}

/// The answer without any reachable area (`ZERO_RESULTS`, empty geometry).
pub fn isochrone_empty(req: &IsochroneRequest, texts: Texts) -> IsochroneResponse {
    respond(req, texts, None)
}

fn respond(req: &IsochroneRequest, texts: Texts, area: Option<Outline>) -> IsochroneResponse {
    let metric = super::metric(req.method);
    let status = if area.is_some() {
        DistanceStatus::Ok
    } else {
        DistanceStatus::ZeroResults
    };
    let (geometry, holes) = match area {
        Some(a) => (
            encode_polyline(a.ring, 5),
            a.holes.into_iter().map(|h| encode_polyline(h, 5)).collect(),
        ),
        None => (String::new(), Vec::new()),
    };
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
                holes,
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
                holes,
            })
        }
    };
    IsochroneResponse { status, isoline }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    /// A costed straight line from `a` to `b`, costs `ca` to `cb`.
    fn line(a: [f64; 2], b: [f64; 2], ca: f64, cb: f64) -> Vec<([f64; 2], f64)> {
        vec![(a, ca), (b, cb)]
    }

    /// The field of `lines` on cells of `cell` metres (budget 1000): each line's points are
    /// one arc's geometry, its costs those at its two ends.
    fn field(lines: &[Vec<([f64; 2], f64)>], cell: f64) -> CostField {
        let mut f = CostField::new(bbox(lines), cell, 1_000.0 * (1.0 + ALLOWANCE));
        for l in lines {
            let xy: Vec<[f64; 2]> = l.iter().map(|p| p.0).collect();
            let len: Vec<f64> = xy
                .windows(2)
                .map(|w| ((w[1][0] - w[0][0]).powi(2) + (w[1][1] - w[0][1]).powi(2)).sqrt())
                .collect();
            let total = len.iter().sum();
            let piece = Piece {
                arc: 0,
                from: 0.0,
                to: 1.0,
                cost_from: l[0].1,
                cost_to: l[l.len() - 1].1,
            };
            f.trace(&Scratch { xy, len, total }, &piece);
        }
        f
    }

    fn bbox(lines: &[Vec<([f64; 2], f64)>]) -> [f64; 4] {
        let mut b = [f64::MAX, f64::MAX, f64::MIN, f64::MIN];
        for (p, _) in lines.iter().flatten() {
            b = [
                b[0].min(p[0]),
                b[1].min(p[1]),
                b[2].max(p[0]),
                b[3].max(p[1]),
            ];
        }
        b
    }

    /// Segments of the ring that are axis-aligned and meet another axis-aligned one at a right
    /// angle: the steps of a staircase.
    fn right_angle_steps(ring: &[[f64; 2]]) -> usize {
        let dir = |a: [f64; 2], b: [f64; 2]| {
            let (dx, dy) = (b[0] - a[0], b[1] - a[1]);
            let len = (dx * dx + dy * dy).sqrt();
            if dx.abs() < 1e-6 * len {
                Some(1)
            } else if dy.abs() < 1e-6 * len {
                Some(0)
            } else {
                None
            }
        };
        ring.windows(3)
            .filter(|w| matches!((dir(w[0], w[1]), dir(w[1], w[2])), (Some(a), Some(b)) if a != b))
            .count()
    }

    #[test]
    fn a_square_of_roads_around_an_unreached_block_has_a_hole() {
        // A 3 km square of roads reached at 0..=400 (budget 1000), nothing inside.
        let s = 3_000.0;
        let lines = vec![
            line([0.0, 0.0], [s, 0.0], 0.0, 100.0),
            line([s, 0.0], [s, s], 100.0, 200.0),
            line([s, s], [0.0, s], 200.0, 300.0),
            line([0.0, s], [0.0, 0.0], 300.0, 400.0),
        ];
        let f = field(&lines, 100.0);
        let (outer, holes) = f.contour(1_000.0).unwrap();
        assert!(signed_area(&outer) > 0.0, "outer ring counter-clockwise");
        assert_eq!(holes.len(), 1, "the block inside is a hole");
        assert!(signed_area(&holes[0]) < 0.0, "holes clockwise");
        // The outline hugs the roads: within one and a half cells outside them.
        for p in &outer {
            let out = (-p[0]).max(p[0] - s).max(-p[1]).max(p[1] - s);
            assert!(
                out > 0.0 && out <= 1.5 * f.cell,
                "{p:?} is {out} m off the roads"
            );
        }
        // The hole covers most of the block.
        let hole_area = -signed_area(&holes[0]);
        assert!(hole_area > 0.8 * (s - 2.0 * f.cell).powi(2), "{hole_area}");
        assert_eq!(outer.first(), outer.last(), "closed");
    }

    #[test]
    fn a_diagonal_road_gives_a_diagonal_outline_not_a_staircase() {
        let lines = vec![line([0.0, 0.0], [5_000.0, 5_000.0], 0.0, 500.0)];
        let f = field(&lines, 100.0);
        let (outer, holes) = f.contour(1_000.0).unwrap();
        assert!(holes.is_empty());
        assert_eq!(right_angle_steps(&outer), 0, "{outer:?}");
        // A thin band along the road: its area is about its length times a few cells.
        let area = signed_area(&outer);
        let len = 5_000.0 * 2f64.sqrt();
        assert!(area > len * f.cell && area < len * 4.0 * f.cell, "{area}");
    }

    #[test]
    fn roads_reached_at_the_limit_are_hugged_closer_than_early_ones() {
        // Two parallel roads along cell centres: one reached early, one just under the budget
        // (the point at the origin fixes the grid: cell edges on multiples of 100 m).
        let lines = vec![
            vec![([0.0, 0.0], 500.0)],
            line([0.0, 50.0], [4_000.0, 50.0], 0.0, 10.0),
            line([0.0, 3_050.0], [4_000.0, 3_050.0], 990.0, 999.0),
            line([0.0, 50.0], [0.0, 3_050.0], 10.0, 990.0),
        ];
        let f = field(&lines, 100.0);
        assert_eq!(f.cell, 100.0);
        let (outer, _) = f.contour(1_000.0).unwrap();
        let below = outer.iter().map(|p| p[1]).fold(f64::MAX, f64::min);
        let above = outer.iter().map(|p| p[1]).fold(f64::MIN, f64::max);
        assert!(
            50.0 - below > 0.8 * f.cell,
            "early road: most of a cell ({below})"
        );
        assert!(
            above - 3_050.0 < 0.25 * f.cell,
            "late road: hugged ({above})"
        );
    }

    #[test]
    fn saddles_and_separate_pieces_keep_the_largest_area() {
        let lines = vec![
            line([0.0, 0.0], [3_000.0, 0.0], 0.0, 100.0),
            // A far, small reached piece (an island reached by ferry, say).
            line([20_000.0, 20_000.0], [20_300.0, 20_000.0], 500.0, 510.0),
        ];
        let f = field(&lines, 100.0);
        let (outer, _) = f.contour(1_000.0).unwrap();
        assert!(
            outer.iter().all(|p| p[0] < 4_000.0),
            "the largest area only"
        );
    }

    #[test]
    fn cell_sizes_follow_the_budget() {
        // A 10-minute walk: the smallest cell; a 30-minute drive: 1/300 of 55 km.
        assert_eq!(
            cell_size(Profile::Walking, Metric::Time, 600_000),
            MIN_CELL_M
        );
        let drive = cell_size(Profile::Driving, Metric::Time, 1_800_000);
        assert!((drive - 183.3).abs() < 0.1, "{drive}");
        assert_eq!(
            cell_size(Profile::Driving, Metric::Distance, 100_000_000),
            550.0
        );
    }
}
