//! Indoor group (`/indoor`): venue description, search of venue features, indoor directions.
//!
//! | endpoint | request | response |
//! |---|---|---|
//! | `GET /indoor/venues` (Waymark extension) | [`VenueListRequest`] | [`VenueListResponse`] |
//! | `GET /indoor/venues/{venue_id}` | [`VenueGetRequest`] | [`VenueGetResponse`] = [`Venue`] |
//! | `GET /indoor/venues/{venue_id}/pois/search` | [`PoiSearchRequest`] | [`PoiSearchResponse`] |
//! | `GET /indoor/directions/{venue_id}` | [`IndoorDirectionsRequest`] | [`IndoorDirectionsResponse`] |
//!
//! Indoor points are `lat,lng,level`, a POI id, or `ref:<poi_ref>` ([`IndoorPoint`]). Bounding
//! boxes (`bbox`, `bounds`) are arrays of four numbers in GeoJSON bbox order
//! `[west, south, east, north]`.
//!
//! ```
//! use waymark_core::api::{FromQuery, IndoorDirectionsRequest, IndoorPoint, RequestHeaders, pairs};
//!
//! let q = pairs([("origin", "48.85,2.35,1"), ("destination", "ref:shop-12"), ("waypoints", "42|ref:wc")]);
//! let req = IndoorDirectionsRequest::from_query(&q, &RequestHeaders::default(), &["venue-1".to_owned()]).unwrap();
//! assert_eq!(req.origin, IndoorPoint::Coords { lat: 48.85, lng: 2.35, level: 1 });
//! assert_eq!(req.destination, IndoorPoint::Ref("shop-12".to_owned()));
//! assert_eq!(req.waypoints, [IndoorPoint::PoiId(42), IndoorPoint::Ref("wc".to_owned())]);
//! ```

use serde::{Deserialize, Serialize};

use super::common::LatLng;
use super::validation::{Checks, FieldError, Loc, kinds, parse_pipe_list, shown};

mod directions;
mod pois;
mod venue;
mod venues;

pub use directions::*;
pub use pois::*;
pub use venue::*;
pub use venues::*;

fn default_language() -> String {
    "en".to_owned()
}

/// How a missing indoor point is described.
const INDOOR_POINT_FORM: &str = "`lat,lng,level`, a poi id or `ref:<poi_ref>`";

/// A point inside a venue: `{lat, lng, level}`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct IndoorLatLng {
    /// Latitude.
    pub lat: f64,
    /// Longitude.
    pub lng: f64,
    /// Level (floor) number.
    pub level: i64,
}

/// Parses `lat,lng,level` (level an integer), checking the coordinate ranges.
pub fn parse_indoor_latlng(loc: Loc, name: &str, s: &str) -> Result<IndoorLatLng, FieldError> {
    let bad = |msg: String| FieldError::invalid(loc, name, kinds::COORDINATES, msg);
    let parts: Vec<&str> = s.split(',').map(str::trim).collect();
    let [lat, lng, level] = parts.as_slice() else {
        return Err(bad(format!(
            "value is not a valid indoor point: give `lat,lng,level`, got {}",
            shown(s)
        )));
    };
    let (Ok(lat), Ok(lng)) = (lat.parse::<f64>(), lng.parse::<f64>()) else {
        return Err(bad(format!(
            "value is not a valid indoor point: latitude and longitude must be decimal numbers, got {}",
            shown(s)
        )));
    };
    let Ok(level) = level.parse::<i64>() else {
        return Err(bad(format!(
            "value is not a valid indoor point: the level must be an integer, got {}",
            shown(s)
        )));
    };
    LatLng::new(lat, lng)
        .check()
        .map_err(|e| bad(e.to_string()))?;
    Ok(IndoorLatLng { lat, lng, level })
}

/// An origin, destination or waypoint of indoor directions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Enum))]
#[serde(rename_all = "snake_case")]
pub enum IndoorPoint {
    /// `lat,lng,level`.
    Coords {
        /// Latitude.
        lat: f64,
        /// Longitude.
        lng: f64,
        /// Level (floor) number.
        level: i64,
    },
    /// A POI id (an integer).
    PoiId(i64),
    /// `ref:<poi_ref>`: the POI with that ref (the prefix is not kept).
    Ref(String),
}

impl Default for IndoorPoint {
    fn default() -> Self {
        Self::PoiId(0)
    }
}

/// Parses an indoor point: `ref:<poi_ref>`, an integer POI id, or `lat,lng,level`.
pub fn parse_indoor_point(loc: Loc, name: &str, s: &str) -> Result<IndoorPoint, FieldError> {
    let t = s.trim();
    if let Some(r) = t.strip_prefix("ref:") {
        if r.trim().is_empty() {
            return Err(FieldError::invalid(
                loc,
                name,
                kinds::VALUE,
                "empty poi ref: give `ref:<poi_ref>`",
            ));
        }
        return Ok(IndoorPoint::Ref(r.trim().to_owned()));
    }
    if let Ok(id) = t.parse::<i64>() {
        return Ok(IndoorPoint::PoiId(id));
    }
    if t.contains(',') {
        let p = parse_indoor_latlng(loc, name, t)?;
        return Ok(IndoorPoint::Coords {
            lat: p.lat,
            lng: p.lng,
            level: p.level,
        });
    }
    Err(FieldError::invalid(
        loc,
        name,
        kinds::VALUE,
        format!(
            "value is not a valid indoor point: give `lat,lng,level`, a poi id or `ref:<poi_ref>`, got {}",
            shown(s)
        ),
    ))
}

/// Parses indoor points joined by `|`.
pub fn parse_indoor_points(loc: Loc, name: &str, s: &str) -> Result<Vec<IndoorPoint>, FieldError> {
    parse_pipe_list(loc, name, s)?
        .iter()
        .enumerate()
        .map(|(i, item)| {
            parse_indoor_point(loc, name, item).map_err(|mut e| {
                e.msg = format!("point {}: {}", i + 1, e.msg);
                e
            })
        })
        .collect()
}

/// An area to avoid: `level;lat,lng;lat,lng;lat,lng;lat,lng` (four corners).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct IndoorAvoidBox {
    /// Level of the box.
    pub level: i64,
    /// The four corners, in the given order.
    pub corners: Vec<LatLng>,
}

/// Parses `avoid_in`: boxes joined by `|`, each `level;lat,lng;lat,lng;lat,lng;lat,lng`.
pub fn parse_avoid_in(loc: Loc, name: &str, s: &str) -> Result<Vec<IndoorAvoidBox>, FieldError> {
    parse_pipe_list(loc, name, s)?
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let bad = |msg: String| {
                FieldError::invalid(loc, name, kinds::VALUE, format!("box {}: {msg}", i + 1))
            };
            let parts: Vec<&str> = item.split(';').map(str::trim).collect();
            let [level, corners @ ..] = parts.as_slice() else {
                return Err(bad("empty box".to_owned()));
            };
            if corners.len() != 4 {
                return Err(bad(format!(
                    "give `level;lat,lng;lat,lng;lat,lng;lat,lng` (four corners), got {}",
                    shown(item)
                )));
            }
            let level = level.parse::<i64>().map_err(|_| {
                bad(format!(
                    "the level must be an integer, got {}",
                    shown(level)
                ))
            })?;
            let corners = corners
                .iter()
                .map(|c| {
                    super::validation::parse_latlng(loc, name, c).map_err(|e| FieldError {
                        msg: format!("box {}: {}", i + 1, e.msg),
                        ..e
                    })
                })
                .collect::<Result<Vec<_>, _>>()?;
            Ok(IndoorAvoidBox { level, corners })
        })
        .collect()
}

/// Checks the path parameter `venue_id`.
fn check_venue(c: &mut Checks, venue_id: &str) {
    c.check(!venue_id.trim().is_empty(), || {
        FieldError::missing(Loc::Path, "venue_id")
    });
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::api::validation::kinds;
    use serde_json::json;

    /// The path of a venue request.
    pub(crate) fn venue() -> Vec<String> {
        vec!["v1".to_owned()]
    }

    #[test]
    fn indoor_points() {
        let p = |s: &str| parse_indoor_point(Loc::Query, "origin", s);
        assert_eq!(p("12").unwrap(), IndoorPoint::PoiId(12));
        assert_eq!(p("ref:A-1").unwrap(), IndoorPoint::Ref("A-1".into()));
        assert_eq!(
            p("1.5,2.5,-1").unwrap(),
            IndoorPoint::Coords {
                lat: 1.5,
                lng: 2.5,
                level: -1
            }
        );
        assert_eq!(p("1.5,2.5").unwrap_err().kind, kinds::COORDINATES);
        assert_eq!(p("1.5,2.5,1.5").unwrap_err().kind, kinds::COORDINATES);
        assert_eq!(p("91,2.5,1").unwrap_err().kind, kinds::COORDINATES);
        assert_eq!(p("ref:").unwrap_err().kind, kinds::VALUE);
        assert_eq!(p("lobby").unwrap_err().kind, kinds::VALUE);
        let v = serde_json::to_value(IndoorPoint::Coords {
            lat: 1.0,
            lng: 2.0,
            level: 3,
        })
        .unwrap();
        assert_eq!(v, json!({"coords": {"lat": 1.0, "lng": 2.0, "level": 3}}));
    }
}
