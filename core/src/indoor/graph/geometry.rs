//! Plane geometry of the graph build and search: points in metres, polygons, visibility, and
//! what the features' tags say about walking.

use super::*;

pub(super) type Xy = [f64; 2];

pub(super) fn sub(a: Xy, b: Xy) -> Xy {
    [a[0] - b[0], a[1] - b[1]]
}

pub(super) fn cross(a: Xy, b: Xy) -> f64 {
    a[0] * b[1] - a[1] * b[0]
}

pub(super) fn dist(a: Xy, b: Xy) -> f64 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2)).sqrt()
}

pub(super) fn seg_dist(p: Xy, a: Xy, b: Xy) -> f64 {
    crate::geo::project_on_segment(p, a, b).1.sqrt()
}

/// Whether segments `a`–`b` and `c`–`d` cross at a point inside both (touching does not count).
pub(super) fn proper_cross(a: Xy, b: Xy, c: Xy, d: Xy) -> bool {
    const EPS: f64 = 1e-6;
    let o1 = cross(sub(b, a), sub(c, a));
    let o2 = cross(sub(b, a), sub(d, a));
    let o3 = cross(sub(d, c), sub(a, c));
    let o4 = cross(sub(d, c), sub(b, c));
    ((o1 > EPS && o2 < -EPS) || (o1 < -EPS && o2 > EPS))
        && ((o3 > EPS && o4 < -EPS) || (o3 < -EPS && o4 > EPS))
}

/// Even-odd point in rings.
pub(super) fn in_rings(rings: &[Vec<Xy>], p: Xy) -> bool {
    rings.iter().fold(false, |inside, r| {
        inside != crate::geo::plane_ring_contains(r, p)
    })
}

pub(super) fn ring_edges(ring: &[Xy]) -> impl Iterator<Item = (Xy, Xy)> + '_ {
    let n = ring.len();
    (0..n).map(move |i| (ring[i], ring[(i + 1) % n]))
}

pub(super) fn outline_dist(rings: &[Vec<Xy>], p: Xy) -> f64 {
    rings
        .iter()
        .flat_map(|r| ring_edges(r))
        .map(|(a, b)| seg_dist(p, a, b))
        .fold(f64::INFINITY, f64::min)
}

pub(super) fn in_or_on(rings: &[Vec<Xy>], p: Xy, tol: f64) -> bool {
    in_rings(rings, p) || outline_dist(rings, p) <= tol
}

/// Whether the segment `a`–`b` stays inside the polygon (its outline may be touched).
pub(super) fn visible(rings: &[Vec<Xy>], a: Xy, b: Xy) -> bool {
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
pub(super) struct Poly {
    pub(super) rings: Vec<Vec<Xy>>,
    pub(super) min: Xy,
    pub(super) max: Xy,
}

impl Poly {
    pub(super) fn new(rings: Vec<Vec<Xy>>) -> Option<Poly> {
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

    pub(super) fn near(&self, p: Xy, tol: f64) -> bool {
        p[0] >= self.min[0] - tol
            && p[0] <= self.max[0] + tol
            && p[1] >= self.min[1] - tol
            && p[1] <= self.max[1] + tol
    }

    pub(super) fn holds(&self, p: Xy, tol: f64) -> bool {
        self.near(p, tol) && in_or_on(&self.rings, p, tol)
    }
}

/// The polygons of a GeoJSON `Polygon` or `MultiPolygon`, rings without their closing point.
pub(super) fn shape_polygons(shape: &Value) -> Vec<Vec<Vec<Pt>>> {
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
pub(super) fn shape_line(shape: &Value) -> Option<Vec<Pt>> {
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

pub(super) fn is_area_kind(kind: &str) -> bool {
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
pub(super) fn is_outline_kind(kind: &str) -> bool {
    matches!(kind, "level" | "building")
}

/// The position of a point as a key (1e-7 degrees, the OSM grid).
pub(super) fn pos_key(p: Pt) -> (i64, i64) {
    ((p.lat * 1e7).round() as i64, (p.lng * 1e7).round() as i64)
}

pub(super) fn kind_edge(kind: &str) -> EdgeKind {
    match kind {
        "stairs" => EdgeKind::Stairs,
        "escalator" => EdgeKind::Escalator,
        "ramp" => EdgeKind::Ramp,
        _ => EdgeKind::Walk,
    }
}

pub(super) fn wheelchair_ok(f: &GraphFeature<'_>, kind: EdgeKind) -> bool {
    !matches!(kind, EdgeKind::Stairs | EdgeKind::Escalator) && f.tag("wheelchair") != Some("no")
}

/// Whether a feature is for customers only (`access=customers`): walked by a customer's
/// ride only.
pub(super) fn customers_access(f: &GraphFeature<'_>) -> bool {
    f.tag("access") == Some("customers")
}

/// Whether a feature is closed to everyone: `access=private|no` (a venue file's restricted
/// units are given `access=private`). `customers`, `permissive`, `yes` are open.
pub(super) fn closed_access(f: &GraphFeature<'_>) -> bool {
    matches!(f.tag("access"), Some("private" | "no"))
}

/// Whether a barrier point stops wheelchairs: tagged `wheelchair=no`, or a turnstile not
/// tagged `wheelchair=yes`.
pub(super) fn barrier_stops_wheelchairs(f: &GraphFeature<'_>) -> bool {
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
pub(super) fn one_way(f: &GraphFeature<'_>) -> Option<bool> {
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

pub(super) fn area_xy(proj: &LocalProjection, a: &WalkArea) -> Vec<Vec<Xy>> {
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
pub(super) fn segments_meet(a: Xy, b: Xy, c: Xy, d: Xy) -> bool {
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

/// Whether a feature is a wall, fence or other line people cannot cross (`wall` features:
/// `barrier=wall|fence|…` ways with a level).
pub(super) fn is_wall(kind: &str) -> bool {
    kind == "wall"
}

/// Whether a point feature is a door, entrance or gate: a place where a wall may be passed.
pub(super) fn is_passage(kind: &str) -> bool {
    matches!(kind, "door" | "entrance" | "barrier")
}

/// The narrowest chord of the polygon through `p` (a point inside it): the two points where
/// the line across the polygon at `p` meets its outline, over directions 5° apart, when it is
/// at most `max_len` long. How a gate mapped as a point inside a corridor bars it.
pub(super) fn narrowest_chord(rings: &[Vec<Xy>], p: Xy, max_len: f64) -> Option<(Xy, Xy)> {
    // distance from p along u to the outline
    let reach = |u: Xy| {
        rings
            .iter()
            .flat_map(|r| ring_edges(r))
            .filter_map(|(c, d)| {
                let e = sub(d, c);
                let den = cross(u, e);
                if den.abs() < 1e-12 {
                    return None;
                }
                let w = sub(c, p);
                let t = cross(w, e) / den;
                let s = cross(w, u) / den;
                (t > 1e-9 && (-1e-9..=1.0 + 1e-9).contains(&s)).then_some(t)
            })
            .fold(f64::INFINITY, f64::min)
    };
    let mut best: Option<(f64, Xy, Xy)> = None;
    for k in 0..36 {
        let a = (k as f64 * 5.0).to_radians();
        let u = [a.cos(), a.sin()];
        let (fwd, back) = (reach(u), reach([-u[0], -u[1]]));
        let len = fwd + back;
        if !len.is_finite() || len > max_len || best.is_some_and(|b| b.0 <= len) {
            continue;
        }
        let e1 = [p[0] - back * u[0], p[1] - back * u[1]];
        let e2 = [p[0] + fwd * u[0], p[1] + fwd * u[1]];
        best = Some((len, e1, e2));
    }
    best.map(|(_, a, b)| (a, b))
}

/// A segment of a wall (or of the line a gate bars a corridor along) on one level, lengthened
/// a little at both ends so that an edge passing round its end along an outline still
/// crosses it.
pub(super) struct Bar {
    pub(super) level: i64,
    pub(super) a: Xy,
    pub(super) b: Xy,
}

impl Bar {
    pub(super) fn new(level: i64, a: Xy, b: Xy, extend: f64) -> Option<Bar> {
        let d = sub(b, a);
        let l = d[0].hypot(d[1]);
        if l < 1e-9 {
            return None;
        }
        let u = [d[0] / l * extend, d[1] / l * extend];
        Some(Bar {
            level,
            a: [a[0] - u[0], a[1] - u[1]],
            b: [b[0] + u[0], b[1] + u[1]],
        })
    }

    /// Whether the segment `p`–`q` of the same level goes through the bar: crosses it, or
    /// ends on it at a point that is no passage (`p_open`, `q_open`: the end is a door or
    /// gate).
    pub(super) fn cuts(&self, p: Xy, q: Xy, p_open: bool, q_open: bool) -> bool {
        let (lo, hi) = (
            [self.a[0].min(self.b[0]), self.a[1].min(self.b[1])],
            [self.a[0].max(self.b[0]), self.a[1].max(self.b[1])],
        );
        if p[0].max(q[0]) < lo[0] - 0.1
            || p[0].min(q[0]) > hi[0] + 0.1
            || p[1].max(q[1]) < lo[1] - 0.1
            || p[1].min(q[1]) > hi[1] + 0.1
        {
            return false;
        }
        if proper_cross(p, q, self.a, self.b) {
            return true;
        }
        let on = |x: Xy| seg_dist(x, self.a, self.b) < 0.05;
        (on(p) && !p_open) || (on(q) && !q_open)
    }
}

/// One polygon of an area feature on one of its levels.
pub(super) struct AreaPoly {
    /// Index of the feature.
    pub(super) f: usize,
    pub(super) level: i64,
    /// The polygon in metres.
    pub(super) poly: Poly,
    /// Its rings in degrees.
    pub(super) deg: Vec<Vec<Pt>>,
}

/// The polygons of every area feature (rooms, corridors, areas, outlines, connector
/// footprints; open or closed to routes) on each of its levels, in feature order, each
/// projected once.
pub(super) fn area_polygons(
    features: &[GraphFeature<'_>],
    proj: &LocalProjection,
) -> Vec<AreaPoly> {
    let mut areas: Vec<AreaPoly> = Vec::new();
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
                areas.push(AreaPoly {
                    f: fi,
                    level,
                    poly: poly.clone(),
                    deg: rings.clone(),
                });
            }
        }
    }
    areas
}

/// Some point inside the polygon near its outer ring (for areas whose representative point
/// is not inside).
pub(super) fn inner_point(poly: &Poly, ring: &[Xy]) -> Option<Xy> {
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

/// The direction (metres east, north) of the open walkable line that has a vertex at `key`
/// there: from the vertex before it to the one after it.
pub(super) fn line_direction(
    features: &[GraphFeature<'_>],
    key: (i64, i64),
    proj: &LocalProjection,
) -> Option<Xy> {
    features
        .iter()
        .filter(|f| {
            matches!(
                f.kind,
                "corridor" | "area" | "footway" | "outdoor" | "stairs" | "escalator" | "ramp"
            ) && !closed_access(f)
        })
        .filter_map(|f| shape_line(f.shape))
        .find_map(|line| {
            let i = line.iter().position(|p| pos_key(*p) == key)?;
            let prev = line.get(i.saturating_sub(1))?;
            let next = line.get((i + 1).min(line.len() - 1))?;
            let d = sub(proj.project(*next), proj.project(*prev));
            (d[0].hypot(d[1]) > 1e-9).then_some(d)
        })
}
