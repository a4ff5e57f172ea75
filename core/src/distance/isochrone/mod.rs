//! `GET /distance/isochrone/json`: the area reachable from `origin` within `value` minutes
//! (`method=time`) or kilometres (`method=distance`).
//!
//! 1. **Reach.** A Dijkstra bounded by the budget on the turn graph of the mode (avoid options
//!    removed, as for routes), from the snapped origin. Every arc reached with budget left is kept
//!    with its cost at both ends, in full when the rest covers it, else the part the rest covers
//!    (partial edges), including the origin's own arc. The origin snaps onto the main network
//!    unless a search from its nearest edge reaches it or that edge's component is itself large
//!    ([`crate::routing::reach::Reach::origin`]). With more than one core, a second thread
//!    reads and projects the settled arcs while the search goes on, and the field below is
//!    marked in two halves at once ([`Threads`]); the outline is the same.
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
//!    largest area is the outline (`geometry`); a ring inside it is one of its `holes` (a
//!    Waymark extension) when it covers at least [`MIN_HOLE_CELLS`] cells and encloses land
//!    at least [`HOLE_DEPTH_CELLS`] cells from every reached road: a lake, a mountainside, a
//!    forest with no reached road. Any other ring is filled: the land between reached
//!    streets, however long the block, is reached. Diagonal outlines come out diagonal:
//!    there is no staircase.
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
use crate::routing::spare::Spares;
use crate::routing::{Metric, Profile, RoadNetwork, TurnGraph};
use std::sync::OnceLock;

use super::RoutingPack;
use super::route::Texts;

mod field;
use field::CostField;

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

/// Depth of a hole, in cells: a ring inside the outline is a hole only when it encloses land
/// at least this far from every cell holding a reached road (733 m for a 30-minute drive,
/// 440 m for a 10-minute walk), so only road-less land at least about eight cells across (a
/// lake, a mountainside, a large forest) is cut out. A narrower gap between reached roads,
/// however long (the blocks of a town, a strip between two valley roads), is reached land:
/// no point of it is farther from a road than a short walk.
pub const HOLE_DEPTH_CELLS: f32 = 4.0;

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

/// The reachable outline, `None` when the origin does not snap: on two threads when the
/// process may run on more than one core ([`Threads::available`]).
pub fn outline(
    routing: &RoutingPack,
    origin: Pt,
    profile: Profile,
    metric: Metric,
    budget: u64,
    avoid: &[RouteAvoid],
) -> Option<Outline> {
    let threads = Threads::available();
    outline_on(routing, origin, profile, metric, budget, avoid, threads)
}

/// How many threads an outline is computed on. The outline is the same on either: a cell
/// keeps the lowest cost marked in it, whatever the order the pieces are marked in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Threads {
    /// The search, then the reached pieces, then the field, one after the other.
    One,
    /// The reached pieces are read and projected on a second thread while the search goes
    /// on, `batch` settled arcs at a time (none when the search settles fewer), and the field
    /// is marked in two halves at once (when there are at least two batches of pieces).
    Two {
        /// Settled arcs handed over at a time ([`BATCH`]).
        batch: usize,
    },
}

impl Threads {
    /// Two threads, in batches of [`BATCH`] arcs.
    pub const TWO: Threads = Threads::Two { batch: BATCH };

    /// [`Threads::TWO`] when the process may run on more than one core (its affinity and
    /// quota allowing), else [`Threads::One`]; asked once per process.
    pub fn available() -> Threads {
        static AVAILABLE: OnceLock<Threads> = OnceLock::new();
        *AVAILABLE.get_or_init(|| match std::thread::available_parallelism() {
            Ok(n) if n.get() > 1 => Threads::TWO,
            _ => Threads::One,
        })
    }
}

/// Settled arcs handed to the second thread at a time: a 30-minute drive in a country
/// settles tens of thousands, a short walk fewer than this (one thread is then quicker).
pub const BATCH: usize = 4096;

/// [`outline`] on the given threads.
pub fn outline_on(
    routing: &RoutingPack,
    origin: Pt,
    profile: Profile,
    metric: Metric,
    budget: u64,
    avoid: &[RouteAvoid],
    threads: Threads,
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
    let snap = router
        .reach(profile)
        .origin(&g, &candidates, |a| g.head_node(&router.net, a));
    let src = positions(&g, &snap, &arc_ok);
    let starts: Vec<(u32, i64)> = expand_sources(&g, metric, &src, &arc_ok)
        .iter()
        .map(|s| (s.0, s.1 as i64))
        .collect();
    let budget_f = budget as f64;
    let proj = LocalProjection::new(origin.lat);
    let o = proj.project(snap.point);
    let ctx = Reach {
        g: &g,
        net: &router.net,
        proj,
        metric,
        budget: budget as i64,
    };
    let mut reached = Reached::new(o);
    for p in &src {
        let c = g.arc_cost(metric, p.arc) as f64;
        let ahead = if c > 0.0 { budget_f / c } else { 1.0 };
        let to = (p.offset + ahead).min(1.0);
        reached.add(
            &ctx,
            Piece {
                arc: p.arc,
                from: p.offset,
                to,
                cost_from: 0.0,
                cost_to: (to - p.offset) * c,
            },
        );
    }
    let costs = g.costs(metric);
    let weight = |a: u32, t: u32| Some(costs.transition(a, t));
    let reached = with_dijkstra(g.arc_count(), |d| match threads {
        Threads::One => {
            d.explore(&g, &starts, ctx.budget, weight, arc_ok);
            // In arc (edge) order, edges and points are read front to back, not at random.
            let mut order = std::mem::take(&mut d.order);
            radsort::sort(&mut order);
            for &a in &order {
                if let Some(label) = d.reached(a) {
                    reached.settled(&ctx, a, label);
                }
            }
            d.order = order;
            reached
        }
        Threads::Two { batch } => std::thread::scope(|s| {
            let mut pipe = Pipe::new(s, &ctx, reached, batch.max(1));
            d.explore_each(&g, &starts, ctx.budget, weight, arc_ok, |a, label| {
                pipe.settled(a, label);
            });
            pipe.finish()
        }),
    });
    let Reached {
        pieces,
        xy,
        ends,
        bbox,
    } = reached;
    let cell = cell_size(profile, metric, budget);
    let unreached = budget_f * (1.0 + ALLOWANCE);
    let mut field = CostField::new(bbox, cell, unreached);
    field.mark(o, 0.0);
    let split = match threads {
        Threads::Two { batch } if pieces.len() >= 2 * batch.max(1) => pieces.len() / 2,
        _ => 0,
    };
    if split == 0 {
        trace_all(&mut field, &pieces, &xy, &ends, 0);
    } else {
        let (first, second) = pieces.split_at(split);
        let (first_ends, second_ends) = ends.split_at(split);
        let second_from = first_ends.last().copied().unwrap_or(0);
        let (xy_ref, first_ref) = (&xy, first);
        let other = std::thread::scope(|s| {
            let half = s.spawn(move || {
                let mut f = CostField::new(bbox, cell, unreached);
                trace_all(&mut f, first_ref, xy_ref, first_ends, 0);
                f
            });
            trace_all(&mut field, second, &xy, second_ends, second_from);
            half.join()
        });
        match other {
            Ok(f) => field.lower_to(&f),
            Err(panic) => std::panic::resume_unwind(panic),
        }
    }
    if xy.capacity() <= MAX_KEPT_POINTS {
        KEPT_POINTS.give(xy, Vec::capacity);
    }
    let (ring, holes) = field.contour(budget_f)?;
    let unproject =
        |r: Vec<[f64; 2]>| -> Vec<Pt> { r.into_iter().map(|p| proj.unproject(p)).collect() };
    Some(Outline {
        ring: unproject(ring),
        holes: holes.into_iter().map(unproject).collect(),
    })
}

/// Marks `pieces` on the field: piece `i`'s points are `xy[start..ends[i]]`, from `from`.
fn trace_all(
    field: &mut CostField,
    pieces: &[Piece],
    xy: &[[f64; 2]],
    ends: &[usize],
    from: usize,
) {
    let mut line = Scratch::default();
    let mut start = from;
    for (piece, &end) in pieces.iter().zip(ends) {
        let points = &xy[start..end];
        line.load(points);
        field.trace(points, &line, piece);
        start = end;
    }
}

/// What turns a settled arc into a reached piece.
struct Reach<'a> {
    g: &'a TurnGraph,
    net: &'a RoadNetwork,
    proj: LocalProjection,
    metric: Metric,
    budget: i64,
}

/// The reached pieces, each piece's points projected in its direction of travel (one buffer;
/// piece `i` ends at `ends[i]`), and the box of every point and the origin.
struct Reached {
    pieces: Vec<Piece>,
    xy: Vec<[f64; 2]>,
    ends: Vec<usize>,
    bbox: [f64; 4],
}

impl Reached {
    fn new(origin: [f64; 2]) -> Reached {
        let mut xy = KEPT_POINTS.take(|_| true).unwrap_or_default();
        xy.clear();
        Reached {
            pieces: Vec::new(),
            xy,
            ends: Vec::new(),
            bbox: [origin[0], origin[1], origin[0], origin[1]],
        }
    }

    /// The piece of arc `a`, settled at `label`, that the rest of the budget covers (none when
    /// nothing is left).
    fn settled(&mut self, r: &Reach<'_>, a: u32, label: i64) {
        let left = r.budget - label;
        if left <= 0 {
            return;
        }
        let c = r.g.arc_cost(r.metric, a);
        let f = if c == 0 || left as u64 >= c {
            1.0
        } else {
            left as f64 / c as f64
        };
        self.add(
            r,
            Piece {
                arc: a,
                from: 0.0,
                to: f,
                cost_from: label as f64,
                cost_to: label as f64 + f * c as f64,
            },
        );
    }

    /// Projects a piece's arc and widens the box. (Taking the box from the points' degrees
    /// first and projecting each piece as it is traced keeps no buffer but reads the geometry
    /// twice, and measured slower.)
    fn add(&mut self, r: &Reach<'_>, piece: Piece) {
        let geom = r.net.geometry(r.g.arc_edge[piece.arc as usize]);
        let start = self.xy.len();
        if r.g.arc_forward[piece.arc as usize] {
            self.xy.extend(geom.iter().map(|p| r.proj.project(*p)));
        } else {
            self.xy
                .extend(geom.iter().rev().map(|p| r.proj.project(*p)));
        }
        let [x0, y0, x1, y1] = &mut self.bbox;
        for p in &self.xy[start..] {
            *x0 = x0.min(p[0]);
            *x1 = x1.max(p[0]);
            *y0 = y0.min(p[1]);
            *y1 = y1.max(p[1]);
        }
        self.ends.push(self.xy.len());
        self.pieces.push(piece);
    }
}

/// Settled arcs going to a second thread in batches, which turns them into pieces while the
/// search goes on. The thread starts with the first full batch, so a small search never
/// starts it; empty batches come back to be filled again.
struct Pipe<'scope, 'env, 'a> {
    scope: &'scope std::thread::Scope<'scope, 'env>,
    reach: &'env Reach<'a>,
    /// Until the thread starts: what it will add to.
    reached: Option<Reached>,
    batch: Vec<(u32, i64)>,
    size: usize,
    worker: Option<PipeWorker<'scope>>,
}

struct PipeWorker<'scope> {
    full: std::sync::mpsc::SyncSender<Vec<(u32, i64)>>,
    empty: std::sync::mpsc::Receiver<Vec<(u32, i64)>>,
    done: std::thread::ScopedJoinHandle<'scope, Reached>,
}

impl<'scope, 'env, 'a> Pipe<'scope, 'env, 'a> {
    fn new(
        scope: &'scope std::thread::Scope<'scope, 'env>,
        reach: &'env Reach<'a>,
        reached: Reached,
        size: usize,
    ) -> Self {
        Pipe {
            scope,
            reach,
            reached: Some(reached),
            batch: Vec::with_capacity(size),
            size,
            worker: None,
        }
    }

    fn settled(&mut self, a: u32, label: i64) {
        self.batch.push((a, label));
        if self.batch.len() < self.size {
            return;
        }
        if self.worker.is_none() {
            self.start();
        }
        if let Some(w) = &self.worker {
            let next = w
                .empty
                .try_recv()
                .unwrap_or_else(|_| Vec::with_capacity(self.size));
            let full = std::mem::replace(&mut self.batch, next);
            // Refused only when the thread has ended (a panic, reported by `finish`).
            let _ = w.full.send(full);
        }
    }

    fn start(&mut self) {
        let Some(mut reached) = self.reached.take() else {
            return;
        };
        let (full, batches) = std::sync::mpsc::sync_channel::<Vec<(u32, i64)>>(4);
        let (back, empty) = std::sync::mpsc::channel();
        let reach = self.reach;
        let done = self.scope.spawn(move || {
            for mut batch in batches {
                add_batch(&mut reached, reach, &mut batch);
                let _ = back.send(batch);
            }
            reached
        });
        self.worker = Some(PipeWorker { full, empty, done });
    }

    /// Every piece, once the search has ended.
    fn finish(mut self) -> Reached {
        match self.worker.take() {
            None => {
                let mut reached = self
                    .reached
                    .take()
                    .unwrap_or_else(|| Reached::new([0.0; 2]));
                add_batch(&mut reached, self.reach, &mut self.batch);
                reached
            }
            Some(w) => {
                if !self.batch.is_empty() {
                    let _ = w.full.send(std::mem::take(&mut self.batch));
                }
                drop(w.full);
                match w.done.join() {
                    Ok(reached) => reached,
                    Err(panic) => std::panic::resume_unwind(panic),
                }
            }
        }
    }
}

/// Adds a batch of settled arcs in arc order (their edges and points are then read front to
/// back within the batch).
fn add_batch(reached: &mut Reached, reach: &Reach<'_>, batch: &mut Vec<(u32, i64)>) {
    radsort::sort_by_key(batch, |s| s.0);
    for &(a, label) in batch.iter() {
        reached.settled(reach, a, label);
    }
    batch.clear();
}

/// Largest buffer of projected points kept between isochrones: 2²² points (64 MB), the reach
/// of a long drive in a dense region; bigger reaches allocate per request.
const MAX_KEPT_POINTS: usize = 1 << 22;

/// Point buffers kept for the next isochrones (shared by the threads, bounded in number).
static KEPT_POINTS: Spares<Vec<[f64; 2]>> = Spares::new();

/// Drops the kept point buffers ([`crate::routing::memory::release`]); how many there were.
pub fn drop_spares() -> usize {
    KEPT_POINTS.clear()
}

/// The segment lengths of one arc's projected geometry: a buffer kept across the reached
/// pieces.
#[derive(Default)]
struct Scratch {
    /// `len[i]`: length of segment `xy[i]`–`xy[i + 1]`.
    len: Vec<f64>,
    total: f64,
}

impl Scratch {
    /// Measures a projected line (points in its direction of travel).
    fn load(&mut self, xy: &[[f64; 2]]) {
        self.len.clear();
        self.len.extend(
            xy.windows(2)
                .map(|w| ((w[1][0] - w[0][0]).powi(2) + (w[1][1] - w[0][1]).powi(2)).sqrt()),
        );
        self.total = self.len.iter().sum();
    }
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
