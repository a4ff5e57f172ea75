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

use super::common::{EncodedPolyline, LatLng, NumberTextValue, TextValue, Viewport};
use super::query::{FromQuery, de_error};
use super::validation::{
    Checks, FieldError, Loc, Validate, kinds, parse_int, parse_latlng, parse_latlng_list,
    parse_pipe_list, shown,
};
use super::vocab::{
    DetailsLevel, DistanceStatus, MatrixStatus, RouteLanguage, RouteMethod, TravelMode, Units,
};

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

/// `GET /distance/route/json` (K2; 10 per 1 s, 20 per 1 s with `arrival_time` or
/// `departure_time`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, FromQuery)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct RouteRequest {
    /// Required start.
    pub origin: LatLng,
    /// Required end.
    pub destination: LatLng,
    /// `driving` (default), `walking` or `cycling`.
    #[serde(default)]
    pub mode: TravelMode,
    /// `time` (default, fastest) or `distance` (shortest).
    #[serde(default)]
    pub method: RouteMethod,
    /// `metric` (default) or `imperial`.
    #[serde(default)]
    pub units: Units,
    /// Language of texts; see [`RouteRequest::effective_language`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    pub language: Option<RouteLanguage>,
    /// What to avoid. Default: nothing.
    #[serde(default)]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    #[query(with = parse_avoid)]
    pub avoid: Vec<RouteAvoid>,
    /// Arrive at this time (traffic-aware duration); exclusive with `departure_time`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    #[query(with = parse_traffic_time)]
    pub arrival_time: Option<TrafficTime>,
    /// Leave at this time (traffic-aware duration); exclusive with `arrival_time`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    #[query(with = parse_traffic_time)]
    pub departure_time: Option<TrafficTime>,
    /// Points to pass through; exclusive with `alternatives`.
    #[serde(default)]
    #[query(with = parse_waypoints)]
    pub waypoints: Waypoints,
    /// Return alternative routes. Default false; exclusive with `waypoints`.
    #[serde(default)]
    pub alternatives: bool,
    /// `none` (default) or `full` (legs carry steps).
    #[serde(default)]
    pub details: DetailsLevel,
    /// Header `Accept-Language`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    #[query(header)]
    pub accept_language: Option<String>,
}

impl RouteRequest {
    /// `language`, else the best supported language of `Accept-Language`, else `en`.
    pub fn effective_language(&self) -> RouteLanguage {
        resolve_language(self.language, self.accept_language.as_deref())
    }

    /// Whether `arrival_time` or `departure_time` is given (the traffic rate bucket).
    pub fn uses_traffic(&self) -> bool {
        self.arrival_time.is_some() || self.departure_time.is_some()
    }
}

impl Validate for RouteRequest {
    fn validate(&self) -> Result<(), Vec<FieldError>> {
        let mut c = Checks::new();
        check_trip(
            &mut c,
            &self.origin,
            &self.destination,
            &self.waypoints,
            self.alternatives,
            self.arrival_time,
            self.departure_time,
        );
        check_no_truck(&mut c, self.mode);
        for a in &self.avoid {
            if let RouteAvoid::Polygon(vertices) = a {
                c.check(vertices.len() >= 3, || {
                    FieldError::invalid(
                        Loc::Query,
                        "avoid",
                        kinds::VALUE,
                        "a polygon needs at least 3 vertices",
                    )
                });
                for p in vertices {
                    c.latlng(Loc::Query, "avoid", p);
                }
            }
        }
        c.finish()
    }
}

/// Answer of route: `{status, routes}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct RouteResponse {
    /// Default `OK`.
    #[serde(default)]
    pub status: DistanceStatus,
    /// One route, or several with `alternatives=true`.
    pub routes: Vec<Route>,
}

/// A route.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct Route {
    /// The whole route as an encoded polyline.
    pub overview_polyline: EncodedPolyline,
    /// Bounds of the route.
    pub bounds: Viewport,
    /// Notice about the route (e.g. a restriction ignored).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notice: Option<String>,
    /// One leg per pair of consecutive points.
    pub legs: Vec<RouteLeg>,
    /// Name of the longest step, to tell alternatives apart.
    pub main_route_name: String,
    /// Present and true only on the recommended route (never serialized as `false`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub recommended: bool,
}

/// A leg of a route.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct RouteLeg {
    /// Length: integer metres, text in the unit system of `units`.
    pub distance: TextValue,
    /// Time: integer seconds (with traffic when a time was given).
    pub duration: TextValue,
    /// Time without traffic; present when `arrival_time` or `departure_time` was given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_without_traffic: Option<TextValue>,
    /// Start of the leg.
    pub start_location: LatLng,
    /// End of the leg.
    pub end_location: LatLng,
    /// 0-based index of the start in `[origin, waypoints..., destination]`.
    pub start_waypoint: u32,
    /// 0-based index of the end in `[origin, waypoints..., destination]`.
    pub end_waypoint: u32,
    /// Address of the start, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_address: Option<String>,
    /// Address of the end, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_address: Option<String>,
    /// Steps; only with `details=full`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steps: Option<Vec<RouteStep>>,
}

/// Not shown in the spec: a step of a route leg is `{distance, duration, start_location,
/// end_location, polyline: {points}, instruction, maneuver, name}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct RouteStep {
    /// Length of the step (integer metres).
    pub distance: TextValue,
    /// Time of the step (integer seconds).
    pub duration: TextValue,
    /// Start of the step.
    pub start_location: LatLng,
    /// End of the step.
    pub end_location: LatLng,
    /// Path of the step.
    pub polyline: EncodedPolyline,
    /// Instruction for humans, in the request language (e.g. `Turn left onto Rue de Rivoli`).
    pub instruction: String,
    /// Machine-readable manoeuvre (e.g. `turn-left`, `roundabout-exit-2`, `depart`, `arrive`).
    pub maneuver: String,
    /// Name of the way followed (empty when unnamed).
    pub name: String,
}

/// `GET /distance/tolls/json` (K2; 5 per 1 s): route parameters without `avoid` and `details`;
/// `mode` adds `truck`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, FromQuery)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct TollsRequest {
    /// Required start.
    pub origin: LatLng,
    /// Required end.
    pub destination: LatLng,
    /// `driving` (default), `walking`, `cycling` or `truck`.
    #[serde(default)]
    pub mode: TravelMode,
    /// `time` (default) or `distance`.
    #[serde(default)]
    pub method: RouteMethod,
    /// `metric` (default) or `imperial`.
    #[serde(default)]
    pub units: Units,
    /// Language of texts; see [`TollsRequest::effective_language`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    pub language: Option<RouteLanguage>,
    /// Arrive at this time; exclusive with `departure_time`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    #[query(with = parse_traffic_time)]
    pub arrival_time: Option<TrafficTime>,
    /// Leave at this time; exclusive with `arrival_time`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    #[query(with = parse_traffic_time)]
    pub departure_time: Option<TrafficTime>,
    /// Points to pass through; exclusive with `alternatives`.
    #[serde(default)]
    #[query(with = parse_waypoints)]
    pub waypoints: Waypoints,
    /// Return alternative routes. Default false.
    #[serde(default)]
    pub alternatives: bool,
    /// Header `Accept-Language`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    #[query(header)]
    pub accept_language: Option<String>,
}

impl TollsRequest {
    /// `language`, else the best supported language of `Accept-Language`, else `en`.
    pub fn effective_language(&self) -> RouteLanguage {
        resolve_language(self.language, self.accept_language.as_deref())
    }
}

impl Validate for TollsRequest {
    fn validate(&self) -> Result<(), Vec<FieldError>> {
        let mut c = Checks::new();
        check_trip(
            &mut c,
            &self.origin,
            &self.destination,
            &self.waypoints,
            self.alternatives,
            self.arrival_time,
            self.departure_time,
        );
        c.finish()
    }
}

/// Answer of tolls: `{status, routes}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct TollsResponse {
    /// Default `OK`.
    #[serde(default)]
    pub status: DistanceStatus,
    /// Routes with their tolls.
    pub routes: Vec<TollRoute>,
}

/// A route with tolls.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct TollRoute {
    /// The whole route as an encoded polyline.
    pub overview_polyline: EncodedPolyline,
    /// Bounds of the route.
    pub bounds: Viewport,
    /// Legs with tolls.
    pub legs: Vec<TollLeg>,
}

/// A leg with its tolls.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct TollLeg {
    /// Length (integer metres).
    pub distance: TextValue,
    /// Time (integer seconds).
    pub duration: TextValue,
    /// Start of the leg.
    pub start_location: LatLng,
    /// End of the leg.
    pub end_location: LatLng,
    /// Tolls to pay on the leg.
    pub tolls: Vec<Toll>,
    /// Toll systems crossed by the leg.
    #[serde(rename = "tollSystems")]
    pub toll_systems: Vec<LegTollSystem>,
}

/// A toll to pay.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
#[serde(rename_all = "camelCase")]
pub struct Toll {
    /// Country code (`countryCode`).
    pub country_code: String,
    /// Index of the toll system in the leg's `tollSystems` (`tollSystemRef`).
    pub toll_system_ref: i64,
    /// Name of the toll system (`tollSystem`).
    pub toll_system: String,
    /// Indexes of the toll systems involved (`tollSystems`).
    pub toll_systems: Vec<i64>,
    /// Fares.
    pub fares: Vec<Fare>,
    /// Where the toll is collected (`tollCollectionLocations`).
    pub toll_collection_locations: Vec<TollCollectionLocation>,
}

/// A fare of a toll.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
#[serde(rename_all = "camelCase")]
pub struct Fare {
    /// Fare id.
    pub id: String,
    /// Fare name.
    pub name: String,
    /// Price.
    pub price: Price,
    /// Why the fare applies.
    pub reason: String,
    /// Accepted payment methods (`paymentMethods`).
    pub payment_methods: Vec<String>,
    /// Accepted transponders.
    pub transponders: Vec<Transponder>,
}

/// Price of a fare.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct Price {
    /// Kind of price, e.g. `value`.
    #[serde(rename = "type")]
    pub kind: String,
    /// ISO 4217 currency.
    pub currency: String,
    /// Amount.
    pub value: f64,
}

/// A transponder system.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct Transponder {
    /// Name of the system.
    pub system: String,
}

/// A toll collection point.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct TollCollectionLocation {
    /// Name of the point.
    pub name: String,
    /// Its location.
    pub location: LatLng,
}

/// A toll system of a leg.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct LegTollSystem {
    /// System id.
    pub id: i64,
    /// System name.
    pub name: String,
}

/// `GET /distance/isochrone/json` (K2; 10 per 1 s).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, FromQuery)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct IsochroneRequest {
    /// Required centre.
    pub origin: LatLng,
    /// Required reach: minutes when `method=time`, kilometres when `method=distance`.
    pub value: f64,
    /// `driving` (default), `walking` or `cycling`.
    #[serde(default)]
    pub mode: TravelMode,
    /// `time` (default) or `distance`: which variant of isoline is returned.
    #[serde(default)]
    pub method: RouteMethod,
    /// `metric` (default) or `imperial`.
    #[serde(default)]
    pub units: Units,
    /// Language of texts; see [`IsochroneRequest::effective_language`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    pub language: Option<RouteLanguage>,
    /// What to avoid. Default: nothing.
    #[serde(default)]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    #[query(with = parse_avoid)]
    pub avoid: Vec<RouteAvoid>,
    /// Header `Accept-Language`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    #[query(header)]
    pub accept_language: Option<String>,
}

impl IsochroneRequest {
    /// `language`, else the best supported language of `Accept-Language`, else `en`.
    pub fn effective_language(&self) -> RouteLanguage {
        resolve_language(self.language, self.accept_language.as_deref())
    }
}

impl Validate for IsochroneRequest {
    fn validate(&self) -> Result<(), Vec<FieldError>> {
        let mut c = Checks::new();
        c.latlng(Loc::Query, "origin", &self.origin);
        c.check(self.value.is_finite() && self.value > 0.0, || {
            FieldError::invalid(
                Loc::Query,
                "value",
                kinds::VALUE,
                format!(
                    "value must be a positive number (minutes for `method=time`, kilometres for `method=distance`), got {}",
                    self.value
                ),
            )
        });
        check_no_truck(&mut c, self.mode);
        c.finish()
    }
}

/// Answer of isochrone: `{status, isoline}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct IsochroneResponse {
    /// Default `OK`.
    #[serde(default)]
    pub status: DistanceStatus,
    /// The isoline.
    pub isoline: Isoline,
}

/// An isoline: time-based (`method=time`) or distance-based (`method=distance`); the key
/// `distance` or `time` tells them apart.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Enum))]
#[serde(untagged)]
pub enum Isoline {
    /// Distance-based variant.
    Distance(DistanceIsoline),
    /// Time-based variant.
    Time(TimeIsoline),
}

/// Distance-based isoline: `{origin, distance, geometry}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct DistanceIsoline {
    /// Centre.
    pub origin: LatLng,
    /// Reach: value in metres (the request gives kilometres), text in `units`.
    pub distance: NumberTextValue,
    /// Outline as an encoded polyline.
    pub geometry: String,
}

/// Not shown in the spec: the time-based isoline is `{origin, time: {value, text}, geometry}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct TimeIsoline {
    /// Centre.
    pub origin: LatLng,
    /// Reach: value in integer seconds (the request gives minutes), text for humans.
    pub time: TextValue,
    /// Outline as an encoded polyline.
    pub geometry: String,
}

/// Serde form of a list of points as the spec's string `lat,lng|lat,lng`.
mod pipe_latlngs {
    use super::*;

    pub(super) fn serialize<S: Serializer>(points: &[LatLng], s: S) -> Result<S::Ok, S::Error> {
        let text: Vec<String> = points.iter().map(LatLng::to_string).collect();
        s.serialize_str(&text.join("|"))
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<LatLng>, D::Error> {
        let s = String::deserialize(d)?;
        parse_latlng_list(Loc::Body, "points", &s, '|').map_err(de_error)
    }
}

/// `POST /distance/matrix/async` (K2; 20 per 1 s): the JSON body
/// `{origins, destinations, mode}` where each list is a string of `lat,lng` joined by `|`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, FromQuery)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
#[serde(deny_unknown_fields)]
#[query(body)]
pub struct MatrixCreateRequest {
    /// Required origins (a string `lat,lng|lat,lng` on the wire).
    #[serde(with = "pipe_latlngs")]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    pub origins: Vec<LatLng>,
    /// Required destinations (a string `lat,lng|lat,lng` on the wire).
    #[serde(with = "pipe_latlngs")]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    pub destinations: Vec<LatLng>,
    /// `driving` (default) or `truck`.
    #[serde(default)]
    pub mode: TravelMode,
}

impl MatrixCreateRequest {
    /// Number of origin-destination pairs (compare with [`MAX_MATRIX_ELEMENTS`]).
    pub fn element_count(&self) -> usize {
        self.origins.len().saturating_mul(self.destinations.len())
    }
}

impl Validate for MatrixCreateRequest {
    /// Non-empty lists of points in range; `mode` `driving` or `truck`.
    fn validate(&self) -> Result<(), Vec<FieldError>> {
        let mut c = Checks::new();
        for (name, points) in [
            ("origins", &self.origins),
            ("destinations", &self.destinations),
        ] {
            c.check(!points.is_empty(), || {
                FieldError::at(
                    Loc::Body,
                    vec![Value::from(name)],
                    kinds::MISSING,
                    format!("field required: give `{name}` as `lat,lng` joined by `|`"),
                )
            });
            for (i, p) in points.iter().enumerate() {
                if let Err(e) = p.check() {
                    c.check(false, || {
                        FieldError::at(
                            Loc::Body,
                            vec![Value::from(name)],
                            kinds::COORDINATES,
                            format!("point {}: {e}", i + 1),
                        )
                    });
                }
            }
        }
        c.check(matches!(self.mode, TravelMode::Driving | TravelMode::Truck), || {
            FieldError::at(
                Loc::Body,
                vec![Value::from("mode")],
                kinds::ENUM,
                format!("value is not a valid matrix mode: expected one of `driving`, `truck`, got `{}`", self.mode),
            )
        });
        c.finish()
    }
}

/// Answer of matrix creation: `{matrix_id, status}` (status `accepted`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct MatrixCreateResponse {
    /// Id of the calculation.
    pub matrix_id: String,
    /// State of the calculation.
    pub status: MatrixStatus,
}

fn check_matrix_id(id: &str) -> Result<(), Vec<FieldError>> {
    let mut c = Checks::new();
    c.check(!id.trim().is_empty(), || {
        FieldError::missing(Loc::Path, "matrix_id")
    });
    c.finish()
}

/// `GET /distance/matrix/async/{matrix_id}/status` (K2; 20 per 1 s).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize, FromQuery)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct MatrixStatusRequest {
    /// Path parameter.
    #[query(path)]
    pub matrix_id: String,
}

impl Validate for MatrixStatusRequest {
    fn validate(&self) -> Result<(), Vec<FieldError>> {
        check_matrix_id(&self.matrix_id)
    }
}

/// Answer of matrix status: `{status}`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct MatrixStatusResponse {
    /// State of the calculation.
    pub status: MatrixStatus,
}

/// `GET /distance/matrix/async/{matrix_id}` (K2; 20 per 1 s), to call once the status is
/// `completed`. Over HTTP it answers 303 to the location of the result; the result itself is a
/// [`MatrixResult`] (the path of the redirect target is not shown in the spec and is chosen by
/// the server).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize, FromQuery)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct MatrixResultRequest {
    /// Path parameter.
    #[query(path)]
    pub matrix_id: String,
}

impl Validate for MatrixResultRequest {
    fn validate(&self) -> Result<(), Vec<FieldError>> {
        check_matrix_id(&self.matrix_id)
    }
}

/// Result of a matrix calculation.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
#[serde(rename_all = "camelCase")]
pub struct MatrixResult {
    /// Id of the calculation (`matrixId`; the creation answer spells it `matrix_id`).
    pub matrix_id: String,
    /// The values.
    pub matrix: MatrixData,
    /// Region the calculation covered (`regionDefinition`).
    pub region_definition: RegionDefinition,
}

/// Answer of the matrix result: the [`MatrixResult`] (after the 303).
pub type MatrixResultResponse = MatrixResult;

/// Flat, origin-major arrays of a matrix: the pair (origin `i`, destination `j`) is at
/// `i * numDestinations + j`; a pair with equal origin and destination holds 0 and an
/// unreachable pair holds `null`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
#[serde(rename_all = "camelCase")]
pub struct MatrixData {
    /// Number of origins (`numOrigins`).
    pub num_origins: u32,
    /// Number of destinations (`numDestinations`).
    pub num_destinations: u32,
    /// Travel times in seconds (`travelTimes`); `null` when unreachable.
    pub travel_times: Vec<Option<f64>>,
    /// Distances in metres; `null` when unreachable.
    pub distances: Vec<Option<f64>>,
}

impl MatrixData {
    /// Index of the pair (origin `i`, destination `j`) in the flat arrays, if in range.
    pub fn index(&self, origin: u32, destination: u32) -> Option<usize> {
        (origin < self.num_origins && destination < self.num_destinations)
            .then(|| origin as usize * self.num_destinations as usize + destination as usize)
    }
}

/// `regionDefinition` of a matrix result: `{type}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct RegionDefinition {
    /// Kind of region, e.g. `world` (Waymark: the area covered by the installed data packs).
    #[serde(rename = "type")]
    pub kind: String,
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::api::query::{FromRequestParts, RequestHeaders, pairs};
    use crate::api::testing::{assert_errors, parse_valid, round_trip};
    use serde_json::json;

    fn h() -> RequestHeaders {
        RequestHeaders::default()
    }

    #[test]
    fn route_response_round_trip() {
        let r: RouteResponse = round_trip(json!({
            "status": "OK",
            "routes": [{
                "overview_polyline": {"points": "_p~iF~ps|U_ulLnnqC"},
                "bounds": {"northeast": {"lat": 48.9, "lng": 2.4}, "southwest": {"lat": 48.8, "lng": 2.3}},
                "notice": "ferries avoided",
                "legs": [{
                    "distance": {"value": 1200, "text": "1.2 km"},
                    "duration": {"value": 300, "text": "5 min"},
                    "duration_without_traffic": {"value": 250, "text": "4 min"},
                    "start_location": {"lat": 48.8, "lng": 2.3},
                    "end_location": {"lat": 48.9, "lng": 2.4},
                    "start_waypoint": 0,
                    "end_waypoint": 1,
                    "start_address": "Rue A, Paris",
                    "end_address": "Rue B, Paris",
                    "steps": [{
                        "distance": {"value": 1200, "text": "1.2 km"},
                        "duration": {"value": 300, "text": "5 min"},
                        "start_location": {"lat": 48.8, "lng": 2.3},
                        "end_location": {"lat": 48.9, "lng": 2.4},
                        "polyline": {"points": "_p~iF~ps|U"},
                        "instruction": "Head north on Rue A",
                        "maneuver": "depart",
                        "name": "Rue A"
                    }]
                }],
                "main_route_name": "Rue A",
                "recommended": true
            }, {
                "overview_polyline": {"points": "abc"},
                "bounds": {"northeast": {"lat": 48.9, "lng": 2.4}, "southwest": {"lat": 48.8, "lng": 2.3}},
                "legs": [],
                "main_route_name": "Rue C"
            }]
        }));
        assert!(r.routes[0].recommended);
        assert!(!r.routes[1].recommended, "absent means not recommended");
        let v = serde_json::to_value(&r.routes[1]).unwrap();
        assert!(v.get("recommended").is_none(), "never serialized as false");
        let d: RouteResponse = serde_json::from_value(json!({"routes": []})).unwrap();
        assert_eq!(d.status, DistanceStatus::Ok);
        let z: RouteResponse = round_trip(json!({"status": "ZERO_RESULTS", "routes": []}));
        assert_eq!(z.status, DistanceStatus::ZeroResults);
    }

    #[test]
    fn tolls_response_round_trip_camel_case() {
        let v = json!({
            "status": "OK",
            "routes": [{
                "overview_polyline": {"points": "abc"},
                "bounds": {"northeast": {"lat": 48.9, "lng": 2.4}, "southwest": {"lat": 45.7, "lng": 2.3}},
                "legs": [{
                    "distance": {"value": 465000, "text": "465 km"},
                    "duration": {"value": 16000, "text": "4 h 27 min"},
                    "start_location": {"lat": 48.85, "lng": 2.35},
                    "end_location": {"lat": 45.76, "lng": 4.84},
                    "tolls": [{
                        "countryCode": "FRA",
                        "tollSystemRef": 0,
                        "tollSystem": "APRR",
                        "tollSystems": [0],
                        "fares": [{
                            "id": "f1",
                            "name": "Fleury - Villefranche",
                            "price": {"type": "value", "currency": "EUR", "value": 38.5},
                            "reason": "toll",
                            "paymentMethods": ["cash", "bankCard", "transponder"],
                            "transponders": [{"system": "Bip&Go"}]
                        }],
                        "tollCollectionLocations": [{"name": "Fleury-en-Bière", "location": {"lat": 48.43, "lng": 2.55}}]
                    }],
                    "tollSystems": [{"id": 0, "name": "APRR"}]
                }]
            }]
        });
        let t: TollsResponse = round_trip(v.clone());
        assert_eq!(t.routes[0].legs[0].tolls[0].toll_system, "APRR");
        let text = serde_json::to_string(&t).unwrap();
        for name in [
            "\"countryCode\"",
            "\"tollSystemRef\"",
            "\"tollSystem\"",
            "\"tollSystems\"",
            "\"paymentMethods\"",
            "\"tollCollectionLocations\"",
        ] {
            assert!(text.contains(name), "{name} missing");
        }
    }

    #[test]
    fn isoline_variants() {
        let d: IsochroneResponse = round_trip(json!({
            "status": "OK",
            "isoline": {
                "origin": {"lat": 48.85, "lng": 2.35},
                "distance": {"value": 5000.0, "text": "5 km"},
                "geometry": "_p~iF~ps|U_ulLnnqC"
            }
        }));
        assert!(matches!(d.isoline, Isoline::Distance(_)));
        let t: IsochroneResponse = round_trip(json!({
            "status": "OK",
            "isoline": {
                "origin": {"lat": 48.85, "lng": 2.35},
                "time": {"value": 900, "text": "15 min"},
                "geometry": "_p~iF~ps|U_ulLnnqC"
            }
        }));
        let Isoline::Time(ti) = t.isoline else {
            panic!("time variant expected");
        };
        assert_eq!(ti.time.value, 900);
    }

    #[test]
    fn matrix_round_trips() {
        let c: MatrixCreateResponse = round_trip(json!({"matrix_id": "m1", "status": "accepted"}));
        assert_eq!(c.status, MatrixStatus::Accepted);
        let s: MatrixStatusResponse = round_trip(json!({"status": "inProgress"}));
        assert_eq!(s.status, MatrixStatus::InProgress);
        let r: MatrixResultResponse = round_trip(json!({
            "matrixId": "m1",
            "matrix": {
                "numOrigins": 2,
                "numDestinations": 2,
                "travelTimes": [0.0, 600.5, null, 0.0],
                "distances": [0.0, 8000.5, null, 0.0]
            },
            "regionDefinition": {"type": "world"}
        }));
        assert_eq!(r.matrix.index(1, 0), Some(2));
        assert_eq!(r.matrix.travel_times[2], None);
        assert_eq!(r.matrix.index(2, 0), None);
    }

    #[test]
    fn matrix_body() {
        let r = MatrixCreateRequest::from_parts(
            &pairs([("key", "k")]),
            &h(),
            &[],
            br#"{"origins":"48.85,2.35|45.76,4.84","destinations":"43.3,5.37","mode":"truck"}"#,
        )
        .unwrap();
        assert_eq!(r.origins.len(), 2);
        assert_eq!(r.element_count(), 2);
        assert_eq!(r.mode, TravelMode::Truck);
        let v = serde_json::to_value(&r).unwrap();
        assert_eq!(v["origins"], json!("48.85,2.35|45.76,4.84"));
        let back: MatrixCreateRequest = serde_json::from_value(v).unwrap();
        assert_eq!(back, r);

        let errs = MatrixCreateRequest::from_parts(
            &[],
            &h(),
            &[],
            br#"{"origins":"48.85,2.35|95,4","destinations":"1,1"}"#,
        )
        .unwrap_err();
        assert_errors(&errs, &[(json!(["body", "origins"]), kinds::COORDINATES)]);
        assert!(
            errs[0]
                .msg
                .starts_with("point 2: latitude must be between -90 and 90"),
            "{}",
            errs[0].msg
        );
        let errs =
            MatrixCreateRequest::from_parts(&[], &h(), &[], br#"{"origins":"1,1"}"#).unwrap_err();
        assert_errors(&errs, &[(json!(["body", "destinations"]), kinds::MISSING)]);
        let errs = parse_valid::<MatrixCreateRequest>(
            &[],
            &h(),
            &[],
            br#"{"origins":"1,1","destinations":"2,2","mode":"walking"}"#,
        )
        .unwrap_err();
        assert_errors(&errs, &[(json!(["body", "mode"]), kinds::ENUM)]);
        let errs = MatrixCreateRequest::from_parts(
            &[],
            &h(),
            &[],
            br#"{"origins":["1,1"],"destinations":"2,2"}"#,
        )
        .unwrap_err();
        assert_errors(&errs, &[(json!(["body", "origins"]), kinds::STR)]);
        let errs = MatrixCreateRequest::from_parts(
            &[],
            &h(),
            &[],
            br#"{"origins":"1,1","destinations":"2,2","departure_time":"now"}"#,
        )
        .unwrap_err();
        assert_errors(&errs, &[(json!(["body", "departure_time"]), kinds::EXTRA)]);
    }

    #[test]
    fn matrix_paths() {
        let r = MatrixStatusRequest::from_query(&[], &h(), &["m1".to_owned()]).unwrap();
        assert_eq!(r.matrix_id, "m1");
        let errs = MatrixResultRequest::from_query(&[], &h(), &[]).unwrap_err();
        assert_errors(&errs, &[(json!(["path", "matrix_id"]), kinds::MISSING)]);
    }

    #[test]
    fn route_query_full() {
        let q = pairs([
            ("origin", "48.85,2.35"),
            ("destination", "45.76,4.84"),
            ("mode", "walking"),
            ("method", "distance"),
            ("units", "imperial"),
            ("language", "ja"),
            ("avoid", "tolls|ferries|48.1,2.1;48.2,2.2;48.3,2.1"),
            ("departure_time", "now"),
            ("waypoints", "optimize:true|47.0,3.0|46.5,3.5"),
            ("details", "full"),
        ]);
        let r = RouteRequest::from_query(&q, &h(), &[]).unwrap();
        assert_eq!(r.mode, TravelMode::Walking);
        assert_eq!(r.method, RouteMethod::Distance);
        assert_eq!(r.units, Units::Imperial);
        assert_eq!(r.effective_language(), RouteLanguage::Ja);
        assert_eq!(r.avoid.len(), 3);
        assert_eq!(
            r.avoid[2],
            RouteAvoid::Polygon(vec![
                LatLng::new(48.1, 2.1),
                LatLng::new(48.2, 2.2),
                LatLng::new(48.3, 2.1)
            ])
        );
        assert_eq!(r.departure_time, Some(TrafficTime::Now));
        assert!(r.uses_traffic());
        assert!(r.waypoints.optimize);
        assert_eq!(r.waypoints.points.len(), 2);
        assert_eq!(r.details, DetailsLevel::Full);
        let back: RouteRequest = serde_json::from_value(serde_json::to_value(&r).unwrap()).unwrap();
        assert_eq!(back, r);
        let v = serde_json::to_value(RouteRequest {
            arrival_time: Some(TrafficTime::At(1_700_000_000)),
            ..r
        })
        .unwrap();
        assert_eq!(v["arrival_time"], json!(1_700_000_000));
    }

    #[test]
    fn route_query_defaults_and_language_fallback() {
        let q = pairs([("origin", "48.85,2.35"), ("destination", "45.76,4.84")]);
        let r = RouteRequest::from_query(&q, &h(), &[]).unwrap();
        assert_eq!(
            r,
            RouteRequest {
                origin: LatLng::new(48.85, 2.35),
                destination: LatLng::new(45.76, 4.84),
                ..Default::default()
            }
        );
        assert_eq!(r.effective_language(), RouteLanguage::En);
        let with_header = RouteRequest {
            accept_language: Some("xx, pt-BR;q=0.5, sv;q=0.8".into()),
            ..r.clone()
        };
        assert_eq!(with_header.effective_language(), RouteLanguage::Sv);
        let unsupported = RouteRequest {
            accept_language: Some("xx".into()),
            ..r
        };
        assert_eq!(unsupported.effective_language(), RouteLanguage::En);
    }

    #[test]
    fn route_query_errors_together() {
        let q = pairs([
            ("origin", "48.85;2.35"),
            ("destination", "45.76,190"),
            ("mode", "flying"),
            ("language", "xx"),
            ("avoid", "bridges"),
            ("arrival_time", "tomorrow"),
            ("alternatives", "yes"),
            ("details", "some"),
            ("waypoint", "1,1"),
            ("key", "pk"),
        ]);
        let errs = RouteRequest::from_query(&q, &h(), &[]).unwrap_err();
        assert_errors(
            &errs,
            &[
                (json!(["query", "origin"]), kinds::COORDINATES),
                (json!(["query", "destination"]), kinds::COORDINATES),
                (json!(["query", "mode"]), kinds::ENUM),
                (json!(["query", "language"]), kinds::ENUM),
                (json!(["query", "avoid"]), kinds::VALUE),
                (json!(["query", "arrival_time"]), kinds::INTEGER),
                (json!(["query", "alternatives"]), kinds::BOOL),
                (json!(["query", "details"]), kinds::ENUM),
                (json!(["query", "waypoint"]), kinds::EXTRA),
            ],
        );
        assert!(
            errs[1].msg.contains("between -180 and 180"),
            "{}",
            errs[1].msg
        );
        assert!(
            errs[8].msg.contains("`waypoints`"),
            "the message lists accepted names: {}",
            errs[8].msg
        );
    }

    #[test]
    fn route_rules() {
        let q = pairs([
            ("origin", "1,1"),
            ("destination", "2,2"),
            ("mode", "truck"),
            ("waypoints", "1.5,1.5"),
            ("alternatives", "true"),
            ("arrival_time", "1700000000"),
            ("departure_time", "now"),
        ]);
        let errs = parse_valid::<RouteRequest>(&q, &h(), &[], b"").unwrap_err();
        assert_errors(
            &errs,
            &[
                (json!(["query", "alternatives"]), kinds::VALUE),
                (json!(["query", "arrival_time"]), kinds::VALUE),
                (json!(["query", "mode"]), kinds::ENUM),
            ],
        );
        let errs = RouteRequest::from_query(
            &pairs([
                ("origin", "1,1"),
                ("destination", "2,2"),
                ("waypoints", "optimize:true"),
                ("avoid", "1,1;2,2"),
            ]),
            &h(),
            &[],
        )
        .unwrap_err();
        assert_errors(
            &errs,
            &[
                (json!(["query", "avoid"]), kinds::VALUE),
                (json!(["query", "waypoints"]), kinds::VALUE),
            ],
        );
    }

    #[test]
    fn tolls_and_isochrone_queries() {
        let q = pairs([("origin", "1,1"), ("destination", "2,2"), ("mode", "truck")]);
        let r = TollsRequest::from_query(&q, &h(), &[]).unwrap();
        assert_eq!(r.mode, TravelMode::Truck);
        let q = pairs([
            ("origin", "1,1"),
            ("destination", "2,2"),
            ("avoid", "tolls"),
            ("details", "full"),
        ]);
        let errs = TollsRequest::from_query(&q, &h(), &[]).unwrap_err();
        assert_errors(
            &errs,
            &[
                (json!(["query", "avoid"]), kinds::EXTRA),
                (json!(["query", "details"]), kinds::EXTRA),
            ],
        );

        let q = pairs([("origin", "1,1"), ("value", "15"), ("method", "time")]);
        let r = IsochroneRequest::from_query(&q, &h(), &[]).unwrap();
        assert_eq!(r.value, 15.0);
        let errs =
            IsochroneRequest::from_query(&pairs([("origin", "1,1")]), &h(), &[]).unwrap_err();
        assert_errors(&errs, &[(json!(["query", "value"]), kinds::MISSING)]);
        let errs = parse_valid::<IsochroneRequest>(
            &pairs([("origin", "1,1"), ("value", "-2")]),
            &h(),
            &[],
            b"",
        )
        .unwrap_err();
        assert_errors(&errs, &[(json!(["query", "value"]), kinds::VALUE)]);
        let errs =
            IsochroneRequest::from_query(&pairs([("origin", "1,1"), ("value", "abc")]), &h(), &[])
                .unwrap_err();
        assert_errors(&errs, &[(json!(["query", "value"]), kinds::FLOAT)]);
    }

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
