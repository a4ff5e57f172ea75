//! Zone polygons: Well-Known Text of a valid `POLYGON` or `MULTIPOLYGON` (the spec's Zone
//! `polygon`), checked the same way by the pack builder and the engine.
use std::str::FromStr;

use ::geo::Validation;

/// Why a zone polygon is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
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
    /// A polygon that is not valid (open or self-intersecting rings, ...).
    #[error("`polygon` is not a valid polygon: {0}")]
    Invalid(String),
}

/// The geometry of a zone polygon, once checked.
pub fn zone_polygon(text: &str) -> Result<::geo::Geometry<f64>, ZonePolygonError> {
    let geometry = zone_shape(text)?;
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
