//! The features of a dataset: `GET /datasets/{dataset_id}/features/{feature_id}`
//! ([`FeatureGetRequest`], with the `X-Field-Mask` header), attribute search
//! ([`FeatureSearchRequest`]) and spatial search ([`FeatureContainsRequest`]), both POST with a
//! JSON body.

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use super::{check_ids, check_paging, default_page, default_per_page, validate_ids};
use crate::api::common::{JsonObject, JsonValue, PageInfo};
use crate::api::query::{FromQuery, de_error};
use crate::api::validation::{Checks, FieldError, Loc, Validate, kinds, parse_list, shown};
use crate::api::vocab::DatasetFormat;

/// Parses `X-Field-Mask`. Not shown in the spec: its format. Waymark reads a comma-separated
/// list of field paths (`id,geometry,attributes.name`), each trimmed and non-empty; only the
/// listed fields are returned.
pub fn parse_field_mask(loc: Loc, name: &str, s: &str) -> Result<Vec<String>, FieldError> {
    parse_list(loc, name, s, ',')
}

/// `GET /datasets/{dataset_id}/features/{feature_id}` (K2; 20 per 1 s). 404 if the feature or
/// the dataset is unknown.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize, FromQuery)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
    fn constraints() -> Vec<(&'static str, serde_json::Value)> {
        vec![
            ("dataset_id", crate::api::validation::rule::not_blank()),
            ("feature_id", crate::api::validation::rule::not_blank()),
            ("x-field-mask", crate::api::validation::rule::header_list()),
        ]
    }

    fn validate(&self) -> Result<(), Vec<FieldError>> {
        validate_ids(&[
            ("dataset_id", &self.dataset_id),
            ("feature_id", &self.feature_id),
        ])
    }
}

/// A dataset feature (single-feature view).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
#[serde(deny_unknown_fields)]
pub struct FeatureSearchBody {
    /// Required attribute filter, `<attribute>:<comparison><number>` and more (grammar not
    /// shown in the spec; parsed by the engine).
    #[serde(rename = "where")]
    #[cfg_attr(feature = "schema", schemars(length(min = 1), regex(pattern = r"\S")))]
    pub filter: String,
}

impl Validate for FeatureSearchRequest {
    fn constraints() -> Vec<(&'static str, serde_json::Value)> {
        vec![
            ("dataset_id", crate::api::validation::rule::not_blank()),
            ("page", crate::api::validation::rule::min(1)),
            ("per_page", crate::api::validation::rule::min(1)),
        ]
    }

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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct FeatureSearchResponse {
    /// The features of the page.
    pub features: Vec<FeatureSummary>,
    /// Page information.
    pub pagination: PageInfo,
}

/// A feature in search results.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
    fn constraints() -> Vec<(&'static str, serde_json::Value)> {
        vec![("dataset_id", crate::api::validation::rule::not_blank())]
    }

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
    use crate::api::datasets::tests::{ID, path};
    use crate::api::query::{FromRequestParts, RequestHeaders, pairs};
    use crate::api::testing::{assert_errors, parse_valid, round_trip};
    use crate::api::validation::kinds;
    use serde_json::json;

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
