//! Distance group (`/distance`): route, tolls, isochrone, asynchronous distance matrix.
//!
//! | endpoint | request | response |
//! |---|---|---|
//! | `GET /distance/route/json` | [`RouteRequest`] | [`RouteResponse`] |
//! | `GET /distance/tolls/json` | [`TollsRequest`] | [`TollsResponse`] |
//! | `GET /distance/isochrone/json` | [`IsochroneRequest`] | [`IsochroneResponse`] |
//! | `POST /distance/matrix/async` | [`MatrixCreateRequest`] (the JSON body) | [`MatrixCreateResponse`] |
//! | `GET /distance/matrix/async/{matrix_id}/status` | [`MatrixStatusRequest`] | [`MatrixStatusResponse`] |
//! | `GET /distance/matrix/async/{matrix_id}` | [`MatrixResultRequest`] | [`MatrixResultResponse`] = [`MatrixResult`] (served behind a 303) |
//!
//! Conventions of the contract (decided where the spec is silent):
//! - encoded polylines (`overview_polyline.points`, step polylines, isoline `geometry`) use the
//!   Google algorithm with precision 5;
//! - `start_waypoint`/`end_waypoint` are 0-based indexes into `[origin, waypoints..., destination]`;
//! - a distance-based isoline reports `distance.value` in metres (its input `value` is in km);
//! - matrix arrays are origin-major (`i * numDestinations + j`) and hold `null` for a pair that
//!   cannot be reached;
//! - limits that the spec reports through a distance `status` (200 elements per matrix, 500 km
//!   per route) are not request validation: the engine reports them
//!   ([`MAX_MATRIX_ELEMENTS`], [`MAX_ROUTE_LENGTH_M`]).
//!
//! ```
//! use waymark_core::api::{FromQuery, RequestHeaders, RouteLanguage, RouteRequest, TravelMode, pairs};
//!
//! let q = pairs([("origin", "48.85,2.35"), ("destination", "45.76,4.84"), ("mode", "cycling")]);
//! let h = RequestHeaders { accept_language: Some("de-CH,de;q=0.9".into()), x_field_mask: None };
//! let req = RouteRequest::from_query(&q, &h, &[]).unwrap();
//! assert_eq!(req.mode, TravelMode::Cycling);
//! assert_eq!(req.effective_language(), RouteLanguage::De); // from Accept-Language
//! ```

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use super::common::LatLng;
use super::query::de_error;
use super::validation::{
    Checks, FieldError, Loc, kinds, parse_int, parse_latlng, parse_latlng_list, parse_pipe_list,
    shown,
};
use super::vocab::{RouteLanguage, TravelMode};

mod isochrone;
mod matrix;
mod route;
mod tolls;

pub use isochrone::*;
pub use matrix::*;
pub use route::*;
pub use tolls::*;

/// Most origin-destination pairs per matrix (`MAX_ELEMENTS_EXCEEDED` above).
pub const MAX_MATRIX_ELEMENTS: usize = 200;
/// Longest route, in metres (`MAX_ROUTE_LENGTH_EXCEEDED` above).
pub const MAX_ROUTE_LENGTH_M: u64 = 500_000;

/// `arrival_time` or `departure_time`: a UNIX timestamp or `now`. On the wire (query and JSON)
/// it is the integer or the string `"now"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Enum))]
pub enum TrafficTime {
    /// `now`.
    Now,
    /// A UNIX timestamp in seconds.
    At(i64),
}

impl fmt::Display for TrafficTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Now => f.write_str("now"),
            Self::At(t) => write!(f, "{t}"),
        }
    }
}

#[cfg(feature = "schema")]
impl schemars::JsonSchema for TrafficTime {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "TrafficTime".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "A UNIX timestamp in seconds, or `now`.",
            "oneOf": [{"type": "integer", "format": "int64"}, {"const": "now"}],
        })
    }
}

impl Serialize for TrafficTime {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Now => serializer.serialize_str("now"),
            Self::At(t) => serializer.serialize_i64(*t),
        }
    }
}

impl<'de> Deserialize<'de> for TrafficTime {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(deserializer)?;
        if v.as_str() == Some("now") {
            return Ok(Self::Now);
        }
        if let Some(t) = v.as_i64() {
            return Ok(Self::At(t));
        }
        Err(de_error(FieldError::new(
            vec![],
            kinds::VALUE,
            format!(
                "invalid time {}: give a unix timestamp or `now`",
                shown(&v.to_string())
            ),
        )))
    }
}

/// Parses `now` or a UNIX timestamp.
pub fn parse_traffic_time(loc: Loc, name: &str, s: &str) -> Result<TrafficTime, FieldError> {
    if s.trim() == "now" {
        return Ok(TrafficTime::Now);
    }
    parse_int::<i64>(loc, name, s)
        .map(TrafficTime::At)
        .map_err(|e| FieldError {
            msg: format!(
                "give a unix timestamp in seconds or `now`, got {}",
                shown(s)
            ),
            ..e
        })
}

/// One item of `avoid`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Enum))]
#[serde(rename_all = "snake_case")]
pub enum RouteAvoid {
    /// `tolls`
    Tolls,
    /// `highways`
    Highways,
    /// `ferries`
    Ferries,
    /// An area to avoid: polygon vertices `lat,lng` separated by `;` (at least 3).
    Polygon(Vec<LatLng>),
}

/// Parses `avoid`: `tolls`, `highways`, `ferries` or polygons, joined by `|`.
pub fn parse_avoid(loc: Loc, name: &str, s: &str) -> Result<Vec<RouteAvoid>, FieldError> {
    parse_pipe_list(loc, name, s)?
        .iter()
        .map(|item| match item.as_str() {
            "tolls" => Ok(RouteAvoid::Tolls),
            "highways" => Ok(RouteAvoid::Highways),
            "ferries" => Ok(RouteAvoid::Ferries),
            polygon if polygon.contains(';') => {
                let vertices = parse_latlng_list(loc, name, polygon, ';')?;
                if vertices.len() < 3 {
                    return Err(FieldError::invalid(
                        loc,
                        name,
                        kinds::VALUE,
                        format!("polygon {} has {} vertices: give at least 3", shown(polygon), vertices.len()),
                    ));
                }
                Ok(RouteAvoid::Polygon(vertices))
            }
            other => Err(FieldError::invalid(
                loc,
                name,
                kinds::VALUE,
                format!(
                    "unknown avoid value {}: expected `tolls`, `highways`, `ferries` or polygon vertices `lat,lng;lat,lng;lat,lng`",
                    shown(other)
                ),
            )),
        })
        .collect()
}

/// `waypoints`: points between origin and destination, optionally reordered.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct Waypoints {
    /// `optimize:true` as first item: reorder the points between the fixed start and end,
    /// by `method`.
    #[serde(default)]
    pub optimize: bool,
    /// The points, in the given order.
    #[serde(default)]
    pub points: Vec<LatLng>,
}

impl Waypoints {
    /// Whether there is no waypoint.
    pub fn is_empty(&self) -> bool {
        self.points.is_empty()
    }
}

/// Parses `waypoints`: `lat,lng` joined by `|`, optionally starting with `optimize:true` (or
/// `optimize:false`).
pub fn parse_waypoints(loc: Loc, name: &str, s: &str) -> Result<Waypoints, FieldError> {
    let items = parse_pipe_list(loc, name, s)?;
    let (optimize, rest) = match items.first().map(String::as_str) {
        Some("optimize:true") => (true, &items[1..]),
        Some("optimize:false") => (false, &items[1..]),
        _ => (false, &items[..]),
    };
    let points = rest
        .iter()
        .enumerate()
        .map(|(i, item)| {
            parse_latlng(loc, name, item).map_err(|e| FieldError {
                msg: format!("waypoint {}: {}", i + 1, e.msg),
                ..e
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    if points.is_empty() {
        return Err(FieldError::invalid(
            loc,
            name,
            kinds::VALUE,
            "no waypoint after `optimize:`: give points `lat,lng` joined by `|`",
        ));
    }
    Ok(Waypoints { optimize, points })
}

/// `language`, then `Accept-Language`, then `en`.
fn resolve_language(language: Option<RouteLanguage>, accept: Option<&str>) -> RouteLanguage {
    language
        .or_else(|| accept.and_then(RouteLanguage::from_accept_language))
        .unwrap_or_default()
}

/// Checks rules shared by route and tolls.
fn check_trip(
    c: &mut Checks,
    origin: &LatLng,
    destination: &LatLng,
    waypoints: &Waypoints,
    alternatives: bool,
    arrival: Option<TrafficTime>,
    departure: Option<TrafficTime>,
) {
    c.latlng(Loc::Query, "origin", origin);
    c.latlng(Loc::Query, "destination", destination);
    for p in &waypoints.points {
        c.latlng(Loc::Query, "waypoints", p);
    }
    c.check(!alternatives || waypoints.is_empty(), || {
        FieldError::invalid(
            Loc::Query,
            "alternatives",
            kinds::VALUE,
            "`alternatives` cannot be combined with `waypoints`: drop one of them",
        )
    });
    c.check(!(arrival.is_some() && departure.is_some()), || {
        FieldError::invalid(
            Loc::Query,
            "arrival_time",
            kinds::VALUE,
            "give only one of `arrival_time` and `departure_time`",
        )
    });
    for (name, t) in [("arrival_time", arrival), ("departure_time", departure)] {
        if let Some(TrafficTime::At(t)) = t {
            c.check(t >= 0, || {
                FieldError::invalid(
                    Loc::Query,
                    name,
                    kinds::VALUE,
                    format!("timestamp must not be negative, got {t}"),
                )
            });
        }
    }
}

/// Refuses `truck` where the spec lists only `driving`, `walking` and `cycling`.
fn check_no_truck(c: &mut Checks, mode: TravelMode) {
    c.check(mode != TravelMode::Truck, || {
        FieldError::invalid(
            Loc::Query,
            "mode",
            kinds::ENUM,
            "value is not a valid travel mode here: expected one of `driving`, `walking`, `cycling`, got `truck`",
        )
    });
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn traffic_time_serde() {
        assert_eq!(
            serde_json::to_value(TrafficTime::Now).unwrap(),
            json!("now")
        );
        assert_eq!(
            serde_json::from_value::<TrafficTime>(json!(12)).unwrap(),
            TrafficTime::At(12)
        );
        assert!(serde_json::from_value::<TrafficTime>(json!("later")).is_err());
        assert_eq!(TrafficTime::At(5).to_string(), "5");
    }
}
