//! `GET /indoor/directions/{venue_id}`: [`IndoorDirectionsRequest`] and the indoor route of the
//! answer ([`IndoorDirectionsResponse`], [`IndoorRoute`], legs, steps, instructions).

use serde::{Deserialize, Serialize};

use super::{
    INDOOR_POINT_FORM, IndoorAvoidBox, IndoorLatLng, IndoorPoint, check_venue, default_language,
    parse_avoid_in, parse_indoor_point, parse_indoor_points,
};
use crate::api::common::{LatLng, NumberTextValue};
use crate::api::query::FromQuery;
use crate::api::validation::{Checks, FieldError, Loc, Validate, kinds};
use crate::api::vocab::Units;

/// `GET /indoor/directions/{venue_id}` (K2; 20 per 1 s). The routing configuration of the venue
/// must exist.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromQuery)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct IndoorDirectionsRequest {
    /// Path parameter.
    #[query(path)]
    pub venue_id: String,
    /// Required start.
    #[query(with = parse_indoor_point, form = INDOOR_POINT_FORM)]
    pub origin: IndoorPoint,
    /// Required end.
    #[query(with = parse_indoor_point, form = INDOOR_POINT_FORM)]
    pub destination: IndoorPoint,
    /// ISO 639-1 language of instructions. Default `en`.
    #[serde(default = "default_language")]
    pub language: String,
    /// Unit system. Default `metric` (other values: not shown in the spec; `imperial` is
    /// accepted).
    #[serde(default)]
    pub units: Units,
    /// Points to pass through, in order. Default: none.
    #[serde(default)]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    #[query(with = parse_indoor_points)]
    pub waypoints: Vec<IndoorPoint>,
    /// Reorders waypoints (applies only with waypoints). Default false.
    #[serde(default)]
    pub optimize: bool,
    /// Routing profile (values not shown in the spec; one of the venue's `routing_profiles`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    pub mode: Option<String>,
    /// Areas to avoid. Default: none.
    #[serde(default)]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    #[query(with = parse_avoid_in)]
    pub avoid_in: Vec<IndoorAvoidBox>,
    /// The walker is a customer (a Waymark extension): places for customers only
    /// (`access=customers`) are walked. Default false: routes keep out of them.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    #[cfg_attr(feature = "uniffi", uniffi(default = false))]
    pub customer: bool,
}

impl Default for IndoorDirectionsRequest {
    fn default() -> Self {
        Self {
            venue_id: String::new(),
            origin: IndoorPoint::default(),
            destination: IndoorPoint::default(),
            language: default_language(),
            units: Units::default(),
            waypoints: Vec::new(),
            optimize: false,
            mode: None,
            avoid_in: Vec::new(),
            customer: false,
        }
    }
}

impl Validate for IndoorDirectionsRequest {
    fn constraints() -> Vec<(&'static str, serde_json::Value)> {
        vec![("venue_id", crate::api::validation::rule::not_blank())]
    }

    fn validate(&self) -> Result<(), Vec<FieldError>> {
        let mut c = Checks::new();
        check_venue(&mut c, &self.venue_id);
        let points = [("origin", &self.origin), ("destination", &self.destination)];
        for (name, p) in points
            .into_iter()
            .chain(self.waypoints.iter().map(|w| ("waypoints", w)))
        {
            if let IndoorPoint::Coords { lat, lng, .. } = p {
                c.latlng(Loc::Query, name, &LatLng::new(*lat, *lng));
            }
        }
        for b in &self.avoid_in {
            c.check(b.corners.len() == 4, || {
                FieldError::invalid(
                    Loc::Query,
                    "avoid_in",
                    kinds::VALUE,
                    "a box needs four corners",
                )
            });
            for p in &b.corners {
                c.latlng(Loc::Query, "avoid_in", p);
            }
        }
        c.finish()
    }
}

fn default_ok() -> String {
    "ok".to_owned()
}

/// Answer of indoor directions: `{status, routes}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct IndoorDirectionsResponse {
    /// Default `ok`.
    #[serde(default = "default_ok")]
    pub status: String,
    /// Routes found.
    pub routes: Vec<IndoorRoute>,
}

impl Default for IndoorDirectionsResponse {
    fn default() -> Self {
        Self {
            status: default_ok(),
            routes: Vec::new(),
        }
    }
}

/// An indoor route.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct IndoorRoute {
    /// Four numbers `[west, south, east, north]`.
    pub bounds: Vec<f64>,
    /// One leg per pair of consecutive points.
    pub legs: Vec<IndoorLeg>,
}

/// A leg of an indoor route.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct IndoorLeg {
    /// Length, value in metres.
    pub distance: NumberTextValue,
    /// Time, value in seconds.
    pub duration: NumberTextValue,
    /// Start point.
    pub start_location: IndoorLatLng,
    /// End point.
    pub end_location: IndoorLatLng,
    /// Steps.
    pub steps: Vec<IndoorStep>,
    /// The input waypoint ending this leg, when waypoints were given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub waypoint: Option<String>,
}

/// A step of an indoor leg.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct IndoorStep {
    /// Length, value in metres.
    pub distance: NumberTextValue,
    /// Time, value in seconds.
    pub duration: NumberTextValue,
    /// POI at the step, when one exists.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub poi_id: Option<i64>,
    /// Bearing at the start, degrees.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bearing_start: Option<f64>,
    /// Bearing at the end, degrees.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bearing_end: Option<f64>,
    /// Start point.
    pub start_location: IndoorLatLng,
    /// End point.
    pub end_location: IndoorLatLng,
    /// Coordinate arrays of the path.
    pub polyline: Vec<Vec<f64>>,
    /// Instruction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instruction: Option<IndoorInstruction>,
    /// Routing profiles that may take the step.
    #[serde(default)]
    pub routing_profiles: Vec<String>,
}

/// Instruction of an indoor step.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct IndoorInstruction {
    /// Kind of instruction, e.g. `turn_left`.
    pub instruction_type: String,
    /// Text for humans.
    pub summary: String,
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::api::indoor::tests::venue;
    use crate::api::query::{RequestHeaders, pairs};
    use crate::api::testing::{assert_errors, round_trip};
    use crate::api::validation::kinds;
    use serde_json::json;

    #[test]
    fn directions_round_trip() {
        let r: IndoorDirectionsResponse = round_trip(json!({
            "status": "ok",
            "routes": [{
                "bounds": [2.25, 48.5, 2.5, 48.75],
                "legs": [{
                    "distance": {"value": 35.5, "text": "36 m"},
                    "duration": {"value": 30.5, "text": "1 min"},
                    "start_location": {"lat": 48.5, "lng": 2.25, "level": 0},
                    "end_location": {"lat": 48.75, "lng": 2.5, "level": 1},
                    "steps": [{
                        "distance": {"value": 10.5, "text": "11 m"},
                        "duration": {"value": 8.5, "text": "9 s"},
                        "poi_id": 7,
                        "bearing_start": 90.5,
                        "bearing_end": 180.5,
                        "start_location": {"lat": 48.5, "lng": 2.25, "level": 0},
                        "end_location": {"lat": 48.625, "lng": 2.375, "level": 0},
                        "polyline": [[2.25, 48.5], [2.375, 48.625]],
                        "instruction": {"instruction_type": "turn_left", "summary": "Turn left"},
                        "routing_profiles": ["default"]
                    }],
                    "waypoint": "ref:wc"
                }]
            }]
        }));
        assert_eq!(r.routes[0].legs[0].steps[0].poi_id, Some(7));
        let d: IndoorDirectionsResponse = serde_json::from_value(json!({"routes": []})).unwrap();
        assert_eq!(d.status, "ok");
    }

    #[test]
    fn directions_query() {
        let q = pairs([
            ("origin", "1"),
            ("destination", "48.5,2.25,0"),
            ("language", "fr"),
            ("units", "imperial"),
            ("optimize", "true"),
            ("mode", "wheelchair"),
            ("customer", "true"),
            (
                "avoid_in",
                "0;48.1,2.1;48.1,2.2;48.2,2.2;48.2,2.1|1;1,1;1,2;2,2;2,1",
            ),
        ]);
        let r =
            IndoorDirectionsRequest::from_query(&q, &RequestHeaders::default(), &venue()).unwrap();
        assert_eq!(r.units, Units::Imperial);
        assert!(r.optimize);
        assert!(r.customer);
        assert_eq!(r.avoid_in.len(), 2);
        assert_eq!(r.avoid_in[1].level, 1);
        assert_eq!(r.avoid_in[0].corners[3], LatLng::new(48.2, 2.1));

        let q = pairs([
            ("destination", "x"),
            ("avoid_in", "0;1,1;1,2"),
            ("optimize", "2"),
            ("customer", "yes please"),
        ]);
        let errs =
            IndoorDirectionsRequest::from_query(&q, &RequestHeaders::default(), &[]).unwrap_err();
        assert_errors(
            &errs,
            &[
                (json!(["path", "venue_id"]), kinds::MISSING),
                (json!(["query", "origin"]), kinds::MISSING),
                (json!(["query", "destination"]), kinds::VALUE),
                (json!(["query", "optimize"]), kinds::BOOL),
                (json!(["query", "avoid_in"]), kinds::VALUE),
                (json!(["query", "customer"]), kinds::BOOL),
            ],
        );
        assert!(errs[1].msg.contains("`ref:<poi_ref>`"), "{}", errs[1].msg);
    }
}
