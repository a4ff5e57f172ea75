//! Zone polygons: Well-Known Text of a valid `POLYGON` or `MULTIPOLYGON` (the spec's Zone
//! `polygon`), checked the same way by the pack builder and the engine: every vertex a finite
//! longitude (-180 to 180) and latitude (-90 to 90), at most [`MAX_ZONE_VERTICES`] vertices
//! in at most [`MAX_ZONE_RINGS`] rings, then geo's validity check (closed rings, no
//! self-intersection). The cheap checks come first, so a polygon too large for the validity
//! check is refused before it starts.
use std::str::FromStr;

use ::geo::Validation;

/// Why a zone polygon is refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ZonePolygonError {
    /// Not WKT at all.
    #[error("`polygon` is not Well-Known Text: {0}")]
    NotWkt(String),
    /// WKT that is not a geometry geo can read.
    #[error("`polygon` cannot be read as a geometry: {0}")]
    Unreadable(String),
    /// Another kind of geometry.
    #[error("`polygon` must be a POLYGON or MULTIPOLYGON")]
    NotAPolygon,
    /// A vertex outside the longitude and latitude ranges, or not finite.
    #[error(
        "`polygon` vertex {vertex} of ring {ring} is ({lng} {lat}): give longitude (-180 to 180) \
         then latitude (-90 to 90), in degrees (WGS 84)"
    )]
    OutOfRange {
        /// Ring, counted from 1 over the rings of all polygons in order.
        ring: usize,
        /// Vertex in the ring, counted from 1.
        vertex: usize,
        /// Its first coordinate.
        lng: f64,
        /// Its second coordinate.
        lat: f64,
    },
    /// More vertices or rings than a zone may have.
    #[error(
        "`polygon` has {vertices} vertices in {rings} rings; a zone may have at most \
         {MAX_ZONE_VERTICES} vertices in {MAX_ZONE_RINGS} rings: simplify it or split the zone"
    )]
    TooLarge {
        /// Vertices given.
        vertices: usize,
        /// Rings given.
        rings: usize,
    },
    /// A polygon that is not valid (open or self-intersecting rings, ...).
    #[error("`polygon` is not a valid polygon: {0}")]
    Invalid(String),
}

/// The most vertices a zone polygon may have (all rings together): a delivery area or
/// catchment drawn by hand or simplified from a boundary has a few hundred.
pub const MAX_ZONE_VERTICES: usize = 10_000;

/// The most rings (outer rings and holes of all its polygons) a zone polygon may have.
pub const MAX_ZONE_RINGS: usize = 256;

/// The rings of a polygon or multipolygon, in order.
fn rings(geometry: &::geo::Geometry<f64>) -> Vec<&::geo::LineString<f64>> {
    let polygons: Vec<&::geo::Polygon<f64>> = match geometry {
        ::geo::Geometry::Polygon(p) => vec![p],
        ::geo::Geometry::MultiPolygon(m) => m.0.iter().collect(),
        _ => Vec::new(),
    };
    polygons
        .into_iter()
        .flat_map(|p| std::iter::once(p.exterior()).chain(p.interiors()))
        .collect()
}

/// The size limits and coordinate ranges, in one pass over the vertices.
fn check_extent(geometry: &::geo::Geometry<f64>) -> Result<(), ZonePolygonError> {
    let rings = rings(geometry);
    let vertices: usize = rings.iter().map(|r| r.0.len()).sum();
    if vertices > MAX_ZONE_VERTICES || rings.len() > MAX_ZONE_RINGS {
        return Err(ZonePolygonError::TooLarge {
            vertices,
            rings: rings.len(),
        });
    }
    for (r, ring) in rings.iter().enumerate() {
        for (v, c) in ring.0.iter().enumerate() {
            let lng_ok = c.x.is_finite() && (-180.0..=180.0).contains(&c.x);
            let lat_ok = c.y.is_finite() && (-90.0..=90.0).contains(&c.y);
            if !(lng_ok && lat_ok) {
                return Err(ZonePolygonError::OutOfRange {
                    ring: r + 1,
                    vertex: v + 1,
                    lng: c.x,
                    lat: c.y,
                });
            }
        }
    }
    Ok(())
}

/// The geometry of a zone polygon, once checked.
pub fn zone_polygon(text: &str) -> Result<::geo::Geometry<f64>, ZonePolygonError> {
    let geometry = zone_shape(text)?;
    check_extent(&geometry)?;
    geometry
        .check_validation()
        .map_err(|e| ZonePolygonError::Invalid(e.to_string()))?;
    Ok(geometry)
}

/// The geometry of a zone polygon that was checked when it was written (a signed pack's
/// zones): read as a `POLYGON` or `MULTIPOLYGON`, without the validity check.
pub fn zone_shape(text: &str) -> Result<::geo::Geometry<f64>, ZonePolygonError> {
    let parsed =
        wkt::Wkt::<f64>::from_str(text).map_err(|e| ZonePolygonError::NotWkt(e.to_string()))?;
    let geometry = ::geo::Geometry::try_from(parsed)
        .map_err(|e| ZonePolygonError::Unreadable(e.to_string()))?;
    match geometry {
        ::geo::Geometry::Polygon(_) | ::geo::Geometry::MultiPolygon(_) => Ok(geometry),
        _ => Err(ZonePolygonError::NotAPolygon),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic)]
mod tests {
    use super::*;

    fn ring(n: usize, lng: f64, lat: f64) -> String {
        // A regular n-gon of 0.01 degree around (lng, lat), closed.
        let mut pts: Vec<String> = (0..n)
            .map(|i| {
                let a = std::f64::consts::TAU * i as f64 / n as f64;
                format!("{} {}", lng + 0.01 * a.cos(), lat + 0.01 * a.sin())
            })
            .collect();
        pts.push(pts[0].clone());
        format!("({})", pts.join(", "))
    }

    #[test]
    fn coordinates_must_be_longitudes_and_latitudes() {
        assert!(zone_polygon("POLYGON((1.5 42.5, 1.6 42.5, 1.6 42.6, 1.5 42.5))").is_ok());
        // Latitude first by mistake: 42.5 is no longitude problem, 142 is no latitude.
        let e = zone_polygon("POLYGON((1.5 42.5, 1.6 142.5, 1.6 42.6, 1.5 42.5))").unwrap_err();
        assert_eq!(
            e,
            ZonePolygonError::OutOfRange {
                ring: 1,
                vertex: 2,
                lng: 1.6,
                lat: 142.5
            }
        );
        assert!(e.to_string().contains("vertex 2 of ring 1"), "{e}");
        let e = zone_polygon(
            "MULTIPOLYGON(((1.5 42.5, 1.6 42.5, 1.6 42.6, 1.5 42.5)), ((181 0, 182 0, 182 1, 181 0)))",
        )
        .unwrap_err();
        assert!(
            matches!(
                e,
                ZonePolygonError::OutOfRange {
                    ring: 2,
                    vertex: 1,
                    ..
                }
            ),
            "{e}"
        );
    }

    #[test]
    fn vertex_and_ring_limits_refuse_before_the_validity_check() {
        assert!(zone_polygon(&format!("POLYGON({})", ring(100, 1.5, 42.5))).is_ok());
        let ok = format!("POLYGON({})", ring(MAX_ZONE_VERTICES - 1, 1.5, 42.5));
        assert!(check_extent(&zone_shape(&ok).unwrap()).is_ok());
        let big = format!("POLYGON({})", ring(MAX_ZONE_VERTICES, 1.5, 42.5));
        let e = zone_polygon(&big).unwrap_err();
        assert_eq!(
            e,
            ZonePolygonError::TooLarge {
                vertices: MAX_ZONE_VERTICES + 1,
                rings: 1
            }
        );
        assert!(e.to_string().contains("at most 10000 vertices"), "{e}");
        let many: Vec<String> = (0..=MAX_ZONE_RINGS)
            .map(|i| format!("({})", ring(4, 1.0 + 0.1 * i as f64, 42.5)))
            .collect();
        let e = zone_polygon(&format!("MULTIPOLYGON({})", many.join(", "))).unwrap_err();
        assert!(
            matches!(e, ZonePolygonError::TooLarge { rings, .. } if rings == MAX_ZONE_RINGS + 1),
            "{e}"
        );
    }
}
