//! The walkable graph of a venue, built at pack-build time ([`build`]) and searched at query
//! time ([`Graph::route`], [`Graph::distances_from`]).
//!
//! **Areas.** Rooms, corridors, `indoor=area`s and the footprints of stairs, escalators, ramps
//! and elevators are polygons on one or more levels (`level`, `repeat_on`). `indoor=level`
//! outlines are walkable only on a level that has no other area (else they would let a route
//! cross walls), the building's own outline (feature kind `building`, its floor) only on a
//! level with neither. Features tagged `access=private|no` are not walked at all.
//!
//! **Nodes** of a level: doors and entrances, POI anchors (a point inside the POI), the
//! representative point of each area, the inner corners of each area (reflex vertices moved
//! 0.3 m inside, so a path can turn around them), the midpoints of the edges two areas share
//! (openings: corridors split into several polygons, a stair footprint beside a corridor;
//! a room is entered that way only when no door is mapped on its outline, and never from
//! another room), and the vertices of walkable lines (`highway=footway|corridor` with a level,
//! stairs and escalator ways).
//!
//! **Edges.** Inside each area every pair of its nodes that see each other (the segment stays
//! inside the polygon) is joined: a visibility graph, so routes cut across halls the way people
//! walk. Walkable lines join their vertices. Connectors join levels: a stair or escalator way
//! from its lower to its upper end (`incline` says which end is which, else the ends' areas
//! do), escalators one way when `conveying=forward|backward`, elevators between each pair of
//! consecutive levels they serve. Walkable lines of different levels that share a vertex meet
//! there (a ramp edge: how the level changes is not mapped), and a connector way's ends are on the levels of the lines they meet. Lines tagged
//! `oneway` or `conveying` are one way. A closed door or gate (`access=private|no`) cuts the
//! edges at it. A door or connector point that lies in no area is joined to
//! the nearest node of its level within 5 m. Features of kind `outdoor` (the foot-accessible
//! road edges around the venue, level 0) are walkable lines too; entrances join their nearest
//! vertex within 30 m, so routes can start on the street.
//!
//! **Profiles.** `default` takes every edge (escalators only in their direction); `wheelchair`
//! never takes stairs or escalators, nor anything tagged `wheelchair=no` (doors and gates
//! among them), nor turnstiles. A graph lists a profile only when it reaches every level that
//! has POIs ([`Graph::serves_every_poi_level`]).
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
        "room"
            | "corridor"
            | "area"
            | "level"
            | "building"
            | "stairs"
            | "escalator"
            | "elevator"
            | "ramp"
    )
}

/// Kinds of outline that are walkable only where nothing smaller is mapped: a level outline,
/// the building's own outline (its floor on a level with no mapped area at all).
fn is_outline_kind(kind: &str) -> bool {
    matches!(kind, "level" | "building")
}

/// The position of a point as a key (1e-7 degrees, the OSM grid).
fn pos_key(p: Pt) -> (i64, i64) {
    ((p.lat * 1e7).round() as i64, (p.lng * 1e7).round() as i64)
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

/// Whether a feature is closed to everyone: `access=private|no` (a venue file's restricted
/// units are given `access=private`). `customers`, `permissive`, `yes` are open.
fn closed_access(f: &GraphFeature<'_>) -> bool {
    matches!(f.tag("access"), Some("private" | "no"))
}

/// Whether a barrier point stops wheelchairs: tagged `wheelchair=no`, or a turnstile not
/// tagged `wheelchair=yes`.
fn barrier_stops_wheelchairs(f: &GraphFeature<'_>) -> bool {
    match f.tag("wheelchair") {
        Some("no") => true,
        Some("yes" | "limited" | "designated") => false,
        _ => matches!(
            f.tag("barrier"),
            Some("turnstile" | "full-height_turnstile" | "kissing_gate" | "stile")
        ),
    }
}

/// The direction a walkable line may be walked in: `Some(true)` along it only, `Some(false)`
/// against it only, `None` both ways (`oneway=yes|-1`, `conveying=forward|backward`).
fn one_way(f: &GraphFeature<'_>) -> Option<bool> {
    match f.tag("oneway") {
        Some("yes" | "true" | "1") => return Some(true),
        Some("-1" | "reverse") => return Some(false),
        _ => {}
    }
    match f.tag("conveying") {
        Some("forward") => Some(true),
        Some("backward") => Some(false),
        _ => None,
    }
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
        if !is_area_kind(f.kind) || closed_access(f) {
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
    // Level outlines only where nothing else is walkable; the building's outline (its floor)
    // only where neither an area nor a level outline is mapped.
    let kind_of = |a: &A| features.get(a.f).map_or("", |f| f.kind);
    let mut covered: std::collections::HashSet<i64> = std::collections::HashSet::new();
    let mut outlined: std::collections::HashSet<i64> = std::collections::HashSet::new();
    for a in &areas {
        match kind_of(a) {
            "building" => {}
            "level" => {
                outlined.insert(a.level);
            }
            _ => {
                covered.insert(a.level);
            }
        }
    }
    areas.retain(|a| match kind_of(a) {
        "level" => !covered.contains(&a.level),
        "building" => !covered.contains(&a.level) && !outlined.contains(&a.level),
        _ => true,
    });

    // Point nodes: doors, entrances, POIs, connectors given as points.
    let mut point_nodes: Vec<(usize, u32)> = Vec::new();
    let mut doors_xy: Vec<(i64, Xy)> = Vec::new();
    // doors that do not open (access=private|no): their rooms are still entered only by doors
    let mut shut_doors_xy: Vec<(i64, Xy)> = Vec::new();
    // positions no edge may touch (closed doors and barriers) and positions wheelchairs
    // cannot pass (doors and barriers tagged `wheelchair=no`, turnstiles)
    let mut shut_pos: std::collections::HashSet<(i64, i64)> = std::collections::HashSet::new();
    let mut no_wheel_pos: std::collections::HashSet<(i64, i64)> = std::collections::HashSet::new();
    for f in features {
        if f.kind != "barrier" || shape_line(f.shape).is_some() {
            continue;
        }
        if closed_access(f) {
            shut_pos.insert(pos_key(f.point));
        } else if barrier_stops_wheelchairs(f) {
            no_wheel_pos.insert(pos_key(f.point));
        }
    }
    let mut pois: Vec<(i64, u32)> = Vec::new();
    for (fi, f) in features.iter().enumerate() {
        let is_door = matches!(f.kind, "door" | "entrance");
        let anchor = is_door || f.poi || matches!(f.kind, "elevator");
        if matches!(f.kind, "elevator") && closed_access(f) && !f.poi {
            continue;
        }
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
                .filter(|a| kind_of(a) != "building" && a.poly.holds(xy, ON_OUTLINE_M))
                .map(|a| a.level)
                .collect();
            levels.sort_unstable();
            levels.dedup();
            if levels.is_empty() {
                levels.push(0);
            }
        }
        if is_door && closed_access(f) {
            shut_pos.insert(pos_key(p));
            for &l in &levels {
                shut_doors_xy.push((l, xy));
            }
            continue;
        }
        if is_door && f.tag("wheelchair") == Some("no") {
            no_wheel_pos.insert(pos_key(p));
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
            .chain(&shut_doors_xy)
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
            // A room is entered through its doors, never through a wall it shares with
            // another room; one without a mapped door is open on the sides it shares with a
            // corridor or area (a shop front).
            let room = |k: usize| features[areas[k].f].kind == "room";
            let closed = |k: usize| room(k) && door_rooms.get(k).copied().unwrap_or(false);
            if closed(i) || closed(j) || (room(i) && room(j)) {
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
    // The levels the walkable lines of one level (footways, corridors, the outdoor network)
    // have at each of their vertices, with the feature: a connector's end is on the level of
    // the lines it meets, and lines of different levels that share a vertex meet there.
    let mut line_levels: HashMap<(i64, i64), Vec<(i64, i64)>> = HashMap::new();
    for f in features {
        let Some(line) = shape_line(f.shape) else {
            continue;
        };
        if !matches!(f.kind, "corridor" | "area" | "footway" | "outdoor") || closed_access(f) {
            continue;
        }
        for p in &line {
            let e = line_levels.entry(pos_key(*p)).or_default();
            for &l in &f.levels {
                if !e.contains(&(f.id, l)) {
                    e.push((f.id, l));
                }
            }
        }
    }
    let meets = |p: Pt, l: i64| {
        line_levels
            .get(&pos_key(p))
            .is_some_and(|v| v.iter().any(|(_, ll)| *ll == l))
    };
    for f in features {
        let Some(line) = shape_line(f.shape) else {
            continue;
        };
        if line.len() < 2 || f.levels.is_empty() || closed_access(f) {
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
                    match one_way(f) {
                        None => b.edge(w[0], w[1], len, kind, false, wheel, f.id),
                        Some(true) => b.edge(w[0], w[1], len, kind, true, wheel, f.id),
                        Some(false) => b.edge(w[1], w[0], len, kind, true, wheel, f.id),
                    }
                }
            }
            continue;
        }
        // Which end is low: `incline`, else where the ends' areas are.
        let (first_pt, last_pt) = (line[0], line[line.len() - 1]);
        let first = proj.project(first_pt);
        let last = proj.project(last_pt);
        // An end is on a level when a walkable line of that level has it as a vertex (a
        // shared OSM node: the strongest sign), or when areas of that level hold it.
        let score = |p: Xy, pt: Pt, l: i64| {
            let on_areas = areas
                .iter()
                .filter(|a| a.level == l && !is_outline_kind(kind_of(a)) && a.poly.holds(p, 1.0))
                .count();
            on_areas + if meets(pt, l) { 100 } else { 0 }
        };
        let first_low = match f.tag("incline") {
            Some(v) if v.starts_with("up") || v.starts_with('+') => true,
            Some(v) if v.starts_with("down") || v.starts_with('-') => false,
            _ => {
                score(first, first_pt, lo) + score(last, last_pt, hi)
                    >= score(first, first_pt, hi) + score(last, last_pt, lo)
            }
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
        let (forward_only, backward_only) = match one_way(f) {
            Some(true) => (true, false),
            Some(false) => (false, true),
            None => (false, false),
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
        if closed_access(f) {
            continue;
        }
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

    // Lines of different levels that share a vertex (an OSM node) meet there: the footway of
    // level 1 that continues the street of level 0 at an entrance. Two features that share a
    // level at the vertex already meet on it.
    let mut joins: Vec<(Pt, i64, i64)> = Vec::new();
    for f in features {
        let Some(line) = shape_line(f.shape) else {
            continue;
        };
        if !matches!(f.kind, "corridor" | "area" | "footway" | "outdoor") || closed_access(f) {
            continue;
        }
        for p in &line {
            let Some(v) = line_levels.get(&pos_key(*p)) else {
                continue;
            };
            for &l in &f.levels {
                // the nearest level of another feature with no level in common here
                let mine = |id: i64| v.iter().any(|(o, ll)| *o == id && f.levels.contains(ll));
                let best = v
                    .iter()
                    .filter(|(o, ll)| *o != f.id && !f.levels.contains(ll) && !mine(*o))
                    .map(|(_, ll)| *ll)
                    .min_by_key(|ll| ((ll - l).abs(), *ll));
                if let Some(other) = best
                    && other > l
                {
                    joins.push((*p, l, other));
                }
            }
        }
    }
    joins.sort_by(|a, b| {
        pos_key(a.0)
            .cmp(&pos_key(b.0))
            .then(a.1.cmp(&b.1))
            .then(a.2.cmp(&b.2))
    });
    joins.dedup_by(|a, b| pos_key(a.0) == pos_key(b.0) && a.1 == b.1 && a.2 == b.2);
    // How the level changes there is not mapped: a ramp (a level change the instructions say),
    // open to wheelchairs as the lines it joins are.
    for (p, lo, hi) in joins {
        let (x, y) = (b.node(p, lo), b.node(p, hi));
        let len = LEVEL_HEIGHT_M * (hi - lo) as f64;
        b.edge(x, y, len, EdgeKind::Ramp, false, true, -1);
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

    // Closed doors and barriers cut every edge at them; wheelchairs do not pass the doors and
    // barriers that stop them.
    let node_pos: Vec<(i64, i64)> = b.nodes.iter().map(|n| pos_key(n.pt())).collect();
    let at = |n: u32, set: &std::collections::HashSet<(i64, i64)>| {
        node_pos.get(n as usize).is_some_and(|k| set.contains(k))
    };
    let mut edges = b.edges;
    if !shut_pos.is_empty() {
        edges.retain(|e| !at(e.a, &shut_pos) && !at(e.b, &shut_pos));
    }
    for e in &mut edges {
        if at(e.a, &no_wheel_pos) || at(e.b, &no_wheel_pos) {
            e.wheelchair = false;
        }
    }
    let mut g = Graph {
        version: GRAPH_VERSION,
        lat0,
        nodes: b.nodes,
        edges,
        areas: walk_areas,
        pois,
        profiles: Vec::new(),
        adjacency: Vec::new(),
    };
    g.index();
    for p in [Profile::Default, Profile::Wheelchair] {
        if !g.edges.is_empty() && g.serves_every_poi_level(p) {
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

    /// Whether `profile` reaches every level that has a POI: one strongly connected part of
    /// the graph under the profile (where every node reaches every other) holds a POI of each
    /// such level. A POI spanning levels is one place: reached on one of its levels, it counts
    /// for all of them. A graph without POIs is served when it is connected (one part).
    pub fn serves_every_poi_level(&self, profile: Profile) -> bool {
        let mut levels_of: HashMap<i64, Vec<i64>> = HashMap::new();
        for &(id, n) in &self.pois {
            if let Some(node) = self.nodes.get(n as usize) {
                levels_of.entry(id).or_default().push(node.level);
            }
        }
        if levels_of.is_empty() {
            // no POI: any move between levels (or one level)
            let levels = self.levels();
            return levels.len() <= 1
                || self.edges.iter().any(|e| {
                    self.allowed(e, profile)
                        && self.nodes.get(e.a as usize).map(|x| x.level)
                            != self.nodes.get(e.b as usize).map(|x| x.level)
                });
        }
        let comp = self.components(profile);
        let wanted: std::collections::BTreeSet<i64> =
            levels_of.values().flatten().copied().collect();
        // per component, the POIs it holds
        let mut held: HashMap<u32, std::collections::BTreeSet<i64>> = HashMap::new();
        for &(id, n) in &self.pois {
            if let Some(&c) = comp.get(n as usize) {
                held.entry(c).or_default().insert(id);
            }
        }
        held.values().any(|ids| {
            let reached: std::collections::BTreeSet<i64> = ids
                .iter()
                .filter_map(|id| levels_of.get(id))
                .flatten()
                .copied()
                .collect();
            reached == wanted
        })
    }

    /// The strongly connected component of every node under `profile` (Kosaraju, iterative).
    fn components(&self, profile: Profile) -> Vec<u32> {
        let n = self.nodes.len();
        let mut fwd: Vec<Vec<u32>> = vec![Vec::new(); n];
        let mut back: Vec<Vec<u32>> = vec![Vec::new(); n];
        for e in &self.edges {
            if !self.allowed(e, profile) {
                continue;
            }
            let (a, b) = (e.a as usize, e.b as usize);
            if a >= n || b >= n {
                continue;
            }
            fwd[a].push(e.b);
            back[b].push(e.a);
            if !e.oneway {
                fwd[b].push(e.a);
                back[a].push(e.b);
            }
        }
        // finishing order of a depth-first walk over the forward arcs
        let mut seen = vec![false; n];
        let mut order: Vec<u32> = Vec::with_capacity(n);
        for s in 0..n as u32 {
            if seen[s as usize] {
                continue;
            }
            seen[s as usize] = true;
            let mut stack: Vec<(u32, usize)> = vec![(s, 0)];
            while let Some(top) = stack.last_mut() {
                let (v, i) = (top.0 as usize, top.1);
                if let Some(&w) = fwd[v].get(i) {
                    top.1 += 1;
                    if !seen[w as usize] {
                        seen[w as usize] = true;
                        stack.push((w, 0));
                    }
                } else {
                    order.push(v as u32);
                    stack.pop();
                }
            }
        }
        // components over the backward arcs, latest finished first
        let mut comp = vec![u32::MAX; n];
        let mut next = 0u32;
        for &s in order.iter().rev() {
            if comp[s as usize] != u32::MAX {
                continue;
            }
            comp[s as usize] = next;
            let mut stack = vec![s];
            while let Some(v) = stack.pop() {
                for &w in &back[v as usize] {
                    if comp[w as usize] == u32::MAX {
                        comp[w as usize] = next;
                        stack.push(w);
                    }
                }
            }
            next += 1;
        }
        comp
    }

    /// Levels of the graph, sorted.
    pub fn levels(&self) -> Vec<i64> {
        let mut v: Vec<i64> = self.nodes.iter().map(|n| n.level).collect();
        v.sort_unstable();
        v.dedup();
        v
    }

    /// Whether the profile may not stand on node `n`: every edge at it is closed to the
    /// profile (a door tagged `wheelchair=no`), so an anchor does not step onto it either.
    fn closed_node(&self, n: u32, p: Profile) -> bool {
        self.adjacency.get(n as usize).is_some_and(|adj| {
            !adj.is_empty()
                && adj.iter().all(|(ei, _)| {
                    self.edges
                        .get(*ei as usize)
                        .is_none_or(|e| !self.allowed(e, p))
                })
        })
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
            if self.closed_node(node, profile) {
                continue;
            }
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
                !self.closed_node(*n, profile)
                    && self.nodes.get(*n as usize).is_some_and(|nd| {
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
        let street =
            json!({"type": "LineString", "coordinates": [[-0.0005, 0.0002], [0.0, 0.0002]]});
        let walk1 = json!({"type": "LineString", "coordinates": [[0.0, 0.0002], [0.0006, 0.0002]]});
        let walk2 =
            json!({"type": "LineString", "coordinates": [[0.0008, 0.0002], [0.0009, 0.0002]]});
        // drawn from the level 2 end (shared with walk2) to the level 1 end (on walk1)
        let stairs =
            json!({"type": "LineString", "coordinates": [[0.0008, 0.0002], [0.0006, 0.0002]]});
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
}
