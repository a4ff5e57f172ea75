//! Small geometry helpers for the localities operations and the search-index builder:
//! GeoJSON polygons, point-in-polygon, distances on the sphere, polyline6 lines.
use serde_json::Value;

/// A ring of `[lng, lat]` positions.
pub type Ring = Vec<[f64; 2]>;
/// An outer ring followed by its holes.
pub type Polygon = Vec<Ring>;

/// Mean Earth radius in metres.
pub const EARTH_RADIUS_M: f64 = 6_371_008.8;

/// Polygons parsed from a GeoJSON `Polygon` or `MultiPolygon` geometry.
#[derive(Debug, Clone, PartialEq)]
pub struct Area {
    /// The polygons.
    pub polygons: Vec<Polygon>,
    /// `[west, south, east, north]`.
    pub bbox: [f64; 4],
}

impl Area {
    /// Parses a GeoJSON geometry (`Polygon`, `MultiPolygon`, or the spec's `MultiPoligon`).
    pub fn from_geojson(v: &Value) -> Option<Area> {
        let polygons: Vec<Polygon> = match v.get("type")?.as_str()? {
            "Polygon" => vec![parse_polygon(v.get("coordinates")?)?],
            "MultiPolygon" | "MultiPoligon" => v
                .get("coordinates")?
                .as_array()?
                .iter()
                .map(parse_polygon)
                .collect::<Option<_>>()?,
            _ => return None,
        };
        let mut bbox = [f64::MAX, f64::MAX, f64::MIN, f64::MIN];
        for p in polygons.iter().flat_map(|p| p.first()).flatten() {
            bbox[0] = bbox[0].min(p[0]);
            bbox[1] = bbox[1].min(p[1]);
            bbox[2] = bbox[2].max(p[0]);
            bbox[3] = bbox[3].max(p[1]);
        }
        (!polygons.is_empty() && bbox[0] <= bbox[2]).then_some(Area { polygons, bbox })
    }

    /// Parses GeoJSON text.
    pub fn from_geojson_str(s: &str) -> Option<Area> {
        serde_json::from_str::<Value>(s)
            .ok()
            .and_then(|v| Area::from_geojson(&v))
    }

    /// Whether the point is inside (even-odd over each polygon's rings).
    pub fn contains(&self, lat: f64, lng: f64) -> bool {
        let [w, s, e, n] = self.bbox;
        if lng < w || lng > e || lat < s || lat > n {
            return false;
        }
        self.polygons.iter().any(|p| polygon_contains(p, lng, lat))
    }

    /// Approximate area of the bbox in square degrees (to order areas by size).
    pub fn bbox_area(&self) -> f64 {
        (self.bbox[2] - self.bbox[0]) * (self.bbox[3] - self.bbox[1])
    }
}

fn parse_polygon(v: &Value) -> Option<Polygon> {
    let rings: Polygon = v
        .as_array()?
        .iter()
        .map(|r| {
            r.as_array()?
                .iter()
                .map(|p| {
                    let p = p.as_array()?;
                    Some([p.first()?.as_f64()?, p.get(1)?.as_f64()?])
                })
                .collect::<Option<Ring>>()
        })
        .collect::<Option<_>>()?;
    (!rings.is_empty() && rings.iter().all(|r| r.len() >= 3)).then_some(rings)
}

fn polygon_contains(polygon: &Polygon, x: f64, y: f64) -> bool {
    let mut inside = false;
    for ring in polygon {
        let mut j = ring.len() - 1;
        for i in 0..ring.len() {
            let [xi, yi] = ring[i];
            let [xj, yj] = ring[j];
            if (yi > y) != (yj > y) && x < (xj - xi) * (y - yi) / (yj - yi) + xi {
                inside = !inside;
            }
            j = i;
        }
    }
    inside
}

/// Great-circle distance in metres.
pub fn haversine_m(lat1: f64, lng1: f64, lat2: f64, lng2: f64) -> f64 {
    let (p1, p2) = (lat1.to_radians(), lat2.to_radians());
    let dp = p2 - p1;
    let dl = (lng2 - lng1).to_radians();
    let a = (dp / 2.0).sin().powi(2) + p1.cos() * p2.cos() * (dl / 2.0).sin().powi(2);
    2.0 * EARTH_RADIUS_M * a.sqrt().min(1.0).asin()
}

/// Degrees of latitude and longitude spanned by `metres` around latitude `lat`.
pub fn degrees_for(metres: f64, lat: f64) -> (f64, f64) {
    let dlat = metres / 111_320.0;
    let dlng = metres / (111_320.0 * lat.to_radians().cos().abs().max(0.01));
    (dlat, dlng)
}

/// Decodes a polyline6 into `(lat, lng)` points (empty when malformed).
pub fn decode_polyline6(s: &str) -> Vec<(f64, f64)> {
    polyline::decode_polyline(s, 6)
        .map(|ls| ls.0.iter().map(|c| (c.y, c.x)).collect())
        .unwrap_or_default()
}

/// The point of a line nearest to `(lat, lng)`: `(distance_m, lat, lng, along_m)` where
/// `along_m` is the distance from the line's start to that point along the line.
pub fn nearest_on_line(line: &[(f64, f64)], lat: f64, lng: f64) -> Option<(f64, f64, f64, f64)> {
    let kx = 111_320.0 * lat.to_radians().cos();
    let ky = 110_574.0;
    let mut best: Option<(f64, f64, f64, f64)> = None;
    let mut along = 0.0;
    for seg in line.windows(2) {
        let (a, b) = (seg[0], seg[1]);
        let (ax, ay) = ((a.1 - lng) * kx, (a.0 - lat) * ky);
        let (bx, by) = ((b.1 - lng) * kx, (b.0 - lat) * ky);
        let (dx, dy) = (bx - ax, by - ay);
        let len2 = dx * dx + dy * dy;
        let t = if len2 > 0.0 {
            (-(ax * dx + ay * dy) / len2).clamp(0.0, 1.0)
        } else {
            0.0
        };
        let (px, py) = (ax + t * dx, ay + t * dy);
        let d = (px * px + py * py).sqrt();
        let seg_len = len2.sqrt();
        if best.is_none_or(|b| d < b.0) {
            best = Some((
                d,
                a.0 + t * (b.0 - a.0),
                a.1 + t * (b.1 - a.1),
                along + t * seg_len,
            ));
        }
        along += seg_len;
    }
    if line.len() == 1 {
        let p = line[0];
        return Some((haversine_m(lat, lng, p.0, p.1), p.0, p.1, 0.0));
    }
    best
}

/// The point at `fraction` (0..=1) of a line's length.
pub fn point_along(line: &[(f64, f64)], fraction: f64) -> Option<(f64, f64)> {
    let lens: Vec<f64> = line
        .windows(2)
        .map(|s| haversine_m(s[0].0, s[0].1, s[1].0, s[1].1))
        .collect();
    let total: f64 = lens.iter().sum();
    let mut target = total * fraction.clamp(0.0, 1.0);
    for (i, len) in lens.iter().enumerate() {
        if target <= *len && *len > 0.0 {
            let t = target / len;
            let (a, b) = (line[i], line[i + 1]);
            return Some((a.0 + t * (b.0 - a.0), a.1 + t * (b.1 - a.1)));
        }
        target -= len;
    }
    line.last().copied()
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn area_contains_with_holes() {
        let a = Area::from_geojson(&json!({"type": "Polygon", "coordinates": [
            [[0.0, 0.0], [10.0, 0.0], [10.0, 10.0], [0.0, 10.0], [0.0, 0.0]],
            [[4.0, 4.0], [6.0, 4.0], [6.0, 6.0], [4.0, 6.0], [4.0, 4.0]]
        ]}))
        .unwrap();
        assert!(a.contains(1.0, 1.0));
        assert!(!a.contains(5.0, 5.0));
        assert!(!a.contains(11.0, 5.0));
        assert_eq!(a.bbox, [0.0, 0.0, 10.0, 10.0]);
        assert!(Area::from_geojson(&json!({"type": "Point", "coordinates": [0, 0]})).is_none());
    }

    #[test]
    fn distances_and_lines() {
        let d = haversine_m(42.5, 1.5, 42.5, 1.51);
        assert!((d - 819.0).abs() < 5.0, "{d}");
        let line = [(0.0, 0.0), (0.0, 0.01)];
        let (dist, lat, lng, along) = nearest_on_line(&line, 0.001, 0.005).unwrap();
        assert!((dist - 110.6).abs() < 1.0, "{dist}");
        assert!(lat.abs() < 1e-12 && (lng - 0.005).abs() < 1e-9);
        assert!((along - 556.6).abs() < 2.0, "{along}");
        let mid = point_along(&line, 0.5).unwrap();
        assert!((mid.1 - 0.005).abs() < 1e-9);
        let enc = polyline::encode_coordinates([geo_types::coord! {x: 1.5, y: 42.5}], 6).unwrap();
        assert_eq!(decode_polyline6(&enc), vec![(42.5, 1.5)]);
    }
}
