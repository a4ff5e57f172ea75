//! `GET /indoor/venues/{venue_id}/pois/search`: [`PoiSearchRequest`] and the venue features
//! of the answer ([`PoiSearchResponse`], [`IndoorFeature`]).

use serde::{Deserialize, Serialize};

use super::{IndoorLatLng, check_venue, default_language, parse_indoor_latlng};
use crate::api::common::{JsonObject, JsonValue, LatLng};
use crate::api::query::FromQuery;
use crate::api::validation::{Checks, FieldError, Loc, Validate, kinds, parse_list, shown};
use crate::api::vocab::PoiSearchExtended;

/// `GET /indoor/venues/{venue_id}/pois/search` (K2; 30 per 1 s): full-text search of venue
/// features by name or description.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromQuery)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct PoiSearchRequest {
    /// Path parameter.
    #[query(path)]
    pub venue_id: String,
    /// Features per page; 0 (the default) means no pagination.
    #[serde(default)]
    pub items_by_page: u32,
    /// Page number; the first page is 0 (the default).
    #[serde(default)]
    pub page: u32,
    /// Point from which `distance` and `duration` are computed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    #[query(with = parse_indoor_latlng)]
    pub from_location: Option<IndoorLatLng>,
    /// Text to search; when absent, all features are listed alphabetically.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    pub q: Option<String>,
    /// `full` also searches non-searchable POIs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    pub extended: Option<PoiSearchExtended>,
    /// Level filter.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    pub level: Option<i64>,
    /// Building filter; `undefined` selects POIs without a building.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    pub building: Option<String>,
    /// Category filter.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    pub category: Option<String>,
    /// Query parameter `ref`: POI refs (`ref:<poi_ref>` comma-separated; the prefix is not
    /// kept).
    #[serde(rename = "ref", default)]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    #[query(with = parse_refs)]
    pub refs: Vec<String>,
    /// ISO 639-1 language. Default `en`.
    #[serde(default = "default_language")]
    pub language: String,
    /// Property query with AND/OR.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    pub advanced_filter: Option<String>,
    /// Query parameter `id`: POI ids (comma-separated).
    #[serde(rename = "id", default)]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    #[query(with = parse_ids)]
    pub ids: Vec<i64>,
}

impl Default for PoiSearchRequest {
    fn default() -> Self {
        Self {
            venue_id: String::new(),
            items_by_page: 0,
            page: 0,
            from_location: None,
            q: None,
            extended: None,
            level: None,
            building: None,
            category: None,
            refs: Vec::new(),
            language: default_language(),
            advanced_filter: None,
            ids: Vec::new(),
        }
    }
}

/// Parses `ref`: comma-separated `ref:<poi_ref>`.
fn parse_refs(loc: Loc, name: &str, s: &str) -> Result<Vec<String>, FieldError> {
    parse_list(loc, name, s, ',')?
        .into_iter()
        .map(|item| match item.strip_prefix("ref:") {
            Some(r) if !r.trim().is_empty() => Ok(r.trim().to_owned()),
            _ => Err(FieldError::invalid(
                loc,
                name,
                kinds::VALUE,
                format!(
                    "invalid poi ref {}: give `ref:<poi_ref>`, several joined by `,`",
                    shown(&item)
                ),
            )),
        })
        .collect()
}

/// Parses `id`: comma-separated integer POI ids.
fn parse_ids(loc: Loc, name: &str, s: &str) -> Result<Vec<i64>, FieldError> {
    parse_list(loc, name, s, ',')?
        .iter()
        .map(|item| crate::api::validation::parse_int::<i64>(loc, name, item))
        .collect()
}

impl Validate for PoiSearchRequest {
    fn constraints() -> Vec<(&'static str, serde_json::Value)> {
        vec![("venue_id", crate::api::validation::rule::not_blank())]
    }

    fn validate(&self) -> Result<(), Vec<FieldError>> {
        let mut c = Checks::new();
        check_venue(&mut c, &self.venue_id);
        if let Some(p) = &self.from_location {
            c.latlng(Loc::Query, "from_location", &LatLng::new(p.lat, p.lng));
        }
        c.finish()
    }
}

/// Answer of POI search: `{pagination, features}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct PoiSearchResponse {
    /// Page information.
    pub pagination: IndoorPagination,
    /// The features of the page.
    pub features: Vec<IndoorFeature>,
}

/// Pagination of POI search (all required).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct IndoorPagination {
    /// Current page (first page 0).
    pub page: u32,
    /// Number of pages.
    pub page_count: u32,
    /// Number of features in all pages.
    pub total: u64,
    /// Features per page (0: no pagination).
    pub per_page: u32,
}

fn default_feature() -> String {
    "Feature".to_owned()
}

/// A venue feature (GeoJSON feature with indoor extras).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct IndoorFeature {
    /// Default `Feature`.
    #[serde(rename = "type", default = "default_feature")]
    pub kind: String,
    /// Free-form properties.
    pub properties: JsonObject,
    /// GeoJSON geometry or geometry collection.
    pub geometry: JsonValue,
    /// POI id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<i64>,
    /// Distance in metres from `from_location`; `null` without it (always present).
    #[serde(default)]
    pub distance: Option<f64>,
    /// Walking time in seconds from `from_location`; `null` without it (always present).
    #[serde(default)]
    pub duration: Option<f64>,
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
    fn poi_search_round_trip() {
        let r: PoiSearchResponse = round_trip(json!({
            "pagination": {"page": 0, "page_count": 3, "total": 25, "per_page": 10},
            "features": [{
                "type": "Feature",
                "properties": {"name": "Café", "level": 1},
                "geometry": {"type": "Point", "coordinates": [2.5, 48.5]},
                "id": 42,
                "distance": 12.5,
                "duration": 9.25
            }, {
                "type": "Feature",
                "properties": {},
                "geometry": {"type": "GeometryCollection", "geometries": []},
                "distance": null,
                "duration": null
            }]
        }));
        assert_eq!(r.features[0].id, Some(42));
        let f: IndoorFeature =
            serde_json::from_value(json!({"properties": {}, "geometry": null})).unwrap();
        assert_eq!(f.kind, "Feature");
    }

    #[test]
    fn poi_search_query() {
        let q = pairs([
            ("items_by_page", "10"),
            ("from_location", "48.5,2.25,1"),
            ("q", "café"),
            ("extended", "full"),
            ("level", "-1"),
            ("ref", "ref:a,ref:b"),
            ("id", "1,2"),
        ]);
        let r = PoiSearchRequest::from_query(&q, &RequestHeaders::default(), &venue()).unwrap();
        assert_eq!(r.items_by_page, 10);
        assert_eq!(r.page, 0);
        assert_eq!(
            r.from_location,
            Some(IndoorLatLng {
                lat: 48.5,
                lng: 2.25,
                level: 1
            })
        );
        assert_eq!(r.refs, ["a", "b"]);
        assert_eq!(r.ids, [1, 2]);
        assert_eq!(r.language, "en");
        let v = serde_json::to_value(&r).unwrap();
        assert_eq!(v["ref"], json!(["a", "b"]));
        assert_eq!(v["id"], json!([1, 2]));
        let q = pairs([("ref", "a"), ("id", "x"), ("extended", "partial")]);
        let errs =
            PoiSearchRequest::from_query(&q, &RequestHeaders::default(), &venue()).unwrap_err();
        assert_errors(
            &errs,
            &[
                (json!(["query", "extended"]), kinds::ENUM),
                (json!(["query", "ref"]), kinds::VALUE),
                (json!(["query", "id"]), kinds::INTEGER),
            ],
        );
    }
}
