//! `GET /distance/isochrone/json`: [`IsochroneRequest`] and the isoline of the answer
//! ([`IsochroneResponse`], [`Isoline`]: time-based or distance-based).

use serde::{Deserialize, Serialize};

use super::{RouteAvoid, check_no_truck, parse_avoid, resolve_language};
use crate::api::common::{LatLng, NumberTextValue, TextValue};
use crate::api::query::FromQuery;
use crate::api::validation::{Checks, FieldError, Loc, Validate, kinds};
use crate::api::vocab::{DistanceStatus, RouteLanguage, RouteMethod, TravelMode, Units};

/// `GET /distance/isochrone/json` (K2; 10 per 1 s).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, FromQuery)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
    fn constraints() -> Vec<(&'static str, serde_json::Value)> {
        vec![
            ("value", crate::api::validation::rule::positive()),
            (
                "mode",
                crate::api::validation::rule::one_of(&["driving", "walking", "cycling"]),
            ),
        ]
    }

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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct DistanceIsoline {
    /// Centre.
    pub origin: LatLng,
    /// Reach: value in metres (the request gives kilometres), text in `units`.
    pub distance: NumberTextValue,
    /// Outline as an encoded polyline.
    pub geometry: String,
    /// Waymark extension: areas inside the outline that cannot be reached (a lake, a park
    /// without paths, a fenced site), each a closed ring as an encoded polyline (precision 5);
    /// left out when there are none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub holes: Vec<String>,
}

/// Not shown in the spec: the time-based isoline is `{origin, time: {value, text}, geometry}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct TimeIsoline {
    /// Centre.
    pub origin: LatLng,
    /// Reach: value in integer seconds (the request gives minutes), text for humans.
    pub time: TextValue,
    /// Outline as an encoded polyline.
    pub geometry: String,
    /// Waymark extension: areas inside the outline that cannot be reached (a lake, a park
    /// without paths, a fenced site), each a closed ring as an encoded polyline (precision 5);
    /// left out when there are none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub holes: Vec<String>,
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
    fn isochrone_query() {
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
}
