//! Small geometry helpers of the OSM builder: haversine lengths, polyline (precision 6)
//! encoding, ring assembly from member ways, ring areas/centroids, point-in-polygon and a
//! point-on-surface, bboxes and GeoJSON output.
//!
//! Coordinates are `(lat, lng)` tuples in degrees everywhere in this module; GeoJSON output
//! writes `[lng, lat]` as the format requires.

use std::collections::HashMap;

/// Mean Earth radius in metres (the one of the haversine formula used across Waymark).
pub const EARTH_RADIUS_M: f64 = 6_371_008.8;

/// Great-circle distance in metres between two `(lat, lng)` points.
pub fn haversine_m(a: (f64, f64), b: (f64, f64)) -> f64 {
    let (lat1, lng1) = (a.0.to_radians(), a.1.to_radians());
    let (lat2, lng2) = (b.0.to_radians(), b.1.to_radians());
    let dlat = lat2 - lat1;
    let dlng = lng2 - lng1;
    let h = (dlat / 2.0).sin().powi(2) + lat1.cos() * lat2.cos() * (dlng / 2.0).sin().powi(2);
    2.0 * EARTH_RADIUS_M * h.sqrt().min(1.0).asin()
}

/// Length in metres of a polyline of `(lat, lng)` points.
pub fn line_length_m(points: &[(f64, f64)]) -> f64 {
    points.windows(2).map(|w| haversine_m(w[0], w[1])).sum()
}

/// Google encoded polyline with precision 6, latitude first, as the schema's `geometry`
/// columns expect (the `polyline` crate; coordinates out of WGS84 range are an error).
pub fn encode_polyline6(points: &[(f64, f64)]) -> Result<String, String> {
    polyline::encode_coordinates(
        points
            .iter()
            .map(|&(lat, lng)| geo_types::Coord { x: lng, y: lat }),
        6,
    )
    .map_err(|e| e.to_string())
}

/// Decodes a precision-6 polyline into `(lat, lng)` points; `None` when the text is not a
/// valid encoding.
pub fn decode_polyline6(text: &str) -> Option<Vec<(f64, f64)>> {
    polyline::decode_polyline(text, 6)
        .ok()
        .map(|line| line.0.iter().map(|c| (c.y, c.x)).collect())
}

/// `[min_lat, max_lat, min_lng, max_lng]` of the points (the R-tree column order), `None` when
/// empty.
pub fn bbox(points: impl IntoIterator<Item = (f64, f64)>) -> Option<[f64; 4]> {
    let mut b: Option<[f64; 4]> = None;
    for (lat, lng) in points {
        b = Some(match b {
            None => [lat, lat, lng, lng],
            Some(x) => [x[0].min(lat), x[1].max(lat), x[2].min(lng), x[3].max(lng)],
        });
    }
    b
}

/// Union of two R-tree-order bboxes.
pub fn bbox_union(a: [f64; 4], b: [f64; 4]) -> [f64; 4] {
    [
        a[0].min(b[0]),
        a[1].max(b[1]),
        a[2].min(b[2]),
        a[3].max(b[3]),
    ]
}

/// Whether the R-tree-order bbox contains the point.
pub fn bbox_contains(b: &[f64; 4], p: (f64, f64)) -> bool {
    p.0 >= b[0] && p.0 <= b[1] && p.1 >= b[2] && p.1 <= b[3]
}

/// Result of joining member ways into rings.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Rings {
    /// Closed rings as node id lists, first id repeated last.
    pub closed: Vec<Vec<i64>>,
    /// Number of chains that could not be closed.
    pub open: usize,
}

/// Joins ways (node id lists) into closed rings by their shared end nodes, reversing ways as
/// needed. Ways that are already closed are rings on their own. Chains that do not close are
/// counted in [`Rings::open`].
pub fn assemble_rings(ways: &[Vec<i64>]) -> Rings {
    let mut rings = Rings::default();
    let mut pending: Vec<Vec<i64>> = Vec::new();
    for w in ways {
        if w.len() < 2 {
            continue;
        }
        if w.first() == w.last() {
            if w.len() >= 4 {
                rings.closed.push(w.clone());
            } else {
                rings.open += 1;
            }
        } else {
            pending.push(w.clone());
        }
    }
    let mut used = vec![false; pending.len()];
    // index: end node -> ways having it as first or last node
    let mut by_end: HashMap<i64, Vec<usize>> = HashMap::new();
    for (i, w) in pending.iter().enumerate() {
        if let (Some(&a), Some(&b)) = (w.first(), w.last()) {
            by_end.entry(a).or_default().push(i);
            by_end.entry(b).or_default().push(i);
        }
    }
    for start in 0..pending.len() {
        if used[start] {
            continue;
        }
        used[start] = true;
        let mut chain = pending[start].clone();
        while let (Some(&first), Some(&last)) = (chain.first(), chain.last()) {
            if first == last {
                break;
            }
            let next = by_end
                .get(&last)
                .and_then(|c| c.iter().copied().find(|&j| !used[j]));
            let Some(j) = next else {
                break;
            };
            used[j] = true;
            let w = &pending[j];
            if w.first() == Some(&last) {
                chain.extend_from_slice(&w[1..]);
            } else {
                chain.extend(w.iter().rev().skip(1));
            }
        }
        if chain.len() >= 4 && chain.first() == chain.last() {
            rings.closed.push(chain);
        } else {
            rings.open += 1;
        }
    }
    rings
}

/// Signed area of a ring in square degrees (shoelace on lng/lat; positive counter-clockwise).
pub fn ring_signed_area(ring: &[(f64, f64)]) -> f64 {
    let mut s = 0.0;
    for w in ring.windows(2) {
        s += w[0].1 * w[1].0 - w[1].1 * w[0].0;
    }
    s / 2.0
}

/// Area centroid of a ring (falls back to the vertex average for degenerate rings).
pub fn ring_centroid(ring: &[(f64, f64)]) -> Option<(f64, f64)> {
    let first = *ring.first()?;
    let mut a = 0.0;
    let (mut cx, mut cy) = (0.0, 0.0);
    for w in ring.windows(2) {
        // relative to the first vertex for precision
        let (x0, y0) = (w[0].1 - first.1, w[0].0 - first.0);
        let (x1, y1) = (w[1].1 - first.1, w[1].0 - first.0);
        let cross = x0 * y1 - x1 * y0;
        a += cross;
        cx += (x0 + x1) * cross;
        cy += (y0 + y1) * cross;
    }
    if a.abs() < 1e-18 {
        return vertex_average(ring);
    }
    Some((first.0 + cy / (3.0 * a), first.1 + cx / (3.0 * a)))
}

/// Average of the vertices.
pub fn vertex_average(points: &[(f64, f64)]) -> Option<(f64, f64)> {
    if points.is_empty() {
        return None;
    }
    let n = points.len() as f64;
    let (sa, sb) = points
        .iter()
        .fold((0.0, 0.0), |acc, p| (acc.0 + p.0, acc.1 + p.1));
    Some((sa / n, sb / n))
}

/// Even-odd point-in-ring test.
pub fn point_in_ring(p: (f64, f64), ring: &[(f64, f64)]) -> bool {
    let (py, px) = p;
    let mut inside = false;
    for w in ring.windows(2) {
        let (yi, xi) = w[0];
        let (yj, xj) = w[1];
        if (yi > py) != (yj > py) {
            let x = xi + (py - yi) / (yj - yi) * (xj - xi);
            if px < x {
                inside = !inside;
            }
        }
    }
    inside
}

/// A polygon: one outer ring and its holes, `(lat, lng)` rings closed (first point repeated).
#[derive(Debug, Clone, PartialEq)]
pub struct Polygon {
    /// Outer ring.
    pub outer: Vec<(f64, f64)>,
    /// Inner rings (holes).
    pub holes: Vec<Vec<(f64, f64)>>,
}

impl Polygon {
    /// Whether the point is inside the outer ring and outside every hole.
    pub fn contains(&self, p: (f64, f64)) -> bool {
        point_in_ring(p, &self.outer) && !self.holes.iter().any(|h| point_in_ring(p, h))
    }

    /// Absolute area of the outer ring minus the holes, in square degrees.
    pub fn area(&self) -> f64 {
        ring_signed_area(&self.outer).abs()
            - self
                .holes
                .iter()
                .map(|h| ring_signed_area(h).abs())
                .sum::<f64>()
    }
}

/// An area geometry: one or more polygons.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MultiPolygon(pub Vec<Polygon>);

impl MultiPolygon {
    /// Builds polygons from closed coordinate rings: the largest rings not inside another kept
    /// ring are outers; `inner` rings (and outer-role rings nested in an outer) become holes
    /// of the smallest outer containing their first vertex.
    pub fn from_rings(outer: Vec<Vec<(f64, f64)>>, inner: Vec<Vec<(f64, f64)>>) -> Self {
        let mut outer: Vec<Vec<(f64, f64)>> = outer.into_iter().filter(|r| r.len() >= 4).collect();
        outer.sort_by(|a, b| {
            ring_signed_area(b)
                .abs()
                .total_cmp(&ring_signed_area(a).abs())
        });
        let mut polys: Vec<Polygon> = Vec::new();
        for r in outer {
            polys.push(Polygon {
                outer: r,
                holes: Vec::new(),
            });
        }
        for h in inner.into_iter().filter(|r| r.len() >= 4) {
            let Some(&p) = h.first() else { continue };
            // smallest outer containing it: iterate from the smallest
            if let Some(poly) = polys
                .iter_mut()
                .rev()
                .find(|poly| point_in_ring(p, &poly.outer))
            {
                poly.holes.push(h);
            }
        }
        MultiPolygon(polys)
    }

    /// Whether any polygon contains the point.
    pub fn contains(&self, p: (f64, f64)) -> bool {
        self.0.iter().any(|poly| poly.contains(p))
    }

    /// Total area in square degrees.
    pub fn area(&self) -> f64 {
        self.0.iter().map(Polygon::area).sum()
    }

    /// R-tree-order bbox of every outer ring.
    pub fn bbox(&self) -> Option<[f64; 4]> {
        bbox(self.0.iter().flat_map(|p| p.outer.iter().copied()))
    }

    /// A point inside the area: the centroid of the largest outer ring when it lies inside,
    /// else the middle of the widest inside stretch of the horizontal line through it.
    pub fn point_on_surface(&self) -> Option<(f64, f64)> {
        let largest = self.0.iter().max_by(|a, b| a.area().total_cmp(&b.area()))?;
        let c = ring_centroid(&largest.outer)?;
        if largest.contains(c) {
            return Some(c);
        }
        let lat = c.0;
        let mut xs: Vec<f64> = Vec::new();
        for ring in std::iter::once(&largest.outer).chain(largest.holes.iter()) {
            for w in ring.windows(2) {
                let (yi, xi) = w[0];
                let (yj, xj) = w[1];
                if (yi > lat) != (yj > lat) {
                    xs.push(xi + (lat - yi) / (yj - yi) * (xj - xi));
                }
            }
        }
        xs.sort_by(f64::total_cmp);
        let best = xs
            .chunks_exact(2)
            .max_by(|a, b| (a[1] - a[0]).total_cmp(&(b[1] - b[0])));
        match best {
            Some(pair) => Some((lat, (pair[0] + pair[1]) / 2.0)),
            None => Some(c),
        }
    }

    /// GeoJSON geometry: `Polygon` for one polygon, else `MultiPolygon`; coordinates rounded
    /// to 7 decimals.
    pub fn to_geojson(&self) -> serde_json::Value {
        let ring = |r: &Vec<(f64, f64)>| -> serde_json::Value {
            serde_json::Value::Array(
                r.iter()
                    .map(|&(lat, lng)| serde_json::json!([round7(lng), round7(lat)]))
                    .collect(),
            )
        };
        let poly = |p: &Polygon| -> serde_json::Value {
            let mut rings = vec![ring(&p.outer)];
            rings.extend(p.holes.iter().map(ring));
            serde_json::Value::Array(rings)
        };
        match self.0.as_slice() {
            [one] => serde_json::json!({"type": "Polygon", "coordinates": poly(one)}),
            many => serde_json::json!({
                "type": "MultiPolygon",
                "coordinates": many.iter().map(poly).collect::<Vec<_>>()
            }),
        }
    }
}

/// Rounds a coordinate to 7 decimals (about 1 cm), the precision of OSM.
pub fn round7(v: f64) -> f64 {
    (v * 1e7).round() / 1e7
}

/// GeoJSON `Point`.
pub fn point_geojson(p: (f64, f64)) -> serde_json::Value {
    serde_json::json!({"type": "Point", "coordinates": [round7(p.1), round7(p.0)]})
}

/// GeoJSON `LineString`.
pub fn line_geojson(points: &[(f64, f64)]) -> serde_json::Value {
    serde_json::json!({
        "type": "LineString",
        "coordinates": points.iter().map(|&(lat, lng)| [round7(lng), round7(lat)]).collect::<Vec<_>>()
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn polyline_known_value() {
        // Google's example at precision 5 is "_p~iF~ps|U_ulLnnqC_mqNvxq`@"; at precision 6 the
        // same points encode to the value below (checked against OSRM's polyline6).
        let pts = [(38.5, -120.2), (40.7, -120.95), (43.252, -126.453)];
        let enc = encode_polyline6(&pts).unwrap();
        assert_eq!(enc, "_izlhA~rlgdF_{geC~ywl@_kwzCn`{nI");
        assert!(
            encode_polyline6(&[(91.0, 0.0)]).is_err(),
            "out of range is refused"
        );
        assert_eq!(decode_polyline6(&enc).unwrap(), pts.to_vec());
    }

    #[test]
    fn haversine_one_degree() {
        let d = haversine_m((0.0, 0.0), (1.0, 0.0));
        assert!((d - 111_195.0).abs() < 5.0, "{d}");
    }

    #[test]
    fn point_on_surface_of_u_shape() {
        // a U shape whose centroid lies in the notch
        let ring = vec![
            (0.0, 0.0),
            (0.0, 3.0),
            (3.0, 3.0),
            (3.0, 2.0),
            (1.0, 2.0),
            (1.0, 1.0),
            (3.0, 1.0),
            (3.0, 0.0),
            (0.0, 0.0),
        ];
        let mp = MultiPolygon::from_rings(vec![ring], vec![]);
        let p = mp.point_on_surface().unwrap();
        assert!(mp.contains(p), "{p:?}");
    }
}
