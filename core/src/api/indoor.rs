//! Indoor group (`/indoor`): venue description, search of venue features, indoor directions.
//!
//! | endpoint | request | response |
//! |---|---|---|
//! | `GET /indoor/venues/{venue_id}` | [`VenueGetRequest`] | [`VenueGetResponse`] = [`Venue`] |
//! | `GET /indoor/venues/{venue_id}/pois/search` | [`PoiSearchRequest`] | [`PoiSearchResponse`] |
//! | `GET /indoor/directions/{venue_id}` | [`IndoorDirectionsRequest`] | [`IndoorDirectionsResponse`] |
//!
//! Indoor points are `lat,lng,level`, a POI id, or `ref:<poi_ref>` ([`IndoorPoint`]). Bounding
//! boxes (`bbox`, `bounds`) are arrays of four numbers in GeoJSON bbox order
//! `[west, south, east, north]`.
//!
//! ```
//! use waymark_core::api::{FromQuery, IndoorDirectionsRequest, IndoorPoint, RequestHeaders, pairs};
//!
//! let q = pairs([("origin", "48.85,2.35,1"), ("destination", "ref:shop-12"), ("waypoints", "42|ref:wc")]);
//! let req = IndoorDirectionsRequest::from_query(&q, &RequestHeaders::default(), &["venue-1".to_owned()]).unwrap();
//! assert_eq!(req.origin, IndoorPoint::Coords { lat: 48.85, lng: 2.35, level: 1 });
//! assert_eq!(req.destination, IndoorPoint::Ref("shop-12".to_owned()));
//! assert_eq!(req.waypoints, [IndoorPoint::PoiId(42), IndoorPoint::Ref("wc".to_owned())]);
//! ```

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::common::{JsonObject, JsonValue, LatLng, NumberTextValue};
use super::query::FromQuery;
use super::validation::{
    Checks, FieldError, Loc, Validate, kinds, parse_list, parse_pipe_list, shown,
};
use super::vocab::{PoiSearchExtended, Units};

fn default_language() -> String {
    "en".to_owned()
}

/// How a missing indoor point is described.
const INDOOR_POINT_FORM: &str = "`lat,lng,level`, a poi id or `ref:<poi_ref>`";

/// A point inside a venue: `{lat, lng, level}`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct IndoorLatLng {
    /// Latitude.
    pub lat: f64,
    /// Longitude.
    pub lng: f64,
    /// Level (floor) number.
    pub level: i64,
}

/// Parses `lat,lng,level` (level an integer), checking the coordinate ranges.
pub fn parse_indoor_latlng(loc: Loc, name: &str, s: &str) -> Result<IndoorLatLng, FieldError> {
    let bad = |msg: String| FieldError::invalid(loc, name, kinds::COORDINATES, msg);
    let parts: Vec<&str> = s.split(',').map(str::trim).collect();
    let [lat, lng, level] = parts.as_slice() else {
        return Err(bad(format!(
            "value is not a valid indoor point: give `lat,lng,level`, got {}",
            shown(s)
        )));
    };
    let (Ok(lat), Ok(lng)) = (lat.parse::<f64>(), lng.parse::<f64>()) else {
        return Err(bad(format!(
            "value is not a valid indoor point: latitude and longitude must be decimal numbers, got {}",
            shown(s)
        )));
    };
    let Ok(level) = level.parse::<i64>() else {
        return Err(bad(format!(
            "value is not a valid indoor point: the level must be an integer, got {}",
            shown(s)
        )));
    };
    LatLng::new(lat, lng)
        .check()
        .map_err(|e| bad(e.to_string()))?;
    Ok(IndoorLatLng { lat, lng, level })
}

/// An origin, destination or waypoint of indoor directions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Enum))]
#[serde(rename_all = "snake_case")]
pub enum IndoorPoint {
    /// `lat,lng,level`.
    Coords {
        /// Latitude.
        lat: f64,
        /// Longitude.
        lng: f64,
        /// Level (floor) number.
        level: i64,
    },
    /// A POI id (an integer).
    PoiId(i64),
    /// `ref:<poi_ref>`: the POI with that ref (the prefix is not kept).
    Ref(String),
}

impl Default for IndoorPoint {
    fn default() -> Self {
        Self::PoiId(0)
    }
}

/// Parses an indoor point: `ref:<poi_ref>`, an integer POI id, or `lat,lng,level`.
pub fn parse_indoor_point(loc: Loc, name: &str, s: &str) -> Result<IndoorPoint, FieldError> {
    let t = s.trim();
    if let Some(r) = t.strip_prefix("ref:") {
        if r.trim().is_empty() {
            return Err(FieldError::invalid(
                loc,
                name,
                kinds::VALUE,
                "empty poi ref: give `ref:<poi_ref>`",
            ));
        }
        return Ok(IndoorPoint::Ref(r.trim().to_owned()));
    }
    if let Ok(id) = t.parse::<i64>() {
        return Ok(IndoorPoint::PoiId(id));
    }
    if t.contains(',') {
        let p = parse_indoor_latlng(loc, name, t)?;
        return Ok(IndoorPoint::Coords {
            lat: p.lat,
            lng: p.lng,
            level: p.level,
        });
    }
    Err(FieldError::invalid(
        loc,
        name,
        kinds::VALUE,
        format!(
            "value is not a valid indoor point: give `lat,lng,level`, a poi id or `ref:<poi_ref>`, got {}",
            shown(s)
        ),
    ))
}

/// Parses indoor points joined by `|`.
pub fn parse_indoor_points(loc: Loc, name: &str, s: &str) -> Result<Vec<IndoorPoint>, FieldError> {
    parse_pipe_list(loc, name, s)?
        .iter()
        .enumerate()
        .map(|(i, item)| {
            parse_indoor_point(loc, name, item).map_err(|mut e| {
                e.msg = format!("point {}: {}", i + 1, e.msg);
                e
            })
        })
        .collect()
}

/// An area to avoid: `level;lat,lng;lat,lng;lat,lng;lat,lng` (four corners).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct IndoorAvoidBox {
    /// Level of the box.
    pub level: i64,
    /// The four corners, in the given order.
    pub corners: Vec<LatLng>,
}

/// Parses `avoid_in`: boxes joined by `|`, each `level;lat,lng;lat,lng;lat,lng;lat,lng`.
pub fn parse_avoid_in(loc: Loc, name: &str, s: &str) -> Result<Vec<IndoorAvoidBox>, FieldError> {
    parse_pipe_list(loc, name, s)?
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let bad = |msg: String| {
                FieldError::invalid(loc, name, kinds::VALUE, format!("box {}: {msg}", i + 1))
            };
            let parts: Vec<&str> = item.split(';').map(str::trim).collect();
            let [level, corners @ ..] = parts.as_slice() else {
                return Err(bad("empty box".to_owned()));
            };
            if corners.len() != 4 {
                return Err(bad(format!(
                    "give `level;lat,lng;lat,lng;lat,lng;lat,lng` (four corners), got {}",
                    shown(item)
                )));
            }
            let level = level.parse::<i64>().map_err(|_| {
                bad(format!(
                    "the level must be an integer, got {}",
                    shown(level)
                ))
            })?;
            let corners = corners
                .iter()
                .map(|c| {
                    super::validation::parse_latlng(loc, name, c).map_err(|e| FieldError {
                        msg: format!("box {}: {}", i + 1, e.msg),
                        ..e
                    })
                })
                .collect::<Result<Vec<_>, _>>()?;
            Ok(IndoorAvoidBox { level, corners })
        })
        .collect()
}

/// Checks the path parameter `venue_id`.
fn check_venue(c: &mut Checks, venue_id: &str) {
    c.check(!venue_id.trim().is_empty(), || {
        FieldError::missing(Loc::Path, "venue_id")
    });
}

/// `GET /indoor/venues/{venue_id}` (K2; 20 per 1 s).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize, FromQuery)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct VenueGetRequest {
    /// Path parameter.
    #[query(path)]
    pub venue_id: String,
}

impl Validate for VenueGetRequest {
    fn validate(&self) -> Result<(), Vec<FieldError>> {
        let mut c = Checks::new();
        check_venue(&mut c, &self.venue_id);
        c.finish()
    }
}

/// A venue.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct Venue {
    /// Venue id.
    pub venue_id: String,
    /// Name.
    pub name: String,
    /// Bounding box `[west, south, east, north]`.
    pub bbox: Vec<f64>,
    /// Levels.
    #[serde(default)]
    pub levels: Vec<VenueLevel>,
    /// Routing profiles available in the venue.
    #[serde(default)]
    pub routing_profiles: Vec<String>,
    /// Categories of its POIs.
    #[serde(default)]
    pub categories: Vec<String>,
    /// Buildings.
    #[serde(default)]
    pub buildings: Vec<Building>,
    /// Languages of the venue data.
    pub languages: Vec<String>,
    /// Last update time.
    pub updated_at: DateTime<Utc>,
}

/// Answer of `GET /indoor/venues/{venue_id}`: the [`Venue`].
pub type VenueGetResponse = Venue;

/// A level of a venue or building.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct VenueLevel {
    /// Level number.
    pub level: i64,
    /// Name, e.g. `Ground floor`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Reference.
    #[serde(rename = "ref", default, skip_serializing_if = "Option::is_none")]
    pub reference: Option<String>,
    /// Bounding box `[west, south, east, north]`.
    pub bbox: Vec<f64>,
}

/// A building of a venue.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct Building {
    /// Reference of the building.
    #[serde(rename = "ref")]
    pub reference: String,
    /// Name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Names by language code (empty by default).
    #[serde(default)]
    pub localized_name: BTreeMap<String, String>,
    /// Description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Opening hours.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opening_hours: Option<String>,
    /// Logo (URL).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logo: Option<String>,
    /// Cover image (URL).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cover: Option<String>,
    /// Levels of the building.
    pub levels: Vec<VenueLevel>,
}

/// `GET /indoor/venues/{venue_id}/pois/search` (K2; 30 per 1 s): full-text search of venue
/// features by name or description.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromQuery)]
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
        .map(|item| super::validation::parse_int::<i64>(loc, name, item))
        .collect()
}

impl Validate for PoiSearchRequest {
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
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct PoiSearchResponse {
    /// Page information.
    pub pagination: IndoorPagination,
    /// The features of the page.
    pub features: Vec<IndoorFeature>,
}

/// Pagination of POI search (all required).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
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

/// `GET /indoor/directions/{venue_id}` (K2; 20 per 1 s). The routing configuration of the venue
/// must exist.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromQuery)]
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
        }
    }
}

impl Validate for IndoorDirectionsRequest {
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
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct IndoorRoute {
    /// Four numbers `[west, south, east, north]`.
    pub bounds: Vec<f64>,
    /// One leg per pair of consecutive points.
    pub legs: Vec<IndoorLeg>,
}

/// A leg of an indoor route.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
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
    use crate::api::query::{RequestHeaders, pairs};
    use crate::api::testing::{assert_errors, round_trip};
    use serde_json::json;

    fn venue() -> Vec<String> {
        vec!["v1".to_owned()]
    }

    #[test]
    fn venue_round_trip() {
        let v: VenueGetResponse = round_trip(json!({
            "venue_id": "v1",
            "name": "Central Mall",
            "bbox": [2.25, 48.5, 2.75, 48.75],
            "levels": [{"level": 0, "name": "Ground", "ref": "L0", "bbox": [2.25, 48.5, 2.75, 48.75]}, {"level": 1, "bbox": [2.25, 48.5, 2.75, 48.75]}],
            "routing_profiles": ["default", "wheelchair"],
            "categories": ["shop", "toilets"],
            "buildings": [{
                "ref": "B1",
                "name": "North",
                "localized_name": {"fr": "Nord"},
                "description": "d",
                "opening_hours": "Mo-Su 09:00-20:00",
                "logo": "https://example.org/l.png",
                "cover": "https://example.org/c.png",
                "levels": [{"level": 0, "bbox": [2.25, 48.5, 2.5, 48.75]}]
            }],
            "languages": ["en", "fr"],
            "updated_at": "2024-05-06T07:08:09Z"
        }));
        assert_eq!(v.levels[0].reference.as_deref(), Some("L0"));
        assert_eq!(v.buildings[0].localized_name["fr"], "Nord");
        let b: Building = serde_json::from_value(json!({"ref": "B2", "levels": []})).unwrap();
        assert!(b.localized_name.is_empty());
    }

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
    fn indoor_points() {
        let p = |s: &str| parse_indoor_point(Loc::Query, "origin", s);
        assert_eq!(p("12").unwrap(), IndoorPoint::PoiId(12));
        assert_eq!(p("ref:A-1").unwrap(), IndoorPoint::Ref("A-1".into()));
        assert_eq!(
            p("1.5,2.5,-1").unwrap(),
            IndoorPoint::Coords {
                lat: 1.5,
                lng: 2.5,
                level: -1
            }
        );
        assert_eq!(p("1.5,2.5").unwrap_err().kind, kinds::COORDINATES);
        assert_eq!(p("1.5,2.5,1.5").unwrap_err().kind, kinds::COORDINATES);
        assert_eq!(p("91,2.5,1").unwrap_err().kind, kinds::COORDINATES);
        assert_eq!(p("ref:").unwrap_err().kind, kinds::VALUE);
        assert_eq!(p("lobby").unwrap_err().kind, kinds::VALUE);
        let v = serde_json::to_value(IndoorPoint::Coords {
            lat: 1.0,
            lng: 2.0,
            level: 3,
        })
        .unwrap();
        assert_eq!(v, json!({"coords": {"lat": 1.0, "lng": 2.0, "level": 3}}));
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
            (
                "avoid_in",
                "0;48.1,2.1;48.1,2.2;48.2,2.2;48.2,2.1|1;1,1;1,2;2,2;2,1",
            ),
        ]);
        let r =
            IndoorDirectionsRequest::from_query(&q, &RequestHeaders::default(), &venue()).unwrap();
        assert_eq!(r.units, Units::Imperial);
        assert!(r.optimize);
        assert_eq!(r.avoid_in.len(), 2);
        assert_eq!(r.avoid_in[1].level, 1);
        assert_eq!(r.avoid_in[0].corners[3], LatLng::new(48.2, 2.1));

        let q = pairs([
            ("destination", "x"),
            ("avoid_in", "0;1,1;1,2"),
            ("optimize", "2"),
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
            ],
        );
        assert!(errs[1].msg.contains("`ref:<poi_ref>`"), "{}", errs[1].msg);
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

    #[test]
    fn venue_query() {
        let r = VenueGetRequest::from_query(&[], &RequestHeaders::default(), &venue()).unwrap();
        assert_eq!(r.venue_id, "v1");
        let errs = VenueGetRequest::from_query(
            &pairs([("lang", "fr")]),
            &RequestHeaders::default(),
            &venue(),
        )
        .unwrap_err();
        assert_errors(&errs, &[(json!(["query", "lang"]), kinds::EXTRA)]);
    }
}
