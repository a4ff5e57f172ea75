//! Zone polygons: Well-Known Text of a valid `POLYGON` or `MULTIPOLYGON` (the spec's Zone
//! `polygon`), checked the same way by the pack builder and the engine: every vertex a finite
//! longitude (-180 to 180) and latitude (-90 to 90), at most [`MAX_ZONE_VERTICES`] vertices
//! in at most [`MAX_ZONE_RINGS`] rings, then geo's validity rules (closed rings, no
//! self-intersection, holes inside the shell, rings and polygons not crossing). The cheap
//! checks come first, so a polygon too large for the validity check is refused before it starts.
//!
//! The validity check is geo's `Validation` for polygons and multipolygons, rule for rule and
//! in the same order (so the same first error and message), with one change: geo compares
//! every segment of a ring with every other one to find self-intersections, which is
//! quadratic (10^8 segment pairs for a 10,000-vertex ring); here the pairs come from geo's
//! sweep line ([`::geo::algorithm::sweep::Intersections`]), which only tests segments whose
//! longitude ranges overlap. Two holes of a polygon, or two polygons of a multipolygon, whose
//! bounding boxes are apart cannot overlap or touch, so their relate step is skipped.
use std::str::FromStr;

use ::geo::algorithm::coordinate_position::CoordPos;
use ::geo::algorithm::dimensions::Dimensions;
use ::geo::algorithm::sweep::Intersections;
use ::geo::algorithm::validation::{
    CoordIndex, GeometryIndex, InvalidGeometry, InvalidMultiPolygon, InvalidPolygon, RingRole,
};
use ::geo::{
    BoundingRect, HasDimensions, Intersects, PreparedGeometry, Relate, RemoveRepeatedPoints,
};

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
    check_validity(&geometry).map_err(|e| ZonePolygonError::Invalid(e.to_string()))?;
    Ok(geometry)
}

/// geo's first validity error of a polygon or multipolygon (see the module comment).
fn check_validity(geometry: &::geo::Geometry<f64>) -> Result<(), InvalidGeometry> {
    match geometry {
        ::geo::Geometry::Polygon(p) => check_polygon(p).map_err(InvalidGeometry::InvalidPolygon),
        ::geo::Geometry::MultiPolygon(m) => {
            check_multi_polygon(m).map_err(InvalidGeometry::InvalidMultiPolygon)
        }
        _ => Ok(()),
    }
}

/// Whether two segments of a ring meet anywhere other than where one ends and the other
/// begins: geo's rule for a self-intersection, over the pairs the sweep line finds meeting.
fn ring_self_intersects(ring: &::geo::LineString<f64>) -> bool {
    Intersections::from_iter(ring.lines()).any(|(a, b, _)| a.start != b.end && a.end != b.start)
}

/// geo's polygon rules, in geo's order.
fn check_polygon(polygon: &::geo::Polygon<f64>) -> Result<(), InvalidPolygon> {
    if polygon.is_empty() {
        return Ok(());
    }
    let rings = std::iter::once(polygon.exterior()).chain(polygon.interiors());
    for (ring_idx, ring) in rings.enumerate() {
        if ring.is_empty() {
            continue;
        }
        let role = match ring_idx {
            0 => RingRole::Exterior,
            i => RingRole::Interior(i - 1),
        };
        if ring.remove_repeated_points().0.len() < 4 {
            return Err(InvalidPolygon::TooFewPointsInRing(role));
        }
        if ring_self_intersects(ring) {
            return Err(InvalidPolygon::SelfIntersection(role));
        }
        if let Some(i) = ring
            .0
            .iter()
            .position(|c| !(c.x.is_finite() && c.y.is_finite()))
        {
            return Err(InvalidPolygon::NonFiniteCoord(role, CoordIndex(i)));
        }
    }
    if !polygon.interiors().iter().any(|r| !r.is_empty()) {
        return Ok(());
    }
    let shell = ::geo::Polygon::new(polygon.exterior().clone(), vec![]);
    let shell = PreparedGeometry::from(&shell);
    for (i, hole_1) in polygon.interiors().iter().enumerate() {
        if hole_1.is_empty() {
            continue;
        }
        let role_1 = RingRole::Interior(i);
        let box_1 = hole_1.bounding_rect();
        let hole_1 = ::geo::Polygon::new(hole_1.clone(), vec![]);
        let hole_1 = PreparedGeometry::from(&hole_1);
        let shell_vs_hole = shell.relate(&hole_1);
        if !shell_vs_hole.is_contains() {
            return Err(InvalidPolygon::InteriorRingNotContainedInExteriorRing(
                role_1,
            ));
        }
        if shell_vs_hole.get(CoordPos::OnBoundary, CoordPos::OnBoundary)
            == Dimensions::OneDimensional
        {
            return Err(InvalidPolygon::IntersectingRingsOnALine(
                RingRole::Exterior,
                role_1,
            ));
        }
        for (j, hole_2) in polygon.interiors().iter().enumerate().skip(i + 1) {
            if hole_2.is_empty() {
                continue;
            }
            // Holes whose bounding boxes are apart cannot overlap or touch.
            if let (Some(a), Some(b)) = (box_1, hole_2.bounding_rect())
                && !a.intersects(&b)
            {
                continue;
            }
            let role_2 = RingRole::Interior(j);
            let hole_2 = ::geo::Polygon::new(hole_2.clone(), vec![]);
            let matrix = hole_1.relate(&hole_2);
            if matrix.get(CoordPos::Inside, CoordPos::Inside) == Dimensions::TwoDimensional {
                return Err(InvalidPolygon::IntersectingRingsOnAnArea(role_1, role_2));
            }
            if matrix.get(CoordPos::OnBoundary, CoordPos::OnBoundary) == Dimensions::OneDimensional
            {
                return Err(InvalidPolygon::IntersectingRingsOnALine(role_1, role_2));
            }
        }
    }
    Ok(())
}

/// geo's multipolygon rules, in geo's order: each polygon valid, then no two overlapping or
/// touching along a line.
fn check_multi_polygon(multi: &::geo::MultiPolygon<f64>) -> Result<(), InvalidMultiPolygon> {
    let boxes: Vec<Option<::geo::Rect<f64>>> = multi.0.iter().map(|p| p.bounding_rect()).collect();
    for (i, polygon) in multi.0.iter().enumerate() {
        check_polygon(polygon)
            .map_err(|e| InvalidMultiPolygon::InvalidPolygon(GeometryIndex(i), e))?;
        for (j, other) in multi.0.iter().enumerate().skip(i + 1) {
            if let (Some(a), Some(b)) = (boxes[i], boxes[j])
                && !a.intersects(&b)
            {
                continue;
            }
            let matrix = polygon.relate(other);
            if matrix.get(CoordPos::Inside, CoordPos::Inside) == Dimensions::TwoDimensional {
                return Err(InvalidMultiPolygon::ElementsOverlaps(
                    GeometryIndex(i),
                    GeometryIndex(j),
                ));
            }
            if matrix.get(CoordPos::OnBoundary, CoordPos::OnBoundary) == Dimensions::OneDimensional
            {
                return Err(InvalidMultiPolygon::ElementsTouchOnALine(
                    GeometryIndex(i),
                    GeometryIndex(j),
                ));
            }
        }
    }
    Ok(())
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

    /// A ring of `n` distinct vertices on a circle of radius `r` degrees around (lng, lat),
    /// closed, counter-clockwise.
    fn circle(n: usize, r: f64, lng: f64, lat: f64) -> Vec<::geo::Coord<f64>> {
        let mut pts: Vec<::geo::Coord<f64>> = (0..n)
            .map(|i| {
                let a = std::f64::consts::TAU * i as f64 / n as f64;
                ::geo::coord! { x: lng + r * a.cos(), y: lat + r * a.sin() }
            })
            .collect();
        pts.push(pts[0]);
        pts
    }

    fn wkt_of(polygon: ::geo::Polygon<f64>) -> String {
        use wkt::ToWkt;
        ::geo::Geometry::Polygon(polygon).wkt_string()
    }

    #[test]
    fn rings_at_the_vertex_limit_get_the_right_verdict() {
        // One ring of exactly the vertex limit (9,999 distinct vertices and the closing one).
        let shell = circle(MAX_ZONE_VERTICES - 1, 0.05, 1.5, 42.5);
        assert_eq!(shell.len(), MAX_ZONE_VERTICES);
        let text = wkt_of(::geo::Polygon::new(shell.clone().into(), vec![]));
        assert!(zone_polygon(&text).is_ok(), "{:?}", zone_polygon(&text));

        // The same ring with a spike near its end that crosses the ring to the far side.
        let mut spiked = shell.clone();
        let k = spiked.len() - 5;
        spiked.insert(k, ::geo::coord! { x: 1.5 - 0.06, y: 42.5 + 0.001 });
        spiked.truncate(MAX_ZONE_VERTICES);
        let last = spiked.len() - 1;
        spiked[last] = spiked[0];
        let text = wkt_of(::geo::Polygon::new(spiked.into(), vec![]));
        let e = zone_polygon(&text).unwrap_err();
        assert_eq!(
            e.to_string(),
            "`polygon` is not a valid polygon: exterior ring has a self-intersection"
        );

        // A fine circle with holes, 10,000 vertices in all: valid.
        let holes: Vec<::geo::LineString<f64>> = (0..4)
            .map(|i| {
                let a = std::f64::consts::FRAC_PI_2 * i as f64;
                circle(249, 0.01, 1.5 + 0.03 * a.cos(), 42.5 + 0.03 * a.sin()).into()
            })
            .collect();
        let shell = circle(MAX_ZONE_VERTICES - 4 * 250 - 1, 0.05, 1.5, 42.5);
        let polygon = ::geo::Polygon::new(shell.into(), holes.clone());
        let vertices: usize = rings(&::geo::Geometry::Polygon(polygon.clone()))
            .iter()
            .map(|r| r.0.len())
            .sum();
        assert_eq!(vertices, MAX_ZONE_VERTICES);
        assert!(zone_polygon(&wkt_of(polygon.clone())).is_ok());

        // The first hole (east of the centre), one vertex near the end of its ring moved:
        // across to the far side of the hole (the ring crosses itself), or out through the
        // shell (the hole is not inside the shell).
        let moved = |factor: f64| {
            let mut ring = holes[0].0.clone();
            let j = ring.len() - 3;
            let centre = ::geo::coord! { x: 1.53, y: 42.5 };
            ring[j] = centre + (ring[j] - centre) * factor;
            let mut moved = holes.clone();
            moved[0] = ring.into();
            wkt_of(::geo::Polygon::new(polygon.exterior().clone(), moved))
        };
        assert_eq!(
            zone_polygon(&moved(-2.0)).unwrap_err().to_string(),
            "`polygon` is not a valid polygon: interior ring at index 0 has a self-intersection"
        );
        assert_eq!(
            zone_polygon(&moved(3.0)).unwrap_err().to_string(),
            "`polygon` is not a valid polygon: interior ring at index 0 is not contained within \
             the polygon's exterior"
        );
    }

    mod agrees_with_geo {
        use ::geo::Validation;
        use proptest::prelude::*;

        use super::super::check_validity;
        use super::super::{InvalidGeometry, InvalidMultiPolygon, InvalidPolygon, RingRole};

        /// A ring of 3 to 7 vertices on a small grid (so vertices repeat, segments overlap
        /// and touch), closed by geo.
        fn grid_ring(size: i32) -> impl Strategy<Value = ::geo::LineString<f64>> {
            proptest::collection::vec((0..size, 0..size), 3..8).prop_map(|pts| {
                pts.into_iter()
                    .map(|(x, y)| (f64::from(x), f64::from(y)))
                    .collect::<Vec<_>>()
                    .into()
            })
        }

        /// An axis-aligned square ring.
        fn square(x: i32, y: i32, side: i32) -> ::geo::LineString<f64> {
            let (x, y, s) = (f64::from(x), f64::from(y), f64::from(side));
            vec![(x, y), (x + s, y), (x + s, y + s), (x, y + s), (x, y)].into()
        }

        /// Random rings (mostly self-intersecting), with random holes.
        fn random_polygon() -> impl Strategy<Value = ::geo::Polygon<f64>> {
            (grid_ring(6), proptest::collection::vec(grid_ring(6), 0..3))
                .prop_map(|(shell, holes)| ::geo::Polygon::new(shell, holes))
        }

        /// A square shell with square holes that may be inside, touch the shell or each
        /// other, overlap, or stick out; or a shell with a random ring as a hole.
        fn holed_polygon() -> impl Strategy<Value = ::geo::Polygon<f64>> {
            (
                0..3,
                0..3,
                6..9,
                proptest::collection::vec((0..9, 0..9, 1..4), 0..4),
                proptest::option::of(grid_ring(8)),
            )
                .prop_map(|(x, y, side, holes, extra)| {
                    let mut holes: Vec<_> = holes
                        .into_iter()
                        .map(|(hx, hy, s)| square(hx, hy, s))
                        .collect();
                    holes.extend(extra);
                    ::geo::Polygon::new(square(x, y, side), holes)
                })
        }

        fn any_polygon() -> impl Strategy<Value = ::geo::Polygon<f64>> {
            prop_oneof![random_polygon(), holed_polygon()]
        }

        fn any_geometry() -> impl Strategy<Value = ::geo::Geometry<f64>> {
            prop_oneof![
                any_polygon().prop_map(::geo::Geometry::Polygon),
                proptest::collection::vec(any_polygon(), 1..4)
                    .prop_map(|p| ::geo::Geometry::MultiPolygon(p.into())),
                // Multipolygons of squares, apart, touching at a corner or a side, or overlapping.
                proptest::collection::vec((0..12, 0..12, 1..5), 1..5).prop_map(|s| {
                    ::geo::Geometry::MultiPolygon(
                        s.into_iter()
                            .map(|(x, y, side)| ::geo::Polygon::new(square(x, y, side), vec![]))
                            .collect::<Vec<_>>()
                            .into(),
                    )
                }),
            ]
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(600))]
            /// The same first error (so the same verdict and message) as geo's own check.
            #[test]
            fn same_first_error_as_geo(geometry in any_geometry()) {
                prop_assert_eq!(check_validity(&geometry), geometry.check_validation());
            }
        }

        #[test]
        fn the_samples_hold_valid_and_invalid_shapes_of_each_kind() {
            // The strategy is not all one verdict: count the kinds of answers on a fixed run.
            use proptest::strategy::ValueTree;
            use proptest::test_runner::TestRunner;
            let mut runner = TestRunner::deterministic();
            let mut seen = std::collections::BTreeSet::new();
            for _ in 0..600 {
                let g = any_geometry().new_tree(&mut runner).unwrap().current();
                let kind = match g.check_validation() {
                    Ok(()) => "valid",
                    Err(InvalidGeometry::InvalidPolygon(e))
                    | Err(InvalidGeometry::InvalidMultiPolygon(
                        InvalidMultiPolygon::InvalidPolygon(_, e),
                    )) => match e {
                        InvalidPolygon::TooFewPointsInRing(_) => "too few points",
                        InvalidPolygon::SelfIntersection(RingRole::Exterior) => "shell crosses",
                        InvalidPolygon::SelfIntersection(_) => "hole crosses",
                        InvalidPolygon::InteriorRingNotContainedInExteriorRing(_) => "hole out",
                        InvalidPolygon::IntersectingRingsOnALine(RingRole::Exterior, _) => {
                            "hole on shell"
                        }
                        InvalidPolygon::IntersectingRingsOnALine(..) => "holes on a line",
                        InvalidPolygon::IntersectingRingsOnAnArea(..) => "holes overlap",
                        InvalidPolygon::NonFiniteCoord(..) => "not finite",
                    },
                    Err(InvalidGeometry::InvalidMultiPolygon(
                        InvalidMultiPolygon::ElementsOverlaps(..),
                    )) => "polygons overlap",
                    Err(InvalidGeometry::InvalidMultiPolygon(
                        InvalidMultiPolygon::ElementsTouchOnALine(..),
                    )) => "polygons on a line",
                    Err(_) => "other",
                };
                seen.insert(kind);
            }
            for wanted in [
                "valid",
                "too few points",
                "shell crosses",
                "hole crosses",
                "hole out",
                "hole on shell",
                "holes on a line",
                "holes overlap",
                "polygons overlap",
                "polygons on a line",
            ] {
                assert!(seen.contains(wanted), "{wanted} not in {seen:?}");
            }
        }
    }
}
