//! Shapes shared by several REST groups: coordinates, viewports, page information, the
//! `{value, text}` pairs of distances and durations, and the free-form JSON wrappers.
//!
//! Coordinates on the wire are objects `{"lat": .., "lng": ..}` in responses and strings
//! `lat,lng` in query parameters; [`LatLng`] is both (its [`std::fmt::Display`] writes the query
//! form, [`crate::api::parse_latlng`] reads it with range checks).
//!
//! ```
//! use waymark_core::api::{LatLng, OneOrMany};
//!
//! let paris = LatLng::new(48.8566, 2.3522);
//! assert_eq!(paris.to_string(), "48.8566,2.3522");
//! assert_eq!(serde_json::to_value(paris).unwrap(), serde_json::json!({"lat": 48.8566, "lng": 2.3522}));
//!
//! let names: OneOrMany = serde_json::from_str(r#"["75001","75002"]"#).unwrap();
//! assert_eq!(names.as_slice(), ["75001", "75002"]);
//! ```

use std::fmt;

use serde::{Deserialize, Serialize};

/// A point in decimal degrees: `{lat, lng}`. Latitude ranges over -90..=90 and longitude over
/// -180..=180 (checked by [`LatLng::check`] and the query parsers, not by deserialization).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct LatLng {
    /// Latitude in decimal degrees, -90 to 90.
    pub lat: f64,
    /// Longitude in decimal degrees, -180 to 180.
    pub lng: f64,
}

impl LatLng {
    /// A point from latitude and longitude.
    pub const fn new(lat: f64, lng: f64) -> Self {
        Self { lat, lng }
    }

    /// Checks that both numbers are finite and in range; the error says which number is wrong
    /// (its message, a lowercase fragment, gives the accepted range).
    pub fn check(&self) -> Result<(), CoordinateError> {
        if !self.lat.is_finite() || !self.lng.is_finite() {
            return Err(CoordinateError::NotFinite);
        }
        if !(-90.0..=90.0).contains(&self.lat) {
            return Err(CoordinateError::Latitude(self.lat));
        }
        if !(-180.0..=180.0).contains(&self.lng) {
            return Err(CoordinateError::Longitude(self.lng));
        }
        Ok(())
    }
}

/// Why a [`LatLng`] is not a valid coordinate ([`LatLng::check`]).
#[derive(Debug, Clone, Copy, PartialEq, thiserror::Error)]
pub enum CoordinateError {
    /// A NaN or infinite number.
    #[error("latitude and longitude must be finite numbers")]
    NotFinite,
    /// The latitude (given) is outside -90..=90.
    #[error("latitude must be between -90 and 90, got {0}")]
    Latitude(f64),
    /// The longitude (given) is outside -180..=180.
    #[error("longitude must be between -180 and 180, got {0}")]
    Longitude(f64),
}

impl fmt::Display for LatLng {
    /// The query-parameter form `lat,lng`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{},{}", self.lat, self.lng)
    }
}

/// A viewport or bounds: `{northeast, southwest}` corners.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct Viewport {
    /// North-east corner.
    pub northeast: LatLng,
    /// South-west corner.
    pub southwest: LatLng,
}

impl Viewport {
    /// Whether `p` lies inside the viewport (edges included; no antimeridian wrap).
    pub fn contains(&self, p: LatLng) -> bool {
        (self.southwest.lat..=self.northeast.lat).contains(&p.lat)
            && (self.southwest.lng..=self.northeast.lng).contains(&p.lng)
    }
}

/// Page information of datasets and dataset features: `{prev, next, page}`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct PageInfo {
    /// Previous page number; absent on the first page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prev: Option<u32>,
    /// Next page number; absent on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next: Option<u32>,
    /// Current page number (the first page is 1).
    pub page: u32,
}

impl PageInfo {
    /// Page information of page `page` (1-based) when the results fill `page_count` pages.
    ///
    /// `prev` is given from page 2 on and `next` while `page < page_count`; a page past the end
    /// gets `prev` pointing at the last page, so that a client can walk back.
    pub fn new(page: u32, page_count: u32) -> Self {
        let prev = (page > 1).then(|| (page - 1).min(page_count.max(1)));
        let next = (page < page_count).then(|| page + 1);
        Self { prev, next, page }
    }
}

/// A `{value, text}` pair whose value is an integer: distances in metres and durations in
/// seconds of routes and toll routes, and the time of a time-based isoline.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct TextValue {
    /// Metres for a distance, seconds for a duration.
    pub value: u64,
    /// The value for humans, in the unit system of `units` and the language of the request.
    pub text: String,
}

/// A `{value, text}` pair whose value is a number (may have decimals): indoor legs and steps,
/// and the distance of a distance-based isoline.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct NumberTextValue {
    /// Metres for a distance, seconds for a duration.
    pub value: f64,
    /// The value for humans.
    pub text: String,
}

/// An encoded polyline `{points}` (Google polyline algorithm, precision 5).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct EncodedPolyline {
    /// The encoded polyline string.
    pub points: String,
}

/// A free-form JSON object (feature attributes, GeoJSON properties, ...).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(transparent)]
pub struct JsonObject(pub serde_json::Map<String, serde_json::Value>);

impl JsonObject {
    /// An empty object.
    pub fn new() -> Self {
        Self::default()
    }

    /// The value under `key`, if any.
    pub fn get(&self, key: &str) -> Option<&serde_json::Value> {
        self.0.get(key)
    }

    /// Inserts `value` under `key`, returning the previous value.
    pub fn insert(
        &mut self,
        key: impl Into<String>,
        value: impl Into<serde_json::Value>,
    ) -> Option<serde_json::Value> {
        self.0.insert(key.into(), value.into())
    }

    /// Whether the object has no key.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl From<serde_json::Map<String, serde_json::Value>> for JsonObject {
    fn from(map: serde_json::Map<String, serde_json::Value>) -> Self {
        Self(map)
    }
}

/// A free-form JSON value: geometries given either as GeoJSON objects or as strings (WKB, WKT,
/// encoded polylines), and other values the spec leaves open.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(transparent)]
pub struct JsonValue(pub serde_json::Value);

impl From<serde_json::Value> for JsonValue {
    fn from(value: serde_json::Value) -> Self {
        Self(value)
    }
}

/// A name that is either one string or a list of strings (`long_name`, `short_name` of address
/// components: a list of postal codes may replace a single name).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Enum))]
#[serde(untagged)]
pub enum OneOrMany {
    /// A single name.
    One(String),
    /// Several names.
    Many(Vec<String>),
}

impl OneOrMany {
    /// The names as a slice (one element for [`OneOrMany::One`]).
    pub fn as_slice(&self) -> &[String] {
        match self {
            Self::One(s) => std::slice::from_ref(s),
            Self::Many(v) => v,
        }
    }
}

impl Default for OneOrMany {
    fn default() -> Self {
        Self::One(String::new())
    }
}

impl From<&str> for OneOrMany {
    fn from(s: &str) -> Self {
        Self::One(s.to_owned())
    }
}

impl From<String> for OneOrMany {
    fn from(s: String) -> Self {
        Self::One(s)
    }
}

impl From<Vec<String>> for OneOrMany {
    fn from(v: Vec<String>) -> Self {
        Self::Many(v)
    }
}

/// An address component of a locality: `{long_name, short_name, types}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct AddressComponent {
    /// Full name, or several names (for example postal codes).
    pub long_name: OneOrMany,
    /// Short name, or several; for a country, its code in the format of `cc_format`.
    pub short_name: OneOrMany,
    /// Place types of the component.
    pub types: Vec<String>,
}

/// A GeoJSON Point geometry `{type: "Point", coordinates: [lng, lat]}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct PointGeometry {
    /// Always `Point`.
    #[serde(rename = "type")]
    pub kind: String,
    /// `[longitude, latitude]` (GeoJSON order).
    pub coordinates: Vec<f64>,
}

impl PointGeometry {
    /// The GeoJSON point of `p`.
    pub fn new(p: LatLng) -> Self {
        Self {
            kind: "Point".to_owned(),
            coordinates: vec![p.lng, p.lat],
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::api::testing::round_trip;
    use serde_json::json;

    #[test]
    fn latlng_and_viewport_round_trip() {
        let vp: Viewport = round_trip(json!({
            "northeast": {"lat": 48.9, "lng": 2.5},
            "southwest": {"lat": 48.8, "lng": 2.2}
        }));
        assert!(vp.contains(LatLng::new(48.85, 2.3)));
        assert!(!vp.contains(LatLng::new(49.0, 2.3)));
        assert_eq!(LatLng::new(1.5, -2.0).to_string(), "1.5,-2");
    }

    #[test]
    fn latlng_check_ranges() {
        assert!(LatLng::new(90.0, -180.0).check().is_ok());
        let e = LatLng::new(90.5, 0.0).check().unwrap_err();
        assert_eq!(e, CoordinateError::Latitude(90.5));
        assert!(e.to_string().contains("-90 and 90"));
        let e = LatLng::new(0.0, 181.0).check().unwrap_err();
        assert_eq!(e, CoordinateError::Longitude(181.0));
        assert!(e.to_string().contains("-180 and 180"));
        assert_eq!(
            LatLng::new(f64::NAN, 0.0).check(),
            Err(CoordinateError::NotFinite)
        );
    }

    #[test]
    fn page_info_round_trip_and_new() {
        let p: PageInfo = round_trip(json!({"prev": 1, "next": 3, "page": 2}));
        assert_eq!(p, PageInfo::new(2, 5));
        let first: PageInfo = round_trip(json!({"page": 1}));
        assert_eq!(first, PageInfo::new(1, 1));
        assert_eq!(PageInfo::new(1, 3).next, Some(2));
        assert_eq!(PageInfo::new(9, 3).prev, Some(3));
    }

    #[test]
    fn one_or_many_and_components() {
        let c: AddressComponent = round_trip(json!({
            "long_name": ["75001", "75002"],
            "short_name": "75001",
            "types": ["postal_code"]
        }));
        assert_eq!(
            c.long_name,
            OneOrMany::Many(vec!["75001".into(), "75002".into()])
        );
        assert_eq!(c.short_name, OneOrMany::One("75001".into()));
        assert_eq!(c.short_name.as_slice(), ["75001"]);
    }

    #[test]
    fn text_values_and_free_form() {
        let t: TextValue = round_trip(json!({"value": 1200, "text": "1.2 km"}));
        assert_eq!(t.value, 1200);
        assert!(serde_json::from_value::<TextValue>(json!({"value": 1.5, "text": "x"})).is_err());
        let n: NumberTextValue = round_trip(json!({"value": 12.5, "text": "13 m"}));
        assert!((n.value - 12.5).abs() < f64::EPSILON);
        let o: JsonObject = round_trip(json!({"a": 1, "b": {"c": [true]}}));
        assert_eq!(o.get("a"), Some(&json!(1)));
        let v: JsonValue = round_trip(json!("AQEAAAA="));
        assert_eq!(v.0, json!("AQEAAAA="));
        let p: PointGeometry = round_trip(json!({"type": "Point", "coordinates": [2.35, 48.85]}));
        assert_eq!(p, PointGeometry::new(LatLng::new(48.85, 2.35)));
    }
}
