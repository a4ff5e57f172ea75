//! `GET /distance/route/json`: [`RouteRequest`] and the route answer ([`RouteResponse`],
//! [`Route`], [`RouteLeg`], [`RouteStep`]).

use serde::{Deserialize, Serialize};

use super::{
    RouteAvoid, TrafficTime, Waypoints, check_no_truck, check_trip, parse_avoid,
    parse_traffic_time, parse_waypoints, resolve_language,
};
use crate::api::common::{EncodedPolyline, LatLng, TextValue, Viewport};
use crate::api::query::FromQuery;
use crate::api::validation::{Checks, FieldError, Loc, Validate, kinds};
use crate::api::vocab::{
    DetailsLevel, DistanceStatus, RouteLanguage, RouteMethod, TravelMode, Units,
};

/// `GET /distance/route/json` (K2; 10 per 1 s, 20 per 1 s with `arrival_time` or
/// `departure_time`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, FromQuery)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
    fn constraints() -> Vec<(&'static str, serde_json::Value)> {
        vec![
            (
                "mode",
                crate::api::validation::rule::one_of(&["driving", "walking", "cycling"]),
            ),
            ("avoid", crate::api::validation::rule::list('|')),
            ("arrival_time", crate::api::validation::rule::traffic_time()),
            (
                "departure_time",
                crate::api::validation::rule::traffic_time(),
            ),
        ]
    }

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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::api::query::pairs;
    use crate::api::testing::headers as h;
    use crate::api::testing::{assert_errors, parse_valid, round_trip};
    use serde_json::json;

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
}
