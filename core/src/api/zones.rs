//! Zones group (`/zones`): batch update of zone polygons attached to assets.
//!
//! | endpoint | request | response |
//! |---|---|---|
//! | `PUT /zones` | [`ZonesUpdateRequest`] (the JSON body) | [`ZonesUpdateResponse`] |
//!
//! The request is the body itself, `{zones: [zone]}`; unknown fields are refused. Every
//! `zone_id` must already exist, otherwise the engine refuses the whole batch. A body that is
//! not JSON at all is answered with 400 `{status, value}` in this group (see
//! [`FieldError::is_json_decode`]).
//!
//! ```
//! use waymark_core::api::{FromRequestParts, RequestHeaders, ZonesUpdateRequest};
//!
//! let body = br#"{"zones":[{"zone_id":"z1","store_id":"S1","polygon":"POLYGON((0 0,1 0,1 1,0 0))"}]}"#;
//! let req = ZonesUpdateRequest::from_parts(&[], &RequestHeaders::default(), &[], body).unwrap();
//! assert_eq!(req.zones[0].store_id, "S1");
//! ```

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::query::FromQuery;
use super::validation::{Checks, FieldError, Loc, Validate, kinds, shown};

/// `PUT /zones` (private key by `private_key` only): the JSON body `{zones: [zone]}` (the query
/// may only hold credentials).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, FromQuery)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
#[serde(deny_unknown_fields)]
#[query(body)]
pub struct ZonesUpdateRequest {
    /// The zones to update (at least one).
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    #[cfg_attr(feature = "schema", schemars(length(min = 1)))]
    pub zones: Vec<Zone>,
}

impl Validate for ZonesUpdateRequest {
    /// At least one zone; every `zone_id` non-empty and unique in the batch; every `store_id`
    /// matching `[A-Za-z0-9]+`; every `polygon` non-empty (its WKT is parsed by the engine).
    fn validate(&self) -> Result<(), Vec<FieldError>> {
        let mut c = Checks::new();
        c.check(!self.zones.is_empty(), || {
            FieldError::at(
                Loc::Body,
                vec![Value::from("zones")],
                kinds::VALUE,
                "empty batch: give at least one zone",
            )
        });
        for (i, z) in self.zones.iter().enumerate() {
            let at = |field: &str| vec![Value::from("zones"), Value::from(i), Value::from(field)];
            c.check(!z.zone_id.trim().is_empty(), || {
                FieldError::at(
                    Loc::Body,
                    at("zone_id"),
                    kinds::VALUE,
                    "empty `zone_id`: give the id of an existing zone",
                )
            });
            c.check(
                self.zones[..i]
                    .iter()
                    .all(|other| other.zone_id != z.zone_id),
                || {
                    FieldError::at(
                        Loc::Body,
                        at("zone_id"),
                        kinds::VALUE,
                        format!(
                            "duplicate zone_id {}: give each zone once per batch",
                            shown(&z.zone_id)
                        ),
                    )
                },
            );
            c.check(
                !z.store_id.is_empty() && z.store_id.bytes().all(|b| b.is_ascii_alphanumeric()),
                || {
                    FieldError::at(
                        Loc::Body,
                        at("store_id"),
                        kinds::VALUE,
                        format!(
                            "invalid store_id {}: use letters and digits only (`[A-Za-z0-9]+`)",
                            shown(&z.store_id)
                        ),
                    )
                },
            );
            c.check(!z.polygon.trim().is_empty(), || {
                FieldError::at(
                    Loc::Body,
                    at("polygon"),
                    kinds::VALUE,
                    "empty polygon: give a well-known text geometry",
                )
            });
        }
        c.finish()
    }
}

/// A zone of an update batch.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
#[serde(deny_unknown_fields)]
pub struct Zone {
    /// Unique id of the zone (must already exist).
    #[cfg_attr(feature = "schema", schemars(length(min = 1), regex(pattern = r"\S")))]
    pub zone_id: String,
    /// Description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Id of the asset the zone belongs to; `[A-Za-z0-9]+`.
    #[cfg_attr(feature = "schema", schemars(regex(pattern = r"^[A-Za-z0-9]+$")))]
    pub store_id: String,
    /// Well-Known Text geometry; may be complex or multipart.
    #[cfg_attr(feature = "schema", schemars(length(min = 1), regex(pattern = r"\S")))]
    pub polygon: String,
    /// Types of the zone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub types: Option<Vec<String>>,
    /// Status of the zone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
}

/// Answer of a zones update: `{status, message}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct ZonesUpdateResponse {
    /// Outcome, e.g. `success`.
    pub status: String,
    /// Human message, e.g. `2 zones updated`.
    pub message: String,
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::api::query::pairs;
    use crate::api::query::{FromRequestParts, RequestHeaders};
    use crate::api::testing::{assert_errors, parse_valid, round_trip};
    use serde_json::json;

    fn parts(
        query: &[(String, String)],
        body: &str,
    ) -> Result<ZonesUpdateRequest, Vec<FieldError>> {
        ZonesUpdateRequest::from_parts(query, &RequestHeaders::default(), &[], body.as_bytes())
    }

    /// [`parts`], then the request's rules (as the engine runs them).
    fn valid_parts(
        query: &[(String, String)],
        body: &str,
    ) -> Result<ZonesUpdateRequest, Vec<FieldError>> {
        parse_valid(query, &RequestHeaders::default(), &[], body.as_bytes())
    }

    #[test]
    fn round_trips() {
        let r: ZonesUpdateRequest = round_trip(json!({
            "zones": [{
                "zone_id": "z1",
                "description": "delivery area",
                "store_id": "S1",
                "polygon": "MULTIPOLYGON(((0 0,1 0,1 1,0 0)))",
                "types": ["delivery"],
                "status": "active"
            }, {
                "zone_id": "z2",
                "store_id": "S2",
                "polygon": "POLYGON((0 0,1 0,1 1,0 0))"
            }]
        }));
        assert_eq!(r.zones[1].types, None);
        let _: ZonesUpdateResponse =
            round_trip(json!({"status": "success", "message": "2 zones updated"}));
    }

    #[test]
    fn from_parts_reports_query_and_body_together() {
        let errs = parts(
            &pairs([("private_key", "k"), ("dry_run", "1")]),
            r#"{"zones":[{"zone_id":"z"}]}"#,
        )
        .unwrap_err();
        assert_errors(
            &errs,
            &[
                (json!(["query", "dry_run"]), kinds::EXTRA),
                (json!(["body", "zones", 0, "store_id"]), kinds::MISSING),
            ],
        );
        let errs = parts(
            &[],
            r#"{"zones":[{"zone_id":"z","store_id":"S","polygon":"P","colour":"red"}]}"#,
        )
        .unwrap_err();
        assert_errors(
            &errs,
            &[(json!(["body", "zones", 0, "colour"]), kinds::EXTRA)],
        );
        let errs = parts(&[], "zones=1").unwrap_err();
        assert!(errs[0].is_json_decode());
        let errs = parts(&[], "").unwrap_err();
        assert_errors(&errs, &[(json!(["body"]), kinds::MISSING)]);
    }

    #[test]
    fn rules() {
        let errs = valid_parts(
            &[],
            r#"{"zones":[
                {"zone_id":"a","store_id":"S-1","polygon":"POLYGON((0 0,1 0,1 1,0 0))"},
                {"zone_id":"a","store_id":"S2","polygon":" "}
            ]}"#,
        )
        .unwrap_err();
        assert_errors(
            &errs,
            &[
                (json!(["body", "zones", 0, "store_id"]), kinds::VALUE),
                (json!(["body", "zones", 1, "zone_id"]), kinds::VALUE),
                (json!(["body", "zones", 1, "polygon"]), kinds::VALUE),
            ],
        );
        assert!(errs[0].msg.contains("[A-Za-z0-9]+"));
        let errs = valid_parts(&[], r#"{"zones":[]}"#).unwrap_err();
        assert_errors(&errs, &[(json!(["body", "zones"]), kinds::VALUE)]);
    }
}
