//! Three-word addresses group (`/threewords`): suggestions for three-word addresses, conversion
//! of a coordinate to one.
//!
//! | endpoint | request | response |
//! |---|---|---|
//! | `GET /threewords/autosuggest` | [`AutosuggestRequest`] | [`AutosuggestResponse`] |
//! | `GET /threewords/convert-to-3wa` | [`ConvertTo3waRequest`] | [`ConvertTo3waResponse`] |
//! | `GET /threewords/convert-to-coordinates` (Waymark) | [`ConvertToCoordinatesRequest`] | [`ConvertToCoordinatesResponse`] |
//!
//! Parameter names of autosuggest use dashes (`clip-to-country`); request fields use
//! underscores and serde renames keep the dashed names. Response fields are camelCase where the
//! spec has it (`nearestPlace`, `distanceToFocusKm`).
//!
//! ```
//! use waymark_core::api::{AutosuggestRequest, FromQuery, RequestHeaders, pairs};
//!
//! let q = pairs([("input", "index.home.ra"), ("clip-to-circle", "51.5,-0.12,20"), ("prefer-land", "false")]);
//! let req = AutosuggestRequest::from_query(&q, &RequestHeaders::default(), &[]).unwrap();
//! assert_eq!(req.clip_to_circle.unwrap().radius_km, 20.0);
//! assert!(!req.prefer_land);
//! ```

use serde::{Deserialize, Serialize};

use super::common::{JsonObject, LatLng, Viewport};
use super::query::FromQuery;
use super::validation::{
    Checks, FieldError, Loc, Validate, is_alpha_code, kinds, parse_list, parse_numbers, shown,
};
use super::vocab::{InputType, ThreeWordsFormat};

/// Most pairs of `clip-to-polygon`.
pub const CLIP_POLYGON_MAX_PAIRS: usize = 25;
/// Fewest pairs of `clip-to-polygon` (a closed ring: first pair repeated last).
pub const CLIP_POLYGON_MIN_PAIRS: usize = 4;

fn default_true() -> bool {
    true
}

fn default_language() -> String {
    "en".to_owned()
}

/// A circle: `lat,lng,kilometres`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct Circle {
    /// Centre.
    pub center: LatLng,
    /// Radius in kilometres.
    pub radius_km: f64,
}

/// Parses `clip-to-circle`: `lat,lng,kilometres`.
pub fn parse_circle(loc: Loc, name: &str, s: &str) -> Result<Circle, FieldError> {
    match parse_numbers(loc, name, s)?.as_slice() {
        [lat, lng, radius_km] => Ok(Circle {
            center: LatLng::new(*lat, *lng),
            radius_km: *radius_km,
        }),
        other => Err(FieldError::invalid(
            loc,
            name,
            kinds::VALUE,
            format!(
                "give `lat,lng,kilometres` (3 numbers), got {} numbers",
                other.len()
            ),
        )),
    }
}

/// Parses `clip-to-bounding-box`: `south_lat,west_lng,north_lat,east_lng`.
pub fn parse_bounding_box(loc: Loc, name: &str, s: &str) -> Result<Viewport, FieldError> {
    match parse_numbers(loc, name, s)?.as_slice() {
        [south, west, north, east] => Ok(Viewport {
            northeast: LatLng::new(*north, *east),
            southwest: LatLng::new(*south, *west),
        }),
        other => Err(FieldError::invalid(
            loc,
            name,
            kinds::VALUE,
            format!(
                "give `south_lat,west_lng,north_lat,east_lng` (4 numbers), got {} numbers",
                other.len()
            ),
        )),
    }
}

/// Parses `clip-to-polygon`: comma-separated `lat,lng` pairs (an even count of numbers).
pub fn parse_polygon(loc: Loc, name: &str, s: &str) -> Result<Vec<LatLng>, FieldError> {
    let numbers = parse_numbers(loc, name, s)?;
    if numbers.len() % 2 != 0 {
        return Err(FieldError::invalid(
            loc,
            name,
            kinds::VALUE,
            format!(
                "give `lat,lng` pairs joined by `,`: got an odd count of numbers ({})",
                numbers.len()
            ),
        ));
    }
    Ok(numbers
        .chunks_exact(2)
        .map(|p| LatLng::new(p[0], p[1]))
        .collect())
}

/// Parses `clip-to-country`: comma-separated ISO 3166-1 alpha-2 codes.
fn parse_countries(loc: Loc, name: &str, s: &str) -> Result<Vec<String>, FieldError> {
    parse_list(loc, name, s, ',')
}

/// `GET /threewords/autosuggest` (K2; 20 per 1 s).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromQuery)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct AutosuggestRequest {
    /// Required: at least two complete words and one character of the third (checked by the
    /// engine).
    pub input: String,
    /// Weights results near this point.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    pub focus: Option<LatLng>,
    /// `clip-to-country`: ISO 3166-1 alpha-2 codes. Default: none.
    #[serde(rename = "clip-to-country", default)]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    #[query(with = parse_countries)]
    pub clip_to_country: Vec<String>,
    /// `clip-to-bounding-box`: `south_lat,west_lng,north_lat,east_lng`; south not above north,
    /// west not east of east.
    #[serde(
        rename = "clip-to-bounding-box",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    #[query(with = parse_bounding_box)]
    pub clip_to_bounding_box: Option<Viewport>,
    /// `clip-to-circle`: `lat,lng,kilometres`.
    #[serde(
        rename = "clip-to-circle",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    #[query(with = parse_circle)]
    pub clip_to_circle: Option<Circle>,
    /// `clip-to-polygon`: a closed ring of 4 to 25 points (first repeated last).
    #[serde(
        rename = "clip-to-polygon",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    #[query(with = parse_polygon)]
    pub clip_to_polygon: Option<Vec<LatLng>>,
    /// `input-type`. Default `text`.
    #[serde(rename = "input-type", default)]
    pub input_type: InputType,
    /// `prefer-land`. Default true.
    #[serde(rename = "prefer-land", default = "default_true")]
    pub prefer_land: bool,
    /// Two-letter fallback language.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    pub language: Option<String>,
    /// `coordinates` (Waymark): `true` adds each suggestion's square centre as `coordinates`.
    /// Default false.
    #[serde(default)]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    pub coordinates: bool,
}

impl Default for AutosuggestRequest {
    fn default() -> Self {
        Self {
            input: String::new(),
            focus: None,
            clip_to_country: Vec::new(),
            clip_to_bounding_box: None,
            clip_to_circle: None,
            clip_to_polygon: None,
            input_type: InputType::default(),
            prefer_land: true,
            language: None,
            coordinates: false,
        }
    }
}

impl Validate for AutosuggestRequest {
    fn constraints() -> Vec<(&'static str, serde_json::Value)> {
        vec![
            ("language", crate::api::validation::rule::two_letters()),
            (
                "clip-to-country",
                crate::api::validation::rule::country_list(),
            ),
        ]
    }

    fn validate(&self) -> Result<(), Vec<FieldError>> {
        let mut c = Checks::new();
        let err =
            |name: &str, kind: &str, msg: String| FieldError::invalid(Loc::Query, name, kind, msg);
        if let Some(p) = &self.focus {
            c.latlng(Loc::Query, "focus", p);
        }
        for code in &self.clip_to_country {
            c.check(is_alpha_code(code, &[2]), || {
                err(
                    "clip-to-country",
                    kinds::VALUE,
                    format!(
                        "invalid country code {}: give iso 3166-1 alpha-2 codes joined by `,`",
                        shown(code)
                    ),
                )
            });
        }
        if let Some(b) = &self.clip_to_bounding_box {
            c.latlng(Loc::Query, "clip-to-bounding-box", &b.southwest);
            c.latlng(Loc::Query, "clip-to-bounding-box", &b.northeast);
            c.check(b.southwest.lat <= b.northeast.lat, || {
                err(
                    "clip-to-bounding-box",
                    kinds::VALUE,
                    "south latitude must not be above north latitude".to_owned(),
                )
            });
            c.check(b.southwest.lng <= b.northeast.lng, || {
                err(
                    "clip-to-bounding-box",
                    kinds::VALUE,
                    "west longitude must not be east of east longitude".to_owned(),
                )
            });
        }
        if let Some(circle) = &self.clip_to_circle {
            c.latlng(Loc::Query, "clip-to-circle", &circle.center);
            c.check(
                circle.radius_km.is_finite() && circle.radius_km > 0.0,
                || {
                    err(
                        "clip-to-circle",
                        kinds::VALUE,
                        format!(
                            "radius must be a positive number of kilometres, got {}",
                            circle.radius_km
                        ),
                    )
                },
            );
        }
        if let Some(points) = &self.clip_to_polygon {
            let n = points.len();
            c.check((CLIP_POLYGON_MIN_PAIRS..=CLIP_POLYGON_MAX_PAIRS).contains(&n), || {
                err(
                    "clip-to-polygon",
                    kinds::VALUE,
                    format!(
                        "give {CLIP_POLYGON_MIN_PAIRS} to {CLIP_POLYGON_MAX_PAIRS} `lat,lng` pairs, got {n}"
                    ),
                )
            });
            c.check(points.first() == points.last(), || {
                err(
                    "clip-to-polygon",
                    kinds::VALUE,
                    "polygon not closed: repeat the first pair at the end".to_owned(),
                )
            });
            for p in points {
                c.latlng(Loc::Query, "clip-to-polygon", p);
            }
        }
        if let Some(lang) = &self.language {
            c.check(is_alpha_code(lang, &[2]), || {
                err(
                    "language",
                    kinds::VALUE,
                    format!(
                        "invalid language {}: give a two-letter iso 639-1 code",
                        shown(lang)
                    ),
                )
            });
        }
        c.finish()
    }
}

/// Answer of autosuggest: `{suggestions}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct AutosuggestResponse {
    /// Suggestions, best first.
    pub suggestions: Vec<ThreeWordsSuggestion>,
}

/// A three-word address suggestion.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
#[serde(rename_all = "camelCase")]
pub struct ThreeWordsSuggestion {
    /// ISO 3166-1 alpha-2 country code.
    pub country: String,
    /// Nearest place (`nearestPlace`).
    pub nearest_place: String,
    /// The three words, dot-separated.
    pub words: String,
    /// Distance to `focus` in kilometres (`distanceToFocusKm`), present when a focus is given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub distance_to_focus_km: Option<u32>,
    /// Rank, 1 for the best.
    pub rank: u32,
    /// Language of the words.
    pub language: String,
    /// Centre of the square (Waymark), present when the request asks `coordinates=true`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coordinates: Option<LatLng>,
}

/// `GET /threewords/convert-to-3wa` (K2; 20 per 1 s).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromQuery)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct ConvertTo3waRequest {
    /// Required point.
    pub coordinates: LatLng,
    /// `json` (default) or `geojson`.
    #[serde(default)]
    pub format: ThreeWordsFormat,
    /// Language of the words. Default `en`.
    #[serde(default = "default_language")]
    pub language: String,
}

impl Default for ConvertTo3waRequest {
    fn default() -> Self {
        Self {
            coordinates: LatLng::default(),
            format: ThreeWordsFormat::default(),
            language: default_language(),
        }
    }
}

impl Validate for ConvertTo3waRequest {
    fn validate(&self) -> Result<(), Vec<FieldError>> {
        let mut c = Checks::new();
        c.latlng(Loc::Query, "coordinates", &self.coordinates);
        c.finish()
    }
}

/// `GET /threewords/convert-to-coordinates` (Waymark, not in the spec; K2; 20 per 1 s): the
/// square of a three-word address, answered as convert-to-3wa answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromQuery)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct ConvertToCoordinatesRequest {
    /// Required: the three words, joined by `.` (`index.home.raft`; spaces, commas and hyphens
    /// are read as `.` too, a leading `///` is dropped, letters are lower-cased).
    pub words: String,
    /// `json` (default) or `geojson`.
    #[serde(default)]
    pub format: ThreeWordsFormat,
    /// Language of the words. Default `en`.
    #[serde(default = "default_language")]
    pub language: String,
}

impl Default for ConvertToCoordinatesRequest {
    fn default() -> Self {
        Self {
            words: String::new(),
            format: ThreeWordsFormat::default(),
            language: default_language(),
        }
    }
}

impl Validate for ConvertToCoordinatesRequest {
    fn constraints() -> Vec<(&'static str, serde_json::Value)> {
        vec![("words", crate::api::validation::rule::not_blank())]
    }

    fn validate(&self) -> Result<(), Vec<FieldError>> {
        let mut c = Checks::new();
        c.check(!self.words.trim().is_empty(), || {
            FieldError::invalid(
                Loc::Query,
                "words",
                kinds::VALUE,
                "give three words joined by `.`, e.g. `index.home.raft`".to_owned(),
            )
        });
        c.finish()
    }
}

/// Answer of convert-to-coordinates: the same as convert-to-3wa's.
pub type ConvertToCoordinatesResponse = ConvertTo3waResponse;

/// Answer of convert-to-3wa: the JSON or the GeoJSON form, after `format`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Enum))]
#[serde(untagged)]
pub enum ConvertTo3waResponse {
    /// `format=json`.
    Json(ThreeWordsAddress),
    /// `format=geojson`.
    GeoJson(ThreeWordsFeatureCollection),
}

/// JSON conversion result.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
#[serde(rename_all = "camelCase")]
pub struct ThreeWordsAddress {
    /// ISO 3166-1 alpha-2 country code.
    pub country: String,
    /// Nearest place (`nearestPlace`).
    pub nearest_place: String,
    /// The three words, dot-separated.
    pub words: String,
    /// Language of the words.
    pub language: String,
    /// Link to a map.
    pub map: String,
    /// Locale (language variant), when the language has several.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub locale: Option<String>,
    /// The square of the address.
    pub square: Viewport,
    /// Centre of the square.
    pub coordinates: LatLng,
}

/// GeoJSON conversion result.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct ThreeWordsFeatureCollection {
    /// `FeatureCollection`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The address as one feature.
    pub features: Vec<ThreeWordsFeature>,
}

/// A feature of the GeoJSON conversion result.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct ThreeWordsFeature {
    /// Bounding box of the square `[west, south, east, north]`.
    pub bbox: Vec<f64>,
    /// GeoJSON geometry.
    pub geometry: JsonObject,
    /// `Feature`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The address.
    pub properties: ThreeWordsProperties,
}

/// Properties of a GeoJSON conversion feature.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
#[serde(rename_all = "camelCase")]
pub struct ThreeWordsProperties {
    /// ISO 3166-1 alpha-2 country code.
    pub country: String,
    /// Nearest place (`nearestPlace`).
    pub nearest_place: String,
    /// The three words.
    pub words: String,
    /// Language of the words.
    pub language: String,
    /// Link to a map.
    pub map: String,
    /// Locale, when the language has several.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub locale: Option<String>,
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
    fn autosuggest_round_trip() {
        let r: AutosuggestResponse = round_trip(json!({
            "suggestions": [{
                "country": "GB",
                "nearestPlace": "Bayswater, London",
                "words": "index.home.raft",
                "distanceToFocusKm": 11,
                "rank": 1,
                "language": "en"
            }, {
                "country": "GB",
                "nearestPlace": "Bristol",
                "words": "index.home.rafts",
                "rank": 2,
                "language": "en"
            }]
        }));
        assert_eq!(r.suggestions[0].distance_to_focus_km, Some(11));
        assert_eq!(r.suggestions[1].distance_to_focus_km, None);
    }

    #[test]
    fn convert_round_trips() {
        let j: ConvertTo3waResponse = round_trip(json!({
            "country": "GB",
            "nearestPlace": "Bayswater, London",
            "words": "filled.count.soap",
            "language": "en",
            "map": "https://example.org/filled.count.soap",
            "locale": "en_gb",
            "square": {
                "southwest": {"lat": 51.520833, "lng": -0.195543},
                "northeast": {"lat": 51.52086, "lng": -0.195499}
            },
            "coordinates": {"lat": 51.520847, "lng": -0.195521}
        }));
        assert!(matches!(j, ConvertTo3waResponse::Json(_)));
        let g: ConvertTo3waResponse = round_trip(json!({
            "type": "FeatureCollection",
            "features": [{
                "bbox": [-0.195543, 51.520833, -0.195499, 51.52086],
                "geometry": {"type": "Point", "coordinates": [-0.195521, 51.520847]},
                "type": "Feature",
                "properties": {
                    "country": "GB",
                    "nearestPlace": "Bayswater, London",
                    "words": "filled.count.soap",
                    "language": "en",
                    "map": "https://example.org/filled.count.soap"
                }
            }]
        }));
        let ConvertTo3waResponse::GeoJson(fc) = g else {
            panic!("geojson variant expected");
        };
        assert_eq!(fc.features[0].properties.nearest_place, "Bayswater, London");
    }

    #[test]
    fn autosuggest_query() {
        let q = pairs([
            ("input", "index.home.r"),
            ("focus", "51.5,-0.12"),
            ("clip-to-country", "GB,fr"),
            ("clip-to-bounding-box", "51.0,-1.0,52.0,0.5"),
            ("clip-to-polygon", "51,-1,52,-1,52,0,51,-1"),
            ("input-type", "nmdp-asr"),
            ("language", "fr"),
        ]);
        let r = AutosuggestRequest::from_query(&q, &h(), &[]).unwrap();
        assert_eq!(r.clip_to_country, ["GB", "fr"]);
        let b = r.clip_to_bounding_box.unwrap();
        assert_eq!(b.southwest, LatLng::new(51.0, -1.0));
        assert_eq!(b.northeast, LatLng::new(52.0, 0.5));
        assert_eq!(r.clip_to_polygon.as_ref().unwrap().len(), 4);
        assert_eq!(r.input_type, InputType::NmdpAsr);
        assert!(r.prefer_land);
        let v = serde_json::to_value(&r).unwrap();
        assert!(v.get("clip-to-country").is_some() && v.get("input-type").is_some());
        let back: AutosuggestRequest = serde_json::from_value(v).unwrap();
        assert_eq!(back, r);
    }

    #[test]
    fn autosuggest_errors() {
        let q = pairs([
            ("focus", "51.5"),
            ("clip-to-circle", "1,2"),
            ("clip-to-polygon", "1,2,3"),
            ("input-type", "speech"),
            ("prefer-land", "sometimes"),
            ("clip_to_country", "GB"),
        ]);
        let errs = AutosuggestRequest::from_query(&q, &h(), &[]).unwrap_err();
        assert_errors(
            &errs,
            &[
                (json!(["query", "input"]), kinds::MISSING),
                (json!(["query", "focus"]), kinds::COORDINATES),
                (json!(["query", "clip-to-circle"]), kinds::VALUE),
                (json!(["query", "clip-to-polygon"]), kinds::VALUE),
                (json!(["query", "input-type"]), kinds::ENUM),
                (json!(["query", "prefer-land"]), kinds::BOOL),
                (json!(["query", "clip_to_country"]), kinds::EXTRA),
            ],
        );
        let q = pairs([
            ("input", "a.b.c"),
            ("clip-to-country", "GBR"),
            ("clip-to-bounding-box", "52,0,51,1"),
            ("clip-to-polygon", "51,-1,52,-1,52,0"),
            ("clip-to-circle", "51,0,0"),
        ]);
        let errs = parse_valid::<AutosuggestRequest>(&q, &h(), &[], b"").unwrap_err();
        assert_errors(
            &errs,
            &[
                (json!(["query", "clip-to-country"]), kinds::VALUE),
                (json!(["query", "clip-to-bounding-box"]), kinds::VALUE),
                (json!(["query", "clip-to-circle"]), kinds::VALUE),
                (json!(["query", "clip-to-polygon"]), kinds::VALUE),
                (json!(["query", "clip-to-polygon"]), kinds::VALUE),
            ],
        );
        let many: Vec<String> = (0..26).map(|i| format!("{}.0,1.0", i)).collect();
        let r = AutosuggestRequest {
            input: "a.b.c".into(),
            clip_to_polygon: Some(parse_polygon(Loc::Query, "p", &many.join(",")).unwrap()),
            ..Default::default()
        };
        let errs = r.validate().unwrap_err();
        assert!(errs[0].msg.contains("4 to 25"), "{}", errs[0].msg);
    }

    #[test]
    fn convert_query() {
        let r =
            ConvertTo3waRequest::from_query(&pairs([("coordinates", "51.52,-0.19")]), &h(), &[])
                .unwrap();
        assert_eq!(
            r,
            ConvertTo3waRequest {
                coordinates: LatLng::new(51.52, -0.19),
                ..Default::default()
            }
        );
        let errs = ConvertTo3waRequest::from_query(
            &pairs([("coordinates", "51.52,-200"), ("format", "xml")]),
            &h(),
            &[],
        )
        .unwrap_err();
        assert_errors(
            &errs,
            &[
                (json!(["query", "coordinates"]), kinds::COORDINATES),
                (json!(["query", "format"]), kinds::ENUM),
            ],
        );
    }
}
