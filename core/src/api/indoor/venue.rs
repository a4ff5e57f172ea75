//! `GET /indoor/venues/{venue_id}`: [`VenueGetRequest`] and the [`Venue`] with its levels and
//! buildings.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::check_venue;
use crate::api::query::FromQuery;
use crate::api::validation::{Checks, FieldError, Validate};

/// `GET /indoor/venues/{venue_id}` (K2; 20 per 1 s).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize, FromQuery)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct VenueGetRequest {
    /// Path parameter.
    #[query(path)]
    pub venue_id: String,
}

impl Validate for VenueGetRequest {
    fn constraints() -> Vec<(&'static str, serde_json::Value)> {
        vec![("venue_id", crate::api::validation::rule::not_blank())]
    }

    fn validate(&self) -> Result<(), Vec<FieldError>> {
        let mut c = Checks::new();
        check_venue(&mut c, &self.venue_id);
        c.finish()
    }
}

/// A venue.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
