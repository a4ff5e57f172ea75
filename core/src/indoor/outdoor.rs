//! Outdoor ends of indoor directions: an origin or destination `lat,lng,0` outside the venue
//! (off every walkable area of its level 0) walks the pack's walking network
//! ([`crate::routing::Router`], walking profile, shortest distance) to the venue's entrances;
//! the walk to each entrance becomes a link of the point's [`Anchor`], so the indoor search
//! picks the entrance that makes the whole trip quickest, and the chosen walk is put back into
//! the path ([`splice_origin`], [`splice_destination`]).
//!
//! **Entrances** are the graph nodes of level 0 at an `entrance=*` feature (not
//! `entrance=emergency`) or, in a venue file, at an opening on the outline of a single walkable
//! area (an outside wall; not an `emergencyexit`, `service`, `automobile` or `bicycle` one).
//! A closed entrance (`access=private|no`) has no node and is not used.

use std::collections::HashMap;

use super::*;
use crate::routing::profile::Highway;
use crate::routing::router::SearchAlgorithm;
use crate::routing::{Metric, Profile as WalkProfile};

/// How far outside a venue (from its bbox) an origin or destination may be, m.
pub const OUTDOOR_MAX_M: f64 = 1000.0;
/// How far from a walkable way of the outdoor network an outdoor point may be, m.
pub const STREET_SNAP_M: f64 = 100.0;
/// How far from a walkable way an entrance is joined to the outdoor network, m.
const ENTRANCE_SNAP_M: f64 = 30.0;
/// The entrances nearest the point (straight line) whose walks are searched.
const ENTRANCES_TRIED: usize = 8;

/// The walk between an outdoor point and one entrance.
#[derive(Debug, Clone)]
pub struct Walk {
    /// The points, from the outdoor point to the entrance (origin) or from the entrance to
    /// the outdoor point (destination).
    pub points: Vec<Pt>,
    /// Free of steps.
    pub step_free: bool,
    /// The entrance feature.
    pub entrance: i64,
}

/// An outdoor origin or destination: its walk to each entrance node it reaches.
#[derive(Debug, Clone, Default)]
pub struct OutdoorEnd {
    /// By entrance node.
    pub walks: HashMap<u32, Walk>,
}

/// Length of a line, m.
pub fn line_m(pts: &[Pt]) -> f64 {
    pts.windows(2).map(|w| haversine_m(w[0], w[1])).sum()
}

/// Distance from `p` to the box `[west, south, east, north]`, m (0 inside).
pub fn bbox_distance_m(p: Pt, bbox: &[f64]) -> f64 {
    let [w, s, e, n] = [bbox[0], bbox[1], bbox[2], bbox[3]];
    let q = Pt::new(p.lat.clamp(s, n), p.lng.clamp(w, e));
    haversine_m(p, q)
}

const NOT_IN: &[&str] = &["emergencyexit", "service", "automobile", "bicycle"];

/// The venue's entrances: `(graph node on level 0, feature)`.
pub fn entrances<'v>(v: &'v VenueData, g: &Graph) -> Vec<(u32, &'v FeatureRow)> {
    let key = |p: Pt| ((p.lat * 1e6).round() as i64, (p.lng * 1e6).round() as i64);
    let mut at: HashMap<(i64, i64), u32> = HashMap::new();
    for (i, n) in g.nodes.iter().enumerate() {
        if n.level == 0 {
            at.entry(key(n.pt())).or_insert(i as u32);
        }
    }
    let file = v.venue.venue_id.starts_with("imdf-");
    v.features
        .iter()
        .filter(|f| match f.kind.as_str() {
            "entrance" => f.tags.get("entrance").and_then(Value::as_str) != Some("emergency"),
            "door" if file => {
                let category = f.tags.get("door").and_then(Value::as_str).unwrap_or("");
                !NOT_IN.contains(&category) && g.areas_at(f.pt, 0).count() == 1
            }
            _ => false,
        })
        .filter_map(|f| at.get(&key(f.pt)).map(|n| (*n, f)))
        .collect()
}

/// Why an outdoor point cannot be used: 400 naming the parameter.
fn refused(name: &str, p: Pt, venue: &str, why: &str) -> ApiError {
    bad_request(format!(
        "{name}: point {},{} is off every walkable area of level 0 of venue `{venue}` and {why}",
        p.lat, p.lng
    ))
}

/// Resolves `p` (level 0, off every walkable area of the venue) as an outdoor end:
/// `destination` false for an origin (walks towards the venue), true for a destination.
/// 400 when it is more than [`OUTDOOR_MAX_M`] from the venue, when no installed pack has a
/// walkable way within [`STREET_SNAP_M`] of it, or when the venue has no entrance joined to
/// the outdoor network. The anchor has no link when no walk reaches an entrance (`no_route`).
#[allow(clippy::too_many_arguments)]
pub fn resolve(
    name: &str,
    p: Pt,
    v: &VenueData,
    g: &Graph,
    roads: &RoutingCache,
    set: &Arc<PackSet>,
    profile: Profile,
    destination: bool,
) -> Result<(Anchor, OutdoorEnd), ApiError> {
    let venue = v.venue.venue_id.as_str();
    let away = bbox_distance_m(p, &v.venue.bbox);
    if away > OUTDOOR_MAX_M {
        return Err(refused(
            name,
            p,
            venue,
            &format!(
                "{} m from it: a point outside a venue may be at most {OUTDOOR_MAX_M} m from it \
                 (longer walks: GET /distance/route/json)",
                away.round()
            ),
        ));
    }
    let no_street = || {
        refused(
            name,
            p,
            venue,
            &format!(
                "no installed pack has a walkable way within {STREET_SNAP_M} m of it to walk \
                 to the venue's entrances"
            ),
        )
    };
    let centre = Pt::new(
        (v.venue.bbox[1] + v.venue.bbox[3]) / 2.0,
        (v.venue.bbox[0] + v.venue.bbox[2]) / 2.0,
    );
    let packs = roads.routers(set.clone()).map_err(|_| no_street())?;
    let Some(pack) = packs.for_points(&[p, centre])? else {
        return Err(no_street());
    };
    let router = &pack.router;
    let turn = router.graph(WalkProfile::Walking);
    let edge_ok = |e: u32| {
        profile == Profile::Default
            || router
                .net
                .edges
                .get(e as usize)
                .is_some_and(|x| x.highway() != Highway::Steps)
    };
    let start = router
        .snap(WalkProfile::Walking, p, &edge_ok)
        .filter(|s| s.distance_m <= STREET_SNAP_M)
        .ok_or_else(no_street)?;
    let mut doors = entrances(v, g);
    if doors.is_empty() {
        return Err(refused(
            name,
            p,
            venue,
            "the venue has no mapped entrance on level 0 to walk in by",
        ));
    }
    doors.sort_by(|a, b| {
        haversine_m(p, a.1.pt)
            .total_cmp(&haversine_m(p, b.1.pt))
            .then(a.0.cmp(&b.0))
    });
    let usable = |a: u32| turn.arc_edge.get(a as usize).is_some_and(|e| edge_ok(*e));
    let filter: Option<&dyn Fn(u32) -> bool> = match profile {
        Profile::Default => None,
        Profile::Wheelchair => Some(&usable),
    };
    let mut end = OutdoorEnd::default();
    for (node, f) in doors.into_iter().take(ENTRANCES_TRIED) {
        let Some(door) = router
            .snap(WalkProfile::Walking, f.pt, &edge_ok)
            .filter(|s| s.distance_m <= ENTRANCE_SNAP_M)
        else {
            continue;
        };
        let (a, b) = if destination {
            (&door, &start)
        } else {
            (&start, &door)
        };
        let Some(path) = router.path(
            WalkProfile::Walking,
            Metric::Distance,
            a,
            b,
            filter,
            SearchAlgorithm::Dijkstra,
        ) else {
            continue;
        };
        let step_free = path.arcs.iter().all(|arc| usable(*arc));
        let (first, last) = if destination {
            ([f.pt, door.point], [start.point, p])
        } else {
            ([p, start.point], [door.point, f.pt])
        };
        let mut pts = first.to_vec();
        pts.extend(crate::distance::route::leg_points(router, &turn, &path));
        pts.extend(last);
        pts.dedup_by(|a, b| haversine_m(*a, *b) < 0.05);
        end.walks.insert(
            node,
            Walk {
                points: pts,
                step_free,
                entrance: f.id,
            },
        );
    }
    let mut links: Vec<(u32, f64)> = end
        .walks
        .iter()
        .map(|(n, w)| (*n, line_m(&w.points)))
        .collect();
    links.sort_by_key(|l| l.0);
    let anchor = Anchor {
        pt: p,
        level: 0,
        links,
        area: None,
    };
    Ok((anchor, end))
}

/// Puts the walk of an outdoor origin in place of the first segment of `path` (from the
/// point straight to the entrance node); returns the index of the entrance point.
pub fn splice_origin(path: &mut Path, end: &OutdoorEnd) -> Option<usize> {
    let node = path.nodes.get(1).copied().flatten()?;
    let walk = end.walks.get(&node)?;
    let level = path.points.get(1)?.1;
    let k = walk.points.len().checked_sub(1)?;
    let seg = Seg {
        kind: EdgeKind::Walk,
        feature: None,
        wheelchair: walk.step_free,
    };
    let mut points: Vec<(Pt, i64)> = walk.points.iter().map(|p| (*p, level)).collect();
    points.extend(path.points.iter().skip(2).copied());
    let mut nodes = vec![None; k];
    nodes.extend(path.nodes.iter().skip(1).copied());
    let mut segments = vec![seg; k];
    segments.extend(path.segments.iter().skip(1).copied());
    path.points = points;
    path.nodes = nodes;
    path.segments = segments;
    Some(k)
}

/// Puts the walk of an outdoor destination in place of the last segment of `path` (from the
/// entrance node straight to the point); returns the index of the entrance point.
pub fn splice_destination(path: &mut Path, end: &OutdoorEnd) -> Option<usize> {
    let n = path.points.len();
    let at = n.checked_sub(2)?;
    let node = path.nodes.get(at).copied().flatten()?;
    let walk = end.walks.get(&node)?;
    let level = path.points.get(at)?.1;
    let k = walk.points.len().checked_sub(1)?;
    let seg = Seg {
        kind: EdgeKind::Walk,
        feature: None,
        wheelchair: walk.step_free,
    };
    path.points.truncate(at);
    path.points.extend(walk.points.iter().map(|p| (*p, level)));
    path.nodes.truncate(at + 1);
    path.nodes.extend(std::iter::repeat_n(None, k));
    path.segments.truncate(at);
    path.segments.extend(std::iter::repeat_n(seg, k));
    Some(at)
}
