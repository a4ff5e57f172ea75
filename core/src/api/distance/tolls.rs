//! `GET /distance/tolls/json`: [`TollsRequest`] (the route parameters without `avoid` and
//! `details`) and the toll routes of the answer ([`TollsResponse`], [`TollRoute`], [`Toll`],
//! [`Fare`], ...).

use serde::{Deserialize, Serialize};

use super::{
    TrafficTime, Waypoints, check_trip, parse_traffic_time, parse_waypoints, resolve_language,
};
use crate::api::common::{EncodedPolyline, LatLng, TextValue, Viewport};
use crate::api::query::FromQuery;
use crate::api::validation::{Checks, FieldError, Validate};
use crate::api::vocab::{DistanceStatus, RouteLanguage, RouteMethod, TravelMode, Units};

/// `GET /distance/tolls/json` (K2; 5 per 1 s): route parameters without `avoid` and `details`;
/// `mode` adds `truck`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, FromQuery)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
    fn constraints() -> Vec<(&'static str, serde_json::Value)> {
        vec![
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
        c.finish()
    }
}

/// Answer of tolls: `{status, routes}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct Transponder {
    /// Name of the system.
    pub system: String,
}

/// A toll collection point.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct TollCollectionLocation {
    /// Name of the point.
    pub name: String,
    /// Its location.
    pub location: LatLng,
}

/// A toll system of a leg.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct LegTollSystem {
    /// System id.
    pub id: i64,
    /// System name.
    pub name: String,
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::api::query::pairs;
    use crate::api::testing::headers as h;
    use crate::api::testing::{assert_errors, round_trip};
    use crate::api::validation::kinds;
    use serde_json::json;

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
    fn tolls_query() {
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
    }
}
