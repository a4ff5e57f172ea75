//! Datasets group (`/datasets`): datasets imported from a URL: list, read, update, import
//! status, feature lookup, attribute search and spatial search.
//!
//! | endpoint | request | response |
//! |---|---|---|
//! | `GET /datasets` | [`DatasetListRequest`] | [`DatasetListResponse`] |
//! | `GET /datasets/{dataset_id}` | [`DatasetGetRequest`] | [`DatasetGetResponse`] = [`Dataset`] |
//! | `PUT /datasets/{dataset_id}` | [`DatasetUpdateRequest`] | [`DatasetUpdateResponse`] = [`Dataset`] |
//! | `GET /datasets/{dataset_id}/status` | [`DatasetStatusRequest`] | [`DatasetStatusResponse`] = [`ImportRun`] |
//! | `GET /datasets/{dataset_id}/features/{feature_id}` | [`FeatureGetRequest`] | [`FeatureGetResponse`] = [`DatasetFeature`] |
//! | `POST /datasets/{dataset_id}/features/search` | [`FeatureSearchRequest`] | [`FeatureSearchResponse`] |
//! | `POST /datasets/{dataset_id}/features/contains` | [`FeatureContainsRequest`] | [`FeatureContainsResponse`] = [`FeatureSearchResponse`] |
//!
//! Date-times are RFC 3339 strings on the wire and [`chrono::DateTime<Utc>`] here (including
//! `updated_at` and `scheduled_for_deletion_after`, which the spec calls strings). Ids are kept
//! as strings: a malformed id is simply an unknown one (404), decided by the engine.
//!
//! POST/PUT requests hold their path and query parameters and a `body` field with the JSON body
//! type (which refuses unknown fields); `from_parts` builds them from the HTTP pieces.
//!
//! ```
//! use waymark_core::api::{FeatureSearchRequest, FromRequestParts, RequestHeaders, pairs};
//!
//! let req = FeatureSearchRequest::from_parts(
//!     &pairs([("per_page", "50")]),
//!     &RequestHeaders::default(),
//!     &["3f2b...".to_owned()],
//!     br#"{"where": "population:>1000"}"#,
//! )
//! .unwrap();
//! assert_eq!((req.per_page, req.page), (50, 1));
//! assert_eq!(req.body.filter, "population:>1000");
//! ```

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::common::PageInfo;
use super::query::FromQuery;
use super::validation::{Checks, FieldError, Loc, Validate, kinds, shown};
use super::vocab::{ImportStatus, ImportStepName, LogLevel};

mod features;

pub use features::*;

fn default_per_page() -> u32 {
    10
}

fn default_page() -> u32 {
    1
}

/// Checks `page` and `per_page` (both at least 1).
fn check_paging(c: &mut Checks, page: u32, per_page: u32) {
    for (name, v) in [("page", page), ("per_page", per_page)] {
        c.check(v >= 1, || {
            FieldError::invalid(
                Loc::Query,
                name,
                kinds::VALUE,
                format!("`{name}` must be at least 1, got {v}"),
            )
        });
    }
}

/// `GET /datasets` (K3; 1 per 1 s).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, FromQuery)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct DatasetListRequest {
    /// Datasets per page. Default 10.
    #[serde(default = "default_per_page")]
    pub per_page: u32,
    /// Page number (first page 1). Default 1.
    #[serde(default = "default_page")]
    pub page: u32,
}

impl Default for DatasetListRequest {
    fn default() -> Self {
        Self {
            per_page: default_per_page(),
            page: default_page(),
        }
    }
}

impl Validate for DatasetListRequest {
    fn constraints() -> Vec<(&'static str, serde_json::Value)> {
        vec![
            ("page", crate::api::validation::rule::min(1)),
            ("per_page", crate::api::validation::rule::min(1)),
        ]
    }

    fn validate(&self) -> Result<(), Vec<FieldError>> {
        let mut c = Checks::new();
        check_paging(&mut c, self.page, self.per_page);
        c.finish()
    }
}

/// Answer of the dataset list: `{datasets, pagination}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct DatasetListResponse {
    /// The datasets of the page.
    pub datasets: Vec<DatasetListItem>,
    /// Page information.
    pub pagination: PageInfo,
}

/// A dataset in the list (fewer fields than [`Dataset`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct DatasetListItem {
    /// Dataset id (uuid).
    pub id: String,
    /// Name.
    pub name: String,
    /// Creation time.
    pub created_at: DateTime<Utc>,
    /// Last update time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated_at: Option<DateTime<Utc>>,
    /// Time after which the dataset is removed automatically.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scheduled_for_deletion_after: Option<DateTime<Utc>>,
}

/// A dataset (single-dataset view).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct Dataset {
    /// Dataset id (uuid).
    pub id: String,
    /// Name.
    pub name: String,
    /// Location of the data to fetch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Key of the reimport hook.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reimport_key: Option<String>,
    /// Creation time.
    pub created_at: DateTime<Utc>,
    /// Last update time.
    pub updated_at: DateTime<Utc>,
    /// Time after which the dataset is removed automatically.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scheduled_for_deletion_after: Option<DateTime<Utc>>,
}

/// `GET /datasets/{dataset_id}` (K3; 1 per 1 s). 404 if unknown.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize, FromQuery)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct DatasetGetRequest {
    /// Path parameter.
    #[query(path)]
    pub dataset_id: String,
}

impl Validate for DatasetGetRequest {
    fn constraints() -> Vec<(&'static str, serde_json::Value)> {
        vec![("dataset_id", crate::api::validation::rule::not_blank())]
    }

    fn validate(&self) -> Result<(), Vec<FieldError>> {
        validate_ids(&[("dataset_id", &self.dataset_id)])
    }
}

/// Path ids must not be empty.
fn check_ids(c: &mut Checks, ids: &[(&str, &str)]) {
    for (name, id) in ids {
        c.check(!id.trim().is_empty(), || {
            FieldError::missing(Loc::Path, name)
        });
    }
}

/// Only the path ids to check.
fn validate_ids(ids: &[(&str, &str)]) -> Result<(), Vec<FieldError>> {
    let mut c = Checks::new();
    check_ids(&mut c, ids);
    c.finish()
}

/// Answer of `GET /datasets/{dataset_id}`: the [`Dataset`].
pub type DatasetGetResponse = Dataset;

/// `PUT /datasets/{dataset_id}` (K3; 1 per 1 s). 404 if unknown.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize, FromQuery)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct DatasetUpdateRequest {
    /// Path parameter.
    #[query(path)]
    pub dataset_id: String,
    /// The JSON body.
    #[query(body)]
    pub body: DatasetUpdateBody,
}

/// Body of a dataset update: `{name, url}`, both optional.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
#[serde(deny_unknown_fields)]
pub struct DatasetUpdateBody {
    /// New name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schemars(length(min = 1), regex(pattern = r"\S")))]
    pub name: Option<String>,
    /// New location of the data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(
        feature = "schema",
        schemars(regex(pattern = r"^(?:[Hh][Tt][Tt][Pp][Ss]?://|[Ff][Ii][Ll][Ee]:///)\S+$"))
    )]
    pub url: Option<String>,
}

impl Validate for DatasetUpdateRequest {
    fn constraints() -> Vec<(&'static str, serde_json::Value)> {
        vec![("dataset_id", crate::api::validation::rule::not_blank())]
    }

    /// `name`, when given, is not blank; `url`, when given, is an absolute `http`, `https` or
    /// `file` URL.
    fn validate(&self) -> Result<(), Vec<FieldError>> {
        let mut c = Checks::new();
        check_ids(&mut c, &[("dataset_id", &self.dataset_id)]);
        if let Some(name) = &self.body.name {
            c.check(!name.trim().is_empty(), || {
                FieldError::at(
                    Loc::Body,
                    vec![Value::from("name")],
                    kinds::VALUE,
                    "empty name: give a name or leave `name` out",
                )
            });
        }
        if let Some(url) = &self.body.url {
            check_url(&mut c, url);
        }
        c.finish()
    }
}

/// Answer of `PUT /datasets/{dataset_id}`: the updated [`Dataset`].
pub type DatasetUpdateResponse = Dataset;

/// URL schemes a dataset is fetched from.
pub const DATASET_URL_SCHEMES: &[&str] = &["http://", "https://", "file:///"];

/// `url` is an absolute `http`, `https` or `file` URL (schemes compared ignoring case).
fn check_url(c: &mut Checks, url: &str) {
    let ok = DATASET_URL_SCHEMES.iter().any(|s| {
        url.len() > s.len()
            && url
                .get(..s.len())
                .is_some_and(|p| p.eq_ignore_ascii_case(s))
    }) && !url.chars().any(char::is_whitespace);
    c.check(ok, || {
        FieldError::at(
            Loc::Body,
            vec![Value::from("url")],
            kinds::VALUE,
            format!(
                "invalid url {}: give an absolute http, https or file:/// url",
                shown(url)
            ),
        )
    });
}

/// `POST /datasets` (Waymark extension, K3; 1 per 1 s): creates a dataset and starts its
/// first import from `url`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize, FromQuery)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct DatasetCreateRequest {
    /// The JSON body.
    #[query(body)]
    pub body: DatasetCreateBody,
}

/// Body of a dataset creation: `{name, url, scheduled_for_deletion_after}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
#[serde(deny_unknown_fields)]
pub struct DatasetCreateBody {
    /// Name of the dataset (not blank).
    #[cfg_attr(feature = "schema", schemars(length(min = 1), regex(pattern = r"\S")))]
    pub name: String,
    /// Location of the data: `http://`, `https://` or `file:///` URL of a GeoJSON
    /// FeatureCollection, newline-delimited GeoJSON, CSV (lat/lng or WKT columns), GeoPackage
    /// or zipped Shapefile file. A GeoPackage with several feature tables needs the one to
    /// import named in the url's fragment, `.../city.gpkg#layer=hydrants` (one dataset per
    /// table); the fragment is not sent to the source.
    #[cfg_attr(
        feature = "schema",
        schemars(regex(pattern = r"^(?:[Hh][Tt][Tt][Pp][Ss]?://|[Ff][Ii][Ll][Ee]:///)\S+$"))
    )]
    pub url: String,
    /// Time after which the dataset is removed automatically (RFC 3339, in the future).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    pub scheduled_for_deletion_after: Option<DateTime<Utc>>,
}

impl Validate for DatasetCreateRequest {
    fn validate(&self) -> Result<(), Vec<FieldError>> {
        let mut c = Checks::new();
        c.check(!self.body.name.trim().is_empty(), || {
            FieldError::at(
                Loc::Body,
                vec![Value::from("name")],
                kinds::VALUE,
                "empty name: give the dataset a name",
            )
        });
        check_url(&mut c, &self.body.url);
        c.finish()
    }
}

/// Answer of `POST /datasets`: the new [`Dataset`] (its import runs in the background: poll
/// `GET /datasets/{dataset_id}/status`).
pub type DatasetCreateResponse = Dataset;

/// `DELETE /datasets/{dataset_id}` (Waymark extension, K3; 1 per 1 s): removes the dataset,
/// its features and its import history. 404 if unknown.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize, FromQuery)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct DatasetDeleteRequest {
    /// Path parameter.
    #[query(path)]
    pub dataset_id: String,
}

impl Validate for DatasetDeleteRequest {
    fn constraints() -> Vec<(&'static str, serde_json::Value)> {
        vec![("dataset_id", crate::api::validation::rule::not_blank())]
    }

    fn validate(&self) -> Result<(), Vec<FieldError>> {
        validate_ids(&[("dataset_id", &self.dataset_id)])
    }
}

/// Answer of `DELETE /datasets/{dataset_id}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct DatasetDeleteResponse {
    /// The removed dataset.
    pub id: String,
    /// `deleted`.
    pub status: String,
}

/// `GET /datasets/{dataset_id}/status` (K3; 1 per 5 s). 404 if unknown.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize, FromQuery)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct DatasetStatusRequest {
    /// Path parameter.
    #[query(path)]
    pub dataset_id: String,
}

impl Validate for DatasetStatusRequest {
    fn constraints() -> Vec<(&'static str, serde_json::Value)> {
        vec![("dataset_id", crate::api::validation::rule::not_blank())]
    }

    fn validate(&self) -> Result<(), Vec<FieldError>> {
        validate_ids(&[("dataset_id", &self.dataset_id)])
    }
}

/// Import status of a dataset: the latest import run. All fields are required.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct ImportRun {
    /// Id of the run (uuid).
    pub id: String,
    /// State of the run.
    pub status: ImportStatus,
    /// Steps ordered by start date.
    pub steps: Vec<ImportStep>,
}

/// A step of an import run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct ImportStep {
    /// `fetch` or `import`.
    pub name: ImportStepName,
    /// Start time.
    pub start: DateTime<Utc>,
    /// End time; `null` while the step is in progress (always present).
    pub end: Option<DateTime<Utc>>,
    /// State of the step.
    pub status: ImportStatus,
    /// Log of the step.
    pub entries: Vec<LogEntry>,
    /// Not shown in the spec: `fetch` only, bytes of the file downloaded so far (updated
    /// while the step runs; a resumed download counts the bytes it had).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    pub bytes_done: Option<u64>,
    /// Not shown in the spec: `fetch` only, the file's size when the source states it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    pub bytes_total: Option<u64>,
    /// Not shown in the spec: `import` only, features read so far (imported and skipped;
    /// updated while the step runs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    pub features_done: Option<u64>,
}

/// An entry of a step log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct LogEntry {
    /// Time of the entry.
    pub created_at: DateTime<Utc>,
    /// Message.
    pub detail: String,
    /// Severity.
    pub level: LogLevel,
}

/// Answer of `GET /datasets/{dataset_id}/status`: the [`ImportRun`].
pub type DatasetStatusResponse = ImportRun;

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::api::query::{FromRequestParts, RequestHeaders, pairs};
    use crate::api::testing::{assert_errors, parse_valid, round_trip};
    use crate::api::validation::kinds;
    use serde_json::json;

    /// A dataset id (also used by the tests of [`super::features`]).
    pub(super) const ID: &str = "6f1c2a3e-1111-4c2b-9c1d-0a1b2c3d4e5f";

    /// Path parameters from string slices.
    pub(super) fn path(ids: &[&str]) -> Vec<String> {
        ids.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn dataset_resources_round_trip() {
        let l: DatasetListResponse = round_trip(json!({
            "datasets": [{
                "id": ID,
                "name": "parcels",
                "created_at": "2024-01-02T03:04:05Z",
                "updated_at": "2024-02-02T03:04:05.250Z",
                "scheduled_for_deletion_after": "2025-01-01T00:00:00Z"
            }, {
                "id": "x",
                "name": "roads",
                "created_at": "2024-01-02T03:04:05Z"
            }],
            "pagination": {"next": 2, "page": 1}
        }));
        assert_eq!(l.pagination.next, Some(2));
        let d: DatasetGetResponse = round_trip(json!({
            "id": ID,
            "name": "parcels",
            "url": "https://example.org/parcels.geojson",
            "reimport_key": "rk",
            "created_at": "2024-01-02T03:04:05Z",
            "updated_at": "2024-01-03T03:04:05Z"
        }));
        assert_eq!(
            d.url.as_deref(),
            Some("https://example.org/parcels.geojson")
        );
        let s: DatasetStatusResponse = round_trip(json!({
            "id": "run-1",
            "status": "in_progress",
            "steps": [{
                "name": "fetch",
                "start": "2024-01-02T03:04:05Z",
                "end": "2024-01-02T03:05:05Z",
                "status": "success",
                "entries": [{"created_at": "2024-01-02T03:04:06Z", "detail": "downloaded 3 MB", "level": "info"}]
            }, {
                "name": "import",
                "start": "2024-01-02T03:05:06Z",
                "end": null,
                "status": "in_progress",
                "entries": [{"created_at": "2024-01-02T03:05:07Z", "detail": "row 7 skipped", "level": "warning"}]
            }]
        }));
        assert_eq!(s.steps[1].end, None);
        assert_eq!(s.steps[1].name, ImportStepName::Import);
    }

    #[test]
    fn simple_gets() {
        let h = RequestHeaders::default();
        let r = DatasetListRequest::from_query(&pairs([("page", "3")]), &h, &[]).unwrap();
        assert_eq!(
            r,
            DatasetListRequest {
                per_page: 10,
                page: 3
            }
        );
        let errs = parse_valid::<DatasetListRequest>(
            &pairs([("page", "0"), ("per_page", "5")]),
            &h,
            &[],
            b"",
        )
        .unwrap_err();
        assert_errors(&errs, &[(json!(["query", "page"]), kinds::VALUE)]);
        let r = DatasetGetRequest::from_query(&[], &h, &path(&[ID])).unwrap();
        assert_eq!(r.dataset_id, ID);
        let errs =
            DatasetStatusRequest::from_query(&pairs([("verbose", "1")]), &h, &[]).unwrap_err();
        assert_errors(
            &errs,
            &[
                (json!(["path", "dataset_id"]), kinds::MISSING),
                (json!(["query", "verbose"]), kinds::EXTRA),
            ],
        );
    }

    #[test]
    fn update_from_parts() {
        let h = RequestHeaders::default();
        let r =
            DatasetUpdateRequest::from_parts(&[], &h, &path(&[ID]), br#"{"name":"new"}"#).unwrap();
        assert_eq!(r.body.name.as_deref(), Some("new"));
        assert_eq!(r.body.url, None);
        let r = DatasetUpdateRequest::from_parts(&[], &h, &path(&[ID]), b"{}").unwrap();
        assert_eq!(r.body, DatasetUpdateBody::default());
        let errs =
            DatasetUpdateRequest::from_parts(&[], &h, &path(&[ID]), br#"{"name":"n","colour":1}"#)
                .unwrap_err();
        assert_errors(&errs, &[(json!(["body", "colour"]), kinds::EXTRA)]);
        let errs = parse_valid::<DatasetUpdateRequest>(
            &[],
            &h,
            &path(&[ID]),
            br#"{"name":" ","url":"ftp://x"}"#,
        )
        .unwrap_err();
        assert_errors(
            &errs,
            &[
                (json!(["body", "name"]), kinds::VALUE),
                (json!(["body", "url"]), kinds::VALUE),
            ],
        );
        let errs =
            DatasetUpdateRequest::from_parts(&pairs([("x", "1")]), &h, &[], br#"{"name":5}"#)
                .unwrap_err();
        assert_errors(
            &errs,
            &[
                (json!(["path", "dataset_id"]), kinds::MISSING),
                (json!(["query", "x"]), kinds::EXTRA),
                (json!(["body", "name"]), kinds::STR),
            ],
        );
    }
}
