//! The walkable graph of a venue, built at pack-build time ([`build`]) and searched at query
//! time ([`Graph::route`], [`Graph::distances_from`]).
//!
//! **Areas.** Rooms, corridors, `indoor=area`s and the footprints of stairs, escalators, ramps
//! and elevators are polygons on one or more levels (`level`, `repeat_on`). `indoor=level`
//! outlines are walkable only on a level that has no other area (else they would let a route
//! cross walls).
//!
//! **Nodes** of a level: doors and entrances, POI anchors (a point inside the POI), the
//! representative point of each area, the inner corners of each area (reflex vertices moved
//! 0.3 m inside, so a path can turn around them), the midpoints of the edges two areas share
//! (openings: corridors split into several polygons, a stair footprint beside a corridor;
//! a room is entered that way only when no door is mapped on its outline), and the vertices of
//! walkable lines (`highway=footway|corridor` with a level, stairs and escalator ways).
//!
//! **Edges.** Inside each area every pair of its nodes that see each other (the segment stays
//! inside the polygon) is joined: a visibility graph, so routes cut across halls the way people
//! walk. Walkable lines join their vertices. Connectors join levels: a stair or escalator way
//! from its lower to its upper end (`incline` says which end is which, else the ends' areas
//! do), escalators one way when `conveying=forward|backward`, elevators between each pair of
//! consecutive levels they serve. A door or connector point that lies in no area is joined to
//! the nearest node of its level within 5 m. Features of kind `outdoor` (the foot-accessible
//! road edges around the venue, level 0) are walkable lines too; entrances join their nearest
//! vertex within 30 m, so routes can start on the street.
//!
//! **Profiles.** `default` takes every edge (escalators only in their direction); `wheelchair`
//! never takes stairs or escalators, nor anything tagged `wheelchair=no`.
//!
//! ```
//! use serde_json::json;
//! use waymark_core::geo::Pt;
//! use waymark_core::indoor::graph::{GraphFeature, Profile, build};
//! // two rooms side by side joined by a door, on level 0
//! let props = serde_json::Map::new();
//! let room = |w: f64| json!({"type": "Polygon", "coordinates": [[[w, 48.0], [w + 0.0002, 48.0],
//!     [w + 0.0002, 48.0002], [w, 48.0002], [w, 48.0]]]});
//! let (a, b) = (room(11.0), room(11.0002));
//! let door = json!({"type": "Point", "coordinates": [11.0002, 48.0001]});
//! let f = |id, kind, shape, point| GraphFeature { id, kind, levels: vec![0], properties: &props,
//!     shape, point, poi: false };
//! let g = build(&[
//!     f(1, "room", &a, Pt::new(48.0001, 11.0001)),
//!     f(2, "room", &b, Pt::new(48.0001, 11.0003)),
//!     f(3, "door", &door, Pt::new(48.0001, 11.0002)),
//! ]);
//! let from = g.anchor(Pt::new(48.0001, 11.00005), 0).unwrap();
//! let to = g.anchor(Pt::new(48.0001, 11.00035), 0).unwrap();
//! let path = g.route(&from, &to, Profile::Default, &[]).unwrap();
//! assert!(path.length_m > 20.0 && path.length_m < 25.0);
//! ```
use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashMap};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::geo::{LocalProjection, Pt, polygon_rings};

/// Version of the stored graph format (`indoor_graphs.version`): 1 is the graph as postcard,
/// 2 the same bytes in one zstd frame (issue 24: 40 % of München's indoor graphs), 3 (pack
/// format 5) the same values in columns ([`Graph::to_bytes`]) in one zstd frame. Readers take
/// all three.
pub const GRAPH_VERSION: u32 = 3;

/// zstd level of a stored graph (written once at pack build, read once per venue).
const GRAPH_ZSTD_LEVEL: i32 = 19;

/// Why a stored graph could not be written or read.
#[derive(Debug, thiserror::Error)]
pub enum GraphCodecError {
    /// The postcard layer.
    #[error("graph encoding: {0}")]
    Postcard(#[from] postcard::Error),
    /// The zstd frame.
    #[error("graph compression: {0}")]
    Zstd(#[from] std::io::Error),
    /// A version this build does not know.
    #[error("graph format version {0} is not known (this build reads 1 to {GRAPH_VERSION})")]
    Version(i64),
    /// A version 3 graph that ends early or holds a bad value.
    #[error("graph columns: {0}")]
    Columns(&'static str),
}

/// Walking speed, m/s.
const WALK_SPEED: f64 = 1.2;
/// Wheelchair speed, m/s.
const WHEELCHAIR_SPEED: f64 = 1.0;
/// Climbing speed along a stair, m/s.
const STAIRS_SPEED: f64 = 0.5;
/// Escalator speed (standing), m/s.
const ESCALATOR_SPEED: f64 = 0.5;
/// Time of an elevator ride between two consecutive levels, with a share of the wait, s.
const ELEVATOR_SECONDS: f64 = 15.0;
/// Nominal length of a vertical move between two levels (elevator), m.
const LEVEL_HEIGHT_M: f64 = 4.0;
/// How far inside an area its inner corners are moved, m.
const CORNER_INSET_M: f64 = 0.3;
/// A point this close to an area's outline is on it, m.
const ON_OUTLINE_M: f64 = 0.3;
/// How far a door or connector that lies in no area is joined to its level, m.
const JOIN_M: f64 = 5.0;
/// How far a POI that lies in no area is joined to its level, m.
const POI_JOIN_M: f64 = 15.0;
/// A `lat,lng,level` point this close to a node is snapped to it when it lies in no area, m.
pub const SNAP_M: f64 = 5.0;
/// A `lat,lng,level` point in no area this close to a walkable line (a footway, the outdoor
/// network) starts on it, m.
pub const LINE_SNAP_M: f64 = 15.0;
/// How far an entrance is joined to the outdoor walking network, m.
const ENTRANCE_JOIN_M: f64 = 30.0;

/// What an edge is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum EdgeKind {
    /// Walking on one level.
    Walk,
    /// A stair (climbing, or walking on its footprint).
    Stairs,
    /// An escalator.
    Escalator,
    /// An elevator ride between two levels.
    Elevator,
    /// A ramp.
    Ramp,
}

/// A routing profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Profile {
    /// Every edge.
    Default,
    /// No stairs, no escalators, nothing tagged `wheelchair=no`.
    Wheelchair,
}

impl Profile {
    /// The profile named `name`.
    pub fn parse(name: &str) -> Option<Profile> {
        match name {
            "default" => Some(Profile::Default),
            "wheelchair" => Some(Profile::Wheelchair),
            _ => None,
        }
    }

    /// Its name.
    pub fn name(self) -> &'static str {
        match self {
            Profile::Default => "default",
            Profile::Wheelchair => "wheelchair",
        }
    }

    fn speed(self) -> f64 {
        match self {
            Profile::Default => WALK_SPEED,
            Profile::Wheelchair => WHEELCHAIR_SPEED,
        }
    }
}

/// A node: a point on a level.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Node {
    /// Latitude.
    pub lat: f64,
    /// Longitude.
    pub lng: f64,
    /// Level.
    pub level: i64,
}

impl Node {
    /// Its position.
    pub fn pt(&self) -> Pt {
        Pt::new(self.lat, self.lng)
    }
}

/// An edge between two nodes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Edge {
    /// One end.
    pub a: u32,
    /// The other end.
    pub b: u32,
    /// Length, metres.
    pub length: f32,
    /// Kind.
    pub kind: EdgeKind,
    /// Only from `a` to `b`.
    pub oneway: bool,
    /// Open to the wheelchair profile.
    pub wheelchair: bool,
    /// The feature (area, line or connector) the edge runs through.
    pub feature: i64,
}

/// A walkable polygon on one level.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WalkArea {
    /// The feature.
    pub feature: i64,
    /// Its kind (`room`, `corridor`, `area`, `stairs`, ...).
    pub kind: String,
    /// Level.
    pub level: i64,
    /// Rings as `[lng, lat]` (outer first).
    pub rings: Vec<Vec<[f64; 2]>>,
    /// `[west, south, east, north]`.
    pub bbox: [f64; 4],
    /// The nodes inside it or on its outline.
    pub nodes: Vec<u32>,
    /// Kind of the edges inside it.
    pub edge_kind: EdgeKind,
    /// Open to the wheelchair profile.
    pub wheelchair: bool,
}

/// A venue's graph.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Graph {
    /// Format version ([`GRAPH_VERSION`]).
    pub version: u32,
    /// Reference latitude of the metric projection.
    pub lat0: f64,
    /// Nodes.
    pub nodes: Vec<Node>,
    /// Edges.
    pub edges: Vec<Edge>,
    /// Walkable areas.
    pub areas: Vec<WalkArea>,
    /// `(poi id, node)` anchors of the POIs.
    pub pois: Vec<(i64, u32)>,
    /// Profiles that can move between levels (or the venue has one level).
    pub profiles: Vec<String>,
    /// Per node, `(edge index, other end)`, filled by [`Graph::index`].
    #[serde(skip)]
    adjacency: Vec<Vec<(u32, u32)>>,
}

/// A feature given to [`build`].
#[derive(Debug, Clone)]
pub struct GraphFeature<'a> {
    /// Feature (POI) id.
    pub id: i64,
    /// Kind (`room`, `corridor`, `area`, `level`, `door`, `entrance`, `stairs`, `escalator`,
    /// `elevator`, `ramp`, `footway`, `poi`).
    pub kind: &'a str,
    /// Integer levels it is on (expanded ranges).
    pub levels: Vec<i64>,
    /// Its tags.
    pub properties: &'a Map<String, Value>,
    /// GeoJSON geometry.
    pub shape: &'a Value,
    /// A point inside.
    pub point: Pt,
    /// Whether it is a POI (routes may end at it).
    pub poi: bool,
}

impl GraphFeature<'_> {
    fn tag(&self, k: &str) -> Option<&str> {
        self.properties.get(k).and_then(Value::as_str)
    }
}

type Xy = [f64; 2];

fn sub(a: Xy, b: Xy) -> Xy {
    [a[0] - b[0], a[1] - b[1]]
}

fn cross(a: Xy, b: Xy) -> f64 {
    a[0] * b[1] - a[1] * b[0]
}

fn dist(a: Xy, b: Xy) -> f64 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2)).sqrt()
}

fn seg_dist(p: Xy, a: Xy, b: Xy) -> f64 {
    crate::geo::project_on_segment(p, a, b).1.sqrt()
}

/// Whether segments `a`–`b` and `c`–`d` cross at a point inside both (touching does not count).
fn proper_cross(a: Xy, b: Xy, c: Xy, d: Xy) -> bool {
    const EPS: f64 = 1e-6;
    let o1 = cross(sub(b, a), sub(c, a));
    let o2 = cross(sub(b, a), sub(d, a));
    let o3 = cross(sub(d, c), sub(a, c));
    let o4 = cross(sub(d, c), sub(b, c));
    ((o1 > EPS && o2 < -EPS) || (o1 < -EPS && o2 > EPS))
        && ((o3 > EPS && o4 < -EPS) || (o3 < -EPS && o4 > EPS))
}

/// Even-odd point in rings.
fn in_rings(rings: &[Vec<Xy>], p: Xy) -> bool {
    let mut inside = false;
    for ring in rings {
        let n = ring.len();
        let mut j = n.wrapping_sub(1);
        for i in 0..n {
            let (a, b) = (ring[i], ring[j]);
            if (a[1] > p[1]) != (b[1] > p[1])
                && p[0] < (b[0] - a[0]) * (p[1] - a[1]) / (b[1] - a[1]) + a[0]
            {
                inside = !inside;
            }
            j = i;
        }
    }
    inside
}

fn ring_edges(ring: &[Xy]) -> impl Iterator<Item = (Xy, Xy)> + '_ {
    let n = ring.len();
    (0..n).map(move |i| (ring[i], ring[(i + 1) % n]))
}

fn outline_dist(rings: &[Vec<Xy>], p: Xy) -> f64 {
    rings
        .iter()
        .flat_map(|r| ring_edges(r))
        .map(|(a, b)| seg_dist(p, a, b))
        .fold(f64::INFINITY, f64::min)
}

fn in_or_on(rings: &[Vec<Xy>], p: Xy, tol: f64) -> bool {
    in_rings(rings, p) || outline_dist(rings, p) <= tol
}

/// Whether the segment `a`–`b` stays inside the polygon (its outline may be touched).
fn visible(rings: &[Vec<Xy>], a: Xy, b: Xy) -> bool {
    for ring in rings {
        for (c, d) in ring_edges(ring) {
            if proper_cross(a, b, c, d) {
                return false;
            }
        }
    }
    [0.25, 0.5, 0.75].iter().all(|t| {
        let p = [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t];
        in_or_on(rings, p, 0.05)
    })
}

/// A polygon in metres, with its rings and bbox.
#[derive(Debug, Clone)]
struct Poly {
    rings: Vec<Vec<Xy>>,
    min: Xy,
    max: Xy,
}

impl Poly {
    fn new(rings: Vec<Vec<Xy>>) -> Option<Poly> {
        let mut min = [f64::INFINITY; 2];
        let mut max = [f64::NEG_INFINITY; 2];
        for p in rings.iter().flatten() {
            min = [min[0].min(p[0]), min[1].min(p[1])];
            max = [max[0].max(p[0]), max[1].max(p[1])];
        }
        (min[0].is_finite() && rings.first().is_some_and(|r| r.len() >= 3)).then_some(Poly {
            rings,
            min,
            max,
        })
    }

    fn near(&self, p: Xy, tol: f64) -> bool {
        p[0] >= self.min[0] - tol
            && p[0] <= self.max[0] + tol
            && p[1] >= self.min[1] - tol
            && p[1] <= self.max[1] + tol
    }

    fn holds(&self, p: Xy, tol: f64) -> bool {
        self.near(p, tol) && in_or_on(&self.rings, p, tol)
    }
}

/// The polygons of a GeoJSON `Polygon` or `MultiPolygon`, rings without their closing point.
fn shape_polygons(shape: &Value) -> Vec<Vec<Vec<Pt>>> {
    let strip = |mut rings: Vec<Vec<Pt>>| {
        for r in &mut rings {
            if r.len() > 1 && r.first() == r.last() {
                r.pop();
            }
        }
        rings
    };
    match shape.get("type").and_then(Value::as_str) {
        Some("Polygon") => shape
            .get("coordinates")
            .and_then(polygon_rings)
            .map(strip)
            .into_iter()
            .collect(),
        Some("MultiPolygon") => shape
            .get("coordinates")
            .and_then(Value::as_array)
            .map(|ps| ps.iter().filter_map(polygon_rings).map(strip).collect())
            .unwrap_or_default(),
        _ => Vec::new(),
    }
}

/// The points of a GeoJSON `LineString`.
fn shape_line(shape: &Value) -> Option<Vec<Pt>> {
    if shape.get("type").and_then(Value::as_str) != Some("LineString") {
        return None;
    }
    shape
        .get("coordinates")?
        .as_array()?
        .iter()
        .map(|p| {
            let p = p.as_array()?;
            Some(Pt::new(p.get(1)?.as_f64()?, p.first()?.as_f64()?))
        })
        .collect()
}

fn is_area_kind(kind: &str) -> bool {
    matches!(
        kind,
        "room" | "corridor" | "area" | "level" | "stairs" | "escalator" | "elevator" | "ramp"
    )
}

fn kind_edge(kind: &str) -> EdgeKind {
    match kind {
        "stairs" => EdgeKind::Stairs,
        "escalator" => EdgeKind::Escalator,
        "ramp" => EdgeKind::Ramp,
        _ => EdgeKind::Walk,
    }
}

fn wheelchair_ok(f: &GraphFeature<'_>, kind: EdgeKind) -> bool {
    !matches!(kind, EdgeKind::Stairs | EdgeKind::Escalator) && f.tag("wheelchair") != Some("no")
}

struct Builder {
    proj: LocalProjection,
    nodes: Vec<Node>,
    xy: Vec<Xy>,
    keys: HashMap<(i64, i64, i64), u32>,
    edges: Vec<Edge>,
    edge_keys: HashMap<(u32, u32), usize>,
}

impl Builder {
    fn node(&mut self, p: Pt, level: i64) -> u32 {
        let key = (
            level,
            (p.lat * 1e7).round() as i64,
            (p.lng * 1e7).round() as i64,
        );
        if let Some(&n) = self.keys.get(&key) {
            return n;
        }
        let n = self.nodes.len() as u32;
        self.nodes.push(Node {
            lat: p.lat,
            lng: p.lng,
            level,
        });
        self.xy.push(self.proj.project(p));
        self.keys.insert(key, n);
        n
    }

    #[allow(clippy::too_many_arguments)]
    fn edge(
        &mut self,
        a: u32,
        b: u32,
        length: f64,
        kind: EdgeKind,
        oneway: bool,
        wheelchair: bool,
        feature: i64,
    ) {
        if a == b {
            return;
        }
        let key = if oneway { (a, b) } else { (a.min(b), a.max(b)) };
        let e = Edge {
            a,
            b,
            length: length as f32,
            kind,
            oneway,
            wheelchair,
            feature,
        };
        match self.edge_keys.get(&key) {
            // A walk edge is kept over a stair footprint's, so wheelchairs may use it.
            Some(&i) => {
                if let Some(old) = self.edges.get_mut(i)
                    && old.kind != EdgeKind::Walk
                    && kind == EdgeKind::Walk
                {
                    *old = e;
                }
            }
            None => {
                self.edge_keys.insert(key, self.edges.len());
                self.edges.push(e);
            }
        }
    }
}

/// Builds the graph of a venue from its features.
pub fn build(features: &[GraphFeature<'_>]) -> Graph {
    let lat0 = if features.is_empty() {
        0.0
    } else {
        features.iter().map(|f| f.point.lat).sum::<f64>() / features.len() as f64
    };
    let proj = LocalProjection::new(lat0);
    let mut b = Builder {
        proj,
        nodes: Vec::new(),
        xy: Vec::new(),
        keys: HashMap::new(),
        edges: Vec::new(),
        edge_keys: HashMap::new(),
    };

    // Areas: (feature index, level, polygon, rings in degrees).
    struct A {
        f: usize,
        level: i64,
        poly: Poly,
        deg: Vec<Vec<Pt>>,
    }
    let mut areas: Vec<A> = Vec::new();
    for (fi, f) in features.iter().enumerate() {
        if !is_area_kind(f.kind) {
            continue;
        }
        for rings in shape_polygons(f.shape) {
            let Some(poly) = Poly::new(
                rings
                    .iter()
                    .map(|r| r.iter().map(|p| proj.project(*p)).collect())
                    .collect(),
            ) else {
                continue;
            };
            for &level in &f.levels {
                areas.push(A {
                    f: fi,
                    level,
                    poly: poly.clone(),
                    deg: rings.clone(),
                });
            }
        }
    }
    // Level outlines only where nothing else is walkable.
    let mut covered: std::collections::HashSet<i64> = std::collections::HashSet::new();
    for a in &areas {
        if features.get(a.f).is_some_and(|f| f.kind != "level") {
            covered.insert(a.level);
        }
    }
    areas.retain(|a| {
        features.get(a.f).is_some_and(|f| f.kind != "level") || !covered.contains(&a.level)
    });

    // Point nodes: doors, entrances, POIs, connectors given as points.
    let mut point_nodes: Vec<(usize, u32)> = Vec::new();
    let mut doors_xy: Vec<(i64, Xy)> = Vec::new();
    let mut pois: Vec<(i64, u32)> = Vec::new();
    for (fi, f) in features.iter().enumerate() {
        let is_door = matches!(f.kind, "door" | "entrance");
        let anchor = is_door || f.poi || matches!(f.kind, "elevator");
        if !anchor {
            continue;
        }
        if is_door && shape_line(f.shape).is_some() {
            continue;
        }
        let p = f.point;
        let xy = proj.project(p);
        let mut levels = f.levels.clone();
        if levels.is_empty() {
            // An untagged door is on the levels of the areas whose outline has it.
            levels = areas
                .iter()
                .filter(|a| a.poly.holds(xy, ON_OUTLINE_M))
                .map(|a| a.level)
                .collect();
            levels.sort_unstable();
            levels.dedup();
            if levels.is_empty() {
                levels.push(0);
            }
        }
        for &l in &levels {
            let n = b.node(p, l);
            point_nodes.push((fi, n));
            if is_door {
                doors_xy.push((l, xy));
            }
            if f.poi {
                pois.push((f.id, n));
            }
        }
    }

    // Area nodes: representative point, inner corners.
    for a in &areas {
        let f = &features[a.f];
        let c = f.point;
        if a.poly.holds(proj.project(c), 0.0) {
            b.node(c, a.level);
        } else if let Some(p) = a.poly.rings.first().and_then(|r| inner_point(&a.poly, r)) {
            b.node(proj.unproject(p), a.level);
        }
        for ring in &a.poly.rings {
            let n = ring.len();
            for i in 0..n {
                let (prev, v, next) = (ring[(i + n - 1) % n], ring[i], ring[(i + 1) % n]);
                let (d1, d2) = (sub(v, prev), sub(next, v));
                let (l1, l2) = ((d1[0].hypot(d1[1])), (d2[0].hypot(d2[1])));
                if l1 < 1e-9 || l2 < 1e-9 {
                    continue;
                }
                // bisector of the corner, pointing to either side
                let u1 = [-d1[0] / l1, -d1[1] / l1];
                let u2 = [d2[0] / l2, d2[1] / l2];
                let mut bis = [u1[0] + u2[0], u1[1] + u2[1]];
                let bl = bis[0].hypot(bis[1]);
                if bl < 1e-9 {
                    continue;
                }
                bis = [bis[0] / bl, bis[1] / bl];
                let probe = |s: f64| {
                    [
                        v[0] + s * bis[0] * CORNER_INSET_M,
                        v[1] + s * bis[1] * CORNER_INSET_M,
                    ]
                };
                // `bis` points into the wedge between the two edges: when the inside is on
                // the other side, the corner is reflex (more than 180° seen from inside).
                let (p_in, p_out) = (probe(1.0), probe(-1.0));
                let reflex = !in_rings(&a.poly.rings, p_in) && in_rings(&a.poly.rings, p_out);
                let inner = p_out;
                if reflex {
                    b.node(proj.unproject(inner), a.level);
                }
            }
        }
    }

    // Openings: midpoints of the outline edges two areas of a level share.
    let room_has_door = |a: &A| {
        doors_xy
            .iter()
            .any(|(l, d)| *l == a.level && a.poly.holds(*d, ON_OUTLINE_M))
    };
    let door_rooms: Vec<bool> = areas.iter().map(room_has_door).collect();
    for i in 0..areas.len() {
        for j in 0..areas.len() {
            if i == j {
                continue;
            }
            let (ai, aj) = (&areas[i], &areas[j]);
            if ai.level != aj.level || ai.f == aj.f {
                continue;
            }
            if ai.poly.max[0] < aj.poly.min[0] - ON_OUTLINE_M
                || aj.poly.max[0] < ai.poly.min[0] - ON_OUTLINE_M
                || ai.poly.max[1] < aj.poly.min[1] - ON_OUTLINE_M
                || aj.poly.max[1] < ai.poly.min[1] - ON_OUTLINE_M
            {
                continue;
            }
            let closed = |k: usize| {
                features[areas[k].f].kind == "room" && door_rooms.get(k).copied().unwrap_or(false)
            };
            if closed(i) || closed(j) {
                continue;
            }
            for (ri, ring) in ai.poly.rings.iter().enumerate() {
                let n = ring.len();
                for k in 0..n {
                    let (p, q) = (ring[k], ring[(k + 1) % n]);
                    let m = [(p[0] + q[0]) / 2.0, (p[1] + q[1]) / 2.0];
                    if aj.poly.holds(p, ON_OUTLINE_M)
                        && aj.poly.holds(q, ON_OUTLINE_M)
                        && aj.poly.holds(m, ON_OUTLINE_M)
                    {
                        let mp = ai
                            .deg
                            .get(ri)
                            .and_then(|r| Some((r.get(k)?, r.get((k + 1) % n)?)))
                            .map(|(a, c)| Pt::new((a.lat + c.lat) / 2.0, (a.lng + c.lng) / 2.0));
                        if let Some(mp) = mp {
                            b.node(mp, ai.level);
                        }
                    }
                }
            }
        }
    }

    // Walkable lines (the outdoor walking network around the venue among them) and connector
    // ways.
    let mut line_nodes: Vec<u32> = Vec::new();
    let mut outdoor_nodes: std::collections::HashSet<u32> = std::collections::HashSet::new();
    let mut on_line: std::collections::HashSet<u32> = std::collections::HashSet::new();
    for f in features {
        let Some(line) = shape_line(f.shape) else {
            continue;
        };
        if line.len() < 2 || f.levels.is_empty() {
            continue;
        }
        let kind = match f.kind {
            "stairs" | "escalator" | "ramp" => kind_edge(f.kind),
            "corridor" | "area" | "footway" | "outdoor" => EdgeKind::Walk,
            _ => continue,
        };
        let wheel = wheelchair_ok(f, kind);
        let lo = f.levels.iter().copied().min().unwrap_or(0);
        let hi = f.levels.iter().copied().max().unwrap_or(0);
        if lo == hi || kind == EdgeKind::Walk {
            // one level: a path along the line on each of its levels
            for &l in &f.levels {
                let ids: Vec<u32> = line.iter().map(|p| b.node(*p, l)).collect();
                line_nodes.extend(&ids);
                on_line.extend(&ids);
                if f.kind == "outdoor" {
                    outdoor_nodes.extend(&ids);
                }
                for w in ids.windows(2) {
                    let len = dist(b.xy[w[0] as usize], b.xy[w[1] as usize]);
                    b.edge(w[0], w[1], len, kind, false, wheel, f.id);
                }
            }
            continue;
        }
        // Which end is low: `incline`, else where the ends' areas are.
        let first = proj.project(line[0]);
        let last = proj.project(line[line.len() - 1]);
        let score = |p: Xy, l: i64| {
            areas
                .iter()
                .filter(|a| a.level == l && a.poly.holds(p, 1.0))
                .count()
        };
        let first_low = match f.tag("incline") {
            Some(v) if v.starts_with("up") || v.starts_with('+') => true,
            Some(v) if v.starts_with("down") || v.starts_with('-') => false,
            _ => score(first, lo) + score(last, hi) >= score(first, hi) + score(last, lo),
        };
        let (l_first, l_last) = if first_low { (lo, hi) } else { (hi, lo) };
        let n = line.len();
        let ids: Vec<u32> = line
            .iter()
            .enumerate()
            .map(|(i, p)| b.node(*p, if i + 1 == n { l_last } else { l_first }))
            .collect();
        line_nodes.push(ids[0]);
        line_nodes.push(ids[n - 1]);
        let (forward_only, backward_only) = if f.kind == "escalator" {
            match f.tag("conveying") {
                Some("forward") => (true, false),
                Some("backward") => (false, true),
                _ => (false, false),
            }
        } else {
            (false, false)
        };
        for w in ids.windows(2) {
            let (x, y) = (w[0], w[1]);
            let len = dist(b.xy[x as usize], b.xy[y as usize]).max(1.0);
            if backward_only {
                b.edge(y, x, len, kind, true, wheel, f.id);
            } else {
                b.edge(x, y, len, kind, forward_only, wheel, f.id);
            }
        }
    }

    // Connectors as points or footprints: elevators (and stair/escalator/ramp areas spanning
    // levels) join their levels at their point.
    for f in features {
        let vertical = match f.kind {
            "elevator" => EdgeKind::Elevator,
            "stairs" | "escalator" | "ramp" if shape_line(f.shape).is_none() => kind_edge(f.kind),
            _ => continue,
        };
        let mut levels = f.levels.clone();
        levels.sort_unstable();
        levels.dedup();
        let wheel = wheelchair_ok(f, vertical);
        for w in levels.windows(2) {
            let (x, y) = (b.node(f.point, w[0]), b.node(f.point, w[1]));
            let len = match vertical {
                EdgeKind::Elevator => LEVEL_HEIGHT_M * (w[1] - w[0]) as f64,
                _ => 2.0 * LEVEL_HEIGHT_M * (w[1] - w[0]) as f64,
            };
            b.edge(x, y, len, vertical, false, wheel, f.id);
            line_nodes.push(x);
            line_nodes.push(y);
        }
    }

    // Nodes of each area, and the visibility edges inside it.
    let mut walk_areas: Vec<WalkArea> = Vec::new();
    let mut in_area = vec![false; b.nodes.len()];
    for a in &areas {
        let f = &features[a.f];
        let members: Vec<u32> = (0..b.nodes.len() as u32)
            .filter(|&n| {
                b.nodes[n as usize].level == a.level && a.poly.holds(b.xy[n as usize], ON_OUTLINE_M)
            })
            .collect();
        let kind = kind_edge(f.kind);
        let wheel = wheelchair_ok(f, kind);
        for (i, &x) in members.iter().enumerate() {
            in_area[x as usize] = true;
            for &y in &members[i + 1..] {
                let (px, py) = (b.xy[x as usize], b.xy[y as usize]);
                if visible(&a.poly.rings, px, py) {
                    b.edge(x, y, dist(px, py), kind, false, wheel, f.id);
                }
            }
        }
        let bbox = {
            let pts = a.deg.iter().flatten();
            let (mut w, mut s, mut e, mut n) = (180.0f64, 90.0f64, -180.0f64, -90.0f64);
            for p in pts {
                w = w.min(p.lng);
                e = e.max(p.lng);
                s = s.min(p.lat);
                n = n.max(p.lat);
            }
            [w, s, e, n]
        };
        walk_areas.push(WalkArea {
            feature: f.id,
            kind: f.kind.to_owned(),
            level: a.level,
            rings: a
                .deg
                .iter()
                .map(|r| r.iter().map(|p| [p.lng, p.lat]).collect())
                .collect(),
            bbox,
            nodes: members,
            edge_kind: kind,
            wheelchair: wheel,
        });
    }

    // Doors, POIs and connector ends in no area and on no walkable line: joined to the
    // nearest node of their level that is (within 5 m; 15 m for a POI, whose point may lie on
    // a platform edge or a track).
    let anchored = |n: u32| in_area[n as usize] || on_line.contains(&n);
    let poi_nodes: std::collections::HashSet<u32> = point_nodes
        .iter()
        .filter(|(fi, _)| features.get(*fi).is_some_and(|f| f.poi))
        .map(|(_, n)| *n)
        .collect();
    let mut loose: Vec<u32> = point_nodes
        .iter()
        .map(|(_, n)| *n)
        .chain(line_nodes.iter().copied())
        .filter(|&n| (n as usize) < in_area.len() && !anchored(n))
        .collect();
    loose.sort_unstable();
    loose.dedup();
    for n in loose {
        let (level, p) = (b.nodes[n as usize].level, b.xy[n as usize]);
        let radius = if poi_nodes.contains(&n) {
            POI_JOIN_M
        } else {
            JOIN_M
        };
        let best = (0..b.nodes.len() as u32)
            .filter(|&m| m != n && b.nodes[m as usize].level == level && anchored(m))
            .map(|m| (m, dist(p, b.xy[m as usize])))
            .filter(|(_, d)| *d <= radius)
            .min_by(|x, y| x.1.total_cmp(&y.1));
        if let Some((m, d)) = best {
            b.edge(n, m, d, EdgeKind::Walk, false, true, -1);
        }
    }

    // Entrances: joined to the outdoor walking network within 30 m.
    for (fi, n) in &point_nodes {
        if features.get(*fi).is_none_or(|f| f.kind != "entrance") {
            continue;
        }
        let (level, p) = (b.nodes[*n as usize].level, b.xy[*n as usize]);
        let best = outdoor_nodes
            .iter()
            .copied()
            .filter(|&m| m != *n && b.nodes[m as usize].level == level)
            .map(|m| (m, dist(p, b.xy[m as usize])))
            .filter(|(_, d)| *d <= ENTRANCE_JOIN_M)
            .min_by(|x, y| x.1.total_cmp(&y.1).then(x.0.cmp(&y.0)));
        if let Some((m, d)) = best {
            b.edge(*n, m, d, EdgeKind::Walk, false, true, -1);
        }
    }

    let mut g = Graph {
        version: GRAPH_VERSION,
        lat0,
        nodes: b.nodes,
        edges: b.edges,
        areas: walk_areas,
        pois,
        profiles: Vec::new(),
        adjacency: Vec::new(),
    };
    g.index();
    let levels: std::collections::BTreeSet<i64> = g.nodes.iter().map(|n| n.level).collect();
    for p in [Profile::Default, Profile::Wheelchair] {
        let vertical = g
            .edges
            .iter()
            .any(|e| g.allowed(e, p) && g.nodes[e.a as usize].level != g.nodes[e.b as usize].level);
        if !g.edges.is_empty() && (levels.len() <= 1 || vertical) {
            g.profiles.push(p.name().to_owned());
        }
    }
    g
}

/// Some point inside the polygon near its outer ring (for areas whose representative point
/// is not inside).
fn inner_point(poly: &Poly, ring: &[Xy]) -> Option<Xy> {
    let n = ring.len();
    for i in 0..n {
        let (a, c) = (ring[i], ring[(i + 2) % n]);
        let m = [(a[0] + c[0]) / 2.0, (a[1] + c[1]) / 2.0];
        if in_rings(&poly.rings, m) {
            return Some(m);
        }
    }
    None
}

/// Where a route starts or ends: graph nodes reached from a point by straight segments.
#[derive(Debug, Clone, PartialEq)]
pub struct Anchor {
    /// The point.
    pub pt: Pt,
    /// Its level.
    pub level: i64,
    /// `(node, metres)` reached from the point.
    pub links: Vec<(u32, f64)>,
    /// The area the point is in (the feature id), if any.
    pub area: Option<i64>,
}

/// A polygon to avoid on a level, as given (`[lng, lat]` corners).
#[derive(Debug, Clone, PartialEq)]
pub struct AvoidBox {
    /// Level.
    pub level: i64,
    /// Corners.
    pub corners: Vec<Pt>,
}

/// A segment of a [`Path`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Seg {
    /// Kind of the edge.
    pub kind: EdgeKind,
    /// The feature it runs through (`None` for joins outside every feature).
    pub feature: Option<i64>,
    /// Open to wheelchairs.
    pub wheelchair: bool,
}

/// A path found by [`Graph::route`].
#[derive(Debug, Clone, PartialEq)]
pub struct Path {
    /// Points with their level.
    pub points: Vec<(Pt, i64)>,
    /// Per segment (`points.len() - 1`).
    pub segments: Vec<Seg>,
    /// Graph nodes of the points (`None` for the anchors' own points).
    pub nodes: Vec<Option<u32>>,
    /// Length, metres.
    pub length_m: f64,
    /// Time, seconds.
    pub duration_s: f64,
}

/// Per node: seconds, metres, and the `(previous node, edge)` it was reached by.
type Searched = (Vec<f64>, Vec<f64>, Vec<Option<(u32, u32)>>);

#[derive(Debug, Clone, Copy, PartialEq)]
struct Item {
    cost: f64,
    node: u32,
}

impl Eq for Item {}

impl Ord for Item {
    fn cmp(&self, other: &Self) -> Ordering {
        other.cost.total_cmp(&self.cost)
    }
}

impl PartialOrd for Item {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Graph {
    /// The stored form of version [`GRAPH_VERSION`] (3): the same values as postcard's, in
    /// columns that compress well, in one zstd frame. Nodes: `lat` then `lng` as byte planes of
    /// their f64 bits, levels as zigzag varints. Edges: `a` as the zigzag delta from the last
    /// edge's, `b` as the zigzag delta from its own `a`, one flag byte (kind, oneway,
    /// wheelchair, length derived), `feature` as the zigzag delta from the last edge's; then
    /// the lengths that are not derived, as byte planes of their f32 bits. A length is derived
    /// when it is bit for bit the f32 of the straight distance between the edge's nodes in the
    /// graph's projection (whose two factors are stored: basic IEEE operations and a square
    /// root only, the same on every platform). Areas, POIs and profiles follow as postcard.
    pub fn to_bytes(&self) -> Result<Vec<u8>, GraphCodecError> {
        let raw = columns::encode(self)?;
        Ok(zstd::bulk::compress(&raw, GRAPH_ZSTD_LEVEL)?)
    }

    /// Reads a stored form of `version` (1: postcard; 2: postcard in a zstd frame; 3: columns
    /// in a zstd frame) and indexes it.
    pub fn from_bytes(version: i64, bytes: &[u8]) -> Result<Graph, GraphCodecError> {
        let mut g: Graph = match version {
            1 => postcard::from_bytes(bytes)?,
            2 => postcard::from_bytes(&zstd::stream::decode_all(bytes)?)?,
            3 => columns::decode(&zstd::stream::decode_all(bytes)?)?,
            v => return Err(GraphCodecError::Version(v)),
        };
        g.index();
        Ok(g)
    }

    /// Builds the adjacency lists (after loading).
    pub fn index(&mut self) {
        let mut adj = vec![Vec::new(); self.nodes.len()];
        for (i, e) in self.edges.iter().enumerate() {
            if let Some(v) = adj.get_mut(e.a as usize) {
                v.push((i as u32, e.b));
            }
            if !e.oneway
                && let Some(v) = adj.get_mut(e.b as usize)
            {
                v.push((i as u32, e.a));
            }
        }
        self.adjacency = adj;
    }

    fn proj(&self) -> LocalProjection {
        LocalProjection::new(self.lat0)
    }

    /// Levels of the graph, sorted.
    pub fn levels(&self) -> Vec<i64> {
        let mut v: Vec<i64> = self.nodes.iter().map(|n| n.level).collect();
        v.sort_unstable();
        v.dedup();
        v
    }

    fn allowed(&self, e: &Edge, p: Profile) -> bool {
        match p {
            Profile::Default => true,
            Profile::Wheelchair => e.wheelchair,
        }
    }

    fn cost(&self, e: &Edge, p: Profile) -> f64 {
        let len = f64::from(e.length);
        match e.kind {
            EdgeKind::Walk | EdgeKind::Ramp => len / p.speed(),
            EdgeKind::Stairs => len / STAIRS_SPEED,
            EdgeKind::Escalator => len / ESCALATOR_SPEED,
            EdgeKind::Elevator => ELEVATOR_SECONDS * (len / LEVEL_HEIGHT_M).max(1.0),
        }
    }

    /// The areas of `level` that hold `p`.
    pub fn areas_at(&self, p: Pt, level: i64) -> impl Iterator<Item = &WalkArea> {
        let proj = self.proj();
        let xy = proj.project(p);
        self.areas.iter().filter(move |a| {
            a.level == level
                && p.lng >= a.bbox[0] - 1e-6
                && p.lng <= a.bbox[2] + 1e-6
                && p.lat >= a.bbox[1] - 1e-6
                && p.lat <= a.bbox[3] + 1e-6
                && in_or_on(&area_xy(&proj, a), xy, 0.05)
        })
    }

    /// Where `p` on `level` enters the graph: the nodes it sees in the areas holding it, else
    /// the nearest node of the level within [`SNAP_M`]. `None` when it is off every area.
    pub fn anchor(&self, p: Pt, level: i64) -> Option<Anchor> {
        let proj = self.proj();
        let xy = proj.project(p);
        let mut links: Vec<(u32, f64)> = Vec::new();
        let mut area = None;
        for a in self.areas_at(p, level) {
            area.get_or_insert(a.feature);
            let rings = area_xy(&proj, a);
            for &n in &a.nodes {
                let Some(node) = self.nodes.get(n as usize) else {
                    continue;
                };
                let q = proj.project(node.pt());
                if visible(&rings, xy, q) {
                    links.push((n, dist(xy, q)));
                }
            }
        }
        if links.is_empty() {
            // Near a walkable line outside every area (a footway, the street): both ends of
            // the nearest such edge.
            let in_some_area = |e: &Edge| self.areas.iter().any(|a| a.feature == e.feature);
            let best = self
                .edges
                .iter()
                .filter(|e| e.kind == EdgeKind::Walk && !in_some_area(e))
                .filter_map(|e| {
                    let (na, nb) = (self.nodes.get(e.a as usize)?, self.nodes.get(e.b as usize)?);
                    if na.level != level || nb.level != level {
                        return None;
                    }
                    let (pa, pb) = (proj.project(na.pt()), proj.project(nb.pt()));
                    let d = seg_dist(xy, pa, pb);
                    (d <= LINE_SNAP_M).then_some((e, d, dist(xy, pa), dist(xy, pb)))
                })
                .min_by(|x, y| x.1.total_cmp(&y.1));
            if let Some((e, _, da, db)) = best {
                links.push((e.a, da));
                if !e.oneway {
                    links.push((e.b, db));
                }
            }
        }
        if links.is_empty() {
            let best = self
                .nodes
                .iter()
                .enumerate()
                .filter(|(_, n)| n.level == level)
                .map(|(i, n)| (i as u32, dist(xy, proj.project(n.pt()))))
                .filter(|(_, d)| *d <= SNAP_M)
                .min_by(|a, b| a.1.total_cmp(&b.1));
            links.extend(best);
        }
        (!links.is_empty()).then_some(Anchor {
            pt: p,
            level,
            links,
            area,
        })
    }

    /// The anchor of a graph node (a POI's).
    pub fn node_anchor(&self, n: u32) -> Option<Anchor> {
        let node = self.nodes.get(n as usize)?;
        Some(Anchor {
            pt: node.pt(),
            level: node.level,
            links: vec![(n, 0.0)],
            area: None,
        })
    }

    /// The node of POI `id`.
    pub fn poi_node(&self, id: i64) -> Option<u32> {
        self.pois.iter().find(|(p, _)| *p == id).map(|(_, n)| *n)
    }

    fn blocked(&self, proj: &LocalProjection, avoid: &[(i64, Vec<Xy>)], a: u32, b: u32) -> bool {
        if avoid.is_empty() {
            return false;
        }
        let (Some(na), Some(nb)) = (self.nodes.get(a as usize), self.nodes.get(b as usize)) else {
            return true;
        };
        let (pa, pb) = (proj.project(na.pt()), proj.project(nb.pt()));
        avoid.iter().any(|(level, poly)| {
            let rings = std::slice::from_ref(poly);
            let on = |n: &Node| n.level == *level;
            if na.level == nb.level {
                on(na)
                    && (in_rings(rings, pa)
                        || in_rings(rings, pb)
                        || ring_edges(poly).any(|(c, d)| segments_meet(pa, pb, c, d)))
            } else {
                (on(na) && in_rings(rings, pa)) || (on(nb) && in_rings(rings, pb))
            }
        })
    }

    fn avoid_xy(&self, avoid: &[AvoidBox]) -> Vec<(i64, Vec<Xy>)> {
        let proj = self.proj();
        avoid
            .iter()
            .map(|b| {
                (
                    b.level,
                    b.corners.iter().map(|p| proj.project(*p)).collect(),
                )
            })
            .collect()
    }

    /// Whether a straight segment between two points of `level` meets an avoided box.
    fn segment_blocked(&self, avoid: &[(i64, Vec<Xy>)], level: i64, a: Xy, b: Xy) -> bool {
        avoid.iter().any(|(l, poly)| {
            *l == level
                && (in_rings(std::slice::from_ref(poly), a)
                    || in_rings(std::slice::from_ref(poly), b)
                    || ring_edges(poly).any(|(c, d)| segments_meet(a, b, c, d)))
        })
    }

    /// Dijkstra from an anchor: cost (s), metres and predecessor edge of every reached node.
    fn search(
        &self,
        from: &Anchor,
        profile: Profile,
        avoid: &[(i64, Vec<Xy>)],
        targets: Option<&HashMap<u32, f64>>,
    ) -> Searched {
        let proj = self.proj();
        let n = self.nodes.len();
        let mut cost = vec![f64::INFINITY; n];
        let mut metres = vec![f64::INFINITY; n];
        let mut prev: Vec<Option<(u32, u32)>> = vec![None; n];
        let mut heap = BinaryHeap::new();
        let mut best = f64::INFINITY;
        let from_xy = proj.project(from.pt);
        for &(node, d) in &from.links {
            let Some(nd) = self.nodes.get(node as usize) else {
                continue;
            };
            if self.segment_blocked(avoid, from.level, from_xy, proj.project(nd.pt())) {
                continue;
            }
            let c = d / profile.speed();
            if c < cost[node as usize] {
                cost[node as usize] = c;
                metres[node as usize] = d;
                heap.push(Item { cost: c, node });
            }
        }
        while let Some(Item { cost: c, node }) = heap.pop() {
            if c > cost[node as usize] {
                continue;
            }
            // Nothing cheaper than the best arrival can come any more.
            if c > best {
                break;
            }
            if let Some(d) = targets.and_then(|t| t.get(&node)) {
                best = best.min(c + d / profile.speed());
            }
            let Some(adj) = self.adjacency.get(node as usize) else {
                continue;
            };
            for &(ei, other) in adj {
                let Some(e) = self.edges.get(ei as usize) else {
                    continue;
                };
                if !self.allowed(e, profile) || self.blocked(&proj, avoid, node, other) {
                    continue;
                }
                let nc = c + self.cost(e, profile);
                if nc < cost[other as usize] {
                    cost[other as usize] = nc;
                    metres[other as usize] = metres[node as usize] + f64::from(e.length);
                    prev[other as usize] = Some((node, ei));
                    heap.push(Item {
                        cost: nc,
                        node: other,
                    });
                }
            }
        }
        (cost, metres, prev)
    }

    /// Metres and seconds from `from` to every node (`INFINITY` when unreachable).
    pub fn distances_from(&self, from: &Anchor, profile: Profile) -> (Vec<f64>, Vec<f64>) {
        let (cost, metres, _) = self.search(from, profile, &[], None);
        (metres, cost)
    }

    /// The quickest path between two anchors for `profile`, avoiding `avoid`.
    pub fn route(
        &self,
        from: &Anchor,
        to: &Anchor,
        profile: Profile,
        avoid: &[AvoidBox],
    ) -> Option<Path> {
        let avoid = self.avoid_xy(avoid);
        let proj = self.proj();
        let (fx, tx) = (proj.project(from.pt), proj.project(to.pt));
        // Both in one area and in sight: a straight line.
        if from.level == to.level
            && from.area.is_some()
            && from.area == to.area
            && !self.segment_blocked(&avoid, from.level, fx, tx)
            && self.areas_at(from.pt, from.level).any(|a| {
                Some(a.feature) == from.area
                    && (profile == Profile::Default || a.wheelchair)
                    && visible(&area_xy(&proj, a), fx, tx)
            })
        {
            let d = dist(fx, tx);
            return Some(Path {
                points: vec![(from.pt, from.level), (to.pt, to.level)],
                segments: vec![Seg {
                    kind: EdgeKind::Walk,
                    feature: from.area,
                    wheelchair: true,
                }],
                nodes: vec![None, None],
                length_m: d,
                duration_s: d / profile.speed(),
            });
        }
        let targets: Vec<(u32, f64)> = to
            .links
            .iter()
            .filter(|(n, _)| {
                self.nodes.get(*n as usize).is_some_and(|nd| {
                    !self.segment_blocked(&avoid, to.level, proj.project(nd.pt()), tx)
                })
            })
            .copied()
            .collect();
        let target_of: HashMap<u32, f64> = targets.iter().copied().collect();
        let (cost, metres, prev) = self.search(from, profile, &avoid, Some(&target_of));
        let (end, last_d) = targets
            .iter()
            .filter(|(n, _)| cost[*n as usize].is_finite())
            .min_by(|a, b| {
                (cost[a.0 as usize] + a.1 / profile.speed())
                    .total_cmp(&(cost[b.0 as usize] + b.1 / profile.speed()))
            })
            .copied()?;
        // Walk back.
        let mut chain: Vec<(u32, Option<u32>)> = vec![(end, None)];
        let mut cur = end;
        let mut guard = 0usize;
        while let Some((p, ei)) = prev[cur as usize] {
            if let Some(last) = chain.last_mut() {
                last.1 = Some(ei);
            }
            chain.push((p, None));
            cur = p;
            guard += 1;
            if guard > self.nodes.len() {
                return None;
            }
        }
        chain.reverse();
        // chain[i].1 is the edge into chain[i]; segment k joins points k and k + 1.
        let mut points = vec![(from.pt, from.level)];
        let mut nodes = vec![None];
        let mut segments = Vec::new();
        for (i, (node, into)) in chain.iter().enumerate() {
            let nd = self.nodes.get(*node as usize)?;
            let seg = if i == 0 {
                Seg {
                    kind: EdgeKind::Walk,
                    feature: from.area,
                    wheelchair: true,
                }
            } else {
                let e = into.and_then(|ei| self.edges.get(ei as usize))?;
                Seg {
                    kind: e.kind,
                    feature: (e.feature >= 0).then_some(e.feature),
                    wheelchair: e.wheelchair,
                }
            };
            points.push((nd.pt(), nd.level));
            nodes.push(Some(*node));
            segments.push(seg);
        }
        points.push((to.pt, to.level));
        nodes.push(None);
        segments.push(Seg {
            kind: EdgeKind::Walk,
            feature: to.area,
            wheelchair: true,
        });
        // Drop zero-length links (an anchor that is a node).
        let same = |a: (Pt, i64), b: (Pt, i64)| {
            a.1 == b.1 && (a.0.lat - b.0.lat).abs() < 1e-9 && (a.0.lng - b.0.lng).abs() < 1e-9
        };
        let mut out_p = vec![points[0]];
        let mut out_n = vec![nodes[0]];
        let mut out_s = Vec::new();
        for (k, seg) in segments.iter().enumerate() {
            let (p, nd) = (points[k + 1], nodes[k + 1]);
            let last = out_p.len() - 1;
            if same(out_p[last], p) {
                if out_n[last].is_none() {
                    out_n[last] = nd;
                }
                continue;
            }
            out_p.push(p);
            out_n.push(nd);
            out_s.push(*seg);
        }
        let (points, nodes, segments) = (out_p, out_n, out_s);
        let length_m = metres[end as usize] + last_d;
        let duration_s = cost[end as usize] + last_d / profile.speed();
        Some(Path {
            points,
            segments,
            nodes,
            length_m,
            duration_s,
        })
    }

    /// Seconds of the quickest path between two anchors (for waypoint ordering).
    pub fn cost_between(
        &self,
        from: &Anchor,
        to: &Anchor,
        profile: Profile,
        avoid: &[AvoidBox],
    ) -> Option<f64> {
        self.route(from, to, profile, avoid).map(|p| p.duration_s)
    }

    /// Whether `p` on `level` lies in a walkable area (within `tol` metres of one) or on a
    /// connector or line of the graph of that level (within `tol` of one of its edges).
    pub fn walkable_at(&self, p: Pt, level: i64, tol: f64) -> bool {
        let proj = self.proj();
        let xy = proj.project(p);
        self.areas
            .iter()
            .filter(|a| a.level == level)
            .any(|a| in_or_on(&area_xy(&proj, a), xy, tol))
            || self.edges.iter().any(|e| {
                let (Some(a), Some(b)) =
                    (self.nodes.get(e.a as usize), self.nodes.get(e.b as usize))
                else {
                    return false;
                };
                (a.level == level || b.level == level)
                    && e.kind != EdgeKind::Walk
                    && seg_dist(xy, proj.project(a.pt()), proj.project(b.pt())) <= tol
                    || (e.feature < 0 || !self.areas.iter().any(|ar| ar.feature == e.feature))
                        && a.level == level
                        && b.level == level
                        && seg_dist(xy, proj.project(a.pt()), proj.project(b.pt())) <= tol
            })
    }
}

fn area_xy(proj: &LocalProjection, a: &WalkArea) -> Vec<Vec<Xy>> {
    a.rings
        .iter()
        .map(|r| {
            r.iter()
                .map(|c| proj.project(Pt::new(c[1], c[0])))
                .collect()
        })
        .collect()
}

/// Whether two segments meet (touching counts).
fn segments_meet(a: Xy, b: Xy, c: Xy, d: Xy) -> bool {
    let o1 = cross(sub(b, a), sub(c, a));
    let o2 = cross(sub(b, a), sub(d, a));
    let o3 = cross(sub(d, c), sub(a, c));
    let o4 = cross(sub(d, c), sub(b, c));
    (o1 * o2 <= 0.0) && (o3 * o4 <= 0.0) && {
        // collinear and disjoint
        let (minx, maxx) = (a[0].min(b[0]), a[0].max(b[0]));
        let (miny, maxy) = (a[1].min(b[1]), a[1].max(b[1]));
        c[0].max(d[0]) >= minx
            && c[0].min(d[0]) <= maxx
            && c[1].max(d[1]) >= miny
            && c[1].min(d[1]) <= maxy
    }
}

/// The column layout of stored graph version 3 ([`Graph::to_bytes`]).
mod columns {
    use super::{Edge, EdgeKind, Graph, GraphCodecError, Node, WalkArea};
    use crate::geo::LocalProjection;

    const KINDS: [EdgeKind; 5] = [
        EdgeKind::Walk,
        EdgeKind::Stairs,
        EdgeKind::Escalator,
        EdgeKind::Elevator,
        EdgeKind::Ramp,
    ];
    const ONEWAY: u8 = 1 << 3;
    const WHEELCHAIR: u8 = 1 << 4;
    const DERIVED: u8 = 1 << 5;

    fn put_varint(out: &mut Vec<u8>, mut v: u64) {
        loop {
            let byte = (v & 0x7f) as u8;
            v >>= 7;
            if v == 0 {
                out.push(byte);
                return;
            }
            out.push(byte | 0x80);
        }
    }

    fn put_signed(out: &mut Vec<u8>, v: i64) {
        put_varint(out, ((v << 1) ^ (v >> 63)) as u64);
    }

    /// Byte planes of fixed-width little-endian values: every value's first byte, then every
    /// value's second byte, ...
    fn put_planes<const N: usize>(out: &mut Vec<u8>, values: &[[u8; N]]) {
        for i in 0..N {
            out.extend(values.iter().map(|v| v[i]));
        }
    }

    struct Reader<'a> {
        bytes: &'a [u8],
        at: usize,
    }

    impl Reader<'_> {
        fn take(&mut self, n: usize) -> Result<&[u8], GraphCodecError> {
            let end = self
                .at
                .checked_add(n)
                .filter(|&e| e <= self.bytes.len())
                .ok_or(GraphCodecError::Columns("ends early"))?;
            let s = &self.bytes[self.at..end];
            self.at = end;
            Ok(s)
        }

        fn varint(&mut self) -> Result<u64, GraphCodecError> {
            let mut v = 0u64;
            for shift in (0..64).step_by(7) {
                let b = self.take(1)?[0];
                v |= u64::from(b & 0x7f) << shift;
                if b & 0x80 == 0 {
                    return Ok(v);
                }
            }
            Err(GraphCodecError::Columns("varint too long"))
        }

        fn signed(&mut self) -> Result<i64, GraphCodecError> {
            let v = self.varint()?;
            Ok((v >> 1) as i64 ^ -((v & 1) as i64))
        }

        fn count(&mut self) -> Result<usize, GraphCodecError> {
            let n = usize::try_from(self.varint()?)
                .map_err(|_| GraphCodecError::Columns("count too large"))?;
            // Every counted item takes at least one byte.
            if n > self.bytes.len() {
                return Err(GraphCodecError::Columns("count too large"));
            }
            Ok(n)
        }

        fn f64(&mut self) -> Result<f64, GraphCodecError> {
            let mut b = [0u8; 8];
            b.copy_from_slice(self.take(8)?);
            Ok(f64::from_le_bytes(b))
        }

        fn planes<const N: usize>(&mut self, n: usize) -> Result<Vec<[u8; N]>, GraphCodecError> {
            let bytes = self.take(
                n.checked_mul(N)
                    .ok_or(GraphCodecError::Columns("count too large"))?,
            )?;
            let mut out = vec![[0u8; N]; n];
            for (i, plane) in bytes.chunks_exact(n.max(1)).enumerate().take(N) {
                for (v, &b) in out.iter_mut().zip(plane) {
                    v[i] = b;
                }
            }
            Ok(out)
        }
    }

    /// The length an edge between `a` and `b` has when it is derived.
    fn derived(k: (f64, f64), a: &Node, b: &Node) -> f32 {
        let (dx, dy) = (a.lng * k.0 - b.lng * k.0, a.lat * k.1 - b.lat * k.1);
        (dx * dx + dy * dy).sqrt() as f32
    }

    pub(super) fn encode(g: &Graph) -> Result<Vec<u8>, GraphCodecError> {
        let k = LocalProjection::new(g.lat0).factors();
        let mut out = Vec::new();
        put_varint(&mut out, u64::from(g.version));
        out.extend(g.lat0.to_le_bytes());
        out.extend(k.0.to_le_bytes());
        out.extend(k.1.to_le_bytes());
        put_varint(&mut out, g.nodes.len() as u64);
        let lat: Vec<[u8; 8]> = g.nodes.iter().map(|n| n.lat.to_le_bytes()).collect();
        let lng: Vec<[u8; 8]> = g.nodes.iter().map(|n| n.lng.to_le_bytes()).collect();
        put_planes(&mut out, &lat);
        put_planes(&mut out, &lng);
        for n in &g.nodes {
            put_signed(&mut out, n.level);
        }
        put_varint(&mut out, g.edges.len() as u64);
        let (mut last_a, mut last_feature) = (0i64, 0i64);
        let mut lengths: Vec<[u8; 4]> = Vec::new();
        for e in &g.edges {
            let (a, b) = (i64::from(e.a), i64::from(e.b));
            put_signed(&mut out, a - last_a);
            put_signed(&mut out, b - a);
            last_a = a;
            let kind = KINDS.iter().position(|&x| x == e.kind).unwrap_or(0) as u8;
            let mut flags = kind;
            if e.oneway {
                flags |= ONEWAY;
            }
            if e.wheelchair {
                flags |= WHEELCHAIR;
            }
            let is_derived = match (g.nodes.get(e.a as usize), g.nodes.get(e.b as usize)) {
                (Some(na), Some(nb)) => derived(k, na, nb).to_bits() == e.length.to_bits(),
                _ => false,
            };
            if is_derived {
                flags |= DERIVED;
            } else {
                lengths.push(e.length.to_le_bytes());
            }
            out.push(flags);
            put_signed(&mut out, e.feature.wrapping_sub(last_feature));
            last_feature = e.feature;
        }
        put_varint(&mut out, lengths.len() as u64);
        put_planes(&mut out, &lengths);
        out.extend(postcard::to_stdvec(&(&g.areas, &g.pois, &g.profiles))?);
        Ok(out)
    }

    pub(super) fn decode(bytes: &[u8]) -> Result<Graph, GraphCodecError> {
        let mut r = Reader { bytes, at: 0 };
        let version = u32::try_from(r.varint()?)
            .map_err(|_| GraphCodecError::Columns("version too large"))?;
        let lat0 = r.f64()?;
        let k = (r.f64()?, r.f64()?);
        let n = r.count()?;
        let lat = r.planes::<8>(n)?;
        let lng = r.planes::<8>(n)?;
        let mut nodes = Vec::with_capacity(n);
        for (la, ln) in lat.iter().zip(&lng) {
            nodes.push(Node {
                lat: f64::from_le_bytes(*la),
                lng: f64::from_le_bytes(*ln),
                level: r.signed()?,
            });
        }
        let m = r.count()?;
        let mut edges = Vec::with_capacity(m);
        let mut needs_length = Vec::new();
        let (mut last_a, mut last_feature) = (0i64, 0i64);
        for i in 0..m {
            let a = last_a + r.signed()?;
            let b = a + r.signed()?;
            last_a = a;
            let flags = r.take(1)?[0];
            let feature = last_feature.wrapping_add(r.signed()?);
            last_feature = feature;
            let a =
                u32::try_from(a).map_err(|_| GraphCodecError::Columns("node id out of range"))?;
            let b =
                u32::try_from(b).map_err(|_| GraphCodecError::Columns("node id out of range"))?;
            if a as usize >= nodes.len() || b as usize >= nodes.len() {
                return Err(GraphCodecError::Columns("node id out of range"));
            }
            let length = if flags & DERIVED != 0 {
                match (nodes.get(a as usize), nodes.get(b as usize)) {
                    (Some(na), Some(nb)) => derived(k, na, nb),
                    _ => return Err(GraphCodecError::Columns("node id out of range")),
                }
            } else {
                needs_length.push(i);
                0.0
            };
            edges.push(Edge {
                a,
                b,
                length,
                kind: *KINDS
                    .get(usize::from(flags & 7))
                    .ok_or(GraphCodecError::Columns("edge kind"))?,
                oneway: flags & ONEWAY != 0,
                wheelchair: flags & WHEELCHAIR != 0,
                feature,
            });
        }
        let stored = r.count()?;
        if stored != needs_length.len() {
            return Err(GraphCodecError::Columns("length count"));
        }
        for (i, l) in needs_length.into_iter().zip(r.planes::<4>(stored)?) {
            edges[i].length = f32::from_le_bytes(l);
        }
        let (areas, pois, profiles): (Vec<WalkArea>, Vec<(i64, u32)>, Vec<String>) =
            postcard::from_bytes(&bytes[r.at..])?;
        Ok(Graph {
            version,
            lat0,
            nodes,
            edges,
            areas,
            pois,
            profiles,
            adjacency: Vec::new(),
        })
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
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
        let stairs =
            json!({"type": "LineString", "coordinates": [[0.0002, 0.0001], [0.0003, 0.0001]]});
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
}
