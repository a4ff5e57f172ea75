//! The asynchronous distance matrix: `POST /distance/matrix/async` ([`MatrixCreateRequest`], the
//! JSON body), its status and its result ([`MatrixStatusRequest`], [`MatrixResultRequest`],
//! [`MatrixResult`]).

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use crate::api::common::LatLng;
use crate::api::query::{FromQuery, de_error};
use crate::api::validation::{Checks, FieldError, Loc, Validate, kinds, parse_latlng_list};
use crate::api::vocab::{MatrixStatus, TravelMode};

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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
#[serde(deny_unknown_fields)]
#[query(body)]
pub struct MatrixCreateRequest {
    /// Required origins (a string `lat,lng|lat,lng` on the wire).
    #[serde(with = "pipe_latlngs")]
    #[cfg_attr(feature = "schema", schemars(with = "String"))]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    #[cfg_attr(
        feature = "schema",
        schemars(regex(
            pattern = r"^\s*[-+]?[0-9.]+\s*,\s*[-+]?[0-9.]+\s*(?:\|\s*[-+]?[0-9.]+\s*,\s*[-+]?[0-9.]+\s*)*$"
        ))
    )]
    pub origins: Vec<LatLng>,
    /// Required destinations (a string `lat,lng|lat,lng` on the wire).
    #[serde(with = "pipe_latlngs")]
    #[cfg_attr(feature = "schema", schemars(with = "String"))]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    #[cfg_attr(
        feature = "schema",
        schemars(regex(
            pattern = r"^\s*[-+]?[0-9.]+\s*,\s*[-+]?[0-9.]+\s*(?:\|\s*[-+]?[0-9.]+\s*,\s*[-+]?[0-9.]+\s*)*$"
        ))
    )]
    pub destinations: Vec<LatLng>,
    /// `driving` (default) or `truck`.
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(extend("enum" = ["driving", "truck"])))]
    pub mode: TravelMode,
}

impl MatrixCreateRequest {
    /// Number of origin-destination pairs (compare with [`MAX_MATRIX_ELEMENTS`](super::MAX_MATRIX_ELEMENTS)).
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct MatrixStatusRequest {
    /// Path parameter.
    #[query(path)]
    pub matrix_id: String,
}

impl Validate for MatrixStatusRequest {
    fn constraints() -> Vec<(&'static str, serde_json::Value)> {
        vec![("matrix_id", crate::api::validation::rule::not_blank())]
    }

    fn validate(&self) -> Result<(), Vec<FieldError>> {
        check_matrix_id(&self.matrix_id)
    }
}

/// Answer of matrix status: `{status}`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct MatrixResultRequest {
    /// Path parameter.
    #[query(path)]
    pub matrix_id: String,
}

impl Validate for MatrixResultRequest {
    fn constraints() -> Vec<(&'static str, serde_json::Value)> {
        vec![("matrix_id", crate::api::validation::rule::not_blank())]
    }

    fn validate(&self) -> Result<(), Vec<FieldError>> {
        check_matrix_id(&self.matrix_id)
    }
}

/// Result of a matrix calculation.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
    use crate::api::query::{FromRequestParts, pairs};
    use crate::api::testing::headers as h;
    use crate::api::testing::{assert_errors, parse_valid, round_trip};
    use serde_json::json;

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
}
