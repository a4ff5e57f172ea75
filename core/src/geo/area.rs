//! The pack builder's areas: polygons with holes made from closed rings (OSM multipolygons,
//! closed ways), their areas and centroids, a point on their surface and their GeoJSON.
//! Containment uses [`closed_ring_contains`], the builder's ring test.
//!
//! ```
//! use waymark_core::geo::{MultiPolygon, Pt};
//! let ring = vec![
//!     Pt::new(0.0, 0.0), Pt::new(0.0, 2.0), Pt::new(2.0, 2.0), Pt::new(2.0, 0.0), Pt::new(0.0, 0.0),
//! ];
//! let area = MultiPolygon::from_rings(vec![ring], vec![]);
//! assert_eq!(area.area(), 4.0);
//! assert_eq!(area.point_on_surface(), Some(Pt::new(1.0, 1.0)));
//! ```
use serde_json::{Value, json};

use super::bbox::BBox;
use super::geojson::ring_geojson;
use super::point::Pt;
use super::polygon::{Ring, closed_ring_contains};

/// Signed area of a ring in square degrees (shoelace on lng/lat; positive counter-clockwise).
pub fn ring_signed_area(ring: &[Pt]) -> f64 {
    let mut s = 0.0;
    for w in ring.windows(2) {
        s += w[0].lng * w[1].lat - w[1].lng * w[0].lat;
    }
    s / 2.0
}

/// Area centroid of a ring (falls back to the vertex average for degenerate rings).
pub fn ring_centroid(ring: &[Pt]) -> Option<Pt> {
    let first = *ring.first()?;
    let mut a = 0.0;
    let (mut cx, mut cy) = (0.0, 0.0);
    for w in ring.windows(2) {
        // relative to the first vertex for precision
        let (x0, y0) = (w[0].lng - first.lng, w[0].lat - first.lat);
        let (x1, y1) = (w[1].lng - first.lng, w[1].lat - first.lat);
        let cross = x0 * y1 - x1 * y0;
        a += cross;
        cx += (x0 + x1) * cross;
        cy += (y0 + y1) * cross;
    }
    if a.abs() < 1e-18 {
        return vertex_average(ring);
    }
    Some(Pt::new(
        first.lat + cy / (3.0 * a),
        first.lng + cx / (3.0 * a),
    ))
}

/// Average of the vertices.
pub fn vertex_average(points: &[Pt]) -> Option<Pt> {
    if points.is_empty() {
        return None;
    }
    let n = points.len() as f64;
    let (sa, sb) = points
        .iter()
        .fold((0.0, 0.0), |acc, p| (acc.0 + p.lat, acc.1 + p.lng));
    Some(Pt::new(sa / n, sb / n))
}

/// A polygon: one outer ring and its holes, rings closed (first point repeated).
#[derive(Debug, Clone, PartialEq)]
pub struct Polygon {
    /// Outer ring.
    pub outer: Ring,
    /// Inner rings (holes).
    pub holes: Vec<Ring>,
}

impl Polygon {
    /// Whether the point is inside the outer ring and outside every hole.
    pub fn contains(&self, p: Pt) -> bool {
        closed_ring_contains(&self.outer, p)
            && !self.holes.iter().any(|h| closed_ring_contains(h, p))
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

    fn to_geojson(&self) -> Value {
        let mut rings = vec![ring_geojson(&self.outer)];
        rings.extend(self.holes.iter().map(|h| ring_geojson(h)));
        Value::Array(rings)
    }
}

/// An area geometry: one or more polygons.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MultiPolygon(pub Vec<Polygon>);

impl MultiPolygon {
    /// Builds polygons from closed rings: the largest rings not inside another kept ring are
    /// outers; `inner` rings (and outer-role rings nested in an outer) become holes of the
    /// smallest outer containing their first vertex.
    pub fn from_rings(outer: Vec<Ring>, inner: Vec<Ring>) -> Self {
        let mut outer: Vec<Ring> = outer.into_iter().filter(|r| r.len() >= 4).collect();
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
                .find(|poly| closed_ring_contains(&poly.outer, p))
            {
                poly.holes.push(h);
            }
        }
        MultiPolygon(polys)
    }

    /// Whether any polygon contains the point.
    pub fn contains(&self, p: Pt) -> bool {
        self.0.iter().any(|poly| poly.contains(p))
    }

    /// Total area in square degrees.
    pub fn area(&self) -> f64 {
        self.0.iter().map(Polygon::area).sum()
    }

    /// Box of every outer ring.
    pub fn bbox(&self) -> Option<BBox> {
        BBox::of(self.0.iter().flat_map(|p| p.outer.iter().copied()))
    }

    /// A point inside the area: the centroid of the largest outer ring when it lies inside,
    /// else the middle of the widest inside stretch of the horizontal line through it.
    pub fn point_on_surface(&self) -> Option<Pt> {
        let largest = self.0.iter().max_by(|a, b| a.area().total_cmp(&b.area()))?;
        let c = ring_centroid(&largest.outer)?;
        if largest.contains(c) {
            return Some(c);
        }
        let lat = c.lat;
        let mut xs: Vec<f64> = Vec::new();
        for ring in std::iter::once(&largest.outer).chain(largest.holes.iter()) {
            for w in ring.windows(2) {
                let (a, b) = (w[0], w[1]);
                if (a.lat > lat) != (b.lat > lat) {
                    xs.push(a.lng + (lat - a.lat) / (b.lat - a.lat) * (b.lng - a.lng));
                }
            }
        }
        xs.sort_by(f64::total_cmp);
        let best = xs
            .chunks_exact(2)
            .max_by(|a, b| (a[1] - a[0]).total_cmp(&(b[1] - b[0])));
        match best {
            Some(pair) => Some(Pt::new(lat, (pair[0] + pair[1]) / 2.0)),
            None => Some(c),
        }
    }

    /// GeoJSON geometry: `Polygon` for one polygon, else `MultiPolygon`; coordinates rounded
    /// to 7 decimals.
    pub fn to_geojson(&self) -> Value {
        match self.0.as_slice() {
            [one] => json!({"type": "Polygon", "coordinates": one.to_geojson()}),
            many => json!({
                "type": "MultiPolygon",
                "coordinates": many.iter().map(Polygon::to_geojson).collect::<Vec<_>>()
            }),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn ring(pts: &[(f64, f64)]) -> Ring {
        pts.iter().map(|&(lat, lng)| Pt::new(lat, lng)).collect()
    }

    #[test]
    fn point_on_surface_of_u_shape() {
        // a U shape whose centroid lies in the notch
        let u = ring(&[
            (0.0, 0.0),
            (0.0, 3.0),
            (3.0, 3.0),
            (3.0, 2.0),
            (1.0, 2.0),
            (1.0, 1.0),
            (3.0, 1.0),
            (3.0, 0.0),
            (0.0, 0.0),
        ]);
        let mp = MultiPolygon::from_rings(vec![u], vec![]);
        let p = mp.point_on_surface().unwrap();
        assert!(mp.contains(p), "{p:?}");
    }

    #[test]
    fn holes_go_to_the_smallest_outer() {
        let big = ring(&[
            (0.0, 0.0),
            (0.0, 10.0),
            (10.0, 10.0),
            (10.0, 0.0),
            (0.0, 0.0),
        ]);
        let small = ring(&[(1.0, 1.0), (1.0, 5.0), (5.0, 5.0), (5.0, 1.0), (1.0, 1.0)]);
        let hole = ring(&[(2.0, 2.0), (2.0, 3.0), (3.0, 3.0), (3.0, 2.0), (2.0, 2.0)]);
        let mp = MultiPolygon::from_rings(vec![big, small], vec![hole]);
        assert_eq!(mp.0[1].holes.len(), 1);
        assert!(!mp.0[1].contains(Pt::new(2.5, 2.5)));
        assert_eq!(mp.bbox().map(BBox::to_rtree), Some([0.0, 10.0, 0.0, 10.0]));
        let g = mp.to_geojson();
        assert_eq!(g["type"], "MultiPolygon");
        assert_eq!(g["coordinates"][1][1][0], json!([2.0, 2.0]));
    }
}
