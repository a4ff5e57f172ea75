//! The map layer: what a client needs to draw an offline base map of the installed packs
//! (`GET /map/features`, a Waymark extension the local server's demo page draws).
//!
//! **Data flow.** The request's box (default: the area of the packs with roads) sets the
//! level of detail ([`Detail::for_box`]): which road classes, place kinds and whether points of
//! interest are drawn, and the simplification tolerance. For each pack whose coverage meets the
//! box, the R-trees of `road_edges`, `places` and `pois` give the rows in the box; the edges of
//! one OSM way are joined into lines (edges are stored split at junctions, in way order),
//! simplified (Douglas-Peucker in a local metric projection) and rounded to 6 decimals. Roads
//! come out major classes first, places by kind then population, so that a client drawing in
//! order paints minor roads under major ones and a truncated answer keeps the important
//! features.
//!
//! ```
//! use waymark_core::map::{Detail, simplify};
//! use waymark_core::geo::Pt;
//! // A box 2 km wide draws every road class; one 300 km wide only the major ones.
//! assert!(Detail::for_box(2_000.0).road_classes.contains(&"footway"));
//! assert!(!Detail::for_box(300_000.0).road_classes.contains(&"residential"));
//! // Points that do not change the drawn line by more than the tolerance are dropped.
//! let line = [Pt::new(60.0, 24.0), Pt::new(60.0, 24.0005), Pt::new(60.0, 24.001)];
//! assert_eq!(simplify(&line, 1.0).len(), 2);
//! ```
use std::collections::HashMap;

use crate::api::{
    MapFeature, MapFeatureProperties, MapFeaturesRequest, MapFeaturesResponse, MapGeometry,
    PackInfo,
};
use crate::error::{ApiError, ErrorCode};
use crate::geo::{Pt, decode_polyline6, haversine_m};
use crate::operation::Call;
use crate::packs::registry::{LoadedPack, PackSet};
use crate::packs::schema::layers;

/// Road classes from the most to the least important (drawn in the reverse order).
const ROAD_CLASSES: &[&str] = &[
    "motorway",
    "trunk",
    "primary",
    "secondary",
    "motorway_link",
    "trunk_link",
    "primary_link",
    "secondary_link",
    "tertiary",
    "tertiary_link",
    "ferry",
    "unclassified",
    "residential",
    "living_street",
    "pedestrian",
    "road",
    "service",
    "track",
    "cycleway",
    "footway",
    "path",
    "steps",
    "bridleway",
];

/// Place kinds from the largest to the smallest.
const PLACE_KINDS: &[&str] = &[
    "city",
    "town",
    "borough",
    "village",
    "suburb",
    "quarter",
    "hamlet",
    "neighbourhood",
];

/// Most road lines in one answer.
const MAX_ROADS: usize = 30_000;
/// Most places in one answer.
const MAX_PLACES: usize = 400;
/// Most points of interest in one answer.
const MAX_POIS: usize = 2_000;

/// What is drawn for a box of a given size.
#[derive(Debug, Clone, PartialEq)]
pub struct Detail {
    /// Road classes drawn (a prefix of the classes, most important first).
    pub road_classes: &'static [&'static str],
    /// Place kinds drawn.
    pub place_kinds: &'static [&'static str],
    /// Whether named points of interest are drawn.
    pub pois: bool,
    /// Douglas-Peucker tolerance in metres (about a pixel of a 1000-pixel-wide view).
    pub tolerance_m: f64,
}

impl Detail {
    /// The detail for a box whose larger side is `span_m` metres.
    pub fn for_box(span_m: f64) -> Detail {
        let roads = if span_m <= 8_000.0 {
            ROAD_CLASSES.len()
        } else if span_m <= 25_000.0 {
            // Down to service roads, no paths.
            17
        } else if span_m <= 80_000.0 {
            // Down to residential streets.
            13
        } else if span_m <= 400_000.0 {
            // Down to tertiary roads and ferries.
            11
        } else {
            // Motorways, trunk and primary roads.
            3
        };
        let places = if span_m <= 30_000.0 {
            PLACE_KINDS.len()
        } else if span_m <= 150_000.0 {
            4
        } else {
            2
        };
        Detail {
            road_classes: &ROAD_CLASSES[..roads],
            place_kinds: &PLACE_KINDS[..places],
            pois: span_m <= 5_000.0,
            tolerance_m: (span_m / 1500.0).max(0.5),
        }
    }
}

/// `GET /map/features`.
pub fn features(
    set: &PackSet,
    call: &Call<'_>,
    req: &MapFeaturesRequest,
    packs: Vec<PackInfo>,
) -> Result<MapFeaturesResponse, ApiError> {
    let drawable: Vec<&LoadedPack> = set
        .all()
        .into_iter()
        .map(|p| p.as_ref())
        .filter(|p| {
            p.has_sqlite()
                && (p.has_layer(layers::ROADS)
                    || p.has_layer(layers::PLACES)
                    || p.has_layer(layers::POIS))
        })
        .collect();
    if drawable.is_empty() {
        return Err(ApiError::new(
            ErrorCode::DataUnavailable,
            "no installed pack has roads, places or points of interest to draw: install a \
             region pack (POST /packs)",
        ));
    }
    let bbox = match &req.bbox {
        Some(v) => [
            v.southwest.lng,
            v.southwest.lat,
            v.northeast.lng,
            v.northeast.lat,
        ],
        None => default_box(&drawable),
    };
    call.charge()?;
    let [west, south, east, north] = bbox;
    let mid_lat = (south + north) / 2.0;
    let span_m = haversine_m(Pt::new(south, west), Pt::new(north, west))
        .max(haversine_m(Pt::new(mid_lat, west), Pt::new(mid_lat, east)));
    let detail = Detail::for_box(span_m);
    let mut out = Collected::default();
    for pack in drawable
        .iter()
        .filter(|p| meets(p.manifest.coverage.bbox, bbox))
    {
        let conn = pack.sqlite().map_err(|e| ApiError::internal(&e))?;
        if pack.has_layer(layers::ROADS) {
            roads(&conn, bbox, &detail, &mut out).map_err(|e| ApiError::internal(&e))?;
        }
        if pack.has_layer(layers::PLACES) {
            places(&conn, bbox, &detail, &mut out).map_err(|e| ApiError::internal(&e))?;
        }
        if detail.pois && pack.has_layer(layers::POIS) {
            pois(&conn, bbox, &mut out).map_err(|e| ApiError::internal(&e))?;
        }
    }
    Ok(out.finish(bbox, packs))
}

/// The union of the coverage boxes of the packs with roads (else of all `packs`).
fn default_box(packs: &[&LoadedPack]) -> [f64; 4] {
    let with_roads: Vec<&&LoadedPack> = packs
        .iter()
        .filter(|p| p.has_layer(layers::ROADS))
        .collect();
    let chosen: Vec<[f64; 4]> = if with_roads.is_empty() {
        packs.iter().map(|p| p.manifest.coverage.bbox).collect()
    } else {
        with_roads
            .iter()
            .map(|p| p.manifest.coverage.bbox)
            .collect()
    };
    chosen
        .into_iter()
        .reduce(|a, b| {
            [
                a[0].min(b[0]),
                a[1].min(b[1]),
                a[2].max(b[2]),
                a[3].max(b[3]),
            ]
        })
        .unwrap_or([-180.0, -85.0, 180.0, 85.0])
}

/// Whether two `[west, south, east, north]` boxes meet.
fn meets(a: [f64; 4], b: [f64; 4]) -> bool {
    a[0] <= b[2] && b[0] <= a[2] && a[1] <= b[3] && b[1] <= a[3]
}

/// Features gathered over the packs, sorted and capped by [`Collected::finish`].
#[derive(Debug, Default)]
struct Collected {
    /// `(class rank, feature)`.
    roads: Vec<(usize, MapFeature)>,
    /// `(kind rank, population, feature)`.
    places: Vec<(usize, i64, MapFeature)>,
    pois: Vec<MapFeature>,
}

impl Collected {
    fn finish(mut self, bbox: [f64; 4], packs: Vec<PackInfo>) -> MapFeaturesResponse {
        // Major roads first; within a class, longer lines first.
        self.roads.sort_by(|a, b| {
            a.0.cmp(&b.0)
                .then_with(|| line_points(&b.1).cmp(&line_points(&a.1)))
        });
        self.places
            .sort_by(|a, b| a.0.cmp(&b.0).then_with(|| b.1.cmp(&a.1)));
        let truncated = self.roads.len() > MAX_ROADS
            || self.places.len() > MAX_PLACES
            || self.pois.len() > MAX_POIS;
        let mut features: Vec<MapFeature> = Vec::new();
        features.extend(self.roads.into_iter().take(MAX_ROADS).map(|(_, f)| f));
        features.extend(self.pois.into_iter().take(MAX_POIS));
        features.extend(self.places.into_iter().take(MAX_PLACES).map(|(_, _, f)| f));
        MapFeaturesResponse {
            kind: "FeatureCollection".into(),
            bbox,
            features,
            truncated,
            packs,
        }
    }
}

fn line_points(f: &MapFeature) -> usize {
    match &f.geometry {
        MapGeometry::LineString { coordinates } => coordinates.len(),
        MapGeometry::Point { .. } => 1,
    }
}

fn position(p: Pt) -> [f64; 2] {
    [round6(p.lng), round6(p.lat)]
}

fn round6(v: f64) -> f64 {
    (v * 1e6).round() / 1e6
}

/// The rows of an R-tree query, `?1..?4` = south, north, west, east.
fn box_params(bbox: [f64; 4]) -> [f64; 4] {
    [bbox[1], bbox[3], bbox[0], bbox[2]]
}

fn roads(
    conn: &rusqlite::Connection,
    bbox: [f64; 4],
    detail: &Detail,
    out: &mut Collected,
) -> rusqlite::Result<()> {
    let rank: HashMap<&str, usize> = detail
        .road_classes
        .iter()
        .enumerate()
        .map(|(i, c)| (*c, i))
        .collect();
    let mut st = conn.prepare_cached(
        "SELECT e.way_id, e.highway, e.name, e.geometry FROM road_ways_rtree r \
         JOIN road_edges e ON e.id BETWEEN r.id AND r.last_edge \
         WHERE r.max_lat >= ?1 AND r.min_lat <= ?2 AND r.max_lng >= ?3 AND r.min_lng <= ?4 \
         ORDER BY e.way_id, e.id",
    )?;
    let view = crate::geo::BBox {
        south: bbox[1],
        west: bbox[0],
        north: bbox[3],
        east: bbox[2],
    };
    let rows = st.query_map(box_params(bbox), |r| {
        Ok((
            r.get::<_, i64>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, Option<String>>(2)?,
            r.get::<_, String>(3)?,
        ))
    })?;
    // Edges of one way arrive together, in way order: extend the current line while the next
    // edge starts where it ends.
    let mut current: Option<WayLine> = None;
    for row in rows {
        let (way, highway, name, geometry) = row?;
        let Some(&rank) = rank.get(highway.as_str()) else {
            continue;
        };
        let Ok(points) = decode_polyline6(&geometry) else {
            continue;
        };
        // The R-tree boxes a whole run of the way's edges: keep the edges whose own box meets
        // the map's.
        if points.len() < 2
            || !crate::geo::BBox::of(points.iter().copied()).is_some_and(|b| b.intersects(&view))
        {
            continue;
        }
        match &mut current {
            Some(line) if line.way == way && line.points.last() == points.first() => {
                line.points.extend_from_slice(&points[1..]);
            }
            _ => {
                let next = WayLine {
                    way,
                    rank,
                    class: highway,
                    name,
                    points,
                };
                if let Some(done) = current.replace(next) {
                    done.push_to(detail.tolerance_m, out);
                }
            }
        }
    }
    if let Some(done) = current {
        done.push_to(detail.tolerance_m, out);
    }
    Ok(())
}

/// A road line being joined from the edges of one way.
#[derive(Debug)]
struct WayLine {
    way: i64,
    /// Rank of the class in the detail's road classes.
    rank: usize,
    class: String,
    name: Option<String>,
    points: Vec<Pt>,
}

impl WayLine {
    /// Simplifies the line and adds it to `out` (unless it shrinks to a point).
    fn push_to(self, tolerance_m: f64, out: &mut Collected) {
        let coordinates: Vec<[f64; 2]> = simplify(&self.points, tolerance_m)
            .into_iter()
            .map(position)
            .collect();
        if coordinates.len() >= 2 {
            out.roads.push((
                self.rank,
                MapFeature {
                    kind: "Feature".into(),
                    geometry: MapGeometry::LineString { coordinates },
                    properties: MapFeatureProperties {
                        layer: "road".into(),
                        class: self.class,
                        name: self.name,
                        population: None,
                    },
                },
            ));
        }
    }
}

fn places(
    conn: &rusqlite::Connection,
    bbox: [f64; 4],
    detail: &Detail,
    out: &mut Collected,
) -> rusqlite::Result<()> {
    let mut st = conn.prepare_cached(
        "SELECT p.kind, p.name, p.lat, p.lng, p.population FROM places p \
         JOIN places_rtree r ON p.id = r.id \
         WHERE r.max_lat >= ?1 AND r.min_lat <= ?2 AND r.max_lng >= ?3 AND r.min_lng <= ?4",
    )?;
    let rows = st.query_map(box_params(bbox), |r| {
        Ok((
            r.get::<_, String>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, f64>(2)?,
            r.get::<_, f64>(3)?,
            r.get::<_, Option<i64>>(4)?,
        ))
    })?;
    for row in rows {
        let (kind, name, lat, lng, population) = row?;
        let Some(rank) = detail.place_kinds.iter().position(|k| *k == kind) else {
            continue;
        };
        if name.is_empty() || !inside(bbox, lat, lng) {
            continue;
        }
        // The same settlement may come from two packs (a region pack and the base pack).
        let duplicate = out.places.iter().any(|(_, _, f)| {
            f.properties.name.as_deref() == Some(name.as_str())
                && match f.geometry {
                    MapGeometry::Point { coordinates } => {
                        haversine_m(Pt::new(coordinates[1], coordinates[0]), Pt::new(lat, lng))
                            < 2_000.0
                    }
                    MapGeometry::LineString { .. } => false,
                }
        });
        if duplicate {
            continue;
        }
        out.places.push((
            rank,
            population.unwrap_or(0),
            MapFeature {
                kind: "Feature".into(),
                geometry: MapGeometry::Point {
                    coordinates: position(Pt::new(lat, lng)),
                },
                properties: MapFeatureProperties {
                    layer: "place".into(),
                    class: kind,
                    name: Some(name),
                    population,
                },
            },
        ));
    }
    Ok(())
}

fn pois(conn: &rusqlite::Connection, bbox: [f64; 4], out: &mut Collected) -> rusqlite::Result<()> {
    // The point grid (pack format 5) gives the points of the cells around the box; those
    // surely outside it (by their sub-cell) are not read.
    let b = box_params(bbox);
    let mut ids: Vec<i64> = crate::packs::grid::points_in(conn, "pois_grid", b)?
        .into_iter()
        .filter(|p| p.maybe_in(b))
        .map(|p| p.id)
        .collect();
    ids.sort_unstable();
    // Ids close together are read in one range scan (ids less than `GAP` apart: a whole-pack
    // box reads the table once instead of seeking every row), the rest one by one.
    const GAP: i64 = 16;
    let mut st = conn.prepare_cached(
        "SELECT p.id, p.types, p.name, p.lat, p.lng FROM pois p \
         WHERE p.id BETWEEN ?1 AND ?2 AND p.name IS NOT NULL AND p.name != ''",
    )?;
    let mut found: Vec<(String, String, f64, f64)> = Vec::new();
    for run in ids.chunk_by(|a, b| b - a < GAP) {
        let (Some(&first), Some(&last)) = (run.first(), run.last()) else {
            continue;
        };
        let mut rows = st.query([first, last])?;
        while let Some(r) = rows.next()? {
            if run.binary_search(&r.get::<_, i64>(0)?).is_ok() {
                found.push((r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?));
            }
        }
    }
    for (types, name, lat, lng) in found {
        if !inside(bbox, lat, lng) {
            continue;
        }
        let class = types.split('|').next().unwrap_or_default().to_string();
        out.pois.push(MapFeature {
            kind: "Feature".into(),
            geometry: MapGeometry::Point {
                coordinates: position(Pt::new(lat, lng)),
            },
            properties: MapFeatureProperties {
                layer: "poi".into(),
                class,
                name: Some(name),
                population: None,
            },
        });
    }
    Ok(())
}

fn inside(bbox: [f64; 4], lat: f64, lng: f64) -> bool {
    lng >= bbox[0] && lat >= bbox[1] && lng <= bbox[2] && lat <= bbox[3]
}

/// Douglas-Peucker simplification of `line` with a tolerance in metres (in a local
/// equirectangular projection around the line's first point). Keeps both ends.
pub fn simplify(line: &[Pt], tolerance_m: f64) -> Vec<Pt> {
    if line.len() <= 2 {
        return line.to_vec();
    }
    let lat0 = line[0].lat.to_radians().cos();
    let xy: Vec<[f64; 2]> = line
        .iter()
        .map(|p| [p.lng * 111_320.0 * lat0, p.lat * 110_574.0])
        .collect();
    let mut keep = vec![false; line.len()];
    keep[0] = true;
    keep[line.len() - 1] = true;
    let mut stack = vec![(0usize, line.len() - 1)];
    while let Some((a, b)) = stack.pop() {
        if b <= a + 1 {
            continue;
        }
        let (mut far, mut far_d) = (a, 0.0);
        for (i, p) in xy.iter().enumerate().take(b).skip(a + 1) {
            let d = segment_distance(*p, xy[a], xy[b]);
            if d > far_d {
                (far, far_d) = (i, d);
            }
        }
        if far_d > tolerance_m {
            keep[far] = true;
            stack.push((a, far));
            stack.push((far, b));
        }
    }
    line.iter()
        .zip(keep)
        .filter_map(|(p, k)| k.then_some(*p))
        .collect()
}

fn segment_distance(p: [f64; 2], a: [f64; 2], b: [f64; 2]) -> f64 {
    let (dx, dy) = (b[0] - a[0], b[1] - a[1]);
    let len2 = dx * dx + dy * dy;
    let t = if len2 > 0.0 {
        (((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / len2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    let (x, y) = (a[0] + t * dx - p[0], a[1] + t * dy - p[1]);
    (x * x + y * y).sqrt()
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    /// On random lines: both ends are kept and every point of the input lies within the
    /// tolerance of the simplified line.
    #[test]
    fn simplified_lines_stay_within_tolerance_of_the_original() {
        let mut seed = 7u64;
        let mut next = || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
            ((seed >> 33) as f64) / f64::from(u32::MAX)
        };
        for _ in 0..200 {
            let n = 2 + (next() * 60.0) as usize;
            let line: Vec<Pt> = (0..n)
                .map(|i| Pt::new(60.0 + next() * 0.001, 24.0 + i as f64 * 0.0002))
                .collect();
            let tolerance = 1.0 + next() * 20.0;
            let out = simplify(&line, tolerance);
            assert_eq!(out.first(), line.first());
            assert_eq!(out.last(), line.last());
            assert!(out.len() <= line.len());
            let lat0 = line[0].lat.to_radians().cos();
            let xy = |p: &Pt| [p.lng * 111_320.0 * lat0, p.lat * 110_574.0];
            for p in &line {
                let d = out
                    .windows(2)
                    .map(|w| segment_distance(xy(p), xy(&w[0]), xy(&w[1])))
                    .fold(f64::INFINITY, f64::min);
                assert!(d <= tolerance + 1e-6, "{d} > {tolerance}");
            }
        }
    }

    #[test]
    fn detail_shrinks_with_the_box() {
        let small = Detail::for_box(1_500.0);
        let large = Detail::for_box(1_000_000.0);
        assert_eq!(small.road_classes.len(), ROAD_CLASSES.len());
        assert!(small.pois && !large.pois);
        assert_eq!(large.road_classes, &["motorway", "trunk", "primary"]);
        assert!(large.tolerance_m > small.tolerance_m);
    }

    #[test]
    fn boxes_meet() {
        assert!(meets([0.0, 0.0, 2.0, 2.0], [1.0, 1.0, 3.0, 3.0]));
        assert!(!meets([0.0, 0.0, 1.0, 1.0], [2.0, 2.0, 3.0, 3.0]));
    }
}
