//! Geometry on the WGS84 sphere, shared by every reader of the core and by the pack builder
//! (`waymark-packs`): the point type [`Pt`], great-circle lengths and bearings, bounding boxes
//! ([`BBox`]), lines (snapping projection, sub-lines, nearest point, point along), rings and
//! polygons (point-in-polygon, GeoJSON areas, the builder's multipolygons), encoded polylines
//! and GeoJSON output.
//!
//! **Conventions.** A point is a [`Pt`] (`lat`, `lng` in degrees). GeoJSON keeps its own
//! `[lng, lat]` order only where GeoJSON text is read or written. Rings are `Vec<Pt>`; a
//! *closed* ring repeats its first point last.
//!
//! **Two arithmetic variants, on purpose.** The pack builder and the readers grew their own
//! copies of a few primitives that agree to the metre but not to the last bit: road lengths
//! ([`road_length_m`] vs [`line_length_m`]) and point-in-ring ([`closed_ring_contains`] vs
//! [`ring_contains`]). Both are kept, each with the arithmetic it always had, so that rebuilt
//! packs and every answer stay byte-identical; new code uses the reader variants.
//!
//! ```
//! use waymark_core::geo::{BBox, Pt, haversine_m, ring_contains};
//! let (a, b) = (Pt::new(42.5, 1.5), Pt::new(42.51, 1.5));
//! assert!((haversine_m(a, b) - 1111.95).abs() < 1.0);
//! let square = [Pt::new(0.0, 0.0), Pt::new(0.0, 1.0), Pt::new(1.0, 1.0), Pt::new(1.0, 0.0)];
//! assert!(ring_contains(&square, Pt::new(0.5, 0.5)));
//! assert_eq!(BBox::of(square).map(|b| b.north), Some(1.0));
//! ```
mod area;
mod bbox;
mod geojson;
mod line;
mod point;
mod polygon;
mod polyline;
mod sphere;

pub use area::{MultiPolygon, Polygon, ring_centroid, ring_signed_area, vertex_average};
pub use bbox::BBox;
pub use geojson::{line_geojson, point_geojson, polygon_rings, round7};
pub use line::{
    LinePoint, LocalProjection, nearest_on_line, point_along, project_on_segment, sub_line,
};
pub use point::{Pt, degrees_for, hilbert, lerp};
pub use polygon::{
    Area, Ring, closed_ring_contains, line_meets_ring, plane_ring_contains, ring_contains,
    ring_edge_within, rings_contain, segments_cross,
};
pub use polyline::{
    PolylineError, decode_polyline, decode_polyline6, encode_polyline, encode_polyline6,
};
pub use sphere::{
    EARTH_RADIUS_M, bearing_deg, haversine_m, line_length_m, road_length_m, turn_angle, xyz,
};
