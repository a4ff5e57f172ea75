//! Point-in-polygon and the readers' polygons: even-odd ring tests, [`Area`] (GeoJSON
//! `Polygon` / `MultiPolygon` with its bbox, as admin areas and postal codes are stored) and
//! whether a line meets a ring (route avoidance).
//!
//! [`ring_contains`] is the readers' test (rings closed or not); [`closed_ring_contains`] the
//! pack builder's, on closed rings, whose crossing abscissa is computed in another order (see
//! the [module tour](super)).
//!
//! ```
//! use waymark_core::geo::{Area, Pt};
//! let a = Area::from_geojson_str(
//!     r#"{"type":"Polygon","coordinates":[[[0,0],[10,0],[10,10],[0,10],[0,0]]]}"#,
//! )
//! .unwrap();
//! assert!(a.contains(Pt::new(5.0, 5.0)));
//! assert_eq!(a.bbox.to_wsen(), [0.0, 0.0, 10.0, 10.0]);
//! ```
use serde_json::Value;

use super::bbox::BBox;
use super::geojson::polygon_rings;
use super::line::project_on_segment;
use super::point::Pt;

/// A ring of points.
pub type Ring = Vec<Pt>;

/// Even-odd point-in-ring test, latitude and longitude taken as plane coordinates; the edge
/// from the last point back to the first is implied (rings may be closed or not).
pub fn ring_contains(ring: &[Pt], p: Pt) -> bool {
    even_odd(ring, p, |q| [q.lng, q.lat])
}

/// [`ring_contains`] on plane coordinates `[x, y]` (metres of a local projection, grid units).
pub fn plane_ring_contains(ring: &[[f64; 2]], p: [f64; 2]) -> bool {
    even_odd(ring, p, |q| q)
}

fn even_odd<T: Copy>(ring: &[T], p: T, xy: impl Fn(T) -> [f64; 2]) -> bool {
    let p = xy(p);
    let mut inside = false;
    let n = ring.len();
    let mut j = n.wrapping_sub(1);
    for i in 0..n {
        let (a, b) = (xy(ring[i]), xy(ring[j]));
        if (a[1] > p[1]) != (b[1] > p[1])
            && p[0] < (b[0] - a[0]) * (p[1] - a[1]) / (b[1] - a[1]) + a[0]
        {
            inside = !inside;
        }
        j = i;
    }
    inside
}

/// Whether `p` lies within `tol` of an edge of `ring` (the edge from the last point back to
/// the first implied), latitude and longitude taken as plane coordinates: a point on a ring's
/// edge, which the even-odd test may count on either side.
pub fn ring_edge_within(ring: &[Pt], p: Pt, tol: f64) -> bool {
    let xy = |q: Pt| [q.lng, q.lat];
    let n = ring.len();
    let mut j = n.wrapping_sub(1);
    (0..n).any(|i| {
        let (a, b) = (ring[j], ring[i]);
        j = i;
        project_on_segment(xy(p), xy(a), xy(b)).1 <= tol * tol
    })
}

/// Even-odd rule over a polygon's rings (outer ring and holes): a point in a hole crosses an
/// even number of edges.
pub fn rings_contain(rings: &[Ring], p: Pt) -> bool {
    rings
        .iter()
        .fold(false, |inside, r| inside != ring_contains(r, p))
}

/// The pack builder's even-odd point-in-ring test on a closed ring (first point repeated
/// last; no closing edge is implied).
pub fn closed_ring_contains(ring: &[Pt], p: Pt) -> bool {
    let mut inside = false;
    for w in ring.windows(2) {
        let (a, b) = (w[0], w[1]);
        if (a.lat > p.lat) != (b.lat > p.lat) {
            let x = a.lng + (p.lat - a.lat) / (b.lat - a.lat) * (b.lng - a.lng);
            if p.lng < x {
                inside = !inside;
            }
        }
    }
    inside
}

/// Whether segments `p1`–`p2` and `q1`–`q2` cross (strictly; touching does not count).
pub fn segments_cross(p1: Pt, p2: Pt, q1: Pt, q2: Pt) -> bool {
    let o =
        |a: Pt, b: Pt, c: Pt| (b.lng - a.lng) * (c.lat - a.lat) - (b.lat - a.lat) * (c.lng - a.lng);
    let (d1, d2) = (o(q1, q2, p1), o(q1, q2, p2));
    let (d3, d4) = (o(p1, p2, q1), o(p1, p2, q2));
    ((d1 > 0.0) != (d2 > 0.0)) && ((d3 > 0.0) != (d4 > 0.0))
}

/// Whether a line has a point inside `ring` or a segment crossing one of its edges.
pub fn line_meets_ring(line: &[Pt], ring: &[Pt]) -> bool {
    if line.iter().any(|&p| ring_contains(ring, p)) {
        return true;
    }
    let n = ring.len();
    line.windows(2)
        .any(|w| (0..n).any(|i| segments_cross(w[0], w[1], ring[i], ring[(i + 1) % n])))
}

/// Polygons parsed from a GeoJSON `Polygon` or `MultiPolygon` geometry, with their bbox.
#[derive(Debug, Clone, PartialEq)]
pub struct Area {
    /// The polygons, each an outer ring followed by its holes.
    pub polygons: Vec<Vec<Ring>>,
    /// Box of the outer rings.
    pub bbox: BBox,
}

impl Area {
    /// Parses a GeoJSON geometry (`Polygon`, `MultiPolygon`, or the spec's `MultiPoligon`).
    pub fn from_geojson(v: &Value) -> Option<Area> {
        let polygons: Vec<Vec<Ring>> = match v.get("type")?.as_str()? {
            "Polygon" => vec![polygon_rings(v.get("coordinates")?)?],
            "MultiPolygon" | "MultiPoligon" => v
                .get("coordinates")?
                .as_array()?
                .iter()
                .map(polygon_rings)
                .collect::<Option<_>>()?,
            _ => return None,
        };
        let bbox = BBox::of(polygons.iter().flat_map(|p| p.first()).flatten().copied())?;
        Some(Area { polygons, bbox })
    }

    /// Parses GeoJSON text.
    pub fn from_geojson_str(s: &str) -> Option<Area> {
        serde_json::from_str::<Value>(s)
            .ok()
            .and_then(|v| Area::from_geojson(&v))
    }

    /// Whether the point is inside (even-odd over each polygon's rings).
    pub fn contains(&self, p: Pt) -> bool {
        self.bbox.contains(p) && self.polygons.iter().any(|rings| rings_contain(rings, p))
    }

    /// Area of the bbox in square degrees (to order areas by size).
    pub fn bbox_area(&self) -> f64 {
        self.bbox.area_deg2()
    }
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
        assert!(a.contains(Pt::new(1.0, 1.0)));
        assert!(!a.contains(Pt::new(5.0, 5.0)));
        assert!(!a.contains(Pt::new(5.0, 11.0)));
        assert_eq!(a.bbox.to_wsen(), [0.0, 0.0, 10.0, 10.0]);
        assert!(Area::from_geojson(&json!({"type": "Point", "coordinates": [0, 0]})).is_none());
        assert!(Area::from_geojson(&json!({"type": "Polygon", "coordinates": []})).is_none());
    }

    #[test]
    fn the_two_ring_tests_agree_off_the_edges() {
        let ring = vec![
            Pt::new(0.0, 0.0),
            Pt::new(0.0, 3.0),
            Pt::new(3.0, 3.0),
            Pt::new(3.0, 2.0),
            Pt::new(1.0, 2.0),
            Pt::new(1.0, 1.0),
            Pt::new(3.0, 1.0),
            Pt::new(3.0, 0.0),
            Pt::new(0.0, 0.0),
        ];
        for (p, inside) in [
            (Pt::new(0.5, 0.5), true),
            (Pt::new(2.0, 1.5), false),
            (Pt::new(2.5, 2.5), true),
            (Pt::new(-1.0, 1.0), false),
        ] {
            assert_eq!(ring_contains(&ring, p), inside, "{p:?}");
            assert_eq!(closed_ring_contains(&ring, p), inside, "{p:?}");
        }
    }

    #[test]
    fn lines_meet_rings() {
        let square = [
            Pt::new(0.0, 0.0),
            Pt::new(0.0, 1.0),
            Pt::new(1.0, 1.0),
            Pt::new(1.0, 0.0),
        ];
        assert!(line_meets_ring(&[Pt::new(0.5, 0.5)], &square));
        assert!(line_meets_ring(
            &[Pt::new(-1.0, 0.5), Pt::new(2.0, 0.5)],
            &square
        ));
        assert!(!line_meets_ring(
            &[Pt::new(-1.0, 2.0), Pt::new(2.0, 2.0)],
            &square
        ));
        assert!(!ring_contains(&[], Pt::new(0.0, 0.0)));
    }
}
