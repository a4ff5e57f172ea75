//! Zones group (`/zones`): batch update of zone polygons attached to assets.
//!
//! | endpoint | request | response |
//! |---|---|---|
//! | `PUT /zones` | [`ZonesUpdateRequest`] (the JSON body) | [`ZonesUpdateResponse`] |
//! | `POST /zones` (Waymark) | [`ZonesCreateRequest`] (the JSON body) | [`ZonesCreateResponse`] |
//! | `GET /zones/{zone_id}` (Waymark) | [`ZoneGetRequest`] | [`ZoneGetResponse`] |
//! | `GET /zones?store_id=...` (Waymark) | [`ZonesListRequest`] | [`ZonesListResponse`] |
//! | `DELETE /zones/{zone_id}` (Waymark) | [`ZoneDeleteRequest`] | [`ZoneDeleteResponse`] |
//! | `GET /zones/export` (Waymark) | [`ZonesExportRequest`] | [`ZonesExportResponse`] |
//!
//! The request is the body itself, `{zones: [zone]}`; unknown fields are refused. For `PUT`
//! every `zone_id` must already exist, for `POST` none may, otherwise the engine refuses the
//! whole batch. A body that is
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

use super::common::{JsonObject, PointGeometry};
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
        batch_rules(&self.zones)
    }
}

/// The rules of a batch of zones (`PUT` and `POST /zones`).
fn batch_rules(zones: &[Zone]) -> Result<(), Vec<FieldError>> {
    let mut c = Checks::new();
    c.check(!zones.is_empty(), || {
        FieldError::at(
            Loc::Body,
            vec![Value::from("zones")],
            kinds::VALUE,
            "empty batch: give at least one zone",
        )
    });
    for (i, z) in zones.iter().enumerate() {
        let at = |field: &str| vec![Value::from("zones"), Value::from(i), Value::from(field)];
        c.check(!z.zone_id.trim().is_empty(), || {
            FieldError::at(
                Loc::Body,
                at("zone_id"),
                kinds::VALUE,
                "empty `zone_id`: give the id of the zone",
            )
        });
        c.check(
            zones[..i].iter().all(|other| other.zone_id != z.zone_id),
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

/// `POST /zones` (Waymark extension, K3): creates zones, all or nothing, with the body of
/// `PUT /zones`. Every `zone_id` must be new (no installed pack or device zone has it).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, FromQuery)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
#[serde(deny_unknown_fields)]
#[query(body)]
pub struct ZonesCreateRequest {
    /// The zones to create (at least one).
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    pub zones: Vec<Zone>,
}

impl Validate for ZonesCreateRequest {
    /// The rules of [`ZonesUpdateRequest`].
    fn validate(&self) -> Result<(), Vec<FieldError>> {
        batch_rules(&self.zones)
    }
}

/// Answer of a zones creation: `{status, message}`.
pub type ZonesCreateResponse = ZonesUpdateResponse;

/// `GET /zones/{zone_id}` (Waymark extension, K2): one zone as it answers on this device.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, FromQuery)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct ZoneGetRequest {
    /// Id of the zone.
    #[query(path)]
    pub zone_id: String,
}

impl Validate for ZoneGetRequest {
    fn validate(&self) -> Result<(), Vec<FieldError>> {
        Ok(())
    }
}

/// Answer of `GET /zones/{zone_id}`.
pub type ZoneGetResponse = ZoneRecord;

/// `DELETE /zones/{zone_id}` (Waymark extension, K3): deletes a zone on this device (a pack's
/// zone is hidden by a deletion kept in the device's edits; a zone created on the device is
/// removed).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, FromQuery)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct ZoneDeleteRequest {
    /// Id of the zone.
    #[query(path)]
    pub zone_id: String,
}

impl Validate for ZoneDeleteRequest {
    fn validate(&self) -> Result<(), Vec<FieldError>> {
        Ok(())
    }
}

/// Answer of a zone deletion: `{status, message}`.
pub type ZoneDeleteResponse = ZonesUpdateResponse;

fn default_zones_by_page() -> u32 {
    10
}

fn default_page() -> u32 {
    1
}

/// The most zones per page of `GET /zones`.
pub const MAX_ZONES_BY_PAGE: u32 = 300;

/// `GET /zones?store_id=...` (Waymark extension, K2): the zones of a store as they answer on
/// this device, by `zone_id`, paged.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, FromQuery)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct ZonesListRequest {
    /// Id of the store whose zones to list.
    pub store_id: String,
    /// Zones per page, 1 to 300 (default 10).
    #[serde(default = "default_zones_by_page")]
    pub zones_by_page: u32,
    /// Page number, from 1 (default 1).
    #[serde(default = "default_page")]
    pub page: u32,
}

impl Default for ZonesListRequest {
    fn default() -> Self {
        ZonesListRequest {
            store_id: String::new(),
            zones_by_page: default_zones_by_page(),
            page: default_page(),
        }
    }
}

impl Validate for ZonesListRequest {
    fn constraints() -> Vec<(&'static str, serde_json::Value)> {
        vec![
            (
                "zones_by_page",
                crate::api::validation::rule::int_range(1, i64::from(MAX_ZONES_BY_PAGE)),
            ),
            ("page", crate::api::validation::rule::min(1)),
        ]
    }

    /// `zones_by_page` 1 to 300, `page` from 1.
    fn validate(&self) -> Result<(), Vec<FieldError>> {
        let mut c = Checks::new();
        c.check(
            (1..=MAX_ZONES_BY_PAGE).contains(&self.zones_by_page),
            || {
                FieldError::invalid(
                    Loc::Query,
                    "zones_by_page",
                    kinds::VALUE,
                    format!(
                        "`zones_by_page` must be 1 to {MAX_ZONES_BY_PAGE}, got {}",
                        self.zones_by_page
                    ),
                )
            },
        );
        c.check(self.page >= 1, || {
            FieldError::invalid(Loc::Query, "page", kinds::VALUE, "`page` counts from 1")
        });
        c.finish()
    }
}

/// Answer of `GET /zones`: the page of zones and the pagination.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct ZonesListResponse {
    /// The zones of this page, by `zone_id`.
    pub zones: Vec<ZoneRecord>,
    /// Page, page count and total.
    pub pagination: ZonesPagination,
}

/// Pagination of `GET /zones`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct ZonesPagination {
    /// This page, from 1.
    pub page: u32,
    /// Number of pages (0 when the store has no zone).
    #[serde(rename = "pageCount")]
    pub page_count: u32,
    /// Number of zones of the store.
    pub total: u32,
}

/// A zone as it answers on this device: the pack's, or the device's edit of it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct ZoneRecord {
    /// Unique id of the zone.
    pub zone_id: String,
    /// Id of the store the zone belongs to.
    pub store_id: String,
    /// Description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Well-Known Text `POLYGON` or `MULTIPOLYGON`, longitude first.
    pub polygon: String,
    /// Types of the zone.
    #[serde(default)]
    pub types: Vec<String>,
    /// Status of the zone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    /// `pack` (as the installed pack brings it) or `device` (created or updated on this
    /// device).
    pub origin: String,
    /// Whether the installed packs changed the zone since the device's edit was made: the
    /// edit answers until the zone is updated again.
    pub conflict: bool,
    /// The device's edit, when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub edit: Option<ZoneEditInfo>,
}

/// A zone edit of this device.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct ZoneEditInfo {
    /// The zone.
    pub zone_id: String,
    /// The store it belongs to.
    pub store_id: String,
    /// `created` (no pack had the zone when it was made), `updated` or `deleted`.
    pub change: String,
    /// Whether the installed packs changed the zone since the edit was made.
    pub conflict: bool,
    /// The pack the edit was made on (none for a zone no pack had).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub edit_pack_id: Option<String>,
    /// That pack's version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub edit_pack_version: Option<String>,
    /// The installed pack that carries the zone now, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pack_id: Option<String>,
    /// Its version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pack_version: Option<String>,
    /// When the edit was accepted (RFC 3339, UTC).
    pub updated_at: String,
}

/// `GET /zones/export` (Waymark extension, K3): the zone edits of this device.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize, FromQuery)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct ZonesExportRequest {
    /// Only the edits of this store's zones (default: every edit of the device).
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    pub store_id: Option<String>,
}

impl Validate for ZonesExportRequest {
    fn validate(&self) -> Result<(), Vec<FieldError>> {
        Ok(())
    }
}

/// Answer of `GET /zones/export`: a GeoJSON FeatureCollection in the stores format of
/// `waymark-packs import-stores`: one Point feature per store with a device edit, its
/// properties the store's fields and `zones` as they answer on this device; `edits` lists
/// every edit (created, updated, deleted) with its conflict state.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct ZonesExportResponse {
    /// Always `FeatureCollection`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The stores with a device edit.
    pub features: Vec<ZonesExportFeature>,
    /// Every edit of the device, by `zone_id`, as a zone (a deleted zone as it was deleted)
    /// with its edit and conflict state.
    pub edits: Vec<ZoneRecord>,
}

/// A store of the export.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct ZonesExportFeature {
    /// Always `Feature`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The store's position.
    pub geometry: PointGeometry,
    /// The store's fields in the import format, with its `zones`.
    pub properties: JsonObject,
    /// The ids of this store's zones whose device edit is in conflict (a newer pack changed
    /// the zone since the edit was made; deleted zones included), by `zone_id`: a foreign
    /// member of the Feature, which the import ignores, for the publisher to review.
    pub conflicts: Vec<String>,
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
