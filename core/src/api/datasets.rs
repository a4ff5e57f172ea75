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
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use super::common::{JsonObject, JsonValue, PageInfo};
use super::query::{FromQuery, de_error};
use super::validation::{Checks, FieldError, Loc, Validate, kinds, parse_list, shown};
use super::vocab::{DatasetFormat, ImportStatus, ImportStepName, LogLevel};

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
    fn validate(&self) -> Result<(), Vec<FieldError>> {
        let mut c = Checks::new();
        check_paging(&mut c, self.page, self.per_page);
        c.finish()
    }
}

/// Answer of the dataset list: `{datasets, pagination}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct DatasetListResponse {
    /// The datasets of the page.
    pub datasets: Vec<DatasetListItem>,
    /// Page information.
    pub pagination: PageInfo,
}

/// A dataset in the list (fewer fields than [`Dataset`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct DatasetGetRequest {
    /// Path parameter.
    #[query(path)]
    pub dataset_id: String,
}

impl Validate for DatasetGetRequest {
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
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
#[serde(deny_unknown_fields)]
pub struct DatasetUpdateBody {
    /// New name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// New location of the data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

impl Validate for DatasetUpdateRequest {
    /// `name`, when given, is not blank; `url`, when given, is an absolute `http`/`https` URL.
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
            let ok = ["http://", "https://"].iter().any(|s| {
                url.len() > s.len()
                    && url
                        .get(..s.len())
                        .is_some_and(|p| p.eq_ignore_ascii_case(s))
            });
            c.check(ok, || {
                FieldError::at(
                    Loc::Body,
                    vec![Value::from("url")],
                    kinds::VALUE,
                    format!(
                        "invalid url {}: give an absolute http or https url",
                        shown(url)
                    ),
                )
            });
        }
        c.finish()
    }
}

/// Answer of `PUT /datasets/{dataset_id}`: the updated [`Dataset`].
pub type DatasetUpdateResponse = Dataset;

/// `GET /datasets/{dataset_id}/status` (K3; 1 per 5 s). 404 if unknown.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize, FromQuery)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct DatasetStatusRequest {
    /// Path parameter.
    #[query(path)]
    pub dataset_id: String,
}

impl Validate for DatasetStatusRequest {
    fn validate(&self) -> Result<(), Vec<FieldError>> {
        validate_ids(&[("dataset_id", &self.dataset_id)])
    }
}

/// Import status of a dataset: the latest import run. All fields are required.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
}

/// An entry of a step log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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

/// Parses `X-Field-Mask`. Not shown in the spec: its format. Waymark reads a comma-separated
/// list of field paths (`id,geometry,attributes.name`), each trimmed and non-empty; only the
/// listed fields are returned.
pub fn parse_field_mask(loc: Loc, name: &str, s: &str) -> Result<Vec<String>, FieldError> {
    parse_list(loc, name, s, ',')
}

/// `GET /datasets/{dataset_id}/features/{feature_id}` (K2; 20 per 1 s). 404 if the feature or
/// the dataset is unknown.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize, FromQuery)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct FeatureGetRequest {
    /// Path parameter.
    #[query(path)]
    pub dataset_id: String,
    /// Path parameter.
    #[query(path)]
    pub feature_id: String,
    /// Geometry format. Default `geojson`.
    #[serde(default)]
    pub format: DatasetFormat,
    /// Header `X-Field-Mask`: field paths to return (see [`parse_field_mask`]); all when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    #[query(header, with = parse_field_mask)]
    pub x_field_mask: Option<Vec<String>>,
}

impl Validate for FeatureGetRequest {
    fn validate(&self) -> Result<(), Vec<FieldError>> {
        validate_ids(&[
            ("dataset_id", &self.dataset_id),
            ("feature_id", &self.feature_id),
        ])
    }
}

/// A dataset feature (single-feature view).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct DatasetFeature {
    /// Feature id (uuid).
    pub id: String,
    /// A base64 WKB string (`format=wkb`), or a Point, LineString, Polygon, MultiPoint,
    /// MultiLineString or MultiPolygon GeoJSON geometry.
    pub geometry: JsonValue,
    /// Free-form attributes.
    pub attributes: JsonObject,
}

/// Answer of `GET /datasets/{dataset_id}/features/{feature_id}`: the [`DatasetFeature`].
pub type FeatureGetResponse = DatasetFeature;

/// `POST /datasets/{dataset_id}/features/search` (K2; 20 per 1 s): attribute search.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromQuery)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct FeatureSearchRequest {
    /// Path parameter.
    #[query(path)]
    pub dataset_id: String,
    /// Geometry format. Default `geojson`.
    #[serde(default)]
    pub format: DatasetFormat,
    /// Features per page. Default 10.
    #[serde(default = "default_per_page")]
    pub per_page: u32,
    /// Page number (first page 1). Default 1.
    #[serde(default = "default_page")]
    pub page: u32,
    /// The JSON body.
    #[query(body)]
    pub body: FeatureSearchBody,
}

impl Default for FeatureSearchRequest {
    fn default() -> Self {
        Self {
            dataset_id: String::new(),
            format: DatasetFormat::default(),
            per_page: default_per_page(),
            page: default_page(),
            body: FeatureSearchBody::default(),
        }
    }
}

/// Body of a feature search: `{where}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
#[serde(deny_unknown_fields)]
pub struct FeatureSearchBody {
    /// Required attribute filter, `<attribute>:<comparison><number>` and more (grammar not
    /// shown in the spec; parsed by the engine).
    #[serde(rename = "where")]
    pub filter: String,
}

impl Validate for FeatureSearchRequest {
    fn validate(&self) -> Result<(), Vec<FieldError>> {
        let mut c = Checks::new();
        check_ids(&mut c, &[("dataset_id", &self.dataset_id)]);
        check_paging(&mut c, self.page, self.per_page);
        c.check(!self.body.filter.trim().is_empty(), || {
            FieldError::at(
                Loc::Body,
                vec![Value::from("where")],
                kinds::VALUE,
                "empty filter: give `<attribute>:<comparison><value>`",
            )
        });
        c.finish()
    }
}

/// Answer of feature search and contains: `{features, pagination}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct FeatureSearchResponse {
    /// The features of the page.
    pub features: Vec<FeatureSummary>,
    /// Page information.
    pub pagination: PageInfo,
}

/// A feature in search results.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct FeatureSummary {
    /// Feature id (uuid).
    pub id: String,
    /// A base64 WKB string, or a Polygon or Point GeoJSON geometry.
    pub geometry: JsonValue,
    /// Free-form attributes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attributes: Option<JsonObject>,
}

/// `POST /datasets/{dataset_id}/features/contains` (K2; 20 per 1 s): features whose geometry
/// contains the given geometry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromQuery)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct FeatureContainsRequest {
    /// Path parameter.
    #[query(path)]
    pub dataset_id: String,
    /// Geometry format. Default `geojson`.
    #[serde(default)]
    pub format: DatasetFormat,
    /// Features per page. Default 10.
    #[serde(default = "default_per_page")]
    pub per_page: u32,
    /// Page number (first page 1). Default 1.
    #[serde(default = "default_page")]
    pub page: u32,
    /// The JSON body.
    #[query(body)]
    pub body: FeatureContainsBody,
}

impl Default for FeatureContainsRequest {
    fn default() -> Self {
        Self {
            dataset_id: String::new(),
            format: DatasetFormat::default(),
            per_page: default_per_page(),
            page: default_page(),
            body: FeatureContainsBody::default(),
        }
    }
}

/// Body of a contains search: `{geometry, buffer, where}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
#[serde(deny_unknown_fields)]
pub struct FeatureContainsBody {
    /// Required geometry.
    pub geometry: InputGeometry,
    /// Buffer applied to the input geometry (metres, not negative).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffer: Option<f64>,
    /// Attribute filter, as `where` of search.
    #[serde(rename = "where", default, skip_serializing_if = "Option::is_none")]
    pub filter: Option<String>,
}

/// A geometry given in a body: a GeoJSON Point, LineString or Polygon object, or a string
/// holding Well-Known Text, a Google-style encoded polyline or a bare `lat,lng` (the engine
/// tells the string forms apart).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Enum))]
#[serde(untagged)]
pub enum InputGeometry {
    /// WKT, encoded polyline or `lat,lng`.
    Text(String),
    /// A GeoJSON geometry object.
    GeoJson(JsonObject),
}

impl Default for InputGeometry {
    fn default() -> Self {
        Self::Text(String::new())
    }
}

impl<'de> Deserialize<'de> for InputGeometry {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        match Value::deserialize(deserializer)? {
            Value::String(s) => Ok(Self::Text(s)),
            Value::Object(map) => Ok(Self::GeoJson(JsonObject(map))),
            other => Err(de_error(FieldError::new(
                vec![],
                kinds::VALUE,
                format!(
                    "invalid geometry {}: give a geojson point, linestring or polygon object, or a string (wkt, encoded polyline or `lat,lng`)",
                    shown(&other.to_string())
                ),
            ))),
        }
    }
}

/// GeoJSON geometry types accepted as input of contains.
pub const CONTAINS_GEOJSON_TYPES: &[&str] = &["Point", "LineString", "Polygon"];

impl Validate for FeatureContainsRequest {
    /// Paging; a non-empty geometry string or a GeoJSON object whose `type` is Point,
    /// LineString or Polygon and which has `coordinates`; a finite, non-negative `buffer`.
    fn validate(&self) -> Result<(), Vec<FieldError>> {
        let mut c = Checks::new();
        check_ids(&mut c, &[("dataset_id", &self.dataset_id)]);
        check_paging(&mut c, self.page, self.per_page);
        let geometry = |path: &[&str]| {
            let mut p = vec![Value::from("geometry")];
            p.extend(path.iter().map(|s| Value::from(*s)));
            p
        };
        match &self.body.geometry {
            InputGeometry::Text(s) => c.check(!s.trim().is_empty(), || {
                FieldError::at(
                    Loc::Body,
                    geometry(&[]),
                    kinds::VALUE,
                    "empty geometry: give wkt, an encoded polyline, `lat,lng` or a geojson object",
                )
            }),
            InputGeometry::GeoJson(o) => {
                let kind = o.get("type").and_then(Value::as_str);
                c.check(kind.is_some_and(|k| CONTAINS_GEOJSON_TYPES.contains(&k)), || {
                    FieldError::at(
                        Loc::Body,
                        geometry(&["type"]),
                        kinds::ENUM,
                        format!(
                            "unsupported geojson type {}: expected one of `Point`, `LineString`, `Polygon`",
                            shown(&o.get("type").map(Value::to_string).unwrap_or_else(|| "none".to_owned()))
                        ),
                    )
                });
                c.check(o.get("coordinates").is_some_and(Value::is_array), || {
                    FieldError::at(
                        Loc::Body,
                        geometry(&["coordinates"]),
                        kinds::MISSING,
                        "field required: give `coordinates` as a geojson coordinate array",
                    )
                });
            }
        }
        if let Some(b) = self.body.buffer {
            c.check(b.is_finite() && b >= 0.0, || {
                FieldError::at(
                    Loc::Body,
                    vec![Value::from("buffer")],
                    kinds::VALUE,
                    format!("buffer must be a finite number of metres, 0 or more, got {b}"),
                )
            });
        }
        c.finish()
    }
}

/// Answer of contains: the same shape as search.
pub type FeatureContainsResponse = FeatureSearchResponse;

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::api::query::{FromRequestParts, RequestHeaders, pairs};
    use crate::api::testing::{assert_errors, parse_valid, round_trip};
    use serde_json::json;

    const ID: &str = "6f1c2a3e-1111-4c2b-9c1d-0a1b2c3d4e5f";

    fn path(ids: &[&str]) -> Vec<String> {
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
    fn feature_resources_round_trip() {
        let f: FeatureGetResponse = round_trip(json!({
            "id": ID,
            "geometry": {"type": "MultiPolygon", "coordinates": [[[[0.5, 0.5], [1.5, 0.5], [1.5, 1.5], [0.5, 0.5]]]]},
            "attributes": {"name": "lot 4", "area": 12.5}
        }));
        assert_eq!(f.attributes.get("name"), Some(&json!("lot 4")));
        let s: FeatureSearchResponse = round_trip(json!({
            "features": [
                {"id": "a", "geometry": "AQEAAAAAAAAAAADwPwAAAAAAAPA/"},
                {"id": "b", "geometry": {"type": "Point", "coordinates": [2.5, 48.5]}, "attributes": {"k": 1}}
            ],
            "pagination": {"prev": 1, "next": 3, "page": 2}
        }));
        assert_eq!(s.features[0].attributes, None);
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
    fn feature_get_with_mask() {
        let h = RequestHeaders {
            accept_language: None,
            x_field_mask: Some("id, attributes.name".into()),
        };
        let r = FeatureGetRequest::from_query(&pairs([("format", "wkb")]), &h, &path(&[ID, "f1"]))
            .unwrap();
        assert_eq!(r.format, DatasetFormat::Wkb);
        assert_eq!(
            r.x_field_mask,
            Some(vec!["id".to_owned(), "attributes.name".to_owned()])
        );
        let h = RequestHeaders {
            accept_language: None,
            x_field_mask: Some("id,,x".into()),
        };
        let errs = FeatureGetRequest::from_query(&pairs([("format", "shp")]), &h, &path(&[ID]))
            .unwrap_err();
        assert_errors(
            &errs,
            &[
                (json!(["header", "x-field-mask"]), kinds::VALUE),
                (json!(["path", "feature_id"]), kinds::MISSING),
                (json!(["query", "format"]), kinds::ENUM),
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

    #[test]
    fn search_and_contains_from_parts() {
        let h = RequestHeaders::default();
        let errs =
            FeatureSearchRequest::from_parts(&pairs([("page", "x")]), &h, &path(&[ID]), b"{}")
                .unwrap_err();
        assert_errors(
            &errs,
            &[
                (json!(["query", "page"]), kinds::INTEGER),
                (json!(["body", "where"]), kinds::MISSING),
            ],
        );
        let r = FeatureContainsRequest::from_parts(
            &pairs([("format", "wkb")]),
            &h,
            &path(&[ID]),
            br#"{"geometry":{"type":"Point","coordinates":[2.3,48.8]},"buffer":10,"where":"kind:=1"}"#,
        )
        .unwrap();
        assert!(matches!(r.body.geometry, InputGeometry::GeoJson(_)));
        assert_eq!(r.body.filter.as_deref(), Some("kind:=1"));
        let r = FeatureContainsRequest::from_parts(
            &[],
            &h,
            &path(&[ID]),
            br#"{"geometry":"48.8,2.3"}"#,
        )
        .unwrap();
        assert_eq!(r.body.geometry, InputGeometry::Text("48.8,2.3".into()));
        let errs = FeatureContainsRequest::from_parts(&[], &h, &path(&[ID]), br#"{"geometry":5}"#)
            .unwrap_err();
        assert_errors(&errs, &[(json!(["body", "geometry"]), kinds::VALUE)]);
        assert!(
            errs[0].msg.starts_with("invalid geometry `5`"),
            "{}",
            errs[0].msg
        );
        let errs = parse_valid::<FeatureContainsRequest>(
            &[],
            &h,
            &path(&[ID]),
            br#"{"geometry":{"type":"MultiPoint"},"buffer":-1}"#,
        )
        .unwrap_err();
        assert_errors(
            &errs,
            &[
                (json!(["body", "geometry", "type"]), kinds::ENUM),
                (json!(["body", "geometry", "coordinates"]), kinds::MISSING),
                (json!(["body", "buffer"]), kinds::VALUE),
            ],
        );
        let body: FeatureContainsBody =
            round_trip(json!({"geometry": "POINT(1 2)", "buffer": 2.5, "where": "a:>1"}));
        assert_eq!(body.buffer, Some(2.5));
    }
}
